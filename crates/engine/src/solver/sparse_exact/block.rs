//! Dense 6 x 6 blocks (row-major `[f64; 36]`) and 6-vectors: the arithmetic of the block
//! factorisations. One block couples the six velocity coordinates `(v, w)` of two bodies.
//!
//! The kernels of the coupled LU and its assembly ([`add_outer`], [`product`],
//! [`subtract_block_product`], [`times`]) use fused multiply-adds (`f64::mul_add`: one
//! rounding), so their answer is the same to the bit on every processor: the callers'
//! AVX2 entry points also enable FMA and get one instruction per pair of operations (a
//! resting S1 step 3 % faster); a processor without FMA takes the portable path, where
//! the standard library computes the fused result in software, slowly but alike.

/// Whether the processor has AVX2 and FMA, which the fused kernels' fast entry points
/// are compiled for.
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx2_fma() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
}

/// A 6 x 6 block, row-major.
pub(crate) type Block = [f64; 36];
/// A body's six coordinates `(v, w)`.
pub(crate) type Six = [f64; 6];

/// The zero block.
pub(crate) const ZERO: Block = [0.0; 36];

/// Replaces the symmetric positive definite `a` (lower triangle read) by its lower Cholesky
/// factor `L` (`a = L L^T`, upper triangle zeroed). Returns `false` if a pivot is not
/// positive and finite: the block is not numerically positive definite.
pub(crate) fn cholesky_in_place(a: &mut Block) -> bool {
    for j in 0..6 {
        let mut d = a[j * 6 + j];
        for k in 0..j {
            d -= a[j * 6 + k] * a[j * 6 + k];
        }
        if !(d > 0.0 && d.is_finite()) {
            return false;
        }
        let d = d.sqrt();
        a[j * 6 + j] = d;
        for i in j + 1..6 {
            let mut v = a[i * 6 + j];
            for k in 0..j {
                v -= a[i * 6 + k] * a[j * 6 + k];
            }
            a[i * 6 + j] = v / d;
        }
        for k in j + 1..6 {
            a[j * 6 + k] = 0.0;
        }
    }
    true
}

/// `v <- L^-1 v` for a lower-triangular factor `l`.
#[inline]
pub(crate) fn solve_lower(l: &Block, v: &mut Six) {
    for i in 0..6 {
        let mut s = v[i];
        for k in 0..i {
            s -= l[i * 6 + k] * v[k];
        }
        v[i] = s / l[i * 6 + i];
    }
}

/// `v <- L^-T v` for a lower-triangular factor `l`.
#[inline]
pub(crate) fn solve_lower_transposed(l: &Block, v: &mut Six) {
    for i in (0..6).rev() {
        let mut s = v[i];
        for k in i + 1..6 {
            s -= l[k * 6 + i] * v[k];
        }
        v[i] = s / l[i * 6 + i];
    }
}

/// `b <- b L^-T`: each row `r` of `b` becomes the solution of `L x = r`.
#[inline]
pub(crate) fn right_solve_transposed(b: &mut Block, l: &Block) {
    for r in 0..6 {
        let mut row = [0.0; 6];
        row.copy_from_slice(&b[r * 6..r * 6 + 6]);
        solve_lower(l, &mut row);
        b[r * 6..r * 6 + 6].copy_from_slice(&row);
    }
}

/// `c <- c - a b^T`.
#[inline]
pub(crate) fn subtract_product_transposed(c: &mut Block, a: &Block, b: &Block) {
    for i in 0..6 {
        let ai = &a[i * 6..i * 6 + 6];
        for j in 0..6 {
            let bj = &b[j * 6..j * 6 + 6];
            let mut s = 0.0;
            for k in 0..6 {
                s += ai[k] * bj[k];
            }
            c[i * 6 + j] -= s;
        }
    }
}

/// `v <- v - a x`.
#[inline]
pub(crate) fn subtract_product(v: &mut Six, a: &Block, x: &Six) {
    for i in 0..6 {
        let mut s = 0.0;
        for k in 0..6 {
            s += a[i * 6 + k] * x[k];
        }
        v[i] -= s;
    }
}

