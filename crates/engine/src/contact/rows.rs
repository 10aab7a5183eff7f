//! Contact points to rows (the equations are in [`crate::contact`]) and forces back.

use crate::contact::{Contact, ContactPoint, ContactWrench, FrictionModel};
use crate::math::Vec3;
use crate::rows::hot::Pair;
use crate::rows::parts::{linear_row_at, plane_basis};
use crate::rows::{stored_at, JacobianRow, Pose, Row, RowShapes, RowStorage, Softness, SolvedRows};

/// Sliding speed (m/s) above which the first tangent follows the sliding direction.
const ALIGN_SPEED: f64 = 1e-3;
/// A contact within this distance (m) of touching counts as touching for restitution.
pub(crate) const TOUCHING: f64 = 1e-4;
/// Two tangents this aligned (cosine) keep last step's Dantzig index sets.
const SAME_BASIS: f64 = 1.0 - 1e-9;
/// CFM of a bouncing row relative to the contact's (kept above zero so that redundant
/// bouncing points, four corners of a falling box, stay solvable).
const IMPACT_CFM_SCALE: f64 = 1e-3;
/// Penetration, m, that post-stabilisation leaves in place. Under load a contact yields
/// by `cfm * lambda * h` per step (2e-5 m for the bottom of S2); without a slop every step
/// of a resting pile would need projection passes to undo that. 0.1 mm is far below what
/// anyone sees and below every scene's tolerance; it also made S4 under the iterative
/// stepper drift half as much (2.3 mm against 4.1 mm in 3000 steps).
const PROJECTION_SLOP: f64 = 1e-4;

/// Penetration (m) beyond the slop at which a contact whose normal passes through its
/// bodies' centres of mass (a sphere's) starts a projection pass: ten times
/// `poststab::CONTACT_TOLERANCE`. ERP corrects such contacts in the velocity solve, their
/// CFM yield taken back in advance, up to this much beyond the slop ([`write_rows`]:
/// deeper, after an impact, ERP's push would throw the body off). At rest they sit at a
/// few micrometres (S2's pile: mean 2-4 um, deepest 0.14 mm, against 83 um and 0.19 mm
/// projected), and the projection only catches impacts.
pub(crate) const CENTRAL_CONTACT_TOLERANCE: f64 = 5e-4;

/// A pair whose normal has at least this component along "up" carries weight.
const BEARING: f64 = 0.3;

/// How many points ahead in height order the passes over the points prefetch (`super::prefetch_point`).
const PREFETCH_AHEAD: usize = 4;

/// How many friction rows a contact with friction gets under `model`: two tangents for
/// box friction and the Coulomb cone, else the polygon's edges.
fn friction_row_count(model: FrictionModel) -> usize {
    match model {
        FrictionModel::PolygonalCone { edges } => edges,
        FrictionModel::Box | FrictionModel::CoulombCone => 2,
    }
}

/// The friction directions of a contact with tangents `t1`, `t2` under `model`: `t1`, `t2`
/// for box friction and the Coulomb cone, else the polygon's edge directions.
pub(crate) fn friction_directions(model: FrictionModel, t1: Vec3, t2: Vec3) -> FrictionDirections {
    FrictionDirections {
        t1,
        t2,
        polygon: matches!(model, FrictionModel::PolygonalCone { .. }),
        count: friction_row_count(model),
        next: 0,
    }
}

/// The iterator of [`friction_directions`]: a plain counter rather than a chain of
/// adapters (the contact writer takes two directions per point, thousands of times a step).
pub(crate) struct FrictionDirections {
    t1: Vec3,
    t2: Vec3,
    /// Whether the directions are a polygon's edges (else the pair `t1`, `t2`).
    polygon: bool,
    count: usize,
    next: usize,
}

impl Iterator for FrictionDirections {
    type Item = Vec3;

    #[inline]
    fn next(&mut self) -> Option<Vec3> {
        let j = self.next;
        if j >= self.count {
            return None;
        }
        self.next += 1;
        if !self.polygon {
            return Some(if j == 0 { self.t1 } else { self.t2 });
        }
        let angle = std::f64::consts::TAU * j as f64 / self.count as f64;
        Some(self.t1 * angle.cos() + self.t2 * angle.sin())
    }
}

