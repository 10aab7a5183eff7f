//! SOR projected Gauss-Seidel for the boxed LCP: ODE's `dWorldQuickStep` solver.
//!
//! Each sweep visits the rows in order and moves one unknown at a time to the value that
//! satisfies its own row, relaxed by `omega` and projected onto its bounds:
//!
//! ```text
//! x_i <- clamp(x_i + omega (b_i - (A x)_i) / A_ii, lo_i, hi_i)
//! ```
//!
//! Friction rows (`findex[i] = Some(j)`) take `+-mu_i |x_j|` from the *current* normal
//! force, so a sweep sees the normal force it has just updated. With
//! [`PgsOptions::coulomb_cone`] the two tangent rows of a contact are moved together and
//! projected onto the disk `|f_t| <= mu f_n` instead of the box.
//!
//! A contact's three rows (a normal row followed by exactly its two box-friction rows) are
//! one *block*: the same three steps in the same order, but with the three products
//! `(A x)_k` read together before the normal's step and the friction ones corrected by the
//! block's couplings `A_kj` afterwards, so that a sparse operator reads and writes the two
//! bodies once per contact ([`batch::BatchedRowOperator::block_times_vector`],
//! [`batch::BatchedRowOperator::block_changed`]). Found once per solve from `findex` and
//! [`RowOperator::off_diagonal`]; an operator without off-diagonal entries is swept row by row.
//! Three unbounded rows that the operator groups ([`batch::BatchedRowOperator::shares_triple`]: a ball
//! joint's, on two bodies) are a block the same way, each row within its own bounds.
//!
//! Blocks (and single bounded rows) that the operator calls independent
//! ([`batch::BatchedRowOperator::independent_blocks`], [`batch::BatchedRowOperator::independent_rows`]: no coupling
//! between them) are gathered four at a time into *batches*, which the operator may update
//! side by side in lanes ([`batch::BatchedRowOperator::update_batches`]; the engine does it in AVX2). A
//! batch is placed where its fourth member was, so a sweep visits them in a different
//! order than row order; within a batch the order does not matter. Blocks, batches and the
//! order are the sweep *plan*; a caller solving a problem of the same structure as the last
//! one with the same scratch (a resting scene's next step) may keep it
//! ([`PgsScratch::assume_same_structure`]), and only the blocks' couplings are read again.
//!
//! The solver only reads `A` through a [`RowOperator`], so the engine can run it on sparse
//! Jacobian rows without ever forming `A` ([`pgs_sweeps`], allocation-free once its
//! [`PgsScratch`] has grown to the problem size). [`solve_pgs`] is the dense entry point.

use crate::error::LcpError;
use crate::matrix::{dot, max_abs, DenseMatrix};
use crate::problem::{check_findex_target, check_finite, check_len, BoxedLcp};
use crate::report::{SolveReport, Status};
use crate::residual::{boxed_residual, Residual};

pub mod batch;

use batch::{BatchUpdate, BatchedRowOperator, LaneConstants, RowLaneConstants};

/// Read access to the matrix `A` of a boxed LCP, one row at a time.
///
/// # Contract
/// [`pgs_sweeps`] first projects the warm start onto the bounds, then calls
/// [`begin`](RowOperator::begin) once with that `x`, and afterwards calls
/// [`row_changed`](RowOperator::row_changed)`(i, delta)` after *every* change
/// `x_i += delta` it makes (never with `delta == 0`). Between those calls `x` is not modified,
/// so an implementation may answer [`row_times_vector`](RowOperator::row_times_vector) from a
/// cache instead of from `x`. The engine's sparse form keeps `a = M^-1 J^T x` per body:
/// `begin` builds it, `row_changed` adds `delta * M^-1 J_i^T` to the (at most two) bodies of
/// row `i`, and `(A x)_i = J_i . a + cfm_i x_i / h` then costs 12 multiplies.
pub trait RowOperator {
    /// Number of rows `n` (the matrix is `n x n`).
    fn len(&self) -> usize;

    /// Whether the operator has no rows.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The diagonal entry `A_ii`.
    fn diagonal(&self, i: usize) -> f64;

    /// Every diagonal entry into `out` (`out[i] = A_ii`, `out` of length `n`), once per
    /// solve. The default asks [`diagonal`](RowOperator::diagonal) row by row; an operator
    /// that keeps the diagonal in arrays may fill it in one vectorised pass.
    fn fill_diagonal(&self, out: &mut [f64]) {
        for (i, v) in out.iter_mut().enumerate() {
            *v = self.diagonal(i);
        }
    }

    /// `(A x)_i`, for the `x` last announced through `begin` and `row_changed`.
    fn row_times_vector(&self, i: usize, x: &[f64]) -> f64;

    /// The off-diagonal entry `A_ij`, if the operator can give it cheaply.
    ///
    /// Only used to size the joint step of a Coulomb-cone friction pair
    /// ([`PgsOptions::coulomb_cone`]), once per solve. `None` (the default) makes the solver
    /// assume the worst case `|A_ij| = sqrt(A_ii A_jj)`, which can halve that step.
    fn off_diagonal(&self, i: usize, j: usize) -> Option<f64> {
        let _ = (i, j);
        None
    }

    /// Called once, with the projected warm start, after
    /// [`prepare_batches`](batch::BatchedRowOperator::prepare_batches) and before the first sweep.
    fn begin(&mut self, x: &[f64]) {
        let _ = x;
    }

    /// Called after each change `x_i += delta` (`delta != 0`).
    fn row_changed(&mut self, i: usize, delta: f64) {
        let _ = (i, delta);
    }
}

/// A [`RowOperator`] over a dense matrix: `(A x)_i` is a dot product with row `i`.
#[derive(Clone, Copy, Debug)]
pub struct DenseOperator<'a> {
    a: &'a DenseMatrix,
}

impl<'a> DenseOperator<'a> {
    /// Wraps a square matrix.
    pub fn new(a: &'a DenseMatrix) -> Self {
        Self { a }
    }
}

impl RowOperator for DenseOperator<'_> {
    fn len(&self) -> usize {
        self.a.rows()
    }

    fn diagonal(&self, i: usize) -> f64 {
        self.a[(i, i)]
    }

    fn row_times_vector(&self, i: usize, x: &[f64]) -> f64 {
        dot(self.a.row(i), x)
    }

    fn off_diagonal(&self, i: usize, j: usize) -> Option<f64> {
        Some(self.a[(i, j)])
    }
}

/// A dense matrix has no batch kernel: rows are swept one by one.
impl BatchedRowOperator for DenseOperator<'_> {}

