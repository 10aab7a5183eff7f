//! The principal pivoting pass: drive each index in turn into a valid state while keeping
//! every earlier index valid (Cottle and Dantzig; Baraff 1994; ODE's `dSolveLCP`).
//!
//! Index sets: C (clamped, `w = 0`, factored in `L D L^T`), N (at a bound, `x` fixed,
//! `w` of the right sign), Fixed (`lo = hi`: never switched, as in ODE) and Parked (an
//! interior row whose column is linearly dependent on C, so it can neither enter C nor
//! sit at a bound; `x = 0` satisfies it while `w` stays zero, and it is re-examined at the
//! end of the pass).
//!
//! Driving index `i` in direction `dir`: `dx_C = -dir A_CC^-1 A_Ci`, `dw = A dx + dir A_i`,
//! and the step `s` is the largest that keeps every index valid (the six cases of ODE's
//! `dSolveLCP`).
//! Degeneracy is handled by (1) sign tests with tolerances relative to the problem's scale,
//! so that round-off never produces a negative step; (2) zero steps allowed, with ties broken
//! towards finishing the driving index and otherwise towards the smallest index (Bland's
//! rule) so that degenerate pivots do not cycle; (3) a pivot budget as the last guard.

use super::{DantzigSolver, Set};
use crate::matrix::{dot, max_abs};
use crate::problem::BoxedLcp;
use crate::report::Status;

/// Which event limits the step.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Event {
    /// `w_i` reaches zero: `i` joins C.
    DriveToZero,
    /// `x_i` reaches its lower bound.
    DriveToLower,
    /// `x_i` reaches its upper bound.
    DriveToUpper,
    /// `w_k` of an index in N reaches zero: `k` moves to C.
    EnterC(usize),
    /// `x_k` of an index in C reaches its lower bound.
    LeaveCLower(usize),
    /// `x_k` of an index in C reaches its upper bound.
    LeaveCUpper(usize),
}

impl Event {
    /// Tie-break key: events that finish the driving index first, then the smallest index.
    fn key(self) -> (u8, usize) {
        match self {
            Event::DriveToZero | Event::DriveToLower | Event::DriveToUpper => (0, 0),
            Event::EnterC(k) | Event::LeaveCLower(k) | Event::LeaveCUpper(k) => (1, k),
        }
    }
}

/// The smallest step so far and the event behind it.
struct RatioTest {
    step: f64,
    event: Option<Event>,
}

impl RatioTest {
    fn offer(&mut self, step: f64, event: Event) {
        // Round-off can make a blocking index look already past its limit: that is a zero
        // step, never a negative one.
        let step = step.max(0.0);
        let tie = (step - self.step).abs() <= 1e-12 * step.max(self.step.min(f64::MAX));
        let better = match self.event {
            None => true,
            Some(current) => {
                if tie {
                    event.key() < current.key()
                } else {
                    step < self.step
                }
            }
        };
        if better {
            self.step = step;
            self.event = Some(event);
        }
    }
}

impl DantzigSolver {
    /// One full pass over all indices from scratch. Each friction row takes its bounds from
    /// its normal force at the moment it is driven (normal rows come first in `order`, so
    /// that force is already solved, and it includes what the friction rows driven before
    /// moved it by): a better start than bounds frozen when the first friction row is
    /// reached (ODE's rule), though still not the final normals, which the friction passes
    /// of `solve_prepared` settle.
    pub(super) fn cold_pass(&mut self, p: &BoxedLcp) -> Result<(), Status> {
        let n = p.len();
        self.clear_sets(n);
        let factored = self.factor_unbounded_block(p);
        for k in factored..n {
            let i = self.order[k];
            if let Some(j) = p.findex[i] {
                self.set_friction_bound(p, i, j);
            }
            self.drive(p, i)?;
        }
        self.revisit_parked(p)
    }

    /// Bounds of friction row `t` from the current force of its normal row `j`.
    pub(super) fn set_friction_bound(&mut self, p: &BoxedLcp, t: usize, j: usize) {
        let h = (p.hi[t] * self.x[j]).abs();
        self.lo[t] = -h;
        self.hi[t] = h;
    }

