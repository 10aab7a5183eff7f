//! The world: bodies and joints by handle, settings, and the step ([`World::step`]).
//!
//! ```
//! use stiction::{World, RigidBodyBuilder, MassProperties, Solver};
//! use stiction::math::Vec3;
//!
//! let mut world = World::new();
//! world.set_solver(Solver::iterative()).unwrap();
//! let bob = world.add_body(
//!     RigidBodyBuilder::dynamic()
//!         .mass_properties(MassProperties::sphere_with_mass(0.05, 1.0).unwrap())
//!         .position(Vec3::new(1.0, 0.0, 2.0))
//!         .build()
//!         .unwrap(),
//! );
//! // A pendulum: a ball joint from the bob to the static world at (0, 0, 2).
//! let rod = world.add_ball_joint(bob, None, Vec3::new(0.0, 0.0, 2.0)).unwrap();
//! for _ in 0..60 {
//!     world.step(1.0 / 60.0).unwrap();
//! }
//! let bob_position = world.body(bob).unwrap().position();
//! assert!(((bob_position - Vec3::new(0.0, 0.0, 2.0)).length() - 1.0).abs() < 1e-4);
//! assert!(world.joint(rod).unwrap().feedback().force_a.length() > 0.0);
//! ```

mod events;
mod joints;
mod query;

pub use crate::handles::{BodyHandle, ColliderHandle, JointHandle};
pub use crate::joint::curvature::CurvatureCorrection;
pub use crate::poststab::{PostStabilization, PostStabilizationMethod};
pub use crate::solver::settings::{ExactSettings, IterativeSettings, Solver};
pub use crate::step::settings::WorldSettings;

use crate::body::RigidBody;
use crate::collision::{Collider, ColliderBuilder, CollisionPipeline};
use crate::contact::{Contact, ContactHook, ContactWrench, EventState, HookSlot};
use crate::diagnostics::StepStats;
use crate::error::{JointError, WorldError};
use crate::handles::Arena;
use crate::joint::{BallJoint, HingeJoint, Joint, JointBuilder, JointRows};
use crate::math::Vec3;
use crate::rows::Pose;
use crate::sleep::SleepTracker;
use crate::step::capture::RowSource;
use crate::step::{StepScratch, StepState};
use std::sync::Arc;

/// Bodies, joints, colliders, settings and the buffers a step reuses.
#[derive(Debug, Clone)]
pub struct World {
    pub(crate) bodies: Arena<RigidBody, BodyHandle>,
    pub(crate) joints: Arena<Joint, JointHandle>,
    pub(crate) colliders: Arena<Collider, ColliderHandle>,
    pub(crate) settings: WorldSettings,
    pub(crate) stats: StepStats,
    pub(crate) scratch: StepScratch,
    pub(crate) time: f64,
    pub(crate) collision: CollisionPipeline,
    pub(crate) hook: HookSlot,
    pub(crate) sleep: SleepTracker,
    /// The last step's contact points and forces.
    pub(crate) contacts: Vec<Contact>,
    /// The last step's contact force and torque per body slot (plus the ground).
    pub(crate) wrenches: Vec<ContactWrench>,
    /// The last step's sensor overlaps, touching pairs and events (`events.rs`).
    pub(crate) events: EventState,
}

impl Default for World {
    fn default() -> Self {
        Self::new()
    }
}

impl World {
    /// An empty world with [`WorldSettings::default`] (gravity `(0, 0, -9.81)`, the exact
    /// stepper, ERP 0.2, CFM `1e-5`, post-stabilisation on).
    pub fn new() -> Self {
        Self {
            bodies: Arena::default(),
            joints: Arena::default(),
            colliders: Arena::default(),
            settings: WorldSettings::default(),
            stats: StepStats::default(),
            scratch: StepScratch::default(),
            time: 0.0,
            collision: CollisionPipeline::default(),
            hook: HookSlot::default(),
            sleep: SleepTracker::default(),
            contacts: Vec::new(),
            wrenches: Vec::new(),
            events: EventState::default(),
        }
    }

    /// An empty world with validated `settings`.
    pub fn with_settings(settings: WorldSettings) -> Result<Self, WorldError> {
        let mut world = Self::new();
        world.set_settings(settings)?;
        Ok(world)
    }

