//! Colliders: a parry shape fixed to a body at an offset, or to the static world.
//!
//! Shapes are parry's ([`SharedShape`]): sphere, box, capsule, cylinder, cone, convex hull,
//! triangle mesh, heightfield, half-space, compound, or anything else parry offers through
//! [`ColliderBuilder::new`]. The convenience constructors validate their dimensions and put
//! axial shapes on the collider's **z** axis (parry builds cylinders and cones along y and
//! heightfields over the x-z plane; the engine is z-up, and so are the axial shapes of
//! [`crate::MassProperties`]).
//!
//! A body may carry any number of colliders, each at its own pose in the body frame (whose
//! origin is the centre of mass). A collider attached to no body belongs to the static
//! world, at its pose in the world frame.
//!
//! A **sensor** ([`ColliderBuilder::sensor`], [`Collider::set_sensor`]) makes no contacts:
//! it exerts no force and changes no motion, but the world tracks which colliders its shape
//! intersects ([`crate::World::sensor_overlaps`], [`crate::World::sensor_events`];
//! docs/events.md).

use crate::collision::CollisionGroups;
use crate::contact::Material;
use crate::error::WorldError;
use crate::handles::BodyHandle;
use crate::math::{Quat, Vec3};
use crate::parry::math::Pose as ParryPose;
use crate::parry::shape::SharedShape;
use crate::parry::utils::Array2;
use crate::rows::Pose;
use std::f64::consts::FRAC_PI_2;

/// A shape with a material and collision groups, attached to a body or to the static world.
#[derive(Debug, Clone)]
pub struct Collider {
    pub(crate) shape: SharedShape,
    pub(crate) body: Option<BodyHandle>,
    pub(crate) local_pose: Pose,
    /// Rotation from the collider frame to parry's frame of the shape (z-up convenience).
    pub(crate) shape_frame: Quat,
    pub(crate) material: Material,
    pub(crate) groups: CollisionGroups,
    pub(crate) enabled: bool,
    pub(crate) user_data: u64,
    /// A sensor: overlaps tracked, no contacts.
    pub(crate) sensor: bool,
}

impl Collider {
    /// The shape (parry's).
    pub fn shape(&self) -> &SharedShape {
        &self.shape
    }

    /// The body carrying it, or `None` for static world geometry.
    pub fn body(&self) -> Option<BodyHandle> {
        self.body
    }

    /// Pose in the body frame (or in the world frame for world geometry).
    pub fn local_pose(&self) -> Pose {
        self.local_pose
    }

    /// Moves the collider within its body (or in the world); the pose must be finite.
    pub fn set_local_pose(&mut self, pose: Pose) -> Result<(), WorldError> {
        self.local_pose = checked_pose(pose)?;
        Ok(())
    }

    /// The surface material.
    pub fn material(&self) -> Material {
        self.material
    }

    /// Replaces the material (validated).
    pub fn set_material(&mut self, material: Material) -> Result<(), WorldError> {
        material.validate()?;
        self.material = material;
        Ok(())
    }

    /// The collision groups.
    pub fn groups(&self) -> CollisionGroups {
        self.groups
    }

    /// Replaces the collision groups.
    pub fn set_groups(&mut self, groups: CollisionGroups) {
        self.groups = groups;
    }

    /// Whether the collider takes part in collision detection (default `true`).
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Enables or disables the collider.
    pub fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
    }

    /// A number the user attached (default 0), handed to the contact hook.
    pub fn user_data(&self) -> u64 {
        self.user_data
    }

    /// Sets the user number.
    pub fn set_user_data(&mut self, user_data: u64) {
        self.user_data = user_data;
    }

    /// Whether the collider is a sensor (default `false`): it makes no contacts (no force,
    /// no effect on any motion), and the colliders its shape intersects are reported
    /// instead ([`crate::World::sensor_overlaps`], [`crate::World::sensor_events`]).
    pub fn is_sensor(&self) -> bool {
        self.sensor
    }

    /// Makes the collider a sensor or a solid collider again, from the next step on. Its
    /// contact pairs then stop touching (or its overlaps end) in that step's events, and
    /// the other kind begins if the shapes meet. A body asleep on a collider that turns
    /// solid stays asleep until something wakes it.
    pub fn set_sensor(&mut self, sensor: bool) {
        self.sensor = sensor;
    }

    /// The pose of parry's shape frame ([`Self::shape`]) given the pose of the body
    /// (identity for world geometry): the collider's local pose and, for shapes parry builds
    /// along y (cylinders, cones, heightfields), the turn onto the collider's z axis. Pass
    /// it to parry's queries to test [`Self::shape`] where the engine sees it.
    #[inline(always)]
    pub fn shape_pose(&self, body: &Pose) -> ParryPose {
        let rotation = body.orientation * self.local_pose.orientation * self.shape_frame;
        ParryPose::from_parts(body.transform_point(self.local_pose.position), rotation)
    }
}

