//! Every scene file in scenes/ loads and runs a few steps (exit 0, every body in the trajectory
//! at the first and the last step). The benchmark scene files agree with the engine's shared
//! builders (stiction::scenes), which are the single source: after one step every dynamic body
//! of the file is where the builder's is.

mod common;

use common::{column, output, read_csv, scenes_dir, stiction, success, texts};

#[test]
fn every_builtin_scene_runs_a_few_steps_or_names_the_missing_feature() {
    let mut names: Vec<String> = std::fs::read_dir(scenes_dir())
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            (path.extension()? == "toml").then(|| path.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
    names.sort();
    assert_eq!(names.len(), 13, "{names:?}");
    for name in &names {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("run");
        let file = scenes_dir().join(format!("{name}.toml"));
        let result = output(
            stiction()
                .args(["run", "--steps", "3", "--quiet", "--out"])
                .arg(&out_dir)
                .arg(&file),
        );
        let (stdout, stderr) = texts(&result);
        assert_eq!(result.status.code(), Some(0), "{name}: {stderr}");
        assert!(
            stdout.is_empty() && stderr.is_empty(),
            "{name}: --quiet printed"
        );
        let (header, rows) = read_csv(&out_dir.join("trajectory.csv"));
        let steps = column(&header, &rows, "step");
        let at = |s: f64| steps.iter().filter(|&&x| x == s).count();
        // Every body at the start and at the last step, whatever `record.every` is.
        assert!(at(0.0) > 0, "{name}");
        assert_eq!(at(3.0), at(0.0), "{name}");
        assert_eq!(steps.last(), Some(&3.0), "{name}");
    }
}
#[test]
fn builtin_scenes_run_by_name_from_any_directory() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = success(
        stiction()
            .current_dir(dir.path())
            .args(["run", "pendulum", "--steps", "2", "--json"]),
    );
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["scene"], "pendulum");
    assert_eq!(summary["steps_done"], 2);
    assert!(dir.path().join("out/pendulum/trajectory.csv").is_file());
}

/// Positions after one step of the file (via `stiction run`) and of the builder.
fn compare_with_builder(file: &str, mut scene: stiction::scenes::Scene) {
    let dir = tempfile::tempdir().unwrap();
    success(
        stiction()
            .args(["run", "--steps", "1", "--quiet", "--out"])
            .arg(dir.path())
            .arg(scenes_dir().join(file)),
    );
    scene.world.step(scene.h).unwrap();
    let (header, rows) = read_csv(&dir.path().join("trajectory.csv"));
    let step = column(&header, &rows, "step");
    let xyz: Vec<Vec<f64>> = ["x", "y", "z", "wx", "wy", "wz"]
        .iter()
        .map(|c| column(&header, &rows, c))
        .collect();
    // The file's static bodies (ground, walls) are the builder's static colliders.
    let file_scene: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("scene.json")).unwrap())
            .unwrap();
    let fixed: Vec<&str> = file_scene["bodies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["kind"] == "static")
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    let after: Vec<usize> = (0..rows.len())
        .filter(|&i| step[i] == 1.0 && !fixed.contains(&rows[i][2].as_str()))
        .collect();
    assert_eq!(after.len(), scene.bodies.len(), "{file}: body count");
    for (k, &row) in after.iter().enumerate() {
        let body = scene.world.body(scene.bodies[k]).unwrap();
        let expected = [body.position(), body.angular_velocity()];
        for c in 0..6 {
            let e = expected[c / 3].to_array()[c % 3];
            assert!(
                (xyz[c][row] - e).abs() <= 1e-9 * (1.0 + e.abs()),
                "{file}: body {k} coordinate {c}: file {} builder {e}",
                xyz[c][row]
            );
        }
    }
}

#[test]
fn chain_file_matches_the_shared_builder() {
    compare_with_builder(
        "s3-chain-100.toml",
        stiction::scenes::chain_100(stiction::Solver::exact()).unwrap(),
    );
}

#[test]
fn spinner_file_matches_the_shared_builder() {
    compare_with_builder(
        "s5-spinner.toml",
        stiction::scenes::spinner(stiction::GyroscopicMode::Implicit).unwrap(),
    );
}

#[test]
fn stack_file_matches_the_shared_builder() {
    compare_with_builder(
        "s4-stack-20.toml",
        stiction::scenes::stack_20(stiction::Solver::exact()).unwrap(),
    );
}

#[test]
fn pyramid_file_matches_the_shared_builder() {
    compare_with_builder(
        "s1-pyramid-20.toml",
        stiction::scenes::pyramid_20(stiction::Solver::iterative()).unwrap(),
    );
}

#[test]
fn sphere_pile_file_matches_the_shared_builder() {
    compare_with_builder(
        "s2-sphere-pile.toml",
        stiction::scenes::sphere_pile_1000(stiction::Solver::iterative()).unwrap(),
    );
}
