//! `stiction lcp solve` end to end: on every example file each applicable solver prints the
//! hand-computed solution (examples/lcp/README.md) with status "solved" and exit status 0 —
//! the boxed solvers for `a x = b + w`, Lemke for `w = a z + b`, which differ in the sign of
//! `b`; a solver that stops short prints its JSON and exits 1; every kind of bad input exits 2
//! with exactly one `error: ` line on stderr naming the file and the field, and nothing on
//! stdout.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn stiction() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stiction"))
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/lcp")
        .join(name)
}

/// Options that make the iterative solvers converge far below the comparison tolerance.
fn tight_options(solver: &str) -> Vec<&'static str> {
    match solver {
        "pgs" | "pgd" => vec!["--tolerance", "1e-13", "--max-iterations", "100000"],
        _ => vec![],
    }
}

/// Runs `stiction lcp solve --solver SOLVER FILE`, requires exit status 0 and a silent
/// stderr, and returns the parsed output.
fn solve_ok(solver: &str, file: &Path) -> Value {
    let output = stiction()
        .args(["lcp", "solve", "--solver", solver])
        .args(tight_options(solver))
        .arg(file)
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{solver} on {}: stdout {stdout}, stderr {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stderr.is_empty());
    assert_eq!(
        stdout.lines().count(),
        1,
        "one JSON object on one line: {stdout}"
    );
    let value: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["status"], "solved", "{solver}: {value}");
    assert!(
        value["residual"].as_f64().unwrap() <= 1e-6,
        "{solver}: {value}"
    );
    assert!(value["iterations"].is_u64(), "{value}");
    assert!(value["fell_back"].is_boolean(), "{value}");
    let parts = &value["residual_parts"];
    let worst = ["bound", "equation", "complementarity"]
        .iter()
        .map(|k| parts[*k].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert_eq!(worst, value["residual"].as_f64().unwrap(), "{value}");
    value
}