    /// The settings.
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// Replaces the settings after validating them (unchanged on error).
    pub fn set_settings(&mut self, settings: WorldSettings) -> Result<(), WorldError> {
        settings.validate()?;
        self.settings = settings;
        Ok(())
    }

    /// Sets gravity (m/s^2, world frame; finite).
    pub fn set_gravity(&mut self, gravity: Vec3) -> Result<(), WorldError> {
        let settings = WorldSettings {
            gravity,
            ..self.settings.clone()
        };
        self.set_settings(settings)
    }

    /// Switches the timing of each step's phases into [`crate::StepStats::times`] on or off
    /// ([`WorldSettings::time_phases`]).
    pub fn set_time_phases(&mut self, on: bool) {
        self.settings.time_phases = on;
    }

    /// Chooses the stepper (validated, also against the friction model: see
    /// [`crate::FrictionModel`]).
    pub fn set_solver(&mut self, solver: Solver) -> Result<(), WorldError> {
        solver.validate()?;
        crate::step::settings::check_friction_model(
            &solver,
            self.settings.contacts.friction_model,
        )?;
        self.settings.solver = solver;
        Ok(())
    }

    /// Advances the world by `h` seconds (finite, `> 0`; it may change from call to call).
    ///
    /// The stages (ARCHITECTURE.md lists them; docs/dynamics.md gives the mathematics):
    /// collision detection (colliders, contact hook, waking); unconstrained velocities `u*`
    /// from forces, gravity, damping and each body's gyroscopic mode; rows from the enabled
    /// joints and the contacts; islands of bodies connected by rows; per island the boxed
    /// LCP `A lambda = b + w`, `A = J M^-1 J^T + diag(cfm)/h`,
    /// `b = (-erp C / h + target - J u*) / h`, solved by Dantzig on the dense `A` (falling
    /// back to Gauss-Seidel) or by Gauss-Seidel on the sparse rows;
    /// `u+ = u* + h M^-1 J^T lambda`; poses by [`crate::dynamics::advance_pose`]; then
    /// post-stabilisation of joint errors and contact penetrations. Bodies and joints are
    /// written only at the end.
    ///
    /// Returns the step's statistics. On error nothing changed: every body and joint is
    /// exactly as before (the statistics of the refused step are still readable through
    /// [`World::step_stats`]).
    pub fn step(&mut self, h: f64) -> Result<&StepStats, WorldError> {
        // The step's broad phase runs before its bodies move: the tree ends behind.
        self.collision.invalidate_queries();
        let state = StepState {
            bodies: &mut self.bodies,
            joints: &mut self.joints,
            colliders: &self.colliders,
            settings: &self.settings,
            stats: &mut self.stats,
            scratch: &mut self.scratch,
            collision: &mut self.collision,
            hook: &self.hook,
            sleep: &mut self.sleep,
            contacts: &mut self.contacts,
            wrenches: &mut self.wrenches,
            events: &mut self.events,
        };
        crate::step::step(state, h)?;
        self.time += h;
        Ok(&self.stats)
    }

    /// Simulated time, s: the sum of the committed steps.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Statistics of the last step (committed or refused).
    pub fn step_stats(&self) -> &StepStats {
        &self.stats
    }

    /// Turns on (or off) keeping a copy of every island LCP the exact stepper assembles, to
    /// export it or to time other solvers on it ([`Self::captured_problems`]). Off by
    /// default; while off a step pays one branch per island. Turning it off forgets the
    /// copies.
    pub fn set_capture_problems(&mut self, on: bool) {
        self.scratch.capture.set_enabled(on);
    }

    /// Whether [`Self::set_capture_problems`] is on.
    pub fn captures_problems(&self) -> bool {
        self.scratch.capture.enabled()
    }

