//! Dantzig's principal pivoting for the boxed LCP (in progress).

use crate::error::LcpError;
use crate::problem::BoxedLcp;
use crate::report::{IndexState, SolveReport};

/// Options for [`solve_dantzig`].
#[derive(Clone, Debug)]
pub struct DantzigOptions {
    /// Finish a failed pivoting solve with projected Gauss-Seidel, started from an untouched
    /// copy of the problem. `None` reports the failure instead.
    pub fallback: Option<crate::pgs::PgsOptions>,
}

/// Solves a boxed LCP exactly; `initial` is an optional guess of each index's set.
pub fn solve_dantzig(
    problem: &BoxedLcp,
    options: &DantzigOptions,
    initial: Option<&[IndexState]>,
) -> Result<SolveReport, LcpError> {
    let _ = (problem, options, initial);
    unimplemented!()
}
