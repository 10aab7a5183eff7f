//! Scene queries: rays, shape casts, overlaps and point projections over the colliders
//! ([`crate::World::cast_ray`] and its siblings; docs/queries.md).
//!
//! There is no second tree: the candidates come from the broad phase's [`Bvh`], whose
//! leaves (one per bounded, enabled collider, keyed by its slot) hold the collider's AABB
//! loosened by the prediction distance and the motion margin (`broad_phase`). A leaf box
//! only has to *contain* its collider for a query to be exact: every candidate is then
//! tested exactly with parry's query on the collider's shape at its world pose
//! ([`Collider::shape_pose`]). Half-spaces and other unbounded shapes are not in the tree;
//! they are tested one by one, as are disabled colliders when a filter asks for them.
//!
//! The tree is only trusted while it matches the current poses and colliders
//! ([`CollisionPipeline::queries_current`]): the world clears that mark whenever user code
//! may have moved a body or changed a collider, and after every step (the step's broad
//! phase runs before its bodies move). While it is cleared every query tests every
//! collider (exact, linear in the colliders); [`CollisionPipeline::refresh_queries`] brings
//! the tree up to date as one more broad-phase update.

use super::broad_phase::{BroadPhase, Proxy};
use super::query_tree::{DirectLeaf, DirectShape, RayTree, SlabRay};
use super::{body_of, Collider, CollisionGroups, CollisionPipeline};
use crate::body::{BodyKind, RigidBody};
use crate::handles::{Arena, BodyHandle, ColliderHandle};
use crate::math::Vec3;
use crate::parry::bounding_volume::{Aabb, BoundingVolume};
use crate::parry::math::Pose as ParryPose;
use crate::parry::partitioning::{Bvh, BvhNode};
use crate::parry::query::{
    cast_shapes, intersection_test, PointQuery, Ray as ParryRay, RayCast, ShapeCastOptions,
    ShapeCastStatus,
};
use crate::parry::shape::Shape;
use crate::rows::Pose;
use std::cell::Cell;

/// Which colliders a scene query may report.
///
/// The default accepts every enabled collider. A collider is reported only if it passes
/// every test that is set: its [`CollisionGroups`] interact with [`Self::groups`]; it is not
/// [`Self::exclude_collider`] and not carried by [`Self::exclude_body`]; its kind is not
/// excluded (world geometry counts as static); it is not a sensor, if
/// [`Self::exclude_sensors`]; it is enabled, unless [`Self::include_disabled`]; and
/// [`Self::predicate`] returns `true` for it (called last,
/// before the exact geometric test, only for colliders that passed the rest).
///
/// ```
/// use stiction::{BodyHandle, CollisionGroups, QueryFilter};
///
/// let not_group_2 = |_, c: &stiction::Collider| c.groups().memberships & 0b10 == 0;
/// let filter = QueryFilter::new()
///     .groups(CollisionGroups::new(0b1, 0b1))
///     .exclude_static()
///     .predicate(&not_group_2);
/// assert!(filter.exclude_static && filter.predicate.is_some());
/// ```
#[derive(Clone, Copy)]
pub struct QueryFilter<'a> {
    /// The query's own groups: a collider is reported only if
    /// `groups.interacts_with(collider.groups())` ([`CollisionGroups::interacts_with`], the
    /// rule contacts follow). `None`: no group test.
    pub groups: Option<CollisionGroups>,
    /// A collider never reported (e.g. the one casting the ray).
    pub exclude_collider: Option<ColliderHandle>,
    /// A body whose colliders are never reported.
    pub exclude_body: Option<BodyHandle>,
    /// Skip the static world's colliders (attached to no body) and those of static bodies.
    pub exclude_static: bool,
    /// Skip the colliders of kinematic bodies.
    pub exclude_kinematic: bool,
    /// Skip the colliders of dynamic bodies.
    pub exclude_dynamic: bool,
    /// Skip sensors ([`Collider::is_sensor`]). By default they are reported like any
    /// collider: they have shapes, only no contacts (skip them for a lidar or a ground
    /// probe, keep them to pick a trigger zone).
    pub exclude_sensors: bool,
    /// Report disabled colliders too ([`Collider::enabled`]); by default they are skipped,
    /// as collision detection skips them. They are not in the broad phase's tree, so this
    /// adds a pass over every collider to each query.
    pub include_disabled: bool,
    /// The user's last word on each collider that passed every other test: `false` skips
    /// it.
    #[allow(clippy::type_complexity)] // spelt out so the docs show the signature
    pub predicate: Option<&'a dyn Fn(ColliderHandle, &Collider) -> bool>,
}

impl std::fmt::Debug for QueryFilter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryFilter")
            .field("groups", &self.groups)
            .field("exclude_collider", &self.exclude_collider)
            .field("exclude_body", &self.exclude_body)
            .field("exclude_static", &self.exclude_static)
            .field("exclude_kinematic", &self.exclude_kinematic)
            .field("exclude_dynamic", &self.exclude_dynamic)
            .field("exclude_sensors", &self.exclude_sensors)
            .field("include_disabled", &self.include_disabled)
            .field("predicate", &self.predicate.map(|_| "Fn"))
            .finish()
    }
}