    /// The dense boxed LCPs (`A lambda = b + w`, see [`World::step`]) the exact stepper
    /// assembled in the last step, one per island, in island order, exactly as handed to its
    /// solver: rows in the island's order (joint rows, then each contact's normal row, then
    /// the friction rows), `lambda` in N. Empty unless [`Self::set_capture_problems`] is on.
    /// Islands the stepper solved without a dense problem (the sparse active-set solver,
    /// a direct factorisation of bilateral rows, the iterative stepper's sweeps) are
    /// assembled for the capture after their solve, from the same rows: the problem those
    /// solvers worked on (the iterative stepper with the Coulomb cone projects friction on
    /// a disk, not on these boxes). A refused step may leave a partial list.
    pub fn captured_problems(&self) -> &[stiction_lcp::BoxedLcp] {
        self.scratch.capture.problems()
    }

    /// The island index (as in [`StepStats::island_reports`]) of each of
    /// [`Self::captured_problems`].
    pub fn captured_islands(&self) -> &[usize] {
        self.scratch.capture.islands()
    }

    /// The forces (`lambda`, N or N m) the last step used for each of
    /// [`Self::captured_problems`]: the solver's answer, or its Gauss-Seidel fallback's.
    /// An entry is empty for a problem whose solve did not finish (a refused step).
    pub fn captured_solutions(&self) -> &[Vec<f64>] {
        self.scratch.capture.solutions()
    }

    /// The two bodies of each row of each of [`Self::captured_problems`], as body slot
    /// indices ([`crate::BodyHandle::index`]); `None` is the ground (the static world).
    pub fn captured_row_bodies(&self) -> &[Vec<[Option<usize>; 2]>] {
        self.scratch.capture.row_bodies()
    }

    /// What each row of each of [`Self::captured_problems`] stands for: a row of one of
    /// [`Self::contacts`] (by index; its point, normal and bodies are there) or of a joint,
    /// so a dumped problem's rows can be told apart.
    pub fn captured_row_sources(&self) -> Vec<Vec<RowSource>> {
        let origins = self.scratch.capture.row_origins();
        let total = origins
            .iter()
            .flatten()
            .map(|&o| o as usize + 1)
            .max()
            .unwrap_or(0);
        let mut sources = vec![RowSource::Other; total];
        let mut mark = |raw: usize, source: RowSource| {
            if let Some(slot) = sources.get_mut(raw) {
                *slot = source;
            }
        };
        for (contact, &p) in self.collision.order.iter().enumerate() {
            let point = &self.collision.points[p as usize];
            let rows = std::iter::once(point.normal_row).chain(point.friction_rows.clone());
            for (row, raw) in rows.enumerate() {
                mark(raw, RowSource::Contact { contact, row });
            }
        }
        for (slot, range) in self.scratch.joint_rows() {
            if let Some(joint) = self.joints.handle_at(*slot) {
                for (row, raw) in range.clone().enumerate() {
                    mark(raw, RowSource::Joint { joint, row });
                }
            }
        }
        origins
            .iter()
            .map(|rows| rows.iter().map(|&raw| sources[raw as usize]).collect())
            .collect()
    }

    /// The wall time of each of [`Self::captured_problems`]' assembly and solve (including
    /// a fallback's sweeps).
    pub fn captured_solve_times(&self) -> &[std::time::Duration] {
        self.scratch.capture.times()
    }

    /// Adds a body (built and validated by [`crate::RigidBodyBuilder`]). It starts awake.
    pub fn add_body(&mut self, body: RigidBody) -> BodyHandle {
        let handle = self.bodies.insert(body);
        self.sleep.reset_slot(handle.index());
        handle
    }

    /// Removes a body with every joint and collider attached to it; returns the body.
    pub fn remove_body(&mut self, handle: BodyHandle) -> Result<RigidBody, WorldError> {
        self.collision.invalidate_queries();
        let body = self
            .bodies
            .remove(handle)
            .ok_or(WorldError::StaleBody(handle))?;
        let carried: Vec<ColliderHandle> = self
            .colliders
            .iter()
            .filter(|(_, c)| c.body == Some(handle))
            .map(|(h, _)| h)
            .collect();
        for collider in carried {
            self.colliders.remove(collider);
            self.collision.forget_collider(collider);
        }
        let attached: Vec<JointHandle> = self
            .joints
            .iter()
            .filter(|(_, j)| j.body_a == handle || j.body_b == Some(handle))
            .map(|(h, _)| h)
            .collect();
        for joint in attached {
            self.joints.remove(joint);
        }
        Ok(body)
    }

