//! Joints: each type only describes its rows ([`JointRows`]); the world solves them.
//!
//! A joint connects body A to body B or, with `body_b = None`, to the static world. Each type
//! lives in its own file, which opens with its constraint function `C`, `dC/dt` and `J`, and
//! builds its rows from the shared parts of [`crate::constraint::parts`]. Adding a type means
//! a new file, a [`JointKind`] variant and a constructor; the solvers never learn joint types.

mod ball;
mod hinge;

pub use ball::BallJoint;
pub use hinge::HingeJoint;

use crate::constraint::{RowWriter, Softness};
use crate::error::WorldError;
use crate::math::Vec3;
use crate::world::BodyHandle;
use stiction_lcp::IndexState;

/// What a joint type must do: write its rows for the current poses.
pub trait JointRows {
    /// Appends this joint's rows to `writer` (whose poses are the bodies' current ones).
    /// The rows must come in the same order every step while their count is unchanged:
    /// warm starts are matched by position.
    fn write_rows(&self, writer: &mut RowWriter);

    /// The number of rows [`Self::write_rows`] writes in the velocity pass (an upper bound
    /// for types whose limits switch rows on and off).
    fn row_count(&self) -> usize;

    /// The anchor points on A and B in their body frames, for joints built on a point
    /// (ball, hinge, ...): [`crate::World::joint_anchor_separation`] measures their distance.
    fn local_anchors(&self) -> Option<(Vec3, Vec3)> {
        None
    }

    /// Checks the parameters (finite anchors, unit axes, ...); [`crate::World::add_joint`]
    /// refuses a joint that fails.
    fn validate(&self) -> Result<(), WorldError> {
        Ok(())
    }
}

/// The joint types.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum JointKind {
    /// Ball and socket: 3 rows.
    Ball(BallJoint),
    /// Hinge: 5 rows.
    Hinge(HingeJoint),
}

impl JointKind {
    fn rows(&self) -> &dyn JointRows {
        match self {
            JointKind::Ball(j) => j,
            JointKind::Hinge(j) => j,
        }
    }
}

impl JointRows for JointKind {
    fn write_rows(&self, writer: &mut RowWriter) {
        self.rows().write_rows(writer);
    }

    fn row_count(&self) -> usize {
        self.rows().row_count()
    }

    fn local_anchors(&self) -> Option<(Vec3, Vec3)> {
        self.rows().local_anchors()
    }

    fn validate(&self) -> Result<(), WorldError> {
        self.rows().validate()
    }
}

impl From<BallJoint> for JointKind {
    fn from(joint: BallJoint) -> Self {
        JointKind::Ball(joint)
    }
}

impl From<HingeJoint> for JointKind {
    fn from(joint: HingeJoint) -> Self {
        JointKind::Hinge(joint)
    }
}

/// What the joint did in the last step: the constraint force and torque it applied to each
/// body (world frame; torques about each body's centre of mass). Forces in N, torques in N m:
/// multiply by the step for impulses. B's entries are what the static world received when
/// `body_b` is `None`.
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

    /// Mutable access to the type's parameters (anchors, axes). Changing the row count
    /// resets the warm start.
    pub fn kind_mut(&mut self) -> &mut JointKind {
        &mut self.kind
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

    /// Enables or disables the joint.
    pub fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
        if !enabled {
            self.feedback = JointFeedback::default();
            self.last_lambda.clear();
            self.last_state.clear();
        }
    }

    /// Forces and torques applied in the last step.
    pub fn feedback(&self) -> JointFeedback {
        self.feedback
    }
}

/// Describes a joint for [`crate::World::add_joint`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointBuilder {
    pub(crate) body_a: BodyHandle,
    pub(crate) body_b: Option<BodyHandle>,
    pub(crate) kind: JointKind,
    pub(crate) softness: Option<Softness>,
    pub(crate) post_stabilize: bool,
    pub(crate) enabled: bool,
}

impl JointBuilder {
    /// A joint of type `kind` between `body_a` and `body_b` (`None`: the static world), with
    /// the world's softness, post-stabilisation on, enabled.
    pub fn new(body_a: BodyHandle, body_b: Option<BodyHandle>, kind: impl Into<JointKind>) -> Self {
        Self {
            body_a,
            body_b,
            kind: kind.into(),
            softness: None,
            post_stabilize: true,
            enabled: true,
        }
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

    pub(crate) fn build(self) -> Joint {
        Joint {
            body_a: self.body_a,
            body_b: self.body_b,
            kind: self.kind,
            softness: self.softness,
            post_stabilize: self.post_stabilize,
            enabled: self.enabled,
            feedback: JointFeedback::default(),
            last_lambda: Vec::new(),
            last_state: Vec::new(),
        }
    }
}

/// Refuses non-finite vectors in a joint description.
pub(crate) fn check_finite(vectors: &[Vec3], reason: &'static str) -> Result<(), WorldError> {
    if vectors.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(WorldError::InvalidJoint { reason })
    }
}

