//! A constraint the engine does not ship, written by the user through `JointRows` and added
//! with `JointBuilder::custom`: a gear between two hinged wheels, `theta_a + r theta_b = 0`.

use stiction::prelude::*;
use stiction::rows::{JacobianRow, Row, RowWriter};
use stiction::{JointRows, SnapshotError};

/// Gear ratio: wheel B turns at half wheel A's rate, the other way. An integer keeps
/// `theta_a + r theta_b` well defined modulo a turn.
const RATIO: f64 = 2.0;

/// The angle of a body turned about z from the identity, in `(-pi, pi]` (twice, for the
/// quaternion's double cover, then wrapped).
fn angle_about_z(orientation: Quat) -> f64 {
    wrap(2.0 * orientation.z.atan2(orientation.w))
}

fn wrap(angle: f64) -> f64 {
    let turn = std::f64::consts::TAU;
    let wrapped = angle.rem_euclid(turn);
    if wrapped > std::f64::consts::PI {
        wrapped - turn
    } else {
        wrapped
    }
}

/// `C = theta_a + r theta_b` about the world z axis; `dC/dt = z . w_a + r z . w_b`.
struct Gear {
    ratio: f64,
}

impl JointRows for Gear {
    fn write_rows(&self, writer: &mut RowWriter) {
        let error = wrap(
            angle_about_z(writer.pose_a().orientation)
                + self.ratio * angle_about_z(writer.pose_b().orientation),
        );
        let jacobian = JacobianRow {
            angular_a: Vec3::Z,
            angular_b: self.ratio * Vec3::Z,
            ..JacobianRow::default()
        };
        writer.push(Row::equality(jacobian, error));
    }

    fn row_count(&self) -> usize {
        1
    }

    fn name(&self) -> &'static str {
        "gear"
    }
}

fn wheel(world: &mut World, x: f64, spin: f64) -> BodyHandle {
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(
                MassProperties::cuboid_with_mass(Vec3::new(0.3, 0.3, 0.05), 2.0).unwrap(),
            )
            .position(Vec3::new(x, 0.0, 0.0))
            .angular_velocity(Vec3::new(0.0, 0.0, spin))
            .build()
            .unwrap(),
    );
    world
        .add_hinge_joint(body, None, Vec3::new(x, 0.0, 0.0), Vec3::Z)
        .unwrap();
    body
}

fn geared_pair() -> (World, BodyHandle, BodyHandle, JointHandle) {
    let mut world = World::new();
    world.set_gravity(Vec3::ZERO).unwrap();
    let a = wheel(&mut world, 0.0, 2.0);
    let b = wheel(&mut world, 1.0, 0.0);
    let gear = world
        .add_joint(JointBuilder::custom(a, Some(b), Gear { ratio: RATIO }))
        .unwrap();
    (world, a, b, gear)
}

#[test]
fn a_user_written_gear_holds_for_ten_seconds() {
    let (mut world, a, b, gear) = geared_pair();
    assert_eq!(world.joint(gear).unwrap().kind().name(), "gear");
    let h = 1.0 / 60.0;
    world.step(h).unwrap();
    // The first step meshes the gears: an impulse p on A and r p on B with
    // (w_a + p / I) + r (r p / I) = 0 (equal wheels), so w_a = 2 r^2 / (1 + r^2); the
    // default CFM (1e-5) yields by a relative 1.4e-5 of p.
    let spin_a = world.body(a).unwrap().angular_velocity().z;
    let spin_b = world.body(b).unwrap().angular_velocity().z;
    let expected = 2.0 * RATIO * RATIO / (1.0 + RATIO * RATIO);
    assert!(
        (spin_a - expected).abs() < 3e-5,
        "w_a = {spin_a}, expected {expected}"
    );
    assert!((spin_b + expected / RATIO).abs() < 3e-5, "w_b = {spin_b}");
    let energy = |world: &World| {
        let inertia = 2.0 * (0.6f64.powi(2) + 0.6f64.powi(2)) / 12.0;
        [a, b]
            .iter()
            .map(|&body| 0.5 * inertia * world.body(body).unwrap().angular_velocity().z.powi(2))
            .sum::<f64>()
    };
    let energy_after_meshing = energy(&world);
    let (mut worst_angle, mut worst_rate) = (0.0f64, 0.0f64);
    for _ in 1..600 {
        world.step(h).unwrap();
        let (body_a, body_b) = (world.body(a).unwrap(), world.body(b).unwrap());
        let angle =
            wrap(angle_about_z(body_a.orientation()) + RATIO * angle_about_z(body_b.orientation()));
        // The pose update turns a body by the Cayley angle 2 atan(h w / 2), not h w, and the
        // curvature term makes the rows hold C at the end of the step: the turns per step
        // are what the gear locks together.
        let turn = |w: f64| 2.0 * (h * w / 2.0).atan() / h;
        let rate = turn(body_a.angular_velocity().z) + RATIO * turn(body_b.angular_velocity().z);
        worst_angle = worst_angle.max(angle.abs());
        worst_rate = worst_rate.max(rate.abs());
    }
    assert!(worst_angle < 1e-6, "gear angle error {worst_angle:e} rad");
    // The rates match to the CFM's yield and the curvature term's fade (8.4e-6 measured).
    assert!(worst_rate < 2e-5, "gear rate error {worst_rate:e} rad/s");
    // A turned more than a full turn, so the wrap in C was exercised.
    assert!(world.time() > 9.99 && expected * world.time() > std::f64::consts::TAU);
    let drift = (energy(&world) - energy_after_meshing).abs() / energy_after_meshing;
    assert!(drift < 1e-6, "energy drift {drift:e}");
    // The gear carries a torque only while meshing; afterwards the wheels coast together.
    assert!(world.joint(gear).unwrap().feedback().torque_a.length() < 1e-6);
}

#[test]
fn snapshots_refuse_a_world_with_a_user_written_joint() {
    let (mut world, _, _, gear) = geared_pair();
    world.step(1.0 / 60.0).unwrap();
    let mut bytes = Vec::new();
    let error = world.save_snapshot(&mut bytes, 1).unwrap_err();
    assert!(bytes.is_empty(), "nothing may be written");
    match &error {
        SnapshotError::Unsupported { what } => {
            assert!(
                what.contains("user-written") && what.contains("gear"),
                "{what}"
            );
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
    // Without it the same world saves.
    world.remove_joint(gear).unwrap();
    world.save_snapshot(&mut bytes, 1).unwrap();
    assert!(!bytes.is_empty());
}
