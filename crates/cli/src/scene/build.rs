//! The one place where a scene file meets the engine: a validated [`SceneFile`] becomes a
//! [`stiction::World`] plus what the runner and renderer need (names, shapes, step size).
//!
//! Every element of the file reaches the engine (colliders and their materials through
//! [`colliders`]); nothing is skipped. Should the schema ever describe something the engine
//! cannot do, the place to refuse it (with a typed error naming the field) is here.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use stiction::joint::{
    AxisControl, DistanceJoint, FixedJoint, Hinge2Joint, JointLimit, JointMotor, SliderJoint,
    UniversalJoint,
};
use stiction::math::{Quat, Vec3};
use stiction::{
    BallJoint, BodyHandle, BodyKind, ColliderHandle, ContactSettings, ExactSettings,
    GyroscopicMode, HingeJoint, ImpactModel, IterativeSettings, JointBuilder, JointHandle,
    JointKind, MassProperties, PostStabilization, RigidBodyBuilder, SleepSettings, Softness,
    Solver, World, WorldSettings,
};

use crate::scene::colliders;
use crate::scene::error::FieldError;
use crate::scene::geometry::{self, HeightGrid, TriangleMesh};
use crate::scene::models;
use crate::scene::schema::{
    AxisAngle, BodyDesc, BodyKindDesc, GyroscopicDesc, ImpactsDesc, JointDesc, JointKindDesc,
    LimitDesc, MotorDesc, RecordDesc, RenderDesc, SceneFile, ShapeDesc, ShapeKind, SolverKind,
    DEFAULT_GRAVITY, DEFAULT_STEP, WORLD,
};
use crate::scene::sensors::{self, BuiltSensor};
use crate::scene::validate;

/// The density of a body that gives neither mass nor density, kg/m^3 (water).
pub const DEFAULT_DENSITY: f64 = 1000.0;

/// A shape's geometry, as the renderer draws it.
#[derive(Debug, Clone, PartialEq)]
pub enum Geometry {
    /// Half extents, m.
    Box(Vec3),
    /// Radius, m.
    Sphere(f64),
    /// Radius and half height (along local z), m.
    Capsule(f64, f64),
    /// Radius and half height (along local z), m.
    Cylinder(f64, f64),
    /// The plane z = 0 of the shape frame.
    Plane,
    /// A convex hull: its triangles, wound counter-clockwise from outside.
    Convex(Arc<TriangleMesh>),
    /// A triangle mesh (static geometry; no inside).
    TriMesh(Arc<TriangleMesh>),
    /// A heightfield.
    Heightfield(Arc<HeightGrid>),
}

/// A shape placed in the engine's body frame (origin at the centre of mass).
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedShape {
    /// What it is.
    pub geometry: Geometry,
    /// Position in the body frame, m.
    pub offset: Vec3,
    /// Orientation in the body frame.
    pub rotation: Quat,
    /// Whether it is a sensor region (drawn see-through), not matter.
    pub sensor: bool,
}

/// A body of the built scene.
#[derive(Debug, Clone)]
pub struct BuiltBody {
    /// Its name in the file.
    pub name: String,
    /// Its engine handle.
    pub handle: BodyHandle,
    /// Dynamic, kinematic or static.
    pub kind: BodyKind,
    /// Shapes relative to the engine body frame.
    pub shapes: Vec<PlacedShape>,
    /// Display colour, if the file gives one.
    pub color: Option<[f64; 3]>,
    /// The engine collider of each shape of `shapes`, in order (`None`: a shape that does
    /// not collide, or a scene without contacts).
    pub colliders: Vec<Option<ColliderHandle>>,
    /// Where the file's body frame origin (`position`) lies in the engine's body frame,
    /// m: minus the centre of mass of a dynamic body, zero otherwise (and for model links).
    pub origin: Vec3,
}

/// A joint of the built scene.
#[derive(Debug, Clone)]
pub struct BuiltJoint {
    /// Its name in the file, or `joint<i>`.
    pub name: String,
    /// Its engine handle.
    pub handle: JointHandle,
}

