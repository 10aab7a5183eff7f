//! Every kind of bad scene file is refused before anything is written: exit status 2, exactly
//! one `error: ` line on stderr, nothing on stdout, no output directory. A malformed file is
//! located by line and column; a well-formed but unphysical one by its field path and the
//! rule it broke. `render` refuses the same way. Every message names the scene once, as the
//! user typed it (or `scenes/<name>.toml` for a built-in scene). A joint that joins no
//! dynamic body (a static body to `world`) is refused at its `body_b`.

mod common;

use common::{output, stiction, texts};

/// A valid scene; each case below changes one thing.
const GOOD: &str = r#"
[world]
contacts = false

[materials.ice]
friction = 0.05

[[bodies]]
name = "a"
mass = 1.0
position = [0.0, 0.0, 1.0]
shapes = [{ type = "sphere", radius = 0.1, material = "ice" }]

[[bodies]]
name = "b"
position = [1.0, 0.0, 1.0]
shapes = [{ type = "box", half_extents = [0.5, 0.5, 0.5] }]

[[joints]]
type = "hinge"
body_a = "a"
body_b = "b"
anchor = [0.5, 0.0, 1.0]
axis = [0.0, 1.0, 0.0]
"#;

/// Runs `stiction ARGS... FILE` on `text` saved as `name`, requires the refusal and returns
/// the error line.
fn refused(name: &str, text: &str, command: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, text).unwrap();
    let out_dir = dir.path().join("out");
    let result = output(
        stiction()
            .args(command)
            .arg("--out")
            .arg(&out_dir)
            .arg(&file),
    );
    let (stdout, stderr) = texts(&result);
    assert_eq!(result.status.code(), Some(2), "{name}: {stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(!out_dir.exists(), "nothing may be written: {stderr}");
    let written: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(written.len(), 1, "only the scene file itself");
    stderr.trim().to_string()
}

fn run_refused(text: &str) -> String {
    refused("scene.toml", text, &["run"])
}

#[test]
fn the_unchanged_scene_runs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("scene.toml");
    std::fs::write(&file, GOOD).unwrap();
    let result = output(
        stiction()
            .args(["run", "--steps", "2", "--quiet", "--out"])
            .arg(dir.path().join("out"))
            .arg(&file),
    );
    assert_eq!(result.status.code(), Some(0), "{:?}", texts(&result));
}

#[test]
fn malformed_toml_is_located_by_line_and_column() {
    let text = GOOD.replace("radius = 0.1,", "radius = ,");
    let line = text.lines().position(|l| l.contains("radius = ,")).unwrap() + 1;
    let error = run_refused(&text);
    assert!(error.contains(&format!("scene.toml:{line}:")), "{error}");
}

#[test]
fn schema_errors_in_toml_are_located_too() {
    // A misspelt key and a wrong type: well-formed TOML that the schema refuses.
    let line = GOOD
        .lines()
        .position(|l| l.starts_with("mass = 1.0"))
        .unwrap()
        + 1;
    let error = run_refused(&GOOD.replace("mass = 1.0", "mas = 1.0"));
    assert!(error.contains(&format!("scene.toml:{line}:")), "{error}");
    assert!(error.contains("mas"), "{error}");
    let error = run_refused(&GOOD.replace("mass = 1.0", "mass = \"heavy\""));
    assert!(error.contains(&format!("scene.toml:{line}:")), "{error}");
}

#[test]
fn malformed_json_is_located_by_line_and_column() {
    let text = "{\n  \"bodies\": [\n    {\"name\": \"a\",, }\n  ]\n}\n";
    let error = refused("scene.json", text, &["run"]);
    assert!(error.contains("scene.json:3:"), "{error}");
}

