//! `stiction.World`: the engine's [`World`] with Python indices and names, stepping with
//! the GIL released, the state as numpy arrays, and snapshots, pickling and copying.

use std::collections::BTreeMap;
use std::path::PathBuf;

use numpy::{AllowTypeChange, PyArray1, PyArray2, PyArrayLikeDyn};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use stiction::joint::{AxisControl, JointLimit, JointMotor};
use stiction::math::{Mat3, Quat, Vec3};
use stiction::{
    AxisDynamics, BallJoint, BodyHandle, BodyKind, ColliderBuilder, ColliderHandle, DistanceJoint,
    FixedJoint, Hinge2Joint, HingeJoint, IterativeSettings, JointAxisState, JointBuilder,
    JointError, JointHandle, JointKind, MassProperties, PostStabilization, RigidBodyBuilder,
    SleepSettings, SliderJoint, Softness, Solver, UniversalJoint, World, WorldSettings,
};
use stiction_cli::scene::parse::{parse_scene, Format, Source};
use stiction_cli::scene::schema::SolverKind;
use stiction_cli::scene::{check_and_build, BuiltScene};

use crate::convert::{array1, array2, matrix_data, numbers, quat, vec3, wxyz};
use crate::drive::{axis_index, dynamics_dict, servo_of, vector_of};
use stiction_models::{Base, LoadOptions};

use crate::errors::{
    snapshot_error, world_error, ModelError, SceneError, StepError, WorldError as PyWorldError,
};
use crate::events::{PyContactEvents, PyContactPairs, PySensorEvents};
use crate::lcp::PyProblem;
use crate::names::{Names, Registry};
use crate::query::{
    groups_of, FilterArgs, PyPointProjection, PyRayHit, PyRayHits, PyShapeHit, ShapeArgs,
};
use crate::state::{PyContacts, PyJointFeedback, PyStepStats};

/// The shape errors of world operations are `stiction.WorldError`s.
fn werr(message: String) -> PyErr {
    PyWorldError::new_err(message)
}

/// The name a joint end takes for the static world, as in scene files.
const WORLD: &str = "world";

/// A simulated world: bodies, colliders and joints (by index, in the order added, or by
/// name), settings, and the step.
#[pyclass(module = "stiction._stiction", name = "World")]
#[derive(Debug, Clone)]
pub struct PyWorld {
    pub(crate) world: World,
    pub(crate) names: Names,
    /// Colliders by index (in the order added or loaded); never named.
    pub(crate) colliders: Registry<ColliderHandle>,
    /// The step size `step()` uses when given none, s.
    timestep: f64,
    /// Committed steps (stored in snapshots as their step count).
    steps: u64,
    /// The scene's name and step count, for worlds read from a scene.
    scene: Option<(String, u64)>,
    /// What a loaded robot model holds that is not simulated, one located line each.
    model_warnings: Vec<String>,
}

/// The stepper settings `solver=` names.
fn solver_of(name: &str, iterations: i64, omega: f64, tolerance: f64) -> PyResult<Solver> {
    match name {
        "exact" => Ok(Solver::exact()),
        "iterative" => {
            let iterations = usize::try_from(iterations).map_err(|_| {
                werr(format!(
                    "setting `iterations` = {iterations} is invalid: must be >= 1"
                ))
            })?;
            Ok(Solver::Iterative(IterativeSettings {
                iterations,
                omega,
                tolerance,
                ..IterativeSettings::default()
            }))
        }
        other => Err(werr(format!(
            "solver must be \"exact\" or \"iterative\", got {other:?}"
        ))),
    }
}

/// A step size argument: finite and > 0.
fn check_timestep(h: f64) -> PyResult<f64> {
    if h.is_finite() && h > 0.0 {
        Ok(h)
    } else {
        Err(werr(format!("timestep must be finite and > 0, got {h}")))
    }
}

/// `(lower, upper)` as a limit.
fn limit_of(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<JointLimit>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    let [lower, upper] = numbers::<2>(obj, what, werr)?;
    JointLimit::new(lower, upper)
        .map(Some)
        .map_err(|e| werr(format!("{what}: invalid joint: {e}")))
}

/// `(target_velocity, max_force)` as a motor.
fn motor_of(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<JointMotor>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    let [velocity, max_force] = numbers::<2>(obj, what, werr)?;
    JointMotor::new(velocity, max_force)
        .map(Some)
        .map_err(|e| werr(format!("{what}: invalid joint: {e}")))
}

/// The limit and motor of one joint axis.
fn control(
    limit: Option<&Bound<'_, PyAny>>,
    motor: Option<&Bound<'_, PyAny>>,
    names: (&str, &str),
) -> PyResult<AxisControl> {
    Ok(AxisControl {
        limit: limit_of(limit, names.0)?,
        motor: motor_of(motor, names.1)?,
    })
}

/// Options every joint constructor takes.
struct JointOptions {
    name: Option<String>,
    erp: Option<f64>,
    cfm: Option<f64>,
    break_force: Option<f64>,
    break_torque: Option<f64>,
}

impl JointOptions {
    /// The options from the five keyword arguments every `add_*_joint` method takes (their
    /// pyo3 signatures spell them out: `name=None, erp=None, cfm=None, break_force=None,
    /// break_torque=None`).
    fn new(
        name: Option<String>,
        erp: Option<f64>,
        cfm: Option<f64>,
        break_force: Option<f64>,
        break_torque: Option<f64>,
    ) -> Self {
        Self {
            name,
            erp,
            cfm,
            break_force,
            break_torque,
        }
    }
}

impl PyWorld {
    /// The step size `step()` uses when given none, s.
    pub(crate) fn timestep(&self) -> f64 {
        self.timestep
    }

    /// This view (names, indices, step size) over `world`, a later state of the same
    /// world (a batch's); the step count follows its time.
    pub(crate) fn with_world(&self, world: World) -> Self {
        let mut copy = self.clone();
        let elapsed = world.time() - self.world.time();
        copy.steps += (elapsed / self.timestep).round().max(0.0) as u64;
        copy.world = world;
        copy
    }

    fn empty(world: World, timestep: f64) -> Self {
        Self {
            world,
            names: Names::default(),
            colliders: Registry::default(),
            timestep,
            steps: 0,
            scene: None,
            model_warnings: Vec::new(),
        }
    }

    /// A world loaded from a robot model: bodies named by link (merged massless links
    /// share their parent's body, named by the first of their names in sorted order),
    /// joints by joint name.
    fn of_model(
        py: Python<'_>,
        path: PathBuf,
        options: LoadOptions,
        timestep: Option<f64>,
    ) -> PyResult<Self> {
        let (world, model) = py
            .detach(|| stiction_models::load(&path, &options))
            .map_err(|e| ModelError::new_err(e.to_string()))?;
        let timestep = timestep.or(model.timestep).unwrap_or(1.0 / 240.0);
        let mut body_names: BTreeMap<BodyHandle, &str> = BTreeMap::new();
        for (link, &handle) in &model.links {
            body_names.entry(handle).or_insert(link.as_str());
        }
        let joint_names: BTreeMap<stiction::JointHandle, &str> = model
            .joints
            .iter()
            .map(|(name, &handle)| (handle, name.as_str()))
            .collect();
        let bodies: Vec<BodyHandle> = world.bodies().map(|(h, _)| h).collect();
        let joints: Vec<stiction::JointHandle> = world.joints().map(|(h, _)| h).collect();
        let mut this = Self::empty(world, timestep);
        for handle in bodies {
            let name = body_names.get(&handle).map(|n| n.to_string());
            this.names.bodies.push(handle, name);
        }
        for handle in joints {
            let name = joint_names.get(&handle).map(|n| n.to_string());
            this.names.joints.push(handle, name);
        }
        this.colliders = Registry::of_handles(this.world.colliders().map(|(h, _)| h));
        this.model_warnings = model.warnings.iter().map(|w| w.to_string()).collect();
        Ok(this)
    }

    /// A world read back from snapshot bytes, named by `body_names` and `joint_names`.
    fn restore(
        data: &[u8],
        body_names: &[Option<String>],
        joint_names: &[Option<String>],
        timestep: f64,
    ) -> PyResult<Self> {
        let snapshot = World::load_snapshot(data).map_err(snapshot_error)?;
        let names = Names::of_world(&snapshot.world, body_names, joint_names);
        let colliders = Registry::of_handles(snapshot.world.colliders().map(|(h, _)| h));
        Ok(Self {
            world: snapshot.world,
            names,
            colliders,
            timestep: check_timestep(timestep)?,
            steps: snapshot.step,
            scene: None,
            model_warnings: Vec::new(),
        })
    }

    /// The world of a built scene, with the scene's names.
    fn of_scene(built: BuiltScene) -> Self {
        let mut this = Self::empty(built.world, built.h);
        for body in &built.bodies {
            this.names.bodies.push(body.handle, Some(body.name.clone()));
        }
        for joint in &built.joints {
            this.names
                .joints
                .push(joint.handle, Some(joint.name.clone()));
        }
        this.colliders = Registry::of_handles(this.world.colliders().map(|(h, _)| h));
        this.scene = Some((built.name, built.steps));
        this
    }

    /// The body an index or name argument names.
    pub(crate) fn body(&self, obj: &Bound<'_, PyAny>) -> PyResult<BodyHandle> {
        self.names.bodies.resolve(obj, "body")
    }

