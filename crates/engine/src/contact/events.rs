//! Events (docs/events.md): which sensor overlaps and which touching contact pairs began
//! or ended in a step, and each touching pair's impulses.
//!
//! A step finds this step's sets (the sensors' overlaps in the collision pipeline, the
//! touching pairs from the contact points and their forces), and only after the step has
//! committed ([`crate::World::step`]) are they compared with the last step's committed
//! sets: what is new *started*, what is gone *stopped*. A refused step therefore leaves
//! the sets and the events of the last committed step in place. Both sets are kept sorted
//! by collider handles, so the comparison is one walk over two sorted lists and the lists
//! are reused from step to step (no allocation once they reached their largest size).

use crate::contact::ContactPoint;
use crate::handles::{BodyHandle, ColliderHandle};
use crate::math::Vec3;
use std::cmp::Ordering;

/// Whether a pair (a sensor and a collider, or two touching colliders) began or ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// The pair overlaps (or touches) in this step and did not in the last one.
    Started,
    /// The pair overlapped (or touched) in the last step and does not in this one (also
    /// when one of its colliders was removed, disabled or turned into or out of a sensor
    /// since).
    Stopped,
}

/// A sensor collider and a collider its shape intersects
/// ([`crate::World::sensor_overlaps`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SensorOverlap {
    /// The sensor ([`crate::Collider::is_sensor`]).
    pub sensor: ColliderHandle,
    /// The collider it overlaps (never another sensor).
    pub other: ColliderHandle,
    /// The sensor's body and the other collider's body (`None`: the static world).
    pub bodies: [Option<BodyHandle>; 2],
}

/// A sensor overlap that began or ended in the last step ([`crate::World::sensor_events`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SensorEvent {
    /// Began ([`EventKind::Started`]) or ended ([`EventKind::Stopped`]).
    pub kind: EventKind,
    /// The sensor.
    pub sensor: ColliderHandle,
    /// The collider entering or leaving it.
    pub other: ColliderHandle,
    /// The sensor's body and the other collider's body (`None`: the static world).
    pub bodies: [Option<BodyHandle>; 2],
}

/// Two colliders touching in the last step and what their contact carried
/// ([`crate::World::contact_pairs`]). A pair touches when at least one of its contact points
/// (after the contact hook) had a separation `<= 0` at the start of the step, or carried a
/// non-zero normal force (or a sequential-impact impulse) in it; pairs whose bodies all
/// sleep keep the state they fell asleep with (docs/events.md).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactPair {
    /// The two colliders, A first (A has the smaller slot index, as in
    /// [`crate::ContactGeometry::colliders`]).
    pub colliders: [ColliderHandle; 2],
    /// Their bodies (`None`: the static world).
    pub bodies: [Option<BodyHandle>; 2],
    /// The total normal impulse of the step, N s (`>= 0`): the sum over the pair's points
    /// of the normal force times the step `h`, plus the impulses of sequential impacts
    /// ([`crate::ImpactModel::Sequential`]).
    pub normal_impulse: f64,
    /// The total friction impulse of the step, N s (`>= 0`): the sum over the pair's
    /// points of the magnitude of the friction force times `h`.
    pub friction_impulse: f64,
    /// The net impulse on B of the step, N s, world frame (normal and friction, all
    /// points; A receives the opposite): B's momentum change due to this pair.
    pub impulse: Vec3,
    /// How many contact points the pair had in the step (those of [`crate::World::contacts`]).
    pub points: usize,
    /// Whether the pair's bodies were all asleep: the pair keeps touching, with no points
    /// and zero impulses (sleeping bodies get no contact forces).
    pub asleep: bool,
}

/// Two colliders that started or stopped touching in the last step
/// ([`crate::World::contact_events`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ContactEvent {
    /// Started or stopped touching.
    pub kind: EventKind,
    /// The two colliders, A first (the smaller slot index).
    pub colliders: [ColliderHandle; 2],
    /// Their bodies (`None`: the static world).
    pub bodies: [Option<BodyHandle>; 2],
}

/// The committed sets of the last step and the events that led to them, read by the
/// world's accessors and stored in snapshots.
#[derive(Debug, Clone, Default)]
pub(crate) struct EventState {
    /// Every sensor overlap, sorted by (sensor, other) handles.
    pub(crate) overlaps: Vec<SensorOverlap>,
    /// The sensor overlaps that began or ended in the last step, in the same order.
    pub(crate) sensor_events: Vec<SensorEvent>,
    /// Every touching pair with its impulses, sorted by collider handles.
    pub(crate) touching: Vec<ContactPair>,
    /// The pairs that started or stopped touching in the last step, in the same order.
    pub(crate) contact_events: Vec<ContactEvent>,
}

impl EventState {
    /// Commits `current`, this step's sensor overlaps (sorted as [`Self::overlaps`]): the
    /// events are the difference to the last committed set.
    pub(crate) fn commit_overlaps(&mut self, current: &[SensorOverlap]) {
        let events = &mut self.sensor_events;
        events.clear();
        let key = |o: &SensorOverlap| (o.sensor, o.other);
        changes(&self.overlaps, current, key, |o, kind| {
            events.push(SensorEvent {
                kind,
                sensor: o.sensor,
                other: o.other,
                bodies: o.bodies,
            });
        });
        self.overlaps.clear();
        self.overlaps.extend_from_slice(current);
    }