/// Describes a collider for [`crate::World::add_collider`].
#[derive(Debug, Clone)]
pub struct ColliderBuilder {
    shape: SharedShape,
    local_pose: Pose,
    shape_frame: Quat,
    material: Material,
    groups: CollisionGroups,
    enabled: bool,
    user_data: u64,
    sensor: bool,
}

impl ColliderBuilder {
    /// A collider of any parry shape, in parry's own axes, at the identity pose, with the
    /// default material and groups. Composite shapes nested inside a compound are refused
    /// by [`crate::World::add_collider`].
    pub fn new(shape: SharedShape) -> Self {
        Self {
            shape,
            local_pose: Pose::IDENTITY,
            shape_frame: Quat::IDENTITY,
            material: Material::DEFAULT,
            groups: CollisionGroups::ALL,
            enabled: true,
            user_data: 0,
            sensor: false,
        }
    }

    /// A sphere of radius `radius` (m, finite, `> 0`).
    pub fn ball(radius: f64) -> Result<Self, WorldError> {
        dimension("radius", radius)?;
        Ok(Self::new(SharedShape::ball(radius)))
    }

    /// A box of half extents `half_extents` (m, each finite and `> 0`).
    pub fn cuboid(half_extents: Vec3) -> Result<Self, WorldError> {
        dimension("half_extents.x", half_extents.x)?;
        dimension("half_extents.y", half_extents.y)?;
        dimension("half_extents.z", half_extents.z)?;
        Ok(Self::new(SharedShape::cuboid(
            half_extents.x,
            half_extents.y,
            half_extents.z,
        )))
    }

    /// A capsule along z: the segment from `-half_height` to `+half_height` swept by a ball
    /// of `radius` (m, finite, `> 0`).
    pub fn capsule(half_height: f64, radius: f64) -> Result<Self, WorldError> {
        dimension("half_height", half_height)?;
        dimension("radius", radius)?;
        Ok(Self::new(SharedShape::capsule_z(half_height, radius)))
    }

    /// A cylinder along z of half height `half_height` and radius `radius` (m).
    pub fn cylinder(half_height: f64, radius: f64) -> Result<Self, WorldError> {
        dimension("half_height", half_height)?;
        dimension("radius", radius)?;
        Ok(Self::new(SharedShape::cylinder(half_height, radius)).z_up())
    }

    /// A cone along z, base at `z = -half_height`, apex at `z = +half_height` (m).
    pub fn cone(half_height: f64, radius: f64) -> Result<Self, WorldError> {
        dimension("half_height", half_height)?;
        dimension("radius", radius)?;
        Ok(Self::new(SharedShape::cone(half_height, radius)).z_up())
    }

    /// The convex hull of `points` (collider frame, m); fails if they are not finite or
    /// span no volume.
    pub fn convex_hull(points: &[Vec3]) -> Result<Self, WorldError> {
        if !points.iter().all(|p| p.is_finite()) {
            return Err(invalid("convex hull points must be finite"));
        }
        SharedShape::convex_hull(points)
            .map(Self::new)
            .ok_or_else(|| invalid("the points span no volume, so they have no convex hull"))
    }

