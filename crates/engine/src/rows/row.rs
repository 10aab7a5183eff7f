//! The flat row storage (struct of arrays) and the writer producers fill it through.
//!
//! Storage is per world and reused every step: clearing keeps the capacity, so a world whose
//! row count does not grow allocates nothing here. Each row holds its two body slots, a
//! 2 x 6 Jacobian, the position error `C`, a target velocity, ERP, CFM, force bounds, an
//! optional friction index and a warm start; the solve writes the force `lambda` back.

use crate::math::Vec3;
use crate::rows::{Pose, Softness};
use stiction_lcp::IndexState;

/// One Jacobian row: the derivative of a scalar constraint with respect to the velocities of
/// its two bodies, `dC/dt = linear_a . v_a + angular_a . w_a + linear_b . v_b + angular_b . w_b`
/// (world frame; units of `C` per m or per rad).
/// `#[repr(C)]`: the solver's lane lay-out reads a row as twelve contiguous numbers.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[repr(C)]
pub struct JacobianRow {
    /// Coefficient of body A's linear velocity.
    pub linear_a: Vec3,
    /// Coefficient of body A's angular velocity.
    pub angular_a: Vec3,
    /// Coefficient of body B's linear velocity.
    pub linear_b: Vec3,
    /// Coefficient of body B's angular velocity.
    pub angular_b: Vec3,
}

impl JacobianRow {
    /// `J u` for the velocities `(v_a, w_a)` and `(v_b, w_b)`.
    #[inline]
    pub fn velocity(&self, v_a: Vec3, w_a: Vec3, v_b: Vec3, w_b: Vec3) -> f64 {
        self.linear_a.dot(v_a)
            + self.angular_a.dot(w_a)
            + self.linear_b.dot(v_b)
            + self.angular_b.dot(w_b)
    }

    /// The sum of the twelve coefficients: non-finite if any coefficient is (opposite
    /// infinities give NaN), so one test checks them all without a branch per value.
    #[inline]
    pub(crate) fn sum(&self) -> f64 {
        let v = (self.linear_a + self.angular_a) + (self.linear_b + self.angular_b);
        v.x + v.y + v.z
    }

    /// Whether every coefficient is finite.
    pub fn is_finite(&self) -> bool {
        self.linear_a.is_finite()
            && self.angular_a.is_finite()
            && self.linear_b.is_finite()
            && self.angular_b.is_finite()
    }
}

/// The description of one row, as a producer writes it.
///
/// Start from [`Row::equality`] (a bilateral row) and adjust with the builder methods.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// `dC/dt = J u`.
    pub jacobian: JacobianRow,
    /// The position error `C` now (m or rad); the velocity solve removes `erp * C` of it per
    /// step and post-stabilisation the rest.
    pub error: f64,
    /// A velocity `J u` the row drives towards besides correcting `C` (m/s or rad/s): a
    /// motor's speed, a contact's bounce. Default 0.
    pub target_velocity: f64,
    /// Lower force bound (N or N m), `<= 0`, may be `-inf`.
    pub lo: f64,
    /// Upper force bound, `>= 0`, may be `+inf`; for a friction row the coefficient `mu`.
    pub hi: f64,
    /// For a friction row: the index (among this producer's rows, as returned by
    /// [`RowWriter::push`]) of the normal row whose force bounds it, `|lambda| <= hi * lambda_n`.
    pub friction_of: Option<usize>,
    /// ERP and CFM of this row; `None` takes the producer's default
    /// ([`RowWriter::softness`]).
    pub softness: Option<Softness>,
    /// Whether post-stabilisation projects this row's `C` to zero after the step. True for
    /// geometric rows; false for motors, friction and soft (spring) rows.
    pub stabilize: bool,
}

impl Row {
    /// A bilateral row keeping `C = 0` with an unbounded force, stabilised after the step.
    pub fn equality(jacobian: JacobianRow, error: f64) -> Self {
        Self {
            jacobian,
            error,
            target_velocity: 0.0,
            lo: f64::NEG_INFINITY,
            hi: f64::INFINITY,
            friction_of: None,
            softness: None,
            stabilize: true,
        }
    }

    /// Bounds the force to `[lo, hi]` (`lo <= 0 <= hi`; a limit uses `[0, inf)`).
    pub fn bounded(mut self, lo: f64, hi: f64) -> Self {
        self.lo = lo;
        self.hi = hi;
        self
    }

