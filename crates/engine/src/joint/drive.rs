//! Joint friction, viscous damping and servos on a joint axis: three more rows on the axis's
//! coordinate `x` (Jacobian `J`, rate `J u`), each an LCP row like a motor's, each present
//! only when configured (docs/dynamics.md#joint-friction-damping-and-servos).
//!
//! With the row equation `J u+ = rhs - cfm lambda` (`lambda` the generalized force on `x`,
//! N or N m; `h` the step):
//!
//! ```text
//! friction  T       J u+ = 0,                       lambda in [-T, T]     cfm 0, erp 0
//! damping   c       J u+ = -lambda / c              unbounded             cfm 1/c, erp 0
//!           =>  lambda = -c J u+                    (implicit: the end-of-step rate)
//! servo  k, d, x*, v*, F:
//!           erp = h k / (h k + d),  cfm = 1 / (h k + d),  C = x - x*,  rhs = -erp C / h + v*
//!           =>  lambda = -k (x+ - x* - h v*) - d (J u+ - v*),   x+ = x + h J u+,
//!               clamped to [-F, F]
//! ```
//!
//! The friction row sticks exactly (rate 0 to the solver's precision) while the load it
//! must hold is below `T`, and slides with the force `-T sign(rate)` above it. The damper
//! and the servo are implicit springs (Lacoursière's reading of ERP/CFM,
//! [`crate::Softness::from_spring`]): they are stable at any gain, a damper dividing an
//! isolated coordinate's rate by `1 + h c / I` each step, and a rigid servo (`k -> inf`)
//! becoming a bilateral row that puts the coordinate on its target in one step. None of
//! them is stabilised (they have no position error post-stabilisation may remove) nor gets
//! the curvature term.
//!
//! They are settings of the [`crate::Joint`], per axis ([`AxisDynamics`]), and come after
//! the joint type's own rows and its limit and motor rows, axis by axis: friction, damping,
//! servo.

use crate::error::{JointError, WorldError};
use crate::joint::axis::{wrap_angle, JointAxis};
use crate::rows::{Row, RowWriter, Softness};

/// A servo on a joint coordinate `x`: an implicit spring-damper towards a target position
/// and velocity with a force limit, MuJoCo's position and velocity actuators as one
/// constraint row.
///
/// The servo applies the generalized force (N on a sliding axis, N m on a turning one)
///
/// ```text
/// f = clamp( k (x* + h v* - x+) + d (v* - v+),  -F, F )
/// ```
///
/// where `x+ = x + h v+` and `v+` are the coordinate and its rate at the **end** of the
/// step: the target `x*` moves at `v*` over the step, the force is zero on a coordinate
/// that tracks it exactly, and the step is implicit, so any stiffness and damping are
/// stable (`k -> inf` puts `x` on its target in one step). With `k = 0` it is a velocity
/// servo of gain `d`, `f = d (v* - v+)`: a [`crate::JointMotor`] whose CFM is `1 / d`.
///
/// On an angle (a hinge, the axes of a universal or hinge-2 joint) the error `x - x*` is
/// wrapped into `(-pi, pi]`: the servo turns the short way to its target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointServo {
    /// Target position `x*`, rad or m (finite). Unused when `stiffness` is 0.
    pub target_position: f64,
    /// Target rate `v*`, rad/s or m/s (finite): the velocity servo's set point, the
    /// position servo's feed-forward (its target then moves at this rate). Default 0.
    pub target_velocity: f64,
    /// Stiffness `k`, N m/rad or N/m, finite and `>= 0`.
    pub stiffness: f64,
    /// Damping (a velocity servo's gain) `d`, N m s/rad or N s/m, finite and `>= 0`;
    /// `k` and `d` not both zero.
    pub damping: f64,
    /// Force limit `F` (N or N m, `>= 0`); `f64::INFINITY` (default) for none.
    pub max_force: f64,
}

impl JointServo {
    /// A position servo holding `target` (rad or m) with stiffness `stiffness` and damping
    /// `damping`, no force limit, target velocity 0.
    pub fn position(target: f64, stiffness: f64, damping: f64) -> Result<Self, WorldError> {
        let servo = Self {
            target_position: target,
            target_velocity: 0.0,
            stiffness,
            damping,
            max_force: f64::INFINITY,
        };
        servo.validate()?;
        Ok(servo)
    }

