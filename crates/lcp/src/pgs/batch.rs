//! The batched extension of [`RowOperator`]: contact blocks and independent rows updated
//! several at a time, and the per-lane constants a batch kernel reads. An operator that
//! does not batch implements [`BatchedRowOperator`] with no methods (`impl
//! BatchedRowOperator for MyOperator {}`), and the solver then updates row by row.

use super::RowOperator;

/// What an operator may do beyond [`RowOperator`] to let [`super::pgs_sweeps`] update a
/// contact's three rows as one block and gather independent blocks and rows into batches of
/// four (the engine's sparse operator runs them in AVX2 lanes). Every method has a default
/// that keeps the plain row-by-row sweep, with the same steps in the same order.
pub trait BatchedRowOperator: RowOperator {
    /// The couplings `[A_(i+1) i, A_(i+2) i, A_(i+2) (i+1)]` of the block of rows `i` to
    /// `i + 2` (a contact's normal and friction rows, or an unbounded triple: see
    /// [`shares_triple`](BatchedRowOperator::shares_triple)), once per solve. The default asks
    /// [`off_diagonal`](RowOperator::off_diagonal) three times; a sparse operator whose
    /// three rows share their bodies reads them once.
    fn block_couplings(&self, i: usize) -> Option<[f64; 3]> {
        Some([
            self.off_diagonal(i + 1, i)?,
            self.off_diagonal(i + 2, i)?,
            self.off_diagonal(i + 2, i + 1)?,
        ])
    }

    /// `(A x)_k` of the three rows `k = i, i + 1, i + 2` of a contact block (see
    /// [`super::pgs_sweeps`]), for the `x` last announced. The default asks
    /// [`row_times_vector`](RowOperator::row_times_vector) three times; a sparse operator
    /// whose three rows share their bodies reads those bodies once.
    #[inline(always)]
    fn block_times_vector(&self, i: usize, x: &[f64]) -> [f64; 3] {
        [
            self.row_times_vector(i, x),
            self.row_times_vector(i + 1, x),
            self.row_times_vector(i + 2, x),
        ]
    }

    /// Whether the three unbounded rows `i`, `i + 1`, `i + 2` (none a friction row) may be
    /// updated as one block, like a contact's: [`block_times_vector`] and
    /// [`block_changed`] read and write what the three rows share once (a ball joint's
    /// three rows share their two bodies). The steps are the same as row by row, in the
    /// same order. The default, `false`, keeps such rows one by one.
    ///
    /// [`block_times_vector`]: BatchedRowOperator::block_times_vector
    /// [`block_changed`]: BatchedRowOperator::block_changed
    fn shares_triple(&self, i: usize) -> bool {
        let _ = i;
        false
    }

    /// Whether [`independent_blocks`](BatchedRowOperator::independent_blocks) or
    /// [`independent_rows`](BatchedRowOperator::independent_rows) can ever say `true`. Only then
    /// does the sweep plan gather batches (which moves blocks and rows later in the sweep);
    /// otherwise every row and block keeps its place. The default is `false`.
    fn may_batch(&self) -> bool {
        false
    }

    /// Whether the contact block starting at row `i` may be batched at all (with a block
    /// [`independent_blocks`](BatchedRowOperator::independent_blocks) of it). Asked once per
    /// block and solve; a block that may not opens a batch nobody joins. The default,
    /// `true`, leaves the whole decision to `independent_blocks`.
    fn batchable_block(&self, i: usize) -> bool {
        let _ = i;
        true
    }

    /// Whether the contact blocks starting at rows `i` and `k`, both
    /// [`batchable_block`](BatchedRowOperator::batchable_block), may be updated side by side
    /// in one batch: no row of one couples with a row of the other (`A` is zero between
    /// them), so the order of their updates does not matter. Asked only of batchable
    /// blocks, so what makes a block batchable is checked once per block rather than once
    /// per pair. The default, `false`, never batches.
    fn independent_blocks(&self, i: usize, k: usize) -> bool {
        let _ = (i, k);
        false
    }

    /// Called once per solve (after the warm start's projection, before
    /// [`begin`](RowOperator::begin) and the first sweep) with the batches of four
    /// independent contact blocks (their first rows) that the sweeps will update together,
    /// and the projected warm start `x`; an operator may lay their data, and their rows'
    /// forces, out lane by lane here. The default does nothing.
    fn prepare_batches(&mut self, batches: &[[u32; 4]], x: &[f64]) {
        let _ = (batches, x);
    }

    /// Writes into `x` the forces of batched rows that the operator keeps lane by lane
    /// during the sweeps (see [`update_batches`](BatchedRowOperator::update_batches)). The solver
    /// calls it before it reads `x` after a sweep: before measuring a sweep's change against
    /// `|x|` (which every last sweep does), and when a sweep stops at a non-finite value.
    /// The default does nothing.
    fn finish_batches(&mut self, x: &mut [f64]) {
        let _ = x;
    }

