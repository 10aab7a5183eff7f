//! # stiction
//!
//! A rigid-body dynamics engine built on the complementarity solvers of [`stiction_lcp`].
//! Bodies, joints and contacts become rows of a boxed LCP each step; the exact stepper solves
//! it by Dantzig pivoting, the iterative stepper by SOR projected Gauss-Seidel.

#![warn(missing_docs)]

pub use stiction_lcp as lcp;
