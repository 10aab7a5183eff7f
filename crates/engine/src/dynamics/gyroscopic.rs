//! The gyroscopic term of Euler's equations, `I w' + w x (I w) = tau`, and the four ways
//! the engine treats it (docs/dynamics.md#gyroscopic-term).
//!
//! Each mode is expressed two ways: the angular velocity a body would have after one
//! unconstrained step ([`angular_velocity_after_step`]), and the *equivalent torque*
//! `tau~ = I (w+ - w) / h` ([`equivalent_torque`]) which, added to `f_ext`, makes the
//! velocity-level constraint solve reproduce that step when no constraint acts. The solver
//! never sees a modified mass matrix.
//!
//! Notation: `R` the body's rotation, `I0` the body-frame inertia, `I = R I0 R^T`, `L = I w`,
//! `[a]x` the cross-product matrix ([`crate::math::skew`]); capital `W = R^T w` is the angular
//! velocity in the body frame.

use crate::body::GyroscopicMode;
use crate::error::IntegrationError;
use crate::math::{cayley, is_isotropic, rotate_tensor, skew, Mat3, Quat, Vec3};

/// How an iterative solve inside a step ended. Closed-form modes report
/// [`Convergence::CLOSED_FORM`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Convergence {
    /// Iterations taken (0 for a closed form).
    pub iterations: u32,
    /// True if the tolerance was met. When false, the step used a documented fallback.
    pub converged: bool,
    /// Norm of the last update relative to the size of the unknown.
    pub relative_update: f64,
}

impl Convergence {
    /// The report of a step computed in closed form.
    pub const CLOSED_FORM: Self = Self {
        iterations: 0,
        converged: true,
        relative_update: 0.0,
    };
}

/// Newton settings for [`GyroscopicMode::Conserving`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConservingSolver {
    /// Stop when the Newton update is at most this fraction of `|W|` (dimensionless, default
    /// 1e-14). Raising it saves an iteration at most and lets |L| and energy drift by about
    /// this much per step.
    pub tolerance: f64,
    /// Give up after this many Newton iterations (default 20; 3 or 4 are typical at
    /// `h |w| ~ 0.1`), reporting non-convergence.
    pub max_iterations: u32,
}

impl Default for ConservingSolver {
    fn default() -> Self {
        Self {
            tolerance: 1e-14,
            max_iterations: 20,
        }
    }
}

/// The rotational state the gyroscopic step reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RotationalState {
    /// Inertia about the centre of mass in the body frame, `I0` (kg m^2), symmetric positive
    /// definite (as every validated [`crate::body::MassProperties`] is).
    pub inertia_body: Mat3,
    /// Orientation, a unit quaternion (normalised again here).
    pub orientation: Quat,
    /// Angular velocity in the world frame, rad/s.
    pub angular_velocity: Vec3,
}

impl RotationalState {
    /// The rotational state of a body.
    pub fn of(body: &crate::body::RigidBody) -> Self {
        Self {
            inertia_body: body.inertia_body(),
            orientation: body.orientation(),
            angular_velocity: body.angular_velocity(),
        }
    }
}

/// The angular velocity after an unconstrained step, with how its solve ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AngularStep {
    /// World-frame angular velocity at the end of the step, rad/s.
    pub angular_velocity: Vec3,
    /// Convergence of the Newton solve ([`GyroscopicMode::Conserving`] only).
    pub convergence: Convergence,
}

/// The torque to hand the constraint solver in place of the external torque.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EquivalentTorque {
    /// `tau~ = I (w+ - w) / h` (N m, world frame): the external torque plus the mode's
    /// gyroscopic torque. `w + h I^-1 tau~` is the unconstrained `w+`.
    pub total: Vec3,
    /// `tau~ - tau`: the gyroscopic part alone.
    pub gyroscopic: Vec3,
    /// Convergence of the Newton solve ([`GyroscopicMode::Conserving`] only).
    pub convergence: Convergence,
}

