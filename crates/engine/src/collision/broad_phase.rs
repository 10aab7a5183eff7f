//! The broad phase: which collider pairs may touch, from parry's bounding volume hierarchy.
//!
//! Every bounded collider is a leaf of one [`Bvh`] keyed by its slot, holding its AABB
//! loosened by the contact prediction distance plus a motion margin
//! ([`MOTION_MARGIN`]): a leaf is only rewritten when its body has left that enlarged box,
//! so most steps touch few leaves. After the updates the tree is incrementally
//! re-optimised and refitted (parry's `optimize_incremental` and `refit`, as Rapier's broad
//! phase) if a leaf changed, then traversed against itself with parry's change detection:
//! only subtrees holding a leaf rewritten this step are visited, so a resting scene finds
//! no pairs anew. The pairs whose leaf boxes overlap are kept from step to step (those of a
//! rewritten leaf are dropped and found again by the traversal if they still overlap);
//! each step reports those whose current boxes overlap. Rapier's broad phase works this
//! way too; traversing the whole tree every step cost a pile several times as much
//! (docs/performance.md#broad-phase-margins).
//!
//! Unbounded shapes (half-spaces, whose AABB covers all of space) stay out of the tree:
//! each is tested against every bounded collider's AABB directly (linear in the colliders).

use crate::math::Vec3;
use crate::parry::bounding_volume::{Aabb, BoundingVolume};
use crate::parry::partitioning::{Bvh, BvhLeafUpdateStatus, BvhWorkspace};
use crate::parry::shape::HalfSpace;

/// How far (m) a collider may move beyond its stored leaf box before the leaf is rewritten.
const MOTION_MARGIN: f64 = 0.05;
/// An AABB wider than this (m) in any direction counts as unbounded.
const UNBOUNDED_EXTENT: f64 = 1.0e12;

/// What the broad phase needs to know of one collider slot this step.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Proxy {
    /// No live, enabled collider in the slot.
    Absent,
    /// A bounded collider with its world AABB (already loosened by the prediction distance).
    Bounded(Aabb),
    /// A half-space: world point on its plane and unit outward normal.
    HalfSpace { point: Vec3, normal: Vec3 },
    /// Another unbounded shape: paired with every bounded collider.
    Unbounded,
}

impl Proxy {
    /// The proxy of a shape with world AABB `aabb` (loosened by `prediction`), or of a
    /// half-space `halfspace` at world pose `(point, rotation)`.
    pub(crate) fn of(
        aabb: Aabb,
        halfspace: Option<&HalfSpace>,
        pose: &crate::parry::math::Pose,
        prediction: f64,
    ) -> Self {
        if let Some(plane) = halfspace {
            return Proxy::HalfSpace {
                point: pose.translation,
                normal: pose.rotation * plane.normal,
            };
        }
        let extents = aabb.extents();
        if !extents.is_finite() || extents.max_element() > UNBOUNDED_EXTENT {
            Proxy::Unbounded
        } else {
            Proxy::Bounded(aabb.loosened(prediction))
        }
    }
}

/// The persistent tree and the pairs of the last update.
#[derive(Clone, Default)]
pub(crate) struct BroadPhase {
    bvh: Bvh,
    workspace: BvhWorkspace,
    in_tree: Vec<bool>,
    aabbs: Vec<Option<Aabb>>,
    unbounded: Vec<(u32, Proxy)>,
    /// Pairs of leaves whose boxes (current boxes with the motion margin) overlap, `(a, b)`
    /// with `a < b`, sorted: kept between steps, since a leaf's box changes only when the
    /// leaf is rewritten.
    leaf_pairs: Vec<[u32; 2]>,
    /// Per slot, this step: whether its leaf was inserted, rewritten or removed.
    rewritten: Vec<bool>,
    /// Scratch: pairs found this step (by the traversal, then against unbounded shapes),
    /// and a merged list.
    found: Vec<[u32; 2]>,
    merged: Vec<[u32; 2]>,
    /// Candidate pairs `(a, b)` with `a < b`, sorted.
    pub(crate) pairs: Vec<[u32; 2]>,
}

impl std::fmt::Debug for BroadPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BroadPhase")
            .field("leaves", &self.bvh.leaf_count())
            .field("pairs", &self.pairs.len())
            .finish()
    }
}

