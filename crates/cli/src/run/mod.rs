//! `stiction run`: step a scene file and write a run directory (trajectory, statistics,
//! joint forces, the effective scene and a summary).

pub mod dump_lcp;
pub mod measure;
pub mod record;
pub mod sensors;
pub mod snapshot;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use crate::error::CliError;
use crate::model::{self, ModelArgs};
use crate::output::OutputArgs;
use crate::readable::number;
use crate::scene::parse::Source;
use crate::scene::schema::{SceneFile, SolverKind};
use crate::scene::{self, BuiltScene, SceneError};
use crate::step_error;
use measure::measure;
use record::Recorder;
use sensors::SensorRecorder;

/// Arguments of `stiction run`.
#[derive(Debug, Args)]
#[command(after_help = RUN_AFTER)]
pub struct RunArgs {
    /// Scene file (.toml or .json), e.g. scenes/pendulum.toml, or a robot model (.urdf, or
    /// .xml: MJCF or URDF).
    pub scene: PathBuf,
    #[command(flatten)]
    pub overrides: Overrides,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Output directory (created; files in it are replaced). Default: out/<scene name>.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write a snapshot of the whole world every N steps, as DIR/snapshot-<step>.bin.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub snapshot_every: Option<u64>,
    /// Continue from a snapshot of this scene (written by --snapshot-every): runs the steps
    /// after it; the CSV files hold those steps' rows only.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    /// Write every island's LCP of these steps (5, 1,10,20 or 100-120) as
    /// DIR/lcp/step-<step>-island-<island>.json, a `stiction lcp solve` problem file with
    /// the engine's answer (forces, status, residual, pivots or sweeps, time) beside it.
    #[arg(long, value_name = "STEPS", value_parser = dump_lcp::parse_steps)]
    pub dump_lcp: Option<dump_lcp::StepSet>,
    #[command(flatten)]
    pub output: OutputArgs,
}

const RUN_AFTER: &str = "\
Writes DIR/scene.json (the scene as run), DIR/trajectory.csv, DIR/stats.csv, \
DIR/joint_forces.csv and DIR/contact_forces.csv (if the scene's [record] asks), \
DIR/<name>.csv for each of the scene's [[sensors]] and DIR/summary.json; \
docs/scene-format.md lists their columns.

With --snapshot-every N, also DIR/snapshot-<step>.bin after every N-th step (the complete \
world, for --resume). With --resume FILE, the run continues after the snapshot's step: the \
scene file must be the one the snapshot was taken from (same settings and overrides), and \
the CSV files hold the rows of the later steps, identical to the uninterrupted run's.

A worst LCP residual above 1e-3 (the forces of some step are approximate) is reported as \
one `warning: ` line on stderr (not with --quiet).

A robot model (.urdf; .xml whose root is <robot> or <mujoco>) runs like a scene: bodies \
named by link, joints by joint name, a ground plane z = 0 (unless --no-ground), gravity \
[0, 0, -9.81] m/s^2 and step 1/240 s (an MJCF file's <option> gravity and timestep \
instead; --gravity and --step over both), 2 s unless --steps or --duration; each of the \
loader's warnings (what the file holds that is not simulated) is a `warning: ` line on \
stderr. Its scene.json is a scene of that model (a [[models]] entry) and the ground, so \
`stiction render DIR` and --resume find the model again.

Exit status: 0 the run finished; 1 a step failed (one `error: ` line on stderr, also with \
--quiet and --json; the files hold every step before it); 2 bad input (unreadable, \
malformed or unphysical scene; a truncated, corrupted or foreign snapshot), with one \
`error: ` line on stderr and nothing written.";

/// Command-line changes to a scene's run settings.
#[derive(Debug, Args, Clone, Default)]
pub struct Overrides {
    /// Number of steps to run (instead of the scene's duration).
    #[arg(long, value_name = "N", conflicts_with = "duration")]
    pub steps: Option<u64>,
    /// Simulated time to run, s.
    #[arg(long, value_name = "S")]
    pub duration: Option<f64>,
    /// Stepper: exact (Dantzig pivoting) or iterative (projected Gauss-Seidel).
    #[arg(long, value_enum)]
    pub solver: Option<SolverChoice>,
    /// Step size h, s (instead of the scene's world.step or a model file's time step).
    #[arg(long, value_name = "S", value_parser = parse_step)]
    pub step: Option<f64>,
    /// Gravity, m/s^2 (instead of the scene's world.gravity or a model file's):
    /// --gravity 0,0,-9.81.
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_gravity, allow_hyphen_values = true)]
    pub gravity: Option<[f64; 3]>,
}