    /// Drives `J u` towards `velocity` (on top of the error correction).
    pub fn target_velocity(mut self, velocity: f64) -> Self {
        self.target_velocity = velocity;
        self
    }

    /// Gives this row its own ERP and CFM.
    pub fn softness(mut self, softness: Softness) -> Self {
        self.softness = Some(softness);
        self
    }

    /// Keeps post-stabilisation off this row.
    pub fn unstabilized(mut self) -> Self {
        self.stabilize = false;
        self
    }

    /// Makes this a friction row bounded by `mu` times the force of normal row `normal`.
    pub fn friction(mut self, normal: usize, mu: f64) -> Self {
        self.friction_of = Some(normal);
        self.lo = -mu;
        self.hi = mu;
        self.stabilize = false;
        self
    }

    /// Whether the force is unbounded both ways (a row Dantzig puts among the first `nub`).
    pub fn is_unbounded(&self) -> bool {
        self.friction_of.is_none() && self.lo == f64::NEG_INFINITY && self.hi == f64::INFINITY
    }
}

/// All rows of one step as flat arrays, indexed by row.
///
/// Body entries are solver slots: a body's slot index, or the world's ground slot (a body of
/// zero inverse mass and zero velocity) for a constraint attached to the static world.
#[derive(Debug, Clone, Default)]
pub struct RowStorage {
    pub(crate) bodies: Vec<[u32; 2]>,
    pub(crate) jacobian: Vec<JacobianRow>,
    pub(crate) error: Vec<f64>,
    pub(crate) target_velocity: Vec<f64>,
    pub(crate) erp: Vec<f64>,
    pub(crate) cfm: Vec<f64>,
    pub(crate) lo: Vec<f64>,
    pub(crate) hi: Vec<f64>,
    /// Absolute row index of the normal row (in this storage) for friction rows.
    pub(crate) findex: Vec<Option<usize>>,
    pub(crate) stabilize: Vec<bool>,
    /// Force to start an iterative solve from (N), from the producer's last step.
    pub(crate) warm_lambda: Vec<f64>,
    /// Dantzig's index set for this row last step, if the producer kept it.
    pub(crate) warm_state: Vec<Option<IndexState>>,
    /// The force found by the solve (N or N m).
    pub(crate) lambda: Vec<f64>,
}

impl RowStorage {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    /// Removes every row, keeping the capacity.
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// Appends `rows` empty rows (zero Jacobians, forces and warm starts, no friction
    /// index) for a producer that fills them by index through [`Self::columns`]; returns
    /// the first one's index. Contacts write their rows this way: one pass over the
    /// points, each array grown once, instead of thirteen checked pushes per row.
    pub(crate) fn grow(&mut self, rows: usize) -> usize {
        let first = self.len();
        self.resize_for_overwrite(first + rows);
        first
    }

