//! Reusable constraint parts: the rows that several joint types (and contacts) share.
//!
//! Sign convention (see [`crate::constraint`]): `J u` is the motion of A's side minus B's.
//!
//! **Point part** (ball; the point of hinge, fixed, universal, hinge-2). World anchors
//! `p_a = x_a + r_a`, `p_b = x_b + r_b`:
//!
//! ```text
//! C = p_a - p_b                       (3 rows, one per world axis e)
//! dC/dt = v_a + w_a x r_a - v_b - w_b x r_b
//! J_e = [ e,  r_a x e,  -e,  -(r_b x e) ]
//! ```
//!
//! **Parallel-axes part** (hinge; universal and hinge-2 use one of its rows). Unit axes `u`
//! fixed in A and `v` fixed in B, `p`, `q` a basis of the plane normal to `u`. Near alignment
//! `v x u` is the rotation of A relative to B about axes normal to `u`:
//!
//! ```text
//! C = ( p . (v x u), q . (v x u) )    (2 rows)
//! dC/dt = p . (w_a - w_b), q . (w_a - w_b)     (to first order in the misalignment)
//! J_p = [ 0, p, 0, -p ],  J_q = [ 0, q, 0, -q ]
//! ```
//!
//! The Jacobians are those of ODE's `dxJointHinge` (Smith, ODE manual), written in this
//! engine's sign convention.

use crate::constraint::{JacobianRow, Row, RowWriter};
use crate::math::Vec3;

/// A unit basis `(p, q)` of the plane normal to the unit vector `n`, with `p x q = n`.
///
/// Continuous except where `n` crosses the plane `|n.z| = 1/sqrt(2)`; the rows built on it
/// do not depend on which basis of the plane is chosen.
pub fn plane_basis(n: Vec3) -> (Vec3, Vec3) {
    let p = if n.z.abs() > std::f64::consts::FRAC_1_SQRT_2 {
        // Close to z: use the y-z plane.
        let scale = 1.0 / (n.y * n.y + n.z * n.z).sqrt();
        Vec3::new(0.0, -n.z * scale, n.y * scale)
    } else {
        let scale = 1.0 / (n.x * n.x + n.y * n.y).sqrt();
        Vec3::new(-n.y * scale, n.x * scale, 0.0)
    };
    (p, n.cross(p))
}

/// The Jacobian of the relative velocity, along world direction `axis`, of the point
/// `anchor_a` moving with A and the point `anchor_b` moving with B (world anchors, m).
pub fn linear_jacobian(
    writer: &RowWriter,
    axis: Vec3,
    anchor_a: Vec3,
    anchor_b: Vec3,
) -> JacobianRow {
    let r_a = anchor_a - writer.pose_a().position;
    let r_b = anchor_b - writer.pose_b().position;
    JacobianRow {
        linear_a: axis,
        angular_a: r_a.cross(axis),
        linear_b: -axis,
        angular_b: -r_b.cross(axis),
    }
}

/// The Jacobian of the relative angular velocity `axis . (w_a - w_b)`.
pub fn angular_jacobian(axis: Vec3) -> JacobianRow {
    JacobianRow {
        linear_a: Vec3::ZERO,
        angular_a: axis,
        linear_b: Vec3::ZERO,
        angular_b: -axis,
    }
}

/// One linear row along `axis` (unit, world) between the world anchors, with error
/// `axis . (anchor_a - anchor_b)`: the building block of sliders, limits and contact normals.
pub fn linear_row(writer: &RowWriter, axis: Vec3, anchor_a: Vec3, anchor_b: Vec3) -> Row {
    let jacobian = linear_jacobian(writer, axis, anchor_a, anchor_b);
    Row::equality(jacobian, axis.dot(anchor_a - anchor_b))
}

/// The point part: three equality rows making the world anchors `anchor_a` (moving with A)
/// and `anchor_b` (moving with B) coincide. Returns the rows' indices.
pub fn point_to_point(writer: &mut RowWriter, anchor_a: Vec3, anchor_b: Vec3) -> [usize; 3] {
    [Vec3::X, Vec3::Y, Vec3::Z].map(|axis| {
        let row = linear_row(writer, axis, anchor_a, anchor_b);
        writer.push(row)
    })
}

/// The parallel-axes part: two equality rows keeping the unit world axes `axis_a` (fixed in
/// A) and `axis_b` (fixed in B) parallel and pointing the same way, leaving rotation about
/// them free. Returns the rows' indices.
pub fn parallel_axes(writer: &mut RowWriter, axis_a: Vec3, axis_b: Vec3) -> [usize; 2] {
    let (p, q) = plane_basis(axis_a);
    let misalignment = axis_b.cross(axis_a);
    [p, q].map(|d| writer.push(Row::equality(angular_jacobian(d), d.dot(misalignment))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plane_basis_is_orthonormal_and_right_handed() {
        for n in [
            Vec3::X,
            Vec3::Z,
            -Vec3::Z,
            Vec3::new(1.0, 2.0, 3.0).normalize(),
            Vec3::new(0.0, -1.0, 1e-9).normalize(),
        ] {
            let (p, q) = plane_basis(n);
            assert!((p.length() - 1.0).abs() < 1e-15 && (q.length() - 1.0).abs() < 1e-15);
            assert!(p.dot(n).abs() < 1e-15 && q.dot(n).abs() < 1e-15 && p.dot(q).abs() < 1e-15);
            assert!((p.cross(q) - n).length() < 1e-15);
        }
    }
}
