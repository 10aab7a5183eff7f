//! Islands: groups of dynamic bodies connected by rows, each an independent LCP.
//!
//! Union-find over body slots joins the two bodies of every row, except that static and
//! kinematic bodies (and the static world) never join islands: they have infinite mass, so
//! forces on one side do not reach the other. The rows are then reordered so that each
//! island's rows are contiguous, with its unbounded rows first (Dantzig's `nub`), and
//! friction indices rewritten relative to the island. Bodies touched by no row belong to no
//! island and cost only integration. All arrays are reused between steps.

use crate::rows::{RowShapes, RowStorage, DROPPED as NONE};
use std::ops::Range;

/// The islands of one step and the reordered rows' bookkeeping.
#[derive(Debug, Clone, Default)]
pub(crate) struct Islands {
    parent: Vec<u32>,
    island_of_root: Vec<u32>,
    row_island: Vec<u32>,
    new_position: Vec<u32>,
    bucket: Vec<usize>,
    /// Start of each island's rows in the sorted storage; one more entry than islands.
    row_start: Vec<usize>,
    /// Unbounded rows at the front of each island.
    nub: Vec<usize>,
    /// Start of each island's bodies in `bodies`; one more entry than islands.
    body_start: Vec<usize>,
    bodies: Vec<u32>,
    /// For each sorted row, the raw row it came from.
    pub(crate) origin: Vec<u32>,
    /// Into how many interleaved lanes [`Self::build`] deals each island's bounded rows;
    /// 1 (the default, also for 0) keeps the producers' order. See [`INTERLEAVE`].
    pub(crate) interleave: usize,
    /// One island's bounded rows while they are dealt into lanes.
    lanes: Vec<u32>,
    /// Where each unit (a row, or a grouped contact's rows) starts in `lanes`, and one past
    /// the last.
    unit_start: Vec<u32>,
    /// Whether interleaving deals whole contacts (a normal row with the friction rows that
    /// follow it) rather than single rows. Producers write a contact's friction rows right
    /// after its normal row (`contact::rows::write_rows`), and the sort is stable, so they
    /// stay together: Gauss-Seidel solves them as one block, and the exact stepper's
    /// envelope factorisation of the clamped rows (built in row order) stays narrow. Written
    /// every normal first, then every friction row, a friction row would couple with rows a
    /// whole island away, and that factorisation's forward substitutions would dominate a
    /// warm-started stack's step (docs/performance.md#dantzig-warm-starts-and-friction).
    pub(crate) group_contacts: bool,
    /// What the last [`Self::build`] sorted, see [`Structure`].
    last: Structure,
    /// Each sorted row's friction index relative to its island.
    sorted_findex: Vec<Option<usize>>,
    /// Whether the last [`Self::build`] kept the islands and order of the one before.
    reused: bool,
    /// Whether `origin` is every raw row in producer order (a joint chain's one island):
    /// the gather is then a copy of each column.
    identity: bool,
}

/// Everything the islands and the row order depend on: each raw row's shape (bodies,
/// friction index, boundedness), which slots are dynamic, and the ordering options. When a
/// step's rows have the same structure as the last build's (a resting scene, a chain, and
/// post-stabilisation's re-measures within a step), the islands and the order are the
/// same, and [`Islands::build`] only gathers the rows.
#[derive(Debug, Clone, Default)]
struct Structure {
    valid: bool,
    shapes: RowShapes,
    dynamic: Vec<bool>,
    options: (bool, usize),
}

impl Structure {
    fn same_context(&self, dynamic: &[bool], options: (bool, usize)) -> bool {
        self.valid && self.options == options && self.dynamic == dynamic
    }

    /// Keeps `shapes` (swapped in: the caller's vector gets the old ones), `dynamic` and
    /// `options` as what the current islands were sorted from.
    fn record(&mut self, shapes: &mut RowShapes, dynamic: &[bool], options: (bool, usize)) {
        self.valid = true;
        self.options = options;
        std::mem::swap(&mut self.shapes, shapes);
        self.dynamic.clear();
        self.dynamic.extend_from_slice(dynamic);
    }
}

