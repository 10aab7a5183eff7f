//! Collision detection with parry3d: colliders, the broad phase and the narrow phase.
//!
//! Each step, before any force is applied ([`crate::World::step`]):
//!
//! 1. **Poses**: every enabled collider's shape pose, from its body's pose and its offset.
//! 2. **Broad phase** (`broad_phase`): parry's BVH gives the pairs whose AABBs (loosened
//!    by [`crate::ContactSettings::prediction`]) overlap; half-spaces are tested against
//!    every box directly. Pairs on one body, between two colliders that cannot move
//!    (static world, static or kinematic bodies), or rejected by [`CollisionGroups`] are
//!    dropped.
//! 3. **Waking**: a pair between an awake body and a sleeping one wakes the sleeper's
//!    group (`crate::sleep`), so its contacts are computed in this same step.
//! 4. **Narrow phase**: parry's persistent contact manifolds
//!    (`PersistentQueryDispatcher::contact_manifolds`) for every pair with an awake body;
//!    pairs whose bodies all sleep keep their manifolds untouched. Each point's combined
//!    material ([`crate::Material::combine`]) goes through the user's
//!    [`crate::ContactHook`], and the points kept become constraint rows
//!    ([`crate::contact`]).
//! 5. **Sensors**: a pair with a sensor collider ([`Collider::is_sensor`]) skips steps 3
//!    and 4: parry's intersection test tells whether the two shapes overlap (touch or
//!    intersect; the prediction distance plays no part), into this step's sensor overlaps.
//!    A sensor pair wakes nothing and makes no rows. Two sensors, two colliders of one
//!    body, and two colliders that cannot move (the static world, static bodies) are not
//!    tested; kinematic and sleeping bodies are (docs/events.md).
//!
//! ```
//! use stiction::math::Vec3;
//! use stiction::{ColliderBuilder, Material, MassProperties, RigidBodyBuilder, World};
//!
//! let mut world = World::new();
//! // Static ground: the half-space z <= 0, attached to no body.
//! world.add_collider(ColliderBuilder::halfspace(Vec3::Z)?, None)?;
//! // A 2 kg box with a rubbery material, 1 cm above the ground.
//! let half = Vec3::new(0.5, 0.5, 0.25);
//! let crate_ = world.add_body(
//!     RigidBodyBuilder::dynamic()
//!         .mass_properties(MassProperties::cuboid_with_mass(half, 2.0)?)
//!         .position(Vec3::new(0.0, 0.0, 0.26))
//!         .build()?,
//! );
//! let rubber = Material::new(0.9, 0.3)?;
//! world.add_collider(ColliderBuilder::cuboid(half)?.material(rubber), Some(crate_))?;
//! for _ in 0..60 {
//!     world.step(1.0 / 60.0)?;
//! }
//! // Per point: the force on B (here the box) in the contact frame and in the world.
//! let contacts = world.contacts();
//! assert_eq!(contacts.len(), 4);
//! let normal: f64 = contacts.iter().map(|c| c.force_local.x).sum();
//! assert!((normal - 2.0 * 9.81).abs() < 1e-6);
//! // Per body: the total contact force and torque.
//! let wrench = world.contact_force(crate_)?;
//! assert!((wrench.force - Vec3::new(0.0, 0.0, 2.0 * 9.81)).length() < 1e-6);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod broad_phase;
mod collider;
mod filter;
mod manifolds;
mod query;
mod query_tree;
mod reduce;

pub use crate::handles::ColliderHandle;
pub use collider::{Collider, ColliderBuilder};
pub use filter::CollisionGroups;
pub(crate) use query::SceneQuery;
pub use query::{PointProjection, QueryFilter, Ray, RayHit, ShapeHit};

use crate::body::Activity;
use crate::body::{BodyKind, RigidBody};
use crate::contact::summarize;
use crate::contact::ContactSettings;
use crate::contact::HookSlot;
use crate::contact::{ContactCandidate, ContactGeometry, ContactMemory, ContactPoint, HookAction};
use crate::contact::{ContactPair, SensorOverlap};
use crate::error::WorldError;
use crate::handles::Arena;
use crate::handles::BodyHandle;
use crate::math::Vec3;
use crate::parry::bounding_volume::{Aabb, BoundingVolume};
use crate::parry::math::Pose as ParryPose;
use crate::parry::query::{
    ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher,
    QueryDispatcher, TrackedContact,
};
use crate::parry::shape::{Shape, ShapeType};
use crate::rows::Pose;
use broad_phase::{BroadPhase, Proxy};
use std::ops::Range;