#[test]
fn unphysical_values_name_the_field_and_the_rule() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "mass = 1.0",
            "mass = -2.0",
            "bodies[0].mass: must be finite and > 0, got -2",
        ),
        (
            "half_extents = [0.5, 0.5, 0.5]",
            "half_extents = [0.5, 0.0, 0.5]",
            "bodies[1].shapes[0].half_extents: every half extent must be finite and > 0",
        ),
        (
            "body_b = \"b\"",
            "body_b = \"nobody\"",
            "joints[0].body_b: no body named `nobody`",
        ),
        (
            "axis = [0.0, 1.0, 0.0]",
            "axis = [0.0, 0.0, 0.0]",
            "joints[0].axis: must be a non-zero direction",
        ),
        (
            "position = [0.0, 0.0, 1.0]",
            "position = [0.0, nan, 1.0]",
            "bodies[0].position: every component must be finite",
        ),
        (
            "position = [1.0, 0.0, 1.0]",
            "position = [1.0, 0.0, inf]",
            "bodies[1].position: every component must be finite",
        ),
        (
            "friction = 0.05",
            "friction = -0.1",
            "materials.ice.friction: must be finite and >= 0, got -0.1",
        ),
        (
            "material = \"ice\"",
            "material = \"steel\"",
            "bodies[0].shapes[0].material: no material `steel` in [materials]",
        ),
        (
            "radius = 0.1,",
            "radius = 0.1, half_height = 0.2,",
            "bodies[0].shapes[0].half_height: does not apply to a sphere",
        ),
        (
            "name = \"b\"",
            "name = \"a\"",
            "bodies[1].name: body names must be unique",
        ),
        (
            "contacts = false",
            "contacts = false\nerp = 1.5",
            "world.erp: must be finite and in [0, 1]",
        ),
        (
            "axis = [0.0, 1.0, 0.0]",
            "axis = [0.0, 1.0, 0.0]\nlimits = { lower = 1.0, upper = -1.0 }",
            "joints[0].limits: lower and upper must be finite with lower <= upper",
        ),
        (
            "axis = [0.0, 1.0, 0.0]",
            "axis = [0.0, 1.0, 0.0]\nmotor = { velocity = 1.0, max_force = -2.0 }",
            "joints[0].motor.max_force: must be finite and >= 0",
        ),
        (
            "axis = [0.0, 1.0, 0.0]",
            "axis = [0.0, 1.0, 0.0]\nmotor2 = { velocity = 1.0, max_force = 2.0 }",
            "joints[0].motor2: does not apply to a hinge joint",
        ),
        (
            "contacts = false",
            "contacts = false\ncfm = -1e300",
            "world.cfm: must be finite and >= 0, got -1.000e300",
        ),
    ];
    for (from, to, expected) in cases {
        assert!(GOOD.contains(from), "{from}");
        let error = run_refused(&GOOD.replacen(from, to, 1));
        assert!(
            error.starts_with("error: ")
                && error.contains("scene.toml: ")
                && error.contains(expected),
            "{to}: got {error}, expected {expected}"
        );
    }
}

#[test]
fn json_scenes_are_checked_by_the_same_rules() {
    let text =
        r#"{"bodies": [{"name": "a", "shapes": [{"type": "box", "half_extents": [1, -1, 1]}]}]}"#;
    let error = refused("scene.json", text, &["run"]);
    assert!(
        error.contains("bodies[0].shapes[0].half_extents"),
        "{error}"
    );
}

#[test]
fn render_refuses_bad_scenes_and_non_run_directories_alike() {
    let error = refused(
        "scene.toml",
        &GOOD.replace("mass = 1.0", "mass = 0.0"),
        &["render"],
    );
    assert!(error.contains("bodies[0].mass"), "{error}");
    let dir = tempfile::tempdir().unwrap();
    let result = output(stiction().arg("render").arg(dir.path()));
    let (_, stderr) = texts(&result);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not a run directory"), "{stderr}");
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
}

