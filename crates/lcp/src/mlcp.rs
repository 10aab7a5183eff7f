//! Reduction of a mixed LCP to a standard LCP by solving for the free variables first
//! (Drake's `ConstraintSolver` documentation, equations (a)-(j)).
//!
//! The mixed problem ([`Mlcp`]) has free variables `u` (velocities, bilateral forces) and
//! complementarity variables `y` (contact impulses, friction, slack):
//!
//! ```text
//! (a)  A u + X1 y + a = 0
//! (b)  X2 u + X3 y + x4 >= 0
//! (c)  y >= 0
//! (d)  y . (X2 u + X3 y + x4) = 0
//! ```
//!
//! With `A` invertible, `(e) u = -A^-1 (a + X1 y)` turns it into the standard LCP
//! `w = MM y + qq` with `(f) qq = x4 - X2 A^-1 a` and `(g) MM = X3 - X2 A^-1 X1`, whose
//! solution `y` gives `u` back through (e).
//!
//! # Singular `A`
//!
//! `A` is factorised by LU with partial pivoting ([`DenseLu`]). If a pivot is not larger than
//! `ReductionOptions::singular_pivot_tolerance * max|A_ij|` (duplicated or dependent
//! bilateral constraints make `A` rank-deficient), every `A^-1 b` is replaced by the
//! Tikhonov-regularised least-squares solution, refined once against `A` itself:
//!
//! ```text
//! As = A / s,  s = max|A_ij|,  K = As^T As + delta I,
//! delta = ReductionOptions::regularisation * ||As||_F^2,
//! x' = K^-1 As^T b,   x' += K^-1 As^T (b - As x'),   x = x' / s,
//! ```
//!
//! with `K` factorised by Cholesky. The refinement step
//! squares the relative bias `delta / sigma_i^2` that Tikhonov leaves on each nonzero
//! singular value while adding nothing along the null space, so for consistent data
//! (`a + X1 y` in the range of `A`, as with exactly duplicated constraints) `u` satisfies
//! (a) to about `(delta / sigma_min^2)^2` relative (`sigma_min` the smallest nonzero
//! singular value of `As`; on duplicated constraints the tests measure residuals of
//! `1e-17`). Among all solutions it is the one of least norm (duplicated constraints share
//! their force equally) up to roundoff amplified by the conditioning `~1 / regularisation`
//! of the normal equations: the tests measure splits equal to `1e-9`..`1e-7` relative.
//! Scaling by `s` keeps `As^T As` from overflowing. A zero `A` has the zero pseudo-inverse.
//!
//! The reduction allocates (it runs once per problem, outside any pivoting loop); the
//! dense `A` costs `O(nu^3 + nu^2 ny)`.

use crate::error::LcpError;
use crate::lemke::{solve_lemke, LemkeOptions};
use crate::lu::DenseLu;
use crate::matrix::{dot, max_abs, DenseMatrix};
use crate::problem::{check_finite, check_len, StandardLcp};
use crate::report::{SolveReport, Status};
use crate::residual::Residual;

/// A mixed linear complementarity problem, sizes `nu` (free) and `ny` (constrained):
/// `A u + X1 y + a = 0`, `X2 u + X3 y + x4 >= 0 _|_ y >= 0`.
///
/// The vectors fix the sizes (`nu = a_vector.len()`, `ny = x4.len()`); every matrix must
/// fit them.
#[derive(Clone, Debug, PartialEq)]
pub struct Mlcp {
    /// `A`, `nu x nu`, need not be symmetric.
    pub a_matrix: DenseMatrix,
    /// `X1`, `nu x ny`.
    pub x1: DenseMatrix,
    /// `X2`, `ny x nu`.
    pub x2: DenseMatrix,
    /// `X3`, `ny x ny`.
    pub x3: DenseMatrix,
    /// `a`, length `nu`.
    pub a_vector: Vec<f64>,
    /// `x4`, length `ny`.
    pub x4: Vec<f64>,
}

