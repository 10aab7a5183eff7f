//! Colliders: every shape rests on the ground at the height its geometry says; several
//! colliders on one body, compounds, static geometry with no body (half-space, triangle
//! mesh, heightfield) and colliders on static bodies all collide; collision groups and
//! the contact hook decide which contacts exist and with what material; contact forces
//! are reported consistently per point and per body; the broad phase finds only
//! neighbouring pairs.

use std::f64::consts::FRAC_PI_2;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use stiction::math::{Quat, Vec3};
use stiction::parry::shape::SharedShape;
use stiction::{
    BodyHandle, BodyKind, ColliderBuilder, CollisionGroups, HookAction, MassProperties, Pose,
    RigidBodyBuilder, Solver, World, WorldError,
};

const H: f64 = 1.0 / 60.0;

fn world_with_ground() -> World {
    let mut world = World::new();
    world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    world
}

fn body_at(world: &mut World, position: Vec3, orientation: Quat) -> BodyHandle {
    world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::cuboid_with_mass(Vec3::splat(0.2), 1.0).unwrap())
            .position(position)
            .orientation(orientation)
            .build()
            .unwrap(),
    )
}

/// Drops `collider` on a body released `drop` above its resting height `rest` and returns
/// the height after 2 s.
fn settle(world: &mut World, collider: ColliderBuilder, rest: f64, orientation: Quat) -> f64 {
    let body = body_at(world, Vec3::new(0.0, 0.0, rest + 0.05), orientation);
    world.add_collider(collider, Some(body)).unwrap();
    for _ in 0..120 {
        world.step(H).unwrap();
    }
    world.body(body).unwrap().position().z
}

#[test]
fn every_shape_rests_at_its_geometric_height() {
    let cube: Vec<Vec3> = (0..8)
        .map(|k| {
            let s = |bit: usize| if k & bit == 0 { -0.25 } else { 0.25 };
            Vec3::new(s(1), s(2), s(4))
        })
        .collect();
    let lying = Quat::from_rotation_x(FRAC_PI_2);
    let cases: Vec<(&str, ColliderBuilder, f64, Quat)> = vec![
        (
            "ball",
            ColliderBuilder::ball(0.3).unwrap(),
            0.3,
            Quat::IDENTITY,
        ),
        (
            "cuboid",
            ColliderBuilder::cuboid(Vec3::new(0.2, 0.3, 0.4)).unwrap(),
            0.4,
            Quat::IDENTITY,
        ),
        // A capsule along z, laid on its side (axis along y).
        (
            "capsule",
            ColliderBuilder::capsule(0.5, 0.2).unwrap(),
            0.2,
            lying,
        ),
        // A cylinder along z, standing on its flat end.
        (
            "cylinder",
            ColliderBuilder::cylinder(0.25, 0.3).unwrap(),
            0.25,
            Quat::IDENTITY,
        ),
        // A cone along z, standing on its base.
        (
            "cone",
            ColliderBuilder::cone(0.3, 0.4).unwrap(),
            0.3,
            Quat::IDENTITY,
        ),
        (
            "convex hull",
            ColliderBuilder::convex_hull(&cube).unwrap(),
            0.25,
            Quat::IDENTITY,
        ),
        (
            "compound dumbbell",
            ColliderBuilder::compound(vec![
                (
                    Pose {
                        position: Vec3::new(-0.5, 0.0, 0.0),
                        orientation: Quat::IDENTITY,
                    },
                    SharedShape::ball(0.2),
                ),
                (
                    Pose {
                        position: Vec3::new(0.5, 0.0, 0.0),
                        orientation: Quat::IDENTITY,
                    },
                    SharedShape::ball(0.2),
                ),
            ])
            .unwrap(),
            0.2,
            Quat::IDENTITY,
        ),
    ];
    for (name, collider, rest, orientation) in cases {
        let mut world = world_with_ground();
        let z = settle(&mut world, collider, rest, orientation);
        assert!(
            (z - rest).abs() < 1e-3,
            "{name}: rests at {z}, expected {rest}"
        );
    }
}