/// Asks the processor to start loading the contact manifolds of the pair it will work on
/// after the next (`after`), and the points of the next one (`next`, whose manifold list
/// was asked for one pair ago): each pair's manifolds and their points are separate heap
/// blocks, and reading them only when the pair's turn came waited on memory
/// (docs/performance.md#contact-storage-and-the-narrow-phase).
#[inline]
fn prefetch_manifolds(next: Option<&PairState>, after: Option<&PairState>) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let fetch = |address: *const u8| {
            // SAFETY: a prefetch is only a hint: it reads nothing into the program and
            // cannot fault, whatever the address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast()) }
        };
        let two_lines = |address: *const u8| {
            fetch(address);
            fetch(address.wrapping_add(64));
        };
        if let Some(manifold) = next.and_then(|pair| pair.manifolds.first()) {
            two_lines(manifold.points.as_ptr().cast());
        }
        if let Some(pair) = after {
            two_lines(pair.manifolds.as_ptr().cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (next, after);
}

/// Finds the candidate pairs of this step (broad phase) from the bodies' `activity`, whose
/// body pairs ([`CollisionPipeline::body_pairs`]) the sleep stage reads to wake what awake
/// bodies reach before [`compute_contacts`].
#[inline(always)]
pub(crate) fn find_pairs(
    pipeline: &mut CollisionPipeline,
    colliders: &Arena<Collider, ColliderHandle>,
    bodies: &Arena<RigidBody, BodyHandle>,
    activity: &[Activity],
    settings: &ContactSettings,
    motion: StepMotion,
) {
    let ground = bodies.capacity() as u32;
    pipeline.broad_phase(
        colliders,
        bodies,
        activity,
        ground,
        settings.prediction,
        motion,
    );
}

/// What the broad phase needs to sweep continuous-collision bodies over the step.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StepMotion {
    /// The step, s.
    pub h: f64,
    /// World gravity, m/s^2 (a body's velocity gains up to `g h` before it moves).
    pub gravity: Vec3,
}

/// The box a collider of a continuous-collision body may pass through in one step, and
/// the distance it may travel (m): its world box `aabb` swept by the linear velocity
/// after gravity, grown by the angular speed times the collider's reach from the centre
/// of mass. Speculative contacts found that far ahead stop the body at the surface
/// (docs/ccd.md).
fn swept_box(body: &RigidBody, aabb: Aabb, motion: StepMotion) -> (Aabb, f64) {
    let gravity = if body.gravity_enabled && body.kind == BodyKind::Dynamic {
        motion.gravity * motion.h
    } else {
        Vec3::ZERO
    };
    let travel = (body.velocity.linear + gravity) * motion.h;
    let reach = (aabb.center() - body.position).length() + aabb.half_extents().length();
    let turning = body.velocity.angular.length() * reach * motion.h;
    let moved = Aabb::new(aabb.mins + travel, aabb.maxs + travel);
    let swept = aabb.merged(&moved).loosened(turning);
    (swept, travel.length() + turning)
}

crate::avx2::compiled_for_avx2! {
    /// Computes the contact points of the candidate pairs into `pipeline.points` (narrow
    /// phase, contact hook) and orders them from the highest pair down along `gravity`.
    /// Fails only if the hook leaves an invalid value.
    pub(crate) fn compute_contacts(
        pipeline: &mut CollisionPipeline,
        colliders: &Arena<Collider, ColliderHandle>,
        activity: &[Activity],
        hook: &HookSlot,
        settings: &ContactSettings,
        gravity: Vec3,
    ) -> Result<(), WorldError> => contacts_of_pairs
}

/// [`compute_contacts`]'s work, inlined into its two copies.
#[inline(always)]
fn contacts_of_pairs(
    pipeline: &mut CollisionPipeline,
    colliders: &Arena<Collider, ColliderHandle>,
    activity: &[Activity],
    hook: &HookSlot,
    settings: &ContactSettings,
    gravity: Vec3,
) -> Result<(), WorldError> {
    pipeline.narrow_phase(colliders, activity, settings.prediction, hook)?;
    pipeline.detect_overlaps(colliders);
    pipeline.order_by_height(gravity);
    Ok(())
}

/// The contact manifolds of two shapes at relative pose `pos12` into `state`: the engine's
/// own paths for ball pairs, half-spaces and box pairs, parry's dispatcher otherwise (an
/// error: parry has no algorithm for the pair). One look at the shape types picks the path
/// (each path's own checks are downcasts through `Any`: a dozen a pair when tried in turn
/// before parry's dispatcher, which checks again).
#[inline(always)]
fn pair_manifolds(
    pos12: &ParryPose,
    shape1: &dyn Shape,
    shape2: &dyn Shape,
    prediction: f64,
    state: &mut PairState,
    old: &mut Vec<TrackedContact<ContactMemory>>,
) -> Result<(), crate::parry::query::Unsupported> {
    let manifolds = &mut state.manifolds;
    let own_path = match (shape1.shape_type(), shape2.shape_type()) {
        (ShapeType::Ball, ShapeType::Ball) => {
            manifolds::ball_pair_manifold(pos12, shape1, shape2, prediction, manifolds)
        }
        (ShapeType::HalfSpace, _) | (_, ShapeType::HalfSpace) => {
            manifolds::halfspace_polygonal_manifold(
                pos12, shape1, shape2, prediction, manifolds, old,
            )
        }
        (ShapeType::Cuboid, ShapeType::Cuboid) => {
            manifolds::cuboid_pair_manifold(pos12, shape1, shape2, prediction, manifolds, old)
        }
        _ => false,
    };
    if own_path {
        return Ok(());
    }
    DefaultQueryDispatcher.contact_manifolds(
        pos12,
        shape1,
        shape2,
        prediction,
        manifolds,
        &mut state.workspace,
    )
}

