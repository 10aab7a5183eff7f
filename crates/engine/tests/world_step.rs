//! The world step without constraints matches closed forms, and the bookkeeping around it
//! (islands, handles, settings, statistics) behaves as documented.
//!
//! - Free fall and a projectile follow semi-implicit Euler's discrete formula
//!   `v_n = v_0 + n h g`, `x_n = x_0 + n h v_0 + h^2 g n (n + 1) / 2` to round-off, with
//!   either stepper.
//! - A body in no island moves exactly (bit for bit) as [`integrate_free_body`] moves it:
//!   the world adds nothing but integration for unconnected bodies.
//! - Scene S5 (docs/scenes.md) in the conserving gyroscopic mode keeps |L| and the
//!   rotational energy within `1e-6` relative over 6000 steps inside a world.
//! - Two separate pendulums make two islands; a free body makes none and costs no rows;
//!   static and kinematic bodies do not join islands.
//! - Once its buffers have grown, the iterative step allocates nothing (checked with a
//!   counting allocator).

use stiction::dynamics::integrate_free_body;
use stiction::math::{Quat, Vec3};
use stiction::scenes::spinner;
use stiction::{
    BodyKind, GyroscopicMode, MassProperties, PostStabilization, RigidBodyBuilder, Solver, World,
    WorldError, WorldSettings, STANDARD_GRAVITY,
};

const H: f64 = 1.0 / 60.0;

/// Counts heap allocations made on the current thread while counting is on.
struct CountingAllocator;

