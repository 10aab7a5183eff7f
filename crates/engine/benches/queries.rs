//! Criterion benchmark of the scene queries (docs/queries.md) over S2's settled pile
//! (docs/scenes.md: 1,000 spheres in a walled box, iterative stepper, 300 steps of 1/60 s),
//! and of what continuous collision costs a step when no body near the pile uses it.
//! BENCHMARKS.md ("Scene queries") records the figures.
//!
//! Run with `cargo bench -p stiction --bench queries` (about 80 s on 2 cores, a third of it
//! the interleaved steps and the settling before them).
//!
//! After `refresh_queries()` (the tree current), each benchmark is one batch of 1,024
//! queries:
//!
//! - `cast_rays`: one `World::cast_rays` call for 1,024 rays into a reused `Vec`;
//! - `cast_ray_x1024`: the same rays as 1,024 `World::cast_ray` calls;
//! - `intersect_ball_x1024`: 1,024 `World::intersect_shape` calls with a 0.6 m ball.
//!
//! The rays are a fixed set from a seeded SplitMix64 ([`ray_set`]): origins in a disc of
//! radius 9 m about the pile's axis, 11 to 18 m high (above the 10 m walls, whose outer
//! faces are 8 m from the axis: most origins above the container, some around it), each
//! aimed at a point drawn inside the container below 5 m (the settled pile's top is near
//! 6 m, so most rays meet a sphere); first hit, solid, up to [`MAX_TOI`]. The
//! peer harness (bench/peers/src/queries.rs) casts the same set in Rapier and must draw it
//! the same way. The goal is 1,024 rays in at most 0.3 ms.
//!
//! The step group times single iterative steps of the settled pile (steps 300 to 600 of
//! S2, restarting from the settled copy; the copy is not timed):
//!
//! - `plain`: S2 as built, every body with continuous collision off (the default: there
//!   is no other code path for bodies without it);
//! - `far_body`: one more ball, continuous collision off, 150 m away, drifting at 1 m/s
//!   without gravity (what an extra body costs);
//! - `far_ccd_body`: the same ball with continuous collision on (its box swept each step).
//!
//! Before timing, the ray set's outcome (what it hits), a check that one `cast_rays` call
//! equals 1,024 single casts, and the overlaps' mean count are printed; and, since
//! criterion times the three step variants one after the other (seconds apart on a shared
//! machine, whose load moves a step by 10-20 %), the variants are also stepped interleaved,
//! step by step from the same settled state ([`INTERLEAVED_ROUNDS`] runs of steps 300 to
//! 600), and each one's median step and its median ratio to `plain` at the same step are
//! printed.

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use std::hint::black_box;
use std::time::{Duration, Instant};
use stiction::lcp::generate::SplitMix64;
use stiction::math::Vec3;
use stiction::parry::shape::Ball;
use stiction::scenes::{sphere_pile_1000, Scene};
use stiction::{
    ColliderBuilder, MassProperties, Pose, QueryFilter, Ray, RigidBodyBuilder, Solver, World,
};

/// Steps that settle the pile before querying.
const SETTLE_STEPS: usize = 300;
/// Rays and overlaps per batch.
const COUNT: usize = 1024;
/// The rays' maximum time of impact (their directions are unit vectors: metres).
const MAX_TOI: f64 = 40.0;
/// Seeds of the ray set and of the overlap centres.
const RAY_SEED: u64 = 2026;
const BALL_SEED: u64 = 2027;
/// Radius of the overlap queries' ball, m.
const BALL_RADIUS: f64 = 0.6;
/// Interleaved runs of the step variants before criterion's timing.
const INTERLEAVED_ROUNDS: usize = 3;

