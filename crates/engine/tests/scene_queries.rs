//! Scene queries (docs/queries.md) give real answers:
//!
//! - a vertical ray onto the S1 pyramid hits the top box at its top face's height;
//! - rays at spheres hit at the analytic distance, with the analytic normal;
//! - a sphere swept at a box stops at the analytic time of impact (face and edge);
//! - over S2's pile after some steps, 1,000 random rays and 1,000 random ball overlaps (and
//!   projections, shape casts, box and point queries) give what testing every collider one
//!   by one gives, both through the refreshed tree and while it is stale;
//! - filters (groups, excluded collider and body, kinds, sensors, disabled colliders,
//!   predicate);
//! - a body moved by `body_mut`, a collider added or removed, and a step all leave the tree
//!   stale, and the queries still find what is where it is, before and after
//!   `refresh_queries`; refreshing changes nothing in the simulation;
//! - a lidar of 1,024 beams in one call matches 1,024 single casts and allocates nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use stiction::lcp::generate::SplitMix64;
use stiction::math::{Quat, Vec3};
use stiction::parry::math::Pose as ParryPose;
use stiction::parry::query::{self, Ray as ParryRay, ShapeCastOptions, ShapeCastStatus};
use stiction::parry::shape::{Ball, Cuboid, ShapeType};
use stiction::scenes::{pyramid_20, sphere_pile, sphere_pile_1000, SCENE_STEP};
use stiction::{
    BodyHandle, Collider, ColliderBuilder, ColliderHandle, CollisionGroups, MassProperties, Pose,
    QueryFilter, Ray, RigidBodyBuilder, Solver, World,
};

/// The system allocator, counting this thread's allocations and reallocations.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn allocations_so_far() -> usize {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: forwards every call unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const ALL: QueryFilter<'static> = QueryFilter::new();

/// The world pose of a collider's shape, computed here from its body's pose and its local
/// pose (valid for the shapes built in parry's own axes: balls, boxes, half-spaces).
fn shape_pose(world: &World, collider: &Collider) -> ParryPose {
    assert!(matches!(
        collider.shape().shape_type(),
        ShapeType::Ball | ShapeType::Cuboid | ShapeType::HalfSpace
    ));
    let body = world.pose(collider.body()).unwrap();
    let local = collider.local_pose();
    ParryPose::from_parts(
        body.transform_point(local.position),
        body.orientation * local.orientation,
    )
}

/// The first enabled collider the ray hits up to `max_toi`, by testing every one (ties
/// to the lowest slot).
fn brute_ray(
    world: &World,
    origin: Vec3,
    dir: Vec3,
    max_toi: f64,
) -> Option<(ColliderHandle, f64)> {
    let ray = ParryRay::new(origin, dir);
    let mut best: Option<(ColliderHandle, f64)> = None;
    for (handle, collider) in world.colliders().filter(|(_, c)| c.enabled()) {
        let pose = shape_pose(world, collider);
        if let Some(toi) = collider.shape().cast_ray(&pose, &ray, max_toi, true) {
            if best.is_none_or(|(_, b)| toi < b) {
                best = Some((handle, toi));
            }
        }
    }
    best
}

/// Every enabled collider `shape` at `pose` intersects, by testing every one.
fn brute_overlaps(
    world: &World,
    shape: &dyn stiction::parry::shape::Shape,
    pose: &Pose,
) -> Vec<ColliderHandle> {
    let pose = ParryPose::from_parts(pose.position, pose.orientation);
    world
        .colliders()
        .filter(|(_, c)| c.enabled())
        .filter(|(_, c)| {
            query::intersection_test(&pose, shape, &shape_pose(world, c), c.shape().as_ref())
                .unwrap()
                .intersecting
        })
        .map(|(h, _)| h)
        .collect()
}

fn unit_direction(rng: &mut SplitMix64) -> Vec3 {
    loop {
        let v = Vec3::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        );
        let n = v.length();
        if n > 0.1 && n <= 1.0 {
            return v / n;
        }
    }
}

fn at(position: Vec3) -> Pose {
    Pose {
        position,
        orientation: Quat::IDENTITY,
    }
}

/// The height at which the vertical line through `(x, y)` meets the top face of the unit
/// box at `pose`.
fn top_face_height(pose: Pose, x: f64, y: f64) -> f64 {
    let n = pose.orientation * Vec3::Z;
    let p = pose.transform_point(Vec3::new(0.0, 0.0, 0.5));
    p.z - (n.x * (x - p.x) + n.y * (y - p.y)) / n.z
}

