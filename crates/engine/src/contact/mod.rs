//! Contacts: from collision detection's points to constraint rows, and the forces back.
//!
//! # Rows of one contact point
//!
//! Collision detection ([`crate::collision`]) gives, for colliders A and B, witness points
//! `p_a`, `p_b` on the two surfaces, a unit normal `n` from A into B and the separation
//! `d = n . (p_b - p_a)` (negative when they overlap). With lever arms `r_a = p_a - x_a`,
//! `r_b = p_b - x_b`:
//!
//! ```text
//! C_n   = d                                   (normal: keep C_n >= 0)
//! dC_n/dt = n . (v_b + w_b x r_b - v_a - w_a x r_a)
//! J_n   = [ -n, -(r_a x n), n, r_b x n ]       force lambda_n in [0, inf)
//! J_t   = [ -t, -(r_a x t), t, r_b x t ]       for each friction direction t
//! ```
//!
//! so every row's force is a component of the force **on B** (A receives the opposite) in
//! the contact frame `(n, t1, t2)`, with `t2 = n x t1`. `t1` follows the predicted sliding
//! velocity when there is one (faster than 1 mm/s), so box friction and the polygonal cone
//! bound the force exactly along the direction of sliding; otherwise the fixed basis of
//! [`crate::rows::parts::plane_basis`].
//!
//! - **Softness**: ERP and CFM from the material ([`Material::combine`]). A contact found
//!   at a positive separation (within [`ContactSettings::prediction`]) is speculative: its
//!   row has ERP 1, so the bodies may close the whole gap in one step but not pass it.
//! - **Friction** ([`FrictionModel`]): ODE's box (two rows bounded by `+-mu lambda_n`
//!   through `findex`, default), the exact Coulomb disk projected inside Gauss-Seidel, or
//!   Drake's polygonal cone (docs/dynamics.md#friction-models) solved by Lemke (`contact::polygonal`).
//! - **Restitution** (Newton's law at the velocity level): when a touching contact
//!   approaches at least as fast as [`ContactSettings::restitution_threshold`], its normal row gets
//!   the target velocity `e v` and no position correction, so the solve (an impact
//!   problem at the velocity level: `J u+ >= e v`, complementary to `lambda_n >= 0`) makes
//!   the bodies separate at `e` times the approach speed `v`. The approach speed is that of
//!   the step in which the contact closed (kept across the step by feature-id matching),
//!   so the bounce is not weakened by a speculative row having stopped the bodies at
//!   the surface.
//! - **Persistence**: parry matches each new point to last step's by the features it
//!   lies on (`fid1`, `fid2`) and carries `ContactMemory`: the forces warm-start
//!   Gauss-Seidel, the index sets warm-start Dantzig.
//!
//! Forces are reported per point ([`Contact`]) and summed per body
//! ([`crate::World::contact_force`]); per collider pair, the pairs that start and stop
//! touching and each touching pair's impulses are events (`contact::events`,
//! [`crate::World::contact_events`], docs/events.md).

mod events;
mod hook;
mod impact;
mod material;
pub(crate) mod polygonal;
pub(crate) mod rows;

pub(crate) use events::{summarize, EventState};
pub use events::{ContactEvent, ContactPair, EventKind, SensorEvent, SensorOverlap};
pub(crate) use hook::HookSlot;
pub use hook::{ContactCandidate, ContactGeometry, ContactHook, HookAction};
pub(crate) use impact::resolve_sequentially;
pub use impact::ImpactModel;
pub use material::Material;

use crate::error::WorldError;
use crate::math::Vec3;
use crate::rows::hot::Pair;
use crate::rows::Pose;
use std::ops::Range;
use stiction_lcp::IndexState;

/// How friction is modelled at every contact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FrictionModel {
    /// ODE's box (`dContactApprox1`): two tangent rows, each bounded by `+-mu lambda_n`
    /// through `findex`. Exact along the sliding direction (the first tangent follows it),
    /// up to `sqrt(2) mu lambda_n` diagonally when sticking. Works with both steppers.
    #[default]
    Box,
    /// The exact Coulomb disk `|f_t| <= mu lambda_n`, by projecting the two tangent forces
    /// together inside projected Gauss-Seidel. Iterative stepper only.
    CoulombCone,
    /// Drake's polygonal cone (docs/dynamics.md#friction-models): `edges` unit directions evenly spaced in the
    /// tangent plane (the first along the sliding direction), forces `f_j >= 0` with
    /// `sum f_j <= mu lambda_n` and a sliding-speed slack, solved as a linear
    /// complementarity problem by Lemke's method. Exact stepper only; `edges >= 3`
    /// (4, 8 and 16 are usual; more edges approach the circle, the inscribed polygon
    /// being `cos(pi / edges)` of it between edges).
    PolygonalCone {
        /// Number of spanning directions.
        edges: usize,
    },
}

