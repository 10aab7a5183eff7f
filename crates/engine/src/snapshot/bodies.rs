//! Bodies, colliders and the generational arenas holding them, as stored in a snapshot.
//! Arenas keep every slot's generation and the free list in order, so handles issued
//! before the snapshot stay valid after loading and new handles come out the same.

use super::invalid;
use super::settings::SoftnessRecord;
use crate::body::GyroscopicMode;
use crate::body::OrientationUpdate;
use crate::body::{check_damping, BodyKind, MassProperties, RigidBody, Velocity};
use crate::collision::{Collider, CollisionGroups};
use crate::contact::Material;
use crate::error::SnapshotError;
use crate::handles::{Arena, Handle};
use crate::math::{Mat3, Quat, Vec3};
use crate::parry::shape::SharedShape;
use crate::rows::Pose;
use serde::{Deserialize, Serialize};

/// A handle: slot index and generation.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HandleRecord(u32, u32);

impl HandleRecord {
    pub(crate) fn of<H: Handle>(handle: H) -> Self {
        Self(handle.index(), handle.generation())
    }

    pub(crate) fn handle<H: Handle>(self) -> H {
        H::from_parts(self.0, self.1)
    }
}

/// An arena: per slot its generation and value; the free list.
#[derive(Serialize, Deserialize)]
pub(crate) struct ArenaRecord<R> {
    slots: Vec<(u32, Option<R>)>,
    free: Vec<u32>,
}

impl<R> ArenaRecord<R> {
    pub(crate) fn of<T, H: Handle>(arena: &Arena<T, H>, record: impl Fn(&T) -> R) -> Self {
        let (slots, free) = arena.raw_parts();
        Self {
            slots: slots.map(|(g, v)| (g, v.map(&record))).collect(),
            free: free.to_vec(),
        }
    }

    /// The arena, each value restored by `restore(slot, record)`.
    pub(crate) fn restore<T, H: Handle>(
        self,
        field: &str,
        mut restore: impl FnMut(usize, R) -> Result<T, SnapshotError>,
    ) -> Result<Arena<T, H>, SnapshotError> {
        let mut slots = Vec::with_capacity(self.slots.len());
        for (slot, (generation, value)) in self.slots.into_iter().enumerate() {
            let value = match value {
                Some(record) => Some(restore(slot, record)?),
                None => None,
            };
            slots.push((generation, value));
        }
        Arena::from_raw_parts(slots, self.free).map_err(|reason| invalid(field, reason))
    }

    /// Which slots hold a value, with their generations (to check handles against before
    /// the values are restored).
    pub(crate) fn live(&self) -> Vec<Option<u32>> {
        self.slots
            .iter()
            .map(|(g, v)| v.as_ref().map(|_| *g))
            .collect()
    }
}

/// Checks that `handle` names a live slot of `live` (from [`ArenaRecord::live`]).
pub(crate) fn check_handle(
    live: &[Option<u32>],
    handle: HandleRecord,
    field: &str,
) -> Result<(), SnapshotError> {
    match live.get(handle.0 as usize) {
        Some(Some(generation)) if *generation == handle.1 => Ok(()),
        _ => Err(invalid(field, "names no live object")),
    }
}

#[derive(Serialize, Deserialize, Clone, Copy)]
enum KindRecord {
    Dynamic,
    Kinematic,
    Static,
}

#[derive(Serialize, Deserialize, Clone, Copy)]
enum GyroscopicRecord {
    None,
    Explicit,
    Implicit,
    Conserving,
}

#[derive(Serialize, Deserialize, Clone, Copy)]
enum OrientationUpdateRecord {
    Linear,
    ExponentialMap,
}

#[derive(Serialize, Deserialize)]
pub(crate) struct BodyRecord {
    linear_velocity: Vec3,
    angular_velocity: Vec3,
    inverse_mass: f64,
    inverse_inertia_body: Mat3,
    position: Vec3,
    orientation: Quat,
    force: Vec3,
    torque: Vec3,
    kind: KindRecord,
    mass: f64,
    center_of_mass: Vec3,
    inertia: Mat3,
    gravity_enabled: bool,
    linear_damping: f64,
    angular_damping: f64,
    gyroscopic_mode: GyroscopicRecord,
    orientation_update: OrientationUpdateRecord,
    /// Continuous collision; absent (false) in snapshots written before it existed.
    #[serde(default)]
    ccd: bool,
}

