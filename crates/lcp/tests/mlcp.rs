//! The mixed-LCP reduction: hand-solved mechanical problems, the seed's friction-cone
//! formulation with a bilateral joint, rank-deficient (duplicated) bilateral constraints,
//! random problems plugged back into equations (a)-(d), and typed errors.

use proptest::prelude::*;
use stiction_lcp::lemke::LemkeOptions;
use stiction_lcp::mlcp::{reduce_mlcp, solve_mlcp, Mlcp, MlcpSolution, ReductionOptions};
use stiction_lcp::{DenseMatrix, LcpError, Status};

/// How well the regularised path meets equation (a) on exactly duplicated constraints,
/// relative to the problem's scale (see `Mlcp::residual`); the figures measured in these
/// tests are around `1e-16`.
const REGULARISED_TOL: f64 = 1e-10;

fn mat(rows: &[&[f64]]) -> DenseMatrix {
    DenseMatrix::from_rows(rows).unwrap()
}

fn assert_close(found: &[f64], expected: &[f64], tol: f64) {
    assert_eq!(found.len(), expected.len(), "{found:?} vs {expected:?}");
    for (i, (f, e)) in found.iter().zip(expected).enumerate() {
        assert!(
            (f - e).abs() <= tol,
            "entry {i}: found {f}, expected {e} (all: {found:?} vs {expected:?})"
        );
    }
}

/// Equations (a)-(d) checked directly from the blocks, independently of
/// `Mlcp::residual`: each row's violation over the size that row's terms can have,
/// `max_j |A_ij| |u|_inf + max_j |X1_ij| |y|_inf + |a_i|` (likewise for the slack rows).
fn assert_satisfies(p: &Mlcp, u: &[f64], y: &[f64], tol: f64) {
    let inf = |v: &[f64]| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let (u_inf, y_inf) = (inf(u), inf(y));
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    for i in 0..p.free_len() {
        let (a_row, x1_row) = (p.a_matrix.row(i), p.x1.row(i));
        let sum = dot(a_row, u) + dot(x1_row, y) + p.a_vector[i];
        let scale = (inf(a_row) * u_inf + inf(x1_row) * y_inf + p.a_vector[i].abs()).max(1e-300);
        assert!(
            sum.abs() <= tol * scale,
            "(a) row {i}: {sum:e} (scale {scale:e})"
        );
    }
    for i in 0..p.constrained_len() {
        let (x2_row, x3_row) = (p.x2.row(i), p.x3.row(i));
        let slack = dot(x2_row, u) + dot(x3_row, y) + p.x4[i];
        let scale = (inf(x2_row) * u_inf + inf(x3_row) * y_inf + p.x4[i].abs()).max(1e-300);
        assert!(slack >= -tol * scale, "(b) row {i}: slack {slack:e}");
        assert!(y[i] >= -tol * y_inf, "(c) y[{i}] = {:e}", y[i]);
        assert!(
            (y[i] * slack).abs() <= tol * y_inf.max(1e-300) * scale,
            "(d) row {i}: y = {:e}, slack = {slack:e}",
            y[i]
        );
    }
}

/// Duplicated constraints get the least-norm split of their total force, up to roundoff
/// amplified by the conditioning of the regularised normal equations (`eps / 1e-10`).
fn assert_shared_equally(first: f64, second: f64) {
    let total = (first + second).abs();
    assert!(
        (first - second).abs() <= 1e-5 * total + 1e-15,
        "duplicates carry {first} and {second}"
    );
}

// ---------------------------------------------------------------- a particle on a rail

