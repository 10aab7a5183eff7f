//! The JSON problem file: how LCPs are written down, read back and exported.
//!
//! One object with the fields of a [`BoxedLcp`]:
//!
//! ```json
//! {"a": [[2, 1], [1, 3]], "b": [4, 1], "lo": [0, "-inf"], "hi": ["inf", null],
//!  "findex": [-1, -1], "nub": 0}
//! ```
//!
//! - `a` (required): the `n x n` matrix, one array per row. `b` (required): length `n`.
//!   Both hold finite numbers only.
//! - `lo`, `hi` (optional): bounds. An infinite bound is the string `"inf"` or `"-inf"`
//!   (`"+inf"`, `"infinity"`, `"-infinity"` are accepted too, in any case) or `null`, which
//!   means `-inf` in `lo` and `+inf` in `hi`. Omitted, they default to the standard LCP's
//!   `[0, +inf)`, except for the first `nub` rows, which default to `(-inf, +inf)`.
//!   `"nan"` is read but then rejected as [`LcpError::NonFinite`], naming the field.
//! - `findex` (optional): per row, the index of the normal row this friction row is coupled
//!   to, or `-1` / `null` for none. A friction row carries its coefficient in `hi`.
//! - `nub` (optional, default 0): how many leading rows are unbounded.
//!
//! An empty problem (`"a": [], "b": []`) is valid. Unknown fields are rejected, so a typo
//! does not silently drop a bound.
//!
//! **Two readings of one file.** The boxed solvers (Dantzig, PGS, projected gradient) read
//! the file as `a x = b + w` ([`ProblemFile::into_boxed`]). Lemke (`--solver lemke`) reads it
//! as the standard LCP `w = a z + b`, `0 <= z _|_ w >= 0` ([`ProblemFile::into_standard`]:
//! `M = a`, `q = b`), as the problem-file specification (issue 2) prescribes. The sign of `b`
//! differs between the two, so the same file is a *different* problem for Lemke than for the
//! boxed solvers: `{"a": [[1]], "b": [1]}` is `x = 1` for Dantzig but `z = 0`, `w = 1` for
//! Lemke. To give Lemke the problem a boxed solver sees in a file with default bounds, negate
//! `b` (or use [`StandardLcp::to_boxed`], which maps `w = M z + q` to `b = -q`).
//!
//! ```
//! use stiction_lcp::json::{parse_problem, to_json};
//!
//! let file = parse_problem(r#"{"a": [[2, 1], [1, 3]], "b": [4, 1], "hi": [null, "inf"]}"#)?;
//! let problem = file.into_boxed()?;
//! assert_eq!(problem.lo, vec![0.0, 0.0]);
//! assert_eq!(problem.hi, vec![f64::INFINITY, f64::INFINITY]);
//! let again = parse_problem(&to_json(&problem))?.into_boxed()?;
//! assert_eq!(again, problem);
//! # Ok::<(), stiction_lcp::LcpError>(())
//! ```

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Unexpected, Visitor};
use serde::Deserialize;

use crate::error::LcpError;
use crate::matrix::DenseMatrix;
use crate::problem::{check_len, BoxedLcp, StandardLcp};

/// The fields of a problem file as written, before any rule but their JSON types is checked.
///
/// Bounds are already numbers (`null` and the infinity words resolved); `findex` keeps the
/// file's `-1` for "none". Turn it into a solver's problem with [`ProblemFile::into_boxed`]
/// or [`ProblemFile::into_standard`], which check every rule.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProblemFile {
    /// The matrix, row by row (may be ragged or non-square until checked).
    #[serde(deserialize_with = "matrix")]
    pub a: Vec<Vec<f64>>,
    /// The right-hand side.
    #[serde(deserialize_with = "rhs")]
    pub b: Vec<f64>,
    /// Lower bounds, `None` when the file omits them.
    #[serde(default, deserialize_with = "lower_bounds")]
    pub lo: Option<Vec<f64>>,
    /// Upper bounds (friction coefficients on `findex` rows), `None` when omitted.
    #[serde(default, deserialize_with = "upper_bounds")]
    pub hi: Option<Vec<f64>>,
    /// Friction coupling, `-1` for none; `None` when omitted.
    #[serde(default, deserialize_with = "friction_indices")]
    pub findex: Option<Vec<i64>>,
    /// Number of leading unbounded rows.
    #[serde(default, deserialize_with = "unbounded_count")]
    pub nub: usize,
}

