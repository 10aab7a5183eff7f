//! A small z-buffer rasteriser: a perspective camera, triangles clipped at the near plane,
//! Lambert shading per vertex (Gouraud) and a depth test per pixel into an RGB buffer.

use stiction::math::{Quat, Vec3};

use crate::render::mesh::Mesh;

/// A perspective camera looking from `eye` at `target`, z up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// Position, m.
    pub eye: Vec3,
    /// Looked-at point, m.
    pub target: Vec3,
    /// Vertical field of view, degrees.
    pub fov_degrees: f64,
}

/// Camera-space basis: right, up, and forward (viewing direction).
struct View {
    eye: Vec3,
    right: Vec3,
    up: Vec3,
    forward: Vec3,
    /// Pixels per unit of `x / depth`.
    focal: f64,
    cx: f64,
    cy: f64,
}

/// Closer than this (m) to the eye is clipped away.
const NEAR: f64 = 0.01;

impl View {
    fn new(camera: &Camera, width: usize, height: usize) -> Self {
        let forward = (camera.target - camera.eye).normalize_or(Vec3::Y);
        // Looking straight down or up: any horizontal right vector will do.
        let right = forward.cross(Vec3::Z).try_normalize().unwrap_or(Vec3::X);
        let up = right.cross(forward);
        let focal = 0.5 * height as f64 / (0.5 * camera.fov_degrees.to_radians()).tan();
        Self {
            eye: camera.eye,
            right,
            up,
            forward,
            focal,
            cx: 0.5 * width as f64,
            cy: 0.5 * height as f64,
        }
    }

    /// Camera coordinates (right, up, depth).
    fn to_camera(&self, p: Vec3) -> Vec3 {
        let d = p - self.eye;
        Vec3::new(d.dot(self.right), d.dot(self.up), d.dot(self.forward))
    }
}

/// A vertex after shading, in camera space.
#[derive(Clone, Copy)]
struct Shaded {
    camera: Vec3,
    color: Vec3,
}

/// Direction toward the light (world frame): from above, to the left and in front.
fn light_direction() -> Vec3 {
    Vec3::new(-0.4, -0.7, 1.0).normalize()
}

/// Lambert shading with an ambient floor, so faces turned away stay visible.
fn lambert(base: Vec3, normal: Vec3) -> Vec3 {
    const AMBIENT: f64 = 0.3;
    let diffuse = normal.dot(light_direction()).max(0.0);
    base * (AMBIENT + (1.0 - AMBIENT) * diffuse)
}

/// An RGB image with a depth buffer.
pub struct Framebuffer {
    /// Width, pixels.
    pub width: usize,
    /// Height, pixels.
    pub height: usize,
    /// RGB bytes, row by row from the top.
    pub rgb: Vec<u8>,
    /// Camera depth per pixel (m); infinity where nothing was drawn.
    depth: Vec<f64>,
    view: View,
}

impl Framebuffer {
    /// A buffer cleared to a sky gradient, for `camera`.
    pub fn new(width: usize, height: usize, camera: &Camera) -> Self {
        let mut fb = Self {
            width,
            height,
            rgb: vec![0; width * height * 3],
            depth: vec![f64::INFINITY; width * height],
            view: View::new(camera, width, height),
        };
        fb.clear();
        fb
    }

    /// Clears colour (to the sky) and depth.
    pub fn clear(&mut self) {
        let (top, bottom) = (Vec3::new(0.62, 0.74, 0.88), Vec3::new(0.93, 0.94, 0.96));
        for y in 0..self.height {
            let t = y as f64 / self.height.max(1) as f64;
            let c = to_bytes(top.lerp(bottom, t));
            for x in 0..self.width {
                let i = 3 * (y * self.width + x);
                self.rgb[i..i + 3].copy_from_slice(&c);
            }
        }
        self.depth.fill(f64::INFINITY);
    }

    /// Draws `mesh` placed at `position` turned by `rotation`; `color_of(triangle)` gives
    /// each triangle's base colour (RGB in `[0, 1]`).
    pub fn draw(
        &mut self,
        mesh: &Mesh,
        position: Vec3,
        rotation: Quat,
        color_of: impl Fn(usize) -> Vec3,
    ) {
        self.draw_with(mesh, position, rotation, color_of, None);
    }