pub(crate) fn parse_step(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(h) if h.is_finite() && h > 0.0 => Ok(h),
        _ => Err(format!(
            "expected a step in s, finite and > 0, got `{text}`"
        )),
    }
}

pub(crate) fn parse_gravity(text: &str) -> Result<[f64; 3], String> {
    let expected = || format!("expected X,Y,Z in m/s^2, each finite, got `{text}`");
    let parts: Vec<f64> = text
        .split(',')
        .map(|p| p.trim().parse::<f64>().map_err(|_| expected()))
        .collect::<Result<_, _>>()?;
    match parts[..] {
        [x, y, z] if [x, y, z].iter().all(|v| v.is_finite()) => Ok([x, y, z]),
        _ => Err(expected()),
    }
}

/// The `--solver` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SolverChoice {
    /// Dantzig pivoting, exact to round-off.
    Exact,
    /// Projected Gauss-Seidel, the scene's sweep count.
    Iterative,
}

impl Overrides {
    /// Applies the overrides to a parsed scene (before validation, so they are checked too).
    pub fn apply(&self, scene: &mut SceneFile) {
        if let Some(steps) = self.steps {
            scene.steps = Some(steps);
            scene.duration = None;
        }
        if let Some(duration) = self.duration {
            scene.duration = Some(duration);
            scene.steps = None;
        }
        if let Some(solver) = self.solver {
            scene.world.solver.kind = match solver {
                SolverChoice::Exact => SolverKind::Exact,
                SolverChoice::Iterative => SolverKind::Iterative,
            };
        }
        if let Some(step) = self.step {
            scene.world.step = Some(step);
        }
        if let Some(gravity) = self.gravity {
            scene.world.gravity = Some(gravity);
        }
    }
}

/// What a finished (or stopped) run reports.
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    /// Scene name.
    pub scene: String,
    /// The run directory.
    pub out: PathBuf,
    /// Bodies and joints.
    pub bodies: usize,
    /// Joints.
    pub joints: usize,
    /// Steps asked for.
    pub steps: u64,
    /// Steps completed.
    pub steps_done: u64,
    /// Step size, s.
    pub h: f64,
    /// Simulated time reached, s.
    pub time: f64,
    /// Wall time of the whole run, s.
    pub wall_seconds: f64,
    /// Median wall time of one step, ms.
    pub median_step_ms: f64,
    /// Energy at the start and the end, J.
    pub energy_start: f64,
    /// Energy at the end, J.
    pub energy_end: f64,
    /// Largest normalised LCP residual of any step (`stiction::StepStats::worst_residual`).
    pub max_residual: f64,
    /// The step it was reached at (0 if no step had a residual).
    pub max_residual_step: u64,
    /// Steps whose residual was above [`RESIDUAL_WARNING`].
    pub steps_above_residual_warning: u64,
    /// Largest joint anchor separation at the end, m.
    pub joint_error_end: f64,
    /// Deepest penetration of any contact after any step, m (0 without contacts).
    pub max_penetration: f64,
    /// Steps in which some island's solve did not reach its tolerance (with the iterative
    /// stepper's default tolerance of 0, every step whose sweeps ran out: see
    /// [`RunSummary::warning`] for what matters).
    pub steps_with_unsolved_islands: u64,
    /// Files written.
    pub files: Vec<String>,
    /// The island problems written by `--dump-lcp` (relative to the run directory).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lcp_files: Vec<String>,
    /// Why the run stopped early, if it did (bodies and joints by their scene names).
    pub error: Option<String>,
    /// Why the forces of some steps are approximate (a residual above
    /// [`RESIDUAL_WARNING`]) and what to change, if they are.
    pub warning: Option<String>,
    /// The step of the snapshot the run continued from (`--resume`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed_from_step: Option<u64>,
}

