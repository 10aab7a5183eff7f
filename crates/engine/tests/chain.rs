//! Scene S3 (chain-100, docs/scenes.md): 100 boxes on ball joints hanging from the
//! static world, released horizontally at h = 1/60 for 600 steps.
//!
//! Invariant: with post-stabilisation every joint holds, the largest anchor separation at
//! any step (not only the last) staying far below the 1 cm the issue asks for, with either
//! stepper (ODE stretches this chain by 3 to 5 m, Rapier by 1.7 cm). Without
//! post-stabilisation the same velocity-level steppers stretch it by metres, as ODE's do:
//! the projection, not luck, holds the chain. The steps never create energy.

mod common;

use common::mechanical_energy as energy;
use stiction::math::Vec3;
use stiction::scenes::{chain, chain_100};
use stiction::{
    MassProperties, PostStabilization, PostStabilizationMethod, RigidBodyBuilder, Solver, World,
    WorldSettings,
};

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
fn long_chains_on_the_exact_stepper_take_a_sparse_solve_with_dantzigs_answer() {
    // A 40-link chain (120 bilateral rows) is above the exact stepper's limit for
    // bilateral islands (25 rows by default). Listed along the chain, its rows factor in a
    // narrow envelope (one direct solve a step, no pivots); listed in a shuffled order the
    // envelope is too wide, and the sparse active-set solver takes it (one body-space
    // factorisation a step, counted as an iteration); with every island kept dense,
    // Dantzig takes it with no pivots (all rows unbounded). All three are exact: the chains
    // must follow the same trajectory to round-off while whipping down for a second, also
    // without CFM (both sparse solvers then factor with a floor on the regularisation; the
    // active-set solver refines against the true rows).
    for cfm in [1e-5, 0.0] {
        chains_agree(cfm);
    }
}

/// A chain of `links` links as [`chain`] builds it, but with its joints created in the
/// order `order` (a permutation of the links): the same mechanism, its rows listed in
/// that order.
fn chain_in_order(settings: WorldSettings, order: &[usize]) -> World {
    let mut world = World::with_settings(settings).unwrap();
    let mass = MassProperties::cuboid_with_mass(Vec3::new(0.25, 0.05, 0.05), 1.0).unwrap();
    let links: Vec<_> = (0..order.len())
        .map(|i| {
            let body = RigidBodyBuilder::dynamic()
                .mass_properties(mass)
                .position(Vec3::new(0.5 * i as f64 + 0.25, 0.0, 20.0))
                .build()
                .unwrap();
            world.add_body(body)
        })
        .collect();
    for &i in order {
        let previous = i.checked_sub(1).map(|p| links[p]);
        let anchor = Vec3::new(0.5 * i as f64, 0.0, 20.0);
        world.add_ball_joint(links[i], previous, anchor).unwrap();
    }
    world
}

/// The link order 0, 1, ... `links - 1` dealt into seven interleaved runs: neighbours in
/// the chain are far apart in the list.
fn shuffled(links: usize) -> Vec<usize> {
    (0..7).flat_map(|r| (r..links).step_by(7)).collect()
}

fn chains_agree(cfm: f64) {
    const LINKS: usize = 40;
    let run = |dense_row_limit: usize, order: &[usize]| {
        let solver = Solver::Exact(stiction::ExactSettings {
            dense_row_limit,
            ..Default::default()
        });
        let mut settings = stiction::scenes::scene_settings(solver);
        settings.softness.cfm = cfm;
        let mut world = chain_in_order(settings, order);
        let (mut iterations, mut direct) = (0, 0);
        for _ in 0..60 {
            let stats = world.step(1.0 / 60.0).unwrap();
            assert_eq!((stats.islands, stats.fallbacks), (1, 0));
            let island = &stats.island_reports[0];
            assert!(island.residual <= 1e-9, "{}", island.residual);
            iterations += island.iterations;
            direct += stats.direct_islands;
        }
        // Body handles follow creation order, the same in every world.
        let positions: Vec<_> = world.bodies().map(|(_, b)| b.position()).collect();
        (positions, iterations, direct)
    };
    let along: Vec<usize> = (0..LINKS).collect();
    let default_limit = stiction::ExactSettings::default().dense_row_limit;
    let (envelope, envelope_iterations, envelope_direct) = run(default_limit, &along);
    let (active_set, active_set_iterations, active_set_direct) =
        run(default_limit, &shuffled(LINKS));
    let (dense, dense_iterations, dense_direct) = run(usize::MAX, &along);
    assert_eq!((envelope_iterations, envelope_direct), (0, 60));
    assert_eq!((active_set_iterations, active_set_direct), (60, 0));
    assert_eq!((dense_iterations, dense_direct), (0, 0));
    let largest = |a: &[Vec3], b: &[Vec3]| {
        a.iter()
            .zip(b)
            .map(|(a, b)| (*a - *b).length())
            .fold(0.0, f64::max)
    };
    // The links fall about 5 m in that second.
    let fallen = 20.0 - dense.iter().map(|p| p.z).fold(f64::INFINITY, f64::min);
    assert!(fallen > 3.0, "{fallen}");
    for (name, positions) in [("envelope", &envelope), ("active set", &active_set)] {
        let apart = largest(positions, &dense);
        assert!(apart < 1e-9, "CFM {cfm}, {name}: {apart}");
    }
}

