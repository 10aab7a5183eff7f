//! Scene files set the restitution threshold (issue 32): `world.restitution_threshold` for
//! every contact and a material's `restitution_threshold` for its own, combined as the
//! smaller of the two materials' set values, else the world's. A perfectly elastic ball
//! dropped 5 cm lands at 0.99 m/s: below the default threshold of 1 m/s it does not bounce,
//! with any threshold under its landing speed it leaves the floor at nearly that speed.
//! Negative or non-finite thresholds are refused by field path, and scene.json keeps both.

mod common;

use std::path::{Path, PathBuf};

use common::{column, output, read_csv, stiction, success, texts};

/// The ball's landing speed after falling 5 cm, m/s.
fn landing_speed() -> f64 {
    (2.0 * 9.81 * 0.05_f64).sqrt()
}

/// A ball (material `rubber`, restitution 1) 5 cm above a floor (material `floor`), with
/// the given thresholds (`None`: not set).
fn drop_scene(world: Option<f64>, ball: Option<f64>, floor: Option<f64>) -> String {
    let line = |t: Option<f64>| {
        t.map_or(String::new(), |t| {
            format!("restitution_threshold = {t:?}\n")
        })
    };
    format!(
        r#"duration = 0.2

[world]
step = 0.001
{}
[materials.rubber]
restitution = 1.0
{}
[materials.floor]
restitution = 0.0
{}
[[bodies]]
name = "floor"
kind = "static"
shapes = [{{ type = "plane", material = "floor" }}]

[[bodies]]
name = "ball"
position = [0.0, 0.0, 0.15]
shapes = [{{ type = "sphere", radius = 0.1, material = "rubber" }}]
"#,
        line(world),
        line(ball),
        line(floor)
    )
}

/// Runs `text` as `name` in `dir` and returns the run directory.
fn run(dir: &Path, name: &str, text: &str) -> PathBuf {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    let out = dir.join(format!("{name}.out"));
    success(
        stiction()
            .args(["run", "--quiet", "--out"])
            .arg(&out)
            .arg(&file),
    );
    out
}

/// The ball's fastest upward speed over the run, m/s.
fn rebound(world: Option<f64>, ball: Option<f64>, floor: Option<f64>) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), "drop.toml", &drop_scene(world, ball, floor));
    let (header, rows) = read_csv(&out.join("trajectory.csv"));
    let vz = column(&header, &rows, "vz");
    rows.iter()
        .zip(vz)
        .filter(|(row, _)| row[2] == "ball")
        .map(|(_, v)| v)
        .fold(f64::NEG_INFINITY, f64::max)
}

fn bounces(world: Option<f64>, ball: Option<f64>, floor: Option<f64>) -> bool {
    let up = rebound(world, ball, floor);
    let v = landing_speed();
    if up > 0.9 * v {
        // Restitution 1: it leaves at its landing speed, to the step's gravity.
        assert!(up < 1.01 * v, "{up} after landing at {v}");
        true
    } else {
        assert!(up < 1e-3, "neither bounced nor at rest: {up}");
        false
    }
}

#[test]
fn the_world_threshold_decides_whether_a_slow_ball_bounces() {
    assert!(landing_speed() < 1.0);
    assert!(
        !bounces(None, None, None),
        "default 1 m/s: no bounce at 0.99"
    );
    assert!(bounces(Some(0.5), None, None));
    assert!(bounces(Some(0.0), None, None), "0: every approach bounces");
    assert!(!bounces(Some(1.0), None, None));
}

#[test]
fn material_thresholds_combine_as_the_smaller_set_value_else_the_worlds() {
    // Only the ball's material sets one: it applies, the world's default does not.
    assert!(bounces(None, Some(0.5), None));
    assert!(bounces(None, None, Some(0.5)));
    // Both set one: the smaller.
    assert!(bounces(None, Some(0.5), Some(2.0)));
    assert!(bounces(None, Some(2.0), Some(0.5)));
    // The materials' smaller (1.5) beats a world threshold the ball would pass.
    assert!(!bounces(Some(0.1), Some(1.5), Some(2.0)));
    // A material above the landing speed stops a bounce the world would allow.
    assert!(!bounces(Some(0.1), Some(1.2), None));
}

#[test]
fn scene_json_keeps_both_thresholds_and_runs_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let first = run(
        dir.path(),
        "drop.toml",
        &drop_scene(Some(0.25), Some(0.5), None),
    );
    let json = std::fs::read_to_string(first.join("scene.json")).unwrap();
    let scene: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(scene["world"]["restitution_threshold"], 0.25);
    assert_eq!(scene["materials"]["rubber"]["restitution_threshold"], 0.5);
    assert!(
        scene["materials"]["floor"]
            .get("restitution_threshold")
            .is_none(),
        "an unset material threshold stays unset: {json}"
    );
    let again = run(dir.path(), "again.json", &json);
    let trajectory = |out: &Path| std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    assert_eq!(trajectory(&again), trajectory(&first));
    // A scene that sets none writes the world's default, which reads back the same.
    let plain = run(dir.path(), "plain.toml", &drop_scene(None, None, None));
    let json = std::fs::read_to_string(plain.join("scene.json")).unwrap();
    let scene: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(scene["world"]["restitution_threshold"], 1.0);
}

fn refused(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("drop.toml");
    std::fs::write(&file, text).unwrap();
    let result = output(
        stiction()
            .arg("run")
            .arg(&file)
            .arg("--out")
            .arg(dir.path().join("out")),
    );
    let (stdout, stderr) = texts(&result);
    assert_eq!(result.status.code(), Some(2), "{stdout}{stderr}");
    assert!(stdout.is_empty() && !dir.path().join("out").exists());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr.trim_end().to_string()
}

#[test]
fn negative_or_non_finite_thresholds_are_refused_by_field() {
    let error = refused(&drop_scene(Some(-1.0), None, None));
    assert!(
        error.ends_with("drop.toml: world.restitution_threshold: must be finite and >= 0, got -1"),
        "{error}"
    );
    let error = refused(&drop_scene(None, None, Some(-0.25)));
    assert!(
        error.ends_with(
            "drop.toml: materials.floor.restitution_threshold: must be finite and >= 0, got -0.25"
        ),
        "{error}"
    );
    let text = drop_scene(None, Some(1.0), None)
        .replace("restitution_threshold = 1.0", "restitution_threshold = nan");
    let error = refused(&text);
    assert!(
        error.ends_with("materials.rubber.restitution_threshold: must be finite and >= 0, got NaN"),
        "{error}"
    );
    let text = drop_scene(Some(1.0), None, None)
        .replace("restitution_threshold = 1.0", "restitution_threshold = inf");
    let error = refused(&text);
    assert!(
        error.ends_with("world.restitution_threshold: must be finite and >= 0, got inf"),
        "{error}"
    );
}