/// What post-stabilisation reads of a contact point: its bodies, its witness points and
/// normal in the bodies' frames and its softness. A fifth of the point's size, so the
/// projection's passes over the contacts (rows and errors, several a step) read a compact
/// array instead of gathering points of a few hundred bytes; [`write_rows`] fills it while
/// it has each point at hand.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PositionalContact {
    /// Solver slots of the bodies.
    pub(crate) slots: [u32; 2],
    local_anchors: [Vec3; 2],
    local_normal: Vec3,
    softness: Softness,
    /// Whether the normal passes through the centres of mass of its dynamic bodies (see
    /// `pushes_through_centres`): ERP corrects it, the projection only beyond a deeper
    /// tolerance.
    pub(crate) central: bool,
}

impl PositionalContact {
    /// Sets this to `point`'s positional data, with `world_softness` unless the point has
    /// its own. Field by field in place: built as a value and then stored, the anchors
    /// went through a stack temporary written in two overlapping 32-byte stores and read
    /// back across them, which stalled store forwarding (a tenth of S2's row pass).
    #[inline(always)]
    pub(crate) fn set(&mut self, point: &ContactPoint, world_softness: Softness, central: bool) {
        self.slots = point.slots;
        self.local_anchors = point.local_anchors;
        self.local_normal = point.local_normal;
        self.softness = point.candidate.softness.unwrap_or(world_softness);
        self.central = central;
    }

    /// The contact's one-sided normal row at `poses` (indexed by slot), as
    /// [`write_positional_rows`] writes it.
    #[inline(always)]
    pub(crate) fn positional_row(&self, poses: &[Pose]) -> Row {
        let [a, b] = self.slots;
        let (pose_a, pose_b) = (&poses[a as usize], &poses[b as usize]);
        let (anchors, normal) = self.frame(*pose_a, *pose_b);
        let mut row = linear_row_at(pose_a, pose_b, -normal, anchors[0], anchors[1])
            .bounded(0.0, f64::INFINITY);
        // Leave PROJECTION_SLOP of penetration to the projection: resting contacts then
        // need no pass every step to undo the CFM's yield.
        row.error += PROJECTION_SLOP;
        row
    }

    /// The witness points and normal moved with the bodies to `pose_a`, `pose_b`.
    #[inline(always)]
    fn frame(&self, pose_a: Pose, pose_b: Pose) -> ([Vec3; 2], Vec3) {
        (
            [
                pose_a.transform_point(self.local_anchors[0]),
                pose_b.transform_point(self.local_anchors[1]),
            ],
            pose_a.rotate(self.local_normal),
        )
    }

    /// The position error `C` of the positional normal row at `poses` (negative:
    /// penetrating), exactly as [`write_positional_rows`] writes it, slop included.
    #[inline(always)]
    pub(crate) fn error(&self, poses: &[Pose]) -> f64 {
        let [a, b] = self.slots.map(|s| s as usize);
        let (anchors, normal) = self.frame(poses[a], poses[b]);
        (-normal).dot(anchors[0] - anchors[1]) + PROJECTION_SLOP
    }
}

/// Appends the one-sided normal row of every contact of `contacts` at `poses` (solver
/// slots), taken in `order` (as [`write_rows`]), the witness points moving with the bodies:
/// post-stabilisation's rows.
#[inline(always)]
pub(crate) fn write_positional_rows(
    contacts: &[PositionalContact],
    order: &[u32],
    poses: &[Pose],
    storage: &mut RowStorage,
) {
    let first = storage.grow(order.len());
    let mut rows = storage.columns();
    for (index, &p) in (first..).zip(order) {
        let contact = &contacts[p as usize];
        let row = contact.positional_row(poses);
        rows.set_values(index, contact.slots, &row, contact.softness);
        rows.set_findex(index, None);
    }
}

/// Frames and restitution of every point from the predicted velocities `predicted` and
/// the step-start poses `poses` (both indexed by solver slot), in a pass of their own: for
/// sequential impacts, which read the restitution before the rows are written. Otherwise
/// [`write_rows`] prepares each point as it writes its rows ([`PointPasses::prepare`]).
#[inline(always)]
pub(crate) fn prepare(
    points: &mut [ContactPoint],
    predicted: &[Pair],
    poses: &[Pose],
    threshold: f64,
) {
    for point in points {
        prepare_point(point, predicted, poses, threshold);
    }
}

