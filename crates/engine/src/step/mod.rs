//! The step pipeline (docs/dynamics.md#the-semi-implicit-step, ODE's `dWorldStep` and `dWorldQuickStep`):
//!
//! 0. **Collision** ([`crate::collision`]): bodies classified awake or asleep (waking those
//!    the user disturbed), broad phase, waking of sleeping groups that awake bodies
//!    reach, narrow phase, the contact hook; contact points ordered from the highest pair
//!    to the lowest.
//! 1. **Forces**: for each awake dynamic body, the unconstrained velocity
//!    `u* = (u + h M^-1 (f + m g)) / (1 + h c)`, with the angular part from the body's
//!    gyroscopic mode ([`crate::dynamics::gyroscopic::angular_velocity_after_step`], which is
//!    `w + h I^-1 tau~` for the equivalent torque `tau~` of [`crate::equivalent_torque`]).
//!    A sleeping body is fixed: zero velocity, infinite mass.
//! 2. **Rows**: every enabled joint writes its rows at the current poses (with the
//!    curvature term, [`crate::joint::curvature`]), then every contact point its normal
//!    row followed by its friction rows ([`crate::contact`]), warm-started from the
//!    point's memory (or, for a new point, from the weight it carries).
//! 3. **Islands**: bodies connected by rows ([`crate::solver::island`]), found between
//!    the joints' rows and the contacts' from the rows' shapes (the last step's islands
//!    kept when the contacts still have their shapes), so that the contacts write theirs
//!    straight into island order.
//! 4. **Solve**: per island, `A lambda = b + w` with `A = J M^-1 J^T + diag(cfm)/h` and
//!    `b = (rhs - J u*) / h`, `rhs = -erp C / h + target`: exactly (Dantzig on the dense `A`,
//!    or for large islands the sparse active-set solver of [`crate::solver::sparse_exact`], both
//!    falling back to Gauss-Seidel; Lemke for the polygonal friction cone) or iteratively
//!    (Gauss-Seidel on the sparse rows, projecting friction pairs on the Coulomb disk if
//!    asked). Either stepper solves a large island of bilateral rows only (a joint chain
//!    or tree) by one envelope factorisation ([`crate::solver::envelope`]) when that is cheaper.
//! 5. **Velocities**: `u+ = u* + h M^-1 J^T lambda`, with `M^-1 J^T lambda` per body taken
//!    from Gauss-Seidel's accumulators where an iterative solve kept them.
//! 6. **Integration**: poses by [`crate::advance_pose`] (so the conserving gyroscopic mode
//!    uses its midpoint attitude update); sleepers keep theirs.
//! 7. **Post-stabilisation** of joint errors and contact penetrations ([`crate::poststab`]).
//! 8. **Commit**: only now are bodies and joints written, contact forces reported and
//!    remembered, the events committed (sensor overlaps and touching pairs compared with
//!    the last step's, [`crate::contact::EventState`]), and resting islands put to sleep.
//!    Every earlier phase works in buffers, so a failure anywhere (a non-finite number, a
//!    solver error, an invalid value left by the contact hook) returns an error and leaves
//!    every body and joint, and the events, as they were (the collision caches may have
//!    moved on; they hold no state the step depends on beyond warm starts).
//!
//! A body in no island pays only for phases 1, 5 and 6; a sleeping body for none.
//!
//! Adding a row producer: in phase 2, after [`write_joint_rows_moving`], append its rows
//! through `RowStorage::writer` (body slots are `handle.index()`, the static world is
//! `HotBodies::ground`), keep each producer's raw row range, and fill `raw.warm_lambda` /
//! `raw.warm_state` from its own cache (as [`load_warm_starts`] does for joints); in
//! [`commit`], read its forces back from `raw.lambda[range]`. (Contacts, the bulk of most
//! scenes' rows, instead describe their rows' shapes before the islands are found and
//! write them straight into island order:
//! docs/performance.md#rows-written-in-island-order.) For post-stabilisation, write
//! its stabilised rows at `hot.next_pose` next to the joints' in `PostStabilizer::measure`
//! (one-sided rows are then solved by projected Gauss-Seidel with their sign kept).
//! Contacts (`crate::contact::rows`) are the example.

pub(crate) mod capture;
pub mod settings;
mod solve;

