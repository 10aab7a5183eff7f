//! Restarted GMRES for the clamped rows' equations when sliding friction is coupled to its
//! normal force.
//!
//! With a friction row at a bound, `x_t = +-mu x_n` moves with the clamped normal force, so
//! the clamped rows' system `(A x)_F = b_F` is `K x_F = c` with `K = A_FF + A_FB S`
//! (`S` picks `+-mu` of the normal): not symmetric, but only a low-rank change of the
//! symmetric `A_FF` the body-space Cholesky solves. GMRES preconditioned (on the right) by
//! that solve converges in about as many iterations as there are independent coupling
//! directions, instead of the fixed-point iteration `x <- x + A_FF^-1 (c - K x)` that
//! diverges when friction feeds back into the normal forces strongly enough.

/// Krylov vectors and the small least-squares problem, kept between solves.
#[derive(Debug, Clone, Default)]
pub(crate) struct Gmres {
    basis: Vec<Vec<f64>>,
    /// Hessenberg matrix, column `k` at `k * (restart + 1)`.
    hessenberg: Vec<f64>,
    cosines: Vec<f64>,
    sines: Vec<f64>,
    rhs: Vec<f64>,
    work: Vec<f64>,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl Gmres {
    /// Finds `u` with `|T u - r| <= tolerance |r|` (2-norms) for the operator `apply`
    /// (`apply(v, out)`: `out = T v`), at most `restart` vectors per cycle and `cycles`
    /// cycles; adds `u` to `solution`. Returns whether the tolerance was met.
    pub(crate) fn solve(
        &mut self,
        mut apply: impl FnMut(&[f64], &mut [f64]),
        r: &[f64],
        solution: &mut [f64],
        tolerance: f64,
        restart: usize,
        cycles: usize,
    ) -> bool {
        let n = r.len();
        if self.basis.len() < restart + 1 {
            self.basis.resize_with(restart + 1, Vec::new);
        }
        for v in &mut self.basis[..=restart] {
            v.resize(n, 0.0);
        }
        self.hessenberg.resize((restart + 1) * restart, 0.0);
        self.cosines.resize(restart, 0.0);
        self.sines.resize(restart, 0.0);
        self.rhs.resize(restart + 1, 0.0);
        self.work.resize(n, 0.0);
        let target = tolerance * dot(r, r).sqrt();
        // The residual of the current `u` (initially zero): r - T u.
        self.work.copy_from_slice(r);
        for _ in 0..cycles {
            let beta = dot(&self.work, &self.work).sqrt();
            if !beta.is_finite() {
                return false;
            }
            if beta <= target {
                return true;
            }
            for (v, w) in self.basis[0].iter_mut().zip(&self.work) {
                *v = w / beta;
            }
            self.rhs.fill(0.0);
            self.rhs[0] = beta;
            let mut used = 0;
            for k in 0..restart {
                let (done, rest) = self.basis.split_at_mut(k + 1);
                let next = &mut rest[0];
                apply(&done[k], next);
                let column = &mut self.hessenberg[k * (restart + 1)..(k + 1) * (restart + 1)];
                // Modified Gram-Schmidt.
                for (i, v) in done.iter().enumerate() {
                    let h = dot(next, v);
                    column[i] = h;
                    for (x, y) in next.iter_mut().zip(v) {
                        *x -= h * y;
                    }
                }
                let norm = dot(next, next).sqrt();
                column[k + 1] = norm;
                if norm > 0.0 {
                    for x in next.iter_mut() {
                        *x /= norm;
                    }
                }
                for i in 0..k {
                    let (c, s) = (self.cosines[i], self.sines[i]);
                    let (a, b) = (column[i], column[i + 1]);
                    column[i] = c * a + s * b;
                    column[i + 1] = -s * a + c * b;
                }
                let (a, b) = (column[k], column[k + 1]);
                let radius = a.hypot(b);
                let (c, s) = if radius > 0.0 {
                    (a / radius, b / radius)
                } else {
                    (1.0, 0.0)
                };
                self.cosines[k] = c;
                self.sines[k] = s;
                column[k] = radius;
                column[k + 1] = 0.0;
                self.rhs[k + 1] = -s * self.rhs[k];
                self.rhs[k] *= c;
                used = k + 1;
                if self.rhs[k + 1].abs() <= target || norm == 0.0 {
                    break;
                }
            }
            // Back substitution for y, then u += V y.
            for i in (0..used).rev() {
                let mut s = self.rhs[i];
                for j in i + 1..used {
                    s -= self.hessenberg[j * (restart + 1) + i] * self.rhs[j];
                }
                let d = self.hessenberg[i * (restart + 1) + i];
                self.rhs[i] = if d != 0.0 { s / d } else { 0.0 };
            }
            for (i, v) in self.basis[..used].iter().enumerate() {
                let y = self.rhs[i];
                for (u, x) in solution.iter_mut().zip(v) {
                    *u += y * x;
                }
            }
            // The true residual for the next cycle.
            let (work, basis) = (&mut self.work, &mut self.basis);
            apply(solution, &mut basis[restart]);
            for ((w, r), t) in work.iter_mut().zip(r).zip(&basis[restart]) {
                *w = r - t;
            }
        }
        let left = dot(&self.work, &self.work).sqrt();
        left.is_finite() && left <= target
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_non_symmetric_system() {
        // Tridiagonal, non-symmetric, diagonally dominant.
        let n = 40;
        let apply = |v: &[f64], out: &mut [f64]| {
            for i in 0..n {
                let left = if i > 0 { v[i - 1] } else { 0.0 };
                let right = if i + 1 < n { v[i + 1] } else { 0.0 };
                out[i] = 4.0 * v[i] - 1.5 * left + 0.5 * right;
            }
        };
        let truth: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let mut r = vec![0.0; n];
        apply(&truth, &mut r);
        let mut u = vec![0.0; n];
        let mut g = Gmres::default();
        assert!(g.solve(apply, &r, &mut u, 1e-12, 10, 20));
        for (a, b) in u.iter().zip(&truth) {
            assert!((a - b).abs() < 1e-10, "{a} {b}");
        }
    }
}
