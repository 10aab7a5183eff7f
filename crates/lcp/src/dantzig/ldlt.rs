//! A dense `L D L^T` factorisation of the clamped block `A_CC` that grows and shrinks one
//! row and column at a time.
//!
//! Dantzig's method changes the clamped set C by one index per pivot. Refactorising
//! `A_CC` each time would cost `O(|C|^3)` per pivot and `O(n^4)` per solve; appending an
//! index costs one forward substitution (`O(|C|^2)`), and removing one costs a rank-one
//! update of the trailing factor (`O(|C|^2)`), keeping a whole solve near `O(n^3)`.
//!
//! Removal of index `p`: with `L = [L11 0 0; l21' 1 0; L31 l32 L33]`, deleting row and
//! column `p` of `A = L D L'` leaves `L11`, `L31` unchanged and turns the trailing block into
//! `L33 D33 L33' + d_p l32 l32'`, a positive rank-one update (Gill, Golub, Murray and
//! Saunders 1974, method C1), which is stable because `d_p > 0`.
//!
//! **Envelope.** Row `r` of `L` is zero before the first non-zero of row `r` of `A_CC` (no
//! fill-in ahead of a row's first entry), and removal keeps that true. Each row remembers
//! where its non-zeros start, and the substitutions skip the zeros ahead of it: for rows
//! that couple only with their neighbours in C's order (a chain's joints, a stack's contacts
//! listed body by body) a forward substitution costs `O(|C| b)` for envelope width `b`
//! instead of `O(|C|^2)`, and building the factorisation `O(|C| b^2)` instead of `O(|C|^3)`.

/// The factorisation. `L` is unit lower triangular, stored row-major with a fixed stride
/// so that rows can be appended without moving the others.
#[derive(Clone, Debug, Default)]
pub struct IncrementalLdlt {
    stride: usize,
    size: usize,
    l: Vec<f64>,
    d: Vec<f64>,
    update: Vec<f64>,
    /// Column of the first entry of each row of `L` that may be non-zero (the entries before
    /// it are zero and are never read).
    first: Vec<usize>,
}

impl IncrementalLdlt {
    /// Prepares room for up to `capacity` rows; keeps existing allocations when they suffice.
    pub fn reset(&mut self, capacity: usize) {
        self.size = 0;
        if capacity > self.stride {
            self.stride = capacity;
            self.l = vec![0.0; capacity * capacity];
            self.d = vec![0.0; capacity];
            self.update = vec![0.0; capacity];
            self.first = vec![0; capacity];
        }
    }

    /// Current dimension.
    #[inline]
    pub fn len(&self) -> usize {
        self.size
    }

    /// Whether the factorisation is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// The possibly non-zero part of row `r` of `L` (left of the diagonal) and its first
    /// column.
    #[inline]
    fn envelope(&self, r: usize) -> (usize, &[f64]) {
        let f = self.first[r];
        (f, &self.l[r * self.stride + f..r * self.stride + r])
    }

    /// Solves `L y = v` in place (unit diagonal). Leading zeros of `v` stay zero and cost
    /// nothing.
    pub fn forward(&self, v: &mut [f64]) {
        debug_assert!(v.len() >= self.size);
        let n = self.size;
        let Some(start) = v[..n].iter().position(|x| *x != 0.0) else {
            return;
        };
        for r in start + 1..n {
            let (f, row) = self.envelope(r);
            let f_eff = f.max(start);
            let s = crate::matrix::dot(&row[f_eff - f..], &v[f_eff..r]);
            v[r] -= s;
        }
    }

    /// Given `y = L^-1 v`, overwrites it with `A_CC^-1 v = L^-T D^-1 y`.
    pub fn finish_solve(&self, y: &mut [f64]) {
        let n = self.size;
        for (yi, di) in y[..n].iter_mut().zip(&self.d[..n]) {
            *yi /= di;
        }
        // Column-oriented back substitution: L' is upper triangular, L is stored by rows.
        for r in (1..n).rev() {
            let yr = y[r];
            if yr != 0.0 {
                let (f, row) = self.envelope(r);
                for (yk, lk) in y[f..r].iter_mut().zip(row) {
                    *yk -= lk * yr;
                }
            }
        }
    }

