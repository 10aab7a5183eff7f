//! The warm start: trust a guess of every index's set, factor the clamped block once, solve,
//! and accept the result only if it is a valid solution. When a contact set persists from
//! one step to the next this replaces `O(n)` pivots by one factorisation.

use super::{CoupledSolve, DantzigSolver, Set};
use crate::matrix::{dot, max_abs};
use crate::problem::BoxedLcp;
use crate::report::IndexState;

/// What a guess of the index sets gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WarmStart {
    /// A valid solution.
    Hit,
    /// Factored, but not valid: repair the sets by pivoting.
    Miss,
    /// A guessed clamped block is singular: start from scratch.
    Unusable,
}

/// Which factorisation a coupled solve applies ([`DantzigSolver::solve_coupled`]).
#[derive(Clone, Copy)]
enum CoupledInverse {
    /// The dense LU of the whole coupled matrix.
    Dense,
    /// The clamped set's `L D L^T` with the Woodbury correction.
    LowRank,
}

/// Fixed-point rounds allowed for friction bounds to settle under a guessed set before the
/// coupled solve takes over. Each round is an `O(n^2)` product and a solve; since the
/// coupled solve became a low-rank update (usually cheaper than a few rounds), rounds that
/// have not settled by the third rarely settle soon: 8 -> 3 took a resting 21-box
/// pyramid's exact step from 7.6 to 6.2 ms; bench/peers' random contact LCPs (30, 99 and
/// 300 rows) were not slower.
const FRICTION_ROUNDS: usize = 3;

impl DantzigSolver {
    /// Tries the guessed sets: [`WarmStart::Hit`] if they give a valid solution (which is
    /// then in `self.x`, `self.w` and the index sets), [`WarmStart::Miss`] if they were
    /// factored but need repairing (the sets and factorisation are left for
    /// `repair_pass`), [`WarmStart::Unusable`] if a guessed clamped block is singular.
    pub(super) fn try_warm_start(&mut self, p: &BoxedLcp, guess: &[IndexState]) -> WarmStart {
        let n = p.len();
        self.clear_sets(n);
        // Friction bounds start from zero normal forces and settle below.
        self.set_friction_bounds(p);
        // The clamped block is factored in the problem's own order, not the pivoting order
        // (normals before friction rows): engines list each contact's normal and friction
        // rows together and contacts body by body, which keeps the factor's envelope narrow
        // (see `ldlt`). The unbounded rows still come first.
        for (i, &guessed) in guess.iter().enumerate().take(n) {
            let state = if i < p.nub {
                IndexState::Clamped
            } else {
                guessed
            };
            match state {
                IndexState::Clamped => {
                    // The clamped-column copy the pivots use is only made on a miss.
                    let nc = self.c_list.len();
                    let row = p.a.row(i);
                    for (c, &ck) in self.c_list.iter().enumerate() {
                        self.y[c] = row[ck];
                    }
                    self.ldl.forward(&mut self.y[..nc]);
                    let aii = p.a[(i, i)];
                    let pivot = self.ldl.schur_complement(&self.y[..nc], aii);
                    if pivot.is_nan()
                        || pivot <= self.pivot_tolerance * aii.abs().max(f64::MIN_POSITIVE)
                    {
                        return WarmStart::Unusable;
                    }
                    self.ldl.append(&self.y[..nc], pivot);
                    self.c_list.push(i);
                    self.slot_of.push(nc);
                    self.set[i] = Set::Clamped;
                }
                IndexState::AtLower => {
                    self.set[i] = Set::Lower;
                    self.n_list.push(i);
                }
                IndexState::AtUpper => {
                    self.set[i] = Set::Upper;
                    self.n_list.push(i);
                }
            }
        }
        self.slots_used = self.c_list.len();
        if self.settle_friction(p, CoupledSolve::Always) {
            return WarmStart::Hit;
        }
        self.rows.index(&p.a);
        if !self.rows.is_sparse() {
            // Pivoting follows: the clamped columns, in slots 0..|C|, row by row.
            let nc = self.c_list.len();
            for r in 0..n {
                let row = p.a.row(r);
                let columns = &mut self.clamped_columns[r * n..r * n + nc];
                for (column, &k) in columns.iter_mut().zip(&self.c_list) {
                    *column = row[k];
                }
            }
        }
        WarmStart::Miss
    }

