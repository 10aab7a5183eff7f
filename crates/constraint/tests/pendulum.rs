//! A physical pendulum: a rod of mass `m`, length `2 l`, pinned at its top end to the origin
//! by two bilateral rows (the top end's x and y velocity), generalized velocity
//! `(vx, vy, w)` of its centre. Hanging at angle `theta` from the vertical, its bottom end
//! rests against a frictionless wall on its left (normal `+x`).
//!
//! By hand: moments about the pin, `m g l sin(theta) = fN 2 l cos(theta)`, so
//! `fN = m g tan(theta) / 2`; force balance gives the pin force `(-fN, m g)`.

mod common;

use common::{matrix, planar_row, G};
use stiction_constraint::{
    AccelerationProblem, ConstraintProblem, ConstraintSet, ConstraintSolver, DenseMatrix,
    GeneralizedInertia, VelocityProblem,
};

const MASS: f64 = 1.5;
const HALF: f64 = 0.5;
const THETA: f64 = 25.0 * std::f64::consts::PI / 180.0;

fn inertia() -> GeneralizedInertia {
    GeneralizedInertia::diagonal(&[MASS, MASS, MASS * (2.0 * HALF) * (2.0 * HALF) / 12.0]).unwrap()
}

/// Offsets of the top and bottom ends from the centre at angle `theta`.
fn ends(theta: f64) -> ([f64; 2], [f64; 2]) {
    let (s, c) = theta.sin_cos();
    ([-HALF * s, HALF * c], [HALF * s, -HALF * c])
}

fn pin_rows(theta: f64) -> (Vec<f64>, Vec<f64>) {
    let (top, _) = ends(theta);
    (planar_row(top, [1.0, 0.0]), planar_row(top, [0.0, 1.0]))
}

/// The pendulum against the wall, with the given bilateral rows.
fn constraints(bilateral: DenseMatrix) -> ConstraintSet {
    let (_, bottom) = ends(THETA);
    let wall = matrix(&[planar_row(bottom, [1.0, 0.0])], 3);
    ConstraintSet::new(3)
        .with_contacts(wall, matrix(&[], 3), vec![0], vec![0.0])
        .with_bilateral(bilateral)
}

fn hand_forces() -> (f64, [f64; 2]) {
    let wall = MASS * G * THETA.tan() / 2.0;
    (wall, [-wall, MASS * G])
}

fn gravity() -> Vec<f64> {
    vec![0.0, -MASS * G, 0.0]
}

fn assert_close(found: f64, expected: f64, what: &str) {
    assert!(
        (found - expected).abs() < 1e-9 * expected.abs().max(1.0),
        "{what}: {found} vs {expected}"
    );
}

#[test]
fn pendulum_against_a_wall_acceleration_level() {
    let (gx, gy) = pin_rows(THETA);
    let problem = AccelerationProblem::new(inertia(), gravity(), constraints(matrix(&[gx, gy], 3)));
    let solution = ConstraintSolver::new()
        .solve_constraint_problem(&problem)
        .unwrap();
    assert!(solution.is_solved());
    assert_eq!(solution.bilateral_rank, 2);
    let layout = problem.packed_layout();
    let (wall, pin) = hand_forces();
    assert_close(layout.normal(&solution.forces)[0], wall, "wall");
    assert_close(layout.bilateral(&solution.forces)[0], pin[0], "pin x");
    assert_close(layout.bilateral(&solution.forces)[1], pin[1], "pin y");
    let a = problem
        .compute_generalized_acceleration(&solution.forces)
        .unwrap();
    assert!(a.iter().all(|v| v.abs() < 1e-9), "{a:?}");
}

#[test]
fn pendulum_against_a_wall_time_stepping_gives_the_static_forces() {
    let (gx, gy) = pin_rows(THETA);
    let problem = VelocityProblem::new(inertia(), vec![0.0; 3], constraints(matrix(&[gx, gy], 3)))
        .with_force(gravity());
    let solver = ConstraintSolver::new();
    let base = solver
        .construct_base_discretized_time_lcp(&problem)
        .unwrap();
    // Seed 004's steps spelled out: update for h, solve, populate.
    for h in [0.1, 0.01, 0.001] {
        let lcp = solver
            .update_discretized_time_lcp(&problem, &base, h)
            .unwrap();
        let report = solver.solve_discretized_time_lcp(&lcp).unwrap();
        assert!(report.status.is_solved());
        let cf = solver
            .populate_packed_constraint_forces_from_lcp_solution(&base, &lcp, &report.x)
            .unwrap();
        let (wall, pin) = hand_forces();
        assert_close(cf[0], wall, "wall");
        assert_close(cf[1], pin[0], "pin x");
        assert_close(cf[2], pin[1], "pin y");
        let next = problem.compute_next_velocity(&cf, h).unwrap();
        assert!(next.iter().all(|v| v.abs() < 1e-12), "{next:?}");
    }
}

