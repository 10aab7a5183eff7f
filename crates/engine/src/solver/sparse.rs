//! The sparse form of `A = J M^-1 J^T + diag(r)` that projected Gauss-Seidel runs on
//! without forming `A` (docs/dynamics.md#solving-the-lcp, ODE's quickstep).
//!
//! Per row `i` the products `M^-1 J_i^T` for its two bodies are computed once per solve
//! ([`RowMass`]). During the sweeps each body keeps `a = M^-1 J^T x` over its rows, so
//!
//! ```text
//! (A x)_i = J_i . a(bodies of i) + r_i x_i        12 multiplies
//! x_i += delta  =>  a(body) += delta M^-1 J_i^T   12 multiplies
//! ```
//!
//! `r_i` is `cfm_i / h` for the velocity solve and a tiny regulariser for post-stabilisation.

use crate::math::{Mat3, Vec3};
use crate::rows::hot::{HotBodies, Pair};
use crate::rows::{JacobianRow, RowStorage};
use stiction_lcp::pgs::batch::{BatchUpdate, BatchedRowOperator, LaneConstants, RowLaneConstants};
use stiction_lcp::pgs::RowOperator;
use stiction_lcp::Residual;

/// `M^-1 J_i^T` of every row, as (linear A, angular A, linear B, angular B), and the
/// diagonal `J_i M^-1 J_i^T` (without regularisation).
#[derive(Debug, Clone, Default)]
pub(crate) struct RowMass {
    pub(crate) imj: Vec<[Vec3; 4]>,
    pub(crate) diagonal: Vec<f64>,
}

impl RowMass {
    /// Computes the products for every row of `rows` with per-slot inverse masses, row by
    /// row. Inlined into the projection, which runs AVX2 copies (`crate::avx2`); the
    /// velocity solve's rows take [`compute_solve_terms`], which also does them four at a
    /// time.
    #[inline(always)]
    pub(crate) fn compute(
        &mut self,
        rows: &RowStorage,
        inverse_mass: &[f64],
        inverse_inertia: &[Mat3],
    ) {
        let n = rows.len();
        self.imj.resize(n, [Vec3::ZERO; 4]);
        self.diagonal.resize(n, 0.0);
        self.compute_from(0, rows, inverse_mass, inverse_inertia);
    }

    /// [`Self::compute`] for the rows from `start` on, the arrays already sized.
    #[inline(always)]
    fn compute_from(
        &mut self,
        start: usize,
        rows: &RowStorage,
        inverse_mass: &[f64],
        inverse_inertia: &[Mat3],
    ) {
        // One pass writing both arrays over zipped slices (no capacity check per row, and
        // each Jacobian read once: S1's rows are 0.7 MB, beyond the level-2 cache).
        let outputs = self.imj[start..]
            .iter_mut()
            .zip(self.diagonal[start..].iter_mut());
        let inputs = rows.jacobian[start..].iter().zip(&rows.bodies[start..]);
        for ((j, &[a, b]), (imj, diagonal)) in inputs.zip(outputs) {
            let (a, b) = (a as usize, b as usize);
            *imj = [
                j.linear_a * inverse_mass[a],
                inverse_inertia[a] * j.angular_a,
                j.linear_b * inverse_mass[b],
                inverse_inertia[b] * j.angular_b,
            ];
            *diagonal = dot4(j, imj);
        }
    }
}

/// The velocity solve's terms of every row of `rows`: `M^-1 J^T` and the diagonal into
/// `mass`, `b = (target - erp C / h - J u*) / h` and `cfm / h` (`per_h = 1 / h`), from the
/// bodies' masses, inertias and predicted velocities `hot`. With `lanes`, where the
/// processor has AVX2 (detected here), four rows per instruction, then the rest one by
/// one, with the same bits (`crate::solver::lanes::solve_terms`;
/// docs/performance.md#the-solves-row-terms-in-avx2-lanes); else row by row. The solve
/// passes `false` only when a unit test asked for the baseline code
/// (`crate::avx2::BASELINE_ONLY`).
#[inline(always)]
pub(crate) fn compute_solve_terms(
    lanes: bool,
    rows: &RowStorage,
    hot: &HotBodies,
    per_h: f64,
    mass: &mut RowMass,
    b: &mut Vec<f64>,
    regularization: &mut Vec<f64>,
) {
    let n = rows.len();
    mass.imj.resize(n, [Vec3::ZERO; 4]);
    mass.diagonal.resize(n, 0.0);
    b.resize(n, 0.0);
    regularization.resize(n, 0.0);
    #[cfg(target_arch = "x86_64")]
    let done = if lanes && std::arch::is_x86_feature_detected!("avx2") {
        let out = crate::solver::lanes::SolveTerms {
            imj: &mut mass.imj,
            diagonal: &mut mass.diagonal,
            b,
            regularization,
        };
        // SAFETY: AVX2 was detected just above.
        unsafe {
            crate::solver::lanes::solve_terms(
                rows,
                &hot.inverse_mass,
                &hot.inverse_inertia,
                &hot.predicted,
                per_h,
                out,
            )
        }
    } else {
        0
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = {
        let _ = lanes;
        0
    };
    mass.compute_from(done, rows, &hot.inverse_mass, &hot.inverse_inertia);
    // Products with `1 / h` rather than three divisions a row (a division occupies the
    // divider for several cycles). Written over zipped slices: exact lengths, no capacity
    // check per row (S1: a third of this pass's time); a `for` loop rather than `extend`,
    // whose fold the compiler kept out of line, in its baseline copy
    // (docs/performance.md#the-step-compiled-for-avx2).
    let predicted = &hot.predicted;
    let pieces = rows.bodies[done..].iter().zip(&rows.jacobian[done..]).zip(
        rows.target_velocity[done..]
            .iter()
            .zip(&rows.erp[done..])
            .zip(&rows.error[done..]),
    );
    for (rhs, ((&[a, b_slot], jacobian), ((target, erp), error))) in
        b[done..].iter_mut().zip(pieces)
    {
        let ([va, wa], [vb, wb]) = (predicted[a as usize], predicted[b_slot as usize]);
        let relative = jacobian.velocity(va, wa, vb, wb);
        *rhs = (target - erp * error * per_h - relative) * per_h;
    }
    for (r, cfm) in regularization[done..].iter_mut().zip(&rows.cfm[done..]) {
        *r = cfm * per_h;
    }
}

/// `J_i . v` for a row and four 3-vectors laid out like the Jacobian.
#[inline(always)]
pub(crate) fn dot4(j: &JacobianRow, v: &[Vec3; 4]) -> f64 {
    j.linear_a.dot(v[0]) + j.angular_a.dot(v[1]) + j.linear_b.dot(v[2]) + j.angular_b.dot(v[3])
}

/// A row's twelve Jacobian entries in their memory order (linear A, angular A, linear B,
/// angular B), as one array the compiler can load and multiply in vector registers.
#[inline(always)]
fn flat(j: &JacobianRow) -> [f64; 12] {
    flat4(&[j.linear_a, j.angular_a, j.linear_b, j.angular_b])
}

/// Four 3-vectors as one array of twelve (see [`flat`]).
#[inline(always)]
fn flat4(v: &[Vec3; 4]) -> [f64; 12] {
    std::array::from_fn(|k| v[k / 3][k % 3])
}

/// Two bodies' accumulators as one array of twelve, laid out like a Jacobian row.
#[inline(always)]
fn twelve(a: &Pair, b: &Pair) -> [f64; 12] {
    flat4(&[a[0], a[1], b[0], b[1]])
}

/// A 12-entry dot product summed in four lanes (three lane-wise multiply-adds, then the
/// lanes): a third of the scalar instructions where the compiler vectorises it.
#[inline(always)]
fn lane_dot(j: &[f64; 12], v: &[f64; 12]) -> f64 {
    let lanes: [f64; 4] =
        std::array::from_fn(|l| j[l] * v[l] + j[l + 4] * v[l + 4] + j[l + 8] * v[l + 8]);
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
}

/// The entry `A_ik = J_i M^-1 J_k^T` from row `i`'s bodies and Jacobian and row `k`'s bodies
/// and `M^-1 J_k^T`: one 6-vector dot product per body the rows share (static bodies and the
/// ground share harmlessly: their `M^-1` is zero).
#[inline]
pub(crate) fn coupling(
    bodies_i: [u32; 2],
    jacobian_i: &JacobianRow,
    bodies_k: [u32; 2],
    imj_k: &[Vec3; 4],
) -> f64 {
    let parts = [
        (jacobian_i.linear_a, jacobian_i.angular_a),
        (jacobian_i.linear_b, jacobian_i.angular_b),
    ];
    let mut sum = 0.0;
    for (p, (linear, angular)) in parts.into_iter().enumerate() {
        for q in 0..2 {
            if bodies_i[p] == bodies_k[q] {
                sum += linear.dot(imj_k[2 * q]) + angular.dot(imj_k[2 * q + 1]);
            }
        }
    }
    sum
}

/// Adds `scale * M^-1 J_i^T` of row `i` to the accumulators of its two bodies.
#[inline(always)]
pub(crate) fn scatter(acc: &mut [Pair], bodies: [u32; 2], imj: &[Vec3; 4], scale: f64) {
    let [a, b] = bodies;
    let pa = &mut acc[a as usize];
    pa[0] += imj[0] * scale;
    pa[1] += imj[1] * scale;
    let pb = &mut acc[b as usize];
    pb[0] += imj[2] * scale;
    pb[1] += imj[3] * scale;
}

/// The [`RowOperator`] of one island's contiguous rows.
pub(crate) struct SparseOperator<'a> {
    bodies: &'a [[u32; 2]],
    jacobian: &'a [JacobianRow],
    imj: &'a [[Vec3; 4]],
    diagonal: &'a [f64],
    regularization: &'a [f64],
    island_bodies: &'a [u32],
    cache: &'a mut [Pair],
    /// Lane-by-lane copies of batched contact blocks, which slots are dynamic (only those
    /// make two blocks dependent) and each slot's inverse mass and inertia: see
    /// [`SparseOperator::with_batches`].
    batches: Option<(&'a mut LaneBlocks, &'a [bool], InverseMasses<'a>)>,
    /// Whether this operator's batches were laid out ([`RowOperator::prepare_batches`]):
    /// only then do the lanes describe its rows (they are shared between islands).
    laid_out: bool,
}

/// The per-slot inverse masses and inverse inertias an operator's `M^-1 J^T` was computed
/// with ([`RowMass::compute`]), which the lane lay-out computes it from again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InverseMasses<'a> {
    pub(crate) mass: &'a [f64],
    pub(crate) inertia: &'a [Mat3],
}