/// [`prepare`] of one point: its tangents `t1` (along the slip, else a plane basis) and
/// `t2`, and the speed it bounces with.
#[inline(always)]
fn prepare_point(point: &mut ContactPoint, predicted: &[Pair], poses: &[Pose], threshold: f64) {
    let relative = point.relative_velocity(predicted, poses);
    let c = &point.candidate;
    let n = c.geometry.normal;
    let normal_speed = n.dot(relative);
    let surface = c.surface_velocity - n * n.dot(c.surface_velocity);
    let slip = relative - n * normal_speed - surface;
    let t1 = if slip.length() > ALIGN_SPEED {
        slip.normalize()
    } else {
        plane_basis(n).0
    };
    point.tangents = [t1, n.cross(t1)];

    // Restitution: bounce once the contact touches, at the speed it closed with.
    let approach = (-normal_speed).max(0.0);
    point.bounce = None;
    if c.geometry.separation > TOUCHING {
        point.memory.approach = approach;
    } else {
        let speed = approach.max(point.memory.approach);
        point.memory.approach = 0.0;
        // The threshold is the smallest speed that bounces (0 included: any approach).
        let threshold = point.restitution_threshold(threshold);
        if c.restitution > 0.0 && speed > 0.0 && speed >= threshold {
            point.bounce = Some(c.restitution * speed);
        }
    }
}

/// Estimates the normal force of every new contact point (one without memory) from the
/// weight it carries, so that Gauss-Seidel does not start a new stack from zero forces: the
/// sweeps spread a correction over a column of `n` bodies like a diffusion, in about `n^2`
/// sweeps, and the stack would sag and rock meanwhile.
///
/// A pair whose normal points up from A to B (at least [`BEARING`] of it) carries B's load
/// down to A, and conversely. Each body's load is its weight plus what its upper contacts
/// bring, shared equally among the points that support it. Only a start: the solver
/// corrects it. This counts each body's supports; [`write_rows`], taking the points from
/// the highest pair to the lowest (the collision pipeline's
/// [`crate::collision::CollisionPipeline::order`]), carries the loads down
/// ([`LoadEstimate::carry`]) in its own pass over them. `None` without gravity.
#[inline(always)]
pub(crate) fn count_supports<'a>(
    points: &[ContactPoint],
    inverse_mass: &[f64],
    gravity: Vec3,
    load: &'a mut Vec<f64>,
    supports: &'a mut Vec<u32>,
) -> Option<LoadEstimate<'a>> {
    let g = gravity.length();
    if g == 0.0 {
        return None;
    }
    let up = -gravity / g;
    load.clear();
    load.extend(
        inverse_mass
            .iter()
            .map(|&w| if w > 0.0 { g / w } else { 0.0 }),
    );
    supports.clear();
    supports.resize(inverse_mass.len(), 0);
    for point in points {
        if let Some((upper, _)) = bearing(point, up) {
            supports[upper] += 1;
        }
    }
    Some(LoadEstimate { up, load, supports })
}

/// The loads of [`count_supports`], carried down the points by [`write_rows`].
pub(crate) struct LoadEstimate<'a> {
    /// Against gravity, unit.
    up: Vec3,
    /// Per slot: the body's weight plus what its upper contacts have brought so far, N.
    load: &'a mut [f64],
    /// Per slot: the points the body rests on.
    supports: &'a [u32],
}

impl LoadEstimate<'_> {
    /// Passes `point`'s share of its upper body's load to the lower body, and starts a new
    /// point's normal force at that share. Every point above it must have been carried.
    #[inline(always)]
    fn carry(&mut self, point: &mut ContactPoint) {
        let Some((upper, lower)) = bearing(point, self.up) else {
            return;
        };
        let share = self.load[upper] / f64::from(self.supports[upper].max(1));
        self.load[lower] += share;
        if point.memory.tangent == Vec3::ZERO {
            point.memory.normal = share;
        }
    }
}

/// The upper and lower slot of a point whose normal is within [`BEARING`] of `up` (either
/// way), else `None`.
#[inline(always)]
fn bearing(point: &ContactPoint, up: Vec3) -> Option<(usize, usize)> {
    let along = point.candidate.geometry.normal.dot(up);
    let [a, b] = point.slots.map(|s| s as usize);
    if along >= BEARING {
        Some((b, a))
    } else if along <= -BEARING {
        Some((a, b))
    } else {
        None
    }
}