/// A scene ready to step.
#[derive(Debug, Clone)]
pub struct BuiltScene {
    /// The robot models of `[[models]]`, in file order, as loaded (links, joints, format,
    /// warnings).
    pub models: Vec<stiction_models::LoadedModel>,
    /// The pairs of bodies kept from colliding (jointed scene bodies without
    /// `collide_connected`, and every model's adjacent links): the contact hook's list,
    /// installed again on a world restored from a snapshot.
    pub excluded_pairs: Vec<(BodyHandle, BodyHandle)>,
    /// MuJoCo's `(contype, conaffinity)` of every model collider whose masks are not the
    /// default (every model's `collision_masks`): applied by the same contact hook.
    pub collision_masks: BTreeMap<ColliderHandle, (u32, u32)>,
    /// Scene name.
    pub name: String,
    /// The world.
    pub world: World,
    /// Step size, s: `world.step`, else the first model's file time step, else 1/60 s.
    pub h: f64,
    /// Steps the file asks for (from `steps` or `duration`; 600 if neither).
    pub steps: u64,
    /// Bodies: the models' (in model order), then the file's `[[bodies]]` in file order.
    pub bodies: Vec<BuiltBody>,
    /// Joints: the models', then the file's `[[joints]]` in file order.
    pub joints: Vec<BuiltJoint>,
    /// What to record.
    pub record: RecordDesc,
    /// The sensors of `[[sensors]]`, resolved to engine handles, in file order.
    pub sensors: Vec<BuiltSensor>,
    /// Camera and frames.
    pub render: RenderDesc,
}

/// Steps run when the file gives neither `steps` nor `duration`.
pub const DEFAULT_STEPS: u64 = 600;

/// Builds a validated scene. `fallback_name` names a scene whose file has no `name`;
/// `base` is the folder relative file names (meshes, models) start from.
pub fn build(
    scene: &SceneFile,
    fallback_name: &str,
    base: &Path,
) -> Result<BuiltScene, FieldError> {
    let mut built = start(scene, fallback_name)?;
    // The models first: a run of a robot model file (a scene of one model, then its ground
    // plane) builds the same world as its scene.json does.
    for (i, desc) in scene.models.iter().enumerate() {
        let path = format!("models[{i}]");
        models::add_model(&mut built, desc, base, &path).map_err(|e| e.at(&path))?;
    }
    for (i, desc) in scene.bodies.iter().enumerate() {
        add_body(&mut built, scene, desc, base, &format!("bodies[{i}]"))?;
    }
    finish(&mut built, scene)?;
    Ok(built)
}

/// A scene without bodies or joints yet: its world with the file's settings, its name, step
/// size, step count, recording and camera. [`build`] then adds the models, the bodies and
/// (by [`finish`]) the joints.
pub fn start(scene: &SceneFile, fallback_name: &str) -> Result<BuiltScene, FieldError> {
    let world = World::with_settings(world_settings(scene))
        .map_err(|e| FieldError::invalid("world", e.to_string()))?;
    Ok(BuiltScene {
        name: scene
            .name
            .clone()
            .unwrap_or_else(|| fallback_name.to_string()),
        world,
        // Provisional: `finish` settles the step and gravity once the models are loaded.
        h: scene.world.step.unwrap_or(DEFAULT_STEP),
        steps: step_count(scene, scene.world.step.unwrap_or(DEFAULT_STEP)),
        bodies: Vec::new(),
        joints: Vec::new(),
        models: Vec::new(),
        excluded_pairs: Vec::new(),
        collision_masks: BTreeMap::new(),
        record: scene.record.clone(),
        sensors: Vec::new(),
        render: scene.render.clone(),
    })
}

/// The steps `scene` asks for at a step of `h`.
fn step_count(scene: &SceneFile, h: f64) -> u64 {
    match (scene.steps, scene.duration) {
        (Some(steps), _) => steps,
        (None, Some(duration)) => steps_for(duration, h),
        (None, None) => DEFAULT_STEPS,
    }
}

