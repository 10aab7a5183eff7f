//! The ray-query layout of the broad phase's tree: the same nodes, copied at
//! `refresh_queries` into flat pairs of child boxes that a ray tests two at a time.
//!
//! Rays are the one query where the tree descent costs more than the exact tests (about
//! 57 box tests for 4 collider tests a ray over the settled S2 pile). parry's best-first
//! search tests each child box alone, against boxes grown by the broad phase's margins,
//! and re-tests the children of a node it popped even when a nearer hit found since then
//! rules the node out. This copy keeps parry's topology (no second tree is built: the
//! copy follows parry's own depth-first traversal, node for node) but
//!
//! - stores each node's two child boxes side by side, axis by axis, so one slab test
//!   covers both children in two-lane arithmetic;
//! - shrinks every box to what its colliders' exact AABBs need (the leaves without the
//!   prediction distance and motion margin, the inner nodes refitted over them);
//! - keeps the entry time of every deferred node, so a node is dropped when popped if a
//!   hit found meanwhile is nearer.
//!
//! Rays descend first a second copy of the same tree in single precision with up to
//! [`LANES`] children a node (its boxes padded for rounding): each node gathers the top of
//! a binary subtree, expanding the inner child of largest surface until it is full, so a
//! ray over S2 visits about 7 nodes (12 with four children, 24 pairs). A node's entered
//! leaves are tested first and its entered inner children ordered by a sorting network,
//! since which child comes first is data-random and mispredicted branches dominate.
//!
//! docs/performance.md#ray-queries has the figures.

use crate::handles::{BodyHandle, ColliderHandle};
use crate::math::Vec3;
use crate::parry::bounding_volume::Aabb;
#[cfg(test)]
use crate::parry::bounding_volume::BoundingVolume;
use crate::parry::math::Pose as ParryPose;
use crate::parry::partitioning::{Bvh, TraversalAction};

/// A child reference with this bit set is a leaf: the low bits are the collider's slot.
const LEAF: u32 = 1 << 31;
/// The child reference of the missing second child of a one-leaf tree.
const NONE: u32 = u32::MAX;
/// Deferred nodes a descent can hold; deeper trees are left to parry's search.
const STACK: usize = 64;
/// Children of a node of the single-precision copy (a multiple of four: one SSE test
/// per four).
const LANES: usize = 8;
/// Deferred nodes a descent of the single-precision copy can hold; deeper copies are not
/// used.
const FAN_STACK: usize = 128;

/// A node of the copy: the boxes of its two children (lane 0 the left child, lane 1 the
/// right), stored axis by axis, and what each child is.
#[derive(Clone, Copy, Debug)]
struct WideNode {
    mins: [[f64; 2]; 3],
    maxs: [[f64; 2]; 3],
    /// A wide node's index in the copy, `LEAF | slot`, or `NONE`.
    child: [u32; 2],
}

impl WideNode {
    const EMPTY: WideNode = WideNode {
        mins: [[f64::INFINITY; 2]; 3],
        maxs: [[f64::NEG_INFINITY; 2]; 3],
        child: [NONE; 2],
    };

    fn set_box(&mut self, lane: usize, aabb: &Aabb) {
        for axis in 0..3 {
            self.mins[axis][lane] = aabb.mins[axis];
            self.maxs[axis][lane] = aabb.maxs[axis];
        }
    }

    /// The box around both children (the parent's box for this node).
    fn union(&self) -> Aabb {
        let mut mins = Vec3::splat(f64::INFINITY);
        let mut maxs = Vec3::splat(f64::NEG_INFINITY);
        for lane in 0..2 {
            if self.child[lane] == NONE {
                continue;
            }
            for axis in 0..3 {
                mins[axis] = mins[axis].min(self.mins[axis][lane]);
                maxs[axis] = maxs[axis].max(self.maxs[axis][lane]);
            }
        }
        Aabb::new(mins, maxs)
    }
}

/// The copy of the broad phase's tree that rays descend (see the module documentation).
#[derive(Clone, Debug, Default)]
pub(super) struct RayTree {
    nodes: Vec<WideNode>,
    /// Whether the copy matches the tree it was made from (else rays use parry's search).
    usable: bool,
    /// The same tree with two levels merged into each node, in single precision, when
    /// the boxes' coordinates allow it (`fan_reach > 0`): what rays descend first.
    fans: Vec<FanNode>,
    /// Rays whose origin lies within this distance (m, per axis) of the world origin may
    /// use `fans` (0: none may); the boxes are padded for rounding at that range.
    fan_reach: f64,
    /// Per collider slot, its record for rays that need no filtering, if its shape is one
    /// of [`DirectShape`]'s.
    direct: Vec<Option<DirectLeaf>>,
    /// Scratch of the copy: each visited node's child index and its leaf slot, if a leaf.
    visits: Vec<(u32, bool, Option<u32>)>,
    pending: Vec<(usize, usize)>,
    fan_pending: Vec<(usize, usize, usize, usize)>,
    depths: Vec<usize>,
}