/// The rows of batches of four contact blocks, and of batches of four single rows, laid
/// out lane by lane, so that a batch's products and accumulator updates are arithmetic on
/// arrays of four. Reused between steps.
#[derive(Debug, Clone, Default)]
pub(crate) struct LaneBlocks {
    blocks: LaneUnits<3>,
    rows: LaneUnits<1>,
    /// Per row of the operator: whether a batched block starts there (the rows that
    /// `begin` and [`sparse_residual`] take lane by lane, and skip row by row).
    block_heads: Vec<bool>,
}

/// Batches of four units of `ROWS` consecutive rows on the same two bodies, lane by lane
/// (`[batch][row][entry][lane]`), in a contact row's compact form: its linear Jacobian
/// acts on A and, negated, on B (`linear_b = -linear_a`, which only such rows are batched
/// with: see [`SparseOperator::compact`]), and its linear `M^-1 J^T` is that Jacobian times
/// each body's inverse mass. 15 numbers a row instead of 24: the sweeps stream a third less
/// (S1's batches are 1.7 MB a sweep, more than the level-2 cache) and take 9 products a
/// row instead of 12.
#[derive(Debug, Clone, Default)]
struct LaneUnits<const ROWS: usize> {
    /// A's linear Jacobian.
    linear: Vec<[[[f64; 4]; 3]; ROWS]>,
    /// A's, then B's angular Jacobian.
    angular: Vec<[[[f64; 4]; 6]; ROWS]>,
    /// A's, then B's angular `M^-1 J^T` (the inverse inertia times the angular Jacobian).
    angular_imj: Vec<[[[f64; 4]; 6]; ROWS]>,
    /// A's inverse mass and B's negated, per lane.
    inverse_mass: Vec<[[f64; 4]; 2]>,
    regularization: Vec<[[f64; 4]; ROWS]>,
    /// Body slots of each lane's unit: `[A lanes, B lanes]`.
    slots: Vec<[[u32; 4]; 2]>,
    /// One more than the largest slot laid out (the kernels' `LaneRun::slot_bound`).
    slot_bound: usize,
    /// The units' forces during the sweeps, lane by lane (vector loads and stores instead
    /// of four scalar ones a row); [`Self::write_back`] returns them to `x`.
    forces: Vec<[[f64; 4]; ROWS]>,
    /// The first row of each lane's unit, per batch (where [`Self::write_back`] puts its
    /// forces).
    first_rows: Vec<[u32; 4]>,
}

impl<const ROWS: usize> LaneUnits<ROWS> {
    /// Lays out the batches whose units start at the rows `batches` of `op`, with the
    /// bodies' inverse masses and inertias `inverse` (by slot) and the rows' forces `x`.
    #[inline(always)]
    fn lay_out(
        &mut self,
        op: &SparseOperator,
        inverse: InverseMasses<'_>,
        batches: &[[u32; 4]],
        x: &[f64],
    ) {
        // Only ever grown: every lane of the first `n` batches is written below, and
        // shrinking for a small island made the next large one zero its arrays again (S2:
        // megabytes of memset a step, 1 % of its time).
        let n = batches.len();
        if self.slots.len() < n {
            self.linear.resize(n, [[[0.0; 4]; 3]; ROWS]);
            self.angular.resize(n, [[[0.0; 4]; 6]; ROWS]);
            self.angular_imj.resize(n, [[[0.0; 4]; 6]; ROWS]);
            self.inverse_mass.resize(n, [[0.0; 4]; 2]);
            self.regularization.resize(n, [[0.0; 4]; ROWS]);
            self.slots.resize(n, [[0; 4]; 2]);
            self.forces.resize(n, [[0.0; 4]; ROWS]);
        }
        self.first_rows.clear();
        self.first_rows.extend_from_slice(batches);
        // SAFETY: lanes are only laid out once AVX2 was detected (`with_batches`).
        #[cfg(target_arch = "x86_64")]
        unsafe {
            crate::solver::lanes::lay_out_jacobians(
                op.jacobian,
                op.bodies,
                inverse.inertia,
                batches,
                &mut self.linear[..n],
                &mut self.angular[..n],
                &mut self.angular_imj[..n],
            );
        }
        #[cfg(not(target_arch = "x86_64"))]
        for (index, batch) in batches.iter().enumerate() {
            self.lay_out_jacobians_by_row(op, index, batch);
        }
        let mut largest = 0;
        // Zipped and sliced once per unit: indexed, each of the six stores and four loads
        // of a lane was bounds-checked.
        let lanes = self.slots[..n]
            .iter_mut()
            .zip(&mut self.inverse_mass[..n])
            .zip(&mut self.regularization[..n])
            .zip(&mut self.forces[..n]);
        for (batch, (((slots, masses), regularization), forces)) in batches.iter().zip(lanes) {
            for (l, &h) in batch.iter().enumerate() {
                let h = h as usize;
                let [a, b] = op.bodies[h];
                largest = largest.max(a).max(b);
                slots[0][l] = a;
                slots[1][l] = b;
                masses[0][l] = inverse.mass[a as usize];
                masses[1][l] = -inverse.mass[b as usize];
                let (unit_regularization, unit_x) =
                    (&op.regularization[h..h + ROWS], &x[h..h + ROWS]);
                for k in 0..ROWS {
                    regularization[k][l] = unit_regularization[k];
                    forces[k][l] = unit_x[k];
                }
            }
        }
        self.slot_bound = if batches.is_empty() {
            0
        } else {
            largest as usize + 1
        };
    }

