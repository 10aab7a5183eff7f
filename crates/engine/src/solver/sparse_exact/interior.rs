//! A primal-dual interior-point method on the whole friction-coupled problem, for the
//! islands where block moves stall (resting piles), followed by a crossover to exact
//! index sets.
//!
//! Every bound of row `i` gets a gap and a multiplier: `g_l = x_i - lo_i(x) >= 0` with
//! `v_l >= 0`, `g_u = hi_i(x) - x_i >= 0` with `v_u >= 0`, where a friction row's bounds
//! are `-+mu x_n` of its normal force (linear in `x` while `x_n > 0`, which the interior
//! keeps). The boxed LCP is then
//!
//! ```text
//! A x - b = v_l - v_u,     g_l v_l = 0,     g_u v_u = 0,
//! ```
//!
//! and the method follows the central path `g v = mu -> 0` from a point with every gap
//! and multiplier positive (Mehrotra's predictor and corrector, one factorisation per
//! step). Eliminating the multipliers leaves `(A + C) dx = rhs`, with `C` diagonal
//! (`v_l / g_l + v_u / g_u`) but for one entry per friction row on its normal's column
//! (`mu (v_l / g_l - v_u / g_u)`). With `E = R + C`, lower triangular within a contact,
//! the body-space form is `(M + J^T E^-1 J) du = J^T E^-1 rhs`, and `J^T E^-1 J` is the
//! coupled matrix the active-set solve already factors by block LU ([`super::system`]):
//! weights `e_i`, and each friction row following its normal with slope `-C_tn / e_t`.
//!
//! Why: on a resting pile the LCP is degenerate (more contact rows than body coordinates;
//! only `R`, about 1e-4 of the diagonal, makes the forces unique), and set moves cycle
//! while the interior-point method's step count hardly depends on how many rows change
//! sets (10 to 30 factorisations). It does not end on exact sets: once the gap `mu` is
//! small, each row's set is read off which of gap and multiplier is larger, and the block
//! moves of the active-set method take it from there (usually one factorisation, which
//! certifies the answer to the residual tolerance).
//!
//! Where it fails: the friction coupling makes the problem non-monotone (friction can
//! press a body harder into a contact, as in a sphere wedged into a corner), and there the
//! central path may end short of the answer: the gap stops falling, every step cut short
//! by a friction bound. After [`STALL_STEPS`] steps without halving the gap the method
//! gives up and the caller's semismooth Newton steps take over
//! (docs/performance.md#sparse-exact-active-set-solver has the figures).

use super::{scales, SparseExactSolver, SparseIsland, Sweep, MAX_ITERATIONS};
use crate::solver::sparse::SparseOperator;
use stiction_lcp::pgs::RowOperator;
use stiction_lcp::IndexState;

/// Interior-point steps at most.
const MAX_STEPS: usize = 80;
/// Crossover is first tried once the mean gap `mu` is below this fraction of the force
/// scale times the slack scale, and again after every tenfold fall from there.
const CROSSOVER_GAP: f64 = 1e-9;
/// Steps without halving the relative gap before the method gives up (on a non-monotone
/// problem the central path may end).
const STALL_STEPS: usize = 5;
/// Block moves of one crossover at most.
const CROSSOVER_MOVES: usize = 20;
/// Crossover attempts at most; each costs block moves.
const CROSSOVERS: usize = 4;
/// A step goes this fraction of the way to the nearest gap or multiplier reaching zero.
const TO_BOUNDARY: f64 = 0.99;
/// Bounds farther than this many times the force scale count as missing (a box of
/// `+-1e308` would put products of 1e306 among ones of 1e-2 and stall the method; the
/// crossover's set moves still hold the force to the true bound).
const FAR_BOUND: f64 = 1e8;
/// Gaps and multipliers of the starting point are at least this fraction of their scales.
const START_MARGIN: f64 = 1e-2;

/// Every gap times multiplier stays at least this fraction of their mean after a step
/// (the wide neighbourhood of the central path). 1e-1 left twice as many islands
/// unsolved on resting piles; 1e-3 about as many as this.
const NEIGHBOURHOOD: f64 = 1e-2;