impl Default for QueryFilter<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> QueryFilter<'a> {
    /// Accepts every enabled collider (the default; `const`, so a filter can be a
    /// constant).
    pub const fn new() -> Self {
        Self {
            groups: None,
            exclude_collider: None,
            exclude_body: None,
            exclude_static: false,
            exclude_kinematic: false,
            exclude_dynamic: false,
            exclude_sensors: false,
            include_disabled: false,
            predicate: None,
        }
    }

    /// Only colliders whose groups interact with `groups` ([`Self::groups`]).
    pub fn groups(mut self, groups: CollisionGroups) -> Self {
        self.groups = Some(groups);
        self
    }

    /// Never reports `collider`.
    pub fn exclude_collider(mut self, collider: ColliderHandle) -> Self {
        self.exclude_collider = Some(collider);
        self
    }

    /// Never reports the colliders of `body`.
    pub fn exclude_body(mut self, body: BodyHandle) -> Self {
        self.exclude_body = Some(body);
        self
    }

    /// Skips world geometry and static bodies' colliders.
    pub fn exclude_static(mut self) -> Self {
        self.exclude_static = true;
        self
    }

    /// Skips kinematic bodies' colliders.
    pub fn exclude_kinematic(mut self) -> Self {
        self.exclude_kinematic = true;
        self
    }

    /// Skips dynamic bodies' colliders.
    pub fn exclude_dynamic(mut self) -> Self {
        self.exclude_dynamic = true;
        self
    }

    /// Skips sensors ([`Self::exclude_sensors`]).
    pub fn exclude_sensors(mut self) -> Self {
        self.exclude_sensors = true;
        self
    }

    /// Reports disabled colliders too ([`Self::include_disabled`]).
    pub fn include_disabled(mut self) -> Self {
        self.include_disabled = true;
        self
    }

    /// Reports only colliders for which `predicate` returns `true`.
    pub fn predicate(mut self, predicate: &'a dyn Fn(ColliderHandle, &Collider) -> bool) -> Self {
        self.predicate = Some(predicate);
        self
    }

    /// Whether the filter accepts every enabled collider (the default).
    fn accepts_all_enabled(&self) -> bool {
        self.groups.is_none()
            && self.exclude_collider.is_none()
            && self.exclude_body.is_none()
            && !(self.exclude_static || self.exclude_kinematic || self.exclude_dynamic)
            && !self.exclude_sensors
            && self.predicate.is_none()
    }

    /// Whether kind `kind` is excluded.
    fn excludes(&self, kind: BodyKind) -> bool {
        match kind {
            BodyKind::Static => self.exclude_static,
            BodyKind::Kinematic => self.exclude_kinematic,
            BodyKind::Dynamic => self.exclude_dynamic,
        }
    }
}

/// A ray: the points `origin + t dir` for `t >= 0`.
///
/// `dir` need not be a unit vector; times of impact are in multiples of it (distances when
/// it is a unit vector).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    /// Where the ray starts, m, world frame.
    pub origin: Vec3,
    /// Its direction (finite, non-zero), world frame.
    pub dir: Vec3,
}

impl Ray {
    /// The ray from `origin` along `dir`.
    pub fn new(origin: Vec3, dir: Vec3) -> Self {
        Self { origin, dir }
    }

    /// The point at time `toi`: `origin + toi dir`.
    pub fn point_at(&self, toi: f64) -> Vec3 {
        self.origin + self.dir * toi
    }
}

/// Where a ray meets a collider ([`crate::World::cast_ray`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayHit {
    /// The collider hit.
    pub collider: ColliderHandle,
    /// Its body (`None` for world geometry).
    pub body: Option<BodyHandle>,
    /// Time of impact: the hit is at `origin + toi dir` (the distance, m, for a unit
    /// `dir`). Zero when the ray starts inside the collider (rays are solid).
    pub toi: f64,
    /// The point hit, m, world frame.
    pub point: Vec3,
    /// The collider's outward unit normal there, world frame; zero when the ray starts
    /// inside the collider.
    pub normal: Vec3,
}

/// Where a moving shape first touches a collider ([`crate::World::cast_shape`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShapeHit {
    /// The collider touched.
    pub collider: ColliderHandle,
    /// Its body (`None` for world geometry).
    pub body: Option<BodyHandle>,
    /// Time of impact: the shape touches the collider when moved by `toi * velocity`
    /// (zero if it already touches or overlaps it).
    pub toi: f64,
    /// The contact point on the moving shape at the time of impact, m, world frame.
    pub witness_on_shape: Vec3,
    /// The contact point on the collider, m, world frame.
    pub witness_on_collider: Vec3,
    /// The moving shape's outward unit normal at its witness point, world frame.
    pub normal_on_shape: Vec3,
    /// The collider's outward unit normal at its witness point, world frame (opposite to
    /// [`Self::normal_on_shape`]).
    pub normal_on_collider: Vec3,
    /// How parry's cast ended: `PenetratingOrWithinTargetDist` when the shape overlapped
    /// the collider at time 0, `Converged` for a regular impact.
    pub status: ShapeCastStatus,
}

/// The collider nearest a point and the nearest point on it
/// ([`crate::World::project_point`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointProjection {
    /// The nearest collider.
    pub collider: ColliderHandle,
    /// Its body (`None` for world geometry).
    pub body: Option<BodyHandle>,
    /// The projected point, m, world frame: on the collider's surface, or the query point
    /// itself when that is inside a collider and the projection is solid.
    pub point: Vec3,
    /// Whether the query point is inside the collider.
    pub is_inside: bool,
    /// The distance from the query point to [`Self::point`], m.
    pub distance: f64,
}

