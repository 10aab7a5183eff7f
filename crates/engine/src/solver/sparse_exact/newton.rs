//! A globalised semismooth Newton method on the whole friction-coupled problem, for the
//! islands where the primal-dual active-set iteration stalls (resting sphere piles).
//!
//! The natural map, scaled row by row with `A_ii` so that every entry is a force,
//!
//! ```text
//! Phi_i(x) = x_i - mid(lo_i(x), x_i - w_i / A_ii, hi_i(x)),     w = A x - b,
//! ```
//!
//! vanishes exactly at the boxed LCP's solutions; a friction row's bounds `+-mu |x_n|`
//! follow its normal force. At `x`, the rows whose `z_i = x_i - w_i / A_ii` lies inside
//! the box are clamped, the others sit at the bound `z_i` crossed. A generalized Jacobian
//! of `Phi` for that partition gives the Newton equations `(A x')_i = b_i` for clamped
//! rows and `x'_i = bound_i(x')` (the bound linearised at `x`) for the others: the coupled
//! equations `settle` solves on a set (body-space Cholesky; for the friction coupling the
//! coupled block LU, GMRES where that does not pay). The full step is the primal-dual active-set step; what that iteration lacks
//! is a globalisation, and three pieces provide it here:
//!
//! - **Line search**: the step `x + t (x' - x)` is cut back until the merit `|Phi|^2`
//!   decreases enough (Armijo), as in Macklin et al., "Non-smooth Newton methods for
//!   deformable multi-body dynamics" (2019).
//! - **Proximal regularisation**: on a resting pile `J M^-1 J^T` is singular (more
//!   contact rows than body coordinates) and only `R = cfm / h` (about 1e-3 of the
//!   diagonal) fixes the forces along its null space; the exact Newton step there is
//!   routinely ten times the forces and crosses many kinks of `Phi`, so the line search
//!   returns slivers. The clamped equations get a proximal term,
//!   `(A x' - b)_i + rho A_ii (x'_i - x_i) = 0`, which only changes `r` in the body-space
//!   factorisation; `rho` shrinks after full steps and grows after short ones, and a
//!   proximal step that lands on a set without violations is followed by the exact step
//!   on that set, which ends the solve when the set is right.
//! - **Gauss-Seidel smoothing**: the merit has local minima that are not solutions
//!   (seen on 27- to 125-sphere piles: a contact or two on the wrong side of the
//!   friction cone, with forces a few units away from dense Dantzig's answer, a merit
//!   of 1e-5 that no Newton direction reduces). Projected Gauss-Seidel sweeps leave such
//!   points (they contract towards the solution whatever the partition, only slowly), so
//!   the iteration starts with [`START_SWEEPS`] sweeps from the block moves' best
//!   iterate and runs [`SMOOTHING_SWEEPS`] more whenever the line search had to cut the
//!   step below [`SHORT_STEP`]. Newton finishes what Gauss-Seidel cannot (the last
//!   digits).

use super::{Friction, Settled, SparseExactSolver, SparseIsland, Sweep, MAX_ITERATIONS};
use crate::solver::sparse::{RowByRow, SparseOperator};
use stiction_lcp::pgs::{pgs_sweeps, PgsOptions, RowOperator};
use stiction_lcp::{IndexState, Status};

