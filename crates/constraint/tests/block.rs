//! A block on a plane: at rest, sliding to a stop, pushed below and above the friction limit.

mod common;

use common::{box_inertia, box_on_plane_rows, matrix, planar_row, spatial_row, G};
use stiction_constraint::{
    calc_contact_forces_in_contact_frames_2d, calc_contact_forces_in_contact_frames_3d,
    AccelerationProblem, ConstraintProblem, ConstraintSet, ConstraintSolver, ContactFrame2,
    ContactFrame3, GeneralizedInertia, VelocityProblem,
};

const MASS: f64 = 2.0;
const HALF: [f64; 3] = [0.5, 0.3, 0.2];
const MU: f64 = 0.5;
/// Spanning directions per contact: an octagonal friction cone whose edges include +-x.
const R: usize = 4;

fn box_constraints(mu: f64) -> ConstraintSet {
    let (normal, friction) = box_on_plane_rows(HALF, R);
    ConstraintSet::new(6).with_contacts(normal, friction, vec![R; 4], vec![mu; 4])
}

fn box_problem(velocity: [f64; 6], push: f64, mu: f64) -> VelocityProblem {
    let inertia = GeneralizedInertia::diagonal(&box_inertia(MASS, HALF)).unwrap();
    VelocityProblem::new(inertia, velocity.to_vec(), box_constraints(mu)).with_force(vec![
        push,
        0.0,
        -MASS * G,
        0.0,
        0.0,
        0.0,
    ])
}

fn plane_frames() -> Vec<ContactFrame3> {
    vec![ContactFrame3::new([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]); 4]
}

/// One time step of size `h`: the packed forces and the velocity at its end.
fn step(solver: &ConstraintSolver, problem: &VelocityProblem, h: f64) -> (Vec<f64>, Vec<f64>) {
    let base = solver.construct_base_discretized_time_lcp(problem).unwrap();
    let solution = solver
        .solve_discretized_time_step(problem, &base, h)
        .unwrap();
    assert!(solution.is_solved(), "status {}", solution.status);
    let next = problem.compute_next_velocity(&solution.forces, h).unwrap();
    (solution.forces, next)
}

#[test]
fn planar_block_at_rest_carries_its_weight_without_friction() {
    // (x, y, angle) block, half-width 0.5, half-height 0.2, corners on the ground.
    let (a, b) = (0.5, 0.2);
    let inertia =
        GeneralizedInertia::diagonal(&[MASS, MASS, MASS * (4.0 * a * a + 4.0 * b * b) / 12.0])
            .unwrap();
    let corners = [[a, -b], [-a, -b]];
    let normal = matrix(&corners.map(|c| planar_row(c, [0.0, 1.0])), 3);
    let friction = matrix(&corners.map(|c| planar_row(c, [1.0, 0.0])), 3);
    let constraints =
        ConstraintSet::new(3).with_contacts(normal, friction, vec![1, 1], vec![MU; 2]);
    let problem = AccelerationProblem::new(inertia, vec![0.0, -MASS * G, 0.0], constraints);

    let solution = ConstraintSolver::new()
        .solve_constraint_problem(&problem)
        .unwrap();
    assert!(solution.is_solved());
    let layout = problem.packed_layout();
    let normal = layout.normal(&solution.forces);
    // Symmetric corners: each carries half the weight (moment balance about the centre).
    for &f in normal {
        assert!((f - MASS * G / 2.0).abs() < 1e-9, "normal {normal:?}");
    }
    for &f in layout.friction(&solution.forces) {
        assert!(f.abs() < 1e-9, "friction {f}");
    }
    let acceleration = problem
        .compute_generalized_acceleration(&solution.forces)
        .unwrap();
    assert!(
        acceleration.iter().all(|a| a.abs() < 1e-9),
        "{acceleration:?}"
    );

    let frames = vec![ContactFrame2::new([0.0, 1.0], [1.0, 0.0]); 2];
    let local =
        calc_contact_forces_in_contact_frames_2d(&problem, &solution.forces, &frames).unwrap();
    let world = frames[0].to_world(local[0]);
    assert!((world[1] - MASS * G / 2.0).abs() < 1e-9 && world[0].abs() < 1e-9);
}

#[test]
fn box_at_rest_time_stepping_normal_forces_sum_to_weight_and_it_stays_put() {
    let solver = ConstraintSolver::new();
    let mut problem = box_problem([0.0; 6], 0.0, MU);
    for _ in 0..50 {
        let (forces, next) = step(&solver, &problem, 0.01);
        let layout = problem.packed_layout();
        let total: f64 = layout.normal(&forces).iter().sum();
        assert!(
            (total - MASS * G).abs() < 1e-9 * MASS * G,
            "total normal {total}"
        );
        assert!(layout.normal(&forces).iter().all(|&f| f >= 0.0));
        let local =
            calc_contact_forces_in_contact_frames_3d(&problem, &forces, &plane_frames()).unwrap();
        for f in &local {
            assert!(
                f[1].abs() < 1e-9 && f[2].abs() < 1e-9,
                "friction in frame {f:?}"
            );
        }
        assert!(next.iter().all(|v| v.abs() < 1e-12), "velocity {next:?}");
        problem.velocity = next;
    }
}

