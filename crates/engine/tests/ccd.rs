//! Continuous collision (docs/ccd.md): fast bodies with `ccd` on do not pass through a
//! 1 cm wall or through each other at h = 1/60, and without it they do (the test shows the
//! difference); a fast body still comes to rest in front of the wall.

use stiction::math::{Quat, Vec3};
use stiction::{ColliderBuilder, RigidBodyBuilder, Solver, World, WorldSettings};

const H: f64 = 1.0 / 60.0;
/// The wall: 1 cm thick, its front face at x = 2.
const WALL_FRONT: f64 = 2.0;
const WALL_HALF: f64 = 0.005;

/// A world without gravity holding the wall (a static body).
fn wall_world(solver: Solver) -> World {
    let settings = WorldSettings {
        gravity: Vec3::ZERO,
        solver,
        ..WorldSettings::default()
    };
    let mut world = World::with_settings(settings).unwrap();
    let wall = world.add_body(
        RigidBodyBuilder::static_body()
            .position(Vec3::new(WALL_FRONT + WALL_HALF, 0.0, 0.0))
            .build()
            .unwrap(),
    );
    world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::new(WALL_HALF, 2.0, 2.0)).unwrap(),
            Some(wall),
        )
        .unwrap();
    world
}

enum Shot {
    Sphere,
    /// A box tumbling as it flies.
    Box,
}

/// Shoots `shot` (5 cm across) at the wall at `speed`; returns the largest x its front
/// reached over 2 s: past `WALL_FRONT` (by more than round-off) is inside or behind the wall.
fn shoot(shot: &Shot, speed: f64, ccd: bool, solver: Solver) -> f64 {
    let mut world = wall_world(solver);
    let start = Vec3::new(0.0, 0.0, 0.0);
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .position(start)
            .orientation(Quat::from_rotation_z(0.3))
            .linear_velocity(Vec3::new(speed, 0.0, 0.0))
            .angular_velocity(match shot {
                Shot::Sphere => Vec3::ZERO,
                Shot::Box => Vec3::new(0.0, 3.0, 20.0),
            })
            .ccd(ccd)
            .build()
            .unwrap(),
    );
    let (collider, reach) = match shot {
        Shot::Sphere => (ColliderBuilder::ball(0.025).unwrap(), 0.025),
        // The farthest point of a 5 cm cube from its centre.
        Shot::Box => (
            ColliderBuilder::cuboid(Vec3::splat(0.025)).unwrap(),
            0.025 * 3f64.sqrt(),
        ),
    };
    world.add_collider(collider, Some(body)).unwrap();
    let mut front = f64::MIN;
    for _ in 0..120 {
        world.step(H).unwrap();
        let b = world.body(body).unwrap();
        // A sphere's front is exact; a tumbling box's is bounded by its reach.
        let x = match shot {
            Shot::Sphere => b.position().x + reach,
            Shot::Box => farthest_x(b.position(), b.orientation()),
        };
        front = front.max(x);
        if b.position().x > WALL_FRONT + 2.0 * WALL_HALF {
            // Behind the wall: it tunnelled.
            return f64::INFINITY;
        }
    }
    front
}

/// The largest x of a 5 cm cube's corners.
fn farthest_x(center: Vec3, orientation: Quat) -> f64 {
    let mut best = f64::MIN;
    for i in 0..8 {
        let corner = Vec3::new(
            if i & 1 == 0 { -0.025 } else { 0.025 },
            if i & 2 == 0 { -0.025 } else { 0.025 },
            if i & 4 == 0 { -0.025 } else { 0.025 },
        );
        best = best.max((center + orientation * corner).x);
    }
    best
}