    /// [`Self::draw`], opaque (`opacity` `None`: depth-tested and depth-written) or
    /// blended with that opacity over what is drawn (depth-tested, not depth-written).
    fn draw_with(
        &mut self,
        mesh: &Mesh,
        position: Vec3,
        rotation: Quat,
        color_of: impl Fn(usize) -> Vec3,
        opacity: Option<f64>,
    ) {
        for (t, tri) in mesh.triangles.iter().enumerate() {
            let base = color_of(t);
            let corners = tri.map(|i| {
                let i = i as usize;
                let world = position + rotation * mesh.positions[i];
                let normal = rotation * mesh.normals[i];
                (world, normal)
            });
            let [a, b, c] = corners.map(|(p, _)| p);
            // Triangles wind counter-clockwise from outside, so (b - a) x (c - a) is the
            // outward normal: a back face has it pointing away from the eye.
            let back = (b - a).cross(c - a).dot(a - self.view.eye) > 0.0;
            if back && !mesh.two_sided {
                continue;
            }
            let vertices = corners.map(|(p, n)| {
                let n = if back { -n } else { n };
                Shaded {
                    camera: self.view.to_camera(p),
                    color: lambert(base, n),
                }
            });
            self.clip_and_fill(vertices, opacity);
        }
    }

    /// Draws `mesh` see-through in `color` with `opacity` in `(0, 1]` over what is drawn
    /// already (sensor regions): hidden where something nearer was drawn, and hiding
    /// nothing, so draw these after the solid shapes.
    pub fn draw_translucent(
        &mut self,
        mesh: &Mesh,
        position: Vec3,
        rotation: Quat,
        color: Vec3,
        opacity: f64,
    ) {
        let opacity = Some(opacity.clamp(0.0, 1.0));
        self.draw_with(mesh, position, rotation, |_| color, opacity);
    }

    /// Clips a triangle against the near plane and fills the (one or two) pieces.
    fn clip_and_fill(&mut self, v: [Shaded; 3], opacity: Option<f64>) {
        let inside = |s: &Shaded| s.camera.z >= NEAR;
        if v.iter().all(inside) {
            self.fill(v, opacity);
            return;
        }
        if !v.iter().any(inside) {
            return;
        }
        let mut polygon: Vec<Shaded> = Vec::with_capacity(4);
        for i in 0..3 {
            let (p, q) = (v[i], v[(i + 1) % 3]);
            if inside(&p) {
                polygon.push(p);
            }
            if inside(&p) != inside(&q) {
                let t = (NEAR - p.camera.z) / (q.camera.z - p.camera.z);
                polygon.push(Shaded {
                    camera: p.camera.lerp(q.camera, t),
                    color: p.color.lerp(q.color, t),
                });
            }
        }
        for k in 1..polygon.len().saturating_sub(1) {
            self.fill([polygon[0], polygon[k], polygon[k + 1]], opacity);
        }
    }

    /// Scan-converts a triangle in front of the near plane.
    fn fill(&mut self, v: [Shaded; 3], opacity: Option<f64>) {
        let project = |s: &Shaded| {
            let z = s.camera.z;
            (
                self.view.cx + self.view.focal * s.camera.x / z,
                self.view.cy - self.view.focal * s.camera.y / z,
                1.0 / z,
            )
        };
        let p = v.map(|s| project(&s));
        let area = edge(p[0], p[1], p[2].0, p[2].1);
        if area.abs() < 1e-12 || !area.is_finite() {
            return;
        }
        let min_x = p.iter().map(|q| q.0).fold(f64::INFINITY, f64::min).floor();
        let max_x = p
            .iter()
            .map(|q| q.0)
            .fold(f64::NEG_INFINITY, f64::max)
            .ceil();
        let min_y = p.iter().map(|q| q.1).fold(f64::INFINITY, f64::min).floor();
        let max_y = p
            .iter()
            .map(|q| q.1)
            .fold(f64::NEG_INFINITY, f64::max)
            .ceil();
        let x0 = min_x.max(0.0) as usize;
        let x1 = (max_x.min(self.width as f64 - 1.0)).max(-1.0);
        let y0 = min_y.max(0.0) as usize;
        let y1 = (max_y.min(self.height as f64 - 1.0)).max(-1.0);
        if x1 < 0.0 || y1 < 0.0 {
            return;
        }
        let (x1, y1) = (x1 as usize, y1 as usize);
        // Colours interpolate perspective-correctly: weights divided by depth.
        let colors = [
            v[0].color * p[0].2,
            v[1].color * p[1].2,
            v[2].color * p[2].2,
        ];
        for y in y0..=y1 {
            let py = y as f64 + 0.5;
            for x in x0..=x1 {
                let px = x as f64 + 0.5;
                let w0 = edge(p[1], p[2], px, py) / area;
                let w1 = edge(p[2], p[0], px, py) / area;
                let w2 = 1.0 - w0 - w1;
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let inverse_depth = w0 * p[0].2 + w1 * p[1].2 + w2 * p[2].2;
                let depth = 1.0 / inverse_depth;
                let i = y * self.width + x;
                if depth >= self.depth[i] {
                    continue;
                }
                let mut color = (colors[0] * w0 + colors[1] * w1 + colors[2] * w2) * depth;
                match opacity {
                    Some(a) => {
                        let under = &self.rgb[3 * i..3 * i + 3];
                        let under = Vec3::new(under[0] as f64, under[1] as f64, under[2] as f64);
                        color = color * a + under * ((1.0 - a) / 255.0);
                    }
                    None => self.depth[i] = depth,
                }
                self.rgb[3 * i..3 * i + 3].copy_from_slice(&to_bytes(color));
            }
        }
    }
}

