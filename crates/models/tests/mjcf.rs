//! MJCF import: masses from geom volumes and default classes, angle units, meshes, the
//! pendulum's energy, the held arm's gravity torques, a free body landing, a ball joint.

mod common;

use std::f64::consts::PI;

use common::{arm_gravity_torques, energy, fixture};
use stiction::math::{Mat3, Vec3};
use stiction::{BodyKind, JointKind, Softness, World, WorldSettings};
use stiction_models::{add_to_world, load, Format, LoadOptions, WarningKind};

fn capsule_volume(radius: f64, length: f64) -> f64 {
    PI * radius * radius * length + 4.0 / 3.0 * PI * radius.powi(3)
}

#[test]
fn pendulum_masses_come_from_geoms_and_classes() {
    let (world, model) = load(fixture("double_pendulum.xml"), &LoadOptions::default()).unwrap();
    assert_eq!(model.format, Format::Mjcf);
    let upper = world.body(model.links["upper"]).unwrap();
    let lower = world.body(model.links["lower"]).unwrap();
    // Density 1000 from the main class; 500 for the lower link's childclass.
    assert!((upper.mass() - 1000.0 * capsule_volume(0.03, 1.0)).abs() < 1e-9);
    assert!((lower.mass() - 500.0 * capsule_volume(0.03, 0.8)).abs() < 1e-9);
    // Centres of mass halfway down each capsule.
    assert!((upper.position() - Vec3::new(0.0, 0.0, 1.5)).length() < 1e-12);
    assert!((lower.position() - Vec3::new(0.0, 0.0, 0.6)).length() < 1e-12);
    // The class's hinge axis.
    for name in ["shoulder", "elbow"] {
        let joint = world.joint(model.joints[name]).unwrap();
        let JointKind::Hinge(hinge) = joint.kind() else {
            panic!()
        };
        assert!((hinge.local_axis_a - Vec3::Y).length() < 1e-12);
    }
    // The floor is world geometry.
    assert!(world
        .colliders()
        .any(|(_, c)| c.body().is_none() && c.shape().as_halfspace().is_some()));
    let kinds: Vec<_> = model.warnings.iter().map(|w| (w.kind, w.at.line)).collect();
    // <option timestep> is read, and reported for the caller to step at.
    assert_eq!(model.timestep, Some(0.001));
    assert!(!kinds.iter().any(|(_, line)| *line == 5), "{kinds:?}");
    assert!(
        kinds.contains(&(WarningKind::Visual, 14)),
        "light: {kinds:?}"
    );
}

#[test]
fn pendulum_swings_conserving_energy() {
    let mut options = LoadOptions::default();
    options.joint_positions.insert("shoulder".into(), 1.2);
    options.joint_positions.insert("elbow".into(), 0.5);
    let (mut world, model) = load(fixture("double_pendulum.xml"), &options).unwrap();
    let (rest, _) = load(fixture("double_pendulum.xml"), &LoadOptions::default()).unwrap();
    let bodies = [model.links["upper"], model.links["lower"]];
    let swing = energy(&world, &bodies) - energy(&rest, &bodies);
    let e0 = energy(&world, &bodies);
    let mut worst: f64 = 0.0;
    for _ in 0..2000 {
        world.step(1e-3).unwrap();
        worst = worst.max((energy(&world, &bodies) - e0).abs());
    }
    eprintln!("MJCF pendulum: energy drift {worst:.3e} of {swing:.3} J");
    assert!(
        worst / swing < 5e-3,
        "energy drift {worst:.3e} of {swing:.3} J"
    );
}