/// A collider a query may test: its handle, itself and its shape's world pose.
struct Candidate<'w> {
    handle: ColliderHandle,
    collider: &'w Collider,
    pose: ParryPose,
}

/// The world's colliders seen by a query, with the broad phase's tree when it is current.
#[derive(Clone, Copy)]
pub(crate) struct SceneQuery<'w> {
    colliders: &'w Arena<Collider, ColliderHandle>,
    bodies: &'w Arena<RigidBody, BodyHandle>,
    /// The broad phase, if its tree matches the current poses; `None`: test every collider.
    broad: Option<&'w BroadPhase>,
    /// Each enabled collider's shape pose by slot, when `broad` is current (computed when
    /// the tree was refreshed): saves composing body and collider poses per candidate.
    poses: Option<&'w [ParryPose]>,
    /// The tree's copy laid out for rays, when `broad` is current and the copy was made.
    rays: Option<&'w RayTree>,
}

/// The smallest `f64` above `x >= 0` (`x` itself if infinite): an inclusive limit for
/// parry's best-first search, which keeps only costs strictly below its limit.
fn just_above(x: f64) -> f64 {
    if x <= 0.0 {
        // Either zero (a negative zero's bits would step below it).
        f64::from_bits(1)
    } else if x.is_finite() {
        f64::from_bits(x.to_bits() + 1)
    } else {
        x
    }
}

/// Whether a time limit is usable: not NaN, not negative.
fn valid_limit(max_toi: f64) -> bool {
    max_toi >= 0.0
}

/// A query answer ranked by its cost (time of impact, distance), ties by collider slot:
/// every path (the tree, the colliders outside it, every collider while the tree is stale)
/// keeps the smallest rank, so they agree exactly, even on ties.
trait Ranked: Copy {
    fn rank(&self) -> (f64, usize);
}

impl Ranked for RayHit {
    fn rank(&self) -> (f64, usize) {
        (self.toi, self.collider.index())
    }
}

impl Ranked for ShapeHit {
    fn rank(&self) -> (f64, usize) {
        (self.toi, self.collider.index())
    }
}

impl Ranked for PointProjection {
    fn rank(&self) -> (f64, usize) {
        (self.distance, self.collider.index())
    }
}

/// Keeps `found` in `best` if it ranks lower.
fn keep_best<T: Ranked>(best: &mut Option<T>, found: Option<T>) {
    if let Some(found) = found {
        if best.is_none_or(|b| found.rank() < b.rank()) {
            *best = Some(found);
        }
    }
}

/// Best-first search of `tree` for the lowest-ranked answer, starting from `best` (found
/// outside the tree) with costs up to `limit` (inclusive). `node_cost` bounds from below
/// the cost of every leaf under a node (given the search's current limit); `leaf` answers
/// for one leaf with costs up to the given limit (inclusive).
///
/// parry's search keeps only strictly lower costs; it is handed `just_above` each cost so
/// that leaves tying with the best so far are still visited, and the ranking (ties by
/// slot) is kept here.
fn search_tree<T: Ranked>(
    tree: &Bvh,
    best: &mut Option<T>,
    limit: f64,
    node_cost: impl Fn(&BvhNode, f64) -> f64,
    leaf: impl Fn(u32, f64) -> Option<T>,
) {
    let kept = Cell::new(*best);
    let start = best.map_or(limit, |b| b.rank().0);
    tree.find_best(just_above(start), node_cost, |id, below| {
        let found = leaf(id, below.min(limit))?;
        let mut current = kept.get();
        keep_best(&mut current, Some(found));
        kept.set(current);
        Some(just_above(found.rank().0))
    });
    *best = kept.get();
}

/// A solid ray against the ball of `radius` centred at `center`: the time of impact up to
/// `max_toi` and the outward normal there (zero when the ray starts inside, at time 0).
/// The roots of `|o + t d - c|^2 = r^2`, the nearer taken in the cancellation-free form.
fn ray_ball(ray: &ParryRay, center: Vec3, radius: f64, max_toi: f64) -> Option<(f64, Vec3)> {
    let offset = ray.origin - center;
    let c = offset.length_squared() - radius * radius;
    if c <= 0.0 {
        return Some((0.0, Vec3::ZERO));
    }
    let b = offset.dot(ray.dir);
    if b >= 0.0 {
        // Outside and not moving towards the centre.
        return None;
    }
    let a = ray.dir.length_squared();
    let discriminant = b * b - a * c;
    if discriminant < 0.0 {
        return None;
    }
    // t = (-b - sqrt(disc)) / a = c / (-b + sqrt(disc)), the second without cancellation.
    let toi = c / (-b + discriminant.sqrt());
    if toi > max_toi {
        return None;
    }
    let normal = (offset + ray.dir * toi) / radius;
    Some((toi, normal))
}

/// A solid ray against the half-space of points `x` with `normal . (x - point) <= 0`:
/// the time of impact up to `max_toi` and the normal there (zero when the ray starts
/// inside or on the plane, at time 0).
fn ray_halfspace(ray: &ParryRay, point: Vec3, normal: Vec3, max_toi: f64) -> Option<(f64, Vec3)> {
    let height = normal.dot(ray.origin - point);
    if height <= 0.0 {
        return Some((0.0, Vec3::ZERO));
    }
    let closing = -normal.dot(ray.dir);
    if closing <= 0.0 {
        return None;
    }
    let toi = height / closing;
    (toi <= max_toi).then_some((toi, normal))
}