    /// Commits `current`, this step's touching pairs (sorted as [`Self::touching`]).
    pub(crate) fn commit_touching(&mut self, current: &[ContactPair]) {
        let events = &mut self.contact_events;
        events.clear();
        changes(
            &self.touching,
            current,
            |p| p.colliders,
            |p, kind| {
                events.push(ContactEvent {
                    kind,
                    colliders: p.colliders,
                    bodies: p.bodies,
                });
            },
        );
        self.touching.clear();
        self.touching.extend_from_slice(current);
    }

    /// The overlaps of `sensor` (a run of the sorted list).
    pub(crate) fn overlaps_of(&self, sensor: ColliderHandle) -> &[SensorOverlap] {
        let start = self.overlaps.partition_point(|o| o.sensor < sensor);
        let end = start + self.overlaps[start..].partition_point(|o| o.sensor == sensor);
        &self.overlaps[start..end]
    }

    /// The touching pair of colliders `a` and `b` (in either order).
    pub(crate) fn touching_pair(
        &self,
        a: ColliderHandle,
        b: ColliderHandle,
    ) -> Option<&ContactPair> {
        // A is the smaller slot; two live colliders never share one.
        let key = if a.index() <= b.index() {
            [a, b]
        } else {
            [b, a]
        };
        self.touching
            .binary_search_by(|p| p.colliders.cmp(&key))
            .ok()
            .map(|i| &self.touching[i])
    }
}

/// The summary of one pair's contact points of a step of `h` seconds (`points`, all of
/// one pair, their memories holding the step's forces: after
/// [`crate::contact::rows::read_forces`]), or `None` if the pair does not touch: no point
/// has a separation `<= 0`, a non-zero normal force or a sequential-impact impulse.
pub(crate) fn summarize(points: &[ContactPoint], h: f64) -> Option<ContactPair> {
    let geometry = &points.first()?.candidate.geometry;
    let mut touching = false;
    let (mut normal, mut friction, mut impulse) = (0.0, 0.0, Vec3::ZERO);
    for point in points {
        let memory = &point.memory;
        let n = point.candidate.geometry.normal;
        touching |= point.candidate.geometry.separation <= 0.0
            || memory.normal != 0.0
            || point.impact != 0.0;
        let along = memory.normal * h + point.impact;
        normal += along;
        friction += memory.friction.length() * h;
        impulse += n * along + memory.friction * h;
    }
    touching.then_some(ContactPair {
        colliders: geometry.colliders,
        bodies: geometry.bodies,
        normal_impulse: normal,
        friction_impulse: friction,
        impulse,
        points: points.len(),
        asleep: false,
    })
}

/// Calls `emit` with [`EventKind::Stopped`] for every item of `old` whose key is not in
/// `new`, and with [`EventKind::Started`] for every item of `new` whose key is not in
/// `old`, in key order; both lists are sorted by `key` without repeats.
fn changes<T, K: Ord>(
    old: &[T],
    new: &[T],
    key: impl Fn(&T) -> K,
    mut emit: impl FnMut(&T, EventKind),
) {
    let (mut i, mut j) = (0, 0);
    loop {
        let order = match (old.get(i), new.get(j)) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(a), Some(b)) => key(a).cmp(&key(b)),
        };
        match order {
            Ordering::Less => {
                emit(&old[i], EventKind::Stopped);
                i += 1;
            }
            Ordering::Greater => {
                emit(&new[j], EventKind::Started);
                j += 1;
            }
            Ordering::Equal => {
                i += 1;
                j += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handles::Handle;

    fn overlap(sensor: u32, other: u32, generation: u32) -> SensorOverlap {
        SensorOverlap {
            sensor: ColliderHandle::from_parts(sensor, 0),
            other: ColliderHandle::from_parts(other, generation),
            bodies: [None, None],
        }
    }

    #[test]
    fn events_are_the_difference_of_the_sorted_sets_and_a_reused_slot_is_a_new_pair() {
        let mut state = EventState::default();
        state.commit_overlaps(&[overlap(1, 2, 0), overlap(1, 5, 0)]);
        assert_eq!(state.sensor_events.len(), 2);
        assert!(state
            .sensor_events
            .iter()
            .all(|e| e.kind == EventKind::Started));
        // Slot 2 reused by a new collider (generation 1), 5 left, 7 entered.
        state.commit_overlaps(&[overlap(1, 2, 1), overlap(1, 7, 0), overlap(3, 2, 1)]);
        let seen: Vec<_> = state
            .sensor_events
            .iter()
            .map(|e| {
                (
                    e.kind,
                    e.sensor.index(),
                    e.other.index(),
                    e.other.generation(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                (EventKind::Stopped, 1, 2, 0),
                (EventKind::Started, 1, 2, 1),
                (EventKind::Stopped, 1, 5, 0),
                (EventKind::Started, 1, 7, 0),
                (EventKind::Started, 3, 2, 1),
            ]
        );
        let sensor = ColliderHandle::from_parts(1, 0);
        assert_eq!(state.overlaps_of(sensor).len(), 2);
        assert!(state
            .overlaps_of(ColliderHandle::from_parts(2, 0))
            .is_empty());
        // The same set again: no events.
        let same = state.overlaps.clone();
        state.commit_overlaps(&same);
        assert!(state.sensor_events.is_empty());
    }
}
