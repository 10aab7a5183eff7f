//! Universal (Cardan) joint: a ball joint whose two bodies also keep an axis of A
//! perpendicular to an axis of B, so A turns relative to B only about those two axes.
//!
//! World anchors `p_a`, `p_b` as for the ball joint; unit axes `u1` fixed in A and `u2`
//! fixed in B:
//!
//! ```text
//! C     = ( p_a - p_b,  u1 . u2 )                                      4 rows
//! dC/dt = ( v_a + w_a x r_a - v_b - w_b x r_b,  (u1 x u2) . (w_a - w_b) )
//! J     = [ E, -[r_a]x, -E, [r_b]x ]                                   point part
//!         [ 0,  (u1 x u2)^T, 0, -(u1 x u2)^T ]                          perpendicular-axes part
//! ```
//!
//! (both exact). ODE's `dJointCreateUniversal` (Smith, ODE manual "Universal"), in this
//! engine's sign convention. With the third direction removed, `w_a - w_b = a u1 + b u2`,
//! and since `u1 . u2 = 0` the two free rates are `a = u1 . (w_a - w_b)` and
//! `b = u2 . (w_a - w_b)`, `J = [0, u1, 0, -u1]` and `[0, u2, 0, -u2]`:
//!
//! - axis 0: A's rotation about `u1` relative to B, the angle from `u2` to A's reference
//!   vector (`u2` when the joint was made) about `u1`;
//! - axis 1: A's rotation about `u2` relative to B, the angle from B's reference vector
//!   (`u1` when the joint was made) to `u1` about `u2`.
//!
//! Each can have a limit (rad) and a motor (rad/s, N m).

use crate::error::{JointError, WorldError};
use crate::joint::axis::{AxisControl, JointAxis};
use crate::joint::{check_axis_frames, check_finite, unit_direction, AxisFrame, JointRows};
use crate::math::Vec3;
use crate::rows::{parts, Pose, RowWriter};

/// A universal joint, described in each body's frame (for the static world, world
/// coordinates).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UniversalJoint {
    /// Anchor on body A, body frame (m).
    pub local_anchor_a: Vec3,
    /// Anchor on body B (or the world), body frame (m).
    pub local_anchor_b: Vec3,
    /// Unit axis `u1` fixed in A.
    pub local_axis_a: Vec3,
    /// Unit axis `u2` fixed in B, perpendicular to `u1` when the joint holds.
    pub local_axis_b: Vec3,
    /// Unit vector of A normal to `u1` where angle 0 is zero (`u2` at creation).
    pub local_reference_a: Vec3,
    /// Unit vector of B normal to `u2` where angle 1 is zero (`u1` at creation).
    pub local_reference_b: Vec3,
    /// Limit and motor of axis 0 (about `u1`) and axis 1 (about `u2`).
    pub controls: [AxisControl; 2],
}

impl UniversalJoint {
    /// A universal joint at the world point `anchor` with `axis_a` fixed in A and `axis_b`
    /// fixed in B (world directions; `axis_b` is made perpendicular to `axis_a` by removing
    /// its component along it, so they must not be parallel), for bodies at `pose_a` and
    /// `pose_b` ([`Pose::IDENTITY`] for the static world). Both angles are zero now.
    pub fn at_world_point(
        anchor: Vec3,
        axis_a: Vec3,
        axis_b: Vec3,
        pose_a: &Pose,
        pose_b: &Pose,
    ) -> Result<Self, WorldError> {
        check_finite(&[anchor], "anchor")?;
        let u1 = unit_direction(axis_a, "universal axis of A")?;
        let u2 = unit_direction(axis_b, "universal axis of B")?;
        let normal = u2 - u1 * u1.dot(u2);
        if normal.length() < 1e-6 {
            return Err(JointError::Parallel {
                what: "universal axis of A",
                other: "universal axis of B",
            }
            .into());
        }
        let u2 = normal.normalize();
        Ok(Self {
            local_anchor_a: pose_a.inverse_transform_point(anchor),
            local_anchor_b: pose_b.inverse_transform_point(anchor),
            local_axis_a: pose_a.inverse_rotate(u1),
            local_axis_b: pose_b.inverse_rotate(u2),
            local_reference_a: pose_a.inverse_rotate(u2),
            local_reference_b: pose_b.inverse_rotate(u1),
            controls: [AxisControl::default(); 2],
        })
    }

