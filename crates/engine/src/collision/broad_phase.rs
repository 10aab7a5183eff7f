//! The broad phase: which collider pairs may touch, from parry's bounding volume hierarchy.
//!
//! Every bounded collider is a leaf of one [`Bvh`] keyed by its slot, holding its AABB
//! loosened by the contact prediction distance plus a motion margin
//! ([`MOTION_MARGIN`]): a leaf is only rewritten when its body has left that enlarged box,
//! so most steps touch few leaves. After the updates the tree is refitted and incrementally
//! re-optimised (parry's `refit` and `optimize_incremental`, as Rapier's broad phase) if a
//! leaf changed, then
//! traversed against itself, which visits only overlapping subtrees: the cost is about
//! `O(n log n)` in the colliders plus the pairs found, never `O(n^2)`.
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
    /// Updates the tree with this step's proxies (indexed by collider slot) and finds the
    /// pairs whose boxes overlap (or whose box reaches a half-space within `prediction`).
    pub(crate) fn update(&mut self, proxies: &[Proxy], prediction: f64) {
        let n = proxies.len();
        self.in_tree.resize(n.max(self.in_tree.len()), false);
        self.aabbs.clear();
        self.aabbs.resize(n, None);
        self.unbounded.clear();
        // Whether a leaf was inserted, rewritten or removed: a tree left as it was needs
        // no refit or re-optimisation (a resting scene's steps; S4 spent 2 % of its step
        // rebuilding subtrees of an unchanged tree).
        let mut changed = false;
        for (slot, proxy) in proxies.iter().enumerate() {
            match *proxy {
                Proxy::Bounded(aabb) => {
                    let status =
                        self.bvh
                            .insert_or_update_partially(aabb, slot as u32, MOTION_MARGIN);
                    changed |= status != BvhLeafUpdateStatus::Unchanged;
                    self.in_tree[slot] = true;
                    self.aabbs[slot] = Some(aabb);
                }
                other => {
                    if self.in_tree[slot] {
                        self.bvh.remove(slot as u32);
                        self.in_tree[slot] = false;
                        changed = true;
                    }
                    if !matches!(other, Proxy::Absent) {
                        self.unbounded.push((slot as u32, other));
                    }
                }
            }
        }
        // Slots beyond the current count were removed colliders.
        for slot in n..self.in_tree.len() {
            if self.in_tree[slot] {
                self.bvh.remove(slot as u32);
                self.in_tree[slot] = false;
                changed = true;
            }
        }
        if changed {
            self.bvh.refit(&mut self.workspace);
            self.bvh.optimize_incremental(&mut self.workspace);
        }

        self.pairs.clear();
        let (aabbs, pairs) = (&self.aabbs, &mut self.pairs);
        self.bvh
            .traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |a, b| {
                // Leaves are enlarged by the motion margin: confirm with the true boxes.
                if let (Some(x), Some(y)) = (aabbs[a as usize], aabbs[b as usize]) {
                    if x.intersects(&y) {
                        pairs.push([a.min(b), a.max(b)]);
                    }
                }
            });
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
                    pairs.push([slot.min(other), slot.max(other)]);
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
    }
}
