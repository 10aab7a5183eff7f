//! Constraint rows: what joints and contacts hand the solvers.
//!
//! A row is one scalar constraint `C(x) = 0` (or a bound on its force) between at most two
//! bodies, with Jacobian `J` such that `dC/dt = J u`. Every row follows one sign convention:
//! `J u` is the velocity of body A's side **minus** body B's side, and `C` grows with it.
//! Producers (joints now, contacts later) never touch the solver; they describe rows through
//! a [`RowWriter`], usually with the shared parts of [`parts`]. The world stores rows as flat
//! arrays ([`RowStorage`]) and turns them into the LCP of docs/dynamics.md#the-boxed-lcp.
//!
//! # Writing rows
//!
//! A producer gets a [`RowWriter`] that knows its two bodies and their poses, and pushes one
//! [`Row`] per scalar constraint: a [`JacobianRow`], the position error `C`, and optionally
//! force bounds, a target velocity, a friction coupling, its own [`Softness`], and whether
//! post-stabilisation may project it. A joint type implements [`crate::JointRows`]; this one
//! keeps a point of A on a line of B (a "point on line" joint) with the shared parts:
//!
//! ```
//! use stiction::rows::{parts, RowWriter};
//! use stiction::math::Vec3;
//! use stiction::JointRows;
//!
//! struct PointOnLine {
//!     local_anchor_a: Vec3,
//!     local_point_b: Vec3,
//!     local_direction_b: Vec3, // unit
//! }
//!
//! impl JointRows for PointOnLine {
//!     fn write_rows(&self, writer: &mut RowWriter) {
//!         let anchor = writer.pose_a().transform_point(self.local_anchor_a);
//!         let origin = writer.pose_b().transform_point(self.local_point_b);
//!         let direction = writer.pose_b().rotate(self.local_direction_b);
//!         // The closest point of the line moves with B: both lever arms are consistent.
//!         let foot = origin + direction * direction.dot(anchor - origin);
//!         let (p, q) = parts::plane_basis(direction);
//!         for axis in [p, q] {
//!             let row = parts::linear_row(writer, axis, anchor, foot);
//!             writer.push(row);
//!         }
//!     }
//!
//!     fn row_count(&self) -> usize {
//!         2
//!     }
//! }
//! ```
//!
//! Limits and motors are rows with bounds ([`Row::bounded`]: `[0, inf)` for a limit,
//! `[-f_max, f_max]` with [`Row::target_velocity`] and [`Row::unstabilized`] for a motor).
//! Contacts are another producer: a normal row bounded to `[0, inf)` and two
//! [`Row::friction`] rows pointing at it; the solvers see only the flat arrays.

pub(crate) mod hot;
pub mod parts;
pub mod row;
pub mod softness;

pub(crate) use row::{stored_at, RowPass, RowShapes, SolvedRows, DROPPED};
pub use row::{JacobianRow, Row, RowMotion, RowStorage, RowWriter};
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
