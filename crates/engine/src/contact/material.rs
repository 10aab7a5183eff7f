//! Surface materials and the rule that combines two of them at a contact.
//!
//! # Combination rule
//!
//! For a contact between materials `1` and `2`:
//!
//! - friction `mu = sqrt(mu_1 mu_2)` (geometric mean, as Bullet and Box2D): a frictionless
//!   surface (`mu = 0`) makes every contact with it frictionless, and two equal materials
//!   keep their coefficient;
//! - restitution `e = max(e_1, e_2)` (Box2D): a bouncy ball bounces on any floor;
//! - softness: if neither material sets one, the world's ([`crate::WorldSettings::softness`]);
//!   if one does, that one; if both do, `erp = min(erp_1, erp_2)` and
//!   `cfm = cfm_1 + cfm_2`. CFM is a compliance, and two springs pressed against each other
//!   act in series, so their compliances add; the smaller ERP is the softer correction.
//!
//! A [`crate::ContactHook`] sees the combined values and may override them per contact.

use crate::error::WorldError;
use crate::rows::Softness;

/// The surface properties of a collider.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Material {
    /// Coulomb friction coefficient, dimensionless, finite and `>= 0`; default 0.5
    /// (docs/scenes.md#common-settings). The tangential force of a contact is at most `mu` times its
    /// normal force.
    pub friction: f64,
    /// Coefficient of restitution, dimensionless, in `[0, 1]`; default 0. The ratio of
    /// separation to approach speed after an impact faster than
    /// [`crate::ContactSettings::restitution_threshold`]; 1 is perfectly elastic.
    pub restitution: f64,
    /// Smallest approach speed, m/s (finite, `>= 0`), at which this surface bounces;
    /// `None` (default) uses the world's [`crate::ContactSettings::restitution_threshold`].
    /// At a contact the smaller of the two surfaces' set values applies.
    pub restitution_threshold: Option<f64>,
    /// ERP and CFM of this surface's contact rows; `None` (default) uses the world's.
    /// Softer contacts (larger CFM) penetrate more under load and make large stacks better
    /// conditioned.
    pub softness: Option<Softness>,
}

impl Default for Material {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl Material {
    /// Friction 0.5, restitution 0, the world's softness.
    pub const DEFAULT: Self = Self {
        friction: 0.5,
        restitution: 0.0,
        restitution_threshold: None,
        softness: None,
    };

    /// A material with friction `friction` and restitution `restitution` (validated).
    pub fn new(friction: f64, restitution: f64) -> Result<Self, WorldError> {
        let material = Self {
            friction,
            restitution,
            restitution_threshold: None,
            softness: None,
        };
        material.validate()?;
        Ok(material)
    }

    /// This material with its own restitution threshold (m/s; validated by
    /// [`Self::validate`] when the material is used).
    pub fn with_restitution_threshold(mut self, threshold: f64) -> Self {
        self.restitution_threshold = Some(threshold);
        self
    }

    /// This material with its own softness.
    pub fn with_softness(mut self, softness: Softness) -> Self {
        self.softness = Some(softness);
        self
    }

    /// Checks the documented ranges.
    pub fn validate(&self) -> Result<(), WorldError> {
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            return Err(WorldError::InvalidSetting {
                name: "material.friction",
                value: self.friction,
                rule: "must be finite and >= 0",
            });
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(WorldError::InvalidSetting {
                name: "material.restitution",
                value: self.restitution,
                rule: "must lie in [0, 1]",
            });
        }
        if let Some(threshold) = self.restitution_threshold {
            if !(threshold.is_finite() && threshold >= 0.0) {
                return Err(WorldError::InvalidSetting {
                    name: "material.restitution_threshold",
                    value: threshold,
                    rule: "must be finite and >= 0",
                });
            }
        }
        if let Some(softness) = self.softness {
            softness.validate()?;
        }
        Ok(())
    }

    /// The combined properties at a contact between `self` and `other` (module docs).
    pub fn combine(&self, other: &Material) -> Material {
        let softness = match (self.softness, other.softness) {
            (None, None) => None,
            (Some(s), None) | (None, Some(s)) => Some(s),
            (Some(a), Some(b)) => Some(Softness {
                erp: a.erp.min(b.erp),
                cfm: a.cfm + b.cfm,
            }),
        };
        Material {
            friction: (self.friction * other.friction).sqrt(),
            restitution: self.restitution.max(other.restitution),
            restitution_threshold: match (self.restitution_threshold, other.restitution_threshold) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            softness,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combination_follows_the_documented_rule() {
        let rubber = Material::new(0.9, 0.8).unwrap();
        let ice = Material::new(0.04, 0.1).unwrap();
        let mixed = rubber.combine(&ice);
        assert!((mixed.friction - (0.9f64 * 0.04).sqrt()).abs() < 1e-15);
        assert_eq!(mixed.restitution, 0.8);
        assert_eq!(mixed, ice.combine(&rubber));
        assert_eq!(mixed.softness, None);
        let soft = rubber.with_softness(Softness::new(0.1, 1e-4).unwrap());
        assert_eq!(soft.combine(&ice).softness, soft.softness);
        let both = soft.combine(&ice.with_softness(Softness::new(0.3, 2e-4).unwrap()));
        let s = both.softness.unwrap();
        assert_eq!(s.erp, 0.1);
        assert!((s.cfm - 3e-4).abs() < 1e-18);
        assert_eq!(Material::DEFAULT.combine(&Material::DEFAULT).friction, 0.5);
    }

    #[test]
    fn out_of_range_values_are_rejected() {
        assert!(Material::new(-0.1, 0.0).is_err());
        assert!(Material::new(f64::NAN, 0.0).is_err());
        assert!(Material::new(0.5, 1.5).is_err());
        assert!(Material::new(0.5, -0.5).is_err());
        assert!(Material::new(f64::INFINITY, 0.0).is_err());
        assert!(Material::new(0.0, 1.0).is_ok());
    }
}
