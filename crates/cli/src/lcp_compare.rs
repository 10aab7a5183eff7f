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

/// PGD's iteration cap here (its own default is 10,000): each iteration is one product with
/// the dense `A`, so 10,000 of them on S2's 7,044-row island would take minutes, while
/// S2's 2,400- and 3,700-row islands converge in 505 and 822.
const PGD_ITERATIONS: usize = 2000;

/// The markdown table's header.
const TABLE_HEADER: &str =
    "| file | solver | status | residual | pivots/sweeps | time (ms) | max abs diff from engine |\n\
     |---|---|---|---:|---:|---:|---:|\n";

/// Arguments of `stiction lcp compare`.
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// Print the rows as JSON (one array) instead of a markdown table.
    #[arg(long)]
    json: bool,

    /// Largest problem (rows) the pivoting solvers (dantzig, lemke) run on: their dense
    /// pivots cost about n^3 (dantzig: 1.6 s at 2,400 rows, 9 s at 3,700 on 2 cores), so a
    /// larger file gets a `skipped` row for them and only the sweeps run.
    #[arg(long, value_name = "N", default_value_t = 4000)]
    max_pivoting_rows: usize,

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
    /// Why a solver did not run (status `skipped`).
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// Where the rows go: gathered for one JSON array, or printed one by one as each solver
/// finishes (a large file's solves take seconds to minutes each).
enum Output {
    Json(Vec<Row>),
    Table(Printer),
}

impl Output {
    fn new(json: bool) -> Self {
        if json {
            Output::Json(Vec::new())
        } else {
            let mut printer = Printer::default();
            printer.print(TABLE_HEADER);
            Output::Table(printer)
        }
    }

    fn push(&mut self, row: Row) {
        match self {
            Output::Json(rows) => rows.push(row),
            Output::Table(printer) => printer.print(&table_row(&row)),
        }
    }

    fn finish(self) -> Result<(), CliError> {
        let mut printer = match self {
            Output::Json(rows) => {
                let text =
                    serde_json::to_string_pretty(&rows).map_err(|e| CliError::Output(e.into()))?;
                let mut printer = Printer::default();
                printer.print(&(text + "\n"));
                printer
            }
            Output::Table(printer) => printer,
        };
        printer
            .error
            .take()
            .map_or(Ok(()), |e| Err(CliError::Output(e)))
    }
}

/// Standard output, flushed after every piece; a reader that went away (a closed pipe) is
/// not an error, it just ends the printing.
#[derive(Default)]
struct Printer {
    /// The first write that failed other than by a closed pipe; later text is dropped.
    error: Option<std::io::Error>,
    /// The reader went away: nothing more to print.
    closed: bool,
}

impl Printer {
    fn print(&mut self, text: &str) {
        if self.closed || self.error.is_some() {
            return;
        }
        let mut stdout = std::io::stdout().lock();
        match stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
        {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => self.closed = true,
            Err(e) => self.error = Some(e),
        }
    }
}

pub(crate) fn run_compare(args: &CompareArgs) -> Result<ExitCode, CliError> {
    let mut output = Output::new(args.json);
    for path in &args.files {
        let (file, engine) = super::read_problem_with_answer(path)?;
        let problem = file.into_boxed().map_err(|e| CliError::invalid(path, e))?;
        compare_file(
            path,
            &problem,
            engine.as_ref(),
            args.max_pivoting_rows,
            &mut output,
        )
        .map_err(|e| CliError::invalid(path, e))?;
    }
    output.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// Every solver's row for one problem; `max_pivoting_rows` as
/// [`CompareArgs::max_pivoting_rows`].
fn compare_file(
    path: &Path,
    problem: &BoxedLcp,
    engine: Option<&EngineAnswer>,
    max_pivoting_rows: usize,
    rows: &mut Output,
) -> Result<(), LcpError> {
    let name = path.display().to_string();
    let lambda: Option<Vec<f64>> = engine.and_then(|e| {
        (e.lambda.len() == problem.len())
            .then(|| e.lambda.iter().map(|v| v.unwrap_or(f64::NAN)).collect())
    });
    let row = |solver: String| Row {
        file: name.clone(),
        solver,
        status: String::new(),
        residual: None,
        iterations: 0,
        seconds: 0.0,
        max_diff_from_engine: None,
        note: None,
    };
    if let Some(e) = engine {
        rows.push(Row {
            status: e.status.clone(),
            residual: e.residual,
            iterations: e.iterations,
            seconds: e.seconds,
            ..row(format!("engine ({})", e.stepper))
        });
    }
    let solved = |solver: String, started: Instant, report: SolveReport| {
        let diff = lambda.as_ref().map(|l| {
            l.iter()
                .zip(&report.x)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max)
        });
        Row {
            status: report.status.as_str().to_string(),
            residual: Some(report.residual.max()).filter(|r| r.is_finite()),
            iterations: report.iterations,
            seconds: started.elapsed().as_secs_f64(),
            max_diff_from_engine: diff.filter(|d| d.is_finite()),
            ..row(solver)
        }
    };
    let skipped = |solver: &str| Row {
        status: "skipped".into(),
        note: Some(format!(
            "{} rows, above --max-pivoting-rows {}",
            problem.len(),
            max_pivoting_rows
        )),
        ..row(solver.into())
    };
    let pivoting = problem.len() <= max_pivoting_rows;
    if pivoting {
        let started = Instant::now();
        let report = solve_dantzig(problem, &DantzigOptions::default(), None)?;
        rows.push(solved("dantzig".into(), started, report));
    } else {
        rows.push(skipped("dantzig"));
    }
    for sweeps in PGS_SWEEPS {
        let options = PgsOptions {
            max_iterations: sweeps,
            ..PgsOptions::default()
        };
        let started = Instant::now();
        let report = solve_pgs(problem, None, &options)?;
        rows.push(solved(format!("pgs-{sweeps}"), started, report));
    }
    let started = Instant::now();
    let options = PgdOptions {
        max_iterations: PGD_ITERATIONS,
        ..PgdOptions::default()
    };
    let report = solve_pgd(problem, None, &options)?;
    rows.push(solved("pgd".into(), started, report));
    if is_standard(problem) {
        if pivoting {
            // A x = b + w, x >= 0 is Lemke's w = A z + q with q = -b.
            let q = problem.b.iter().map(|v| -v).collect();
            let standard = StandardLcp::new(problem.a.clone(), q);
            let started = Instant::now();
            let report = solve_lemke(&standard, &LemkeOptions::default())?;
            rows.push(solved("lemke".into(), started, report));
        } else {
            rows.push(skipped("lemke"));
        }
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

/// One row of the markdown table; a skipped solver's status says why.
fn table_row(r: &Row) -> String {
    let num = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.3e}"));
    let status = match &r.note {
        Some(note) => format!("{} ({note})", r.status),
        None => r.status.clone(),
    };
    format!(
        "| {} | {} | {} | {} | {} | {:.3} | {} |\n",
        r.file,
        r.solver,
        status,
        num(r.residual),
        r.iterations,
        r.seconds * 1e3,
        num(r.max_diff_from_engine),
    )
}