/// How contacts are generated and solved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactSettings {
    /// The friction model; default [`FrictionModel::Box`].
    pub friction_model: FrictionModel,
    /// Contact prediction distance, m, finite and `>= 0`; default 0.01. Points closer
    /// than this become (speculative) rows before the surfaces touch, so a body falling
    /// up to `prediction / h` m/s is stopped at the surface instead of inside it. Larger
    /// values find more points (slower) and keep fast bodies out.
    pub prediction: f64,
    /// Smallest approach speed, m/s, finite and `>= 0`, at which restitution acts;
    /// default 1. Below it contacts do not bounce, so resting bodies (which approach at
    /// `g h` per step) stay at rest.
    pub restitution_threshold: f64,
    /// Whether penetration is removed by post-stabilisation instead of by ERP; default
    /// `true`. On (and with [`crate::PostStabilization::enabled`]), contact rows correct no
    /// penetration in the velocity solve (ERP 0 on them, CFM unchanged) and after the step
    /// the poses are projected out of penetration (one-sided rows: separation is never
    /// pulled closed; bodies in contact keep their true inertia in the projection). ERP
    /// pushes bodies out with a velocity, and with an unconverged Gauss-Seidel that push
    /// feeds back into a rocking that grows: with ERP a 20-box stack under the iterative
    /// stepper topples within 1000 steps even from its exact equilibrium; projected, it
    /// stands. Off, contacts use their ERP like joints (ODE's behaviour).
    ///
    /// With CFM (ODE's meaning: `J u+ = target - cfm lambda`) a loaded contact then
    /// approaches at `cfm lambda` every step, which the projection takes back: a 1000 kg box
    /// resting on its four corners at CFM 1e-5 reports a sinking speed of `cfm m g / 4` =
    /// 2.45 cm/s and needs a projection pass every step (tests/contact_creep.rs). Lower
    /// the CFM where resting velocities or the projection's cost matter.
    ///
    /// Under the iterative stepper a contact whose normal passes through the centres of
    /// mass of its dynamic bodies (a sphere on anything, a sphere on a sphere) is the
    /// exception: a push through the centres cannot turn a body, so it keeps its ERP, its
    /// CFM yield is taken back at last step's force (`target + cfm lambda_last`), and the
    /// projection takes it only once it is 0.5 mm deeper than the projection's 0.1 mm
    /// slop (an impact). A 1000 kg ball then rests still, without the creep, and a sphere
    /// pile rests at a few micrometres with no projection passes
    /// (docs/performance.md#post-stabilisation-cost). The exact stepper projects every
    /// contact.
    pub post_stabilize: bool,
}

impl Default for ContactSettings {
    fn default() -> Self {
        Self {
            friction_model: FrictionModel::Box,
            prediction: 0.01,
            restitution_threshold: 1.0,
            post_stabilize: true,
        }
    }
}

impl ContactSettings {
    /// Checks the documented ranges.
    pub fn validate(&self) -> Result<(), WorldError> {
        for (name, value) in [
            ("contacts.prediction", self.prediction),
            ("contacts.restitution_threshold", self.restitution_threshold),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(WorldError::InvalidSetting {
                    name,
                    value,
                    rule: "must be finite and >= 0",
                });
            }
        }
        if let FrictionModel::PolygonalCone { edges } = self.friction_model {
            if edges < 3 {
                return Err(WorldError::InvalidSetting {
                    name: "contacts.friction_model.edges",
                    value: edges as f64,
                    rule: "a polygonal cone needs at least 3 edges",
                });
            }
        }
        Ok(())
    }
}

/// One contact point of the last step and the force it carried.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// Where it is ([`ContactGeometry`]).
    pub geometry: ContactGeometry,
    /// The contact frame: the normal (from A into B) and two unit tangents, `t2 = n x t1`.
    pub frame: [Vec3; 3],
    /// Friction coefficient and restitution used.
    pub friction: f64,
    /// Restitution used.
    pub restitution: f64,
    /// Whether restitution acted at this point in the step.
    pub bounced: bool,
    /// The force on B in the contact frame, N: `(normal >= 0, tangent 1, tangent 2)`.
    pub force_local: Vec3,
    /// The force on B, N, world frame (A receives the opposite).
    pub force: Vec3,
}

/// The total force and torque contacts applied to one body in the last step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ContactWrench {
    /// Force, N, world frame.
    pub force: Vec3,
    /// Torque about the body's centre of mass, N m, world frame.
    pub torque: Vec3,
}