/// The step and gravity of a scene whose models are loaded: `[world]`'s where it gives
/// them, else the first model file's that does (MJCF `<option>`), else the defaults.
pub fn resolved_step_and_gravity(
    scene: &SceneFile,
    models: &[stiction_models::LoadedModel],
) -> (f64, Vec3) {
    let step = scene
        .world
        .step
        .or_else(|| models.iter().find_map(|m| m.timestep))
        .unwrap_or(DEFAULT_STEP);
    let gravity = scene
        .world
        .gravity
        .map(Vec3::from_array)
        .or_else(|| models.iter().find_map(|m| m.gravity))
        .unwrap_or(Vec3::from_array(DEFAULT_GRAVITY));
    (step, gravity)
}

/// Adds the file's joints to a scene whose bodies are all there, settles its step and
/// gravity ([`resolved_step_and_gravity`]), and installs the one contact filter of the
/// scene (jointed bodies, the models' adjacent links and their collision masks).
pub fn finish(built: &mut BuiltScene, scene: &SceneFile) -> Result<(), FieldError> {
    let (h, gravity) = resolved_step_and_gravity(scene, &built.models);
    // Checked by the validator at `world.step` or 1/60 s; the models may have given another.
    if let (None, Some(duration)) = (scene.steps, scene.duration) {
        validate::duration_steps(duration, h)?;
    }
    built
        .world
        .set_gravity(gravity)
        .map_err(|e| FieldError::invalid("world.gravity", e.to_string()))?;
    built.h = h;
    built.steps = step_count(scene, h);
    for (i, desc) in scene.joints.iter().enumerate() {
        let path = format!("joints[{i}]");
        let handle = build_joint(&mut built.world, desc, &built.bodies, scene, &path)?;
        let name = desc.name.clone().unwrap_or_else(|| format!("joint{i}"));
        built.joints.push(BuiltJoint { name, handle });
    }
    let bodies = &built.bodies;
    let handle_of = |name: &str| bodies.iter().find(|b| b.name == name).map(|b| b.handle);
    let jointed = colliders::jointed_pairs(&scene.joints, handle_of);
    built.excluded_pairs.extend(jointed);
    colliders::install_contact_filter(
        &mut built.world,
        &built.excluded_pairs,
        &built.collision_masks,
    );
    built.sensors = sensors::build(scene, built)?;
    Ok(())
}

/// Adds the body `desc` of `scene` (at field `path`) with its colliders to `built`; its
/// name must be new.
pub fn add_body(
    built: &mut BuiltScene,
    scene: &SceneFile,
    desc: &BodyDesc,
    base: &Path,
    path: &str,
) -> Result<(), FieldError> {
    if let Some(other) = built.bodies.iter().find(|b| b.name == desc.name) {
        return Err(FieldError::invalid(
            format!("{path}.name"),
            format!(
                "body names must be unique: `{}` is already a body of the scene or a link of a model",
                other.name
            ),
        ));
    }
    let mode = gyroscopic(scene.world.gyroscopic);
    let mut body = build_body(&mut built.world, desc, mode, base, path)?;
    if scene.world.contacts {
        let shapes: Vec<_> = desc.shapes.iter().zip(body.shapes.iter()).collect();
        body.colliders = colliders::add_colliders(
            &mut built.world,
            body.handle,
            &shapes,
            &scene.materials,
            path,
        )?;
    }
    built.bodies.push(body);
    Ok(())
}

/// The number of steps of size `h` covering `duration` seconds (at least 1).
pub fn steps_for(duration: f64, h: f64) -> u64 {
    // The small slack keeps 1.0 / (1/60) at 60 despite rounding.
    ((duration / h) - 1e-9).ceil().max(1.0) as u64
}