#[test]
fn a_vertical_ray_hits_the_top_of_the_pyramid() {
    let mut scene = pyramid_20(Solver::iterative()).unwrap();
    let top = *scene.bodies.last().unwrap();
    let check = |world: &World| {
        let pose = world.pose(Some(top)).unwrap();
        let (x, y) = (pose.position.x + 0.2, pose.position.y - 0.1);
        let hit = world
            .cast_ray(Vec3::new(x, y, 100.0), -Vec3::Z, f64::INFINITY, &ALL)
            .expect("the ray hits the pyramid");
        assert_eq!(hit.body, Some(top));
        let expected = top_face_height(pose, x, y);
        assert!(
            (hit.point.z - expected).abs() < 1e-9,
            "{hit:?} vs {expected}"
        );
        assert!((hit.toi - (100.0 - expected)).abs() < 1e-9);
        assert!((hit.normal - pose.orientation * Vec3::Z).length() < 1e-9);
        hit
    };
    // As built: 20 rows of unit boxes, the top face at z = 20.
    assert!(!scene.world.queries_use_tree());
    let stale = check(&scene.world);
    assert!((stale.point.z - 20.0).abs() < 1e-9);
    scene.world.refresh_queries();
    assert!(scene.world.queries_use_tree());
    assert_eq!(check(&scene.world), stale);
    // After some steps (the boxes settle by micrometres), stale and then refreshed.
    for _ in 0..20 {
        scene.world.step(scene.h).unwrap();
    }
    assert!(!scene.world.queries_use_tree());
    let stale = check(&scene.world);
    scene.world.refresh_queries();
    assert_eq!(check(&scene.world), stale);
}

#[test]
fn rays_at_spheres_hit_at_the_analytic_distance() {
    let mut rng = SplitMix64::new(3);
    let mut world = World::new();
    let mut spheres = Vec::new();
    for _ in 0..60 {
        let centre = Vec3::new(
            rng.range(-10.0, 10.0),
            rng.range(-10.0, 10.0),
            rng.range(-10.0, 10.0),
        );
        let radius = rng.range(0.2, 1.5);
        let body = world.add_body(
            RigidBodyBuilder::dynamic()
                .mass_properties(MassProperties::sphere_with_mass(radius, 1.0).unwrap())
                .position(centre)
                .build()
                .unwrap(),
        );
        let collider = world
            .add_collider(ColliderBuilder::ball(radius).unwrap(), Some(body))
            .unwrap();
        spheres.push((collider, centre, radius));
    }
    // The first sphere along the ray: the smaller root of |o + t d - c|^2 = r^2.
    let analytic = |origin: Vec3, dir: Vec3| {
        spheres
            .iter()
            .filter_map(|&(collider, centre, radius)| {
                let (a, m) = (dir.length_squared(), origin - centre);
                let (b, c) = (m.dot(dir), m.length_squared() - radius * radius);
                let disc = b * b - a * c;
                (disc >= 0.0 && c > 0.0 && b < 0.0)
                    .then(|| (collider, centre, radius, (-b - disc.sqrt()) / a))
            })
            .min_by(|p, q| p.3.total_cmp(&q.3))
    };
    for refreshed in [false, true] {
        if refreshed {
            world.refresh_queries();
        }
        let mut hits = 0;
        for &(_, target, radius) in &spheres {
            // From far outside, aimed within the sphere's radius of its centre.
            // From outside every sphere (they all lie within 12 m of the origin).
            let origin = 40.0 * unit_direction(&mut rng);
            let aim = target + 0.9 * radius * unit_direction(&mut rng);
            let dir = (aim - origin) * rng.range(0.5, 2.0);
            let expected = analytic(origin, dir).expect("aimed at a sphere");
            let hit = world.cast_ray(origin, dir, f64::INFINITY, &ALL).unwrap();
            assert_eq!(hit.collider, expected.0);
            assert!(
                (hit.toi - expected.3).abs() < 1e-9,
                "{hit:?} vs {expected:?}"
            );
            let normal = (hit.point - expected.1) / expected.2;
            assert!((hit.normal - normal).length() < 1e-9);
            assert!((hit.point - origin - dir * expected.3).length() < 1e-9);
            hits += 1;
            // A limit just short of the hit misses that sphere.
            let short = world.cast_ray(origin, dir, expected.3 - 1e-6, &ALL);
            assert!(short.is_none_or(|s| s.collider != hit.collider));
        }
        assert_eq!(hits, spheres.len());
    }
}