#[test]
fn unknown_files_and_formats_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let run = |scene: &str| output(stiction().current_dir(dir.path()).args(["run", scene]));
    let result = run("no/such/scene.toml");
    assert_eq!(result.status.code(), Some(2));
    assert!(texts(&result).1.contains("cannot read"));
    let result = run("scene.yaml");
    assert_eq!(result.status.code(), Some(2));
    assert!(texts(&result).1.contains("must end in .toml or .json"));
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
}

/// GOOD with a static post, and one more joint from `body_a` to `body_b`.
fn with_joint(body_a: &str, body_b: &str, post_kind: &str) -> String {
    format!(
        "{GOOD}
[[bodies]]
name = \"post\"
kind = \"{post_kind}\"
shapes = [{{ type = \"box\", half_extents = [0.1, 0.1, 1.0] }}]

[[joints]]
type = \"fixed\"
body_a = \"{body_a}\"
body_b = \"{body_b}\"
"
    )
}

#[test]
fn a_joint_that_holds_no_dynamic_body_is_refused_at_body_b() {
    let error = run_refused(&with_joint("post", "world", "static"));
    assert!(
        error.ends_with(
            "scene.toml: joints[1].body_b: the joint between `post` (static) and the static world (`world`) would hold nothing: one of its bodies must be dynamic"
        ),
        "{error}"
    );
    let error = run_refused(&with_joint("post", "world", "kinematic"));
    assert!(
        error.contains(
            "joints[1].body_b: the joint between `post` (kinematic) and the static world"
        ),
        "{error}"
    );
    // A static body joined to a dynamic one, in either order, is a joint like any other.
    for (a, b) in [("post", "a"), ("a", "post")] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("scene.toml");
        std::fs::write(&file, with_joint(a, b, "static")).unwrap();
        let result = output(
            stiction()
                .args(["run", "--steps", "2", "--quiet", "--out"])
                .arg(dir.path().join("out"))
                .arg(&file),
        );
        assert_eq!(
            result.status.code(),
            Some(0),
            "{a}-{b}: {:?}",
            texts(&result)
        );
    }
}

#[test]
fn every_refusal_names_the_scene_once_as_typed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let cases = [
        (
            "sub/syntax.toml",
            GOOD.replace("radius = 0.1,", "radius = ,"),
        ),
        ("sub/field.toml", GOOD.replace("mass = 1.0", "mass = -1.0")),
        (
            "./sub/../sub/json.json",
            "{\"bodies\": [{\"name\": \"a\",, }]}".to_string(),
        ),
        ("sub/joint.toml", with_joint("post", "world", "static")),
        (
            "sub/built.toml",
            GOOD.replace(
                "half_extents = [0.5, 0.5, 0.5]",
                "half_extents = [1e200, 1e200, 1e200]",
            ),
        ),
    ];
    for (typed, text) in &cases {
        std::fs::write(dir.path().join(typed), text).unwrap();
    }
    let mut typed_paths: Vec<&str> = cases.iter().map(|(typed, _)| *typed).collect();
    typed_paths.extend(["sub/missing.toml", "sub/scene.yaml", "pendulumm"]);
    for typed in typed_paths {
        for command in ["run", "render"] {
            let result = output(
                stiction()
                    .current_dir(dir.path())
                    .args([command, typed, "--out", "out"]),
            );
            let (stdout, stderr) = texts(&result);
            assert_eq!(result.status.code(), Some(2), "{command} {typed}: {stderr}");
            assert!(stdout.is_empty(), "{stdout}");
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(
                stderr.starts_with(&format!("error: {typed}:")),
                "{command} {typed}: {stderr}"
            );
            assert_eq!(
                stderr.matches(typed).count(),
                1,
                "{command} {typed}: {stderr}"
            );
        }
    }
    // A built-in scene is named by its file in the repository, once.
    let result = output(
        stiction()
            .current_dir(dir.path())
            .args(["run", "pendulum", "--steps", "0"]),
    );
    let (_, stderr) = texts(&result);
    assert_eq!(
        stderr.trim_end(),
        "error: scenes/pendulum.toml: steps: must lie in [1, 10000000], got 0"
    );
}
