//! Where the exact stepper's dense Dantzig and its sparse active-set solver each win: runs
//! resting stacks and pyramids and landing sphere piles with every island dense, with the
//! default split (`ExactSettings::dense_row_limit`) and with every island sparse, and
//! prints the median and mean ms/step, the largest island, the Gauss-Seidel fallbacks and
//! how far the top body moved (the same in all three when both solvers are exact).
//!
//! ```text
//! cargo run --release -p stiction --example dense_row_limit [stacks|piles]
//! ```

use std::time::Instant;
use stiction::scenes::{pyramid, scene_settings, sphere_pile, stack, Scene};
use stiction::{ExactSettings, Solver};

fn run(label: &str, build: &dyn Fn(Solver) -> Scene, steps: usize) {
    let default = ExactSettings::default().dense_row_limit;
    for limit in [usize::MAX, default, 0] {
        let solver = Solver::Exact(ExactSettings {
            dense_row_limit: limit,
            ..Default::default()
        });
        let mut scene = build(solver);
        let Some(top) = scene
            .world
            .bodies()
            .max_by(|a, b| a.1.position().z.total_cmp(&b.1.position().z))
            .map(|(handle, _)| handle)
        else {
            return;
        };
        let height = |scene: &Scene| scene.world.body(top).map(|b| b.position());
        let start = height(&scene);
        let mut times = Vec::with_capacity(steps);
        let (mut rows, mut fallbacks) = (0, 0);
        for _ in 0..steps {
            let clock = Instant::now();
            match scene.world.step(scene.h) {
                Ok(stats) => {
                    rows = rows.max(stats.rows);
                    fallbacks += stats.fallbacks;
                }
                Err(e) => {
                    println!("{label}: {e}");
                    return;
                }
            }
            times.push(clock.elapsed().as_secs_f64() * 1e3);
        }
        let mean = times.iter().sum::<f64>() / steps as f64;
        times.sort_by(f64::total_cmp);
        let moved = match (start, height(&scene)) {
            (Ok(a), Ok(b)) => (b - a).length(),
            _ => f64::NAN,
        };
        let limit = if limit == usize::MAX {
            "all dense".to_string()
        } else {
            format!("limit {limit}")
        };
        println!(
            "{label:12} {limit:>10}: {:.4} ms/step median, {mean:.4} mean, largest {rows} rows, \
             {fallbacks} fallbacks, top moved {moved:.3e} m",
            times[steps / 2]
        );
    }
}

fn main() {
    let only = std::env::args().nth(1).unwrap_or_default();
    if only.is_empty() || only == "stacks" {
        for n in [2usize, 5, 10, 20] {
            let build = |s| stack(n, scene_settings(s)).expect("stack builds");
            run(&format!("stack {n}"), &build, 600);
        }
        for n in [3usize, 5] {
            let build = |s| pyramid(n, scene_settings(s)).expect("pyramid builds");
            run(&format!("pyramid {n}"), &build, 300);
        }
    }
    if only.is_empty() || only == "piles" {
        for (side, layers) in [(2usize, 2usize), (3, 2), (3, 3), (4, 3)] {
            let build = |s| sphere_pile(side, layers, scene_settings(s)).expect("pile builds");
            run(&format!("pile {side}x{layers}"), &build, 300);
        }
    }
}