/// A particle of mass 2 in the (x, z) plane on a 45-degree rail (`v_x - v_z = 0`, one
/// bilateral row, `copies` times over) above the ground (contact normal +z), at the
/// velocity level: `u = (v+, f_G...)`, `y = f_N`, with momentum `p = m v- + h f_ext`:
///
/// ```text
/// | M  -G^T | | v+  |   | -N^T |       | -p |
/// | G   0   | | f_G | + |  0   | f_N + |  0 | = 0,    0 <= f_N _|_ N v+ >= 0.
/// ```
fn rail(momentum: [f64; 2], copies: usize) -> Mlcp {
    let nu = 2 + copies;
    let mut a = DenseMatrix::zeros(nu, nu);
    a[(0, 0)] = 2.0;
    a[(1, 1)] = 2.0;
    for c in 0..copies {
        let row = 2 + c;
        a[(0, row)] = -1.0;
        a[(1, row)] = 1.0;
        a[(row, 0)] = 1.0;
        a[(row, 1)] = -1.0;
    }
    let mut x1 = DenseMatrix::zeros(nu, 1);
    x1[(1, 0)] = -1.0;
    let mut x2 = DenseMatrix::zeros(1, nu);
    x2[(0, 1)] = 1.0;
    let mut a_vector = vec![0.0; nu];
    a_vector[0] = -momentum[0];
    a_vector[1] = -momentum[1];
    Mlcp {
        a_matrix: a,
        x1,
        x2,
        x3: DenseMatrix::zeros(1, 1),
        a_vector,
        x4: vec![0.0],
    }
}

#[test]
fn rail_pressed_into_the_ground_solved_by_hand() {
    // v+ = (t, t) on the rail: 2t = 1 + f_G and 2t = -2 - f_G + f_N. Without contact
    // t = -1/4 < 0, so the contact holds: t = 0, f_G = -1, f_N = 1. The reduced LCP is
    // MM = N C N^T = 1/4 (C = the velocity block of A^-1) and qq = N v_free = -1/4.
    let p = rail([1.0, -2.0], 1);
    let reduced = reduce_mlcp(&p, &ReductionOptions::default()).unwrap();
    assert!(!reduced.regularised);
    assert_close(reduced.lcp.m.as_slice(), &[0.25], 1e-15);
    assert_close(&reduced.lcp.q, &[-0.25], 1e-15);

    let s = solve_mlcp(&p, &LemkeOptions::default()).unwrap();
    assert_eq!(s.report.status, Status::Solved);
    assert!(!s.regularised);
    assert_close(&s.u, &[0.0, 0.0, -1.0], 1e-14);
    assert_close(&s.y, &[1.0], 1e-14);
    assert!(s.residual.max() < 1e-14, "{:?}", s.residual);
    assert_satisfies(&p, &s.u, &s.y, 1e-14);
}

#[test]
fn rail_moving_away_from_the_ground_solved_by_hand() {
    // 2t = 1 + f_G, 2t = 2 - f_G: t = 3/4 > 0, so the contact is slack: f_N = 0 and
    // f_G = 2t - 1 = 1/2.
    let p = rail([1.0, 2.0], 1);
    let s = solve_mlcp(&p, &LemkeOptions::default()).unwrap();
    assert_eq!(s.report.status, Status::Solved);
    assert_close(&s.u, &[0.75, 0.75, 0.5], 1e-14);
    assert_close(&s.y, &[0.0], 1e-14);
    assert_close(&s.report.w, &[0.75], 1e-14);
    assert_satisfies(&p, &s.u, &s.y, 1e-14);
}

#[test]
fn duplicated_rail_constraint_is_regularised_and_still_solved() {
    // The rail row twice makes A rank-deficient (rank 3 of 4). The velocities and the
    // contact force are unique and as above; the two rail forces only have a unique sum,
    // and the regularised least-squares solve shares it equally.
    for (momentum, v, f_g, f_n) in [([1.0, -2.0], 0.0, -1.0, 1.0), ([1.0, 2.0], 0.75, 0.5, 0.0)] {
        let p = rail(momentum, 2);
        let s = solve_mlcp(&p, &LemkeOptions::default()).unwrap();
        assert!(s.regularised);
        assert_eq!(s.report.status, Status::Solved);
        assert_close(&s.u[..2], &[v, v], 1e-9);
        assert_close(&[s.u[2] + s.u[3]], &[f_g], 1e-9);
        assert_shared_equally(s.u[2], s.u[3]);
        assert_close(&s.y, &[f_n], 1e-9);
        assert!(s.residual.max() < REGULARISED_TOL, "{:?}", s.residual);
        assert_satisfies(&p, &s.u, &s.y, REGULARISED_TOL);
    }
}

