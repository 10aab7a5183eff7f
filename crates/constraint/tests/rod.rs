//! A 2D rod (generalized velocity `(vx, vy, w)`) touching the ground with its lower end:
//! inelastic impacts checked against a hand-solved 2 x 2 impulse problem, and Painleve's
//! paradox at the acceleration level, which must be reported as unsolvable.

mod common;

use common::{dot, matrix, planar_row, G};
use stiction_constraint::{
    calc_contact_forces_in_contact_frames_2d, AccelerationProblem, ConstraintSet, ConstraintSolver,
    ContactFrame2, GeneralizedInertia, Status, VelocityProblem,
};

const MASS: f64 = 1.0;
/// Half the rod's length.
const HALF: f64 = 0.5;
/// The rod's angle above the horizontal; the lower end is at `-HALF (cos, sin)`.
const ANGLE: f64 = std::f64::consts::PI / 6.0;

fn inertia_diagonal() -> [f64; 3] {
    [MASS, MASS, MASS * (2.0 * HALF) * (2.0 * HALF) / 12.0]
}

fn lower_end() -> [f64; 2] {
    [-HALF * ANGLE.cos(), -HALF * ANGLE.sin()]
}

/// Normal (`+y`) and tangent (`+x`) rows of the lower end.
fn rows() -> (Vec<f64>, Vec<f64>) {
    (
        planar_row(lower_end(), [0.0, 1.0]),
        planar_row(lower_end(), [1.0, 0.0]),
    )
}

fn impact_problem(velocity: [f64; 3], mu: f64) -> VelocityProblem {
    let (n, t) = rows();
    let constraints =
        ConstraintSet::new(3).with_contacts(matrix(&[n], 3), matrix(&[t], 3), vec![1], vec![mu]);
    let inertia = GeneralizedInertia::diagonal(&inertia_diagonal()).unwrap();
    VelocityProblem::new(inertia, velocity.to_vec(), constraints)
}

/// `a . diag(inertia)^-1 b`.
fn weighted(a: &[f64], b: &[f64]) -> f64 {
    let m = inertia_diagonal();
    (0..3).map(|k| a[k] * b[k] / m[k]).sum()
}

/// The inelastic impact with Coulomb friction solved by hand: stick if the sticking impulse
/// lies in the cone, otherwise slide with the tangential impulse at the cone's edge against
/// the final slip.
fn hand_impact(velocity: [f64; 3], mu: f64) -> (f64, f64) {
    let (n, t) = rows();
    let (ann, ant, att) = (weighted(&n, &n), weighted(&n, &t), weighted(&t, &t));
    let (bn, bt) = (dot(&n, &velocity), dot(&t, &velocity));
    let det = ann * att - ant * ant;
    let pn = (-bn * att + bt * ant) / det;
    let pt = (-bt * ann + bn * ant) / det;
    if pn >= 0.0 && pt.abs() <= mu * pn {
        return (pn, pt);
    }
    for s in [1.0, -1.0] {
        // Tangential impulse -s mu pn, final slip of sign s.
        let pn = -bn / (ann - s * mu * ant);
        let slip = bt + (ant - s * mu * att) * pn;
        if pn >= 0.0 && s * slip >= -1e-12 {
            return (pn, -s * mu * pn);
        }
    }
    panic!("no consistent hand solution");
}

fn kinetic_energy(v: &[f64]) -> f64 {
    let m = inertia_diagonal();
    0.5 * (0..3).map(|k| m[k] * v[k] * v[k]).sum::<f64>()
}

#[test]
fn falling_rod_impact_stops_the_contact_point_with_a_non_negative_impulse() {
    let solver = ConstraintSolver::new();
    let drop_speed = (2.0 * G * 0.5).sqrt(); // released 0.5 m above the ground
    let cases = [
        ([0.0, -drop_speed, 0.0], 0.0),
        ([0.0, -drop_speed, 0.0], 0.2),
        ([0.0, -drop_speed, 0.0], 5.0),
        ([0.8, -2.0, 1.5], 0.0),
        ([0.8, -2.0, 1.5], 0.3),
        ([0.8, -2.0, 1.5], 5.0),
        ([-1.0, -2.0, -3.0], 0.3),
    ];
    for (velocity, mu) in cases {
        let problem = impact_problem(velocity, mu);
        let solution = solver.solve_impact_problem(&problem).unwrap();
        assert!(solution.is_solved(), "status {}", solution.status);
        let (pn, pt) = (solution.forces[0], solution.forces[1]);
        let dv = problem
            .compute_generalized_velocity_change(&solution.forces)
            .unwrap();
        let after: Vec<f64> = velocity.iter().zip(&dv).map(|(v, d)| v + d).collect();
        let (n, t) = rows();
        let normal_velocity = dot(&n, &after);
        println!(
            "v- {velocity:?} mu {mu}: impulse ({pn:.6}, {pt:.6}), contact velocity after ({:.2e}, {:.6})",
            normal_velocity,
            dot(&t, &after)
        );
        assert!(pn >= 0.0, "impulse {pn}");
        assert!(
            normal_velocity.abs() < 1e-9,
            "normal velocity after {normal_velocity}"
        );
        assert!(
            pt.abs() <= mu * pn + 1e-12,
            "friction impulse {pt} outside the cone"
        );
        let (hand_n, hand_t) = hand_impact(velocity, mu);
        assert!(
            (pn - hand_n).abs() < 1e-9 * hand_n.max(1.0),
            "pn {pn} vs {hand_n}"
        );
        assert!(
            (pt - hand_t).abs() < 1e-9 * hand_n.max(1.0),
            "pt {pt} vs {hand_t}"
        );
        assert!(kinetic_energy(&after) <= kinetic_energy(&velocity) + 1e-12);

        let frames = [ContactFrame2::new([0.0, 1.0], [1.0, 0.0])];
        let local =
            calc_contact_forces_in_contact_frames_2d(&problem, &solution.forces, &frames).unwrap();
        assert_eq!(local[0], [pn, pt]);
    }
}

