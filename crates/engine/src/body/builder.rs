//! A builder that describes a body and validates the whole description at once.

use crate::body::GyroscopicMode;
use crate::body::OrientationUpdate;
use crate::body::{
    check_damping, finite, unit_orientation, BodyKind, MassProperties, RigidBody, Velocity,
};
use crate::error::BodyError;
use crate::math::{Mat3, Quat, Vec3};

/// Which frame an initial angular velocity was given in.
#[derive(Debug, Clone, Copy, PartialEq)]
enum AngularVelocity {
    World(Vec3),
    Body(Vec3),
}

/// Describes a [`RigidBody`]; [`Self::build`] validates every field.
///
/// Defaults: at the origin, identity orientation, at rest, gravity on, no damping,
/// [`GyroscopicMode::Implicit`], [`OrientationUpdate::Linear`], and for mass properties a
/// 1 kg solid ball of radius 0.5 m (inertia 0.1 kg m^2 about every axis).
#[derive(Debug, Clone, PartialEq)]
pub struct RigidBodyBuilder {
    kind: BodyKind,
    mass_properties: Option<MassProperties>,
    position: Vec3,
    orientation: Quat,
    linear_velocity: Vec3,
    angular_velocity: AngularVelocity,
    gravity_enabled: bool,
    ccd: bool,
    linear_damping: f64,
    angular_damping: f64,
    gyroscopic_mode: GyroscopicMode,
    orientation_update: OrientationUpdate,
}

impl RigidBodyBuilder {
    /// A builder for a body of the given kind, with the defaults above.
    pub fn new(kind: BodyKind) -> Self {
        Self {
            kind,
            mass_properties: None,
            position: Vec3::ZERO,
            orientation: Quat::IDENTITY,
            linear_velocity: Vec3::ZERO,
            angular_velocity: AngularVelocity::World(Vec3::ZERO),
            gravity_enabled: true,
            ccd: false,
            linear_damping: 0.0,
            angular_damping: 0.0,
            gyroscopic_mode: GyroscopicMode::default(),
            orientation_update: OrientationUpdate::default(),
        }
    }

    /// A [`BodyKind::Dynamic`] body.
    pub fn dynamic() -> Self {
        Self::new(BodyKind::Dynamic)
    }

    /// A [`BodyKind::Kinematic`] body.
    pub fn kinematic() -> Self {
        Self::new(BodyKind::Kinematic)
    }

    /// A [`BodyKind::Static`] body.
    pub fn static_body() -> Self {
        Self::new(BodyKind::Static)
    }

    /// Mass properties (see [`MassProperties`]); `position` then places their centre of mass.
    pub fn mass_properties(mut self, mass_properties: MassProperties) -> Self {
        self.mass_properties = Some(mass_properties);
        self
    }

    /// World position of the centre of mass, m.
    pub fn position(mut self, position: Vec3) -> Self {
        self.position = position;
        self
    }

    /// Orientation (normalised at build; must be finite and non-zero).
    pub fn orientation(mut self, orientation: Quat) -> Self {
        self.orientation = orientation;
        self
    }

    /// Linear velocity, m/s, world frame.
    pub fn linear_velocity(mut self, velocity: Vec3) -> Self {
        self.linear_velocity = velocity;
        self
    }

    /// Angular velocity, rad/s, world frame.
    pub fn angular_velocity(mut self, velocity: Vec3) -> Self {
        self.angular_velocity = AngularVelocity::World(velocity);
        self
    }

    /// Angular velocity, rad/s, in the body frame (rotated into the world frame by the
    /// orientation at build time, whichever order the calls came in).
    pub fn angular_velocity_body(mut self, velocity: Vec3) -> Self {
        self.angular_velocity = AngularVelocity::Body(velocity);
        self
    }

    /// Continuous collision for a fast body (see [`RigidBody::ccd_enabled`]).
    pub fn ccd(mut self, enabled: bool) -> Self {
        self.ccd = enabled;
        self
    }

    /// Whether gravity acts on the body.
    pub fn gravity(mut self, enabled: bool) -> Self {
        self.gravity_enabled = enabled;
        self
    }

    /// Linear damping, 1/s (see [`RigidBody::linear_damping`]).
    pub fn linear_damping(mut self, damping: f64) -> Self {
        self.linear_damping = damping;
        self
    }

    /// Angular damping, 1/s (see [`RigidBody::angular_damping`]).
    pub fn angular_damping(mut self, damping: f64) -> Self {
        self.angular_damping = damping;
        self
    }

    /// Gyroscopic mode (see [`GyroscopicMode`]).
    pub fn gyroscopic_mode(mut self, mode: GyroscopicMode) -> Self {
        self.gyroscopic_mode = mode;
        self
    }

    /// Orientation update rule (see [`OrientationUpdate`]).
    pub fn orientation_update(mut self, update: OrientationUpdate) -> Self {
        self.orientation_update = update;
        self
    }