impl Mlcp {
    /// Number of free variables `nu`.
    #[inline]
    pub fn free_len(&self) -> usize {
        self.a_vector.len()
    }

    /// Number of complementarity variables `ny`.
    #[inline]
    pub fn constrained_len(&self) -> usize {
        self.x4.len()
    }

    /// Checks every block's shape against `nu = a_vector.len()`, `ny = x4.len()` and that
    /// every entry is finite. Errors name the offending field.
    pub fn validate(&self) -> Result<(), LcpError> {
        let (nu, ny) = (self.free_len(), self.constrained_len());
        for (field, matrix, rows, cols) in [
            ("a_matrix", &self.a_matrix, nu, nu),
            ("x1", &self.x1, nu, ny),
            ("x2", &self.x2, ny, nu),
            ("x3", &self.x3, ny, ny),
        ] {
            if matrix.rows() != rows || matrix.cols() != cols {
                return Err(LcpError::MatrixShape {
                    field,
                    expected_rows: rows,
                    expected_cols: cols,
                    rows: matrix.rows(),
                    cols: matrix.cols(),
                });
            }
            check_finite(field, matrix.as_slice())?;
        }
        check_finite("a_vector", &self.a_vector)?;
        check_finite("x4", &self.x4)
    }

    /// How far `(u, y)` is from solving the problem, normalised like
    /// [`crate::standard_residual`]:
    /// - `equation`: `|A u + X1 y + a|_inf` over `max(|a|, |A|max |u|, |X1|max |y|)`,
    ///   equation (a);
    /// - `bound`: `max(-y_i, 0)` over `|y|_inf`, equation (c);
    /// - `complementarity`: the natural map `|y^ - max(y^ - s^, 0)|_inf` of `y` and
    ///   `s = X2 u + X3 y + x4`, each over its own scale, equations (b) and (d).
    ///
    /// # Errors
    /// A malformed problem, or `u`, `y` of the wrong length.
    pub fn residual(&self, u: &[f64], y: &[f64]) -> Result<Residual, LcpError> {
        self.validate()?;
        check_len("u", self.free_len(), u.len())?;
        check_len("y", self.constrained_len(), y.len())?;
        let (u_inf, y_inf) = (max_abs(u), max_abs(y));
        let tiny = f64::MIN_POSITIVE;

        let equation = self.free_equation(u, y);
        let equation_scale = max_abs(&self.a_vector)
            .max(self.a_matrix.max_abs() * u_inf)
            .max(self.x1.max_abs() * y_inf)
            .max(tiny);
        let slack = self.slack(u, y);
        let slack_scale = max_abs(&self.x4)
            .max(self.x2.max_abs() * u_inf)
            .max(self.x3.max_abs() * y_inf)
            .max(tiny);
        let y_scale = y_inf.max(tiny);

        let mut r = Residual {
            equation: max_abs(&equation) / equation_scale,
            ..Residual::default()
        };
        for (&yi, &si) in y.iter().zip(&slack) {
            r.bound = r.bound.max((-yi).max(0.0) / y_scale);
            let (ys, ss) = (yi / y_scale, si / slack_scale);
            r.complementarity = r.complementarity.max((ys - (ys - ss).max(0.0)).abs());
        }
        for v in [&mut r.bound, &mut r.equation, &mut r.complementarity] {
            if v.is_nan() {
                *v = f64::INFINITY;
            }
        }
        Ok(r)
    }

    /// `A u + X1 y + a`, equation (a).
    fn free_equation(&self, u: &[f64], y: &[f64]) -> Vec<f64> {
        let mut e = self.a_matrix.mul_vec(u);
        for (i, ei) in e.iter_mut().enumerate() {
            *ei += dot(self.x1.row(i), y) + self.a_vector[i];
        }
        e
    }