#[test]
fn the_iterative_stepper_solves_a_hanging_chain_exactly_when_it_factors_it() {
    // A hundred 1 kg links hanging straight down from the world, at rest: the joint above
    // link i carries the weight of the links from i down, (100 - i) m g. The first step
    // from rest (no warm start to help) with the chain factored gets every force to
    // round-off; Gauss-Seidel's 20 sweeps leave the upper joints far short, as quickstep
    // does. With its joints listed out of order, the factorisation would cost more than
    // the sweeps and the chain is swept.
    const LINKS: usize = 100;
    const G: f64 = 9.81;
    let hanging = |direct_bilateral: bool, order: &[usize]| {
        let solver = Solver::Iterative(stiction::IterativeSettings {
            direct_bilateral,
            ..Default::default()
        });
        let mut settings = stiction::scenes::scene_settings(solver);
        // Rigid joints: with CFM each joint is a spring (1e5 N/m at CFM 1e-5), and a
        // hundred in series take more than one step to carry the weight.
        settings.softness.cfm = 0.0;
        let mut world = World::with_settings(settings).unwrap();
        let mass = MassProperties::cuboid_with_mass(Vec3::new(0.05, 0.05, 0.25), 1.0).unwrap();
        let links: Vec<_> = (0..LINKS)
            .map(|i| {
                let body = RigidBodyBuilder::dynamic()
                    .mass_properties(mass)
                    .position(Vec3::new(0.0, 0.0, -0.5 * i as f64 - 0.25))
                    .build()
                    .unwrap();
                world.add_body(body)
            })
            .collect();
        let joints: Vec<_> = order
            .iter()
            .map(|&i| {
                let above = i.checked_sub(1).map(|p| links[p]);
                let anchor = Vec3::new(0.0, 0.0, -0.5 * i as f64);
                (i, world.add_ball_joint(links[i], above, anchor).unwrap())
            })
            .collect();
        let stats = world.step(1.0 / 60.0).unwrap().clone();
        let worst = joints
            .iter()
            .map(|&(i, joint)| {
                // The joint pulls its lower link A up by the weight below.
                let carried = (LINKS - i) as f64 * G;
                let force = world.joint(joint).unwrap().feedback().force_a;
                (force - Vec3::new(0.0, 0.0, carried)).length() / carried
            })
            .fold(0.0, f64::max);
        (worst, stats.direct_islands, stats.sweeps)
    };
    let along: Vec<usize> = (0..LINKS).collect();
    let (direct, direct_islands, direct_sweeps) = hanging(true, &along);
    let (swept, swept_islands, swept_sweeps) = hanging(false, &along);
    let (shuffled_worst, shuffled_islands, shuffled_sweeps) = hanging(true, &shuffled(LINKS));
    eprintln!(
        "hanging chain: direct {direct:.1e}, 20 sweeps {swept:.2}, shuffled {shuffled_worst:.2}"
    );
    assert_eq!((direct_islands, direct_sweeps), (1, 0));
    assert_eq!((swept_islands, swept_sweeps), (0, 20));
    assert_eq!((shuffled_islands, shuffled_sweeps), (0, 20));
    assert!(direct < 1e-9, "{direct}");
    // Swept from rest, the top joints hold a fraction of their load.
    assert!(
        swept > 0.1 && shuffled_worst > 0.1,
        "{swept} {shuffled_worst}"
    );
}

#[test]
fn the_projection_follows_joints_disabled_and_enabled_between_steps() {
    // Post-stabilisation keeps a joint-only world's rows from step to step while the joints
    // write the same rows on the same bodies. A swinging 10-link chain whose middle joint
    // is disabled must let its lower half fall away (free fall: g t^2 / 2 apart after half
    // a second, less the swing's pull) while every other joint still holds; enabled again,
    // the joint must be pulled back together.
    const LINKS: usize = 10;
    const CUT: usize = 5;
    let set_cut_enabled = |scene: &mut stiction::scenes::Scene, enabled: bool| {
        let joint = scene.world.joint_mut(scene.joints[CUT]).unwrap();
        joint.set_enabled(enabled);
    };
    let mut scene = chain(LINKS, WorldSettings::default()).unwrap();
    // The projection holds each of a ball joint's three rows within its tolerance: the
    // anchors within sqrt(3) of it.
    let tolerance = 3f64.sqrt() * scene.world.settings().post_stabilization.tolerance;
    let separation = |world: &World, joint| world.joint_anchor_separation(joint).unwrap().unwrap();
    let others_hold = |world: &World, joints: &[stiction::JointHandle]| {
        joints
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != CUT)
            .all(|(_, &joint)| separation(world, joint) <= tolerance)
    };
    for _ in 0..60 {
        scene.world.step(scene.h).unwrap();
    }
    assert!(separation(&scene.world, scene.joints[CUT]) <= tolerance);
    assert!(others_hold(&scene.world, &scene.joints));

    set_cut_enabled(&mut scene, false);
    for _ in 0..30 {
        let stats = scene.world.step(scene.h).unwrap();
        // The projection measured the nine enabled joints' rows, not the ten it had.
        assert_eq!(stats.post_stabilization.rows, 3 * (LINKS - 1));
        assert!(others_hold(&scene.world, &scene.joints));
    }
    let apart = separation(&scene.world, scene.joints[CUT]);
    assert!(
        apart > 0.3,
        "the cut chain's halves are only {apart} m apart"
    );

    set_cut_enabled(&mut scene, true);
    for _ in 0..60 {
        scene.world.step(scene.h).unwrap();
    }
    let rejoined = separation(&scene.world, scene.joints[CUT]);
    assert!(
        rejoined <= tolerance,
        "re-enabled joint still {rejoined} m apart"
    );
    assert!(others_hold(&scene.world, &scene.joints));
}
