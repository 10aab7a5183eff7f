//! What every solver returns: the solution, its slack, a status, a work count and a residual.

use crate::residual::Residual;

/// How a solve ended. Only [`Status::Solved`] promises a solution to tolerance; every other
/// status still carries the solver's best estimate in the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// A solution within the solver's tolerance.
    Solved,
    /// An iterative solver used all its iterations without reaching its tolerance.
    IterationLimit,
    /// A pivoting solver used all its pivots (a guard against cycling).
    PivotLimit,
    /// Dantzig could not take a positive step (ODE's `s <= 0` case) or met a singular
    /// pivot it could not regularise; the unsolved rows are zero.
    PivotFailure,
    /// Lemke's algorithm left on a secondary ray: no solution was found (the problem may
    /// have none, or the matrix is outside the class Lemke handles).
    RayTermination,
    /// Non-finite numbers appeared during the solve.
    NonFinite,
}

impl Status {
    /// Whether the report holds a solution to tolerance.
    #[inline]
    pub fn is_solved(self) -> bool {
        self == Status::Solved
    }

    /// A stable snake_case name, used in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::IterationLimit => "iteration_limit",
            Status::PivotLimit => "pivot_limit",
            Status::PivotFailure => "pivot_failure",
            Status::RayTermination => "ray_termination",
            Status::NonFinite => "non_finite",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where one index of a boxed LCP sits in a solution: Dantzig's index sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum IndexState {
    /// In C: strictly between its bounds with `w = 0` (or unbounded).
    Clamped,
    /// In N at its lower bound, `w >= 0`.
    #[default]
    AtLower,
    /// In N at its upper bound, `w <= 0`.
    AtUpper,
}

/// The outcome of a solve.
#[derive(Clone, Debug, PartialEq)]
pub struct SolveReport {
    /// The solution (or best estimate, see `status`).
    pub x: Vec<f64>,
    /// The slack `w = A x - b` (boxed) or `w = M z + q` (standard).
    pub w: Vec<f64>,
    /// How the solve ended.
    pub status: Status,
    /// Pivots (pivoting solvers) or sweeps (iterative solvers), including any fallback's.
    pub iterations: usize,
    /// The normalised residual of the returned `x`, `w`.
    pub residual: Residual,
    /// Whether a fallback solver finished the job after the primary one failed.
    pub fell_back: bool,
}

impl Default for SolveReport {
    /// A report with no answer yet (empty `x` and `w`, [`Status::IterationLimit`]), to be
    /// filled by a solver's `solve_into`.
    fn default() -> Self {
        Self {
            x: Vec::new(),
            w: Vec::new(),
            status: Status::IterationLimit,
            iterations: 0,
            residual: Residual::default(),
            fell_back: false,
        }
    }
}
