//! The curvature (second-order) term of joint rows: why a velocity-level step loses energy
//! at first order in `h`, and the correction that removes the loss.
//!
//! A row asks `J(x) u+ = rhs` with `J` taken at the start pose `x`, then the bodies move to
//! `x + h u+`. Along that straight step a curved constraint drifts: to second order
//!
//! ```text
//! C(x + h u) = C(x) + h J(x) u + (h^2 / 2) (dJ/dt) u          (dJ/dt along u)
//! ```
//!
//! and for a point row with lever arms `r_a`, `r_b` the last term is the centripetal one,
//! `(h^2 / 2) e . (w_a x (w_a x r_a) - w_b x (w_b x r_b))`. Without it the step makes the
//! velocity tangent to the constraint at the *start* pose; at the end pose that velocity
//! has a normal component `~ h |dJ/dt u|`, which the next step removes: a kinetic energy
//! loss of order `(h w)^2` per step, `h w^2` per second (9.5 to 30 % over 10 s at
//! `h = 1e-3` for a double pendulum, see tests/joints_energy.rs).
//!
//! The correction asks instead that the constraint hold to second order at the *end* of
//! the step: with `u` the velocity at the start of the step and `x~ = x + h u` the pose it
//! leads to,
//!
//! ```text
//! C(x + h u+) = C(x~) + h J (u+ - u) + O(h^3)   =>   J u+ = J u - C(x~) / h
//!            = -C / h - kappa,     kappa = (C(x~) - C - h J u) / h = (h / 2) (dJ/dt) u + O(h^2)
//! ```
//!
//! so each stabilised row's velocity target gets `-kappa` (the position error `C` itself
//! keeps its ERP). `C(x~)` is read by writing the joints' rows a second time at `x~`, which
//! gives every joint type and every part (point, axis, angle, distance) its exact term
//! without a hand-derived `dJ/dt` per part. The factor is `h / 2`, not `h`: the target
//! `-h (dJ/dt) u` makes the velocity tangent at the end pose but lands the position
//! inside the constraint by the same amount, and the impulses then *add* `(h w)^2` of
//! kinetic energy per step (measured: the double pendulum gains energy at first order).
//! With `h / 2` the normal velocity left at the end of a step, `+(h/2) (dJ/dt) u`, is
//! exactly reversed by the next step's target, an impulse along the normal that changes no
//! energy: the remaining error is that of symplectic Euler (bounded oscillation, no drift).
//!
//! Rows that are not geometric (motors, friction, springs: [`crate::rows::Row::stabilize`]
//! false) get no term: their `C` means nothing. The term is a Taylor term, so it fades where
//! a body turns by a large angle in one step ([`crate::CurvatureCorrection`], which is also
//! the switch).

use crate::body::{BodyKind, RigidBody};
use crate::error::WorldError;
use crate::handles::Arena;
use crate::handles::{BodyHandle, JointHandle};
use crate::joint::points::PointJoints;
use crate::joint::Joint;
use crate::math::{turn_by_cayley, Vec3};
use crate::rows::hot::{HotBodies, Pair};
use crate::rows::{Pose, RowStorage, Softness};
use std::ops::Range;

/// How many times its curvature term a row's start rate `J u` may be for the velocity to
/// count as produced by a step with this row (see [`add_curvature_targets`]).
const CONSISTENT_RATE: f64 = 4.0;

/// Buffers of the curvature pass, reused between steps.
#[derive(Debug, Clone, Default)]
pub(crate) struct CurvatureScratch {
    /// Each body slot's velocity at the start of the step (the ground's zero).
    velocities: Vec<Pair>,
    /// Pose each body slot reaches in one step at that velocity.
    poses: Vec<Pose>,
    /// The joints' rows written at those poses (only their errors and stabilise flags
    /// are read: [`crate::rows::RowPass::VelocityErrors`]).
    rows: RowStorage,
    /// Each joint's slot and row range in `rows` (or in `errors`).
    ranges: Vec<(usize, Range<usize>)>,
    /// The joints' errors at those poses when every enabled joint reports them directly
    /// ([`PointJoints::push_errors`]).
    errors: Vec<f64>,
}

