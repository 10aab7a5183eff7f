//! Contact CFM under a steady load. A row with CFM satisfies `J u+ = target - cfm lambda`,
//! so a box resting on the ground approaches it at `cfm lambda` per contact point every
//! step, and with post-stabilisation on (the default) the projection lifts it back: a
//! creep of `cfm m g / 4` for a box on its four corners (0.025 m/s for 1000 kg at CFM
//! 1e-5). The exact stepper keeps that, ODE's regularised LCP. The iterative stepper
//! writes its projected contacts' normal rows in proximal form (their target raised by
//! `cfm lambda_warm`), so a box at rest stays at rest: no approach speed, and no
//! projection pass to undo one.

use stiction::math::Vec3;
use stiction::scenes::scene_settings;
use stiction::{ColliderBuilder, MassProperties, RigidBodyBuilder, Solver, World};

const MASS: f64 = 1000.0;

/// Rests a 1000 kg unit box on the ground (CFM 1e-5, h = 1/60) for a second, then returns
/// the largest downward speed of its centre and the projection passes over the next 60
/// steps.
fn creep(solver: Solver) -> (f64, usize) {
    let mut world = World::with_settings(scene_settings(solver)).unwrap();
    world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    let half = Vec3::splat(0.5);
    let crate_ = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::cuboid_with_mass(half, MASS).unwrap())
            .position(Vec3::new(0.0, 0.0, 0.5))
            .build()
            .unwrap(),
    );
    world
        .add_collider(ColliderBuilder::cuboid(half).unwrap(), Some(crate_))
        .unwrap();
    let h = 1.0 / 60.0;
    for _ in 0..60 {
        world.step(h).unwrap();
    }
    let (mut sinking, mut passes) = (0.0f64, 0);
    for _ in 0..60 {
        let stats = world.step(h).unwrap();
        passes += stats.post_stabilization.passes;
        sinking = sinking.max(-world.body(crate_).unwrap().linear_velocity().z);
    }
    (sinking, passes)
}

#[test]
fn the_iterative_steppers_contacts_hold_a_steady_load_without_creeping() {
    let cfm = scene_settings(Solver::iterative()).softness.cfm;
    let yield_speed = cfm * MASS * 9.81 / 4.0;
    let (exact_speed, exact_passes) = creep(Solver::exact());
    let (iterative_speed, iterative_passes) = creep(Solver::iterative());
    eprintln!(
        "creep {yield_speed:.3e} m/s: exact {exact_speed:.3e} m/s, {exact_passes} passes; \
         iterative {iterative_speed:.3e} m/s, {iterative_passes} passes"
    );
    // Plain CFM: each corner yields at cfm m g / 4, and every step needs a projection.
    assert!(
        (exact_speed - yield_speed).abs() < 0.05 * yield_speed,
        "{exact_speed} against {yield_speed}"
    );
    assert!(exact_passes >= 50, "{exact_passes}");
    // Proximal CFM: at rest.
    assert!(iterative_speed < 1e-3 * yield_speed, "{iterative_speed}");
    assert_eq!(iterative_passes, 0);
}
