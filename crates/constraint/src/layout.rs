//! Where each constraint force sits in the packed force vector.

use std::ops::Range;

use crate::dense::check_len;
use crate::error::ConstraintError;

/// The layout of a packed constraint-force vector `cf` (Drake's storage), in this order:
///
/// 1. `nc` normal forces, one per contact;
/// 2. friction forces, `r_i` per contact `i` in contact order: the signed force along each
///    of the contact's spanning directions (the positive half; the LCP's forces along `d`
///    and `-d` are combined as `f_d - f_{-d}`). Contacts with `r_i = 0`, which includes
///    every sliding contact of an acceleration-level problem, have none;
/// 3. `nl` generic unilateral forces;
/// 4. `nb` bilateral forces.
///
/// Velocity-level impact problems give impulses (N s) in this layout; acceleration-level and
/// time-discretised problems give forces (N).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedLayout {
    /// `friction_offsets[i]..friction_offsets[i + 1]` are contact `i`'s friction entries,
    /// counted from the start of the friction block.
    friction_offsets: Vec<usize>,
    unilateral: usize,
    bilateral: usize,
}

impl PackedLayout {
    /// A layout for contacts with the given numbers of spanning directions, `nl` generic
    /// unilateral and `nb` bilateral constraints.
    pub fn new(spanning_directions: &[usize], unilateral: usize, bilateral: usize) -> Self {
        let mut friction_offsets = Vec::with_capacity(spanning_directions.len() + 1);
        let mut total = 0;
        friction_offsets.push(0);
        for &r in spanning_directions {
            total += r;
            friction_offsets.push(total);
        }
        Self {
            friction_offsets,
            unilateral,
            bilateral,
        }
    }

    /// Number of contacts `nc`.
    #[inline]
    pub fn contacts(&self) -> usize {
        self.friction_offsets.len() - 1
    }

    /// Total number of friction entries, `sum r_i`.
    #[inline]
    pub fn friction_len(&self) -> usize {
        self.friction_offsets[self.contacts()]
    }

    /// Number of generic unilateral constraints `nl`.
    #[inline]
    pub fn unilateral_len(&self) -> usize {
        self.unilateral
    }

    /// Number of bilateral constraints `nb`.
    #[inline]
    pub fn bilateral_len(&self) -> usize {
        self.bilateral
    }

    /// Length of the packed vector.
    #[inline]
    pub fn len(&self) -> usize {
        self.contacts() + self.friction_len() + self.unilateral + self.bilateral
    }

    /// Whether the packed vector is empty (no constraints at all).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Indices of the normal forces.
    pub fn normal_range(&self) -> Range<usize> {
        0..self.contacts()
    }

    /// Indices of all friction forces.
    pub fn friction_range(&self) -> Range<usize> {
        let start = self.contacts();
        start..start + self.friction_len()
    }

    /// Indices of contact `i`'s friction forces (empty if it has none). Panics if
    /// `i >= contacts()`.
    pub fn contact_friction_range(&self, i: usize) -> Range<usize> {
        let start = self.contacts();
        start + self.friction_offsets[i]..start + self.friction_offsets[i + 1]
    }

    /// Indices of the generic unilateral forces.
    pub fn unilateral_range(&self) -> Range<usize> {
        let start = self.contacts() + self.friction_len();
        start..start + self.unilateral
    }

    /// Indices of the bilateral forces.
    pub fn bilateral_range(&self) -> Range<usize> {
        let start = self.contacts() + self.friction_len() + self.unilateral;
        start..start + self.bilateral
    }

    /// Checks that `cf` has this layout's length.
    ///
    /// # Errors
    /// [`ConstraintError::LengthMismatch`] naming `cf`.
    pub fn check(&self, cf: &[f64]) -> Result<(), ConstraintError> {
        check_len("cf", self.len(), cf.len())
    }

    /// The normal forces of `cf` (which must have this layout).
    pub fn normal<'a>(&self, cf: &'a [f64]) -> &'a [f64] {
        &cf[self.normal_range()]
    }

    /// All friction forces of `cf`.
    pub fn friction<'a>(&self, cf: &'a [f64]) -> &'a [f64] {
        &cf[self.friction_range()]
    }

    /// Contact `i`'s friction forces of `cf`.
    pub fn contact_friction<'a>(&self, cf: &'a [f64], i: usize) -> &'a [f64] {
        &cf[self.contact_friction_range(i)]
    }

    /// The generic unilateral forces of `cf`.
    pub fn unilateral<'a>(&self, cf: &'a [f64]) -> &'a [f64] {
        &cf[self.unilateral_range()]
    }

    /// The bilateral forces of `cf`.
    pub fn bilateral<'a>(&self, cf: &'a [f64]) -> &'a [f64] {
        &cf[self.bilateral_range()]
    }
}