/// Reads a problem file; syntax and type errors become [`LcpError::Parse`] with the line and
/// column where reading stopped.
pub fn parse_problem(text: &str) -> Result<ProblemFile, LcpError> {
    let parse = || -> Result<ProblemFile, serde_json::Error> {
        let mut reader = serde_json::Deserializer::from_str(text);
        let file = reader.deserialize_map(ProblemObject)?;
        reader.end()?;
        Ok(file)
    };
    parse().map_err(|e| LcpError::Parse(e.to_string()))
}

/// Accepts only a JSON object: serde's derive would also take an array of the fields in
/// order, which turns a file holding just a matrix into a baffling error.
struct ProblemObject;

impl<'de> Visitor<'de> for ProblemObject {
    type Value = ProblemFile;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a problem object {\"a\": [[...]], \"b\": [...], ...}")
    }

    fn visit_map<M: de::MapAccess<'de>>(self, map: M) -> Result<ProblemFile, M::Error> {
        ProblemFile::deserialize(de::value::MapAccessDeserializer::new(map))
    }
}

impl ProblemFile {
    /// Number of rows the file declares (rows of `a`).
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// Whether the file holds the empty problem.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }

    /// The boxed LCP `A x = b + w` of the file, with defaults filled in and every rule of
    /// [`BoxedLcp::validate`] checked.
    pub fn into_boxed(self) -> Result<BoxedLcp, LcpError> {
        let a = square_matrix(&self.a)?;
        let n = a.rows();
        check_len("b", n, self.b.len())?;
        // The first nub rows must be unbounded, so that is their default.
        let free_rows = self.nub.min(n);
        let lo = self
            .lo
            .unwrap_or_else(|| default_bounds(n, free_rows, f64::NEG_INFINITY, 0.0));
        let hi = self
            .hi
            .unwrap_or_else(|| default_bounds(n, free_rows, f64::INFINITY, f64::INFINITY));
        let findex = match self.findex {
            Some(raw) => coupling(&raw, n)?,
            None => vec![None; n],
        };
        let problem = BoxedLcp {
            a,
            b: self.b,
            lo,
            hi,
            nub: self.nub,
            findex,
        };
        problem.validate()?;
        Ok(problem)
    }

    /// The standard LCP `w = M z + q`, `0 <= z _|_ w >= 0` read from a file with default
    /// bounds: `M = a` and `q = b`, that is `w = a z + b` (the reading `--solver lemke` uses).
    ///
    /// This is not the boxed reading `a x = b + w` of [`ProblemFile::into_boxed`] with the
    /// bounds `[0, +inf)`: that one would be `w = a x - b`. The same file is therefore a
    /// different problem for Lemke than for the boxed solvers, by specification.
    ///
    /// A file that sets `lo`, `hi`, `findex` or `nub` to anything but their defaults
    /// (`0`, `+inf`, `-1`, `0`) is rejected with [`LcpError::NotStandard`] naming the field.
    pub fn into_standard(self) -> Result<StandardLcp, LcpError> {
        let m = square_matrix(&self.a)?;
        let n = m.rows();
        let problem = StandardLcp::new(m, self.b);
        problem.validate()?;
        if self.nub != 0 {
            return Err(LcpError::NotStandard {
                field: "nub",
                reason: format!(
                    "a standard LCP has no unbounded rows, found nub = {}",
                    self.nub
                ),
            });
        }
        // Checked before the bounds: on a friction row `hi` is a coefficient, so the
        // coupling is the real reason the file is not a standard LCP.
        if let Some(findex) = &self.findex {
            check_len("findex", n, findex.len())?;
            if let Some(i) = findex.iter().position(|&j| j != -1) {
                return Err(LcpError::NotStandard {
                    field: "findex",
                    reason: format!(
                        "a standard LCP has no friction coupling (-1), row {i} has {}",
                        findex[i]
                    ),
                });
            }
        }
        if let Some(lo) = &self.lo {
            check_len("lo", n, lo.len())?;
            check_all_default("lo", lo, |v| v == 0.0, "0")?;
        }
        if let Some(hi) = &self.hi {
            check_len("hi", n, hi.len())?;
            check_all_default("hi", hi, |v| v == f64::INFINITY, "+inf")?;
        }
        Ok(problem)
    }
}