/// Options for projected Gauss-Seidel ([`solve_pgs`], [`pgs_sweeps`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PgsOptions {
    /// SOR relaxation factor (dimensionless), default `1.0` (plain Gauss-Seidel); must lie
    /// in the open interval `(0, 2)`. Above 1 over-relaxes, which speeds up smooth, stiff
    /// problems (chains, stacks) but can oscillate on contact-rich ones; below 1
    /// under-relaxes, slower but more damped.
    pub omega: f64,
    /// Largest number of sweeps over all rows, default `1000`; must be at least 1. Raising it
    /// buys accuracy on ill-conditioned problems at a cost linear in the sweeps.
    pub max_iterations: usize,
    /// Stop once the largest change of any `x_i` during one sweep, divided by
    /// `max(|x|_inf, f64::MIN_POSITIVE)`, is `<= tolerance` (dimensionless, relative),
    /// default `1e-9`; must be finite and `>= 0`. Lowering it costs more sweeps.
    pub tolerance: f64,
    /// [`solve_pgs`] only: the largest normalised residual
    /// ([`crate::Residual::max`]) with which a converged solve is reported as
    /// [`Status::Solved`], default `1e-6`; must be finite and `> 0`.
    pub residual_tolerance: f64,
    /// Friction model, default `false` (ODE's box: each tangent row bounded by
    /// `+-mu |f_n|` on its own).
    ///
    /// When `true`, friction rows are grouped by their normal: if *exactly two* rows point at
    /// the same normal `j` through `findex`, both have a positive diagonal and a positive
    /// coefficient, they form a pair and are updated together, their force projected onto
    /// the exact Coulomb disk `(f_1/mu_1)^2 + (f_2/mu_2)^2 <= f_n^2` (a circle of radius
    /// `mu |f_n|` when `mu_1 = mu_2`; an ellipse, reached by radial scaling, when the
    /// coefficients differ). A normal with one friction row, or with more than two, keeps
    /// the box for those rows: with more than two rows the directions are not known to be
    /// an orthogonal tangent basis, so a disk in their coordinates would mean nothing.
    pub coulomb_cone: bool,
}

impl Default for PgsOptions {
    fn default() -> Self {
        Self {
            omega: 1.0,
            max_iterations: 1000,
            tolerance: 1e-9,
            residual_tolerance: 1e-6,
            coulomb_cone: false,
        }
    }
}

impl PgsOptions {
    /// Checks every option against its documented range.
    pub fn validate(&self) -> Result<(), LcpError> {
        if !(self.omega > 0.0 && self.omega < 2.0) {
            return Err(bad_option(
                "omega",
                format!("must lie in (0, 2), got {}", self.omega),
            ));
        }
        if self.max_iterations == 0 {
            return Err(bad_option("max_iterations", "must be at least 1".into()));
        }
        if !(self.tolerance.is_finite() && self.tolerance >= 0.0) {
            return Err(bad_option(
                "tolerance",
                format!("must be finite and >= 0, got {}", self.tolerance),
            ));
        }
        if !(self.residual_tolerance.is_finite() && self.residual_tolerance > 0.0) {
            return Err(bad_option(
                "residual_tolerance",
                format!("must be finite and > 0, got {}", self.residual_tolerance),
            ));
        }
        Ok(())
    }
}

fn bad_option(option: &'static str, reason: String) -> LcpError {
    LcpError::BadOption { option, reason }
}

/// How a run of [`pgs_sweeps`] ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PgsOutcome {
    /// Sweeps performed (each visits every row once).
    pub sweeps: usize,
    /// Whether the last sweep's relative change met [`PgsOptions::tolerance`].
    pub converged: bool,
    /// The largest change of one `x_i` in the last sweep over `max(|x|_inf, tiny)`.
    pub relative_change: f64,
    /// Rows whose diagonal is `<= 0` or not finite: they keep their projected warm start,
    /// and only a residual check can tell whether that value satisfies them.
    pub frozen_rows: usize,
    /// Whether an update produced a non-finite value. The sweeps stop there, and `x` keeps
    /// the last finite values.
    pub non_finite: bool,
}

/// Marks "no partner" in [`PgsScratch`].
const NONE: usize = usize::MAX;
/// Marks a normal row with more than two friction rows while pairing.
const MANY: usize = usize::MAX - 1;

/// Work arrays for [`pgs_sweeps`], kept between calls so that a steady-state simulation
/// allocates nothing: the arrays only grow when a larger problem arrives.
#[derive(Clone, Debug, Default)]
pub struct PgsScratch {
    /// `1 / A_ii`, or `0` for a frozen row.
    inv_diag: Vec<f64>,
    /// For a Coulomb-cone friction row, the other row of its pair, else [`NONE`].
    partner: Vec<usize>,
    /// For the lower row of a pair: `1 / lambda_max` of the pair's block in the scaled
    /// coordinates `f_k / mu_k`.
    pair_step: Vec<f64>,
    /// Per normal row while pairing: [`NONE`], the first friction row seen, or [`MANY`].
    seen: Vec<usize>,
    /// For the first row `i` of a contact block or of an unbounded triple (see
    /// [`find_blocks`]): the couplings `[A_(i+1) i, A_(i+2) i, A_(i+2) (i+1)]`;
    /// `None` for every other row. A block is a contact's if row `i + 1` has a `findex`.
    block: Vec<Option<[f64; 3]>>,
    /// The order of one sweep: rows, blocks and batches (see [`plan_sweep`]).
    plan: Vec<Unit>,
    /// The first rows of each batch's four blocks.
    batches: Vec<[u32; 4]>,
    /// Batches being filled while planning.
    open: Vec<OpenBatch>,
    /// Per batch, what its sweeps read besides `x`, lane by lane (see [`LaneConstants`]).
    lane_constants: Vec<LaneConstants>,
    /// The rows of each row batch: four independent single rows (see [`plan_sweep`]).
    row_batches: Vec<[u32; 4]>,
    /// Row batches being filled while planning.
    open_rows: Vec<OpenBatch>,
    /// Per row batch, its fixed numbers lane by lane.
    row_constants: Vec<RowLaneConstants>,
    /// The size of the problem the plan (blocks, batches, order) was made for, if it may
    /// be kept for a problem of the same structure (no frozen rows, no Coulomb pairs).
    planned: Option<usize>,
    /// Set by [`PgsScratch::assume_same_structure`] for the next solve.
    same_structure: bool,
}

/// A batch being filled while planning: its first `count` members (first rows of blocks,
/// or single rows) and whether others may join it (not when its first member may not be
/// batched; `None` until a unit independent of its members asks).
#[derive(Clone, Copy, Debug)]
struct OpenBatch {
    units: [u32; 4],
    count: u32,
    joinable: Option<bool>,
}

impl OpenBatch {
    #[inline(always)]
    fn members(&self) -> &[u32] {
        &self.units[..self.count as usize]
    }
}

/// One step of a sweep's plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    /// Row `i` on its own (or, for a Coulomb pair's first row, the pair).
    Row(u32),
    /// The contact block starting at row `i`.
    Block(u32),
    /// The three unbounded rows starting at row `i` as one block (see
    /// [`batch::BatchedRowOperator::shares_triple`]).
    Triple(u32),
    /// Batches `first .. first + count` of four independent contact blocks each, updated
    /// lane by lane, one after the other (consecutive batches of the plan as one unit, so
    /// the operator is called once for them; see [`batch::BatchedRowOperator::update_batches`]).
    Batches {
        /// The first batch's index.
        first: u32,
        /// How many.
        count: u32,
    },
    /// Row batches `first .. first + count`, four independent bounded rows of no block
    /// each, updated lane by lane, one after the other (see
    /// [`batch::BatchedRowOperator::update_row_batches`]).
    RowBatches {
        /// The first row batch's index.
        first: u32,
        /// How many.
        count: u32,
    },
}

