//! The projection step of an island with one-sided rows, solved directly: the sign
//! constraints (a contact can only push) are resolved by an active set, and each trial set
//! is one envelope `L D L^T` solve ([`Skyline`]), as all-bilateral islands already get.
//!
//! The position-level problem is the LCP
//!
//! ```text
//! r = C + A mu,   A = J M^-1 J^T (+ a tiny regulariser)
//! bilateral rows: r = 0;   rows that push: mu >= 0, r >= 0, mu r = 0
//! ```
//!
//! (rows that pull mirror the signs). Starting from the rows that violate their bound
//! (bilateral rows and penetrating contacts), each round solves `A_SS mu_S = -C_S` for the
//! set `S`, drops the one-sided rows whose `mu` took the wrong sign and adds the rows left
//! out whose linearised error `r` is still violated by more than a margin. The margin (half
//! the projection tolerance) makes a row that the solve leaves exactly at contact stay out,
//! so the rounds do not cycle on redundant coplanar contacts. A stack of boxes settles in
//! one or two rounds where 50 Gauss-Seidel sweeps do not converge
//! (docs/performance.md#post-stabilisation-cost).
//!
//! The envelope of a set follows its rows' order: for a long chain or a stack listed top to
//! bottom it is a band of a few rows, but a wide pile can make it nearly dense. The solve
//! therefore estimates its factorisation work first and declines ([`Outcome::TooCostly`])
//! when it would exceed a budget, leaving the island to Gauss-Seidel.

use super::{violation, PIVOT_FLOOR};
use crate::math::Vec3;
use crate::rows::hot::Pair;
use crate::rows::RowStorage;
use crate::solver::envelope::{EnvelopeBuilder, EnvelopeRows, Skyline};
use crate::solver::sparse::{dot4, scatter, RowMass};
use std::ops::Range;

/// Relative regularisation of the set's diagonal. Coplanar contacts (four corners of a
/// resting box face) make `A_SS` singular; with this the solve picks the small-norm split
/// among them instead of one with huge cancelling multipliers, and leaves a relative error
/// of about this size for the next pass.
const SET_REGULARIZATION: f64 = 1e-6;

/// Rounds of the active set before the island is handed to Gauss-Seidel (warm-started
/// from the last round's `mu`, clamped to its signs).
const MAX_ROUNDS: usize = 8;

/// How a direct solve of one island ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    /// The set settled: `mu` solves the LCP above and `M^-1 J^T mu` is in the accumulators.
    Settled,
    /// The rounds ran out; `mu` holds the last round's values with wrong signs zeroed and
    /// the accumulators are clean.
    Unsettled,
    /// The factorisation would cost more than the budget; nothing was computed.
    TooCostly,
}

/// Buffers of the active-set solve, reused between islands and steps.
#[derive(Debug, Clone, Default)]
pub(super) struct ActiveSet {
    /// Per island row: whether it is in the set.
    active: Vec<bool>,
    /// Island-local indices of the set's rows, in island order.
    members: Vec<usize>,
    /// Scratch of the set's envelope factorisation.
    envelope: EnvelopeBuilder,
    /// The set's right-hand side, then its `mu`.
    solution: Vec<f64>,
    /// Per island row: the multiplier (zero outside the set).
    pub(super) mu: Vec<f64>,
    skyline: Skyline,
}

/// What one island's solve reads.
pub(super) struct Island<'a> {
    pub(super) rows: &'a RowStorage,
    pub(super) mass: &'a RowMass,
    pub(super) range: Range<usize>,
    pub(super) bodies: &'a [u32],
    pub(super) dynamic: &'a [bool],
}

impl ActiveSet {
    /// Solves island `island` for `mu`, leaving `M^-1 J^T mu` in `cache` (indexed by body
    /// slot; the island's entries must be zero on entry) when the set settles. `margin`
    /// (> 0, in the rows' units) is how far a left-out row's linearised error may violate
    /// its bound; `budget` bounds the multiply-adds of one factorisation.
    #[inline(always)]
    pub(super) fn solve(
        &mut self,
        island: &Island,
        cache: &mut [Pair],
        margin: f64,
        budget: usize,
    ) -> Outcome {
        let Island {
            rows,
            range,
            bodies,
            ..
        } = island;
        let n = range.len();
        self.active.clear();
        self.active.extend(range.clone().map(|i| {
            let (c, lo, hi) = (rows.error[i], rows.lo[i], rows.hi[i]);
            is_bilateral(lo, hi) || violation(c, lo, hi) > 0.0
        }));
        self.mu.clear();
        self.mu.resize(n, 0.0);
        for round in 0..MAX_ROUNDS {
            if self.factor(island, budget).is_none() {
                return if round == 0 {
                    Outcome::TooCostly
                } else {
                    self.clamp(island);
                    Outcome::Unsettled
                };
            }
            self.solution.clear();
            self.solution
                .extend(self.members.iter().map(|&i| -rows.error[range.start + i]));
            self.skyline.solve(&mut self.solution);
            self.mu.fill(0.0);
            for (&i, &mu) in self.members.iter().zip(&self.solution) {
                self.mu[i] = mu;
                scatter(
                    cache,
                    rows.bodies[range.start + i],
                    &island.mass.imj[range.start + i],
                    mu,
                );
            }
            if !self.update_set(island, cache, margin) {
                return Outcome::Settled;
            }
            for &s in bodies.iter() {
                cache[s as usize] = [Vec3::ZERO; 2];
            }
        }
        self.clamp(island);
        Outcome::Unsettled
    }