/// Writes a problem in the file format, one matrix row per line, infinities as `"inf"` /
/// `"-inf"` and `findex` `-1` for none. Reading the text back gives an equal problem: numbers
/// are written in the shortest form that parses to the same `f64`.
///
/// Meant for validated problems; a NaN is written as `"nan"` (and infinities in `a` or `b`
/// as strings), which [`parse_problem`] and [`ProblemFile::into_boxed`] then reject.
pub fn to_json(problem: &BoxedLcp) -> String {
    let mut out = String::from("{\n  \"a\": [");
    for i in 0..problem.a.rows() {
        out.push_str(if i == 0 { "\n    " } else { ",\n    " });
        push_list(&mut out, problem.a.row(i).iter().map(|&v| number(v)));
    }
    out.push_str(if problem.a.rows() == 0 {
        "],\n"
    } else {
        "\n  ],\n"
    });
    out.push_str("  \"b\": ");
    push_list(&mut out, problem.b.iter().map(|&v| number(v)));
    out.push_str(",\n  \"lo\": ");
    push_list(&mut out, problem.lo.iter().map(|&v| number(v)));
    out.push_str(",\n  \"hi\": ");
    push_list(&mut out, problem.hi.iter().map(|&v| number(v)));
    out.push_str(",\n  \"findex\": ");
    push_list(
        &mut out,
        problem.findex.iter().map(|f| match f {
            Some(j) => j.to_string(),
            None => "-1".to_string(),
        }),
    );
    out.push_str(&format!(",\n  \"nub\": {}\n}}\n", problem.nub));
    out
}

fn push_list(out: &mut String, items: impl Iterator<Item = String>) {
    out.push('[');
    for (k, item) in items.enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        out.push_str(&item);
    }
    out.push(']');
}

/// One `f64` as JSON: serde_json's shortest round-tripping form, or a word for non-finite.
fn number(v: f64) -> String {
    if v.is_nan() {
        "\"nan\"".to_string()
    } else if v == f64::INFINITY {
        "\"inf\"".to_string()
    } else if v == f64::NEG_INFINITY {
        "\"-inf\"".to_string()
    } else {
        serde_json::Value::from(v).to_string()
    }
}

fn square_matrix(rows: &[Vec<f64>]) -> Result<DenseMatrix, LcpError> {
    let a = DenseMatrix::from_rows(rows)?;
    if !a.is_square() {
        return Err(LcpError::NotSquare {
            rows: a.rows(),
            cols: a.cols(),
        });
    }
    Ok(a)
}

fn default_bounds(n: usize, free_rows: usize, free: f64, bounded: f64) -> Vec<f64> {
    (0..n)
        .map(|i| if i < free_rows { free } else { bounded })
        .collect()
}

fn check_all_default(
    field: &'static str,
    values: &[f64],
    is_default: impl Fn(f64) -> bool,
    default: &str,
) -> Result<(), LcpError> {
    if let Some(index) = values.iter().position(|v| v.is_nan()) {
        return Err(LcpError::NonFinite {
            field,
            index,
            value: values[index],
        });
    }
    match values.iter().position(|&v| !is_default(v)) {
        Some(i) => Err(LcpError::NotStandard {
            field,
            reason: format!(
                "a standard LCP has {field} = {default} on every row, row {i} has {}",
                values[i]
            ),
        }),
        None => Ok(()),
    }
}

/// The file's `findex` (`-1` for none) as the problem's `Option<usize>` per row.
fn coupling(raw: &[i64], n: usize) -> Result<Vec<Option<usize>>, LcpError> {
    check_len("findex", n, raw.len())?;
    raw.iter()
        .enumerate()
        .map(|(index, &target)| match target {
            -1 => Ok(None),
            _ => usize::try_from(target)
                .map(Some)
                .map_err(|_| LcpError::FindexOutOfRange { index, target, n }),
        })
        .collect()
}

// Deserialisation. Every value is read by a visitor that knows the field it belongs to, so
// that a type error names the field (serde_json adds the line and column). The visitors are
// seeds ([`DeserializeSeed`]) so that one of them serves every field of its kind.

/// The numeric fields and what each accepts besides plain numbers.
#[derive(Clone, Copy)]
enum NumberField {
    A,
    B,
    Lo,
    Hi,
}

impl NumberField {
    fn name(self) -> &'static str {
        match self {
            NumberField::A => "a",
            NumberField::B => "b",
            NumberField::Lo => "lo",
            NumberField::Hi => "hi",
        }
    }

    /// What `null` means in a bound (the open end of its side); `None` in `a` and `b`,
    /// which hold finite numbers only.
    fn open_end(self) -> Option<f64> {
        match self {
            NumberField::Lo => Some(f64::NEG_INFINITY),
            NumberField::Hi => Some(f64::INFINITY),
            NumberField::A | NumberField::B => None,
        }
    }
}

