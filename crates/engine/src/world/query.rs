//! Scene queries: asking the world which colliders a ray, a moving shape, a region or a
//! point meets (docs/queries.md).
//!
//! Every query takes `&self` and a [`QueryFilter`], and answers exactly: candidates come
//! from the broad phase's tree, and each is tested with parry's query on its shape at its
//! current world pose. The tree is only used while it matches the current poses and
//! colliders ([`World::queries_use_tree`]); otherwise every collider is tested (still
//! exact, linear in the colliders). A step, [`World::body_mut`], [`World::collider_mut`],
//! and adding or removing colliders or bodies with colliders leave the tree behind;
//! [`World::refresh_queries`] catches it up.

use super::World;
use crate::collision::{PointProjection, QueryFilter, Ray, RayHit, SceneQuery, ShapeHit};
use crate::handles::ColliderHandle;
use crate::math::Vec3;
use crate::parry::shape::Shape;
use crate::rows::Pose;

impl World {
    /// The colliders as the queries see them.
    fn scene_query(&self) -> SceneQuery<'_> {
        SceneQuery::new(&self.colliders, &self.bodies, &self.collision)
    }

    /// The first collider the ray from `origin` along `dir` hits, at a time of impact up to
    /// `max_toi` (inclusive; `f64::INFINITY` for no limit), among those `filter` accepts:
    /// the collider, its body, the time of impact `toi` (the hit is at
    /// `origin + toi * dir`, so `toi` is the distance when `dir` is a unit vector), the
    /// point and the outward normal there.
    ///
    /// Rays are solid: one starting inside a collider hits it at `toi = 0` with a zero
    /// normal. Of colliders hit at exactly the same time, the lowest slot
    /// ([`ColliderHandle::index`]) is reported. `None` if nothing is hit, or if `origin` or
    /// `dir` is not finite, `dir` is zero, or `max_toi` is negative or NaN.
    ///
    /// Cost: with a current tree ([`Self::queries_use_tree`]), a best-first descent of the
    /// broad phase's tree, about logarithmic in the colliders, plus one test per
    /// half-space; otherwise one exact test per collider.
    ///
    /// ```
    /// use stiction::math::Vec3;
    /// use stiction::{ColliderBuilder, QueryFilter, World};
    ///
    /// let mut world = World::new();
    /// let ground = world.add_collider(ColliderBuilder::halfspace(Vec3::Z)?, None)?;
    /// let post = world.add_collider(
    ///     ColliderBuilder::cuboid(Vec3::new(0.1, 0.1, 1.0))?.position(Vec3::new(2.0, 0.0, 1.0)),
    ///     None,
    /// )?;
    /// world.refresh_queries();
    /// // Straight down from 3 m: the ground, 3 m away, facing up.
    /// let hit = world
    ///     .cast_ray(Vec3::new(0.0, 0.0, 3.0), -Vec3::Z, f64::INFINITY, &QueryFilter::new())
    ///     .unwrap();
    /// assert_eq!((hit.collider, hit.toi, hit.normal), (ground, 3.0, Vec3::Z));
    /// // Along +x at 1 m height: the post's face at x = 1.9.
    /// let hit = world
    ///     .cast_ray(Vec3::new(0.0, 0.0, 1.0), Vec3::X, 10.0, &QueryFilter::new())
    ///     .unwrap();
    /// assert_eq!(hit.collider, post);
    /// assert!((hit.point.x - 1.9).abs() < 1e-12);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cast_ray(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_toi: f64,
        filter: &QueryFilter<'_>,
    ) -> Option<RayHit> {
        self.scene_query()
            .cast_ray(&Ray::new(origin, dir), max_toi, filter)
    }

    /// Every collider the ray hits up to `max_toi`, each once (where the ray first meets
    /// it), sorted by time of impact (ties by collider slot). Same conventions as
    /// [`Self::cast_ray`]; empty for invalid input.
    ///
    /// Cost: the tree's nodes along the ray (every collider without a current tree), and
    /// the allocation of the result.
    pub fn cast_ray_all(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_toi: f64,
        filter: &QueryFilter<'_>,
    ) -> Vec<RayHit> {
        self.scene_query()
            .cast_ray_all(&Ray::new(origin, dir), max_toi, filter)
    }

    /// [`Self::cast_ray`] for each of `rays` (a lidar's beams, say), written to `out` in
    /// the order of `rays`: `out` is cleared first and ends with `rays.len()` entries, and
    /// nothing is allocated but `out`'s growth (none when it already has the capacity).
    /// The answers are exactly those of one [`Self::cast_ray`] per ray.
    pub fn cast_rays(
        &self,
        rays: &[Ray],
        max_toi: f64,
        filter: &QueryFilter<'_>,
        out: &mut Vec<Option<RayHit>>,
    ) {
        self.scene_query().cast_rays(rays, max_toi, filter, out);
    }

    /// The first collider `shape`, placed at `pose` and moved in a straight line by
    /// `velocity` per unit time (no rotation), touches at a time up to `max_toi`
    /// (inclusive): the time of impact, the witness points on the shape (where it is then)
    /// and on the collider, both outward normals, and parry's status.
    ///
    /// `shape` is any parry shape (a [`crate::parry::shape::SharedShape`] as `&*shared`), in
    /// parry's own axes at `pose` (a parry cylinder stands along its y axis). A shape that
    /// already touches or overlaps a collider hits it at time 0 (status
    /// `PenetratingOrWithinTargetDist`). The time is parry's analytic or iterated time of
    /// impact, not a sampled one. Ties go to the lowest slot; pairs parry cannot cast
    /// (e.g. two triangle meshes) are skipped. `None` if nothing is touched or the input is
    /// not finite (or `max_toi` is negative or NaN).
    ///
    /// Cost: a best-first descent of the tree with the shape's bounding box swept along
    /// `velocity` (every collider without a current tree), one parry cast per candidate.
    pub fn cast_shape(
        &self,
        shape: &dyn Shape,
        pose: &Pose,
        velocity: Vec3,
        max_toi: f64,
        filter: &QueryFilter<'_>,
    ) -> Option<ShapeHit> {
        self.scene_query()
            .cast_shape(shape, pose, velocity, max_toi, filter)
    }

    /// Every collider whose shape intersects or touches `shape` at `pose` (parry's
    /// intersection test; `shape` in parry's axes as for [`Self::cast_shape`]), sorted by
    /// slot. Pairs parry has no test for are skipped.
    ///
    /// Cost: the tree's leaves whose boxes overlap the shape's bounding box (every collider
    /// without a current tree), one exact test each.
    pub fn intersect_shape(
        &self,
        shape: &dyn Shape,
        pose: &Pose,
        filter: &QueryFilter<'_>,
    ) -> Vec<ColliderHandle> {
        self.scene_query().intersect_shape(shape, pose, filter)
    }

    /// Every collider whose world-space bounding box overlaps the box from `mins` to
    /// `maxs` (world frame, `mins <= maxs` componentwise), sorted by slot: a fast,
    /// conservative test (a ball's box reaches beyond the ball); for a half-space, whether
    /// the box reaches into it. Empty for an invalid box.
    ///
    /// Cost: the tree's leaves whose boxes overlap the box, each collider's box computed.
    pub fn intersect_aabb(
        &self,
        mins: Vec3,
        maxs: Vec3,
        filter: &QueryFilter<'_>,
    ) -> Vec<ColliderHandle> {
        self.scene_query().intersect_aabb(mins, maxs, filter)
    }

    /// The collider nearest `point` and the nearest point on it, with whether `point` is
    /// inside it and the distance between the two points.
    ///
    /// With `solid`, a point inside a collider projects on itself (distance 0); otherwise
    /// it projects on the collider's surface, and the nearest collider is the one whose
    /// surface is nearest. Ties go to the lowest slot. `None` if no collider passes the
    /// filter or `point` is not finite.
    ///
    /// Cost: a best-first descent of the tree by distance to its boxes (every collider
    /// without a current tree).
    pub fn project_point(
        &self,
        point: Vec3,
        solid: bool,
        filter: &QueryFilter<'_>,
    ) -> Option<PointProjection> {
        self.scene_query().project_point(point, solid, filter)
    }

    /// Every collider containing `point` (its boundary included), sorted by slot.
    ///
    /// Cost: the tree's leaves whose boxes contain the point (every collider without a
    /// current tree), one exact test each.
    pub fn colliders_containing_point(
        &self,
        point: Vec3,
        filter: &QueryFilter<'_>,
    ) -> Vec<ColliderHandle> {
        self.scene_query().colliders_containing_point(point, filter)
    }

    /// Brings the broad phase's tree up to the current poses and colliders, so that the
    /// queries descend it instead of testing every collider, until the world next changes
    /// ([`Self::queries_use_tree`]). Call it after stepping, or after moving bodies or
    /// changing colliders, before a batch of queries.
    ///
    /// It is one more broad-phase update (each collider's bounding box computed; leaves
    /// whose collider left its loosened box rewritten; the tree re-optimised): work the
    /// next step's broad phase then finds done, and the pairs that step reports, hence the
    /// simulation, are exactly what they would be without the call.
    pub fn refresh_queries(&mut self) {
        let prediction = self.settings.contacts.prediction;
        self.collision
            .refresh_queries(&self.colliders, &self.bodies, prediction);
    }

    /// Whether the queries use the broad phase's tree: `true` from
    /// [`Self::refresh_queries`] until the next step, [`Self::body_mut`],
    /// [`Self::collider_mut`], added or removed collider, or removed body; while `false`
    /// every query tests every collider (same answers, linear cost).
    pub fn queries_use_tree(&self) -> bool {
        self.scene_query().uses_tree()
    }
}
