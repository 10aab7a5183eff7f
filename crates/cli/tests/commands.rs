//! Every command has --help, and `bench` prints its markdown table (or one JSON array with
//! --json) with the quality figures docs/scenes.md asks for: the spinner's conserving mode keeps
//! |L| and the energy to round-off while the explicit mode gains energy; every scene has a row
//! with its figures (a stack at rest barely moves in a few steps). Scene names are taken in
//! either case, as the documentation writes them (`S4`) or in lower case.

mod common;

use common::{stiction, success};

#[test]
fn every_command_has_help() {
    for command in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["render", "--help"],
        vec!["demo", "--help"],
        vec!["bench", "--help"],
        vec!["lcp", "solve", "--help"],
    ] {
        let stdout = success(stiction().args(&command));
        assert!(stdout.contains("Usage:"), "{command:?}: {stdout}");
    }
}

#[test]
fn bench_reports_the_spinner_figures_per_gyroscopic_mode() {
    let stdout = success(stiction().args(["bench", "--scene", "s5", "--steps", "300", "--json"]));
    let rows: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 4);
    let figure = |variant: &str, k: usize| {
        let row = rows.iter().find(|r| r["variant"] == variant).unwrap();
        assert_eq!(row["steps"], 300);
        assert!(row["median_ms"].as_f64().unwrap() >= 0.0);
        // The spread is ordered: median <= 90th percentile <= slowest.
        let (median, p90, worst) = (
            row["median_ms"].as_f64().unwrap(),
            row["work"]["p90_ms"].as_f64().unwrap(),
            row["work"]["worst_ms"].as_f64().unwrap(),
        );
        assert!(median <= p90 && p90 <= worst, "{median} {p90} {worst}");
        row["quality"][k][1].as_f64().unwrap()
    };
    assert!(figure("gyroscopic conserving", 0).abs() < 1e-10);
    assert!(figure("gyroscopic conserving", 1).abs() < 1e-10);
    assert!(
        figure("gyroscopic explicit", 1) > 1e-3,
        "explicit gains energy"
    );
}

#[test]
fn bench_prints_a_markdown_table_of_every_scene() {
    let stdout = success(stiction().args(["bench", "--steps", "3", "--solver", "iterative"]));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        "| scene | variant | steps | median ms/step | 90th percentile / slowest, ms | quality | work per step (mean) |"
    );
    assert!(lines
        .iter()
        .any(|l| l.starts_with("| S3 chain-100 | iterative | 3 |")));
    // The load-independent work: 20 sweeps over S4's 240 rows once the stack rests.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("| S4 stack-20 | iterative | 3 |") && l.contains("velocity ")),
        "{stdout}"
    );
    for scene in ["S1", "S2", "S3", "S4", "S5"] {
        assert!(
            lines.iter().any(|l| l.starts_with(&format!("| {scene} "))),
            "{scene}"
        );
    }
    for figure in [
        "max joint separation",
        "top displacement",
        "max penetration",
        "top drift",
        "top height error",
    ] {
        assert!(stdout.contains(figure), "{figure}");
    }
    assert!(!stdout.contains("stopped:"), "{stdout}");
}

#[test]
fn bench_phases_print_each_runs_time_per_phase() {
    let stdout = success(stiction().args([
        "bench",
        "--scene",
        "s3",
        "--solver",
        "iterative",
        "--steps",
        "20",
        "--phases",
    ]));
    let line = stdout
        .lines()
        .find(|l| l.starts_with("| S3 chain-100 | iterative |") && !l.contains(" 20 |"))
        .unwrap_or_else(|| panic!("no phase line in {stdout}"));
    assert!(stdout.contains("| collision | forces | rows | islands | solve |"));
    let phases: Vec<f64> = line
        .split('|')
        .skip(3)
        .filter_map(|cell| cell.trim().parse().ok())
        .collect();
    assert_eq!(phases.len(), 7, "{line}");
    // A chain without contacts: no collision work to speak of, most of the step in the
    // solve and the projection; every phase a time, none negative.
    assert!(phases.iter().all(|ms| *ms >= 0.0), "{line}");
    assert!(phases[4] > phases[0] && phases[6] > phases[0], "{line}");
}

#[test]
fn scene_names_are_taken_in_either_case() {
    for name in ["S4", "s4"] {
        let stdout = success(stiction().args([
            "bench", "--scene", name, "--solver", "exact", "--steps", "2", "--json",
        ]));
        let rows: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        let rows = rows.as_array().unwrap();
        assert_eq!(rows.len(), 1, "{name}: {stdout}");
        assert_eq!(rows[0]["scene"], "S4 stack-20", "{name}");
        assert_eq!(rows[0]["steps"], 2);
    }
    let stdout = success(stiction().args(["stress", "--scene", "S1", "--steps", "2", "--json"]));
    let rows: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(rows[0]["scene"], "S1 pyramid-20", "{stdout}");
}

/// The exact stepper's certificate per run: S4's stack solves every island to tolerance
/// without falling back, and the worst residual is reported.
#[test]
fn bench_counts_the_exact_steppers_fallbacks_and_worst_residual() {
    let stdout = success(stiction().args([
        "bench", "--scene", "s4", "--solver", "exact", "--steps", "60", "--json",
    ]));
    let rows: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let row = &rows.as_array().unwrap()[0];
    assert_eq!(row["variant"], "exact");
    let work = &row["work"];
    assert_eq!(work["fallbacks"], 0);
    assert_eq!(work["unsolved_islands"], 0);
    let residual = work["worst_residual"].as_f64().unwrap();
    assert!(
        (0.0..1e-9).contains(&residual),
        "worst residual {residual:e}"
    );
    let table = success(stiction().args([
        "bench", "--scene", "s4", "--solver", "exact", "--steps", "60",
    ]));
    assert!(
        table.contains("0 fallbacks, 0 islands short of tolerance, worst residual"),
        "{table}"
    );
}

/// `--sweeps N` runs the iterative stepper at N sweeps a step: S4's resting stack has 80
/// contacts of three rows, so the velocity solve updates 240 N rows a step, and the run is
/// named after its sweeps. With only the exact stepper asked for it is a usage error.
#[test]
fn bench_sweeps_sets_the_iterative_steppers_sweeps() {
    let updates = |sweeps: &str| {
        let stdout = success(stiction().args([
            "bench", "--scene", "s4", "--solver", "both", "--sweeps", sweeps, "--steps", "30",
            "--json",
        ]));
        let rows: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        let rows = rows.as_array().unwrap();
        assert_eq!(rows.len(), 2, "{stdout}");
        assert_eq!(rows[0]["variant"], "exact", "{stdout}");
        assert_eq!(
            rows[1]["variant"],
            format!("iterative, {sweeps} sweeps"),
            "{stdout}"
        );
        rows[1]["work"]["velocity_row_updates"].as_f64().unwrap()
    };
    assert_eq!(updates("3"), 3.0 * 240.0);
    assert_eq!(updates("7"), 7.0 * 240.0);
    let refused = common::output(stiction().args([
        "bench", "--scene", "s4", "--solver", "exact", "--sweeps", "7",
    ]));
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("--sweeps: sets the iterative stepper's sweeps"),
        "{stderr}"
    );
    let zero = common::output(stiction().args(["bench", "--scene", "s4", "--sweeps", "0"]));
    assert_eq!(zero.status.code(), Some(2));
}
