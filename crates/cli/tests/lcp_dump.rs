//! `stiction run --dump-lcp` and `stiction lcp compare` end to end: a dumped island problem,
//! solved again by `stiction lcp solve` (Dantzig, from cold), reproduces the forces the
//! engine recorded beside it; `lcp compare` prints a row per solver and the engine's row;
//! a bad step list is refused before anything runs.

mod common;

use std::path::{Path, PathBuf};

use common::{output, stiction, success, texts};
use serde_json::Value;

/// Forces agree to this, relative to the island's largest force (at least 1 N): Dantzig
/// from cold and the engine's warm-started solver end on the same index sets, and differ by
/// the round-off of their factorisations.
const FORCE_TOLERANCE: f64 = 1e-9;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stiction-lcp-dump-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `scene` for `steps` steps dumping `dump`, and returns the run directory and the
/// summary's list of dumped files.
fn dump(scene: &str, extra: &[&str], steps: u32, dump: &str, out: &Path) -> Vec<String> {
    let mut cmd = stiction();
    cmd.args(["run", scene, "--quiet", "--steps"])
        .arg(steps.to_string())
        .args(["--dump-lcp", dump, "--out"])
        .arg(out)
        .args(extra);
    success(&mut cmd);
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let files: Vec<String> = summary["lcp_files"]
        .as_array()
        .expect("summary.json lists the dumped files")
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    assert!(!files.is_empty(), "{scene}: nothing dumped");
    files
}

