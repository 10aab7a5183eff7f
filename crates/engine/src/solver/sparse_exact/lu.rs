//! Numeric block LU `H = L U` with 6 x 6 blocks on the symmetric pattern of
//! [`super::ordering::Elimination`], for the non-symmetric body-space matrix of clamped rows
//! whose friction rows at a bound follow their normal forces ([`super::system`]).
//!
//! `L` has identity diagonal blocks; `U`'s diagonal blocks are kept inverted, so a solve
//! is products only. The fill pattern is the Cholesky factor's (the same elimination
//! graph), stored twice: blocks below the diagonal (`L`) and their mirror images above it
//! (`U`). No pivoting across blocks: the matrix is `M` plus terms that are symmetric up to
//! the friction slopes `mu <= ~1`, and a singular diagonal block is reported instead.

use super::block::{invert_in_place, product, subtract_block_product, times, Block, Six, ZERO};
use super::ordering::{BlockPattern, Elimination};

/// A block LU factor and the matrix it is assembled from (in place).
#[derive(Debug, Clone, Default)]
pub(crate) struct BlockLu {
    pattern: BlockPattern,
    /// Diagonal blocks: `H_jj` before [`Self::factor`], `U_jj^-1` after.
    pub(crate) diagonal: Vec<Block>,
    /// Blocks `(rows[p], column)` below the diagonal: `H` before, `L` after.
    pub(crate) lower: Vec<Block>,
    /// Blocks `(column, rows[p])` above the diagonal: `H` before, `U` after.
    pub(crate) upper: Vec<Block>,
}

impl BlockLu {
    /// Takes the pattern of `elimination` and zeroes every block.
    pub(crate) fn set_pattern(&mut self, elimination: &Elimination) {
        self.pattern.clone_from(&elimination.pattern);
        self.diagonal.clear();
        self.diagonal.resize(self.blocks(), ZERO);
        for side in [&mut self.lower, &mut self.upper] {
            side.clear();
            side.resize(self.pattern.rows.len(), ZERO);
        }
    }

    /// Block rows (and columns).
    pub(crate) fn blocks(&self) -> usize {
        self.pattern.blocks()
    }

    /// Starts an assembly on the same pattern: diagonal blocks `diagonal`, the blocks
    /// below the diagonal zero. The blocks above are not touched: the assembly fills them
    /// with [`Self::mirror_lower`] once its symmetric terms are in (zeroing them first cost a
    /// resting S1 step 2 %).
    pub(crate) fn start_from(&mut self, diagonal: &[Block]) {
        self.diagonal.copy_from_slice(diagonal);
        self.lower.fill(ZERO);
    }

    /// Sets every block above the diagonal to the transpose of its mirror below (after the
    /// symmetric terms of an assembly, before its non-symmetric ones).
    pub(crate) fn mirror_lower(&mut self) {
        for (upper, lower) in self.upper.iter_mut().zip(&self.lower) {
            for r in 0..6 {
                for c in 0..6 {
                    upper[r * 6 + c] = lower[c * 6 + r];
                }
            }
        }
    }

    /// Factors the assembled matrix in place (right-looking, as the block Cholesky).
    /// `Err(j)`: the updated diagonal block `j` is singular.
    pub(crate) fn factor(&mut self) -> Result<(), usize> {
        #[cfg(target_arch = "x86_64")]
        if super::block::avx2_fma() {
            // SAFETY: AVX2 and FMA were detected just now.
            return unsafe { self.factor_avx2() };
        }
        self.factor_portable()
    }