    /// A velocity servo driving the rate to `target_velocity` (rad/s or m/s) with the force
    /// `gain (target_velocity - rate)`, gain in N m s/rad or N s/m (`> 0`), no force limit.
    pub fn velocity(target_velocity: f64, gain: f64) -> Result<Self, WorldError> {
        let servo = Self {
            target_position: 0.0,
            target_velocity,
            stiffness: 0.0,
            damping: gain,
            max_force: f64::INFINITY,
        };
        servo.validate()?;
        Ok(servo)
    }

    /// The same servo with its force bounded by `max_force` (N or N m, `>= 0`).
    pub fn with_max_force(mut self, max_force: f64) -> Result<Self, WorldError> {
        self.max_force = max_force;
        self.validate()?;
        Ok(self)
    }

    /// The same servo with target rate `target_velocity` (rad/s or m/s).
    pub fn with_target_velocity(mut self, target_velocity: f64) -> Result<Self, WorldError> {
        self.target_velocity = target_velocity;
        self.validate()?;
        Ok(self)
    }

    /// The same servo with target position `target` (rad or m).
    pub fn with_target_position(mut self, target: f64) -> Result<Self, WorldError> {
        self.target_position = target;
        self.validate()?;
        Ok(self)
    }

    /// Checks the documented ranges: [`JointError::InvalidSpring`] for the gains,
    /// [`WorldError::InvalidSetting`] (`"servo target position"`, `"servo target
    /// velocity"`, `"servo max force"`) for the rest.
    pub fn validate(&self) -> Result<(), WorldError> {
        let gain_ok = |g: f64| g.is_finite() && g >= 0.0;
        if !(gain_ok(self.stiffness)
            && gain_ok(self.damping)
            && self.stiffness + self.damping > 0.0)
        {
            return Err(JointError::InvalidSpring {
                stiffness: self.stiffness,
                damping: self.damping,
            }
            .into());
        }
        let finite = "must be finite";
        check(self.target_position, "servo target position", finite, |x| {
            x.is_finite()
        })?;
        check(self.target_velocity, "servo target velocity", finite, |x| {
            x.is_finite()
        })?;
        check(
            self.max_force,
            "servo max force",
            "must be >= 0 (infinity: no limit)",
            |x| x >= 0.0,
        )
    }

    /// The servo's ERP and CFM at step `h` (the spring map of
    /// docs/dynamics.md#softness-erp-cfm-and-springs).
    fn softness(&self, h: f64) -> Softness {
        let denominator = h * self.stiffness + self.damping;
        Softness {
            erp: h * self.stiffness / denominator,
            cfm: 1.0 / denominator,
        }
    }
}

/// What acts on a joint axis besides its limit and motor ([`crate::AxisControl`]): Coulomb
/// friction, viscous damping and a servo (URDF's `<dynamics friction damping>`, MuJoCo's
/// `frictionloss`, `damping` and position or velocity actuators). Each is one LCP row on
/// the axis, written only when set, so a joint without them costs nothing more (see the
/// module `drive` and docs/dynamics.md#joint-friction-damping-and-servos).
///
/// Set on a joint with [`crate::JointBuilder::axis_dynamics`] or
/// [`crate::Joint::set_axis_dynamics`]; build with the `with_` methods, which validate:
///
/// ```
/// use stiction::{AxisDynamics, JointServo};
/// let knee = AxisDynamics::default()
///     .with_friction(0.5)?                     // N m
///     .with_damping(2.0)?                      // N m s/rad
///     .with_servo(JointServo::position(0.3, 400.0, 20.0)?.with_max_force(80.0)?);
/// assert_eq!(knee.row_count(), 3);
/// # Ok::<(), stiction::WorldError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[non_exhaustive]
pub struct AxisDynamics {
    /// Coulomb friction force or torque `T` (N or N m, finite, `>= 0`; 0: none). The axis
    /// does not move while the load on it stays below `T` and otherwise feels `-T` against
    /// its motion: a velocity row with target 0 and force bounds `[-T, T]`.
    pub friction: f64,
    /// Viscous damping `c` (N s/m or N m s/rad, finite, `>= 0`; 0: none): the force
    /// `-c v+` on the rate at the end of the step (implicit, stable for any `c`).
    pub damping: f64,
    /// A servo, if any.
    pub servo: Option<JointServo>,
}

