//! The scene file schema: plain serde data, the same for TOML and JSON.
//!
//! Every struct refuses unknown fields, so a misspelt key is reported with its line and
//! column instead of being ignored. Physical rules (positive mass, unit-able axes, known
//! body names) are checked afterwards by [`crate::scene::validate`], which names the field
//! path. docs/scene-format.md documents every field with its unit and default.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A 3-vector in a scene file: `[x, y, z]`.
pub type Vector = [f64; 3];

/// A whole scene file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    /// Short name, used for the default output folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// One or two sentences on what the scene shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Simulated time to run, s (exclusive with `steps`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    /// Number of steps to run (exclusive with `duration`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<u64>,
    /// Gravity, step size, solver and the other world settings.
    #[serde(default)]
    pub world: WorldDesc,
    /// Named surface materials that shapes refer to.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub materials: BTreeMap<String, MaterialDesc>,
    /// The bodies, in order.
    #[serde(default)]
    pub bodies: Vec<BodyDesc>,
    /// Robot models (URDF, MJCF) loaded beside the bodies, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ModelDesc>,
    /// The joints, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joints: Vec<JointDesc>,
    /// Sensors recorded by `stiction run`, one CSV file each, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sensors: Vec<SensorDesc>,
    /// What `stiction run` writes.
    #[serde(default)]
    pub record: RecordDesc,
    /// Camera and frames of `stiction render`.
    #[serde(default)]
    pub render: RenderDesc,
}

/// World settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WorldDesc {
    /// m/s^2, world frame; default: the first model's file gravity (MJCF `<option>`), else
    /// [`DEFAULT_GRAVITY`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gravity: Option<Vector>,
    /// Step size h, s; default: the first model's file time step (MJCF `<option>`), else
    /// [`DEFAULT_STEP`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<f64>,
    /// The stepper and its parameters.
    pub solver: SolverDesc,
    /// Error reduction parameter of every row, in `[0, 1]`; default 0.2.
    pub erp: f64,
    /// Constraint force mixing of every row, `>= 0`; default `1e-5`.
    pub cfm: f64,
    /// Default gyroscopic mode of the bodies; default `implicit`.
    pub gyroscopic: GyroscopicDesc,
    /// Position-level projection of joint errors after each step; default true.
    pub post_stabilization: bool,
    /// Collision detection between shapes; default true.
    pub contacts: bool,
    /// Smallest approach speed, m/s, at which contacts bounce (`restitution` acts),
    /// finite and `>= 0`; default 1 (`stiction::ContactSettings::restitution_threshold`).
    /// A material may set a smaller one for its own contacts.
    pub restitution_threshold: f64,
    /// Put resting bodies to sleep; default false.
    pub sleeping: bool,
}

/// The gravity of a scene whose `[world]` and models give none, m/s^2.
pub const DEFAULT_GRAVITY: Vector = [0.0, 0.0, -9.81];
/// The step of a scene whose `[world]` and models give none, s.
pub const DEFAULT_STEP: f64 = 1.0 / 60.0;

impl Default for WorldDesc {
    fn default() -> Self {
        Self {
            gravity: None,
            step: None,
            solver: SolverDesc::default(),
            erp: 0.2,
            cfm: 1e-5,
            gyroscopic: GyroscopicDesc::Implicit,
            post_stabilization: true,
            contacts: true,
            restitution_threshold: stiction::ContactSettings::default().restitution_threshold,
            sleeping: false,
        }
    }
}

/// Which stepper and how it iterates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SolverDesc {
    /// `exact` (Dantzig) or `iterative` (projected Gauss-Seidel); default `exact`.
    #[serde(rename = "type")]
    pub kind: SolverKind,
    /// Gauss-Seidel sweeps per step (`iterative`), `>= 1`; default 20.
    pub iterations: u64,
    /// SOR relaxation factor (`iterative`), in `(0, 2)`; default 1.
    pub omega: f64,
    /// Early-stop tolerance of the sweeps (`iterative`), `>= 0`; default 0 (never stop early).
    pub tolerance: f64,
    /// Start each step from the last step's forces (`iterative`); default true.
    pub warm_start: bool,
    /// Solve islands of bilateral joint rows only by one sparse factorisation when cheaper
    /// than the sweeps (`iterative`; `IterativeSettings::direct_bilateral`); default true.
    pub direct_bilateral: bool,
    /// How touching contacts' impacts are resolved (`exact`): `simultaneous` (default) or
    /// `sequential` (pairwise, as a compression wave: a Newton's cradle of touching balls).
    pub impacts: ImpactsDesc,
}

