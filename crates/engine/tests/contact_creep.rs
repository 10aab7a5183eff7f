//! CFM on a contact under a steady load (ODE's meaning of CFM). A row with CFM satisfies
//! `J u+ = target - cfm lambda`: with the penetration left to post-stabilisation (the
//! default; ERP 0 on the contact rows), a box resting on the ground approaches it at
//! `cfm lambda` per contact point every step, and the projection after the step lifts it
//! back. For a box on its four corners that is `cfm m g / 4` (2.45 cm/s for 1000 kg at
//! CFM 1e-5), and the box's reported velocity keeps it: lower the CFM where resting
//! velocities matter. (Removing that creep with a proximal target, `target + cfm
//! lambda_warm`, made the iterative stepper's 20-box stack fall in long runs; anchoring
//! part of the CFM at the load already carried kept the stack but made the S1 pyramid sway
//! with growing amplitude over 6,000 steps; docs/benchmarks-history.md, fifth and sixth
//! sessions.)

mod common;

use stiction::math::Vec3;
use stiction::scenes::scene_settings;
use stiction::{ColliderBuilder, MassProperties, RigidBodyBuilder, Solver};

const MASS: f64 = 1000.0;

/// Rests a 1000 kg unit box on the ground at CFM `cfm` (h = 1/60) for a second, then
/// returns the largest and smallest downward speed of its centre and the projection passes
/// over the next 60 steps.
fn creep(solver: Solver, cfm: f64) -> (f64, f64, usize) {
    let mut settings = scene_settings(solver);
    settings.softness.cfm = cfm;
    let (mut world, crate_) = common::box_on_ground(settings, Vec3::splat(0.5), MASS);
    let h = 1.0 / 60.0;
    for _ in 0..60 {
        world.step(h).unwrap();
    }
    let (mut fastest, mut slowest, mut passes) = (0.0f64, f64::INFINITY, 0);
    for _ in 0..60 {
        let stats = world.step(h).unwrap();
        passes += stats.post_stabilization.passes;
        let sinking = -world.body(crate_).unwrap().linear_velocity().z;
        fastest = fastest.max(sinking);
        slowest = slowest.min(sinking);
    }
    (fastest, slowest, passes)
}

#[test]
fn a_loaded_contact_yields_at_cfm_times_its_force_with_either_stepper() {
    for solver in [Solver::exact(), Solver::iterative()] {
        for cfm in [1e-5, 1e-6] {
            let yield_speed = cfm * MASS * 9.81 / 4.0;
            let (fastest, slowest, passes) = creep(solver.clone(), cfm);
            eprintln!(
                "{solver:?}, CFM {cfm:e}: {slowest:.4e} to {fastest:.4e} m/s (cfm m g / 4 = \
                 {yield_speed:.4e}), {passes} projection passes in 60 steps"
            );
            for speed in [fastest, slowest] {
                assert!(
                    (speed - yield_speed).abs() < 0.01 * yield_speed,
                    "{solver:?}, CFM {cfm}: {speed} against {yield_speed}"
                );
            }
            // Each step sinks the box by cfm m g h / 4 (0.41 mm at CFM 1e-5, 41 um at
            // 1e-6), and the projection lifts it once that passes its 50 um tolerance:
            // every step, or every other step.
            let expected = if cfm > 5e-6 { 60 } else { 30 };
            assert_eq!(passes, expected, "{solver:?}, CFM {cfm}");
        }
    }
}

/// Rests a 1000 kg ball of radius 0.5 m on the ground for a second with `solver`; returns,
/// over the next 60 steps, its fastest vertical speed, its deepest penetration and the
/// projection passes.
fn resting_ball(solver: Solver) -> (f64, f64, usize) {
    let mut world = stiction::World::with_settings(scene_settings(solver)).unwrap();
    world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    let ball = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.5, MASS).unwrap())
            .position(Vec3::new(0.0, 0.0, 0.5))
            .build()
            .unwrap(),
    );
    world
        .add_collider(ColliderBuilder::ball(0.5).unwrap(), Some(ball))
        .unwrap();
    let h = 1.0 / 60.0;
    for _ in 0..60 {
        world.step(h).unwrap();
    }
    let (mut fastest, mut deepest, mut passes) = (0.0f64, 0.0f64, 0);
    for _ in 0..60 {
        let stats = world.step(h).unwrap();
        passes += stats.post_stabilization.passes;
        let body = world.body(ball).unwrap();
        fastest = fastest.max(body.linear_velocity().z.abs());
        deepest = deepest.max(0.5 - body.position().z);
    }
    (fastest, deepest, passes)
}

#[test]
fn a_ball_pressing_through_its_centre_does_not_creep_under_the_iterative_stepper() {
    // A contact whose normal passes through the centres of mass cannot turn its bodies,
    // so the iterative stepper corrects it with ERP and takes its CFM yield back at last
    // step's force instead of projecting it: the ball rests still, where the box above
    // reports a creep of cfm m g / 4 (the exact stepper projects every contact, so its
    // ball creeps at cfm m g and is lifted back by a pass every step).
    let (fastest, deepest, passes) = resting_ball(Solver::iterative());
    eprintln!("iterative: |vz| <= {fastest:.2e} m/s, depth <= {deepest:.2e} m, {passes} passes");
    assert!(fastest < 1e-6 && deepest < 1e-6, "{fastest} {deepest}");
    assert_eq!(passes, 0);
    let (fastest, deepest, passes) = resting_ball(Solver::exact());
    eprintln!("exact: |vz| <= {fastest:.2e} m/s, depth <= {deepest:.2e} m, {passes} passes");
    let yield_speed = 1e-5 * MASS * 9.81;
    assert!(
        (fastest - yield_speed).abs() < 0.01 * yield_speed,
        "{fastest}"
    );
    assert!(deepest < 2e-4, "{deepest}");
    assert_eq!(passes, 60);
}
