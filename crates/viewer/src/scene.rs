//! The viewer's data format: a scene's bodies, shapes and joints, its recorded frames and
//! plots, as plain serde types written as JSON (docs/viewer.md documents every field).
//!
//! Conventions: metres, seconds, newtons; z up as in the engine (the page follows the
//! scene's `up`); quaternions are `[w, x, y, z]` and rotate body-frame vectors into the
//! world frame; bodies are referred to by their index in [`ViewerScene::bodies`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use stiction::math::{Quat, Vec3};
use stiction::{BodyHandle, BodyKind, JointHandle, JointKind, JointRows, World};

use crate::islands::islands;
use crate::shapes::collider_shapes;

/// The version of the format written in [`ViewerScene::version`].
pub const FORMAT_VERSION: u32 = 1;

/// A whole scene for the viewer: the static description (bodies with their shapes, the
/// static world's shapes, joints), the recorded frames and plot series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewerScene {
    /// [`FORMAT_VERSION`].
    #[serde(default = "format_version")]
    pub version: u32,
    /// Shown in the page's title bar; empty for none.
    #[serde(default)]
    pub title: String,
    /// The world's up direction (unit, opposite to gravity); the camera keeps it up.
    #[serde(default = "z_up")]
    pub up: [f64; 3],
    /// The bodies; frames hold one entry per body, in this order.
    pub bodies: Vec<ViewerBody>,
    /// Shapes of the static world (colliders attached to no body), poses in the world frame.
    #[serde(default)]
    pub world_shapes: Vec<ViewerShape>,
    /// Joints, drawn at their anchors with their axes.
    #[serde(default)]
    pub joints: Vec<ViewerJoint>,
    /// The recorded states, in time order.
    #[serde(default)]
    pub frames: Vec<Frame>,
    /// Plot series by name, one value per frame (non-finite values are written as `null`
    /// and read back as NaN; the page leaves a gap).
    #[serde(default, with = "plot_series")]
    pub plots: BTreeMap<String, Vec<f64>>,
}

fn format_version() -> u32 {
    FORMAT_VERSION
}

fn z_up() -> [f64; 3] {
    [0.0, 0.0, 1.0]
}

/// One body: its name, kind and shapes (poses in the body frame, whose origin is the
/// centre of mass).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewerBody {
    /// The body's name (shown on hover).
    pub name: String,
    /// `"dynamic"`, `"kinematic"` or `"static"`.
    pub kind: String,
    /// Mass, kg (`0` for static and kinematic bodies).
    #[serde(default)]
    pub mass: f64,
    /// The shapes it carries.
    #[serde(default)]
    pub shapes: Vec<ViewerShape>,
}

/// A pose: position (m) and orientation `[w, x, y, z]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ViewerPose {
    /// Position, m.
    pub position: [f64; 3],
    /// Unit quaternion `[w, x, y, z]`.
    pub orientation: [f64; 4],
}

impl ViewerPose {
    /// The identity pose.
    pub const IDENTITY: Self = Self {
        position: [0.0, 0.0, 0.0],
        orientation: [1.0, 0.0, 0.0, 0.0],
    };

    /// From the engine's vector and quaternion.
    pub fn new(position: Vec3, orientation: Quat) -> Self {
        Self {
            position: vec3(position),
            orientation: quat(orientation),
        }
    }
}

impl Default for ViewerPose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

/// A shape at a pose in its body's frame (the world frame for [`ViewerScene::world_shapes`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewerShape {
    /// The geometry, in the shape's own frame.
    #[serde(flatten)]
    pub geometry: Geometry,
    /// The shape frame's pose in the body frame.
    #[serde(default)]
    pub pose: ViewerPose,
}

