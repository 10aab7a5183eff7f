//! Integration of one body over one step: velocities from forces (semi-implicit Euler, as
//! in ODE), then position and orientation from the new velocities.
//!
//! The world step will split this in two around the constraint solve: it reads
//! [`applied_force`] and [`crate::dynamics::gyroscopic::equivalent_torque`] for `f_ext`, lets the solver
//! produce `u+`, then calls [`advance_pose`]. [`integrate_free_body`] is the same pipeline
//! without constraints, so a free body in a world moves exactly as it does here.

use crate::body::{BodyKind, RigidBody};
use crate::body::{GyroscopicMode, OrientationUpdate};
use crate::dynamics::gyroscopic::{
    angular_velocity_after_step, ConservingSolver, Convergence, RotationalState,
};
use crate::error::IntegrationError;
use crate::math::{cayley, Quat, Vec3};

/// Standard gravity, m/s^2, z up (docs/dynamics.md#conventions).
pub const STANDARD_GRAVITY: Vec3 = Vec3::new(0.0, 0.0, -9.81);

/// What one free-body step did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FreeStepReport {
    /// Newton solve of the angular velocity ([`GyroscopicMode::Conserving`] only).
    pub angular_velocity: Convergence,
    /// Fixed-point solve of the midpoint attitude ([`GyroscopicMode::Conserving`] only).
    pub orientation: Convergence,
}

/// Advances a unit quaternion by the world angular velocity `w` (rad/s) over `h` (s).
#[inline(always)]
pub fn integrate_orientation(
    orientation: Quat,
    w: Vec3,
    h: f64,
    update: OrientationUpdate,
) -> Quat {
    let increment = match update {
        OrientationUpdate::Linear => cayley(h * w),
        OrientationUpdate::ExponentialMap => Quat::from_scaled_axis(h * w),
    };
    (increment * orientation).normalize()
}

/// The attitude update of [`GyroscopicMode::Conserving`]: `R+ = R cay(h Wm)` with the
/// body-frame midpoint velocity `Wm = (R^T w_start + R+^T w_end) / 2`, which is implicit in
/// `R+` and found by fixed-point iteration (a contraction with factor about `h |w| / 2`).
///
/// Why the Cayley map and not the exponential map: the midpoint Euler step gives
/// `I0 W+ = cay(-h Wm) I0 W` (for a free body), so with `R+ = R cay(h Wm)` the world momentum
/// `R+ I0 W+ = R I0 W` is unchanged to round-off. The exponential map would rotate it by
/// `O(h^3)` per step. And because `w_end = R+ W+`, solving for `Wm` from the two world
/// velocities gives back the attitude of [`crate::dynamics::gyroscopic::angular_velocity_after_step`]
/// for a free body, while still accepting any constrained `w_end` from the solver.
///
/// If the iteration does not converge (only for `h |w|` near 2 or beyond), the [`Linear`]
/// update with `w_end` is used and the report says so.
///
/// [`Linear`]: OrientationUpdate::Linear
pub fn midpoint_orientation(
    orientation: Quat,
    w_start: Vec3,
    w_end: Vec3,
    h: f64,
    solver: &ConservingSolver,
) -> (Quat, Convergence) {
    let to_body = orientation.inverse();
    let start = to_body * w_start;
    let end_in_start_frame = to_body * w_end;
    let mut mid = 0.5 * (start + end_in_start_frame);
    let mut convergence = Convergence {
        iterations: 0,
        converged: false,
        relative_update: f64::INFINITY,
    };
    // The attitude solve is cheaper than Newton's but converges linearly: allow more steps.
    let limit = 4 * solver.max_iterations.max(1);
    while convergence.iterations < limit {
        convergence.iterations += 1;
        let next = 0.5 * (start + cayley(h * mid).inverse() * end_in_start_frame);
        let update = (next - mid).length();
        mid = next;
        if !mid.is_finite() {
            break;
        }
        let scale = mid.length();
        convergence.relative_update = if scale > 0.0 { update / scale } else { update };
        if convergence.relative_update <= solver.tolerance {
            convergence.converged = true;
            break;
        }
    }
    if convergence.converged {
        ((orientation * cayley(h * mid)).normalize(), convergence)
    } else {
        let fallback = integrate_orientation(orientation, w_end, h, OrientationUpdate::Linear);
        (fallback, convergence)
    }
}

