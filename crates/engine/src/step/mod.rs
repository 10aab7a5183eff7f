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
//! 3. **Islands**: bodies connected by rows ([`crate::solver::island`]).
//! 4. **Solve**: per island, `A lambda = b + w` with `A = J M^-1 J^T + diag(cfm)/h` and
//!    `b = (rhs - J u*) / h`, `rhs = -erp C / h + target`: exactly (Dantzig on the dense `A`,
//!    or for large islands the sparse active-set solver of [`crate::solver::sparse_exact`], both
//!    falling back to Gauss-Seidel; Lemke for the polygonal friction cone) or iteratively
//!    (Gauss-Seidel on the sparse rows, projecting friction pairs on the Coulomb disk if
//!    asked). Either stepper solves a large island of bilateral rows only (a joint chain
//!    or tree) by one envelope factorisation ([`crate::solver::envelope`]) when that is cheaper.
//! 5. **Velocities**: `u+ = u* + h M^-1 J^T lambda`.
//! 6. **Integration**: poses by [`crate::advance_pose`] (so the conserving gyroscopic mode
//!    uses its midpoint attitude update); sleepers keep theirs.
//! 7. **Post-stabilisation** of joint errors and contact penetrations ([`crate::poststab`]).
//! 8. **Commit**: only now are bodies and joints written, contact forces reported and
//!    remembered, and resting islands put to sleep. Every earlier phase works in buffers,
//!    so a failure anywhere (a non-finite number, a solver error, an invalid value left by
//!    the contact hook) returns an error and leaves every body and joint as it was (the
//!    collision caches may have moved on; they hold no state the step depends on beyond
//!    warm starts).
//!
//! A body in no island pays only for phases 1, 5 and 6; a sleeping body for none.
//!
//! Adding a row producer: in phase 2, after [`write_joint_rows_moving`], append its rows
//! through `RowStorage::writer` (body slots are `handle.index()`, the static world is
//! `HotBodies::ground`), keep each producer's raw row range, and fill `raw.warm_lambda` /
//! `raw.warm_state` from its own cache (as [`load_warm_starts`] does for joints); in
//! [`commit`], read its forces back from `raw.lambda[range]`. For post-stabilisation, write
//! its stabilised rows at `hot.next_pose` next to the joints' in `PostStabilizer::measure`
//! (one-sided rows are then solved by projected Gauss-Seidel with their sign kept).
//! Contacts (`crate::contact::rows`) are the example.

pub(crate) mod capture;
pub mod settings;

use crate::body::Activity;
use crate::body::RigidBody;
use crate::body::{BodyKind, Velocity};
use crate::collision::{self, Collider, CollisionPipeline};
use crate::contact::{resolve_sequentially, Contact, ContactWrench, HookSlot, ImpactModel};
use crate::contact::{rows as contact_rows, FrictionModel};
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
use crate::rows::{Pose, RowPass, RowStorage};
use crate::sleep::SleepTracker;
use crate::solver::assemble::{assemble_island, ProblemPool};
use crate::solver::envelope::{EnvelopeBuilder, EnvelopeRows, Skyline};
use crate::solver::island::Islands;
use crate::solver::settings::{ExactSettings, IterativeSettings, Solver};
use crate::solver::sparse::{scatter, sparse_residual, LaneBlocks, RowMass, SparseOperator};
use crate::solver::sparse_exact::{SparseExactSolver, SparseIsland};
use settings::WorldSettings;
use std::ops::Range;
use std::time::{Duration, Instant};
use stiction_lcp::dantzig::DantzigSolver;
use stiction_lcp::pgs::{pgs_sweeps, PgsScratch, RowOperator};
use stiction_lcp::{IndexState, LcpError, SolveReport, Status};

/// The largest normalised residual with which a converged Gauss-Seidel solve counts as solved.
const ITERATIVE_RESIDUAL_TOLERANCE: f64 = 1e-6;