/// The fixed ray set (bench/peers/src/queries.rs draws the same one): origins in a disc
/// of radius 9 m about the z axis, 11 to 18 m high, each aimed at a point inside the
/// container (`|x|, |y| <= 6.5`, `0 <= z < 5`); unit directions.
fn ray_set() -> Vec<Ray> {
    let mut rng = SplitMix64::new(RAY_SEED);
    (0..COUNT)
        .map(|_| {
            let r = 9.0 * rng.unit().sqrt();
            let a = std::f64::consts::TAU * rng.unit();
            let origin = Vec3::new(r * a.cos(), r * a.sin(), rng.range(11.0, 18.0));
            let target = Vec3::new(
                rng.range(-6.5, 6.5),
                rng.range(-6.5, 6.5),
                rng.range(0.0, 5.0),
            );
            Ray::new(origin, (target - origin).normalize())
        })
        .collect()
}

/// Centres of the overlap queries: inside the container, 0.5 to 4.5 m high.
fn ball_centres() -> Vec<Pose> {
    let mut rng = SplitMix64::new(BALL_SEED);
    (0..COUNT)
        .map(|_| Pose {
            position: Vec3::new(
                rng.range(-6.5, 6.5),
                rng.range(-6.5, 6.5),
                rng.range(0.5, 4.5),
            ),
            ..Pose::IDENTITY
        })
        .collect()
}

/// S2 after [`SETTLE_STEPS`] iterative steps.
fn settled_pile() -> Scene {
    let mut scene = sphere_pile_1000(Solver::iterative()).expect("S2 builds");
    for _ in 0..SETTLE_STEPS {
        scene.world.step(scene.h).expect("S2 steps");
    }
    scene
}

/// Prints what the ray set hits, checks one `cast_rays` call against single casts, and
/// prints the overlaps' mean count.
fn describe(world: &World, rays: &[Ray], centres: &[Pose]) {
    let filter = QueryFilter::new();
    let mut out = Vec::with_capacity(rays.len());
    world.cast_rays(rays, MAX_TOI, &filter, &mut out);
    let (mut balls, mut fixed, mut misses) = (0, 0, 0);
    for (ray, hit) in rays.iter().zip(&out) {
        let single = world.cast_ray(ray.origin, ray.dir, MAX_TOI, &filter);
        assert_eq!(*hit, single, "cast_rays equals single casts");
        match hit {
            None => misses += 1,
            Some(h) if h.body.is_some() => balls += 1,
            Some(_) => fixed += 1,
        }
    }
    let top = world
        .bodies()
        .map(|(_, b)| b.position().z)
        .fold(f64::NEG_INFINITY, f64::max);
    let ball = Ball::new(BALL_RADIUS);
    let overlaps: usize = centres
        .iter()
        .map(|pose| world.intersect_shape(&ball, pose, &filter).len())
        .sum();
    eprintln!(
        "S2 after {SETTLE_STEPS} steps (highest centre {top:.2} m): of {} rays, {balls} hit a \
         sphere, {fixed} a wall or the ground, {misses} nothing; cast_rays equals single casts; \
         a {BALL_RADIUS} m ball overlaps {:.2} colliders on average",
        rays.len(),
        overlaps as f64 / centres.len() as f64
    );
}

fn queries(c: &mut Criterion) {
    let mut world = settled_pile().world;
    world.refresh_queries();
    assert!(world.queries_use_tree(), "the tree is current");
    let rays = ray_set();
    let centres = ball_centres();
    describe(&world, &rays, &centres);

    let filter = QueryFilter::new();
    let mut group = c.benchmark_group("queries");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    let mut out = Vec::with_capacity(rays.len());
    group.bench_function("cast_rays", |b| {
        b.iter(|| {
            world.cast_rays(black_box(&rays), MAX_TOI, &filter, &mut out);
            black_box(out.len())
        })
    });
    group.bench_function("cast_ray_x1024", |b| {
        b.iter(|| {
            let mut hits = 0usize;
            for ray in black_box(&rays) {
                hits += usize::from(
                    world
                        .cast_ray(ray.origin, ray.dir, MAX_TOI, &filter)
                        .is_some(),
                );
            }
            hits
        })
    });
    let ball = Ball::new(BALL_RADIUS);
    group.bench_function("intersect_ball_x1024", |b| {
        b.iter(|| {
            let mut found = 0usize;
            for pose in black_box(&centres) {
                found += world.intersect_shape(&ball, pose, &filter).len();
            }
            found
        })
    });
    group.finish();
}

