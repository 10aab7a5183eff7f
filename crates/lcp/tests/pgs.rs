//! Projected Gauss-Seidel reaches the solution of the boxed LCP.
//!
//! Invariants checked: on hand-solved 2x2 problems (interior, lower bound, upper bound,
//! unbounded row, friction at its limit, `lo = hi = 0`) PGS returns the analytic `x` and `w`;
//! on random symmetric positive definite problems both PGS and the accelerated projected
//! gradient (`solve_pgd`) agree to 1e-6 with a brute-force oracle that enumerates every
//! assignment of each row to {lower, upper, free}; a warm start at the solution stops after
//! one sweep; the Coulomb-cone option keeps `|f_t| <= mu f_n` and opposes the tangential
//! slack; a sparse operator that caches `M^-1 J^T x` gives the dense answer; bad input is a
//! typed error, never a panic. The oracle lives here (`mod oracle`) and serves both solvers.

use proptest::prelude::*;
use stiction_lcp::pgd::{solve_pgd, PgdOptions};
use stiction_lcp::pgs::batch::BatchedRowOperator;
use stiction_lcp::pgs::{
    pgs_sweeps, solve_pgs, DenseOperator, PgsOptions, PgsScratch, RowOperator,
};
mod common;

use common::{assert_close, hand_cases, matrix};
use stiction_lcp::generate::SplitMix64 as Rng;
use stiction_lcp::{BoxedLcp, DenseMatrix, LcpError, Status};

/// Brute-force solver for small boxed LCPs: every row is put at its lower bound, its upper
/// bound or left free, the resulting linear system is solved by Gaussian elimination, and
/// each candidate is kept if it satisfies the BLCP conditions. A friction row at a bound is
/// the linear equation `x_i = -+mu x_j`, which covers every solution with `x_j >= 0` (all
/// the friction problems here have normals bounded below by 0).
mod oracle {
    use stiction_lcp::BoxedLcp;

    /// Every distinct solution, `3^n` systems of size `n`; keep `n <= 7`.
    pub fn solutions(p: &BoxedLcp) -> Vec<Vec<f64>> {
        let n = p.len();
        assert!(n <= 7, "the oracle enumerates 3^n cases");
        let mut found: Vec<Vec<f64>> = Vec::new();
        let mut state = vec![0u8; n];
        for code in 0..3usize.pow(n as u32) {
            let mut c = code;
            for s in state.iter_mut() {
                *s = (c % 3) as u8;
                c /= 3;
            }
            let Some(x) = solve_assignment(p, &state) else {
                continue;
            };
            if satisfies(p, &x) && !found.iter().any(|y| distance(y, &x) < 1e-8) {
                found.push(x);
            }
        }
        found
    }

    /// The linear system of one assignment (0 = lower, 1 = upper, 2 = free).
    fn solve_assignment(p: &BoxedLcp, state: &[u8]) -> Option<Vec<f64>> {
        let n = p.len();
        let mut m = vec![vec![0.0; n + 1]; n];
        for i in 0..n {
            match (state[i], p.findex[i]) {
                (2, _) => {
                    m[i][..n].copy_from_slice(p.a.row(i));
                    m[i][n] = p.b[i];
                }
                (s, Some(j)) => {
                    let sign = if s == 0 { -1.0 } else { 1.0 };
                    m[i][i] = 1.0;
                    m[i][j] = -sign * p.hi[i];
                }
                (s, None) => {
                    let value = if s == 0 { p.lo[i] } else { p.hi[i] };
                    if !value.is_finite() {
                        return None;
                    }
                    m[i][i] = 1.0;
                    m[i][n] = value;
                }
            }
        }
        gauss(m)
    }

    /// Gaussian elimination with partial pivoting on an augmented `n x (n+1)` matrix.
    fn gauss(mut m: Vec<Vec<f64>>) -> Option<Vec<f64>> {
        let n = m.len();
        for col in 0..n {
            let pivot = (col..n).max_by(|&r, &s| m[r][col].abs().total_cmp(&m[s][col].abs()))?;
            if m[pivot][col].abs() < 1e-12 {
                return None;
            }
            m.swap(col, pivot);
            let (upper, lower) = m.split_at_mut(col + 1);
            let pivot_row = &upper[col];
            for row in lower {
                let factor = row[col] / pivot_row[col];
                for (v, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                    *v -= factor * p;
                }
            }
        }
        let mut x = vec![0.0; n];
        for r in (0..n).rev() {
            let tail: f64 = (r + 1..n).map(|k| m[r][k] * x[k]).sum();
            x[r] = (m[r][n] - tail) / m[r][r];
        }
        Some(x)
    }

    /// The three BLCP cases, to 1e-9 of the problem's scale.
    fn satisfies(p: &BoxedLcp, x: &[f64]) -> bool {
        let w = p.slack(x);
        let tol_x = 1e-9 * (1.0 + x.iter().fold(0.0f64, |m, v| m.max(v.abs())));
        let tol_w = 1e-9 * (1.0 + p.b.iter().fold(0.0f64, |m, v| m.max(v.abs())));
        (0..p.len()).all(|i| {
            let (lo, hi) = p.effective_bounds(i, x);
            let inside = x[i] >= lo - tol_x && x[i] <= hi + tol_x;
            let at_lo = x[i] - lo <= tol_x;
            let at_hi = hi - x[i] <= tol_x;
            inside && (w[i].abs() <= tol_w || (at_lo && w[i] >= -tol_w) || (at_hi && w[i] <= tol_w))
        })
    }

