//! A fill-reducing elimination order for the body graph and the block pattern of the
//! Cholesky factor it produces.
//!
//! Minimum degree on the explicit elimination graph: the next body eliminated is one with
//! the fewest remaining neighbours; among the first [`FILL_TIES`] such nodes by index, the
//! one whose elimination adds the fewest edges (then the lowest index, so the order is
//! deterministic); eliminating it joins its neighbours into a clique. Those neighbours are
//! exactly the non-zero blocks of its column of `L`, so the symbolic factorisation comes
//! out of the ordering for free. The explicit graph costs `O(fill)` memory, which is what
//! the factor needs anyway; an approximate-degree quotient graph (AMD) would only pay off
//! for far larger islands than the engine meets.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The most nodes of least degree whose fill [`Elimination`] compares before picking one.
const FILL_TIES: usize = 16;
/// Above this least degree the first node is taken without comparing fills: a tie's fill
/// costs about the square of its degree, and late in a large pile's elimination
/// (a dense remainder) the choice matters little.
const FILL_TIE_DEGREE: u32 = 12;

/// How [`Elimination::compute`] picks the next node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OrderRule {
    /// Fewest remaining neighbours first, ties to the least fill.
    MinimumDegree,
    /// Nodes in their given order (the baseline the tests compare against).
    #[cfg_attr(not(test), allow(dead_code))]
    Natural,
}

/// An elimination order of a graph and the pattern of its Cholesky factor. Workspaces are
/// kept between calls.
#[derive(Debug, Clone, Default)]
pub(crate) struct Elimination {
    adjacency: Vec<Vec<u32>>,
    eliminated: Vec<bool>,
    mark: Vec<u32>,
    stamp: u32,
    heap: BinaryHeap<Reverse<(u32, u32)>>,
    /// Nodes of least degree weighed against each other by [`Self::next_minimum`].
    ties: Vec<u32>,
    /// `order[k]`: the node eliminated `k`-th.
    pub(crate) order: Vec<u32>,
    /// `position[node]`: when `node` is eliminated (the inverse of `order`).
    pub(crate) position: Vec<u32>,
    /// The factor's pattern, in elimination positions.
    pub(crate) pattern: BlockPattern,
}

/// Where a block factor's off-diagonal blocks are: column `k` has them at rows
/// `rows[col_start[k]..col_start[k + 1]]`, ascending. Computed by [`Elimination`], copied
/// by the factors that live on it.
#[derive(Debug, Clone, Default)]
pub(crate) struct BlockPattern {
    /// See [`BlockPattern`].
    pub(crate) col_start: Vec<usize>,
    /// See [`BlockPattern`].
    pub(crate) rows: Vec<u32>,
}

impl BlockPattern {
    /// Block rows (and columns).
    pub(crate) fn blocks(&self) -> usize {
        self.col_start.len().saturating_sub(1)
    }

    /// Index of the block `(row, column)`, `row > column`, if in the pattern.
    pub(crate) fn find(&self, row: u32, column: u32) -> Option<usize> {
        let start = self.col_start[column as usize];
        let end = self.col_start[column as usize + 1];
        self.rows[start..end]
            .binary_search(&row)
            .ok()
            .map(|k| start + k)
    }

    /// From index `target` of a column, the index of its block at row `row`, which the
    /// column holds further on. A right-looking factorisation's update of a later column
    /// walks it this way alongside the column being eliminated, both ascending (the
    /// pattern is closed under elimination, so the block exists).
    #[inline(always)]
    pub(crate) fn seek(&self, mut target: usize, row: u32) -> usize {
        while self.rows[target] < row {
            target += 1;
        }
        debug_assert_eq!(self.rows[target], row);
        target
    }
}

