//! How a model is placed in the world: base, pose, initial joint values, self-collision,
//! holding motors and the mesh search path.

use std::collections::BTreeMap;
use std::path::PathBuf;

use stiction::Pose;

/// Whether the model's root link is bolted to the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Base {
    /// The file's convention: a URDF root is fixed (an arm on its mount), an MJCF body
    /// with a `free` joint floats.
    #[default]
    FromFile,
    /// The root link is a static body: it never moves, and meshes on it are triangle meshes.
    Fixed,
    /// The root link is a free dynamic body (legged robots, things dropped on the ground).
    Floating,
}

/// Options for [`crate::load`] and [`crate::add_to_world`].
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Fixed or floating root (default: [`Base::FromFile`]).
    pub base: Base,
    /// Where the model's frame goes in the world (default: the world origin).
    pub base_pose: Pose,
    /// Initial joint values by joint name (rad for hinges, m for sliders); joints not named
    /// start at 0. The links are placed by forward kinematics from these values, at rest.
    pub joint_positions: BTreeMap<String, f64>,
    /// Hold every hinge and slider still with a velocity motor of target 0 whose force is
    /// bounded by the joint's `effort` (or [`HOLD_FORCE`] where the file gives none), so
    /// the joint feedback reads the torques that hold the pose (default: false).
    pub hold_joints: bool,
    /// Keep links joined by a joint from colliding with each other (default: true), by
    /// installing a contact hook on the world (it replaces any hook already there; see
    /// [`crate::LoadedModel::excluded_pairs`] to combine it with your own).
    pub filter_adjacent_links: bool,
    /// Keep links whose colliders already overlap in the initial pose from colliding with
    /// each other (default: true): robot meshes often interpenetrate where links meet, and
    /// colliding them would push the links apart at the first step. The pairs found are
    /// listed in one warning and in [`crate::LoadedModel::excluded_pairs`].
    pub filter_overlapping_links: bool,
    /// More pairs of links (by name) that never collide with each other.
    pub excluded_links: Vec<(String, String)>,
    /// Directories searched for meshes, before those of `STICTION_MODEL_PATH`.
    pub search_path: Vec<PathBuf>,
    /// A position servo with these gains on every hinge and slider the file gives no
    /// actuator, holding the joint's initial value, its force bounded by the joint's
    /// `effort` where the file gives one (PyBullet's position control, for URDF arms).
    /// Default: none. Targets move with [`stiction::Joint::set_servo`].
    pub position_servos: Option<ServoGains>,
}

/// Stiffness and damping of the servos [`LoadOptions::position_servos`] adds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServoGains {
    /// N m/rad on hinges, N/m on sliders (finite, `>= 0`).
    pub stiffness: f64,
    /// N m s/rad on hinges, N s/m on sliders (finite, `>= 0`; not both zero).
    pub damping: f64,
}

/// The motor force bound [`LoadOptions::hold_joints`] uses where the file gives no effort
/// (N or N m): large enough to hold any robot, finite as the engine requires.
pub const HOLD_FORCE: f64 = 1e9;

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            base: Base::FromFile,
            base_pose: Pose::IDENTITY,
            joint_positions: BTreeMap::new(),
            hold_joints: false,
            filter_adjacent_links: true,
            filter_overlapping_links: true,
            excluded_links: Vec::new(),
            search_path: Vec::new(),
            position_servos: None,
        }
    }
}
