//! Numeric block Cholesky `H = L L^T` with 6 x 6 blocks on a pattern from
//! [`super::ordering::Elimination`] (block indices are elimination positions).
//!
//! Right-looking: column `j` is factored, then its outer product is subtracted from the
//! later columns its blocks reach. The pattern is closed under that update (the neighbours
//! of an eliminated node form a clique), so each target block exists and is found by
//! walking the target column alongside column `j`, both sorted.

use super::block::{
    cholesky_in_place, right_solve_transposed, solve_lower, solve_lower_transposed,
    subtract_product, subtract_product_transposed, subtract_transposed_product, Block, Six, ZERO,
};
use super::ordering::{BlockPattern, Elimination};

/// A block lower-triangular factor and the matrix it is assembled from (in place).
#[derive(Debug, Clone, Default)]
pub(crate) struct BlockCholesky {
    pattern: BlockPattern,
    /// Diagonal blocks: `H_jj` before [`Self::factor`], `L_jj` after.
    pub(crate) diagonal: Vec<Block>,
    /// Off-diagonal blocks `(rows[p], column)`: `H` before, `L` after.
    pub(crate) off: Vec<Block>,
}

impl BlockCholesky {
    /// Takes the pattern of `elimination` and zeroes every block.
    pub(crate) fn set_pattern(&mut self, elimination: &Elimination) {
        self.pattern.clone_from(&elimination.pattern);
        self.diagonal.clear();
        self.diagonal.resize(self.blocks(), ZERO);
        self.off.clear();
        self.off.resize(self.pattern.rows.len(), ZERO);
    }

    /// Block rows (and columns).
    pub(crate) fn blocks(&self) -> usize {
        self.pattern.blocks()
    }

    /// Starts an assembly on the same pattern: diagonal blocks `diagonal`, every other
    /// block zero (the diagonal is written once rather than zeroed first).
    pub(crate) fn start_from(&mut self, diagonal: &[Block]) {
        self.diagonal.copy_from_slice(diagonal);
        self.off.fill(ZERO);
    }

