//! `stiction run --snapshot-every N` writes DIR/snapshot-<step>.bin files, and `--resume FILE`
//! continues a run from one: the resumed run's CSV rows are the uninterrupted run's rows for
//! the same steps, byte for byte (the timing columns of stats.csv excepted). Damaged,
//! foreign or mismatched snapshots are bad input: exit 2, one `error: ` line, nothing
//! written; a mismatch names the option or scene field that differs, with both values. A
//! different `--steps` only moves the end of the resumed run.

mod common;

use std::path::Path;

use common::{output, scenes_dir, stiction, success, texts};

fn run(scene: &str, out: &Path, extra: &[&str]) {
    success(
        stiction()
            .args(["run", "--quiet", "--steps", "60", "--out"])
            .arg(out)
            .args(extra)
            .arg(scenes_dir().join(scene)),
    );
}

/// The data rows of a CSV file whose step (first column) is after `after`.
fn rows_after(path: &Path, after: u64) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .skip(1)
        .filter(|line| line.split(',').next().unwrap().parse::<u64>().unwrap() > after)
        .map(str::to_string)
        .collect()
}

/// stats.csv rows without the wall-time columns (`*_ms`), which differ between any two runs.
fn stats_after(path: &Path, after: u64) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    rows_after(path, after)
        .iter()
        .map(|row| {
            row.split(',')
                .zip(&header)
                .filter(|(_, name)| !name.ends_with("_ms"))
                .map(|(value, _)| value)
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}

fn assert_resume_matches(scene: &str, extra: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    run(
        scene,
        &whole,
        &[&["--snapshot-every", "20"], extra].concat(),
    );
    for step in [20, 40, 60] {
        assert!(
            whole.join(format!("snapshot-{step}.bin")).is_file(),
            "{scene}: {step}"
        );
    }
    assert!(!whole.join("snapshot-10.bin").exists());
    for from in [20u64, 40] {
        let resumed = dir.path().join(format!("from-{from}"));
        let snapshot = whole.join(format!("snapshot-{from}.bin"));
        run(
            scene,
            &resumed,
            &[&["--resume", snapshot.to_str().unwrap()], extra].concat(),
        );
        for file in ["trajectory.csv", "joint_forces.csv", "contact_forces.csv"] {
            let (a, b) = (whole.join(file), resumed.join(file));
            if !a.exists() {
                continue;
            }
            let expected = rows_after(&a, from);
            assert!(!expected.is_empty() || file == "contact_forces.csv");
            assert_eq!(rows_after(&b, 0), expected, "{scene} from {from}: {file}");
        }
        let stats = stats_after(&resumed.join("stats.csv"), 0);
        assert_eq!(stats, stats_after(&whole.join("stats.csv"), from));
        assert!(!stats.is_empty());
    }
    // A resumed run writes snapshots too, and resuming from one of those is just as exact.
    let again = dir.path().join("again");
    let first = whole.join("snapshot-20.bin");
    run(
        scene,
        &again,
        &[
            &[
                "--resume",
                first.to_str().unwrap(),
                "--snapshot-every",
                "20",
            ],
            extra,
        ]
        .concat(),
    );
    assert!(!again.join("snapshot-20.bin").exists());
    let second = again.join("snapshot-40.bin");
    let last = dir.path().join("last");
    run(
        scene,
        &last,
        &[&["--resume", second.to_str().unwrap()], extra].concat(),
    );
    assert_eq!(
        rows_after(&last.join("trajectory.csv"), 0),
        rows_after(&whole.join("trajectory.csv"), 40),
        "{scene}: resumed twice"
    );
}

#[test]
fn a_resumed_run_repeats_the_uninterrupted_rows_exactly() {
    // The ragdoll's joints filter their bodies' contacts through the contact hook, which a
    // snapshot cannot hold: resuming must install it again.
    assert_resume_matches("ragdoll.toml", &[]);
    assert_resume_matches("ragdoll.toml", &["--solver", "iterative"]);
    assert_resume_matches("newtons-cradle.toml", &[]);
}

/// Runs `stiction run` on `scene` resuming from `snapshot`; requires exit 2, one `error: `
/// line and no run directory, and returns the line.
fn refused(scene: &str, snapshot: &Path, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let result = output(
        stiction()
            .args(["run", "--steps", "60", "--out"])
            .arg(&out)
            .arg("--resume")
            .arg(snapshot)
            .args(extra)
            .arg(scenes_dir().join(scene)),
    );
    let (stdout, stderr) = texts(&result);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(!out.exists(), "nothing may be written: {stderr}");
    stderr.trim().to_string()
}

#[test]
fn damaged_foreign_and_mismatched_snapshots_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    run("pendulum.toml", &whole, &["--snapshot-every", "30"]);
    let good = std::fs::read(whole.join("snapshot-30.bin")).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };

    let truncated = write("truncated.bin", &good[..good.len() / 2]);
    let line = refused("pendulum.toml", &truncated, &[]);
    assert!(line.contains("snapshot is truncated"), "{line}");
    assert!(line.contains("truncated.bin"), "{line}");

    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x20;
    let flipped = write("flipped.bin", &flipped);
    let line = refused("pendulum.toml", &flipped, &[]);
    assert!(
        line.contains("snapshot is corrupted: payload checksum"),
        "{line}"
    );

    let line = refused("pendulum.toml", &scenes_dir().join("pendulum.toml"), &[]);
    assert!(line.contains("not a stiction snapshot"), "{line}");

    let mut future = good.clone();
    future[17] = 9;
    let future = write("future.bin", &future);
    let line = refused("pendulum.toml", &future, &[]);
    assert!(line.contains("format version 9 is not supported"), "{line}");

    let line = refused("ragdoll.toml", &whole.join("snapshot-30.bin"), &[]);
    assert!(line.contains("not those of scene"), "{line}");

    // Another stepper is named as the option and both values.
    let line = refused(
        "pendulum.toml",
        &whole.join("snapshot-30.bin"),
        &["--solver", "iterative"],
    );
    assert!(
        line.ends_with(
            "snapshot-30.bin: the snapshot's world settings differ from scene `pendulum`'s as run now: --solver (or world.solver.type) is `iterative`, the snapshot was taken with `exact`: resume with --solver exact"
        ),
        "{line}"
    );

    let line = refused("pendulum.toml", &dir.path().join("missing.bin"), &[]);
    assert!(line.contains("cannot read"), "{line}");
}