/// The lanes the iterative stepper deals bounded rows into. Producers write a contact's
/// rows next to its neighbours' (the four points of a manifold share their two bodies), so
/// in producer order each Gauss-Seidel update waits for the previous one's write to the
/// same body accumulators: a chain of dependent loads, multiplies and stores. Dealt
/// `p0, p(m/4), p(2m/4), p(3m/4), p1, ...`, consecutive rows mostly touch different bodies
/// and the processor overlaps their updates (docs/performance.md#lane-batching-in-avx2).
/// It changes the sweep order, so the iterates, but not what they converge to; the contact
/// scenes kept their quality
/// (docs/benchmarks-history.md#iterative-step-against-odes-quickstep-and-rapier-issue-6).
/// Both steppers keep each contact's rows together ([`Islands::group_contacts`]): the exact
/// stepper's envelope factorisation needs it, and Gauss-Seidel then updates a contact's
/// three rows as one block (`stiction_lcp::pgs`); the iterative stepper deals whole
/// contacts into the lanes. Unbounded rows (joints) keep their order, since a chain's
/// Gauss-Seidel converges fastest swept along the chain.
pub(crate) const INTERLEAVE: usize = 4;

impl Islands {
    /// Whether the last build had the same structure as the one before (see
    /// [`Structure`]): each island's rows then have the same bodies, friction indices and
    /// boundedness, in the same order, as in that build.
    pub(crate) fn reused(&self) -> bool {
        self.reused
    }

    /// Number of islands.
    pub(crate) fn len(&self) -> usize {
        self.nub.len()
    }

    /// Sorted-row range of island `k`.
    pub(crate) fn rows(&self, k: usize) -> Range<usize> {
        self.row_start[k]..self.row_start[k + 1]
    }

    /// Unbounded rows at the front of island `k`.
    pub(crate) fn nub(&self, k: usize) -> usize {
        self.nub[k]
    }

    /// Body slots of island `k`.
    pub(crate) fn bodies(&self, k: usize) -> &[u32] {
        &self.bodies[self.body_start[k]..self.body_start[k + 1]]
    }

    /// Whether the last build that sorted (the one whose islands and order are kept) saw
    /// exactly these dynamic slots.
    pub(crate) fn same_dynamic(&self, dynamic: &[bool]) -> bool {
        self.last.valid && self.last.dynamic == dynamic
    }

    /// Where raw row `raw` of the last build went among the sorted rows (`None`: it touched
    /// no dynamic body and was dropped); the inverse of [`Self::origin`].
    pub(crate) fn sorted_position(&self, raw: usize) -> Option<usize> {
        let position = self.new_position[raw];
        (position != NONE).then_some(position as usize)
    }

    /// Whether the last [`Self::build`]'s order is every raw row in producer order (nothing
    /// dropped, the islands' rows already consecutive): sorted row `i` is raw row `i`.
    pub(crate) fn identity(&self) -> bool {
        self.identity
    }

    /// Rows in islands (the sorted rows).
    pub(crate) fn sorted_rows(&self) -> usize {
        self.origin.len()
    }

    /// All bodies in islands.
    pub(crate) fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Finds the islands of `raw` (whose bodies index `dynamic`) and writes its rows, island
    /// by island, into `sorted`. Rows touching no dynamic body are dropped.
    pub(crate) fn build(&mut self, raw: &RowStorage, dynamic: &[bool], sorted: &mut RowStorage) {
        self.find_islands(raw, dynamic);
        self.gather(raw, sorted);
    }

    /// Finds the islands of rows shaped `shapes` before they are written (their bodies
    /// index `dynamic`): [`Self::reuse_if`] the kept shapes equal `shapes`, else
    /// [`Self::replan`]. The step does the two itself, comparing in place.
    #[cfg(test)]
    pub(crate) fn plan(&mut self, shapes: &mut RowShapes, dynamic: &[bool]) {
        if !self.reuse_if(dynamic, |kept| kept == shapes) {
            self.replan(shapes, dynamic);
        }
    }

    /// Planning, before the rows are written, so that a producer can write them straight
    /// into island order ([`Self::place_written`], [`Self::positions`]) instead of into
    /// producer order and then copied (docs/performance.md#rows-written-in-island-order);
    /// first half: keeps the last plan's islands and order if the context (`dynamic`, the
    /// options) is the same and `matches` says the kept shapes are this step's rows'. The
    /// producer compares its rows with them in place rather than writing out shapes to
    /// compare (S1: 7,000 a step). Returns (and records, [`Self::reused`]) whether the plan
    /// was kept; if not, call [`Self::replan`].
    #[inline(always)]
    pub(crate) fn reuse_if(
        &mut self,
        dynamic: &[bool],
        matches: impl FnOnce(&RowShapes) -> bool,
    ) -> bool {
        let options = (self.group_contacts, self.interleave);
        self.reused = self.last.same_context(dynamic, options) && matches(&self.last.shapes);
        self.reused
    }