/// What [`write_rows`] does to each point, in its pass over them, before writing its rows:
/// each of these was a pass of its own over points of a few hundred bytes.
pub(crate) struct PointPasses<'a> {
    /// The predicted velocities (per slot) and the world's restitution threshold to
    /// prepare each point with ([`prepare`]); `None` if [`prepare`] ran already.
    pub(crate) prepare: Option<(&'a [Pair], f64)>,
    /// The load estimate to carry down the points ([`count_supports`]).
    pub(crate) loads: Option<LoadEstimate<'a>>,
}

/// The shapes ([`RowShapes`]) of the rows [`write_rows`] writes for `points` in `order` under
/// `model`, numbered from producer row `first`: each point's normal row, bounded, then its
/// friction rows (if it has friction) pointing at it.
#[inline(always)]
pub(crate) fn write_shapes(
    points: &[ContactPoint],
    order: &[u32],
    model: FrictionModel,
    first: usize,
    shapes: &mut RowShapes,
) {
    let friction_rows = friction_row_count(model);
    let mut next = first;
    for &p in order {
        let point = &points[p as usize];
        shapes.push(point.slots, None, false);
        let normal = next;
        next += 1;
        if point.candidate.friction > 0.0 {
            for _ in 0..friction_rows {
                shapes.push(point.slots, Some(normal), false);
            }
            next += friction_rows;
        }
    }
}

/// Whether `shapes`, from producer row `first` to its end, are exactly what
/// [`write_shapes`] would write for `points` in `order` under `model`: checked in place,
/// point by point, stopping at the first difference, so that a step whose contacts keep
/// their structure (S1's pyramid, after its first steps) writes no shapes at all.
#[inline(always)]
pub(crate) fn shapes_match(
    points: &[ContactPoint],
    order: &[u32],
    model: FrictionModel,
    first: usize,
    shapes: &RowShapes,
) -> bool {
    let friction_rows = friction_row_count(model);
    // Cut to one length: the check against it below then covers every read.
    let n = shapes.bodies.len();
    let (bodies, findex, unbounded) = (
        &shapes.bodies[..n],
        &shapes.findex[..n],
        &shapes.unbounded[..n],
    );
    let mut next = first;
    for &p in order {
        let point = &points[p as usize];
        let rows = if point.candidate.friction > 0.0 {
            1 + friction_rows
        } else {
            1
        };
        let end = next + rows;
        if end > bodies.len() {
            return false;
        }
        let normal = next;
        let same = (next..end).all(|r| {
            let of = if r == normal { None } else { Some(normal) };
            bodies[r] == point.slots && findex[r] == of && !unbounded[r]
        });
        if !same {
            return false;
        }
        next = end;
    }
    next == bodies.len()
}

/// Where [`write_rows`] writes: appended to a storage in producer order, or each row at its
/// place in island order.
#[derive(Debug)]
pub(crate) enum RowPlacement<'a> {
    /// Appended after the storage's rows (producer row = storage row).
    Append,
    /// Producer row `r` (numbered on from `first`) at storage row `position[r]`
    /// (`DROPPED`: not written); the storage was sized and given its friction indices by
    /// `Islands::place_written`.
    Placed { first: usize, position: &'a [u32] },
}

