//! The collision side of a scene: one engine collider per colliding shape, with its material,
//! and the filter that keeps jointed bodies from colliding unless a joint asks for it.

use std::collections::BTreeMap;

use stiction::math::Vec3;
use stiction::{BodyHandle, ColliderBuilder, ColliderHandle, Material, Pose, World};

use crate::scene::build::{Geometry, PlacedShape};
use crate::scene::error::FieldError;
use crate::scene::schema::{JointDesc, MaterialDesc, ShapeDesc};

/// Adds a collider for every shape of `body` that collides (a sensor for a shape with
/// `sensor = true`); returns each shape's collider, `None` for those that do not collide.
pub fn add_colliders(
    world: &mut World,
    body: BodyHandle,
    shapes: &[(&ShapeDesc, &PlacedShape)],
    materials: &BTreeMap<String, MaterialDesc>,
    path: &str,
) -> Result<Vec<Option<ColliderHandle>>, FieldError> {
    let mut handles = Vec::with_capacity(shapes.len());
    for (j, (desc, placed)) in shapes.iter().enumerate() {
        if !desc.collide {
            handles.push(None);
            continue;
        }
        let field = format!("{path}.shapes[{j}]");
        let engine = |e: stiction::WorldError| FieldError::invalid(field.clone(), e.to_string());
        let builder = match &placed.geometry {
            &Geometry::Box(half) => ColliderBuilder::cuboid(half),
            &Geometry::Sphere(r) => ColliderBuilder::ball(r),
            &Geometry::Capsule(r, hh) => ColliderBuilder::capsule(hh, r),
            &Geometry::Cylinder(r, hh) => ColliderBuilder::cylinder(hh, r),
            Geometry::Plane => ColliderBuilder::halfspace(Vec3::Z),
            Geometry::Convex(hull) => ColliderBuilder::convex_hull(&hull.vertices),
            Geometry::TriMesh(mesh) => {
                ColliderBuilder::trimesh(mesh.vertices.clone(), mesh.triangles.clone())
            }
            Geometry::Heightfield(grid) => ColliderBuilder::heightfield(
                grid.rows,
                grid.cols,
                &grid.heights,
                Vec3::new(grid.size[0], grid.size[1], 1.0),
            ),
        }
        .map_err(engine)?;
        let material = match desc.material.as_ref().and_then(|m| materials.get(m)) {
            Some(m) => {
                let mut material = Material::new(m.friction, m.restitution).map_err(engine)?;
                if let Some(threshold) = m.restitution_threshold {
                    material = material.with_restitution_threshold(threshold);
                    // The builder does not check the threshold; the engine would only at
                    // the first contact.
                    material.validate().map_err(engine)?;
                }
                material
            }
            None => Material::DEFAULT,
        };
        let pose = Pose {
            position: placed.offset,
            orientation: placed.rotation,
        };
        let builder = builder.pose(pose).material(material).sensor(desc.sensor);
        handles.push(Some(
            world.add_collider(builder, Some(body)).map_err(engine)?,
        ));
    }
    Ok(handles)
}

/// The pairs of bodies joined by a joint without `collide_connected`, which must not
/// collide (ODE's and Box2D's default: a ragdoll's overlapping limbs must not push each
/// other apart).
pub fn jointed_pairs(
    joints: &[JointDesc],
    handle_of: impl Fn(&str) -> Option<BodyHandle>,
) -> Vec<(BodyHandle, BodyHandle)> {
    joints
        .iter()
        .filter(|j| !j.collide_connected)
        .filter_map(|j| Some((handle_of(&j.body_a)?, handle_of(&j.body_b)?)))
        .collect()
}

/// Installs the one contact hook of a scene: contacts between the bodies of each pair of
/// `pairs` are rejected, and so are contacts between two colliders of `masks` (MuJoCo's
/// `(contype, conaffinity)`) whose masks forbid them (`stiction_models::model_contact_filter`;
/// the world has one hook, so the scene's jointed bodies and every model's adjacent links
/// and masks share it). Without pairs or masks no hook is installed.
pub fn install_contact_filter(
    world: &mut World,
    pairs: &[(BodyHandle, BodyHandle)],
    masks: &BTreeMap<ColliderHandle, (u32, u32)>,
) {
    if !pairs.is_empty() || !masks.is_empty() {
        world.set_contact_hook(stiction_models::model_contact_filter(
            pairs.to_vec(),
            masks.clone(),
        ));
    }
}
