//! Later friction passes: continue from the previous pass instead of starting over.
//!
//! After a pass, the friction bounds move to the latest normal forces. Most indices stay
//! valid under the new bounds (a settled stack changes few contacts' state), so the index
//! sets and the factorisation of `A_CC` are kept: the friction rows at a bound move with
//! it, the clamped values are re-solved from the factorisation, and only the indices this
//! made invalid (a clamped value outside its bounds, a slack of the wrong sign) are taken
//! out of the sets and driven again. A pass then costs a few pivots instead of all of them.

use super::{DantzigSolver, Set};
use crate::matrix::{dot, max_abs};
use crate::problem::BoxedLcp;
use crate::report::Status;

impl DantzigSolver {
    /// Moves the friction bounds to the current normal forces and repairs the index sets
    /// (see the module documentation). Needs the sets and factorisation of a finished pass
    /// or of a missed warm start.
    pub(super) fn repair_pass(&mut self, p: &BoxedLcp) -> Result<(), Status> {
        let n = p.len();
        self.set_friction_bounds(p);
        for t in 0..n {
            if p.findex[t].is_none() {
                continue;
            }
            let pinned = self.lo[t] == self.hi[t];
            match self.set[t] {
                // A zero normal force pins its friction at zero; an opened box frees it.
                Set::Fixed if !pinned => self.make_stale(t, 0.0),
                Set::Clamped if pinned => {
                    self.remove_c(t);
                    self.pin(t);
                }
                Set::Lower | Set::Upper if pinned => {
                    self.remove_n(t);
                    self.pin(t);
                }
                Set::Parked if pinned => {
                    if let Some(k) = self.parked.iter().position(|&r| r == t) {
                        self.parked.swap_remove(k);
                    }
                    self.pin(t);
                }
                _ => {}
            }
        }
        // A guessed set may put an index at a bound it does not have (a warm start from
        // another problem's sets): it is driven again from zero (inside its bounds).
        let mut m = 0;
        while m < self.n_list.len() {
            let k = self.n_list[m];
            let bound = if self.set[k] == Set::Lower {
                self.lo[k]
            } else {
                self.hi[k]
            };
            if bound.is_finite() {
                m += 1;
            } else {
                self.n_list.swap_remove(m);
                self.make_stale(k, 0.0);
            }
        }
        // Each round takes at least one index out of C or N, so n + 1 rounds always suffice.
        for _round in 0..=n {
            self.solve_clamped_from_sets(p);
            if !self.take_out_invalid(p) {
                break;
            }
        }
        // Drive the stale indices in the pass order (unbounded, ordinary, friction rows).
        for k in 0..n {
            let i = self.order[k];
            if self.set[i] == Set::Unseen {
                self.drive(p, i)?;
            }
        }
        self.revisit_parked(p)
    }

    /// Takes `k` out of every set, holding `x_k` at `value` until it is driven again.
    fn make_stale(&mut self, k: usize, value: f64) {
        self.set[k] = Set::Unseen;
        self.x[k] = value;
    }

    /// Friction row `t` under a zero normal force: pinned at zero, never switched.
    fn pin(&mut self, t: usize) {
        self.set[t] = Set::Fixed;
        self.x[t] = self.lo[t];
    }

    /// `x_N` at its bounds, `x_C = A_CC^-1 (b_C - A_C,rest x_rest)` from the factorisation
    /// (with one round of refinement), and every slack recomputed.
    fn solve_clamped_from_sets(&mut self, p: &BoxedLcp) {
        let n = p.len();
        let nc = self.c_list.len();
        for &k in &self.n_list {
            self.x[k] = if self.set[k] == Set::Lower {
                self.lo[k]
            } else {
                self.hi[k]
            };
        }
        for &k in &self.c_list {
            self.x[k] = 0.0;
        }
        for _ in 0..2 {
            self.clamped_residual_into_y(p);
            self.ldl.solve(&mut self.y[..nc]);
            self.add_y_to_clamped();
        }
        for k in 0..n {
            self.w[k] = dot(p.a.row(k), &self.x[..n]) - p.b[k];
        }
        for &k in &self.c_list {
            self.w[k] = 0.0;
        }
    }

    /// Takes every index of C whose value left its bounds, and every index of N whose slack
    /// has the wrong sign, out of its set (held at its value clipped to the bounds, to be
    /// driven again). Returns whether any was taken out.
    fn take_out_invalid(&mut self, p: &BoxedLcp) -> bool {
        let n = p.len();
        let tol_x = self.tolerance * max_abs(&self.x[..n]).max(f64::MIN_POSITIVE);
        let tol_w = self.w_tolerance(p);
        let mut taken = false;
        let mut c = 0;
        while c < self.c_list.len() {
            let k = self.c_list[c];
            let x = self.x[k];
            if x.is_finite() && x >= self.lo[k] - tol_x && x <= self.hi[k] + tol_x {
                c += 1;
                continue;
            }
            self.remove_c(k);
            // max/min rather than clamp: no panic on a NaN bound.
            let held = if x.is_finite() {
                x.max(self.lo[k]).min(self.hi[k])
            } else {
                0.0
            };
            self.make_stale(k, held);
            taken = true;
        }
        let mut m = 0;
        while m < self.n_list.len() {
            let k = self.n_list[m];
            let wrong = match self.set[k] {
                Set::Lower => self.w[k] < -tol_w,
                Set::Upper => self.w[k] > tol_w,
                _ => false,
            };
            if !wrong {
                m += 1;
                continue;
            }
            self.n_list.swap_remove(m);
            let held = self.x[k];
            self.make_stale(k, held);
            taken = true;
        }
        taken
    }
}
