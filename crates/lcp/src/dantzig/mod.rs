//! Dantzig's principal pivoting for the boxed LCP: the exact solver (ODE's `dWorldStep`).
//!
//! The algorithm (ODE's `dSolveLCP`, the module `pivot`) visits the indices in order
//! (unbounded rows first, then ordinary rows, then friction rows), driving each into a valid
//! state while keeping every earlier one valid, with the clamped block `A_CC` held as an
//! incrementally updated `L D L^T` ([`ldlt`]). What this implementation adds to ODE's:
//!
//! - **Degeneracy safety.** Sign tests use tolerances relative to the problem's scale, so a
//!   round-off-sized slack of the wrong sign is a zero step, not ODE's `s <= 0` failure; ties
//!   are broken towards finishing the driving index, then by smallest index (Bland); rows
//!   dependent on the clamped set (redundant contacts without CFM) are parked at zero and
//!   re-examined; every loop has a pivot budget.
//! - **Consistent friction.** ODE fixes each friction row's bounds from the normal forces
//!   known when the first friction row is reached. Here each friction row takes them from
//!   its normal force when it is driven (including what earlier friction rows changed), and
//!   further passes (`repair.rs`) move the bounds to the latest normal forces, keep the index
//!   sets and factorisation, and re-drive only the indices this made invalid, until
//!   `|x_t| <= mu |x_n|` holds with the final normals (the true `findex` problem), up to
//!   [`DantzigOptions::max_friction_passes`].
//! - **Warm start.** A guess of each index's set (e.g. last step's [`IndexState`]s) is tried
//!   first: one factorisation and a validity check; pivoting only runs if the guess is wrong,
//!   and then starts from the guessed sets, repaired like a friction pass.
//! - **Polish.** The final clamped values are re-solved from the factorisation (one step of
//!   iterative refinement), so drift accumulated over many pivots does not reach the answer.
//! - **Fallback.** On failure, optionally finish with projected Gauss-Seidel started from the
//!   partial solution (the problem itself is never modified), and say so in the report.
//!
//! Known limit (measured on [`crate::generate::random_contact_problem`] with 40 % exactly
//! duplicated contacts): frictionless and `mu <= 0.3` sets are always solved; with `mu = 0.5`
//! and CFM at or below `1e-4`, 1 to 3 % of sets end with the friction bounds unsettled
//! ([`Status::IterationLimit`], residual reported), because the split of load between
//! identical contacts is arbitrary and the coupled system is singular. Engine-like CFM
//! (`1e-5 / h`) removes it.

pub mod ldlt;
mod pivot;
mod repair;
mod sparse_rows;
mod warm;

use crate::boxed_lemke::solve_boxed_lemke;
use crate::error::LcpError;
use crate::lemke::LemkeOptions;
use crate::lu::DenseLu;
use crate::matrix::{dot, max_abs};
use crate::pgs::{solve_pgs, PgsOptions};
use crate::problem::BoxedLcp;
use crate::report::{IndexState, SolveReport, Status};
use crate::residual::boxed_residual;
use ldlt::IncrementalLdlt;
use sparse_rows::SparseRows;
use warm::WarmStart;

