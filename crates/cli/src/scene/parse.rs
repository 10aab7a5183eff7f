//! Reading a scene file (TOML or JSON, chosen by the file name) into [`SceneFile`], with
//! syntax and schema errors located by line and column.

use std::path::{Path, PathBuf};

use crate::scene::builtin;
use crate::scene::error::SceneError;
use crate::scene::schema::SceneFile;

/// The two file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `.toml`
    Toml,
    /// `.json`
    Json,
}

impl Format {
    /// The format a file name announces, if any.
    pub fn of(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "toml" => Some(Format::Toml),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

/// Where a scene comes from, decided once from the path as typed, so that reading it and
/// every message about it agree (a file that appears between two checks cannot make them
/// disagree).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A scene file (or a path that names none, refused when read).
    File(PathBuf),
    /// A built-in scene: the path named no file but this scene.
    Builtin {
        /// Its file name in the repository's scenes/ folder.
        file: &'static str,
        /// Its TOML text.
        text: &'static str,
    },
}

impl Source {
    /// What `path` names: a built-in scene (`pendulum`, `s3-chain-100.toml`, ...) when no
    /// file exists there, else a file.
    pub fn of(path: &Path) -> Self {
        if !path.exists() {
            if let Some((file, text)) = path.to_str().and_then(builtin::find) {
                return Source::Builtin { file, text };
            }
        }
        Source::File(path.to_path_buf())
    }

    /// How messages name the scene: the path as typed, or `scenes/<name>.toml` for a
    /// built-in scene.
    pub fn label(&self) -> PathBuf {
        match self {
            Source::File(path) => path.clone(),
            Source::Builtin { file, .. } => Path::new("scenes").join(file),
        }
    }

    /// Reads and parses the scene (no physical validation).
    pub fn read(&self) -> Result<SceneFile, SceneError> {
        let path = match self {
            Source::Builtin { text, .. } => {
                return parse_scene(text, Format::Toml, &self.label());
            }
            Source::File(path) => path,
        };
        if path.extension().is_none() && !path.exists() {
            // A bare name: a misspelt built-in scene more likely than a file without extension.
            return Err(SceneError::UnknownScene { path: path.clone() });
        }
        let format =
            Format::of(path).ok_or_else(|| SceneError::UnknownFormat { path: path.clone() })?;
        let text = std::fs::read_to_string(path).map_err(|source| SceneError::Read {
            path: path.clone(),
            source,
        })?;
        parse_scene(&text, format, path)
    }
}

/// Reads and parses `path` (no physical validation): [`Source::of`] then [`Source::read`].
/// A `path` that names no file but a built-in scene reads that scene; errors then name it
/// `scenes/<name>.toml`.
pub fn read_scene(path: &Path) -> Result<SceneFile, SceneError> {
    Source::of(path).read()
}

/// How errors name the scene `path` ([`Source::label`]).
pub fn label(path: &Path) -> PathBuf {
    Source::of(path).label()
}

/// Parses scene text; `path` only labels errors.
pub fn parse_scene(text: &str, format: Format, path: &Path) -> Result<SceneFile, SceneError> {
    match format {
        Format::Toml => toml::from_str(text).map_err(|e| {
            let offset = e.span().map_or(0, |span| span.start);
            let (line, column) = line_and_column(text, offset);
            SceneError::Syntax {
                path: path.to_path_buf(),
                line,
                column,
                message: e.message().trim().to_string(),
            }
        }),
        Format::Json => serde_json::from_str(text).map_err(|e| SceneError::Syntax {
            path: path.to_path_buf(),
            // serde_json says column 0 for an error before a line's first character (an
            // empty file, an end of input right after a newline); columns here start at 1.
            line: e.line().max(1),
            column: e.column().max(1),
            message: strip_json_location(&e.to_string()),
        }),
    }
}

/// 1-based line and character column of byte `offset` in `text`.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// serde_json appends " at line L column C"; the error carries them separately.
fn strip_json_location(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_one_based_lines_and_character_columns() {
        let text = "a = 1\nbé = 2\n";
        assert_eq!(line_and_column(text, 0), (1, 1));
        assert_eq!(line_and_column(text, 6), (2, 1));
        // 'é' is two bytes but one column.
        assert_eq!(line_and_column(text, 9), (2, 3));
    }

    #[test]
    fn toml_schema_errors_point_at_the_field() {
        let text = "[world]\nstep = 0.01\nsolver = { type = \"fast\" }\n";
        let err = parse_scene(text, Format::Toml, Path::new("s.toml")).unwrap_err();
        match err {
            SceneError::Syntax { line, message, .. } => {
                assert_eq!(line, 3);
                assert!(message.contains("fast"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}
