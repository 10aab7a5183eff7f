//! AVX2 arithmetic for Gauss-Seidel's batches of four independent contact blocks
//! (`stiction_lcp::pgs`'s batches, laid out lane by lane in
//! [`crate::solver::sparse::LaneBlocks`]): [`batch`] does a whole batch's update, products
//! `J v`, the three projected steps of each lane's block and the accumulators'
//! `M^-1 J^T delta`, four blocks per instruction; [`row_batch`] the same for four
//! independent single rows (post-stabilisation's contact normals, mostly). The batches'
//! forces stay lane by lane during the sweeps (`crate::solver::sparse`'s `LaneUnits::forces`,
//! written back to the solver's `x` when it reads it): a vector load and store a row
//! instead of four scalar ones (docs/performance.md#lane-batching-in-avx2).
//!
//! Written with `std::arch`: on arrays of four the compiler vectorised the lane arithmetic
//! only in part and moved values through the stack, and the batched sweeps were slower
//! than one block at a time (docs/performance.md#lane-batching-in-avx2). One call per batch, with
//! everything inside compiled for AVX2 (closures passed to `array::map` and
//! `#[inline(always)]` helpers lose the target feature, and the intrinsics become calls).
//!
//! Only compiled for x86-64; [`crate::solver::sparse::SparseOperator`] batches blocks only after
//! detecting AVX2 at run time, which is what makes calling these functions sound.

use crate::math::{Mat3, Vec3};
use crate::rows::hot::Pair;
use crate::rows::{JacobianRow, RowStorage};
use std::arch::x86_64::{
    __m256d, _mm256_add_pd, _mm256_andnot_pd, _mm256_castpd256_pd128, _mm256_cmp_pd,
    _mm256_extractf128_pd, _mm256_loadu_pd, _mm256_max_pd, _mm256_min_pd, _mm256_movemask_pd,
    _mm256_mul_pd, _mm256_permute2f128_pd, _mm256_set1_pd, _mm256_set_m128d, _mm256_set_pd,
    _mm256_setzero_pd, _mm256_storeu_pd, _mm256_sub_pd, _mm256_unpackhi_pd, _mm256_unpacklo_pd,
    _mm256_xor_pd, _mm_add_pd, _mm_cvtsd_f64, _mm_loadu_pd, _mm_max_pd, _mm_max_sd, _mm_storeu_pd,
    _mm_unpackhi_pd, _CMP_ORD_Q, _CMP_UNORD_Q,
};
use stiction_lcp::pgs::batch::{LaneConstants, RowLaneConstants};

/// One row's linear Jacobian (A's; B's is its negative), lane-major: `[entry][lane]`.
type Linear = [[f64; 4]; 3];
/// One row's angular Jacobian or angular `M^-1 J^T`, A's then B's: `[entry][lane]`.
type Angular = [[f64; 4]; 6];

// The accumulators are read and written as six contiguous numbers (see `numbers`).
const _: () = assert!(std::mem::size_of::<Pair>() == 6 * std::mem::size_of::<f64>());

/// A body's accumulator as its six numbers (linear, then angular). `DVec3` is
/// `#[repr(C)]` with three `f64`, so a `Pair` is six contiguous `f64`.
#[inline(always)]
fn numbers(pair: &Pair) -> *const f64 {
    (pair as *const Pair).cast::<f64>()
}

/// See [`numbers`].
#[inline(always)]
fn numbers_mut(pair: &mut Pair) -> *mut f64 {
    (pair as *mut Pair).cast::<f64>()
}

/// Transposes four rows of four lanes into four columns (and back: it is its own inverse).
#[target_feature(enable = "avx2")]
#[inline]
fn transpose(r: [__m256d; 4]) -> [__m256d; 4] {
    let t0 = _mm256_unpacklo_pd(r[0], r[1]);
    let t1 = _mm256_unpackhi_pd(r[0], r[1]);
    let t2 = _mm256_unpacklo_pd(r[2], r[3]);
    let t3 = _mm256_unpackhi_pd(r[2], r[3]);
    [
        _mm256_permute2f128_pd::<0x20>(t0, t2),
        _mm256_permute2f128_pd::<0x20>(t1, t3),
        _mm256_permute2f128_pd::<0x31>(t0, t2),
        _mm256_permute2f128_pd::<0x31>(t1, t3),
    ]
}

/// The four lanes' accumulators, entry by entry: `v[c]` holds entry `c` of the twelve
/// (body A's linear and angular, then body B's) for lanes 0 to 3.
///
/// # Safety
/// Every slot of `slots` must be below `cache.len()`: the kernels check their run's
/// [`LaneRun::slot_bound`] once instead of each slot (two instructions a slot, sixteen
/// slots a batch).
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn gather(cache: &[Pair], slots: &[[u32; 4]; 2]) -> [__m256d; 12] {
    let mut groups = [[_mm256_setzero_pd(); 4]; 3];
    for l in 0..4 {
        // SAFETY: the caller checked the slots.
        let (a, b) = unsafe {
            (
                numbers(cache.get_unchecked(slots[0][l] as usize)),
                numbers(cache.get_unchecked(slots[1][l] as usize)),
            )
        };
        // SAFETY: `a` and `b` point at six f64 each (see `numbers`).
        unsafe {
            groups[0][l] = _mm256_loadu_pd(a);
            groups[1][l] = _mm256_set_m128d(_mm_loadu_pd(b.add(4)), _mm_loadu_pd(a.add(4)));
            groups[2][l] = _mm256_loadu_pd(b);
        }
    }
    let [g0, g1, g2] = [
        transpose(groups[0]),
        transpose(groups[1]),
        transpose(groups[2]),
    ];
    [
        g0[0], g0[1], g0[2], g0[3], g1[0], g1[1], g2[0], g2[1], g2[2], g2[3], g1[2], g1[3],
    ]
}

