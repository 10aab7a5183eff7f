//! Mass properties as files give them, made acceptable to the engine.
//!
//! Robot descriptions often carry inertia tensors that no body of non-negative density has:
//! placeholder links with zero or round-off negative moments, CAD exports whose principal
//! moments break the triangle inequality `I1 + I2 >= I3`. Other simulators accept them
//! (and some then misbehave); the engine refuses them. The importer adds the smallest
//! isotropic inertia `delta E` that makes the tensor valid, which raises every principal
//! moment by `delta` and keeps the principal axes, and says so in a warning with the size
//! of the change: a clearly negative moment (off-diagonal terms larger than the diagonal,
//! as some files hold) is a wrong tensor, repaired so that the model loads, as PyBullet
//! loads it, but the warning is worth reading.

use stiction::math::{Mat3, Vec3};
use stiction::MassProperties;

use crate::error::{Location, ModelError, WarningKind};
use crate::xml::Source;

/// The smallest principal moment kept, relative to the largest: below it the body's
/// rotation about that axis is so cheap that the solver sees a near-singular mass matrix.
const RELATIVE_FLOOR: f64 = 1e-6;

/// A moment floor for point masses (all moments zero): that of the mass spread over 1 mm.
const POINT_MASS_RADIUS: f64 = 1e-3;

/// `mass`, `center` and `inertia` (about the centre, link axes) as mass properties,
/// repaired with a warning at `at` when the tensor is invalid.
pub(crate) fn mass_properties(
    src: &mut Source,
    at: &Location,
    mass: f64,
    center: Vec3,
    inertia: Mat3,
) -> Result<MassProperties, ModelError> {
    let physics = |e: stiction::MassPropertiesError| ModelError::Physics {
        at: at.clone(),
        message: format!("inertial of mass {mass} kg: {e}"),
    };
    let first_error = match MassProperties::new(mass, center, inertia) {
        Ok(properties) => return Ok(properties),
        Err(e) => e,
    };
    // Only the tensor is repaired: a bad mass or centre is an error in the file.
    let symmetric = (inertia + inertia.transpose()) * 0.5;
    if !mass.is_finite() || mass <= 0.0 || !center.is_finite() || !symmetric.is_finite() {
        return Err(physics(first_error));
    }
    let [i1, i2, i3] = stiction::math::principal_moments(symmetric);
    let point = mass * POINT_MASS_RADIUS * POINT_MASS_RADIUS;
    let floor = (RELATIVE_FLOOR * i3.abs()).max(point);
    // Adding delta E raises each moment by delta: I1 + I2 >= I3 needs delta >= I3 - I1 - I2,
    // positive definiteness with margin needs delta >= floor - I1.
    let delta = (i3 - i1 - i2).max(floor - i1).max(0.0) * (1.0 + 1e-9);
    let repaired = symmetric + Mat3::from_diagonal(Vec3::splat(delta));
    let properties = MassProperties::new(mass, center, repaired).map_err(physics)?;
    src.warn(
        at.clone(),
        WarningKind::Repaired,
        format!(
            "inertial of mass {mass} kg: {first_error}; added {delta:.3e} kg m^2 to every principal moment"
        ),
    );
    Ok(properties)
}
