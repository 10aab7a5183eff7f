//! Typed errors for malformed problems. Solver *failures* (a pivot that cannot proceed,
//! a ray in Lemke) are not errors: they are a [`crate::Status`] in the report.

/// Why a problem was rejected before any solving started.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LcpError {
    /// The matrix is not square.
    #[error("field `a`: matrix must be square, got {rows} x {cols}")]
    NotSquare {
        /// Rows of the matrix.
        rows: usize,
        /// Columns of the matrix.
        cols: usize,
    },
    /// A row of the matrix has a different length from the first row.
    #[error("field `a`: row {row} has {found} entries, expected {expected}")]
    RaggedMatrix {
        /// The offending row.
        row: usize,
        /// Length of the first row.
        expected: usize,
        /// Length of this row.
        found: usize,
    },
    /// A vector does not match the matrix dimension.
    #[error("field `{field}`: expected length {expected}, found {found}")]
    LengthMismatch {
        /// Name of the field (`b`, `lo`, `hi`, `findex`, ...).
        field: &'static str,
        /// Required length.
        expected: usize,
        /// Actual length.
        found: usize,
    },
    /// A NaN (or an infinity where only finite numbers make sense).
    #[error("field `{field}`: entry {index} is not finite ({value})")]
    NonFinite {
        /// Name of the field.
        field: &'static str,
        /// Flat index of the entry (row-major for matrices).
        index: usize,
        /// The value found.
        value: f64,
    },
    /// A lower bound above its upper bound.
    #[error("field `lo`/`hi`: row {index} has lo = {lo} > hi = {hi}")]
    BoundsInverted {
        /// The row.
        index: usize,
        /// Its lower bound.
        lo: f64,
        /// Its upper bound.
        hi: f64,
    },
    /// Bounds that exclude zero (`lo > 0` or `hi < 0`): the boxed LCP requires `lo <= 0 <= hi`.
    #[error("field `lo`/`hi`: row {index} must satisfy lo <= 0 <= hi, got lo = {lo}, hi = {hi}")]
    BoundsExcludeZero {
        /// The row.
        index: usize,
        /// Its lower bound.
        lo: f64,
        /// Its upper bound.
        hi: f64,
    },
    /// `nub` larger than the problem.
    #[error("field `nub`: {nub} exceeds the problem size {n}")]
    NubTooLarge {
        /// The given `nub`.
        nub: usize,
        /// Problem size.
        n: usize,
    },
    /// One of the first `nub` rows has finite bounds or a friction index.
    #[error("field `{field}`: row {index} is among the first nub = {nub} unbounded rows, so it must have lo = -inf, hi = +inf and no findex")]
    BoundedNubRow {
        /// Which field conflicts.
        field: &'static str,
        /// The row.
        index: usize,
        /// The given `nub`.
        nub: usize,
    },
    /// A friction index that points outside the problem.
    #[error("field `findex`: row {index} points at {target}, outside 0..{n}")]
    FindexOutOfRange {
        /// The friction row.
        index: usize,
        /// The row it points at.
        target: i64,
        /// Problem size.
        n: usize,
    },
    /// A friction index that points at its own row.
    #[error("field `findex`: row {index} points at itself")]
    FindexSelf {
        /// The friction row.
        index: usize,
    },
    /// A friction index that points at another friction row (chains are not allowed).
    #[error("field `findex`: row {index} points at row {target}, which is itself a friction row")]
    FindexChain {
        /// The friction row.
        index: usize,
        /// The friction row it points at.
        target: usize,
    },
    /// A friction row whose coefficient (`hi`) is negative or not finite.
    #[error("field `hi`: friction row {index} carries its coefficient in hi, which must be finite and >= 0, got {value}")]
    BadFrictionCoefficient {
        /// The friction row.
        index: usize,
        /// The value in `hi`.
        value: f64,
    },
    /// A solver option out of its range.
    #[error("option `{option}`: {reason}")]
    BadOption {
        /// The option's name.
        option: &'static str,
        /// Which rule it broke.
        reason: String,
    },
    /// A matrix block required to be invertible is singular beyond regularisation.
    #[error("{what}: matrix is singular")]
    Singular {
        /// What was being solved.
        what: &'static str,
    },
    /// A solver that needs a symmetric matrix got one whose asymmetry exceeds its tolerance.
    #[error("field `a`: matrix must be symmetric for this solver; |a[{row}][{col}] - a[{col}][{row}]| = {asymmetry:e}")]
    NotSymmetric {
        /// Row of the worst asymmetric pair.
        row: usize,
        /// Column of the worst asymmetric pair.
        col: usize,
        /// The size of the asymmetry.
        asymmetry: f64,
    },
    /// The JSON problem file could not be read.
    #[error("{0}")]
    Parse(String),
    /// A problem read as a standard LCP (for Lemke) sets a field only a boxed LCP has.
    #[error("field `{field}`: {reason}")]
    NotStandard {
        /// The field (`lo`, `hi`, `findex` or `nub`).
        field: &'static str,
        /// What it holds and what a standard LCP requires.
        reason: String,
    },
    /// A matrix whose shape does not fit the rest of the problem (mixed LCP blocks).
    #[error("field `{field}`: expected a {expected_rows} x {expected_cols} matrix, found {rows} x {cols}")]
    MatrixShape {
        /// Name of the matrix field (`a_matrix`, `x1`, `x2`, `x3`).
        field: &'static str,
        /// Rows it must have.
        expected_rows: usize,
        /// Columns it must have.
        expected_cols: usize,
        /// Rows it has.
        rows: usize,
        /// Columns it has.
        cols: usize,
    },
}
