//! Position-level post-stabilisation (Cline and Pai, "Post-stabilization for rigid body
//! simulation with contact and constraints", ICRA 2003; Box2D's position iterations).
//!
//! After the velocity step has moved the bodies to their new poses, the stabilised rows'
//! errors `C` are read again at those poses and the smallest mass-weighted displacement
//! that removes them to first order is applied:
//!
//! ```text
//! minimise  d^T M d / 2   subject to   C + J d = 0
//! =>  d = M^-1 J^T mu,    (J M^-1 J^T) mu = -C
//! ```
//!
//! then `x += d_lin`, `q = cay(d_ang) q`. That is one Newton step of projecting the poses
//! onto the constraint manifold; passes repeat until every `|C|` is below tolerance.
//! Velocities are not touched, so no energy is injected (ERP's drawback). One-sided rows
//! (limits, contacts) keep their sign: `mu` is bounded like their force, so a penetration is
//! pushed out but a separated contact never pulled in.

mod active_set;

use crate::contact::rows::{write_positional_rows, PositionalContact, CENTRAL_CONTACT_TOLERANCE};
use crate::contact::ContactPoint;
use crate::diagnostics::{PostStabilizationStats, StepPhase};
use crate::error::WorldError;
use crate::handles::Arena;
use crate::joint::points::FixedRows;
use crate::joint::points::PointJoints;
use crate::joint::Joint;
use crate::math::{turn_by_cayley, Mat3, Vec3};
use crate::rows::hot::{HotBodies, Pair};
use crate::rows::{JacobianRow, Pose, RowPass, RowStorage, Softness};
use crate::solver::envelope::{EnvelopeBuilder, EnvelopeRows, Skyline};
use crate::solver::island::Islands;
use crate::solver::sparse::{scatter, InverseMasses, LaneBlocks, RowMass, SparseOperator};
pub mod settings;
use crate::handles::JointHandle;
use active_set::{ActiveSet, Island, Outcome};
pub use settings::{PostStabilization, PostStabilizationMethod};
use stiction_lcp::pgs::{pgs_sweeps, PgsOptions, PgsScratch};

/// Sweeps of projected Gauss-Seidel for islands the direct method cannot take: the most a
/// pass spends, reached only if [`SWEEP_TOLERANCE`] is not met first. A resting pile's
/// coupled contacts reach the cap in nearly every pass, and the CFM's yield brings the next
/// pass within a step or two whatever a pass leaves, so fewer sweeps mean smaller, more
/// frequent passes with the same depths; fewer than 12 let a pyramid creep sideways over
/// long runs (docs/performance.md#post-stabilisation-cost).
const ONE_SIDED_SWEEPS: usize = 12;
/// A pass's Gauss-Seidel sweeps stop once the largest change of any row's `mu` in one sweep
/// is at most this fraction of the largest `|mu|` (dimensionless). `mu` solves
/// `(J M^-1 J^T) mu = -C`, so it scales with the errors being corrected, and the
/// displacement `d = M^-1 J^T mu` is linear in it: the sweeps stop when one more would move
/// the correction by about this fraction of its size. What is left (roughly that fraction
/// of `|C|` while the sweeps converge well) is taken by the next pass, a fresh Newton step
/// from the new poses, if it still exceeds [`PostStabilization::tolerance`]. 1e-3 was too
/// loose: a pile's deepest penetration grew many times over
/// (docs/performance.md#post-stabilisation-cost).
const SWEEP_TOLERANCE: f64 = 1e-5;
/// A contact island's Gauss-Seidel sweeps may also stop once one sweep moves no contact by
/// more than this (m), 2 % of [`CONTACT_TOLERANCE`]: solving the projection to the last
/// nanometre (what [`SWEEP_TOLERANCE`] alone asks of a warm-started pass) bought nothing
/// visible (docs/performance.md#post-stabilisation-cost). Measured against the multipliers
/// the pass starts from, so only warm-started passes (the first of each step) use it.
const SETTLED_DISPLACEMENT: f64 = 1e-6;

/// Multiply-adds per row that one factorisation of an island with one-sided rows may cost
/// for the direct solve to be tried: about four Gauss-Seidel sweeps' worth (a row update
/// costs about fifty multiply-adds of the factorisation), since the active set may factor
/// a few times. A stack's band (about 40 a row) passes; a wide pyramid's nearly dense
/// envelope (thousands a row) goes to Gauss-Seidel.
const DIRECT_WORK_PER_ROW: usize = 200;
/// Relative regularisation of `J M^-1 J^T`'s diagonal: keeps redundant rows (closed loops)
/// solvable while changing a well-posed correction by about this fraction.
const REGULARIZATION: f64 = 1e-10;
/// Pivot floor of the envelope factorisation, relative to the diagonal.
const PIVOT_FLOOR: f64 = 1e-9;

/// Penetration (m) a contact may keep beyond the projection slop it is written with
/// (`contact::rows`, 0.1 mm) before post-stabilisation works on it: half the slop. Resting
/// piles sink by a few micrometres per step (the 20-sweep velocity solve is not
/// converged), and chasing that to [`PostStabilization::tolerance`] took several full
/// Gauss-Seidel passes every step for no visible change
/// (docs/performance.md#post-stabilisation-cost). Joint rows keep the tolerance.
const CONTACT_TOLERANCE: f64 = 5e-5;

/// Halvings of a Newton step tried before an island's pass is abandoned.
const MAX_HALVINGS: usize = 5;

