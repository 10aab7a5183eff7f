//! Lemke's complementary pivoting for the standard LCP `w = M z + q`, `0 <= z _|_ w >= 0`.
//!
//! The problem is augmented with an artificial variable `z0` and a covering vector `d > 0`:
//!
//! ```text
//! w - M z - d z0 = q,    w, z, z0 >= 0,    w . z = 0
//! ```
//!
//! Starting from the basis `{w}` (feasible once `z0` is raised to `max_i(-q_i / d_i)`), each
//! pivot brings in the complement of the variable that just left, until `z0` itself leaves
//! (a solution) or the entering column has no positive entry (a secondary ray). The method
//! always ends with a solution for P-matrices; for copositive-plus matrices (which include
//! the positive semi-definite ones) a ray proves that no solution exists; Anitescu and Potra
//! (1997) showed that it solves the polygonal friction-cone LCP of Drake's formulation
//! (its `ConstraintSolver`), whose matrix is copositive. Outside these classes a ray says
//! nothing either way.
//!
//! # Implementation
//!
//! The basis inverse `B^-1` is kept explicitly (dense, `n x n`) and updated by a
//! Gauss-Jordan step per pivot, `O(n^2)`. All storage is allocated once per solve, before the
//! first pivot. The leaving row is chosen by the lexicographic minimum-ratio rule over the
//! rows `(x_B, B^-1)` divided by the entering column: those rows are linearly independent, so
//! the minimum is unique and the algorithm cannot cycle on degenerate problems. When `z0`
//! ties for the minimum ratio it is chosen, which ends the solve at once.
//!
//! # Tolerances
//!
//! Every tolerance is relative to the size of the numbers it judges, so multiplying `M`,
//! `q` or `d` by a constant changes nothing. With `tol = LemkeOptions::zero_tolerance` (default `1e-11`):
//! - an entry `a_i` of the entering column `a = B^-1 c` with
//!   `|a_i| <= tol * max(sum_k |B^-1_ik c_k|, max_k |B^-1_ik| max_k |c_k|)` is set to
//!   exactly zero: it is no larger than the roundoff of its own dot product or of the row
//!   of `B^-1` it came from, so it is neither a pivot candidate nor allowed to smear noise
//!   over the tableau. (This assumes the equations, the rows of `[M q]`, are scaled within
//!   about `1 / tol` of one another.)
//! - a result of a pivot update `x - y` is set to exactly zero when
//!   `|x - y| <= tol * max(|x|, |y|)`, so degenerate values are true zeros and ties are ties;
//! - two ratios `r`, `s` tie when `|r - s| <= tol * max(|r|, |s|)`.
//!
//! After the pivoting ends, the basic solution is recomputed as `B^-1 q` plus one step of
//! iterative refinement against the original columns, entries of `z` that are negative by
//! less than `tol * max|z|` (roundoff) are set to zero, and `w = M z + q` is evaluated
//! directly. The report is [`Status::Solved`] only if everything is finite and
//! [`standard_residual`] is below [`SOLVED_RESIDUAL`] (`1e-8`), whatever way the pivoting
//! ended.

use std::cmp::Ordering;

use crate::error::LcpError;
use crate::matrix::{dot, max_abs};
use crate::problem::{check_finite, StandardLcp};
use crate::report::{SolveReport, Status};
use crate::residual::standard_residual;

/// Largest normalised residual ([`crate::Residual::max`]) a Lemke answer may have and still
/// be reported [`Status::Solved`].
pub const SOLVED_RESIDUAL: f64 = 1e-8;

/// The default pivot limit for a problem of size `n`: `50 n + 100`.
///
/// Lemke's algorithm usually needs between `n` and `3 n` pivots on contact problems; the
/// limit is a generous guard against numerical cycling, not a tuning knob.
pub fn default_max_pivots(n: usize) -> usize {
    n.saturating_mul(50).saturating_add(100)
}

