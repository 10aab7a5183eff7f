//! `--queries`: 1,024 rays into S2's settled pile in this engine and in Rapier, on identical
//! geometry, in one process.
//!
//! The pile is this engine's S2 (`stiction::scenes::sphere_pile_1000`, iterative stepper)
//! after [`SETTLE_STEPS`] steps, its query tree refreshed (`World::refresh_queries`). Rapier
//! gets a copy of every collider, as a collider without a body at the same world pose with
//! the same parry shape (the 1,000 balls, the four wall boxes, the ground half-space), and
//! one `PhysicsWorld::step` to build its broad phase's tree, which its `QueryPipeline`
//! descends. The rays are the fixed set of crates/engine/benches/queries.rs (drawn the same
//! way here, [`ray_set`]): first hit, solid, up to [`MAX_TOI`].
//!
//! Timed, in interleaved rounds (`--rounds`; the engines' order rotates each round): this
//! engine's `World::cast_rays` (one call, a reused output `Vec`), the same rays as 1,024
//! `World::cast_ray` calls, and 1,024 Rapier `QueryPipeline::cast_ray` calls. Each round
//! takes the median of [`REPEATS`] batches per engine; the table gives the median over the
//! rounds, their range, and the ratios to Rapier. A fourth row is a diagnostic of tree
//! quality: Rapier's `QueryPipeline` over a tree built afresh from its own leaf boxes by
//! parry's binned SAH builder (`Bvh::from_iter`), instead of the one its broad phase grew by
//! inserting the colliders one by one. Before timing, every ray's answer is
//! compared: the same collider (or both none) and times of impact within [`TOLERANCE`].

use crate::measure::median;
use crate::report::ms;
use rapier3d_f64::parry::partitioning::{Bvh, BvhBuildStrategy};
use rapier3d_f64::prelude as rapier;
use std::time::Instant;
use stiction::lcp::generate::SplitMix64;
use stiction::math::Vec3;
use stiction::scenes::sphere_pile_1000;
use stiction::{QueryFilter, Ray, RayHit, Solver, World};

/// Steps that settle the pile before querying.
const SETTLE_STEPS: usize = 300;
/// Rays per batch.
const COUNT: usize = 1024;
/// The rays' maximum time of impact (unit directions: metres).
const MAX_TOI: f64 = 40.0;
/// Seed of the ray set (crates/engine/benches/queries.rs uses the same).
const RAY_SEED: u64 = 2026;
/// Batches timed per engine and round.
const REPEATS: usize = 200;
/// Largest difference in time of impact (m) counted as agreement.
const TOLERANCE: f64 = 1e-9;
/// The goal for one batch of 1,024 rays, ms.
const GOAL_MS: f64 = 0.3;

/// The fixed ray set of crates/engine/benches/queries.rs: origins in a disc of radius 9 m
/// about the z axis, 11 to 18 m high, each aimed at a point inside the container
/// (`|x|, |y| <= 6.5`, `0 <= z < 5`); unit directions.
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

/// S2 after [`SETTLE_STEPS`] iterative steps, its query tree current.
fn settled_pile() -> Result<World, String> {
    let mut scene = sphere_pile_1000(Solver::iterative()).map_err(|e| e.to_string())?;
    for _ in 0..SETTLE_STEPS {
        scene.world.step(scene.h).map_err(|e| e.to_string())?;
    }
    scene.world.refresh_queries();
    Ok(scene.world)
}

/// Every collider of `world` as a Rapier collider without a body at the same world pose
/// (body pose times local pose: balls, boxes and half-spaces have no further shape frame),
/// with the same parry shape, its `user_data` the engine's collider slot; then one step to
/// build Rapier's broad-phase tree.
fn rapier_copy(world: &World) -> Result<rapier::PhysicsWorld, String> {
    let mut copy = rapier::PhysicsWorld::new();
    for (handle, collider) in world.colliders() {
        let local = collider.local_pose();
        let (position, orientation) = match collider.body() {
            None => (local.position, local.orientation),
            Some(body) => {
                let body = world.body(body).map_err(|e| e.to_string())?;
                (
                    body.position() + body.orientation() * local.position,
                    body.orientation() * local.orientation,
                )
            }
        };
        let built = rapier::ColliderBuilder::new(collider.shape().clone())
            .position(rapier::Pose::from_parts(position, orientation))
            .user_data(handle.index() as u128);
        copy.insert_collider(built, None);
    }
    copy.step();
    Ok(copy)
}

