//! Slider and fixed joints, with both steppers.
//!
//! - A slider pushed off its axis by forces and torques keeps its line and its orientation
//!   (to post-stabilisation's tolerance) while sliding along the axis exactly as a free body
//!   under the along-axis force would (symplectic Euler's `x_n = h^2 a n (n + 1) / 2`).
//! - A vertical slider falling onto its lower stop rests on it, the stop carrying the weight.
//! - A slider motor lifts a block at its target speed holding exactly the weight, or, too
//!   weak, is overpowered at full force and sinks with `(m g - f_max) / m`.
//! - Two bodies welded by a fixed joint and thrown spinning move as one rigid body: the
//!   same centre-of-mass motion (exactly: the weld's forces are internal) and the same
//!   rotation as a single body with the combined mass properties, to a discretisation
//!   error that falls tenfold when the step does.

use stiction::math::{Quat, Vec3};
use stiction::{
    AxisControl, GyroscopicMode, JointBuilder, JointLimit, MassProperties, Pose, RigidBodyBuilder,
    SliderJoint, Solver, World,
};

const H: f64 = 1.0 / 60.0;
const G: f64 = 9.81;

fn solvers() -> [(&'static str, Solver); 2] {
    [
        ("exact", Solver::exact()),
        ("iterative", Solver::iterative()),
    ]
}

fn block(world: &mut World, position: Vec3) -> stiction::BodyHandle {
    world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(
                MassProperties::cuboid_with_mass(Vec3::new(0.2, 0.1, 0.1), 2.0).unwrap(),
            )
            .position(position)
            .orientation(Quat::from_rotation_z(0.3))
            .build()
            .unwrap(),
    )
}

#[test]
fn a_slider_keeps_its_axis_under_off_axis_loads_and_slides_freely_along_it() {
    let axis = Vec3::new(1.0, 1.0, 0.0).normalize();
    let push = 3.0; // N along the axis
    for (name, solver) in solvers() {
        let mut world = World::new();
        world.set_solver(solver).unwrap();
        let start = Vec3::new(0.0, 0.0, 1.0);
        let body = block(&mut world, start);
        let orientation = world.body(body).unwrap().orientation();
        let joint = world.add_slider_joint(body, None, axis).unwrap();
        let (mut drift, mut turn): (f64, f64) = (0.0, 0.0);
        for n in 1..=180 {
            let t = n as f64 * H;
            let b = world.body_mut(body).unwrap();
            // Off the axis: a force at a corner (a torque too) and a torque; along it: push.
            let corner = b.position() + b.orientation() * Vec3::new(0.2, 0.1, -0.1);
            b.add_force_at_point(
                Vec3::new(-4.0 * t.sin(), 4.0, 8.0) + axis.cross(Vec3::Z) * 3.0,
                corner,
            )
            .unwrap();
            let along = b.force().dot(axis);
            b.add_force(axis * (push - along)).unwrap();
            b.add_torque(Vec3::new(1.0, -2.0, 0.5)).unwrap();
            world.step(H).unwrap();
            let b = world.body(body).unwrap();
            let offset = b.position() - start;
            drift = drift.max((offset - axis * offset.dot(axis)).length());
            turn = turn.max(b.orientation().angle_between(orientation));
            // Symplectic Euler along the axis: v_n = n h a, x_n = h^2 a n (n + 1) / 2.
            let a = push / 2.0;
            let expected = H * H * a * (n * (n + 1)) as f64 / 2.0;
            let state = world.joint_axis_state(joint, 0).unwrap();
            assert!(
                (state.position - expected).abs() < 1e-6,
                "{name}: {state:?} vs {expected}"
            );
            assert!(
                (state.velocity - n as f64 * H * a).abs() < 1e-6,
                "{name}: {state:?}"
            );
        }
        eprintln!("{name}: off-axis drift {drift:.2e} m, rotation {turn:.2e} rad");
        // Post-stabilisation leaves each row below 1e-6 (m or rad) after every step.
        assert!(drift < 2e-6 && turn < 2e-6, "{name}: {drift} {turn}");
    }
}