use crate::body::Activity;
use crate::body::RigidBody;
use crate::body::{BodyKind, Velocity};
use crate::collision::{self, Collider, CollisionPipeline};
use crate::contact::rows::{self as contact_rows, PointPasses, PositionalContact, RowPlacement};
use crate::contact::FrictionModel;
use crate::contact::{
    resolve_sequentially, Contact, ContactWrench, EventState, HookSlot, ImpactModel,
};
use crate::diagnostics::{IslandReport, StepPhase, StepStats};
use crate::dynamics::gyroscopic::angular_velocity_in_step;
use crate::dynamics::integrate::{applied_force, damping_factor, pose_after_step};
use crate::error::{IntegrationError, WorldError};
use crate::handles::Arena;
use crate::handles::{BodyHandle, ColliderHandle, JointHandle};
use crate::joint::curvature::{add_curvature_targets, CurvatureScratch};
use crate::joint::points::FixedRows;
use crate::joint::points::PointJoints;
use crate::joint::write_joint_rows_moving;
use crate::joint::{Joint, JointFeedback};
use crate::math::Vec3;
use crate::poststab::{PostStabilizer, SharedFactors};
use crate::rows::hot::HotBodies;
use crate::rows::{Pose, RowPass, RowShapes, RowStorage, SolvedRows, DROPPED};
use crate::sleep::SleepTracker;
use crate::solver::assemble::{assemble_island, ProblemPool};
use crate::solver::envelope::{EnvelopeBuilder, EnvelopeRows, Skyline};
use crate::solver::island::Islands;
use crate::solver::settings::{ExactSettings, IterativeSettings, Solver};
use crate::solver::sparse::{
    compute_solve_terms, scatter, sparse_residual, InverseMasses, LaneBlocks, RowMass,
    SparseOperator,
};
use crate::solver::sparse_exact::{SparseExactSolver, SparseIsland};
use settings::WorldSettings;
use solve::solve_islands;
use std::ops::Range;
use std::time::{Duration, Instant};
use stiction_lcp::dantzig::DantzigSolver;
use stiction_lcp::pgs::{pgs_sweeps, PgsScratch, RowOperator};
use stiction_lcp::{IndexState, LcpError, SolveReport, Status};

/// Everything a step computes before committing, reused between steps.
#[derive(Debug, Clone, Default)]
pub(crate) struct StepScratch {
    hot: HotBodies,
    /// Rows in producer order.
    raw: RowStorage,
    /// Rows in island order.
    rows: RowStorage,
    /// Whether `raw`'s rows were moved into `rows` (already in island order,
    /// [`Islands::lend`]): `raw` is stale until [`commit`] gives them back.
    rows_lent: bool,
    /// The shapes of this step's rows, from which the islands are found before the
    /// contacts' rows are written; written only when the kept islands no longer hold.
    shapes: RowShapes,
    /// Each joint's slot and raw row range this step.
    joint_rows: Vec<(usize, Range<usize>)>,
    islands: Islands,
    mass: RowMass,
    /// Gauss-Seidel's batched contact blocks, lane by lane.
    lanes: LaneBlocks,
    /// `b` of every sorted row.
    b: Vec<f64>,
    /// `cfm / h` of every sorted row.
    regularization: Vec<f64>,
    /// Per island: whether its solve left `M^-1 J^T lambda` of its bodies in
    /// `hot.constraint` (Gauss-Seidel's accumulators), so the velocity update skips its rows.
    accumulated: Vec<bool>,
    /// One island's forces during its solve.
    x: Vec<f64>,
    guess: Vec<IndexState>,
    /// The iterative stepper's Gauss-Seidel scratch per island, so that an island whose
    /// structure is unchanged keeps its sweep plan (`PgsScratch::assume_same_structure`).
    island_pgs: Vec<PgsScratch>,
    dantzig: DantzigSolver,
    /// The last dense island solve's answer (its vectors reused between solves).
    report: SolveReport,
    /// The exact stepper's solver for islands above `ExactSettings::dense_row_limit`.
    sparse_exact: SparseExactSolver,
    problems: ProblemPool,
    poststab: PostStabilizer,
    /// Per contact point: what post-stabilisation reads of it, including whether its
    /// normal passes through its bodies' centres of mass (`contact::rows::write_rows`:
    /// ERP corrects it, the projection only when deep).
    positional_contacts: Vec<PositionalContact>,
    /// Point joints' rows on their way into `raw` (`JointRows::fixed_point`).
    fixed_rows: FixedRows,
    /// The step's point joints, read once for the curvature look-ahead and the
    /// projection's passes.
    points: PointJoints,
    /// The direct solve of all-bilateral islands: its envelope scratch and factorisation.
    envelope: EnvelopeBuilder,
    skyline: Skyline,
    /// Per body slot: the weight estimate and supporting points of
    /// [`contact_rows::estimate_loads`].
    contact_load: Vec<f64>,
    contact_supports: Vec<u32>,
    /// The contacts taking part in sequential impacts (`contact::impact`).
    impact_contacts: Vec<u32>,
    curvature: CurvatureScratch,
    /// Copies of the assembled island problems, when asked (`World::captured_problems`).
    pub(crate) capture: capture::ProblemCapture,
}