/// Multiply-adds of an envelope factorisation worth one Gauss-Seidel row update, as timed
/// (docs/performance.md#envelope-factorisation-of-chains): an all-bilateral island is
/// solved directly when its factorisation costs less than its sweeps would.
const DIRECT_WORK_PER_SWEEP_ROW: usize = 25;
/// Multiply-adds per row an all-bilateral island's envelope factorisation may cost for the
/// exact stepper to take it instead of the sparse active-set solver, whose body-space
/// factorisation and refinement of a chain cost about that much a row
/// (docs/performance.md#envelope-factorisation-of-chains).
const EXACT_DIRECT_WORK_PER_ROW: usize = 500;
/// Pivot floor of the velocity solve's envelope factorisation, relative to the diagonal:
/// a row dependent on earlier ones (a closed loop without CFM) is regularised.
const DIRECT_PIVOT_FLOOR: f64 = 1e-9;

/// Islands whose rows are all bilateral (no bounds: joints without active limits or
/// motors) leave dense Dantzig for the sparse solver at this fraction of
/// [`ExactSettings::dense_row_limit`] (25 rows by default): with no index set to find, the
/// sparse solve is one body-space factorisation (banded for a chain) and its refinement,
/// against Dantzig's dense `O(n^3)` factorisation. The two cost the same for a 30-row
/// chain, and the sparse solve gains the longer the chain, with the same joint
/// separations (docs/performance.md#envelope-factorisation-of-chains).
const BILATERAL_SPARSE_FACTOR: usize = 2;

