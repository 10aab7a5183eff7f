//! Joints: each type only describes its rows ([`JointRows`]); the world solves them.
//!
//! A joint connects body A to body B or, with `body_b = None`, to the static world. Each type
//! lives in its own file, which opens with its constraint function `C`, `dC/dt` and `J`, and
//! builds its rows from the shared parts of [`crate::rows::parts`]. Adding a type means
//! a new file, a [`JointKind`] variant and a constructor; the solvers never learn joint types.
//!
//! | type | rows | free axes (limit, motor) |
//! |------|------|--------------------------|
//! | [`BallJoint`] | 3 point | none |
//! | [`HingeJoint`] | 3 point + 2 parallel axes | angle |
//! | [`SliderJoint`] | 3 orientation + 2 point on line | position |
//! | [`FixedJoint`] | 3 point + 3 orientation | none |
//! | [`UniversalJoint`] | 3 point + 1 perpendicular axes | two angles |
//! | [`Hinge2Joint`] | 2 point on line + 1 suspension + 1 perpendicular axes | steering, wheel |
//! | [`DistanceJoint`] | 1 distance (or a range limit) | distance (limit only) |
//!
//! After a type's own rows come, axis by axis, a motor row and a limit row for the axes
//! that have them ([`AxisControl`]); a limit row is present (inert) even while its stop is
//! far, so the row count depends only on the settings. Then, axis by axis, the joint's
//! Coulomb friction, viscous damping and servo rows for the axes that have them
//! ([`AxisDynamics`], [`JointServo`]: settings of the [`Joint`], so custom joints with
//! axes get them too; see `drive.rs`). Every joint can break: a force or
//! torque threshold ([`JointBuilder::break_force`], [`JointBuilder::break_torque`]) above
//! which it is disabled after the step ([`Joint::is_broken`],
//! [`crate::StepStats::broken_joints`]).
//!
//! Joint rows also get the curvature term of `curvature.rs` (on by default,
//! [`crate::CurvatureCorrection`]), which keeps jointed mechanisms from losing energy at
//! first order in the step.

mod axis;
mod ball;
pub(crate) mod curvature;
mod distance;
mod drive;
mod fixed;
mod hinge;
mod hinge2;
mod live;
pub(crate) mod points;
mod slider;
mod universal;
mod write;

pub use axis::{AxisControl, JointAxis, JointLimit, JointMotor};
pub use ball::BallJoint;
pub use distance::DistanceJoint;
pub use drive::{AxisDynamics, JointServo};
pub use fixed::FixedJoint;
pub use hinge::HingeJoint;
pub use hinge2::{Hinge2Joint, Suspension};
pub use live::{Joint, JointAxisState, JointBuilder, JointFeedback};
pub use slider::SliderJoint;
pub use universal::UniversalJoint;
pub(crate) use write::{joint_slots, write_joint_rows_moving};

use crate::error::{JointError, WorldError};
use crate::math::{Quat, Vec3};
use crate::rows::{Pose, RowWriter};
use std::sync::Arc;

/// What a joint type must do: write its rows for the current poses.
pub trait JointRows {
    /// Appends this joint's rows to `writer` (whose poses are the bodies' current ones).
    /// The rows must come in the same order every step while their count is unchanged:
    /// warm starts are matched by position.
    fn write_rows(&self, writer: &mut RowWriter);

    /// The number of rows [`Self::write_rows`] writes in the velocity pass.
    fn row_count(&self) -> usize;

    /// The type's name, for messages. Default: `"custom"`.
    fn name(&self) -> &'static str {
        "custom"
    }

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

    /// The point of A (body frame, m) about which [`JointFeedback::anchor_torque_a`] is
    /// taken: the joint's anchor on A. Default: the first of [`Self::local_anchors`], else
    /// A's centre of mass.
    fn anchor_a(&self) -> Vec3 {
        self.local_anchors().map_or(Vec3::ZERO, |(a, _)| a)
    }

    /// How many free coordinates the type exposes to limits and motors (at most 2).
    fn axis_count(&self) -> usize {
        0
    }

    /// Free coordinate `index` for bodies at `pose_a` and `pose_b`.
    fn axis(&self, _index: usize, _pose_a: &Pose, _pose_b: &Pose) -> Option<JointAxis> {
        None
    }

    /// The limit and motor of axis `index`.
    fn control(&self, _index: usize) -> Option<&AxisControl> {
        None
    }

    /// The limit and motor of axis `index`, to change them.
    fn control_mut(&mut self, _index: usize) -> Option<&mut AxisControl> {
        None
    }
}

