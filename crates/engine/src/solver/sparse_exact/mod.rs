//! The exact stepper's solver for large islands: the boxed LCP `A x = b + w` with
//! `A = J M^-1 J^T + R`, `R = diag(cfm / h) > 0`, solved to complementarity without
//! forming `A` (a 7000-row island's dense `A` is 400 MB and `O(n^3)` to pivot).
//!
//! - **Active sets** ([`active_set`]): rows are clamped (`w = 0`), at their lower or at
//!   their upper bound. Starting from the rows' index sets of the last step (a row
//!   without one gets the set its warm force suggests), each
//!   iteration solves for the clamped forces with the others at their bounds, then moves
//!   every row that violates its set (primal-dual active set, with Júdice and Pires'
//!   safeguard against cycling). It stops when no row violates, after at most
//!   [`MAX_ITERATIONS`] in all.
//! - **Interior point** ([`interior`]): when block moves stop making progress (sphere
//!   piles, where friction feeds back into the normal forces and the moves cycle), a
//!   primal-dual interior-point method on the whole friction-coupled problem (one
//!   factorisation of the coupled body-space matrix per step), ending in a crossover to
//!   exact sets that the block moves certify. Friction makes the problem non-monotone,
//!   so its central path may end short of the answer; it then gives up within a few steps.
//! - **Semismooth Newton** ([`newton`]): where the interior point gives up, a semismooth
//!   Newton method on the natural map of the whole friction-coupled problem takes over:
//!   the same clamped-set solves, globalised by a line search, a proximal term and
//!   Gauss-Seidel smoothing, within a work budget that grows with the island (about a
//!   second on a 7000-row island) after which the caller falls back.
//! - **Body space** ([`system`]): the clamped rows are solved through
//!   `H = M + J_F^T R_F^-1 J_F`, one 6 x 6 block per body, factored by our block
//!   Cholesky ([`cholesky`], [`block`]) after a minimum-degree ordering of the body graph
//!   ([`ordering`]). Each solve is refined against the true sparse operator
//!   ([`crate::solver::sparse::SparseOperator`]) until the clamped rows' slack is below
//!   [`REFINE_TOLERANCE`] of the problem's scale.
//! - **Friction**: a friction row at a bound has `x = +-mu s x_n` with the current normal
//!   force, `s` the sign of that normal force when the settle began (the bound linearised
//!   there, so a correction that takes a clamped normal below zero stays linear and the
//!   next set move releases it); the refinement re-reads the bounds after every
//!   correction, so friction bounds and normal forces settle together. That fixed point
//!   is slow (or diverges) when friction feeds back strongly into the normal forces
//!   (sphere piles); once a pass leaves more than [`SLOW_REFINEMENT`] of the last
//!   residual, the remaining passes solve the coupled, non-symmetric equations directly:
//!   the body-space matrix with each
//!   normal row's force acting along its Jacobian plus its sliding friction rows' slopes
//!   times theirs, `M + J~_F^T R_F^-1 J_F`, factored by block LU on the same pattern
//!   ([`lu`]). A coupled correction that does not pay is undone, and GMRES preconditioned
//!   with the body-space solve ([`gmres`]) takes the remaining passes.
//! - **Regularisation**: the body-space form needs `r_i > 0`. Rows with less than
//!   [`REGULARIZATION_FLOOR`] times their diagonal `J_i M^-1 J_i^T` are factored with that
//!   floor; refinement still runs against the true operator and the reported residual is
//!   honest, so an island where the floor matters converges slowly or falls back.
//!
//! Success means no row violates its set and the normalised residual
//! ([`crate::solver::sparse::sparse_residual`]) is at most [`RESIDUAL_TOLERANCE`]; otherwise the
//! caller falls back to projected Gauss-Seidel as for a failed Dantzig solve.

mod active_set;
mod block;
mod cholesky;
mod gmres;
mod interior;
mod lu;
mod newton;
mod ordering;
mod system;

use crate::math::Mat3;
use crate::rows::hot::Pair;
use crate::rows::RowStorage;
use crate::solver::sparse::row_bounds as bounds;
use crate::solver::sparse::{slack_residual, sparse_residual, RowMass, SparseOperator};
use active_set::{admissible, wanted, Moves, Safeguard};
use std::ops::Range;
use stiction_lcp::pgs::RowOperator;
use stiction_lcp::{IndexState, Status};
use system::BodySystem;