/// Options for [`solve_lemke`].
#[derive(Clone, Debug, PartialEq)]
pub struct LemkeOptions {
    /// Pivot limit, including the first pivot that brings in `z0`; `None` means
    /// [`default_max_pivots`]. Must be at least 1 when given. Reaching it gives
    /// [`Status::PivotLimit`].
    pub max_pivots: Option<usize>,
    /// The covering vector `d` (length `n`, finite, every entry `> 0`); `None` means all
    /// ones.
    pub covering_vector: Option<Vec<f64>>,
    /// Relative zero tolerance for pivot candidates, cancellation and ratio ties (see the
    /// module documentation). Must be in `(0, 1e-3]`.
    pub zero_tolerance: f64,
}

impl Default for LemkeOptions {
    fn default() -> Self {
        Self {
            max_pivots: None,
            covering_vector: None,
            zero_tolerance: 1e-11,
        }
    }
}

impl LemkeOptions {
    /// Checks the options against a problem of size `n`.
    pub fn validate(&self, n: usize) -> Result<(), LcpError> {
        if self.max_pivots == Some(0) {
            return Err(LcpError::BadOption {
                option: "max_pivots",
                reason: "must be at least 1".to_string(),
            });
        }
        let tol = self.zero_tolerance;
        if !(tol > 0.0 && tol <= 1e-3) {
            return Err(LcpError::BadOption {
                option: "zero_tolerance",
                reason: format!("must be in (0, 1e-3], got {tol}"),
            });
        }
        if let Some(d) = &self.covering_vector {
            if d.len() != n {
                return Err(LcpError::LengthMismatch {
                    field: "covering_vector",
                    expected: n,
                    found: d.len(),
                });
            }
            check_finite("covering_vector", d)?;
            if let Some(i) = d.iter().position(|&v| v <= 0.0) {
                return Err(LcpError::BadOption {
                    option: "covering_vector",
                    reason: format!("entry {i} is {}, every entry must be > 0", d[i]),
                });
            }
        }
        Ok(())
    }
}

/// Solves the standard LCP `w = M z + q`, `0 <= z _|_ w >= 0` with Lemke's algorithm.
///
/// Returns the report with `x = z`, `w = M z + q`, the number of pivots in `iterations`
/// and `fell_back = false`. The status is:
/// - [`Status::Solved`]: the residual is below [`SOLVED_RESIDUAL`] (always the case when
///   `q >= 0`, answered with `z = 0` and no pivot);
/// - [`Status::RayTermination`]: the entering variable could grow without bound. For a
///   copositive-plus `M` this proves the LCP infeasible; otherwise Lemke's method simply
///   failed. `x` is the last basis's `z` (ignoring `z0`), not a solution;
/// - [`Status::PivotLimit`]: the pivot limit was reached; `x` is the last basis's `z`;
/// - [`Status::NonFinite`]: a NaN or infinity appeared (overflow on badly scaled data);
/// - [`Status::PivotFailure`]: `z0` left the basis but roundoff spoilt the answer beyond
///   the residual tolerance (an extremely ill-conditioned basis).
///
/// # Errors
/// A malformed problem ([`StandardLcp::validate`]) or options ([`LemkeOptions::validate`]).
pub fn solve_lemke(problem: &StandardLcp, options: &LemkeOptions) -> Result<SolveReport, LcpError> {
    problem.validate()?;
    let n = problem.len();
    options.validate(n)?;

    if problem.q.iter().all(|&v| v >= 0.0) {
        return Ok(trivial_report(problem));
    }

    let max_pivots = options.max_pivots.unwrap_or_else(|| default_max_pivots(n));
    let mut tableau = Tableau::new(problem, options);
    let ending = tableau.run(max_pivots);
    Ok(tableau.report(ending))
}

