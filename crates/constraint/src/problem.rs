//! Problem data: the constraint Jacobians and their terms (shared by both levels), and the
//! velocity-level and acceleration-level problems built on them.
//!
//! Drake's notation: `nv` generalized velocities, `nc` contacts, `r_i` friction spanning
//! directions at contact `i` (each used with its negative, so the polygonal friction cone
//! has `2 r_i` edges), `nl` generic unilateral and `nb` bilateral constraints.

use stiction_lcp::DenseMatrix;

use crate::dense::{check_finite, check_len, check_non_negative, check_shape};
use crate::error::ConstraintError;
use crate::inertia::GeneralizedInertia;
use crate::layout::PackedLayout;

/// The constraints of a system: Jacobians, friction, stabilisation and regularisation terms.
///
/// All constraint rows are written for a generalized velocity `v` (velocity level) or
/// acceleration `v'` (acceleration level): contact `i` is separating when `N_i v > 0`, the
/// friction direction `j` measures the sliding velocity `F_j v` along it, and so on. The
/// complementarity conditions the solvers enforce are documented on [`VelocityProblem`] and
/// [`AccelerationProblem`].
#[derive(Clone, Debug, PartialEq)]
pub struct ConstraintSet {
    /// `N`, `nc x nv`: row `i` maps `v` to contact `i`'s normal velocity (positive when
    /// separating).
    pub normal: DenseMatrix,
    /// `F`, `(sum r_i) x nv`: contact 0's `r_0` rows, then contact 1's, ... Row `j` of a
    /// contact maps `v` to the contact point's velocity along the tangent spanning direction
    /// `d_j`. The solver adds each negated row itself (`D = [F_i; -F_i]` per contact). For
    /// contact frames in 3D ([`crate::calc_contact_forces_in_contact_frames_3d`]) use the
    /// directions of [`crate::spanning_direction`].
    pub friction: DenseMatrix,
    /// `r_i` for every contact (length `nc`); 0 means frictionless (and is required of
    /// sliding contacts at the acceleration level).
    pub spanning_directions: Vec<usize>,
    /// Coulomb friction coefficient `mu_i >= 0` of every contact (length `nc`).
    pub mu: Vec<f64>,
    /// `L`, `nl x nv`: generic unilateral constraints (joint limits, ...), satisfied when
    /// `L v + kL >= 0`.
    pub unilateral: DenseMatrix,
    /// `G`, `nb x nv`: bilateral constraints `G v + kG = 0`. May be rank-deficient
    /// (duplicated or dependent rows).
    pub bilateral: DenseMatrix,
    /// `kN` (length `nc`): added to the normal rows; stabilisation (e.g. `erp * phi / h`
    /// for a signed distance `phi`), restitution or `N' v` at the acceleration level.
    pub k_n: Vec<f64>,
    /// `kD` (length `sum r_i`): added to each spanning direction's row (and subtracted from
    /// its negative's), e.g. a conveyor's surface velocity, or `F' v` at the acceleration
    /// level.
    pub k_d: Vec<f64>,
    /// `kL` (length `nl`).
    pub k_l: Vec<f64>,
    /// `kG` (length `nb`).
    pub k_g: Vec<f64>,
    /// `gammaN >= 0` (length `nc`): constraint force mixing on the normal rows, which makes
    /// contacts compliant (a normal row reads `N v + kN + gammaN fN >= 0`).
    pub gamma_n: Vec<f64>,
    /// `gammaL >= 0` (length `nl`): constraint force mixing on the generic unilateral rows.
    pub gamma_l: Vec<f64>,
}

impl ConstraintSet {
    /// No constraints, for a system with `nv` generalized velocities; add some with the
    /// `with_*` methods.
    pub fn new(nv: usize) -> Self {
        Self {
            normal: DenseMatrix::zeros(0, nv),
            friction: DenseMatrix::zeros(0, nv),
            spanning_directions: Vec::new(),
            mu: Vec::new(),
            unilateral: DenseMatrix::zeros(0, nv),
            bilateral: DenseMatrix::zeros(0, nv),
            k_n: Vec::new(),
            k_d: Vec::new(),
            k_l: Vec::new(),
            k_g: Vec::new(),
            gamma_n: Vec::new(),
            gamma_l: Vec::new(),
        }
    }

    /// Sets the contacts: normals `N`, friction spanning directions `F` with `r_i` rows per
    /// contact, and friction coefficients. `kN`, `kD`, `gammaN` are reset to zeros of the
    /// matching lengths. Nothing is checked until a solve ([`ConstraintSet::validate`]).
    pub fn with_contacts(
        mut self,
        normal: DenseMatrix,
        friction: DenseMatrix,
        spanning_directions: Vec<usize>,
        mu: Vec<f64>,
    ) -> Self {
        self.k_n = vec![0.0; normal.rows()];
        self.gamma_n = vec![0.0; normal.rows()];
        self.k_d = vec![0.0; friction.rows()];
        self.normal = normal;
        self.friction = friction;
        self.spanning_directions = spanning_directions;
        self.mu = mu;
        self
    }