/// Index-set iterations (each at most one factorisation) before giving up, over all
/// phases of one solve. Resting 125-sphere piles take 30 to 60 Newton steps and 216-sphere
/// piles 50 to 230, so a lower cap turns steps that would finish into fallbacks.
pub(crate) const MAX_ITERATIONS: usize = 300;
/// Refinement passes per iteration at most.
const MAX_REFINEMENTS: usize = 30;
/// A refinement pass that leaves more than this fraction of the previous residual is slow:
/// the next passes solve the friction coupling with GMRES.
const SLOW_REFINEMENT: f64 = 0.25;
/// GMRES: relative tolerance, vectors per cycle and cycles of one coupled solve. Each
/// refinement pass runs one solve, so two passes already gain twelve digits; a tighter
/// tolerance only costs operator applications
/// (docs/performance.md#sparse-exact-active-set-solver).
const GMRES_TOLERANCE: f64 = 1e-6;
/// See [`GMRES_TOLERANCE`].
const GMRES_RESTART: usize = 40;
/// See [`GMRES_TOLERANCE`]. The coupled solves of Newton steps (sphere piles) need more
/// than a few cycles; converged solves stop early whatever the cap.
const GMRES_CYCLES: usize = 25;
/// Refinement stops once every clamped row's slack is below this fraction of
/// `max(|b|_inf, max_i A_ii |x|_inf)`.
pub(crate) const REFINE_TOLERANCE: f64 = 1e-13;
/// Violations of a set's conditions smaller than this fraction of the force (or slack)
/// scale do not move a row (Dantzig's default tolerance).
const SET_TOLERANCE: f64 = 1e-11;
/// The largest normalised residual reported as solved.
pub(crate) const RESIDUAL_TOLERANCE: f64 = 1e-9;
/// Smallest `r_i / (J_i M^-1 J_i^T)` used in the factorisation.
pub(crate) const REGULARIZATION_FLOOR: f64 = 1e-8;

/// One island's data, borrowed from the step.
pub(crate) struct SparseIsland<'a> {
    /// All sorted rows of the step.
    pub(crate) rows: &'a RowStorage,
    /// `M^-1 J^T` and diagonals of the same rows.
    pub(crate) mass: &'a RowMass,
    /// This island's rows.
    pub(crate) range: Range<usize>,
    /// Leading unbounded rows.
    pub(crate) nub: usize,
    /// `b`, `r = cfm / h`, aligned with `range`.
    pub(crate) b: &'a [f64],
    /// See `b`.
    pub(crate) regularization: &'a [f64],
    /// The island's body slots.
    pub(crate) bodies: &'a [u32],
    /// Per slot.
    pub(crate) inverse_mass: &'a [f64],
    /// Per slot, world frame.
    pub(crate) inverse_inertia: &'a [Mat3],
}

/// How a solve went.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SparseOutcome {
    /// [`Status::Solved`] only if no row violates its set and the residual is within
    /// [`RESIDUAL_TOLERANCE`].
    pub(crate) status: Status,
    /// Index-set iterations (factorisations).
    pub(crate) iterations: usize,
    /// The normalised residual of the forces left in [`SparseExactSolver::forces`].
    pub(crate) residual: f64,
    /// Whether every row came with last step's index set.
    pub(crate) warm_started: bool,
}

/// Workspaces of the sparse exact solve, reused between steps.
#[derive(Debug, Clone, Default)]
pub(crate) struct SparseExactSolver {
    system: BodySystem,
    state: Vec<IndexState>,
    clamped: Vec<bool>,
    /// The clamped set of the current factorisation (empty: none).
    factored: Vec<bool>,
    /// Per row, `d x / d x_n` of a friction row at a bound on its clamped normal row.
    coupling: Vec<f64>,
    /// The clamped set, slopes and factorisation weights `r` (which hold a Newton step's
    /// proximal shift already) that the system's coupled factor was last computed from;
    /// empty when it is stale.
    coupled_factor: (Vec<bool>, Vec<f64>, Vec<f64>),
    /// Whether the next active-set settle starts with the friction-coupled equations: at
    /// the start of a solve, whether last step's index sets couple friction to normals
    /// (state a snapshot keeps, so a resumed world decides alike); then whether the last
    /// settle ended coupled.
    coupled_next: bool,
    gmres: gmres::Gmres,
    /// The interior-point method's workspaces (see [`interior`]).
    ip: interior::Interior,
    krylov: Vec<f64>,
    full: Vec<f64>,
    tmp: Vec<f64>,
    r: Vec<f64>,
    x: Vec<f64>,
    w: Vec<f64>,
    res: Vec<f64>,
    dx: Vec<f64>,
    /// The forces at the start of a Newton step (see [`newton`]).
    saved: Vec<f64>,
    /// The block-move iterate with the fewest violations: sets and forces.
    best_state: Vec<IndexState>,
    /// See `best_state`.
    best_x: Vec<f64>,
    /// The full Newton step's forces (see [`newton`]).
    target: Vec<f64>,
    /// Per row, the proximal shift of a regularised Newton step (see [`newton`]): the
    /// clamped equations become `(A x - b)_i + shift_i (x_i - saved_i) = 0`. Empty outside
    /// Newton steps.
    shift: Vec<f64>,
    /// Gauss-Seidel's workspace, for the sweeps that start and smooth the Newton steps
    /// (see [`newton`]).
    pgs: stiction_lcp::pgs::PgsScratch,
    /// The rows' own factorisation weights (`r` without `shift`) during Newton steps.
    base_r: Vec<f64>,
    /// Whether the last refinement reached its tolerance.
    converged: bool,
    /// Whether the operator's accumulators hold `M^-1 J^T x` of the current forces: set
    /// when a refinement converges (its last pass began at them and nothing moved since),
    /// taken by the next [`Self::violations`], which then skips a pass over every row.
    accumulated_at_x: bool,
    /// Refinement passes of one settle and GMRES cycles of one coupled correction:
    /// [`MAX_REFINEMENTS`] and [`GMRES_CYCLES`], less during Newton steps (see
    /// [`newton`]).
    effort: (usize, usize),
}