/// What a contact point remembers between steps (carried by parry's feature-id matching).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct ContactMemory {
    /// Normal force, N.
    pub(crate) normal: f64,
    /// Friction force on B, world frame, N: projected on the next step's tangents.
    pub(crate) friction: Vec3,
    /// First tangent of the step the states belong to.
    pub(crate) tangent: Vec3,
    /// Dantzig's index sets of the normal and the two tangent rows.
    pub(crate) states: [Option<IndexState>; 3],
    /// Approach speed, m/s, while the contact was speculative (for restitution).
    pub(crate) approach: f64,
    /// The multiplier of this contact's row in the first post-stabilisation pass that
    /// solved it by Gauss-Seidel (m kg): that pass's warm start next time. A resting pile
    /// sinks by about as much every step, so the corrections repeat.
    pub(crate) projection: f64,
}

/// Asks the processor to load the point `points[order[ahead]]` into the cache, if there is
/// one: the passes that take the points in height order (`order`) jump about an array of
/// 500-byte points, and the load of each point's first fields was a quarter of
/// `read_forces`'s time on S1.
#[inline(always)]
pub(crate) fn prefetch_point(points: &[ContactPoint], order: &[u32], ahead: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(point) = order.get(ahead).and_then(|&p| points.get(p as usize)) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start: *const u8 = (point as *const ContactPoint).cast();
        let lines = std::mem::size_of::<ContactPoint>().div_ceil(64);
        for line in 0..lines {
            // SAFETY: a prefetch is only a hint: it reads nothing into the program and
            // cannot fault, whatever the address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(64 * line).cast()) }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (points, order, ahead);
}

/// A contact point during a step: geometry, combined material, prepared frame and rows.
#[derive(Debug, Clone)]
pub(crate) struct ContactPoint {
    /// Index of its pair, manifold and point in the collision pipeline.
    pub(crate) source: [u32; 3],
    pub(crate) candidate: ContactCandidate,
    /// Solver slots of the bodies (the ground slot for world geometry).
    pub(crate) slots: [u32; 2],
    /// World witness points on A and B at the step's start.
    pub(crate) anchors: [Vec3; 2],
    /// Witness points in the frames of A's and B's bodies.
    pub(crate) local_anchors: [Vec3; 2],
    /// Normal in A's body frame.
    pub(crate) local_normal: Vec3,
    pub(crate) memory: ContactMemory,
    /// `t1`, `t2`.
    pub(crate) tangents: [Vec3; 2],
    /// Normal target velocity from restitution, m/s.
    pub(crate) bounce: Option<f64>,
    /// Normal impulse on B of this step's sequential impacts, N s (`contact::impact`).
    pub(crate) impact: f64,
    /// Its normal row and friction rows in the raw row storage.
    pub(crate) normal_row: usize,
    pub(crate) friction_rows: Range<usize>,
}

#[cfg(test)]
impl ContactPoint {
    /// A test point between `colliders` on solver slots `slots` at `point`, normal `+z`
    /// and friction 0.5, its witness points at the slots' origins.
    pub(crate) fn fixture(
        colliders: [crate::handles::ColliderHandle; 2],
        slots: [u32; 2],
        point: Vec3,
    ) -> Self {
        ContactPoint {
            source: [0; 3],
            candidate: ContactCandidate {
                geometry: ContactGeometry {
                    colliders,
                    bodies: [None, None],
                    user_data: [0; 2],
                    point,
                    normal: Vec3::Z,
                    separation: 0.0,
                },
                friction: 0.5,
                restitution: 0.0,
                restitution_threshold: None,
                softness: None,
                surface_velocity: Vec3::ZERO,
            },
            slots,
            anchors: [Vec3::ZERO; 2],
            local_anchors: [Vec3::ZERO; 2],
            local_normal: Vec3::Z,
            memory: ContactMemory::default(),
            tangents: [Vec3::ZERO; 2],
            bounce: None,
            impact: 0.0,
            normal_row: 0,
            friction_rows: 0..0,
        }
    }
}

impl ContactPoint {
    /// The velocity of B's contact point relative to A's, from per-slot velocities and
    /// poses (the normal part is the closing rate: negative while approaching).
    #[inline(always)]
    pub(crate) fn relative_velocity(&self, velocities: &[Pair], poses: &[Pose]) -> Vec3 {
        let at = |slot: u32, p: Vec3| {
            let slot = slot as usize;
            let [v, w] = velocities[slot];
            v + w.cross(p - poses[slot].position)
        };
        at(self.slots[1], self.anchors[1]) - at(self.slots[0], self.anchors[0])
    }

    /// The smallest approach speed that bounces at this contact: its own threshold, else
    /// the world's `default`.
    #[inline]
    pub(crate) fn restitution_threshold(&self, default: f64) -> f64 {
        self.candidate.restitution_threshold.unwrap_or(default)
    }
}