    /// The body `handle` names.
    pub fn body(&self, handle: BodyHandle) -> Result<&RigidBody, WorldError> {
        self.bodies.get(handle).ok_or(WorldError::StaleBody(handle))
    }

    /// The body `handle` names, to change its state or add forces for the next step.
    pub fn body_mut(&mut self, handle: BodyHandle) -> Result<&mut RigidBody, WorldError> {
        // It may be moved: the scene queries stop trusting the tree.
        self.collision.invalidate_queries();
        self.bodies
            .get_mut(handle)
            .ok_or(WorldError::StaleBody(handle))
    }

    /// Every body with its handle, in slot order.
    pub fn bodies(&self) -> impl Iterator<Item = (BodyHandle, &RigidBody)> {
        self.bodies.iter()
    }

    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// The pose of a body, or [`Pose::IDENTITY`] for `None` (the static world).
    pub fn pose(&self, handle: Option<BodyHandle>) -> Result<Pose, WorldError> {
        match handle {
            Some(h) => Ok(Pose::of(self.body(h)?)),
            None => Ok(Pose::IDENTITY),
        }
    }

    /// Adds a joint (see [`JointBuilder`]). Both bodies must exist and differ, and the
    /// joint's parameters must be valid.
    pub fn add_joint(&mut self, builder: JointBuilder) -> Result<JointHandle, WorldError> {
        self.body(builder.body_a)?;
        if let Some(b) = builder.body_b {
            self.body(b)?;
            if b == builder.body_a {
                return Err(JointError::SameBody.into());
            }
        }
        builder.validate()?;
        Ok(self.joints.insert(builder.build()))
    }

    /// Adds a ball joint between `body_a` and `body_b` (`None`: the static world) at the
    /// world point `anchor`.
    pub fn add_ball_joint(
        &mut self,
        body_a: BodyHandle,
        body_b: Option<BodyHandle>,
        anchor: Vec3,
    ) -> Result<JointHandle, WorldError> {
        let (pose_a, pose_b) = (self.pose(Some(body_a))?, self.pose(body_b)?);
        let joint = BallJoint::at_world_point(anchor, &pose_a, &pose_b)?;
        self.add_joint(JointBuilder::new(body_a, body_b, joint))
    }

    /// Adds a hinge between `body_a` and `body_b` (`None`: the static world) through the
    /// world point `anchor` about the world direction `axis`; the current configuration is
    /// hinge angle zero.
    pub fn add_hinge_joint(
        &mut self,
        body_a: BodyHandle,
        body_b: Option<BodyHandle>,
        anchor: Vec3,
        axis: Vec3,
    ) -> Result<JointHandle, WorldError> {
        let (pose_a, pose_b) = (self.pose(Some(body_a))?, self.pose(body_b)?);
        let joint = HingeJoint::at_world_axis(anchor, axis, &pose_a, &pose_b)?;
        self.add_joint(JointBuilder::new(body_a, body_b, joint))
    }

    /// Removes a joint; returns it.
    pub fn remove_joint(&mut self, handle: JointHandle) -> Result<Joint, WorldError> {
        self.joints
            .remove(handle)
            .ok_or(WorldError::StaleJoint(handle))
    }

    /// The joint `handle` names.
    pub fn joint(&self, handle: JointHandle) -> Result<&Joint, WorldError> {
        self.joints
            .get(handle)
            .ok_or(WorldError::StaleJoint(handle))
    }

    /// The joint `handle` names, to change its settings.
    pub fn joint_mut(&mut self, handle: JointHandle) -> Result<&mut Joint, WorldError> {
        self.joints
            .get_mut(handle)
            .ok_or(WorldError::StaleJoint(handle))
    }

    /// Every joint with its handle, in slot order.
    pub fn joints(&self) -> impl Iterator<Item = (JointHandle, &Joint)> {
        self.joints.iter()
    }