/// The worst normalised LCP residual (`stiction::StepStats::worst_residual`) a run accepts
/// without a warning. The figure is relative to the scene's own forces and velocities, so
/// one threshold fits every scene: a converged exact solve is near 1e-12, twenty
/// Gauss-Seidel sweeps on a resting pile about 1e-4 (S1's 210 boxes: 1.4e-4), and above
/// 1e-3 some force is off by more than a thousandth of the largest in its island.
pub const RESIDUAL_WARNING: f64 = 1e-3;

/// Reads a scene, applies the overrides and builds it, refusing bad input before anything is
/// written. Returns the effective scene file and the built scene.
pub fn prepare(
    source: &Source,
    overrides: &Overrides,
) -> Result<(SceneFile, BuiltScene), SceneError> {
    prepare_file(source.read()?, &source.label(), overrides)
}

/// [`prepare`] for a scene already read (and perhaps edited, as `stiction sweep` does);
/// `label` names it in errors and its folder is where relative file names start.
pub fn prepare_file(
    mut file: SceneFile,
    label: &Path,
    overrides: &Overrides,
) -> Result<(SceneFile, BuiltScene), SceneError> {
    overrides.apply(&mut file);
    let built = scene::check_and_build(&file, label)?;
    // scene.json states the step and gravity run, also where the models gave them.
    file.world.step = Some(built.h);
    file.world.gravity = Some(built.world.settings().gravity.to_array());
    // scene.json lives in the run directory: its meshes and models must be found from there.
    scene::absolute_paths(&mut file, label.parent().unwrap_or(Path::new("")));
    Ok((file, built))
}

/// Reads a scene file, or loads a robot model, printing the warnings of its models on
/// stderr: the scene file written as scene.json (with absolute file names) and the built
/// scene.
pub fn prepare_input(
    path: &Path,
    model_args: &ModelArgs,
    overrides: &Overrides,
    output: &OutputArgs,
) -> Result<(SceneFile, BuiltScene), CliError> {
    let (file, built) = if model::is_model(path) {
        let prepared = model::prepare(path, model_args, overrides)?;
        let mut file = prepared.file;
        scene::absolute_paths(&mut file, Path::new(""));
        (file, prepared.built)
    } else {
        model_args.check_scene()?;
        prepare(&Source::of(path), overrides)?
    };
    for model in &built.models {
        for warning in &model.warnings {
            output.warn(&format!("{}: {}", warning.at, warning.message));
        }
    }
    Ok((file, built))
}

/// The default run directory of a scene.
pub fn default_out(name: &str) -> PathBuf {
    Path::new("out").join(name)
}

/// `stiction run`.
pub fn run(args: RunArgs) -> Result<std::process::ExitCode, CliError> {
    let source = Source::of(&args.scene);
    let (file, mut built) = prepare_input(&args.scene, &args.model, &args.overrides, &args.output)?;
    // A bad snapshot is refused before the run directory is touched.
    let first_step = match &args.resume {
        Some(path) => Some(snapshot::resume(path, &mut built)?),
        None => None,
    };
    if let Some(set) = &args.dump_lcp {
        let first = first_step.unwrap_or(0) + 1;
        set.check_within(first, built.steps.max(first))
            .map_err(|rule| CliError::Usage {
                option: "--dump-lcp",
                rule,
            })?;
    }
    let out = args.out.unwrap_or_else(|| default_out(&built.name));
    let options = RunOptions {
        progress: args.output.show_progress(),
        snapshot_every: args.snapshot_every,
        resumed_from_step: first_step,
        dump_lcp: args.dump_lcp,
    };
    let summary = execute_with(&file, built, &out, &options)?;
    args.output
        .print_summary(&summary, &summary_lines(&summary));
    outcome(&summary, &source.label(), &args.output)
}

