//! Mass properties of uniform-density primitive shapes, centred on the body-frame origin.
//!
//! Each shape comes in two forms: from a density (kg/m^3) and from a total mass (kg). Axial
//! shapes (capsule, cylinder) have their axis along body z, like `parry3d`'s `Capsule::new_z`
//! (parry's `Cylinder` is along y: rotate the result by [`MassProperties::rotated`] to match).

use std::f64::consts::PI;

use crate::body::mass::MassProperties;
use crate::body::validate::{check_density, check_dimension, check_mass};
use crate::error::MassPropertiesError;
use crate::math::Vec3;

/// Volume (m^3) and principal moments per unit mass (m^2) of a shape; the moments of a
/// uniform body are its mass times these.
#[derive(Clone, Copy)]
struct UnitShape {
    volume: f64,
    moments_per_mass: Vec3,
}

impl UnitShape {
    fn with_density(self, density: f64) -> Result<MassProperties, MassPropertiesError> {
        check_density(density)?;
        self.with_mass(density * self.volume)
    }

    fn with_mass(self, mass: f64) -> Result<MassProperties, MassPropertiesError> {
        check_mass(mass)?;
        MassProperties::from_principal(mass, self.moments_per_mass * mass)
    }
}

fn cuboid_shape(half_extents: Vec3) -> Result<UnitShape, MassPropertiesError> {
    check_dimension("half_extents.x", half_extents.x)?;
    check_dimension("half_extents.y", half_extents.y)?;
    check_dimension("half_extents.z", half_extents.z)?;
    // With full edges a = 2x etc., I_xx = m/12 (b^2 + c^2) = m/3 (y^2 + z^2).
    let sq = half_extents * half_extents;
    Ok(UnitShape {
        volume: 8.0 * half_extents.x * half_extents.y * half_extents.z,
        moments_per_mass: Vec3::new(sq.y + sq.z, sq.x + sq.z, sq.x + sq.y) / 3.0,
    })
}

fn sphere_shape(radius: f64) -> Result<UnitShape, MassPropertiesError> {
    check_dimension("radius", radius)?;
    Ok(UnitShape {
        volume: 4.0 / 3.0 * PI * radius.powi(3),
        moments_per_mass: Vec3::splat(0.4 * radius * radius),
    })
}

fn cylinder_shape(half_height: f64, radius: f64) -> Result<UnitShape, MassPropertiesError> {
    check_dimension("half_height", half_height)?;
    check_dimension("radius", radius)?;
    let r2 = radius * radius;
    // I_axis = m r^2 / 2, I_perp = m (3 r^2 + H^2) / 12 with H = 2 half_height.
    let perpendicular = (3.0 * r2 + 4.0 * half_height * half_height) / 12.0;
    Ok(UnitShape {
        volume: PI * r2 * 2.0 * half_height,
        moments_per_mass: Vec3::new(perpendicular, perpendicular, 0.5 * r2),
    })
}

fn capsule_shape(half_height: f64, radius: f64) -> Result<UnitShape, MassPropertiesError> {
    check_dimension("half_height", half_height)?;
    check_dimension("radius", radius)?;
    let (r, a) = (radius, half_height);
    let cylinder_volume = PI * r * r * 2.0 * a;
    let caps_volume = 4.0 / 3.0 * PI * r.powi(3);
    let volume = cylinder_volume + caps_volume;
    // Fractions of the total mass in the cylinder and in the two hemispherical caps.
    let (fc, fs) = (cylinder_volume / volume, caps_volume / volume);
    let axial = fc * 0.5 * r * r + fs * 0.4 * r * r;
    // Each cap: (2/5) m r^2 about its flat face's diameter, carried from its own centre
    // (3r/8 from the face) to the capsule centre (a + 3r/8 away); both caps together give
    // m_s (2r^2/5 + a^2 + 3ar/4).
    let perpendicular =
        fc * (3.0 * r * r + 4.0 * a * a) / 12.0 + fs * (0.4 * r * r + a * a + 0.75 * a * r);
    Ok(UnitShape {
        volume,
        moments_per_mass: Vec3::new(perpendicular, perpendicular, axial),
    })
}

impl MassProperties {
    /// A solid box with the given half extents (m) and density (kg/m^3).
    pub fn cuboid(half_extents: Vec3, density: f64) -> Result<Self, MassPropertiesError> {
        cuboid_shape(half_extents)?.with_density(density)
    }

    /// A solid box with the given half extents (m) and total mass (kg).
    pub fn cuboid_with_mass(half_extents: Vec3, mass: f64) -> Result<Self, MassPropertiesError> {
        cuboid_shape(half_extents)?.with_mass(mass)
    }

    /// A solid sphere of `radius` (m) and density (kg/m^3).
    pub fn sphere(radius: f64, density: f64) -> Result<Self, MassPropertiesError> {
        sphere_shape(radius)?.with_density(density)
    }

    /// A solid sphere of `radius` (m) and total mass (kg).
    pub fn sphere_with_mass(radius: f64, mass: f64) -> Result<Self, MassPropertiesError> {
        sphere_shape(radius)?.with_mass(mass)
    }

    /// A solid cylinder along body z: `half_height` (m, half the length of the axis),
    /// `radius` (m) and density (kg/m^3).
    pub fn cylinder(
        half_height: f64,
        radius: f64,
        density: f64,
    ) -> Result<Self, MassPropertiesError> {
        cylinder_shape(half_height, radius)?.with_density(density)
    }

    /// A solid cylinder along body z with a total mass (kg).
    pub fn cylinder_with_mass(
        half_height: f64,
        radius: f64,
        mass: f64,
    ) -> Result<Self, MassPropertiesError> {
        cylinder_shape(half_height, radius)?.with_mass(mass)
    }

    /// A solid capsule along body z: a cylinder of `half_height` (m, half the distance between
    /// the centres of the two hemispherical caps, as in parry's `Capsule::new_z`) and `radius`
    /// (m) capped by two hemispheres of the same radius; density in kg/m^3.
    pub fn capsule(
        half_height: f64,
        radius: f64,
        density: f64,
    ) -> Result<Self, MassPropertiesError> {
        capsule_shape(half_height, radius)?.with_density(density)
    }

    /// A solid capsule along body z with a total mass (kg); see [`Self::capsule`].
    pub fn capsule_with_mass(
        half_height: f64,
        radius: f64,
        mass: f64,
    ) -> Result<Self, MassPropertiesError> {
        capsule_shape(half_height, radius)?.with_mass(mass)
    }
}