    pub fn distance(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).fold(0.0, |m, (u, v)| m.max((u - v).abs()))
    }
}

/// `A = B B^T + c I` with `B` uniform in `[-1, 1]` and `c` in `[0.3, 1]`.
fn random_spd(rng: &mut Rng, n: usize) -> DenseMatrix {
    let b = DenseMatrix::from_row_major(n, n, (0..n * n).map(|_| rng.range(-1.0, 1.0)).collect())
        .unwrap();
    let mut a = b.mul_mat(&b.transpose());
    let c = rng.range(0.3, 1.0);
    for i in 0..n {
        a[(i, i)] += c;
    }
    a
}

/// A random SPD problem of size `n` whose rows mix every kind of bound: a leading block of
/// unbounded (`nub`) rows, `[0, inf)`, finite boxes, one-sided bounds and `lo = hi = 0`.
fn random_box_problem(rng: &mut Rng, n: usize) -> BoxedLcp {
    let a = random_spd(rng, n);
    let b = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
    let mut p = BoxedLcp::new(a, b);
    p.nub = rng.below(2);
    for i in 0..n {
        let (lo, hi) = if i < p.nub {
            (f64::NEG_INFINITY, f64::INFINITY)
        } else {
            match rng.below(5) {
                0 => (0.0, f64::INFINITY),
                1 => (rng.range(-1.0, 0.0), rng.range(0.0, 1.0)),
                2 => (f64::NEG_INFINITY, rng.range(0.0, 1.0)),
                3 => (rng.range(-1.0, 0.0), f64::INFINITY),
                _ => (0.0, 0.0),
            }
        };
        p.lo[i] = lo;
        p.hi[i] = hi;
    }
    p
}

/// A random SPD problem of `contacts` contacts, each a normal row `[0, inf)` followed by two
/// friction rows with a common coefficient in `[0.1, 0.8]`.
fn random_contact_problem(rng: &mut Rng, contacts: usize) -> BoxedLcp {
    let n = 3 * contacts;
    let a = random_spd(rng, n);
    let b = (0..n)
        .map(|i| {
            if i % 3 == 0 {
                rng.range(-0.5, 2.0)
            } else {
                rng.range(-2.0, 2.0)
            }
        })
        .collect();
    let mut p = BoxedLcp::new(a, b);
    for c in 0..contacts {
        let mu = rng.range(0.1, 0.8);
        for t in [3 * c + 1, 3 * c + 2] {
            p.findex[t] = Some(3 * c);
            p.lo[t] = 0.0;
            p.hi[t] = mu;
        }
    }
    p
}

fn tight() -> PgsOptions {
    PgsOptions {
        max_iterations: 20_000,
        tolerance: 1e-13,
        ..PgsOptions::default()
    }
}

fn tight_pgd() -> PgdOptions {
    PgdOptions {
        max_iterations: 50_000,
        tolerance: 1e-11,
        ..PgdOptions::default()
    }
}

/// Solves with PGS and checks the analytic `x` and `w`.
fn check_pgs(p: &BoxedLcp, x: &[f64], w: &[f64]) {
    let report = solve_pgs(p, None, &tight()).unwrap();
    assert_eq!(report.status, Status::Solved, "{report:?}");
    assert_close(&report.x, x, 1e-9);
    assert_close(&report.w, w, 1e-9);
    assert!(report.residual.max() < 1e-9, "{:?}", report.residual);
    // The oracle must agree with the hand solution too, or the oracle is wrong.
    let all = oracle::solutions(p);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_close(&all[0], x, 1e-12);
}

#[test]
fn hand_solved_problems() {
    for case in hand_cases() {
        eprintln!("case: {}", case.name);
        check_pgs(&case.problem, &case.x, &case.w);
    }
}

#[test]
fn over_relaxation_reaches_the_same_solution() {
    let p = BoxedLcp::new(matrix(&[&[2.0, 1.0], &[1.0, 2.0]]), vec![3.0, -3.0]);
    for omega in [0.5, 1.3, 1.9] {
        let options = PgsOptions { omega, ..tight() };
        let report = solve_pgs(&p, None, &options).unwrap();
        assert_eq!(report.status, Status::Solved, "omega {omega}");
        assert_close(&report.x, &[1.5, 0.0], 1e-9);
    }
}

#[test]
fn exact_warm_start_converges_in_one_sweep() {
    let mut p = BoxedLcp::new(matrix(&[&[2.0, 0.5], &[0.5, 1.0]]), vec![4.0, 3.0]);
    p.findex[1] = Some(0);
    p.hi[1] = 0.5;
    let exact = [16.0 / 9.0, 8.0 / 9.0];
    let report = solve_pgs(&p, Some(&exact), &PgsOptions::default()).unwrap();
    assert_eq!(report.status, Status::Solved);
    assert_eq!(report.iterations, 1);
    assert_close(&report.x, &exact, 1e-14);
    // A cold start needs more than one sweep, so the count above is not trivially 1.
    let cold = solve_pgs(&p, None, &PgsOptions::default()).unwrap();
    assert!(cold.iterations > 1, "{}", cold.iterations);
}

#[test]
fn running_out_of_sweeps_is_reported() {
    let p = BoxedLcp::new(matrix(&[&[2.0, 1.0], &[1.0, 2.0]]), vec![3.0, 3.0]);
    let options = PgsOptions {
        max_iterations: 2,
        ..PgsOptions::default()
    };
    let report = solve_pgs(&p, None, &options).unwrap();
    assert_eq!(report.status, Status::IterationLimit);
    assert_eq!(report.iterations, 2);
    assert!(report.residual.max() > 1e-3);
}

