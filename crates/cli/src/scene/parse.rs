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

/// Reads and parses `path` (no physical validation). A `path` that names no file but a
/// built-in scene (`pendulum`, `s3-chain-100`, ...) reads that scene; errors then name it
/// `scenes/<name>.toml`.
pub fn read_scene(path: &Path) -> Result<SceneFile, SceneError> {
    if let Some(text) = builtin_text(path) {
        return parse_scene(text, Format::Toml, &label(path));
    }
    if path.extension().is_none() && !path.exists() {
        // A bare name: a misspelt built-in scene more likely than a file without extension.
        return Err(SceneError::UnknownScene {
            path: path.to_path_buf(),
        });
    }
    let format = Format::of(path).ok_or_else(|| SceneError::UnknownFormat {
        path: path.to_path_buf(),
    })?;
    let text = std::fs::read_to_string(path).map_err(|source| SceneError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_scene(&text, format, path)
}

/// The text of the built-in scene `path` names, if it names no file but a built-in scene.
fn builtin_text(path: &Path) -> Option<&'static str> {
    if path.exists() {
        return None;
    }
    path.to_str().and_then(builtin::find).map(|(_, text)| text)
}

/// How errors name the scene `path`: itself, or `scenes/<name>.toml` for a built-in scene.
pub fn label(path: &Path) -> PathBuf {
    match path
        .to_str()
        .filter(|_| !path.exists())
        .and_then(builtin::find)
    {
        Some((file, _)) => Path::new("scenes").join(file),
        None => path.to_path_buf(),
    }
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