    /// [`Self::factor_portable`] with the AVX2 and FMA block kernels
    /// ([`super::block::subtract_block_product_avx2`]): a block product's rows are one and a
    /// half 4-wide vectors held in registers (the answer is the portable one to the bit;
    /// see [`super::block`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn factor_avx2(&mut self) -> Result<(), usize> {
        use super::block::{product_avx2, subtract_block_product_avx2};
        self.factor_with(
            #[inline(always)]
            |a, b| product_avx2(a, b),
            #[inline(always)]
            |c, a, b| subtract_block_product_avx2(c, a, b),
        )
    }

    /// The factorisation with the portable block kernels.
    pub(crate) fn factor_portable(&mut self) -> Result<(), usize> {
        self.factor_with(product, subtract_block_product)
    }

    /// The right-looking block LU with the kernels `product` (`a b`) and `subtract`
    /// (`c <- c - a b`). Blocks are borrowed in place, not copied: a column's own blocks
    /// lie before its end in `lower` and `upper`, the blocks it updates (in later columns)
    /// after it.
    #[inline(always)]
    fn factor_with(
        &mut self,
        product: impl Fn(&Block, &Block) -> Block,
        subtract: impl Fn(&mut Block, &Block, &Block),
    ) -> Result<(), usize> {
        for j in 0..self.blocks() {
            if !invert_in_place(&mut self.diagonal[j]) {
                return Err(j);
            }
            let inverse = self.diagonal[j];
            let (start, end) = (self.pattern.col_start[j], self.pattern.col_start[j + 1]);
            for p in start..end {
                // L_ij = H_ij U_jj^-1.
                self.lower[p] = product(&self.lower[p], &inverse);
            }
            let (own_lower, later_lower) = self.lower.split_at_mut(end);
            let (own_upper, later_upper) = self.upper.split_at_mut(end);
            for p in start..end {
                let i = self.pattern.rows[p] as usize;
                let (lij, uji) = (&own_lower[p], &own_upper[p]);
                subtract(&mut self.diagonal[i], lij, uji);
                let mut target = self.pattern.col_start[i];
                for q in p + 1..end {
                    target = self.pattern.seek(target, self.pattern.rows[q]);
                    // Block (k, i) below and (i, k) above the diagonal, in column i > j.
                    subtract(&mut later_lower[target - end], &own_lower[q], uji);
                    subtract(&mut later_upper[target - end], lij, &own_upper[q]);
                }
            }
        }
        Ok(())
    }

    /// Solves `L U u = v` in place (`v` indexed by block position).
    pub(crate) fn solve(&self, v: &mut [Six]) {
        #[cfg(target_arch = "x86_64")]
        if super::block::avx2_fma() {
            // SAFETY: AVX2 and FMA were detected just now.
            return unsafe { self.solve_avx2(v) };
        }
        self.solve_portable(v)
    }

    /// [`Self::solve_portable`] compiled for AVX2 and FMA (as [`Self::factor_avx2`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn solve_avx2(&self, v: &mut [Six]) {
        self.solve_portable(v)
    }

    #[inline(always)]
    pub(crate) fn solve_portable(&self, v: &mut [Six]) {
        let n = self.blocks();
        for j in 0..n {
            let vj = v[j];
            for p in self.pattern.col_start[j]..self.pattern.col_start[j + 1] {
                let change = times(&self.lower[p], &vj);
                let target = &mut v[self.pattern.rows[p] as usize];
                for k in 0..6 {
                    target[k] -= change[k];
                }
            }
        }
        for j in (0..n).rev() {
            let mut vj = v[j];
            for p in self.pattern.col_start[j]..self.pattern.col_start[j + 1] {
                let change = times(&self.upper[p], &v[self.pattern.rows[p] as usize]);
                for k in 0..6 {
                    vj[k] -= change[k];
                }
            }
            v[j] = times(&self.diagonal[j], &vj);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::block::dense_solve;
    use super::super::ordering::OrderRule;
    use super::*;

    /// A dense non-symmetric matrix of `n` 6 x 6 blocks, diagonally dominant (10 I plus
    /// couplings of magnitude below 1.5 per edge), and its block contributions.
    fn dense_and_blocks(n: usize, edges: &[(u32, u32)]) -> (Vec<f64>, Vec<(u32, u32, Block)>) {
        let dim = 6 * n;
        let mut dense = vec![0.0; dim * dim];
        for i in 0..dim {
            dense[i * dim + i] = 10.0;
        }
        let mut contributions = Vec::new();
        for (e, &(a, b)) in edges.iter().enumerate() {
            for (p, q) in [(a, b), (b, a), (a, a), (b, b)] {
                let block: Block = std::array::from_fn(|k| {
                    let seed = (e * 31 + k * 7 + p as usize * 3 + q as usize * 5) % 13;
                    seed as f64 / 8.0 - 0.75
                });
                for r in 0..6 {
                    for c in 0..6 {
                        dense[(6 * p as usize + r) * dim + 6 * q as usize + c] += block[r * 6 + c];
                    }
                }
                contributions.push((p, q, block));
            }
        }
        (dense, contributions)
    }

    #[test]
    fn block_lu_solves_a_non_symmetric_system_like_a_dense_solve() {
        let n = 9;
        let edges: Vec<(u32, u32)> = vec![
            (0, 1),
            (1, 2),
            (2, 3),
            (3, 0),
            (4, 5),
            (5, 6),
            (6, 7),
            (7, 8),
            (8, 4),
            (2, 6),
            (0, 8),
        ];
        let (dense, contributions) = dense_and_blocks(n, &edges);
        let mut e = Elimination::default();
        e.compute(n, &edges, OrderRule::MinimumDegree);
        let mut lu = BlockLu::default();
        lu.set_pattern(&e);
        for (p, q, block) in contributions {
            let (pp, pq) = (e.position[p as usize], e.position[q as usize]);
            let at = (pp != pq).then(|| {
                lu.pattern
                    .find(pp.max(pq), pp.min(pq))
                    .expect("edge in pattern")
            });
            let target = match at {
                None => &mut lu.diagonal[pp as usize],
                Some(at) if pp > pq => &mut lu.lower[at],
                Some(at) => &mut lu.upper[at],
            };
            for (entry, add) in target.iter_mut().zip(&block) {
                *entry += add;
            }
        }
        for d in &mut lu.diagonal {
            for i in 0..6 {
                d[i * 6 + i] += 10.0;
            }
        }
        let mut portable = lu.clone();
        lu.factor().expect("non-singular");
        // The AVX2 build gives the portable factor to the bit.
        portable.factor_portable().expect("non-singular");
        let bits = |f: &BlockLu| -> Vec<u64> {
            let blocks = f.diagonal.iter().chain(&f.lower).chain(&f.upper);
            blocks.flatten().map(|v| v.to_bits()).collect()
        };
        assert_eq!(bits(&lu), bits(&portable));
        let rhs: Vec<f64> = (0..6 * n).map(|i| ((i * 13) % 17) as f64 - 8.0).collect();
        let expected = dense_solve(dense, rhs.clone());
        let mut v = vec![[0.0; 6]; n];
        for node in 0..n {
            let at = e.position[node] as usize;
            v[at].copy_from_slice(&rhs[6 * node..6 * node + 6]);
        }
        let mut v_portable = v.clone();
        lu.solve(&mut v);
        lu.solve_portable(&mut v_portable);
        assert_eq!(
            v, v_portable,
            "the AVX2 solve gives the portable one's answer"
        );
        for node in 0..n {
            let at = e.position[node] as usize;
            for k in 0..6 {
                let (got, want) = (v[at][k], expected[6 * node + k]);
                assert!(
                    (got - want).abs() <= 1e-11 * (1.0 + want.abs()),
                    "{got} {want}"
                );
            }
        }
    }

    #[test]
    fn a_singular_block_is_reported() {
        let mut e = Elimination::default();
        e.compute(2, &[(0, 1)], OrderRule::MinimumDegree);
        let mut lu = BlockLu::default();
        lu.set_pattern(&e);
        for d in &mut lu.diagonal {
            for i in 0..6 {
                d[i * 6 + i] = 1.0;
            }
        }
        // Couplings of 1 both ways between unit diagonals: the Schur complement 1 - 1 = 0.
        lu.lower[0][0] = 1.0;
        lu.upper[0][0] = 1.0;
        assert_eq!(lu.factor(), Err(1));
    }
}