/// Adds `change` (`[__m256d; 12]`, entry by entry, lanes across) to the four lanes'
/// accumulators `cache[slots]`. The lanes' bodies are distinct except for static ones,
/// whose accumulators stay zero (their `M^-1` is, so their change is), so the order of the
/// lanes' additions does not matter. A macro, not a function: as a call (a
/// `#[target_feature]` function is not always inlined) it cost S1 4.5 %. Every slot must
/// be below `cache.len()`, as for [`gather`].
macro_rules! scatter {
    ($cache:expr, $slots:expr, $change:expr) => {{
        let (cache, slots, change): (&mut [Pair], &[[u32; 4]; 2], &[__m256d; 12]) =
            ($cache, $slots, $change);
        // Per lane: A's entries 0-3, then A's 4-5 with B's 4-5, then B's 0-3 (see
        // `gather`).
        let groups = [
            transpose([change[0], change[1], change[2], change[3]]),
            transpose([change[4], change[5], change[10], change[11]]),
            transpose([change[6], change[7], change[8], change[9]]),
        ];
        for l in 0..4 {
            // SAFETY: the kernel checked the slots (see `gather`).
            let a = numbers_mut(unsafe { cache.get_unchecked_mut(slots[0][l] as usize) });
            // SAFETY: `a` points at six f64 (see `numbers`); the B slot is borrowed after.
            unsafe {
                _mm256_storeu_pd(a, _mm256_add_pd(_mm256_loadu_pd(a), groups[0][l]));
                let low = _mm256_castpd256_pd128(groups[1][l]);
                _mm_storeu_pd(a.add(4), _mm_add_pd(_mm_loadu_pd(a.add(4)), low));
            }
            // SAFETY: as for `a`.
            let b = numbers_mut(unsafe { cache.get_unchecked_mut(slots[1][l] as usize) });
            // SAFETY: as for `a`.
            unsafe {
                _mm256_storeu_pd(b, _mm256_add_pd(_mm256_loadu_pd(b), groups[2][l]));
                let high = _mm256_extractf128_pd::<1>(groups[1][l]);
                _mm_storeu_pd(b.add(4), _mm_add_pd(_mm_loadu_pd(b.add(4)), high));
            }
        }
    }};
}

/// `J v` of one lane-major row in compact form, for each lane (no regularisation term),
/// from the accumulators `v` and A's minus B's linear accumulator `relative`:
/// `J_lin (v_a - v_b) + J_ang_a w_a + J_ang_b w_b`.
#[target_feature(enable = "avx2")]
#[inline]
fn row_product(
    v: &[__m256d; 12],
    relative: &[__m256d; 3],
    linear: &Linear,
    angular: &Angular,
) -> __m256d {
    // Two running sums: half the chain of dependent additions.
    let mut sums = [_mm256_setzero_pd(); 2];
    for c in 0..3 {
        let (j, k) = (load(&linear[c]), load(&angular[c]));
        sums[0] = _mm256_add_pd(sums[0], _mm256_mul_pd(j, relative[c]));
        sums[1] = _mm256_add_pd(sums[1], _mm256_mul_pd(k, v[3 + c]));
    }
    for c in 0..3 {
        let k = load(&angular[3 + c]);
        sums[c % 2] = _mm256_add_pd(sums[c % 2], _mm256_mul_pd(k, v[9 + c]));
    }
    _mm256_add_pd(sums[0], sums[1])
}

/// A's minus B's linear accumulators, entry by entry (what a compact row's linear
/// Jacobian multiplies).
#[target_feature(enable = "avx2")]
#[inline]
fn relative_linear(v: &[__m256d; 12]) -> [__m256d; 3] {
    [
        _mm256_sub_pd(v[0], v[6]),
        _mm256_sub_pd(v[1], v[7]),
        _mm256_sub_pd(v[2], v[8]),
    ]
}

/// The accumulators' change `M^-1 J^T delta` of `ROWS` compact rows with changes `delta`:
/// the rows' linear impulse times each body's inverse mass (B's stored negated), and the
/// angular `M^-1 J^T` times the changes.
#[target_feature(enable = "avx2")]
#[inline]
fn change<const ROWS: usize>(
    linear: &[Linear; ROWS],
    angular_imj: &[Angular; ROWS],
    inverse_mass: &[[f64; 4]; 2],
    delta: &[__m256d; ROWS],
) -> [__m256d; 12] {
    let (mass_a, mass_b) = (load(&inverse_mass[0]), load(&inverse_mass[1]));
    let mut change = [_mm256_setzero_pd(); 12];
    for c in 0..3 {
        let mut impulse = _mm256_mul_pd(load(&linear[0][c]), delta[0]);
        let mut turn_a = _mm256_mul_pd(load(&angular_imj[0][c]), delta[0]);
        let mut turn_b = _mm256_mul_pd(load(&angular_imj[0][3 + c]), delta[0]);
        for k in 1..ROWS {
            impulse = _mm256_add_pd(impulse, _mm256_mul_pd(load(&linear[k][c]), delta[k]));
            turn_a = _mm256_add_pd(turn_a, _mm256_mul_pd(load(&angular_imj[k][c]), delta[k]));
            let m = load(&angular_imj[k][3 + c]);
            turn_b = _mm256_add_pd(turn_b, _mm256_mul_pd(m, delta[k]));
        }
        change[c] = _mm256_mul_pd(impulse, mass_a);
        change[3 + c] = turn_a;
        change[6 + c] = _mm256_mul_pd(impulse, mass_b);
        change[9 + c] = turn_b;
    }
    change
}

/// Loads four contiguous f64.
#[target_feature(enable = "avx2")]
#[inline]
fn load(v: &[f64; 4]) -> __m256d {
    // SAFETY: four contiguous f64 (unaligned load).
    unsafe { _mm256_loadu_pd(v.as_ptr()) }
}

/// `column` at `rows` (one per lane), plus `offset`.
///
/// # Safety
/// Every `rows[l] + offset` must be below `column.len()`: the kernels check each unit's
/// rows against their columns once before their loops ([`units_within`]), not each number.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn gather_x(column: &[f64], rows: &[usize; 4], offset: usize) -> __m256d {
    // SAFETY: the caller checked the rows.
    unsafe {
        _mm256_set_pd(
            *column.get_unchecked(rows[3] + offset),
            *column.get_unchecked(rows[2] + offset),
            *column.get_unchecked(rows[1] + offset),
            *column.get_unchecked(rows[0] + offset),
        )
    }
}