/// Batches being filled at once while planning: a block that conflicts with all of them
/// closes the oldest (its blocks go on one by one).
const OPEN_BATCHES: usize = 4;

impl PgsScratch {
    /// Empty scratch; it grows on first use.
    pub fn new() -> Self {
        Self::default()
    }

    /// Scratch already sized for problems of `n` rows.
    pub fn with_capacity(n: usize) -> Self {
        let mut s = Self::default();
        s.resize(n);
        s
    }

    /// Declares that the next [`pgs_sweeps`] with this scratch solves a problem with the
    /// same structure as the last one: the same size, friction indices and unbounded
    /// rows, and an operator that gives the same answers about which rows share their
    /// bodies and may be batched ([`batch::BatchedRowOperator::shares_triple`],
    /// [`batch::BatchedRowOperator::independent_blocks`], [`batch::BatchedRowOperator::independent_rows`]); only its
    /// numbers changed (a resting scene's next step). The solve then keeps the last sweep
    /// plan and only refreshes the blocks' couplings, unless a row is frozen, a coupling is
    /// not finite, the size differs, or Coulomb pairs are on: then it plans afresh. The
    /// caller answers for the rest: a wrong declaration sweeps in a stale order, with
    /// batches that may no longer be independent.
    pub fn assume_same_structure(&mut self) {
        self.same_structure = true;
    }

    fn resize(&mut self, n: usize) {
        self.inv_diag.resize(n, 0.0);
        self.partner.resize(n, NONE);
        self.pair_step.resize(n, 0.0);
        self.seen.resize(n, NONE);
        self.block.resize(n, None);
    }
}

/// Runs SOR projected Gauss-Seidel sweeps on `x` in place.
///
/// `b`, `lo`, `hi` and `findex` follow [`BoxedLcp`]'s meaning (for a friction row `hi[i]` is
/// its coefficient and `lo[i]` is ignored); unbounded rows are simply rows with infinite
/// bounds. `x` holds the warm start on entry (zeros for a cold start) and the solution on
/// return. It is first projected onto the bounds (a Coulomb pair onto its disk), then the
/// operator's [`begin`](RowOperator::begin) is called, then up to `options.max_iterations`
/// sweeps run until the relative change of a sweep meets `options.tolerance`.
///
/// Beyond the `O(n)` set-up (lengths, indices, inverse diagonals, Coulomb pairs) nothing is
/// allocated once `scratch` has reached size `n`.
///
/// # Errors
/// [`LcpError::LengthMismatch`] if a slice's length differs from `op.len()`,
/// [`LcpError::NonFinite`] for a non-finite warm start, the `findex` errors of
/// [`BoxedLcp::validate`], and [`LcpError::BadOption`] for options out of range. A solve that
/// does not converge is not an error: see [`PgsOutcome`].
#[allow(clippy::too_many_arguments)]
pub fn pgs_sweeps<O: BatchedRowOperator>(
    op: &mut O,
    b: &[f64],
    lo: &[f64],
    hi: &[f64],
    findex: &[Option<usize>],
    x: &mut [f64],
    options: &PgsOptions,
    scratch: &mut PgsScratch,
) -> Result<PgsOutcome, LcpError> {
    // The whole solve compiled for AVX2 where the processor has it (detected once at run
    // time): the same operations, so the same results to the bit (Rust contracts no
    // multiply-add into a fused one on its own), in three-operand instructions with fewer
    // register moves on the dependent chain of a Gauss-Seidel sweep, some loops four wide.
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was detected on this processor just above.
        return unsafe { pgs_sweeps_avx2(op, b, lo, hi, findex, x, options, scratch) };
    }
    pgs_sweeps_here(op, b, lo, hi, findex, x, options, scratch)
}

/// [`pgs_sweeps`] with AVX2 enabled.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
fn pgs_sweeps_avx2<O: BatchedRowOperator>(
    op: &mut O,
    b: &[f64],
    lo: &[f64],
    hi: &[f64],
    findex: &[Option<usize>],
    x: &mut [f64],
    options: &PgsOptions,
    scratch: &mut PgsScratch,
) -> Result<PgsOutcome, LcpError> {
    pgs_sweeps_here(op, b, lo, hi, findex, x, options, scratch)
}

/// [`pgs_sweeps`]'s work, inlined into its two copies.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn pgs_sweeps_here<O: BatchedRowOperator>(
    op: &mut O,
    b: &[f64],
    lo: &[f64],
    hi: &[f64],
    findex: &[Option<usize>],
    x: &mut [f64],
    options: &PgsOptions,
    scratch: &mut PgsScratch,
) -> Result<PgsOutcome, LcpError> {
    options.validate()?;
    let n = op.len();
    check_inputs(n, b, lo, hi, findex, x)?;
    let frozen_rows = prepare(op, lo, hi, findex, options, scratch);
    gather_lane_constants(b, lo, hi, options.omega, scratch);

    project_warm_start(lo, hi, findex, x, scratch);
    op.prepare_batches(&scratch.batches, x);
    op.prepare_row_batches(&scratch.row_batches, x);
    op.begin(x);

    let mut outcome = PgsOutcome {
        sweeps: 0,
        converged: false,
        relative_change: f64::INFINITY,
        frozen_rows,
        non_finite: false,
    };
    while outcome.sweeps < options.max_iterations {
        outcome.sweeps += 1;
        let data = SweepData {
            b,
            lo,
            hi,
            findex,
            omega: options.omega,
        };
        let Some(largest_change) = sweep(op, data, x, scratch) else {
            outcome.non_finite = true;
            op.finish_batches(x);
            break;
        };
        // With no tolerance (fixed sweeps, the engine's default) only a sweep that changed
        // nothing converges, and the relative change is only reported after the last
        // sweep: `|x|_inf` is not read every sweep (S1: 4 % of its step).
        let last = outcome.sweeps == options.max_iterations;
        if options.tolerance > 0.0 || largest_change == 0.0 || last {
            op.finish_batches(x);
            outcome.relative_change = largest_change / largest_magnitude(x).max(f64::MIN_POSITIVE);
            if outcome.relative_change <= options.tolerance {
                outcome.converged = true;
                break;
            }
        }
    }
    Ok(outcome)
}