impl BodyRecord {
    pub(crate) fn of(body: &RigidBody) -> Self {
        let RigidBody {
            velocity,
            inverse_mass,
            inverse_inertia_body,
            position,
            orientation,
            force,
            torque,
            kind,
            mass_properties,
            gravity_enabled,
            linear_damping,
            angular_damping,
            gyroscopic_mode,
            orientation_update,
            ccd,
        } = body;
        Self {
            linear_velocity: velocity.linear,
            angular_velocity: velocity.angular,
            inverse_mass: *inverse_mass,
            inverse_inertia_body: *inverse_inertia_body,
            position: *position,
            orientation: *orientation,
            force: *force,
            torque: *torque,
            kind: match kind {
                BodyKind::Dynamic => KindRecord::Dynamic,
                BodyKind::Kinematic => KindRecord::Kinematic,
                BodyKind::Static => KindRecord::Static,
            },
            mass: mass_properties.mass(),
            center_of_mass: mass_properties.center(),
            inertia: mass_properties.inertia(),
            gravity_enabled: *gravity_enabled,
            linear_damping: *linear_damping,
            angular_damping: *angular_damping,
            gyroscopic_mode: match gyroscopic_mode {
                GyroscopicMode::None => GyroscopicRecord::None,
                GyroscopicMode::Explicit => GyroscopicRecord::Explicit,
                GyroscopicMode::Implicit => GyroscopicRecord::Implicit,
                GyroscopicMode::Conserving => GyroscopicRecord::Conserving,
            },
            orientation_update: match orientation_update {
                OrientationUpdate::Linear => OrientationUpdateRecord::Linear,
                OrientationUpdate::ExponentialMap => OrientationUpdateRecord::ExponentialMap,
            },
            ccd: *ccd,
        }
    }

    /// The body, every value checked as the builder and setters check it (`field` names it
    /// in errors).
    pub(crate) fn restore(self, field: &str) -> Result<RigidBody, SnapshotError> {
        let at = |name: &str| format!("{field}.{name}");
        for (name, value) in [
            ("linear_velocity", self.linear_velocity),
            ("angular_velocity", self.angular_velocity),
            ("position", self.position),
            ("force", self.force),
            ("torque", self.torque),
        ] {
            if !value.is_finite() {
                return Err(invalid(&at(name), "must be finite"));
            }
        }
        check_unit_quaternion(self.orientation, &at("orientation"))?;
        let mass_properties = MassProperties::new(self.mass, self.center_of_mass, self.inertia)
            .map_err(|e| invalid(&at("mass_properties"), e.to_string()))?;
        let linear_damping = check_damping("linear", self.linear_damping)
            .map_err(|e| invalid(&at("linear_damping"), e.to_string()))?;
        let angular_damping = check_damping("angular", self.angular_damping)
            .map_err(|e| invalid(&at("angular_damping"), e.to_string()))?;
        let kind = match self.kind {
            KindRecord::Dynamic => BodyKind::Dynamic,
            KindRecord::Kinematic => BodyKind::Kinematic,
            KindRecord::Static => BodyKind::Static,
        };
        if kind == BodyKind::Static
            && (self.linear_velocity != Vec3::ZERO || self.angular_velocity != Vec3::ZERO)
        {
            return Err(invalid(&at("velocity"), "a static body cannot move"));
        }
        let mut body = RigidBody {
            velocity: Velocity {
                linear: self.linear_velocity,
                angular: self.angular_velocity,
            },
            inverse_mass: 0.0,
            inverse_inertia_body: Mat3::ZERO,
            position: self.position,
            orientation: self.orientation,
            force: self.force,
            torque: self.torque,
            kind,
            mass_properties,
            gravity_enabled: self.gravity_enabled,
            linear_damping,
            angular_damping,
            gyroscopic_mode: match self.gyroscopic_mode {
                GyroscopicRecord::None => GyroscopicMode::None,
                GyroscopicRecord::Explicit => GyroscopicMode::Explicit,
                GyroscopicRecord::Implicit => GyroscopicMode::Implicit,
                GyroscopicRecord::Conserving => GyroscopicMode::Conserving,
            },
            orientation_update: match self.orientation_update {
                OrientationUpdateRecord::Linear => OrientationUpdate::Linear,
                OrientationUpdateRecord::ExponentialMap => OrientationUpdate::ExponentialMap,
            },
            ccd: self.ccd,
        };
        // The inverses follow from the kind and mass properties; stored ones that disagree
        // were not written by this engine.
        body.refresh_inverse_mass();
        if body.inverse_mass.to_bits() != self.inverse_mass.to_bits()
            || body.inverse_inertia_body != self.inverse_inertia_body
        {
            return Err(invalid(
                &at("inverse_mass"),
                "does not match the body's kind and mass properties",
            ));
        }
        Ok(body)
    }
}

