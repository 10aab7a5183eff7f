//! A small recorded scene for examples and tests: a stack of boxes falling on the ground,
//! next to a hinged pendulum and a cylinder (so that joints and the engine's z-up axial
//! shapes are shown too).

use stiction::math::{Quat, Vec3};
use stiction::{ColliderBuilder, MassProperties, RigidBodyBuilder, World};

/// Errors of building the demo (none are expected: its parameters are fixed).
pub type DemoError = Box<dyn std::error::Error + Send + Sync>;

use crate::scene::ViewerScene;

/// The step of [`falling_stack`], s.
pub const STEP: f64 = 1.0 / 60.0;

/// Names of the bodies of [`falling_stack_world`], in slot order.
pub const BODY_NAMES: [&str; 7] = [
    "box0", "box1", "box2", "box3", "box4", "pendulum", "cylinder",
];

/// The world of [`falling_stack`] at its start: five 0.4 m boxes released one above the
/// other (each a little shifted and turned), a ball hanging from a hinge, and a cylinder.
pub fn falling_stack_world() -> Result<World, DemoError> {
    let mut world = World::new();
    world.add_collider(ColliderBuilder::halfspace(Vec3::Z)?, None)?;
    let half = Vec3::splat(0.2);
    for i in 0..5 {
        let f = i as f64;
        let body = world.add_body(
            RigidBodyBuilder::dynamic()
                .mass_properties(MassProperties::cuboid_with_mass(half, 1.0)?)
                .position(Vec3::new(0.03 * f, -0.02 * f, 0.3 + 0.5 * f))
                .orientation(Quat::from_rotation_z(0.15 * f) * Quat::from_rotation_x(0.05 * f))
                .build()?,
        );
        world.add_collider(ColliderBuilder::cuboid(half)?, Some(body))?;
    }
    let bob = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.12, 0.5)?)
            .position(Vec3::new(1.2, 0.0, 1.6))
            .build()?,
    );
    world.add_collider(ColliderBuilder::ball(0.12)?, Some(bob))?;
    world.add_hinge_joint(bob, None, Vec3::new(0.6, 0.0, 1.6), Vec3::Y)?;
    let cylinder = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::cylinder_with_mass(0.3, 0.15, 2.0)?)
            .position(Vec3::new(-0.8, 0.4, 0.6))
            .orientation(Quat::from_rotation_x(0.4))
            .build()?,
    );
    world.add_collider(ColliderBuilder::cylinder(0.3, 0.15)?, Some(cylinder))?;
    Ok(world)
}

/// [`falling_stack_world`] run for `frames - 1` steps of [`STEP`], every state recorded
/// (frame 0 is the initial state), with the standard plots.
pub fn falling_stack(frames: usize) -> Result<ViewerScene, DemoError> {
    let mut world = falling_stack_world()?;
    let mut scene = ViewerScene::from_world_named(
        &world,
        |_, i| {
            BODY_NAMES
                .get(i)
                .map_or(format!("body{i}"), |s| s.to_string())
        },
        |_, _| "pivot".to_string(),
    );
    scene.title = "falling stack".to_string();
    if frames == 0 {
        return Ok(scene);
    }
    scene.record(&world, 0);
    for step in 1..frames as u64 {
        world.step(STEP)?;
        scene.record(&world, step);
    }
    Ok(scene)
}
