//! URDF: `<robot>` with `<link>`s (inertial, collision; visuals counted, not simulated) and
//! `<joint>`s (revolute, continuous, prismatic, fixed, floating; planar refused).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use roxmltree::Node;
use stiction::math::{Mat3, Vec3};
use stiction::{MassProperties, Pose};

use crate::desc::{GeomDesc, JointDesc, JointType, LinkDesc, ModelDesc, Shape};
use crate::error::{ModelError, WarningKind};
use crate::inertia;
use crate::mesh;
use crate::xml::{rpy, Source};

/// Where meshes are looked for.
pub(crate) struct MeshPaths<'a> {
    pub model_dir: &'a Path,
    pub search: &'a [PathBuf],
}

/// A joint as read, before the tree is ordered.
struct RawJoint<'a, 'input> {
    node: Node<'a, 'input>,
    parent: String,
    child: String,
    desc: JointDesc,
    origin: Pose,
}

/// Reads a `<robot>` element.
pub(crate) fn read(
    src: &mut Source,
    robot: Node,
    paths: &MeshPaths,
) -> Result<ModelDesc, ModelError> {
    src.check_attributes(robot, &["name", "version"]);
    let name = robot.attribute("name").unwrap_or("robot").to_string();
    let mut links: Vec<(Node, LinkDesc)> = Vec::new();
    let mut link_index: HashMap<String, usize> = HashMap::new();
    let mut joints: Vec<RawJoint> = Vec::new();
    for child in robot.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "link" => {
                let link = read_link(src, child, paths)?;
                if link_index.insert(link.name.clone(), links.len()).is_some() {
                    return Err(ModelError::Structure {
                        at: src.at(child),
                        message: format!("a second link named \"{}\"", link.name),
                    });
                }
                links.push((child, link));
            }
            "joint" => {
                let joint = read_joint(src, child)?;
                if joints.iter().any(|j| j.desc.name == joint.desc.name) {
                    return Err(ModelError::Structure {
                        at: src.at(child),
                        message: format!("a second joint named \"{}\"", joint.desc.name),
                    });
                }
                joints.push(joint);
            }
            "material" => src.visual(src.at(child)),
            _ => src.ignore_element(child),
        }
    }
    if links.is_empty() {
        return Err(src.missing(robot, "at least one <link>"));
    }
    // Each child link gets its one parent joint.
    let mut parent_joint: Vec<Option<usize>> = vec![None; links.len()];
    for (j, joint) in joints.iter().enumerate() {
        let find = |name: &str, attr: &str| {
            link_index.get(name).copied().ok_or_else(|| {
                let node = joint
                    .node
                    .children()
                    .find(|n| n.has_tag_name(attr))
                    .unwrap_or(joint.node);
                ModelError::UnknownReference {
                    at: src.at_attr(node, "link"),
                    kind: "link",
                    name: name.to_string(),
                }
            })
        };
        let parent = find(&joint.parent, "parent")?;
        let child = find(&joint.child, "child")?;
        if parent == child {
            return Err(ModelError::Structure {
                at: src.at(joint.node),
                message: format!(
                    "joint \"{}\" joins link \"{}\" to itself",
                    joint.desc.name, joint.child
                ),
            });
        }
        if let Some(other) = parent_joint[child].replace(j) {
            return Err(ModelError::Structure {
                at: src.at(joint.node),
                message: format!(
                    "link \"{}\" already has parent joint \"{}\"",
                    joint.child, joints[other].desc.name
                ),
            });
        }
    }
    let roots: Vec<usize> = (0..links.len())
        .filter(|&i| parent_joint[i].is_none())
        .collect();
    match roots.as_slice() {
        [_] => {}
        [] => {
            return Err(ModelError::Structure {
                at: src.at(robot),
                message: "the joints form a loop: every link has a parent".into(),
            })
        }
        [first, second, ..] => {
            return Err(ModelError::Structure {
                at: src.at(links[*second].0),
                message: format!(
                    "a second root link \"{}\" (the first is \"{}\"): join it to the tree",
                    links[*second].1.name, links[*first].1.name
                ),
            })
        }
    }
    // Order parents before children (breadth first from the root).
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); links.len()];
    for (i, pj) in parent_joint.iter().enumerate() {
        if let Some(j) = pj {
            children[link_index[&joints[*j].parent]].push(i);
        }
    }
    let mut order = vec![roots[0]];
    let mut k = 0;
    while k < order.len() {
        order.extend(children[order[k]].iter().copied());
        k += 1;
    }
    if order.len() < links.len() {
        let stray = (0..links.len()).find(|i| !order.contains(i)).unwrap_or(0);
        return Err(ModelError::Structure {
            at: src.at(links[stray].0),
            message: format!("link \"{}\" is on a loop of joints", links[stray].1.name),
        });
    }
    let mut new_index = vec![0; links.len()];
    for (n, &old) in order.iter().enumerate() {
        new_index[old] = n;
    }
    let mut slots: Vec<Option<LinkDesc>> = links.into_iter().map(|(_, l)| Some(l)).collect();
    let mut joint_slots: Vec<Option<RawJoint>> = joints.into_iter().map(Some).collect();
    let mut ordered = Vec::with_capacity(order.len());
    for &old in &order {
        let mut link = slots[old].take().expect("each link is ordered once");
        if let Some(j) = parent_joint[old] {
            let joint = joint_slots[j].take().expect("each joint has one child");
            link.parent = Some(new_index[link_index[&joint.parent]]);
            link.frame = joint.origin;
            link.joint = Some(joint.desc);
        }
        ordered.push(link);
    }
    Ok(ModelDesc {
        name,
        links: ordered,
        world_geoms: Vec::new(),
        actuators: Vec::new(),
        timestep: None,
        gravity: None,
    })
}

