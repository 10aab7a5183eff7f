//! The world's events (docs/events.md): sensor overlaps that began and ended, collider pairs
//! that started and stopped touching, and each touching pair's impulses, as of the last
//! committed step.
//!
//! ```
//! use stiction::math::Vec3;
//! use stiction::{ColliderBuilder, EventKind, MassProperties, RigidBodyBuilder, World};
//!
//! let mut world = World::new();
//! let ground = world.add_collider(ColliderBuilder::halfspace(Vec3::Z)?, None)?;
//! let half = Vec3::splat(0.1);
//! let body = world.add_body(
//!     RigidBodyBuilder::dynamic()
//!         .mass_properties(MassProperties::cuboid_with_mass(half, 2.0)?)
//!         .position(Vec3::new(0.0, 0.0, 0.5))
//!         .build()?,
//! );
//! let cube = world.add_collider(ColliderBuilder::cuboid(half)?, Some(body))?;
//! let h = 1.0 / 60.0;
//! let mut landed = None;
//! for step in 1..=60 {
//!     world.step(h)?;
//!     for event in world.contact_events() {
//!         assert_eq!(event.colliders, [ground, cube]);
//!         if event.kind == EventKind::Started {
//!             landed = Some(step);
//!         }
//!     }
//! }
//! // It fell 0.4 m, about sqrt(2 * 0.4 / 9.81) = 0.29 s (17 steps) after its release.
//! assert!((landed.unwrap() as f64 * h - 0.286).abs() < 2.0 * h);
//! // At rest, the ground carries its weight: m g h of normal impulse per step.
//! let pair = world.contact_pair(ground, cube).unwrap();
//! assert!((pair.normal_impulse - 2.0 * 9.81 * h).abs() < 1e-9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::contact::{ContactEvent, ContactPair, SensorEvent, SensorOverlap};
use crate::error::WorldError;
use crate::handles::ColliderHandle;
use crate::world::World;

impl World {
    /// The sensor overlaps that began ([`crate::EventKind::Started`]) or ended
    /// ([`crate::EventKind::Stopped`]) in the last step, sorted by sensor and then other
    /// collider handle. An overlap that ends because a collider was removed, disabled or
    /// stopped being a sensor ends in the next step (its handle may then be stale). Empty
    /// before the first step; a refused step leaves the last committed step's events.
    pub fn sensor_events(&self) -> &[SensorEvent] {
        &self.events.sensor_events
    }

    /// The colliders the sensor `sensor` overlaps, as of the last step (poses at the start
    /// of that step), sorted by handle: those whose shape intersects or touches the
    /// sensor's, except other sensors, colliders of the sensor's own body, colliders its
    /// [`crate::CollisionGroups`] reject, and (for a sensor that cannot move: on the static
    /// world or a static body) colliders that cannot move either. Empty for a collider that
    /// is not a sensor; fails for a stale handle.
    pub fn sensor_overlaps(&self, sensor: ColliderHandle) -> Result<&[SensorOverlap], WorldError> {
        self.collider(sensor)?;
        Ok(self.events.overlaps_of(sensor))
    }

    /// Every sensor overlap of the last step, sorted by sensor and then other collider
    /// handle (see [`Self::sensor_overlaps`]).
    pub fn all_sensor_overlaps(&self) -> &[SensorOverlap] {
        &self.events.overlaps
    }

    /// The collider pairs that started ([`crate::EventKind::Started`]) or stopped
    /// ([`crate::EventKind::Stopped`]) touching in the last step, sorted by collider
    /// handles (A, the smaller slot, first). A pair touches when at least one of its
    /// contact points (after the contact hook) had a separation `<= 0` at the start of the
    /// step, or carried a non-zero normal force or a sequential-impact impulse in it
    /// ([`ContactPair`], docs/events.md). Pairs whose bodies all sleep keep touching. A
    /// pair stops when its colliders part, or when one is removed, disabled or made a
    /// sensor (in the next step; its handle may then be stale).
    pub fn contact_events(&self) -> &[ContactEvent] {
        &self.events.contact_events
    }

    /// Every collider pair touching in the last step with its total normal and friction
    /// impulses (N s), net impulse and point count, sorted by collider handles (A first).
    pub fn contact_pairs(&self) -> &[ContactPair] {
        &self.events.touching
    }

    /// The touching pair of colliders `a` and `b` (in either order) in the last step, or
    /// `None` if they did not touch.
    pub fn contact_pair(&self, a: ColliderHandle, b: ColliderHandle) -> Option<&ContactPair> {
        self.events.touching_pair(a, b)
    }
}