impl StepScratch {
    /// Each joint's slot and producer-order row range in the last step.
    pub(crate) fn joint_rows(&self) -> &[(usize, Range<usize>)] {
        &self.joint_rows
    }
}

/// The parts of the world a step reads and writes, borrowed from the `World` facade so that
/// the step sits below it.
pub(crate) struct StepState<'a> {
    pub(crate) bodies: &'a mut Arena<RigidBody, BodyHandle>,
    pub(crate) joints: &'a mut Arena<Joint, JointHandle>,
    pub(crate) colliders: &'a Arena<Collider, ColliderHandle>,
    pub(crate) settings: &'a WorldSettings,
    pub(crate) stats: &'a mut StepStats,
    pub(crate) scratch: &'a mut StepScratch,
    pub(crate) collision: &'a mut CollisionPipeline,
    pub(crate) hook: &'a HookSlot,
    pub(crate) sleep: &'a mut SleepTracker,
    /// The last step's contact points and forces.
    pub(crate) contacts: &'a mut Vec<Contact>,
    /// The last step's contact force and torque per body slot (plus the ground).
    pub(crate) wrenches: &'a mut Vec<ContactWrench>,
    /// The last committed step's sensor overlaps, touching pairs and events.
    pub(crate) events: &'a mut EventState,
}

/// Advances the borrowed world by `h` seconds: the stages of the module docs, each timed
/// into the statistics. On error no body or joint has changed.
pub(crate) fn step(mut w: StepState<'_>, h: f64) -> Result<(), WorldError> {
    let start = PhaseClock::start(w.settings.time_phases);
    w.stats.reset(h);
    w.scratch.capture.begin_step();
    let result = run_stages(&mut w, h);
    w.stats.times.total = start.elapsed();
    match &result {
        Ok(()) => w.stats.committed = true,
        Err(WorldError::NonFinite { .. }) => w.stats.non_finite += 1,
        Err(_) => {}
    }
    result
}