/// Whether every unit's three rows from `first_rows` lie within `len` rows.
fn units_within(first_rows: &[[u32; 4]], len: usize) -> bool {
    first_rows.iter().flatten().all(|&h| h as usize + 3 <= len)
}

/// Stores four contiguous f64.
#[target_feature(enable = "avx2")]
#[inline]
fn store(v: &mut [f64; 4], value: __m256d) {
    // SAFETY: four contiguous f64 (unaligned store).
    unsafe { _mm256_storeu_pd(v.as_mut_ptr(), value) }
}

/// `|v|` lane by lane, and the largest lane, in registers (the lanes are finite: callers
/// check the candidates first, so the maxima need no care for NaN).
#[target_feature(enable = "avx2")]
#[inline]
fn largest_magnitude(v: __m256d) -> f64 {
    let magnitude = _mm256_andnot_pd(_mm256_set1_pd(-0.0), v);
    let halves = _mm_max_pd(
        _mm256_castpd256_pd128(magnitude),
        _mm256_extractf128_pd::<1>(magnitude),
    );
    _mm_cvtsd_f64(_mm_max_sd(halves, _mm_unpackhi_pd(halves, halves)))
}

/// Whether every lane of `v` is finite (`v - v` is 0 for finite lanes, NaN otherwise).
#[target_feature(enable = "avx2")]
#[inline]
fn all_finite(v: __m256d) -> bool {
    _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_ORD_Q>(_mm256_sub_pd(v, v), v)) == 0xF
}

/// One projected step per lane: the candidate `row + r * relaxed` and its move onto
/// `[lower, upper]` (compare-selects, as `stiction_lcp::pgs`'s projection).
#[target_feature(enable = "avx2")]
#[inline]
fn step(
    row: __m256d,
    r: __m256d,
    relaxed: __m256d,
    lower: __m256d,
    upper: __m256d,
) -> (__m256d, __m256d) {
    let candidate = _mm256_add_pd(row, _mm256_mul_pd(r, relaxed));
    let projected = _mm256_min_pd(_mm256_max_pd(candidate, lower), upper);
    (candidate, _mm256_sub_pd(projected, row))
}

// The lay-out reads rows as twelve contiguous numbers (see `twelve`).
const _: () = assert!(std::mem::size_of::<JacobianRow>() == 12 * std::mem::size_of::<f64>());
const _: () = assert!(std::mem::size_of::<[Vec3; 4]>() == 12 * std::mem::size_of::<f64>());

/// A row's Jacobian (A's linear and angular, B's linear and angular) or its `M^-1 J^T`
/// (laid out alike) as twelve contiguous numbers: `JacobianRow` is `#[repr(C)]` of four
/// `DVec3`, each `#[repr(C)]` of three `f64`.
#[inline(always)]
fn twelve<T>(row: &T) -> *const f64 {
    (row as *const T).cast::<f64>()
}

/// Four numbers of each of four rows (`rows[l] + offset`, unaligned), transposed: entry
/// `c` of the result holds number `offset + c` of the four rows. Two-number loads inserted
/// into halves leave four shuffles for the transposition instead of eight.
///
/// # Safety
/// Each `rows[l]` must point at `offset + 4` readable `f64`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load_transposed(rows: [*const f64; 4], offset: usize) -> [__m256d; 4] {
    // SAFETY: the caller's promise covers the four numbers read per row.
    let [r0, r1, r2, r3] = rows.map(|r| unsafe { r.add(offset) });
    // SAFETY: as above.
    let (low, high) = unsafe {
        (
            (
                _mm256_set_m128d(_mm_loadu_pd(r2), _mm_loadu_pd(r0)),
                _mm256_set_m128d(_mm_loadu_pd(r3), _mm_loadu_pd(r1)),
            ),
            (
                _mm256_set_m128d(_mm_loadu_pd(r2.add(2)), _mm_loadu_pd(r0.add(2))),
                _mm256_set_m128d(_mm_loadu_pd(r3.add(2)), _mm_loadu_pd(r1.add(2))),
            ),
        )
    };
    [
        _mm256_unpacklo_pd(low.0, low.1),
        _mm256_unpackhi_pd(low.0, low.1),
        _mm256_unpacklo_pd(high.0, high.1),
        _mm256_unpackhi_pd(high.0, high.1),
    ]
}

