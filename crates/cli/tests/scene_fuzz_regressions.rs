//! The scene fuzz target's inputs, kept as regression tests.
//!
//! Every file in `tests/scene_fuzz_corpus/` (good scenes in TOML and JSON, each kind of bad
//! input of tests/bad_scenes.rs, and what the `scene` fuzz target found) and every scene of
//! scenes/ is read as TOML and as JSON, validated and built, with exactly the properties the
//! fuzz target checks (`fuzz/src/scene_check.rs`, included below): no panic, syntax errors
//! located inside the text, a validated scene always builds into a finite world within the
//! step limit, and its scene.json reads back to the same scene.
//!
//! The tests after `whole_corpus_keeps_every_property` pin down what each fix promised.

#[path = "../../../fuzz/src/scene_check.rs"]
mod scene_check;

use std::fs;
use std::path::{Path, PathBuf};

use stiction_cli::scene::parse::{parse_scene, Format};
use stiction_cli::scene::validate::{validate, MAX_STEPS};
use stiction_cli::scene::SceneError;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scene_fuzz_corpus")
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn whole_corpus_keeps_every_property() {
    let mut files = files_in(&corpus_dir());
    assert!(files.len() >= 20, "the corpus went missing: {files:?}");
    files.extend(files_in(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes"),
    ));
    for path in &files {
        // Fuzzer finds need not be UTF-8; the target skips those, and so does this test.
        let Ok(text) = String::from_utf8(fs::read(path).expect("readable corpus file")) else {
            continue;
        };
        let outcome = std::panic::catch_unwind(|| scene_check::check_scene_text(&text));
        if let Err(cause) = outcome {
            let message = cause
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| cause.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{}: {message}", path.display());
        }
    }
}

fn syntax_location(text: &str, format: Format) -> (usize, usize) {
    match parse_scene(text, format, Path::new("s")) {
        Err(SceneError::Syntax { line, column, .. }) => (line, column),
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

/// Found by the `scene` target at once: serde_json reports an empty file (or an end of input
/// right after a newline) at column 0, so the CLI printed `s.json:1:0:`; columns are 1-based.
#[test]
fn json_errors_at_the_start_of_a_line_are_column_one() {
    assert_eq!(syntax_location("", Format::Json), (1, 1));
    assert_eq!(syntax_location("{\n", Format::Json), (2, 1));
}

fn invalid_field(text: &str) -> (String, String) {
    let file = parse_scene(text, Format::Toml, Path::new("s.toml")).expect("well-formed");
    let err = validate(&file)
        .expect_err("refused")
        .in_file(PathBuf::from("s.toml"));
    match err {
        SceneError::Invalid { field, rule, .. } => (field, rule),
        other => panic!("expected a field error, got {other:?}"),
    }
}

/// A step count beyond [`MAX_STEPS`] (directly, or as a duration over a tiny step) is refused
/// before `stiction run` reserves a few numbers per step: `steps = 18446744073709551615` used
/// to abort the process on allocation.
#[test]
fn step_counts_beyond_the_limit_are_refused_by_field() {
    let (field, rule) = invalid_field("steps = 18446744073709551615\n");
    assert_eq!(field, "steps");
    assert_eq!(
        rule,
        format!("must lie in [1, {MAX_STEPS}], got 18446744073709551615")
    );
    let (field, rule) = invalid_field("steps = 0\n");
    assert_eq!(
        (field.as_str(), rule.as_str()),
        ("steps", "must lie in [1, 10000000], got 0")
    );
    let (field, _) = invalid_field("duration = 1e300\n");
    assert_eq!(field, "duration");
    let (field, _) = invalid_field("duration = 1.0\n[world]\nstep = 1e-8\n");
    assert_eq!(field, "duration");
    // The limit itself is allowed: 10^7 steps of 1 ms.
    let text = "duration = 10000.0\n[world]\nstep = 0.001\n";
    let file = parse_scene(text, Format::Toml, Path::new("s.toml")).unwrap();
    assert_eq!(validate(&file), Ok(()));
}

fn orientation_of_first_body(name: &str) -> stiction::math::Quat {
    let path = corpus_dir().join(name);
    let text = fs::read_to_string(&path).unwrap();
    let file = parse_scene(&text, Format::Toml, &path).unwrap();
    let built = stiction_cli::scene::check_and_build(&file, &path).expect("builds");
    built
        .world
        .body(built.bodies[0].handle)
        .unwrap()
        .orientation()
}

/// Found by probing the validator against the builder with the fuzz properties: a
/// quaternion or axis whose squared length overflows (`[1e200, 1e200, 0, 0]`) or underflows
/// (`[1e-170, 0, 0, 0]`, axis `[1e-200, 0, 0]`) was refused with an engine message or
/// called "zero", though each is a rotation like any other. The builder now scales before
/// normalising.
#[test]
fn extreme_but_valid_directions_build_into_the_rotation_they_describe() {
    let half = std::f64::consts::FRAC_1_SQRT_2;
    let q = orientation_of_first_body("extreme_quat_huge.toml");
    assert!(
        (q.w - half).abs() < 1e-15 && (q.x - half).abs() < 1e-15,
        "{q}"
    );
    let q = orientation_of_first_body("extreme_quat_tiny.toml");
    assert_eq!(q, stiction::math::Quat::IDENTITY);
    let q = orientation_of_first_body("extreme_axis_tiny.toml");
    let expected = stiction::math::Quat::from_rotation_x(30f64.to_radians());
    assert!(q.abs_diff_eq(expected, 1e-15), "{q}");
    let path = corpus_dir().join("extreme_joint_axes.toml");
    let file = parse_scene(&fs::read_to_string(&path).unwrap(), Format::Toml, &path).unwrap();
    let built = stiction_cli::scene::check_and_build(&file, &path).expect("builds");
    assert_eq!(built.joints.len(), 2);
}
