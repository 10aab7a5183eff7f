//! Softness of a constraint row: the error reduction parameter (ERP) and the constraint force
//! mixing (CFM) of docs/dynamics.md#softness-erp-cfm-and-springs, and the map from a spring to them.
//!
//! With `C` the row's position error and `lambda` its force, one step enforces
//!
//! ```text
//! J u+ = -erp C / h - cfm lambda      (plus any target velocity)
//! ```
//!
//! so `erp` is the fraction of the error removed per step and `cfm` a compliance that lets the
//! row give under load. Lacoursiere's reading: an implicit spring `lambda = -k C+ - c J u+`
//! with `C+ = C + h J u+` is exactly that equation with `erp = h k / (h k + c)` and
//! `cfm = 1 / (h k + c)` ([`Softness::from_spring`]).

use crate::error::WorldError;

/// ERP and CFM of a row (or the default for every row of a constraint or a world).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Softness {
    /// Error reduction parameter, dimensionless, in `[0, 1]`; default 0.2 (docs/scenes.md#common-settings).
    /// The fraction of a row's position error corrected by the velocity solve each step:
    /// raising it corrects drift faster but adds energy to stiff chains; 0 leaves drift to
    /// post-stabilisation alone.
    pub erp: f64,
    /// Constraint force mixing, (m/s)/N for a linear row ((rad/s)/(N m) for an angular one),
    /// `>= 0`; default `1e-5`. The row yields by `cfm * lambda` in velocity: raising it makes
    /// joints softer and the LCP better conditioned (redundant rows stop being singular).
    pub cfm: f64,
}

impl Default for Softness {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl Softness {
    /// ERP 0.2 and CFM `1e-5`, the values of docs/scenes.md#common-settings (and close to ODE's defaults).
    pub const DEFAULT: Self = Self {
        erp: 0.2,
        cfm: 1e-5,
    };

    /// A rigid row that corrects its whole error each step: ERP 1, CFM 0.
    pub const RIGID: Self = Self { erp: 1.0, cfm: 0.0 };

    /// Validated softness: `erp` finite in `[0, 1]`, `cfm` finite and `>= 0`.
    pub fn new(erp: f64, cfm: f64) -> Result<Self, WorldError> {
        let softness = Self { erp, cfm };
        softness.validate()?;
        Ok(softness)
    }

    /// The ERP and CFM that make a row behave as a spring of stiffness `stiffness` (N/m, or
    /// N m/rad for an angular row) and damping `damping` (N s/m, or N m s/rad) integrated
    /// implicitly over a step of `h` seconds:
    /// `erp = h k / (h k + c)`, `cfm = 1 / (h k + c)`.
    ///
    /// Both coefficients must be finite and `>= 0`, not both zero, and `h` finite and `> 0`.
    /// The result depends on `h`: recompute it if the step size changes.
    pub fn from_spring(stiffness: f64, damping: f64, h: f64) -> Result<Self, WorldError> {
        if !(h.is_finite() && h > 0.0) {
            return Err(WorldError::InvalidTimeStep { h });
        }
        for (name, value) in [("spring stiffness", stiffness), ("spring damping", damping)] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(WorldError::InvalidSetting {
                    name,
                    value,
                    rule: "must be finite and >= 0",
                });
            }
        }
        let denominator = h * stiffness + damping;
        if !(denominator > 0.0 && denominator.is_finite()) {
            return Err(WorldError::InvalidSetting {
                name: "spring stiffness",
                value: stiffness,
                rule: "stiffness and damping cannot both be zero",
            });
        }
        Self::new(h * stiffness / denominator, 1.0 / denominator)
    }

    /// The spring `(stiffness, damping)` this softness stands for at step `h`: the inverse
    /// of [`Self::from_spring`] (`k = erp / (h cfm)`, `c = (1 - erp) / cfm`). Infinite for
    /// `cfm = 0` (a rigid row).
    pub fn as_spring(&self, h: f64) -> (f64, f64) {
        (self.erp / (h * self.cfm), (1.0 - self.erp) / self.cfm)
    }

    /// Checks the documented ranges.
    pub fn validate(&self) -> Result<(), WorldError> {
        if !(self.erp.is_finite() && (0.0..=1.0).contains(&self.erp)) {
            return Err(WorldError::InvalidSetting {
                name: "erp",
                value: self.erp,
                rule: "must be finite and in [0, 1]",
            });
        }
        if !(self.cfm.is_finite() && self.cfm >= 0.0) {
            return Err(WorldError::InvalidSetting {
                name: "cfm",
                value: self.cfm,
                rule: "must be finite and >= 0",
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spring_map_round_trips_and_matches_the_implicit_spring() {
        let (k, c, h) = (2500.0, 12.0, 1.0 / 60.0);
        let s = Softness::from_spring(k, c, h).unwrap();
        let (k2, c2) = s.as_spring(h);
        assert!((k2 / k - 1.0).abs() < 1e-12 && (c2 / c - 1.0).abs() < 1e-12);
        // One row on a unit mass, error C, at rest: the step's force must be the implicit
        // spring's, lambda = -k C+ - c v+, with v+ = h lambda and C+ = C + h v+.
        let (mass, error) = (1.0, 0.01);
        // J M^-1 J^T lambda + cfm lambda / h = -erp C / h^2  (b with u = 0).
        let lambda = (-s.erp * error / (h * h)) / (1.0 / mass + s.cfm / h);
        let v_next = h * lambda / mass;
        let spring = -k * (error + h * v_next) - c * v_next;
        assert!((lambda - spring).abs() < 1e-9 * spring.abs());
    }

    #[test]
    fn out_of_range_values_are_rejected() {
        assert!(Softness::new(1.5, 0.0).is_err());
        assert!(Softness::new(0.2, -1.0).is_err());
        assert!(Softness::new(f64::NAN, 0.0).is_err());
        assert!(Softness::from_spring(0.0, 0.0, 0.01).is_err());
        assert!(Softness::from_spring(1.0, 0.0, 0.0).is_err());
        assert_eq!(
            Softness::from_spring(1.0, 0.0, 0.01).unwrap(),
            Softness {
                erp: 1.0,
                cfm: 100.0
            }
        );
    }
}
