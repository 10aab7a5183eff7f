//! The format-neutral model both readers produce and the builder turns into engine bodies,
//! colliders and joints: a tree of links, each with its frame relative to its parent at the
//! zero configuration, its mass properties, its collision geometry and the joint that moves it.

use stiction::math::Vec3;
use stiction::{MassProperties, Pose};

use crate::error::Location;

/// A whole model.
pub(crate) struct ModelDesc {
    /// The model's name (`<robot name>`, `<mujoco model>`).
    pub name: String,
    /// Links in an order where every parent comes before its children.
    pub links: Vec<LinkDesc>,
    /// Geometry fixed in the world (MJCF `<worldbody>` geoms), in the model frame.
    pub world_geoms: Vec<GeomDesc>,
    /// Actuators (MJCF `<actuator>`), in file order.
    pub actuators: Vec<ActuatorDesc>,
    /// MJCF `<option timestep>`, s.
    pub timestep: Option<f64>,
    /// MJCF `<option gravity>`, m/s^2.
    pub gravity: Option<Vec3>,
}

/// What an actuator does to its joint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ActuatorKind {
    /// MJCF `<position>`: a position servo of stiffness `kp` (and damping `kv`).
    Position {
        /// Stiffness, N m/rad or N/m, on the actuator's length.
        kp: f64,
        /// Damping, N m s/rad or N s/m, on the actuator's length.
        kv: f64,
    },
    /// MJCF `<velocity>`: a velocity servo of gain `kv`.
    Velocity {
        /// Gain, N m s/rad or N s/m, on the actuator's length.
        kv: f64,
    },
    /// MJCF `<motor>`: a force or torque the controller sets directly.
    Motor,
}

/// One actuator on one joint.
pub(crate) struct ActuatorDesc {
    pub name: String,
    pub at: Location,
    pub joint: String,
    pub kind: ActuatorKind,
    /// The transmission ratio: joint force = gear * actuator force, actuator length =
    /// gear * joint coordinate.
    pub gear: f64,
    /// The range of the control signal, if limited.
    pub ctrl_range: Option<(f64, f64)>,
    /// The range of the actuator force, if limited.
    pub force_range: Option<(f64, f64)>,
}

/// One rigid link.
pub(crate) struct LinkDesc {
    pub name: String,
    pub at: Location,
    /// Index of the parent link; `None` for a root (attached to the world or free).
    pub parent: Option<usize>,
    /// The link frame in its parent's link frame (a root's: in the model frame) at the zero
    /// configuration.
    pub frame: Pose,
    /// How the link moves relative to its parent; `None` for a root the load options place.
    pub joint: Option<JointDesc>,
    /// Mass properties in the link frame (the centre of mass may be off its origin);
    /// `None`: a massless link (URDF without `<inertial>`).
    pub mass: Option<MassProperties>,
    /// Collision geometry in the link frame.
    pub geoms: Vec<GeomDesc>,
}

/// The joint types the engine simulates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointType {
    /// Welded to the parent.
    Fixed,
    /// One rotation (URDF revolute and continuous, MJCF hinge).
    Hinge,
    /// One translation (URDF prismatic, MJCF slide).
    Slider,
    /// Three rotations about a point (MJCF ball).
    Ball,
    /// No joint: the link moves freely (URDF floating, MJCF free).
    Free,
}

/// The joint that moves a link relative to its parent.
pub(crate) struct JointDesc {
    pub name: String,
    pub at: Location,
    pub kind: JointType,
    /// The point the joint turns about, in the child link frame (m).
    pub anchor: Vec3,
    /// Unit axis in the child link frame (hinge, slider).
    pub axis: Vec3,
    /// Range (rad or m).
    pub limit: Option<(f64, f64)>,
    /// Largest actuator force or torque the file gives (URDF `effort`), N or N m.
    pub effort: Option<f64>,
    /// Coulomb friction force or torque (URDF `friction`, MJCF `frictionloss`).
    pub friction: f64,
    /// Viscous damping (URDF and MJCF `damping`), N s/m or N m s/rad.
    pub damping: f64,
}

/// One collision shape.
pub(crate) struct GeomDesc {
    pub at: Location,
    pub shape: Shape,
    /// Pose in the link frame.
    pub pose: Pose,
    /// Coulomb friction coefficient, if the file gives one.
    pub friction: Option<f64>,
    /// MuJoCo's `(contype, conaffinity)`: two geoms collide when either's type shares a bit
    /// with the other's affinity. `None` (URDF): collides with everything.
    pub masks: Option<(u32, u32)>,
}

/// Collision shapes, in the geom frame.
pub(crate) enum Shape {
    /// Half extents, m.
    Box(Vec3),
    /// Radius.
    Sphere(f64),
    /// Along z: radius, half height.
    Cylinder(f64, f64),
    /// Along z: radius, half the distance between the cap centres.
    Capsule(f64, f64),
    /// The half-space z <= 0 (static only).
    Plane,
    /// A triangle mesh (already scaled) from the file `path`.
    Mesh {
        path: std::path::PathBuf,
        vertices: Vec<Vec3>,
        triangles: Vec<[u32; 3]>,
    },
}