    /// Every column but the forces, each cut to the number of rows, for a producer that
    /// writes many rows by index ([`RowColumns`]).
    #[inline(always)]
    pub(crate) fn columns(&mut self) -> RowColumns<'_> {
        let n = self.len();
        RowColumns {
            bodies: &mut self.bodies[..n],
            jacobian: &mut self.jacobian[..n],
            error: &mut self.error[..n],
            target_velocity: &mut self.target_velocity[..n],
            erp: &mut self.erp[..n],
            cfm: &mut self.cfm[..n],
            lo: &mut self.lo[..n],
            hi: &mut self.hi[..n],
            findex: &mut self.findex[..n],
            stabilize: &mut self.stabilize[..n],
            warm_lambda: &mut self.warm_lambda[..n],
            warm_state: &mut self.warm_state[..n],
        }
    }

    /// The columns of one number per row (all but bodies, Jacobians, friction indices,
    /// stabilisation flags and index sets).
    fn number_columns(&mut self) -> [&mut Vec<f64>; 8] {
        [
            &mut self.error,
            &mut self.target_velocity,
            &mut self.erp,
            &mut self.cfm,
            &mut self.lo,
            &mut self.hi,
            &mut self.warm_lambda,
            &mut self.lambda,
        ]
    }

    /// Keeps the first `len` rows.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.bodies.truncate(len);
        self.jacobian.truncate(len);
        for column in self.number_columns() {
            column.truncate(len);
        }
        self.findex.truncate(len);
        self.stabilize.truncate(len);
        self.warm_state.truncate(len);
    }

    /// A writer appending the rows of one producer acting on body slots `bodies` at `poses`,
    /// with `softness` for rows that do not set their own. With `positional_only`, rows not
    /// marked [`Row::stabilize`] are dropped (the post-stabilisation pass).
    pub(crate) fn writer(
        &mut self,
        bodies: [u32; 2],
        poses: [Pose; 2],
        softness: Softness,
        positional_only: bool,
    ) -> RowWriter<'_> {
        let first = self.len();
        RowWriter {
            storage: self,
            bodies,
            poses,
            softness,
            first,
            positional_only,
            errors_only: false,
            described: 0,
            motion: None,
        }
    }

    /// The force on each of the row's bodies' velocity coordinates: `J_i^T lambda_i`, split
    /// into (force on A, torque on A, force on B, torque on B).
    pub(crate) fn generalized_force(&self, i: usize) -> [Vec3; 4] {
        let (j, l) = (&self.jacobian[i], self.lambda[i]);
        [
            j.linear_a * l,
            j.angular_a * l,
            j.linear_b * l,
            j.angular_b * l,
        ]
    }

    /// Appends rows `order` of `other` in that order (every row in its own order for
    /// `None`), with `findex` (one friction index per appended row). Column by column: one
    /// tight gather per array (islands reorder every row each step, and thirteen pushes per
    /// row cost twice as much), or one slice copy per array without an order (a chain's one
    /// island in producer order; docs/performance.md#lent-rows).
    #[inline(always)]
    pub(crate) fn extend_from_rows(
        &mut self,
        other: &RowStorage,
        order: Option<&[u32]>,
        findex: impl IntoIterator<Item = Option<usize>>,
    ) {
        fn gather<T: Copy>(to: &mut Vec<T>, from: &[T], order: Option<&[u32]>) {
            match order {
                Some(order) => to.extend(order.iter().map(|&r| from[r as usize])),
                None => to.extend_from_slice(from),
            }
        }
        gather(&mut self.bodies, &other.bodies, order);
        gather(&mut self.jacobian, &other.jacobian, order);
        gather(&mut self.error, &other.error, order);
        gather(&mut self.target_velocity, &other.target_velocity, order);
        gather(&mut self.erp, &other.erp, order);
        gather(&mut self.cfm, &other.cfm, order);
        gather(&mut self.lo, &other.lo, order);
        gather(&mut self.hi, &other.hi, order);
        self.findex.extend(findex);
        gather(&mut self.stabilize, &other.stabilize, order);
        gather(&mut self.warm_lambda, &other.warm_lambda, order);
        gather(&mut self.warm_state, &other.warm_state, order);
        gather(&mut self.lambda, &other.lambda, order);
        debug_assert_eq!(self.findex.len(), self.bodies.len());
    }

    /// Sizes every column to `len` rows without clearing them: what was there stays (or is
    /// zero past the old length), for a caller that writes every value of every row
    /// ([`crate::solver::island::Islands::place_written`]). A resting scene's rows then
    /// cost no fill a step, only their writes.
    pub(crate) fn resize_for_overwrite(&mut self, len: usize) {
        self.bodies.resize(len, [0; 2]);
        self.jacobian.resize(len, JacobianRow::default());
        for column in self.number_columns() {
            column.resize(len, 0.0);
        }
        self.findex.resize(len, None);
        self.stabilize.resize(len, false);
        self.warm_state.resize(len, None);
    }

    /// Copies every value of row `from` of `other` but its friction index into row `to`.
    pub(crate) fn copy_row(&mut self, to: usize, other: &RowStorage, from: usize) {
        self.bodies[to] = other.bodies[from];
        self.jacobian[to] = other.jacobian[from];
        self.error[to] = other.error[from];
        self.target_velocity[to] = other.target_velocity[from];
        self.erp[to] = other.erp[from];
        self.cfm[to] = other.cfm[from];
        self.lo[to] = other.lo[from];
        self.hi[to] = other.hi[from];
        self.stabilize[to] = other.stabilize[from];
        self.warm_lambda[to] = other.warm_lambda[from];
        self.warm_state[to] = other.warm_state[from];
        self.lambda[to] = other.lambda[from];
    }

    /// Whether row `i`'s force is unbounded both ways.
    #[inline]
    pub(crate) fn is_unbounded(&self, i: usize) -> bool {
        self.findex[i].is_none() && self.lo[i] == f64::NEG_INFINITY && self.hi[i] == f64::INFINITY
    }

    /// Whether every number of every row that the solver reads is usable ([`Self::is_finite`]
    /// of all rows), column by column with non-short-circuiting `&` (no branch per value,
    /// no chain of dependent additions, which a row-by-row check had). A row's twelve
    /// Jacobian entries are summed first (a non-finite entry makes the sum non-finite,
    /// opposite infinities give NaN); a finite row whose sum overflows makes this answer
    /// `false`, and the caller's row-by-row search then finds no culprit.
    pub(crate) fn all_finite(&self) -> bool {
        let jacobians = self
            .jacobian
            .iter()
            .fold(true, |ok, j| ok & j.sum().is_finite());
        let finite = |column: &[f64]| column.iter().fold(true, |ok, v| ok & v.is_finite());
        let not_nan = |column: &[f64]| column.iter().fold(true, |ok, v| ok & !v.is_nan());
        // Bounds may be infinite, only not NaN.
        jacobians
            & finite(&self.error)
            & finite(&self.target_velocity)
            & not_nan(&self.lo)
            & not_nan(&self.hi)
    }

    /// Whether every number of row `i` that the solver reads is usable.
    pub(crate) fn is_finite(&self, i: usize) -> bool {
        self.jacobian[i].is_finite()
            && self.error[i].is_finite()
            && self.target_velocity[i].is_finite()
            && !self.lo[i].is_nan()
            && !self.hi[i].is_nan()
    }
}