/// The settled pile with one more ball 150 m away, drifting at 1 m/s without gravity,
/// continuous collision `ccd`.
fn with_far_body(settled: &Scene, ccd: bool) -> Scene {
    let mut scene = settled.clone();
    let body = scene.world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.5, 1.0).expect("valid mass"))
            .position(Vec3::new(150.0, 0.0, 20.0))
            .linear_velocity(Vec3::new(0.0, 1.0, 0.0))
            .gravity(false)
            .ccd(ccd)
            .build()
            .expect("valid body"),
    );
    scene
        .world
        .add_collider(ColliderBuilder::ball(0.5).expect("valid ball"), Some(body))
        .expect("collider added");
    scene
}

/// Median of `values` (reordered).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Steps every variant from its settled state to the end of the run, interleaved step by
/// step (the order rotating), [`INTERLEAVED_ROUNDS`] times; prints each variant's median
/// step and the median over the steps of its time divided by `plain`'s at the same step,
/// and whether the pile's 1,000 spheres ended bit for bit where `plain`'s did.
fn interleaved(variants: &[(&str, Scene)]) {
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
    let mut scenes: Vec<Scene> = Vec::new();
    for _ in 0..INTERLEAVED_ROUNDS {
        scenes = variants.iter().map(|(_, s)| s.clone()).collect();
        for step in SETTLE_STEPS..variants[0].1.steps {
            for k in 0..scenes.len() {
                let v = (step + k) % scenes.len();
                let scene = &mut scenes[v];
                let clock = Instant::now();
                scene.world.step(scene.h).expect("S2 steps");
                times[v].push(clock.elapsed().as_secs_f64() * 1e3);
            }
        }
    }
    let pile = |scene: &Scene| -> Vec<Vec3> {
        scene
            .bodies
            .iter()
            .map(|&b| scene.world.body(b).expect("live body").position())
            .collect()
    };
    let reference = pile(&scenes[0]);
    for (k, (name, _)) in variants.iter().enumerate() {
        let same = if pile(&scenes[k]) == reference {
            "the same"
        } else {
            "NOT the same"
        };
        let mut ratios: Vec<f64> = times[k].iter().zip(&times[0]).map(|(t, p)| t / p).collect();
        eprintln!(
            "s2_settled_step/{name}, interleaved: median {:.3} ms/step over {} steps, median \
             ratio to plain at the same step {:.3}; pile at the end bit for bit {same} as plain's",
            median(&mut times[k].clone()),
            times[k].len(),
            median(&mut ratios)
        );
    }
}

fn steps(c: &mut Criterion) {
    let settled = settled_pile();
    let variants = [
        ("plain", settled.clone()),
        ("far_body", with_far_body(&settled, false)),
        ("far_ccd_body", with_far_body(&settled, true)),
    ];
    interleaved(&variants);
    let mut group = c.benchmark_group("s2_settled_step");
    group
        .sample_size(20)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    for (name, template) in &variants {
        let ccd_bodies = template
            .world
            .bodies()
            .filter(|(_, b)| b.ccd_enabled())
            .count();
        eprintln!("s2_settled_step/{name}: {ccd_bodies} bodies with continuous collision");
        group.bench_function(*name, |b| {
            let mut scene = template.clone();
            let mut done = SETTLE_STEPS;
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    if done == template.steps {
                        scene = template.clone();
                        done = SETTLE_STEPS;
                    }
                    let clock = Instant::now();
                    scene.world.step(scene.h).expect("S2 steps");
                    total += clock.elapsed();
                    done += 1;
                }
                total
            })
        });
    }
    group.finish();
}

criterion_group!(benches, queries, steps);
criterion_main!(benches);
