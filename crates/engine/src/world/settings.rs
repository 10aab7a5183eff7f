//! World settings: gravity, the stepper, default softness and post-stabilisation. Plain data
//! with documented units and defaults; [`WorldSettings::validate`] checks every range.

use crate::constraint::Softness;
use crate::contact::{ContactSettings, FrictionModel};
use crate::error::WorldError;
use crate::integrate::STANDARD_GRAVITY;
use crate::math::Vec3;
use crate::sleep::SleepSettings;
use stiction_lcp::dantzig::DantzigOptions;

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
    /// reads of the clock cost about half a microsecond a step on a virtual machine: half
    /// of a lone body's step (S5), under 1 % of a 20-box stack's. Off by default as
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

/// The stepper: how each island's boxed LCP is solved.
#[derive(Debug, Clone)]
pub enum Solver {
    /// Dantzig's principal pivoting on each island's dense `A = J M^-1 J^T + diag(cfm)/h`
    /// (ODE's `dWorldStep`): exact to round-off, `O(n^3)` per island of `n` rows.
    Exact(ExactSettings),
    /// SOR projected Gauss-Seidel on the sparse rows without forming `A` (ODE's
    /// `dWorldQuickStep`): `O(n)` per sweep, approximate.
    Iterative(IterativeSettings),
}

impl Default for Solver {
    fn default() -> Self {
        Solver::Exact(ExactSettings::default())
    }
}

impl Solver {
    /// The iterative stepper with shared/SCENES.md's settings (20 sweeps, `omega` 1,
    /// warm-started).
    pub fn iterative() -> Self {
        Solver::Iterative(IterativeSettings::default())
    }

    /// The exact stepper with default settings.
    pub fn exact() -> Self {
        Solver::Exact(ExactSettings::default())
    }

    /// Checks the settings' ranges.
    pub fn validate(&self) -> Result<(), WorldError> {
        match self {
            Solver::Exact(exact) => {
                exact.validate()?;
            }
            Solver::Iterative(iterative) => iterative.validate()?,
        }
        Ok(())
    }
}

/// Settings of the exact stepper.
#[derive(Debug, Clone)]
pub struct ExactSettings {
    /// Options of the Dantzig solver (defaults of [`DantzigOptions`]). If its own `fallback`
    /// is set it runs first, on the dense problem.
    pub dantzig: DantzigOptions,
    /// The projected Gauss-Seidel solve that finishes an island Dantzig could not solve,
    /// on the sparse rows, started from the rows' last forces (counted in
    /// [`crate::StepStats::fallbacks`]). Default: 200 sweeps, `omega` 1, tolerance `1e-10`.
    pub fallback: IterativeSettings,
    /// Islands with more rows than this are solved without forming the dense `A`: an
    /// active-set iteration on the boxed LCP whose clamped rows are solved in body space
    /// through a block-sparse Cholesky factorisation of `M + J_F^T R_F^-1 J_F` (one 6 x 6
    /// block per body; `R = diag(cfm / h)`), exact to a normalised residual of `1e-9`
    /// like Dantzig's answer, and falling back to Gauss-Seidel the same way. Islands up
    /// to this size keep dense Dantzig, which needs no CFM. Default 50 rows (about 17
    /// contact points): measured (BENCHMARKS.md, eighth session), the sparse solver takes
    /// resting stacks and pyramids 2 to 15 times faster than Dantzig from 24 rows up (S4's
    /// 240-row stack 0.64 -> 0.074 ms/step) and moving piles about as fast from 45 rows and
    /// far faster from a few hundred (Dantzig's pivots on a landing pile fell back to
    /// Gauss-Seidel; a 27-sphere pile's mean step 7.3 -> 1.7 ms). 0 sends every island to
    /// the sparse solver; `usize::MAX` keeps every island dense (then S1 at N = 20 and S2
    /// need gigabytes and hours per step). The polygonal friction cone is always solved by
    /// Lemke on the dense problem. Islands of bilateral rows only (joints without active
    /// limits or motors) go to the sparse solver above half this size (25 rows by
    /// default): with no index set to find it is one factorisation, banded along a chain
    /// (S3, 300 rows: 0.29 against 1.0 ms/step).
    pub dense_row_limit: usize,
}

impl Default for ExactSettings {
    fn default() -> Self {
        Self {
            dantzig: DantzigOptions::default(),
            fallback: IterativeSettings {
                iterations: 200,
                omega: 1.0,
                tolerance: 1e-10,
                warm_start: true,
                // The exact solve (direct for bilateral islands) failed before this runs.
                direct_bilateral: false,
            },
            dense_row_limit: 50,
        }
    }
}

impl ExactSettings {
    fn validate(&self) -> Result<(), WorldError> {
        let check = |name, value: f64| {
            if value.is_finite() && value > 0.0 && value < 1.0 {
                Ok(())
            } else {
                Err(WorldError::InvalidSetting {
                    name,
                    value,
                    rule: "must lie in (0, 1)",
                })
            }
        };
        check("dantzig.tolerance", self.dantzig.tolerance)?;
        check("dantzig.pivot_tolerance", self.dantzig.pivot_tolerance)?;
        self.fallback.validate()
    }
}

