//! MJCF, a subset: `<worldbody>` bodies and geoms (box, sphere, capsule, cylinder, plane,
//! mesh), hinge/slide/ball/free joints with ranges, `<default>` classes, `<compiler>`
//! angle units, Euler sequence and `meshdir`, `<asset>` meshes. Everything else is warned.

use std::collections::HashMap;
use std::path::PathBuf;

use roxmltree::Node;
use stiction::math::{EulerRot, Mat3, Quat, Vec3};
use stiction::{MassProperties, Pose};

use crate::desc::{
    ActuatorDesc, ActuatorKind, GeomDesc, JointDesc, JointType, LinkDesc, ModelDesc, Shape,
};
use crate::error::{Location, ModelError, WarningKind};
use crate::inertia;
use crate::mesh;
use crate::urdf::MeshPaths;
use crate::xml::{parse_numbers, Source};

/// `<compiler>` settings that change how numbers are read.
struct Compiler {
    degrees: bool,
    euler: EulerRot,
    /// Extrinsic (upper-case) sequences apply the angles in reverse order.
    euler_extrinsic: bool,
    meshdir: PathBuf,
    autolimits: bool,
    /// `inertiafromgeom`: `Some(true)` always, `Some(false)` never, `None` when no inertial.
    inertia_from_geom: Option<bool>,
    /// `settotalmass`: every mass and inertia scaled so that the bodies' masses sum to it.
    total_mass: Option<f64>,
}

/// One attribute value with where it was written (the element itself or a default class).
#[derive(Clone)]
struct Value {
    text: String,
    at: Location,
}

/// The attributes of an element, its default class's under its own.
#[derive(Clone, Default)]
struct Attrs(HashMap<String, Value>);

/// The geom and joint defaults of one class, already merged with its parents'.
#[derive(Clone, Default)]
struct Class {
    geom: Attrs,
    joint: Attrs,
    /// Actuator defaults by element name (`position`, `velocity`, `motor`, `general`).
    actuators: HashMap<String, Attrs>,
}

const GEOM_ATTRIBUTES: &[&str] = &[
    "name",
    "class",
    "type",
    "size",
    "fromto",
    "pos",
    "quat",
    "euler",
    "axisangle",
    "xyaxes",
    "zaxis",
    "mass",
    "density",
    "friction",
    "mesh",
    "contype",
    "conaffinity",
    "rgba",
    "material",
    "group",
];
const JOINT_ATTRIBUTES: &[&str] = &[
    "name",
    "class",
    "type",
    "pos",
    "axis",
    "range",
    "limited",
    "damping",
    "frictionloss",
    "armature",
    "stiffness",
    "ref",
    "springref",
];
const ACTUATOR_ATTRIBUTES: &[&str] = &[
    "name",
    "class",
    "joint",
    "gear",
    "kp",
    "kv",
    "ctrlrange",
    "ctrllimited",
    "forcerange",
    "forcelimited",
];
const ACTUATOR_KINDS: &[&str] = &["position", "velocity", "motor"];
const ORIENTATION: &[&str] = &["quat", "euler", "axisangle", "xyaxes", "zaxis"];

impl Attrs {
    fn with(mut self, src: &Source, node: Node) -> Self {
        for a in node.attributes() {
            self.0.insert(
                a.name().to_string(),
                Value {
                    text: a.value().to_string(),
                    at: src.at_pos(a.range().start),
                },
            );
        }
        self
    }

    fn text(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(|v| v.text.as_str())
    }

    fn at(&self, name: &str) -> Option<&Location> {
        self.0.get(name).map(|v| &v.at)
    }

    fn bad(&self, name: &str, expected: &str) -> ModelError {
        let v = &self.0[name];
        ModelError::BadValue {
            at: v.at.clone(),
            attribute: name.to_string(),
            value: v.text.clone(),
            expected: expected.to_string(),
        }
    }

    /// Between `min` and `max` finite numbers.
    fn numbers(&self, name: &str, min: usize, max: usize) -> Result<Option<Vec<f64>>, ModelError> {
        let Some(text) = self.text(name) else {
            return Ok(None);
        };
        let count = text.split_whitespace().count();
        match parse_numbers(text, count) {
            Some(v) if (min..=max).contains(&v.len()) => Ok(Some(v)),
            _ if min == max => Err(self.bad(name, &format!("{min} finite number(s)"))),
            _ => Err(self.bad(name, &format!("{min} to {max} finite numbers"))),
        }
    }

    fn number(&self, name: &str) -> Result<Option<f64>, ModelError> {
        Ok(self.numbers(name, 1, 1)?.map(|v| v[0]))
    }

    fn vec3(&self, name: &str) -> Result<Option<Vec3>, ModelError> {
        Ok(self
            .numbers(name, 3, 3)?
            .map(|v| Vec3::new(v[0], v[1], v[2])))
    }

