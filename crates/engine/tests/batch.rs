//! `WorldBatch`: many worlds stepped on a thread pool give, world by world, the bits
//! stepping each alone gives, whatever the thread count; a world that fails is held and
//! reported while the others go on; actions land where the layout says.

use stiction::math::Vec3;
use stiction::scenes::{scene_settings, stack};
use stiction::{
    BatchActions, BatchError, BatchLayout, JointServo, MassProperties, RigidBodyBuilder, Solver,
    World, WorldBatch, WorldStatus,
};

const H: f64 = 1.0 / 60.0;

/// An S4-like stack of five unit boxes, world `k` (of 64) differing in its solver, the
/// top box's sideways offset and its initial spin, so that no two worlds are alike.
fn stack_world(k: usize) -> World {
    let solver = if k % 2 == 0 {
        Solver::exact()
    } else {
        Solver::iterative()
    };
    let mut scene = stack(5, scene_settings(solver)).unwrap();
    let top = *scene.bodies.last().unwrap();
    let body = scene.world.body_mut(top).unwrap();
    let p = body.position();
    body.set_position(p + Vec3::new(0.002 * k as f64, 0.0, 0.0))
        .unwrap();
    body.set_angular_velocity(Vec3::new(0.0, 0.0, 0.05 * k as f64))
        .unwrap();
    scene.world
}

/// Forces for world `k`, body `b`, at step call `call`: a push on the top box.
fn force(k: usize, b: usize, call: usize) -> [f64; 3] {
    if b == 4 {
        [0.5 * (k % 7) as f64, 0.3 * call as f64, 0.0]
    } else {
        [0.0; 3]
    }
}

fn bits(world: &World) -> Vec<u64> {
    world
        .bodies()
        .flat_map(|(_, b)| {
            let q = b.orientation();
            let mut v: Vec<f64> = b.position().to_array().to_vec();
            v.extend([q.w, q.x, q.y, q.z]);
            v.extend(b.linear_velocity().to_array());
            v.extend(b.angular_velocity().to_array());
            v
        })
        .map(f64::to_bits)
        .collect()
}

#[test]
fn a_batch_of_64_stacks_steps_each_world_bit_for_bit_as_alone_on_1_2_and_4_threads() {
    const WORLDS: usize = 64;
    const CALLS: usize = 6;
    const STEPS: usize = 10;
    // Each world alone, with the same actions.
    let alone: Vec<Vec<u64>> = (0..WORLDS)
        .map(|k| {
            let mut world = stack_world(k);
            for call in 0..CALLS {
                for _ in 0..STEPS {
                    for (b, (handle, _)) in world
                        .bodies()
                        .map(|(h, b)| (h, b.position()))
                        .collect::<Vec<_>>()
                        .into_iter()
                        .enumerate()
                    {
                        let [x, y, z] = force(k, b, call);
                        world
                            .body_mut(handle)
                            .unwrap()
                            .add_force(Vec3::new(x, y, z))
                            .unwrap();
                    }
                    world.step(H).unwrap();
                }
            }
            bits(&world)
        })
        .collect();
    // The worlds really differ (else the test could not tell them apart).
    assert!(alone.windows(2).all(|w| w[0] != w[1]));

    for threads in [1, 2, 4] {
        let worlds = (0..WORLDS).map(stack_world).collect();
        let mut batch = WorldBatch::new(worlds, threads).unwrap();
        assert_eq!(batch.threads(), threads);
        let bodies = batch.layout(0).unwrap().bodies.len();
        assert_eq!(bodies, 5, "five boxes (the ground is a collider)");
        for call in 0..CALLS {
            let forces: Vec<f64> = (0..WORLDS)
                .flat_map(|k| (0..bodies).flat_map(move |b| force(k, b, call)))
                .collect();
            let actions = BatchActions {
                forces: Some(&forces),
                ..Default::default()
            };
            assert_eq!(batch.step(H, STEPS, &actions).unwrap(), Vec::<usize>::new());
        }
        for (k, expected) in alone.iter().enumerate() {
            assert_eq!(
                &bits(batch.world(k).unwrap()),
                expected,
                "world {k}, {threads} threads"
            );
        }
        let state = batch.state().unwrap();
        assert_eq!(state.positions.len(), WORLDS * bodies * 3);
        assert_eq!(state.orientations.len(), WORLDS * bodies * 4);
        assert!(state
            .times
            .iter()
            .all(|&t| (t - (CALLS * STEPS) as f64 * H).abs() < 1e-12));
        // The flat state is world 5's bodies in layout order.
        let world = batch.world(5).unwrap();
        let top = batch.layout(5).unwrap().bodies[4];
        let p = world.body(top).unwrap().position();
        assert_eq!(&state.positions[(5 * bodies + 4) * 3..][..3], &p.to_array());
    }
}