/// Writes the motor and limit rows of every axis of `joint`, in axis order.
pub(crate) fn write_axis_rows(joint: &impl JointRows, writer: &mut RowWriter) {
    for index in 0..joint.axis_count() {
        let Some(control) = joint.control(index) else {
            continue;
        };
        if control.row_count() == 0 {
            continue;
        }
        if let Some(axis) = joint.axis(index, writer.pose_a(), writer.pose_b()) {
            control.write_rows(writer, &axis);
        }
    }
}

/// The joint types: the built-in ones, and [`JointKind::Custom`] for a constraint written by
/// the user ([`CustomJoint`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum JointKind {
    /// Ball and socket: 3 rows.
    Ball(BallJoint),
    /// Hinge: 5 rows, one axis.
    Hinge(HingeJoint),
    /// Slider: 5 rows, one axis.
    Slider(SliderJoint),
    /// Fixed: 6 rows.
    Fixed(FixedJoint),
    /// Universal: 4 rows, two axes.
    Universal(UniversalJoint),
    /// Hinge-2 (car wheel): 4 rows, two axes.
    Hinge2(Hinge2Joint),
    /// Distance: 1 row, one axis.
    Distance(DistanceJoint),
    /// A constraint written by the user: any [`JointRows`].
    Custom(CustomJoint),
}

/// A user-written constraint, shared behind an [`Arc`] so that worlds holding it stay
/// cheap to clone. Build it with [`CustomJoint::new`] or [`crate::JointBuilder::custom`].
///
/// Its limits and motors can be changed through [`crate::World::joint_mut`] only while no
/// clone of the world shares it. Snapshots refuse worlds holding one
/// ([`crate::SnapshotError::Unsupported`]): its type cannot be read back.
#[derive(Clone)]
pub struct CustomJoint(Arc<dyn JointRows + Send + Sync>);

impl CustomJoint {
    /// Wraps `joint`.
    pub fn new(joint: impl JointRows + Send + Sync + 'static) -> Self {
        Self(Arc::new(joint))
    }

    /// The wrapped constraint.
    pub fn rows(&self) -> &(dyn JointRows + Send + Sync) {
        &*self.0
    }
}

impl PartialEq for CustomJoint {
    /// The same shared constraint (not structural equality: the type is unknown).
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for CustomJoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CustomJoint({}, {} rows)",
            self.0.name(),
            self.0.row_count()
        )
    }
}

impl JointKind {
    fn rows(&self) -> &dyn JointRows {
        match self {
            JointKind::Ball(j) => j,
            JointKind::Hinge(j) => j,
            JointKind::Slider(j) => j,
            JointKind::Fixed(j) => j,
            JointKind::Universal(j) => j,
            JointKind::Hinge2(j) => j,
            JointKind::Distance(j) => j,
            JointKind::Custom(j) => j.rows(),
        }
    }

    /// The constraint to change, `None` for a custom joint shared with another world.
    fn rows_mut(&mut self) -> Option<&mut dyn JointRows> {
        Some(match self {
            JointKind::Ball(j) => j,
            JointKind::Hinge(j) => j,
            JointKind::Slider(j) => j,
            JointKind::Fixed(j) => j,
            JointKind::Universal(j) => j,
            JointKind::Hinge2(j) => j,
            JointKind::Distance(j) => j,
            JointKind::Custom(j) => Arc::get_mut(&mut j.0)?,
        })
    }

