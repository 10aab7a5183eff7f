//! `stiction-peers`: docs/scenes.md S1-S5 in this engine (exact and iterative steps), ODE 0.16
//! (`dWorldStep`, `dWorldQuickStep`) and Rapier, in one run, printed as one markdown table; then
//! this project's Dantzig against ODE's own on the same LCPs.
//!
//! ```text
//! stiction-peers [--scenes s1,s2,...] [--engines ours,ode,rapier] [--budget SECONDS]
//!                [--row-limit ROWS] [--no-experiments] [--no-lcp | --lcp-only]
//!                [--export-lcp DIR] [--pyramid-rows 4,6,8] [--rounds N] [--steps N]
//! stiction-peers --queries [--rounds N]
//! stiction-peers --pareto [--scenes s1,s2,s4] [--engines ours,ode,rapier,mujoco,pybullet]
//!                [--rounds N] [--python PATH] [--svg-dir DIR]
//! ```
//!
//! Each scene's runs are repeated `--rounds` times (default 5), the engines interleaved
//! round by round, and each row's time is the median over the rounds of the run's median
//! step: one run of S3 or S4 is a few tens of milliseconds, and a slow stretch of a shared
//! machine, or another process on its second vCPU, moves single runs by up to 40 % (S3's
//! ratio to quickstep read 0.68 to 0.79 in seven single-round runs on a quiet machine, 0.69
//! to 1.05 with another process running). A run that took more than [`REPEAT_LIMIT`] or
//! stopped early (the exact steppers on S1 and S2) is not repeated. The notes give the
//! range of the rounds' medians.
//!
//! The exact steppers solve one dense LCP per island, `O(n^3)` in its rows: on the two large
//! scenes (S1, S2) they get `--budget` seconds (default 30) and are not started on an island
//! of more than `--row-limit` rows (default 1500; this engine solves islands above its
//! `dense_row_limit` by its sparse exact solver, which only the budget limits); the table
//! says where a run stopped.
//! A second table times this engine's iterative step on S1, S2, S4 with lighter
//! post-stabilisation settings (`--no-experiments` leaves it out).
//!
//! The LCP part times this project's Dantzig and ODE's `dxSolveLCP` on the same problems,
//! among them the island LCPs this engine's exact stepper assembles for S4 and for S1's
//! pyramid at the sizes `--pyramid-rows` gives (S1 itself, 20 rows, is one island of about
//! 7080 rows: too large for a dense solve per problem in a benchmark run).
//!
//! `--steps N` runs every scene for `N` steps instead of its own count (S1-S3 600, S4
//! 3000, S5 6000): scripts/count-instructions.sh's `PEER=` counts a peer's step by two such
//! runs.
//!
//! `--engines` takes `ours`, `ode`, `rapier`, or one stepper: `ours-exact`, `ours-iterative`,
//! `ode-exact`, `ode-quick`. Progress goes to stderr, the tables to stdout. Run it through
//! scripts/bench-peers.sh.
//!
//! `--queries` runs only the scene-query comparison instead (`src/queries.rs`): 1,024 rays
//! into S2's settled pile in this engine and in Rapier, on identical geometry.
//!
//! `--pareto` runs only the work-precision curves instead (`src/pareto.rs`): S1, S2 and S4
//! in every engine over its accuracy knob (MuJoCo and PyBullet through `--python`, default
//! `$STICTION_PYTHON`, else the test venv `target/python-venv`, else `python3`), one round
//! unless `--rounds` says more, the plots written into `--svg-dir` when given.

mod chain_lcp;
mod engine_lcp;
mod lcp_compare;
mod measure;
mod ode;
mod ours;
mod pareto;
mod quality;
mod queries;
mod rapier_runs;
mod report;
mod spec;

use measure::Budget;
use ode::world::OdeStepper;
use report::{Kind, RunResult};
use spec::SceneId;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Command-line options.
struct Options {
    scenes: Vec<SceneId>,
    /// Stiction's exact and iterative steps.
    ours: [bool; 2],
    /// ODE's dWorldStep and dWorldQuickStep.
    ode: [bool; 2],
    rapier: bool,
    budget: Duration,
    row_limit: usize,
    experiments: bool,
    scenes_run: bool,
    lcp_run: bool,
    /// `--queries`: the scene-query comparison only.
    queries_run: bool,
    export: Option<PathBuf>,
    engine_problems: lcp_compare::EngineProblems,
    /// How many times each scene's runs are repeated.
    rounds: usize,
    /// `--pareto`: the work-precision curves only.
    pareto_run: bool,
    /// `--engines` as given, for the curves.
    engines: Option<String>,
    /// `--python`: the interpreter of the Python engines.
    python: Option<PathBuf>,
    /// `--svg-dir`: where the curves' plots go.
    svg_dir: Option<PathBuf>,
    /// Whether `--scenes` or `--rounds` was given.
    scenes_given: bool,
    rounds_given: bool,
}