/// A ray prepared for two-lane slab tests: its origin and the reciprocal of its
/// direction, zero components replaced by a huge finite value so that a ray lying in a
/// box's face plane gives `0 * huge = 0` instead of `0 * inf = NaN`.
#[derive(Clone, Copy)]
pub(super) struct SlabRay {
    origin: [f64; 3],
    inverse_direction: [f64; 3],
    /// The same in single precision (the reciprocal clamped to `f32`'s range), and how
    /// far the origin is from the world origin along its farthest axis.
    origin32: [f32; 3],
    inverse32: [f32; 3],
    reach: f64,
}

impl SlabRay {
    pub(super) fn new(origin: Vec3, dir: Vec3) -> Self {
        let invert = |d: f64| {
            let inverse = 1.0 / d;
            if inverse.is_finite() {
                inverse
            } else {
                f64::MAX.copysign(d)
            }
        };
        let inverse_direction = [invert(dir.x), invert(dir.y), invert(dir.z)];
        let narrow = |x: f64| (x.clamp(-f64::from(f32::MAX), f64::from(f32::MAX))) as f32;
        Self {
            origin: origin.to_array(),
            inverse_direction,
            origin32: origin.to_array().map(narrow),
            inverse32: inverse_direction.map(narrow),
            reach: origin.abs().max_element(),
        }
    }

    /// The time the ray enters the box `[mins, maxs]` (0 if it starts inside), or
    /// `f64::MAX` if it misses it before `limit`.
    #[inline]
    pub(super) fn entry(&self, mins: Vec3, maxs: Vec3, limit: f64) -> f64 {
        let (mut enter, mut leave) = (0.0f64, limit);
        for axis in 0..3 {
            let a = (mins[axis] - self.origin[axis]) * self.inverse_direction[axis];
            let b = (maxs[axis] - self.origin[axis]) * self.inverse_direction[axis];
            enter = enter.max(a.min(b));
            leave = leave.min(a.max(b));
        }
        if enter <= leave {
            enter
        } else {
            f64::MAX
        }
    }