    /// Planning's second half, once [`Self::reuse_if`] found the kept plan does not hold:
    /// sorts the rows shaped `shapes` (their bodies index `dynamic`) into islands afresh and
    /// keeps `shapes`' contents (it is left holding stale ones).
    #[inline(always)]
    pub(crate) fn replan(&mut self, shapes: &mut RowShapes, dynamic: &[bool]) {
        let options = (self.group_contacts, self.interleave);
        self.reused = false;
        self.sort(shapes, dynamic);
        self.last.record(shapes, dynamic, options);
    }

    /// After planning ([`Self::reuse_if`], [`Self::replan`]): sizes `sorted` for the
    /// islands' rows, writes every sorted row's friction index (relative to its island) and
    /// a zero force, and copies the rows already written to `raw` (its first rows in
    /// producer order, a joint's) to their places. Every other value of `sorted` is stale
    /// until the caller writes each remaining row at [`Self::positions`].
    pub(crate) fn place_written(&self, raw: &RowStorage, sorted: &mut RowStorage) {
        sorted.resize_for_overwrite(self.origin.len());
        sorted.findex.copy_from_slice(&self.sorted_findex);
        sorted.lambda.fill(0.0);
        for r in 0..raw.len() {
            let position = self.new_position[r];
            if position != NONE {
                sorted.copy_row(position as usize, raw, r);
            }
        }
    }

    /// Where each raw row of the last planning or build goes among the sorted rows
    /// ([`NONE`]: dropped, it touches no dynamic body).
    pub(crate) fn positions(&self) -> &[u32] {
        &self.new_position
    }

    /// After planning found the rows already in island order ([`Self::identity`]) and
    /// the caller wrote them all to `raw`: moves them into `sorted` (the two storages
    /// swapped, friction indices made relative) instead of copying them, and `raw` holds
    /// stale rows until [`Self::give_back`]. A chain's rows are then not copied each step,
    /// and the step's working set holds one row storage instead of two
    /// (docs/performance.md#lent-rows).
    pub(crate) fn lend(&self, raw: &mut RowStorage, sorted: &mut RowStorage) {
        debug_assert!(self.identity);
        std::mem::swap(raw, sorted);
        // `raw` keeps the producers' friction indices; `sorted` takes the islands'.
        std::mem::swap(&mut raw.findex, &mut sorted.findex);
        sorted.findex.clear();
        sorted.findex.extend(self.sorted_findex.iter().copied());
    }

    /// Undoes [`Self::lend`]'s move: `raw` gets back its rows, with whatever the solve
    /// wrote into them (forces, index sets), and `sorted` keeps stale rows.
    pub(crate) fn give_back(raw: &mut RowStorage, sorted: &mut RowStorage) {
        std::mem::swap(&mut raw.findex, &mut sorted.findex);
        std::mem::swap(raw, sorted);
    }

    /// The islands and order of `raw`, rebuilt unless the last ones still hold.
    #[inline(always)]
    fn find_islands(&mut self, raw: &RowStorage, dynamic: &[bool]) {
        let options = (self.group_contacts, self.interleave);
        self.reused = self.last.same_context(dynamic, options) && self.last.shapes.describe(raw);
        if !self.reused {
            let mut shapes = std::mem::take(&mut self.last.shapes);
            shapes.clear();
            shapes.extend_from_rows(raw);
            self.sort(&shapes, dynamic);
            self.last.record(&mut shapes, dynamic, options);
        }
    }

    /// [`Self::find_islands`] from scratch.
    #[inline(always)]
    fn sort(&mut self, shapes: &RowShapes, dynamic: &[bool]) {
        let slots = dynamic.len();
        self.parent.clear();
        self.parent.extend(0..slots as u32);
        // A row on the same bodies as the row before it (a contact's friction rows, a
        // pair's other points: S2's 7,800 rows have 2,700 body pairs) joins nothing new and
        // lies in that row's island.
        let mut last = None;
        for &[a, b] in &shapes.bodies {
            if last != Some([a, b]) && dynamic[a as usize] && dynamic[b as usize] {
                self.union(a, b);
            }
            last = Some([a, b]);
        }
        self.island_of_root.clear();
        self.island_of_root.resize(slots, NONE);
        self.row_island.clear();
        let mut islands = 0u32;
        let mut last = None;
        for &[a, b] in &shapes.bodies {
            if let (Some(bodies), Some(&island)) = (last, self.row_island.last()) {
                if bodies == [a, b] {
                    self.row_island.push(island);
                    continue;
                }
            }
            last = Some([a, b]);
            let anchor = if dynamic[a as usize] {
                a
            } else if dynamic[b as usize] {
                b
            } else {
                self.row_island.push(NONE);
                continue;
            };
            let root = self.find(anchor) as usize;
            if self.island_of_root[root] == NONE {
                self.island_of_root[root] = islands;
                islands += 1;
            }
            self.row_island.push(self.island_of_root[root]);
        }
        let islands = islands as usize;
        self.collect_bodies(dynamic, islands);
        self.sort_rows(shapes, islands);
    }

