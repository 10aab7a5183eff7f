//! What collision detection and sleeping carry from one step to the next, as stored in a
//! snapshot: each collider pair's persistent contact manifolds (points, feature ids and
//! their warm-start memory) with parry's workspace for composite shapes, the sleep
//! counters, and the last step's reported contacts and per-body wrenches.
//!
//! The broad phase is not stored: its pairs are the sorted set of truly overlapping boxes,
//! whatever the shape of its tree, so a fresh one finds the same pairs in the same order.

use super::bodies::{check_handle, HandleRecord};
use super::invalid;
use super::joints::index_states;
use crate::collision::PairState;
use crate::contact::{Contact, ContactGeometry, ContactMemory, ContactWrench};
use crate::error::SnapshotError;
use crate::math::{Quat, Vec3};
use crate::parry::math::Pose as ParryPose;
use crate::parry::query::{ContactManifold, ContactManifoldsWorkspace, TrackedContact};
use crate::parry::shape::PackedFeatureId;
use crate::rows::Pose;
use crate::sleep::SleepTracker;
use serde::{Deserialize, Serialize};
use stiction_lcp::IndexState;

#[derive(Serialize, Deserialize)]
struct MemoryRecord {
    normal: f64,
    friction: Vec3,
    tangent: Vec3,
    #[serde(with = "index_states")]
    states: [Option<IndexState>; 3],
    approach: f64,
    /// Absent from files written before it existed: no warm start then.
    #[serde(default)]
    projection: f64,
}

#[derive(Serialize, Deserialize)]
struct PointRecord {
    local_p1: Vec3,
    local_p2: Vec3,
    dist: f64,
    fid1: u32,
    fid2: u32,
    memory: MemoryRecord,
}

#[derive(Serialize, Deserialize)]
struct ManifoldRecord {
    points: Vec<PointRecord>,
    local_n1: Vec3,
    local_n2: Vec3,
    subshape1: u32,
    subshape2: u32,
    subshape_poses: Option<(Option<ParryPose>, Option<ParryPose>)>,
}

#[derive(Serialize, Deserialize)]
pub(crate) struct PairRecord {
    colliders: [HandleRecord; 2],
    manifolds: Vec<ManifoldRecord>,
    /// parry's bookkeeping for composite shapes (which part's manifold is which).
    workspace: Option<ContactManifoldsWorkspace>,
    /// The height step the pair's points were last ordered by (absent from files written
    /// before it existed: the pair is then ordered by its height alone).
    #[serde(default)]
    height_step: Option<f64>,
}

impl PairRecord {
    pub(crate) fn of(pair: &PairState) -> Self {
        let manifolds = pair
            .manifolds
            .iter()
            .map(|m| ManifoldRecord {
                points: m
                    .points
                    .iter()
                    .map(|p| {
                        let ContactMemory {
                            normal,
                            friction,
                            tangent,
                            states,
                            approach,
                            projection,
                        } = p.data;
                        PointRecord {
                            local_p1: p.local_p1,
                            local_p2: p.local_p2,
                            dist: p.dist,
                            fid1: p.fid1.0,
                            fid2: p.fid2.0,
                            memory: MemoryRecord {
                                normal,
                                friction,
                                tangent,
                                states,
                                approach,
                                projection,
                            },
                        }
                    })
                    .collect(),
                local_n1: m.local_n1,
                local_n2: m.local_n2,
                subshape1: m.subshape1,
                subshape2: m.subshape2,
                subshape_poses: m.subshape_poses.as_ref().map(|p| (p.pos1, p.pos2)),
            })
            .collect();
        Self {
            colliders: pair.colliders.map(HandleRecord::of),
            manifolds,
            workspace: pair.workspace.clone(),
            height_step: pair.height_step,
        }
    }

