//! Universal and hinge-2 joints, with both steppers, against kinematics and statics.
//!
//! - A Cardan shaft: an input shaft driven at constant speed drives, through a universal
//!   joint, an output shaft bent by `beta`; the output turns at
//!   `w_in cos(beta) / (1 - sin^2(beta) sin^2(gamma))` (`gamma` the input angle from the
//!   position where the input yoke is normal to the shafts' plane), and the joint keeps its
//!   two axes perpendicular throughout. Universal motors drive both free rates.
//! - A hinge-2 car wheel spins freely about its axle; a steering motor holds the steering
//!   angle against a disturbing torque (which it exactly balances), steers it to a target
//!   as a servo, and the steering lock stops it; the suspension spring sags by `m g / k`.

use std::f64::consts::PI;
use stiction::math::{Quat, Vec3};
use stiction::{
    AxisControl, BodyHandle, GyroscopicMode, Hinge2Joint, HingeJoint, JointBuilder, JointHandle,
    JointKind, JointLimit, JointMotor, MassProperties, Pose, RigidBodyBuilder, Solver,
    UniversalJoint, World,
};

const H: f64 = 1.0 / 60.0;
const G: f64 = 9.81;

fn solvers() -> [(&'static str, Solver); 2] {
    [
        ("exact", Solver::exact()),
        ("iterative", Solver::iterative()),
    ]
}

/// A 1 m shaft of 2 kg whose long axis is the world direction `along`, centred at `centre`.
fn shaft(world: &mut World, centre: Vec3, along: Vec3) -> BodyHandle {
    world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(
                MassProperties::cuboid_with_mass(Vec3::new(0.5, 0.05, 0.05), 2.0).unwrap(),
            )
            .position(centre)
            .orientation(Quat::from_rotation_arc(Vec3::X, along))
            .build()
            .unwrap(),
    )
}

#[test]
fn a_cardan_shaft_follows_the_universal_joint_speed_ratio() {
    let beta: f64 = 30f64.to_radians();
    let w_in = 2.0;
    let bent = Vec3::new(beta.cos(), 0.0, beta.sin());
    for (name, solver) in solvers() {
        let mut world = World::new();
        world.set_solver(solver).unwrap();
        world.set_gravity(Vec3::ZERO).unwrap();
        // Input along x ending at the origin, output along `bent` starting there; each on
        // a hinge to the world about its own axis; the cross at the origin, its arm on the
        // input along y (normal to the shafts' plane), on the output normal to both.
        let input = shaft(&mut world, Vec3::new(-0.5, 0.0, 0.0), Vec3::X);
        let output = shaft(&mut world, 0.5 * bent, bent);
        let (pose_in, pose_out) = (
            world.pose(Some(input)).unwrap(),
            world.pose(Some(output)).unwrap(),
        );
        let drive = HingeJoint::at_world_axis(pose_in.position, Vec3::X, &pose_in, &Pose::IDENTITY)
            .unwrap()
            .with_control(AxisControl {
                limit: None,
                motor: Some(JointMotor::new(w_in, 1e3).unwrap()),
            });
        let drive = world
            .add_joint(JointBuilder::new(input, None, drive))
            .unwrap();
        let driven = world
            .add_hinge_joint(output, None, pose_out.position, bent)
            .unwrap();
        let cross = world
            .add_universal_joint(
                input,
                Some(output),
                Vec3::ZERO,
                Vec3::Y,
                bent.cross(Vec3::Y),
            )
            .unwrap();
        let (mut worst_ratio, mut worst_perpendicular): (f64, f64) = (0.0, 0.0);
        for n in 0..240 {
            world.step(H).unwrap();
            let gamma = world.joint_axis_state(drive, 0).unwrap().position;
            let w_out = world.joint_axis_state(driven, 0).unwrap().velocity;
            let w = world.joint_axis_state(drive, 0).unwrap().velocity;
            // The step's velocity is its average (the chord between the poses, which the
            // curvature term makes it): compare it with the ratio at the mid-step angle.
            let middle = gamma - 0.5 * H * w;
            let expected = w * beta.cos() / (1.0 - (beta.sin() * middle.sin()).powi(2));
            if n > 0 {
                worst_ratio = worst_ratio.max((w_out / expected - 1.0).abs());
            }
            let j = world.joint(cross).unwrap();
            let JointKind::Universal(u) = j.kind() else {
                unreachable!()
            };
            let (u1, u2) = u.axes(
                &world.pose(Some(input)).unwrap(),
                &world.pose(Some(output)).unwrap(),
            );
            worst_perpendicular = worst_perpendicular.max(u1.dot(u2).abs());
        }
        let w = world.joint_axis_state(drive, 0).unwrap().velocity;
        eprintln!(
            "{name}: output speed within {worst_ratio:.2e} of the Cardan ratio, axes perpendicular to {worst_perpendicular:.2e}, input {w:.6} rad/s"
        );
        assert!((w - w_in).abs() < 1e-3, "{name}: {w}");
        // Over the whole run the output swings between 0.87 and 1.15 times the input.
        // (At the end-of-step angle instead the error is h w / 2 times the ratio's slope,
        // 5e-3: the chord velocity is second-order accurate at the middle of the step.)
        assert!(worst_ratio < 2e-4, "{name}: {worst_ratio}");
        assert!(worst_perpendicular < 2e-6, "{name}: {worst_perpendicular}");
    }
}

