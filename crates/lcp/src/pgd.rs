//! Accelerated projected gradient (FISTA) for the boxed LCP seen as a box-constrained QP.
//!
//! For symmetric positive definite `A` the boxed LCP `A x = b + w` is exactly the optimality
//! condition of
//!
//! ```text
//! min f(x) = 1/2 x^T A x - b^T x   subject to   lo <= x <= hi,
//! ```
//!
//! whose gradient is the slack `w = A x - b`. Each iteration takes a projected gradient step
//! `x+ = P(y - (A y - b) / L)` from an extrapolated point `y` (Beck and Teboulle's FISTA),
//! with `L >= lambda_max(A)` so that the step never raises `f` more than the descent lemma
//! allows.
//!
//! - **Step size.** `L` starts from a few power iterations (a Rayleigh quotient, which can
//!   only underestimate `lambda_max`) times a margin, capped by the Gershgorin bound (which
//!   cannot underestimate it). Every step checks the descent lemma
//!   `f(x+) <= f(y) + w_y . (x+ - y) + L/2 |x+ - y|^2`, free to evaluate because `A x+` is
//!   needed anyway; when it fails `L` doubles (never beyond the Gershgorin bound) and the
//!   step is retried.
//! - **Adaptive restart** (O'Donoghue and Candes, gradient scheme): when the step and the
//!   momentum disagree, `(y - x+) . (x+ - x) > 0`, the momentum is reset. This turns FISTA's
//!   `O(1/k^2)` into linear convergence on strongly convex problems and removes its
//!   oscillation.
//! - **Stopping rule.** The normalised natural residual of [`crate::Residual`] (the
//!   `complementarity` figure, zero exactly at a solution) falls to
//!   [`PgdOptions::tolerance`].
//! - **Friction.** A row with `findex[i] = Some(j)` is projected onto `+-mu_i |x_j|` using
//!   the normal force of the point being projected (normals are projected first). Bounds
//!   that move with the iterate make the method a fixed-point heuristic, not a QP method,
//!   for friction problems: the residual still certifies any answer it accepts, but
//!   convergence is no longer guaranteed.

use crate::error::LcpError;
use crate::matrix::{dot, max_abs};
use crate::pgs::initial_guess;
use crate::problem::BoxedLcp;
use crate::report::{SolveReport, Status};
use crate::residual::boxed_residual;

/// Largest asymmetry `|a_ij - a_ji|`, relative to the largest `|a_ij|`, that
/// [`solve_pgd`] accepts: enough for `J M^-1 J^T` assembled in floating point.
pub const SYMMETRY_TOLERANCE: f64 = 1e-10;

/// Power iterations spent estimating `lambda_max(A)` before the first step.
const POWER_ITERATIONS: usize = 10;
/// Safety factor on the power-iteration estimate, which approaches `lambda_max` from below.
const POWER_MARGIN: f64 = 1.1;

/// Options for [`solve_pgd`].
#[derive(Clone, Debug, PartialEq)]
pub struct PgdOptions {
    /// Largest number of accepted gradient steps, default `10_000`; must be at least 1. Each
    /// step costs one product `A x` (plus one per retried step while `L` is adjusted).
    pub max_iterations: usize,
    /// Stop when the normalised natural residual ([`crate::Residual::complementarity`])
    /// is at most this (dimensionless), default `1e-9`; must be finite and `> 0`. A result
    /// is reported as [`Status::Solved`] only if its full [`crate::Residual::max`] is within
    /// it too.
    pub tolerance: f64,
    /// O'Donoghue-Candes adaptive restart of the momentum, default `true`. Turning it off
    /// gives plain FISTA, which oscillates and converges more slowly on ill-conditioned
    /// problems; it exists for comparison.
    pub adaptive_restart: bool,
}

impl Default for PgdOptions {
    fn default() -> Self {
        Self {
            max_iterations: 10_000,
            tolerance: 1e-9,
            adaptive_restart: true,
        }
    }
}

impl PgdOptions {
    /// Checks every option against its documented range.
    pub fn validate(&self) -> Result<(), LcpError> {
        if self.max_iterations == 0 {
            return Err(LcpError::BadOption {
                option: "max_iterations",
                reason: "must be at least 1".into(),
            });
        }
        if !(self.tolerance.is_finite() && self.tolerance > 0.0) {
            return Err(LcpError::BadOption {
                option: "tolerance",
                reason: format!("must be finite and > 0, got {}", self.tolerance),
            });
        }
        Ok(())
    }
}

