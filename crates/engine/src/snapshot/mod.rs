//! Snapshots: the complete state of a [`World`] in a versioned file, read back into a world
//! that continues bit-identically to the one saved.
//!
//! ```
//! use stiction::math::Vec3;
//! use stiction::{ColliderBuilder, MassProperties, RigidBodyBuilder, World};
//!
//! let mut world = World::new();
//! world.add_collider(ColliderBuilder::halfspace(Vec3::Z)?, None)?;
//! let ball = world.add_body(
//!     RigidBodyBuilder::dynamic()
//!         .mass_properties(MassProperties::sphere_with_mass(0.1, 1.0)?)
//!         .position(Vec3::new(0.0, 0.0, 0.5))
//!         .build()?,
//! );
//! world.add_collider(ColliderBuilder::ball(0.1)?, Some(ball))?;
//! for _ in 0..30 {
//!     world.step(1.0 / 60.0)?;
//! }
//! let mut file = Vec::new();
//! world.save_snapshot(&mut file, 30)?;
//! let mut copy = World::load_snapshot(&file[..])?;
//! assert_eq!(copy.step, 30);
//! for _ in 0..30 {
//!     world.step(1.0 / 60.0)?;
//!     copy.world.step(1.0 / 60.0)?;
//! }
//! let (a, b) = (world.body(ball)?.position(), copy.world.body(ball)?.position());
//! assert_eq!(a.to_array().map(f64::to_bits), b.to_array().map(f64::to_bits));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What is stored
//!
//! Everything a step reads: the settings, simulated time, every body (pose, velocity,
//! accumulated force and torque, mass properties, kind, damping, gyroscopic and orientation
//! modes), every joint (type parameters, limits, motors, softness, breaking thresholds and
//! state, feedback, and the last forces and Dantzig index sets that warm-start it), every
//! collider (parry's shape as built, offset, material, groups, user data, sensor flag), the
//! arenas' generations and free lists (so old handles stay valid and new ones come out as
//! they would have), each collider pair's persistent contact manifolds with their feature
//! ids and contact memory (last forces, index sets, approach speed) and parry's workspace
//! for composite shapes, and the sleep counters. The last step's reported contacts and
//! per-body contact wrenches are stored too, so [`World::contacts`] reads the same, and so
//! are its sensor overlaps, touching pairs and events (docs/events.md): the next step's
//! events are the difference to those sets, so a loaded world reports the events the saved
//! one would have.
//!
//! Fields added to the format since its version 1 (the sensor flag, the events, ...) are
//! optional in the payload: a file written before them loads with their defaults (a
//! solid collider, no overlaps or touching pairs), so the version stays 1.
//!
//! Not stored, because a step rebuilds them before reading them: the broad-phase tree (its
//! pairs are the sorted set of overlapping boxes, independent of the tree's shape), all
//! per-step buffers, and the last step's [`crate::StepStats`] (a loaded world reports the
//! defaults until it steps). **The contact hook is a closure and cannot be stored**:
//! install it again ([`World::set_contact_hook`]) after loading, before the next step.
//!
//! # Format
//!
//! A 37-byte header (magic `stiction-snapshot`, format version, payload length, FNV-1a
//! checksum; see the module `frame`) and a CBOR payload (RFC 8949). CBOR because it stores
//! every `f64` as its exact binary value, including the infinite limits and break
//! thresholds that JSON cannot write, and because parry's shapes and workspaces are only
//! reachable through serde. Loading checks the header, the length and the checksum before
//! decoding, then validates every value (the same rules as the builders and setters),
//! every handle and the arenas' free lists, and only then assembles the world: a damaged
//! file gives a [`SnapshotError`], never a partly loaded world.

mod bodies;
mod contacts;
mod events;
mod frame;
mod joints;
mod settings;

use crate::collision::CollisionPipeline;
use crate::error::SnapshotError;
use crate::joint::JointKind;
use crate::world::World;
use bodies::{ArenaRecord, BodyRecord, ColliderRecord};
use contacts::{ContactRecord, PairRecord, SleepRecord};
use events::EventsRecord;
use joints::JointRecord;
use serde::{Deserialize, Serialize};
use settings::SettingsRecord;
use std::io::{Read, Write};

/// A world read back from a snapshot, with the step count saved beside it.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The restored world (without a contact hook: install it again).
    pub world: World,
    /// The step count given to [`World::save_snapshot`] (the world itself only counts time).
    pub step: u64,
}

impl Snapshot {
    /// The first bytes of every snapshot file.
    pub const MAGIC: &'static [u8] = frame::MAGIC;
    /// The snapshot format version this build writes (and the only one it reads).
    pub const FORMAT_VERSION: u32 = frame::FORMAT_VERSION;
}

/// The payload, version 1.
#[derive(Serialize, Deserialize)]
struct Payload {
    step: u64,
    time: f64,
    settings: SettingsRecord,
    bodies: ArenaRecord<BodyRecord>,
    joints: ArenaRecord<JointRecord>,
    colliders: ArenaRecord<ColliderRecord>,
    pairs: Vec<PairRecord>,
    sleep: SleepRecord,
    contacts: Vec<ContactRecord>,
    wrenches: Vec<(crate::math::Vec3, crate::math::Vec3)>,
    /// Absent from files written before events existed: no overlaps or touching pairs
    /// (every pair touching then starts in the first step after loading).
    #[serde(default)]
    events: EventsRecord,
}

