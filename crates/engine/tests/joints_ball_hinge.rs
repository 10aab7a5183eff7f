//! Ball and hinge joints against closed-form mechanics, with both steppers.
//!
//! - A simple pendulum (a 2 cm sphere on a 1 m ball joint, 0.05 rad amplitude) swings with
//!   period `2 pi sqrt(L / g)` (corrected for the sphere's own inertia, 8e-5 relative).
//! - A compound pendulum (a 1 x 0.1 x 0.1 m bar on a hinge at its end) swings with period
//!   `2 pi sqrt(I / (m g d))`, `I` about the hinge.
//! - At the bottom of a 60 degree swing the exact stepper's joint force is
//!   `m g + m v^2 / L`, and every joint's feedback obeys Newton's third law.
//! - A hinge keeps its axis under an off-axis spin and torque; a spring-softened joint sags
//!   by `m g / k`.
//! - The exact and iterative steppers agree on a small well-conditioned system.

mod common;

use std::f64::consts::PI;
use stiction::math::{Quat, Vec3};
use stiction::{
    BallJoint, BodyHandle, CurvatureCorrection, IterativeSettings, JointBuilder, JointHandle,
    JointKind, MassProperties, Pose, PostStabilization, RigidBodyBuilder, Softness, Solver, World,
};

const H: f64 = 1.0 / 60.0;
const G: f64 = 9.81;