/// Armijo's constant: a step of length `t` must reduce the merit by at least this
/// fraction of `2 t` times its value (the decrease its directional derivative promises).
const ARMIJO: f64 = 1e-4;
/// Each rejected trial step is shortened by this factor.
const BACKTRACK: f64 = 0.5;
/// The shortest trial step; at this length the step is taken whatever the merit (a kink
/// of `Phi` may leave no descent along the Newton direction; the next partition differs).
const SHORTEST_STEP: f64 = 1.0 / 1024.0;
/// The proximal weight `rho` of the first step (see the module notes).
const FIRST_PROXIMAL: f64 = 1e-2;
/// `rho` is multiplied by this after a full step.
const PROXIMAL_DECREASE: f64 = 0.25;
/// `rho` is multiplied by this after a step shorter than [`SHORT_STEP`].
const PROXIMAL_INCREASE: f64 = 4.0;
/// Below this `rho` is dropped (exact steps); above [`LARGEST_PROXIMAL`] it stops growing.
const SMALLEST_PROXIMAL: f64 = 1e-6;
/// See [`SMALLEST_PROXIMAL`].
const LARGEST_PROXIMAL: f64 = 1e3;
/// Steps the line search cut below this length count as short: `rho` grows and
/// Gauss-Seidel smooths.
const SHORT_STEP: f64 = 0.25;
/// Refinement passes of one Newton step's settle: a step far from the answer need not be
/// exact (the line search measures it), and near the answer two or three passes
/// converge. Without a cap a nearly singular coupled system (a large resting pile) refines
/// almost without end.
const NEWTON_REFINEMENTS: usize = 3;
/// GMRES cycles of one Newton step's coupled correction (see [`NEWTON_REFINEMENTS`]).
const NEWTON_GMRES_CYCLES: usize = 1;
/// Newton steps without a new lowest merit before giving up: converging piles make one
/// every few steps, while on a large resting pile the merit circles around 1e-3 for good;
/// this bounds what a counted fallback costs there
/// (docs/performance.md#sparse-exact-active-set-solver).
const WITHOUT_PROGRESS: usize = 40;
/// Newton steps at most (within [`MAX_ITERATIONS`]).
const NEWTON_STEPS: usize = 280;
/// The most work the Newton phase may spend on one island, in row updates (a Gauss-Seidel
/// sweep costs one per row, a Newton step about [`STEP_WORK`] sweeps' worth) before it
/// gives up and the caller falls back to Gauss-Seidel: a bound on a step's time rather
/// than on its iterations, since an iteration's cost grows with the island. Small islands
/// never reach it (a 300-row pile may spend 160,000 sweeps' worth, far beyond
/// [`NEWTON_STEPS`]). On a large pyramid a rare step's merit creeps down a few per cent a
/// Newton step, with [`SMOOTHING_SWEEPS`] after every third: the budget cuts such a step
/// off while the slowest converging steps still finish
/// (docs/performance.md#sparse-exact-active-set-solver).
const NEWTON_WORK: usize = 50_000_000;
/// What one Newton step costs in sweeps' worth of row updates (its factorisation, the
/// settle's refinements and GMRES cycle, the line search's natural maps), as timed against
/// a row-by-row sweep on a large pyramid (docs/performance.md#sparse-exact-active-set-solver).
const STEP_WORK: usize = 20;
/// Gauss-Seidel sweeps before the first Newton step, which starts from the block moves'
/// best iterate: without them, or from the warm forces, pyramids and piles fell back more
/// often (docs/performance.md#sparse-exact-active-set-solver).
const START_SWEEPS: usize = 100;
/// Gauss-Seidel sweeps after a short step.
const SMOOTHING_SWEEPS: usize = 300;