    /// A triangle mesh with `vertices` (m) and triangles of vertex `indices`. Meant for
    /// static geometry: it collides with convex shapes, heightfields and compounds, but
    /// two meshes do not collide with each other.
    pub fn trimesh(vertices: Vec<Vec3>, indices: Vec<[u32; 3]>) -> Result<Self, WorldError> {
        if !vertices.iter().all(|p| p.is_finite()) {
            return Err(invalid("mesh vertices must be finite"));
        }
        let count = vertices.len();
        if indices.iter().flatten().any(|&i| i as usize >= count) {
            return Err(invalid("a mesh index is out of the vertex range"));
        }
        SharedShape::trimesh(vertices, indices)
            .map(Self::new)
            .map_err(|_| invalid("the mesh has no triangles or is degenerate"))
    }

    /// A heightfield over the collider's x-y plane with heights along z: `heights` has
    /// `rows * cols` entries, row-major, row `i` at `x = (i / (rows - 1) - 1/2) * scale.x`
    /// and column `j` at `y = (j / (cols - 1) - 1/2) * scale.y`; entry `(i, j)` is the
    /// height `scale.z * heights[i * cols + j]` (m). At least 2 x 2 samples.
    pub fn heightfield(
        rows: usize,
        cols: usize,
        heights: &[f64],
        scale: Vec3,
    ) -> Result<Self, WorldError> {
        if rows < 2 || cols < 2 || heights.len() != rows.saturating_mul(cols) {
            return Err(invalid(
                "a heightfield needs rows * cols heights, with at least 2 x 2 samples",
            ));
        }
        if !heights.iter().all(|h| h.is_finite()) {
            return Err(invalid("heights must be finite"));
        }
        dimension("scale.x", scale.x)?;
        dimension("scale.y", scale.y)?;
        dimension("scale.z", scale.z)?;
        // parry: heights along y over its x-z plane, Array2 entry (r, c) (column-major) at
        // z = z_at(r), x = x_at(c). A quarter turn about x maps parry's (x, y, z) to the
        // collider's (x, -z, y): parry's columns are our rows (x), parry's rows our
        // columns in reverse (parry z = -y), parry's y our height.
        let mut data = Vec::with_capacity(heights.len());
        for i in 0..rows {
            for j in (0..cols).rev() {
                data.push(heights[i * cols + j]);
            }
        }
        let parry_scale = Vec3::new(scale.x, scale.z, scale.y);
        let shape = SharedShape::heightfield(Array2::new(cols, rows, data), parry_scale);
        Ok(Self::new(shape).z_up())
    }

    /// The half-space below the plane through the collider origin with unit outward
    /// normal `normal` (the solid side is `normal . x <= 0`, collider frame).
    pub fn halfspace(normal: Vec3) -> Result<Self, WorldError> {
        if !(normal.is_finite() && (normal.length() - 1.0).abs() <= 1e-9) {
            return Err(invalid("a half-space needs a unit outward normal"));
        }
        Ok(Self::new(SharedShape::halfspace(normal)))
    }

    /// A compound of `parts`, each a pose in the collider frame and a convex (or other
    /// non-composite) shape. One collider, one material; use several colliders on a body
    /// for parts with different materials.
    pub fn compound(parts: Vec<(Pose, SharedShape)>) -> Result<Self, WorldError> {
        if parts.is_empty() {
            return Err(invalid("a compound needs at least one part"));
        }
        let mut converted = Vec::with_capacity(parts.len());
        for (pose, shape) in parts {
            checked_pose(pose)?;
            if shape.as_composite_shape().is_some() {
                return Err(invalid("a compound part cannot itself be composite"));
            }
            converted.push((
                ParryPose::from_parts(pose.position, pose.orientation),
                shape,
            ));
        }
        Ok(Self::new(SharedShape::compound(converted)))
    }

    /// Places the collider at `position` in the body frame (world frame for world geometry).
    pub fn position(mut self, position: Vec3) -> Self {
        self.local_pose.position = position;
        self
    }

    /// Orients the collider by `rotation` relative to the body (normalised when added).
    pub fn rotation(mut self, rotation: Quat) -> Self {
        self.local_pose.orientation = rotation;
        self
    }

    /// Sets the whole pose.
    pub fn pose(mut self, pose: Pose) -> Self {
        self.local_pose = pose;
        self
    }

