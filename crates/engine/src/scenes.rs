//! The benchmark scenes of shared/SCENES.md that need no collision detection, built in one
//! place for the tests, the benchmarks and the command line (shared/STYLE.md habit 6).
//!
//! - S3 chain-100 ([`chain_100`]): 100 boxes joined end to end by ball joints, hanging from
//!   the static world, released horizontally.
//! - S5 spinner ([`spinner`]): one free box spinning about no principal axis.

use crate::body::{MassProperties, RigidBodyBuilder};
use crate::error::WorldError;
use crate::gyroscopic::GyroscopicMode;
use crate::math::Vec3;
use crate::world::{BodyHandle, JointHandle, Solver, World, WorldSettings};

/// The step size of every scene, s.
pub const SCENE_STEP: f64 = 1.0 / 60.0;

/// A built scene: the world, how to run it, and its bodies and joints in scene order.
#[derive(Debug, Clone)]
pub struct Scene {
    /// The world, ready to step.
    pub world: World,
    /// Step size, s.
    pub h: f64,
    /// Steps the benchmark runs.
    pub steps: usize,
    /// Bodies in the order the scene describes them (chain: link 0 first).
    pub bodies: Vec<BodyHandle>,
    /// Joints in the order the scene describes them (chain: the world joint first).
    pub joints: Vec<JointHandle>,
}

/// S3 chain-100 with shared/SCENES.md's settings (ERP 0.2, CFM `1e-5`, standard gravity,
/// post-stabilisation on) and the given stepper.
pub fn chain_100(solver: Solver) -> Result<Scene, WorldError> {
    let settings = WorldSettings {
        solver,
        ..WorldSettings::default()
    };
    chain(100, settings)
}

/// A chain of `links` boxes 0.5 x 0.1 x 0.1 m (long axis x), 1 kg each, laid along +x from
/// x = 0 at z = 20, consecutive links joined by ball joints at their shared ends
/// (x = 0.5 i), link 0 joined to the static world at the origin of the chain. 600 steps of
/// 1/60 s. No collisions between links.
pub fn chain(links: usize, settings: WorldSettings) -> Result<Scene, WorldError> {
    const LENGTH: f64 = 0.5;
    const HEIGHT: f64 = 20.0;
    let mut world = World::with_settings(settings)?;
    let mass = MassProperties::cuboid_with_mass(Vec3::new(0.25, 0.05, 0.05), 1.0)
        .map_err(crate::error::BodyError::from)?;
    let mut bodies = Vec::with_capacity(links);
    let mut joints = Vec::with_capacity(links);
    for i in 0..links {
        let x = LENGTH * i as f64;
        let body = RigidBodyBuilder::dynamic()
            .mass_properties(mass)
            .position(Vec3::new(x + 0.5 * LENGTH, 0.0, HEIGHT))
            .build()?;
        let link = world.add_body(body);
        let previous = bodies.last().copied();
        joints.push(world.add_ball_joint(link, previous, Vec3::new(x, 0.0, HEIGHT))?);
        bodies.push(link);
    }
    Ok(Scene {
        world,
        h: SCENE_STEP,
        steps: 600,
        bodies,
        joints,
    })
}

/// S5 spinner: a box 1 x 0.4 x 0.2 m of density 1000 kg/m^3 (80 kg, inertia
/// diag(1.333, 6.933, 7.733) kg m^2) with angular velocity (1, 2, 3) rad/s in its body
/// frame, no gravity, the given gyroscopic mode; 6000 steps of 1/60 s.
pub fn spinner(mode: GyroscopicMode) -> Result<Scene, WorldError> {
    let mut world = World::with_settings(WorldSettings {
        gravity: Vec3::ZERO,
        ..WorldSettings::default()
    })?;
    let mass = MassProperties::cuboid(Vec3::new(0.5, 0.2, 0.1), 1000.0)
        .map_err(crate::error::BodyError::from)?;
    let body = RigidBodyBuilder::dynamic()
        .mass_properties(mass)
        .angular_velocity_body(Vec3::new(1.0, 2.0, 3.0))
        .gyroscopic_mode(mode)
        .build()?;
    let spinner = world.add_body(body);
    Ok(Scene {
        world,
        h: SCENE_STEP,
        steps: 6000,
        bodies: vec![spinner],
        joints: Vec::new(),
    })
}