    #[inline(always)]
    fn collect_bodies(&mut self, dynamic: &[bool], islands: usize) {
        self.body_start.clear();
        self.body_start.resize(islands + 1, 0);
        for s in 0..dynamic.len() {
            if let Some(k) = self.island_of_body(dynamic, s) {
                self.body_start[k + 1] += 1;
            }
        }
        for k in 0..islands {
            self.body_start[k + 1] += self.body_start[k];
        }
        self.bodies.clear();
        self.bodies.resize(self.body_start[islands], 0);
        self.bucket.clear();
        self.bucket.extend_from_slice(&self.body_start[..islands]);
        for s in 0..dynamic.len() {
            if let Some(k) = self.island_of_body(dynamic, s) {
                self.bodies[self.bucket[k]] = s as u32;
                self.bucket[k] += 1;
            }
        }
    }

    #[inline(always)]
    fn island_of_body(&mut self, dynamic: &[bool], slot: usize) -> Option<usize> {
        if !dynamic[slot] {
            return None;
        }
        let root = self.find(slot as u32) as usize;
        let k = self.island_of_root[root];
        (k != NONE).then_some(k as usize)
    }

    /// Counting sort of the rows by (island, bounded): stable, so a producer's rows stay in
    /// their order.
    #[inline(always)]
    fn sort_rows(&mut self, shapes: &RowShapes, islands: usize) {
        let unbounded = &shapes.unbounded;
        let key = |r: usize, island: u32| 2 * island as usize + usize::from(!unbounded[r]);
        self.bucket.clear();
        self.bucket.resize(2 * islands + 1, 0);
        for r in 0..shapes.len() {
            let island = self.row_island[r];
            if island != NONE {
                self.bucket[key(r, island) + 1] += 1;
            }
        }
        for k in 0..2 * islands {
            self.bucket[k + 1] += self.bucket[k];
        }
        self.row_start.clear();
        self.nub.clear();
        for k in 0..islands {
            self.row_start.push(self.bucket[2 * k]);
            self.nub.push(self.bucket[2 * k + 1] - self.bucket[2 * k]);
        }
        self.row_start.push(self.bucket[2 * islands]);
        let total = self.bucket[2 * islands];
        self.new_position.clear();
        self.new_position.resize(shapes.len(), NONE);
        self.origin.clear();
        self.origin.resize(total, 0);
        for r in 0..shapes.len() {
            let island = self.row_island[r];
            if island != NONE {
                let slot = &mut self.bucket[key(r, island)];
                self.new_position[r] = *slot as u32;
                self.origin[*slot] = r as u32;
                *slot += 1;
            }
        }
        debug_assert!(!self.group_contacts || self.frictions_follow_normals(&shapes.findex));
        for k in 0..islands {
            if self.interleave > 1 {
                self.interleave_bounded(k, &shapes.findex);
            }
        }
        self.sorted_findex.clear();
        let findex = self.origin.iter().map(|&r| {
            let r = r as usize;
            let start = self.row_start[self.row_island[r] as usize];
            // A friction row's normal shares its bodies, hence its island.
            shapes.findex[r]
                .map(|j| self.new_position[j] as usize)
                .filter(|&j| j != NONE as usize)
                .map(|j| j - start)
        });
        self.sorted_findex.extend(findex);
        self.identity = total == shapes.len()
            && self
                .origin
                .iter()
                .enumerate()
                .all(|(p, &r)| r as usize == p);
    }

