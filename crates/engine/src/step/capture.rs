//! Copies of the dense LCPs the exact stepper assembles, for export and solver comparisons
//! ([`crate::World::set_capture_problems`]).
//!
//! Off by default: the stepper then pays one branch per island. When on, each step starts
//! by forgetting the previous step's problems and then keeps a copy of every island problem
//! as assembled, before the solver sees it. The copies reuse their allocations from step to
//! step while the islands keep their sizes.

use std::time::Duration;

use stiction_lcp::{BoxedLcp, DenseMatrix};

use crate::handles::JointHandle;

/// What one row of a captured problem stands for ([`crate::World::captured_row_sources`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowSource {
    /// A row of contact `contact`, an index into [`crate::World::contacts`] after the step
    /// (its point, normal and bodies): `row` 0 is the normal row, 1 and up its friction
    /// rows in the contact's `frame` order.
    Contact {
        /// Index into the step's contacts.
        contact: usize,
        /// 0 normal, 1.. friction.
        row: usize,
    },
    /// Row `row` of joint `joint` (its constraint rows first, then limits and motors, in
    /// the order the joint writes them).
    Joint {
        /// The joint.
        joint: JointHandle,
        /// The row's index among the joint's rows this step.
        row: usize,
    },
    /// A row of no contact or joint (a user's own row producer).
    Other,
}

/// The problems captured during the last step, in island order.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProblemCapture {
    enabled: bool,
    /// Copies made so far this step; `slots[len..]` are kept only for their allocations.
    len: usize,
    slots: Vec<BoxedLcp>,
    islands: Vec<usize>,
    /// The forces the step used for each captured problem (aligned with `slots`).
    solutions: Vec<Vec<f64>>,
    /// The two bodies of each row (body slot index, `None` for the ground).
    row_bodies: Vec<Vec<[Option<usize>; 2]>>,
    /// Each row's index among the step's rows in producer order (contacts' and joints'
    /// row ranges index that order), per captured problem.
    row_origins: Vec<Vec<u32>>,
    /// Wall time of each island's assembly and solve.
    times: Vec<Duration>,
}

impl ProblemCapture {
    /// Turns capturing on or off; off also forgets what was captured.
    pub(crate) fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
        if !enabled {
            self.len = 0;
            self.slots = Vec::new();
            self.islands = Vec::new();
            self.solutions = Vec::new();
            self.row_bodies = Vec::new();
            self.row_origins = Vec::new();
            self.times = Vec::new();
        }
    }

    /// Whether capturing is on.
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// Forgets the previous step's problems (their storage is kept).
    pub(crate) fn begin_step(&mut self) {
        self.len = 0;
        self.islands.clear();
    }

    /// Keeps a copy of island `island`'s assembled `problem`, if capturing is on.
    pub(crate) fn record(&mut self, island: usize, problem: &BoxedLcp) {
        if !self.enabled {
            return;
        }
        if self.len == self.slots.len() {
            self.slots
                .push(BoxedLcp::new(DenseMatrix::zeros(0, 0), Vec::new()));
        }
        copy_into(&mut self.slots[self.len], problem);
        self.islands.push(island);
        self.len += 1;
        self.forget_outcome();
    }

    /// Clears the newest slot's outcome, left from an earlier step, until [`Self::finish`]
    /// (so the outcome lists always have one entry per captured problem).
    fn forget_outcome(&mut self) {
        let k = self.len - 1;
        if self.solutions.len() <= k {
            self.solutions.resize(k + 1, Vec::new());
            self.row_bodies.resize(k + 1, Vec::new());
            self.row_origins.resize(k + 1, Vec::new());
            self.times.resize(k + 1, Duration::ZERO);
        }
        self.solutions[k].clear();
        self.row_bodies[k].clear();
        self.row_origins[k].clear();
        self.times[k] = Duration::ZERO;
    }

    /// Whether the last problem captured is island `island`'s.
    pub(crate) fn has(&self, island: usize) -> bool {
        self.islands.last() == Some(&island)
    }

    /// A problem of `n` rows for island `island`, for the caller to assemble into (an
    /// island solved without a dense problem). Only while capturing is on.
    pub(crate) fn record_blank(&mut self, island: usize, n: usize) -> &mut BoxedLcp {
        debug_assert!(self.enabled);
        if self.len == self.slots.len() {
            self.slots
                .push(BoxedLcp::new(DenseMatrix::zeros(0, 0), Vec::new()));
        }
        let slot = &mut self.slots[self.len];
        if slot.len() != n || slot.a.rows() != n {
            *slot = BoxedLcp::new(DenseMatrix::zeros(n, n), vec![0.0; n]);
        }
        self.islands.push(island);
        self.len += 1;
        self.forget_outcome();
        &mut self.slots[self.len - 1]
    }

    /// Records the outcome of the last captured problem: the forces used, each row's
    /// bodies (slot indices; `ground` is the ground's slot), each row's producer-order
    /// index (`origins`) and the solve's wall time.
    pub(crate) fn finish(
        &mut self,
        lambda: &[f64],
        bodies: &[[u32; 2]],
        ground: u32,
        origins: impl IntoIterator<Item = u32>,
        time: Duration,
    ) {
        let k = self.len - 1;
        self.solutions[k].clear();
        self.solutions[k].extend_from_slice(lambda);
        let side = |b: u32| (b != ground).then_some(b as usize);
        self.row_bodies[k].clear();
        self.row_bodies[k].extend(bodies.iter().map(|&[a, b]| [side(a), side(b)]));
        self.row_origins[k].clear();
        self.row_origins[k].extend(origins);
        self.times[k] = time;
    }

    /// Each row's producer-order index, per captured problem.
    pub(crate) fn row_origins(&self) -> &[Vec<u32>] {
        &self.row_origins[..self.len]
    }

    /// The forces the step used for each of [`Self::problems`] (empty for a problem whose
    /// solve was not finished, as in a refused step).
    pub(crate) fn solutions(&self) -> &[Vec<f64>] {
        &self.solutions[..self.len]
    }

    /// Each row's two bodies (slot indices, `None` for the ground), per captured problem.
    pub(crate) fn row_bodies(&self) -> &[Vec<[Option<usize>; 2]>] {
        &self.row_bodies[..self.len]
    }

    /// The wall time of each captured island's assembly and solve.
    pub(crate) fn times(&self) -> &[Duration] {
        &self.times[..self.len]
    }

    /// The problems captured during the last step.
    pub(crate) fn problems(&self) -> &[BoxedLcp] {
        &self.slots[..self.len]
    }

    /// The island index of each captured problem (aligned with [`Self::problems`]).
    pub(crate) fn islands(&self) -> &[usize] {
        &self.islands
    }
}