    /// [`Self::entry`] for both children of `node` at once, as two-lane SSE2 arithmetic
    /// (every x86-64 processor has it); `f64::MAX` for a missing child.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn entries(&self, node: &WideNode, limit: f64) -> [f64; 2] {
        use std::arch::x86_64::{
            _mm_cmple_pd, _mm_max_pd, _mm_min_pd, _mm_movemask_pd, _mm_mul_pd, _mm_set1_pd,
            _mm_setzero_pd, _mm_storeu_pd, _mm_sub_pd,
        };
        // SAFETY: SSE2 is part of the x86-64 baseline; the loads read `[f64; 2]` arrays
        // through unaligned loads of exactly their 16 bytes.
        unsafe {
            use std::arch::x86_64::_mm_loadu_pd;
            let mut enter = _mm_setzero_pd();
            let mut leave = _mm_set1_pd(limit);
            for axis in 0..3 {
                let origin = _mm_set1_pd(self.origin[axis]);
                let inverse = _mm_set1_pd(self.inverse_direction[axis]);
                let a = _mm_mul_pd(
                    _mm_sub_pd(_mm_loadu_pd(node.mins[axis].as_ptr()), origin),
                    inverse,
                );
                let b = _mm_mul_pd(
                    _mm_sub_pd(_mm_loadu_pd(node.maxs[axis].as_ptr()), origin),
                    inverse,
                );
                enter = _mm_max_pd(enter, _mm_min_pd(a, b));
                leave = _mm_min_pd(leave, _mm_max_pd(a, b));
            }
            let inside = _mm_movemask_pd(_mm_cmple_pd(enter, leave));
            let mut out = [0.0; 2];
            _mm_storeu_pd(out.as_mut_ptr(), enter);
            [0, 1].map(|lane| {
                if inside & (1 << lane) != 0 && node.child[lane] != NONE {
                    out[lane]
                } else {
                    f64::MAX
                }
            })
        }
    }

    /// The times the ray enters the (padded) boxes of `node`'s children, and a bit
    /// mask of the children it enters at or before `limit`. Missing children have NaN
    /// boxes, which no comparison passes.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn fan_entries(&self, node: &FanNode, limit: f32) -> ([f32; LANES], u32) {
        use std::arch::x86_64::{
            _mm_cmple_ps, _mm_load_ps, _mm_max_ps, _mm_min_ps, _mm_movemask_ps, _mm_mul_ps,
            _mm_set1_ps, _mm_setzero_ps, _mm_storeu_ps, _mm_sub_ps,
        };
        let mut out = [0.0f32; LANES];
        let mut mask = 0;
        // SAFETY: SSE is part of the x86-64 baseline; `FanNode` is 64-byte aligned and
        // its rows are `4 * LANES` bytes long, so every four-lane group is 16-byte aligned.
        unsafe {
            for group in (0..LANES).step_by(4) {
                let mut enter = _mm_setzero_ps();
                let mut leave = _mm_set1_ps(limit);
                for axis in 0..3 {
                    let origin = _mm_set1_ps(self.origin32[axis]);
                    let inverse = _mm_set1_ps(self.inverse32[axis]);
                    let a = _mm_mul_ps(
                        _mm_sub_ps(_mm_load_ps(node.mins[axis][group..].as_ptr()), origin),
                        inverse,
                    );
                    let b = _mm_mul_ps(
                        _mm_sub_ps(_mm_load_ps(node.maxs[axis][group..].as_ptr()), origin),
                        inverse,
                    );
                    // Operand order keeps a NaN lane NaN (the second operand is returned).
                    enter = _mm_max_ps(enter, _mm_min_ps(a, b));
                    leave = _mm_min_ps(leave, _mm_max_ps(a, b));
                }
                mask |= (_mm_movemask_ps(_mm_cmple_ps(enter, leave)) as u32) << group;
                _mm_storeu_ps(out[group..].as_mut_ptr(), enter);
            }
        }
        (out, mask)
    }

    /// The times the ray enters the boxes of `node`'s children, and a bit mask of
    /// the children it enters at or before `limit`.
    #[cfg(not(target_arch = "x86_64"))]
    #[inline]
    fn fan_entries(&self, node: &FanNode, limit: f32) -> ([f32; LANES], u32) {
        let mut out = [0.0f32; LANES];
        let mut mask = 0;
        for lane in 0..LANES {
            let (mut enter, mut leave) = (0.0f32, limit);
            for axis in 0..3 {
                let a = (node.mins[axis][lane] - self.origin32[axis]) * self.inverse32[axis];
                let b = (node.maxs[axis][lane] - self.origin32[axis]) * self.inverse32[axis];
                enter = enter.max(a.min(b));
                leave = leave.min(a.max(b));
            }
            if enter <= leave && node.child[lane] != NONE {
                mask |= 1 << lane;
            }
            out[lane] = enter;
        }
        (out, mask)
    }

    /// [`Self::entry`] for both children of `node`; `f64::MAX` for a missing child.
    #[cfg(not(target_arch = "x86_64"))]
    #[inline]
    fn entries(&self, node: &WideNode, limit: f64) -> [f64; 2] {
        [0, 1].map(|lane| {
            let corner = |c: &[[f64; 2]; 3]| Vec3::new(c[0][lane], c[1][lane], c[2][lane]);
            if node.child[lane] == NONE {
                f64::MAX
            } else {
                self.entry(corner(&node.mins), corner(&node.maxs), limit)
            }
        })
    }
}

/// A collider as a ray with no filter needs it, for the shapes rays are solved for
/// directly: answered without reading the collider (whose shape sits behind a pointer and
/// a virtual call).
#[derive(Clone, Copy, Debug)]
pub(super) struct DirectLeaf {
    pub(super) handle: ColliderHandle,
    pub(super) body: Option<BodyHandle>,
    pub(super) pose: ParryPose,
    pub(super) shape: DirectShape,
}

/// The shapes of [`DirectLeaf`].
#[derive(Clone, Copy, Debug)]
pub(super) enum DirectShape {
    /// A ball of this radius centred at the pose's origin.
    Ball(f64),
    /// A box of these half extents about the pose.
    Cuboid(Vec3),
    /// A half-space through the pose's origin with this outward unit normal (world frame);
    /// not in the tree, but tested by every ray.
    HalfSpace(Vec3),
}

/// A node of the single-precision copy: up to [`LANES`] children (the top levels of a
/// binary subtree), their boxes stored axis by axis, rounded outwards and padded, so
/// one four-lane slab test covers four of them.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct FanNode {
    mins: [[f32; LANES]; 3],
    maxs: [[f32; LANES]; 3],
    /// A fan node's index, `LEAF | slot`, or `NONE`.
    child: [u32; LANES],
}

impl FanNode {
    /// The lanes holding a leaf or no child, as a bit mask (the `LEAF` bit is the top one).
    #[inline]
    fn leaf_lanes(&self) -> u32 {
        self.child
            .iter()
            .enumerate()
            .fold(0, |bits, (lane, &child)| bits | ((child >> 31) << lane))
    }
}