    /// The orientation given by whichever of quat, euler, axisangle, xyaxes or zaxis is set.
    fn orientation(&self, compiler: &Compiler) -> Result<Quat, ModelError> {
        let given: Vec<&str> = ORIENTATION
            .iter()
            .copied()
            .filter(|n| self.0.contains_key(*n))
            .collect();
        if given.len() > 1 {
            return Err(self.bad(
                given[1],
                &format!("one orientation only (also given: {})", given[0]),
            ));
        }
        let angle = |a: f64| if compiler.degrees { a.to_radians() } else { a };
        let Some(&which) = given.first() else {
            return Ok(Quat::IDENTITY);
        };
        let q = match which {
            "quat" => {
                let v = self.numbers("quat", 4, 4)?.expect("present");
                Quat::from_xyzw(v[1], v[2], v[3], v[0])
            }
            "euler" => {
                let v = self.vec3("euler")?.expect("present");
                let (a, b, c) = (angle(v.x), angle(v.y), angle(v.z));
                if compiler.euler_extrinsic {
                    Quat::from_euler(compiler.euler, c, b, a)
                } else {
                    Quat::from_euler(compiler.euler, a, b, c)
                }
            }
            "axisangle" => {
                let v = self.numbers("axisangle", 4, 4)?.expect("present");
                let axis = Vec3::new(v[0], v[1], v[2])
                    .try_normalize()
                    .ok_or_else(|| self.bad("axisangle", "a non-zero axis and an angle"))?;
                Quat::from_axis_angle(axis, angle(v[3]))
            }
            "xyaxes" => {
                let v = self.numbers("xyaxes", 6, 6)?.expect("present");
                let x = Vec3::new(v[0], v[1], v[2]).try_normalize();
                let y = Vec3::new(v[3], v[4], v[5]);
                let frame = x.and_then(|x| {
                    let y = (y - x * x.dot(y)).try_normalize()?;
                    Some(Mat3::from_cols(x, y, x.cross(y)))
                });
                Quat::from_mat3(&frame.ok_or_else(|| self.bad("xyaxes", "two independent axes"))?)
            }
            _ => {
                let z = self
                    .vec3("zaxis")?
                    .expect("present")
                    .try_normalize()
                    .ok_or_else(|| self.bad("zaxis", "a non-zero direction"))?;
                Quat::from_rotation_arc(Vec3::Z, z)
            }
        };
        if !q.is_finite() || q.length() == 0.0 {
            return Err(self.bad(which, "a finite, non-zero rotation"));
        }
        Ok(q.normalize())
    }

    fn pose(&self, compiler: &Compiler) -> Result<Pose, ModelError> {
        Ok(Pose {
            position: self.vec3("pos")?.unwrap_or(Vec3::ZERO),
            orientation: self.orientation(compiler)?,
        })
    }
}

/// Everything read before `<worldbody>`.
struct Context<'p> {
    compiler: Compiler,
    classes: HashMap<String, Class>,
    meshes: HashMap<String, (String, Vec3, Location)>,
    loaded: HashMap<String, mesh::MeshData>,
    paths: &'p MeshPaths<'p>,
}

/// Reads a `<mujoco>` element.
pub(crate) fn read(
    src: &mut Source,
    root: Node,
    paths: &MeshPaths,
) -> Result<ModelDesc, ModelError> {
    src.check_attributes(root, &["model"]);
    let name = root.attribute("model").unwrap_or("model").to_string();
    let mut compiler = Compiler {
        degrees: true,
        euler: EulerRot::XYZ,
        euler_extrinsic: false,
        meshdir: paths.model_dir.to_path_buf(),
        autolimits: true,
        inertia_from_geom: None,
        total_mass: None,
    };
    // The compiler settings apply to the whole file wherever they are written.
    for node in root.children().filter(|n| n.has_tag_name("compiler")) {
        read_compiler(src, node, &mut compiler, paths)?;
    }
    let mut ctx = Context {
        compiler,
        classes: HashMap::from([("main".to_string(), Class::default())]),
        meshes: HashMap::new(),
        loaded: HashMap::new(),
        paths,
    };
    for node in root.children().filter(|n| n.has_tag_name("default")) {
        read_default(src, node, None, &mut ctx.classes)?;
    }
    for node in root.children().filter(|n| n.has_tag_name("asset")) {
        read_assets(src, node, &mut ctx)?;
    }
    let mut desc = ModelDesc {
        name,
        links: Vec::new(),
        world_geoms: Vec::new(),
        actuators: Vec::new(),
        timestep: None,
        gravity: None,
    };
    for node in root.children().filter(Node::is_element) {
        match node.tag_name().name() {
            "compiler" | "default" | "asset" => {}
            "worldbody" => {
                src.check_attributes(node, &[]);
                for child in node.children().filter(Node::is_element) {
                    match child.tag_name().name() {
                        "geom" => {
                            if let Some((geom, _)) = read_geom(src, child, "main", &mut ctx)? {
                                desc.world_geoms.push(geom);
                            }
                        }
                        "body" => read_body(src, child, None, "main", &mut ctx, &mut desc.links)?,
                        "light" | "camera" => src.visual(src.at(child)),
                        _ => src.ignore_element(child),
                    }
                }
            }
            "include" => {
                return Err(ModelError::Unsupported {
                    at: src.at(node),
                    what: "<include>: merge the included file into this one".into(),
                })
            }
            "visual" => src.visual(src.at(node)),
            "option" => read_option(src, node, &mut desc)?,
            "actuator" => {
                src.check_attributes(node, &[]);
                for child in node.children().filter(Node::is_element) {
                    if let Some(actuator) = read_actuator(src, child, &ctx)? {
                        desc.actuators.push(actuator);
                    }
                }
            }
            _ => src.ignore_element(node),
        }
    }
    if let Some(target) = ctx.compiler.total_mass {
        let total: f64 = desc
            .links
            .iter()
            .filter_map(|l| l.mass)
            .map(|m| m.mass())
            .sum();
        if total > 0.0 {
            let k = target / total;
            for link in &mut desc.links {
                if let Some(m) = link.mass {
                    link.mass = Some(
                        MassProperties::new(m.mass() * k, m.center(), m.inertia() * k).map_err(
                            |e| ModelError::Physics {
                                at: link.at.clone(),
                                message: format!("settotalmass: {e}"),
                            },
                        )?,
                    );
                }
            }
        }
    }
    let known: std::collections::HashSet<&str> = desc
        .links
        .iter()
        .filter_map(|l| l.joint.as_ref().map(|j| j.name.as_str()))
        .collect();
    if let Some(a) = desc
        .actuators
        .iter()
        .find(|a| !known.contains(a.joint.as_str()))
    {
        return Err(ModelError::UnknownReference {
            at: a.at.clone(),
            kind: "joint",
            name: a.joint.clone(),
        });
    }
    Ok(desc)
}