/// `world.solver.impacts`: the engine's `ImpactModel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImpactsDesc {
    /// One simultaneous impact problem per island.
    #[default]
    Simultaneous,
    /// Pairwise impacts, fastest approach first.
    Sequential,
}

impl Default for SolverDesc {
    fn default() -> Self {
        Self {
            kind: SolverKind::Exact,
            iterations: 20,
            omega: 1.0,
            tolerance: 0.0,
            warm_start: true,
            direct_bilateral: true,
            impacts: ImpactsDesc::Simultaneous,
        }
    }
}

/// The two steppers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverKind {
    /// Dantzig pivoting per island.
    #[default]
    Exact,
    /// Projected Gauss-Seidel sweeps.
    Iterative,
}

/// The engine's gyroscopic modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GyroscopicDesc {
    /// Drop `w x I w`.
    None,
    /// ODE's explicit term.
    Explicit,
    /// Linearised implicit step (the engine's default).
    #[default]
    Implicit,
    /// Implicit midpoint: conserves |L| and energy.
    Conserving,
}

/// A surface material.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MaterialDesc {
    /// Coulomb friction coefficient, `>= 0`; default 0.5.
    pub friction: f64,
    /// Coefficient of restitution, in `[0, 1]`; default 0.
    pub restitution: f64,
    /// Smallest approach speed, m/s, at which this material's contacts bounce, finite and
    /// `>= 0`; default the world's `restitution_threshold`. Where two materials that set
    /// one meet, the smaller applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restitution_threshold: Option<f64>,
}

impl Default for MaterialDesc {
    fn default() -> Self {
        Self {
            friction: 0.5,
            restitution: 0.0,
            restitution_threshold: None,
        }
    }
}

/// How a body takes part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BodyKindDesc {
    /// Moved by forces and constraints.
    #[default]
    Dynamic,
    /// Moved only by its given velocity.
    Kinematic,
    /// Never moves.
    Static,
}

/// A rotation: a unit quaternion `[w, x, y, z]`, or an axis and an angle in degrees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisAngle {
    /// Rotation axis (any non-zero length).
    pub axis: Vector,
    /// Angle, degrees, right-handed about `axis`.
    pub degrees: f64,
}

/// A body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyDesc {
    /// Unique name; joints refer to it.
    pub name: String,
    /// `dynamic` (default), `kinematic` or `static`.
    #[serde(default)]
    pub kind: BodyKindDesc,
    /// World position of the body frame's origin, m; default `[0, 0, 0]`.
    #[serde(default)]
    pub position: Vector,
    /// Orientation as a quaternion `[w, x, y, z]` (normalised on load).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<[f64; 4]>,
    /// Orientation as an axis and angle (exclusive with `orientation`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis_angle: Option<AxisAngle>,
    /// Velocity of the centre of mass, m/s, world frame.
    #[serde(default)]
    pub linear_velocity: Vector,
    /// Angular velocity, rad/s, world frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angular_velocity: Option<Vector>,
    /// Angular velocity, rad/s, body frame (exclusive with `angular_velocity`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angular_velocity_body: Option<Vector>,
    /// Total mass, kg (exclusive with `density`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mass: Option<f64>,
    /// Density of every shape, kg/m^3 (exclusive with `mass`); default 1000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub density: Option<f64>,
    /// Principal moments of inertia about the centre of mass, kg m^2, body axes: for a
    /// body without shapes (needs `mass`), or to override the shapes' inertia.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inertia: Option<Vector>,
    /// Shapes fixed in the body frame.
    #[serde(default)]
    pub shapes: Vec<ShapeDesc>,
    /// Whether gravity acts on the body; default true.
    #[serde(default = "yes")]
    pub gravity: bool,
    /// Linear damping, 1/s, `>= 0`; default 0.
    #[serde(default)]
    pub linear_damping: f64,
    /// Angular damping, 1/s, `>= 0`; default 0.
    #[serde(default)]
    pub angular_damping: f64,
    /// This body's gyroscopic mode; default the world's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gyroscopic: Option<GyroscopicDesc>,
    /// Display colour `[r, g, b]` in `[0, 1]`; default from a palette.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<Vector>,
    /// Continuous collision (`RigidBodyBuilder::ccd`): the body's colliders sweep their
    /// motion over each step so that a fast body cannot pass through a thin one (dynamic
    /// and kinematic bodies); default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ccd: bool,
}