/// Options for [`solve_dantzig`] and [`DantzigSolver`].
#[derive(Clone, Debug)]
pub struct DantzigOptions {
    /// Relative tolerance of sign tests on `w` and of the final validity check, as a fraction
    /// of `max(|b|_inf, |A|_max |x|_inf)`. Default `1e-11`. Raising it accepts slightly wrong
    /// signs sooner (fewer degenerate pivots, larger residual).
    pub tolerance: f64,
    /// A pivot of the clamped block below `pivot_tolerance * A_kk` counts as singular (the
    /// row depends on the clamped set). Default `1e-10`, well below any physical CFM.
    pub pivot_tolerance: f64,
    /// Budget of pivots over the whole solve; `None` means `30 n + 100`. Reaching it ends
    /// the solve with [`Status::PivotLimit`].
    pub max_pivots: Option<usize>,
    /// How many pivoting passes may be spent making friction bounds consistent with the final
    /// normal forces. Default 12 (a pass after the first repairs the previous pass's sets and
    /// usually costs a few pivots); 1 is ODE's single pass (with bounds taken per row, see the
    /// module documentation).
    pub max_friction_passes: usize,
    /// When pivoting cannot make friction bounds agree with the final normal forces, solve
    /// the coupled problem exactly through [`solve_boxed_lemke`] (slower: a friction row
    /// becomes three Lemke variables). Default `true`; `false` reports the best pivoting
    /// answer with status [`Status::IterationLimit`].
    pub exact_friction: bool,
    /// Largest problem (rows) given to the exact-friction solve: it costs about a second at
    /// 300 rows and tens of seconds at 1000 (Lemke's dense pivots on roughly 2.3 n
    /// variables). Default 300; larger unsettled problems report
    /// [`Status::IterationLimit`] (or fall back to PGS if `fallback` is set).
    pub exact_friction_max_rows: usize,
    /// Finish a failed solve with projected Gauss-Seidel (from the partial solution; the
    /// problem is never modified). `None` (default) reports the failure instead.
    pub fallback: Option<PgsOptions>,
}

impl Default for DantzigOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-11,
            pivot_tolerance: 1e-10,
            max_pivots: None,
            max_friction_passes: 12,
            exact_friction: true,
            exact_friction_max_rows: 300,
            fallback: None,
        }
    }
}

impl DantzigOptions {
    fn validate(&self) -> Result<(), LcpError> {
        let check = |option: &'static str, v: f64| {
            if v.is_finite() && v > 0.0 && v < 1.0 {
                Ok(())
            } else {
                Err(LcpError::BadOption {
                    option,
                    reason: format!("must be in (0, 1), got {v}"),
                })
            }
        };
        check("tolerance", self.tolerance)?;
        check("pivot_tolerance", self.pivot_tolerance)?;
        if self.max_friction_passes == 0 {
            return Err(LcpError::BadOption {
                option: "max_friction_passes",
                reason: "must be at least 1".into(),
            });
        }
        Ok(())
    }
}

/// When `settle_friction` may finish with the coupled solve (an `O(|C|^3)` LU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CoupledSolve {
    /// Whenever the fixed-point rounds do not settle (a warm start: a miss costs a cold
    /// solve).
    Always,
    /// Only if the fixed-point values still keep every index roughly in its set (between
    /// pivoting passes: otherwise another, repairing, pass is needed anyway).
    IfSetsHold,
}

/// Where an index is during pivoting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Set {
    Unseen,
    Clamped,
    Lower,
    Upper,
    Fixed,
    Parked,
}

