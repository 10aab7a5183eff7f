//! The engine's step and the Drake-style constraint solver (`stiction-constraint`) describe the
//! same physics: given the same body, constraint Jacobian and step size, the engine's exact
//! stepper (Dantzig on `J M^-1 J^T`) and the constraint crate's time-discretised LCP (Lemke on
//! the MLCP reduced by eliminating the bilateral forces) must produce the same constraint force
//! and the same velocity after the step (issue 8's cross-check).
//!
//! The configurations start at rest with every constraint satisfied, so stabilisation terms
//! (ERP, `kG`) and velocity-dependent terms are zero in both, and CFM is set to zero.

use stiction::math::Vec3;
use stiction::{MassProperties, RigidBodyBuilder, Softness, World, WorldSettings};
use stiction_constraint::{
    ConstraintProblem, ConstraintSet, ConstraintSolver, DenseMatrix, GeneralizedInertia,
    VelocityProblem,
};

const H: f64 = 0.01;

/// `dir . (v + w x r) = dir . v + (r x dir) . w` for a body's 6 world-frame velocities.
fn point_row(r: Vec3, dir: Vec3) -> [f64; 6] {
    let c = r.cross(dir);
    [dir.x, dir.y, dir.z, c.x, c.y, c.z]
}

#[test]
fn pendulum_joint_force_and_velocity_agree_with_the_constraint_solver() {
    // A 2 kg box (0.2 x 0.1 x 0.1 m) hanging from a world pivot 0.8 m away, at 35 degrees.
    let angle = 35f64.to_radians();
    let pivot = Vec3::new(0.0, 0.0, 2.0);
    let com = pivot + 0.8 * Vec3::new(angle.sin(), 0.0, -angle.cos());
    let mass = MassProperties::cuboid_with_mass(Vec3::new(0.1, 0.05, 0.05), 2.0).unwrap();

    let settings = WorldSettings {
        softness: Softness { erp: 0.0, cfm: 0.0 },
        ..WorldSettings::default()
    };
    let mut settings = settings;
    settings.post_stabilization.enabled = false;
    let mut world = World::with_settings(settings).unwrap();
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(mass)
            .position(com)
            .build()
            .unwrap(),
    );
    let joint = world.add_ball_joint(body, None, pivot).unwrap();
    world.step(H).unwrap();
    let engine_force = world.joint(joint).unwrap().feedback().force_a;
    let engine_v = world.body(body).unwrap().linear_velocity();
    let engine_w = world.body(body).unwrap().angular_velocity();

    // The same system for the constraint crate: v = (vx, vy, vz, wx, wy, wz).
    let inertia = mass.inertia();
    let mut m = DenseMatrix::zeros(6, 6);
    for k in 0..3 {
        m[(k, k)] = 2.0;
        for j in 0..3 {
            m[(3 + k, 3 + j)] = inertia.col(j)[k];
        }
    }
    let r = pivot - com;
    let rows: Vec<[f64; 6]> = [Vec3::X, Vec3::Y, Vec3::Z]
        .into_iter()
        .map(|d| point_row(r, d))
        .collect();
    let bilateral = DenseMatrix::from_rows(&rows).unwrap();
    let mut constraints = ConstraintSet::new(6).with_bilateral(bilateral);
    constraints.k_g = vec![0.0; 3];
    let problem = VelocityProblem::new(
        GeneralizedInertia::from_matrix(m).unwrap(),
        vec![0.0; 6],
        constraints,
    )
    .with_force(vec![0.0, 0.0, -2.0 * 9.81, 0.0, 0.0, 0.0]);
    let solver = ConstraintSolver::new();
    let base = solver
        .construct_base_discretized_time_lcp(&problem)
        .unwrap();
    let solution = solver
        .solve_discretized_time_step(&problem, &base, H)
        .unwrap();
    assert!(solution.is_solved());
    let f_g = problem.packed_layout().bilateral(&solution.forces).to_vec();
    let drake_force = Vec3::new(f_g[0], f_g[1], f_g[2]);
    let v_next = problem.compute_next_velocity(&solution.forces, H).unwrap();

    // Analytic check too: at rest the rod tension is m g cos(angle) along the rod.
    let tension = 2.0 * 9.81 * angle.cos();
    assert!((drake_force.length() - tension).abs() < 0.02 * tension);

    let scale = drake_force.length();
    assert!(
        (engine_force - drake_force).length() < 1e-9 * scale,
        "engine {engine_force:?} vs constraint crate {drake_force:?}"
    );
    let engine_u = [
        engine_v.x, engine_v.y, engine_v.z, engine_w.x, engine_w.y, engine_w.z,
    ];
    for (e, d) in engine_u.iter().zip(&v_next) {
        assert!((e - d).abs() < 1e-10, "velocity {engine_u:?} vs {v_next:?}");
    }
}
