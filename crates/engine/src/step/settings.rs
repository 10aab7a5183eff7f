//! World settings: gravity, the stepper, default softness and post-stabilisation. Plain data
//! with documented units and defaults; [`WorldSettings::validate`] checks every range.

use crate::contact::{ContactSettings, FrictionModel};
use crate::dynamics::integrate::STANDARD_GRAVITY;
use crate::error::WorldError;
use crate::joint::curvature::CurvatureCorrection;
use crate::math::Vec3;
use crate::poststab::PostStabilization;
use crate::rows::Softness;
use crate::sleep::SleepSettings;
use crate::solver::settings::Solver;

/// Everything a [`crate::World`] needs besides its bodies and joints.
#[derive(Debug, Clone)]
pub struct WorldSettings {
    /// Gravitational acceleration, m/s^2, world frame; default `(0, 0, -9.81)`.
    pub gravity: Vec3,
    /// How the constraint forces are found each step; default [`Solver::Exact`].
    pub solver: Solver,
    /// ERP and CFM of every row that neither its joint nor itself overrides; default
    /// ERP 0.2, CFM `1e-5` ([`Softness::DEFAULT`]).
    pub softness: Softness,
    /// Position-level correction after each step; default on.
    pub post_stabilization: PostStabilization,
    /// Contact generation, friction model and restitution ([`ContactSettings::default`]).
    pub contacts: ContactSettings,
    /// When resting bodies sleep; default off ([`SleepSettings::default`]).
    pub sleep: SleepSettings,
    /// The curvature term of joint rows, which removes the velocity-level step's
    /// first-order energy loss; default on ([`CurvatureCorrection::default`]).
    pub curvature: CurvatureCorrection,
    /// Whether each step measures the wall time of its phases into
    /// [`crate::StepStats::times`] (otherwise they stay zero); default off. The sixteen
    /// reads of the clock are a large share of a small scene's step, though negligible in
    /// a large one (docs/performance.md#phase-timing-off-by-default). Off by default as
    /// Rapier's counters and MuJoCo's timers are.
    pub time_phases: bool,
}

impl Default for WorldSettings {
    fn default() -> Self {
        Self {
            gravity: STANDARD_GRAVITY,
            solver: Solver::default(),
            softness: Softness::DEFAULT,
            post_stabilization: PostStabilization::default(),
            contacts: ContactSettings::default(),
            sleep: SleepSettings::default(),
            curvature: CurvatureCorrection::default(),
            time_phases: false,
        }
    }
}

impl WorldSettings {
    /// Checks every setting against its documented range.
    pub fn validate(&self) -> Result<(), WorldError> {
        if !self.gravity.is_finite() {
            return Err(WorldError::InvalidSetting {
                name: "gravity",
                value: self.gravity.max_element().max(-self.gravity.min_element()),
                rule: "must be finite",
            });
        }
        self.solver.validate()?;
        self.softness.validate()?;
        self.curvature.validate()?;
        self.post_stabilization.validate()?;
        self.contacts.validate()?;
        self.sleep.validate()?;
        check_friction_model(&self.solver, self.contacts.friction_model)
    }
}

/// Refuses friction models the stepper cannot solve: the polygonal cone needs Lemke (the
/// exact stepper), the Coulomb disk needs projected Gauss-Seidel (the iterative stepper).
pub(crate) fn check_friction_model(
    solver: &Solver,
    model: FrictionModel,
) -> Result<(), WorldError> {
    match (solver, model) {
        (Solver::Iterative(_), FrictionModel::PolygonalCone { edges }) => {
            Err(WorldError::InvalidSetting {
                name: "contacts.friction_model",
                value: edges as f64,
                rule: "the polygonal cone is solved by Lemke: use the exact stepper",
            })
        }
        (Solver::Exact(_), FrictionModel::CoulombCone) => Err(WorldError::InvalidSetting {
            name: "contacts.friction_model",
            value: 0.0,
            rule: "the Coulomb cone is projected inside Gauss-Seidel: use the iterative stepper",
        }),
        _ => Ok(()),
    }
}