impl SparseExactSolver {
    /// Semismooth Newton iterations from the current forces, counting factorisations in
    /// `used` (at most [`MAX_ITERATIONS`] in all). `Solved` once an exact step's equations
    /// converge with no row violating its set; `Stalled` when out of iterations.
    pub(super) fn newton(
        &mut self,
        island: &SparseIsland,
        op: &mut SparseOperator,
        max_diagonal: f64,
        used: &mut usize,
    ) -> Sweep {
        // From the block moves' best iterate (on a box pyramid a step or two from the
        // answer), smoothed.
        if !self.smooth(island, op, START_SWEEPS) {
            return Sweep::Failed(Status::NonFinite);
        }
        let rows = self.x.len().max(1);
        let mut work = START_SWEEPS * rows;

        let mut merit = self.natural_map(island, op);
        self.base_r.clone_from(&self.r);
        let mut rho = FIRST_PROXIMAL;
        self.effort = (NEWTON_REFINEMENTS, NEWTON_GMRES_CYCLES);
        let (mut best, mut since_best) = (merit, 0);
        let limit = (*used + NEWTON_STEPS).min(MAX_ITERATIONS);
        let mut factored_rho = f64::NAN;
        let outcome = loop {
            if *used >= limit || since_best >= WITHOUT_PROGRESS || work > NEWTON_WORK {
                break Sweep::Stalled;
            }
            work += STEP_WORK * rows;
            if rho != factored_rho {
                self.set_proximal(op, rho);
                factored_rho = rho;
            }
            *used += 1;
            // The coupled factor solves the step; `H` is factored only if that fails.
            self.read_clamped_set();
            self.saved.clone_from(&self.x);
            match self.settle(island, op, max_diagonal, true) {
                Settled::Yes => {}
                Settled::NotPositiveDefinite => break Sweep::Failed(Status::PivotFailure),
                Settled::NonFinite => break Sweep::Failed(Status::NonFinite),
            }
            if self.converged && self.violations(island, op, max_diagonal) == 0 {
                if rho == 0.0 {
                    break Sweep::Solved;
                }
                // A proximal step reached a set without violations: the exact step on
                // the natural map's set there decides.
                rho = 0.0;
                merit = self.natural_map(island, op);
                continue;
            }
            self.target.clone_from(&self.x);
            let mut step = 1.0;
            loop {
                let trial = self.natural_map(island, op);
                if trial <= (1.0 - 2.0 * ARMIJO * step) * merit || step <= SHORTEST_STEP {
                    merit = trial;
                    break;
                }
                step *= BACKTRACK;
                for ((x, start), target) in self.x.iter_mut().zip(&self.saved).zip(&self.target) {
                    *x = start + step * (target - start);
                }
            }
            if step >= 1.0 {
                rho *= PROXIMAL_DECREASE;
                if rho < SMALLEST_PROXIMAL {
                    rho = 0.0;
                }
            } else if step < SHORT_STEP {
                // After a failed exact step (`rho = 0`) this restarts from the smallest
                // weight: returning to the last proximal weight, or holding it for a few
                // full steps, left 6 to 8 of 40 steps of a 125-sphere pile unsolved.
                rho = (rho * PROXIMAL_INCREASE).clamp(SMALLEST_PROXIMAL, LARGEST_PROXIMAL);
                if !self.smooth(island, op, SMOOTHING_SWEEPS) {
                    break Sweep::Failed(Status::NonFinite);
                }
                work += SMOOTHING_SWEEPS * rows;

                merit = self.natural_map(island, op);
            }
            if !merit.is_finite() {
                break Sweep::Failed(Status::NonFinite);
            }
            if merit < best {
                (best, since_best) = (merit, 0);
            } else {
                since_best += 1;
            }
        };
        // The other phases factor with the rows' own weights.
        self.shift.clear();
        self.r.clone_from(&self.base_r);
        self.factored.clear();
        self.effort = (super::MAX_REFINEMENTS, super::GMRES_CYCLES);
        outcome
    }

    /// Sets the proximal shift `rho A_ii` of every row and the factorisation weights
    /// `r + shift` (`rho = 0`: none); the next factorisation is forced.
    pub(super) fn set_proximal(&mut self, op: &SparseOperator, rho: f64) {
        self.factored.clear();
        self.shift.clear();
        if rho > 0.0 {
            self.shift
                .extend((0..self.x.len()).map(|i| rho * op.diagonal(i)));
            for ((r, base), shift) in self.r.iter_mut().zip(&self.base_r).zip(&self.shift) {
                *r = base + shift;
            }
        } else {
            self.r.clone_from(&self.base_r);
        }
    }

    /// `sweeps` projected Gauss-Seidel sweeps on the forces; `false` if they failed
    /// (non-finite data).
    fn smooth(&mut self, island: &SparseIsland, op: &mut SparseOperator, sweeps: usize) -> bool {
        let range = island.range.clone();
        let options = PgsOptions {
            max_iterations: sweeps,
            // All the sweeps: a small change per sweep is not convergence here.
            tolerance: 0.0,
            ..PgsOptions::default()
        };
        match pgs_sweeps(
            &mut RowByRow(op),
            island.b,
            &island.rows.lo[range.clone()],
            &island.rows.hi[range.clone()],
            &island.rows.findex[range],
            &mut self.x,
            &options,
            &mut self.pgs,
        ) {
            Ok(outcome) => !outcome.non_finite,
            Err(_) => false,
        }
    }

    /// `|Phi(x)|^2` at the current forces (see the module notes); sets every row's index
    /// set to the partition of the natural map at `x`.
    fn natural_map(&mut self, island: &SparseIsland, op: &mut SparseOperator) -> f64 {
        op.begin(&self.x);
        let mut merit = 0.0;
        for i in 0..self.x.len() {
            let w = op.row_times_vector(i, &self.x) - island.b[i];
            let z = self.x[i] - w / op.diagonal(i);
            let (l, h) = if i < island.nub {
                (f64::NEG_INFINITY, f64::INFINITY)
            } else {
                self.limits(island, Friction::Moving, i)
            };
            let (state, projected) = if z <= l {
                (IndexState::AtLower, l)
            } else if z >= h {
                (IndexState::AtUpper, h)
            } else {
                (IndexState::Clamped, z)
            };
            self.state[i] = state;
            let phi = self.x[i] - projected;
            merit += phi * phi;
        }
        merit
    }
}