/// The engine settings a scene's `[world]` table gives (also applied to robot models run
/// by `stiction run robot.urdf`).
pub fn world_settings(scene: &SceneFile) -> WorldSettings {
    let world = &scene.world;
    let iterative = IterativeSettings {
        iterations: world.solver.iterations as usize,
        omega: world.solver.omega,
        tolerance: world.solver.tolerance,
        warm_start: world.solver.warm_start,
        direct_bilateral: world.solver.direct_bilateral,
    };
    let solver = match world.solver.kind {
        SolverKind::Exact => Solver::Exact(ExactSettings {
            impacts: match world.solver.impacts {
                ImpactsDesc::Simultaneous => ImpactModel::Simultaneous,
                ImpactsDesc::Sequential => ImpactModel::Sequential,
            },
            ..ExactSettings::default()
        }),
        SolverKind::Iterative => Solver::Iterative(iterative),
    };
    let post_stabilization = if world.post_stabilization {
        PostStabilization::default()
    } else {
        PostStabilization::OFF
    };
    WorldSettings {
        // A model's gravity, if any, is set by `finish`.
        gravity: Vec3::from_array(world.gravity.unwrap_or(DEFAULT_GRAVITY)),
        solver,
        softness: Softness {
            erp: world.erp,
            cfm: world.cfm,
        },
        post_stabilization,
        contacts: ContactSettings {
            restitution_threshold: world.restitution_threshold,
            ..ContactSettings::default()
        },
        sleep: if world.sleeping {
            SleepSettings::on()
        } else {
            SleepSettings::default()
        },
        ..WorldSettings::default()
    }
}

fn gyroscopic(mode: GyroscopicDesc) -> GyroscopicMode {
    match mode {
        GyroscopicDesc::None => GyroscopicMode::None,
        GyroscopicDesc::Explicit => GyroscopicMode::Explicit,
        GyroscopicDesc::Implicit => GyroscopicMode::Implicit,
        GyroscopicDesc::Conserving => GyroscopicMode::Conserving,
    }
}

/// A rotation from the file's quaternion `[w, x, y, z]` or axis and angle.
pub fn rotation(quaternion: Option<[f64; 4]>, axis_angle: Option<&AxisAngle>) -> Quat {
    if let Some(q) = quaternion {
        let [w, x, y, z] = unit_scaled(q);
        return Quat::from_xyzw(x, y, z, w).normalize();
    }
    if let Some(r) = axis_angle {
        let axis = Vec3::from_array(unit_scaled(r.axis)).normalize();
        return Quat::from_axis_angle(axis, r.degrees.to_radians());
    }
    Quat::IDENTITY
}

/// `v` divided by its largest absolute component, so that normalising it neither overflows
/// (`[1e200, 1e200, 0]` has an infinite length) nor underflows (`[1e-200, 0, 0]` has a zero
/// one): any finite, non-zero direction the validator accepted then normalises. A zero `v`
/// is returned as it is.
pub fn unit_scaled<const N: usize>(v: [f64; N]) -> [f64; N] {
    let largest = v.iter().fold(0.0_f64, |m, c| m.max(c.abs()));
    if largest > 0.0 {
        v.map(|c| c / largest)
    } else {
        v
    }
}

