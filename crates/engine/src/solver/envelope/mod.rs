//! `L D L^T` of an island's `J M^-1 J^T` by its envelope ([`Skyline`]): the direct solve of
//! post-stabilisation's Newton steps and of the steppers' all-bilateral islands (joint
//! chains and trees without active limits or motors).
//!
//! Row `i`'s envelope starts at the first earlier row sharing a dynamic body with it; rows
//! listed along a chain (as joints are written) give a band of a few rows, and the
//! factorisation costs `O(n w^2)`. [`EnvelopeBuilder::factor`] estimates that work first
//! and declines an island whose ordering makes it dense.

mod skyline;

pub(crate) use skyline::Skyline;

use crate::rows::RowStorage;
use crate::solver::sparse::{coupling, RowMass};

/// Scratch of [`EnvelopeBuilder::factor`], reused between islands and steps.
#[derive(Debug, Clone, Default)]
pub(crate) struct EnvelopeBuilder {
    /// Per body slot: the first row (of the rows being factored) touching it.
    first_of_body: Vec<usize>,
    /// Per row: the first column of its envelope.
    first: Vec<usize>,
    /// What `first` was last scanned from, for a consecutive island.
    last: ScannedRows,
}

/// The rows' bodies, the island's body slots and which of them were dynamic, that an
/// envelope was scanned from, and its work.
#[derive(Debug, Clone, Default)]
struct ScannedRows {
    /// Whether `first` is this scan's (no other scan since).
    valid: bool,
    bodies: Vec<[u32; 2]>,
    island_bodies: Vec<u32>,
    /// Per entry of `island_bodies`: whether it was dynamic.
    dynamic: Vec<bool>,
    work: usize,
}

impl ScannedRows {
    /// Whether `first` is the envelope of the consecutive rows on `bodies` of `rows`.
    fn matches(&self, bodies: &[[u32; 2]], rows: &EnvelopeRows<'_>) -> bool {
        self.valid
            && self.bodies == bodies
            && self.island_bodies == rows.island_bodies
            && self
                .island_bodies
                .iter()
                .zip(&self.dynamic)
                .all(|(&s, &dynamic)| rows.dynamic[s as usize] == dynamic)
    }

    fn remember(&mut self, bodies: &[[u32; 2]], rows: &EnvelopeRows<'_>, work: usize) {
        self.valid = true;
        self.bodies.clear();
        self.bodies.extend_from_slice(bodies);
        self.island_bodies.clear();
        self.island_bodies.extend_from_slice(rows.island_bodies);
        self.dynamic.clear();
        self.dynamic
            .extend(rows.island_bodies.iter().map(|&s| rows.dynamic[s as usize]));
        self.work = work;
    }
}

/// The rows one factorisation takes: `count` rows of `rows`, the `p`-th being storage row
/// `start + p`, or `start + members[p]` if `members` is given, on the dynamic bodies
/// (`dynamic`, per slot) among `island_bodies`.
pub(crate) struct EnvelopeRows<'a> {
    /// The rows' storage.
    pub rows: &'a RowStorage,
    /// Their `M^-1 J^T` and `J M^-1 J^T` diagonal, indexed like `rows`.
    pub mass: &'a RowMass,
    /// Number of rows factored.
    pub count: usize,
    /// Storage index of the first row (or of the rows `members` counts from).
    pub start: usize,
    /// The rows factored, as offsets from `start`, when they are not `count` consecutive
    /// rows (an active set's members).
    pub members: Option<&'a [usize]>,
    /// Every body slot the rows touch (to reset the scratch).
    pub island_bodies: &'a [u32],
    /// Per body slot: whether it moves (static bodies couple nothing).
    pub dynamic: &'a [bool],
}

impl EnvelopeRows<'_> {
    /// Storage index of the `p`-th row factored.
    fn row(&self, p: usize) -> usize {
        match self.members {
            Some(members) => self.start + members[p],
            None => self.start + p,
        }
    }
}