/// Solves a boxed LCP with symmetric `A` by accelerated projected gradient.
///
/// `warm_start` (default zeros) must have the problem's length and be finite; it is
/// projected onto the bounds first. For positive definite `A` and no friction rows the
/// iteration converges to the unique solution; for positive semi-definite `A` to one of the
/// minimisers if one exists; with friction rows it is a heuristic (see the module notes).
///
/// The report's status is [`Status::NonFinite`] if a non-finite number appeared (the report
/// carries the last finite iterate), [`Status::Solved`] if the normalised residual
/// ([`crate::Residual::max`]) is at most [`PgdOptions::tolerance`], and
/// [`Status::IterationLimit`] otherwise. `iterations` counts accepted gradient steps.
///
/// # Errors
/// Everything [`BoxedLcp::validate`] rejects; [`LcpError::NotSymmetric`] if `A` is not
/// symmetric to [`SYMMETRY_TOLERANCE`] (the QP, and the step-size bounds, need it); a warm
/// start of the wrong length or with a non-finite entry; options out of range.
pub fn solve_pgd(
    problem: &BoxedLcp,
    warm_start: Option<&[f64]>,
    options: &PgdOptions,
) -> Result<SolveReport, LcpError> {
    problem.validate()?;
    options.validate()?;
    problem.a.check_symmetric(SYMMETRY_TOLERANCE)?;
    let start = initial_guess(problem.len(), warm_start)?;

    let mut solver = Fista::new(problem, options);
    solver.start(&start);
    let (iterations, non_finite) = solver.run();

    let x = solver.x;
    let w = problem.slack(&x);
    let residual = boxed_residual(problem, &x, &w);
    let all_finite = x.iter().chain(&w).all(|v| v.is_finite());
    let status = if non_finite || !all_finite {
        Status::NonFinite
    } else if residual.max() <= options.tolerance {
        Status::Solved
    } else {
        Status::IterationLimit
    };
    Ok(SolveReport {
        x,
        w,
        status,
        iterations,
        residual,
        fell_back: false,
    })
}

/// The state of one FISTA run; every vector is allocated once, in [`Fista::new`].
struct Fista<'p> {
    problem: &'p BoxedLcp,
    options: &'p PgdOptions,
    /// Current iterate and `A x`.
    x: Vec<f64>,
    ax: Vec<f64>,
    /// Extrapolated point and `A y` (a linear combination, no extra product).
    y: Vec<f64>,
    ay: Vec<f64>,
    /// Candidate iterate and `A x+`.
    next: Vec<f64>,
    a_next: Vec<f64>,
    /// Current Lipschitz estimate and the bound it never exceeds.
    lipschitz: f64,
    lipschitz_cap: f64,
    /// `max |a_ij|` and `|b|_inf`, for the residual's normalisation.
    a_max: f64,
    b_inf: f64,
}

impl<'p> Fista<'p> {
    fn new(problem: &'p BoxedLcp, options: &'p PgdOptions) -> Self {
        let n = problem.len();
        let (lipschitz, lipschitz_cap) = lipschitz_estimate(problem);
        Self {
            problem,
            options,
            x: vec![0.0; n],
            ax: vec![0.0; n],
            y: vec![0.0; n],
            ay: vec![0.0; n],
            next: vec![0.0; n],
            a_next: vec![0.0; n],
            lipschitz,
            lipschitz_cap,
            a_max: problem.a.max_abs(),
            b_inf: max_abs(&problem.b),
        }
    }

    fn start(&mut self, warm_start: &[f64]) {
        project(self.problem, warm_start, &mut self.x);
        self.problem.a.mul_vec_into(&self.x, &mut self.ax);
        self.y.copy_from_slice(&self.x);
        self.ay.copy_from_slice(&self.ax);
    }

    /// Iterates until the residual meets the tolerance or the iteration limit; returns the
    /// accepted steps and whether a non-finite value stopped the run.
    fn run(&mut self) -> (usize, bool) {
        if !self.x.iter().chain(&self.ax).all(|v| v.is_finite()) {
            return (0, true);
        }
        if self.natural_residual() <= self.options.tolerance {
            return (0, false);
        }
        let mut t: f64 = 1.0;
        for iteration in 1..=self.options.max_iterations {
            if !self.step_from_y() {
                return (iteration, true);
            }
            // Gradient-scheme restart test: does the step run against the momentum?
            let disagreement: f64 = (0..self.x.len())
                .map(|i| (self.y[i] - self.next[i]) * (self.next[i] - self.x[i]))
                .sum();
            let beta = if self.options.adaptive_restart && disagreement > 0.0 {
                t = 1.0;
                0.0
            } else {
                let t_next = 0.5 * (1.0 + (1.0 + 4.0 * t * t).sqrt());
                let beta = (t - 1.0) / t_next;
                t = t_next;
                beta
            };
            for i in 0..self.x.len() {
                self.y[i] = self.next[i] + beta * (self.next[i] - self.x[i]);
                self.ay[i] = self.a_next[i] + beta * (self.a_next[i] - self.ax[i]);
            }
            std::mem::swap(&mut self.x, &mut self.next);
            std::mem::swap(&mut self.ax, &mut self.a_next);
            if self.natural_residual() <= self.options.tolerance {
                return (iteration, false);
            }
        }
        (self.options.max_iterations, false)
    }

