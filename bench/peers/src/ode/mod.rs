//! ODE 0.16 through Debian's libode: a hand-written FFI layer ([`ffi`]), a world owner with
//! ODE's own collision ([`world`]), the scenes ([`scenes`]) and ODE's Dantzig LCP solver
//! through the C++ shim ([`lcp`]).

pub mod ffi;
pub mod lcp;
pub mod scenes;
pub mod world;