    /// A joint's second end: a body, or the static world (`None` or `"world"`).
    fn other_body(&self, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<BodyHandle>> {
        match obj {
            None => Ok(None),
            Some(o) if o.is_none() => Ok(None),
            Some(o) if o.extract::<String>().is_ok_and(|s| s == WORLD) => Ok(None),
            Some(o) => self.body(o).map(Some),
        }
    }

    fn joint(&self, obj: &Bound<'_, PyAny>) -> PyResult<stiction::JointHandle> {
        self.names.joints.resolve(obj, "joint")
    }

    /// Adds a joint description with the common options; returns its index.
    fn add_joint_kind(
        &mut self,
        body_a: BodyHandle,
        body_b: Option<BodyHandle>,
        kind: JointKind,
        options: JointOptions,
    ) -> PyResult<usize> {
        self.names
            .joints
            .check_name(options.name.as_deref(), "joint")?;
        let mut builder = JointBuilder::new(body_a, body_b, kind);
        if options.erp.is_some() || options.cfm.is_some() {
            let world = self.world.settings().softness;
            builder = builder.softness(Softness {
                erp: options.erp.unwrap_or(world.erp),
                cfm: options.cfm.unwrap_or(world.cfm),
            });
        }
        if let Some(f) = options.break_force {
            builder = builder.break_force(f);
        }
        if let Some(t) = options.break_torque {
            builder = builder.break_torque(t);
        }
        let handle = self.world.add_joint(builder).map_err(world_error)?;
        Ok(self.names.joints.push(handle, options.name))
    }

    /// How messages name a joint: ``joint `knee` `` or `joint 3`.
    fn joint_label(&self, handle: JointHandle) -> String {
        format!("joint {}", self.names.joints.describe(handle))
    }

    /// Joints from a sequence (any iterable but a string) of indices or names.
    fn joint_list(&self, joints: &Bound<'_, PyAny>) -> PyResult<Vec<JointHandle>> {
        let not_a_sequence =
            || PyTypeError::new_err("joints must be a sequence of joint indices or names");
        if joints.is_instance_of::<PyString>() {
            return Err(not_a_sequence());
        }
        joints
            .try_iter()
            .map_err(|_| not_a_sequence())?
            .map(|item| self.joint(&item?))
            .collect()
    }

    /// The coordinate and rate of the given joints (default: every joint with one axis,
    /// in index order); refuses a joint without exactly one axis. `what` names the caller.
    fn single_axis_states(
        &self,
        joints: Option<&Bound<'_, PyAny>>,
        what: &str,
    ) -> PyResult<Vec<JointAxisState>> {
        let handles = match joints.filter(|j| !j.is_none()) {
            None => self
                .names
                .joints
                .handles
                .iter()
                .copied()
                .filter(|&h| self.world.joint(h).is_ok_and(|j| j.axis_count() == 1))
                .collect(),
            Some(joints) => {
                let handles = self.joint_list(joints)?;
                for (i, &h) in handles.iter().enumerate() {
                    let joint = self.world.joint(h).map_err(world_error)?;
                    if joint.axis_count() != 1 {
                        return Err(werr(format!(
                            "joints[{i}] ({}) is a {} joint with {} axes: {what} reads joints \
                             with one axis (joint_axis(joint, axis) reads any axis)",
                            self.joint_label(h),
                            joint.kind().name(),
                            joint.axis_count()
                        )));
                    }
                }
                handles
            }
        };
        handles
            .iter()
            .map(|&h| self.world.joint_axis_state(h, 0).map_err(world_error))
            .collect()
    }

    /// Wakes the bodies a joint connects (a changed servo or friction acts on sleepers).
    fn wake_joint(&mut self, handle: JointHandle) -> PyResult<()> {
        let joint = self.world.joint(handle).map_err(world_error)?;
        let (a, b) = (joint.body_a(), joint.body_b());
        self.world.wake_up(a).map_err(world_error)?;
        if let Some(b) = b {
            self.world.wake_up(b).map_err(world_error)?;
        }
        Ok(())
    }

    /// Replaces the friction, damping and servo of a joint axis by `change` of them; a
    /// refusal (an axis the joint lacks, a value out of range, a rigid distance joint)
    /// raises `WorldError` naming the joint and leaves it unchanged. Wakes the joint's
    /// bodies when something changed.
    fn change_dynamics(
        &mut self,
        handle: JointHandle,
        axis: usize,
        change: impl FnOnce(AxisDynamics) -> Result<AxisDynamics, stiction::WorldError>,
    ) -> PyResult<()> {
        let label = self.joint_label(handle);
        let at = |e: stiction::WorldError| werr(format!("{label}: {e}"));
        let joint = self.world.joint_mut(handle).map_err(world_error)?;
        let count = joint.axis_count();
        let before = *joint
            .axis_dynamics(axis)
            .ok_or_else(|| at(JointError::NoSuchAxis { axis, count }.into()))?;
        let after = change(before).map_err(at)?;
        joint.set_axis_dynamics(axis, after).map_err(at)?;
        if after != before {
            self.wake_joint(handle)?;
        }
        Ok(())
    }

    /// The two ends' poses.
    fn poses(
        &self,
        a: BodyHandle,
        b: Option<BodyHandle>,
    ) -> PyResult<(stiction::Pose, stiction::Pose)> {
        Ok((
            self.world.pose(Some(a)).map_err(world_error)?,
            self.world.pose(b).map_err(world_error)?,
        ))
    }

    /// One row per body of `f(body)`.
    fn per_body<const K: usize>(&self, f: impl Fn(&stiction::RigidBody) -> [f64; K]) -> Vec<f64> {
        let mut data = Vec::with_capacity(self.names.bodies.len() * K);
        for &h in &self.names.bodies.handles {
            // Registered handles are live (bodies are never removed through this API).
            match self.world.body(h) {
                Ok(body) => data.extend_from_slice(&f(body)),
                Err(_) => data.extend_from_slice(&[f64::NAN; K]),
            }
        }
        data
    }

    /// The (N, K) array argument `name` of `set_state`, or `None`.
    fn state_rows<const K: usize>(
        &self,
        array: Option<&PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
        what: &str,
    ) -> PyResult<Option<Vec<[f64; K]>>> {
        let Some(array) = array else {
            return Ok(None);
        };
        let n = self.names.bodies.len();
        let (_, data) = matrix_data(array, what, &[Some(n), Some(K)], werr)?;
        let rows = data
            .chunks_exact(K)
            .map(|c| <[f64; K]>::try_from(c).unwrap_or([f64::NAN; K]))
            .collect();
        Ok(Some(rows))
    }

    fn step_error(&self, e: &stiction::WorldError, done: usize, n: usize) -> PyErr {
        let message = self.names.describe_step_error(e);
        let message = if n > 1 {
            format!("step {} of {n} failed: {message}", done + 1)
        } else {
            message
        };
        StepError::new_err(message)
    }
}

#[pymethods]
impl PyWorld {
    /// An empty world. `solver` is `"exact"` (Dantzig pivoting per island, ODE's
    /// `dWorldStep`) or `"iterative"` (projected Gauss-Seidel with `iterations` sweeps,
    /// `dWorldQuickStep`).
    #[new]
    #[pyo3(signature = (gravity=None, solver="exact", *, timestep=1.0/60.0, erp=None, cfm=None, iterations=20, omega=1.0, tolerance=0.0, post_stabilization=true, sleeping=false, restitution_threshold=None, capture_problems=false))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python constructor.
    fn new(
        gravity: Option<&Bound<'_, PyAny>>,
        solver: &str,
        timestep: f64,
        erp: Option<f64>,
        cfm: Option<f64>,
        iterations: i64,
        omega: f64,
        tolerance: f64,
        post_stabilization: bool,
        sleeping: bool,
        restitution_threshold: Option<f64>,
        capture_problems: bool,
    ) -> PyResult<Self> {
        let mut settings = WorldSettings::default();
        if let Some(g) = gravity.filter(|g| !g.is_none()) {
            settings.gravity = vec3(g, "gravity", werr)?;
        }
        settings.solver = solver_of(solver, iterations, omega, tolerance)?;
        if let Some(erp) = erp {
            settings.softness.erp = erp;
        }
        if let Some(cfm) = cfm {
            settings.softness.cfm = cfm;
        }
        if !post_stabilization {
            settings.post_stabilization = PostStabilization::OFF;
        }
        if sleeping {
            settings.sleep = SleepSettings::on();
        }
        if let Some(t) = restitution_threshold {
            settings.contacts.restitution_threshold = t;
        }
        let mut world = World::with_settings(settings).map_err(world_error)?;
        world.set_capture_problems(capture_problems);
        Ok(Self::empty(world, check_timestep(timestep)?))
    }

    /// A world built from a scene file (TOML or JSON), a built-in scene's name
    /// (`"pendulum"`), or scene text, by the `stiction` command's own reader: the same
    /// defaults, the same validation and the same error messages. The loader's warnings of
    /// its `[[models]]` are `model_warnings`.
    #[staticmethod]
    #[pyo3(signature = (source, *, format=None, solver=None))]
    fn from_scene(
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        format: Option<&str>,
        solver: Option<&str>,
    ) -> PyResult<Self> {
        let scene_error = |e: stiction_cli::scene::SceneError| SceneError::new_err(e.to_string());
        let text: Option<String> = source.extract::<String>().ok();
        let format = match format {
            None => None,
            Some("toml") => Some(Format::Toml),
            Some("json") => Some(Format::Json),
            Some(other) => {
                return Err(SceneError::new_err(format!(
                    "format must be \"toml\" or \"json\", got {other:?}"
                )))
            }
        };
        // Text when the caller says so or when it cannot be a path (a path has no line
        // breaks and does not open a table or an object).
        let is_text = format.is_some()
            || text.as_deref().is_some_and(|t| {
                let t = t.trim_start();
                t.contains('\n') || t.starts_with('{') || t.starts_with('[')
            });
        let (mut file, label) = if let (true, Some(text)) = (is_text, &text) {
            let format = format.unwrap_or(if text.trim_start().starts_with('{') {
                Format::Json
            } else {
                Format::Toml
            });
            let label = PathBuf::from(match format {
                Format::Toml => "<scene>.toml",
                Format::Json => "<scene>.json",
            });
            (
                parse_scene(text, format, &label).map_err(scene_error)?,
                label,
            )
        } else {
            let path: PathBuf = match text {
                Some(t) => PathBuf::from(t),
                None => source.extract().map_err(|_| {
                    PyTypeError::new_err("source must be a path (str or os.PathLike) or scene text")
                })?,
            };
            let source = Source::of(&path);
            (source.read().map_err(scene_error)?, source.label())
        };
        if let Some(solver) = solver {
            file.world.solver.kind = match solver {
                "exact" => SolverKind::Exact,
                "iterative" => SolverKind::Iterative,
                other => {
                    return Err(SceneError::new_err(format!(
                        "solver must be \"exact\" or \"iterative\", got {other:?}"
                    )))
                }
            };
        }
        let built = py
            .detach(|| check_and_build(&file, &label))
            .map_err(scene_error)?;
        // The loader's warnings of the scene's `[[models]]`, in model order.
        let model_warnings: Vec<String> = built
            .models
            .iter()
            .flat_map(|m| m.warnings.iter().map(|w| w.to_string()))
            .collect();
        let mut this = Self::of_scene(built);
        this.model_warnings = model_warnings;
        Ok(this)
    }