impl BroadPhase {
    /// The tree as of the last update (leaf keys are collider slots; each leaf box holds
    /// its collider's AABB loosened by the prediction distance and up to the motion
    /// margin), read by the scene queries (`query`).
    pub(super) fn tree(&self) -> &Bvh {
        &self.bvh
    }

    /// The slots of the unbounded colliders (half-spaces and the like) of the last update,
    /// which are not in the tree, in slot order.
    pub(super) fn unbounded_slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.unbounded.iter().map(|&(slot, _)| slot)
    }

    /// Updates the tree with this step's proxies (indexed by collider slot) and finds the
    /// pairs whose boxes overlap (or whose box reaches a half-space within `prediction`).
    #[inline(always)]
    pub(crate) fn update(&mut self, proxies: &[Proxy], prediction: f64) {
        let n = proxies.len();
        self.in_tree.resize(n.max(self.in_tree.len()), false);
        self.rewritten.clear();
        self.rewritten.resize(self.in_tree.len(), false);
        self.aabbs.clear();
        self.aabbs.resize(n, None);
        self.unbounded.clear();
        let mut changed = false;
        for (slot, proxy) in proxies.iter().enumerate() {
            match *proxy {
                Proxy::Bounded(aabb) => {
                    let status =
                        self.bvh
                            .insert_or_update_partially(aabb, slot as u32, MOTION_MARGIN);
                    if status != BvhLeafUpdateStatus::Unchanged {
                        self.rewritten[slot] = true;
                        changed = true;
                    }
                    self.in_tree[slot] = true;
                    self.aabbs[slot] = Some(aabb);
                }
                other => {
                    if self.in_tree[slot] {
                        self.bvh.remove(slot as u32);
                        self.in_tree[slot] = false;
                        self.rewritten[slot] = true;
                        changed = true;
                    }
                    if !matches!(other, Proxy::Absent) {
                        self.unbounded.push((slot as u32, other));
                    }
                }
            }
        }
        for slot in n..self.in_tree.len() {
            if self.in_tree[slot] {
                self.bvh.remove(slot as u32);
                self.in_tree[slot] = false;
                self.rewritten[slot] = true;
                changed = true;
            }
        }
        if changed {
            // Optimise first, then refit: the refit recomputes every internal node's box
            // and change flag (a rewritten leaf's flag becomes "changed", last refit's are
            // cleared), which the traversal below relies on.
            self.bvh.optimize_incremental(&mut self.workspace);
            self.bvh.refit(&mut self.workspace);
            let rewritten = &self.rewritten;
            self.leaf_pairs
                .retain(|&[a, b]| !rewritten[a as usize] && !rewritten[b as usize]);
            let found = &mut self.found;
            found.clear();
            self.bvh
                .traverse_bvtt_single_tree::<true>(&mut self.workspace, &mut |a, b| {
                    found.push([a.min(b), a.max(b)]);
                });
            // The kept pairs are sorted: only the found ones are sorted, then merged.
            self.found.sort_unstable_by_key(|&p| key(p));
            merge_sorted(&self.leaf_pairs, &self.found, &mut self.merged);
            std::mem::swap(&mut self.leaf_pairs, &mut self.merged);
        }

        self.pairs.clear();
        let (aabbs, pairs) = (&self.aabbs, &mut self.pairs);
        for &[a, b] in &self.leaf_pairs {
            if let (Some(x), Some(y)) = (aabbs[a as usize], aabbs[b as usize]) {
                if x.intersects(&y) {
                    pairs.push([a, b]);
                }
            }
        }
        if self.unbounded.is_empty() {
            return;
        }
        self.found.clear();
        for &(slot, proxy) in &self.unbounded {
            for (other, aabb) in self.aabbs.iter().enumerate() {
                let Some(aabb) = aabb else {
                    continue;
                };
                let near = match proxy {
                    Proxy::HalfSpace { point, normal } => {
                        // The box's lowest point along the normal, against the plane.
                        let reach = normal.abs().dot(aabb.half_extents());
                        normal.dot(aabb.center() - point) - reach <= prediction
                    }
                    _ => true,
                };
                if near {
                    let other = other as u32;
                    self.found.push([slot.min(other), slot.max(other)]);
                }
            }
        }
        self.found.sort_unstable_by_key(|&p| key(p));
        merge_sorted(&self.pairs, &self.found, &mut self.merged);
        std::mem::swap(&mut self.pairs, &mut self.merged);
    }
}