/// `v <- v - a^T x`.
#[inline]
pub(crate) fn subtract_transposed_product(v: &mut Six, a: &Block, x: &Six) {
    for k in 0..6 {
        let xk = x[k];
        for i in 0..6 {
            v[i] -= a[k * 6 + i] * xk;
        }
    }
}

/// `c <- c + s p q^T` for 6-vectors `p`, `q` (fused).
#[inline(always)]
pub(crate) fn add_outer(c: &mut Block, s: f64, p: &Six, q: &Six) {
    for i in 0..6 {
        let spi = s * p[i];
        for j in 0..6 {
            c[i * 6 + j] = spi.mul_add(q[j], c[i * 6 + j]);
        }
    }
}

/// Replaces `a` by its inverse (Gauss-Jordan with partial pivoting). Returns `false`,
/// leaving `a` undefined, if a pivot is zero or not finite: the block is singular.
#[inline(always)]
pub(crate) fn invert_in_place(a: &mut Block) -> bool {
    let mut inverse = ZERO;
    for i in 0..6 {
        inverse[i * 6 + i] = 1.0;
    }
    for j in 0..6 {
        let pivot = (j..6)
            .max_by(|&p, &q| a[p * 6 + j].abs().total_cmp(&a[q * 6 + j].abs()))
            .unwrap_or(j);
        let d = a[pivot * 6 + j];
        if !(d != 0.0 && d.is_finite()) {
            return false;
        }
        if pivot != j {
            for k in 0..6 {
                a.swap(pivot * 6 + k, j * 6 + k);
                inverse.swap(pivot * 6 + k, j * 6 + k);
            }
        }
        let per_d = 1.0 / d;
        for k in 0..6 {
            a[j * 6 + k] *= per_d;
            inverse[j * 6 + k] *= per_d;
        }
        for i in 0..6 {
            let f = a[i * 6 + j];
            if i == j || f == 0.0 {
                continue;
            }
            for k in 0..6 {
                a[i * 6 + k] -= f * a[j * 6 + k];
                inverse[i * 6 + k] -= f * inverse[j * 6 + k];
            }
        }
    }
    *a = inverse;
    a.iter().all(|v| v.is_finite())
}

/// `a b` (fused).
#[inline]
pub(crate) fn product(a: &Block, b: &Block) -> Block {
    let mut c = ZERO;
    for i in 0..6 {
        for k in 0..6 {
            let aik = a[i * 6 + k];
            for j in 0..6 {
                c[i * 6 + j] = aik.mul_add(b[k * 6 + j], c[i * 6 + j]);
            }
        }
    }
    c
}

/// `c <- c - a b` (fused).
#[inline]
pub(crate) fn subtract_block_product(c: &mut Block, a: &Block, b: &Block) {
    for i in 0..6 {
        for k in 0..6 {
            let aik = a[i * 6 + k];
            for j in 0..6 {
                c[i * 6 + j] = (-aik).mul_add(b[k * 6 + j], c[i * 6 + j]);
            }
        }
    }
}

/// [`product`] with AVX2 and FMA intrinsics: `b`'s rows held in registers (a four-wide
/// and a two-wide vector each) and each row of the result accumulated in two registers,
/// the same fused operations in the same order per entry, so the same bits. Compiled from
/// the portable loops, the block was copied through the stack and each row reloaded per
/// product (the factorisation was a fifth of a resting S1 step).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn product_avx2(a: &Block, b: &Block) -> Block {
    let mut c = ZERO;
    accumulate_avx2::<false>(&mut c, a, b);
    c
}

/// [`subtract_block_product`] with AVX2 and FMA intrinsics, as [`product_avx2`]: `c <- c -
/// a b`, the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn subtract_block_product_avx2(c: &mut Block, a: &Block, b: &Block) {
    accumulate_avx2::<true>(c, a, b);
}

