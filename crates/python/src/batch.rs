//! `stiction.Batch`: many worlds stepped together on the engine's thread pool
//! (`stiction::WorldBatch`), one call per step for the whole batch, the GIL released.
//!
//! Actions and states are numpy arrays shaped `(N, ...)` over each world's bodies and
//! servo axes in their Python index order (the order `World.positions()` and
//! `World.set_servo` use), so a batch of copies of a world reads like N of that world.

use numpy::ndarray::{Array1, Array3};
use numpy::{AllowTypeChange, IntoPyArray, PyArrayLikeDyn};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use stiction::{BatchActions, BatchLayout, BatchState, WorldBatch, WorldStatus};

use crate::convert::matrix_data;
use crate::errors::{StepError, WorldError as PyWorldError};
use crate::world::PyWorld;

fn batch_error(e: impl std::fmt::Display) -> PyErr {
    PyWorldError::new_err(e.to_string())
}

/// Many worlds stepped together on a thread pool (see the module documentation).
#[pyclass(module = "stiction._stiction", name = "Batch")]
pub struct PyBatch {
    batch: WorldBatch,
    /// Each world's Python view (names, indices, step size) as it started, for `reset`
    /// and `world(i)`.
    starts: Vec<PyWorld>,
    /// The step size `step()` uses when given none (world 0's), s.
    timestep: f64,
    /// The state buffers being filled (moved into numpy arrays when returned).
    state: BatchState,
}

impl PyBatch {
    fn layout_of(world: &PyWorld) -> BatchLayout {
        BatchLayout {
            bodies: world.names.bodies.handles.clone(),
            servo_axes: BatchLayout::servo_axes_of(
                &world.world,
                world.names.joints.handles.iter().copied(),
            ),
        }
    }

    /// The states of all worlds as a dict of numpy arrays.
    fn state_dict<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.batch
            .state_into(&mut self.state)
            .map_err(batch_error)?;
        let n = self.batch.len();
        let bodies = self.batch.layout(0).map_err(batch_error)?.bodies.len();
        let dict = PyDict::new(py);
        // The buffers move into the arrays (numpy owns them); the next call refills new ones.
        let array3 = |data: &mut Vec<f64>, k: usize| {
            Array3::from_shape_vec((n, bodies, k), std::mem::take(data)).map(|a| a.into_pyarray(py))
        };
        let shape_error = |e: numpy::ndarray::ShapeError| batch_error(e);
        dict.set_item(
            "positions",
            array3(&mut self.state.positions, 3).map_err(shape_error)?,
        )?;
        dict.set_item(
            "orientations",
            array3(&mut self.state.orientations, 4).map_err(shape_error)?,
        )?;
        dict.set_item(
            "linear_velocities",
            array3(&mut self.state.linear_velocities, 3).map_err(shape_error)?,
        )?;
        dict.set_item(
            "angular_velocities",
            array3(&mut self.state.angular_velocities, 3).map_err(shape_error)?,
        )?;
        dict.set_item(
            "time",
            Array1::from_vec(std::mem::take(&mut self.state.times)).into_pyarray(py),
        )?;
        dict.set_item(
            "failed",
            Array1::from_vec(std::mem::take(&mut self.state.failed)).into_pyarray(py),
        )?;
        Ok(dict)
    }
}

/// The numbers of an optional `(N, ...)` action array of shape `shape`.
fn action(
    array: Option<&PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
    name: &str,
    shape: &[usize],
) -> PyResult<Option<Vec<f64>>> {
    let Some(array) = array else {
        return Ok(None);
    };
    let shape: Vec<Option<usize>> = shape.iter().map(|&s| Some(s)).collect();
    let (_, data) = matrix_data(array, name, &shape, PyWorldError::new_err)?;
    Ok(Some(data))
}

