//! Slider (prismatic) joint: A keeps its orientation relative to B and a point of A stays on
//! a line fixed in B; sliding along the line is free.
//!
//! Anchor `p_a` on A (by default its centre of mass), line through `o_b` along the unit
//! axis `u`, both fixed in B; `(p, q)` a basis normal to `u`; `r` the rest orientation of A
//! in B's frame, `e = q_a (q_b r)^-1`:
//!
//! ```text
//! C     = ( 2 vec(e),  p . (p_a - o_b),  q . (p_a - o_b) )            5 rows
//! dC/dt = ( w_a - w_b,  p . (v_pa - v_B(p_a)),  q . (v_pa - v_B(p_a)) )
//! J     = [ 0, E, 0, -E ]                                 fixed-orientation part
//!         [ e, r_a x e, -e, -((p_a - x_b) x e) ]  e = p, q   point-on-line part
//! ```
//!
//! (`v_B(p_a)` the velocity of B's material point at `p_a`; both hold exactly where
//! `C = 0`). The free coordinate is the slider position `s = u . (p_a - o_b)` (m, A along
//! `+u` relative to B), with the exact rate `J = [u, r_a x u, -u, -((p_a - x_b) x u)]`:
//! one axis (index 0) for a limit (m) and a motor (m/s, N). ODE's `dJointCreateSlider`
//! (Smith, ODE manual "Slider"), in this engine's sign convention.

use crate::error::WorldError;
use crate::joint::axis::{AxisControl, JointAxis};
use crate::joint::{check_finite, check_unit, unit_direction, JointRows};
use crate::math::{Quat, Vec3};
use crate::rows::{parts, Pose, RowWriter};

/// A slider joint, described in each body's frame (for the static world, world
/// coordinates).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SliderJoint {
    /// The point of A kept on the line, body frame of A (m).
    pub local_anchor_a: Vec3,
    /// The point of the line where the slider position is zero, body frame of B (m).
    pub local_origin_b: Vec3,
    /// Unit direction of the line, body frame of B.
    pub local_axis_b: Vec3,
    /// A's orientation in B's frame that the joint keeps (unit quaternion).
    pub rest_orientation: Quat,
    /// Limit (m) and motor (m/s, N) on the slider position.
    pub control: AxisControl,
}

impl SliderJoint {
    /// A slider along the world direction `axis` (normalised here) for bodies at `pose_a`
    /// and `pose_b` ([`Pose::IDENTITY`] for the static world): A's centre of mass slides on
    /// the line through its current position, which is position zero; the current relative
    /// orientation is kept.
    pub fn along_world_axis(axis: Vec3, pose_a: &Pose, pose_b: &Pose) -> Result<Self, WorldError> {
        let axis = unit_direction(axis, "slider axis")?;
        Ok(Self {
            local_anchor_a: Vec3::ZERO,
            local_origin_b: pose_b.inverse_transform_point(pose_a.position),
            local_axis_b: pose_b.inverse_rotate(axis),
            rest_orientation: (pose_b.orientation.inverse() * pose_a.orientation).normalize(),
            control: AxisControl::default(),
        })
    }

    /// The same slider with `control` (a limit and/or a motor) on its position.
    pub fn with_control(mut self, control: AxisControl) -> Self {
        self.control = control;
        self
    }

    /// The slider position (m) for bodies at `pose_a` and `pose_b`.
    pub fn position(&self, pose_a: &Pose, pose_b: &Pose) -> f64 {
        let anchor = pose_a.transform_point(self.local_anchor_a);
        let origin = pose_b.transform_point(self.local_origin_b);
        pose_b.rotate(self.local_axis_b).dot(anchor - origin)
    }
}

impl JointRows for SliderJoint {
    fn write_rows(&self, writer: &mut RowWriter) {
        let anchor = writer.pose_a().transform_point(self.local_anchor_a);
        let origin = writer.pose_b().transform_point(self.local_origin_b);
        let axis = writer.pose_b().rotate(self.local_axis_b);
        parts::fixed_orientation(writer, self.rest_orientation);
        parts::point_on_line(writer, anchor, origin, axis);
        crate::joint::write_axis_rows(self, writer);
    }

    fn row_count(&self) -> usize {
        5 + self.control.row_count()
    }

    fn validate(&self) -> Result<(), WorldError> {
        check_finite(&[self.local_anchor_a, self.local_origin_b], "anchor")?;
        check_unit(self.local_axis_b, "slider axis")?;
        crate::joint::check_rotation(self.rest_orientation)?;
        self.control.validate()?;
        Ok(())
    }

    fn anchor_a(&self) -> Vec3 {
        self.local_anchor_a
    }

    fn axis_count(&self) -> usize {
        1
    }

    fn axis(&self, index: usize, pose_a: &Pose, pose_b: &Pose) -> Option<JointAxis> {
        (index == 0).then(|| {
            let anchor = pose_a.transform_point(self.local_anchor_a);
            let axis = pose_b.rotate(self.local_axis_b);
            JointAxis {
                position: self.position(pose_a, pose_b),
                jacobian: parts::line_jacobian(pose_a, pose_b, axis, anchor),
                periodic: false,
            }
        })
    }

    fn control(&self, index: usize) -> Option<&AxisControl> {
        (index == 0).then_some(&self.control)
    }

    fn control_mut(&mut self, index: usize) -> Option<&mut AxisControl> {
        (index == 0).then_some(&mut self.control)
    }
}