    /// The anchors on A and B (body frames) when this joint's rows are always exactly the
    /// three point rows at them, unbounded and stabilised (a ball joint): the steppers then
    /// compute them without the row writer (`points.rs`). Matched here, not asked of the
    /// trait, so the answer is inlined where the steppers ask every joint every step.
    pub(crate) fn fixed_point(&self) -> Option<(&Vec3, &Vec3)> {
        match self {
            JointKind::Ball(j) => Some(j.anchors()),
            _ => None,
        }
    }

    /// The type's name, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            JointKind::Ball(_) => "ball",
            JointKind::Hinge(_) => "hinge",
            JointKind::Slider(_) => "slider",
            JointKind::Fixed(_) => "fixed",
            JointKind::Universal(_) => "universal",
            JointKind::Hinge2(_) => "hinge-2",
            JointKind::Distance(_) => "distance",
            JointKind::Custom(j) => j.0.name(),
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

    fn name(&self) -> &'static str {
        JointKind::name(self)
    }

    fn local_anchors(&self) -> Option<(Vec3, Vec3)> {
        self.rows().local_anchors()
    }

    fn validate(&self) -> Result<(), WorldError> {
        self.rows().validate()
    }

    fn anchor_a(&self) -> Vec3 {
        self.rows().anchor_a()
    }

    fn axis_count(&self) -> usize {
        self.rows().axis_count()
    }

    fn axis(&self, index: usize, pose_a: &Pose, pose_b: &Pose) -> Option<JointAxis> {
        self.rows().axis(index, pose_a, pose_b)
    }

    fn control(&self, index: usize) -> Option<&AxisControl> {
        self.rows().control(index)
    }

    fn control_mut(&mut self, index: usize) -> Option<&mut AxisControl> {
        self.rows_mut()?.control_mut(index)
    }
}

macro_rules! joint_kind_from {
    ($($variant:ident($type:ty)),* $(,)?) => {
        $(impl From<$type> for JointKind {
            fn from(joint: $type) -> Self {
                JointKind::$variant(joint)
            }
        })*
    };
}

joint_kind_from!(
    Custom(CustomJoint),
    Ball(BallJoint),
    Hinge(HingeJoint),
    Slider(SliderJoint),
    Fixed(FixedJoint),
    Universal(UniversalJoint),
    Hinge2(Hinge2Joint),
    Distance(DistanceJoint),
);

/// Refuses non-finite vectors in a joint description.
pub(crate) fn check_finite(vectors: &[Vec3], what: &'static str) -> Result<(), JointError> {
    if vectors.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(JointError::NonFinite { what })
    }
}

/// Refuses a stored direction that is not a unit vector (to a relative `1e-9`).
pub(crate) fn check_unit(v: Vec3, what: &'static str) -> Result<(), JointError> {
    check_finite(&[v], what)?;
    if (v.length() - 1.0).abs() <= 1e-9 {
        Ok(())
    } else {
        Err(JointError::NotUnit { what })
    }
}

/// Refuses pairs of unit vectors that are not perpendicular (to `1e-9`).
pub(crate) fn check_perpendicular(
    pairs: &[(Vec3, Vec3)],
    what: &'static str,
    other: &'static str,
) -> Result<(), JointError> {
    if pairs.iter().all(|(a, b)| a.dot(*b).abs() <= 1e-9) {
        Ok(())
    } else {
        Err(JointError::NotPerpendicular { what, other })
    }
}

/// One (axis, reference) frame of a joint with the names errors use for its two vectors.
pub(crate) struct AxisFrame {
    pub axis: Vec3,
    pub axis_name: &'static str,
    pub reference: Vec3,
    pub reference_name: &'static str,
}

/// Refuses axis frames whose axes or references are not unit vectors (axes checked first),
/// or whose reference is not perpendicular to its axis (`what` and `other` name the pair).
pub(crate) fn check_axis_frames(
    frames: &[AxisFrame; 2],
    what: &'static str,
    other: &'static str,
) -> Result<(), JointError> {
    for frame in frames {
        check_unit(frame.axis, frame.axis_name)?;
    }
    for frame in frames {
        check_unit(frame.reference, frame.reference_name)?;
    }
    let pairs = frames.each_ref().map(|f| (f.axis, f.reference));
    check_perpendicular(&pairs, what, other)
}

