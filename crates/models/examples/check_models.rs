//! Loads every URDF and MJCF file under the given directories, steps each for 0.5 s on a
//! ground plane and prints one line per file: loaded (bodies, joints, warnings, worst
//! joint separation) or the error. A survey tool for model collections:
//!
//! ```text
//! cargo run --release -p stiction-models --example check_models -- DIR...
//! ```

use std::path::{Path, PathBuf};

use stiction::math::Vec3;
use stiction::{ColliderBuilder, Solver};
use stiction_models::{load, LoadOptions};

fn model_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            model_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "urdf" || e == "xml") {
            out.push(path);
        }
    }
}

/// The lowest point of the model's colliders, m.
fn lowest_point(world: &stiction::World, model: &stiction_models::LoadedModel) -> Option<f64> {
    let bodies: Vec<_> = model.links.values().copied().collect();
    world
        .colliders()
        .filter(|(_, c)| c.body().is_some_and(|b| bodies.contains(&b)))
        .filter_map(|(_, c)| {
            let pose = c.shape_pose(&world.pose(c.body()).ok()?);
            Some(c.shape().compute_aabb(&pose).mins.z)
        })
        .min_by(f64::total_cmp)
}

fn main() {
    let mut files = Vec::new();
    for arg in std::env::args().skip(1) {
        let path = PathBuf::from(arg);
        if path.is_file() {
            files.push(path);
        } else {
            model_files(&path, &mut files);
        }
    }
    let (mut loaded, mut failed) = (0, 0);
    for file in &files {
        let started = std::time::Instant::now();
        // Models put their root at the origin, often with legs below it: lift each so its
        // lowest collider touches the ground plane added below.
        let lowest = load(file, &LoadOptions::default())
            .ok()
            .and_then(|(world, model)| lowest_point(&world, &model));
        let mut options = LoadOptions::default();
        if let Some(z) = lowest.filter(|z| *z < 0.0) {
            options.base_pose.position.z = -z;
        }
        match load(file, &options) {
            Ok((mut world, model)) => {
                let load_ms = started.elapsed().as_secs_f64() * 1e3;
                let _ = world.add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None);
                let solver = match std::env::var("CHECK_SOLVER").as_deref() {
                    Ok("iterative") => Solver::iterative(),
                    _ => Solver::default(),
                };
                let _ = world.set_solver(solver);
                let h = model.timestep.unwrap_or(1.0 / 240.0);
                let steps = (0.5 / h).round() as usize;
                // Stop a file after 5 s of wall time: this is a survey, not a benchmark.
                let mut stepped = 0;
                let mut outcome = Ok(());
                let names: std::collections::HashMap<_, _> =
                    model.links.iter().map(|(n, h)| (*h, n.clone())).collect();
                for _ in 0..steps {
                    if started.elapsed().as_secs() >= 5 {
                        break;
                    }
                    stepped += 1;
                    match world.step(h) {
                        Ok(s) if std::env::var_os("CHECK_VERBOSE").is_some() => eprintln!(
                            "rows {} contacts {} pivots {} sweeps {} fallbacks {} unsolved {} residual {:.1e}",
                            s.rows, s.contacts, s.pivots, s.sweeps, s.fallbacks,
                            s.unsolved_islands, s.worst_residual
                        ),
                        Ok(_) => {}
                        Err(e) => {
                            outcome = Err(e);
                            break;
                        }
                    }
                    if std::env::var_os("CHECK_PAIRS").is_some() {
                        let mut pairs = std::collections::BTreeMap::new();
                        for c in world.contacts() {
                            let [a, b] = c.geometry.bodies.map(|b| {
                                b.and_then(|b| names.get(&b).cloned()).unwrap_or_default()
                            });
                            *pairs.entry((a, b)).or_insert(0) += 1;
                        }
                        eprintln!("{pairs:?}");
                    }
                }
                let step_ms =
                    (started.elapsed().as_secs_f64() * 1e3 - load_ms) / stepped.max(1) as f64;
                let separation = world.max_joint_anchor_separation();
                loaded += 1;
                println!(
                    "ok    {}: {} bodies, {} joints, {} warnings, load {load_ms:.0} ms, {}",
                    file.display(),
                    world.body_count(),
                    world.joint_count(),
                    model.warnings.len(),
                    match outcome {
                        Ok(()) => format!(
                            "{stepped}/{steps} steps at {step_ms:.2} ms, worst joint separation {separation:.1e} m"
                        ),
                        Err(e) => format!("step failed: {e}"),
                    }
                );
            }
            Err(e) => {
                failed += 1;
                println!("error {e}");
            }
        }
    }
    println!("{loaded} loaded, {failed} refused");
}