/// The geometry of a validated shape (reading its mesh file, if any, relative to `base`).
fn geometry(shape: &ShapeDesc, base: &Path, path: &str) -> Result<Geometry, FieldError> {
    // Validation guarantees the fields each type needs.
    let radius = shape.radius.unwrap_or(0.0);
    let half_height = shape.half_height.unwrap_or(0.0);
    let scale = shape.scale.map_or([1.0; 3], |s| s.axes());
    let mesh_file = || {
        let file = shape.file.as_deref().unwrap_or_default();
        geometry::read_mesh(&geometry::resolve(base, file), scale)
            .map_err(|e| FieldError::invalid(format!("{path}.file"), e))
    };
    Ok(match shape.kind {
        ShapeKind::Box => Geometry::Box(Vec3::from_array(shape.half_extents.unwrap_or_default())),
        ShapeKind::Sphere => Geometry::Sphere(radius),
        ShapeKind::Capsule => Geometry::Capsule(radius, half_height),
        ShapeKind::Cylinder => Geometry::Cylinder(radius, half_height),
        ShapeKind::Plane => Geometry::Plane,
        ShapeKind::Convex => {
            let (points, field) = match &shape.points {
                Some(points) => (
                    points.iter().copied().map(Vec3::from_array).collect(),
                    "points",
                ),
                None => (mesh_file()?.vertices, "file"),
            };
            let hull = geometry::convex_hull(&points)
                .map_err(|e| FieldError::invalid(format!("{path}.{field}"), e))?;
            Geometry::Convex(Arc::new(hull))
        }
        ShapeKind::Mesh => {
            let mesh = mesh_file()?;
            if mesh.triangles.is_empty() {
                return Err(FieldError::invalid(
                    format!("{path}.file"),
                    "the mesh has no triangles",
                ));
            }
            Geometry::TriMesh(Arc::new(mesh))
        }
        ShapeKind::Heightfield => Geometry::Heightfield(Arc::new(HeightGrid::new(
            shape.heights.as_deref().unwrap_or_default(),
            shape.size.unwrap_or([1.0; 2]),
        ))),
    })
}

/// Mass properties of one shape at `density`, in the body frame; `None` for a plane, a
/// triangle mesh or a heightfield (static geometry, without volume).
fn shape_mass(shape: &PlacedShape, density: f64) -> Option<Result<MassProperties, String>> {
    let text = |e: stiction::MassPropertiesError| e.to_string();
    let local = match shape.geometry {
        Geometry::Box(half) => MassProperties::cuboid(half, density).map_err(text),
        Geometry::Sphere(r) => MassProperties::sphere(r, density).map_err(text),
        Geometry::Capsule(r, hh) => MassProperties::capsule(hh, r, density).map_err(text),
        Geometry::Cylinder(r, hh) => MassProperties::cylinder(hh, r, density).map_err(text),
        Geometry::Convex(ref hull) => hull.mass_properties(density),
        Geometry::Plane | Geometry::TriMesh(_) | Geometry::Heightfield(_) => return None,
    };
    Some(local.and_then(|m| {
        m.rotated(shape.rotation)
            .and_then(|m| m.translated(shape.offset))
            .map_err(text)
    }))
}

/// The body's mass properties in the file's body frame (centre possibly off the origin).
fn body_mass(
    desc: &BodyDesc,
    shapes: &[PlacedShape],
    path: &str,
) -> Result<MassProperties, FieldError> {
    let density = desc.density.unwrap_or(DEFAULT_DENSITY);
    let mut total: Option<MassProperties> = None;
    for (j, shape) in shapes.iter().enumerate() {
        // A sensor shape is a region, not matter.
        if desc.shapes.get(j).is_some_and(|s| s.sensor) {
            continue;
        }
        let Some(mass) = shape_mass(shape, density) else {
            continue;
        };
        let mass = mass.map_err(|e| FieldError::invalid(format!("{path}.shapes[{j}]"), e))?;
        total = Some(match total {
            None => mass,
            Some(t) => t
                .combined(&mass)
                .map_err(|e| FieldError::invalid(format!("{path}.shapes"), e.to_string()))?,
        });
    }
    let invalid = |field: &str, e: stiction::MassPropertiesError| {
        FieldError::invalid(format!("{path}.{field}"), e.to_string())
    };
    match (total, desc.mass, desc.inertia) {
        (None, mass, inertia) => {
            // Validation made sure a dynamic body has both; others get a nominal 1 kg ball.
            let mass = mass.unwrap_or(1.0);
            let moments = inertia.map_or(Vec3::splat(0.1 * mass), Vec3::from_array);
            MassProperties::from_principal(mass, moments).map_err(|e| invalid("inertia", e))
        }
        (Some(shapes), mass, inertia) => {
            let mass = mass.unwrap_or(shapes.mass());
            let tensor = match inertia {
                Some(moments) => stiction::math::Mat3::from_diagonal(Vec3::from_array(moments)),
                None => shapes.inertia() * (mass / shapes.mass()),
            };
            MassProperties::new(mass, shapes.center(), tensor).map_err(|e| invalid("mass", e))
        }
    }
}