/// A reusable Dantzig solver: keeps its workspace between solves so that an engine solving
/// an LCP every step allocates only when problems grow.
#[derive(Clone, Debug, Default)]
pub struct DantzigSolver {
    order: Vec<usize>,
    x: Vec<f64>,
    /// The last pass's own answer, kept while `settle_friction` tries to improve it.
    pass_x: Vec<f64>,
    w: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    set: Vec<Set>,
    c_list: Vec<usize>,
    n_list: Vec<usize>,
    parked: Vec<usize>,
    ldl: IncrementalLdlt,
    /// `A` restricted to the clamped columns for every row, each clamped index in a slot of
    /// its own: `clamped_columns[r * n + slot_of[c]] = A[r][c_list[c]]`. The products with
    /// `dx_C` that every pivot takes for every index in N are then contiguous dot products
    /// instead of gathers through `c_list` (ODE gets the same by permuting `A` itself), and
    /// an index leaving C frees its slot instead of shifting every row's later columns.
    clamped_columns: Vec<f64>,
    /// Slot in `clamped_columns` of each index of `c_list`, in the same order.
    slot_of: Vec<usize>,
    /// Slots freed by indices that left C, reused first.
    free_slots: Vec<usize>,
    /// Slots in use or freed: every row's products run over this many entries.
    slots_used: usize,
    /// `dx_C` scattered to the slots (zero in free ones).
    dx_slots: Vec<f64>,
    /// The nonzeros of `A` by row, when few enough to beat the dense products.
    rows: SparseRows,
    /// `dx_C` scattered to full length (zero outside C) for the sparse products.
    dx_full: Vec<f64>,
    lu: DenseLu,
    /// The low-rank coupled solve: `Z = A_CC^-1 U` column by column (`nc` values each), the
    /// clamped positions of the normal rows tied friction rows add to, and each clamped
    /// position's column of `Z` (or `usize::MAX`).
    low_rank: Vec<f64>,
    tied_columns: Vec<usize>,
    column_of: Vec<usize>,
    /// `E^T z`, then the capacitance solve's answer (`q` values).
    tied_values: Vec<f64>,
    /// Coupled solves done by the low-rank way (tests check it is taken).
    low_rank_solves: usize,
    /// Always solve the coupled system densely (tests compare the two ways).
    dense_coupled_only: bool,
    position: Vec<usize>,
    y: Vec<f64>,
    dx: Vec<f64>,
    dw: Vec<f64>,
    active: Vec<IndexState>,
    tolerance: f64,
    pivot_tolerance: f64,
    a_max: f64,
    b_inf: f64,
    pivots: usize,
    max_pivots: usize,
    regularised: usize,
    friction_passes: usize,
    friction_pass_limit: usize,
    warm_started: bool,
    exact_friction_used: bool,
}

/// Counters of the last solve beyond what [`SolveReport`] holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DantzigStats {
    /// Pivots taken.
    pub pivots: usize,
    /// Pivoting passes run (more than one when friction bounds needed updating).
    pub passes: usize,
    /// Whether the initial guess was right (no pivoting needed).
    pub warm_start_hit: bool,
    /// Pivots regularised because round-off let a dependent row into the clamped set.
    pub regularised_pivots: usize,
    /// Whether the answer came from the exact coupled-friction solve.
    pub exact_friction: bool,
}

impl DantzigSolver {
    /// A solver with an empty workspace.
    pub fn new() -> Self {
        Self::default()
    }

    /// The index sets of the last solution, to pass as the next solve's `initial` guess.
    pub fn active_set(&self) -> &[IndexState] {
        &self.active
    }

    /// Counters of the last solve.
    pub fn stats(&self) -> DantzigStats {
        DantzigStats {
            pivots: self.pivots,
            passes: self.friction_passes,
            warm_start_hit: self.warm_started,
            regularised_pivots: self.regularised,
            exact_friction: self.exact_friction_used,
        }
    }

    fn prepare(&mut self, p: &BoxedLcp, options: &DantzigOptions) {
        let n = p.len();
        for v in [
            &mut self.x,
            &mut self.pass_x,
            &mut self.w,
            &mut self.lo,
            &mut self.hi,
            &mut self.y,
            &mut self.dx,
            &mut self.dx_slots,
            &mut self.dx_full,
            &mut self.dw,
        ] {
            v.clear();
            v.resize(n, 0.0);
        }
        self.set.clear();
        self.set.resize(n, Set::Unseen);
        if self.clamped_columns.len() < n * n {
            self.clamped_columns.resize(n * n, 0.0);
        }
        self.lo.copy_from_slice(&p.lo);
        self.hi.copy_from_slice(&p.hi);
        // Unbounded rows first, then ordinary rows, then friction rows: by the time a
        // friction row is driven, every normal force it depends on is known.
        self.order.clear();
        self.order.extend(0..p.nub);
        self.order
            .extend((p.nub..n).filter(|&i| p.findex[i].is_none()));
        self.order
            .extend((p.nub..n).filter(|&i| p.findex[i].is_some()));
        self.tolerance = options.tolerance;
        self.pivot_tolerance = options.pivot_tolerance;
        self.a_max = p.a.max_abs();
        self.b_inf = max_abs(&p.b);
        self.pivots = 0;
        self.max_pivots = options.max_pivots.unwrap_or(30 * n + 100);
        self.regularised = 0;
        self.friction_passes = 0;
        self.friction_pass_limit = options.max_friction_passes;
        self.warm_started = false;
    }