/// Everything a step computes before committing, reused between steps.
#[derive(Debug, Clone, Default)]
pub(crate) struct StepScratch {
    hot: HotBodies,
    /// Rows in producer order.
    raw: RowStorage,
    /// Rows in island order.
    rows: RowStorage,
    /// Whether `raw`'s rows were moved into `rows` (already in island order,
    /// [`Islands::build_lending`]): `raw` is stale until [`commit`] gives them back.
    rows_lent: bool,
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
    /// Per contact point: whether its normal passes through its bodies' centres of mass
    /// (`contact::rows::write_rows`: ERP corrects it, the projection only when deep).
    central_points: Vec<bool>,
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

/// The stage list. Every stage before [`commit`] writes only scratch buffers.
fn run_stages(w: &mut StepState<'_>, h: f64) -> Result<(), WorldError> {
    if !(h.is_finite() && h > 0.0) {
        return Err(WorldError::InvalidTimeStep { h });
    }
    let timing = w.settings.time_phases;

    let clock = PhaseClock::start(timing);
    detect_collisions(w)?;
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
    write_rows(w, h)?;
    w.stats.times.rows = clock.elapsed();

    let clock = PhaseClock::start(timing);
    build_islands(w);
    w.stats.times.islands = clock.elapsed();

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
    report_contacts(w);
    fall_asleep(w, h);
    Ok(())
}

/// Stage 0: sleep classification, broad phase, waking what awake bodies reach, narrow
/// phase and the contact hook.
fn detect_collisions(w: &mut StepState<'_>) -> Result<(), WorldError> {
    let sleeping = w.settings.sleep.enabled;
    let contacts = &w.settings.contacts;
    w.sleep.classify(w.bodies, sleeping);
    collision::find_pairs(
        w.collision,
        w.colliders,
        w.bodies,
        &w.sleep.activity,
        contacts,
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

/// Stage 2: the joints' rows (with their warm starts and curvature targets), then every
/// contact point's normal and friction rows, into the raw storage in producer order.
fn write_rows(w: &mut StepState<'_>, h: f64) -> Result<(), WorldError> {
    let (settings, s) = (w.settings, &mut *w.scratch);
    // Contact frames and restitution first: sequential impacts change the velocities the
    // joints' rows (limits, curvature look-ahead) are written for.
    contact_rows::prepare(
        &mut w.collision.points,
        &s.hot.predicted,
        &s.hot.pose,
        settings.contacts.restitution_threshold,
    );
    if let Solver::Exact(exact) = &settings.solver {
        if exact.impacts == ImpactModel::Sequential {
            w.stats.sequential_impacts = resolve_sequentially(
                &mut w.collision.points,
                &mut s.hot,
                h,
                settings.contacts.restitution_threshold,
                &mut s.impact_contacts,
            );
        }
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
    let points = &mut w.collision.points;
    let order = &w.collision.order;
    contact_rows::estimate_loads(
        points,
        order,
        &s.hot.inverse_mass,
        settings.gravity,
        &mut s.contact_load,
        &mut s.contact_supports,
    );
    contact_rows::write_rows(
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
        &mut s.raw,
        &mut s.central_points,
    );
    check_rows(&s.raw, w.bodies)
}

/// Whether contacts are projected after the step (post-stabilisation on for them).
fn projects_contacts(settings: &WorldSettings) -> bool {
    settings.contacts.post_stabilize && settings.post_stabilization.enabled
}

/// Stage 3: islands of bodies connected by rows, the rows sorted into island order.
fn build_islands(w: &mut StepState<'_>) {
    let s = &mut *w.scratch;
    s.islands.group_contacts = true;
    s.islands.interleave = match w.settings.solver {
        Solver::Iterative(_) => crate::solver::island::INTERLEAVE,
        Solver::Exact(_) => 1,
    };
    s.rows_lent = s
        .islands
        .build_lending(&mut s.raw, &s.hot.dynamic, &mut s.rows);
    let stats = &mut *w.stats;
    stats.rows = s.rows.len();
    stats.islands = s.islands.len();
    stats.constrained_bodies = s.islands.body_count();
    let dynamic = s.hot.dynamic.iter().filter(|d| **d).count();
    stats.free_bodies = dynamic - stats.constrained_bodies;
}

/// Stage 7: position-level projection of joint errors and (when on) contact penetration.
fn post_stabilize(w: &mut StepState<'_>) -> Result<(), WorldError> {
    let settings = w.settings;
    let (stabilized_contacts, contact_order) = if projects_contacts(settings) {
        (&mut w.collision.points[..], &w.collision.order[..])
    } else {
        (&mut [][..], &[][..])
    };
    let any_rows = w.joints.len() > 0 || !stabilized_contacts.is_empty();
    if !(settings.post_stabilization.enabled && any_rows) {
        return Ok(());
    }
    let s = &mut *w.scratch;
    s.poststab.run(
        w.joints,
        &s.points,
        stabilized_contacts,
        contact_order,
        &s.central_points,
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

/// Stage 9: the contact forces per point and per body, and the contacts' memory for the
/// next step's warm start.
fn report_contacts(w: &mut StepState<'_>) {
    let s = &*w.scratch;
    w.wrenches.clear();
    w.wrenches.resize(s.hot.pose.len(), Default::default());
    contact_rows::read_forces(
        &mut w.collision.points,
        &w.collision.order,
        &s.raw,
        &s.hot.pose,
        w.settings.contacts.friction_model,
        w.contacts,
        w.wrenches,
    );
    w.collision.remember();
}

/// Stage 10: islands at rest long enough fall asleep (their bodies' velocities zeroed).
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

fn check_rows(
    raw: &RowStorage,
    bodies: &Arena<crate::body::RigidBody, BodyHandle>,
) -> Result<(), WorldError> {
    if raw.all_finite() {
        return Ok(());
    }
    match (0..raw.len()).find(|&i| !raw.is_finite(i)) {
        None => Ok(()),
        Some(i) => {
            let body = bodies.handle_at(raw.bodies[i][0] as usize);
            Err(non_finite(StepPhase::Rows, body))
        }
    }
}

/// Phase 4: `b`, then each island's forces into `rows.lambda` (and, for the exact stepper,
/// its index sets into `rows.warm_state`).
fn solve_islands(
    s: &mut StepScratch,
    solver: &Solver,
    model: FrictionModel,
    h: f64,
    stats: &mut StepStats,
) -> Result<(), WorldError> {
    s.mass
        .compute(&s.rows, &s.hot.inverse_mass, &s.hot.inverse_inertia);
    s.b.clear();
    s.regularization.clear();
    // Products with `1 / h` rather than three divisions a row (a division occupies the
    // divider for several cycles).
    let per_h = 1.0 / h;
    for i in 0..s.rows.len() {
        let [a, b] = s.rows.bodies[i];
        let ([va, wa], [vb, wb]) = (s.hot.predicted[a as usize], s.hot.predicted[b as usize]);
        let relative = s.rows.jacobian[i].velocity(va, wa, vb, wb);
        let rhs = s.rows.target_velocity[i] - s.rows.erp[i] * s.rows.error[i] * per_h;
        s.b.push((rhs - relative) * per_h);
        s.regularization.push(s.rows.cfm[i] * per_h);
    }
    if s.b.iter().any(|v| !v.is_finite()) {
        return Err(non_finite(StepPhase::Solve, None));
    }
    for k in 0..s.islands.len() {
        let report = match solver {
            Solver::Exact(exact) => solve_exact(s, k, exact, model, stats)?,
            Solver::Iterative(iterative) => {
                let cone = model == FrictionModel::CoulombCone;
                let report = solve_iterative(s, k, iterative, cone, stats)?;
                stats.sweeps += report.iterations;
                report
            }
        };
        if !report.status.is_solved() {
            stats.unsolved_islands += 1;
        }
        stats.worst_residual = stats.worst_residual.max(report.residual);
        stats.island_reports.push(report);
    }
    if s.rows.lambda.iter().any(|v| !v.is_finite()) {
        return Err(non_finite(StepPhase::Solve, None));
    }
    Ok(())
}

fn solve_exact(
    s: &mut StepScratch,
    k: usize,
    settings: &ExactSettings,
    model: FrictionModel,
    stats: &mut StepStats,
) -> Result<IslandReport, WorldError> {
    let range = s.islands.rows(k);
    let n = range.len();
    let limit = if s.islands.nub(k) == n {
        settings.dense_row_limit / BILATERAL_SPARSE_FACTOR
    } else {
        settings.dense_row_limit
    };
    let sparse = n > limit && !matches!(model, FrictionModel::PolygonalCone { .. });
    if sparse && s.islands.nub(k) == n {
        let budget = n.saturating_mul(EXACT_DIRECT_WORK_PER_ROW);
        let tolerance = crate::solver::sparse_exact::RESIDUAL_TOLERANCE;
        if let Some(report) = solve_bilateral_direct(s, k, budget, tolerance, stats)? {
            return Ok(report);
        }
    }
    let (mut island, solved) = if sparse {
        // Too large for a dense A: active sets on a body-space sparse factorisation.
        let outcome = s.sparse_exact.solve(
            &SparseIsland {
                rows: &s.rows,
                mass: &s.mass,
                range: range.clone(),
                nub: s.islands.nub(k),
                b: &s.b[range.clone()],
                regularization: &s.regularization[range.clone()],
                bodies: s.islands.bodies(k),
                inverse_mass: &s.hot.inverse_mass,
                inverse_inertia: &s.hot.inverse_inertia,
            },
            &mut s.hot.cache,
        );
        stats.pivots += outcome.iterations;
        let solved = outcome.status.is_solved();
        if solved {
            s.rows.lambda[range.clone()].copy_from_slice(s.sparse_exact.forces());
        }
        // Next step's guess, solved or not: a failed solve's last sets (near the answer,
        // its merit stalled) are a better start than sets read off the Gauss-Seidel
        // forces of the fallback: a resting 343-sphere pile fell back on 4 of 8 steps
        // without this, 1 with it (failures had clustered); a 216-sphere pile 1 of 20.
        let states = s.sparse_exact.active_set();
        for (state, new) in s.rows.warm_state[range.clone()].iter_mut().zip(states) {
            *state = Some(*new);
        }
        let island = IslandReport {
            bodies: s.islands.bodies(k).len(),
            rows: n,
            unbounded_rows: s.islands.nub(k),
            status: outcome.status,
            iterations: outcome.iterations,
            residual: outcome.residual,
            fell_back: false,
            warm_started: outcome.warm_started,
        };
        (island, solved)
    } else {
        let problem = s.problems.get(k, n);
        assemble_island(
            &s.rows,
            &s.mass,
            range.clone(),
            s.islands.nub(k),
            &s.b[range.clone()],
            &s.regularization[range.clone()],
            problem,
        );
        s.capture.record(k, problem);
        s.guess.clear();
        let warm = s.rows.warm_state[range.clone()].iter().all(Option::is_some);
        if warm {
            s.guess
                .extend(s.rows.warm_state[range.clone()].iter().flatten());
        }
        let polygonal = matches!(model, FrictionModel::PolygonalCone { .. })
            && problem.findex.iter().any(Option::is_some);
        if polygonal {
            // Friction rows are polygon edges: Lemke on Drake's formulation.
            s.report = crate::contact::polygonal::solve(problem, &Default::default())
                .map_err(solver_error)?;
        } else {
            s.dantzig
                .solve_into(
                    problem,
                    &settings.dantzig,
                    warm.then_some(&s.guess[..]),
                    &mut s.report,
                )
                .map_err(solver_error)?;
        }
        let report = &s.report;
        stats.pivots += report.iterations;
        let island = IslandReport {
            bodies: s.islands.bodies(k).len(),
            rows: n,
            unbounded_rows: s.islands.nub(k),
            status: report.status,
            iterations: report.iterations,
            residual: report.residual.max(),
            fell_back: report.fell_back,
            warm_started: warm,
        };
        let solved = report.status.is_solved() && report.x.iter().all(|v| v.is_finite());
        if solved {
            s.rows.lambda[range.clone()].copy_from_slice(&report.x);
            if polygonal {
                s.rows.warm_state[range.clone()].fill(None);
            } else {
                let states = s.dantzig.active_set();
                for (state, new) in s.rows.warm_state[range.clone()].iter_mut().zip(states) {
                    *state = (!report.fell_back).then_some(*new);
                }
            }
        }
        (island, solved)
    };
    if !solved {
        // The solve failed: Gauss-Seidel on the untouched sparse rows, from last step's forces.
        let fallback = solve_iterative(s, k, &settings.fallback, false, stats)?;
        stats.sweeps += fallback.iterations;
        island.status = fallback.status;
        island.iterations += fallback.iterations;
        island.residual = fallback.residual;
        island.fell_back = true;
        if !sparse {
            // Gauss-Seidel forces define no index sets; the sparse path kept its own above.
            s.rows.warm_state[range].fill(None);
        }
    }
    if island.fell_back {
        stats.fallbacks += 1;
    }
    Ok(island)
}

/// Solves island `k`, whose rows are all unbounded, by the envelope factorisation of
/// `A = J M^-1 J^T + diag(cfm / h)` ([`crate::solver::envelope`]) into `rows.lambda`. Returns
/// `None`, having changed no force, if the factorisation would cost more than `budget`
/// multiply-adds or the answer's residual exceeds `tolerance` (rows dependent without CFM
/// and inconsistent): the caller's solver then takes the island.
fn solve_bilateral_direct(
    s: &mut StepScratch,
    k: usize,
    budget: usize,
    tolerance: f64,
    stats: &mut StepStats,
) -> Result<Option<IslandReport>, WorldError> {
    let range = s.islands.rows(k);
    let start = range.start;
    let regularization = &s.regularization[range.clone()];
    let rows = EnvelopeRows {
        rows: &s.rows,
        mass: &s.mass,
        count: range.len(),
        start,
        members: None,
        island_bodies: s.islands.bodies(k),
        dynamic: &s.hot.dynamic,
    };
    let diagonal = |p: usize, a: f64| a + regularization[p];
    let Some(weak_pivots) =
        s.envelope
            .factor(&mut s.skyline, &rows, diagonal, budget, DIRECT_PIVOT_FLOOR)
    else {
        return Ok(None);
    };
    s.x.clear();
    s.x.extend_from_slice(&s.b[range.clone()]);
    s.skyline.solve(&mut s.x);
    if !s.x.iter().all(|v| v.is_finite()) {
        return Err(non_finite(StepPhase::Solve, None));
    }
    // Without a raised pivot the factorisation is of the island's own positive definite
    // `A`, and the triangular solves are backward stable: the residual is round-off, not
    // worth measuring (docs/performance.md#envelope-factorisation-of-chains). A raised
    // pivot (rows dependent without CFM) solved a neighbouring system, which is consistent
    // only if the dependent rows' targets agree: then the residual decides.
    let residual = if weak_pivots == 0 {
        0.0
    } else {
        let mut op = SparseOperator::new(
            &s.rows,
            &s.mass,
            range.clone(),
            regularization,
            s.islands.bodies(k),
            &mut s.hot.cache,
        );
        op.begin(&s.x);
        let residual = sparse_residual(
            &op,
            &s.b[range.clone()],
            &s.rows.lo[range.clone()],
            &s.rows.hi[range.clone()],
            &s.rows.findex[range.clone()],
            &s.x,
        )
        .max();
        op.clear();
        residual
    };
    // A NaN residual counts as too large.
    if residual.is_nan() || residual > tolerance {
        return Ok(None);
    }
    s.rows.lambda[range.clone()].copy_from_slice(&s.x);
    s.rows.warm_state[range.clone()].fill(None);
    stats.direct_islands += 1;
    Ok(Some(IslandReport {
        bodies: s.islands.bodies(k).len(),
        rows: range.len(),
        unbounded_rows: range.len(),
        status: Status::Solved,
        iterations: 0,
        residual,
        fell_back: false,
        warm_started: false,
    }))
}

/// Gauss-Seidel on island `k`; `coulomb_cone` projects friction pairs onto the disk
/// (`PgsOptions::coulomb_cone`; the reported residual still measures the box). An island
/// of bilateral rows only is factored instead when [`IterativeSettings::direct_bilateral`]
/// allows and the factorisation costs less than the sweeps.
fn solve_iterative(
    s: &mut StepScratch,
    k: usize,
    settings: &IterativeSettings,
    coulomb_cone: bool,
    stats: &mut StepStats,
) -> Result<IslandReport, WorldError> {
    let range = s.islands.rows(k);
    if settings.direct_bilateral && s.islands.nub(k) == range.len() {
        let budget = settings
            .iterations
            .saturating_mul(range.len())
            .saturating_mul(DIRECT_WORK_PER_SWEEP_ROW);
        let tolerance = ITERATIVE_RESIDUAL_TOLERANCE;
        if let Some(report) = solve_bilateral_direct(s, k, budget, tolerance, stats)? {
            return Ok(report);
        }
    }
    s.x.clear();
    if settings.warm_start {
        s.x.extend_from_slice(&s.rows.warm_lambda[range.clone()]);
    } else {
        s.x.resize(range.len(), 0.0);
    }
    let warm_started = settings.warm_start && s.x.iter().any(|v| *v != 0.0);
    let mut op = SparseOperator::new(
        &s.rows,
        &s.mass,
        range.clone(),
        &s.regularization[range.clone()],
        s.islands.bodies(k),
        &mut s.hot.cache,
    )
    .with_batches(&mut s.lanes, &s.hot.dynamic, &s.hot.inverse_mass);
    let (b, lo, hi) = (
        &s.b[range.clone()],
        &s.rows.lo[range.clone()],
        &s.rows.hi[range.clone()],
    );
    let findex = &s.rows.findex[range.clone()];
    if s.island_pgs.len() <= k {
        s.island_pgs.resize_with(k + 1, PgsScratch::new);
    }
    let pgs = &mut s.island_pgs[k];
    if s.islands.reused() {
        pgs.assume_same_structure();
    }
    let outcome = pgs_sweeps(
        &mut op,
        b,
        lo,
        hi,
        findex,
        &mut s.x,
        &stiction_lcp::pgs::PgsOptions {
            coulomb_cone,
            ..settings.pgs_options()
        },
        pgs,
    )
    .map_err(solver_error)?;
    let residual = sparse_residual(&op, b, lo, hi, findex, &s.x).max();
    op.clear();
    if outcome.non_finite || s.x.iter().any(|v| !v.is_finite()) {
        return Err(non_finite(StepPhase::Solve, None));
    }
    let status = if outcome.converged && residual <= ITERATIVE_RESIDUAL_TOLERANCE {
        Status::Solved
    } else {
        Status::IterationLimit
    };
    s.rows.lambda[range.clone()].copy_from_slice(&s.x);
    Ok(IslandReport {
        bodies: s.islands.bodies(k).len(),
        rows: range.len(),
        unbounded_rows: s.islands.nub(k),
        status,
        iterations: outcome.sweeps,
        residual,
        fell_back: false,
        warm_started,
    })
}

/// Phase 5: `u+ = u* + h M^-1 J^T lambda`.
fn update_velocities(
    s: &mut StepScratch,
    bodies: &Arena<crate::body::RigidBody, BodyHandle>,
    h: f64,
) -> Result<(), WorldError> {
    let hot = &mut s.hot;
    for i in 0..s.rows.len() {
        scatter(
            &mut hot.constraint,
            s.rows.bodies[i],
            &s.mass.imj[i],
            s.rows.lambda[i],
        );
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
    // Forces and index sets back in producer order; dropped (inert) rows keep zero force.
    if std::mem::take(&mut s.rows_lent) {
        // The rows were already in that order, and are handed back with them.
        Islands::give_back(&mut s.raw, &mut s.rows);
    } else {
        s.raw.lambda.fill(0.0);
        s.raw.warm_state.fill(None);
        for (sorted, &raw) in s.islands.origin.iter().enumerate() {
            s.raw.lambda[raw as usize] = s.rows.lambda[sorted];
            s.raw.warm_state[raw as usize] = s.rows.warm_state[sorted];
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
