//! Dense LU factorisation with partial pivoting, for the square non-symmetric systems some
//! solvers meet (Dantzig's coupled friction solve, the free block of a mixed LCP).

/// An LU factorisation `P A = L U` of a square matrix, stored in place (row-major, `L` unit
/// lower below the diagonal, `U` on and above it). Reuses its storage between factorisations.
#[derive(Clone, Debug, Default)]
pub struct DenseLu {
    n: usize,
    lu: Vec<f64>,
    perm: Vec<usize>,
    scratch: Vec<f64>,
}

impl DenseLu {
    /// Prepares an `n x n` zero matrix, to be filled with [`Self::set`] and [`Self::add`]
    /// before [`Self::factor`].
    pub fn reset(&mut self, n: usize) {
        self.n = n;
        self.lu.clear();
        self.lu.resize(n * n, 0.0);
        self.perm.clear();
        self.perm.extend(0..n);
        self.scratch.resize(n, 0.0);
    }

    /// Dimension.
    #[inline]
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the matrix is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Sets entry `(i, j)` of the matrix being assembled.
    #[inline]
    pub fn set(&mut self, i: usize, j: usize, v: f64) {
        self.lu[i * self.n + j] = v;
    }

    /// Adds to entry `(i, j)` of the matrix being assembled.
    #[inline]
    pub fn add(&mut self, i: usize, j: usize, v: f64) {
        self.lu[i * self.n + j] += v;
    }

    /// Factors in place; returns `false` when a pivot is at most `relative_tolerance` times
    /// the largest entry of the matrix (numerically singular) or anything is non-finite.
    pub fn factor(&mut self, relative_tolerance: f64) -> bool {
        let n = self.n;
        let scale = self.lu.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if n > 0 && !(scale > 0.0 && scale.is_finite()) {
            return false;
        }
        for k in 0..n {
            let (mut best, mut best_row) = (0.0, k);
            for r in k..n {
                let v = self.lu[r * n + k].abs();
                if v > best {
                    best = v;
                    best_row = r;
                }
            }
            if best <= relative_tolerance * scale {
                return false;
            }
            if best_row != k {
                for j in 0..n {
                    self.lu.swap(k * n + j, best_row * n + j);
                }
                self.perm.swap(k, best_row);
            }
            let pivot = self.lu[k * n + k];
            for r in k + 1..n {
                let f = self.lu[r * n + k] / pivot;
                self.lu[r * n + k] = f;
                if f != 0.0 {
                    let (upper, lower) = self.lu.split_at_mut(r * n);
                    let pivot_row = &upper[k * n + k + 1..k * n + n];
                    for (x, p) in lower[k + 1..n].iter_mut().zip(pivot_row) {
                        *x -= f * p;
                    }
                }
            }
        }
        // Finite pivots can still leave overflowed or NaN entries in U (or a NaN of the
        // input where no pivot search looked); a solve with them would be garbage.
        self.lu.iter().all(|v| v.is_finite())
    }

    /// Solves `A z = v` in place with the factorisation (`v` of length `n`).
    pub fn solve(&mut self, v: &mut [f64]) {
        let n = self.n;
        let s = &mut self.scratch;
        for i in 0..n {
            s[i] = v[self.perm[i]];
        }
        for i in 0..n {
            let d = crate::matrix::dot(&self.lu[i * n..i * n + i], &s[..i]);
            s[i] -= d;
        }
        for i in (0..n).rev() {
            let d = crate::matrix::dot(&self.lu[i * n + i + 1..(i + 1) * n], &s[i + 1..n]);
            s[i] = (s[i] - d) / self.lu[i * n + i];
        }
        v[..n].copy_from_slice(&s[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_nonsymmetric_system_that_needs_row_exchanges() {
        let a = [[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]];
        let z = [1.0, 2.0, 3.0];
        let mut v: Vec<f64> = a
            .iter()
            .map(|r| r.iter().zip(&z).map(|(x, y)| x * y).sum())
            .collect();
        let mut lu = DenseLu::default();
        lu.reset(3);
        for (i, r) in a.iter().enumerate() {
            for (j, &x) in r.iter().enumerate() {
                lu.set(i, j, x);
            }
        }
        assert!(lu.factor(1e-14));
        lu.solve(&mut v);
        for (got, want) in v.iter().zip(&z) {
            assert!((got - want).abs() < 1e-14, "{got} vs {want}");
        }
    }

    #[test]
    fn reports_non_finite_entries_off_the_pivot_path() {
        // The NaN sits above the diagonal, where no pivot search looks.
        let mut lu = DenseLu::default();
        lu.reset(2);
        lu.set(0, 0, 2.0);
        lu.set(0, 1, f64::NAN);
        lu.set(1, 1, 1.0);
        assert!(!lu.factor(1e-12));
        // Entries near f64::MAX that overflow during elimination.
        lu.reset(3);
        for (i, row) in [[1.0, 1e308, 1e308], [1.0, -1e308, 1e308], [0.0, 0.0, 1.0]]
            .iter()
            .enumerate()
        {
            for (j, &v) in row.iter().enumerate() {
                lu.set(i, j, v);
            }
        }
        assert!(!lu.factor(0.0));
    }

    #[test]
    fn reports_a_singular_matrix() {
        let mut lu = DenseLu::default();
        lu.reset(2);
        lu.set(0, 0, 1.0);
        lu.set(0, 1, 2.0);
        lu.set(1, 0, 2.0);
        lu.set(1, 1, 4.0);
        assert!(!lu.factor(1e-12));
    }
}