    /// Solves `problem`; `initial` optionally guesses each index's set.
    ///
    /// Errors are reserved for malformed input (including a non-symmetric `A`, which the
    /// `L D L^T` factorisation cannot use); every solver failure is a [`Status`].
    pub fn solve(
        &mut self,
        problem: &BoxedLcp,
        options: &DantzigOptions,
        initial: Option<&[IndexState]>,
    ) -> Result<SolveReport, LcpError> {
        let mut report = SolveReport::default();
        self.solve_into(problem, options, initial, &mut report)?;
        Ok(report)
    }

    /// [`Self::solve`], writing the answer into `report` and reusing its vectors, so a
    /// solve that succeeds by pivoting allocates nothing once the workspaces have grown
    /// (a stepper's every step). The rare paths (the exact-friction reformulation, the
    /// Gauss-Seidel fallback) still build new vectors. On error `report` is unspecified.
    ///
    /// # Errors
    /// As [`Self::solve`].
    pub fn solve_into(
        &mut self,
        problem: &BoxedLcp,
        options: &DantzigOptions,
        initial: Option<&[IndexState]>,
        report: &mut SolveReport,
    ) -> Result<(), LcpError> {
        problem.validate()?;
        options.validate()?;
        problem.a.check_symmetric(1e-9)?;
        if let Some(guess) = initial {
            if guess.len() != problem.len() {
                return Err(LcpError::LengthMismatch {
                    field: "initial",
                    expected: problem.len(),
                    found: guess.len(),
                });
            }
        }
        let n = problem.len();
        self.prepare(problem, options);
        self.exact_friction_used = false;
        let outcome = self.solve_prepared(problem, initial);
        self.report_from_state(problem, outcome, options, report);
        self.record_active_set(n);
        let has_friction = problem.findex.iter().any(Option::is_some);
        if !report.status.is_solved()
            && has_friction
            && options.exact_friction
            && n <= options.exact_friction_max_rows
        {
            // Pivoting on fixed friction bounds did not settle: solve the coupled problem.
            if let Ok(exact) = solve_boxed_lemke(problem, &LemkeOptions::default()) {
                let pivots = report.iterations + exact.iterations;
                if exact.status.is_solved() {
                    self.exact_friction_used = true;
                    self.classify_active_set(problem, &exact.x);
                    *report = SolveReport {
                        iterations: pivots,
                        ..exact
                    };
                } else if exact.x.iter().all(|v| v.is_finite()) {
                    // Lemke's tableau loses digits on ill-conditioned problems, but its index
                    // sets are usually right: re-solve them exactly.
                    self.classify_active_set(problem, &exact.x);
                    let guess = std::mem::take(&mut self.active);
                    if self.try_warm_start(problem, &guess) == WarmStart::Hit {
                        self.exact_friction_used = true;
                        self.report_from_state(problem, Ok(()), options, report);
                        report.iterations = pivots;
                        self.record_active_set(n);
                    } else {
                        self.active = guess;
                    }
                }
            }
        }
        if !report.status.is_solved() {
            if let Some(pgs) = &options.fallback {
                let warm = report
                    .x
                    .iter()
                    .all(|v| v.is_finite())
                    .then_some(&report.x[..]);
                let fallback = solve_pgs(problem, warm, pgs)?;
                *report = SolveReport {
                    iterations: report.iterations + fallback.iterations,
                    fell_back: true,
                    ..fallback
                };
            }
        }
        Ok(())
    }