/// The geometry a crafted file could make poisonous: a half-space needs a unit normal,
/// every other shape finite bounds with some extent (a bounded box of its parts for a
/// compound).
fn check_shape(shape: &SharedShape, field: &str) -> Result<(), SnapshotError> {
    if let Some(plane) = shape.as_halfspace() {
        let n = plane.normal;
        return if n.is_finite() && (n.length() - 1.0).abs() <= 1e-9 {
            Ok(())
        } else {
            Err(invalid(field, "a half-space needs a finite unit normal"))
        };
    }
    let aabb = shape.compute_local_aabb();
    let extents = aabb.maxs - aabb.mins;
    let finite = aabb.mins.is_finite() && aabb.maxs.is_finite();
    if finite && extents.min_element() >= 0.0 && extents.max_element() > 0.0 {
        Ok(())
    } else {
        Err(invalid(
            field,
            "the shape's bounds are not finite or have no extent",
        ))
    }
}

/// A unit quaternion to round-off (as every pose update leaves it).
pub(crate) fn check_unit_quaternion(q: Quat, field: &str) -> Result<(), SnapshotError> {
    if q.is_finite() && (q.length() - 1.0).abs() <= 1e-9 {
        Ok(())
    } else {
        Err(invalid(field, "must be a finite unit quaternion"))
    }
}

#[derive(Serialize, Deserialize)]
pub(crate) struct MaterialRecord {
    friction: f64,
    restitution: f64,
    /// Absent in snapshots written before per-material thresholds (read as `None`).
    #[serde(default)]
    restitution_threshold: Option<f64>,
    softness: Option<SoftnessRecord>,
}

impl MaterialRecord {
    pub(crate) fn of(material: &Material) -> Self {
        let Material {
            friction,
            restitution,
            restitution_threshold,
            softness,
        } = material;
        Self {
            friction: *friction,
            restitution: *restitution,
            restitution_threshold: *restitution_threshold,
            softness: softness.map(Into::into),
        }
    }

    pub(crate) fn restore(self, field: &str) -> Result<Material, SnapshotError> {
        let material = Material {
            friction: self.friction,
            restitution: self.restitution,
            restitution_threshold: self.restitution_threshold,
            softness: self.softness.map(Into::into),
        };
        material
            .validate()
            .map_err(|e| invalid(field, e.to_string()))?;
        Ok(material)
    }
}

#[derive(Serialize, Deserialize)]
pub(crate) struct ColliderRecord {
    /// parry's own serialisation: the shape exactly as built (convex hulls and meshes keep
    /// their vertex and face order, so feature ids and contact persistence carry over).
    shape: SharedShape,
    body: Option<HandleRecord>,
    position: Vec3,
    orientation: Quat,
    shape_frame: Quat,
    material: MaterialRecord,
    groups: (u32, u32),
    enabled: bool,
    user_data: u64,
    /// Absent from files written before sensors existed: a solid collider.
    #[serde(default)]
    sensor: bool,
}

impl ColliderRecord {
    pub(crate) fn of(collider: &Collider) -> Self {
        let Collider {
            shape,
            body,
            local_pose,
            shape_frame,
            material,
            groups,
            enabled,
            user_data,
            sensor,
        } = collider;
        Self {
            shape: shape.clone(),
            body: body.map(HandleRecord::of),
            position: local_pose.position,
            orientation: local_pose.orientation,
            shape_frame: *shape_frame,
            material: MaterialRecord::of(material),
            groups: (groups.memberships, groups.filter),
            enabled: *enabled,
            user_data: *user_data,
            sensor: *sensor,
        }
    }

    /// The collider; `bodies` lists the live body slots with their generations.
    pub(crate) fn restore(
        self,
        field: &str,
        bodies: &[Option<u32>],
    ) -> Result<Collider, SnapshotError> {
        let at = |name: &str| format!("{field}.{name}");
        if let Some(body) = self.body {
            check_handle(bodies, body, &at("body"))?;
        }
        if !self.position.is_finite() {
            return Err(invalid(&at("position"), "must be finite"));
        }
        check_unit_quaternion(self.orientation, &at("orientation"))?;
        check_unit_quaternion(self.shape_frame, &at("shape_frame"))?;
        check_shape(&self.shape, &at("shape"))?;
        if let Some(compound) = self.shape.as_compound() {
            if compound
                .shapes()
                .iter()
                .any(|(_, s)| s.as_composite_shape().is_some())
            {
                return Err(invalid(
                    &at("shape"),
                    "a compound part cannot itself be composite",
                ));
            }
        }
        Ok(Collider {
            shape: self.shape,
            body: self.body.map(HandleRecord::handle),
            local_pose: Pose {
                position: self.position,
                orientation: self.orientation,
            },
            shape_frame: self.shape_frame,
            material: self.material.restore(&at("material"))?,
            groups: CollisionGroups::new(self.groups.0, self.groups.1),
            enabled: self.enabled,
            user_data: self.user_data,
            sensor: self.sensor,
        })
    }
}
