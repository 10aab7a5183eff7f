//! Reusable constraint parts: the rows that several joint types (and contacts) share.
//!
//! Sign convention (see [`crate::rows`]): `J u` is the motion of A's side minus B's.
//!
//! **Point part** (ball; the point of hinge, fixed, universal, hinge-2). World anchors
//! `p_a = x_a + r_a`, `p_b = x_b + r_b`:
//!
//! ```text
//! C = p_a - p_b                       (3 rows, one per world axis e)
//! dC/dt = v_a + w_a x r_a - v_b - w_b x r_b
//! J_e = [ e,  r_a x e,  -e,  -(r_b x e) ]
//! ```
//!
//! **Parallel-axes part** (hinge; universal and hinge-2 use one of its rows). Unit axes `u`
//! fixed in A and `v` fixed in B, `p`, `q` a basis of the plane normal to `u`. Near alignment
//! `v x u` is the rotation of A relative to B about axes normal to `u`:
//!
//! ```text
//! C = ( p . (v x u), q . (v x u) )    (2 rows)
//! dC/dt = p . (w_a - w_b), q . (w_a - w_b)     (to first order in the misalignment)
//! J_p = [ 0, p, 0, -p ],  J_q = [ 0, q, 0, -q ]
//! ```
//!
//! **Point-on-line part** (slider, hinge-2). A point `p_a` of A stays on the line through
//! `o_b` along the unit direction `u`, both fixed in B; `(p, q)` a basis normal to `u`. B's
//! lever arm is taken to the material point of B at `p_a`, so that the rows measure the
//! velocity of `p_a` relative to the line:
//!
//! ```text
//! C = ( p . (p_a - o_b),  q . (p_a - o_b) )                     (2 rows)
//! J_e = [ e,  r_a x e,  -e,  -((p_a - x_b) x e) ]               e = p, q
//! ```
//!
//! exact where `C = 0` (`de/dt . (p_a - o_b)` vanishes there). The same Jacobian along `u`
//! is the exact derivative of the sliding coordinate `s = u . (p_a - o_b)` everywhere
//! ([`line_jacobian`]).
//!
//! **Perpendicular-axes part** (universal, hinge-2). Unit axes `a` fixed in A and `b` fixed
//! in B stay perpendicular:
//!
//! ```text
//! C = a . b,    dC/dt = (w_a x a) . b + a . (w_b x b) = (a x b) . (w_a - w_b)
//! J = [ 0, a x b, 0, -(a x b) ]                                  (1 row, exact)
//! ```
//!
//! **Fixed-orientation part** (fixed, slider). With `r` the rest orientation of A in B's
//! frame and the error rotation `e = q_a (q_b r)^-1` (sign chosen so `e.w >= 0`):
//!
//! ```text
//! C = 2 vec(e)  ~ the rotation vector of A away from its rest orientation   (3 rows)
//! dC/dt = w_a - w_b   (at e = 1),     J_k = [ 0, e_k, 0, -e_k ]  (world axes e_k)
//! ```
//!
//! (ODE's `dJointCreateFixed` and the angular rows of `dJointCreateSlider`).
//!
//! **Limit and motor parts** (every joint axis, Jolt's pattern): they take the Jacobian of
//! a joint coordinate `x` (an angle, a position, a distance) and only choose bounds,
//! targets and softness. A limit `lower <= x <= upper` is one row with the force bounded
//! on one side, `[0, inf)` at the lower stop (`C = x - lower >= 0`) or the mirrored
//! `(-inf, 0]` at the upper stop (`C = x - upper <= 0`), so the force is the signed
//! generalized force along `x`. A motor is `J u+ = v_target` with the force in
//! `[-f_max, f_max]`.
//!
//! The Jacobians are those of ODE's `dxJointHinge` (Smith, ODE manual), written in this
//! engine's sign convention.

use crate::math::{Quat, Vec3};
use crate::rows::{JacobianRow, Pose, Row, RowWriter, Softness};

/// A unit basis `(p, q)` of the plane normal to the unit vector `n`, with `p x q = n`.
///
/// Continuous except where `n` crosses the plane `|n.z| = 1/sqrt(2)`; the rows built on it
/// do not depend on which basis of the plane is chosen.
pub fn plane_basis(n: Vec3) -> (Vec3, Vec3) {
    let p = if n.z.abs() > std::f64::consts::FRAC_1_SQRT_2 {
        // Close to z: use the y-z plane.
        let scale = 1.0 / (n.y * n.y + n.z * n.z).sqrt();
        Vec3::new(0.0, -n.z * scale, n.y * scale)
    } else {
        let scale = 1.0 / (n.x * n.x + n.y * n.y).sqrt();
        Vec3::new(-n.y * scale, n.x * scale, 0.0)
    };
    (p, n.cross(p))
}

