//! The Lemke reformulations of a boxed LCP with friction: box friction (`|x_t| <= mu x_n` per
//! row) and polygon edges (`x_e >= 0`, `sum_e x_e <= mu x_n`). A unit particle on a plane has
//! closed-form answers: pushed beyond the friction limit it slides with friction `mu f_n`
//! opposing the push; below it, friction cancels the push exactly.

use stiction_lcp::boxed_lemke::{solve_boxed_lemke, solve_polygonal_lemke};
use stiction_lcp::{BoxedLcp, DenseMatrix, Status};

const G: f64 = 9.81;
const MU: f64 = 0.5;

/// Rows (normal, tangent x, tangent y) of a unit particle pushed along `push`.
fn box_friction_particle(push: [f64; 2]) -> BoxedLcp {
    let mut p = BoxedLcp::new(DenseMatrix::identity(3), vec![G, push[0], push[1]]);
    for t in [1, 2] {
        p.findex[t] = Some(0);
        p.lo[t] = -MU;
        p.hi[t] = MU;
    }
    p
}

/// Rows (normal, 4 edges along +-x, +-y) of a unit particle pushed along `push`.
fn edge_particle(push: [f64; 2]) -> BoxedLcp {
    let dirs = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]];
    let mut a = DenseMatrix::zeros(5, 5);
    a[(0, 0)] = 1.0;
    for (p, dp) in dirs.iter().enumerate() {
        for (q, dq) in dirs.iter().enumerate() {
            a[(p + 1, q + 1)] = dp[0] * dq[0] + dp[1] * dq[1];
        }
    }
    let mut b = vec![G, 0.0, 0.0, 0.0, 0.0];
    for (p, dp) in dirs.iter().enumerate() {
        b[p + 1] = push[0] * dp[0] + push[1] * dp[1];
    }
    let mut problem = BoxedLcp::new(a, b);
    for e in 1..5 {
        problem.findex[e] = Some(0);
        problem.lo[e] = 0.0;
        problem.hi[e] = MU;
    }
    problem
}

#[test]
fn box_friction_slides_at_mu_times_the_normal_force() {
    let r = solve_boxed_lemke(&box_friction_particle([20.0, 0.0]), &Default::default()).unwrap();
    assert_eq!(r.status, Status::Solved);
    assert!((r.x[0] - G).abs() < 1e-9);
    assert!((r.x[1] - MU * G).abs() < 1e-9, "{:?}", r.x);
    assert!(r.x[2].abs() < 1e-9);
}

#[test]
fn polygon_edges_stick_below_the_limit_and_slide_above_it() {
    // Below the limit: the edge along the push cancels it, the particle does not move.
    let r = solve_polygonal_lemke(&edge_particle([2.0, 0.0]), &Default::default()).unwrap();
    assert_eq!(r.status, Status::Solved);
    assert!((r.x[0] - G).abs() < 1e-9);
    assert!((r.x[1] - 2.0).abs() < 1e-9, "{:?}", r.x);
    assert!(r.w.iter().all(|w| w.abs() < 1e-9 || *w > 0.0));
    // Above it: the same edge carries mu f_n, the others nothing.
    let r = solve_polygonal_lemke(&edge_particle([20.0, 0.0]), &Default::default()).unwrap();
    assert_eq!(r.status, Status::Solved);
    assert!((r.x[1] - MU * G).abs() < 1e-9, "{:?}", r.x);
    for e in 2..5 {
        assert!(r.x[e].abs() < 1e-9, "{:?}", r.x);
    }
}