/// The height steps (m) in which [`CollisionPipeline::order_by_height`] orders contact
/// pairs. Ordered by exact heights, a resting pyramid's pairs of one layer traded places
/// every step (their heights differ by the settling's nanometres), so the rows' order, and
/// with it the islands' sort, changed every step for nothing. In 1 mm steps a layer keeps
/// its pair order and [`crate::solver::island::Islands::build`] reuses last step's sort;
/// coarser steps leave more pairs out of height order, which makes a pile's projection
/// work larger (docs/performance.md#reused-islands-and-sweep-plans).
const HEIGHT_QUANTUM: f64 = 0.001;

/// How far (in [`HEIGHT_QUANTUM`]s) a pair's mean height may leave the step it was ordered
/// by last step before it changes step. Without it a pair resting within micrometres of a
/// step's edge changed step whenever it settled by a micrometre, and the islands were
/// sorted again; half a step let a moving pile's pairs stray too far out of height order
/// (docs/performance.md#reused-islands-and-sweep-plans).
const HEIGHT_HYSTERESIS: f64 = 0.2;

/// Lists the points of `runs` (height step, first and last point, in point order) into
/// `order`, the highest step first and one step's runs in point order: what sorting the
/// runs by (height descending, first point) gives. A pile's steps are whole millimetres
/// over a few metres, a range not much larger than its number of pairs, so a counting
/// sort over them does it in two passes (the comparison sort was 1.5 % of an S2 step).
/// Heights spread wider (S1's pyramid and S4's stack: 19 m) sort as whole numbers, each
/// run's step below the highest and its index packed into one: the comparison sort of
/// floats with a tie-break cost S1 about 100,000 instructions a step, the integers' sort
/// about half of that. Heights not finite, or spread beyond `u32`, take the comparison
/// sort.
#[inline(always)]
fn order_runs_by_height(
    runs: &mut [(f64, u32, u32)],
    order: &mut Vec<u32>,
    counts: &mut Vec<u32>,
    keys: &mut Vec<u64>,
) {
    order.clear();
    let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
    for &(height, _, _) in runs.iter() {
        low = low.min(height);
        high = high.max(height);
    }
    let span = high - low;
    let finite = runs.iter().all(|run| run.0.is_finite());
    if !(finite && span <= (4 * runs.len() + 4096) as f64) {
        if finite && span < f64::from(u32::MAX) {
            // Runs are in point order, so sorting by index breaks ties as by first point.
            keys.clear();
            keys.extend(
                runs.iter()
                    .enumerate()
                    .map(|(i, run)| (((high - run.0) as u64) << 32) | i as u64),
            );
            keys.sort_unstable();
            for &key in keys.iter() {
                let (_, start, end) = runs[(key & u64::from(u32::MAX)) as usize];
                order.extend(start..end);
            }
        } else {
            runs.sort_unstable_by(|p, q| q.0.total_cmp(&p.0).then(p.1.cmp(&q.1)));
            for &(_, start, end) in runs.iter() {
                order.extend(start..end);
            }
        }
        return;
    }
    // Bucket 0 is the highest step; the heights are whole steps, so the subtraction is
    // exact.
    let bucket = |height: f64| (high - height) as usize;
    counts.clear();
    counts.resize(span as usize + 2, 0);
    for &(height, start, end) in runs.iter() {
        counts[bucket(height) + 1] += end - start;
    }
    for b in 1..counts.len() {
        counts[b] += counts[b - 1];
    }
    order.resize(counts[counts.len() - 1] as usize, 0);
    for &(height, start, end) in runs.iter() {
        let at = &mut counts[bucket(height)];
        for (slot, point) in order[*at as usize..].iter_mut().zip(start..end) {
            *slot = point;
        }
        *at += end - start;
    }
}

/// The contact manifolds of one collider pair, kept while the pair's boxes overlap.
#[derive(Clone)]
pub(crate) struct PairState {
    pub(crate) colliders: [ColliderHandle; 2],
    pub(crate) manifolds: Vec<ContactManifold<(), ContactMemory>>,
    pub(crate) workspace: Option<ContactManifoldsWorkspace>,
    /// The height step ([`HEIGHT_QUANTUM`]s, a whole number) the pair's points were
    /// ordered by last step, kept while their mean height stays within
    /// [`HEIGHT_HYSTERESIS`] of it (see [`CollisionPipeline::order_by_height`]); `None`
    /// before the pair had points.
    pub(crate) height_step: Option<f64>,
}

impl PairState {
    fn new(colliders: [ColliderHandle; 2]) -> Self {
        Self {
            colliders,
            manifolds: Vec::new(),
            workspace: None,
            height_step: None,
        }
    }
}