fn yes() -> bool {
    true
}

/// Shape types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeKind {
    /// A box: `half_extents`.
    #[default]
    Box,
    /// A sphere: `radius`.
    Sphere,
    /// A capsule along the shape's z axis: `radius`, `half_height`.
    Capsule,
    /// A cylinder along the shape's z axis: `radius`, `half_height`.
    Cylinder,
    /// The half-space below a plane through the shape's origin with the shape's z axis as
    /// outward normal (static bodies only).
    Plane,
    /// The convex hull of `points`, or of the vertices of the mesh `file`.
    Convex,
    /// The triangles of the mesh `file` (static bodies only).
    Mesh,
    /// A grid of `heights` over a rectangle of `size` in the shape's x-y plane (static
    /// bodies only).
    Heightfield,
}

/// The scale of a mesh file's vertices: one factor, or one per axis.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ScaleDesc {
    /// The same factor on every axis.
    Uniform(f64),
    /// Factors along x, y and z.
    Axes(Vector),
}

impl ScaleDesc {
    /// The factors along x, y and z.
    pub fn axes(self) -> Vector {
        match self {
            ScaleDesc::Uniform(s) => [s; 3],
            ScaleDesc::Axes(v) => v,
        }
    }
}

/// One shape of a body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeDesc {
    /// `box`, `sphere`, `capsule`, `cylinder`, `plane`, `convex`, `mesh` or `heightfield`.
    #[serde(rename = "type")]
    pub kind: ShapeKind,
    /// Box half extents, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_extents: Option<Vector>,
    /// Sphere, capsule or cylinder radius, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// Half the axis length of a cylinder, or half the distance between a capsule's cap
    /// centres, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_height: Option<f64>,
    /// Points whose convex hull is the shape (`convex`), m, shape frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<Vec<Vector>>,
    /// A mesh file (STL, OBJ or COLLADA) relative to the scene file (`convex`: its hull;
    /// `mesh`: its triangles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Scale of the mesh file's vertices: one factor or `[x, y, z]`; default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<ScaleDesc>,
    /// Heights of a heightfield, m: `heights[i][j]` at row `i` (along x) and column `j`
    /// (along y), at least 2 x 2, every row as long.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heights: Option<Vec<Vec<f64>>>,
    /// Extent of a heightfield along x and y, m, centred on the shape origin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<[f64; 2]>,
    /// Position in the body frame, m; default `[0, 0, 0]`.
    #[serde(default)]
    pub offset: Vector,
    /// Orientation in the body frame, quaternion `[w, x, y, z]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<[f64; 4]>,
    /// Orientation in the body frame as an axis and angle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis_angle: Option<AxisAngle>,
    /// Name of a material in `[materials]`; default friction 0.5, restitution 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<String>,
    /// Whether the shape collides; default true.
    #[serde(default = "yes")]
    pub collide: bool,
    /// A sensor (`ColliderBuilder::sensor`): it reports which colliders overlap it and
    /// exerts no force; it adds no mass to its body. Default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sensor: bool,
    /// A name, unique among the body's shapes, by which an overlap sensor may name it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// How a model's root link is attached (`models[i].base`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelBaseDesc {
    /// The root link is a static body.
    Fixed,
    /// The root link is a free dynamic body.
    Floating,
}

/// How far above z = 0 `rest_on_ground` puts a model's lowest collider point, m.
pub const REST_CLEARANCE: f64 = 1e-3;