/// The columns of a [`RowStorage`] (but its forces), all cut to the same length: a row
/// written by index is then bounds-checked once rather than once a column (S1's contacts
/// write 7,080 rows a step, a dozen columns each).
pub(crate) struct RowColumns<'a> {
    bodies: &'a mut [[u32; 2]],
    jacobian: &'a mut [JacobianRow],
    error: &'a mut [f64],
    target_velocity: &'a mut [f64],
    erp: &'a mut [f64],
    cfm: &'a mut [f64],
    lo: &'a mut [f64],
    hi: &'a mut [f64],
    findex: &'a mut [Option<usize>],
    stabilize: &'a mut [bool],
    warm_lambda: &'a mut [f64],
    warm_state: &'a mut [Option<IndexState>],
}

impl RowColumns<'_> {
    /// Writes `row` of bodies `bodies` at index `i`, with `softness` unless the row sets
    /// its own; the friction index and warm start are left as they are.
    #[inline(always)]
    pub(crate) fn set_values(&mut self, i: usize, bodies: [u32; 2], row: &Row, softness: Softness) {
        let softness = row.softness.unwrap_or(softness);
        self.bodies[i] = bodies;
        self.jacobian[i] = row.jacobian;
        self.error[i] = row.error;
        self.target_velocity[i] = row.target_velocity;
        self.erp[i] = softness.erp;
        self.cfm[i] = softness.cfm;
        self.lo[i] = row.lo;
        self.hi[i] = row.hi;
        self.stabilize[i] = row.stabilize;
    }

    /// Sets row `i`'s friction index (absolute).
    #[inline(always)]
    pub(crate) fn set_findex(&mut self, i: usize, findex: Option<usize>) {
        self.findex[i] = findex;
    }

    /// Sets row `i`'s warm start: its force and, if known, its index set.
    #[inline(always)]
    pub(crate) fn set_warm(&mut self, i: usize, lambda: f64, state: Option<IndexState>) {
        self.warm_lambda[i] = lambda;
        self.warm_state[i] = state;
    }

    /// Sets row `i`'s warm-start index set only.
    #[inline(always)]
    pub(crate) fn set_warm_state(&mut self, i: usize, state: Option<IndexState>) {
        self.warm_state[i] = state;
    }
}

/// A sorted position of a row that touches no dynamic body: it is dropped, and its force
/// is zero.
pub(crate) const DROPPED: u32 = u32::MAX;

/// Where producer row `raw` is stored: at `raw` itself without a `position` map (rows in
/// producer order), else at `position[raw]`, `None` if it is [`DROPPED`].
#[inline(always)]
pub(crate) fn stored_at(position: Option<&[u32]>, raw: usize) -> Option<usize> {
    match position {
        None => Some(raw),
        Some(position) => {
            let i = position[raw];
            (i != DROPPED).then_some(i as usize)
        }
    }
}

