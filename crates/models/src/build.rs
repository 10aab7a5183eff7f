//! Turns a [`ModelDesc`] into engine bodies, colliders and joints.
//!
//! Frames: the engine keeps a dynamic body's frame at its centre of mass, with the axes of
//! the frame its inertia is given in. Each moving link therefore becomes a body at
//! `link pose * centre of mass`, with the link's axes; its colliders and joint anchors are
//! re-expressed relative to that point. Static links keep the link frame.

use std::collections::{BTreeMap, HashSet};

use stiction::joint::{AxisControl, JointLimit, JointMotor};
use stiction::math::{Quat, Vec3};
use stiction::{
    AxisDynamics, BallJoint, BodyHandle, ColliderBuilder, ColliderHandle, ContactCandidate,
    ContactHook, FixedJoint, HingeJoint, HookAction, JointBuilder, JointServo, MassProperties,
    Material, Pose, RigidBodyBuilder, SliderJoint, World,
};

use crate::desc::{ActuatorKind, GeomDesc, JointType, LinkDesc, ModelDesc, Shape};
use crate::error::{Location, ModelError, WarningKind};
use crate::options::{Base, LoadOptions, HOLD_FORCE};
use crate::{ActuatorInfo, Format, JointInfo, LoadedModel};

/// `a * b`: the frame `b` given in frame `a`, expressed where `a` is.
pub(crate) fn compose(a: &Pose, b: &Pose) -> Pose {
    Pose {
        position: a.position + a.orientation * b.position,
        orientation: (a.orientation * b.orientation).normalize(),
    }
}

/// The inverse frame.
fn inverse(a: &Pose) -> Pose {
    let orientation = a.orientation.inverse();
    Pose {
        position: -(orientation * a.position),
        orientation,
    }
}

/// The motion of a link relative to its zero pose for joint value `q`, in its own frame.
fn motion(link: &LinkDesc, q: f64) -> Pose {
    match &link.joint {
        Some(j) if j.kind == JointType::Hinge => {
            let rotation = Quat::from_axis_angle(j.axis, q);
            Pose {
                position: j.anchor - rotation * j.anchor,
                orientation: rotation,
            }
        }
        Some(j) if j.kind == JointType::Slider => Pose {
            position: j.axis * q,
            orientation: Quat::IDENTITY,
        },
        _ => Pose::IDENTITY,
    }
}

fn physics(at: &Location, e: impl std::fmt::Display) -> ModelError {
    ModelError::Physics {
        at: at.clone(),
        message: e.to_string(),
    }
}

/// How each link reaches the engine.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Static,
    Dynamic,
    /// Massless and welded: its geometry joins the body of link `.0`.
    Merged(usize),
}