/// `<option>`: the time step and gravity; the rest (integrator, solver, ...) is the
/// engine's own and warned.
fn read_option(src: &mut Source, node: Node, desc: &mut ModelDesc) -> Result<(), ModelError> {
    src.check_attributes(node, &["timestep", "gravity"]);
    if let Some(h) = src.number(node, "timestep")? {
        if h <= 0.0 {
            return Err(src.bad(node, "timestep", &h.to_string(), "a time step > 0 in s"));
        }
        desc.timestep = Some(h);
    }
    desc.gravity = src.vec3(node, "gravity")?;
    for child in node.children().filter(Node::is_element) {
        src.ignore_element(child);
    }
    Ok(())
}

/// One child of `<actuator>`: position, velocity and motor actuators on a joint; anything
/// else (general actuators, tendons, sites) is warned and skipped.
fn read_actuator(
    src: &mut Source,
    node: Node,
    ctx: &Context,
) -> Result<Option<ActuatorDesc>, ModelError> {
    let tag = node.tag_name().name();
    if !ACTUATOR_KINDS.contains(&tag) {
        src.ignore_element(node);
        return Ok(None);
    }
    src.check_attributes(node, ACTUATOR_ATTRIBUTES);
    let class = class_of(src, node, "main", ctx)?;
    let attrs = class
        .actuators
        .get(tag)
        .cloned()
        .unwrap_or_default()
        .with(src, node);
    let Some(joint) = attrs.text("joint").map(str::to_string) else {
        let at = src.at(node);
        src.warn(
            at,
            WarningKind::NotSimulated,
            format!("<{tag}> without a joint (tendon, site or body transmission) is not simulated"),
        );
        return Ok(None);
    };
    let gear = match attrs.numbers("gear", 1, 6)? {
        None => 1.0,
        Some(g) if g[0] != 0.0 && g[1..].iter().all(|x| *x == 0.0) => g[0],
        Some(_) => return Err(attrs.bad("gear", "a non-zero ratio (one number for a joint)")),
    };
    let gain = |name: &str| -> Result<f64, ModelError> {
        match attrs.number(name)? {
            Some(v) if v < 0.0 => Err(attrs.bad(name, "a gain >= 0")),
            Some(v) => Ok(v),
            None => Ok(0.0),
        }
    };
    let kind = match tag {
        // MuJoCo's default kp for a position actuator is 1.
        "position" => ActuatorKind::Position {
            kp: attrs.number("kp")?.map_or(Ok(1.0), |_| gain("kp"))?,
            kv: gain("kv")?,
        },
        "velocity" => ActuatorKind::Velocity {
            kv: attrs.number("kv")?.map_or(Ok(1.0), |_| gain("kv"))?,
        },
        _ => ActuatorKind::Motor,
    };
    let range = |name: &str, flag: &str| -> Result<Option<(f64, f64)>, ModelError> {
        let Some(r) = attrs.numbers(name, 2, 2)? else {
            return Ok(None);
        };
        let limited = match attrs.text(flag).unwrap_or("auto") {
            "true" => true,
            "false" => false,
            "auto" => ctx.compiler.autolimits,
            _ => return Err(attrs.bad(flag, "true, false or auto")),
        };
        if !limited {
            return Ok(None);
        }
        if r[1] < r[0] {
            return Err(attrs.bad(name, "lower <= upper"));
        }
        Ok(Some((r[0], r[1])))
    };
    let name = node
        .attribute("name")
        .map_or_else(|| format!("{tag}_{joint}"), str::to_string);
    Ok(Some(ActuatorDesc {
        name,
        at: src.at(node),
        joint,
        kind,
        gear,
        ctrl_range: range("ctrlrange", "ctrllimited")?,
        force_range: range("forcerange", "forcelimited")?,
    }))
}

