//! Rigid bodies: kinds, state, mass properties and a validating builder.
//!
//! Conventions (docs/dynamics.md#conventions): a body's frame has its origin at the centre of mass and the
//! axes of the frame its mass properties were described in; `position` is the world position
//! of the centre of mass; linear and angular velocities are in the world frame.

mod activity;
mod builder;
mod mass;
mod modes;
mod shapes;
mod state;
mod validate;

pub(crate) use activity::Activity;
pub use builder::RigidBodyBuilder;
pub use mass::MassProperties;
pub use modes::{GyroscopicMode, OrientationUpdate};
pub use state::{InverseMass, Velocity};

use crate::error::BodyError;
use crate::math::{rotate_tensor, Mat3, Quat, Vec3};

/// How a body takes part in the simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BodyKind {
    /// Moved by forces, gravity and constraints.
    #[default]
    Dynamic,
    /// Moved only by the user, through its velocity; infinite mass, so constraints and
    /// contacts push other bodies but never it. Forces and gravity are ignored.
    Kinematic,
    /// Never moves: velocity zero, infinite mass (ground, walls).
    Static,
}

/// One rigid body: its state, mass properties and integration settings.
///
/// Build one with [`RigidBodyBuilder`]. Setters validate their input, so a body never holds
/// a non-finite state or an impossible inertia.
#[derive(Debug, Clone, PartialEq)]
pub struct RigidBody {
    pub(crate) velocity: Velocity,
    pub(crate) inverse_mass: f64,
    pub(crate) inverse_inertia_body: Mat3,
    pub(crate) position: Vec3,
    pub(crate) orientation: Quat,
    pub(crate) force: Vec3,
    pub(crate) torque: Vec3,
    pub(crate) kind: BodyKind,
    pub(crate) mass_properties: MassProperties,
    pub(crate) gravity_enabled: bool,
    pub(crate) linear_damping: f64,
    pub(crate) angular_damping: f64,
    pub(crate) gyroscopic_mode: GyroscopicMode,
    pub(crate) orientation_update: OrientationUpdate,
    /// Continuous collision ([`Self::ccd_enabled`]).
    pub(crate) ccd: bool,
}

impl RigidBody {
    /// How the body takes part in the simulation.
    pub fn kind(&self) -> BodyKind {
        self.kind
    }

    /// True for [`BodyKind::Dynamic`] bodies.
    pub fn is_dynamic(&self) -> bool {
        self.kind == BodyKind::Dynamic
    }

    /// The mass properties the body was given (kept for kinematic and static bodies too,
    /// though their effective mass is infinite).
    pub fn mass_properties(&self) -> &MassProperties {
        &self.mass_properties
    }

    /// Replaces the mass properties. The position stays the world position of the centre of
    /// mass.
    pub fn set_mass_properties(&mut self, mass_properties: MassProperties) {
        self.mass_properties = mass_properties;
        self.refresh_inverse_mass();
    }

    /// Mass in kg: `f64::INFINITY` for kinematic and static bodies.
    pub fn mass(&self) -> f64 {
        match self.kind {
            BodyKind::Dynamic => self.mass_properties.mass(),
            BodyKind::Kinematic | BodyKind::Static => f64::INFINITY,
        }
    }

    /// `1 / m` in 1/kg: zero for kinematic and static bodies.
    pub fn inverse_mass(&self) -> f64 {
        self.inverse_mass
    }

    /// Inertia about the centre of mass in the body frame, `I0` (kg m^2).
    pub fn inertia_body(&self) -> Mat3 {
        self.mass_properties.inertia()
    }

    /// World-frame inertia `R I0 R^T` at the current orientation (kg m^2).
    pub fn inertia_world(&self) -> Mat3 {
        rotate_tensor(self.orientation, self.mass_properties.inertia())
    }

    /// Body-frame inverse inertia `I0^-1`: zero for kinematic and static bodies.
    pub fn inverse_inertia_body(&self) -> Mat3 {
        self.inverse_inertia_body
    }

    /// World-frame inverse inertia `R I0^-1 R^T`: zero for kinematic and static bodies.
    #[inline(always)]
    pub fn inverse_inertia_world(&self) -> Mat3 {
        rotate_tensor(self.orientation, self.inverse_inertia_body)
    }