#[test]
fn a_swept_sphere_stops_at_the_analytic_time_of_impact() {
    let mut world = World::new();
    // A static 2 x 2 x 1 m box: top face z = 0.5, side faces x, y = +-1.
    let block = world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::new(1.0, 1.0, 0.5)).unwrap(),
            None,
        )
        .unwrap();
    let r = 0.25;
    let ball = Ball::new(r);
    for refreshed in [false, true] {
        if refreshed {
            world.refresh_queries();
        }
        // Straight down onto the top face at 2 m/s from 3 m: it touches after 2.25 m.
        let start = at(Vec3::new(0.3, -0.2, 3.0));
        let hit = world
            .cast_shape(&ball, &start, Vec3::new(0.0, 0.0, -2.0), 10.0, &ALL)
            .unwrap();
        assert_eq!(hit.collider, block);
        assert_eq!(hit.status, ShapeCastStatus::Converged);
        assert!((hit.toi - 1.125).abs() < 1e-9, "{hit:?}");
        // The witness points come from parry's GJK, whose convergence leaves them about
        // 2e-7 m off along the face (the time of impact is exact to 1e-13).
        let contact = Vec3::new(0.3, -0.2, 0.5);
        assert!(
            (hit.witness_on_collider - contact).length() < 1e-6,
            "{hit:?}"
        );
        assert!((hit.witness_on_shape - contact).length() < 1e-6, "{hit:?}");
        assert!((hit.witness_on_collider.z - 0.5).abs() < 1e-9, "{hit:?}");
        assert!((hit.normal_on_shape + Vec3::Z).length() < 1e-9);
        assert!((hit.normal_on_collider - Vec3::Z).length() < 1e-9);
        // Not within 1.1 s.
        assert!(world
            .cast_shape(&ball, &start, Vec3::new(0.0, 0.0, -2.0), 1.1, &ALL)
            .is_none());
        // Diagonally onto the edge x = 1, z = 0.5: the centre (3 - t, 0, 2.5 - t) is r from
        // the edge when 2 - t = r / sqrt(2).
        let start = at(Vec3::new(3.0, 0.0, 2.5));
        let hit = world
            .cast_shape(&ball, &start, Vec3::new(-1.0, 0.0, -1.0), 10.0, &ALL)
            .unwrap();
        let toi = 2.0 - r / 2f64.sqrt();
        assert!((hit.toi - toi).abs() < 1e-9, "{hit:?} vs {toi}");
        assert!((hit.witness_on_collider - Vec3::new(1.0, 0.0, 0.5)).length() < 1e-6);
        let outward = Vec3::new(1.0, 0.0, 1.0).normalize();
        assert!(
            (hit.normal_on_collider - outward).length() < 1e-6,
            "{hit:?}"
        );
        // A box swept sideways into the side face x = -1, from x = -4 with half width 0.5.
        let plate = Cuboid::new(Vec3::new(0.5, 0.3, 0.3));
        let start = at(Vec3::new(-4.0, 0.5, 0.0));
        let hit = world
            .cast_shape(&plate, &start, Vec3::new(4.0, 0.0, 0.0), 10.0, &ALL)
            .unwrap();
        assert!((hit.toi - 2.5 / 4.0).abs() < 1e-9, "{hit:?}");
        // Already overlapping: time 0.
        let hit = world
            .cast_shape(&ball, &at(Vec3::new(0.0, 0.0, 0.6)), Vec3::Z, 10.0, &ALL)
            .unwrap();
        assert_eq!(hit.toi, 0.0);
        assert_eq!(hit.status, ShapeCastStatus::PenetratingOrWithinTargetDist);
    }
}

/// S2 after 30 steps (the lower layers have landed and press on each other).
fn stepped_pile() -> World {
    let mut scene = sphere_pile_1000(Solver::iterative()).unwrap();
    for _ in 0..30 {
        scene.world.step(SCENE_STEP).unwrap();
    }
    scene.world
}

fn random_point(rng: &mut SplitMix64) -> Vec3 {
    Vec3::new(
        rng.range(-9.0, 9.0),
        rng.range(-9.0, 9.0),
        rng.range(-0.5, 14.0),
    )
}

