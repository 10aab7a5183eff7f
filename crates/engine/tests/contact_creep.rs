//! CFM on a contact under a steady load. A row with CFM satisfies `J u+ = target - cfm
//! lambda`: with the penetration left to post-stabilisation (the default; ERP 0 on the
//! contact rows), a box resting on the ground approaches it at `cfm lambda` per contact point
//! every step, and the projection after the step lifts it back. For a box on its four
//! corners that is `cfm m g / 4` (2.45 cm/s for 1000 kg at CFM 1e-5). The exact stepper
//! keeps that (ODE's regularised LCP). The iterative stepper anchors `s` =
//! `ANCHORED_CFM_SHARE` of its projected contacts' CFM at the load they carried
//! (`J u+ = target - cfm (lambda - s min(lambda, lambda_a))`): a load already carried
//! yields at `(1 - s) cfm lambda`, new load at the full CFM, and a contact whose load falls
//! does not push its bodies apart. (The proximal form `target + cfm lambda_warm` did push
//! them apart, by `cfm (lambda_warm - lambda)`, and made the iterative 20-box stack fall in
//! long runs; BENCHMARKS.md, fifth session.)

mod common;

use stiction::contact::ANCHORED_CFM_SHARE;
use stiction::math::Vec3;
use stiction::scenes::scene_settings;
use stiction::{BodyHandle, Solver, World};

const MASS: f64 = 1000.0;
const H: f64 = 1.0 / 60.0;

/// A 1000 kg unit box rested on the ground at CFM `cfm` for a second.
fn resting_box(solver: Solver, cfm: f64) -> (World, BodyHandle) {
    let mut settings = scene_settings(solver);
    settings.softness.cfm = cfm;
    let (mut world, crate_) = common::box_on_ground(settings, Vec3::splat(0.5), MASS);
    for _ in 0..60 {
        world.step(H).unwrap();
    }
    (world, crate_)
}

/// The largest and smallest downward speed of the resting box's centre and the projection
/// passes over 60 more steps, each step with the vertical force `extra` (N) on the box.
fn creep(world: &mut World, crate_: BodyHandle, extra: f64) -> (f64, f64, usize) {
    let (mut fastest, mut slowest, mut passes) = (0.0f64, f64::INFINITY, 0);
    for _ in 0..60 {
        push(world, crate_, extra);
        let stats = world.step(H).unwrap();
        passes += stats.post_stabilization.passes;
        let sinking = sinking(world, crate_);
        fastest = fastest.max(sinking);
        slowest = slowest.min(sinking);
    }
    (fastest, slowest, passes)
}

fn push(world: &mut World, crate_: BodyHandle, extra: f64) {
    world
        .body_mut(crate_)
        .unwrap()
        .add_force(Vec3::new(0.0, 0.0, extra))
        .unwrap();
}

fn sinking(world: &World, crate_: BodyHandle) -> f64 {
    -world.body(crate_).unwrap().linear_velocity().z
}

fn assert_near(what: &str, speed: f64, expected: f64, scale: f64) {
    assert!(
        (speed - expected).abs() < 0.01 * scale,
        "{what}: {speed} m/s against {expected}"
    );
}

#[test]
fn the_exact_steppers_loaded_contact_yields_at_cfm_times_its_force() {
    for cfm in [1e-5, 1e-6] {
        let yield_speed = cfm * MASS * 9.81 / 4.0;
        let (mut world, crate_) = resting_box(Solver::exact(), cfm);
        let (fastest, slowest, passes) = creep(&mut world, crate_, 0.0);
        eprintln!("exact, CFM {cfm:e}: {slowest:.4e} to {fastest:.4e} m/s, {passes} passes");
        assert_near("fastest", fastest, yield_speed, yield_speed);
        assert_near("slowest", slowest, yield_speed, yield_speed);
        // Each step sinks the box by cfm m g h / 4 (0.41 mm at CFM 1e-5, 41 um at 1e-6),
        // and the projection lifts it once that passes its 50 um tolerance: every step, or
        // every other step.
        let expected = if cfm > 5e-6 { 60 } else { 30 };
        assert_eq!(passes, expected, "CFM {cfm}");
    }
}

#[test]
fn the_iterative_steppers_contacts_yield_less_to_a_load_they_carried() {
    for cfm in [1e-5, 1e-6] {
        let yield_speed = cfm * MASS * 9.81 / 4.0;
        let held = (1.0 - ANCHORED_CFM_SHARE) * yield_speed;
        let (mut world, crate_) = resting_box(Solver::iterative(), cfm);
        let (fastest, slowest, passes) = creep(&mut world, crate_, 0.0);
        eprintln!(
            "iterative, CFM {cfm:e}: {slowest:.4e} to {fastest:.4e} m/s (plain CFM \
             {yield_speed:.4e}, anchored {held:.4e}), {passes} passes"
        );
        assert_near("fastest", fastest, held, yield_speed);
        assert_near("slowest", slowest, held, yield_speed);
        // 0.12 mm a step at CFM 1e-5: a pass every step; 12 um at 1e-6: every fifth step.
        let expected = if cfm > 5e-6 { 60 } else { 12 };
        assert_eq!(passes, expected, "CFM {cfm}");
    }
}

#[test]
fn the_iterative_steppers_contacts_yield_to_new_load_and_never_push_apart() {
    let cfm = 1e-5;
    let share = ANCHORED_CFM_SHARE;
    let weight = MASS * 9.81;
    let (mut world, crate_) = resting_box(Solver::iterative(), cfm);
    // Half the weight taken off, each corner's force falls from m g / 4 to m g / 8, below
    // its anchor: the rows keep only their unanchored CFM and the box sinks (slower), where
    // the proximal form would have pushed it up at cfm m g / 8 (1.2 cm/s).
    let lighter = (1.0 - share) * cfm * weight / 8.0;
    // Gauss-Seidel's 20 sweeps leave a remainder of the change for the next few steps
    // (6 % of the speed in the first, 0.01 % in the fourth).
    for step in 0..5 {
        push(&mut world, crate_, 0.5 * weight);
        world.step(H).unwrap();
        let speed = sinking(&world, crate_);
        eprintln!("half the weight, step {step}: {speed:.4e} m/s");
        assert!(speed > 0.0 && speed < 1.1 * lighter, "step {step}: {speed}");
    }
    let (fastest, slowest, _) = creep(&mut world, crate_, 0.5 * weight);
    eprintln!("half the weight: {slowest:.4e} to {fastest:.4e} m/s (expected {lighter:.4e})");
    assert_near("fastest", fastest, lighter, lighter);
    assert_near("slowest", slowest, lighter, lighter);
    // Twice the weight: in the first step each corner's force rises from m g / 8 to m g / 2
    // and yields to all of the rise, then the load is carried. (Gauss-Seidel's 20 sweeps
    // from the old forces reach 88 % of the first step's sinking and make up the rest in
    // the next steps.)
    let first = cfm * (weight / 2.0 - share * weight / 8.0);
    let then = (1.0 - share) * cfm * weight / 2.0;
    let mut speeds = Vec::new();
    for step in 0..6 {
        push(&mut world, crate_, -weight);
        world.step(H).unwrap();
        speeds.push(sinking(&world, crate_));
        eprintln!("twice the weight, step {step}: {:.4e} m/s", speeds[step]);
    }
    eprintln!("expected {first:.4e}, then {then:.4e} m/s");
    assert!((speeds[0] - first).abs() < 0.15 * first, "{}", speeds[0]);
    assert_near("step 5", speeds[5], then, then);
}
