//! Sensors and contact events of the last step (docs/events.md) as numpy arrays: the sensor
//! overlaps that began or ended, each sensor's current overlaps, the collider pairs that
//! started or stopped touching, and every touching pair's impulses.
//!
//! Everything is in Python indices: colliders in the order added, bodies by their row in
//! the state arrays, -1 for the static world. The `World` methods are in `world.rs`.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::prelude::*;
use stiction::EventKind;

use crate::convert::{array1, array2};
use crate::errors::world_error;
use crate::query::Indices;
use crate::world::PyWorld;

/// +1 for a pair that began, -1 for one that ended.
fn sign(kind: EventKind) -> i64 {
    match kind {
        EventKind::Started => 1,
        EventKind::Stopped => -1,
    }
}

/// A `(rows, cols)` int64 array from row-major `data`.
fn int_array2(py: Python<'_>, rows: usize, cols: usize, data: Vec<i64>) -> Py<PyArray2<i64>> {
    Array2::from_shape_vec((rows, cols), data)
        .unwrap_or_else(|_| Array2::zeros((0, cols)))
        .into_pyarray(py)
        .unbind()
}

/// Sensor overlaps that began or ended in the last step (`World.sensor_events()`), one row
/// each, sorted by sensor and then collider.
#[pyclass(module = "stiction._stiction", name = "SensorEvents", frozen, get_all)]
pub struct PySensorEvents {
    /// +1: the overlap began; -1: it ended. (K,) int64.
    pub kinds: Py<PyArray1<i64>>,
    /// The sensor colliders' indices, (K,) int64.
    pub sensors: Py<PyArray1<i64>>,
    /// The indices of the colliders entering or leaving them, (K,) int64.
    pub colliders: Py<PyArray1<i64>>,
    /// (sensor's body, collider's body), (K, 2) int64; -1 for the static world.
    pub bodies: Py<PyArray2<i64>>,
    /// K.
    pub count: usize,
}

#[pymethods]
impl PySensorEvents {
    fn __len__(&self) -> usize {
        self.count
    }

    fn __repr__(&self) -> String {
        format!("SensorEvents({} events)", self.count)
    }
}

/// Collider pairs that started or stopped touching in the last step
/// (`World.contact_events()`), sorted by collider indices.
#[pyclass(module = "stiction._stiction", name = "ContactEvents", frozen, get_all)]
pub struct PyContactEvents {
    /// +1: started touching; -1: stopped. (K,) int64.
    pub kinds: Py<PyArray1<i64>>,
    /// The two colliders' indices (A, B), (K, 2) int64.
    pub colliders: Py<PyArray2<i64>>,
    /// Their bodies' indices, (K, 2) int64; -1 for the static world.
    pub bodies: Py<PyArray2<i64>>,
    /// K.
    pub count: usize,
}

#[pymethods]
impl PyContactEvents {
    fn __len__(&self) -> usize {
        self.count
    }

    fn __repr__(&self) -> String {
        format!("ContactEvents({} events)", self.count)
    }
}

/// Every collider pair touching in the last step with what its contact carried
/// (`World.contact_pairs()`), sorted by collider indices.
#[pyclass(module = "stiction._stiction", name = "ContactPairs", frozen, get_all)]
pub struct PyContactPairs {
    /// The two colliders' indices (A, B), (K, 2) int64.
    pub colliders: Py<PyArray2<i64>>,
    /// Their bodies' indices, (K, 2) int64; -1 for the static world.
    pub bodies: Py<PyArray2<i64>>,
    /// Total normal impulse of the step, (K,), N s (>= 0).
    pub normal_impulses: Py<PyArray1<f64>>,
    /// Total friction impulse of the step (sum of magnitudes), (K,), N s (>= 0).
    pub friction_impulses: Py<PyArray1<f64>>,
    /// Net impulse on B (normal and friction, all points), world frame, (K, 3), N s; A
    /// receives the opposite.
    pub impulses: Py<PyArray2<f64>>,
    /// Contact points of each pair in the step, (K,) int64.
    pub point_counts: Py<PyArray1<i64>>,
    /// Whether the pair's bodies all sleep (it keeps touching with zero impulses), (K,).
    pub asleep: Py<PyArray1<bool>>,
    /// K.
    pub count: usize,
}

#[pymethods]
impl PyContactPairs {
    fn __len__(&self) -> usize {
        self.count
    }

    fn __repr__(&self) -> String {
        format!("ContactPairs({} pairs)", self.count)
    }
}

