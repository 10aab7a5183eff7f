//! The contact hook (ODE's near callback): user code that sees every contact point before
//! it becomes constraint rows, and may change its material or reject it.
//!
//! ```
//! use stiction::{ContactCandidate, HookAction, World};
//!
//! let mut world = World::new();
//! // One-way platforms: keep only contacts whose normal points up out of collider A
//! // (user data 7 marks a platform), and make them slippery.
//! world.set_contact_hook(|contact: &mut ContactCandidate| {
//!     let g = contact.geometry();
//!     if g.user_data[0] == 7 && g.normal.z < 0.5 {
//!         return HookAction::Reject;
//!     }
//!     contact.friction = 0.1;
//!     HookAction::Keep
//! });
//! ```

use crate::error::WorldError;
use crate::handles::BodyHandle;
use crate::handles::ColliderHandle;
use crate::math::Vec3;
use crate::rows::Softness;
use std::sync::Arc;

/// Where a contact point is, as collision detection found it (read-only for the hook).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactGeometry {
    /// The two colliders; A is the one with the smaller slot index.
    pub colliders: [ColliderHandle; 2],
    /// Their bodies (`None`: static world geometry).
    pub bodies: [Option<BodyHandle>; 2],
    /// The colliders' user data.
    pub user_data: [u64; 2],
    /// World point midway between the two surfaces, m.
    pub point: Vec3,
    /// Unit contact normal, world frame, pointing from A into B.
    pub normal: Vec3,
    /// Signed distance between the surfaces along the normal, m (negative: penetration).
    pub separation: f64,
}

/// A contact point offered to the [`ContactHook`], with the combined material values
/// ([`crate::Material::combine`]) that the hook may change.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactCandidate {
    pub(crate) geometry: ContactGeometry,
    /// Friction coefficient, finite and `>= 0`.
    pub friction: f64,
    /// Restitution, in `[0, 1]`.
    pub restitution: f64,
    /// Smallest approach speed (m/s, `>= 0`) at which the contact bounces; `None`: the
    /// world's [`crate::ContactSettings::restitution_threshold`].
    pub restitution_threshold: Option<f64>,
    /// ERP and CFM of the contact's rows (`None`: the world's).
    pub softness: Option<Softness>,
    /// Tangential velocity of B's surface relative to A's that friction drives towards
    /// (m/s, world frame; its normal part is ignored); default zero. A conveyor belt.
    pub surface_velocity: Vec3,
}

impl ContactCandidate {
    /// Where the contact is.
    pub fn geometry(&self) -> &ContactGeometry {
        &self.geometry
    }

    /// Checks the values a hook may have changed.
    pub(crate) fn validate(&self) -> Result<(), WorldError> {
        crate::contact::Material {
            friction: self.friction,
            restitution: self.restitution,
            restitution_threshold: self.restitution_threshold,
            softness: self.softness,
        }
        .validate()?;
        if !self.surface_velocity.is_finite() {
            return Err(WorldError::InvalidSetting {
                name: "contact.surface_velocity",
                value: f64::NAN,
                rule: "must be finite",
            });
        }
        Ok(())
    }
}

/// What the hook decided for one contact point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookAction {
    /// Make rows for it (with the values the hook left in the candidate).
    Keep,
    /// Drop it this step.
    Reject,
}

/// User code called once per contact point per step, before rows are written, in a fixed
/// order (collider pairs by slot). Closures `Fn(&mut ContactCandidate) -> HookAction` are
/// hooks. A hook that leaves an invalid value (negative friction, restitution above 1,
/// non-finite numbers) makes the step fail with [`WorldError::InvalidSetting`], changing
/// nothing.
pub trait ContactHook: Send + Sync {
    /// Inspects, changes or rejects one contact point.
    fn on_contact(&self, contact: &mut ContactCandidate) -> HookAction;
}

impl<F> ContactHook for F
where
    F: Fn(&mut ContactCandidate) -> HookAction + Send + Sync,
{
    fn on_contact(&self, contact: &mut ContactCandidate) -> HookAction {
        self(contact)
    }
}

/// The world's hook, shared (so the world stays cloneable).
#[derive(Clone, Default)]
pub(crate) struct HookSlot(pub(crate) Option<Arc<dyn ContactHook>>);

impl std::fmt::Debug for HookSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Some(<contact hook>)"
        } else {
            "None"
        })
    }
}