    /// With the index sets held fixed, alternates between solving the clamped values and
    /// resetting friction bounds from the new normal forces (each round reuses the existing
    /// factorisation: `O(n^2)`), then checks the result. Returns whether it is a valid
    /// solution of the true `findex` problem.
    ///
    /// `coupled` says when the rounds may be finished by the coupled solve: between pivoting
    /// passes a failure costs only another (repairing) pass, cheaper than that solve's LU.
    pub(super) fn settle_friction(&mut self, p: &BoxedLcp, coupled: CoupledSolve) -> bool {
        let n = p.len();
        let has_friction = p.findex.iter().any(Option::is_some);
        let nc = self.c_list.len();
        let mut settled = false;
        for _ in 0..FRICTION_ROUNDS {
            for &k in &self.n_list {
                let bound = if self.set[k] == Set::Lower {
                    self.lo[k]
                } else {
                    self.hi[k]
                };
                if !bound.is_finite() {
                    return false;
                }
                self.x[k] = bound;
            }
            for k in 0..n {
                if self.set[k] == Set::Fixed {
                    self.x[k] = 0.0;
                }
            }
            for c in 0..nc {
                self.x[self.c_list[c]] = 0.0;
            }
            for (c, &k) in self.c_list.iter().enumerate() {
                self.y[c] = p.b[k] - dot(p.a.row(k), &self.x[..n]);
            }
            self.ldl.solve(&mut self.y[..nc]);
            for (c, &k) in self.c_list.iter().enumerate() {
                self.x[k] = self.y[c];
            }
            if !has_friction {
                settled = true;
                break;
            }
            let mut change: f64 = 0.0;
            for t in 0..n {
                if let Some(j) = p.findex[t] {
                    let h = (p.hi[t] * self.x[j]).abs();
                    change = change.max((h - self.hi[t]).abs());
                    self.lo[t] = -h;
                    self.hi[t] = h;
                }
            }
            if change <= 0.1 * self.tolerance * max_abs(&self.x[..n]) {
                settled = true;
                break;
            }
        }
        if settled {
            self.polish(p);
        } else if coupled == CoupledSolve::IfSetsHold && !self.sets_roughly_hold(p) {
            return false;
        } else if self.coupled_solve(p) {
            for k in 0..n {
                self.w[k] = dot(p.a.row(k), &self.x[..n]) - p.b[k];
            }
        } else {
            return false;
        }
        self.warm_solution_is_valid(p)
    }

    /// Solves the clamped values with friction rows at a bound tied to their clamped normals,
    /// `x_t = s_t mu_t x_n`, in one non-symmetric system
    /// `(A_CC + A_CF S mu E) x_C = b_C - A_CK x_K` (F: those friction rows, K: the rest held
    /// fixed): exact where the fixed-point rounds converge slowly or not at all (strong
    /// friction-normal coupling, redundant contacts). Returns `false` if it is singular.
    fn coupled_solve(&mut self, p: &BoxedLcp) -> bool {
        let n = p.len();
        self.position.clear();
        self.position.resize(n, usize::MAX);
        for (c, &k) in self.c_list.iter().enumerate() {
            self.position[k] = c;
        }
        if !self.dense_coupled_only && self.factor_low_rank_coupled(p) {
            self.hold_fixed_for_coupled(p);
            self.solve_coupled(p, CoupledInverse::LowRank);
            // Accept only what the dense solve would match: the clamped equations to
            // round-off (an ill-conditioned A_CC can spoil the identity where the LU
            // would not).
            self.clamped_residual_into_y(p);
            let scale = self
                .b_inf
                .max(self.a_max * max_abs(&self.x[..n]))
                .max(f64::MIN_POSITIVE);
            let nc = self.c_list.len();
            let accurate = self.y[..nc].iter().all(|r| r.abs() <= 1e-10 * scale);
            if accurate && self.x[..n].iter().all(|v| v.is_finite()) {
                self.low_rank_solves += 1;
                return true;
            }
        }
        self.hold_fixed_for_coupled(p);
        if !self.factor_dense_coupled(p) {
            return false;
        }
        self.solve_coupled(p, CoupledInverse::Dense);
        self.x[..n].iter().all(|v| v.is_finite())
    }

