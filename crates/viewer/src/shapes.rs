//! Colliders' parry shapes to the viewer's [`Geometry`].

use std::f64::consts::FRAC_PI_2;

use stiction::math::{Quat, Vec3};
use stiction::parry::math::Pose as ParryPose;
use stiction::parry::shape::{Shape, TypedShape};
use stiction::{Collider, Pose};

use crate::scene::{vec3, Geometry, ViewerPose, ViewerShape};

/// Subdivisions are not needed: round shapes are sent as parameters and tessellated by the
/// page. Shapes of no volume or surface (segments, polylines) and custom shapes are skipped.
pub(crate) fn collider_shapes(collider: &Collider) -> Vec<ViewerShape> {
    // Relative to the body: the collider's pose and the engine's turn of y-axis shapes.
    let pose = collider.shape_pose(&Pose::IDENTITY);
    let mut out = Vec::new();
    convert(&**collider.shape(), &pose, &mut out);
    out
}

/// The rotation taking the viewer's z axis to parry's y axis.
fn z_to_y() -> Quat {
    Quat::from_rotation_x(-FRAC_PI_2)
}

fn push(out: &mut Vec<ViewerShape>, geometry: Geometry, pose: &ParryPose) {
    out.push(ViewerShape {
        geometry,
        pose: ViewerPose::new(pose.translation, pose.rotation),
    });
}

fn mesh_parts(vertices: &[Vec3], indices: &[[u32; 3]]) -> (Vec<[f64; 3]>, Vec<[u32; 3]>) {
    (
        vertices.iter().map(|&v| vec3(v)).collect(),
        indices.to_vec(),
    )
}

fn convert(shape: &dyn Shape, pose: &ParryPose, out: &mut Vec<ViewerShape>) {
    let along_y = |rotation: Quat| *pose * ParryPose::from_parts(Vec3::ZERO, rotation);
    match shape.as_typed_shape() {
        TypedShape::Ball(b) => push(out, Geometry::Sphere { radius: b.radius }, pose),
        TypedShape::Cuboid(c) => push(
            out,
            Geometry::Box {
                half_extents: vec3(c.half_extents),
            },
            pose,
        ),
        TypedShape::RoundCuboid(c) => push(
            out,
            Geometry::Box {
                half_extents: vec3(c.inner_shape.half_extents + Vec3::splat(c.border_radius)),
            },
            pose,
        ),
        TypedShape::Capsule(c) => {
            let (a, b) = (c.segment.a, c.segment.b);
            let centre = (a + b) * 0.5;
            let length = (b - a).length();
            if length <= 0.0 {
                let p = *pose * ParryPose::from_parts(centre, Quat::IDENTITY);
                push(out, Geometry::Sphere { radius: c.radius }, &p);
            } else {
                let r = Quat::from_rotation_arc(Vec3::Z, (b - a) / length);
                let p = *pose * ParryPose::from_parts(centre, r);
                let g = Geometry::Capsule {
                    radius: c.radius,
                    half_height: length * 0.5,
                };
                push(out, g, &p);
            }
        }
        TypedShape::Cylinder(c) => push(
            out,
            Geometry::Cylinder {
                radius: c.radius,
                half_height: c.half_height,
            },
            &along_y(z_to_y()),
        ),
        TypedShape::RoundCylinder(c) => push(
            out,
            Geometry::Cylinder {
                radius: c.inner_shape.radius + c.border_radius,
                half_height: c.inner_shape.half_height + c.border_radius,
            },
            &along_y(z_to_y()),
        ),
        TypedShape::Cone(c) => push(
            out,
            Geometry::Cone {
                radius: c.radius,
                half_height: c.half_height,
            },
            &along_y(z_to_y()),
        ),
        TypedShape::RoundCone(c) => push(
            out,
            Geometry::Cone {
                radius: c.inner_shape.radius + c.border_radius,
                half_height: c.inner_shape.half_height + c.border_radius,
            },
            &along_y(z_to_y()),
        ),
        TypedShape::HalfSpace(h) => push(
            out,
            Geometry::Plane {
                normal: vec3(h.normal),
            },
            pose,
        ),
        TypedShape::TriMesh(m) => {
            let (vertices, indices) = mesh_parts(m.vertices(), m.indices());
            push(out, Geometry::Mesh { vertices, indices }, pose);
        }
        TypedShape::ConvexPolyhedron(c) => {
            let (v, i) = c.to_trimesh();
            let (vertices, indices) = mesh_parts(&v, &i);
            push(out, Geometry::Convex { vertices, indices }, pose);
        }
        TypedShape::RoundConvexPolyhedron(c) => {
            let (v, i) = c.inner_shape.to_trimesh();
            let (vertices, indices) = mesh_parts(&v, &i);
            push(out, Geometry::Convex { vertices, indices }, pose);
        }
        TypedShape::HeightField(h) => {
            let (v, i) = h.to_trimesh();
            let (vertices, indices) = mesh_parts(&v, &i);
            push(out, Geometry::Heightfield { vertices, indices }, pose);
        }
        TypedShape::Voxels(v) => {
            let (v, i) = v.to_trimesh();
            let (vertices, indices) = mesh_parts(&v, &i);
            push(out, Geometry::Mesh { vertices, indices }, pose);
        }
        TypedShape::Triangle(t) => {
            let (vertices, indices) = mesh_parts(t.vertices(), &[[0, 1, 2]]);
            push(out, Geometry::Mesh { vertices, indices }, pose);
        }
        TypedShape::RoundTriangle(t) => {
            let (vertices, indices) = mesh_parts(t.inner_shape.vertices(), &[[0, 1, 2]]);
            push(out, Geometry::Mesh { vertices, indices }, pose);
        }
        TypedShape::Compound(c) => {
            for (part_pose, part) in c.shapes() {
                convert(&**part, &(*pose * *part_pose), out);
            }
        }
        _ => {}
    }
}
