//! The exception family: `StictionError(ValueError)` and one subclass per kind of refusal,
//! each carrying the engine's (or the CLI's) one-line message unchanged.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

// Named `stiction.X` (the package re-exports them), so that tracebacks and pickled
// exceptions use the public path rather than the private extension module.
create_exception!(
    stiction,
    StictionError,
    PyValueError,
    "Base class of every error Stiction raises for bad input or a refused operation."
);
create_exception!(
    stiction,
    SceneError,
    StictionError,
    "A scene file (or scene text) that cannot be read, parsed, validated or built; the message is the `stiction` command's."
);
create_exception!(
    stiction,
    ModelError,
    StictionError,
    "A robot model (URDF, MJCF) that cannot be loaded; the message starts with the file, line and column at fault."
);
create_exception!(
    stiction,
    WorldError,
    StictionError,
    "A world operation the engine refused: a bad body, collider, joint, setting or state, or an unknown body or joint."
);
create_exception!(
    stiction,
    StepError,
    StictionError,
    "A step the engine refused; the world is exactly as it was before that step."
);
create_exception!(
    stiction,
    SnapshotError,
    StictionError,
    "Snapshot bytes that are truncated, damaged, foreign or of another format version."
);
create_exception!(
    stiction,
    LcpError,
    StictionError,
    "An LCP problem or solver option that breaks a rule (the message names the field)."
);

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("StictionError", py.get_type::<StictionError>())?;
    m.add("SceneError", py.get_type::<SceneError>())?;
    m.add("ModelError", py.get_type::<ModelError>())?;
    m.add("WorldError", py.get_type::<WorldError>())?;
    m.add("StepError", py.get_type::<StepError>())?;
    m.add("SnapshotError", py.get_type::<SnapshotError>())?;
    m.add("LcpError", py.get_type::<LcpError>())?;
    Ok(())
}

/// A refused world operation, with the engine's message.
pub fn world_error(e: impl std::fmt::Display) -> PyErr {
    WorldError::new_err(e.to_string())
}

/// A refused LCP problem or option, with the solver crate's message.
pub fn lcp_error(e: impl std::fmt::Display) -> PyErr {
    LcpError::new_err(e.to_string())
}

/// A refused snapshot, with the engine's message.
pub fn snapshot_error(e: impl std::fmt::Display) -> PyErr {
    SnapshotError::new_err(e.to_string())
}
