//! `stiction lcp compare FILE...`: every applicable solver on each problem file, as a
//! markdown table (or JSON), beside the engine's answer when the file is a `--dump-lcp` dump.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use serde::{Deserialize, Serialize};
use stiction_lcp::dantzig::{solve_dantzig, DantzigOptions};
use stiction_lcp::lemke::{solve_lemke, LemkeOptions};
use stiction_lcp::pgd::{solve_pgd, PgdOptions};
use stiction_lcp::pgs::{solve_pgs, PgsOptions};
use stiction_lcp::{BoxedLcp, LcpError, SolveReport, StandardLcp};

use crate::error::CliError;

/// The sweep counts PGS runs with.
const PGS_SWEEPS: [usize; 3] = [10, 50, 200];

/// Arguments of `stiction lcp compare`.
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// Print the rows as JSON (one array) instead of a markdown table.
    #[arg(long)]
    json: bool,

    /// Problem files: `stiction lcp solve` files or `stiction run --dump-lcp` dumps.
    #[arg(value_name = "PROBLEM.json", required = true)]
    files: Vec<PathBuf>,
}

/// The engine's answer recorded in a dump file (`stiction run --dump-lcp`).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct EngineAnswer {
    #[serde(default)]
    pub stepper: String,
    pub lambda: Vec<Option<f64>>,
    pub status: String,
    pub residual: Option<f64>,
    pub iterations: usize,
    #[serde(default)]
    pub seconds: f64,
}

/// One row of the comparison.
#[derive(Debug, Serialize)]
struct Row {
    file: String,
    solver: String,
    status: String,
    residual: Option<f64>,
    /// Pivots (dantzig, lemke, the engine's exact stepper) or sweeps (pgs, pgd, the
    /// iterative stepper).
    iterations: usize,
    seconds: f64,
    /// Largest |x - engine lambda| (boxed solvers on a dump file only).
    max_diff_from_engine: Option<f64>,
}

pub(crate) fn run_compare(args: &CompareArgs) -> Result<ExitCode, CliError> {
    let mut rows = Vec::new();
    for path in &args.files {
        let (file, engine) = super::read_problem_with_answer(path)?;
        let problem = file.into_boxed().map_err(|e| CliError::invalid(path, e))?;
        compare_file(path, &problem, engine.as_ref(), &mut rows)
            .map_err(|e| CliError::invalid(path, e))?;
    }
    let text = if args.json {
        serde_json::to_string_pretty(&rows).map_err(|e| CliError::Output(e.into()))? + "\n"
    } else {
        table(&rows)
    };
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.map_err(CliError::Output)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn compare_file(
    path: &Path,
    problem: &BoxedLcp,
    engine: Option<&EngineAnswer>,
    rows: &mut Vec<Row>,
) -> Result<(), LcpError> {
    let name = path.display().to_string();
    let lambda: Option<Vec<f64>> = engine.and_then(|e| {
        (e.lambda.len() == problem.len())
            .then(|| e.lambda.iter().map(|v| v.unwrap_or(f64::NAN)).collect())
    });
    if let Some(e) = engine {
        rows.push(Row {
            file: name.clone(),
            solver: format!("engine ({})", e.stepper),
            status: e.status.clone(),
            residual: e.residual,
            iterations: e.iterations,
            seconds: e.seconds,
            max_diff_from_engine: None,
        });
    }
    let mut push = |solver: String, started: Instant, report: SolveReport, boxed: bool| {
        let seconds = started.elapsed().as_secs_f64();
        let diff = match (&lambda, boxed) {
            (Some(l), true) => Some(
                l.iter()
                    .zip(&report.x)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f64::max),
            ),
            _ => None,
        };
        rows.push(Row {
            file: name.clone(),
            solver,
            status: report.status.as_str().to_string(),
            residual: Some(report.residual.max()).filter(|r| r.is_finite()),
            iterations: report.iterations,
            seconds,
            max_diff_from_engine: diff.filter(|d| d.is_finite()),
        });
    };
    let started = Instant::now();
    let report = solve_dantzig(problem, &DantzigOptions::default(), None)?;
    push("dantzig".into(), started, report, true);
    for sweeps in PGS_SWEEPS {
        let options = PgsOptions {
            max_iterations: sweeps,
            ..PgsOptions::default()
        };
        let started = Instant::now();
        let report = solve_pgs(problem, None, &options)?;
        push(format!("pgs-{sweeps}"), started, report, true);
    }
    let started = Instant::now();
    let report = solve_pgd(problem, None, &PgdOptions::default())?;
    push("pgd".into(), started, report, true);
    if is_standard(problem) {
        // A x = b + w, x >= 0 is Lemke's w = A z + q with q = -b.
        let standard = StandardLcp::new(problem.a.clone(), problem.b.iter().map(|v| -v).collect());
        let started = Instant::now();
        let report = solve_lemke(&standard, &LemkeOptions::default())?;
        push("lemke".into(), started, report, true);
    }
    Ok(())
}

/// Whether every row is bounded by [0, inf) alone (Lemke's standard LCP).
fn is_standard(problem: &BoxedLcp) -> bool {
    problem.nub == 0
        && problem.lo.iter().all(|&l| l == 0.0)
        && problem.hi.iter().all(|&h| h == f64::INFINITY)
        && problem.findex.iter().all(Option::is_none)
}

fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| file | solver | status | residual | pivots/sweeps | time (ms) | max abs diff from engine |\n\
         |---|---|---|---:|---:|---:|---:|\n",
    );
    let num = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.3e}"));
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {:.3} | {} |\n",
            r.file,
            r.solver,
            r.status,
            num(r.residual),
            r.iterations,
            r.seconds * 1e3,
            num(r.max_diff_from_engine),
        ));
    }
    out
}
