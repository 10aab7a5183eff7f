//! Shapes made of triangles: convex hulls (of points or of a mesh file), triangle meshes and
//! heightfields. The same data gives the engine its collider, the body its mass properties
//! (hulls) and the renderer its triangles, so what is drawn is what collides.

use std::path::{Path, PathBuf};

use stiction::math::{Mat3, Vec3};
use stiction::MassProperties;

/// An indexed triangle mesh, m, in the shape frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TriangleMesh {
    /// Vertex positions.
    pub vertices: Vec<Vec3>,
    /// Vertex indices of each triangle (a hull's wind counter-clockwise from outside).
    pub triangles: Vec<[u32; 3]>,
}

impl TriangleMesh {
    /// The corners of triangle `t`.
    pub fn corners(&self, t: [u32; 3]) -> [Vec3; 3] {
        t.map(|i| self.vertices[i as usize])
    }

    /// The largest distance of a vertex from the shape origin, m.
    pub fn radius(&self) -> f64 {
        self.vertices.iter().map(|v| v.length()).fold(0.0, f64::max)
    }

    /// Volume (m^3), centre and inertia tensor about the centre per unit density (m^5) of
    /// the solid the closed surface bounds, summed over signed tetrahedra from the origin;
    /// the winding may be either way round.
    pub fn solid(&self) -> (f64, Vec3, Mat3) {
        let mut volume = 0.0;
        let mut first = Vec3::ZERO;
        // Integrals of x_i x_j over the solid about the origin: xx, yy, zz, xy, xz, yz.
        let mut second = [0.0; 6];
        const PAIRS: [(usize, usize); 6] = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)];
        for &t in &self.triangles {
            let [a, b, c] = self.corners(t);
            let v = a.dot(b.cross(c)) / 6.0;
            volume += v;
            first += v * (a + b + c) / 4.0;
            // Over a tetrahedron with one vertex at the origin:
            // v/20 (sum_k p_ki p_kj + (sum_k p_ki)(sum_k p_kj)).
            let s = a + b + c;
            for (k, (i, j)) in PAIRS.into_iter().enumerate() {
                second[k] += v / 20.0 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
            }
        }
        if volume < 0.0 {
            volume = -volume;
            first = -first;
            second = second.map(|x| -x);
        }
        let c = if volume > 0.0 {
            first / volume
        } else {
            Vec3::ZERO
        };
        let m = [
            second[0] - volume * c.x * c.x,
            second[1] - volume * c.y * c.y,
            second[2] - volume * c.z * c.z,
            second[3] - volume * c.x * c.y,
            second[4] - volume * c.x * c.z,
            second[5] - volume * c.y * c.z,
        ];
        let inertia = Mat3::from_cols(
            Vec3::new(m[1] + m[2], -m[3], -m[4]),
            Vec3::new(-m[3], m[0] + m[2], -m[5]),
            Vec3::new(-m[4], -m[5], m[0] + m[1]),
        );
        (volume, c, inertia)
    }

    /// The mesh with its triangles turned, if need be, so that the signed volume is
    /// positive: counter-clockwise from outside for a closed surface.
    pub fn wound_outward(mut self) -> Self {
        let signed: f64 = self
            .triangles
            .iter()
            .map(|&t| {
                let [a, b, c] = self.corners(t);
                a.dot(b.cross(c))
            })
            .sum();
        if signed < 0.0 {
            for t in &mut self.triangles {
                t.swap(1, 2);
            }
        }
        self
    }

    /// Mass properties of the solid at `density` (kg/m^3), in the shape frame.
    pub fn mass_properties(&self, density: f64) -> Result<MassProperties, String> {
        let (volume, center, inertia) = self.solid();
        if !(volume > 0.0 && volume.is_finite()) {
            return Err("the convex hull has no volume".into());
        }
        MassProperties::new(density * volume, center, inertia * density).map_err(|e| e.to_string())
    }
}

