//! `--quiet` and `--json`, shared by the scene commands: what goes to stdout.

use clap::Args;
use serde::Serialize;

/// How a command reports.
#[derive(Debug, Args, Clone, Copy, Default)]
pub struct OutputArgs {
    /// Print nothing on success (errors still go to stderr); no progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the result as one JSON object on stdout instead of text; no progress bar.
    #[arg(long, conflicts_with = "quiet")]
    pub json: bool,
}

impl OutputArgs {
    /// Whether a progress bar may be drawn (on stderr, and only on a terminal).
    pub fn show_progress(&self) -> bool {
        !self.quiet && !self.json
    }

    /// Prints a warning as one `warning: ` line on stderr, unless `--quiet` (a warning is
    /// not an error; in `--json` mode the JSON carries it too).
    pub fn warn(&self, warning: &str) {
        if !self.quiet {
            eprintln!("warning: {warning}");
        }
    }

    /// Prints `value` as one line of JSON, or `lines` as text, or nothing.
    pub fn print_summary<T: Serialize>(&self, value: &T, lines: &[String]) {
        if self.quiet {
            return;
        }
        if self.json {
            match serde_json::to_string(value) {
                Ok(json) => println!("{json}"),
                Err(e) => eprintln!("error: cannot encode the summary as JSON: {e}"),
            }
        } else {
            for line in lines {
                println!("{line}");
            }
        }
    }
}