/// A pair of slots as one integer that orders like the pair (a comparison of two `u32`
/// arrays is a slice comparison, several times slower in sorts and merges).
pub(super) fn key([a, b]: [u32; 2]) -> u64 {
    (u64::from(a) << 32) | u64::from(b)
}

/// The union of the sorted lists `a` and `b` into `out`, sorted, without duplicates (`b`
/// may repeat a pair).
fn merge_sorted(a: &[[u32; 2]], b: &[[u32; 2]], out: &mut Vec<[u32; 2]>) {
    out.clear();
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    loop {
        let next = match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if key(x) <= key(y) => {
                i += 1;
                x
            }
            (_, Some(&y)) => {
                j += 1;
                y
            }
            (Some(&x), None) => {
                i += 1;
                x
            }
            (None, None) => break,
        };
        if out.last() != Some(&next) {
            out.push(next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stiction_lcp::generate::SplitMix64;

    /// Every pair of bounded proxies whose boxes overlap, plus every bounded proxy near a
    /// half-space, by testing all of them.
    fn brute_force(proxies: &[Proxy], prediction: f64) -> Vec<[u32; 2]> {
        let mut pairs = Vec::new();
        for (a, pa) in proxies.iter().enumerate() {
            for (b, pb) in proxies.iter().enumerate().skip(a + 1) {
                let pair = [a as u32, b as u32];
                match (pa, pb) {
                    (Proxy::Bounded(x), Proxy::Bounded(y)) if x.intersects(y) => pairs.push(pair),
                    (Proxy::Bounded(aabb), Proxy::HalfSpace { point, normal })
                    | (Proxy::HalfSpace { point, normal }, Proxy::Bounded(aabb)) => {
                        let reach = normal.abs().dot(aabb.half_extents());
                        if normal.dot(aabb.center() - *point) - reach <= prediction {
                            pairs.push(pair);
                        }
                    }
                    _ => {}
                }
            }
        }
        pairs
    }

    /// Boxes drifting by small steps (most stay inside their leaves' margins), some
    /// jumping, disappearing and coming back, the slot count growing and shrinking, over a
    /// half-space: the pairs kept from step to step and completed by the change-detecting
    /// traversal are, every step, exactly those of a test of all pairs.
    #[test]
    fn kept_pairs_match_an_all_pairs_test_while_boxes_move_appear_and_vanish() {
        let mut rng = SplitMix64::new(11);
        let prediction = 0.01;
        let mut centres: Vec<Vec3> = (0..120)
            .map(|_| {
                Vec3::new(
                    rng.range(-2.0, 2.0),
                    rng.range(-2.0, 2.0),
                    rng.range(-0.2, 2.0),
                )
            })
            .collect();
        let mut present = vec![true; centres.len()];
        let mut broad = BroadPhase::default();
        let mut found_pairs = 0;
        for step in 0..300 {
            let slots = if step % 50 < 40 { 120 } else { 100 };
            for (i, centre) in centres.iter_mut().enumerate() {
                let jump = rng.range(0.0, 1.0) < 0.01;
                let reach = if jump { 1.0 } else { 0.02 };
                *centre += Vec3::new(
                    rng.range(-reach, reach),
                    rng.range(-reach, reach),
                    rng.range(-reach, reach),
                );
                if rng.range(0.0, 1.0) < 0.005 {
                    present[i] = !present[i];
                }
            }
            let mut proxies: Vec<Proxy> = centres[..slots]
                .iter()
                .zip(&present)
                .map(|(&c, &here)| {
                    if here {
                        let half = Vec3::new(0.3, 0.2, 0.25);
                        Proxy::Bounded(Aabb::new(c - half, c + half).loosened(prediction))
                    } else {
                        Proxy::Absent
                    }
                })
                .collect();
            proxies[7] = Proxy::HalfSpace {
                point: Vec3::ZERO,
                normal: Vec3::Z,
            };
            broad.update(&proxies, prediction);
            let expected = brute_force(&proxies, prediction);
            assert_eq!(broad.pairs, expected, "step {step}");
            found_pairs += expected.len();
        }
        // The scene is crowded enough for the comparison to mean something.
        assert!(found_pairs > 300 * 40, "{found_pairs}");
    }
}
