//! The nonzeros of `A`, row by row, for the slack updates of the pivoting.
//!
//! Every pivot updates the slack of each index at a bound, `dw_k = A_kC dx_C`. A contact
//! row is coupled only to the rows of the contacts of its own two bodies, so in an engine's
//! LCP (a pyramid of boxes: a few percent nonzeros) a sum over the row's nonzeros costs a
//! fraction of the dense product with the clamped columns.

use crate::matrix::DenseMatrix;

/// Rows whose nonzeros fill at most this fraction of the matrix are used sparse; denser
/// problems keep the dense products, whose contiguous access wins there.
const SPARSE_FILL: f64 = 0.25;

/// Compressed rows of `A` (empty when `A` is too dense to profit).
#[derive(Clone, Debug, Default)]
pub(crate) struct SparseRows {
    sparse: bool,
    start: Vec<usize>,
    columns: Vec<usize>,
    values: Vec<f64>,
}

impl SparseRows {
    /// Indexes `a`'s nonzeros if they are few enough (storage is reused between solves).
    pub(crate) fn index(&mut self, a: &DenseMatrix) {
        let n = a.rows();
        let nonzeros: usize = (0..n)
            .map(|r| a.row(r).iter().filter(|v| **v != 0.0).count())
            .sum();
        self.sparse = n > 0 && (nonzeros as f64) <= SPARSE_FILL * (n * n) as f64;
        self.start.clear();
        self.columns.clear();
        self.values.clear();
        if !self.sparse {
            return;
        }
        self.start.push(0);
        for r in 0..n {
            for (c, &v) in a.row(r).iter().enumerate() {
                if v != 0.0 {
                    self.columns.push(c);
                    self.values.push(v);
                }
            }
            self.start.push(self.columns.len());
        }
    }

    /// Whether the rows are indexed (the matrix is sparse enough).
    pub(crate) fn is_sparse(&self) -> bool {
        self.sparse
    }

    /// `A_k . v` over row `k`'s nonzeros.
    pub(crate) fn row_dot(&self, k: usize, v: &[f64]) -> f64 {
        let range = self.start[k]..self.start[k + 1];
        self.columns[range.clone()]
            .iter()
            .zip(&self.values[range])
            .map(|(&c, &a)| a * v[c])
            .sum()
    }
}