/// The world angular velocity after one unconstrained step of length `h` (s) under the
/// external world torque `torque` (N m), with the gyroscopic term treated by `mode`.
///
/// [`GyroscopicMode::Conserving`] uses the default [`ConservingSolver`]; if its Newton solve
/// does not converge, the step falls back to the [`GyroscopicMode::Implicit`] answer (stable)
/// and says so in the returned [`Convergence`].
pub fn angular_velocity_after_step(
    state: &RotationalState,
    torque: Vec3,
    h: f64,
    mode: GyroscopicMode,
) -> Result<AngularStep, IntegrationError> {
    if torque == Vec3::ZERO && is_isotropic(&state.inertia_body) {
        // A sphere's or a cube's momentum is parallel to its angular velocity: with no
        // torque every mode keeps `w` (the products below would return it up to
        // round-off; docs/performance.md#gyroscopic-step-in-the-body-frame).
        check_inputs(state, torque, h)?;
        return finite_step(AngularStep {
            angular_velocity: state.angular_velocity,
            convergence: Convergence::CLOSED_FORM,
        });
    }
    // Built only by the modes that need the world inertia tensor.
    let frame = || Frame::new(state, torque, h);
    let step = match mode {
        GyroscopicMode::None => {
            let frame = frame()?;
            frame.closed_form(frame.w + h * frame.solve(frame.torque))
        }
        GyroscopicMode::Explicit => {
            let frame = frame()?;
            let gyroscopic = frame.momentum().cross(frame.w);
            frame.closed_form(frame.w + h * frame.solve(frame.torque + gyroscopic))
        }
        GyroscopicMode::Implicit => {
            check_inputs(state, torque, h)?;
            AngularStep {
                angular_velocity: implicit_in_body_frame(
                    state.orientation.normalize(),
                    &state.inertia_body,
                    state.angular_velocity,
                    torque,
                    h,
                )?,
                convergence: Convergence::CLOSED_FORM,
            }
        }
        GyroscopicMode::Conserving => frame()?.conserving(&ConservingSolver::default())?,
    };
    finite_step(step)
}

/// [`angular_velocity_after_step`] for the stepper's phase 1, for a dynamic `body` with its
/// own torque and mode. The implicit mode (the default) reads the body in place and skips
/// the input checks (docs/performance.md#gyroscopic-step-in-the-body-frame): a body's
/// inertia is validated when it is built, the stepper checks `h`, and a non-finite angular
/// velocity, orientation or torque makes the answer non-finite (or the modified inertia
/// singular), which the stepper refuses with the same error. The answer is the public
/// function's, to the bit.
pub(crate) fn angular_velocity_in_step(
    body: &crate::body::RigidBody,
    h: f64,
) -> Result<AngularStep, IntegrationError> {
    let inertia = body.mass_properties.inertia_ref();
    let (w, torque) = (body.velocity.angular, body.torque);
    if body.gyroscopic_mode != GyroscopicMode::Implicit {
        return angular_velocity_after_step(
            &RotationalState::of(body),
            torque,
            h,
            body.gyroscopic_mode,
        );
    }
    let angular_velocity = if torque == Vec3::ZERO && is_isotropic(inertia) {
        w
    } else {
        implicit_in_body_frame(body.orientation.normalize(), inertia, w, torque, h)?
    };
    Ok(AngularStep {
        angular_velocity,
        convergence: Convergence::CLOSED_FORM,
    })
}

/// [`GyroscopicMode::Conserving`]'s step with explicit Newton settings.
pub fn conserving_step(
    state: &RotationalState,
    torque: Vec3,
    h: f64,
    solver: &ConservingSolver,
) -> Result<AngularStep, IntegrationError> {
    let frame = Frame::new(state, torque, h)?;
    finite_step(frame.conserving(solver)?)
}