impl AxisDynamics {
    /// Nothing: no friction, no damping, no servo (the default).
    pub const NONE: Self = Self {
        friction: 0.0,
        damping: 0.0,
        servo: None,
    };

    /// The same with Coulomb friction `friction` (N or N m, finite, `>= 0`).
    pub fn with_friction(mut self, friction: f64) -> Result<Self, WorldError> {
        self.friction = friction;
        self.validate()?;
        Ok(self)
    }

    /// The same with viscous damping `damping` (N s/m or N m s/rad, finite, `>= 0`).
    pub fn with_damping(mut self, damping: f64) -> Result<Self, WorldError> {
        self.damping = damping;
        self.validate()?;
        Ok(self)
    }

    /// The same with `servo` (validated when built: [`JointServo::position`],
    /// [`JointServo::velocity`]).
    pub fn with_servo(mut self, servo: JointServo) -> Self {
        self.servo = Some(servo);
        self
    }

    /// Whether nothing is set (no rows).
    pub fn is_none(&self) -> bool {
        self.row_count() == 0
    }

    /// Rows these settings add to the joint: one each for friction (`> 0`), damping
    /// (`> 0`) and a servo.
    pub fn row_count(&self) -> usize {
        usize::from(self.friction != 0.0)
            + usize::from(self.damping != 0.0)
            + usize::from(self.servo.is_some())
    }

    /// Checks the documented ranges: [`WorldError::InvalidSetting`] named `"joint
    /// friction"` or `"joint damping"`, and the servo's ([`JointServo::validate`]).
    pub fn validate(&self) -> Result<(), WorldError> {
        let rule = "must be finite and >= 0";
        let ok = |x: f64| x.is_finite() && x >= 0.0;
        check(self.friction, "joint friction", rule, ok)?;
        check(self.damping, "joint damping", rule, ok)?;
        if let Some(servo) = &self.servo {
            servo.validate()?;
        }
        Ok(())
    }

    /// Writes the friction, damping and servo rows (those set, in that order) on `axis`.
    /// Outside a velocity pass (no step `h`) the servo's softness falls back to the
    /// writer's; only the velocity pass solves these rows.
    pub(crate) fn write_rows(&self, writer: &mut RowWriter, axis: &JointAxis) {
        let jacobian = axis.jacobian;
        if self.friction != 0.0 {
            let row = Row::equality(jacobian, 0.0)
                .bounded(-self.friction, self.friction)
                .softness(Softness { erp: 0.0, cfm: 0.0 })
                .unstabilized();
            writer.push(row);
        }
        if self.damping != 0.0 {
            let row = Row::equality(jacobian, 0.0)
                .softness(Softness {
                    erp: 0.0,
                    cfm: 1.0 / self.damping,
                })
                .unstabilized();
            writer.push(row);
        }
        if let Some(servo) = &self.servo {
            let error = axis.position - servo.target_position;
            let error = if axis.periodic {
                wrap_angle(error)
            } else {
                error
            };
            let softness = writer
                .motion()
                .map_or(writer.softness(), |m| servo.softness(m.h));
            let row = Row::equality(jacobian, error)
                .bounded(-servo.max_force, servo.max_force)
                .target_velocity(servo.target_velocity)
                .softness(softness)
                .unstabilized();
            writer.push(row);
        }
    }
}