    /// The Jacobian part of [`Self::lay_out`] for batch `index`, number by number (what
    /// `crate::solver::lanes::lay_out_jacobians` does with AVX2).
    #[cfg(not(target_arch = "x86_64"))]
    fn lay_out_jacobians_by_row(&mut self, op: &SparseOperator, index: usize, batch: &[u32; 4]) {
        let (linear, angular, angular_imj) = (
            &mut self.linear[index],
            &mut self.angular[index],
            &mut self.angular_imj[index],
        );
        for (l, &h) in batch.iter().enumerate() {
            for k in 0..ROWS {
                let (j, m) = (&op.jacobian[h as usize + k], &op.imj[h as usize + k]);
                for c in 0..3 {
                    linear[k][c][l] = j.linear_a[c];
                    angular[k][c][l] = j.angular_a[c];
                    angular[k][c + 3][l] = j.angular_b[c];
                    angular_imj[k][c][l] = m[1][c];
                    angular_imj[k][c + 3][l] = m[3][c];
                }
            }
        }
    }

    /// Batches `batches` as one run for the AVX2 kernels, with their `constants` (aligned
    /// with `batches`), and the run's forces.
    #[cfg(target_arch = "x86_64")]
    fn run<'a, C>(
        &'a mut self,
        batches: std::ops::Range<usize>,
        constants: &'a [C],
    ) -> (
        crate::solver::lanes::LaneRun<'a, ROWS, C>,
        &'a mut [[[f64; 4]; ROWS]],
    ) {
        // Only this lay-out's batches are below `slot_bound`.
        assert!(
            batches.end <= self.first_rows.len(),
            "batches beyond the lay-out"
        );
        let run = crate::solver::lanes::LaneRun {
            slots: &self.slots[batches.clone()],
            slot_bound: self.slot_bound,
            linear: &self.linear[batches.clone()],
            angular: &self.angular[batches.clone()],
            angular_imj: &self.angular_imj[batches.clone()],
            inverse_mass: &self.inverse_mass[batches.clone()],
            regularization: &self.regularization[batches.clone()],
            constants,
        };
        (run, &mut self.forces[batches])
    }

    /// Every batch as one run (no constants), for [`sparse_residual`] and the warm start,
    /// whose kernels cut the other arrays to the batches they are given. The slots are cut
    /// here: only this lay-out's lie below `slot_bound`.
    #[cfg(target_arch = "x86_64")]
    fn all(&self) -> crate::solver::lanes::LaneRun<'_, ROWS, ()> {
        crate::solver::lanes::LaneRun {
            slots: &self.slots[..self.first_rows.len()],
            slot_bound: self.slot_bound,
            linear: &self.linear,
            angular: &self.angular,
            angular_imj: &self.angular_imj,
            inverse_mass: &self.inverse_mass,
            regularization: &self.regularization,
            constants: &[],
        }
    }

    /// Writes the units' forces back into `x` (see [`Self::forces`]).
    #[inline(always)]
    fn write_back(&self, x: &mut [f64]) {
        for (rows, forces) in self.first_rows.iter().zip(&self.forces) {
            for (l, &h) in rows.iter().enumerate() {
                let unit = &mut x[h as usize..h as usize + ROWS];
                for (k, lanes) in forces.iter().enumerate() {
                    unit[k] = lanes[l];
                }
            }
        }
    }
}

impl<'a> SparseOperator<'a> {
    /// The operator of rows `range` of `rows`, whose bodies are `island_bodies`, with
    /// per-row regularisation `regularization` (aligned with `range`), keeping `a` in
    /// `cache` (indexed by body slot; every slot outside the island must hold zero).
    pub(crate) fn new(
        rows: &'a RowStorage,
        mass: &'a RowMass,
        range: std::ops::Range<usize>,
        regularization: &'a [f64],
        island_bodies: &'a [u32],
        cache: &'a mut [Pair],
    ) -> Self {
        assert_eq!(
            regularization.len(),
            range.len(),
            "one regularisation a row"
        );
        Self {
            bodies: &rows.bodies[range.clone()],
            jacobian: &rows.jacobian[range.clone()],
            imj: &mass.imj[range.clone()],
            diagonal: &mass.diagonal[range],
            regularization,
            island_bodies,
            cache,
            batches: None,
            laid_out: false,
        }
    }

    /// Lets Gauss-Seidel batch independent contact blocks (`stiction_lcp::pgs`), laid out in
    /// `lanes`; `dynamic` (per slot) tells which shared bodies make blocks dependent (a
    /// static body's accumulator never changes, so blocks may share it), and
    /// `inverse` (per slot) must be the inverse masses and inertias the operator's
    /// `M^-1 J^T` was computed with ([`RowMass::compute`]).
    pub(crate) fn with_batches(
        mut self,
        lanes: &'a mut LaneBlocks,
        dynamic: &'a [bool],
        inverse: InverseMasses<'a>,
    ) -> Self {
        // The batches' arithmetic is AVX2 (`crate::solver::lanes`); elsewhere blocks go one by one.
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            self.batches = Some((lanes, dynamic, inverse));
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (lanes, dynamic, inverse);
        self
    }

    /// Whether the `rows` rows from `i` have the compact form of the lane layout
    /// ([`LaneUnits`]): B's linear Jacobian is A's negated (a contact's rows, a slider's).
    fn compact(&self, i: usize, rows: usize) -> bool {
        self.jacobian[i..i + rows]
            .iter()
            .all(|j| j.linear_b == -j.linear_a)
    }

    /// Whether rows `i` and `k` may be batched: batching is on and they have no dynamic
    /// body in common (a shared static body's accumulator never changes).
    fn no_dynamic_body_in_common(&self, i: usize, k: usize) -> bool {
        let Some((_, dynamic, _)) = &self.batches else {
            return false;
        };
        let (ours, theirs) = (self.bodies[i], self.bodies[k]);
        !ours
            .iter()
            .any(|&p| theirs.contains(&p) && dynamic.get(p as usize).copied().unwrap_or(true))
    }

