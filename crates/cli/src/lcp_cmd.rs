//! `stiction lcp ...`: solve a problem file with any of the crate's solvers and print the
//! report as JSON.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;
use stiction_lcp::dantzig::{solve_dantzig, DantzigOptions};
use stiction_lcp::json::{parse_problem, ProblemFile};
use stiction_lcp::lemke::{solve_lemke, LemkeOptions};
use stiction_lcp::pgd::{solve_pgd, PgdOptions};
use stiction_lcp::pgs::{solve_pgs, PgsOptions};
use stiction_lcp::{LcpError, SolveReport};

use crate::error::{CliError, EXIT_FAILED};
use crate::run::dump_lcp::DUMP_KEYS;

#[path = "lcp_compare.rs"]
mod compare;

/// Arguments of `stiction lcp`.
#[derive(Debug, Args)]
#[command(arg_required_else_help = true)]
pub struct LcpArgs {
    #[command(subcommand)]
    command: LcpCommand,
}

#[derive(Debug, Subcommand)]
enum LcpCommand {
    /// Solve one problem file and print the solution and the solver's report as JSON.
    #[command(long_about = SOLVE_ABOUT, after_help = SOLVE_EXIT_STATUS)]
    Solve(SolveArgs),
    /// Solve each problem file with every applicable solver and print a markdown table.
    #[command(long_about = COMPARE_ABOUT)]
    Compare(compare::CompareArgs),
}

const COMPARE_ABOUT: &str = "\
Solve each problem file with every applicable solver of the lcp crate and print a markdown \
table: file, solver, status, residual, pivots or sweeps, time, and the largest difference \
from the engine's forces, row by row as each solver finishes. Solvers: dantzig, pgs at 10, \
50 and 200 sweeps, pgd (at most 2000 iterations), and lemke when every row is bounded by \
[0, inf) alone (lemke reads w = a z - b there, the same problem). Above \
--max-pivoting-rows rows (default 4000) dantzig and lemke, whose dense pivots cost about \
n^3, are not run: their row says `skipped` and why. A file written by `stiction run \
--dump-lcp` also has a row \"engine\" with the figures the step recorded. --json prints the \
rows as a JSON array of {\"file\", \"solver\", \"status\", \"residual\", \"iterations\", \
\"seconds\", \"max_diff_from_engine\"} (and \"note\" on a skipped row).

Exit status: 0 compared (whatever the solvers reported); 2 bad input (missing, unreadable \
or invalid file), with a one-line `error: ` message on stderr.";

const SOLVE_ABOUT: &str = "\
Solve one problem file and print the solution and the solver's report as JSON.

