//! `stiction stress`: long runs of the contact scenes that check the engine's invariants after
//! every step, for the failures a short test never reaches (slow drift, a solver breaking
//! down after thousands of warm starts, energy crept in by the contact corrections).
//!
//! Three scenes, built by [`stiction::scenes`] like `stiction bench`:
//! - S4 stack-20 for 30,000 steps (ten times the benchmark), with both steppers;
//! - S1 pyramid-20 for 6,000 steps (ten times the benchmark), with the iterative stepper
//!   (`--solver exact --scene s1` runs the exact one, at about 10 ms a step);
//! - a pile of 5,000 spheres ([`scenes::sphere_pile`] 25 x 25 x 8, five times S2) for 1,200
//!   steps, with the iterative stepper only: once the layers have landed the pile is one
//!   island of tens of thousands of rows, beyond the exact stepper's dense solve.
//!   `--solver exact --scene pile` runs it anyway, but slowly: measured 2026-11-22, the
//!   first 40 steps (before the layers touch) took 1.1 s, 60 steps did not finish in 150 s.
//!
//! After every step it checks, stopping that run at the first violation:
//! - the step was accepted (a refused step is a failure);
//! - every body's position, orientation and velocities are finite;
//! - no body has escaped: its centre is above the ground and, in the pile, inside the
//!   container's inner faces. A body may sink into the ground for a step or two (a sphere
//!   of the pile lands at up to 13 m/s, 22 cm per step, and is pushed out over the next
//!   steps), but once its centre is through a surface the contact pushes it out the other
//!   side: that is a body lost, not a deep contact. The deepest penetration is reported;
//! - the energy (kinetic + gravitational) never exceeds its initial value by more than the
//!   work of lifting every body by [`ENERGY_LIFT`]: a closed system with inelastic contacts
//!   only loses energy, so a rise beyond what the position corrections of a 0.1 mm
//!   penetration can give is energy the solver made up;
//! - a structure built at rest stays at rest: the top box of S4 and S1 stays within
//!   [`STACK_REST_DRIFT`] and [`PYRAMID_REST_DRIFT`] of its start, horizontally. A stack
//!   that falls loses far more energy than it can gain, so the energy check alone passed a
//!   fallen tower; and a slow sway that grows (a solver feeding a rocking mode) breaks no
//!   other invariant.
//!
//! Exit status 0 when every run kept every invariant, 1 when one did not (the step and the
//! invariant are printed), 2 for bad options.

use std::time::Instant;

use clap::{Args, ValueEnum};
use serde::Serialize;
use stiction::scenes::{self, Scene};
use stiction::{BodyHandle, Solver, World};

use crate::bench::BenchSolver;
use crate::error::CliError;
use crate::output::OutputArgs;
use crate::readable::{number, vector};
use crate::run::measure::measure;
use crate::run::record::max_penetration;
use crate::run::{median, Progress};
use crate::step_error;

/// How high every body may be lifted, in energy terms, before a rise of the energy fails the
/// run, m: a hundred times the 0.1 mm penetration the post-stabilisation leaves, far below
/// anything that looks wrong on screen.
pub const ENERGY_LIFT: f64 = 0.01;

/// Steps of the S4 run.
pub const STACK_STEPS: usize = 30_000;
/// Steps of the S1 run.
pub const PYRAMID_STEPS: usize = 6_000;
/// How far S4's top box may move horizontally from its start, m: 1 % of the boxes' edge.
/// Measured (2026-11-25): exact 2e-12 m, iterative 3.8 mm after 30,000 steps.
pub const STACK_REST_DRIFT: f64 = 0.01;
/// How far S1's top box may move horizontally from its start, m. Measured (2026-11-25,
/// 6,000 iterative steps): within 1.8 mm; the sway an experimental contact CFM fed
/// (docs/benchmarks-history.md, sixth session) took it past 5 mm at step 2,645 and to 9.8 mm.
pub const PYRAMID_REST_DRIFT: f64 = 0.005;
/// Spheres along each horizontal side of the pile.
pub const PILE_SIDE: usize = 25;
/// Layers of the pile (25 x 25 x 8 = 5,000 spheres).
pub const PILE_LAYERS: usize = 8;
/// Steps of the pile run (20 simulated seconds: it has long come to rest).
pub const PILE_STEPS: usize = 1_200;

