//! Dantzig's boxed-LCP solver: hand-checked answers, friction coupling, unbounded rows, and
//! the degenerate contact sets (redundant coplanar contacts, duplicates, zero rows) that make
//! ODE's pivoting fail. Every solve must report `Solved` with a relative residual below
//! `1e-9`, and where a closed-form answer exists, match it.

mod common;

use common::{assert_close, hand_cases};
use stiction_lcp::dantzig::{solve_dantzig, DantzigOptions, DantzigSolver};
use stiction_lcp::generate::{box_stack_problem, random_contact_problem, ContactProblemSpec};
use stiction_lcp::pgs::PgsOptions;
use stiction_lcp::{BoxedLcp, DenseMatrix, IndexState, LcpError, Status};

fn solve(p: &BoxedLcp) -> stiction_lcp::SolveReport {
    let r = solve_dantzig(p, &DantzigOptions::default(), None).expect("valid problem");
    assert_eq!(r.status, Status::Solved, "residual {:?}", r.residual);
    assert!(r.residual.max() < 1e-9, "residual {:?}", r.residual);
    r
}

#[test]
fn hand_solved_problems_shared_with_the_other_solvers() {
    for case in hand_cases() {
        let r = solve(&case.problem);
        assert_close(&r.x, &case.x, 1e-12);
        assert_close(&r.w, &case.w, 1e-12);
        eprintln!("case passed: {}", case.name);
    }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

#[test]
fn two_by_two_standard_lcp_matches_hand_solution() {
    // A = [[2,1],[1,2]], b = [5,6]: both interior, x = A^-1 b = (4/3, 7/3), w = 0.
    let a = DenseMatrix::from_rows(&[[2.0, 1.0], [1.0, 2.0]]).unwrap();
    let r = solve(&BoxedLcp::new(a.clone(), vec![5.0, 6.0]));
    assert!(close(r.x[0], 4.0 / 3.0, 1e-12) && close(r.x[1], 7.0 / 3.0, 1e-12));
    // b = [5,-6]: x1 at zero with w1 = 6 + 2.5 > 0, x0 = 2.5.
    let r = solve(&BoxedLcp::new(a, vec![5.0, -6.0]));
    assert!(close(r.x[0], 2.5, 1e-12) && r.x[1] == 0.0);
    assert!(close(r.w[1], 8.5, 1e-12));
}

#[test]
fn upper_bound_and_unbounded_rows() {
    // Row 0 unbounded (a joint), row 1 boxed to [-1, 1] with an unconstrained answer of 3.
    let a = DenseMatrix::from_rows(&[[4.0, 1.0], [1.0, 3.0]]).unwrap();
    let mut p = BoxedLcp::new(a, vec![1.0, 10.0]);
    p.nub = 1;
    p.lo = vec![f64::NEG_INFINITY, -1.0];
    p.hi = vec![f64::INFINITY, 1.0];
    let r = solve(&p);
    // x1 = 1 (upper), then 4 x0 + 1 = 1 -> x0 = 0; w1 = 0 + 3 - 10 = -7 <= 0.
    assert!(close(r.x[1], 1.0, 1e-14));
    assert!(r.x[0].abs() < 1e-14);
    assert!(close(r.w[1], -7.0, 1e-12));
}

#[test]
fn saturated_friction_sits_at_mu_times_normal() {
    // One unit-mass particle on the ground pushed sideways: rows (normal z, tangent x, y).
    // A = I (particle), b = (9.81, 20, 0): normal force 9.81, friction demand 20 > 0.5 * 9.81.
    let mut p = BoxedLcp::new(DenseMatrix::identity(3), vec![9.81, 20.0, 0.0]);
    for t in [1, 2] {
        p.findex[t] = Some(0);
        p.lo[t] = -0.5;
        p.hi[t] = 0.5;
    }
    let r = solve(&p);
    assert!(close(r.x[0], 9.81, 1e-12));
    assert!(close(r.x[1], 0.5 * 9.81, 1e-12));
    assert!(r.x[2].abs() < 1e-14);
    // Sliding: w_t = x_t - b_t < 0 at the upper bound.
    assert!(r.w[1] < 0.0);
}

#[test]
fn friction_bounds_follow_normals_changed_by_friction() {
    // A coupling between friction and normal rows (an off-centre contact) means the normal
    // force depends on the friction force; the bound must use the *final* normal force.
    let a = DenseMatrix::from_rows(&[[2.0, 0.8, 0.0], [0.8, 2.0, 0.0], [0.0, 0.0, 2.0]]).unwrap();
    let mut p = BoxedLcp::new(a, vec![4.0, 30.0, 0.0]);
    for t in [1, 2] {
        p.findex[t] = Some(0);
        p.lo[t] = -0.6;
        p.hi[t] = 0.6;
    }
    let r = solve(&p);
    // Friction saturates: x1 = 0.6 x0 and 2 x0 + 0.8 x1 = 4 -> x0 = 4 / 2.48.
    let x0 = 4.0 / 2.48;
    assert!(close(r.x[0], x0, 1e-10), "{:?}", r.x);
    assert!(close(r.x[1], 0.6 * x0, 1e-10), "{:?}", r.x);
}

#[test]
fn box_stacks_one_to_twenty_high_with_and_without_cfm() {
    // Four coplanar contacts per face: the normal block has rank 3 per face, so without CFM
    // `A` is singular. Closed form: every normal under box k carries (height - k) g / 4.
    for &cfm in &[0.0, 1e-5 * 60.0, 1e-8] {
        for height in [1, 2, 3, 5, 8, 13, 20] {
            let p = box_stack_problem(height, 0.5, cfm);
            let r = solve(&p);
            for k in 0..height {
                let expected = (height - k) as f64 * 9.81 / 4.0;
                let face: f64 = (0..4).map(|c| r.x[12 * k + 3 * c]).sum();
                // CFM makes contacts slightly soft: the load carried is short by O(cfm).
                assert!(
                    close(face, 4.0 * expected, 1e-8 + 10.0 * cfm * height as f64),
                    "height {height} cfm {cfm}: face {k} carries {face}"
                );
                // Friction may circulate inside a face (redundant rows), but it carries no net
                // tangential force.
                for t in 1..3 {
                    let net: f64 = (0..4).map(|c| r.x[12 * k + 3 * c + t]).sum();
                    assert!(net.abs() < 1e-8 * expected, "net friction {net}");
                }
                if cfm > 0.0 {
                    // With CFM the split is unique and symmetric.
                    for c in 0..4 {
                        let got = r.x[12 * k + 3 * c];
                        assert!(
                            close(got, expected, 1e-6 + 10.0 * cfm * height as f64),
                            "height {height} cfm {cfm}: contact {c} under box {k}: {got} vs {expected}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn random_contact_problems_with_duplicates_solve_to_tolerance() {
    // Duplicate contacts (identical rows) and zero CFM: a singular matrix, solvable because
    // b = -J u lies in the range of J.
    for seed in 0..40 {
        let spec = ContactProblemSpec {
            seed,
            bodies: 1 + (seed as usize % 5),
            contacts: 2 + (seed as usize * 7 % 30),
            mu: [0.0, 0.3, 0.5, 1.0][seed as usize % 4],
            cfm: if seed % 2 == 0 { 0.0 } else { 1e-6 },
            duplicate_fraction: if seed % 3 == 0 { 0.3 } else { 0.0 },
        };
        let p = random_contact_problem(&spec);
        let r = solve_dantzig(&p, &DantzigOptions::default(), None).unwrap();
        assert_eq!(r.status, Status::Solved, "seed {seed}: {:?}", r.residual);
        assert!(r.residual.max() < 1e-9, "seed {seed}: {:?}", r.residual);
    }
}

#[test]
fn zero_rows_with_cfm_and_pinned_rows_do_not_fail() {
    // A row with no Jacobian (all zeros) plus CFM, and a row with lo = hi = 0.
    let mut p = box_stack_problem(2, 0.5, 0.0);
    let n = p.len();
    let mut a = DenseMatrix::zeros(n + 2, n + 2);
    for i in 0..n {
        for j in 0..n {
            a[(i, j)] = p.a[(i, j)];
        }
    }
    a[(n, n)] = 1e-6;
    a[(n + 1, n + 1)] = 1.0;
    let mut b = p.b.clone();
    b.extend([0.0, 3.0]);
    let mut lo = p.lo.clone();
    lo.extend([0.0, 0.0]);
    let mut hi = p.hi.clone();
    hi.extend([f64::INFINITY, 0.0]);
    let mut findex = p.findex.clone();
    findex.extend([None, None]);
    p = BoxedLcp {
        a,
        b,
        lo,
        hi,
        nub: 0,
        findex,
    };
    let r = solve(&p);
    assert_eq!(r.x[n], 0.0);
    assert_eq!(r.x[n + 1], 0.0);
}

#[test]
fn warm_start_from_previous_active_set_needs_no_pivots() {
    let p = box_stack_problem(10, 0.5, 1e-5 * 60.0);
    let mut solver = DantzigSolver::new();
    let options = DantzigOptions::default();
    let cold = solver.solve(&p, &options, None).unwrap();
    assert!(cold.iterations > 0);
    let guess = solver.active_set().to_vec();
    let warm = solver.solve(&p, &options, Some(&guess)).unwrap();
    assert_eq!(warm.status, Status::Solved);
    assert!(solver.stats().warm_start_hit);
    assert_eq!(warm.iterations, 0);
    for (a, b) in cold.x.iter().zip(&warm.x) {
        assert!(close(*a, *b, 1e-9));
    }
    // A wrong guess (everything at its lower bound) still gives the right answer.
    let wrong = vec![IndexState::AtLower; p.len()];
    let r = solver.solve(&p, &options, Some(&wrong)).unwrap();
    assert!(!solver.stats().warm_start_hit);
    assert_eq!(r.status, Status::Solved);
    for (a, b) in cold.x.iter().zip(&r.x) {
        assert!(close(*a, *b, 1e-9));
    }
}

#[test]
fn failure_is_a_status_and_fallback_finishes_with_pgs() {
    // Indefinite matrix with an unbounded row: pivoting meets a ray it cannot follow.
    let a = DenseMatrix::from_rows(&[[-1.0, 0.0], [0.0, 1.0]]).unwrap();
    let p = BoxedLcp::new(a, vec![1.0, 1.0]);
    let r = solve_dantzig(&p, &DantzigOptions::default(), None).unwrap();
    assert_ne!(r.status, Status::Solved);
    assert!(!r.fell_back);
    // Pivot budget of one on a problem that needs more.
    let p = box_stack_problem(3, 0.5, 0.01);
    let tight = DantzigOptions {
        max_pivots: Some(1),
        exact_friction: false,
        ..Default::default()
    };
    let r = solve_dantzig(&p, &tight, None).unwrap();
    assert_eq!(r.status, Status::PivotLimit);
    let with_fallback = DantzigOptions {
        max_pivots: Some(1),
        exact_friction: false,
        fallback: Some(PgsOptions {
            max_iterations: 5000,
            tolerance: 1e-12,
            ..Default::default()
        }),
        ..Default::default()
    };
    let r = solve_dantzig(&p, &with_fallback, None).unwrap();
    assert!(r.fell_back);
    assert!(r.residual.max() < 1e-6, "{:?}", r.residual);
}

#[test]
fn malformed_problems_are_typed_errors() {
    let a = DenseMatrix::from_rows(&[[1.0, 2.0], [0.0, 1.0]]).unwrap();
    let p = BoxedLcp::new(a, vec![1.0, 1.0]);
    assert!(matches!(
        solve_dantzig(&p, &DantzigOptions::default(), None),
        Err(LcpError::NotSymmetric { .. })
    ));
    let mut p = BoxedLcp::new(DenseMatrix::identity(2), vec![1.0, f64::NAN]);
    assert!(matches!(
        solve_dantzig(&p, &DantzigOptions::default(), None),
        Err(LcpError::NonFinite { field: "b", .. })
    ));
    p.b[1] = 0.0;
    assert!(matches!(
        solve_dantzig(&p, &DantzigOptions::default(), Some(&[IndexState::Clamped])),
        Err(LcpError::LengthMismatch {
            field: "initial",
            ..
        })
    ));
}
