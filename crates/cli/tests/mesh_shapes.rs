//! Shapes made of triangles in scene files: a convex hull (of points, or of a mesh file with
//! a scale) behaves as the solid it bounds, with the mass properties of that solid; a
//! heightfield and a triangle-mesh floor carry what rests on them like a plane; a body of
//! several shapes (a compound) rests on its lowest one. A missing mesh file, a mesh or a
//! heightfield on a moving body, flat hull points and a ragged height grid are refused at
//! the field concerned, before anything is written.

mod common;

use std::path::{Path, PathBuf};

use common::{output, stiction, texts};
use stiction::math::Vec3;
use stiction_cli::scene::parse::{parse_scene, Format};
use stiction_cli::scene::{check_and_build, BuiltScene, Geometry};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Builds the TOML `text` as if it were the file `path` (relative files are found from its
/// folder).
fn build_at(text: &str, path: &Path) -> BuiltScene {
    let file = parse_scene(text, Format::Toml, path).unwrap_or_else(|e| panic!("{e}"));
    check_and_build(&file, path).unwrap_or_else(|e| panic!("{e}"))
}

/// Builds `text` as a scene file in the fixtures folder.
fn build(text: &str) -> BuiltScene {
    build_at(text, &fixture("scene.toml"))
}

/// Steps the scene `seconds` and returns the position of body `name`.
fn settle(scene: &mut BuiltScene, name: &str, seconds: f64) -> Vec3 {
    let steps = (seconds / scene.h).round() as usize;
    for _ in 0..steps {
        scene.world.step(scene.h).unwrap();
    }
    let body = scene.bodies.iter().find(|b| b.name == name).unwrap();
    let body = scene.world.body(body.handle).unwrap();
    // At rest the velocity the step reports is that of a step's fall, g h / 60 or so,
    // which post-stabilisation then takes back from the position.
    assert!(
        body.linear_velocity().length() < 0.02,
        "{name} still moves at {} m/s",
        body.linear_velocity()
    );
    body.position()
}

const GROUND_PLANE: &str = r#"
[[bodies]]
name = "ground"
kind = "static"
shapes = [{ type = "plane" }]
"#;

/// The corners of a box of half extents `h` as TOML points.
fn corners(h: [f64; 3]) -> String {
    let mut points = Vec::new();
    for k in 0..8 {
        let pick = |bit: usize, v: f64| if k & bit == 0 { -v } else { v };
        points.push(format!(
            "[{}, {}, {}]",
            pick(1, h[0]),
            pick(2, h[1]),
            pick(4, h[2])
        ));
    }
    format!("[{}]", points.join(", "))
}

#[test]
fn a_box_shaped_hull_of_points_rests_at_its_half_height_with_the_box_mass() {
    let h = [0.4, 0.3, 0.2];
    let text = format!(
        r#"{GROUND_PLANE}
[[bodies]]
name = "hull"
position = [0.0, 0.0, 0.5]
density = 500.0
shapes = [{{ type = "convex", points = {} }}]
"#,
        corners(h)
    );
    let mut scene = build(&text);
    let body = &scene.bodies[1];
    assert!(matches!(body.shapes[0].geometry, Geometry::Convex(_)));
    // The hull's mass properties are the box's: 500 kg/m^3 * 0.8 * 0.6 * 0.4 m^3.
    let b = scene.world.body(body.handle).unwrap();
    let mass = 500.0 * 8.0 * h[0] * h[1] * h[2];
    assert!((b.mass() - mass).abs() < 1e-9 * mass, "{}", b.mass());
    let position = settle(&mut scene, "hull", 2.0);
    eprintln!(
        "point hull rests {:.1e} m from its half height",
        position.z - h[2]
    );
    assert!(
        (position.z - h[2]).abs() < 1e-3,
        "rests at z = {} instead of {}",
        position.z,
        h[2]
    );
    assert!(position.truncate().length() < 1e-3, "{position}");
}

#[test]
fn a_hull_of_a_scaled_mesh_file_rests_at_its_scaled_half_height() {
    // cube.obj has half extent 0.5; scaled by [0.8, 0.6, 0.3] it is a 0.8 x 0.6 x 0.3 m box.
    let text = format!(
        r#"{GROUND_PLANE}
[[bodies]]
name = "hull"
position = [0.0, 0.0, 0.4]
mass = 3.0
shapes = [{{ type = "convex", file = "cube.obj", scale = [0.8, 0.6, 0.3] }}]
"#
    );
    let mut scene = build(&text);
    let b = scene.world.body(scene.bodies[1].handle).unwrap();
    assert!((b.mass() - 3.0).abs() < 1e-12);
    // The box's moment about z: m (a^2 + b^2) / 12 with edges 0.8 and 0.6.
    let izz = 3.0 * (0.64 + 0.36) / 12.0;
    let moments = b.mass_properties().principal_moments();
    assert!(
        moments.iter().any(|m| (m - izz).abs() < 1e-9),
        "{moments:?} vs {izz}"
    );
    let position = settle(&mut scene, "hull", 2.0);
    assert!(
        (position.z - 0.15).abs() < 1e-3,
        "rests at z = {}",
        position.z
    );
    // A uniform factor is accepted too.
    let uniform = text.replace("scale = [0.8, 0.6, 0.3]", "scale = 0.3");
    let mut scene = build(&uniform);
    let position = settle(&mut scene, "hull", 2.0);
    assert!(
        (position.z - 0.15).abs() < 1e-3,
        "rests at z = {}",
        position.z
    );
}

#[test]
fn a_sphere_rests_on_a_flat_heightfield_at_its_radius() {
    let row = format!("[{}]", ["0.0"; 9].join(", "));
    let grid = format!("[{}]", [row.as_str(); 9].join(", "));
    let text = format!(
        r#"
[[bodies]]
name = "terrain"
kind = "static"
position = [0.0, 0.0, 0.25]
shapes = [{{ type = "heightfield", heights = {grid}, size = [8.0, 8.0] }}]

[[bodies]]
name = "ball"
position = [0.3, -0.2, 1.0]
shapes = [{{ type = "sphere", radius = 0.3 }}]
"#
    );
    let mut scene = build(&text);
    assert!(matches!(
        scene.bodies[0].shapes[0].geometry,
        Geometry::Heightfield(_)
    ));
    let position = settle(&mut scene, "ball", 2.0);
    eprintln!(
        "ball on heightfield: {:.1e} m from its radius",
        position.z - 0.55
    );
    assert!(
        (position.z - 0.55).abs() < 1e-3,
        "rests at z = {} instead of 0.25 + 0.3",
        position.z
    );
    assert!((position.x - 0.3).abs() < 1e-3 && (position.y + 0.2).abs() < 1e-3);
}

#[test]
fn a_heightfield_holds_a_sphere_at_the_height_under_it() {
    // A ramp along x: height 0 at x = -2, 1 at x = +2 (rows run along x). A ball held in
    // place by no friction would roll; a static test of the layout is enough: the ball
    // starting over x = 1 (height 0.75) first touches at that height.
    let text = r#"
[[bodies]]
name = "terrain"
kind = "static"
shapes = [{ type = "heightfield", heights = [[0.0, 0.0], [1.0, 1.0]], size = [4.0, 4.0] }]

[[bodies]]
name = "ball"
position = [1.0, 0.0, 2.0]
gravity = false
linear_velocity = [0.0, 0.0, -1.0]
shapes = [{ type = "sphere", radius = 0.1 }]
"#;
    let mut scene = build(text);
    // The surface at x = 1 is at 0.75; its normal (-1, 0, 4)/sqrt(17) puts the ball's
    // centre at first contact 0.1 * sqrt(17) / 4 above it.
    let contact_z = 0.75 + 0.1 * 17f64.sqrt() / 4.0;
    let ball = scene.bodies[1].handle;
    let mut touched = None;
    for _ in 0..200 {
        let z = scene.world.body(ball).unwrap().position().z;
        scene.world.step(scene.h).unwrap();
        if !scene.world.contacts().is_empty() {
            touched = Some(z);
            break;
        }
    }
    let z = touched.expect("the ball reaches the heightfield");
    // Within one step's travel (1/60 m) of the analytic contact height.
    assert!(
        (z - contact_z).abs() < 1.0 / 60.0 + 1e-3,
        "first contact at z = {z}, expected {contact_z}"
    );
}

/// A unit box dropped on `floor` (a `[[bodies]]` table): where it rests.
fn box_on(floor: &str) -> Vec3 {
    let text = format!(
        r#"{floor}
[[bodies]]
name = "box"
position = [0.5, 0.5, 0.8]
axis_angle = {{ axis = [0.0, 0.0, 1.0], degrees = 20.0 }}
shapes = [{{ type = "box", half_extents = [0.25, 0.25, 0.25] }}]
"#
    );
    let mut scene = build(&text);
    settle(&mut scene, "box", 2.0)
}

#[test]
fn a_mesh_floor_carries_a_box_like_a_plane() {
    let on_plane = box_on(GROUND_PLANE);
    let on_mesh = box_on(
        r#"
[[bodies]]
name = "floor"
kind = "static"
shapes = [{ type = "mesh", file = "floor.obj" }]
"#,
    );
    eprintln!(
        "box on plane {:.1e} m, on mesh {:.1e} m from 0.25; apart {:.1e} m",
        on_plane.z - 0.25,
        on_mesh.z - 0.25,
        (on_mesh - on_plane).length()
    );
    assert!((on_plane.z - 0.25).abs() < 1e-3, "{on_plane}");
    assert!((on_mesh.z - 0.25).abs() < 1e-3, "{on_mesh}");
    assert!(
        (on_mesh - on_plane).length() < 1e-3,
        "mesh {on_mesh} vs plane {on_plane}"
    );
}

#[test]
fn a_compound_body_rests_on_its_lowest_shape_with_the_combined_centre_of_mass() {
    // A slab (a hull, 1 x 0.6 x 0.2 m) with a 0.2 m cube on top: the centre of mass is
    // 0.008 * 0.2 / 0.128 = 0.0125 m above the slab's centre, which rests at 0.1.
    let text = format!(
        r#"{GROUND_PLANE}
[[bodies]]
name = "stack"
position = [0.0, 0.0, 0.3]

[[bodies.shapes]]
type = "convex"
points = {}

[[bodies.shapes]]
type = "box"
half_extents = [0.1, 0.1, 0.1]
offset = [0.0, 0.0, 0.2]
"#,
        corners([0.5, 0.3, 0.1])
    );
    let mut scene = build(&text);
    assert_eq!(scene.bodies[1].shapes.len(), 2);
    let colliders = scene
        .world
        .colliders()
        .filter(|(_, c)| c.body() == Some(scene.bodies[1].handle))
        .count();
    assert_eq!(colliders, 2, "one collider per shape");
    let position = settle(&mut scene, "stack", 2.0);
    eprintln!("compound: {:.1e} m from 0.1125", position.z - 0.1125);
    assert!(
        (position.z - 0.1125).abs() < 1e-3,
        "centre of mass rests at z = {}",
        position.z
    );
}

/// Runs `stiction run` on `text` saved next to the fixtures' meshes as `name` (in a
/// temporary copy of the folder), requires the refusal and returns the error line.
fn refused(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    for mesh in ["cube.obj", "floor.obj"] {
        std::fs::copy(fixture(mesh), dir.path().join(mesh)).unwrap();
    }
    let file = dir.path().join("bad.toml");
    std::fs::write(&file, text).unwrap();
    let out_dir = dir.path().join("out");
    let result = output(stiction().args(["run", "--out"]).arg(&out_dir).arg(&file));
    let (stdout, stderr) = texts(&result);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!out_dir.exists(), "nothing may be written: {stderr}");
    let expected = format!("error: {}: ", file.display());
    assert!(stderr.starts_with(&expected), "{stderr}");
    stderr.trim_end().to_string()
}

