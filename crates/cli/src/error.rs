//! Why a command stopped, and which exit status that maps to.

use std::path::{Path, PathBuf};

use stiction_lcp::LcpError;

use crate::scene::SceneError;
use crate::sweep::SweepError;

/// Exit status for bad input or usage (clap uses the same for its own usage errors).
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit status for a command that ran but did not succeed.
pub const EXIT_FAILED: u8 = 1;

/// A command's failure, printed as one `error: ` line on stderr.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// An input file could not be read at all.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// An input file was read but is not a valid problem (syntax, shape, bounds, ...).
    #[error("{}: {source}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Which rule it broke, naming the field.
        source: LcpError,
    },
    /// A solver rejected the options it was given.
    #[error("--solver {solver}: {source}")]
    Options {
        /// The solver's name on the command line.
        solver: &'static str,
        /// Which option and which rule.
        source: LcpError,
    },
    /// The result could not be written.
    #[error("cannot write the result: {0}")]
    Output(std::io::Error),
    /// A scene file could not be loaded (its message names the file and the field).
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// A robot model (URDF, MJCF) could not be loaded (its message starts with the file,
    /// line and column at fault).
    #[error(transparent)]
    Model(#[from] stiction_models::ModelError),
    /// A run directory or image could not be written.
    #[error("{}: cannot write: {source}", path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A run directory to render is missing a file or holds one that does not parse.
    #[error("{}: {reason}", path.display())]
    RunDir {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A command ran but did not succeed (a step the engine refused, a broken invariant):
    /// the message says what failed, in the scene's names.
    #[error("{0}")]
    Failed(String),
    /// A sweep refused before any run (a bad --set, a directory holding another sweep).
    #[error(transparent)]
    Sweep(#[from] SweepError),
    /// A command-line value is out of range.
    #[error("{option}: {rule}")]
    Usage {
        /// The option, e.g. `--width`.
        option: &'static str,
        /// The rule it broke.
        rule: String,
    },
}

impl CliError {
    /// A file-level problem error.
    pub fn invalid(path: &Path, source: LcpError) -> Self {
        CliError::Invalid {
            path: path.to_path_buf(),
            source,
        }
    }

    /// A failure to write `path`.
    pub fn write(path: &Path, source: std::io::Error) -> Self {
        CliError::Write {
            path: path.to_path_buf(),
            source,
        }
    }

    /// The process exit status this failure maps to.
    pub fn exit_status(&self) -> u8 {
        match self {
            CliError::Read { .. }
            | CliError::Invalid { .. }
            | CliError::Options { .. }
            | CliError::Scene(_)
            | CliError::Model(_)
            | CliError::RunDir { .. }
            | CliError::Sweep(_)
            | CliError::Usage { .. } => EXIT_BAD_INPUT,
            CliError::Output(_) | CliError::Write { .. } | CliError::Failed(_) => EXIT_FAILED,
        }
    }
}