/// Broad phase, pair states and this step's contact points.
#[derive(Clone, Default)]
pub(crate) struct CollisionPipeline {
    broad: BroadPhase,
    proxies: Vec<Proxy>,
    /// Shape pose of each collider slot this step.
    shape_poses: Vec<ParryPose>,
    /// Per collider slot this step: its body's solver slot and pose (`None` for an absent
    /// or disabled collider), read once in collider order so that the pairs, visited in
    /// pair order, do not look their bodies up again.
    collider_bodies: Vec<Option<(u32, Pose)>>,
    /// Per collider slot this step: how far (m) its body may carry it over the step when
    /// the body has continuous collision on, else 0 (`sweep_distance`).
    sweeps: Vec<f64>,
    /// This step's pairs, sorted by collider slots.
    pub(crate) pairs: Vec<PairState>,
    /// The last step's pairs, sorted by collider slots, while this step's are found.
    previous: Vec<PairState>,
    /// Candidate body-slot pairs for waking, from the broad phase.
    pub(crate) body_pairs: Vec<[u32; 2]>,
    /// The contact points that become rows this step, in pair order (a pair's points
    /// together).
    pub(crate) points: Vec<ContactPoint>,
    /// The indices of `points` from the highest pair to the lowest along gravity (see
    /// [`Self::order_by_height`]): the order their rows are written and solved in.
    pub(crate) order: Vec<u32>,
    /// Pairs parry has no contact algorithm for (e.g. two triangle meshes), this step.
    pub(crate) unsupported_pairs: usize,
    /// One manifold's witness points on A, for point reduction.
    reduce_points: Vec<Vec3>,
    /// Per pair with points: height step and the pair's run of points, for ordering.
    runs: Vec<(f64, u32, u32)>,
    /// Points per height step, then where each step's points start (`order_runs_by_height`).
    height_counts: Vec<u32>,
    /// Each run's height step and index packed for sorting (`order_runs_by_height`).
    height_keys: Vec<u64>,
    /// Candidate pairs with a sensor (slots `(a, b)`, `a < b`, sorted), from the broad
    /// phase: tested for overlap, never for contact.
    sensor_pairs: Vec<[u32; 2]>,
    /// This step's sensor overlaps, sorted by (sensor, other) handles: committed into the
    /// world's events only once the step is ([`crate::contact::EventState`]).
    pub(crate) overlaps: Vec<SensorOverlap>,
    /// The indices in [`Self::pairs`] of the pairs kept unchanged because all their bodies
    /// sleep, in order.
    asleep_pairs: Vec<u32>,
    /// This step's touching pairs with their impulses ([`Self::touching_pairs`]), sorted
    /// by collider handles.
    pub(crate) touching: Vec<ContactPair>,
    /// Manifold lists of ended pairs (one emptied manifold each), for new pairs.
    spare_manifolds: Vec<Vec<ContactManifold<(), ContactMemory>>>,
    /// A manifold's points of the last step while its new points are matched to them.
    old_points: Vec<TrackedContact<ContactMemory>>,
    /// Whether the broad phase's tree matches the current poses and colliders, so that
    /// scene queries may use it (`query`): set by `refresh_queries`, cleared by
    /// `invalidate_queries` (the world calls it on every change to poses or colliders,
    /// and on every step, whose broad phase runs before the bodies move).
    queries_current: bool,
    /// Each collider slot's exact world AABB at the last `refresh_queries` (the ray copy's
    /// leaf boxes; a box covering everything for an empty slot).
    query_boxes: Vec<crate::parry::bounding_volume::Aabb>,
    /// The broad phase's tree laid out for rays, made by `refresh_queries`
    /// (`query_tree`); read only while `queries_current`.
    ray_tree: query_tree::RayTree,
}

impl std::fmt::Debug for CollisionPipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CollisionPipeline")
            .field("broad", &self.broad)
            .field("pairs", &self.pairs.len())
            .field("points", &self.points.len())
            .finish()
    }
}

/// Whether parry computes this shape's manifolds against any non-composite shape as one
/// manifold in the pair's first slot (its convex path), so a new pair may be handed a
/// reset manifold instead of an empty list.
fn single_manifold(shape: &dyn crate::parry::shape::Shape) -> bool {
    shape.as_composite_shape().is_none()
        && !matches!(
            shape.shape_type(),
            ShapeType::TriMesh | ShapeType::HeightField | ShapeType::Voxels | ShapeType::Compound
        )
}

/// The solver slot of a collider's body (the ground for world geometry) and its pose.
fn body_of(
    collider: &Collider,
    bodies: &Arena<RigidBody, BodyHandle>,
    ground: u32,
) -> Option<(u32, Pose)> {
    match collider.body {
        None => Some((ground, Pose::IDENTITY)),
        Some(handle) => bodies
            .get(handle)
            .map(|b| (handle.index() as u32, Pose::of(b))),
    }
}

/// The index ranges of `points` (in pair order) that belong to one pair each.
fn pair_runs(points: &[ContactPoint]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut start = 0;
    points
        .chunk_by(|a, b| a.source[0] == b.source[0])
        .map(move |run| {
            let range = start..start + run.len();
            start = range.end;
            range
        })
}

/// Stores the memory of each of `points` (all of `pair`) back into its tracked contact.
#[inline(always)]
fn remember(pair: &mut PairState, points: &[ContactPoint]) {
    for point in points {
        let [_, manifold, index] = point.source.map(|i| i as usize);
        if let Some(tracked) = pair
            .manifolds
            .get_mut(manifold)
            .and_then(|m| m.points.get_mut(index))
        {
            tracked.data = point.memory;
        }
    }
}