/// The orientation after a step in which the angular velocity went from `w_start` to
/// `w_end`: the midpoint rule for [`GyroscopicMode::Conserving`], otherwise `update` applied
/// with `w_end` (semi-implicit Euler).
#[inline(always)]
pub fn orientation_after_step(
    orientation: Quat,
    w_start: Vec3,
    w_end: Vec3,
    h: f64,
    mode: GyroscopicMode,
    update: OrientationUpdate,
) -> (Quat, Convergence) {
    match mode {
        GyroscopicMode::Conserving => {
            midpoint_orientation(orientation, w_start, w_end, h, &ConservingSolver::default())
        }
        GyroscopicMode::None | GyroscopicMode::Explicit | GyroscopicMode::Implicit => (
            integrate_orientation(orientation, w_end, h, update),
            Convergence::CLOSED_FORM,
        ),
    }
}

/// The force acting on a body this step: the accumulated force plus `m g` if the body is
/// dynamic and has gravity on (N, world frame, at the centre of mass). Zero for kinematic
/// and static bodies, which forces do not move.
pub fn applied_force(body: &RigidBody, gravity: Vec3) -> Vec3 {
    match body.kind {
        BodyKind::Dynamic if body.gravity_enabled => body.force + body.mass() * gravity,
        BodyKind::Dynamic => body.force,
        BodyKind::Kinematic | BodyKind::Static => Vec3::ZERO,
    }
}

/// The factor `1 / (1 + h c)` by which damping `c` (1/s) scales a velocity over `h`.
pub fn damping_factor(damping: f64, h: f64) -> f64 {
    1.0 / (1.0 + h * damping)
}

/// Moves a body whose velocity already holds its end-of-step value: `x+ = x + h v+`, and the
/// orientation by [`orientation_after_step`] with `w_start` the angular velocity the step
/// began with. Static bodies do not move. On error the body is unchanged.
pub fn advance_pose(
    body: &mut RigidBody,
    w_start: Vec3,
    h: f64,
) -> Result<Convergence, IntegrationError> {
    check_time_step(h)?;
    let velocity = [body.velocity.linear, body.velocity.angular];
    let (position, orientation, convergence) = pose_after_step(body, w_start, velocity, h)?;
    body.position = position;
    body.orientation = orientation;
    Ok(convergence)
}

/// Where [`advance_pose`] moves `body` (pose as it is, `h` valid) if its velocity at the end
/// of the step is `velocity` (linear, angular), without writing it: the stepper's phase 6
/// reads the body and writes the pose into its buffers.
#[inline(always)]
pub(crate) fn pose_after_step(
    body: &RigidBody,
    w_start: Vec3,
    [linear, angular]: [Vec3; 2],
    h: f64,
) -> Result<(Vec3, Quat, Convergence), IntegrationError> {
    if body.kind == BodyKind::Static {
        return Ok((body.position, body.orientation, Convergence::CLOSED_FORM));
    }
    let position = body.position + h * linear;
    let (orientation, convergence) = orientation_after_step(
        body.orientation,
        w_start,
        angular,
        h,
        body.gyroscopic_mode,
        body.orientation_update,
    );
    if !position.is_finite() {
        return Err(IntegrationError::NonFiniteResult {
            quantity: "position",
        });
    }
    if !orientation.is_finite() {
        return Err(IntegrationError::NonFiniteResult {
            quantity: "orientation",
        });
    }
    Ok((position, orientation, convergence))
}

/// One unconstrained step of length `h` (s) under `gravity` (m/s^2, world frame; usually
/// [`STANDARD_GRAVITY`]):
///
/// 1. `v+ = (v + h (F/m + g)) / (1 + h c_lin)` and `w+` from the body's [`GyroscopicMode`]
///    under the accumulated torque, divided by `1 + h c_ang`;
/// 2. `x+ = x + h v+` and the orientation from `w+` ([`advance_pose`]);
/// 3. the force and torque accumulators are cleared.
///
/// Kinematic bodies move with their velocity and ignore forces; static bodies stay put. On
/// error (bad `h`, non-finite result) the body is left exactly as it was.
pub fn integrate_free_body(
    body: &mut RigidBody,
    gravity: Vec3,
    h: f64,
) -> Result<FreeStepReport, IntegrationError> {
    check_time_step(h)?;
    if !gravity.is_finite() {
        return Err(IntegrationError::NonFiniteInput {
            quantity: "gravity",
        });
    }
    let mut next = body.clone();
    let w_start = body.velocity.angular;
    let mut angular_velocity = Convergence::CLOSED_FORM;
    if body.kind == BodyKind::Dynamic {
        let acceleration = applied_force(body, gravity) * body.inverse_mass;
        next.velocity.linear =
            (body.velocity.linear + h * acceleration) * damping_factor(body.linear_damping, h);
        let step = angular_velocity_after_step(
            &RotationalState::of(body),
            body.torque,
            h,
            body.gyroscopic_mode,
        )?;
        next.velocity.angular = step.angular_velocity * damping_factor(body.angular_damping, h);
        angular_velocity = step.convergence;
        if !next.velocity.linear.is_finite() {
            return Err(IntegrationError::NonFiniteResult {
                quantity: "linear velocity",
            });
        }
    }
    let orientation = advance_pose(&mut next, w_start, h)?;
    next.clear_accumulators();
    *body = next;
    Ok(FreeStepReport {
        angular_velocity,
        orientation,
    })
}

