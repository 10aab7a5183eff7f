//! The `stiction` command: a thin dispatcher over one module per subcommand.
//!
//! Exit status, for every subcommand: 0 when it did its job, 1 when it ran but its result is
//! not a success (a solver that did not converge, a step that failed), 2 for bad input or
//! usage (the message is one line on stderr starting with `error: `).

mod bench;
mod demo;
mod error;
mod lcp_cmd;
mod model;
mod output;
mod render;
mod run;
mod step_error;
mod stress;
mod sweep;
mod view;

// The scene reader lives in the library (src/lib.rs) so the fuzz target can reach it.
use stiction_cli::{readable, scene};

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::error::CliError;

/// Stiction: rigid-body dynamics built around complementarity (LCP) solvers.
#[derive(Debug, Parser)]
#[command(name = "stiction", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the default scene and render it to an animated GIF (the quickest look).
    Demo(demo::DemoArgs),
    /// Run a scene file (or a built-in scene by name) and write its trajectory and
    /// statistics to a run directory.
    Run(run::RunArgs),
    /// Draw a run directory (or run a scene file first): an animated GIF, PNG stills and
    /// SVG plots of energy, momentum, penetration and solver residual.
    Render(render::RenderArgs),
    /// Time the benchmark scenes S1-S5 (docs/scenes.md), or a scene file or robot model, and
    /// print a markdown table.
    Bench(bench::BenchArgs),
    /// Solve linear complementarity problems stored as JSON files.
    Lcp(lcp_cmd::LcpArgs),
    /// Long runs of S4 and a 5000-sphere pile checking finiteness, containment and energy
    /// after every step (exit 1 at the first violation).
    Stress(stress::StressArgs),
    /// Look at a run directory in the browser in 3-D (served on loopback, or one HTML file
    /// with --html), or step a scene live there (--live).
    View(view::ViewArgs),
    /// Run a scene over every combination of parameter values (--set PATH=VALUES) and
    /// seeds on all cores, one row per run in DIR/summary.csv (docs/sweep.md).
    Sweep(sweep::SweepArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Demo(args) => demo::demo(args),
        Command::Run(args) => run::run(args),
        Command::Render(args) => render::render(args),
        Command::Bench(args) => bench::bench(args),
        Command::Lcp(args) => lcp_cmd::run(args),
        Command::Stress(args) => stress::stress(args),
        Command::View(args) => view::view(args),
        Command::Sweep(args) => sweep::sweep(args),
    };
    match outcome {
        Ok(code) => code,
        Err(err) => {
            report(&err);
            ExitCode::from(err.exit_status())
        }
    }
}

/// Prints an error as the single `error: ` line scripts can rely on.
fn report(err: &CliError) {
    let message = err.to_string();
    let one_line: Vec<&str> = message.lines().map(str::trim).collect();
    eprintln!("error: {}", one_line.join(" "));
}
