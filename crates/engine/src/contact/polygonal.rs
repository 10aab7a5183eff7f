//! The polygonal friction cone solved by Lemke's method (seed 004: Drake's
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
//! [`stiction_lcp::mlcp`] (the MLCP-to-LCP reduction of shared/DESIGN.md).

use stiction_lcp::lemke::{solve_lemke, LemkeOptions};
use stiction_lcp::mlcp::{solve_mlcp, Mlcp};
use stiction_lcp::{BoxedLcp, DenseMatrix, LcpError, SolveReport, StandardLcp, Status};

#[derive(Clone, Copy, Debug)]
enum Kind {
    Free,
    Pinned,
    Lower { z: usize },
    Upper { z: usize },
    Boxed { z: usize, sigma: usize },
    Edge { z: usize, normal: usize },
}

/// Solves `problem` with every friction row read as a polygon edge of its normal's cone.
///
/// The report's `x` are the row forces, `w = A x - b`, and its residual is Lemke's on the
/// reduced LCP (the polygonal conditions above are not a boxed LCP, so
/// [`stiction_lcp::boxed_residual`] does not apply).
///
/// # Errors
/// A malformed problem, or an edge row whose normal row can be negative.
pub(crate) fn solve(problem: &BoxedLcp, options: &LemkeOptions) -> Result<SolveReport, LcpError> {
    problem.validate()?;
    let n = problem.len();
    let mut kinds = Vec::with_capacity(n);
    let mut slack = vec![None; n];
    let mut mu = vec![0.0; n];
    let mut edges_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    let (mut ny, mut nu) = (0usize, 0usize);
    let mut next = |count: usize| {
        let first = ny;
        ny += count;
        first
    };
    for i in 0..n {
        let (lo, hi) = (problem.lo[i], problem.hi[i]);
        let kind = if let Some(j) = problem.findex[i] {
            if j < problem.nub || problem.findex[j].is_some() || problem.lo[j] < 0.0 {
                return Err(LcpError::BadOption {
                    option: "findex",
                    reason: format!(
                        "edge row {i} couples to row {j}, which can be negative; a friction \
                         cone needs a normal row with lo >= 0"
                    ),
                });
            }
            edges_of[j].push(i);
            mu[j] = hi;
            Kind::Edge {
                z: next(1),
                normal: j,
            }
        } else if i < problem.nub || (lo == f64::NEG_INFINITY && hi == f64::INFINITY) {
            nu += 1;
            Kind::Free
        } else if lo == hi {
            Kind::Pinned
        } else if lo.is_finite() && hi.is_finite() {
            let z = next(2);
            Kind::Boxed { z, sigma: z + 1 }
        } else if lo.is_finite() {
            Kind::Lower { z: next(1) }
        } else {
            Kind::Upper { z: next(1) }
        };
        kinds.push(kind);
    }
    for j in 0..n {
        if !edges_of[j].is_empty() {
            slack[j] = Some(next(1));
        }
    }

    // x = x0 + T y (+ u on free rows); column c of T has one entry tau at row owner[c].
    let mut x0 = vec![0.0; n];
    let mut owner: Vec<Option<(usize, f64)>> = vec![None; ny];
    for (i, kind) in kinds.iter().enumerate() {
        match *kind {
            Kind::Free => {}
            Kind::Pinned => x0[i] = problem.lo[i],
            Kind::Lower { z } | Kind::Boxed { z, .. } => {
                x0[i] = problem.lo[i];
                owner[z] = Some((i, 1.0));
            }
            Kind::Upper { z } => {
                x0[i] = problem.hi[i];
                owner[z] = Some((i, -1.0));
            }
            Kind::Edge { z, .. } => owner[z] = Some((i, 1.0)),
        }
    }
    let free_rows: Vec<usize> = (0..n).filter(|&i| matches!(kinds[i], Kind::Free)).collect();
    let w0 = problem.slack(&x0);
    let at = |i: usize, c: usize| owner[c].map_or(0.0, |(k, tau)| tau * problem.a[(i, k)]);

    let mut x3 = DenseMatrix::zeros(ny, ny);
    let mut x2 = DenseMatrix::zeros(ny, nu);
    let mut x4 = vec![0.0; ny];
    // Adds `sign * w_i` to constrained row r.
    let add_w = |x3: &mut DenseMatrix, x2: &mut DenseMatrix, x4: &mut [f64], r, i, sign| {
        for c in 0..ny {
            x3[(r, c)] += sign * at(i, c);
        }
        for (f, &fi) in free_rows.iter().enumerate() {
            x2[(r, f)] += sign * problem.a[(i, fi)];
        }
        x4[r] += sign * w0[i];
    };
    for (i, kind) in kinds.iter().enumerate() {
        match *kind {
            Kind::Free | Kind::Pinned => {}
            Kind::Lower { z } => add_w(&mut x3, &mut x2, &mut x4, z, i, 1.0),
            Kind::Upper { z } => add_w(&mut x3, &mut x2, &mut x4, z, i, -1.0),
            Kind::Boxed { z, sigma } => {
                add_w(&mut x3, &mut x2, &mut x4, z, i, 1.0);
                x3[(z, sigma)] += 1.0;
                x3[(sigma, z)] -= 1.0;
                x4[sigma] += problem.hi[i] - problem.lo[i];
            }
            Kind::Edge { z, normal } => {
                add_w(&mut x3, &mut x2, &mut x4, z, i, 1.0);
                if let Some(s) = slack[normal] {
                    x3[(z, s)] += 1.0;
                }
            }
        }
    }
    for j in 0..n {
        let Some(s) = slack[j] else {
            continue;
        };
        // mu x_j - sum_e x_e >= 0 with x_j = x0_j + (its own variable).
        x4[s] += mu[j] * x0[j];
        if let Kind::Lower { z } | Kind::Boxed { z, .. } = kinds[j] {
            x3[(s, z)] += mu[j];
        }
        for &e in &edges_of[j] {
            if let Kind::Edge { z, .. } = kinds[e] {
                x3[(s, z)] -= 1.0;
            }
        }
    }

    let (y, u, lemke) = if nu == 0 {
        let report = solve_lemke(&StandardLcp::new(x3, x4), options)?;
        (report.x.clone(), Vec::new(), report)
    } else {
        let mut a_matrix = DenseMatrix::zeros(nu, nu);
        let mut x1 = DenseMatrix::zeros(nu, ny);
        let mut a_vector = vec![0.0; nu];
        for (r, &i) in free_rows.iter().enumerate() {
            for (f, &fi) in free_rows.iter().enumerate() {
                a_matrix[(r, f)] = problem.a[(i, fi)];
            }
            for c in 0..ny {
                x1[(r, c)] = at(i, c);
            }
            a_vector[r] = w0[i];
        }
        let mlcp = Mlcp {
            a_matrix,
            x1,
            x2,
            x3,
            a_vector,
            x4,
        };
        let solution = solve_mlcp(&mlcp, options)?;
        (solution.y, solution.u, solution.report)
    };

    let mut x = x0;
    for (c, yc) in y.iter().enumerate() {
        if let Some((k, tau)) = owner[c] {
            x[k] += tau * yc;
        }
    }
    for (f, &fi) in free_rows.iter().enumerate() {
        x[fi] = u[f];
    }
    let w = problem.slack(&x);
    let status = if x.iter().chain(&w).any(|v| !v.is_finite()) {
        Status::NonFinite
    } else {
        lemke.status
    };
    Ok(SolveReport {
        x,
        w,
        status,
        iterations: lemke.iterations,
        residual: lemke.residual,
        fell_back: false,
    })
}

#[cfg(test)]
mod tests {
    //! One particle on a plane with identity `A` (unit mass, no lever arms): rows
    //! (normal, 8 edges). Hand solutions: pushed along an edge below the friction limit it
    //! sticks with the push cancelled exactly; above it, it slides with friction `mu f_n`
    //! on the edge most opposed to the motion.

    use super::*;

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