// ------------------------------------------------------------------- Drake's friction MLCP

const MASS: f64 = 2.0;
const MU: f64 = 0.5;
const G: f64 = 9.81;
const H: f64 = 0.01;

/// Seed 004's impact MLCP for a point mass on the ground (normal +z, friction directions
/// `+x, +y, -x, -y`) held by a bilateral joint `v_y = 0` (`rows` copies of it):
/// `u = (v+, f_G)`, `y = (f_N, f_D1..4, lambda)`,
/// `A = [M, -G^T; G, 0]`, `a = (-p, 0)`, `X1 = [-N^T, -D^T, 0; 0, 0, 0]`,
/// `X2 = [N, 0; D, 0; 0, 0]`, `X3 = [0, 0, 0; 0, 0, E; mu, -E^T, 0]`, `x4 = 0`.
fn joint_and_friction(push: [f64; 2], rows: usize) -> Mlcp {
    let nu = 3 + rows;
    let mut a = DenseMatrix::zeros(nu, nu);
    for i in 0..3 {
        a[(i, i)] = MASS;
    }
    for r in 0..rows {
        a[(1, 3 + r)] = -1.0;
        a[(3 + r, 1)] = 1.0;
    }
    let normal = [0.0, 0.0, 1.0];
    let dirs = [
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, -1.0, 0.0],
    ];
    let jac: Vec<[f64; 3]> = std::iter::once(normal).chain(dirs).collect();
    let mut x1 = DenseMatrix::zeros(nu, 6);
    let mut x2 = DenseMatrix::zeros(6, nu);
    for (c, row) in jac.iter().enumerate() {
        for k in 0..3 {
            x1[(k, c)] = -row[k];
            x2[(c, k)] = row[k];
        }
    }
    let mut x3 = DenseMatrix::zeros(6, 6);
    for k in 1..5 {
        x3[(k, 5)] = 1.0;
        x3[(5, k)] = -1.0;
    }
    x3[(5, 0)] = MU;
    let momentum = [H * push[0], H * push[1], -H * MASS * G];
    let mut a_vector = vec![0.0; nu];
    for k in 0..3 {
        a_vector[k] = -momentum[k];
    }
    Mlcp {
        a_matrix: a,
        x1,
        x2,
        x3,
        a_vector,
        x4: vec![0.0; 6],
    }
}

fn check_sliding_with_joint(s: &MlcpSolution, push: [f64; 2], tol: f64) {
    // The joint takes the whole y push; the body slides along x against mu f_N.
    let f_n = MASS * G * H;
    let slide = H * (push[0] / MASS - MU * G);
    assert_close(&s.u[..3], &[slide, 0.0, 0.0], tol);
    let joint: f64 = s.u[3..].iter().sum();
    assert!((joint + H * push[1]).abs() < tol, "joint impulse {joint}");
    assert_close(&s.y, &[f_n, 0.0, 0.0, MU * f_n, 0.0, slide], tol);
}

#[test]
fn friction_cone_with_a_joint_slides_as_predicted() {
    let push = [2.0 * MU * MASS * G, 3.0];
    let p = joint_and_friction(push, 1);
    let s = solve_mlcp(&p, &LemkeOptions::default()).unwrap();
    assert_eq!(s.report.status, Status::Solved);
    assert!(!s.regularised);
    check_sliding_with_joint(&s, push, 1e-12);
    assert_satisfies(&p, &s.u, &s.y, 1e-12);
}

#[test]
fn friction_cone_with_a_duplicated_joint_is_regularised() {
    let push = [2.0 * MU * MASS * G, 3.0];
    let p = joint_and_friction(push, 2);
    let s = solve_mlcp(&p, &LemkeOptions::default()).unwrap();
    assert_eq!(s.report.status, Status::Solved);
    assert!(s.regularised);
    check_sliding_with_joint(&s, push, 1e-9);
    assert_shared_equally(s.u[3], s.u[4]);
    assert!(s.residual.max() < REGULARISED_TOL, "{:?}", s.residual);
    assert_satisfies(&p, &s.u, &s.y, REGULARISED_TOL);
}

