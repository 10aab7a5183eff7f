//! Distance joints (rod, rope, range) and breaking thresholds, with both steppers.
//!
//! - A bob on a rigid distance joint swings with its distance held, and at the bottom of a
//!   60 degree swing the rod's tension is `m g + m v^2 / L = 2 m g`.
//! - On a rope the bob falls freely (the discrete free-fall formula, no rope force) until
//!   the rope is taut; then the rope never stretches and never pushes. A range keeps the
//!   distance between its stops from either side.
//! - A joint whose force (or torque about its anchor) exceeds its threshold breaks after
//!   that step: it is reported, disabled, and the bodies part and move freely.

use stiction::math::Vec3;
use stiction::{
    BodyHandle, DistanceJoint, FixedJoint, JointBuilder, JointKind, MassProperties, Pose,
    RigidBodyBuilder, Solver, World,
};

const H: f64 = 1.0 / 60.0;
const G: f64 = 9.81;

fn solvers() -> [(&'static str, Solver); 2] {
    [
        ("exact", Solver::exact()),
        ("iterative", Solver::iterative()),
    ]
}

fn bob(world: &mut World, position: Vec3, velocity: Vec3) -> BodyHandle {
    world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.05, 2.0).unwrap())
            .position(position)
            .linear_velocity(velocity)
            .build()
            .unwrap(),
    )
}

fn distance(world: &World, joint: stiction::JointHandle) -> f64 {
    world.joint_axis_state(joint, 0).unwrap().position
}

#[test]
fn a_rod_keeps_its_distance_and_carries_twice_the_weight_at_the_bottom_of_a_60_degree_swing() {
    let start = 60f64.to_radians();
    for (name, solver) in solvers() {
        let mut world = World::new();
        world.set_solver(solver).unwrap();
        let body = bob(
            &mut world,
            Vec3::new(start.sin(), 0.0, -start.cos()),
            Vec3::ZERO,
        );
        let position = world.body(body).unwrap().position();
        let rod = world
            .add_distance_joint(body, None, position, Vec3::ZERO)
            .unwrap();
        let (mut worst, mut checked): (f64, usize) = (0.0, 0);
        let mut previous_x = position.x;
        for _ in 0..240 {
            world.step(H).unwrap();
            worst = worst.max((distance(&world, rod) - 1.0).abs());
            let x = world.body(body).unwrap().position().x;
            if checked == 0 && previous_x > 0.0 && x <= 0.0 {
                // Energy is kept (curvature term): v^2 = 2 g L (1 - cos 60) = g L.
                let force = world.joint(rod).unwrap().feedback().force_a;
                eprintln!(
                    "{name}: tension at the bottom {:.4} N, 2 m g = {:.4} N",
                    force.length(),
                    4.0 * G
                );
                assert!(
                    (force.length() / (4.0 * G) - 1.0).abs() < 0.01,
                    "{name}: {force:?}"
                );
                assert!(
                    force.z > 0.99 * force.length(),
                    "{name}: it pulls the bob up"
                );
                checked += 1;
            }
            previous_x = x;
        }
        eprintln!("{name}: distance held to {worst:.2e} m");
        assert!(checked == 1 && worst < 2e-6, "{name}: {worst}");
    }
}

#[test]
fn a_rope_is_slack_until_taut_then_never_stretches_or_pushes() {
    for (name, solver) in solvers() {
        let mut world = World::new();
        world.set_solver(solver).unwrap();
        // 0.6 m from the pivot, on a 1 m rope: taut after falling 0.8 m.
        let start = Vec3::new(0.6, 0.0, 0.0);
        let body = bob(&mut world, start, Vec3::ZERO);
        let pose = world.pose(Some(body)).unwrap();
        let rope = DistanceJoint::between_world_points(start, Vec3::ZERO, &pose, &Pose::IDENTITY)
            .unwrap()
            .rope(1.0)
            .unwrap();
        let rope = world
            .add_joint(JointBuilder::new(body, None, rope))
            .unwrap();
        let (mut taut_at, mut longest) = (None, 0.0f64);
        for n in 1..=180 {
            world.step(H).unwrap();
            let pull = world.joint(rope).unwrap().feedback().limit[0];
            let z = world.body(body).unwrap().position().z;
            if taut_at.is_none() {
                if pull == 0.0 {
                    // Slack: exact discrete free fall, z_n = -g h^2 n (n + 1) / 2.
                    let free = -G * H * H * (n * (n + 1)) as f64 / 2.0;
                    assert!((z - free).abs() < 1e-12, "{name}: step {n}: {z} vs {free}");
                } else {
                    taut_at = Some(n as f64 * H);
                }
            }
            // The upper stop's force is the mirrored one: it only pulls (<= 0).
            assert!(pull <= 0.0, "{name}: the rope pushed with {pull} N");
            longest = longest.max(distance(&world, rope));
        }
        // Free fall from rest covers 0.8 m in sqrt(2 * 0.8 / g) = 0.404 s.
        let taut_at = taut_at.expect("the rope never went taut");
        eprintln!("{name}: taut at {taut_at:.3} s (free fall 0.404 s), longest {longest:.8} m");
        assert!(
            (taut_at - (1.6f64 / G).sqrt()).abs() < 2.0 * H,
            "{name}: {taut_at}"
        );
        assert!(longest < 1.0 + 2e-6, "{name}: {longest}");
    }
}

