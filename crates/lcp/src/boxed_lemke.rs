//! An exact solve of a boxed LCP, friction coupling included, by rewriting it as a standard
//! (or, with unbounded rows, mixed) LCP for Lemke's algorithm.
//!
//! Box friction with `|x_t| <= mu x_n` (the bound taken from the *solution's* normal force)
//! is not a boxed LCP with fixed bounds, so pivoting on fixed bounds can only approach it.
//! Written with `x_t = p_t - m_t` and a slack `sigma_t` (the sliding speed along `t`), it is
//! the standard LCP of the polygonal-cone formulation (Anitescu and Potra 1997; Drake's
//! `ConstraintSolver`, seed 004), which Lemke's method solves:
//!
//! ```text
//! w_t + sigma_t >= 0            _|_ p_t >= 0
//! -w_t + sigma_t >= 0           _|_ m_t >= 0
//! mu x_n - p_t - m_t >= 0       _|_ sigma_t >= 0
//! ```
//!
//! Other rows map as: `[0, inf)` and `[lo, inf)`: `x = lo + z`, `w >= 0 _|_ z`;
//! `(-inf, hi]`: `x = hi - z`, `-w >= 0 _|_ z`; `[lo, hi]`: `x = lo + z` with
//! `w + sigma >= 0 _|_ z`, `hi - lo - z >= 0 _|_ sigma`; `lo = hi`: a constant; unbounded
//! rows: free variables eliminated by [`crate::mlcp`].
//!
//! The price is size (a friction row becomes three variables) and Lemke's dense pivots, so
//! this is the exact reference and the last resort of [`crate::dantzig`], not the fast path.

use crate::error::LcpError;
use crate::lemke::{solve_lemke, LemkeOptions};
use crate::matrix::DenseMatrix;
use crate::mlcp::{solve_mlcp, Mlcp};
use crate::problem::{BoxedLcp, StandardLcp};
use crate::report::{SolveReport, Status};
use crate::residual::boxed_residual;

/// Residual below which the recovered solution counts as solved.
const SOLVED_RESIDUAL: f64 = 1e-9;

/// How a row of the boxed problem is represented.
#[derive(Clone, Copy, Debug)]
enum RowKind {
    /// An unbounded row (one of the first `nub`, or `lo = -inf`, `hi = inf`): a free variable.
    Free,
    /// `lo = hi`: a constant.
    Pinned,
    /// `x = lo + z`, `w >= 0 _|_ z`.
    Lower { z: usize },
    /// `x = hi - z`, `-w >= 0 _|_ z`.
    Upper { z: usize },
    /// `x = lo + z`, `w + sigma >= 0 _|_ z`, `hi - lo - z >= 0 _|_ sigma`.
    Boxed { z: usize, sigma: usize },
    /// `x = p - m` with the three rows of the module docs.
    Friction { p: usize, m: usize, sigma: usize },
}