/// The equivalent world torque of one step: `tau~ = I (w+ - w) / h`, so that
/// `w+ = w + h I^-1 tau~` (docs/dynamics.md#gyroscopic-term). `None` and `Explicit` are returned in
/// closed form (`tau` and `tau + L x w`) rather than through `w+`, to avoid round-off.
pub fn equivalent_torque(
    state: &RotationalState,
    torque: Vec3,
    h: f64,
    mode: GyroscopicMode,
) -> Result<EquivalentTorque, IntegrationError> {
    let frame = Frame::new(state, torque, h)?;
    let (total, convergence) = match mode {
        GyroscopicMode::None => (frame.torque, Convergence::CLOSED_FORM),
        GyroscopicMode::Explicit => (
            frame.torque + frame.momentum().cross(frame.w),
            Convergence::CLOSED_FORM,
        ),
        GyroscopicMode::Implicit | GyroscopicMode::Conserving => {
            let step = angular_velocity_after_step(state, torque, h, mode)?;
            let total = frame.inertia * (step.angular_velocity - frame.w) / h;
            (total, step.convergence)
        }
    };
    if !total.is_finite() {
        return Err(IntegrationError::NonFiniteResult {
            quantity: "equivalent torque",
        });
    }
    Ok(EquivalentTorque {
        total,
        gyroscopic: total - frame.torque,
        convergence,
    })
}

/// [`GyroscopicMode::Implicit`]'s `w+ = (I - h [L]x)^-1 (L + h tau)` for a body at the unit
/// `orientation` `R`, computed in the body frame, where the inertia is `I0`: with
/// `I = R I0 R^T` and `[R l]x = R [l]x R^T`, `w+ = R (I0 - h [l]x)^-1 (l + h R^T tau)`,
/// `l = I0 R^T w`. The world form's answer (up to round-off) without rotating the tensor:
/// two quaternion rotations instead of two matrix products
/// (docs/performance.md#gyroscopic-step-in-the-body-frame).
fn implicit_in_body_frame(
    orientation: Quat,
    inertia_body: &Mat3,
    w: Vec3,
    torque: Vec3,
    h: f64,
) -> Result<Vec3, IntegrationError> {
    let to_body = orientation.conjugate();
    let momentum = *inertia_body * (to_body * w);
    let modified = *inertia_body - h * skew(momentum);
    let inverse = modified
        .try_inverse()
        .ok_or(IntegrationError::NonFiniteResult {
            quantity: "modified inertia inverse",
        })?;
    // Without a torque (a chain's links, a pile's boxes) its rotation into the body frame
    // adds zeros: skipped.
    let impulse = if torque == Vec3::ZERO {
        momentum
    } else {
        momentum + h * (to_body * torque)
    };
    Ok(orientation * (inverse * impulse))
}

/// The step `h` and the state and torque a step may start from: finite, with a non-zero
/// orientation.
fn check_inputs(state: &RotationalState, torque: Vec3, h: f64) -> Result<(), IntegrationError> {
    // Every body's every step passes: one non-short-circuiting test of all inputs, and the
    // culprit is looked for only when it fails, rather than building the list of checks
    // every time.
    let usable = (h.is_finite() & (h > 0.0))
        & state.inertia_body.is_finite()
        & state.angular_velocity.is_finite()
        & torque.is_finite()
        & state.orientation.is_finite();
    if usable && state.orientation.length() > 0.0 {
        Ok(())
    } else {
        Err(input_error(state, torque, h))
    }
}

/// The first unusable input of a step [`check_inputs`] refused.
#[cold]
fn input_error(state: &RotationalState, torque: Vec3, h: f64) -> IntegrationError {
    if !(h.is_finite() && h > 0.0) {
        return IntegrationError::InvalidTimeStep { h };
    }
    let checks = [
        (state.inertia_body.is_finite(), "inertia"),
        (state.angular_velocity.is_finite(), "angular velocity"),
        (torque.is_finite(), "torque"),
        (
            state.orientation.is_finite() && state.orientation.length() > 0.0,
            "orientation",
        ),
    ];
    let quantity = checks
        .iter()
        .find(|(ok, _)| !ok)
        .map_or("orientation", |(_, quantity)| quantity);
    IntegrationError::NonFiniteInput { quantity }
}

/// Validated inputs of one step, with the world inertia computed once.
struct Frame {
    orientation: Quat,
    inertia_body: Mat3,
    inertia: Mat3,
    w: Vec3,
    torque: Vec3,
    h: f64,
}