    /// A world loaded from a robot model file (URDF, or MJCF: told apart by the root
    /// element), by `stiction-models`. Bodies are named by link, joints by joint name; the
    /// loader's warnings are `model_warnings`; a refused file raises `ModelError`.
    ///
    /// `base`: "fixed", "floating" or None (URDF fixed, MJCF as the file says);
    /// `position`/`orientation` (w, x, y, z): where the model's frame goes; `joints`:
    /// initial joint values by name; `hold`: velocity motors of target 0 on every joint;
    /// `servo`: (stiffness, damping) of a position servo on every joint the file gives no
    /// actuator, holding its initial value; `timestep`: None takes the file's (MJCF
    /// `<option timestep>`) or 1/240 s. The file's gravity (MJCF) is the world's.
    #[staticmethod]
    #[pyo3(signature = (path, *, base=None, position=None, orientation=None, joints=None, hold=false, servo=None, search_path=None, timestep=None))]
    #[allow(clippy::too_many_arguments)]
    fn from_model(
        py: Python<'_>,
        path: PathBuf,
        base: Option<&str>,
        position: Option<&Bound<'_, PyAny>>,
        orientation: Option<&Bound<'_, PyAny>>,
        joints: Option<BTreeMap<String, f64>>,
        hold: bool,
        servo: Option<(f64, f64)>,
        search_path: Option<Vec<PathBuf>>,
        timestep: Option<f64>,
    ) -> PyResult<Self> {
        let base = match base {
            None => Base::FromFile,
            Some("fixed") => Base::Fixed,
            Some("floating") => Base::Floating,
            Some(other) => {
                return Err(ModelError::new_err(format!(
                    "base must be \"fixed\", \"floating\" or None, got {other:?}"
                )))
            }
        };
        if let Some(h) = timestep.filter(|h| !(h.is_finite() && *h > 0.0)) {
            return Err(werr(format!("timestep must be finite and > 0, got {h}")));
        }
        let mut base_pose = stiction::Pose::IDENTITY;
        if let Some(p) = position {
            base_pose.position = vec3(p, "position", werr)?;
        }
        if let Some(q) = orientation {
            base_pose.orientation = quat(q, "orientation", werr)?;
        }
        let position_servos = servo
            .map(|(stiffness, damping)| {
                let valid = |x: f64| x.is_finite() && x >= 0.0;
                if valid(stiffness) && valid(damping) && stiffness + damping > 0.0 {
                    Ok(stiction_models::ServoGains { stiffness, damping })
                } else {
                    Err(werr(format!(
                        "servo must be (stiffness, damping), finite, >= 0, not both 0; got ({stiffness}, {damping})"
                    )))
                }
            })
            .transpose()?;
        let options = LoadOptions {
            base,
            base_pose,
            joint_positions: joints.unwrap_or_default(),
            hold_joints: hold,
            position_servos,
            search_path: search_path.unwrap_or_default(),
            ..LoadOptions::default()
        };
        Self::of_model(py, path, options, timestep)
    }

    /// `from_model` for a URDF file.
    #[staticmethod]
    #[pyo3(signature = (path, *, base=None, position=None, orientation=None, joints=None, hold=false, servo=None, search_path=None, timestep=None))]
    #[allow(clippy::too_many_arguments)]
    fn from_urdf(
        py: Python<'_>,
        path: PathBuf,
        base: Option<&str>,
        position: Option<&Bound<'_, PyAny>>,
        orientation: Option<&Bound<'_, PyAny>>,
        joints: Option<BTreeMap<String, f64>>,
        hold: bool,
        servo: Option<(f64, f64)>,
        search_path: Option<Vec<PathBuf>>,
        timestep: Option<f64>,
    ) -> PyResult<Self> {
        Self::from_model(
            py,
            path,
            base,
            position,
            orientation,
            joints,
            hold,
            servo,
            search_path,
            timestep,
        )
    }

    /// `from_model` for an MJCF file.
    #[staticmethod]
    #[pyo3(signature = (path, *, base=None, position=None, orientation=None, joints=None, hold=false, servo=None, search_path=None, timestep=None))]
    #[allow(clippy::too_many_arguments)]
    fn from_mjcf(
        py: Python<'_>,
        path: PathBuf,
        base: Option<&str>,
        position: Option<&Bound<'_, PyAny>>,
        orientation: Option<&Bound<'_, PyAny>>,
        joints: Option<BTreeMap<String, f64>>,
        hold: bool,
        servo: Option<(f64, f64)>,
        search_path: Option<Vec<PathBuf>>,
        timestep: Option<f64>,
    ) -> PyResult<Self> {
        Self::from_model(
            py,
            path,
            base,
            position,
            orientation,
            joints,
            hold,
            servo,
            search_path,
            timestep,
        )
    }

    /// What the loaded robot model holds that is not simulated, one located line each
    /// (`arm.urdf:26:5: warning: ...`); empty for other worlds.
    #[getter]
    fn model_warnings(&self) -> Vec<String> {
        self.model_warnings.clone()
    }

    /// A world read back from `snapshot()` bytes (or a `stiction run --snapshot-every`
    /// file's contents). Bodies and joints are unnamed; their indices are those of the
    /// world that was saved.
    #[staticmethod]
    #[pyo3(signature = (data, *, timestep=1.0/60.0))]
    fn from_snapshot(data: &[u8], timestep: f64) -> PyResult<Self> {
        Self::restore(data, &[], &[], timestep)
    }

    /// The complete state as bytes (the engine's versioned, checksummed snapshot format,
    /// the one `stiction run --snapshot-every` writes), with the step count.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let mut bytes = Vec::new();
        self.world
            .save_snapshot(&mut bytes, self.steps)
            .map_err(snapshot_error)?;
        Ok(PyBytes::new(py, &bytes))
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let py = slf.py();
        let this = slf.borrow();
        let data = this.snapshot(py)?;
        let load = py
            .import("stiction._stiction")?
            .getattr("_world_from_pickle")?;
        let args = (
            data,
            this.names.bodies.names.clone(),
            this.names.joints.names.clone(),
            this.timestep,
            this.scene.clone(),
        )
            .into_pyobject(py)?
            .into_any();
        Ok((load, args))
    }