/// A ray whose answers differ: its index, our hit, Rapier's (collider index, distance).
type Mismatch = (usize, Option<RayHit>, Option<(usize, f64)>);

/// The rounds' medians of one way of casting the rays, ms per 1,024 rays.
#[derive(Default)]
struct Series {
    rounds: Vec<f64>,
}

impl Series {
    fn median(&self) -> f64 {
        median(&mut self.rounds.clone())
    }

    fn range(&self) -> (f64, f64) {
        self.rounds
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            })
    }
}

/// The median time of [`REPEATS`] calls of `batch`, ms.
fn time_batches(mut batch: impl FnMut() -> usize) -> f64 {
    let mut times = Vec::with_capacity(REPEATS);
    let mut sink = 0usize;
    for _ in 0..REPEATS {
        let clock = Instant::now();
        sink = sink.wrapping_add(batch());
        times.push(clock.elapsed().as_secs_f64() * 1e3);
    }
    std::hint::black_box(sink);
    median(&mut times)
}

/// How the two engines' answers compare.
struct Agreement {
    /// Rays hitting something in this engine.
    hits: usize,
    /// Of those, rays hitting a sphere.
    sphere_hits: usize,
    /// Rays answered differently: (ray, ours, Rapier's (collider slot, toi)).
    mismatches: Vec<Mismatch>,
    /// Largest |toi difference| over the rays both engines hit on the same collider, m.
    max_difference: f64,
}

fn compare(ours: &[Option<RayHit>], theirs: &[Option<(usize, f64)>]) -> Agreement {
    let mut agreement = Agreement {
        hits: 0,
        sphere_hits: 0,
        mismatches: Vec::new(),
        max_difference: 0.0,
    };
    for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
        if let Some(hit) = a {
            agreement.hits += 1;
            agreement.sphere_hits += usize::from(hit.body.is_some());
        }
        let same = match (a, b) {
            (None, None) => true,
            (Some(hit), Some((slot, toi))) if hit.collider.index() == *slot => {
                let difference = (hit.toi - toi).abs();
                agreement.max_difference = agreement.max_difference.max(difference);
                difference <= TOLERANCE
            }
            _ => false,
        };
        if !same {
            agreement.mismatches.push((i, *a, *b));
        }
    }
    agreement
}

