//! The two contact-manifold paths of parry that allocate on every call, made to reuse
//! the pipeline's scratch instead (a resting step allocates nothing), and the ball pair
//! without the dispatcher's type checks; every other pair goes to parry's dispatcher.
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
use crate::parry::query::details::{contact_manifold_ball_ball, contact_manifold_cuboid_cuboid};
use crate::parry::query::{ContactManifold, TrackedContact};
use crate::parry::shape::{HalfSpace, PackedFeatureId, PolygonalFeature, Shape, ShapeType};

/// The manifolds of one pair, as the pipeline keeps them.
type Manifolds = Vec<ContactManifold<(), ContactMemory>>;

/// Computes the manifold of `shape1` and `shape2` (shape 2's pose in shape 1's frame is
/// `pos12`) if one is a half-space and the other a non-composite shape with polygonal
/// features other than a ball (parry's own path is as cheap for balls and allocates
/// nothing); returns `false`, touching nothing, for any other pair. `old` is scratch.
#[inline(always)]
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

/// Computes the manifold of two balls exactly as parry's dispatcher does (its convex pair
/// path: the first manifold, made if missing), without the dispatcher's type checks;
/// returns `false`, touching nothing, unless both shapes are balls.
#[inline(always)]
pub(crate) fn ball_pair_manifold(
    pos12: &ParryPose,
    shape1: &dyn Shape,
    shape2: &dyn Shape,
    prediction: f64,
    manifolds: &mut Manifolds,
) -> bool {
    let (Some(ball1), Some(ball2)) = (shape1.as_ball(), shape2.as_ball()) else {
        return false;
    };
    if manifolds.is_empty() {
        manifolds.push(ContactManifold::new());
    }
    contact_manifold_ball_ball(pos12, ball1, ball2, prediction, &mut manifolds[0]);
    true
}