    /// The clamped position of the normal row that friction row `t` is tied to (at a
    /// bound, its normal clamped: `x_t = s_t mu_t x_n`), if it is; `position` must map
    /// the clamped rows.
    fn tied_normal(&self, p: &BoxedLcp, t: usize) -> Option<usize> {
        let j = p.findex[t]?;
        let c = self.position[j];
        (c != usize::MAX && matches!(self.set[t], Set::Lower | Set::Upper)).then_some(c)
    }

    /// `s_t mu_t` of tied friction row `t`: its value per unit of its normal force.
    fn tie_coefficient(&self, p: &BoxedLcp, t: usize) -> f64 {
        let side = if self.set[t] == Set::Lower { -1.0 } else { 1.0 };
        side * p.hi[t]
    }

    /// Zeroes the clamped, fixed and tied rows, so that the clamped residual is the
    /// right-hand side `b_C - A_CK x_K` of the coupled system (the rest keep their bound
    /// values).
    fn hold_fixed_for_coupled(&mut self, p: &BoxedLcp) {
        for k in 0..p.len() {
            let zero = match self.set[k] {
                Set::Clamped | Set::Fixed => true,
                Set::Lower | Set::Upper => self.tied_normal(p, k).is_some(),
                _ => false,
            };
            if zero {
                self.x[k] = 0.0;
            }
        }
    }

    /// Solves the coupled system by the factorisation `inverse` names, from the fixed
    /// values [`Self::hold_fixed_for_coupled`] left, with two rounds of iterative
    /// refinement against the original rows: the coupled matrix of redundant contacts
    /// under small CFM is ill-conditioned, and one solve leaves its error.
    fn solve_coupled(&mut self, p: &BoxedLcp, inverse: CoupledInverse) {
        let nc = self.c_list.len();
        self.clamped_residual_into_y(p);
        self.apply_coupled_inverse(inverse, nc);
        for (c, &k) in self.c_list.iter().enumerate() {
            self.x[k] = self.y[c];
        }
        self.update_tied_friction(p);
        for _ in 0..2 {
            self.clamped_residual_into_y(p);
            self.apply_coupled_inverse(inverse, nc);
            self.add_y_to_clamped();
            self.update_tied_friction(p);
        }
    }

    fn apply_coupled_inverse(&mut self, inverse: CoupledInverse, nc: usize) {
        match inverse {
            CoupledInverse::Dense => self.lu.solve(&mut self.y[..nc]),
            CoupledInverse::LowRank => self.apply_low_rank_inverse(nc),
        }
    }

    /// Factors the whole coupled matrix `A_CC + A_CF S mu E` by dense LU; `false` if it is
    /// singular.
    fn factor_dense_coupled(&mut self, p: &BoxedLcp) -> bool {
        let nc = self.c_list.len();
        self.lu.reset(nc);
        for (r, &k) in self.c_list.iter().enumerate() {
            let row = p.a.row(k);
            for (c, &j) in self.c_list.iter().enumerate() {
                self.lu.set(r, c, row[j]);
            }
        }
        for t in 0..p.len() {
            let Some(column) = self.tied_normal(p, t) else {
                continue;
            };
            let coefficient = self.tie_coefficient(p, t);
            for (r, &k) in self.c_list.iter().enumerate() {
                self.lu.add(r, column, p.a[(k, t)] * coefficient);
            }
        }
        self.lu.factor(1e-14)
    }