#[test]
fn sliding_box_decelerates_at_mu_g_and_stops_at_v_squared_over_two_mu_g() {
    let solver = ConstraintSolver::new();
    let (v0, h) = (2.0, 1e-3);
    let mut problem = box_problem([v0, 0.0, 0.0, 0.0, 0.0, 0.0], 0.0, MU);
    let mut distance = 0.0;
    let mut steps = 0;
    while problem.velocity[0] > 0.0 {
        let (forces, next) = step(&solver, &problem, h);
        let layout = problem.packed_layout();
        let normal_total: f64 = layout.normal(&forces).iter().sum();
        assert!(
            (normal_total - MASS * G).abs() < 1e-8,
            "normal {normal_total}"
        );
        // While sliding, every step loses exactly mu g h of speed.
        if next[0] > 0.0 {
            let deceleration = (problem.velocity[0] - next[0]) / h;
            assert!(
                (deceleration - MU * G).abs() < 1e-8,
                "deceleration {deceleration}"
            );
        }
        assert!(
            next[1..].iter().all(|v| v.abs() < 1e-9),
            "no lift, yaw or sideways drift: {next:?}"
        );
        distance += h * next[0];
        problem.velocity = next;
        steps += 1;
        assert!(steps < 10_000, "never stopped");
    }
    assert!(
        problem.velocity[0].abs() < 1e-12,
        "stops dead, v = {}",
        problem.velocity[0]
    );
    let exact = v0 * v0 / (2.0 * MU * G);
    let stop_time = v0 / (MU * G);
    println!("stopping distance {distance:.6} m (exact {exact:.6}), {steps} steps (exact time {stop_time:.4} s)");
    // Semi-implicit Euler under-runs the exact distance by about v0 h / 2.
    assert!(
        (distance - exact).abs() < v0 * h,
        "distance {distance} vs {exact}"
    );
    assert!(
        (steps as f64 * h - stop_time).abs() <= h,
        "stop time {}",
        steps as f64 * h
    );

    // Once stopped it stays stopped.
    let (_, next) = step(&solver, &problem, h);
    assert!(next.iter().all(|v| v.abs() < 1e-12));
}

#[test]
fn box_pushed_below_the_friction_limit_stays_put() {
    let solver = ConstraintSolver::new();
    let push = 0.8 * MU * MASS * G;
    let mut problem = box_problem([0.0; 6], push, MU);
    for _ in 0..20 {
        let (forces, next) = step(&solver, &problem, 0.01);
        let local =
            calc_contact_forces_in_contact_frames_3d(&problem, &forces, &plane_frames()).unwrap();
        let friction_x: f64 = local.iter().map(|f| f[1]).sum();
        assert!(
            (friction_x + push).abs() < 1e-9,
            "friction {friction_x} must cancel {push}"
        );
        assert!(next.iter().all(|v| v.abs() < 1e-12), "{next:?}");
        problem.velocity = next;
    }
}

#[test]
fn box_pushed_above_the_friction_limit_accelerates_at_f_minus_mu_m_g_over_m() {
    let solver = ConstraintSolver::new();
    let push = 1.5 * MU * MASS * G;
    let expected = (push - MU * MASS * G) / MASS;
    let h = 0.01;
    let mut problem = box_problem([0.0; 6], push, MU);
    for k in 1..=20 {
        let (_, next) = step(&solver, &problem, h);
        assert!(
            (next[0] - k as f64 * h * expected).abs() < 1e-9,
            "step {k}: {}",
            next[0]
        );
        problem.velocity = next;
    }
    let measured = problem.velocity[0] / (20.0 * h);
    println!("time stepping: acceleration {measured:.9} (expected {expected:.9})");
}

#[test]
fn acceleration_level_push_matches_for_sticking_and_sliding_contacts() {
    let solver = ConstraintSolver::new();
    let inertia = GeneralizedInertia::diagonal(&box_inertia(MASS, HALF)).unwrap();
    for (push, expected) in [
        (0.5 * MU * MASS * G, 0.0),
        (1.5 * MU * MASS * G, 0.5 * MU * G),
    ] {
        let force = vec![push, 0.0, -MASS * G, 0.0, 0.0, 0.0];
        // From rest every contact is non-sliding: the friction cone decides.
        let problem = AccelerationProblem::new(inertia.clone(), force.clone(), box_constraints(MU));
        let solution = solver.solve_constraint_problem(&problem).unwrap();
        assert!(solution.is_solved());
        let a = problem
            .compute_generalized_acceleration(&solution.forces)
            .unwrap();
        assert!((a[0] - expected).abs() < 1e-9, "push {push}: a = {a:?}");
        assert!(a[1..].iter().all(|v| v.abs() < 1e-9), "{a:?}");

        if expected > 0.0 {
            // Already sliding along +x: friction is the known -mu fN along x.
            let (normal, _) = box_on_plane_rows(HALF, R);
            let constraints = ConstraintSet::new(6).with_contacts(
                normal,
                matrix(&[], 6),
                vec![0; 4],
                vec![MU; 4],
            );
            let sliding_direction = matrix(
                &common::bottom_corners(HALF).map(|c| spatial_row(c, [1.0, 0.0, 0.0])),
                6,
            );
            let problem = AccelerationProblem::new(inertia.clone(), force, constraints)
                .with_sliding(vec![true; 4], sliding_direction);
            let solution = solver.solve_constraint_problem(&problem).unwrap();
            assert!(solution.is_solved());
            let a = problem
                .compute_generalized_acceleration(&solution.forces)
                .unwrap();
            assert!((a[0] - expected).abs() < 1e-9, "sliding: a = {a:?}");
            let local = calc_contact_forces_in_contact_frames_3d(
                &problem,
                &solution.forces,
                &plane_frames(),
            )
            .unwrap();
            let friction: f64 = local.iter().map(|f| f[1]).sum();
            assert!(
                (friction + MU * MASS * G).abs() < 1e-9,
                "friction {friction}"
            );
            let normal: f64 = local.iter().map(|f| f[0]).sum();
            assert!((normal - MASS * G).abs() < 1e-9);
        }
    }
}