#[test]
fn restitution_through_k_n_reverses_the_normal_velocity() {
    let velocity = [0.0, -3.0, 0.0];
    let e = 0.5;
    let mut problem = impact_problem(velocity, 0.0);
    let (n, _) = rows();
    let before = dot(&n, &velocity);
    problem.constraints.k_n[0] = e * before; // N v+ >= -e N v-
    let solution = ConstraintSolver::new()
        .solve_impact_problem(&problem)
        .unwrap();
    let dv = problem
        .compute_generalized_velocity_change(&solution.forces)
        .unwrap();
    let after: Vec<f64> = velocity.iter().zip(&dv).map(|(v, d)| v + d).collect();
    assert!(
        (dot(&n, &after) + e * before).abs() < 1e-9,
        "{}",
        dot(&n, &after)
    );
}

/// The rod sliding with its lower end moving in `-x`, falling from rest in rotation: the
/// normal row of the acceleration-level LCP is `MM fN + qq` with
/// `MM = N C (N - mu Q)^T = 1/m + l^2 cos^2 / I - mu l^2 cos sin / I`, `qq = -g`.
fn painleve_problem(mu: f64) -> AccelerationProblem {
    let (n, t) = rows();
    let q: Vec<f64> = t.iter().map(|x| -x).collect();
    let constraints =
        ConstraintSet::new(3).with_contacts(matrix(&[n], 3), matrix(&[], 3), vec![0], vec![mu]);
    let inertia = GeneralizedInertia::diagonal(&inertia_diagonal()).unwrap();
    AccelerationProblem::new(inertia, vec![0.0, -MASS * G, 0.0], constraints)
        .with_sliding(vec![true], matrix(&[q], 3))
}

fn painleve_mm(mu: f64) -> f64 {
    let i = inertia_diagonal()[2];
    let (c, s) = (ANGLE.cos(), ANGLE.sin());
    1.0 / MASS + HALF * HALF * c * c / i - mu * HALF * HALF * c * s / i
}

#[test]
fn sliding_rod_normal_force_matches_the_hand_solution() {
    let mu = 0.3;
    let problem = painleve_problem(mu);
    let solution = ConstraintSolver::new()
        .solve_constraint_problem(&problem)
        .unwrap();
    assert!(solution.is_solved());
    let expected = G / painleve_mm(mu);
    assert!(
        (solution.forces[0] - expected).abs() < 1e-9,
        "{} vs {expected}",
        solution.forces[0]
    );
    // The contact point neither penetrates nor leaves: normal acceleration zero.
    let a = problem
        .compute_generalized_acceleration(&solution.forces)
        .unwrap();
    assert!(dot(&rows().0, &a).abs() < 1e-9);
    // Friction -mu fN along the sliding direction (-x): +mu fN along the frame tangent +x
    // when the frame's tangent points along the sliding direction -x.
    let frames = [ContactFrame2::new([0.0, 1.0], [-1.0, 0.0])];
    let local =
        calc_contact_forces_in_contact_frames_2d(&problem, &solution.forces, &frames).unwrap();
    let world = frames[0].to_world(local[0]);
    assert!((world[0] - mu * expected).abs() < 1e-9 && (world[1] - expected).abs() < 1e-9);
}

#[test]
fn painleve_paradox_is_reported_as_unsolvable_not_as_an_error() {
    let mu = 3.0;
    assert!(
        painleve_mm(mu) < 0.0,
        "precondition: inconsistent configuration"
    );
    let solution = ConstraintSolver::new()
        .solve_constraint_problem(&painleve_problem(mu))
        .unwrap();
    assert!(!solution.is_solved());
    assert_eq!(solution.status, Status::RayTermination);
}
