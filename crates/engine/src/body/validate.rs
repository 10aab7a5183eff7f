//! The rules a set of mass properties must satisfy, checked in a fixed order so that the
//! error names the first rule that fails.

use crate::error::MassPropertiesError;
use crate::math::{principal_moments, Mat3, Vec3};

/// Off-diagonal pairs may differ by this fraction of the largest entry (round-off from
/// rotating or summing tensors) and still count as symmetric.
pub const SYMMETRY_TOLERANCE: f64 = 1e-9;

/// The triangle inequality `I1 + I2 >= I3` may fail by this fraction of the trace: exactly
/// flat bodies (plates, discs) sit on the boundary and round-off must not reject them.
pub const TRIANGLE_TOLERANCE: f64 = 1e-9;

/// Checks a mass.
pub fn check_mass(mass: f64) -> Result<(), MassPropertiesError> {
    if mass.is_finite() && mass > 0.0 {
        Ok(())
    } else {
        Err(MassPropertiesError::InvalidMass { mass })
    }
}

/// Checks a density.
pub fn check_density(density: f64) -> Result<(), MassPropertiesError> {
    if density.is_finite() && density > 0.0 {
        Ok(())
    } else {
        Err(MassPropertiesError::InvalidDensity { density })
    }
}

/// Checks one shape dimension.
pub fn check_dimension(name: &'static str, value: f64) -> Result<(), MassPropertiesError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(MassPropertiesError::InvalidDimension { name, value })
    }
}

/// Checks a centre of mass.
pub fn check_center(center: Vec3) -> Result<(), MassPropertiesError> {
    if center.is_finite() {
        Ok(())
    } else {
        Err(MassPropertiesError::NonFiniteCenter {
            center: center.to_array(),
        })
    }
}

/// Checks an inertia tensor (finite, symmetric, positive definite, triangle inequality) and
/// returns its exactly symmetric part, which is what the engine stores.
pub fn check_inertia(inertia: Mat3) -> Result<Mat3, MassPropertiesError> {
    if !inertia.is_finite() {
        return Err(MassPropertiesError::NonFiniteInertia);
    }
    check_symmetry(inertia)?;
    let symmetric = (inertia + inertia.transpose()) * 0.5;
    let moments = principal_moments(symmetric);
    if moments[0] <= 0.0 {
        return Err(MassPropertiesError::InertiaNotPositiveDefinite {
            smallest: moments[0],
        });
    }
    let trace = moments.iter().sum::<f64>();
    if moments[0] + moments[1] < moments[2] - TRIANGLE_TOLERANCE * trace {
        return Err(MassPropertiesError::TriangleInequality { moments });
    }
    Ok(symmetric)
}

fn check_symmetry(inertia: Mat3) -> Result<(), MassPropertiesError> {
    let m = inertia.to_cols_array_2d();
    let scale = crate::math::max_abs_entry(inertia);
    let mut worst = (0, 0, 0.0);
    for (col, row) in [(0, 1), (0, 2), (1, 2)] {
        let difference = (m[col][row] - m[row][col]).abs();
        if difference > worst.2 {
            worst = (row, col, difference);
        }
    }
    if worst.2 > SYMMETRY_TOLERANCE * scale {
        return Err(MassPropertiesError::InertiaNotSymmetric {
            row: worst.0,
            col: worst.1,
            difference: worst.2,
        });
    }
    Ok(())
}