/// The Jacobian part of `crate::solver::sparse`'s lane lay-out: for batch `index` of units
/// of `ROWS` rows starting at `heads[index]`, each row's compact Jacobian (A's linear, A's
/// and B's angular) and angular `M^-1 J^T`, lane by lane, from `jacobian` and the inverse
/// inertias `inverse_inertia` (by slot of `bodies`) that the operator's `M^-1 J^T` was
/// computed with. Row by row in scalar code this was 7 % of an S1 step (sixty scalar moves
/// a row); here it is twenty loads, twenty shuffles and fifteen stores for four rows.
///
/// The angular `M^-1 J^T` is computed again here, with the operations and order of the
/// solve's terms (`turn`, as `DMat3 * DVec3`), so the same bits as the stored one, rather
/// than read back: a unit's rows share their bodies, so each lane's two matrices are
/// gathered once a unit, from arrays that stay in the first-level cache, while the stored
/// products are 96 bytes a row that S1 (7,080 rows) read from beyond the second level.
///
/// # Safety
/// The processor must support AVX2.
///
/// # Panics
/// If a unit's rows are not all in `jacobian` and `bodies`, or a unit's body slot is not in
/// `inverse_inertia` (checked once per call).
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(crate) unsafe fn lay_out_jacobians<const ROWS: usize>(
    jacobian: &[JacobianRow],
    bodies: &[[u32; 2]],
    inverse_inertia: &[Mat3],
    heads: &[[u32; 4]],
    linear: &mut [[Linear; ROWS]],
    angular: &mut [[Angular; ROWS]],
    angular_imj: &mut [[Angular; ROWS]],
) {
    let rows = jacobian.len().min(bodies.len());
    let slots = inverse_inertia.len();
    assert!(heads.iter().flatten().all(|&h| {
        let h = h as usize;
        h + ROWS <= rows && bodies[h].iter().all(|&s| (s as usize) < slots)
    }));
    // The head's two matrices serve the unit's every row: the plan batches only blocks on
    // one pair of bodies (`SparseOperator::batchable_block`).
    debug_assert!(heads.iter().flatten().all(|&h| {
        let h = h as usize;
        bodies[h..h + ROWS].iter().all(|pair| *pair == bodies[h])
    }));
    let units = heads.iter().zip(linear).zip(angular).zip(angular_imj);
    for (((batch, linear), angular), angular_imj) in units {
        // SAFETY: every head is in bounds (asserted above).
        let pair = batch.map(|h| unsafe { *bodies.get_unchecked(h as usize) });
        // SAFETY: every slot of a head's row is in `inverse_inertia` (asserted above).
        let (inertia_a, inertia_b) = unsafe {
            (
                load_matrices(inverse_inertia, pair.map(|p| p[0] as usize)),
                load_matrices(inverse_inertia, pair.map(|p| p[1] as usize)),
            )
        };
        for k in 0..ROWS {
            let row = batch.map(|h| h as usize + k);
            // SAFETY: every row is in bounds (asserted above).
            let j = row.map(|r| twelve(unsafe { jacobian.get_unchecked(r) }));
            // SAFETY: every row is in bounds (asserted above) and has twelve numbers; the
            // last loads read numbers 8 to 11.
            let (j0, j1, j2) = unsafe {
                (
                    load_transposed(j, 0),
                    load_transposed(j, 4),
                    load_transposed(j, 8),
                )
            };
            // Numbers 0-2: A's linear; 3-5: A's angular; 6-8: B's linear; 9-11: B's angular.
            let (angular_a, angular_b) = ([j0[3], j1[0], j1[1]], [j2[1], j2[2], j2[3]]);
            let (turn_a, turn_b) = (turn(&inertia_a, angular_a), turn(&inertia_b, angular_b));
            let out_linear = [j0[0], j0[1], j0[2]];
            let out_angular = [
                angular_a[0],
                angular_a[1],
                angular_a[2],
                angular_b[0],
                angular_b[1],
                angular_b[2],
            ];
            let out_imj = [
                turn_a[0], turn_a[1], turn_a[2], turn_b[0], turn_b[1], turn_b[2],
            ];
            for (lanes, v) in linear[k].iter_mut().zip(out_linear) {
                store(lanes, v);
            }
            for (lanes, v) in angular[k].iter_mut().zip(out_angular) {
                store(lanes, v);
            }
            for (lanes, v) in angular_imj[k].iter_mut().zip(out_imj) {
                store(lanes, v);
            }
        }
    }
}

/// Consecutive batches of a sweep's plan, each four independent units of `ROWS` rows on
/// two bodies (a contact block's three, or a single row) laid out lane by lane in compact
/// form (`crate::solver::sparse`), with their constants `C`, aligned. The units' forces come
/// separately, lane by lane too.
pub(crate) struct LaneRun<'a, const ROWS: usize, C> {
    pub(crate) slots: &'a [[[u32; 4]; 2]],
    /// Above every slot of `slots`: each kernel checks once that the accumulators reach
    /// it, and then reads them unchecked.
    pub(crate) slot_bound: usize,
    pub(crate) linear: &'a [[Linear; ROWS]],
    pub(crate) angular: &'a [[Angular; ROWS]],
    pub(crate) angular_imj: &'a [[Angular; ROWS]],
    pub(crate) inverse_mass: &'a [[[f64; 4]; 2]],
    pub(crate) regularization: &'a [[[f64; 4]; ROWS]],
    pub(crate) constants: &'a [C],
}

impl<const ROWS: usize, C> LaneRun<'_, ROWS, C> {
    /// The run's first `n` batches, every array cut to that length: a loop over `n`
    /// batches then indexes them without a bounds check each (seven a batch).
    #[inline(always)]
    fn cut(self, n: usize) -> Self {
        let constants = &self.constants[..n];
        Self {
            constants,
            ..self.cut_geometry(n)
        }
    }

    /// [`Self::cut`] but for the constants, which the residual and the warm start do not
    /// read (their runs have none).
    #[inline(always)]
    fn cut_geometry(self, n: usize) -> Self {
        Self {
            slots: &self.slots[..n],
            slot_bound: self.slot_bound,
            linear: &self.linear[..n],
            angular: &self.angular[..n],
            angular_imj: &self.angular_imj[..n],
            inverse_mass: &self.inverse_mass[..n],
            regularization: &self.regularization[..n],
            constants: self.constants,
        }
    }
}

/// The updates of the row batches of `run`, one after the other ([`row_batch`] each), in
/// one call (see [`batches`]). Returns the largest `|delta|`, or `None` at the first batch
/// whose candidate was not finite (that batch did not move; the ones before it did).
///
/// # Safety
/// The processor must support AVX2, and `run.slot_bound` must lie above every slot of
/// `run.slots`, as `crate::solver::sparse`'s lay-out makes it: the bound is checked
/// against the accumulators, the slots themselves are not.
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(crate) unsafe fn row_batches(
    cache: &mut [Pair],
    run: LaneRun<1, RowLaneConstants>,
    forces: &mut [[[f64; 4]; 1]],
) -> Option<f64> {
    assert!(
        run.slot_bound <= cache.len(),
        "lane slots beyond the accumulators"
    );
    let run = run.cut(forces.len());
    // Lane-wise maxima, reduced once at the end rather than per batch.
    let mut largest = _mm256_setzero_pd();
    for (k, force) in forces.iter_mut().enumerate() {
        match row_batch(cache, &run, k, &mut force[0]) {
            Some(change) => largest = _mm256_max_pd(largest, change),
            None => return None,
        }
    }
    Some(largest_magnitude(largest))
}

