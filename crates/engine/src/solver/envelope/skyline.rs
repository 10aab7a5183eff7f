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
    /// `1 / diagonal`, kept as each pivot is found: the factorisation and the solves (one
    /// to a few per factorisation) multiply by it instead of dividing
    /// (docs/performance.md#envelope-factorisation-of-chains).
    inverse_diagonal: Vec<f64>,
    /// The block size if the envelope is a block band ([`block_band`]), else 0.
    block: usize,
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
        self.inverse_diagonal.clear();
        self.inverse_diagonal.resize(first.len(), 0.0);
        self.block = block_band(first);
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
        let mut weak = 0;
        match self.block {
            1 => self.factor_band::<1>(floor, &mut weak),
            2 => self.factor_band::<2>(floor, &mut weak),
            3 => self.factor_band::<3>(floor, &mut weak),
            4 => self.factor_band::<4>(floor, &mut weak),
            5 => self.factor_band::<5>(floor, &mut weak),
            6 => self.factor_band::<6>(floor, &mut weak),
            _ => {
                for i in 0..self.first.len() {
                    self.factor_row(i, floor, &mut weak);
                }
            }
        }
        weak
    }

    /// Factors row `i` (rows before it factored), counting a raised pivot in `weak`.
    fn factor_row(&mut self, i: usize, floor: f64, weak: &mut usize) {
        let (fi, oi) = (self.first[i], self.offset[i]);
        for j in fi..i {
            let (fj, oj) = (self.first[j], self.offset[j]);
            let k0 = fi.max(fj);
            let mut s = self.data[oi + j - fi];
            // The two rows' overlap as slices: one bounds check each, not two a product.
            let (row_i, row_j) = (
                &self.data[oi + k0 - fi..oi + j - fi],
                &self.data[oj + k0 - fj..oj + j - fj],
            );
            for (a, b) in row_i.iter().zip(row_j) {
                s -= a * b;
            }
            self.data[oi + j - fi] = s;
        }
        let original = self.data[oi + i - fi];
        let mut d = original;
        for k in fi..i {
            let g = self.data[oi + k - fi];
            let l = g * self.inverse_diagonal[k];
            d -= l * g;
            self.data[oi + k - fi] = l;
        }
        self.data[oi + i - fi] = 1.0;
        self.diagonal[i] = pivot(original, d, floor, weak);
        self.inverse_diagonal[i] = 1.0 / self.diagonal[i];
    }

    /// [`Self::factor_row`] of every row of a block band of `B`-row blocks
    /// ([`block_band`]), the same operations in the same order (so the same factor to the
    /// bit), but from the third block on with every loop's length known at compile time:
    /// the rows of a chain's joints are short (a ball chain's: 4 to 6 entries), and the
    /// generic loops' work went mostly to indices, bounds and trip counts
    /// (docs/performance.md#envelope-factorisation-of-chains).
    fn factor_band<const B: usize>(&mut self, floor: f64, weak: &mut usize) {
        let n = self.first.len();
        let leading = n.min(2 * B);
        for i in 0..leading {
            self.factor_row(i, floor, weak);
        }
        let size = block_entries(B);
        for block in 2..n / B {
            let base = B * (block - 1);
            let start = self.offset[B * block];
            let (before, rest) = self.data.split_at_mut(start);
            let previous = &before[start - size..];
            let current = &mut rest[..size];
            let diagonal = &mut self.diagonal[base..base + 2 * B];
            let inverse = &mut self.inverse_diagonal[base..base + 2 * B];
            for r in 0..B {
                let o = band_row_offset(B, r);
                // Columns of the previous block, `j = base + c`: their rows share this
                // block's first column only from `base` on (entry `B + t` of row `c`).
                for c in 0..B {
                    let p = band_row_offset(B, c) + B;
                    let mut s = current[o + c];
                    for t in 0..c {
                        s -= current[o + t] * previous[p + t];
                    }
                    current[o + c] = s;
                }
                // Columns of this block before the diagonal, `j = base + B + c`.
                for c in 0..r {
                    let p = band_row_offset(B, c);
                    let mut s = current[o + B + c];
                    for t in 0..B + c {
                        s -= current[o + t] * current[p + t];
                    }
                    current[o + B + c] = s;
                }
                let original = current[o + B + r];
                let mut d = original;
                for t in 0..B + r {
                    let g = current[o + t];
                    let l = g * inverse[t];
                    d -= l * g;
                    current[o + t] = l;
                }
                current[o + B + r] = 1.0;
                diagonal[B + r] = pivot(original, d, floor, weak);
                inverse[B + r] = 1.0 / diagonal[B + r];
            }
        }
    }

    /// Solves `L D L^T x = r` in place (after [`Self::factor`]).
    pub(crate) fn solve(&self, x: &mut [f64]) {
        match self.block {
            1 => self.solve_band::<1>(x),
            2 => self.solve_band::<2>(x),
            3 => self.solve_band::<3>(x),
            4 => self.solve_band::<4>(x),
            5 => self.solve_band::<5>(x),
            6 => self.solve_band::<6>(x),
            _ => {
                let n = self.first.len();
                for i in 0..n {
                    self.forward_row(i, x);
                }
                self.scale(x);
                for i in (0..n).rev() {
                    self.backward_row(i, x);
                }
            }
        }
    }

    /// Row `i` of the forward substitution `L y = r`.
    fn forward_row(&self, i: usize, x: &mut [f64]) {
        let (fi, row) = (self.first[i], self.row(i));
        let mut s = x[i];
        for k in fi..i {
            s -= row[k - fi] * x[k];
        }
        x[i] = s;
    }

    /// `y = D^-1 y`.
    fn scale(&self, x: &mut [f64]) {
        for (xi, inverse) in x.iter_mut().zip(&self.inverse_diagonal) {
            *xi *= inverse;
        }
    }

    /// Row `i` of the backward substitution `L^T x = y` (rows after it done).
    fn backward_row(&self, i: usize, x: &mut [f64]) {
        let (fi, row) = (self.first[i], self.row(i));
        let xi = x[i];
        for k in fi..i {
            x[k] -= row[k - fi] * xi;
        }
    }

    /// [`Self::solve`] for a block band of `B`-row blocks, the same operations in the same
    /// order, with fixed loop lengths from the second block on (see
    /// [`Self::factor_band`]).
    fn solve_band<const B: usize>(&self, x: &mut [f64]) {
        let n = self.first.len();
        let leading = n.min(B);
        let size = block_entries(B);
        for i in 0..leading {
            self.forward_row(i, x);
        }
        for block in 1..n / B {
            let base = B * (block - 1);
            let start = self.offset[B * block];
            let rows = &self.data[start..start + size];
            let x = &mut x[base..base + 2 * B];
            for r in 0..B {
                let o = band_row_offset(B, r);
                let mut s = x[B + r];
                for t in 0..B + r {
                    s -= rows[o + t] * x[t];
                }
                x[B + r] = s;
            }
        }
        self.scale(x);
        for block in (1..n / B).rev() {
            let base = B * (block - 1);
            let start = self.offset[B * block];
            let rows = &self.data[start..start + size];
            let x = &mut x[base..base + 2 * B];
            for r in (0..B).rev() {
                let o = band_row_offset(B, r);
                let xi = x[B + r];
                for t in 0..B + r {
                    x[t] -= rows[o + t] * xi;
                }
            }
        }
        for i in (0..leading).rev() {
            self.backward_row(i, x);
        }
    }
}