    /// The report for the pivoting's final state: unreached rows read zero (as in ODE), and
    /// `Solved` only if the answer checks out against the problem.
    fn report_from_state(
        &self,
        problem: &BoxedLcp,
        outcome: Result<(), Status>,
        options: &DantzigOptions,
        report: &mut SolveReport,
    ) {
        let n = problem.len();
        let mut status = match outcome {
            Ok(()) => Status::Solved,
            Err(s) => s,
        };
        let SolveReport { x, w, .. } = report;
        x.clear();
        x.extend_from_slice(&self.x[..n]);
        for (k, xi) in x.iter_mut().enumerate() {
            if self.set[k] == Set::Unseen {
                *xi = 0.0;
            }
        }
        problem.slack_into(x, w);
        let residual = boxed_residual(problem, x, w);
        if x.iter().chain(w.iter()).any(|v| !v.is_finite()) {
            status = Status::NonFinite;
        } else if status == Status::Solved && residual.max() > 100.0 * options.tolerance {
            // The pivoting finished but the answer does not check out (friction bounds that
            // did not settle): say so.
            status = Status::IterationLimit;
        }
        report.status = status;
        report.iterations = self.pivots;
        report.residual = residual;
        report.fell_back = false;
    }

    /// Index sets read off a solution (used when the answer did not come from pivoting).
    fn classify_active_set(&mut self, problem: &BoxedLcp, x: &[f64]) {
        let n = problem.len();
        let scale = max_abs(x).max(f64::MIN_POSITIVE);
        let tol = 1e3 * self.tolerance * scale;
        self.active.clear();
        self.active.extend((0..n).map(|k| {
            let (lo, hi) = problem.effective_bounds(k, x);
            if (x[k] - lo).abs() <= tol && lo.is_finite() {
                IndexState::AtLower
            } else if (x[k] - hi).abs() <= tol && hi.is_finite() {
                IndexState::AtUpper
            } else {
                IndexState::Clamped
            }
        }));
    }

    fn solve_prepared(
        &mut self,
        p: &BoxedLcp,
        initial: Option<&[IndexState]>,
    ) -> Result<(), Status> {
        if p.is_empty() {
            return Ok(());
        }
        let has_friction = p.findex.iter().any(Option::is_some);
        // A missed guess is repaired like a friction pass: its sets are usually close (the
        // previous step's), and most of its indices stay where they are.
        let mut repair_guess = false;
        if let Some(guess) = initial {
            match self.try_warm_start(p, guess) {
                WarmStart::Hit => {
                    self.warm_started = true;
                    self.friction_passes = 0;
                    return Ok(());
                }
                WarmStart::Miss => repair_guess = true,
                WarmStart::Unusable => {}
            }
        }
        if !repair_guess {
            // Only pivoting uses the sparse rows (a warm start that hits never needs them;
            // one that misses has indexed them already).
            self.rows.index(&p.a);
        }
        let n = p.len();
        loop {
            self.friction_passes += 1;
            if self.friction_passes == 1 && !repair_guess {
                self.cold_pass(p)?;
            } else {
                // Bounds from the newest normal forces; the sets of the last pass are kept.
                self.repair_pass(p)?;
            }
            self.polish(p);
            if !has_friction {
                return Ok(());
            }
            self.pass_x[..n].copy_from_slice(&self.x[..n]);
            let last = self.friction_passes >= self.friction_pass_limit;
            // Even a pass consistent to the check's loose tolerance is settled: the rounds
            // bring its friction bounds to round-off. If they fail, its answer stands.
            let consistent = self.friction_consistent(p);
            if self.settle_friction(p, CoupledSolve::IfSetsHold) {
                return Ok(());
            }
            if consistent {
                self.x[..n].copy_from_slice(&self.pass_x[..n]);
                return Ok(());
            }
            if last {
                // Report the pass's own answer (a failed settle may leave a worse state);
                // the residual will show the inconsistency.
                self.x[..n].copy_from_slice(&self.pass_x[..n]);
                return Ok(());
            }
        }
    }