/// The targets of a direction's products `g v` (see [`SparseExactSolver::set_targets`]).
#[derive(Debug, Clone, Copy)]
enum Target {
    /// The predictor: `g v = 0`.
    Zero,
    /// A centring step towards this product.
    Centre(f64),
    /// Mehrotra's corrector: this product less the predictor's second-order term.
    Mehrotra(f64),
}

/// A row's bounds, as the interior point sees them.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Bounds {
    /// No finite bound: an equation.
    Free,
    /// A box of zero width (friction of `mu = 0`, an equal pair of limits): the force stays
    /// at `lo`, and the row drops out of the solve.
    Pinned(f64),
    /// Fixed bounds, at least one finite.
    Fixed(f64, f64),
    /// `-mu x_n <= x_i <= mu x_n` of normal row `n`.
    Friction(usize, f64),
}

impl Bounds {
    /// `(g_l, g_u)` at forces `x`; infinite for a missing bound.
    #[inline]
    fn gaps(self, x: &[f64], i: usize) -> (f64, f64) {
        match self {
            Bounds::Free | Bounds::Pinned(_) => (f64::INFINITY, f64::INFINITY),
            Bounds::Fixed(lo, hi) => (x[i] - lo, hi - x[i]),
            Bounds::Friction(n, mu) => (x[i] + mu * x[n], mu * x[n] - x[i]),
        }
    }

    /// The gaps' change for the force change `dx`; zero for a missing bound.
    #[inline]
    fn gap_changes(self, dx: &[f64], i: usize) -> (f64, f64) {
        match self {
            Bounds::Free | Bounds::Pinned(_) => (0.0, 0.0),
            Bounds::Fixed(lo, hi) => (
                if lo.is_finite() { dx[i] } else { 0.0 },
                if hi.is_finite() { -dx[i] } else { 0.0 },
            ),
            Bounds::Friction(n, mu) => (dx[i] + mu * dx[n], mu * dx[n] - dx[i]),
        }
    }
}

/// The interior point's workspaces, reused between steps.
#[derive(Debug, Clone, Default)]
pub(super) struct Interior {
    bounds: Vec<Bounds>,
    /// Multipliers of the lower and upper bounds (zero for a missing bound).
    lower: Vec<f64>,
    upper: Vec<f64>,
    /// `A x - b` at the current forces.
    slack: Vec<f64>,
    /// The body-space weights `e_i = r_i + C_ii` and slopes `-C_tn / e_t`.
    weight: Vec<f64>,
    slope: Vec<f64>,
    /// Rows in the solve (all but pinned ones).
    solved: Vec<bool>,
    /// The centring targets `g v` of the corrector, per bound.
    target_lower: Vec<f64>,
    target_upper: Vec<f64>,
    /// The iterate a failed crossover returns to.
    saved: (Vec<f64>, Vec<f64>, Vec<f64>),
}

/// The longest step up to `t` that keeps `g + step dg >= 0` (a gap or multiplier `g`
/// changing by `dg` per unit step).
#[inline]
fn longest_step(t: f64, g: f64, dg: f64) -> f64 {
    if g.is_finite() && dg < 0.0 {
        t.min(-g / dg)
    } else {
        t
    }
}