/// Arguments of `stiction stress`.
#[derive(Debug, Args)]
#[command(after_help = STRESS_AFTER)]
pub struct StressArgs {
    /// Only this scene [default: all three]; any case (`S4` or `s4`).
    #[arg(long, value_enum, ignore_case = true)]
    pub scene: Option<StressScene>,
    /// Stepper(s); `both` runs the pile with the iterative stepper only.
    #[arg(long, value_enum, default_value_t = BenchSolver::Both)]
    pub solver: BenchSolver,
    /// Steps per run instead of each scene's own (S4: 30000, S1: 6000, pile: 1200).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub steps: Option<u64>,
    /// Continuous collision on every dynamic body (`RigidBody::set_ccd_enabled`): the
    /// pile's landings then measure how deep fast spheres get.
    #[arg(long)]
    pub ccd: bool,
    #[command(flatten)]
    pub output: OutputArgs,
}

const STRESS_AFTER: &str = "\
Checks after every step: the step was accepted; every position, orientation and velocity is \
finite; no body's centre is below the ground or outside the walls; the energy \
(kinetic + gravitational) never exceeds its start by more than lifting every body 1 cm; the top box of S4 stays within 1 cm of its start horizontally, S1's within 5 mm.

Exit status: 0 every run kept every invariant; 1 one did not (printed with the step in the \
table, and as one `error: ` line per broken run on stderr, also with --quiet and --json); \
2 bad options.";

/// The scenes `stiction stress` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StressScene {
    /// S4 stack-20, 30000 steps.
    S4,
    /// S1 pyramid-20, 6000 steps.
    S1,
    /// 5000 spheres falling into a walled container, 1200 steps.
    Pile,
}

/// One run's figures.
#[derive(Debug, Clone, Serialize)]
pub struct StressRow {
    /// e.g. `S4 stack-20`.
    pub scene: String,
    /// The stepper, `exact` or `iterative`.
    pub solver: String,
    /// Dynamic bodies.
    pub bodies: usize,
    /// Steps asked for.
    pub steps: usize,
    /// Steps that kept every invariant.
    pub steps_done: usize,
    /// Wall time of the run, invariant checks included, s.
    pub wall_seconds: f64,
    /// Mean wall time of a step (the engine's own timing), ms.
    pub mean_step_ms: f64,
    /// Median wall time of a step, ms.
    pub median_step_ms: f64,
    /// The largest `E(t) - E(0)` over the steps, J (negative: the energy never rose).
    pub max_energy_rise: f64,
    /// The allowed rise, J.
    pub energy_tolerance: f64,
    /// The deepest contact penetration of any step, m (landing impacts included).
    pub max_penetration: f64,
    /// The deepest contact penetration after the last step, m (at rest, for these scenes).
    pub final_penetration: f64,
    /// S4: horizontal distance the top box moved, at the end, m.
    pub top_drift: Option<f64>,
    /// S4: the largest horizontal distance the top box was from its start, m.
    pub max_top_drift: Option<f64>,
    /// S4: the top box's height change at the end, m.
    pub top_height_error: Option<f64>,
    /// Island solves the exact stepper handed to Gauss-Seidel, over all steps.
    pub fallbacks: usize,
    /// Steps with an island not solved to tolerance.
    pub steps_with_unsolved_islands: usize,
    /// The first broken invariant, if any.
    pub violation: Option<Violation>,
}

/// A broken invariant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Violation {
    /// The step after which it was found (1-based).
    pub step: usize,
    /// Which invariant: `step failed`, `non-finite state`, `below the ground`,
    /// `through a wall`, `energy rise` or `not at rest`.
    pub invariant: &'static str,
    /// The numbers.
    pub detail: String,
}

