//! The per-body arrays the step reads in its inner loops (docs/performance.md#hot-per-body-arrays): slot
//! `i` is body slot `i`, and one extra slot at the end is the ground (the static world),
//! with zero inverse mass and zero velocity, so rows attached to the world need no branch.

use crate::math::{Mat3, Vec3};
use crate::rows::Pose;

/// A linear and an angular 3-vector: a velocity, or `M^-1 J^T lambda`.
pub(crate) type Pair = [Vec3; 2];

/// Per-slot arrays, resized (never shrunk) to the body slots plus the ground.
#[derive(Debug, Clone, Default)]
pub(crate) struct HotBodies {
    /// Whether the slot holds a dynamic body (the only kind rows can move).
    pub(crate) dynamic: Vec<bool>,
    /// `1 / m`, zero for kinematic, static, empty and ground slots.
    pub(crate) inverse_mass: Vec<f64>,
    /// World inverse inertia at the step's start, zero where `inverse_mass` is.
    pub(crate) inverse_inertia: Vec<Mat3>,
    /// Body-frame inverse inertia, to re-rotate during post-stabilisation.
    pub(crate) inverse_inertia_body: Vec<Mat3>,
    /// Velocity after forces, gravity, damping and the gyroscopic term, before constraints.
    pub(crate) predicted: Vec<Pair>,
    /// `M^-1 J^T lambda` (the constraints' acceleration).
    pub(crate) constraint: Vec<Pair>,
    /// Velocity at the step's end.
    pub(crate) next_velocity: Vec<Pair>,
    /// Pose at the step's start.
    pub(crate) pose: Vec<Pose>,
    /// Pose at the step's end.
    pub(crate) next_pose: Vec<Pose>,
    /// Gauss-Seidel's running `a = M^-1 J^T x`.
    pub(crate) cache: Vec<Pair>,
}

impl HotBodies {
    /// Sizes every array for `slots` body slots plus the ground and resets the ground and
    /// empty slots (whose entries a step must not read as bodies).
    pub(crate) fn reset(&mut self, slots: usize) {
        let n = slots + 1;
        self.dynamic.clear();
        self.dynamic.resize(n, false);
        self.inverse_mass.clear();
        self.inverse_mass.resize(n, 0.0);
        self.inverse_inertia.clear();
        self.inverse_inertia.resize(n, Mat3::ZERO);
        self.inverse_inertia_body.clear();
        self.inverse_inertia_body.resize(n, Mat3::ZERO);
        for v in [
            &mut self.predicted,
            &mut self.constraint,
            &mut self.next_velocity,
            &mut self.cache,
        ] {
            v.clear();
            v.resize(n, [Vec3::ZERO; 2]);
        }
        self.pose.clear();
        self.pose.resize(n, Pose::IDENTITY);
        self.next_pose.clear();
        self.next_pose.resize(n, Pose::IDENTITY);
    }

    /// The ground slot.
    pub(crate) fn ground(&self) -> u32 {
        (self.dynamic.len() - 1) as u32
    }
}
