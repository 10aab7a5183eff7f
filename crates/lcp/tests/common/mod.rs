//! Hand-solved boxed LCPs shared by the solvers' tests: every solver of a boxed LCP must
//! return these analytic answers. Each case says how its answer was found.

#![allow(dead_code)] // each test binary uses its own part of this module

use stiction_lcp::{BoxedLcp, DenseMatrix};

/// A problem with its analytic solution.
pub struct HandCase {
    /// What the case exercises.
    pub name: &'static str,
    pub problem: BoxedLcp,
    pub x: Vec<f64>,
    pub w: Vec<f64>,
}

pub fn matrix(rows: &[&[f64]]) -> DenseMatrix {
    DenseMatrix::from_rows(rows).unwrap()
}

pub fn assert_close(found: &[f64], expected: &[f64], tol: f64) {
    assert_eq!(found.len(), expected.len());
    for (i, (f, e)) in found.iter().zip(expected).enumerate() {
        assert!(
            (f - e).abs() <= tol,
            "entry {i}: found {f}, expected {e} (all: {found:?} vs {expected:?})"
        );
    }
}

fn case(name: &'static str, problem: BoxedLcp, x: &[f64], w: &[f64]) -> HandCase {
    HandCase {
        name,
        problem,
        x: x.to_vec(),
        w: w.to_vec(),
    }
}

/// One contact: normal row 0, friction row 1 with mu = 0.5, `A = [[2, 0.5], [0.5, 1]]`.
fn contact(b: [f64; 2]) -> BoxedLcp {
    let mut p = BoxedLcp::new(matrix(&[&[2.0, 0.5], &[0.5, 1.0]]), b.to_vec());
    p.findex[1] = Some(0);
    p.hi[1] = 0.5;
    p
}

/// `A = [[2, 1], [1, 2]]` unless stated; bounds `[0, inf)` unless stated.
pub fn hand_cases() -> Vec<HandCase> {
    let a = || matrix(&[&[2.0, 1.0], &[1.0, 2.0]]);
    let mut cases = Vec::new();
    // b = (3, 3): A x = b gives x = (1, 1), both inside, w = 0.
    cases.push(case(
        "interior",
        BoxedLcp::new(a(), vec![3.0, 3.0]),
        &[1.0, 1.0],
        &[0.0, 0.0],
    ));
    // b = (3, -3): with x2 = 0, x1 = 3/2 and w2 = 1.5 + 3 = 4.5 >= 0.
    cases.push(case(
        "at the lower bound",
        BoxedLcp::new(a(), vec![3.0, -3.0]),
        &[1.5, 0.0],
        &[0.0, 4.5],
    ));
    // hi1 = 0.5, b = (3, 3): x1 = 0.5, x2 = (3 - 0.5) / 2 = 1.25, w1 = 1 + 1.25 - 3 = -0.75.
    let mut p = BoxedLcp::new(a(), vec![3.0, 3.0]);
    p.hi[0] = 0.5;
    cases.push(case("at the upper bound", p, &[0.5, 1.25], &[-0.75, 0.0]));
    // nub = 1, b = (-3, -3): x2 = 0, x1 = -1.5 (free to be negative), w2 = -1.5 + 3 = 1.5.
    let mut p = BoxedLcp::new(a(), vec![-3.0, -3.0]);
    p.nub = 1;
    p.lo[0] = f64::NEG_INFINITY;
    cases.push(case("unbounded row", p, &[-1.5, 0.0], &[0.0, 1.5]));
    // lo2 = hi2 = 0, b = (3, 3): x = (1.5, 0), w2 = 1.5 - 3 = -1.5 (allowed at lo = hi).
    let mut p = BoxedLcp::new(a(), vec![3.0, 3.0]);
    p.hi[1] = 0.0;
    cases.push(case("pinned at zero", p, &[1.5, 0.0], &[0.0, -1.5]));
    // b = (4, 3): the unconstrained x_t (~2.4) is far above mu x_n, so x_t = x_n / 2 and
    // 2 x_n + 0.25 x_n = 4: x_n = 16/9, x_t = 8/9, w_t = 0.5 * 16/9 + 8/9 - 3 = -11/9.
    cases.push(case(
        "friction beyond its limit",
        contact([4.0, 3.0]),
        &[16.0 / 9.0, 8.0 / 9.0],
        &[0.0, -11.0 / 9.0],
    ));
    // b = (4, 1.5): A x = b gives (det 1.75) x_n = 13/7, x_t = 4/7, inside mu x_n = 13/14.
    cases.push(case(
        "friction within its limit",
        contact([4.0, 1.5]),
        &[13.0 / 7.0, 4.0 / 7.0],
        &[0.0, 0.0],
    ));
    cases
}