/// `*to = from.clone()`, reusing `to`'s storage when the sizes agree.
fn copy_into(to: &mut BoxedLcp, from: &BoxedLcp) {
    if to.len() != from.len() || to.a.as_slice().len() != from.a.as_slice().len() {
        *to = from.clone();
        return;
    }
    to.a.as_mut_slice().copy_from_slice(from.a.as_slice());
    to.b.copy_from_slice(&from.b);
    to.lo.copy_from_slice(&from.lo);
    to.hi.copy_from_slice(&from.hi);
    to.findex.copy_from_slice(&from.findex);
    to.nub = from.nub;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(n: usize, value: f64) -> BoxedLcp {
        let mut a = DenseMatrix::zeros(n, n);
        for i in 0..n {
            a[(i, i)] = value;
        }
        BoxedLcp::new(a, vec![-value; n])
    }

    #[test]
    fn records_nothing_while_off_and_forgets_each_step_when_on() {
        let mut capture = ProblemCapture::default();
        capture.record(0, &problem(2, 1.0));
        assert!(capture.problems().is_empty());

        capture.set_enabled(true);
        capture.begin_step();
        capture.record(0, &problem(2, 1.0));
        capture.record(3, &problem(5, 2.0));
        assert_eq!(capture.islands(), &[0, 3]);
        assert_eq!(capture.problems(), &[problem(2, 1.0), problem(5, 2.0)]);

        // The next step's single island replaces both (the second slot stays allocated).
        capture.begin_step();
        capture.record(1, &problem(2, 4.0));
        assert_eq!(capture.islands(), &[1]);
        assert_eq!(capture.problems(), &[problem(2, 4.0)]);
        capture.begin_step();
        capture.record(0, &problem(3, 5.0));
        assert_eq!(capture.problems(), &[problem(3, 5.0)]);

        capture.set_enabled(false);
        assert!(capture.problems().is_empty() && capture.islands().is_empty());
    }

    #[test]
    fn records_outcomes_and_blank_problems() {
        let mut capture = ProblemCapture::default();
        capture.set_enabled(true);
        capture.begin_step();
        capture.record(0, &problem(2, 1.0));
        assert!(capture.has(0) && !capture.has(1));
        capture.finish(
            &[1.0, 2.0],
            &[[0, 3], [1, 0]],
            3,
            [4, 7],
            Duration::from_micros(5),
        );
        let blank = capture.record_blank(1, 3);
        assert_eq!(blank.len(), 3);
        assert_eq!(capture.islands(), &[0, 1]);
        // The blank's outcome is not recorded yet.
        assert_eq!(capture.solutions()[1], Vec::<f64>::new());
        capture.finish(&[4.0, 5.0, 6.0], &[[2, 3]; 3], 3, 0..3, Duration::ZERO);
        assert_eq!(capture.solutions(), &[vec![1.0, 2.0], vec![4.0, 5.0, 6.0]]);
        assert_eq!(
            capture.row_bodies()[0],
            vec![[Some(0), None], [Some(1), Some(0)]]
        );
        assert_eq!(capture.times()[0], Duration::from_micros(5));
        assert_eq!(capture.row_origins(), &[vec![4, 7], vec![0, 1, 2]]);
        // The next step forgets the old outcomes until they are recorded again.
        capture.begin_step();
        capture.record(0, &problem(2, 1.0));
        assert_eq!(capture.solutions(), &[Vec::<f64>::new()]);
    }
}