impl SparseExactSolver {
    /// Interior-point steps from the current forces, then crossover (see the module
    /// notes), counting factorisations in `used`. `Solved` once crossover's block moves
    /// leave no row violating its set; `Stalled` if the method does not apply to the
    /// island (a friction row on a normal row that may pull), stops making progress or
    /// runs out of steps.
    pub(super) fn interior(
        &mut self,
        island: &SparseIsland,
        op: &mut SparseOperator,
        max_diagonal: f64,
        used: &mut usize,
    ) -> Sweep {
        let (x_scale, w_scale) = scales(&self.x, island.b, max_diagonal);
        let far = FAR_BOUND * x_scale.max(w_scale / max_diagonal.max(f64::MIN_POSITIVE));
        if !self.classify_bounds(island, far) {
            return Sweep::Stalled;
        }
        self.start_interior(island, op, max_diagonal, (x_scale, w_scale));
        let bounds = self.bound_count() as f64;
        let mut next_crossover = CROSSOVER_GAP;
        let mut crossovers = 0;
        let (mut best, mut since_best) = (f64::INFINITY, 0);
        for _ in 0..MAX_STEPS {
            let gap = self.measure_interior(island, op);
            let (x_scale, w_scale) = scales(&self.x, island.b, max_diagonal);
            let mu = gap / bounds;
            let relative = mu / (x_scale * w_scale);
            if !relative.is_finite() {
                return Sweep::Stalled;
            }
            // On a problem that is not monotone (friction feeding back into the normal
            // forces) the central path may end; then the gap stops falling.
            if relative < 0.5 * best {
                (best, since_best) = (relative, 0);
            } else {
                since_best += 1;
                if since_best > STALL_STEPS {
                    return Sweep::Stalled;
                }
            }
            if relative <= next_crossover {
                match self.cross_over(island, op, max_diagonal, used) {
                    Sweep::Stalled => {}
                    done => return done,
                }
                crossovers += 1;
                if crossovers >= CROSSOVERS {
                    return Sweep::Stalled;
                }
                next_crossover *= 0.1;
            }
            *used += 1;
            if !self.factor_interior(island) {
                return Sweep::Stalled;
            }
            // Predictor: the Newton step towards `g v = 0`.
            self.set_targets(Target::Zero);
            self.interior_direction(island);
            let predicted_step = self.longest_interior_step();
            let (predicted_gap, _) = self.products_after(predicted_step);
            // Mehrotra's centring and second-order correction.
            let sigma = (predicted_gap / gap).clamp(0.0, 1.0).powi(3);
            self.set_targets(Target::Mehrotra(sigma * mu));
            self.interior_direction(island);
            let mut step = TO_BOUNDARY * self.longest_interior_step();
            if step < 0.5 * predicted_step.min(0.2) {
                // The second-order term can point out of the neighbourhood: centre instead.
                self.set_targets(Target::Centre(sigma.max(0.5) * mu));
                self.interior_direction(island);
                step = TO_BOUNDARY * self.longest_interior_step();
            }
            let step = self.centred_step(step, bounds);
            for i in 0..self.x.len() {
                let b = self.ip.bounds[i];
                let gaps = b.gaps(&self.x, i);
                let (dvl, dvu) = self.multiplier_changes(i, gaps, b.gap_changes(&self.dx, i));
                self.ip.lower[i] += step * dvl;
                self.ip.upper[i] += step * dvu;
            }
            for (x, dx) in self.x.iter_mut().zip(&self.dx) {
                *x += step * dx;
            }
        }
        Sweep::Stalled
    }

    /// The corrector's targets for `g v` per bound: zero (predictor), `centre` (a
    /// centring step), or `centre` less the predictor's second-order term `dg dv`
    /// (Mehrotra; `dx` must still hold the predictor's direction).
    fn set_targets(&mut self, target: Target) {
        for i in 0..self.x.len() {
            let (gl, gu) = self.ip.bounds[i].gaps(&self.x, i);
            let ((tl, tu), centre) = match target {
                Target::Zero => ((0.0, 0.0), 0.0),
                Target::Centre(centre) => ((0.0, 0.0), centre),
                Target::Mehrotra(centre) => {
                    let (dgl, dgu) = self.ip.bounds[i].gap_changes(&self.dx, i);
                    let (dvl, dvu) = self.multiplier_changes(i, (gl, gu), (dgl, dgu));
                    ((dgl * dvl, dgu * dvu), centre)
                }
            };
            self.ip.target_lower[i] = if gl.is_finite() { centre - tl } else { 0.0 };
            self.ip.target_upper[i] = if gu.is_finite() { centre - tu } else { 0.0 };
        }
    }

    /// `(sum, least)` of gap times multiplier over every bound after a step `step` along
    /// `dx` and the multipliers' changes.
    fn products_after(&self, step: f64) -> (f64, f64) {
        let (mut total, mut least) = (0.0, f64::INFINITY);
        for i in 0..self.x.len() {
            let b = self.ip.bounds[i];
            let (gl, gu) = b.gaps(&self.x, i);
            let (dgl, dgu) = b.gap_changes(&self.dx, i);
            let (dvl, dvu) = self.multiplier_changes(i, (gl, gu), (dgl, dgu));
            for (g, dg, v, dv) in [
                (gl, dgl, self.ip.lower[i], dvl),
                (gu, dgu, self.ip.upper[i], dvu),
            ] {
                if g.is_finite() {
                    let p = (g + step * dg) * (v + step * dv);
                    total += p;
                    least = f64::min(least, p);
                }
            }
        }
        (total, least)
    }