    /// `X2 u + X3 y + x4`, the slack of (b).
    fn slack(&self, u: &[f64], y: &[f64]) -> Vec<f64> {
        let mut s = self.x2.mul_vec(u);
        for (i, si) in s.iter_mut().enumerate() {
            *si += dot(self.x3.row(i), y) + self.x4[i];
        }
        s
    }
}

/// Tolerances of [`reduce_mlcp`].
#[derive(Clone, Debug, PartialEq)]
pub struct ReductionOptions {
    /// `A` counts as singular when an LU pivot is not larger than this times `max|A_ij|`.
    /// Default `1e-10`. Must be in `[0, 1)`.
    pub singular_pivot_tolerance: f64,
    /// Tikhonov weight relative to `||A||_F^2` (after scaling `A` to `max|A_ij| = 1`) for
    /// a singular `A`. Default `1e-10`. Must be in `(0, 1)`.
    pub regularisation: f64,
}

impl Default for ReductionOptions {
    fn default() -> Self {
        Self {
            singular_pivot_tolerance: 1e-10,
            regularisation: 1e-10,
        }
    }
}

impl ReductionOptions {
    /// Checks that both tolerances are in range.
    pub fn validate(&self) -> Result<(), LcpError> {
        let t = self.singular_pivot_tolerance;
        if !(0.0..1.0).contains(&t) {
            return Err(LcpError::BadOption {
                option: "singular_pivot_tolerance",
                reason: format!("must be in [0, 1), got {t}"),
            });
        }
        let d = self.regularisation;
        if !(d > 0.0 && d < 1.0) {
            return Err(LcpError::BadOption {
                option: "regularisation",
                reason: format!("must be in (0, 1), got {d}"),
            });
        }
        Ok(())
    }
}

/// The standard LCP equivalent to a mixed one, and what recovers `u` from its solution.
#[derive(Clone, Debug, PartialEq)]
pub struct MlcpReduction {
    /// `MM = X3 - X2 A^-1 X1`, `qq = x4 - X2 A^-1 a`.
    pub lcp: StandardLcp,
    /// `A^-1 a` (the regularised least-squares solution if `regularised`).
    pub solved_a: Vec<f64>,
    /// `A^-1 X1`, `nu x ny` (likewise).
    pub solved_x1: DenseMatrix,
    /// Whether `A` was judged singular and the regularised least-squares solve used.
    pub regularised: bool,
}

impl MlcpReduction {
    /// The free variables for a solution `y` of the reduced LCP, equation (e):
    /// `u = -(A^-1 a + A^-1 X1 y)`.
    ///
    /// # Errors
    /// `y` of the wrong length.
    pub fn recover_free(&self, y: &[f64]) -> Result<Vec<f64>, LcpError> {
        check_len("y", self.solved_x1.cols(), y.len())?;
        Ok(self
            .solved_a
            .iter()
            .enumerate()
            .map(|(i, &s)| -(s + dot(self.solved_x1.row(i), y)))
            .collect())
    }
}

/// Builds the standard LCP of equations (f), (g) and the data for (e).
///
/// # Errors
/// A malformed problem or options; [`LcpError::Singular`] only if even the regularised
/// normal equations cannot be factorised (not expected for finite data).
pub fn reduce_mlcp(mlcp: &Mlcp, options: &ReductionOptions) -> Result<MlcpReduction, LcpError> {
    mlcp.validate()?;
    options.validate()?;
    let (nu, ny) = (mlcp.free_len(), mlcp.constrained_len());

    let mut solver = FreeSolver::new(&mlcp.a_matrix, options)?;
    let mut solved_a = vec![0.0; nu];
    solver.solve(&mlcp.a_vector, &mut solved_a);
    let mut solved_x1 = DenseMatrix::zeros(nu, ny);
    let mut column = vec![0.0; nu];
    let mut solution = vec![0.0; nu];
    for j in 0..ny {
        for (i, c) in column.iter_mut().enumerate() {
            *c = mlcp.x1[(i, j)];
        }
        solver.solve(&column, &mut solution);
        for (i, &s) in solution.iter().enumerate() {
            solved_x1[(i, j)] = s;
        }
    }

    let mut mm = mlcp.x2.mul_mat(&solved_x1);
    for (m, x3) in mm.as_mut_slice().iter_mut().zip(mlcp.x3.as_slice()) {
        *m = x3 - *m;
    }
    let qq = mlcp
        .x4
        .iter()
        .enumerate()
        .map(|(i, &x4)| x4 - dot(mlcp.x2.row(i), &solved_a))
        .collect();

    Ok(MlcpReduction {
        lcp: StandardLcp::new(mm, qq),
        solved_a,
        solved_x1,
        regularised: solver.is_regularised(),
    })
}