    /// Inverse mass and world inverse inertia together, as the solver reads them.
    pub fn inverse_mass_state(&self) -> InverseMass {
        InverseMass {
            linear: self.inverse_mass,
            angular: self.inverse_inertia_world(),
        }
    }

    /// World position of the centre of mass, m.
    pub fn position(&self) -> Vec3 {
        self.position
    }

    /// Places the centre of mass at `position` (m, world frame).
    pub fn set_position(&mut self, position: Vec3) -> Result<(), BodyError> {
        self.position = finite(position, "position")?;
        Ok(())
    }

    /// Orientation: the unit quaternion rotating body-frame vectors into the world frame.
    pub fn orientation(&self) -> Quat {
        self.orientation
    }

    /// Sets the orientation; `orientation` is normalised and must be finite and non-zero.
    pub fn set_orientation(&mut self, orientation: Quat) -> Result<(), BodyError> {
        self.orientation = unit_orientation(orientation)?;
        Ok(())
    }

    /// Linear and angular velocity (world frame).
    pub fn velocity(&self) -> Velocity {
        self.velocity
    }

    /// Velocity of the centre of mass, m/s, world frame.
    pub fn linear_velocity(&self) -> Vec3 {
        self.velocity.linear
    }

    /// Angular velocity, rad/s, world frame.
    pub fn angular_velocity(&self) -> Vec3 {
        self.velocity.angular
    }

    /// Angular velocity in the body frame, `R^T w`, rad/s.
    pub fn angular_velocity_body(&self) -> Vec3 {
        self.orientation.inverse() * self.velocity.angular
    }

    /// Sets the linear velocity (m/s, world frame). Static bodies accept only zero.
    pub fn set_linear_velocity(&mut self, linear: Vec3) -> Result<(), BodyError> {
        self.velocity.linear = self.movable(finite(linear, "linear velocity")?)?;
        Ok(())
    }

    /// Sets the angular velocity (rad/s, world frame). Static bodies accept only zero.
    pub fn set_angular_velocity(&mut self, angular: Vec3) -> Result<(), BodyError> {
        self.velocity.angular = self.movable(finite(angular, "angular velocity")?)?;
        Ok(())
    }

    /// Velocity of the body point at world position `point`: `v + w x (point - x)`.
    pub fn velocity_at_point(&self, point: Vec3) -> Vec3 {
        self.velocity.linear + self.velocity.angular.cross(point - self.position)
    }

    /// Angular momentum about the centre of mass, world frame, `I w` (kg m^2/s).
    pub fn angular_momentum(&self) -> Vec3 {
        self.inertia_world() * self.velocity.angular
    }

    /// Rotational kinetic energy `w . I w / 2` (J).
    pub fn rotational_kinetic_energy(&self) -> f64 {
        0.5 * self.velocity.angular.dot(self.angular_momentum())
    }

    /// Translational kinetic energy `m |v|^2 / 2` (J); zero for kinematic and static bodies.
    pub fn linear_kinetic_energy(&self) -> f64 {
        match self.kind {
            BodyKind::Dynamic => 0.5 * self.mass() * self.velocity.linear.length_squared(),
            BodyKind::Kinematic | BodyKind::Static => 0.0,
        }
    }

    /// Force accumulated since the last step, N, world frame, acting at the centre of mass.
    pub fn force(&self) -> Vec3 {
        self.force
    }

    /// Torque accumulated since the last step, N m, world frame.
    pub fn torque(&self) -> Vec3 {
        self.torque
    }

    /// Adds a force (N, world frame) at the centre of mass for the next step.
    pub fn add_force(&mut self, force: Vec3) -> Result<(), BodyError> {
        self.force += finite(force, "force")?;
        Ok(())
    }

    /// Adds a force (N, world frame) applied at world point `point` (m): the force plus the
    /// torque `(point - x) x force` about the centre of mass.
    pub fn add_force_at_point(&mut self, force: Vec3, point: Vec3) -> Result<(), BodyError> {
        let force = finite(force, "force")?;
        let arm = finite(point, "point of application")? - self.position;
        self.force += force;
        self.torque += arm.cross(force);
        Ok(())
    }

    /// Adds a torque (N m, world frame) for the next step.
    pub fn add_torque(&mut self, torque: Vec3) -> Result<(), BodyError> {
        self.torque += finite(torque, "torque")?;
        Ok(())
    }

