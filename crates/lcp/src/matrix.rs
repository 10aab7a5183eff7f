//! A small dense row-major matrix: the storage every dense solver in this crate shares.

use crate::error::LcpError;

/// A dense `rows x cols` matrix of `f64`, stored row by row.
///
/// Row-major storage keeps `A_i . x` (the operation every pivoting and Gauss-Seidel
/// sweep performs) a walk over contiguous memory.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseMatrix {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl DenseMatrix {
    /// Makes this a `rows x cols` matrix of zeros, keeping its buffer: no allocation when
    /// the buffer is already large enough (a stepper reusing one matrix per island).
    pub fn reset_zeros(&mut self, rows: usize, cols: usize) {
        self.rows = rows;
        self.cols = cols;
        self.data.clear();
        self.data.resize(rows * cols, 0.0);
    }

    /// A `rows x cols` matrix of zeros.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Self {
            rows,
            cols,
            data: vec![0.0; rows * cols],
        }
    }

    /// The `n x n` identity.
    pub fn identity(n: usize) -> Self {
        let mut m = Self::zeros(n, n);
        for i in 0..n {
            m[(i, i)] = 1.0;
        }
        m
    }

    /// Builds a matrix from row-major data; fails if `data.len() != rows * cols`.
    pub fn from_row_major(rows: usize, cols: usize, data: Vec<f64>) -> Result<Self, LcpError> {
        if data.len() != rows * cols {
            return Err(LcpError::LengthMismatch {
                field: "a",
                expected: rows * cols,
                found: data.len(),
            });
        }
        Ok(Self { rows, cols, data })
    }

    /// Builds a matrix from a slice of rows; fails if the rows have different lengths.
    pub fn from_rows<R: AsRef<[f64]>>(rows: &[R]) -> Result<Self, LcpError> {
        let cols = rows.first().map_or(0, |r| r.as_ref().len());
        let mut data = Vec::with_capacity(rows.len() * cols);
        for (i, r) in rows.iter().enumerate() {
            let r = r.as_ref();
            if r.len() != cols {
                return Err(LcpError::RaggedMatrix {
                    row: i,
                    expected: cols,
                    found: r.len(),
                });
            }
            data.extend_from_slice(r);
        }
        Ok(Self {
            rows: rows.len(),
            cols,
            data,
        })
    }

    /// Number of rows.
    #[inline]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    #[inline]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Whether the matrix is square.
    #[inline]
    pub fn is_square(&self) -> bool {
        self.rows == self.cols
    }

    /// Row `i` as a slice.
    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// Row `i` as a mutable slice.
    #[inline]
    pub fn row_mut(&mut self, i: usize) -> &mut [f64] {
        &mut self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// All entries, row-major.
    #[inline]
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }

    /// All entries, row-major, mutable.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [f64] {
        &mut self.data
    }

    /// `out = self * x`. Panics (debug) on dimension mismatch: internal misuse, not user input.
    pub fn mul_vec_into(&self, x: &[f64], out: &mut [f64]) {
        debug_assert_eq!(x.len(), self.cols);
        debug_assert_eq!(out.len(), self.rows);
        for (i, o) in out.iter_mut().enumerate() {
            *o = dot(self.row(i), x);
        }
    }

    /// `self * x` as a new vector.
    pub fn mul_vec(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.rows];
        self.mul_vec_into(x, &mut out);
        out
    }

    /// The transpose.
    pub fn transpose(&self) -> Self {
        let mut t = Self::zeros(self.cols, self.rows);
        for i in 0..self.rows {
            for j in 0..self.cols {
                t[(j, i)] = self[(i, j)];
            }
        }
        t
    }

    /// `self * other`.
    pub fn mul_mat(&self, other: &DenseMatrix) -> Self {
        debug_assert_eq!(self.cols, other.rows);
        let mut out = Self::zeros(self.rows, other.cols);
        for i in 0..self.rows {
            for k in 0..self.cols {
                let a = self[(i, k)];
                if a == 0.0 {
                    continue;
                }
                let orow = other.row(k);
                for (o, &b) in out.row_mut(i).iter_mut().zip(orow) {
                    *o += a * b;
                }
            }
        }
        out
    }

    /// Largest absolute entry (0 for an empty matrix).
    pub fn max_abs(&self) -> f64 {
        self.data.iter().fold(0.0, |m, v| m.max(v.abs()))
    }

    /// Largest absolute asymmetry `|a_ij - a_ji|`; `f64::INFINITY` if not square.
    pub fn asymmetry(&self) -> f64 {
        if !self.is_square() {
            return f64::INFINITY;
        }
        let mut worst: f64 = 0.0;
        for i in 0..self.rows {
            for j in 0..i {
                worst = worst.max((self[(i, j)] - self[(j, i)]).abs());
            }
        }
        worst
    }
}

impl DenseMatrix {
    /// Checks symmetry to a tolerance relative to the largest entry: solvers that factor
    /// `A` as `L D L^T` or minimise `1/2 x^T A x` need it.
    pub fn check_symmetric(&self, relative_tolerance: f64) -> Result<(), LcpError> {
        if !self.is_square() {
            return Err(LcpError::NotSquare {
                rows: self.rows,
                cols: self.cols,
            });
        }
        let allowed = relative_tolerance * self.max_abs();
        for i in 0..self.rows {
            for j in 0..i {
                let asymmetry = (self[(i, j)] - self[(j, i)]).abs();
                if asymmetry > allowed {
                    return Err(LcpError::NotSymmetric {
                        row: i,
                        col: j,
                        asymmetry,
                    });
                }
            }
        }
        Ok(())
    }
}

impl std::ops::Index<(usize, usize)> for DenseMatrix {
    type Output = f64;
    #[inline]
    fn index(&self, (i, j): (usize, usize)) -> &f64 {
        &self.data[i * self.cols + j]
    }
}

impl std::ops::IndexMut<(usize, usize)> for DenseMatrix {
    #[inline]
    fn index_mut(&mut self, (i, j): (usize, usize)) -> &mut f64 {
        &mut self.data[i * self.cols + j]
    }
}

/// Dot product of two equal-length slices.
#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    // Four accumulators let the compiler keep independent FMA chains in flight.
    let mut acc = [0.0f64; 4];
    let chunks = a.len() / 4;
    for k in 0..chunks {
        let i = 4 * k;
        acc[0] += a[i] * b[i];
        acc[1] += a[i + 1] * b[i + 1];
        acc[2] += a[i + 2] * b[i + 2];
        acc[3] += a[i + 3] * b[i + 3];
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for i in 4 * chunks..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// Largest absolute value of a slice (0 for empty).
#[inline]
pub fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

#[cfg(test)]
mod tests {
    use super::DenseMatrix;

    #[test]
    fn reset_zeros_reshapes_to_zeros_and_keeps_the_buffer() {
        let mut m = DenseMatrix::identity(4);
        let buffer = m.as_slice().as_ptr();
        m.reset_zeros(2, 3);
        assert_eq!((m.rows(), m.cols()), (2, 3));
        assert!(m.as_slice().len() == 6 && m.as_slice().iter().all(|v| *v == 0.0));
        // Smaller than before: the same buffer.
        assert_eq!(m.as_slice().as_ptr(), buffer);
        m.reset_zeros(4, 4);
        assert_eq!(m, DenseMatrix::zeros(4, 4));
    }
}
