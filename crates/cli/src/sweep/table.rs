//! DIR/summary.csv: its columns, the rows of runs, and reading back the rows an
//! interrupted sweep left.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use crate::sweep::set::Set;

/// The summary table's file name in the sweep directory.
pub const SUMMARY_FILE: &str = "summary.csv";

/// The columns after the parameters' (see docs/sweep.md).
pub const FIGURES: &[&str] = &[
    "seed",
    "outcome",
    "steps_done",
    "time",
    "energy_start",
    "energy_end",
    "energy_drift",
    "max_penetration",
    "max_residual",
    "joint_error_end",
    "report_x",
    "report_y",
    "report_z",
    "report_vx",
    "report_vy",
    "report_vz",
    "wall_seconds",
    "error",
];

/// The header: `run`, one column per swept path, then [`FIGURES`].
pub fn header(sets: &[Set]) -> Vec<String> {
    std::iter::once("run".to_string())
        .chain(sets.iter().map(|s| s.path.clone()))
        .chain(FIGURES.iter().map(|f| f.to_string()))
        .collect()
}

/// A number as the table writes it: the shortest text that reads back to the same `f64`,
/// in exponent form when very small or large so that a column stays readable.
pub fn float(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 || (1e-4..1e15).contains(&a) || !v.is_finite() {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// One CSV field: quoted when it holds a comma or a quote, and on one line.
pub fn field(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ");
    if text.contains([',', '"']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// One CSV line of fields.
pub fn line(fields: &[String]) -> String {
    let fields: Vec<String> = fields.iter().map(|f| field(f)).collect();
    fields.join(",") + "\n"
}

/// The fields of one CSV line written by [`line`]; `None` if a quote is not closed.
pub fn split(line: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
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
            (true, c) => current.push(c),
            (false, '"') if current.is_empty() => quoted = true,
            (false, ',') => fields.push(std::mem::take(&mut current)),
            (false, c) => current.push(c),
        }
    }
    if quoted {
        return None;
    }
    fields.push(current);
    Some(fields)
}

/// A finished run's row: its CSV line (with the newline) and whether it failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The line as written.
    pub line: String,
    /// Whether its outcome is `error`.
    pub failed: bool,
}

/// The rows of an existing summary.csv, by run id: complete lines with the right number of
/// fields and an id below `runs`. A line cut short by a killed process is dropped (its run
/// is done again). `Err` if the header is not `header`.
pub fn read(path: &Path, header: &[String], runs: usize) -> std::io::Result<BTreeMap<usize, Row>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(e),
    };
    let mut rows = BTreeMap::new();
    let mut lines = text.split_inclusive('\n');
    let Some(first) = lines.next() else {
        return Ok(rows);
    };
    if split(first.trim_end()).as_deref() != Some(header) {
        return Err(std::io::Error::other(
            "its header is not this sweep's columns",
        ));
    }
    let outcome = header.iter().position(|h| h == "outcome").unwrap_or(0);
    for text in lines {
        let Some(body) = text.strip_suffix('\n') else {
            continue;
        };
        let Some(fields) = split(body) else {
            continue;
        };
        let Ok(id) = fields[0].parse::<usize>() else {
            continue;
        };
        if fields.len() == header.len() && id < runs {
            rows.entry(id).or_insert(Row {
                line: text.to_string(),
                failed: fields[outcome] == "error",
            });
        }
    }
    Ok(rows)
}

/// Writes summary.csv whole (the header and `rows` in id order) through a temporary file
/// renamed over it, so that a kill leaves the old or the new table, never half of one.
pub fn rewrite(path: &Path, header: &[String], rows: &BTreeMap<usize, Row>) -> std::io::Result<()> {
    let temporary = path.with_extension("csv.tmp");
    let mut file = std::fs::File::create(&temporary)?;
    let mut text = line(header);
    for row in rows.values() {
        text.push_str(&row.line);
    }
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&temporary, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_through_quoting() {
        let fields: Vec<String> = ["1", "a,b", "say \"hi\"", ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let text = line(&fields);
        assert_eq!(split(text.trim_end()).unwrap(), fields);
        assert!(split("\"open").is_none());
    }

    #[test]
    fn numbers_read_back_exactly() {
        for v in [0.0, 0.1, 0.30000000000000004, 1e-9, -2.5e20, 123.456] {
            assert_eq!(float(v).parse::<f64>().unwrap(), v);
        }
        assert_eq!(float(1e-9), "1e-9");
        assert_eq!(float(0.25), "0.25");
    }
}