/// One row batch's Gauss-Seidel update: four independent single rows (one per lane), each
/// one projected step with `constants`, the lanes' forces `force` and the accumulators
/// moved. Returns each lane's `|delta|`, or `None` (nothing moved) if a candidate was not
/// finite. Inlined into [`row_batches`].
///
/// # Safety
/// The run's slots must be below `cache.len()` (see [`gather`]).
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn row_batch(
    cache: &mut [Pair],
    run: &LaneRun<1, RowLaneConstants>,
    k: usize,
    force: &mut [f64; 4],
) -> Option<__m256d> {
    let slots = &run.slots[k];
    let v = gather(cache, slots);
    let relative = relative_linear(&v);
    let now = load(force);
    let c = &run.constants[k];
    let ax = _mm256_add_pd(
        row_product(&v, &relative, &run.linear[k][0], &run.angular[k][0]),
        _mm256_mul_pd(load(&run.regularization[k][0]), now),
    );
    let r = _mm256_sub_pd(load(&c.b), ax);
    let (candidate, delta) = step(now, r, load(&c.relaxed), load(&c.lo), load(&c.hi));
    if !all_finite(candidate) {
        return None;
    }
    store(force, _mm256_add_pd(now, delta));
    let change = change(
        &run.linear[k],
        &run.angular_imj[k],
        &run.inverse_mass[k],
        &[delta],
    );
    scatter!(cache, slots, &change);
    Some(_mm256_andnot_pd(_mm256_set1_pd(-0.0), delta))
}

/// The Gauss-Seidel updates of the batches of `run`, one after the other ([`batch`] each),
/// in one call: a sweep of S1's 590 batches made 590 calls, whose argument passing and
/// spills around each call cost a fifth of the kernel's own time. Returns the largest
/// `|delta|`, or `None` at the first batch whose candidate was not finite (that batch did
/// not move; the ones before it did).
///
/// # Safety
/// The processor must support AVX2, and `run.slot_bound` must lie above every slot of
/// `run.slots`, as `crate::solver::sparse`'s lay-out makes it: the bound is checked
/// against the accumulators, the slots themselves are not.
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(crate) unsafe fn batches(
    cache: &mut [Pair],
    run: LaneRun<3, LaneConstants>,
    forces: &mut [[[f64; 4]; 3]],
) -> Option<f64> {
    assert!(
        run.slot_bound <= cache.len(),
        "lane slots beyond the accumulators"
    );
    let run = run.cut(forces.len());
    // Lane-wise maxima, reduced once at the end rather than per batch.
    let mut largest = _mm256_setzero_pd();
    for (k, force) in forces.iter_mut().enumerate() {
        // A `match`, not `?`: with `?` this loop compiled to code 2 % slower on S4.
        match batch(cache, &run, k, force) {
            Some(change) => largest = _mm256_max_pd(largest, change),
            None => return None,
        }
    }
    Some(largest_magnitude(largest))
}

/// One batch's whole Gauss-Seidel update: products, the three projected steps of each
/// lane's block (the same operations as `stiction_lcp::pgs`'s block steps, with
/// `constants`), the lanes' forces `force` and the accumulators moved. Returns each lane's
/// largest `|delta|`, or `None` (nothing moved) if a candidate was not finite. Compiled for
/// AVX2 and inlined into [`batches`].
///
/// # Safety
/// The run's slots must be below `cache.len()` (see [`gather`]).
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn batch(
    cache: &mut [Pair],
    run: &LaneRun<3, LaneConstants>,
    index: usize,
    force: &mut [[f64; 4]; 3],
) -> Option<__m256d> {
    let rows = [load(&force[0]), load(&force[1]), load(&force[2])];
    let slots = &run.slots[index];
    let v = gather(cache, slots);
    let relative = relative_linear(&v);
    let (linear, angular) = (&run.linear[index], &run.angular[index]);
    let (regularization, c) = (&run.regularization[index], &run.constants[index]);
    let mut residual = [_mm256_setzero_pd(); 3];
    for k in 0..3 {
        let own = _mm256_mul_pd(load(&regularization[k]), rows[k]);
        let ax = _mm256_add_pd(row_product(&v, &relative, &linear[k], &angular[k]), own);
        residual[k] = _mm256_sub_pd(load(&c.b[k]), ax);
    }
    let sign = _mm256_set1_pd(-0.0);
    let (c_n, d_n) = step(
        rows[0],
        residual[0],
        load(&c.relaxed[0]),
        load(&c.lo_normal),
        load(&c.hi[0]),
    );
    let normal = _mm256_add_pd(rows[0], d_n);
    let limit_1 = _mm256_andnot_pd(sign, _mm256_mul_pd(load(&c.hi[1]), normal));
    let r_1 = _mm256_sub_pd(residual[1], _mm256_mul_pd(load(&c.couplings[0]), d_n));
    let lower_1 = _mm256_xor_pd(limit_1, sign);
    let (c_1, d_1) = step(rows[1], r_1, load(&c.relaxed[1]), lower_1, limit_1);
    let limit_2 = _mm256_andnot_pd(sign, _mm256_mul_pd(load(&c.hi[2]), normal));
    let r_2 = _mm256_sub_pd(
        _mm256_sub_pd(residual[2], _mm256_mul_pd(load(&c.couplings[1]), d_n)),
        _mm256_mul_pd(load(&c.couplings[2]), d_1),
    );
    let lower_2 = _mm256_xor_pd(limit_2, sign);
    let (c_2, d_2) = step(rows[2], r_2, load(&c.relaxed[2]), lower_2, limit_2);
    if !(all_finite(c_n) && all_finite(c_1) && all_finite(c_2)) {
        return None;
    }
    let delta = [d_n, d_1, d_2];
    for k in 0..3 {
        store(&mut force[k], _mm256_add_pd(rows[k], delta[k]));
    }
    let change = change(
        linear,
        &run.angular_imj[index],
        &run.inverse_mass[index],
        &delta,
    );
    scatter!(cache, slots, &change);
    let magnitude = |d: __m256d| _mm256_andnot_pd(sign, d);
    Some(_mm256_max_pd(
        _mm256_max_pd(magnitude(d_n), magnitude(d_1)),
        magnitude(d_2),
    ))
}