    /// Solves `A_CC z = v` in place.
    pub fn solve(&self, v: &mut [f64]) {
        self.forward(v);
        self.finish_solve(v);
    }

    /// The pivot `A_kk - a' A_CC^-1 a` that appending column `a` (with diagonal `akk`) would
    /// produce, given `y = L^-1 a`.
    pub fn schur_complement(&self, y: &[f64], akk: f64) -> f64 {
        let mut s = akk;
        for (yi, di) in y[..self.size].iter().zip(&self.d[..self.size]) {
            s -= yi * yi / di;
        }
        s
    }

    /// Appends a row and column, given `y = L^-1 a` (the forward-substituted new column) and
    /// the pivot from [`Self::schur_complement`].
    pub fn append(&mut self, y: &[f64], pivot: f64) {
        let r = self.size;
        debug_assert!(r < self.stride);
        let f = y[..r].iter().position(|v| *v != 0.0).unwrap_or(r);
        let start = r * self.stride;
        for ((lk, yk), dk) in self.l[start + f..start + r]
            .iter_mut()
            .zip(&y[f..r])
            .zip(&self.d[f..r])
        {
            *lk = yk / dk;
        }
        // Removal reads whole columns: the zeros ahead of the envelope must be real.
        self.l[start..start + f].fill(0.0);
        self.first[r] = f;
        self.d[r] = pivot;
        self.size += 1;
    }

    /// Removes row and column `p`, updating the trailing factor in `O((n - p)^2)`.
    pub fn remove(&mut self, p: usize) {
        let n = self.size;
        debug_assert!(p < n);
        let stride = self.stride;
        // The column below the removed pivot, scaled by it, is the rank-one update vector.
        let m = n - p - 1;
        for t in 0..m {
            self.update[t] = self.l[(p + 1 + t) * stride + p];
        }
        let mut alpha = self.d[p];
        for j in 0..m {
            let pj = self.update[j];
            let dj = self.d[p + 1 + j];
            let d_new = dj + alpha * pj * pj;
            let beta = pj * alpha / d_new;
            alpha *= dj / d_new;
            self.d[p + 1 + j] = d_new;
            let col = p + 1 + j;
            for t in j + 1..m {
                let idx = (p + 1 + t) * stride + col;
                self.update[t] -= pj * self.l[idx];
                self.l[idx] += beta * self.update[t];
            }
        }
        // Close the gap: rows p+1.. move up one, and lose their column p. The update only
        // touched columns at or after each row's first entry, so envelopes just shift.
        for r in p + 1..n {
            let src = r * stride;
            let dst = (r - 1) * stride;
            self.l.copy_within(src..src + p, dst);
            self.l.copy_within(src + p + 1..src + r, dst + p);
            let f = self.first[r];
            self.first[r - 1] = if f > p { f - 1 } else { f };
        }
        self.d.copy_within(p + 1..n, p);
        self.size -= 1;
    }