#[test]
fn bad_options_are_rejected() {
    let p = BoxedLcp::new(matrix(&[&[2.0]]), vec![1.0]);
    for omega in [0.0, 2.0, -1.0, 2.5, f64::NAN, f64::INFINITY] {
        let options = PgsOptions {
            omega,
            ..PgsOptions::default()
        };
        let err = solve_pgs(&p, None, &options).unwrap_err();
        assert!(
            matches!(
                err,
                LcpError::BadOption {
                    option: "omega",
                    ..
                }
            ),
            "{omega}: {err:?}"
        );
    }
    let cases = [
        (
            PgsOptions {
                max_iterations: 0,
                ..PgsOptions::default()
            },
            "max_iterations",
        ),
        (
            PgsOptions {
                tolerance: -1.0,
                ..PgsOptions::default()
            },
            "tolerance",
        ),
        (
            PgsOptions {
                residual_tolerance: 0.0,
                ..PgsOptions::default()
            },
            "residual_tolerance",
        ),
    ];
    for (options, name) in cases {
        let err = solve_pgs(&p, None, &options).unwrap_err();
        assert!(
            matches!(err, LcpError::BadOption { option, .. } if option == name),
            "{err:?}"
        );
    }
}

#[test]
fn bad_warm_starts_are_rejected() {
    let p = BoxedLcp::new(matrix(&[&[2.0, 1.0], &[1.0, 2.0]]), vec![3.0, 3.0]);
    let err = solve_pgs(&p, Some(&[1.0]), &PgsOptions::default()).unwrap_err();
    assert_eq!(
        err,
        LcpError::LengthMismatch {
            field: "warm_start",
            expected: 2,
            found: 1
        }
    );
    let err = solve_pgs(&p, Some(&[1.0, f64::NAN]), &PgsOptions::default()).unwrap_err();
    assert!(
        matches!(
            err,
            LcpError::NonFinite {
                field: "warm_start",
                index: 1,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn nan_in_the_problem_is_rejected() {
    let good = BoxedLcp::new(matrix(&[&[2.0, 1.0], &[1.0, 2.0]]), vec![3.0, 3.0]);
    let mut in_a = good.clone();
    in_a.a[(0, 1)] = f64::NAN;
    let mut in_b = good.clone();
    in_b.b[1] = f64::NAN;
    let mut in_lo = good.clone();
    in_lo.lo[0] = f64::NAN;
    let mut in_hi = good.clone();
    in_hi.hi[1] = f64::NAN;
    for (p, field) in [(in_a, "a"), (in_b, "b"), (in_lo, "lo"), (in_hi, "hi")] {
        let err = solve_pgs(&p, None, &PgsOptions::default()).unwrap_err();
        assert!(
            matches!(err, LcpError::NonFinite { field: f, .. } if f == field),
            "{field}: {err:?}"
        );
    }
}

#[test]
fn zero_diagonal_row_is_frozen_and_shows_in_the_status() {
    // Row 0 is all zeros: w_0 = -b_0 whatever x is. With b_0 = 1, w_0 = -1 < 0 at the lower
    // bound 0: unsatisfiable, and PGS must not call that solved (nor panic).
    let a = matrix(&[&[0.0, 0.0], &[0.0, 2.0]]);
    let p = BoxedLcp::new(a.clone(), vec![1.0, 2.0]);
    let report = solve_pgs(&p, None, &PgsOptions::default()).unwrap();
    assert_ne!(report.status, Status::Solved);
    assert_close(&report.x, &[0.0, 1.0], 1e-12);
    assert_close(&report.w, &[-1.0, 0.0], 1e-12);

    // With b_0 = -1 the frozen row is satisfied at its (projected) warm start.
    let p = BoxedLcp::new(a, vec![-1.0, 2.0]);
    let report = solve_pgs(&p, Some(&[-5.0, 0.0]), &PgsOptions::default()).unwrap();
    assert_eq!(report.status, Status::Solved);
    assert_close(&report.x, &[0.0, 1.0], 1e-12);

    // An indefinite matrix with a zero diagonal coupled to row 1: x_0 stays 0, x_1 = 1.
    // With b_0 = 1 that happens to satisfy row 0 (w_0 = x_1 - 1 = 0); with b_0 = 2 it does
    // not (w_0 = -1 at the lower bound), and the status must say so.
    let a = matrix(&[&[0.0, 1.0], &[1.0, 2.0]]);
    let p = BoxedLcp::new(a.clone(), vec![1.0, 2.0]);
    let report = solve_pgs(&p, None, &PgsOptions::default()).unwrap();
    assert_eq!(report.status, Status::Solved);
    assert_close(&report.x, &[0.0, 1.0], 1e-12);
    let p = BoxedLcp::new(a, vec![2.0, 2.0]);
    let report = solve_pgs(&p, None, &PgsOptions::default()).unwrap();
    assert_ne!(report.status, Status::Solved);
    assert_close(&report.w, &[-1.0, 0.0], 1e-12);
}

#[test]
fn overflow_is_reported_as_non_finite_not_solved() {
    // x = b / a = 1e300 / 1e-300 overflows.
    let p = BoxedLcp::new(matrix(&[&[1e-300]]), vec![1e300]);
    let report = solve_pgs(&p, None, &PgsOptions::default()).unwrap();
    assert_eq!(report.status, Status::NonFinite);
    assert!(report.x.iter().all(|v| v.is_finite()));
}

#[test]
fn empty_problem_is_solved() {
    let p = BoxedLcp::new(DenseMatrix::zeros(0, 0), vec![]);
    let report = solve_pgs(&p, None, &PgsOptions::default()).unwrap();
    assert_eq!(report.status, Status::Solved);
    assert!(report.x.is_empty());
}

/// One contact: normal row 0 and friction rows 1, 2 with mu = 0.5.
fn single_contact(a: DenseMatrix, b: Vec<f64>) -> BoxedLcp {
    let mut p = BoxedLcp::new(a, b);
    for t in [1, 2] {
        p.findex[t] = Some(0);
        p.hi[t] = 0.5;
    }
    p
}

#[test]
fn coulomb_cone_caps_the_friction_force_along_the_demand() {
    // Decoupled, isotropic: x_n = 1; the tangential demand (3, 4) has length 5 > mu x_n =
    // 0.5, so the cone gives 0.5 * (3, 4) / 5 = (0.3, 0.4). The box would give (0.5, 0.5),
    // whose length 0.707 exceeds the cone.
    let p = single_contact(DenseMatrix::identity(3), vec![1.0, 3.0, 4.0]);
    let cone = PgsOptions {
        coulomb_cone: true,
        ..tight()
    };
    let report = solve_pgs(&p, None, &cone).unwrap();
    assert_eq!(report.status, Status::Solved, "{report:?}");
    let (f_n, f_1, f_2) = (report.x[0], report.x[1], report.x[2]);
    assert!((f_n - 1.0).abs() < 1e-12);
    assert!(f_1.hypot(f_2) <= 0.5 * f_n + 1e-12);
    assert!((f_1.hypot(f_2) - 0.5 * f_n).abs() < 1e-9);
    // Along the demand: parallel (zero cross product) and same sense.
    assert!((f_1 * 4.0 - f_2 * 3.0).abs() < 1e-12);
    assert!(f_1 > 0.0 && f_2 > 0.0);
    assert_close(&report.x, &[1.0, 0.3, 0.4], 1e-10);

    let boxed = solve_pgs(&p, None, &tight()).unwrap();
    assert_close(&boxed.x, &[1.0, 0.5, 0.5], 1e-10);
}

#[test]
fn coulomb_cone_with_coupling_satisfies_maximal_dissipation() {
    // Coupled rows and an anisotropic tangent block: no closed form, so check the cone's
    // optimality conditions: normal complementarity, the force on the disk, and the
    // tangential slack w_t anti-parallel to f_t (friction opposes sliding).
    let a = matrix(&[&[3.0, 0.5, -0.2], &[0.5, 2.0, 0.3], &[-0.2, 0.3, 1.0]]);
    let p = single_contact(a, vec![3.0, 4.0, -3.0]);
    let options = PgsOptions {
        coulomb_cone: true,
        ..tight()
    };
    let report = solve_pgs(&p, None, &options).unwrap();
    assert_eq!(report.status, Status::Solved, "{report:?}");
    let (x, w) = (&report.x, &report.w);
    assert!(x[0] > 0.0 && w[0].abs() < 1e-9);
    let radius = 0.5 * x[0];
    assert!(x[1].hypot(x[2]) <= radius + 1e-12);
    assert!((x[1].hypot(x[2]) - radius).abs() < 1e-9, "sliding contact");
    let cross = x[1] * w[2] - x[2] * w[1];
    assert!(cross.abs() < 1e-8, "cross {cross}");
    assert!(x[1] * w[1] + x[2] * w[2] < 0.0);
    // Over-relaxation must land on the same point.
    let sor = solve_pgs(
        &p,
        None,
        &PgsOptions {
            omega: 1.4,
            ..options
        },
    )
    .unwrap();
    assert_eq!(sor.status, Status::Solved);
    assert_close(&sor.x, x, 1e-8);
}

#[test]
fn coulomb_cone_with_unequal_coefficients_is_an_ellipse() {
    // mu = (0.5, 0.25): the limit is (f_1/0.5)^2 + (f_2/0.25)^2 <= f_n^2. The demand (3, 4)
    // is far outside, so the force ends on the ellipse, and the solve is certified by the
    // residual in the scaled coordinates f/mu.
    let mut p = single_contact(DenseMatrix::identity(3), vec![1.0, 3.0, 4.0]);
    p.hi[2] = 0.25;
    let options = PgsOptions {
        coulomb_cone: true,
        ..tight()
    };
    let report = solve_pgs(&p, None, &options).unwrap();
    assert_eq!(report.status, Status::Solved, "{report:?}");
    let x = &report.x;
    let scaled = (x[1] / 0.5).hypot(x[2] / 0.25);
    assert!(
        (scaled - x[0]).abs() < 1e-9,
        "on the ellipse: {scaled} vs {}",
        x[0]
    );
    assert!(x[1] > 0.0 && x[2] > 0.0);
}

#[test]
fn coulomb_cone_keeps_the_box_for_unpaired_friction_rows() {
    // Three friction rows on one normal: no pair is formed, each row keeps its box.
    let mut p = BoxedLcp::new(DenseMatrix::identity(4), vec![1.0, 3.0, 4.0, -2.0]);
    for t in 1..4 {
        p.findex[t] = Some(0);
        p.hi[t] = 0.5;
    }
    let options = PgsOptions {
        coulomb_cone: true,
        ..tight()
    };
    let report = solve_pgs(&p, None, &options).unwrap();
    assert_eq!(report.status, Status::Solved);
    assert_close(&report.x, &[1.0, 0.5, 0.5, -0.5], 1e-10);
}

/// `A = J M^-1 J^T + diag(cfm)` answered from a cached `a = M^-1 J^T x`, as the engine does.
struct CachedJacobian {
    j: DenseMatrix,
    inv_mass: Vec<f64>,
    cfm: Vec<f64>,
    a: Vec<f64>,
    /// Whether to answer `off_diagonal` (else the solver assumes the worst coupling).
    knows_off_diagonal: bool,
    begins: usize,
}

impl CachedJacobian {
    fn random(rng: &mut Rng, rows: usize, dofs: usize) -> Self {
        let j = DenseMatrix::from_row_major(
            rows,
            dofs,
            (0..rows * dofs).map(|_| rng.range(-1.0, 1.0)).collect(),
        )
        .unwrap();
        Self {
            j,
            inv_mass: (0..dofs).map(|_| rng.range(0.5, 2.0)).collect(),
            cfm: (0..rows).map(|_| rng.range(0.01, 0.1)).collect(),
            a: vec![0.0; dofs],
            knows_off_diagonal: true,
            begins: 0,
        }
    }

    fn entry(&self, i: usize, k: usize) -> f64 {
        let (ri, rk) = (self.j.row(i), self.j.row(k));
        let jmj: f64 = (0..ri.len())
            .map(|d| ri[d] * self.inv_mass[d] * rk[d])
            .sum();
        jmj + if i == k { self.cfm[i] } else { 0.0 }
    }

    fn dense(&self) -> DenseMatrix {
        let n = self.j.rows();
        let mut a = DenseMatrix::zeros(n, n);
        for i in 0..n {
            for k in 0..n {
                a[(i, k)] = self.entry(i, k);
            }
        }
        a
    }
}

impl RowOperator for CachedJacobian {
    fn len(&self) -> usize {
        self.j.rows()
    }

    fn diagonal(&self, i: usize) -> f64 {
        self.entry(i, i)
    }

    fn row_times_vector(&self, i: usize, x: &[f64]) -> f64 {
        let row = self.j.row(i);
        row.iter().zip(&self.a).map(|(v, a)| v * a).sum::<f64>() + self.cfm[i] * x[i]
    }

    fn off_diagonal(&self, i: usize, k: usize) -> Option<f64> {
        self.knows_off_diagonal.then(|| self.entry(i, k))
    }

    fn begin(&mut self, x: &[f64]) {
        self.begins += 1;
        self.a.fill(0.0);
        for (r, xr) in x.iter().enumerate() {
            self.row_changed(r, *xr);
        }
    }

    fn row_changed(&mut self, i: usize, delta: f64) {
        for ((a, v), m) in self.a.iter_mut().zip(self.j.row(i)).zip(&self.inv_mass) {
            *a += m * v * delta;
        }
    }
}

impl BatchedRowOperator for CachedJacobian {}

#[test]
fn cached_sparse_operator_matches_the_dense_solve() {
    let mut rng = Rng::new(7);
    let mut op = CachedJacobian::random(&mut rng, 9, 12);
    let mut p = random_contact_problem(&mut rng, 3);
    p.a = op.dense();
    let mut solves = 0;
    for (cone, knows_off_diagonal) in [(false, true), (true, true), (true, false)] {
        op.knows_off_diagonal = knows_off_diagonal;
        let options = PgsOptions {
            coulomb_cone: cone,
            max_iterations: 5000,
            tolerance: 1e-12,
            ..PgsOptions::default()
        };
        let dense = solve_pgs(&p, None, &options).unwrap();
        assert_eq!(dense.status, Status::Solved, "cone {cone}: {dense:?}");

        let mut x = vec![0.0; p.len()];
        let mut scratch = PgsScratch::new();
        let outcome = pgs_sweeps(
            &mut op,
            &p.b,
            &p.lo,
            &p.hi,
            &p.findex,
            &mut x,
            &options,
            &mut scratch,
        )
        .unwrap();
        solves += 1;
        assert!(outcome.converged);
        assert_eq!(outcome.frozen_rows, 0);
        assert_close(&x, &dense.x, 1e-9);
        if knows_off_diagonal {
            // Same arithmetic up to rounding, so the same number of sweeps.
            assert!(
                outcome.sweeps.abs_diff(dense.iterations) <= 1,
                "{outcome:?} vs {}",
                dense.iterations
            );
        } else {
            // The worst-case coupling bound shortens the cone pairs' step: same answer,
            // more sweeps.
            assert!(outcome.sweeps > dense.iterations, "{outcome:?}");
        }
        // The cache followed every change: it equals M^-1 J^T x rebuilt from scratch.
        let cached = op.a.clone();
        op.begin(&x);
        assert_close(&cached, &op.a, 1e-12);
    }
    assert_eq!(
        op.begins,
        2 * solves,
        "one begin per solve plus one per check"
    );
}

#[test]
fn sweeps_reject_malformed_slices_without_panicking() {
    let a = matrix(&[&[2.0, 1.0], &[1.0, 2.0]]);
    let mut op = DenseOperator::new(&a);
    let mut scratch = PgsScratch::new();
    let options = PgsOptions::default();
    let inf = f64::INFINITY;
    let mut x = vec![0.0; 2];
    let err = pgs_sweeps(
        &mut op,
        &[1.0],
        &[0.0, 0.0],
        &[inf, inf],
        &[None, None],
        &mut x,
        &options,
        &mut scratch,
    )
    .unwrap_err();
    assert!(matches!(err, LcpError::LengthMismatch { field: "b", .. }));
    let err = pgs_sweeps(
        &mut op,
        &[1.0, 1.0],
        &[0.0, 0.0],
        &[inf, 0.5],
        &[None, Some(5)],
        &mut x,
        &options,
        &mut scratch,
    )
    .unwrap_err();
    assert!(matches!(err, LcpError::FindexOutOfRange { index: 1, .. }));
}

#[test]
fn reused_scratch_gives_identical_results() {
    let mut rng = Rng::new(11);
    let mut scratch = PgsScratch::new();
    for n in [6, 3, 6] {
        let p = random_box_problem(&mut rng, n);
        let mut op = DenseOperator::new(&p.a);
        let mut reused = vec![0.0; n];
        pgs_sweeps(
            &mut op,
            &p.b,
            &p.lo,
            &p.hi,
            &p.findex,
            &mut reused,
            &tight(),
            &mut scratch,
        )
        .unwrap();
        let fresh = solve_pgs(&p, None, &tight()).unwrap();
        assert_eq!(reused, fresh.x);
    }
}

/// Both iterative solvers against the oracle on one random problem.
fn agree_with_oracle(p: &BoxedLcp) -> Result<(), TestCaseError> {
    let solutions = oracle::solutions(p);
    prop_assert!(!solutions.is_empty(), "the oracle found no solution");
    let nearest = |x: &[f64]| {
        solutions
            .iter()
            .map(|s| oracle::distance(s, x))
            .fold(f64::INFINITY, f64::min)
    };

    let pgs = solve_pgs(p, None, &tight()).unwrap();
    prop_assert_eq!(pgs.status, Status::Solved, "{:?}", pgs);
    prop_assert!(nearest(&pgs.x) < 1e-6, "pgs {:?} vs {:?}", pgs.x, solutions);

    let pgd = solve_pgd(p, None, &tight_pgd()).unwrap();
    prop_assert_eq!(pgd.status, Status::Solved, "{:?}", pgd);
    prop_assert!(nearest(&pgd.x) < 1e-6, "pgd {:?} vs {:?}", pgd.x, solutions);

    // Warm-started at the oracle's answer, one sweep confirms it.
    let warm = solve_pgs(p, Some(&solutions[0]), &PgsOptions::default()).unwrap();
    prop_assert_eq!(warm.status, Status::Solved);
    prop_assert_eq!(warm.iterations, 1);
    Ok(())
}

proptest! {
    // A fixed seed keeps CI deterministic; raise PROPTEST_CASES locally to explore further.
    #![proptest_config(ProptestConfig { cases: 64, rng_seed: proptest::test_runner::RngSeed::Fixed(20_261_122), ..ProptestConfig::default() })]

    #[test]
    fn random_box_problems_match_the_oracle(seed in any::<u64>(), n in 1usize..=7) {
        let mut rng = Rng::new(seed);
        let p = random_box_problem(&mut rng, n);
        let unique = oracle::solutions(&p);
        // Positive definite A: the box-constrained QP has exactly one minimiser.
        prop_assert_eq!(unique.len(), 1);
        agree_with_oracle(&p)?;
    }

    #[test]
    fn random_contact_problems_match_the_oracle(seed in any::<u64>(), contacts in 1usize..=2) {
        let mut rng = Rng::new(seed);
        let p = random_contact_problem(&mut rng, contacts);
        agree_with_oracle(&p)?;
    }
}

/// The dense operator with fewer abilities: `off_diagonal: false` hides the off-diagonal
/// entries ([`pgs_sweeps`] then finds no contact blocks and updates every row on its own);
/// `zero_pattern: Some(a)` calls two contact blocks independent when `a` is zero between
/// them (the sweeps then plan batches, which this operator leaves to the solver);
/// `triples` lets every three unbounded rows form a block, whose reads are counted in
/// `block_reads`; the blocks and single rows starting at the rows of `unbatchable` may not
/// be batched; the batches the sweeps plan are kept in `planned` (blocks' first rows, then
/// single rows).
struct Restricted<'a> {
    inner: DenseOperator<'a>,
    off_diagonal: bool,
    zero_pattern: Option<&'a DenseMatrix>,
    triples: bool,
    block_reads: std::cell::Cell<usize>,
    unbatchable: &'a [usize],
    planned: (Vec<[u32; 4]>, Vec<[u32; 4]>),
}

/// `options.max_iterations` sweeps of `op` on `p` from `x = 0`.
fn sweeps_from_zero<O: BatchedRowOperator>(
    op: &mut O,
    p: &BoxedLcp,
    options: &PgsOptions,
) -> Vec<f64> {
    let mut x = vec![0.0; p.len()];
    pgs_sweeps(
        op,
        &p.b,
        &p.lo,
        &p.hi,
        &p.findex,
        &mut x,
        options,
        &mut PgsScratch::new(),
    )
    .unwrap();
    x
}

/// Asserts that `grouped` (blocks, triples or batches) and `rows` (row by row) agree to
/// round-off, entry by entry, relative to the largest `|rows_i|`.
fn assert_same_iterates(grouped: &[f64], rows: &[f64], context: &str) {
    let scale = rows.iter().fold(1e-300f64, |m, v| m.max(v.abs()));
    for (i, (u, v)) in grouped.iter().zip(rows).enumerate() {
        assert!(
            (u - v).abs() <= 1e-12 * scale,
            "{context}, row {i}: grouped {u} against rows {v}"
        );
    }
}

/// [`Restricted`] with the off-diagonal entries (so contact blocks), batching by
/// `zero_pattern` if given and grouping unbounded triples if `triples`.
fn with_off_diagonal<'a>(
    inner: DenseOperator<'a>,
    zero_pattern: Option<&'a DenseMatrix>,
    triples: bool,
) -> Restricted<'a> {
    Restricted {
        inner,
        off_diagonal: true,
        zero_pattern,
        triples,
        block_reads: Default::default(),
        unbatchable: &[],
        planned: Default::default(),
    }
}

/// Seven sweeps at `omega`, no early stop: iterates to compare sweep for sweep.
fn seven_sweeps(omega: f64) -> PgsOptions {
    PgsOptions {
        omega,
        max_iterations: 7,
        tolerance: 0.0,
        ..PgsOptions::default()
    }
}

/// [`Restricted`] sweeping row by row.
fn row_by_row(inner: DenseOperator<'_>) -> Restricted<'_> {
    Restricted {
        inner,
        off_diagonal: false,
        zero_pattern: None,
        triples: false,
        block_reads: Default::default(),
        unbatchable: &[],
        planned: Default::default(),
    }
}

impl RowOperator for Restricted<'_> {
    fn len(&self) -> usize {
        self.inner.len()
    }

    fn diagonal(&self, i: usize) -> f64 {
        self.inner.diagonal(i)
    }

    fn row_times_vector(&self, i: usize, x: &[f64]) -> f64 {
        self.inner.row_times_vector(i, x)
    }

    fn off_diagonal(&self, i: usize, k: usize) -> Option<f64> {
        self.off_diagonal
            .then(|| self.inner.off_diagonal(i, k))
            .flatten()
    }
}

impl BatchedRowOperator for Restricted<'_> {
    fn block_times_vector(&self, i: usize, x: &[f64]) -> [f64; 3] {
        self.block_reads.set(self.block_reads.get() + 1);
        std::array::from_fn(|k| self.inner.row_times_vector(i + k, x))
    }

    fn shares_triple(&self, _: usize) -> bool {
        self.triples
    }

    fn may_batch(&self) -> bool {
        self.zero_pattern.is_some()
    }

    fn independent_rows(&self, i: usize, k: usize) -> bool {
        self.zero_pattern.is_some_and(|a| a[(i, k)] == 0.0)
    }

    fn independent_blocks(&self, i: usize, k: usize) -> bool {
        self.zero_pattern
            .is_some_and(|a| (i..i + 3).all(|r| (k..k + 3).all(|c| a[(r, c)] == 0.0)))
    }

    fn batchable_block(&self, i: usize) -> bool {
        !self.unbatchable.contains(&i)
    }

    fn batchable_row(&self, i: usize) -> bool {
        !self.unbatchable.contains(&i)
    }

    fn prepare_batches(&mut self, batches: &[[u32; 4]], _: &[f64]) {
        self.planned.0 = batches.to_vec();
    }

    fn prepare_row_batches(&mut self, batches: &[[u32; 4]], _: &[f64]) {
        self.planned.1 = batches.to_vec();
    }
}

