//! The index-set rules of the active-set iteration: where each row should go given its
//! force `x` and slack `w = A x - b`, and the safeguard that keeps block moves from
//! cycling.
//!
//! A row is in one of Dantzig's sets ([`IndexState`]): `Clamped` (`w = 0`, `x` solved
//! for), `AtLower` (`x = lo`, needs `w >= 0`) or `AtUpper` (`x = hi`, needs `w <= 0`).
//! A clamped row whose force left its box goes to the bound it crossed; a bound row whose
//! slack has the wrong sign is released. Moving every violating row at once is the
//! primal-dual active-set method (a semismooth Newton step on the natural map), which
//! finishes in a few iterations from a good guess but may cycle on a general positive
//! definite matrix. Júdice and Pires' safeguard: count the violating rows; while the count
//! keeps reaching new lows, move them all; after a few iterations without a new low, move
//! only the lowest-numbered violating row (Murty's rule, finite for a boxed LCP with fixed
//! bounds and a P-matrix, which `A = J M^-1 J^T + R`, `R > 0`, always is) until a new low
//! is reached. Friction bounds that move with the normal forces void that guarantee, so
//! the caller stops where single moves would start and hands over to its semismooth
//! Newton steps.

use stiction_lcp::IndexState;

/// Block moves allowed without a new lowest violation count before single moves start.
const BLOCK_MOVES_WITHOUT_PROGRESS: usize = 3;

/// A usable starting set for a row with bounds `(lo, hi)`: a bound state on an infinite
/// bound becomes `Clamped`.
pub(crate) fn admissible(state: IndexState, lo: f64, hi: f64) -> IndexState {
    match state {
        IndexState::AtLower if !lo.is_finite() => IndexState::Clamped,
        IndexState::AtUpper if !hi.is_finite() => IndexState::Clamped,
        other => other,
    }
}

/// Where a row in `state` with force `x`, slack `w` and bounds `(lo, hi)` should go, or
/// `None` if it satisfies its set's conditions to the tolerances `eps_x` (force) and
/// `eps_w` (slack).
#[inline]
pub(crate) fn wanted(
    state: IndexState,
    x: f64,
    w: f64,
    (lo, hi): (f64, f64),
    eps_x: f64,
    eps_w: f64,
) -> Option<IndexState> {
    match state {
        IndexState::Clamped if x < lo - eps_x => Some(IndexState::AtLower),
        IndexState::Clamped if x > hi + eps_x => Some(IndexState::AtUpper),
        // A box of zero width (friction without normal force) accepts any slack.
        IndexState::AtLower | IndexState::AtUpper if hi <= lo => None,
        IndexState::AtLower if w < -eps_w => Some(IndexState::Clamped),
        IndexState::AtUpper if w > eps_w => Some(IndexState::Clamped),
        _ => None,
    }
}

/// How many violating rows the next iteration moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Moves {
    /// Every violating row.
    All,
    /// Only the lowest-numbered one.
    First,
}

/// Júdice and Pires' counter of iterations without a new lowest violation count.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Safeguard {
    lowest: usize,
    without_progress: usize,
}

impl Safeguard {
    /// A fresh safeguard (no count seen yet).
    pub(crate) fn new() -> Self {
        Self {
            lowest: usize::MAX,
            without_progress: 0,
        }
    }

    /// The moves to make now that `violations` rows violate their sets.
    pub(crate) fn moves(&mut self, violations: usize) -> Moves {
        if violations < self.lowest {
            self.lowest = violations;
            self.without_progress = 0;
            return Moves::All;
        }
        self.without_progress += 1;
        if self.without_progress <= BLOCK_MOVES_WITHOUT_PROGRESS {
            Moves::All
        } else {
            Moves::First
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use IndexState::*;

    #[test]
    fn rows_move_to_the_bound_they_cross_or_are_released() {
        let b = (-1.0, 2.0);
        assert_eq!(wanted(Clamped, 0.5, 7.0, b, 1e-9, 1e-9), None);
        assert_eq!(wanted(Clamped, -1.1, 0.0, b, 1e-9, 1e-9), Some(AtLower));
        assert_eq!(wanted(Clamped, 2.1, 0.0, b, 1e-9, 1e-9), Some(AtUpper));
        assert_eq!(wanted(AtLower, -1.0, 0.3, b, 1e-9, 1e-9), None);
        assert_eq!(wanted(AtLower, -1.0, -0.3, b, 1e-9, 1e-9), Some(Clamped));
        assert_eq!(wanted(AtUpper, 2.0, -0.3, b, 1e-9, 1e-9), None);
        assert_eq!(wanted(AtUpper, 2.0, 0.3, b, 1e-9, 1e-9), Some(Clamped));
        // Within tolerance: no move.
        assert_eq!(wanted(AtLower, -1.0, -1e-12, b, 1e-9, 1e-9), None);
        // Friction without normal force stays pinned whatever its slack.
        assert_eq!(wanted(AtLower, 0.0, -5.0, (0.0, 0.0), 1e-9, 1e-9), None);
    }

    #[test]
    fn bound_states_on_infinite_bounds_start_clamped() {
        assert_eq!(admissible(AtLower, f64::NEG_INFINITY, 1.0), Clamped);
        assert_eq!(admissible(AtUpper, 0.0, f64::INFINITY), Clamped);
        assert_eq!(admissible(AtLower, 0.0, f64::INFINITY), AtLower);
    }

    #[test]
    fn single_moves_start_after_block_moves_stop_making_progress() {
        let mut s = Safeguard::new();
        assert_eq!(s.moves(10), Moves::All);
        assert_eq!(s.moves(6), Moves::All);
        for _ in 0..BLOCK_MOVES_WITHOUT_PROGRESS {
            assert_eq!(s.moves(8), Moves::All);
        }
        assert_eq!(s.moves(7), Moves::First);
        assert_eq!(s.moves(5), Moves::All);
    }
}