    /// The longest step up to `step` (cut by a fifth at a time) after which every gap
    /// times multiplier is at least [`NEIGHBOURHOOD`] times their mean over the `bounds`
    /// bounds: a bound whose product falls far below the others blocks the next steps.
    fn centred_step(&self, mut step: f64, bounds: f64) -> f64 {
        for _ in 0..40 {
            let (total, least) = self.products_after(step);
            if least >= NEIGHBOURHOOD * total / bounds {
                break;
            }
            step *= 0.8;
        }
        step
    }

    /// Each row's [`Bounds`], bounds farther than `far` counting as missing; `false` if
    /// the method does not apply: a friction row whose normal row may take negative forces
    /// (then `+-mu |x_n|` is not linear).
    fn classify_bounds(&mut self, island: &SparseIsland, far: f64) -> bool {
        let range = island.range.clone();
        let (lo, hi) = (
            &island.rows.lo[range.clone()],
            &island.rows.hi[range.clone()],
        );
        let findex = &island.rows.findex[range];
        let ip = &mut self.ip;
        ip.bounds.clear();
        for i in 0..self.x.len() {
            let b = match findex[i] {
                _ if i < island.nub => Bounds::Free,
                Some(n) => {
                    if lo[n] != 0.0 || n < island.nub || findex[n].is_some() {
                        return false;
                    }
                    match hi[i].abs() {
                        // Friction of `mu = 0`, or of a normal force pinned at zero.
                        mu if mu == 0.0 || hi[n] <= 0.0 => Bounds::Pinned(0.0),
                        mu if mu.is_finite() => Bounds::Friction(n, mu),
                        _ => return false,
                    }
                }
                None if lo[i] == hi[i] => Bounds::Pinned(lo[i]),
                None if lo[i] > hi[i] => return false,
                None => {
                    let lo = if lo[i] < -far {
                        f64::NEG_INFINITY
                    } else {
                        lo[i]
                    };
                    let hi = if hi[i] > far { f64::INFINITY } else { hi[i] };
                    if lo.is_finite() || hi.is_finite() {
                        Bounds::Fixed(lo, hi)
                    } else {
                        Bounds::Free
                    }
                }
            };
            ip.bounds.push(b);
        }
        true
    }

    /// The number of finite bounds (at least one).
    fn bound_count(&self) -> usize {
        let count = self
            .ip
            .bounds
            .iter()
            .map(|b| match b {
                Bounds::Free | Bounds::Pinned(_) => 0,
                Bounds::Fixed(lo, hi) => lo.is_finite() as usize + hi.is_finite() as usize,
                Bounds::Friction(..) => 2,
            })
            .sum::<usize>();
        count.max(1)
    }

