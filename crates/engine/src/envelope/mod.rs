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

use crate::constraint::RowStorage;
use crate::sparse::{coupling, RowMass};

/// Scratch of [`EnvelopeBuilder::factor`], reused between islands and steps.
#[derive(Debug, Clone, Default)]
pub(crate) struct EnvelopeBuilder {
    /// Per body slot: the first row (of the rows being factored) touching it.
    first_of_body: Vec<usize>,
    /// Per row: the first column of its envelope.
    first: Vec<usize>,
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
    pub(crate) fn factor(
        &mut self,
        skyline: &mut Skyline,
        rows: &EnvelopeRows<'_>,
        diagonal: impl Fn(usize, f64) -> f64,
        budget: usize,
        floor: f64,
    ) -> Option<usize> {
        let storage = rows.rows;
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
            for s in storage.bodies[rows.row(p)] {
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
}