impl SparseExactSolver {
    /// The forces of the last solve (island order).
    pub(crate) fn forces(&self) -> &[f64] {
        &self.x
    }

    /// The index sets of the last solve.
    pub(crate) fn active_set(&self) -> &[IndexState] {
        &self.state
    }

    /// Solves one island, starting from the rows' warm forces and index sets; `cache` is
    /// the step's per-slot accumulator (all zero, and left so). A warm-started solve that
    /// fails is retried once with every row's set read off its warm force: last step's
    /// sets can trap the iteration in a cycle those avoid (S1's step 77 fell back after
    /// its work budget; from those sets it certifies). A pile that fails every step pays
    /// this second budget before its Gauss-Seidel fallback, which costs many times more.
    pub(crate) fn solve(&mut self, island: &SparseIsland, cache: &mut [Pair]) -> SparseOutcome {
        let outcome = self.solve_from(island, cache, true);
        if outcome.status.is_solved() || !outcome.warm_started {
            return outcome;
        }
        let mut retried = self.solve_from(island, cache, false);
        retried.iterations += outcome.iterations;
        retried
    }

    /// [`Self::solve`] once: from last step's index sets if `warm_sets`, else from sets
    /// read off the warm forces.
    fn solve_from(
        &mut self,
        island: &SparseIsland,
        cache: &mut [Pair],
        warm_sets: bool,
    ) -> SparseOutcome {
        let warm_started = self.start(island, warm_sets);
        let SparseIsland {
            rows,
            mass,
            ref range,
            b,
            regularization,
            bodies,
            ..
        } = *island;
        let range = range.clone();
        let (lo, hi) = (&rows.lo[range.clone()], &rows.hi[range.clone()]);
        let findex = &rows.findex[range.clone()];
        let mut op = SparseOperator::new(rows, mass, range.clone(), regularization, bodies, cache);
        let max_diagonal = op.max_diagonal();
        let (status, iterations) = self.iterate(island, &mut op, max_diagonal);
        // A solve ends `Solved` right after counting violations at these forces, which left
        // the slack `w` and the accumulators at `x` (S1: 4 % of a resting step to redo the
        // accumulators, 2.5 % the products).
        let residual = if status == Status::Solved {
            slack_residual(max_diagonal, b, lo, hi, findex, &self.x, &self.w).max()
        } else {
            op.begin(&self.x);
            sparse_residual(&op, b, lo, hi, findex, &self.x).max()
        };
        op.clear();
        let finite = self.x.iter().all(|v| v.is_finite());
        let status = match status {
            Status::Solved if !finite => Status::NonFinite,
            Status::Solved if residual > RESIDUAL_TOLERANCE => Status::IterationLimit,
            other => other,
        };
        SparseOutcome {
            status,
            iterations,
            residual,
            warm_started,
        }
    }

