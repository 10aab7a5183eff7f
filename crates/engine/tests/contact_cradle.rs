//! Newton's cradle: five equal spheres hanging in a row from ball joints; the first is
//! pulled aside and released. With restitution 1 each impact swaps the velocities of two
//! equal masses, so the momentum passes down the row and the last sphere swings out at
//! the first one's impact speed while the others stay (nearly) at rest.
//!
//! The spheres hang with 5 mm gaps, more than one step's travel at impact (`h = 1/600 s`,
//! 1.6 m/s: 2.7 mm), so the impacts are resolved one after the other, as in the real
//! cradle where the compression wave runs down the row. (Touching spheres would meet in
//! one simultaneous impact problem, whose solution spreads the momentum over the row:
//! the known limit of simultaneous impact models, not something a step size fixes.)

use stiction::math::Vec3;
use stiction::{ColliderBuilder, MassProperties, RigidBodyBuilder, Solver, World, WorldSettings};

const RADIUS: f64 = 0.1;
const GAP: f64 = 0.005;
const LENGTH: f64 = 1.0;
const H: f64 = 1.0 / 600.0;

fn cradle(solver: Solver) -> (World, Vec<stiction::BodyHandle>) {
    let mut settings = WorldSettings {
        solver,
        ..WorldSettings::default()
    };
    settings.contacts.restitution_threshold = 0.05;
    let mut world = World::with_settings(settings).unwrap();
    let pull = 30f64.to_radians();
    let mut balls = Vec::new();
    for i in 0..5 {
        let anchor = Vec3::new(i as f64 * (2.0 * RADIUS + GAP), 0.0, LENGTH);
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
    for solver in [Solver::exact(), Solver::iterative()] {
        let (mut world, balls) = cradle(solver.clone());
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