/// The scaled residual terms ([`crate::solver::sparse::sparse_residual`]'s, row for row) of the
/// contact blocks batched in `run`, whose lanes' first rows are `first_rows`, at the forces
/// `x` and the accumulators `cache` (`M^-1 J^T x`): the largest distance outside the bounds
/// and the largest natural-map residual, and whether either was NaN. `lo`, `hi`, `b` are
/// the rows' bounds and right-hand sides; a friction row's bounds are `+-|hi x_n|`.
///
/// # Safety
/// The processor must support AVX2, and `run.slot_bound` must lie above every slot of
/// `run.slots`, as `crate::solver::sparse`'s lay-out makes it: the bound is checked
/// against the accumulators, the slots themselves are not.
#[target_feature(enable = "avx2")]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn block_residuals<C>(
    cache: &[Pair],
    run: LaneRun<3, C>,
    first_rows: &[[u32; 4]],
    x: &[f64],
    b: &[f64],
    lo: &[f64],
    hi: &[f64],
    (per_x, per_w): (f64, f64),
) -> (f64, f64, bool) {
    assert!(
        run.slot_bound <= cache.len(),
        "lane slots beyond the accumulators"
    );
    let (per_x, per_w) = (_mm256_set1_pd(per_x), _mm256_set1_pd(per_w));
    let sign = _mm256_set1_pd(-0.0);
    let (mut bound, mut natural) = (_mm256_setzero_pd(), _mm256_setzero_pd());
    let mut poisoned = false;
    let rows = x.len().min(b.len()).min(lo.len()).min(hi.len());
    assert!(units_within(first_rows, rows), "lane units beyond the rows");
    let run = run.cut_geometry(first_rows.len());
    for (index, heads) in first_rows.iter().enumerate() {
        let h = heads.map(|h| h as usize);
        let v = gather(cache, &run.slots[index]);
        let relative = relative_linear(&v);
        let forces = [gather_x(x, &h, 0), gather_x(x, &h, 1), gather_x(x, &h, 2)];
        for k in 0..3 {
            let row = &run.linear[index][k];
            let product = row_product(&v, &relative, row, &run.angular[index][k]);
            let own = _mm256_mul_pd(load(&run.regularization[index][k]), forces[k]);
            let w = _mm256_sub_pd(_mm256_add_pd(product, own), gather_x(b, &h, k));
            let (lower, upper) = if k == 0 {
                (gather_x(lo, &h, 0), gather_x(hi, &h, 0))
            } else {
                let limit = _mm256_andnot_pd(sign, _mm256_mul_pd(gather_x(hi, &h, k), forces[0]));
                (_mm256_xor_pd(limit, sign), limit)
            };
            let outside = _mm256_max_pd(
                _mm256_max_pd(
                    _mm256_sub_pd(lower, forces[k]),
                    _mm256_sub_pd(forces[k], upper),
                ),
                _mm256_setzero_pd(),
            );
            bound = _mm256_max_pd(bound, _mm256_mul_pd(outside, per_x));
            let xs = _mm256_mul_pd(forces[k], per_x);
            let step = _mm256_sub_pd(xs, _mm256_mul_pd(w, per_w));
            let raised = _mm256_max_pd(step, _mm256_mul_pd(lower, per_x));
            let projected = _mm256_min_pd(raised, _mm256_mul_pd(upper, per_x));
            let distance = _mm256_andnot_pd(sign, _mm256_sub_pd(xs, projected));
            poisoned |= has_nan(distance);
            natural = _mm256_max_pd(natural, distance);
        }
    }
    (
        largest_magnitude(bound),
        largest_magnitude(natural),
        poisoned,
    )
}

/// Whether a lane of `v` is NaN.
#[target_feature(enable = "avx2")]
#[inline]
fn has_nan(v: __m256d) -> bool {
    _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_UNORD_Q>(v, v)) != 0
}

/// Adds `M^-1 J^T x` of the contact blocks batched in `run` (lanes' first rows
/// `first_rows`) to the accumulators `cache`: the warm start's share of
/// [`crate::solver::sparse::SparseOperator`]'s `begin`, four blocks per instruction.
///
/// # Safety
/// The processor must support AVX2, and `run.slot_bound` must lie above every slot of
/// `run.slots`, as `crate::solver::sparse`'s lay-out makes it: the bound is checked
/// against the accumulators, the slots themselves are not.
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(crate) unsafe fn apply_forces<C>(
    cache: &mut [Pair],
    run: LaneRun<3, C>,
    first_rows: &[[u32; 4]],
    x: &[f64],
) {
    assert!(
        run.slot_bound <= cache.len(),
        "lane slots beyond the accumulators"
    );
    assert!(
        units_within(first_rows, x.len()),
        "lane units beyond the rows"
    );
    let run = run.cut_geometry(first_rows.len());
    for (index, heads) in first_rows.iter().enumerate() {
        let h = heads.map(|h| h as usize);
        let forces = [gather_x(x, &h, 0), gather_x(x, &h, 1), gather_x(x, &h, 2)];
        let change = change(
            &run.linear[index],
            &run.angular_imj[index],
            &run.inverse_mass[index],
            &forces,
        );
        scatter!(cache, &run.slots[index], &change);
    }
}

/// Two numbers of each of four rows (`rows[l] + offset`, unaligned), transposed: entry `c`
/// of the result holds number `offset + c` of the four rows.
///
/// # Safety
/// Each `rows[l]` must point at `offset + 2` readable `f64`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load_transposed_two(rows: [*const f64; 4], offset: usize) -> [__m256d; 2] {
    // SAFETY: the caller's promise covers the two numbers read per row.
    let [r0, r1, r2, r3] = rows.map(|r| unsafe { r.add(offset) });
    // SAFETY: as above.
    let (even, odd) = unsafe {
        (
            _mm256_set_m128d(_mm_loadu_pd(r2), _mm_loadu_pd(r0)),
            _mm256_set_m128d(_mm_loadu_pd(r3), _mm_loadu_pd(r1)),
        )
    };
    [_mm256_unpacklo_pd(even, odd), _mm256_unpackhi_pd(even, odd)]
}