/// `Ok` when `rule_holds(value)`, else [`WorldError::InvalidSetting`] naming `name`.
fn check(
    value: f64,
    name: &'static str,
    rule: &'static str,
    rule_holds: impl Fn(f64) -> bool,
) -> Result<(), WorldError> {
    if rule_holds(value) {
        Ok(())
    } else {
        Err(WorldError::InvalidSetting { name, value, rule })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;
    use crate::rows::{parts, Pose, RowMotion, RowStorage};

    #[test]
    fn bad_settings_are_typed_errors() {
        let setting = |r: Result<AxisDynamics, WorldError>| match r {
            Err(WorldError::InvalidSetting { name, .. }) => name,
            other => panic!("expected an invalid setting, got {other:?}"),
        };
        let none = AxisDynamics::NONE;
        assert_eq!(setting(none.with_friction(-1.0)), "joint friction");
        assert_eq!(setting(none.with_friction(f64::NAN)), "joint friction");
        assert_eq!(setting(none.with_friction(f64::INFINITY)), "joint friction");
        assert_eq!(setting(none.with_damping(-0.5)), "joint damping");
        assert!(none.with_friction(0.0).unwrap().is_none());
        assert!(matches!(
            JointServo::position(0.0, -1.0, 0.0),
            Err(WorldError::InvalidJoint(JointError::InvalidSpring { .. }))
        ));
        assert!(matches!(
            JointServo::position(0.0, 0.0, 0.0),
            Err(WorldError::InvalidJoint(JointError::InvalidSpring { .. }))
        ));
        assert!(JointServo::velocity(1.0, f64::INFINITY).is_err());
        let name = |r: Result<JointServo, WorldError>| match r {
            Err(WorldError::InvalidSetting { name, .. }) => name,
            other => panic!("expected an invalid setting, got {other:?}"),
        };
        assert_eq!(
            name(JointServo::position(f64::NAN, 1.0, 0.0)),
            "servo target position"
        );
        assert_eq!(
            name(JointServo::velocity(f64::INFINITY, 1.0)),
            "servo target velocity"
        );
        let servo = JointServo::position(0.1, 10.0, 1.0).unwrap();
        assert_eq!(name(servo.with_max_force(-1.0)), "servo max force");
        assert_eq!(name(servo.with_max_force(f64::NAN)), "servo max force");
        assert!(servo.with_max_force(0.0).is_ok());
    }

    #[test]
    fn rows_follow_the_settings() {
        let axis = JointAxis {
            position: 3.0,
            jacobian: parts::angular_jacobian(Vec3::Z),
            periodic: true,
        };
        let h = 0.01;
        let servo = JointServo::position(-3.0, 100.0, 4.0)
            .unwrap()
            .with_max_force(7.0)
            .unwrap()
            .with_target_velocity(0.5)
            .unwrap();
        let dynamics = AxisDynamics::NONE
            .with_friction(2.0)
            .unwrap()
            .with_damping(8.0)
            .unwrap()
            .with_servo(servo);
        let mut storage = RowStorage::default();
        let pose = Pose::IDENTITY;
        let mut writer = storage
            .writer([0, 1], [pose, pose], Softness::DEFAULT, false)
            .with_motion(Some(RowMotion {
                linear_a: Vec3::ZERO,
                angular_a: Vec3::ZERO,
                linear_b: Vec3::ZERO,
                angular_b: Vec3::ZERO,
                h,
            }));
        dynamics.write_rows(&mut writer, &axis);
        assert_eq!(writer.rows_described(), dynamics.row_count());
        assert_eq!((storage.lo[0], storage.hi[0]), (-2.0, 2.0));
        assert_eq!((storage.erp[0], storage.cfm[0]), (0.0, 0.0));
        assert_eq!((storage.erp[1], storage.cfm[1]), (0.0, 1.0 / 8.0));
        assert!(storage.is_unbounded(1));
        // 3 - (-3) wrapped: 6 - 2 pi.
        let wrapped = 6.0 - std::f64::consts::TAU;
        assert!((storage.error[2] - wrapped).abs() < 1e-15);
        let spring = Softness::from_spring(100.0, 4.0, h).unwrap();
        assert!((storage.erp[2] - spring.erp).abs() < 1e-15);
        assert!((storage.cfm[2] - spring.cfm).abs() < 1e-15);
        assert_eq!((storage.lo[2], storage.hi[2]), (-7.0, 7.0));
        assert_eq!(storage.target_velocity[2], 0.5);
        assert!(storage.stabilize.iter().all(|s| !s));
    }
}