/// A contact's normal and two friction rows are updated as one block (products read once,
/// friction products corrected by the couplings): the iterates must be those of three
/// single-row steps in the same order, sweep for sweep, on problems where friction hits
/// its bounds and normals separate.
#[test]
fn contact_blocks_take_the_same_steps_as_single_rows() {
    use stiction_lcp::generate::{random_contact_problem, ContactProblemSpec};
    let (mut at_bound, mut separated) = (0, 0);
    for seed in 0..20 {
        let p = random_contact_problem(&ContactProblemSpec {
            seed,
            bodies: 5,
            contacts: 12,
            mu: 0.3 + 0.05 * seed as f64,
            ..ContactProblemSpec::default()
        });
        for omega in [1.0, 1.3] {
            let options = seven_sweeps(omega);
            let blocks = sweeps_from_zero(&mut DenseOperator::new(&p.a), &p, &options);
            let rows = sweeps_from_zero(&mut row_by_row(DenseOperator::new(&p.a)), &p, &options);
            at_bound += (0..p.len())
                .filter(|&i| p.findex[i].is_some_and(|j| rows[j] > 0.0))
                .filter(|&i| (rows[i].abs() - p.hi[i] * rows[p.findex[i].unwrap()]).abs() < 1e-12)
                .count();
            separated += (0..p.len())
                .filter(|&i| p.findex[i].is_none() && rows[i] == 0.0)
                .count();
            assert_same_iterates(&blocks, &rows, &format!("seed {seed}, omega {omega}"));
        }
    }
    assert!(at_bound > 0, "no friction row at its bound");
    assert!(separated > 0, "no separating normal");
}