/// Settings of the iterative stepper (and of the exact stepper's fallback).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IterativeSettings {
    /// Sweeps over all rows per step, `>= 1`; default 20 (shared/SCENES.md). Cost is linear
    /// in it; raising it stiffens long chains and tall stacks.
    pub iterations: usize,
    /// SOR relaxation factor, in `(0, 2)`; default 1 (plain Gauss-Seidel). Above 1 converges
    /// faster on smooth problems (chains) and can oscillate on contact-rich ones.
    pub omega: f64,
    /// Stop early once a sweep changes no force by more than this fraction of the largest
    /// force (dimensionless, `>= 0`); default 0: always run every sweep, as ODE's quickstep.
    pub tolerance: f64,
    /// Start from each row's force of the last step (default `true`). Off, every step starts
    /// from zero forces and a hanging chain sags until the sweeps catch up.
    pub warm_start: bool,
    /// Solve an island whose rows are all bilateral (joints without active limits or motors:
    /// chains, trees, closed loops) by one envelope `L D L^T` factorisation of its
    /// `J M^-1 J^T + diag(cfm / h)` instead of sweeping it, when the factorisation costs less
    /// than the sweeps would (default `true`). The forces are then exact, not `iterations`
    /// sweeps' approximation: S3's 100-link chain steps in 0.17 ms instead of 0.26, and the
    /// projection after the step has less to correct. Islands with bounded rows (contacts,
    /// limits, motors) are always swept. Off, every island is swept as in ODE's quickstep.
    pub direct_bilateral: bool,
}

impl Default for IterativeSettings {
    fn default() -> Self {
        Self {
            iterations: 20,
            omega: 1.0,
            tolerance: 0.0,
            warm_start: true,
            direct_bilateral: true,
        }
    }
}

impl IterativeSettings {
    /// Checks the documented ranges.
    pub fn validate(&self) -> Result<(), WorldError> {
        if self.iterations == 0 {
            return Err(WorldError::InvalidSetting {
                name: "iterations",
                value: 0.0,
                rule: "must be at least 1",
            });
        }
        if !(self.omega > 0.0 && self.omega < 2.0) {
            return Err(WorldError::InvalidSetting {
                name: "omega",
                value: self.omega,
                rule: "must lie in (0, 2)",
            });
        }
        if !(self.tolerance.is_finite() && self.tolerance >= 0.0) {
            return Err(WorldError::InvalidSetting {
                name: "tolerance",
                value: self.tolerance,
                rule: "must be finite and >= 0",
            });
        }
        Ok(())
    }

    pub(crate) fn pgs_options(&self) -> stiction_lcp::pgs::PgsOptions {
        stiction_lcp::pgs::PgsOptions {
            omega: self.omega,
            max_iterations: self.iterations,
            tolerance: self.tolerance,
            ..Default::default()
        }
    }
}

/// The curvature (second-order) term of joint rows (see `joint/curvature.rs`).
///
/// A velocity-level step makes each joint's velocity tangent to the constraint at the
/// *start* pose; the motion then leaves the curved constraint, and removing the stray normal
/// velocity next step costs kinetic energy at first order in `h` (ODE's behaviour: about 25
/// to 30 % over 10 s for a double pendulum at `h = 1e-3`). With the term, each stabilised
/// joint row's target gets `-kappa`, `kappa = (C(x + h u*) - C(x)) / h - J u*`, so the
/// constraint holds to second order at the *end* of the step; the loss disappears and the
/// energy error is the bounded oscillation of symplectic Euler (0.2 % for that pendulum).
///
/// The term is a Taylor term: where a body turns by a large angle in one step (a whipping
/// chain tip) it is wrong, and removing the first-order damping there lets the
/// under-resolved motion gain energy. It is therefore scaled by
/// `1 / (1 + (theta / fade_angle)^4)`, `theta = h max(|w_a|, |w_b|)` the larger rotation
/// of the row's two bodies in one step: full where the step resolves the rotation (99.6 %
/// at `theta = fade_angle / 4`), faded where it does not (6 % at twice `fade_angle`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvatureCorrection {
    /// On or off; default on. Off gives ODE's first-order (dissipative) step. Costs one more
    /// writing of the joints' rows per step.
    pub enabled: bool,
    /// Rotation per step (rad, finite, `> 0`) at which the term is halved; default 0.25.
    /// Raising it keeps more of the term on fast-turning bodies: less numerical damping,
    /// less stability. On scene S3 at `h = 1/60` the chain never exceeds its initial
    /// energy up to 0.4, gains 30 % of it for a while at 0.6, and blows up without the
    /// fade; at `h = 1e-3` the choice changes a double pendulum's energy by < 0.05 %.
    pub fade_angle: f64,
}

impl Default for CurvatureCorrection {
    fn default() -> Self {
        Self {
            enabled: true,
            fade_angle: 0.25,
        }
    }
}

impl CurvatureCorrection {
    /// The term switched off (the first-order step).
    pub const OFF: Self = Self {
        enabled: false,
        fade_angle: 0.25,
    };

