//! Criterion benchmarks of the boxed-LCP solvers on contact-like problems
//! (docs/benchmarks-history.md, "LCP solvers (stiction-lcp)", records the figures): Dantzig
//! from a cold start and warm-started from its own previous active set, and PGS for a fixed
//! 50 sweeps.
//!
//! Run with `cargo bench -p stiction-lcp --bench solvers` (a few minutes on 2 cores). Plain
//! `cargo test` does not run these; `cargo test --benches` would run each once as a test.
//!
//! Problems:
//! - `contact_n{N}`: [`random_contact_problem`] with `N / 3` contacts (3 rows each, so
//!   `N` = 30, 99, 300, 999), `contacts / 3` bodies, `mu = 0.3`, `cfm = 1e-6`, seed 5.
//! - `box_stack_h{H}`: [`box_stack_problem`] of `H` = 5 and 20 unit cubes, `mu = 0.5`,
//!   `cfm = 6e-4` (4 coplanar contacts per face: singular but for CFM).
//!
//! Each problem is solved once before timing, and the benchmark refuses to run if Dantzig
//! does not solve it by pivoting alone: the exact-friction fallback
//! ([`DantzigOptions::exact_friction`], a Lemke solve of the coupled problem) would then be
//! what is timed. Seed 5 was picked because it passes that check at every size; with the
//! same settings, seeds 1, 2 and 4 at `N = 999` (and 3, 6 at `N = 300`) need the fallback.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use stiction_lcp::dantzig::{DantzigOptions, DantzigSolver};
use stiction_lcp::generate::{box_stack_problem, random_contact_problem, ContactProblemSpec};
use stiction_lcp::pgs::{solve_pgs, PgsOptions};
use stiction_lcp::{BoxedLcp, IndexState, Status};

/// Seed of every random contact problem (see the module documentation for why this one).
const CONTACT_SEED: u64 = 5;

/// Sweeps of the fixed-work PGS benchmark.
const PGS_SWEEPS: usize = 50;

/// The contact-like problem with about `rows` rows.
fn contact_problem(rows: usize) -> BoxedLcp {
    let contacts = rows / 3;
    random_contact_problem(&ContactProblemSpec {
        seed: CONTACT_SEED,
        bodies: (contacts / 3).max(1),
        contacts,
        mu: 0.3,
        cfm: 1e-6,
        duplicate_fraction: 0.0,
    })
}

/// Solves `problem` cold, checks that pivoting alone solved it and prints the pivot count;
/// returns the active set to warm-start from.
fn checked_active_set(name: &str, problem: &BoxedLcp) -> Vec<IndexState> {
    let mut solver = DantzigSolver::new();
    let report = solver
        .solve(problem, &DantzigOptions::default(), None)
        .expect("benchmark problems are valid");
    let stats = solver.stats();
    assert_eq!(report.status, Status::Solved, "{name}: {report:?}");
    assert!(
        !stats.exact_friction,
        "{name}: solved by the exact-friction Lemke fallback, not by pivoting; pick another seed"
    );
    eprintln!(
        "{name}: n = {}, cold pivots = {}, pivoting passes = {}, residual = {:.1e}",
        problem.len(),
        stats.pivots,
        stats.passes,
        report.residual.max()
    );
    solver.active_set().to_vec()
}

/// The three benchmarks of one problem, in a group of its own. A `slow` problem (a
/// quarter of a second per cold solve) gets ten samples of one solve each.
fn bench_problem(c: &mut Criterion, name: &str, problem: &BoxedLcp, slow: bool) {
    let mut group = c.benchmark_group(name);
    group
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    if slow {
        group
            .sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .measurement_time(Duration::from_secs(3));
    }
    let active = checked_active_set(name, problem);
    let options = DantzigOptions::default();
    // One solver reused across iterations, as an engine would: its workspace is warm, the
    // index sets are not (no initial guess).
    let mut solver = DantzigSolver::new();
    group.bench_function("dantzig_cold", |b| {
        b.iter(|| solver.solve(black_box(problem), &options, None))
    });
    group.bench_function("dantzig_warm", |b| {
        b.iter(|| solver.solve(black_box(problem), &options, Some(&active)))
    });
    assert!(solver.stats().warm_start_hit, "{name}: warm start missed");

    // Tolerance 0 never converges early, so every run does exactly PGS_SWEEPS sweeps.
    let pgs = PgsOptions {
        omega: 1.0,
        max_iterations: PGS_SWEEPS,
        tolerance: 0.0,
        ..PgsOptions::default()
    };
    group.bench_function(format!("pgs_{PGS_SWEEPS}_sweeps"), |b| {
        b.iter(|| solve_pgs(black_box(problem), None, &pgs))
    });
    let report = solve_pgs(problem, None, &pgs).expect("valid options");
    assert_eq!(report.iterations, PGS_SWEEPS, "{name}: PGS stopped early");
    group.finish();
}

fn contact_problems(c: &mut Criterion) {
    for rows in [30, 100, 300, 1000] {
        let problem = contact_problem(rows);
        let name = format!("contact_n{}", problem.len());
        bench_problem(c, &name, &problem, rows >= 1000);
    }
}

fn box_stacks(c: &mut Criterion) {
    for height in [5, 20] {
        let problem = box_stack_problem(height, 0.5, 6e-4);
        bench_problem(c, &format!("box_stack_h{height}"), &problem, false);
    }
}

criterion_group!(benches, contact_problems, box_stacks);
criterion_main!(benches);