/// Three unbounded rows that the operator groups (a ball joint's) are updated as one block,
/// like a contact's: the iterates must be those of single-row steps in the same order,
/// sweep for sweep; bounded rows, and unbounded rows short of a triple, stay single.
#[test]
fn unbounded_triples_take_the_same_steps_as_single_rows() {
    for seed in 0..20 {
        let mut rng = Rng::new(seed);
        let mut p = random_box_problem(&mut rng, 11);
        // Triples at rows 0, 3 and 7; row 6 bounded and row 10 unbounded, both single.
        for i in (0..6).chain(7..11) {
            p.lo[i] = f64::NEG_INFINITY;
            p.hi[i] = f64::INFINITY;
        }
        for omega in [1.0, 1.3] {
            let options = seven_sweeps(omega);
            let mut grouped = with_off_diagonal(DenseOperator::new(&p.a), None, true);
            let blocks = sweeps_from_zero(&mut grouped, &p, &options);
            assert_eq!(grouped.block_reads.get(), 3 * 7, "three triples per sweep");
            let rows = sweeps_from_zero(&mut row_by_row(DenseOperator::new(&p.a)), &p, &options);
            assert_same_iterates(&blocks, &rows, &format!("seed {seed}, omega {omega}"));
        }
    }
}

/// Sweeps planned in batches of four independent contact blocks and single rows take the
/// same steps as row by row: on a block-diagonal problem (contacts on separate bodies, so
/// every order is the same Gauss-Seidel) the iterates agree sweep for sweep with the
/// row-by-row solver's. (The operator has no batch kernel; the engine's AVX2 kernel has
/// its own test in `stiction::sparse`.)
#[test]
fn batched_contact_blocks_take_the_same_steps_as_single_rows() {
    use stiction_lcp::generate::{random_contact_problem, ContactProblemSpec};
    let (contacts, singles) = (10, 9);
    let n = 3 * contacts + singles;
    let mut a = DenseMatrix::zeros(n, n);
    let mut p = BoxedLcp::new(DenseMatrix::zeros(n, n), vec![0.0; n]);
    for c in 0..contacts {
        let one = random_contact_problem(&ContactProblemSpec {
            seed: 100 + c as u64,
            bodies: 1,
            contacts: 1,
            mu: 0.3,
            ..ContactProblemSpec::default()
        });
        for r in 0..3 {
            for k in 0..3 {
                a[(3 * c + r, 3 * c + k)] = one.a[(r, k)];
            }
            p.b[3 * c + r] = one.b[r];
            p.lo[3 * c + r] = one.lo[r];
            p.hi[3 * c + r] = one.hi[r];
            p.findex[3 * c + r] = one.findex[r].map(|j| 3 * c + j);
        }
    }
    // Single unilateral rows after the contacts, coupled to nothing.
    for r in 3 * contacts..n {
        a[(r, r)] = 1.0 + 0.1 * r as f64;
        p.b[r] = if r % 3 == 0 { -0.5 } else { 0.7 };
        p.lo[r] = 0.0;
        p.hi[r] = f64::INFINITY;
    }
    p.a = a.clone();
    let options = PgsOptions {
        max_iterations: 5,
        tolerance: 0.0,
        ..PgsOptions::default()
    };
    let mut batching = with_off_diagonal(DenseOperator::new(&p.a), Some(&a), false);
    let batched = sweeps_from_zero(&mut batching, &p, &options);
    let rows = sweeps_from_zero(&mut row_by_row(DenseOperator::new(&p.a)), &p, &options);
    assert!(rows.iter().any(|v| *v != 0.0));
    assert_same_iterates(&batched, &rows, "batched");

    // Blocks and rows the operator may not batch stay out of every batch (nothing joins
    // the batch they open either), and the sweeps are still the row-by-row ones.
    let members = |batches: &[[u32; 4]]| -> Vec<usize> {
        batches.iter().flatten().map(|&m| m as usize).collect()
    };
    let unbatchable = [0, 6, 3 * contacts + 1];
    let (blocks, singles) = (members(&batching.planned.0), members(&batching.planned.1));
    assert!(blocks.contains(&0) && blocks.contains(&6) && singles.contains(&(3 * contacts + 1)));
    batching.unbatchable = &unbatchable;
    let kept_out = sweeps_from_zero(&mut batching, &p, &options);
    assert_same_iterates(&kept_out, &rows, "batched, some units not batchable");
    let (blocks, singles) = (members(&batching.planned.0), members(&batching.planned.1));
    assert!(!blocks.is_empty() && !singles.is_empty());
    for unit in unbatchable {
        assert!(
            !blocks.contains(&unit) && !singles.contains(&unit),
            "{unit} batched"
        );
    }
}