/// Solves a dense boxed LCP by projected Gauss-Seidel.
///
/// `warm_start` (default zeros) must have the problem's length and be finite. The report's
/// status is
/// - [`Status::NonFinite`] if an update overflowed (the report then carries the last finite
///   iterate) or the final `x` or `w` is not finite;
/// - [`Status::Solved`] if the sweeps met [`PgsOptions::tolerance`] *and* the normalised
///   residual of the result is at most [`PgsOptions::residual_tolerance`]: small steps alone
///   do not prove a solution (a frozen row, or a stalled sweep, also makes small steps);
/// - [`Status::IterationLimit`] otherwise.
///
/// `iterations` counts sweeps. With [`PgsOptions::coulomb_cone`] the residual treats each
/// friction pair's disk as its feasible set: `bound` measures how far the pair lies outside
/// it, and `complementarity` is the pair's natural residual `y - P_disk(y - S w)` in the
/// coordinates `y = f / mu` (`S = diag(mu)`), zero exactly when the friction force is on the
/// disk and opposes the tangential slack (maximal dissipation) or the slack is zero.
///
/// # Errors
/// Everything [`BoxedLcp::validate`] rejects, a warm start of the wrong length
/// ([`LcpError::LengthMismatch`], field `warm_start`) or with a non-finite entry
/// ([`LcpError::NonFinite`]), and options out of range ([`LcpError::BadOption`]).
pub fn solve_pgs(
    problem: &BoxedLcp,
    warm_start: Option<&[f64]>,
    options: &PgsOptions,
) -> Result<SolveReport, LcpError> {
    problem.validate()?;
    options.validate()?;
    let mut x = initial_guess(problem.len(), warm_start)?;
    let mut op = DenseOperator::new(&problem.a);
    let mut scratch = PgsScratch::with_capacity(problem.len());
    let outcome = pgs_sweeps(
        &mut op,
        &problem.b,
        &problem.lo,
        &problem.hi,
        &problem.findex,
        &mut x,
        options,
        &mut scratch,
    )?;
    let w = problem.slack(&x);
    let residual = if options.coulomb_cone {
        cone_residual(problem, &x, &w, &scratch.partner)
    } else {
        boxed_residual(problem, &x, &w)
    };
    let all_finite = x.iter().chain(&w).all(|v| v.is_finite());
    let status = if outcome.non_finite || !all_finite {
        Status::NonFinite
    } else if outcome.converged && residual.max() <= options.residual_tolerance {
        Status::Solved
    } else {
        Status::IterationLimit
    };
    Ok(SolveReport {
        x,
        w,
        status,
        iterations: outcome.sweeps,
        residual,
        fell_back: false,
    })
}

/// The starting point of an iterative solve: a checked copy of `warm_start`, or zeros.
pub(crate) fn initial_guess(n: usize, warm_start: Option<&[f64]>) -> Result<Vec<f64>, LcpError> {
    match warm_start {
        None => Ok(vec![0.0; n]),
        Some(ws) => {
            if ws.len() != n {
                return Err(LcpError::LengthMismatch {
                    field: "warm_start",
                    expected: n,
                    found: ws.len(),
                });
            }
            check_finite("warm_start", ws)?;
            Ok(ws.to_vec())
        }
    }
}

#[inline(always)]
fn check_inputs(
    n: usize,
    b: &[f64],
    lo: &[f64],
    hi: &[f64],
    findex: &[Option<usize>],
    x: &[f64],
) -> Result<(), LcpError> {
    for (field, len) in [
        ("b", b.len()),
        ("lo", lo.len()),
        ("hi", hi.len()),
        ("findex", findex.len()),
        ("warm_start", x.len()),
    ] {
        check_len(field, n, len)?;
    }
    check_finite("warm_start", x)?;
    for (i, f) in findex.iter().enumerate() {
        if let Some(j) = *f {
            check_findex_target(findex, i, j)?;
        }
    }
    Ok(())
}

/// Fills the scratch for this problem; returns the number of frozen rows.
#[inline(always)]
fn prepare<O: BatchedRowOperator>(
    op: &O,
    lo: &[f64],
    hi: &[f64],
    findex: &[Option<usize>],
    options: &PgsOptions,
    scratch: &mut PgsScratch,
) -> usize {
    let n = op.len();
    let reuse = std::mem::take(&mut scratch.same_structure)
        && !options.coulomb_cone
        && scratch.planned == Some(n);
    scratch.resize(n);
    // The diagonals first, then their reciprocals in a loop without branches, which the
    // compiler vectorises: a division a row, one after another, was 40 % of this
    // function's time on a 20-box stack.
    let inv_diag = &mut scratch.inv_diag[..n];
    op.fill_diagonal(inv_diag);
    let mut frozen = 0;
    for v in inv_diag.iter_mut() {
        let usable = *v > 0.0 && v.is_finite();
        frozen += usize::from(!usable);
        *v = if usable { 1.0 / *v } else { 0.0 };
    }
    // A kept plan had no frozen rows (`planned` is only set then) and has none now, so its
    // blocks and batches are still made of free rows.
    if reuse && frozen == 0 && refresh_couplings(op, scratch) {
        return 0;
    }
    scratch.partner.fill(NONE);
    if options.coulomb_cone {
        find_cone_pairs(op, hi, findex, scratch);
    }
    find_blocks(op, lo, hi, findex, scratch);
    plan_sweep(op, lo, hi, findex, scratch);
    scratch.planned = (frozen == 0 && !options.coulomb_cone).then_some(n);
    frozen
}

/// The couplings of the kept plan's blocks from the operator's current numbers; `false`
/// (some blocks already refreshed) if one is missing or not finite, for a fresh plan.
#[inline(always)]
fn refresh_couplings<O: BatchedRowOperator>(op: &O, scratch: &mut PgsScratch) -> bool {
    for (i, block) in scratch.block.iter_mut().enumerate() {
        let Some(couplings) = block else { continue };
        let Some([a, b, c]) = op.block_couplings(i) else {
            return false;
        };
        if !(a.is_finite() && b.is_finite() && c.is_finite()) {
            return false;
        }
        *couplings = [a, b, c];
    }
    true
}

/// Fills [`PgsScratch::lane_constants`] for the planned batches.
#[inline(always)]
fn gather_lane_constants(b: &[f64], lo: &[f64], hi: &[f64], omega: f64, scratch: &mut PgsScratch) {
    let PgsScratch {
        inv_diag,
        block,
        batches,
        lane_constants,
        row_batches,
        row_constants,
        ..
    } = scratch;
    // Filled in place: a batch always has four members, so every lane of every field is
    // written, and building each batch's numbers apart to move them in copied them twice
    // (S1: 590 batches of 52 numbers a solve).
    row_constants.resize(row_batches.len(), RowLaneConstants::default());
    for (c, rows) in row_constants.iter_mut().zip(row_batches.iter()) {
        for (l, &i) in rows.iter().enumerate() {
            let i = i as usize;
            c.b[l] = b[i];
            c.relaxed[l] = omega * inv_diag[i];
            c.lo[l] = lo[i];
            c.hi[l] = hi[i];
        }
    }
    lane_constants.resize(batches.len(), LaneConstants::default());
    for (c, heads) in lane_constants.iter_mut().zip(batches.iter()) {
        for (l, &h) in heads.iter().enumerate() {
            let h = h as usize;
            let couplings = block[h].unwrap_or([0.0; 3]);
            // The block's three rows sliced once, not each array checked per row.
            let rows = h..h + 3;
            let (b, inv_diag, hi) = (&b[rows.clone()], &inv_diag[rows.clone()], &hi[rows]);
            for k in 0..3 {
                c.b[k][l] = b[k];
                c.relaxed[k][l] = omega * inv_diag[k];
                c.couplings[k][l] = couplings[k];
                c.hi[k][l] = hi[k];
            }
            c.lo_normal[l] = lo[h];
        }
    }
}