/// What the islands and the row order depend on, per row in producer order: its two body
/// slots, its friction index (producer order) and whether its force is unbounded both ways.
/// Producers that know their rows' shapes before writing them (contacts) describe them
/// here, so that the islands can be found first and the rows written straight into island
/// order (docs/performance.md#rows-written-in-island-order).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct RowShapes {
    pub(crate) bodies: Vec<[u32; 2]>,
    pub(crate) findex: Vec<Option<usize>>,
    pub(crate) unbounded: Vec<bool>,
}

impl RowShapes {
    /// Number of rows.
    pub(crate) fn len(&self) -> usize {
        self.bodies.len()
    }

    /// Removes every row, keeping the capacity.
    pub(crate) fn clear(&mut self) {
        self.bodies.clear();
        self.findex.clear();
        self.unbounded.clear();
    }

    /// Appends one row's shape.
    #[inline]
    pub(crate) fn push(&mut self, bodies: [u32; 2], findex: Option<usize>, unbounded: bool) {
        self.bodies.push(bodies);
        self.findex.push(findex);
        self.unbounded.push(unbounded);
    }

    /// Appends the shapes of every row of `rows`.
    pub(crate) fn extend_from_rows(&mut self, rows: &RowStorage) {
        self.bodies.extend_from_slice(&rows.bodies);
        self.findex.extend_from_slice(&rows.findex);
        self.unbounded
            .extend((0..rows.len()).map(|r| rows.is_unbounded(r)));
    }

    /// Whether the first `rows.len()` shapes are exactly `rows`' (more may follow).
    pub(crate) fn starts_with_rows(&self, rows: &RowStorage) -> bool {
        let n = rows.len();
        n <= self.len()
            && self.bodies[..n] == rows.bodies[..]
            && self.findex[..n] == rows.findex[..]
            && self.unbounded[..n]
                .iter()
                .enumerate()
                .all(|(r, &u)| u == rows.is_unbounded(r))
    }

    /// Whether `rows` have exactly these shapes.
    pub(crate) fn describe(&self, rows: &RowStorage) -> bool {
        self.len() == rows.len() && self.starts_with_rows(rows)
    }
}

/// The solved forces and index sets of a step's rows, read by producer index: from the
/// storage itself when it is in producer order, else through each row's sorted position.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SolvedRows<'a> {
    storage: &'a RowStorage,
    position: Option<&'a [u32]>,
}

impl<'a> SolvedRows<'a> {
    /// Rows in producer order.
    pub(crate) fn in_order(storage: &'a RowStorage) -> Self {
        Self {
            storage,
            position: None,
        }
    }

    /// Rows in island order, producer row `r` at `position[r]` ([`DROPPED`]: not solved).
    pub(crate) fn placed(storage: &'a RowStorage, position: &'a [u32]) -> Self {
        Self {
            storage,
            position: Some(position),
        }
    }

    /// The force of producer row `raw` and the index set the solve left for it (zero and
    /// none for a dropped row), its place looked up once.
    #[inline(always)]
    pub(crate) fn force_and_state(&self, raw: usize) -> (f64, Option<IndexState>) {
        stored_at(self.position, raw).map_or((0.0, None), |i| {
            (self.storage.lambda[i], self.storage.warm_state[i])
        })
    }
}

/// Appends one producer's rows (a joint's, a contact's) to the step's [`RowStorage`].
///
/// The writer knows the two bodies and their poses, so shared parts
/// ([`crate::rows::parts`]) can compute lever arms from world anchors.
pub struct RowWriter<'a> {
    storage: &'a mut RowStorage,
    bodies: [u32; 2],
    poses: [Pose; 2],
    softness: Softness,
    first: usize,
    positional_only: bool,
    errors_only: bool,
    described: usize,
    motion: Option<RowMotion>,
}

/// Which rows a producer's writer keeps, and which of their columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowPass {
    /// Every row, every column: the velocity solve.
    Velocity,
    /// Every row, with only the columns of [`RowWriter::errors_only`]: the curvature
    /// pass's look-ahead, which reads the errors one step ahead.
    VelocityErrors,
    /// Only rows marked [`Row::stabilize`], every column: a post-stabilisation pass that
    /// builds and factors `J M^-1 J^T`.
    Position,
    /// The rows of [`RowPass::Position`] with only the columns of
    /// [`RowWriter::errors_only`].
    PositionErrors,
}