/// A solid ray against the box of half extents `half` at `pose`: the time of impact up to
/// `max_toi` and the outward normal there (zero when the ray starts inside or on it, at
/// time 0). The slab test in the box's frame; the normal is that of the face entered
/// last.
fn ray_cuboid(ray: &ParryRay, pose: &ParryPose, half: Vec3, max_toi: f64) -> Option<(f64, Vec3)> {
    let origin = pose.rotation.inverse() * (ray.origin - pose.translation);
    if origin.abs().cmple(half).all() {
        return Some((0.0, Vec3::ZERO));
    }
    let dir = pose.rotation.inverse() * ray.dir;
    let (mut enter, mut leave) = (0.0f64, max_toi);
    let mut face = Vec3::ZERO;
    for axis in 0..3 {
        if dir[axis] == 0.0 {
            if origin[axis].abs() > half[axis] {
                return None;
            }
            continue;
        }
        let inverse = 1.0 / dir[axis];
        let a = (-half[axis] - origin[axis]) * inverse;
        let b = (half[axis] - origin[axis]) * inverse;
        let (near, far) = if a < b { (a, b) } else { (b, a) };
        if near > enter {
            enter = near;
            face = Vec3::ZERO;
            face[axis] = -dir[axis].signum();
        }
        leave = leave.min(far);
        if enter > leave {
            return None;
        }
    }
    (face != Vec3::ZERO).then(|| (enter, pose.rotation * face))
}

fn parry_pose(pose: &Pose) -> ParryPose {
    ParryPose::from_parts(pose.position, pose.orientation)
}

/// Whether the world box `query` overlaps the collider's world AABB, or for a half-space
/// whether the box reaches into it.
fn touches_box(candidate: &Candidate<'_>, query: &Aabb) -> bool {
    let shape = candidate.collider.shape.as_ref();
    if let Some(plane) = shape.as_halfspace() {
        let normal = candidate.pose.rotation * plane.normal;
        let reach = normal.abs().dot(query.half_extents());
        return normal.dot(query.center() - candidate.pose.translation) - reach <= 0.0;
    }
    shape.compute_aabb(&candidate.pose).intersects(query)
}

impl<'w> SceneQuery<'w> {
    /// The colliders of a world with bodies `bodies`, and `pipeline`'s tree if it is
    /// current.
    pub(crate) fn new(
        colliders: &'w Arena<Collider, ColliderHandle>,
        bodies: &'w Arena<RigidBody, BodyHandle>,
        pipeline: &'w CollisionPipeline,
    ) -> Self {
        Self {
            colliders,
            bodies,
            broad: pipeline.queries_current.then_some(&pipeline.broad),
            poses: pipeline
                .queries_current
                .then_some(pipeline.shape_poses.as_slice()),
            rays: (pipeline.queries_current && pipeline.ray_tree.usable())
                .then_some(&pipeline.ray_tree),
        }
    }

    /// Whether queries use the tree (else every collider is tested).
    pub(crate) fn uses_tree(&self) -> bool {
        self.broad.is_some()
    }

    /// The collider in `slot` with its world pose, if it passes `filter`.
    fn candidate(&self, slot: usize, filter: &QueryFilter<'_>) -> Option<Candidate<'w>> {
        let collider = self.colliders.slot(slot)?;
        if !(collider.enabled || filter.include_disabled) {
            return None;
        }
        if filter.exclude_sensors && collider.sensor {
            return None;
        }
        let handle = self.colliders.handle_at(slot)?;
        if filter.exclude_collider == Some(handle) {
            return None;
        }
        if let Some(groups) = filter.groups {
            if !groups.interacts_with(collider.groups) {
                return None;
            }
        }
        let kind = match collider.body {
            None => BodyKind::Static,
            Some(body) if filter.exclude_body == Some(body) => return None,
            Some(body) => self.bodies.get(body)?.kind(),
        };
        if filter.excludes(kind) {
            return None;
        }
        if let Some(predicate) = filter.predicate {
            if !predicate(handle, collider) {
                return None;
            }
        }
        let cached = self
            .poses
            .filter(|_| collider.enabled)
            .and_then(|poses| poses.get(slot));
        let pose = match cached {
            Some(pose) => *pose,
            None => {
                // The ground slot is never read back: only the pose matters here.
                let (_, body_pose) = body_of(collider, self.bodies, 0)?;
                collider.shape_pose(&body_pose)
            }
        };
        Some(Candidate {
            handle,
            collider,
            pose,
        })
    }

    /// Calls `test` with the slot of every collider not found through the tree: all of
    /// them while the tree is not current; else the unbounded ones (outside the tree) and,
    /// if `filter` includes them, the disabled ones.
    fn for_each_direct(&self, filter: &QueryFilter<'_>, mut test: impl FnMut(usize)) {
        match self.broad {
            None => {
                for (handle, _) in self.colliders.iter() {
                    test(handle.index());
                }
            }
            Some(broad) => {
                for slot in broad.unbounded_slots() {
                    test(slot as usize);
                }
                if filter.include_disabled {
                    for (handle, collider) in self.colliders.iter() {
                        if !collider.enabled {
                            test(handle.index());
                        }
                    }
                }
            }
        }
    }

    fn tree(&self) -> Option<&'w Bvh> {
        self.broad.map(BroadPhase::tree)
    }