// ---------------------------------------------------------------- edge cases

#[test]
fn no_free_variables_is_the_lcp_itself() {
    let p = Mlcp {
        a_matrix: DenseMatrix::zeros(0, 0),
        x1: DenseMatrix::zeros(0, 2),
        x2: DenseMatrix::zeros(2, 0),
        x3: mat(&[&[2.0, 1.0], &[1.0, 2.0]]),
        a_vector: vec![],
        x4: vec![-5.0, -6.0],
    };
    let reduced = reduce_mlcp(&p, &ReductionOptions::default()).unwrap();
    assert_eq!(reduced.lcp.m, p.x3);
    assert_eq!(reduced.lcp.q, p.x4);
    let s = solve_mlcp(&p, &LemkeOptions::default()).unwrap();
    assert!(s.u.is_empty());
    assert_close(&s.y, &[4.0 / 3.0, 7.0 / 3.0], 1e-12);
}

#[test]
fn zero_free_block_has_the_zero_pseudo_inverse() {
    let p = Mlcp {
        a_matrix: DenseMatrix::zeros(2, 2),
        x1: DenseMatrix::zeros(2, 1),
        x2: mat(&[&[1.0, 1.0]]),
        x3: mat(&[&[1.0]]),
        a_vector: vec![0.0, 0.0],
        x4: vec![-2.0],
    };
    let s = solve_mlcp(&p, &LemkeOptions::default()).unwrap();
    assert!(s.regularised);
    assert_eq!(s.u, vec![0.0, 0.0]);
    assert_close(&s.y, &[2.0], 1e-15);
}

#[test]
fn recovered_free_variables_match_the_reduction_formula() {
    let p = rail([1.0, -2.0], 1);
    let reduced = reduce_mlcp(&p, &ReductionOptions::default()).unwrap();
    // A (A^-1 a) = a and A (A^-1 X1) = X1.
    let back = p.a_matrix.mul_vec(&reduced.solved_a);
    assert_close(&back, &p.a_vector, 1e-15);
    let back = p.a_matrix.mul_mat(&reduced.solved_x1);
    assert_close(back.as_slice(), p.x1.as_slice(), 1e-15);
    assert_close(
        &reduced.recover_free(&[1.0]).unwrap(),
        &[0.0, 0.0, -1.0],
        1e-15,
    );
}

// ---------------------------------------------------------------- typed errors

#[test]
fn shape_errors_name_the_field() {
    let good = rail([1.0, -2.0], 1);
    let shape = |p: &Mlcp| match solve_mlcp(p, &LemkeOptions::default()) {
        Err(LcpError::MatrixShape {
            field,
            expected_rows,
            expected_cols,
            rows,
            cols,
        }) => (field, expected_rows, expected_cols, rows, cols),
        other => panic!("expected a shape error, got {other:?}"),
    };

    let mut p = good.clone();
    p.a_matrix = DenseMatrix::zeros(3, 2);
    assert_eq!(shape(&p), ("a_matrix", 3, 3, 3, 2));
    let mut p = good.clone();
    p.x1 = DenseMatrix::zeros(3, 2);
    assert_eq!(shape(&p), ("x1", 3, 1, 3, 2));
    let mut p = good.clone();
    p.x2 = DenseMatrix::zeros(3, 1);
    assert_eq!(shape(&p), ("x2", 1, 3, 3, 1));
    let mut p = good.clone();
    p.x3 = DenseMatrix::zeros(2, 2);
    assert_eq!(shape(&p), ("x3", 1, 1, 2, 2));
    // A vector of the wrong length shows up as the blocks that disagree with it.
    let mut p = good.clone();
    p.x4 = vec![0.0, 0.0];
    assert_eq!(shape(&p).0, "x1");
    let mut p = good.clone();
    p.a_vector.push(0.0);
    assert_eq!(shape(&p).0, "a_matrix");
}

