//! From packed constraint forces to generalized forces, accelerations and velocity changes
//! (Drake's `ComputeGeneralized*` operations).

use crate::error::ConstraintError;
use crate::inertia::GeneralizedInertia;
use crate::layout::PackedLayout;
use crate::problem::{AccelerationProblem, ConstraintSet, VelocityProblem};

/// What the velocity-level and acceleration-level problems share: the operations on packed
/// forces that do not depend on the level.
pub trait ConstraintProblem {
    /// The generalized inertia.
    fn inertia(&self) -> &GeneralizedInertia;

    /// The constraints.
    fn constraints(&self) -> &ConstraintSet;

    /// Checks every dimension and value of the problem.
    ///
    /// # Errors
    /// The first problem found, naming its field.
    fn validate(&self) -> Result<(), ConstraintError>;

    /// Whether contact `i` is sliding (only acceleration-level problems have sliding
    /// contacts).
    fn is_sliding(&self, contact: usize) -> bool;

    /// The layout of this problem's packed forces.
    fn packed_layout(&self) -> PackedLayout {
        self.constraints().packed_layout()
    }

    /// The generalized force of the packed forces `cf`:
    /// `N^T fN + F^T fF + L^T fL + G^T fG`, plus `-mu_i Q_i^T fN_i` for every sliding contact
    /// (acceleration level). A generalized impulse if `cf` holds impulses.
    ///
    /// # Errors
    /// `cf` of the wrong length.
    fn compute_generalized_force_from_constraint_forces(
        &self,
        cf: &[f64],
    ) -> Result<Vec<f64>, ConstraintError>;

    /// `M^-1` times the generalized force of `cf`: the acceleration due to the constraint
    /// forces alone (or the velocity change, for impulses).
    ///
    /// # Errors
    /// `cf` of the wrong length; a failing inertia solve.
    fn compute_generalized_acceleration_from_constraint_forces(
        &self,
        cf: &[f64],
    ) -> Result<Vec<f64>, ConstraintError> {
        let force = self.compute_generalized_force_from_constraint_forces(cf)?;
        self.inertia().solve_vec(&force)
    }
}

/// `N^T fN + F^T fF + L^T fL + G^T fG`.
fn jacobian_transpose_times(
    constraints: &ConstraintSet,
    cf: &[f64],
    nv: usize,
) -> Result<Vec<f64>, ConstraintError> {
    let layout = constraints.packed_layout();
    layout.check(cf)?;
    let mut force = vec![0.0; nv];
    let mut add = |matrix: &stiction_lcp::DenseMatrix, values: &[f64]| {
        for (i, &value) in values.iter().enumerate() {
            if value != 0.0 {
                for (f, &j) in force.iter_mut().zip(matrix.row(i)) {
                    *f += j * value;
                }
            }
        }
    };
    add(&constraints.normal, layout.normal(cf));
    add(&constraints.friction, layout.friction(cf));
    add(&constraints.unilateral, layout.unilateral(cf));
    add(&constraints.bilateral, layout.bilateral(cf));
    Ok(force)
}

impl ConstraintProblem for VelocityProblem {
    fn validate(&self) -> Result<(), ConstraintError> {
        VelocityProblem::validate(self)
    }

    fn inertia(&self) -> &GeneralizedInertia {
        &self.inertia
    }

    fn constraints(&self) -> &ConstraintSet {
        &self.constraints
    }

    fn is_sliding(&self, _contact: usize) -> bool {
        false
    }

    fn compute_generalized_force_from_constraint_forces(
        &self,
        cf: &[f64],
    ) -> Result<Vec<f64>, ConstraintError> {
        self.validate()?;
        jacobian_transpose_times(&self.constraints, cf, self.inertia.dim())
    }
}

impl VelocityProblem {
    /// The velocity change `M^-1 J^T cf` caused by packed impulses `cf` (from
    /// [`crate::ConstraintSolver::solve_impact_problem`]).
    ///
    /// # Errors
    /// `cf` of the wrong length; a failing inertia solve.
    pub fn compute_generalized_velocity_change(
        &self,
        cf: &[f64],
    ) -> Result<Vec<f64>, ConstraintError> {
        self.compute_generalized_acceleration_from_constraint_forces(cf)
    }

    /// The generalized acceleration over a discretised step with packed forces `cf`
    /// (newtons): `M^-1 (f + J^T cf)`, which is `(v(t + h) - v(t)) / h`, a first-order
    /// approximation of the acceleration.
    ///
    /// # Errors
    /// `cf` of the wrong length; a failing inertia solve.
    pub fn compute_generalized_acceleration(
        &self,
        cf: &[f64],
    ) -> Result<Vec<f64>, ConstraintError> {
        let mut force = self.compute_generalized_force_from_constraint_forces(cf)?;
        for (f, external) in force.iter_mut().zip(&self.force) {
            *f += external;
        }
        self.inertia.solve_vec(&force)
    }

    /// The velocity at the end of a discretised step of size `h` with packed forces `cf`:
    /// `v + h M^-1 (f + J^T cf)`.
    ///
    /// # Errors
    /// As [`VelocityProblem::compute_generalized_acceleration`], and
    /// [`ConstraintError::BadStepSize`].
    pub fn compute_next_velocity(&self, cf: &[f64], h: f64) -> Result<Vec<f64>, ConstraintError> {
        if !(h.is_finite() && h > 0.0) {
            return Err(ConstraintError::BadStepSize { h });
        }
        let acceleration = self.compute_generalized_acceleration(cf)?;
        Ok(self
            .velocity
            .iter()
            .zip(&acceleration)
            .map(|(v, a)| v + h * a)
            .collect())
    }
}

impl ConstraintProblem for AccelerationProblem {
    fn validate(&self) -> Result<(), ConstraintError> {
        AccelerationProblem::validate(self)
    }

    fn inertia(&self) -> &GeneralizedInertia {
        &self.inertia
    }

    fn constraints(&self) -> &ConstraintSet {
        &self.constraints
    }

    fn is_sliding(&self, contact: usize) -> bool {
        self.sliding.get(contact).copied().unwrap_or(false)
    }

    fn compute_generalized_force_from_constraint_forces(
        &self,
        cf: &[f64],
    ) -> Result<Vec<f64>, ConstraintError> {
        self.validate()?;
        let mut force = jacobian_transpose_times(&self.constraints, cf, self.inertia.dim())?;
        let sliding = self.sliding.iter().enumerate().filter(|(_, &s)| s);
        for (row, (i, _)) in sliding.enumerate() {
            let drag = self.constraints.mu[i] * cf[i];
            for (f, &q) in force.iter_mut().zip(self.sliding_direction.row(row)) {
                *f -= drag * q;
            }
        }
        Ok(force)
    }
}

impl AccelerationProblem {
    /// The generalized acceleration with packed forces `cf` (from
    /// [`crate::ConstraintSolver::solve_constraint_problem`]): `M^-1 (f + generalized
    /// constraint force)`.
    ///
    /// # Errors
    /// `cf` of the wrong length; a failing inertia solve.
    pub fn compute_generalized_acceleration(
        &self,
        cf: &[f64],
    ) -> Result<Vec<f64>, ConstraintError> {
        let mut force = self.compute_generalized_force_from_constraint_forces(cf)?;
        for (f, external) in force.iter_mut().zip(&self.force) {
            *f += external;
        }
        self.inertia.solve_vec(&force)
    }
}
