//! Scenes shared by several engine test files.

#![allow(dead_code)] // each test binary uses its own part of this module

use std::f64::consts::PI;
use stiction::math::{Quat, Vec3};
use stiction::{BodyHandle, JointHandle, MassProperties, RigidBodyBuilder, World};

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
