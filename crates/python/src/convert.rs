//! Python values to engine types and back: 3-vectors, quaternions (w, x, y, z), (N, k)
//! arrays. Shape errors name the argument and say what was expected; numbers are checked by
//! the engine, which words its own rules.

use numpy::ndarray::Array2;
use numpy::{
    AllowTypeChange, IntoPyArray, PyArray1, PyArray2, PyArrayLikeDyn, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use stiction::math::{Quat, Vec3};

/// How a helper reports a value of the wrong shape: the exception class of the caller's
/// kind of operation (a world operation, an LCP problem, ...).
pub type ErrFn = fn(String) -> PyErr;

/// `k` numbers from a Python sequence or array (any numeric dtype).
pub fn numbers<const K: usize>(
    obj: &Bound<'_, PyAny>,
    what: &str,
    err: ErrFn,
) -> PyResult<[f64; K]> {
    let v: Vec<f64> = obj.extract().map_err(|_| {
        let kind = obj
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "?".into());
        PyTypeError::new_err(format!(
            "{what} must be a sequence of {K} numbers, got {kind}"
        ))
    })?;
    <[f64; K]>::try_from(v.as_slice())
        .map_err(|_| err(format!("{what} must have {K} components, got {}", v.len())))
}

/// A 3-vector.
pub fn vec3(obj: &Bound<'_, PyAny>, what: &str, err: ErrFn) -> PyResult<Vec3> {
    numbers::<3>(obj, what, err).map(Vec3::from_array)
}

/// A rotation given as a quaternion `(w, x, y, z)` (the scene files' order).
pub fn quat(obj: &Bound<'_, PyAny>, what: &str, err: ErrFn) -> PyResult<Quat> {
    let [w, x, y, z] = numbers::<4>(obj, what, err)?;
    Ok(Quat::from_xyzw(x, y, z, w))
}

/// `q` as `[w, x, y, z]`.
pub fn wxyz(q: Quat) -> [f64; 4] {
    [q.w, q.x, q.y, q.z]
}

/// A `(rows, cols)` float64 numpy array from row-major `data`.
pub fn array2<'py>(
    py: Python<'py>,
    rows: usize,
    cols: usize,
    data: Vec<f64>,
) -> Bound<'py, PyArray2<f64>> {
    debug_assert_eq!(data.len(), rows * cols);
    match Array2::from_shape_vec((rows, cols), data) {
        Ok(a) => a.into_pyarray(py),
        // Unreachable (every caller passes rows * cols numbers); an empty array is a safe
        // answer should it ever be reached.
        Err(_) => Array2::<f64>::zeros((0, cols)).into_pyarray(py),
    }
}

/// A 1-D float64 numpy array.
pub fn array1<'py>(py: Python<'py>, data: Vec<f64>) -> Bound<'py, PyArray1<f64>> {
    PyArray1::from_vec(py, data)
}

/// The row-major numbers of an array-like argument that must have exactly `shape`
/// (`None` entries: any length), with its actual shape for messages.
pub fn matrix_data(
    array: &PyArrayLikeDyn<'_, f64, AllowTypeChange>,
    what: &str,
    shape: &[Option<usize>],
    err: ErrFn,
) -> PyResult<(Vec<usize>, Vec<f64>)> {
    let actual = array.shape().to_vec();
    let fits = actual.len() == shape.len()
        && actual
            .iter()
            .zip(shape)
            .all(|(&a, s)| s.is_none_or(|s| s == a));
    if !fits {
        let expected: Vec<String> = shape
            .iter()
            .map(|s| s.map_or("N".to_string(), |s| s.to_string()))
            .collect();
        return Err(err(format!(
            "{what} must have shape ({}), got {}",
            expected.join(", "),
            shape_text(&actual)
        )));
    }
    let data: Vec<f64> = array.as_array().iter().copied().collect();
    Ok((actual, data))
}

/// A shape as Python prints it: `(3,)`, `(4, 3)`.
pub fn shape_text(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
