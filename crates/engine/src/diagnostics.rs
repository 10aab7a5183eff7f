//! Step statistics: what the last [`crate::World::step`] did, as data the user can read.

use std::time::Duration;
use stiction_lcp::Status;

pub use crate::error::StepPhase;

/// Wall time spent in each phase of the last step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PhaseTimes {
    /// [`StepPhase::Collision`].
    pub collision: Duration,
    /// [`StepPhase::Forces`].
    pub forces: Duration,
    /// [`StepPhase::Rows`].
    pub rows: Duration,
    /// [`StepPhase::Islands`].
    pub islands: Duration,
    /// [`StepPhase::Solve`] (including assembling dense matrices for the exact stepper).
    pub solve: Duration,
    /// [`StepPhase::Velocities`] and [`StepPhase::Integration`].
    pub integration: Duration,
    /// [`StepPhase::PostStabilization`].
    pub post_stabilization: Duration,
    /// The whole step.
    pub total: Duration,
}

/// How one island's LCP solve ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IslandReport {
    /// Dynamic bodies in the island.
    pub bodies: usize,
    /// Rows (scalar constraints) in the island.
    pub rows: usize,
    /// Of which unbounded (bilateral) rows.
    pub unbounded_rows: usize,
    /// How the solve ended ([`Status::Solved`] for converged sweeps of the iterative stepper
    /// whose residual is below `1e-6`; [`Status::IterationLimit`] when the sweep budget ran
    /// out first, which is the normal case for a fixed 20-sweep budget).
    pub status: Status,
    /// Dantzig pivots, or Gauss-Seidel sweeps (including a fallback's).
    pub iterations: usize,
    /// The normalised LCP residual of the forces used ([`stiction_lcp::Residual::max`]);
    /// 0 for an island of bilateral rows solved by a factorisation that raised no pivot
    /// ([`crate::StepStats::direct_islands`]), whose residual is round-off and not measured.
    pub residual: f64,
    /// Whether the exact solve failed and Gauss-Seidel finished it.
    pub fell_back: bool,
    /// Whether the solve started from last step's forces or index sets.
    pub warm_started: bool,
}

/// What post-stabilisation did in the last step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PostStabilizationStats {
    /// Correction passes applied (0 if every error was already below tolerance).
    pub passes: usize,
    /// Stabilised rows in the first pass.
    pub rows: usize,
    /// Largest `|C|` (m or rad) of a stabilised row after the velocity step.
    pub error_before: f64,
    /// Largest `|C|` after the last pass.
    pub error_after: f64,
    /// Projected Gauss-Seidel row updates (sweeps times the island's rows) over all passes
    /// and islands (islands solved directly add none): a load-independent measure of the
    /// phase's cost.
    pub row_updates: usize,
    /// Envelope factorisations of islands solved directly, over all passes. A pass whose
    /// predecessor cut the errors tenfold reuses the last factorisation (a chord step, see
    /// `PostStabilization`), so a converging chain takes fewer factorisations than passes.
    pub factorizations: usize,
}

/// Statistics of the last step (also of a refused step: then [`Self::committed`] is false).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StepStats {
    /// The step size, s.
    pub h: f64,
    /// Whether the step was applied. A refused step changed no body or joint.
    pub committed: bool,
    /// Rows solved (rows touching no dynamic body are dropped and not counted).
    pub rows: usize,
    /// Islands (groups of dynamic bodies connected by rows).
    pub islands: usize,
    /// Dynamic bodies in islands.
    pub constrained_bodies: usize,
    /// Dynamic bodies in no island: they cost only integration.
    pub free_bodies: usize,
    /// Dantzig pivots over all islands (exact stepper).
    pub pivots: usize,
    /// Gauss-Seidel sweeps over all islands (iterative stepper, and fallbacks).
    pub sweeps: usize,
    /// Islands of bilateral rows only that one envelope factorisation solved exactly (with
    /// no pivots or sweeps): see [`crate::IterativeSettings::direct_bilateral`]; the exact
    /// stepper also solves its large bilateral islands this way.
    pub direct_islands: usize,
    /// The worst normalised LCP residual of any island.
    pub worst_residual: f64,
    /// Islands whose exact solve failed and were finished by Gauss-Seidel.
    pub fallbacks: usize,
    /// Islands whose final forces are not a solution to tolerance (the step still uses them,
    /// as ODE does); with the iterative stepper this counts islands whose sweeps ran out.
    pub unsolved_islands: usize,
    /// Pairwise impacts resolved before the velocity solve
    /// ([`crate::ImpactModel::Sequential`]).
    pub sequential_impacts: usize,
    /// Bodies in [`crate::GyroscopicMode::Conserving`] whose Newton or attitude solve did not
    /// converge and used the documented fallback.
    pub gyroscopic_fallbacks: usize,
    /// Non-finite values detected (a step that detects one is refused).
    pub non_finite: usize,
    /// Collider pairs whose boxes overlap (broad phase, after filtering).
    pub collision_pairs: usize,
    /// Contact points that became rows.
    pub contacts: usize,
    /// Collider pairs parry has no contact algorithm for (they make no contacts).
    pub unsupported_pairs: usize,
    /// Bodies asleep at the end of the step.
    pub sleeping_bodies: usize,
    /// Joints that broke in this step (their force or torque exceeded the breaking
    /// threshold; they are now disabled, [`crate::Joint::is_broken`]).
    pub broken_joints: Vec<crate::handles::JointHandle>,
    /// Post-stabilisation.
    pub post_stabilization: PostStabilizationStats,
    /// Wall time per phase.
    pub times: PhaseTimes,
    /// One report per island, in island order.
    pub island_reports: Vec<IslandReport>,
}

impl StepStats {
    /// Resets every figure, keeping the island reports' capacity.
    pub(crate) fn reset(&mut self, h: f64) {
        let mut reports = std::mem::take(&mut self.island_reports);
        reports.clear();
        let mut broken = std::mem::take(&mut self.broken_joints);
        broken.clear();
        *self = Self {
            h,
            island_reports: reports,
            broken_joints: broken,
            ..Self::default()
        };
    }
}