/// Refuses a direction that is not a unit vector (to a relative `1e-9`).
pub(crate) fn check_unit(v: Vec3, reason: &'static str) -> Result<(), WorldError> {
    if v.is_finite() && (v.length() - 1.0).abs() <= 1e-9 {
        Ok(())
    } else {
        Err(WorldError::InvalidJoint { reason })
    }
}

#[cfg(test)]
mod tests {
    //! `J` must be the derivative of `C`: compare `J u` with a central difference of the
    //! errors the rows report along a motion with velocities `u`.

    use super::*;
    use crate::constraint::{Pose, RowStorage};
    use crate::math::Quat;

    struct Motion {
        pose: [Pose; 2],
        linear: [Vec3; 2],
        angular: [Vec3; 2],
    }

    impl Motion {
        fn at(&self, t: f64) -> [Pose; 2] {
            [0, 1].map(|k| Pose {
                position: self.pose[k].position + t * self.linear[k],
                orientation: Quat::from_scaled_axis(t * self.angular[k]) * self.pose[k].orientation,
            })
        }
    }

    fn rows_at(joint: &JointKind, poses: [Pose; 2]) -> RowStorage {
        let mut storage = RowStorage::default();
        let mut writer = storage.writer([0, 1], poses, Softness::DEFAULT, false);
        joint.write_rows(&mut writer);
        assert_eq!(writer.rows_described(), joint.row_count());
        storage
    }

    fn check_jacobian(joint: JointKind, motion: &Motion) {
        let now = rows_at(&joint, motion.at(0.0));
        let dt = 1e-6;
        let (ahead, behind) = (
            rows_at(&joint, motion.at(dt)),
            rows_at(&joint, motion.at(-dt)),
        );
        for i in 0..now.len() {
            let numeric = (ahead.error[i] - behind.error[i]) / (2.0 * dt);
            let analytic = now.jacobian[i].velocity(
                motion.linear[0],
                motion.angular[0],
                motion.linear[1],
                motion.angular[1],
            );
            assert!(
                (numeric - analytic).abs() < 1e-7 * (1.0 + analytic.abs()),
                "row {i}: dC/dt {numeric} vs J u {analytic}"
            );
        }
    }

    fn motion(pose_a: Pose, pose_b: Pose) -> Motion {
        Motion {
            pose: [pose_a, pose_b],
            linear: [Vec3::new(0.3, -1.2, 0.7), Vec3::new(-0.4, 0.1, 2.0)],
            angular: [Vec3::new(1.1, 0.4, -0.9), Vec3::new(-0.2, 1.5, 0.6)],
        }
    }

    #[test]
    fn ball_jacobian_is_the_derivative_of_its_error() {
        let pose_a = Pose {
            position: Vec3::new(0.2, 0.5, 1.0),
            orientation: Quat::from_rotation_y(0.7),
        };
        let pose_b = Pose {
            position: Vec3::new(-0.4, 0.1, 0.3),
            orientation: Quat::from_rotation_x(-1.1),
        };
        // Anchors that do not coincide: the derivative holds away from C = 0 too.
        let joint = BallJoint::new(Vec3::new(0.3, -0.2, 0.1), Vec3::new(-0.5, 0.0, 0.4));
        check_jacobian(joint.into(), &motion(pose_a, pose_b));
    }

    #[test]
    fn hinge_jacobian_is_the_derivative_of_its_error_when_aligned() {
        let pose_a = Pose {
            position: Vec3::new(1.0, 0.0, 2.0),
            orientation: Quat::from_rotation_z(0.4),
        };
        let pose_b = Pose {
            position: Vec3::new(0.0, 0.5, 2.0),
            orientation: Quat::from_rotation_x(0.9),
        };
        let axis = Vec3::new(1.0, 2.0, -0.5);
        let joint =
            HingeJoint::at_world_axis(Vec3::new(0.5, 0.2, 2.1), axis, &pose_a, &pose_b).unwrap();
        check_jacobian(joint.into(), &motion(pose_a, pose_b));
    }

    #[test]
    fn hinge_angle_follows_relative_rotation_about_the_axis() {
        let axis = Vec3::new(0.0, 1.0, 1.0).normalize();
        let pose_b = Pose {
            position: Vec3::ZERO,
            orientation: Quat::from_rotation_x(0.3),
        };
        let pose_a = Pose {
            position: Vec3::new(1.0, 0.0, 0.0),
            orientation: Quat::from_rotation_z(-0.8),
        };
        let joint = HingeJoint::at_world_axis(Vec3::ZERO, axis, &pose_a, &pose_b).unwrap();
        assert!(joint.angle(&pose_a, &pose_b).abs() < 1e-15);
        for angle in [0.5, -2.0, 3.0] {
            let turned = Pose {
                position: pose_a.position,
                orientation: Quat::from_axis_angle(axis, angle) * pose_a.orientation,
            };
            assert!((joint.angle(&turned, &pose_b) - angle).abs() < 1e-12);
        }
        assert!(HingeJoint::at_world_axis(Vec3::ZERO, Vec3::ZERO, &pose_a, &pose_b).is_err());
    }
}