fn solvers() -> [(&'static str, Solver); 2] {
    [
        ("exact", Solver::exact()),
        ("iterative", Solver::iterative()),
    ]
}

fn world_with(solver: Solver) -> World {
    let mut world = World::new();
    world.set_solver(solver).unwrap();
    world
}

/// The mean period of a signal from its upward zero crossings (linearly interpolated).
fn period(samples: &[(f64, f64)]) -> f64 {
    let mut crossings = Vec::new();
    for pair in samples.windows(2) {
        let ((t0, y0), (t1, y1)) = (pair[0], pair[1]);
        if y0 < 0.0 && y1 >= 0.0 {
            crossings.push(t0 + (t1 - t0) * (-y0) / (y1 - y0));
        }
    }
    assert!(crossings.len() >= 3, "too few periods");
    (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64
}

#[test]
fn simple_pendulum_period_matches_two_pi_root_l_over_g() {
    let (length, radius, mass, amplitude) = (1.0, 0.02, 1.0, 0.05f64);
    // Small sphere: I_pivot = m L^2 + 2/5 m r^2.
    let expected = 2.0 * PI * ((length * length + 0.4 * radius * radius) / (G * length)).sqrt();
    for (name, solver) in solvers() {
        let mut world = world_with(solver);
        let bob = world.add_body(
            RigidBodyBuilder::dynamic()
                .mass_properties(MassProperties::sphere_with_mass(radius, mass).unwrap())
                .position(Vec3::new(
                    length * amplitude.sin(),
                    0.0,
                    -length * amplitude.cos(),
                ))
                .build()
                .unwrap(),
        );
        world.add_ball_joint(bob, None, Vec3::ZERO).unwrap();
        let mut samples = Vec::new();
        for _ in 0..(12.0 / H) as usize {
            world.step(H).unwrap();
            samples.push((world.time(), world.body(bob).unwrap().position().x));
        }
        let error = period(&samples) / expected - 1.0;
        eprintln!("simple pendulum, {name}: period error {:.3e}", error);
        assert!(error.abs() < 5e-3, "{name}: period error {error:e}");
    }
}

fn hinge_angle(world: &World, joint: JointHandle) -> f64 {
    let j = world.joint(joint).unwrap();
    let pose_a = world.pose(Some(j.body_a())).unwrap();
    let pose_b = world.pose(j.body_b()).unwrap();
    match j.kind() {
        JointKind::Hinge(hinge) => hinge.angle(&pose_a, &pose_b),
        other => panic!("not a hinge: {other:?}"),
    }
}

#[test]
fn compound_pendulum_period_matches_two_pi_root_i_over_mgd() {
    let (mass, amplitude) = (1.0, 0.05f64);
    let half = Vec3::new(0.5, 0.05, 0.05);
    let d = half.x;
    // I about the y axis through the end: m (l^2 + w^2) / 12 + m d^2.
    let inertia = mass * (1.0 + 0.01) / 12.0 + mass * d * d;
    let expected = 2.0 * PI * (inertia / (mass * G * d)).sqrt();
    for (name, solver) in solvers() {
        let mut world = world_with(solver);
        // The bar hangs along -z from a hinge at the origin about y, tilted by the amplitude.
        let tilt = Quat::from_rotation_y(amplitude);
        let bar = world.add_body(
            RigidBodyBuilder::dynamic()
                .mass_properties(MassProperties::cuboid_with_mass(half, mass).unwrap())
                .orientation(tilt * Quat::from_rotation_y(PI / 2.0))
                .position(tilt * Vec3::new(0.0, 0.0, -d))
                .build()
                .unwrap(),
        );
        let hinge = world
            .add_hinge_joint(bar, None, Vec3::ZERO, Vec3::Y)
            .unwrap();
        let mut samples = Vec::new();
        for _ in 0..(12.0 / H) as usize {
            world.step(H).unwrap();
            // The hinge angle was zero at the release: swing about -amplitude.
            samples.push((world.time(), hinge_angle(&world, hinge) + amplitude));
        }
        let error = period(&samples) / expected - 1.0;
        let swing = samples.iter().fold(0.0f64, |m, s| m.max(s.1.abs()));
        eprintln!("compound pendulum, {name}: period error {error:.3e}, amplitude {swing:.4}");
        assert!(error.abs() < 5e-3, "{name}: period error {error:e}");
        assert!((swing - amplitude).abs() < 0.1 * amplitude);
    }
}

#[test]
fn joint_force_at_the_bottom_is_weight_plus_centripetal_force() {
    let (length, mass) = (1.0, 2.0);
    let start = PI / 3.0;
    let mut world = world_with(Solver::exact());
    let bob = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.01, mass).unwrap())
            .position(Vec3::new(length * start.sin(), 0.0, -length * start.cos()))
            .build()
            .unwrap(),
    );
    let joint = world.add_ball_joint(bob, None, Vec3::ZERO).unwrap();
    let mut checked = 0;
    let mut previous_x = world.body(bob).unwrap().position().x;
    for _ in 0..300 {
        world.step(H).unwrap();
        let body = world.body(bob).unwrap();
        let x = body.position().x;
        if previous_x.signum() != x.signum() {
            let v = body.linear_velocity().length();
            let expected = mass * G + mass * v * v / length;
            let feedback = world.joint(joint).unwrap().feedback();
            let force = feedback.force_a.length();
            eprintln!("bottom: joint force {force:.4} N, m g + m v^2 / L = {expected:.4} N");
            assert!((force / expected - 1.0).abs() < 0.01);
            // It pulls the bob up towards the pivot, and the world takes the reaction.
            assert!(feedback.force_a.z > 0.99 * force);
            assert!((feedback.force_a + feedback.force_b).length() < 1e-9 * force);
            if checked == 0 {
                // About 2 m g for a release from 60 degrees; less later, because the
                // velocity-level step dissipates (see `pendulum_energy_loss_is_first_order`).
                assert!((force / (2.0 * mass * G) - 1.0).abs() < 0.02);
            }
            checked += 1;
        }
        previous_x = x;
    }
    assert!(checked >= 3);
}