    /// Lists the set's rows, sizes their envelope and factors `A_SS`; `None` (nothing
    /// factored) if the factorisation would exceed `budget` multiply-adds.
    #[inline(always)]
    fn factor(&mut self, island: &Island, budget: usize) -> Option<()> {
        self.members.clear();
        self.members
            .extend((0..island.range.len()).filter(|&i| self.active[i]));
        let (start, members) = (island.range.start, &self.members);
        let rows = EnvelopeRows {
            rows: island.rows,
            mass: island.mass,
            count: members.len(),
            start,
            members: Some(members),
            island_bodies: island.bodies,
            dynamic: island.dynamic,
        };
        let regularized = |_, diagonal: f64| diagonal * (1.0 + SET_REGULARIZATION);
        self.envelope
            .factor(&mut self.skyline, &rows, regularized, budget, PIVOT_FLOOR)
            .map(|_| ())
    }

    /// Drops set rows whose `mu` has the wrong sign and adds left-out rows whose linearised
    /// error `C + (A mu)` violates their bound by more than `margin`. Returns whether the
    /// set changed.
    #[inline(always)]
    fn update_set(&mut self, island: &Island, cache: &[Pair], margin: f64) -> bool {
        let Island { rows, range, .. } = island;
        let mut changed = false;
        for i in 0..range.len() {
            let g = range.start + i;
            let (lo, hi) = (rows.lo[g], rows.hi[g]);
            if is_bilateral(lo, hi) {
                continue;
            }
            if self.active[i] {
                let mu = self.mu[i];
                if (lo >= 0.0 && mu < 0.0) || (hi <= 0.0 && mu > 0.0) {
                    self.active[i] = false;
                    changed = true;
                }
            } else {
                let [a, b] = rows.bodies[g];
                let moved = dot4(
                    &rows.jacobian[g],
                    &[
                        cache[a as usize][0],
                        cache[a as usize][1],
                        cache[b as usize][0],
                        cache[b as usize][1],
                    ],
                );
                if violation(rows.error[g] + moved, lo, hi) > margin {
                    self.active[i] = true;
                    changed = true;
                }
            }
        }
        changed
    }

    /// Zeroes the multipliers of wrong sign (a feasible warm start for Gauss-Seidel).
    #[inline(always)]
    fn clamp(&mut self, island: &Island) {
        let Island { rows, range, .. } = island;
        for (i, mu) in self.mu.iter_mut().enumerate() {
            let g = range.start + i;
            *mu = mu.max(lo_sign(rows.lo[g])).min(hi_sign(rows.hi[g]));
        }
    }
}

/// A row whose multiplier may take either sign (a joint's equality).
fn is_bilateral(lo: f64, hi: f64) -> bool {
    lo < 0.0 && hi > 0.0
}

/// The lower bound of a multiplier: its sign kept, its size dropped.
fn lo_sign(lo: f64) -> f64 {
    if lo < 0.0 {
        f64::NEG_INFINITY
    } else {
        0.0
    }
}

