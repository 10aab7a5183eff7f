//! The body-space form of one island's clamped rows.
//!
//! With `W = M^-1`, `A = J W J^T + R`, `R = diag(r) > 0`, a set `F` of clamped rows
//! (`w_F = 0`) and the other rows' forces fixed, the correction `dx_F` that removes a
//! residual `res_F = b_F - (A x)_F` solves `A_FF dx_F = res_F`. With `du = W J_F^T dx_F`:
//!
//! ```text
//! (M + J_F^T R_F^-1 J_F) du = J_F^T R_F^-1 res_F,     dx_F = R_F^-1 (res_F - J_F du)
//! ```
//!
//! `H = M + J_F^T R_F^-1 J_F` has one 6 x 6 block per dynamic body of the island and one
//! off-diagonal block per pair of bodies sharing a row: its size is six times the bodies,
//! not the rows (a 210-box pyramid: 1260 against 7080). Static bodies, the ground and
//! sleepers have no coordinates: their side of a row drops out.

use super::block::{add_outer, Block, Six};
use super::cholesky::BlockCholesky;
use super::lu::BlockLu;
use super::ordering::{Elimination, OrderRule};
use crate::math::Mat3;
use crate::rows::{JacobianRow, RowStorage};
use std::ops::Range;

const NONE: u32 = u32::MAX;

/// Where one row's contributions go in the block matrix.
#[derive(Debug, Clone, Copy)]
struct RowBlocks {
    /// Block position of each side's body, or `NONE` for a body without coordinates.
    side: [u32; 2],
    /// Index of the off-diagonal block between the two sides, if both have coordinates.
    off: u32,
}

/// Where one block of a row's outer product lands in the block matrix.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// The diagonal block of this position.
    Diagonal(usize),
    /// The off-diagonal block of this pattern index below the diagonal, `(max, min)`.
    Below(usize),
    /// Its mirror above the diagonal, `(min, max)`.
    Above(usize),
}

impl RowBlocks {
    /// Calls `add(place, left, right)` for every block of the row's outer product
    /// `a^T b`, with the sides whose parts of `a` and `b` go there, always in the same
    /// order: both diagonal blocks, then the cross terms when both sides are one body, or
    /// else the off-diagonal block and its mirror.
    #[inline(always)]
    fn place(self, mut add: impl FnMut(Place, usize, usize)) {
        for (s, &p) in self.side.iter().enumerate() {
            if p != NONE {
                add(Place::Diagonal(p as usize), s, s);
            }
        }
        let [p, q] = self.side;
        if p == NONE || q == NONE {
            return;
        }
        if p == q {
            // Both sides on one body: the cross terms land on its diagonal block.
            add(Place::Diagonal(p as usize), 0, 1);
            add(Place::Diagonal(p as usize), 1, 0);
        } else if self.off != NONE {
            // Block (max, min) takes the larger position's side on the left.
            let (below, above) = if p > q { (0, 1) } else { (1, 0) };
            add(Place::Below(self.off as usize), below, above);
            add(Place::Above(self.off as usize), above, below);
        }
    }
}

/// Adds `sum_i (res_i / r_i) a_i` over the clamped rows into `rhs` (per block position),
/// `a_i` the rows `jacobian` (each row's `J_i`), or for the coupled equations `J~_i`: the
/// rows of `carried` where `carried_at[i]` points (non-empty).
fn load_rhs(
    rhs: &mut [Six],
    blocks: &[RowBlocks],
    jacobian: &[JacobianRow],
    (carried_at, carried): (&[u32], &[JacobianRow]),
    clamped: &[bool],
    r: &[f64],
    res: &[f64],
) {
    rhs.fill([0.0; 6]);
    for (i, mut j) in jacobian.iter().enumerate() {
        if !clamped[i] || res[i] == 0.0 {
            continue;
        }
        if let Some(&at) = carried_at.get(i).filter(|&&at| at != NONE) {
            j = &carried[at as usize];
        }
        let scale = res[i] / r[i];
        for s in 0..2 {
            let p = blocks[i].side[s];
            if p != NONE {
                let part = side_jacobian(j, s);
                let target = &mut rhs[p as usize];
                for k in 0..6 {
                    target[k] += scale * part[k];
                }
            }
        }
    }
}

