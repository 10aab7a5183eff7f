//! The collision side of a scene: one engine collider per colliding shape, with its material,
//! and the filter that keeps jointed bodies from colliding unless a joint asks for it.

use std::collections::{BTreeMap, HashSet};

use stiction::math::Vec3;
use stiction::{BodyHandle, ColliderBuilder, Material, Pose, World};
use stiction::{ContactCandidate, HookAction};

use crate::scene::build::{Geometry, PlacedShape};
use crate::scene::error::FieldError;
use crate::scene::schema::{JointDesc, MaterialDesc, ShapeDesc};

/// Adds a collider for every shape of `body` that collides.
pub fn add_colliders(
    world: &mut World,
    body: BodyHandle,
    shapes: &[(&ShapeDesc, PlacedShape)],
    materials: &BTreeMap<String, MaterialDesc>,
    path: &str,
) -> Result<(), FieldError> {
    for (j, (desc, placed)) in shapes.iter().enumerate() {
        if !desc.collide {
            continue;
        }
        let field = format!("{path}.shapes[{j}]");
        let engine = |e: stiction::WorldError| FieldError::invalid(field.clone(), e.to_string());
        let builder = match placed.geometry {
            Geometry::Box(half) => ColliderBuilder::cuboid(half),
            Geometry::Sphere(r) => ColliderBuilder::ball(r),
            Geometry::Capsule(r, hh) => ColliderBuilder::capsule(hh, r),
            Geometry::Cylinder(r, hh) => ColliderBuilder::cylinder(hh, r),
            Geometry::Plane => ColliderBuilder::halfspace(Vec3::Z),
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
        world
            .add_collider(builder.pose(pose).material(material), Some(body))
            .map_err(engine)?;
    }
    Ok(())
}

/// Rejects contacts between bodies joined by a joint without `collide_connected` (ODE's and
/// Box2D's default: a ragdoll's overlapping limbs must not push each other apart).
pub fn filter_jointed_pairs(
    world: &mut World,
    joints: &[JointDesc],
    handle_of: impl Fn(&str) -> Option<BodyHandle>,
) {
    let pairs: HashSet<(BodyHandle, BodyHandle)> = joints
        .iter()
        .filter(|j| !j.collide_connected)
        .filter_map(|j| Some(ordered(handle_of(&j.body_a)?, handle_of(&j.body_b)?)))
        .collect();
    if pairs.is_empty() {
        return;
    }
    world.set_contact_hook(
        move |contact: &mut ContactCandidate| match contact.geometry().bodies {
            [Some(a), Some(b)] if pairs.contains(&ordered(a, b)) => HookAction::Reject,
            _ => HookAction::Keep,
        },
    );
}

fn ordered(a: BodyHandle, b: BodyHandle) -> (BodyHandle, BodyHandle) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}
