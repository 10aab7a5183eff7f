//! Snapshots (issue 7): a world saved after K steps and loaded into a new world continues
//! bit-identically to the uninterrupted run (every body's pose and velocity compared by
//! `to_bits` after every one of M further steps), for contact scenes, a chain, every joint
//! kind, every collider shape (composite ones carry parry workspaces), sleeping bodies and
//! reused handle slots, with both steppers; damaged files give the right error variant.

use stiction::joint::{AxisControl, JointLimit, JointMotor};
use stiction::math::{Quat, Vec3};
use stiction::scenes::{self, Scene};
use stiction::{
    BallJoint, ColliderBuilder, DistanceJoint, FixedJoint, Hinge2Joint, HingeJoint, JointBuilder,
    MassProperties, Pose, RigidBodyBuilder, SleepSettings, SliderJoint, SnapshotError, Solver,
    UniversalJoint, World, WorldSettings,
};

/// Every body's position, orientation and velocities as bit patterns, in slot order.
fn state_bits(world: &World) -> Vec<u64> {
    let mut bits = Vec::new();
    for (handle, body) in world.bodies() {
        bits.push(handle.index() as u64);
        let (p, q) = (body.position(), body.orientation());
        let (v, w) = (body.linear_velocity(), body.angular_velocity());
        for x in [
            p.x, p.y, p.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z,
        ] {
            bits.push(x.to_bits());
        }
    }
    for (_, joint) in world.joints() {
        let f = joint.feedback();
        bits.push(u64::from(joint.is_broken()));
        for x in [f.force_a.x, f.force_a.y, f.force_a.z, f.torque_b.z] {
            bits.push(x.to_bits());
        }
    }
    bits.push(world.time().to_bits());
    bits
}

fn save(world: &World, step: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    world
        .save_snapshot(&mut bytes, step)
        .expect("snapshot saves");
    bytes
}

/// Runs `k` steps, snapshots, runs `m` more; loads the snapshot and runs `m` steps; the
/// two must agree bit for bit after every step, and the bodies must move meanwhile.
fn assert_resumes_exactly(name: &str, mut world: World, h: f64, k: usize, m: usize) -> World {
    for _ in 0..k {
        world.step(h).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let bytes = save(&world, k as u64);
    let before = state_bits(&world);
    let mut expected = Vec::with_capacity(m);
    for _ in 0..m {
        world.step(h).unwrap();
        expected.push(state_bits(&world));
    }
    assert_ne!(
        before,
        expected[m - 1],
        "{name}: nothing moved after the snapshot"
    );

    let loaded = World::load_snapshot(&bytes[..]).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(loaded.step, k as u64);
    let mut resumed = loaded.world;
    assert_eq!(state_bits(&resumed), before, "{name}: loaded state differs");
    for (i, expected) in expected.iter().enumerate() {
        resumed.step(h).unwrap();
        assert!(
            &state_bits(&resumed) == expected,
            "{name}: resumed run differs from the uninterrupted one at step {}",
            k + i + 1
        );
    }
    // (The two worlds' snapshots need not be byte-identical: parry keeps composite-shape
    // workspaces in hash maps, whose order is not part of the state.)
    resumed
}

fn scene(name: &str, scene: Scene, k: usize, m: usize) {
    assert_resumes_exactly(name, scene.world, scene.h, k, m);
}

#[test]
fn pyramid_pile_and_chain_resume_bit_for_bit_with_both_steppers() {
    for solver in [Solver::exact(), Solver::iterative()] {
        let settings = || scenes::scene_settings(solver.clone());
        scene("pyramid", scenes::pyramid(4, settings()).unwrap(), 40, 40);
        scene(
            "sphere pile",
            scenes::sphere_pile(3, 3, settings()).unwrap(),
            50,
            40,
        );
        scene("chain", scenes::chain(20, settings()).unwrap(), 30, 40);
    }
}

fn dynamic_box(world: &mut World, position: Vec3, half: Vec3) -> stiction::BodyHandle {
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::cuboid_with_mass(half, 1.0).unwrap())
            .position(position)
            .orientation(Quat::from_rotation_z(0.1))
            .build()
            .unwrap(),
    );
    world
        .add_collider(ColliderBuilder::cuboid(half).unwrap(), Some(body))
        .unwrap();
    body
}