crate::avx2::compiled_for_avx2! {
    /// The stage list. Every stage before [`commit`] writes only scratch buffers.
    fn run_stages(w: &mut StepState<'_>, h: f64) -> Result<(), WorldError> => stages
}

/// [`run_stages`]'s work, inlined into its two copies. The stages are inlined into it
/// too, except with the `stage-profile` feature, which keeps them out of line so that an
/// instruction count splits the step by stage (docs/performance.md#counting-instructions).
#[inline(always)]
fn stages(w: &mut StepState<'_>, h: f64) -> Result<(), WorldError> {
    if !(h.is_finite() && h > 0.0) {
        return Err(WorldError::InvalidTimeStep { h });
    }
    let timing = w.settings.time_phases;

    let clock = PhaseClock::start(timing);
    detect_collisions(w, h)?;
    w.stats.times.collision = clock.elapsed();

    let clock = PhaseClock::start(timing);
    predict_velocities(
        w.bodies,
        &w.sleep.activity,
        w.settings.gravity,
        h,
        &mut w.scratch.hot,
        w.stats,
    )?;
    w.stats.times.forces = clock.elapsed();

    let clock = PhaseClock::start(timing);
    write_joint_rows(w, h);
    let joint_rows_time = clock.elapsed();

    let clock = PhaseClock::start(timing);
    build_islands(w);
    w.stats.times.islands = clock.elapsed();

    let clock = PhaseClock::start(timing);
    write_contact_rows(w)?;
    w.stats.times.rows = joint_rows_time + clock.elapsed();

    let clock = PhaseClock::start(timing);
    let model = w.settings.contacts.friction_model;
    solve_islands(w.scratch, &w.settings.solver, model, h, w.stats)?;
    w.stats.times.solve = clock.elapsed();

    let clock = PhaseClock::start(timing);
    update_velocities(w.scratch, w.bodies, h)?;
    integrate_poses(w.bodies, &w.sleep.activity, &mut w.scratch.hot, h, w.stats)?;
    w.stats.times.integration = clock.elapsed();

    let clock = PhaseClock::start(timing);
    post_stabilize(w)?;
    w.stats.times.post_stabilization = clock.elapsed();

    // Nothing below can fail: from here on the step is committed.
    commit(w.bodies, w.joints, w.scratch, &mut w.stats.broken_joints);
    report_contacts(w, h);
    fall_asleep(w, h);
    Ok(())
}

/// Stage 0: sleep classification, broad phase, waking what awake bodies reach, narrow
/// phase and the contact hook.
#[cfg_attr(not(feature = "stage-profile"), inline(always))]
#[cfg_attr(feature = "stage-profile", inline(never))]
fn detect_collisions(w: &mut StepState<'_>, h: f64) -> Result<(), WorldError> {
    let sleeping = w.settings.sleep.enabled;
    let contacts = &w.settings.contacts;
    w.sleep.classify(w.bodies, sleeping);
    collision::find_pairs(
        w.collision,
        w.colliders,
        w.bodies,
        &w.sleep.activity,
        contacts,
        collision::StepMotion {
            h,
            gravity: w.settings.gravity,
        },
    );
    if sleeping {
        let ground = w.bodies.capacity() as u32;
        w.sleep.propagate(&w.collision.body_pairs, w.joints, ground);
    }
    collision::compute_contacts(
        w.collision,
        w.colliders,
        &w.sleep.activity,
        w.hook,
        contacts,
        w.settings.gravity,
    )?;
    w.stats.collision_pairs = w.collision.pairs.len();
    w.stats.contacts = w.collision.points.len();
    w.stats.unsupported_pairs = w.collision.unsupported_pairs;
    Ok(())
}

/// Whether the step resolves restitution by sequential impacts before its solve (the
/// exact stepper's [`ImpactModel::Sequential`]).
fn sequential_impacts(settings: &WorldSettings) -> bool {
    matches!(&settings.solver, Solver::Exact(exact) if exact.impacts == ImpactModel::Sequential)
}

/// Stage 2: sequential impacts (with the contacts' frames and restitution they read),
/// then the joints' rows (with their warm starts and curvature targets) into the raw
/// storage in producer order.
#[cfg_attr(not(feature = "stage-profile"), inline(always))]
#[cfg_attr(feature = "stage-profile", inline(never))]
fn write_joint_rows(w: &mut StepState<'_>, h: f64) {
    let (settings, s) = (w.settings, &mut *w.scratch);
    // Sequential impacts first: they change the velocities the joints' rows (limits,
    // curvature look-ahead) are written for, and read the contacts' frames and
    // restitution, which are prepared for them here. Without them `write_contact_rows`
    // prepares each point in its own pass over the points.
    if sequential_impacts(settings) {
        contact_rows::prepare(
            &mut w.collision.points,
            &s.hot.predicted,
            &s.hot.pose,
            settings.contacts.restitution_threshold,
        );
        w.stats.sequential_impacts = resolve_sequentially(
            &mut w.collision.points,
            &mut s.hot,
            h,
            settings.contacts.restitution_threshold,
            &mut s.impact_contacts,
        );
    }
    s.raw.clear();
    s.joint_rows.clear();
    let ground = s.hot.ground();
    s.points.gather(w.joints, ground);
    let joint_rows = &mut s.joint_rows;
    write_joint_rows_moving(
        w.joints,
        &s.hot.pose,
        Some((&s.hot.predicted, h)),
        ground,
        settings.softness,
        RowPass::Velocity,
        &mut s.raw,
        &mut s.fixed_rows,
        |slot, range| joint_rows.push((slot, range)),
    );
    load_warm_starts(w.joints, &s.joint_rows, &mut s.raw);
    // Without joint rows there is nothing to correct, and the look-ahead poses of every
    // body would cost a joint-free pile for nothing.
    if settings.curvature.enabled && !s.joint_rows.is_empty() {
        add_curvature_targets(
            &mut s.curvature,
            &settings.curvature,
            w.joints,
            &s.points,
            w.bodies,
            &s.hot,
            settings.softness,
            h,
            &mut s.raw,
            &s.joint_rows,
        );
    }
}

/// Stage 4: every contact point's normal and friction rows, written where the islands
/// put them (or after the joints' in producer order, for rows already in island order,
/// which are then lent to the solve), and the check that every row is finite. The same
/// walk over the points prepares each (frames, restitution; unless stage 2 did for
/// sequential impacts) and starts a new point's normal force at its estimated load.
#[cfg_attr(not(feature = "stage-profile"), inline(always))]
#[cfg_attr(feature = "stage-profile", inline(never))]
fn write_contact_rows(w: &mut StepState<'_>) -> Result<(), WorldError> {
    let (settings, s) = (w.settings, &mut *w.scratch);
    let points = &mut w.collision.points;
    let order = &w.collision.order;
    let loads = contact_rows::count_supports(
        points,
        &s.hot.inverse_mass,
        settings.gravity,
        &mut s.contact_load,
        &mut s.contact_supports,
    );
    let passes = PointPasses {
        // Prepared already for sequential impacts (`write_joint_rows`).
        prepare: (!sequential_impacts(settings)).then_some((
            &s.hot.predicted[..],
            settings.contacts.restitution_threshold,
        )),
        loads,
    };
    let joint_rows = s.raw.len();
    let lend = s.islands.identity();
    let (storage, placement) = if lend {
        (&mut s.raw, RowPlacement::Append)
    } else {
        let position = s.islands.positions();
        (
            &mut s.rows,
            RowPlacement::Placed {
                first: joint_rows,
                position,
            },
        )
    };
    let contacts_finite = contact_rows::write_rows(
        points,
        order,
        &s.hot.pose,
        &s.hot.dynamic,
        settings.softness,
        settings.contacts.friction_model,
        projects_contacts(settings),
        // The exact stepper projects every contact: its sparse solver was certified on
        // those piles' problems with them projected.
        matches!(settings.solver, Solver::Iterative(_)),
        storage,
        placement,
        &mut s.positional_contacts,
        passes,
    );
    // The joints' rows (and lent, the contacts' too), in producer order.
    check_rows(&s.raw, None, w.bodies)?;
    if lend {
        s.islands.lend(&mut s.raw, &mut s.rows);
        s.rows_lent = true;
        return Ok(());
    }
    if contacts_finite {
        return Ok(());
    }
    // The contacts' rows, in producer order for the error's body.
    let position = s.islands.positions();
    check_rows(&s.rows, Some(&position[joint_rows..]), w.bodies)
}

/// Whether contacts are projected after the step (post-stabilisation on for them).
fn projects_contacts(settings: &WorldSettings) -> bool {
    settings.contacts.post_stabilize && settings.post_stabilization.enabled
}

/// Stage 3: islands of bodies connected by rows, found from the joints' rows and the
/// contacts' shapes before the contacts' rows are written, and the joints' rows copied
/// into island order (unless every row already is in it).
#[cfg_attr(not(feature = "stage-profile"), inline(always))]
#[cfg_attr(feature = "stage-profile", inline(never))]
fn build_islands(w: &mut StepState<'_>) {
    let s = &mut *w.scratch;
    s.islands.group_contacts = true;
    s.islands.interleave = match w.settings.solver {
        Solver::Iterative(_) => crate::solver::island::INTERLEAVE,
        Solver::Exact(_) => 1,
    };
    let (points, order) = (&w.collision.points, &w.collision.order);
    let model = w.settings.contacts.friction_model;
    // The kept islands are checked against the rows in place; only a changed structure
    // writes the shapes out and sorts them.
    let (raw, first) = (&s.raw, s.raw.len());
    let kept = s.islands.reuse_if(&s.hot.dynamic, |kept| {
        kept.starts_with_rows(raw) && contact_rows::shapes_match(points, order, model, first, kept)
    });
    if !kept {
        s.shapes.clear();
        s.shapes.extend_from_rows(&s.raw);
        contact_rows::write_shapes(points, order, model, first, &mut s.shapes);
        s.islands.replan(&mut s.shapes, &s.hot.dynamic);
    }
    s.rows_lent = false;
    if !s.islands.identity() {
        s.islands.place_written(&s.raw, &mut s.rows);
    }
    let stats = &mut *w.stats;
    stats.rows = s.islands.sorted_rows();
    stats.islands = s.islands.len();
    stats.constrained_bodies = s.islands.body_count();
    let dynamic = s.hot.dynamic.iter().filter(|d| **d).count();
    stats.free_bodies = dynamic - stats.constrained_bodies;
}

/// Stage 7: position-level projection of joint errors and (when on) contact penetration.
#[cfg_attr(not(feature = "stage-profile"), inline(always))]
#[cfg_attr(feature = "stage-profile", inline(never))]
fn post_stabilize(w: &mut StepState<'_>) -> Result<(), WorldError> {
    let settings = w.settings;
    let s = &mut *w.scratch;
    let mut none = Vec::new();
    let (stabilized_contacts, contact_order, positional) = if projects_contacts(settings) {
        (
            &mut w.collision.points[..],
            &w.collision.order[..],
            &mut s.positional_contacts,
        )
    } else {
        (&mut [][..], &[][..], &mut none)
    };
    let any_rows = w.joints.len() > 0 || !stabilized_contacts.is_empty();
    if !(settings.post_stabilization.enabled && any_rows) {
        return Ok(());
    }
    s.poststab.run(
        w.joints,
        &s.points,
        stabilized_contacts,
        contact_order,
        positional,
        &mut s.hot,
        settings.softness,
        &settings.post_stabilization,
        &mut w.stats.post_stabilization,
        SharedFactors {
            mass: &mut s.mass,
            envelope: &mut s.envelope,
            skyline: &mut s.skyline,
        },
    )
}

/// Stage 9: the contact forces per point and per body, the contacts' memory for the
/// next step's warm start, and the events: this step's touching pairs (with their
/// impulses over the step `h`) and sensor overlaps committed against the last step's.
#[cfg_attr(not(feature = "stage-profile"), inline(always))]
#[cfg_attr(feature = "stage-profile", inline(never))]
fn report_contacts(w: &mut StepState<'_>, h: f64) {
    let s = &*w.scratch;
    w.wrenches.clear();
    w.wrenches.resize(s.hot.pose.len(), Default::default());
    let solved = if s.rows_lent {
        // Given back in `commit`: in producer order again.
        SolvedRows::in_order(&s.raw)
    } else {
        SolvedRows::placed(&s.rows, s.islands.positions())
    };
    contact_rows::read_forces(
        &mut w.collision.points,
        &w.collision.order,
        solved,
        &s.hot.pose,
        w.settings.contacts.friction_model,
        w.contacts,
        w.wrenches,
    );
    w.collision.remember_and_summarize(h, &w.events.touching);
    w.events.commit_touching(&w.collision.touching);
    w.events.commit_overlaps(&w.collision.overlaps);
}

/// Stage 10: islands at rest long enough fall asleep (their bodies' velocities zeroed).
#[cfg_attr(not(feature = "stage-profile"), inline(always))]
#[cfg_attr(feature = "stage-profile", inline(never))]
fn fall_asleep(w: &mut StepState<'_>, h: f64) {
    let settings = w.settings;
    if settings.sleep.enabled {
        let s = &*w.scratch;
        let islands = (0..s.islands.len()).map(|k| s.islands.bodies(k));
        w.sleep.fall_asleep(
            &settings.sleep,
            h,
            &s.hot.next_velocity,
            &s.hot.next_pose,
            islands,
        );
        for slot in 0..w.bodies.capacity() {
            if let (true, Some(body)) = (w.sleep.is_asleep(slot), w.bodies.slot_mut(slot)) {
                body.velocity = Velocity::default();
            }
        }
    }
    w.stats.sleeping_bodies = w.sleep.sleeping();
}

/// Phase 1: fills the hot arrays and the unconstrained velocities `u*`.
#[cfg_attr(not(feature = "stage-profile"), inline(always))]
#[cfg_attr(feature = "stage-profile", inline(never))]
fn predict_velocities(
    bodies: &Arena<crate::body::RigidBody, BodyHandle>,
    activity: &[Activity],
    gravity: Vec3,
    h: f64,
    hot: &mut HotBodies,
    stats: &mut StepStats,
) -> Result<(), WorldError> {
    hot.reset(bodies.capacity());
    for slot in 0..bodies.capacity() {
        let Some(body) = bodies.slot(slot) else {
            continue;
        };
        hot.pose[slot] = Pose::of(body);
        let velocity = [body.velocity.linear, body.velocity.angular];
        hot.predicted[slot] = match body.kind {
            // A sleeper is fixed until it wakes (crate::sleep).
            BodyKind::Dynamic if activity.get(slot) == Some(&Activity::Asleep) => [Vec3::ZERO; 2],
            BodyKind::Dynamic => {
                hot.dynamic[slot] = true;
                hot.inverse_mass[slot] = body.inverse_mass;
                hot.inverse_inertia[slot] = body.inverse_inertia_world();
                hot.inverse_inertia_body[slot] = body.inverse_inertia_body;
                let acceleration = applied_force(body, gravity) * body.inverse_mass;
                let linear = damped(velocity[0] + h * acceleration, body.linear_damping, h);
                let step = angular_velocity_in_step(body, h).map_err(|e| {
                    integration_error(e, handle_at(bodies, slot), StepPhase::Forces)
                })?;
                if !step.convergence.converged {
                    stats.gyroscopic_fallbacks += 1;
                }
                let angular = damped(step.angular_velocity, body.angular_damping, h);
                if !(linear.is_finite() && angular.is_finite()) {
                    let handle = handle_at(bodies, slot);
                    return Err(non_finite(StepPhase::Forces, Some(handle)));
                }
                [linear, angular]
            }
            BodyKind::Kinematic => velocity,
            BodyKind::Static => [Vec3::ZERO; 2],
        };
    }
    Ok(())
}

/// `velocity` scaled by [`damping_factor`]; undamped bodies (the default) skip its division,
/// whose factor would be exactly 1.
#[inline]
fn damped(velocity: Vec3, damping: f64, h: f64) -> Vec3 {
    if damping == 0.0 {
        velocity
    } else {
        velocity * damping_factor(damping, h)
    }
}

/// A phase's stopwatch: reads the clock only when the world times its phases
/// ([`crate::WorldSettings::time_phases`]).
struct PhaseClock(Option<Instant>);

impl PhaseClock {
    fn start(on: bool) -> Self {
        Self(on.then(Instant::now))
    }

    /// The time since [`Self::start`], zero when not timing.
    fn elapsed(&self) -> Duration {
        self.0.map_or(Duration::ZERO, |start| start.elapsed())
    }
}

/// Copies each joint's last forces (and index sets) into its rows when its row count is
/// unchanged.
#[inline(always)]
fn load_warm_starts(
    joints: &Arena<Joint, JointHandle>,
    joint_rows: &[(usize, Range<usize>)],
    raw: &mut RowStorage,
) {
    for (slot, range) in joint_rows {
        let Some(joint) = joints.slot(*slot) else {
            continue;
        };
        if joint.last_lambda.len() == range.len() {
            raw.warm_lambda[range.clone()].copy_from_slice(&joint.last_lambda);
        }
        if joint.last_state.len() == range.len() {
            for (state, last) in raw.warm_state[range.clone()]
                .iter_mut()
                .zip(&joint.last_state)
            {
                *state = Some(*last);
            }
        }
    }
}

/// An error naming the first body of the first row (in producer order: `position` maps
/// producer rows to `rows`' rows, `DROPPED` for unwritten ones) with a non-finite value.
#[inline(always)]
fn check_rows(
    rows: &RowStorage,
    position: Option<&[u32]>,
    bodies: &Arena<crate::body::RigidBody, BodyHandle>,
) -> Result<(), WorldError> {
    if rows.all_finite() {
        return Ok(());
    }
    let culprit = match position {
        None => (0..rows.len()).find(|&i| !rows.is_finite(i)),
        Some(position) => position
            .iter()
            .filter(|&&i| i != DROPPED)
            .map(|&i| i as usize)
            .find(|&i| !rows.is_finite(i)),
    };
    match culprit {
        None => Ok(()),
        Some(i) => {
            let body = bodies.handle_at(rows.bodies[i][0] as usize);
            Err(non_finite(StepPhase::Rows, body))
        }
    }
}

/// Phase 5: `u+ = u* + h M^-1 J^T lambda`.
#[cfg_attr(not(feature = "stage-profile"), inline(always))]
#[cfg_attr(feature = "stage-profile", inline(never))]
fn update_velocities(
    s: &mut StepScratch,
    bodies: &Arena<crate::body::RigidBody, BodyHandle>,
    h: f64,
) -> Result<(), WorldError> {
    let hot = &mut s.hot;
    for k in 0..s.islands.len() {
        if s.accumulated.get(k) == Some(&true) {
            continue;
        }
        for i in s.islands.rows(k) {
            scatter(
                &mut hot.constraint,
                s.rows.bodies[i],
                &s.mass.imj[i],
                s.rows.lambda[i],
            );
        }
    }
    for slot in 0..bodies.capacity() {
        let [v, w] = hot.predicted[slot];
        let [dv, dw] = hot.constraint[slot];
        let next = if hot.dynamic[slot] {
            [v + h * dv, w + h * dw]
        } else {
            [v, w]
        };
        if !(next[0].is_finite() && next[1].is_finite()) {
            return Err(non_finite(StepPhase::Velocities, bodies.handle_at(slot)));
        }
        hot.next_velocity[slot] = next;
    }
    Ok(())
}

/// Phase 6: the new poses, as [`crate::advance_pose`] would move each body.
#[cfg_attr(not(feature = "stage-profile"), inline(always))]
#[cfg_attr(feature = "stage-profile", inline(never))]
fn integrate_poses(
    bodies: &Arena<crate::body::RigidBody, BodyHandle>,
    activity: &[Activity],
    hot: &mut HotBodies,
    h: f64,
    stats: &mut StepStats,
) -> Result<(), WorldError> {
    for slot in 0..bodies.capacity() {
        let Some(body) = bodies.slot(slot) else {
            continue;
        };
        if activity.get(slot) == Some(&Activity::Asleep) {
            hot.next_pose[slot] = hot.pose[slot];
            continue;
        }
        let (position, orientation, convergence) =
            pose_after_step(body, body.velocity.angular, hot.next_velocity[slot], h).map_err(
                |e| integration_error(e, handle_at(bodies, slot), StepPhase::Integration),
            )?;
        if !convergence.converged {
            stats.gyroscopic_fallbacks += 1;
        }
        hot.next_pose[slot] = Pose {
            position,
            orientation,
        };
    }
    Ok(())
}

/// Phase 8: writes the buffers into the bodies and joints. Cannot fail.
#[cfg_attr(not(feature = "stage-profile"), inline(always))]
#[cfg_attr(feature = "stage-profile", inline(never))]
fn commit(
    bodies: &mut Arena<crate::body::RigidBody, BodyHandle>,
    joints: &mut Arena<Joint, JointHandle>,
    s: &mut StepScratch,
    broken: &mut Vec<JointHandle>,
) {
    for slot in 0..bodies.capacity() {
        let Some(body) = bodies.slot_mut(slot) else {
            continue;
        };
        if body.kind != BodyKind::Static {
            let [linear, angular] = s.hot.next_velocity[slot];
            body.velocity = Velocity { linear, angular };
            let pose = s.hot.next_pose[slot];
            body.position = pose.position;
            body.orientation = pose.orientation;
        }
        body.clear_accumulators();
    }
    // The joints' forces and index sets back in producer order (the contacts read theirs
    // in `report_contacts`); dropped (inert) rows keep zero force.
    if s.rows_lent {
        // The rows were already in that order, and are handed back with them.
        Islands::give_back(&mut s.raw, &mut s.rows);
    } else {
        let solved = SolvedRows::placed(&s.rows, s.islands.positions());
        let columns = s.raw.lambda.iter_mut().zip(&mut s.raw.warm_state);
        for (r, (lambda, state)) in columns.enumerate() {
            (*lambda, *state) = solved.force_and_state(r);
        }
    }
    for (slot, range) in &s.joint_rows {
        let handle = joints.handle_at(*slot);
        let Some(joint) = joints.slot_mut(*slot) else {
            continue;
        };
        let mut feedback = JointFeedback::default();
        for i in range.clone() {
            let [fa, ta, fb, tb] = s.raw.generalized_force(i);
            feedback.force_a += fa;
            feedback.torque_a += ta;
            feedback.force_b += fb;
            feedback.torque_b += tb;
        }
        joint.feedback = feedback;
        joint.last_lambda.clear();
        joint
            .last_lambda
            .extend_from_slice(&s.raw.lambda[range.clone()]);
        joint.last_state.clear();
        let states = &s.raw.warm_state[range.clone()];
        if states.iter().all(Option::is_some) {
            joint.last_state.extend(states.iter().flatten());
        }
        // Motor and limit forces, the anchor torque, and breaking (which disables it).
        if joint.finish_step(&s.hot.pose[joint.body_a.index()]) {
            broken.extend(handle);
        }
    }
}

fn handle_at(bodies: &Arena<crate::body::RigidBody, BodyHandle>, slot: usize) -> BodyHandle {
    // Only called for live slots.
    bodies
        .handle_at(slot)
        .unwrap_or_else(|| unreachable_handle(slot))
}

#[cold]
fn unreachable_handle(slot: usize) -> BodyHandle {
    debug_assert!(false, "slot {slot} is not live");
    use crate::handles::Handle;
    BodyHandle::from_parts(slot as u32, u32::MAX)
}

fn non_finite(phase: StepPhase, body: Option<BodyHandle>) -> WorldError {
    WorldError::NonFinite { phase, body }
}

fn integration_error(error: IntegrationError, body: BodyHandle, phase: StepPhase) -> WorldError {
    match error {
        IntegrationError::NonFiniteInput { .. } | IntegrationError::NonFiniteResult { .. } => {
            non_finite(phase, Some(body))
        }
        IntegrationError::InvalidTimeStep { .. } => WorldError::Integration {
            body,
            source: error,
        },
    }
}

fn solver_error(error: LcpError) -> WorldError {
    match error {
        LcpError::NonFinite { .. } => non_finite(StepPhase::Solve, None),
        other => WorldError::Solver(other),
    }
}
