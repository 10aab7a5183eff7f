//! The small per-body records the solver reads every iteration (the "hot" data).
//!
//! A solver loop touches only these, never a whole [`crate::body::RigidBody`]: a world can
//! keep them in flat arrays indexed by body and copy them back after the step.

use crate::math::{Mat3, Vec3};

/// Linear velocity of the centre of mass and angular velocity, both in the world frame
/// (m/s, rad/s). 48 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Velocity {
    /// Velocity of the centre of mass, m/s, world frame.
    pub linear: Vec3,
    /// Angular velocity, rad/s, world frame.
    pub angular: Vec3,
}

/// Inverse mass and world-frame inverse inertia at the current orientation: the blocks of
/// `M^-1` in `A = J M^-1 J^T`. Both are zero for kinematic and static bodies (infinite mass).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InverseMass {
    /// `1 / m`, 1/kg.
    pub linear: f64,
    /// `R I0^-1 R^T`, 1/(kg m^2), world frame.
    pub angular: Mat3,
}

impl InverseMass {
    /// The inverse mass of a body that forces cannot move.
    pub const INFINITE_MASS: Self = Self {
        linear: 0.0,
        angular: Mat3::ZERO,
    };
}