/// Writes the rows of every point into `storage` at `placement`, at `poses` (solver
/// slots), the points taken in `order` (a permutation of their indices: from the highest pair to the lowest,
/// the order Gauss-Seidel should visit them): each point's normal row, then its friction
/// rows. That is the order the solvers take them in (`crate::solver::island` keeps a contact's rows
/// together: Gauss-Seidel solves them as one block, the exact stepper's envelope
/// factorisation stays narrow), so the islands need not regroup them.
///
/// The points' step-start witness points are used and each point's rows and warm start are
/// recorded; with `projected` (contacts in post-stabilisation) a penetration is not
/// corrected here (ERP 0 on it), only by the projection after the step
/// ([`write_positional_rows`]), so the velocities get no push-out energy. With
/// `central_by_erp` as well, a point whose normal passes through its dynamic bodies'
/// centres of mass (`pushes_through_centres`) keeps its ERP instead, on at most
/// [`CENTRAL_CONTACT_TOLERANCE`] beyond the slop, with its CFM yield taken back at last
/// step's force. `positional` (per point, by index) receives each point's
/// [`PositionalContact`], which records whether it was so treated.
///
/// Before its rows, each point is carried by `passes` (its load estimate, its frames and
/// restitution), which would otherwise be walks of their own over the points.
///
/// Returns whether every written row's values are finite (bounds: not NaN), checked as
/// they are written rather than in another pass over the rows; `false` may also mean a
/// finite row whose Jacobian entries sum beyond `f64::MAX` (`RowStorage::all_finite`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn write_rows(
    points: &mut [ContactPoint],
    order: &[u32],
    poses: &[Pose],
    dynamic: &[bool],
    world_softness: Softness,
    model: FrictionModel,
    projected: bool,
    central_by_erp: bool,
    storage: &mut RowStorage,
    placement: RowPlacement<'_>,
    positional: &mut Vec<PositionalContact>,
    mut passes: PointPasses<'_>,
) -> bool {
    positional.clear();
    positional.resize(points.len(), PositionalContact::default());
    // One pass over the points (a point is a few hundred bytes; S1 has 2,360 of them).
    // Appended, the arrays are grown once for the most rows the points can have, and cut
    // to the rows written at the end.
    let n = points.len();
    let (mut next, position) = match placement {
        RowPlacement::Append => (storage.grow(n * (1 + friction_row_count(model))), None),
        RowPlacement::Placed { first, position } => (first, Some(position)),
    };
    // Producer row `raw`'s storage row, if it is written.
    let at = |raw: usize| stored_at(position, raw);
    debug_assert_eq!(order.len(), n);
    let mut finite = true;
    let mut rows = storage.columns();
    for (k, &p) in order.iter().enumerate() {
        super::prefetch_point(points, order, k + PREFETCH_AHEAD);
        let point = &mut points[p as usize];
        if let Some(loads) = &mut passes.loads {
            loads.carry(point);
        }
        if let Some((predicted, threshold)) = passes.prepare {
            prepare_point(point, predicted, poses, threshold);
        }
        let [a, b] = point.slots;
        let (pose_a, pose_b) = (&poses[a as usize], &poses[b as usize]);
        let c = &point.candidate;
        let softness = c.softness.unwrap_or(world_softness);
        let (anchors, normal) = (point.anchors, c.geometry.normal);
        let mut row = linear_row_at(pose_a, pose_b, -normal, anchors[0], anchors[1])
            .bounded(0.0, f64::INFINITY);
        let through_centres =
            central_by_erp && projected && pushes_through_centres(&row.jacobian, [a, b], dynamic);
        positional[p as usize].set(point, world_softness, through_centres);
        let projected = projected && !through_centres;
        let (erp, cfm) = match point.bounce {
            Some(speed) => {
                // Newton's law alone: no position correction on top of the bounce, and an
                // all but rigid row: CFM would take `cfm * lambda` off the bounce speed,
                // and an impact's force is its impulse over `h` (1.5 % of the rebound
                // height for a 1 m drop at h = 1 ms with CFM 1e-5).
                row = row.target_velocity(speed);
                (0.0, softness.cfm * IMPACT_CFM_SCALE)
            }
            // Speculative: close the gap in one step, never pass it.
            _ if row.error > 0.0 => (1.0, softness.cfm),
            _ if projected => (0.0, softness.cfm),
            _ => (softness.erp, softness.cfm),
        };
        if (erp, cfm) != (softness.erp, softness.cfm) {
            row = row.softness(Softness { erp, cfm });
        }
        if through_centres && point.bounce.is_none() && row.error <= 0.0 {
            // ERP pushes out what the projection leaves; deeper (an impact) is projected,
            // or ERP's push would throw the body off: an inelastic ball dropped 1 m at
            // h = 1/60 rose 3.6 mm from its landing's penetration.
            row.error = row
                .error
                .max(-(PROJECTION_SLOP + CENTRAL_CONTACT_TOLERANCE));
            // CFM's yield (`cfm lambda` a step, which the projection takes back for the
            // other contacts) taken back in advance at last step's force: a push through
            // the centres cannot start the rocking that this made stacks fall with.
            row.target_velocity += softness.cfm * point.memory.normal;
        }
        let index = next;
        next += 1;
        point.normal_row = index;
        let normal_at = at(index);
        if let Some(i) = normal_at {
            finite &= usable(&row);
            rows.set_values(i, [a, b], &row, softness);
            if position.is_none() {
                rows.set_findex(i, None);
            }
            rows.set_warm(i, point.memory.normal, point.memory.states[0]);
        }

        let [p_a, p_b] = point.anchors;
        let [t1, t2] = point.tangents;
        let start = next;
        // Box friction's two rows start from last step's friction force along their
        // directions, and keep their index sets if the basis did not turn; other models'
        // rows start from zero.
        let memory = &point.memory;
        let box_rows = !matches!(model, FrictionModel::PolygonalCone { .. });
        // Index sets only mean something for the same rows in the same directions.
        let same_basis = box_rows && memory.tangent.dot(t1) >= SAME_BASIS;
        if c.friction > 0.0 {
            for (k, direction) in friction_directions(model, t1, t2).enumerate() {
                let Some(i) = at(next) else {
                    next += 1;
                    continue;
                };
                // Friction acts on velocity only: parry keeps the witness points of a
                // coherent manifold fixed to the bodies, and their tangential offset as a
                // position error would act as a stiff anchor spring (which, like ERP on the
                // normal, makes tall stacks rock under Gauss-Seidel).
                let mut row = linear_row_at(pose_a, pose_b, -direction, p_a, p_b);
                row.error = 0.0;
                let row = row
                    .bounded(-c.friction, c.friction)
                    .target_velocity(direction.dot(c.surface_velocity))
                    .unstabilized();
                finite &= usable(&row);
                rows.set_values(i, [a, b], &row, softness);
                if position.is_none() {
                    rows.set_findex(i, Some(index));
                }
                // Every value is written: placed rows hold last step's until then.
                let warm = if box_rows {
                    memory.friction.dot(direction)
                } else {
                    0.0
                };
                let state = if same_basis {
                    memory.states[k + 1]
                } else {
                    None
                };
                rows.set_warm(i, warm, state);
                next += 1;
            }
        }
        point.friction_rows = start..next;
        if let (Some(normal_at), false) = (normal_at, same_basis || next == start) {
            // A changed basis invalidates the normal's set too (they are solved together).
            rows.set_warm_state(normal_at, None);
        }
    }
    match position {
        None => storage.truncate(next),
        // `write_shapes` numbered these rows alike: the islands placed every one.
        Some(position) => debug_assert_eq!(next, position.len()),
    }
    finite
}