    /// Prepares [`Self::coupled_solve`] through the clamped set's `L D L^T` (already
    /// factored) and the Woodbury identity, when that is cheaper than a dense LU: the tied
    /// friction rows change only the columns of their `q` normal rows,
    /// `A_CC + U E^T` (`U`: `nc x q`, `E`: those columns), so
    /// `(A_CC + U E^T)^-1 y = z - Z (I + E^T Z)^-1 E^T z` with `z = A_CC^-1 y`,
    /// `Z = A_CC^-1 U`: `q` envelope solves and a `q x q` LU instead of an `nc x nc` one (a
    /// resting 21-box pyramid: 31 % of its exact step was that LU). Leaves `Z` in
    /// `low_rank` and `I + E^T Z` factored in `lu`; `false` (the caller solves densely) if
    /// the way does not apply, would cost more, or the `q x q` matrix is singular.
    fn factor_low_rank_coupled(&mut self, p: &BoxedLcp) -> bool {
        let n = p.len();
        let nc = self.c_list.len();
        if nc == 0 || self.ldl.len() != nc || !self.parked.is_empty() {
            return false;
        }
        // The distinct normal columns the tied rows add to.
        self.tied_columns.clear();
        self.column_of.clear();
        self.column_of.resize(nc, usize::MAX);
        for t in 0..n {
            if let Some(c) = self.tied_normal(p, t) {
                if self.column_of[c] == usize::MAX {
                    self.column_of[c] = self.tied_columns.len();
                    self.tied_columns.push(c);
                }
            }
        }
        let q = self.tied_columns.len();
        // Dense LU costs about nc^3 / 3; this about q solves of nc^2 (an envelope solve is
        // at most that) and q^3 / 3.
        if q == 0 || 3 * q * nc * nc + q * q * q >= nc * nc * nc {
            return false;
        }
        // U column by column, then Z = A_CC^-1 U.
        self.low_rank.clear();
        self.low_rank.resize(nc * q, 0.0);
        for t in 0..n {
            let Some(c) = self.tied_normal(p, t) else {
                continue;
            };
            let coefficient = self.tie_coefficient(p, t);
            let column = &mut self.low_rank[self.column_of[c] * nc..][..nc];
            for (u, &k) in column.iter_mut().zip(&self.c_list) {
                *u += p.a[(k, t)] * coefficient;
            }
        }
        for b in 0..q {
            self.ldl.solve(&mut self.low_rank[b * nc..(b + 1) * nc]);
        }
        // The capacitance matrix I + E^T Z.
        self.lu.reset(q);
        for (a, &c) in self.tied_columns.iter().enumerate() {
            for b in 0..q {
                let identity = if a == b { 1.0 } else { 0.0 };
                self.lu.set(a, b, identity + self.low_rank[b * nc + c]);
            }
        }
        self.lu.factor(1e-14)
    }

    /// `y_C <- (A_CC + U E^T)^-1 y_C` with `Z = A_CC^-1 U` in `low_rank` and
    /// `I + E^T Z` factored in `lu` ([`Self::factor_low_rank_coupled`]).
    fn apply_low_rank_inverse(&mut self, nc: usize) {
        let q = self.tied_columns.len();
        self.ldl.solve(&mut self.y[..nc]);
        self.tied_values.clear();
        self.tied_values
            .extend(self.tied_columns.iter().map(|&c| self.y[c]));
        self.lu.solve(&mut self.tied_values[..q]);
        for (b, v) in self.tied_values[..q].iter().enumerate() {
            let column = &self.low_rank[b * nc..(b + 1) * nc];
            for (y, z) in self.y[..nc].iter_mut().zip(column) {
                *y -= z * v;
            }
        }
    }

    /// Friction rows at a bound tied to a clamped normal: `x_t = s_t mu_t x_n`.
    fn update_tied_friction(&mut self, p: &BoxedLcp) {
        for t in 0..p.len() {
            if self.tied_normal(p, t).is_none() {
                continue;
            }
            let j = p.findex[t].expect("tied rows are friction rows");
            let h = (p.hi[t] * self.x[j]).abs();
            self.x[t] = if self.set[t] == Set::Lower { -h } else { h };
            self.lo[t] = -h;
            self.hi[t] = h;
        }
    }