#[test]
fn a_world_given_a_non_finite_force_is_held_and_reported_while_the_others_go_on() {
    let mut batch = WorldBatch::new((0..64).map(stack_world).collect(), 2).unwrap();
    let bodies = batch.layout(0).unwrap().bodies.len();
    let mut forces = vec![0.0; 64 * bodies * 3];
    batch.step(H, 5, &BatchActions::default()).unwrap();
    let held = bits(batch.world(17).unwrap());
    forces[(17 * bodies + 4) * 3] = f64::NAN;
    let actions = BatchActions {
        forces: Some(&forces),
        ..Default::default()
    };
    assert_eq!(batch.step(H, 5, &actions).unwrap(), vec![17]);
    assert!(matches!(
        batch.status(17).unwrap(),
        WorldStatus::Failed { time, .. } if (*time - 5.0 * H).abs() < 1e-12
    ));
    // Held: not stepped again, its state as before the refused action.
    assert_eq!(batch.step(H, 5, &actions).unwrap(), Vec::<usize>::new());
    assert_eq!(bits(batch.world(17).unwrap()), held);
    let state = batch.state().unwrap();
    assert_eq!(state.failed.iter().filter(|&&f| f).count(), 1);
    for k in (0..64).filter(|&k| k != 17) {
        assert!(
            (state.times[k] - 15.0 * H).abs() < 1e-12,
            "world {k} went on"
        );
        assert!(matches!(batch.status(k).unwrap(), WorldStatus::Running));
    }
    assert!((state.times[17] - 5.0 * H).abs() < 1e-12);
    // A reset brings it back.
    batch.reset(17, stack_world(17)).unwrap();
    assert!(matches!(batch.status(17).unwrap(), WorldStatus::Running));
    batch.step(H, 1, &BatchActions::default()).unwrap();
    assert!((batch.world(17).unwrap().time() - H).abs() < 1e-12);
}

#[test]
fn servo_targets_drive_each_world_to_its_own_angle() {
    // A hinge arm on a position servo, gravity off; world k aims at 0.1 k rad.
    let mut world = World::new();
    world.set_gravity(Vec3::ZERO).unwrap();
    let arm = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(
                MassProperties::cuboid_with_mass(Vec3::new(0.5, 0.05, 0.05), 1.0).unwrap(),
            )
            .position(Vec3::new(0.5, 0.0, 0.0))
            .build()
            .unwrap(),
    );
    let hinge = world
        .add_hinge_joint(arm, None, Vec3::ZERO, Vec3::Z)
        .unwrap();
    world
        .joint_mut(hinge)
        .unwrap()
        .set_servo(
            0,
            Some(JointServo {
                target_position: 0.0,
                target_velocity: 0.0,
                stiffness: 50.0,
                damping: 10.0,
                max_force: f64::INFINITY,
            }),
        )
        .unwrap();
    let mut batch = WorldBatch::copies(&world, 8, 2).unwrap();
    assert_eq!(batch.layout(0).unwrap().servo_axes, vec![(hinge, 0)]);
    let targets: Vec<f64> = (0..8).map(|k| 0.1 * k as f64).collect();
    let actions = BatchActions {
        servo_targets: Some(&targets),
        ..Default::default()
    };
    batch.step(1.0 / 240.0, 2400, &actions).unwrap();
    for (k, target) in targets.iter().enumerate() {
        let world = batch.world(k).unwrap();
        let angle = world.joint_axis_state(hinge, 0).unwrap().position;
        assert!(
            (angle - target).abs() < 1e-6,
            "world {k}: {angle} vs {target}"
        );
    }
}

#[test]
fn bad_calls_are_refused_and_change_nothing() {
    assert_eq!(WorldBatch::new(vec![], 1).unwrap_err(), BatchError::Empty);
    let mut batch = WorldBatch::new((0..4).map(stack_world).collect(), 1).unwrap();
    let before: Vec<_> = (0..4).map(|k| bits(batch.world(k).unwrap())).collect();
    let short = vec![0.0; 5];
    let err = batch
        .step(
            H,
            1,
            &BatchActions {
                forces: Some(&short),
                ..Default::default()
            },
        )
        .unwrap_err();
    assert!(matches!(
        err,
        BatchError::Shape {
            name: "forces",
            got: 5,
            expected: 60,
            ..
        }
    ));
    assert!(err.to_string().contains("4 worlds x 5 bodies x 3"), "{err}");
    assert!(matches!(
        batch.step(f64::NAN, 1, &BatchActions::default()),
        Err(BatchError::Invalid(_))
    ));
    assert!(matches!(
        batch.step(0.0, 1, &BatchActions::default()),
        Err(BatchError::Invalid(_))
    ));
    let targets = [0.0; 4];
    assert!(matches!(
        batch.step(
            H,
            1,
            &BatchActions {
                servo_targets: Some(&targets),
                ..Default::default()
            }
        ),
        Err(BatchError::Shape {
            name: "servo_targets",
            got: 4,
            expected: 0,
            ..
        })
    ));
    assert!(matches!(
        batch.world(4),
        Err(BatchError::NoSuchWorld { index: 4, count: 4 })
    ));
    for (k, before) in before.iter().enumerate() {
        assert_eq!(&bits(batch.world(k).unwrap()), before);
    }
    // Uneven worlds step, but have no flat state.
    let mut uneven = WorldBatch::new(vec![stack_world(0), World::new()], 1).unwrap();
    uneven.step(H, 2, &BatchActions::default()).unwrap();
    assert!(matches!(
        uneven.state(),
        Err(BatchError::Uneven {
            world: 1,
            got: 0,
            expected: 5,
            ..
        })
    ));
    // A layout naming a body the world lacks.
    let layout = BatchLayout {
        bodies: BatchLayout::of(&stack_world(0)).bodies,
        servo_axes: vec![],
    };
    assert!(matches!(
        WorldBatch::with_layouts(vec![World::new()], vec![layout], 1),
        Err(BatchError::Layout { world: 0, .. })
    ));
}