#[test]
fn snapshot_every_zero_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let result = output(
        stiction()
            .args(["run", "--snapshot-every", "0", "--out"])
            .arg(dir.path().join("out"))
            .arg(scenes_dir().join("pendulum.toml")),
    );
    assert_eq!(result.status.code(), Some(2));
    assert!(!dir.path().join("out").exists());
}

#[test]
fn an_edited_scene_names_the_setting_that_differs_and_steps_may_differ() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    run("pendulum.toml", &whole, &["--snapshot-every", "30"]);
    let snapshot = whole.join("snapshot-30.bin");
    let edited = |from: &str, to: &str| {
        let text = std::fs::read_to_string(scenes_dir().join("pendulum.toml")).unwrap();
        assert!(text.contains(from), "{from}");
        let path = dir.path().join("pendulum.toml");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
        let out = dir.path().join("edited");
        let result = output(
            stiction()
                .args(["run", "--out"])
                .arg(&out)
                .arg("--resume")
                .arg(&snapshot)
                .arg(&path),
        );
        let (stdout, stderr) = texts(&result);
        assert_eq!(result.status.code(), Some(2), "{stdout}{stderr}");
        assert!(!out.exists());
        stderr.trim_end().to_string()
    };
    let line = edited("[world]\n", "[world]\ngravity = [0.0, 0.0, -1.0]\n");
    assert!(
        line.ends_with("as run now: world.gravity is [0, 0, -1], the snapshot has [0, 0, -9.81]"),
        "{line}"
    );
    let line = edited("[world]\n", "[world]\nrestitution_threshold = 0.5\n");
    assert!(
        line.ends_with("as run now: world.restitution_threshold is 0.5, the snapshot has 1"),
        "{line}"
    );
    let line = edited("[world]\n", "[world]\nerp = 0.3\n");
    assert!(
        line.ends_with("as run now: world.erp is 0.3, the snapshot has 0.2"),
        "{line}"
    );

    // Another --steps is accepted: the resumed run ends there.
    let out = dir.path().join("shorter");
    let stdout = success(
        stiction()
            .args(["run", "--json", "--steps", "45", "--out"])
            .arg(&out)
            .arg("--resume")
            .arg(&snapshot)
            .arg(scenes_dir().join("pendulum.toml")),
    );
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["resumed_from_step"], 30);
    assert_eq!(summary["steps_done"], 45);
}
