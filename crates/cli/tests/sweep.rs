//! `stiction sweep`: a friction sweep of a block on a 20 degree slope holds the block for
//! friction above tan 20 and lets it slide as 0.5 g (sin - mu cos) t^2 below; a killed
//! sweep resumes without redoing its finished runs; bad --set paths and values are refused
//! before any run with the documented messages; --jobs does not change the rows.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use common::{output, stiction, success, texts};

const THETA_DEGREES: f64 = 20.0;
const G: f64 = 9.81;

/// The slope's downhill direction and normal, and the block's initial centre.
fn slope_geometry() -> ([f64; 3], [f64; 3], [f64; 3]) {
    let theta = THETA_DEGREES.to_radians();
    // A rotation about +y by theta takes x to (cos, 0, -sin) and z to (sin, 0, cos).
    let down = [theta.cos(), 0.0, -theta.sin()];
    let normal = [theta.sin(), 0.0, theta.cos()];
    let centre = [0.0, 0.0, 1.0];
    // 2 m uphill of the ramp's centre, resting on its top face (0.1 + 0.2 m above it).
    let block: Vec<f64> = (0..3)
        .map(|k| centre[k] + 0.3 * normal[k] - 2.0 * down[k])
        .collect();
    (down, normal, [block[0], block[1], block[2]])
}

/// A 0.4 m steel block resting on a static steel ramp tilted 20 degrees, for 1 s at
/// 240 steps/s.
fn slope_scene() -> String {
    let (_, _, p) = slope_geometry();
    format!(
        r#"name = "slope"
duration = 1.0

# A stiffer contact than the default cfm 1e-5, whose softness lets a held block creep
# about 1 mm/s (the creep is proportional to cfm: 1e-7 leaves 0.01 mm in 1 s).
[world]
step = 0.004166666666666667
cfm = 1e-7

[materials.steel]
friction = 0.5

[[bodies]]
name = "ramp"
kind = "static"
position = [0.0, 0.0, 1.0]
axis_angle = {{ axis = [0.0, 1.0, 0.0], degrees = {THETA_DEGREES} }}
shapes = [{{ type = "box", half_extents = [5.0, 1.0, 0.1], material = "steel" }}]

[[bodies]]
name = "block"
position = [{}, {}, {}]
axis_angle = {{ axis = [0.0, 1.0, 0.0], degrees = {THETA_DEGREES} }}
density = 1000.0
shapes = [{{ type = "box", half_extents = [0.2, 0.2, 0.2], material = "steel" }}]
"#,
        p[0], p[1], p[2]
    )
}

/// Splits a CSV line as the summary writes it (quoted fields may hold commas).
fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                current.push('"');
                chars.next();
            }
            (true, '"') => quoted = false,
            (false, '"') => quoted = true,
            (false, ',') => out.push(std::mem::take(&mut current)),
            (_, c) => current.push(c),
        }
    }
    out.push(current);
    out
}

/// The summary's header and its rows as maps from column to value.
fn summary(dir: &Path) -> (Vec<String>, Vec<BTreeMap<String, String>>) {
    let text = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let mut lines = text.lines();
    let header = fields(lines.next().unwrap());
    let rows = lines
        .map(|l| header.iter().cloned().zip(fields(l)).collect())
        .collect();
    (header, rows)
}

fn number(row: &BTreeMap<String, String>, column: &str) -> f64 {
    row[column]
        .parse()
        .unwrap_or_else(|_| panic!("{column} = {:?}", row[column]))
}

