//! Newton's cradle: five equal spheres hanging in a row from ball joints; the first is
//! pulled aside and released. With restitution 1 each impact swaps the velocities of two
//! equal masses, so the momentum passes down the row and the last sphere swings out at
//! the first one's impact speed while the others stay (nearly) at rest.
//!
//! With 5 mm gaps, more than one step's travel at impact (`h = 1/600 s`, 1.6 m/s: 2.7 mm),
//! the impacts are resolved one after the other by either impact model. Touching spheres
//! meet in one simultaneous impact problem under the default
//! `ImpactModel::Simultaneous`, whose solution spreads the momentum over the row (the
//! known limit of simultaneous impact models: the LCP's answer is checked below);
//! `ImpactModel::Sequential` resolves them pairwise in the order the compression wave
//! travels, and the touching row behaves as a cradle, conserving momentum and energy.

use stiction::math::Vec3;
use stiction::{
    BodyHandle, ColliderBuilder, ExactSettings, ImpactModel, MassProperties, Material,
    RigidBodyBuilder, Softness, Solver, World, WorldSettings,
};

const RADIUS: f64 = 0.1;
const GAP: f64 = 0.005;
const LENGTH: f64 = 1.0;
const H: f64 = 1.0 / 600.0;

fn cradle_with_gap(solver: Solver, gap: f64) -> (World, Vec<BodyHandle>) {
    let mut settings = WorldSettings {
        solver,
        ..WorldSettings::default()
    };
    settings.contacts.restitution_threshold = 0.05;
    let mut world = World::with_settings(settings).unwrap();
    let pull = 30f64.to_radians();
    let mut balls = Vec::new();
    for i in 0..5 {
        let anchor = Vec3::new(i as f64 * (2.0 * RADIUS + gap), 0.0, LENGTH);
        let position = if i == 0 {
            anchor + Vec3::new(-pull.sin(), 0.0, -pull.cos()) * LENGTH
        } else {
            anchor - Vec3::Z * LENGTH
        };
        let ball = world.add_body(
            RigidBodyBuilder::dynamic()
                .mass_properties(MassProperties::sphere_with_mass(RADIUS, 0.5).unwrap())
                .position(position)
                .build()
                .unwrap(),
        );
        world
            .add_collider(
                ColliderBuilder::ball(RADIUS)
                    .unwrap()
                    .restitution(1.0)
                    .friction(0.0),
                Some(ball),
            )
            .unwrap();
        world.add_ball_joint(ball, None, anchor).unwrap();
        balls.push(ball);
    }
    (world, balls)
}

#[test]
fn the_momentum_of_the_first_sphere_reaches_the_last() {
    let touching = Solver::Exact(ExactSettings {
        impacts: ImpactModel::Sequential,
        ..ExactSettings::default()
    });
    for (solver, gap) in [
        (Solver::exact(), GAP),
        (Solver::iterative(), GAP),
        (touching, 0.0),
    ] {
        let (mut world, balls) = cradle_with_gap(solver.clone(), gap);
        let impact_speed = (2.0 * 9.81 * LENGTH * (1.0 - 30f64.to_radians().cos())).sqrt();
        // Swing down (a quarter period, about 0.5 s), then let the impacts run down the
        // row; measure once the last sphere has left (and a further 0.05 s).
        let mut left_at = None;
        let (mut last_peak, mut others_peak) = (0.0f64, 0.0f64);
        for step in 0..600 {
            world.step(H).unwrap();
            let speed = |k: usize| world.body(balls[k]).unwrap().linear_velocity().x;
            last_peak = last_peak.max(speed(4));
            if left_at.is_none() && speed(4) > 0.5 * impact_speed {
                left_at = Some(step);
            }
            if left_at.is_some_and(|s| step == s + 30) {
                others_peak = (0..4).map(|k| speed(k).abs()).fold(0.0, f64::max);
                break;
            }
        }
        assert!(left_at.is_some(), "the last sphere never moved");
        println!(
            "{}: impact speed {impact_speed:.4} m/s, last sphere's peak {last_peak:.4} m/s, others' largest speed after the wave {others_peak:.4} m/s",
            if matches!(solver, Solver::Exact(_)) { "exact" } else { "iterative" }
        );
        assert!(
            (last_peak - impact_speed).abs() < 0.05 * impact_speed,
            "the last sphere left at {last_peak} m/s, the first hit at {impact_speed} m/s"
        );
        // The other four are (nearly) still once the wave has passed.
        assert!(
            others_peak < 0.1 * impact_speed,
            "others still move at {others_peak} m/s"
        );
    }
}

const MASS: f64 = 0.5;

