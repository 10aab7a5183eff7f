//! Conversions between the project's row-major [`DenseMatrix`] (the public currency) and
//! nalgebra's column-major `DMatrix` (used inside for products, Cholesky and SVD).

use nalgebra::DMatrix;
use stiction_lcp::DenseMatrix;

use crate::error::ConstraintError;

pub(crate) fn to_nalgebra(m: &DenseMatrix) -> DMatrix<f64> {
    DMatrix::from_row_slice(m.rows(), m.cols(), m.as_slice())
}

pub(crate) fn from_nalgebra(m: &DMatrix<f64>) -> DenseMatrix {
    let mut out = DenseMatrix::zeros(m.nrows(), m.ncols());
    for i in 0..m.nrows() {
        for (j, o) in out.row_mut(i).iter_mut().enumerate() {
            *o = m[(i, j)];
        }
    }
    out
}

pub(crate) fn check_finite(field: &'static str, values: &[f64]) -> Result<(), ConstraintError> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(ConstraintError::NonFinite {
            field,
            index,
            value: values[index],
        }),
        None => Ok(()),
    }
}

pub(crate) fn check_len(
    field: &'static str,
    expected: usize,
    found: usize,
) -> Result<(), ConstraintError> {
    if expected == found {
        Ok(())
    } else {
        Err(ConstraintError::LengthMismatch {
            field,
            expected,
            found,
        })
    }
}

pub(crate) fn check_shape(
    field: &'static str,
    m: &DenseMatrix,
    rows: usize,
    cols: usize,
) -> Result<(), ConstraintError> {
    if m.rows() == rows && m.cols() == cols {
        Ok(())
    } else {
        Err(ConstraintError::MatrixShape {
            field,
            expected_rows: rows,
            expected_cols: cols,
            rows: m.rows(),
            cols: m.cols(),
        })
    }
}

pub(crate) fn check_non_negative(
    field: &'static str,
    values: &[f64],
) -> Result<(), ConstraintError> {
    check_finite(field, values)?;
    match values.iter().position(|&v| v < 0.0) {
        Some(index) => Err(ConstraintError::Negative {
            field,
            index,
            value: values[index],
        }),
        None => Ok(()),
    }
}