#[test]
fn queries_over_the_sphere_pile_match_testing_every_collider() {
    let mut world = stepped_pile();
    assert!(world.collider_count() > 1000);
    for refreshed in [false, true] {
        if refreshed {
            world.refresh_queries();
        }
        assert_eq!(world.queries_use_tree(), refreshed);
        let mut rng = SplitMix64::new(if refreshed { 21 } else { 20 });
        let (mut hits, mut overlaps) = (0, 0);
        for _ in 0..1000 {
            let (origin, dir) = (random_point(&mut rng), unit_direction(&mut rng));
            let max_toi = rng.range(1.0, 40.0);
            let hit = world.cast_ray(origin, dir, max_toi, &ALL);
            let expected = brute_ray(&world, origin, dir, max_toi);
            assert_eq!(hit.map(|h| h.collider), expected.map(|e| e.0));
            if let (Some(hit), Some((_, toi))) = (hit, expected) {
                assert!((hit.toi - toi).abs() < 1e-9, "{hit:?} vs {toi}");
                let body = world.collider(hit.collider).unwrap().body();
                assert_eq!(hit.body, body);
                hits += 1;
            }
        }
        for _ in 0..1000 {
            let ball = Ball::new(rng.range(0.05, 1.5));
            let pose = at(random_point(&mut rng));
            let found = world.intersect_shape(&ball, &pose, &ALL);
            assert_eq!(found, brute_overlaps(&world, &ball, &pose));
            overlaps += found.len();
        }
        // Enough of both to mean something.
        assert!(
            hits > 500 && overlaps > 1000,
            "{hits} hits, {overlaps} overlaps"
        );

        // Every hit along a ray, nearest points, boxes, points, shape casts.
        for _ in 0..100 {
            let (origin, dir) = (random_point(&mut rng), unit_direction(&mut rng));
            let all = world.cast_ray_all(origin, dir, 30.0, &ALL);
            let ray = ParryRay::new(origin, dir);
            let mut expected: Vec<(f64, usize)> = world
                .colliders()
                .filter_map(|(h, c)| {
                    let toi = c
                        .shape()
                        .cast_ray(&shape_pose(&world, c), &ray, 30.0, true)?;
                    Some((toi, h.index()))
                })
                .collect();
            expected.sort_by(|a, b| a.partial_cmp(b).unwrap());
            assert_eq!(all.len(), expected.len());
            for (hit, (toi, slot)) in all.iter().zip(&expected) {
                assert_eq!(hit.collider.index(), *slot);
                assert!((hit.toi - toi).abs() < 1e-9);
            }
            if let Some(first) = all.first() {
                assert_eq!(world.cast_ray(origin, dir, 30.0, &ALL), Some(*first));
            }

            let point = random_point(&mut rng);
            for solid in [true, false] {
                let projection = world.project_point(point, solid, &ALL).unwrap();
                let nearest = world
                    .colliders()
                    .map(|(h, c)| {
                        let p = c
                            .shape()
                            .project_point(&shape_pose(&world, c), point, solid);
                        (p.point.distance(point), h)
                    })
                    .min_by(|a, b| a.0.total_cmp(&b.0))
                    .unwrap();
                assert_eq!(projection.collider, nearest.1);
                assert!((projection.distance - nearest.0).abs() < 1e-9);
            }
            let containing = world.colliders_containing_point(point, &ALL);
            let expected: Vec<_> = world
                .colliders()
                .filter(|(_, c)| c.shape().contains_point(&shape_pose(&world, c), point))
                .map(|(h, _)| h)
                .collect();
            assert_eq!(containing, expected);

            let half = Vec3::new(
                rng.range(0.1, 2.0),
                rng.range(0.1, 2.0),
                rng.range(0.1, 2.0),
            );
            let boxed = world.intersect_aabb(point - half, point + half, &ALL);
            let query = stiction::parry::bounding_volume::Aabb::new(point - half, point + half);
            let expected: Vec<_> = world
                .colliders()
                .filter(|(_, c)| {
                    let pose = shape_pose(&world, c);
                    match c.shape().as_halfspace() {
                        // The ground z <= 0: the box reaches it if its bottom is at or below 0.
                        Some(_) => (point - half).z <= 0.0,
                        None => {
                            use stiction::parry::bounding_volume::BoundingVolume;
                            c.shape().compute_aabb(&pose).intersects(&query)
                        }
                    }
                })
                .map(|(h, _)| h)
                .collect();
            assert_eq!(boxed, expected);

            let ball = Ball::new(rng.range(0.05, 0.5));
            let start = at(random_point(&mut rng));
            let velocity = unit_direction(&mut rng) * rng.range(0.5, 5.0);
            let cast = world.cast_shape(&ball, &start, velocity, 5.0, &ALL);
            let start_pose = ParryPose::from_parts(start.position, start.orientation);
            let expected = world
                .colliders()
                .filter_map(|(h, c)| {
                    let hit = query::cast_shapes(
                        &start_pose,
                        velocity,
                        &ball,
                        &shape_pose(&world, c),
                        Vec3::ZERO,
                        c.shape().as_ref(),
                        ShapeCastOptions::with_max_time_of_impact(5.0),
                    )
                    .unwrap()?;
                    Some((hit.time_of_impact, h))
                })
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.index().cmp(&b.1.index())));
            assert_eq!(cast.map(|c| c.collider), expected.map(|e| e.1));
            if let (Some(cast), Some((toi, _))) = (cast, expected) {
                assert!((cast.toi - toi).abs() < 1e-9);
            }
        }
    }
}