#[test]
fn held_arm_gives_the_analytic_gravity_torques() {
    let mut worst: f64 = 0.0;
    for (q1, q2) in [(0.0, 0.0), (0.4, -0.9), (-0.7, 1.3), (1.1, 0.2)] {
        let mut world = World::with_settings(WorldSettings {
            softness: Softness::new(0.2, 1e-12).unwrap(),
            ..WorldSettings::default()
        })
        .unwrap();
        let mut options = LoadOptions {
            hold_joints: true,
            ..LoadOptions::default()
        };
        options.joint_positions.insert("shoulder".into(), q1);
        options.joint_positions.insert("elbow".into(), q2);
        let model = add_to_world(&mut world, fixture("arm.xml"), &options).unwrap();
        let g = -world.settings().gravity.z;
        world.step(1e-3).unwrap();
        for (name, tau) in ["shoulder", "elbow"]
            .into_iter()
            .zip(arm_gravity_torques(g, q1, q2))
        {
            let got = world.joint(model.joints[name]).unwrap().feedback().motor[0];
            worst = worst.max((got - tau).abs() / tau.abs());
            assert!(
                (got - tau).abs() <= 1e-6 * tau.abs(),
                "q = ({q1}, {q2}) {name}: {got} N m, expected {tau} N m"
            );
        }
    }
    eprintln!("MJCF arm: worst relative gravity-torque error {worst:.1e}");
}

#[test]
fn arm_ranges_are_radians_and_the_welded_base_is_static() {
    let (world, model) = load(fixture("arm.xml"), &LoadOptions::default()).unwrap();
    let base = model.links["base"];
    assert_eq!(world.body(base).unwrap().kind(), BodyKind::Static);
    let mesh = world
        .colliders()
        .find(|(_, c)| c.body() == Some(base))
        .unwrap()
        .1;
    assert!(mesh.shape().as_trimesh().is_some());
    for (name, range) in [("shoulder", 2.0), ("elbow", 2.5)] {
        let JointKind::Hinge(hinge) = world.joint(model.joints[name]).unwrap().kind().clone()
        else {
            panic!()
        };
        let limit = hinge.control.limit.unwrap();
        assert_eq!((limit.lower, limit.upper), (-range, range));
    }
    let kinds: Vec<_> = model.warnings.iter().map(|w| (w.kind, w.at.line)).collect();
    for expected in [
        (WarningKind::IgnoredAttribute, 17), // condim
        (WarningKind::Visual, 13),           // rgba
    ] {
        assert!(kinds.contains(&expected), "{expected:?} not in {kinds:?}");
    }
    // Damping is simulated, and the motor actuator is listed for the controller to drive.
    let shoulder = world.joint(model.joints["shoulder"]).unwrap();
    assert_eq!(shoulder.axis_dynamics(0).unwrap().damping, 0.5);
    let motor = &model.actuators["motor_shoulder"];
    assert_eq!(
        (motor.joint.as_str(), motor.kind, motor.gear),
        ("shoulder", stiction_models::ActuatorKind::Motor, 1.0)
    );
}

#[test]
fn free_mesh_box_lands_and_ball_joint_holds() {
    let (mut world, model) = load(fixture("drop.xml"), &LoadOptions::default()).unwrap();
    let boxed = model.links["box"];
    // The convex hull of a 0.2 m cube at 1000 kg/m^3 (the mesh's f32 vertices are exact
    // to 1e-8 relative), with a cube's inertia m a^2 / 6 about every axis.
    let body = world.body(boxed).unwrap();
    assert!((body.mass() - 8.0).abs() < 1e-6, "mass {}", body.mass());
    let cube = Mat3::from_diagonal(Vec3::splat(8.0 * 0.04 / 6.0));
    assert!(
        body.inertia_body().abs_diff_eq(cube, 1e-8),
        "{:?}",
        body.inertia_body()
    );
    assert!(world.body(boxed).unwrap().is_dynamic());
    let swivel = world.joint(model.joints["swivel"]).unwrap();
    assert!(matches!(swivel.kind(), JointKind::Ball(_)));
    for _ in 0..1200 {
        world.step(1.0 / 600.0).unwrap();
    }
    let b = world.body(boxed).unwrap();
    assert!(
        (b.position().z - 0.1).abs() < 2e-3,
        "box rests at z = {}",
        b.position().z
    );
    assert!(b.linear_velocity().length() < 1e-2);
    let bob = world.body(model.links["bob"]).unwrap();
    assert!((bob.position() - Vec3::new(1.0, 0.0, 0.7)).length() < 1e-6);
}
