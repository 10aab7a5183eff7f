//! Joint Coulomb friction, implicit viscous damping and servos (`AxisDynamics`), against
//! closed-form mechanics (docs/dynamics.md#joint-friction-damping-and-servos).
//!
//! - Friction torque `T`: a load below `T` does not move the joint at all over 10 s; above
//!   it the joint accelerates at `(tau - T) / I`.
//! - Damping `c`: an isolated coordinate's rate is divided by exactly `1 + h c / I` each
//!   step, and stays stable (monotone, no sign change) at `c h / I = 1e6`, where an
//!   explicit `-c v` would multiply it by `1 - 1e6`.
//! - A position servo holds a pendulum at its target within 1 mrad up to very high gains
//!   and sags when its force limit is below the gravity torque; a velocity servo reaches
//!   its target speed, with the force limit and the load error `tau / gain` of the formula.
//! - Friction and a zero-target motor on one axis hold the sum of their bounds; a servo
//!   drives either axis of a universal joint; a servo holds a slider's weight.
//! - The settings survive snapshots, bad ones are typed errors, and the rows appear only
//!   when configured.

use stiction::math::Vec3;
use stiction::{
    AxisDynamics, BodyHandle, DistanceJoint, HingeJoint, JointBuilder, JointError, JointHandle,
    JointServo, MassProperties, Pose, RigidBodyBuilder, SliderJoint, Solver, World, WorldError,
};

const H: f64 = 1e-3;
const G: f64 = 9.81;

fn solvers() -> [(&'static str, Solver); 2] {
    [
        ("exact", Solver::exact()),
        ("iterative", Solver::iterative()),
    ]
}

/// A 2 kg box 0.4 x 0.4 x 0.1 m centred on a hinge about world z (a principal axis, so
/// nothing couples its spin to the hinge's other rows), spinning at `spin` rad/s, with
/// `dynamics` on the hinge angle. Returns the world, the body, the joint and `I_zz`.
fn wheel(
    solver: Solver,
    spin: f64,
    dynamics: AxisDynamics,
) -> (World, BodyHandle, JointHandle, f64) {
    let mut world = World::new();
    world.set_solver(solver).unwrap();
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(
                MassProperties::cuboid_with_mass(Vec3::new(0.2, 0.2, 0.05), 2.0).unwrap(),
            )
            .angular_velocity(Vec3::new(0.0, 0.0, spin))
            .build()
            .unwrap(),
    );
    let pose = world.pose(Some(body)).unwrap();
    let hinge = HingeJoint::at_world_axis(Vec3::ZERO, Vec3::Z, &pose, &Pose::IDENTITY).unwrap();
    let joint = world
        .add_joint(
            JointBuilder::new(body, None, hinge)
                .axis_dynamics(0, dynamics)
                .unwrap(),
        )
        .unwrap();
    let inertia = world.body(body).unwrap().inertia_world().col(2).z;
    (world, body, joint, inertia)
}

/// A 1 kg bar 1 m x 0.1 m x 0.1 m lying along +x from a hinge at the origin about +y, at
/// rest: gravity's torque on the hinge angle is `m g d cos(angle)`, `d` = 0.5 m, positive
/// (the angle grows as the bar falls). Returns the world, the joint and `I` about the hinge.
fn pendulum(dynamics: AxisDynamics) -> (World, JointHandle, f64) {
    let mut world = World::new();
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(
                MassProperties::cuboid_with_mass(Vec3::new(0.5, 0.05, 0.05), 1.0).unwrap(),
            )
            .position(Vec3::new(0.5, 0.0, 0.0))
            .build()
            .unwrap(),
    );
    let pose = world.pose(Some(body)).unwrap();
    let hinge = HingeJoint::at_world_axis(Vec3::ZERO, Vec3::Y, &pose, &Pose::IDENTITY).unwrap();
    let joint = world
        .add_joint(
            JointBuilder::new(body, None, hinge)
                .axis_dynamics(0, dynamics)
                .unwrap(),
        )
        .unwrap();
    // m (l^2 + w^2) / 12 + m d^2
    let inertia = (1.0 + 0.01) / 12.0 + 0.25;
    (world, joint, inertia)
}