pub(crate) fn invalid(field: &str, reason: impl Into<String>) -> SnapshotError {
    SnapshotError::InvalidContent {
        field: field.to_owned(),
        reason: reason.into(),
    }
}

impl World {
    /// Writes the complete state of the world to `writer` as a snapshot (see the module
    /// `snapshot`), with `step`, the caller's step count, stored beside it. The bytes are
    /// encoded in memory first, so an error leaves `writer` untouched unless writing itself
    /// fails part-way (write to a temporary file and rename it for an all-or-nothing file).
    pub fn save_snapshot(&self, writer: impl Write, step: u64) -> Result<(), SnapshotError> {
        let payload = self.snapshot_payload(step)?;
        frame::write_frame(writer, &payload)
    }

    /// Reads a snapshot written by [`World::save_snapshot`]. The whole file is checked
    /// (header, length, checksum, then every value) before the world is built. The contact
    /// hook is not part of a snapshot: install it again before stepping.
    pub fn load_snapshot(reader: impl Read) -> Result<Snapshot, SnapshotError> {
        let payload = frame::read_frame(reader)?;
        let payload: Payload =
            ciborium::from_reader(&payload[..]).map_err(|e| SnapshotError::Malformed {
                reason: e.to_string(),
            })?;
        payload.restore()
    }

    fn snapshot_payload(&self, step: u64) -> Result<Vec<u8>, SnapshotError> {
        // Exhaustive on purpose: a field added to the world fails to compile here until
        // it is either stored or listed as rebuilt by every step.
        let World {
            bodies,
            joints,
            colliders,
            settings,
            stats: _,
            scratch: _,
            time,
            collision,
            hook: _,
            sleep,
            contacts,
            wrenches,
            events,
        } = self;
        // A user-written joint's type cannot be rebuilt from bytes: refuse before encoding.
        if let Some((handle, joint)) = joints
            .iter()
            .find(|(_, j)| matches!(j.kind, JointKind::Custom(_)))
        {
            return Err(SnapshotError::Unsupported {
                what: format!(
                    "joint {handle:?}: it is a user-written constraint (`{}`), whose type a \
                     snapshot cannot rebuild; remove it before saving and add it again after \
                     loading",
                    joint.kind.name()
                ),
            });
        }
        let payload = Payload {
            step,
            time: *time,
            settings: SettingsRecord::of(settings),
            bodies: ArenaRecord::of(bodies, BodyRecord::of),
            joints: ArenaRecord::of(joints, JointRecord::of),
            colliders: ArenaRecord::of(colliders, ColliderRecord::of),
            pairs: collision.pairs.iter().map(PairRecord::of).collect(),
            sleep: SleepRecord::of(sleep),
            contacts: contacts.iter().map(ContactRecord::of).collect(),
            wrenches: wrenches.iter().map(contacts::wrench_record).collect(),
            events: EventsRecord::of(events),
        };
        let mut bytes = Vec::new();
        ciborium::into_writer(&payload, &mut bytes).map_err(|e| SnapshotError::Unsupported {
            what: format!("this world: {e}"),
        })?;
        Ok(bytes)
    }
}

impl Payload {
    /// Validates everything and builds the world; nothing is built unless all of it is valid.
    fn restore(self) -> Result<Snapshot, SnapshotError> {
        if !(self.time.is_finite() && self.time >= 0.0) {
            return Err(invalid("time", "must be finite and >= 0"));
        }
        let settings = self.settings.restore()?;
        let live_bodies = self.bodies.live();
        let live_colliders = self.colliders.live();
        let bodies = self
            .bodies
            .restore("bodies", |slot, r| r.restore(&format!("bodies[{slot}]")))?;
        let joints = self.joints.restore("joints", |slot, r| {
            r.restore(&format!("joints[{slot}]"), &live_bodies)
        })?;
        let colliders = self.colliders.restore("colliders", |slot, r| {
            r.restore(&format!("colliders[{slot}]"), &live_bodies)
        })?;
        let mut pairs = Vec::with_capacity(self.pairs.len());
        for (k, pair) in self.pairs.into_iter().enumerate() {
            pairs.push(pair.restore(&format!("pairs[{k}]"), &live_colliders)?);
        }
        let sleep = self.sleep.restore()?;
        let events = self.events.restore()?;
        if self
            .wrenches
            .iter()
            .any(|(f, t)| !(f.is_finite() && t.is_finite()))
        {
            return Err(invalid("wrenches", "must be finite"));
        }

        let mut world = World::new();
        world.settings = settings;
        world.time = self.time;
        world.bodies = bodies;
        world.joints = joints;
        world.colliders = colliders;
        world.collision = CollisionPipeline::default();
        world.collision.pairs = pairs;
        world.sleep = sleep;
        world.contacts = self
            .contacts
            .into_iter()
            .map(ContactRecord::restore)
            .collect();
        world.wrenches = self
            .wrenches
            .into_iter()
            .map(contacts::restore_wrench)
            .collect();
        world.events = events;
        Ok(Snapshot {
            world,
            step: self.step,
        })
    }
}
