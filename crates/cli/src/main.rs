//! The `stiction` command: a thin dispatcher over one module per subcommand.
//!
//! Exit status, for every subcommand: 0 when it did its job, 1 when it ran but its result is
//! not a success (a solver that did not converge), 2 for bad input or usage (the message is
//! one line on stderr starting with `error: `).

mod error;
mod lcp_cmd;

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
    /// Solve linear complementarity problems stored as JSON files.
    Lcp(lcp_cmd::LcpArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Lcp(args) => lcp_cmd::run(args),
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