/// Builds `desc` into `world`.
pub(crate) fn build(
    world: &mut World,
    desc: ModelDesc,
    format: Format,
    options: &LoadOptions,
    mut warnings: Vec<crate::Warning>,
) -> Result<LoadedModel, ModelError> {
    let mut desc = desc;
    give_mass_to_moving_massless_links(&mut desc, &mut warnings);
    let links = &desc.links;
    // Initial joint values, by link.
    let mut q = vec![0.0; links.len()];
    for (name, value) in &options.joint_positions {
        let i = links
            .iter()
            .position(|l| l.joint.as_ref().is_some_and(|j| &j.name == name))
            .ok_or_else(|| ModelError::Options {
                message: format!(
                    "joint_positions names joint \"{name}\", which the model does not have"
                ),
            })?;
        let kind = links[i].joint.as_ref().map(|j| j.kind);
        if !matches!(kind, Some(JointType::Hinge | JointType::Slider)) || !value.is_finite() {
            return Err(ModelError::Options {
                message: format!(
                    "joint_positions: joint \"{name}\" takes no single finite value (got {value})"
                ),
            });
        }
        q[i] = *value;
    }
    // Link poses in the world at the zero and at the initial configuration.
    let mut zero: Vec<Pose> = Vec::with_capacity(links.len());
    let mut initial: Vec<Pose> = Vec::with_capacity(links.len());
    for (i, link) in links.iter().enumerate() {
        let (p0, p1) = match link.parent {
            Some(p) => (zero[p], initial[p]),
            None => (options.base_pose, options.base_pose),
        };
        zero.push(compose(&p0, &link.frame));
        initial.push(compose(&compose(&p1, &link.frame), &motion(link, q[i])));
    }
    // Which links are static, dynamic or merged into their parent.
    let mut role = Vec::with_capacity(links.len());
    for link in links {
        let parent_static = link.parent.is_none_or(|p| role[p] == Role::Static);
        let r = match link.joint.as_ref().map(|j| j.kind) {
            None => {
                let fixed = match options.base {
                    Base::Fixed => true,
                    Base::Floating => false,
                    Base::FromFile => format == Format::Urdf,
                };
                if fixed {
                    Role::Static
                } else {
                    Role::Dynamic
                }
            }
            Some(JointType::Fixed) if parent_static => Role::Static,
            Some(JointType::Fixed) if link.mass.is_none() => {
                let p = link
                    .parent
                    .expect("a welded link off the world has a parent");
                match role[p] {
                    Role::Merged(body) => Role::Merged(body),
                    _ => Role::Merged(p),
                }
            }
            Some(_) => Role::Dynamic,
        };
        if r == Role::Dynamic && link.mass.is_none() {
            let what = match &link.joint {
                Some(j) => format!("joint \"{}\" moves it", j.name),
                None => "it is the floating base".to_string(),
            };
            return Err(ModelError::Physics {
                at: link.at.clone(),
                message: format!(
                    "link \"{}\" has no mass (no <inertial>, or mass 0) but {what}: give it an inertial",
                    link.name
                ),
            });
        }
        role.push(r);
    }
    // Bodies, and each body's pose at the zero configuration (the frame joints and
    // colliders are described in).
    let mut body_of: Vec<Option<BodyHandle>> = vec![None; links.len()];
    let mut body_zero: Vec<Pose> = vec![Pose::IDENTITY; links.len()];
    for (i, link) in links.iter().enumerate() {
        match role[i] {
            Role::Static => {
                let body = RigidBodyBuilder::static_body()
                    .position(initial[i].position)
                    .orientation(initial[i].orientation)
                    .build()
                    .map_err(|e| physics(&link.at, e))?;
                body_of[i] = Some(world.add_body(body));
                body_zero[i] = zero[i];
            }
            Role::Dynamic => {
                let mass = link.mass.expect("checked above");
                let center = Pose {
                    position: mass.center(),
                    orientation: Quat::IDENTITY,
                };
                let properties = MassProperties::new(mass.mass(), Vec3::ZERO, mass.inertia())
                    .map_err(|e| physics(&link.at, e))?;
                let start = compose(&initial[i], &center);
                let body = RigidBodyBuilder::dynamic()
                    .mass_properties(properties)
                    .position(start.position)
                    .orientation(start.orientation)
                    .build()
                    .map_err(|e| physics(&link.at, e))?;
                body_of[i] = Some(world.add_body(body));
                body_zero[i] = compose(&zero[i], &center);
            }
            Role::Merged(owner) => {
                body_of[i] = body_of[owner];
                body_zero[i] = body_zero[owner];
            }
        }
    }
    // Colliders: each geom's pose relative to its body, from the zero configuration.
    let mut collision_masks = BTreeMap::new();
    for (i, link) in links.iter().enumerate() {
        let body_pose = inverse(&body_zero[i]);
        let is_static = role[i] == Role::Static;
        for geom in &link.geoms {
            let pose = compose(&body_pose, &compose(&zero[i], &geom.pose));
            let handle = add_collider(world, geom, pose, body_of[i], is_static)?;
            if let Some(masks) = geom.masks {
                collision_masks.insert(handle, masks);
            }
        }
    }
    for geom in &desc.world_geoms {
        let pose = compose(&options.base_pose, &geom.pose);
        let handle = add_collider(world, geom, pose, None, true)?;
        if let Some(masks) = geom.masks {
            collision_masks.insert(handle, masks);
        }
    }
    let servos = servos(&desc, options, &q)?;
    // Joints, built at the zero configuration so that joint value 0 is the file's zero.
    let mut joints = BTreeMap::new();
    let mut joint_info = BTreeMap::new();
    let mut pairs: HashSet<(BodyHandle, BodyHandle)> = HashSet::new();
    for (i, link) in links.iter().enumerate() {
        let Some(joint) = &link.joint else { continue };
        let a = body_of[i].expect("every link has a body");
        let b = link.parent.and_then(|p| body_of[p]);
        if let Some(b) = b {
            if a != b && joint.kind != JointType::Free {
                pairs.insert(ordered(a, b));
            }
        }
        let mut info = JointInfo {
            handle: None,
            kind: joint.kind,
            limit: joint.limit,
            effort: joint.effort,
            friction: joint.friction,
            damping: joint.damping,
            servo: servos.get(&joint.name).copied(),
        };
        let skip =
            matches!(role[i], Role::Static | Role::Merged(_)) || joint.kind == JointType::Free;
        if !skip {
            let pose_a = body_zero[i];
            let pose_b = link.parent.map_or(Pose::IDENTITY, |p| body_zero[p]);
            let anchor = zero[i].transform_point(joint.anchor);
            let axis = zero[i].rotate(joint.axis);
            let err = |e: stiction::WorldError| physics(&joint.at, e);
            let control = || -> Result<AxisControl, ModelError> {
                let limit = match joint.limit {
                    Some((lo, hi)) => {
                        Some(JointLimit::new(lo, hi).map_err(|e| physics(&joint.at, e))?)
                    }
                    None => None,
                };
                let motor = if options.hold_joints {
                    Some(JointMotor::new(0.0, joint.effort.unwrap_or(HOLD_FORCE)))
                } else {
                    None
                };
                let motor = motor.transpose().map_err(|e| physics(&joint.at, e))?;
                Ok(AxisControl { limit, motor })
            };
            let dynamics = AxisDynamics::default()
                .with_friction(joint.friction)
                .and_then(|d| d.with_damping(joint.damping))
                .map_err(err)?;
            let dynamics = match servos.get(&joint.name) {
                Some(servo) => dynamics.with_servo(*servo),
                None => dynamics,
            };
            let builder = match joint.kind {
                JointType::Hinge => JointBuilder::new(
                    a,
                    b,
                    HingeJoint::at_world_axis(anchor, axis, &pose_a, &pose_b)
                        .map_err(err)?
                        .with_control(control()?),
                ),
                JointType::Slider => JointBuilder::new(
                    a,
                    b,
                    SliderJoint::along_world_axis(axis, &pose_a, &pose_b)
                        .map_err(err)?
                        .with_control(control()?),
                ),
                JointType::Fixed => JointBuilder::new(
                    a,
                    b,
                    FixedJoint::at_world_point(anchor, &pose_a, &pose_b).map_err(err)?,
                ),
                JointType::Ball => JointBuilder::new(
                    a,
                    b,
                    BallJoint::at_world_point(anchor, &pose_a, &pose_b).map_err(err)?,
                ),
                JointType::Free => unreachable!("free joints are skipped"),
            };
            let builder = if dynamics.is_none() {
                builder
            } else if matches!(joint.kind, JointType::Hinge | JointType::Slider) {
                builder.axis_dynamics(0, dynamics).map_err(err)?
            } else {
                // Ball joints: the engine's friction, damping and servos act on single axes.
                warnings.push(crate::Warning {
                    at: joint.at.clone(),
                    kind: WarningKind::NotSimulated,
                    message: format!(
                        "friction, damping and actuators of {:?} joint \"{}\" are not simulated",
                        joint.kind, joint.name
                    ),
                });
                builder
            };
            let handle = world.add_joint(builder).map_err(err)?;
            joints.insert(joint.name.clone(), handle);
            info.handle = Some(handle);
        }
        joint_info.insert(joint.name.clone(), info);
    }
    let mut link_handles = BTreeMap::new();
    for (i, link) in links.iter().enumerate() {
        link_handles.insert(
            link.name.clone(),
            body_of[i].expect("every link has a body"),
        );
    }
    for (x, y) in &options.excluded_links {
        let find = |n: &String| {
            link_handles
                .get(n)
                .copied()
                .ok_or_else(|| ModelError::Options {
                    message: format!(
                        "excluded_links names link \"{n}\", which the model does not have"
                    ),
                })
        };
        let (a, b) = (find(x)?, find(y)?);
        if a != b {
            pairs.insert(ordered(a, b));
        }
    }
    if options.filter_overlapping_links {
        let touching = overlapping_pairs(world, &link_handles, &pairs);
        if !touching.is_empty() {
            let names = |h: BodyHandle| {
                link_handles
                    .iter()
                    .find(|(_, b)| **b == h)
                    .map_or("?", |(n, _)| n.as_str())
            };
            let listed: Vec<String> = touching
                .iter()
                .map(|&(a, b)| format!("{}-{}", names(a), names(b)))
                .collect();
            warnings.push(crate::Warning {
                at: links[0].at.clone(),
                kind: WarningKind::Repaired,
                message: format!(
                    "{} pair(s) of links overlap in the initial pose and will not collide with each other: {}",
                    touching.len(),
                    listed.join(", ")
                ),
            });
            pairs.extend(touching);
        }
    }
    let mut excluded_pairs: Vec<_> = pairs.into_iter().collect();
    excluded_pairs.sort();
    // A model whose geoms all have the default masks needs none; otherwise every geom's
    // masks count, the defaults too ((1, 1) and (2, 2) never touch).
    if collision_masks.values().all(|m| *m == (1, 1)) {
        collision_masks.clear();
    }
    let pairs_to_filter = if options.filter_adjacent_links {
        excluded_pairs.clone()
    } else {
        Vec::new()
    };
    if !pairs_to_filter.is_empty() || !collision_masks.is_empty() {
        world.set_contact_hook(model_contact_filter(
            pairs_to_filter,
            collision_masks.clone(),
        ));
    }
    let actuators = desc
        .actuators
        .iter()
        .map(|a| {
            let info = ActuatorInfo {
                joint: a.joint.clone(),
                kind: a.kind,
                gear: a.gear,
                ctrl_range: a.ctrl_range,
                force_range: a.force_range,
            };
            (a.name.clone(), info)
        })
        .collect();
    Ok(LoadedModel {
        name: desc.name,
        format,
        actuators,
        timestep: desc.timestep,
        gravity: desc.gravity,
        links: link_handles,
        joints,
        joint_info,
        excluded_pairs,
        collision_masks,
        warnings,
    })
}