    /// Whether every friction row of the sorted order follows its normal row or another
    /// friction row of the same normal (what producers promise, see
    /// [`Self::group_contacts`]).
    fn frictions_follow_normals(&self, findex: &[Option<usize>]) -> bool {
        self.origin.windows(2).all(|pair| {
            let (before, row) = (pair[0] as usize, pair[1] as usize);
            findex[row].is_none_or(|normal| before == normal || findex[before] == Some(normal))
        }) && self
            .origin
            .first()
            .is_none_or(|&r| findex[r as usize].is_none())
    }

    /// Writes `raw`'s rows into `sorted` in the order found (`origin`), friction indices
    /// made relative to their islands.
    fn gather(&self, raw: &RowStorage, sorted: &mut RowStorage) {
        sorted.clear();
        let order = (!self.identity).then_some(&self.origin[..]);
        sorted.extend_from_rows(raw, order, self.sorted_findex.iter().copied());
    }

    /// Deals island `k`'s bounded rows (in `origin`, with `new_position` kept inverse to
    /// it) into [`Self::interleave`] lanes: unit `lane + w * stride` of the stable order
    /// goes to place `w + lane * ways`. A unit is one row or, with
    /// [`Self::group_contacts`], a contact's normal row with its friction rows, which stay
    /// together. Islands with fewer than two units per lane keep their order.
    #[inline(always)]
    fn interleave_bounded(&mut self, k: usize, findex: &[Option<usize>]) {
        let ways = self.interleave;
        let (start, end) = (self.row_start[k] + self.nub[k], self.row_start[k + 1]);
        self.lanes.clear();
        self.lanes.extend_from_slice(&self.origin[start..end]);
        self.unit_start.clear();
        let mut head = NONE as usize;
        for (p, &r) in self.lanes.iter().enumerate() {
            let r = r as usize;
            if !(self.group_contacts && findex[r] == Some(head)) {
                self.unit_start.push(p as u32);
                head = r;
            }
        }
        self.unit_start.push(self.lanes.len() as u32);
        let units = self.unit_start.len() - 1;
        if ways <= 1 || units < 2 * ways {
            return;
        }
        let stride = units.div_ceil(ways);
        let mut position = start;
        for lane in 0..stride {
            for w in 0..ways {
                let unit = w * stride + lane;
                if unit >= units {
                    continue;
                }
                let (first, last) = (self.unit_start[unit], self.unit_start[unit + 1]);
                for p in first..last {
                    let r = self.lanes[p as usize];
                    self.origin[position] = r;
                    self.new_position[r as usize] = position as u32;
                    position += 1;
                }
            }
        }
        debug_assert_eq!(position, end);
    }