impl RowPass {
    /// Whether only rows marked [`Row::stabilize`] are kept.
    pub(crate) fn positional(self) -> bool {
        matches!(self, Self::Position | Self::PositionErrors)
    }

    /// Whether only the rows' bodies, errors, bounds and stabilise flags are kept.
    pub(crate) fn errors_only(self) -> bool {
        matches!(self, Self::VelocityErrors | Self::PositionErrors)
    }
}

/// What a velocity pass knows about the motion of a producer's two bodies: their velocities
/// after external forces and before constraint forces (the `u*` of the step, world frame;
/// zero for the static world) and the step `h`. Limits use it to see a limit coming and to
/// bounce, springs to turn stiffness into ERP/CFM.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowMotion {
    /// Linear velocity of A's centre of mass, m/s.
    pub linear_a: Vec3,
    /// Angular velocity of A, rad/s.
    pub angular_a: Vec3,
    /// Linear velocity of B's centre of mass, m/s.
    pub linear_b: Vec3,
    /// Angular velocity of B, rad/s.
    pub angular_b: Vec3,
    /// The step, s.
    pub h: f64,
}

impl RowMotion {
    /// `J u*` for a row of these bodies: the rate at which its `C` changes now.
    pub fn rate(&self, jacobian: &JacobianRow) -> f64 {
        jacobian.velocity(self.linear_a, self.angular_a, self.linear_b, self.angular_b)
    }
}