fn add_collider(
    world: &mut World,
    geom: &GeomDesc,
    pose: Pose,
    body: Option<BodyHandle>,
    is_static: bool,
) -> Result<ColliderHandle, ModelError> {
    let err = |e: stiction::WorldError| physics(&geom.at, e);
    let builder = match &geom.shape {
        Shape::Box(half) => ColliderBuilder::cuboid(*half).map_err(err)?,
        Shape::Sphere(r) => ColliderBuilder::ball(*r).map_err(err)?,
        Shape::Cylinder(r, hh) => ColliderBuilder::cylinder(*hh, *r).map_err(err)?,
        Shape::Capsule(r, hh) => ColliderBuilder::capsule(*hh, *r).map_err(err)?,
        Shape::Plane if is_static => ColliderBuilder::halfspace(Vec3::Z).map_err(err)?,
        Shape::Plane => {
            return Err(ModelError::Unsupported {
                at: geom.at.clone(),
                what: "a plane on a moving body (planes belong to static bodies)".into(),
            })
        }
        Shape::Mesh {
            path,
            vertices,
            triangles,
        } => {
            let built = if is_static {
                ColliderBuilder::trimesh(vertices.clone(), triangles.clone())
            } else {
                ColliderBuilder::convex_hull(vertices)
            };
            built.map_err(|e| ModelError::Mesh {
                at: geom.at.clone(),
                path: path.clone(),
                message: e.to_string(),
            })?
        }
    };
    let builder = match geom.friction {
        Some(f) => builder.material(Material::new(f, 0.0).map_err(err)?),
        None => builder,
    };
    world.add_collider(builder.pose(pose), body).map_err(err)
}

