//! Hinge-2 joint (ODE's car-wheel joint): a wheel (body A) turns about a steering axis fixed
//! in the chassis (body B, or the static world), spins freely about its own axle, and rides
//! on a suspension along the steering axis.
//!
//! Anchors `p_a` (on the wheel, usually its centre) and `p_b` (on the chassis), unit
//! steering axis `u1` fixed in B, unit axle `u2` fixed in A, `(p, q)` a basis normal to
//! `u1`, and `v_B(p_a)` the velocity of the chassis's material point at `p_a`:
//!
//! ```text
//! C     = ( p . (p_a - p_b),  q . (p_a - p_b),     point-on-line part (2 rows)
//!           u1 . (p_a - p_b),                      suspension (1 row, soft)
//!           u2 . u1 )                              perpendicular-axes part (1 row)
//! dC/dt = ( e . (v_pa - v_B(p_a)) for e = p, q, u1,  (u2 x u1) . (w_a - w_b) )
//! J     = [ e, r_a x e, -e, -((p_a - x_b) x e) ]   e = p, q, u1
//!         [ 0, u2 x u1, 0, -(u2 x u1) ]
//! ```
//!
//! The suspension row is a spring of stiffness `k` and damping `c`, given to the solver as
//! `erp = h k / (h k + c)`, `cfm = 1 / (h k + c)` (docs/dynamics.md#softness-erp-cfm-and-springs), and never
//! post-stabilised; without a spring it is rigid. ODE's `dJointCreateHinge2` (Smith, ODE
//! manual "Hinge-2", where body 1 is the chassis), in this engine's sign convention with
//! the wheel as body A.
//!
//! With the perpendicular row holding, `w_a - w_b = a u1 + b u2` exactly as in the universal
//! joint, so the free rates are `u1 . (w_a - w_b)` and `u2 . (w_a - w_b)`:
//!
//! - axis 0 ([`Hinge2Joint::STEERING`]): the steering angle, from the chassis's reference
//!   vector (the axle at creation) to the axle, about `u1`;
//! - axis 1 ([`Hinge2Joint::WHEEL`]): the wheel angle, from `u1` to the wheel's reference
//!   vector (`u1` at creation), about `u2`.
//!
//! Both can have a motor (steering servo, drive) and a limit (steering lock).

use crate::error::{JointError, WorldError};
use crate::joint::axis::{AxisControl, JointAxis};
use crate::joint::{check_axis_frames, check_finite, unit_direction, AxisFrame, JointRows};
use crate::math::Vec3;
use crate::rows::{parts, Pose, Row, RowWriter, Softness};

/// A suspension spring: stiffness (N/m) and damping (N s/m), finite, `>= 0`, not both zero.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Suspension {
    /// Stiffness `k`, N/m. The wheel sags by `m g / k` under a load `m g`.
    pub stiffness: f64,
    /// Damping `c`, N s/m.
    pub damping: f64,
}

impl Suspension {
    /// The ERP and CFM of this spring over a step `h` (s).
    pub fn softness(&self, h: f64) -> Result<Softness, WorldError> {
        Softness::from_spring(self.stiffness, self.damping, h)
    }

    fn validate(&self) -> Result<(), JointError> {
        let ok = |v: f64| v.is_finite() && v >= 0.0;
        if ok(self.stiffness) && ok(self.damping) && self.stiffness + self.damping > 0.0 {
            Ok(())
        } else {
            Err(JointError::InvalidSpring {
                stiffness: self.stiffness,
                damping: self.damping,
            })
        }
    }
}

