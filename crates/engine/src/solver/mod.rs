//! The velocity solve's machinery: islands of connected rows, the dense problem for Dantzig,
//! the sparse row operator for Gauss-Seidel (and its AVX2 lanes), the envelope factorisation
//! of chains and the sparse active-set solver of large exact islands.

pub(crate) mod assemble;
pub(crate) mod envelope;
pub(crate) mod island;
#[cfg(target_arch = "x86_64")]
pub(crate) mod lanes;
pub mod settings;
pub(crate) mod sparse;
pub(crate) mod sparse_exact;