#[test]
fn non_finite_entries_and_bad_lengths_name_the_field() {
    let good = rail([1.0, -2.0], 1);
    for field in ["a_matrix", "x1", "x2", "x3", "a_vector", "x4"] {
        let mut p = good.clone();
        match field {
            "a_matrix" => p.a_matrix[(1, 2)] = f64::NAN,
            "x1" => p.x1[(0, 0)] = f64::INFINITY,
            "x2" => p.x2[(0, 1)] = f64::NAN,
            "x3" => p.x3[(0, 0)] = f64::NEG_INFINITY,
            "a_vector" => p.a_vector[2] = f64::NAN,
            _ => p.x4[0] = f64::NAN,
        }
        match solve_mlcp(&p, &LemkeOptions::default()) {
            Err(LcpError::NonFinite { field: f, .. }) => assert_eq!(f, field),
            other => panic!("{field}: expected NonFinite, got {other:?}"),
        }
    }

    assert!(matches!(
        good.residual(&[0.0; 2], &[0.0]),
        Err(LcpError::LengthMismatch {
            field: "u",
            expected: 3,
            found: 2
        })
    ));
    assert!(matches!(
        good.residual(&[0.0; 3], &[]),
        Err(LcpError::LengthMismatch {
            field: "y",
            expected: 1,
            found: 0
        })
    ));
    let reduced = reduce_mlcp(&good, &ReductionOptions::default()).unwrap();
    assert!(matches!(
        reduced.recover_free(&[1.0, 2.0]),
        Err(LcpError::LengthMismatch { field: "y", .. })
    ));

    for (options, name) in [
        (
            ReductionOptions {
                regularisation: 0.0,
                ..ReductionOptions::default()
            },
            "regularisation",
        ),
        (
            ReductionOptions {
                singular_pivot_tolerance: f64::NAN,
                ..ReductionOptions::default()
            },
            "singular_pivot_tolerance",
        ),
    ] {
        match reduce_mlcp(&good, &options) {
            Err(LcpError::BadOption { option, .. }) => assert_eq!(option, name),
            other => panic!("{name}: expected BadOption, got {other:?}"),
        }
    }
}

// ---------------------------------------------------------------- random problems

/// A random velocity-level problem: mass matrix `M = B B^T + I/2` (`nv` velocities),
/// `nb < nv` random bilateral rows `G`, `nc` random contact normals `N` with a little
/// compliance `gamma` on the diagonal of `X3`, random momentum and bilateral bias.
fn mechanical_problem() -> impl Strategy<Value = Mlcp> {
    (2usize..=5, 0usize..=2, 1usize..=4).prop_flat_map(|(nv, nb, nc)| {
        let nb = nb.min(nv - 1);
        (
            prop::collection::vec(-1.0f64..1.0, nv * nv),
            prop::collection::vec(-1.0f64..1.0, nb * nv),
            prop::collection::vec(-1.0f64..1.0, nc * nv),
            prop::collection::vec(1e-3f64..0.1, nc),
            prop::collection::vec(-1.0f64..1.0, nv + nb),
        )
            .prop_map(move |(b, g, n, gamma, a_vector)| {
                let nu = nv + nb;
                let mut a = DenseMatrix::zeros(nu, nu);
                for i in 0..nv {
                    for j in 0..nv {
                        a[(i, j)] = (0..nv).map(|r| b[i * nv + r] * b[j * nv + r]).sum();
                    }
                    a[(i, i)] += 0.5;
                }
                for r in 0..nb {
                    for j in 0..nv {
                        a[(j, nv + r)] = -g[r * nv + j];
                        a[(nv + r, j)] = g[r * nv + j];
                    }
                }
                let mut x1 = DenseMatrix::zeros(nu, nc);
                let mut x2 = DenseMatrix::zeros(nc, nu);
                let mut x3 = DenseMatrix::zeros(nc, nc);
                for c in 0..nc {
                    for j in 0..nv {
                        x1[(j, c)] = -n[c * nv + j];
                        x2[(c, j)] = n[c * nv + j];
                    }
                    x3[(c, c)] = gamma[c];
                }
                Mlcp {
                    a_matrix: a,
                    x1,
                    x2,
                    x3,
                    a_vector,
                    x4: vec![0.0; nc],
                }
            })
    })
}

