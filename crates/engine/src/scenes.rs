//! The benchmark scenes of docs/scenes.md, built in one place for the tests, the
//! benchmarks and the command line.
//!
//! - S1 pyramid-N ([`pyramid`], [`pyramid_20`]): a 2D pyramid of unit boxes on the ground.
//! - S2 sphere-pile ([`sphere_pile`], [`sphere_pile_1000`]): a jittered grid of spheres
//!   falling into a walled container.
//! - S3 chain-100 ([`chain_100`]): 100 boxes joined end to end by ball joints, hanging from
//!   the static world, released horizontally.
//! - S4 stack-20 ([`stack`], [`stack_20`]): a column of unit boxes on the ground.
//! - S5 spinner ([`spinner`]): one free box spinning about no principal axis.
//!
//! The contact scenes share the settings of docs/scenes.md#common-settings: the ground is the static
//! half-space `z <= 0`, every material has friction 0.5 and restitution 0, ERP 0.2,
//! CFM `1e-5`, no damping, no sleeping.

use crate::body::GyroscopicMode;
use crate::body::{MassProperties, RigidBodyBuilder};
use crate::collision::ColliderBuilder;
use crate::error::WorldError;
use crate::handles::{BodyHandle, JointHandle};
use crate::math::Vec3;
use crate::world::{Solver, World, WorldSettings};

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

/// Edge of the unit boxes of S1 and S4, m.
const BOX_EDGE: f64 = 1.0;
/// Radius of the spheres of S2, m.
const SPHERE_RADIUS: f64 = 0.5;

/// The static ground: the half-space `z <= 0`, default material.
pub fn add_ground(world: &mut World) -> Result<(), WorldError> {
    world.add_collider(ColliderBuilder::halfspace(Vec3::Z)?, None)?;
    Ok(())
}

fn unit_box(world: &mut World, position: Vec3) -> Result<BodyHandle, WorldError> {
    let half = Vec3::splat(0.5 * BOX_EDGE);
    let mass =
        MassProperties::cuboid_with_mass(half, 1.0).map_err(crate::error::BodyError::from)?;
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(mass)
            .position(position)
            .build()?,
    );
    world.add_collider(ColliderBuilder::cuboid(half)?, Some(body))?;
    Ok(body)
}

fn contact_scene(world: World, steps: usize, bodies: Vec<BodyHandle>) -> Scene {
    Scene {
        world,
        h: SCENE_STEP,
        steps,
        bodies,
        joints: Vec::new(),
    }
}

/// S1 pyramid-20 (210 boxes) with the settings of docs/scenes.md#common-settings and the given stepper.
pub fn pyramid_20(solver: Solver) -> Result<Scene, WorldError> {
    pyramid(20, scene_settings(solver))
}

/// A 2D pyramid of `rows` rows of 1 kg unit boxes in the x-z plane on the ground: row
/// `k` has `rows - k` boxes at `x = i - (rows - k - 1) / 2`, `z = 0.5 + k`. Bodies are
/// listed row by row from the bottom, so the last one is the top box. 600 steps.
pub fn pyramid(rows: usize, settings: WorldSettings) -> Result<Scene, WorldError> {
    let mut world = World::with_settings(settings)?;
    add_ground(&mut world)?;
    let mut bodies = Vec::with_capacity(rows * (rows + 1) / 2);
    for k in 0..rows {
        let count = rows - k;
        for i in 0..count {
            let x = (i as f64 - (count as f64 - 1.0) / 2.0) * BOX_EDGE;
            let z = 0.5 * BOX_EDGE + k as f64 * BOX_EDGE;
            bodies.push(unit_box(&mut world, Vec3::new(x, 0.0, z))?);
        }
    }
    Ok(contact_scene(world, 600, bodies))
}

/// S4 stack-20 with the settings of docs/scenes.md#common-settings and the given stepper.
pub fn stack_20(solver: Solver) -> Result<Scene, WorldError> {
    stack(20, scene_settings(solver))
}