#[test]
fn fast_spheres_and_boxes_stop_at_a_thin_wall_with_ccd_and_tunnel_without() {
    for solver in [Solver::default(), Solver::iterative()] {
        for shot in [Shot::Sphere, Shot::Box] {
            for speed in [10.0, 100.0, 1000.0] {
                let with = shoot(&shot, speed, true, solver.clone());
                assert!(
                    with <= WALL_FRONT + 1e-3,
                    "{speed} m/s with ccd: front reached x = {with}"
                );
                // Without it, a body that moves more than the wall's thickness plus its own
                // size in a step passes through unless a step happens to end overlapping
                // the wall (at 10 m/s, 16.7 cm a step, this one does).
                if speed >= 100.0 {
                    let without = shoot(&shot, speed, false, solver.clone());
                    assert!(
                        without.is_infinite(),
                        "{speed} m/s without ccd should pass through a 1 cm wall (reached {without})"
                    );
                }
            }
        }
    }
}

#[test]
fn two_fast_ccd_spheres_do_not_pass_through_each_other() {
    for speed in [50.0, 500.0] {
        let settings = WorldSettings {
            gravity: Vec3::ZERO,
            ..WorldSettings::default()
        };
        let mut world = World::with_settings(settings).unwrap();
        let mut ball = |x: f64, v: f64| {
            let b = world.add_body(
                RigidBodyBuilder::dynamic()
                    .position(Vec3::new(x, 0.0, 0.0))
                    .linear_velocity(Vec3::new(v, 0.0, 0.0))
                    .ccd(true)
                    .build()
                    .unwrap(),
            );
            world
                .add_collider(ColliderBuilder::ball(0.025).unwrap(), Some(b))
                .unwrap();
            b
        };
        let left = ball(-1.0, speed);
        let right = ball(1.0, -speed);
        for _ in 0..60 {
            world.step(H).unwrap();
            let gap =
                world.body(right).unwrap().position().x - world.body(left).unwrap().position().x;
            assert!(gap >= 0.05 - 1e-3, "{speed} m/s: centres {gap} m apart");
        }
    }
}

#[test]
fn a_fast_ball_comes_to_rest_in_front_of_the_wall() {
    // With gravity and a floor: shot at 200 m/s, it stops at the wall, drops and rests.
    let mut world = World::new();
    world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    let wall = world.add_body(
        RigidBodyBuilder::static_body()
            .position(Vec3::new(WALL_FRONT + WALL_HALF, 0.0, 1.0))
            .build()
            .unwrap(),
    );
    world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::new(WALL_HALF, 2.0, 1.0)).unwrap(),
            Some(wall),
        )
        .unwrap();
    let ball = world.add_body(
        RigidBodyBuilder::dynamic()
            .position(Vec3::new(0.0, 0.0, 0.5))
            .linear_velocity(Vec3::new(200.0, 0.0, 0.0))
            .ccd(true)
            .build()
            .unwrap(),
    );
    world
        .add_collider(ColliderBuilder::ball(0.025).unwrap(), Some(ball))
        .unwrap();
    for _ in 0..300 {
        world.step(H).unwrap();
    }
    let b = world.body(ball).unwrap();
    assert!(
        b.position().x + 0.025 <= WALL_FRONT + 1e-3,
        "{:?}",
        b.position()
    );
    assert!((b.position().z - 0.025).abs() < 1e-3, "{:?}", b.position());
    assert!(
        b.linear_velocity().length() < 0.05,
        "{:?}",
        b.linear_velocity()
    );
}

#[test]
fn ccd_survives_a_snapshot() {
    let mut world = wall_world(Solver::default());
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .linear_velocity(Vec3::new(300.0, 0.0, 0.0))
            .ccd(true)
            .build()
            .unwrap(),
    );
    world
        .add_collider(ColliderBuilder::ball(0.025).unwrap(), Some(body))
        .unwrap();
    let mut bytes = Vec::new();
    world.save_snapshot(&mut bytes, 0).unwrap();
    let mut restored = World::load_snapshot(bytes.as_slice()).unwrap().world;
    assert!(restored.body(body).unwrap().ccd_enabled());
    for _ in 0..30 {
        restored.step(H).unwrap();
    }
    assert!(restored.body(body).unwrap().position().x + 0.025 <= WALL_FRONT + 1e-3);
}