/// The largest ratio of an island's `sum C^2` after a pass to before it (errors cut at
/// least tenfold) for the next pass to keep the pass's factorisation: a chord step
/// (Newton's direction from the Jacobians and `J M^-1 J^T` of an earlier pose) costs a
/// re-read of the errors and two triangular solves instead of the rows' re-writing, the
/// mass products and a factorisation. Its error falls by about the distance moved since
/// the factorisation (times the constraints' curvature) rather than by Newton's square,
/// so it is taken only once the passes converge fast. A pass that cuts less, or must halve
/// its step, hands the next pass back to Newton. A tenfold threshold was no faster, and a
/// looser one let some steps end above the tolerance, since a whipping chain's first
/// passes cut its errors only about threefold (docs/performance.md#post-stabilisation-cost).
const CHORD_CONTRACTION: f64 = 0.01;

/// The velocity solve's `M^-1 J^T`, envelope scratch and factorisation, lent to
/// [`PostStabilizer::run`].
pub(crate) struct SharedFactors<'a> {
    pub(crate) mass: &'a mut RowMass,
    pub(crate) envelope: &'a mut EnvelopeBuilder,
    pub(crate) skyline: &'a mut Skyline,
}

impl SharedFactors<'_> {
    /// Swaps the lent buffers with `stabilizer`'s own (its first island's factorisation):
    /// once to lend them, once more to give them back.
    fn exchange(&mut self, stabilizer: &mut PostStabilizer) {
        if stabilizer.skylines.is_empty() {
            stabilizer.skylines.push(Skyline::default());
        }
        std::mem::swap(&mut stabilizer.mass, self.mass);
        std::mem::swap(&mut stabilizer.envelope, self.envelope);
        std::mem::swap(&mut stabilizer.skylines[0], self.skyline);
    }
}

/// Buffers of the post-stabilisation pass, reused between steps.
#[derive(Debug, Clone, Default)]
pub(crate) struct PostStabilizer {
    /// Gauss-Seidel row updates of this step's passes so far.
    row_updates: usize,
    /// Envelope factorisations of this step's passes so far.
    factorizations: usize,
    /// Gauss-Seidel's batched rows, lane by lane.
    lanes: LaneBlocks,
    /// Whether the step's first pass is running (its Gauss-Seidel solves start from the
    /// contacts' remembered multipliers; later passes correct what is left, from zero).
    first_pass: bool,
    /// The first raw row of a contact in the last measure (joint rows come first).
    first_contact: u32,
    /// The order the contacts' rows are written in (see [`Self::run`]): raw row
    /// `first_contact + i` is contact `contact_order[i]`'s.
    contact_order: Vec<u32>,
    /// What the passes read of each contact, indexed as the step's contact points.
    positional: Vec<PositionalContact>,
    /// Per sorted row: the contact's remembered multiplier (0 for joint rows); after the
    /// first pass's Gauss-Seidel solve of an island, that solve's multipliers.
    remembered: Vec<f64>,
    raw: RowStorage,
    /// The rows of `raw` at the current poses, only their bodies, errors, bounds and flags
    /// ([`RowPass::PositionErrors`]): compared with `raw` to see the structure is the same.
    errors: RowStorage,
    /// The stabilised joint rows' errors at the current poses, in raw row order, when every
    /// joint is a point joint ([`PointJoints::push_errors`]; else
    /// `errors` has them).
    joint_errors: Vec<f64>,
    /// Fixed-structure joints' rows on their way into `raw`.
    fixed_rows: FixedRows,
    /// Point joints' rows (Jacobian and error) re-read at the current poses, staged for
    /// sorted rows not in producer order ([`Self::rewrite_joint_rows`]).
    staged: Vec<(JacobianRow, f64)>,
    /// The body slots of each row of `staged`.
    fixed_bodies: Vec<[u32; 2]>,
    /// Whether `rows` (Jacobians, `mass`) were written at the current poses; after a
    /// [`PostStabilizer::measure_errors`] only their errors are.
    rows_current: bool,
    rows: RowStorage,
    islands: Islands,
    mass: RowMass,
    /// Per body slot: the projection's inverse inertia ([`Self::weigh_inertia`]).
    inverse_inertia: Vec<Mat3>,
    /// Whether `inverse_inertia` is this step's.
    metric_current: bool,
    rhs: Vec<f64>,
    mu: Vec<f64>,
    regularization: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// Scratch of the islands' envelope factorisations.
    envelope: EnvelopeBuilder,
    /// Per island: its envelope factorisation, kept for chord steps while `factored`.
    skylines: Vec<Skyline>,
    /// Per island: whether `skylines` holds the factorisation of its current Jacobians
    /// and mass products (its last pass was a direct solve and nothing rewrote them).
    factored: Vec<bool>,
    /// Per island: whether this pass stepped it.
    stepped: Vec<bool>,
    active_set: ActiveSet,
    pgs: PgsScratch,
    /// Per island: largest `|C|` and `sum C^2` at the current poses.
    largest: Vec<f64>,
    squares: Vec<f64>,
    /// Per island: whether a row violates by more than its tolerance.
    unresolved: Vec<bool>,
    /// Per island during a pass: `sum C^2` before it, the step fraction, and whether the
    /// island is still searching for a decrease.
    squares_before: Vec<f64>,
    fraction: Vec<f64>,
    searching: Vec<bool>,
    /// Per island: no step along its Newton direction reduced the error; it is left alone
    /// for the rest of this step.
    stalled: Vec<bool>,
    /// Per body slot: whether a contact row touches it (it then keeps its true inertia).
    touching: Vec<bool>,
    /// Per body slot: the Newton displacement of this pass and the pose before it.
    step: Vec<Pair>,
    saved: Vec<Pose>,
}