/// Rotated boxes of many sizes, on bodies and as world geometry, over a tilted half-space
/// (rays answer boxes and half-spaces without parry after a refresh): the first hit, its distance and its normal equal
/// parry's ray cast on every collider, for rays from outside and from inside.
#[test]
fn rays_at_rotated_boxes_match_testing_every_collider() {
    let mut world = World::new();
    let mut rng = SplitMix64::new(31);
    for i in 0..300 {
        let half = Vec3::new(
            rng.range(0.05, 1.0),
            rng.range(0.05, 1.0),
            rng.range(0.05, 1.0),
        );
        let axis = unit_direction(&mut rng);
        let rotation = Quat::from_axis_angle(axis, rng.range(0.0, 3.0));
        let position = random_point(&mut rng);
        let collider = ColliderBuilder::cuboid(half).unwrap();
        if i % 2 == 0 {
            let body = world.add_body(
                RigidBodyBuilder::dynamic()
                    .mass_properties(MassProperties::cuboid_with_mass(half, 1.0).unwrap())
                    .position(position)
                    .orientation(rotation)
                    .build()
                    .unwrap(),
            );
            world.add_collider(collider, Some(body)).unwrap();
        } else {
            let pose = Pose {
                position,
                orientation: rotation,
            };
            world.add_collider(collider.pose(pose), None).unwrap();
        }
    }
    // A tilted half-space below them (rays answer it without parry too).
    let tilted = Vec3::new(0.2, -0.1, 1.0).normalize();
    world
        .add_collider(
            ColliderBuilder::halfspace(tilted)
                .unwrap()
                .position(Vec3::new(0.0, 0.0, -1.0)),
            None,
        )
        .unwrap();
    world.refresh_queries();
    assert!(world.queries_use_tree());
    let (mut hits, mut inside) = (0, 0);
    for _ in 0..2000 {
        let (origin, dir) = (random_point(&mut rng), unit_direction(&mut rng));
        let hit = world.cast_ray(origin, dir, 30.0, &ALL);
        let ray = ParryRay::new(origin, dir);
        let mut expected: Option<(ColliderHandle, f64, Vec3)> = None;
        for (handle, collider) in world.colliders() {
            let pose = shape_pose(&world, collider);
            if let Some(h) = collider
                .shape()
                .cast_ray_and_get_normal(&pose, &ray, 30.0, true)
            {
                if expected.is_none_or(|(_, t, _)| h.time_of_impact < t) {
                    expected = Some((handle, h.time_of_impact, h.normal));
                }
            }
        }
        assert_eq!(hit.map(|h| h.collider), expected.map(|e| e.0));
        if let (Some(hit), Some((_, toi, normal))) = (hit, expected) {
            assert!((hit.toi - toi).abs() < 1e-9, "{hit:?} vs {toi}");
            if toi == 0.0 {
                assert_eq!(hit.normal, Vec3::ZERO);
                inside += 1;
            } else {
                assert!((hit.normal - normal).length() < 1e-9, "{hit:?} vs {normal}");
            }
            hits += 1;
        }
    }
    assert!(
        hits > 800 && inside > 50,
        "{hits} hits, {inside} from inside"
    );
}

