//! `L D L^T` of a symmetric matrix stored by its envelope (skyline): row `i` holds the
//! entries from its first non-zero column `first(i)` to the diagonal. Fill-in stays inside
//! the envelope, so a chain or tree whose rows are listed root to leaf factors in
//! `O(n w^2)` for envelope width `w` (a 100-link ball chain: `w <= 6`), and any other ordering
//! degrades gracefully to the dense `O(n^3)`.
//!
//! Factorisation (Jennings' envelope method), for each row `i`:
//!
//! ```text
//! g_ij = a_ij - sum_{k = max(first i, first j)}^{j-1} g_ik l_jk     (g_ij = l_ij d_j)
//! l_ij = g_ij / d_j,   d_i = a_ii - sum_k g_ik l_ik
//! ```

/// Envelope storage and its factorisation, reused between solves.
#[derive(Debug, Clone, Default)]
pub(crate) struct Skyline {
    first: Vec<usize>,
    offset: Vec<usize>,
    data: Vec<f64>,
    diagonal: Vec<f64>,
    /// `1 / diagonal`, for the solves (each factorisation serves one to a few; a division
    /// a row was a quarter of S3's solves).
    inverse_diagonal: Vec<f64>,
}

impl Skyline {
    /// Sets the envelope: `first[i] <= i` for every row. All entries start at zero.
    pub(crate) fn reset(&mut self, first: &[usize]) {
        self.first.clear();
        self.first.extend_from_slice(first);
        self.offset.clear();
        let mut total = 0;
        for (i, &f) in first.iter().enumerate() {
            debug_assert!(f <= i);
            self.offset.push(total);
            total += i - f + 1;
        }
        self.data.clear();
        self.data.resize(total, 0.0);
        self.diagonal.clear();
        self.diagonal.resize(first.len(), 0.0);
    }

    /// Whether the envelope is `first` (as [`Self::reset`] would set it).
    pub(crate) fn has_envelope(&self, first: &[usize]) -> bool {
        self.first == first
    }

    /// Sets entry `(i, j)`, `first(i) <= j <= i`.
    #[cfg(test)]
    fn set(&mut self, i: usize, j: usize, value: f64) {
        debug_assert!(j >= self.first[i] && j <= i);
        self.data[self.offset[i] + j - self.first[i]] = value;
    }

    fn row(&self, i: usize) -> &[f64] {
        let start = self.offset[i];
        &self.data[start..start + i - self.first[i] + 1]
    }

    /// Row `i`'s envelope, `first(i) ..= i`, to fill before [`Self::factor`].
    pub(crate) fn row_mut(&mut self, i: usize) -> &mut [f64] {
        let start = self.offset[i];
        &mut self.data[start..start + i - self.first[i] + 1]
    }

    /// Factors in place. A pivot below `floor` times its original diagonal (a row dependent
    /// on earlier ones) is raised to that, which regularises it; a zero diagonal removes the
    /// row (its solution component is zero). Returns the number of pivots so treated.
    pub(crate) fn factor(&mut self, floor: f64) -> usize {
        let n = self.first.len();
        let mut weak = 0;
        for i in 0..n {
            let (fi, oi) = (self.first[i], self.offset[i]);
            for j in fi..i {
                let (fj, oj) = (self.first[j], self.offset[j]);
                let k0 = fi.max(fj);
                let mut s = self.data[oi + j - fi];
                for k in k0..j {
                    s -= self.data[oi + k - fi] * self.data[oj + k - fj];
                }
                self.data[oi + j - fi] = s;
            }
            let original = self.data[oi + i - fi];
            let mut d = original;
            for k in fi..i {
                let g = self.data[oi + k - fi];
                let l = g / self.diagonal[k];
                d -= l * g;
                self.data[oi + k - fi] = l;
            }
            // Written as "not greater" so that a NaN pivot is caught too.
            if original.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                weak += 1;
                d = f64::INFINITY;
            } else if d.partial_cmp(&(floor * original)) != Some(std::cmp::Ordering::Greater) {
                weak += 1;
                d = floor * original;
            }
            self.data[oi + i - fi] = 1.0;
            self.diagonal[i] = d;
        }
        self.inverse_diagonal.clear();
        self.inverse_diagonal
            .extend(self.diagonal.iter().map(|d| 1.0 / d));
        weak
    }

    /// Solves `L D L^T x = r` in place (after [`Self::factor`]).
    pub(crate) fn solve(&self, x: &mut [f64]) {
        let n = self.first.len();
        for i in 0..n {
            let (fi, row) = (self.first[i], self.row(i));
            let mut s = x[i];
            for k in fi..i {
                s -= row[k - fi] * x[k];
            }
            x[i] = s;
        }
        for (xi, inverse) in x.iter_mut().zip(&self.inverse_diagonal) {
            *xi *= inverse;
        }
        for i in (0..n).rev() {
            let (fi, row) = (self.first[i], self.row(i));
            let xi = x[i];
            for k in fi..i {
                x[k] -= row[k - fi] * xi;
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    use super::*;

    /// A symmetric positive definite band matrix with an irregular envelope.
    fn example(n: usize) -> (Vec<usize>, Vec<Vec<f64>>) {
        let first: Vec<usize> = (0..n).map(|i| i.saturating_sub(1 + i % 3)).collect();
        let mut a = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in first[i]..i {
                let v = ((i * 7 + j * 3) % 5) as f64 * 0.1 - 0.2;
                a[i][j] = v;
                a[j][i] = v;
            }
            a[i][i] = 2.0 + (i % 4) as f64;
        }
        (first, a)
    }

    #[test]
    fn solves_an_envelope_system_to_round_off() {
        let n = 40;
        let (first, a) = example(n);
        let mut s = Skyline::default();
        s.reset(&first);
        for i in 0..n {
            for j in first[i]..=i {
                s.set(i, j, a[i][j]);
            }
        }
        assert_eq!(s.factor(1e-12), 0);
        let expected: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let mut x: Vec<f64> = (0..n)
            .map(|i| (0..n).map(|j| a[i][j] * expected[j]).sum())
            .collect();
        s.solve(&mut x);
        for (xi, ei) in x.iter().zip(&expected) {
            assert!((xi - ei).abs() < 1e-13, "{xi} vs {ei}");
        }
    }

    #[test]
    fn dependent_rows_are_regularised_not_divided_by_zero() {
        // Rows 0 and 1 identical: a rank-one 2 x 2 block.
        let mut s = Skyline::default();
        s.reset(&[0, 0]);
        s.set(0, 0, 1.0);
        s.set(1, 0, 1.0);
        s.set(1, 1, 1.0);
        assert_eq!(s.factor(1e-9), 1);
        // A consistent right-hand side is still met: x0 + x1 = 1.
        let mut x = [1.0, 1.0];
        s.solve(&mut x);
        assert!(x.iter().all(|v| v.is_finite()));
        assert!((x[0] + x[1] - 1.0).abs() < 1e-9);
    }
}
