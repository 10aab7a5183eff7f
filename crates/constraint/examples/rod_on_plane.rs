//! A 2D rod dropped at an angle onto a plane, stepped with the time-discretised LCP of seed
//! 004 and its step-size procedure: build the base LCP once per step, then for `h` set the
//! `h`-dependent terms, update, solve, and halve `h` whenever the LCP cannot be solved.
//!
//! Run with `cargo run -p stiction-constraint --example rod_on_plane`.

use stiction_constraint::{
    ConstraintError, ConstraintProblem, ConstraintSet, ConstraintSolver, DenseMatrix,
    GeneralizedInertia, VelocityProblem,
};

const GRAVITY: f64 = 9.81;
const MASS: f64 = 1.0;
const HALF_LENGTH: f64 = 0.5;
const MU: f64 = 0.4;
/// Largest step; the procedure halves it down to `MIN_STEP` when an LCP fails.
const MAX_STEP: f64 = 1e-2;
const MIN_STEP: f64 = 1e-6;
/// Ends closer to the plane than this become (speculative) contacts.
const CONTACT_MARGIN: f64 = 0.02;
/// Fraction of a penetration corrected per step.
const ERP: f64 = 0.2;
const DURATION: f64 = 2.5;

/// Generalized coordinates `(x, y, angle)` of the centre and velocity `(vx, vy, w)`.
struct Rod {
    q: [f64; 3],
    v: [f64; 3],
}

/// One end touching (or about to touch) the plane.
struct Contact {
    /// Height of the end above the plane.
    gap: f64,
    /// Offset of the end from the centre.
    offset: [f64; 2],
}

impl Rod {
    fn contacts(&self) -> Vec<Contact> {
        let (s, c) = self.q[2].sin_cos();
        [1.0, -1.0]
            .into_iter()
            .map(|side| {
                let offset = [side * HALF_LENGTH * c, side * HALF_LENGTH * s];
                Contact {
                    gap: self.q[1] + offset[1],
                    offset,
                }
            })
            .filter(|contact| contact.gap < CONTACT_MARGIN)
            .collect()
    }

    /// The velocity-level problem for the current configuration (with `kN` still zero).
    fn problem(&self, contacts: &[Contact]) -> Result<VelocityProblem, ConstraintError> {
        let inertia = MASS * (2.0 * HALF_LENGTH).powi(2) / 12.0;
        // The point at offset r moves with v + w x r: (vx - w r_y, vy + w r_x).
        let normal: Vec<[f64; 3]> = contacts.iter().map(|k| [0.0, 1.0, k.offset[0]]).collect();
        let tangent: Vec<[f64; 3]> = contacts.iter().map(|k| [1.0, 0.0, -k.offset[1]]).collect();
        let constraints = ConstraintSet::new(3).with_contacts(
            rows(&normal)?,
            rows(&tangent)?,
            vec![1; contacts.len()],
            vec![MU; contacts.len()],
        );
        Ok(VelocityProblem::new(
            GeneralizedInertia::diagonal(&[MASS, MASS, inertia])?,
            self.v.to_vec(),
            constraints,
        )
        .with_force(vec![0.0, -MASS * GRAVITY, 0.0]))
    }
}

fn rows(rows: &[[f64; 3]]) -> Result<DenseMatrix, ConstraintError> {
    if rows.is_empty() {
        Ok(DenseMatrix::zeros(0, 3))
    } else {
        Ok(DenseMatrix::from_rows(rows)?)
    }
}

/// Seed 004, step 3: the stabilisation term for step `h`. A gap may close within the step;
/// a penetration is pushed out by `ERP` of its depth per step.
fn set_stabilisation(problem: &mut VelocityProblem, contacts: &[Contact], h: f64) {
    for (k, contact) in problem.constraints.k_n.iter_mut().zip(contacts) {
        let gain = if contact.gap >= 0.0 { 1.0 } else { ERP };
        *k = gain * contact.gap / h;
    }
}

fn main() -> Result<(), ConstraintError> {
    let solver = ConstraintSolver::new();
    let mut rod = Rod {
        q: [0.0, 0.8, 30f64.to_radians()],
        v: [0.5, 0.0, 2.0],
    };
    let mut t = 0.0;
    let mut halvings = 0;
    let mut last_print = -1.0;
    let mut last_contacts = usize::MAX;
    println!("   t [s]     h [s]    y [m]  angle [deg]  contacts  normal forces [N]");
    while t < DURATION {
        let contacts = rod.contacts();
        let mut problem = rod.problem(&contacts)?;
        let base = solver.construct_base_discretized_time_lcp(&problem)?; // step 1
        let mut h = MAX_STEP; // step 2
        let solution = loop {
            set_stabilisation(&mut problem, &contacts, h); // step 3
            let solution = solver.solve_discretized_time_step(&problem, &base, h)?; // 4, 5
            if solution.is_solved() {
                break solution; // step 6
            }
            // Step 7: reduce h and repeat from step 3.
            halvings += 1;
            println!("{t:8.4}  LCP {} at h = {h:.1e}: halving", solution.status);
            h *= 0.5;
            if h < MIN_STEP {
                println!("no step size down to {MIN_STEP:e} s solves the LCP; stopping");
                return Ok(());
            }
        };
        let next = problem.compute_next_velocity(&solution.forces, h)?;
        rod.v.copy_from_slice(&next);
        for (q, v) in rod.q.iter_mut().zip(&rod.v) {
            *q += h * v;
        }
        t += h;

        let normal = problem.packed_layout().normal(&solution.forces).to_vec();
        if t - last_print >= 0.1 || contacts.len() != last_contacts {
            let forces: Vec<String> = normal.iter().map(|f| format!("{f:.3}")).collect();
            println!(
                "{t:8.4}  {h:.1e}  {:7.4}  {:11.3}  {:8}  [{}]",
                rod.q[1],
                rod.q[2].to_degrees(),
                contacts.len(),
                forces.join(", ")
            );
            last_print = t;
            last_contacts = contacts.len();
        }
    }
    let contacts = rod.contacts();
    let mut problem = rod.problem(&contacts)?;
    set_stabilisation(&mut problem, &contacts, MAX_STEP);
    let base = solver.construct_base_discretized_time_lcp(&problem)?;
    let solution = solver.solve_discretized_time_step(&problem, &base, MAX_STEP)?;
    let total: f64 = problem
        .packed_layout()
        .normal(&solution.forces)
        .iter()
        .sum();
    println!(
        "at rest: y = {:.5} m, angle = {:.3} deg, speed = {:.2e}, normal force {total:.4} N (weight {:.4} N)",
        rod.q[1],
        rod.q[2].to_degrees(),
        rod.v.iter().map(|v| v * v).sum::<f64>().sqrt(),
        MASS * GRAVITY
    );
    println!("LCP failures (step halvings): {halvings}");
    Ok(())
}