/// The convex hull of `points`, its triangles wound counter-clockwise from outside; an
/// error if the points span no volume.
pub fn convex_hull(points: &[Vec3]) -> Result<TriangleMesh, String> {
    if points.len() < 4 || !points.iter().all(|p| p.is_finite()) {
        return Err(format!(
            "a convex hull needs at least 4 finite points, got {}",
            points.len()
        ));
    }
    let (vertices, triangles) = stiction::parry::transformation::try_convex_hull(points)
        .map_err(|e| format!("the points have no convex hull ({e:?}): they span no volume"))?;
    let hull = TriangleMesh {
        vertices,
        triangles,
    }
    .wound_outward();
    let (volume, _, _) = hull.solid();
    // Relative to the hull's size: points on a plane give round-off, not volume.
    let size = hull.radius().max(f64::MIN_POSITIVE);
    // Written so that a NaN or infinite volume (points near the largest floats) is refused.
    let enough = volume.is_finite() && volume > 1e-12 * size.powi(3);
    if !enough {
        return Err("the points span no volume (they lie on a plane or a line)".into());
    }
    Ok(hull)
}

/// A heightfield: `rows x cols` heights (m, row-major), row `i` at
/// `x = (i / (rows - 1) - 1/2) size[0]`, column `j` at `y = (j / (cols - 1) - 1/2) size[1]`,
/// as [`stiction::ColliderBuilder::heightfield`] lays them out.
#[derive(Debug, Clone, PartialEq)]
pub struct HeightGrid {
    /// Samples along x.
    pub rows: usize,
    /// Samples along y.
    pub cols: usize,
    /// Heights, m, `heights[i * cols + j]`.
    pub heights: Vec<f64>,
    /// Extent along x and y, m.
    pub size: [f64; 2],
}

impl HeightGrid {
    /// The grid of a validated `heights` table (rows of equal length).
    pub fn new(heights: &[Vec<f64>], size: [f64; 2]) -> Self {
        Self {
            rows: heights.len(),
            cols: heights.first().map_or(0, Vec::len),
            heights: heights.iter().flatten().copied().collect(),
            size,
        }
    }

    /// Sample `(i, j)` as a point of the shape frame.
    pub fn point(&self, i: usize, j: usize) -> Vec3 {
        let along =
            |k: usize, n: usize, extent: f64| (k as f64 / (n - 1).max(1) as f64 - 0.5) * extent;
        Vec3::new(
            along(i, self.rows, self.size[0]),
            along(j, self.cols, self.size[1]),
            self.heights[i * self.cols + j],
        )
    }

    /// The surface as triangles, two per cell, counter-clockwise seen from above.
    pub fn triangles(&self) -> TriangleMesh {
        let mut mesh = TriangleMesh::default();
        for i in 0..self.rows {
            for j in 0..self.cols {
                mesh.vertices.push(self.point(i, j));
            }
        }
        let index = |i: usize, j: usize| (i * self.cols + j) as u32;
        for i in 0..self.rows.saturating_sub(1) {
            for j in 0..self.cols.saturating_sub(1) {
                let (a, b, c, d) = (
                    index(i, j),
                    index(i + 1, j),
                    index(i + 1, j + 1),
                    index(i, j + 1),
                );
                mesh.triangles.push([a, b, c]);
                mesh.triangles.push([a, c, d]);
            }
        }
        mesh
    }

    /// The largest distance of a sample from the shape origin, m.
    pub fn radius(&self) -> f64 {
        let half = 0.5 * Vec3::new(self.size[0], self.size[1], 0.0).length();
        let high = self.heights.iter().fold(0.0_f64, |m, h| m.max(h.abs()));
        (half * half + high * high).sqrt()
    }
}

