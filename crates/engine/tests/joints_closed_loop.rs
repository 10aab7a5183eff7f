//! A closed loop of joints: a parallelogram four-bar linkage of hinges (crank, coupler,
//! rocker on two ground pivots) falling over from upright under gravity.
//!
//! Its 20 hinge rows constrain 18 velocity coordinates of a 1-degree-of-freedom mechanism:
//! three rows are redundant, so without CFM `J M^-1 J^T` is singular. Invariants, for both
//! steppers and with the iterative stepper's direct solve of joint-only islands on and off
//! (`IterativeSettings::direct_bilateral`), with CFM and without: every step succeeds, the
//! joints hold (post-stabilisation), the coupler of a parallelogram only translates (its
//! orientation stays the rest one), and the energy stays within semi-implicit Euler's
//! oscillation.

mod common;

use common::mechanical_energy as energy;
use stiction::math::{Quat, Vec3};
use stiction::{
    BodyHandle, IterativeSettings, MassProperties, RigidBodyBuilder, Solver, World, WorldSettings,
};

const H: f64 = 1.0 / 60.0;

/// The linkage, its crank tipped by 0.1 rad so that it falls; returns the world and the
/// coupler.
fn four_bar(solver: Solver, cfm: f64) -> (World, BodyHandle) {
    let mut settings = WorldSettings {
        solver,
        ..WorldSettings::default()
    };
    settings.softness.cfm = cfm;
    let mut world = World::with_settings(settings).unwrap();
    let tilt = 0.1f64;
    let (s, c) = tilt.sin_cos();
    let bar = |world: &mut World, centre: Vec3, half: Vec3, orientation: Quat| {
        let mass = MassProperties::cuboid_with_mass(half, 1.0).unwrap();
        let body = RigidBodyBuilder::dynamic()
            .mass_properties(mass)
            .position(centre)
            .orientation(orientation)
            .build()
            .unwrap();
        world.add_body(body)
    };
    // Crank and rocker: 1 m bars tipped by `tilt` about y (their tops move towards +x).
    let vertical = Vec3::new(0.05, 0.05, 0.5);
    let tipped = Quat::from_rotation_y(tilt);
    let top = Vec3::new(s, 0.0, c);
    let crank = bar(&mut world, 0.5 * top, vertical, tipped);
    let rocker = bar(
        &mut world,
        Vec3::new(2.0, 0.0, 0.0) + 0.5 * top,
        vertical,
        tipped,
    );
    let coupler = bar(
        &mut world,
        top + Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(1.0, 0.05, 0.05),
        Quat::IDENTITY,
    );
    let y = Vec3::Y;
    world.add_hinge_joint(crank, None, Vec3::ZERO, y).unwrap();
    world.add_hinge_joint(coupler, Some(crank), top, y).unwrap();
    world
        .add_hinge_joint(coupler, Some(rocker), top + Vec3::new(2.0, 0.0, 0.0), y)
        .unwrap();
    world
        .add_hinge_joint(rocker, None, Vec3::new(2.0, 0.0, 0.0), y)
        .unwrap();
    (world, coupler)
}

#[test]
fn a_parallelogram_four_bar_holds_with_redundant_rows() {
    let iterative = |direct_bilateral| {
        Solver::Iterative(IterativeSettings {
            direct_bilateral,
            ..Default::default()
        })
    };
    for cfm in [1e-5, 0.0] {
        for (name, solver) in [
            ("exact", Solver::exact()),
            ("iterative, direct", iterative(true)),
            ("iterative, swept", iterative(false)),
        ] {
            let (mut world, coupler) = four_bar(solver, cfm);
            let start = energy(&world);
            let (mut worst_separation, mut worst_turn, mut direct): (f64, f64, usize) =
                (0.0, 0.0, 0);
            let mut lowest = f64::INFINITY;
            let mut gain = f64::NEG_INFINITY;
            for step in 0..120 {
                let stats = world
                    .step(H)
                    .unwrap_or_else(|e| panic!("{name}, CFM {cfm}, step {step}: {e}"));
                assert_eq!(stats.islands, 1);
                direct += stats.direct_islands;
                worst_separation = worst_separation.max(world.max_joint_anchor_separation());
                let body = world.body(coupler).unwrap();
                worst_turn = worst_turn.max(body.orientation().angle_between(Quat::IDENTITY));
                lowest = lowest.min(body.position().z);
                gain = gain.max(energy(&world) - start);
            }
            eprintln!(
                "{name}, CFM {cfm}: separation {worst_separation:.1e} m, coupler turned \
                 {worst_turn:.1e} rad, lowest {lowest:.2} m, {direct} direct solves, energy gain \
                 {gain:.2e} J of {start:.1} J"
            );
            // It fell over: the coupler (1 m up at rest) swings down below its pivots'
            // height.
            assert!(lowest < 0.0, "{name}, CFM {cfm}: {lowest}");
            assert!(
                worst_separation < 1e-5,
                "{name}, CFM {cfm}: {worst_separation}"
            );
            assert!(worst_turn < 1e-4, "{name}, CFM {cfm}: {worst_turn}");
            // Semi-implicit Euler's energy oscillates by about h w (0.05 here, w ~ 3 rad/s)
            // of the motion's; a solve that mishandled the redundant rows would pump it.
            assert!(gain < 0.05 * start, "{name}, CFM {cfm}: {gain} of {start}");
            if name == "iterative, swept" {
                assert_eq!(direct, 0);
            }
        }
    }
}
