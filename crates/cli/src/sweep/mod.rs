//! `stiction sweep`: run a scene over the cartesian product of parameter values (and
//! seeds) on all cores, one row per run in DIR/summary.csv. docs/sweep.md is the guide.

pub mod set;
pub mod table;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde_json::{json, Value};
use stiction_lcp::generate::SplitMix64;

use crate::error::CliError;
use crate::model;
use crate::output::OutputArgs;
use crate::run::{self, Overrides, RunOptions, SolverChoice};
use crate::scene::parse::Source;
use crate::scene::schema::{BodyKindDesc, SceneFile};
use set::Set;
use table::Row;

/// The most runs one sweep may have (values of every set multiplied, times the seeds).
pub const MAX_RUNS: usize = 1_000_000;

/// The sweep's definition file in its directory (what a rerun must match to resume).
pub const DEFINITION_FILE: &str = "sweep.json";

/// Arguments of `stiction sweep`.
#[derive(Debug, Args)]
#[command(after_help = SWEEP_AFTER)]
pub struct SweepArgs {
    /// Scene file (.toml or .json), e.g. scenes/incline.toml, or a built-in scene's name.
    pub scene: PathBuf,
    /// A parameter and its values: PATH=V1,V2,... or PATH=A:B:N (N numbers from A to B);
    /// repeat for a cartesian product, e.g. --set materials.wood.friction=0.1:0.9:9.
    #[arg(long = "set", value_name = "PATH=VALUES")]
    pub sets: Vec<String>,
    /// Run each combination with seeds 0 to N-1 (seed 0: the scene as written; others
    /// perturb the dynamic bodies' initial positions and velocities by up to --jitter).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=MAX_RUNS as u64))]
    pub seeds: u64,
    /// Largest perturbation of a seed, in m for each position coordinate and m/s for each
    /// velocity component.
    #[arg(long, value_name = "METRES", default_value_t = 1e-3, value_parser = parse_jitter)]
    pub jitter: f64,
    /// The body whose final position and velocity fill the report_* columns (default: the
    /// scene's first dynamic body).
    #[arg(long, value_name = "BODY")]
    pub report: Option<String>,
    /// Sweep directory: DIR/sweep.json and DIR/summary.csv (a rerun with the same
    /// arguments resumes the sweep in it).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Keep each run's directory (as `stiction run` writes it) as DIR/runs/<run>/.
    #[arg(long)]
    pub keep_runs: bool,
    /// Do only the runs whose number is I modulo N (0 <= I < N), e.g. 2/8: one part of a
    /// sweep split over machines (stiction.ray does this); DIR then holds that part's rows.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<(u64, u64)>,
    /// Runs at once (default: one per core).
    #[arg(long, value_name = "J",
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
    #[command(flatten)]
    pub overrides: Overrides,
    #[command(flatten)]
    pub output: OutputArgs,
}

const SWEEP_AFTER: &str = "\
Runs are numbered from 0 in the order of the product (the first --set varies slowest, the \
seed fastest). DIR/summary.csv has one row per run: run, one column per --set path, seed, \
outcome (ok or error), steps_done, time, energy_start, energy_end, energy_drift, \
max_penetration, max_residual, joint_error_end, report_x, report_y, report_z, report_vx, \
report_vy, report_vz, wall_seconds and error; docs/sweep.md explains them.

Rows are appended as runs finish and the table is rewritten in run order at the end. A \
sweep that was interrupted resumes when rerun with the same arguments and --out: runs \
already in the table are not done again.

Exit status: 0 every run finished; 1 some run failed (its row says why; one `error: ` line \
on stderr); 2 bad input (unreadable scene, a --set path the scene does not have or a value \
its field cannot take, DIR holding another sweep), before any run.";

fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let parsed = text
        .split_once('/')
        .and_then(|(i, n)| Some((i.trim().parse::<u64>().ok()?, n.trim().parse::<u64>().ok()?)));
    match parsed {
        Some((i, n)) if n >= 1 && i < n => Ok((i, n)),
        _ => Err(format!("expected I/N with 0 <= I < N, got `{text}`")),
    }
}

fn parse_jitter(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "expected a length in m, finite and >= 0, got `{text}`"
        )),
    }
}

