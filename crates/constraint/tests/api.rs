//! Validation (every error names its field), the inertia as a solve operation, the
//! stabilisation and regularisation terms, and misuse of the discretisation steps.

mod common;

use common::{matrix, G};
use stiction_constraint::{
    calc_contact_forces_in_contact_frames_2d, calc_contact_forces_in_contact_frames_3d,
    AccelerationProblem, ConstraintError, ConstraintSet, ConstraintSolver, ContactFrame2,
    ContactFrame3, DenseMatrix, GeneralizedInertia, LemkeOptions, SolverOptions, VelocityProblem,
};

const MASS: f64 = 2.0;

/// A point mass in the plane, `(vx, vy)`, on the ground: one contact with one spanning
/// direction.
fn point_on_ground(mu: f64) -> ConstraintSet {
    ConstraintSet::new(2).with_contacts(
        matrix(&[vec![0.0, 1.0]], 2),
        matrix(&[vec![1.0, 0.0]], 2),
        vec![1],
        vec![mu],
    )
}

fn point_problem(velocity: [f64; 2], constraints: ConstraintSet) -> VelocityProblem {
    let inertia = GeneralizedInertia::diagonal(&[MASS, MASS]).unwrap();
    VelocityProblem::new(inertia, velocity.to_vec(), constraints).with_force(vec![0.0, -MASS * G])
}

fn field_of(error: &ConstraintError) -> &'static str {
    match error {
        ConstraintError::MatrixShape { field, .. }
        | ConstraintError::LengthMismatch { field, .. }
        | ConstraintError::NonFinite { field, .. }
        | ConstraintError::Negative { field, .. }
        | ConstraintError::BaseMismatch { field, .. } => field,
        other => panic!("not a field error: {other:?}"),
    }
}

#[test]
fn every_bad_field_is_named() {
    let solver = ConstraintSolver::new();
    type Edit = fn(&mut VelocityProblem);
    let cases: [(&str, Edit); 13] = [
        ("velocity", |p| p.velocity.push(0.0)),
        ("force", |p| p.force[1] = f64::NAN),
        ("normal", |p| {
            p.constraints.normal = DenseMatrix::zeros(1, 3)
        }),
        ("spanning_directions", |p| {
            p.constraints.spanning_directions.push(1)
        }),
        ("friction", |p| p.constraints.spanning_directions[0] = 2),
        ("mu", |p| p.constraints.mu.clear()),
        ("mu", |p| p.constraints.mu[0] = -0.1),
        ("k_n", |p| p.constraints.k_n[0] = f64::INFINITY),
        ("k_d", |p| p.constraints.k_d.push(0.0)),
        ("gamma_n", |p| p.constraints.gamma_n[0] = -1.0),
        ("k_g", |p| p.constraints.k_g.push(1.0)),
        ("bilateral", |p| {
            p.constraints.bilateral = matrix(&[vec![f64::NAN, 0.0]], 2);
            p.constraints.k_g = vec![0.0];
        }),
        ("gamma_l", |p| {
            p.constraints.unilateral = matrix(&[vec![1.0, 0.0]], 2);
            p.constraints.k_l = vec![0.0];
            p.constraints.gamma_l = vec![-2.0];
        }),
    ];
    for (field, edit) in cases {
        let mut problem = point_problem([0.0, 0.0], point_on_ground(0.5));
        edit(&mut problem);
        let error = solver.solve_impact_problem(&problem).unwrap_err();
        assert_eq!(field_of(&error), field, "{error}");
        assert!(error.to_string().contains(&format!("`{field}`")), "{error}");
    }
}

#[test]
fn bad_inertia_is_rejected() {
    let err = GeneralizedInertia::from_matrix(DenseMatrix::zeros(2, 3)).unwrap_err();
    assert_eq!(field_of(&err), "inertia");
    let err =
        GeneralizedInertia::from_matrix(DenseMatrix::from_rows(&[[1.0, 0.5], [0.0, 1.0]]).unwrap())
            .unwrap_err();
    assert!(
        matches!(
            err,
            ConstraintError::InertiaNotSymmetric { row: 1, col: 0, .. }
        ),
        "{err}"
    );
    let err =
        GeneralizedInertia::from_matrix(DenseMatrix::from_rows(&[[1.0, 2.0], [2.0, 1.0]]).unwrap())
            .unwrap_err();
    assert_eq!(err, ConstraintError::InertiaNotPositiveDefinite);
    let err = GeneralizedInertia::diagonal(&[1.0, f64::NAN]).unwrap_err();
    assert_eq!(field_of(&err), "inertia");

    // A solve operation that returns the wrong shape is caught at the first solve.
    let broken = GeneralizedInertia::from_solve(2, |x: &DenseMatrix| {
        DenseMatrix::zeros(x.cols(), x.rows() + 1)
    });
    let problem = VelocityProblem::new(broken, vec![0.0, -1.0], point_on_ground(0.5));
    let err = ConstraintSolver::new()
        .solve_impact_problem(&problem)
        .unwrap_err();
    assert!(
        matches!(err, ConstraintError::InertiaSolveShape { .. }),
        "{err}"
    );
}