/// One of each joint kind, with limits, motors, a suspension, softness and a joint that
/// breaks during the run.
fn every_joint(solver: Solver) -> World {
    let mut world = World::with_settings(scenes::scene_settings(solver)).unwrap();
    let half = Vec3::splat(0.1);
    let at = |world: &World, b| world.pose(Some(b)).unwrap();
    let limit = JointLimit::new(-0.4, 0.3).unwrap();
    let motor = JointMotor::new(0.8, 5.0).unwrap();

    let a = dynamic_box(&mut world, Vec3::new(0.0, 0.0, 2.0), half);
    world
        .add_ball_joint(a, None, Vec3::new(0.3, 0.0, 2.2))
        .unwrap();

    let b = dynamic_box(&mut world, Vec3::new(1.0, 0.0, 2.0), half);
    let hinge = HingeJoint::at_world_axis(
        Vec3::new(1.3, 0.0, 2.0),
        Vec3::Y,
        &at(&world, b),
        &Pose::IDENTITY,
    )
    .unwrap();
    let hinge = HingeJoint {
        control: AxisControl {
            limit: Some(limit.with_bounce(0.3, 0.1).unwrap()),
            motor: Some(motor),
        },
        ..hinge
    };
    world.add_joint(JointBuilder::new(b, None, hinge)).unwrap();

    let c = dynamic_box(&mut world, Vec3::new(2.0, 0.0, 2.0), half);
    let slider = SliderJoint::along_world_axis(
        Vec3::new(1.0, 0.0, 1.0).normalize(),
        &at(&world, c),
        &Pose::IDENTITY,
    )
    .unwrap()
    .with_control(AxisControl {
        limit: Some(JointLimit::new(-0.2, 0.2).unwrap()),
        motor: None,
    });
    world.add_joint(JointBuilder::new(c, None, slider)).unwrap();

    let d = dynamic_box(&mut world, Vec3::new(3.0, 0.0, 2.0), half);
    let e = dynamic_box(&mut world, Vec3::new(3.0, 0.0, 1.6), half);
    world
        .add_ball_joint(d, None, Vec3::new(3.2, 0.0, 2.1))
        .unwrap();
    let fixed =
        FixedJoint::at_world_point(Vec3::new(3.0, 0.0, 1.8), &at(&world, e), &at(&world, d))
            .unwrap();
    world
        .add_joint(
            JointBuilder::new(e, Some(d), fixed).softness(stiction::Softness {
                erp: 0.3,
                cfm: 1e-4,
            }),
        )
        .unwrap();

    let f = dynamic_box(&mut world, Vec3::new(4.0, 0.0, 2.0), half);
    let universal = UniversalJoint::at_world_point(
        Vec3::new(4.2, 0.0, 2.2),
        Vec3::X,
        Vec3::Y,
        &at(&world, f),
        &Pose::IDENTITY,
    )
    .unwrap()
    .with_control(
        0,
        AxisControl {
            limit: Some(limit),
            motor: None,
        },
    )
    .with_control(
        1,
        AxisControl {
            limit: None,
            motor: Some(motor),
        },
    );
    world
        .add_joint(JointBuilder::new(f, None, universal))
        .unwrap();

    let chassis = dynamic_box(&mut world, Vec3::new(5.0, 0.0, 2.0), half);
    world
        .add_ball_joint(chassis, None, Vec3::new(5.0, 0.0, 2.3))
        .unwrap();
    let wheel = dynamic_box(&mut world, Vec3::new(5.0, 0.3, 2.0), half);
    let hinge2 = Hinge2Joint::at_world_point(
        Vec3::new(5.0, 0.3, 2.0),
        Vec3::Z,
        Vec3::Y,
        &at(&world, wheel),
        &at(&world, chassis),
    )
    .unwrap()
    .with_suspension(400.0, 20.0)
    .unwrap();
    let hinge2 = Hinge2Joint {
        wheel: AxisControl {
            limit: None,
            motor: Some(JointMotor::new(3.0, 2.0).unwrap()),
        },
        ..hinge2
    };
    world
        .add_joint(JointBuilder::new(wheel, Some(chassis), hinge2))
        .unwrap();

    let g = dynamic_box(&mut world, Vec3::new(6.0, 0.0, 1.5), half);
    let rope = DistanceJoint::between_world_points(
        Vec3::new(6.0, 0.0, 1.6),
        Vec3::new(6.5, 0.0, 2.5),
        &at(&world, g),
        &Pose::IDENTITY,
    )
    .unwrap()
    .with_range(0.0, 1.2)
    .unwrap();
    world.add_joint(JointBuilder::new(g, None, rope)).unwrap();

    // A joint that breaks within the first steps: its broken state must carry over.
    let h = dynamic_box(&mut world, Vec3::new(7.0, 0.0, 2.0), half);
    let weak = BallJoint::at_world_point(Vec3::new(7.0, 0.0, 2.2), &at(&world, h), &Pose::IDENTITY)
        .unwrap();
    world
        .add_joint(JointBuilder::new(h, None, weak).break_force(5.0))
        .unwrap();
    world
        .body_mut(a)
        .unwrap()
        .set_angular_velocity(Vec3::new(0.0, 3.0, 1.0))
        .unwrap();
    world
}

