//! Hinge (revolute) joint: a point of A and a point of B coincide, and an axis fixed in A
//! stays parallel to an axis fixed in B; rotation about that axis is free.
//!
//! World anchors `p_a`, `p_b` as for the ball joint; unit world axes `u = R_a a_a`,
//! `v = R_b a_b`; `(p, q)` a basis of the plane normal to `u`:
//!
//! ```text
//! C     = ( p_a - p_b,  p . (v x u),  q . (v x u) )                5 rows
//! dC/dt = ( v_a + w_a x r_a - v_b - w_b x r_b,  p . (w_a - w_b),  q . (w_a - w_b) )
//! J     = [ E, -[r_a]x, -E, [r_b]x ]                               point part
//!         [ 0,  p^T,     0, -p^T   ]                               parallel-axes part
//!         [ 0,  q^T,     0, -q^T   ]
//! ```
//!
//! (the angular rows' `dC/dt` holds to first order in the misalignment, which the solve keeps
//! near zero). ODE's `dJointCreateHinge` (Smith, ODE manual "Hinge"), in this engine's sign
//! convention. The hinge angle is the rotation of A relative to B about the axis, measured
//! between reference vectors normal to the axis, so `d angle/dt = u . (w_a - w_b)`,
//! `J = [0, u, 0, -u]`: the axis a limit or motor row constrains (one axis, index 0, after
//! the 5 rows above; see [`crate::joint::AxisControl`]).

use crate::error::WorldError;
use crate::joint::axis::{AxisControl, JointAxis};
use crate::joint::{check_axis_frames, check_finite, unit_direction, AxisFrame, JointRows};
use crate::math::Vec3;
use crate::rows::{parts, Pose, RowWriter};

/// A hinge joint, described in each body's frame (anchors in m relative to the centre of
/// mass, unit axes and reference vectors; for the static world, world coordinates).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HingeJoint {
    /// Anchor on body A, body frame.
    pub local_anchor_a: Vec3,
    /// Anchor on body B (or the world), body frame.
    pub local_anchor_b: Vec3,
    /// Unit hinge axis fixed in A.
    pub local_axis_a: Vec3,
    /// Unit hinge axis fixed in B.
    pub local_axis_b: Vec3,
    /// Unit vector of A normal to its axis: the hinge angle is measured from B's to it.
    pub local_reference_a: Vec3,
    /// Unit vector of B normal to its axis, where the hinge angle is zero.
    pub local_reference_b: Vec3,
    /// Limit (rad) and motor (rad/s, N m) on the hinge angle.
    pub control: AxisControl,
}

impl HingeJoint {
    /// A hinge through the world point `anchor` about the world direction `axis` (normalised
    /// here) for bodies at `pose_a` and `pose_b` ([`Pose::IDENTITY`] for the static world).
    /// The current configuration is angle zero; no limit, no motor.
    pub fn at_world_axis(
        anchor: Vec3,
        axis: Vec3,
        pose_a: &Pose,
        pose_b: &Pose,
    ) -> Result<Self, WorldError> {
        check_finite(&[anchor], "anchor")?;
        let axis = unit_direction(axis, "hinge axis")?;
        let (reference, _) = parts::plane_basis(axis);
        Ok(Self {
            local_anchor_a: pose_a.inverse_transform_point(anchor),
            local_anchor_b: pose_b.inverse_transform_point(anchor),
            local_axis_a: pose_a.inverse_rotate(axis),
            local_axis_b: pose_b.inverse_rotate(axis),
            local_reference_a: pose_a.inverse_rotate(reference),
            local_reference_b: pose_b.inverse_rotate(reference),
            control: AxisControl::default(),
        })
    }

    /// The same hinge with `control` (a limit and/or a motor) on its angle.
    pub fn with_control(mut self, control: AxisControl) -> Self {
        self.control = control;
        self
    }

    /// The hinge angle (rad, in `(-pi, pi]`): the rotation of A relative to B about the axis
    /// since the joint was made, for bodies at `pose_a` and `pose_b`.
    pub fn angle(&self, pose_a: &Pose, pose_b: &Pose) -> f64 {
        let axis = pose_a.rotate(self.local_axis_a);
        let reference_a = pose_a.rotate(self.local_reference_a);
        let reference_b = pose_b.rotate(self.local_reference_b);
        let sine = axis.dot(reference_b.cross(reference_a));
        let cosine = reference_b.dot(reference_a);
        sine.atan2(cosine)
    }
}

impl JointRows for HingeJoint {
    fn write_rows(&self, writer: &mut RowWriter) {
        let anchor_a = writer.pose_a().transform_point(self.local_anchor_a);
        let anchor_b = writer.pose_b().transform_point(self.local_anchor_b);
        let axis_a = writer.pose_a().rotate(self.local_axis_a);
        let axis_b = writer.pose_b().rotate(self.local_axis_b);
        parts::point_to_point(writer, anchor_a, anchor_b);
        parts::parallel_axes(writer, axis_a, axis_b);
        crate::joint::write_axis_rows(self, writer);
    }

    fn row_count(&self) -> usize {
        5 + self.control.row_count()
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
                    axis_name: "hinge axis",
                    reference: self.local_reference_a,
                    reference_name: "hinge reference vector",
                },
                AxisFrame {
                    axis: self.local_axis_b,
                    axis_name: "hinge axis",
                    reference: self.local_reference_b,
                    reference_name: "hinge reference vector",
                },
            ],
            "hinge reference vector",
            "hinge axis",
        )?;
        self.control.validate()?;
        Ok(())
    }

    fn axis_count(&self) -> usize {
        1
    }

    fn axis(&self, index: usize, pose_a: &Pose, pose_b: &Pose) -> Option<JointAxis> {
        (index == 0).then(|| JointAxis {
            position: self.angle(pose_a, pose_b),
            jacobian: parts::angular_jacobian(pose_a.rotate(self.local_axis_a)),
            periodic: true,
        })
    }

    fn control(&self, index: usize) -> Option<&AxisControl> {
        (index == 0).then_some(&self.control)
    }

    fn control_mut(&mut self, index: usize) -> Option<&mut AxisControl> {
        (index == 0).then_some(&mut self.control)
    }
}