impl PostStabilizer {
    /// Projects the stabilised joints of `joints` and the penetrations of `contacts` (taken
    /// in `order`, their positional data in `positional` by index, which it hands back
    /// unchanged; those marked `central`, which ERP corrects, only beyond
    /// [`CENTRAL_CONTACT_TOLERANCE`]) at the poses `hot.next_pose`, moving only
    /// `hot.next_pose`. Fails (with nothing else changed) if a non-finite value appears.
    ///
    /// Each pass takes the Newton displacement of every island whose error exceeds the
    /// tolerance, and halves it (up to [`MAX_HALVINGS`] times) until the island's `sum C^2`
    /// decreases: far from the manifold (a link of a whipping chain turned by a radian in
    /// one step) the full step can overshoot, and the search keeps the projection monotone.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &mut self,
        joints: &Arena<Joint, JointHandle>,
        points: &PointJoints,
        contacts: &mut [ContactPoint],
        order: &[u32],
        positional: &mut Vec<PositionalContact>,
        hot: &mut HotBodies,
        softness: Softness,
        settings: &PostStabilization,
        stats: &mut PostStabilizationStats,
        shared: SharedFactors<'_>,
    ) -> Result<(), WorldError> {
        // The velocity solve's buffers are free until the next step: the passes borrow
        // them (swapped in and back) instead of keeping their own copies, to keep the
        // step's working set small (docs/performance.md#shared-factors). So are the
        // positional contacts the row writer filled.
        let mut shared = shared;
        shared.exchange(self);
        std::mem::swap(&mut self.positional, positional);
        let result = project_passes(
            self, joints, points, contacts, order, hot, softness, settings, stats,
        );
        std::mem::swap(&mut self.positional, positional);
        shared.exchange(self);
        result
    }

    /// [`Self::run`] with its buffers in place.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn project(
        &mut self,
        joints: &Arena<Joint, JointHandle>,
        points: &PointJoints,
        contacts: &mut [ContactPoint],
        order: &[u32],
        hot: &mut HotBodies,
        softness: Softness,
        settings: &PostStabilization,
        stats: &mut PostStabilizationStats,
    ) -> Result<(), WorldError> {
        debug_assert_eq!(self.positional.len(), contacts.len());
        if joints.len() == 0 {
            let within = contacts_within_tolerance(&self.positional, hot, settings.tolerance);
            if let Some((largest, rows)) = within {
                // Nothing to correct (most steps of a resting scene): no rows, islands or
                // passes (docs/performance.md#post-stabilisation-cost).
                stats.rows = rows;
                stats.error_before = largest;
                stats.error_after = largest;
                stats.row_updates = 0;
                stats.factorizations = 0;
                return Ok(());
            }
        }
        self.contact_order.clear();
        self.contact_order.extend_from_slice(order);
        self.touching.clear();
        self.touching.resize(hot.next_pose.len(), false);
        for point in contacts.iter() {
            for slot in point.slots {
                self.touching[slot as usize] = true;
            }
        }
        self.row_updates = 0;
        self.factorizations = 0;
        self.metric_current = false;
        if !(contacts.is_empty() && self.reuse_structure(points, hot, settings.tolerance)?) {
            self.measure(joints, contacts, hot, softness, settings.tolerance)?;
        }
        stats.rows = self.rows.len();
        stats.error_before = self.largest.iter().fold(0.0, |m: f64, e| m.max(*e));
        let slots = hot.next_pose.len();
        self.step.clear();
        self.step.resize(slots, [Vec3::ZERO; 2]);
        self.saved.clear();
        self.saved.resize(slots, Pose::IDENTITY);
        self.stalled.clear();
        self.stalled.resize(self.islands.len(), false);
        let mut chord_ready = false;
        for _ in 0..settings.max_passes {
            let needs_work = |k: usize| !self.stalled[k] && self.unresolved[k];
            if !(0..self.islands.len()).any(needs_work) {
                break;
            }
            let chord =
                chord_ready && (0..self.islands.len()).all(|k| !needs_work(k) || self.factored[k]);
            if !chord && !self.rows_current && !self.refresh_jacobians(points, hot) {
                // Newton's step needs the Jacobians at these poses, not only the errors.
                self.measure(joints, contacts, hot, softness, settings.tolerance)?;
            }
            // A pass's re-measure can change the island structure (a rope going slack or
            // taut, a contact appearing): every per-island array follows the current count.
            let islands = self.islands.len();
            self.stalled.resize(islands, false);
            self.searching.clear();
            self.searching.resize(islands, false);
            self.stepped.clear();
            self.stepped.resize(islands, false);
            self.fraction.clear();
            self.fraction.resize(islands, 1.0);
            self.squares_before.clear();
            self.squares_before.extend_from_slice(&self.squares);
            let needs_work = |k: usize| !self.stalled[k] && self.unresolved[k];
            if !(0..islands).any(needs_work) {
                break;
            }
            if !chord {
                self.compute_mass(hot, settings.rotation_weight);
                self.factored.fill(false);
            }
            self.first_pass = stats.passes == 0;
            for k in 0..islands {
                if !self.stalled[k] && self.unresolved[k] {
                    self.newton_step(k, hot, settings, chord)?;
                    self.searching[k] = true;
                    self.stepped[k] = true;
                }
            }
            if self.first_pass {
                self.remember(contacts);
            }
            self.first_pass = false;
            stats.passes += 1;
            let halved = self.line_search(
                islands, chord, joints, points, contacts, hot, softness, settings,
            )?;
            chord_ready = !halved
                && self.islands.len() == islands
                && (0..islands).all(|k| {
                    !self.stepped[k]
                        || self.squares[k] <= CHORD_CONTRACTION * self.squares_before[k]
                });
        }
        stats.error_after = self.largest.iter().fold(0.0, |m: f64, e| m.max(*e));
        stats.row_updates = self.row_updates;
        stats.factorizations = self.factorizations;
        Ok(())
    }

    /// The line search of one pass: displaces every searching island along its step,
    /// halving an island's fraction until its squared error decreases (at most
    /// `MAX_HALVINGS` times; then it keeps its poses and, after a Newton step, stalls).
    /// Returns whether any island was halved.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn line_search(
        &mut self,
        islands: usize,
        chord: bool,
        joints: &Arena<Joint, JointHandle>,
        points: &PointJoints,
        contacts: &mut [ContactPoint],
        hot: &mut HotBodies,
        softness: Softness,
        settings: &PostStabilization,
    ) -> Result<bool, WorldError> {
        let mut halved = false;
        for halving in 0..=MAX_HALVINGS {
            for k in 0..islands {
                if self.searching[k] {
                    self.displace(k, hot);
                }
            }
            self.measure_errors(joints, points, contacts, hot, softness, settings.tolerance)?;
            if self.islands.len() != islands {
                // The islands changed under the line search: start a fresh pass (by
                // Newton: `chord_ready` below sees the new count).
                break;
            }
            let mut still = false;
            for k in 0..islands {
                if !self.searching[k] {
                    continue;
                }
                if self.squares[k] < self.squares_before[k] {
                    self.searching[k] = false;
                } else if halving < MAX_HALVINGS {
                    self.fraction[k] *= 0.5;
                    still = true;
                    halved = true;
                } else {
                    // No decrease along the direction: keep the poses it had. A chord
                    // direction failing says nothing of Newton's: the next pass takes it.
                    self.fraction[k] = 0.0;
                    self.displace(k, hot);
                    self.stalled[k] = !chord;
                    still = true;
                }
            }
            if !still {
                break;
            }
            if halving == MAX_HALVINGS {
                self.measure_errors(joints, points, contacts, hot, softness, settings.tolerance)?;
            }
        }
        Ok(halved)
    }

    /// Writes the stabilised rows at `hot.next_pose`, finds their islands and each
    /// island's largest violation and sum of squared violations, and whether a row violates
    /// by more than `tolerance` (a contact: by more than [`CONTACT_TOLERANCE`], if larger).
    /// A bilateral row violates by `|C|`; a one-sided row only on its forbidden side (a
    /// contact whose force can only push, `lambda >= 0`, by `max(-C, 0)`: separation is not
    /// an error).
    #[inline(always)]
    fn measure(
        &mut self,
        joints: &Arena<Joint, JointHandle>,
        contacts: &mut [ContactPoint],
        hot: &HotBodies,
        softness: Softness,
        tolerance: f64,
    ) -> Result<(), WorldError> {
        self.raw.clear();
        write_joints(
            joints,
            hot,
            softness,
            RowPass::Position,
            &mut self.raw,
            &mut self.fixed_rows,
        );
        let first_contact = self.raw.len() as u32;
        // Contacts: one-sided normal rows with the witness points moving with the bodies.
        write_positional_rows(
            &self.positional,
            &self.contact_order,
            &hot.next_pose,
            &mut self.raw,
        );
        self.islands.build(&self.raw, &hot.dynamic, &mut self.rows);
        // Position-level contact rows are one normal row per point, in `contact_order`.
        self.first_contact = first_contact;
        self.remembered.clear();
        self.remembered
            .extend(self.islands.origin[..self.rows.len()].iter().map(|&raw| {
                let order = &self.contact_order;
                raw.checked_sub(first_contact).map_or(0.0, |i| {
                    contacts[order[i as usize] as usize].memory.projection
                })
            }));
        self.rows_current = true;
        self.factored.clear();
        self.factored.resize(self.islands.len(), false);
        self.assess(tolerance)
    }

    /// [`Self::measure`] when the rows keep their structure (the same rows, bodies and
    /// bounds; else it falls back to the full measure): reads only the rows' errors at
    /// `hot.next_pose`, keeping the Jacobians and mass products of the last full measure
    /// for a chord step.
    #[inline(always)]
    fn measure_errors(
        &mut self,
        joints: &Arena<Joint, JointHandle>,
        points: &PointJoints,
        contacts: &mut [ContactPoint],
        hot: &HotBodies,
        softness: Softness,
        tolerance: f64,
    ) -> Result<(), WorldError> {
        let joint_rows = self.first_contact as usize;
        // Joints with a fixed row structure (a ball chain) report their errors without the
        // row writer or the structure check (docs/performance.md#point-joint-fast-path).
        let fixed = points.push_errors(&hot.next_pose, true, &mut self.joint_errors, |_, _| {})
            && self.joint_errors.len() == joint_rows;
        if !fixed {
            self.errors.clear();
            write_joints(
                joints,
                hot,
                softness,
                RowPass::PositionErrors,
                &mut self.errors,
                &mut self.fixed_rows,
            );
            let (raw, errors) = (&self.raw, &self.errors);
            let same = errors.len() == joint_rows
                && raw.bodies[..joint_rows] == errors.bodies[..]
                && raw.lo[..joint_rows] == errors.lo[..]
                && raw.hi[..joint_rows] == errors.hi[..];
            if !same {
                return self.measure(joints, contacts, hot, softness, tolerance);
            }
        }
        if self.raw.len() != joint_rows + contacts.len() {
            return self.measure(joints, contacts, hot, softness, tolerance);
        }
        let joint_errors = if fixed {
            &self.joint_errors
        } else {
            &self.errors.error
        };
        if self.islands.identity() && self.rows.len() == joint_rows {
            // Every row a joint's, in producer order (a chain): one copy.
            self.rows.error.copy_from_slice(&joint_errors[..joint_rows]);
            self.rows_current = false;
            return self.assess(tolerance);
        }
        let origin = &self.islands.origin[..self.rows.len()];
        for (error, &raw) in self.rows.error.iter_mut().zip(origin) {
            let raw = raw as usize;
            *error = match raw.checked_sub(joint_rows) {
                Some(i) => {
                    let p = self.contact_order[i] as usize;
                    self.positional[p].error(&hot.next_pose)
                }
                None => joint_errors[raw],
            };
        }
        self.rows_current = false;
        self.assess(tolerance)
    }

    /// After a [`Self::measure_errors`] that kept the structure (the rows' errors are those
    /// at `hot.next_pose`): re-writes the sorted rows' Jacobians (and errors, the same
    /// values) at `hot.next_pose` in place, leaving their bodies, bounds, softness, islands
    /// and order as the last full measure wrote them. Returns `false`, changing nothing the
    /// full measure does not rewrite, if a joint has no fixed row structure
    /// ([`crate::joint::JointRows::fixed_point`]), so that a Newton pass need not re-write
    /// and gather every raw row (docs/performance.md#point-joint-fast-path).
    #[inline(always)]
    fn refresh_jacobians(&mut self, points: &PointJoints, hot: &HotBodies) -> bool {
        if !self.rewrite_joint_rows(points, hot, false) {
            return false;
        }
        let first_contact = self.first_contact as usize;
        for (c, &p) in self.contact_order.iter().enumerate() {
            if let Some(i) = self.islands.sorted_position(first_contact + c) {
                let row = self.positional[p as usize].positional_row(&hot.next_pose);
                self.rows.jacobian[i] = row.jacobian;
                self.rows.error[i] = row.error;
            }
        }
        self.rows_current = true;
        true
    }

    /// At the start of a step without contacts: keeps the last full measure's rows,
    /// islands and order (from an earlier step) if the joints write the same rows on the
    /// same bodies (all of a fixed structure, as in [`Self::refresh_jacobians`]), the same
    /// slots are dynamic and that measure had no contact rows either, re-writing only the
    /// Jacobians and errors at `hot.next_pose`, and assesses them. Returns `false`, having
    /// changed nothing the full measure does not rewrite, otherwise. A chain's step then
    /// re-writes no raw rows and gathers no islands before its first pass.
    #[inline(always)]
    fn reuse_structure(
        &mut self,
        points: &PointJoints,
        hot: &HotBodies,
        tolerance: f64,
    ) -> Result<bool, WorldError> {
        let reusable = self.first_contact as usize == self.raw.len()
            && self.islands.same_dynamic(&hot.dynamic)
            && self.rewrite_joint_rows(points, hot, true);
        if !reusable {
            return Ok(false);
        }
        // As the full measure leaves them: joint rows remember no multiplier.
        self.remembered.clear();
        self.remembered.resize(self.rows.len(), 0.0);
        self.rows_current = true;
        self.factored.clear();
        self.factored.resize(self.islands.len(), false);
        self.assess(tolerance)?;
        Ok(true)
    }

    /// Re-writes the sorted joint rows' Jacobians and errors at `hot.next_pose` if every
    /// post-stabilised joint has a fixed row structure (and, if `check_bodies`, the same
    /// bodies row by row as the raw rows); else returns `false`, having changed only what
    /// the full measure rewrites. Rows in producer order (a chain) are written in place:
    /// staged in `staged` and copied, they would cost two more passes over a chain's rows
    /// and a buffer more in the working set (docs/performance.md#point-joint-fast-path).
    #[inline(always)]
    fn rewrite_joint_rows(
        &mut self,
        points: &PointJoints,
        hot: &HotBodies,
        check_bodies: bool,
    ) -> bool {
        let joint_rows = self.first_contact as usize;
        if self.islands.identity() && self.rows.len() >= joint_rows {
            let bodies = check_bodies.then_some(&self.raw.bodies[..joint_rows]);
            return points.write_stabilized_rows(
                &hot.next_pose,
                bodies,
                &mut self.rows.jacobian[..joint_rows],
                &mut self.rows.error[..joint_rows],
            );
        }
        let written = self.push_joint_rows(points, hot)
            && self.staged.len() == joint_rows
            && (!check_bodies || self.fixed_bodies == self.raw.bodies);
        if written {
            self.write_joint_jacobians();
        }
        written
    }

    /// Every post-stabilised joint's full rows at `hot.next_pose` into `self.staged`
    /// and their bodies into `self.fixed_bodies`, if all have a fixed row structure.
    #[inline(always)]
    fn push_joint_rows(&mut self, points: &PointJoints, hot: &HotBodies) -> bool {
        points.push_stabilized_rows(&hot.next_pose, &mut self.staged, &mut self.fixed_bodies)
    }

    /// Copies `self.staged` (raw joint rows) into the sorted rows' Jacobians and errors.
    #[inline(always)]
    fn write_joint_jacobians(&mut self) {
        for (raw, (jacobian, error)) in self.staged.iter().enumerate() {
            if let Some(i) = self.islands.sorted_position(raw) {
                self.rows.jacobian[i] = *jacobian;
                self.rows.error[i] = *error;
            }
        }
    }

    /// Each island's largest violation and sum of squared violations from the rows'
    /// errors, and whether a row violates by more than its tolerance (see
    /// [`Self::measure`]).
    #[inline(always)]
    fn assess(&mut self, tolerance: f64) -> Result<(), WorldError> {
        let first_contact = self.first_contact;
        self.largest.clear();
        self.squares.clear();
        self.unresolved.clear();
        for k in 0..self.islands.len() {
            let (mut largest, mut squares, mut unresolved) = (0.0f64, 0.0, false);
            let rows = self.islands.rows(k);
            if self.islands.nub(k) == rows.len() {
                // Only unbounded rows (joints'; a contact's is one-sided): each violates by
                // `|C|`, against `tolerance`. The same sums without a bounds test and a
                // contact lookup per row (a chain's every pass).
                for &c in &self.rows.error[rows] {
                    let v = c.abs();
                    largest = largest.max(v);
                    squares += v * v;
                }
                self.largest.push(largest);
                self.squares.push(squares);
                self.unresolved.push(largest > tolerance);
                continue;
            }
            for i in rows {
                let v = violation(self.rows.error[i], self.rows.lo[i], self.rows.hi[i]);
                largest = largest.max(v);
                squares += v * v;
                let limit = match self.islands.origin[i].checked_sub(first_contact) {
                    Some(c) => {
                        let point = &self.positional[self.contact_order[c as usize] as usize];
                        contact_limit(point, tolerance)
                    }
                    None => tolerance,
                };
                unresolved |= v > limit;
            }
            self.largest.push(largest);
            self.squares.push(squares);
            self.unresolved.push(unresolved);
        }
        if self.squares.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(non_finite())
        }
    }

    /// `M^-1 J^T` of every row at the current poses, in the step's projection metric
    /// ([`Self::weigh_inertia`]).
    #[inline(always)]
    fn compute_mass(&mut self, hot: &HotBodies, weight: f64) {
        if !self.metric_current {
            self.weigh_inertia(hot, weight);
            self.metric_current = true;
        }
        self.mass
            .compute(&self.rows, &hot.inverse_mass, &self.inverse_inertia);
    }

    /// The projection's metric: each body's world inverse inertia at the start of the step
    /// (`hot.inverse_inertia`, as the velocity solve used it) scaled by `weight`
    /// ([`PostStabilization::rotation_weight`]). Any fixed positive metric gives Newton's
    /// quadratic convergence; it only chooses which of the displacements that remove the
    /// errors is the smallest. Taken at the step's start rather than at each pass's poses
    /// (a turn of at most a few hundredths of a radian away), it is one per step, not a
    /// tensor rotation per body and Newton pass (docs/performance.md#hot-per-body-arrays).
    #[inline(always)]
    fn weigh_inertia(&mut self, hot: &HotBodies, weight: f64) {
        self.inverse_inertia.clear();
        let touching = &self.touching;
        self.inverse_inertia
            .extend(
                hot.inverse_inertia
                    .iter()
                    .enumerate()
                    .map(|(slot, inverse)| {
                        // Bodies in contact keep their true inertia: a cheap rotation would
                        // tilt them to clear a penetration, and tilting slides their other
                        // contacts (which post-stabilisation does not hold by friction).
                        if touching[slot] {
                            *inverse
                        } else {
                            *inverse * weight
                        }
                    }),
            );
    }

    /// The Newton displacement of island `k` into `self.step`, capped at
    /// `max_correction` per body, and the island's poses saved.
    #[inline(always)]
    fn newton_step(
        &mut self,
        k: usize,
        hot: &mut HotBodies,
        settings: &PostStabilization,
        chord: bool,
    ) -> Result<(), WorldError> {
        let all_bilateral = self.islands.nub(k) == self.islands.rows(k).len();
        match settings.method {
            PostStabilizationMethod::Direct if all_bilateral => self.direct(k, hot, chord),
            PostStabilizationMethod::Direct => self.one_sided_direct(k, hot, settings)?,
            PostStabilizationMethod::GaussSeidel { sweeps } => {
                self.iterative(k, sweeps, false, hot)?
            }
        }
        let bodies = self.islands.bodies(k);
        let largest = bodies.iter().fold(0.0f64, |m, &s| {
            let [linear, angular] = hot.cache[s as usize];
            m.max(linear.length()).max(angular.length())
        });
        let scale = if largest > settings.max_correction {
            settings.max_correction / largest
        } else {
            1.0
        };
        for &s in bodies {
            let [linear, angular] = std::mem::take(&mut hot.cache[s as usize]);
            self.step[s as usize] = [linear * scale, angular * scale];
            self.saved[s as usize] = hot.next_pose[s as usize];
        }
        if largest.is_finite() {
            Ok(())
        } else {
            Err(non_finite())
        }
    }

    /// Sets island `k`'s poses to the saved ones moved by its step times its fraction.
    #[inline(always)]
    fn displace(&mut self, k: usize, hot: &mut HotBodies) {
        let t = self.fraction[k];
        for &s in self.islands.bodies(k) {
            let [linear, angular] = self.step[s as usize];
            let saved = self.saved[s as usize];
            hot.next_pose[s as usize] = Pose {
                position: saved.position + linear * t,
                orientation: turn_by_cayley(angular * t, saved.orientation),
            };
        }
    }

    /// Solves island `k` with the envelope factorisation and leaves `M^-1 J^T mu` in
    /// `hot.cache`; with `chord`, by the island's kept factorisation (`self.factored[k]`
    /// must hold), else by a fresh one, which is then kept.
    #[inline(always)]
    fn direct(&mut self, k: usize, hot: &mut HotBodies, chord: bool) {
        let range = self.islands.rows(k);
        let start = range.start;
        if self.skylines.len() <= k {
            self.skylines.resize_with(k + 1, Skyline::default);
        }
        if !chord {
            self.factor_direct(k, hot);
        }
        self.mu.clear();
        self.mu
            .extend(self.rows.error[range.clone()].iter().map(|e| -e));
        self.skylines[k].solve(&mut self.mu);
        for (i, &mu) in self.mu.iter().enumerate() {
            scatter(
                &mut hot.cache,
                self.rows.bodies[start + i],
                &self.mass.imj[start + i],
                mu,
            );
        }
    }

    /// Builds and factors island `k`'s `J M^-1 J^T` into `self.skylines[k]`.
    #[inline(always)]
    fn factor_direct(&mut self, k: usize, hot: &HotBodies) {
        let start = self.islands.rows(k).start;
        let rows = EnvelopeRows {
            rows: &self.rows,
            mass: &self.mass,
            count: self.islands.rows(k).len(),
            start,
            members: None,
            island_bodies: self.islands.bodies(k),
            dynamic: &hot.dynamic,
        };
        // No budget: a bilateral island has no cheaper direct method, and the chord steps
        // reuse the factorisation.
        let regularized = |_, diagonal: f64| diagonal * (1.0 + REGULARIZATION);
        let factored = self.envelope.factor(
            &mut self.skylines[k],
            &rows,
            regularized,
            usize::MAX,
            PIVOT_FLOOR,
        );
        debug_assert!(factored.is_some());
        self.factored[k] = true;
        self.factorizations += 1;
    }

    /// Solves island `k`, which has one-sided rows, by an active set of direct solves
    /// ([`active_set`]) and leaves `M^-1 J^T mu` in `hot.cache`; islands whose
    /// factorisation would cost more than [`DIRECT_WORK_PER_ROW`] per row, or whose set
    /// does not settle, go to Gauss-Seidel (the latter warm-started).
    #[inline(always)]
    fn one_sided_direct(
        &mut self,
        k: usize,
        hot: &mut HotBodies,
        settings: &PostStabilization,
    ) -> Result<(), WorldError> {
        let range = self.islands.rows(k);
        let island = Island {
            rows: &self.rows,
            mass: &self.mass,
            range: range.clone(),
            bodies: self.islands.bodies(k),
            dynamic: &hot.dynamic,
        };
        let budget = range.len().saturating_mul(DIRECT_WORK_PER_ROW);
        let outcome =
            self.active_set
                .solve(&island, &mut hot.cache, 0.5 * settings.tolerance, budget);
        match outcome {
            Outcome::Settled => Ok(()),
            Outcome::Unsettled => {
                self.mu.clear();
                self.mu.extend_from_slice(&self.active_set.mu);
                self.iterative(k, ONE_SIDED_SWEEPS, true, hot)
            }
            Outcome::TooCostly => self.iterative(k, ONE_SIDED_SWEEPS, false, hot),
        }
    }

    /// Solves island `k` by projected Gauss-Seidel (one-sided rows keep their sign) and
    /// leaves `M^-1 J^T mu` in `hot.cache`; with `warm`, starts from `self.mu` (one entry
    /// per island row), else from zero.
    #[inline(always)]
    fn iterative(
        &mut self,
        k: usize,
        sweeps: usize,
        warm: bool,
        hot: &mut HotBodies,
    ) -> Result<(), WorldError> {
        let range = self.islands.rows(k);
        self.rhs.clear();
        self.rhs
            .extend(self.rows.error[range.clone()].iter().map(|e| -e));
        self.lo.clear();
        self.hi.clear();
        for i in range.clone() {
            // Keep a bound's sign, drop its size (a motor's or friction's limit is not a
            // position constraint; those rows are not stabilised anyway).
            let (lo, hi) = (self.rows.lo[i], self.rows.hi[i]);
            self.lo.push(if lo < 0.0 { f64::NEG_INFINITY } else { 0.0 });
            self.hi.push(if hi > 0.0 { f64::INFINITY } else { 0.0 });
        }
        self.regularization.clear();
        self.regularization.extend(
            self.mass.diagonal[range.clone()]
                .iter()
                .map(|d| d * REGULARIZATION),
        );
        if !warm {
            self.mu.clear();
            if self.first_pass {
                self.mu.extend_from_slice(&self.remembered[range.clone()]);
            } else {
                self.mu.resize(range.len(), 0.0);
            }
        }
        let options = PgsOptions {
            max_iterations: sweeps,
            tolerance: self.sweep_tolerance(k),
            ..PgsOptions::default()
        };
        let mut op = SparseOperator::new(
            &self.rows,
            &self.mass,
            range.clone(),
            &self.regularization,
            self.islands.bodies(k),
            &mut hot.cache,
        )
        .with_batches(
            &mut self.lanes,
            &hot.dynamic,
            InverseMasses {
                mass: &hot.inverse_mass,
                inertia: &self.inverse_inertia,
            },
        );
        let findex = &self.rows.findex[range.clone()];
        let outcome = pgs_sweeps(
            &mut op,
            &self.rhs,
            &self.lo,
            &self.hi,
            findex,
            &mut self.mu,
            &options,
            &mut self.pgs,
        )?;
        self.row_updates += outcome.sweeps * range.len();
        if outcome.non_finite {
            op.clear();
            return Err(non_finite());
        }
        if self.first_pass {
            self.remembered[range].copy_from_slice(&self.mu);
        }
        Ok(())
    }

    /// The relative change at which island `k`'s Gauss-Seidel sweeps stop, from `self.mu`
    /// before them: [`SWEEP_TOLERANCE`], or for an island of contacts only that starts
    /// from remembered multipliers, the change that moves no contact by more than
    /// [`SETTLED_DISPLACEMENT`] (`|delta mu_i| A_ii`), relative to those multipliers' size,
    /// if that is looser.
    fn sweep_tolerance(&self, k: usize) -> f64 {
        let range = self.islands.rows(k);
        let joint_row = self.islands.origin[range.clone()]
            .iter()
            .any(|&raw| raw < self.first_contact);
        if joint_row {
            return SWEEP_TOLERANCE;
        }
        let scale = self.mu.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let diagonal = self.mass.diagonal[range]
            .iter()
            .fold(0.0f64, |m, d| m.max(*d));
        let settled = SETTLED_DISPLACEMENT / (diagonal * scale);
        if settled.is_finite() {
            settled.max(SWEEP_TOLERANCE)
        } else {
            SWEEP_TOLERANCE
        }
    }

    /// Stores each contact's multiplier of the first pass (or the one it remembered, if
    /// its island was solved otherwise) for the next step's first pass.
    #[inline(always)]
    fn remember(&self, contacts: &mut [ContactPoint]) {
        for (&raw, &mu) in self.islands.origin[..self.rows.len()]
            .iter()
            .zip(&self.remembered)
        {
            if let Some(i) = raw.checked_sub(self.first_contact) {
                contacts[self.contact_order[i as usize] as usize]
                    .memory
                    .projection = mu;
            }
        }
    }
}

