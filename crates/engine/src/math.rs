//! The engine's linear algebra: the `f64` glam types that parry3d-f64 is built on.
//!
//! Everything in the engine, and every user, imports vectors, matrices and quaternions from
//! here, so there is one math library in the dependency tree: the glam that `parry3d_f64`
//! re-exports through `glamx`. Only what glam lacks is defined below.

pub use parry3d_f64::glamx::{DMat3, DQuat, DVec3, EulerRot};

/// A 3-vector of `f64` (glam's `DVec3`).
pub type Vec3 = DVec3;
/// A 3x3 matrix of `f64`, column-major (glam's `DMat3`).
pub type Mat3 = DMat3;
/// A quaternion of `f64` (glam's `DQuat`); orientations are unit quaternions.
pub type Quat = DQuat;

/// The eigenvalues of a symmetric 3x3 matrix in ascending order (an inertia tensor's
/// principal moments).
pub fn principal_moments(symmetric: Mat3) -> [f64; 3] {
    let mut moments = parry3d_f64::glamx::DSymmetricEigen3::eigenvalues(symmetric).to_array();
    moments.sort_by(f64::total_cmp);
    moments
}

/// The cross-product matrix `[a]x`, so that `skew(a) * b == a.cross(b)` for every `b`.
pub fn skew(a: Vec3) -> Mat3 {
    Mat3::from_cols(
        Vec3::new(0.0, a.z, -a.y),
        Vec3::new(-a.z, 0.0, a.x),
        Vec3::new(a.y, -a.x, 0.0),
    )
}