    /// A starting point strictly inside every bound: the current forces moved inside their
    /// boxes (normal forces first, as friction boxes scale with them), multipliers from
    /// the slack `A x - b` with a margin; `(x_scale, w_scale)` are the current forces'
    /// [`scales`].
    fn start_interior(
        &mut self,
        island: &SparseIsland,
        op: &mut SparseOperator,
        max_diagonal: f64,
        (x_scale, w_scale): (f64, f64),
    ) {
        let n = self.x.len();
        // Warm forces keep most of their values; without them a force of `|b| / A_ii`
        // starts where the answer's scale is (a hundredth of it started badly centred:
        // tiny gaps against multipliers of the slack's size).
        let cold = self.x.iter().all(|&v| v == 0.0);
        let margin = if cold {
            w_scale / max_diagonal.max(f64::MIN_POSITIVE)
        } else {
            START_MARGIN * x_scale
        };
        let ip = &mut self.ip;
        for i in 0..n {
            match ip.bounds[i] {
                Bounds::Pinned(v) => self.x[i] = v,
                Bounds::Fixed(lo, hi) => {
                    self.x[i] = match (lo.is_finite(), hi.is_finite()) {
                        // `max` and `min`, not `clamp`, which panics on a box that rounding
                        // (or `hi - lo` overflowing) leaves inverted or NaN.
                        (true, true) => {
                            let inside = (0.5 * START_MARGIN * (hi - lo)).min(margin);
                            self.x[i].max(lo + inside).min(hi - inside)
                        }
                        (true, false) => self.x[i].max(lo + margin),
                        (false, true) => self.x[i].min(hi - margin),
                        (false, false) => self.x[i],
                    }
                }
                _ => {}
            }
        }
        for i in 0..n {
            if let Bounds::Friction(normal, mu) = ip.bounds[i] {
                let limit = (1.0 - START_MARGIN) * mu * self.x[normal];
                self.x[i] = self.x[i].max(-limit).min(limit);
            }
        }
        for v in [
            &mut ip.lower,
            &mut ip.upper,
            &mut ip.slack,
            &mut ip.weight,
            &mut ip.slope,
            &mut ip.target_lower,
            &mut ip.target_upper,
        ] {
            v.clear();
            v.resize(n, 0.0);
        }
        op.begin(&self.x);
        let dual_margin = START_MARGIN * w_scale;
        for i in 0..n {
            let w = op.row_times_vector(i, &self.x) - island.b[i];
            let (gl, gu) = ip.bounds[i].gaps(&self.x, i);
            if gl.is_finite() {
                ip.lower[i] = w.max(0.0) + dual_margin;
            }
            if gu.is_finite() {
                ip.upper[i] = (-w).max(0.0) + dual_margin;
            }
        }
        // From a cold start, centred: no product `g v` below their mean (such a start with
        // a few tiny products crawls, every step cut short by those bounds). Warm forces
        // keep their multipliers: lifting them there halved the islands solved on resting
        // piles (the products stay near the answer's own, which the lift destroys).
        if cold {
            let (mut total, mut count) = (0.0, 0usize);
            for i in 0..n {
                let (gl, gu) = ip.bounds[i].gaps(&self.x, i);
                for (g, v) in [(gl, ip.lower[i]), (gu, ip.upper[i])] {
                    if g.is_finite() {
                        total += g * v;
                        count += 1;
                    }
                }
            }
            let mean = total / count.max(1) as f64;
            for i in 0..n {
                let (gl, gu) = ip.bounds[i].gaps(&self.x, i);
                if gl.is_finite() {
                    ip.lower[i] = ip.lower[i].max(mean / gl);
                }
                if gu.is_finite() {
                    ip.upper[i] = ip.upper[i].max(mean / gu);
                }
            }
        }
        ip.solved.clear();
        ip.solved
            .extend(ip.bounds.iter().map(|b| !matches!(b, Bounds::Pinned(_))));
    }

    /// `A x - b` into the slack and the total gap `sum g v`.
    fn measure_interior(&mut self, island: &SparseIsland, op: &mut SparseOperator) -> f64 {
        op.begin(&self.x);
        let ip = &mut self.ip;
        let mut gap = 0.0;
        for i in 0..self.x.len() {
            ip.slack[i] = op.row_times_vector(i, &self.x) - island.b[i];
            let (gl, gu) = ip.bounds[i].gaps(&self.x, i);
            if gl.is_finite() {
                gap += gl * ip.lower[i];
            }
            if gu.is_finite() {
                gap += gu * ip.upper[i];
            }
        }
        gap
    }

    /// Factors the body-space matrix of `A + C` at the current point (see the module
    /// notes); `false` if a pivot block was singular.
    fn factor_interior(&mut self, island: &SparseIsland) -> bool {
        let ip = &mut self.ip;
        for i in 0..self.x.len() {
            let (gl, gu) = ip.bounds[i].gaps(&self.x, i);
            let over = |v: f64, g: f64| if g.is_finite() { v / g } else { 0.0 };
            let (dl, du) = (over(ip.lower[i], gl), over(ip.upper[i], gu));
            ip.weight[i] = self.r[i] + dl + du;
            ip.slope[i] = match ip.bounds[i] {
                Bounds::Friction(_, mu) => -mu * (dl - du) / ip.weight[i],
                _ => 0.0,
            };
        }
        // The coupled factor now holds this matrix, not an active set's.
        self.coupled_factor.0.clear();
        self.system.factor_coupled(
            island.rows,
            island.range.clone(),
            &ip.solved,
            &ip.weight,
            &ip.slope,
        )
    }