fn ordered(a: BodyHandle, b: BodyHandle) -> (BodyHandle, BodyHandle) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

/// A contact hook rejecting every contact between the bodies of one of `pairs` (order does
/// not matter): what [`LoadOptions::filter_adjacent_links`] installs, for combining the
/// pairs of several models or with a hook of your own.
pub fn contact_filter(
    pairs: impl IntoIterator<Item = (BodyHandle, BodyHandle)>,
) -> impl ContactHook + Clone {
    model_contact_filter(pairs, BTreeMap::new())
}

/// [`contact_filter`] plus MuJoCo's collision masks: two colliders both listed in `masks`
/// (as `(contype, conaffinity)`, [`crate::LoadedModel::collision_masks`]) touch only when
/// `contype_a & conaffinity_b != 0 || contype_b & conaffinity_a != 0`; colliders not
/// listed touch everything. Combine several models by merging their pairs and masks.
pub fn model_contact_filter(
    pairs: impl IntoIterator<Item = (BodyHandle, BodyHandle)>,
    masks: BTreeMap<ColliderHandle, (u32, u32)>,
) -> impl ContactHook + Clone {
    let pairs: HashSet<(BodyHandle, BodyHandle)> =
        pairs.into_iter().map(|(a, b)| ordered(a, b)).collect();
    let masks: std::collections::HashMap<ColliderHandle, (u32, u32)> = masks.into_iter().collect();
    move |contact: &mut ContactCandidate| {
        let geometry = contact.geometry();
        if let [Some(a), Some(b)] = geometry.bodies {
            if pairs.contains(&ordered(a, b)) {
                return HookAction::Reject;
            }
        }
        let [a, b] = geometry.colliders;
        match (masks.get(&a), masks.get(&b)) {
            (Some(&(type_a, affinity_a)), Some(&(type_b, affinity_b)))
                if type_a & affinity_b == 0 && type_b & affinity_a == 0 =>
            {
                HookAction::Reject
            }
            _ => HookAction::Keep,
        }
    }
}

