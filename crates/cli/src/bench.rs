//! `stiction bench`: the benchmark scenes S1-S5 (docs/scenes.md), built by the engine's shared
//! scene module ([`stiction::scenes`], the single source used by the engine's tests too),
//! timed per step, with the quality figures each scene asks for, as a markdown table; or a
//! scene file or robot model (`stiction bench ROBOT.urdf`), loaded as `stiction run` loads
//! it, timed the same way with general figures (penetration, joint error, energy).

use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, ValueEnum};
use serde::Serialize;
use stiction::math::Vec3;
use stiction::scenes::{self, Scene};
use stiction::{GyroscopicMode, IterativeSettings, Solver};

use crate::error::CliError;
use crate::model::ModelArgs;
use crate::output::OutputArgs;
use crate::run::{self, median, Overrides, SolverChoice};
use crate::scene::BuiltScene;
use crate::step_error;

/// Arguments of `stiction bench`.
#[derive(Debug, Args)]
#[command(after_help = BENCH_AFTER)]
pub struct BenchArgs {
    /// A scene file (.toml, .json, or a built-in scene's name) or a robot model (.urdf, .xml)
    /// to time instead of the benchmark scenes.
    #[arg(value_name = "SCENE", conflicts_with = "scene")]
    pub input: Option<PathBuf>,
    /// Only this scene [default: all five]; any case (`S4` or `s4`).
    #[arg(long, value_enum, ignore_case = true)]
    pub scene: Option<BenchScene>,
    /// Stepper(s) for the scenes with constraints (S5 runs every gyroscopic mode instead).
    #[arg(long, value_enum, default_value_t = BenchSolver::Both)]
    pub solver: BenchSolver,
    /// Steps per scene instead of the scene's own count (for a quick look).
    #[arg(long, value_name = "N")]
    pub steps: Option<usize>,
    /// Gauss-Seidel sweeps per step of the iterative stepper instead of its 20 (or a scene
    /// file's own count): the accuracy knob of the work-precision curves. Its runs are then
    /// named `iterative, N sweeps`; S5, which has no constraints, runs as without it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub sweeps: Option<u32>,
    /// Also print each run's mean time per step phase (collision, rows, solve, ...). The
    /// phases are then timed in every step, and the clock's reads (about half a
    /// microsecond a step) count in the step times.
    #[arg(long)]
    pub phases: bool,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

const BENCH_AFTER: &str = "\
Without SCENE: the benchmark scenes S1-S5 (docs/scenes.md), each with its own quality figures.

With SCENE (a scene file, a built-in scene's name or a robot model, loaded as `stiction run` \
loads it, model options included): its steps (or --steps) timed with each stepper of \
--solver, and as quality the deepest penetration and the largest joint error after the last \
step and the change of energy over the run. Nothing is written.

Exit status: 0 done; 1 a step failed (the table still shows every run); 2 bad input.";

/// The benchmark scenes (docs/scenes.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchScene {
    /// S1 pyramid-20.
    S1,
    /// S2 sphere pile.
    S2,
    /// S3 chain-100.
    S3,
    /// S4 stack-20.
    S4,
    /// S5 spinner.
    S5,
}

/// `--solver` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchSolver {
    /// Dantzig pivoting.
    Exact,
    /// Projected Gauss-Seidel, 20 sweeps.
    Iterative,
    /// Both, one row each.
    Both,
}

/// One line of the table.
#[derive(Debug, Clone, Serialize)]
pub struct BenchRow {
    /// e.g. `S3 chain-100`.
    pub scene: String,
    /// Stepper or gyroscopic mode.
    pub variant: String,
    /// Steps run.
    pub steps: usize,
    /// Median wall time of a step, ms (`None` if not run).
    pub median_ms: Option<f64>,
    /// Quality figures, `(name, value)`.
    pub quality: Vec<(String, f64)>,
    /// Solver work per step, averaged over the steps run: counts that, unlike the times,
    /// do not depend on the machine or its load.
    pub work: Work,
    /// Why the run stopped early (a failed step), if it did.
    pub blocked: Option<String>,
}

