//! A joint as the world keeps it (settings, feedback, warm start, breaking) and the builder
//! that describes one for [`crate::World::add_joint`].

use crate::error::{JointError, WorldError};
use crate::handles::BodyHandle;
use crate::joint::axis::{JointLimit, JointMotor};
use crate::joint::drive::{AxisDynamics, JointServo};
use crate::joint::{JointKind, JointRows};
use crate::math::Vec3;
use crate::rows::{Pose, Softness};
use stiction_lcp::IndexState;

/// What the joint did in the last step: the constraint force and torque it applied to each
/// body (world frame; torques about each body's centre of mass), and the force of each
/// axis's motor and limit. Forces in N, torques in N m: multiply by the step for impulses.
/// B's entries are what the static world received when `body_b` is `None`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct JointFeedback {
    /// Force on A, N.
    pub force_a: Vec3,
    /// Torque on A about its centre of mass, N m.
    pub torque_a: Vec3,
    /// Force on B, N.
    pub force_b: Vec3,
    /// Torque on B about its centre of mass (or the world origin), N m.
    pub torque_b: Vec3,
    /// Torque on A about the joint's anchor on A ([`JointRows::anchor_a`]):
    /// `torque_a - r x force_a`. What the joint transmits besides its force, and what a
    /// breaking torque is compared with, N m.
    pub anchor_torque_a: Vec3,
    /// Generalized force of each axis's motor (N for a sliding axis, N m for a turning
    /// one), positive when it drives the coordinate up; 0 for an axis without a motor.
    /// Index as the type's axes (hinge, slider, distance: 0; universal, hinge-2: 0 and 1).
    pub motor: [f64; 2],
    /// Generalized force of each axis's limit, positive when it pushes the coordinate up
    /// (at the lower stop); 0 while the stop is not reached or without a limit.
    pub limit: [f64; 2],
    /// Generalized force of each axis's Coulomb friction ([`AxisDynamics::friction`]),
    /// positive when it pushes the coordinate up; 0 without friction.
    pub friction: [f64; 2],
    /// Generalized force of each axis's viscous damping ([`AxisDynamics::damping`]); 0
    /// without damping.
    pub damping: [f64; 2],
    /// Generalized force of each axis's servo ([`AxisDynamics::servo`]): the actuator
    /// force or torque; 0 without a servo.
    pub servo: [f64; 2],
}

/// A joint as the world keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    pub(crate) body_a: BodyHandle,
    pub(crate) body_b: Option<BodyHandle>,
    pub(crate) kind: JointKind,
    pub(crate) softness: Option<Softness>,
    pub(crate) post_stabilize: bool,
    pub(crate) enabled: bool,
    pub(crate) break_force: f64,
    pub(crate) break_torque: f64,
    /// Friction, damping and servo of axes 0 and 1 (default: none).
    pub(crate) dynamics: [AxisDynamics; 2],
    pub(crate) broken: bool,
    pub(crate) feedback: JointFeedback,
    /// Each row's force in the last step (N), the next iterative solve's start.
    pub(crate) last_lambda: Vec<f64>,
    /// Each row's Dantzig index set in the last exact step (empty if none).
    pub(crate) last_state: Vec<IndexState>,
}

impl Joint {
    /// Body A.
    pub fn body_a(&self) -> BodyHandle {
        self.body_a
    }

    /// Body B, or `None` for the static world.
    pub fn body_b(&self) -> Option<BodyHandle> {
        self.body_b
    }

    /// The joint's type and geometry.
    pub fn kind(&self) -> &JointKind {
        &self.kind
    }

    /// Mutable access to the type's parameters (anchors, axes, limits, motors), validated
    /// at the next [`Self::validate`] only: prefer [`Self::set_motor`] and
    /// [`Self::set_limit`]. Changing the row count resets the warm start.
    pub fn kind_mut(&mut self) -> &mut JointKind {
        &mut self.kind
    }

    /// Checks the type's parameters and the axes' friction, damping and servos (as
    /// [`crate::World::add_joint`] did).
    pub fn validate(&self) -> Result<(), WorldError> {
        self.kind.validate()?;
        check_dynamics(&self.kind, &self.dynamics)
    }

    /// Number of free axes a limit or motor can act on (see [`crate::joint`]).
    pub fn axis_count(&self) -> usize {
        self.kind.axis_count()
    }

    /// Sets (or with `None` removes) the motor of axis `axis`; refused (joint unchanged) for
    /// an axis the type does not have or a motor it does not support.
    pub fn set_motor(&mut self, axis: usize, motor: Option<JointMotor>) -> Result<(), WorldError> {
        self.change_control(axis, |control| control.motor = motor)
    }