fn read_compiler(
    src: &mut Source,
    node: Node,
    compiler: &mut Compiler,
    paths: &MeshPaths,
) -> Result<(), ModelError> {
    src.check_attributes(
        node,
        &[
            "angle",
            "meshdir",
            "assetdir",
            "eulerseq",
            "autolimits",
            "inertiafromgeom",
            "settotalmass",
        ],
    );
    if let Some(m) = src.number(node, "settotalmass")? {
        // MuJoCo: a value <= 0 leaves the masses alone.
        compiler.total_mass = Some(m).filter(|m| *m > 0.0);
    }
    if let Some(angle) = node.attribute("angle") {
        compiler.degrees = match angle {
            "degree" => true,
            "radian" => false,
            other => return Err(src.bad(node, "angle", other, "degree or radian")),
        };
    }
    for attr in ["assetdir", "meshdir"] {
        if let Some(dir) = node.attribute(attr) {
            compiler.meshdir = paths.model_dir.join(dir);
        }
    }
    if let Some(seq) = node.attribute("eulerseq") {
        let order = seq.to_ascii_lowercase();
        let rot = match order.as_str() {
            "xyz" => EulerRot::XYZ,
            "xzy" => EulerRot::XZY,
            "yxz" => EulerRot::YXZ,
            "yzx" => EulerRot::YZX,
            "zxy" => EulerRot::ZXY,
            "zyx" => EulerRot::ZYX,
            _ => return Err(src.bad(node, "eulerseq", seq, "three distinct axes of xyz/XYZ, all lower case (moving axes) or all upper case (fixed axes)")),
        };
        let upper = seq.chars().all(|c| c.is_ascii_uppercase());
        let lower = seq.chars().all(|c| c.is_ascii_lowercase());
        if !(upper || lower) {
            return Err(src.bad(node, "eulerseq", seq, "all lower case or all upper case"));
        }
        // Fixed axes x, y, z applied in turn equal moving axes z, y, x: reverse the order.
        compiler.euler = if upper {
            match rot {
                EulerRot::XYZ => EulerRot::ZYX,
                EulerRot::XZY => EulerRot::YZX,
                EulerRot::YXZ => EulerRot::ZXY,
                EulerRot::YZX => EulerRot::XZY,
                EulerRot::ZXY => EulerRot::YXZ,
                _ => EulerRot::XYZ,
            }
        } else {
            rot
        };
        compiler.euler_extrinsic = upper;
    }
    if let Some(v) = node.attribute("autolimits") {
        compiler.autolimits = match v {
            "true" => true,
            "false" => false,
            other => return Err(src.bad(node, "autolimits", other, "true or false")),
        };
    }
    if let Some(v) = node.attribute("inertiafromgeom") {
        compiler.inertia_from_geom = match v {
            "true" => Some(true),
            "false" => Some(false),
            "auto" => None,
            other => return Err(src.bad(node, "inertiafromgeom", other, "true, false or auto")),
        };
    }
    Ok(())
}

fn read_default(
    src: &mut Source,
    node: Node,
    parent: Option<&str>,
    classes: &mut HashMap<String, Class>,
) -> Result<(), ModelError> {
    src.check_attributes(node, &["class"]);
    let name = match (node.attribute("class"), parent) {
        (Some(name), _) => name.to_string(),
        (None, None) => "main".to_string(),
        (None, Some(_)) => {
            return Err(src.missing(node, "attribute \"class\" (nested defaults are named)"))
        }
    };
    let mut class = parent
        .and_then(|p| classes.get(p))
        .or_else(|| classes.get(&name))
        .cloned()
        .unwrap_or_default();
    for child in node.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "geom" => {
                src.check_attributes(child, GEOM_ATTRIBUTES);
                class.geom = class.geom.with(src, child);
            }
            "joint" => {
                src.check_attributes(child, JOINT_ATTRIBUTES);
                class.joint = class.joint.with(src, child);
            }
            "default" => {}
            kind if ACTUATOR_KINDS.contains(&kind) => {
                src.check_attributes(child, ACTUATOR_ATTRIBUTES);
                let defaults = class.actuators.remove(kind).unwrap_or_default();
                class
                    .actuators
                    .insert(kind.to_string(), defaults.with(src, child));
            }
            _ => src.ignore_element(child),
        }
    }
    classes.insert(name.clone(), class);
    for child in node.children().filter(|n| n.has_tag_name("default")) {
        read_default(src, child, Some(&name), classes)?;
    }
    Ok(())
}