/// The largest block [`block_band`] recognises: a fixed joint's six rows.
const MAX_BAND_BLOCK: usize = 6;

/// The block size `B` if the envelope `first` is a block band: rows in blocks of `B`, each
/// block's rows starting at the previous block's first row (the first block's at 0), as
/// a chain of joints with `B` rows each writes them root to leaf. 0 otherwise.
fn block_band(first: &[usize]) -> usize {
    let n = first.len();
    (1..=MAX_BAND_BLOCK)
        .find(|&b| {
            n % b == 0
                && first
                    .iter()
                    .enumerate()
                    .all(|(i, &f)| f == (i / b).saturating_sub(1) * b)
        })
        .unwrap_or(0)
}

/// Entries of one block's rows in a band of `B`-row blocks after the first block: row `r`
/// holds the previous block's `B` columns, `r` of its own and the diagonal.
const fn block_entries(b: usize) -> usize {
    band_row_offset(b, b)
}

/// Where row `r` of a band block starts among the block's entries.
const fn band_row_offset(b: usize, r: usize) -> usize {
    r * (b + 1) + r * r.saturating_sub(1) / 2
}

/// The pivot kept for a row whose diagonal was `original` and whose factorisation left
/// `d`: `d`, or the floor's value if it fell to `floor * original` or below (counted in
/// `weak`), or infinity (removing the row) if the original was not positive.
fn pivot(original: f64, d: f64, floor: f64, weak: &mut usize) -> f64 {
    // Written as "not greater" so that a NaN pivot is caught too.
    if original.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        *weak += 1;
        f64::INFINITY
    } else if d.partial_cmp(&(floor * original)) != Some(std::cmp::Ordering::Greater) {
        *weak += 1;
        floor * original
    } else {
        d
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

    /// A symmetric positive definite block band of `blocks` blocks of `b` rows (each row
    /// coupled to its own block and the neighbouring ones), its envelope and a copy with
    /// row `dependent`'s entries equal to the row before it (a rank-deficient pair).
    fn band_example(b: usize, blocks: usize, dependent: Option<usize>) -> Skyline {
        let n = b * blocks;
        let first: Vec<usize> = (0..n).map(|i| (i / b).saturating_sub(1) * b).collect();
        let mut a = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in first[i]..i {
                let v = (((i * 13 + j * 7) % 11) as f64 - 5.0) * 0.03;
                a[i][j] = v;
                a[j][i] = v;
            }
            a[i][i] = 1.5 + (i % 5) as f64 * 0.25;
        }
        if let Some(d) = dependent {
            // Row and column d a copy of d - 1 within the envelope (same first column).
            assert_eq!(first[d], first[d - 1]);
            for j in 0..n {
                a[d][j] = a[d - 1][j];
                a[j][d] = a[j][d - 1];
            }
            a[d][d] = a[d - 1][d - 1];
        }
        let mut s = Skyline::default();
        s.reset(&first);
        for i in 0..n {
            for j in first[i]..=i {
                s.set(i, j, a[i][j]);
            }
        }
        s
    }

    #[test]
    fn a_block_band_factors_and_solves_as_the_general_envelope_does_to_the_bit() {
        for b in 1..=MAX_BAND_BLOCK {
            for dependent in [None, Some(4 * b + b.min(2) - 1)] {
                let dependent = dependent.filter(|&d| d % b != 0);
                let mut band = band_example(b, 7, dependent);
                assert_eq!(band.block, b, "the envelope is a band of {b}-row blocks");
                let mut general = band.clone();
                general.block = 0;
                let weak = band.factor(1e-9);
                assert_eq!(weak, general.factor(1e-9));
                assert_eq!(weak, usize::from(dependent.is_some()));
                assert_eq!(band.data, general.data, "block {b}");
                assert_eq!(band.diagonal, general.diagonal, "block {b}");
                let rhs: Vec<f64> = (0..7 * b).map(|i| (i as f64 * 0.61).cos()).collect();
                let (mut x, mut y) = (rhs.clone(), rhs.clone());
                band.solve(&mut x);
                general.solve(&mut y);
                assert_eq!(x, y, "block {b}");
            }
        }
    }

    #[test]
    fn a_block_band_solves_its_system() {
        for b in 1..=MAX_BAND_BLOCK {
            let original = band_example(b, 9, None);
            let n = 9 * b;
            let expected: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
            // r = A x from the stored lower envelope, by symmetry.
            let mut r = vec![0.0; n];
            for i in 0..n {
                let f = original.first[i];
                for (j, &v) in (f..=i).zip(original.row(i)) {
                    r[i] += v * expected[j];
                    if j != i {
                        r[j] += v * expected[i];
                    }
                }
            }
            let mut s = original.clone();
            assert_eq!(s.factor(1e-12), 0);
            s.solve(&mut r);
            for (xi, ei) in r.iter().zip(&expected) {
                assert!((xi - ei).abs() < 1e-12, "block {b}: {xi} vs {ei}");
            }
        }
    }

    #[test]
    fn only_block_bands_take_the_band_path() {
        // A ball chain's three rows per joint.
        let chain: Vec<usize> = (0..12usize)
            .map(|i| (i / 3).saturating_sub(1) * 3)
            .collect();
        assert_eq!(block_band(&chain), 3);
        // Its last joint one row short: not a band.
        assert_eq!(block_band(&chain[..11]), 0);
        // A row coupled further back than the previous block.
        let mut wide = chain.clone();
        wide[10] = 0;
        assert_eq!(block_band(&wide), 0);
        assert_eq!(block_band(&[0, 0, 0, 0, 2, 2]), 2);
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