/// Why a sweep was refused before any run.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// A `--set` that is not `PATH=VALUES` with well-formed values.
    #[error("--set {arg}: {reason}")]
    Syntax {
        /// The argument (or path) as typed.
        arg: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `--set` path that the scene does not have.
    #[error("--set {path}: the scene has no `{missing}` ({reason})")]
    NoPath {
        /// The path as typed.
        path: String,
        /// The part of it that leads nowhere.
        missing: String,
        /// Why.
        reason: String,
    },
    /// A `--set` value of the wrong type for its field.
    #[error("--set {path}={value}: {reason}")]
    BadValue {
        /// The path as typed.
        path: String,
        /// The value.
        value: String,
        /// The type the field wants.
        reason: String,
    },
    /// A `--report` body that the scene does not have.
    #[error("--report {body}: the scene has no body of that name")]
    NoBody {
        /// The name as typed.
        body: String,
    },
    /// More runs than [`MAX_RUNS`].
    #[error("the sweep has more than {MAX_RUNS} runs")]
    TooMany,
    /// `--out` holds another sweep, or a summary.csv of no sweep.
    #[error("{}: {reason}", dir.display())]
    Directory {
        /// The sweep directory.
        dir: PathBuf,
        /// What does not match.
        reason: String,
    },
}

/// Everything a run needs, shared by the worker threads.
struct Plan {
    /// The scene's document, every default filled in.
    doc: Value,
    /// How errors name the scene, and where its relative file names start.
    label: PathBuf,
    sets: Vec<Set>,
    seeds: u64,
    jitter: f64,
    report: Option<String>,
    overrides: Overrides,
    keep_runs: bool,
    dir: PathBuf,
    /// Digits of a run id.
    width: usize,
}