impl CollisionPipeline {
    /// Steps 1 and 2: poses, broad phase, filtered candidate pairs (also as body slots in
    /// [`Self::body_pairs`]).
    #[inline(always)]
    pub(crate) fn broad_phase(
        &mut self,
        colliders: &Arena<Collider, ColliderHandle>,
        bodies: &Arena<RigidBody, BodyHandle>,
        activity: &[Activity],
        ground: u32,
        prediction: f64,
        motion: StepMotion,
    ) {
        self.proxies.clear();
        self.shape_poses.clear();
        self.collider_bodies.clear();
        self.sweeps.clear();
        self.sweeps.resize(colliders.capacity(), 0.0);
        for slot in 0..colliders.capacity() {
            let found = colliders
                .slot(slot)
                .filter(|c| c.enabled)
                .and_then(|c| body_of(c, bodies, ground).map(|body| (c, body)));
            self.collider_bodies.push(found.map(|(_, body)| body));
            let Some((collider, (_, pose))) = found else {
                self.proxies.push(Proxy::Absent);
                self.shape_poses.push(ParryPose::IDENTITY);
                continue;
            };
            let pose = collider.shape_pose(&pose);
            let shape = collider.shape.as_ref();
            let mut aabb = shape.compute_aabb(&pose);
            let mut sweep = 0.0;
            if let Some(body) = collider.body.and_then(|h| bodies.get(h)).filter(|b| b.ccd) {
                if shape.as_halfspace().is_none() {
                    (aabb, sweep) = swept_box(body, aabb, motion);
                }
            }
            self.sweeps[slot] = sweep;
            self.proxies
                .push(Proxy::of(aabb, shape.as_halfspace(), &pose, prediction));
            self.shape_poses.push(pose);
        }
        self.broad.update(&self.proxies, prediction);
        // Keep only pairs that may interact.
        let (proxies_len, mut kept) = (self.proxies.len(), 0);
        self.body_pairs.clear();
        self.sensor_pairs.clear();
        // Colliders that never move: the static world and static bodies.
        let fixed = |slot: u32| {
            slot == ground
                || bodies
                    .slot(slot as usize)
                    .is_none_or(|b| b.kind == BodyKind::Static)
        };
        for i in 0..self.broad.pairs.len() {
            let [a, b] = self.broad.pairs[i];
            debug_assert!((b as usize) < proxies_len);
            let (Some(ca), Some(cb)) = (colliders.slot(a as usize), colliders.slot(b as usize))
            else {
                continue;
            };
            if !ca.groups.interacts_with(cb.groups) {
                continue;
            }
            let (Some((sa, _)), Some((sb, _))) = (
                self.collider_bodies[a as usize],
                self.collider_bodies[b as usize],
            ) else {
                continue;
            };
            if ca.sensor || cb.sensor {
                // Overlap only (detect_overlaps): no waking, no manifolds.
                if !(ca.sensor && cb.sensor) && sa != sb && !(fixed(sa) && fixed(sb)) {
                    self.sensor_pairs.push([a, b]);
                }
                continue;
            }
            let (xa, xb) = (activity[sa as usize], activity[sb as usize]);
            if sa == sb || !(xa.can_be_pushed() || xb.can_be_pushed()) {
                continue;
            }
            self.broad.pairs[kept] = [a, b];
            kept += 1;
            self.body_pairs.push([sa, sb]);
        }
        self.broad.pairs.truncate(kept);
    }