impl EnvelopeBuilder {
    /// Fills `skyline` with `J M^-1 J^T` of `rows`, each diagonal entry `a_pp` replaced by
    /// `diagonal(p, a_pp)` (the caller's regularisation), and factors it with pivot floor
    /// `floor` ([`Skyline::factor`]). Returns the number of pivots the floor raised (rows
    /// dependent on earlier ones), or `None`, leaving `skyline` unfactored, if the
    /// factorisation would cost more than `budget` multiply-adds.
    #[inline(always)]
    pub(crate) fn factor(
        &mut self,
        skyline: &mut Skyline,
        rows: &EnvelopeRows<'_>,
        diagonal: impl Fn(usize, f64) -> f64,
        budget: usize,
        floor: f64,
    ) -> Option<usize> {
        let storage = rows.rows;
        // A consecutive island on the same bodies, with the same dynamic slots, as the last
        // call's (a chain's every step and pass) has the same envelope and work: compared,
        // not scanned row by row again.
        let consecutive = rows
            .members
            .is_none()
            .then(|| &storage.bodies[rows.start..rows.start + rows.count]);
        let known = consecutive.is_some_and(|bodies| self.last.matches(bodies, rows));
        let work = if known {
            self.last.work
        } else {
            let work = self.scan(rows);
            self.last.valid = false;
            if let Some(bodies) = consecutive {
                self.last.remember(bodies, rows, work);
            }
            work
        };
        if work > budget {
            return None;
        }
        // Every entry of the envelope is written below: a skyline last used for the same
        // envelope (a chain's every step and pass) needs no reset.
        if !skyline.has_envelope(&self.first) {
            skyline.reset(&self.first);
        }
        match rows.members {
            None => {
                // Consecutive rows: every entry's operands from slices, without an index
                // (and its bounds check) per operand.
                let range = rows.start..rows.start + rows.count;
                let bodies = &storage.bodies[range.clone()];
                let imj = &rows.mass.imj[range.clone()];
                let own = &rows.mass.diagonal[range.clone()];
                let jacobians = storage.jacobian[range].iter();
                let rows_p = self.first.iter().zip(bodies).zip(jacobians).zip(own);
                for (p, (((&first, &bodies_p), jacobian), &own)) in rows_p.enumerate() {
                    let (couplings, diagonal_entry) = skyline.row_mut(p).split_at_mut(p - first);
                    let earlier = bodies[first..p].iter().zip(&imj[first..p]);
                    for (entry, (&bodies_q, imj_q)) in couplings.iter_mut().zip(earlier) {
                        *entry = coupling(bodies_p, jacobian, bodies_q, imj_q);
                    }
                    diagonal_entry[0] = diagonal(p, own);
                }
            }
            Some(_) => {
                for (p, &first) in self.first.iter().enumerate() {
                    let i = rows.row(p);
                    let (bodies, jacobian) = (storage.bodies[i], &storage.jacobian[i]);
                    let (couplings, own) = skyline.row_mut(p).split_at_mut(p - first);
                    for (q, entry) in (first..p).zip(couplings) {
                        let k = rows.row(q);
                        *entry = coupling(bodies, jacobian, storage.bodies[k], &rows.mass.imj[k]);
                    }
                    own[0] = diagonal(p, rows.mass.diagonal[i]);
                }
            }
        }
        Some(skyline.factor(floor))
    }