    /// Sets (or with `None` removes) the limit of axis `axis`; refused (joint unchanged)
    /// as [`Self::set_motor`].
    pub fn set_limit(&mut self, axis: usize, limit: Option<JointLimit>) -> Result<(), WorldError> {
        self.change_control(axis, |control| control.limit = limit)
    }

    /// The friction, damping and servo of axis `axis` (see [`AxisDynamics`]); `None` for an
    /// axis the type does not have.
    pub fn axis_dynamics(&self, axis: usize) -> Option<&AxisDynamics> {
        let count = self.kind.axis_count();
        self.dynamics.get(axis).filter(|_| axis < count)
    }

    /// Sets the friction, damping and servo of axis `axis` ([`AxisDynamics::NONE`] removes
    /// them); refused (joint unchanged) for an axis the type does not have, settings out of
    /// range, or a rigid distance joint. Changing which are set changes the row count and
    /// resets the warm start; changing their values does not.
    pub fn set_axis_dynamics(
        &mut self,
        axis: usize,
        dynamics: AxisDynamics,
    ) -> Result<(), WorldError> {
        let mut all = self.dynamics;
        let count = self.kind.axis_count();
        *all.get_mut(axis)
            .filter(|_| axis < count)
            .ok_or(JointError::NoSuchAxis { axis, count })? = dynamics;
        check_dynamics(&self.kind, &all)?;
        self.dynamics = all;
        Ok(())
    }

    /// Sets (or with `None` removes) the servo of axis `axis`, keeping its friction and
    /// damping; refused as [`Self::set_axis_dynamics`]. A controller moving a target every
    /// step calls this with the new [`JointServo::target_position`].
    pub fn set_servo(&mut self, axis: usize, servo: Option<JointServo>) -> Result<(), WorldError> {
        let mut dynamics = self.axis_dynamics(axis).copied().unwrap_or_default();
        dynamics.servo = servo;
        self.set_axis_dynamics(axis, dynamics)
    }

    fn change_control(
        &mut self,
        axis: usize,
        change: impl FnOnce(&mut crate::joint::AxisControl),
    ) -> Result<(), WorldError> {
        let count = self.kind.axis_count();
        let control = self
            .kind
            .control_mut(axis)
            .ok_or(JointError::NoSuchAxis { axis, count })?;
        let before = *control;
        change(control);
        if let Err(error) = self
            .kind
            .validate()
            .and_then(|()| check_dynamics(&self.kind, &self.dynamics))
        {
            if let Some(control) = self.kind.control_mut(axis) {
                *control = before;
            }
            return Err(error);
        }
        Ok(())
    }

    /// ERP and CFM of this joint's rows; `None` (default) uses the world's.
    pub fn softness(&self) -> Option<Softness> {
        self.softness
    }

    /// Sets this joint's ERP and CFM (validated); `None` returns to the world's. A soft joint
    /// (a spring, [`Softness::from_spring`]) should also turn post-stabilisation off, which
    /// would otherwise remove its stretch every step.
    pub fn set_softness(&mut self, softness: Option<Softness>) -> Result<(), WorldError> {
        if let Some(s) = softness {
            s.validate()?;
        }
        self.softness = softness;
        Ok(())
    }

    /// Whether post-stabilisation projects this joint's position error away after each step
    /// (default `true`).
    pub fn post_stabilize(&self) -> bool {
        self.post_stabilize
    }

    /// Turns post-stabilisation of this joint on or off.
    pub fn set_post_stabilize(&mut self, enabled: bool) {
        self.post_stabilize = enabled;
    }