const GRAVITY_TORQUE: f64 = 1.0 * G * 0.5;

fn angle(world: &World, joint: JointHandle) -> f64 {
    world.joint_axis_state(joint, 0).unwrap().position
}

fn rate(world: &World, joint: JointHandle) -> f64 {
    world.joint_axis_state(joint, 0).unwrap().velocity
}

fn friction(torque: f64) -> AxisDynamics {
    AxisDynamics::default().with_friction(torque).unwrap()
}

#[test]
fn friction_holds_a_load_below_it_exactly_for_ten_seconds() {
    // Gravity on a pendulum, through the hinge's point rows (exact stepper).
    let (mut world, joint, _) = pendulum(friction(1.2 * GRAVITY_TORQUE));
    let mut worst = 0.0f64;
    for _ in 0..10_000 {
        world.step(H).unwrap();
        worst = worst.max(angle(&world, joint).abs());
    }
    let held = world.joint(joint).unwrap().feedback().friction[0];
    eprintln!("pendulum: worst |angle| {worst:.1e} rad, friction torque {held:.6} N m");
    assert!(worst < 1e-9, "{worst}");
    assert!(
        (held + GRAVITY_TORQUE).abs() < 1e-6 * GRAVITY_TORQUE,
        "{held}"
    );
    // An applied torque on a wheel, both steppers.
    for (name, solver) in solvers() {
        let (mut world, body, joint, _) = wheel(solver, 0.0, friction(2.0));
        let mut worst = 0.0f64;
        for _ in 0..10_000 {
            let wheel = world.body_mut(body).unwrap();
            wheel.add_torque(Vec3::new(0.0, 0.0, 1.9)).unwrap();
            world.step(H).unwrap();
            worst = worst.max(angle(&world, joint).abs());
        }
        let held = world.joint(joint).unwrap().feedback().friction[0];
        eprintln!("{name} wheel: worst |angle| {worst:.1e} rad, friction torque {held:.9} N m");
        assert!(worst < 1e-9, "{name}: {worst}");
        assert!((held + 1.9).abs() < 1e-9, "{name}: {held}");
    }
}

#[test]
fn friction_below_the_load_slips_at_the_analytic_acceleration() {
    for (name, solver) in solvers() {
        let (tau, t) = (5.0, 2.0);
        let (mut world, body, joint, inertia) = wheel(solver, 0.0, friction(t));
        let steps = 200;
        for _ in 0..steps {
            let wheel = world.body_mut(body).unwrap();
            wheel.add_torque(Vec3::new(0.0, 0.0, tau)).unwrap();
            world.step(H).unwrap();
        }
        let expected = (tau - t) / inertia * steps as f64 * H;
        let w = rate(&world, joint);
        let slipping = world.joint(joint).unwrap().feedback().friction[0];
        eprintln!("{name} wheel: rate {w:.9} vs {expected:.9} rad/s, friction {slipping} N m");
        assert!(
            (w / expected - 1.0).abs() < 0.01,
            "{name}: {w} vs {expected}"
        );
        assert!((slipping + t).abs() < 1e-9, "{name}: {slipping}");
    }
    // The pendulum released against half its gravity torque: over 20 ms the angle stays
    // below 2 mrad, so the torque is m g d to 2e-6.
    let t = 0.5 * GRAVITY_TORQUE;
    let (mut world, joint, inertia) = pendulum(friction(t));
    let steps = 20;
    for _ in 0..steps {
        world.step(H).unwrap();
    }
    let expected = (GRAVITY_TORQUE - t) / inertia * steps as f64 * H;
    let w = rate(&world, joint);
    eprintln!("pendulum: rate {w:.9} vs {expected:.9} rad/s");
    assert!((w / expected - 1.0).abs() < 0.01, "{w} vs {expected}");
}