#[test]
fn filters_choose_the_colliders_reported() {
    let mut world = World::new();
    let ground = world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    let ball_at = |world: &mut World, z: f64, builder: RigidBodyBuilder| {
        let body = world.add_body(
            builder
                .mass_properties(MassProperties::sphere_with_mass(0.2, 1.0).unwrap())
                .position(Vec3::new(0.0, 0.0, z))
                .build()
                .unwrap(),
        );
        let collider = world
            .add_collider(ColliderBuilder::ball(0.2).unwrap(), Some(body))
            .unwrap();
        (body, collider)
    };
    // Down a vertical ray from z = 10: balls at 8 (group 1), 6 (group 2), a disabled one
    // at 7, a kinematic one at 4, a static one at 2, then the ground.
    let (top_body, top) = ball_at(&mut world, 8.0, RigidBodyBuilder::dynamic());
    world
        .collider_mut(top)
        .unwrap()
        .set_groups(CollisionGroups::new(0b01, u32::MAX));
    let (_, second) = ball_at(&mut world, 6.0, RigidBodyBuilder::dynamic());
    world
        .collider_mut(second)
        .unwrap()
        .set_groups(CollisionGroups::new(0b10, u32::MAX));
    world.collider_mut(second).unwrap().set_user_data(7);
    let (_, ghost) = ball_at(&mut world, 7.0, RigidBodyBuilder::dynamic());
    world.collider_mut(ghost).unwrap().set_enabled(false);
    let (_, moving) = ball_at(&mut world, 4.0, RigidBodyBuilder::kinematic());
    let (_, fixed) = ball_at(&mut world, 2.0, RigidBodyBuilder::static_body());

    let first = |world: &World, filter: &QueryFilter<'_>| {
        world
            .cast_ray(Vec3::new(0.0, 0.0, 10.0), -Vec3::Z, 100.0, filter)
            .map(|h| h.collider)
    };
    let all = |world: &World, filter: &QueryFilter<'_>| -> Vec<ColliderHandle> {
        world
            .cast_ray_all(Vec3::new(0.0, 0.0, 10.0), -Vec3::Z, 100.0, filter)
            .iter()
            .map(|h| h.collider)
            .collect()
    };
    let not_seven = |_: ColliderHandle, c: &Collider| c.user_data() != 7;
    let only_ground = |h: ColliderHandle, _: &Collider| h == ground;
    for refreshed in [false, true] {
        if refreshed {
            world.refresh_queries();
        }
        assert_eq!(world.queries_use_tree(), refreshed);
        let w = &world;
        assert_eq!(first(w, &ALL), Some(top));
        assert_eq!(all(w, &ALL), [top, second, moving, fixed, ground]);
        // Groups: a query in group 2 that accepts only group 2.
        let group_2 = QueryFilter::new().groups(CollisionGroups::new(0b10, 0b10));
        assert_eq!(first(w, &group_2), Some(second));
        // The ground and the others are in every group: only `top` is rejected.
        assert_eq!(all(w, &group_2), [second, moving, fixed, ground]);
        assert_eq!(
            first(w, &QueryFilter::new().exclude_body(top_body)),
            Some(second)
        );
        assert_eq!(
            first(w, &QueryFilter::new().exclude_collider(top)),
            Some(second)
        );
        assert_eq!(
            first(w, &QueryFilter::new().include_disabled()),
            Some(top),
            "the disabled ball is below the top one"
        );
        assert_eq!(
            all(w, &QueryFilter::new().include_disabled()),
            [top, ghost, second, moving, fixed, ground]
        );
        assert_eq!(
            first(w, &QueryFilter::new().exclude_dynamic()),
            Some(moving)
        );
        assert_eq!(
            all(w, &QueryFilter::new().exclude_dynamic().exclude_kinematic()),
            [fixed, ground]
        );
        assert_eq!(
            all(w, &QueryFilter::new().exclude_static()),
            [top, second, moving]
        );
        assert_eq!(
            all(
                w,
                &QueryFilter::new()
                    .exclude_collider(top)
                    .predicate(&not_seven)
            ),
            [moving, fixed, ground]
        );
        assert_eq!(
            first(w, &QueryFilter::new().predicate(&only_ground)),
            Some(ground)
        );
        // The same filters hold for the other queries.
        let point = Vec3::new(0.0, 0.0, 6.05);
        assert_eq!(world.colliders_containing_point(point, &ALL), [second]);
        assert!(world
            .colliders_containing_point(point, &QueryFilter::new().predicate(&not_seven))
            .is_empty());
        let near = world
            .project_point(point, true, &QueryFilter::new().exclude_collider(second))
            .unwrap();
        // The disabled ball at 7 is skipped: the top ball's surface is 1.75 m away, the
        // kinematic one's 1.85 m.
        assert_eq!(near.collider, top);
        assert!((near.distance - 1.75).abs() < 1e-12);
        let probe = Ball::new(5.0);
        let pose = at(Vec3::new(0.0, 0.0, 5.0));
        assert_eq!(
            world.intersect_shape(&probe, &pose, &QueryFilter::new().exclude_static()),
            [top, second, moving]
        );
        assert_eq!(
            world.intersect_aabb(
                Vec3::new(-1.0, -1.0, 5.0),
                Vec3::new(1.0, 1.0, 9.0),
                &QueryFilter::new().include_disabled()
            ),
            [top, second, ghost]
        );
    }
    // A sensor above them all: reported unless sensors are excluded.
    let zone = world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::splat(0.3))
                .unwrap()
                .position(Vec3::new(0.0, 0.0, 9.0))
                .sensor(true),
            None,
        )
        .unwrap();
    for refreshed in [false, true] {
        if refreshed {
            world.refresh_queries();
        }
        assert_eq!(first(&world, &ALL), Some(zone));
        assert_eq!(
            first(&world, &QueryFilter::new().exclude_sensors()),
            Some(top)
        );
        let no_sensors = |_: ColliderHandle, c: &Collider| !c.is_sensor();
        assert_eq!(
            first(&world, &QueryFilter::new().predicate(&no_sensors)),
            Some(top)
        );
    }
}