    /// The ray's hit on the collider in `slot` up to `max_toi`, if it passes `filter`.
    fn ray_at(
        &self,
        slot: usize,
        ray: &ParryRay,
        max_toi: f64,
        filter: &QueryFilter<'_>,
    ) -> Option<RayHit> {
        if let Some(leaf) = self.rays.and_then(|rays| rays.direct(slot)) {
            // Every tree leaf is enabled: with nothing else to filter, balls and boxes are
            // answered from the copy's own record.
            if filter.accepts_all_enabled() {
                let (toi, normal) = match leaf.shape {
                    DirectShape::Ball(radius) => {
                        ray_ball(ray, leaf.pose.translation, radius, max_toi)?
                    }
                    DirectShape::Cuboid(half) => ray_cuboid(ray, &leaf.pose, half, max_toi)?,
                    DirectShape::HalfSpace(normal) => {
                        ray_halfspace(ray, leaf.pose.translation, normal, max_toi)?
                    }
                };
                return Some(RayHit {
                    collider: leaf.handle,
                    body: leaf.body,
                    toi,
                    point: ray.origin + ray.dir * toi,
                    normal,
                });
            }
        }
        let c = self.candidate(slot, filter)?;
        if let Some(ball) = c.collider.shape.as_ball() {
            // Balls are most of what rays meet in piles: solved in the world frame, without
            // parry's change of frame and dynamic dispatch.
            let (toi, normal) = ray_ball(ray, c.pose.translation, ball.radius, max_toi)?;
            return Some(RayHit {
                collider: c.handle,
                body: c.collider.body,
                toi,
                point: ray.origin + ray.dir * toi,
                normal,
            });
        }
        let hit = c
            .collider
            .shape
            .cast_ray_and_get_normal(&c.pose, ray, max_toi, true)?;
        let toi = hit.time_of_impact;
        // A ray starting inside hits at 0 with no meaningful normal; parry's varies by
        // shape (a ball gives -z, a cylinder -dir), so report zero for every shape.
        let inside = toi == 0.0 && c.collider.shape.contains_point(&c.pose, ray.origin);
        Some(RayHit {
            collider: c.handle,
            body: c.collider.body,
            toi,
            point: ray.origin + ray.dir * toi,
            normal: if inside { Vec3::ZERO } else { hit.normal },
        })
    }

    /// The first collider `ray` hits up to `max_toi` (inclusive).
    pub(crate) fn cast_ray(
        &self,
        ray: &Ray,
        max_toi: f64,
        filter: &QueryFilter<'_>,
    ) -> Option<RayHit> {
        if !(valid_limit(max_toi) && ray.origin.is_finite() && ray.dir.is_finite())
            || ray.dir == Vec3::ZERO
        {
            return None;
        }
        let ray = ParryRay::new(ray.origin, ray.dir);
        let slab = SlabRay::new(ray.origin, ray.dir);
        let mut best: Option<RayHit> = None;
        self.for_each_direct(filter, |slot| {
            let limit = best.map_or(max_toi, |b| b.toi);
            keep_best(&mut best, self.ray_at(slot, &ray, limit, filter));
        });
        if let Some(rays) = self.rays {
            let limit = best.map_or(max_toi, |b| b.toi);
            rays.descend(&slab, limit, |leaf, limit| {
                let found = self.ray_at(leaf as usize, &ray, limit, filter)?;
                keep_best(&mut best, Some(found));
                Some(found.toi)
            });
        } else if let Some(tree) = self.tree() {
            search_tree(
                tree,
                &mut best,
                max_toi,
                |node: &BvhNode, below| slab.entry(node.mins(), node.maxs(), below),
                |leaf, limit| self.ray_at(leaf as usize, &ray, limit, filter),
            );
        }
        best
    }

    /// Every collider `ray` hits up to `max_toi`, each once (its first hit), by time of
    /// impact (ties by collider slot).
    pub(crate) fn cast_ray_all(
        &self,
        ray: &Ray,
        max_toi: f64,
        filter: &QueryFilter<'_>,
    ) -> Vec<RayHit> {
        let mut hits = Vec::new();
        if !(valid_limit(max_toi) && ray.origin.is_finite() && ray.dir.is_finite())
            || ray.dir == Vec3::ZERO
        {
            return hits;
        }
        let ray = ParryRay::new(ray.origin, ray.dir);
        let slab = SlabRay::new(ray.origin, ray.dir);
        self.for_each_direct(filter, |slot| {
            hits.extend(self.ray_at(slot, &ray, max_toi, filter));
        });
        if let Some(rays) = self.rays {
            rays.for_each_entered(&slab, max_toi, |leaf| {
                hits.extend(self.ray_at(leaf as usize, &ray, max_toi, filter));
            });
        } else if let Some(tree) = self.tree() {
            let entered = |node: &BvhNode| slab.entry(node.mins(), node.maxs(), max_toi) < f64::MAX;
            for leaf in tree.leaves(entered) {
                hits.extend(self.ray_at(leaf as usize, &ray, max_toi, filter));
            }
        }
        hits.sort_unstable_by(|a, b| {
            a.toi
                .total_cmp(&b.toi)
                .then(a.collider.index().cmp(&b.collider.index()))
        });
        hits
    }