/// The largest `f32` at most `x` (`x` finite and within `f32`'s range).
fn f32_down(x: f64) -> f32 {
    let y = x as f32;
    if f64::from(y) <= x {
        y
    } else if y > 0.0 {
        f32::from_bits(y.to_bits() - 1)
    } else if y == 0.0 {
        -f32::from_bits(1)
    } else {
        f32::from_bits(y.to_bits() + 1)
    }
}

/// The smallest `f32` at least `x`.
fn f32_up(x: f64) -> f32 {
    -f32_down(-x)
}

/// Relative padding of the single-precision boxes: far above `f32`'s rounding (6e-8)
/// over the few operations of a slab test, so no box a ray enters is missed.
const FAN_PAD: f64 = 1.0e-5;
/// Rays may start this many times farther out than the farthest box coordinate.
const FAN_RAY_RANGE: f64 = 10.0;

impl RayTree {
    /// Merges the binary copy into the [`LANES`]-child `fans`, if its coordinates are
    /// small enough for single precision.
    fn build_fans(&mut self) {
        self.fans.clear();
        self.fan_reach = 0.0;
        let mut extent = 1.0f64;
        for node in &self.nodes {
            for lane in 0..2 {
                if node.child[lane] != NONE {
                    for axis in 0..3 {
                        extent = extent
                            .max(node.mins[axis][lane].abs())
                            .max(node.maxs[axis][lane].abs());
                    }
                }
            }
        }
        if extent >= 1.0e30 || self.nodes.is_empty() {
            return;
        }
        let pad = FAN_PAD * extent;
        // Each fan gathers the top of a binary subtree; `pending` holds (binary node, fan,
        // fan lane, fan level) links still to make.
        let mut pending = std::mem::take(&mut self.fan_pending);
        pending.clear();
        pending.push((0, usize::MAX, 0, 0));
        let mut deepest = 0;
        while let Some((binary, parent, parent_lane, level)) = pending.pop() {
            deepest = deepest.max(level);
            let index = self.fans.len();
            if parent != usize::MAX {
                self.fans[parent].child[parent_lane] = index as u32;
            }
            let mut fan = FanNode {
                mins: [[f32::NAN; LANES]; 3],
                maxs: [[f32::NAN; LANES]; 3],
                child: [NONE; LANES],
            };
            let place = |fan: &mut FanNode, from: &WideNode, from_lane: usize, to_lane: usize| {
                for axis in 0..3 {
                    fan.mins[axis][to_lane] = f32_down(from.mins[axis][from_lane] - pad);
                    fan.maxs[axis][to_lane] = f32_up(from.maxs[axis][from_lane] + pad);
                }
            };
            // The binary node's children, then repeatedly the inner one of largest
            // surface replaced by its own children, until `LANES`: fewer, fuller levels.
            let mut gathered = [(0usize, 0usize); LANES];
            let mut count = 0;
            for side in 0..2 {
                if self.nodes[binary].child[side] != NONE {
                    gathered[count] = (binary, side);
                    count += 1;
                }
            }
            while count < LANES {
                let surface = |&(node, lane): &(usize, usize)| {
                    let node = &self.nodes[node];
                    let d = [0, 1, 2].map(|axis| node.maxs[axis][lane] - node.mins[axis][lane]);
                    d[0] * d[1] + d[1] * d[2] + d[2] * d[0]
                };
                let widest = (0..count)
                    .filter(|&k| self.nodes[gathered[k].0].child[gathered[k].1] & LEAF == 0)
                    .max_by(|&j, &k| surface(&gathered[j]).total_cmp(&surface(&gathered[k])));
                let Some(k) = widest else {
                    break;
                };
                let (node, lane) = gathered[k];
                let inner = self.nodes[node].child[lane] as usize;
                gathered[k] = (inner, 0);
                if self.nodes[inner].child[1] != NONE {
                    gathered[count] = (inner, 1);
                    count += 1;
                }
            }
            let mut grandchildren = [(0usize, 0usize); LANES];
            let mut deeper = 0;
            for (lane, &(from, from_lane)) in gathered[..count].iter().enumerate() {
                let node = self.nodes[from];
                place(&mut fan, &node, from_lane, lane);
                let child = node.child[from_lane];
                if child & LEAF != 0 {
                    fan.child[lane] = child;
                } else {
                    grandchildren[deeper] = (child as usize, lane);
                    deeper += 1;
                }
            }
            self.fans.push(fan);
            for &(grandchild, lane) in grandchildren[..deeper].iter().rev() {
                pending.push((grandchild, index, lane, level + 1));
            }
        }
        self.fan_pending = pending;
        // A descent defers at most `LANES - 1` children per level.
        if (LANES - 1) * deepest <= FAN_STACK {
            self.fan_reach = FAN_RAY_RANGE * extent;
        }
    }