    /// The pair state; `colliders` lists the live collider slots with their generations.
    pub(crate) fn restore(
        self,
        field: &str,
        colliders: &[Option<u32>],
    ) -> Result<PairState, SnapshotError> {
        for (k, handle) in self.colliders.iter().enumerate() {
            check_handle(colliders, *handle, &format!("{field}.colliders[{k}]"))?;
        }
        if self.colliders[0] == self.colliders[1] {
            return Err(invalid(field, "a pair needs two different colliders"));
        }
        if self.height_step.is_some_and(|h| !h.is_finite()) {
            return Err(invalid(&format!("{field}.height_step"), "must be finite"));
        }
        if let Some(workspace) = &self.workspace {
            check_workspace(
                workspace,
                self.manifolds.len(),
                &format!("{field}.workspace"),
            )?;
        }
        let mut manifolds = Vec::with_capacity(self.manifolds.len());
        for (m, record) in self.manifolds.into_iter().enumerate() {
            let at = format!("{field}.manifolds[{m}]");
            let mut manifold = ContactManifold::<(), ContactMemory>::with_data(
                record.subshape1,
                record.subshape2,
                (),
            );
            manifold.local_n1 = record.local_n1;
            manifold.local_n2 = record.local_n2;
            if let Some((pos1, pos2)) = record.subshape_poses {
                // parry's pose holder is not exported: setting a pose and then the stored
                // ones creates it even when both are `None`, as parry can leave it.
                manifold.set_subshape_pos1(Some(ParryPose::IDENTITY));
                manifold.set_subshape_pos1(pos1);
                manifold.set_subshape_pos2(pos2);
            }
            for (p, point) in record.points.into_iter().enumerate() {
                let memory = point.memory;
                let finite = point.local_p1.is_finite()
                    && point.local_p2.is_finite()
                    && point.dist.is_finite()
                    && memory.normal.is_finite()
                    && memory.friction.is_finite()
                    && memory.tangent.is_finite()
                    && memory.approach.is_finite()
                    && memory.projection.is_finite();
                if !finite {
                    return Err(invalid(&format!("{at}.points[{p}]"), "must be finite"));
                }
                manifold.points.push(TrackedContact {
                    local_p1: point.local_p1,
                    local_p2: point.local_p2,
                    dist: point.dist,
                    fid1: PackedFeatureId(point.fid1),
                    fid2: PackedFeatureId(point.fid2),
                    data: ContactMemory {
                        normal: memory.normal,
                        friction: memory.friction,
                        tangent: memory.tangent,
                        states: memory.states,
                        approach: memory.approach,
                        projection: memory.projection,
                    },
                });
            }
            manifolds.push(manifold);
        }
        Ok(PairState {
            colliders: self.colliders.map(HandleRecord::handle),
            manifolds,
            workspace: self.workspace,
            height_step: self.height_step,
        })
    }
}

/// parry indexes its manifolds by the numbers in a composite-shape workspace without
/// checking them: refuse any that point past the pair's manifolds, so a crafted file
/// cannot make a later step panic. The workspace's fields are private to parry, so they
/// are read back through its own serialisation.
fn check_workspace(
    workspace: &ContactManifoldsWorkspace,
    manifolds: usize,
    field: &str,
) -> Result<(), SnapshotError> {
    let value = ciborium::Value::serialized(workspace)
        .map_err(|e| invalid(field, format!("cannot be read back: {e}")))?;
    if references_within(&value, manifolds) {
        Ok(())
    } else {
        Err(invalid(
            field,
            "refers to a contact manifold the pair does not have",
        ))
    }
}

fn references_within(value: &ciborium::Value, manifolds: usize) -> bool {
    use ciborium::Value;
    let index_ok = |v: &Value| {
        v.as_integer()
            .and_then(|i| usize::try_from(i).ok())
            .is_some_and(|i| i < manifolds)
    };
    match value {
        Value::Map(entries) => entries.iter().all(|(key, v)| {
            let name = key.as_text();
            let ok_here = match name {
                Some("manifold_id") => index_ok(v),
                // The mesh workspace walks its triangle list and the manifolds in step.
                Some("interferences") => v.as_array().is_some_and(|a| a.len() <= manifolds),
                _ => true,
            };
            ok_here && references_within(key, manifolds) && references_within(v, manifolds)
        }),
        Value::Array(items) => items.iter().all(|v| references_within(v, manifolds)),
        Value::Tag(_, inner) => references_within(inner, manifolds),
        _ => true,
    }
}