/// Runs the comparison and prints its markdown section.
pub fn run(rounds: usize) -> Result<(), String> {
    eprintln!("scene queries: settling S2 ({SETTLE_STEPS} steps)");
    let world = settled_pile()?;
    if !world.queries_use_tree() {
        return Err("the engine's query tree is not current after refresh_queries".into());
    }
    let copy = rapier_copy(&world)?;
    let pipeline = copy.query_pipeline();
    let rebuilt_tree = Bvh::from_iter(
        BvhBuildStrategy::Binned,
        copy.colliders.iter().filter_map(|(h, _)| {
            let leaf = h.into_raw_parts().0;
            pipeline
                .bvh
                .leaf_node(leaf)
                .map(|node| (leaf as usize, node.aabb()))
        }),
    );
    if rebuilt_tree.leaf_count() != pipeline.bvh.leaf_count() {
        return Err("the rebuilt Rapier tree lost leaves".into());
    }
    let rebuilt = rapier::QueryPipeline {
        bvh: &rebuilt_tree,
        ..pipeline
    };
    let rays = ray_set();
    let rapier_rays: Vec<rapier::Ray> = rays
        .iter()
        .map(|r| rapier::Ray::new(r.origin, r.dir))
        .collect();
    let filter = QueryFilter::new();

    let mut ours = Vec::with_capacity(rays.len());
    world.cast_rays(&rays, MAX_TOI, &filter, &mut ours);
    let theirs: Vec<Option<(usize, f64)>> = rapier_rays
        .iter()
        .map(|ray| {
            pipeline
                .cast_ray(ray, MAX_TOI, true)
                .map(|(h, toi)| (copy.colliders[h].user_data as usize, toi))
        })
        .collect();
    let agreement = compare(&ours, &theirs);
    let rebuilt_agrees = rapier_rays.iter().zip(&theirs).all(|(ray, answer)| {
        let other = rebuilt
            .cast_ray(ray, MAX_TOI, true)
            .map(|(h, toi)| (copy.colliders[h].user_data as usize, toi));
        other == *answer
    });

    let names = [
        "Stiction `cast_rays` (one call)",
        "Stiction `cast_ray` x 1,024",
        "Rapier 0.36 `QueryPipeline::cast_ray` x 1,024",
        "(diagnostic) Rapier, its tree rebuilt by `Bvh::from_iter`",
    ];
    let mut series: [Series; 4] = Default::default();
    for round in 0..rounds {
        eprintln!("  round {} of {rounds}", round + 1);
        for k in 0..4 {
            let engine = (round + k) % 4;
            let t = match engine {
                0 => time_batches(|| {
                    world.cast_rays(&rays, MAX_TOI, &filter, &mut ours);
                    ours.len()
                }),
                1 => time_batches(|| {
                    rays.iter()
                        .filter(|r| world.cast_ray(r.origin, r.dir, MAX_TOI, &filter).is_some())
                        .count()
                }),
                2 => time_batches(|| {
                    rapier_rays
                        .iter()
                        .filter(|r| pipeline.cast_ray(r, MAX_TOI, true).is_some())
                        .count()
                }),
                _ => time_batches(|| {
                    rapier_rays
                        .iter()
                        .filter(|r| rebuilt.cast_ray(r, MAX_TOI, true).is_some())
                        .count()
                }),
            };
            series[engine].rounds.push(t);
        }
    }

    let rapier_ms = series[2].median();
    println!("## Scene queries: 1,024 rays into S2's settled pile\n");
    println!(
        "| engine | ms per 1,024 rays | rounds' range | ratio to Rapier | goal (at most {GOAL_MS} ms) |"
    );
    println!("| --- | ---: | ---: | ---: | --- |");
    for (k, (name, s)) in names.iter().zip(&series).enumerate() {
        let (lo, hi) = s.range();
        let median = s.median();
        let goal = match (k < 2, median <= GOAL_MS) {
            (false, _) => "-",
            (true, true) => "met",
            (true, false) => "**not met**",
        };
        println!(
            "| {name} | {} | {}-{} | {:.2} | {goal} |",
            ms(median),
            ms(lo),
            ms(hi),
            median / rapier_ms
        );
    }
    println!();
    println!(
        "Median over {rounds} rounds of each round's median of {REPEATS} batches, the engines' \
         order rotated round by round. S2 (`stiction::scenes::sphere_pile_1000`, iterative) \
         after {SETTLE_STEPS} steps, `refresh_queries()`; Rapier queries a copy of the same \
         {} colliders (same parry shapes at the same world poses, no bodies) through \
         `PhysicsWorld::query_pipeline()` after one step built its tree. Rays: \
         crates/engine/benches/queries.rs's seeded set (seed {RAY_SEED}), first hit, solid, \
         max distance {MAX_TOI} m.\n",
        world.colliders().count()
    );
    println!(
        "- Answers: {} of {COUNT} rays hit something ({} a sphere); {} mismatches (a \
         different collider, a hit against none, or times of impact more than {TOLERANCE:e} m \
         apart); largest difference in time of impact on the same collider {:.1e} m.",
        agreement.hits,
        agreement.sphere_hits,
        agreement.mismatches.len(),
        agreement.max_difference
    );
    println!(
        "- Rapier over the rebuilt tree answers every ray {} over its own tree.",
        if rebuilt_agrees {
            "exactly as"
        } else {
            "**not** as"
        }
    );
    for (i, a, b) in agreement.mismatches.iter().take(10) {
        let ours = a.map_or("none".to_string(), |h| {
            format!("collider {} at {:.12} m", h.collider.index(), h.toi)
        });
        let theirs = b.map_or("none".to_string(), |(slot, toi)| {
            format!("collider {slot} at {toi:.12} m")
        });
        println!("  - ray {i}: Stiction {ours}, Rapier {theirs}");
    }
    println!();
    Ok(())
}