/// The words accepted for non-finite bounds, lower-cased. NaN is accepted here only so that
/// validation can reject it with a message naming the field and row.
fn bound_word(word: &str) -> Option<f64> {
    match word.to_ascii_lowercase().as_str() {
        "inf" | "+inf" | "infinity" | "+infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        "nan" | "+nan" | "-nan" => Some(f64::NAN),
        _ => None,
    }
}

/// One number of a numeric field; in a bound also `null` and the infinity words.
#[derive(Clone, Copy)]
struct NumberVisitor(NumberField);

impl<'de> Visitor<'de> for NumberVisitor {
    type Value = f64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.0.open_end() {
            Some(_) => write!(
                f,
                "a bound in `{}`: a number, null, \"inf\" or \"-inf\"",
                self.0.name()
            ),
            None => write!(f, "a finite number in `{}`", self.0.name()),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        Ok(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        Ok(v as f64)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        Ok(v as f64)
    }

    fn visit_unit<E: de::Error>(self) -> Result<f64, E> {
        self.0
            .open_end()
            .ok_or_else(|| E::invalid_type(Unexpected::Unit, &self))
    }

    fn visit_none<E: de::Error>(self) -> Result<f64, E> {
        self.visit_unit()
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
        match self.0.open_end() {
            Some(_) => bound_word(v).ok_or_else(|| E::invalid_value(Unexpected::Str(v), &self)),
            None => Err(E::invalid_type(Unexpected::Str(v), &self)),
        }
    }
}

impl<'de> DeserializeSeed<'de> for NumberVisitor {
    type Value = f64;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<f64, D::Error> {
        d.deserialize_any(self)
    }
}

/// One `findex` entry: an integer, with `null` meaning "none" (`-1`).
#[derive(Clone, Copy)]
struct FindexVisitor;

impl<'de> Visitor<'de> for FindexVisitor {
    type Value = i64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a row index in `findex`: an integer, or -1 or null for none")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<i64, E> {
        Ok(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<i64, E> {
        i64::try_from(v).map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
    }

    fn visit_unit<E: de::Error>(self) -> Result<i64, E> {
        Ok(-1)
    }

    fn visit_none<E: de::Error>(self) -> Result<i64, E> {
        Ok(-1)
    }
}

impl<'de> DeserializeSeed<'de> for FindexVisitor {
    type Value = i64;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<i64, D::Error> {
        d.deserialize_any(self)
    }
}

/// A JSON array in the field `field` whose elements are read by the seed `element`.
#[derive(Clone, Copy)]
struct ArrayOf<S> {
    field: &'static str,
    element: S,
}

impl<'de, S: DeserializeSeed<'de> + Copy> Visitor<'de> for ArrayOf<S> {
    type Value = Vec<S::Value>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an array in `{}`", self.field)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // The hint comes from the file: trust it only so far.
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element_seed(self.element)? {
            out.push(v);
        }
        Ok(out)
    }
}

impl<'de, S: DeserializeSeed<'de> + Copy> DeserializeSeed<'de> for ArrayOf<S> {
    type Value = Vec<S::Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

/// An optional field: `null` reads as absent, anything else with the seed `S`.
struct Nullable<S>(S);

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for Nullable<S> {
    type Value = Option<S::Value>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.0.deserialize(d).map(Some)
    }
}

/// An array of numbers of one field.
fn numbers(field: NumberField) -> ArrayOf<NumberVisitor> {
    ArrayOf {
        field: field.name(),
        element: NumberVisitor(field),
    }
}

fn matrix<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<f64>>, D::Error> {
    let row = ArrayOf {
        field: "a",
        element: NumberVisitor(NumberField::A),
    };
    ArrayOf {
        field: "a",
        element: row,
    }
    .deserialize(d)
}

fn rhs<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    numbers(NumberField::B).deserialize(d)
}

fn lower_bounds<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<f64>>, D::Error> {
    d.deserialize_option(Nullable(numbers(NumberField::Lo)))
}

fn upper_bounds<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<f64>>, D::Error> {
    d.deserialize_option(Nullable(numbers(NumberField::Hi)))
}

fn friction_indices<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<i64>>, D::Error> {
    d.deserialize_option(Nullable(ArrayOf {
        field: "findex",
        element: FindexVisitor,
    }))
}

/// `nub`: a count, so a negative or fractional value is a type error naming the field.
struct NubVisitor;

impl<'de> Visitor<'de> for NubVisitor {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a non-negative integer in `nub`")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<usize, E> {
        usize::try_from(v).map_err(|_| E::invalid_value(Unexpected::Signed(v), &self))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<usize, E> {
        usize::try_from(v).map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
    }
}

fn unbounded_count<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    d.deserialize_any(NubVisitor)
}