/// A robot model (URDF or MJCF) loaded into the scene by `stiction-models`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelDesc {
    /// The model file (`.urdf`, or `.xml`: URDF or MJCF), relative to the scene file.
    pub file: String,
    /// Put before every link and joint name of the model (`left/`); default none. Two
    /// copies of one model need different prefixes, since body names are unique.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prefix: String,
    /// Where the model's frame goes in the world, m; default `[0, 0, 0]`.
    #[serde(default)]
    pub position: Vector,
    /// The model frame's orientation as a quaternion `[w, x, y, z]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<[f64; 4]>,
    /// The model frame's orientation as an axis and angle (exclusive with `orientation`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis_angle: Option<AxisAngle>,
    /// Initial joint values by the file's joint names, rad or m; default all 0.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub joints: BTreeMap<String, f64>,
    /// `fixed` or `floating` root link; default: URDF roots fixed, MJCF `free` joints float.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<ModelBaseDesc>,
    /// Hold every joint still with a velocity motor bounded by its effort; default false.
    #[serde(default)]
    pub hold: bool,
    /// `[stiffness, damping]` of a position servo on every hinge and slider the file gives
    /// no actuator, holding its initial value (`LoadOptions::position_servos`); default none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub servo: Option<[f64; 2]>,
    /// Move the model up or down so that its lowest collider point is
    /// [`REST_CLEARANCE`] above the ground plane z = 0; default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rest_on_ground: bool,
    /// Directories searched for meshes, relative to the scene file, before those of
    /// `STICTION_MODEL_PATH`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub model_path: Vec<String>,
}

/// Joint types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JointKindDesc {
    /// Ball and socket: `anchor`.
    #[default]
    Ball,
    /// Hinge: `anchor`, `axis`.
    Hinge,
    /// Slider (prismatic): `axis`.
    Slider,
    /// Fixed (weld): `anchor`.
    Fixed,
    /// Universal: `anchor`, `axis` (on A), `axis2` (on B).
    Universal,
    /// Hinge-2 (a car wheel, body A the wheel, B the chassis): `anchor`, `axis` (steering,
    /// fixed in B), `axis2` (wheel axle, fixed in A).
    Hinge2,
    /// Distance: `anchor` on A, `anchor_b` on B, optional `length`.
    Distance,
}

/// A joint limit: bounds on the joint's angle (rad) or position (m).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitDesc {
    /// Lower bound, rad or m.
    pub lower: f64,
    /// Upper bound, rad or m, `>= lower`.
    pub upper: f64,
}

/// A joint motor: drives the joint's rate toward `velocity` with at most `max_force`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotorDesc {
    /// Target rate, rad/s or m/s.
    pub velocity: f64,
    /// Largest force or torque the motor may apply, N or N m, `>= 0`.
    pub max_force: f64,
}

/// A spring: stiffness and damping, both finite and `>= 0`, not both zero.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpringDesc {
    /// N/m.
    pub stiffness: f64,
    /// N s/m.
    pub damping: f64,
}

/// A joint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointDesc {
    /// Optional name, used in the joint force output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The joint type.
    #[serde(rename = "type")]
    pub kind: JointKindDesc,
    /// First body's name.
    pub body_a: String,
    /// Second body's name, or `world` (the default) for the static world.
    #[serde(default = "world_name")]
    pub body_b: String,
    /// World point of the joint in the initial configuration, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<Vector>,
    /// Second world point (distance joints: the anchor on B), m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor_b: Option<Vector>,
    /// Joint axis, world frame (any non-zero length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<Vector>,
    /// Second axis (universal, hinge-2), world frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis2: Option<Vector>,
    /// Rest length of a distance joint, m; default the initial distance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<f64>,
    /// Limit on the joint's first coordinate (hinge angle, slider position, universal first
    /// angle, hinge-2 steering angle, distance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<LimitDesc>,
    /// Motor on the joint's first coordinate (hinge, slider, universal, hinge-2 steering).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub motor: Option<MotorDesc>,
    /// Limit on the second coordinate (universal second angle, hinge-2 wheel angle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits2: Option<LimitDesc>,
    /// Motor on the second coordinate (universal second angle, hinge-2 wheel: the drive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub motor2: Option<MotorDesc>,
    /// Hinge-2 suspension spring along the steering axis; default rigid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspension: Option<SpringDesc>,
    /// This joint's ERP; default the world's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub erp: Option<f64>,
    /// This joint's CFM; default the world's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cfm: Option<f64>,
    /// Post-stabilise this joint; default true.
    #[serde(default = "yes")]
    pub post_stabilize: bool,
    /// Whether the two joined bodies may still collide with each other; default false.
    #[serde(default)]
    pub collide_connected: bool,
}

