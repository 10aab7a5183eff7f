//! `stiction stress` with a tiny step count: the runs it makes, what it reports and its exit
//! status. (The full runs take minutes: `cargo run --release -- stress`; their figures are in
//! BENCHMARKS.md.) The invariant checks themselves, including that each one fails when
//! broken, are unit tests in src/stress.rs.

mod common;

use common::{output, stiction, success, texts};
use serde_json::Value;

fn rows(stdout: &str) -> Vec<Value> {
    let value: Value = serde_json::from_str(stdout.trim()).expect("one JSON array");
    value.as_array().expect("an array of runs").clone()
}

#[test]
fn the_stack_runs_with_both_steppers_and_keeps_every_invariant() {
    let stdout = success(stiction().args(["stress", "--scene", "s4", "--steps", "30", "--json"]));
    let rows = rows(&stdout);
    let solvers: Vec<&str> = rows.iter().map(|r| r["solver"].as_str().unwrap()).collect();
    assert_eq!(solvers, ["exact", "iterative"]);
    for row in &rows {
        assert_eq!(row["scene"], "S4 stack-20");
        assert_eq!(row["bodies"], 20);
        assert_eq!(row["steps"], 30);
        assert_eq!(row["steps_done"], 30);
        assert!(row["violation"].is_null(), "{row}");
        // A resting stack loses energy to the solver's softness; it never gains any.
        let rise = row["max_energy_rise"].as_f64().unwrap();
        assert!(rise <= 0.0, "{row}");
        // 20 boxes of 1 kg lifted 1 cm.
        let tolerance = row["energy_tolerance"].as_f64().unwrap();
        assert!((tolerance - 20.0 * 9.81 * 0.01).abs() < 1e-9, "{row}");
        // The boxes start touching: contacts exist and stay shallow.
        let penetration = row["max_penetration"].as_f64().unwrap();
        assert!(penetration > 0.0 && penetration < 1e-3, "{row}");
        let last = row["final_penetration"].as_f64().unwrap();
        assert!(last > 0.0 && last <= penetration, "{row}");
        assert!(row["top_drift"].as_f64().unwrap() < 1e-2, "{row}");
        assert!(row["mean_step_ms"].as_f64().unwrap() > 0.0, "{row}");
    }
}

#[test]
fn the_pile_runs_with_the_iterative_stepper_only_unless_asked() {
    let stdout = success(stiction().args(["stress", "--scene", "pile", "--steps", "3", "--json"]));
    let rows = rows(&stdout);
    assert_eq!(rows.len(), 1, "{stdout}");
    let row = &rows[0];
    assert_eq!(row["solver"], "iterative");
    assert_eq!(row["bodies"], 5000);
    assert_eq!(row["steps_done"], 3);
    assert!(row["top_drift"].is_null(), "{row}");
    // Three steps of free fall: semi-implicit Euler loses g^2 h^2 / 2 per kilogram per step.
    let h = 1.0 / 60.0;
    let expected = -5000.0 * 0.5 * 9.81 * 9.81 * h * h;
    let rise = row["max_energy_rise"].as_f64().unwrap();
    assert!(
        (rise - expected).abs() < 1e-6 * expected.abs(),
        "{rise} vs {expected}"
    );
    // --ccd turns continuous collision on for every sphere: the row says so, and in free
    // fall (nothing to hit) the run is the same to the last bit.
    let ccd = success(stiction().args([
        "stress", "--scene", "pile", "--steps", "3", "--ccd", "--json",
    ]));
    let ccd_rows = self::rows(&ccd);
    let ccd = &ccd_rows[0];
    assert_eq!(ccd["solver"], "iterative, CCD");
    assert_eq!(ccd["max_energy_rise"], row["max_energy_rise"]);
    assert_eq!(ccd["max_penetration"], row["max_penetration"]);
}

#[test]
fn the_pyramid_runs_with_the_iterative_stepper_and_tracks_its_top_box() {
    let stdout = success(stiction().args(["stress", "--scene", "s1", "--steps", "10", "--json"]));
    let rows = rows(&stdout);
    assert_eq!(rows.len(), 1, "{stdout}");
    let row = &rows[0];
    assert_eq!(row["scene"], "S1 pyramid-20");
    assert_eq!(row["solver"], "iterative");
    assert_eq!(row["bodies"], 210);
    assert_eq!(row["steps_done"], 10);
    assert!(row["violation"].is_null(), "{row}");
    // Built at rest, the top box has barely moved in ten steps.
    let drift = row["max_top_drift"].as_f64().unwrap();
    assert!(drift < 1e-3, "{row}");
}

#[test]
fn the_text_report_is_a_table_with_a_result_per_run() {
    let stdout = success(stiction().args(["stress", "--scene", "s4", "--steps", "5"]));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(lines[0].starts_with("| scene | solver |"), "{stdout}");
    assert!(
        lines[2].starts_with("| S4 stack-20 | exact | 5/5 |"),
        "{stdout}"
    );
    assert!(
        lines[3].starts_with("| S4 stack-20 | iterative | 5/5 |"),
        "{stdout}"
    );
    assert!(
        lines[2..].iter().all(|l| l.ends_with("| pass |")),
        "{stdout}"
    );
}

#[test]
fn a_zero_step_count_is_bad_usage() {
    let out = output(stiction().args(["stress", "--steps", "0"]));
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.starts_with("error: invalid value '0' for '--steps <N>'"),
        "{stderr}"
    );
}