The file is a boxed LCP A x = b + w: {\"a\": [[...], ...], \"b\": [...], \"lo\": [...], \
\"hi\": [...], \"findex\": [...], \"nub\": N}. lo/hi default to 0 and +inf, findex to -1 \
(none), nub to 0; infinite bounds are \"inf\"/\"-inf\" or null. Lemke instead reads the \
file as the standard LCP w = a z + b, 0 <= z _|_ w >= 0 (note the sign of b: the same file \
is a different problem for lemke than for dantzig, pgs and pgd), and rejects files that set \
lo, hi, findex or nub. Examples: examples/lcp/.

Output (one line on stdout): {\"x\", \"w\", \"status\", \"iterations\", \"residual\", \
\"residual_parts\": {\"bound\", \"equation\", \"complementarity\"}, \"fell_back\"}. \
residual is the largest of the normalised residual parts; non-finite numbers print as null.";

const SOLVE_EXIT_STATUS: &str = "\
Exit status: 0 solved; 1 the solver finished without solving (status other than \"solved\"; \
the JSON is still printed); 2 bad input (missing or unreadable file, invalid problem, bad \
option), with a one-line `error: ` message on stderr and nothing on stdout.";

/// Arguments of `stiction lcp solve`.
#[derive(Debug, Args)]
struct SolveArgs {
    /// Which solver to run. dantzig, pgs and pgd read the file as the boxed LCP
    /// a x = b + w; lemke reads it as the standard LCP w = a z + b (b has the opposite sign).
    #[arg(long, value_enum, default_value_t = SolverChoice::Dantzig)]
    solver: SolverChoice,

    /// Iteration (sweep) limit of pgs, pgd and dantzig's PGS fallback; ignored otherwise.
    /// Default: the solver's own.
    #[arg(long, value_name = "N")]
    max_iterations: Option<usize>,

    /// Convergence tolerance of pgs, pgd and dantzig's PGS fallback (finite, >= 0; pgd needs
    /// > 0); ignored otherwise. Default: the solver's own.
    #[arg(long, value_name = "T", value_parser = parse_tolerance)]
    tolerance: Option<f64>,

    /// SOR relaxation factor of pgs and dantzig's PGS fallback, in (0, 2) (1 is plain
    /// Gauss-Seidel); ignored otherwise. Default: the solver's own.
    #[arg(long, value_name = "W", value_parser = parse_omega)]
    omega: Option<f64>,

    /// dantzig only: if pivoting fails, finish with projected Gauss-Seidel (set up by
    /// --max-iterations, --tolerance and --omega); the output's "fell_back" tells whether it
    /// ran. Without it a pivoting failure is reported as such.
    #[arg(long)]
    fallback: bool,

    /// The problem file (JSON).
    #[arg(value_name = "PROBLEM.json")]
    problem: PathBuf,
}

/// The solvers `stiction lcp solve` can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SolverChoice {
    /// Exact principal pivoting (ODE's dSolveLCP); see --fallback.
    Dantzig,
    /// SOR projected Gauss-Seidel (iterative).
    Pgs,
    /// Lemke's complementary pivoting on w = a z + b, z >= 0 (standard LCP files only).
    Lemke,
    /// Accelerated projected gradient on the box-constrained QP (iterative).
    Pgd,
}

impl SolverChoice {
    /// The name used on the command line.
    fn name(self) -> &'static str {
        match self {
            SolverChoice::Dantzig => "dantzig",
            SolverChoice::Pgs => "pgs",
            SolverChoice::Lemke => "lemke",
            SolverChoice::Pgd => "pgd",
        }
    }
}

/// Runs `stiction lcp ...`.
pub fn run(args: LcpArgs) -> Result<ExitCode, CliError> {
    match args.command {
        LcpCommand::Solve(solve) => run_solve(&solve),
        LcpCommand::Compare(compare) => compare::run_compare(&compare),
    }
}

fn run_solve(args: &SolveArgs) -> Result<ExitCode, CliError> {
    let file = read_problem_file(&args.problem)?;
    let report = solve(file, args).map_err(|e| match e {
        LcpError::BadOption { .. } => CliError::Options {
            solver: args.solver.name(),
            source: e,
        },
        other => CliError::invalid(&args.problem, other),
    })?;
    print_report(&report)?;
    Ok(if report.status.is_solved() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FAILED)
    })
}

fn read_problem_file(path: &Path) -> Result<ProblemFile, CliError> {
    read_problem_with_answer(path).map(|(file, _)| file)
}