    /// Step 4: contact manifolds of the candidate pairs, then the contact points after
    /// the hook. `activity` must already include this step's wake-ups. Fails only if the
    /// hook leaves an invalid value.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn narrow_phase(
        &mut self,
        colliders: &Arena<Collider, ColliderHandle>,
        activity: &[Activity],
        prediction: f64,
        hook: &HookSlot,
    ) -> Result<(), WorldError> {
        std::mem::swap(&mut self.pairs, &mut self.previous);
        // Both the last step's pairs and the broad phase's are sorted by collider slots:
        // a pair's state is found by walking the two lists together (no hashing).
        let mut cursor = 0;
        self.pairs.clear();
        self.points.clear();
        self.asleep_pairs.clear();
        self.unsupported_pairs = 0;
        for &[a, b] in &self.broad.pairs {
            let (Some(ha), Some(hb)) = (
                colliders.handle_at(a as usize),
                colliders.handle_at(b as usize),
            ) else {
                continue;
            };
            let key = [ha, hb];
            let slots =
                |pair: &PairState| broad_phase::key(pair.colliders.map(|h| h.index() as u32));
            let here = broad_phase::key([a, b]);
            while cursor < self.previous.len() && slots(&self.previous[cursor]) < here {
                cursor += 1;
            }
            prefetch_manifolds(self.previous.get(cursor + 1), self.previous.get(cursor + 2));
            let mut state = match self.previous.get_mut(cursor) {
                // Same slots but another generation: a new collider took a freed slot.
                Some(old) if old.colliders == key => std::mem::replace(old, PairState::new(key)),
                _ => PairState::new(key),
            };
            let (Some(ca), Some(cb)) = (colliders.get(ha), colliders.get(hb)) else {
                continue;
            };
            let (Some((sa, pose_a)), Some((sb, pose_b))) = (
                self.collider_bodies[a as usize],
                self.collider_bodies[b as usize],
            ) else {
                continue;
            };
            let (xa, xb) = (activity[sa as usize], activity[sb as usize]);
            if !(xa == Activity::Awake || xb == Activity::Awake) {
                // Asleep against asleep or fixed: keep the manifolds for when it wakes.
                if xa == Activity::Asleep || xb == Activity::Asleep {
                    self.asleep_pairs.push(self.pairs.len() as u32);
                    self.pairs.push(state);
                }
                continue;
            }
            if state.manifolds.capacity() == 0
                && single_manifold(ca.shape.as_ref())
                && single_manifold(cb.shape.as_ref())
            {
                // A new pair: reuse an ended pair's lists rather than allocate them.
                if let Some(spare) = self.spare_manifolds.pop() {
                    state.manifolds = spare;
                }
            }
            // By reference: copied out, the poses went through stack temporaries written in
            // 32-byte stores and read back in 16-byte loads across them, which stalled
            // store forwarding (with the frames' stall below, a fifth of the narrow phase's
            // time on S2).
            let (shape_a, shape_b) = (&self.shape_poses[a as usize], &self.shape_poses[b as usize]);
            let pos12 = shape_a.inv_mul(shape_b);
            // Continuous collision: look as far ahead as the two colliders may close.
            let prediction = prediction + self.sweeps[a as usize] + self.sweeps[b as usize];
            let found = pair_manifolds(
                &pos12,
                ca.shape.as_ref(),
                cb.shape.as_ref(),
                prediction,
                &mut state,
                &mut self.old_points,
            );
            if found.is_err() {
                self.unsupported_pairs += 1;
                state.manifolds.clear();
            }
            let pair_index = self.pairs.len() as u32;
            // A pair whose shapes are within reach of the broad phase but not of each other
            // (S2: 1,650 of its 4,370 pairs) has nothing to build.
            if state.manifolds.iter().all(|m| m.points.is_empty()) {
                self.pairs.push(state);
                continue;
            }
            let material = ca.material.combine(&cb.material);
            // The pair's part of every point's geometry, built once: copied per point from
            // a stack temporary written in other widths, the handles stalled store
            // forwarding (1.7 % of an S4 step).
            let pair_geometry = ContactGeometry {
                colliders: key,
                bodies: [ca.body, cb.body],
                user_data: [ca.user_data, cb.user_data],
                point: Vec3::ZERO,
                normal: Vec3::ZERO,
                separation: 0.0,
            };
            for (m, manifold) in state.manifolds.iter().enumerate() {
                // A compound's part moves the frame. A `match`, not `map_or`, whose closure
                // stayed out of line and handed the frame back through memory.
                let frame_a = match manifold.subshape_pos1() {
                    Some(sub) => *shape_a * *sub,
                    None => *shape_a,
                };
                let frame_b = match manifold.subshape_pos2() {
                    Some(sub) => *shape_b * *sub,
                    None => *shape_b,
                };
                // Read number by number: copied whole, the vector went through a stack
                // temporary written in two widths and read back in a third, which stalled
                // store forwarding (2 % of an S2 step).
                let n1 = &manifold.local_n1;
                let normal = (frame_a.rotation * Vec3::new(n1.x, n1.y, n1.z)).normalize();
                self.reduce_points.clear();
                let mut indices = [0u32; 16];
                for (p, tracked) in manifold.points.iter().enumerate() {
                    if tracked.dist <= prediction && self.reduce_points.len() < indices.len() {
                        indices[self.reduce_points.len()] = p as u32;
                        self.reduce_points.push(tracked.local_p1);
                    }
                }
                let mut keep = [0usize; reduce::MAX_POINTS];
                let kept = reduce::select(&self.reduce_points, manifold.local_n1, &mut keep);
                for &k in &keep[..kept] {
                    let p = indices[k] as usize;
                    let tracked = &manifold.points[p];
                    let anchors = [
                        frame_a.transform_point(tracked.local_p1),
                        frame_b.transform_point(tracked.local_p2),
                    ];
                    // Built inside the push, and the hook shown the pushed point's
                    // candidate, saving a copy of about 490 bytes
                    // (docs/performance.md#contact-storage-and-the-narrow-phase).
                    self.points.push(ContactPoint {
                        source: [pair_index, m as u32, p as u32],
                        candidate: ContactCandidate {
                            geometry: ContactGeometry {
                                point: 0.5 * (anchors[0] + anchors[1]),
                                normal,
                                separation: tracked.dist,
                                ..pair_geometry
                            },
                            friction: material.friction,
                            restitution: material.restitution,
                            restitution_threshold: material.restitution_threshold,
                            softness: material.softness,
                            surface_velocity: Vec3::ZERO,
                        },
                        slots: [sa, sb],
                        anchors,
                        local_anchors: [
                            pose_a.inverse_transform_point(anchors[0]),
                            pose_b.inverse_transform_point(anchors[1]),
                        ],
                        local_normal: pose_a.inverse_rotate(normal),
                        memory: tracked.data,
                        tangents: [Vec3::ZERO; 2],
                        bounce: None,
                        impact: 0.0,
                        normal_row: 0,
                        friction_rows: 0..0,
                    });
                    if let Some(hook) = &hook.0 {
                        let Some(point) = self.points.last_mut() else {
                            continue;
                        };
                        if hook.on_contact(&mut point.candidate) == HookAction::Reject {
                            self.points.pop();
                            continue;
                        }
                        point.candidate.validate()?;
                    }
                }
            }
            self.pairs.push(state);
        }
        self.recycle_ended_pairs();
        Ok(())
    }

    /// Step 5: which sensor pairs overlap, into [`Self::overlaps`] (sorted). A pair parry
    /// has no intersection test for counts in [`Self::unsupported_pairs`].
    fn detect_overlaps(&mut self, colliders: &Arena<Collider, ColliderHandle>) {
        self.overlaps.clear();
        for &[a, b] in &self.sensor_pairs {
            let (Some(ha), Some(hb)) = (
                colliders.handle_at(a as usize),
                colliders.handle_at(b as usize),
            ) else {
                continue;
            };
            let (Some(ca), Some(cb)) = (colliders.get(ha), colliders.get(hb)) else {
                continue;
            };
            let pos12 = self.shape_poses[a as usize].inv_mul(&self.shape_poses[b as usize]);
            match DefaultQueryDispatcher.intersection_test(
                &pos12,
                ca.shape.as_ref(),
                cb.shape.as_ref(),
            ) {
                Ok(test) if test.intersecting => {
                    self.overlaps.push(if ca.sensor {
                        SensorOverlap {
                            sensor: ha,
                            other: hb,
                            bodies: [ca.body, cb.body],
                        }
                    } else {
                        SensorOverlap {
                            sensor: hb,
                            other: ha,
                            bodies: [cb.body, ca.body],
                        }
                    });
                }
                Ok(_) => {}
                Err(_) => self.unsupported_pairs += 1,
            }
        }
        self.overlaps.sort_unstable_by_key(|o| (o.sensor, o.other));
    }

    /// Keeps the manifold lists of the pairs that ended (a single manifold, emptied) for
    /// new pairs, so that beginning pairs do not allocate.
    #[inline(always)]
    fn recycle_ended_pairs(&mut self) {
        let live = self.pairs.len();
        for ended in self.previous.drain(..) {
            let PairState {
                mut manifolds,
                workspace,
                ..
            } = ended;
            if workspace.is_none()
                && manifolds.len() == 1
                && manifolds[0].subshape_poses.is_none()
                && self.spare_manifolds.len() < live
            {
                let manifold = &mut manifolds[0];
                manifold.points.clear();
                manifold.local_n1 = Vec3::ZERO;
                manifold.local_n2 = Vec3::ZERO;
                manifold.subshape1 = 0;
                manifold.subshape2 = 0;
                self.spare_manifolds.push(manifolds);
            }
        }
    }

    /// Lists the points from the highest to the lowest along `-gravity` in
    /// [`Self::order`] (stable, so ties keep pair order). Gauss-Seidel visits rows in this
    /// order, so in one sweep the weight of a stack travels from its top to the ground; in
    /// the pair order (the ground's contacts first) it would climb down one contact per
    /// sweep.
    #[inline(always)]
    fn order_by_height(&mut self, gravity: Vec3) {
        // One height per pair (the mean of its points), so the points of one patch keep
        // parry's order: ordering them by their own heights would shuffle them with every
        // tiny tilt. A pair's points are contiguous, so whole runs are ordered (small keys,
        // no allocation). The points themselves, a few hundred bytes each, stay in pair
        // order (docs/performance.md#contact-storage-and-the-narrow-phase).
        let up = if gravity == Vec3::ZERO {
            Vec3::ZERO
        } else {
            -gravity.normalize()
        };
        self.runs.clear();
        for run in pair_runs(&self.points) {
            let points = &self.points[run.clone()];
            let pair = points[0].source[0];
            let sum: f64 = points
                .iter()
                .map(|p| up.dot(p.candidate.geometry.point))
                .sum();
            // In steps of HEIGHT_QUANTUM: pairs of one layer keep their pair order
            // instead of trading places with every nanometre of settling; a pair keeps
            // last step's step unless it moved HEIGHT_HYSTERESIS beyond it.
            let level = sum / points.len() as f64 / HEIGHT_QUANTUM;
            let height = match self.pairs.get_mut(pair as usize) {
                Some(state) => {
                    let height = match state.height_step {
                        Some(last)
                            if level >= last - HEIGHT_HYSTERESIS
                                && level < last + 1.0 + HEIGHT_HYSTERESIS =>
                        {
                            last
                        }
                        _ => level.floor(),
                    };
                    state.height_step = Some(height);
                    height
                }
                None => level.floor(),
            };
            self.runs.push((height, run.start as u32, run.end as u32));
        }
        if gravity == Vec3::ZERO {
            self.order.clear();
            self.order.extend(0..self.points.len() as u32);
        } else {
            order_runs_by_height(
                &mut self.runs,
                &mut self.order,
                &mut self.height_counts,
                &mut self.height_keys,
            );
        }
    }

    /// Once the points' memories hold the step's forces (after
    /// [`crate::contact::rows::read_forces`]), for a step of `h` seconds, in one walk over
    /// the points in pair order:
    /// - stores every point's memory back into its tracked contact for the next step (the
    ///   pairs' states and manifolds in the order they are stored, rather than in the
    ///   points' height order, whose scattered accesses wait on memory);
    /// - lists this step's touching pairs in [`Self::touching`] (sorted by collider
    ///   handles): each pair's points summed ([`summarize`]); a pair kept because its
    ///   bodies all sleep keeps its entry of `previous` (the last committed touching
    ///   pairs), with zero impulses.
    #[inline(always)]
    pub(crate) fn remember_and_summarize(&mut self, h: f64, previous: &[ContactPair]) {
        self.touching.clear();
        let (points, pairs) = (&self.points, &mut self.pairs);
        let mut runs = pair_runs(points).peekable();
        let mut asleep = self.asleep_pairs.iter().copied().peekable();
        loop {
            let next_run = runs.peek().map(|run| points[run.start].source[0]);
            // Both lists are in pair order; a sleeping pair has no points.
            let take_run = match (next_run, asleep.peek()) {
                (None, None) => break,
                (Some(pair), Some(&kept)) => pair < kept,
                (Some(_), None) => true,
                (None, Some(_)) => false,
            };
            if take_run {
                let Some(run) = runs.next() else { break };
                let points = &points[run];
                if let Some(pair) = pairs.get_mut(points[0].source[0] as usize) {
                    remember(pair, points);
                }
                if let Some(pair) = summarize(points, h) {
                    self.touching.push(pair);
                }
                continue;
            }
            let Some(kept) = asleep.next() else { break };
            let Some(state) = pairs.get(kept as usize) else {
                continue;
            };
            let key = state.colliders;
            if let Ok(i) = previous.binary_search_by(|p| p.colliders.cmp(&key)) {
                self.touching.push(ContactPair {
                    normal_impulse: 0.0,
                    friction_impulse: 0.0,
                    impulse: Vec3::ZERO,
                    points: 0,
                    asleep: true,
                    ..previous[i]
                });
            }
        }
    }

    /// Forgets every pair involving the collider in `slot` (removed or moved between
    /// bodies).
    pub(crate) fn forget_collider(&mut self, handle: ColliderHandle) {
        self.pairs.retain(|p| !p.colliders.contains(&handle));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handles::Handle;

    /// A contact point of pair `pair` at height `z` (only what ordering reads is set).
    fn point_at(pair: u32, z: f64) -> ContactPoint {
        let collider = |slot| ColliderHandle::from_parts(slot, 0);
        ContactPoint {
            source: [pair, 0, 0],
            ..ContactPoint::fixture(
                [collider(0), collider(pair + 1)],
                [0, pair + 1],
                Vec3::new(0.0, 0.0, z),
            )
        }
    }

    /// The pair order after ordering two pairs' points at `heights`.
    fn order(pipeline: &mut CollisionPipeline, heights: [f64; 2]) -> Vec<u32> {
        let handles = |slot| [0, slot].map(|s| ColliderHandle::from_parts(s, 0));
        if pipeline.pairs.is_empty() {
            pipeline.pairs = vec![PairState::new(handles(1)), PairState::new(handles(2))];
        }
        pipeline.points = vec![point_at(0, heights[0]), point_at(1, heights[1])];
        pipeline.order_by_height(Vec3::new(0.0, 0.0, -9.81));
        let points = &pipeline.points;
        pipeline
            .order
            .iter()
            .map(|&p| points[p as usize].source[0])
            .collect()
    }

    /// The counting sort gives the comparison sort's order on a pile's heights, as do the
    /// packed integers' sort on heights too spread for it and the comparison path on
    /// heights spread beyond that, on runs of several points.
    #[test]
    fn runs_are_ordered_as_sorting_them_by_height_would() {
        let mut seed = 12345u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        // Spreads for the counting sort, the packed integers' sort and (three times the
        // largest packed span) the comparison sort.
        for (spread, scale) in [
            (50u32, 1.0),
            (4000, 1.0),
            (10_000_000, 1.0),
            (u32::MAX, 3.0),
        ] {
            let mut runs = Vec::new();
            let mut start = 0u32;
            for _ in 0..300 {
                let length = 1 + next() % 4;
                let height = f64::from(next() % spread) * scale - 2000.0;
                runs.push((height, start, start + length));
                start += length;
            }
            let mut expected = runs.clone();
            expected.sort_by(|p, q| q.0.total_cmp(&p.0).then(p.1.cmp(&q.1)));
            let expected: Vec<u32> = expected.iter().flat_map(|r| r.1..r.2).collect();
            let (mut order, mut counts, mut keys) = (Vec::new(), Vec::new(), Vec::new());
            order_runs_by_height(&mut runs, &mut order, &mut counts, &mut keys);
            assert_eq!(order, expected, "spread {spread}");
            assert_eq!(order.len() as u32, start);
        }
    }

    #[test]
    fn a_pair_settling_across_a_height_step_keeps_its_place() {
        let mut settling = CollisionPipeline::default();
        // One 1 mm step (10.000 to 10.001 m): pair order, not height order.
        assert_eq!(order(&mut settling, [10.0004, 10.0006]), [0, 1]);
        // Pair 0 sinks half a micrometre below the step's edge: it keeps its step.
        assert_eq!(order(&mut settling, [9.9999995, 10.0006]), [0, 1]);
        // Seen for the first time there, it is a step lower, behind pair 1.
        assert_eq!(
            order(&mut CollisionPipeline::default(), [9.9999995, 10.0006]),
            [1, 0]
        );
        // Half a millimetre below the edge it leaves its step.
        assert_eq!(order(&mut settling, [9.9995, 10.0006]), [1, 0]);
        // Back at the start it is a step below pair 1's still (within a fifth of a step
        // of its new one's top), then back in its old step once clearly inside it.
        assert_eq!(order(&mut settling, [10.0001, 10.0006]), [1, 0]);
        assert_eq!(order(&mut settling, [10.0004, 10.0006]), [0, 1]);
    }
}
