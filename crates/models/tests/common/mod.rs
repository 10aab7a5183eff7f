//! Helpers shared by the model tests.

#![allow(dead_code)]

use std::path::PathBuf;

use stiction::{BodyHandle, World};

/// A fixture file's path.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Kinetic plus gravitational potential energy of `bodies`, J.
pub fn energy(world: &World, bodies: &[BodyHandle]) -> f64 {
    let g = world.settings().gravity;
    bodies
        .iter()
        .map(|&h| {
            let b = world.body(h).unwrap();
            b.linear_kinetic_energy() + b.rotational_kinetic_energy()
                - b.mass() * g.dot(b.position())
        })
        .sum()
}

/// Gravity torques of the planar two-link arm of arm.urdf / arm.xml (shoulder, elbow), N m:
/// links of 2 kg and 1 kg, the first 1 m long with its centre at 0.5 m, the second's centre
/// 0.4 m from the elbow; angles from the horizontal, positive up.
pub fn arm_gravity_torques(g: f64, q1: f64, q2: f64) -> [f64; 2] {
    let (m1, m2, l1, c1, c2) = (2.0, 1.0, 1.0, 0.5, 0.4);
    let elbow = m2 * g * c2 * (q1 + q2).cos();
    [g * (m1 * c1 + m2 * l1) * q1.cos() + elbow, elbow]
}