/// A shape's geometry in its own frame. Axial shapes (capsule, cylinder, cone) run along
/// the shape frame's z axis, centred on its origin, as the engine's constructors build them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Geometry {
    /// A box of half extents (m).
    Box {
        /// Half extents along x, y, z, m.
        half_extents: [f64; 3],
    },
    /// A sphere.
    Sphere {
        /// Radius, m.
        radius: f64,
    },
    /// The segment from `z = -half_height` to `z = +half_height` swept by a ball.
    Capsule {
        /// Radius, m.
        radius: f64,
        /// Half the segment's length, m.
        half_height: f64,
    },
    /// A cylinder along z.
    Cylinder {
        /// Radius, m.
        radius: f64,
        /// Half height, m.
        half_height: f64,
    },
    /// A cone along z: base at `z = -half_height`, apex at `+half_height`.
    Cone {
        /// Base radius, m.
        radius: f64,
        /// Half height, m.
        half_height: f64,
    },
    /// The plane through the shape origin with outward unit `normal`; solid behind it.
    Plane {
        /// Outward unit normal (shape frame).
        normal: [f64; 3],
    },
    /// A triangle mesh (drawn from both sides).
    Mesh {
        /// Vertices, m.
        vertices: Vec<[f64; 3]>,
        /// Triangles, counter-clockwise seen from outside where that is known.
        indices: Vec<[u32; 3]>,
    },
    /// A convex hull, as its triangles.
    Convex {
        /// Vertices, m.
        vertices: Vec<[f64; 3]>,
        /// Triangles, counter-clockwise seen from outside.
        indices: Vec<[u32; 3]>,
    },
    /// A heightfield, as its triangles (drawn from both sides).
    Heightfield {
        /// Vertices, m.
        vertices: Vec<[f64; 3]>,
        /// Triangles.
        indices: Vec<[u32; 3]>,
    },
}

/// A joint: which bodies it links, its anchor on body A and its axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewerJoint {
    /// The joint's name.
    pub name: String,
    /// `"ball"`, `"hinge"`, `"slider"`, `"fixed"`, `"universal"`, `"hinge2"`,
    /// `"distance"` or `"custom"`.
    pub kind: String,
    /// Body A (index into [`ViewerScene::bodies`]).
    pub body_a: usize,
    /// Body B, or `None` (`null`) for the static world.
    pub body_b: Option<usize>,
    /// The anchor in the world frame when the scene was described.
    pub anchor: [f64; 3],
    /// The (first) axis in the world frame when the scene was described, if the type has one.
    pub axis: Option<[f64; 3]>,
    /// The anchor in body A's frame: the page draws it at A's pose of each frame.
    pub local_anchor: [f64; 3],
    /// The axis in the frame of [`Self::axis_body`] (the world frame if that is `None`).
    pub local_axis: Option<[f64; 3]>,
    /// The body the axis is fixed in, or `None` for the world.
    pub axis_body: Option<usize>,
}

/// One recorded state of every body, with the contacts of the step that led to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// Step number (0: the initial state).
    pub step: u64,
    /// Simulated time, s.
    pub time: f64,
    /// Centre of mass of each body, m.
    pub positions: Vec<[f64; 3]>,
    /// Orientation of each body, `[w, x, y, z]`.
    pub orientations: Vec<[f64; 4]>,
    /// Linear velocity of each body's centre of mass, m/s, if recorded (the page
    /// differentiates positions otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocities: Option<Vec<[f64; 3]>>,
    /// Angular velocity of each body, rad/s, world frame, if recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angular_velocities: Option<Vec<[f64; 3]>>,
    /// Whether each body is asleep (empty: none is).
    #[serde(default)]
    pub sleeping: Vec<bool>,
    /// The island of each body (`None`: in no island), numbered from 0 in order of each
    /// island's first body (empty: not recorded).
    #[serde(default)]
    pub islands: Vec<Option<u32>>,
    /// Contact points with their forces.
    #[serde(default)]
    pub contacts: Vec<ViewerContact>,
}

/// One contact point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ViewerContact {
    /// Point midway between the surfaces, m.
    pub point: [f64; 3],
    /// Unit normal from A into B.
    pub normal: [f64; 3],
    /// Force on B, N (A receives the opposite).
    pub force: [f64; 3],
    /// Bodies A and B (`None`: the static world).
    #[serde(default)]
    pub bodies: [Option<usize>; 2],
    /// Signed distance between the surfaces, m (negative: penetration).
    #[serde(default)]
    pub separation: f64,
}

