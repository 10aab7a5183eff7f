//! URDF import: the file's masses, inertias, frames and axes reach the engine, the
//! pendulum swings conserving energy, and the held arm's joints carry its gravity torques.

mod common;

use common::{arm_gravity_torques, energy, fixture};
use stiction::math::{Mat3, Quat, Vec3};
use stiction::{BodyKind, JointKind, Pose, Softness, World, WorldSettings};
use stiction_models::{add_to_world, load, JointType, LoadOptions, WarningKind};

fn options(joints: &[(&str, f64)]) -> LoadOptions {
    let mut options = LoadOptions::default();
    for (name, q) in joints {
        options.joint_positions.insert(name.to_string(), *q);
    }
    options
}

#[test]
fn pendulum_links_and_joints_are_the_files() {
    let (q1, q2) = (0.7, -0.4);
    let (world, model) = load(
        fixture("double_pendulum.urdf"),
        &options(&[("shoulder", q1), ("elbow", q2)]),
    )
    .unwrap();
    assert_eq!(model.name, "double_pendulum");
    assert_eq!(
        world.body(model.links["base"]).unwrap().kind(),
        BodyKind::Static
    );

    // Upper link: the tensor of the file, turned by the inertial frame's yaw into link axes.
    let upper = world.body(model.links["upper"]).unwrap();
    assert_eq!(upper.mass(), 1.5);
    let file = Mat3::from_cols(
        Vec3::new(0.126, 0.001, 0.0),
        Vec3::new(0.001, 0.126, 0.0),
        Vec3::new(0.0, 0.0, 0.004),
    );
    let yaw = Mat3::from_quat(Quat::from_rotation_z(0.3));
    assert!(upper
        .inertia_body()
        .abs_diff_eq(yaw * file * yaw.transpose(), 1e-12));
    // Its body sits at the centre of mass, 0.5 m down the link from the shoulder at z = 2,
    // with the link's axes turned by the shoulder angle about y.
    let upper_link = Pose {
        position: Vec3::new(0.0, 0.0, 2.0),
        orientation: Quat::from_rotation_y(q1),
    };
    let com = upper_link.transform_point(Vec3::new(0.0, 0.0, -0.5));
    assert!((upper.position() - com).length() < 1e-12);
    assert!(upper
        .orientation()
        .abs_diff_eq(upper_link.orientation, 1e-12));

    let lower = world.body(model.links["lower"]).unwrap();
    assert_eq!(lower.mass(), 1.0);
    assert!(lower
        .inertia_body()
        .abs_diff_eq(Mat3::from_diagonal(Vec3::new(0.06, 0.06, 0.002)), 1e-12));
    let elbow = upper_link.transform_point(Vec3::new(0.0, 0.0, -1.0));
    let lower_com = elbow + Quat::from_rotation_y(q1 + q2) * Vec3::new(0.0, 0.0, -0.4);
    assert!((lower.position() - lower_com).length() < 1e-12);

    // Both hinges turn about the file's y axis, and read the file's joint values.
    for (name, q) in [("shoulder", q1), ("elbow", q2)] {
        let handle = model.joints[name];
        let joint = world.joint(handle).unwrap();
        let JointKind::Hinge(hinge) = joint.kind() else {
            panic!("{name} is not a hinge")
        };
        let a = world.body(joint.body_a()).unwrap();
        assert!((a.orientation() * hinge.local_axis_a - Vec3::Y).length() < 1e-12);
        assert!(
            hinge.control.limit.is_none(),
            "continuous joints have no range"
        );
        let angle = world.joint_axis_state(handle, 0).unwrap().position;
        assert!((angle - q).abs() < 1e-12, "{name}: {angle} != {q}");
        assert_eq!(model.joint_info[name].kind, JointType::Hinge);
    }
    // One summary for the material and the two visuals.
    assert_eq!(model.warnings.len(), 1, "{:?}", model.warnings);
    assert_eq!(model.warnings[0].kind, WarningKind::Visual);
    assert_eq!(model.warnings[0].at.line, 6);
}