    /// The direction `dx` for the current targets: `(A + C) dx = b - A x + t_l / g_l -
    /// t_u / g_u`, by the factor of [`Self::factor_interior`].
    fn interior_direction(&mut self, island: &SparseIsland) {
        let ip = &self.ip;
        for i in 0..self.x.len() {
            let (gl, gu) = ip.bounds[i].gaps(&self.x, i);
            let mut rhs = -ip.slack[i];
            if gl.is_finite() {
                rhs += ip.target_lower[i] / gl;
            }
            if gu.is_finite() {
                rhs -= ip.target_upper[i] / gu;
            }
            self.res[i] = if ip.solved[i] { rhs } else { 0.0 };
        }
        self.system.correct_coupled(
            island.rows,
            island.range.clone(),
            &ip.solved,
            &ip.weight,
            &self.res,
            &mut self.dx,
        );
        // `E^-1` follows each friction row's normal: `dx_t += slope_t dx_n`.
        for i in 0..self.x.len() {
            if let Bounds::Friction(normal, _) = ip.bounds[i] {
                self.dx[i] += ip.slope[i] * self.dx[normal];
            }
        }
    }

    /// Row `i`'s multipliers' changes towards the targets, for its gaps `(gl, gu)` changing
    /// by `(dgl, dgu)`: from `(g + dg) (v + dv) = t` linearised, `dv = (t - v dg) / g - v`.
    #[inline]
    fn multiplier_changes(
        &self,
        i: usize,
        (gl, gu): (f64, f64),
        (dgl, dgu): (f64, f64),
    ) -> (f64, f64) {
        let ip = &self.ip;
        let change = |t: f64, g: f64, v: f64, dg: f64| {
            if g.is_finite() {
                (t - v * dg) / g - v
            } else {
                0.0
            }
        };
        (
            change(ip.target_lower[i], gl, ip.lower[i], dgl),
            change(ip.target_upper[i], gu, ip.upper[i], dgu),
        )
    }

    /// The longest step along `dx` (and the multipliers' changes) that keeps every gap and
    /// multiplier non-negative, at most 1.
    fn longest_interior_step(&self) -> f64 {
        let mut step = 1.0f64;
        for i in 0..self.x.len() {
            let b = self.ip.bounds[i];
            let (gl, gu) = b.gaps(&self.x, i);
            let (dgl, dgu) = b.gap_changes(&self.dx, i);
            let (dvl, dvu) = self.multiplier_changes(i, (gl, gu), (dgl, dgu));
            step = longest_step(step, gl, dgl);
            step = longest_step(step, gu, dgu);
            if gl.is_finite() {
                step = longest_step(step, self.ip.lower[i], dvl);
            }
            if gu.is_finite() {
                step = longest_step(step, self.ip.upper[i], dvu);
            }
        }
        step
    }