    /// The diagonal `D` (length [`Self::len`]).
    pub fn diagonal(&self) -> &[f64] {
        &self.d[..self.size]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::SplitMix64;

    fn spd(n: usize, seed: u64) -> Vec<Vec<f64>> {
        let mut rng = SplitMix64::new(seed);
        let b: Vec<Vec<f64>> = (0..n)
            .map(|_| (0..n).map(|_| rng.range(-1.0, 1.0)).collect())
            .collect();
        (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        (0..n).map(|k| b[i][k] * b[j][k]).sum::<f64>()
                            + if i == j { 0.5 } else { 0.0 }
                    })
                    .collect()
            })
            .collect()
    }

    fn append_index(f: &mut IncrementalLdlt, a: &[Vec<f64>], set: &[usize], k: usize) {
        let mut y: Vec<f64> = set.iter().map(|&c| a[c][k]).collect();
        f.forward(&mut y);
        let piv = f.schur_complement(&y, a[k][k]);
        f.append(&y, piv);
    }

    fn check_solves(f: &IncrementalLdlt, a: &[Vec<f64>], set: &[usize]) {
        let rhs: Vec<f64> = (0..set.len()).map(|i| (i as f64 + 1.0).sin()).collect();
        let mut z = rhs.clone();
        f.solve(&mut z);
        for (r, &i) in set.iter().enumerate() {
            let v: f64 = set.iter().enumerate().map(|(c, &j)| a[i][j] * z[c]).sum();
            assert!((v - rhs[r]).abs() < 1e-10, "row {r}: {v} vs {}", rhs[r]);
        }
    }

    /// A banded SPD matrix: each index couples with the next `width` ones, plus one
    /// long-range coupling (0, n-1) that widens the last row's envelope to the whole row.
    #[allow(clippy::needless_range_loop)] // a matrix written by its indices reads best
    fn banded(n: usize, width: usize, long_range: bool) -> Vec<Vec<f64>> {
        let mut a = vec![vec![0.0; n]; n];
        for i in 0..n {
            a[i][i] = 2.0 * width as f64 + 2.0;
            for j in i + 1..(i + width + 1).min(n) {
                let v = 1.0 / (1.0 + (i + 2 * j) as f64);
                a[i][j] = v;
                a[j][i] = v;
            }
        }
        if long_range {
            a[0][n - 1] = 0.5;
            a[n - 1][0] = 0.5;
        }
        a
    }

    #[test]
    fn banded_rows_keep_their_envelope_through_appends_and_removals() {
        let a = banded(12, 2, true);
        let mut f = IncrementalLdlt::default();
        f.reset(12);
        let mut set = Vec::new();
        for k in 0..12 {
            append_index(&mut f, &a, &set, k);
            set.push(k);
        }
        check_solves(&f, &a, &set);
        // Row r couples back to r - 2 only (row 11 also to row 0): no fill-in ahead of that.
        let expected: Vec<usize> = (0..12usize)
            .map(|r| if r == 11 { 0 } else { r.saturating_sub(2) })
            .collect();
        assert_eq!(&f.first[..12], &expected[..]);
        // Removing a middle index shifts the envelopes behind it, and the answers stay exact.
        for p in [5, 0, 7] {
            f.remove(p);
            set.remove(p);
            check_solves(&f, &a, &set);
            for r in 0..set.len() {
                let (start, row) = f.envelope(r);
                assert_eq!(row.len(), r - start);
                // Everything ahead of the envelope is exactly zero.
                assert!(f.l[r * f.stride..r * f.stride + start]
                    .iter()
                    .all(|v| *v == 0.0));
            }
        }
        // Appending after removals (the rows' envelopes are mixed now).
        for k in [5, 0] {
            append_index(&mut f, &a, &set, k);
            set.push(k);
            check_solves(&f, &a, &set);
        }
    }

    #[test]
    fn forward_substitution_skips_leading_zeros_exactly() {
        let a = banded(8, 1, false);
        let mut f = IncrementalLdlt::default();
        f.reset(8);
        let set: Vec<usize> = (0..8).collect();
        for &k in &set {
            append_index(&mut f, &a, &set[..k], k);
        }
        // v = e_5: y = L^-1 v is zero above index 5 and one at 5.
        let mut y = vec![0.0; 8];
        y[5] = 1.0;
        f.forward(&mut y);
        assert!(y[..5].iter().all(|v| *v == 0.0) && y[5] == 1.0);
        f.finish_solve(&mut y);
        // A y = e_5.
        for (i, row) in a.iter().enumerate() {
            let v: f64 = row.iter().zip(&y).map(|(p, q)| p * q).sum();
            assert!(
                (v - if i == 5 { 1.0 } else { 0.0 }).abs() < 1e-13,
                "row {i}: {v}"
            );
        }
    }

    #[test]
    fn append_and_remove_keep_an_exact_factorisation() {
        let a = spd(9, 3);
        let mut f = IncrementalLdlt::default();
        f.reset(9);
        let mut set = Vec::new();
        for k in [4, 0, 7, 2, 8, 1] {
            append_index(&mut f, &a, &set, k);
            set.push(k);
            check_solves(&f, &a, &set);
        }
        for p in [2, 0, 3] {
            f.remove(p);
            set.remove(p);
            check_solves(&f, &a, &set);
        }
        for k in [3, 5, 6] {
            append_index(&mut f, &a, &set, k);
            set.push(k);
            check_solves(&f, &a, &set);
        }
        f.remove(set.len() - 1);
        set.pop();
        check_solves(&f, &a, &set);
    }
}
