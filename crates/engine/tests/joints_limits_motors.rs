//! Limits and motors on a hinge, with both steppers, against closed-form mechanics.
//!
//! - A bar resting on a hinge stop holds within post-stabilisation's tolerance of the stop
//!   and the stop's torque balances gravity's, `m g d cos(theta)`; falling onto it, it never
//!   goes past it (the stop acts a step ahead).
//! - A stop with restitution `e` sends a bar hitting it at `w` back at `e w`; slower than the
//!   bounce threshold, it does not bounce.
//! - A motor accelerates a wheel at exactly `tau_max / I` until the target speed, then holds
//!   it, never pushing harder than `tau_max`; too weak for its load it stalls at full torque.

use std::f64::consts::PI;
use stiction::math::{Quat, Vec3};
use stiction::{
    AxisControl, BodyHandle, HingeJoint, JointBuilder, JointHandle, JointLimit, JointMotor,
    MassProperties, Pose, RigidBodyBuilder, Solver, World,
};

const H: f64 = 1.0 / 60.0;
const G: f64 = 9.81;

fn solvers() -> [(&'static str, Solver); 2] {
    [
        ("exact", Solver::exact()),
        ("iterative", Solver::iterative()),
    ]
}

/// A 1 kg bar 1 m x 0.1 m x 0.1 m lying along +x from a hinge at the origin about +y, with
/// angular velocity `spin` about the hinge (rad/s) and `control` on the hinge angle (which
/// grows as the bar falls: gravity's torque about +y is `m g d cos(angle)`).
fn bar(
    solver: Solver,
    gravity: bool,
    spin: f64,
    control: AxisControl,
) -> (World, BodyHandle, JointHandle) {
    let mut world = World::new();
    world.set_solver(solver).unwrap();
    if !gravity {
        world.set_gravity(Vec3::ZERO).unwrap();
    }
    let centre = Vec3::new(0.5, 0.0, 0.0);
    let angular = Vec3::new(0.0, spin, 0.0);
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(
                MassProperties::cuboid_with_mass(Vec3::new(0.5, 0.05, 0.05), 1.0).unwrap(),
            )
            .position(centre)
            .angular_velocity(angular)
            .linear_velocity(angular.cross(centre))
            .build()
            .unwrap(),
    );
    let pose = world.pose(Some(body)).unwrap();
    let hinge = HingeJoint::at_world_axis(Vec3::ZERO, Vec3::Y, &pose, &Pose::IDENTITY)
        .unwrap()
        .with_control(control);
    let joint = world
        .add_joint(JointBuilder::new(body, None, hinge))
        .unwrap();
    (world, body, joint)
}

fn limited(lower: f64, upper: f64) -> AxisControl {
    AxisControl {
        limit: Some(JointLimit::new(lower, upper).unwrap()),
        motor: None,
    }
}

#[test]
fn a_bar_resting_on_a_hinge_stop_is_held_by_a_torque_that_balances_gravity() {
    let stop: f64 = 0.3;
    // I about the hinge: m (l^2 + w^2) / 12 + m d^2; the gravity torque at the stop.
    let load = 1.0 * G * 0.5 * stop.cos();
    for (name, solver) in solvers() {
        let (mut world, _, joint) = bar(solver, true, 0.0, limited(-1.0, stop));
        let mut highest = f64::MIN;
        for _ in 0..240 {
            world.step(H).unwrap();
            highest = highest.max(world.joint_axis_state(joint, 0).unwrap().position);
        }
        let angle = world.joint_axis_state(joint, 0).unwrap().position;
        let torque = world.joint(joint).unwrap().feedback().limit[0];
        eprintln!(
            "{name}: rests {:.2e} rad from the stop (worst {:.2e}), stop torque {torque:.6} vs -{load:.6} N m",
            angle - stop,
            highest - stop
        );
        // The stop row is post-stabilised to 1e-6 rad each step; before the projection the
        // velocity step leaves it within h * cfm * torque / erp ~ 4e-6 rad.
        assert!((angle - stop).abs() < 1e-5, "{name}: {angle}");
        // It was reached a step ahead, so the 2.4 rad/s fall never overshoots it.
        assert!(highest < stop + 1e-5, "{name}: {highest}");
        // The mirrored (upper) stop pushes the angle down with the load torque.
        assert!((torque + load).abs() < 1e-4 * load, "{name}: {torque}");
        let w = world.joint_axis_state(joint, 0).unwrap().velocity;
        assert!(w.abs() < 1e-4, "{name}: {w}");
    }
}

/// Angle rate just before and just after the stop at `stop` is hit, for a bar turning at
/// `speed` without gravity towards a stop with restitution `e`.
fn bounce(solver: Solver, speed: f64, e: f64) -> (f64, f64) {
    let stop = 0.5;
    let limit = JointLimit::new(-PI, stop)
        .unwrap()
        .with_bounce(e, 0.1)
        .unwrap();
    let control = AxisControl {
        limit: Some(limit),
        motor: None,
    };
    let (mut world, _, joint) = bar(solver, false, speed, control);
    let mut before = world.joint_axis_state(joint, 0).unwrap().velocity;
    for _ in 0..(2.0 / (speed * H)) as usize {
        world.step(H).unwrap();
        let now = world.joint_axis_state(joint, 0).unwrap().velocity;
        if now < 0.5 * before {
            return (before, now);
        }
        before = now;
    }
    (before, before)
}