    /// The surface material.
    pub fn material(mut self, material: Material) -> Self {
        self.material = material;
        self
    }

    /// The friction coefficient of the material.
    pub fn friction(mut self, friction: f64) -> Self {
        self.material.friction = friction;
        self
    }

    /// The restitution of the material.
    pub fn restitution(mut self, restitution: f64) -> Self {
        self.material.restitution = restitution;
        self
    }

    /// Collision groups.
    pub fn groups(mut self, groups: CollisionGroups) -> Self {
        self.groups = groups;
        self
    }

    /// Whether the collider starts enabled.
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// A number handed to the contact hook.
    pub fn user_data(mut self, user_data: u64) -> Self {
        self.user_data = user_data;
        self
    }

    /// Whether the collider is a sensor (default `false`; see [`Collider::is_sensor`]):
    /// it makes no contacts, and the colliders its shape intersects are reported by
    /// [`crate::World::sensor_overlaps`] and [`crate::World::sensor_events`]. A sensor adds
    /// no mass (no collider does: a body's mass properties are its own).
    ///
    /// ```
    /// use stiction::math::Vec3;
    /// use stiction::{ColliderBuilder, MassProperties, RigidBodyBuilder, World};
    ///
    /// let mut world = World::new();
    /// // A 1 m trigger box around the origin, part of the static world.
    /// let zone = world.add_collider(
    ///     ColliderBuilder::cuboid(Vec3::splat(0.5))?.sensor(true),
    ///     None,
    /// )?;
    /// let ball = world.add_body(
    ///     RigidBodyBuilder::dynamic()
    ///         .mass_properties(MassProperties::sphere_with_mass(0.1, 1.0)?)
    ///         .position(Vec3::new(0.0, 0.0, 2.0))
    ///         .build()?,
    /// );
    /// let shape = world.add_collider(ColliderBuilder::ball(0.1)?, Some(ball))?;
    /// let mut entered = None;
    /// for step in 1..=60 {
    ///     world.step(1.0 / 60.0)?;
    ///     if !world.sensor_events().is_empty() && entered.is_none() {
    ///         entered = Some(step);
    ///     }
    /// }
    /// // The ball fell into the box (and through it: a sensor does not stop it).
    /// assert!(entered.is_some());
    /// assert!(world.body(ball)?.position().z < -1.0);
    /// assert!(world.sensor_overlaps(zone)?.iter().all(|o| o.other != shape));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sensor(mut self, sensor: bool) -> Self {
        self.sensor = sensor;
        self
    }

    /// Turns parry's y-axis shapes to the collider's z axis.
    fn z_up(mut self) -> Self {
        self.shape_frame = Quat::from_rotation_x(FRAC_PI_2);
        self
    }

    /// Validates and builds the collider for `body`.
    pub(crate) fn build(self, body: Option<BodyHandle>) -> Result<Collider, WorldError> {
        self.material.validate()?;
        let local_pose = checked_pose(self.local_pose)?;
        if let Some(compound) = self.shape.as_compound() {
            if compound
                .shapes()
                .iter()
                .any(|(_, s)| s.as_composite_shape().is_some())
            {
                return Err(invalid("a compound part cannot itself be composite"));
            }
        }
        Ok(Collider {
            shape: self.shape,
            body,
            local_pose,
            shape_frame: self.shape_frame,
            material: self.material,
            groups: self.groups,
            enabled: self.enabled,
            user_data: self.user_data,
            sensor: self.sensor,
        })
    }
}

fn checked_pose(pose: Pose) -> Result<Pose, WorldError> {
    let q = pose.orientation;
    if !(pose.position.is_finite() && q.is_finite() && q.length() > 0.0) {
        return Err(invalid(
            "a collider pose must be finite, its rotation non-zero",
        ));
    }
    Ok(Pose {
        position: pose.position,
        orientation: q.normalize(),
    })
}

fn dimension(name: &'static str, value: f64) -> Result<(), WorldError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(WorldError::InvalidSetting {
            name,
            value,
            rule: "a shape dimension must be finite and > 0",
        })
    }
}

fn invalid(reason: &'static str) -> WorldError {
    WorldError::InvalidCollider { reason }
}
