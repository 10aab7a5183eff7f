//! Read-only result objects: a step's statistics, the last step's contacts and the joints'
//! feedback, as small classes whose array fields are numpy arrays.

use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use stiction::StepStats;

/// What the last step did (`world.stats`): sizes, solver work and the worst residual.
#[pyclass(module = "stiction._stiction", name = "StepStats", frozen, get_all)]
#[derive(Debug, Clone)]
pub struct PyStepStats {
    /// The step size, s.
    pub h: f64,
    /// Whether the step was applied (a refused step changed nothing).
    pub committed: bool,
    /// Rows (scalar constraints) solved.
    pub rows: usize,
    /// Islands of bodies connected by rows.
    pub islands: usize,
    /// Dynamic bodies in islands.
    pub constrained_bodies: usize,
    /// Dynamic bodies in no island.
    pub free_bodies: usize,
    /// Dantzig pivots over all islands (exact stepper).
    pub pivots: usize,
    /// Gauss-Seidel sweeps over all islands (iterative stepper and fallbacks).
    pub sweeps: usize,
    /// Bilateral islands solved by one factorisation.
    pub direct_islands: usize,
    /// The worst normalised LCP residual of any island.
    pub worst_residual: f64,
    /// Islands whose exact solve failed and Gauss-Seidel finished.
    pub fallbacks: usize,
    /// Islands whose forces are not a solution to tolerance.
    pub unsolved_islands: usize,
    /// Contact points that became rows.
    pub contacts: usize,
    /// Collider pairs whose boxes overlap.
    pub collision_pairs: usize,
    /// Bodies asleep after the step.
    pub sleeping_bodies: usize,
    /// Joints that broke in the step.
    pub broken_joints: usize,
    /// Post-stabilisation passes.
    pub post_stabilization_passes: usize,
}

impl PyStepStats {
    /// The Python view of the engine's statistics.
    pub fn from_stats(s: &StepStats) -> Self {
        Self {
            h: s.h,
            committed: s.committed,
            rows: s.rows,
            islands: s.islands,
            constrained_bodies: s.constrained_bodies,
            free_bodies: s.free_bodies,
            pivots: s.pivots,
            sweeps: s.sweeps,
            direct_islands: s.direct_islands,
            worst_residual: s.worst_residual,
            fallbacks: s.fallbacks,
            unsolved_islands: s.unsolved_islands,
            contacts: s.contacts,
            collision_pairs: s.collision_pairs,
            sleeping_bodies: s.sleeping_bodies,
            broken_joints: s.broken_joints.len(),
            post_stabilization_passes: s.post_stabilization.passes,
        }
    }
}

#[pymethods]
impl PyStepStats {
    fn __repr__(&self) -> String {
        format!(
            "StepStats(h={}, committed={}, rows={}, islands={}, pivots={}, sweeps={}, worst_residual={:e}, fallbacks={}, contacts={})",
            self.h,
            if self.committed { "True" } else { "False" },
            self.rows,
            self.islands,
            self.pivots,
            self.sweeps,
            self.worst_residual,
            self.fallbacks,
            self.contacts
        )
    }
}

/// The contact points of the last step, one row each (`world.contacts()`).
#[pyclass(module = "stiction._stiction", name = "Contacts", frozen, get_all)]
pub struct PyContacts {
    /// World points midway between the surfaces, (K, 3), m.
    pub points: Py<PyArray2<f64>>,
    /// Unit normals from body A into body B, (K, 3).
    pub normals: Py<PyArray2<f64>>,
    /// Forces on body B, world frame, (K, 3), N (A receives the opposite).
    pub forces: Py<PyArray2<f64>>,
    /// Forces in the contact frame (normal, tangent 1, tangent 2), (K, 3), N.
    pub local_forces: Py<PyArray2<f64>>,
    /// Body indices (A, B), (K, 2) int64; -1 for static world geometry.
    pub bodies: Py<PyArray2<i64>>,
    /// Signed distances between the surfaces, (K,), m (negative: penetration).
    pub separations: Py<PyArray1<f64>>,
    /// Number of contact points, K.
    pub count: usize,
}

#[pymethods]
impl PyContacts {
    fn __len__(&self) -> usize {
        self.count
    }

    fn __repr__(&self) -> String {
        format!("Contacts({} points)", self.count)
    }
}

/// Constraint forces of joints in the last step (`world.joint_feedback()`): one row per
/// joint, or single vectors for one joint.
#[pyclass(module = "stiction._stiction", name = "JointFeedback", frozen, get_all)]
pub struct PyJointFeedback {
    /// Force on body A, N, world frame.
    pub force_a: Py<PyAny>,
    /// Torque on body A about its centre of mass, N m.
    pub torque_a: Py<PyAny>,
    /// Force on body B (or the world), N.
    pub force_b: Py<PyAny>,
    /// Torque on body B about its centre of mass (or the world origin), N m.
    pub torque_b: Py<PyAny>,
    /// Generalised force of each axis's motor (axes 0 and 1).
    pub motor: Py<PyAny>,
    /// Generalised force of each axis's limit (axes 0 and 1).
    pub limit: Py<PyAny>,
}

#[pymethods]
impl PyJointFeedback {
    fn __repr__(&self, py: Python<'_>) -> String {
        let text = |o: &Py<PyAny>| o.bind(py).repr().map(|r| r.to_string()).unwrap_or_default();
        format!(
            "JointFeedback(force_a={}, torque_a={}, force_b={}, torque_b={})",
            text(&self.force_a),
            text(&self.torque_a),
            text(&self.force_b),
            text(&self.torque_b)
        )
    }
}