    /// Whether the three rows from `i` share their two bodies.
    #[inline(always)]
    fn shares_bodies(&self, i: usize) -> bool {
        let bodies = self.bodies[i];
        self.bodies[i + 1] == bodies && self.bodies[i + 2] == bodies
    }

    /// The largest diagonal entry: for a positive semi-definite `A` it bounds every entry.
    pub(crate) fn max_diagonal(&self) -> f64 {
        (0..self.len()).fold(0.0, |m, i| m.max(self.diagonal(i).abs()))
    }

    /// Body `slot`'s accumulated `M^-1 J^T x` (zero for a slot outside the island).
    pub(crate) fn accumulated(&self, slot: u32) -> Pair {
        self.cache[slot as usize]
    }

    /// Resets the island's accumulators to zero (so the cache is clean for the next user).
    pub(crate) fn clear(&mut self) {
        for &s in self.island_bodies {
            self.cache[s as usize] = [Vec3::ZERO; 2];
        }
    }
}

impl RowOperator for SparseOperator<'_> {
    fn len(&self) -> usize {
        self.bodies.len()
    }

    fn diagonal(&self, i: usize) -> f64 {
        self.diagonal[i] + self.regularization[i]
    }

    // Zipped, the sums need no bounds checks and run four to a vector.
    fn fill_diagonal(&self, out: &mut [f64]) {
        // `new` made both as long as the operator.
        let sums = self.diagonal.iter().zip(self.regularization);
        for (v, (d, r)) in out.iter_mut().zip(sums) {
            *v = d + r;
        }
    }

    // Always inlined: as a call (which `#[inline]` alone gave) the sweeps ran 5 to 9 %
    // slower.
    #[inline(always)]
    fn row_times_vector(&self, i: usize, x: &[f64]) -> f64 {
        let [a, b] = self.bodies[i];
        let (pa, pb) = (&self.cache[a as usize], &self.cache[b as usize]);
        let j = &self.jacobian[i];
        j.linear_a.dot(pa[0])
            + j.angular_a.dot(pa[1])
            + j.linear_b.dot(pb[0])
            + j.angular_b.dot(pb[1])
            + self.regularization[i] * x[i]
    }

    fn off_diagonal(&self, i: usize, k: usize) -> Option<f64> {
        Some(coupling(
            self.bodies[i],
            &self.jacobian[i],
            self.bodies[k],
            &self.imj[k],
        ))
    }

    #[inline(always)]
    fn begin(&mut self, x: &[f64]) {
        self.clear();
        // The batched contact blocks lane by lane once this solve laid them out (S4: 1.6 %
        // of its step row by row); the rows they start at are skipped below.
        let mut heads: &[bool] = &[];
        #[cfg(target_arch = "x86_64")]
        if let (true, Some((lanes, _, _))) = (self.laid_out, &self.batches) {
            let units = &lanes.blocks;
            // SAFETY: `batches` is only set once AVX2 was detected (`with_batches`).
            unsafe {
                crate::solver::lanes::apply_forces(self.cache, units.all(), &units.first_rows, x)
            };
            heads = &lanes.block_heads;
        }
        let mut i = 0;
        while i < x.len() {
            if heads.get(i) == Some(&true) {
                i += 3;
                continue;
            }
            if x[i] != 0.0 {
                scatter(self.cache, self.bodies[i], &self.imj[i], x[i]);
            }
            i += 1;
        }
    }

    #[inline(always)]
    fn row_changed(&mut self, i: usize, delta: f64) {
        scatter(self.cache, self.bodies[i], &self.imj[i], delta);
    }
}

impl BatchedRowOperator for SparseOperator<'_> {
    #[inline(always)]
    fn block_couplings(&self, i: usize) -> Option<[f64; 3]> {
        let [a, b] = self.bodies[i];
        let same = a != b && self.bodies[i + 1] == [a, b] && self.bodies[i + 2] == [a, b];
        if !same {
            return Some([
                self.off_diagonal(i + 1, i)?,
                self.off_diagonal(i + 2, i)?,
                self.off_diagonal(i + 2, i + 1)?,
            ]);
        }
        // Rows on the same two bodies (every contact block): each coupling is one
        // 12-entry product, without `coupling`'s search for shared bodies.
        let (j, m) = (&self.jacobian, &self.imj);
        Some([
            lane_dot(&flat(&j[i + 1]), &flat4(&m[i])),
            lane_dot(&flat(&j[i + 2]), &flat4(&m[i])),
            lane_dot(&flat(&j[i + 2]), &flat4(&m[i + 1])),
        ])
    }

    // A contact's three rows share their bodies: their accumulators are read once, and the
    // three products are independent (the row-by-row default chains each row's load on the
    // previous row's store). Rows of different bodies take the default.
    #[inline(always)]
    fn block_times_vector(&self, i: usize, x: &[f64]) -> [f64; 3] {
        if !self.shares_bodies(i) {
            return [
                self.row_times_vector(i, x),
                self.row_times_vector(i + 1, x),
                self.row_times_vector(i + 2, x),
            ];
        }
        let [a, b] = self.bodies[i];
        let v = twelve(&self.cache[a as usize], &self.cache[b as usize]);
        let (j, r) = (&self.jacobian[i..i + 3], &self.regularization[i..i + 3]);
        let x = &x[i..i + 3];
        [
            lane_dot(&flat(&j[0]), &v) + r[0] * x[0],
            lane_dot(&flat(&j[1]), &v) + r[1] * x[1],
            lane_dot(&flat(&j[2]), &v) + r[2] * x[2],
        ]
    }

    // A ball joint's three rows share their bodies, as a contact's do.
    fn shares_triple(&self, i: usize) -> bool {
        self.shares_bodies(i)
    }

    fn may_batch(&self) -> bool {
        self.batches.is_some()
    }

    #[inline(always)]
    fn batchable_row(&self, i: usize) -> bool {
        self.compact(i, 1)
    }

    #[inline(always)]
    fn independent_rows(&self, i: usize, k: usize) -> bool {
        self.no_dynamic_body_in_common(i, k)
    }

    #[inline(always)]
    fn prepare_row_batches(&mut self, batches: &[[u32; 4]], x: &[f64]) {
        if let Some((lanes, dynamic, inverse)) = self.batches.take() {
            lanes.rows.lay_out(self, inverse, batches, x);
            self.batches = Some((lanes, dynamic, inverse));
        }
    }

    #[inline(always)]
    fn update_row_batches(
        &mut self,
        batches: std::ops::Range<usize>,
        rows: &[[u32; 4]],
        constants: &[RowLaneConstants],
        x: &mut [f64],
    ) -> BatchUpdate {
        #[cfg(target_arch = "x86_64")]
        if let Some((lanes, _, _)) = &mut self.batches {
            let (run, forces) = lanes.rows.run(batches, constants);
            // SAFETY: `batches` is only set once AVX2 was detected (`with_batches`).
            let moved = unsafe { crate::solver::lanes::row_batches(self.cache, run, forces) };
            return moved.map_or(BatchUpdate::NonFinite, BatchUpdate::Moved);
        }
        let _ = (batches, rows, constants, x);
        BatchUpdate::NotHandled
    }

    // A block's lanes hold one pair of bodies and one linear Jacobian (`compact`).
    #[inline(always)]
    fn batchable_block(&self, i: usize) -> bool {
        self.shares_bodies(i) && self.compact(i, 3)
    }

    #[inline(always)]
    fn independent_blocks(&self, i: usize, k: usize) -> bool {
        self.no_dynamic_body_in_common(i, k)
    }

    #[inline(always)]
    fn prepare_batches(&mut self, heads: &[[u32; 4]], x: &[f64]) {
        if let Some((lanes, dynamic, inverse)) = self.batches.take() {
            lanes.blocks.lay_out(self, inverse, heads, x);
            lanes.block_heads.clear();
            lanes.block_heads.resize(self.len(), false);
            for &h in heads.iter().flatten() {
                lanes.block_heads[h as usize] = true;
            }
            self.batches = Some((lanes, dynamic, inverse));
            self.laid_out = true;
        }
    }

    #[inline(always)]
    fn finish_batches(&mut self, x: &mut [f64]) {
        // Lanes laid out by another island's operator hold that island's forces.
        if let (true, Some((lanes, _, _))) = (self.laid_out, &self.batches) {
            lanes.blocks.write_back(x);
            lanes.rows.write_back(x);
        }
    }

    #[inline(always)]
    fn update_batches(
        &mut self,
        batches: std::ops::Range<usize>,
        heads: &[[u32; 4]],
        constants: &[LaneConstants],
        x: &mut [f64],
    ) -> BatchUpdate {
        #[cfg(target_arch = "x86_64")]
        if let Some((lanes, _, _)) = &mut self.batches {
            let (run, forces) = lanes.blocks.run(batches, constants);
            // SAFETY: `batches` is only set once AVX2 was detected (`with_batches`).
            let moved = unsafe { crate::solver::lanes::batches(self.cache, run, forces) };
            return moved.map_or(BatchUpdate::NonFinite, BatchUpdate::Moved);
        }
        let _ = (batches, heads, constants, x);
        BatchUpdate::NotHandled
    }

    #[inline(always)]
    fn block_changed(&mut self, i: usize, delta: [f64; 3]) {
        if !self.shares_bodies(i) {
            for (k, d) in delta.into_iter().enumerate() {
                scatter(self.cache, self.bodies[i + k], &self.imj[i + k], d);
            }
            return;
        }
        let [d_n, d_1, d_2] = delta;
        let [a, b] = self.bodies[i];
        let [m_n, m_1, m_2] = [&self.imj[i], &self.imj[i + 1], &self.imj[i + 2]];
        let [m_n, m_1, m_2] = [flat4(m_n), flat4(m_1), flat4(m_2)];
        let change: [f64; 12] = std::array::from_fn(|k| m_n[k] * d_n + m_1[k] * d_1 + m_2[k] * d_2);
        for (slot, half) in [(a, &change[..6]), (b, &change[6..])] {
            let p = &mut self.cache[slot as usize];
            p[0] += Vec3::new(half[0], half[1], half[2]);
            p[1] += Vec3::new(half[3], half[4], half[5]);
        }
    }
}