/// `stiction stress`.
pub fn stress(args: StressArgs) -> Result<std::process::ExitCode, CliError> {
    let scenes = match args.scene {
        Some(scene) => vec![scene],
        None => vec![StressScene::S4, StressScene::S1, StressScene::Pile],
    };
    let steps = args.steps.map(|n| n as usize);
    let mut rows = Vec::new();
    for scene in scenes {
        for solver in solvers(scene, args.solver) {
            let mut label = solver_name(&solver).to_string();
            let mut built = build(scene, solver).map_err(|e| CliError::Usage {
                option: "--scene",
                rule: format!("the engine could not build the scene: {e}"),
            })?;
            if args.ccd {
                for &body in &built.bodies {
                    if let Ok(b) = built.world.body_mut(body) {
                        b.set_ccd_enabled(true);
                    }
                }
                label.push_str(", CCD");
            }
            rows.push(stress_run(
                scene,
                built,
                &label,
                steps,
                args.output.show_progress(),
            ));
        }
    }
    args.output.print_summary(&rows, &table(&rows));
    let broken: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            let v = r.violation.as_ref()?;
            Some(format!(
                "{} ({}): step {}: {}: {}",
                r.scene, r.solver, v.step, v.invariant, v.detail
            ))
        })
        .collect();
    // Every broken run but the last gets its own line here; the last one is main's
    // `error: ` line, so stderr has one line per broken run.
    if let Some((last, others)) = broken.split_last() {
        for line in others {
            eprintln!("error: {line}");
        }
        return Err(CliError::Failed(last.clone()));
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// The steppers a scene runs with: the pile runs the exact stepper only when asked for alone.
fn solvers(scene: StressScene, choice: BenchSolver) -> Vec<Solver> {
    match (scene, choice) {
        (_, BenchSolver::Exact) => vec![Solver::exact()],
        (_, BenchSolver::Iterative) | (StressScene::Pile | StressScene::S1, BenchSolver::Both) => {
            vec![Solver::iterative()]
        }
        (StressScene::S4, BenchSolver::Both) => vec![Solver::exact(), Solver::iterative()],
    }
}

fn solver_name(solver: &Solver) -> &'static str {
    match solver {
        Solver::Exact(_) => "exact",
        _ => "iterative",
    }
}

fn build(scene: StressScene, solver: Solver) -> Result<Scene, stiction::WorldError> {
    match scene {
        StressScene::S4 => scenes::stack_20(solver),
        StressScene::S1 => scenes::pyramid_20(solver),
        StressScene::Pile => {
            scenes::sphere_pile(PILE_SIDE, PILE_LAYERS, scenes::scene_settings(solver))
        }
    }
}

/// Steps `scene`, checking the invariants after every step.
fn stress_run(
    which: StressScene,
    mut scene: Scene,
    solver: &str,
    steps: Option<usize>,
    progress: bool,
) -> StressRow {
    let (label, default_steps, walls, rest_drift) = match which {
        StressScene::S4 => ("S4 stack-20", STACK_STEPS, None, Some(STACK_REST_DRIFT)),
        StressScene::S1 => (
            "S1 pyramid-20",
            PYRAMID_STEPS,
            None,
            Some(PYRAMID_REST_DRIFT),
        ),
        StressScene::Pile => (
            "pile-5000",
            PILE_STEPS,
            Some(scenes::sphere_pile_half_width(PILE_SIDE)),
            None,
        ),
    };
    let steps = steps.unwrap_or(default_steps);
    let guard = Guard::new(&scene.world, walls);
    // The top box of S4 and S1, the last body each builds (the pile's last sphere is no
    // landmark).
    let top = scene
        .bodies
        .last()
        .copied()
        .filter(|_| rest_drift.is_some());
    let top_position = |world: &World| top.and_then(|b| world.body(b).ok()).map(|b| b.position());
    let top_start = top_position(&scene.world);
    let mut row = StressRow {
        scene: label.to_string(),
        solver: solver.to_string(),
        bodies: scene.bodies.len(),
        steps,
        steps_done: 0,
        wall_seconds: 0.0,
        mean_step_ms: 0.0,
        median_step_ms: 0.0,
        max_energy_rise: f64::NEG_INFINITY,
        energy_tolerance: guard.energy_tolerance,
        max_penetration: 0.0,
        final_penetration: 0.0,
        top_drift: None,
        max_top_drift: None,
        top_height_error: None,
        fallbacks: 0,
        steps_with_unsolved_islands: 0,
        violation: None,
    };
    let mut step_ms = Vec::with_capacity(steps);
    let bar = Progress::new(steps as u64, progress);
    let started = Instant::now();
    for step in 1..=steps {
        let clock = Instant::now();
        let stepped = scene.world.step(scene.h);
        let took = clock.elapsed();
        let stats = match stepped {
            Ok(stats) => stats,
            Err(e) => {
                row.violation = Some(Violation {
                    step,
                    invariant: "step failed",
                    detail: step_error::describe(
                        &e,
                        |h| step_error::listed(&scene.bodies, h),
                        |h| step_error::listed(&scene.joints, h),
                    ),
                });
                break;
            }
        };
        step_ms.push(took.as_secs_f64() * 1e3);
        row.fallbacks += stats.fallbacks;
        row.steps_with_unsolved_islands += usize::from(stats.unsolved_islands > 0);
        let rise = guard.energy_rise(&scene.world);
        row.max_energy_rise = row.max_energy_rise.max(rise);
        row.final_penetration = max_penetration(&scene.world);
        row.max_penetration = row.max_penetration.max(row.final_penetration);
        let drift = top_start
            .zip(top_position(&scene.world))
            .map(|(start, now)| (now - start).truncate().length());
        if let Some(d) = drift {
            row.max_top_drift = Some(row.max_top_drift.map_or(d, |m: f64| m.max(d)));
        }
        let checked = guard
            .check(&scene.world, &scene.bodies, rise)
            .and_then(|()| at_rest(drift, rest_drift));
        if let Err((invariant, detail)) = checked {
            row.violation = Some(Violation {
                step,
                invariant,
                detail,
            });
            break;
        }
        row.steps_done = step;
        bar.tick(step as u64, started.elapsed());
    }
    bar.finish();
    row.wall_seconds = started.elapsed().as_secs_f64();
    if !step_ms.is_empty() {
        row.mean_step_ms = step_ms.iter().sum::<f64>() / step_ms.len() as f64;
    }
    row.median_step_ms = median(&mut step_ms);
    if let (Some(start), Some(end)) = (top_start, top_position(&scene.world)) {
        row.top_drift = Some((end - start).truncate().length());
        row.top_height_error = Some(end.z - start.z);
    }
    row
}