    /// Sets up a solve of `island`: the body-space pattern, the warm forces, every row's
    /// starting set (last step's if `warm_sets`, else read off its warm force), the
    /// factorisation weights and the workspaces. Returns whether every row came with
    /// last step's set.
    fn start(&mut self, island: &SparseIsland, warm_sets: bool) -> bool {
        let SparseIsland {
            rows,
            mass,
            ref range,
            nub,
            regularization,
            bodies,
            ..
        } = *island;
        let range = range.clone();
        self.system.prepare(
            rows,
            range.clone(),
            bodies,
            island.inverse_mass,
            island.inverse_inertia,
        );
        let n = range.len();
        let (lo, hi) = (&rows.lo[range.clone()], &rows.hi[range.clone()]);
        let warm = &rows.warm_state[range.clone()];
        // Without `warm_sets` every row reads its set off its warm force.
        let warm_set = |i: usize| if warm_sets { warm[i] } else { None };
        self.x.clear();
        self.x.extend_from_slice(&rows.warm_lambda[range.clone()]);
        self.state.clear();
        let findex = &rows.findex[range.clone()];
        let x = &self.x;
        self.state.extend((0..n).map(|i| {
            let guess = if i < nub {
                IndexState::Clamped
            } else {
                // Without last step's set, read one off the warm force.
                warm_set(i).unwrap_or_else(|| {
                    let (l, h) = bounds(lo, hi, findex, x, i);
                    if x[i] <= l {
                        IndexState::AtLower
                    } else if x[i] >= h {
                        IndexState::AtUpper
                    } else {
                        IndexState::Clamped
                    }
                })
            };
            admissible(guess, lo[i], hi[i])
        }));
        self.shift.clear();
        self.accumulated_at_x = false;
        // The coupled factor belongs to this solve's Jacobians.
        self.coupled_factor.0.clear();
        self.r.clear();
        self.r.extend((0..n).map(|i| {
            let diagonal = mass.diagonal[range.start + i].max(f64::MIN_POSITIVE);
            regularization[i].max(REGULARIZATION_FLOOR * diagonal)
        }));
        for v in [
            &mut self.w,
            &mut self.res,
            &mut self.dx,
            &mut self.coupling,
            &mut self.full,
            &mut self.tmp,
        ] {
            v.clear();
            v.resize(n, 0.0);
        }
        let warm_started = warm_sets && warm.iter().all(Option::is_some);
        self.coupled_next = warm_started && self.sets_couple_friction(findex);
        self.effort = (MAX_REFINEMENTS, GMRES_CYCLES);
        warm_started
    }

    /// The active-set iterations; returns `Solved` once no row violates its set. First
    /// block moves (the fast path: one or two iterations on a resting stack); if they
    /// stall, semismooth Newton steps.
    fn iterate(
        &mut self,
        island: &SparseIsland,
        op: &mut SparseOperator,
        max_diagonal: f64,
    ) -> (Status, usize) {
        self.factored.clear();
        let mut used = 0;
        match self.active_sets(island, op, max_diagonal, &mut used) {
            Sweep::Solved => return (Status::Solved, used),
            Sweep::Failed(status) => return (status, used),
            Sweep::Stalled => {}
        }
        // With bounds that move with the normal forces the block moves may cycle (the LCP
        // is not a fixed-bound P-matrix problem: sphere piles stall at 10-20 violating
        // rows). The interior-point method solves most such islands ([`interior`]); its
        // factorisations are counted apart, so the Newton steps keep their own budget, and
        // Newton starts from the best iterate of the block moves (crossover's included).
        let mut interior = 0;
        match self.interior(island, op, max_diagonal, &mut interior) {
            Sweep::Solved => return (Status::Solved, used + interior),
            Sweep::Failed(status) => return (status, used + interior),
            Sweep::Stalled => {
                self.state.clone_from(&self.best_state);
                self.x.clone_from(&self.best_x);
            }
        }
        // Where its central path ends, a globalised semismooth Newton method finishes
        // ([`newton`]).
        let status = match self.newton(island, op, max_diagonal, &mut used) {
            Sweep::Solved => Status::Solved,
            Sweep::Failed(status) => status,
            Sweep::Stalled => Status::IterationLimit,
        };
        (status, used + interior)
    }

    /// Row `i`'s bounds: friction rows scale with the current normal forces (`Moving`),
    /// or (`Linear`) with their linearisation at the forces `saved` at the start of a
    /// Newton step: `+-mu s x_n` with `s` the sign of the saved normal force.
    #[inline]
    fn limits(&self, island: &SparseIsland, friction: Friction, i: usize) -> (f64, f64) {
        let range = island.range.clone();
        let (lo, hi) = (
            &island.rows.lo[range.clone()],
            &island.rows.hi[range.clone()],
        );
        let findex = &island.rows.findex[range];
        match (friction, findex[i]) {
            (Friction::Linear, Some(j)) => {
                let limit = hi[i].abs() * sign(self.saved[j]) * self.x[j];
                (-limit, limit)
            }
            _ => bounds(lo, hi, findex, &self.x, i),
        }
    }