    /// Copies `tree`, whose leaves are keyed by collider slot, with each leaf's box
    /// replaced by `leaf_box(slot)` (which must contain the collider) and every inner box
    /// refitted over them. Allocates only when the tree grew.
    pub(super) fn rebuild(&mut self, tree: &Bvh, leaf_box: impl Fn(u32) -> Aabb) {
        self.nodes.clear();
        self.fans.clear();
        self.fan_reach = 0.0;
        self.usable = false;
        self.visits.clear();
        let visits = &mut self.visits;
        // parry visits both children of a node (left, then right) before descending,
        // first into the left child, deferring the right: mirrored below.
        tree.traverse_indexed(None, |node, index| {
            let (wide, is_right) = index.decompose();
            visits.push((wide as u32, is_right, node.leaf_data()));
            TraversalAction::Continue
        });
        if self.visits.is_empty() {
            self.usable = true;
            return;
        }
        if self.visits.len() == 1 {
            // parry's one-leaf tree: a root with only a left child.
            let mut node = WideNode::EMPTY;
            let Some(slot) = self.visits[0].2 else {
                return;
            };
            node.child[0] = LEAF | slot;
            node.set_box(0, &leaf_box(slot));
            self.nodes.push(node);
            self.usable = slot & LEAF == 0;
            if self.usable {
                self.build_fans();
            }
            return;
        }
        if self.visits.len() % 2 != 0 {
            return;
        }
        self.pending.clear();
        let mut parent: Option<(usize, usize)> = None;
        let mut leaves = 0u32;
        for pair in self.visits.chunks_exact(2) {
            let [(left_wide, left_right, left_leaf), (right_wide, right_right, right_leaf)] =
                [pair[0], pair[1]];
            if left_wide != right_wide || left_right || !right_right {
                return;
            }
            let index = self.nodes.len();
            if let Some((node, lane)) = parent.take() {
                self.nodes[node].child[lane] = index as u32;
            } else if index != 0 {
                return;
            }
            let mut node = WideNode::EMPTY;
            for (lane, leaf) in [left_leaf, right_leaf].into_iter().enumerate() {
                if let Some(slot) = leaf {
                    if slot & LEAF != 0 {
                        return;
                    }
                    node.child[lane] = LEAF | slot;
                    node.set_box(lane, &leaf_box(slot));
                    leaves += 1;
                }
            }
            self.nodes.push(node);
            parent = match (left_leaf.is_none(), right_leaf.is_none()) {
                (true, true) => {
                    self.pending.push((index, 1));
                    Some((index, 0))
                }
                (true, false) => Some((index, 0)),
                (false, true) => Some((index, 1)),
                (false, false) => self.pending.pop(),
            };
        }
        if parent.is_some() || !self.pending.is_empty() || leaves != tree.leaf_count() {
            return;
        }
        // Children come after their parents: refit from the last node back.
        for index in (0..self.nodes.len()).rev() {
            for lane in 0..2 {
                let child = self.nodes[index].child[lane];
                if child == NONE || child & LEAF != 0 {
                    continue;
                }
                if child as usize <= index || child as usize >= self.nodes.len() {
                    return;
                }
                let aabb = self.nodes[child as usize].union();
                self.nodes[index].set_box(lane, &aabb);
            }
        }
        self.usable = self.depth_fits();
        if self.usable {
            self.build_fans();
        }
    }

    /// Whether no descent can defer more than [`STACK`] nodes (one per level at most).
    fn depth_fits(&mut self) -> bool {
        let depth = &mut self.depths;
        depth.clear();
        depth.resize(self.nodes.len(), 0);
        for index in 0..self.nodes.len() {
            for child in self.nodes[index].child {
                if child != NONE && child & LEAF == 0 {
                    depth[child as usize] = depth[index] + 1;
                }
            }
        }
        depth.iter().all(|&d| d < STACK)
    }

    /// Records the balls and boxes by collider slot (`None` for every other slot).
    pub(super) fn set_direct(&mut self, leaves: impl Iterator<Item = Option<DirectLeaf>>) {
        self.direct.clear();
        self.direct.extend(leaves);
    }

    /// The record of collider slot `slot`, if it holds a ball or a box.
    #[inline]
    pub(super) fn direct(&self, slot: usize) -> Option<&DirectLeaf> {
        self.direct.get(slot)?.as_ref()
    }

    /// Whether rays may descend this copy.
    pub(super) fn usable(&self) -> bool {
        self.usable
    }