#[test]
fn universal_motors_drive_both_free_rates() {
    for (name, solver) in solvers() {
        let mut world = World::new();
        world.set_solver(solver).unwrap();
        world.set_gravity(Vec3::ZERO).unwrap();
        let body = shaft(&mut world, Vec3::new(0.5, 0.0, 0.0), Vec3::X);
        let pose = world.pose(Some(body)).unwrap();
        let targets = [1.0, -0.5];
        let mut joint =
            UniversalJoint::at_world_point(Vec3::ZERO, Vec3::Y, Vec3::Z, &pose, &Pose::IDENTITY)
                .unwrap();
        for (k, target) in targets.into_iter().enumerate() {
            joint = joint.with_control(
                k,
                AxisControl {
                    limit: None,
                    motor: Some(JointMotor::new(target, 50.0).unwrap()),
                },
            );
        }
        let joint = world
            .add_joint(JointBuilder::new(body, None, joint))
            .unwrap();
        for _ in 0..30 {
            world.step(H).unwrap();
            for (k, target) in targets.into_iter().enumerate() {
                let rate = world.joint_axis_state(joint, k).unwrap().velocity;
                assert!(
                    (rate - target).abs() < 1e-3,
                    "{name} axis {k}: {rate} vs {target}"
                );
            }
        }
        // Turning about the two axes: the axes stay perpendicular, and the third relative
        // rate (about u1 x u2) is only the chord's. The row asked J u = -kappa at the
        // step's start, kappa = (h / 2) d^2(u1 . u2)/dt^2 = (h / 2) a b for rates a, b (B
        // still); at the end pose, where it is read, J has turned by h dJ/dt and the same
        // velocity reads +(h / 2) a b (which the next step reverses).
        let b = world.body(body).unwrap();
        let JointKind::Universal(u) = world.joint(joint).unwrap().kind() else {
            unreachable!()
        };
        let (u1, u2) = u.axes(&Pose::of(b), &Pose::IDENTITY);
        let third = b.angular_velocity().dot(u1.cross(u2));
        let chord = 0.5 * H * targets[0] * targets[1];
        eprintln!(
            "{name}: third rate {third:.4e} (chord {chord:.4e}), u1 . u2 = {:.1e}",
            u1.dot(u2)
        );
        // (Gauss-Seidel's 20 sweeps leave 5e-4 of it unconverged.)
        assert!((third - chord).abs() < 1e-3, "{name}: {third} vs {chord}");
        assert!(u1.dot(u2).abs() < 2e-6, "{name}");
    }
}