fn check_time_step(h: f64) -> Result<(), IntegrationError> {
    if h.is_finite() && h > 0.0 {
        Ok(())
    } else {
        Err(IntegrationError::InvalidTimeStep { h })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::{MassProperties, RigidBodyBuilder};

    const H: f64 = 0.01;

    fn ball() -> RigidBodyBuilder {
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.5, 2.0).unwrap())
    }

    #[test]
    fn free_fall_follows_the_discrete_semi_implicit_formula() {
        // v_n = v0 + n h g, x_n = x0 + n h v0 + h^2 g n (n + 1) / 2 (velocity first).
        let (x0, v0) = (Vec3::new(1.0, 2.0, 30.0), Vec3::new(0.5, 0.0, 2.0));
        let mut body = ball().position(x0).linear_velocity(v0).build().unwrap();
        let n = 250;
        for _ in 0..n {
            integrate_free_body(&mut body, STANDARD_GRAVITY, H).unwrap();
        }
        let nf = n as f64;
        let v = v0 + nf * H * STANDARD_GRAVITY;
        let x = x0 + nf * H * v0 + H * H * STANDARD_GRAVITY * (nf * (nf + 1.0) / 2.0);
        assert!((body.linear_velocity() - v).length() < 1e-12);
        assert!((body.position() - x).length() < 1e-12);
    }

    #[test]
    fn forces_act_for_one_step_and_gravity_can_be_switched_off() {
        let mut body = ball().gravity(false).build().unwrap();
        body.add_force(Vec3::new(4.0, 0.0, 0.0)).unwrap();
        integrate_free_body(&mut body, STANDARD_GRAVITY, H).unwrap();
        assert_eq!(body.linear_velocity(), Vec3::new(4.0 / 2.0 * H, 0.0, 0.0));
        assert_eq!(body.force(), Vec3::ZERO);
        integrate_free_body(&mut body, STANDARD_GRAVITY, H).unwrap();
        assert_eq!(body.linear_velocity(), Vec3::new(4.0 / 2.0 * H, 0.0, 0.0));
    }

    #[test]
    fn force_at_a_point_adds_the_moment_about_the_centre() {
        let mut body = ball().position(Vec3::new(1.0, 0.0, 0.0)).build().unwrap();
        body.add_force_at_point(Vec3::new(0.0, 3.0, 0.0), Vec3::new(1.0, 0.0, 2.0))
            .unwrap();
        // r = (0, 0, 2), r x F = (-6, 0, 0).
        assert_eq!(body.torque(), Vec3::new(-6.0, 0.0, 0.0));
        assert_eq!(body.force(), Vec3::new(0.0, 3.0, 0.0));
    }

    #[test]
    fn damping_divides_velocity_by_one_plus_h_c_each_step() {
        let (c_lin, c_ang) = (2.0, 0.5);
        let mut body = ball()
            .gravity(false)
            .linear_velocity(Vec3::new(3.0, 0.0, 0.0))
            .angular_velocity(Vec3::new(0.0, 0.0, 2.0))
            .linear_damping(c_lin)
            .angular_damping(c_ang)
            .build()
            .unwrap();
        for _ in 0..100 {
            integrate_free_body(&mut body, STANDARD_GRAVITY, H).unwrap();
        }
        let linear = 3.0 / (1.0 + H * c_lin).powi(100);
        let angular = 2.0 / (1.0 + H * c_ang).powi(100);
        assert!((body.linear_velocity().x - linear).abs() < 1e-13);
        // A sphere has no gyroscopic torque, so only damping changes w.
        assert!((body.angular_velocity().z - angular).abs() < 1e-13);
    }

    #[test]
    fn kinematic_bodies_ignore_forces_and_static_bodies_stay_put() {
        let v = Vec3::new(1.0, -1.0, 0.0);
        let mut kinematic = RigidBodyBuilder::kinematic()
            .linear_velocity(v)
            .build()
            .unwrap();
        kinematic.add_force(Vec3::new(100.0, 0.0, 0.0)).unwrap();
        let mut fixed = RigidBodyBuilder::static_body()
            .position(Vec3::new(0.0, 0.0, -1.0))
            .build()
            .unwrap();
        fixed.add_force(Vec3::new(100.0, 0.0, 0.0)).unwrap();
        for _ in 0..10 {
            integrate_free_body(&mut kinematic, STANDARD_GRAVITY, H).unwrap();
            integrate_free_body(&mut fixed, STANDARD_GRAVITY, H).unwrap();
        }
        assert_eq!(kinematic.linear_velocity(), v);
        assert!((kinematic.position() - 10.0 * H * v).length() < 1e-15);
        assert_eq!(fixed.position(), Vec3::new(0.0, 0.0, -1.0));
        assert_eq!(fixed.force(), Vec3::ZERO);
    }

    #[test]
    fn a_refused_step_leaves_the_body_unchanged() {
        let mut body = ball().linear_velocity(Vec3::X).build().unwrap();
        body.add_force(Vec3::Y).unwrap();
        let before = body.clone();
        for h in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let error = integrate_free_body(&mut body, STANDARD_GRAVITY, h).unwrap_err();
            assert!(matches!(error, IntegrationError::InvalidTimeStep { .. }));
            assert_eq!(body, before);
        }
        let error = integrate_free_body(&mut body, Vec3::splat(f64::NAN), H).unwrap_err();
        assert!(matches!(error, IntegrationError::NonFiniteInput { .. }));
        assert_eq!(body, before);
    }

    #[test]
    fn linear_update_is_the_quaternion_formula_and_the_cayley_map() {
        let q = Quat::from_euler(crate::math::EulerRot::ZYX, 0.4, -1.0, 2.0);
        let w = Vec3::new(3.0, -2.0, 5.0);
        let h = 0.05;
        let pure = Quat::from_xyzw(w.x, w.y, w.z, 0.0);
        let formula = (q + pure * q * (h / 2.0)).normalize();
        let ours = integrate_orientation(q, w, h, OrientationUpdate::Linear);
        assert!((ours - formula).length() < 1e-15);
        // The rotation it applies is about w by 2 atan(h |w| / 2).
        let angle = 2.0 * (h * w.length() / 2.0).atan();
        let expected = Quat::from_axis_angle(w.normalize(), angle) * q;
        assert!((ours - expected).length() < 1e-15);
    }

    #[test]
    fn exponential_map_is_exact_for_constant_angular_velocity() {
        let q0 = Quat::from_rotation_x(0.3);
        let w = Vec3::new(0.0, 4.0, 3.0);
        let mut q = q0;
        for _ in 0..100 {
            q = integrate_orientation(q, w, H, OrientationUpdate::ExponentialMap);
        }
        let exact = Quat::from_axis_angle(w.normalize(), 100.0 * H * w.length()) * q0;
        assert!((q - exact).length() < 1e-13);
        // The linear update lags by (h |w|)^3 / 12 per step.
        let mut linear = q0;
        for _ in 0..100 {
            linear = integrate_orientation(linear, w, H, OrientationUpdate::Linear);
        }
        let lag = 100.0 * (H * w.length()).powi(3) / 12.0;
        let angle_error = (linear * exact.inverse()).to_axis_angle().1;
        assert!(
            (angle_error - lag).abs() < 1e-3 * lag,
            "{angle_error} vs {lag}"
        );
    }

    #[test]
    fn midpoint_rule_with_constant_velocity_is_the_linear_update() {
        let q = Quat::from_rotation_z(1.2);
        let w = Vec3::new(1.0, 2.0, -0.5);
        let (ours, convergence) = midpoint_orientation(q, w, w, H, &ConservingSolver::default());
        assert!(convergence.converged);
        let linear = integrate_orientation(q, w, H, OrientationUpdate::Linear);
        assert!((ours - linear).length() < 1e-15);
    }
}