/// Ends a command that ran a scene (`label` names it): prints the summary's warning, and
/// turns a failed step into the error `main` prints on stderr (exit status 1), whatever
/// `--quiet` or `--json` say.
pub fn outcome(
    summary: &RunSummary,
    label: &Path,
    output: &OutputArgs,
) -> Result<std::process::ExitCode, CliError> {
    if let Some(warning) = &summary.warning {
        output.warn(&format!("{}: {warning}", label.display()));
    }
    match &summary.error {
        Some(e) => Err(CliError::Failed(format!("{}: {e}", label.display()))),
        None => Ok(std::process::ExitCode::SUCCESS),
    }
}

/// A refused step's message, naming bodies and joints as `scene` does.
pub fn describe_step_error(e: &stiction::WorldError, scene: &BuiltScene) -> String {
    step_error::describe(
        e,
        |h| {
            let body = scene.bodies.iter().find(|b| b.handle == h);
            step_error::named(h, body.map(|b| b.name.as_str()))
        },
        |h| {
            let joint = scene.joints.iter().find(|j| j.handle == h);
            step_error::named(h, joint.map(|j| j.name.as_str()))
        },
    )
}

/// The warning for a run whose worst residual `worst` (at step `step`, `above` steps over
/// [`RESIDUAL_WARNING`]) is large, with what to change for `solver`; `None` if it is not.
pub fn residual_warning(worst: f64, step: u64, above: u64, solver: SolverKind) -> Option<String> {
    // Written so that a NaN residual warns too.
    if worst <= RESIDUAL_WARNING {
        return None;
    }
    let remedy = match solver {
        SolverKind::Iterative => {
            "more sweeps (world.solver.iterations), the exact stepper (--solver exact) or a smaller world.step"
        }
        SolverKind::Exact => "a smaller world.step, or a larger world.cfm",
    };
    let steps = if above == 1 { "step" } else { "steps" };
    Some(format!(
        "the forces are approximate: the LCP residual reached {} at step {step} ({above} {steps} above {}); try {remedy}",
        number(worst),
        number(RESIDUAL_WARNING)
    ))
}

/// How [`execute_with`] runs a scene beyond what the scene file says.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Show a progress bar (on a terminal, for runs over half a second).
    pub progress: bool,
    /// Write a snapshot after every this many steps.
    pub snapshot_every: Option<u64>,
    /// The scene's world is a snapshot taken after this step: run the steps after it and
    /// record only those.
    pub resumed_from_step: Option<u64>,
    /// Dump the island problems of these steps (`--dump-lcp`).
    pub dump_lcp: Option<dump_lcp::StepSet>,
}

/// Steps a built scene, writing the run directory `out`.
pub fn execute(
    file: &SceneFile,
    scene: BuiltScene,
    out: &Path,
    progress: bool,
) -> Result<RunSummary, CliError> {
    let options = RunOptions {
        progress,
        ..RunOptions::default()
    };
    execute_with(file, scene, out, &options)
}

/// [`execute`] with snapshots and resuming.
pub fn execute_with(
    file: &SceneFile,
    mut scene: BuiltScene,
    out: &Path,
    options: &RunOptions,
) -> Result<RunSummary, CliError> {
    execute_in_place(file, &mut scene, out, options)
}