/// Solver work per step (means over the steps run).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Work {
    /// Gauss-Seidel row updates of the velocity solve (sweeps times island rows; the
    /// iterative stepper only).
    pub velocity_row_updates: f64,
    /// Dantzig pivots and sparse active-set iterations, with any fallback's sweeps (the
    /// exact stepper only).
    pub pivots: f64,
    /// Islands of bilateral rows only solved by one factorisation instead
    /// (`stiction::StepStats::direct_islands`, either stepper).
    pub direct_islands: f64,
    /// Gauss-Seidel row updates of post-stabilisation.
    pub projection_row_updates: f64,
    /// Island solves that fell back to Gauss-Seidel, in all.
    pub fallbacks: usize,
    /// Island solves that ended short of their tolerance, in all.
    pub unsolved_islands: usize,
    /// The largest island residual of any step (the solvers' normalised residual).
    pub worst_residual: f64,
    /// The 90th percentile of the step times, ms.
    pub p90_ms: f64,
    /// The slowest step, ms.
    pub worst_ms: f64,
    /// Mean time per step of each phase, ms (`stiction::PhaseTimes`, in [`PHASES`] order).
    pub phase_ms: [f64; PHASES.len()],
}

/// The step phases timed in [`Work::phase_ms`], as the `--phases` table heads them.
pub const PHASES: [&str; 7] = [
    "collision",
    "forces",
    "rows",
    "islands",
    "solve",
    "velocities and integration",
    "post-stabilisation",
];

impl Work {
    /// Adds one step's statistics.
    fn add(&mut self, stats: &stiction::StepStats, iterative: bool) {
        if iterative {
            for island in &stats.island_reports {
                self.velocity_row_updates += (island.rows * island.iterations) as f64;
            }
        } else {
            self.pivots += stats.pivots as f64;
        }
        self.direct_islands += stats.direct_islands as f64;
        self.projection_row_updates += stats.post_stabilization.row_updates as f64;
        self.fallbacks += stats.fallbacks;
        self.unsolved_islands += stats.unsolved_islands;
        // A NaN residual counts as the worst (f64::max would drop it).
        if stats.worst_residual > self.worst_residual || stats.worst_residual.is_nan() {
            self.worst_residual = stats.worst_residual;
        }
        let t = &stats.times;
        let phases = [
            t.collision,
            t.forces,
            t.rows,
            t.islands,
            t.solve,
            t.integration,
            t.post_stabilization,
        ];
        for (sum, phase) in self.phase_ms.iter_mut().zip(phases) {
            *sum += phase.as_secs_f64() * 1e3;
        }
    }

    /// Turns the sums of `steps` steps into means.
    fn per_step(mut self, steps: usize) -> Self {
        let n = steps.max(1) as f64;
        self.velocity_row_updates /= n;
        self.pivots /= n;
        self.direct_islands /= n;
        self.projection_row_updates /= n;
        for phase in &mut self.phase_ms {
            *phase /= n;
        }
        self
    }

    fn describe(&self, iterative: bool) -> String {
        let mut projection = format!("projection {:.0} updates", self.projection_row_updates);
        if self.direct_islands > 0.0 {
            projection = format!("{:.1} islands factored, {projection}", self.direct_islands);
        }
        if iterative {
            format!(
                "velocity {:.0} updates, {projection}",
                self.velocity_row_updates
            )
        } else {
            format!(
                "{:.1} pivots, {projection}, {} fallbacks, {} islands short of tolerance, worst residual {:.1e}",
                self.pivots, self.fallbacks, self.unsolved_islands, self.worst_residual
            )
        }
    }
}