#[derive(Serialize, Deserialize)]
pub(crate) struct SleepRecord {
    asleep: Vec<bool>,
    group: Vec<u32>,
    still: Vec<f64>,
    pose: Vec<(Vec3, Quat)>,
    next_group: u32,
}

impl SleepRecord {
    pub(crate) fn of(tracker: &SleepTracker) -> Self {
        Self {
            asleep: tracker.asleep.clone(),
            group: tracker.group.clone(),
            still: tracker.still.clone(),
            pose: tracker
                .pose
                .iter()
                .map(|p| (p.position, p.orientation))
                .collect(),
            next_group: tracker.next_group,
        }
    }

    /// The tracker (its per-step activity is recomputed at the start of every step).
    pub(crate) fn restore(self) -> Result<SleepTracker, SnapshotError> {
        let n = self.asleep.len();
        if self.group.len() != n || self.still.len() != n || self.pose.len() != n {
            return Err(invalid("sleep", "per-body arrays differ in length"));
        }
        if !self.still.iter().all(|t| t.is_finite() && *t >= 0.0) {
            return Err(invalid("sleep.still", "must be finite and >= 0"));
        }
        if !self
            .pose
            .iter()
            .all(|(x, q)| x.is_finite() && q.is_finite())
        {
            return Err(invalid("sleep.pose", "must be finite"));
        }
        let mut tracker = SleepTracker::default();
        tracker.asleep = self.asleep;
        tracker.group = self.group;
        tracker.still = self.still;
        tracker.pose = self
            .pose
            .into_iter()
            .map(|(position, orientation)| Pose {
                position,
                orientation,
            })
            .collect();
        tracker.next_group = self.next_group;
        Ok(tracker)
    }
}

/// The last step's reported contact points (read by [`crate::World::contacts`]).
#[derive(Serialize, Deserialize)]
pub(crate) struct ContactRecord {
    colliders: [HandleRecord; 2],
    bodies: [Option<HandleRecord>; 2],
    user_data: [u64; 2],
    point: Vec3,
    normal: Vec3,
    separation: f64,
    frame: [Vec3; 3],
    friction: f64,
    restitution: f64,
    bounced: bool,
    force_local: Vec3,
    force: Vec3,
}

impl ContactRecord {
    pub(crate) fn of(contact: &Contact) -> Self {
        let Contact {
            geometry,
            frame,
            friction,
            restitution,
            bounced,
            force_local,
            force,
        } = contact;
        let ContactGeometry {
            colliders,
            bodies,
            user_data,
            point,
            normal,
            separation,
        } = geometry;
        Self {
            colliders: colliders.map(HandleRecord::of),
            bodies: bodies.map(|b| b.map(HandleRecord::of)),
            user_data: *user_data,
            point: *point,
            normal: *normal,
            separation: *separation,
            frame: *frame,
            friction: *friction,
            restitution: *restitution,
            bounced: *bounced,
            force_local: *force_local,
            force: *force,
        }
    }

    /// The contact as reported (its handles may name objects removed since that step, as
    /// they may in the world it was saved from).
    pub(crate) fn restore(self) -> Contact {
        Contact {
            geometry: ContactGeometry {
                colliders: self.colliders.map(HandleRecord::handle),
                bodies: self.bodies.map(|b| b.map(HandleRecord::handle)),
                user_data: self.user_data,
                point: self.point,
                normal: self.normal,
                separation: self.separation,
            },
            frame: self.frame,
            friction: self.friction,
            restitution: self.restitution,
            bounced: self.bounced,
            force_local: self.force_local,
            force: self.force,
        }
    }
}

/// A body's reported contact force and torque.
pub(crate) fn wrench_record(w: &ContactWrench) -> (Vec3, Vec3) {
    (w.force, w.torque)
}

/// The wrench [`wrench_record`] stored.
pub(crate) fn restore_wrench((force, torque): (Vec3, Vec3)) -> ContactWrench {
    ContactWrench { force, torque }
}