/// The name that stands for the static world in `body_b`.
pub const WORLD: &str = "world";

fn world_name() -> String {
    WORLD.to_string()
}

/// Sensor types (`sensors[i].type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SensorKind {
    /// A range finder or lidar: the distance along each of its beams to the first
    /// collider (`World::cast_rays`).
    #[default]
    Range,
    /// The contacts of one body: touching pairs, impulses, net force, began and ended
    /// pairs (`World::contact_pairs`, `contact_force`, `contact_events`).
    Contact,
    /// The constraint force and torque of one joint on its two bodies
    /// (`Joint::feedback`).
    ForceTorque,
    /// A sensor shape (`sensor = true`): its current overlaps and the overlaps that began
    /// and ended (`World::sensor_overlaps`, `sensor_events`).
    Overlap,
}

/// Which shape of a body: its index in the body's `shapes`, or its `name`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, expecting = "a shape index (0, 1, ...) or a shape name")]
pub enum ShapeRef {
    /// Index into the body's `shapes`, from 0.
    Index(u64),
    /// The shape's `name`.
    Name(String),
}

/// What a range sensor's CSV file holds for a beam that hits nothing within `max_range`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoHitDesc {
    /// An empty field.
    #[default]
    Empty,
    /// `max_range`.
    MaxRange,
}

/// A sensor: what it measures is recorded into `<name>.csv` in the run directory. The
/// fields each type takes are checked by [`crate::scene::sensors`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SensorDesc {
    /// Unique name; the CSV file is `<name>.csv`. Default `sensor<i>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `range`, `contact`, `force_torque` or `overlap`.
    #[serde(rename = "type")]
    pub kind: SensorKind,
    /// Record every this many steps (and always the last), `>= 1`; default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<u64>,
    /// The body carrying the sensor (range: optional, default the static world; contact
    /// and overlap: required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// The joint measured (force_torque).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joint: Option<String>,
    /// The sensor shape of `body` (overlap): index or name; default its only sensor shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<ShapeRef>,
    /// Where the beams start (range), m, in the body's frame (the world's without `body`);
    /// default `[0, 0, 0]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<Vector>,
    /// The sensor frame's orientation (range), quaternion `[w, x, y, z]`, in the body's
    /// frame: the middle beam runs along its x axis, the fan spreads about its z axis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<[f64; 4]>,
    /// The sensor frame's orientation as an axis and angle (range).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis_angle: Option<AxisAngle>,
    /// The middle beam's direction (range), instead of an orientation: the sensor frame is
    /// the shortest rotation taking x onto it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Vector>,
    /// Number of beams of the fan (range), `>= 1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beams: Option<u64>,
    /// Angle the fan spans (range), degrees, in `(0, 360]`; required for more than one
    /// beam.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fov: Option<f64>,
    /// Every beam's direction in the sensor frame (range), instead of `beams` and `fov`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directions: Option<Vec<Vector>>,
    /// Longest distance measured (range), m, finite and `> 0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_range: Option<f64>,
    /// A body the beams do not see (range); default `body`, so a sensor does not see the
    /// body carrying it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_body: Option<String>,
    /// What a beam that hits nothing reads (range): `empty` (default) or `max_range`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_hit: Option<NoHitDesc>,
}

/// What `stiction run` writes besides the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RecordDesc {
    /// Record every this many steps (`>= 1`); default 1.
    pub every: u64,
    /// trajectory.csv; default true.
    pub trajectory: bool,
    /// stats.csv; default true.
    pub stats: bool,
    /// joint_forces.csv; default false.
    pub joint_forces: bool,
    /// contact_forces.csv; default false.
    pub contact_forces: bool,
}

impl Default for RecordDesc {
    fn default() -> Self {
        Self {
            every: 1,
            trajectory: true,
            stats: true,
            joint_forces: false,
            contact_forces: false,
        }
    }
}

/// Camera and frames of `stiction render`; every field can be overridden on the command line.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenderDesc {
    /// Camera position, m; default: fitted to the motion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eye: Option<Vector>,
    /// Point the camera looks at, m; default: the centre of the motion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Vector>,
    /// Vertical field of view, degrees; default 40.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fov: Option<f64>,
    /// Image width, pixels; default 480.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// Image height, pixels; default 360.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// Number of GIF frames; default 60.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frames: Option<u32>,
}