fn numbers(value: &Value, key: &str) -> Vec<f64> {
    value[key]
        .as_array()
        .unwrap_or_else(|| panic!("`{key}` is not an array: {value}"))
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

fn assert_close(found: &[f64], expected: &[f64], what: &str) {
    assert_eq!(
        found.len(),
        expected.len(),
        "{what}: {found:?} vs {expected:?}"
    );
    for (f, e) in found.iter().zip(expected) {
        assert!((f - e).abs() <= 1e-6, "{what}: {found:?} vs {expected:?}");
    }
}

/// The solvers that read a file as the boxed LCP `a x = b + w`.
const BOXED_SOLVERS: [&str; 3] = ["dantzig", "pgs", "pgd"];

/// Every example file, each checked by a test below.
const EXAMPLES: [&str; 5] = [
    "standard_2x2.json",
    "lemke_2x2.json",
    "friction_saturated.json",
    "joint_and_contact.json",
    "degenerate_duplicate_contact.json",
];

fn check_example(name: &str, solvers: &[&str], x: &[f64], w: &[f64]) {
    for solver in solvers {
        let value = solve_ok(solver, &example(name));
        assert_close(&numbers(&value, "x"), x, &format!("{name} x, {solver}"));
        assert_close(&numbers(&value, "w"), w, &format!("{name} w, {solver}"));
    }
}

#[test]
fn every_example_file_has_a_test() {
    let dir = example("");
    let mut found: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .collect();
    found.sort();
    let mut known: Vec<String> = EXAMPLES.iter().map(|s| s.to_string()).collect();
    known.sort();
    assert_eq!(found, known, "examples/lcp and the tests disagree");
}

#[test]
fn standard_2x2_gives_the_hand_solution_with_every_solver() {
    // a = [[2,1],[1,3]], b = [4,1]. Boxed, a x = b + w: row 2 would need x2 = -2/5
    // unclamped, so x2 = 0, x1 = 4/2 = 2, w2 = 1*2 - 1 = 1.
    check_example(
        "standard_2x2.json",
        &BOXED_SOLVERS,
        &[2.0, 0.0],
        &[0.0, 1.0],
    );
    // Lemke, w = a z + b: b >= 0, so z = 0 and w = b.
    check_example("standard_2x2.json", &["lemke"], &[0.0, 0.0], &[4.0, 1.0]);
}

#[test]
fn lemke_2x2_gives_the_hand_solution_with_every_solver() {
    // a = [[2,1],[1,3]], b = [-4,1]. Lemke, w = a z + b: z2 = 0, 2 z1 - 4 = 0 gives z1 = 2,
    // w2 = 2 + 1 = 3.
    check_example("lemke_2x2.json", &["lemke"], &[2.0, 0.0], &[0.0, 3.0]);
    // Boxed, a x = b + w: x = 0 would leave w2 = -1 < 0, so 3 x2 = 1, w1 = 1/3 + 4.
    check_example(
        "lemke_2x2.json",
        &BOXED_SOLVERS,
        &[0.0, 1.0 / 3.0],
        &[13.0 / 3.0, 0.0],
    );
}

#[test]
fn saturated_friction_gives_the_hand_solution() {
    // Tangent 1 sits at mu * n = 0.5 n: 2.25 n = 2.25 gives n = 1, tangent 2 is interior at
    // -0.2 (|-0.2| < 0.5), w1 = 0.5 + 0.5 - 3 = -2 <= 0 as its upper bound requires.
    check_example(
        "friction_saturated.json",
        &BOXED_SOLVERS,
        &[1.0, 0.5, -0.2],
        &[0.0, -2.0, 0.0],
    );
}

#[test]
fn joint_row_takes_a_negative_force() {
    // Both rows clamped: [[2,1],[1,2]] x = [1,4] gives x = [-2/3, 7/3]; the joint row is
    // unbounded so its negative force stands.
    check_example(
        "joint_and_contact.json",
        &BOXED_SOLVERS,
        &[-2.0 / 3.0, 7.0 / 3.0],
        &[0.0, 0.0],
    );
}

#[test]
fn duplicate_contact_rows_share_the_load() {
    // Boxed: every x >= 0 with x1 + x2 = 1 solves it; the split is the solver's choice.
    for solver in BOXED_SOLVERS {
        let value = solve_ok(solver, &example("degenerate_duplicate_contact.json"));
        let x = numbers(&value, "x");
        assert_eq!(x.len(), 2);
        assert!(x.iter().all(|&v| v >= -1e-9), "{solver}: {x:?}");
        assert!((x[0] + x[1] - 1.0).abs() <= 1e-6, "{solver}: {x:?}");
        assert_close(&numbers(&value, "w"), &[0.0, 0.0], solver);
    }
    // Lemke: w = (z1 + z2) [1, 1] + [1, 1] > 0 for every z >= 0, so z = 0.
    check_example(
        "degenerate_duplicate_contact.json",
        &["lemke"],
        &[0.0, 0.0],
        &[1.0, 1.0],
    );
}

#[test]
fn the_empty_problem_solves_with_every_solver() {
    let file = Fixture::new("empty", r#"{"a": [], "b": []}"#);
    for solver in ["dantzig", "pgs", "lemke", "pgd"] {
        let value = solve_ok(solver, &file.path);
        assert_eq!(value["x"], serde_json::json!([]), "{solver}");
        assert_eq!(value["w"], serde_json::json!([]), "{solver}");
    }
}

#[test]
fn dantzig_is_the_default_solver() {
    let output = stiction()
        .args(["lcp", "solve"])
        .arg(example("standard_2x2.json"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_close(&numbers(&value, "x"), &[2.0, 0.0], "default solver");
}

#[test]
fn a_solver_that_stops_short_prints_its_report_and_exits_1() {
    // One PGS sweep from zero leaves x = [0.5, 1.75], far from [-2/3, 7/3].
    let output = stiction()
        .args(["lcp", "solve", "--solver", "pgs", "--max-iterations", "1"])
        .arg(example("joint_and_contact.json"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["status"], "iteration_limit", "{value}");
    assert_eq!(value["iterations"], 1, "{value}");
    assert!(value["residual"].as_f64().unwrap() > 1e-3, "{value}");
}

/// Runs the command, requires exit status 1 (ran, did not solve) with the JSON report still
/// on stdout, and returns it.
fn solve_failed(args: &[&str], file: &Path) -> Value {
    let output = stiction().args(args).arg(file).output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{args:?}");
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_ne!(value["status"], "solved", "{args:?}: {value}");
    value
}

#[test]
fn an_infeasible_problem_is_a_solver_failure_not_an_input_error() {
    // Boxed, a x = b + w: w = -x - 1 < 0 for every x >= 0, so no solution exists.
    let boxed_infeasible = Fixture::new("infeasible", r#"{"a": [[-1]], "b": [1]}"#);
    for solver in BOXED_SOLVERS {
        solve_failed(
            &["lcp", "solve", "--solver", solver],
            &boxed_infeasible.path,
        );
    }
    let exact = solve_failed(
        &["lcp", "solve", "--solver", "dantzig"],
        &boxed_infeasible.path,
    );
    assert_eq!(exact["status"], "pivot_failure", "{exact}");
    assert_eq!(exact["fell_back"], false, "{exact}");
    // --fallback hands the failed solve to PGS, and the report says so.
    let rescued = solve_failed(&["lcp", "solve", "--fallback"], &boxed_infeasible.path);
    assert_eq!(rescued["fell_back"], true, "{rescued}");

    // Lemke reads the same file as w = -z + 1, solved by z = 0, w = 1 ...
    let lemke = solve_ok("lemke", &boxed_infeasible.path);
    assert_close(
        &numbers(&lemke, "x"),
        &[0.0],
        "lemke on the boxed-infeasible file",
    );
    assert_close(
        &numbers(&lemke, "w"),
        &[1.0],
        "lemke on the boxed-infeasible file",
    );
    // ... and fails on b = -1, w = -z - 1 < 0, by ray termination.
    let lemke_infeasible = Fixture::new("lemke-infeasible", r#"{"a": [[-1]], "b": [-1]}"#);
    let ray = solve_failed(
        &["lcp", "solve", "--solver", "lemke"],
        &lemke_infeasible.path,
    );
    assert_eq!(ray["status"], "ray_termination", "{ray}");
}

#[test]
fn omega_reaches_pgs() {
    // Over-relaxation changes the sweep count of the same solve, so the option was used.
    let sweeps = |omega: &str| {
        let output = stiction()
            .args(["lcp", "solve", "--solver", "pgs", "--omega", omega])
            .arg(example("joint_and_contact.json"))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "omega {omega}");
        let value: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_close(&numbers(&value, "x"), &[-2.0 / 3.0, 7.0 / 3.0], omega);
        value["iterations"].as_u64().unwrap()
    };
    assert_ne!(sweeps("1.0"), sweeps("1.3"));
}

/// A problem file written to the temp dir for one test, removed afterwards.
struct Fixture {
    path: PathBuf,
}

impl Fixture {
    fn new(name: &str, contents: &str) -> Self {
        let path = std::env::temp_dir().join(format!(
            "stiction-lcp-cli-{}-{name}.json",
            std::process::id()
        ));
        std::fs::write(&path, contents).unwrap();
        Self { path }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Runs the command on `file`, requires exit status 2, an empty stdout and one `error: `
/// line that names every one of `needles`; returns that line.
fn expect_exit_2(args: &[&str], file: &Path, needles: &[&str]) -> String {
    let output = stiction().args(args).arg(file).output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(output.stdout.is_empty(), "{args:?}: stdout not empty");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "`{needle}` missing from: {stderr}");
    }
    stderr
}

/// [`expect_exit_2`] for an error in the file itself, which the message must name.
fn expect_input_error(args: &[&str], file: &Path, needles: &[&str]) {
    let stderr = expect_exit_2(args, file, needles);
    assert!(stderr.contains(&*file.to_string_lossy()), "{stderr}");
}

#[test]
fn bad_problem_files_exit_2_naming_file_and_field() {
    let cases: [(&str, &str, &[&str]); 12] = [
        (
            "ragged",
            r#"{"a": [[1, 0], [0]], "b": [1, 1]}"#,
            &["`a`", "row 1"],
        ),
        (
            "non-square",
            r#"{"a": [[1, 0, 0], [0, 1, 0]], "b": [1, 1]}"#,
            &["`a`", "square"],
        ),
        ("b-length", r#"{"a": [[1, 0], [0, 1]], "b": [1]}"#, &["`b`"]),
        (
            "lo-length",
            r#"{"a": [[1, 0], [0, 1]], "b": [1, 1], "lo": [0]}"#,
            &["`lo`"],
        ),
        (
            "lo-above-hi",
            r#"{"a": [[1, 0], [0, 1]], "b": [1, 1], "lo": [0, -1], "hi": [1, -2]}"#,
            &["`lo`", "`hi`", "row 1"],
        ),
        (
            "findex-range",
            r#"{"a": [[1, 0], [0, 1]], "b": [1, 1], "hi": ["inf", 0.5], "findex": [-1, 7]}"#,
            &["`findex`", "7"],
        ),
        (
            "findex-self",
            r#"{"a": [[1, 0], [0, 1]], "b": [1, 1], "hi": ["inf", 0.5], "findex": [-1, 1]}"#,
            &["`findex`", "itself"],
        ),
        (
            "nan-bound",
            r#"{"a": [[1]], "b": [1], "lo": ["nan"]}"#,
            &["`lo`"],
        ),
        (
            "bad-bound-word",
            r#"{"a": [[1]], "b": [1], "hi": ["lots"]}"#,
            &["`hi`", "line 1"],
        ),
        (
            "negative-nub",
            r#"{"a": [[1]], "b": [1], "nub": -1}"#,
            &["`nub`", "line 1"],
        ),
        (
            "malformed",
            "{\"a\": [[1]],\n \"b\": [1,]}",
            &["line 2", "column"],
        ),
        ("empty-file", "", &["line 1"]),
    ];
    for (name, contents, needles) in cases {
        let file = Fixture::new(name, contents);
        for solver in ["dantzig", "pgs", "pgd"] {
            expect_input_error(&["lcp", "solve", "--solver", solver], &file.path, needles);
        }
        // Lemke reads the file as a standard LCP, so a bad boxed-only field may be reported
        // as "not a standard LCP" instead; it still names the field.
        expect_input_error(
            &["lcp", "solve", "--solver", "lemke"],
            &file.path,
            &needles[..1],
        );
    }
}

#[test]
fn a_missing_file_exits_2() {
    let path = std::env::temp_dir().join(format!(
        "stiction-lcp-cli-{}-does-not-exist.json",
        std::process::id()
    ));
    expect_input_error(&["lcp", "solve"], &path, &["cannot read"]);
}

#[test]
fn lemke_rejects_boxed_only_fields_by_name() {
    expect_input_error(
        &["lcp", "solve", "--solver", "lemke"],
        &example("friction_saturated.json"),
        &["`findex`"],
    );
    expect_input_error(
        &["lcp", "solve", "--solver", "lemke"],
        &example("joint_and_contact.json"),
        &["`nub`"],
    );
}

#[test]
fn out_of_range_options_exit_2() {
    let file = example("standard_2x2.json");
    // Rejected by the solvers' own option checks.
    expect_exit_2(
        &["lcp", "solve", "--solver", "pgs", "--omega", "2.5"],
        &file,
        &["--solver pgs", "`omega`"],
    );
    expect_exit_2(
        &["lcp", "solve", "--solver", "pgd", "--tolerance", "0"],
        &file,
        &["--solver pgd", "`tolerance`"],
    );
    // Rejected by the command line parser before any file is read.
    for args in [
        &["lcp", "solve", "--tolerance", "nan"][..],
        &["lcp", "solve", "--omega", "0"],
        &["lcp", "solve", "--max-iterations", "-3"],
        &["lcp", "solve", "--solver", "simplex"],
    ] {
        let output = stiction().args(args).arg(&file).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn help_works_for_every_command() {
    let cases: [(&[&str], &[&str]); 3] = [
        (&["--help"], &["lcp"]),
        (&["lcp", "--help"], &["solve"]),
        (
            &["lcp", "solve", "--help"],
            &[
                "--solver",
                "dantzig",
                "pgs",
                "lemke",
                "pgd",
                "--max-iterations",
                "--tolerance",
                "--omega",
                "PROBLEM.json",
                "Exit status",
                // The two readings of one file are stated where the solver is chosen.
                "a x = b + w",
                "w = a z + b",
            ],
        ),
    ];
    for (args, needles) in cases {
        let output = stiction().args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(text.contains("Usage"), "{args:?}: {text}");
        for needle in needles {
            assert!(
                text.contains(needle),
                "{args:?}: `{needle}` missing from {text}"
            );
        }
    }
}