/// Whether the top box's horizontal drift `drift` (m) is within `limit`, if both are known.
fn at_rest(drift: Option<f64>, limit: Option<f64>) -> Result<(), (&'static str, String)> {
    match (drift, limit) {
        (Some(d), Some(limit)) if d.is_nan() || d > limit => Err((
            "not at rest",
            format!("the top box moved {d:.3e} m horizontally (allowed {limit:.3e} m)"),
        )),
        _ => Ok(()),
    }
}

/// The invariants of one run, with the initial energy they compare against.
struct Guard {
    /// Energy at step 0, J.
    initial_energy: f64,
    /// The largest rise allowed, J.
    energy_tolerance: f64,
    /// The container's inner half width, m, if it has walls.
    walls: Option<f64>,
}

impl Guard {
    fn new(world: &World, walls: Option<f64>) -> Self {
        let g = world.settings().gravity.length();
        let weight: f64 = world
            .bodies()
            .filter(|(_, b)| b.is_dynamic() && b.gravity_enabled())
            .map(|(_, b)| b.mass() * g)
            .sum();
        Self {
            initial_energy: measure(world).energy(),
            energy_tolerance: weight * ENERGY_LIFT,
            walls,
        }
    }

    /// `E(t) - E(0)`, J.
    fn energy_rise(&self, world: &World) -> f64 {
        measure(world).energy() - self.initial_energy
    }

    /// The first broken invariant among `bodies` (numbered in scene order in the message),
    /// as (name, numbers).
    fn check(
        &self,
        world: &World,
        bodies: &[BodyHandle],
        rise: f64,
    ) -> Result<(), (&'static str, String)> {
        for (i, &handle) in bodies.iter().enumerate() {
            let Ok(body) = world.body(handle) else {
                return Err(("non-finite state", format!("body {i} is gone")));
            };
            let (x, q) = (body.position(), body.orientation());
            let (v, w) = (body.linear_velocity(), body.angular_velocity());
            if !(x.is_finite() && q.is_finite() && v.is_finite() && w.is_finite()) {
                return Err((
                    "non-finite state",
                    format!(
                        "body {i}: position {}, orientation {q}, velocity {}, angular velocity {}",
                        vector(x.to_array()),
                        vector(v.to_array()),
                        vector(w.to_array())
                    ),
                ));
            }
            if x.z < 0.0 {
                return Err((
                    "below the ground",
                    format!(
                        "body {i}: centre at {}, below the ground z = 0",
                        vector(x.to_array())
                    ),
                ));
            }
            if let Some(half_width) = self.walls {
                if x.x.abs().max(x.y.abs()) > half_width {
                    return Err((
                        "through a wall",
                        format!(
                            "body {i}: centre at {}, outside the walls at x, y = +-{} m",
                            vector(x.to_array()),
                            number(half_width)
                        ),
                    ));
                }
            }
        }
        // A NaN energy fails too.
        if rise.is_nan() || rise > self.energy_tolerance {
            return Err((
                "energy rise",
                format!(
                    "energy {} J is {} J above its start {} J (allowed {} J)",
                    number(self.initial_energy + rise),
                    number(rise),
                    number(self.initial_energy),
                    number(self.energy_tolerance)
                ),
            ));
        }
        Ok(())
    }
}