/// `stiction bench`.
pub fn bench(args: BenchArgs) -> Result<std::process::ExitCode, CliError> {
    if args.sweeps.is_some() && args.solver == BenchSolver::Exact {
        return Err(CliError::Usage {
            option: "--sweeps",
            rule: "sets the iterative stepper's sweeps, and --solver exact runs no iterative \
                   stepper"
                .into(),
        });
    }
    let rows = match &args.input {
        Some(input) => file_rows(input, &args)?,
        None => {
            args.model.check_scene()?;
            benchmark_rows(&args)?
        }
    };
    let mut lines = table(&rows);
    if args.phases {
        lines.push(String::new());
        lines.extend(phase_table(&rows));
    }
    args.output.print_summary(&rows, &lines);
    let stopped: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            Some(format!(
                "{} ({}): {}",
                r.scene,
                r.variant,
                r.blocked.as_ref()?
            ))
        })
        .collect();
    // One `error: ` line per stopped run on stderr, the last one main's, as stress does.
    if let Some((last, others)) = stopped.split_last() {
        for line in others {
            eprintln!("error: {line}");
        }
        return Err(CliError::Failed(last.clone()));
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// One row per stepper of `--solver` for the scene file or robot model `input`, loaded as
/// `stiction run` loads it (its warnings printed once).
fn file_rows(input: &std::path::Path, args: &BenchArgs) -> Result<Vec<BenchRow>, CliError> {
    let solvers: &[(&str, SolverChoice)] = match args.solver {
        BenchSolver::Exact => &[("exact", SolverChoice::Exact)],
        BenchSolver::Iterative => &[("iterative", SolverChoice::Iterative)],
        BenchSolver::Both => &[
            ("exact", SolverChoice::Exact),
            ("iterative", SolverChoice::Iterative),
        ],
    };
    let mut rows = Vec::new();
    for (k, &(name, solver)) in solvers.iter().enumerate() {
        let overrides = Overrides {
            solver: Some(solver),
            ..Overrides::default()
        };
        // The loader's warnings once, not once per stepper.
        let output = if k == 0 {
            args.output
        } else {
            OutputArgs {
                quiet: true,
                json: false,
            }
        };
        let (_, mut built) = run::prepare_input(input, &args.model, &overrides, &output)?;
        built.world.set_time_phases(args.phases);
        let name = match (args.sweeps, &built.world.settings().solver) {
            (Some(sweeps), Solver::Iterative(settings)) => {
                let (name, solver) = at_sweeps(*settings, sweeps);
                built
                    .world
                    .set_solver(solver)
                    .map_err(|e| CliError::Usage {
                        option: "--sweeps",
                        rule: format!("the engine refused the setting: {e}"),
                    })?;
                name
            }
            _ => name.to_string(),
        };
        rows.push(scene_row(built, &name, args.steps));
    }
    Ok(rows)
}

/// Times a scene file's (or model's) steps; quality: penetration and joint error after the
/// last step, and the energy change of the run.
fn scene_row(mut built: BuiltScene, solver: &str, steps: Option<usize>) -> BenchRow {
    let steps = steps.unwrap_or(usize::try_from(built.steps).unwrap_or(usize::MAX));
    let energy = |world: &stiction::World| run::measure::measure(world).energy();
    let start = energy(&built.world);
    let (timed, work) = {
        let (world, h) = (&mut built.world, built.h);
        let (bodies, joints) = (&built.bodies, &built.joints);
        time_world(world, h, steps, |e| {
            step_error::describe(
                e,
                |h| {
                    let body = bodies.iter().find(|b| b.handle == h);
                    step_error::named(h, body.map(|b| b.name.as_str()))
                },
                |h| {
                    let joint = joints.iter().find(|j| j.handle == h);
                    step_error::named(h, joint.map(|j| j.name.as_str()))
                },
            )
        })
    };
    BenchRow {
        scene: built.name.clone(),
        variant: solver.to_string(),
        steps,
        median_ms: timed.as_ref().ok().copied(),
        work,
        quality: vec![
            (
                "max penetration (m)".to_string(),
                crate::run::record::max_penetration(&built.world),
            ),
            (
                "max joint separation (m)".to_string(),
                built.world.max_joint_anchor_separation(),
            ),
            (
                "energy change (J)".to_string(),
                energy(&built.world) - start,
            ),
        ],
        blocked: timed.err(),
    }
}

/// The rows of the benchmark scenes S1-S5 (`--scene` picks one).
fn benchmark_rows(args: &BenchArgs) -> Result<Vec<BenchRow>, CliError> {
    let scenes = match args.scene {
        Some(s) => vec![s],
        None => vec![
            BenchScene::S1,
            BenchScene::S2,
            BenchScene::S3,
            BenchScene::S4,
            BenchScene::S5,
        ],
    };
    let iterative = match args.sweeps {
        Some(sweeps) => at_sweeps(IterativeSettings::default(), sweeps),
        None => ("iterative".to_string(), Solver::iterative()),
    };
    let exact = ("exact".to_string(), Solver::exact());
    let solvers: Vec<(String, Solver)> = match args.solver {
        BenchSolver::Exact => vec![exact],
        BenchSolver::Iterative => vec![iterative],
        BenchSolver::Both => vec![exact, iterative],
    };
    let mut rows = Vec::new();
    for scene in scenes {
        match scene {
            BenchScene::S1 => {
                for (name, solver) in &solvers {
                    let built = timed(scenes::pyramid_20(solver.clone()), args.phases)?;
                    rows.push(top_box_row(built, "S1 pyramid-20", name, args.steps));
                }
            }
            BenchScene::S2 => {
                for (name, solver) in &solvers {
                    let built = timed(scenes::sphere_pile_1000(solver.clone()), args.phases)?;
                    rows.push(pile_row(built, name, args.steps));
                }
            }
            BenchScene::S4 => {
                for (name, solver) in &solvers {
                    let built = timed(scenes::stack_20(solver.clone()), args.phases)?;
                    rows.push(top_box_row(built, "S4 stack-20", name, args.steps));
                }
            }
            BenchScene::S3 => {
                for (name, solver) in &solvers {
                    let built = timed(scenes::chain_100(solver.clone()), args.phases)?;
                    rows.push(chain_row(built, name, args.steps));
                }
            }
            BenchScene::S5 => {
                for (name, mode) in [
                    ("gyroscopic none", GyroscopicMode::None),
                    ("gyroscopic explicit", GyroscopicMode::Explicit),
                    ("gyroscopic implicit", GyroscopicMode::Implicit),
                    ("gyroscopic conserving", GyroscopicMode::Conserving),
                ] {
                    let built = timed(scenes::spinner(mode), args.phases)?;
                    rows.push(spinner_row(built, name, args.steps));
                }
            }
        }
    }
    Ok(rows)
}

/// The built scene, with its phases timed (`--phases`; the clock's reads then count in
/// the step times, about half a microsecond a step).
fn timed(built: Result<Scene, stiction::WorldError>, phases: bool) -> Result<Scene, CliError> {
    let mut scene = built.map_err(engine_error)?;
    scene.world.set_time_phases(phases);
    Ok(scene)
}

/// The iterative stepper of `settings` at `sweeps` sweeps a step (`--sweeps`), with the
/// name of its runs.
fn at_sweeps(settings: IterativeSettings, sweeps: u32) -> (String, Solver) {
    let solver = Solver::Iterative(IterativeSettings {
        iterations: sweeps as usize,
        ..settings
    });
    (format!("iterative, {sweeps} sweeps"), solver)
}

fn engine_error(e: stiction::WorldError) -> CliError {
    CliError::Usage {
        option: "--scene",
        rule: format!("the engine could not build the scene: {e}"),
    }
}

/// The position of the scene's last body (the top box of S1 and S4).
fn top_position(scene: &Scene) -> Vec3 {
    scene
        .bodies
        .last()
        .and_then(|&b| scene.world.body(b).ok())
        .map_or(Vec3::splat(f64::NAN), |b| b.position())
}

/// S1 and S4: how far the top box moved (S4 splits it into drift and height error).
fn top_box_row(mut scene: Scene, label: &str, solver: &str, steps: Option<usize>) -> BenchRow {
    let steps = steps.unwrap_or(scene.steps);
    let start = top_position(&scene);
    let (timed, work) = time_steps(&mut scene, steps);
    let moved = top_position(&scene) - start;
    let quality = if label.starts_with("S4") {
        vec![
            ("top drift (m)".to_string(), moved.truncate().length()),
            ("top height error (m)".to_string(), moved.z),
        ]
    } else {
        vec![("top displacement (m)".to_string(), moved.length())]
    };
    BenchRow {
        scene: label.to_string(),
        variant: solver.to_string(),
        steps,
        median_ms: timed.as_ref().ok().copied(),
        work,
        quality,
        blocked: timed.err(),
    }
}

/// S2: the deepest penetration at the last step.
fn pile_row(mut scene: Scene, solver: &str, steps: Option<usize>) -> BenchRow {
    let steps = steps.unwrap_or(scene.steps);
    let (timed, work) = time_steps(&mut scene, steps);
    BenchRow {
        scene: "S2 sphere-pile".to_string(),
        variant: solver.to_string(),
        steps,
        median_ms: timed.as_ref().ok().copied(),
        work,
        quality: vec![(
            "max penetration (m)".to_string(),
            crate::run::record::max_penetration(&scene.world),
        )],
        blocked: timed.err(),
    }
}

/// Steps `scene`, returning the median step time (ms), or the failure, and the solver
/// work per step over the steps that ran.
fn time_steps(scene: &mut Scene, steps: usize) -> (Result<f64, String>, Work) {
    let (bodies, joints) = (&scene.bodies, &scene.joints);
    time_world(&mut scene.world, scene.h, steps, |e| {
        step_error::describe(
            e,
            |h| step_error::listed(bodies, h),
            |h| step_error::listed(joints, h),
        )
    })
}

/// Steps `world` `steps` times by `h`: the median step time (ms), or the failure (told by
/// `describe`), and the solver work per step over the steps that ran.
fn time_world(
    world: &mut stiction::World,
    h: f64,
    steps: usize,
    describe: impl Fn(&stiction::WorldError) -> String,
) -> (Result<f64, String>, Work) {
    let iterative = matches!(world.settings().solver, Solver::Iterative(_));
    let mut times = Vec::with_capacity(steps.min(1 << 20));
    let mut work = Work::default();
    for step in 1..=steps {
        let start = Instant::now();
        match world.step(h) {
            Ok(stats) => work.add(stats, iterative),
            Err(e) => {
                return (
                    Err(format!("step {step} failed: {}", describe(&e))),
                    work.per_step(step - 1),
                );
            }
        }
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let median_ms = median(&mut times);
    // `median` sorted the times.
    if let Some(&worst) = times.last() {
        work.worst_ms = worst;
        let rank = (0.9 * (times.len() - 1) as f64).round() as usize;
        work.p90_ms = times[rank.min(times.len() - 1)];
    }
    (Ok(median_ms), work.per_step(steps))
}

fn chain_row(mut scene: Scene, solver: &str, steps: Option<usize>) -> BenchRow {
    let steps = steps.unwrap_or(scene.steps);
    let (timed, work) = time_steps(&mut scene, steps);
    BenchRow {
        scene: "S3 chain-100".to_string(),
        variant: solver.to_string(),
        steps,
        median_ms: timed.as_ref().ok().copied(),
        work,
        quality: vec![(
            "max joint separation (m)".to_string(),
            scene.world.max_joint_anchor_separation(),
        )],
        blocked: timed.err(),
    }
}

fn spinner_row(mut scene: Scene, mode: &str, steps: Option<usize>) -> BenchRow {
    let steps = steps.unwrap_or(scene.steps);
    let figures = |s: &Scene| {
        s.world
            .body(s.bodies[0])
            .map(|b| (b.angular_momentum().length(), b.rotational_kinetic_energy()))
            .unwrap_or((f64::NAN, f64::NAN))
    };
    let (l0, e0) = figures(&scene);
    let (timed, work) = time_steps(&mut scene, steps);
    let (l1, e1) = figures(&scene);
    BenchRow {
        scene: "S5 spinner".to_string(),
        variant: mode.to_string(),
        steps,
        median_ms: timed.as_ref().ok().copied(),
        work,
        quality: vec![
            ("rel. change of abs(L)".to_string(), (l1 - l0) / l0),
            ("rel. change of rot. energy".to_string(), (e1 - e0) / e0),
        ],
        blocked: timed.err(),
    }
}

/// The markdown table.
pub fn table(rows: &[BenchRow]) -> Vec<String> {
    let mut lines = vec![
        "| scene | variant | steps | median ms/step | 90th percentile / slowest, ms | quality | work per step (mean) |".to_string(),
        "| --- | --- | ---: | ---: | ---: | --- | --- |".to_string(),
    ];
    for r in rows {
        let ms = r.median_ms.map_or("-".to_string(), |m| format!("{m:.3}"));
        let spread = match r.median_ms {
            Some(_) => format!("{:.3} / {:.3}", r.work.p90_ms, r.work.worst_ms),
            None => "-".to_string(),
        };
        let mut quality: Vec<String> = r
            .quality
            .iter()
            .map(|(name, value)| format!("{name} {value:.3e}"))
            .collect();
        if let Some(b) = &r.blocked {
            quality.push(format!("stopped: {b}"));
        }
        let work = if r.scene.starts_with("S5") {
            "-".to_string()
        } else {
            r.work.describe(r.variant.starts_with("iterative"))
        };
        lines.push(format!(
            "| {} | {} | {} | {} | {spread} | {} | {} |",
            r.scene,
            r.variant,
            r.steps,
            ms,
            quality.join("; "),
            work
        ));
    }
    lines
}

/// The `--phases` table: each run's mean ms per step phase.
pub fn phase_table(rows: &[BenchRow]) -> Vec<String> {
    let mut lines = vec![
        format!(
            "| scene | variant | {} | (mean ms/step) |",
            PHASES.join(" | ")
        ),
        format!("| --- | --- |{} --- |", " ---: |".repeat(PHASES.len())),
    ];
    for r in rows {
        let phases: Vec<String> = r.work.phase_ms.iter().map(|m| format!("{m:.3}")).collect();
        lines.push(format!(
            "| {} | {} | {} | |",
            r.scene,
            r.variant,
            phases.join(" | ")
        ));
    }
    lines
}
