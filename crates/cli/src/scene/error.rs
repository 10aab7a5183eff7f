//! Why a scene file was refused: each variant says where (file, line and column, or field
//! path) and what to change.

use std::path::PathBuf;

/// A scene that cannot be loaded or built.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The path names neither a file nor a built-in scene.
    #[error("{}: no such file, and no built-in scene of that name (built-in: {})", path.display(), crate::scene::builtin::names().join(", "))]
    UnknownScene {
        /// The path as given.
        path: PathBuf,
    },
    /// The file's name does not say which format it is in.
    #[error("{}: unknown scene format: the file name must end in .toml or .json", path.display())]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// The file is not well-formed TOML or JSON, or does not match the schema (a missing or
    /// misspelt field, a wrong type).
    #[error("{}:{line}:{column}: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column (characters).
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// The file is well-formed but describes something impossible.
    #[error("{}: {field}: {rule}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The field path, e.g. `bodies[3].shapes[0].half_extents`.
        field: String,
        /// The rule it broke, with the offending value.
        rule: String,
    },
}

/// A field-level problem before the file name is attached.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldError {
    /// The field breaks a rule.
    Invalid {
        /// Field path.
        field: String,
        /// Rule and value.
        rule: String,
    },
}

impl FieldError {
    /// A broken rule at `field`.
    pub fn invalid(field: impl Into<String>, rule: impl Into<String>) -> Self {
        FieldError::Invalid {
            field: field.into(),
            rule: rule.into(),
        }
    }

    /// The error with the file it came from.
    pub fn in_file(self, path: PathBuf) -> SceneError {
        let FieldError::Invalid { field, rule } = self;
        SceneError::Invalid { path, field, rule }
    }
}