/// A [`SparseOperator`] that Gauss-Seidel sweeps row by row: it gives no off-diagonal
/// entries, so `stiction_lcp::pgs` finds no contact blocks. The blocks take the same steps
/// with different rounding; the sparse exact solver's smoothing sweeps keep the row-by-row
/// rounding its tuning was measured with (`sparse_exact::newton`).
pub(crate) struct RowByRow<'o, 'a>(pub(crate) &'o mut SparseOperator<'a>);

impl RowOperator for RowByRow<'_, '_> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn diagonal(&self, i: usize) -> f64 {
        self.0.diagonal(i)
    }

    #[inline(always)]
    fn row_times_vector(&self, i: usize, x: &[f64]) -> f64 {
        self.0.row_times_vector(i, x)
    }

    fn begin(&mut self, x: &[f64]) {
        self.0.begin(x);
    }

    #[inline(always)]
    fn row_changed(&mut self, i: usize, delta: f64) {
        self.0.row_changed(i, delta);
    }
}

impl BatchedRowOperator for RowByRow<'_, '_> {}

/// The normalised residual of `x` for the boxed LCP `(A, b, lo, hi, findex)` of `op`, with
/// the scaling of [`stiction_lcp::boxed_residual`] (`|A|_max` taken as the largest diagonal,
/// which bounds it for a positive semi-definite `A`). The slack comes from the operator's
/// cache, so the `equation` part is zero by construction.
#[inline(always)]
pub(crate) fn sparse_residual(
    op: &SparseOperator,
    b: &[f64],
    lo: &[f64],
    hi: &[f64],
    findex: &[Option<usize>],
    x: &[f64],
) -> Residual {
    let mut terms = ResidualTerms::new(op.max_diagonal(), b, lo, hi, findex, x);
    // The batched contact blocks lane by lane (S4 spent 4 % of its step here row by row);
    // the rows they start at are skipped below.
    let mut heads: &[bool] = &[];
    #[cfg(target_arch = "x86_64")]
    if let (true, Some((lanes, _, _))) = (op.laid_out, &op.batches) {
        let units = &lanes.blocks;
        if !units.first_rows.is_empty() {
            // SAFETY: `batches` is only set once AVX2 was detected (`with_batches`).
            let (bound, complementarity, nan) = unsafe {
                crate::solver::lanes::block_residuals(
                    op.cache,
                    units.all(),
                    &units.first_rows,
                    x,
                    b,
                    lo,
                    hi,
                    (terms.per_x, terms.per_w),
                )
            };
            terms.residual.bound = bound;
            terms.residual.complementarity = complementarity;
            terms.poisoned |= nan;
            heads = &lanes.block_heads;
        }
    }
    // A contact's three rows at once: their bodies' accumulators are read once (S4 spent
    // 4.6 % of its step in this function row by row).
    let n = x.len();
    let mut i = 0;
    while i < n {
        if heads.get(i) == Some(&true) {
            i += 3;
            continue;
        }
        let contact = i + 2 < n
            && findex[i].is_none()
            && findex[i + 1] == Some(i)
            && findex[i + 2] == Some(i);
        if contact {
            let products = op.block_times_vector(i, x);
            for (k, product) in products.into_iter().enumerate() {
                terms.add_row(i + k, product - b[i + k]);
            }
            i += 3;
        } else {
            terms.add_row(i, op.row_times_vector(i, x) - b[i]);
            i += 1;
        }
    }
    terms.finish()
}

/// [`sparse_residual`] from the slack `w = A x - b` the caller already has (the sparse
/// exact solver's last count of violations computed it at `x`, and a second pass of
/// products over S1's 7,000 rows was 2.5 % of its step). `max_diagonal` is the operator's
/// [`SparseOperator::max_diagonal`]. The same terms, up to the products' rounding.
pub(crate) fn slack_residual(
    max_diagonal: f64,
    b: &[f64],
    lo: &[f64],
    hi: &[f64],
    findex: &[Option<usize>],
    x: &[f64],
    w: &[f64],
) -> Residual {
    let mut terms = ResidualTerms::new(max_diagonal, b, lo, hi, findex, x);
    for (i, &w) in w.iter().enumerate().take(x.len()) {
        terms.add_row(i, w);
    }
    terms.finish()
}

