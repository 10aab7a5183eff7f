//! What the scene reader must guarantee for any text, checked by the `scene` fuzz target and
//! by the CLI's regression test over the kept corpus
//! (crates/cli/tests/scene_fuzz_regressions.rs, which includes this file by path).
//!
//! The text is read both as TOML and as JSON, as `stiction run` would read a `.toml` or a
//! `.json` file, and each reading must keep these properties:
//!
//! - no panic anywhere in parsing, validation or building (the harness catches it);
//! - a syntax or schema error points at a line and column inside the text;
//! - every refusal is a typed error naming a field path and a rule. The validator checks
//!   each number's own rule; a scene it passes either builds or is refused by the builder
//!   at the element concerned (`bodies[i]...`, `joints[i]...`): products of extreme but
//!   individually valid numbers (a box of half extent 1e200 m, a mass of 1e-320 kg spread
//!   over shapes 1e200 m apart) overflow in the mass properties only when they are computed;
//! - the built world is finite (positions, orientations as unit quaternions, velocities);
//! - the step count stays within the documented maximum, so `stiction run` never reserves
//!   an absurd amount of memory;
//! - a valid scene written as JSON (what `stiction run` saves as scene.json) reads back to
//!   the same scene.

use std::path::Path;

use stiction_cli::scene::parse::{parse_scene, Format};
use stiction_cli::scene::schema::SceneFile;
use stiction_cli::scene::validate::MAX_STEPS;
use stiction_cli::scene::{check_and_build, SceneError};

/// Checks one input in both formats; panics (with the reason) if a property fails.
pub fn check_scene_text(text: &str) {
    for (format, name) in [(Format::Toml, "fuzz.toml"), (Format::Json, "fuzz.json")] {
        let path = Path::new(name);
        match parse_scene(text, format, path) {
            Ok(file) => check_parsed(&file, path),
            Err(err) => check_syntax_error(&err, text),
        }
    }
}

/// A refused text must be refused with a location inside it.
fn check_syntax_error(err: &SceneError, text: &str) {
    let SceneError::Syntax {
        line,
        column,
        message,
        ..
    } = err
    else {
        panic!("parsing text can only fail with a located syntax error, got {err:?}");
    };
    // One line past the last one is where an unexpected end of input is reported.
    let lines = text.lines().count().max(1) + 1;
    assert!(
        (1..=lines).contains(line) && *column >= 1,
        "location {line}:{column} outside a text of {lines} lines: {message}"
    );
    assert!(!message.trim().is_empty(), "an empty syntax message");
}

/// A parsed scene is validated and built like `stiction run` does.
fn check_parsed(file: &SceneFile, path: &Path) {
    let built = match check_and_build(file, path) {
        Ok(built) => built,
        Err(SceneError::Invalid { field, rule, .. }) => {
            assert!(!rule.trim().is_empty(), "an empty rule at {field}");
            if stiction_cli::scene::validate::validate(file).is_ok() {
                let element = ["bodies[", "joints[", "models[", "sensors["]
                    .iter()
                    .any(|p| field.starts_with(p));
                assert!(
                    element,
                    "a validated scene failed to build outside an element: {field}: {rule}"
                );
            }
            return;
        }
        Err(other) => panic!("building can only fail with a field error, got {other:?}"),
    };
    assert!(
        (1..=MAX_STEPS).contains(&built.steps),
        "a valid scene asks for {} steps",
        built.steps
    );
    for (_, body) in built.world.bodies() {
        let finite = body.position().is_finite()
            && body.orientation().is_finite()
            && body.linear_velocity().is_finite()
            && body.angular_velocity().is_finite();
        assert!(finite, "a valid scene built a non-finite body: {body:?}");
        let norm = body.orientation().length();
        assert!(
            (norm - 1.0).abs() < 1e-9,
            "orientation of length {norm}: {body:?}"
        );
    }
    let json = serde_json::to_string(file).expect("a valid scene serialises");
    let again = parse_scene(&json, Format::Json, Path::new("scene.json"))
        .unwrap_or_else(|e| panic!("scene.json of a valid scene does not read back: {e}"));
    assert_eq!(&again, file, "scene.json reads back to another scene");
}