/// `z = 0` solves the problem when `q >= 0`.
fn trivial_report(problem: &StandardLcp) -> SolveReport {
    let n = problem.len();
    let x = vec![0.0; n];
    let w = problem.q.clone();
    let residual = standard_residual(problem, &x, &w);
    SolveReport {
        x,
        w,
        status: Status::Solved,
        iterations: 0,
        residual,
        fell_back: false,
    }
}

/// Why the pivoting stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    /// `z0` left the basis: the basis is complementary.
    Complementary,
    /// No row blocks the entering variable.
    Ray,
    /// The pivot limit was reached.
    Limit,
    /// A pivot produced a NaN or an infinity.
    NonFinite,
}

/// Marks a variable that is not in the basis in [`Tableau::row_of`].
const NOT_BASIC: usize = usize::MAX;

/// The pivoting state. Variables are numbered `w_j = j`, `z_j = n + j`, `z0 = 2 n`; their
/// columns in `[I, -M, -d]` are what the basis matrix `B` is made of.
struct Tableau<'a> {
    problem: &'a StandardLcp,
    n: usize,
    covering: Vec<f64>,
    tol: f64,
    /// `B^-1`, row-major `n x n`.
    binv: Vec<f64>,
    /// Values of the basic variables, `x_B = B^-1 q`.
    values: Vec<f64>,
    /// The variable basic in each row.
    basis: Vec<usize>,
    /// The row each variable is basic in, or [`NOT_BASIC`].
    row_of: Vec<usize>,
    /// The entering variable's original column.
    column: Vec<f64>,
    /// `B^-1 column`: how each basic variable changes as the entering one grows.
    direction: Vec<f64>,
    pivots: usize,
}

impl<'a> Tableau<'a> {
    /// The initial basis `{w}`, `B = I`, with every workspace allocated.
    fn new(problem: &'a StandardLcp, options: &LemkeOptions) -> Self {
        let n = problem.len();
        let mut binv = vec![0.0; n * n];
        for i in 0..n {
            binv[i * n + i] = 1.0;
        }
        let mut row_of = vec![NOT_BASIC; 2 * n + 1];
        for (j, r) in row_of.iter_mut().enumerate().take(n) {
            *r = j;
        }
        Self {
            problem,
            n,
            covering: options
                .covering_vector
                .clone()
                .unwrap_or_else(|| vec![1.0; n]),
            tol: options.zero_tolerance,
            binv,
            values: problem.q.clone(),
            basis: (0..n).collect(),
            row_of,
            column: vec![0.0; n],
            direction: vec![0.0; n],
            pivots: 0,
        }
    }

    fn z0(&self) -> usize {
        2 * self.n
    }

    /// `w_j <-> z_j`.
    fn complement(&self, var: usize) -> usize {
        if var < self.n {
            var + self.n
        } else {
            var - self.n
        }
    }

    /// Complementary pivoting until `z0` leaves, a ray, the limit or a non-finite number.
    fn run(&mut self, max_pivots: usize) -> Ending {
        // First pivot: z0 enters. Its column is -d, so every row is a candidate and the
        // lexicographic rule (divisor d_i) picks the most negative q_i / d_i.
        let z0 = self.z0();
        self.load_direction(z0);
        let Some(first) = self.leaving_row(-1.0) else {
            return Ending::Ray; // unreachable for n > 0: every d_i > 0
        };
        let mut leaving = self.pivot(first, z0);
        if !self.values[first].is_finite() {
            return Ending::NonFinite;
        }

        loop {
            if leaving == z0 {
                return Ending::Complementary;
            }
            if self.pivots >= max_pivots {
                return Ending::Limit;
            }
            let entering = self.complement(leaving);
            self.load_direction(entering);
            let Some(row) = self.leaving_row(1.0) else {
                return Ending::Ray;
            };
            leaving = self.pivot(row, entering);
            if !self.values[row].is_finite() {
                return Ending::NonFinite;
            }
        }
    }