/// Whether every number of `row` the solver reads is usable, without a branch per value:
/// as `RowStorage::all_finite` checks a stored row.
#[inline(always)]
fn usable(row: &Row) -> bool {
    (row.jacobian.sum() + row.error + row.target_velocity).is_finite()
        & !row.lo.is_nan()
        & !row.hi.is_nan()
}

/// Lever arm (m) below which a contact normal counts as passing through a body's centre of
/// mass: round-off for a sphere's witness points.
const CENTRAL_LEVER: f64 = 1e-9;

/// Whether the normal row `jacobian` of bodies `slots` turns neither of its dynamic bodies
/// (`dynamic`, per slot): its line passes through their centres of mass, as a sphere's on
/// anything does. Such a contact keeps its ERP instead of being projected after the step.
/// The projection exists because ERP's push, through a lever arm and an unconverged
/// Gauss-Seidel, turns bodies and feeds a rocking that topples stacks
/// ([`crate::ContactSettings::post_stabilize`]); a push through the centres turns nothing.
/// S2's sphere pile rests at 2.4 um mean depth instead of 83 um, in a step 22 % shorter.
fn pushes_through_centres(jacobian: &JacobianRow, slots: [u32; 2], dynamic: &[bool]) -> bool {
    let [a, b] = slots.map(|s| dynamic[s as usize]);
    let turns = |moves: bool, angular: Vec3| {
        moves && angular.length_squared() > CENTRAL_LEVER * CENTRAL_LEVER
    };
    !(turns(a, jacobian.angular_a) || turns(b, jacobian.angular_b))
}