#[test]
fn a_moved_body_is_found_where_it_is_before_and_after_a_refresh() {
    let mut scene =
        sphere_pile(4, 3, stiction::scenes::scene_settings(Solver::iterative())).unwrap();
    for _ in 0..20 {
        scene.world.step(scene.h).unwrap();
    }
    let world = &mut scene.world;
    world.refresh_queries();
    assert!(world.queries_use_tree());
    let ball: BodyHandle = scene.bodies[5];
    let old = world.body(ball).unwrap().position();
    // Far beyond its leaf box's margin: a query trusting the tree would miss it.
    let new = Vec3::new(30.0, -20.0, 3.0);
    world.body_mut(ball).unwrap().set_position(new).unwrap();
    assert!(!world.queries_use_tree());
    let down = |world: &World, p: Vec3| {
        world
            .cast_ray(p + Vec3::new(0.1, 0.0, 20.0), -Vec3::Z, f64::INFINITY, &ALL)
            .unwrap()
    };
    for refreshed in [false, true] {
        if refreshed {
            world.refresh_queries();
            assert!(world.queries_use_tree());
        }
        let hit = down(world, new);
        assert_eq!(hit.body, Some(ball));
        let expected = new.z + (0.5f64.powi(2) - 0.1f64.powi(2)).sqrt();
        assert!((hit.point.z - expected).abs() < 1e-9);
        assert_ne!(down(world, old).body, Some(ball));
        let contained = world.colliders_containing_point(new, &ALL);
        assert_eq!(contained.len(), 1);
        assert_eq!(world.collider(contained[0]).unwrap().body(), Some(ball));
    }

    // A collider added after the refresh, then removed.
    let marker = world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::splat(0.5))
                .unwrap()
                .position(Vec3::new(-30.0, 0.0, 1.0)),
            None,
        )
        .unwrap();
    assert!(!world.queries_use_tree());
    let probe = Vec3::new(-30.0, 0.0, 10.0);
    let hit = world.cast_ray(probe, -Vec3::Z, 100.0, &ALL).unwrap();
    assert_eq!(hit.collider, marker);
    assert!((hit.point.z - 1.5).abs() < 1e-12);
    world.refresh_queries();
    assert_eq!(
        world
            .cast_ray(probe, -Vec3::Z, 100.0, &ALL)
            .unwrap()
            .collider,
        marker
    );
    world.remove_collider(marker).unwrap();
    assert!(!world.queries_use_tree());
    assert_ne!(
        world
            .cast_ray(probe, -Vec3::Z, 100.0, &ALL)
            .unwrap()
            .collider,
        marker
    );

    // A fast body after a step: the tree is behind it, the queries are not.
    world.refresh_queries();
    world
        .body_mut(ball)
        .unwrap()
        .set_linear_velocity(Vec3::new(0.0, 60.0, 0.0))
        .unwrap();
    world.refresh_queries();
    world.step(scene.h).unwrap();
    assert!(!world.queries_use_tree());
    let now = world.body(ball).unwrap().position();
    assert!((now - new).length() > 0.9, "it moved a metre in one step");
    assert_eq!(down(world, now).body, Some(ball));
    world.refresh_queries();
    assert_eq!(down(world, now).body, Some(ball));
}

#[test]
fn refreshing_the_queries_changes_nothing_in_the_simulation() {
    let settings = stiction::scenes::scene_settings(Solver::iterative());
    let mut plain = sphere_pile(4, 3, settings.clone()).unwrap();
    let mut refreshed = sphere_pile(4, 3, settings).unwrap();
    let mut rng = SplitMix64::new(8);
    for step in 0..120 {
        plain.world.step(plain.h).unwrap();
        refreshed.world.step(refreshed.h).unwrap();
        if step % 3 != 0 {
            refreshed.world.refresh_queries();
            // A few queries in between do not matter either.
            let origin = random_point(&mut rng);
            let _ = refreshed.world.cast_ray(origin, -Vec3::Z, 50.0, &ALL);
        }
        assert_eq!(
            plain.world.step_stats().collision_pairs,
            refreshed.world.step_stats().collision_pairs
        );
    }
    for (&a, &b) in plain.bodies.iter().zip(&refreshed.bodies) {
        assert_eq!(
            plain.world.body(a).unwrap().position(),
            refreshed.world.body(b).unwrap().position()
        );
    }
}