/// Refuses a rest orientation that is not a finite unit quaternion (to `1e-9`).
pub(crate) fn check_rotation(q: Quat) -> Result<(), JointError> {
    if q.is_finite() && (q.length() - 1.0).abs() <= 1e-9 {
        Ok(())
    } else {
        Err(JointError::NotUnit {
            what: "rest orientation",
        })
    }
}

/// The unit vector along a direction given to a constructor: refuses non-finite and zero
/// directions.
pub(crate) fn unit_direction(v: Vec3, what: &'static str) -> Result<Vec3, JointError> {
    check_finite(&[v], what)?;
    let length = v.length();
    if length > 0.0 && length.is_finite() {
        Ok(v / length)
    } else {
        Err(JointError::ZeroAxis { what })
    }
}

#[cfg(test)]
mod tests {
    //! `J` must be the derivative of `C`: compare `J u` with a central difference of the
    //! errors the rows report along a motion with velocities `u`.

    use super::*;
    use crate::error::JointError;
    use crate::math::Quat;
    use crate::rows::{Pose, RowStorage, Softness};

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

    fn poses() -> (Pose, Pose) {
        (
            Pose {
                position: Vec3::new(1.0, 0.0, 2.0),
                orientation: Quat::from_rotation_z(0.4),
            },
            Pose {
                position: Vec3::new(0.0, 0.5, 2.0),
                orientation: Quat::from_rotation_x(0.9),
            },
        )
    }

    /// A motion in which A moves with B, plus a rotation at rate `spin` about the world line
    /// through `point` along `axis` and a slide at `slide` along `axis`: a motion every
    /// joint whose free coordinate that is allows.
    fn free_motion(
        pose_a: Pose,
        pose_b: Pose,
        point: Vec3,
        axis: Vec3,
        spin: f64,
        slide: f64,
    ) -> Motion {
        let (v_b, w_b) = (Vec3::new(-0.4, 0.1, 2.0), Vec3::new(-0.2, 1.5, 0.6));
        let w_a = w_b + spin * axis;
        let v_a = v_b
            + w_b.cross(pose_a.position - pose_b.position)
            + (spin * axis).cross(pose_a.position - point)
            + slide * axis;
        Motion {
            pose: [pose_a, pose_b],
            linear: [v_a, v_b],
            angular: [w_a, w_b],
        }
    }

    /// The joint's axis `index` has the rate its Jacobian says along `motion`.
    fn check_axis_rate(joint: &JointKind, index: usize, motion: &Motion, expected: f64) {
        let dt = 1e-6;
        let position = |t: f64| {
            let [a, b] = motion.at(t);
            joint.axis(index, &a, &b).unwrap().position
        };
        let numeric = (position(dt) - position(-dt)) / (2.0 * dt);
        let [a, b] = motion.at(0.0);
        let axis = joint.axis(index, &a, &b).unwrap();
        let analytic = axis.jacobian.velocity(
            motion.linear[0],
            motion.angular[0],
            motion.linear[1],
            motion.angular[1],
        );
        assert!(
            (numeric - analytic).abs() < 1e-7 && (analytic - expected).abs() < 1e-9,
            "{} axis {index}: numeric {numeric}, J u {analytic}, expected {expected}",
            joint.name()
        );
    }

    fn rows_at(joint: &JointKind, poses: [Pose; 2]) -> RowStorage {
        let mut storage = RowStorage::default();
        let mut writer = storage.writer([0, 1], poses, Softness::DEFAULT, false);
        joint.write_rows(&mut writer);
        assert_eq!(writer.rows_described(), joint.row_count());
        storage
    }