    /// An independent copy that continues bit for bit as this world would.
    fn copy(&self) -> Self {
        self.clone()
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "World({} bodies, {} joints, {} colliders, t={} s{})",
            self.names.bodies.len(),
            self.names.joints.len(),
            self.colliders.len(),
            self.world.time(),
            self.scene
                .as_ref()
                .map(|(n, _)| format!(", scene {n:?}"))
                .unwrap_or_default()
        )
    }

    // ----- bodies, colliders, joints -----

    /// Adds a body; returns its index (its row in the state arrays).
    #[pyo3(signature = (kind="dynamic", *, mass=None, inertia=None, position=None, orientation=None, velocity=None, angular_velocity=None, gravity=true, linear_damping=0.0, angular_damping=0.0, name=None, ccd=false))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn add_body(
        &mut self,
        kind: &str,
        mass: Option<f64>,
        inertia: Option<&Bound<'_, PyAny>>,
        position: Option<&Bound<'_, PyAny>>,
        orientation: Option<&Bound<'_, PyAny>>,
        velocity: Option<&Bound<'_, PyAny>>,
        angular_velocity: Option<&Bound<'_, PyAny>>,
        gravity: bool,
        linear_damping: f64,
        angular_damping: f64,
        name: Option<String>,
        ccd: bool,
    ) -> PyResult<usize> {
        if name.as_deref() == Some(WORLD) {
            return Err(werr(
                "a body cannot be named `world`: the name stands for the static world".into(),
            ));
        }
        self.names.bodies.check_name(name.as_deref(), "body")?;
        let kind = match kind {
            "dynamic" => BodyKind::Dynamic,
            "kinematic" => BodyKind::Kinematic,
            "static" => BodyKind::Static,
            other => {
                return Err(werr(format!(
                    "kind must be \"dynamic\", \"kinematic\" or \"static\", got {other:?}"
                )))
            }
        };
        let mut builder = RigidBodyBuilder::new(kind)
            .gravity(gravity)
            .linear_damping(linear_damping)
            .angular_damping(angular_damping)
            .ccd(ccd);
        if mass.is_some() || inertia.is_some() {
            let m = mass.unwrap_or(1.0);
            let invalid = |e: stiction::MassPropertiesError| {
                world_error(stiction::BodyError::MassProperties(e))
            };
            let props = match inertia.filter(|i| !i.is_none()) {
                // The builder's default body: a solid ball of radius 0.5 m.
                None => MassProperties::from_principal(m, Vec3::splat(0.1 * m)),
                Some(i) => match numbers::<3>(i, "inertia", werr) {
                    Ok(moments) => MassProperties::from_principal(m, Vec3::from_array(moments)),
                    Err(_) => {
                        let rows: Vec<Vec<f64>> = i.extract().map_err(|_| {
                            PyTypeError::new_err(
                                "inertia must be 3 principal moments or a 3 x 3 tensor",
                            )
                        })?;
                        let tensor: Vec<[f64; 3]> = rows
                            .iter()
                            .filter_map(|r| <[f64; 3]>::try_from(r.as_slice()).ok())
                            .collect();
                        let [r0, r1, r2] = tensor[..] else {
                            return Err(werr(
                                "inertia must be 3 principal moments or a 3 x 3 tensor".into(),
                            ));
                        };
                        // Rows of a symmetric tensor are its columns.
                        let tensor = Mat3::from_cols_array_2d(&[r0, r1, r2]).transpose();
                        MassProperties::new(m, Vec3::ZERO, tensor)
                    }
                },
            }
            .map_err(invalid)?;
            builder = builder.mass_properties(props);
        }
        if let Some(p) = position.filter(|p| !p.is_none()) {
            builder = builder.position(vec3(p, "position", werr)?);
        }
        if let Some(q) = orientation.filter(|q| !q.is_none()) {
            builder = builder.orientation(quat(q, "orientation", werr)?);
        }
        if let Some(v) = velocity.filter(|v| !v.is_none()) {
            builder = builder.linear_velocity(vec3(v, "velocity", werr)?);
        }
        if let Some(w) = angular_velocity.filter(|w| !w.is_none()) {
            builder = builder.angular_velocity(vec3(w, "angular_velocity", werr)?);
        }
        let body = builder.build().map_err(world_error)?;
        let handle = self.world.add_body(body);
        Ok(self.names.bodies.push(handle, name))
    }

    /// Adds a collider to `body` (index or name; `None`: static world geometry, posed in
    /// the world frame); returns its index.
    #[pyo3(signature = (shape, body=None, *, radius=None, half_extents=None, half_height=None, normal=None, points=None, vertices=None, triangles=None, heights=None, scale=None, position=None, orientation=None, friction=None, restitution=None, restitution_threshold=None, sensor=false, groups=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn add_collider(
        &mut self,
        shape: &str,
        body: Option<&Bound<'_, PyAny>>,
        radius: Option<f64>,
        half_extents: Option<&Bound<'_, PyAny>>,
        half_height: Option<f64>,
        normal: Option<&Bound<'_, PyAny>>,
        points: Option<PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
        vertices: Option<PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
        triangles: Option<&Bound<'_, PyAny>>,
        heights: Option<PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
        scale: Option<&Bound<'_, PyAny>>,
        position: Option<&Bound<'_, PyAny>>,
        orientation: Option<&Bound<'_, PyAny>>,
        friction: Option<f64>,
        restitution: Option<f64>,
        restitution_threshold: Option<f64>,
        sensor: bool,
        groups: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<usize> {
        let body = self.other_body(body)?;
        let groups = groups
            .filter(|g| !g.is_none())
            .map(|g| groups_of(g, "groups"))
            .transpose()?;
        let given = [
            ("radius", radius.is_some()),
            ("half_extents", half_extents.is_some()),
            ("half_height", half_height.is_some()),
            ("normal", normal.is_some()),
            ("points", points.is_some()),
            ("vertices", vertices.is_some()),
            ("triangles", triangles.is_some()),
            ("heights", heights.is_some()),
            ("scale", scale.is_some()),
        ];
        let (takes, needs): (&[&str], &[&str]) = match shape {
            "sphere" | "ball" => (&["radius"], &["radius"]),
            "box" | "cuboid" => (&["half_extents"], &["half_extents"]),
            "capsule" | "cylinder" | "cone" => {
                (&["radius", "half_height"], &["radius", "half_height"])
            }
            "halfspace" | "plane" => (&["normal"], &[]),
            "convex_hull" => (&["points"], &["points"]),
            "trimesh" => (&["vertices", "triangles"], &["vertices", "triangles"]),
            "heightfield" => (&["heights", "scale"], &["heights"]),
            other => {
                return Err(werr(format!(
                    "unknown shape {other:?}: expected sphere, box, capsule, cylinder, cone, \
                     halfspace, convex_hull, trimesh or heightfield"
                )))
            }
        };
        for (arg, is_given) in given {
            if is_given && !takes.contains(&arg) {
                return Err(werr(format!(
                    "a {shape} takes {}, not {arg}=",
                    takes
                        .iter()
                        .map(|t| format!("{t}="))
                        .collect::<Vec<_>>()
                        .join(" and ")
                )));
            }
        }
        for arg in needs {
            if !given.iter().any(|(g, is)| g == arg && *is) {
                return Err(werr(format!("a {shape} needs {arg}=")));
            }
        }
        let r = radius.unwrap_or(0.0);
        let hh = half_height.unwrap_or(0.0);
        let builder = match shape {
            "sphere" | "ball" => ColliderBuilder::ball(r),
            "box" | "cuboid" => {
                let half =
                    half_extents.map_or(Ok(Vec3::ZERO), |h| vec3(h, "half_extents", werr))?;
                ColliderBuilder::cuboid(half)
            }
            "capsule" => ColliderBuilder::capsule(hh, r),
            "cylinder" => ColliderBuilder::cylinder(hh, r),
            "cone" => ColliderBuilder::cone(hh, r),
            "halfspace" | "plane" => {
                let n = normal.map_or(Ok(Vec3::Z), |n| vec3(n, "normal", werr))?;
                ColliderBuilder::halfspace(n)
            }
            "convex_hull" => {
                let array = points.as_ref().ok_or_else(|| werr("points".into()))?;
                let (_, data) = matrix_data(array, "points", &[None, Some(3)], werr)?;
                let pts: Vec<Vec3> = data
                    .chunks_exact(3)
                    .map(|c| Vec3::new(c[0], c[1], c[2]))
                    .collect();
                ColliderBuilder::convex_hull(&pts)
            }
            "trimesh" => {
                let array = vertices.as_ref().ok_or_else(|| werr("vertices".into()))?;
                let (_, data) = matrix_data(array, "vertices", &[None, Some(3)], werr)?;
                let verts: Vec<Vec3> = data
                    .chunks_exact(3)
                    .map(|c| Vec3::new(c[0], c[1], c[2]))
                    .collect();
                let tris: Vec<Vec<i64>> = triangles
                    .map(|t| t.extract())
                    .transpose()
                    .map_err(|_| {
                        PyTypeError::new_err("triangles must be an (M, 3) array of vertex indices")
                    })?
                    .unwrap_or_default();
                let mut indices = Vec::with_capacity(tris.len());
                for (k, t) in tris.iter().enumerate() {
                    let tri = <[i64; 3]>::try_from(t.as_slice()).map_err(|_| {
                        werr(format!(
                            "triangles[{k}] must have 3 vertex indices, got {}",
                            t.len()
                        ))
                    })?;
                    let mut out = [0u32; 3];
                    for (o, &i) in out.iter_mut().zip(&tri) {
                        *o = u32::try_from(i).map_err(|_| {
                            werr(format!("triangles[{k}]: vertex index {i} is out of range"))
                        })?;
                    }
                    indices.push(out);
                }
                ColliderBuilder::trimesh(verts, indices)
            }
            _ => {
                // heightfield
                let array = heights.as_ref().ok_or_else(|| werr("heights".into()))?;
                let (shape, data) = matrix_data(array, "heights", &[None, None], werr)?;
                let scale = scale.map_or(Ok(Vec3::ONE), |s| vec3(s, "scale", werr))?;
                ColliderBuilder::heightfield(shape[0], shape[1], &data, scale)
            }
        }
        .map_err(world_error)?;
        let mut builder = builder;
        if let Some(p) = position.filter(|p| !p.is_none()) {
            builder = builder.position(vec3(p, "position", werr)?);
        }
        if let Some(q) = orientation.filter(|q| !q.is_none()) {
            builder = builder.rotation(quat(q, "orientation", werr)?);
        }
        let mut material = stiction::Material::DEFAULT;
        if let Some(f) = friction {
            material.friction = f;
        }
        if let Some(e) = restitution {
            material.restitution = e;
        }
        material.restitution_threshold = restitution_threshold;
        builder = builder.material(material).sensor(sensor);
        if let Some(groups) = groups {
            builder = builder.groups(groups);
        }
        let handle = self
            .world
            .add_collider(builder, body)
            .map_err(world_error)?;
        Ok(self.colliders.push(handle, None))
    }

    /// A ball-and-socket joint at the world point `anchor`; returns the joint's index.
    #[pyo3(signature = (body_a, body_b=None, *, anchor, name=None, erp=None, cfm=None, break_force=None, break_torque=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn add_ball_joint(
        &mut self,
        body_a: &Bound<'_, PyAny>,
        body_b: Option<&Bound<'_, PyAny>>,
        anchor: &Bound<'_, PyAny>,
        name: Option<String>,
        erp: Option<f64>,
        cfm: Option<f64>,
        break_force: Option<f64>,
        break_torque: Option<f64>,
    ) -> PyResult<usize> {
        let (a, b) = (self.body(body_a)?, self.other_body(body_b)?);
        let (pa, pb) = self.poses(a, b)?;
        let anchor = vec3(anchor, "anchor", werr)?;
        let joint = BallJoint::at_world_point(anchor, &pa, &pb).map_err(world_error)?;
        let options = JointOptions::new(name, erp, cfm, break_force, break_torque);
        self.add_joint_kind(a, b, joint.into(), options)
    }

    /// A hinge about the world line through `anchor` along `axis`, with an optional angle
    /// `limit=(lower, upper)` (rad) and `motor=(target_velocity, max_torque)`.
    #[pyo3(signature = (body_a, body_b=None, *, anchor, axis, limit=None, motor=None, name=None, erp=None, cfm=None, break_force=None, break_torque=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn add_hinge_joint(
        &mut self,
        body_a: &Bound<'_, PyAny>,
        body_b: Option<&Bound<'_, PyAny>>,
        anchor: &Bound<'_, PyAny>,
        axis: &Bound<'_, PyAny>,
        limit: Option<&Bound<'_, PyAny>>,
        motor: Option<&Bound<'_, PyAny>>,
        name: Option<String>,
        erp: Option<f64>,
        cfm: Option<f64>,
        break_force: Option<f64>,
        break_torque: Option<f64>,
    ) -> PyResult<usize> {
        let (a, b) = (self.body(body_a)?, self.other_body(body_b)?);
        let (pa, pb) = self.poses(a, b)?;
        let (anchor, axis) = (vec3(anchor, "anchor", werr)?, vec3(axis, "axis", werr)?);
        let joint = HingeJoint::at_world_axis(anchor, axis, &pa, &pb)
            .map_err(world_error)?
            .with_control(control(limit, motor, ("limit", "motor"))?);
        let options = JointOptions::new(name, erp, cfm, break_force, break_torque);
        self.add_joint_kind(a, b, joint.into(), options)
    }

    /// A prismatic joint along the world direction `axis` (orientation locked), with an
    /// optional `limit` (m) and `motor=(target_velocity, max_force)`.
    #[pyo3(signature = (body_a, body_b=None, *, axis, limit=None, motor=None, name=None, erp=None, cfm=None, break_force=None, break_torque=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn add_slider_joint(
        &mut self,
        body_a: &Bound<'_, PyAny>,
        body_b: Option<&Bound<'_, PyAny>>,
        axis: &Bound<'_, PyAny>,
        limit: Option<&Bound<'_, PyAny>>,
        motor: Option<&Bound<'_, PyAny>>,
        name: Option<String>,
        erp: Option<f64>,
        cfm: Option<f64>,
        break_force: Option<f64>,
        break_torque: Option<f64>,
    ) -> PyResult<usize> {
        let (a, b) = (self.body(body_a)?, self.other_body(body_b)?);
        let (pa, pb) = self.poses(a, b)?;
        let axis = vec3(axis, "axis", werr)?;
        let joint = SliderJoint::along_world_axis(axis, &pa, &pb)
            .map_err(world_error)?
            .with_control(control(limit, motor, ("limit", "motor"))?);
        let options = JointOptions::new(name, erp, cfm, break_force, break_torque);
        self.add_joint_kind(a, b, joint.into(), options)
    }

    /// Welds `body_a` to `body_b` (or the world) where they are now.
    #[pyo3(signature = (body_a, body_b=None, *, name=None, erp=None, cfm=None, break_force=None, break_torque=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn add_fixed_joint(
        &mut self,
        body_a: &Bound<'_, PyAny>,
        body_b: Option<&Bound<'_, PyAny>>,
        name: Option<String>,
        erp: Option<f64>,
        cfm: Option<f64>,
        break_force: Option<f64>,
        break_torque: Option<f64>,
    ) -> PyResult<usize> {
        let (a, b) = (self.body(body_a)?, self.other_body(body_b)?);
        let (pa, pb) = self.poses(a, b)?;
        let joint = FixedJoint::at_current_poses(&pa, &pb);
        let options = JointOptions::new(name, erp, cfm, break_force, break_torque);
        self.add_joint_kind(a, b, joint.into(), options)
    }

    /// A rod between the world points `anchor_a` (on A) and `anchor_b` (on B or the
    /// world), keeping their current distance (or `distance`); `limit=(min, max)` makes it
    /// a range (a rope: `(0, length)`).
    #[pyo3(signature = (body_a, body_b=None, *, anchor_a, anchor_b, distance=None, limit=None, name=None, erp=None, cfm=None, break_force=None, break_torque=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn add_distance_joint(
        &mut self,
        body_a: &Bound<'_, PyAny>,
        body_b: Option<&Bound<'_, PyAny>>,
        anchor_a: &Bound<'_, PyAny>,
        anchor_b: &Bound<'_, PyAny>,
        distance: Option<f64>,
        limit: Option<&Bound<'_, PyAny>>,
        name: Option<String>,
        erp: Option<f64>,
        cfm: Option<f64>,
        break_force: Option<f64>,
        break_torque: Option<f64>,
    ) -> PyResult<usize> {
        let (a, b) = (self.body(body_a)?, self.other_body(body_b)?);
        let (pa, pb) = self.poses(a, b)?;
        let anchor_a = vec3(anchor_a, "anchor_a", werr)?;
        let anchor_b = vec3(anchor_b, "anchor_b", werr)?;
        let mut joint = DistanceJoint::between_world_points(anchor_a, anchor_b, &pa, &pb)
            .map_err(world_error)?;
        if let Some(d) = distance {
            joint.distance = d;
        }
        if let Some(l) = limit_of(limit, "limit")? {
            joint = joint.with_limit(l);
        }
        let options = JointOptions::new(name, erp, cfm, break_force, break_torque);
        self.add_joint_kind(a, b, joint.into(), options)
    }

    /// A universal joint at `anchor` with `axis_a` fixed in A and `axis_b` in B; limits and
    /// motors per axis (`limit`/`motor` for axis 0, `limit2`/`motor2` for axis 1).
    #[pyo3(signature = (body_a, body_b=None, *, anchor, axis_a, axis_b, limit=None, motor=None, limit2=None, motor2=None, name=None, erp=None, cfm=None, break_force=None, break_torque=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn add_universal_joint(
        &mut self,
        body_a: &Bound<'_, PyAny>,
        body_b: Option<&Bound<'_, PyAny>>,
        anchor: &Bound<'_, PyAny>,
        axis_a: &Bound<'_, PyAny>,
        axis_b: &Bound<'_, PyAny>,
        limit: Option<&Bound<'_, PyAny>>,
        motor: Option<&Bound<'_, PyAny>>,
        limit2: Option<&Bound<'_, PyAny>>,
        motor2: Option<&Bound<'_, PyAny>>,
        name: Option<String>,
        erp: Option<f64>,
        cfm: Option<f64>,
        break_force: Option<f64>,
        break_torque: Option<f64>,
    ) -> PyResult<usize> {
        let (a, b) = (self.body(body_a)?, self.other_body(body_b)?);
        let (pa, pb) = self.poses(a, b)?;
        let anchor = vec3(anchor, "anchor", werr)?;
        let axis_a = vec3(axis_a, "axis_a", werr)?;
        let axis_b = vec3(axis_b, "axis_b", werr)?;
        let joint = UniversalJoint::at_world_point(anchor, axis_a, axis_b, &pa, &pb)
            .map_err(world_error)?
            .with_control(0, control(limit, motor, ("limit", "motor"))?)
            .with_control(1, control(limit2, motor2, ("limit2", "motor2"))?);
        let options = JointOptions::new(name, erp, cfm, break_force, break_torque);
        self.add_joint_kind(a, b, joint.into(), options)
    }

    /// A hinge-2 (a steered, driven wheel) between `wheel` and `chassis` at `anchor`:
    /// `steering_limit`/`steering_motor` on the steering axis, `wheel_motor` on the wheel
    /// axis, `suspension=(stiffness, damping)` along the steering axis.
    #[pyo3(signature = (wheel, chassis=None, *, anchor, steering_axis, wheel_axis, steering_limit=None, steering_motor=None, wheel_motor=None, suspension=None, name=None, erp=None, cfm=None, break_force=None, break_torque=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn add_hinge2_joint(
        &mut self,
        wheel: &Bound<'_, PyAny>,
        chassis: Option<&Bound<'_, PyAny>>,
        anchor: &Bound<'_, PyAny>,
        steering_axis: &Bound<'_, PyAny>,
        wheel_axis: &Bound<'_, PyAny>,
        steering_limit: Option<&Bound<'_, PyAny>>,
        steering_motor: Option<&Bound<'_, PyAny>>,
        wheel_motor: Option<&Bound<'_, PyAny>>,
        suspension: Option<&Bound<'_, PyAny>>,
        name: Option<String>,
        erp: Option<f64>,
        cfm: Option<f64>,
        break_force: Option<f64>,
        break_torque: Option<f64>,
    ) -> PyResult<usize> {
        let (a, b) = (self.body(wheel)?, self.other_body(chassis)?);
        let (pa, pb) = self.poses(a, b)?;
        let anchor = vec3(anchor, "anchor", werr)?;
        let steering = vec3(steering_axis, "steering_axis", werr)?;
        let wheel_axis = vec3(wheel_axis, "wheel_axis", werr)?;
        let mut joint = Hinge2Joint::at_world_point(anchor, steering, wheel_axis, &pa, &pb)
            .map_err(world_error)?;
        joint.steering = control(
            steering_limit,
            steering_motor,
            ("steering_limit", "steering_motor"),
        )?;
        joint.wheel = control(None, wheel_motor, ("", "wheel_motor"))?;
        if let Some(s) = suspension.filter(|s| !s.is_none()) {
            let [k, c] = numbers::<2>(s, "suspension", werr)?;
            joint = joint.with_suspension(k, c).map_err(world_error)?;
        }
        let options = JointOptions::new(name, erp, cfm, break_force, break_torque);
        self.add_joint_kind(a, b, joint.into(), options)
    }

    /// Sets (or, with `target_velocity=None`, removes) the motor of a joint axis.
    #[pyo3(signature = (joint, target_velocity=None, max_force=None, *, axis=0))]
    fn set_motor(
        &mut self,
        joint: &Bound<'_, PyAny>,
        target_velocity: Option<f64>,
        max_force: Option<f64>,
        axis: usize,
    ) -> PyResult<()> {
        let handle = self.joint(joint)?;
        let motor = match target_velocity {
            None => None,
            Some(v) => Some(
                JointMotor::new(v, max_force.unwrap_or(f64::NAN))
                    .map_err(|e| world_error(stiction::WorldError::InvalidJoint(e)))?,
            ),
        };
        self.world
            .joint_mut(handle)
            .map_err(world_error)?
            .set_motor(axis, motor)
            .map_err(world_error)
    }

    /// Sets (or, with `lower=None`, removes) the limit of a joint axis.
    #[pyo3(signature = (joint, lower=None, upper=None, *, axis=0))]
    fn set_limit(
        &mut self,
        joint: &Bound<'_, PyAny>,
        lower: Option<f64>,
        upper: Option<f64>,
        axis: usize,
    ) -> PyResult<()> {
        let handle = self.joint(joint)?;
        let limit = match lower {
            None => None,
            Some(lo) => Some(
                JointLimit::new(lo, upper.unwrap_or(f64::NAN))
                    .map_err(|e| world_error(stiction::WorldError::InvalidJoint(e)))?,
            ),
        };
        self.world
            .joint_mut(handle)
            .map_err(world_error)?
            .set_limit(axis, limit)
            .map_err(world_error)
    }

    /// `(position, velocity)` of a joint's free coordinate `axis` (hinge angle in rad,
    /// slider position in m, ...).
    #[pyo3(signature = (joint, axis=0))]
    fn joint_axis(&self, joint: &Bound<'_, PyAny>, axis: usize) -> PyResult<(f64, f64)> {
        let handle = self.joint(joint)?;
        let s = self
            .world
            .joint_axis_state(handle, axis)
            .map_err(world_error)?;
        Ok((s.position, s.velocity))
    }

    /// Positions (hinge angles in rad, slider offsets in m, ...) of the given joints, each
    /// with one axis (default: every joint with one axis, in index order).
    #[pyo3(signature = (joints=None))]
    fn joint_positions<'py>(
        &self,
        py: Python<'py>,
        joints: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let states = self.single_axis_states(joints, "joint_positions")?;
        Ok(array1(py, states.iter().map(|s| s.position).collect()))
    }

    /// Rates (rad/s, m/s) of the joints `joint_positions` reads.
    #[pyo3(signature = (joints=None))]
    fn joint_velocities<'py>(
        &self,
        py: Python<'py>,
        joints: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let states = self.single_axis_states(joints, "joint_velocities")?;
        Ok(array1(py, states.iter().map(|s| s.velocity).collect()))
    }

    // ----- joint friction, damping and servos -----

    /// Sets the servo of a joint axis, keeping its friction and damping: a position servo
    /// (`stiffness > 0`) or a velocity servo (`stiffness = 0`, `damping > 0`, driving the
    /// rate to `target_velocity`). `max_force=None`: no force limit.
    #[pyo3(signature = (joint, target=0.0, *, stiffness=0.0, damping=0.0, max_force=None, target_velocity=0.0, axis=0))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn set_servo(
        &mut self,
        joint: &Bound<'_, PyAny>,
        target: f64,
        stiffness: f64,
        damping: f64,
        max_force: Option<f64>,
        target_velocity: f64,
        axis: i64,
    ) -> PyResult<()> {
        let handle = self.joint(joint)?;
        let axis = axis_index(axis)?;
        self.change_dynamics(handle, axis, |dynamics| {
            let servo = servo_of(target, stiffness, damping, max_force, target_velocity)?;
            Ok(dynamics.with_servo(servo))
        })
    }

    /// Removes the servo of a joint axis (if any), keeping its friction and damping.
    #[pyo3(signature = (joint, axis=0))]
    fn clear_servo(&mut self, joint: &Bound<'_, PyAny>, axis: i64) -> PyResult<()> {
        let handle = self.joint(joint)?;
        let axis = axis_index(axis)?;
        self.change_dynamics(handle, axis, |mut dynamics| {
            dynamics.servo = None;
            Ok(dynamics)
        })
    }

    /// Sets the Coulomb friction (N m or N) and viscous damping (N m s/rad or N s/m) of a
    /// joint axis; `None` keeps the current value, 0 removes it. The servo is kept.
    #[pyo3(signature = (joint, *, friction=None, damping=None, axis=0))]
    fn set_joint_dynamics(
        &mut self,
        joint: &Bound<'_, PyAny>,
        friction: Option<f64>,
        damping: Option<f64>,
        axis: i64,
    ) -> PyResult<()> {
        let handle = self.joint(joint)?;
        let axis = axis_index(axis)?;
        self.change_dynamics(handle, axis, |mut dynamics| {
            if let Some(friction) = friction {
                dynamics = dynamics.with_friction(friction)?;
            }
            if let Some(damping) = damping {
                dynamics = dynamics.with_damping(damping)?;
            }
            Ok(dynamics)
        })
    }

    /// `{"friction": T, "damping": c, "servo": {...} or None}` of a joint axis.
    #[pyo3(signature = (joint, axis=0))]
    fn joint_dynamics<'py>(
        &self,
        py: Python<'py>,
        joint: &Bound<'_, PyAny>,
        axis: i64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let handle = self.joint(joint)?;
        let axis = axis_index(axis)?;
        let j = self.world.joint(handle).map_err(world_error)?;
        let count = j.axis_count();
        let dynamics = j.axis_dynamics(axis).ok_or_else(|| {
            let e = stiction::WorldError::from(JointError::NoSuchAxis { axis, count });
            werr(format!("{}: {e}", self.joint_label(handle)))
        })?;
        dynamics_dict(py, dynamics)
    }

    /// Moves the targets of many servos (axis 0 of each joint) in one call: `targets[i]`
    /// for `joints[i]`, and `velocities[i]` (the target velocity) when given, else each
    /// servo keeps its own. Every joint must have a servo; everything is checked before
    /// any servo changes.
    #[pyo3(signature = (joints, targets, velocities=None))]
    fn set_servo_targets(
        &mut self,
        joints: &Bound<'_, PyAny>,
        targets: &Bound<'_, PyAny>,
        velocities: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let handles = self.joint_list(joints)?;
        let n = handles.len();
        let targets = vector_of(targets, "targets", n)?;
        let velocities = velocities
            .filter(|v| !v.is_none())
            .map(|v| vector_of(v, "velocities", n))
            .transpose()?;
        let mut changes = Vec::with_capacity(n);
        for (i, &h) in handles.iter().enumerate() {
            let at = |e: String| werr(format!("joints[{i}] ({}): {e}", self.joint_label(h)));
            let joint = self.world.joint(h).map_err(world_error)?;
            let Some(old) = joint.axis_dynamics(0).and_then(|d| d.servo) else {
                return Err(at("has no servo on axis 0 (set one with set_servo)".into()));
            };
            let mut new = old.with_target_position(targets[i]);
            if let Some(v) = &velocities {
                new = new.and_then(|s| s.with_target_velocity(v[i]));
            }
            let new = new.map_err(|e| at(e.to_string()))?;
            changes.push((h, old, new));
        }
        for (h, old, new) in changes {
            self.world
                .joint_mut(h)
                .map_err(world_error)?
                .set_servo(0, Some(new))
                .map_err(world_error)?;
            if new != old {
                self.wake_joint(h)?;
            }
        }
        Ok(())
    }

    /// The index of the body named `name` (or checks an index).
    fn body_index(&self, body: &Bound<'_, PyAny>) -> PyResult<usize> {
        self.names.bodies.resolve_index(body, "body")
    }

    /// The index of the joint named `name` (or checks an index).
    fn joint_index(&self, joint: &Bound<'_, PyAny>) -> PyResult<usize> {
        self.names.joints.resolve_index(joint, "joint")
    }

    /// Body names in index order (`None`: unnamed).
    #[getter]
    fn body_names(&self) -> Vec<Option<String>> {
        self.names.bodies.names.clone()
    }

    /// Joint names in index order (`None`: unnamed).
    #[getter]
    fn joint_names(&self) -> Vec<Option<String>> {
        self.names.joints.names.clone()
    }

    /// Number of bodies (rows of the state arrays).
    #[getter]
    fn body_count(&self) -> usize {
        self.names.bodies.len()
    }

    /// Number of joints.
    #[getter]
    fn joint_count(&self) -> usize {
        self.names.joints.len()
    }

    /// Number of colliders.
    #[getter]
    fn collider_count(&self) -> usize {
        self.colliders.len()
    }

    /// The largest distance between a joint's two anchor points over all joints, m: how
    /// far the joints have come apart (0 for perfectly held joints).
    fn max_joint_separation(&self) -> f64 {
        self.world.max_joint_anchor_separation()
    }

    /// Sets the world's default joint and contact softness (docs/dynamics.md): `erp` in
    /// [0, 1], `cfm` >= 0; `None` keeps the current value. Refused values leave it as it
    /// was.
    #[pyo3(signature = (*, erp=None, cfm=None))]
    fn set_softness(&mut self, erp: Option<f64>, cfm: Option<f64>) -> PyResult<()> {
        let mut settings = self.world.settings().clone();
        if let Some(erp) = erp {
            settings.softness.erp = erp;
        }
        if let Some(cfm) = cfm {
            settings.softness.cfm = cfm;
        }
        self.world.set_settings(settings).map_err(world_error)
    }

    /// Turns collider `collider` (its index, in the order colliders were added or loaded)
    /// off or on: a disabled collider makes no contacts (its body keeps its mass).
    fn set_collider_enabled(&mut self, collider: usize, enabled: bool) -> PyResult<()> {
        let handle = *self.colliders.handles.get(collider).ok_or_else(|| {
            werr(format!(
                "no collider {collider}: the world has {}",
                self.colliders.len()
            ))
        })?;
        self.world
            .collider_mut(handle)
            .map_err(world_error)?
            .set_enabled(enabled);
        Ok(())
    }

    /// Each body's kind: `"dynamic"`, `"kinematic"` or `"static"`.
    #[getter]
    fn body_kinds(&self) -> Vec<&'static str> {
        self.names
            .bodies
            .handles
            .iter()
            .map(|&h| match self.world.body(h).map(|b| b.kind()) {
                Ok(BodyKind::Dynamic) => "dynamic",
                Ok(BodyKind::Kinematic) => "kinematic",
                _ => "static",
            })
            .collect()
    }

    /// Each body's mass, kg.
    fn masses<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<f64>> {
        let data = self.per_body(|b| [b.mass()]);
        crate::convert::array1(py, data)
    }

    // ----- settings -----

    /// Simulated time, s.
    #[getter]
    fn time(&self) -> f64 {
        self.world.time()
    }

    /// Committed steps since the world was made (carried by snapshots).
    #[getter]
    fn step_count(&self) -> u64 {
        self.steps
    }

    /// The step size `step()` uses when given none, s (a scene's `world.step`).
    #[getter]
    fn get_timestep(&self) -> f64 {
        self.timestep
    }

    #[setter]
    fn set_timestep(&mut self, h: f64) -> PyResult<()> {
        self.timestep = check_timestep(h)?;
        Ok(())
    }

    /// Gravity, m/s^2, world frame.
    #[getter]
    fn get_gravity(&self) -> [f64; 3] {
        self.world.settings().gravity.to_array()
    }

    #[setter]
    fn set_gravity(&mut self, g: &Bound<'_, PyAny>) -> PyResult<()> {
        let g = vec3(g, "gravity", werr)?;
        self.world.set_gravity(g).map_err(world_error)
    }

    /// `"exact"` or `"iterative"`.
    #[getter]
    fn solver(&self) -> &'static str {
        match self.world.settings().solver {
            Solver::Exact(_) => "exact",
            Solver::Iterative(_) => "iterative",
        }
    }

    /// Chooses the stepper.
    #[pyo3(signature = (solver, *, iterations=20, omega=1.0, tolerance=0.0))]
    fn set_solver(
        &mut self,
        solver: &str,
        iterations: i64,
        omega: f64,
        tolerance: f64,
    ) -> PyResult<()> {
        let solver = solver_of(solver, iterations, omega, tolerance)?;
        self.world.set_solver(solver).map_err(world_error)
    }

    /// The scene's name, for a world read from a scene.
    #[getter]
    fn scene_name(&self) -> Option<String> {
        self.scene.as_ref().map(|(n, _)| n.clone())
    }

    /// The steps the scene asks for (its `steps` or `duration`), for a world read from a
    /// scene.
    #[getter]
    fn scene_steps(&self) -> Option<u64> {
        self.scene.as_ref().map(|(_, s)| *s)
    }

    // ----- stepping -----

    /// Advances the world by `n` steps of `h` seconds (default: `timestep`), with the GIL
    /// released. Returns the last step's statistics. A refused step raises `StepError`
    /// and changes nothing; the steps before it (with `n > 1`) are kept, and the error's
    /// `completed_steps` says how many.
    #[pyo3(signature = (h=None, n=1))]
    fn step(&mut self, py: Python<'_>, h: Option<f64>, n: i64) -> PyResult<PyStepStats> {
        let h = h.unwrap_or(self.timestep);
        let n = usize::try_from(n)
            .map_err(|_| StepError::new_err(format!("n must be >= 0, got {n}")))?;
        let world = &mut self.world;
        let (done, outcome) = py.detach(|| {
            for k in 0..n {
                if let Err(e) = world.step(h) {
                    return (k, Err(e));
                }
            }
            (n, Ok(()))
        });
        self.steps += done as u64;
        if let Err(e) = outcome {
            let err = self.step_error(&e, done, n);
            err.value(py).setattr("completed_steps", done)?;
            return Err(err);
        }
        Ok(PyStepStats::from_stats(self.world.step_stats()))
    }

    /// Statistics of the last step (committed or refused).
    #[getter]
    fn stats(&self) -> PyStepStats {
        PyStepStats::from_stats(self.world.step_stats())
    }

    // ----- state -----

    /// Centre-of-mass positions, (N, 3), m, one row per body index.
    fn positions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let data = self.per_body(|b| b.position().to_array());
        array2(py, self.names.bodies.len(), 3, data)
    }

    /// Orientations as unit quaternions in (w, x, y, z) order, (N, 4).
    fn orientations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let data = self.per_body(|b| wxyz(b.orientation()));
        array2(py, self.names.bodies.len(), 4, data)
    }

    /// Linear velocities of the centres of mass, (N, 3), m/s, world frame.
    fn linear_velocities<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let data = self.per_body(|b| b.linear_velocity().to_array());
        array2(py, self.names.bodies.len(), 3, data)
    }

    /// Angular velocities, (N, 3), rad/s, world frame.
    fn angular_velocities<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let data = self.per_body(|b| b.angular_velocity().to_array());
        array2(py, self.names.bodies.len(), 3, data)
    }

    /// Sets any of the four state arrays (same shapes as the getters). Every value is
    /// checked before any body changes: on error the world is unchanged. Bodies whose
    /// state changed are woken.
    #[pyo3(signature = (positions=None, orientations=None, linear_velocities=None, angular_velocities=None))]
    fn set_state(
        &mut self,
        positions: Option<PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
        orientations: Option<PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
        linear_velocities: Option<PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
        angular_velocities: Option<PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
    ) -> PyResult<()> {
        let pos = self.state_rows::<3>(positions.as_ref(), "positions")?;
        let ori = self.state_rows::<4>(orientations.as_ref(), "orientations")?;
        let lin = self.state_rows::<3>(linear_velocities.as_ref(), "linear_velocities")?;
        let ang = self.state_rows::<3>(angular_velocities.as_ref(), "angular_velocities")?;
        // Apply to a copy of each body, then commit all or nothing.
        let mut updated = Vec::with_capacity(self.names.bodies.len());
        for (i, &h) in self.names.bodies.handles.iter().enumerate() {
            let mut body = self.world.body(h).map_err(world_error)?.clone();
            let before = body.clone();
            let at = |e: stiction::BodyError| {
                werr(format!("body {}: {e}", self.names.bodies.describe(h)))
            };
            if let Some(p) = &pos {
                body.set_position(Vec3::from_array(p[i])).map_err(at)?;
            }
            if let Some(q) = &ori {
                let [w, x, y, z] = q[i];
                body.set_orientation(Quat::from_xyzw(x, y, z, w))
                    .map_err(at)?;
            }
            if let Some(v) = &lin {
                body.set_linear_velocity(Vec3::from_array(v[i]))
                    .map_err(at)?;
            }
            if let Some(w) = &ang {
                body.set_angular_velocity(Vec3::from_array(w[i]))
                    .map_err(at)?;
            }
            if body != before {
                updated.push((h, body));
            }
        }
        for (h, body) in updated {
            *self.world.body_mut(h).map_err(world_error)? = body;
            self.world.wake_up(h).map_err(world_error)?;
        }
        Ok(())
    }

    /// Adds a force (N, world frame) to a body for the next step, at `point` (world) or at
    /// its centre of mass.
    #[pyo3(signature = (body, force, point=None))]
    fn apply_force(
        &mut self,
        body: &Bound<'_, PyAny>,
        force: &Bound<'_, PyAny>,
        point: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let h = self.body(body)?;
        let force = vec3(force, "force", werr)?;
        let point = point
            .filter(|p| !p.is_none())
            .map(|p| vec3(p, "point", werr))
            .transpose()?;
        let b = self.world.body_mut(h).map_err(world_error)?;
        match point {
            Some(p) => b.add_force_at_point(force, p),
            None => b.add_force(force),
        }
        .map_err(world_error)?;
        self.world.wake_up(h).map_err(world_error)
    }

    /// Adds a torque (N m, world frame) to a body for the next step.
    fn apply_torque(&mut self, body: &Bound<'_, PyAny>, torque: &Bound<'_, PyAny>) -> PyResult<()> {
        let h = self.body(body)?;
        let torque = vec3(torque, "torque", werr)?;
        self.world
            .body_mut(h)
            .map_err(world_error)?
            .add_torque(torque)
            .map_err(world_error)?;
        self.world.wake_up(h).map_err(world_error)
    }

    /// The contact points of the last step with their forces.
    fn contacts(&self, py: Python<'_>) -> PyContacts {
        let contacts = self.world.contacts();
        let k = contacts.len();
        let (mut points, mut normals, mut forces, mut local) = (
            Vec::with_capacity(3 * k),
            Vec::with_capacity(3 * k),
            Vec::with_capacity(3 * k),
            Vec::with_capacity(3 * k),
        );
        let mut bodies = Vec::with_capacity(2 * k);
        let mut separations = Vec::with_capacity(k);
        for c in contacts {
            points.extend_from_slice(&c.geometry.point.to_array());
            normals.extend_from_slice(&c.geometry.normal.to_array());
            forces.extend_from_slice(&c.force.to_array());
            local.extend_from_slice(&c.force_local.to_array());
            for b in c.geometry.bodies {
                let index = b
                    .and_then(|h| self.names.bodies.index_of(h))
                    .map_or(-1, |i| i as i64);
                bodies.push(index);
            }
            separations.push(c.geometry.separation);
        }
        let bodies = numpy::ndarray::Array2::from_shape_vec((k, 2), bodies)
            .unwrap_or_else(|_| numpy::ndarray::Array2::zeros((0, 2)));
        PyContacts {
            points: array2(py, k, 3, points).unbind(),
            normals: array2(py, k, 3, normals).unbind(),
            forces: array2(py, k, 3, forces).unbind(),
            local_forces: array2(py, k, 3, local).unbind(),
            bodies: numpy::IntoPyArray::into_pyarray(bodies, py).unbind(),
            separations: crate::convert::array1(py, separations).unbind(),
            count: k,
        }
    }

    /// The joints' constraint forces in the last step: arrays with one row per joint, or,
    /// for `joint` (index or name), that joint's vectors.
    #[pyo3(signature = (joint=None))]
    fn joint_feedback(
        &self,
        py: Python<'_>,
        joint: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyJointFeedback> {
        let handles: Vec<_> = match joint.filter(|j| !j.is_none()) {
            Some(j) => vec![self.joint(j)?],
            None => self.names.joints.handles.clone(),
        };
        let mut parts: [Vec<f64>; 6] = Default::default();
        for &h in &handles {
            let f = self.world.joint(h).map_err(world_error)?.feedback();
            parts[0].extend_from_slice(&f.force_a.to_array());
            parts[1].extend_from_slice(&f.torque_a.to_array());
            parts[2].extend_from_slice(&f.force_b.to_array());
            parts[3].extend_from_slice(&f.torque_b.to_array());
            parts[4].extend_from_slice(&f.motor);
            parts[5].extend_from_slice(&f.limit);
        }
        let single = joint.is_some_and(|j| !j.is_none());
        let make = |data: Vec<f64>, cols: usize| -> Py<PyAny> {
            if single {
                crate::convert::array1(py, data).into_any().unbind()
            } else {
                array2(py, handles.len(), cols, data).into_any().unbind()
            }
        };
        let [fa, ta, fb, tb, m, l] = parts;
        Ok(PyJointFeedback {
            force_a: make(fa, 3),
            torque_a: make(ta, 3),
            force_b: make(fb, 3),
            torque_b: make(tb, 3),
            motor: make(m, 2),
            limit: make(l, 2),
        })
    }

    /// Turns continuous collision of `body` on or off (docs/ccd.md).
    fn set_ccd(&mut self, body: &Bound<'_, PyAny>, on: bool) -> PyResult<()> {
        let h = self.body(body)?;
        self.world
            .body_mut(h)
            .map_err(world_error)?
            .set_ccd_enabled(on);
        Ok(())
    }

    /// Whether continuous collision is on for `body`.
    fn ccd_enabled(&self, body: &Bound<'_, PyAny>) -> PyResult<bool> {
        let h = self.body(body)?;
        Ok(self.world.body(h).map_err(world_error)?.ccd_enabled())
    }

    /// Makes collider `collider` a sensor (or a solid collider again) from the next step.
    fn set_sensor(&mut self, collider: i64, on: bool) -> PyResult<()> {
        let h = self.collider_handle(collider, "collider")?;
        self.world
            .collider_mut(h)
            .map_err(world_error)?
            .set_sensor(on);
        Ok(())
    }

    /// Whether collider `collider` is a sensor.
    fn is_sensor(&self, collider: i64) -> PyResult<bool> {
        let h = self.collider_handle(collider, "collider")?;
        Ok(self.world.collider(h).map_err(world_error)?.is_sensor())
    }

    // ----- scene queries (docs/queries.md; the work is in query.rs) -----

    /// The first collider the ray from `origin` along `direction` (normalised) hits within
    /// `max_distance` m, or `None`.
    #[pyo3(signature = (origin, direction, max_distance=f64::INFINITY, *, exclude_body=None, exclude_collider=None, groups=None, exclude_sensors=false, exclude_kinds=None, predicate=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn cast_ray(
        &mut self,
        py: Python<'_>,
        origin: &Bound<'_, PyAny>,
        direction: &Bound<'_, PyAny>,
        max_distance: f64,
        exclude_body: Option<&Bound<'_, PyAny>>,
        exclude_collider: Option<i64>,
        groups: Option<&Bound<'_, PyAny>>,
        exclude_sensors: bool,
        exclude_kinds: Option<Vec<String>>,
        predicate: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<PyRayHit>> {
        let filter = FilterArgs {
            exclude_body,
            exclude_collider,
            groups,
            exclude_sensors,
            exclude_kinds,
            predicate,
        };
        self.query_cast_ray(py, origin, direction, max_distance, &filter)
    }

    /// Every collider the ray hits within `max_distance`, each once, by distance.
    #[pyo3(signature = (origin, direction, max_distance=f64::INFINITY, *, exclude_body=None, exclude_collider=None, groups=None, exclude_sensors=false, exclude_kinds=None, predicate=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn cast_ray_all(
        &mut self,
        py: Python<'_>,
        origin: &Bound<'_, PyAny>,
        direction: &Bound<'_, PyAny>,
        max_distance: f64,
        exclude_body: Option<&Bound<'_, PyAny>>,
        exclude_collider: Option<i64>,
        groups: Option<&Bound<'_, PyAny>>,
        exclude_sensors: bool,
        exclude_kinds: Option<Vec<String>>,
        predicate: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRayHits> {
        let filter = FilterArgs {
            exclude_body,
            exclude_collider,
            groups,
            exclude_sensors,
            exclude_kinds,
            predicate,
        };
        self.query_cast_ray_all(py, origin, direction, max_distance, &filter)
    }

    /// `cast_ray` for each row of `origins` and `directions` ((N, 3), or (3,) for one
    /// shared by every ray), in one call with the GIL released (unless `predicate` is
    /// given); the answers as arrays.
    #[pyo3(signature = (origins, directions, max_distance=f64::INFINITY, *, exclude_body=None, exclude_collider=None, groups=None, exclude_sensors=false, exclude_kinds=None, predicate=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn cast_rays(
        &mut self,
        py: Python<'_>,
        origins: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        directions: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        max_distance: f64,
        exclude_body: Option<&Bound<'_, PyAny>>,
        exclude_collider: Option<i64>,
        groups: Option<&Bound<'_, PyAny>>,
        exclude_sensors: bool,
        exclude_kinds: Option<Vec<String>>,
        predicate: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRayHits> {
        let filter = FilterArgs {
            exclude_body,
            exclude_collider,
            groups,
            exclude_sensors,
            exclude_kinds,
            predicate,
        };
        self.query_cast_rays(py, &origins, &directions, max_distance, &filter)
    }

    /// The first collider a shape (sized as for `add_collider`) at `position` and
    /// `orientation`, moving by `velocity` per unit time without turning, touches within
    /// `max_time`, or `None`.
    #[pyo3(signature = (shape, *, velocity, position=None, orientation=None, max_time=f64::INFINITY, radius=None, half_extents=None, half_height=None, points=None, exclude_body=None, exclude_collider=None, groups=None, exclude_sensors=false, exclude_kinds=None, predicate=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn cast_shape(
        &mut self,
        py: Python<'_>,
        shape: &str,
        velocity: &Bound<'_, PyAny>,
        position: Option<&Bound<'_, PyAny>>,
        orientation: Option<&Bound<'_, PyAny>>,
        max_time: f64,
        radius: Option<f64>,
        half_extents: Option<&Bound<'_, PyAny>>,
        half_height: Option<f64>,
        points: Option<PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
        exclude_body: Option<&Bound<'_, PyAny>>,
        exclude_collider: Option<i64>,
        groups: Option<&Bound<'_, PyAny>>,
        exclude_sensors: bool,
        exclude_kinds: Option<Vec<String>>,
        predicate: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<PyShapeHit>> {
        let sizes = ShapeArgs {
            radius,
            half_extents,
            half_height,
            points,
        };
        let filter = FilterArgs {
            exclude_body,
            exclude_collider,
            groups,
            exclude_sensors,
            exclude_kinds,
            predicate,
        };
        self.query_cast_shape(
            py,
            shape,
            &sizes,
            position,
            orientation,
            velocity,
            max_time,
            &filter,
        )
    }

    /// The indices of every collider a shape (sized as for `add_collider`) at `position`
    /// and `orientation` intersects or touches, sorted.
    #[pyo3(signature = (shape, *, position=None, orientation=None, radius=None, half_extents=None, half_height=None, points=None, exclude_body=None, exclude_collider=None, groups=None, exclude_sensors=false, exclude_kinds=None, predicate=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn overlap_shape<'py>(
        &mut self,
        py: Python<'py>,
        shape: &str,
        position: Option<&Bound<'_, PyAny>>,
        orientation: Option<&Bound<'_, PyAny>>,
        radius: Option<f64>,
        half_extents: Option<&Bound<'_, PyAny>>,
        half_height: Option<f64>,
        points: Option<PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
        exclude_body: Option<&Bound<'_, PyAny>>,
        exclude_collider: Option<i64>,
        groups: Option<&Bound<'_, PyAny>>,
        exclude_sensors: bool,
        exclude_kinds: Option<Vec<String>>,
        predicate: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let sizes = ShapeArgs {
            radius,
            half_extents,
            half_height,
            points,
        };
        let filter = FilterArgs {
            exclude_body,
            exclude_collider,
            groups,
            exclude_sensors,
            exclude_kinds,
            predicate,
        };
        self.query_overlap_shape(py, shape, &sizes, position, orientation, &filter)
    }

    /// The indices of every collider whose world bounding box overlaps the box from
    /// `mins` to `maxs`, sorted.
    #[pyo3(signature = (mins, maxs, *, exclude_body=None, exclude_collider=None, groups=None, exclude_sensors=false, exclude_kinds=None, predicate=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn overlap_aabb<'py>(
        &mut self,
        py: Python<'py>,
        mins: &Bound<'_, PyAny>,
        maxs: &Bound<'_, PyAny>,
        exclude_body: Option<&Bound<'_, PyAny>>,
        exclude_collider: Option<i64>,
        groups: Option<&Bound<'_, PyAny>>,
        exclude_sensors: bool,
        exclude_kinds: Option<Vec<String>>,
        predicate: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let filter = FilterArgs {
            exclude_body,
            exclude_collider,
            groups,
            exclude_sensors,
            exclude_kinds,
            predicate,
        };
        self.query_overlap_aabb(py, mins, maxs, &filter)
    }

    /// The collider nearest `point` and the nearest point on it, or `None`.
    #[pyo3(signature = (point, solid=true, *, exclude_body=None, exclude_collider=None, groups=None, exclude_sensors=false, exclude_kinds=None, predicate=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn project_point(
        &mut self,
        py: Python<'_>,
        point: &Bound<'_, PyAny>,
        solid: bool,
        exclude_body: Option<&Bound<'_, PyAny>>,
        exclude_collider: Option<i64>,
        groups: Option<&Bound<'_, PyAny>>,
        exclude_sensors: bool,
        exclude_kinds: Option<Vec<String>>,
        predicate: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<PyPointProjection>> {
        let filter = FilterArgs {
            exclude_body,
            exclude_collider,
            groups,
            exclude_sensors,
            exclude_kinds,
            predicate,
        };
        self.query_project_point(py, point, solid, &filter)
    }

    /// The indices of every collider containing `point` (boundary included), sorted.
    #[pyo3(signature = (point, *, exclude_body=None, exclude_collider=None, groups=None, exclude_sensors=false, exclude_kinds=None, predicate=None))]
    #[allow(clippy::too_many_arguments)] // The keyword arguments of the Python method.
    fn colliders_containing_point<'py>(
        &mut self,
        py: Python<'py>,
        point: &Bound<'_, PyAny>,
        exclude_body: Option<&Bound<'_, PyAny>>,
        exclude_collider: Option<i64>,
        groups: Option<&Bound<'_, PyAny>>,
        exclude_sensors: bool,
        exclude_kinds: Option<Vec<String>>,
        predicate: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let filter = FilterArgs {
            exclude_body,
            exclude_collider,
            groups,
            exclude_sensors,
            exclude_kinds,
            predicate,
        };
        self.query_colliders_containing_point(py, point, &filter)
    }

    // ----- sensors and contact events of the last step (docs/events.md; events.rs) -----

    /// The sensor overlaps that began (+1) or ended (-1) in the last step.
    fn sensor_events(&self, py: Python<'_>) -> PySensorEvents {
        self.read_sensor_events(py)
    }

    /// The indices of the colliders sensor `collider` overlaps, as of the last step.
    fn sensor_overlaps<'py>(
        &self,
        py: Python<'py>,
        collider: i64,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        self.read_sensor_overlaps(py, collider)
    }

    /// Every sensor overlap of the last step, (K, 2): (sensor, collider) indices.
    fn all_sensor_overlaps(&self, py: Python<'_>) -> Py<PyArray2<i64>> {
        self.read_all_sensor_overlaps(py)
    }

    /// The collider pairs that started (+1) or stopped (-1) touching in the last step.
    fn contact_events(&self, py: Python<'_>) -> PyContactEvents {
        self.read_contact_events(py)
    }

    /// Every collider pair touching in the last step, with its impulses.
    fn contact_pairs(&self, py: Python<'_>) -> PyContactPairs {
        self.read_contact_pairs(py)
    }

    // ----- captured problems -----

    /// Whether the exact stepper keeps a copy of each island's LCP (`captured_problems`).
    #[getter]
    fn get_capture_problems(&self) -> bool {
        self.world.captures_problems()
    }

    #[setter]
    fn set_capture_problems(&mut self, on: bool) {
        self.world.set_capture_problems(on);
    }

    /// The boxed LCPs the exact stepper assembled in the last step, one per island (empty
    /// unless `capture_problems` is on, and with the iterative stepper).
    fn captured_problems(&self) -> Vec<PyProblem> {
        self.world
            .captured_problems()
            .iter()
            .map(|p| PyProblem { problem: p.clone() })
            .collect()
    }

    /// The island index of each captured problem.
    fn captured_islands(&self) -> Vec<usize> {
        self.world.captured_islands().to_vec()
    }
}

/// Rebuilds a pickled world (`World.__reduce__`).
#[pyfunction(name = "_world_from_pickle")]
#[pyo3(signature = (data, body_names, joint_names, timestep, scene=None))]
pub fn world_from_pickle(
    data: &[u8],
    body_names: Vec<Option<String>>,
    joint_names: Vec<Option<String>>,
    timestep: f64,
    scene: Option<(String, u64)>,
) -> PyResult<PyWorld> {
    let mut world = PyWorld::restore(data, &body_names, &joint_names, timestep)?;
    world.scene = scene;
    Ok(world)
}
