//! # stiction-constraint
//!
//! Constraint forces for rigid and multibody systems in generalized coordinates (any
//! parameterisation: free bodies, reduced-coordinate robots), after Drake's
//! `ConstraintSolver`. Hand over the generalized inertia and the constraint
//! Jacobians; get bilateral forces, contact forces with Coulomb friction (a polygonal cone of
//! selectable accuracy) and generic unilateral forces.
//!
//! ## Problems
//! - [`VelocityProblem`]: impacts ([`ConstraintSolver::solve_impact_problem`], impulses) and
//!   the time-discretised dynamics (forces over a step `h`).
//! - [`AccelerationProblem`]: forces at an instant, with sliding contacts (friction a known
//!   `-mu fN` along the sliding direction) and non-sliding ones (friction cone).
//!
//! Both carry a [`GeneralizedInertia`] (a matrix, or the solve `X -> M^-1 X`) and a
//! [`ConstraintSet`]: normals `N`, friction spanning directions `F` (`r` per contact, the
//! solver adds their negatives), bilateral `G`, generic unilateral `L`, `mu`, stabilisation
//! `kN`, `kD`, `kG`, `kL` and regularisation `gammaN`, `gammaL`. Bad data is rejected with a
//! [`ConstraintError`] naming the field.
//!
//! ## Operations (Drake's names)
//! - [`ConstraintSolver::solve_impact_problem`], [`ConstraintSolver::solve_constraint_problem`].
//! - Time stepping: [`ConstraintSolver::construct_base_discretized_time_lcp`], then per step
//!   size [`ConstraintSolver::update_discretized_time_lcp`],
//!   [`ConstraintSolver::solve_discretized_time_lcp`] and
//!   [`ConstraintSolver::populate_packed_constraint_forces_from_lcp_solution`] (or
//!   [`ConstraintSolver::solve_discretized_time_step`] for all three). An LCP that cannot be
//!   solved is a [`Status`] other than `Solved`, so the caller can halve `h` and retry (see
//!   `examples/rod_on_plane.rs`).
//! - From packed forces ([`ConstraintProblem`]): the generalized force, the generalized
//!   acceleration, the velocity change, and
//!   [`calc_contact_forces_in_contact_frames_2d`] / [`calc_contact_forces_in_contact_frames_3d`].
//!
//! Packed forces ([`PackedLayout`]) are, in order: the normal forces, the signed friction
//! forces (`r` per contact), the generic unilateral forces, the bilateral forces.
//!
//! ## Method
//! The mixed LCP is reduced to a pure LCP by eliminating the velocities and bilateral forces
//! (Drake's documentation, equations (e)-(g)). With `C = M^-1`, the bilateral equations become
//! `W_GG fG = -(kG + G v~) / h - G C J^T y` with the bilateral block `W_GG = G C G^T`, and the
//! complementarity rows get the reduced Delassus matrix `S = J C J^T - J C G^T W_GG^+ G C J^T`,
//! computed once per configuration ([`BaseDiscretizedLcp`]). The LCP, copositive for the
//! polygonal friction cone, is solved by [`stiction_lcp::lemke::solve_lemke`].
//!
//! **Rank-deficient bilateral constraints** (a duplicated joint, a closed kinematic loop)
//! make `W_GG` singular. `W_GG^+` is then the Moore-Penrose pseudo-inverse from nalgebra's
//! singular value decomposition, singular values below
//! [`SolverOptions::bilateral_rank_tolerance`] times the largest treated as zero: the
//! minimum-norm least-squares bilateral forces, the same answer a complete orthogonal
//! decomposition gives. Dependent rows share their force (a duplicated row carries half each),
//! while the generalized force `G^T fG` and the motion are the unique physical ones. SVD rather
//! than column-pivoted QR because its rank decision is the reliable one (pivoted QR can miss a
//! near-dependency) and the minimum-norm answer needs no second factorisation; `nb` is small,
//! so the `O(nb^3)` cost does not matter. The elimination stays exact for singular `W_GG`
//! because the columns of `G C J^T` lie in the range of `W_GG`.
//!
//! ## Example
//! A 2 kg particle on the ground `y = 0`, pushed sideways by 3 N (below the friction limit
//! `0.5 * 2 * 9.81`):
//!
//! ```
//! use stiction_constraint::{
//!     AccelerationProblem, ConstraintProblem, ConstraintSet, ConstraintSolver, DenseMatrix,
//!     GeneralizedInertia,
//! };
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let inertia = GeneralizedInertia::diagonal(&[2.0, 2.0])?; // v = (vx, vy)
//! let normal = DenseMatrix::from_rows(&[[0.0, 1.0]])?; // normal velocity: vy
//! let friction = DenseMatrix::from_rows(&[[1.0, 0.0]])?; // one spanning direction: x
//! let constraints = ConstraintSet::new(2).with_contacts(normal, friction, vec![1], vec![0.5]);
//! let force = vec![3.0, -2.0 * 9.81]; // push and gravity
//! let problem = AccelerationProblem::new(inertia, force, constraints);
//!
//! let solution = ConstraintSolver::new().solve_constraint_problem(&problem)?;
//! assert!(solution.is_solved());
//! let layout = problem.packed_layout();
//! assert!((layout.normal(&solution.forces)[0] - 2.0 * 9.81).abs() < 1e-9); // the weight
//! assert!((layout.friction(&solution.forces)[0] + 3.0).abs() < 1e-9); // holds the push
//! let acceleration = problem.compute_generalized_acceleration(&solution.forces)?;
//! assert!(acceleration.iter().all(|a| a.abs() < 1e-9)); // stays put
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

mod dense;
pub mod discretized;
pub mod error;
pub mod forces;
mod formulation;
pub mod frames;
pub mod inertia;
pub mod layout;
pub mod problem;
mod reduction;
pub mod solver;

pub use discretized::{BaseDiscretizedLcp, DiscretizedLcp};
pub use error::ConstraintError;
pub use forces::ConstraintProblem;
pub use frames::{
    calc_contact_forces_in_contact_frames_2d, calc_contact_forces_in_contact_frames_3d,
    spanning_direction, ContactFrame2, ContactFrame3,
};
pub use inertia::GeneralizedInertia;
pub use layout::PackedLayout;
pub use problem::{AccelerationProblem, ConstraintSet, VelocityProblem};
pub use solver::{ConstraintSolution, ConstraintSolver, SolverOptions};
pub use stiction_lcp::lemke::LemkeOptions;
pub use stiction_lcp::{DenseMatrix, SolveReport, StandardLcp, Status};