#[test]
fn duplicated_bilateral_row_shares_its_force_equally() {
    let (gx, gy) = pin_rows(THETA);
    let (wall, pin) = hand_forces();
    let g = matrix(&[gx.clone(), gy, gx], 3);

    let accel = AccelerationProblem::new(inertia(), gravity(), constraints(g.clone()));
    let velocity =
        VelocityProblem::new(inertia(), vec![0.0; 3], constraints(g)).with_force(gravity());
    let solver = ConstraintSolver::new();
    let base = solver
        .construct_base_discretized_time_lcp(&velocity)
        .unwrap();
    assert_eq!(base.bilateral_rank(), 2);
    assert_eq!(base.bilateral_count(), 3);
    let stepped = solver
        .solve_discretized_time_step(&velocity, &base, 0.01)
        .unwrap();
    let solved = solver.solve_constraint_problem(&accel).unwrap();
    for (cf, what) in [
        (&solved.forces, "acceleration"),
        (&stepped.forces, "time step"),
    ] {
        assert_close(cf[0], wall, what);
        // Least norm: the two copies of the x row carry half the pin's x force each.
        assert_close(cf[1], pin[0] / 2.0, what);
        assert_close(cf[3], pin[0] / 2.0, what);
        assert_close(cf[2], pin[1], what);
    }
    assert_eq!(solved.bilateral_rank, 2);
    let a = accel
        .compute_generalized_acceleration(&solved.forces)
        .unwrap();
    assert!(a.iter().all(|v| v.abs() < 1e-9), "{a:?}");
}

#[test]
fn dependent_bilateral_row_gives_the_least_norm_forces_and_the_same_motion() {
    // Rows x, y and x + y of the pin: rank 2. The pin force (px, py) is split as
    // f1 + f3 = px, f2 + f3 = py with f1^2 + f2^2 + f3^2 least: f3 = (px + py) / 3.
    let (gx, gy) = pin_rows(THETA);
    let sum: Vec<f64> = gx.iter().zip(&gy).map(|(a, b)| a + b).collect();
    let problem =
        AccelerationProblem::new(inertia(), gravity(), constraints(matrix(&[gx, gy, sum], 3)));
    let solution = ConstraintSolver::new()
        .solve_constraint_problem(&problem)
        .unwrap();
    assert!(solution.is_solved());
    assert_eq!(solution.bilateral_rank, 2);
    let (wall, pin) = hand_forces();
    let f3 = (pin[0] + pin[1]) / 3.0;
    let cf = &solution.forces;
    assert_close(cf[0], wall, "wall");
    assert_close(cf[3], f3, "f3");
    assert_close(cf[1], pin[0] - f3, "f1");
    assert_close(cf[2], pin[1] - f3, "f2");
    let a = problem.compute_generalized_acceleration(cf).unwrap();
    assert!(a.iter().all(|v| v.abs() < 1e-9), "{a:?}");
}

#[test]
fn swinging_pendulum_pin_carries_weight_plus_centripetal_force() {
    // Hanging straight down, swinging with angular velocity w, no wall. The top end's
    // acceleration is G v' + G' v with G' v = -w^2 r_top, so kG = -w^2 r_top and the pin
    // pulls up with m g + m w^2 l.
    let w = 3.0;
    let (top, _) = ends(0.0);
    let (gx, gy) = pin_rows(0.0);
    let mut constraints = ConstraintSet::new(3).with_bilateral(matrix(&[gx, gy], 3));
    constraints.k_g = vec![-w * w * top[0], -w * w * top[1]];
    let problem = AccelerationProblem::new(inertia(), gravity(), constraints);
    let solution = ConstraintSolver::new()
        .solve_constraint_problem(&problem)
        .unwrap();
    assert!(solution.is_solved());
    assert_close(solution.forces[0], 0.0, "pin x");
    assert_close(solution.forces[1], MASS * G + MASS * w * w * HALF, "pin y");
    let a = problem
        .compute_generalized_acceleration(&solution.forces)
        .unwrap();
    assert_close(a[1], w * w * HALF, "centripetal acceleration of the centre");
    assert_close(a[2], 0.0, "angular acceleration at the bottom of the swing");
}

#[test]
fn pendulum_swinging_into_the_wall_stops_dead() {
    // Inelastic impact of the bottom end on the wall while the rod rotates with w < 0 (its
    // bottom end moving in -x). About the pin: I_pin w = 2 l cos(theta) pN, I_pin = m (2l)^2 / 3.
    let w = -2.0;
    let (top, _) = ends(THETA);
    // Velocity of the centre for rotation about the pin: w x (-r_top).
    let velocity = vec![w * top[1], -w * top[0], w];
    let (gx, gy) = pin_rows(THETA);
    let problem = VelocityProblem::new(
        inertia(),
        velocity.clone(),
        constraints(matrix(&[gx, gy], 3)),
    );
    let solution = ConstraintSolver::new()
        .solve_impact_problem(&problem)
        .unwrap();
    assert!(solution.is_solved());
    let i_pin = MASS * (2.0 * HALF) * (2.0 * HALF) / 3.0;
    let p_wall = -i_pin * w / (2.0 * HALF * THETA.cos());
    assert_close(solution.forces[0], p_wall, "wall impulse");
    // Linear momentum: m v- + pin impulse + (p_wall, 0) = 0.
    assert_close(
        solution.forces[1],
        -MASS * velocity[0] - p_wall,
        "pin impulse x",
    );
    assert_close(solution.forces[2], -MASS * velocity[1], "pin impulse y");
    let dv = problem
        .compute_generalized_velocity_change(&solution.forces)
        .unwrap();
    for (v, d) in velocity.iter().zip(&dv) {
        assert!((v + d).abs() < 1e-9, "after impact {:?}", dv);
    }
}