/// Energy lost by a pendulum released from 30 degrees over 2 s at step `h`.
fn pendulum_energy_loss(solver: Solver, h: f64, curvature: CurvatureCorrection) -> f64 {
    let (mass, length, start) = (1.0, 1.0, PI / 6.0);
    let mut world = world_with(solver);
    let mut settings = world.settings().clone();
    settings.curvature = curvature;
    world.set_settings(settings).unwrap();
    let bob = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.01, mass).unwrap())
            .position(Vec3::new(length * start.sin(), 0.0, -length * start.cos()))
            .build()
            .unwrap(),
    );
    world.add_ball_joint(bob, None, Vec3::ZERO).unwrap();
    let energy = |world: &World| {
        let b = world.body(bob).unwrap();
        b.linear_kinetic_energy() + b.rotational_kinetic_energy() + mass * G * b.position().z
    };
    let initial = energy(&world);
    let swing = mass * G * length * (1.0 - start.cos());
    for _ in 0..(2.0 / h).round() as usize {
        world.step(h).unwrap();
    }
    (initial - energy(&world)) / swing
}

#[test]
fn pendulum_energy_loss_is_first_order_in_the_step_without_the_curvature_term() {
    // Without the curvature term (ODE's step), the velocity-level step makes the velocity
    // tangent to the constraint at the start of the step; moving along that tangent and
    // projecting back leaves an inward velocity of about v h w, which the next step
    // removes: a relative energy loss of (h w)^2 per step, h w^2 per second. Halving h
    // halves it. With the term (the default) the loss is gone (tests/joints_energy.rs).
    // Exact stepper only: with 20 Gauss-Seidel sweeps the iterative stepper adds the loss
    // of its unconverged solve (the bob's tangential rows are 2.5e4 times stiffer than the
    // radial one, so the radial force converges slowly).
    let off = CurvatureCorrection::OFF;
    let coarse = pendulum_energy_loss(Solver::exact(), 1.0 / 60.0, off);
    let fine = pendulum_energy_loss(Solver::exact(), 1.0 / 120.0, off);
    eprintln!("energy lost over 2 s: {coarse:.4} at 1/60, {fine:.4} at 1/120");
    assert!(coarse > 0.0 && fine > 0.0, "the step never gains energy");
    assert!((coarse / fine - 2.0).abs() < 0.2, "{coarse} / {fine}");
    // The size matches the mechanism: a kinetic energy fraction (h w)^2 lost per step is
    // dE/dt = -h m L^2 w^4 / 2; with w = w_max cos(W t), <w^4> = 3 w_max^4 / 8 and
    // w_max^2 = 2 g (1 - cos 30 deg) / L, over 2 s that is 3.3% of the swing energy.
    let w_max_sq = 2.0 * G * (1.0 - (PI / 6.0).cos());
    let swing = G * (1.0 - (PI / 6.0).cos());
    let predicted = (1.0 / 60.0) * 0.5 * 3.0 / 8.0 * w_max_sq * w_max_sq * 2.0 / swing;
    assert!(
        (coarse / predicted - 1.0).abs() < 0.3,
        "{coarse} vs {predicted}"
    );
    // With the term the drift is gone; what is left is symplectic Euler's bounded energy
    // oscillation, of relative size up to about h w_max / 2 = 2.6 % at h = 1/60 (0.5 % at
    // this instant, and of either sign), where the loss without the term only grows.
    let kept = pendulum_energy_loss(Solver::exact(), 1.0 / 60.0, CurvatureCorrection::default());
    eprintln!("with the curvature term: {kept:.2e}");
    assert!(kept.abs() < 0.25 * coarse, "{kept} vs {coarse}");
}

fn double_pendulum(world: &mut World) -> (BodyHandle, BodyHandle, JointHandle, JointHandle) {
    common::spatial_double_pendulum(world)
}

