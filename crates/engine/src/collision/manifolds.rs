//! The two contact-manifold paths of parry that allocate on every call, made to reuse
//! the pipeline's scratch instead (a resting step allocates nothing); every other pair
//! goes to parry's dispatcher.
//!
//! - A half-space against a shape with polygonal features (box, cylinder, cone, capsule,
//!   convex hull): parry's `contact_manifold_halfspace_pfm` moves the old points out to
//!   match them against the new ones and grows a fresh list: one allocation per ground
//!   pair per step. [`halfspace_polygonal_manifold`] computes the same geometry (the
//!   shape's support feature facing the half-space; each of its vertices within
//!   `prediction` of the plane is a contact, identified by the vertex's feature id).
//! - Two cuboids: parry's `contact_manifold_cuboid_cuboid` clones the old points
//!   whenever its cheap update is refused. [`cuboid_pair_manifold`] makes that update
//!   itself, and otherwise moves the old points to the scratch list before calling
//!   parry (which then clones an empty list) and carries their memory over after.
//!
//! Both give exactly the manifolds (and carried-over memory) of parry's own functions.

use crate::contact::ContactMemory;
use crate::parry::math::Pose as ParryPose;
use crate::parry::query::details::contact_manifold_cuboid_cuboid;
use crate::parry::query::{ContactManifold, TrackedContact};
use crate::parry::shape::{HalfSpace, PackedFeatureId, PolygonalFeature, Shape, ShapeType};

/// The manifolds of one pair, as the pipeline keeps them.
type Manifolds = Vec<ContactManifold<(), ContactMemory>>;

/// Computes the manifold of `shape1` and `shape2` (shape 2's pose in shape 1's frame is
/// `pos12`) if one is a half-space and the other a non-composite shape with polygonal
/// features other than a ball (parry's own path is as cheap for balls and allocates
/// nothing); returns `false`, touching nothing, for any other pair. `old` is scratch.
pub(crate) fn halfspace_polygonal_manifold(
    pos12: &ParryPose,
    shape1: &dyn Shape,
    shape2: &dyn Shape,
    prediction: f64,
    manifolds: &mut Manifolds,
    old: &mut Vec<TrackedContact<ContactMemory>>,
) -> bool {
    let polygonal = |shape: &dyn Shape| {
        !matches!(shape.shape_type(), ShapeType::Ball | ShapeType::HalfSpace)
            && shape.as_composite_shape().is_none()
    };
    let (halfspace, other, pose, flipped): (&HalfSpace, &dyn Shape, ParryPose, bool) =
        match (shape1.as_halfspace(), shape2.as_halfspace()) {
            (Some(h), None) if polygonal(shape2) => (h, shape2, *pos12, false),
            (None, Some(h)) if polygonal(shape1) => (h, shape1, pos12.inverse(), true),
            _ => return false,
        };
    let Some((features, border_radius)) = other.as_polygonal_feature_map() else {
        return false;
    };
    // The half-space's outward normal in the other shape's frame; the feature facing the
    // half-space is the support feature along its opposite.
    let normal_in_other = pose.rotation.inverse() * halfspace.normal;
    let mut feature = PolygonalFeature::default();
    features.local_support_feature(-normal_in_other, &mut feature);
    if manifolds.is_empty() {
        manifolds.push(ContactManifold::new());
    }
    manifolds.truncate(1);
    let manifold = &mut manifolds[0];
    old.clear();
    old.extend_from_slice(&manifold.points);
    manifold.points.clear();
    for (vertex, id) in feature
        .vertices
        .iter()
        .zip(feature.vids)
        .take(feature.num_vertices)
    {
        let in_halfspace = pose.transform_point(*vertex);
        let height = in_halfspace.dot(halfspace.normal);
        let distance = height - border_radius;
        if distance <= prediction {
            manifold.points.push(TrackedContact::flipped(
                in_halfspace - halfspace.normal * height,
                *vertex - normal_in_other * border_radius,
                PackedFeatureId::face(0),
                id,
                distance,
                flipped,
            ));
        }
    }
    if flipped {
        manifold.local_n1 = -normal_in_other;
        manifold.local_n2 = halfspace.normal;
    } else {
        manifold.local_n1 = halfspace.normal;
        manifold.local_n2 = -normal_in_other;
    }
    // Carries each point's memory (warm starts) over from the point of the same features.
    manifold.match_contacts(old);
    true
}

/// Computes the manifold of two cuboids (shape 2's pose in shape 1's frame is `pos12`) by
/// parry's algorithm without its copy of the old points; returns `false`, touching
/// nothing, unless both shapes are cuboids. `old` is scratch.
pub(crate) fn cuboid_pair_manifold(
    pos12: &ParryPose,
    shape1: &dyn Shape,
    shape2: &dyn Shape,
    prediction: f64,
    manifolds: &mut Manifolds,
    old: &mut Vec<TrackedContact<ContactMemory>>,
) -> bool {
    let (Some(cuboid1), Some(cuboid2)) = (shape1.as_cuboid(), shape2.as_cuboid()) else {
        return false;
    };
    // parry's dispatcher keeps a convex pair's manifold in the first slot.
    if manifolds.is_empty() {
        manifolds.push(ContactManifold::new());
    }
    let manifold = &mut manifolds[0];
    // parry's own first step: small relative motions only move the known points.
    if manifold.try_update_contacts(pos12) {
        return true;
    }
    old.clear();
    old.extend_from_slice(&manifold.points);
    manifold.points.clear();
    contact_manifold_cuboid_cuboid(pos12, cuboid1, cuboid2, prediction, manifold);
    manifold.match_contacts(old);
    true
}