    /// Checks the documented range.
    pub fn validate(&self) -> Result<(), WorldError> {
        if self.fade_angle.is_finite() && self.fade_angle > 0.0 {
            Ok(())
        } else {
            Err(WorldError::InvalidSetting {
                name: "curvature.fade_angle",
                value: self.fade_angle,
                rule: "must be finite and > 0",
            })
        }
    }

    /// The factor applied to a row's term when its bodies turn by `theta` rad in one step.
    pub(crate) fn fade(&self, theta: f64) -> f64 {
        let x = theta / self.fade_angle;
        let x2 = x * x;
        1.0 / (1.0 + x2 * x2)
    }
}

/// Position-level post-stabilisation (Cline and Pai 2003): after the velocity step, the
/// positions and orientations (never the velocities) of jointed bodies are projected back
/// onto the constraint manifold. Each pass linearises the joints' errors `C` at the new
/// poses and applies the smallest displacement `d = W^-1 J^T mu` with `J W^-1 J^T mu = -C`
/// (one Newton step of the projection), in the metric `W = diag(m, I / rotation_weight)`
/// with each body's world inertia `I` as the step began (any fixed metric gives Newton's
/// convergence; it picks which correcting displacement is the smallest), halving the step
/// until the squared error decreases.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PostStabilization {
    /// On or off; default on. Individual joints can opt out ([`crate::Joint::set_post_stabilize`]).
    pub enabled: bool,
    /// Newton passes per step at most, `>= 1`; default 10. Passes stop as soon as every
    /// error is below `tolerance`: the S3 chain needs 2 to 3 on average. Fewer passes leave
    /// joints stretched after violent steps.
    pub max_passes: usize,
    /// Stop once every stabilised row's `|C|` is below this (m or rad, `> 0`); default `1e-6`.
    pub tolerance: f64,
    /// How each pass solves `J M^-1 J^T mu = -C`.
    pub method: PostStabilizationMethod,
    /// Largest displacement of one body in one pass (m and rad, `> 0`); default 0.5. Larger
    /// corrections are scaled down (for the whole island), so a wildly violated joint is
    /// pulled back over several steps instead of being thrown.
    pub max_correction: f64,
    /// How cheap rotation is in the projection's metric, relative to the true inertia
    /// (dimensionless, in `(0, 1]`); default 0.1. With the true inertia (1) a point error of
    /// a taut chain is mostly removed by turning light links by large angles, whose
    /// second-order motion re-creates the error, and Newton stalls; translations move
    /// anchors exactly linearly, so favouring them (lower values) makes each pass nearly
    /// exact for ball joints. Angular rows (hinge axes) still need rotation: do not go
    /// below about 0.01.
    pub rotation_weight: f64,
}

impl Default for PostStabilization {
    fn default() -> Self {
        Self {
            enabled: true,
            max_passes: 10,
            tolerance: 1e-6,
            method: PostStabilizationMethod::Direct,
            max_correction: 0.5,
            rotation_weight: 0.1,
        }
    }
}

impl PostStabilization {
    /// Post-stabilisation switched off.
    pub const OFF: Self = Self {
        enabled: false,
        max_passes: 10,
        tolerance: 1e-6,
        method: PostStabilizationMethod::Direct,
        max_correction: 0.5,
        rotation_weight: 0.1,
    };

    /// Checks the documented ranges.
    pub fn validate(&self) -> Result<(), WorldError> {
        if self.max_passes == 0 {
            return Err(WorldError::InvalidSetting {
                name: "post_stabilization.max_passes",
                value: 0.0,
                rule: "must be at least 1",
            });
        }
        for (name, value) in [
            ("post_stabilization.tolerance", self.tolerance),
            ("post_stabilization.max_correction", self.max_correction),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(WorldError::InvalidSetting {
                    name,
                    value,
                    rule: "must be finite and > 0",
                });
            }
        }
        if !(self.rotation_weight > 0.0 && self.rotation_weight <= 1.0) {
            return Err(WorldError::InvalidSetting {
                name: "post_stabilization.rotation_weight",
                value: self.rotation_weight,
                rule: "must lie in (0, 1]",
            });
        }
        if let PostStabilizationMethod::GaussSeidel { sweeps: 0 } = self.method {
            return Err(WorldError::InvalidSetting {
                name: "post_stabilization.sweeps",
                value: 0.0,
                rule: "must be at least 1",
            });
        }
        Ok(())
    }
}

/// How a post-stabilisation pass solves for its correction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostStabilizationMethod {
    /// Exact: a sparse (envelope) `L D L^T` of `J M^-1 J^T`, linear in the rows for chains
    /// and trees listed root to leaf. Islands with one-sided rows (limits, contacts) use
    /// projected Gauss-Seidel with at most 50 sweeps instead (stopped early once a sweep
    /// changes the correction by at most 1e-5 of its size).
    Direct,
    /// Projected Gauss-Seidel with up to this many sweeps per pass (Box2D's position
    /// iterations), stopped early like [`Self::Direct`]'s: cheap per sweep, slow to converge
    /// on long chains.
    GaussSeidel {
        /// Sweeps per pass, `>= 1`.
        sweeps: usize,
    },
}