/// Adds `J_i^T J_i / r_i` of the rows `i` with `take(i)` into the diagonal blocks and
/// those below the diagonal (`below`, the pattern's order); the blocks above are left to
/// the caller (a symmetric factor stores none, the LU mirrors them).
#[inline(always)]
fn add_symmetric_rows(
    diagonal: &mut [Block],
    below: &mut [Block],
    blocks: &[RowBlocks],
    jacobian: &[JacobianRow],
    r: &[f64],
    take: impl Fn(usize) -> bool,
) {
    for (i, j) in jacobian.iter().enumerate() {
        if !take(i) {
            continue;
        }
        let weight = 1.0 / r[i];
        let parts = [side_jacobian(j, 0), side_jacobian(j, 1)];
        // Inlined: called, the assembly was 5 % of a resting S1 step and ran without AVX2
        // (a closure does not take its function's target features).
        blocks[i].place(
            #[inline(always)]
            |place, left, right| {
                let block = match place {
                    Place::Diagonal(p) => &mut diagonal[p],
                    Place::Below(at) => &mut below[at],
                    Place::Above(_) => return,
                };
                add_outer(block, weight, &parts[left], &parts[right]);
            },
        );
    }
}

/// The island's body graph, its ordering, the factor, and per-row block positions. Reused
/// between steps: once warmed up nothing here allocates unless the island grows.
#[derive(Debug, Clone, Default)]
pub(crate) struct BodySystem {
    /// Per body slot: its index in the island, `NONE` outside (kept all `NONE` between
    /// calls).
    local: Vec<u32>,
    edges: Vec<(u32, u32)>,
    /// The body count and `edges` that `elimination` and the factor's pattern were last
    /// computed from: an island whose bodies are coupled as before (a resting stack, step
    /// after step) keeps them.
    ordered: Option<(usize, Vec<(u32, u32)>)>,
    elimination: Elimination,
    factor: BlockCholesky,
    /// The factor of the coupled matrix ([`Self::factor_coupled`]), on the same pattern.
    coupled: BlockLu,
    /// The rows that friction rows follow (`J~_i != J_i`): `J~_i`, their Jacobian plus
    /// those of the friction rows. Only they are kept: copying every row cost a resting
    /// S1 step 1.5 %.
    carried: Vec<JacobianRow>,
    /// Per row: its index in `carried`, or `NONE` (`J~_i = J_i`).
    carried_at: Vec<u32>,
    /// `M` per block position.
    mass: Vec<Block>,
    rows: Vec<RowBlocks>,
    /// Right-hand side, then solution, per block position.
    rhs: Vec<Six>,
}

/// A row's Jacobian on its side `s` as one 6-vector `(linear, angular)`.
#[inline]
fn side_jacobian(j: &JacobianRow, s: usize) -> Six {
    let (l, a) = if s == 0 {
        (j.linear_a, j.angular_a)
    } else {
        (j.linear_b, j.angular_b)
    };
    [l.x, l.y, l.z, a.x, a.y, a.z]
}

#[inline]
fn dot6(a: &Six, b: &Six) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5]
}

impl BodySystem {
    /// Orders the bodies `island_bodies` (slots; `inverse_mass`/`inverse_inertia` indexed
    /// by slot) connected by rows `range` of `rows`, sets up the factor's pattern (for every
    /// row, so any clamped set fits it) and each row's block positions.
    pub(crate) fn prepare(
        &mut self,
        rows: &RowStorage,
        range: Range<usize>,
        island_bodies: &[u32],
        inverse_mass: &[f64],
        inverse_inertia: &[Mat3],
    ) {
        if self.local.len() < inverse_mass.len() {
            self.local.resize(inverse_mass.len(), NONE);
        }
        for (k, &slot) in island_bodies.iter().enumerate() {
            self.local[slot as usize] = k as u32;
        }
        self.edges.clear();
        for &[a, b] in &rows.bodies[range.clone()] {
            let (la, lb) = (self.local[a as usize], self.local[b as usize]);
            if la != NONE && lb != NONE && la != lb {
                self.edges.push((la, lb));
            }
        }
        let n = island_bodies.len();
        // The ordering and pattern depend on nothing else (the values are refilled by
        // every factorisation), so an island coupled as before keeps them
        // (docs/performance.md#sparse-exact-active-set-solver).
        let known = self
            .ordered
            .as_ref()
            .is_some_and(|(bodies, edges)| *bodies == n && *edges == self.edges);
        if !known {
            self.elimination
                .compute(n, &self.edges, OrderRule::MinimumDegree);
            self.factor.set_pattern(&self.elimination);
            self.coupled.set_pattern(&self.elimination);
            let (bodies, edges) = self.ordered.get_or_insert_with(Default::default);
            *bodies = n;
            edges.clone_from(&self.edges);
        }
        self.mass.clear();
        self.mass.resize(n, [0.0; 36]);
        for (k, &slot) in island_bodies.iter().enumerate() {
            let block = &mut self.mass[self.elimination.position[k] as usize];
            let m = 1.0 / inverse_mass[slot as usize];
            let inertia = inverse_inertia[slot as usize].inverse();
            for i in 0..3 {
                block[i * 6 + i] = m;
                for j in 0..3 {
                    // Mat3 is column-major: col(j)[i] is entry (i, j).
                    block[(3 + i) * 6 + 3 + j] = inertia.col(j)[i];
                }
            }
        }
        self.rows.clear();
        for &[a, b] in &rows.bodies[range] {
            let side = [a, b].map(|slot| match self.local[slot as usize] {
                NONE => NONE,
                k => self.elimination.position[k as usize],
            });
            let off = match side {
                [p, q] if p != NONE && q != NONE && p != q => self
                    .elimination
                    .pattern
                    .find(p.max(q), p.min(q))
                    .map_or(NONE, |at| at as u32),
                _ => NONE,
            };
            self.rows.push(RowBlocks { side, off });
        }
        for &slot in island_bodies {
            self.local[slot as usize] = NONE;
        }
        self.rhs.clear();
        self.rhs.resize(n, [0.0; 6]);
    }