    /// Fills `column` with the original column of `var` and sets `direction = B^-1 column`,
    /// with roundoff-sized entries made exactly zero.
    fn load_direction(&mut self, var: usize) {
        let n = self.n;
        if var < n {
            self.column.fill(0.0);
            self.column[var] = 1.0;
        } else if var < 2 * n {
            let j = var - n;
            for (k, c) in self.column.iter_mut().enumerate() {
                *c = -self.problem.m[(k, j)];
            }
        } else {
            for (c, d) in self.column.iter_mut().zip(&self.covering) {
                *c = -d;
            }
        }
        let column_max = max_abs(&self.column);
        for i in 0..n {
            let row = &self.binv[i * n..(i + 1) * n];
            let (mut sum, mut size, mut row_max) = (0.0, 0.0, 0.0f64);
            for (b, c) in row.iter().zip(&self.column) {
                let t = b * c;
                sum += t;
                size += t.abs();
                row_max = row_max.max(b.abs());
            }
            let magnitude = size.max(row_max * column_max);
            // Noise must not enter the pivot update, or zeros of B^-1 stop being zeros
            // and later ratio tests pivot on roundoff.
            self.direction[i] = if sum.abs() <= self.tol * magnitude {
                0.0
            } else {
                sum
            };
        }
    }

    /// The lexicographic minimum-ratio row for the entering direction scaled by `sign`
    /// (`+1` for an ordinary pivot, `-1` for the first one, where `z0` enters against a
    /// column of `-d`). Rows whose divisor is not clearly positive are not candidates.
    fn leaving_row(&self, sign: f64) -> Option<usize> {
        let mut best: Option<usize> = None;
        for i in 0..self.n {
            if sign * self.direction[i] <= 0.0 {
                continue;
            }
            best = match best {
                Some(b) if self.lexico_cmp(i, b, sign) != Ordering::Less => Some(b),
                _ => Some(i),
            };
        }
        let best = best?;
        // Letting z0 leave on a tie ends the solve now; any tied row would do for
        // feasibility, and termination makes the anti-cycling order irrelevant.
        let z0_row = self.row_of[self.z0()];
        if sign > 0.0 && z0_row != NOT_BASIC && z0_row != best {
            let divisor = self.direction[z0_row];
            if divisor > 0.0
                && self.ties(
                    self.values[z0_row] / divisor,
                    self.values[best] / self.direction[best],
                )
            {
                return Some(z0_row);
            }
        }
        Some(best)
    }

    /// Compares rows `i` and `j` of `(x_B, B^-1)` each divided by its (positive) divisor.
    fn lexico_cmp(&self, i: usize, j: usize, sign: f64) -> Ordering {
        let (di, dj) = (sign * self.direction[i], sign * self.direction[j]);
        let first = self.compare(self.values[i] / di, self.values[j] / dj);
        if first != Ordering::Equal {
            return first;
        }
        let n = self.n;
        let row_i = &self.binv[i * n..(i + 1) * n];
        let row_j = &self.binv[j * n..(j + 1) * n];
        for (a, b) in row_i.iter().zip(row_j) {
            let order = self.compare(a / di, b / dj);
            if order != Ordering::Equal {
                return order;
            }
        }
        Ordering::Equal
    }

    fn ties(&self, r: f64, s: f64) -> bool {
        (r - s).abs() <= self.tol * r.abs().max(s.abs())
    }

