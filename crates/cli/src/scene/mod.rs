//! Scene files: the schema ([`schema`]), reading TOML or JSON with located errors
//! ([`parse`]), the physical rules ([`validate`]) and the mapping onto the engine
//! ([`build`]). docs/scene-format.md is the user's guide to all of it.

pub mod build;
pub mod builtin;
pub mod colliders;
pub mod error;
pub mod geometry;
pub mod models;
pub mod parse;
pub mod schema;
pub mod sensors;
pub mod validate;

use std::path::Path;

use schema::SceneFile;

pub use build::{BuiltScene, Geometry};
pub use error::SceneError;

/// Validates and builds an already parsed scene; `path` labels errors, names a scene
/// without a `name`, and its folder is where relative file names (meshes, models) start.
pub fn check_and_build(file: &SceneFile, path: &Path) -> Result<BuiltScene, SceneError> {
    validate::validate(file).map_err(|e| e.in_file(path.to_path_buf()))?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("scene");
    let base = path.parent().unwrap_or(Path::new(""));
    build::build(file, stem, base).map_err(|e| e.in_file(path.to_path_buf()))
}

/// Rewrites the relative file names of `file` (shape meshes, models, model search paths)
/// as absolute paths from `base`, the scene file's folder, so that the scene reads the
/// same files from anywhere: what `stiction run` writes as scene.json in the run directory.
pub fn absolute_paths(file: &mut SceneFile, base: &Path) {
    let absolute = |name: &mut String| {
        let resolved = geometry::resolve(base, name);
        let resolved = std::path::absolute(&resolved).unwrap_or(resolved);
        if let Some(text) = resolved.to_str() {
            *name = text.to_string();
        }
    };
    for body in &mut file.bodies {
        for shape in &mut body.shapes {
            if let Some(name) = shape.file.as_mut() {
                absolute(name);
            }
        }
    }
    for model in &mut file.models {
        absolute(&mut model.file);
        for dir in &mut model.model_path {
            absolute(dir);
        }
    }
}