/// The fraction of its child's mass and inertia a massless moving link receives.
pub(crate) const MASSLESS_LINK_FRACTION: f64 = 1e-3;

/// Links without mass that a joint moves (URDF chains of joints through empty "virtual"
/// links, MJCF bodies with several joints) cannot be dynamic bodies: each gets
/// [`MASSLESS_LINK_FRACTION`] of the mass and inertia of its heaviest child link, or of the
/// model's lightest link when it has no massive child, with a warning. The fraction is
/// small enough to change the model's dynamics by about that fraction and large enough
/// for the solver's mass ratios.
fn give_mass_to_moving_massless_links(desc: &mut ModelDesc, warnings: &mut Vec<crate::Warning>) {
    let moving = |l: &LinkDesc| {
        l.joint
            .as_ref()
            .is_some_and(|j| !matches!(j.kind, JointType::Fixed | JointType::Free))
    };
    let lightest = desc
        .links
        .iter()
        .filter_map(|l| l.mass)
        .min_by(|a, b| a.mass().total_cmp(&b.mass()));
    // Children come after parents: fill from the leaves so chains of massless links inherit.
    for i in (0..desc.links.len()).rev() {
        if desc.links[i].mass.is_some() || !moving(&desc.links[i]) {
            continue;
        }
        let heaviest_child = desc
            .links
            .iter()
            .filter(|l| l.parent == Some(i))
            .filter_map(|l| l.mass.map(|m| (l.name.clone(), m)))
            .max_by(|a, b| a.1.mass().total_cmp(&b.1.mass()));
        let (from, source) = match (heaviest_child, lightest) {
            (Some((name, m)), _) => (format!("its child \"{name}\""), m),
            (None, Some(m)) => ("the model's lightest link".to_string(), m),
            (None, None) => continue,
        };
        let k = MASSLESS_LINK_FRACTION;
        let Ok(mass) = MassProperties::new(source.mass() * k, Vec3::ZERO, source.inertia() * k)
        else {
            continue;
        };
        let link = &mut desc.links[i];
        let joint = link.joint.as_ref().map_or("", |j| j.name.as_str());
        warnings.push(crate::Warning {
            at: link.at.clone(),
            kind: WarningKind::Repaired,
            message: format!(
                "link \"{}\" has no mass but joint \"{joint}\" moves it: given {k} of the mass and inertia of {from} ({:.3e} kg)",
                link.name,
                mass.mass()
            ),
        });
        link.mass = Some(mass);
    }
}