    /// [`Self::cast_ray`] for each of `rays`, into `out` (cleared first).
    pub(crate) fn cast_rays(
        &self,
        rays: &[Ray],
        max_toi: f64,
        filter: &QueryFilter<'_>,
        out: &mut Vec<Option<RayHit>>,
    ) {
        out.clear();
        out.reserve(rays.len());
        out.extend(rays.iter().map(|ray| self.cast_ray(ray, max_toi, filter)));
    }

    /// The cast of `shape` at `pose` moving by `velocity` against the collider in `slot`,
    /// up to `max_toi`, if it passes `filter`. Pairs parry cannot cast are skipped.
    #[allow(clippy::too_many_arguments)]
    fn shape_at(
        &self,
        slot: usize,
        shape: &dyn Shape,
        pose: &ParryPose,
        velocity: Vec3,
        max_toi: f64,
        filter: &QueryFilter<'_>,
    ) -> Option<ShapeHit> {
        let c = self.candidate(slot, filter)?;
        let options = ShapeCastOptions {
            // parry's own default limit: it is not meant to see an infinity.
            max_time_of_impact: max_toi.min(f64::MAX),
            target_distance: 0.0,
            stop_at_penetration: true,
            compute_impact_geometry_on_penetration: true,
        };
        let hit = cast_shapes(
            pose,
            velocity,
            shape,
            &c.pose,
            Vec3::ZERO,
            c.collider.shape.as_ref(),
            options,
        )
        .ok()??;
        let toi = hit.time_of_impact;
        if toi > max_toi {
            return None;
        }
        // parry gives the witnesses and normals in each shape's own frame.
        let moved = ParryPose::from_parts(pose.translation + velocity * toi, pose.rotation);
        Some(ShapeHit {
            collider: c.handle,
            body: c.collider.body,
            toi,
            witness_on_shape: moved * hit.witness1,
            witness_on_collider: c.pose * hit.witness2,
            normal_on_shape: pose.rotation * hit.normal1,
            normal_on_collider: c.pose.rotation * hit.normal2,
            status: hit.status,
        })
    }

    /// The first collider `shape` (at `pose`, moving by `velocity` per unit time) touches
    /// up to time `max_toi` (inclusive).
    pub(crate) fn cast_shape(
        &self,
        shape: &dyn Shape,
        pose: &Pose,
        velocity: Vec3,
        max_toi: f64,
        filter: &QueryFilter<'_>,
    ) -> Option<ShapeHit> {
        if !(valid_limit(max_toi)
            && velocity.is_finite()
            && pose.position.is_finite()
            && pose.orientation.is_finite())
        {
            return None;
        }
        let pose = parry_pose(pose);
        let mut best: Option<ShapeHit> = None;
        self.for_each_direct(filter, |slot| {
            let limit = best.map_or(max_toi, |b| b.toi);
            keep_best(
                &mut best,
                self.shape_at(slot, shape, &pose, velocity, limit, filter),
            );
        });
        if let Some(tree) = self.tree() {
            // A node's cost: when the shape's box, swept along `velocity`, first meets the
            // node's box: a ray from the box's centre against the node's box grown by the
            // box's half extents (a lower bound on the time of impact of any leaf below).
            let swept = shape.compute_aabb(&pose);
            let (centre, half) = (swept.center(), swept.half_extents());
            let ray = ParryRay::new(centre, velocity);
            let moving = velocity != Vec3::ZERO;
            let node_cost = |node: &BvhNode, below: f64| {
                let grown = Aabb::new(node.mins() - half, node.maxs() + half);
                if moving {
                    grown
                        .cast_local_ray(&ray, below.min(f64::MAX), true)
                        .unwrap_or(f64::MAX)
                } else if grown.contains_local_point(centre) {
                    0.0
                } else {
                    f64::MAX
                }
            };
            search_tree(tree, &mut best, max_toi, node_cost, |leaf, limit| {
                self.shape_at(leaf as usize, shape, &pose, velocity, limit, filter)
            });
        }
        best
    }

    /// Every collider whose shape intersects (or touches) `shape` at `pose`, by slot.
    /// Pairs parry has no intersection test for are skipped.
    pub(crate) fn intersect_shape(
        &self,
        shape: &dyn Shape,
        pose: &Pose,
        filter: &QueryFilter<'_>,
    ) -> Vec<ColliderHandle> {
        let mut found = Vec::new();
        if !(pose.position.is_finite() && pose.orientation.is_finite()) {
            return found;
        }
        let pose = parry_pose(pose);
        let mut test = |slot: usize| {
            let Some(c) = self.candidate(slot, filter) else {
                return;
            };
            let overlap = intersection_test(&pose, shape, &c.pose, c.collider.shape.as_ref());
            if overlap.is_ok_and(|o| o.intersecting) {
                found.push(c.handle);
            }
        };
        self.for_each_direct(filter, &mut test);
        if let Some(tree) = self.tree() {
            let aabb = shape.compute_aabb(&pose);
            for leaf in tree.intersect_aabb(&aabb) {
                test(leaf as usize);
            }
        }
        sort_by_slot(&mut found);
        found
    }