    /// Computes every row's slack at the current forces and counts the rows that violate
    /// their sets (friction bounds moving with the normal forces: the true conditions).
    fn violations(
        &mut self,
        island: &SparseIsland,
        op: &mut SparseOperator,
        max_diagonal: f64,
    ) -> usize {
        if !std::mem::take(&mut self.accumulated_at_x) {
            op.begin(&self.x);
        }
        for (i, w) in self.w.iter_mut().enumerate() {
            *w = op.row_times_vector(i, &self.x) - island.b[i];
        }
        let (x_scale, w_scale) = scales(&self.x, island.b, max_diagonal);
        let (eps_x, eps_w) = (SET_TOLERANCE * x_scale, SET_TOLERANCE * w_scale);
        (island.nub..self.x.len())
            .filter(|&i| {
                let limits = self.limits(island, Friction::Moving, i);
                wanted(self.state[i], self.x[i], self.w[i], limits, eps_x, eps_w).is_some()
            })
            .count()
    }

    /// Block active-set moves from the current sets, counting factorisations in `used`
    /// (at most [`MAX_ITERATIONS`] in all). Reports `Stalled` where Júdice and Pires'
    /// safeguard would start single moves: with friction bounds that move with the normal
    /// forces those are not known to finish, and [`interior`] (then [`newton`]) takes over.
    fn active_sets(
        &mut self,
        island: &SparseIsland,
        op: &mut SparseOperator,
        max_diagonal: f64,
        used: &mut usize,
    ) -> Sweep {
        let friction = Friction::Moving;
        let mut safeguard = Safeguard::new();
        let mut fewest = usize::MAX;
        while *used < MAX_ITERATIONS {
            *used += 1;
            // Sets that couple friction to normals (a resting pyramid, step after step)
            // start with the coupled factor, and factor `H` only if that does not pay.
            let coupled = self.coupled_next;
            if coupled {
                self.read_clamped_set();
            } else if !self.factor_clamped_set(island) {
                return Sweep::Failed(Status::PivotFailure);
            }
            // Bounds linearised at these forces (see [`Friction::Linear`]): with moving
            // bounds a clamped normal force the correction takes below zero flips its
            // friction limits, the residual stops falling and the exact coupled
            // correction was undone for GMRES, which solved the same equations again
            // (S2's first 60 steps: 3.5 -> 1.1 s).
            self.saved.clone_from(&self.x);
            match self.settle(island, op, max_diagonal, coupled) {
                Settled::Yes => {}
                Settled::NotPositiveDefinite => return Sweep::Failed(Status::PivotFailure),
                Settled::NonFinite => return Sweep::Failed(Status::NonFinite),
            }
            let violations = self.violations(island, op, max_diagonal);
            if violations == 0 {
                return Sweep::Solved;
            }
            if violations < fewest {
                fewest = violations;
                self.best_state.clone_from(&self.state);
                self.best_x.clone_from(&self.x);
            }
            if safeguard.moves(violations) == Moves::First {
                // Newton starts from the iterate with the fewest violations (block moves
                // can also make things worse from the start, as on resting piles).
                self.state.clone_from(&self.best_state);
                self.x.clone_from(&self.best_x);
                return Sweep::Stalled;
            }
            let (x_scale, w_scale) = scales(&self.x, island.b, max_diagonal);
            let (eps_x, eps_w) = (SET_TOLERANCE * x_scale, SET_TOLERANCE * w_scale);
            for i in island.nub..self.x.len() {
                let limits = self.limits(island, friction, i);
                if let Some(next) =
                    wanted(self.state[i], self.x[i], self.w[i], limits, eps_x, eps_w)
                {
                    self.state[i] = next;
                }
            }
        }
        Sweep::Stalled
    }

    /// Reads the clamped set off the index sets and factors it unless the current
    /// factorisation is of that set already; `false` if the factorisation failed.
    fn factor_clamped_set(&mut self, island: &SparseIsland) -> bool {
        self.read_clamped_set();
        self.ensure_factored(island)
    }

    /// `clamped` from the index sets, without factoring.
    fn read_clamped_set(&mut self) {
        self.clamped.clear();
        self.clamped
            .extend(self.state.iter().map(|s| *s == IndexState::Clamped));
    }

