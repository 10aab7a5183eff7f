//! Scenes shared by several engine test files.

#![allow(dead_code)] // each test binary uses its own part of this module

use std::f64::consts::PI;
use stiction::math::{Quat, Vec3};
use stiction::{
    BodyHandle, ColliderBuilder, JointHandle, MassProperties, RigidBodyBuilder, World,
    WorldSettings,
};

/// Two 0.6 m bars of 1.5 kg on ball joints (the top one at the world origin), thrown in 3D
/// with spins about all axes: upper bar along +x, lower bar hanging from its tip.
/// Returns (upper, lower, top joint, elbow joint).
pub fn spatial_double_pendulum(
    world: &mut World,
) -> (BodyHandle, BodyHandle, JointHandle, JointHandle) {
    let mass = MassProperties::cuboid_with_mass(Vec3::new(0.3, 0.05, 0.05), 1.5).unwrap();
    let upper = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(mass)
            .position(Vec3::new(0.3, 0.0, 0.0))
            .linear_velocity(Vec3::new(0.0, 0.5, -1.0))
            .angular_velocity(Vec3::new(0.2, 0.0, 1.0))
            .build()
            .unwrap(),
    );
    let lower = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(mass)
            .position(Vec3::new(0.6, 0.0, -0.3))
            .orientation(Quat::from_rotation_y(PI / 2.0))
            .angular_velocity(Vec3::new(0.0, 2.0, 0.0))
            .build()
            .unwrap(),
    );
    let top = world.add_ball_joint(upper, None, Vec3::ZERO).unwrap();
    let elbow = world
        .add_ball_joint(lower, Some(upper), Vec3::new(0.6, 0.0, 0.0))
        .unwrap();
    (upper, lower, top, elbow)
}

/// Where a sphere pile's spheres lie (S2's quality figures).
#[derive(Clone, Copy, Debug)]
pub struct PileExtent {
    /// Deepest contact penetration, m.
    pub deepest: f64,
    /// Lowest sphere centre, m.
    pub lowest: f64,
    /// Largest `|x|` or `|y|` of a sphere centre, m.
    pub widest: f64,
}

impl std::fmt::Display for PileExtent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "deepest penetration {:.3e} m, lowest centre {:.4} m, widest centre {:.4} m",
            self.deepest, self.lowest, self.widest
        )
    }
}

/// Measures a pile built by `stiction::scenes::sphere_pile`.
pub fn pile_extent(scene: &stiction::scenes::Scene) -> PileExtent {
    let deepest = scene
        .world
        .contacts()
        .iter()
        .map(|c| -c.geometry.separation)
        .fold(0.0f64, f64::max);
    let (mut lowest, mut widest) = (f64::INFINITY, 0.0f64);
    for &ball in &scene.bodies {
        let p = scene.world.body(ball).unwrap().position();
        lowest = lowest.min(p.z);
        widest = widest.max(p.x.abs()).max(p.y.abs());
    }
    PileExtent {
        deepest,
        lowest,
        widest,
    }
}

/// S2's rules: penetration below 1 cm, and no sphere (radius 0.5) in the ground or a wall of
/// a pile `side` spheres wide (a centre below 0.5, or beyond `wall - 0.5`, with 1 cm grace).
pub fn assert_pile_contained(extent: &PileExtent, side: usize) {
    let wall = stiction::scenes::sphere_pile_half_width(side);
    assert!(extent.deepest < 0.01, "penetration {} m", extent.deepest);
    assert!(
        extent.lowest > 0.5 - 0.01,
        "a sphere sank to {}",
        extent.lowest
    );
    assert!(
        extent.widest < wall - 0.5 + 0.01,
        "a sphere got to {}",
        extent.widest
    );
}

/// A world with `settings`, the ground (the half-space `z <= 0`) and one dynamic box of half
/// extents `half` and mass `mass` resting on it (centre at `z = half.z`). Returns the world
/// and the box.
pub fn box_on_ground(settings: WorldSettings, half: Vec3, mass: f64) -> (World, BodyHandle) {
    let mut world = World::with_settings(settings).unwrap();
    world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::cuboid_with_mass(half, mass).unwrap())
            .position(Vec3::new(0.0, 0.0, half.z))
            .build()
            .unwrap(),
    );
    world
        .add_collider(ColliderBuilder::cuboid(half).unwrap(), Some(body))
        .unwrap();
    (world, body)
}

/// Kinetic plus gravitational potential energy (J) of every body, for standard gravity
/// along -z (potential zero at z = 0).
pub fn mechanical_energy(world: &World) -> f64 {
    const G: f64 = 9.81;
    world
        .bodies()
        .map(|(_, b)| {
            b.linear_kinetic_energy()
                + b.rotational_kinetic_energy()
                + b.mass() * G * b.position().z
        })
        .sum()
}
