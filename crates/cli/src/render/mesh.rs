//! Triangle meshes of the scene's shapes, in the shape's own frame, with per-vertex normals
//! for smooth (Gouraud) shading. Capsules and cylinders run along local z, as in the engine.

use std::f64::consts::{PI, TAU};

use stiction::math::Vec3;

use crate::scene::geometry::TriangleMesh;
use crate::scene::Geometry;

/// Segments around a round shape's axis.
const SEGMENTS: usize = 20;
/// Rings from pole to pole of a sphere (half as many per capsule cap).
const RINGS: usize = 12;

/// An indexed triangle mesh; triangles are counter-clockwise seen from outside.
#[derive(Debug, Clone, Default)]
pub struct Mesh {
    /// Vertex positions, m.
    pub positions: Vec<Vec3>,
    /// Unit outward normals, one per vertex.
    pub normals: Vec<Vec3>,
    /// Vertex indices of each triangle.
    pub triangles: Vec<[u32; 3]>,
    /// Whether both sides are drawn (open surfaces such as the ground).
    pub two_sided: bool,
}

impl Mesh {
    fn vertex(&mut self, position: Vec3, normal: Vec3) -> u32 {
        self.positions.push(position);
        self.normals.push(normal);
        (self.positions.len() - 1) as u32
    }

    /// A quad `a b c d` (counter-clockwise) with one normal.
    fn quad(&mut self, corners: [Vec3; 4], normal: Vec3) {
        let i = corners.map(|c| self.vertex(c, normal));
        self.triangles.push([i[0], i[1], i[2]]);
        self.triangles.push([i[0], i[2], i[3]]);
    }

    /// Joins rings of vertices (each `SEGMENTS + 1` long, the seam repeated) into a strip;
    /// `rings` run in the direction that makes the quads counter-clockwise from outside.
    fn strip(&mut self, first: u32, rings: usize) {
        let stride = (SEGMENTS + 1) as u32;
        for r in 0..rings.saturating_sub(1) as u32 {
            for s in 0..SEGMENTS as u32 {
                let a = first + r * stride + s;
                let b = a + stride;
                self.triangles.push([a, a + 1, b + 1]);
                self.triangles.push([a, b + 1, b]);
            }
        }
    }
}

/// The mesh of `geometry`; a plane becomes a checkered square of side `2 * plane_half` made
/// of tiles of `tile` m (colour is chosen per triangle by the renderer from its index).
///
/// Convex hulls, triangle meshes and heightfields are drawn as their own triangles, flat
/// shaded (one normal per triangle); meshes and heightfields from both sides, since a mesh
/// file's winding is not known and a heightfield is an open surface.
pub fn mesh(geometry: &Geometry, plane_half: f64, tile: f64) -> Mesh {
    match geometry {
        &Geometry::Box(half) => cuboid(half),
        &Geometry::Sphere(r) => round(r, 0.0, RINGS),
        &Geometry::Capsule(r, hh) => round(r, hh, RINGS),
        &Geometry::Cylinder(r, hh) => cylinder(r, hh),
        Geometry::Plane => plane(plane_half, tile),
        Geometry::Convex(hull) => faceted(hull, false),
        Geometry::TriMesh(mesh) => faceted(mesh, true),
        Geometry::Heightfield(grid) => faceted(&grid.triangles(), true),
    }
}

/// Each triangle of `source` with its own three vertices and its face normal (degenerate
/// triangles are left out).
fn faceted(source: &TriangleMesh, two_sided: bool) -> Mesh {
    let mut m = Mesh {
        two_sided,
        ..Mesh::default()
    };
    for &t in &source.triangles {
        let [a, b, c] = source.corners(t);
        let Some(normal) = (b - a).cross(c - a).try_normalize() else {
            continue;
        };
        let i = [a, b, c].map(|p| m.vertex(p, normal));
        m.triangles.push(i);
    }
    m
}

fn cuboid(h: Vec3) -> Mesh {
    let mut m = Mesh::default();
    let (x, y, z) = (h.x, h.y, h.z);
    let v = |a: f64, b: f64, c: f64| Vec3::new(a, b, c);
    m.quad(
        [v(x, -y, -z), v(x, y, -z), v(x, y, z), v(x, -y, z)],
        Vec3::X,
    );
    m.quad(
        [v(-x, y, -z), v(-x, -y, -z), v(-x, -y, z), v(-x, y, z)],
        -Vec3::X,
    );
    m.quad(
        [v(x, y, -z), v(-x, y, -z), v(-x, y, z), v(x, y, z)],
        Vec3::Y,
    );
    m.quad(
        [v(-x, -y, -z), v(x, -y, -z), v(x, -y, z), v(-x, -y, z)],
        -Vec3::Y,
    );
    m.quad(
        [v(-x, -y, z), v(x, -y, z), v(x, y, z), v(-x, y, z)],
        Vec3::Z,
    );
    m.quad(
        [v(-x, y, -z), v(x, y, -z), v(x, -y, -z), v(-x, -y, -z)],
        -Vec3::Z,
    );
    m
}