    /// Factors `H` of the clamped set unless the last factorisation was of it; `false` if
    /// it is not numerically positive definite.
    fn ensure_factored(&mut self, island: &SparseIsland) -> bool {
        if self.factored != self.clamped {
            if !self
                .system
                .factor(island.rows, island.range.clone(), &self.clamped, &self.r)
            {
                return false;
            }
            self.factored.clone_from(&self.clamped);
        }
        true
    }

    /// Puts bound rows on their bounds and refines the clamped rows' forces until their
    /// slack vanishes (re-reading friction bounds, linearised at the forces in `saved`,
    /// after each correction). `false` if a force became non-finite.
    fn settle(
        &mut self,
        island: &SparseIsland,
        op: &mut SparseOperator,
        max_diagonal: f64,
        coupled_from_start: bool,
    ) -> Settled {
        let range = island.range.clone();
        let mut previous = f64::INFINITY;
        let (mut coupled, mut stalled) = (coupled_from_start, 0);
        // Coupled passes first solve by the coupled factor, then by GMRES if that stalls.
        // Newton steps too: their coupled factor once counted the proximal shift twice,
        // which made the factor's passes no faster than GMRES there; fixed, S2's first 100
        // steps went from 32 to 12 s (2026-11-28).
        let (mut direct, mut undone) = (true, false);
        self.converged = false;
        self.accumulated_at_x = false;
        let (refinements, _) = self.effort;
        for _ in 0..refinements {
            for i in 0..self.x.len() {
                // Only bound rows read their limits (most rows of a resting pile are
                // clamped, and a friction limit reads its normal force).
                match self.state[i] {
                    IndexState::AtLower => self.x[i] = self.limits(island, Friction::Linear, i).0,
                    IndexState::AtUpper => self.x[i] = self.limits(island, Friction::Linear, i).1,
                    IndexState::Clamped => {}
                }
            }
            op.begin(&self.x);
            let mut largest = 0.0f64;
            for i in 0..self.x.len() {
                self.res[i] = if self.clamped[i] {
                    island.b[i] - op.row_times_vector(i, &self.x)
                } else {
                    0.0
                };
                if !self.shift.is_empty() && self.clamped[i] {
                    self.res[i] -= self.shift[i] * (self.x[i] - self.saved[i]);
                }
                largest = largest.max(self.res[i].abs());
            }
            if !largest.is_finite() {
                return Settled::NonFinite;
            }
            let (_, w_scale) = scales(&self.x, island.b, max_diagonal);
            if largest <= REFINE_TOLERANCE * w_scale {
                self.converged = true;
                self.accumulated_at_x = true;
                break;
            }
            // The plain correction ignores that friction at a bound moves with its normal
            // force: a fixed point, slow (or divergent) when the coupling is strong. Once
            // it is slow, solve the coupled equations ([`gmres`]) instead; once that stalls
            // too, the round-off floor is reached and the caller's checks decide.
            // Right after an undo this residual is the restored forces' (the one before
            // the undone correction): nothing to judge.
            if largest > SLOW_REFINEMENT * previous && !std::mem::take(&mut undone) {
                if coupled && direct {
                    // The coupled factor's correction did not pay (a badly conditioned
                    // factor, or friction slopes that changed sign): undo it (`dx` still
                    // holds it) and take GMRES on the true operator from the forces
                    // before it, whose residual the next pass measures.
                    direct = false;
                    for (x, dx) in self.x.iter_mut().zip(&self.dx) {
                        *x -= dx;
                    }
                    undone = true;
                    continue;
                } else if coupled {
                    stalled += 1;
                    if stalled >= 2 {
                        break;
                    }
                } else {
                    coupled = true;
                }
            }
            previous = largest;
            if coupled {
                if direct {
                    direct = self.coupled_direct(island);
                }
                if !direct {
                    if !self.ensure_factored(island) {
                        return Settled::NotPositiveDefinite;
                    }
                    self.coupled_correction(island, op);
                }
            } else {
                if !self.ensure_factored(island) {
                    return Settled::NotPositiveDefinite;
                }
                self.system.correct(
                    island.rows,
                    range.clone(),
                    &self.clamped,
                    &self.r,
                    &self.res,
                    &mut self.dx,
                );
            }
            for (x, dx) in self.x.iter_mut().zip(&self.dx) {
                *x += dx;
            }
        }
        self.coupled_next = coupled;
        if self.x.iter().all(|v| v.is_finite()) {
            Settled::Yes
        } else {
            Settled::NonFinite
        }
    }