#[test]
fn exact_and_iterative_steppers_agree_on_a_double_pendulum() {
    // Six rows, A well conditioned (both links comparable): Gauss-Seidel contracts by a
    // fixed factor per sweep, so 400 sweeps reach round-off and the two steppers must give
    // the same forces and motion to ~1e-9 relative, far below any physical effect. (The
    // default 20 sweeps are compared too, loosely: they differ by the unconverged part.)
    let converged = Solver::Iterative(IterativeSettings {
        iterations: 400,
        ..Default::default()
    });
    let mut worlds: Vec<World> = [Solver::exact(), converged, Solver::iterative()]
        .into_iter()
        .map(world_with)
        .collect();
    let handles: Vec<_> = worlds.iter_mut().map(double_pendulum).collect();
    for step in 0..30 {
        for world in &mut worlds {
            world.step(H).unwrap();
        }
        let forces: Vec<Vec3> = worlds
            .iter()
            .zip(&handles)
            .map(|(w, h)| w.joint(h.3).unwrap().feedback().force_a)
            .collect();
        let scale = forces[0].length();
        assert!(
            (forces[1] - forces[0]).length() < 1e-8 * scale,
            "step {step}: {forces:?}"
        );
        if step == 0 {
            // From the same state, 20 sweeps already land within a few percent.
            assert!(
                (forces[2] - forces[0]).length() < 0.05 * scale,
                "{forces:?}"
            );
        }
    }
    for body in [0, 1] {
        let get = |k: usize| {
            let h = if body == 0 {
                handles[k].0
            } else {
                handles[k].1
            };
            worlds[k].body(h).unwrap().clone()
        };
        let (exact, iterative) = (get(0), get(1));
        assert!((exact.position() - iterative.position()).length() < 1e-9);
        assert!((exact.linear_velocity() - iterative.linear_velocity()).length() < 1e-8);
        assert!((exact.angular_velocity() - iterative.angular_velocity()).length() < 1e-8);
    }
}

#[test]
fn feedback_obeys_newtons_third_law_and_holds_a_resting_chain() {
    for (name, solver) in solvers() {
        let mut world = world_with(solver);
        let mass = MassProperties::sphere_with_mass(0.05, 3.0).unwrap();
        let upper = world.add_body(
            RigidBodyBuilder::dynamic()
                .mass_properties(mass)
                .position(Vec3::new(0.0, 0.0, -1.0))
                .build()
                .unwrap(),
        );
        let lower = world.add_body(
            RigidBodyBuilder::dynamic()
                .mass_properties(mass)
                .position(Vec3::new(0.0, 0.0, -2.0))
                .build()
                .unwrap(),
        );
        let top = world.add_ball_joint(upper, None, Vec3::ZERO).unwrap();
        let middle = world
            .add_ball_joint(lower, Some(upper), Vec3::new(0.0, 0.0, -1.0))
            .unwrap();
        for _ in 0..120 {
            world.step(H).unwrap();
        }
        let top = world.joint(top).unwrap().feedback();
        let middle = world.joint(middle).unwrap().feedback();
        // At rest the top joint carries both weights, the middle one the lower weight.
        let weight = 3.0 * G;
        eprintln!("{name}: top {:?}, middle {:?}", top.force_a, middle.force_a);
        assert!((top.force_a - Vec3::new(0.0, 0.0, 2.0 * weight)).length() < 1e-6 * weight);
        assert!((middle.force_a - Vec3::new(0.0, 0.0, weight)).length() < 1e-6 * weight);
        assert!((middle.force_a + middle.force_b).length() < 1e-12 * weight);
        // CFM lets each row yield at `cfm * lambda` (here 1e-5 * 59 N = 6e-4 m/s) and
        // post-stabilisation puts the position back, so a resting chain keeps a small
        // creep velocity of that size; it never accumulates into motion.
        let creep = world.body(lower).unwrap().linear_velocity().length();
        assert!(creep < 1e-5 * 3.0 * weight, "{name}: creep {creep}");
    }
}