/// Why a scene is not consistent ([`ViewerScene::validate`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SceneError(pub String);

impl std::fmt::Display for SceneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SceneError {}

impl ViewerScene {
    /// An empty scene (no bodies, frames or plots).
    pub fn new() -> Self {
        Self {
            version: FORMAT_VERSION,
            title: String::new(),
            up: z_up(),
            bodies: Vec::new(),
            world_shapes: Vec::new(),
            joints: Vec::new(),
            frames: Vec::new(),
            plots: BTreeMap::new(),
        }
    }

    /// The static part of `world`: every body (in slot order, named `body<i>`) with its
    /// colliders' shapes, the static world's colliders, every joint (`joint<i>`); no
    /// frames. Record frames with [`Frame::from_world`] or [`Self::record`].
    pub fn from_world(world: &World) -> Self {
        Self::from_world_named(world, |_, i| format!("body{i}"), |_, i| format!("joint{i}"))
    }

    /// As [`Self::from_world`], with the names given by `body_name(handle, index)` and
    /// `joint_name(handle, index)`.
    pub fn from_world_named(
        world: &World,
        mut body_name: impl FnMut(BodyHandle, usize) -> String,
        mut joint_name: impl FnMut(JointHandle, usize) -> String,
    ) -> Self {
        let index = BodyIndex::new(world);
        let mut scene = Self::new();
        let g = world.settings().gravity;
        if g.length() > 0.0 && g.is_finite() {
            scene.up = vec3(-g.normalize());
        }
        for (i, (handle, body)) in world.bodies().enumerate() {
            scene.bodies.push(ViewerBody {
                name: body_name(handle, i),
                kind: kind_name(body.kind()).to_string(),
                mass: if body.is_dynamic() { body.mass() } else { 0.0 },
                shapes: Vec::new(),
            });
        }
        for (_, collider) in world.colliders() {
            if collider.is_sensor() {
                continue;
            }
            let shapes = collider_shapes(collider);
            match collider.body().and_then(|b| index.of(b)) {
                Some(i) => scene.bodies[i].shapes.extend(shapes),
                None => scene.world_shapes.extend(shapes),
            }
        }
        for (i, (handle, joint)) in world.joints().enumerate() {
            let Some(a) = index.of(joint.body_a()) else {
                continue;
            };
            let b = joint.body_b().and_then(|b| index.of(b));
            let pose_a = world
                .pose(Some(joint.body_a()))
                .unwrap_or(stiction::Pose::IDENTITY);
            let pose_b = world
                .pose(joint.body_b())
                .unwrap_or(stiction::Pose::IDENTITY);
            let geometry = joint_geometry(joint.kind());
            let (axis_world, axis_body) = match geometry.axis {
                Some((axis, AxisFrame::A)) => (Some(pose_a.orientation * axis), Some(a)),
                Some((axis, AxisFrame::B)) => (Some(pose_b.orientation * axis), b),
                None => (None, None),
            };
            scene.joints.push(ViewerJoint {
                name: joint_name(handle, i),
                kind: geometry.name.to_string(),
                body_a: a,
                body_b: b,
                anchor: vec3(pose_a.position + pose_a.orientation * geometry.anchor),
                axis: axis_world.map(vec3),
                local_anchor: vec3(geometry.anchor),
                local_axis: geometry.axis.map(|(axis, _)| vec3(axis)),
                axis_body,
            });
        }
        scene
    }

    /// Appends the world's current state as a frame ([`Frame::from_world`]) and the
    /// standard plot values of its last step ([`standard_plots`]).
    pub fn record(&mut self, world: &World, step: u64) {
        self.frames.push(Frame::from_world(world, step));
        let count = self.frames.len();
        for (name, value) in standard_plots(world) {
            let series = self.plots.entry(name.to_string()).or_default();
            series.resize(count - 1, f64::NAN);
            series.push(value);
        }
    }