    /// Zeroes the force and torque accumulators (the integrator does this after each step).
    pub fn clear_accumulators(&mut self) {
        self.force = Vec3::ZERO;
        self.torque = Vec3::ZERO;
    }

    /// Whether continuous collision is on (default `false`): the broad phase sweeps the
    /// body's colliders along their motion over the step and its contacts are predicted
    /// that far, so a fast body stops at a thin wall instead of passing through it
    /// (speculative contacts: docs/ccd.md says how, and where it can still fail).
    pub fn ccd_enabled(&self) -> bool {
        self.ccd
    }

    /// Turns continuous collision on or off for this body.
    pub fn set_ccd_enabled(&mut self, enabled: bool) {
        self.ccd = enabled;
    }

    /// Whether world gravity acts on this body (default `true`; ignored unless dynamic).
    pub fn gravity_enabled(&self) -> bool {
        self.gravity_enabled
    }

    /// Turns gravity on or off for this body.
    pub fn set_gravity_enabled(&mut self, enabled: bool) {
        self.gravity_enabled = enabled;
    }

    /// Linear damping coefficient `c`, 1/s, default 0. Each step divides the linear velocity
    /// by `1 + h c` (implicit Euler on `v' = -c v`): velocity decays like `exp(-c t)` for
    /// small `h c`, and no value can make it unstable. Raising it makes the body sluggish.
    pub fn linear_damping(&self) -> f64 {
        self.linear_damping
    }

    /// Sets the linear damping (1/s, finite, >= 0).
    pub fn set_linear_damping(&mut self, damping: f64) -> Result<(), BodyError> {
        self.linear_damping = check_damping("linear", damping)?;
        Ok(())
    }

    /// Angular damping coefficient, 1/s, default 0: like [`Self::linear_damping`] for the
    /// angular velocity.
    pub fn angular_damping(&self) -> f64 {
        self.angular_damping
    }

    /// Sets the angular damping (1/s, finite, >= 0).
    pub fn set_angular_damping(&mut self, damping: f64) -> Result<(), BodyError> {
        self.angular_damping = check_damping("angular", damping)?;
        Ok(())
    }

    /// How the gyroscopic term `w x I w` is treated (default [`GyroscopicMode::Implicit`]).
    pub fn gyroscopic_mode(&self) -> GyroscopicMode {
        self.gyroscopic_mode
    }

    /// Chooses the gyroscopic mode.
    pub fn set_gyroscopic_mode(&mut self, mode: GyroscopicMode) {
        self.gyroscopic_mode = mode;
    }

    /// How the orientation is advanced from the angular velocity (default
    /// [`OrientationUpdate::Linear`]); [`GyroscopicMode::Conserving`] bodies use their own
    /// midpoint rule regardless.
    pub fn orientation_update(&self) -> OrientationUpdate {
        self.orientation_update
    }

    /// Chooses the orientation update.
    pub fn set_orientation_update(&mut self, update: OrientationUpdate) {
        self.orientation_update = update;
    }

    pub(crate) fn refresh_inverse_mass(&mut self) {
        match self.kind {
            BodyKind::Dynamic => {
                self.inverse_mass = 1.0 / self.mass_properties.mass();
                // A validated inertia is symmetric positive definite, hence invertible.
                self.inverse_inertia_body = self.mass_properties.inertia().inverse();
            }
            BodyKind::Kinematic | BodyKind::Static => {
                self.inverse_mass = 0.0;
                self.inverse_inertia_body = Mat3::ZERO;
            }
        }
    }

    fn movable(&self, velocity: Vec3) -> Result<Vec3, BodyError> {
        if self.kind == BodyKind::Static && velocity != Vec3::ZERO {
            return Err(BodyError::StaticBodyMotion);
        }
        Ok(velocity)
    }
}

pub(crate) fn finite(value: Vec3, quantity: &'static str) -> Result<Vec3, BodyError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(BodyError::NonFinite { quantity })
    }
}

pub(crate) fn unit_orientation(orientation: Quat) -> Result<Quat, BodyError> {
    let length = orientation.length();
    if orientation.is_finite() && length > 0.0 && length.is_finite() {
        Ok(orientation / length)
    } else {
        Err(BodyError::InvalidOrientation)
    }
}

pub(crate) fn check_damping(which: &'static str, value: f64) -> Result<f64, BodyError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(BodyError::InvalidDamping { which, value })
    }
}
