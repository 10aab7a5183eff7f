//! A tower crane built from five joint types, stepped for 8 s with figures printed as it
//! works: `cargo run --release -p stiction --example crane`.
//!
//! - the mast is welded to the ground (fixed joint), and the weld's force is the weight of
//!   everything the crane holds;
//! - the boom turns on a hinge at the mast top, raised by a motor up to a limit;
//! - a trolley runs along the boom on a slider, driven by a motor between two stops;
//! - a hook hangs from the trolley on a rope (a distance joint with a range);
//! - the cargo hangs from the hook on a universal joint, so it swings but cannot spin
//!   about the rope.

use stiction::joint::{AxisControl, JointLimit, JointMotor};
use stiction::math::Vec3;
use stiction::{
    BodyHandle, DistanceJoint, FixedJoint, HingeJoint, JointBuilder, MassProperties, Pose,
    RigidBodyBuilder, SliderJoint, Softness, World, WorldError, WorldSettings,
};

fn block(
    world: &mut World,
    half_extents: Vec3,
    mass: f64,
    position: Vec3,
) -> Result<BodyHandle, WorldError> {
    let mass_properties =
        MassProperties::cuboid_with_mass(half_extents, mass).map_err(stiction::BodyError::from)?;
    let body = RigidBodyBuilder::dynamic()
        .mass_properties(mass_properties)
        .position(position)
        .build()?;
    Ok(world.add_body(body))
}

fn main() -> Result<(), WorldError> {
    // CFM is a velocity per unit force: the default 1e-5 (ODE's, meant for light bodies)
    // would let the mast's weld, carrying 6.7 kN, give 6.7 cm/s every step, and the
    // projection that removes that stretch would drag the boom and trolley along: heavy
    // machinery wants stiff rows.
    let mut world = World::with_settings(WorldSettings {
        softness: Softness::new(0.2, 1e-9)?,
        ..WorldSettings::default()
    })?;
    let h = 1.0 / 120.0;

    // Mast: 4 m, 500 kg, welded to the ground at its foot.
    let mast = block(
        &mut world,
        Vec3::new(0.2, 0.2, 2.0),
        500.0,
        Vec3::new(0.0, 0.0, 2.0),
    )?;
    let weld = FixedJoint::at_world_point(Vec3::ZERO, &world.pose(Some(mast))?, &Pose::IDENTITY)?;
    let weld = world.add_joint(JointBuilder::new(mast, None, weld))?;

    // Boom: 4 m, 100 kg, horizontal along +x from the mast top, luffed up at 0.1 rad/s by a
    // motor of at most 30 kN m until its 0.5 rad stop (axis -y: positive angle raises it).
    let boom = block(
        &mut world,
        Vec3::new(2.0, 0.1, 0.1),
        100.0,
        Vec3::new(2.0, 0.0, 4.0),
    )?;
    let (boom_pose, mast_pose) = (world.pose(Some(boom))?, world.pose(Some(mast))?);
    let luffing =
        HingeJoint::at_world_axis(Vec3::new(0.0, 0.0, 4.0), -Vec3::Y, &boom_pose, &mast_pose)?
            .with_control(AxisControl {
                limit: Some(JointLimit::new(-0.05, 0.5)?),
                motor: Some(JointMotor::new(0.1, 3e4)?),
            });
    let luffing = world.add_joint(JointBuilder::new(boom, Some(mast), luffing))?;

    // Trolley: 20 kg under the boom, 1 m out, driven out at 0.4 m/s (at most 2 kN) up to
    // its stop 2.5 m further.
    let trolley = block(
        &mut world,
        Vec3::new(0.15, 0.15, 0.1),
        20.0,
        Vec3::new(1.0, 0.0, 3.8),
    )?;
    let (trolley_pose, boom_pose) = (world.pose(Some(trolley))?, world.pose(Some(boom))?);
    let travel = SliderJoint::along_world_axis(Vec3::X, &trolley_pose, &boom_pose)?.with_control(
        AxisControl {
            limit: Some(JointLimit::new(-0.5, 2.5)?),
            motor: Some(JointMotor::new(0.4, 2e3)?),
        },
    );
    let travel = world.add_joint(JointBuilder::new(trolley, Some(boom), travel))?;

    // Hook: 10 kg on a 1.6 m rope from the trolley's underside.
    let hook = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(
                MassProperties::sphere_with_mass(0.1, 10.0).map_err(stiction::BodyError::from)?,
            )
            .position(Vec3::new(1.0, 0.0, 2.1))
            .build()?,
    );
    let (hook_pose, trolley_pose) = (world.pose(Some(hook))?, world.pose(Some(trolley))?);
    let rope = DistanceJoint::between_world_points(
        Vec3::new(1.0, 0.0, 2.1),
        Vec3::new(1.0, 0.0, 3.7),
        &hook_pose,
        &trolley_pose,
    )?
    .rope(1.6)?;
    let rope = world.add_joint(JointBuilder::new(hook, Some(trolley), rope))?;

    // Cargo: a 50 kg crate under the hook on a universal joint (axes x on the hook, y on
    // the crate).
    let cargo = block(
        &mut world,
        Vec3::new(0.4, 0.3, 0.2),
        50.0,
        Vec3::new(1.0, 0.0, 1.7),
    )?;
    let shackle = world.add_universal_joint(
        cargo,
        Some(hook),
        Vec3::new(1.0, 0.0, 2.0),
        Vec3::Y,
        Vec3::X,
    )?;

    let weight = (500.0 + 100.0 + 20.0 + 10.0 + 50.0) * 9.81;
    println!("   t   boom   trolley   rope   rope tension  cargo swing   weld force / weight");
    println!("   s   deg    m         m      N             deg");
    for step in 1..=(8.0 / h) as usize {
        world.step(h)?;
        if step % 60 != 0 {
            continue;
        }
        let boom_angle = world.joint_axis_state(luffing, 0)?.position;
        let position = world.joint_axis_state(travel, 0)?.position;
        let length = world.joint_axis_state(rope, 0)?.position;
        let tension = -world.joint(rope)?.feedback().limit[0];
        let swing = world.joint_axis_state(shackle, 0)?.position.abs()
            + world.joint_axis_state(shackle, 1)?.position.abs();
        let weld_force = world.joint(weld)?.feedback().force_a.z;
        println!(
            "{:4.1}  {:5.1}  {:6.3}    {:5.3}  {:9.1}     {:6.2}        {:.4}",
            world.time(),
            boom_angle.to_degrees(),
            position,
            length,
            tension,
            swing.to_degrees(),
            weld_force / weight,
        );
    }
    let stats = world.step_stats();
    println!(
        "last step: {} rows in {} island(s), {} pivots, worst LCP residual {:.1e}, joints held to {:.1e} m",
        stats.rows,
        stats.islands,
        stats.pivots,
        stats.worst_residual,
        world.max_joint_anchor_separation()
    );
    println!(
        "the rope holds hook and cargo: its tension is {:.1} N against (10 + 50) kg x 9.81 = {:.1} N when still",
        -world.joint(rope)?.feedback().limit[0],
        60.0 * 9.81
    );
    Ok(())
}