impl Elimination {
    /// Orders the `n` nodes of the graph with `edges` (duplicates and self-loops allowed)
    /// by `rule` and records the factor's pattern.
    pub(crate) fn compute(&mut self, n: usize, edges: &[(u32, u32)], rule: OrderRule) {
        if self.adjacency.len() < n {
            self.adjacency.resize_with(n, Vec::new);
        }
        for list in &mut self.adjacency[..n] {
            list.clear();
        }
        for &(a, b) in edges {
            if a != b {
                self.adjacency[a as usize].push(b);
                self.adjacency[b as usize].push(a);
            }
        }
        for list in &mut self.adjacency[..n] {
            list.sort_unstable();
            list.dedup();
        }
        self.eliminated.clear();
        self.eliminated.resize(n, false);
        self.mark.clear();
        self.mark.resize(n, 0);
        self.stamp = 0;
        self.heap.clear();
        if rule == OrderRule::MinimumDegree {
            for v in 0..n {
                let degree = self.adjacency[v].len() as u32;
                self.heap.push(Reverse((degree, v as u32)));
            }
        }
        self.order.clear();
        self.pattern.col_start.clear();
        self.pattern.rows.clear();
        for k in 0..n {
            let v = match rule {
                OrderRule::Natural => k,
                OrderRule::MinimumDegree => self.next_minimum(),
            };
            self.eliminate(v, rule);
        }
        self.pattern.col_start.push(self.pattern.rows.len());
        self.position.clear();
        self.position.resize(n, 0);
        for (k, &v) in self.order.iter().enumerate() {
            self.position[v as usize] = k as u32;
        }
        for r in &mut self.pattern.rows {
            *r = self.position[*r as usize];
        }
        for k in 0..n {
            self.pattern.rows[self.pattern.col_start[k]..self.pattern.col_start[k + 1]]
                .sort_unstable();
        }
    }

    /// Off-diagonal blocks of the factor.
    #[cfg(test)]
    pub(crate) fn fill(&self) -> usize {
        self.pattern.rows.len()
    }

    fn next_minimum(&mut self) -> usize {
        let Some((degree, first)) = self.pop_current() else {
            return unreachable_node();
        };
        if degree > FILL_TIE_DEGREE {
            return first;
        }
        // Among the first few nodes of least degree (in index order), the one whose
        // elimination adds the fewest new edges: on a pyramid's lattice the lowest index
        // alone left about a fifth more block products in the factor.
        self.ties.clear();
        self.ties.push(first as u32);
        while self.ties.len() < FILL_TIES {
            match self.pop_current() {
                Some((d, v)) if d == degree => self.ties.push(v as u32),
                Some((d, v)) => {
                    self.heap.push(Reverse((d, v as u32)));
                    break;
                }
                None => break,
            }
        }
        let mut best = (usize::MAX, first);
        for k in 0..self.ties.len() {
            let v = self.ties[k] as usize;
            let fill = self.fill_of(v);
            if fill < best.0 {
                best = (fill, v);
            }
        }
        for k in 0..self.ties.len() {
            let v = self.ties[k];
            if v as usize != best.1 {
                self.heap.push(Reverse((degree, v)));
            }
        }
        best.1
    }

    /// The heap's next current entry `(degree, node)`, stale ones dropped. Entries go stale
    /// when a node's degree changes (a fresh entry is pushed then); every live node always
    /// has one current entry, so this only runs dry once every node is eliminated.
    fn pop_current(&mut self) -> Option<(u32, usize)> {
        while let Some(Reverse((degree, v))) = self.heap.pop() {
            let v = v as usize;
            if !self.eliminated[v] && degree as usize == self.adjacency[v].len() {
                return Some((degree, v));
            }
        }
        None
    }

    /// The edges eliminating `v` would add: pairs of its neighbours not yet adjacent.
    fn fill_of(&mut self, v: usize) -> usize {
        let stamp = self.next_stamp();
        for &x in &self.adjacency[v] {
            self.mark[x as usize] = stamp;
        }
        let degree = self.adjacency[v].len();
        let mut missing = 0;
        for &x in &self.adjacency[v] {
            let linked = self.adjacency[x as usize]
                .iter()
                .filter(|&&y| self.mark[y as usize] == stamp)
                .count();
            missing += degree - 1 - linked;
        }
        missing / 2
    }

    /// A fresh stamp for `mark` (every mark cleared when the counter wraps).
    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.fill(0);
            self.stamp = 1;
        }
        self.stamp
    }

    fn eliminate(&mut self, v: usize, rule: OrderRule) {
        self.eliminated[v] = true;
        self.order.push(v as u32);
        self.pattern.col_start.push(self.pattern.rows.len());
        let neighbours = std::mem::take(&mut self.adjacency[v]);
        self.pattern.rows.extend_from_slice(&neighbours);
        for &a in &neighbours {
            let stamp = self.next_stamp();
            let list = &mut self.adjacency[a as usize];
            list.retain(|&x| x != v as u32);
            for &x in list.iter() {
                self.mark[x as usize] = stamp;
            }
            self.mark[a as usize] = stamp;
            for &b in &neighbours {
                if self.mark[b as usize] != stamp {
                    self.mark[b as usize] = stamp;
                    list.push(b);
                }
            }
            if rule == OrderRule::MinimumDegree {
                self.heap.push(Reverse((list.len() as u32, a)));
            }
        }
        // Give the list back so its capacity is reused next time.
        self.adjacency[v] = neighbours;
        self.adjacency[v].clear();
    }
}

