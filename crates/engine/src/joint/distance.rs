//! Distance joint: a point of A and a point of B stay `d` apart (a massless rod), or, with a
//! range, between `min` and `max` apart (a rope is the range `(-inf, max]`).
//!
//! World anchors `p_a`, `p_b` (each moving with its body), `n = (p_a - p_b) / |p_a - p_b|`:
//!
//! ```text
//! C     = |p_a - p_b| - d                                          1 row
//! dC/dt = n . (v_a + w_a x r_a - v_b - w_b x r_b)
//! J     = [ n, r_a x n, -n, -(r_b x n) ]
//! ```
//!
//! The free coordinate (axis 0) is the distance `|p_a - p_b|` itself: with a range
//! ([`DistanceJoint::with_range`]) the rigid row is replaced by the limit part on it, a
//! one-sided row that acts only at (or about to reach) a stop, with its own ERP, CFM and
//! bounce. ODE has no such joint; this is Box2D's distance joint (Catto) in 3D, in this
//! engine's sign convention. Where the anchors coincide `n` is undefined; the row then uses
//! the world x axis, which a rod of length `d > 0` never needs for long.

use crate::error::{JointError, WorldError};
use crate::joint::axis::{AxisControl, JointAxis, JointLimit};
use crate::joint::{check_finite, JointRows};
use crate::math::Vec3;
use crate::rows::{parts, Pose, Row, RowWriter};

/// A distance joint, described by its anchor in each body's frame (m; for the static world,
/// world coordinates).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DistanceJoint {
    /// Anchor on body A, body frame.
    pub local_anchor_a: Vec3,
    /// Anchor on body B (or the world), body frame.
    pub local_anchor_b: Vec3,
    /// The distance a rigid joint keeps (m, finite, `> 0`); unused with a range.
    pub distance: f64,
    /// A range limit on the distance replaces the rigid row (no motor).
    pub control: AxisControl,
}

impl DistanceJoint {
    /// A rod between the world points `anchor_a` (on A) and `anchor_b` (on B) keeping their
    /// current distance (which must be `> 0`), for bodies at `pose_a` and `pose_b`
    /// ([`Pose::IDENTITY`] for the static world).
    pub fn between_world_points(
        anchor_a: Vec3,
        anchor_b: Vec3,
        pose_a: &Pose,
        pose_b: &Pose,
    ) -> Result<Self, WorldError> {
        check_finite(&[anchor_a, anchor_b], "anchor")?;
        let joint = Self {
            local_anchor_a: pose_a.inverse_transform_point(anchor_a),
            local_anchor_b: pose_b.inverse_transform_point(anchor_b),
            distance: (anchor_a - anchor_b).length(),
            control: AxisControl::default(),
        };
        joint.validate()?;
        Ok(joint)
    }

    /// The same joint keeping the distance within `[min, max]` (m) instead of fixed: slack
    /// in between, a one-sided stop at each end (either may be infinite).
    pub fn with_range(mut self, min: f64, max: f64) -> Result<Self, WorldError> {
        self.control.limit = Some(JointLimit::new(min, max)?);
        Ok(self)
    }

    /// The same joint as a rope of length `length` (m): slack when shorter, taut at
    /// `length`, the range `(-inf, length]`.
    pub fn rope(self, length: f64) -> Result<Self, WorldError> {
        if !(length.is_finite() && length > 0.0) {
            return Err(JointError::InvalidLength {
                what: "rope length",
                value: length,
            }
            .into());
        }
        self.with_range(f64::NEG_INFINITY, length)
    }

    /// The same joint with this limit's stops, softness and bounce on the distance.
    pub fn with_limit(mut self, limit: JointLimit) -> Self {
        self.control.limit = Some(limit);
        self
    }

    /// The anchors' distance (m) for bodies at `pose_a` and `pose_b`.
    pub fn current_distance(&self, pose_a: &Pose, pose_b: &Pose) -> f64 {
        (pose_a.transform_point(self.local_anchor_a) - pose_b.transform_point(self.local_anchor_b))
            .length()
    }
}

impl JointRows for DistanceJoint {
    fn write_rows(&self, writer: &mut RowWriter) {
        let Some(axis) = self.axis(0, writer.pose_a(), writer.pose_b()) else {
            return;
        };
        match &self.control.limit {
            None => {
                writer.push(Row::equality(axis.jacobian, axis.position - self.distance));
            }
            // The stop is the only row between the bodies: in the position pass it is always
            // written (its violation is measured one-sided), so that pass's islands do not
            // change with the rope going slack or taut between its Newton iterations.
            Some(limit) if writer.is_positional() => {
                let row = parts::stop_row(axis.jacobian, axis.position, limit.lower, limit.upper);
                writer.push(row);
            }
            Some(_) => crate::joint::write_axis_rows(self, writer),
        }
    }

    fn row_count(&self) -> usize {
        usize::from(self.control.limit.is_none()) + self.control.row_count()
    }

    fn validate(&self) -> Result<(), WorldError> {
        check_finite(&[self.local_anchor_a, self.local_anchor_b], "anchor")?;
        if self.control.motor.is_some() {
            return Err(JointError::Unsupported {
                joint: "distance",
                feature: "motor",
            }
            .into());
        }
        if self.control.limit.is_none() && !(self.distance.is_finite() && self.distance > 0.0) {
            return Err(JointError::InvalidLength {
                what: "distance",
                value: self.distance,
            }
            .into());
        }
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
        if index != 0 {
            return None;
        }
        let anchor_a = pose_a.transform_point(self.local_anchor_a);
        let anchor_b = pose_b.transform_point(self.local_anchor_b);
        let gap = anchor_a - anchor_b;
        let length = gap.length();
        let direction = if length > 1e-12 {
            gap / length
        } else {
            Vec3::X
        };
        Some(JointAxis {
            position: length,
            jacobian: parts::linear_jacobian_at(pose_a, pose_b, direction, anchor_a, anchor_b),
            periodic: false,
        })
    }

    fn control(&self, index: usize) -> Option<&AxisControl> {
        (index == 0).then_some(&self.control)
    }

    fn control_mut(&mut self, index: usize) -> Option<&mut AxisControl> {
        (index == 0).then_some(&mut self.control)
    }
}
