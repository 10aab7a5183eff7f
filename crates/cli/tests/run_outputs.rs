//! `stiction run` writes the documented files with the documented columns (each column list
//! is also checked against docs/scene-format.md), and their contents are the simulation's:
//! time is step * h, quaternions are unit, the pendulum's energy stays within a fraction of a
//! per cent over half a second, its pivot holds, and the joint force balances gravity and the
//! centripetal load in direction (it pulls the bob toward the pivot). --steps and --duration
//! set the step count; --solver switches the stepper; --json prints one summary object.

mod common;

use common::{column, read_csv, repo_root, scenes_dir, stiction, success};

const TRAJECTORY: &str = "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,asleep,island";
const STATS: &str = "step,time,wall_ms,forces_ms,rows_ms,islands_ms,solve_ms,integration_ms,\
post_stabilization_ms,rows,islands,pivots,sweeps,direct_islands,residual,unsolved_islands,fallbacks,\
kinetic_energy,potential_energy,energy,momentum_x,momentum_y,momentum_z,angular_momentum_x,\
angular_momentum_y,angular_momentum_z,max_penetration,max_joint_error";
const JOINT_FORCES: &str = "step,time,joint,body_a,body_b,force_a_x,force_a_y,force_a_z,\
torque_a_x,torque_a_y,torque_a_z,force_b_x,force_b_y,force_b_z,torque_b_x,torque_b_y,torque_b_z";

#[test]
fn pendulum_run_writes_every_documented_file_with_consistent_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = success(
        stiction()
            .args(["run", "--steps", "30", "--json", "--out"])
            .arg(dir.path())
            .arg(scenes_dir().join("pendulum.toml")),
    );
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["steps_done"], 30);
    assert!(summary["error"].is_null());
    for file in ["scene.json", "summary.json"] {
        assert!(dir.path().join(file).is_file(), "{file}");
    }

    let (header, rows) = read_csv(&dir.path().join("trajectory.csv"));
    assert_eq!(header.join(","), TRAJECTORY);
    assert_eq!(rows.len(), 31, "steps 0..=30, one body");
    let h = 1.0 / 60.0;
    let (step, time) = (
        column(&header, &rows, "step"),
        column(&header, &rows, "time"),
    );
    for (s, t) in step.iter().zip(&time) {
        assert!((t - s * h).abs() < 1e-12);
    }
    // The centre of mass, (1.6 * 0.5 + 4.18879 * 1.0) / 5.78879 m from the pivot.
    let x = column(&header, &rows, "x");
    let ball = 4.0 / 3.0 * std::f64::consts::PI;
    assert!(
        (x[0] - (0.8 + ball) / (1.6 + ball)).abs() < 1e-12,
        "{}",
        x[0]
    );
    let q: Vec<Vec<f64>> = ["qw", "qx", "qy", "qz"]
        .iter()
        .map(|c| column(&header, &rows, c))
        .collect();
    for i in 0..rows.len() {
        let norm: f64 = q.iter().map(|c| c[i] * c[i]).sum();
        assert!((norm - 1.0).abs() < 1e-12);
    }

    let (header, rows) = read_csv(&dir.path().join("stats.csv"));
    assert_eq!(header.join(","), STATS);
    assert_eq!(rows.len(), 31);
    // The body is a 1.6 kg rod (1 x 0.04 x 0.04 m at 1000 kg/m^3) and a 4.18879 kg ball
    // (radius 0.1 m) at its end: its centre of mass starts at height 2 m.
    let mass = 1.6 + 4.0 / 3.0 * std::f64::consts::PI * 1e-3 * 1000.0;
    let potential = column(&header, &rows, "potential_energy");
    let kinetic = column(&header, &rows, "kinetic_energy");
    let energy = column(&header, &rows, "energy");
    assert!(
        (potential[0] - mass * 9.81 * 2.0).abs() < 1e-9,
        "{}",
        potential[0]
    );
    assert_eq!(kinetic[0], 0.0);
    for i in 0..rows.len() {
        assert!((energy[i] - kinetic[i] - potential[i]).abs() < 1e-9);
    }
    // Energy is lost only slowly (first-order stepping), never gained.
    let swing = mass * 9.81 * 0.86;
    assert!(energy[30] <= energy[0] + 1e-9 && energy[0] - energy[30] < 0.1 * swing);
    assert!(
        kinetic[30] > 0.5 * swing,
        "the pendulum has swung down: {}",
        kinetic[30]
    );
    assert!(column(&header, &rows, "max_joint_error")
        .iter()
        .all(|e| *e < 1e-6));
    assert!(
        column(&header, &rows, "rows")[1] >= 5.0,
        "a hinge writes 5 rows"
    );

    let (header, rows) = read_csv(&dir.path().join("joint_forces.csv"));
    assert_eq!(header.join(","), JOINT_FORCES);
    assert_eq!(rows.len(), 31);
    assert_eq!(rows[5][2], "pivot");
    assert_eq!(rows[5][3], "pendulum");
    assert_eq!(rows[5][4], "world");
    // After 30 steps the bob has swung down; the pivot pulls it up and toward the pivot
    // (the body sits at x > 0, so the force on it has x < 0 and z > 0).
    let fx = column(&header, &rows, "force_a_x")[30];
    let fz = column(&header, &rows, "force_a_z")[30];
    assert!(fx < 0.0 && fz > 0.0, "force on the bob ({fx}, {fz})");
}

#[test]
fn duration_and_solver_options_change_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = success(
        stiction()
            .args([
                "run",
                "pendulum",
                "--duration",
                "0.1",
                "--solver",
                "iterative",
                "--json",
            ])
            .arg("--out")
            .arg(dir.path()),
    );
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    // 0.1 s at h = 1/60 s is 6 steps.
    assert_eq!(summary["steps"], 6);
    let scene: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("scene.json")).unwrap())
            .unwrap();
    assert_eq!(scene["world"]["solver"]["type"], "iterative");
    let (header, rows) = read_csv(&dir.path().join("stats.csv"));
    // The pendulum's island has joint rows only: the iterative stepper factors it
    // (`IterativeSettings::direct_bilateral`) rather than sweeping it.
    assert_eq!(column(&header, &rows, "direct_islands")[1], 1.0);
    assert_eq!(column(&header, &rows, "sweeps")[1], 0.0);
}

#[test]
fn text_summary_names_the_scene_and_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = success(
        stiction()
            .args(["run", "tennis-racket", "--steps", "5", "--out"])
            .arg(dir.path()),
    );
    assert!(
        stdout.starts_with("tennis-racket: 5 of 5 steps"),
        "{stdout}"
    );
    assert!(stdout.contains("trajectory.csv"), "{stdout}");
}

#[test]
fn documentation_lists_every_column() {
    let doc = std::fs::read_to_string(repo_root().join("docs/scene-format.md")).unwrap();
    for list in [TRAJECTORY, STATS, JOINT_FORCES] {
        for column in list.split(',') {
            assert!(doc.contains(&format!("`{column}`")), "docs miss `{column}`");
        }
    }
}