/// A hinge-2 joint, described in each body's frame (for the static world, world
/// coordinates). Body A is the wheel, body B the chassis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hinge2Joint {
    /// Anchor on the wheel, body frame (m).
    pub local_anchor_a: Vec3,
    /// Anchor on the chassis, body frame (m).
    pub local_anchor_b: Vec3,
    /// Unit steering (and suspension) axis `u1`, fixed in the chassis.
    pub local_steering_axis_b: Vec3,
    /// Unit wheel axle `u2`, fixed in the wheel.
    pub local_wheel_axis_a: Vec3,
    /// Unit vector of the chassis normal to `u1` where the steering angle is zero.
    pub local_steering_reference_b: Vec3,
    /// Unit vector of the wheel normal to `u2` where the wheel angle is zero.
    pub local_wheel_reference_a: Vec3,
    /// The suspension spring; `None` (default) makes the suspension rigid.
    pub suspension: Option<Suspension>,
    /// Limit and motor of the steering angle (axis 0).
    pub steering: AxisControl,
    /// Limit and motor of the wheel angle (axis 1).
    pub wheel: AxisControl,
}

impl Hinge2Joint {
    /// Index of the steering axis.
    pub const STEERING: usize = 0;
    /// Index of the wheel axis.
    pub const WHEEL: usize = 1;

    /// A hinge-2 at the world point `anchor` with the world `steering_axis` (fixed in the
    /// chassis) and `wheel_axis` (fixed in the wheel, made perpendicular to the steering axis
    /// by removing its component along it, so they must not be parallel), for the wheel at
    /// `pose_a` and the chassis at `pose_b` ([`Pose::IDENTITY`] for the static world). Angles
    /// and suspension travel are zero now; the suspension is rigid.
    pub fn at_world_point(
        anchor: Vec3,
        steering_axis: Vec3,
        wheel_axis: Vec3,
        pose_a: &Pose,
        pose_b: &Pose,
    ) -> Result<Self, WorldError> {
        check_finite(&[anchor], "anchor")?;
        let u1 = unit_direction(steering_axis, "steering axis")?;
        let u2 = unit_direction(wheel_axis, "wheel axis")?;
        let normal = u2 - u1 * u1.dot(u2);
        if normal.length() < 1e-6 {
            return Err(JointError::Parallel {
                what: "steering axis",
                other: "wheel axis",
            }
            .into());
        }
        let u2 = normal.normalize();
        Ok(Self {
            local_anchor_a: pose_a.inverse_transform_point(anchor),
            local_anchor_b: pose_b.inverse_transform_point(anchor),
            local_steering_axis_b: pose_b.inverse_rotate(u1),
            local_wheel_axis_a: pose_a.inverse_rotate(u2),
            local_steering_reference_b: pose_b.inverse_rotate(u2),
            local_wheel_reference_a: pose_a.inverse_rotate(u1),
            suspension: None,
            steering: AxisControl::default(),
            wheel: AxisControl::default(),
        })
    }

    /// The same joint with a suspension spring of `stiffness` (N/m) and `damping` (N s/m).
    pub fn with_suspension(mut self, stiffness: f64, damping: f64) -> Result<Self, WorldError> {
        let suspension = Suspension { stiffness, damping };
        suspension.validate()?;
        self.suspension = Some(suspension);
        Ok(self)
    }

    /// The world steering axis `u1` and wheel axle `u2` for bodies at `pose_a`, `pose_b`.
    pub fn axes(&self, pose_a: &Pose, pose_b: &Pose) -> (Vec3, Vec3) {
        (
            pose_b.rotate(self.local_steering_axis_b),
            pose_a.rotate(self.local_wheel_axis_a),
        )
    }

    /// The steering angle (rad, in `(-pi, pi]`): how far the wheel has turned about the
    /// steering axis relative to the chassis.
    pub fn steering_angle(&self, pose_a: &Pose, pose_b: &Pose) -> f64 {
        let (u1, u2) = self.axes(pose_a, pose_b);
        let reference = pose_b.rotate(self.local_steering_reference_b);
        u1.dot(reference.cross(u2)).atan2(reference.dot(u2))
    }