    /// The same joint with `control` on axis `index` (0 or 1; others are ignored).
    pub fn with_control(mut self, index: usize, control: AxisControl) -> Self {
        if let Some(slot) = self.controls.get_mut(index) {
            *slot = control;
        }
        self
    }

    /// The two world axes `(u1, u2)` for bodies at `pose_a` and `pose_b`.
    pub fn axes(&self, pose_a: &Pose, pose_b: &Pose) -> (Vec3, Vec3) {
        (
            pose_a.rotate(self.local_axis_a),
            pose_b.rotate(self.local_axis_b),
        )
    }

    /// Angle 0 and angle 1 (rad, in `(-pi, pi]`) for bodies at `pose_a` and `pose_b`.
    pub fn angles(&self, pose_a: &Pose, pose_b: &Pose) -> [f64; 2] {
        let (u1, u2) = self.axes(pose_a, pose_b);
        let reference_a = pose_a.rotate(self.local_reference_a);
        let reference_b = pose_b.rotate(self.local_reference_b);
        [
            u1.dot(u2.cross(reference_a)).atan2(u2.dot(reference_a)),
            u2.dot(reference_b.cross(u1)).atan2(reference_b.dot(u1)),
        ]
    }
}

impl JointRows for UniversalJoint {
    fn write_rows(&self, writer: &mut RowWriter) {
        let anchor_a = writer.pose_a().transform_point(self.local_anchor_a);
        let anchor_b = writer.pose_b().transform_point(self.local_anchor_b);
        let (u1, u2) = self.axes(writer.pose_a(), writer.pose_b());
        parts::point_to_point(writer, anchor_a, anchor_b);
        parts::perpendicular_axes(writer, u1, u2);
        crate::joint::write_axis_rows(self, writer);
    }

    fn row_count(&self) -> usize {
        4 + self.controls[0].row_count() + self.controls[1].row_count()
    }

    fn local_anchors(&self) -> Option<(Vec3, Vec3)> {
        Some((self.local_anchor_a, self.local_anchor_b))
    }

    fn validate(&self) -> Result<(), WorldError> {
        check_finite(&[self.local_anchor_a, self.local_anchor_b], "anchor")?;
        check_axis_frames(
            &[
                AxisFrame {
                    axis: self.local_axis_a,
                    axis_name: "universal axis",
                    reference: self.local_reference_a,
                    reference_name: "universal reference vector",
                },
                AxisFrame {
                    axis: self.local_axis_b,
                    axis_name: "universal axis",
                    reference: self.local_reference_b,
                    reference_name: "universal reference vector",
                },
            ],
            "universal reference vector",
            "universal axis",
        )?;
        for control in &self.controls {
            control.validate()?;
        }
        Ok(())
    }

    fn axis_count(&self) -> usize {
        2
    }

    fn axis(&self, index: usize, pose_a: &Pose, pose_b: &Pose) -> Option<JointAxis> {
        let (u1, u2) = self.axes(pose_a, pose_b);
        let direction = [u1, u2].get(index).copied()?;
        Some(JointAxis {
            position: self.angles(pose_a, pose_b)[index],
            jacobian: parts::angular_jacobian(direction),
            periodic: true,
        })
    }

    fn control(&self, index: usize) -> Option<&AxisControl> {
        self.controls.get(index)
    }

    fn control_mut(&mut self, index: usize) -> Option<&mut AxisControl> {
        self.controls.get_mut(index)
    }
}