/// A random problem with a non-symmetric `A` (diagonally dominant), built so that the
/// reduced matrix is known: with `X1 = -A C X2^T` for a symmetric positive definite `C`,
/// `MM = X3 + X2 C X2^T`.
fn nonsymmetric_problem() -> impl Strategy<Value = (Mlcp, DenseMatrix)> {
    (1usize..=5, 1usize..=4).prop_flat_map(|(nu, ny)| {
        (
            prop::collection::vec(-1.0f64..1.0, nu * nu),
            prop::collection::vec(-1.0f64..1.0, nu * nu),
            prop::collection::vec(-1.0f64..1.0, ny * nu),
            prop::collection::vec(0.01f64..1.0, ny),
            prop::collection::vec(-1.0f64..1.0, nu),
            prop::collection::vec(-1.0f64..1.0, ny),
        )
            .prop_map(move |(r, b, x2, diag, a_vector, x4)| {
                let mut a = DenseMatrix::from_row_major(nu, nu, r).unwrap();
                let mut c = DenseMatrix::zeros(nu, nu);
                for i in 0..nu {
                    a[(i, i)] += nu as f64 + 1.0;
                    for j in 0..nu {
                        c[(i, j)] = (0..nu).map(|k| b[i * nu + k] * b[j * nu + k]).sum();
                    }
                    c[(i, i)] += 0.1;
                }
                let x2 = DenseMatrix::from_row_major(ny, nu, x2).unwrap();
                let mut x1 = a.mul_mat(&c).mul_mat(&x2.transpose());
                x1.as_mut_slice().iter_mut().for_each(|v| *v = -*v);
                let mut x3 = DenseMatrix::zeros(ny, ny);
                for (i, d) in diag.iter().enumerate() {
                    x3[(i, i)] = *d;
                }
                let mut mm = x2.mul_mat(&c).mul_mat(&x2.transpose());
                for i in 0..ny {
                    mm[(i, i)] += diag[i];
                }
                let p = Mlcp {
                    a_matrix: a,
                    x1,
                    x2,
                    x3,
                    a_vector,
                    x4,
                };
                (p, mm)
            })
    })
}

proptest! {
    // A fixed seed keeps CI deterministic; raise PROPTEST_CASES locally to explore further.
    #![proptest_config(ProptestConfig { cases: 64, rng_seed: proptest::test_runner::RngSeed::Fixed(20_261_122), ..ProptestConfig::default() })]

    #[test]
    fn solution_of_the_reduced_lcp_satisfies_the_mixed_problem(p in mechanical_problem()) {
        let s = solve_mlcp(&p, &LemkeOptions::default()).unwrap();
        prop_assert_eq!(s.report.status, Status::Solved);
        prop_assert!(!s.regularised);
        prop_assert!(s.residual.max() < 1e-9, "{:?}", s.residual);
        assert_satisfies(&p, &s.u, &s.y, 1e-9);
    }

    #[test]
    fn reduced_matrix_matches_its_closed_form((p, mm) in nonsymmetric_problem()) {
        let reduced = reduce_mlcp(&p, &ReductionOptions::default()).unwrap();
        prop_assert!(!reduced.regularised);
        for (got, want) in reduced.lcp.m.as_slice().iter().zip(mm.as_slice()) {
            prop_assert!((got - want).abs() <= 1e-10 * (1.0 + want.abs()), "{} vs {}", got, want);
        }
        let s = solve_mlcp(&p, &LemkeOptions::default()).unwrap();
        prop_assert_eq!(s.report.status, Status::Solved);
        assert_satisfies(&p, &s.u, &s.y, 1e-9);
    }
}