#[test]
fn inertia_as_a_solve_operation_agrees_with_the_matrix() {
    // A non-diagonal inertia (a planar body seen from a point off its centre):
    // M = [[m, 0, -m c], [0, m, m a], [-m c, m a, I + m (a^2 + c^2)]].
    let (m, i, a, c) = (1.5, 0.2, 0.3, -0.1);
    let rows = [
        [m, 0.0, -m * c],
        [0.0, m, m * a],
        [-m * c, m * a, i + m * (a * a + c * c)],
    ];
    let by_matrix =
        GeneralizedInertia::from_matrix(DenseMatrix::from_rows(&rows).unwrap()).unwrap();
    let factor = by_matrix.clone();
    let by_solve =
        GeneralizedInertia::from_solve(3, move |x: &DenseMatrix| factor.solve(x).unwrap());
    let constraints = ConstraintSet::new(3)
        .with_contacts(
            matrix(&[vec![0.0, 1.0, 0.4], vec![0.0, 1.0, -0.4]], 3),
            matrix(&[vec![1.0, 0.0, 0.1], vec![1.0, 0.0, 0.1]], 3),
            vec![1, 1],
            vec![0.3, 0.3],
        )
        .with_bilateral(matrix(&[vec![0.2, 0.0, 1.0]], 3));
    let velocity = vec![0.5, -2.0, 1.0];
    let solver = ConstraintSolver::new();
    let a = solver
        .solve_impact_problem(&VelocityProblem::new(
            by_matrix,
            velocity.clone(),
            constraints.clone(),
        ))
        .unwrap();
    let b = solver
        .solve_impact_problem(&VelocityProblem::new(by_solve, velocity, constraints))
        .unwrap();
    assert!(a.is_solved() && b.is_solved());
    for (x, y) in a.forces.iter().zip(&b.forces) {
        assert!((x - y).abs() < 1e-12, "{:?} vs {:?}", a.forces, b.forces);
    }
}

#[test]
fn compliant_contact_through_gamma_n() {
    // v+ = h (-g + fN / m) and v+ + gamma fN = 0: fN = m g / (1 + m gamma / h).
    let (h, gamma) = (0.01, 0.002);
    let mut problem = point_problem([0.0, 0.0], point_on_ground(0.5));
    problem.constraints.gamma_n[0] = gamma;
    let solver = ConstraintSolver::new();
    let base = solver
        .construct_base_discretized_time_lcp(&problem)
        .unwrap();
    let solution = solver
        .solve_discretized_time_step(&problem, &base, h)
        .unwrap();
    let expected = MASS * G / (1.0 + MASS * gamma / h);
    assert!(
        (solution.forces[0] - expected).abs() < 1e-9,
        "{} vs {expected}",
        solution.forces[0]
    );
    let next = problem.compute_next_velocity(&solution.forces, h).unwrap();
    assert!(
        (next[1] + gamma * expected).abs() < 1e-12,
        "sinks at gamma fN: {}",
        next[1]
    );
}

#[test]
fn conveyor_surface_velocity_through_k_d() {
    // Friction rows read F v+ + kD + lambda >= 0 and -F v+ - kD + lambda >= 0: a sticking
    // contact moves at F v+ = -kD. The step needs m u / h of friction, within mu m g.
    let (h, u) = (0.01, 0.03);
    let mut problem = point_problem([0.0, 0.0], point_on_ground(0.5));
    problem.constraints.k_d[0] = -u;
    let solver = ConstraintSolver::new();
    let base = solver
        .construct_base_discretized_time_lcp(&problem)
        .unwrap();
    let solution = solver
        .solve_discretized_time_step(&problem, &base, h)
        .unwrap();
    let next = problem.compute_next_velocity(&solution.forces, h).unwrap();
    assert!(
        (next[0] - u).abs() < 1e-12 && next[1].abs() < 1e-12,
        "{next:?}"
    );
    assert!((solution.forces[1] - MASS * u / h).abs() < 1e-9);
}