/// Twice the signed area of the triangle (a, b, (x, y)) in screen coordinates.
fn edge(a: (f64, f64, f64), b: (f64, f64, f64), x: f64, y: f64) -> f64 {
    (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0)
}

fn to_bytes(c: Vec3) -> [u8; 3] {
    [c.x, c.y, c.z].map(|v| (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::mesh::mesh;
    use crate::scene::Geometry;

    fn pixel(fb: &Framebuffer, x: usize, y: usize) -> [u8; 3] {
        let i = 3 * (y * fb.width + x);
        [fb.rgb[i], fb.rgb[i + 1], fb.rgb[i + 2]]
    }

    #[test]
    fn nearer_box_hides_the_farther_one_whatever_the_drawing_order() {
        let camera = Camera {
            eye: Vec3::new(0.0, -10.0, 0.0),
            target: Vec3::ZERO,
            fov_degrees: 40.0,
        };
        let cube = mesh(&Geometry::Box(Vec3::splat(0.5)), 1.0, 1.0);
        let red = Vec3::new(1.0, 0.0, 0.0);
        let blue = Vec3::new(0.0, 0.0, 1.0);
        for order in [[0, 1], [1, 0]] {
            let mut fb = Framebuffer::new(64, 64, &camera);
            for k in order {
                let (y, color) = if k == 0 { (-2.0, red) } else { (2.0, blue) };
                fb.draw(&cube, Vec3::new(0.0, y, 0.0), Quat::IDENTITY, |_| color);
            }
            let [r, g, b] = pixel(&fb, 32, 32);
            assert!(r > 0 && g == 0 && b == 0, "centre pixel {:?}", [r, g, b]);
        }
    }

    #[test]
    fn a_translucent_box_tints_what_is_behind_it_and_hides_nothing() {
        let camera = Camera {
            eye: Vec3::new(0.0, -10.0, 0.0),
            target: Vec3::ZERO,
            fov_degrees: 40.0,
        };
        let cube = mesh(&Geometry::Box(Vec3::splat(0.5)), 1.0, 1.0);
        let region = mesh(&Geometry::Box(Vec3::splat(1.0)), 1.0, 1.0);
        let (red, blue) = (Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 0.0, 1.0));
        let solid_box = |fb: &mut Framebuffer| {
            fb.draw(&cube, Vec3::new(0.0, 2.0, 0.0), Quat::IDENTITY, |_| red);
        };
        let sensor = |fb: &mut Framebuffer| {
            fb.draw_translucent(
                &region,
                Vec3::new(0.0, -2.0, 0.0),
                Quat::IDENTITY,
                blue,
                0.3,
            );
        };
        let mut alone = Framebuffer::new(32, 32, &camera);
        solid_box(&mut alone);
        let behind = pixel(&alone, 16, 16);
        assert!(behind[0] > 0 && behind[2] == 0);
        let mut tinted = Framebuffer::new(32, 32, &camera);
        solid_box(&mut tinted);
        sensor(&mut tinted);
        let seen = pixel(&tinted, 16, 16);
        // The red box still shows through (70 % of it), tinted blue.
        let expected_red = 0.7 * behind[0] as f64;
        assert!(
            (seen[0] as f64 - expected_red).abs() <= 1.0,
            "{seen:?} over {behind:?}"
        );
        assert!(seen[2] > 0, "{seen:?}");
        // Drawn before a solid box behind it, the region does not hide that box.
        let mut first = Framebuffer::new(32, 32, &camera);
        sensor(&mut first);
        solid_box(&mut first);
        assert_eq!(pixel(&first, 16, 16), behind);
    }

    #[test]
    fn faces_toward_the_light_are_brighter() {
        let lit = lambert(Vec3::ONE, light_direction());
        let away = lambert(Vec3::ONE, -light_direction());
        assert!((lit.x - 1.0).abs() < 1e-12);
        assert!((away.x - 0.3).abs() < 1e-12);
    }
}