#[cold]
fn unreachable_node() -> usize {
    // Only reachable if the heap bookkeeping above were wrong.
    debug_assert!(false, "minimum degree ran out of nodes");
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(side: usize) -> Vec<(u32, u32)> {
        let id = |i: usize, j: usize| (i * side + j) as u32;
        let mut edges = Vec::new();
        for i in 0..side {
            for j in 0..side {
                if i + 1 < side {
                    edges.push((id(i, j), id(i + 1, j)));
                }
                if j + 1 < side {
                    edges.push((id(i, j), id(i, j + 1)));
                }
            }
        }
        edges
    }

    /// The body graph of a pyramid of `levels` rows of boxes (S1's for 20): each box
    /// touches its neighbour in its row and the two boxes under it.
    fn pyramid(levels: usize) -> (usize, Vec<(u32, u32)>) {
        let start = |l: usize| (0..l).map(|k| levels - k).sum::<usize>();
        let id = |l: usize, i: usize| (start(l) + i) as u32;
        let mut edges = Vec::new();
        for l in 0..levels {
            for i in 0..levels - l {
                if i + 1 < levels - l {
                    edges.push((id(l, i), id(l, i + 1)));
                }
                if l > 0 {
                    edges.push((id(l, i), id(l - 1, i)));
                    edges.push((id(l, i), id(l - 1, i + 1)));
                }
            }
        }
        (start(levels), edges)
    }

    #[test]
    fn ties_go_to_the_least_fill_on_a_pyramid() {
        let (n, edges) = pyramid(20);
        assert_eq!((n, edges.len()), (210, 570));
        let mut e = Elimination::default();
        e.compute(n, &edges, OrderRule::MinimumDegree);
        // Ties to the lowest index gave 1949 blocks and about 25,600 block products.
        let fill = e.fill();
        let products: usize = (0..n)
            .map(|k| {
                let c = e.pattern.col_start[k + 1] - e.pattern.col_start[k];
                c + c * c
            })
            .sum();
        assert!(fill <= 1850, "fill {fill}");
        assert!(products <= 22_500, "products {products}");
    }

    #[test]
    fn a_path_has_no_fill_and_a_star_is_eliminated_leaves_first() {
        let mut e = Elimination::default();
        e.compute(
            4,
            &[(0, 1), (1, 2), (2, 3), (2, 1)],
            OrderRule::MinimumDegree,
        );
        assert_eq!(e.fill(), 3);
        // Star centred on 0: eliminating the centre first would fill a 4-clique (6 edges).
        e.compute(
            5,
            &[(0, 1), (0, 2), (0, 3), (0, 4)],
            OrderRule::MinimumDegree,
        );
        assert_eq!(e.fill(), 4);
        // The centre goes once at most one leaf is left (then it ties with that leaf).
        assert!(e.position[0] >= 3, "centre eliminated at {}", e.position[0]);
        e.compute(5, &[(0, 1), (0, 2), (0, 3), (0, 4)], OrderRule::Natural);
        assert_eq!(e.fill(), 4 + 3 + 2 + 1);
    }

    #[test]
    fn minimum_degree_fills_a_grid_less_than_natural_order() {
        let edges = grid(12);
        let mut e = Elimination::default();
        e.compute(144, &edges, OrderRule::Natural);
        let natural = e.fill();
        // Natural order on a k x k grid keeps a band of width k: about k^3 = 1728 entries.
        assert!(natural > 1500, "natural fill {natural}");
        e.compute(144, &edges, OrderRule::MinimumDegree);
        let minimum = e.fill();
        assert!(minimum < natural * 3 / 4, "{minimum} vs {natural}");
        // The order is a permutation and the pattern points forward.
        let mut seen = e.order.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..144).collect::<Vec<u32>>());
        for k in 0..144 {
            for &r in &e.pattern.rows[e.pattern.col_start[k]..e.pattern.col_start[k + 1]] {
                assert!(r as usize > k);
            }
        }
    }
}