    /// Number of joints.
    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }

    /// The distance (m) between a joint's anchor points on its two bodies, for joints built
    /// on a point (`None` for others): zero when the joint holds exactly.
    pub fn joint_anchor_separation(&self, handle: JointHandle) -> Result<Option<f64>, WorldError> {
        let joint = self.joint(handle)?;
        let Some((local_a, local_b)) = joint.kind.local_anchors() else {
            return Ok(None);
        };
        let pose_a = self.pose(Some(joint.body_a))?;
        let pose_b = self.pose(joint.body_b)?;
        let gap = pose_a.transform_point(local_a) - pose_b.transform_point(local_b);
        Ok(Some(gap.length()))
    }

    /// The largest [`Self::joint_anchor_separation`] over all joints (0 without any).
    pub fn max_joint_anchor_separation(&self) -> f64 {
        self.joints
            .iter()
            .filter_map(|(h, _)| self.joint_anchor_separation(h).ok().flatten())
            .fold(0.0, f64::max)
    }

    /// Adds a collider (see [`ColliderBuilder`]) to `body`, or to the static world with
    /// `None` (its pose is then in the world frame). The body must exist and the
    /// collider's material and pose must be valid.
    pub fn add_collider(
        &mut self,
        collider: ColliderBuilder,
        body: Option<BodyHandle>,
    ) -> Result<ColliderHandle, WorldError> {
        self.collision.invalidate_queries();
        if let Some(b) = body {
            self.body(b)?;
            self.sleep.wake(b.index());
        }
        let collider = collider.build(body)?;
        Ok(self.colliders.insert(collider))
    }

    /// Removes a collider; returns it.
    pub fn remove_collider(&mut self, handle: ColliderHandle) -> Result<Collider, WorldError> {
        self.collision.invalidate_queries();
        let collider = self
            .colliders
            .remove(handle)
            .ok_or(WorldError::StaleCollider(handle))?;
        self.collision.forget_collider(handle);
        if let Some(b) = collider.body {
            self.sleep.wake(b.index());
        }
        Ok(collider)
    }

    /// The collider `handle` names.
    pub fn collider(&self, handle: ColliderHandle) -> Result<&Collider, WorldError> {
        self.colliders
            .get(handle)
            .ok_or(WorldError::StaleCollider(handle))
    }

    /// The collider `handle` names, to change its material, groups or offset.
    pub fn collider_mut(&mut self, handle: ColliderHandle) -> Result<&mut Collider, WorldError> {
        self.collision.invalidate_queries();
        self.colliders
            .get_mut(handle)
            .ok_or(WorldError::StaleCollider(handle))
    }

    /// Every collider with its handle, in slot order.
    pub fn colliders(&self) -> impl Iterator<Item = (ColliderHandle, &Collider)> {
        self.colliders.iter()
    }

    /// Number of colliders.
    pub fn collider_count(&self) -> usize {
        self.colliders.len()
    }

    /// Installs the contact hook, called for every contact point before it becomes rows
    /// (replacing any earlier hook).
    pub fn set_contact_hook(&mut self, hook: impl ContactHook + 'static) {
        self.hook = HookSlot(Some(Arc::new(hook)));
    }

    /// Removes the contact hook.
    pub fn clear_contact_hook(&mut self) {
        self.hook = HookSlot(None);
    }

    /// The contact points of the last step with their forces, from the highest collider
    /// pair to the lowest along gravity (the order the solver visits them; pairs at one
    /// height by collider slots). Sleeping bodies have none.
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// The total contact force and torque (about its centre of mass) on a body in the last
    /// step.
    pub fn contact_force(&self, handle: BodyHandle) -> Result<ContactWrench, WorldError> {
        self.body(handle)?;
        Ok(self
            .wrenches
            .get(handle.index())
            .copied()
            .unwrap_or_default())
    }

    /// Whether a body is asleep ([`crate::SleepSettings`]).
    pub fn is_sleeping(&self, handle: BodyHandle) -> Result<bool, WorldError> {
        self.body(handle)?;
        Ok(self.sleep.is_asleep(handle.index()))
    }

    /// Wakes a body and every body sleeping in its group.
    pub fn wake_up(&mut self, handle: BodyHandle) -> Result<(), WorldError> {
        self.body(handle)?;
        self.sleep.wake(handle.index());
        Ok(())
    }
}
