//! # stiction-lcp
//!
//! Solvers for linear complementarity problems as they arise in rigid-body dynamics, with
//! no knowledge of bodies: the engine (or any user) hands over numbers.
//!
//! - [`BoxedLcp`]: `A x = b + w` with bounds `lo <= x <= hi`, `nub` unbounded leading rows
//!   and `findex` friction coupling (ODE's `dSolveLCP` semantics).
//! - [`StandardLcp`]: `w = M z + q`, `0 <= z _|_ w >= 0`.
//!
//! Solvers, each returning a [`SolveReport`] (solution, slack, [`Status`], work count,
//! [`Residual`]):
//! - [`dantzig`]: exact principal pivoting with an incrementally updated `LDL^T` of the
//!   clamped set, degeneracy-safe, optional warm start and PGS fallback.
//! - [`pgs`]: SOR projected Gauss-Seidel over a [`pgs::RowOperator`], so callers can run it
//!   on sparse rows without forming `A`.
//! - [`lemke`]: Lemke's complementary pivoting for the standard LCP.
//! - [`pgd`]: accelerated projected gradient for the box-constrained QP.
//! - [`mlcp`]: reduction of a mixed LCP to a standard LCP (Drake's `ConstraintSolver`).
//! - [`boxed_lemke`]: a boxed LCP with exact friction coupling, rewritten for Lemke.
//! - [`generate`]: contact-like test and benchmark problems.
//!
//! Malformed problems are rejected with a typed [`LcpError`]; solver failures are a status,
//! never a panic, and every pivoting loop has a limit.
//!
//! ```
//! use stiction_lcp::dantzig::{DantzigOptions, DantzigSolver};
//! use stiction_lcp::{BoxedLcp, DenseMatrix};
//!
//! // One particle on the ground pushed sideways: rows (normal, tangent x, tangent y).
//! let mut p = BoxedLcp::new(DenseMatrix::identity(3), vec![9.81, 20.0, 0.0]);
//! for t in [1, 2] {
//!     p.findex[t] = Some(0); // friction bounded by mu * normal force
//!     p.hi[t] = 0.5; // mu
//! }
//! let mut solver = DantzigSolver::new(); // keeps its workspace between solves
//! let report = solver.solve(&p, &DantzigOptions::default(), None).unwrap();
//! assert!(report.status.is_solved());
//! assert!((report.x[1] - 0.5 * 9.81).abs() < 1e-12); // sliding: friction at mu * normal
//! // Next step: pass `solver.active_set()` as the initial guess to skip the pivoting.
//! let guess = solver.active_set().to_vec();
//! let again = solver.solve(&p, &DantzigOptions::default(), Some(&guess)).unwrap();
//! assert_eq!(again.iterations, 0);
//! ```

#![warn(missing_docs)]

pub mod boxed_lemke;
pub mod dantzig;
pub mod error;
pub mod generate;
#[cfg(feature = "json")]
pub mod json;
pub mod lemke;
pub mod lu;
pub mod matrix;
pub mod mlcp;
pub mod pgd;
pub mod pgs;
pub mod problem;
pub mod report;
pub mod residual;

pub use error::LcpError;
pub use matrix::DenseMatrix;
pub use problem::{BoxedLcp, StandardLcp};
pub use report::{IndexState, SolveReport, Status};
pub use residual::{boxed_residual, standard_residual, Residual};
