//! The `stiction` Python package's native module, `stiction._stiction`.
//!
//! What Python sees (docs/python.md is the user's guide; `python/stiction/_stiction.pyi`
//! the typed reference):
//!
//! - `world::PyWorld` (`stiction.World`): bodies, colliders and joints by index or name,
//!   scene files through the CLI's own reader, stepping with the GIL released, the state as
//!   numpy arrays, contacts, joint feedback, statistics, snapshots, pickling and copying;
//! - `drive`: joint friction, damping and servos as `World` arguments and dicts;
//! - `query`: scene queries (rays, batched rays for a lidar with the GIL released, shape
//!   casts, overlaps, point projection) with the engine's `QueryFilter` as keyword
//!   arguments, answers as small frozen objects or numpy arrays;
//! - `events`: sensor overlaps, sensor and contact events and touching pairs' impulses of
//!   the last step, as numpy arrays of collider and body indices;
//! - `lcp` (`stiction.lcp`): the boxed-LCP solvers of `stiction-lcp` on numpy arrays,
//!   and the problems a running world hands its exact stepper;
//! - `batch` (`stiction.Batch`): many worlds stepped together on the engine's thread pool,
//!   actions in and states out as `(N, ...)` numpy arrays, the GIL released;
//! - `errors`: the `StictionError` family, carrying the engine's and the CLI's one-line
//!   messages.
//!
//! No input from Python may crash the interpreter: every handle, shape, dtype and number is
//! checked here or by the engine before it is used, and the engine itself never panics on
//! bad input (it returns typed errors).

mod batch;
mod convert;
mod drive;
mod errors;
mod events;
mod lcp;
mod names;
mod query;
mod state;
mod world;

use pyo3::prelude::*;

/// The extension module. Its classes and functions are re-exported by `stiction` and
/// `stiction.lcp` (python/stiction).
#[pymodule(name = "_stiction")]
fn stiction_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<world::PyWorld>()?;
    m.add_class::<batch::PyBatch>()?;
    m.add_class::<state::PyStepStats>()?;
    m.add_class::<state::PyContacts>()?;
    m.add_class::<state::PyJointFeedback>()?;
    m.add_class::<query::PyRayHit>()?;
    m.add_class::<query::PyRayHits>()?;
    m.add_class::<query::PyShapeHit>()?;
    m.add_class::<query::PyPointProjection>()?;
    m.add_class::<events::PySensorEvents>()?;
    m.add_class::<events::PyContactEvents>()?;
    m.add_class::<events::PyContactPairs>()?;
    m.add_class::<lcp::PyProblem>()?;
    m.add_class::<lcp::PyLcpResult>()?;
    m.add_function(wrap_pyfunction!(lcp::lcp_solve, m)?)?;
    m.add_function(wrap_pyfunction!(lcp::lcp_lemke, m)?)?;
    m.add_function(wrap_pyfunction!(lcp::problem_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(world::world_from_pickle, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add(
        "SNAPSHOT_FORMAT_VERSION",
        stiction::Snapshot::FORMAT_VERSION,
    )?;
    Ok(())
}
