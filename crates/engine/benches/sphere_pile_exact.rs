//! Criterion benchmark of S2 (docs/scenes.md, 1000 spheres in a box) on the exact
//! stepper (docs/benchmarks-history.md records the figures).
//!
//! Run with `cargo bench -p stiction --bench sphere_pile_exact` (about two minutes on 2
//! cores, most of it reaching the states).
//!
//! S2's exact run cannot be timed whole: once the pile has settled into one island of
//! about 7900 rows, the sparse exact solve stops at its iteration cap on most steps and
//! falls back to Gauss-Seidel, at 20 to 70 s a step. So single steps are timed from fixed
//! states, every sample stepping a fresh copy of the state (the copy is not timed):
//!
//! - `s2_pile1000_exact_step60`: after 60 exact steps, the landing pile's largest island
//!   has about 3400 rows;
//! - `s2_pile1000_exact_step75`: after 75, about 5000;
//! - `s2_pile1000_exact_settled` (only with `STICTION_BENCH_SLOW=1` set: ten samples of
//!   half a minute or more): the pile settled by 250 iterative steps, then stepped exactly.
//!
//! Before timing, each state's step is taken once and its largest island, the solve's
//! outcome and the step's fallbacks are printed, so a figure is never read without
//! knowing whether the step it times was solved.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, SamplingMode};
use std::time::Duration;
use stiction::scenes::{sphere_pile_1000, Scene};
use stiction::Solver;

/// S2 after `iterative` iterative steps and then `exact` exact ones, on the exact stepper.
fn sphere_pile_state(iterative: usize, exact: usize) -> Scene {
    let mut scene = sphere_pile_1000(Solver::iterative()).expect("scene builds");
    for _ in 0..iterative {
        scene.world.step(scene.h).expect("scene steps");
    }
    scene
        .world
        .set_solver(Solver::exact())
        .expect("exact settings are valid");
    for _ in 0..exact {
        scene.world.step(scene.h).expect("scene steps");
    }
    scene
}

/// Times single steps of copies of `state`, each from that same state.
fn bench_step_from(c: &mut Criterion, name: &str, state: &Scene) {
    let mut probe = state.clone();
    let clock = std::time::Instant::now();
    let stats = probe.world.step(probe.h).expect("scene steps");
    let seconds = clock.elapsed().as_secs_f64();
    if let Some(island) = stats.island_reports.iter().max_by_key(|r| r.rows) {
        println!(
            "{name}: {seconds:.2} s, largest island {} rows, {:?} after {} iterations, \
             residual {:.1e}, fallbacks {}",
            island.rows, island.status, island.iterations, island.residual, stats.fallbacks
        );
    }
    let mut group = c.benchmark_group("contacts");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        // Ten samples of one step each, as long as the probe's step took.
        .measurement_time(Duration::from_secs_f64(11.0 * seconds));
    group.bench_function(name, |b| {
        b.iter_batched(
            || state.clone(),
            |mut scene| {
                scene.world.step(scene.h).expect("scene steps");
                scene
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

fn sphere_pile_exact(c: &mut Criterion) {
    bench_step_from(c, "s2_pile1000_exact_step60", &sphere_pile_state(0, 60));
    bench_step_from(c, "s2_pile1000_exact_step75", &sphere_pile_state(0, 75));
    if std::env::var_os("STICTION_BENCH_SLOW").is_some() {
        bench_step_from(c, "s2_pile1000_exact_settled", &sphere_pile_state(250, 0));
    }
}

criterion_group!(benches, sphere_pile_exact);
criterion_main!(benches);