    /// Whether the joint acts (default `true`). A disabled joint writes no rows.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Enables or disables the joint. Enabling a broken joint repairs it.
    pub fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
        if enabled {
            self.broken = false;
        } else {
            self.feedback = JointFeedback::default();
            self.last_lambda.clear();
            self.last_state.clear();
        }
    }

    /// The force (N) above which the joint breaks; `f64::INFINITY` (default) never.
    pub fn break_force(&self) -> f64 {
        self.break_force
    }

    /// The torque about the anchor (N m) above which the joint breaks; `f64::INFINITY`
    /// (default) never.
    pub fn break_torque(&self) -> f64 {
        self.break_torque
    }

    /// Sets the breaking force (N, `> 0`, infinity: never).
    pub fn set_break_force(&mut self, force: f64) -> Result<(), WorldError> {
        self.break_force = check_threshold(force)?;
        Ok(())
    }

    /// Sets the breaking torque (N m, `> 0`, infinity: never).
    pub fn set_break_torque(&mut self, torque: f64) -> Result<(), WorldError> {
        self.break_torque = check_threshold(torque)?;
        Ok(())
    }

    /// Whether the joint broke: after a step in which `|force_a|` exceeded the breaking
    /// force or `|anchor_torque_a|` the breaking torque, it was disabled. Its feedback
    /// still holds the breaking step's load. [`Self::set_enabled`] repairs it.
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    /// Forces and torques applied in the last step.
    pub fn feedback(&self) -> JointFeedback {
        self.feedback
    }

    /// After the step's forces are in `feedback` and `last_lambda`: fills the anchor torque
    /// and the axes' motor and limit forces (`pose_a`: A's pose when the rows were written),
    /// then breaks the joint if a threshold is exceeded. Returns whether it broke.
    pub(crate) fn finish_step(&mut self, pose_a: &Pose) -> bool {
        let lever = pose_a.rotate(self.kind.anchor_a());
        let feedback = &mut self.feedback;
        feedback.anchor_torque_a = feedback.torque_a - lever.cross(feedback.force_a);
        feedback.motor = [0.0; 2];
        feedback.limit = [0.0; 2];
        feedback.friction = [0.0; 2];
        feedback.damping = [0.0; 2];
        feedback.servo = [0.0; 2];
        let own_rows = self.kind.row_count();
        if self.last_lambda.len() == own_rows + dynamics_rows(&self.kind, &self.dynamics) {
            let controls: usize = (0..self.kind.axis_count())
                .filter_map(|k| self.kind.control(k))
                .map(|c| c.row_count())
                .sum();
            let mut row = own_rows - controls;
            let mut next = || {
                row += 1;
                self.last_lambda[row - 1]
            };
            for k in 0..self.kind.axis_count().min(2) {
                let Some(control) = self.kind.control(k) else {
                    continue;
                };
                if control.motor.is_some() {
                    feedback.motor[k] = next();
                }
                if control.limit.is_some() {
                    feedback.limit[k] = next();
                }
            }
            for (k, dynamics) in self.dynamics.iter().enumerate() {
                if k >= self.kind.axis_count() {
                    break;
                }
                if dynamics.friction != 0.0 {
                    feedback.friction[k] = next();
                }
                if dynamics.damping != 0.0 {
                    feedback.damping[k] = next();
                }
                if dynamics.servo.is_some() {
                    feedback.servo[k] = next();
                }
            }
        }
        // Unbreakable joints (infinite thresholds, the default) skip the two lengths.
        let exceeds =
            |value: Vec3, threshold: f64| threshold.is_finite() && value.length() > threshold;
        let overloaded = exceeds(feedback.force_a, self.break_force)
            || exceeds(feedback.anchor_torque_a, self.break_torque);
        if overloaded {
            self.enabled = false;
            self.broken = true;
            self.last_lambda.clear();
            self.last_state.clear();
        }
        overloaded
    }
}

/// The rows of `dynamics` on the axes `kind` has (at most its first two).
pub(crate) fn dynamics_rows(kind: &JointKind, dynamics: &[AxisDynamics; 2]) -> usize {
    let axes = kind.axis_count().min(2);
    dynamics[..axes].iter().map(AxisDynamics::row_count).sum()
}

/// Refuses settings out of range, settings on an axis `kind` does not have, and settings
/// on a rigid distance joint (whose only axis its rod holds fixed: a range frees it).
pub(crate) fn check_dynamics(
    kind: &JointKind,
    dynamics: &[AxisDynamics; 2],
) -> Result<(), WorldError> {
    let count = kind.axis_count();
    for (axis, d) in dynamics.iter().enumerate() {
        // Nothing set (a NaN or a negative value counts as set, and is refused below).
        if d.is_none() {
            continue;
        }
        if axis >= count {
            return Err(JointError::NoSuchAxis { axis, count }.into());
        }
        d.validate()?;
        if let JointKind::Distance(distance) = kind {
            if distance.control.limit.is_none() {
                return Err(JointError::Unsupported {
                    joint: "rigid distance",
                    feature: "friction, damping or servo (give it a range)",
                }
                .into());
            }
        }
    }
    Ok(())
}

fn check_threshold(value: f64) -> Result<f64, JointError> {
    if value > 0.0 {
        Ok(value)
    } else {
        Err(JointError::InvalidBreakThreshold { value })
    }
}