/// The servo of each joint: from the file's position and velocity actuators, else from
/// [`LoadOptions::position_servos`]. A position servo's target is the joint's initial
/// value, so a loaded robot holds the pose it was placed in.
fn servos(
    desc: &ModelDesc,
    options: &LoadOptions,
    q: &[f64],
) -> Result<BTreeMap<String, JointServo>, ModelError> {
    let mut out: BTreeMap<String, JointServo> = BTreeMap::new();
    let initial = |name: &str| {
        desc.links
            .iter()
            .position(|l| l.joint.as_ref().is_some_and(|j| j.name == name))
            .map_or(0.0, |i| q[i])
    };
    for a in &desc.actuators {
        let bad = |e: stiction::WorldError| physics(&a.at, e);
        // A gear g makes the actuator length g q and the joint force g f: gains scale by g^2.
        let g2 = a.gear * a.gear;
        let (kp, kv) = match a.kind {
            ActuatorKind::Position { kp, kv } => (kp * g2, kv * g2),
            ActuatorKind::Velocity { kv } => (0.0, kv * g2),
            ActuatorKind::Motor => continue,
        };
        let previous = out.get(&a.joint).copied();
        let stiffness = kp + previous.map_or(0.0, |s| s.stiffness);
        let damping = kv + previous.map_or(0.0, |s| s.damping);
        if stiffness == 0.0 && damping == 0.0 {
            continue;
        }
        let mut servo = if stiffness > 0.0 {
            JointServo::position(initial(&a.joint), stiffness, damping)
        } else {
            JointServo::velocity(0.0, damping)
        }
        .map_err(bad)?;
        let limit = a
            .force_range
            .map(|(lo, hi)| lo.abs().max(hi.abs()) * a.gear.abs());
        if let Some(f) = limit.or(previous.map(|s| s.max_force)) {
            servo = servo.with_max_force(f).map_err(bad)?;
        }
        out.insert(a.joint.clone(), servo);
    }
    if let Some(gains) = options.position_servos {
        for (i, link) in desc.links.iter().enumerate() {
            let Some(j) = &link.joint else { continue };
            if !matches!(j.kind, JointType::Hinge | JointType::Slider) || out.contains_key(&j.name)
            {
                continue;
            }
            let bad = |e: stiction::WorldError| physics(&j.at, e);
            let mut servo =
                JointServo::position(q[i], gains.stiffness, gains.damping).map_err(bad)?;
            if let Some(effort) = j.effort.filter(|e| *e > 0.0) {
                servo = servo.with_max_force(effort).map_err(bad)?;
            }
            out.insert(j.name.clone(), servo);
        }
    }
    Ok(out)
}

/// Colliders of two links closer than this in the initial pose count as overlapping, m:
/// the contact search would already find them.
const OVERLAP_GAP: f64 = 1e-3;

/// Pairs of the model's bodies (not already excluded) whose colliders intersect (or come
/// within [`OVERLAP_GAP`]) in the initial pose. Meshes of neighbouring links often interpenetrate where they meet (a hip
/// motor housing inside the thigh), and colliding them would push the robot apart at the
/// first step; like Drake's and Isaac's importers, such pairs never collide.
fn overlapping_pairs(
    world: &World,
    links: &BTreeMap<String, BodyHandle>,
    excluded: &HashSet<(BodyHandle, BodyHandle)>,
) -> Vec<(BodyHandle, BodyHandle)> {
    use stiction::parry::bounding_volume::BoundingVolume;
    let bodies: HashSet<BodyHandle> = links.values().copied().collect();
    let mut shapes = Vec::new();
    for (_, collider) in world.colliders() {
        let Some(body) = collider.body().filter(|b| bodies.contains(b)) else {
            continue;
        };
        let Ok(pose) = world.pose(Some(body)) else {
            continue;
        };
        let pose = collider.shape_pose(&pose);
        let aabb = collider.shape().compute_aabb(&pose);
        shapes.push((body, collider.shape().clone(), pose, aabb));
    }
    let mut out: HashSet<(BodyHandle, BodyHandle)> = HashSet::new();
    for (i, (a, shape_a, pose_a, box_a)) in shapes.iter().enumerate() {
        for (b, shape_b, pose_b, box_b) in &shapes[i + 1..] {
            let pair = ordered(*a, *b);
            if a == b || excluded.contains(&pair) || out.contains(&pair) {
                continue;
            }
            let both_static = [a, b].iter().all(|h| {
                world
                    .body(**h)
                    .is_ok_and(|body| body.kind() == stiction::BodyKind::Static)
            });
            if both_static || !box_a.loosened(OVERLAP_GAP).intersects(box_b) {
                continue;
            }
            let gap = stiction::parry::query::distance(
                pose_a,
                shape_a.as_ref(),
                pose_b,
                shape_b.as_ref(),
            );
            if gap.is_ok_and(|d| d.distance <= OVERLAP_GAP) {
                out.insert(pair);
            }
        }
    }
    let mut out: Vec<_> = out.into_iter().collect();
    out.sort();
    out
}