/// The Jacobian of the relative velocity, along world direction `axis`, of the point
/// `anchor_a` moving with A and the point `anchor_b` moving with B (world anchors, m).
#[inline]
pub fn linear_jacobian(
    writer: &RowWriter,
    axis: Vec3,
    anchor_a: Vec3,
    anchor_b: Vec3,
) -> JacobianRow {
    linear_jacobian_at(writer.pose_a(), writer.pose_b(), axis, anchor_a, anchor_b)
}

/// [`linear_jacobian`] for bodies at `pose_a` and `pose_b` (outside a writer: readouts).
#[inline]
pub fn linear_jacobian_at(
    pose_a: &Pose,
    pose_b: &Pose,
    axis: Vec3,
    anchor_a: Vec3,
    anchor_b: Vec3,
) -> JacobianRow {
    let r_a = anchor_a - pose_a.position;
    let r_b = anchor_b - pose_b.position;
    JacobianRow {
        linear_a: axis,
        angular_a: r_a.cross(axis),
        linear_b: -axis,
        angular_b: -r_b.cross(axis),
    }
}

/// The Jacobian of the velocity along `direction` of the point `anchor_a` of A relative to
/// the material point of B at the same place: the rate of a sliding coordinate along a line
/// fixed in B (exact, see the point-on-line part).
pub fn line_jacobian(pose_a: &Pose, pose_b: &Pose, direction: Vec3, anchor_a: Vec3) -> JacobianRow {
    linear_jacobian_at(pose_a, pose_b, direction, anchor_a, anchor_a)
}

/// The Jacobian of the relative angular velocity `axis . (w_a - w_b)`.
pub fn angular_jacobian(axis: Vec3) -> JacobianRow {
    JacobianRow {
        linear_a: Vec3::ZERO,
        angular_a: axis,
        linear_b: Vec3::ZERO,
        angular_b: -axis,
    }
}

/// One linear row along `axis` (unit, world) between the world anchors, with error
/// `axis . (anchor_a - anchor_b)`: the building block of sliders, limits and contact normals.
#[inline]
pub fn linear_row(writer: &RowWriter, axis: Vec3, anchor_a: Vec3, anchor_b: Vec3) -> Row {
    linear_row_at(writer.pose_a(), writer.pose_b(), axis, anchor_a, anchor_b)
}

/// [`linear_row`] for bodies at `pose_a` and `pose_b` (without a writer: the contact rows,
/// which are written into the storage by index).
#[inline]
pub fn linear_row_at(
    pose_a: &Pose,
    pose_b: &Pose,
    axis: Vec3,
    anchor_a: Vec3,
    anchor_b: Vec3,
) -> Row {
    let jacobian = linear_jacobian_at(pose_a, pose_b, axis, anchor_a, anchor_b);
    Row::equality(jacobian, axis.dot(anchor_a - anchor_b))
}

/// The point part: three equality rows making the world anchors `anchor_a` (moving with A)
/// and `anchor_b` (moving with B) coincide. Returns the rows' indices.
#[inline]
pub fn point_to_point(writer: &mut RowWriter, anchor_a: Vec3, anchor_b: Vec3) -> [usize; 3] {
    if writer.is_errors_only() {
        // Only the errors are kept: no lever arms.
        return point_errors(anchor_a, anchor_b)
            .map(|error| writer.push(Row::equality(JacobianRow::default(), error)));
    }
    [Vec3::X, Vec3::Y, Vec3::Z].map(|axis| {
        let row = linear_row(writer, axis, anchor_a, anchor_b);
        writer.push(row)
    })
}

/// The errors of [`point_to_point`]'s rows: the gap `anchor_a - anchor_b` along the world
/// axes (what [`linear_row_at`]'s `axis . gap` gives for the unit axes, to the bit).
#[inline]
pub fn point_errors(anchor_a: Vec3, anchor_b: Vec3) -> [f64; 3] {
    let gap = anchor_a - anchor_b;
    [gap.x, gap.y, gap.z]
}