    /// Sets the generic unilateral constraints `L`; `kL` and `gammaL` are reset to zeros.
    pub fn with_unilateral(mut self, unilateral: DenseMatrix) -> Self {
        self.k_l = vec![0.0; unilateral.rows()];
        self.gamma_l = vec![0.0; unilateral.rows()];
        self.unilateral = unilateral;
        self
    }

    /// Sets the bilateral constraints `G`; `kG` is reset to zeros.
    pub fn with_bilateral(mut self, bilateral: DenseMatrix) -> Self {
        self.k_g = vec![0.0; bilateral.rows()];
        self.bilateral = bilateral;
        self
    }

    /// Number of contacts `nc`.
    #[inline]
    pub fn contact_count(&self) -> usize {
        self.normal.rows()
    }

    /// The layout of packed constraint forces for these constraints.
    pub fn packed_layout(&self) -> PackedLayout {
        PackedLayout::new(
            &self.spanning_directions,
            self.unilateral.rows(),
            self.bilateral.rows(),
        )
    }

    /// Checks every dimension against `nv` and `nc = normal.rows()`, and every value:
    /// finite entries, `mu >= 0`, `gamma >= 0`. Errors name the field.
    ///
    /// # Errors
    /// [`ConstraintError::MatrixShape`], [`ConstraintError::LengthMismatch`],
    /// [`ConstraintError::NonFinite`] or [`ConstraintError::Negative`].
    pub fn validate(&self, nv: usize) -> Result<(), ConstraintError> {
        let nc = self.normal.rows();
        check_shape("normal", &self.normal, nc, nv)?;
        check_len("spanning_directions", nc, self.spanning_directions.len())?;
        let total_directions: usize = self.spanning_directions.iter().sum();
        check_shape("friction", &self.friction, total_directions, nv)?;
        check_len("mu", nc, self.mu.len())?;
        let nl = self.unilateral.rows();
        check_shape("unilateral", &self.unilateral, nl, nv)?;
        let nb = self.bilateral.rows();
        check_shape("bilateral", &self.bilateral, nb, nv)?;
        for (field, values, len) in [
            ("k_n", &self.k_n, nc),
            ("k_d", &self.k_d, total_directions),
            ("k_l", &self.k_l, nl),
            ("k_g", &self.k_g, nb),
            ("gamma_n", &self.gamma_n, nc),
            ("gamma_l", &self.gamma_l, nl),
        ] {
            check_len(field, len, values.len())?;
            check_finite(field, values)?;
        }
        check_finite("normal", self.normal.as_slice())?;
        check_finite("friction", self.friction.as_slice())?;
        check_finite("unilateral", self.unilateral.as_slice())?;
        check_finite("bilateral", self.bilateral.as_slice())?;
        check_non_negative("mu", &self.mu)?;
        check_non_negative("gamma_n", &self.gamma_n)?;
        check_non_negative("gamma_l", &self.gamma_l)
    }
}

/// A velocity-level problem: an impact (impulses) or one step of the time-discretised
/// dynamics (forces).
///
/// With `C = M^-1`, packed forces `fN`, `fF` (signed, per spanning direction), `fL`, `fG`,
/// and `f_D = (f_d, f_{-d})` the non-negative forces along each spanning direction and its
/// negative (`fF = f_d - f_{-d}`), the solver finds `v+ = v~ + h C (N^T fN + F^T fF + L^T fL
/// + G^T fG)` with:
///
/// ```text
/// G v+ + kG = 0
/// 0 <= fN  _|_  N v+ + kN + gammaN fN >= 0
/// 0 <= f_D _|_  D v+ + kD + E lambda >= 0        (D = [F; -F], kD = [kD; -kD] per contact)
/// 0 <= lambda _|_  mu fN - E^T f_D >= 0          (lambda: the sliding speed)
/// 0 <= fL  _|_  L v+ + kL + gammaL fL >= 0
/// ```
///
/// - Impact ([`crate::ConstraintSolver::solve_impact_problem`]): `h = 1`, `v~ = v` (the
///   velocity just before impact), forces are impulses; `force` is ignored.
/// - Time stepping (`construct_base_discretized_time_lcp` and the following operations):
///   `v~ = v + h C f`, forces are in newtons and `v+` is the velocity at `t + h`.
#[derive(Clone, Debug)]
pub struct VelocityProblem {
    /// The generalized inertia `M`.
    pub inertia: GeneralizedInertia,
    /// `v`, length `nv`: the generalized velocity before the impact or at the start of the
    /// step.
    pub velocity: Vec<f64>,
    /// `f`, length `nv`: every non-constraint generalized force (gravity, actuation,
    /// velocity-dependent terms). Used by time stepping only.
    pub force: Vec<f64>,
    /// The constraints.
    pub constraints: ConstraintSet,
}

