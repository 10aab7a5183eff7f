//! `[[models]]`: robot models (URDF, MJCF) loaded into a scene by `stiction-models`, beside
//! the scene's own bodies, and the colliders of any body as the renderer draws them.
//!
//! Each model is loaded without its own contact hook (the world has one slot): its pairs of
//! adjacent links join the scene's [`BuiltScene::excluded_pairs`], its collision masks (MJCF
//! `contype`/`conaffinity`) the scene's [`BuiltScene::collision_masks`], and the builder
//! installs one filter for all of them once everything is loaded.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use stiction::math::{Quat, Vec3};
use stiction::{BodyHandle, JointHandle, Pose, World};
use stiction_models::{Base, LoadOptions, ModelError, ServoGains};

use crate::scene::build::{self, BuiltBody, BuiltJoint, BuiltScene, Geometry, PlacedShape};
use crate::scene::error::FieldError;
use crate::scene::geometry::{self, TriangleMesh};
use crate::scene::schema::{ModelBaseDesc, ModelDesc, REST_CLEARANCE};

/// The options `stiction-models` loads `desc` with (relative paths from `base`).
pub fn load_options(desc: &ModelDesc, base: &Path) -> LoadOptions {
    LoadOptions {
        base: match desc.base {
            None => Base::FromFile,
            Some(ModelBaseDesc::Fixed) => Base::Fixed,
            Some(ModelBaseDesc::Floating) => Base::Floating,
        },
        base_pose: Pose {
            position: Vec3::from_array(desc.position),
            orientation: build::rotation(desc.orientation, desc.axis_angle.as_ref()),
        },
        joint_positions: desc.joints.clone(),
        hold_joints: desc.hold,
        position_servos: desc
            .servo
            .map(|[stiffness, damping]| ServoGains { stiffness, damping }),
        // One hook for the whole scene, installed by the builder.
        filter_adjacent_links: false,
        search_path: desc
            .model_path
            .iter()
            .map(|d| geometry::resolve(base, d))
            .collect(),
        ..LoadOptions::default()
    }
}

/// Why a model could not be added.
#[derive(Debug)]
pub enum AddModelError {
    /// The loader refused the file (or the joint values): its message starts with the
    /// model file's line and column.
    Load(ModelError),
    /// The loaded model does not fit the scene (a body name taken).
    Field(FieldError),
}

impl AddModelError {
    /// The error as a scene field error at the model's entry `path` (`models[0]`).
    pub fn at(self, path: &str) -> FieldError {
        match self {
            AddModelError::Field(e) => e,
            AddModelError::Load(e) => {
                // An unknown joint in `joints` is the scene's mistake; the rest the model's.
                let field = if matches!(e, ModelError::Options { .. }) {
                    "joints"
                } else {
                    "file"
                };
                FieldError::invalid(format!("{path}.{field}"), e.to_string())
            }
        }
    }
}

