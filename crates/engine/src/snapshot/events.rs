//! The last step's events as stored in a snapshot: the sensor overlaps and touching pairs
//! (which the next step's events are the difference to, so a loaded world reports the same
//! events as the one saved) and the last step's event lists (so [`crate::World::sensor_events`]
//! and [`crate::World::contact_events`] read the same). Files written before events existed
//! have none: a loaded world then reports every overlap and touching pair as beginning in
//! its first step.
//!
//! Handles are stored as they were: like reported contacts, they may name colliders removed
//! since that step.

use super::bodies::HandleRecord;
use super::invalid;
use crate::contact::{
    ContactEvent, ContactPair, EventKind, EventState, SensorEvent, SensorOverlap,
};
use crate::error::SnapshotError;
use crate::handles::{BodyHandle, ColliderHandle};
use crate::math::Vec3;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct OverlapRecord {
    sensor: HandleRecord,
    other: HandleRecord,
    bodies: [Option<HandleRecord>; 2],
}

#[derive(Serialize, Deserialize)]
struct SensorEventRecord {
    started: bool,
    overlap: OverlapRecord,
}

#[derive(Serialize, Deserialize)]
struct TouchingRecord {
    colliders: [HandleRecord; 2],
    bodies: [Option<HandleRecord>; 2],
    normal_impulse: f64,
    friction_impulse: f64,
    impulse: Vec3,
    points: u64,
    asleep: bool,
}

#[derive(Serialize, Deserialize)]
struct ContactEventRecord {
    started: bool,
    colliders: [HandleRecord; 2],
    bodies: [Option<HandleRecord>; 2],
}

/// [`EventState`] as stored.
#[derive(Serialize, Deserialize, Default)]
pub(crate) struct EventsRecord {
    overlaps: Vec<OverlapRecord>,
    sensor_events: Vec<SensorEventRecord>,
    touching: Vec<TouchingRecord>,
    contact_events: Vec<ContactEventRecord>,
}

fn bodies_record(bodies: [Option<BodyHandle>; 2]) -> [Option<HandleRecord>; 2] {
    bodies.map(|b| b.map(HandleRecord::of))
}

fn bodies_of(record: [Option<HandleRecord>; 2]) -> [Option<BodyHandle>; 2] {
    record.map(|b| b.map(HandleRecord::handle))
}

fn kind_of(started: bool) -> EventKind {
    if started {
        EventKind::Started
    } else {
        EventKind::Stopped
    }
}

impl OverlapRecord {
    fn of(o: &SensorOverlap) -> Self {
        Self {
            sensor: HandleRecord::of(o.sensor),
            other: HandleRecord::of(o.other),
            bodies: bodies_record(o.bodies),
        }
    }

    fn restore(self) -> SensorOverlap {
        SensorOverlap {
            sensor: self.sensor.handle(),
            other: self.other.handle(),
            bodies: bodies_of(self.bodies),
        }
    }
}

impl EventsRecord {
    pub(crate) fn of(events: &EventState) -> Self {
        Self {
            overlaps: events.overlaps.iter().map(OverlapRecord::of).collect(),
            sensor_events: events
                .sensor_events
                .iter()
                .map(|e| SensorEventRecord {
                    started: e.kind == EventKind::Started,
                    overlap: OverlapRecord {
                        sensor: HandleRecord::of(e.sensor),
                        other: HandleRecord::of(e.other),
                        bodies: bodies_record(e.bodies),
                    },
                })
                .collect(),
            touching: events
                .touching
                .iter()
                .map(|p| TouchingRecord {
                    colliders: p.colliders.map(HandleRecord::of),
                    bodies: bodies_record(p.bodies),
                    normal_impulse: p.normal_impulse,
                    friction_impulse: p.friction_impulse,
                    impulse: p.impulse,
                    points: p.points as u64,
                    asleep: p.asleep,
                })
                .collect(),
            contact_events: events
                .contact_events
                .iter()
                .map(|e| ContactEventRecord {
                    started: e.kind == EventKind::Started,
                    colliders: e.colliders.map(HandleRecord::of),
                    bodies: bodies_record(e.bodies),
                })
                .collect(),
        }
    }

    /// The events, checked: the overlap and touching sets sorted without repeats (the next
    /// step compares them with its own by one walk), impulses finite.
    pub(crate) fn restore(self) -> Result<EventState, SnapshotError> {
        let overlaps: Vec<SensorOverlap> = self
            .overlaps
            .into_iter()
            .map(OverlapRecord::restore)
            .collect();
        if !overlaps
            .windows(2)
            .all(|w| (w[0].sensor, w[0].other) < (w[1].sensor, w[1].other))
        {
            return Err(invalid(
                "events.overlaps",
                "must be sorted by sensor and other collider, without repeats",
            ));
        }
        let mut touching = Vec::with_capacity(self.touching.len());
        for (k, p) in self.touching.into_iter().enumerate() {
            let finite = p.normal_impulse.is_finite()
                && p.friction_impulse.is_finite()
                && p.impulse.is_finite();
            if !finite {
                return Err(invalid(&format!("events.touching[{k}]"), "must be finite"));
            }
            let colliders: [ColliderHandle; 2] = p.colliders.map(HandleRecord::handle);
            touching.push(ContactPair {
                colliders,
                bodies: bodies_of(p.bodies),
                normal_impulse: p.normal_impulse,
                friction_impulse: p.friction_impulse,
                impulse: p.impulse,
                points: usize::try_from(p.points)
                    .map_err(|_| invalid(&format!("events.touching[{k}].points"), "too large"))?,
                asleep: p.asleep,
            });
        }
        if !touching.windows(2).all(|w| w[0].colliders < w[1].colliders) {
            return Err(invalid(
                "events.touching",
                "must be sorted by colliders, without repeats",
            ));
        }
        let sensor_events = self
            .sensor_events
            .into_iter()
            .map(|e| {
                let o = e.overlap.restore();
                SensorEvent {
                    kind: kind_of(e.started),
                    sensor: o.sensor,
                    other: o.other,
                    bodies: o.bodies,
                }
            })
            .collect();
        let contact_events = self
            .contact_events
            .into_iter()
            .map(|e| ContactEvent {
                kind: kind_of(e.started),
                colliders: e.colliders.map(HandleRecord::handle),
                bodies: bodies_of(e.bodies),
            })
            .collect();
        Ok(EventState {
            overlaps,
            sensor_events,
            touching,
            contact_events,
        })
    }
}