    /// Checks that every frame has one entry per body, plot series one value per frame,
    /// and indices point at bodies.
    pub fn validate(&self) -> Result<(), SceneError> {
        let n = self.bodies.len();
        let err = |m: String| Err(SceneError(m));
        for (i, f) in self.frames.iter().enumerate() {
            let check = |what: &str, len: usize, optional: bool| {
                if len == n || (optional && len == 0) {
                    Ok(())
                } else {
                    Err(SceneError(format!(
                        "frames[{i}].{what} has {len} entries for {n} bodies"
                    )))
                }
            };
            check("positions", f.positions.len(), false)?;
            check("orientations", f.orientations.len(), false)?;
            check("sleeping", f.sleeping.len(), true)?;
            check("islands", f.islands.len(), true)?;
            if let Some(v) = &f.velocities {
                check("velocities", v.len(), false)?;
            }
            if let Some(v) = &f.angular_velocities {
                check("angular_velocities", v.len(), false)?;
            }
            for (k, c) in f.contacts.iter().enumerate() {
                if c.bodies.iter().flatten().any(|&b| b >= n) {
                    return err(format!("frames[{i}].contacts[{k}].bodies names no body"));
                }
            }
        }
        for (name, series) in &self.plots {
            if series.len() != self.frames.len() {
                return err(format!(
                    "plots.{name} has {} values for {} frames",
                    series.len(),
                    self.frames.len()
                ));
            }
        }
        for (j, joint) in self.joints.iter().enumerate() {
            let out = |b: Option<usize>| b.is_some_and(|b| b >= n);
            if joint.body_a >= n || out(joint.body_b) || out(joint.axis_body) {
                return err(format!("joints[{j}] names no body"));
            }
        }
        Ok(())
    }

    /// The scene as compact JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a viewer scene always serialises")
    }

    /// Reads a scene written by [`Self::to_json`] (or by hand).
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

impl Default for ViewerScene {
    fn default() -> Self {
        Self::new()
    }
}

impl Frame {
    /// The current state of `world` as frame `step`: poses, velocities, sleep state,
    /// islands and the last step's contacts, bodies in slot order (the order of
    /// [`ViewerScene::from_world`]; bodies added or removed since then shift it).
    pub fn from_world(world: &World, step: u64) -> Self {
        let index = BodyIndex::new(world);
        let mut frame = Frame {
            step,
            time: world.time(),
            positions: Vec::with_capacity(index.count),
            orientations: Vec::with_capacity(index.count),
            velocities: Some(Vec::with_capacity(index.count)),
            angular_velocities: Some(Vec::with_capacity(index.count)),
            sleeping: Vec::with_capacity(index.count),
            islands: Vec::new(),
            contacts: Vec::with_capacity(world.contacts().len()),
        };
        for (handle, body) in world.bodies() {
            frame.positions.push(vec3(body.position()));
            frame.orientations.push(quat(body.orientation()));
            if let Some(v) = frame.velocities.as_mut() {
                v.push(vec3(body.linear_velocity()));
            }
            if let Some(w) = frame.angular_velocities.as_mut() {
                w.push(vec3(body.angular_velocity()));
            }
            frame
                .sleeping
                .push(world.is_sleeping(handle).unwrap_or(false));
        }
        for c in world.contacts() {
            let g = &c.geometry;
            frame.contacts.push(ViewerContact {
                point: vec3(g.point),
                normal: vec3(g.normal),
                force: vec3(c.force),
                bodies: g.bodies.map(|b| b.and_then(|b| index.of(b))),
                separation: g.separation,
            });
        }
        frame.islands = islands(world, &index);
        frame
    }
}