crate::avx2::compiled_for_avx2! {
    /// [`PostStabilizer::project`] in its two copies.
    fn project_passes(
        stabilizer: &mut PostStabilizer,
        joints: &Arena<Joint, JointHandle>,
        points: &PointJoints,
        contacts: &mut [ContactPoint],
        order: &[u32],
        hot: &mut HotBodies,
        softness: Softness,
        settings: &PostStabilization,
        stats: &mut PostStabilizationStats,
    ) -> Result<(), WorldError> => PostStabilizer::project
}

/// Appends the rows of the joints with post-stabilisation on at `hot.next_pose`, in the
/// columns `pass` keeps.
fn write_joints(
    joints: &Arena<Joint, JointHandle>,
    hot: &HotBodies,
    softness: Softness,
    pass: RowPass,
    storage: &mut RowStorage,
    fixed_rows: &mut FixedRows,
) {
    let (poses, ground) = (&hot.next_pose, hot.ground());
    let ignore_ranges = |_, _| {};
    crate::joint::write_joint_rows_moving(
        joints,
        poses,
        None,
        ground,
        softness,
        pass,
        storage,
        fixed_rows,
        ignore_ranges,
    );
}

/// The largest penetration beyond their slop of `contacts` at `hot.next_pose` and how many
/// of them touch a dynamic body (the rows a measure would write), if every one is within
/// its tolerance in [`PostStabilizer::measure`] (so a full measure would find nothing to
/// do) and finite; `None` otherwise.
#[inline(always)]
fn contacts_within_tolerance(
    contacts: &[PositionalContact],
    hot: &HotBodies,
    tolerance: f64,
) -> Option<(f64, usize)> {
    let (mut largest, mut rows) = (0.0f64, 0);
    for point in contacts {
        // Rows of no dynamic body (a sleeping body on the ground) join no island.
        if !point.slots.iter().any(|&s| hot.dynamic[s as usize]) {
            continue;
        }
        rows += 1;
        let error = point.error(&hot.next_pose);
        let v = violation(error, 0.0, f64::INFINITY);
        if v.is_nan() || v > contact_limit(point, tolerance) {
            // Too deep, or not finite: the full measure decides (and reports).
            return None;
        }
        largest = largest.max(v);
    }
    Some((largest, rows))
}

