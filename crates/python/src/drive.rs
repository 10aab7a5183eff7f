//! Joint friction, viscous damping and servos (the engine's `AxisDynamics` and `JointServo`,
//! docs/dynamics.md#joint-friction-damping-and-servos) as Python arguments and dicts. The
//! `World` methods that use them are in `world.rs` (`set_servo`, `clear_servo`,
//! `set_servo_targets`, `set_joint_dynamics`, `joint_dynamics`).

use numpy::{AllowTypeChange, PyArrayLikeDyn};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use stiction::{AxisDynamics, JointServo, WorldError};

use crate::convert::matrix_data;
use crate::errors::WorldError as PyWorldError;

/// An `axis=` argument: an axis number (`>= 0`; the joint checks that it has the axis).
pub fn axis_index(axis: i64) -> PyResult<usize> {
    usize::try_from(axis).map_err(|_| {
        PyWorldError::new_err(format!(
            "axis {axis} does not exist: axes are numbered from 0"
        ))
    })
}

/// The servo `set_servo`'s arguments describe, checked by the engine: gains finite, `>= 0`
/// and not both zero, targets finite, `max_force >= 0` (`None`: no limit).
pub fn servo_of(
    target: f64,
    stiffness: f64,
    damping: f64,
    max_force: Option<f64>,
    target_velocity: f64,
) -> Result<JointServo, WorldError> {
    JointServo::position(target, stiffness, damping)?
        .with_target_velocity(target_velocity)?
        .with_max_force(max_force.unwrap_or(f64::INFINITY))
}

/// `servo` as the dict `joint_dynamics` returns, keyed by `set_servo`'s argument names (so
/// `world.set_servo(j, **servo)` sets it again); `max_force` is `None` without a limit.
pub fn servo_dict<'py>(py: Python<'py>, servo: &JointServo) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("target", servo.target_position)?;
    dict.set_item("stiffness", servo.stiffness)?;
    dict.set_item("damping", servo.damping)?;
    let limit = servo.max_force.is_finite().then_some(servo.max_force);
    dict.set_item("max_force", limit)?;
    dict.set_item("target_velocity", servo.target_velocity)?;
    Ok(dict)
}

/// `{"friction": T, "damping": c, "servo": dict or None}` for one axis.
pub fn dynamics_dict<'py>(
    py: Python<'py>,
    dynamics: &AxisDynamics,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("friction", dynamics.friction)?;
    dict.set_item("damping", dynamics.damping)?;
    match &dynamics.servo {
        Some(servo) => dict.set_item("servo", servo_dict(py, servo)?)?,
        None => dict.set_item("servo", py.None())?,
    }
    Ok(dict)
}

/// The `n` numbers of a 1-D array argument (a numpy array or any sequence of numbers): a
/// `TypeError` for what numpy cannot read as float64, a `WorldError` for another shape.
pub fn vector_of(obj: &Bound<'_, PyAny>, what: &str, n: usize) -> PyResult<Vec<f64>> {
    let array: PyArrayLikeDyn<'_, f64, AllowTypeChange> = obj
        .extract()
        .map_err(|e| PyTypeError::new_err(format!("{what} must be numbers: {e}")))?;
    let (_, data) = matrix_data(&array, what, &[Some(n)], |message| {
        PyWorldError::new_err(message)
    })?;
    Ok(data)
}