fn read_assets(src: &mut Source, node: Node, ctx: &mut Context) -> Result<(), ModelError> {
    src.check_attributes(node, &[]);
    for child in node.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "mesh" => {
                src.check_attributes(child, &["name", "file", "scale"]);
                let file = src.required(child, "file")?.to_string();
                let name = match child.attribute("name") {
                    Some(n) => n.to_string(),
                    // MuJoCo names an unnamed mesh after its file, without extension.
                    None => std::path::Path::new(&file)
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                };
                let scale = src.vec3(child, "scale")?.unwrap_or(Vec3::ONE);
                ctx.meshes
                    .insert(name, (file, scale, src.at_attr(child, "file")));
            }
            "material" | "texture" => src.visual(src.at(child)),
            _ => src.ignore_element(child),
        }
    }
    Ok(())
}

/// The class an element takes: its own `class`, else the enclosing `childclass`.
fn class_of<'c>(
    src: &Source,
    node: Node,
    childclass: &str,
    ctx: &'c Context,
) -> Result<&'c Class, ModelError> {
    let name = node.attribute("class").unwrap_or(childclass);
    ctx.classes
        .get(name)
        .ok_or_else(|| ModelError::UnknownReference {
            at: src.at_attr(node, "class"),
            kind: "class",
            name: name.to_string(),
        })
}

fn read_body(
    src: &mut Source,
    node: Node,
    parent: Option<usize>,
    childclass: &str,
    ctx: &mut Context,
    links: &mut Vec<LinkDesc>,
) -> Result<(), ModelError> {
    let mut known = vec!["name", "pos", "childclass"];
    known.extend_from_slice(ORIENTATION);
    src.check_attributes(node, &known);
    let attrs = Attrs::default().with(src, node);
    let frame = attrs.pose(&ctx.compiler)?;
    let childclass = node
        .attribute("childclass")
        .unwrap_or(childclass)
        .to_string();
    if !ctx.classes.contains_key(&childclass) {
        return Err(ModelError::UnknownReference {
            at: src.at_attr(node, "childclass"),
            kind: "class",
            name: childclass,
        });
    }
    let name = node
        .attribute("name")
        .map_or_else(|| format!("body{}", links.len()), str::to_string);
    let mut joints: Vec<JointDesc> = Vec::new();
    let mut free = false;
    let mut geoms = Vec::new();
    let mut geom_mass: Option<MassProperties> = None;
    let mut inertial = None;
    let mut bodies = Vec::new();
    for child in node.children().filter(Node::is_element) {
        let tag = child.tag_name().name();
        match tag {
            "joint" | "freejoint" => {
                let j = if tag == "freejoint" {
                    src.check_attributes(child, &["name"]);
                    None
                } else {
                    read_joint(src, child, &childclass, ctx, &name)?
                };
                match j {
                    Some(j) if j.kind != JointType::Free => joints.push(j),
                    _ => free = true,
                }
                if free && !joints.is_empty() {
                    return Err(ModelError::Unsupported {
                        at: src.at(child),
                        what: format!("a free joint beside other joints in body \"{name}\""),
                    });
                }
                if free && parent.is_some() {
                    return Err(ModelError::Unsupported {
                        at: src.at(child),
                        what: format!(
                            "a free joint in body \"{name}\", which is not a child of the world"
                        ),
                    });
                }
            }
            "geom" => {
                if let Some((geom, mass)) = read_geom(src, child, &childclass, ctx)? {
                    geoms.push(geom);
                    geom_mass = combine(geom_mass, mass, &src.at(child))?;
                } else if let Some(mass) = geom_only_mass(src, child, &childclass, ctx)? {
                    geom_mass = combine(geom_mass, Some(mass), &src.at(child))?;
                }
            }
            "inertial" => inertial = Some(read_inertial(src, child, &ctx.compiler)?),
            "body" => bodies.push(child),
            "camera" | "light" => src.visual(src.at(child)),
            _ => src.ignore_element(child),
        }
    }
    let mass = match (ctx.compiler.inertia_from_geom, inertial) {
        (Some(true), _) | (None, None) => geom_mass,
        (_, Some(m)) => m,
        (Some(false), None) => None,
    };
    if !free && joints.is_empty() {
        joints.push(JointDesc {
            name: format!("{name}_weld"),
            at: src.at(node),
            kind: JointType::Fixed,
            anchor: Vec3::ZERO,
            axis: Vec3::Z,
            limit: None,
            effort: None,
            friction: 0.0,
            damping: 0.0,
        });
    }
    // Several joints in one body act in turn between the parent and the body (MuJoCo's
    // hopper: slide x, slide z, hinge y). The engine joins two bodies by one joint, so all
    // but the last get a massless link of their own, at the body's frame; the builder
    // gives those links a small mass (docs/models.md).
    let last = joints.pop();
    let mut parent = parent;
    let mut frame = frame;
    if !joints.is_empty() {
        let at = src.at(node);
        src.warn(
            at,
            WarningKind::Repaired,
            format!(
                "body \"{name}\" has {} joints: built as a chain through {} massless link(s)",
                joints.len() + 1,
                joints.len()
            ),
        );
    }
    for joint in joints {
        links.push(LinkDesc {
            name: format!("{name}/{}", joint.name),
            at: joint.at.clone(),
            parent,
            frame,
            joint: Some(joint),
            mass: None,
            geoms: Vec::new(),
        });
        parent = Some(links.len() - 1);
        frame = Pose::IDENTITY;
    }
    let index = links.len();
    links.push(LinkDesc {
        name,
        at: src.at(node),
        parent,
        frame,
        joint: last,
        mass,
        geoms,
    });
    for child in bodies {
        read_body(src, child, Some(index), &childclass, ctx, links)?;
    }
    Ok(())
}