/// The outer product `a b^T`.
pub fn outer(a: Vec3, b: Vec3) -> Mat3 {
    Mat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// The similarity transform `R M R^T` of a body-frame tensor into the world frame, with `R`
/// the rotation of the unit quaternion `rotation`.
///
/// A body's tensors are diagonal in its principal frame: those with unequal moments take
/// the short way, `sum_k d_k c_k c_k^T` over `R`'s columns `c_k` (the six distinct entries
/// of a symmetric result, a third of the two products' multiplications). Each body's
/// inverse inertia is rotated every step and every post-stabilisation pass.
#[inline(always)]
pub fn rotate_tensor(rotation: Quat, tensor: Mat3) -> Mat3 {
    let [a, b, c] = [tensor.x_axis, tensor.y_axis, tensor.z_axis];
    let diagonal = [a.y, a.z, b.x, b.z, c.x, c.y].iter().all(|&v| v == 0.0);
    let d = Vec3::new(a.x, b.y, c.z);
    let r = Mat3::from_quat(rotation);
    if !diagonal || (d.x == d.y && d.y == d.z) {
        // Isotropic tensors too: their products' round-off (off-diagonal entries of
        // 1e-17 d) is what the exact stepper's sparse solver was certified with on the
        // sphere piles (tests/sparse_exact.rs), and returning `d E` itself made it fall
        // back once in 300 steps.
        return r * tensor * r.transpose();
    }
    // Rows of R scaled by d: entry (i, j) of the result is row_i(R) . (d * row_j(R)).
    let rows = [r.row(0), r.row(1), r.row(2)];
    let scaled = rows.map(|row| row * d);
    let xx = rows[0].dot(scaled[0]);
    let yy = rows[1].dot(scaled[1]);
    let zz = rows[2].dot(scaled[2]);
    let xy = rows[0].dot(scaled[1]);
    let xz = rows[0].dot(scaled[2]);
    let yz = rows[1].dot(scaled[2]);
    Mat3::from_cols(
        Vec3::new(xx, xy, xz),
        Vec3::new(xy, yy, yz),
        Vec3::new(xz, yz, zz),
    )
}

/// Whether `tensor` is a multiple of the identity, to the bit: then `M w` is parallel to
/// `w` in every frame.
pub(crate) fn is_isotropic(tensor: &Mat3) -> bool {
    let [a, b, c] = [tensor.x_axis, tensor.y_axis, tensor.z_axis];
    let off_diagonal = [a.y, a.z, b.x, b.z, c.x, c.y];
    off_diagonal.iter().all(|&v| v == 0.0) && a.x == b.y && b.y == c.z
}

/// The largest absolute difference between the entries of `m` and those of its transpose.
pub fn asymmetry(m: Mat3) -> f64 {
    let d = m - m.transpose();
    d.abs().to_cols_array().into_iter().fold(0.0, f64::max)
}

/// The largest absolute entry of `m`.
pub fn max_abs_entry(m: Mat3) -> f64 {
    m.abs().to_cols_array().into_iter().fold(0.0, f64::max)
}

/// The rotation whose quaternion is `normalize([1, v/2])`: the Cayley transform of the
/// rotation vector `v`, a rotation about `v` by `2 atan(|v|/2)` (equal to `|v|` to third
/// order). `cayley(h w) * q` is exactly the update `normalize(q + (h/2) [0, w] q)`.
pub fn cayley(v: Vec3) -> Quat {
    let half = 0.5 * v;
    Quat::from_xyzw(half.x, half.y, half.z, 1.0).normalize()
}

/// `cayley(v) * q` for a unit `q`, normalised: the update `normalize(q + [0, v/2] q)`
/// with one normalisation instead of two (the Cayley quaternion's own is undone by the
/// last; post-stabilisation and the curvature pass turn every body of an island this way,
/// several times a step).
pub fn turn_by_cayley(v: Vec3, q: Quat) -> Quat {
    let half = 0.5 * v;
    (Quat::from_xyzw(half.x, half.y, half.z, 1.0) * q).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_multiples_of_the_identity_are_isotropic() {
        let isotropic = Mat3::from_diagonal(Vec3::splat(0.37));
        assert!(is_isotropic(&isotropic));
        assert!(is_isotropic(&Mat3::ZERO));
        // Unequal moments, or equal moments with a product of inertia.
        let oblate = Mat3::from_diagonal(Vec3::new(0.37, 0.37, 0.5));
        let mut coupled = isotropic;
        coupled.x_axis.y = 1e-3;
        coupled.y_axis.x = 1e-3;
        assert!(!is_isotropic(&oblate) && !is_isotropic(&coupled));
        // A rotated isotropic tensor carries round-off off the diagonal: not to the bit.
        let rotation = Quat::from_axis_angle(Vec3::new(1.0, 2.0, -0.5).normalize(), 0.9);
        let rotated = rotate_tensor(rotation, isotropic);
        assert!(max_abs_entry(rotated - isotropic) < 1e-15);
    }

    #[test]
    fn rotated_tensors_match_the_full_similarity_transform() {
        // The diagonal short way against `R M R^T` by matrix products, and a general
        // tensor (a product of inertia) and an isotropic one through the products
        // themselves.
        let full = |q: Quat, m: Mat3| {
            let r = Mat3::from_quat(q);
            r * m * r.transpose()
        };
        let mut coupled = Mat3::from_diagonal(Vec3::new(0.2, 0.5, 0.9));
        coupled.x_axis.z = 0.05;
        coupled.z_axis.x = 0.05;
        for (k, tensor) in [
            Mat3::from_diagonal(Vec3::new(0.0217, 0.0217, 0.0017)),
            Mat3::from_diagonal(Vec3::new(1.333, 6.933, 7.733)),
            coupled,
            Mat3::from_diagonal(Vec3::splat(0.4)),
        ]
        .into_iter()
        .enumerate()
        {
            for angle in [0.0, 0.3, 1.9, -2.7] {
                let axis = Vec3::new(0.3, -1.0, 0.4 + k as f64).normalize();
                let q = Quat::from_axis_angle(axis, angle);
                let (fast, reference) = (rotate_tensor(q, tensor), full(q, tensor));
                let scale = max_abs_entry(tensor);
                assert!(
                    max_abs_entry(fast - reference) <= 1e-15 * scale,
                    "{k} {angle}"
                );
                // The short way builds the result symmetric; the products only nearly.
                if k < 2 {
                    assert_eq!(fast, fast.transpose(), "{k} {angle}: not symmetric");
                } else {
                    assert_eq!(fast, reference, "{k} {angle}");
                }
            }
        }
    }
}