/// The values [`ViewerScene::record`] plots for the last step of `world`: kinetic energy
/// (J), contact count, deepest penetration (m), and the LCP residual.
pub fn standard_plots(world: &World) -> Vec<(&'static str, f64)> {
    let kinetic: f64 = world
        .bodies()
        .filter(|(_, b)| b.is_dynamic())
        .map(|(_, b)| b.linear_kinetic_energy() + b.rotational_kinetic_energy())
        .sum();
    let penetration = world
        .contacts()
        .iter()
        .map(|c| (-c.geometry.separation).max(0.0))
        .fold(0.0, f64::max);
    vec![
        ("kinetic_energy", kinetic),
        ("contacts", world.contacts().len() as f64),
        ("max_penetration", penetration),
        ("residual", world.step_stats().worst_residual),
    ]
}

/// Body handles to indices in slot order.
pub(crate) struct BodyIndex {
    /// Index of each slot, `usize::MAX` for an empty slot.
    by_slot: Vec<(u32, usize)>,
    pub(crate) count: usize,
}

impl BodyIndex {
    pub(crate) fn new(world: &World) -> Self {
        let mut by_slot = Vec::new();
        let mut count = 0;
        for (handle, _) in world.bodies() {
            let slot = handle.index();
            if by_slot.len() <= slot {
                by_slot.resize(slot + 1, (u32::MAX, usize::MAX));
            }
            by_slot[slot] = (handle.generation(), count);
            count += 1;
        }
        Self { by_slot, count }
    }

    pub(crate) fn of(&self, handle: BodyHandle) -> Option<usize> {
        match self.by_slot.get(handle.index()) {
            Some(&(generation, i)) if generation == handle.generation() && i != usize::MAX => {
                Some(i)
            }
            _ => None,
        }
    }
}

fn kind_name(kind: BodyKind) -> &'static str {
    match kind {
        BodyKind::Dynamic => "dynamic",
        BodyKind::Kinematic => "kinematic",
        BodyKind::Static => "static",
    }
}

enum AxisFrame {
    A,
    B,
}

struct JointGeometry {
    name: &'static str,
    anchor: Vec3,
    axis: Option<(Vec3, AxisFrame)>,
}

fn joint_geometry(kind: &JointKind) -> JointGeometry {
    let g = |name, anchor, axis| JointGeometry { name, anchor, axis };
    match kind {
        JointKind::Ball(j) => g("ball", j.local_anchor_a, None),
        JointKind::Hinge(j) => g(
            "hinge",
            j.local_anchor_a,
            Some((j.local_axis_a, AxisFrame::A)),
        ),
        JointKind::Slider(j) => g(
            "slider",
            j.local_anchor_a,
            Some((j.local_axis_b, AxisFrame::B)),
        ),
        JointKind::Fixed(j) => g("fixed", j.local_anchor_a, None),
        JointKind::Universal(j) => g(
            "universal",
            j.local_anchor_a,
            Some((j.local_axis_a, AxisFrame::A)),
        ),
        JointKind::Hinge2(j) => g(
            "hinge2",
            j.local_anchor_a,
            Some((j.local_wheel_axis_a, AxisFrame::A)),
        ),
        JointKind::Distance(j) => g("distance", j.local_anchor_a, None),
        JointKind::Custom(j) => g("custom", j.rows().anchor_a(), None),
        other => g("custom", other.anchor_a(), None),
    }
}

pub(crate) fn vec3(v: Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

pub(crate) fn quat(q: Quat) -> [f64; 4] {
    [q.w, q.x, q.y, q.z]
}

/// Plot series: non-finite values as `null`, `null` read back as NaN.
mod plot_series {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::BTreeMap;

    pub fn serialize<S: Serializer>(
        plots: &BTreeMap<String, Vec<f64>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let out: BTreeMap<&String, Vec<Option<f64>>> = plots
            .iter()
            .map(|(k, v)| (k, v.iter().map(|x| x.is_finite().then_some(*x)).collect()))
            .collect();
        out.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, Vec<f64>>, D::Error> {
        let raw = BTreeMap::<String, Vec<Option<f64>>>::deserialize(d)?;
        Ok(raw
            .into_iter()
            .map(|(k, v)| (k, v.into_iter().map(|x| x.unwrap_or(f64::NAN)).collect()))
            .collect())
    }
}
