//! Typed errors for malformed problem data and misuse. A complementarity problem that cannot
//! be solved is not an error: it is a [`stiction_lcp::Status`] in the
//! [`crate::ConstraintSolution`], so the caller can react (reduce the step size, add
//! regularisation).

use stiction_lcp::LcpError;

/// Why a problem was rejected before (or instead of) solving it. Every variant names the
/// offending field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConstraintError {
    /// A matrix whose shape does not fit the rest of the problem.
    #[error("field `{field}`: expected a {expected_rows} x {expected_cols} matrix, found {rows} x {cols}")]
    MatrixShape {
        /// Name of the matrix field (`normal`, `friction`, `unilateral`, `bilateral`, ...).
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
    /// A vector of the wrong length.
    #[error("field `{field}`: expected length {expected}, found {found}")]
    LengthMismatch {
        /// Name of the field.
        field: &'static str,
        /// Required length.
        expected: usize,
        /// Actual length.
        found: usize,
    },
    /// A NaN or an infinity.
    #[error("field `{field}`: entry {index} is not finite ({value})")]
    NonFinite {
        /// Name of the field.
        field: &'static str,
        /// Flat index of the entry (row-major for matrices).
        index: usize,
        /// The value found.
        value: f64,
    },
    /// A negative value where only values `>= 0` make sense (friction coefficients,
    /// regularisation).
    #[error("field `{field}`: entry {index} must be >= 0, got {value}")]
    Negative {
        /// Name of the field.
        field: &'static str,
        /// Index of the entry.
        index: usize,
        /// The value found.
        value: f64,
    },
    /// The generalized inertia matrix is not symmetric.
    #[error("field `inertia`: matrix must be symmetric; |M[{row}][{col}] - M[{col}][{row}]| = {asymmetry:e}")]
    InertiaNotSymmetric {
        /// Row of the worst asymmetric pair.
        row: usize,
        /// Column of the worst asymmetric pair.
        col: usize,
        /// The size of the asymmetry.
        asymmetry: f64,
    },
    /// The generalized inertia matrix is not positive definite (its Cholesky factorisation
    /// failed).
    #[error("field `inertia`: matrix must be positive definite")]
    InertiaNotPositiveDefinite,
    /// A user-supplied inertia solve returned a result of the wrong shape.
    #[error("field `inertia`: the solve operation returned a {rows} x {cols} matrix for a {expected_rows} x {expected_cols} right-hand side")]
    InertiaSolveShape {
        /// Rows of the right-hand side (the number of generalized velocities).
        expected_rows: usize,
        /// Columns of the right-hand side.
        expected_cols: usize,
        /// Rows returned.
        rows: usize,
        /// Columns returned.
        cols: usize,
    },
    /// A sliding contact (acceleration level) that also has friction spanning directions:
    /// its friction is the known force `-mu f_N` along the sliding direction instead.
    #[error("field `spanning_directions`: contact {contact} is sliding, so it must have 0 spanning directions, got {directions}")]
    SlidingContactWithFriction {
        /// The contact.
        contact: usize,
        /// Its number of spanning directions.
        directions: usize,
    },
    /// A step size that is not finite and positive.
    #[error("field `h`: the step size must be finite and > 0, got {h}")]
    BadStepSize {
        /// The value given.
        h: f64,
    },
    /// A solver option out of its range.
    #[error("option `{option}`: {reason}")]
    BadOption {
        /// The option's name.
        option: &'static str,
        /// Which rule it broke.
        reason: String,
    },
    /// A discretised LCP updated or unpacked with data of another shape than the base it was
    /// built from.
    #[error("field `{field}`: does not match the base discretised LCP ({reason})")]
    BaseMismatch {
        /// What differs.
        field: &'static str,
        /// How it differs.
        reason: String,
    },
    /// Contact forces in 2D frames asked for a contact with more than one spanning direction.
    #[error("field `spanning_directions`: contact {contact} has {directions} spanning directions; a 2D problem has 0 or 1")]
    NotTwoDimensional {
        /// The contact.
        contact: usize,
        /// Its number of spanning directions.
        directions: usize,
    },
    /// A contact frame whose axes are not unit length and mutually orthogonal.
    #[error("field `frames`: frame {contact} is not orthonormal (error {error:e})")]
    FrameNotOrthonormal {
        /// The contact.
        contact: usize,
        /// The largest deviation of `R^T R` from the identity.
        error: f64,
    },
    /// The singular value decomposition of the bilateral block `G M^-1 G^T` did not
    /// converge within its iteration limit (not expected for finite data).
    #[error("field `bilateral`: the singular value decomposition of G M^-1 G^T did not converge")]
    BilateralDecomposition,
    /// The LCP crate rejected a problem or an option.
    #[error(transparent)]
    Lcp(#[from] LcpError),
}