impl PyWorld {
    fn event_indices(&self) -> Indices<'_> {
        Indices {
            colliders: &self.colliders,
            bodies: &self.names.bodies,
        }
    }

    pub(crate) fn read_sensor_events(&self, py: Python<'_>) -> PySensorEvents {
        let events = self.world.sensor_events();
        let ix = self.event_indices();
        let k = events.len();
        let (mut kinds, mut sensors, mut colliders) = (
            Vec::with_capacity(k),
            Vec::with_capacity(k),
            Vec::with_capacity(k),
        );
        let mut bodies = Vec::with_capacity(2 * k);
        for e in events {
            kinds.push(sign(e.kind));
            sensors.push(ix.collider(e.sensor));
            colliders.push(ix.collider(e.other));
            bodies.extend(e.bodies.map(|b| ix.body(b)));
        }
        PySensorEvents {
            kinds: PyArray1::from_vec(py, kinds).unbind(),
            sensors: PyArray1::from_vec(py, sensors).unbind(),
            colliders: PyArray1::from_vec(py, colliders).unbind(),
            bodies: int_array2(py, k, 2, bodies),
            count: k,
        }
    }

    pub(crate) fn read_sensor_overlaps<'py>(
        &self,
        py: Python<'py>,
        collider: i64,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let sensor = self.collider_handle(collider, "collider")?;
        let ix = self.event_indices();
        let overlaps = self.world.sensor_overlaps(sensor).map_err(world_error)?;
        let mut others: Vec<i64> = overlaps.iter().map(|o| ix.collider(o.other)).collect();
        others.sort_unstable();
        Ok(PyArray1::from_vec(py, others))
    }

    pub(crate) fn read_all_sensor_overlaps(&self, py: Python<'_>) -> Py<PyArray2<i64>> {
        let ix = self.event_indices();
        let overlaps = self.world.all_sensor_overlaps();
        let mut rows: Vec<[i64; 2]> = overlaps
            .iter()
            .map(|o| [ix.collider(o.sensor), ix.collider(o.other)])
            .collect();
        rows.sort_unstable();
        int_array2(py, rows.len(), 2, rows.concat())
    }

    pub(crate) fn read_contact_events(&self, py: Python<'_>) -> PyContactEvents {
        let events = self.world.contact_events();
        let ix = self.event_indices();
        let k = events.len();
        let mut kinds = Vec::with_capacity(k);
        let (mut colliders, mut bodies) = (Vec::with_capacity(2 * k), Vec::with_capacity(2 * k));
        for e in events {
            kinds.push(sign(e.kind));
            colliders.extend(e.colliders.map(|c| ix.collider(c)));
            bodies.extend(e.bodies.map(|b| ix.body(b)));
        }
        PyContactEvents {
            kinds: PyArray1::from_vec(py, kinds).unbind(),
            colliders: int_array2(py, k, 2, colliders),
            bodies: int_array2(py, k, 2, bodies),
            count: k,
        }
    }

    pub(crate) fn read_contact_pairs(&self, py: Python<'_>) -> PyContactPairs {
        let pairs = self.world.contact_pairs();
        let ix = self.event_indices();
        let k = pairs.len();
        let (mut colliders, mut bodies) = (Vec::with_capacity(2 * k), Vec::with_capacity(2 * k));
        let (mut normal, mut friction) = (Vec::with_capacity(k), Vec::with_capacity(k));
        let mut impulses = Vec::with_capacity(3 * k);
        let (mut points, mut asleep) = (Vec::with_capacity(k), Vec::with_capacity(k));
        for p in pairs {
            colliders.extend(p.colliders.map(|c| ix.collider(c)));
            bodies.extend(p.bodies.map(|b| ix.body(b)));
            normal.push(p.normal_impulse);
            friction.push(p.friction_impulse);
            impulses.extend_from_slice(&p.impulse.to_array());
            points.push(p.points as i64);
            asleep.push(p.asleep);
        }
        PyContactPairs {
            colliders: int_array2(py, k, 2, colliders),
            bodies: int_array2(py, k, 2, bodies),
            normal_impulses: array1(py, normal).unbind(),
            friction_impulses: array1(py, friction).unbind(),
            impulses: array2(py, k, 3, impulses).unbind(),
            point_counts: PyArray1::from_vec(py, points).unbind(),
            asleep: PyArray1::from_vec(py, asleep).unbind(),
            count: k,
        }
    }
}