#[test]
fn implicit_damping_divides_the_rate_by_one_plus_h_c_over_i_each_step() {
    let w0 = 3.0;
    for (name, solver) in solvers() {
        // c h / I = 0.5: the rate falls by 1.5 a step.
        let inertia = wheel(solver.clone(), w0, AxisDynamics::NONE).3;
        let c = 0.5 * inertia / H;
        let damped = AxisDynamics::default().with_damping(c).unwrap();
        let (mut world, _, joint, _) = wheel(solver.clone(), w0, damped);
        for n in 1..=60 {
            world.step(H).unwrap();
            let expected = w0 / (1.0 + H * c / inertia).powi(n);
            let w = rate(&world, joint);
            assert!(
                (w - expected).abs() <= 1e-9 * expected,
                "{name} step {n}: {w} vs {expected}"
            );
        }
        // c h / I = 1e6: one step leaves w0 / (1 + 1e6), then the rate only shrinks (an
        // explicit force would multiply it by 1 - 1e6 a step).
        let c = 1e6 * inertia / H;
        let damped = AxisDynamics::default().with_damping(c).unwrap();
        let (mut world, _, joint, _) = wheel(solver, w0, damped);
        world.step(H).unwrap();
        let first = rate(&world, joint);
        let expected = w0 / (1.0 + 1e6);
        eprintln!("{name}: c h / I = 1e6, rate after one step {first:.6e} vs {expected:.6e}");
        assert!(
            (first - expected).abs() < 1e-6 * expected,
            "{name}: {first}"
        );
        let mut last = first;
        for _ in 0..1000 {
            world.step(H).unwrap();
            let w = rate(&world, joint);
            assert!(
                w.is_finite() && w >= 0.0 && w <= last,
                "{name}: {w} after {last}"
            );
            last = w;
        }
    }
}

#[test]
fn implicit_damping_on_a_slider_divides_the_speed_by_one_plus_h_c_over_m() {
    let mut world = World::new();
    world.set_gravity(Vec3::ZERO).unwrap();
    let (mass, v0) = (3.0, 2.0);
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.1, mass).unwrap())
            .linear_velocity(Vec3::new(v0, 0.0, 0.0))
            .build()
            .unwrap(),
    );
    let pose = world.pose(Some(body)).unwrap();
    let slider = SliderJoint::along_world_axis(Vec3::X, &pose, &Pose::IDENTITY).unwrap();
    let c = 0.25 * mass / H;
    let joint = world
        .add_joint(
            JointBuilder::new(body, None, slider)
                .axis_dynamics(0, AxisDynamics::default().with_damping(c).unwrap())
                .unwrap(),
        )
        .unwrap();
    for n in 1..=40 {
        world.step(H).unwrap();
        let expected = v0 / 1.25f64.powi(n);
        let v = rate(&world, joint);
        assert!((v - expected).abs() <= 1e-9 * expected, "step {n}: {v}");
        let force = world.joint(joint).unwrap().feedback().damping[0];
        assert!((force + c * v).abs() <= 1e-9 * c * v, "step {n}: {force}");
    }
}

#[test]
fn a_stiff_position_servo_holds_a_pendulum_at_its_target() {
    let target: f64 = 0.3;
    let load = GRAVITY_TORQUE * target.cos();
    for (k, d) in [(1e4, 50.0), (1e5, 800.0), (1e7, 1e4), (1e9, 0.0)] {
        let servo = JointServo::position(target, k, d).unwrap();
        let (mut world, joint, _) = pendulum(AxisDynamics::default().with_servo(servo));
        for _ in 0..3000 {
            world.step(H).unwrap();
            assert!(angle(&world, joint).is_finite());
        }
        let error = angle(&world, joint) - target;
        let torque = world.joint(joint).unwrap().feedback().servo[0];
        eprintln!(
            "k {k:e}, d {d}: error {error:.3e} rad (static {:.3e}), servo {torque:.6} N m",
            load / k
        );
        assert!(error.abs() < 1e-3, "k {k}: {error}");
        // The static deflection of a spring k under the load, and the load's torque.
        assert!(
            (error - load / k).abs() < 1e-3 * load / k + 1e-7,
            "k {k}: {error}"
        );
        // The torque of gravity at the angle reached (cos moves by 1.5e-4 at k = 1e4).
        assert!((torque + load).abs() < 1e-3 * load, "k {k}: {torque}");
        assert!(rate(&world, joint).abs() < 1e-6);
    }
}