/// `<origin xyz rpy>` as a pose (identity when absent).
fn origin(src: &mut Source, parent: Node) -> Result<Pose, ModelError> {
    let Some(node) = parent.children().find(|n| n.has_tag_name("origin")) else {
        return Ok(Pose::IDENTITY);
    };
    src.check_attributes(node, &["xyz", "rpy"]);
    let xyz = src.vec3(node, "xyz")?.unwrap_or(Vec3::ZERO);
    let r = src.vec3(node, "rpy")?.unwrap_or(Vec3::ZERO);
    Ok(Pose {
        position: xyz,
        orientation: rpy(r.x, r.y, r.z),
    })
}

fn read_link(src: &mut Source, node: Node, paths: &MeshPaths) -> Result<LinkDesc, ModelError> {
    src.check_attributes(node, &["name"]);
    let name = src.required(node, "name")?.to_string();
    let mut mass = None;
    let mut geoms = Vec::new();
    for child in node.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "inertial" => mass = read_inertial(src, child)?,
            "collision" => geoms.push(read_collision(src, child, paths)?),
            "visual" => src.visual(src.at(child)),
            _ => src.ignore_element(child),
        }
    }
    Ok(LinkDesc {
        name,
        at: src.at(node),
        parent: None,
        frame: Pose::IDENTITY,
        joint: None,
        mass,
        geoms,
    })
}

/// `<inertial>`: mass, centre and the full tensor, expressed in the link frame. A zero mass
/// is a massless link (`None`), as many URDFs mark frames that carry nothing.
fn read_inertial(src: &mut Source, node: Node) -> Result<Option<MassProperties>, ModelError> {
    src.check_attributes(node, &[]);
    let frame = origin(src, node)?;
    let mut value = None;
    let mut tensor = None;
    for child in node.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "origin" => {}
            "mass" => {
                src.check_attributes(child, &["value"]);
                let text = src.required(child, "value")?;
                value = Some(
                    src.number(child, "value")?
                        .filter(|m| *m >= 0.0)
                        .ok_or_else(|| src.bad(child, "value", text, "a mass >= 0 in kg"))?,
                );
            }
            "inertia" => {
                let names = ["ixx", "ixy", "ixz", "iyy", "iyz", "izz"];
                src.check_attributes(child, &names);
                let mut v = [0.0; 6];
                for (slot, name) in v.iter_mut().zip(names) {
                    src.required(child, name)?;
                    *slot = src.number(child, name)?.unwrap_or(0.0);
                }
                tensor = Some((child, v));
            }
            _ => src.ignore_element(child),
        }
    }
    let mass = value.ok_or_else(|| src.missing(node, "a <mass> child"))?;
    let (tensor_node, [ixx, ixy, ixz, iyy, iyz, izz]) =
        tensor.ok_or_else(|| src.missing(node, "an <inertia> child"))?;
    if mass == 0.0 {
        return Ok(None);
    }
    // The tensor is given in the inertial frame; the engine wants it in link axes.
    let local = Mat3::from_cols(
        Vec3::new(ixx, ixy, ixz),
        Vec3::new(ixy, iyy, iyz),
        Vec3::new(ixz, iyz, izz),
    );
    let r = Mat3::from_quat(frame.orientation);
    let inertia = r * local * r.transpose();
    let at = src.at(tensor_node);
    inertia::mass_properties(src, &at, mass, frame.position, inertia).map(Some)
}