/// A solved (or attempted) mixed LCP.
#[derive(Clone, Debug, PartialEq)]
pub struct MlcpSolution {
    /// The free variables, from equation (e).
    pub u: Vec<f64>,
    /// The complementarity variables (Lemke's `z`).
    pub y: Vec<f64>,
    /// Lemke's report on the reduced LCP; its status says whether `y` solves it, except
    /// that a `u` that overflowed (a nearly singular `A`) turns `Solved` into
    /// [`Status::NonFinite`].
    pub report: SolveReport,
    /// Whether `A` was singular and the regularised solve used.
    pub regularised: bool,
    /// The residual of `(u, y)` in the original problem ([`Mlcp::residual`]). With a
    /// singular `A` and inconsistent data (`a + X1 y` outside the range of `A`) its
    /// `equation` part shows how far (a) could not be met.
    pub residual: Residual,
}

/// Reduces with default [`ReductionOptions`] and solves the reduced LCP with Lemke.
///
/// # Errors
/// A malformed problem or options (see [`reduce_mlcp`], [`solve_lemke`]).
pub fn solve_mlcp(mlcp: &Mlcp, options: &LemkeOptions) -> Result<MlcpSolution, LcpError> {
    solve_mlcp_with(mlcp, &ReductionOptions::default(), options)
}

/// [`solve_mlcp`] with explicit reduction tolerances.
///
/// # Errors
/// A malformed problem or options.
pub fn solve_mlcp_with(
    mlcp: &Mlcp,
    reduction: &ReductionOptions,
    lemke: &LemkeOptions,
) -> Result<MlcpSolution, LcpError> {
    let reduced = reduce_mlcp(mlcp, reduction)?;
    let mut report = solve_lemke(&reduced.lcp, lemke)?;
    let y = report.x.clone();
    let u = reduced.recover_free(&y)?;
    if report.status.is_solved() && u.iter().any(|v| !v.is_finite()) {
        // Lemke solved the reduced problem, but A^-1 overflowed: u is no answer.
        report.status = Status::NonFinite;
    }
    let residual = mlcp.residual(&u, &y)?;
    Ok(MlcpSolution {
        u,
        y,
        report,
        regularised: reduced.regularised,
        residual,
    })
}

/// Solves `A x = b` for the free variables: exactly, or in the regularised least-squares
/// sense when `A` is singular.
enum FreeSolver {
    Lu(DenseLu),
    Regularised(RegularisedLeastSquares),
}

impl FreeSolver {
    fn new(a: &DenseMatrix, options: &ReductionOptions) -> Result<Self, LcpError> {
        let n = a.rows();
        let mut lu = DenseLu::default();
        lu.reset(n);
        for i in 0..n {
            for (j, &v) in a.row(i).iter().enumerate() {
                lu.set(i, j, v);
            }
        }
        // A zero A (rejected by the pivot test) falls through to the regularised solve,
        // whose answer for it is the zero pseudo-inverse.
        if lu.factor(options.singular_pivot_tolerance) {
            Ok(Self::Lu(lu))
        } else {
            RegularisedLeastSquares::new(a, options.regularisation).map(Self::Regularised)
        }
    }