    /// Assembles and factors `H = M + J_F^T R_F^-1 J_F` for the rows with `clamped[i]`
    /// (island rows `range` of `rows`, `r[i]` > 0 their regularisation). `false`: `H` was
    /// not numerically positive definite.
    pub(crate) fn factor(
        &mut self,
        rows: &RowStorage,
        range: Range<usize>,
        clamped: &[bool],
        r: &[f64],
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        if super::block::avx2_fma() {
            // SAFETY: AVX2 and FMA were detected just now.
            unsafe { self.assemble_avx2(rows, range, clamped, r) };
            return self.factor.factor().is_ok();
        }
        self.assemble(rows, range, clamped, r);
        self.factor.factor().is_ok()
    }

    /// [`Self::assemble`] compiled for AVX2 and FMA (as [`Self::assemble_coupled_avx2`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn assemble_avx2(
        &mut self,
        rows: &RowStorage,
        range: Range<usize>,
        clamped: &[bool],
        r: &[f64],
    ) {
        self.assemble(rows, range, clamped, r)
    }

    /// `H` of [`Self::factor`], unfactored.
    #[inline(always)]
    fn assemble(&mut self, rows: &RowStorage, range: Range<usize>, clamped: &[bool], r: &[f64]) {
        self.factor.start_from(&self.mass);
        let factor = &mut self.factor;
        let jacobian = &rows.jacobian[range];
        // Symmetric: only the blocks on and below the diagonal are stored.
        let (diagonal, below) = (&mut factor.diagonal, &mut factor.off);
        add_symmetric_rows(diagonal, below, &self.rows, jacobian, r, |i| clamped[i]);
    }

    /// Assembles and factors the coupled matrix `H~ = M + J~_F^T R_F^-1 J_F` of the clamped
    /// rows when each friction row `t` at a bound moves with its clamped normal row
    /// `n = findex[t]` by `dx_t = coupling[t] dx_n` (`coupling` zero elsewhere): `J~_n` is
    /// `J_n` plus `coupling[t] J_t` of those rows, the directions in which the normal
    /// force acts. `false`: a pivot block was singular.
    pub(crate) fn factor_coupled(
        &mut self,
        rows: &RowStorage,
        range: Range<usize>,
        clamped: &[bool],
        r: &[f64],
        coupling: &[f64],
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        if super::block::avx2_fma() {
            // SAFETY: AVX2 and FMA were detected just now.
            unsafe { self.assemble_coupled_avx2(rows, range, clamped, r, coupling) };
            return self.coupled.factor().is_ok();
        }
        self.assemble_coupled(rows, range, clamped, r, coupling);
        self.coupled.factor().is_ok()
    }

    /// [`Self::assemble_coupled`] compiled for AVX2 and FMA (the outer products four
    /// entries at a time, fused as on every processor: see [`super::block`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn assemble_coupled_avx2(
        &mut self,
        rows: &RowStorage,
        range: Range<usize>,
        clamped: &[bool],
        r: &[f64],
        coupling: &[f64],
    ) {
        self.assemble_coupled(rows, range, clamped, r, coupling)
    }

    /// `J~` and the coupled matrix of [`Self::factor_coupled`], unfactored.
    #[inline(always)]
    fn assemble_coupled(
        &mut self,
        rows: &RowStorage,
        range: Range<usize>,
        clamped: &[bool],
        r: &[f64],
        coupling: &[f64],
    ) {
        let jacobian = &rows.jacobian[range.clone()];
        let findex = &rows.findex[range];
        self.carried.clear();
        self.carried_at.clear();
        self.carried_at.resize(jacobian.len(), NONE);
        for (t, (&c, j)) in coupling.iter().zip(jacobian).enumerate() {
            if let (true, Some(n)) = (c != 0.0, findex[t]) {
                if self.carried_at[n] == NONE {
                    self.carried_at[n] = self.carried.len() as u32;
                    self.carried.push(jacobian[n]);
                }
                let carried = &mut self.carried[self.carried_at[n] as usize];
                carried.linear_a += c * j.linear_a;
                carried.angular_a += c * j.angular_a;
                carried.linear_b += c * j.linear_b;
                carried.angular_b += c * j.angular_b;
            }
        }
        let lu = &mut self.coupled;
        lu.start_from(&self.mass);
        // Most rows carry no friction (`J~_i = J_i`): their outer products are symmetric,
        // so their blocks above the diagonal are the mirror images of those below, written
        // once at the end rather than summed row by row (a quarter of the products).
        let carried_at = &self.carried_at;
        let symmetric = |i: usize| clamped[i] && carried_at[i] == NONE;
        add_symmetric_rows(
            &mut lu.diagonal,
            &mut lu.lower,
            &self.rows,
            jacobian,
            r,
            symmetric,
        );
        lu.mirror_lower();
        for (i, j) in jacobian.iter().enumerate() {
            let at = self.carried_at[i];
            if !clamped[i] || at == NONE {
                continue;
            }
            let carried = &self.carried[at as usize];
            let weight = 1.0 / r[i];
            let a = [side_jacobian(carried, 0), side_jacobian(carried, 1)];
            let b = [side_jacobian(j, 0), side_jacobian(j, 1)];
            // Inlined: called, it was 5 % of a resting S1 step and ran without AVX2 (a
            // closure does not take its function's target features).
            self.rows[i].place(
                #[inline(always)]
                |place, left, right| {
                    let block = match place {
                        Place::Diagonal(p) => &mut lu.diagonal[p],
                        Place::Below(at) => &mut lu.lower[at],
                        Place::Above(at) => &mut lu.upper[at],
                    };
                    add_outer(block, weight, &a[left], &b[right]);
                },
            );
        }
    }

    /// [`Self::correct`] with the coupled factor of [`Self::factor_coupled`] (same `r`):
    /// the correction `dx` of the clamped rows for which `A_FF dx + A_FB S dx = res`,
    /// `S` the friction rows' slopes.
    pub(crate) fn correct_coupled(
        &mut self,
        rows: &RowStorage,
        range: Range<usize>,
        clamped: &[bool],
        r: &[f64],
        res: &[f64],
        dx: &mut [f64],
    ) {
        let jacobian = &rows.jacobian[range.clone()];
        let carried = (&self.carried_at[..], &self.carried[..]);
        load_rhs(
            &mut self.rhs,
            &self.rows,
            jacobian,
            carried,
            clamped,
            r,
            res,
        );
        self.coupled.solve(&mut self.rhs);
        self.moved(rows, range, clamped, r, res, dx);
    }

    /// The correction `dx` (written into `dx`, zero off the clamped set) for the residual
    /// `res` (zero off the clamped set), with the last factorisation.
    pub(crate) fn correct(
        &mut self,
        rows: &RowStorage,
        range: Range<usize>,
        clamped: &[bool],
        r: &[f64],
        res: &[f64],
        dx: &mut [f64],
    ) {
        let jacobian = &rows.jacobian[range.clone()];
        load_rhs(
            &mut self.rhs,
            &self.rows,
            jacobian,
            (&[], &[]),
            clamped,
            r,
            res,
        );
        self.factor.solve(&mut self.rhs);
        self.moved(rows, range, clamped, r, res, dx);
    }

    /// `dx = R^-1 (res - J du)` on the clamped rows (zero elsewhere) for the solved body
    /// velocities `du` in `rhs`.
    fn moved(
        &self,
        rows: &RowStorage,
        range: Range<usize>,
        clamped: &[bool],
        r: &[f64],
        res: &[f64],
        dx: &mut [f64],
    ) {
        for (i, j) in rows.jacobian[range].iter().enumerate() {
            if !clamped[i] {
                dx[i] = 0.0;
                continue;
            }
            let mut moved = 0.0;
            for s in 0..2 {
                let p = self.rows[i].side[s];
                if p != NONE {
                    moved += dot6(&side_jacobian(j, s), &self.rhs[p as usize]);
                }
            }
            dx[i] = (res[i] - moved) / r[i];
        }
    }
}