#[test]
fn several_colliders_on_one_body_sit_at_their_offsets() {
    // A dumbbell of two ball colliders at x = +-0.5 and a box collider raised above the
    // centre of mass: it rests on the two balls.
    let mut world = world_with_ground();
    let body = body_at(&mut world, Vec3::new(0.0, 0.0, 0.3), Quat::IDENTITY);
    for x in [-0.5, 0.5] {
        world
            .add_collider(
                ColliderBuilder::ball(0.2)
                    .unwrap()
                    .position(Vec3::new(x, 0.0, 0.0)),
                Some(body),
            )
            .unwrap();
    }
    world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::splat(0.1))
                .unwrap()
                .position(Vec3::new(0.0, 0.0, 0.3)),
            Some(body),
        )
        .unwrap();
    for _ in 0..120 {
        world.step(H).unwrap();
    }
    let z = world.body(body).unwrap().position().z;
    assert!((z - 0.2).abs() < 1e-3, "rests at {z}");
    assert_eq!(world.contacts().len(), 2);
    // A box dropped on the raised collider lands on it, 0.3 + 0.1 above the body.
    let top = body_at(&mut world, Vec3::new(0.0, 0.0, 1.2), Quat::IDENTITY);
    world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::splat(0.1)).unwrap(),
            Some(top),
        )
        .unwrap();
    for _ in 0..120 {
        world.step(H).unwrap();
    }
    let z_top = world.body(top).unwrap().position().z;
    assert!(
        (z_top - (0.2 + 0.4 + 0.1)).abs() < 2e-3,
        "top box at {z_top}"
    );
}

#[test]
fn static_meshes_heightfields_and_static_bodies_hold_a_ball() {
    let drop_ball = |world: &mut World, at: Vec3| {
        let ball = body_at(world, at, Quat::IDENTITY);
        world
            .add_collider(ColliderBuilder::ball(0.25).unwrap(), Some(ball))
            .unwrap();
        ball
    };
    // A triangle mesh square at z = 0.1, with no body.
    let mut world = World::new();
    let corners = vec![
        Vec3::new(-5.0, -5.0, 0.1),
        Vec3::new(5.0, -5.0, 0.1),
        Vec3::new(5.0, 5.0, 0.1),
        Vec3::new(-5.0, 5.0, 0.1),
    ];
    world
        .add_collider(
            ColliderBuilder::trimesh(corners, vec![[0, 1, 2], [0, 2, 3]]).unwrap(),
            None,
        )
        .unwrap();
    let ball = drop_ball(&mut world, Vec3::new(0.3, -0.2, 1.0));
    for _ in 0..120 {
        world.step(H).unwrap();
    }
    let z = world.body(ball).unwrap().position().z;
    assert!((z - 0.35).abs() < 1e-3, "on the mesh at {z}");

    // A heightfield 10 x 10 m with a step: rows (x) in the upper half are 0.4 high,
    // columns (y) in the upper half another 0.2. Balls on three quarters land at the
    // heights the layout says.
    let (rows, cols) = (21, 21);
    let heights: Vec<f64> = (0..rows * cols)
        .map(|k| {
            let (i, j) = (k / cols, k % cols);
            0.4 * f64::from(u8::from(i > rows / 2)) + 0.2 * f64::from(u8::from(j > cols / 2))
        })
        .collect();
    let mut world = World::new();
    world
        .add_collider(
            ColliderBuilder::heightfield(rows, cols, &heights, Vec3::new(10.0, 10.0, 1.0)).unwrap(),
            None,
        )
        .unwrap();
    let quarters = [
        (Vec3::new(-2.5, -2.5, 2.0), 0.0),
        (Vec3::new(2.5, -2.5, 2.0), 0.4),
        (Vec3::new(-2.5, 2.5, 2.0), 0.2),
        (Vec3::new(2.5, 2.5, 2.0), 0.6),
    ];
    let balls: Vec<_> = quarters
        .iter()
        .map(|(at, _)| drop_ball(&mut world, *at))
        .collect();
    for _ in 0..150 {
        world.step(H).unwrap();
    }
    for (ball, (at, ground)) in balls.iter().zip(quarters) {
        let z = world.body(*ball).unwrap().position().z;
        assert!(
            (z - (ground + 0.25)).abs() < 1e-3,
            "ball dropped at {at:?} rests at {z}, ground {ground}"
        );
    }

    // A collider on a static body is ground too.
    let mut world = World::new();
    let slab = world.add_body(
        RigidBodyBuilder::new(BodyKind::Static)
            .position(Vec3::new(0.0, 0.0, -0.5))
            .build()
            .unwrap(),
    );
    world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::new(5.0, 5.0, 0.5)).unwrap(),
            Some(slab),
        )
        .unwrap();
    let ball = drop_ball(&mut world, Vec3::new(0.0, 0.0, 1.0));
    for _ in 0..120 {
        world.step(H).unwrap();
    }
    let z = world.body(ball).unwrap().position().z;
    assert!((z - 0.25).abs() < 1e-3, "on the static body at {z}");
    assert_eq!(
        world.body(slab).unwrap().position(),
        Vec3::new(0.0, 0.0, -0.5)
    );
}