/// The scales of a normalised residual and its running maxima, row by row.
struct ResidualTerms<'r> {
    lo: &'r [f64],
    hi: &'r [f64],
    findex: &'r [Option<usize>],
    x: &'r [f64],
    per_x: f64,
    per_w: f64,
    finite_scales: bool,
    poisoned: bool,
    residual: Residual,
}

impl<'r> ResidualTerms<'r> {
    /// Reads the scales: the largest force or finite bound, and the largest of `|b|` and
    /// `max_diagonal |x|`.
    #[inline(always)]
    fn new(
        max_diagonal: f64,
        b: &[f64],
        lo: &'r [f64],
        hi: &'r [f64],
        findex: &'r [Option<usize>],
        x: &'r [f64],
    ) -> Self {
        let mut poisoned = false;
        let (mut x_inf, mut x_scale) = (0.0f64, 0.0f64);
        for (i, &xi) in x.iter().enumerate() {
            let (l, h) = row_bounds(lo, hi, findex, x, i);
            x_inf = larger(x_inf, xi.abs());
            poisoned |= xi.is_nan();
            for v in [l, h] {
                if v.is_finite() {
                    x_scale = larger(x_scale, v.abs());
                }
            }
        }
        let x_scale = larger(larger(x_scale, x_inf), f64::MIN_POSITIVE);
        let b_inf = b.iter().fold(0.0f64, |m, v| larger(m, v.abs()));
        let w_scale = larger(larger(b_inf, max_diagonal * x_inf), f64::MIN_POSITIVE);
        Self {
            lo,
            hi,
            findex,
            x,
            per_x: 1.0 / x_scale,
            per_w: 1.0 / w_scale,
            finite_scales: x_inf.is_finite() && w_scale.is_finite(),
            poisoned,
            residual: Residual::default(),
        }
    }

    /// Row `i`'s terms at slack `w`.
    #[inline(always)]
    fn add_row(&mut self, i: usize, w: f64) {
        let (per_x, per_w, x) = (self.per_x, self.per_w, self.x);
        let (l, h) = row_bounds(self.lo, self.hi, self.findex, x, i);
        let outside = larger(larger(l - x[i], x[i] - h), 0.0) * per_x;
        self.residual.bound = larger(self.residual.bound, outside);
        let (xs, ws) = (x[i] * per_x, w * per_w);
        // Compare-selects rather than clamp: never panics, even on inverted bounds.
        let (lower, upper) = (l * per_x, h * per_x);
        let step = xs - ws;
        let raised = if step < lower { lower } else { step };
        let projected = if raised > upper { upper } else { raised };
        let natural = (xs - projected).abs();
        self.poisoned |= natural.is_nan();
        self.residual.complementarity = larger(self.residual.complementarity, natural);
    }

    /// The residual; infinite if a number was NaN or a scale not finite.
    fn finish(mut self) -> Residual {
        if self.poisoned || !self.finite_scales {
            self.residual.bound = f64::INFINITY;
            self.residual.complementarity = f64::INFINITY;
        }
        self.residual
    }
}

/// The bounds of row `i` for the forces `x`: `+-|hi_i x_j|` for a friction row coupled to
/// normal row `j`, else `(lo_i, hi_i)`.
#[inline(always)]
pub(crate) fn row_bounds(
    lo: &[f64],
    hi: &[f64],
    findex: &[Option<usize>],
    x: &[f64],
    i: usize,
) -> (f64, f64) {
    match findex[i] {
        Some(j) => {
            let limit = (hi[i] * x[j]).abs();
            (-limit, limit)
        }
        None => (lo[i], hi[i]),
    }
}

