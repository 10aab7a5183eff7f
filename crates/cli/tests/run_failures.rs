//! What a run that goes wrong tells its user (issue 32): a refused step reaches stderr as one
//! `error: ` line in every output mode (text, `--quiet`, `--json`) and through `render` too,
//! exits 1, and names the body by its scene name, not its engine handle; physical figures
//! print readably (a blown-up energy as `5.000e299`, not 300 digits); and a run whose
//! forces are approximate says so once, with the worst residual and what to change, while
//! a converged run says nothing of the kind.

mod common;

use std::path::Path;

use common::{output, stiction, texts};

/// A body so light that its inverse mass overflows: the engine refuses the first step.
const SPECK: &str = r#"
[[bodies]]
name = "speck"
mass = 1e-320
shapes = [{ type = "sphere", radius = 0.5 }]
"#;

/// A body moving at 1e150 m/s: finite, but its kinetic energy is 5e299 J.
const BULLET: &str = r#"
[world]
gravity = [0.0, 0.0, 0.0]

[[bodies]]
name = "bullet"
mass = 1.0
linear_velocity = [1e150, 0.0, 0.0]
shapes = [{ type = "sphere", radius = 0.5 }]
"#;

/// A box resting on the ground, its contacts solved by `iterations` Gauss-Seidel sweeps.
fn crate_on_the_ground(iterations: u32) -> String {
    format!(
        r#"
[world.solver]
type = "iterative"
iterations = {iterations}

[[bodies]]
name = "ground"
kind = "static"
shapes = [{{ type = "plane" }}]

[[bodies]]
name = "crate"
position = [0.0, 0.0, 0.5]
shapes = [{{ type = "box", half_extents = [0.5, 0.5, 0.5] }}]
"#
    )
}

/// Writes `text` as `dir/name` and runs `stiction ARGS... name --out dir/out` in `dir`.
fn run_in(dir: &Path, name: &str, text: &str, args: &[&str]) -> (Option<i32>, String, String) {
    std::fs::write(dir.join(name), text).unwrap();
    let result = output(
        stiction()
            .current_dir(dir)
            .args(args)
            .arg(name)
            .args(["--out", "out"]),
    );
    let (stdout, stderr) = texts(&result);
    (result.status.code(), stdout, stderr)
}

const SPECK_ERROR: &str =
    "error: speck.toml: step 1 failed: non-finite value during the forces phase (body `speck`)";

#[test]
fn a_failed_step_reaches_stderr_in_every_mode_with_the_bodys_name() {
    let dir = tempfile::tempdir().unwrap();
    for mode in [&[][..], &["--quiet"], &["--json"]] {
        let args = [&["run", "--steps", "10"], mode].concat();
        let (status, stdout, stderr) = run_in(dir.path(), "speck.toml", SPECK, &args);
        assert_eq!(status, Some(1), "{mode:?}: {stdout}{stderr}");
        assert_eq!(stderr.trim_end(), SPECK_ERROR, "{mode:?}");
        assert!(!stdout.contains("Handle"), "{mode:?}: {stdout}");
        assert!(!stdout.contains("stopped"), "{mode:?}: {stdout}");
        match mode {
            ["--quiet"] => assert!(stdout.is_empty(), "{stdout}"),
            ["--json"] => {
                let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
                assert_eq!(summary["steps_done"], 0);
                assert_eq!(
                    summary["error"],
                    "step 1 failed: non-finite value during the forces phase (body `speck`)"
                );
            }
            _ => assert!(stdout.starts_with("speck: 0 of 10 steps"), "{stdout}"),
        }
    }
    // The run directory keeps the files written before the failure, the summary its cause.
    let summary = std::fs::read_to_string(dir.path().join("out/summary.json")).unwrap();
    assert!(summary.contains("(body `speck`)"), "{summary}");
}

