//! One normalised figure each for how far `(x, w)` is from solving a problem.
//!
//! Normalisation makes the figures comparable across problems of any scale: forces are
//! divided by `x_scale = max(|x|_inf, finite |bounds| involved, tiny)` and slacks by
//! `w_scale = max(|b|_inf, |A|_max |x|_inf, tiny)`. A residual of `1e-12` means
//! "correct to about twelve digits of the problem's own size".

use crate::matrix::{dot, max_abs};
use crate::problem::{BoxedLcp, StandardLcp};

/// The three ways a candidate solution can be wrong, each normalised.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Residual {
    /// How far `x` lies outside its (effective) bounds, over `x_scale`.
    pub bound: f64,
    /// `|A x - b - w|_inf` over `w_scale`: whether `w` is really the slack of `x`.
    pub equation: f64,
    /// The natural-map residual `|x^ - mid(lo^, x^ - w^, hi^)|_inf` in scaled units: zero
    /// exactly when each index satisfies one of the three complementarity cases.
    pub complementarity: f64,
}

impl Residual {
    /// The worst of the three figures; `INFINITY` if any is NaN.
    pub fn max(&self) -> f64 {
        let m = self.bound.max(self.equation).max(self.complementarity);
        if self.bound.is_nan() || self.equation.is_nan() || self.complementarity.is_nan() {
            f64::INFINITY
        } else {
            m
        }
    }
}

/// Residual of `(x, w)` for a boxed LCP, with friction bounds taken from `x` itself.
///
/// Lengths must match the problem (`debug_assert`); call on validated problems.
pub fn boxed_residual(problem: &BoxedLcp, x: &[f64], w: &[f64]) -> Residual {
    let n = problem.len();
    debug_assert_eq!(x.len(), n);
    debug_assert_eq!(w.len(), n);
    let x_inf = max_abs(x);
    let mut x_scale = x_inf;
    for i in 0..n {
        let (lo, hi) = problem.effective_bounds(i, x);
        if lo.is_finite() {
            x_scale = x_scale.max(lo.abs());
        }
        if hi.is_finite() {
            x_scale = x_scale.max(hi.abs());
        }
    }
    let x_scale = x_scale.max(f64::MIN_POSITIVE);
    let w_scale = max_abs(&problem.b)
        .max(problem.a.max_abs() * x_inf)
        .max(f64::MIN_POSITIVE);
    let mut r = Residual::default();
    for i in 0..n {
        let (lo, hi) = problem.effective_bounds(i, x);
        let viol = (lo - x[i]).max(x[i] - hi).max(0.0);
        r.bound = worst(r.bound, viol / x_scale);
        let eq = dot(problem.a.row(i), x) - problem.b[i] - w[i];
        r.equation = worst(r.equation, eq.abs() / w_scale);
        let xs = x[i] / x_scale;
        let ws = w[i] / w_scale;
        // Not `clamp`: it panics on the NaN bounds an infinite `x` produces.
        let nat = xs - (xs - ws).max(lo / x_scale).min(hi / x_scale);
        r.complementarity = worst(r.complementarity, nat.abs());
    }
    sanitize(r)
}

/// Residual of `(z, w)` for a standard LCP `w = M z + q`, `0 <= z _|_ w >= 0`.
pub fn standard_residual(problem: &StandardLcp, z: &[f64], w: &[f64]) -> Residual {
    let n = problem.len();
    debug_assert_eq!(z.len(), n);
    debug_assert_eq!(w.len(), n);
    let x_scale = max_abs(z).max(f64::MIN_POSITIVE);
    let w_scale = max_abs(&problem.q)
        .max(problem.m.max_abs() * max_abs(z))
        .max(f64::MIN_POSITIVE);
    let mut r = Residual::default();
    for i in 0..n {
        r.bound = worst(r.bound, (-z[i]).max(0.0) / x_scale);
        let eq = dot(problem.m.row(i), z) + problem.q[i] - w[i];
        r.equation = worst(r.equation, eq.abs() / w_scale);
        let zs = z[i] / x_scale;
        let ws = w[i] / w_scale;
        r.complementarity = worst(r.complementarity, (zs - (zs - ws).max(0.0)).abs());
    }
    sanitize(r)
}

/// The larger of a running maximum and a new figure, where a NaN (from a non-finite `x` or
/// `w`) sticks: `f64::max` would drop it and let a non-finite answer score zero.
fn worst(acc: f64, v: f64) -> f64 {
    if acc.is_nan() || v.is_nan() {
        f64::NAN
    } else {
        acc.max(v)
    }
}

fn sanitize(mut r: Residual) -> Residual {
    for v in [&mut r.bound, &mut r.equation, &mut r.complementarity] {
        if v.is_nan() {
            *v = f64::INFINITY;
        }
    }
    r
}