    /// The nearest-first descent: calls `leaf(slot, limit)` for every leaf whose box the
    /// ray enters at or before `limit` and the best time `leaf` has returned since
    /// (inclusive, so ties are seen), and returns that best time. `leaf` returns the time
    /// of its hit, if any, which becomes the new limit when lower.
    pub(super) fn descend(
        &self,
        ray: &SlabRay,
        limit: f64,
        leaf: impl FnMut(u32, f64) -> Option<f64>,
    ) -> f64 {
        if self.fan_reach > 0.0 && ray.reach <= self.fan_reach {
            self.descend_fans(ray, limit, leaf)
        } else {
            self.descend_pairs(ray, limit, leaf)
        }
    }

    /// [`Self::descend`] over the single-precision [`LANES`]-child nodes.
    fn descend_fans(
        &self,
        ray: &SlabRay,
        mut limit: f64,
        mut leaf: impl FnMut(u32, f64) -> Option<f64>,
    ) -> f64 {
        let Some(root) = self.fans.first() else {
            return limit;
        };
        // At most `LANES - 1` children deferred a level (`build_fans` checks the depth),
        // each as its entry time's bits above its index: integer order is nearest first.
        let mut stack = [0u64; FAN_STACK];
        let mut depth = 0usize;
        let mut node = root;
        let mut limit32 = f32_up(limit);
        loop {
            let (entries, mask) = ray.fan_entries(node, limit32);
            let leaves = node.leaf_lanes();
            // Leaves first, in lane order: which leaves are tested does not depend on the
            // order, only on the limit, and a hit here prunes this node's inner children.
            let mut leaf_mask = mask & leaves;
            while leaf_mask != 0 {
                let lane = leaf_mask.trailing_zeros() as usize;
                leaf_mask &= leaf_mask - 1;
                if f64::from(entries[lane]) <= limit {
                    if let Some(toi) = leaf(node.child[lane] & !LEAF, limit) {
                        if toi < limit {
                            limit = toi;
                            limit32 = f32_up(limit);
                        }
                    }
                }
            }
            let mut inner = mask & !leaves;
            let key = |lane: usize| {
                (u64::from(entries[lane].to_bits() & 0x7fff_ffff) << 32)
                    | u64::from(node.child[lane])
            };
            let next = if inner.is_power_of_two() {
                // One inner child entered: no ordering to do.
                Some(key(inner.trailing_zeros() as usize))
            } else if inner != 0 {
                let mut keys = [u64::MAX; LANES];
                let mut count = 0;
                while inner != 0 {
                    keys[count] = key(inner.trailing_zeros() as usize);
                    inner &= inner - 1;
                    count += 1;
                }
                // A sorting network: branch-free min/max pairs (the order is data-random).
                let mut swap = |i: usize, j: usize| {
                    let (a, b) = (keys[i], keys[j]);
                    keys[i] = a.min(b);
                    keys[j] = a.max(b);
                };
                if count <= 4 {
                    swap(0, 1);
                    swap(2, 3);
                    swap(0, 2);
                    swap(1, 3);
                    swap(1, 2);
                } else {
                    keys[..count].sort_unstable();
                }
                for &deferred in keys[1..count].iter().rev() {
                    stack[depth] = deferred;
                    depth += 1;
                }
                Some(keys[0])
            } else {
                None
            };
            let next = match next {
                Some(key) if f64::from(f32::from_bits((key >> 32) as u32)) <= limit => key,
                _ => loop {
                    if depth == 0 {
                        return limit;
                    }
                    depth -= 1;
                    let key = stack[depth];
                    if f64::from(f32::from_bits((key >> 32) as u32)) <= limit {
                        break key;
                    }
                },
            };
            node = &self.fans[next as u32 as usize];
        }
    }

    /// [`Self::descend`] over the double-precision two-child nodes.
    fn descend_pairs(
        &self,
        ray: &SlabRay,
        mut limit: f64,
        mut leaf: impl FnMut(u32, f64) -> Option<f64>,
    ) -> f64 {
        let Some(root) = self.nodes.first() else {
            return limit;
        };
        let mut stack = [(0u32, 0.0f64); STACK];
        let mut depth = 0usize;
        let mut node = root;
        loop {
            let entries = ray.entries(node, limit);
            let (near, far) = if entries[1] < entries[0] {
                (1, 0)
            } else {
                (0, 1)
            };
            let mut next = None;
            for lane in [near, far] {
                let entry = entries[lane];
                if entry > limit {
                    continue;
                }
                let child = node.child[lane];
                if child & LEAF != 0 {
                    if let Some(toi) = leaf(child & !LEAF, limit) {
                        limit = limit.min(toi);
                    }
                } else if next.is_none() {
                    next = Some(child);
                } else {
                    stack[depth] = (child, entry);
                    depth += 1;
                }
            }
            node = match next {
                Some(child) => &self.nodes[child as usize],
                None => loop {
                    if depth == 0 {
                        return limit;
                    }
                    depth -= 1;
                    let (child, entry) = stack[depth];
                    if entry <= limit {
                        break &self.nodes[child as usize];
                    }
                },
            };
        }
    }