#[test]
fn joint_limit_through_l_with_stabilisation_and_softness() {
    // A point on a limit x >= 0 already violated by 1 mm, pushed into it with 5 N. kL = erp
    // phi / h asks for a separation speed of erp * 1 mm / h; gammaL softens it.
    let (h, erp, phi, push, gamma) = (0.01, 0.2, -0.001, 5.0, 0.01);
    let constraints = ConstraintSet::new(2).with_unilateral(matrix(&[vec![1.0, 0.0]], 2));
    let inertia = GeneralizedInertia::diagonal(&[MASS, MASS]).unwrap();
    let mut problem =
        VelocityProblem::new(inertia, vec![0.0, 0.0], constraints).with_force(vec![-push, 0.0]);
    problem.constraints.k_l[0] = erp * phi / h;
    let solver = ConstraintSolver::new();
    let base = solver
        .construct_base_discretized_time_lcp(&problem)
        .unwrap();
    let stiff = solver
        .solve_discretized_time_step(&problem, &base, h)
        .unwrap();
    // v+ = h (-push + fL) / m = -kL.
    let expected = push - MASS * erp * phi / (h * h);
    assert!(
        (stiff.forces[0] - expected).abs() < 1e-9,
        "{} vs {expected}",
        stiff.forces[0]
    );

    problem.constraints.gamma_l[0] = gamma;
    let soft = solver
        .solve_discretized_time_step(&problem, &base, h)
        .unwrap();
    // h (-push + fL) / m + kL + gamma fL = 0.
    let expected = (h * push / MASS - erp * phi / h) / (h / MASS + gamma);
    assert!(
        (soft.forces[0] - expected).abs() < 1e-9,
        "{} vs {expected}",
        soft.forces[0]
    );
}

#[test]
fn acceleration_level_fields_are_checked() {
    let inertia = GeneralizedInertia::diagonal(&[MASS, MASS]).unwrap();
    let solver = ConstraintSolver::new();
    let problem =
        AccelerationProblem::new(inertia.clone(), vec![0.0, -MASS * G], point_on_ground(0.5))
            .with_sliding(vec![true], matrix(&[vec![1.0, 0.0]], 2));
    let err = solver.solve_constraint_problem(&problem).unwrap_err();
    assert_eq!(
        err,
        ConstraintError::SlidingContactWithFriction {
            contact: 0,
            directions: 1
        }
    );

    let frictionless = ConstraintSet::new(2).with_contacts(
        matrix(&[vec![0.0, 1.0]], 2),
        matrix(&[], 2),
        vec![0],
        vec![0.5],
    );
    let problem =
        AccelerationProblem::new(inertia.clone(), vec![0.0, -MASS * G], frictionless.clone())
            .with_sliding(vec![true], DenseMatrix::zeros(0, 2));
    assert_eq!(
        field_of(&solver.solve_constraint_problem(&problem).unwrap_err()),
        "sliding_direction"
    );
    let problem =
        AccelerationProblem::new(inertia.clone(), vec![0.0, -MASS * G], frictionless.clone())
            .with_sliding(vec![true, false], matrix(&[vec![1.0, 0.0]], 2));
    assert_eq!(
        field_of(&solver.solve_constraint_problem(&problem).unwrap_err()),
        "sliding"
    );
    let problem = AccelerationProblem::new(inertia, vec![0.0], frictionless);
    assert_eq!(
        field_of(&solver.solve_constraint_problem(&problem).unwrap_err()),
        "force"
    );
}

#[test]
fn discretisation_misuse_is_an_error() {
    let solver = ConstraintSolver::new();
    let problem = point_problem([0.0, 0.0], point_on_ground(0.5));
    let base = solver
        .construct_base_discretized_time_lcp(&problem)
        .unwrap();
    for h in [0.0, -0.01, f64::NAN, f64::INFINITY] {
        let err = solver
            .update_discretized_time_lcp(&problem, &base, h)
            .unwrap_err();
        assert!(matches!(err, ConstraintError::BadStepSize { .. }), "{err}");
    }
    let other = point_problem(
        [0.0, 0.0],
        point_on_ground(0.5).with_bilateral(matrix(&[vec![1.0, 0.0]], 2)),
    );
    let err = solver
        .update_discretized_time_lcp(&other, &base, 0.01)
        .unwrap_err();
    assert_eq!(field_of(&err), "bilateral");
    let lcp = solver
        .update_discretized_time_lcp(&problem, &base, 0.01)
        .unwrap();
    let err = solver
        .populate_packed_constraint_forces_from_lcp_solution(&base, &lcp, &[0.0])
        .unwrap_err();
    assert_eq!(field_of(&err), "zz");

    let err = ConstraintSolver::with_options(SolverOptions {
        bilateral_rank_tolerance: 1.5,
        ..SolverOptions::default()
    })
    .unwrap_err();
    assert!(matches!(
        err,
        ConstraintError::BadOption {
            option: "bilateral_rank_tolerance",
            ..
        }
    ));
    let strict = ConstraintSolver::with_options(SolverOptions {
        lemke: LemkeOptions {
            max_pivots: Some(0),
            ..LemkeOptions::default()
        },
        ..SolverOptions::default()
    })
    .unwrap();
    let err = strict
        .solve_impact_problem(&point_problem([0.0, -1.0], point_on_ground(0.5)))
        .unwrap_err();
    assert!(matches!(err, ConstraintError::Lcp(_)), "{err}");
}