    /// Every collider whose world AABB overlaps the box `[mins, maxs]` (for a half-space:
    /// which the box reaches into), by slot.
    pub(crate) fn intersect_aabb(
        &self,
        mins: Vec3,
        maxs: Vec3,
        filter: &QueryFilter<'_>,
    ) -> Vec<ColliderHandle> {
        let mut found = Vec::new();
        if !(mins.is_finite() && maxs.is_finite() && mins.cmple(maxs).all()) {
            return found;
        }
        let query = Aabb::new(mins, maxs);
        let mut test = |slot: usize| {
            if let Some(c) = self.candidate(slot, filter) {
                if touches_box(&c, &query) {
                    found.push(c.handle);
                }
            }
        };
        self.for_each_direct(filter, &mut test);
        if let Some(tree) = self.tree() {
            for leaf in tree.intersect_aabb(&query) {
                test(leaf as usize);
            }
        }
        sort_by_slot(&mut found);
        found
    }

    /// The projection of `point` on the collider in `slot`, if it passes `filter`.
    fn project_at(
        &self,
        slot: usize,
        point: Vec3,
        solid: bool,
        filter: &QueryFilter<'_>,
    ) -> Option<PointProjection> {
        let c = self.candidate(slot, filter)?;
        let projection = c.collider.shape.project_point(&c.pose, point, solid);
        Some(PointProjection {
            collider: c.handle,
            body: c.collider.body,
            point: projection.point,
            is_inside: projection.is_inside,
            distance: projection.point.distance(point),
        })
    }

    /// The collider nearest `point` and the projection on it (see
    /// [`crate::World::project_point`]).
    pub(crate) fn project_point(
        &self,
        point: Vec3,
        solid: bool,
        filter: &QueryFilter<'_>,
    ) -> Option<PointProjection> {
        if !point.is_finite() {
            return None;
        }
        let mut best: Option<PointProjection> = None;
        self.for_each_direct(filter, |slot| {
            keep_best(&mut best, self.project_at(slot, point, solid, filter));
        });
        if let Some(tree) = self.tree() {
            // A node's box is no farther than anything inside it (a leaf's collider lies
            // in its box, and a point inside a shape is at distance 0 from its box).
            search_tree(
                tree,
                &mut best,
                f64::INFINITY,
                |node: &BvhNode, _| node.aabb().distance_to_local_point(point, true),
                |leaf, _| self.project_at(leaf as usize, point, solid, filter),
            );
        }
        best
    }

    /// Every collider containing `point` (boundary included), by slot.
    pub(crate) fn colliders_containing_point(
        &self,
        point: Vec3,
        filter: &QueryFilter<'_>,
    ) -> Vec<ColliderHandle> {
        let mut found = Vec::new();
        if !point.is_finite() {
            return found;
        }
        let mut test = |slot: usize| {
            if let Some(c) = self.candidate(slot, filter) {
                if c.collider.shape.contains_point(&c.pose, point) {
                    found.push(c.handle);
                }
            }
        };
        self.for_each_direct(filter, &mut test);
        if let Some(tree) = self.tree() {
            let inside =
                |node: &BvhNode| point.cmpge(node.mins()).all() && point.cmple(node.maxs()).all();
            for leaf in tree.leaves(inside) {
                test(leaf as usize);
            }
        }
        sort_by_slot(&mut found);
        found
    }
}

fn sort_by_slot(handles: &mut [ColliderHandle]) {
    handles.sort_unstable_by_key(|h| h.index());
}

impl CollisionPipeline {
    /// Brings the broad phase's tree up to the colliders' current poses (the proxies the
    /// next step's broad phase would compute, prediction distance `prediction`), so scene
    /// queries may use it until the world next changes. It is one more broad-phase update:
    /// leaves whose collider stayed inside its box are left alone, pairs are kept
    /// consistent, and the next step finds those leaves unchanged, so the pairs it reports
    /// are exactly those it would report without this call.
    pub(crate) fn refresh_queries(
        &mut self,
        colliders: &Arena<Collider, ColliderHandle>,
        bodies: &Arena<RigidBody, BodyHandle>,
        prediction: f64,
    ) {
        self.proxies.clear();
        // The shape poses are kept for the queries (the next step recomputes them anyway),
        // and the exact boxes for the ray copy's leaves.
        self.shape_poses.clear();
        self.query_boxes.clear();
        let everywhere = Aabb::new(Vec3::splat(-f64::MAX), Vec3::splat(f64::MAX));
        for slot in 0..colliders.capacity() {
            let found = colliders
                .slot(slot)
                .filter(|c| c.enabled)
                .and_then(|c| body_of(c, bodies, 0).map(|(_, pose)| (c, pose)));
            let (proxy, pose, aabb) = found.map_or(
                (Proxy::Absent, ParryPose::IDENTITY, everywhere),
                |(collider, pose)| {
                    let pose = collider.shape_pose(&pose);
                    let shape = collider.shape.as_ref();
                    let aabb = shape.compute_aabb(&pose);
                    let proxy = Proxy::of(aabb, shape.as_halfspace(), &pose, prediction);
                    (proxy, pose, aabb)
                },
            );
            self.proxies.push(proxy);
            self.shape_poses.push(pose);
            self.query_boxes.push(aabb);
        }
        self.broad.update(&self.proxies, prediction);
        let (shape_poses, boxes) = (&self.shape_poses, &self.query_boxes);
        self.ray_tree
            .rebuild(self.broad.tree(), |slot| boxes[slot as usize]);
        self.ray_tree
            .set_direct((0..colliders.capacity()).map(|slot| {
                let collider = colliders.slot(slot).filter(|c| c.enabled)?;
                let shape = if let Some(ball) = collider.shape.as_ball() {
                    DirectShape::Ball(ball.radius)
                } else if let Some(plane) = collider.shape.as_halfspace() {
                    DirectShape::HalfSpace(shape_poses[slot].rotation * plane.normal)
                } else {
                    DirectShape::Cuboid(collider.shape.as_cuboid()?.half_extents)
                };
                Some(DirectLeaf {
                    handle: colliders.handle_at(slot)?,
                    body: collider.body,
                    pose: shape_poses[slot],
                    shape,
                })
            }));
        self.queries_current = true;
    }

