//! Scene S3 of shared/SCENES.md (chain-100): 100 boxes on ball joints hanging from the
//! static world, released horizontally at h = 1/60 for 600 steps.
//!
//! Invariant: with post-stabilisation every joint holds, the largest anchor separation at
//! any step (not only the last) staying far below the 1 cm the issue asks for, with either
//! stepper (ODE stretches this chain by 3 to 5 m, Rapier by 1.7 cm). Without
//! post-stabilisation the same velocity-level steppers stretch it by metres, as ODE's do:
//! the projection, not luck, holds the chain. The steps never create energy.

use stiction::scenes::{chain, chain_100};
use stiction::{PostStabilization, PostStabilizationMethod, Solver, World, WorldSettings};

/// Kinetic plus gravitational potential energy (J).
fn energy(world: &World) -> f64 {
    world
        .bodies()
        .map(|(_, b)| {
            b.linear_kinetic_energy() + b.rotational_kinetic_energy() + 9.81 * b.position().z
        })
        .sum()
}

/// Runs S3; returns (separation at the last step, largest separation at any step, energy
/// at the start, energy at the end, mean ms per step). With post-stabilisation, checks
/// every step ends within its tolerance and that chord passes (see
/// [`stiction::PostStabilizationStats::factorizations`]) took at least a tenth of the
/// passes: they converge more slowly than Newton's, so reaching the tolerance is the check
/// that matters.
fn run(solver: Solver, post_stabilization: bool) -> (f64, f64, f64, f64, f64) {
    let mut scene = chain_100(solver).unwrap();
    if !post_stabilization {
        let mut settings = scene.world.settings().clone();
        settings.post_stabilization = PostStabilization::OFF;
        scene.world.set_settings(settings).unwrap();
    }
    let start_energy = energy(&scene.world);
    let tolerance = scene.world.settings().post_stabilization.tolerance;
    let (mut passes, mut factorizations) = (0, 0);
    let mut worst: f64 = 0.0;
    let clock = std::time::Instant::now();
    for step in 0..scene.steps {
        let stats = scene.world.step(scene.h).unwrap();
        assert_eq!((stats.rows, stats.islands, stats.fallbacks), (300, 1, 0));
        let projection = stats.post_stabilization;
        worst = worst.max(scene.world.max_joint_anchor_separation());
        if post_stabilization {
            assert!(
                projection.error_after <= tolerance,
                "step {step}: {projection:?}"
            );
            assert!(projection.factorizations <= projection.passes);
        }
        passes += projection.passes;
        factorizations += projection.factorizations;
    }
    let ms = clock.elapsed().as_secs_f64() * 1e3 / scene.steps as f64;
    eprintln!("{passes} projection passes, {factorizations} factorisations");
    if post_stabilization {
        assert!(
            factorizations + passes / 10 <= passes,
            "{factorizations} of {passes}"
        );
    }
    let last = scene.world.max_joint_anchor_separation();
    (last, worst, start_energy, energy(&scene.world), ms)
}

#[test]
fn chain_100_holds_within_a_centimetre_with_the_exact_stepper() {
    let (last, worst, e0, e1, ms) = run(Solver::exact(), true);
    eprintln!("S3 exact: last {last:.2e} m, worst {worst:.2e} m, energy {e0:.0} -> {e1:.0} J, {ms:.2} ms/step");
    assert!(last < 1e-2 && worst < 1e-2);
    // The projection actually converges (tolerance 1e-6 per row): far below the target.
    assert!(worst < 1e-5, "{worst}");
    assert!(e1 <= e0);
}

#[test]
fn chain_100_holds_within_a_centimetre_with_the_iterative_stepper() {
    let (last, worst, e0, e1, ms) = run(Solver::iterative(), true);
    eprintln!("S3 iterative: last {last:.2e} m, worst {worst:.2e} m, energy {e0:.0} -> {e1:.0} J, {ms:.2} ms/step");
    assert!(last < 1e-2 && worst < 1e-2);
    assert!(worst < 1e-5, "{worst}");
    assert!(e1 <= e0);
}