thread_local! {
    static COUNTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static ALLOCATIONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

// SAFETY: forwards every call to the system allocator unchanged.
unsafe impl std::alloc::GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if COUNTING.with(|c| c.get()) {
            ALLOCATIONS.with(|a| a.set(a.get() + 1));
        }
        // SAFETY: same contract as the caller's.
        unsafe { std::alloc::System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Heap allocations made by `f` on this thread.
fn allocations(f: impl FnOnce()) -> usize {
    ALLOCATIONS.with(|a| a.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(|a| a.get())
}

fn solvers() -> [Solver; 2] {
    [Solver::exact(), Solver::iterative()]
}

fn ball(position: Vec3) -> RigidBodyBuilder {
    RigidBodyBuilder::dynamic()
        .mass_properties(MassProperties::sphere_with_mass(0.1, 2.0).unwrap())
        .position(position)
}

#[test]
fn free_fall_and_projectile_follow_the_discrete_formula() {
    for solver in solvers() {
        let mut world = World::new();
        world.set_solver(solver).unwrap();
        let (x0, v0) = (Vec3::new(1.0, -2.0, 50.0), Vec3::new(3.0, 1.0, 12.0));
        let dropped = world.add_body(ball(x0).build().unwrap());
        let thrown = world.add_body(ball(x0).linear_velocity(v0).build().unwrap());
        let n = 120;
        for _ in 0..n {
            let stats = world.step(H).unwrap();
            assert_eq!((stats.rows, stats.islands, stats.free_bodies), (0, 0, 2));
        }
        let nf = n as f64;
        let g = STANDARD_GRAVITY;
        let fall = x0 + H * H * g * (nf * (nf + 1.0) / 2.0);
        let flight = fall + nf * H * v0;
        let body = world.body(dropped).unwrap();
        assert!((body.position() - fall).length() < 1e-12);
        assert!((body.linear_velocity() - nf * H * g).length() < 1e-12);
        let body = world.body(thrown).unwrap();
        assert!((body.position() - flight).length() < 1e-12);
        assert!((body.linear_velocity() - (v0 + nf * H * g)).length() < 1e-12);
        assert!((world.time() - nf * H).abs() < 1e-12);
    }
}

#[test]
fn a_free_body_moves_exactly_as_the_free_integrator_moves_it() {
    let builder = RigidBodyBuilder::dynamic()
        .mass_properties(MassProperties::cuboid(Vec3::new(0.5, 0.2, 0.1), 700.0).unwrap())
        .position(Vec3::new(0.0, 1.0, 3.0))
        .orientation(Quat::from_rotation_x(0.4))
        .linear_velocity(Vec3::new(1.0, 0.0, 2.0))
        .angular_velocity(Vec3::new(0.5, 3.0, -1.0))
        .linear_damping(0.3)
        .angular_damping(0.1);
    for mode in [GyroscopicMode::Implicit, GyroscopicMode::Conserving] {
        let mut alone = builder.clone().gyroscopic_mode(mode).build().unwrap();
        let mut world = World::new();
        let handle = world.add_body(alone.clone());
        for k in 0..300 {
            // A force and a torque every other step, through both paths.
            if k % 2 == 0 {
                let (force, torque) = (Vec3::new(5.0, -3.0, 1.0), Vec3::new(0.2, 0.0, -0.7));
                alone.add_force(force).unwrap();
                alone.add_torque(torque).unwrap();
                let body = world.body_mut(handle).unwrap();
                body.add_force(force).unwrap();
                body.add_torque(torque).unwrap();
            }
            integrate_free_body(&mut alone, STANDARD_GRAVITY, H).unwrap();
            world.step(H).unwrap();
        }
        assert_eq!(world.body(handle).unwrap(), &alone, "{mode:?}");
    }
}

#[test]
fn conserving_spinner_keeps_momentum_and_energy_in_a_world() {
    let mut scene = spinner(GyroscopicMode::Conserving).unwrap();
    let body = scene.bodies[0];
    let (l0, e0) = {
        let b = scene.world.body(body).unwrap();
        (b.angular_momentum(), b.rotational_kinetic_energy())
    };
    let mut worst: f64 = 0.0;
    for _ in 0..scene.steps {
        let stats = scene.world.step(scene.h).unwrap();
        assert_eq!(stats.gyroscopic_fallbacks, 0);
        let b = scene.world.body(body).unwrap();
        let momentum = (b.angular_momentum().length() / l0.length() - 1.0).abs();
        let energy = (b.rotational_kinetic_energy() / e0 - 1.0).abs();
        worst = worst.max(momentum).max(energy);
    }
    assert!(worst < 1e-6, "relative drift {worst:e}");
    // The L vector itself is kept too (no torque acts), not only its length.
    let l = scene.world.body(body).unwrap().angular_momentum();
    assert!((l - l0).length() < 1e-6 * l0.length());
}

#[test]
fn separate_pendulums_make_separate_islands_and_free_bodies_none() {
    for solver in solvers() {
        let mut world = World::new();
        world.set_solver(solver).unwrap();
        let ground = world.add_body(RigidBodyBuilder::static_body().build().unwrap());
        let a = world.add_body(ball(Vec3::new(1.0, 0.0, 0.0)).build().unwrap());
        let b = world.add_body(ball(Vec3::new(11.0, 0.0, 0.0)).build().unwrap());
        let free = world.add_body(ball(Vec3::new(0.0, 5.0, 0.0)).build().unwrap());
        // Pendulum A hangs from the static world, pendulum B from a static body: neither
        // the world nor the static body links them.
        world.add_ball_joint(a, None, Vec3::ZERO).unwrap();
        world
            .add_ball_joint(b, Some(ground), Vec3::new(10.0, 0.0, 0.0))
            .unwrap();
        // A second joint on the same static body must not merge anything either.
        let c = world.add_body(ball(Vec3::new(-5.0, 0.0, 0.0)).build().unwrap());
        world
            .add_hinge_joint(c, Some(ground), Vec3::new(-4.0, 0.0, 0.0), Vec3::Y)
            .unwrap();
        let stats = world.step(H).unwrap();
        assert_eq!(stats.islands, 3);
        assert_eq!(stats.rows, 3 + 3 + 5);
        assert_eq!(stats.constrained_bodies, 3);
        assert_eq!(stats.free_bodies, 1);
        assert_eq!(stats.island_reports.len(), 3);
        let mut sizes: Vec<_> = stats.island_reports.iter().map(|r| r.rows).collect();
        sizes.sort();
        assert_eq!(sizes, [3, 3, 5]);
        // The free body fell freely.
        let z = world.body(free).unwrap().position().z;
        assert!((z - H * H * STANDARD_GRAVITY.z).abs() < 1e-15);
    }
}

#[test]
fn kinematic_bodies_drive_joints_without_being_pushed() {
    let mut world = World::new();
    let v = Vec3::new(1.0, 0.0, 0.0);
    let carrier = world.add_body(
        RigidBodyBuilder::kinematic()
            .linear_velocity(v)
            .build()
            .unwrap(),
    );
    let bob = world.add_body(ball(Vec3::new(0.0, 0.0, -1.0)).build().unwrap());
    world
        .add_ball_joint(bob, Some(carrier), Vec3::ZERO)
        .unwrap();
    let other = world.add_body(ball(Vec3::new(5.0, 0.0, -1.0)).build().unwrap());
    world
        .add_ball_joint(other, Some(carrier), Vec3::new(5.0, 0.0, 0.0))
        .unwrap();
    for _ in 0..120 {
        let stats = world.step(H).unwrap();
        // The kinematic carrier links nothing: two islands.
        assert_eq!(stats.islands, 2);
    }
    let carrier_body = world.body(carrier).unwrap();
    assert_eq!(carrier_body.kind(), BodyKind::Kinematic);
    assert_eq!(carrier_body.linear_velocity(), v);
    assert!((carrier_body.position() - 120.0 * H * v).length() < 1e-12);
    // The bob is dragged along and still hangs one metre from the moving anchor.
    let gap = world.body(bob).unwrap().position() - carrier_body.position();
    assert!((gap.length() - 1.0).abs() < 1e-6);
    assert!(world.body(bob).unwrap().position().x > 1.0);
}

#[test]
fn handles_go_stale_and_removing_a_body_removes_its_joints() {
    let mut world = World::new();
    let a = world.add_body(ball(Vec3::X).build().unwrap());
    let b = world.add_body(ball(Vec3::new(2.0, 0.0, 0.0)).build().unwrap());
    let j1 = world.add_ball_joint(a, None, Vec3::ZERO).unwrap();
    let j2 = world
        .add_ball_joint(b, Some(a), Vec3::new(1.5, 0.0, 0.0))
        .unwrap();
    world.remove_body(a).unwrap();
    assert_eq!(world.body(a).unwrap_err(), WorldError::StaleBody(a));
    assert_eq!(world.joint(j1).unwrap_err(), WorldError::StaleJoint(j1));
    assert_eq!(world.joint(j2).unwrap_err(), WorldError::StaleJoint(j2));
    assert_eq!(world.joint_count(), 0);
    // The slot is reused, but the old handle stays stale.
    let c = world.add_body(ball(Vec3::ZERO).build().unwrap());
    assert_eq!(c.index(), a.index());
    assert!(world.body(a).is_err());
    assert!(matches!(
        world.add_ball_joint(a, None, Vec3::ZERO),
        Err(WorldError::StaleBody(_))
    ));
    assert!(matches!(
        world.add_ball_joint(c, Some(c), Vec3::ZERO),
        Err(WorldError::InvalidJoint { .. })
    ));
    assert!(matches!(
        world.add_hinge_joint(c, None, Vec3::ZERO, Vec3::ZERO),
        Err(WorldError::InvalidJoint { .. })
    ));
    world.step(H).unwrap();
}

#[test]
fn settings_out_of_range_are_rejected_and_leave_the_world_unchanged() {
    let mut world = World::new();
    let bad = [
        Solver::Iterative(stiction::IterativeSettings {
            omega: 2.0,
            ..Default::default()
        }),
        Solver::Iterative(stiction::IterativeSettings {
            iterations: 0,
            ..Default::default()
        }),
    ];
    for solver in bad {
        assert!(matches!(
            world.set_solver(solver),
            Err(WorldError::InvalidSetting { .. })
        ));
    }
    let mut settings = WorldSettings::default();
    settings.softness.erp = 1.5;
    assert!(world.set_settings(settings).is_err());
    let settings = WorldSettings {
        post_stabilization: PostStabilization {
            rotation_weight: 0.0,
            ..Default::default()
        },
        ..Default::default()
    };
    assert!(world.set_settings(settings).is_err());
    assert!(world.set_gravity(Vec3::new(0.0, f64::NAN, 0.0)).is_err());
    assert_eq!(world.settings().gravity, STANDARD_GRAVITY);
    assert!(matches!(world.settings().solver, Solver::Exact(_)));
}

#[test]
fn statistics_describe_the_step() {
    let mut world = World::new();
    let a = world.add_body(ball(Vec3::new(1.0, 0.0, 0.0)).build().unwrap());
    world.add_ball_joint(a, None, Vec3::ZERO).unwrap();
    let stats = world.step(H).unwrap();
    assert!(stats.committed);
    assert_eq!(stats.h, H);
    assert_eq!((stats.rows, stats.islands, stats.fallbacks), (3, 1, 0));
    assert!(stats.worst_residual < 1e-9);
    // Phases are timed only on request (reading the clock is half a lone body's step).
    assert_eq!(stats.times, stiction::PhaseTimes::default());
    let report = stats.island_reports[0];
    assert_eq!(
        (report.bodies, report.rows, report.unbounded_rows),
        (1, 3, 3)
    );
    assert!(report.status.is_solved());
    assert!(!report.warm_started);
    // The second step starts from the first one's index sets.
    assert!(world.step(H).unwrap().island_reports[0].warm_started);
    world
        .set_settings(WorldSettings {
            time_phases: true,
            ..world.settings().clone()
        })
        .unwrap();
    let times = world.step(H).unwrap().times;
    assert!(times.total >= times.solve + times.rows && times.solve.as_nanos() > 0);
}

#[test]
fn the_iterative_step_allocates_nothing_once_warm() {
    let mut scene = stiction::scenes::chain(
        20,
        WorldSettings {
            solver: Solver::iterative(),
            ..WorldSettings::default()
        },
    )
    .unwrap();
    let free = scene
        .world
        .add_body(ball(Vec3::new(0.0, 3.0, 0.0)).build().unwrap());
    for _ in 0..5 {
        scene.world.step(H).unwrap();
    }
    let count = allocations(|| {
        for _ in 0..50 {
            scene.world.step(H).unwrap();
        }
    });
    assert_eq!(count, 0);
    assert!(scene.world.body(free).unwrap().linear_velocity().z < 0.0);
    // The exact stepper's own buffers are reused too; what remains is the LCP crate's
    // report (its solution and slack vectors), a few per island and step.
    scene.world.set_solver(Solver::exact()).unwrap();
    scene.world.step(H).unwrap();
    let count = allocations(|| {
        scene.world.step(H).unwrap();
    });
    assert!(count <= 10, "{count}");
}