#[test]
fn every_joint_kind_resumes_bit_for_bit_with_both_steppers() {
    for solver in [Solver::exact(), Solver::iterative()] {
        let world = every_joint(solver);
        let resumed = assert_resumes_exactly("every joint", world, 1.0 / 60.0, 20, 40);
        assert!(
            resumed.joints().any(|(_, j)| j.is_broken()),
            "the weak joint should have broken"
        );
    }
}

/// A trimesh floor, a heightfield, and bodies of every convex shape plus a compound, so
/// parry's composite-shape workspaces are in the snapshot.
fn every_shape(solver: Solver) -> World {
    let mut world = World::with_settings(scenes::scene_settings(solver)).unwrap();
    let floor = ColliderBuilder::trimesh(
        vec![
            Vec3::new(-4.0, -4.0, 0.0),
            Vec3::new(4.0, -4.0, 0.0),
            Vec3::new(4.0, 4.0, 0.0),
            Vec3::new(-4.0, 4.0, 0.0),
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    )
    .unwrap();
    world.add_collider(floor, None).unwrap();
    let heights: Vec<f64> = (0..25)
        .map(|i| 0.05 * ((i % 5) as f64 - 2.0).abs())
        .collect();
    let field = ColliderBuilder::heightfield(5, 5, &heights, Vec3::new(3.0, 3.0, 1.0))
        .unwrap()
        .position(Vec3::new(6.0, 0.0, 0.0));
    world.add_collider(field, None).unwrap();
    let mass = MassProperties::sphere_with_mass(0.2, 1.0).unwrap();
    let shapes = [
        ColliderBuilder::ball(0.2).unwrap(),
        ColliderBuilder::cuboid(Vec3::new(0.2, 0.15, 0.1)).unwrap(),
        ColliderBuilder::capsule(0.15, 0.1).unwrap(),
        ColliderBuilder::cylinder(0.1, 0.2).unwrap(),
        ColliderBuilder::cone(0.15, 0.2).unwrap(),
        ColliderBuilder::convex_hull(&[
            Vec3::new(0.2, 0.0, 0.0),
            Vec3::new(-0.1, 0.17, 0.0),
            Vec3::new(-0.1, -0.17, 0.0),
            Vec3::new(0.0, 0.0, 0.25),
            Vec3::new(0.0, 0.0, -0.1),
        ])
        .unwrap(),
        ColliderBuilder::compound(vec![
            (
                Pose {
                    position: Vec3::new(0.15, 0.0, 0.0),
                    orientation: Quat::IDENTITY,
                },
                stiction::parry::shape::SharedShape::ball(0.1),
            ),
            (
                Pose {
                    position: Vec3::new(-0.15, 0.0, 0.0),
                    orientation: Quat::IDENTITY,
                },
                stiction::parry::shape::SharedShape::cuboid(0.1, 0.1, 0.1),
            ),
        ])
        .unwrap(),
    ];
    for (i, shape) in shapes.into_iter().enumerate() {
        for (k, x) in [(0usize, -2.0 + 0.6 * i as f64), (1, 5.0 + 0.3 * i as f64)] {
            let body = world.add_body(
                RigidBodyBuilder::dynamic()
                    .mass_properties(mass)
                    .position(Vec3::new(x, 0.4 * k as f64 - 0.2, 0.4 + 0.05 * i as f64))
                    .orientation(Quat::from_rotation_x(0.3 + 0.1 * i as f64))
                    .build()
                    .unwrap(),
            );
            world.add_collider(shape.clone(), Some(body)).unwrap();
        }
    }
    world
}

#[test]
fn every_collider_shape_resumes_bit_for_bit_with_both_steppers() {
    for solver in [Solver::exact(), Solver::iterative()] {
        let world = every_shape(solver);
        assert_resumes_exactly("every shape", world, 1.0 / 60.0, 30, 40);
    }
}

#[test]
fn sleeping_bodies_and_reused_slots_resume_bit_for_bit() {
    for solver in [Solver::exact(), Solver::iterative()] {
        sleeping_and_reused_slots(solver);
    }
}

fn sleeping_and_reused_slots(solver: Solver) {
    let settings = WorldSettings {
        sleep: SleepSettings::on(),
        ..scenes::scene_settings(solver)
    };
    let mut pyramid = scenes::pyramid(3, settings).unwrap();
    // Free a slot (its generation moves on) so handles and the free list must round-trip.
    let extra = dynamic_box(
        &mut pyramid.world,
        Vec3::new(9.0, 9.0, 5.0),
        Vec3::splat(0.2),
    );
    pyramid.world.remove_body(extra).unwrap();
    for _ in 0..300 {
        pyramid.world.step(pyramid.h).unwrap();
    }
    let sleeping = pyramid
        .world
        .bodies()
        .filter(|(h, _)| pyramid.world.is_sleeping(*h).unwrap())
        .count();
    assert!(sleeping > 0, "the pyramid should be asleep after 5 s");
    let bytes = save(&pyramid.world, 300);
    let mut loaded = World::load_snapshot(&bytes[..]).unwrap().world;
    // New bodies reuse the freed slot with the same handle in both worlds; a dropped box
    // then wakes the pile in both.
    let a = dynamic_box(
        &mut pyramid.world,
        Vec3::new(0.0, 0.0, 4.0),
        Vec3::splat(0.2),
    );
    let b = dynamic_box(&mut loaded, Vec3::new(0.0, 0.0, 4.0), Vec3::splat(0.2));
    assert_eq!(a, b);
    assert_eq!(a.index(), extra.index());
    assert!(pyramid.world.body(extra).is_err() && loaded.body(extra).is_err());
    let mut most_awake = 0;
    for step in 0..90 {
        pyramid.world.step(pyramid.h).unwrap();
        loaded.step(pyramid.h).unwrap();
        assert!(
            state_bits(&pyramid.world) == state_bits(&loaded),
            "differs {step} steps after loading"
        );
        let awake = loaded
            .bodies()
            .filter(|(h, _)| !loaded.is_sleeping(*h).unwrap())
            .count();
        most_awake = most_awake.max(awake);
    }
    assert!(most_awake > 1, "the dropped box should have woken the pile");
}

#[test]
fn loading_restores_what_the_world_reports() {
    let mut pyramid = scenes::pyramid(2, scenes::scene_settings(Solver::exact())).unwrap();
    for _ in 0..20 {
        pyramid.world.step(pyramid.h).unwrap();
    }
    let loaded = World::load_snapshot(&save(&pyramid.world, 20)[..])
        .unwrap()
        .world;
    assert_eq!(loaded.contacts(), pyramid.world.contacts());
    assert!(!loaded.contacts().is_empty());
    for (handle, _) in pyramid.world.bodies() {
        assert_eq!(
            loaded.contact_force(handle).unwrap(),
            pyramid.world.contact_force(handle).unwrap()
        );
    }
    assert_eq!(loaded.body_count(), pyramid.world.body_count());
    assert_eq!(loaded.collider_count(), pyramid.world.collider_count());
    assert_eq!(loaded.time().to_bits(), pyramid.world.time().to_bits());
}

// ---- damaged files ----

fn small_snapshot() -> Vec<u8> {
    let mut world = World::new();
    world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    let ball = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.1, 7.25).unwrap())
            .position(Vec3::new(0.0, 0.0, 0.105))
            .build()
            .unwrap(),
    );
    world
        .add_collider(ColliderBuilder::ball(0.1).unwrap(), Some(ball))
        .unwrap();
    world.step(0.01).unwrap();
    save(&world, 1)
}