    /// Factors the assembled matrix in place. `Err(j)`: the updated diagonal block `j` is
    /// not numerically positive definite.
    pub(crate) fn factor(&mut self) -> Result<(), usize> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 was detected just now.
            return unsafe { self.factor_avx2() };
        }
        self.factor_portable()
    }

    /// [`Self::factor_portable`] compiled for AVX2 (wider vectors for the block
    /// products; no fused multiply-adds, so the same answer to the bit).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn factor_avx2(&mut self) -> Result<(), usize> {
        self.factor_portable()
    }

    #[inline(always)]
    pub(crate) fn factor_portable(&mut self) -> Result<(), usize> {
        for j in 0..self.blocks() {
            if !cholesky_in_place(&mut self.diagonal[j]) {
                return Err(j);
            }
            let ljj = self.diagonal[j];
            let (start, end) = (self.pattern.col_start[j], self.pattern.col_start[j + 1]);
            for p in start..end {
                right_solve_transposed(&mut self.off[p], &ljj);
            }
            for p in start..end {
                let i = self.pattern.rows[p] as usize;
                let lij = self.off[p];
                subtract_product_transposed(&mut self.diagonal[i], &lij, &lij);
                let mut target = self.pattern.col_start[i];
                for q in p + 1..end {
                    target = self.pattern.seek(target, self.pattern.rows[q]);
                    let lkj = self.off[q];
                    subtract_product_transposed(&mut self.off[target], &lkj, &lij);
                }
            }
        }
        Ok(())
    }

    /// Solves `L L^T u = v` in place (`v` indexed by block position).
    pub(crate) fn solve(&self, v: &mut [Six]) {
        let n = self.blocks();
        for j in 0..n {
            solve_lower(&self.diagonal[j], &mut v[j]);
            let vj = v[j];
            for p in self.pattern.col_start[j]..self.pattern.col_start[j + 1] {
                subtract_product(&mut v[self.pattern.rows[p] as usize], &self.off[p], &vj);
            }
        }
        for j in (0..n).rev() {
            let mut vj = v[j];
            for p in self.pattern.col_start[j]..self.pattern.col_start[j + 1] {
                subtract_transposed_product(
                    &mut vj,
                    &self.off[p],
                    &v[self.pattern.rows[p] as usize],
                );
            }
            solve_lower_transposed(&self.diagonal[j], &mut vj);
            v[j] = vj;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::block::{add_outer, dense_solve};
    use super::super::ordering::OrderRule;
    use super::*;

    /// A dense symmetric matrix of `n` 6 x 6 blocks: 10 I on the diagonal plus, per edge,
    /// `g g^T` on both diagonal blocks and `-g g^T`-like couplings (a weighted graph
    /// Laplacian in 6 dimensions with full-rank coupling vectors): positive definite.
    fn dense_and_blocks(n: usize, edges: &[(u32, u32)]) -> (Vec<f64>, Vec<(u32, u32, Block)>) {
        let dim = 6 * n;
        let mut dense = vec![0.0; dim * dim];
        for i in 0..dim {
            dense[i * dim + i] = 10.0;
        }
        let mut contributions = Vec::new();
        for (e, &(a, b)) in edges.iter().enumerate() {
            let ga: Six = std::array::from_fn(|k| ((e * 5 + k * 3) % 7) as f64 / 3.0 - 1.0);
            let gb: Six = std::array::from_fn(|k| ((e * 3 + k * 5) % 11) as f64 / 4.0 - 1.2);
            for (p, gp) in [(a, ga), (b, gb)] {
                for (q, gq) in [(a, ga), (b, gb)] {
                    let mut block = ZERO;
                    add_outer(&mut block, 1.0, &gp, &gq);
                    for r in 0..6 {
                        for c in 0..6 {
                            dense[(6 * p as usize + r) * dim + 6 * q as usize + c] +=
                                block[r * 6 + c];
                        }
                    }
                    contributions.push((p, q, block));
                }
            }
        }
        (dense, contributions)
    }

    #[test]
    fn block_factor_solves_like_a_dense_solve() {
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
            (1, 2),
        ];
        let (dense, contributions) = dense_and_blocks(n, &edges);
        let mut e = Elimination::default();
        e.compute(n, &edges, OrderRule::MinimumDegree);
        let mut chol = BlockCholesky::default();
        chol.set_pattern(&e);
        for (p, q, block) in contributions {
            let (pp, pq) = (e.position[p as usize], e.position[q as usize]);
            if pp == pq {
                for (entry, add) in chol.diagonal[pp as usize].iter_mut().zip(&block) {
                    *entry += add;
                }
            } else if pp > pq {
                let at = chol.pattern.find(pp, pq).expect("edge in pattern");
                for (entry, add) in chol.off[at].iter_mut().zip(&block) {
                    *entry += add;
                }
            }
        }
        for d in &mut chol.diagonal {
            for i in 0..6 {
                d[i * 6 + i] += 10.0;
            }
        }
        let mut portable = chol.clone();
        chol.factor().expect("positive definite");
        // The AVX2 build gives the portable factor to the bit.
        portable.factor_portable().expect("positive definite");
        let bits = |c: &BlockCholesky| -> Vec<u64> {
            let blocks = c.diagonal.iter().chain(&c.off);
            blocks.flatten().map(|v| v.to_bits()).collect()
        };
        assert_eq!(bits(&chol), bits(&portable));
        let rhs: Vec<f64> = (0..6 * n).map(|i| ((i * 13) % 17) as f64 - 8.0).collect();
        let expected = dense_solve(dense, rhs.clone());
        let mut v = vec![[0.0; 6]; n];
        for node in 0..n {
            let at = e.position[node] as usize;
            v[at].copy_from_slice(&rhs[6 * node..6 * node + 6]);
        }
        chol.solve(&mut v);
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
    fn an_indefinite_matrix_is_reported() {
        let mut e = Elimination::default();
        e.compute(2, &[(0, 1)], OrderRule::MinimumDegree);
        let mut chol = BlockCholesky::default();
        chol.set_pattern(&e);
        for d in &mut chol.diagonal {
            for i in 0..6 {
                d[i * 6 + i] = 1.0;
            }
        }
        // A coupling of 2 between unit diagonals: eigenvalue 1 - 2 < 0.
        chol.off[0][0] = 2.0;
        assert_eq!(chol.factor(), Err(1));
    }
}