fn body_with(kind: &str, shape: &str) -> String {
    format!(
        r#"{GROUND_PLANE}
[[bodies]]
name = "thing"
kind = "{kind}"
position = [0.0, 0.0, 1.0]
shapes = [{shape}]
"#
    )
}

#[test]
fn bad_mesh_shapes_are_refused_at_their_field() {
    let cases: [(&str, &str, &str); 9] = [
        (
            r#"{ type = "convex", file = "nowhere.stl" }"#,
            "bodies[1].shapes[0].file: no mesh file ",
            "nowhere.stl",
        ),
        (
            r#"{ type = "mesh", file = "floor.obj" }"#,
            "bodies[1].shapes[0].type: a triangle mesh has no inside, so it can only belong to a static body",
            "convex",
        ),
        (
            r#"{ type = "heightfield", heights = [[0.0, 0.0], [0.0, 0.0]], size = [1.0, 1.0] }"#,
            "bodies[1].shapes[0].type: a heightfield can only belong to a static body",
            "",
        ),
        (
            r#"{ type = "convex", points = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]] }"#,
            "bodies[1].shapes[0].points: ",
            "span no volume",
        ),
        (
            r#"{ type = "convex", points = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] }"#,
            "bodies[1].shapes[0].points: a convex hull needs at least 4 points, got 3",
            "",
        ),
        (
            r#"{ type = "convex" }"#,
            "bodies[1].shapes[0].points: a convex shape needs points (or a mesh file)",
            "",
        ),
        (
            r#"{ type = "convex", file = "cube.obj", points = [[0.0, 0.0, 0.0]] }"#,
            "bodies[1].shapes[0].file: set either points or file, not both",
            "",
        ),
        (
            r#"{ type = "convex", file = "cube.obj", scale = [1.0, 0.0, 1.0] }"#,
            "bodies[1].shapes[0].scale: every factor must be finite and > 0",
            "",
        ),
        (
            r#"{ type = "box", half_extents = [0.1, 0.1, 0.1], file = "cube.obj" }"#,
            "bodies[1].shapes[0].file: does not apply to a box",
            "",
        ),
    ];
    for (shape, expected, also) in cases {
        let line = refused(&body_with("dynamic", shape));
        assert!(line.contains(expected), "{shape}: {line}");
        assert!(line.contains(also), "{shape}: {line}");
    }
    // Static geometry: a missing mesh, a ragged grid, a missing size.
    let static_cases: [(&str, &str); 4] = [
        (
            r#"{ type = "mesh", file = "missing/floor.stl" }"#,
            "bodies[1].shapes[0].file: no mesh file ",
        ),
        (
            r#"{ type = "heightfield", heights = [[0.0, 0.0], [0.0]], size = [1.0, 1.0] }"#,
            "bodies[1].shapes[0].heights[1]: every row must be as long as the first (2 heights), got 1",
        ),
        (
            r#"{ type = "heightfield", heights = [[0.0, 0.0]], size = [1.0, 1.0] }"#,
            "bodies[1].shapes[0].heights: a heightfield needs at least 2 rows of at least 2 heights, got 1 x 2",
        ),
        (
            r#"{ type = "heightfield", heights = [[0.0, 0.0], [0.0, 0.0]] }"#,
            "bodies[1].shapes[0].size: required for a heightfield",
        ),
    ];
    for (shape, expected) in static_cases {
        let line = refused(&body_with("static", shape));
        assert!(line.contains(expected), "{shape}: {line}");
    }
    // A file that is not a mesh is named with the reader's reason.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(dir.path().join("junk.stl"), "not a mesh").unwrap();
    let text = body_with("static", r#"{ type = "mesh", file = "junk.stl" }"#);
    let file = parse_scene(&text, Format::Toml, &path).unwrap();
    let err = check_and_build(&file, &path).unwrap_err().to_string();
    assert!(
        err.contains("bodies[1].shapes[0].file: cannot read the mesh") && err.contains("junk.stl"),
        "{err}"
    );
}

#[test]
fn mesh_paths_are_relative_to_the_scene_file_and_scene_json_holds_them_absolute() {
    // The scene in one folder, the run directory elsewhere, run from a third: the mesh is
    // found from the scene, and the run directory renders on its own.
    let dir = tempfile::tempdir().unwrap();
    let scenes = dir.path().join("scenes");
    std::fs::create_dir_all(scenes.join("meshes")).unwrap();
    std::fs::copy(fixture("cube.obj"), scenes.join("meshes/cube.obj")).unwrap();
    let text = format!(
        r#"{GROUND_PLANE}
[[bodies]]
name = "hull"
position = [0.0, 0.0, 0.6]
shapes = [{{ type = "convex", file = "meshes/cube.obj", scale = 0.5 }}]
"#
    );
    std::fs::write(scenes.join("hull.toml"), text).unwrap();
    let cwd = dir.path().join("elsewhere");
    std::fs::create_dir_all(&cwd).unwrap();
    let run = dir.path().join("runs/hull");
    common::success(
        stiction()
            .current_dir(&cwd)
            .args(["run", "--steps", "5", "-q", "--out"])
            .arg(&run)
            .arg(scenes.join("hull.toml")),
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("scene.json")).unwrap()).unwrap();
    let file = json["bodies"][1]["shapes"][0]["file"].as_str().unwrap();
    assert!(Path::new(file).is_absolute(), "{file}");
    assert!(Path::new(file).is_file(), "{file}");
    common::success(
        stiction()
            .current_dir(&cwd)
            .args(["render", "--width", "32", "--height", "24", "-q"])
            .arg(&run),
    );
    assert!(run.join("last.png").is_file());
}

#[test]
fn new_shapes_and_models_read_back_from_the_json_scene_json_is_written_as() {
    // What `stiction run` writes as scene.json must read back to the same scene (the fuzz
    // property), with one-factor and per-axis scales, heights and models alike.
    let workcell = common::scenes_dir().join("workcell.toml");
    let mut texts = vec![std::fs::read_to_string(&workcell).unwrap()];
    texts.push(body_with(
        "static",
        r#"{ type = "mesh", file = "floor.obj", scale = 2 }"#,
    ));
    texts.push(body_with(
        "dynamic",
        r#"{ type = "convex", file = "cube.obj", scale = [1.0, 2.0, 0.5] }"#,
    ));
    for text in texts {
        let file = parse_scene(&text, Format::Toml, Path::new("s.toml")).unwrap();
        let json = serde_json::to_string(&file).unwrap();
        let again = parse_scene(&json, Format::Json, Path::new("scene.json")).unwrap();
        assert_eq!(again, file, "{json}");
    }
}
