//! The polygonal friction cone solved by Lemke's method (docs/dynamics.md#friction-models; Drake's
//! `ConstraintSolver`, after Anitescu and Potra 1997).
//!
//! An island's boxed LCP `A x = b + w` is given with, for each contact, a normal row `n`
//! (`x_n >= 0`) and its `k` edge rows `e`, each a unit direction `d_e` of the polygon with
//! `findex_e = n` and `hi_e = mu`. The edge forces are non-negative and share one slack
//! `sigma_n` (the sliding speed, in the units of `w`):
//!
//! ```text
//! w_n             >= 0   _|_  x_n     >= 0
//! w_e + sigma_n   >= 0   _|_  x_e     >= 0      (each edge e of n)
//! mu x_n - sum_e x_e >= 0 _|_  sigma_n >= 0
//! ```
//!
//! Sticking: `sigma_n = 0`, every `w_e >= 0` and, with `d_e` and `-d_e` both present (or
//! the polygon closing around the origin), the tangential velocity is zero. Sliding:
//! `sigma_n > 0`, the edge forces sum to `mu x_n` and only edges most opposed to the
//! sliding velocity (`w_e = -sigma_n`, the minimum) carry force: maximal dissipation over
//! the polygon. The matrix `[[A_NN, A_NE, 0], [A_EN, A_EE, E], [mu, -E^T, 0]]` is
//! copositive, so Lemke's method ends with a solution (Anitescu and Potra).
//!
//! Other rows map as in [`stiction_lcp::boxed_lemke`]: `[lo, inf)` to `x = lo + z`,
//! `(-inf, hi]` to `x = hi - z`, `[lo, hi]` to `x = lo + z` with a slack, `lo = hi` to a
//! constant, and unbounded rows (joints) to free variables eliminated by
//! [`stiction_lcp::mlcp`] (the MLCP-to-LCP reduction of docs/dynamics.md#the-standard-lcp-and-the-mlcp-reduction).

use stiction_lcp::boxed_lemke::solve_polygonal_lemke;
use stiction_lcp::lemke::LemkeOptions;
use stiction_lcp::{BoxedLcp, LcpError, SolveReport};

/// Solves `problem` with every friction row read as a polygon edge of its normal's cone.
///
/// The report's `x` are the row forces, `w = A x - b`, and its residual is Lemke's on the
/// reduced LCP (the polygonal conditions above are not a boxed LCP, so
/// [`stiction_lcp::boxed_residual`] does not apply). The reformulation itself is
/// [`solve_polygonal_lemke`], which shares its assembly with the box-friction one.
///
/// # Errors
/// A malformed problem, or an edge row whose normal row can be negative.
pub(crate) fn solve(problem: &BoxedLcp, options: &LemkeOptions) -> Result<SolveReport, LcpError> {
    solve_polygonal_lemke(problem, options)
}

#[cfg(test)]
mod tests {
    //! One particle on a plane with identity `A` (unit mass, no lever arms): rows
    //! (normal, 8 edges). Hand solutions: pushed along an edge below the friction limit it
    //! sticks with the push cancelled exactly; above it, it slides with friction `mu f_n`
    //! on the edge most opposed to the motion.

    use super::*;
    use stiction_lcp::DenseMatrix;

    fn particle(push: [f64; 2], mu: f64, edges: usize) -> (BoxedLcp, Vec<[f64; 2]>) {
        let n = edges + 1;
        let mut a = DenseMatrix::zeros(n, n);
        let dirs: Vec<[f64; 2]> = (0..edges)
            .map(|j| {
                let t = std::f64::consts::TAU * j as f64 / edges as f64;
                [t.cos(), t.sin()]
            })
            .collect();
        a[(0, 0)] = 1.0;
        for (p, dp) in dirs.iter().enumerate() {
            for (q, dq) in dirs.iter().enumerate() {
                a[(p + 1, q + 1)] = dp[0] * dq[0] + dp[1] * dq[1];
            }
        }
        // b = -(velocity without constraint forces): gravity pulls in (-1 along the
        // normal), the push moves along the tangent plane.
        let mut b = vec![0.0; n];
        b[0] = 9.81;
        for (p, dp) in dirs.iter().enumerate() {
            b[p + 1] = -(push[0] * dp[0] + push[1] * dp[1]);
        }
        let mut problem = BoxedLcp::new(a, b);
        problem.lo[0] = 0.0;
        for e in 1..n {
            problem.findex[e] = Some(0);
            problem.lo[e] = -mu;
            problem.hi[e] = mu;
        }
        (problem, dirs)
    }

    fn tangential(x: &[f64], dirs: &[[f64; 2]]) -> [f64; 2] {
        let mut f = [0.0; 2];
        for (xe, d) in x[1..].iter().zip(dirs) {
            f[0] += xe * d[0];
            f[1] += xe * d[1];
        }
        f
    }

    #[test]
    fn sticks_below_the_limit_and_slides_at_mu_along_an_edge() {
        let mu = 0.5;
        // Below mu g: the friction force cancels the push exactly (w_t = 0).
        let (problem, dirs) = particle([3.0, 0.0], mu, 8);
        let report = solve(&problem, &LemkeOptions::default()).unwrap();
        assert!(report.status.is_solved(), "{:?}", report.status);
        let f = tangential(&report.x, &dirs);
        assert!((report.x[0] - 9.81).abs() < 1e-9);
        assert!((f[0] + 3.0).abs() < 1e-9 && f[1].abs() < 1e-9, "{f:?}");
        // Above mu g along an edge: friction mu f_n against the motion.
        let (problem, dirs) = particle([0.0, 8.0], mu, 8);
        let report = solve(&problem, &LemkeOptions::default()).unwrap();
        assert!(report.status.is_solved());
        let f = tangential(&report.x, &dirs);
        assert!(
            f[0].abs() < 1e-9 && (f[1] + mu * 9.81).abs() < 1e-9,
            "{f:?}"
        );
        assert!(report.x[1..].iter().all(|&v| v >= -1e-12));
        // Between two edges of a 4-edge cone: the polygon's face bounds the force
        // to mu f_n cos(pi / 4) along the motion.
        let (problem, dirs) = particle([8.0, 8.0], mu, 4);
        let report = solve(&problem, &LemkeOptions::default()).unwrap();
        let f = tangential(&report.x, &dirs);
        let along = -(f[0] + f[1]) / 2f64.sqrt();
        assert!((along - mu * 9.81 * (std::f64::consts::FRAC_PI_4).cos()).abs() < 1e-9);
    }
}
