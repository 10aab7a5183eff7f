//! Helpers shared by the scene command tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

/// The `stiction` binary.
pub fn stiction() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stiction"))
}

/// The repository's scenes/ folder.
pub fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes")
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the command and returns its output, whatever the exit status.
pub fn output(command: &mut Command) -> Output {
    command.output().expect("the binary runs")
}

/// Stdout and stderr as text.
pub fn texts(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Requires exit status 0 and returns stdout.
pub fn success(command: &mut Command) -> String {
    let out = output(command);
    let (stdout, stderr) = texts(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    stdout
}

/// The header and rows of a CSV file.
pub fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header = lines
        .next()
        .expect("a header")
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    (header, rows)
}

/// A column of a CSV file as numbers.
pub fn column(header: &[String], rows: &[Vec<String>], name: &str) -> Vec<f64> {
    let i = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"));
    rows.iter().map(|r| r[i].parse().unwrap()).collect()
}