    /// The whole update of the consecutive batches `batches` (indices into the batches
    /// given to [`prepare_batches`](BatchedRowOperator::prepare_batches)), one after the other,
    /// each a batch of four contact blocks: products, each block's three projected steps
    /// with its `constants` (lane `l` is block `heads[.][l]`), `x` and the operator's
    /// cache moved (or the operator's own lane-by-lane copy of those rows' forces, written
    /// back by [`finish_batches`](BatchedRowOperator::finish_batches)). An operator may do it in
    /// one piece (the engine's sparse operator does, in AVX2, one call for a run of batches
    /// instead of one per batch); the default,
    /// [`BatchUpdate::NotHandled`], has the solver update each batch's four blocks one
    /// after the other (the same, since they are independent). `heads` and `constants`
    /// are the run's entries, aligned with `batches`.
    #[inline(always)]
    fn update_batches(
        &mut self,
        batches: std::ops::Range<usize>,
        heads: &[[u32; 4]],
        constants: &[LaneConstants],
        x: &mut [f64],
    ) -> BatchUpdate {
        let _ = (batches, heads, constants, x);
        BatchUpdate::NotHandled
    }

    /// Whether the single row `i` may be batched at all, as
    /// [`batchable_block`](BatchedRowOperator::batchable_block) for blocks. The default is
    /// `true`.
    fn batchable_row(&self, i: usize) -> bool {
        let _ = i;
        true
    }

    /// Whether the single rows `i` and `k`, both
    /// [`batchable_row`](BatchedRowOperator::batchable_row), may be updated side by side in
    /// one row batch (`A_ik = 0`). The default, `false`, never batches rows.
    fn independent_rows(&self, i: usize, k: usize) -> bool {
        let _ = (i, k);
        false
    }

    /// Called once per solve, like [`prepare_batches`](BatchedRowOperator::prepare_batches), with
    /// the row batches and the projected warm start. The default does nothing.
    fn prepare_row_batches(&mut self, batches: &[[u32; 4]], x: &[f64]) {
        let _ = (batches, x);
    }

    /// The whole update of the consecutive row batches `batches` (indices into the row
    /// batches given to [`prepare_row_batches`](BatchedRowOperator::prepare_row_batches)), one
    /// after the other, each four independent rows `rows[.]` taking one projected
    /// Gauss-Seidel step with its `constants`; or [`BatchUpdate::NotHandled`] (the default)
    /// for the solver to take the rows one by one. `rows` and `constants` are the run's
    /// entries, aligned with `batches`.
    #[inline(always)]
    fn update_row_batches(
        &mut self,
        batches: std::ops::Range<usize>,
        rows: &[[u32; 4]],
        constants: &[RowLaneConstants],
        x: &mut [f64],
    ) -> BatchUpdate {
        let _ = (batches, rows, constants, x);
        BatchUpdate::NotHandled
    }

    /// Called after a contact block's update changed `x_{i+k}` by `delta[k]` (at least one
    /// non-zero), instead of one [`row_changed`](RowOperator::row_changed) per row. The
    /// default makes those calls for the non-zero changes.
    #[inline(always)]
    fn block_changed(&mut self, i: usize, delta: [f64; 3]) {
        for (k, d) in delta.into_iter().enumerate() {
            if d != 0.0 {
                self.row_changed(i + k, d);
            }
        }
    }
}

/// A row batch's fixed numbers, one per lane (see [`BatchedRowOperator::update_row_batches`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RowLaneConstants {
    /// The rows' right-hand sides `b`.
    pub b: [f64; 4],
    /// `omega / A_ii`.
    pub relaxed: [f64; 4],
    /// The rows' bounds.
    pub lo: [f64; 4],
    /// See `lo`.
    pub hi: [f64; 4],
}

/// A batch's fixed numbers, `[row][lane]` (rows: normal, first and second friction):
/// gathered once per solve so that a sweep's lane arithmetic reads arrays of four
/// (see [`BatchedRowOperator::update_batches`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LaneConstants {
    /// The rows' right-hand sides `b`.
    pub b: [[f64; 4]; 3],
    /// `omega / A_ii` of each row.
    pub relaxed: [[f64; 4]; 3],
    /// Each block's couplings `A_1n`, `A_2n`, `A_21` (indexed like the rows).
    pub couplings: [[f64; 4]; 3],
    /// The normal rows' lower bounds.
    pub lo_normal: [f64; 4],
    /// The normal rows' upper bounds, then the friction rows' coefficients `mu`.
    pub hi: [[f64; 4]; 3],
}

/// What [`BatchedRowOperator::update_batches`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BatchUpdate {
    /// The operator has no batch kernel of its own: the solver updates the members one by one.
    NotHandled,
    /// The batch moved; the largest `|delta x_i|`.
    Moved(f64),
    /// A step's candidate was not finite; nothing moved.
    NonFinite,
}