    /// Whether the current values keep every index roughly in its set under the current
    /// bounds (`ROUGH` of the problem's scale: the fixed-point values are not yet the
    /// coupled solution, which moves them by about the rounds' last change). Recomputes `w`.
    fn sets_roughly_hold(&mut self, p: &BoxedLcp) -> bool {
        const ROUGH: f64 = 1e-6;
        let n = p.len();
        for k in 0..n {
            self.w[k] = dot(p.a.row(k), &self.x[..n]) - p.b[k];
        }
        let x_scale = max_abs(&self.x[..n]).max(f64::MIN_POSITIVE);
        let tol_x = ROUGH * x_scale;
        let tol_w = ROUGH * self.b_inf.max(self.a_max * x_scale);
        (0..n).all(|k| {
            let (x, w) = (self.x[k], self.w[k]);
            match self.set[k] {
                Set::Clamped => x >= self.lo[k] - tol_x && x <= self.hi[k] + tol_x,
                Set::Lower => w >= -tol_w,
                Set::Upper => w <= tol_w,
                _ => true,
            }
        })
    }

    fn warm_solution_is_valid(&self, p: &BoxedLcp) -> bool {
        let n = p.len();
        let x_scale = max_abs(&self.x[..n]).max(f64::MIN_POSITIVE);
        let w_scale = self.b_inf.max(self.a_max * x_scale).max(f64::MIN_POSITIVE);
        let tol_x = 10.0 * self.tolerance * x_scale;
        let tol_w = 10.0 * self.tolerance * w_scale;
        (0..n).all(|k| {
            let (lo, hi) = p.effective_bounds(k, &self.x[..n]);
            let x = self.x[k];
            let w = self.w[k];
            if !(x.is_finite() && w.is_finite()) {
                return false;
            }
            match self.set[k] {
                Set::Clamped => x >= lo - tol_x && x <= hi + tol_x && w.abs() <= tol_w,
                Set::Lower => (x - lo).abs() <= tol_x && (w >= -tol_w || lo == hi),
                Set::Upper => (x - hi).abs() <= tol_x && (w <= tol_w || lo == hi),
                // Pinned at zero: valid while the true bounds pin it there too.
                Set::Fixed => x == 0.0 && lo == hi,
                // Parked (dependent row) at its value: valid while in bounds with zero slack.
                Set::Parked => x >= lo - tol_x && x <= hi + tol_x && w.abs() <= tol_w,
                Set::Unseen => false,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{DantzigOptions, DantzigSolver};
    use crate::json::parse_problem;

    /// The low-rank coupled solve must be as good as the dense one it replaces. The problem
    /// is the island LCP the engine's exact stepper assembled for a 4-row pyramid of boxes
    /// (captured, as in bench/peers): its cold solve settles the friction of the sliding
    /// contacts at the pyramid's edges through the coupled solve.
    #[test]
    fn low_rank_and_dense_coupled_solves_both_solve_a_pyramid() {
        let text = include_str!("../../tests/data/s1_pyramid_4.json");
        let problem = parse_problem(text).unwrap().into_boxed().unwrap();
        let mut answers = Vec::new();
        for dense in [false, true] {
            let mut solver = DantzigSolver::new();
            solver.dense_coupled_only = dense;
            let report = solver
                .solve(&problem, &DantzigOptions::default(), None)
                .unwrap();
            assert!(
                report.status.is_solved() && report.residual.max() <= 1e-9,
                "dense {dense}: {:?} {:?}",
                report.status,
                report.residual
            );
            assert_eq!(solver.low_rank_solves > 0, !dense, "dense {dense}");
            answers.push(report.x);
        }
        // Both ways reach the same solution (the friction is settled on the same sets).
        let scale = answers[1].iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let gap = answers[0]
            .iter()
            .zip(&answers[1])
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(gap <= 1e-8 * scale, "gap {gap} of {scale}");
    }
}