/// The order of a sweep: every row in order, except that contact blocks that the operator
/// calls independent ([`batch::BatchedRowOperator::independent_blocks`]) are gathered into batches of
/// four, each placed where its fourth block was. A batch's blocks touch no common
/// unknowns' bodies, so updating them side by side is the same Gauss-Seidel as one after
/// the other; the sweep only visits them in a different order than row order.
#[inline(always)]
fn plan_sweep<O: BatchedRowOperator>(
    op: &O,
    lo: &[f64],
    hi: &[f64],
    findex: &[Option<usize>],
    scratch: &mut PgsScratch,
) {
    let PgsScratch {
        inv_diag,
        partner,
        block,
        plan,
        batches,
        open,
        row_batches,
        open_rows,
        ..
    } = scratch;
    plan.clear();
    batches.clear();
    open.clear();
    row_batches.clear();
    open_rows.clear();
    let n = block.len();
    if !op.may_batch() {
        let mut i = 0;
        while i < n {
            let (unit, width) = match block[i] {
                Some(_) if findex[i + 1].is_none() => (Unit::Triple(i as u32), 3),
                Some(_) => (Unit::Block(i as u32), 3),
                None => (Unit::Row(i as u32), 1),
            };
            plan.push(unit);
            i += width;
        }
        return;
    }
    let mut i = 0;
    while i < n {
        if block[i].is_some() && findex[i + 1].is_none() {
            // Unbounded rows keep their place (see below).
            plan.push(Unit::Triple(i as u32));
            i += 3;
            continue;
        }
        if block[i].is_some() {
            let unit = BatchCandidate {
                batchable: |h: u32| op.batchable_block(h as usize),
                independent: |h: u32| op.independent_blocks(h as usize, i),
                single: Unit::Block,
            };
            let complete = add_to_batch(open, i, unit, plan);
            if let Some(heads) = complete {
                push_batch(plan, batches.len(), false);
                batches.push(heads);
            }
            i += 3;
            continue;
        }
        // Single rows: bounded, not friction, not a Coulomb pair, not frozen. Unbounded
        // rows (joints) keep their order: a chain converges fastest swept along itself.
        let single = findex[i].is_none()
            && partner[i] == NONE
            && inv_diag[i] > 0.0
            && (lo[i] > f64::NEG_INFINITY || hi[i] < f64::INFINITY);
        if single {
            let unit = BatchCandidate {
                batchable: |k: u32| op.batchable_row(k as usize),
                independent: |k: u32| op.independent_rows(k as usize, i),
                single: Unit::Row,
            };
            let complete = add_to_batch(open_rows, i, unit, plan);
            if let Some(rows) = complete {
                push_batch(plan, row_batches.len(), true);
                row_batches.push(rows);
            }
        } else {
            plan.push(Unit::Row(i as u32));
        }
        i += 1;
    }
    for batch in open.drain(..) {
        plan.extend(batch.members().iter().map(|&h| Unit::Block(h)));
    }
    for batch in open_rows.drain(..) {
        plan.extend(batch.members().iter().map(|&r| Unit::Row(r)));
    }
}

/// Puts batch `index` (a row batch with `rows`) into the plan: one more of the last unit's
/// run if that run ends just before it, else a run of its own.
fn push_batch(plan: &mut Vec<Unit>, index: usize, rows: bool) {
    let index = index as u32;
    match plan.last_mut() {
        Some(Unit::Batches { first, count }) if !rows && *first + *count == index => {
            *count += 1;
        }
        Some(Unit::RowBatches { first, count }) if rows && *first + *count == index => {
            *count += 1;
        }
        _ if rows => plan.push(Unit::RowBatches {
            first: index,
            count: 1,
        }),
        _ => plan.push(Unit::Batches {
            first: index,
            count: 1,
        }),
    }
}

/// What [`add_to_batch`] asks of the operator about a unit `i` (a block or a single row):
/// whether a unit may be batched at all, whether a unit is independent of `i`, and how a
/// unit goes into the plan on its own.
struct BatchCandidate<B, I, S> {
    batchable: B,
    independent: I,
    single: S,
}

/// Puts unit `i` into the first open batch whose members are all independent of it, if
/// both the batch (its first member) and `i` may be batched; returns the batch once it has
/// four. Without a fitting batch a new one opens; with [`OPEN_BATCHES`] open already, the
/// oldest closes first and its members go into the plan one by one.
///
/// Whether a unit may be batched is only asked once a batch independent of `i` is found
/// (most of a pyramid's blocks share a body with every open batch), and at most once per
/// unit.
fn add_to_batch<B: Fn(u32) -> bool, I: Fn(u32) -> bool, S: Fn(u32) -> Unit>(
    open: &mut Vec<OpenBatch>,
    i: usize,
    unit: BatchCandidate<B, I, S>,
    plan: &mut Vec<Unit>,
) -> Option<[u32; 4]> {
    let mut own = None;
    let mut found = None;
    for (at, batch) in open.iter_mut().enumerate() {
        if !batch.members().iter().all(|&m| (unit.independent)(m)) {
            continue;
        }
        if !*batch
            .joinable
            .get_or_insert_with(|| (unit.batchable)(batch.units[0]))
        {
            continue;
        }
        let batchable = *own.get_or_insert_with(|| (unit.batchable)(i as u32));
        if batchable {
            found = Some(at);
        }
        break;
    }
    match found {
        Some(at) => {
            let batch = &mut open[at];
            batch.units[batch.count as usize] = i as u32;
            batch.count += 1;
            (batch.count == 4).then(|| open.remove(at).units)
        }
        None => {
            if open.len() == OPEN_BATCHES {
                let oldest = open.remove(0);
                plan.extend(oldest.members().iter().map(|&m| (unit.single)(m)));
            }
            open.push(OpenBatch {
                units: [i as u32, 0, 0, 0],
                count: 1,
                joinable: own,
            });
            None
        }
    }
}

/// Marks the contact blocks: a row `i` without `findex`, followed by exactly two friction
/// rows `i + 1`, `i + 2` that point at it (box friction, not a Coulomb pair), all three with
/// a positive diagonal and with finite couplings from [`RowOperator::off_diagonal`].
///
/// A block's update is the same three Gauss-Seidel steps as row by row, in the same order;
/// only `(A x)` of the friction rows is read before the normal's step and corrected by the
/// couplings, so the operator reads and writes the bodies once per contact instead of once
/// per row, and the three products are independent work.
///
/// Three unbounded rows without `findex` that the operator groups
/// ([`batch::BatchedRowOperator::shares_triple`]: a ball joint's) become a block the same way.
#[inline(always)]
fn find_blocks<O: BatchedRowOperator>(
    op: &O,
    lo: &[f64],
    hi: &[f64],
    findex: &[Option<usize>],
    scratch: &mut PgsScratch,
) {
    let n = findex.len();
    scratch.block.fill(None);
    let unbounded =
        |k: usize| findex[k].is_none() && lo[k] == f64::NEG_INFINITY && hi[k] == f64::INFINITY;
    let mut i = 0;
    while i + 2 < n {
        let contact = findex[i].is_none()
            && findex[i + 1] == Some(i)
            && findex[i + 2] == Some(i)
            && findex.get(i + 3).is_none_or(|f| *f != Some(i));
        let triple = (i..i + 3).all(unbounded) && op.shares_triple(i);
        let head = contact || triple;
        let free = (i..i + 3).all(|k| scratch.partner[k] == NONE && scratch.inv_diag[k] > 0.0);
        if !(head && free) {
            i += 1;
            continue;
        }
        if let Some([a, b, c]) = op.block_couplings(i) {
            if a.is_finite() && b.is_finite() && c.is_finite() {
                scratch.block[i] = Some([a, b, c]);
                i += 3;
                continue;
            }
        }
        i += 1;
    }
}

