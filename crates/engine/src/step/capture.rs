//! Copies of the dense LCPs the exact stepper assembles, for export and solver comparisons
//! ([`crate::World::set_capture_problems`]).
//!
//! Off by default: the stepper then pays one branch per island. When on, each step starts
//! by forgetting the previous step's problems and then keeps a copy of every island problem
//! as assembled, before the solver sees it. The copies reuse their allocations from step to
//! step while the islands keep their sizes.

use stiction_lcp::{BoxedLcp, DenseMatrix};

/// The problems captured during the last step, in island order.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProblemCapture {
    enabled: bool,
    /// Copies made so far this step; `slots[len..]` are kept only for their allocations.
    len: usize,
    slots: Vec<BoxedLcp>,
    islands: Vec<usize>,
}

impl ProblemCapture {
    /// Turns capturing on or off; off also forgets what was captured.
    pub(crate) fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
        if !enabled {
            self.len = 0;
            self.slots = Vec::new();
            self.islands = Vec::new();
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
}