/// [`execute_with`] leaving the stepped scene to the caller, who may read its final state
/// (`stiction sweep` reports a body's final position and velocity).
pub fn execute_in_place(
    file: &SceneFile,
    scene: &mut BuiltScene,
    out: &Path,
    options: &RunOptions,
) -> Result<RunSummary, CliError> {
    let progress = options.progress;
    let first_step = options.resumed_from_step.unwrap_or(0);
    std::fs::create_dir_all(out).map_err(|e| CliError::write(out, e))?;
    let scene_json = serde_json::to_string_pretty(file).map_err(std::io::Error::other);
    let scene_json = scene_json.map_err(|e| CliError::write(out, e))?;
    std::fs::write(out.join(record::SCENE_FILE), scene_json + "\n")
        .map_err(|e| CliError::write(out, e))?;
    let mut recorder = Recorder::create(out, scene).map_err(|e| CliError::write(out, e))?;
    let mut sensors =
        SensorRecorder::create(out, &scene.sensors).map_err(|e| CliError::write(out, e))?;
    // The statistics file has each step's phase times.
    scene.world.set_time_phases(true);

    let start = measure(&scene.world);
    // A resumed run's starting state is a row of the run it continues (if it was recorded
    // there, with that step's statistics, which a snapshot does not keep).
    if options.resumed_from_step.is_none() {
        recorder
            .record(scene, 0, None, &start)
            .map_err(|e| CliError::write(out, e))?;
        sensors
            .record(&mut scene.world, 0, scene.steps)
            .map_err(|e| CliError::write(out, e))?;
    }
    let bar = Progress::new(scene.steps, progress);
    let started = Instant::now();
    let mut step_ms = Vec::with_capacity(scene.steps as usize);
    let mut max_residual: f64 = 0.0;
    let mut max_residual_step = 0;
    let mut above_warning = 0;
    let mut unsolved = 0;
    let mut max_penetration: f64 = 0.0;
    let mut last = start;
    let mut error = None;
    let mut done = first_step;
    let mut lcp_files = Vec::new();
    let iterative = file.world.solver.kind == SolverKind::Iterative;
    for step in first_step + 1..=scene.steps {
        if let Some(set) = &options.dump_lcp {
            dump_lcp::prepare_step(&mut scene.world, set, step);
        }
        let stats = match scene.world.step(scene.h) {
            Ok(stats) => stats.clone(),
            Err(e) => {
                error = Some(format!(
                    "step {step} failed: {}",
                    describe_step_error(&e, scene)
                ));
                break;
            }
        };
        done = step;
        if options
            .dump_lcp
            .as_ref()
            .is_some_and(|set| set.contains(step))
        {
            lcp_files.extend(dump_lcp::write_step(scene, &stats, iterative, out, step)?);
        }
        step_ms.push(stats.times.total.as_secs_f64() * 1e3);
        // A NaN residual counts as the worst (f64::max would drop it).
        if stats.worst_residual > max_residual || stats.worst_residual.is_nan() {
            max_residual = stats.worst_residual;
            max_residual_step = step;
        }
        above_warning +=
            u64::from(stats.worst_residual > RESIDUAL_WARNING || stats.worst_residual.is_nan());
        unsolved += u64::from(stats.unsolved_islands > 0);
        max_penetration = max_penetration.max(record::max_penetration(&scene.world));
        if step % scene.record.every == 0 || step == scene.steps {
            last = measure(&scene.world);
            recorder
                .record(scene, step, Some(&stats), &last)
                .map_err(|e| CliError::write(out, e))?;
        }
        if !sensors.is_empty() {
            sensors
                .record(&mut scene.world, step, scene.steps)
                .map_err(|e| CliError::write(out, e))?;
        }
        if options.snapshot_every.is_some_and(|n| step % n == 0) {
            snapshot::write_snapshot(&scene.world, out, step)?;
        }
        bar.tick(step, started.elapsed());
    }
    bar.finish();
    recorder.finish().map_err(|e| CliError::write(out, e))?;
    sensors.finish().map_err(|e| CliError::write(out, e))?;
    if error.is_none() {
        last = measure(&scene.world);
    }
    let summary = RunSummary {
        scene: scene.name.clone(),
        out: out.to_path_buf(),
        bodies: scene.bodies.len(),
        joints: scene.joints.len(),
        steps: scene.steps,
        steps_done: done,
        h: scene.h,
        time: scene.world.time(),
        wall_seconds: started.elapsed().as_secs_f64(),
        median_step_ms: median(&mut step_ms),
        energy_start: start.energy(),
        energy_end: last.energy(),
        max_residual,
        max_residual_step,
        steps_above_residual_warning: above_warning,
        joint_error_end: last.joint_error,
        max_penetration,
        steps_with_unsolved_islands: unsolved,
        files: written_files(scene),
        lcp_files,
        error,
        warning: residual_warning(
            max_residual,
            max_residual_step,
            above_warning,
            file.world.solver.kind,
        ),
        resumed_from_step: options.resumed_from_step,
    };
    let json = serde_json::to_string_pretty(&summary).map_err(std::io::Error::other);
    let json = json.map_err(|e| CliError::write(out, e))?;
    std::fs::write(out.join(record::SUMMARY_FILE), json + "\n")
        .map_err(|e| CliError::write(out, e))?;
    Ok(summary)
}