    /// Calls `leaf(slot)` for every leaf whose box the ray enters at or before `limit`.
    pub(super) fn for_each_entered(&self, ray: &SlabRay, limit: f64, mut leaf: impl FnMut(u32)) {
        self.descend(ray, limit, |slot, _| {
            leaf(slot);
            None
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parry::partitioning::BvhBuildStrategy;
    use stiction_lcp::generate::SplitMix64;

    fn boxes(n: usize, seed: u64) -> Vec<Aabb> {
        let mut rng = SplitMix64::new(seed);
        (0..n)
            .map(|_| {
                let c = Vec3::new(
                    rng.range(-5.0, 5.0),
                    rng.range(-5.0, 5.0),
                    rng.range(0.0, 5.0),
                );
                let h = Vec3::new(
                    rng.range(0.05, 0.5),
                    rng.range(0.05, 0.5),
                    rng.range(0.05, 0.5),
                );
                Aabb::new(c - h, c + h)
            })
            .collect()
    }

    /// A tree built by insertion and removal (as the broad phase's), copied, finds for
    /// random rays exactly the leaves a test of every box finds, nearest first.
    #[test]
    fn the_copy_finds_the_boxes_a_test_of_every_box_finds() {
        for (n, seed) in [(0, 1), (1, 2), (2, 3), (3, 4), (57, 5), (400, 6)] {
            let aabbs = boxes(n, seed);
            let copy = inserted(&aabbs);
            assert!(copy.usable(), "{n} leaves copied");
            let mut rng = SplitMix64::new(seed + 100);
            for _ in 0..300 {
                let origin = Vec3::new(rng.range(-8.0, 8.0), rng.range(-8.0, 8.0), 9.0);
                let target = Vec3::new(rng.range(-5.0, 5.0), rng.range(-5.0, 5.0), 0.0);
                let ray = SlabRay::new(origin, (target - origin).normalize());
                let mut expected: Vec<u32> = (0..n as u32)
                    .filter(|&i| {
                        let b = &aabbs[i as usize];
                        ray.entry(b.mins, b.maxs, 30.0) < f64::MAX
                    })
                    .collect();
                expected.sort_unstable();
                let nearest = expected
                    .iter()
                    .map(|&i| ray.entry(aabbs[i as usize].mins, aabbs[i as usize].maxs, 30.0))
                    .fold(30.0f64, f64::min);
                // Both layouts: the double-precision pairs find exactly the entered boxes;
                // the padded single-precision fans find them and perhaps some within the
                // padding, never farther.
                assert!(n == 0 || copy.fan_reach > 0.0, "fans built");
                let pad = 2.0 * FAN_PAD * 10.0;
                for fans in [false, true] {
                    let mut found = Vec::new();
                    let visit = |slot, _| {
                        found.push(slot);
                        None
                    };
                    if fans {
                        copy.descend_fans(&ray, 30.0, visit);
                    } else {
                        copy.descend_pairs(&ray, 30.0, visit);
                    }
                    found.sort_unstable();
                    if fans {
                        assert!(expected.iter().all(|i| found.contains(i)));
                        for &i in &found {
                            let b = aabbs[i as usize].loosened(pad);
                            assert!(ray.entry(b.mins, b.maxs, 30.0) < f64::MAX);
                        }
                    } else {
                        assert_eq!(found, expected);
                    }
                    // The nearest entry, through the pruning descent.
                    let exact = |slot: u32, _| {
                        let b = &aabbs[slot as usize];
                        Some(ray.entry(b.mins, b.maxs, 30.0)).filter(|&t| t < f64::MAX)
                    };
                    let best = if fans {
                        copy.descend_fans(&ray, 30.0, exact)
                    } else {
                        copy.descend_pairs(&ray, 30.0, exact)
                    };
                    assert_eq!(best, nearest);
                }
            }
        }
        // A freshly built tree copies as well.
        let aabbs = boxes(100, 9);
        let tree = Bvh::from_leaves(BvhBuildStrategy::Binned, &aabbs);
        let mut copy = RayTree::default();
        copy.rebuild(&tree, |slot| aabbs[slot as usize]);
        assert!(copy.usable());
        assert_eq!(copy.nodes.len(), 99);
    }

    /// The ray copy of a tree built from `aabbs` by insertion, as the broad phase builds its
    /// tree.
    fn inserted(aabbs: &[Aabb]) -> RayTree {
        let mut tree = Bvh::new();
        let mut workspace = Default::default();
        for (i, aabb) in aabbs.iter().enumerate() {
            tree.insert_or_update_partially(aabb.loosened(0.1), i as u32, 0.05);
        }
        tree.refit(&mut workspace);
        let mut copy = RayTree::default();
        copy.rebuild(&tree, |slot| aabbs[slot as usize]);
        copy
    }

    /// Every leaf sits in exactly one fan lane, under a box that contains its own; a fan
    /// with a free lane holds only leaves (inner children are expanded until full).
    #[test]
    fn the_fans_hold_every_leaf_once_in_full_nodes() {
        for (n, seed) in [(1, 11), (2, 12), (9, 13), (400, 14), (1000, 15)] {
            let aabbs = boxes(n, seed);
            let copy = inserted(&aabbs);
            assert!(copy.fan_reach > 0.0, "{n} leaves: fans built");
            let mut seen = vec![0; n];
            // Each lane's box, as parent boxes for the check one level down.
            let mut parent: Vec<Option<(Vec3, Vec3)>> = vec![None; copy.fans.len()];
            for (index, fan) in copy.fans.iter().enumerate() {
                let used = fan.child.iter().filter(|&&c| c != NONE).count();
                assert!(used >= 1);
                if used < LANES {
                    assert!(fan.child.iter().all(|&c| c == NONE || c & LEAF != 0));
                }
                for lane in 0..LANES {
                    let child = fan.child[lane];
                    if child == NONE {
                        continue;
                    }
                    let mins = Vec3::from_array([0, 1, 2].map(|a| f64::from(fan.mins[a][lane])));
                    let maxs = Vec3::from_array([0, 1, 2].map(|a| f64::from(fan.maxs[a][lane])));
                    if let Some((outer_mins, outer_maxs)) = parent[index] {
                        assert!(outer_mins.cmple(mins).all() && maxs.cmple(outer_maxs).all());
                    }
                    if child & LEAF != 0 {
                        let b = &aabbs[(child & !LEAF) as usize];
                        assert!(mins.cmplt(b.mins).all() && b.maxs.cmplt(maxs).all());
                        seen[(child & !LEAF) as usize] += 1;
                    } else {
                        assert!(child as usize > index, "children follow their parents");
                        parent[child as usize] = Some((mins, maxs));
                    }
                }
            }
            assert!(seen.iter().all(|&k| k == 1), "{n} leaves each seen once");
        }
    }

    /// Rays along the axes and diagonals, some starting inside boxes, find through the
    /// fans every box a test of every box finds, and the nearest entry exactly.
    #[test]
    fn the_fans_find_the_boxes_of_axis_parallel_rays() {
        let aabbs = boxes(300, 21);
        let copy = inserted(&aabbs);
        assert!(copy.fan_reach > 0.0);
        let mut rng = SplitMix64::new(22);
        let directions = [
            Vec3::X,
            Vec3::NEG_X,
            Vec3::Y,
            Vec3::NEG_Y,
            Vec3::Z,
            Vec3::NEG_Z,
            Vec3::new(1.0, 1.0, 0.0).normalize(),
            Vec3::new(0.0, -1.0, 1.0).normalize(),
        ];
        let mut hits = 0;
        for _ in 0..400 {
            let origin = Vec3::new(
                rng.range(-6.0, 6.0),
                rng.range(-6.0, 6.0),
                rng.range(-1.0, 6.0),
            );
            for dir in directions {
                let ray = SlabRay::new(origin, dir);
                let entered: Vec<u32> = (0..aabbs.len() as u32)
                    .filter(|&i| {
                        let b = &aabbs[i as usize];
                        ray.entry(b.mins, b.maxs, 30.0) < f64::MAX
                    })
                    .collect();
                let mut found = Vec::new();
                copy.descend_fans(&ray, 30.0, |slot, _| {
                    found.push(slot);
                    None
                });
                assert!(entered.iter().all(|i| found.contains(i)));
                hits += entered.len();
                let nearest = entered
                    .iter()
                    .map(|&i| ray.entry(aabbs[i as usize].mins, aabbs[i as usize].maxs, 30.0))
                    .fold(30.0f64, f64::min);
                let best = copy.descend_fans(&ray, 30.0, |slot, _| {
                    let b = &aabbs[slot as usize];
                    Some(ray.entry(b.mins, b.maxs, 30.0)).filter(|&t| t < f64::MAX)
                });
                assert_eq!(best, nearest);
            }
        }
        assert!(hits > 1000, "the rays meet boxes ({hits})");
    }
}