fn combine(
    total: Option<MassProperties>,
    part: Option<MassProperties>,
    at: &Location,
) -> Result<Option<MassProperties>, ModelError> {
    Ok(match (total, part) {
        (Some(t), Some(p)) => Some(t.combined(&p).map_err(|e| ModelError::Physics {
            at: at.clone(),
            message: e.to_string(),
        })?),
        (t, p) => t.or(p),
    })
}

fn read_inertial(
    src: &mut Source,
    node: Node,
    compiler: &Compiler,
) -> Result<Option<MassProperties>, ModelError> {
    let mut known = vec!["pos", "mass", "diaginertia", "fullinertia"];
    known.extend_from_slice(ORIENTATION);
    src.check_attributes(node, &known);
    let attrs = Attrs::default().with(src, node);
    let frame = attrs.pose(compiler)?;
    src.required(node, "mass")?;
    let mass = attrs.number("mass")?.unwrap_or(0.0);
    if mass < 0.0 {
        return Err(attrs.bad("mass", "a mass >= 0 in kg"));
    }
    let tensor = match (
        attrs.vec3("diaginertia")?,
        attrs.numbers("fullinertia", 6, 6)?,
    ) {
        (Some(d), None) => Mat3::from_diagonal(d),
        // MuJoCo's order: ixx iyy izz ixy ixz iyz.
        (None, Some(f)) => Mat3::from_cols(
            Vec3::new(f[0], f[3], f[4]),
            Vec3::new(f[3], f[1], f[5]),
            Vec3::new(f[4], f[5], f[2]),
        ),
        (None, None) => return Err(src.missing(node, "diaginertia or fullinertia")),
        (Some(_), Some(_)) => {
            return Err(attrs.bad("fullinertia", "diaginertia or fullinertia, not both"))
        }
    };
    if mass == 0.0 {
        return Ok(None);
    }
    let r = Mat3::from_quat(frame.orientation);
    let at = src.at(node);
    inertia::mass_properties(src, &at, mass, frame.position, r * tensor * r.transpose()).map(Some)
}

fn read_joint(
    src: &mut Source,
    node: Node,
    childclass: &str,
    ctx: &Context,
    body: &str,
) -> Result<Option<JointDesc>, ModelError> {
    src.check_attributes(node, JOINT_ATTRIBUTES);
    let attrs = class_of(src, node, childclass, ctx)?
        .joint
        .clone()
        .with(src, node);
    let kind = match attrs.text("type").unwrap_or("hinge") {
        "hinge" => JointType::Hinge,
        "slide" => JointType::Slider,
        "ball" => JointType::Ball,
        "free" => JointType::Free,
        _ => return Err(attrs.bad("type", "hinge, slide, ball or free")),
    };
    let name = node
        .attribute("name")
        .map_or_else(|| format!("{body}_joint"), str::to_string);
    if kind == JointType::Free {
        return Ok(Some(JointDesc {
            name,
            at: src.at(node),
            kind,
            anchor: Vec3::ZERO,
            axis: Vec3::Z,
            limit: None,
            effort: None,
            friction: 0.0,
            damping: 0.0,
        }));
    }
    let axis = match attrs.vec3("axis")? {
        Some(a) => a
            .try_normalize()
            .ok_or_else(|| attrs.bad("axis", "a non-zero direction"))?,
        None => Vec3::Z,
    };
    let range = attrs.numbers("range", 2, 2)?;
    let limited = match attrs.text("limited").unwrap_or("auto") {
        "true" => true,
        "false" => false,
        "auto" => ctx.compiler.autolimits && range.is_some(),
        _ => return Err(attrs.bad("limited", "true, false or auto")),
    };
    let limit = match (limited, range) {
        (false, _) => None,
        (true, None) => return Err(attrs.bad("limited", "a range when limited")),
        (true, Some(r)) => {
            if r[1] < r[0] {
                return Err(attrs.bad("range", "lower <= upper"));
            }
            let unit = if kind == JointType::Slider || !ctx.compiler.degrees {
                1.0
            } else {
                std::f64::consts::PI / 180.0
            };
            Some((r[0] * unit, r[1] * unit))
        }
    };
    let limit = if kind == JointType::Ball && limit.is_some() {
        warn_at(
            src,
            &attrs,
            "range",
            "a ball joint's range is not simulated",
        );
        None
    } else {
        limit
    };
    for (attribute, why) in [
        ("armature", "armature (rotor inertia) is not simulated"),
        ("stiffness", "joint springs are not simulated"),
        ("ref", "the reference position is not simulated"),
        ("springref", "joint springs are not simulated"),
    ] {
        if attrs.number(attribute)?.is_some_and(|v| v != 0.0) {
            warn_at(src, &attrs, attribute, why);
        }
    }
    let friction = attrs.number("frictionloss")?.unwrap_or(0.0);
    if friction < 0.0 {
        return Err(attrs.bad("frictionloss", "a force or torque >= 0"));
    }
    let damping = attrs.number("damping")?.unwrap_or(0.0);
    if damping < 0.0 {
        return Err(attrs.bad("damping", "a damping coefficient >= 0"));
    }
    Ok(Some(JointDesc {
        name,
        at: src.at(node),
        kind,
        anchor: attrs.vec3("pos")?.unwrap_or(Vec3::ZERO),
        axis,
        limit,
        effort: None,
        friction,
        damping,
    }))
}

