//! The generalized inertia `M`, which the solver only ever needs as the operation
//! `X -> M^-1 X`.

use std::fmt;
use std::sync::Arc;

use nalgebra::{Cholesky, DMatrix, Dyn};
use stiction_lcp::DenseMatrix;

use crate::dense::{check_finite, from_nalgebra, to_nalgebra};
use crate::error::ConstraintError;

/// A user-supplied `M^-1 X`: given an `nv x k` matrix `X`, returns `M^-1 X` (`nv x k`).
pub type InertiaSolve = dyn Fn(&DenseMatrix) -> DenseMatrix + Send + Sync;

/// Relative tolerance of the symmetry check in [`GeneralizedInertia::from_matrix`].
pub const SYMMETRY_TOLERANCE: f64 = 1e-10;

/// The generalized inertia matrix `M` (`nv x nv`, symmetric positive definite) of a system
/// in generalized coordinates, either as a matrix (factorised once by Cholesky) or as a
/// solve operation the caller provides, for example an `O(n)` articulated-body solve.
///
/// The constraint solver calls [`GeneralizedInertia::solve`] a few times per problem, each
/// time with all the right-hand sides it needs as the columns of one matrix.
#[derive(Clone)]
pub struct GeneralizedInertia {
    nv: usize,
    repr: Repr,
}

#[derive(Clone)]
enum Repr {
    Matrix {
        matrix: DenseMatrix,
        cholesky: Cholesky<f64, Dyn>,
    },
    Operator(Arc<InertiaSolve>),
}

impl GeneralizedInertia {
    /// From the matrix itself, which must be square, finite, symmetric (to
    /// [`SYMMETRY_TOLERANCE`] relative to its largest entry) and positive definite.
    ///
    /// # Errors
    /// [`ConstraintError::MatrixShape`], [`ConstraintError::NonFinite`],
    /// [`ConstraintError::InertiaNotSymmetric`] or
    /// [`ConstraintError::InertiaNotPositiveDefinite`], all naming the field `inertia`.
    pub fn from_matrix(matrix: DenseMatrix) -> Result<Self, ConstraintError> {
        let nv = matrix.rows();
        if matrix.cols() != nv {
            return Err(ConstraintError::MatrixShape {
                field: "inertia",
                expected_rows: nv,
                expected_cols: nv,
                rows: nv,
                cols: matrix.cols(),
            });
        }
        check_finite("inertia", matrix.as_slice())?;
        let allowed = SYMMETRY_TOLERANCE * matrix.max_abs();
        for i in 0..nv {
            for j in 0..i {
                let asymmetry = (matrix[(i, j)] - matrix[(j, i)]).abs();
                if asymmetry > allowed {
                    return Err(ConstraintError::InertiaNotSymmetric {
                        row: i,
                        col: j,
                        asymmetry,
                    });
                }
            }
        }
        let cholesky = Cholesky::new(to_nalgebra(&matrix))
            .ok_or(ConstraintError::InertiaNotPositiveDefinite)?;
        Ok(Self {
            nv,
            repr: Repr::Matrix { matrix, cholesky },
        })
    }

    /// A diagonal inertia `diag(d)` (masses and principal moments); every entry must be
    /// finite and positive.
    ///
    /// # Errors
    /// As [`GeneralizedInertia::from_matrix`].
    pub fn diagonal(d: &[f64]) -> Result<Self, ConstraintError> {
        let mut m = DenseMatrix::zeros(d.len(), d.len());
        for (i, &v) in d.iter().enumerate() {
            m[(i, i)] = v;
        }
        Self::from_matrix(m)
    }

    /// From a solve operation `X -> M^-1 X` for a system with `nv` generalized velocities.
    ///
    /// `M` must be symmetric positive definite; the operation is trusted on that, but every
    /// result is checked for shape and finiteness ([`ConstraintError::InertiaSolveShape`],
    /// [`ConstraintError::NonFinite`]).
    pub fn from_solve<F>(nv: usize, solve: F) -> Self
    where
        F: Fn(&DenseMatrix) -> DenseMatrix + Send + Sync + 'static,
    {
        Self {
            nv,
            repr: Repr::Operator(Arc::new(solve)),
        }
    }

    /// The number of generalized velocities `nv`.
    #[inline]
    pub fn dim(&self) -> usize {
        self.nv
    }

    /// The matrix `M`, if it was given as one.
    pub fn matrix(&self) -> Option<&DenseMatrix> {
        match &self.repr {
            Repr::Matrix { matrix, .. } => Some(matrix),
            Repr::Operator(_) => None,
        }
    }

    /// `M^-1 X` for an `nv x k` matrix `X`.
    ///
    /// # Errors
    /// `X` with other than `nv` rows; a solve operation returning a wrong shape or a
    /// non-finite entry.
    pub fn solve(&self, rhs: &DenseMatrix) -> Result<DenseMatrix, ConstraintError> {
        if rhs.rows() != self.nv {
            return Err(ConstraintError::MatrixShape {
                field: "rhs",
                expected_rows: self.nv,
                expected_cols: rhs.cols(),
                rows: rhs.rows(),
                cols: rhs.cols(),
            });
        }
        match &self.repr {
            Repr::Matrix { cholesky, .. } => Ok(from_nalgebra(&cholesky.solve(&to_nalgebra(rhs)))),
            Repr::Operator(op) => {
                let out = op(rhs);
                if out.rows() != rhs.rows() || out.cols() != rhs.cols() {
                    return Err(ConstraintError::InertiaSolveShape {
                        expected_rows: rhs.rows(),
                        expected_cols: rhs.cols(),
                        rows: out.rows(),
                        cols: out.cols(),
                    });
                }
                check_finite("inertia", out.as_slice())?;
                Ok(out)
            }
        }
    }

    /// `M^-1 x` for a vector of length `nv`.
    ///
    /// # Errors
    /// As [`GeneralizedInertia::solve`].
    pub fn solve_vec(&self, rhs: &[f64]) -> Result<Vec<f64>, ConstraintError> {
        let column = DenseMatrix::from_row_major(rhs.len(), 1, rhs.to_vec())?;
        Ok(self.solve(&column)?.as_slice().to_vec())
    }

    /// `M^-1 X` on nalgebra matrices, for the solver's internals.
    pub(crate) fn solve_nalgebra(
        &self,
        rhs: &DMatrix<f64>,
    ) -> Result<DMatrix<f64>, ConstraintError> {
        match &self.repr {
            Repr::Matrix { cholesky, .. } => Ok(cholesky.solve(rhs)),
            Repr::Operator(_) => Ok(to_nalgebra(&self.solve(&from_nalgebra(rhs))?)),
        }
    }
}

impl fmt::Debug for GeneralizedInertia {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Matrix { matrix, .. } => f
                .debug_struct("GeneralizedInertia")
                .field("nv", &self.nv)
                .field("matrix", matrix)
                .finish(),
            Repr::Operator(_) => f
                .debug_struct("GeneralizedInertia")
                .field("nv", &self.nv)
                .field("matrix", &"<solve operation>")
                .finish(),
        }
    }
}