impl Frame {
    fn new(state: &RotationalState, torque: Vec3, h: f64) -> Result<Self, IntegrationError> {
        check_inputs(state, torque, h)?;
        let orientation = state.orientation.normalize();
        Ok(Self {
            orientation,
            inertia_body: state.inertia_body,
            inertia: rotate_tensor(orientation, state.inertia_body),
            w: state.angular_velocity,
            torque,
            h,
        })
    }

    fn momentum(&self) -> Vec3 {
        self.inertia * self.w
    }

    /// `I^-1 x`; `I` is symmetric positive definite for every validated body.
    fn solve(&self, x: Vec3) -> Vec3 {
        self.inertia.inverse() * x
    }

    fn closed_form(&self, angular_velocity: Vec3) -> AngularStep {
        AngularStep {
            angular_velocity,
            convergence: Convergence::CLOSED_FORM,
        }
    }

    /// `w+ = (I - h [L]x)^-1 (L + h tau)`.
    fn implicit(&self) -> Result<Vec3, IntegrationError> {
        implicit_in_body_frame(
            self.orientation,
            &self.inertia_body,
            self.w,
            self.torque,
            self.h,
        )
    }

    /// Newton's method on the body-frame implicit midpoint equations
    ///
    /// `F(W+) = I0 (W+ - W) + h Wm x I0 Wm - h T(Wm) = 0`, `Wm = (W + W+) / 2`,
    ///
    /// with the body torque `T(Wm) = (E - (h/2) [Wm]x) R^T tau`. That factor is the torque
    /// seen in the midpoint frame to first order, and it is exactly what makes the world
    /// momentum balance `L+ = L + h tau` hold (the Cayley factors cancel), so a constant
    /// torque changes `L` by exactly `h tau` per step.
    ///
    /// Jacobian: `dF/dW+ = I0 + (h/2) ([Wm]x I0 - [I0 Wm]x) - (h^2/4) [T0]x`, `T0 = R^T tau`.
    fn conserving(&self, solver: &ConservingSolver) -> Result<AngularStep, IntegrationError> {
        let (h, i0) = (self.h, self.inertia_body);
        let to_body = self.orientation.inverse();
        let w_body = to_body * self.w;
        let torque_body = to_body * self.torque;
        let implicit = self.implicit()?;
        // The implicit step, seen from the start frame, is O(h^2) from the answer.
        let mut next = to_body * implicit;
        let mut convergence = Convergence {
            iterations: 0,
            converged: false,
            relative_update: f64::INFINITY,
        };
        while convergence.iterations < solver.max_iterations {
            convergence.iterations += 1;
            let mid = 0.5 * (w_body + next);
            let mid_momentum = i0 * mid;
            let body_torque = torque_body - 0.5 * h * mid.cross(torque_body);
            let residual = i0 * (next - w_body) + h * mid.cross(mid_momentum) - h * body_torque;
            let jacobian = i0 + 0.5 * h * (skew(mid) * i0 - skew(mid_momentum))
                - 0.25 * h * h * skew(torque_body);
            let Some(inverse) = jacobian.try_inverse() else {
                break;
            };
            let update = inverse * residual;
            next -= update;
            if !next.is_finite() {
                break;
            }
            let scale = next.length().max(w_body.length());
            convergence.relative_update = if scale > 0.0 {
                update.length() / scale
            } else {
                update.length()
            };
            if convergence.relative_update <= solver.tolerance {
                convergence.converged = true;
                break;
            }
        }
        if !convergence.converged {
            return Ok(AngularStep {
                angular_velocity: implicit,
                convergence,
            });
        }
        let mid = 0.5 * (w_body + next);
        let orientation_next = (self.orientation * cayley(h * mid)).normalize();
        Ok(AngularStep {
            angular_velocity: orientation_next * next,
            convergence,
        })
    }
}

fn finite_step(step: AngularStep) -> Result<AngularStep, IntegrationError> {
    if step.angular_velocity.is_finite() {
        Ok(step)
    } else {
        Err(IntegrationError::NonFiniteResult {
            quantity: "angular velocity",
        })
    }
}