#[test]
fn collision_groups_decide_which_pairs_collide() {
    let fall = |ground: CollisionGroups, ball: CollisionGroups| {
        let mut world = World::new();
        world
            .add_collider(
                ColliderBuilder::halfspace(Vec3::Z).unwrap().groups(ground),
                None,
            )
            .unwrap();
        let body = body_at(&mut world, Vec3::new(0.0, 0.0, 0.3), Quat::IDENTITY);
        world
            .add_collider(
                ColliderBuilder::ball(0.25).unwrap().groups(ball),
                Some(body),
            )
            .unwrap();
        for _ in 0..60 {
            world.step(H).unwrap();
        }
        world.body(body).unwrap().position().z
    };
    let terrain = CollisionGroups::new(0b01, 0b11);
    let debris = CollisionGroups::new(0b10, 0b01);
    let ghost = CollisionGroups::new(0b10, 0b10);
    assert!((fall(terrain, debris) - 0.25).abs() < 1e-3);
    // The ghost does not accept terrain: it falls through.
    assert!(fall(terrain, ghost) < -1.0);
    assert!(fall(CollisionGroups::NONE, CollisionGroups::ALL) < -1.0);
}

#[test]
fn the_hook_sees_rejects_and_changes_contacts() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut world = world_with_ground();
    let body = body_at(&mut world, Vec3::new(0.0, 0.0, 0.3), Quat::IDENTITY);
    world
        .add_collider(
            ColliderBuilder::ball(0.25).unwrap().user_data(7),
            Some(body),
        )
        .unwrap();
    let counter = calls.clone();
    world.set_contact_hook(move |c: &mut stiction::ContactCandidate| {
        counter.fetch_add(1, Ordering::Relaxed);
        assert_eq!(c.geometry().user_data, [0, 7]);
        assert!((c.geometry().normal - Vec3::Z).length() < 1e-12);
        HookAction::Reject
    });
    for _ in 0..30 {
        world.step(H).unwrap();
    }
    assert!(calls.load(Ordering::Relaxed) > 0);
    assert!(
        world.body(body).unwrap().position().z < 0.0,
        "rejected contacts hold nothing"
    );

    // A conveyor: the hook gives the ground's surface a velocity; the box rides it.
    let mut world = world_with_ground();
    let crate_ = body_at(&mut world, Vec3::new(0.0, 0.0, 0.2), Quat::IDENTITY);
    world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::splat(0.2)).unwrap(),
            Some(crate_),
        )
        .unwrap();
    world.set_contact_hook(|c: &mut stiction::ContactCandidate| {
        c.surface_velocity = Vec3::new(0.5, 0.0, 0.0);
        c.friction = 1.0;
        HookAction::Keep
    });
    for _ in 0..60 {
        world.step(H).unwrap();
    }
    let v = world.body(crate_).unwrap().linear_velocity();
    assert!(
        (v - Vec3::new(0.5, 0.0, 0.0)).length() < 1e-3,
        "crate moves at {v:?}"
    );

    // A hook leaving an invalid value refuses the step and changes nothing.
    world.set_contact_hook(|c: &mut stiction::ContactCandidate| {
        c.friction = -1.0;
        HookAction::Keep
    });
    let before = world.body(crate_).unwrap().clone();
    assert!(matches!(
        world.step(H),
        Err(WorldError::InvalidSetting { .. })
    ));
    assert_eq!(world.body(crate_).unwrap(), &before);
    world.clear_contact_hook();
    world.step(H).unwrap();
}

