//! # stiction-models
//!
//! Robot models for the [`stiction`] engine: URDF and a subset of MJCF (MuJoCo's XML),
//! with STL, OBJ and COLLADA collision meshes. A model becomes bodies, colliders and joints
//! in a [`World`], with name-to-handle maps of its links and joints:
//!
//! ```no_run
//! use stiction_models::{load, LoadOptions};
//!
//! let (mut world, model) = load("arm.urdf", &LoadOptions::default())?;
//! for warning in &model.warnings {
//!     eprintln!("{warning}"); // what the file holds that the engine does not simulate
//! }
//! let elbow = model.joints["elbow"];
//! world.step(1e-3)?;
//! println!("{:?}", world.joint(elbow)?.feedback());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Errors ([`ModelError`]) name the file, line and column of the element at fault. Nothing
//! in the file is dropped silently: every element or attribute read but not simulated is a
//! [`Warning`] with its location. docs/models.md maps every element to what the engine
//! makes of it.

#![warn(missing_docs)]

mod build;
mod desc;
mod error;
mod inertia;
mod mesh;
mod mjcf;
mod options;
mod urdf;
mod xml;

use std::collections::BTreeMap;
use std::path::Path;

use stiction::{BodyHandle, JointHandle, World};

pub use build::{contact_filter, model_contact_filter};
pub use desc::{ActuatorKind, JointType};
pub use error::{Location, ModelError, Warning, WarningKind};
pub use mesh::{read_mesh, MeshTriangles, MODEL_PATH_VARIABLE};
pub use options::{Base, LoadOptions, ServoGains, HOLD_FORCE};

/// The file formats read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The Unified Robot Description Format (`<robot>`).
    Urdf,
    /// MuJoCo's MJCF (`<mujoco>`), a subset (docs/models.md).
    Mjcf,
}

/// What a joint of the file became.
#[derive(Debug, Clone, PartialEq)]
pub struct JointInfo {
    /// The engine joint; `None` where none was needed (a floating joint, a weld between
    /// two static or merged links).
    pub handle: Option<JointHandle>,
    /// The joint's type.
    pub kind: JointType,
    /// Its range (rad or m), if limited.
    pub limit: Option<(f64, f64)>,
    /// The largest actuator force or torque the file gives (URDF `effort`): the bound of
    /// the holding motors of [`LoadOptions::hold_joints`], and the one to give your own.
    pub effort: Option<f64>,
    /// Coulomb friction force or torque (URDF `friction`, MJCF `frictionloss`): a bounded
    /// velocity row of the joint ([`stiction::AxisDynamics::friction`]).
    pub friction: f64,
    /// Viscous damping (URDF and MJCF `damping`), implicit
    /// ([`stiction::AxisDynamics::damping`]).
    pub damping: f64,
    /// The servo built from the file's actuators or [`LoadOptions::position_servos`].
    pub servo: Option<stiction::JointServo>,
}

/// An actuator of the file (MJCF `<actuator>`).
#[derive(Debug, Clone, PartialEq)]
pub struct ActuatorInfo {
    /// The joint it drives.
    pub joint: String,
    /// Position and velocity actuators are the joint's servo ([`JointInfo::servo`], gains
    /// times `gear^2`); a motor's force is yours to apply.
    pub kind: ActuatorKind,
    /// Transmission ratio: joint force = gear * actuator force.
    pub gear: f64,
    /// The control range, if limited (a position actuator's target, a motor's force).
    pub ctrl_range: Option<(f64, f64)>,
    /// The actuator force range, if limited (the servo's force bound is its larger end
    /// times the gear).
    pub force_range: Option<(f64, f64)>,
}

/// A model added to a world.
#[derive(Debug, Clone)]
pub struct LoadedModel {
    /// The model's name (`<robot name>`, `<mujoco model>`).
    pub name: String,
    /// The file format it came from.
    pub format: Format,
    /// Each link's body. Massless links welded to a moving parent share their parent's
    /// body (docs/models.md).
    pub links: BTreeMap<String, BodyHandle>,
    /// Each joint that became an engine joint.
    pub joints: BTreeMap<String, JointHandle>,
    /// Every joint of the file, with its limits, effort and friction.
    pub joint_info: BTreeMap<String, JointInfo>,
    /// The pairs of bodies kept from colliding (jointed links and
    /// [`LoadOptions::excluded_links`]); pass them to [`contact_filter`] to combine models.
    pub excluded_pairs: Vec<(BodyHandle, BodyHandle)>,
    /// MuJoCo's `(contype, conaffinity)` of each collider of the file (MJCF), empty when
    /// every geom has the default `(1, 1)`; the installed hook applies them
    /// ([`model_contact_filter`]). Colliders not listed (another model's, a scene's ground)
    /// touch everything.
    pub collision_masks: BTreeMap<stiction::ColliderHandle, (u32, u32)>,
    /// The file's actuators by name (MJCF; URDF has none).
    pub actuators: BTreeMap<String, ActuatorInfo>,
    /// The file's time step (MJCF `<option timestep>`), s.
    pub timestep: Option<f64>,
    /// The file's gravity (MJCF `<option gravity>`), m/s^2: [`load`] sets it on the new
    /// world; [`add_to_world`] leaves the world's.
    pub gravity: Option<stiction::math::Vec3>,
    /// What the file holds that is not simulated, one line each.
    pub warnings: Vec<Warning>,
}

/// Loads the model at `path` (URDF or MJCF, told apart by the root element) into a new
/// world with the default settings.
pub fn load(
    path: impl AsRef<Path>,
    options: &LoadOptions,
) -> Result<(World, LoadedModel), ModelError> {
    let mut world = World::new();
    let model = add_to_world(&mut world, path, options)?;
    if let Some(g) = model.gravity {
        world.set_gravity(g).map_err(|e| ModelError::Options {
            message: format!("the file's gravity: {e}"),
        })?;
    }
    Ok((world, model))
}

/// Adds the model at `path` to `world`. On error the world is unchanged.
pub fn add_to_world(
    world: &mut World,
    path: impl AsRef<Path>,
    options: &LoadOptions,
) -> Result<LoadedModel, ModelError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|source| ModelError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    add_str_to_world(world, &text, path, options)
}

/// Adds the model in `text` to `world` as if read from `path` (which names it in messages
/// and anchors relative mesh paths). On error the world is unchanged.
pub fn add_str_to_world(
    world: &mut World,
    text: &str,
    path: &Path,
    options: &LoadOptions,
) -> Result<LoadedModel, ModelError> {
    let doc = xml::parse_document(path, text)?;
    let mut src = xml::Source::new(path, &doc);
    let root = doc.root_element();
    let model_dir = path.parent().unwrap_or(Path::new("."));
    let search = mesh::search_path(&options.search_path);
    let paths = urdf::MeshPaths {
        model_dir,
        search: &search,
    };
    let (format, desc) = match root.tag_name().name() {
        "robot" => (Format::Urdf, urdf::read(&mut src, root, &paths)?),
        "mujoco" => (Format::Mjcf, mjcf::read(&mut src, root, &paths)?),
        other => {
            return Err(ModelError::UnknownFormat {
                at: src.at(root),
                root: other.to_string(),
            })
        }
    };
    let warnings = src.finish();
    // Build into a copy so that a refusal half-way leaves the caller's world untouched.
    let mut scratch = world.clone();
    let model = build::build(&mut scratch, desc, format, options, warnings)?;
    *world = scratch;
    Ok(model)
}