#[test]
fn a_vertical_slider_rests_on_its_lower_stop_which_carries_the_weight() {
    for (name, solver) in solvers() {
        let mut world = World::new();
        world.set_solver(solver).unwrap();
        let body = block(&mut world, Vec3::new(0.0, 0.0, 1.0));
        let pose = world.pose(Some(body)).unwrap();
        let slider = SliderJoint::along_world_axis(Vec3::Z, &pose, &Pose::IDENTITY)
            .unwrap()
            .with_control(AxisControl {
                limit: Some(JointLimit::new(-0.5, 0.5).unwrap()),
                motor: None,
            });
        let joint = world
            .add_joint(JointBuilder::new(body, None, slider))
            .unwrap();
        let mut lowest = f64::MAX;
        for _ in 0..120 {
            world.step(H).unwrap();
            lowest = lowest.min(world.joint_axis_state(joint, 0).unwrap().position);
        }
        let state = world.joint_axis_state(joint, 0).unwrap();
        let force = world.joint(joint).unwrap().feedback().limit[0];
        eprintln!(
            "{name}: rests at {:.3e} m from the stop (lowest {:.3e}), stop force {force:.6} N",
            state.position + 0.5,
            lowest + 0.5
        );
        assert!((state.position + 0.5).abs() < 1e-6, "{name}: {state:?}");
        assert!(lowest > -0.5 - 1e-6, "{name}: {lowest}");
        assert!((force - 2.0 * G).abs() < 1e-6 * 2.0 * G, "{name}: {force}");
    }
}

/// Steps a box and a sphere welded together, thrown spinning about no principal axis, next
/// to a single body with their combined mass properties, for 2 s at step `h`; checks the
/// centre of mass and the weld at every step and returns the largest difference of angular
/// velocity (rad/s) between the pair and the single body.
fn welded_pair_against_single_body(solver: Solver, h: f64) -> f64 {
    let box_mass = MassProperties::cuboid_with_mass(Vec3::new(0.3, 0.1, 0.05), 2.0).unwrap();
    let ball_mass = MassProperties::sphere_with_mass(0.15, 1.0).unwrap();
    let (x_a, q_a) = (Vec3::new(0.0, 0.0, 5.0), Quat::from_rotation_x(0.4));
    let (x_b, q_b) = (Vec3::new(0.5, 0.2, 5.1), Quat::from_rotation_y(-0.7));
    let (v_a, w) = (Vec3::new(1.0, 0.0, 3.0), Vec3::new(0.5, 1.5, -0.8));
    // The pair's mass properties in A's frame, re-centred on their common centre of mass.
    let ball_in_a = ball_mass
        .rotated(q_a.inverse() * q_b)
        .unwrap()
        .translated(q_a.inverse() * (x_b - x_a))
        .unwrap();
    let pair = box_mass.combined(&ball_in_a).unwrap();
    let centre = pair.center();
    let pair = pair.translated(-centre).unwrap();
    let x_c = x_a + q_a * centre;
    let offset = Vec3::new(100.0, 0.0, 0.0);
    let mut world = World::new();
    world.set_solver(solver).unwrap();
    // The gyroscopic mode that integrates a free body's rotation best (it keeps |L| and
    // the energy): the comparison then measures the weld, not the modes' dissipation.
    let body = |mass, position, orientation, velocity| {
        RigidBodyBuilder::dynamic()
            .mass_properties(mass)
            .position(position)
            .orientation(orientation)
            .linear_velocity(velocity)
            .angular_velocity(w)
            .gyroscopic_mode(GyroscopicMode::Conserving)
            .build()
            .unwrap()
    };
    let a = world.add_body(body(box_mass, x_a, q_a, v_a));
    let b = world.add_body(body(ball_mass, x_b, q_b, v_a + w.cross(x_b - x_a)));
    let single = world.add_body(body(pair, x_c + offset, q_a, v_a + w.cross(x_c - x_a)));
    world.add_fixed_joint(b, Some(a)).unwrap();
    let mut worst: f64 = 0.0;
    for _ in 0..(2.0 / h).round() as usize {
        world.step(h).unwrap();
        let (ba, bb, bs) = (
            world.body(a).unwrap(),
            world.body(b).unwrap(),
            world.body(single).unwrap(),
        );
        // The weld's forces are internal and post-stabilisation moves the pair in the mass
        // metric: the centre of mass falls exactly as the single body's.
        let com = (ba.position() * 2.0 + bb.position()) / 3.0;
        let com_v = (ba.linear_velocity() * 2.0 + bb.linear_velocity()) / 3.0;
        assert!((com + offset - bs.position()).length() < 1e-9);
        assert!((com_v - bs.linear_velocity()).length() < 1e-9);
        // The weld holds: B stays where it was in A's frame, turned as it was.
        let relative = ba.orientation().inverse() * (bb.position() - ba.position());
        assert!((relative - q_a.inverse() * (x_b - x_a)).length() < 2e-6);
        let turn =
            (ba.orientation().inverse() * bb.orientation()).angle_between(q_a.inverse() * q_b);
        assert!(turn < 2e-6, "{turn}");
        worst = worst.max((ba.angular_velocity() - bs.angular_velocity()).length());
        worst = worst.max((bb.angular_velocity() - bs.angular_velocity()).length());
    }
    worst
}