fn build_body(
    world: &mut World,
    desc: &BodyDesc,
    default_mode: GyroscopicMode,
    base: &Path,
    path: &str,
) -> Result<BuiltBody, FieldError> {
    let mut shapes: Vec<PlacedShape> = desc
        .shapes
        .iter()
        .enumerate()
        .map(|(j, s)| {
            Ok(PlacedShape {
                geometry: geometry(s, base, &format!("{path}.shapes[{j}]"))?,
                offset: Vec3::from_array(s.offset),
                rotation: rotation(s.orientation, s.axis_angle.as_ref()),
                sensor: s.sensor,
            })
        })
        .collect::<Result<_, FieldError>>()?;
    let mass = body_mass(desc, &shapes, path)?;
    let orientation = rotation(desc.orientation, desc.axis_angle.as_ref());
    let kind = match desc.kind {
        BodyKindDesc::Dynamic => BodyKind::Dynamic,
        BodyKindDesc::Kinematic => BodyKind::Kinematic,
        BodyKindDesc::Static => BodyKind::Static,
    };
    // The engine's body frame has its origin at the centre of mass; only dynamic bodies are
    // moved there, so kinematic bodies turn about the point the file placed.
    let center = if kind == BodyKind::Dynamic {
        mass.center()
    } else {
        Vec3::ZERO
    };
    for shape in &mut shapes {
        shape.offset -= center;
    }
    let mass = MassProperties::new(mass.mass(), Vec3::ZERO, mass.inertia())
        .map_err(|e| FieldError::invalid(format!("{path}.mass"), e.to_string()))?;
    let mut builder = RigidBodyBuilder::new(kind)
        .mass_properties(mass)
        .position(Vec3::from_array(desc.position) + orientation * center)
        .orientation(orientation)
        .linear_velocity(Vec3::from_array(desc.linear_velocity))
        .gravity(desc.gravity)
        .linear_damping(desc.linear_damping)
        .angular_damping(desc.angular_damping)
        .ccd(desc.ccd)
        .gyroscopic_mode(desc.gyroscopic.map_or(default_mode, gyroscopic));
    if let Some(w) = desc.angular_velocity {
        builder = builder.angular_velocity(Vec3::from_array(w));
    }
    if let Some(w) = desc.angular_velocity_body {
        builder = builder.angular_velocity_body(Vec3::from_array(w));
    }
    let body = builder
        .build()
        .map_err(|e| FieldError::invalid(path.to_string(), e.to_string()))?;
    Ok(BuiltBody {
        name: desc.name.clone(),
        handle: world.add_body(body),
        kind,
        colliders: vec![None; shapes.len()],
        shapes,
        color: desc.color,
        origin: -center,
    })
}

fn build_joint(
    world: &mut World,
    desc: &JointDesc,
    bodies: &[BuiltBody],
    scene: &SceneFile,
    path: &str,
) -> Result<JointHandle, FieldError> {
    let handle_of = |name: &str| bodies.iter().find(|b| b.name == name).map(|b| b.handle);
    // Validation checked both names.
    let body_a = handle_of(&desc.body_a)
        .ok_or_else(|| FieldError::invalid(format!("{path}.body_a"), "unknown body"))?;
    let body_b = if desc.body_b == WORLD {
        None
    } else {
        Some(
            handle_of(&desc.body_b)
                .ok_or_else(|| FieldError::invalid(format!("{path}.body_b"), "unknown body"))?,
        )
    };
    let engine = |e: stiction::WorldError| FieldError::invalid(path.to_string(), e.to_string());
    let kind = joint_kind(world, desc, body_a, body_b, path)?;
    let handle = world
        .add_joint(JointBuilder::new(body_a, body_b, kind))
        .map_err(engine)?;
    let joint = world.joint_mut(handle).map_err(engine)?;
    joint.set_post_stabilize(desc.post_stabilize && scene.world.post_stabilization);
    if desc.erp.is_some() || desc.cfm.is_some() {
        let softness = Softness {
            erp: desc.erp.unwrap_or(scene.world.erp),
            cfm: desc.cfm.unwrap_or(scene.world.cfm),
        };
        joint.set_softness(Some(softness)).map_err(engine)?;
    }
    Ok(handle)
}