fn warn_at(src: &mut Source, attrs: &Attrs, attribute: &str, why: &str) {
    let at = attrs
        .at(attribute)
        .cloned()
        .expect("warned attributes are present");
    src.warn(at, WarningKind::NotSimulated, format!("{attribute}: {why}"));
}

/// The mass of a geom that does not collide (contype = conaffinity = 0): MuJoCo counts it.
fn geom_only_mass(
    src: &mut Source,
    node: Node,
    childclass: &str,
    ctx: &mut Context,
) -> Result<Option<MassProperties>, ModelError> {
    let attrs = class_of(src, node, childclass, ctx)?
        .geom
        .clone()
        .with(src, node);
    let (shape, pose) = geom_shape(src, node, &attrs, ctx)?;
    geom_mass(&attrs, &shape, &pose, &src.at(node))
}

/// A geom: its collider (`None` when contype and conaffinity are both 0: visual only) and
/// its mass properties in the body frame.
fn read_geom(
    src: &mut Source,
    node: Node,
    childclass: &str,
    ctx: &mut Context,
) -> Result<Option<(GeomDesc, Option<MassProperties>)>, ModelError> {
    src.check_attributes(node, GEOM_ATTRIBUTES);
    let attrs = class_of(src, node, childclass, ctx)?
        .geom
        .clone()
        .with(src, node);
    for visual in ["rgba", "material", "group"] {
        if let Some(at) = attrs.at(visual) {
            src.visual(at.clone());
        }
    }
    let mask = |name: &str| -> Result<u32, ModelError> {
        match attrs.number(name)? {
            None => Ok(1),
            Some(v) if v >= 0.0 && v.fract() == 0.0 && v <= f64::from(u32::MAX) => Ok(v as u32),
            Some(_) => Err(attrs.bad(name, "a bit mask: an integer from 0 to 2^32 - 1")),
        }
    };
    let (contype, conaffinity) = (mask("contype")?, mask("conaffinity")?);
    if contype == 0 && conaffinity == 0 {
        return Ok(None);
    }
    let (shape, pose) = geom_shape(src, node, &attrs, ctx)?;
    let mass = geom_mass(&attrs, &shape, &pose, &src.at(node))?;
    let friction = match attrs.numbers("friction", 1, 3)? {
        Some(f) => {
            if f.len() > 1 {
                warn_at(
                    src,
                    &attrs,
                    "friction",
                    "torsional and rolling friction are not simulated; the sliding coefficient is",
                );
            }
            if f[0] < 0.0 {
                return Err(attrs.bad("friction", "coefficients >= 0"));
            }
            Some(f[0])
        }
        None => None,
    };
    Ok(Some((
        GeomDesc {
            at: src.at(node),
            shape,
            pose,
            friction,
            masks: Some((contype, conaffinity)),
        },
        mass,
    )))
}

/// A positive size entry.
fn size(attrs: &Attrs, values: &[f64], i: usize, what: &str) -> Result<f64, ModelError> {
    values
        .get(i)
        .copied()
        .filter(|v| *v > 0.0)
        .ok_or_else(|| attrs.bad("size", what))
}