/// What `--engines` takes: engines, single steppers, and the Python engines of `--pareto`.
const ENGINES: [&str; 9] = [
    "ours",
    "ours-exact",
    "ours-iterative",
    "ode",
    "ode-exact",
    "ode-quick",
    "rapier",
    "mujoco",
    "pybullet",
];

/// Runs that took longer than this are not repeated (`--rounds`).
const REPEAT_LIMIT: Duration = Duration::from_secs(5);

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        scenes: SceneId::ALL.to_vec(),
        ours: [true; 2],
        ode: [true; 2],
        rapier: true,
        budget: Duration::from_secs(30),
        row_limit: 1500,
        experiments: true,
        scenes_run: true,
        lcp_run: true,
        queries_run: false,
        export: None,
        engine_problems: lcp_compare::EngineProblems::default(),
        rounds: 5,
        pareto_run: false,
        engines: None,
        python: None,
        svg_dir: None,
        scenes_given: false,
        rounds_given: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--scenes" => {
                options.scenes = value("--scenes")?
                    .split(',')
                    .map(|s| SceneId::parse(s.trim()).ok_or(format!("unknown scene {s:?}")))
                    .collect::<Result<_, _>>()?;
                options.scenes_given = true;
            }
            "--engines" => {
                let list = value("--engines")?;
                let names: Vec<&str> = list.split(',').map(str::trim).collect();
                let has = |name: &str| names.iter().any(|e| e.eq_ignore_ascii_case(name));
                // A misspelt engine would otherwise select nothing and time nothing.
                if let Some(unknown) = names
                    .iter()
                    .find(|e| !ENGINES.iter().any(|k| e.eq_ignore_ascii_case(k)))
                {
                    return Err(format!(
                        "--engines: unknown engine {unknown:?} (known: {})",
                        ENGINES.join(", ")
                    ));
                }
                options.ours = [
                    has("ours") || has("ours-exact"),
                    has("ours") || has("ours-iterative"),
                ];
                options.ode = [
                    has("ode") || has("ode-exact"),
                    has("ode") || has("ode-quick"),
                ];
                options.rapier = has("rapier");
                options.engines = Some(list.clone());
            }
            "--budget" => {
                let seconds: f64 = value("--budget")?
                    .parse()
                    .map_err(|e| format!("--budget: {e}"))?;
                if !(seconds.is_finite() && seconds > 0.0) {
                    return Err("--budget must be a positive number of seconds".into());
                }
                options.budget = Duration::from_secs_f64(seconds);
            }
            "--row-limit" => {
                options.row_limit = value("--row-limit")?
                    .parse()
                    .map_err(|e| format!("--row-limit: {e}"))?;
            }
            "--rounds" => {
                options.rounds = value("--rounds")?
                    .parse::<usize>()
                    .ok()
                    .filter(|&n| (1..=100).contains(&n))
                    .ok_or("--rounds must be a whole number from 1 to 100")?;
                options.rounds_given = true;
            }
            "--steps" => {
                let steps = value("--steps")?
                    .parse::<usize>()
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or("--steps must be a whole number above 0")?;
                spec::set_steps(steps);
            }
            "--pareto" => options.pareto_run = true,
            "--python" => options.python = Some(PathBuf::from(value("--python")?)),
            "--svg-dir" => options.svg_dir = Some(PathBuf::from(value("--svg-dir")?)),
            "--no-experiments" => options.experiments = false,
            "--no-lcp" => options.lcp_run = false,
            "--lcp-only" => options.scenes_run = false,
            "--queries" => options.queries_run = true,
            "--export-lcp" => options.export = Some(PathBuf::from(value("--export-lcp")?)),
            "--pyramid-rows" => {
                options.engine_problems.pyramid_rows = value("--pyramid-rows")?
                    .split(',')
                    .filter(|s| !s.trim().is_empty())
                    .map(|s| {
                        s.trim()
                            .parse::<usize>()
                            .ok()
                            .filter(|rows| (1..=20).contains(rows))
                            .ok_or(format!("--pyramid-rows: {s:?} is not a size from 1 to 20"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--help" | "-h" => {
                return Err(
                    "usage: stiction-peers [--scenes s1,s2,...] [--engines ours,ode,rapier] \
                            [--budget SECONDS] [--row-limit ROWS] [--no-experiments] \
                            [--no-lcp | --lcp-only] \
                            [--export-lcp DIR] [--pyramid-rows 4,6,8] [--rounds N] \
                            [--steps N]\n       \
                            stiction-peers --queries [--rounds N]\n       \
                            stiction-peers --pareto [--scenes s1,s2,s4] [--engines ...] \
                            [--rounds N] [--python PATH] [--svg-dir DIR]"
                        .into(),
                )
            }
            other => return Err(format!("unknown argument {other:?} (try --help)")),
        }
    }
    if options.queries_run || options.pareto_run {
        options.scenes_run = false;
        options.lcp_run = false;
    }
    if options.pareto_run {
        if !options.scenes_given {
            options.scenes = pareto::SCENES.to_vec();
        }
        if let Some(s) = options.scenes.iter().find(|s| !pareto::SCENES.contains(s)) {
            return Err(format!("--pareto runs S1, S2 and S4, not {}", s.label()));
        }
        if !options.rounds_given {
            options.rounds = 1;
        }
    }
    Ok(options)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// The budget of a run: the exact steppers on the two large scenes get `large`, whatever
/// else a generous safety net.
fn budget_for(scene: SceneId, kind: Kind, large: Duration) -> Budget {
    let big = matches!(scene, SceneId::S1 | SceneId::S2);
    if big && kind == Kind::Exact {
        Budget {
            wall: large,
            slow_step: Duration::from_secs(5),
        }
    } else {
        Budget {
            wall: Duration::from_secs(180),
            slow_step: Duration::from_secs(10),
        }
    }
}

fn progress(r: &RunResult) {
    let time = r.timing.as_ref().map_or("-".into(), |t| {
        format!(
            "{:.3} ms/step, {} of {} steps",
            t.median_ms, t.done, t.planned
        )
    });
    eprintln!("  {:<16} {:<48} {time}", r.scene.label(), r.engine);
}

/// The post-stabilisation variants of this engine's iterative step on the contact scenes.
fn run_experiments(options: &Options) -> (Vec<RunResult>, Vec<ours::PhaseProfile>) {
    let mut results = Vec::new();
    let mut profiles = Vec::new();
    if !options.experiments || !options.ours[1] {
        return (results, profiles);
    }
    for &scene in &options.scenes {
        if !matches!(scene, SceneId::S1 | SceneId::S2 | SceneId::S3 | SceneId::S4) {
            continue;
        }
        for variant in ours::POST_STABILIZATION_VARIANTS {
            if variant.only.is_some_and(|only| only != scene) {
                continue;
            }
            let budget = budget_for(scene, Kind::Iterative, options.budget);
            let (r, profile) = ours::run(
                scene,
                Kind::Iterative,
                budget,
                options.row_limit,
                Some(variant),
            );
            progress(&r);
            results.push(r);
            profiles.extend(profile);
        }
    }
    (results, profiles)
}

/// One engine's run of one scene, repeatable.
type Runner = Box<dyn FnMut() -> (RunResult, Option<ours::PhaseProfile>)>;

/// Runs every runner once, then `rounds - 1` more times in the same order (the engines
/// interleaved), except those whose first run took longer than [`REPEAT_LIMIT`] or stopped
/// before its last step; returns each runner's first result with its timing replaced by
/// the rounds' combination ([`measure::combine`]) and the first run's phase profile.
fn run_rounds(
    runners: &mut [Runner],
    rounds: usize,
) -> Vec<(RunResult, Option<ours::PhaseProfile>)> {
    let mut first = Vec::with_capacity(runners.len());
    let mut timings: Vec<Vec<measure::Timing>> = Vec::with_capacity(runners.len());
    let mut repeat = Vec::with_capacity(runners.len());
    for runner in runners.iter_mut() {
        let clock = Instant::now();
        let (r, profile) = runner();
        // A run that stopped early (a budget, a failure) says what it says once.
        let complete = r.timing.as_ref().is_some_and(|t| t.complete());
        repeat.push(complete && clock.elapsed() <= REPEAT_LIMIT);
        timings.push(r.timing.iter().cloned().collect());
        first.push((r, profile));
    }
    for round in 1..rounds {
        eprintln!("  round {} of {rounds}", round + 1);
        for (k, runner) in runners.iter_mut().enumerate() {
            if repeat[k] {
                let (r, _) = runner();
                timings[k].extend(r.timing);
            }
        }
    }
    for ((r, _), runs) in first.iter_mut().zip(&timings) {
        if runs.len() > 1 {
            let (lo, hi) = measure::spread(runs);
            r.timing = Some(measure::combine(runs));
            r.notes.push(format!(
                "median of {} runs ({} to {} ms/step)",
                runs.len(),
                report::ms(lo),
                report::ms(hi)
            ));
        }
    }
    first
}

fn run_scenes(options: &Options) -> (Vec<RunResult>, Vec<ours::PhaseProfile>) {
    let mut results = Vec::new();
    let mut profiles = Vec::new();
    let push = |r: RunResult, results: &mut Vec<RunResult>| {
        progress(&r);
        results.push(r);
    };
    for &scene in &options.scenes {
        if scene == SceneId::S5 {
            if options.ours.contains(&true) {
                for r in ours::run_spinner(Budget::NONE) {
                    push(r, &mut results);
                }
            }
            if options.ode.contains(&true) {
                for (stepper, gyroscopic) in [
                    (OdeStepper::Exact, true),
                    (OdeStepper::Exact, false),
                    (OdeStepper::Quick, true),
                ] {
                    let r = ode::scenes::run(scene, stepper, gyroscopic, Budget::NONE, usize::MAX);
                    push(r, &mut results);
                }
            }
            if options.rapier {
                for gyroscopic in [true, false] {
                    push(
                        rapier_runs::run(scene, gyroscopic, Budget::NONE),
                        &mut results,
                    );
                }
            }
            continue;
        }
        let mut runners: Vec<Runner> = Vec::new();
        for (kind, wanted) in [Kind::Exact, Kind::Iterative].into_iter().zip(options.ours) {
            if wanted {
                let budget = budget_for(scene, kind, options.budget);
                let row_limit = options.row_limit;
                runners.push(Box::new(move || {
                    ours::run(scene, kind, budget, row_limit, None)
                }));
            }
        }
        let ode_steppers = [
            (OdeStepper::Exact, Kind::Exact),
            (OdeStepper::Quick, Kind::Iterative),
        ];
        for ((stepper, kind), wanted) in ode_steppers.into_iter().zip(options.ode) {
            if wanted {
                let budget = budget_for(scene, kind, options.budget);
                let row_limit = options.row_limit;
                runners.push(Box::new(move || {
                    let r = ode::scenes::run(scene, stepper, true, budget, row_limit);
                    (r, None)
                }));
            }
        }
        if options.rapier {
            let budget = budget_for(scene, Kind::Iterative, options.budget);
            runners.push(Box::new(move || {
                (rapier_runs::run(scene, true, budget), None)
            }));
        }
        for (r, profile) in run_rounds(&mut runners, options.rounds) {
            push(r, &mut results);
            profiles.extend(profile);
        }
    }
    (results, profiles)
}

/// The interpreter of the Python engines: `--python`, `$STICTION_PYTHON`, the test venv,
/// `python3`.
fn python_of(options: &Options) -> PathBuf {
    if let Some(p) = &options.python {
        return p.clone();
    }
    if let Some(p) = std::env::var_os("STICTION_PYTHON") {
        return PathBuf::from(p);
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/python-venv/bin/python");
    if venv.exists() {
        return venv;
    }
    PathBuf::from("python3")
}

/// `--pareto`: the curves, their tables and plots.
fn run_pareto(options: &Options) {
    let python = python_of(options);
    let wanted = |curve: &str| -> bool {
        let Some(list) = &options.engines else {
            return true;
        };
        let family = match curve.split(' ').next().unwrap_or("") {
            "Stiction" => "ours",
            "ODE" => "ode",
            "Rapier" | "Rapier," => "rapier",
            "MuJoCo" => "mujoco",
            "PyBullet" => "pybullet",
            _ => "",
        };
        list.split(',')
            .any(|e| e.trim().eq_ignore_ascii_case(family))
    };
    eprintln!(
        "work-precision curves (load average {}, Python engines through {}):",
        load_average(),
        python.display()
    );
    let (results, notes) = pareto::run(&options.scenes, options.rounds, &python, &wanted);
    println!("## Work-precision curves\n");
    println!(
        "Times are ms per step (wall time, collision included; MuJoCo and PyBullet timed around \
         each step call from Python): the median step of each run, the median over {} round(s). \
         A run that stopped early (a step over {} s, or {} s in all) or lost a sphere is not a \
         point of its curve.\n",
        options.rounds,
        pareto::POINT_BUDGET.slow_step.as_secs(),
        pareto::POINT_BUDGET.wall.as_secs()
    );
    for n in &notes {
        println!("- {n}");
    }
    if !notes.is_empty() {
        println!();
    }
    for (scene, points) in &results {
        let svg = options.svg_dir.as_ref().and_then(|dir| {
            let path = pareto::svg_path(dir, *scene);
            match pareto::draw(*scene, points, &path) {
                Ok(()) => Some(path.display().to_string()),
                Err(e) => {
                    eprintln!("{}: no plot: {e}", scene.label());
                    None
                }
            }
        });
        println!("{}", pareto::markdown(*scene, points, svg.as_deref()));
    }
}

fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let load_before = load_average();
    if options.queries_run {
        eprintln!("scene queries (load average {load_before}):");
        if let Err(e) = queries::run(options.rounds) {
            eprintln!("scene queries: {e}");
            return ExitCode::FAILURE;
        }
    }
    if options.pareto_run {
        run_pareto(&options);
    }
    if options.scenes_run {
        println!("## Scenes\n");
        eprintln!("scenes (load average {load_before}):");
        let (results, mut profiles) = run_scenes(&options);
        println!("{}", report::markdown(&results, &results));
        let missing: Vec<String> = [SceneId::S1, SceneId::S2, SceneId::S4]
            .into_iter()
            .filter(|s| options.scenes.contains(s) && ours::builder_name(*s).is_none())
            .map(|s| s.label().to_string())
            .collect();
        if !missing.is_empty() {
            println!(
                "Not available yet in this engine (no builder in crates/engine/src/scenes.rs): {}.\n",
                missing.join(", ")
            );
        }
        for s in [SceneId::S1, SceneId::S2, SceneId::S4] {
            if let Some(name) = ours::builder_name(s) {
                println!("- {} built by `stiction::scenes::{name}`", s.label());
            }
        }
        let (experiments, experiment_profiles) = run_experiments(&options);
        if !experiments.is_empty() {
            println!("\n### What post-stabilisation costs (Stiction's iterative step, changed settings)\n");
            println!("{}", report::markdown(&experiments, &results));
        }
        profiles.extend(experiment_profiles);
        if !profiles.is_empty() {
            println!("\n### Where Stiction's step time goes (ms/step, mean over the steps run)\n");
            println!("{}", ours::PhaseProfile::HEADER);
            for p in &profiles {
                println!("{}", p.markdown_row());
            }
        }
        println!();
    }
    if options.lcp_run {
        eprintln!("LCP solvers alone:");
        let mut notes = Vec::new();
        let problems = lcp_compare::problems(&options.engine_problems, &mut notes);
        if let Some(dir) = &options.export {
            match lcp_compare::export(&problems, dir) {
                Ok(files) => notes.push(format!("exported: {}", files.join(", "))),
                Err(e) => notes.push(format!("export failed: {e}")),
            }
        }
        let comparisons: Vec<_> = problems
            .iter()
            .map(|p| {
                let c = lcp_compare::compare(p);
                eprintln!("  {:<24} {} rows", c.name, c.rows);
                c
            })
            .collect();
        println!("## LCP solvers alone (median)\n");
        println!("{}", lcp_compare::markdown(&comparisons));
        println!(
            "Cold solves unless marked warm. \"Stiction warm\": the solve started from the index sets of \
             its own solution of the same island's problem one step earlier, as the engine's step \
             does (engine problems only). ODE's answers are measured with this project's residual \
             (`boxed_residual`); \"bounds\" is how far its forces lie outside mu times the final \
             normal forces.\n"
        );
        for p in &problems {
            println!("- `{}`: {}", p.name, p.origin);
        }
        for n in &notes {
            println!("- {n}");
        }
        println!();
    }
    println!(
        "Load average at start {load_before}, at end {}.",
        load_average()
    );
    ExitCode::SUCCESS
}