#[test]
fn a_stop_with_restitution_returns_e_times_the_impact_speed() {
    for (name, solver) in solvers() {
        for e in [0.0, 0.6, 1.0] {
            let (impact, rebound) = bounce(solver.clone(), 3.0, e);
            eprintln!("{name}, e = {e}: impact {impact:.4} rad/s, rebound {rebound:.4} rad/s");
            // No gravity: the bar arrives at its launch speed, give or take the first
            // step's curvature impulse (+0.05 %) and, without a bounce, the last step's
            // speculative stop, which slows it to land exactly on the stop.
            assert!((impact - 3.0).abs() < 0.01, "{name}: {impact}");
            // The rebound is the stop's target; CFM lets it yield by cfm * lambda ~ 1e-3.
            assert!(
                (rebound + e * impact).abs() < 2e-3,
                "{name}, e = {e}: {rebound}"
            );
        }
        // Slower than the 0.1 rad/s threshold: no bounce, it stops dead.
        let (impact, rebound) = bounce(solver, 0.08, 1.0);
        assert!((impact - 0.08).abs() < 1e-3, "{name}: {impact}");
        assert!(rebound.abs() < 1e-3, "{name}: {rebound}");
    }
}

/// A 2 kg wheel (radius 0.3 m) on a hinge about its axis (z) with `motor`, no gravity.
fn wheel(solver: Solver, motor: JointMotor) -> (World, JointHandle, f64) {
    let mut world = World::new();
    world.set_solver(solver).unwrap();
    world.set_gravity(Vec3::ZERO).unwrap();
    let mass = MassProperties::cylinder_with_mass(0.05, 0.3, 2.0).unwrap();
    let inertia = 0.5 * 2.0 * 0.3 * 0.3;
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(mass)
            .position(Vec3::new(0.0, 0.0, 1.0))
            .build()
            .unwrap(),
    );
    let pose = world.pose(Some(body)).unwrap();
    let hinge = HingeJoint::at_world_axis(pose.position, Vec3::Z, &pose, &Pose::IDENTITY)
        .unwrap()
        .with_control(AxisControl {
            limit: None,
            motor: Some(motor),
        });
    let joint = world
        .add_joint(JointBuilder::new(body, None, hinge))
        .unwrap();
    (world, joint, inertia)
}

#[test]
fn a_motor_reaches_its_target_speed_at_its_torque_limit_and_never_exceeds_it() {
    let (target, max_torque) = (5.0, 0.5);
    for (name, solver) in solvers() {
        let (mut world, joint, inertia) =
            wheel(solver, JointMotor::new(target, max_torque).unwrap());
        // Full torque until the target: w_n = n h tau / I while below it (0.9 s here).
        let ramp = target * inertia / max_torque;
        let mut reached = None;
        for n in 1..=120 {
            world.step(H).unwrap();
            let torque = world.joint(joint).unwrap().feedback().motor[0];
            let w = world.joint_axis_state(joint, 0).unwrap().velocity;
            assert!(
                torque.abs() <= max_torque * (1.0 + 1e-12),
                "{name}: {torque}"
            );
            let t = n as f64 * H;
            if t < ramp - H {
                assert!((torque - max_torque).abs() < 1e-9, "{name}: {torque}");
                assert!(
                    (w - t * max_torque / inertia).abs() < 1e-6,
                    "{name}: {w} at {t}"
                );
            }
            if reached.is_none() && (w - target).abs() < 1e-6 {
                reached = Some(t);
            }
        }
        let w = world.joint_axis_state(joint, 0).unwrap().velocity;
        let torque = world.joint(joint).unwrap().feedback().motor[0];
        eprintln!("{name}: reached {target} rad/s at {reached:?} s (ramp {ramp:.3} s), now {w:.8}, torque {torque:.2e}");
        let reached = reached.expect("the motor never reached its target");
        assert!(
            (reached - ramp).abs() <= 1.5 * H,
            "{name}: {reached} vs {ramp}"
        );
        // Holding speed without a load needs no torque.
        assert!((w - target).abs() < 1e-8 && torque.abs() < 1e-6, "{name}");
    }
}

#[test]
fn a_motor_too_weak_for_its_load_stalls_at_full_torque() {
    // The bar hanging from its hinge, motor trying to lift it at 1 rad/s (towards negative
    // angles) with 2 N m against up to m g d = 4.9 N m: it settles where gravity's torque
    // equals the motor's, sin(angle from vertical) = tau / (m g d), and never turns.
    let max_torque = 2.0;
    let equilibrium = (max_torque / (1.0 * G * 0.5)).asin();
    for (name, solver) in solvers() {
        let (mut world, body, joint) = bar(
            solver,
            true,
            0.0,
            AxisControl {
                limit: None,
                motor: Some(JointMotor::new(-1.0, max_torque).unwrap()),
            },
        );
        // Start at rest at the equilibrium: bar turned down by pi/2 - equilibrium.
        let tilt = Quat::from_rotation_y(PI / 2.0 - equilibrium);
        let b = world.body_mut(body).unwrap();
        b.set_orientation(tilt).unwrap();
        b.set_position(tilt * Vec3::new(0.5, 0.0, 0.0)).unwrap();
        let start = world.joint_axis_state(joint, 0).unwrap().position;
        for _ in 0..180 {
            world.step(H).unwrap();
            let torque = world.joint(joint).unwrap().feedback().motor[0];
            assert!((torque + max_torque).abs() < 1e-9, "{name}: {torque}");
        }
        let state = world.joint_axis_state(joint, 0).unwrap();
        eprintln!(
            "{name}: stalled, angle moved {:.2e} rad, rate {:.2e} rad/s",
            state.position - start,
            state.velocity
        );
        assert!((state.position - start).abs() < 1e-4, "{name}");
        assert!(state.velocity.abs() < 1e-4, "{name}");
    }
}