/// Subtracts each stabilised joint row's curvature term `kappa`, faded by `settings`, from
/// its target velocity in `raw` (whose joint ranges are `joint_rows`, written at `hot.pose`).
///
/// The term is taken along the bodies' velocities at the start of the step, which the last
/// step left consistent with the joints, rather than along `u*`: an applied torque's
/// off-axis spin, which this step's solve removes, would otherwise enter the quadratic term
/// (a wheel spinning at 12 rad/s on a hinge kept a 0.01 rad/s wobble).
#[allow(clippy::too_many_arguments)]
pub(crate) fn add_curvature_targets(
    scratch: &mut CurvatureScratch,
    settings: &CurvatureCorrection,
    joints: &Arena<Joint, JointHandle>,
    points: &PointJoints,
    bodies: &Arena<RigidBody, BodyHandle>,
    hot: &HotBodies,
    softness: Softness,
    h: f64,
    raw: &mut RowStorage,
    joint_rows: &[(usize, Range<usize>)],
) {
    scratch.velocities.clear();
    scratch.velocities.resize(hot.pose.len(), [Vec3::ZERO; 2]);
    for slot in 0..bodies.capacity() {
        match bodies.slot(slot) {
            Some(body) if body.kind() != BodyKind::Static => {
                scratch.velocities[slot] = [body.linear_velocity(), body.angular_velocity()];
            }
            _ => {}
        }
    }
    scratch.poses.clear();
    scratch.poses.extend(
        hot.pose
            .iter()
            .zip(&scratch.velocities)
            .map(|(pose, [v, w])| Pose {
                position: pose.position + h * *v,
                orientation: turn_by_cayley(h * *w, pose.orientation),
            }),
    );
    scratch.rows.clear();
    scratch.ranges.clear();
    // Joints whose every row is a fixed, stabilised one (ball joints) report their errors
    // ahead directly; otherwise every joint's rows are written (errors only).
    let ranges = &mut scratch.ranges;
    let fixed = points.push_errors(&scratch.poses, false, &mut scratch.errors, |slot, range| {
        ranges.push((slot, range))
    });
    if !fixed {
        scratch.ranges.clear();
        let ranges = &mut scratch.ranges;
        crate::joint::write_joint_rows_moving(
            joints,
            &scratch.poses,
            Some((&hot.predicted, h)),
            hot.ground(),
            softness,
            crate::rows::RowPass::VelocityErrors,
            &mut scratch.rows,
            // Unused: an errors-only pass writes every joint through its writer.
            &mut crate::joint::points::FixedRows::default(),
            |slot, range| ranges.push((slot, range)),
        );
    }
    let (errors_ahead, stabilized_ahead) = if fixed {
        (&scratch.errors[..], None)
    } else {
        (&scratch.rows.error[..], Some(&scratch.rows.stabilize[..]))
    };
    // Both passes visit the enabled joints in the same order.
    for ((slot, now), (slot_ahead, ahead)) in joint_rows.iter().zip(&scratch.ranges) {
        if slot != slot_ahead || now.len() != ahead.len() {
            continue;
        }
        // A joint's rows share its two bodies, hence their fade: computed once per joint
        // rather than two square roots and two divisions a row.
        let mut fade = None;
        for (i, j) in now.clone().zip(ahead.clone()) {
            let ahead_stabilized = stabilized_ahead.is_none_or(|s| s[j]);
            if !(raw.stabilize[i] && ahead_stabilized) {
                continue;
            }
            let [a, b] = raw.bodies[i];
            let ([va, wa], [vb, wb]) = (
                scratch.velocities[a as usize],
                scratch.velocities[b as usize],
            );
            let rate = raw.jacobian[i].velocity(va, wa, vb, wb);
            let kappa = (errors_ahead[j] - raw.error[i]) / h - rate;
            // A velocity the joint's last step produced moves along the constraint up to
            // the chord: |J u| ~ |kappa| (2 |kappa| after a step without the term). A much
            // larger rate means the velocity violates the row (a new joint, a kick, a stop
            // being hit): the solve is about to remove it, and its quadratic term means
            // nothing (a hinge started with a 1 rad/s wobble kept 0.06 rad/s of it).
            let consistent = rate.abs() <= CONSISTENT_RATE * kappa.abs();
            if consistent && kappa.is_finite() {
                let fade =
                    *fade.get_or_insert_with(|| settings.fade(h * wa.length().max(wb.length())));
                raw.target_velocity[i] -= fade * kappa;
            }
        }
    }
}

/// The curvature (second-order) term of joint rows (see `joint/curvature.rs`).
///
/// A velocity-level step makes each joint's velocity tangent to the constraint at the
/// *start* pose; the motion then leaves the curved constraint, and removing the stray normal
/// velocity next step costs kinetic energy at first order in `h` (ODE's behaviour: about 25
/// to 30 % over 10 s for a double pendulum at `h = 1e-3`). With the term, each stabilised
/// joint row's target gets `-kappa`, `kappa = (C(x + h u*) - C(x)) / h - J u*`, so the
/// constraint holds to second order at the *end* of the step; the loss disappears and the
/// energy error is the bounded oscillation of symplectic Euler (0.2 % for that pendulum).
///
/// The term is a Taylor term: where a body turns by a large angle in one step (a whipping
/// chain tip) it is wrong, and removing the first-order damping there lets the
/// under-resolved motion gain energy. It is therefore scaled by
/// `1 / (1 + (theta / fade_angle)^4)`, `theta = h max(|w_a|, |w_b|)` the larger rotation
/// of the row's two bodies in one step: full where the step resolves the rotation (99.6 %
/// at `theta = fade_angle / 4`), faded where it does not (6 % at twice `fade_angle`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvatureCorrection {
    /// On or off; default on. Off gives ODE's first-order (dissipative) step. Costs one more
    /// writing of the joints' rows per step.
    pub enabled: bool,
    /// Rotation per step (rad, finite, `> 0`) at which the term is halved; default 0.25.
    /// Raising it keeps more of the term on fast-turning bodies: less numerical damping,
    /// less stability. On scene S3 at `h = 1/60` the chain never exceeds its initial
    /// energy up to 0.4, gains 30 % of it for a while at 0.6, and blows up without the
    /// fade; at `h = 1e-3` the choice changes a double pendulum's energy by < 0.05 %.
    pub fade_angle: f64,
}

impl Default for CurvatureCorrection {
    fn default() -> Self {
        Self {
            enabled: true,
            fade_angle: 0.25,
        }
    }
}

impl CurvatureCorrection {
    /// The term switched off (the first-order step).
    pub const OFF: Self = Self {
        enabled: false,
        fade_angle: 0.25,
    };

    /// Checks the documented range.
    pub fn validate(&self) -> Result<(), WorldError> {
        if self.fade_angle.is_finite() && self.fade_angle > 0.0 {
            Ok(())
        } else {
            Err(WorldError::InvalidSetting {
                name: "curvature.fade_angle",
                value: self.fade_angle,
                rule: "must be finite and > 0",
            })
        }
    }

    /// The factor applied to a row's term when its bodies turn by `theta` rad in one step.
    pub(crate) fn fade(&self, theta: f64) -> f64 {
        let x = theta / self.fade_angle;
        let x2 = x * x;
        1.0 / (1.0 + x2 * x2)
    }
}
