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
    BallJoint, BodyHandle, ColliderBuilder, ContactCandidate, ContactHook, FixedJoint, HingeJoint,
    HookAction, JointBuilder, MassProperties, Material, Pose, RigidBodyBuilder, SliderJoint, World,
};

use crate::desc::{GeomDesc, JointType, LinkDesc, ModelDesc, Shape};
use crate::error::{Location, ModelError};
use crate::options::{Base, LoadOptions, HOLD_FORCE};
use crate::{Format, JointInfo, LoadedModel};

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
    warnings: Vec<crate::Warning>,
) -> Result<LoadedModel, ModelError> {
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
    for (i, link) in links.iter().enumerate() {
        let body_pose = inverse(&body_zero[i]);
        let is_static = role[i] == Role::Static;
        for geom in &link.geoms {
            let pose = compose(&body_pose, &compose(&zero[i], &geom.pose));
            add_collider(world, geom, pose, body_of[i], is_static)?;
        }
    }
    for geom in &desc.world_geoms {
        let pose = compose(&options.base_pose, &geom.pose);
        add_collider(world, geom, pose, None, true)?;
    }
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
                } else if joint.friction > 0.0 {
                    // A velocity motor of target 0 bounded by the friction torque is Coulomb
                    // joint friction: it sticks below the bound and slips above it.
                    Some(JointMotor::new(0.0, joint.friction))
                } else {
                    None
                };
                let motor = motor.transpose().map_err(|e| physics(&joint.at, e))?;
                Ok(AxisControl { limit, motor })
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
    let mut excluded_pairs: Vec<_> = pairs.into_iter().collect();
    excluded_pairs.sort();
    if options.filter_adjacent_links && !excluded_pairs.is_empty() {
        world.set_contact_hook(contact_filter(excluded_pairs.clone()));
    }
    Ok(LoadedModel {
        name: desc.name,
        format,
        links: link_handles,
        joints,
        joint_info,
        excluded_pairs,
        warnings,
    })
}

fn add_collider(
    world: &mut World,
    geom: &GeomDesc,
    pose: Pose,
    body: Option<BodyHandle>,
    is_static: bool,
) -> Result<(), ModelError> {
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
    world.add_collider(builder.pose(pose), body).map_err(err)?;
    Ok(())
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
    let pairs: HashSet<(BodyHandle, BodyHandle)> =
        pairs.into_iter().map(|(a, b)| ordered(a, b)).collect();
    move |contact: &mut ContactCandidate| match contact.geometry().bodies {
        [Some(a), Some(b)] if pairs.contains(&ordered(a, b)) => HookAction::Reject,
        _ => HookAction::Keep,
    }
}
