//! Jacobian rows of rigid bodies, shared by the tests.
//!
//! Planar body: generalized velocity `(vx, vy, w)`. Spatial body: `(vx, vy, vz, wx, wy, wz)`,
//! both about the centre of mass, world frame, so the inertia is diagonal for a body whose
//! principal axes are the world axes.

#![allow(dead_code)]

use stiction_constraint::DenseMatrix;

pub const G: f64 = 9.81;

/// Velocity of the point at offset `r` from the centre of mass, along `dir`:
/// `dir . (v + w x r)`.
pub fn planar_row(r: [f64; 2], dir: [f64; 2]) -> Vec<f64> {
    vec![dir[0], dir[1], r[0] * dir[1] - r[1] * dir[0]]
}

/// `dir . (v + w x r) = dir . v + (r x dir) . w`.
pub fn spatial_row(r: [f64; 3], dir: [f64; 3]) -> Vec<f64> {
    let c = [
        r[1] * dir[2] - r[2] * dir[1],
        r[2] * dir[0] - r[0] * dir[2],
        r[0] * dir[1] - r[1] * dir[0],
    ];
    vec![dir[0], dir[1], dir[2], c[0], c[1], c[2]]
}

pub fn matrix(rows: &[Vec<f64>], cols: usize) -> DenseMatrix {
    if rows.is_empty() {
        return DenseMatrix::zeros(0, cols);
    }
    DenseMatrix::from_rows(rows).unwrap()
}

pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Box of mass `m` and half-extents `h`, principal axes along the world axes.
pub fn box_inertia(m: f64, h: [f64; 3]) -> [f64; 6] {
    let (a, b, c) = (2.0 * h[0], 2.0 * h[1], 2.0 * h[2]);
    [
        m,
        m,
        m,
        m * (b * b + c * c) / 12.0,
        m * (a * a + c * c) / 12.0,
        m * (a * a + b * b) / 12.0,
    ]
}

/// The four bottom corners of a box with half-extents `h`, relative to its centre.
pub fn bottom_corners(h: [f64; 3]) -> [[f64; 3]; 4] {
    [
        [h[0], h[1], -h[2]],
        [-h[0], h[1], -h[2]],
        [-h[0], -h[1], -h[2]],
        [h[0], -h[1], -h[2]],
    ]
}

/// Normal and friction rows of the box's bottom corners on the plane `z = const`, with `r`
/// spanning directions per contact laid out as `stiction_constraint::spanning_direction`
/// (tangents `t1 = x`, `t2 = y`).
pub fn box_on_plane_rows(h: [f64; 3], r: usize) -> (DenseMatrix, DenseMatrix) {
    let mut normal = Vec::new();
    let mut friction = Vec::new();
    for c in bottom_corners(h) {
        normal.push(spatial_row(c, [0.0, 0.0, 1.0]));
        for j in 0..r {
            let d = stiction_constraint::spanning_direction(j, r);
            friction.push(spatial_row(c, [d[0], d[1], 0.0]));
        }
    }
    (matrix(&normal, 6), matrix(&friction, 6))
}
