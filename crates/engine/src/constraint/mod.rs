//! Constraint rows: what joints and contacts hand the solvers.
//!
//! A row is one scalar constraint `C(x) = 0` (or a bound on its force) between at most two
//! bodies, with Jacobian `J` such that `dC/dt = J u`. Every row follows one sign convention:
//! `J u` is the velocity of body A's side **minus** body B's side, and `C` grows with it.
//! Producers (joints now, contacts later) never touch the solver; they describe rows through
//! a [`RowWriter`], usually with the shared parts of [`parts`]. The world stores rows as flat
//! arrays ([`RowStorage`]) and turns them into the LCP of shared/DESIGN.md.

pub mod parts;
pub mod row;
pub mod softness;

pub use row::{JacobianRow, Row, RowStorage, RowWriter};
pub use softness::Softness;

use crate::math::{Quat, Vec3};

/// Where a body is: the world position of its centre of mass and its orientation. The
/// static world (the second body of a joint attached to nothing) has the identity pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// Centre of mass, m, world frame.
    pub position: Vec3,
    /// Unit quaternion rotating body-frame vectors into the world frame.
    pub orientation: Quat,
}

impl Default for Pose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Pose {
    /// The world frame itself.
    pub const IDENTITY: Self = Self {
        position: Vec3::ZERO,
        orientation: Quat::IDENTITY,
    };

    /// The pose of a body.
    pub fn of(body: &crate::body::RigidBody) -> Self {
        Self {
            position: body.position(),
            orientation: body.orientation(),
        }
    }

    /// World position of the body-frame point `local` (m).
    pub fn transform_point(&self, local: Vec3) -> Vec3 {
        self.position + self.orientation * local
    }

    /// Body-frame coordinates of the world point `world` (m).
    pub fn inverse_transform_point(&self, world: Vec3) -> Vec3 {
        self.orientation.inverse() * (world - self.position)
    }

    /// World direction of the body-frame vector `local`.
    pub fn rotate(&self, local: Vec3) -> Vec3 {
        self.orientation * local
    }

    /// Body-frame direction of the world vector `world`.
    pub fn inverse_rotate(&self, world: Vec3) -> Vec3 {
        self.orientation.inverse() * world
    }
}
