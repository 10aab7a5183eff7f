//! The dense boxed LCP of one island for the exact stepper (docs/dynamics.md#the-boxed-lcp):
//!
//! ```text
//! A = J M^-1 J^T + diag(cfm) / h,   b = (rhs - J u*) / h,   rhs = -erp C / h + target
//! ```
//!
//! with `u*` the velocity after external forces. Only the upper triangle is computed and
//! mirrored, so `A` is exactly symmetric (Dantzig's `L D L^T` requires it). Problems are kept
//! in a pool, one per island position, and reused while an island keeps its size.

use crate::rows::RowStorage;
use crate::solver::sparse::{coupling, RowMass};
use std::ops::Range;
use stiction_lcp::{BoxedLcp, DenseMatrix};

/// Dense problems reused between steps.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProblemPool {
    problems: Vec<BoxedLcp>,
}

impl ProblemPool {
    /// The problem for island `k`, sized `n` (its buffers reused: allocating only when
    /// they must grow beyond every size they have had). Every entry is overwritten by
    /// [`assemble_island`].
    pub(crate) fn get(&mut self, k: usize, n: usize) -> &mut BoxedLcp {
        while self.problems.len() <= k {
            self.problems
                .push(BoxedLcp::new(DenseMatrix::zeros(0, 0), Vec::new()));
        }
        let problem = &mut self.problems[k];
        if problem.len() != n {
            problem.a.reset_zeros(n, n);
            problem.b.resize(n, 0.0);
            problem.lo.resize(n, 0.0);
            problem.hi.resize(n, f64::INFINITY);
            problem.findex.resize(n, None);
            problem.nub = 0;
        }
        problem
    }
}

/// Fills `problem` (already sized) with island rows `range`: `A` from the rows and
/// `regularization` (per row, aligned with `range`), `b` given, bounds and friction indices
/// from the rows, `nub` leading unbounded rows.
pub(crate) fn assemble_island(
    rows: &RowStorage,
    mass: &RowMass,
    range: Range<usize>,
    nub: usize,
    b: &[f64],
    regularization: &[f64],
    problem: &mut BoxedLcp,
) {
    let n = range.len();
    debug_assert_eq!(problem.len(), n);
    let first = range.start;
    let a = problem.a.as_mut_slice();
    for i in 0..n {
        let (gi, ji) = (first + i, &rows.jacobian[first + i]);
        a[i * n + i] = mass.diagonal[gi] + regularization[i];
        for k in i + 1..n {
            let gk = first + k;
            let value = coupling(rows.bodies[gi], ji, rows.bodies[gk], &mass.imj[gk]);
            a[i * n + k] = value;
            a[k * n + i] = value;
        }
    }
    problem.b.copy_from_slice(b);
    problem.lo.copy_from_slice(&rows.lo[range.clone()]);
    problem.hi.copy_from_slice(&rows.hi[range.clone()]);
    problem.findex.copy_from_slice(&rows.findex[range]);
    problem.nub = nub;
}
