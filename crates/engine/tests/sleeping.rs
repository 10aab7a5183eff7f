//! Sleeping: bodies at rest for [`SleepSettings::time_until_sleep`] go to sleep together
//! with their island and then cost nothing (no contact points, no rows, no motion, bit
//! for bit); a contact with an awake body, a joint to an awake body, a user force or
//! velocity, or [`World::wake_up`] wakes the whole group. Off by default.

use stiction::math::Vec3;
use stiction::{
    BodyHandle, BodyKind, ColliderBuilder, MassProperties, RigidBodyBuilder, SleepSettings, World,
    WorldSettings,
};

const H: f64 = 1.0 / 60.0;

fn sleepy_world() -> World {
    let mut world = World::with_settings(WorldSettings {
        sleep: SleepSettings::on(),
        ..WorldSettings::default()
    })
    .unwrap();
    world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    world
}

fn add_box(world: &mut World, position: Vec3) -> BodyHandle {
    let half = Vec3::splat(0.5);
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::cuboid_with_mass(half, 1.0).unwrap())
            .position(position)
            .build()
            .unwrap(),
    );
    world
        .add_collider(ColliderBuilder::cuboid(half).unwrap(), Some(body))
        .unwrap();
    body
}

fn step(world: &mut World, steps: usize) {
    for _ in 0..steps {
        world.step(H).unwrap();
    }
}

/// A stack of `n` boxes, stepped until it sleeps (at most 5 s).
fn sleeping_stack(n: usize) -> (World, Vec<BodyHandle>) {
    let mut world = sleepy_world();
    let boxes: Vec<_> = (0..n)
        .map(|i| add_box(&mut world, Vec3::new(0.0, 0.0, 0.5 + i as f64)))
        .collect();
    for _ in 0..300 {
        world.step(H).unwrap();
        if boxes.iter().all(|&b| world.is_sleeping(b).unwrap()) {
            return (world, boxes);
        }
    }
    panic!("the stack never fell asleep");
}

#[test]
fn a_resting_stack_sleeps_as_one_group_and_costs_nothing() {
    let (mut world, boxes) = sleeping_stack(3);
    let poses: Vec<_> = boxes
        .iter()
        .map(|&b| world.body(b).unwrap().clone())
        .collect();
    for _ in 0..60 {
        let stats = world.step(H).unwrap();
        assert_eq!(stats.sleeping_bodies, 3);
        assert_eq!((stats.contacts, stats.rows, stats.islands), (0, 0, 0));
        assert_eq!(stats.free_bodies + stats.constrained_bodies, 0);
    }
    for (b, before) in boxes.iter().zip(&poses) {
        let body = world.body(*b).unwrap();
        assert_eq!(body.position(), before.position());
        assert_eq!(body.orientation(), before.orientation());
        assert_eq!(body.linear_velocity(), Vec3::ZERO);
    }
    assert!(world.contacts().is_empty());
}

#[test]
fn a_falling_body_wakes_the_whole_group_it_lands_on() {
    let (mut world, boxes) = sleeping_stack(3);
    // A box dropped onto the top: its contact wakes the top box, and with it the group.
    let falling = add_box(&mut world, Vec3::new(0.2, 0.0, 5.5));
    let mut woke = false;
    for _ in 0..90 {
        world.step(H).unwrap();
        let awake = boxes
            .iter()
            .filter(|&&b| !world.is_sleeping(b).unwrap())
            .count();
        assert!(awake == 0 || awake == 3, "groups wake whole ({awake} of 3)");
        woke |= awake == 3;
    }
    assert!(woke, "the stack never woke");
    // The newcomer came to rest on the stack, which then sleeps again, all four together.
    for _ in 0..300 {
        world.step(H).unwrap();
    }
    let z = world.body(falling).unwrap().position().z;
    assert!((z - 3.5).abs() < 0.01, "the dropped box rests at {z}");
    assert!(boxes
        .iter()
        .chain([&falling])
        .all(|&b| world.is_sleeping(b).unwrap()));
}

#[test]
fn user_forces_velocities_and_wake_up_wake_sleepers() {
    let (mut world, boxes) = sleeping_stack(2);
    world
        .body_mut(boxes[0])
        .unwrap()
        .add_force(Vec3::new(50.0, 0.0, 0.0))
        .unwrap();
    world.step(H).unwrap();
    assert!(!world.is_sleeping(boxes[0]).unwrap() && !world.is_sleeping(boxes[1]).unwrap());
    assert!(world.body(boxes[0]).unwrap().linear_velocity().x > 0.0);

    let (mut world, boxes) = sleeping_stack(2);
    world
        .body_mut(boxes[1])
        .unwrap()
        .set_linear_velocity(Vec3::new(0.0, 1.0, 0.0))
        .unwrap();
    world.step(H).unwrap();
    assert!(!world.is_sleeping(boxes[0]).unwrap());

    let (mut world, boxes) = sleeping_stack(2);
    world.wake_up(boxes[1]).unwrap();
    assert!(!world.is_sleeping(boxes[0]).unwrap() && !world.is_sleeping(boxes[1]).unwrap());
}

#[test]
fn a_joint_to_an_awake_body_wakes_a_sleeper() {
    let (mut world, boxes) = sleeping_stack(1);
    // A pendulum bob swinging from the world, then tied to the sleeping box.
    let bob = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.1, 0.2).unwrap())
            .position(Vec3::new(3.0, 0.0, 2.0))
            .build()
            .unwrap(),
    );
    world
        .add_ball_joint(bob, None, Vec3::new(2.0, 0.0, 2.0))
        .unwrap();
    step(&mut world, 5);
    assert!(world.is_sleeping(boxes[0]).unwrap(), "no link yet");
    world
        .add_ball_joint(bob, Some(boxes[0]), Vec3::new(2.0, 0.0, 1.0))
        .unwrap();
    world.step(H).unwrap();
    assert!(!world.is_sleeping(boxes[0]).unwrap());
}

#[test]
fn a_moving_kinematic_body_wakes_what_it_touches() {
    let (mut world, boxes) = sleeping_stack(1);
    let pusher = world.add_body(
        RigidBodyBuilder::new(BodyKind::Kinematic)
            .position(Vec3::new(-3.0, 0.0, 0.5))
            .linear_velocity(Vec3::new(1.0, 0.0, 0.0))
            .build()
            .unwrap(),
    );
    world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::splat(0.5)).unwrap(),
            Some(pusher),
        )
        .unwrap();
    step(&mut world, 60);
    assert!(world.is_sleeping(boxes[0]).unwrap(), "still a metre away");
    step(&mut world, 90);
    assert!(!world.is_sleeping(boxes[0]).unwrap());
    assert!(
        world.body(boxes[0]).unwrap().position().x > 0.2,
        "pushed along"
    );
}

#[test]
fn bodies_never_sleep_by_default() {
    let mut world = World::new();
    world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    let b = add_box(&mut world, Vec3::new(0.0, 0.0, 0.5));
    step(&mut world, 300);
    assert!(!world.is_sleeping(b).unwrap());
    assert_eq!(world.step_stats().sleeping_bodies, 0);
    let invalid = WorldSettings {
        sleep: SleepSettings {
            time_until_sleep: -1.0,
            ..SleepSettings::on()
        },
        ..WorldSettings::default()
    };
    assert!(World::with_settings(invalid).is_err());
}