#[test]
fn a_position_servo_weaker_than_gravity_sags_and_never_exceeds_its_limit() {
    let limit = 0.5 * GRAVITY_TORQUE;
    let servo = JointServo::position(0.0, 1e5, 800.0)
        .unwrap()
        .with_max_force(limit)
        .unwrap();
    let (mut world, joint, _) = pendulum(AxisDynamics::default().with_servo(servo));
    let (mut lowest, mut strongest) = (0.0f64, 0.0f64);
    for _ in 0..2000 {
        world.step(H).unwrap();
        lowest = lowest.max(angle(&world, joint));
        strongest = strongest.max(world.joint(joint).unwrap().feedback().servo[0].abs());
    }
    eprintln!("sags to {lowest:.3} rad, servo at most {strongest:.6} of {limit:.6} N m");
    // m g d cos(angle) = limit at 60 degrees: it swings past that.
    assert!(lowest > 1.0, "{lowest}");
    assert!(strongest <= limit * (1.0 + 1e-12), "{strongest}");
    assert!(strongest >= limit * (1.0 - 1e-12), "{strongest}");
}

#[test]
fn a_velocity_servo_reaches_its_target_speed() {
    let (target, gain, limit) = (5.0, 50.0, 1.0);
    for (name, solver) in solvers() {
        let servo = JointServo::velocity(target, gain)
            .unwrap()
            .with_max_force(limit)
            .unwrap();
        let dynamics = AxisDynamics::default().with_servo(servo);
        let (mut world, body, joint, inertia) = wheel(solver, 0.0, dynamics);
        // Saturated at first: the limit's acceleration.
        world.step(H).unwrap();
        let first = rate(&world, joint);
        assert!(
            (first - H * limit / inertia).abs() < 1e-9,
            "{name}: {first}"
        );
        for _ in 0..1000 {
            world.step(H).unwrap();
        }
        let w = rate(&world, joint);
        eprintln!("{name}: {w:.9} rad/s after 1 s (target {target})");
        assert!((w - target).abs() < 1e-6, "{name}: {w}");
        // Against a load torque the speed settles at target + load / gain.
        let load = -0.4;
        for _ in 0..1000 {
            let wheel = world.body_mut(body).unwrap();
            wheel.add_torque(Vec3::new(0.0, 0.0, load)).unwrap();
            world.step(H).unwrap();
        }
        let w = rate(&world, joint);
        let torque = world.joint(joint).unwrap().feedback().servo[0];
        assert!((w - (target + load / gain)).abs() < 1e-6, "{name}: {w}");
        assert!((torque + load).abs() < 1e-6, "{name}: {torque}");
    }
}

#[test]
fn a_position_servo_on_a_vertical_slider_holds_its_weight() {
    let mut world = World::new();
    let mass = 4.0;
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.1, mass).unwrap())
            .build()
            .unwrap(),
    );
    let pose = world.pose(Some(body)).unwrap();
    let slider = SliderJoint::along_world_axis(Vec3::Z, &pose, &Pose::IDENTITY).unwrap();
    let (target, k) = (0.2, 1e6);
    let servo = JointServo::position(target, k, 2.0 * (k * mass).sqrt()).unwrap();
    let joint = world
        .add_joint(
            JointBuilder::new(body, None, slider)
                .axis_dynamics(0, AxisDynamics::default().with_servo(servo))
                .unwrap(),
        )
        .unwrap();
    for _ in 0..1000 {
        world.step(H).unwrap();
    }
    let height = world.body(body).unwrap().position().z;
    let force = world.joint(joint).unwrap().feedback().servo[0];
    eprintln!("slider: height {height:.9} m, servo {force:.6} N");
    assert!((height - (target - mass * G / k)).abs() < 1e-7, "{height}");
    assert!((force - mass * G).abs() < 1e-6 * mass * G, "{force}");
}