/// `stiction sweep`.
pub fn sweep(args: SweepArgs) -> Result<std::process::ExitCode, CliError> {
    if model::is_model(&args.scene) {
        return Err(CliError::Usage {
            option: "SCENE",
            rule: "stiction sweep takes a scene file or a built-in scene; load a robot model from a scene's [[models]]".to_string(),
        });
    }
    let source = Source::of(&args.scene);
    let base = source.read()?;
    let doc = serde_json::to_value(&base).map_err(|e| CliError::Failed(e.to_string()))?;
    let parsed = args
        .sets
        .iter()
        .map(|a| set::parse(a))
        .collect::<Result<Vec<_>, _>>()?;
    let sets = set::check(&doc, &parsed)?;
    let report = report_body(&base, args.report.as_deref())?;
    let runs = sets
        .iter()
        .try_fold(args.seeds as usize, |n, s| n.checked_mul(s.values.len()))
        .filter(|&n| n <= MAX_RUNS)
        .ok_or(SweepError::TooMany)?;
    let definition = definition(&args, &source, &doc, &sets, report.as_deref(), runs);
    let dir = args.out.clone();
    open_directory(&dir, &definition)?;

    let header = table::header(&sets);
    let summary_path = dir.join(table::SUMMARY_FILE);
    let done = table::read(&summary_path, &header, runs).map_err(|e| SweepError::Directory {
        dir: dir.clone(),
        reason: format!("cannot resume from {}: {e}", table::SUMMARY_FILE),
    })?;
    // The table is rewritten first so that a line cut short by a kill is gone before rows
    // are appended after it.
    table::rewrite(&summary_path, &header, &done).map_err(|e| CliError::write(&summary_path, e))?;
    let skipped = done.len();
    let in_shard = |id: &usize| {
        args.shard
            .is_none_or(|(part, parts)| *id as u64 % parts == part)
    };
    let todo: Vec<usize> = (0..runs)
        .filter(|id| in_shard(id) && !done.contains_key(id))
        .collect();

    let plan = Plan {
        doc,
        label: source.label(),
        sets,
        seeds: args.seeds,
        jitter: args.jitter,
        report,
        overrides: args.overrides.clone(),
        keep_runs: args.keep_runs,
        dir: dir.clone(),
        width: (runs.max(2) - 1).to_string().len(),
    };
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| CliError::Failed(format!("cannot start {jobs} threads: {e}")))?;
    let appender = std::fs::OpenOptions::new()
        .append(true)
        .open(&summary_path)
        .map_err(|e| CliError::write(&summary_path, e))?;
    let shared = Mutex::new((appender, done, None::<std::io::Error>));
    let bar = progress(
        (skipped + todo.len()) as u64,
        skipped as u64,
        args.output.show_progress(),
    );
    let started = Instant::now();
    pool.install(|| {
        todo.par_iter().for_each(|&id| {
            let row = run_one(&plan, id);
            // A poisoned lock means another worker panicked while writing: keep going.
            let mut guard = shared.lock().unwrap_or_else(|e| e.into_inner());
            let (file, rows, failure) = &mut *guard;
            if let Err(e) = file
                .write_all(row.line.as_bytes())
                .and_then(|()| file.flush())
            {
                failure.get_or_insert(e);
            }
            rows.insert(id, row);
            bar.inc(1);
        });
    });
    bar.finish_and_clear();
    let (appender, rows, failure) = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    drop(appender);
    if let Some(e) = failure {
        return Err(CliError::write(&summary_path, e));
    }
    table::rewrite(&summary_path, &header, &rows).map_err(|e| CliError::write(&summary_path, e))?;
    if !args.keep_runs {
        // Only an empty runs/ folder goes: runs kept by an earlier --keep-runs stay.
        let _ = std::fs::remove_dir(dir.join("runs"));
    }
    let failed = rows.values().filter(|r| r.failed).count();
    let wall = started.elapsed().as_secs_f64();
    let summary = json!({
        "runs": runs,
        "ran": todo.len(),
        "skipped": skipped,
        "failed": failed,
        "wall_seconds": wall,
        "summary": summary_path,
    });
    let lines = vec![
        format!(
            "sweep: {} runs in {wall:.2} s ({skipped} skipped: already in {}), {failed} of {runs} failed",
            todo.len(),
            table::SUMMARY_FILE
        ),
        format!("  wrote {}", summary_path.display()),
    ];
    args.output.print_summary(&summary, &lines);
    if failed > 0 {
        return Err(CliError::Failed(format!(
            "{failed} of {runs} runs failed: see the error column of {}",
            summary_path.display()
        )));
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// The `--report` body, checked, or the scene's first dynamic body.
fn report_body(base: &SceneFile, asked: Option<&str>) -> Result<Option<String>, SweepError> {
    match asked {
        Some(name) if base.bodies.iter().any(|b| b.name == name) => Ok(Some(name.to_string())),
        Some(name) => Err(SweepError::NoBody {
            body: name.to_string(),
        }),
        None => Ok(base
            .bodies
            .iter()
            .find(|b| b.kind == BodyKindDesc::Dynamic)
            .map(|b| b.name.clone())),
    }
}

/// What makes two sweeps the same: stored as DIR/sweep.json.
fn definition(
    args: &SweepArgs,
    source: &Source,
    doc: &Value,
    sets: &[Set],
    report: Option<&str>,
    runs: usize,
) -> Value {
    let o = &args.overrides;
    json!({
        "scene": source.label(),
        "scene_hash": format!("{:016x}", fnv1a(doc.to_string().as_bytes())),
        "sets": sets.iter().map(|s| json!({"path": s.path, "values": s.values})).collect::<Vec<_>>(),
        "seeds": args.seeds,
        "jitter": args.jitter,
        "report": report,
        "overrides": {
            "steps": o.steps,
            "duration": o.duration,
            "solver": o.solver.map(|s| match s {
                SolverChoice::Exact => "exact",
                SolverChoice::Iterative => "iterative",
            }),
            "step": o.step,
            "gravity": o.gravity,
        },
        "runs": runs,
        "shard": args.shard.map(|(part, parts)| format!("{part}/{parts}")),
    })
}

/// FNV-1a, 64 bits: a fingerprint of the scene, so that a sweep over an edited scene is not
/// mixed with the old one's rows.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Creates the sweep directory with its sweep.json, or checks that the one there is this
/// sweep's.
fn open_directory(dir: &Path, definition: &Value) -> Result<(), CliError> {
    let path = dir.join(DEFINITION_FILE);
    let mismatch = |reason: String| SweepError::Directory {
        dir: dir.to_path_buf(),
        reason,
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let stored: Value = serde_json::from_str(&text)
                .map_err(|e| mismatch(format!("{DEFINITION_FILE} is not JSON: {e}")))?;
            if stored == *definition {
                return Ok(());
            }
            let differs = definition
                .as_object()
                .into_iter()
                .flatten()
                .find(|(k, v)| stored.get(k.as_str()) != Some(v))
                .map_or("its format", |(k, _)| k.as_str());
            Err(mismatch(format!(
                "holds another sweep ({differs} differs from its {DEFINITION_FILE}): rerun with the same arguments to resume it, or choose another --out"
            ))
            .into())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if dir.join(table::SUMMARY_FILE).exists() {
                return Err(mismatch(format!(
                    "has a {} but no {DEFINITION_FILE}: not a sweep directory",
                    table::SUMMARY_FILE
                ))
                .into());
            }
            std::fs::create_dir_all(dir).map_err(|e| CliError::write(dir, e))?;
            let text = serde_json::to_string_pretty(definition).unwrap_or_default() + "\n";
            std::fs::write(&path, text).map_err(|e| CliError::write(&path, e))
        }
        Err(e) => Err(CliError::Read { path, source: e }),
    }
}

/// A progress bar over the runs, on a terminal only.
fn progress(total: u64, done: u64, wanted: bool) -> ProgressBar {
    if !wanted || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} runs {elapsed} (eta {eta})")
    {
        bar.set_style(style);
    }
    bar.set_position(done);
    bar
}