    /// `next = P(y - (A y - b) / L)`, doubling `L` while the descent lemma fails. Returns
    /// `false` if the candidate is not finite.
    fn step_from_y(&mut self) -> bool {
        let problem = self.problem;
        let f_y = objective(problem, &self.y, &self.ay);
        loop {
            let inv_l = 1.0 / self.lipschitz;
            for i in 0..self.y.len() {
                self.next[i] = self.y[i] - (self.ay[i] - problem.b[i]) * inv_l;
            }
            project_in_place(problem, &mut self.next);
            problem.a.mul_vec_into(&self.next, &mut self.a_next);
            if !self.next.iter().chain(&self.a_next).all(|v| v.is_finite()) {
                return false;
            }
            if self.lipschitz >= self.lipschitz_cap {
                return true;
            }
            let f_next = objective(problem, &self.next, &self.a_next);
            let mut linear = 0.0;
            let mut distance_sq = 0.0;
            for i in 0..self.y.len() {
                let d = self.next[i] - self.y[i];
                linear += (self.ay[i] - problem.b[i]) * d;
                distance_sq += d * d;
            }
            let model = f_y + linear + 0.5 * self.lipschitz * distance_sq;
            // Rounding in f of a well-scaled step is far below this slack.
            let slack = 1e-12 * (f_y.abs() + f_next.abs()) + f64::MIN_POSITIVE;
            if f_next <= model + slack {
                return true;
            }
            self.lipschitz = (2.0 * self.lipschitz).min(self.lipschitz_cap);
        }
    }

    /// [`crate::Residual::complementarity`] of `x`, computed from the known `A x`.
    fn natural_residual(&self) -> f64 {
        let problem = self.problem;
        let x_inf = max_abs(&self.x);
        let mut x_scale = x_inf;
        for i in 0..self.x.len() {
            let (lo, hi) = problem.effective_bounds(i, &self.x);
            for bound in [lo, hi] {
                if bound.is_finite() {
                    x_scale = x_scale.max(bound.abs());
                }
            }
        }
        let x_scale = x_scale.max(f64::MIN_POSITIVE);
        let w_scale = self.b_inf.max(self.a_max * x_inf).max(f64::MIN_POSITIVE);
        let mut worst: f64 = 0.0;
        for i in 0..self.x.len() {
            let (lo, hi) = problem.effective_bounds(i, &self.x);
            let xs = self.x[i] / x_scale;
            let ws = (self.ax[i] - problem.b[i]) / w_scale;
            let natural = xs - (xs - ws).max(lo / x_scale).min(hi / x_scale);
            worst = worst.max(natural.abs());
        }
        if worst.is_nan() {
            f64::INFINITY
        } else {
            worst
        }
    }
}

/// `f(x) = 1/2 x . A x - b . x` from a known `A x`.
fn objective(problem: &BoxedLcp, x: &[f64], ax: &[f64]) -> f64 {
    0.5 * dot(x, ax) - dot(&problem.b, x)
}

/// `out = P(z)`: see [`project_in_place`].
fn project(problem: &BoxedLcp, z: &[f64], out: &mut [f64]) {
    out.copy_from_slice(z);
    project_in_place(problem, out);
}

/// Projects onto the bounds, normal rows first so that friction rows take their limit from
/// the projected normal force.
fn project_in_place(problem: &BoxedLcp, x: &mut [f64]) {
    for (i, xi) in x.iter_mut().enumerate() {
        if problem.findex[i].is_none() {
            *xi = xi.max(problem.lo[i]).min(problem.hi[i]);
        }
    }
    for i in 0..x.len() {
        if let Some(j) = problem.findex[i] {
            let limit = (problem.hi[i] * x[j]).abs();
            x[i] = x[i].max(-limit).min(limit);
        }
    }
}

/// The initial Lipschitz estimate and the cap it may grow to: `(min(margin * rayleigh,
/// gershgorin), gershgorin)`, both positive.
fn lipschitz_estimate(problem: &BoxedLcp) -> (f64, f64) {
    let a = &problem.a;
    let n = problem.len();
    let gershgorin = (0..n)
        .map(|i| a.row(i).iter().map(|v| v.abs()).sum::<f64>())
        .fold(0.0, f64::max);
    if !(gershgorin > 0.0 && gershgorin.is_finite()) {
        // A = 0 (any step is exact for a linear objective) or an overflowed bound.
        let cap = if gershgorin > 0.0 { f64::MAX } else { 1.0 };
        return (cap, cap);
    }
    // The all-ones start is deterministic; if it misses the top eigenvector the descent
    // check in the iteration raises L.
    let mut v = vec![1.0; n];
    let mut av = vec![0.0; n];
    let mut rayleigh = 0.0;
    for _ in 0..POWER_ITERATIONS {
        let norm = dot(&v, &v).sqrt();
        if !(norm > 0.0 && norm.is_finite()) {
            break;
        }
        v.iter_mut().for_each(|e| *e /= norm);
        a.mul_vec_into(&v, &mut av);
        rayleigh = dot(&v, &av);
        std::mem::swap(&mut v, &mut av);
    }
    let estimate = POWER_MARGIN * rayleigh;
    if estimate > 0.0 && estimate < gershgorin {
        (estimate, gershgorin)
    } else {
        (gershgorin, gershgorin)
    }
}