#[test]
fn friction_sweep_on_a_slope_holds_above_tan_theta_and_slides_below() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("slope.toml");
    std::fs::write(&scene, slope_scene()).unwrap();
    let out = dir.path().join("sweep");
    let stdout = success(
        stiction()
            .arg("sweep")
            .arg(&scene)
            .args(["--set", "materials.steel.friction=0.1:0.7:7", "--out"])
            .arg(&out),
    );
    assert!(stdout.contains("sweep: 7 runs"), "{stdout}");
    let (header, rows) = summary(&out);
    assert_eq!(
        header.join(","),
        "run,materials.steel.friction,seed,outcome,steps_done,time,energy_start,energy_end,\
energy_drift,max_penetration,max_residual,joint_error_end,report_x,report_y,report_z,\
report_vx,report_vy,report_vz,wall_seconds,error"
    );
    assert_eq!(rows.len(), 7);
    let (down, _, p0) = slope_geometry();
    let theta = THETA_DEGREES.to_radians();
    let mut report = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let mu = 0.1 * (i + 1) as f64;
        assert_eq!(row["run"], i.to_string());
        assert_eq!(row["materials.steel.friction"], format!("{mu:.1}"));
        assert_eq!(row["seed"], "0");
        assert_eq!(row["outcome"], "ok", "{row:?}");
        assert_eq!(row["error"], "");
        assert_eq!(row["steps_done"], "240");
        assert!((number(row, "time") - 1.0).abs() < 1e-9);
        let p = [
            number(row, "report_x"),
            number(row, "report_y"),
            number(row, "report_z"),
        ];
        let s: f64 = (0..3).map(|k| (p[k] - p0[k]) * down[k]).sum();
        let expected = (0.5 * G * (theta.sin() - mu * theta.cos())).max(0.0);
        report.push(format!("mu {mu:.1}: {s:.5} m (analytic {expected:.5} m)"));
        if mu > theta.tan() + 0.02 {
            assert!(s.abs() < 1e-3, "mu {mu}: slid {s} m");
        } else {
            assert!(
                (s - expected).abs() < 0.05 * expected,
                "mu {mu}: slid {s} m, analytic {expected} m"
            );
        }
    }
    println!("{}", report.join("\n"));
}

/// The rows of the summary as lines, by run id.
fn rows_by_id(dir: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(dir.join("summary.csv")).unwrap_or_default();
    // A line still being written (no newline yet) is not a finished row.
    text.split_inclusive('\n')
        .skip(1)
        .filter_map(|l| l.strip_suffix('\n'))
        .map(|l| (fields(l)[0].clone(), l.to_string()))
        .collect()
}

#[test]
fn a_killed_sweep_resumes_without_redoing_finished_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let args = |command: &mut assert_cmd::Command| {
        command
            .args(["sweep", "s4-stack-20", "--jobs", "1", "--steps", "3000"])
            .args(["--set", "world.solver.iterations=10,20"])
            .args(["--seeds", "4", "--out"])
            .arg(&out);
    };
    let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_stiction"));
    first
        .args(["sweep", "s4-stack-20", "--jobs", "1", "--steps", "3000"])
        .args(["--set", "world.solver.iterations=10,20"])
        .args(["--seeds", "4", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = first.spawn().unwrap();
    let started = Instant::now();
    while rows_by_id(&out).len() < 2 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the sweep ended before it could be killed"
        );
        assert!(started.elapsed() < Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(5));
    }
    // Child::kill is SIGKILL on Unix: no chance to tidy up.
    child.kill().unwrap();
    child.wait().unwrap();
    let before = rows_by_id(&out);
    assert!(
        (2..8).contains(&before.len()),
        "{} rows before the kill",
        before.len()
    );

    let mut again = stiction();
    args(&mut again);
    let stdout = success(&mut again);
    let skipped = before.len();
    assert!(
        stdout.contains(&format!("sweep: {} runs in", 8 - skipped))
            && stdout.contains(&format!("({skipped} skipped")),
        "{stdout}"
    );
    let after = rows_by_id(&out);
    assert_eq!(after.len(), 8);
    let ids: Vec<&str> = after.keys().map(String::as_str).collect();
    assert_eq!(ids, ["0", "1", "2", "3", "4", "5", "6", "7"]);
    for (id, line) in &before {
        assert_eq!(&after[id], line, "run {id} was redone");
    }
    let text = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert_eq!(text.lines().count(), 9, "a header and 8 rows:\n{text}");

    // A third run has nothing left to do; other arguments are refused.
    let mut third = stiction();
    args(&mut third);
    assert!(success(&mut third).contains("sweep: 0 runs in"));
    let refused = output(
        stiction()
            .args(["sweep", "s4-stack-20", "--jobs", "1", "--steps", "3000"])
            .args(["--set", "world.solver.iterations=10,30"])
            .args(["--seeds", "4", "--out"])
            .arg(&out),
    );
    let (_, stderr) = texts(&refused);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        stderr.trim(),
        format!(
            "error: {}: holds another sweep (sets differs from its sweep.json): rerun with the same arguments to resume it, or choose another --out",
            out.display()
        )
    );
}