/// `c <- c + a b`, or `c - a b` if `SUBTRACT`, one fused multiply-add per entry and `k`
/// in increasing `k` (the portable kernels' order).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[inline]
fn accumulate_avx2<const SUBTRACT: bool>(c: &mut Block, a: &Block, b: &Block) {
    use std::arch::x86_64::{
        __m128d, __m256d, _mm256_fmadd_pd, _mm256_fnmadd_pd, _mm256_loadu_pd, _mm256_set1_pd,
        _mm256_storeu_pd, _mm_fmadd_pd, _mm_fnmadd_pd, _mm_loadu_pd, _mm_set1_pd, _mm_storeu_pd,
    };
    // SAFETY (every load and store below): rows `k` and `i` of a 36-number block, numbers
    // `6 k` to `6 k + 5`, are in bounds.
    let wide: [__m256d; 6] =
        std::array::from_fn(|k| unsafe { _mm256_loadu_pd(b[6 * k..].as_ptr()) });
    let narrow: [__m128d; 6] =
        std::array::from_fn(|k| unsafe { _mm_loadu_pd(b[6 * k + 4..].as_ptr()) });
    for i in 0..6 {
        let row = &mut c[6 * i..6 * i + 6];
        let (mut left, mut right) = unsafe {
            (
                _mm256_loadu_pd(row.as_ptr()),
                _mm_loadu_pd(row[4..].as_ptr()),
            )
        };
        for k in 0..6 {
            let aik = a[6 * i + k];
            let (w, n) = (_mm256_set1_pd(aik), _mm_set1_pd(aik));
            if SUBTRACT {
                // `-(a b) + c`: the same number as `(-a).mul_add(b, c)`.
                left = _mm256_fnmadd_pd(w, wide[k], left);
                right = _mm_fnmadd_pd(n, narrow[k], right);
            } else {
                left = _mm256_fmadd_pd(w, wide[k], left);
                right = _mm_fmadd_pd(n, narrow[k], right);
            }
        }
        unsafe {
            _mm256_storeu_pd(row.as_mut_ptr(), left);
            _mm_storeu_pd(row[4..].as_mut_ptr(), right);
        }
    }
}

/// `a x` (fused).
#[inline]
pub(crate) fn times(a: &Block, x: &Six) -> Six {
    std::array::from_fn(|i| (0..6).fold(0.0, |s, k| a[i * 6 + k].mul_add(x[k], s)))
}

/// Solves the dense row-major `a x = b` by Gaussian elimination without pivoting: the
/// reference of the block factorisations' tests, whose matrices are well conditioned
/// (positive definite or diagonally dominant).
#[cfg(test)]
pub(crate) fn dense_solve(mut a: Vec<f64>, mut x: Vec<f64>) -> Vec<f64> {
    let n = x.len();
    for k in 0..n {
        for i in k + 1..n {
            let f = a[i * n + k] / a[k * n + k];
            for j in k..n {
                a[i * n + j] -= f * a[k * n + j];
            }
            x[i] -= f * x[k];
        }
    }
    for k in (0..n).rev() {
        let s: f64 = (k + 1..n).map(|j| a[k * n + j] * x[j]).sum();
        x[k] = (x[k] - s) / a[k * n + k];
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spd() -> Block {
        // B B^T + I for a fixed non-symmetric B.
        let mut b = ZERO;
        for (k, v) in b.iter_mut().enumerate() {
            *v = ((k * 7 + 3) % 11) as f64 / 5.0 - 1.0;
        }
        let mut a = ZERO;
        for i in 0..6 {
            a[i * 6 + i] = 1.0;
        }
        let mut neg = ZERO;
        subtract_product_transposed(&mut neg, &b, &b);
        for k in 0..36 {
            a[k] -= neg[k];
        }
        a
    }

    #[test]
    fn factor_reproduces_the_block_and_solves() {
        let a = spd();
        let mut l = a;
        assert!(cholesky_in_place(&mut l));
        let mut llt = ZERO;
        subtract_product_transposed(&mut llt, &l, &l);
        for k in 0..36 {
            assert!((a[k] + llt[k]).abs() < 1e-12, "entry {k}");
        }
        let x = [1.0, -2.0, 0.5, 3.0, -1.0, 2.0];
        let mut v = [0.0; 6];
        subtract_product(&mut v, &a, &x);
        let mut v = v.map(|e| -e);
        solve_lower(&l, &mut v);
        solve_lower_transposed(&l, &mut v);
        for i in 0..6 {
            assert!((v[i] - x[i]).abs() < 1e-11);
        }
    }

    #[test]
    fn an_indefinite_block_is_refused() {
        let mut a = spd();
        a[3 * 6 + 3] = -5.0;
        assert!(!cholesky_in_place(&mut a));
    }
}