#[test]
fn chain_100_stretches_by_metres_without_post_stabilization() {
    let (last, worst, _, _, _) = run(Solver::iterative(), false);
    eprintln!("S3 iterative without post-stabilisation: last {last:.2} m, worst {worst:.2} m");
    assert!(worst > 1.0, "{worst}");
}

#[test]
fn gauss_seidel_post_stabilization_also_holds_a_short_chain() {
    // Box2D-style position iterations (projected Gauss-Seidel on the position rows) instead
    // of the direct solve: slower to converge on long chains, but on 10 links 20 sweeps per
    // pass hold every joint to a few hundredths of a millimetre, where the unstabilised
    // chain stretches by centimetres.
    let worst = |method: Option<PostStabilizationMethod>| {
        let mut settings = WorldSettings {
            solver: Solver::iterative(),
            ..WorldSettings::default()
        };
        match method {
            Some(method) => settings.post_stabilization.method = method,
            None => settings.post_stabilization = PostStabilization::OFF,
        }
        let mut scene = chain(10, settings).unwrap();
        let mut worst: f64 = 0.0;
        for _ in 0..scene.steps {
            scene.world.step(scene.h).unwrap();
            worst = worst.max(scene.world.max_joint_anchor_separation());
        }
        worst
    };
    let gauss_seidel = worst(Some(PostStabilizationMethod::GaussSeidel { sweeps: 20 }));
    let direct = worst(Some(PostStabilizationMethod::Direct));
    let off = worst(None);
    eprintln!(
        "chain-10: Gauss-Seidel {gauss_seidel:.2e} m, direct {direct:.2e} m, off {off:.2e} m"
    );
    assert!(
        gauss_seidel < 1e-4 && direct < 1e-5,
        "{gauss_seidel} {direct}"
    );
    assert!(off > 1e-2, "{off}");
}

#[test]
fn long_chains_on_the_exact_stepper_take_the_sparse_solve_with_dantzigs_answer() {
    // A 40-link chain (120 bilateral rows) is above the exact stepper's limit for
    // bilateral islands (50 rows by default) and goes to the sparse solver, which counts
    // its one factorisation per step as an iteration; with every island kept dense,
    // Dantzig takes it with no pivots (all rows unbounded). Both are exact: the chains
    // must follow the same trajectory to round-off while whipping down for a second, also
    // without CFM (the sparse solver then factors with a floor on the regularisation and
    // refines against the true rows).
    for cfm in [1e-5, 0.0] {
        chains_agree(cfm);
    }
}

fn chains_agree(cfm: f64) {
    let run = |dense_row_limit: usize| {
        let solver = Solver::Exact(stiction::ExactSettings {
            dense_row_limit,
            ..Default::default()
        });
        let mut settings = stiction::scenes::scene_settings(solver);
        settings.softness.cfm = cfm;
        let mut scene = chain(40, settings).unwrap();
        let mut iterations = 0;
        for _ in 0..60 {
            let stats = scene.world.step(scene.h).unwrap();
            assert_eq!((stats.islands, stats.fallbacks), (1, 0));
            let island = &stats.island_reports[0];
            assert!(island.residual <= 1e-9, "{}", island.residual);
            iterations += island.iterations;
        }
        let positions: Vec<_> = scene.world.bodies().map(|(_, b)| b.position()).collect();
        (positions, iterations)
    };
    let (sparse, sparse_iterations) = run(stiction::ExactSettings::default().dense_row_limit);
    let (dense, dense_iterations) = run(usize::MAX);
    assert_eq!((sparse_iterations, dense_iterations), (60, 0));
    let largest = sparse
        .iter()
        .zip(&dense)
        .map(|(a, b)| (*a - *b).length())
        .fold(0.0, f64::max);
    // The links fall about 5 m in that second.
    let fallen = 20.0 - dense.iter().map(|p| p.z).fold(f64::INFINITY, f64::min);
    assert!(fallen > 3.0, "{fallen}");
    assert!(largest < 1e-9, "CFM {cfm}: {largest}");
}