/// A 10 kg wheel (radius 0.3 m) spinning at `spin` on a hinge-2 to the world at (0, 0, 1):
/// steering axis z, axle y; `setup` adjusts the joint. The wheel uses the gyroscopic mode
/// that conserves its momentum: the default implicit mode's modified inertia
/// `I - h [L]x` would pass 2 % of a steering torque to the camber axis (O(h |L| / I)).
fn wheel(
    solver: Solver,
    spin: f64,
    setup: impl FnOnce(Hinge2Joint) -> Hinge2Joint,
) -> (World, BodyHandle, JointHandle) {
    let mut world = World::new();
    world.set_solver(solver).unwrap();
    let centre = Vec3::new(0.0, 0.0, 1.0);
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::cylinder_with_mass(0.1, 0.3, 10.0).unwrap())
            .position(centre)
            .orientation(Quat::from_rotation_x(-PI / 2.0))
            .angular_velocity(Vec3::new(0.0, spin, 0.0))
            .gyroscopic_mode(GyroscopicMode::Conserving)
            .build()
            .unwrap(),
    );
    let pose = world.pose(Some(body)).unwrap();
    let joint =
        Hinge2Joint::at_world_point(centre, Vec3::Z, Vec3::Y, &pose, &Pose::IDENTITY).unwrap();
    let joint = world
        .add_joint(JointBuilder::new(body, None, setup(joint)))
        .unwrap();
    (world, body, joint)
}

#[test]
fn a_hinge2_wheel_spins_freely_about_its_axle() {
    for (name, solver) in solvers() {
        let (mut world, body, joint) = wheel(solver, 20.0, |j| j);
        for _ in 0..120 {
            world.step(H).unwrap();
        }
        let spin = world.joint_axis_state(joint, Hinge2Joint::WHEEL).unwrap();
        let steer = world
            .joint_axis_state(joint, Hinge2Joint::STEERING)
            .unwrap();
        let b = world.body(body).unwrap();
        eprintln!("{name}: wheel {spin:?}, steering {steer:?}");
        // Frictionless axle, symmetric wheel: the spin is kept exactly, nothing else moves.
        assert!((spin.velocity - 20.0).abs() < 1e-9, "{name}");
        assert!(
            steer.position.abs() < 1e-9 && steer.velocity.abs() < 1e-9,
            "{name}"
        );
        assert!(
            (b.position() - Vec3::new(0.0, 0.0, 1.0)).length() < 1e-6,
            "{name}"
        );
    }
}