const HEADER_LEN: usize = 37;

#[test]
fn every_truncation_is_reported_as_truncated() {
    let bytes = small_snapshot();
    assert!(World::load_snapshot(&bytes[..]).is_ok());
    for len in 0..bytes.len() {
        match World::load_snapshot(&bytes[..len]) {
            Err(SnapshotError::Truncated { found, expected }) => {
                assert_eq!(found, len as u64);
                assert!(expected > found);
            }
            other => panic!("prefix of {len} bytes: {other:?}"),
        }
    }
}

#[test]
fn a_flipped_byte_anywhere_is_caught_by_the_right_check() {
    let bytes = small_snapshot();
    let mut positions: Vec<usize> = (0..HEADER_LEN).collect();
    positions.extend((HEADER_LEN..bytes.len()).step_by(7));
    positions.push(bytes.len() - 1);
    for &i in &positions {
        for mask in [0x01u8, 0x80] {
            let mut damaged = bytes.clone();
            damaged[i] ^= mask;
            let error = World::load_snapshot(&damaged[..]).expect_err("damage detected");
            let right = match i {
                0..=16 => matches!(error, SnapshotError::BadMagic),
                17..=20 => matches!(error, SnapshotError::UnsupportedVersion { .. }),
                // A longer declared payload is missing bytes; a shorter one leaves extra.
                21..=28 => matches!(
                    error,
                    SnapshotError::Truncated { .. } | SnapshotError::TrailingBytes { .. }
                ),
                _ => matches!(error, SnapshotError::ChecksumMismatch { .. }),
            };
            assert!(right, "byte {i} ^ {mask:#x}: {error:?}");
        }
    }
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"junk");
    assert!(matches!(
        World::load_snapshot(&longer[..]),
        Err(SnapshotError::TrailingBytes { extra: 4 })
    ));
}