/// Describes a joint for [`crate::World::add_joint`].
#[derive(Debug, Clone, PartialEq)]
pub struct JointBuilder {
    pub(crate) body_a: BodyHandle,
    pub(crate) body_b: Option<BodyHandle>,
    pub(crate) kind: JointKind,
    pub(crate) softness: Option<Softness>,
    pub(crate) post_stabilize: bool,
    pub(crate) enabled: bool,
    pub(crate) break_force: f64,
    pub(crate) break_torque: f64,
    pub(crate) dynamics: [AxisDynamics; 2],
}

impl JointBuilder {
    /// A joint of type `kind` between `body_a` and `body_b` (`None`: the static world), with
    /// the world's softness, post-stabilisation on, enabled, unbreakable.
    pub fn new(body_a: BodyHandle, body_b: Option<BodyHandle>, kind: impl Into<JointKind>) -> Self {
        Self {
            body_a,
            body_b,
            kind: kind.into(),
            softness: None,
            post_stabilize: true,
            enabled: true,
            break_force: f64::INFINITY,
            break_torque: f64::INFINITY,
            dynamics: [AxisDynamics::NONE; 2],
        }
    }

    /// A user-written constraint between `body_a` and `body_b` (`None`: the static world):
    /// any [`crate::joint::JointRows`] (see the [`crate::rows`] module for how to write its rows).
    /// It is stepped, warm-started, post-stabilised and reported like a built-in joint.
    pub fn custom(
        body_a: BodyHandle,
        body_b: Option<BodyHandle>,
        joint: impl crate::joint::JointRows + Send + Sync + 'static,
    ) -> Self {
        Self::new(
            body_a,
            body_b,
            JointKind::Custom(crate::joint::CustomJoint::new(joint)),
        )
    }

    /// ERP and CFM for this joint's rows (see [`Joint::set_softness`]).
    pub fn softness(mut self, softness: Softness) -> Self {
        self.softness = Some(softness);
        self
    }

    /// Post-stabilisation on or off (see [`Joint::set_post_stabilize`]).
    pub fn post_stabilize(mut self, enabled: bool) -> Self {
        self.post_stabilize = enabled;
        self
    }

    /// Whether the joint starts enabled.
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// Breaks the joint when its force on A exceeds `force` (N, `> 0`; checked when added).
    pub fn break_force(mut self, force: f64) -> Self {
        self.break_force = force;
        self
    }

    /// Breaks the joint when its torque on A about the anchor exceeds `torque` (N m, `> 0`;
    /// checked when added).
    pub fn break_torque(mut self, torque: f64) -> Self {
        self.break_torque = torque;
        self
    }

    /// Friction, damping and a servo on axis `axis` (see [`AxisDynamics`]); refused for an
    /// axis the type does not have, settings out of range or a rigid distance joint.
    pub fn axis_dynamics(
        mut self,
        axis: usize,
        dynamics: AxisDynamics,
    ) -> Result<Self, WorldError> {
        let count = self.kind.axis_count();
        *self
            .dynamics
            .get_mut(axis)
            .filter(|_| axis < count)
            .ok_or(JointError::NoSuchAxis { axis, count })? = dynamics;
        check_dynamics(&self.kind, &self.dynamics)?;
        Ok(self)
    }

    /// Checks the type's parameters, the axes' friction, damping and servos, the softness
    /// and the thresholds.
    pub fn validate(&self) -> Result<(), WorldError> {
        self.kind.validate()?;
        check_dynamics(&self.kind, &self.dynamics)?;
        if let Some(softness) = self.softness {
            softness.validate()?;
        }
        check_threshold(self.break_force)?;
        check_threshold(self.break_torque)?;
        Ok(())
    }

    pub(crate) fn build(self) -> Joint {
        Joint {
            body_a: self.body_a,
            body_b: self.body_b,
            kind: self.kind,
            softness: self.softness,
            post_stabilize: self.post_stabilize,
            enabled: self.enabled,
            break_force: self.break_force,
            break_torque: self.break_torque,
            dynamics: self.dynamics,
            broken: false,
            feedback: JointFeedback::default(),
            last_lambda: Vec::new(),
            last_state: Vec::new(),
        }
    }
}

/// A joint coordinate and its rate at the bodies' current state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointAxisState {
    /// The coordinate: rad for angles (in `(-pi, pi]`), m for positions and distances.
    pub position: f64,
    /// Its rate, rad/s or m/s (the motion of A relative to B).
    pub velocity: f64,
}