/// Pairs the friction rows of each normal that has exactly two (see
/// [`PgsOptions::coulomb_cone`]) and sizes each pair's joint step.
fn find_cone_pairs<O: BatchedRowOperator>(
    op: &O,
    hi: &[f64],
    findex: &[Option<usize>],
    scratch: &mut PgsScratch,
) {
    let PgsScratch {
        inv_diag,
        partner,
        pair_step,
        seen,
        ..
    } = scratch;
    seen.fill(NONE);
    for (i, f) in findex.iter().enumerate() {
        let Some(j) = *f else { continue };
        match seen[j] {
            NONE => seen[j] = i,
            MANY => {}
            first if partner[first] == NONE => {
                partner[first] = i;
                partner[i] = first;
            }
            first => {
                // A third friction row on this normal: the pair was premature.
                let second = partner[first];
                partner[second] = NONE;
                partner[first] = NONE;
                seen[j] = MANY;
            }
        }
    }
    for i in 0..findex.len() {
        let k = partner[i];
        if k == NONE || k < i {
            continue;
        }
        let (mu_i, mu_k) = (hi[i], hi[k]);
        let usable = inv_diag[i] > 0.0 && inv_diag[k] > 0.0 && mu_i > 0.0 && mu_k > 0.0;
        if !usable {
            partner[i] = NONE;
            partner[k] = NONE;
            continue;
        }
        // The block of A for (f_i/mu_i, f_k/mu_k): its largest eigenvalue is the Lipschitz
        // constant of the pair's gradient, so a step of omega / lambda_max (omega < 2)
        // always lowers the energy, and its fixed points satisfy the cone's KKT conditions.
        let p = mu_i * mu_i * op.diagonal(i);
        let q = mu_k * mu_k * op.diagonal(k);
        let coupling = match (op.off_diagonal(i, k), op.off_diagonal(k, i)) {
            (Some(a), Some(c)) if a.is_finite() && c.is_finite() => a.abs().max(c.abs()),
            _ => (op.diagonal(i) * op.diagonal(k)).sqrt(),
        };
        let r = mu_i * mu_k * coupling;
        let lambda_max = 0.5 * (p + q) + (0.25 * (p - q) * (p - q) + r * r).sqrt();
        pair_step[i] = 1.0 / lambda_max;
    }
}

/// Projects the warm start onto the bounds it implies, in one pass: a friction row sees its
/// normal's projected force (projected ahead of its turn if the normal comes later: a
/// normal row's projection reads only itself), and a cone pair is projected at its later
/// row, once both of its rows hold their box projection (S4: three passes were 2.5 % of
/// a step).
#[inline(always)]
fn project_warm_start(
    lo: &[f64],
    hi: &[f64],
    findex: &[Option<usize>],
    x: &mut [f64],
    scratch: &PgsScratch,
) {
    let n = x.len();
    // Cut to one length, so that a row's reads are checked once, not once an array.
    let (lo, hi, findex, partner) = (&lo[..n], &hi[..n], &findex[..n], &scratch.partner[..n]);
    for i in 0..n {
        x[i] = match findex[i] {
            None => x[i].max(lo[i]).min(hi[i]),
            Some(j) => {
                let limit = (hi[i] * projected_normal(lo, hi, x, i, j)).abs();
                x[i].max(-limit).min(limit)
            }
        };
        let k = partner[i];
        if k != NONE && k < i {
            let normal_row = findex[k].unwrap_or(k);
            let normal = projected_normal(lo, hi, x, i, normal_row);
            (x[k], x[i]) = project_onto_cone(x[k], x[i], hi[k], hi[i], normal);
        }
    }
}

/// Normal row `j`'s force projected onto its bounds, read at row `i` of a pass in row order
/// that projects each row at its turn: rows before `i` hold their projection already.
#[inline(always)]
fn projected_normal(lo: &[f64], hi: &[f64], x: &[f64], i: usize, j: usize) -> f64 {
    if j <= i {
        x[j]
    } else {
        x[j].max(lo[j]).min(hi[j])
    }
}

/// What a sweep reads besides the operator, `x` and the scratch.
#[derive(Clone, Copy)]
struct SweepData<'p> {
    b: &'p [f64],
    lo: &'p [f64],
    hi: &'p [f64],
    findex: &'p [Option<usize>],
    omega: f64,
}

/// One sweep; returns the largest `|delta x_i|`, or `None` if an update was not finite.
#[inline(always)]
fn sweep<O: BatchedRowOperator>(
    op: &mut O,
    data: SweepData,
    x: &mut [f64],
    scratch: &PgsScratch,
) -> Option<f64> {
    let mut largest: f64 = 0.0;
    for &unit in &scratch.plan {
        let i = match unit {
            Unit::Row(i) => i as usize,
            Unit::Block(i) => {
                let change = update_block::<_, true>(op, data, x, scratch, i as usize)?;
                largest = largest.max(change);
                continue;
            }
            Unit::Triple(i) => {
                let change = update_block::<_, false>(op, data, x, scratch, i as usize)?;
                largest = largest.max(change);
                continue;
            }
            Unit::Batches { first, count } => {
                let batches = first as usize..(first + count) as usize;
                let change = update_contact_batches(op, data, x, scratch, batches)?;
                largest = largest.max(change);
                continue;
            }
            Unit::RowBatches { first, count } => {
                let batches = first as usize..(first + count) as usize;
                let rows = &scratch.row_batches[batches.clone()];
                let constants = &scratch.row_constants[batches.clone()];
                match op.update_row_batches(batches, rows, constants, x) {
                    BatchUpdate::Moved(change) => largest = largest.max(change),
                    BatchUpdate::NonFinite => return None,
                    BatchUpdate::NotHandled => {
                        for &i in rows.iter().flatten() {
                            largest = largest.max(update_row(op, data, x, scratch, i as usize)?);
                        }
                    }
                }
                continue;
            }
        };
        largest = largest.max(update_row(op, data, x, scratch, i)?);
    }
    Some(largest)
}

/// Row `i`'s Gauss-Seidel step (or, for the first row of a Coulomb pair, the pair's);
/// returns `|delta|` (0 for a frozen row or a pair's second row), or `None` if an update
/// was not finite.
#[inline(always)]
fn update_row<O: BatchedRowOperator>(
    op: &mut O,
    data: SweepData,
    x: &mut [f64],
    scratch: &PgsScratch,
    i: usize,
) -> Option<f64> {
    let SweepData {
        b,
        lo,
        hi,
        findex,
        omega,
    } = data;
    let inv_diag = scratch.inv_diag[i];
    if inv_diag == 0.0 {
        return Some(0.0);
    }
    let k = scratch.partner[i];
    if k != NONE {
        if k > i {
            return update_cone_pair(op, b, hi, findex, x, omega, scratch, i, k);
        }
        return Some(0.0);
    }
    let (lower, upper) = match findex[i] {
        Some(j) => {
            let limit = (hi[i] * x[j]).abs();
            (-limit, limit)
        }
        None => (lo[i], hi[i]),
    };
    // `omega * inv_diag` does not wait for the product: one multiply less on the chain
    // from one row's update to the next.
    let candidate = x[i] + (b[i] - op.row_times_vector(i, x)) * (omega * inv_diag);
    if !candidate.is_finite() {
        return None;
    }
    let delta = project(candidate, lower, upper) - x[i];
    if delta != 0.0 {
        x[i] += delta;
        op.row_changed(i, delta);
    }
    Some(delta.abs())
}