/// The parallel-axes part: two equality rows keeping the unit world axes `axis_a` (fixed in
/// A) and `axis_b` (fixed in B) parallel and pointing the same way, leaving rotation about
/// them free. Returns the rows' indices.
pub fn parallel_axes(writer: &mut RowWriter, axis_a: Vec3, axis_b: Vec3) -> [usize; 2] {
    let (p, q) = plane_basis(axis_a);
    let misalignment = axis_b.cross(axis_a);
    [p, q].map(|d| writer.push(Row::equality(angular_jacobian(d), d.dot(misalignment))))
}

/// The point-on-line part: two equality rows keeping the world point `anchor_a` (moving with
/// A) on the line through `origin_b` along the unit `direction` (both moving with B).
/// Returns the rows' indices.
pub fn point_on_line(
    writer: &mut RowWriter,
    anchor_a: Vec3,
    origin_b: Vec3,
    direction: Vec3,
) -> [usize; 2] {
    let (p, q) = plane_basis(direction);
    [p, q].map(|e| {
        let jacobian = line_jacobian(writer.pose_a(), writer.pose_b(), e, anchor_a);
        writer.push(Row::equality(jacobian, e.dot(anchor_a - origin_b)))
    })
}

/// The perpendicular-axes part: one equality row keeping the unit world axes `axis_a` (fixed
/// in A) and `axis_b` (fixed in B) perpendicular. Returns the row's index.
pub fn perpendicular_axes(writer: &mut RowWriter, axis_a: Vec3, axis_b: Vec3) -> usize {
    let jacobian = angular_jacobian(axis_a.cross(axis_b));
    writer.push(Row::equality(jacobian, axis_a.dot(axis_b)))
}

/// The error rotation of the fixed-orientation part: how far A (at `orientation_a`) is
/// turned from its rest orientation `rest` relative to B (at `orientation_b`), as the
/// world-frame rotation vector `2 vec(e)` (rad for small angles).
pub fn orientation_error(orientation_a: Quat, orientation_b: Quat, rest: Quat) -> Vec3 {
    let e = orientation_a * (orientation_b * rest).inverse();
    let e = if e.w < 0.0 { -e } else { e };
    2.0 * Vec3::new(e.x, e.y, e.z)
}

/// The fixed-orientation part: three equality rows keeping A's orientation relative to B at
/// `rest` (A's orientation in B's frame, `q_b^-1 q_a` when the joint was made). Returns the
/// rows' indices.
pub fn fixed_orientation(writer: &mut RowWriter, rest: Quat) -> [usize; 3] {
    let error = orientation_error(
        writer.pose_a().orientation,
        writer.pose_b().orientation,
        rest,
    );
    [Vec3::X, Vec3::Y, Vec3::Z]
        .map(|e| writer.push(Row::equality(angular_jacobian(e), e.dot(error))))
}

/// How a limit stop bounces: an approach faster than `threshold` (m/s or rad/s, `>= 0`)
/// leaves at `restitution` (in `[0, 1]`) times the approach speed.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Bounce {
    /// Restitution coefficient `e`, dimensionless.
    pub restitution: f64,
    /// Approach speed below which the stop does not bounce.
    pub threshold: f64,
}

/// How much faster than predicted (m/s or rad/s) a coordinate is assumed to be able to move
/// towards a stop when deciding whether the stop may act this step. The prediction `J u*`
/// leaves out the forces of every other row on the two bodies: a hook hanging on a rope
/// from a trolley that a rail holds up is predicted to fall with the trolley, so `u*`
/// shows no approach, and a rope left a micrometre slack by the last projection would let
/// the hook drop for a step. An active stop that is not reached costs a row and nothing
/// else (it lets the gap close exactly), so the margin is generous: 0.1 per second, a
/// stop within `0.1 h` of the coordinate acts.
pub const STOP_MARGIN_SPEED: f64 = 0.1;