#[test]
fn a_steering_motor_holds_and_servos_the_steering_angle_up_to_the_lock() {
    let disturbance = 5.0; // N m about the steering axis
    for (name, solver) in solvers() {
        let motor = JointMotor::new(0.0, 50.0).unwrap();
        let (mut world, body, joint) = wheel(solver.clone(), 5.0, |mut j| {
            j.steering = AxisControl {
                limit: Some(JointLimit::new(-0.5, 0.5).unwrap()),
                motor: Some(motor),
            };
            j
        });
        // Hold: the motor (target 0 rad/s) balances the disturbance exactly; the angle
        // creeps only by the motor row's CFM yield, cfm * torque = 5e-5 rad/s.
        for _ in 0..120 {
            world
                .body_mut(body)
                .unwrap()
                .add_torque(Vec3::Z * disturbance)
                .unwrap();
            world.step(H).unwrap();
            let torque = world.joint(joint).unwrap().feedback().motor[Hinge2Joint::STEERING];
            // Exactly balanced in the continuum (no gyroscopic torque for a spin about
            // the symmetry axis); the midpoint rule's coupling leaves 0.1 %.
            assert!(
                (torque + disturbance).abs() < 2e-3 * disturbance,
                "{name}: {torque}"
            );
        }
        let held = world
            .joint_axis_state(joint, Hinge2Joint::STEERING)
            .unwrap()
            .position;
        // Servo: drive the motor's target speed by the angle error, 8 (rad/s)/rad.
        let target = 0.3;
        for _ in 0..120 {
            let angle = world
                .joint_axis_state(joint, Hinge2Joint::STEERING)
                .unwrap()
                .position;
            let speed = 8.0 * (target - angle);
            world
                .joint_mut(joint)
                .unwrap()
                .set_motor(
                    Hinge2Joint::STEERING,
                    Some(JointMotor::new(speed, 50.0).unwrap()),
                )
                .unwrap();
            world.step(H).unwrap();
        }
        let servoed = world
            .joint_axis_state(joint, Hinge2Joint::STEERING)
            .unwrap()
            .position;
        // Lock: full speed towards +1 rad/s ends on the 0.5 rad stop.
        world
            .joint_mut(joint)
            .unwrap()
            .set_motor(
                Hinge2Joint::STEERING,
                Some(JointMotor::new(1.0, 50.0).unwrap()),
            )
            .unwrap();
        for _ in 0..120 {
            world.step(H).unwrap();
        }
        let locked = world
            .joint_axis_state(joint, Hinge2Joint::STEERING)
            .unwrap()
            .position;
        let feedback = world.joint(joint).unwrap().feedback();
        let spin = world
            .joint_axis_state(joint, Hinge2Joint::WHEEL)
            .unwrap()
            .velocity;
        eprintln!("{name}: held {held:.2e} rad, servoed to {servoed:.6}, locked at {locked:.8} (lock torque {:.3}, motor {:.3}), wheel still at {spin:.9} rad/s", feedback.limit[0], feedback.motor[0]);
        assert!(held.abs() < 2e-4, "{name}: {held}");
        assert!((servoed - target).abs() < 1e-4, "{name}: {servoed}");
        assert!((locked - 0.5).abs() < 1e-6, "{name}: {locked}");
        // At the lock the stop takes what the motor pushes (a rigid stop against a motor
        // at its speed target: the split between the two rows is set by their CFMs).
        assert!(
            feedback.limit[0] < 0.0
                && (feedback.limit[0] + feedback.motor[0]).abs()
                    < 1e-6 + 1e-6 * feedback.motor[0].abs(),
            "{name}: {feedback:?}"
        );
        // Steering leaves the free spin alone (no torque along the axle); what changes is
        // the discretisation of turning a spinning wheel: 0.4 % after these manoeuvres.
        assert!((spin - 5.0).abs() < 1e-2 * 5.0, "{name}: {spin}");
    }
}

#[test]
fn a_hinge2_suspension_sags_by_weight_over_stiffness() {
    let (stiffness, damping, mass) = (2e4, 500.0, 10.0);
    for (name, solver) in solvers() {
        let (mut world, body, joint) = wheel(solver, 3.0, |j| {
            j.with_suspension(stiffness, damping).unwrap()
        });
        for _ in 0..300 {
            world.step(H).unwrap();
        }
        let j = world.joint(joint).unwrap();
        let JointKind::Hinge2(h2) = j.kind() else {
            unreachable!()
        };
        let travel = h2.suspension_travel(&world.pose(Some(body)).unwrap(), &Pose::IDENTITY);
        let expected = -mass * G / stiffness;
        eprintln!("{name}: suspension travel {travel:.6e} m, -m g / k = {expected:.6e} m");
        // The spring row is the implicit spring lambda = -k C+ - c v+: at rest exactly m g / k.
        assert!((travel / expected - 1.0).abs() < 1e-4, "{name}: {travel}");
        assert!((j.feedback().force_a.z - mass * G).abs() < 1e-6 * mass * G);
    }
}