/// Reads each point's forces from the solved rows (by producer row), fills `contacts` with
/// the report (points in `order`), adds each point's force and torque to `wrenches` (by
/// solver slot), and updates the points' memories.
#[inline(always)]
pub(crate) fn read_forces(
    points: &mut [ContactPoint],
    order: &[u32],
    solved: SolvedRows<'_>,
    poses: &[Pose],
    model: FrictionModel,
    contacts: &mut Vec<Contact>,
    wrenches: &mut [ContactWrench],
) {
    contacts.clear();
    for (k, &p) in order.iter().enumerate() {
        super::prefetch_point(points, order, k + PREFETCH_AHEAD);
        let point = &mut points[p as usize];
        let (normal_force, normal_state) = solved.force_and_state(point.normal_row);
        let [t1, t2] = point.tangents;
        let n = point.candidate.geometry.normal;
        // A loop rather than `sum`, whose fold the compiler kept out of line in its
        // baseline copy (docs/performance.md#the-step-compiled-for-avx2); the same sum.
        let mut friction = Vec3::ZERO;
        let mut states = [normal_state, None, None];
        let rows = friction_directions(model, t1, t2).zip(point.friction_rows.clone());
        for (k, (d, r)) in rows.enumerate() {
            let (force, state) = solved.force_and_state(r);
            friction += d * force;
            if let Some(slot) = states.get_mut(k + 1) {
                *slot = state;
            }
        }
        let force = n * normal_force + friction;
        let memory = &mut point.memory;
        memory.normal = normal_force;
        memory.friction = friction;
        memory.tangent = t1;
        memory.states = states;
        let [a, b] = point.slots.map(|s| s as usize);
        let [p_a, p_b] = point.anchors;
        wrenches[b].force += force;
        wrenches[b].torque += (p_b - poses[b].position).cross(force);
        wrenches[a].force -= force;
        wrenches[a].torque -= (p_a - poses[a].position).cross(force);
        contacts.push(Contact {
            geometry: point.candidate.geometry,
            frame: [n, t1, t2],
            friction: point.candidate.friction,
            restitution: point.candidate.restitution,
            bounced: point.bounce.is_some(),
            force_local: Vec3::new(normal_force, friction.dot(t1), friction.dot(t2)),
            force,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handles::{ColliderHandle, Handle};
    use crate::rows::DROPPED;
    use stiction_lcp::IndexState;

    /// Two boxes' contacts with the ground (slot 2): point `k` on body `k`, 1 m apart.
    fn two_points() -> Vec<ContactPoint> {
        (0..2u32)
            .map(|k| {
                let colliders = [0, k + 1].map(|s| ColliderHandle::from_parts(s, 0));
                let mut point = ContactPoint::fixture(colliders, [2, k], Vec3::ZERO);
                point.anchors = [Vec3::new(k as f64, 0.0, 0.0); 2];
                point.tangents = [Vec3::X, Vec3::Y];
                point.memory.normal = 1.0 + k as f64;
                point
            })
            .collect()
    }

    fn write(
        points: &mut [ContactPoint],
        storage: &mut RowStorage,
        placement: RowPlacement<'_>,
    ) -> bool {
        let poses = [Pose::IDENTITY; 3];
        let mut positional = Vec::new();
        write_rows(
            points,
            &[1, 0],
            &poses,
            &[true, true, false],
            Softness::DEFAULT,
            FrictionModel::Box,
            true,
            true,
            storage,
            placement,
            &mut positional,
            PointPasses {
                prepare: None,
                loads: None,
            },
        )
    }

    #[test]
    fn placed_rows_equal_appended_ones_and_both_report_non_finite_values() {
        let mut points = two_points();
        let mut appended = RowStorage::default();
        assert!(write(&mut points, &mut appended, RowPlacement::Append));
        assert_eq!(appended.len(), 6);
        // Point 1 first (its normal is raw row 0), each normal followed by its frictions.
        assert_eq!((points[1].normal_row, points[0].normal_row), (0, 3));
        assert_eq!(appended.findex[1..3], [Some(0), Some(0)]);
        assert_eq!(appended.warm_lambda[..4], [2.0, 0.0, 0.0, 1.0]);
        let mut shapes = RowShapes::default();
        write_shapes(&points, &[1, 0], FrictionModel::Box, 0, &mut shapes);
        assert!(shapes.describe(&appended));

        // Placed in reverse over stale rows: every value written, friction indices kept.
        let position: Vec<u32> = (0..6).rev().collect();
        let mut placed = appended.clone();
        placed.error.fill(f64::NAN);
        placed.warm_state.fill(Some(IndexState::AtUpper));
        placed.warm_lambda.fill(-7.0);
        placed.findex = vec![Some(9); 6];
        let placement = RowPlacement::Placed {
            first: 0,
            position: &position,
        };
        assert!(write(&mut points, &mut placed, placement));
        assert_eq!(placed.findex, [Some(9); 6]);
        for r in 0..6 {
            let i = 5 - r;
            assert_eq!(placed.bodies[i], appended.bodies[r]);
            assert_eq!(placed.jacobian[i], appended.jacobian[r]);
            assert_eq!(placed.error[i].to_bits(), appended.error[r].to_bits());
            assert_eq!(placed.warm_lambda[i], appended.warm_lambda[r]);
            assert_eq!(placed.warm_state[i], appended.warm_state[r]);
            assert_eq!(
                (placed.lo[i], placed.hi[i]),
                (appended.lo[r], appended.hi[r])
            );
        }
        // Solved forces read back by producer row through the positions.
        placed.lambda = (0..6).map(f64::from).collect();
        let solved = SolvedRows::placed(&placed, &position);
        assert_eq!(solved.force_and_state(0).0, 5.0);
        let dropped = [DROPPED; 6];
        assert_eq!(
            SolvedRows::placed(&placed, &dropped).force_and_state(0).0,
            0.0
        );

        // A non-finite witness point makes both report it.
        points[0].anchors[0].x = f64::NAN;
        assert!(!write(&mut points, &mut appended, RowPlacement::Append));
        let placement = RowPlacement::Placed {
            first: 0,
            position: &position,
        };
        assert!(!write(&mut points, &mut placed, placement));
    }

    /// The shapes `write_shapes` writes for `points` in `order` after `joint_rows` rows.
    fn written_shapes(
        points: &[ContactPoint],
        order: &[u32],
        model: FrictionModel,
        joint_rows: usize,
    ) -> RowShapes {
        let mut shapes = RowShapes::default();
        for r in 0..joint_rows {
            shapes.push([r as u32, 2], None, true);
        }
        write_shapes(points, order, model, joint_rows, &mut shapes);
        shapes
    }

    #[test]
    fn shapes_match_in_place_exactly_when_written_shapes_are_equal() {
        let mut points = two_points();
        points.push(points[0].clone());
        points[2].candidate.friction = 0.0;
        let order = [1, 2, 0];
        for model in [
            FrictionModel::Box,
            FrictionModel::PolygonalCone { edges: 4 },
        ] {
            let kept = written_shapes(&points, &order, model, 2);
            assert!(shapes_match(&points, &order, model, 2, &kept));
            // Each change to the points the islands depend on is seen, as the written
            // shapes would differ.
            let mut changes: Vec<(Vec<ContactPoint>, Vec<u32>)> = Vec::new();
            let mut moved = points.clone();
            moved[0].slots = [2, 1];
            changes.push((moved, order.to_vec()));
            let mut frictionless = points.clone();
            frictionless[1].candidate.friction = 0.0;
            changes.push((frictionless, order.to_vec()));
            let mut rubbing = points.clone();
            rubbing[2].candidate.friction = 0.3;
            changes.push((rubbing, order.to_vec()));
            changes.push((points.clone(), vec![0, 2, 1]));
            changes.push((points[..2].to_vec(), vec![1, 0]));
            let mut more = points.clone();
            more.push(points[1].clone());
            changes.push((more, vec![1, 2, 0, 3]));
            for (changed, changed_order) in &changes {
                let written = written_shapes(changed, changed_order, model, 2);
                assert_ne!(written, kept);
                assert!(!shapes_match(changed, changed_order, model, 2, &kept));
                // And the changed points match their own shapes.
                assert!(shapes_match(changed, changed_order, model, 2, &written));
            }
            // Kept shapes differing in a friction index or a bound alone.
            let mut wrong = kept.clone();
            wrong.findex[3] = Some(1);
            assert!(!shapes_match(&points, &order, model, 2, &wrong));
            let mut wrong = kept.clone();
            wrong.unbounded[2] = true;
            assert!(!shapes_match(&points, &order, model, 2, &wrong));
            // The joints' rows before the contacts' are compared by `starts_with_rows`.
            let mut raw = RowStorage::default();
            for r in 0..2u32 {
                let poses = [Pose::IDENTITY; 2];
                let mut writer = raw.writer([r, 2], poses, Softness::DEFAULT, false);
                writer.push(Row::equality(JacobianRow::default(), 0.0));
            }
            assert!(kept.starts_with_rows(&raw));
            raw.bodies[1] = [1, 0];
            assert!(!kept.starts_with_rows(&raw));
        }
    }
}