    /// Reads each row's set off its gaps and multipliers and lets block moves finish from
    /// there; on `Stalled` the interior point is restored.
    fn cross_over(
        &mut self,
        island: &SparseIsland,
        op: &mut SparseOperator,
        max_diagonal: f64,
        used: &mut usize,
    ) -> Sweep {
        let (x_scale, w_scale) = scales(&self.x, island.b, max_diagonal);
        // Gaps are forces and multipliers slacks: compare them in one unit.
        let ratio = x_scale / w_scale;
        let ip = &mut self.ip;
        for i in 0..self.x.len() {
            let (gl, gu) = ip.bounds[i].gaps(&self.x, i);
            self.state[i] = match ip.bounds[i] {
                Bounds::Pinned(_) => IndexState::AtLower,
                _ if gl.is_finite() && ip.lower[i] * ratio > gl => IndexState::AtLower,
                _ if gu.is_finite() && ip.upper[i] * ratio > gu => IndexState::AtUpper,
                _ => IndexState::Clamped,
            };
        }
        let (x, lower, upper) = &mut ip.saved;
        x.clone_from(&self.x);
        lower.clone_from(&ip.lower);
        upper.clone_from(&ip.upper);
        let findex = &island.rows.findex[island.range.clone()];
        self.coupled_next = self.sets_couple_friction(findex);
        self.factored.clear();
        // Crossover gets its own few block moves, whatever the phases before used.
        let mut moves = MAX_ITERATIONS - CROSSOVER_MOVES;
        let outcome = self.active_sets(island, op, max_diagonal, &mut moves);
        *used += moves - (MAX_ITERATIONS - CROSSOVER_MOVES);
        if outcome == Sweep::Stalled {
            let (x, lower, upper) = &self.ip.saved;
            self.x.clone_from(x);
            self.ip.lower.clone_from(lower);
            self.ip.upper.clone_from(upper);
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::super::system::tests::Fixture;
    use super::*;
    use crate::math::Vec3;
    use crate::rows::{JacobianRow, Pose, Row, RowStorage, Softness};
    use crate::solver::sparse::sparse_residual;
    use stiction_lcp::dantzig::{solve_dantzig, DantzigOptions};
    use stiction_lcp::{BoxedLcp, DenseMatrix};

    /// Three contacts (a normal and two friction rows each, `mu = 0.5`) stacking four
    /// bodies (centres 1 m apart on the z axis), each touching off-centre along a tilted
    /// normal, so that friction and normal forces couple through the bodies' rotations.
    fn contacts() -> RowStorage {
        let mut rows = RowStorage::default();
        let centre = |k: u32| Vec3::new(0.0, 0.0, k as f64 + 0.5);
        for (k, offset) in [(0u32, 0.3), (1, -0.2), (2, 0.1)] {
            let (a, b) = (k, k + 1);
            let point = Vec3::new(offset, 0.5 * offset, k as f64 + 1.0);
            let normal = Vec3::new(0.2 * offset, -0.1, 1.0).normalize();
            let t1 = normal.cross(Vec3::Y).normalize();
            let t2 = normal.cross(t1);
            let first = rows.len();
            for (r, d) in [normal, t1, t2].into_iter().enumerate() {
                let jacobian = JacobianRow {
                    linear_a: -d,
                    angular_a: -(point - centre(a)).cross(d),
                    linear_b: d,
                    angular_b: (point - centre(b)).cross(d),
                };
                let mut writer = rows.writer([a, b], [Pose::IDENTITY; 2], Softness::DEFAULT, false);
                writer.push(Row::equality(jacobian, 0.0));
                let i = first + r;
                if r == 0 {
                    (rows.lo[i], rows.hi[i]) = (0.0, f64::INFINITY);
                } else {
                    rows.findex[i] = Some(first);
                    (rows.lo[i], rows.hi[i]) = (-0.5, 0.5);
                }
            }
        }
        rows
    }

    /// `A` of the island as a dense matrix, column by column from the operator.
    fn dense(op: &mut SparseOperator, n: usize) -> DenseMatrix {
        let mut a = DenseMatrix::zeros(n, n);
        let mut e = vec![0.0; n];
        for k in 0..n {
            e[k] = 1.0;
            op.begin(&e);
            for i in 0..n {
                a[(i, k)] = op.row_times_vector(i, &e);
            }
            e[k] = 0.0;
        }
        a
    }

    /// On friction-coupled problems (sticking and sliding contacts, some separating), the
    /// interior point and its crossover alone certify the answer dense Dantzig finds.
    #[test]
    fn the_interior_point_solves_friction_coupled_problems_as_dantzig_does() {
        // The cases must include friction at its bound, where the coupling matters.
        assert!(solves_as_dantzig_does(contacts));
    }

    /// Boxed rows (a motor's `+-0.3`, and a box so wide that `hi - lo` overflows) start
    /// inside their boxes and are solved alike.
    #[test]
    fn boxed_rows_start_inside_their_boxes_and_are_solved() {
        solves_as_dantzig_does(|| {
            let mut rows = contacts();
            for (pair, (lo, hi)) in [([0, 3], (-0.3, 0.3)), ([1, 3], (-1e308, 1e308))] {
                let jacobian = JacobianRow {
                    linear_a: Vec3::new(0.3, 1.0, -0.2),
                    angular_a: Vec3::new(0.1, 0.0, 0.4),
                    linear_b: Vec3::new(-0.3, -1.0, 0.2),
                    angular_b: Vec3::new(0.0, 0.2, -0.1),
                };
                let mut writer = rows.writer(pair, [Pose::IDENTITY; 2], Softness::DEFAULT, false);
                writer.push(Row::equality(jacobian, 0.0));
                let i = rows.len() - 1;
                (rows.lo[i], rows.hi[i]) = (lo, hi);
            }
            rows
        });
    }

    /// Solves 12 problems on the rows `build` makes (deterministic right-hand sides, normals
    /// mostly pushing) by the interior point alone, and checks each against dense Dantzig:
    /// solved, residual at most 1e-12, forces within 1e-9. Returns whether some friction
    /// row ended at its bound with its normal pushing.
    fn solves_as_dantzig_does(build: impl Fn() -> RowStorage) -> bool {
        let n = build().len();
        let mut solved_sliding = false;
        for case in 0..12u32 {
            let b: Vec<f64> = (0..n as u32)
                .map(|i| {
                    let h = ((7919 * (i + 13 * case) + 104_729) % 2001) as f64 / 1000.0 - 1.0;
                    if i % 3 == 0 {
                        h + 0.6
                    } else {
                        2.0 * h
                    }
                })
                .collect();
            let fixture = Fixture::new(build(), b);
            let (rows, b) = (&fixture.rows, &fixture.b);
            let island = fixture.island(0);
            let mut cache = vec![[Vec3::ZERO; 2]; 4];
            let mut op = fixture.operator(&mut cache);
            let mut problem = BoxedLcp::new(dense(&mut op, n), b.clone());
            problem.lo.clone_from(&rows.lo);
            problem.hi.clone_from(&rows.hi);
            problem.findex.clone_from(&rows.findex);
            let reference = solve_dantzig(&problem, &DantzigOptions::default(), None).unwrap();
            assert!(reference.status.is_solved(), "case {case}: {reference:?}");

            let mut solver = SparseExactSolver::default();
            solver.start(&island, false);
            let mut used = 0;
            let max_diagonal = op.max_diagonal();
            let outcome = solver.interior(&island, &mut op, max_diagonal, &mut used);
            assert_eq!(outcome, Sweep::Solved, "case {case}");
            op.begin(&solver.x);
            let residual = sparse_residual(&op, b, &rows.lo, &rows.hi, &rows.findex, &solver.x);
            assert!(residual.max() <= 1e-12, "case {case}: {residual:?}");
            for i in 0..n {
                assert!(
                    (solver.x[i] - reference.x[i]).abs() <= 1e-9,
                    "case {case}, row {i}: {} against Dantzig's {}",
                    solver.x[i],
                    reference.x[i]
                );
            }
            solved_sliding |= (0..n).any(|t| {
                rows.findex[t].is_some_and(|j| {
                    solver.x[j] > 1e-3 && (solver.x[t].abs() - 0.5 * solver.x[j]).abs() < 1e-12
                })
            });
        }
        solved_sliding
    }

    /// Friction bounded by a row that may pull (`+-mu |x_n|`, not linear in `x_n`) is
    /// left to the Newton steps: the interior point declines without moving a force.
    #[test]
    fn friction_on_a_row_that_may_pull_is_declined() {
        let mut rows = contacts();
        (rows.lo[0], rows.hi[0]) = (f64::NEG_INFINITY, f64::INFINITY);
        let fixture = Fixture::new(rows, vec![1.0; 9]);
        let island = fixture.island(1);
        let mut cache = vec![[Vec3::ZERO; 2]; 4];
        let mut op = fixture.operator(&mut cache);
        let mut solver = SparseExactSolver::default();
        solver.start(&island, false);
        solver
            .x
            .iter_mut()
            .enumerate()
            .for_each(|(i, x)| *x = i as f64);
        let mut used = 0;
        let outcome = solver.interior(&island, &mut op, 1.0, &mut used);
        assert_eq!((outcome, used), (Sweep::Stalled, 0));
        assert!(solver.x.iter().enumerate().all(|(i, &x)| x == i as f64));
    }
}