#[test]
fn contact_forces_balance_the_weight_per_point_and_per_body() {
    for solver in [Solver::exact(), Solver::iterative()] {
        let mut world = world_with_ground();
        world.set_solver(solver).unwrap();
        let mass = 3.0;
        let block = world.add_body(
            RigidBodyBuilder::dynamic()
                .mass_properties(MassProperties::cuboid_with_mass(Vec3::splat(0.5), mass).unwrap())
                .position(Vec3::new(1.0, 2.0, 0.5))
                .build()
                .unwrap(),
        );
        world
            .add_collider(
                ColliderBuilder::cuboid(Vec3::splat(0.5)).unwrap(),
                Some(block),
            )
            .unwrap();
        for _ in 0..60 {
            world.step(H).unwrap();
        }
        let weight = mass * 9.81;
        let contacts = world.contacts();
        assert_eq!(contacts.len(), 4, "four corners");
        let normal_sum: f64 = contacts.iter().map(|c| c.force_local.x).sum();
        assert!((normal_sum - weight).abs() < 1e-6 * weight, "{normal_sum}");
        for c in contacts {
            // The ground is collider A, the block B: the force on B points up.
            assert_eq!(c.geometry.bodies, [None, Some(block)]);
            let [n, t1, t2] = c.frame;
            assert!((n - Vec3::Z).length() < 1e-12);
            assert!(n.dot(t1).abs() < 1e-12 && n.dot(t2).abs() < 1e-12 && t1.dot(t2).abs() < 1e-12);
            assert!((n.cross(t1) - t2).length() < 1e-12);
        }
        let wrench = world.contact_force(block).unwrap();
        assert!((wrench.force - Vec3::new(0.0, 0.0, weight)).length() < 1e-6 * weight);
        assert!(wrench.torque.length() < 1e-6 * weight);
    }
}

/// The velocity update and the reported contact forces agree: each body's change of
/// linear momentum over a step is its weight's impulse plus its contact force's, with
/// either stepper, in two separate tumbling piles (two islands) of tilted boxes.
#[test]
fn momentum_change_is_weight_plus_reported_contact_force() {
    for solver in [Solver::iterative(), Solver::exact()] {
        let mut world = world_with_ground();
        let mut settings = world.settings().clone();
        settings.solver = solver.clone();
        world.set_settings(settings).unwrap();
        let gravity = world.settings().gravity;
        let mut bodies = Vec::new();
        for pile in 0..2 {
            for level in 0..4 {
                let tilt = Quat::from_rotation_z(0.3 * level as f64)
                    * Quat::from_rotation_x(0.1 * (level + pile) as f64);
                let x = 5.0 * pile as f64 + 0.05 * level as f64;
                let body = body_at(
                    &mut world,
                    Vec3::new(x, 0.0, 0.3 + 0.45 * level as f64),
                    tilt,
                );
                let shape = ColliderBuilder::cuboid(Vec3::splat(0.2)).unwrap();
                world.add_collider(shape, Some(body)).unwrap();
                bodies.push(body);
            }
        }
        let (mut checked, mut islands) = (0, 0);
        for _ in 0..90 {
            let before: Vec<Vec3> = bodies
                .iter()
                .map(|&b| world.body(b).unwrap().velocity().linear)
                .collect();
            world.step(H).unwrap();
            islands = islands.max(world.step_stats().islands);
            for (&b, v0) in bodies.iter().zip(&before) {
                let v1 = world.body(b).unwrap().velocity().linear;
                let force = world.contact_force(b).unwrap().force;
                // Mass 1 kg: impulse equals change of velocity.
                let expected = H * (gravity + force);
                let error = ((v1 - *v0) - expected).length();
                assert!(
                    error < 1e-9 * (1.0 + H * force.length()),
                    "{solver:?}: {error:e}"
                );
                checked += usize::from(force.length() > 1.0);
            }
        }
        assert!(
            checked > 200,
            "{solver:?}: contacts carried weight in {checked} cases"
        );
        assert!(islands >= 2, "{solver:?}: {islands} islands");
    }
}