    fn is_regularised(&self) -> bool {
        matches!(self, Self::Regularised(_))
    }

    fn solve(&mut self, b: &[f64], x: &mut [f64]) {
        match self {
            Self::Lu(lu) => {
                x.copy_from_slice(b);
                lu.solve(x);
            }
            Self::Regularised(ls) => ls.solve(b, x),
        }
    }
}

/// Tikhonov-regularised least squares for a singular `A` (see the module documentation).
struct RegularisedLeastSquares {
    n: usize,
    /// `max|A_ij|`; zero means `A = 0`, whose pseudo-inverse is zero.
    scale: f64,
    /// `As = A / scale`, row-major.
    scaled: Vec<f64>,
    /// Lower Cholesky factor `L` of `As^T As + delta I`, row-major.
    cholesky: Vec<f64>,
}

impl RegularisedLeastSquares {
    fn new(a: &DenseMatrix, relative_delta: f64) -> Result<Self, LcpError> {
        let n = a.rows();
        let scale = a.max_abs();
        if scale == 0.0 {
            return Ok(Self {
                n,
                scale,
                scaled: Vec::new(),
                cholesky: Vec::new(),
            });
        }
        let scaled: Vec<f64> = a.as_slice().iter().map(|v| v / scale).collect();
        let frobenius_sq: f64 = scaled.iter().map(|v| v * v).sum();
        let delta = relative_delta * frobenius_sq;

        // Only the lower triangle of the normal matrix is needed.
        let mut k = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                let mut s = 0.0;
                for r in 0..n {
                    s += scaled[r * n + i] * scaled[r * n + j];
                }
                k[i * n + j] = s;
            }
            k[i * n + i] += delta;
        }
        for j in 0..n {
            let d = k[j * n + j] - dot(&k[j * n..j * n + j], &k[j * n..j * n + j]);
            if d.is_nan() || d <= 0.0 {
                return Err(LcpError::Singular {
                    what: "regularised normal equations of the mixed LCP's free block",
                });
            }
            let d = d.sqrt();
            k[j * n + j] = d;
            for i in j + 1..n {
                let s = dot(&k[i * n..i * n + j], &k[j * n..j * n + j]);
                k[i * n + j] = (k[i * n + j] - s) / d;
            }
        }
        Ok(Self {
            n,
            scale,
            scaled,
            cholesky: k,
        })
    }

    /// `x ~ A^+ b`: a regularised solve plus one refinement step against `A`.
    fn solve(&self, b: &[f64], x: &mut [f64]) {
        if self.scale == 0.0 {
            x.fill(0.0);
            return;
        }
        let n = self.n;
        self.solve_normal(b, x);
        let residual: Vec<f64> = (0..n)
            .map(|i| b[i] - dot(&self.scaled[i * n..(i + 1) * n], x))
            .collect();
        let mut correction = vec![0.0; n];
        self.solve_normal(&residual, &mut correction);
        for (xi, ci) in x.iter_mut().zip(&correction) {
            *xi += ci;
        }
        for xi in x.iter_mut() {
            *xi /= self.scale;
        }
    }

    /// `y = (As^T As + delta I)^-1 As^T r`.
    fn solve_normal(&self, r: &[f64], y: &mut [f64]) {
        let (n, l) = (self.n, &self.cholesky);
        for (j, yj) in y.iter_mut().enumerate() {
            *yj = (0..n).map(|i| self.scaled[i * n + j] * r[i]).sum();
        }
        for i in 0..n {
            let s = dot(&l[i * n..i * n + i], &y[..i]);
            y[i] = (y[i] - s) / l[i * n + i];
        }
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|k| l[k * n + i] * y[k]).sum();
            y[i] = (y[i] - s) / l[i * n + i];
        }
    }
}