/// The larger of two numbers by a comparison rather than `f64::max` (whose NaN handling is
/// three instructions on the loops' dependent chains): S1 spent 4 % of its step in the
/// residual. A NaN is caught by the residual's `poisoned` instead.
#[inline(always)]
fn larger(m: f64, v: f64) -> f64 {
    if v > m {
        v
    } else {
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stiction_lcp::generate::SplitMix64;
    use stiction_lcp::pgs::{pgs_sweeps, PgsOptions, PgsScratch};

    /// Every laid-out lane's angular `M^-1 J^T` has the bits of its row's stored product.
    fn assert_laid_out_products_are_stored<const ROWS: usize>(
        units: &LaneUnits<ROWS>,
        mass: &RowMass,
    ) {
        for (heads, products) in units.first_rows.iter().zip(&units.angular_imj) {
            for (l, &h) in heads.iter().enumerate() {
                for (k, row) in products.iter().enumerate() {
                    let stored = &mass.imj[h as usize + k];
                    let laid_out: Vec<u64> = row.iter().map(|lanes| lanes[l].to_bits()).collect();
                    let expected: Vec<u64> = [stored[1], stored[3]]
                        .iter()
                        .flat_map(|v| v.to_array())
                        .map(f64::to_bits)
                        .collect();
                    assert_eq!(laid_out, expected, "row {}", h as usize + k);
                }
            }
        }
    }

    /// Twelve contact blocks on distinct dynamic bodies, half of them against one shared
    /// static body, then nine single normal rows of other bodies on that static body:
    /// every order is the same Gauss-Seidel, so batched sweeps (blocks and single rows in
    /// AVX2 lanes, where the processor has them) must give the one-at-a-time iterates, up
    /// to the products' summation order; and a scratch that keeps its sweep plan for the
    /// next numbers on the same rows must give the fresh plan's iterates to the bit.
    #[test]
    fn batched_sweeps_match_single_blocks_on_independent_contacts() {
        batched_sweeps_match_single_blocks(false);
    }

    /// A vector of entries uniform in `[-1, 1)`.
    fn random_vector(rng: &mut SplitMix64) -> Vec3 {
        Vec3::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        )
    }

    /// The velocity solve's terms in AVX2 lanes are the row-by-row terms to the bit: 23
    /// random rows (five groups of four and three left over) between dynamic bodies of
    /// unsymmetric inverse inertias, a static body and the ground, with every one of `b`'s
    /// inputs random. A product summed in another order, or a lane's row written to
    /// another row, changes bits.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn solve_terms_in_lanes_are_the_row_by_row_terms() {
        assert!(
            std::arch::is_x86_feature_detected!("avx2"),
            "this test compares the AVX2 lanes and needs a processor with AVX2"
        );
        let mut rng = SplitMix64::new(29);
        let mut vector = || random_vector(&mut rng);
        let mut hot = HotBodies::default();
        hot.reset(5);
        for slot in 0..4 {
            hot.inverse_mass[slot] = 0.3 + 0.2 * slot as f64;
            hot.inverse_inertia[slot] = Mat3::from_cols(vector(), vector(), vector());
        }
        for slot in 0..6 {
            hot.predicted[slot] = [vector(), vector()];
        }
        let mut rows = RowStorage::default();
        let mut rng = SplitMix64::new(31);
        for i in 0..23u32 {
            let a = i % 4;
            rows.bodies.push([a, (a + 1 + i % 3) % 6]);
            let mut vector = || random_vector(&mut rng);
            rows.jacobian.push(JacobianRow {
                linear_a: vector(),
                angular_a: vector(),
                linear_b: vector(),
                angular_b: vector(),
            });
            rows.target_velocity.push(rng.range(-1.0, 1.0));
            rows.erp.push(rng.range(0.0, 1.0));
            rows.error.push(rng.range(-0.01, 0.01));
            rows.cfm.push(rng.range(0.0, 1e-4));
        }
        let per_h = 1.0 / (1.0 / 60.0);
        let terms = |lanes: bool| {
            let (mut mass, mut b, mut regularization) = (RowMass::default(), vec![], vec![]);
            compute_solve_terms(
                lanes,
                &rows,
                &hot,
                per_h,
                &mut mass,
                &mut b,
                &mut regularization,
            );
            (mass, b, regularization)
        };
        let (rows_mass, rows_b, rows_regularization) = terms(false);
        let (lanes_mass, lanes_b, lanes_regularization) = terms(true);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let imj_bits = |m: &RowMass| {
            let numbers = m.imj.iter().flatten().flat_map(|v| v.to_array());
            numbers.map(f64::to_bits).collect::<Vec<_>>()
        };
        assert_eq!(rows_b.len(), 23);
        assert!(rows_b
            .iter()
            .chain(&rows_mass.diagonal)
            .all(|v| v.is_finite() && *v != 0.0));
        assert_eq!(imj_bits(&lanes_mass), imj_bits(&rows_mass));
        assert_eq!(bits(&lanes_mass.diagonal), bits(&rows_mass.diagonal));
        assert_eq!(bits(&lanes_b), bits(&rows_b));
        assert_eq!(bits(&lanes_regularization), bits(&rows_regularization));
    }

    /// A block's couplings from the shared-bodies shortcut are the entries `J_i M^-1 J_k^T`
    /// that `coupling` computes body by body (to round-off), for a block on two dynamic
    /// bodies, one against a static body, and three rows whose bodies differ (which take
    /// the general path). Body 0's inverse inertia is not symmetric, so an entry taken as
    /// `A_ki` instead of `A_ik` fails.
    #[test]
    fn block_couplings_are_the_off_diagonal_entries() {
        let mut rng = SplitMix64::new(11);
        let mut vector = || random_vector(&mut rng);
        let mut rows = RowStorage::default();
        let bodies = [
            [0, 1],
            [0, 1],
            [0, 1],
            [2, 3],
            [2, 3],
            [2, 3],
            [0, 2],
            [1, 2],
            [0, 2],
        ];
        for pair in bodies {
            rows.bodies.push(pair);
            rows.jacobian.push(JacobianRow {
                linear_a: vector(),
                angular_a: vector(),
                linear_b: vector(),
                angular_b: vector(),
            });
        }
        let inverse_mass = [0.7, 1.3, 0.4, 0.0];
        let inverse_inertia = [
            Mat3::from_cols(vector(), vector(), vector()),
            Mat3::from_diagonal(Vec3::new(1.0, 2.0, 3.0)),
            Mat3::from_diagonal(Vec3::new(0.5, 0.5, 2.0)),
            Mat3::ZERO,
        ];
        let mut mass = RowMass::default();
        mass.compute(&rows, &inverse_mass, &inverse_inertia);
        let n = bodies.len();
        let regularization = vec![0.0; n];
        let mut cache = vec![[Vec3::ZERO; 2]; 4];
        let island = [0, 1, 2];
        let op = SparseOperator::new(&rows, &mass, 0..n, &regularization, &island, &mut cache);
        for head in [0, 3, 6] {
            let entry = |i: usize, k: usize| {
                coupling(
                    rows.bodies[i],
                    &rows.jacobian[i],
                    rows.bodies[k],
                    &mass.imj[k],
                )
            };
            let expected = [
                entry(head + 1, head),
                entry(head + 2, head),
                entry(head + 2, head + 1),
            ];
            let Some(couplings) = op.block_couplings(head) else {
                panic!("block {head}: no couplings");
            };
            for (got, want) in couplings.iter().zip(expected) {
                assert!(
                    want.abs() > 1e-3,
                    "block {head}: a coupling of zero tests nothing"
                );
                assert!(
                    (got - want).abs() <= 1e-13 * want.abs().max(1.0),
                    "block {head}: {got} against {want}"
                );
            }
        }
    }

    /// The residual from a slack the caller computed equals the one the operator's
    /// products give, to their rounding, on forces that violate each kind of condition
    /// (a negative normal force, friction beyond its cone, a positive slack under a
    /// positive force); and a NaN force makes both infinite.
    #[test]
    fn the_residual_from_a_given_slack_is_the_operators() {
        let mut rng = SplitMix64::new(5);
        let mut vector = || random_vector(&mut rng);
        let mut rows = RowStorage::default();
        let (mut lo, mut hi, mut findex) = (Vec::new(), Vec::new(), Vec::new());
        for (c, pair) in [[0u32, 1u32], [1, 2], [0, 2]].into_iter().enumerate() {
            for k in 0..3 {
                rows.bodies.push(pair);
                rows.jacobian.push(JacobianRow {
                    linear_a: vector(),
                    angular_a: vector(),
                    linear_b: vector(),
                    angular_b: vector(),
                });
                lo.push(if k == 0 { 0.0 } else { -0.5 });
                hi.push(if k == 0 { f64::INFINITY } else { 0.5 });
                findex.push((k > 0).then_some(3 * c));
            }
        }
        let inverse_mass = [0.7, 1.3, 0.4];
        let inverse_inertia = [
            Mat3::from_diagonal(Vec3::new(1.0, 2.0, 3.0)),
            Mat3::from_diagonal(Vec3::new(0.5, 0.5, 2.0)),
            Mat3::from_diagonal(Vec3::new(2.0, 1.0, 1.0)),
        ];
        let mut mass = RowMass::default();
        mass.compute(&rows, &inverse_mass, &inverse_inertia);
        let n = rows.bodies.len();
        let regularization = vec![1e-3; n];
        let mut cache = vec![[Vec3::ZERO; 2]; 3];
        let island = [0, 1, 2];
        let b: Vec<f64> = (0..n).map(|i| 0.3 * i as f64 - 1.0).collect();
        let mut op = SparseOperator::new(&rows, &mass, 0..n, &regularization, &island, &mut cache);
        for x in [
            vec![2.0, 0.4, -0.3, -0.5, 0.1, 0.2, 1.0, 0.9, 0.0],
            vec![1.0, 0.1, 0.2, 0.5, 0.0, 0.0, 3.0, -1.0, 1.0],
        ] {
            op.begin(&x);
            let w: Vec<f64> = (0..n).map(|i| op.row_times_vector(i, &x) - b[i]).collect();
            let by_products = sparse_residual(&op, &b, &lo, &hi, &findex, &x);
            let from_slack = slack_residual(op.max_diagonal(), &b, &lo, &hi, &findex, &x, &w);
            assert!(
                by_products.max() > 1e-2,
                "{by_products:?}: these forces violate"
            );
            for (got, want) in [
                (from_slack.bound, by_products.bound),
                (from_slack.complementarity, by_products.complementarity),
            ] {
                assert!(
                    (got - want).abs() <= 1e-14 * want.max(1.0),
                    "{got} against {want}"
                );
            }
            op.clear();
        }
        let mut x = vec![1.0; n];
        x[4] = f64::NAN;
        let w = vec![0.0; n];
        assert_eq!(
            slack_residual(1.0, &b, &lo, &hi, &findex, &x, &w).max(),
            f64::INFINITY
        );
    }

    /// As above, but every third block and every third single row has a linear Jacobian
    /// on B that is not A's negated (not a contact's compact form): those stay out of the
    /// lanes, the others are still batched, and the iterates are the same.
    #[test]
    fn rows_without_the_compact_form_are_swept_one_by_one() {
        batched_sweeps_match_single_blocks(true);
    }

    fn batched_sweeps_match_single_blocks(skewed: bool) {
        let skew = |unit: usize| if skewed && unit % 3 == 0 { -0.5 } else { -1.0 };
        let mut rng = SplitMix64::new(7);
        let (blocks, singles) = (12, 9);
        let ground = 2 * blocks;
        let slots = ground + 1 + singles;
        let mut vector = || random_vector(&mut rng);
        let mut rows = RowStorage::default();
        let (mut lo, mut hi, mut findex) = (Vec::new(), Vec::new(), Vec::new());
        for c in 0..blocks {
            let other = if c % 2 == 0 { ground } else { blocks + c };
            for k in 0..3 {
                let direction = vector();
                rows.bodies.push([c as u32, other as u32]);
                rows.jacobian.push(JacobianRow {
                    linear_a: direction,
                    angular_a: vector(),
                    linear_b: direction * skew(c),
                    angular_b: vector(),
                });
                let head = 3 * c;
                lo.push(if k == 0 { 0.0 } else { -0.5 });
                hi.push(if k == 0 { f64::INFINITY } else { 0.5 });
                findex.push((k > 0).then_some(head));
            }
        }
        for single in 0..singles {
            let direction = vector();
            rows.bodies
                .push([(ground + 1 + single) as u32, ground as u32]);
            rows.jacobian.push(JacobianRow {
                linear_a: direction,
                angular_a: vector(),
                linear_b: direction * skew(single),
                angular_b: vector(),
            });
            lo.push(0.0);
            hi.push(f64::INFINITY);
            findex.push(None);
        }
        let inverse_mass: Vec<f64> = (0..slots)
            .map(|s| {
                if s == ground {
                    0.0
                } else {
                    0.5 + (s % 5) as f64 * 0.3
                }
            })
            .collect();
        let inverse_inertia: Vec<Mat3> = (0..slots)
            .map(|s| {
                let w = if s == ground {
                    0.0
                } else {
                    1.0 + (s % 3) as f64
                };
                Mat3::from_diagonal(Vec3::new(w, 2.0 * w, 0.5 * w))
            })
            .collect();
        let dynamic: Vec<bool> = (0..slots).map(|s| s != ground).collect();
        let mut mass = RowMass::default();
        mass.compute(&rows, &inverse_mass, &inverse_inertia);
        let n = 3 * blocks + singles;
        let b: Vec<f64> = (0..n)
            .map(|i| ((i * 7919) % 13) as f64 / 6.0 - 1.0)
            .collect();
        let regularization = vec![1e-3; n];
        let island: Vec<u32> = (0..slots as u32)
            .filter(|&s| s as usize != ground)
            .collect();
        let options = PgsOptions {
            max_iterations: 6,
            tolerance: 0.0,
            ..PgsOptions::default()
        };
        let solve_with = |mass: &RowMass,
                          inverse_mass: &[f64],
                          b: &[f64],
                          batched: bool,
                          scratch: &mut PgsScratch| {
            let mut cache = vec![[Vec3::ZERO; 2]; slots];
            let mut lanes = LaneBlocks::default();
            let mut op =
                SparseOperator::new(&rows, mass, 0..n, &regularization, &island, &mut cache);
            if batched {
                let inverse = InverseMasses {
                    mass: inverse_mass,
                    inertia: &inverse_inertia,
                };
                op = op.with_batches(&mut lanes, &dynamic, inverse);
            }
            let mut x = vec![0.0; n];
            pgs_sweeps(&mut op, b, &lo, &hi, &findex, &mut x, &options, scratch).unwrap();
            // The residual of the batched blocks lane by lane is the row-by-row one, and so
            // are the accumulators of a warm start (`begin`) from these forces.
            let residual = sparse_residual(&op, b, &lo, &hi, &findex, &x);
            op.begin(&x);
            let lane_cache = op.cache.to_vec();
            op.batches = None;
            let by_rows = sparse_residual(&op, b, &lo, &hi, &findex, &x);
            op.begin(&x);
            let scale = x.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            for (lane, row) in lane_cache.iter().zip(op.cache.iter()) {
                for (u, v) in lane.iter().zip(row) {
                    assert!(
                        (*u - *v).abs().max_element() <= 1e-12 * scale,
                        "{u} against {v}"
                    );
                }
            }
            assert!(
                by_rows.complementarity > 1e-6,
                "unconverged sweeps have a residual"
            );
            for (lane, row) in [
                (residual.complementarity, by_rows.complementarity),
                (residual.bound, by_rows.bound),
            ] {
                assert!(
                    (lane - row).abs() <= 1e-12 * row.max(1.0),
                    "{lane} against {row}"
                );
            }
            (x, lanes)
        };
        let solve = |batched| {
            let scratch = &mut PgsScratch::new();
            solve_with(&mass, &inverse_mass, &b, batched, scratch)
        };
        let ((batched, lanes), (single, _)) = (solve(true), solve(false));
        // The lanes hold exactly this solve's batches (they only grow, from empty).
        let first_bodies = |slots: &[[[u32; 4]; 2]]| -> Vec<usize> {
            slots
                .iter()
                .flat_map(|s| s[0])
                .map(|s| s as usize)
                .collect()
        };
        let (in_blocks, in_rows) = (
            first_bodies(&lanes.blocks.slots),
            first_bodies(&lanes.rows.slots),
        );
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            assert!(in_blocks.len() >= 4 && in_rows.len() >= 4);
        }
        // The lay-out computes the angular `M^-1 J^T` again rather than reading it: the
        // same bits as the stored products, lane by lane.
        assert_laid_out_products_are_stored(&lanes.blocks, &mass);
        assert_laid_out_products_are_stored(&lanes.rows, &mass);
        assert!(in_blocks.iter().all(|&c| skew(c) == -1.0));
        assert!(in_rows.iter().all(|&s| skew(s - ground - 1) == -1.0));
        let scale = single.iter().fold(1e-300f64, |m, v| m.max(v.abs()));
        assert!(single.iter().filter(|v| **v != 0.0).count() > blocks);
        for (i, (u, v)) in batched.iter().zip(&single).enumerate() {
            assert!(
                (u - v).abs() <= 1e-12 * scale,
                "row {i}: batched {u} against single {v}"
            );
        }

        // The next step's numbers on the same structure (other masses, so other couplings
        // and lanes; another right-hand side): a scratch that keeps its sweep plan gives
        // the fresh solve to the bit.
        let heavier: Vec<f64> = inverse_mass.iter().map(|w| 0.7 * w).collect();
        let mut next = RowMass::default();
        next.compute(&rows, &heavier, &inverse_inertia);
        let next_b: Vec<f64> = b.iter().map(|v| 0.8 * v + 0.1).collect();
        let mut kept = PgsScratch::new();
        solve_with(&mass, &inverse_mass, &b, true, &mut kept);
        kept.assume_same_structure();
        let (reused, _) = solve_with(&next, &heavier, &next_b, true, &mut kept);
        let fresh = &mut PgsScratch::new();
        let (planned, _) = solve_with(&next, &heavier, &next_b, true, fresh);
        assert_eq!(reused, planned);
        assert_ne!(reused, batched);
    }
}
