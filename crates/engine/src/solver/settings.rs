//! How each island's boxed LCP is solved: the stepper choice and its settings.

use crate::contact::ImpactModel;
use crate::error::WorldError;
use stiction_lcp::dantzig::DantzigOptions;

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
    /// The iterative stepper with the settings of docs/scenes.md#common-settings (20 sweeps, `omega` 1,
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
    /// contact points): above it the sparse solver is several times faster than Dantzig on
    /// resting stacks and pyramids and at least as fast on moving piles, where Dantzig's
    /// pivots fall back to Gauss-Seidel (docs/performance.md#sparse-exact-active-set-solver).
    /// 0 sends every island to the sparse solver; `usize::MAX` keeps every island dense
    /// (then the 210-box pyramid and the 1000-sphere pile of docs/scenes.md need gigabytes
    /// and hours per step). The polygonal friction cone is always solved by Lemke on the
    /// dense problem. Islands of bilateral rows only (joints without active limits or
    /// motors) go to the sparse solver above half this size (25 rows by default): with no
    /// index set to find it is one factorisation, banded along a chain
    /// (docs/performance.md#envelope-factorisation-of-chains).
    pub dense_row_limit: usize,
    /// How touching contacts' impacts are resolved: all at once in the velocity solve
    /// (default) or pairwise in the order the compression wave travels, which makes a
    /// Newton's cradle of touching balls pass the impact down the row ([`ImpactModel`]).
    pub impacts: ImpactModel,
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
            impacts: ImpactModel::Simultaneous,
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
    /// Sweeps over all rows per step, `>= 1`; default 20 (docs/scenes.md#common-settings). Cost is linear
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
    /// sweeps' approximation, a long chain steps faster, and the projection after the step
    /// has less to correct (docs/performance.md#envelope-factorisation-of-chains). Islands
    /// with bounded rows (contacts, limits, motors) are always swept. Off, every island is
    /// swept as in ODE's quickstep.
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