#[test]
fn removing_bodies_and_colliders_removes_their_contacts() {
    let mut world = world_with_ground();
    let body = body_at(&mut world, Vec3::new(0.0, 0.0, 0.25), Quat::IDENTITY);
    let ball = world
        .add_collider(ColliderBuilder::ball(0.25).unwrap(), Some(body))
        .unwrap();
    world.step(H).unwrap();
    assert_eq!(world.contacts().len(), 1);
    let removed = world.remove_collider(ball).unwrap();
    assert_eq!(removed.body(), Some(body));
    assert!(matches!(
        world.collider(ball),
        Err(WorldError::StaleCollider(_))
    ));
    world.step(H).unwrap();
    assert!(world.contacts().is_empty());
    world
        .add_collider(ColliderBuilder::ball(0.25).unwrap(), Some(body))
        .unwrap();
    assert_eq!(world.collider_count(), 2);
    world.remove_body(body).unwrap();
    assert_eq!(
        world.collider_count(),
        1,
        "the body's collider went with it"
    );
    world.step(H).unwrap();
    assert!(world.contacts().is_empty());
    // A stale body refuses new colliders.
    assert!(world
        .add_collider(ColliderBuilder::ball(0.1).unwrap(), Some(body))
        .is_err());
}

#[test]
fn invalid_shapes_and_materials_are_refused() {
    assert!(ColliderBuilder::ball(0.0).is_err());
    assert!(ColliderBuilder::ball(f64::NAN).is_err());
    assert!(ColliderBuilder::cuboid(Vec3::new(1.0, -1.0, 1.0)).is_err());
    assert!(ColliderBuilder::halfspace(Vec3::new(0.0, 0.0, 2.0)).is_err());
    assert!(ColliderBuilder::convex_hull(&[Vec3::ZERO; 4]).is_err());
    assert!(ColliderBuilder::convex_hull(&[Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::NAN]).is_err());
    assert!(ColliderBuilder::trimesh(vec![Vec3::ZERO, Vec3::X], vec![[0, 1, 2]]).is_err());
    assert!(ColliderBuilder::heightfield(1, 3, &[0.0; 3], Vec3::ONE).is_err());
    assert!(ColliderBuilder::heightfield(2, 2, &[0.0; 3], Vec3::ONE).is_err());
    assert!(ColliderBuilder::compound(Vec::new()).is_err());
    // A compound inside a compound is refused (parry would panic).
    let inner = SharedShape::compound(vec![(
        stiction::parry::math::Pose::IDENTITY,
        SharedShape::ball(1.0),
    )]);
    assert!(ColliderBuilder::compound(vec![(Pose::IDENTITY, inner)]).is_err());
    let mut world = World::new();
    let bad = ColliderBuilder::ball(1.0).unwrap().friction(-0.5);
    assert!(matches!(
        world.add_collider(bad, None),
        Err(WorldError::InvalidSetting { .. })
    ));
    let bad = ColliderBuilder::ball(1.0).unwrap().restitution(1.5);
    assert!(world.add_collider(bad, None).is_err());
    let bad = ColliderBuilder::ball(1.0)
        .unwrap()
        .position(Vec3::new(f64::INFINITY, 0.0, 0.0));
    assert!(matches!(
        world.add_collider(bad, None),
        Err(WorldError::InvalidCollider { .. })
    ));
    assert_eq!(world.collider_count(), 0);
}

#[test]
fn the_broad_phase_pairs_only_neighbours() {
    // A 20 x 20 layer of touching spheres (radius 0.5, spacing 1) on the ground and a
    // second such layer far away in the air. The boxes (loosened by the 1 cm prediction)
    // of side neighbours (2 * 19 * 20 per layer) and of diagonal neighbours (2 * 19 * 19,
    // whose corners overlap by 2 cm) overlap; the ground pairs with the 400 low spheres;
    // nothing else (an all-pairs test would look at 800 * 801 / 2 = 320400 pairs).
    let mut world = world_with_ground();
    for (z, x0) in [(0.5, 0.0), (50.0, 100.0)] {
        for i in 0..20 {
            for j in 0..20 {
                let body = body_at(
                    &mut world,
                    Vec3::new(x0 + 1.0 * i as f64, 1.0 * j as f64, z),
                    Quat::IDENTITY,
                );
                world
                    .add_collider(ColliderBuilder::ball(0.5).unwrap(), Some(body))
                    .unwrap();
            }
        }
    }
    let stats = world.step(H).unwrap();
    assert_eq!(stats.collision_pairs, 400 + 2 * (2 * 19 * 20 + 2 * 19 * 19));
}
