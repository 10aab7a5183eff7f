//! Joint axes: the coordinates a joint leaves free (a hinge angle, a slider position, a
//! distance) and what can act on them, a limit and a motor.
//!
//! Each joint type says how many axes it has and, for given poses, each axis's coordinate
//! and the Jacobian of its rate ([`JointAxis`]). The rows are the shared limit and motor
//! parts of [`crate::rows::parts`]; this file holds their settings, checks them, and
//! writes them in the order every type uses: after the type's own rows, for each axis in
//! turn, its motor row (if it has a motor) then its limit row (if it has a limit). A limit
//! row is written even while inert, so a joint's row count depends only on its settings
//! and warm starts survive a stop being reached.

use crate::error::JointError;
use crate::rows::{parts, JacobianRow, RowWriter, Softness};
use std::f64::consts::{PI, TAU};

/// A joint coordinate at some poses: its value and the Jacobian of its rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointAxis {
    /// The coordinate: rad for angles (in `(-pi, pi]`), m for positions and distances.
    pub position: f64,
    /// `d position / dt = jacobian . u` (the motion of A relative to B).
    pub jacobian: JacobianRow,
    /// Whether the coordinate is an angle that wraps at `+-pi`.
    pub periodic: bool,
}

/// A range limit on a joint coordinate: `lower <= x <= upper` (rad or m), enforced by a
/// one-sided row that acts only when a stop is reached or about to be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointLimit {
    /// Lower stop (rad or m); may be `-inf`.
    pub lower: f64,
    /// Upper stop (rad or m), `>= lower`; may be `+inf`. Equal stops lock the axis. For an
    /// angle, `upper - lower` should stay below `2 pi`.
    pub upper: f64,
    /// ERP and CFM of the stop's row; `None` (default) takes the joint's. A stop before it
    /// is reached always uses ERP 1 (it lets the gap close exactly in the step).
    pub softness: Option<Softness>,
    /// Restitution `e` in `[0, 1]`; default 0. A stop hit at speed `v` above
    /// `bounce_threshold` sends the coordinate back at `e v`.
    pub restitution: f64,
    /// Approach speed (m/s or rad/s, `>= 0`) below which a stop does not bounce; default
    /// 0.1. Keeps a body resting on a stop from chattering.
    pub bounce_threshold: f64,
}

impl JointLimit {
    /// Stops at `lower` and `upper` (rad or m), no bounce, the joint's softness.
    pub fn new(lower: f64, upper: f64) -> Result<Self, JointError> {
        let limit = Self {
            lower,
            upper,
            softness: None,
            restitution: 0.0,
            bounce_threshold: 0.1,
        };
        limit.validate()?;
        Ok(limit)
    }

    /// The same stops bouncing with `restitution` above `threshold` (m/s or rad/s).
    pub fn with_bounce(mut self, restitution: f64, threshold: f64) -> Result<Self, JointError> {
        self.restitution = restitution;
        self.bounce_threshold = threshold;
        self.validate()?;
        Ok(self)
    }

    /// The same stops with their own ERP and CFM.
    pub fn with_softness(mut self, softness: Softness) -> Self {
        self.softness = Some(softness);
        self
    }

    /// Checks the documented ranges.
    pub fn validate(&self) -> Result<(), JointError> {
        if self.lower.is_nan()
            || self.upper.is_nan()
            || self.lower > self.upper
            || self.lower == f64::INFINITY
            || self.upper == f64::NEG_INFINITY
        {
            return Err(JointError::InvalidLimit {
                lower: self.lower,
                upper: self.upper,
            });
        }
        let bounce_ok = (0.0..=1.0).contains(&self.restitution)
            && self.bounce_threshold.is_finite()
            && self.bounce_threshold >= 0.0;
        if !bounce_ok {
            return Err(JointError::InvalidBounce {
                restitution: self.restitution,
                threshold: self.bounce_threshold,
            });
        }
        if let Some(softness) = self.softness {
            if softness.validate().is_err() {
                return Err(JointError::InvalidSoftness {
                    erp: softness.erp,
                    cfm: softness.cfm,
                });
            }
        }
        Ok(())
    }
}

/// A velocity motor on a joint coordinate: drives its rate to `target_velocity` with at most
/// `max_force` (ODE's `dParamVel` and `dParamFMax`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointMotor {
    /// The rate to reach, rad/s or m/s (the motion of A relative to B).
    pub target_velocity: f64,
    /// The largest force (N, sliding axes) or torque (N m, turning axes) the motor applies,
    /// finite and `>= 0`. Zero switches the motor off; a zero target with a small force is
    /// joint friction.
    pub max_force: f64,
    /// Velocity compliance of the motor row, (m/s)/N or (rad/s)/(N m), finite and `>= 0`;
    /// default 0. The motor runs `cfm * force` slower than its target under load: 0 holds
    /// the target whatever the load up to `max_force` (unlike ODE, whose motors take the
    /// joint's CFM: with the world's `1e-5` a 10 kN m load would stall a 0.1 rad/s motor);
    /// raise it for a motor that gives under load.
    pub cfm: f64,
}