#[test]
fn hinge_keeps_its_axis_under_an_off_axis_spin() {
    for (name, solver) in solvers() {
        let mut world = world_with(solver);
        world.set_gravity(Vec3::ZERO).unwrap();
        let wheel = world.add_body(
            RigidBodyBuilder::dynamic()
                .mass_properties(MassProperties::cylinder_with_mass(0.05, 0.3, 2.0).unwrap())
                .position(Vec3::new(0.0, 0.0, 1.0))
                // Spin about the axle plus a wobble the hinge must remove.
                .angular_velocity(Vec3::new(1.0, -0.5, 10.0))
                .build()
                .unwrap(),
        );
        let axis = Vec3::Z;
        let hinge = world
            .add_hinge_joint(wheel, None, Vec3::new(0.0, 0.0, 1.0), axis)
            .unwrap();
        let mut worst: f64 = 0.0;
        for k in 0..240 {
            // A torque about an off-axis direction every step.
            world
                .body_mut(wheel)
                .unwrap()
                .add_torque(Vec3::new(0.5, 0.3, if k < 60 { 0.2 } else { 0.0 }))
                .unwrap();
            world.step(H).unwrap();
            let body = world.body(wheel).unwrap();
            let joint = world.joint(hinge).unwrap();
            let JointKind::Hinge(h) = joint.kind() else {
                unreachable!()
            };
            let body_axis = body.orientation() * h.local_axis_a;
            worst = worst.max(body_axis.cross(axis).length());
            worst = worst.max((body.position() - Vec3::new(0.0, 0.0, 1.0)).length());
            // Off-axis angular velocity is removed by the solve, down to the CFM yield
            // (cfm * lambda, about 1e-4 rad/s here).
            let w = body.angular_velocity();
            assert!((w - axis * w.dot(axis)).length() < 1e-3, "{name}: {w:?}");
        }
        eprintln!("hinge, {name}: worst misalignment {worst:.2e}");
        // Post-stabilisation leaves each row below 1e-6 (rad or m).
        assert!(worst < 2e-6);
        // And the free rotation carries on: the hinge angle changed.
        assert!(hinge_angle(&world, hinge).abs() > 0.1);
    }
}

#[test]
fn spring_softness_sags_by_weight_over_stiffness() {
    // A ball joint softened into a spring (k, c) by ERP/CFM, without post-stabilisation,
    // settles where the spring carries the weight: sag = m g / k.
    let (mass, stiffness, damping) = (2.0, 400.0, 40.0);
    for (name, solver) in solvers() {
        let mut world = world_with(solver);
        let bob = world.add_body(
            RigidBodyBuilder::dynamic()
                .mass_properties(MassProperties::sphere_with_mass(0.05, mass).unwrap())
                .position(Vec3::new(0.0, 0.0, -1.0))
                .build()
                .unwrap(),
        );
        let pose = world.pose(Some(bob)).unwrap();
        let joint = BallJoint::at_world_point(Vec3::ZERO, &pose, &Pose::IDENTITY).unwrap();
        let spring = Softness::from_spring(stiffness, damping, H).unwrap();
        world
            .add_joint(
                JointBuilder::new(bob, None, joint)
                    .softness(spring)
                    .post_stabilize(false),
            )
            .unwrap();
        for _ in 0..600 {
            world.step(H).unwrap();
        }
        let sag = -1.0 - world.body(bob).unwrap().position().z;
        let expected = mass * G / stiffness;
        eprintln!("spring, {name}: sag {sag:.6} m, m g / k = {expected:.6} m");
        assert!((sag / expected - 1.0).abs() < 1e-3, "{name}: {sag}");
    }
    // With the world's stiff defaults and post-stabilisation the same bob does not sag.
    let mut world = World::new();
    let bob = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.05, mass).unwrap())
            .position(Vec3::new(0.0, 0.0, -1.0))
            .build()
            .unwrap(),
    );
    world.add_ball_joint(bob, None, Vec3::ZERO).unwrap();
    for _ in 0..600 {
        world.step(H).unwrap();
    }
    let sag = -1.0 - world.body(bob).unwrap().position().z;
    assert!(sag.abs() < 1e-6, "{sag}");
    let _ = PostStabilization::OFF;
}