    /// Sets `first` to the envelope of `rows` and returns the factorisation's work estimate
    /// (multiply-adds).
    fn scan(&mut self, rows: &EnvelopeRows<'_>) -> usize {
        for &s in rows.island_bodies {
            if self.first_of_body.len() <= s as usize {
                self.first_of_body.resize(s as usize + 1, usize::MAX);
            }
            self.first_of_body[s as usize] = usize::MAX;
        }
        self.first.clear();
        let mut work = 0usize;
        for p in 0..rows.count {
            let mut first = p;
            for s in rows.rows.bodies[rows.row(p)] {
                if rows.dynamic[s as usize] {
                    let seen = &mut self.first_of_body[s as usize];
                    if *seen == usize::MAX {
                        *seen = p;
                    }
                    first = first.min(*seen);
                }
            }
            let width = p - first;
            // Row p's factorisation: about width^2 / 2 multiply-adds.
            work = work.saturating_add(width * width / 2 + width);
            self.first.push(first);
        }
        work
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Mat3, Vec3};
    use crate::rows::{JacobianRow, Pose, Row, Softness};

    /// One row per pair of `bodies`, each with its own lever arms.
    fn rows_on(bodies: &[[u32; 2]]) -> (RowStorage, RowMass) {
        let mut storage = RowStorage::default();
        let softness = Softness { erp: 0.2, cfm: 0.0 };
        for (i, &pair) in bodies.iter().enumerate() {
            let x = i as f64 + 1.0;
            let pose = Pose::IDENTITY;
            let mut writer = storage.writer(pair, [pose, pose], softness, false);
            writer.push(Row::equality(
                JacobianRow {
                    linear_a: Vec3::new(1.0, 0.2 * x, 0.0),
                    angular_a: Vec3::new(0.0, 0.1, 0.3 * x),
                    linear_b: Vec3::new(-1.0, 0.0, 0.1 * x),
                    angular_b: Vec3::new(0.2, -0.1 * x, 0.0),
                },
                0.0,
            ));
        }
        let mut mass = RowMass::default();
        mass.compute(&storage, &[1.0, 0.5, 2.0, 1.5], &[Mat3::IDENTITY; 4]);
        (storage, mass)
    }

    /// `x` with `A x = r` for `r = (1, 2, ...)`, by a fresh builder or by `builder`.
    fn solve(builder: &mut EnvelopeBuilder, bodies: &[[u32; 2]], dynamic: &[bool]) -> Vec<f64> {
        let (storage, mass) = rows_on(bodies);
        let rows = EnvelopeRows {
            rows: &storage,
            mass: &mass,
            count: bodies.len(),
            start: 0,
            members: None,
            island_bodies: &[0, 1, 2, 3],
            dynamic,
        };
        let mut skyline = Skyline::default();
        let weak = builder.factor(&mut skyline, &rows, |_, d| d * 1.001, usize::MAX, 1e-12);
        assert_eq!(weak, Some(0));
        let mut x: Vec<f64> = (1..=bodies.len()).map(|k| k as f64).collect();
        skyline.solve(&mut x);
        x
    }

    #[test]
    fn an_island_on_other_bodies_or_slots_is_scanned_again() {
        let chain = [[0, 1], [1, 2], [2, 3], [3, 0]];
        // Same count, other bodies: row 2 couples with row 0, which the chain's envelope
        // (row 2 starting at row 1) leaves out.
        let other = [[0, 1], [2, 3], [0, 2], [1, 3]];
        let moving = [true; 4];
        let one_static = [true, false, true, true];
        let mut reused = EnvelopeBuilder::default();
        for (bodies, dynamic) in [
            (&chain, &moving),
            (&chain, &moving),
            (&other, &moving),
            (&chain, &moving),
            (&chain, &one_static),
        ] {
            let fresh = solve(&mut EnvelopeBuilder::default(), bodies, dynamic);
            assert_eq!(
                solve(&mut reused, bodies, dynamic),
                fresh,
                "{bodies:?} {dynamic:?}"
            );
        }
        // The cases differ, so a stale envelope would have shown.
        let chain_answer = solve(&mut EnvelopeBuilder::default(), &chain, &moving);
        assert_ne!(
            chain_answer,
            solve(&mut EnvelopeBuilder::default(), &other, &moving)
        );
        assert_ne!(
            chain_answer,
            solve(&mut EnvelopeBuilder::default(), &chain, &one_static)
        );
    }
}