#[test]
fn a_restored_snapshot_answers_queries_without_a_tree() {
    let mut scene =
        sphere_pile(3, 2, stiction::scenes::scene_settings(Solver::iterative())).unwrap();
    for _ in 0..10 {
        scene.world.step(scene.h).unwrap();
    }
    scene.world.refresh_queries();
    let mut bytes = Vec::new();
    scene.world.save_snapshot(&mut bytes, 10).unwrap();
    let mut restored = World::load_snapshot(&bytes[..]).unwrap().world;
    assert!(!restored.queries_use_tree());
    let mut rng = SplitMix64::new(4);
    for refresh in [false, true] {
        if refresh {
            restored.refresh_queries();
        }
        for _ in 0..100 {
            let (origin, dir) = (random_point(&mut rng), unit_direction(&mut rng));
            assert_eq!(
                restored.cast_ray(origin, dir, 30.0, &ALL),
                scene.world.cast_ray(origin, dir, 30.0, &ALL)
            );
        }
    }
}

/// `count` directions spread evenly over the sphere (a Fibonacci lattice).
fn lidar_beams(origin: Vec3, count: usize) -> Vec<Ray> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..count)
        .map(|i| {
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / count as f64;
            let r = (1.0 - z * z).sqrt();
            let phi = golden * i as f64;
            Ray::new(origin, Vec3::new(r * phi.cos(), r * phi.sin(), z))
        })
        .collect()
}

#[test]
fn a_lidar_of_1024_beams_matches_single_casts_and_allocates_nothing() {
    let mut world = stepped_pile();
    // Above the pile and the walls.
    let beams = lidar_beams(Vec3::new(0.3, -0.2, 13.0), 1024);
    let mut out = Vec::with_capacity(beams.len());
    for refreshed in [false, true] {
        if refreshed {
            world.refresh_queries();
        }
        let before = allocations_so_far();
        world.cast_rays(&beams, 40.0, &ALL, &mut out);
        assert_eq!(allocations_so_far(), before, "no allocation beyond `out`");
        assert_eq!(out.len(), beams.len());
        let mut hits = 0;
        for (beam, answer) in beams.iter().zip(&out) {
            let single = world.cast_ray(beam.origin, beam.dir, 40.0, &ALL);
            assert_eq!(*answer, single);
            hits += usize::from(single.is_some());
        }
        // The steeper beams below the horizon meet a sphere, a wall or the ground within
        // 40 m (356 of the 512).
        assert!(hits > 300, "{hits}");
        // A second sweep reuses `out`.
        let capacity = out.capacity();
        world.cast_rays(&beams, 40.0, &ALL, &mut out);
        assert_eq!((out.len(), out.capacity()), (beams.len(), capacity));
    }
}

#[test]
fn a_ray_starting_inside_any_shape_hits_at_zero_with_a_zero_normal() {
    let mut world = World::new();
    let shapes = [
        ColliderBuilder::ball(0.5).unwrap(),
        ColliderBuilder::cuboid(Vec3::splat(0.5)).unwrap(),
        ColliderBuilder::cylinder(0.5, 0.5).unwrap(),
        ColliderBuilder::capsule(0.5, 0.3).unwrap(),
    ];
    for (i, shape) in shapes.into_iter().enumerate() {
        let x = 3.0 * i as f64;
        world
            .add_collider(shape.position(Vec3::new(x, 0.0, 0.0)), None)
            .unwrap();
        let origin = Vec3::new(x + 0.1, 0.05, 0.1);
        for dir in [Vec3::X, Vec3::Z, Vec3::new(1.0, -2.0, 0.5).normalize()] {
            let hit = world
                .cast_ray(origin, dir, 10.0, &QueryFilter::new())
                .expect("a solid ray from inside hits");
            assert_eq!(
                (hit.toi, hit.normal),
                (0.0, Vec3::ZERO),
                "shape {i}, dir {dir}"
            );
        }
        // From outside, the normal is the surface's.
        let hit = world
            .cast_ray(Vec3::new(x, 0.0, 5.0), -Vec3::Z, 10.0, &QueryFilter::new())
            .unwrap();
        assert!(
            (hit.normal - Vec3::Z).length() < 1e-9,
            "shape {i}: {}",
            hit.normal
        );
    }
}
