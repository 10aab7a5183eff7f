//! Fixed (weld) joint: A keeps its position and orientation relative to B.
//!
//! World anchors `p_a`, `p_b` (the same body point seen from each body; by default A's
//! centre of mass, which keeps the point rows' lever arms on A zero), `r` the rest
//! orientation of A in B's frame, `e = q_a (q_b r)^-1`:
//!
//! ```text
//! C     = ( p_a - p_b,  2 vec(e) )                                 6 rows
//! dC/dt = ( v_a + w_a x r_a - v_b - w_b x r_b,  w_a - w_b )        (the second at e = 1)
//! J     = [ E, -[r_a]x, -E, [r_b]x ]                               point part
//!         [ 0,  E,       0, -E     ]                               fixed-orientation part
//! ```
//!
//! ODE's `dJointCreateFixed` (Smith, ODE manual "Fixed"), in this engine's sign convention.
//! No free coordinate, so no limit or motor.

use crate::error::WorldError;
use crate::joint::{check_finite, JointRows};
use crate::math::{Quat, Vec3};
use crate::rows::{parts, Pose, RowWriter};

/// A fixed joint, described in each body's frame (for the static world, world
/// coordinates).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedJoint {
    /// The welded point in A's frame (m).
    pub local_anchor_a: Vec3,
    /// The same point in B's frame (m).
    pub local_anchor_b: Vec3,
    /// A's orientation in B's frame that the joint keeps (unit quaternion).
    pub rest_orientation: Quat,
}

impl FixedJoint {
    /// Welds A to B (`pose_b` = [`Pose::IDENTITY`] for the static world) where they are now,
    /// at A's centre of mass.
    pub fn at_current_poses(pose_a: &Pose, pose_b: &Pose) -> Self {
        Self {
            local_anchor_a: Vec3::ZERO,
            local_anchor_b: pose_b.inverse_transform_point(pose_a.position),
            rest_orientation: (pose_b.orientation.inverse() * pose_a.orientation).normalize(),
        }
    }
}

impl FixedJoint {
    /// Welds A to B where they are now, at the world point `anchor` (where the feedback's
    /// anchor torque is taken, and a breaking torque measured: a cantilever's wall).
    pub fn at_world_point(anchor: Vec3, pose_a: &Pose, pose_b: &Pose) -> Result<Self, WorldError> {
        check_finite(&[anchor], "anchor")?;
        Ok(Self {
            local_anchor_a: pose_a.inverse_transform_point(anchor),
            local_anchor_b: pose_b.inverse_transform_point(anchor),
            ..Self::at_current_poses(pose_a, pose_b)
        })
    }
}

impl JointRows for FixedJoint {
    fn write_rows(&self, writer: &mut RowWriter) {
        let anchor_a = writer.pose_a().transform_point(self.local_anchor_a);
        let anchor_b = writer.pose_b().transform_point(self.local_anchor_b);
        parts::point_to_point(writer, anchor_a, anchor_b);
        parts::fixed_orientation(writer, self.rest_orientation);
    }

    fn row_count(&self) -> usize {
        6
    }

    fn local_anchors(&self) -> Option<(Vec3, Vec3)> {
        Some((self.local_anchor_a, self.local_anchor_b))
    }

    fn validate(&self) -> Result<(), WorldError> {
        check_finite(&[self.local_anchor_a, self.local_anchor_b], "anchor")?;
        Ok(crate::joint::check_rotation(self.rest_orientation)?)
    }
}