#[test]
fn a_range_keeps_the_distance_between_its_stops() {
    for (name, solver) in solvers() {
        let mut world = World::new();
        world.set_solver(solver).unwrap();
        world.set_gravity(Vec3::ZERO).unwrap();
        // 0.8 m out, thrown at the pivot at 2 m/s; the stops are 0.5 m and 1 m.
        let start = Vec3::new(0.8, 0.0, 0.0);
        let body = bob(&mut world, start, Vec3::new(-2.0, 0.3, 0.0));
        let pose = world.pose(Some(body)).unwrap();
        let joint = DistanceJoint::between_world_points(start, Vec3::ZERO, &pose, &Pose::IDENTITY)
            .unwrap()
            .with_range(0.5, 1.0)
            .unwrap();
        let joint = world
            .add_joint(JointBuilder::new(body, None, joint))
            .unwrap();
        let (mut shortest, mut longest) = (f64::MAX, 0.0f64);
        let mut pushed = false;
        for _ in 0..120 {
            world.step(H).unwrap();
            let d = distance(&world, joint);
            shortest = shortest.min(d);
            longest = longest.max(d);
            let force = world.joint(joint).unwrap().feedback().limit[0];
            pushed |= force > 0.0;
            // Nearer the lower stop it can only push, nearer the upper only pull.
            if d < 0.75 {
                assert!(force >= 0.0, "{name}: {force}");
            } else {
                assert!(force <= 0.0, "{name}: {force}");
            }
        }
        eprintln!("{name}: distance stayed in [{shortest:.8}, {longest:.8}] m");
        assert!(pushed, "{name}: the bob never reached the inner stop");
        assert!(shortest > 0.5 - 2e-6 && longest < 1.0 + 2e-6, "{name}");
    }
}