#[test]
fn wrong_magic_and_future_versions_are_refused() {
    let bytes = small_snapshot();
    assert!(matches!(
        World::load_snapshot(&b"{\"bodies\": []}"[..]),
        Err(SnapshotError::BadMagic)
    ));
    let mut future = bytes.clone();
    future[17..21].copy_from_slice(&2u32.to_le_bytes());
    match World::load_snapshot(&future[..]) {
        Err(
            e @ SnapshotError::UnsupportedVersion {
                found: 2,
                supported: 1,
            },
        ) => {
            assert_eq!(
                e.to_string(),
                "snapshot format version 2 is not supported (this build reads version 1)"
            )
        }
        other => panic!("{other:?}"),
    }
}

/// FNV-1a, written again here so the test can forge a valid checksum.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn reseal(bytes: &mut [u8]) {
    let sum = fnv1a64(&bytes[HEADER_LEN..]);
    bytes[29..37].copy_from_slice(&sum.to_le_bytes());
}

#[test]
fn invalid_content_with_a_valid_checksum_names_the_field() {
    let bytes = small_snapshot();
    // The mass 7.25 is stored as a CBOR float; replace it with a negative mass.
    let encoded = [&[0xfbu8][..], &7.25f64.to_be_bytes()].concat();
    let half = [&[0xf9u8][..], &[0x47, 0x40]].concat(); // 7.25 as a CBOR half float
    let (needle, replacement) = if let Some(at) = find(&bytes, &encoded) {
        (at, [&[0xfbu8][..], &(-7.25f64).to_be_bytes()].concat())
    } else {
        let at = find(&bytes, &half).expect("the mass is in the payload");
        (at, vec![0xf9, 0xc7, 0x40])
    };
    let mut forged = bytes.clone();
    forged[needle..needle + replacement.len()].copy_from_slice(&replacement);
    reseal(&mut forged);
    match World::load_snapshot(&forged[..]) {
        Err(SnapshotError::InvalidContent { field, reason }) => {
            assert_eq!(field, "bodies[0].mass_properties");
            assert!(reason.contains("mass"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // Garbage with a valid checksum does not decode.
    let mut garbage = bytes.clone();
    for b in &mut garbage[HEADER_LEN..HEADER_LEN + 8] {
        *b = 0xff;
    }
    reseal(&mut garbage);
    assert!(matches!(
        World::load_snapshot(&garbage[..]),
        Err(SnapshotError::Malformed { .. })
    ));
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Decodes the payload of `bytes`, lets `change` edit it, and re-frames it with a correct
/// length and checksum: content errors behind an intact envelope.
fn forge(bytes: &[u8], change: impl FnOnce(&mut ciborium::Value)) -> Vec<u8> {
    let mut value: ciborium::Value = ciborium::from_reader(&bytes[HEADER_LEN..]).unwrap();
    change(&mut value);
    let mut payload = Vec::new();
    ciborium::into_writer(&value, &mut payload).unwrap();
    let mut forged = bytes[..HEADER_LEN].to_vec();
    forged[21..29].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    forged.extend_from_slice(&payload);
    reseal(&mut forged);
    forged
}

/// The entry `key` of a CBOR map.
fn entry<'a>(value: &'a mut ciborium::Value, key: &str) -> &'a mut ciborium::Value {
    let map = value.as_map_mut().expect("a map");
    &mut map
        .iter_mut()
        .find(|(k, _)| k.as_text() == Some(key))
        .unwrap_or_else(|| panic!("no {key}"))
        .1
}

/// Element `i` of a CBOR array.
fn item(value: &mut ciborium::Value, i: usize) -> &mut ciborium::Value {
    &mut value.as_array_mut().expect("an array")[i]
}

fn field_of(bytes: &[u8]) -> String {
    match World::load_snapshot(bytes) {
        Err(SnapshotError::InvalidContent { field, .. }) => field,
        other => panic!("{other:?}"),
    }
}

#[test]
fn forged_handles_free_lists_settings_and_poses_are_refused_by_name() {
    let mut world = every_joint(Solver::exact());
    world.step(1.0 / 60.0).unwrap();
    let bytes = save(&world, 1);
    assert!(World::load_snapshot(&bytes[..]).is_ok());
    let int = |n: u32| ciborium::Value::Integer(n.into());

    // A joint naming a body by a stale generation.
    let forged = forge(&bytes, |v| {
        let slots = entry(entry(v, "joints"), "slots");
        let joint = item(item(slots, 0), 1);
        *item(entry(joint, "body_a"), 1) = int(7);
    });
    assert_eq!(field_of(&forged), "joints[0].body_a");

    // A free list naming an occupied slot.
    let forged = forge(&bytes, |v| {
        *entry(entry(v, "bodies"), "free") = ciborium::Value::Array(vec![int(0)]);
    });
    assert_eq!(field_of(&forged), "bodies");

    // An out-of-range setting.
    let forged = forge(&bytes, |v| {
        let solver = entry(entry(v, "settings"), "solver");
        let exact = entry(solver, "Exact");
        *entry(entry(exact, "fallback"), "omega") = ciborium::Value::Float(2.5);
    });
    assert_eq!(field_of(&forged), "settings");

    // A body orientation that is not a unit quaternion.
    let forged = forge(&bytes, |v| {
        let slots = entry(entry(v, "bodies"), "slots");
        let body = item(item(slots, 2), 1);
        *item(entry(body, "orientation"), 3) = ciborium::Value::Float(2.0);
    });
    assert_eq!(field_of(&forged), "bodies[2].orientation");

    // A collider on a body that does not exist.
    let forged = forge(&bytes, |v| {
        let slots = entry(entry(v, "colliders"), "slots");
        let collider = item(item(slots, 0), 1);
        *entry(collider, "body") = ciborium::Value::Array(vec![int(99), int(0)]);
    });
    assert_eq!(field_of(&forged), "colliders[0].body");
}

#[test]
fn phase_timing_is_kept_and_older_snapshots_without_it_load_with_it_off() {
    let mut pyramid = scenes::pyramid(2, scenes::scene_settings(Solver::iterative())).unwrap();
    pyramid.world.set_time_phases(true);
    pyramid.world.step(pyramid.h).unwrap();
    let bytes = save(&pyramid.world, 1);
    let loaded = World::load_snapshot(&bytes[..]).unwrap().world;
    assert!(loaded.settings().time_phases);
    // A snapshot written before the setting existed has no such entry.
    let older = forge(&bytes, |payload| {
        let settings = entry(payload, "settings").as_map_mut().expect("a map");
        let before = settings.len();
        settings.retain(|(key, _)| key.as_text() != Some("time_phases"));
        assert_eq!(settings.len() + 1, before);
    });
    let mut loaded = World::load_snapshot(&older[..]).unwrap().world;
    assert!(!loaded.settings().time_phases);
    let times = loaded.step(pyramid.h).unwrap().times;
    assert_eq!(times, stiction::PhaseTimes::default());
}