/// The three Gauss-Seidel steps of the block starting at row `i`, each seeing the steps
/// before it through the block's `couplings`: with `CONTACT`, a contact's (normal `i`,
/// friction rows `i + 1`, `i + 2`), else three unbounded rows; returns the largest
/// `|delta|`, or `None` if an update was not finite.
#[inline(always)]
fn update_block<O: BatchedRowOperator, const CONTACT: bool>(
    op: &mut O,
    data: SweepData,
    x: &mut [f64],
    scratch: &PgsScratch,
    i: usize,
) -> Option<f64> {
    let couplings = scratch.block[i]?;
    let ax = op.block_times_vector(i, x);
    let delta = block_steps::<CONTACT>(data, x, scratch, i, couplings, ax)?;
    if delta != [0.0; 3] {
        op.block_changed(i, delta);
    }
    Some(largest_of(delta))
}

/// Batches `batches`: the operator's own update ([`batch::BatchedRowOperator::update_batches`]), or else
/// each batch's four independent blocks one after the other. Returns the largest
/// `|delta|`, or `None` if an update was not finite.
#[inline(always)]
fn update_contact_batches<O: BatchedRowOperator>(
    op: &mut O,
    data: SweepData,
    x: &mut [f64],
    scratch: &PgsScratch,
    batches: std::ops::Range<usize>,
) -> Option<f64> {
    let heads = &scratch.batches[batches.clone()];
    let constants = &scratch.lane_constants[batches.clone()];
    match op.update_batches(batches, heads, constants, x) {
        BatchUpdate::Moved(largest) => Some(largest),
        BatchUpdate::NonFinite => None,
        BatchUpdate::NotHandled => {
            let mut largest = 0.0f64;
            for batch in heads {
                for &h in batch {
                    let change = update_block::<_, true>(op, data, x, scratch, h as usize)?;
                    largest = largest.max(change);
                }
            }
            Some(largest)
        }
    }
}

/// The steps of [`update_block`] from the block's products `ax` before them: moves `x` and
/// returns the changes, or `None` (with `x` partly moved) if one was not finite. A contact's
/// friction rows are bounded by `+-hi x_n` with the normal force just updated; other rows
/// by their own bounds.
#[inline(always)]
fn block_steps<const CONTACT: bool>(
    data: SweepData,
    x: &mut [f64],
    scratch: &PgsScratch,
    i: usize,
    [a_1n, a_2n, a_21]: [f64; 3],
    [ax_n, ax_1, ax_2]: [f64; 3],
) -> Option<[f64; 3]> {
    let SweepData {
        b, lo, hi, omega, ..
    } = data;
    let inv = &scratch.inv_diag[i..i + 3];
    // Each step waits for the one before; what does not (the residuals before the block,
    // the second friction row's share of the normal's step) is computed beside the chain.
    let step = |k: usize, residual: f64, lower: f64, upper: f64, x: &mut [f64]| {
        let candidate = x[k] + residual * (omega * inv[k - i]);
        candidate
            .is_finite()
            .then(|| project(candidate, lower, upper) - x[k])
    };
    let (r_1, r_2) = (b[i + 1] - ax_1, b[i + 2] - ax_2);
    let d_n = step(i, b[i] - ax_n, lo[i], hi[i], x)?;
    x[i] += d_n;
    let r_2 = r_2 - a_2n * d_n;
    let bounds = |k: usize, x: &[f64]| {
        if CONTACT {
            let limit = (hi[k] * x[i]).abs();
            (-limit, limit)
        } else {
            (lo[k], hi[k])
        }
    };
    let (lower, upper) = bounds(i + 1, x);
    let d_1 = step(i + 1, r_1 - a_1n * d_n, lower, upper, x)?;
    x[i + 1] += d_1;
    let (lower, upper) = bounds(i + 2, x);
    let d_2 = step(i + 2, r_2 - a_21 * d_1, lower, upper, x)?;
    x[i + 2] += d_2;
    Some([d_n, d_1, d_2])
}

/// `|x|_inf` of finite `x`, in four independent running maxima (compare-selects without
/// `f64::max`'s NaN care, which the sweeps' finiteness checks make unnecessary).
#[inline(always)]
fn largest_magnitude(x: &[f64]) -> f64 {
    let larger = |m: f64, v: f64| if v > m { v } else { m };
    let mut lanes = [0.0f64; 4];
    let mut chunks = x.chunks_exact(4);
    for chunk in &mut chunks {
        for (lane, v) in lanes.iter_mut().zip(chunk) {
            *lane = larger(*lane, v.abs());
        }
    }
    let tail = chunks
        .remainder()
        .iter()
        .fold(0.0, |m, v| larger(m, v.abs()));
    lanes.into_iter().fold(tail, larger)
}

/// `candidate` (finite) moved into `[lower, upper]`, as `candidate.max(lower).min(upper)`
/// but without `f64::max`'s care for NaN, which costs the block's dependent chain of three
/// steps a few instructions each (bounds are never NaN: [`pgs_sweeps`] validates them).
#[inline(always)]
fn project(candidate: f64, lower: f64, upper: f64) -> f64 {
    let raised = if candidate > lower { candidate } else { lower };
    if raised < upper {
        raised
    } else {
        upper
    }
}

fn largest_of(delta: [f64; 3]) -> f64 {
    delta[0].abs().max(delta[1].abs()).max(delta[2].abs())
}

/// Moves the friction pair `(i, k)` by one relaxed projected-gradient step in the scaled
/// coordinates `f/mu`, then projects onto the Coulomb disk of the current normal force.
#[allow(clippy::too_many_arguments)]
fn update_cone_pair<O: BatchedRowOperator>(
    op: &mut O,
    b: &[f64],
    hi: &[f64],
    findex: &[Option<usize>],
    x: &mut [f64],
    omega: f64,
    scratch: &PgsScratch,
    i: usize,
    k: usize,
) -> Option<f64> {
    let (mu_i, mu_k) = (hi[i], hi[k]);
    let normal = x[findex[i].unwrap_or(i)];
    // Both gradients at the same point: a joint step, not two Gauss-Seidel steps.
    let r_i = b[i] - op.row_times_vector(i, x);
    let r_k = b[k] - op.row_times_vector(k, x);
    let step = omega * scratch.pair_step[i];
    let f_i = x[i] + step * mu_i * mu_i * r_i;
    let f_k = x[k] + step * mu_k * mu_k * r_k;
    if !(f_i.is_finite() && f_k.is_finite()) {
        return None;
    }
    let (f_i, f_k) = project_onto_cone(f_i, f_k, mu_i, mu_k, normal);
    let mut largest: f64 = 0.0;
    for (row, value) in [(i, f_i), (k, f_k)] {
        let delta = value - x[row];
        if delta != 0.0 {
            x[row] = value;
            op.row_changed(row, delta);
            largest = largest.max(delta.abs());
        }
    }
    Some(largest)
}