    fn compare(&self, r: f64, s: f64) -> Ordering {
        if self.ties(r, s) {
            Ordering::Equal
        } else if r < s {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    }

    /// Gauss-Jordan step: `entering` becomes basic in `row`. Returns the variable that left.
    fn pivot(&mut self, row: usize, entering: usize) -> usize {
        let n = self.n;
        let tol = self.tol;
        let p = self.direction[row];
        self.values[row] /= p;
        for b in &mut self.binv[row * n..(row + 1) * n] {
            *b /= p;
        }
        let step = self.values[row];
        let (before, rest) = self.binv.split_at_mut(row * n);
        let (pivot_row, after) = rest.split_at_mut(n);
        let other_rows = before.chunks_exact_mut(n).enumerate().chain(
            after
                .chunks_exact_mut(n)
                .enumerate()
                .map(|(k, r)| (row + 1 + k, r)),
        );
        for (i, target) in other_rows {
            let f = self.direction[i];
            if f == 0.0 {
                continue;
            }
            self.values[i] = cancel(self.values[i], f * step, tol);
            for (t, &pr) in target.iter_mut().zip(pivot_row.iter()) {
                if pr != 0.0 {
                    *t = cancel(*t, f * pr, tol);
                }
            }
        }
        let leaving = self.basis[row];
        self.row_of[leaving] = NOT_BASIC;
        self.basis[row] = entering;
        self.row_of[entering] = row;
        self.pivots += 1;
        leaving
    }

    /// Recomputes the basic solution with one step of iterative refinement, extracts `z`,
    /// and judges it.
    fn report(mut self, ending: Ending) -> SolveReport {
        let n = self.n;
        let problem = self.problem;
        self.refine_values();

        let mut z = vec![0.0; n];
        for (row, &var) in self.basis.iter().enumerate() {
            if (n..2 * n).contains(&var) {
                z[var - n] = self.values[row];
            }
        }
        let clamp_below = self.tol * max_abs(&z);
        for zi in &mut z {
            if *zi < 0.0 && -*zi <= clamp_below {
                *zi = 0.0;
            }
        }
        let mut w = vec![0.0; n];
        problem.m.mul_vec_into(&z, &mut w);
        for (wi, qi) in w.iter_mut().zip(&problem.q) {
            *wi += qi;
        }
        let residual = standard_residual(problem, &z, &w);
        let finite = z.iter().chain(&w).all(|v| v.is_finite());
        let status = if !finite {
            Status::NonFinite
        } else if residual.max() < SOLVED_RESIDUAL {
            Status::Solved
        } else {
            match ending {
                Ending::Complementary => Status::PivotFailure,
                Ending::Ray => Status::RayTermination,
                Ending::Limit => Status::PivotLimit,
                Ending::NonFinite => Status::NonFinite,
            }
        };
        SolveReport {
            x: z,
            w,
            status,
            iterations: self.pivots,
            residual,
            fell_back: false,
        }
    }

    /// `x_B += B^-1 (q - B x_B)` with `B` rebuilt from the original columns, undoing most
    /// of the roundoff the Gauss-Jordan updates accumulated. Reuses `column` and
    /// `direction` as scratch.
    fn refine_values(&mut self) {
        let n = self.n;
        let m = &self.problem.m;
        let residual = &mut self.column;
        residual.copy_from_slice(&self.problem.q);
        for (&var, &value) in self.basis.iter().zip(&self.values) {
            if value == 0.0 {
                continue;
            }
            if var < n {
                residual[var] -= value;
            } else if var < 2 * n {
                let j = var - n;
                for (k, r) in residual.iter_mut().enumerate() {
                    *r += m[(k, j)] * value;
                }
            } else {
                for (r, d) in residual.iter_mut().zip(&self.covering) {
                    *r += d * value;
                }
            }
        }
        for i in 0..n {
            self.direction[i] = dot(&self.binv[i * n..(i + 1) * n], residual);
        }
        for (v, c) in self.values.iter_mut().zip(&self.direction) {
            *v += c;
        }
    }
}

/// `x - y`, or exactly zero when the difference is cancellation noise relative to the
/// operands.
#[inline]
fn cancel(x: f64, y: f64, tol: f64) -> f64 {
    let r = x - y;
    if r.abs() <= tol * x.abs().max(y.abs()) {
        0.0
    } else {
        r
    }
}