fn read_collision(src: &mut Source, node: Node, paths: &MeshPaths) -> Result<GeomDesc, ModelError> {
    src.check_attributes(node, &["name"]);
    let pose = origin(src, node)?;
    let mut shape = None;
    for child in node.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "origin" => {}
            "geometry" => shape = Some(read_geometry(src, child, paths)?),
            _ => src.ignore_element(child),
        }
    }
    Ok(GeomDesc {
        at: src.at(node),
        shape: shape.ok_or_else(|| src.missing(node, "a <geometry> child"))?,
        pose,
        friction: None,
        masks: None,
    })
}

/// A positive finite length attribute.
fn length(src: &Source, node: Node, name: &str) -> Result<f64, ModelError> {
    let text = src.required(node, name)?;
    src.number(node, name)?
        .filter(|v| *v > 0.0)
        .ok_or_else(|| src.bad(node, name, text, "a length > 0 in m"))
}

fn read_geometry(src: &mut Source, node: Node, paths: &MeshPaths) -> Result<Shape, ModelError> {
    src.check_attributes(node, &[]);
    let mut shape = None;
    for child in node.children().filter(Node::is_element) {
        let kind = child.tag_name().name();
        if shape.is_some() {
            return Err(ModelError::Structure {
                at: src.at(child),
                message: "<geometry> holds more than one shape".into(),
            });
        }
        shape = Some(match kind {
            "box" => {
                src.check_attributes(child, &["size"]);
                let text = src.required(child, "size")?;
                let size = src
                    .vec3(child, "size")?
                    .filter(|s| s.min_element() > 0.0)
                    .ok_or_else(|| src.bad(child, "size", text, "three edge lengths > 0 in m"))?;
                Shape::Box(size / 2.0)
            }
            "sphere" => {
                src.check_attributes(child, &["radius"]);
                Shape::Sphere(length(src, child, "radius")?)
            }
            "cylinder" => {
                src.check_attributes(child, &["radius", "length"]);
                Shape::Cylinder(
                    length(src, child, "radius")?,
                    length(src, child, "length")? / 2.0,
                )
            }
            // Not in the URDF specification, but written by several tools (ROS 2, Drake).
            "capsule" => {
                src.check_attributes(child, &["radius", "length"]);
                Shape::Capsule(
                    length(src, child, "radius")?,
                    length(src, child, "length")? / 2.0,
                )
            }
            "mesh" => {
                src.check_attributes(child, &["filename", "scale"]);
                let uri = src.required(child, "filename")?;
                let scale = src.vec3(child, "scale")?.unwrap_or(Vec3::ONE);
                let (path, vertices, triangles) = mesh::load(
                    &src.at_attr(child, "filename"),
                    uri,
                    paths.model_dir,
                    paths.model_dir,
                    paths.search,
                    scale,
                )?;
                Shape::Mesh {
                    path,
                    vertices,
                    triangles,
                }
            }
            other => {
                return Err(ModelError::Unsupported {
                    at: src.at(child),
                    what: format!(
                        "geometry <{other}> (box, sphere, cylinder, capsule and mesh are)"
                    ),
                })
            }
        });
    }
    shape.ok_or_else(|| src.missing(node, "a shape (<box>, <sphere>, <cylinder>, <mesh>)"))
}