#[test]
fn pendulum_swings_conserving_energy() {
    let (mut world, model) = load(
        fixture("double_pendulum.urdf"),
        &options(&[("shoulder", 1.2), ("elbow", 0.5)]),
    )
    .unwrap();
    let bodies = [model.links["upper"], model.links["lower"]];
    let (rest_world, _) = load(fixture("double_pendulum.urdf"), &LoadOptions::default()).unwrap();
    // The energy the swing has to spend: its height above hanging still.
    let swing = energy(&world, &bodies) - energy(&rest_world, &bodies);
    assert!(swing > 10.0);
    let e0 = energy(&world, &bodies);
    let h = 1e-3;
    let mut worst: f64 = 0.0;
    let mut lowest_shoulder = f64::INFINITY;
    for _ in 0..2000 {
        world.step(h).unwrap();
        worst = worst.max((energy(&world, &bodies) - e0).abs());
        let q = world
            .joint_axis_state(model.joints["shoulder"], 0)
            .unwrap()
            .position;
        lowest_shoulder = lowest_shoulder.min(q);
    }
    // It swings through the bottom and beyond...
    assert!(
        lowest_shoulder < -0.3,
        "shoulder reached only {lowest_shoulder}"
    );
    // ...and keeps its energy to 0.5 % of the swing's.
    eprintln!("URDF pendulum: energy drift {:.3e} of {swing:.3} J", worst);
    assert!(
        worst / swing < 5e-3,
        "energy drift {:.3e} of {swing:.3} J",
        worst
    );
    assert!(world.max_joint_anchor_separation() < 1e-6);
}

/// A world whose rows are stiff enough that joint feedback is the statics' answer to 1e-9.
fn stiff_world() -> World {
    World::with_settings(WorldSettings {
        softness: Softness::new(0.2, 1e-12).unwrap(),
        ..WorldSettings::default()
    })
    .unwrap()
}

#[test]
fn held_arm_gives_the_analytic_gravity_torques() {
    let mut worst: f64 = 0.0;
    for (q1, q2) in [
        (0.0, 0.0),
        (0.4, -0.9),
        (-0.7, 1.3),
        (1.1, 0.2),
        (-1.5, -0.6),
    ] {
        let mut world = stiff_world();
        let mut options = options(&[("shoulder", q1), ("elbow", q2)]);
        options.hold_joints = true;
        let model = add_to_world(&mut world, fixture("arm.urdf"), &options).unwrap();
        let g = -world.settings().gravity.z;
        world.step(1e-3).unwrap();
        let expected = arm_gravity_torques(g, q1, q2);
        for (name, tau) in ["shoulder", "elbow"].into_iter().zip(expected) {
            let got = world.joint(model.joints[name]).unwrap().feedback().motor[0];
            worst = worst.max((got - tau).abs() / tau.abs());
            assert!(
                (got - tau).abs() <= 1e-6 * tau.abs(),
                "q = ({q1}, {q2}) {name}: {got} N m, expected {tau} N m"
            );
        }
    }
    eprintln!("URDF arm: worst relative gravity-torque error {worst:.1e}");
}