/// `count` 1 kg unit boxes stacked exactly at `x = y = 0`, `z = 0.5 + i`, on the ground;
/// bottom first, so the last body is the top box. 3000 steps.
pub fn stack(count: usize, settings: WorldSettings) -> Result<Scene, WorldError> {
    let mut world = World::with_settings(settings)?;
    add_ground(&mut world)?;
    let bodies = (0..count)
        .map(|i| unit_box(&mut world, Vec3::new(0.0, 0.0, 0.5 + i as f64)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(contact_scene(world, 3000, bodies))
}

/// S2 sphere-pile (1000 spheres) with the settings of docs/scenes.md#common-settings and the given stepper.
pub fn sphere_pile_1000(solver: Solver) -> Result<Scene, WorldError> {
    sphere_pile(10, 10, scene_settings(solver))
}

/// The half width, m, of the container of a sphere pile `side` spheres wide: 7 for 10.
pub fn sphere_pile_half_width(side: usize) -> f64 {
    0.6 * side as f64 + 1.0
}

/// A grid of `side x side x layers` spheres of radius 0.5 m and 1 kg, spacing 1.2 m,
/// centred on `x = y = 0`, lowest layer at `z = 1`, sphere `(i, j, k)` (number
/// `n = i + side j + side^2 k`) displaced by `0.05 (h(n, 0), h(n, 1))` with
/// `h(n, c) = ((7919 n + 104729 c + 17) mod 2001) / 1000 - 1`, inside the ground and four
/// static walls 10 m high whose inner faces are at `x, y = +-`[`sphere_pile_half_width`].
/// With `side = layers = 10` this is S2 exactly. 600 steps.
pub fn sphere_pile(
    side: usize,
    layers: usize,
    settings: WorldSettings,
) -> Result<Scene, WorldError> {
    const SPACING: f64 = 1.2;
    const WALL_HEIGHT: f64 = 10.0;
    const WALL_THICKNESS: f64 = 1.0;
    let mut world = World::with_settings(settings)?;
    add_ground(&mut world)?;
    let inner = sphere_pile_half_width(side);
    let half_length = inner + WALL_THICKNESS;
    let centre = inner + 0.5 * WALL_THICKNESS;
    let half_height = 0.5 * WALL_HEIGHT;
    for (position, half) in [
        (
            Vec3::new(centre, 0.0, half_height),
            Vec3::new(0.5 * WALL_THICKNESS, half_length, half_height),
        ),
        (
            Vec3::new(-centre, 0.0, half_height),
            Vec3::new(0.5 * WALL_THICKNESS, half_length, half_height),
        ),
        (
            Vec3::new(0.0, centre, half_height),
            Vec3::new(half_length, 0.5 * WALL_THICKNESS, half_height),
        ),
        (
            Vec3::new(0.0, -centre, half_height),
            Vec3::new(half_length, 0.5 * WALL_THICKNESS, half_height),
        ),
    ] {
        world.add_collider(ColliderBuilder::cuboid(half)?.position(position), None)?;
    }
    let jitter = |n: usize, c: usize| ((n * 7919 + c * 104_729 + 17) % 2001) as f64 / 1000.0 - 1.0;
    let mass = MassProperties::sphere_with_mass(SPHERE_RADIUS, 1.0)
        .map_err(crate::error::BodyError::from)?;
    let offset = 0.5 * (side as f64 - 1.0);
    let mut bodies = Vec::with_capacity(side * side * layers);
    for k in 0..layers {
        for j in 0..side {
            for i in 0..side {
                let n = i + side * j + side * side * k;
                let position = Vec3::new(
                    (i as f64 - offset) * SPACING + 0.05 * jitter(n, 0),
                    (j as f64 - offset) * SPACING + 0.05 * jitter(n, 1),
                    1.0 + SPACING * k as f64,
                );
                let body = world.add_body(
                    RigidBodyBuilder::dynamic()
                        .mass_properties(mass)
                        .position(position)
                        .build()?,
                );
                world.add_collider(ColliderBuilder::ball(SPHERE_RADIUS)?, Some(body))?;
                bodies.push(body);
            }
        }
    }
    Ok(contact_scene(world, 600, bodies))
}

/// the settings of docs/scenes.md#common-settings (ERP 0.2, CFM `1e-5`, standard gravity, friction 0.5,
/// restitution 0, no sleeping) with the given stepper.
pub fn scene_settings(solver: Solver) -> WorldSettings {
    WorldSettings {
        solver,
        ..WorldSettings::default()
    }
}

/// S3 chain-100 with the settings of docs/scenes.md#common-settings (ERP 0.2, CFM `1e-5`, standard gravity,
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

#[cfg(test)]
mod tests {
    use super::{pyramid_20, sphere_pile_1000, stack_20, Scene};
    use crate::avx2::BASELINE_ONLY;
    use crate::math::Vec3;
    use crate::world::Solver;
    use std::sync::atomic::Ordering;

    /// Every body's position, orientation and velocities after `steps` steps of `scene`,
    /// as bits.
    fn final_state(mut scene: Scene, steps: usize) -> Vec<u64> {
        for _ in 0..steps {
            scene.world.step(scene.h).expect("the scene steps");
        }
        let mut bits = Vec::new();
        for (_, body) in scene.world.bodies() {
            let q = body.orientation;
            let vectors: [Vec3; 3] = [body.position, body.velocity.linear, body.velocity.angular];
            bits.extend(vectors.iter().flat_map(|v| v.to_array()).map(f64::to_bits));
            bits.extend([q.x, q.y, q.z, q.w].map(f64::to_bits));
        }
        bits
    }

    /// The claim of `crate::avx2`: the AVX2 copies round every operation as the baseline
    /// copies do, so a stack, a pyramid and a sphere pile (contact rows, islands, lane
    /// sweeps, post-stabilisation, the narrow phase) end bit for bit alike.
    #[test]
    fn the_avx2_copies_step_bit_for_bit_like_the_baseline_copies() {
        #[cfg(target_arch = "x86_64")]
        assert!(
            std::arch::is_x86_feature_detected!("avx2"),
            "this test compares the AVX2 copies with the baseline ones: it needs a processor with AVX2"
        );
        type Build = fn() -> Scene;
        let runs: [(&str, Build, usize); 3] = [
            (
                "stack",
                || stack_20(Solver::iterative()).expect("stack"),
                300,
            ),
            (
                "pyramid",
                || pyramid_20(Solver::iterative()).expect("pyramid"),
                120,
            ),
            (
                "pile",
                || sphere_pile_1000(Solver::iterative()).expect("pile"),
                60,
            ),
        ];
        for (name, build, steps) in runs {
            BASELINE_ONLY.store(true, Ordering::Relaxed);
            let baseline = final_state(build(), steps);
            BASELINE_ONLY.store(false, Ordering::Relaxed);
            let avx2 = final_state(build(), steps);
            assert_eq!(baseline.len(), avx2.len(), "{name}");
            let differing = baseline.iter().zip(&avx2).filter(|(a, b)| a != b).count();
            assert_eq!(
                differing, 0,
                "{name}: {differing} numbers differ between the copies"
            );
            // The runs moved: a comparison of two resting starts would prove nothing.
            let start = final_state(build(), 0);
            assert_ne!(start, avx2, "{name} did not move");
        }
    }
}