#[test]
fn render_reports_the_failed_run_on_stderr_too() {
    let dir = tempfile::tempdir().unwrap();
    let (status, stdout, stderr) = run_in(
        dir.path(),
        "speck.toml",
        SPECK,
        &["render", "--steps", "3", "--quiet"],
    );
    assert_eq!(status, Some(1), "{stdout}{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(stderr.trim_end(), SPECK_ERROR);
    // The steps before it are still drawn.
    assert!(dir.path().join("out/animation.gif").is_file());
}

#[test]
fn huge_figures_print_with_an_exponent() {
    let dir = tempfile::tempdir().unwrap();
    let (status, stdout, stderr) =
        run_in(dir.path(), "bullet.toml", BULLET, &["run", "--steps", "3"]);
    assert_eq!(status, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("; energy 5.000e299 J -> 5.000e299 J;"),
        "{stdout}"
    );
    let longest_digits = stdout
        .split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0);
    assert!(
        longest_digits < 12,
        "a {longest_digits}-digit number in {stdout}"
    );
    // The step size, 1/60 s, to six significant digits.
    assert!(stdout.contains("3 of 3 steps of 0.0166667 s"), "{stdout}");
}

#[test]
fn approximate_forces_warn_once_with_the_worst_residual_and_what_to_change() {
    let dir = tempfile::tempdir().unwrap();
    let scene = crate_on_the_ground(1);
    let (status, stdout, stderr) =
        run_in(dir.path(), "crate.toml", &scene, &["run", "--steps", "20"]);
    assert_eq!(status, Some(0), "a warning is not a failure: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    let warning = lines[0];
    assert!(
        warning.starts_with(
            "warning: crate.toml: the forces are approximate: the LCP residual reached "
        ),
        "{warning}"
    );
    for advice in ["world.solver.iterations", "--solver exact", "world.step"] {
        assert!(warning.contains(advice), "{advice}: {warning}");
    }
    assert!(!stdout.contains("approximately"), "{stdout}");

    let (_, stdout, stderr) = run_in(
        dir.path(),
        "crate.toml",
        &scene,
        &["run", "--steps", "20", "--json"],
    );
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let worst = summary["max_residual"].as_f64().unwrap();
    let step = summary["max_residual_step"].as_u64().unwrap();
    let above = summary["steps_above_residual_warning"].as_u64().unwrap();
    assert!(worst > 1e-3, "{worst}");
    assert!(
        (1..=20).contains(&step) && (1..=20).contains(&above),
        "{summary}"
    );
    // The warning quotes the same figures the summary holds.
    let text = summary["warning"].as_str().unwrap();
    assert!(
        text.contains(&format!("at step {step} ({above} step")),
        "{text}"
    );
    assert_eq!(stderr.trim_end(), format!("warning: crate.toml: {text}"));

    // The worst residual of the stats.csv rows is the summary's.
    let stats = std::fs::read_to_string(dir.path().join("out/stats.csv")).unwrap();
    let header: Vec<&str> = stats.lines().next().unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "residual").unwrap();
    let recorded = stats
        .lines()
        .skip(1)
        .map(|row| row.split(',').nth(column).unwrap().parse::<f64>().unwrap())
        .fold(0.0, f64::max);
    assert_eq!(recorded, worst);

    // --quiet prints nothing at all for a run that succeeded.
    let (status, stdout, stderr) = run_in(
        dir.path(),
        "crate.toml",
        &scene,
        &["run", "--steps", "20", "--quiet"],
    );
    assert_eq!(status, Some(0));
    assert!(stdout.is_empty() && stderr.is_empty(), "{stdout}{stderr}");
}

#[test]
fn a_converged_iterative_run_prints_its_residual_and_no_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (status, stdout, stderr) = run_in(
        dir.path(),
        "crate.toml",
        &crate_on_the_ground(20),
        &["run", "--steps", "60", "--json"],
    );
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert!(summary["warning"].is_null(), "{summary}");
    let worst = summary["max_residual"].as_f64().unwrap();
    assert!(worst > 0.0 && worst <= 1e-3, "{worst}");
    assert_eq!(summary["steps_above_residual_warning"], 0);
    // Every step ran out of sweeps (tolerance 0), which alone is no reason to warn.
    assert_eq!(summary["steps_with_unsolved_islands"], 60);

    let (_, stdout, stderr) = run_in(
        dir.path(),
        "crate.toml",
        &crate_on_the_ground(20),
        &["run", "--steps", "60"],
    );
    assert!(stderr.is_empty(), "{stderr}");
    assert!(stdout.contains("; worst LCP residual "), "{stdout}");
    assert!(!stdout.contains("approximately"), "{stdout}");
}
