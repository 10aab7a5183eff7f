//! Criterion benchmark of scene S3 (chain-100, docs/scenes.md) for both steppers:
//! 100 boxes on ball joints released horizontally, 600 steps of 1/60 s, with the world's
//! default settings (ERP 0.2, CFM 1e-5, post-stabilisation and the curvature term on; the
//! iterative stepper with 20 sweeps). docs/benchmarks-history.md records the figures.
//!
//! Run with `cargo bench -p stiction --bench chain` (about a minute on 2 cores). Each
//! criterion iteration is one whole run of the scene, built outside the timing, so its
//! time divided by 600 is the mean step over the run. Before timing, one run per stepper
//! prints the median of its per-step times (docs/scenes.md's figure) and the joint separation
//! at the last step.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, SamplingMode};
use stiction::scenes::chain_100;
use stiction::Solver;

fn steppers() -> [(&'static str, Solver); 2] {
    [
        ("exact", Solver::exact()),
        ("iterative", Solver::iterative()),
    ]
}

/// One run of S3 timed step by step: (median ms per step, separation at the last step).
fn timed_run(solver: Solver) -> (f64, f64) {
    let mut scene = chain_100(solver).expect("S3 builds");
    let mut times = Vec::with_capacity(scene.steps);
    for _ in 0..scene.steps {
        let clock = Instant::now();
        scene.world.step(scene.h).expect("S3 steps");
        times.push(clock.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    (
        times[times.len() / 2],
        scene.world.max_joint_anchor_separation(),
    )
}

fn chain(c: &mut Criterion) {
    let mut group = c.benchmark_group("S3 chain-100 (600 steps)");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(15));
    for (name, solver) in steppers() {
        let (median, separation) = timed_run(solver.clone());
        eprintln!("S3 {name}: median {median:.3} ms/step over one run, separation at the last step {separation:.2e} m");
        group.bench_function(name, |b| {
            b.iter_batched(
                || chain_100(solver.clone()).expect("S3 builds"),
                |mut scene| {
                    for _ in 0..scene.steps {
                        scene.world.step(scene.h).expect("S3 steps");
                    }
                    black_box(scene)
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, chain);
criterion_main!(benches);