impl JointMotor {
    /// A rigid motor towards `target_velocity` with at most `max_force`.
    pub fn new(target_velocity: f64, max_force: f64) -> Result<Self, JointError> {
        let motor = Self {
            target_velocity,
            max_force,
            cfm: 0.0,
        };
        motor.validate()?;
        Ok(motor)
    }

    /// The same motor yielding `cfm` (velocity per force) under load.
    pub fn with_cfm(mut self, cfm: f64) -> Result<Self, JointError> {
        self.cfm = cfm;
        self.validate()?;
        Ok(self)
    }

    /// Checks the documented ranges.
    pub fn validate(&self) -> Result<(), JointError> {
        let cfm_ok = self.cfm.is_finite() && self.cfm >= 0.0;
        if self.target_velocity.is_finite()
            && self.max_force.is_finite()
            && self.max_force >= 0.0
            && cfm_ok
        {
            Ok(())
        } else {
            Err(JointError::InvalidMotor {
                target_velocity: self.target_velocity,
                max_force: self.max_force,
            })
        }
    }
}

/// What acts on one joint axis: an optional limit and an optional motor.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AxisControl {
    /// Range limit, if any.
    pub limit: Option<JointLimit>,
    /// Motor, if any.
    pub motor: Option<JointMotor>,
}

impl AxisControl {
    /// Rows this axis adds to its joint.
    pub fn row_count(&self) -> usize {
        usize::from(self.limit.is_some()) + usize::from(self.motor.is_some())
    }

    /// Checks the limit and motor.
    pub fn validate(&self) -> Result<(), JointError> {
        if let Some(limit) = &self.limit {
            limit.validate()?;
        }
        if let Some(motor) = &self.motor {
            motor.validate()?;
        }
        Ok(())
    }

    /// Writes this axis's motor row then its limit row (see the module notes).
    pub(crate) fn write_rows(&self, writer: &mut RowWriter, axis: &JointAxis) {
        if let Some(motor) = &self.motor {
            let softness = Softness {
                cfm: motor.cfm,
                ..writer.softness()
            };
            let row = parts::motor_row(axis.jacobian, motor.target_velocity, motor.max_force)
                .softness(softness);
            writer.push(row);
        }
        if let Some(limit) = &self.limit {
            let position = if axis.periodic {
                unwrap_near_range(axis.position, limit.lower, limit.upper)
            } else {
                axis.position
            };
            let bounce = parts::Bounce {
                restitution: limit.restitution,
                threshold: limit.bounce_threshold,
            };
            let softness = limit.softness.unwrap_or(writer.softness());
            let drive = self.motor.map_or(0.0, |m| m.target_velocity);
            let row = parts::limit_row(
                writer,
                axis.jacobian,
                position,
                [limit.lower, limit.upper],
                softness,
                bounce,
                drive,
            );
            writer.push(row);
        }
    }
}

/// The angle `angle` (rad) shifted by a multiple of `2 pi` to lie within `pi` of the middle
/// of `[lower, upper]`: the wrap of the angle is put opposite the allowed range, so a limit
/// near `+-pi` sees a continuous coordinate.
pub(crate) fn unwrap_near_range(angle: f64, lower: f64, upper: f64) -> f64 {
    if !(lower.is_finite() && upper.is_finite()) {
        return angle;
    }
    let middle = 0.5 * (lower + upper);
    middle + wrap_angle(angle - middle)
}

/// `angle` wrapped into `(-pi, pi]`.
pub(crate) fn wrap_angle(angle: f64) -> f64 {
    let wrapped = angle - TAU * (angle / TAU).round();
    if wrapped <= -PI {
        wrapped + TAU
    } else {
        wrapped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_unwrap_around_the_middle_of_the_range() {
        assert!((wrap_angle(3.0 * PI) - PI).abs() < 1e-12);
        assert!((wrap_angle(-0.5) + 0.5).abs() < 1e-15);
        // A stop range [2.5, 3.5] straddles pi: an angle reported as -3.0 is 2 pi - 3.0 here.
        assert!((unwrap_near_range(-3.0, 2.5, 3.5) - (TAU - 3.0)).abs() < 1e-12);
        assert_eq!(unwrap_near_range(0.3, -1.0, 1.0), 0.3);
        assert_eq!(unwrap_near_range(0.3, f64::NEG_INFINITY, 1.0), 0.3);
    }

    #[test]
    fn bad_limits_and_motors_are_typed_errors() {
        assert!(matches!(
            JointLimit::new(1.0, -1.0),
            Err(JointError::InvalidLimit { .. })
        ));
        assert!(JointLimit::new(f64::NAN, 1.0).is_err());
        assert!(JointLimit::new(f64::NEG_INFINITY, 1.0).is_ok());
        assert!(matches!(
            JointLimit::new(-1.0, 1.0).unwrap().with_bounce(1.5, 0.0),
            Err(JointError::InvalidBounce { .. })
        ));
        assert!(matches!(
            JointMotor::new(1.0, -2.0),
            Err(JointError::InvalidMotor { .. })
        ));
        assert!(JointMotor::new(f64::INFINITY, 2.0).is_err());
        assert!(JointMotor::new(1.0, 2.0).unwrap().with_cfm(-1e-5).is_err());
    }
}