/// Solves `file` with `stiction lcp solve` and returns the largest difference from the
/// engine's recorded forces, relative to the largest force (at least 1).
fn resolve_difference(file: &Path) -> f64 {
    let dumped: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let lambda: Vec<f64> = dumped["engine"]["lambda"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(dumped["engine"]["status"], "solved", "{}", file.display());
    assert_eq!(lambda.len(), dumped["b"].as_array().unwrap().len());
    assert_eq!(lambda.len(), dumped["rows"].as_array().unwrap().len());
    let stdout = success(
        stiction()
            .args(["lcp", "solve", "--solver", "dantzig"])
            .arg(file),
    );
    let solved: Value = serde_json::from_str(&stdout).unwrap();
    let x: Vec<f64> = solved["x"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let scale = lambda.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    let diff = x
        .iter()
        .zip(&lambda)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    eprintln!(
        "{}: {} rows, max |x - lambda| = {diff:.3e} (largest force {scale:.3e})",
        file.display(),
        x.len()
    );
    diff / scale
}

fn check_reproduced(scene: &str, extra: &[&str], steps: u32, steps_dumped: &str) {
    let name = Path::new(scene).file_stem().unwrap().to_str().unwrap();
    let out = temp_dir(name);
    let files = dump(scene, extra, steps, steps_dumped, &out);
    for file in &files {
        let relative = resolve_difference(&out.join(file));
        assert!(
            relative < FORCE_TOLERANCE,
            "{file}: relative difference {relative:e}"
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn s4_stack_forces_are_reproduced() {
    check_reproduced("s4-stack-20", &["--solver", "exact"], 12, "10");
}

#[test]
fn s3_chain_forces_are_reproduced() {
    check_reproduced("s3-chain-100", &["--solver", "exact"], 3, "2-3");
}

/// S1's first rows (10 boxes): the full 210-box pyramid is one island of 7080 rows, a
/// 250 MB file whose dense re-solve takes minutes.
#[test]
fn small_pyramid_forces_are_reproduced() {
    let dir = temp_dir("pyramid");
    let mut scene = String::from(
        "name = \"pyramid-4\"\nsteps = 10\n[world]\nsolver = { type = \"exact\" }\n\
         erp = 0.2\ncfm = 1e-5\n[[bodies]]\nname = \"ground\"\nkind = \"static\"\n\
         shapes = [{ type = \"plane\" }]\n",
    );
    for row in 0..4 {
        for k in 0..4 - row {
            let x = -1.5 + 0.5 * row as f64 + k as f64;
            let z = 0.5 + row as f64;
            scene.push_str(&format!(
                "[[bodies]]\nname = \"box_{row}_{k}\"\nmass = 1.0\nposition = [{x}, 0.0, {z}]\n\
                 shapes = [{{ type = \"box\", half_extents = [0.5, 0.5, 0.5] }}]\n"
            ));
        }
    }
    let path = dir.join("pyramid-4.toml");
    std::fs::write(&path, scene).unwrap();
    check_reproduced(path.to_str().unwrap(), &[], 10, "1,5,10");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn iterative_stepper_dumps_its_problems() {
    let out = temp_dir("iterative");
    let files = dump("s4-stack-20", &["--solver", "iterative"], 3, "3", &out);
    let dumped: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join(&files[0])).unwrap()).unwrap();
    assert_eq!(dumped["engine"]["stepper"], "iterative");
    assert!(dumped["engine"]["iterations"].as_u64().unwrap() > 0);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn compare_prints_a_row_per_solver() {
    let out = temp_dir("compare");
    let files = dump("s4-stack-20", &["--solver", "exact"], 10, "10", &out);
    let file = out.join(&files[0]);
    let table = success(stiction().args(["lcp", "compare"]).arg(&file));
    for solver in [
        "engine (exact)",
        "dantzig",
        "pgs-10",
        "pgs-50",
        "pgs-200",
        "pgd",
    ] {
        assert!(
            table.contains(&format!("| {solver} |")),
            "no row {solver}:\n{table}"
        );
    }
    let json = success(stiction().args(["lcp", "compare", "--json"]).arg(&file));
    let rows: Value = serde_json::from_str(&json).unwrap();
    let dantzig = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["solver"] == "dantzig")
        .unwrap();
    assert_eq!(dantzig["status"], "solved");
    let residual = dantzig["residual"].as_f64().unwrap();
    assert!(residual < 1e-9, "dantzig residual {residual:e}");
    // Lemke only where every row is [0, inf): friction rows here.
    assert!(!table.contains("| lemke |"));
    let _ = std::fs::remove_dir_all(&out);
}

/// Above `--max-pivoting-rows` the pivoting solvers get a `skipped` row saying why, and the
/// sweeps still run and are judged as before.
#[test]
fn compare_skips_pivoting_above_the_row_limit() {
    let out = temp_dir("compare-limit");
    let files = dump("s4-stack-20", &["--solver", "exact"], 10, "10", &out);
    let file = out.join(&files[0]);
    let dumped: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let n = dumped["b"].as_array().unwrap().len();
    assert!(n > 10, "S4's island has {n} rows");
    let args = ["lcp", "compare", "--max-pivoting-rows", "10"];
    let table = success(stiction().args(args).arg(&file));
    let why = format!("| dantzig | skipped ({n} rows, above --max-pivoting-rows 10) | - | 0 |");
    assert!(table.contains(&why), "{table}");
    let json = success(stiction().args(args).arg("--json").arg(&file));
    let rows: Value = serde_json::from_str(&json).unwrap();
    let rows = rows.as_array().unwrap();
    let row = |solver: &str| rows.iter().find(|r| r["solver"] == solver).unwrap();
    assert_eq!(row("dantzig")["status"], "skipped");
    assert!(row("dantzig")["residual"].is_null());
    assert!(row("pgs-200")["note"].is_null());
    // The sweeps still run on the whole problem: PGS gains with its sweeps (a 20-box stack
    // from zero converges slowly) and PGD reaches the engine's forces.
    let residual = |solver: &str| row(solver)["residual"].as_f64().unwrap();
    assert!(residual("pgs-200") < residual("pgs-10") / 10.0);
    assert_eq!(row("pgd")["status"], "solved");
    assert!(residual("pgd") < 1e-9, "pgd residual {:e}", residual("pgd"));
    let diff = row("pgd")["max_diff_from_engine"].as_f64().unwrap();
    assert!(diff < 1e-4, "pgd differs from the engine by {diff:e} N");
    // At the limit itself dantzig runs.
    let limit = n.to_string();
    let table = success(
        stiction()
            .args(["lcp", "compare", "--max-pivoting-rows", &limit])
            .arg(&file),
    );
    assert!(table.contains("| dantzig | solved |"), "{table}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn compare_runs_lemke_on_a_standard_lcp() {
    let dir = temp_dir("lemke");
    let path = dir.join("standard.json");
    std::fs::write(&path, r#"{"a": [[2, 1], [1, 2]], "b": [1, -1]}"#).unwrap();
    let table = success(stiction().args(["lcp", "compare"]).arg(&path));
    assert!(table.contains("| lemke | solved |"), "{table}");
    assert!(!table.contains("| engine"), "{table}");
    let args = ["lcp", "compare", "--max-pivoting-rows", "1"];
    let table = success(stiction().args(args).arg(&path));
    let why = "| lemke | skipped (2 rows, above --max-pivoting-rows 1) |";
    assert!(table.contains(why), "{table}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every dumped row says which contact or joint it is: S4's rows sit on the box faces
/// (integer heights) with vertical normals, the chain's rows name its ball joints.
#[test]
fn dumped_rows_name_their_contacts_and_joints() {
    let out = temp_dir("sources");
    let files = dump("s4-stack-20", &["--solver", "exact"], 10, "10", &out);
    let dumped: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join(&files[0])).unwrap()).unwrap();
    let rows = dumped["rows"].as_array().unwrap();
    assert_eq!(rows.len(), dumped["b"].as_array().unwrap().len());
    let mut contacts = std::collections::BTreeSet::new();
    for (i, row) in rows.iter().enumerate() {
        let contact = &row["contact"];
        let label = contact["row"].as_str().unwrap();
        let expected = if row["kind"] == "friction" {
            "friction"
        } else {
            "normal"
        };
        assert!(label.starts_with(expected), "row {i}: {row}");
        contacts.insert(contact["index"].as_u64().unwrap());
        let point: Vec<f64> = contact["point"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        // A face between boxes k and k+1 lies at z = k + 1 (the stack sinks < 3 mm).
        assert!(
            (point[2] - point[2].round()).abs() < 3e-3,
            "row {i}: {point:?}"
        );
        assert!(point[0].abs() <= 0.5 + 1e-6 && point[1].abs() <= 0.5 + 1e-6);
        let nz = contact["normal"][2].as_f64().unwrap();
        assert!(
            (nz.abs() - 1.0).abs() < 1e-6,
            "row {i}: normal {}",
            contact["normal"]
        );
        if label == "normal" {
            assert_eq!(contact["direction"], contact["normal"]);
        }
        assert!(row.get("joint").is_none());
    }
    // Four corner contacts on each of the 20 faces (ground included), three rows each.
    assert_eq!(contacts.len(), 80);
    assert_eq!(rows.len(), 240);

    let chain = temp_dir("sources-chain");
    let files = dump("s3-chain-100", &["--solver", "exact"], 2, "2", &chain);
    let dumped: Value =
        serde_json::from_str(&std::fs::read_to_string(chain.join(&files[0])).unwrap()).unwrap();
    let mut joints = std::collections::BTreeMap::new();
    for row in dumped["rows"].as_array().unwrap() {
        let joint = row["joint"].as_array().expect("a chain's rows are joints'");
        assert!(row.get("contact").is_none());
        let name = joint[0].as_str().unwrap().to_string();
        *joints.entry(name).or_insert(0) += 1;
    }
    assert_eq!(joints.len(), 100, "every ball joint of the chain");
    assert!(
        joints.values().all(|&n| n == 3),
        "three rows per ball joint"
    );
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&chain);
}

#[test]
fn bad_dump_steps_are_refused() {
    // "3": past the end of this two-step run, which would dump nothing.
    for bad in ["0", "x", "5-3", "1,,2", "", "1-1000000000", "3", "2-4"] {
        let out = temp_dir("bad");
        let result = output(
            stiction()
                .args([
                    "run",
                    "s4-stack-20",
                    "--steps",
                    "2",
                    "--dump-lcp",
                    bad,
                    "--out",
                ])
                .arg(out.join("run")),
        );
        let (stdout, stderr) = texts(&result);
        assert_eq!(result.status.code(), Some(2), "{bad}: {stderr}");
        assert!(stderr.starts_with("error: "), "{bad}: {stderr}");
        assert!(stdout.is_empty());
        assert!(!out.join("run").exists(), "{bad}: ran anyway");
        let _ = std::fs::remove_dir_all(&out);
    }
}