    /// A writer keeping only errors (post-stabilisation's re-measure, the curvature
    /// look-ahead) keeps exactly the full pass's bodies, errors, bounds and stabilise
    /// flags, and nothing else, in the velocity and the positional pass.
    fn check_errors_only(joint: &JointKind, poses: [Pose; 2]) {
        for positional in [false, true] {
            let written = |errors_only: bool| {
                let mut storage = RowStorage::default();
                let mut writer = storage
                    .writer([0, 1], poses, Softness::DEFAULT, positional)
                    .errors_only(errors_only);
                joint.write_rows(&mut writer);
                storage
            };
            let (full, errors) = (written(false), written(true));
            let name = joint.name();
            assert!(!full.is_empty(), "{name}");
            assert_eq!(full.bodies, errors.bodies, "{name}");
            assert_eq!(full.error, errors.error, "{name}");
            assert_eq!((&full.lo, &full.hi), (&errors.lo, &errors.hi), "{name}");
            assert_eq!(full.stabilize, errors.stabilize, "{name}");
            assert!(errors.jacobian.is_empty() && errors.erp.is_empty());
            // A point joint's rows computed without the writer are the writer's, bit for
            // bit: its errors those of both passes, its full rows (Jacobians, errors, all
            // unbounded and stabilised with the writer's softness) the full pass's.
            let [a, b] = &poses;
            let Some((local_a, local_b)) = joint.fixed_point() else {
                continue;
            };
            let (anchor_a, anchor_b) = points::world_anchors(a, b, *local_a, *local_b);
            let point_errors = crate::rows::parts::point_errors(anchor_a, anchor_b);
            assert_eq!(point_errors.to_vec(), errors.error, "{name}");
            let mut batch = crate::joint::points::FixedRows::default();
            let mut direct = RowStorage::default();
            points::push_point_rows(a, b, anchor_a, anchor_b, &mut direct);
            batch.push(crate::joint::points::EqualityBlock {
                bodies: [0, 1],
                softness: Softness::DEFAULT,
                rows: 3,
            });
            batch.flush_into(&mut direct);
            assert_eq!(direct.jacobian, full.jacobian, "{name}");
            assert_eq!(direct.error, full.error, "{name}");
            assert_eq!((&direct.lo, &direct.hi), (&full.lo, &full.hi), "{name}");
            assert_eq!((&direct.erp, &direct.cfm), (&full.erp, &full.cfm), "{name}");
            assert_eq!(direct.target_velocity, full.target_velocity, "{name}");
            assert_eq!(direct.stabilize, full.stabilize, "{name}");
        }
    }