/// The limit part: one row holding the joint coordinate `position` (whose rate is
/// `jacobian . u`) inside `stops = [lower, upper]`.
///
/// The stop nearer to `position` is the one that can act. The row is active when the
/// coordinate is at or past that stop, or, in a velocity pass, when the step could reach
/// it: `gap < h (approach + STOP_MARGIN_SPEED)`, the approach speed being the larger of the
/// predicted motion's (`J u*`) and `drive`, the rate towards the stop that a motor on the
/// same coordinate asks for (0 without one; `u*` does not include the motor's force, and a
/// motor pushing a joint resting on its stop must not find the stop gone). Otherwise it is written inert
/// (bounds `[0, 0]`, not stabilised), so a joint's rows keep their number and order. An
/// active row before the stop (a positive gap) lets the coordinate close exactly the gap
/// in this step (ERP 1, a speculative stop: no early stop, no overshoot); at or past it,
/// `softness` corrects the violation. An approach faster than the bounce threshold asks
/// for `restitution` times the approach speed away from the stop instead, when that is the
/// stronger demand (ODE's rule). Equal stops lock the coordinate (a bilateral row).
pub fn limit_row(
    writer: &RowWriter,
    jacobian: JacobianRow,
    position: f64,
    stops: [f64; 2],
    softness: Softness,
    bounce: Bounce,
    drive: f64,
) -> Row {
    let [lower, upper] = stops;
    let row = stop_row(jacobian, position, lower, upper);
    if lower == upper {
        return row.softness(softness);
    }
    // sign = +1 at the lower stop (C = x - lower >= 0), -1 at the upper (C = x - upper <= 0).
    let sign = if row.lo == 0.0 { 1.0 } else { -1.0 };
    let (error, lo, hi) = (row.error, row.lo, row.hi);
    let gap = sign * error;
    let motion = writer.motion();
    let approach = motion.map_or(0.0, |m| -sign * m.rate(&jacobian));
    let pushed = approach.max(-sign * drive).max(0.0);
    let reached = match motion {
        Some(m) => gap <= 0.0 || gap < m.h * (pushed + STOP_MARGIN_SPEED),
        None => gap <= 0.0,
    };
    if !reached {
        return Row::equality(jacobian, error)
            .bounded(0.0, 0.0)
            .unstabilized();
    }
    let mut row = Row::equality(jacobian, error).bounded(lo, hi);
    let erp = if gap > 0.0 { 1.0 } else { softness.erp };
    let (Some(m), true) = (
        motion,
        approach > bounce.threshold && bounce.restitution > 0.0,
    ) else {
        return row.softness(Softness { erp, ..softness });
    };
    // Both demands as speeds away from the stop: the error correction's and the bounce's.
    let correction = -erp * gap / m.h;
    let rebound = bounce.restitution * approach;
    if rebound > correction {
        row = row.target_velocity(sign * rebound).softness(Softness {
            erp: 0.0,
            ..softness
        });
    } else {
        row = row.softness(Softness { erp, ..softness });
    }
    row
}

/// The row of the stop nearer to `position` in `[lower, upper]`, acting: `C = x - lower` with
/// the force in `[0, inf)`, or `C = x - upper` with the force in `(-inf, 0]` (a bilateral
/// row if the stops coincide). [`limit_row`] starts from it; a joint whose stop is its only
/// link between the bodies (a rope) writes it as is in the position pass, so that the
/// pass's islands do not depend on whether the stop is reached.
pub fn stop_row(jacobian: JacobianRow, position: f64, lower: f64, upper: f64) -> Row {
    if lower == upper {
        return Row::equality(jacobian, position - lower);
    }
    if position - lower <= upper - position {
        Row::equality(jacobian, position - lower).bounded(0.0, f64::INFINITY)
    } else {
        Row::equality(jacobian, position - upper).bounded(f64::NEG_INFINITY, 0.0)
    }
}

/// The motor part: one row driving the rate `jacobian . u` to `target_velocity` (m/s or
/// rad/s) with a force (N or N m) bounded by `max_force`. Not stabilised: it has no
/// position error.
pub fn motor_row(jacobian: JacobianRow, target_velocity: f64, max_force: f64) -> Row {
    Row::equality(jacobian, 0.0)
        .bounded(-max_force, max_force)
        .target_velocity(target_velocity)
        .unstabilized()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plane_basis_is_orthonormal_and_right_handed() {
        for n in [
            Vec3::X,
            Vec3::Z,
            -Vec3::Z,
            Vec3::new(1.0, 2.0, 3.0).normalize(),
            Vec3::new(0.0, -1.0, 1e-9).normalize(),
        ] {
            let (p, q) = plane_basis(n);
            assert!((p.length() - 1.0).abs() < 1e-15 && (q.length() - 1.0).abs() < 1e-15);
            assert!(p.dot(n).abs() < 1e-15 && q.dot(n).abs() < 1e-15 && p.dot(q).abs() < 1e-15);
            assert!((p.cross(q) - n).length() < 1e-15);
        }
    }
}