    /// ODE's start: the leading unbounded rows (`order` lists them first) enter C one after
    /// the other with one forward substitution each, and `x_C = A_CC^-1 b_C` is solved once
    /// at the end. Driving them one by one would give the same `x` (nothing bounds them, so
    /// each drive ends with `w_i = 0`) but pay a back substitution and a slack update per
    /// row. Stops at the first row whose pivot is singular (it depends on the rows before
    /// it), which the ordinary drive then parks. Returns how many rows of `order` it took.
    fn factor_unbounded_block(&mut self, p: &BoxedLcp) -> usize {
        let n = p.len();
        let mut taken = 0;
        // C is 0, 1, .., taken - 1 here (`order` starts with 0..nub), so A_Ci is the start of
        // row i, and the clamped-column copy is filled once at the end.
        while taken < p.nub {
            let i = self.order[taken];
            debug_assert_eq!(i, taken);
            let nc = taken;
            self.y[..nc].copy_from_slice(&p.a.row(i)[..nc]);
            self.ldl.forward(&mut self.y[..nc]);
            let aii = p.a[(i, i)];
            let schur = self.ldl.schur_complement(&self.y[..nc], aii);
            // A NaN pivot fails this test too and leaves the row to the ordinary drive.
            let regular = schur > self.pivot_tolerance * aii.abs().max(f64::MIN_POSITIVE);
            if !regular {
                break;
            }
            self.ldl.append(&self.y[..nc], schur);
            self.c_list.push(i);
            self.slot_of.push(taken);
            self.set[i] = Set::Clamped;
            taken += 1;
        }
        self.slots_used = taken;
        if taken < n && !self.rows.is_sparse() {
            for r in 0..n {
                self.clamped_columns[r * n..r * n + taken].copy_from_slice(&p.a.row(r)[..taken]);
            }
        }
        let nc = self.c_list.len();
        for (c, &k) in self.c_list.iter().enumerate() {
            self.y[c] = p.b[k];
        }
        self.ldl.solve(&mut self.y[..nc]);
        for (c, &k) in self.c_list.iter().enumerate() {
            self.x[k] = self.y[c];
            self.w[k] = 0.0;
        }
        taken
    }

    /// Bounds of every friction row from the current normal forces (`0 * inf = 0`: a row
    /// whose normal force is zero gets `lo = hi = 0`).
    pub(super) fn set_friction_bounds(&mut self, p: &BoxedLcp) {
        for t in 0..p.len() {
            if let Some(j) = p.findex[t] {
                self.set_friction_bound(p, t, j);
            }
        }
    }

    /// Re-drives parked rows whose slack moved away from zero when C changed under them.
    pub(super) fn revisit_parked(&mut self, p: &BoxedLcp) -> Result<(), Status> {
        for _round in 0..p.len() + 1 {
            let mut changed = false;
            let mut k = 0;
            while k < self.parked.len() {
                let i = self.parked[k];
                let wi = dot(p.a.row(i), &self.x[..p.len()]) - p.b[i];
                if wi.abs() > self.w_tolerance(p) {
                    self.parked.swap_remove(k);
                    self.set[i] = Set::Unseen;
                    self.drive(p, i)?;
                    changed = true;
                } else {
                    k += 1;
                }
            }
            if !changed {
                return Ok(());
            }
        }
        Err(Status::PivotLimit)
    }

    /// Slack tolerance relative to the problem's current scale.
    pub(super) fn w_tolerance(&self, p: &BoxedLcp) -> f64 {
        let x_inf = max_abs(&self.x[..p.len()]);
        self.tolerance * self.b_inf.max(self.a_max * x_inf).max(f64::MIN_POSITIVE)
    }