/// The limit and motor of one joint coordinate.
fn control(
    limits: Option<&LimitDesc>,
    motor: Option<&MotorDesc>,
    path: &str,
) -> Result<AxisControl, FieldError> {
    let limit = limits
        .map(|l| JointLimit::new(l.lower, l.upper))
        .transpose()
        .map_err(|e| FieldError::invalid(format!("{path}.limits"), e.to_string()))?;
    let motor = motor
        .map(|m| JointMotor::new(m.velocity, m.max_force))
        .transpose()
        .map_err(|e| FieldError::invalid(format!("{path}.motor"), e.to_string()))?;
    Ok(AxisControl { limit, motor })
}

/// The engine description of a joint at the bodies' current poses.
fn joint_kind(
    world: &World,
    desc: &JointDesc,
    body_a: BodyHandle,
    body_b: Option<BodyHandle>,
    path: &str,
) -> Result<JointKind, FieldError> {
    let engine = |e: stiction::WorldError| FieldError::invalid(path.to_string(), e.to_string());
    let pose_a = world.pose(Some(body_a)).map_err(engine)?;
    let pose_b = world.pose(body_b).map_err(engine)?;
    // Validation made sure each type has the fields it needs.
    let vector = |v: Option<[f64; 3]>| Vec3::from_array(v.unwrap_or_default());
    // The engine normalises axes itself; scaled first, so that tiny or huge ones survive it.
    let direction = |v: Option<[f64; 3]>| Vec3::from_array(unit_scaled(v.unwrap_or_default()));
    let (anchor, axis, axis2) = (
        vector(desc.anchor),
        direction(desc.axis),
        direction(desc.axis2),
    );
    let first = control(desc.limits.as_ref(), desc.motor.as_ref(), path)?;
    let second = control(desc.limits2.as_ref(), desc.motor2.as_ref(), path)?;
    Ok(match desc.kind {
        JointKindDesc::Ball => BallJoint::at_world_point(anchor, &pose_a, &pose_b)
            .map_err(engine)?
            .into(),
        JointKindDesc::Hinge => HingeJoint::at_world_axis(anchor, axis, &pose_a, &pose_b)
            .map_err(engine)?
            .with_control(first)
            .into(),
        JointKindDesc::Slider => SliderJoint::along_world_axis(axis, &pose_a, &pose_b)
            .map_err(engine)?
            .with_control(first)
            .into(),
        JointKindDesc::Fixed => FixedJoint::at_current_poses(&pose_a, &pose_b).into(),
        JointKindDesc::Universal => {
            UniversalJoint::at_world_point(anchor, axis, axis2, &pose_a, &pose_b)
                .map_err(engine)?
                .with_control(0, first)
                .with_control(1, second)
                .into()
        }
        JointKindDesc::Hinge2 => {
            let mut joint = Hinge2Joint::at_world_point(anchor, axis, axis2, &pose_a, &pose_b)
                .map_err(engine)?;
            joint.steering = first;
            joint.wheel = second;
            if let Some(spring) = &desc.suspension {
                joint = joint
                    .with_suspension(spring.stiffness, spring.damping)
                    .map_err(engine)?;
            }
            joint.into()
        }
        JointKindDesc::Distance => {
            let anchor_b = vector(desc.anchor_b);
            let mut joint = DistanceJoint::between_world_points(anchor, anchor_b, &pose_a, &pose_b)
                .map_err(engine)?;
            if let Some(length) = desc.length {
                joint.distance = length;
            }
            if let Some(limit) = first.limit {
                joint = joint.with_limit(limit);
            }
            joint.into()
        }
    })
}