/// Reads a problem file, or a `stiction run --dump-lcp` dump: its problem, and the engine's
/// answer recorded beside it.
fn read_problem_with_answer(
    path: &Path,
) -> Result<(ProblemFile, Option<compare::EngineAnswer>), CliError> {
    let text = std::fs::read_to_string(path).map_err(|source| CliError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    // A dump is a problem object with more keys; plain files are parsed as they are, so
    // that their errors keep the line and column.
    if text.contains("\"engine\"") {
        if let Ok(serde_json::Value::Object(mut map)) = serde_json::from_str(&text) {
            if map.contains_key("engine") {
                let engine = map.get("engine").cloned().map(serde_json::from_value);
                let engine = match engine {
                    Some(Ok(answer)) => Some(answer),
                    Some(Err(e)) => {
                        let e = LcpError::Parse(format!("the \"engine\" answer: {e}"));
                        return Err(CliError::invalid(path, e));
                    }
                    None => None,
                };
                for key in DUMP_KEYS {
                    map.remove(key);
                }
                let problem = serde_json::Value::Object(map).to_string();
                let file = parse_problem(&problem).map_err(|e| CliError::invalid(path, e))?;
                return Ok((file, engine));
            }
        }
    }
    let file = parse_problem(&text).map_err(|e| CliError::invalid(path, e))?;
    Ok((file, None))
}

/// Converts the file to the problem the chosen solver reads and runs it. Conversion errors
/// (invalid problem) and option errors both come back as `LcpError`.
fn solve(file: ProblemFile, args: &SolveArgs) -> Result<SolveReport, LcpError> {
    match args.solver {
        SolverChoice::Dantzig => {
            let problem = file.into_boxed()?;
            let mut options = DantzigOptions::default();
            if args.fallback {
                let mut pgs = PgsOptions::default();
                apply_pgs_overrides(&mut pgs, args);
                options.fallback = Some(pgs);
            }
            solve_dantzig(&problem, &options, None)
        }
        SolverChoice::Pgs => {
            let problem = file.into_boxed()?;
            let mut options = PgsOptions::default();
            apply_pgs_overrides(&mut options, args);
            solve_pgs(&problem, None, &options)
        }
        SolverChoice::Pgd => {
            let problem = file.into_boxed()?;
            let mut options = PgdOptions::default();
            if let Some(n) = args.max_iterations {
                options.max_iterations = n;
            }
            if let Some(t) = args.tolerance {
                options.tolerance = t;
            }
            solve_pgd(&problem, None, &options)
        }
        SolverChoice::Lemke => {
            let problem = file.into_standard()?;
            solve_lemke(&problem, &LemkeOptions::default())
        }
    }
}

fn apply_pgs_overrides(options: &mut PgsOptions, args: &SolveArgs) {
    if let Some(n) = args.max_iterations {
        options.max_iterations = n;
    }
    if let Some(t) = args.tolerance {
        options.tolerance = t;
    }
    if let Some(w) = args.omega {
        options.omega = w;
    }
}

/// The JSON printed on stdout.
#[derive(Serialize)]
struct SolveOutput<'a> {
    x: &'a [f64],
    w: &'a [f64],
    status: &'static str,
    iterations: usize,
    residual: f64,
    residual_parts: ResidualParts,
    fell_back: bool,
}

#[derive(Serialize)]
struct ResidualParts {
    bound: f64,
    equation: f64,
    complementarity: f64,
}

fn print_report(report: &SolveReport) -> Result<(), CliError> {
    let output = SolveOutput {
        x: &report.x,
        w: &report.w,
        status: report.status.as_str(),
        iterations: report.iterations,
        residual: report.residual.max(),
        residual_parts: ResidualParts {
            bound: report.residual.bound,
            equation: report.residual.equation,
            complementarity: report.residual.complementarity,
        },
        fell_back: report.fell_back,
    };
    let mut stdout = std::io::stdout().lock();
    let written = serde_json::to_writer(&mut stdout, &output)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(stdout));
    match written {
        // A reader that stopped early (`| head`) is not our failure.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(CliError::Output),
    }
}

fn parse_tolerance(text: &str) -> Result<f64, String> {
    let t: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if t.is_finite() && t >= 0.0 {
        Ok(t)
    } else {
        Err(format!("must be finite and >= 0, got {text}"))
    }
}

fn parse_omega(text: &str) -> Result<f64, String> {
    let w: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if w.is_finite() && w > 0.0 {
        Ok(w)
    } else {
        Err(format!("must be finite and > 0, got {text}"))
    }
}