    fn check_jacobian(joint: JointKind, motion: &Motion) {
        check_errors_only(&joint, motion.at(0.0));
        let now = rows_at(&joint, motion.at(0.0));
        let dt = 1e-6;
        let (ahead, behind) = (
            rows_at(&joint, motion.at(dt)),
            rows_at(&joint, motion.at(-dt)),
        );
        for i in 0..now.len() {
            if now.lo[i] == -now.hi[i] && now.hi[i].is_finite() && now.lo[i] != 0.0 {
                continue; // a motor row: no position error to differentiate
            }
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

    #[test]
    fn new_joint_jacobians_are_the_derivatives_of_their_errors() {
        let (pose_a, pose_b) = poses();
        let anchor = Vec3::new(0.5, 0.2, 2.1);
        let axis = Vec3::new(1.0, 2.0, -0.5);
        let other = Vec3::new(0.3, -0.2, 1.0);
        let limit = AxisControl {
            limit: Some(JointLimit::new(-0.3, 0.4).unwrap()),
            motor: None,
        };
        let joints: [JointKind; 6] = [
            SliderJoint::along_world_axis(axis, &pose_a, &pose_b)
                .unwrap()
                .with_control(limit)
                .into(),
            FixedJoint::at_current_poses(&pose_a, &pose_b).into(),
            UniversalJoint::at_world_point(anchor, axis, other, &pose_a, &pose_b)
                .unwrap()
                .with_control(1, limit)
                .into(),
            Hinge2Joint::at_world_point(anchor, axis, other, &pose_a, &pose_b)
                .unwrap()
                .with_suspension(1e3, 10.0)
                .unwrap()
                .into(),
            // Anchors 1.2 m apart, off the centres of mass.
            DistanceJoint::between_world_points(anchor, anchor + other, &pose_a, &pose_b)
                .unwrap()
                .into(),
            DistanceJoint::between_world_points(anchor, anchor + other, &pose_a, &pose_b)
                .unwrap()
                .rope(2.0)
                .unwrap()
                .into(),
        ];
        // Check away from the creation pose, slid along the axis: the slider and the
        // hinge-2's suspension then have a non-zero travel, where a lever arm taken at the
        // wrong point of B would show.
        let slid = Pose {
            position: pose_a.position + 0.3 * axis.normalize(),
            ..pose_a
        };
        for joint in joints {
            joint.validate().unwrap();
            check_jacobian(joint, &motion(slid, pose_b));
        }
    }

    #[test]
    fn axis_rates_follow_the_free_motion_of_each_joint() {
        let (pose_a, pose_b) = poses();
        let anchor = Vec3::new(0.5, 0.2, 2.1);
        let axis = Vec3::new(1.0, 2.0, -0.5).normalize();
        let other = Vec3::new(0.3, -0.2, 1.0);
        let hinge: JointKind = HingeJoint::at_world_axis(anchor, axis, &pose_a, &pose_b)
            .unwrap()
            .into();
        check_axis_rate(
            &hinge,
            0,
            &free_motion(pose_a, pose_b, anchor, axis, 0.7, 0.0),
            0.7,
        );
        let slider: JointKind = SliderJoint::along_world_axis(axis, &pose_a, &pose_b)
            .unwrap()
            .into();
        check_axis_rate(
            &slider,
            0,
            &free_motion(pose_a, pose_b, anchor, axis, 0.0, -0.3),
            -0.3,
        );
        let universal =
            UniversalJoint::at_world_point(anchor, axis, other, &pose_a, &pose_b).unwrap();
        let (u1, u2) = universal.axes(&pose_a, &pose_b);
        let universal: JointKind = universal.into();
        check_axis_rate(
            &universal,
            0,
            &free_motion(pose_a, pose_b, anchor, u1, 0.9, 0.0),
            0.9,
        );
        check_axis_rate(
            &universal,
            1,
            &free_motion(pose_a, pose_b, anchor, u2, -1.3, 0.0),
            -1.3,
        );
        let hinge2 = Hinge2Joint::at_world_point(anchor, axis, other, &pose_a, &pose_b).unwrap();
        let (u1, u2) = hinge2.axes(&pose_a, &pose_b);
        let hinge2: JointKind = hinge2.into();
        check_axis_rate(
            &hinge2,
            Hinge2Joint::STEERING,
            &free_motion(pose_a, pose_b, anchor, u1, 0.4, 0.0),
            0.4,
        );
        check_axis_rate(
            &hinge2,
            Hinge2Joint::WHEEL,
            &free_motion(pose_a, pose_b, anchor, u2, 6.0, 0.0),
            6.0,
        );
        // The distance is an exact coordinate: any motion, its rate is n . (v_pa - v_pb).
        let distance: JointKind =
            DistanceJoint::between_world_points(anchor, anchor + other, &pose_a, &pose_b)
                .unwrap()
                .into();
        let m = motion(pose_a, pose_b);
        let [a, b] = m.at(0.0);
        let rate = distance.axis(0, &a, &b).unwrap().jacobian.velocity(
            m.linear[0],
            m.angular[0],
            m.linear[1],
            m.angular[1],
        );
        check_axis_rate(&distance, 0, &m, rate);
    }

    #[test]
    fn angles_are_zero_at_creation_and_follow_each_axis() {
        let (pose_a, pose_b) = poses();
        let anchor = Vec3::new(0.5, 0.2, 2.1);
        let (axis, other) = (Vec3::new(1.0, 2.0, -0.5), Vec3::new(0.3, -0.2, 1.0));
        let universal =
            UniversalJoint::at_world_point(anchor, axis, other, &pose_a, &pose_b).unwrap();
        let hinge2 = Hinge2Joint::at_world_point(anchor, axis, other, &pose_a, &pose_b).unwrap();
        assert!(universal
            .angles(&pose_a, &pose_b)
            .iter()
            .all(|a| a.abs() < 1e-12));
        assert!(hinge2.steering_angle(&pose_a, &pose_b).abs() < 1e-12);
        assert!(hinge2.wheel_angle(&pose_a, &pose_b).abs() < 1e-12);
        // Turn A about each free axis through the anchor by a finite angle.
        let turned = |direction: Vec3, angle: f64| {
            let rotation = Quat::from_axis_angle(direction, angle);
            Pose {
                position: anchor + rotation * (pose_a.position - anchor),
                orientation: rotation * pose_a.orientation,
            }
        };
        let (u1, u2) = universal.axes(&pose_a, &pose_b);
        assert!((universal.angles(&turned(u1, 1.1), &pose_b)[0] - 1.1).abs() < 1e-12);
        assert!((universal.angles(&turned(u2, -2.5), &pose_b)[1] + 2.5).abs() < 1e-12);
        let (s1, s2) = hinge2.axes(&pose_a, &pose_b);
        assert!((hinge2.steering_angle(&turned(s1, 0.6), &pose_b) - 0.6).abs() < 1e-12);
        assert!((hinge2.wheel_angle(&turned(s2, 3.0), &pose_b) - 3.0).abs() < 1e-12);
        assert!(hinge2.suspension_travel(&turned(s2, 3.0), &pose_b).abs() < 1e-12);
        let slider = SliderJoint::along_world_axis(axis, &pose_a, &pose_b).unwrap();
        let moved = Pose {
            position: pose_a.position + 0.25 * axis.normalize(),
            ..pose_a
        };
        assert!((slider.position(&moved, &pose_b) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn bad_descriptions_are_typed_errors() {
        let (pose_a, pose_b) = poses();
        let nan = Vec3::new(f64::NAN, 0.0, 0.0);
        let error = |r: Result<JointKind, WorldError>| match r {
            Err(WorldError::InvalidJoint(e)) => e,
            other => panic!("expected a joint error, got {other:?}"),
        };
        assert_eq!(
            error(SliderJoint::along_world_axis(Vec3::ZERO, &pose_a, &pose_b).map(Into::into)),
            JointError::ZeroAxis {
                what: "slider axis"
            }
        );
        assert_eq!(
            error(BallJoint::at_world_point(nan, &pose_a, &pose_b).map(Into::into)),
            JointError::NonFinite { what: "anchor" }
        );
        assert!(matches!(
            error(
                UniversalJoint::at_world_point(Vec3::ZERO, Vec3::X, -Vec3::X, &pose_a, &pose_b)
                    .map(Into::into)
            ),
            JointError::Parallel { .. }
        ));
        assert!(matches!(
            error(
                Hinge2Joint::at_world_point(Vec3::ZERO, Vec3::Z, Vec3::X, &pose_a, &pose_b)
                    .and_then(|j| j.with_suspension(-1.0, 0.0))
                    .map(Into::into)
            ),
            JointError::InvalidSpring { .. }
        ));
        assert!(matches!(
            error(
                DistanceJoint::between_world_points(Vec3::ZERO, Vec3::ZERO, &pose_a, &pose_b)
                    .map(Into::into)
            ),
            JointError::InvalidLength { .. }
        ));
        let mut distance: JointKind =
            DistanceJoint::between_world_points(Vec3::ZERO, Vec3::X, &pose_a, &pose_b)
                .unwrap()
                .into();
        distance.control_mut(0).unwrap().motor = Some(JointMotor::new(1.0, 1.0).unwrap());
        assert!(matches!(
            error(distance.validate().map(|_| distance)),
            JointError::Unsupported { .. }
        ));
        let mut hinge = HingeJoint::at_world_axis(Vec3::ZERO, Vec3::Z, &pose_a, &pose_b).unwrap();
        hinge.local_axis_a *= 2.0;
        assert!(matches!(
            error(hinge.validate().map(|_| hinge.into())),
            JointError::NotUnit { .. }
        ));
    }
}