/// `count` touching equal balls in a row along x in free space (no gravity), elastic and
/// frictionless, the first `moving` of them moving at `v` towards the rest.
fn touching_row(
    count: usize,
    moving: usize,
    v: f64,
    impacts: ImpactModel,
) -> (World, Vec<BodyHandle>) {
    let mut settings = WorldSettings {
        gravity: Vec3::ZERO,
        solver: Solver::Exact(ExactSettings {
            impacts,
            ..ExactSettings::default()
        }),
        ..WorldSettings::default()
    };
    // Every approach bounces, 0.5 m/s included.
    settings.contacts.restitution_threshold = 0.0;
    let mut world = World::with_settings(settings).unwrap();
    let elastic = Material::new(0.0, 1.0).unwrap();
    let balls = (0..count)
        .map(|i| {
            let speed = if i < moving { v } else { 0.0 };
            let ball = world.add_body(
                RigidBodyBuilder::dynamic()
                    .mass_properties(MassProperties::sphere_with_mass(RADIUS, MASS).unwrap())
                    .position(Vec3::new(i as f64 * 2.0 * RADIUS, 0.0, 0.0))
                    .linear_velocity(Vec3::new(speed, 0.0, 0.0))
                    .build()
                    .unwrap(),
            );
            world
                .add_collider(
                    ColliderBuilder::ball(RADIUS).unwrap().material(elastic),
                    Some(ball),
                )
                .unwrap();
            ball
        })
        .collect();
    (world, balls)
}

/// Each ball's velocity along x after `steps` steps of 1 ms, with the relative changes of
/// the row's momentum and kinetic energy.
fn after_impact(world: &mut World, balls: &[BodyHandle], steps: usize) -> (Vec<f64>, f64, f64) {
    let totals = |world: &World| {
        balls.iter().fold((0.0, 0.0), |(p, e), &ball| {
            let body = world.body(ball).unwrap();
            let (v, w) = (body.linear_velocity(), body.angular_velocity());
            (
                p + MASS * v.x,
                e + 0.5 * MASS * v.length_squared() + w.length_squared(),
            )
        })
    };
    let (p0, e0) = totals(world);
    for _ in 0..steps {
        world.step(1e-3).unwrap();
    }
    let (p1, e1) = totals(world);
    let velocities = balls
        .iter()
        .map(|&ball| world.body(ball).unwrap().linear_velocity().x)
        .collect();
    (velocities, (p1 - p0).abs() / p0.abs(), (e1 - e0).abs() / e0)
}

#[test]
fn sequential_impacts_pass_the_velocity_down_a_touching_row() {
    for v in [0.5, 1.0, 2.0] {
        let (mut world, balls) = touching_row(5, 1, v, ImpactModel::Sequential);
        let (velocities, momentum, energy) = after_impact(&mut world, &balls, 20);
        assert!(
            (velocities[4] - v).abs() < 0.01 * v,
            "v = {v}: {velocities:?}"
        );
        for &u in &velocities[..4] {
            assert!(u.abs() < 0.01 * v, "v = {v}: {velocities:?}");
        }
        assert!(
            momentum < 1e-9 && energy < 1e-9,
            "v = {v}: momentum {momentum:e}, energy {energy:e}"
        );
        // One struck pair per contact of the row, in the first step.
        assert_eq!(world.step_stats().sequential_impacts, 0);
    }
}

#[test]
fn two_balls_striking_a_three_ball_row_send_two_out() {
    let v = 1.0;
    let (mut world, balls) = touching_row(3, 2, v, ImpactModel::Sequential);
    world.step(1e-3).unwrap();
    // 1-2 first (1 stops, 2 leaves), then 0-1 (0 stops, 1 leaves).
    assert_eq!(world.step_stats().sequential_impacts, 2);
    let (velocities, momentum, energy) = after_impact(&mut world, &balls, 20);
    assert!(velocities[0].abs() < 0.01 * v, "{velocities:?}");
    assert!(
        (velocities[1] - v).abs() < 0.01 * v && (velocities[2] - v).abs() < 0.01 * v,
        "{velocities:?}"
    );
    assert!(
        momentum < 1e-9 && energy < 1e-9,
        "momentum {momentum:e}, energy {energy:e}"
    );
}

#[test]
fn a_simultaneous_impact_spreads_the_momentum_over_the_row() {
    // The default model's answer for five touching balls with restitution 1: the LCP of
    // the impact gives -0.6 v to the striker and 0.4 v to each of the others (momentum
    // conserved, energy not: the known limit of simultaneous impact models).
    let v = 1.5;
    let (mut world, balls) = touching_row(5, 1, v, ImpactModel::Simultaneous);
    // Without CFM's yield, which at 1 ms steps spreads the answer by about 1 %.
    let mut settings = world.settings().clone();
    settings.softness = Softness::new(0.2, 1e-10).unwrap();
    world.set_settings(settings).unwrap();
    let (velocities, momentum, _) = after_impact(&mut world, &balls, 1);
    assert!((velocities[0] + 0.6 * v).abs() < 1e-3 * v, "{velocities:?}");
    for &u in &velocities[1..] {
        assert!((u - 0.4 * v).abs() < 1e-3 * v, "{velocities:?}");
    }
    assert!(momentum < 1e-9, "momentum {momentum:e}");
}

#[test]
fn the_impact_model_survives_a_snapshot() {
    let (mut world, balls) = touching_row(5, 1, 1.0, ImpactModel::Sequential);
    let mut bytes = Vec::new();
    world.save_snapshot(&mut bytes, 0).unwrap();
    let mut restored = World::load_snapshot(&bytes[..]).unwrap().world;
    match &restored.settings().solver {
        Solver::Exact(exact) => assert_eq!(exact.impacts, ImpactModel::Sequential),
        other => panic!("restored {other:?}"),
    }
    let (ours, _, _) = after_impact(&mut world, &balls, 1);
    let (theirs, _, _) = after_impact(&mut restored, &balls, 1);
    assert_eq!(ours, theirs);
}