fn written_files(scene: &BuiltScene) -> Vec<String> {
    let mut files = vec![record::SCENE_FILE.to_string()];
    let r = &scene.record;
    for (on, name) in [
        (r.trajectory, record::TRAJECTORY_FILE),
        (r.stats, record::STATS_FILE),
        (r.joint_forces, record::JOINT_FORCES_FILE),
        (r.contact_forces, record::CONTACT_FORCES_FILE),
    ] {
        if on {
            files.push(name.to_string());
        }
    }
    files.extend(sensors::files(&scene.sensors));
    files.push(record::SUMMARY_FILE.to_string());
    files
}

/// The median of `values` (0 for none); sorts them.
pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        0.5 * (values[mid - 1] + values[mid])
    }
}

/// The human-readable summary (physical figures as [`number`] writes them; a failed step
/// and a residual warning are reported on stderr, not here).
pub fn summary_lines(s: &RunSummary) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(step) = s.resumed_from_step {
        lines.push(format!("resumed from the snapshot of step {step}"));
    }
    let residual = if s.max_residual_step > 0 {
        format!("{} (step {})", number(s.max_residual), s.max_residual_step)
    } else {
        number(s.max_residual)
    };
    lines.extend([
        format!(
            "{}: {} of {} steps of {} s ({} s simulated) in {:.2} s, median {:.3} ms/step",
            s.scene,
            s.steps_done,
            s.steps,
            number(s.h),
            number(s.time),
            s.wall_seconds,
            s.median_step_ms
        ),
        format!(
            "  {} bodies, {} joints; energy {} J -> {} J; worst LCP residual {residual}; joint error {} m",
            s.bodies,
            s.joints,
            number(s.energy_start),
            number(s.energy_end),
            number(s.joint_error_end)
        ),
        format!("  wrote {}: {}", s.out.display(), s.files.join(", ")),
    ]);
    if !s.lcp_files.is_empty() {
        lines.push(format!(
            "  {} LCP files: {}",
            s.lcp_files.len(),
            s.lcp_files.join(", ")
        ));
    }
    lines
}

/// A progress bar that appears only on a terminal and only once a run has taken longer than
/// half a second, so short runs and scripts see nothing.
pub struct Progress {
    bar: Option<ProgressBar>,
    shown: std::cell::Cell<bool>,
}

impl Progress {
    const DELAY: Duration = Duration::from_millis(500);

    /// A bar over `total` steps; `wanted` false (quiet, JSON) disables it.
    pub fn new(total: u64, wanted: bool) -> Self {
        let bar = (wanted && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
            if let Ok(style) =
                ProgressStyle::with_template("{bar:40} {pos}/{len} steps {elapsed} (eta {eta})")
            {
                bar.set_style(style);
            }
            bar
        });
        Self {
            bar,
            shown: std::cell::Cell::new(false),
        }
    }

    /// Reports `done` steps after `elapsed` wall time.
    pub fn tick(&self, done: u64, elapsed: Duration) {
        let Some(bar) = &self.bar else {
            return;
        };
        if !self.shown.get() && elapsed > Self::DELAY {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown.set(true);
        }
        bar.set_position(done);
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