#[test]
fn bad_paths_and_values_are_refused_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("slope.toml");
    std::fs::write(&scene, slope_scene()).unwrap();
    let out = dir.path().join("sweep");
    let cases = [
        (
            "world.solver.iteration=10",
            "error: --set world.solver.iteration: the scene has no `world.solver.iteration` (unknown field `iteration`, expected one of `type`, `iterations`, `omega`, `tolerance`, `warm_start`, `direct_bilateral`, `impacts`)",
        ),
        (
            "materials.wood.friction=0.2",
            "error: --set materials.wood.friction: the scene has no `materials.wood` (no such key)",
        ),
        (
            "bodies.crate.mass=1",
            "error: --set bodies.crate.mass: the scene has no `bodies.crate` (no such element (it has 2: index 0 to 2 - 1, or a name))",
        ),
        (
            "bodies.block.position=1",
            "error: --set bodies.block.position=1: it is an array: set its elements by index (e.g. PATH.2)",
        ),
        (
            "materials.steel.friction=high",
            "error: --set materials.steel.friction=high: expected a number",
        ),
        (
            "world.solver.iterations=1.5",
            "error: --set world.solver.iterations=1.5: expected an integer",
        ),
        (
            "world.contacts=1",
            "error: --set world.contacts=1: expected true or false",
        ),
        (
            "world.solver.type=fast",
            "error: --set world.solver.type=fast: unknown variant `fast`, expected `exact` or `iterative`",
        ),
        (
            "materials.steel.friction=0.1:0.9",
            "error: --set materials.steel.friction=0.1:0.9: expected a range A:B:N (N numbers from A to B), got `0.1:0.9`",
        ),
        (
            "materials.steel.friction",
            "error: --set materials.steel.friction: expected PATH=VALUES, e.g. materials.steel.friction=0.1,0.5",
        ),
    ];
    for (set, expected) in cases {
        let result = output(
            stiction()
                .arg("sweep")
                .arg(&scene)
                .args(["--set", set, "--out"])
                .arg(&out),
        );
        let (stdout, stderr) = texts(&result);
        assert_eq!(result.status.code(), Some(2), "{set}: {stderr}");
        assert_eq!(stdout, "", "{set}");
        assert_eq!(stderr.trim_end(), expected, "{set}");
        assert!(!out.exists(), "{set}: the sweep directory was created");
    }
    let result = output(
        stiction()
            .arg("sweep")
            .arg(&scene)
            .args(["--report", "crate", "--out"])
            .arg(&out),
    );
    assert_eq!(
        texts(&result).1.trim_end(),
        "error: --report crate: the scene has no body of that name"
    );
}

#[test]
fn an_invalid_value_fails_its_run_only() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("slope.toml");
    std::fs::write(&scene, slope_scene()).unwrap();
    let out = dir.path().join("sweep");
    let result = output(
        stiction()
            .arg("sweep")
            .arg(&scene)
            .args(["--steps", "10", "--set", "materials.steel.friction=-1,0.5"])
            .arg("--out")
            .arg(&out),
    );
    let (_, stderr) = texts(&result);
    assert_eq!(result.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.trim_end().starts_with("error: 1 of 2 runs failed"),
        "{stderr}"
    );
    let (_, rows) = summary(&out);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["outcome"], "error");
    assert!(rows[0]["error"].contains("friction"), "{:?}", rows[0]);
    assert_eq!(rows[0]["steps_done"], "");
    assert_eq!(rows[1]["outcome"], "ok");
    assert_eq!(rows[1]["steps_done"], "10");
}