/// The penetration beyond its slop (m) above which `point` starts a projection pass: the
/// joints' `tolerance`, or [`CONTACT_TOLERANCE`] ([`CENTRAL_CONTACT_TOLERANCE`] for a
/// contact ERP corrects) if larger.
fn contact_limit(point: &PositionalContact, tolerance: f64) -> f64 {
    let floor = if point.central {
        CENTRAL_CONTACT_TOLERANCE
    } else {
        CONTACT_TOLERANCE
    };
    tolerance.max(floor)
}

/// How far a row with error `c` and force bounds `[lo, hi]` is from admissible: a force
/// that can only be positive can only raise `C`, so it holds `C >= 0`, and conversely.
fn violation(c: f64, lo: f64, hi: f64) -> f64 {
    if lo >= 0.0 {
        (-c).max(0.0)
    } else if hi <= 0.0 {
        c.max(0.0)
    } else {
        c.abs()
    }
}

fn non_finite() -> WorldError {
    WorldError::NonFinite {
        phase: StepPhase::PostStabilization,
        body: None,
    }
}

#[cfg(test)]
mod tests {
    use super::violation;

    #[test]
    fn one_sided_rows_violate_only_on_their_forbidden_side() {
        let inf = f64::INFINITY;
        // Bilateral.
        assert_eq!(violation(-0.3, -inf, inf), 0.3);
        assert_eq!(violation(0.3, -inf, inf), 0.3);
        // A contact (pushes only): penetration violates, separation does not.
        assert_eq!(violation(-0.3, 0.0, inf), 0.3);
        assert_eq!(violation(0.3, 0.0, inf), 0.0);
        // A limit from the other side (pulls only).
        assert_eq!(violation(0.3, -inf, 0.0), 0.3);
        assert_eq!(violation(-0.3, -inf, 0.0), 0.0);
    }
}