/// The geom's shape and its pose in the body frame.
fn geom_shape(
    src: &Source,
    node: Node,
    attrs: &Attrs,
    ctx: &mut Context,
) -> Result<(Shape, Pose), ModelError> {
    let kind = attrs.text("type").unwrap_or("sphere");
    let sizes = attrs.numbers("size", 1, 3)?.unwrap_or_default();
    let mut pose = attrs.pose(&ctx.compiler)?;
    let fromto = attrs.numbers("fromto", 6, 6)?;
    let shape =
        match kind {
            "sphere" => Shape::Sphere(size(attrs, &sizes, 0, "a radius > 0")?),
            "capsule" | "cylinder" => {
                let r = size(attrs, &sizes, 0, "a radius > 0")?;
                let hh = match &fromto {
                    Some(f) => {
                        let (a, b) = (Vec3::new(f[0], f[1], f[2]), Vec3::new(f[3], f[4], f[5]));
                        let d = b - a;
                        let dir = d
                            .try_normalize()
                            .ok_or_else(|| attrs.bad("fromto", "two distinct points"))?;
                        pose = Pose {
                            position: (a + b) / 2.0,
                            orientation: Quat::from_rotation_arc(Vec3::Z, dir),
                        };
                        d.length() / 2.0
                    }
                    None => size(attrs, &sizes, 1, "a radius and a half length > 0")?,
                };
                if kind == "capsule" {
                    Shape::Capsule(r, hh)
                } else {
                    Shape::Cylinder(r, hh)
                }
            }
            "box" => {
                if fromto.is_some() {
                    return Err(ModelError::Unsupported {
                        at: attrs.at("fromto").cloned().unwrap_or_else(|| src.at(node)),
                        what: "fromto on a box (give pos and size)".into(),
                    });
                }
                Shape::Box(Vec3::new(
                    size(attrs, &sizes, 0, "three half sizes > 0")?,
                    size(attrs, &sizes, 1, "three half sizes > 0")?,
                    size(attrs, &sizes, 2, "three half sizes > 0")?,
                ))
            }
            "plane" => Shape::Plane,
            "mesh" => {
                let Some(name) = attrs.text("mesh") else {
                    return Err(src.missing(node, "attribute \"mesh\" (type mesh)"));
                };
                let name = name.to_string();
                if !ctx.loaded.contains_key(&name) {
                    let (file, scale, at) = ctx.meshes.get(&name).cloned().ok_or_else(|| {
                        ModelError::UnknownReference {
                            at: attrs.at("mesh").cloned().unwrap_or_else(|| src.at(node)),
                            kind: "mesh",
                            name: name.clone(),
                        }
                    })?;
                    let loaded = mesh::load(
                        &at,
                        &file,
                        &ctx.compiler.meshdir,
                        ctx.paths.model_dir,
                        ctx.paths.search,
                        scale,
                    )?;
                    ctx.loaded.insert(name.clone(), loaded);
                }
                let (path, vertices, triangles) = ctx.loaded[&name].clone();
                Shape::Mesh {
                    path,
                    vertices,
                    triangles,
                }
            }
            other => {
                return Err(ModelError::Unsupported {
                    at: attrs.at("type").cloned().unwrap_or_else(|| src.at(node)),
                    what: format!(
                        "geom type {other} (sphere, capsule, cylinder, box, plane and mesh are)"
                    ),
                })
            }
        };
    Ok((shape, pose))
}

/// The geom's mass properties in the body frame, from `mass` or `density` (default 1000).
fn geom_mass(
    attrs: &Attrs,
    shape: &Shape,
    pose: &Pose,
    at: &Location,
) -> Result<Option<MassProperties>, ModelError> {
    let mass = attrs.number("mass")?;
    let density = attrs.number("density")?.unwrap_or(1000.0);
    if mass.is_some_and(|m| m < 0.0) {
        return Err(attrs.bad("mass", "a mass >= 0 in kg"));
    }
    if mass == Some(0.0) || (mass.is_none() && density == 0.0) {
        return Ok(None);
    }
    let err = |e: stiction::MassPropertiesError| ModelError::Physics {
        at: at.clone(),
        message: e.to_string(),
    };
    let local = match (shape, mass) {
        (Shape::Plane, _) => return Ok(None),
        (Shape::Sphere(r), Some(m)) => MassProperties::sphere_with_mass(*r, m),
        (Shape::Sphere(r), None) => MassProperties::sphere(*r, density),
        (Shape::Box(h), Some(m)) => MassProperties::cuboid_with_mass(*h, m),
        (Shape::Box(h), None) => MassProperties::cuboid(*h, density),
        (Shape::Capsule(r, hh), Some(m)) => MassProperties::capsule_with_mass(*hh, *r, m),
        (Shape::Capsule(r, hh), None) => MassProperties::capsule(*hh, *r, density),
        (Shape::Cylinder(r, hh), Some(m)) => MassProperties::cylinder_with_mass(*hh, *r, m),
        (Shape::Cylinder(r, hh), None) => MassProperties::cylinder(*hh, *r, density),
        (Shape::Mesh { vertices, .. }, m) => {
            let (points, triangles) = stiction::parry::transformation::convex_hull(vertices);
            let (volume, center, i) = mesh::solid_properties(&points, &triangles);
            if volume <= 0.0 {
                return Err(ModelError::Physics {
                    at: at.clone(),
                    message: "the mesh's convex hull has no volume".into(),
                });
            }
            let total = m.unwrap_or(density * volume);
            let k = total / volume;
            let tensor = Mat3::from_cols(
                Vec3::new(i[0], i[3], i[4]) * k,
                Vec3::new(i[3], i[1], i[5]) * k,
                Vec3::new(i[4], i[5], i[2]) * k,
            );
            MassProperties::new(total, center, tensor)
        }
    }
    .map_err(err)?;
    let placed = local
        .rotated(pose.orientation)
        .and_then(|m| m.translated(pose.position))
        .map_err(err)?;
    Ok(Some(placed))
}