impl VelocityProblem {
    /// A problem with the given inertia, velocity and constraints, and zero force.
    pub fn new(
        inertia: GeneralizedInertia,
        velocity: Vec<f64>,
        constraints: ConstraintSet,
    ) -> Self {
        let nv = inertia.dim();
        Self {
            inertia,
            velocity,
            force: vec![0.0; nv],
            constraints,
        }
    }

    /// Sets the non-constraint generalized force `f`.
    pub fn with_force(mut self, force: Vec<f64>) -> Self {
        self.force = force;
        self
    }

    /// Checks every dimension and value.
    ///
    /// # Errors
    /// See [`ConstraintSet::validate`]; also `velocity` and `force` of length `nv`, finite.
    pub fn validate(&self) -> Result<(), ConstraintError> {
        let nv = self.inertia.dim();
        check_len("velocity", nv, self.velocity.len())?;
        check_finite("velocity", &self.velocity)?;
        check_len("force", nv, self.force.len())?;
        check_finite("force", &self.force)?;
        self.constraints.validate(nv)
    }
}

/// An acceleration-level problem: the constraint forces at an instant, for contacts that are
/// either sliding or not.
///
/// A sliding contact's friction is known up to its normal force: `-mu_i fN_i` along the
/// sliding direction, whose Jacobian row `Q_i` (the unit tangent along the contact point's
/// sliding velocity) is given here; such a contact has `r_i = 0`. A non-sliding contact has
/// a polygonal friction cone as in [`VelocityProblem`]. With `C = M^-1` the solver finds
/// `v' = C (f + sum_i (N_i - mu_i Q_i)^T fN_i + F^T fF + L^T fL + G^T fG)` (the `Q` term
/// only for sliding contacts) with:
///
/// ```text
/// G v' + kG = 0
/// 0 <= fN  _|_  N v' + kN + gammaN fN >= 0
/// 0 <= f_D _|_  D v' + kD + E lambda >= 0        (non-sliding contacts only)
/// 0 <= lambda _|_  mu fN - E^T f_D >= 0
/// 0 <= fL  _|_  L v' + kL + gammaL fL >= 0
/// ```
///
/// Here `kN = N' v`, `kD = F' v`, `kL = L' v`, `kG = G' v` (the Jacobians' time
/// derivatives times `v`), plus any stabilisation.
#[derive(Clone, Debug)]
pub struct AccelerationProblem {
    /// The generalized inertia `M`.
    pub inertia: GeneralizedInertia,
    /// `f`, length `nv`: every non-constraint generalized force, including the
    /// velocity-dependent (Coriolis, gyroscopic) terms.
    pub force: Vec<f64>,
    /// The constraints.
    pub constraints: ConstraintSet,
    /// Whether each contact is sliding (length `nc`).
    pub sliding: Vec<bool>,
    /// `Q`, one row per sliding contact in contact order (`n_sliding x nv`): the Jacobian of
    /// the unit sliding direction.
    pub sliding_direction: DenseMatrix,
}

impl AccelerationProblem {
    /// A problem in which no contact slides.
    pub fn new(inertia: GeneralizedInertia, force: Vec<f64>, constraints: ConstraintSet) -> Self {
        let nv = inertia.dim();
        let nc = constraints.contact_count();
        Self {
            inertia,
            force,
            constraints,
            sliding: vec![false; nc],
            sliding_direction: DenseMatrix::zeros(0, nv),
        }
    }

    /// Marks contacts as sliding and gives their sliding-direction Jacobian rows `Q` (one per
    /// sliding contact, in contact order).
    pub fn with_sliding(mut self, sliding: Vec<bool>, sliding_direction: DenseMatrix) -> Self {
        self.sliding = sliding;
        self.sliding_direction = sliding_direction;
        self
    }

    /// Number of sliding contacts.
    pub fn sliding_count(&self) -> usize {
        self.sliding.iter().filter(|&&s| s).count()
    }

    /// Checks every dimension and value; sliding contacts must have no spanning directions.
    ///
    /// # Errors
    /// See [`ConstraintSet::validate`]; also `force` (length `nv`, finite), `sliding`
    /// (length `nc`), `sliding_direction` (`n_sliding x nv`, finite) and
    /// [`ConstraintError::SlidingContactWithFriction`].
    pub fn validate(&self) -> Result<(), ConstraintError> {
        let nv = self.inertia.dim();
        check_len("force", nv, self.force.len())?;
        check_finite("force", &self.force)?;
        self.constraints.validate(nv)?;
        check_len(
            "sliding",
            self.constraints.contact_count(),
            self.sliding.len(),
        )?;
        check_shape(
            "sliding_direction",
            &self.sliding_direction,
            self.sliding_count(),
            nv,
        )?;
        check_finite("sliding_direction", self.sliding_direction.as_slice())?;
        for (contact, (&sliding, &directions)) in self
            .sliding
            .iter()
            .zip(&self.constraints.spanning_directions)
            .enumerate()
        {
            if sliding && directions != 0 {
                return Err(ConstraintError::SlidingContactWithFriction {
                    contact,
                    directions,
                });
            }
        }
        Ok(())
    }
}