/// The upper bound of a multiplier: its sign kept, its size dropped.
fn hi_sign(hi: f64) -> f64 {
    if hi > 0.0 {
        f64::INFINITY
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Mat3;
    use crate::rows::{JacobianRow, Pose, Row, Softness};

    const Z: Vec3 = Vec3::Z;
    /// Slots: bodies 0 and 1 (unit mass), 2 the ground.
    const GROUND: u32 = 2;

    /// A contact row (pushes only) between `a` and `b` along z with error `c`: `J d` is
    /// `d_a.z - d_b.z`.
    fn contact(rows: &mut RowStorage, a: u32, b: u32, c: f64) {
        let mut w = rows.writer([a, b], [Pose::IDENTITY; 2], Softness::DEFAULT, false);
        let jacobian = JacobianRow {
            linear_a: Z,
            linear_b: -Z,
            ..JacobianRow::default()
        };
        w.push(Row::equality(jacobian, c).bounded(0.0, f64::INFINITY));
    }

    /// Solves the island of all `rows` over bodies 0 and 1; returns the outcome, the
    /// multipliers and the bodies' z displacements.
    fn solve(rows: &RowStorage) -> (Outcome, Vec<f64>, [f64; 2]) {
        let mut mass = RowMass::default();
        mass.compute(
            rows,
            &[1.0, 1.0, 0.0],
            &[Mat3::IDENTITY, Mat3::IDENTITY, Mat3::ZERO],
        );
        let island = Island {
            rows,
            mass: &mass,
            range: 0..rows.len(),
            bodies: &[0, 1],
            dynamic: &[true, true, false],
        };
        let mut cache = vec![[Vec3::ZERO; 2]; 3];
        let mut set = ActiveSet::default();
        let outcome = set.solve(&island, &mut cache, 1e-9, usize::MAX);
        (outcome, set.mu.clone(), [cache[0][0].z, cache[1][0].z])
    }

    #[test]
    fn a_contact_the_correction_closes_joins_the_set() {
        // Body 0 sinks 1 cm into the ground; body 1 floats 5 mm above it. Lifting body 0
        // alone would push it 5 mm into body 1, so both rows end active:
        // d0 = 0.01 (ground row exact), d1 - d0 = -0.005 (the gap closed exactly).
        let mut rows = RowStorage::default();
        contact(&mut rows, 0, GROUND, -0.01);
        contact(&mut rows, 1, 0, 0.005);
        let (outcome, mu, d) = solve(&rows);
        assert_eq!(outcome, Outcome::Settled);
        // A = [[1, -1], [-1, 2]], A mu = (0.01, -0.005): mu = (0.015, 0.005).
        assert!(
            (mu[0] - 0.015).abs() < 1e-7 && (mu[1] - 0.005).abs() < 1e-7,
            "{mu:?}"
        );
        assert!(
            (d[0] - 0.01).abs() < 1e-7 && (d[1] - 0.005).abs() < 1e-7,
            "{d:?}"
        );
    }

    #[test]
    fn a_row_that_would_pull_leaves_the_set() {
        // Body 1 rests on body 0 (2 cm deep) and barely touches the ground beside it
        // (1 mm deep). Both bodies must rise: body 0 by 1 cm, body 1 by 3 cm, which clears
        // body 1's ground contact, so that row must end with mu = 0 (a solve of all three
        // rows as equalities would pull body 1 down onto the ground).
        let mut rows = RowStorage::default();
        contact(&mut rows, 0, GROUND, -0.01);
        contact(&mut rows, 1, 0, -0.02);
        contact(&mut rows, 1, GROUND, -0.001);
        let (outcome, mu, d) = solve(&rows);
        assert_eq!(outcome, Outcome::Settled);
        assert_eq!(mu[2], 0.0);
        assert!(mu[0] > 0.0 && mu[1] > 0.0, "{mu:?}");
        assert!(
            (d[0] - 0.01).abs() < 1e-7 && (d[1] - 0.03).abs() < 1e-7,
            "{d:?}"
        );
    }

    #[test]
    fn a_separated_contact_is_left_alone() {
        let mut rows = RowStorage::default();
        contact(&mut rows, 0, GROUND, -0.01);
        contact(&mut rows, 1, 0, 0.02);
        let (outcome, mu, d) = solve(&rows);
        assert_eq!(outcome, Outcome::Settled);
        assert_eq!(mu[1], 0.0);
        assert!((d[0] - 0.01).abs() < 1e-7 && d[1] == 0.0, "{d:?}");
    }

    #[test]
    fn an_island_over_budget_is_declined_untouched() {
        let mut rows = RowStorage::default();
        contact(&mut rows, 0, GROUND, -0.01);
        contact(&mut rows, 1, 0, -0.02);
        contact(&mut rows, 1, GROUND, -0.001);
        let mut mass = RowMass::default();
        mass.compute(
            &rows,
            &[1.0, 1.0, 0.0],
            &[Mat3::IDENTITY, Mat3::IDENTITY, Mat3::ZERO],
        );
        let island = Island {
            rows: &rows,
            mass: &mass,
            range: 0..rows.len(),
            bodies: &[0, 1],
            dynamic: &[true, true, false],
        };
        let mut cache = vec![[Vec3::ZERO; 2]; 3];
        let outcome = ActiveSet::default().solve(&island, &mut cache, 1e-9, 0);
        assert_eq!(outcome, Outcome::TooCostly);
        assert!(cache
            .iter()
            .all(|p| p[0] == Vec3::ZERO && p[1] == Vec3::ZERO));
    }
}