/// Loads the model `desc` (field `path`, e.g. `models[0]`) into `built`: its bodies named
/// `prefix + link`, its joints `prefix + joint`, its adjacent links added to the excluded
/// pairs, its collision masks to the scene's, the loaded model (with its warnings) to
/// [`BuiltScene::models`]. With `rest_on_ground` the model is first loaded alone to find
/// its lowest collider point, then loaded with its base pose moved along z so that point
/// is [`REST_CLEARANCE`] above z = 0.
pub fn add_model(
    built: &mut BuiltScene,
    desc: &ModelDesc,
    base: &Path,
    path: &str,
) -> Result<(), AddModelError> {
    let file = geometry::resolve(base, &desc.file);
    // A directory or a device (/dev/zero) would never finish reading.
    if file.exists() && !file.is_file() {
        return Err(AddModelError::Field(FieldError::invalid(
            format!("{path}.file"),
            format!("{} is not a model file", file.display()),
        )));
    }
    let bodies_before: HashSet<BodyHandle> = built.world.bodies().map(|(h, _)| h).collect();
    let joints_before: HashSet<JointHandle> = built.world.joints().map(|(h, _)| h).collect();
    let mut options = load_options(desc, base);
    if desc.rest_on_ground {
        let mut probe = World::new();
        let placed = stiction_models::add_to_world(&mut probe, &file, &options)
            .map_err(AddModelError::Load)?;
        if let Some(lowest) = lowest_point(&probe, placed.links.values().copied()) {
            options.base_pose.position.z += REST_CLEARANCE - lowest;
        }
    }
    let model = stiction_models::add_to_world(&mut built.world, &file, &options)
        .map_err(AddModelError::Load)?;

    // Each body by the first (alphabetical) link that maps to it: merged massless links
    // share their parent's body.
    let mut link_of: BTreeMap<BodyHandle, &str> = BTreeMap::new();
    for (link, &handle) in &model.links {
        link_of.entry(handle).or_insert(link.as_str());
    }
    let new_bodies: Vec<BodyHandle> = built
        .world
        .bodies()
        .map(|(h, _)| h)
        .filter(|h| !bodies_before.contains(h))
        .collect();
    for (i, handle) in new_bodies.into_iter().enumerate() {
        let name = match link_of.get(&handle) {
            Some(link) => format!("{}{link}", desc.prefix),
            None => format!("{}body{i}", desc.prefix),
        };
        check_name(built, &name, &desc.file, path).map_err(AddModelError::Field)?;
        let kind = built
            .world
            .body(handle)
            .map_err(|e| {
                AddModelError::Field(FieldError::invalid(format!("{path}.file"), e.to_string()))
            })?
            .kind();
        let shapes = collider_shapes(&built.world, handle);
        built.bodies.push(BuiltBody {
            colliders: vec![None; shapes.len()],
            shapes,
            name,
            handle,
            kind,
            color: None,
            origin: Vec3::ZERO,
        });
    }

    let joint_name: BTreeMap<JointHandle, &str> = model
        .joints
        .iter()
        .map(|(name, &handle)| (handle, name.as_str()))
        .collect();
    let new_joints: Vec<JointHandle> = built
        .world
        .joints()
        .map(|(h, _)| h)
        .filter(|h| !joints_before.contains(h))
        .collect();
    for (i, handle) in new_joints.into_iter().enumerate() {
        let name = match joint_name.get(&handle) {
            Some(joint) => format!("{}{joint}", desc.prefix),
            None => format!("{}joint{i}", desc.prefix),
        };
        built.joints.push(BuiltJoint { name, handle });
    }
    built
        .excluded_pairs
        .extend(model.excluded_pairs.iter().copied());
    built
        .collision_masks
        .extend(model.collision_masks.iter().map(|(&c, &m)| (c, m)));
    built.models.push(model);
    Ok(())
}

/// The lowest world z of the colliders of `bodies` (their world AABBs' smallest z, exact
/// for the shapes models are made of), m; `None` if they have no bounded collider (planes
/// do not count).
pub fn lowest_point(world: &World, bodies: impl IntoIterator<Item = BodyHandle>) -> Option<f64> {
    let bodies: std::collections::BTreeSet<BodyHandle> = bodies.into_iter().collect();
    let mut lowest: Option<f64> = None;
    for handle in bodies {
        let Ok(body) = world.body(handle) else {
            continue;
        };
        let pose = Pose::of(body);
        for shape in collider_shapes(world, handle) {
            let rotation = pose.orientation * shape.rotation;
            let centre = pose.transform_point(shape.offset);
            let axis_z = (rotation * Vec3::Z).z.abs().min(1.0);
            let low = match &shape.geometry {
                Geometry::Sphere(r) => Some(centre.z - r),
                Geometry::Box(half) => Some(
                    centre.z
                        - half.x * (rotation * Vec3::X).z.abs()
                        - half.y * (rotation * Vec3::Y).z.abs()
                        - half.z * axis_z,
                ),
                Geometry::Capsule(r, hh) => Some(centre.z - hh * axis_z - r),
                Geometry::Cylinder(r, hh) => {
                    Some(centre.z - hh * axis_z - r * (1.0 - axis_z * axis_z).max(0.0).sqrt())
                }
                Geometry::Convex(mesh) | Geometry::TriMesh(mesh) => mesh
                    .vertices
                    .iter()
                    .map(|&v| centre.z + (rotation * v).z)
                    .reduce(f64::min),
                // Unbounded; `collider_shapes` gives no heightfields (it boxes them).
                Geometry::Plane | Geometry::Heightfield(_) => None,
            };
            if let Some(low) = low.filter(|z| z.is_finite()) {
                lowest = Some(lowest.map_or(low, |l: f64| l.min(low)));
            }
        }
    }
    lowest
}