    /// Brings index `i` (not in C or N) into a valid state, moving others as needed. `x_i`
    /// starts from its current value: zero for an unseen index, the parked value otherwise.
    pub(super) fn drive(&mut self, p: &BoxedLcp, i: usize) -> Result<(), Status> {
        let n = p.len();
        let (lo, hi) = (self.lo[i], self.hi[i]);
        if lo == hi {
            // ODE's rule: rows pinned at lo = hi (friction under a zero normal force) are never
            // switched; their w is irrelevant.
            self.x[i] = lo;
            self.set[i] = Set::Fixed;
            return Ok(());
        }
        let tol_w = self.w_tolerance(p);
        self.w[i] = dot(p.a.row(i), &self.x[..n]) - p.b[i];
        let wi = self.w[i];
        let xi = self.x[i];
        if xi == lo && wi >= -tol_w {
            self.push_n(i, Set::Lower);
            return Ok(());
        }
        if xi == hi && wi <= tol_w {
            self.push_n(i, Set::Upper);
            return Ok(());
        }
        if wi.abs() <= tol_w {
            self.settle_interior(p, i);
            return Ok(());
        }
        let dir = if wi < 0.0 { 1.0 } else { -1.0 };
        loop {
            self.pivots += 1;
            if self.pivots > self.max_pivots {
                return Err(Status::PivotLimit);
            }
            // Degenerate steps can bring w_i to zero without that being the limiting event
            // (its own pivot may be singular): then it is done, interior.
            if self.w[i] * dir >= -self.w_tolerance(p) {
                self.settle_interior(p, i);
                return Ok(());
            }
            let nc = self.gather_forward(p, i);
            let aii = p.a[(i, i)];
            let schur = self.ldl.schur_complement(&self.y[..nc], aii);
            // dx_C = -dir A_CC^-1 A_Ci
            self.dx[..nc].copy_from_slice(&self.y[..nc]);
            self.ldl.finish_solve(&mut self.dx[..nc]);
            for v in &mut self.dx[..nc] {
                *v *= -dir;
            }
            let dwi = dir * schur;
            let dx_inf = max_abs(&self.dx[..nc]).max(1.0);
            self.slack_changes_of_n(p, i, dir);

            let mut test = RatioTest {
                step: f64::INFINITY,
                event: None,
            };
            if schur > self.pivot_tolerance * aii.abs().max(f64::MIN_POSITIVE) {
                test.offer(-self.w[i] / dwi, Event::DriveToZero);
            }
            if dir > 0.0 && hi.is_finite() {
                test.offer(hi - self.x[i], Event::DriveToUpper);
            }
            if dir < 0.0 && lo.is_finite() {
                test.offer(self.x[i] - lo, Event::DriveToLower);
            }
            let dx_tol = 1e-13 * dx_inf;
            for (c, &k) in self.c_list.iter().enumerate() {
                let d = self.dx[c];
                if d < -dx_tol && self.lo[k].is_finite() {
                    test.offer((self.lo[k] - self.x[k]) / d, Event::LeaveCLower(k));
                } else if d > dx_tol && self.hi[k].is_finite() {
                    test.offer((self.hi[k] - self.x[k]) / d, Event::LeaveCUpper(k));
                }
            }
            let dw_tol = 1e-13 * self.a_max * dx_inf;
            for &k in &self.n_list {
                let d = self.dw[k];
                let blocks = match self.set[k] {
                    Set::Lower => d < -dw_tol,
                    Set::Upper => d > dw_tol,
                    _ => false,
                };
                if blocks {
                    test.offer(-self.w[k] / d, Event::EnterC(k));
                }
            }
            let Some(event) = test.event else {
                // Nothing limits the step: the sub-problem has no solution along this ray.
                return Err(Status::PivotFailure);
            };
            let s = test.step;
            if !s.is_finite() {
                return Err(Status::NonFinite);
            }
            for (c, &k) in self.c_list.iter().enumerate() {
                self.x[k] += s * self.dx[c];
            }
            self.x[i] += s * dir;
            for &k in &self.n_list {
                self.w[k] += s * self.dw[k];
            }
            self.w[i] += s * dwi;

            match event {
                Event::DriveToZero => {
                    self.w[i] = 0.0;
                    self.push_c(p, i, schur);
                    return Ok(());
                }
                Event::DriveToLower => {
                    self.x[i] = lo;
                    self.push_n(i, Set::Lower);
                    return Ok(());
                }
                Event::DriveToUpper => {
                    self.x[i] = hi;
                    self.push_n(i, Set::Upper);
                    return Ok(());
                }
                Event::EnterC(k) => {
                    self.w[k] = 0.0;
                    self.remove_n(k);
                    let nc = self.gather_forward(p, k);
                    let akk = p.a[(k, k)];
                    let mut schur_k = self.ldl.schur_complement(&self.y[..nc], akk);
                    let floor = self.pivot_tolerance * akk.abs().max(f64::MIN_POSITIVE);
                    if schur_k <= floor {
                        // Round-off let a dependent index through: regularise its pivot, an
                        // automatic CFM of relative size `pivot_tolerance`.
                        schur_k = floor;
                        self.regularised += 1;
                    }
                    self.push_c(p, k, schur_k);
                }
                Event::LeaveCLower(k) => {
                    self.x[k] = self.lo[k];
                    self.remove_c(k);
                    self.push_n(k, Set::Lower);
                }
                Event::LeaveCUpper(k) => {
                    self.x[k] = self.hi[k];
                    self.remove_c(k);
                    self.push_n(k, Set::Upper);
                }
            }
        }
    }

