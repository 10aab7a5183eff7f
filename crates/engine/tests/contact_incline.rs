//! A block on an incline obeys Coulomb's law: it sticks when `tan(theta) < mu` and
//! otherwise slides with the constant acceleration `a = g (sin(theta) - mu cos(theta))`,
//! within 1 %, for every friction model the engine offers with the stepper that solves it:
//! box friction (exact and iterative), the polygonal cone with 4, 8 and 16 edges (exact,
//! Lemke) and the exact Coulomb cone (iterative, projected Gauss-Seidel).
//!
//! The incline is a static half-space through the origin with normal
//! `n = (sin(theta), 0, cos(theta))`; the block (1 x 1 x 0.2 m, 2 kg, too flat to tip)
//! rests on it, so "downhill" is `(cos(theta), 0, -sin(theta))`. Semi-implicit Euler moves
//! a body under constant force with exactly constant acceleration, so the measured
//! acceleration over a second of sliding matches the closed form to far better than 1 %
//! (the figures below are the measured relative errors).

use stiction::math::{Quat, Vec3};
use stiction::{
    ColliderBuilder, FrictionModel, MassProperties, RigidBodyBuilder, Solver, World, WorldSettings,
    STANDARD_GRAVITY,
};

const H: f64 = 1.0 / 60.0;
const MU: f64 = 0.5;

struct Incline {
    world: World,
    block: stiction::BodyHandle,
    downhill: Vec3,
}

fn incline(theta: f64, solver: Solver, model: FrictionModel) -> Incline {
    let mut settings = WorldSettings {
        solver,
        ..WorldSettings::default()
    };
    settings.contacts.friction_model = model;
    let mut world = World::with_settings(settings).unwrap();
    let normal = Vec3::new(theta.sin(), 0.0, theta.cos());
    world
        .add_collider(
            ColliderBuilder::halfspace(normal).unwrap().friction(MU),
            None,
        )
        .unwrap();
    let half = Vec3::new(0.5, 0.5, 0.1);
    let block = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::cuboid_with_mass(half, 2.0).unwrap())
            .position(normal * half.z)
            .orientation(Quat::from_rotation_y(theta))
            .build()
            .unwrap(),
    );
    world
        .add_collider(
            ColliderBuilder::cuboid(half).unwrap().friction(MU),
            Some(block),
        )
        .unwrap();
    Incline {
        world,
        block,
        downhill: Vec3::new(theta.cos(), 0.0, -theta.sin()),
    }
}

/// The block's speed down the slope after each step, for `steps` steps.
fn run(incline: &mut Incline, steps: usize) -> Vec<f64> {
    (0..steps)
        .map(|_| {
            let stats = incline.world.step(H).unwrap();
            assert_eq!(stats.non_finite, 0);
            let v = incline.world.body(incline.block).unwrap().linear_velocity();
            v.dot(incline.downhill)
        })
        .collect()
}

/// Slides from rest for 1.5 s and returns the measured acceleration over the last second
/// and the closed form.
fn sliding_acceleration(theta: f64, solver: Solver, model: FrictionModel) -> (f64, f64) {
    let mut incline = incline(theta, solver, model);
    let speeds = run(&mut incline, 90);
    let measured = (speeds[89] - speeds[29]) / (60.0 * H);
    let g = STANDARD_GRAVITY.length();
    (measured, g * (theta.sin() - MU * theta.cos()))
}

/// Largest distance the block moved from its start over 2 s.
fn sticking_drift(theta: f64, solver: Solver, model: FrictionModel) -> f64 {
    let mut incline = incline(theta, solver, model);
    let start = incline.world.body(incline.block).unwrap().position();
    let mut drift = 0.0f64;
    for _ in 0..120 {
        incline.world.step(H).unwrap();
        let p = incline.world.body(incline.block).unwrap().position();
        drift = drift.max((p - start).length());
    }
    drift
}

fn check_law(solver: impl Fn() -> Solver, model: FrictionModel, name: &str) {
    // tan(20 deg) = 0.36 < mu and tan(26 deg) = 0.488 < mu: the block sticks. What it
    // still moves is the rows' CFM yield, `cfm * lambda` per second of load (measured:
    // 0.13 mm in 2 s at 26 degrees with the 8-edge cone, less with the box); a sliding
    // block would cover more than a metre in that time.
    for degrees in [20.0f64, 26.0] {
        let drift = sticking_drift(degrees.to_radians(), solver(), model);
        assert!(
            drift < 1e-3,
            "{name}: a block on a {degrees} degree slope crept {drift} m"
        );
    }
    for degrees in [30.0f64, 45.0] {
        let (measured, expected) = sliding_acceleration(degrees.to_radians(), solver(), model);
        let relative = (measured - expected).abs() / expected;
        println!("{name}, {degrees} degrees: a = {measured:.6} m/s^2, closed form {expected:.6}, relative error {relative:.2e}");
        assert!(
            relative < 0.01,
            "{name}, {degrees} degrees: a = {measured} m/s^2, expected {expected} ({relative:e})"
        );
    }
}

#[test]
fn box_friction_exact_follows_coulombs_law() {
    check_law(Solver::exact, FrictionModel::Box, "box, exact");
}

#[test]
fn box_friction_iterative_follows_coulombs_law() {
    check_law(Solver::iterative, FrictionModel::Box, "box, iterative");
}

#[test]
fn polygonal_cone_with_8_edges_follows_coulombs_law() {
    check_law(
        Solver::exact,
        FrictionModel::PolygonalCone { edges: 8 },
        "8-edge cone",
    );
}

#[test]
fn polygonal_cones_with_4_and_16_edges_follow_coulombs_law() {
    // The first edge follows the sliding direction, so even the 4-edge pyramid bounds the
    // force by mu lambda_n along the motion.
    for edges in [4, 16] {
        check_law(
            Solver::exact,
            FrictionModel::PolygonalCone { edges },
            &format!("{edges}-edge cone"),
        );
    }
}

#[test]
fn coulomb_cone_follows_coulombs_law() {
    check_law(
        Solver::iterative,
        FrictionModel::CoulombCone,
        "Coulomb cone",
    );
}

#[test]
fn steppers_refuse_friction_models_they_cannot_solve() {
    let mut settings = WorldSettings::default();
    settings.contacts.friction_model = FrictionModel::CoulombCone;
    assert!(
        World::with_settings(settings.clone()).is_err(),
        "exact + Coulomb disk"
    );
    settings.solver = Solver::iterative();
    let mut world = World::with_settings(settings).unwrap();
    assert!(world.set_solver(Solver::exact()).is_err());
    let mut settings = WorldSettings::default();
    settings.contacts.friction_model = FrictionModel::PolygonalCone { edges: 8 };
    let mut world = World::with_settings(settings.clone()).unwrap();
    assert!(world.set_solver(Solver::iterative()).is_err());
    settings.contacts.friction_model = FrictionModel::PolygonalCone { edges: 2 };
    assert!(World::with_settings(settings).is_err(), "a 2-edge cone");
}