/// `((a0 b0 + a1 b1) + a2 b2)` lane by lane: `DVec3::dot`'s operations in its order.
#[target_feature(enable = "avx2")]
#[inline]
fn dot3(a: [__m256d; 3], b: [__m256d; 3]) -> __m256d {
    let xy = _mm256_add_pd(_mm256_mul_pd(a[0], b[0]), _mm256_mul_pd(a[1], b[1]));
    _mm256_add_pd(xy, _mm256_mul_pd(a[2], b[2]))
}

/// `m v` lane by lane for the matrices `m` (nine numbers, column by column, as `DMat3`
/// stores them) in `DMat3 * DVec3`'s order: `(x_axis v.x + y_axis v.y) + z_axis v.z`.
#[target_feature(enable = "avx2")]
#[inline]
fn turn(m: &[__m256d; 9], v: [__m256d; 3]) -> [__m256d; 3] {
    let mut out = [_mm256_setzero_pd(); 3];
    for (c, out) in out.iter_mut().enumerate() {
        let xy = _mm256_add_pd(_mm256_mul_pd(m[c], v[0]), _mm256_mul_pd(m[3 + c], v[1]));
        *out = _mm256_add_pd(xy, _mm256_mul_pd(m[6 + c], v[2]));
    }
    out
}

/// `v s` lane by lane.
#[target_feature(enable = "avx2")]
#[inline]
fn scale(v: [__m256d; 3], s: __m256d) -> [__m256d; 3] {
    [
        _mm256_mul_pd(v[0], s),
        _mm256_mul_pd(v[1], s),
        _mm256_mul_pd(v[2], s),
    ]
}

// The terms read a matrix as nine contiguous numbers (a velocity pair is six: `numbers`).
const _: () = assert!(std::mem::size_of::<Mat3>() == 9 * std::mem::size_of::<f64>());

/// The nine numbers of the inverse inertias of slots `slots` (one per lane), number by
/// number.
///
/// # Safety
/// Every slot must be in `inertia`'s range.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load_matrices(inertia: &[Mat3], slots: [usize; 4]) -> [__m256d; 9] {
    // SAFETY: the caller checked the slots.
    let m = unsafe {
        [
            inertia.get_unchecked(slots[0]),
            inertia.get_unchecked(slots[1]),
            inertia.get_unchecked(slots[2]),
            inertia.get_unchecked(slots[3]),
        ]
    };
    let numbers = [
        (m[0] as *const Mat3).cast::<f64>(),
        (m[1] as *const Mat3).cast::<f64>(),
        (m[2] as *const Mat3).cast::<f64>(),
        (m[3] as *const Mat3).cast::<f64>(),
    ];
    // SAFETY: a `Mat3` is nine contiguous f64 (asserted above); the loads read numbers 0-7.
    let (low, high) = unsafe { (load_transposed(numbers, 0), load_transposed(numbers, 4)) };
    let last = _mm256_set_pd(m[3].z_axis.z, m[2].z_axis.z, m[1].z_axis.z, m[0].z_axis.z);
    [
        low[0], low[1], low[2], low[3], high[0], high[1], high[2], high[3], last,
    ]
}

/// The predicted velocities of slots `slots` (one per lane), linear then angular, entry by
/// entry.
///
/// # Safety
/// Every slot must be in `predicted`'s range.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load_velocities(predicted: &[Pair], slots: [usize; 4]) -> [[__m256d; 3]; 2] {
    // SAFETY: the caller checked the slots.
    let pairs = unsafe {
        [
            numbers(predicted.get_unchecked(slots[0])),
            numbers(predicted.get_unchecked(slots[1])),
            numbers(predicted.get_unchecked(slots[2])),
            numbers(predicted.get_unchecked(slots[3])),
        ]
    };
    // SAFETY: a pair is six f64 (see `numbers`): numbers 0-3, then 4-5.
    let (low, high) = unsafe { (load_transposed(pairs, 0), load_transposed_two(pairs, 4)) };
    [[low[0], low[1], low[2]], [low[3], high[0], high[1]]]
}

/// The inverse masses of slots `slots`, one per lane.
///
/// # Safety
/// Every slot must be in `inverse_mass`'s range.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load_masses(inverse_mass: &[f64], slots: [usize; 4]) -> __m256d {
    // SAFETY: the caller checked the slots.
    unsafe {
        _mm256_set_pd(
            *inverse_mass.get_unchecked(slots[3]),
            *inverse_mass.get_unchecked(slots[2]),
            *inverse_mass.get_unchecked(slots[1]),
            *inverse_mass.get_unchecked(slots[0]),
        )
    }
}

/// Stores numbers `offset` to `offset + 3` of four rows' `M^-1 J^T` (`rows`) from `entries`
/// (entry by entry, lanes across), transposed back to row by row.
#[target_feature(enable = "avx2")]
#[inline]
fn store_row_numbers(rows: &mut [[Vec3; 4]], offset: usize, entries: [__m256d; 4]) {
    assert!(offset + 4 <= 12);
    let numbers = transpose(entries);
    for (row, lane) in rows.iter_mut().zip(numbers) {
        let out = (row as *mut [Vec3; 4]).cast::<f64>();
        // SAFETY: `[Vec3; 4]` is twelve contiguous f64 (asserted above), and
        // `offset + 4 <= 12`.
        unsafe { _mm256_storeu_pd(out.add(offset), lane) };
    }
}

/// What [`solve_terms`] writes, per row: `M^-1 J^T`, the diagonal `J M^-1 J^T`, `b` and
/// `cfm / h`.
pub(crate) struct SolveTerms<'a> {
    pub(crate) imj: &'a mut [[Vec3; 4]],
    pub(crate) diagonal: &'a mut [f64],
    pub(crate) b: &'a mut [f64],
    pub(crate) regularization: &'a mut [f64],
}