/// Also the fixtures of the sparse exact solver's own tests.
#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::math::Vec3;
    use crate::rows::{Pose, Row, Softness};
    use crate::solver::sparse_exact::SparseIsland;

    /// One row per body pair, with Jacobians that differ from row to row.
    pub(in crate::solver::sparse_exact) fn rows_on(pairs: &[[u32; 2]]) -> RowStorage {
        let mut rows = RowStorage::default();
        for (i, &pair) in pairs.iter().enumerate() {
            let k = i as f64 + 1.0;
            let jacobian = JacobianRow {
                linear_a: Vec3::new(1.0, 0.5 * k, -0.25),
                angular_a: Vec3::new(0.1 * k, 0.2, 0.3),
                linear_b: Vec3::new(-1.0, 0.25, 0.5 * k),
                angular_b: Vec3::new(0.3, -0.1 * k, 0.2),
            };
            let mut writer = rows.writer(pair, [Pose::IDENTITY; 2], Softness::DEFAULT, false);
            writer.push(Row::equality(jacobian, 0.0));
        }
        rows
    }

    /// An island's own data for tests: its rows with their `M^-1 J^T`, `b`, `r = 0.05` on
    /// every row and the bodies of [`four_bodies`].
    pub(in crate::solver::sparse_exact) struct Fixture {
        pub(in crate::solver::sparse_exact) rows: RowStorage,
        pub(in crate::solver::sparse_exact) mass: crate::solver::sparse::RowMass,
        pub(in crate::solver::sparse_exact) b: Vec<f64>,
        pub(in crate::solver::sparse_exact) regularization: Vec<f64>,
        bodies: [u32; 4],
        inverse_mass: [f64; 4],
        inverse_inertia: [Mat3; 4],
    }

    impl Fixture {
        /// The fixture of `rows` (on [`four_bodies`]) with right-hand side `b`.
        pub(in crate::solver::sparse_exact) fn new(rows: RowStorage, b: Vec<f64>) -> Self {
            let (bodies, inverse_mass, inverse_inertia) = four_bodies();
            let mut mass = crate::solver::sparse::RowMass::default();
            mass.compute(&rows, &inverse_mass, &inverse_inertia);
            let regularization = vec![0.05; rows.len()];
            Self {
                rows,
                mass,
                b,
                regularization,
                bodies,
                inverse_mass,
                inverse_inertia,
            }
        }

        /// The island of all the rows, the first `nub` unbounded.
        pub(in crate::solver::sparse_exact) fn island(&self, nub: usize) -> SparseIsland<'_> {
            SparseIsland {
                rows: &self.rows,
                mass: &self.mass,
                range: 0..self.rows.len(),
                nub,
                b: &self.b,
                regularization: &self.regularization,
                bodies: &self.bodies,
                inverse_mass: &self.inverse_mass,
                inverse_inertia: &self.inverse_inertia,
            }
        }

        /// The island's operator, keeping `M^-1 J^T x` in `cache` (four zero slots).
        pub(in crate::solver::sparse_exact) fn operator<'a>(
            &'a self,
            cache: &'a mut [crate::rows::hot::Pair],
        ) -> crate::solver::sparse::SparseOperator<'a> {
            crate::solver::sparse::SparseOperator::new(
                &self.rows,
                &self.mass,
                0..self.rows.len(),
                &self.regularization,
                &self.bodies,
                cache,
            )
        }
    }

    /// Four bodies' island slots, inverse masses and world-frame inverse inertias, all
    /// different.
    fn four_bodies() -> ([u32; 4], [f64; 4], [Mat3; 4]) {
        (
            [0, 1, 2, 3],
            [1.0, 0.5, 2.0, 1.0],
            [
                Mat3::IDENTITY,
                Mat3::from_diagonal(Vec3::new(1.0, 2.0, 3.0)),
                Mat3::IDENTITY,
                Mat3::IDENTITY * 0.5,
            ],
        )
    }

    /// The correction for a unit residual on every row, all rows clamped.
    fn correction(system: &mut BodySystem, rows: &RowStorage) -> Vec<f64> {
        let (bodies, inverse_mass, inverse_inertia) = four_bodies();
        let n = rows.len();
        system.prepare(rows, 0..n, &bodies, &inverse_mass, &inverse_inertia);
        let (clamped, r, residual) = (vec![true; n], vec![2.0; n], vec![1.0; n]);
        assert!(system.factor(rows, 0..n, &clamped, &r));
        let mut dx = vec![0.0; n];
        system.correct(rows, 0..n, &clamped, &r, &residual, &mut dx);
        dx
    }

    /// The coupled correction solves `A_FF dx + A_FB S dx = res` on the clamped rows, with
    /// `A = J W J^T + R` formed from the bodies' inverse masses: two friction rows at a
    /// bound follow their normal rows with slopes 0.4 and -0.7. The last row shares its
    /// bodies with the first but carries no friction: its symmetric terms reach the blocks
    /// above the diagonal through their mirrors, the first row's directly.
    #[test]
    fn the_coupled_correction_solves_the_friction_coupled_equations() {
        let mut rows = rows_on(&[[0, 1], [0, 1], [1, 2], [2, 3], [2, 3], [1, 0]]);
        rows.findex[1] = Some(0);
        rows.findex[4] = Some(3);
        let (bodies, inverse_mass, inverse_inertia) = four_bodies();
        let n = rows.len();
        let mut system = BodySystem::default();
        system.prepare(&rows, 0..n, &bodies, &inverse_mass, &inverse_inertia);
        let clamped = [true, false, true, true, false, true];
        let coupling = [0.0, 0.4, 0.0, 0.0, -0.7, 0.0];
        let r = [2.0, 2.0, 0.5, 1.0, 2.0, 1.5];
        let res = [1.0, 0.0, -0.5, 0.25, 0.0, 0.75];
        assert!(system.factor_coupled(&rows, 0..n, &clamped, &r, &coupling));
        let mut dx = vec![0.0; n];
        system.correct_coupled(&rows, 0..n, &clamped, &r, &res, &mut dx);
        // Every row's force: the clamped rows' dx, the coupled friction rows' slope times
        // their normal's.
        let force: Vec<f64> = (0..n)
            .map(|i| match rows.findex[i] {
                Some(normal) if coupling[i] != 0.0 => coupling[i] * dx[normal],
                _ => dx[i],
            })
            .collect();
        let mut velocity = [[Vec3::ZERO; 2]; 4];
        for (i, j) in rows.jacobian.iter().enumerate() {
            let [a, b] = rows.bodies[i];
            for (slot, linear, angular) in
                [(a, j.linear_a, j.angular_a), (b, j.linear_b, j.angular_b)]
            {
                let s = slot as usize;
                velocity[s][0] += inverse_mass[s] * force[i] * linear;
                velocity[s][1] += inverse_inertia[s] * (force[i] * angular);
            }
        }
        for i in (0..n).filter(|&i| clamped[i]) {
            let j = &rows.jacobian[i];
            let [a, b] = rows.bodies[i].map(|s| s as usize);
            let product = j.linear_a.dot(velocity[a][0])
                + j.angular_a.dot(velocity[a][1])
                + j.linear_b.dot(velocity[b][0])
                + j.angular_b.dot(velocity[b][1])
                + r[i] * dx[i];
            assert!(
                (product - res[i]).abs() < 1e-12,
                "row {i}: {product} against {}",
                res[i]
            );
        }
        assert_eq!((dx[1], dx[4]), (0.0, 0.0));
    }

    #[test]
    fn a_system_reused_on_other_couplings_orders_and_factors_them_afresh() {
        // The same four bodies, coupled as a chain, then as a star: the second ordering
        // and pattern must be the star's (a kept chain pattern lacks its blocks).
        let chain = rows_on(&[[0, 1], [1, 2], [2, 3]]);
        let star = rows_on(&[[0, 1], [0, 2], [0, 3]]);
        let mut reused = BodySystem::default();
        let first = correction(&mut reused, &chain);
        assert_eq!(correction(&mut reused, &chain), first);
        let again = correction(&mut reused, &star);
        assert_eq!(again, correction(&mut BodySystem::default(), &star));
        assert_ne!(again, first);
    }
}
