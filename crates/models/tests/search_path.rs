//! `package://` meshes are found through `STICTION_MODEL_PATH` and through the search path
//! option (its own test binary: it sets a process environment variable).

mod common;

use common::fixture;
use stiction::World;
use stiction_models::{add_str_to_world, LoadOptions, ModelError, MODEL_PATH_VARIABLE};

const MODEL: &str = "<robot name=\"r\">\n  <link name=\"a\">\n    <collision><geometry><mesh filename=\"package://shapes/cube.stl\"/></geometry></collision>\n  </link>\n</robot>\n";

#[test]
fn package_paths_resolve_through_the_option_and_the_environment() {
    // A package "shapes" is a folder of that name in a search directory: make one.
    let root = std::env::temp_dir().join(format!("stiction-models-{}", std::process::id()));
    let package = root.join("shapes");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(fixture("meshes/cube.stl"), package.join("cube.stl")).unwrap();
    // The model is elsewhere, so neither its folder nor its ancestors hold the package.
    let model_path = std::env::temp_dir().join("elsewhere/model.urdf");

    let mut world = World::new();
    let err =
        add_str_to_world(&mut world, MODEL, &model_path, &LoadOptions::default()).unwrap_err();
    assert!(matches!(err, ModelError::MeshNotFound { .. }), "{err}");

    let options = LoadOptions {
        search_path: vec![root.clone()],
        ..LoadOptions::default()
    };
    add_str_to_world(&mut world, MODEL, &model_path, &options).unwrap();

    // This test binary has this one test, so no other thread reads the environment.
    std::env::set_var(MODEL_PATH_VARIABLE, &root);
    let mut world = World::new();
    add_str_to_world(&mut world, MODEL, &model_path, &LoadOptions::default()).unwrap();
    let mesh = world.colliders().next().unwrap().1;
    // The root link of a fixed-base model is static: its mesh is a triangle mesh.
    assert!(mesh.shape().as_trimesh().is_some());
    std::fs::remove_dir_all(&root).unwrap();
}
