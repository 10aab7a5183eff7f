//! Determinism (issue 7): the same scene and build give bit-identical trajectories on every
//! run. Each scene is built and stepped twice in this process, and every body's position,
//! orientation and velocities are compared bit for bit after every step (a hash of the bit
//! patterns, so that a single differing ulp anywhere fails the test).
//!
//! The engine uses no threads, no randomness and no hash-order-dependent iteration in the
//! step; this test is what keeps it so.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use stiction::scenes::{self, Scene};
use stiction::Solver;

/// A hash of the exact bit patterns of every body's state.
fn state_hash(scene: &Scene) -> u64 {
    let mut hasher = DefaultHasher::new();
    for (_, body) in scene.world.bodies() {
        let p = body.position();
        let q = body.orientation();
        let v = body.linear_velocity();
        let w = body.angular_velocity();
        for x in [
            p.x, p.y, p.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z,
        ] {
            x.to_bits().hash(&mut hasher);
        }
    }
    hasher.finish()
}

/// Steps a scene `steps` times and returns the hash after every step.
fn trajectory(build: &dyn Fn() -> Scene, steps: usize) -> Vec<u64> {
    let mut scene = build();
    (0..steps)
        .map(|_| {
            scene.world.step(scene.h).expect("scene steps");
            state_hash(&scene)
        })
        .collect()
}

fn assert_deterministic(name: &str, build: &dyn Fn() -> Scene, steps: usize) {
    let first = trajectory(build, steps);
    let second = trajectory(build, steps);
    // The bodies must actually move, or identical hashes would prove nothing.
    assert_ne!(first[0], first[steps - 1], "{name}: nothing moved");
    if let Some(step) = first.iter().zip(&second).position(|(a, b)| a != b) {
        panic!("{name}: runs differ from step {step} on");
    }
}

#[test]
fn contact_and_joint_scenes_repeat_bit_for_bit() {
    for solver in [Solver::exact(), Solver::iterative()] {
        let settings = &|| scenes::scene_settings(solver.clone());
        assert_deterministic(
            "pyramid of 4 rows",
            &|| scenes::pyramid(4, settings()).unwrap(),
            120,
        );
        assert_deterministic(
            "sphere pile 3x3x3",
            &|| scenes::sphere_pile(3, 3, settings()).unwrap(),
            120,
        );
        assert_deterministic(
            "chain of 20",
            &|| scenes::chain(20, settings()).unwrap(),
            120,
        );
    }
}