    /// Whether some friction row is at a bound while its normal row is clamped (in
    /// `state`): the refinement then needs the friction-coupled equations.
    fn sets_couple_friction(&self, findex: &[Option<usize>]) -> bool {
        self.state.iter().zip(findex).any(|(state, normal)| {
            *state != IndexState::Clamped
                && normal.is_some_and(|n| self.state[n] == IndexState::Clamped)
        })
    }

    /// `d x_t / d x_n` into `coupling` for each friction row `t` at a bound whose normal
    /// row `n` is clamped (zero for every other row), for the bounds linearised at the
    /// forces in `saved` ([`Friction::Linear`]).
    fn fill_coupling(&mut self, island: &SparseIsland) {
        let range = island.range.clone();
        let (hi, findex) = (&island.rows.hi[range.clone()], &island.rows.findex[range]);
        let n = self.x.len();
        for i in 0..n {
            self.coupling[i] = match (self.state[i], findex[i]) {
                (IndexState::AtLower | IndexState::AtUpper, Some(j)) if self.clamped[j] => {
                    let slope = hi[i].abs() * sign(self.saved[j]);
                    if self.state[i] == IndexState::AtUpper {
                        slope
                    } else {
                        -slope
                    }
                }
                _ => 0.0,
            };
        }
    }

    /// The correction `dx` for the residual `res` of the clamped rows with the friction
    /// rows at a bound following their clamped normal rows, by the coupled body-space
    /// factor (refactored only when the clamped set, slopes or shift changed). `false` if
    /// that factor is singular: the caller then takes [`Self::coupled_correction`].
    fn coupled_direct(&mut self, island: &SparseIsland) -> bool {
        self.fill_coupling(island);
        let (clamped, coupling, weights) = &mut self.coupled_factor;
        let current = *clamped == self.clamped && *coupling == self.coupling && *weights == self.r;
        if !current {
            let range = island.range.clone();
            let ok = self.system.factor_coupled(
                island.rows,
                range,
                &self.clamped,
                &self.r,
                &self.coupling,
            );
            let (clamped, coupling, weights) = &mut self.coupled_factor;
            if !ok {
                clamped.clear();
                coupling.clear();
                weights.clear();
                return false;
            }
            clamped.clone_from(&self.clamped);
            coupling.clone_from(&self.coupling);
            weights.clone_from(&self.r);
        }
        self.system.correct_coupled(
            island.rows,
            island.range.clone(),
            &self.clamped,
            &self.r,
            &self.res,
            &mut self.dx,
        );
        true
    }

    /// The correction `dx` for the residual `res` of the clamped rows with the friction
    /// rows at a bound following their clamped normal rows: GMRES on
    /// `K = A_FF + A_FB S`, preconditioned by the body-space solve of `A_FF`.
    fn coupled_correction(&mut self, island: &SparseIsland, op: &mut SparseOperator) {
        let range = island.range.clone();
        let findex = &island.rows.findex[range.clone()];
        let n = self.x.len();
        self.fill_coupling(island);
        let (system, rows, clamped, r) = (&mut self.system, island.rows, &self.clamped, &self.r);
        let (coupling, full, tmp) = (&self.coupling, &mut self.full, &mut self.tmp);
        let shift = &self.shift;
        let apply = |v: &[f64], out: &mut [f64]| {
            // out = K A_FF^-1 v.
            system.correct(rows, range.clone(), clamped, r, v, tmp);
            for i in 0..n {
                full[i] = match findex[i] {
                    _ if clamped[i] => tmp[i],
                    Some(j) if coupling[i] != 0.0 => coupling[i] * tmp[j],
                    _ => 0.0,
                };
            }
            op.begin(full);
            for i in 0..n {
                out[i] = if clamped[i] {
                    op.row_times_vector(i, full)
                } else {
                    0.0
                };
                if !shift.is_empty() && clamped[i] {
                    out[i] += shift[i] * full[i];
                }
            }
        };
        self.krylov.clear();
        self.krylov.resize(n, 0.0);
        // Unconverged, the partial solution still reduces the residual; the refinement
        // loop measures the true one.
        self.gmres.solve(
            apply,
            &self.res,
            &mut self.krylov,
            GMRES_TOLERANCE,
            GMRES_RESTART,
            self.effort.1,
        );
        self.system.correct(
            island.rows,
            range,
            &self.clamped,
            &self.r,
            &self.krylov,
            &mut self.dx,
        );
    }
}

/// Where friction bounds come from: the true conditions (set moves, violations, the
/// natural map) or their linearisation (settles).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Friction {
    /// `+-mu x_n` with the current normal forces.
    Moving,
    /// `+-mu s x_n` with the current normal forces and `s` the sign of each normal force
    /// in `saved`, the forces a settle (of a block move or a Newton step, see [`newton`])
    /// starts from: the linearisation of the bounds it solves. Moving bounds `+-mu |x_n|`
    /// would make the equations non-linear where a clamped normal force changes sign, and
    /// the coupled correction's slope wrong.
    Linear,
}

