//! Robot models run like scenes: `stiction run robot.urdf` writes a trajectory whose bodies
//! carry the link names (plus the ground plane) and whose pendulum swings; MJCF files run
//! too; the loader's warnings are `warning: ` lines on stderr; a bad model is one located
//! `error: ` line and exit status 2; model options are refused with scene files; `render`
//! draws a model.

mod common;

use std::path::PathBuf;

use common::{output, read_csv, repo_root, scenes_dir, stiction, success, texts};

fn fixture(name: &str) -> PathBuf {
    repo_root().join("crates/models/tests/fixtures").join(name)
}

/// The x column of `body`'s rows.
fn xs(header: &[String], rows: &[Vec<String>], body: &str) -> Vec<f64> {
    let b = header.iter().position(|h| h == "body").unwrap();
    let x = header.iter().position(|h| h == "x").unwrap();
    rows.iter()
        .filter(|r| r[b] == body)
        .map(|r| r[x].parse().unwrap())
        .collect()
}

#[test]
fn urdf_double_pendulum_runs_with_link_names_and_swings() {
    let dir = tempfile::tempdir().unwrap();
    let out = output(
        stiction()
            .args(["run", "--joint", "shoulder=0.5", "--json", "--out"])
            .arg(dir.path())
            .arg(fixture("double_pendulum.urdf")),
    );
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    // 2 s at 1/240 s by default.
    assert_eq!(summary["steps_done"], 480);
    assert_eq!(summary["joints"], 2);
    assert!(summary["error"].is_null());

    let (header, rows) = read_csv(&dir.path().join("trajectory.csv"));
    let b = header.iter().position(|h| h == "body").unwrap();
    let mut names: Vec<&str> = rows.iter().map(|r| r[b].as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names, ["base", "ground", "lower", "upper"]);

    // Released at 0.5 rad about y, the upper link's centre of mass starts at negative x
    // and swings through to positive x and back.
    let x = xs(&header, &rows, "upper");
    assert_eq!(x.len(), 481);
    assert!(x[0] < -0.2, "{}", x[0]);
    let max = x.iter().copied().fold(f64::MIN, f64::max);
    assert!(max > 0.1, "the pendulum does not swing: max x {max}");
    // Energy is kept by the exact stepper to a small fraction.
    let (e0, e1) = (
        summary["energy_start"].as_f64().unwrap(),
        summary["energy_end"].as_f64().unwrap(),
    );
    assert!((e1 - e0).abs() < 1e-2 * e0.abs(), "{e0} -> {e1}");
}

#[test]
fn model_warnings_are_warning_lines_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let out = output(
        stiction()
            .args(["run", "--steps", "5", "--out"])
            .arg(dir.path())
            .arg(fixture("arm.xml")),
    );
    let (_, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert!(!warnings.is_empty(), "{stderr}");
    // Each names the file, line and column.
    for line in &warnings {
        assert!(line.contains("arm.xml:"), "{line}");
    }
    assert!(stderr.contains("condim"), "{stderr}");
    // --quiet silences them.
    let quiet = output(
        stiction()
            .args(["run", "--steps", "5", "--quiet", "--out"])
            .arg(dir.path())
            .arg(fixture("arm.xml")),
    );
    assert!(quiet.status.success());
    assert!(texts(&quiet).1.is_empty());
}

#[test]
fn a_bad_model_is_one_located_error_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.urdf");
    std::fs::write(
        &path,
        "<robot name=\"x\">\n  <link name=\"a\"/>\n  <joint name=\"j\" type=\"revolute\"><parent link=\"a\"/></joint>\n</robot>\n",
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = output(stiction().args(["run", "--out"]).arg(&out_dir).arg(&path));
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    let expected = format!("error: {}:3:3: ", path.display());
    assert!(lines[0].starts_with(&expected), "{stderr}");
    assert!(!out_dir.exists(), "nothing is written");

    // An unknown joint name in --joint is bad input too.
    let out = output(
        stiction()
            .args(["run", "--joint", "nope=1", "--out"])
            .arg(&out_dir)
            .arg(fixture("double_pendulum.urdf")),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(texts(&out).1.contains("nope"), "{}", texts(&out).1);
}

#[test]
fn model_options_are_refused_with_scene_files() {
    let out = output(
        stiction()
            .args(["run", "--hold"])
            .arg(scenes_dir().join("pendulum.toml")),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(texts(&out).1.starts_with("error: --hold: "));
}

#[test]
fn no_ground_and_a_fixed_base_mjcf() {
    let dir = tempfile::tempdir().unwrap();
    success(
        stiction()
            .args([
                "run",
                "--steps",
                "3",
                "--no-ground",
                "--base",
                "fixed",
                "-q",
                "--out",
            ])
            .arg(dir.path())
            .arg(fixture("double_pendulum.xml")),
    );
    let (header, rows) = read_csv(&dir.path().join("trajectory.csv"));
    let b = header.iter().position(|h| h == "body").unwrap();
    assert!(rows.iter().all(|r| r[b] != "ground"));
}

#[test]
fn render_draws_a_model() {
    let dir = tempfile::tempdir().unwrap();
    success(
        stiction()
            .args([
                "render",
                "--joint",
                "shoulder=0.5",
                "--duration",
                "0.5",
                "--width",
                "64",
                "--height",
                "48",
                "-q",
                "--out",
            ])
            .arg(dir.path())
            .arg(fixture("double_pendulum.urdf")),
    );
    assert!(dir.path().join("animation.gif").is_file());
    assert!(dir.path().join("trajectory.csv").is_file());
}