/// Solves `problem` exactly (to Lemke's tolerance) with friction bounds taken from the
/// solution's own normal forces.
///
/// # Errors
/// A malformed problem ([`BoxedLcp::validate`]) or options, or a friction row whose normal
/// row can be negative (`lo < 0`), for which `mu |x_n|` is not linear:
/// [`LcpError::BadOption`] naming `findex`.
pub fn solve_boxed_lemke(
    problem: &BoxedLcp,
    options: &LemkeOptions,
) -> Result<SolveReport, LcpError> {
    problem.validate()?;
    let n = problem.len();
    let (kinds, ny, nu) = layout(problem)?;
    // x = x0 + T y (+ u on free rows); column c of T has one entry tau_c at row owner_c.
    let mut x0 = vec![0.0; n];
    let mut owner: Vec<Option<(usize, f64)>> = vec![None; ny];
    for (i, kind) in kinds.iter().enumerate() {
        match *kind {
            RowKind::Free => {}
            RowKind::Pinned => x0[i] = problem.lo[i],
            RowKind::Lower { z } => {
                x0[i] = problem.lo[i];
                owner[z] = Some((i, 1.0));
            }
            RowKind::Upper { z } => {
                x0[i] = problem.hi[i];
                owner[z] = Some((i, -1.0));
            }
            RowKind::Boxed { z, .. } => {
                x0[i] = problem.lo[i];
                owner[z] = Some((i, 1.0));
            }
            RowKind::Friction { p, m, .. } => {
                owner[p] = Some((i, 1.0));
                owner[m] = Some((i, -1.0));
            }
        }
    }
    let free_rows: Vec<usize> = (0..n)
        .filter(|&i| matches!(kinds[i], RowKind::Free))
        .collect();
    // w(y, u) = (A T) y + A_F u + (A x0 - b).
    let mut w0 = problem.a.mul_vec(&x0);
    for (wi, bi) in w0.iter_mut().zip(&problem.b) {
        *wi -= bi;
    }
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
            RowKind::Free | RowKind::Pinned => {}
            RowKind::Lower { z } => add_w(&mut x3, &mut x2, &mut x4, z, i, 1.0),
            RowKind::Upper { z } => add_w(&mut x3, &mut x2, &mut x4, z, i, -1.0),
            RowKind::Boxed { z, sigma } => {
                add_w(&mut x3, &mut x2, &mut x4, z, i, 1.0);
                x3[(z, sigma)] += 1.0;
                x3[(sigma, z)] -= 1.0;
                x4[sigma] += problem.hi[i] - problem.lo[i];
            }
            RowKind::Friction { p, m, sigma } => {
                add_w(&mut x3, &mut x2, &mut x4, p, i, 1.0);
                add_w(&mut x3, &mut x2, &mut x4, m, i, -1.0);
                x3[(p, sigma)] += 1.0;
                x3[(m, sigma)] += 1.0;
                x3[(sigma, p)] -= 1.0;
                x3[(sigma, m)] -= 1.0;
                // mu x_n = mu (x0_n + T_n y): the normal row's own variable, if any.
                let j = problem.findex[i].expect("friction row has a findex");
                let mu = problem.hi[i];
                x4[sigma] += mu * x0[j];
                if let RowKind::Lower { z } | RowKind::Boxed { z, .. } = kinds[j] {
                    x3[(sigma, z)] += mu;
                }
            }
        }
    }

    let (y, u, lemke_report) = if nu == 0 {
        let report = solve_lemke(&StandardLcp::new(x3, x4), options)?;
        (report.x.clone(), Vec::new(), report)
    } else {
        let mut a_ff = DenseMatrix::zeros(nu, nu);
        let mut x1 = DenseMatrix::zeros(nu, ny);
        let mut a_vector = vec![0.0; nu];
        for (r, &i) in free_rows.iter().enumerate() {
            for (f, &fi) in free_rows.iter().enumerate() {
                a_ff[(r, f)] = problem.a[(i, fi)];
            }
            for c in 0..ny {
                x1[(r, c)] = at(i, c);
            }
            a_vector[r] = w0[i];
        }
        let mlcp = Mlcp {
            a_matrix: a_ff,
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
    let residual = boxed_residual(problem, &x, &w);
    let status = if x.iter().chain(&w).any(|v| !v.is_finite()) {
        Status::NonFinite
    } else if !lemke_report.status.is_solved() {
        lemke_report.status
    } else if residual.max() <= SOLVED_RESIDUAL {
        Status::Solved
    } else {
        Status::IterationLimit
    };
    Ok(SolveReport {
        x,
        w,
        status,
        iterations: lemke_report.iterations,
        residual,
        fell_back: false,
    })
}

/// Assigns variables to rows; returns the kinds, the number of constrained variables and
/// the number of free ones.
fn layout(problem: &BoxedLcp) -> Result<(Vec<RowKind>, usize, usize), LcpError> {
    let n = problem.len();
    let mut kinds = Vec::with_capacity(n);
    let (mut ny, mut nu) = (0, 0);
    let mut next = |k: usize| {
        let first = ny;
        ny += k;
        first
    };
    for i in 0..n {
        let (lo, hi) = (problem.lo[i], problem.hi[i]);
        let kind = if i < problem.nub {
            nu += 1;
            RowKind::Free
        } else if let Some(j) = problem.findex[i] {
            if problem.findex[j].is_none() && j >= problem.nub && problem.lo[j] >= 0.0 {
                let first = next(3);
                RowKind::Friction {
                    p: first,
                    m: first + 1,
                    sigma: first + 2,
                }
            } else {
                return Err(LcpError::BadOption {
                    option: "findex",
                    reason: format!(
                        "row {i} couples to row {j}, which can be negative (lo < 0 or unbounded); \
                         the exact Lemke reformulation needs normal rows with lo >= 0"
                    ),
                });
            }
        } else if lo == f64::NEG_INFINITY && hi == f64::INFINITY {
            nu += 1;
            RowKind::Free
        } else if lo == hi {
            RowKind::Pinned
        } else if lo.is_finite() && hi.is_finite() {
            let first = next(2);
            RowKind::Boxed {
                z: first,
                sigma: first + 1,
            }
        } else if lo.is_finite() {
            RowKind::Lower { z: next(1) }
        } else {
            RowKind::Upper { z: next(1) }
        };
        kinds.push(kind);
    }
    Ok((kinds, ny, nu))
}