#[test]
fn jobs_do_not_change_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("slope.toml");
    std::fs::write(&scene, slope_scene()).unwrap();
    let mut tables = Vec::new();
    for jobs in ["1", "2"] {
        let out = dir.path().join(format!("jobs-{jobs}"));
        success(
            stiction()
                .arg("sweep")
                .arg(&scene)
                .args(["--steps", "60", "--seeds", "3", "--jitter", "0.01"])
                .args(["--set", "materials.steel.friction=0.2,0.6"])
                .args(["--set", "world.solver.type=exact,iterative"])
                .args(["--jobs", jobs, "--keep-runs", "--out"])
                .arg(&out),
        );
        let (header, mut rows) = summary(&out);
        assert_eq!(rows.len(), 12);
        for row in &mut rows {
            row.remove("wall_seconds");
        }
        assert!(out.join("runs/00/summary.json").is_file());
        assert!(out.join("runs/11/trajectory.csv").is_file());
        tables.push((header, rows));
    }
    assert_eq!(tables[0], tables[1]);
    let rows = &tables[0].1;
    // Seeds 1 and 2 move the block; seed 0 is the scene as written.
    assert_eq!(rows[0]["world.solver.type"], "exact");
    assert_eq!(rows[3]["world.solver.type"], "iterative");
    assert_eq!(rows[6]["materials.steel.friction"], "0.6");
    assert_ne!(rows[0]["report_x"], rows[1]["report_x"]);
    assert_ne!(rows[1]["report_x"], rows[2]["report_x"]);
}

#[test]
fn shards_together_give_the_whole_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("slope.toml");
    std::fs::write(&scene, slope_scene()).unwrap();
    let sweep = |out: &Path, shard: Option<&str>| {
        let mut command = stiction();
        command
            .arg("sweep")
            .arg(&scene)
            .args(["--steps", "30", "--seeds", "2"])
            .args(["--set", "materials.steel.friction=0.2,0.4,0.6"])
            .arg("--out")
            .arg(out);
        if let Some(shard) = shard {
            command.args(["--shard", shard]);
        }
        success(&mut command);
        let (header, mut rows) = summary(out);
        for row in &mut rows {
            row.remove("wall_seconds");
        }
        (header, rows)
    };
    let (header, whole) = sweep(&dir.path().join("whole"), None);
    assert_eq!(whole.len(), 6);
    let mut merged = Vec::new();
    for part in 0..4 {
        let (part_header, rows) = sweep(
            &dir.path().join(format!("part-{part}")),
            Some(&format!("{part}/4")),
        );
        assert_eq!(part_header, header);
        // Runs part, part + 4, ...: run 0 and 4 in part 0, 1 and 5 in part 1, one in 2 and 3.
        let ids: Vec<usize> = rows.iter().map(|r| r["run"].parse().unwrap()).collect();
        assert!(ids.iter().all(|id| id % 4 == part), "{ids:?}");
        assert_eq!(ids.len(), if part < 2 { 2 } else { 1 });
        merged.extend(rows);
    }
    merged.sort_by_key(|r| r["run"].parse::<usize>().unwrap());
    assert_eq!(merged, whole);
    for bad in ["4/4", "1/0", "x", "1/2/3", "-1/2"] {
        let out = output(
            stiction()
                .args(["sweep", "incline", "--set", "world.erp=0.2", "--out"])
                .arg(dir.path().join("bad"))
                .arg(format!("--shard={bad}")),
        );
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            texts(&out).1.contains("expected I/N with 0 <= I < N"),
            "{bad}"
        );
    }
}
