//! Mass properties of a rigid body: mass, centre of mass and inertia about the centre of mass.
//!
//! A [`MassProperties`] value is valid by construction (see [`MassProperties::new`] for the
//! rules), and every operation on it returns a validated value, so a body built from one
//! never carries a tensor that no real body has.

use crate::body::validate;
use crate::error::MassPropertiesError;
use crate::math::{outer, rotate_tensor, Mat3, Quat, Vec3};

/// Mass, centre of mass and inertia tensor of a rigid body, described in one reference frame
/// (the "body frame": the frame its shapes are described in).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassProperties {
    mass: f64,
    center: Vec3,
    inertia: Mat3,
}

impl MassProperties {
    /// Validates and builds mass properties.
    ///
    /// - `mass` in kg, finite and > 0;
    /// - `center`: the centre of mass in the body frame (m), finite;
    /// - `inertia`: the inertia tensor about the centre of mass, axes of the body frame
    ///   (kg m^2); finite, symmetric (to a relative 1e-9), positive definite, and its principal
    ///   moments satisfy the triangle inequality `I1 + I2 >= I3` (to a relative 1e-9 of the
    ///   trace), which every body of non-negative density does.
    ///
    /// The rules are checked in that order and the error names the first that fails. The
    /// stored tensor is the exactly symmetric part of `inertia`.
    pub fn new(mass: f64, center: Vec3, inertia: Mat3) -> Result<Self, MassPropertiesError> {
        validate::check_mass(mass)?;
        validate::check_center(center)?;
        let inertia = validate::check_inertia(inertia)?;
        Ok(Self {
            mass,
            center,
            inertia,
        })
    }

    /// Mass properties with the centre of mass at the body-frame origin and a diagonal inertia
    /// `diag(principal_moments)` (kg m^2).
    pub fn from_principal(mass: f64, principal_moments: Vec3) -> Result<Self, MassPropertiesError> {
        Self::new(mass, Vec3::ZERO, Mat3::from_diagonal(principal_moments))
    }

    /// Mass in kg.
    pub fn mass(&self) -> f64 {
        self.mass
    }

    /// Centre of mass in the body frame, m.
    pub fn center(&self) -> Vec3 {
        self.center
    }

    /// Inertia tensor about the centre of mass, body-frame axes, kg m^2 (exactly symmetric).
    pub fn inertia(&self) -> Mat3 {
        self.inertia
    }

    /// [`Self::inertia`] by reference (the stepper reads it for every body every step).
    pub(crate) fn inertia_ref(&self) -> &Mat3 {
        &self.inertia
    }

    /// Principal moments of inertia (eigenvalues of [`Self::inertia`]) in ascending order.
    pub fn principal_moments(&self) -> [f64; 3] {
        crate::math::principal_moments(self.inertia)
    }

    /// Inertia about an arbitrary `point` of the body frame (parallel-axis theorem):
    /// `I_p = I_com + m (|r|^2 E - r r^T)` with `r = center - point`.
    pub fn inertia_about(&self, point: Vec3) -> Mat3 {
        self.inertia + point_mass_inertia(self.mass, self.center - point)
    }

    /// The same body moved by `offset` (m) in the body frame: the centre of mass moves, the
    /// inertia about it does not. Use [`Self::inertia_about`] for the tensor about a fixed point.
    pub fn translated(&self, offset: Vec3) -> Result<Self, MassPropertiesError> {
        if !offset.is_finite() {
            return Err(MassPropertiesError::InvalidTransform);
        }
        Self::new(self.mass, self.center + offset, self.inertia)
    }

    /// The same body rotated by `rotation` about the body-frame origin: the centre becomes
    /// `R c` and the inertia `R I R^T`. `rotation` is normalised first; it must be finite and
    /// non-zero.
    pub fn rotated(&self, rotation: Quat) -> Result<Self, MassPropertiesError> {
        let length = rotation.length();
        if !rotation.is_finite() || length == 0.0 {
            return Err(MassPropertiesError::InvalidTransform);
        }
        let unit = rotation / length;
        Self::new(
            self.mass,
            unit * self.center,
            rotate_tensor(unit, self.inertia),
        )
    }

    /// The two bodies rigidly joined: masses add, the centre of mass is the mass-weighted mean,
    /// and each inertia is carried to the new centre by the parallel-axis theorem.
    ///
    /// Both inputs are valid, so only overflow can make this fail.
    pub fn combined(&self, other: &Self) -> Result<Self, MassPropertiesError> {
        let mass = self.mass + other.mass;
        let center = (self.center * self.mass + other.center * other.mass) / mass;
        let inertia = self.inertia_about(center) + other.inertia_about(center);
        Self::new(mass, center, inertia)
    }
}

/// Inertia of a point mass `mass` at offset `r` about the origin: `m (|r|^2 E - r r^T)`.
fn point_mass_inertia(mass: f64, r: Vec3) -> Mat3 {
    (Mat3::from_diagonal(Vec3::splat(r.length_squared())) - outer(r, r)) * mass
}
