//! Dantzig on the structures an engine hands it: a block of unbounded rows factored at once
//! (ODE's start) and warm starts factored in the problem's own row order. The answers must be
//! those of a direct solve, and the fast paths must not change what is solved.

use stiction_lcp::dantzig::{DantzigOptions, DantzigSolver};
use stiction_lcp::generate::box_stack_problem;
use stiction_lcp::lu::DenseLu;
use stiction_lcp::{BoxedLcp, DenseMatrix, Status};

/// A chain-like SPD matrix: blocks of three rows coupled to the next block.
fn chain_matrix(blocks: usize) -> DenseMatrix {
    let n = 3 * blocks;
    let mut a = DenseMatrix::zeros(n, n);
    for i in 0..n {
        a[(i, i)] = 4.0 + (i % 3) as f64;
        if i >= 3 {
            a[(i, i - 3)] = -1.0;
            a[(i - 3, i)] = -1.0;
        }
        if i % 3 != 0 {
            a[(i, i - 1)] = 0.3;
            a[(i - 1, i)] = 0.3;
        }
    }
    a
}

fn unbounded(a: DenseMatrix, b: Vec<f64>) -> BoxedLcp {
    let mut p = BoxedLcp::new(a, b);
    p.nub = p.len();
    p.lo.fill(f64::NEG_INFINITY);
    p
}

fn direct_solve(a: &DenseMatrix, b: &[f64]) -> Vec<f64> {
    let n = b.len();
    let mut lu = DenseLu::default();
    lu.reset(n);
    for i in 0..n {
        for j in 0..n {
            lu.set(i, j, a[(i, j)]);
        }
    }
    assert!(lu.factor(1e-14));
    let mut x = b.to_vec();
    lu.solve(&mut x);
    x
}

#[test]
fn all_unbounded_rows_are_one_factorisation_and_match_a_direct_solve() {
    let a = chain_matrix(40);
    let b: Vec<f64> = (0..120).map(|i| (0.37 * i as f64).sin()).collect();
    let p = unbounded(a.clone(), b.clone());
    let mut solver = DantzigSolver::new();
    let r = solver.solve(&p, &DantzigOptions::default(), None).unwrap();
    assert_eq!(r.status, Status::Solved);
    assert_eq!(solver.stats().pivots, 0, "no row needed driving");
    let x = direct_solve(&a, &b);
    for (got, want) in r.x.iter().zip(&x) {
        assert!(
            (got - want).abs() < 1e-12 * (1.0 + want.abs()),
            "{got} vs {want}"
        );
    }
    assert!(r.w.iter().all(|w| w.abs() < 1e-12));
}

#[test]
fn a_dependent_unbounded_row_ends_the_block_and_is_still_solved() {
    // Rows 0..6 unbounded, row 3 a copy of row 1 (a redundant joint row, singular without
    // CFM) with a consistent right-hand side; rows 6..9 bounded at [0, inf).
    let mut a = chain_matrix(3);
    for j in 0..9 {
        let v = a[(1, j)];
        a[(3, j)] = v;
    }
    for i in 0..9 {
        let v = a[(i, 1)];
        a[(i, 3)] = v;
    }
    let mut b: Vec<f64> = vec![1.0, 2.0, -1.0, 2.0, 0.5, -0.5, -3.0, 1.0, 0.2];
    b[3] = b[1];
    let mut p = BoxedLcp::new(a, b);
    p.nub = 6;
    for i in 0..6 {
        p.lo[i] = f64::NEG_INFINITY;
    }
    let mut solver = DantzigSolver::new();
    let r = solver.solve(&p, &DantzigOptions::default(), None).unwrap();
    assert_eq!(r.status, Status::Solved, "residual {:?}", r.residual);
    assert!(r.residual.max() < 1e-9, "residual {:?}", r.residual);
    // The unbounded equations hold exactly, the bounded rows are complementary.
    for i in 0..6 {
        assert!(r.w[i].abs() < 1e-10, "row {i}: w = {}", r.w[i]);
    }
    for i in 6..9 {
        assert!(r.x[i] >= 0.0 && r.w[i] >= -1e-10 && (r.x[i] * r.w[i]).abs() < 1e-10);
    }
}

#[test]
fn a_right_warm_start_in_row_order_gives_the_cold_answer_without_pivots() {
    // Box stacks list each contact's normal and friction rows together, contacts box by box.
    let p = box_stack_problem(12, 0.5, 6e-4);
    let options = DantzigOptions::default();
    let mut solver = DantzigSolver::new();
    let cold = solver.solve(&p, &options, None).unwrap();
    assert_eq!(cold.status, Status::Solved);
    let guess = solver.active_set().to_vec();
    let warm = solver.solve(&p, &options, Some(&guess)).unwrap();
    assert_eq!(warm.status, Status::Solved);
    assert!(solver.stats().warm_start_hit);
    assert_eq!(warm.iterations, 0);
    for (c, w) in cold.x.iter().zip(&warm.x) {
        assert!((c - w).abs() < 1e-9 * (1.0 + c.abs()), "{c} vs {w}");
    }
    // The closed form without CFM: every normal under box k carries (12 - k) 9.81 / 4 N
    // (contacts listed bottom to top, four per face, three rows each). The CFM softens the
    // stack slightly (0.8 % at the bottom here), so 2 % is asked for.
    for contact in 0..48 {
        let k = contact / 4;
        let expected = (12 - k) as f64 * 9.81 / 4.0;
        let got = warm.x[3 * contact];
        assert!(
            (got - expected).abs() < 0.02 * expected,
            "contact {contact}: {got} vs {expected}"
        );
    }
}
