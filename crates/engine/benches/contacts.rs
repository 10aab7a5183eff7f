//! Criterion benchmarks of the contact scenes of docs/scenes.md per stepper
//! (docs/benchmarks-history.md, section "Engine: contact scenes", records the figures).
//!
//! Run with `cargo bench -p stiction --bench contacts` (about five minutes on 2 cores).
//!
//! Each benchmark times single steps of its scene from the start of the run to its end
//! (600 steps, or 3000 for S4), starting again from a fresh copy of the scene when the run
//! is over, so the mean is the mean step over the whole run. Before timing, every scene
//! is run once in full and the report docs/scenes.md asks for is printed: the median ms/step
//! over the run (from the step statistics) and the scene's quality figure (top box
//! displacement for S1 and S4, deepest penetration at the last step for S2).
//!
//! The exact stepper solves islands of up to `ExactSettings::dense_row_limit` rows by
//! Dantzig on the dense `A` and larger ones by its sparse active-set solver (by default
//! every island of these scenes): S1 at N = 20 (one island of about 7000 rows) runs
//! exactly too, besides S4 and a 6-row pyramid (21 boxes). S2 on the exact stepper has its own benchmark, `sphere_pile_exact`
//! (single steps from fixed states: its settled pile costs tens of seconds a step).

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use std::time::{Duration, Instant};
use stiction::scenes::{pyramid, pyramid_20, scene_settings, sphere_pile_1000, stack_20, Scene};
use stiction::Solver;

/// Runs `scene` to its end; returns the median ms/step and the quality figure.
fn report(name: &str, mut scene: Scene, quality: fn(&Scene, stiction::math::Vec3) -> f64) {
    let top = *scene.bodies.last().expect("a scene has bodies");
    let start = scene.world.body(top).expect("live body").position();
    let mut times = Vec::with_capacity(scene.steps);
    let mut failures = 0;
    for _ in 0..scene.steps {
        let stats = scene.world.step(scene.h).expect("scene steps");
        times.push(stats.times.total.as_secs_f64() * 1e3);
        failures += stats.fallbacks;
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    println!(
        "{name}: median {median:.3} ms/step over {} steps, quality {:.3e}, fallbacks {failures}",
        scene.steps,
        quality(&scene, start)
    );
}

fn top_displacement(scene: &Scene, start: stiction::math::Vec3) -> f64 {
    let top = *scene.bodies.last().expect("a scene has bodies");
    (scene.world.body(top).expect("live body").position() - start).length()
}

fn deepest_penetration(scene: &Scene, _: stiction::math::Vec3) -> f64 {
    scene
        .world
        .contacts()
        .iter()
        .map(|c| -c.geometry.separation)
        .fold(0.0, f64::max)
}

/// Times steps of copies of `template`, restarting at the end of each run.
fn bench_scene(c: &mut Criterion, name: &str, template: &Scene, seconds: u64) {
    let mut group = c.benchmark_group("contacts");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(seconds));
    group.bench_function(name, |b| {
        let mut scene = template.clone();
        let mut done = 0;
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                if done == template.steps {
                    scene = template.clone();
                    done = 0;
                }
                let clock = Instant::now();
                scene.world.step(scene.h).expect("scene steps");
                total += clock.elapsed();
                done += 1;
            }
            total
        });
    });
    group.finish();
}

fn contact_scenes(c: &mut Criterion) {
    let exact_pyramid = || pyramid(6, scene_settings(Solver::exact())).expect("scene builds");
    report(
        "S4 exact",
        stack_20(Solver::exact()).expect("scene builds"),
        top_displacement,
    );
    report(
        "S4 iterative",
        stack_20(Solver::iterative()).expect("scene builds"),
        top_displacement,
    );
    report("S1 (N = 6) exact", exact_pyramid(), top_displacement);
    report(
        "S1 iterative",
        pyramid_20(Solver::iterative()).expect("scene builds"),
        top_displacement,
    );
    report(
        "S2 iterative",
        sphere_pile_1000(Solver::iterative()).expect("scene builds"),
        deepest_penetration,
    );
    report(
        "S1 (N = 20) exact",
        pyramid_20(Solver::exact()).expect("scene builds"),
        top_displacement,
    );

    bench_scene(
        c,
        "s4_stack20_exact",
        &stack_20(Solver::exact()).expect("scene"),
        10,
    );
    bench_scene(
        c,
        "s4_stack20_iterative",
        &stack_20(Solver::iterative()).expect("scene"),
        10,
    );
    bench_scene(c, "s1_pyramid6_exact", &exact_pyramid(), 10);
    bench_scene(
        c,
        "s1_pyramid20_iterative",
        &pyramid_20(Solver::iterative()).expect("scene"),
        20,
    );
    bench_scene(
        c,
        "s2_pile1000_iterative",
        &sphere_pile_1000(Solver::iterative()).expect("scene"),
        30,
    );
    bench_scene(
        c,
        "s1_pyramid20_exact",
        &pyramid_20(Solver::exact()).expect("scene"),
        20,
    );
}

criterion_group!(benches, contact_scenes);
criterion_main!(benches);