    #[inline(always)]
    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grandparent = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grandparent;
            x = grandparent;
        }
        x
    }

    #[inline(always)]
    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            // Smaller root index wins: deterministic and keeps paths short enough with
            // path halving.
            let (keep, merge) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[merge as usize] = keep;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::{JacobianRow, Pose, Row, RowShapes, Softness};

    fn add_row(raw: &mut RowStorage, a: u32, b: u32, bounded: bool) {
        let mut w = raw.writer([a, b], [Pose::IDENTITY; 2], Softness::DEFAULT, false);
        let row = Row::equality(JacobianRow::default(), 0.0);
        w.push(if bounded {
            row.bounded(0.0, f64::INFINITY)
        } else {
            row
        });
    }

    #[test]
    fn static_bodies_separate_islands_and_unbounded_rows_come_first() {
        // Slots 0..5: 0, 1, 2, 4 dynamic, 3 static, 5 the ground.
        let dynamic = [true, true, true, false, true, false];
        let mut raw = RowStorage::default();
        add_row(&mut raw, 0, 3, true); // island A
        add_row(&mut raw, 2, 3, false); // island B (through a static body: no link)
        add_row(&mut raw, 0, 1, false); // island A
        add_row(&mut raw, 3, 5, false); // inert: no dynamic body
        add_row(&mut raw, 2, 5, true); // island B
        let mut islands = Islands::default();
        let mut sorted = RowStorage::default();
        islands.build(&raw, &dynamic, &mut sorted);
        assert_eq!(islands.len(), 2);
        assert_eq!(sorted.len(), 4);
        assert_eq!(islands.bodies(0), &[0, 1]);
        assert_eq!(islands.bodies(1), &[2]);
        assert_eq!(islands.body_count(), 3);
        assert_eq!((islands.rows(0), islands.nub(0)), (0..2, 1));
        assert_eq!((islands.rows(1), islands.nub(1)), (2..4, 1));
        assert_eq!(&islands.origin[..], &[2, 0, 1, 4]);
    }

    #[test]
    fn runs_of_rows_on_the_same_bodies_share_their_first_rows_island() {
        // Slots 0..4: 0, 1, 2 dynamic, 3 static. Runs of rows on one body pair (a pair's
        // points, a contact's friction rows), an inert run right after a dynamic one, and
        // a last run that joins the first two islands into one.
        let dynamic = [true, true, true, false];
        let mut raw = RowStorage::default();
        for (a, b, runs) in [(0, 3, 3), (3, 3, 2), (2, 3, 3), (2, 3, 1), (1, 3, 2)] {
            for _ in 0..runs {
                add_row(&mut raw, a, b, true);
            }
        }
        let mut islands = Islands::default();
        let mut sorted = RowStorage::default();
        islands.build(&raw, &dynamic, &mut sorted);
        // Bodies 0, 2 and 1 each touch only the static body: three islands, the inert
        // rows dropped, every row of a run in its first row's island.
        assert_eq!(islands.len(), 3);
        assert_eq!(islands.bodies(0), &[0]);
        assert_eq!(islands.bodies(1), &[2]);
        assert_eq!(islands.bodies(2), &[1]);
        assert_eq!(islands.rows(0), 0..3);
        assert_eq!(islands.rows(1), 3..7);
        assert_eq!(islands.rows(2), 7..9);
        assert_eq!(&islands.origin[..], &[0, 1, 2, 5, 6, 7, 8, 9, 10]);
        // A run on two dynamic bodies links their islands.
        add_row(&mut raw, 0, 2, true);
        add_row(&mut raw, 0, 2, true);
        islands.build(&raw, &dynamic, &mut sorted);
        assert_eq!(islands.len(), 2);
        assert_eq!(islands.bodies(0), &[0, 2]);
        assert_eq!(islands.bodies(1), &[1]);
        assert_eq!(islands.rows(0), 0..9);
        assert_eq!(&islands.origin[..], &[0, 1, 2, 5, 6, 7, 8, 11, 12, 9, 10]);
    }

    #[test]
    fn rows_already_in_island_order_are_lent_and_given_back_unchanged() {
        // Two islands in producer order, each an unbounded row, a normal and its friction
        // row: the second island's friction index is 4 in producer order, 1 in its island.
        let dynamic = [true, true, true, true, false];
        let mut raw = RowStorage::default();
        for (a, b) in [(0, 1), (2, 3)] {
            add_row(&mut raw, a, b, false);
            add_row(&mut raw, a, 4, true);
            add_row(&mut raw, a, 4, true);
        }
        raw.findex[2] = Some(1);
        raw.findex[5] = Some(4);
        for (i, error) in raw.error.iter_mut().enumerate() {
            *error = i as f64;
        }
        let (mut copied, mut lent) = (RowStorage::default(), RowStorage::default());
        let mut islands = Islands::default();
        islands.build(&raw, &dynamic, &mut copied);
        assert!(islands.identity());
        let mut moved = raw.clone();
        assert!(plan_and_lend(&mut islands, &mut moved, &dynamic, &mut lent));
        // What the solve reads is the copy's, friction indices relative to each island.
        assert_eq!(lent.findex, copied.findex);
        assert_eq!(lent.findex[5], Some(1));
        assert_eq!((&lent.bodies, &lent.error), (&copied.bodies, &copied.error));
        assert_eq!((&lent.lo, &lent.hi), (&copied.lo, &copied.hi));
        // What it writes comes back with the rows, in producer order.
        lent.lambda[3] = 7.0;
        Islands::give_back(&mut moved, &mut lent);
        assert_eq!(moved.lambda[3], 7.0);
        moved.lambda[3] = 0.0;
        assert_eq!(moved.findex, raw.findex);
        assert_eq!((&moved.bodies, &moved.error), (&raw.bodies, &raw.error));
        assert_eq!(moved.lambda, raw.lambda);
        // Rows out of island order are copied, and `raw` is left as it was.
        let mut shuffled = RowStorage::default();
        add_row(&mut shuffled, 0, 4, true);
        add_row(&mut shuffled, 0, 1, false);
        let mut sorted = RowStorage::default();
        let before = shuffled.clone();
        assert!(!plan_and_lend(
            &mut islands,
            &mut shuffled,
            &dynamic,
            &mut sorted
        ));
        assert_eq!((shuffled.bodies, shuffled.lo), (before.bodies, before.lo));
        assert_eq!(sorted.bodies, [[0, 1], [0, 4]]);
    }

    /// As the step does it: plans the islands of `raw`'s shapes, then lends `raw`'s rows
    /// if they are in island order, else places them. Returns whether they were lent.
    fn plan_and_lend(
        islands: &mut Islands,
        raw: &mut RowStorage,
        dynamic: &[bool],
        sorted: &mut RowStorage,
    ) -> bool {
        let mut shapes = RowShapes::default();
        shapes.extend_from_rows(raw);
        islands.plan(&mut shapes, dynamic);
        if islands.identity() {
            islands.lend(raw, sorted);
            return true;
        }
        islands.place_written(raw, sorted);
        false
    }

    #[test]
    fn rows_placed_by_plan_match_the_gathered_ones_over_stale_storage() {
        // Two islands out of order, a contact's normal and friction rows in each, a joint
        // row, and an inert row; placed into a storage holding stale rows of another step.
        let dynamic = [true, true, true, false];
        let mut raw = RowStorage::default();
        add_row(&mut raw, 0, 3, true); // island A normal
        add_row(&mut raw, 2, 3, true); // island B normal
        add_row(&mut raw, 2, 3, true); // its friction
        raw.findex[2] = Some(1);
        add_row(&mut raw, 0, 1, false); // island A joint: first in A
        add_row(&mut raw, 3, 3, false); // inert
        for (r, e) in raw.error.iter_mut().enumerate() {
            *e = r as f64 + 0.25;
        }
        raw.lambda[3] = 3.0;
        let mut islands = Islands {
            group_contacts: true,
            ..Islands::default()
        };
        let mut gathered = RowStorage::default();
        islands.build(&raw, &dynamic, &mut gathered);
        let mut placed = RowStorage::default();
        for _ in 0..7 {
            add_row(&mut placed, 1, 2, true);
        }
        placed.error.fill(-1.0);
        placed.findex[6] = Some(2);
        let mut shapes = RowShapes::default();
        shapes.extend_from_rows(&raw);
        islands.plan(&mut shapes, &dynamic);
        assert!(islands.reused() && !islands.identity());
        islands.place_written(&raw, &mut placed);
        // Friction indices for every row, island-relative; written rows' values copied
        // (forces too, as the gather does); stale forces cleared.
        assert_eq!(placed.len(), 4);
        assert_eq!(placed.findex, gathered.findex);
        assert_eq!(placed.findex[3], Some(0));
        assert_eq!(placed.lambda, [3.0, 0.0, 0.0, 0.0]);
        assert_eq!(placed.lambda, gathered.lambda);
        assert_eq!(islands.positions(), &[1, 2, 3, 0, NONE]);
        assert_eq!(placed.bodies, gathered.bodies);
        for (r, &i) in islands.positions().iter().enumerate() {
            if i != NONE {
                assert_eq!(placed.error[i as usize], gathered.error[i as usize]);
                assert_eq!(placed.error[i as usize], r as f64 + 0.25);
            }
        }
    }

    #[test]
    fn interleaving_deals_bounded_rows_into_lanes_and_keeps_friction_links() {
        // One island (bodies 0 and 1): an unbounded row, then ten contact normals and a
        // friction row on the first normal (raw row 1).
        let dynamic = [true, true, false];
        let mut raw = RowStorage::default();
        add_row(&mut raw, 0, 1, false);
        for _ in 0..10 {
            add_row(&mut raw, 0, 1, true);
        }
        add_row(&mut raw, 1, 2, true);
        raw.findex[11] = Some(1);
        let mut islands = Islands {
            interleave: 4,
            ..Islands::default()
        };
        let mut sorted = RowStorage::default();
        islands.build(&raw, &dynamic, &mut sorted);
        // Eleven bounded rows (raw 1..=11) in lanes of stride 3: raw 1, 4, 7, 10, then
        // 2, 5, 8, 11, then 3, 6, 9; the unbounded row stays first.
        assert_eq!(&islands.origin[..], &[0, 1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9]);
        // The friction row (now at 8) still points at its normal (raw 1, now at 1).
        assert_eq!(sorted.findex[8], Some(1));
        assert_eq!(sorted.findex.iter().flatten().count(), 1);
    }

    #[test]
    fn a_contacts_rows_stay_together_and_are_dealt_whole() {
        // As contacts write them: a joint row, then each of three normals with its two
        // friction rows; a bounded row with no friction (a joint limit) last.
        let dynamic = [true, true, false];
        let mut raw = RowStorage::default();
        add_row(&mut raw, 0, 1, false); // raw 0: unbounded
        for normal in [1, 4, 7] {
            add_row(&mut raw, 0, 1, true);
            for _ in 0..2 {
                add_row(&mut raw, 0, 1, true);
                let last = raw.len() - 1;
                raw.findex[last] = Some(normal);
            }
        }
        add_row(&mut raw, 0, 1, true); // raw 10: a limit
        let mut islands = Islands {
            group_contacts: true,
            ..Islands::default()
        };
        let mut sorted = RowStorage::default();
        let expected = [None, None, Some(1), Some(1), None, Some(4), Some(4), None]
            .into_iter()
            .chain([Some(7), Some(7), None]);
        for _ in 0..2 {
            islands.build(&raw, &dynamic, &mut sorted);
            assert_eq!(&islands.origin[..], &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
            assert!(sorted.findex.iter().copied().eq(expected.clone()));
        }
        // Interleaved (the iterative stepper): too few units for two lanes of four keep
        // their order; with two lanes of two, units (1 2 3) (4 5 6) | (7 8 9) (10) are
        // dealt first of each lane, then second, and the friction rows follow.
        islands.interleave = 4;
        islands.build(&raw, &dynamic, &mut sorted);
        assert_eq!(&islands.origin[..], &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        islands.interleave = 2;
        islands.build(&raw, &dynamic, &mut sorted);
        assert_eq!(&islands.origin[..], &[0, 1, 2, 3, 7, 8, 9, 4, 5, 6, 10]);
        assert!(sorted.findex.iter().copied().eq(expected));
        assert!(islands.frictions_follow_normals(&raw.findex));
        // Every normal first and then every friction row is what producers must not write.
        let mut split = RowStorage::default();
        for r in [0, 1, 4, 7, 10, 2, 3, 5, 6, 8, 9] {
            add_row(&mut split, 0, 1, r != 0);
        }
        for (at, normal) in [(5, 1), (6, 1), (7, 2), (8, 2), (9, 3), (10, 3)] {
            split.findex[at] = Some(normal);
        }
        islands.interleave = 1;
        islands.origin = (0..split.len() as u32).collect();
        assert!(!islands.frictions_follow_normals(&split.findex));
    }

    #[test]
    fn a_build_of_the_same_structure_gathers_new_values_in_the_old_order() {
        // A contact's normal and friction rows, a joint row, and a row of another island.
        let dynamic = [true, true, true, false];
        let mut raw = RowStorage::default();
        add_row(&mut raw, 0, 1, true);
        add_row(&mut raw, 0, 1, true);
        raw.findex[1] = Some(0);
        add_row(&mut raw, 1, 3, false);
        add_row(&mut raw, 2, 3, true);
        let mut islands = Islands {
            group_contacts: true,
            ..Islands::default()
        };
        let mut sorted = RowStorage::default();
        islands.build(&raw, &dynamic, &mut sorted);
        let (origin, findex) = (islands.origin.clone(), sorted.findex.clone());
        assert_eq!(islands.len(), 2);
        // New values, same structure: the same order and friction links, the new errors.
        for (r, e) in raw.error.iter_mut().enumerate() {
            *e = r as f64 + 0.5;
        }
        islands.build(&raw, &dynamic, &mut sorted);
        assert!(islands.last.valid);
        assert_eq!(islands.origin, origin);
        assert_eq!(sorted.findex, findex);
        let expected: Vec<f64> = origin.iter().map(|&r| r as f64 + 0.5).collect();
        assert_eq!(sorted.error, expected);
        // A changed structure sorts again: body 2 now joins body 1's island.
        raw.bodies[3] = [2, 1];
        islands.build(&raw, &dynamic, &mut sorted);
        assert_eq!(islands.len(), 1);
        assert_eq!(islands.bodies(0), &[0, 1, 2]);
        // So does a body that stops being dynamic (a sleeper): rows 2 and 3 then touch
        // body 1 only, and body 2 is in no island.
        let asleep = [true, true, false, false];
        islands.build(&raw, &asleep, &mut sorted);
        assert_eq!(islands.bodies(0), &[0, 1]);
        // And a row that becomes unbounded joins the island's front (row 2 was there).
        assert_eq!(islands.nub(0), 1);
        raw.lo[3] = f64::NEG_INFINITY;
        islands.build(&raw, &asleep, &mut sorted);
        assert_eq!(islands.nub(0), 2);
        assert_eq!(&islands.origin[..], &[2, 3, 0, 1]);
    }
}