#[test]
fn friction_damping_and_a_servo_add_rows_only_when_set() {
    let rows = |dynamics: AxisDynamics| {
        let (mut world, _, _, _) = wheel(Solver::exact(), 1.0, dynamics);
        world.step(H).unwrap().rows
    };
    let servo = JointServo::position(0.1, 10.0, 1.0).unwrap();
    assert_eq!(rows(AxisDynamics::NONE), 5);
    assert_eq!(rows(friction(1.0)), 6);
    assert_eq!(rows(friction(0.0)), 5);
    let all = friction(1.0).with_damping(2.0).unwrap().with_servo(servo);
    assert_eq!(rows(all), 8);
    // Changing them on a live joint (a controller moving its target).
    let (mut world, _, joint, _) = wheel(Solver::exact(), 0.0, AxisDynamics::NONE);
    world
        .joint_mut(joint)
        .unwrap()
        .set_servo(0, Some(servo))
        .unwrap();
    assert_eq!(world.step(H).unwrap().rows, 6);
    for _ in 0..2000 {
        world.step(H).unwrap();
    }
    assert!((angle(&world, joint) - 0.1).abs() < 1e-6);
    let moved = servo.with_target_position(-0.2).unwrap();
    world
        .joint_mut(joint)
        .unwrap()
        .set_servo(0, Some(moved))
        .unwrap();
    for _ in 0..2000 {
        world.step(H).unwrap();
    }
    assert!((angle(&world, joint) + 0.2).abs() < 1e-6);
    world.joint_mut(joint).unwrap().set_servo(0, None).unwrap();
    assert_eq!(world.step(H).unwrap().rows, 5);
}

#[test]
fn bad_settings_are_refused_with_typed_errors() {
    assert!(matches!(
        AxisDynamics::default().with_friction(-1.0),
        Err(WorldError::InvalidSetting {
            name: "joint friction",
            ..
        })
    ));
    assert!(matches!(
        AxisDynamics::default().with_damping(f64::NAN),
        Err(WorldError::InvalidSetting {
            name: "joint damping",
            ..
        })
    ));
    assert!(matches!(
        JointServo::position(0.0, f64::INFINITY, 1.0),
        Err(WorldError::InvalidJoint(JointError::InvalidSpring { .. }))
    ));
    assert!(matches!(
        JointServo::velocity(1.0, 5.0).unwrap().with_max_force(-2.0),
        Err(WorldError::InvalidSetting {
            name: "servo max force",
            ..
        })
    ));
    let mut world = World::new();
    let body = world.add_body(RigidBodyBuilder::dynamic().build().unwrap());
    let pose = world.pose(Some(body)).unwrap();
    let hinge = HingeJoint::at_world_axis(Vec3::ZERO, Vec3::Z, &pose, &Pose::IDENTITY).unwrap();
    // A hinge has one axis; a ball none.
    assert!(matches!(
        JointBuilder::new(body, None, hinge).axis_dynamics(1, friction(1.0)),
        Err(WorldError::InvalidJoint(JointError::NoSuchAxis {
            axis: 1,
            count: 1
        }))
    ));
    let ball = stiction::BallJoint::at_world_point(Vec3::ZERO, &pose, &Pose::IDENTITY).unwrap();
    assert!(JointBuilder::new(body, None, ball)
        .axis_dynamics(0, friction(1.0))
        .is_err());
    // A rigid rod has no free coordinate; a rope does.
    let rod =
        DistanceJoint::between_world_points(Vec3::ZERO, Vec3::X, &pose, &Pose::IDENTITY).unwrap();
    assert!(matches!(
        JointBuilder::new(body, None, rod).axis_dynamics(0, friction(1.0)),
        Err(WorldError::InvalidJoint(JointError::Unsupported { .. }))
    ));
    let rope = rod.rope(2.0).unwrap();
    assert!(JointBuilder::new(body, None, rope)
        .axis_dynamics(0, friction(1.0))
        .is_ok());
    // A refused change leaves the joint as it was.
    let joint = world
        .add_joint(
            JointBuilder::new(body, None, hinge)
                .axis_dynamics(0, friction(1.0))
                .unwrap(),
        )
        .unwrap();
    let joint = world.joint_mut(joint).unwrap();
    let mut bad = friction(1.0);
    bad.damping = -3.0;
    assert!(joint.set_axis_dynamics(0, bad).is_err());
    assert!(joint.set_axis_dynamics(2, friction(1.0)).is_err());
    assert_eq!(joint.axis_dynamics(0), Some(&friction(1.0)));
    assert_eq!(joint.axis_dynamics(1), None);
}

