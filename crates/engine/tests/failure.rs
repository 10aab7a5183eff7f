//! Failure containment: a step that cannot be completed returns a typed error and leaves
//! every body and joint bit-identical to before, whatever phase found the problem (the
//! all-or-nothing commit of ARCHITECTURE.md's step pipeline). Fallback from Dantzig to
//! Gauss-Seidel is explicit, counted and still produces a usable step.

use stiction::lcp::dantzig::DantzigOptions;
use stiction::math::Vec3;
use stiction::{
    BodyHandle, DistanceJoint, ExactSettings, GyroscopicMode, Joint, JointBuilder, MassProperties,
    RigidBody, RigidBodyBuilder, Solver, StepPhase, World, WorldError,
};

const H: f64 = 1.0 / 60.0;

/// A two-link pendulum plus a free body, stepped a little so joints have warm starts and
/// feedback to lose.
fn scene(solver: Solver) -> (World, [BodyHandle; 3]) {
    let mut world = World::new();
    world.set_solver(solver).unwrap();
    let mass = MassProperties::cuboid_with_mass(Vec3::new(0.25, 0.05, 0.05), 1.0).unwrap();
    let link = |x: f64| {
        RigidBodyBuilder::dynamic()
            .mass_properties(mass)
            .position(Vec3::new(x, 0.0, 0.0))
            .build()
            .unwrap()
    };
    let a = world.add_body(link(0.25));
    let b = world.add_body(link(0.75));
    let free = world.add_body(link(5.0));
    world.add_ball_joint(a, None, Vec3::ZERO).unwrap();
    world
        .add_hinge_joint(b, Some(a), Vec3::new(0.5, 0.0, 0.0), Vec3::Y)
        .unwrap();
    for _ in 0..10 {
        world.step(H).unwrap();
    }
    (world, [a, b, free])
}

/// Every body and joint, for bit-for-bit comparison.
fn snapshot(world: &World) -> (Vec<RigidBody>, Vec<Joint>, f64) {
    (
        world.bodies().map(|(_, b)| b.clone()).collect(),
        world.joints().map(|(_, j)| j.clone()).collect(),
        world.time(),
    )
}

fn solvers() -> [Solver; 2] {
    [Solver::exact(), Solver::iterative()]
}

#[test]
fn a_non_finite_force_is_refused_and_nothing_changes() {
    for solver in solvers() {
        let (mut world, [_, b, _]) = scene(solver);
        // Each call is finite; their sum overflows the accumulator to infinity.
        let body = world.body_mut(b).unwrap();
        body.add_force(Vec3::new(f64::MAX, 0.0, 0.0)).unwrap();
        body.add_force(Vec3::new(f64::MAX, 0.0, 0.0)).unwrap();
        assert!(!world.body(b).unwrap().force().is_finite());
        let before = snapshot(&world);
        let error = world.step(H).unwrap_err();
        assert_eq!(
            error,
            WorldError::NonFinite {
                phase: StepPhase::Forces,
                body: Some(b)
            }
        );
        assert_eq!(snapshot(&world), before);
        let stats = world.step_stats();
        assert!(!stats.committed);
        assert_eq!(stats.non_finite, 1);
        // Refused again while the force is there; fine once the user clears it.
        assert!(world.step(H).is_err());
        world.body_mut(b).unwrap().clear_accumulators();
        world.step(H).unwrap();
        assert!(world.step_stats().committed);
    }
}

#[test]
fn a_non_finite_torque_is_refused_in_the_gyroscopic_step() {
    let (mut world, [a, _, _]) = scene(Solver::exact());
    let body = world.body_mut(a).unwrap();
    body.add_torque(Vec3::new(0.0, f64::MAX, 0.0)).unwrap();
    body.add_torque(Vec3::new(0.0, f64::MAX, 0.0)).unwrap();
    let before = snapshot(&world);
    assert!(matches!(
        world.step(H),
        Err(WorldError::NonFinite {
            phase: StepPhase::Forces,
            ..
        })
    ));
    assert_eq!(snapshot(&world), before);
}

#[test]
fn bad_step_sizes_are_refused() {
    let (mut world, _) = scene(Solver::iterative());
    let before = snapshot(&world);
    for h in [0.0, -H, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert!(matches!(
            world.step(h),
            Err(WorldError::InvalidTimeStep { .. })
        ));
        assert_eq!(snapshot(&world), before);
    }
}

#[test]
fn a_failure_after_the_solve_also_leaves_the_world_untouched() {
    // A finite but absurd step, h = 1e160 s: forces, rows and the solve succeed
    // (velocities of ~1e161 m/s are finite), the positions (~1e321 m) overflow. Whatever phase reports it, the
    // solved forces and new velocities must not have been written anywhere.
    // (The implicit gyroscopic step would overflow first, in `I - h [L]x`: use `None`.)
    for solver in solvers() {
        let (mut world, handles) = scene(solver);
        for h in handles {
            let body = world.body_mut(h).unwrap();
            body.set_gyroscopic_mode(GyroscopicMode::None);
        }
        let before = snapshot(&world);
        let error = world.step(1e160).unwrap_err();
        assert!(
            matches!(
                error,
                WorldError::NonFinite {
                    phase: StepPhase::Integration,
                    body: Some(_)
                }
            ),
            "{error:?}"
        );
        assert_eq!(snapshot(&world), before);
    }
}

/// A bob swinging on a taut rope from the world: the rope's stop is a one-sided row, so
/// Dantzig must pivot (all-bilateral islands are factored without pivoting).
fn rope_scene(solver: Solver) -> (World, BodyHandle) {
    let mut world = World::new();
    world.set_solver(solver).unwrap();
    let bob = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.05, 1.0).unwrap())
            .position(Vec3::new(0.0, 0.0, -1.0))
            .linear_velocity(Vec3::new(1.5, 0.0, 0.0))
            .build()
            .unwrap(),
    );
    let rope = DistanceJoint::between_world_points(
        Vec3::new(0.0, 0.0, -1.0),
        Vec3::ZERO,
        &world.pose(Some(bob)).unwrap(),
        &world.pose(None).unwrap(),
    )
    .unwrap()
    .rope(1.0)
    .unwrap();
    world.add_joint(JointBuilder::new(bob, None, rope)).unwrap();
    (world, bob)
}

#[test]
fn when_dantzig_fails_gauss_seidel_finishes_the_island_and_is_counted() {
    // A pivot budget of zero makes every cold Dantzig solve that needs a pivot fail.
    let failing = Solver::Exact(ExactSettings {
        dantzig: DantzigOptions {
            max_pivots: Some(0),
            ..DantzigOptions::default()
        },
        ..ExactSettings::default()
    });
    let (mut failing_world, bob) = rope_scene(failing);
    let (mut reference, reference_bob) = rope_scene(Solver::exact());
    for _ in 0..30 {
        let stats = failing_world.step(H).unwrap();
        assert_eq!(stats.fallbacks, 1);
        let report = stats.island_reports[0];
        assert!(report.fell_back);
        assert!(report.residual < 1e-6, "{report:?}");
        reference.step(H).unwrap();
    }
    // The fallback's converged forces give the exact stepper's motion, and the rope holds.
    let (x, y) = (
        failing_world.body(bob).unwrap().position(),
        reference.body(reference_bob).unwrap().position(),
    );
    assert!((x - y).length() < 1e-6, "{x:?} vs {y:?}");
    assert!(
        (x.length() - 1.0).abs() < 1e-3,
        "rope length {}",
        x.length()
    );
}