    /// Validates the description and builds the body.
    pub fn build(self) -> Result<RigidBody, BodyError> {
        let mass_properties = match self.mass_properties {
            Some(mass_properties) => mass_properties,
            None => MassProperties::sphere_with_mass(0.5, 1.0)?,
        };
        let orientation = unit_orientation(self.orientation)?;
        let angular = match self.angular_velocity {
            AngularVelocity::World(w) => finite(w, "angular velocity")?,
            AngularVelocity::Body(w) => orientation * finite(w, "angular velocity")?,
        };
        let mut body = RigidBody {
            velocity: Velocity::default(),
            inverse_mass: 0.0,
            inverse_inertia_body: Mat3::ZERO,
            position: finite(self.position, "position")?,
            orientation,
            force: Vec3::ZERO,
            torque: Vec3::ZERO,
            kind: self.kind,
            mass_properties,
            gravity_enabled: self.gravity_enabled,
            linear_damping: check_damping("linear", self.linear_damping)?,
            angular_damping: check_damping("angular", self.angular_damping)?,
            gyroscopic_mode: self.gyroscopic_mode,
            orientation_update: self.orientation_update,
            ccd: self.ccd,
        };
        body.refresh_inverse_mass();
        body.set_linear_velocity(self.linear_velocity)?;
        body.set_angular_velocity(angular)?;
        Ok(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::MassPropertiesError;

    fn box_mass() -> MassProperties {
        MassProperties::cuboid(Vec3::new(0.5, 0.2, 0.1), 1000.0).unwrap()
    }

    #[test]
    fn body_frame_angular_velocity_is_rotated_by_the_orientation() {
        let q = Quat::from_rotation_z(std::f64::consts::FRAC_PI_2);
        let body = RigidBodyBuilder::dynamic()
            .angular_velocity_body(Vec3::X)
            .orientation(q * 2.0)
            .build()
            .unwrap();
        assert!((body.angular_velocity() - Vec3::Y).length() < 1e-15);
        assert!((body.angular_velocity_body() - Vec3::X).length() < 1e-15);
        assert!((body.orientation().length() - 1.0).abs() < 1e-15);
    }

    #[test]
    fn world_inverse_inertia_inverts_the_world_inertia() {
        let body = RigidBodyBuilder::dynamic()
            .mass_properties(box_mass())
            .orientation(Quat::from_axis_angle(
                Vec3::new(1.0, 1.0, 0.0).normalize(),
                0.8,
            ))
            .build()
            .unwrap();
        let product = body.inverse_inertia_world() * body.inertia_world();
        assert!(product.abs_diff_eq(Mat3::IDENTITY, 1e-14));
        assert!((body.inverse_mass() * 80.0 - 1.0).abs() < 1e-15);
        assert_eq!(
            body.inverse_mass_state().angular,
            body.inverse_inertia_world()
        );
    }

    #[test]
    fn kinematic_and_static_bodies_have_infinite_mass() {
        for builder in [
            RigidBodyBuilder::kinematic(),
            RigidBodyBuilder::static_body(),
        ] {
            let body = builder.mass_properties(box_mass()).build().unwrap();
            assert_eq!(
                body.inverse_mass_state(),
                crate::body::InverseMass::INFINITE_MASS
            );
            assert_eq!(body.mass(), f64::INFINITY);
        }
    }

    #[test]
    fn invalid_descriptions_name_what_is_wrong() {
        let nan = Vec3::new(f64::NAN, 0.0, 0.0);
        let cases = [
            (
                RigidBodyBuilder::dynamic().position(nan),
                BodyError::NonFinite {
                    quantity: "position",
                },
            ),
            (
                RigidBodyBuilder::dynamic().angular_velocity_body(nan),
                BodyError::NonFinite {
                    quantity: "angular velocity",
                },
            ),
            (
                RigidBodyBuilder::dynamic().orientation(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
                BodyError::InvalidOrientation,
            ),
            (
                RigidBodyBuilder::dynamic().angular_damping(-1.0),
                BodyError::InvalidDamping {
                    which: "angular",
                    value: -1.0,
                },
            ),
            (
                RigidBodyBuilder::static_body().linear_velocity(Vec3::X),
                BodyError::StaticBodyMotion,
            ),
        ];
        for (builder, expected) in cases {
            assert_eq!(builder.build(), Err(expected));
        }
        let mut body = RigidBodyBuilder::dynamic().build().unwrap();
        assert_eq!(
            body.add_torque(nan),
            Err(BodyError::NonFinite { quantity: "torque" })
        );
        assert_eq!(body.torque(), Vec3::ZERO);
        let error: BodyError = MassPropertiesError::InvalidMass { mass: 0.0 }.into();
        assert!(error.to_string().contains("mass must be finite and > 0"));
    }
}