#[test]
fn contact_frame_misuse_is_an_error() {
    let problem = point_problem([0.0, -1.0], point_on_ground(0.5));
    let solution = ConstraintSolver::new()
        .solve_impact_problem(&problem)
        .unwrap();
    let cf = &solution.forces;
    let good = [ContactFrame2::new([0.0, 1.0], [1.0, 0.0])];
    assert!(
        (calc_contact_forces_in_contact_frames_2d(&problem, cf, &good).unwrap()[0][0] - MASS).abs()
            < 1e-12
    );
    let err = calc_contact_forces_in_contact_frames_2d(&problem, &cf[..1], &good).unwrap_err();
    assert_eq!(field_of(&err), "cf");
    let err = calc_contact_forces_in_contact_frames_2d(&problem, cf, &[]).unwrap_err();
    assert_eq!(field_of(&err), "frames");
    let skewed = [ContactFrame2::new([0.0, 1.0], [1.0, 0.1])];
    let err = calc_contact_forces_in_contact_frames_2d(&problem, cf, &skewed).unwrap_err();
    assert!(
        matches!(err, ConstraintError::FrameNotOrthonormal { contact: 0, .. }),
        "{err}"
    );
    let nan = [ContactFrame3::new(
        [0.0, 0.0, f64::NAN],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
    )];
    let three = VelocityProblem::new(
        GeneralizedInertia::diagonal(&[1.0; 3]).unwrap(),
        vec![0.0, 0.0, -1.0],
        ConstraintSet::new(3).with_contacts(
            matrix(&[vec![0.0, 0.0, 1.0]], 3),
            matrix(&[vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0]], 3),
            vec![2],
            vec![0.5],
        ),
    );
    let cf3 = ConstraintSolver::new()
        .solve_impact_problem(&three)
        .unwrap()
        .forces;
    let err = calc_contact_forces_in_contact_frames_3d(&three, &cf3, &nan).unwrap_err();
    assert!(
        matches!(err, ConstraintError::FrameNotOrthonormal { .. }),
        "{err}"
    );
    let err = calc_contact_forces_in_contact_frames_2d(
        &three,
        &cf3,
        &[ContactFrame2::new([0.0, 1.0], [1.0, 0.0])],
    )
    .unwrap_err();
    assert_eq!(
        err,
        ConstraintError::NotTwoDimensional {
            contact: 0,
            directions: 2
        }
    );
}

#[test]
fn unconstrained_and_infeasible_problems() {
    let solver = ConstraintSolver::new();
    // No constraints at all: nothing to solve, the body falls freely.
    let free = point_problem([1.0, 0.0], ConstraintSet::new(2));
    let base = solver.construct_base_discretized_time_lcp(&free).unwrap();
    let solution = solver
        .solve_discretized_time_step(&free, &base, 0.1)
        .unwrap();
    assert!(solution.is_solved() && solution.forces.is_empty());
    let next = free.compute_next_velocity(&solution.forces, 0.1).unwrap();
    assert!((next[0] - 1.0).abs() < 1e-15 && (next[1] + 0.1 * G).abs() < 1e-12);

    // Two unilateral rows asking for vx >= 1 and vx <= -1: no forces can do both. The LCP's
    // matrix is positive semi-definite, so Lemke's ray proves it infeasible; it is reported
    // as a status, not an error.
    let mut contradictory = point_problem(
        [0.0, 0.0],
        ConstraintSet::new(2).with_unilateral(matrix(&[vec![1.0, 0.0], vec![-1.0, 0.0]], 2)),
    );
    contradictory.constraints.k_l = vec![-1.0, -1.0];
    let base = solver
        .construct_base_discretized_time_lcp(&contradictory)
        .unwrap();
    let solution = solver
        .solve_discretized_time_step(&contradictory, &base, 0.01)
        .unwrap();
    assert!(!solution.is_solved());
    assert_eq!(solution.status, stiction_constraint::Status::RayTermination);
}