#[test]
fn snapshots_keep_friction_damping_and_servos() {
    let servo = JointServo::position(0.4, 2e3, 30.0)
        .unwrap()
        .with_max_force(4.0)
        .unwrap();
    let dynamics = friction(0.3).with_damping(0.2).unwrap().with_servo(servo);
    let (mut world, joint, _) = pendulum(dynamics);
    for _ in 0..100 {
        world.step(H).unwrap();
    }
    let mut file = Vec::new();
    world.save_snapshot(&mut file, 100).unwrap();
    let mut copy = stiction::World::load_snapshot(&file[..]).unwrap().world;
    assert_eq!(copy.joint(joint).unwrap().axis_dynamics(0), Some(&dynamics));
    assert_eq!(
        copy.joint(joint).unwrap().feedback(),
        world.joint(joint).unwrap().feedback()
    );
    for _ in 0..100 {
        world.step(H).unwrap();
        copy.step(H).unwrap();
    }
    let bits = |w: &World| {
        let s = w.joint_axis_state(joint, 0).unwrap();
        [s.position.to_bits(), s.velocity.to_bits()]
    };
    assert_eq!(bits(&world), bits(&copy));
}

#[test]
fn friction_and_a_braking_motor_on_one_axis_add_up() {
    // Two identical rigid rows (friction 2, a zero-target motor of 3 N m with CFM 0): they
    // hold up to 5 N m together and slip above it at (tau - 5) / I.
    for (name, solver) in solvers() {
        for (tau, sticks) in [(4.5, true), (6.0, false)] {
            let (mut world, body, joint, inertia) = wheel(solver.clone(), 0.0, friction(2.0));
            let brake = stiction::JointMotor::new(0.0, 3.0).unwrap();
            world
                .joint_mut(joint)
                .unwrap()
                .set_motor(0, Some(brake))
                .unwrap();
            let steps = 500;
            for _ in 0..steps {
                let wheel = world.body_mut(body).unwrap();
                wheel.add_torque(Vec3::new(0.0, 0.0, tau)).unwrap();
                let stats = world.step(H).unwrap();
                assert_eq!(stats.fallbacks, 0, "{name}");
            }
            let w = rate(&world, joint);
            let feedback = world.joint(joint).unwrap().feedback();
            let held = feedback.friction[0] + feedback.motor[0];
            eprintln!("{name}, load {tau}: rate {w:.3e}, friction + motor {held:.9}");
            if sticks {
                assert!(w.abs() < 1e-12, "{name}: {w}");
                assert!((held + tau).abs() < 1e-9, "{name}: {held}");
            } else {
                let expected = (tau - 5.0) / inertia * steps as f64 * H;
                assert!(
                    (w / expected - 1.0).abs() < 1e-9,
                    "{name}: {w} vs {expected}"
                );
            }
        }
    }
}

#[test]
fn a_velocity_servo_drives_either_axis_of_a_universal_joint() {
    for axis in [0, 1] {
        let mut world = World::new();
        world.set_gravity(Vec3::ZERO).unwrap();
        let body = world.add_body(
            RigidBodyBuilder::dynamic()
                .mass_properties(MassProperties::sphere_with_mass(0.2, 3.0).unwrap())
                .build()
                .unwrap(),
        );
        let pose = world.pose(Some(body)).unwrap();
        let universal = stiction::UniversalJoint::at_world_point(
            Vec3::ZERO,
            Vec3::X,
            Vec3::Y,
            &pose,
            &Pose::IDENTITY,
        )
        .unwrap();
        let servo = JointServo::velocity(1.5, 20.0).unwrap();
        let joint = world
            .add_joint(
                JointBuilder::new(body, None, universal)
                    .axis_dynamics(axis, AxisDynamics::default().with_servo(servo))
                    .unwrap(),
            )
            .unwrap();
        for _ in 0..500 {
            world.step(H).unwrap();
        }
        let driven = world.joint_axis_state(joint, axis).unwrap().velocity;
        let other = world.joint_axis_state(joint, 1 - axis).unwrap().velocity;
        eprintln!("universal axis {axis}: {driven:.9} rad/s, other axis {other:.1e}");
        assert!((driven - 1.5).abs() < 1e-6, "axis {axis}: {driven}");
        assert!(other.abs() < 1e-9, "axis {axis}: {other}");
    }
}