/// The markdown table printed without `--json`.
fn table(rows: &[StressRow]) -> Vec<String> {
    let mut lines = vec![
        "| scene | solver | steps | wall s | mean ms/step | max energy rise (J) | max penetration (m) | top drift (m) | fallbacks | result |".to_string(),
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |".to_string(),
    ];
    for r in rows {
        let result = match &r.violation {
            None => "pass".to_string(),
            Some(v) => format!("FAIL at step {}: {}: {}", v.step, v.invariant, v.detail),
        };
        let drift = r.top_drift.map_or("-".to_string(), |d| format!("{d:.3e}"));
        lines.push(format!(
            "| {} | {} | {}/{} | {:.1} | {:.3} | {:.3e} (allowed {:.3}) | {:.3e} | {} | {} | {} |",
            r.scene,
            r.solver,
            r.steps_done,
            r.steps,
            r.wall_seconds,
            r.mean_step_ms,
            r.max_energy_rise,
            r.energy_tolerance,
            r.max_penetration,
            drift,
            r.fallbacks,
            result
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use stiction::math::Vec3;

    #[test]
    fn a_resting_stack_keeps_every_invariant_and_a_sunk_or_launched_box_does_not() {
        let mut scene = scenes::stack(2, scenes::scene_settings(Solver::exact())).unwrap();
        let guard = Guard::new(&scene.world, None);
        // 2 kg of boxes: the allowed rise is lifting them 1 cm.
        assert!((guard.energy_tolerance - 2.0 * 9.81 * ENERGY_LIFT).abs() < 1e-12);
        let check = |scene: &Scene| {
            let rise = guard.energy_rise(&scene.world);
            guard
                .check(&scene.world, &scene.bodies, rise)
                .map(|()| rise)
        };
        assert_eq!(check(&scene), Ok(0.0));

        let bottom = scene.bodies[0];
        let body = scene.world.body_mut(bottom).unwrap();
        body.set_position(Vec3::new(0.0, 0.0, -0.01)).unwrap();
        let (name, detail) = check(&scene).unwrap_err();
        assert_eq!(name, "below the ground");
        assert!(detail.starts_with("body 0: "), "{detail}");

        // Back in place, but moving up at 1 m/s: 0.5 J of kinetic energy against an
        // allowance of 0.196 J.
        let body = scene.world.body_mut(bottom).unwrap();
        body.set_position(Vec3::new(0.0, 0.0, 0.5)).unwrap();
        body.set_linear_velocity(Vec3::Z).unwrap();
        let rise = guard.energy_rise(&scene.world);
        assert!((rise - 0.5).abs() < 1e-12, "{rise}");
        assert_eq!(check(&scene).unwrap_err().0, "energy rise");
        // At 0.4 m/s (0.08 J) it is within the allowance.
        let body = scene.world.body_mut(bottom).unwrap();
        body.set_linear_velocity(0.4 * Vec3::Z).unwrap();
        assert!(check(&scene).is_ok());
    }

    #[test]
    fn a_sphere_past_a_wall_is_caught() {
        let mut scene =
            scenes::sphere_pile(2, 1, scenes::scene_settings(Solver::iterative())).unwrap();
        let half_width = scenes::sphere_pile_half_width(2);
        let guard = Guard::new(&scene.world, Some(half_width));
        assert_eq!(guard.check(&scene.world, &scene.bodies, 0.0), Ok(()));
        let body = scene.world.body_mut(scene.bodies[1]).unwrap();
        body.set_position(Vec3::new(0.0, -half_width - 0.01, 1.0))
            .unwrap();
        let (name, detail) = guard.check(&scene.world, &scene.bodies, 0.0).unwrap_err();
        assert_eq!(name, "through a wall");
        assert!(detail.starts_with("body 1: "), "{detail}");
    }

    #[test]
    fn a_top_box_beyond_its_rest_drift_is_caught() {
        assert_eq!(at_rest(Some(0.004), Some(PYRAMID_REST_DRIFT)), Ok(()));
        let (name, detail) = at_rest(Some(0.006), Some(PYRAMID_REST_DRIFT)).unwrap_err();
        assert_eq!(name, "not at rest");
        assert!(detail.contains("6.000e-3 m"), "{detail}");
        // A non-finite drift is not at rest either; no landmark or no limit checks nothing.
        assert!(at_rest(Some(f64::NAN), Some(STACK_REST_DRIFT)).is_err());
        assert_eq!(at_rest(None, Some(STACK_REST_DRIFT)), Ok(()));
        assert_eq!(at_rest(Some(1.0), None), Ok(()));
    }
}