/// A path of the scene file (`file`, `model_path`): as written when absolute, else
/// relative to `base`, the scene file's folder.
pub fn resolve(base: &Path, file: &str) -> PathBuf {
    let path = Path::new(file);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// The triangles of the mesh file at `path` (STL, OBJ or COLLADA), scaled; the error says
/// what is wrong with the file.
pub fn read_mesh(path: &Path, scale: [f64; 3]) -> Result<TriangleMesh, String> {
    if !path.is_file() {
        return Err(format!("no mesh file {}", path.display()));
    }
    let (vertices, triangles) = stiction_models::read_mesh(path, Vec3::from_array(scale))
        .map_err(|e| format!("cannot read the mesh {}: {e}", path.display()))?;
    Ok(TriangleMesh {
        vertices,
        triangles,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube_corners(h: Vec3) -> Vec<Vec3> {
        (0..8)
            .map(|k| {
                let pick = |bit: usize, v: f64| if k & bit == 0 { -v } else { v };
                Vec3::new(pick(1, h.x), pick(2, h.y), pick(4, h.z))
            })
            .collect()
    }

    #[test]
    fn the_hull_of_box_corners_has_the_box_mass_properties() {
        let half = Vec3::new(0.5, 0.2, 0.1);
        let offset = Vec3::new(1.0, -2.0, 0.5);
        let points: Vec<Vec3> = cube_corners(half).into_iter().map(|p| p + offset).collect();
        let hull = convex_hull(&points).unwrap();
        let got = hull.mass_properties(700.0).unwrap();
        let box_ = MassProperties::cuboid(half, 700.0).unwrap();
        assert!((got.mass() - box_.mass()).abs() < 1e-9 * box_.mass());
        assert!((got.center() - offset).length() < 1e-12);
        let diff = got.inertia() - box_.inertia();
        for col in [diff.x_axis, diff.y_axis, diff.z_axis] {
            assert!(
                col.length() < 1e-9,
                "{:?} vs {:?}",
                got.inertia(),
                box_.inertia()
            );
        }
        // Outward winding: every face normal points away from the centre.
        for &t in &hull.triangles {
            let [a, b, c] = hull.corners(t);
            assert!((b - a).cross(c - a).dot((a + b + c) / 3.0 - offset) > 0.0);
        }
    }

    #[test]
    fn flat_points_have_no_hull() {
        let flat: Vec<Vec3> = (0..6)
            .map(|k| Vec3::new(k as f64, (k * k) as f64, 0.0))
            .collect();
        assert!(convex_hull(&flat).is_err());
        assert!(convex_hull(&[Vec3::ZERO; 4]).is_err());
    }

    #[test]
    fn degenerate_and_extreme_points_are_refused_or_hulled_without_panic() {
        let v = |x: f64, y: f64, z: f64| Vec3::new(x, y, z);
        let cases: Vec<Vec<Vec3>> = vec![
            vec![v(1.0, 1.0, 1.0); 10],
            (0..10)
                .map(|k| v(k as f64, 2.0 * k as f64, -(k as f64)))
                .collect(),
            vec![
                v(0.0, 0.0, 0.0),
                v(1e-300, 0.0, 0.0),
                v(0.0, 1e-300, 0.0),
                v(0.0, 0.0, 1e-300),
            ],
            vec![
                v(0.0, 0.0, 0.0),
                v(1e300, 0.0, 0.0),
                v(0.0, 1e300, 0.0),
                v(0.0, 0.0, 1e300),
            ],
            vec![
                v(-1e308, 0.0, 0.0),
                v(1e308, 0.0, 0.0),
                v(0.0, 1e308, 0.0),
                v(0.0, 0.0, 1e308),
            ],
            vec![
                v(0.0, 0.0, 0.0),
                v(1.0, 0.0, 0.0),
                v(0.0, 1.0, 0.0),
                v(1e-17, 1e-17, 1e-17),
            ],
            vec![
                v(0.0, 0.0, 0.0),
                v(1.0, 0.0, 0.0),
                v(0.0, 1.0, 0.0),
                v(0.0, 0.0, 1.0),
                v(0.0, 0.0, 1.0),
            ],
        ];
        for points in cases {
            if let Ok(hull) = convex_hull(&points) {
                let (volume, _, _) = hull.solid();
                assert!(volume > 0.0, "{points:?}");
            }
        }
    }

    #[test]
    fn heightfield_samples_sit_where_the_engine_puts_them() {
        let grid = HeightGrid::new(&[vec![0.0, 1.0, 2.0], vec![3.0, 4.0, 5.0]], [2.0, 4.0]);
        assert_eq!(grid.point(0, 0), Vec3::new(-1.0, -2.0, 0.0));
        assert_eq!(grid.point(1, 2), Vec3::new(1.0, 2.0, 5.0));
        assert_eq!(grid.point(0, 1), Vec3::new(-1.0, 0.0, 1.0));
        let mesh = grid.triangles();
        assert_eq!(mesh.triangles.len(), 4);
        for &t in &mesh.triangles {
            let [a, b, c] = mesh.corners(t);
            assert!((b - a).cross(c - a).z > 0.0, "counter-clockwise from above");
        }
    }
}