    /// The wheel angle (rad, in `(-pi, pi]`): how far the wheel has spun about its axle
    /// relative to the chassis.
    pub fn wheel_angle(&self, pose_a: &Pose, pose_b: &Pose) -> f64 {
        let (u1, u2) = self.axes(pose_a, pose_b);
        let reference = pose_a.rotate(self.local_wheel_reference_a);
        u2.dot(u1.cross(reference)).atan2(u1.dot(reference))
    }

    /// The suspension travel (m): the wheel anchor's displacement from the chassis anchor
    /// along the steering axis (negative when the wheel is pushed towards `-u1`).
    pub fn suspension_travel(&self, pose_a: &Pose, pose_b: &Pose) -> f64 {
        let anchor_a = pose_a.transform_point(self.local_anchor_a);
        let anchor_b = pose_b.transform_point(self.local_anchor_b);
        pose_b
            .rotate(self.local_steering_axis_b)
            .dot(anchor_a - anchor_b)
    }
}

impl JointRows for Hinge2Joint {
    fn write_rows(&self, writer: &mut RowWriter) {
        let anchor_a = writer.pose_a().transform_point(self.local_anchor_a);
        let anchor_b = writer.pose_b().transform_point(self.local_anchor_b);
        let (u1, u2) = self.axes(writer.pose_a(), writer.pose_b());
        parts::point_on_line(writer, anchor_a, anchor_b, u1);
        let jacobian = parts::line_jacobian(writer.pose_a(), writer.pose_b(), u1, anchor_a);
        let row = Row::equality(jacobian, u1.dot(anchor_a - anchor_b));
        let row = match (self.suspension, writer.motion()) {
            (None, _) => row,
            (Some(spring), Some(motion)) => {
                let softness = spring.softness(motion.h).unwrap_or(writer.softness());
                row.softness(softness).unstabilized()
            }
            (Some(_), None) => row.unstabilized(),
        };
        writer.push(row);
        parts::perpendicular_axes(writer, u2, u1);
        crate::joint::write_axis_rows(self, writer);
    }

    fn row_count(&self) -> usize {
        4 + self.steering.row_count() + self.wheel.row_count()
    }

    fn validate(&self) -> Result<(), WorldError> {
        check_finite(&[self.local_anchor_a, self.local_anchor_b], "anchor")?;
        check_axis_frames(
            &[
                AxisFrame {
                    axis: self.local_steering_axis_b,
                    axis_name: "steering axis",
                    reference: self.local_steering_reference_b,
                    reference_name: "steering reference vector",
                },
                AxisFrame {
                    axis: self.local_wheel_axis_a,
                    axis_name: "wheel axis",
                    reference: self.local_wheel_reference_a,
                    reference_name: "wheel reference vector",
                },
            ],
            "hinge-2 reference vector",
            "its axis",
        )?;
        if let Some(suspension) = &self.suspension {
            suspension.validate()?;
        }
        self.steering.validate()?;
        self.wheel.validate()?;
        Ok(())
    }

    fn anchor_a(&self) -> Vec3 {
        self.local_anchor_a
    }

    fn axis_count(&self) -> usize {
        2
    }

    fn axis(&self, index: usize, pose_a: &Pose, pose_b: &Pose) -> Option<JointAxis> {
        let (u1, u2) = self.axes(pose_a, pose_b);
        let (direction, position) = match index {
            Self::STEERING => (u1, self.steering_angle(pose_a, pose_b)),
            Self::WHEEL => (u2, self.wheel_angle(pose_a, pose_b)),
            _ => return None,
        };
        Some(JointAxis {
            position,
            jacobian: parts::angular_jacobian(direction),
            periodic: true,
        })
    }

    fn control(&self, index: usize) -> Option<&AxisControl> {
        match index {
            Self::STEERING => Some(&self.steering),
            Self::WHEEL => Some(&self.wheel),
            _ => None,
        }
    }

    fn control_mut(&mut self, index: usize) -> Option<&mut AxisControl> {
        match index {
            Self::STEERING => Some(&mut self.steering),
            Self::WHEEL => Some(&mut self.wheel),
            _ => None,
        }
    }
}