#[test]
fn arm_limits_efforts_meshes_and_merged_links() {
    let mut options = LoadOptions {
        hold_joints: true,
        ..LoadOptions::default()
    };
    options.base_pose = Pose {
        position: Vec3::new(1.0, 2.0, 0.0),
        orientation: Quat::IDENTITY,
    };
    let (world, model) = load(fixture("arm.urdf"), &options).unwrap();
    // The mount and base are welded to the fixed world link: static, no joint needed.
    for link in ["world", "base"] {
        assert_eq!(
            world.body(model.links[link]).unwrap().kind(),
            BodyKind::Static
        );
    }
    assert!(model.joint_info["mount"].handle.is_none());
    // The massless tool rides on the lower link's body.
    assert_eq!(model.links["tool"], model.links["lower"]);
    // Limits and efforts of the file.
    for (name, lo, hi, effort) in [("shoulder", -2.0, 2.0, 200.0), ("elbow", -2.5, 2.5, 100.0)] {
        let JointKind::Hinge(hinge) = world.joint(model.joints[name]).unwrap().kind().clone()
        else {
            panic!("{name} is not a hinge")
        };
        let limit = hinge.control.limit.unwrap();
        assert_eq!((limit.lower, limit.upper), (lo, hi));
        assert_eq!(hinge.control.motor.unwrap().max_force, effort);
    }
    // The base pose moved everything: the shoulder sits at (1, 2, 0.8).
    let shoulder = world.joint(model.joints["shoulder"]).unwrap();
    let JointKind::Hinge(hinge) = shoulder.kind() else {
        unreachable!()
    };
    let anchor = world
        .pose(Some(shoulder.body_a()))
        .unwrap()
        .transform_point(hinge.local_anchor_a);
    assert!((anchor - Vec3::new(1.0, 2.0, 0.8)).length() < 1e-12);
    // Meshes: a triangle mesh on the static base, a convex hull on the moving lower link
    // (the cube scaled to 0.8 x 0.06 x 0.06 m, centred on the link's centre of mass).
    let shapes = |link: &str| {
        world
            .colliders()
            .filter(|(_, c)| c.body() == Some(model.links[link]))
            .map(|(_, c)| c.clone())
            .collect::<Vec<_>>()
    };
    let base = shapes("base");
    assert_eq!(base.len(), 1);
    assert!(base[0].shape().as_trimesh().is_some());
    let lower = shapes("lower");
    assert_eq!(
        lower.len(),
        2,
        "the lower link's hull and the tool's sphere"
    );
    let hull = lower
        .iter()
        .find(|c| c.shape().as_convex_polyhedron().is_some())
        .unwrap();
    let aabb = hull.shape().compute_local_aabb();
    let half = (aabb.maxs - aabb.mins) / 2.0;
    assert!((Vec3::new(half.x, half.y, half.z) - Vec3::new(0.4, 0.03, 0.03)).length() < 1e-6);
    let sphere = lower
        .iter()
        .find(|c| c.shape().as_ball().is_some())
        .unwrap();
    assert!((sphere.local_pose().position - Vec3::new(0.4, 0.0, 0.0)).length() < 1e-12);

    let kinds: Vec<_> = model.warnings.iter().map(|w| (w.kind, w.at.line)).collect();
    assert!(
        kinds.contains(&(WarningKind::IgnoredElement, 65)),
        "{kinds:?}"
    );
    assert!(
        !kinds.iter().any(|(_, line)| *line == 26),
        "damping is simulated: {kinds:?}"
    );
    let shoulder = world.joint(model.joints["shoulder"]).unwrap();
    assert_eq!(shoulder.axis_dynamics(0).unwrap().damping, 0.5);
    assert!(
        kinds.contains(&(WarningKind::NotSimulated, 25)),
        "velocity: {kinds:?}"
    );
}

#[test]
fn jointed_links_do_not_collide_unless_asked() {
    for filter in [true, false] {
        let options = LoadOptions {
            hold_joints: true,
            filter_adjacent_links: filter,
            ..LoadOptions::default()
        };
        let (mut world, model) = load(fixture("arm.urdf"), &options).unwrap();
        let (upper, lower) = (model.links["upper"], model.links["lower"]);
        assert!(model
            .excluded_pairs
            .iter()
            .any(|&(a, b)| (a, b) == (upper, lower) || (a, b) == (lower, upper)));
        world.step(1e-3).unwrap();
        // The upper box reaches 5 cm past the elbow, into the lower link's hull.
        let touching = world.contacts().iter().any(|c| {
            let bodies = c.geometry.bodies;
            bodies.contains(&Some(upper)) && bodies.contains(&Some(lower))
        });
        assert_eq!(touching, !filter);
    }
}