    /// Marks the tree as no longer matching the poses or colliders: queries test every
    /// collider until [`Self::refresh_queries`].
    pub(crate) fn invalidate_queries(&mut self) {
        self.queries_current = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::ColliderBuilder;
    use crate::math::Quat;
    use stiction_lcp::generate::SplitMix64;

    /// Static colliders of mixed shapes scattered in a box, over a half-space.
    fn scene() -> Arena<Collider, ColliderHandle> {
        let mut rng = SplitMix64::new(5);
        let mut colliders = Arena::default();
        colliders.insert(
            ColliderBuilder::halfspace(Vec3::Z)
                .unwrap()
                .build(None)
                .unwrap(),
        );
        for i in 0..200 {
            let builder = match i % 4 {
                0 => ColliderBuilder::ball(rng.range(0.1, 0.5)).unwrap(),
                1 => ColliderBuilder::cuboid(Vec3::new(0.3, 0.2, 0.4)).unwrap(),
                2 => ColliderBuilder::cylinder(0.3, 0.2).unwrap(),
                _ => ColliderBuilder::capsule(0.3, 0.1).unwrap(),
            };
            let position = Vec3::new(
                rng.range(-5.0, 5.0),
                rng.range(-5.0, 5.0),
                rng.range(0.0, 5.0),
            );
            let rotation = Quat::from_axis_angle(
                Vec3::new(rng.range(-1.0, 1.0), 1.0, rng.range(-1.0, 1.0)).normalize(),
                rng.range(0.0, 3.0),
            );
            colliders.insert(
                builder
                    .pose(Pose {
                        position,
                        orientation: rotation,
                    })
                    .build(None)
                    .unwrap(),
            );
        }
        colliders
    }

    /// Through the tree (refreshed) and by testing every collider, the same rays hit the
    /// same colliders at the same times, points project on the same colliders, and the
    /// overlap queries list the same colliders.
    #[test]
    fn the_tree_answers_as_testing_every_collider_does() {
        let colliders = scene();
        let bodies = Arena::default();
        let mut pipeline = CollisionPipeline::default();
        let linear = SceneQuery::new(&colliders, &bodies, &pipeline);
        assert!(!linear.uses_tree());
        let mut fresh = CollisionPipeline::default();
        fresh.refresh_queries(&colliders, &bodies, 0.01);
        let tree = SceneQuery::new(&colliders, &bodies, &fresh);
        assert!(tree.uses_tree());
        let filter = QueryFilter::new();
        let mut rng = SplitMix64::new(9);
        let mut hits = 0;
        for _ in 0..500 {
            let origin = Vec3::new(
                rng.range(-6.0, 6.0),
                rng.range(-6.0, 6.0),
                rng.range(0.5, 6.0),
            );
            let dir = Vec3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            );
            let ray = Ray::new(origin, dir);
            let (a, b) = (
                linear.cast_ray(&ray, 20.0, &filter),
                tree.cast_ray(&ray, 20.0, &filter),
            );
            assert_eq!(a, b);
            hits += usize::from(a.is_some());
            assert_eq!(
                linear.cast_ray_all(&ray, 20.0, &filter),
                tree.cast_ray_all(&ray, 20.0, &filter)
            );
            assert_eq!(
                linear.project_point(origin, true, &filter),
                tree.project_point(origin, true, &filter)
            );
            assert_eq!(
                linear.project_point(origin, false, &filter),
                tree.project_point(origin, false, &filter)
            );
            let ball = crate::parry::shape::Ball::new(0.4);
            let pose = Pose {
                position: origin,
                orientation: Quat::IDENTITY,
            };
            assert_eq!(
                linear.intersect_shape(&ball, &pose, &filter),
                tree.intersect_shape(&ball, &pose, &filter)
            );
            assert_eq!(
                linear.cast_shape(&ball, &pose, dir, 10.0, &filter),
                tree.cast_shape(&ball, &pose, dir, 10.0, &filter)
            );
            assert_eq!(
                linear.colliders_containing_point(origin, &filter),
                tree.colliders_containing_point(origin, &filter)
            );
            let (lo, hi) = (origin - Vec3::splat(0.5), origin + Vec3::splat(0.5));
            assert_eq!(
                linear.intersect_aabb(lo, hi, &filter),
                tree.intersect_aabb(lo, hi, &filter)
            );
        }
        // Rays from among the shapes, half of them upwards into the open (283 hit).
        assert!(hits > 200, "{hits}");
        pipeline.invalidate_queries();
        assert!(!pipeline.queries_current);
    }

    #[test]
    fn a_limit_just_above_includes_the_limit_itself() {
        assert!(just_above(1.0) > 1.0 && just_above(0.0) > 0.0 && just_above(-0.0) > 0.0);
        assert_eq!(just_above(f64::INFINITY), f64::INFINITY);
        assert!(!valid_limit(f64::NAN) && !valid_limit(-1.0) && valid_limit(0.0));
    }
}
