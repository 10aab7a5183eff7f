//! An exact solve of a boxed LCP, friction coupling included, by rewriting it as a standard
//! (or, with unbounded rows, mixed) LCP for Lemke's algorithm.
//!
//! Box friction with `|x_t| <= mu x_n` (the bound taken from the *solution's* normal force)
//! is not a boxed LCP with fixed bounds, so pivoting on fixed bounds can only approach it.
//! Written with `x_t = p_t - m_t` and a slack `sigma_t` (the sliding speed along `t`), it is
//! the standard LCP of the polygonal-cone formulation (Anitescu and Potra 1997; Drake's
//! `ConstraintSolver`), which Lemke's method solves:
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
//!
//! [`solve_polygonal_lemke`] reads the friction rows differently, as the `k` edges of a
//! polygonal cone (Drake's): each edge `e` of normal `n` is a unit direction with a
//! non-negative force, and the edges of one normal share one slack `sigma_n`:
//!
//! ```text
//! w_e + sigma_n >= 0           _|_ x_e >= 0      (each edge e of n)
//! mu x_n - sum_e x_e >= 0      _|_ sigma_n >= 0
//! ```
//!
//! Both readings share the assembly below; only the friction rows differ.

use crate::error::LcpError;
use crate::lemke::{solve_lemke, LemkeOptions};
use crate::matrix::DenseMatrix;
use crate::mlcp::{solve_mlcp, Mlcp};
use crate::problem::{BoxedLcp, StandardLcp};
use crate::report::{SolveReport, Status};
use crate::residual::boxed_residual;

/// Residual below which the recovered solution counts as solved.
const SOLVED_RESIDUAL: f64 = 1e-9;

/// How the friction rows (`findex` set) are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FrictionReading {
    /// Box friction: `|x_t| <= mu x_n` per row.
    Box,
    /// Polygon edges: `x_e >= 0`, `sum_e x_e <= mu x_n` per normal.
    PolygonEdges,
}

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
    /// Box friction: `x = p - m` with the three rows of the module docs.
    Friction { p: usize, m: usize, sigma: usize },
    /// A polygon edge of normal `normal`: `x = z >= 0`.
    Edge { z: usize, normal: usize },
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
    let (x, w, lemke_report) = solve_reformulated(problem, FrictionReading::Box, options)?;
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

/// Solves `problem` with every friction row read as a polygon edge of its normal's cone
/// (module docs): row `e` with `findex_e = n` is a unit direction of the cone, `hi_e` is `mu`.
///
/// The report's `x` are the row forces, `w = A x - b`; its status and residual are Lemke's
/// on the reduced LCP (the polygonal conditions are not a boxed LCP, so
/// [`boxed_residual`] does not apply).
///
/// # Errors
/// As [`solve_boxed_lemke`].
pub fn solve_polygonal_lemke(
    problem: &BoxedLcp,
    options: &LemkeOptions,
) -> Result<SolveReport, LcpError> {
    let (x, w, lemke_report) = solve_reformulated(problem, FrictionReading::PolygonEdges, options)?;
    let status = if x.iter().chain(&w).any(|v| !v.is_finite()) {
        Status::NonFinite
    } else {
        lemke_report.status
    };
    Ok(SolveReport {
        x,
        w,
        status,
        iterations: lemke_report.iterations,
        residual: lemke_report.residual,
        fell_back: false,
    })
}