#[pymethods]
impl PyBatch {
    /// A batch of worlds: `n` copies of `source` (a `World`, or a scene as
    /// `World.from_scene` takes it: a path, a built-in scene's name or scene text), or the
    /// worlds of a list of `World`s (copied; `n` must then be omitted or equal its length).
    /// `threads`: the thread pool's size (0: one per core).
    #[new]
    #[pyo3(signature = (source, n=None, *, threads=0))]
    fn new(
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        n: Option<usize>,
        threads: usize,
    ) -> PyResult<Self> {
        let starts: Vec<PyWorld> = if let Ok(world) = source.extract::<PyRef<'_, PyWorld>>() {
            vec![world.clone(); n.unwrap_or(1)]
        } else if let Ok(list) = source.cast::<PyList>() {
            let worlds = list
                .iter()
                .map(|item| {
                    item.extract::<PyRef<'_, PyWorld>>()
                        .map(|w| w.clone())
                        .map_err(|_| {
                            PyTypeError::new_err(
                                "a list given to Batch must hold only World objects",
                            )
                        })
                })
                .collect::<PyResult<Vec<_>>>()?;
            if n.is_some_and(|n| n != worlds.len()) {
                return Err(PyWorldError::new_err(format!(
                    "n = {} but the list holds {} worlds",
                    n.unwrap_or(0),
                    worlds.len()
                )));
            }
            worlds
        } else if source.extract::<String>().is_ok() || source.hasattr("__fspath__")? {
            let world = py
                .import("stiction._stiction")?
                .getattr("World")?
                .call_method1("from_scene", (source,))?;
            let world = world.extract::<PyRef<'_, PyWorld>>()?.clone();
            vec![world; n.unwrap_or(1)]
        } else {
            return Err(PyTypeError::new_err(
                "Batch takes a World, a list of Worlds, or a scene (path, built-in name or text)",
            ));
        };
        if starts.is_empty() {
            return Err(PyWorldError::new_err("a batch needs at least one world"));
        }
        let timestep = starts[0].timestep();
        let layouts = starts.iter().map(Self::layout_of).collect();
        let worlds = starts.iter().map(|w| w.world.clone()).collect();
        let batch = WorldBatch::with_layouts(worlds, layouts, threads).map_err(batch_error)?;
        Ok(Self {
            batch,
            starts,
            timestep,
            state: BatchState::default(),
        })
    }

    fn __len__(&self) -> usize {
        self.batch.len()
    }

    /// The number of threads the batch steps on.
    #[getter]
    fn threads(&self) -> usize {
        self.batch.threads()
    }

    /// The servo axes of the first world's layout (the columns of `servo_targets`).
    #[getter]
    fn servo_axes(&self) -> PyResult<usize> {
        Ok(self.batch.layout(0).map_err(batch_error)?.servo_axes.len())
    }

    /// The step size `step()` uses when given none (the first world's), s.
    #[getter]
    fn timestep(&self) -> f64 {
        self.timestep
    }

    /// Steps every running world `steps` times by `h` (default: `timestep`) with the GIL
    /// released, after applying the actions: `forces` and `torques` (N, bodies, 3), world
    /// frame, added before every step; `servo_targets` (N, servo axes), set before the
    /// first. Returns the state (see `state()`). A world whose action or step is refused
    /// is held and flagged in `failed`; the others go on. Bad shapes raise `WorldError`
    /// and step nothing.
    #[pyo3(signature = (forces=None, torques=None, servo_targets=None, *, steps=1, h=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        forces: Option<PyArrayLikeDyn<'py, f64, AllowTypeChange>>,
        torques: Option<PyArrayLikeDyn<'py, f64, AllowTypeChange>>,
        servo_targets: Option<PyArrayLikeDyn<'py, f64, AllowTypeChange>>,
        steps: usize,
        h: Option<f64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let n = self.batch.len();
        let bodies = self.batch.layout(0).map_err(batch_error)?.bodies.len();
        let axes = self.batch.layout(0).map_err(batch_error)?.servo_axes.len();
        let forces = action(forces.as_ref(), "forces", &[n, bodies, 3])?;
        let torques = action(torques.as_ref(), "torques", &[n, bodies, 3])?;
        let targets = action(servo_targets.as_ref(), "servo_targets", &[n, axes])?;
        let h = h.unwrap_or(self.timestep);
        let batch = &mut self.batch;
        let result = py.detach(|| {
            let actions = BatchActions {
                forces: forces.as_deref(),
                torques: torques.as_deref(),
                servo_targets: targets.as_deref(),
            };
            batch.step(h, steps, &actions)
        });
        result.map_err(|e| StepError::new_err(e.to_string()))?;
        self.state_dict(py)
    }

    /// The state of every world: a dict of numpy arrays `positions` (N, bodies, 3),
    /// `orientations` (N, bodies, 4; w, x, y, z), `linear_velocities` and
    /// `angular_velocities` (N, bodies, 3), `time` (N,) and `failed` (N,) bool.
    fn state<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.state_dict(py)
    }

    /// The held worlds and why: a list of `(index, message)`.
    fn errors(&self) -> Vec<(usize, String)> {
        (0..self.batch.len())
            .filter_map(|i| match self.batch.status(i) {
                Ok(WorldStatus::Failed { error, time }) => Some((
                    i,
                    format!(
                        "at t = {time} s: {}",
                        self.starts[i].names.describe_step_error(error)
                    ),
                )),
                _ => None,
            })
            .collect()
    }

    /// Resets the worlds `indices` (default: every world) to how they started, or to
    /// `world` (a `World` with the same bodies and servos), clearing their failures.
    #[pyo3(signature = (indices=None, world=None))]
    fn reset(
        &mut self,
        indices: Option<Vec<usize>>,
        world: Option<PyRef<'_, PyWorld>>,
    ) -> PyResult<()> {
        let indices = indices.unwrap_or_else(|| (0..self.batch.len()).collect());
        if let Some(&bad) = indices.iter().find(|&&i| i >= self.batch.len()) {
            return Err(PyWorldError::new_err(format!(
                "world {bad} does not exist: the batch has {}",
                self.batch.len()
            )));
        }
        for i in indices {
            let replacement = match &world {
                Some(w) => w.world.clone(),
                None => self.starts[i].world.clone(),
            };
            self.batch.reset(i, replacement).map_err(batch_error)?;
        }
        Ok(())
    }

    /// A copy of world `index` as a `World` (names and indices as the batch's source).
    fn world(&self, index: usize) -> PyResult<PyWorld> {
        let live = self.batch.world(index).map_err(batch_error)?;
        Ok(self.starts[index].with_world(live.clone()))
    }

    fn __repr__(&self) -> String {
        format!(
            "Batch({} worlds, {} threads)",
            self.batch.len(),
            self.batch.threads()
        )
    }
}