/// The values of run `id`: one per set, and the seed.
fn combination(plan: &Plan, id: usize) -> (Vec<&Value>, u64) {
    let seed = (id as u64) % plan.seeds;
    let mut rest = id / plan.seeds as usize;
    let mut values = vec![&Value::Null; plan.sets.len()];
    // The last set varies fastest.
    for (slot, set) in values.iter_mut().zip(&plan.sets).rev() {
        *slot = &set.values[rest % set.values.len()];
        rest /= set.values.len();
    }
    (values, seed)
}

/// Moves every dynamic body of `file` by up to `amplitude` m along each axis and adds up to
/// `amplitude` m/s to each velocity component, drawn from SplitMix64 seeded by `seed`
/// (bodies in order, x y z of the position then of the velocity); seed 0 changes nothing.
pub fn perturb(file: &mut SceneFile, seed: u64, amplitude: f64) {
    if seed == 0 {
        return;
    }
    let mut rng = SplitMix64::new(seed);
    for body in file
        .bodies
        .iter_mut()
        .filter(|b| b.kind == BodyKindDesc::Dynamic)
    {
        for x in body
            .position
            .iter_mut()
            .chain(body.linear_velocity.iter_mut())
        {
            *x += amplitude * rng.range(-1.0, 1.0);
        }
    }
}

/// Runs `id` and returns its row; a run that cannot start, fails or panics is a row too.
fn run_one(plan: &Plan, id: usize) -> Row {
    let started = Instant::now();
    let name = format!("{id:0width$}", width = plan.width);
    let (values, seed) = combination(plan, id);
    let out = plan.dir.join("runs").join(&name);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        execute(plan, &values, seed, &out)
    }));
    if !plan.keep_runs {
        let _ = std::fs::remove_dir_all(&out);
    }
    let (figures, error) = match result {
        Ok(Ok((figures, error))) => (Some(figures), error),
        Ok(Err(error)) => (None, Some(error)),
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            (None, Some(format!("the run panicked: {what}")))
        }
    };
    let mut fields = vec![name];
    fields.extend(values.iter().map(|v| set::text(v)));
    fields.push(seed.to_string());
    fields.push(if error.is_some() { "error" } else { "ok" }.to_string());
    // steps_done to report_vz, empty for a run that never started.
    fields.extend(figures.unwrap_or_else(|| vec![String::new(); table::FIGURES.len() - 4]));
    fields.push(table::float(started.elapsed().as_secs_f64()));
    let failed = error.is_some();
    fields.push(error.unwrap_or_default());
    Row {
        line: table::line(&fields),
        failed,
    }
}

/// Builds and steps one run: its figures (steps_done to report_vz) and its error, if a step
/// failed; `Err` if it could not start.
fn execute(
    plan: &Plan,
    values: &[&Value],
    seed: u64,
    out: &Path,
) -> Result<(Vec<String>, Option<String>), String> {
    let mut doc = plan.doc.clone();
    for (set, value) in plan.sets.iter().zip(values) {
        set::apply(&mut doc, set, value).map_err(|e| e.to_string())?;
    }
    let mut file: SceneFile =
        serde_json::from_value(doc).map_err(|e| format!("{}: {e}", plan.label.display()))?;
    perturb(&mut file, seed, plan.jitter);
    if !plan.keep_runs {
        // The directory is removed after the run: the CSV files would only cost time.
        let r = &mut file.record;
        (r.trajectory, r.stats, r.joint_forces, r.contact_forces) = (false, false, false, false);
    }
    let (file, mut built) =
        run::prepare_file(file, &plan.label, &plan.overrides).map_err(|e| e.to_string())?;
    let summary = run::execute_in_place(&file, &mut built, out, &RunOptions::default())
        .map_err(|e| e.to_string())?;
    let body = plan
        .report
        .as_ref()
        .and_then(|name| built.bodies.iter().find(|b| &b.name == name))
        .and_then(|b| built.world.body(b.handle).ok());
    let state: Vec<String> = match body {
        Some(b) => b
            .position()
            .to_array()
            .into_iter()
            .chain(b.linear_velocity().to_array())
            .map(table::float)
            .collect(),
        None => vec![String::new(); 6],
    };
    let f = table::float;
    let mut figures = vec![
        summary.steps_done.to_string(),
        f(summary.time),
        f(summary.energy_start),
        f(summary.energy_end),
        f(summary.energy_end - summary.energy_start),
        f(summary.max_penetration),
        f(summary.max_residual),
        f(summary.joint_error_end),
    ];
    figures.extend(state);
    Ok((figures, summary.error))
}