fn read_joint<'a, 'input>(
    src: &mut Source,
    node: Node<'a, 'input>,
) -> Result<RawJoint<'a, 'input>, ModelError> {
    src.check_attributes(node, &["name", "type"]);
    let name = src.required(node, "name")?.to_string();
    let type_text = src.required(node, "type")?;
    let kind = match type_text {
        "revolute" | "continuous" => JointType::Hinge,
        "prismatic" => JointType::Slider,
        "fixed" => JointType::Fixed,
        "floating" => JointType::Free,
        "planar" => {
            return Err(ModelError::Unsupported {
                at: src.at_attr(node, "type"),
                what: format!(
                    "planar joint \"{name}\": the engine has no planar joint (model it as two prismatic joints and a revolute one through massive intermediate links)"
                ),
            })
        }
        other => {
            return Err(src.bad(
                node,
                "type",
                other,
                "one of revolute, continuous, prismatic, fixed, floating, planar",
            ))
        }
    };
    let origin = origin(src, node)?;
    let mut parent = None;
    let mut child_link = None;
    let mut axis = Vec3::X;
    let mut limit = None;
    let mut effort = None;
    let mut friction = 0.0;
    let mut damping = 0.0;
    for child in node.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "origin" => {}
            "parent" | "child" => {
                src.check_attributes(child, &["link"]);
                let link = src.required(child, "link")?.to_string();
                if child.has_tag_name("parent") {
                    parent = Some(link);
                } else {
                    child_link = Some(link);
                }
            }
            "axis" => {
                src.check_attributes(child, &["xyz"]);
                let text = child.attribute("xyz").unwrap_or_default();
                let moves_along_axis = matches!(kind, JointType::Hinge | JointType::Slider);
                axis = match src.vec3(child, "xyz")? {
                    Some(a) => match a.try_normalize() {
                        Some(unit) => unit,
                        None if moves_along_axis => {
                            return Err(src.bad(child, "xyz", text, "a non-zero direction"))
                        }
                        // Exporters write `0 0 0` on fixed joints, whose axis means nothing.
                        None => Vec3::X,
                    },
                    None => Vec3::X,
                };
            }
            "limit" => {
                src.check_attributes(child, &["lower", "upper", "effort", "velocity"]);
                let lower = src.number(child, "lower")?.unwrap_or(0.0);
                let upper = src.number(child, "upper")?.unwrap_or(0.0);
                if let Some(e) = src.number(child, "effort")? {
                    if e < 0.0 {
                        return Err(src.bad(
                            child,
                            "effort",
                            &e.to_string(),
                            "a force or torque >= 0",
                        ));
                    }
                    effort = Some(e);
                }
                if child.attribute("velocity").is_some() {
                    src.number(child, "velocity")?;
                    src.not_simulated(child, "velocity", "the velocity limit is not simulated");
                }
                match type_text {
                    "revolute" | "prismatic" => {
                        if upper < lower {
                            let text = child.attribute("upper").unwrap_or_default();
                            return Err(src.bad(child, "upper", text, "upper >= lower"));
                        }
                        if upper == lower {
                            // CAD exporters write 0 and 0 for "no range"; MuJoCo reads it so.
                            let at = src.at(child);
                            src.warn(
                                at,
                                WarningKind::Repaired,
                                format!(
                                    "joint \"{name}\": equal lower and upper limits ({lower}) read as no range"
                                ),
                            );
                        } else {
                            limit = Some((lower, upper));
                        }
                    }
                    _ => {
                        for bound in ["lower", "upper"] {
                            if child.attribute(bound).is_some() {
                                src.not_simulated(
                                    child,
                                    bound,
                                    &format!("a {type_text} joint has no range"),
                                );
                            }
                        }
                    }
                }
            }
            "dynamics" => {
                src.check_attributes(child, &["damping", "friction"]);
                if let Some(d) = src.number(child, "damping")? {
                    if d < 0.0 {
                        return Err(src.bad(
                            child,
                            "damping",
                            &d.to_string(),
                            "a damping coefficient >= 0",
                        ));
                    }
                    damping = d;
                }
                if let Some(f) = src.number(child, "friction")? {
                    if f < 0.0 {
                        return Err(src.bad(
                            child,
                            "friction",
                            &f.to_string(),
                            "a force or torque >= 0",
                        ));
                    }
                    friction = f;
                }
            }
            "mimic" => {
                let at = src.at(child);
                src.warn(
                    at,
                    WarningKind::NotSimulated,
                    format!("<mimic> of joint \"{name}\": the joint moves freely, not as a copy of \"{}\"", child.attribute("joint").unwrap_or("?")),
                );
            }
            _ => src.ignore_element(child),
        }
    }
    let parent = parent.ok_or_else(|| src.missing(node, "a <parent link=...> child"))?;
    let child = child_link.ok_or_else(|| src.missing(node, "a <child link=...> child"))?;
    Ok(RawJoint {
        node,
        parent,
        child,
        desc: JointDesc {
            name,
            at: src.at(node),
            kind,
            anchor: Vec3::ZERO,
            axis,
            limit,
            effort,
            friction,
            damping,
        },
        origin,
    })
}