    /// Re-solves the clamped values from the factorisation with one step of iterative
    /// refinement, then recomputes every slack exactly.
    ///
    /// A nearly singular clamped block (redundant rows without CFM whose pivots sit just above
    /// `pivot_tolerance`) can turn the re-solve into a large move along its near-null
    /// direction; then the pivoting's own values, which respect the bounds, are kept.
    fn polish(&mut self, p: &BoxedLcp) {
        let n = p.len();
        let nc = self.c_list.len();
        if nc > 0 {
            for (c, &k) in self.c_list.iter().enumerate() {
                self.dx[c] = self.x[k];
            }
            for _ in 0..2 {
                self.clamped_residual_into_y(p);
                self.ldl.solve(&mut self.y[..nc]);
                self.add_y_to_clamped();
            }
            let tol_x = self.tolerance * max_abs(&self.x[..n]).max(f64::MIN_POSITIVE);
            let in_bounds = self.c_list.iter().all(|&k| {
                let x = self.x[k];
                x.is_finite() && x >= self.lo[k] - tol_x && x <= self.hi[k] + tol_x
            });
            if !in_bounds {
                for (c, &k) in self.c_list.iter().enumerate() {
                    self.x[k] = self.dx[c];
                }
            }
        }
        for k in 0..n {
            self.w[k] = dot(p.a.row(k), &self.x[..n]) - p.b[k];
        }
    }

    /// `y_C = b_C - A_C x`: what the clamped equations still miss.
    fn clamped_residual_into_y(&mut self, p: &BoxedLcp) {
        let n = p.len();
        for (c, &k) in self.c_list.iter().enumerate() {
            self.y[c] = p.b[k] - dot(p.a.row(k), &self.x[..n]);
        }
    }

    /// `x_C += y_C`.
    fn add_y_to_clamped(&mut self) {
        for (c, &k) in self.c_list.iter().enumerate() {
            self.x[k] += self.y[c];
        }
    }

    /// Empties every index set and the factorisation, with `x = w = 0`.
    fn clear_sets(&mut self, n: usize) {
        self.x[..n].fill(0.0);
        self.w[..n].fill(0.0);
        self.set[..n].fill(Set::Unseen);
        self.c_list.clear();
        self.slot_of.clear();
        self.free_slots.clear();
        self.slots_used = 0;
        self.n_list.clear();
        self.parked.clear();
        self.ldl.reset(n);
    }

    /// Whether every friction row satisfies its bounds computed from the final normals.
    fn friction_consistent(&self, p: &BoxedLcp) -> bool {
        let n = p.len();
        let x_scale = max_abs(&self.x[..n]).max(f64::MIN_POSITIVE);
        let tol = 1e3 * self.tolerance * x_scale;
        (0..n).all(|t| {
            let Some(j) = p.findex[t] else { return true };
            let h = (p.hi[t] * self.x[j]).abs();
            match self.set[t] {
                Set::Lower | Set::Upper | Set::Fixed => {
                    // At a bound: the bound must be the true one.
                    (self.hi[t] - h).abs() <= tol
                }
                _ => self.x[t].abs() <= h + tol,
            }
        })
    }

    fn record_active_set(&mut self, n: usize) {
        self.active.clear();
        self.active.extend((0..n).map(|k| match self.set[k] {
            Set::Clamped | Set::Parked => IndexState::Clamped,
            Set::Upper => IndexState::AtUpper,
            Set::Lower | Set::Fixed | Set::Unseen => {
                if self.set[k] == Set::Fixed && self.x[k] > 0.0 {
                    IndexState::AtUpper
                } else {
                    IndexState::AtLower
                }
            }
        }));
    }
}

/// Solves a boxed LCP exactly with a fresh [`DantzigSolver`]; `initial` optionally guesses
/// each index's set (see [`DantzigSolver::active_set`]).
pub fn solve_dantzig(
    problem: &BoxedLcp,
    options: &DantzigOptions,
    initial: Option<&[IndexState]>,
) -> Result<SolveReport, LcpError> {
    DantzigSolver::new().solve(problem, options, initial)
}