    /// `dw_N = A_NC dx_C + dir A_Ni`: through the nonzeros of each row when `A` is sparse
    /// (contact problems couple a row only with the contacts of its two bodies), else as
    /// dense products with the clamped columns.
    fn slack_changes_of_n(&mut self, p: &BoxedLcp, i: usize, dir: f64) {
        let n = p.len();
        let nc = self.c_list.len();
        if self.rows.is_sparse() {
            // dx scattered to full length: zero outside C, so each row's sum over its
            // nonzeros is its product with dx_C.
            for (&k, &d) in self.c_list.iter().zip(&self.dx[..nc]) {
                self.dx_full[k] = d;
            }
            for &k in &self.n_list {
                self.dw[k] = dir * p.a[(k, i)] + self.rows.row_dot(k, &self.dx_full);
            }
            for &k in &self.c_list {
                self.dx_full[k] = 0.0;
            }
            return;
        }
        let used = self.slots_used;
        self.dx_slots[..used].fill(0.0);
        for (&slot, &d) in self.slot_of.iter().zip(&self.dx[..nc]) {
            self.dx_slots[slot] = d;
        }
        for &k in &self.n_list {
            let clamped = &self.clamped_columns[k * n..k * n + used];
            self.dw[k] = dir * p.a[(k, i)] + dot(clamped, &self.dx_slots[..used]);
        }
    }

    /// Index `i` has `w_i = 0` (to tolerance) strictly inside its bounds: it joins C if its
    /// pivot is regular, and is parked at its current value if its row depends on C.
    fn settle_interior(&mut self, p: &BoxedLcp, i: usize) {
        let nc = self.gather_forward(p, i);
        let aii = p.a[(i, i)];
        let schur = self.ldl.schur_complement(&self.y[..nc], aii);
        if schur > self.pivot_tolerance * aii.abs().max(f64::MIN_POSITIVE) {
            self.w[i] = 0.0;
            self.push_c(p, i, schur);
        } else {
            self.set[i] = Set::Parked;
            self.parked.push(i);
        }
    }

    /// `y = L^-1 A_Ck` for the current C; returns |C|.
    fn gather_forward(&mut self, p: &BoxedLcp, k: usize) -> usize {
        let n = p.len();
        let nc = self.c_list.len();
        if self.rows.is_sparse() {
            // The clamped columns are not kept for sparse rows (see `push_c`).
            let row = p.a.row(k);
            for (yc, &c) in self.y[..nc].iter_mut().zip(&self.c_list) {
                *yc = row[c];
            }
        } else {
            debug_assert_eq!(self.slot_of.len(), nc, "pivoting keeps every clamped slot");
            let row = &self.clamped_columns[k * n..k * n + self.slots_used];
            for (yc, &slot) in self.y[..nc].iter_mut().zip(&self.slot_of) {
                *yc = row[slot];
            }
        }
        self.ldl.forward(&mut self.y[..nc]);
        nc
    }

    /// Appends `k` to C, given `y = L^-1 A_Ck` in `self.y` and its pivot.
    fn push_c(&mut self, p: &BoxedLcp, k: usize, pivot: f64) {
        let n = p.len();
        let nc = self.c_list.len();
        self.ldl.append(&self.y[..nc], pivot);
        let slot = self.free_slots.pop().unwrap_or_else(|| {
            self.slots_used += 1;
            self.slots_used - 1
        });
        // Column k of A is row k (A is symmetric). Sparse rows take their products from
        // the nonzeros instead, so the strided copy is skipped.
        if !self.rows.is_sparse() {
            for (r, &a) in p.a.row(k).iter().enumerate() {
                self.clamped_columns[r * n + slot] = a;
            }
        }
        self.c_list.push(k);
        self.slot_of.push(slot);
        self.set[k] = Set::Clamped;
    }

    pub(super) fn remove_c(&mut self, k: usize) {
        let pos = self
            .c_list
            .iter()
            .position(|&c| c == k)
            .expect("index in C is in the C list");
        self.ldl.remove(pos);
        self.c_list.remove(pos);
        let slot = self.slot_of.remove(pos);
        self.free_slots.push(slot);
    }

    fn push_n(&mut self, k: usize, set: Set) {
        self.set[k] = set;
        self.n_list.push(k);
    }

    pub(super) fn remove_n(&mut self, k: usize) {
        let pos = self
            .n_list
            .iter()
            .position(|&c| c == k)
            .expect("index in N is in the N list");
        self.n_list.swap_remove(pos);
    }
}
