//! Ball-and-socket joint: a point of A and a point of B coincide; all rotation is free.
//!
//! With world anchors `p_a = x_a + R_a s_a`, `p_b = x_b + R_b s_b` (`s` body-frame anchors):
//!
//! ```text
//! C     = p_a - p_b                                  3 rows
//! dC/dt = v_a + w_a x r_a - v_b - w_b x r_b          r = p - x
//! J     = [ E, -[r_a]x, -E, [r_b]x ]                 (the point part, constraint::parts)
//! ```
//!
//! ODE's `dJointCreateBall` (Smith, ODE manual "Ball and Socket"), in this engine's sign
//! convention.

use crate::error::WorldError;
use crate::joint::{check_finite, JointRows};
use crate::math::Vec3;
use crate::rows::{parts, Pose, RowWriter};

/// A ball joint, described by its anchor in each body's frame (m, relative to the centre of
/// mass; for the static world, world coordinates).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallJoint {
    /// Anchor on body A, body frame.
    pub local_anchor_a: Vec3,
    /// Anchor on body B (or the world), body frame.
    pub local_anchor_b: Vec3,
}

impl BallJoint {
    /// The anchors on A and B (body frames), by reference for the point-joint fast path.
    pub(crate) fn anchors(&self) -> (&Vec3, &Vec3) {
        (&self.local_anchor_a, &self.local_anchor_b)
    }

    /// A ball joint from anchors in each body's frame.
    pub fn new(local_anchor_a: Vec3, local_anchor_b: Vec3) -> Self {
        Self {
            local_anchor_a,
            local_anchor_b,
        }
    }

    /// A ball joint at the world point `anchor` for bodies at `pose_a` and `pose_b` (pass
    /// [`Pose::IDENTITY`] for the static world). The anchors then coincide exactly.
    pub fn at_world_point(anchor: Vec3, pose_a: &Pose, pose_b: &Pose) -> Result<Self, WorldError> {
        check_finite(&[anchor], "anchor")?;
        Ok(Self::new(
            pose_a.inverse_transform_point(anchor),
            pose_b.inverse_transform_point(anchor),
        ))
    }
}

impl JointRows for BallJoint {
    fn write_rows(&self, writer: &mut RowWriter) {
        let anchor_a = writer.pose_a().transform_point(self.local_anchor_a);
        let anchor_b = writer.pose_b().transform_point(self.local_anchor_b);
        parts::point_to_point(writer, anchor_a, anchor_b);
    }

    fn row_count(&self) -> usize {
        3
    }

    fn local_anchors(&self) -> Option<(Vec3, Vec3)> {
        Some((self.local_anchor_a, self.local_anchor_b))
    }

    fn validate(&self) -> Result<(), WorldError> {
        Ok(check_finite(
            &[self.local_anchor_a, self.local_anchor_b],
            "anchor",
        )?)
    }
}