/// Rewrites `problem` as a (mixed) LCP for the given friction reading, solves it with Lemke,
/// and returns the row forces `x`, `w = A x - b` and Lemke's report.
fn solve_reformulated(
    problem: &BoxedLcp,
    reading: FrictionReading,
    options: &LemkeOptions,
) -> Result<(Vec<f64>, Vec<f64>, SolveReport), LcpError> {
    problem.validate()?;
    let n = problem.len();
    let layout = layout(problem, reading)?;
    let (kinds, ny, nu) = (&layout.kinds, layout.ny, layout.nu);
    // x = x0 + T y (+ u on free rows); column c of T has one entry tau_c at row owner_c.
    let mut x0 = vec![0.0; n];
    let mut owner: Vec<Option<(usize, f64)>> = vec![None; ny];
    for (i, kind) in kinds.iter().enumerate() {
        match *kind {
            RowKind::Free => {}
            RowKind::Pinned => x0[i] = problem.lo[i],
            RowKind::Lower { z } | RowKind::Boxed { z, .. } => {
                x0[i] = problem.lo[i];
                owner[z] = Some((i, 1.0));
            }
            RowKind::Upper { z } => {
                x0[i] = problem.hi[i];
                owner[z] = Some((i, -1.0));
            }
            RowKind::Friction { p, m, .. } => {
                owner[p] = Some((i, 1.0));
                owner[m] = Some((i, -1.0));
            }
            RowKind::Edge { z, .. } => owner[z] = Some((i, 1.0)),
        }
    }
    let free_rows: Vec<usize> = (0..n)
        .filter(|&i| matches!(kinds[i], RowKind::Free))
        .collect();
    // w(y, u) = (A T) y + A_F u + (A x0 - b).
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
    // `mu x_n` into constrained row r: the normal row's constant and its own variable.
    let add_mu_normal = |x3: &mut DenseMatrix, x4: &mut [f64], r: usize, j: usize, mu: f64| {
        x4[r] += mu * x0[j];
        if let RowKind::Lower { z } | RowKind::Boxed { z, .. } = kinds[j] {
            x3[(r, z)] += mu;
        }
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
                let j = problem.findex[i].expect("friction row has a findex");
                add_mu_normal(&mut x3, &mut x4, sigma, j, problem.hi[i]);
            }
            RowKind::Edge { z, normal } => {
                add_w(&mut x3, &mut x2, &mut x4, z, i, 1.0);
                if let Some(s) = layout.cone_slack[normal] {
                    x3[(z, s)] += 1.0;
                }
            }
        }
    }
    // Polygonal cones: mu x_n - sum_e x_e >= 0 per normal with edges.
    for (j, slack) in layout.cone_slack.iter().enumerate() {
        if let Some(s) = *slack {
            add_mu_normal(&mut x3, &mut x4, s, j, layout.cone_mu[j]);
        }
    }
    for kind in kinds {
        if let RowKind::Edge { z, normal } = *kind {
            if let Some(s) = layout.cone_slack[normal] {
                x3[(s, z)] -= 1.0;
            }
        }
    }

    let (y, u, lemke_report) = if nu == 0 {
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
    Ok((x, w, lemke_report))
}

/// The variables assigned to rows.
struct Layout {
    kinds: Vec<RowKind>,
    /// Number of constrained variables.
    ny: usize,
    /// Number of free variables.
    nu: usize,
    /// Per normal row with polygon edges: the index of its slack `sigma_n`.
    cone_slack: Vec<Option<usize>>,
    /// Per normal row with polygon edges: its friction coefficient (from the edges' `hi`).
    cone_mu: Vec<f64>,
}

/// Assigns variables to rows.
fn layout(problem: &BoxedLcp, reading: FrictionReading) -> Result<Layout, LcpError> {
    let n = problem.len();
    let mut kinds = Vec::with_capacity(n);
    let mut cone_slack = vec![None; n];
    let mut cone_mu = vec![0.0; n];
    let mut has_edges = vec![false; n];
    let (mut ny, mut nu) = (0, 0);
    let mut next = |k: usize| {
        let first = ny;
        ny += k;
        first
    };
    for i in 0..n {
        let (lo, hi) = (problem.lo[i], problem.hi[i]);
        let kind = if let Some(j) = problem.findex[i] {
            if problem.findex[j].is_some() || j < problem.nub || problem.lo[j] < 0.0 {
                return Err(LcpError::BadOption {
                    option: "findex",
                    reason: format!(
                        "row {i} couples to row {j}, which can be negative (lo < 0 or unbounded); \
                         the exact Lemke reformulation needs normal rows with lo >= 0"
                    ),
                });
            }
            match reading {
                FrictionReading::Box => {
                    let first = next(3);
                    RowKind::Friction {
                        p: first,
                        m: first + 1,
                        sigma: first + 2,
                    }
                }
                FrictionReading::PolygonEdges => {
                    has_edges[j] = true;
                    cone_mu[j] = hi;
                    RowKind::Edge {
                        z: next(1),
                        normal: j,
                    }
                }
            }
        } else if i < problem.nub || (lo == f64::NEG_INFINITY && hi == f64::INFINITY) {
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
    // Cone slacks come after every row's own variables.
    for j in 0..n {
        if has_edges[j] {
            cone_slack[j] = Some(next(1));
        }
    }
    Ok(Layout {
        kinds,
        ny,
        nu,
        cone_slack,
        cone_mu,
    })
}
