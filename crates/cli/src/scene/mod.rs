//! Scene files: the schema ([`schema`]), reading TOML or JSON with located errors
//! ([`parse`]), the physical rules ([`validate`]) and the mapping onto the engine
//! ([`build`]). docs/scene-format.md is the user's guide to all of it.

pub mod build;
pub mod builtin;
pub mod colliders;
pub mod error;
pub mod parse;
pub mod schema;
pub mod validate;

use std::path::Path;

use schema::SceneFile;

pub use build::{BuiltScene, Geometry};
pub use error::SceneError;

/// Validates and builds an already parsed scene; `path` labels errors and names a scene
/// without a `name`.
pub fn check_and_build(file: &SceneFile, path: &Path) -> Result<BuiltScene, SceneError> {
    validate::validate(file).map_err(|e| e.in_file(path.to_path_buf()))?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("scene");
    build::build(file, stem).map_err(|e| e.in_file(path.to_path_buf()))
}
