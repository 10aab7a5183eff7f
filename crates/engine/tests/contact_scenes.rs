//! The contact scenes of docs/scenes.md hold together:
//!
//! - S4 stack: with the exact stepper no island fails (no fallback, every island solved)
//!   and the top box moves less than 1 cm; with the iterative stepper (20 sweeps, warm
//!   started) the stack stands with its top box within 1 cm.
//! - S1 pyramid, iterative stepper at 20 sweeps: the top box moves less than 5 cm in
//!   600 steps.
//! - S2 sphere pile: no sphere ends below the ground or outside the container, and the
//!   deepest penetration at the last step is below 1 cm.
//!
//! The full-size scenes take minutes in a test build, so the default run uses smaller
//! ones that assert the same properties (S4 with 10 boxes for 600 steps, S1 with 6 rows,
//! S2 with 4 x 4 x 4 spheres); the full sizes are `#[ignore]`d:
//!
//! ```text
//! cargo test --release -p stiction --test contact_scenes -- --ignored --nocapture
//! ```
//!
//! Measured at full size (release build, shared 2-core machine, see
//! docs/benchmarks-history.md, "Engine: contact scenes"): S4 exact, 3000 steps: no fallback,
//! no unsolved island, top box moved 2.1 mm (2.3 ms/step);
//! S4 iterative: 2.3 mm (1.1 ms/step); S1 (N = 20), 600 steps: 2.2 mm (18 ms/step); S2
//! (1000 spheres), 600 steps: deepest penetration 0.11 mm, lowest centre 0.4999 m, widest
//! 6.5001 m of 7 (22 ms/step). The short versions take about 3 s together in a test build.

mod common;

use common::{assert_pile_contained, pile_extent};
use stiction::math::Vec3;
use stiction::scenes::{
    pyramid, scene_settings, sphere_pile, sphere_pile_half_width, stack, Scene,
};
use stiction::Solver;

/// Runs `steps` steps; returns the largest displacement of the last body (the top box) from
/// its start, the total fallbacks and unsolved islands, and the mean ms per step.
fn run(scene: &mut Scene, steps: usize) -> (f64, usize, usize, f64) {
    let top = *scene.bodies.last().unwrap();
    let start = scene.world.body(top).unwrap().position();
    let (mut fallbacks, mut unsolved) = (0, 0);
    let clock = std::time::Instant::now();
    for _ in 0..steps {
        let stats = scene.world.step(scene.h).unwrap();
        fallbacks += stats.fallbacks;
        unsolved += stats.unsolved_islands;
    }
    let ms = clock.elapsed().as_secs_f64() * 1e3 / steps as f64;
    let moved = (scene.world.body(top).unwrap().position() - start).length();
    (moved, fallbacks, unsolved, ms)
}

fn stack_exact(boxes: usize, steps: usize) {
    let mut scene = stack(boxes, scene_settings(Solver::exact())).unwrap();
    let (moved, fallbacks, unsolved, ms) = run(&mut scene, steps);
    println!(
        "S4 exact, {boxes} boxes, {steps} steps: top moved {moved:.3e} m, {fallbacks} fallbacks, {unsolved} unsolved islands, {ms:.3} ms/step"
    );
    assert_eq!((fallbacks, unsolved), (0, 0));
    assert!(moved < 0.01, "top box moved {moved} m");
}

fn stack_iterative(boxes: usize, steps: usize) {
    let mut scene = stack(boxes, scene_settings(Solver::iterative())).unwrap();
    let (moved, _, _, ms) = run(&mut scene, steps);
    println!(
        "S4 iterative (20 sweeps), {boxes} boxes, {steps} steps: top moved {moved:.3e} m, {ms:.3} ms/step"
    );
    assert!(moved < 0.01, "top box moved {moved} m");
}

fn pyramid_iterative(rows: usize) {
    let mut scene = pyramid(rows, scene_settings(Solver::iterative())).unwrap();
    let (moved, _, _, ms) = run(&mut scene, 600);
    println!("S1 iterative, {rows} rows: top moved {moved:.3e} m, {ms:.3} ms/step");
    println!(
        "  last step: {:?} {:?}",
        scene.world.step_stats().times,
        scene.world.step_stats().post_stabilization
    );
    assert!(moved < 0.05, "top box moved {moved} m");
}

fn pile(side: usize, layers: usize, steps: usize) {
    let mut scene = sphere_pile(side, layers, scene_settings(Solver::iterative())).unwrap();
    let (_, _, _, ms) = run(&mut scene, steps);
    let (wall, extent) = (sphere_pile_half_width(side), pile_extent(&scene));
    println!(
        "S2 {side}x{side}x{layers}, {steps} steps: {extent} (wall at {wall}), {ms:.3} ms/step"
    );
    assert_pile_contained(&extent, side);
}

#[test]
fn stack_of_10_stands_with_the_exact_stepper() {
    stack_exact(10, 600);
}

#[test]
fn stack_of_10_stands_with_the_iterative_stepper() {
    stack_iterative(10, 600);
}