/// The velocity solve's terms of `rows` in whole groups of four rows, four rows per
/// instruction; returns how many rows it wrote (the rest are the caller's). Lane by lane
/// the same operations in the same order as the scalar terms
/// (`crate::solver::sparse::compute_solve_terms`), so the same bits. No closures or
/// `array::map` inside: they would not be compiled for AVX2, and the intrinsics in them
/// would become calls.
///
/// Bodies by slot: inverse masses `inverse_mass`, world inverse inertias
/// `inverse_inertia`, predicted velocities `predicted`; `per_h = 1 / h`.
///
/// # Safety
/// The processor must support AVX2.
///
/// # Panics
/// If an output is shorter than `rows`, or a row's body slot is out of the bodies' range.
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(crate) unsafe fn solve_terms(
    rows: &RowStorage,
    inverse_mass: &[f64],
    inverse_inertia: &[Mat3],
    predicted: &[Pair],
    per_h: f64,
    out: SolveTerms<'_>,
) -> usize {
    let n = rows.len() / 4 * 4;
    let (imj, diagonal, b, regularization) = (
        &mut out.imj[..n],
        &mut out.diagonal[..n],
        &mut out.b[..n],
        &mut out.regularization[..n],
    );
    let (jacobian, bodies) = (&rows.jacobian[..n], &rows.bodies[..n]);
    let columns = [
        &rows.target_velocity[..n],
        &rows.erp[..n],
        &rows.error[..n],
        &rows.cfm[..n],
    ];
    // Every slot checked once, up front, rather than three times in each lane: the loads
    // below index the bodies' arrays unchecked.
    let slots = inverse_mass
        .len()
        .min(inverse_inertia.len())
        .min(predicted.len());
    let largest = bodies.iter().fold(0, |m: u32, &[a, b]| m.max(a).max(b));
    assert!(
        n == 0 || (largest as usize) < slots,
        "a row's body slot is out of range"
    );
    let per_h = _mm256_set1_pd(per_h);
    let groups = bodies.chunks_exact(4).zip(jacobian.chunks_exact(4));
    for (group, (four, jacobian)) in groups.enumerate() {
        let g = 4 * group;
        let a = [four[0][0], four[1][0], four[2][0], four[3][0]].map(|s| s as usize);
        let b_slots = [four[0][1], four[1][1], four[2][1], four[3][1]].map(|s| s as usize);
        let j = [
            twelve(&jacobian[0]),
            twelve(&jacobian[1]),
            twelve(&jacobian[2]),
            twelve(&jacobian[3]),
        ];
        // SAFETY: every row has twelve numbers; the last loads read numbers 8 to 11.
        let (j0, j1, j2) = unsafe {
            (
                load_transposed(j, 0),
                load_transposed(j, 4),
                load_transposed(j, 8),
            )
        };
        // Side A, then side B: fewer values live at once (sixteen vector registers).
        let (linear_a, angular_a) = ([j0[0], j0[1], j0[2]], [j0[3], j1[0], j1[1]]);
        // SAFETY (this and the other loads by slot): every slot is in range (asserted).
        let imj_linear_a = scale(linear_a, unsafe { load_masses(inverse_mass, a) });
        let imj_angular_a = turn(unsafe { &load_matrices(inverse_inertia, a) }, angular_a);
        let own_a = _mm256_add_pd(dot3(linear_a, imj_linear_a), dot3(angular_a, imj_angular_a));
        let [v_a, w_a] = unsafe { load_velocities(predicted, a) };
        let relative_a = _mm256_add_pd(dot3(linear_a, v_a), dot3(angular_a, w_a));
        // Entries 0-3 of every row's `M^-1 J^T` (A's linear, A's first angular), stored
        // at once: kept until the end, the twelve entries spilled to the stack.
        let rows_imj = &mut imj[g..g + 4];
        store_row_numbers(
            rows_imj,
            0,
            [
                imj_linear_a[0],
                imj_linear_a[1],
                imj_linear_a[2],
                imj_angular_a[0],
            ],
        );
        let (linear_b, angular_b) = ([j1[2], j1[3], j2[0]], [j2[1], j2[2], j2[3]]);
        let imj_linear_b = scale(linear_b, unsafe { load_masses(inverse_mass, b_slots) });
        store_row_numbers(
            rows_imj,
            4,
            [
                imj_angular_a[1],
                imj_angular_a[2],
                imj_linear_b[0],
                imj_linear_b[1],
            ],
        );
        let imj_angular_b = turn(
            unsafe { &load_matrices(inverse_inertia, b_slots) },
            angular_b,
        );
        store_row_numbers(
            rows_imj,
            8,
            [
                imj_linear_b[2],
                imj_angular_b[0],
                imj_angular_b[1],
                imj_angular_b[2],
            ],
        );
        // `((d0 + d1) + d2) + d3`: the scalar diagonal's and `JacobianRow::velocity`'s order.
        let own = _mm256_add_pd(
            _mm256_add_pd(own_a, dot3(linear_b, imj_linear_b)),
            dot3(angular_b, imj_angular_b),
        );
        let [v_b, w_b] = unsafe { load_velocities(predicted, b_slots) };
        let relative = _mm256_add_pd(
            _mm256_add_pd(relative_a, dot3(linear_b, v_b)),
            dot3(angular_b, w_b),
        );
        // SAFETY: `g + 4 <= n`, the columns' length.
        let [target, erp, error, cfm] = unsafe {
            [
                _mm256_loadu_pd(columns[0].as_ptr().add(g)),
                _mm256_loadu_pd(columns[1].as_ptr().add(g)),
                _mm256_loadu_pd(columns[2].as_ptr().add(g)),
                _mm256_loadu_pd(columns[3].as_ptr().add(g)),
            ]
        };
        // `(target - erp C / h - J u*) / h` as the scalar terms round it.
        let push = _mm256_mul_pd(_mm256_mul_pd(erp, error), per_h);
        let rhs = _mm256_mul_pd(_mm256_sub_pd(_mm256_sub_pd(target, push), relative), per_h);
        // SAFETY: `g + 4 <= n`, the outputs' length.
        unsafe {
            _mm256_storeu_pd(diagonal.as_mut_ptr().add(g), own);
            _mm256_storeu_pd(b.as_mut_ptr().add(g), rhs);
            _mm256_storeu_pd(
                regularization.as_mut_ptr().add(g),
                _mm256_mul_pd(cfm, per_h),
            );
        }
    }
    n
}
