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
pub fn rotate_tensor(rotation: Quat, tensor: Mat3) -> Mat3 {
    let r = Mat3::from_quat(rotation);
    r * tensor * r.transpose()
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