#[test]
fn pyramid_of_6_rows_stands_with_the_iterative_stepper() {
    pyramid_iterative(6);
}

#[test]
fn small_sphere_pile_stays_in_its_container() {
    pile(4, 4, 400);
}

#[test]
fn every_contact_force_is_admissible_in_a_pile() {
    // Normal forces push, friction stays inside the box of the exact stepper's model.
    let mut scene = sphere_pile(3, 3, scene_settings(Solver::exact())).unwrap();
    run(&mut scene, 200);
    assert!(!scene.world.contacts().is_empty());
    for c in scene.world.contacts() {
        let f = c.force_local;
        assert!(f.x >= -1e-9, "pulling contact {f:?}");
        let bound = c.friction * f.x * (1.0 + 1e-6) + 1e-9;
        assert!(
            f.y.abs() <= bound && f.z.abs() <= bound,
            "{f:?} mu {}",
            c.friction
        );
        let world = c.frame[0] * f.x + c.frame[1] * f.y + c.frame[2] * f.z;
        assert!((world - c.force).length() <= 1e-9 * (1.0 + c.force.length()));
    }
}

#[test]
#[ignore = "full-size S4 (3000 steps): cargo test --release -- --ignored"]
fn s4_full_exact() {
    stack_exact(20, 3000);
}

#[test]
#[ignore = "full-size S4 (3000 steps): cargo test --release -- --ignored"]
fn s4_full_iterative() {
    stack_iterative(20, 3000);
}

#[test]
#[ignore = "full-size S1 (210 boxes): cargo test --release -- --ignored"]
fn s1_full_iterative() {
    pyramid_iterative(20);
}

#[test]
#[ignore = "full-size S2 (1000 spheres): cargo test --release -- --ignored"]
fn s2_full() {
    pile(10, 10, 600);
}

#[test]
fn scene_sizes_follow_shared_scenes() {
    let s1 = stiction::scenes::pyramid_20(Solver::iterative()).unwrap();
    assert_eq!((s1.bodies.len(), s1.steps), (210, 600));
    let s2 = stiction::scenes::sphere_pile_1000(Solver::iterative()).unwrap();
    assert_eq!((s2.bodies.len(), s2.steps), (1000, 600));
    // Ground plus four walls, one ball per sphere.
    assert_eq!(s2.world.collider_count(), 1005);
    let s4 = stiction::scenes::stack_20(Solver::exact()).unwrap();
    assert_eq!((s4.bodies.len(), s4.steps), (20, 3000));
    let top = s4
        .world
        .body(*s4.bodies.last().unwrap())
        .unwrap()
        .position();
    assert_eq!(top, Vec3::new(0.0, 0.0, 19.5));
    assert_eq!(sphere_pile_half_width(10), 7.0);
}

#[test]
fn a_small_stack_stands_on_the_polygonal_cone() {
    // Lemke on the polygonal-cone formulation (docs/dynamics.md#friction-models) for a
    // whole island (3 boxes, 12 points, 8 edges each: 120 rows and 12 slacks).
    let mut settings = scene_settings(Solver::exact());
    settings.contacts.friction_model = stiction::FrictionModel::PolygonalCone { edges: 8 };
    let mut scene = stack(3, settings).unwrap();
    let (moved, fallbacks, unsolved, ms) = run(&mut scene, 120);
    println!("3-box stack, 8-edge cone: top moved {moved:.3e} m, {ms:.3} ms/step");
    assert_eq!((fallbacks, unsolved), (0, 0));
    assert!(moved < 1e-3, "top box moved {moved} m");
}

/// Post-stabilisation skips a resting scene's contacts without building rows when none
/// penetrates beyond its tolerance, and still corrects one that does: a resting stack
/// needs no pass and reports every contact point as a row with its small penetration;
/// pushed 5 mm into the box below, the top box is projected out in the same step.
#[test]
fn post_stabilization_skips_resting_contacts_and_corrects_a_deep_one() {
    let mut scene = stack(5, scene_settings(Solver::iterative())).unwrap();
    for _ in 0..120 {
        scene.world.step(scene.h).unwrap();
    }
    let resting = scene.world.step_stats().post_stabilization;
    assert_eq!(resting.passes, 0, "{resting:?}");
    assert_eq!(resting.rows, scene.world.contacts().len());
    assert!(resting.rows >= 5 * 4, "{resting:?}");
    assert!(resting.error_before <= 5e-5, "{resting:?}");
    assert_eq!(resting.error_after, resting.error_before);

    let top = *scene.bodies.last().unwrap();
    let body = scene.world.body_mut(top).unwrap();
    let sunk = body.position() - Vec3::new(0.0, 0.0, 0.005);
    body.set_position(sunk).unwrap();
    scene.world.step(scene.h).unwrap();
    let pushed = scene.world.step_stats().post_stabilization;
    assert!(pushed.passes >= 1, "{pushed:?}");
    assert!(pushed.error_before > 4e-3, "{pushed:?}");
    assert!(pushed.error_after <= 5e-5, "{pushed:?}");
}
