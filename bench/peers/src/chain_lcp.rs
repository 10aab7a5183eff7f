//! The LCP this engine's exact stepper solves for a jointed world (S3's chain), rebuilt from
//! the engine's public API.
//!
//! The engine does not hand out the LCPs it assembles (its stepper keeps them internal), so
//! this module writes the same problem from the same formulas (crates/engine/src/stepper.rs,
//! joint/ball.rs): per ball joint three rows along the world axes,
//! `J = [E, -[r_a]x, -E, [r_b]x]`, `C = p_a - p_b`, `A = J M^-1 J^T + diag(cfm) / h`,
//! `b = (-erp C / h - J u*) / h` with `u*` the unconstrained velocities of the engine's own
//! [`stiction::dynamics::angular_velocity_after_step`]. [`check_against_step`] then takes one real
//! engine step from the same state and compares its joint forces with this problem's solution:
//! agreement shows it is the engine's LCP (up to the order of rows).

use std::collections::HashMap;
use stiction::dynamics::{angular_velocity_after_step, RotationalState};
use stiction::lcp::dantzig::{DantzigOptions, DantzigSolver};
use stiction::lcp::{BoxedLcp, DenseMatrix};
use stiction::math::{Mat3, Vec3};
use stiction::{BodyHandle, JointKind, World};

/// One row's Jacobian: body index and (linear, angular) parts for A and B.
struct JacobianRow {
    a: usize,
    b: Option<usize>,
    lin: Vec3,
    ang_a: Vec3,
    ang_b: Vec3,
}

/// The exact stepper's LCP for a world whose rows are all ball joints, at its current state,
/// rows in joint order (x, y, z per joint), with the world's gravity.
pub fn ball_joint_problem(world: &World, h: f64) -> Result<BoxedLcp, String> {
    let index: HashMap<BodyHandle, usize> = world
        .bodies()
        .filter(|(_, b)| b.is_dynamic())
        .enumerate()
        .map(|(i, (handle, _))| (handle, i))
        .collect();
    let bodies: Vec<_> = world.bodies().filter(|(_, b)| b.is_dynamic()).collect();
    let gravity = world.settings().gravity;
    let softness = world.settings().softness;
    let mut predicted = Vec::with_capacity(bodies.len());
    for (_, body) in &bodies {
        if body.linear_damping() != 0.0 || body.angular_damping() != 0.0 {
            return Err("damped bodies are not rebuilt here".into());
        }
        let force = body.force()
            + if body.gravity_enabled() {
                body.mass() * gravity
            } else {
                Vec3::ZERO
            };
        let linear = body.linear_velocity() + h * body.inverse_mass() * force;
        let angular = angular_velocity_after_step(
            &RotationalState::of(body),
            body.torque(),
            h,
            body.gyroscopic_mode(),
        )
        .map_err(|e| e.to_string())?
        .angular_velocity;
        predicted.push((linear, angular));
    }
    let mut rows = Vec::new();
    let mut rhs = Vec::new();
    for (_, joint) in world.joints() {
        if !joint.enabled() {
            continue;
        }
        let JointKind::Ball(ball) = joint.kind() else {
            return Err("only ball joints are rebuilt here".into());
        };
        let a = *index
            .get(&joint.body_a())
            .ok_or("joint on a non-dynamic body")?;
        let b = joint.body_b().and_then(|h| index.get(&h).copied());
        let pose_a = world
            .pose(Some(joint.body_a()))
            .map_err(|e| e.to_string())?;
        let pose_b = world.pose(joint.body_b()).map_err(|e| e.to_string())?;
        let (p_a, p_b) = (
            pose_a.transform_point(ball.local_anchor_a),
            pose_b.transform_point(ball.local_anchor_b),
        );
        let (r_a, r_b) = (p_a - pose_a.position, p_b - pose_b.position);
        let s = joint.softness().unwrap_or(softness);
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            let row = JacobianRow {
                a,
                b,
                lin: axis,
                ang_a: r_a.cross(axis),
                ang_b: r_b.cross(axis),
            };
            let (va, wa) = predicted[a];
            let mut relative = axis.dot(va) + row.ang_a.dot(wa);
            if let Some(b) = b {
                let (vb, wb) = predicted[b];
                relative -= axis.dot(vb) + row.ang_b.dot(wb);
            }
            let error = axis.dot(p_a - p_b);
            rhs.push(((-s.erp * error / h) - relative) / h);
            rows.push((row, s.cfm / h));
        }
    }
    let inverse: Vec<(f64, Mat3)> = bodies
        .iter()
        .map(|(_, b)| (b.inverse_mass(), b.inverse_inertia_world()))
        .collect();
    let n = rows.len();
    let mut a = DenseMatrix::zeros(n, n);
    for i in 0..n {
        for k in 0..=i {
            let (ri, rk) = (&rows[i].0, &rows[k].0);
            // J_i M^-1 J_k^T over the bodies the two rows share, with B's parts negated.
            let sides = |r: &JacobianRow| {
                let mut s = vec![(r.a, r.lin, r.ang_a)];
                if let Some(b) = r.b {
                    s.push((b, -r.lin, -r.ang_b));
                }
                s
            };
            let mut v = 0.0;
            for (bi, li, ai) in sides(ri) {
                for (bk, lk, ak) in sides(rk) {
                    if bi == bk {
                        let (m, inertia) = inverse[bi];
                        v += m * li.dot(lk) + ai.dot(inertia * ak);
                    }
                }
            }
            if i == k {
                v += rows[i].1;
            }
            a[(i, k)] = v;
            a[(k, i)] = v;
        }
    }
    let mut problem = BoxedLcp::new(a, rhs);
    problem.nub = n;
    problem.lo.fill(f64::NEG_INFINITY);
    Ok(problem)
}

/// Solves `problem` (from [`ball_joint_problem`] on `world`), steps a copy of the world once
/// with its exact stepper and returns the largest difference between the joint forces on
/// body A the two give, relative to the largest force.
pub fn check_against_step(world: &World, problem: &BoxedLcp, h: f64) -> Result<f64, String> {
    let report = DantzigSolver::new()
        .solve(problem, &DantzigOptions::default(), None)
        .map_err(|e| e.to_string())?;
    let mut stepped = world.clone();
    stepped
        .set_solver(stiction::Solver::exact())
        .map_err(|e| e.to_string())?;
    stepped.step(h).map_err(|e| e.to_string())?;
    let mut worst: f64 = 0.0;
    let mut largest: f64 = 0.0;
    for (k, (_, joint)) in stepped.joints().filter(|(_, j)| j.enabled()).enumerate() {
        let force = Vec3::new(report.x[3 * k], report.x[3 * k + 1], report.x[3 * k + 2]);
        worst = worst.max((joint.feedback().force_a - force).length());
        largest = largest.max(force.length());
    }
    Ok(worst / largest.max(f64::MIN_POSITIVE))
}