#[test]
fn a_joint_loaded_past_its_breaking_force_breaks_and_the_bodies_part() {
    let (mass, threshold) = (2.0, 30.0);
    for (name, solver) in solvers() {
        let mut world = World::new();
        world.set_solver(solver).unwrap();
        // Two bobs: the upper hangs from the world, the lower from the upper by a joint that
        // breaks at 30 N; the lower is pulled down by a force growing 20 N/s.
        let upper = bob(&mut world, Vec3::new(0.0, 0.0, -1.0), Vec3::ZERO);
        let lower = bob(&mut world, Vec3::new(0.0, 0.0, -2.0), Vec3::ZERO);
        world.add_ball_joint(upper, None, Vec3::ZERO).unwrap();
        let pose = world.pose(Some(lower)).unwrap();
        let upper_pose = world.pose(Some(upper)).unwrap();
        let link =
            stiction::BallJoint::at_world_point(Vec3::new(0.0, 0.0, -1.5), &pose, &upper_pose)
                .unwrap();
        let link = world
            .add_joint(JointBuilder::new(lower, Some(upper), link).break_force(threshold))
            .unwrap();
        let mut broke_at = None;
        for n in 1..=120 {
            let pull = 20.0 * n as f64 * H;
            world
                .body_mut(lower)
                .unwrap()
                .add_force(Vec3::new(0.0, 0.0, -pull))
                .unwrap();
            let stats = world.step(H).unwrap();
            let broken = stats.broken_joints.clone();
            let joint = world.joint(link).unwrap();
            if broke_at.is_none() {
                // Static until it breaks: the link carries the weight plus the pull (less
                // what CFM lets the rows' stiff springs take up while the load ramps, < 1 %).
                let force = joint.feedback().force_a.length();
                assert!(
                    (force - (mass * G + pull)).abs() < 1e-2 * force,
                    "{name}: {force}"
                );
                if force > threshold {
                    assert_eq!(broken, vec![link], "{name}");
                    assert!(joint.is_broken() && !joint.enabled(), "{name}");
                    broke_at = Some(pull);
                } else {
                    assert!(broken.is_empty() && !joint.is_broken(), "{name}");
                }
            } else {
                assert!(broken.is_empty(), "{name}: a broken joint breaks once");
            }
        }
        // It broke once the pull passed 30 - m g = 10.38 N (steps of 1/3 N, plus the lag).
        let broke_at = broke_at.expect("never broke");
        assert!(
            broke_at > threshold - mass * G && broke_at < threshold - mass * G + 0.5,
            "{name}: {broke_at}"
        );
        // The lower bob fell away and the upper one still hangs from the world.
        let (u, l) = (world.body(upper).unwrap(), world.body(lower).unwrap());
        eprintln!(
            "{name}: broke at a pull of {broke_at:.2} N; the bobs are now {:.2} m apart",
            (u.position() - l.position()).length()
        );
        assert!((u.position() - l.position()).length() > 3.0, "{name}");
        assert!(
            (u.position() - Vec3::new(0.0, 0.0, -1.0)).length() < 1e-3,
            "{name}"
        );
    }
}

#[test]
fn a_cantilever_breaks_when_the_torque_at_its_wall_exceeds_the_threshold() {
    // A 1 m, 1 kg beam welded to the wall at x = 0: the weld carries m g and the torque
    // m g d = 4.9 N m at the wall; a tip load growing 2 N/s breaks it past 10 N m, i.e. at
    // a tip load of (10 - 4.9) / 1 m = 5.1 N.
    let threshold = 10.0;
    for (name, solver) in solvers() {
        let mut world = World::new();
        world.set_solver(solver).unwrap();
        let beam = world.add_body(
            RigidBodyBuilder::dynamic()
                .mass_properties(
                    MassProperties::cuboid_with_mass(Vec3::new(0.5, 0.05, 0.05), 1.0).unwrap(),
                )
                .position(Vec3::new(0.5, 0.0, 1.0))
                .build()
                .unwrap(),
        );
        let pose = world.pose(Some(beam)).unwrap();
        let weld =
            FixedJoint::at_world_point(Vec3::new(0.0, 0.0, 1.0), &pose, &Pose::IDENTITY).unwrap();
        let weld = world
            .add_joint(JointBuilder::new(beam, None, weld).break_torque(threshold))
            .unwrap();
        let mut broke_at = None;
        for n in 1..=240 {
            let load = 2.0 * n as f64 * H;
            let b = world.body_mut(beam).unwrap();
            let tip = b.position() + b.orientation() * Vec3::new(0.5, 0.0, 0.0);
            b.add_force_at_point(Vec3::new(0.0, 0.0, -load), tip)
                .unwrap();
            world.step(H).unwrap();
            let joint = world.joint(weld).unwrap();
            if joint.is_broken() {
                let torque = joint.feedback().anchor_torque_a;
                assert!(torque.length() > threshold, "{name}");
                // Static until then: the wall's torque is m g d + load * L (to the CFM lag).
                assert!(
                    (torque.y + (G * 0.5 + load)).abs() < 1e-2 * torque.length(),
                    "{name}: {torque:?}"
                );
                broke_at = Some(load);
                break;
            }
        }
        let broke_at = broke_at.expect("never broke");
        eprintln!("{name}: broke at a tip load of {broke_at:.3} N");
        assert!(
            broke_at > threshold - 0.5 * G && broke_at < threshold - 0.5 * G + 0.1,
            "{name}: {broke_at}"
        );
        // Free now: it falls.
        for _ in 0..30 {
            world.step(H).unwrap();
        }
        assert!(world.body(beam).unwrap().position().z < 0.0, "{name}");
        assert!(matches!(
            world.joint(weld).unwrap().kind(),
            JointKind::Fixed(_)
        ));
    }
}