impl RowWriter<'_> {
    /// Pose of body A.
    pub fn pose_a(&self) -> &Pose {
        &self.poses[0]
    }

    /// Pose of body B ([`Pose::IDENTITY`] for the static world).
    pub fn pose_b(&self) -> &Pose {
        &self.poses[1]
    }

    /// The ERP and CFM rows get unless they set their own: the producer's override, else
    /// the world's.
    pub fn softness(&self) -> Softness {
        self.softness
    }

    /// The bodies' velocities and the step, in a velocity pass of the world's step; `None`
    /// in the position pass of post-stabilisation (and outside a step), where a producer
    /// should treat the bodies as still.
    pub fn motion(&self) -> Option<&RowMotion> {
        self.motion.as_ref()
    }

    /// Gives the writer its bodies' motion (see [`Self::motion`]).
    pub(crate) fn with_motion(mut self, motion: Option<RowMotion>) -> Self {
        self.motion = motion;
        self
    }

    /// With `on`, [`Self::push`] keeps only each row's bodies, error, bounds and stabilise
    /// flag (the other columns of the storage stay empty): post-stabilisation's passes that
    /// re-read the errors of rows whose Jacobians they keep, and the curvature look-ahead.
    /// Otherwise a ball chain's link writes thirteen columns a row to have three numbers read
    /// (docs/performance.md#hot-per-body-arrays).
    pub(crate) fn errors_only(mut self, on: bool) -> Self {
        self.errors_only = on;
        self
    }

    /// Whether [`Self::push`] keeps only the rows' bodies, errors, bounds and stabilise
    /// flags (a producer may then skip its Jacobians; see [`Self::errors_only`]).
    pub(crate) fn is_errors_only(&self) -> bool {
        self.errors_only
    }

    /// Whether this pass keeps only rows marked [`Row::stabilize`] (post-stabilisation reads
    /// their errors at the corrected poses; the producer need not care).
    pub fn is_positional(&self) -> bool {
        self.positional_only
    }

    /// Appends a row; returns its index among this producer's rows (what
    /// [`Row::friction_of`] refers to). Rows are numbered in the order they are described,
    /// whether or not this pass keeps them.
    pub fn push(&mut self, row: Row) -> usize {
        let index = self.described;
        self.described += 1;
        if self.positional_only && !row.stabilize {
            return index;
        }
        let s = &mut *self.storage;
        if self.errors_only {
            s.bodies.push(self.bodies);
            s.error.push(row.error);
            s.lo.push(row.lo);
            s.hi.push(row.hi);
            s.stabilize.push(row.stabilize);
            return index;
        }
        let softness = row.softness.unwrap_or(self.softness);
        s.bodies.push(self.bodies);
        s.jacobian.push(row.jacobian);
        s.error.push(row.error);
        s.target_velocity.push(row.target_velocity);
        s.erp.push(softness.erp);
        s.cfm.push(softness.cfm);
        s.lo.push(row.lo);
        s.hi.push(row.hi);
        // In a positional pass friction rows are dropped, so indices would not line up.
        let findex = (!self.positional_only)
            .then(|| row.friction_of.map(|k| self.first + k))
            .flatten();
        s.findex.push(findex);
        s.stabilize.push(row.stabilize);
        s.warm_lambda.push(0.0);
        s.warm_state.push(None);
        s.lambda.push(0.0);
        index
    }

    /// Number of rows described so far.
    pub fn rows_described(&self) -> usize {
        self.described
    }

    /// Storage range of the rows this writer has appended.
    pub(crate) fn range(&self) -> std::ops::Range<usize> {
        self.first..self.storage.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three rows of one contact: a normal with bounds `[0, inf)` and two friction rows.
    fn contact_rows() -> RowStorage {
        let mut storage = RowStorage::default();
        let pose = Pose::IDENTITY;
        let softness = Softness {
            erp: 0.2,
            cfm: 1e-5,
        };
        let mut writer = storage.writer([0, 1], [pose, pose], softness, false);
        let jacobian = JacobianRow {
            linear_a: Vec3::Z,
            angular_a: Vec3::X,
            linear_b: -Vec3::Z,
            angular_b: Vec3::Y,
        };
        let normal = writer.push(Row::equality(jacobian, -1e-3).bounded(0.0, f64::INFINITY));
        for _ in 0..2 {
            writer.push(Row::equality(jacobian, 0.0).friction(normal, 0.5));
        }
        storage
    }

    #[test]
    fn copying_every_row_is_the_identity_gather() {
        let mut raw = contact_rows();
        // Every column distinct per row, so a column left out or shifted shows.
        for i in 0..raw.len() {
            let x = i as f64 + 1.0;
            raw.error[i] = -x;
            raw.target_velocity[i] = 2.0 * x;
            raw.erp[i] = 0.1 * x;
            raw.cfm[i] = 1e-6 * x;
            raw.stabilize[i] = i % 2 == 0;
            raw.warm_lambda[i] = 3.0 * x;
            raw.warm_state[i] = (i == 1).then_some(IndexState::Clamped);
            raw.lambda[i] = 4.0 * x;
            raw.bodies[i] = [i as u32, 7];
        }
        let order: Vec<u32> = (0..raw.len() as u32).collect();
        let (mut gathered, mut copied) = (contact_rows(), contact_rows());
        gathered.extend_from_rows(&raw, Some(&order), raw.findex.clone());
        copied.extend_from_rows(&raw, None, raw.findex.clone());
        assert_eq!(copied.len(), 2 * raw.len());
        assert_eq!(copied.bodies, gathered.bodies);
        assert_eq!(copied.jacobian, gathered.jacobian);
        for (a, b) in copied
            .number_columns()
            .into_iter()
            .zip(gathered.number_columns())
        {
            assert_eq!(a, b);
        }
        assert_eq!(copied.findex, gathered.findex);
        assert_eq!(copied.stabilize, gathered.stabilize);
        assert_eq!(copied.warm_state, gathered.warm_state);
    }

    #[test]
    fn all_finite_agrees_with_the_row_by_row_check() {
        let clean = contact_rows();
        assert!(clean.all_finite(), "infinite bounds are usable");
        let rows_finite = |s: &RowStorage| (0..s.len()).all(|i| s.is_finite(i));
        assert!(rows_finite(&clean));
        let damaged: [fn(&mut RowStorage); 6] = [
            |s| s.jacobian[1].angular_b.y = f64::INFINITY,
            |s| s.jacobian[2].linear_a.x = f64::NAN,
            |s| s.error[0] = f64::NEG_INFINITY,
            |s| s.target_velocity[2] = f64::NAN,
            |s| s.lo[1] = f64::NAN,
            |s| s.hi[0] = f64::NAN,
        ];
        for (k, damage) in damaged.iter().enumerate() {
            let mut rows = clean.clone();
            damage(&mut rows);
            assert!(!rows.all_finite(), "damage {k} not seen");
            assert!(!rows_finite(&rows), "damage {k}");
        }
    }
}