/// Computes the manifold of two cuboids (shape 2's pose in shape 1's frame is `pos12`) by
/// parry's algorithm without its copy of the old points; returns `false`, touching
/// nothing, unless both shapes are cuboids. `old` is scratch.
#[inline(always)]
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Quat, Vec3};
    use crate::parry::query::details::contact_manifold_halfspace_pfm_shapes;
    use crate::parry::shape::{Capsule, Cone, Cuboid, Cylinder, HalfSpace};

    /// A deterministic walk of relative poses: small drifts with an occasional jump, so
    /// both parry's cheap update and full recomputations happen.
    fn poses(count: usize) -> Vec<ParryPose> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let (mut position, mut axis_angle) = (Vec3::new(0.0, 0.0, 0.45), Vec3::ZERO);
        (0..count)
            .map(|k| {
                let scale = if k % 7 == 0 { 0.3 } else { 0.002 };
                position += Vec3::new(next(), next(), next()) * scale;
                position.z = position.z.clamp(0.0, 0.6);
                axis_angle += Vec3::new(next(), next(), next()) * scale;
                ParryPose::from_parts(position, Quat::from_scaled_axis(axis_angle))
            })
            .collect()
    }

    /// Gives each point of a fresh manifold a distinct memory, as a step would.
    fn mark(manifold: &mut ContactManifold<(), ContactMemory>, step: usize) {
        for (i, point) in manifold.points.iter_mut().enumerate() {
            if point.data.normal == 0.0 {
                point.data.normal = (step * 10 + i + 1) as f64;
            }
        }
    }

    fn same(
        ours: &ContactManifold<(), ContactMemory>,
        parry: &ContactManifold<(), ContactMemory>,
    ) -> bool {
        ours.local_n1 == parry.local_n1
            && ours.local_n2 == parry.local_n2
            && ours.points.len() == parry.points.len()
            && ours.points.iter().zip(&parry.points).all(|(a, b)| {
                (a.local_p1, a.local_p2, a.dist, a.fid1, a.fid2, a.data)
                    == (b.local_p1, b.local_p2, b.dist, b.fid1, b.fid2, b.data)
            })
    }

    /// Asserts both manifolds agree, counts a touching step, then gives the new points
    /// their memories for the next step to carry over.
    fn compare_then_mark(
        ours: &mut ContactManifold<(), ContactMemory>,
        theirs: &mut ContactManifold<(), ContactMemory>,
        step: usize,
        touching: &mut usize,
        label: &str,
    ) {
        assert!(same(ours, theirs), "{label}");
        *touching += usize::from(!theirs.points.is_empty());
        mark(ours, step);
        mark(theirs, step);
    }

    #[test]
    fn halfspace_manifolds_match_parrys_and_carry_memory_over() {
        let halfspace = HalfSpace::new(Vec3::Z);
        let shapes: [Box<dyn Shape>; 4] = [
            Box::new(Cuboid::new(Vec3::new(0.5, 0.3, 0.2))),
            Box::new(Cylinder::new(0.3, 0.2)),
            Box::new(Cone::new(0.3, 0.2)),
            Box::new(Capsule::new_z(0.2, 0.1)),
        ];
        let mut scratch = Vec::new();
        for shape in &shapes {
            for flipped in [false, true] {
                let (mut ours, mut theirs) = (Vec::new(), ContactManifold::new());
                let mut touching = 0;
                for (step, pos) in poses(200).into_iter().enumerate() {
                    let (pos12, shape1, shape2): (ParryPose, &dyn Shape, &dyn Shape) = if flipped {
                        (pos.inverse(), shape.as_ref(), &halfspace)
                    } else {
                        (pos, &halfspace, shape.as_ref())
                    };
                    assert!(halfspace_polygonal_manifold(
                        &pos12,
                        shape1,
                        shape2,
                        0.01,
                        &mut ours,
                        &mut scratch
                    ));
                    contact_manifold_halfspace_pfm_shapes(
                        &pos12,
                        shape1,
                        shape2,
                        0.01,
                        &mut theirs,
                    );
                    let label = format!("step {step}, flipped {flipped}");
                    compare_then_mark(&mut ours[0], &mut theirs, step, &mut touching, &label);
                }
                assert!(touching > 20, "the walk must touch the plane: {touching}");
            }
        }
    }

    #[test]
    fn cuboid_pair_manifolds_match_parrys_and_carry_memory_over() {
        let (a, b) = (
            Cuboid::new(Vec3::new(0.5, 0.5, 0.5)),
            Cuboid::new(Vec3::new(0.4, 0.3, 0.2)),
        );
        let (mut ours, mut theirs) = (Vec::new(), ContactManifold::new());
        let mut scratch = Vec::new();
        let mut touching = 0;
        for (step, mut pos) in poses(300).into_iter().enumerate() {
            // Box b near the top face of box a.
            pos.translation.z += 0.5;
            assert!(cuboid_pair_manifold(
                &pos,
                &a,
                &b,
                0.01,
                &mut ours,
                &mut scratch
            ));
            contact_manifold_cuboid_cuboid(&pos, &a, &b, 0.01, &mut theirs);
            let label = format!("step {step}");
            compare_then_mark(&mut ours[0], &mut theirs, step, &mut touching, &label);
        }
        assert!(touching > 20, "the walk must touch: {touching}");
    }

    #[test]
    fn ball_pair_manifolds_match_parrys_dispatcher() {
        use crate::parry::query::{DefaultQueryDispatcher, PersistentQueryDispatcher};
        let (a, b) = (
            crate::parry::shape::Ball::new(0.5),
            crate::parry::shape::Ball::new(0.3),
        );
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        let mut workspace = None;
        let mut touching = 0;
        for (step, mut pos) in poses(300).into_iter().enumerate() {
            // Ball b near the top of ball a (centres 0.3 to 0.9 m apart, radii 0.8).
            pos.translation.z += 0.3;
            assert!(ball_pair_manifold(&pos, &a, &b, 0.01, &mut ours));
            DefaultQueryDispatcher
                .contact_manifolds(&pos, &a, &b, 0.01, &mut theirs, &mut workspace)
                .unwrap();
            assert_eq!((ours.len(), theirs.len()), (1, 1));
            let label = format!("step {step}");
            compare_then_mark(&mut ours[0], &mut theirs[0], step, &mut touching, &label);
        }
        assert!(touching > 20, "the walk must touch: {touching}");
        let cuboid = Cuboid::new(Vec3::splat(0.5));
        let mut untouched = Vec::new();
        let pose = ParryPose::IDENTITY;
        assert!(!ball_pair_manifold(
            &pose,
            &a,
            &cuboid,
            0.01,
            &mut untouched
        ));
        assert!(untouched.is_empty());
    }

    #[test]
    fn other_pairs_are_left_to_parry() {
        let (ball, cuboid) = (
            crate::parry::shape::Ball::new(0.5),
            Cuboid::new(Vec3::splat(0.5)),
        );
        let halfspace = HalfSpace::new(Vec3::Z);
        let pose = ParryPose::IDENTITY;
        let (mut manifolds, mut scratch) = (Vec::new(), Vec::new());
        assert!(!halfspace_polygonal_manifold(
            &pose,
            &halfspace,
            &ball,
            0.01,
            &mut manifolds,
            &mut scratch
        ));
        assert!(!halfspace_polygonal_manifold(
            &pose,
            &halfspace,
            &halfspace,
            0.01,
            &mut manifolds,
            &mut scratch
        ));
        assert!(!cuboid_pair_manifold(
            &pose,
            &ball,
            &cuboid,
            0.01,
            &mut manifolds,
            &mut scratch
        ));
        assert!(manifolds.is_empty());
    }
}