/// A sphere (`half_height` 0) or a capsule: two hemispheres of `radius` whose centres are
/// `half_height` above and below the origin on z, joined by their equators.
fn round(radius: f64, half_height: f64, rings: usize) -> Mesh {
    let mut m = Mesh::default();
    let first = m.positions.len() as u32;
    // Latitude from the south pole (-pi/2) to the north pole; the equator is duplicated so
    // each hemisphere's vertices sit on its own centre.
    let half = rings / 2;
    let mut count = 0;
    for hemisphere in [-1.0, 1.0] {
        for r in 0..=half {
            let latitude = if hemisphere < 0.0 {
                -PI / 2.0 + PI / 2.0 * r as f64 / half as f64
            } else {
                PI / 2.0 * r as f64 / half as f64
            };
            let centre = Vec3::new(0.0, 0.0, hemisphere * half_height);
            for s in 0..=SEGMENTS {
                let longitude = TAU * s as f64 / SEGMENTS as f64;
                let normal = Vec3::new(
                    latitude.cos() * longitude.cos(),
                    latitude.cos() * longitude.sin(),
                    latitude.sin(),
                );
                m.vertex(centre + radius * normal, normal);
            }
            count += 1;
        }
    }
    m.strip(first, count);
    m
}

fn cylinder(radius: f64, half_height: f64) -> Mesh {
    let mut m = Mesh::default();
    let first = m.positions.len() as u32;
    for z in [-half_height, half_height] {
        for s in 0..=SEGMENTS {
            let angle = TAU * s as f64 / SEGMENTS as f64;
            let normal = Vec3::new(angle.cos(), angle.sin(), 0.0);
            m.vertex(radius * normal + Vec3::new(0.0, 0.0, z), normal);
        }
    }
    m.strip(first, 2);
    for (z, normal) in [(half_height, Vec3::Z), (-half_height, -Vec3::Z)] {
        let centre = m.vertex(Vec3::new(0.0, 0.0, z), normal);
        let rim = m.positions.len() as u32;
        for s in 0..SEGMENTS {
            let angle = TAU * s as f64 / SEGMENTS as f64;
            m.vertex(
                Vec3::new(radius * angle.cos(), radius * angle.sin(), z),
                normal,
            );
        }
        for s in 0..SEGMENTS as u32 {
            let (a, b) = (rim + s, rim + (s + 1) % SEGMENTS as u32);
            if normal.z > 0.0 {
                m.triangles.push([centre, a, b]);
            } else {
                m.triangles.push([centre, b, a]);
            }
        }
    }
    m
}

fn plane(half: f64, tile: f64) -> Mesh {
    let mut m = Mesh {
        two_sided: true,
        ..Mesh::default()
    };
    let n = ((2.0 * half / tile).ceil() as usize).clamp(1, 80);
    let step = 2.0 * half / n as f64;
    for i in 0..n {
        for j in 0..n {
            let (x0, y0) = (-half + i as f64 * step, -half + j as f64 * step);
            let (x1, y1) = (x0 + step, y0 + step);
            m.quad(
                [
                    Vec3::new(x0, y0, 0.0),
                    Vec3::new(x1, y0, 0.0),
                    Vec3::new(x1, y1, 0.0),
                    Vec3::new(x0, y1, 0.0),
                ],
                Vec3::Z,
            );
        }
    }
    m
}

/// Whether plane tile `triangle / 2` is a dark one of the checkerboard made by [`mesh`].
pub fn plane_tile_is_dark(triangle: usize, geometry_half: f64, tile: f64) -> bool {
    let n = ((2.0 * geometry_half / tile).ceil() as usize).clamp(1, 80);
    let quad = triangle / 2;
    (quad / n + quad % n) % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A closed mesh's signed volume (divergence theorem) equals the solid's volume when
    /// every triangle winds counter-clockwise from outside; normals point outward.
    fn signed_volume(m: &Mesh) -> f64 {
        m.triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| m.positions[i as usize]);
                a.dot(b.cross(c)) / 6.0
            })
            .sum()
    }

    #[test]
    fn closed_meshes_wind_outward_and_enclose_about_the_right_volume() {
        let cases = [
            (Geometry::Box(Vec3::new(0.5, 0.2, 0.1)), 0.08),
            (Geometry::Sphere(1.0), 4.0 / 3.0 * PI),
            (Geometry::Cylinder(0.5, 1.0), PI * 0.25 * 2.0),
            (
                Geometry::Capsule(0.5, 1.0),
                PI * 0.25 * 2.0 + 4.0 / 3.0 * PI * 0.125,
            ),
        ];
        for (geometry, volume) in cases {
            let m = mesh(&geometry, 1.0, 1.0);
            let v = signed_volume(&m);
            // Polygonal approximations of round shapes lose a few per cent.
            assert!(
                v > 0.95 * volume && v <= volume * (1.0 + 1e-12),
                "{geometry:?}: {v} vs {volume}"
            );
            for t in &m.triangles {
                let [a, b, c] = t.map(|i| m.positions[i as usize]);
                let centroid = (a + b + c) / 3.0;
                let face = (b - a).cross(c - a);
                // Outward: the face normal points away from the shape's axis or centre.
                assert!(face.dot(centroid) >= -1e-12, "{geometry:?}");
            }
        }
    }
}