#[test]
fn two_welded_bodies_move_as_one_rigid_body() {
    // The rotation differs only by discretisation: in the pair the weld's internal forces
    // stand for the single body's gyroscopic coupling of the two parts, a different
    // first-order scheme. The difference must shrink with h (|w| ~ 1.8 rad/s).
    for (name, solver) in solvers() {
        let coarse = welded_pair_against_single_body(solver.clone(), 1.0 / 60.0);
        let fine = welded_pair_against_single_body(solver, 1.0 / 600.0);
        eprintln!("{name}: angular velocity differs by {coarse:.2e} rad/s at h = 1/60, {fine:.2e} at 1/600");
        assert!(coarse < 0.03, "{name}: {coarse}");
        assert!(fine < 0.1 * coarse * 1.5 && fine < 3e-3, "{name}: {fine}");
    }
}

#[test]
fn a_slider_motor_lifts_at_its_target_speed_or_is_overpowered_by_gravity() {
    // A 2 kg block on a vertical slider, driven up at 0.5 m/s. With 50 N it reaches the
    // speed within two steps and then holds it with exactly the weight, 19.62 N; with
    // 10 N it is overpowered and sinks at (m g - f) / m = 4.81 m/s^2, the motor at its limit.
    for (name, solver) in solvers() {
        for (max_force, strong) in [(50.0, true), (10.0, false)] {
            let mut world = World::new();
            world.set_solver(solver.clone()).unwrap();
            let body = block(&mut world, Vec3::new(0.0, 0.0, 1.0));
            let pose = world.pose(Some(body)).unwrap();
            let slider = SliderJoint::along_world_axis(Vec3::Z, &pose, &Pose::IDENTITY)
                .unwrap()
                .with_control(AxisControl {
                    limit: None,
                    motor: Some(stiction::JointMotor::new(0.5, max_force).unwrap()),
                });
            let joint = world
                .add_joint(JointBuilder::new(body, None, slider))
                .unwrap();
            for n in 1..=60 {
                world.step(H).unwrap();
                let state = world.joint_axis_state(joint, 0).unwrap();
                let force = world.joint(joint).unwrap().feedback().motor[0];
                assert!(force.abs() <= max_force * (1.0 + 1e-12), "{name}: {force}");
                if strong && n > 2 {
                    assert!((state.velocity - 0.5).abs() < 1e-9, "{name}: {state:?}");
                    assert!((force - 2.0 * G).abs() < 1e-6, "{name}: {force}");
                }
                if !strong {
                    let v = -(2.0 * G - max_force) / 2.0 * n as f64 * H;
                    assert!(
                        (state.velocity - v).abs() < 1e-9,
                        "{name}: {state:?} vs {v}"
                    );
                    assert!((force - max_force).abs() < 1e-9, "{name}: {force}");
                }
            }
        }
    }
}