/// How [`SparseExactSolver::settle`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Settled {
    /// The forces are finite (converged or not: `converged` tells).
    Yes,
    /// `H` of the clamped set, needed for a correction, is not positive definite.
    NotPositiveDefinite,
    /// A force or residual became non-finite.
    NonFinite,
}

/// How an active-set sweep ended.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Sweep {
    /// No row violates its set.
    Solved,
    /// Out of iterations, or (moving bounds) the safeguard would start single moves.
    Stalled,
    /// A factorisation failed or a force became non-finite.
    Failed(Status),
}

/// `-1` for a negative `v`, else `1` (also for `-0.0`, unlike `f64::signum`).
#[inline]
fn sign(v: f64) -> f64 {
    if v < 0.0 {
        -1.0
    } else {
        1.0
    }
}

/// The force and slack scales of [`stiction_lcp::boxed_residual`]: `|x|_inf` and
/// `max(|b|_inf, max A_ii |x|_inf)` (never zero).
fn scales(x: &[f64], b: &[f64], max_diagonal: f64) -> (f64, f64) {
    let x_inf = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let b_inf = b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    (
        x_inf.max(f64::MIN_POSITIVE),
        b_inf.max(max_diagonal * x_inf).max(f64::MIN_POSITIVE),
    )
}

#[cfg(test)]
mod tests {
    use super::system::tests::{rows_on, Fixture};
    use super::*;
    use crate::math::Vec3;

    /// Two contacts (a normal row and a friction row each) and a joint-like row between
    /// four bodies, with Jacobians that differ from row to row.
    fn contact_rows() -> RowStorage {
        let mut rows = rows_on(&[[0, 1], [0, 1], [1, 2], [2, 3], [2, 3]]);
        for normal in [0, 3] {
            (rows.lo[normal], rows.hi[normal]) = (0.0, f64::INFINITY);
            rows.findex[normal + 1] = Some(normal);
            (rows.lo[normal + 1], rows.hi[normal + 1]) = (-0.6, 0.6);
        }
        rows
    }

    /// A Newton step's coupled correction by the block LU must solve the equations GMRES
    /// solves on the true operator, proximal shift included: the LU once added the shift
    /// to weights that already held it, and its steps went astray on sphere piles.
    #[test]
    fn the_coupled_factor_and_gmres_agree_on_a_proximal_newton_step() {
        let fixture = Fixture::new(contact_rows(), vec![0.0; 5]);
        let (rows, regularization) = (&fixture.rows, &fixture.regularization);
        let n = rows.len();
        let island = fixture.island(0);
        let mut cache = vec![[Vec3::ZERO; 2]; 4];
        let mut op = fixture.operator(&mut cache);

        let mut solver = SparseExactSolver::default();
        solver.system.prepare(
            rows,
            0..n,
            island.bodies,
            island.inverse_mass,
            island.inverse_inertia,
        );
        // Normals clamped and pushing; friction at its upper and lower bounds.
        solver.x = vec![1.0, 0.6, -0.3, 2.0, -1.2];
        solver.state = vec![
            IndexState::Clamped,
            IndexState::AtUpper,
            IndexState::Clamped,
            IndexState::Clamped,
            IndexState::AtLower,
        ];
        solver.saved.clone_from(&solver.x);
        solver.r.clone_from(regularization);
        solver.base_r.clone_from(regularization);
        for v in [
            &mut solver.dx,
            &mut solver.coupling,
            &mut solver.full,
            &mut solver.tmp,
        ] {
            *v = vec![0.0; n];
        }
        solver.res = vec![1.0, 0.0, -0.5, 0.25, 0.0];
        solver.effort = (MAX_REFINEMENTS, GMRES_CYCLES);
        solver.set_proximal(&op, 0.3);
        assert!(solver.factor_clamped_set(&island));

        assert!(solver.coupled_direct(&island));
        let direct = solver.dx.clone();
        solver.coupled_correction(&island, &mut op);
        let gmres = solver.dx.clone();
        assert!(direct.iter().any(|v| v.abs() > 0.1), "{direct:?}");
        for i in 0..n {
            assert!(
                (direct[i] - gmres[i]).abs() < 1e-9,
                "row {i}: LU {} against GMRES {}",
                direct[i],
                gmres[i]
            );
        }
    }
}