/// Scales `(f_1, f_2)` radially onto `(f_1/mu_1)^2 + (f_2/mu_2)^2 <= normal^2` if outside
/// (both `mu > 0`). For `mu_1 = mu_2` this is the Euclidean projection onto the disk.
fn project_onto_cone(f_1: f64, f_2: f64, mu_1: f64, mu_2: f64, normal: f64) -> (f64, f64) {
    let radius = normal.abs();
    let norm = (f_1 / mu_1).hypot(f_2 / mu_2);
    if norm <= radius {
        (f_1, f_2)
    } else {
        let scale = radius / norm;
        (f_1 * scale, f_2 * scale)
    }
}

/// [`crate::boxed_residual`] with each Coulomb pair (`partner`) judged against its disk
/// instead of its box; the normalisation is the same, so the figures compare directly.
fn cone_residual(problem: &BoxedLcp, x: &[f64], w: &[f64], partner: &[usize]) -> Residual {
    let mut residual = boxed_residual(problem, x, w);
    let n = problem.len();
    let x_inf = max_abs(x);
    let mut x_scale = x_inf;
    for i in 0..n {
        let (lo, hi) = problem.effective_bounds(i, x);
        for bound in [lo, hi] {
            if bound.is_finite() {
                x_scale = x_scale.max(bound.abs());
            }
        }
    }
    let x_scale = x_scale.max(f64::MIN_POSITIVE);
    let w_scale = max_abs(&problem.b)
        .max(problem.a.max_abs() * x_inf)
        .max(f64::MIN_POSITIVE);
    let (mut bound, mut complementarity): (f64, f64) = (0.0, 0.0);
    for i in 0..n {
        let k = partner[i];
        if k == NONE {
            let (lo, hi) = problem.effective_bounds(i, x);
            bound = bound.max((lo - x[i]).max(x[i] - hi).max(0.0) / x_scale);
            let xs = x[i] / x_scale;
            let ws = w[i] / w_scale;
            let natural = xs - (xs - ws).max(lo / x_scale).min(hi / x_scale);
            complementarity = complementarity.max(natural.abs());
        } else if k > i {
            let (mu_i, mu_k) = (problem.hi[i], problem.hi[k]);
            let radius = x[problem.findex[i].unwrap_or(i)].abs() / x_scale;
            let y_i = x[i] / (mu_i * x_scale);
            let y_k = x[k] / (mu_k * x_scale);
            let mu_max = mu_i.max(mu_k);
            bound = bound.max((y_i.hypot(y_k) - radius).max(0.0) * mu_max);
            let g_i = mu_i * w[i] / w_scale;
            let g_k = mu_k * w[k] / w_scale;
            let (p_i, p_k) = project_onto_cone(y_i - g_i, y_k - g_k, 1.0, 1.0, radius);
            complementarity = complementarity
                .max((mu_i * (y_i - p_i)).abs())
                .max((mu_k * (y_k - p_k)).abs());
        }
    }
    residual.bound = if bound.is_nan() { f64::INFINITY } else { bound };
    residual.complementarity = if complementarity.is_nan() {
        f64::INFINITY
    } else {
        complementarity
    };
    residual
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `pgs_sweeps` runs its AVX2 copy on a processor with AVX2; it must give the forces
    /// of the baseline copy (`pgs_sweeps_here` called directly) to the bit, friction
    /// boxes and Coulomb pairs alike, on random contact problems.
    #[test]
    fn the_avx2_copy_solves_bit_for_bit_like_the_baseline_copy() {
        #[cfg(target_arch = "x86_64")]
        assert!(
            std::arch::is_x86_feature_detected!("avx2"),
            "this test compares the AVX2 copy with the baseline one: it needs AVX2"
        );
        for seed in 1..6 {
            let spec = crate::generate::ContactProblemSpec {
                seed,
                bodies: 12,
                contacts: 30,
                ..Default::default()
            };
            let p = crate::generate::random_contact_problem(&spec);
            for coulomb_cone in [false, true] {
                let options = PgsOptions {
                    coulomb_cone,
                    max_iterations: 40,
                    tolerance: 0.0,
                    ..PgsOptions::default()
                };
                let mut forces = Vec::new();
                for copy in 0..2 {
                    let mut op = DenseOperator::new(&p.a);
                    let mut x = vec![0.0; p.len()];
                    let mut scratch = PgsScratch::new();
                    let (b, lo, hi, findex) = (&p.b, &p.lo, &p.hi, &p.findex);
                    let run = if copy == 0 {
                        pgs_sweeps
                    } else {
                        pgs_sweeps_here
                    };
                    let outcome = run(&mut op, b, lo, hi, findex, &mut x, &options, &mut scratch)
                        .expect("a valid problem");
                    assert_eq!(outcome.sweeps, 40);
                    forces.push(x.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
                }
                assert_eq!(forces[0], forces[1], "seed {seed}, cone {coulomb_cone}");
                assert!(forces[0].iter().any(|&v| f64::from_bits(v) != 0.0));
            }
        }
    }

    /// Friction rows before and after their normals, a normal capped above and a cone pair:
    /// each friction row is held to `mu` times its normal's projected force, and the pair
    /// is scaled onto its disk after its box.
    #[test]
    fn warm_start_projection_reads_projected_normals_in_any_order() {
        let lo = [-0.5, -0.5, 0.0, 0.0, -1.0];
        let hi = [0.5, 0.5, f64::INFINITY, 1.5, 1.0];
        let findex = [Some(2), Some(2), None, None, Some(3)];
        let mut scratch = PgsScratch::new();
        scratch.resize(5);
        let mut x = [4.0, -0.2, 2.0, 3.0, 2.0];
        project_warm_start(&lo, &hi, &findex, &mut x, &scratch);
        assert_eq!(x, [1.0, -0.2, 2.0, 1.5, 1.5]);

        // As a Coulomb pair, rows 0 and 1 land on the disk of radius 2 in `f / mu`.
        scratch.partner[0] = 1;
        scratch.partner[1] = 0;
        let mut x = [4.0, -0.2, 2.0, 3.0, 2.0];
        project_warm_start(&lo, &hi, &findex, &mut x, &scratch);
        let scale = 2.0 / 2.0f64.hypot(0.4);
        assert_eq!(x, [scale, -0.2 * scale, 2.0, 1.5, 1.5]);
        assert!(((x[0] / 0.5).hypot(x[1] / 0.5) - 2.0).abs() < 1e-15);

        // A negative warm normal projects to 0, and so do its friction rows.
        let mut x = [4.0, -0.2, -2.0, 3.0, 2.0];
        project_warm_start(&lo, &hi, &findex, &mut x, &scratch);
        assert_eq!(x, [0.0, 0.0, 0.0, 1.5, 1.5]);
    }
}