/// A solve declared to have the last one's structure (same rows and friction indices, new
/// numbers) keeps the last sweep plan, refreshing only the blocks' couplings: it is the
/// fresh solve to the bit. With a frozen row, or at another size, it plans afresh.
#[test]
fn a_kept_sweep_plan_gives_the_fresh_solve() {
    let mut rng = Rng::new(11);
    let first = random_contact_problem(&mut rng, 4);
    let second = random_contact_problem(&mut rng, 4);
    let options = PgsOptions {
        max_iterations: 7,
        tolerance: 0.0,
        ..PgsOptions::default()
    };
    let solve = |p: &BoxedLcp, scratch: &mut PgsScratch| {
        let mut x = vec![0.0; p.len()];
        let mut op = DenseOperator::new(&p.a);
        pgs_sweeps(
            &mut op, &p.b, &p.lo, &p.hi, &p.findex, &mut x, &options, scratch,
        )
        .unwrap();
        x
    };
    let fresh = |p: &BoxedLcp| solve(p, &mut PgsScratch::new());
    let mut kept = PgsScratch::new();
    let before = solve(&first, &mut kept);
    kept.assume_same_structure();
    let after = solve(&second, &mut kept);
    assert_eq!(after, fresh(&second));
    // The couplings were refreshed: the first problem's would give other iterates.
    assert_ne!(after, before);

    // A friction row frozen (zero diagonal) leaves its contact's rows out of the block.
    let mut frozen = second.clone();
    frozen.a[(4, 4)] = 0.0;
    kept.assume_same_structure();
    assert_eq!(solve(&frozen, &mut kept), fresh(&frozen));
    // The frozen problem's plan is not kept either, and another size is planned afresh.
    kept.assume_same_structure();
    assert_eq!(solve(&second, &mut kept), fresh(&second));
    let third = random_contact_problem(&mut rng, 5);
    kept.assume_same_structure();
    assert_eq!(solve(&third, &mut kept), fresh(&third));
}
