//! Reading back the run directory's CSV files (plain comma-separated values, no quoting:
//! body and joint names cannot contain commas).

use std::path::Path;

/// A CSV file: its header and rows of fields.
#[derive(Debug, Clone)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// Reads `path`; every row must have as many fields as the header.
    pub fn read(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
        Self::parse(&text)
    }

    /// Parses CSV text.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header: Vec<String> = lines
            .next()
            .ok_or("the file is empty")?
            .split(',')
            .map(str::to_string)
            .collect();
        let mut rows = Vec::new();
        for (i, line) in lines.enumerate() {
            let row: Vec<String> = line.split(',').map(str::to_string).collect();
            if row.len() != header.len() {
                return Err(format!(
                    "line {}: {} fields, the header has {}",
                    i + 2,
                    row.len(),
                    header.len()
                ));
            }
            rows.push(row);
        }
        Ok(Self { header, rows })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the header has the column `name`.
    pub fn has(&self, name: &str) -> bool {
        self.header.iter().any(|h| h == name)
    }

    fn index(&self, name: &str) -> Result<usize, String> {
        self.header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!("no column `{name}`"))
    }

    /// A column as text.
    pub fn text(&self, name: &str) -> Result<Vec<&str>, String> {
        let i = self.index(name)?;
        Ok(self.rows.iter().map(|r| r[i].as_str()).collect())
    }

    /// A column as numbers.
    pub fn column(&self, name: &str) -> Result<Vec<f64>, String> {
        let i = self.index(name)?;
        self.rows
            .iter()
            .enumerate()
            .map(|(row, r)| {
                r[i].parse::<f64>()
                    .map_err(|_| format!("line {}: `{name}` is not a number: {}", row + 2, r[i]))
            })
            .collect()
    }
}