/// Refuses a model body name that another body has, or that cannot go into a CSV file.
fn check_name(built: &BuiltScene, name: &str, file: &str, path: &str) -> Result<(), FieldError> {
    if name.contains([',', '"', '\n', '\r']) || name.trim().is_empty() {
        return Err(FieldError::invalid(
            format!("{path}.file"),
            format!(
                "{file}: link name `{name}` cannot name a body (empty, or with commas, quotes or line breaks, which CSV files cannot hold)"
            ),
        ));
    }
    // A link may be called `world` (URDF's fixed root often is): scene joints cannot name
    // model bodies, so their `world` still means the static world.
    if built.bodies.iter().any(|b| b.name == name) {
        return Err(FieldError::invalid(
            format!("{path}.prefix"),
            format!(
                "the model's body `{name}` would have the name of another body: body names must be unique, so give this model a prefix (prefix = \"left/\")"
            ),
        ));
    }
    Ok(())
}

/// The colliders of `body` as the renderer draws them: boxes, spheres, capsules and
/// cylinders as they are, convex hulls and triangle meshes as their triangles, anything
/// else (a compound, a heightfield of a model) as its bounding box; half-spaces as planes.
pub fn collider_shapes(world: &World, body: BodyHandle) -> Vec<PlacedShape> {
    world
        .colliders()
        .filter(|(_, c)| c.body() == Some(body))
        .filter_map(|(_, c)| {
            let pose = c.local_pose();
            let shape = c.shape();
            let sensor = c.is_sensor();
            let placed = |geometry, offset: Vec3, rotation: Quat| PlacedShape {
                geometry,
                offset: pose.position + pose.orientation * offset,
                rotation: pose.orientation * rotation,
                sensor,
            };
            let at_origin = |geometry| placed(geometry, Vec3::ZERO, Quat::IDENTITY);
            if let Some(ball) = shape.as_ball() {
                return Some(at_origin(Geometry::Sphere(ball.radius)));
            }
            if let Some(cuboid) = shape.as_cuboid() {
                return Some(at_origin(Geometry::Box(cuboid.half_extents)));
            }
            if let Some(capsule) = shape.as_capsule() {
                let (a, b) = (capsule.segment.a, capsule.segment.b);
                let axis = b - a;
                let rotation = if axis.length() > 0.0 {
                    Quat::from_rotation_arc(Vec3::Z, axis.normalize())
                } else {
                    Quat::IDENTITY
                };
                return Some(placed(
                    Geometry::Capsule(capsule.radius, 0.5 * axis.length()),
                    0.5 * (a + b),
                    rotation,
                ));
            }
            if let Some(cylinder) = shape.as_cylinder() {
                // ColliderBuilder::cylinder turns parry's y-axis cylinder to z, as drawn.
                return Some(at_origin(Geometry::Cylinder(
                    cylinder.radius,
                    cylinder.half_height,
                )));
            }
            if let Some(polyhedron) = shape.as_convex_polyhedron() {
                let (vertices, triangles) = polyhedron.to_trimesh();
                let hull = TriangleMesh {
                    vertices,
                    triangles,
                }
                .wound_outward();
                return Some(at_origin(Geometry::Convex(Arc::new(hull))));
            }
            if let Some(mesh) = shape.as_trimesh() {
                let mesh = TriangleMesh {
                    vertices: mesh.vertices().to_vec(),
                    triangles: mesh.indices().to_vec(),
                };
                return Some(at_origin(Geometry::TriMesh(Arc::new(mesh))));
            }
            if let Some(halfspace) = shape.as_halfspace() {
                let normal = Vec3::new(halfspace.normal.x, halfspace.normal.y, halfspace.normal.z);
                let rotation = Quat::from_rotation_arc(Vec3::Z, normal.normalize_or(Vec3::Z));
                return Some(placed(Geometry::Plane, Vec3::ZERO, rotation));
            }
            let aabb = shape.compute_local_aabb();
            let half = 0.5 * (aabb.maxs - aabb.mins);
            let centre = 0.5 * (aabb.maxs + aabb.mins);
            let half = Vec3::new(half.x, half.y, half.z);
            let centre = Vec3::new(centre.x, centre.y, centre.z);
            (half.is_finite() && half.min_element() > 0.0)
                .then(|| placed(Geometry::Box(half), centre, Quat::IDENTITY))
        })
        .collect()
}
