//! The world's convenience constructors for the joint types (besides
//! [`World::add_ball_joint`] and [`World::add_hinge_joint`]) and the joint-axis readout.
//!
//! Each constructor takes world-frame anchors and axes at the bodies' current poses, builds
//! the description with the type's own constructor and adds it with default settings; for
//! limits, motors, softness or breaking thresholds build the description and a
//! [`JointBuilder`] instead:
//!
//! ```
//! use stiction::joint::{AxisControl, JointLimit, JointMotor};
//! use stiction::math::Vec3;
//! use stiction::{HingeJoint, JointBuilder, MassProperties, RigidBodyBuilder, World};
//!
//! let mut world = World::new();
//! let door = world.add_body(
//!     RigidBodyBuilder::dynamic()
//!         .mass_properties(MassProperties::cuboid_with_mass(Vec3::new(0.4, 0.02, 1.0), 20.0).unwrap())
//!         .position(Vec3::new(0.4, 0.0, 1.0))
//!         .build()
//!         .unwrap(),
//! );
//! let pose = world.pose(Some(door)).unwrap();
//! let hinge = HingeJoint::at_world_axis(Vec3::new(0.0, 0.0, 1.0), Vec3::Z, &pose, &stiction::Pose::IDENTITY)
//!     .unwrap()
//!     .with_control(AxisControl {
//!         limit: Some(JointLimit::new(-1.5, 1.5).unwrap()),
//!         motor: Some(JointMotor::new(0.5, 10.0).unwrap()),
//!     });
//! let joint = world.add_joint(JointBuilder::new(door, None, hinge).break_torque(500.0)).unwrap();
//! for _ in 0..120 {
//!     world.step(1.0 / 60.0).unwrap();
//! }
//! let angle = world.joint_axis_state(joint, 0).unwrap();
//! assert!((angle.velocity - 0.5).abs() < 1e-3 && angle.position > 0.9);
//! ```

use crate::error::{JointError, WorldError};
use crate::handles::{BodyHandle, JointHandle};
use crate::joint::{
    DistanceJoint, FixedJoint, Hinge2Joint, JointAxisState, JointBuilder, JointRows, SliderJoint,
    UniversalJoint,
};
use crate::math::Vec3;
use crate::world::World;

impl World {
    /// Adds a slider between `body_a` and `body_b` (`None`: the static world) along the
    /// world direction `axis`: A's centre of mass slides on the line through it, the current
    /// configuration is position zero, the relative orientation is locked.
    pub fn add_slider_joint(
        &mut self,
        body_a: BodyHandle,
        body_b: Option<BodyHandle>,
        axis: Vec3,
    ) -> Result<JointHandle, WorldError> {
        let (pose_a, pose_b) = (self.pose(Some(body_a))?, self.pose(body_b)?);
        let joint = SliderJoint::along_world_axis(axis, &pose_a, &pose_b)?;
        self.add_joint(JointBuilder::new(body_a, body_b, joint))
    }

    /// Welds `body_a` to `body_b` (`None`: the static world) where they are now.
    pub fn add_fixed_joint(
        &mut self,
        body_a: BodyHandle,
        body_b: Option<BodyHandle>,
    ) -> Result<JointHandle, WorldError> {
        let (pose_a, pose_b) = (self.pose(Some(body_a))?, self.pose(body_b)?);
        let joint = FixedJoint::at_current_poses(&pose_a, &pose_b);
        self.add_joint(JointBuilder::new(body_a, body_b, joint))
    }

    /// Adds a universal joint at the world point `anchor` with `axis_a` fixed in A and
    /// `axis_b` fixed in B (see [`UniversalJoint::at_world_point`]).
    pub fn add_universal_joint(
        &mut self,
        body_a: BodyHandle,
        body_b: Option<BodyHandle>,
        anchor: Vec3,
        axis_a: Vec3,
        axis_b: Vec3,
    ) -> Result<JointHandle, WorldError> {
        let (pose_a, pose_b) = (self.pose(Some(body_a))?, self.pose(body_b)?);
        let joint = UniversalJoint::at_world_point(anchor, axis_a, axis_b, &pose_a, &pose_b)?;
        self.add_joint(JointBuilder::new(body_a, body_b, joint))
    }

    /// Adds a hinge-2 between `wheel` and `chassis` (`None`: the static world) at the world
    /// point `anchor` (see [`Hinge2Joint::at_world_point`]); rigid suspension, no motors.
    pub fn add_hinge2_joint(
        &mut self,
        wheel: BodyHandle,
        chassis: Option<BodyHandle>,
        anchor: Vec3,
        steering_axis: Vec3,
        wheel_axis: Vec3,
    ) -> Result<JointHandle, WorldError> {
        let (pose_a, pose_b) = (self.pose(Some(wheel))?, self.pose(chassis)?);
        let joint =
            Hinge2Joint::at_world_point(anchor, steering_axis, wheel_axis, &pose_a, &pose_b)?;
        self.add_joint(JointBuilder::new(wheel, chassis, joint))
    }

    /// Adds a distance joint keeping the world points `anchor_a` (on A) and `anchor_b` (on
    /// B, or the world) at their current distance.
    pub fn add_distance_joint(
        &mut self,
        body_a: BodyHandle,
        body_b: Option<BodyHandle>,
        anchor_a: Vec3,
        anchor_b: Vec3,
    ) -> Result<JointHandle, WorldError> {
        let (pose_a, pose_b) = (self.pose(Some(body_a))?, self.pose(body_b)?);
        let joint = DistanceJoint::between_world_points(anchor_a, anchor_b, &pose_a, &pose_b)?;
        self.add_joint(JointBuilder::new(body_a, body_b, joint))
    }

    /// Free coordinate `axis` of a joint (hinge angle, slider position, steering angle,
    /// ...) and its rate, at the bodies' current poses and velocities.
    pub fn joint_axis_state(
        &self,
        joint: JointHandle,
        axis: usize,
    ) -> Result<JointAxisState, WorldError> {
        let j = self.joint(joint)?;
        let (pose_a, pose_b) = (self.pose(Some(j.body_a))?, self.pose(j.body_b)?);
        let count = j.kind.axis_count();
        let state = j
            .kind
            .axis(axis, &pose_a, &pose_b)
            .ok_or(JointError::NoSuchAxis { axis, count })?;
        let a = self.body(j.body_a)?;
        let (v_b, w_b) = match j.body_b {
            Some(b) => {
                let b = self.body(b)?;
                (b.linear_velocity(), b.angular_velocity())
            }
            None => (Vec3::ZERO, Vec3::ZERO),
        };
        let velocity = state
            .jacobian
            .velocity(a.linear_velocity(), a.angular_velocity(), v_b, w_b);
        Ok(JointAxisState {
            position: state.position,
            velocity,
        })
    }
}
