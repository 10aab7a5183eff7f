//! `[[sensors]]`: what each sensor entry may hold ([`validate`]) and the engine handles and
//! beam directions it resolves to ([`build`]). `crate::run::sensors` records them.
//!
//! Body and joint names are checked by the validator against the scene's own `[[bodies]]`
//! and `[[joints]]`; a scene with `[[models]]` may also name its models' links and joints,
//! which exist only once the models are loaded, so there an unknown name is refused by the
//! builder, at the same field.

use std::collections::{HashMap, HashSet};

use stiction::math::{Quat, Vec3};
use stiction::{BodyHandle, ColliderHandle, JointHandle};

use crate::readable::number;
use crate::scene::build::{rotation, unit_scaled, BuiltScene};
use crate::scene::error::FieldError;
use crate::scene::schema::{
    BodyDesc, NoHitDesc, SceneFile, SensorDesc, SensorKind, ShapeRef, WORLD,
};
use crate::scene::validate::{
    direction, finite_vector, positive, rotation as check_rotation, Check,
};

/// The CSV files `stiction run` writes besides the sensors' (a sensor may not take their
/// names).
pub const RUN_FILES: &[&str] = &[
    "trajectory.csv",
    "stats.csv",
    "joint_forces.csv",
    "contact_forces.csv",
];

/// The most beams one range sensor may have.
pub const MAX_BEAMS: u64 = 65_536;

/// A sensor type as the file spells it.
pub fn kind_name(kind: SensorKind) -> &'static str {
    match kind {
        SensorKind::Range => "range",
        SensorKind::Contact => "contact",
        SensorKind::ForceTorque => "force_torque",
        SensorKind::Overlap => "overlap",
    }
}

/// The name of sensor `i`: its `name`, or `sensor<i>`.
pub fn sensor_name(desc: &SensorDesc, i: usize) -> String {
    desc.name.clone().unwrap_or_else(|| format!("sensor{i}"))
}

/// The CSV file of a sensor called `name`, in the run directory.
pub fn file_name(name: &str) -> String {
    format!("{name}.csv")
}

/// The name of joint `i` of the file: its `name`, or `joint<i>` (as the builder names it).
fn joint_name(joint: &crate::scene::schema::JointDesc, i: usize) -> String {
    joint.name.clone().unwrap_or_else(|| format!("joint{i}"))
}

/// Checks every `[[sensors]]` entry of `scene` (its bodies and joints already checked).
pub fn validate(scene: &SceneFile) -> Check {
    let bodies: HashMap<&str, &BodyDesc> =
        scene.bodies.iter().map(|b| (b.name.as_str(), b)).collect();
    let joints: Vec<String> = scene
        .joints
        .iter()
        .enumerate()
        .map(|(i, j)| joint_name(j, i))
        .collect();
    let mut names = HashSet::new();
    for (i, sensor) in scene.sensors.iter().enumerate() {
        let path = format!("sensors[{i}]");
        let name = sensor_name(sensor, i);
        self::name(&path, &name)?;
        if !names.insert(name.clone()) {
            return Err(FieldError::invalid(
                format!("{path}.name"),
                format!(
                    "sensor names must be unique (each names a CSV file): `{name}` is used twice"
                ),
            ));
        }
        one(&path, sensor, scene, &bodies, &joints)?;
    }
    Ok(())
}

/// A sensor name becomes a file name: plain characters only, and none of the run
/// directory's own files.
fn name(path: &str, name: &str) -> Check {
    let plain = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if name.is_empty() || !plain || name.starts_with('.') {
        return Err(FieldError::invalid(
            format!("{path}.name"),
            format!("names the file <name>.csv: use letters, digits, `-`, `_` and `.` (not first), got `{name}`"),
        ));
    }
    let file = file_name(name);
    if RUN_FILES.contains(&file.as_str()) {
        return Err(FieldError::invalid(
            format!("{path}.name"),
            format!("{file} is a file of the run directory already: choose another name"),
        ));
    }
    Ok(())
}

fn one(
    path: &str,
    sensor: &SensorDesc,
    scene: &SceneFile,
    bodies: &HashMap<&str, &BodyDesc>,
    joints: &[String],
) -> Check {
    use SensorKind as K;
    let kind = sensor.kind;
    let type_name = kind_name(kind);
    // Which fields each type takes (the rest are refused).
    let range = kind == K::Range;
    let fields = [
        ("body", kind != K::ForceTorque, sensor.body.is_some()),
        ("joint", kind == K::ForceTorque, sensor.joint.is_some()),
        ("shape", kind == K::Overlap, sensor.shape.is_some()),
        ("position", range, sensor.position.is_some()),
        ("orientation", range, sensor.orientation.is_some()),
        ("axis_angle", range, sensor.axis_angle.is_some()),
        ("direction", range, sensor.direction.is_some()),
        ("beams", range, sensor.beams.is_some()),
        ("fov", range, sensor.fov.is_some()),
        ("directions", range, sensor.directions.is_some()),
        ("max_range", range, sensor.max_range.is_some()),
        ("exclude_body", range, sensor.exclude_body.is_some()),
        ("no_hit", range, sensor.no_hit.is_some()),
    ];
    for (field, applies, present) in fields {
        if present && !applies {
            return Err(FieldError::invalid(
                format!("{path}.{field}"),
                format!("does not apply to a {type_name} sensor"),
            ));
        }
    }
    if let Some(every) = sensor.every {
        if every == 0 {
            return Err(FieldError::invalid(
                format!("{path}.every"),
                "must be at least 1, got 0",
            ));
        }
    }
    if !scene.world.contacts && kind != K::ForceTorque {
        return Err(FieldError::invalid(
            format!("{path}.type"),
            format!("world.contacts = false builds no colliders, so a {type_name} sensor would measure nothing"),
        ));
    }
    // Names of model links and joints are known only once the models are loaded.
    let deferred = !scene.models.is_empty();
    let known_body = |field: &str, name: &str| -> Check {
        if bodies.contains_key(name) || deferred {
            Ok(())
        } else {
            Err(FieldError::invalid(
                format!("{path}.{field}"),
                format!("no body named `{name}`"),
            ))
        }
    };
    let required = |field: &str, what: &str| {
        FieldError::invalid(
            format!("{path}.{field}"),
            format!("required for a {type_name} sensor: {what}"),
        )
    };
    match kind {
        K::Range => {
            if let Some(body) = &sensor.body {
                if body != WORLD {
                    known_body("body", body)?;
                }
            }
            if let Some(body) = &sensor.exclude_body {
                known_body("exclude_body", body)?;
            }
            range_fields(path, sensor)
        }
        K::Contact => {
            let body = sensor
                .body
                .as_deref()
                .ok_or_else(|| required("body", "the body whose contacts it measures"))?;
            if body == WORLD {
                return Err(FieldError::invalid(
                    format!("{path}.body"),
                    "must name a body, not the static world (give the ground a static body of its own)",
                ));
            }
            known_body("body", body)
        }
        K::ForceTorque => {
            let joint = sensor
                .joint
                .as_deref()
                .ok_or_else(|| required("joint", "the joint it measures"))?;
            match joints.iter().filter(|j| *j == joint).count() {
                0 if !deferred => Err(FieldError::invalid(
                    format!("{path}.joint"),
                    format!("no joint named `{joint}` (unnamed joints are joint0, joint1, ...)"),
                )),
                0 | 1 => Ok(()),
                n => Err(FieldError::invalid(
                    format!("{path}.joint"),
                    format!("{n} joints are named `{joint}`: give the one to measure its own name"),
                )),
            }
        }
        K::Overlap => {
            let name = sensor
                .body
                .as_deref()
                .ok_or_else(|| required("body", "the scene body carrying the sensor shape"))?;
            let body = bodies.get(name).ok_or_else(|| {
                FieldError::invalid(
                    format!("{path}.body"),
                    format!("no body named `{name}` in [[bodies]] (an overlap sensor watches a shape with sensor = true)"),
                )
            })?;
            sensor_shape(body, sensor.shape.as_ref())
                .map(|_| ())
                .map_err(|rule| FieldError::invalid(format!("{path}.{}", rule.0), rule.1))
        }
    }
}

/// The index of the sensor shape of `body` that `shape` names (or its only one), or the
/// field and the rule broken.
fn sensor_shape(
    body: &BodyDesc,
    shape: Option<&ShapeRef>,
) -> Result<usize, (&'static str, String)> {
    let name = &body.name;
    let index = match shape {
        Some(ShapeRef::Index(j)) => {
            let count = body.shapes.len();
            usize::try_from(*j)
                .ok()
                .filter(|&j| j < count)
                .ok_or_else(|| {
                    (
                        "shape",
                        format!(
                            "body `{name}` has {count} shapes (0 to {}), got {j}",
                            count.max(1) - 1
                        ),
                    )
                })?
        }
        Some(ShapeRef::Name(wanted)) => body
            .shapes
            .iter()
            .position(|s| s.name.as_ref() == Some(wanted))
            .ok_or_else(|| {
                (
                    "shape",
                    format!("body `{name}` has no shape named `{wanted}`"),
                )
            })?,
        None => {
            let sensors: Vec<usize> = (0..body.shapes.len())
                .filter(|&j| body.shapes[j].sensor)
                .collect();
            return match sensors[..] {
                [j] => Ok(j),
                [] => Err((
                    "body",
                    format!("body `{name}` has no sensor shape: give one of its shapes sensor = true"),
                )),
                _ => Err((
                    "shape",
                    format!(
                        "body `{name}` has {} sensor shapes: say which with shape = its index or name",
                        sensors.len()
                    ),
                )),
            };
        }
    };
    if !body.shapes[index].sensor {
        return Err((
            "shape",
            format!("shape {index} of body `{name}` is not a sensor: give it sensor = true"),
        ));
    }
    Ok(index)
}

fn range_fields(path: &str, sensor: &SensorDesc) -> Check {
    let max_range = sensor.max_range.ok_or_else(|| {
        FieldError::invalid(
            format!("{path}.max_range"),
            "required for a range sensor: the longest distance measured, m",
        )
    })?;
    positive(&format!("{path}.max_range"), max_range)?;
    if let Some(position) = sensor.position {
        finite_vector(&format!("{path}.position"), position)?;
    }
    check_rotation(path, sensor.orientation, sensor.axis_angle.as_ref())?;
    if let Some(d) = sensor.direction {
        if sensor.orientation.is_some() || sensor.axis_angle.is_some() {
            return Err(FieldError::invalid(
                format!("{path}.direction"),
                "set one of orientation, axis_angle or direction",
            ));
        }
        direction(&format!("{path}.direction"), d)?;
    }
    match (sensor.beams, &sensor.directions) {
        (Some(_), Some(_)) => Err(FieldError::invalid(
            format!("{path}.directions"),
            "set either beams (with fov) or directions, not both",
        )),
        (None, None) => Err(FieldError::invalid(
            format!("{path}.beams"),
            "required for a range sensor: the number of beams of the fan (or a list of directions)",
        )),
        (Some(beams), None) => {
            if !(1..=MAX_BEAMS).contains(&beams) {
                return Err(FieldError::invalid(
                    format!("{path}.beams"),
                    format!("must lie in [1, {MAX_BEAMS}], got {beams}"),
                ));
            }
            match sensor.fov {
                Some(fov) if !(fov.is_finite() && fov > 0.0 && fov <= 360.0) => {
                    Err(FieldError::invalid(
                        format!("{path}.fov"),
                        format!("must lie in (0, 360] degrees, got {}", number(fov)),
                    ))
                }
                None if beams > 1 => Err(FieldError::invalid(
                    format!("{path}.fov"),
                    format!("required for a fan of {beams} beams: the angle it spans, degrees"),
                )),
                _ => Ok(()),
            }
        }
        (None, Some(directions)) => {
            if sensor.fov.is_some() {
                return Err(FieldError::invalid(
                    format!("{path}.fov"),
                    "applies to a fan of beams, not to a list of directions",
                ));
            }
            if directions.is_empty() || directions.len() as u64 > MAX_BEAMS {
                return Err(FieldError::invalid(
                    format!("{path}.directions"),
                    format!(
                        "must hold 1 to {MAX_BEAMS} directions, got {}",
                        directions.len()
                    ),
                ));
            }
            for (k, d) in directions.iter().enumerate() {
                direction(&format!("{path}.directions[{k}]"), *d)?;
            }
            Ok(())
        }
    }
}

/// A sensor of the built scene, ready to record.
#[derive(Debug, Clone)]
pub struct BuiltSensor {
    /// Its name (the CSV file is `<name>.csv`).
    pub name: String,
    /// Record every this many steps (and the last).
    pub every: u64,
    /// What it measures, with its engine handles.
    pub setup: SensorSetup,
}

/// What a sensor measures.
#[derive(Debug, Clone)]
pub enum SensorSetup {
    /// A range finder.
    Range(RangeSetup),
    /// The contacts of a body.
    Contact {
        /// The body.
        body: BodyHandle,
    },
    /// A joint's constraint force and torque.
    ForceTorque {
        /// The joint.
        joint: JointHandle,
    },
    /// A sensor collider's overlaps.
    Overlap {
        /// The sensor collider.
        collider: ColliderHandle,
    },
}

impl SensorSetup {
    /// The sensor type.
    pub fn kind(&self) -> SensorKind {
        match self {
            SensorSetup::Range(_) => SensorKind::Range,
            SensorSetup::Contact { .. } => SensorKind::Contact,
            SensorSetup::ForceTorque { .. } => SensorKind::ForceTorque,
            SensorSetup::Overlap { .. } => SensorKind::Overlap,
        }
    }
}

/// A range finder's beams in the frame of the body carrying it.
#[derive(Debug, Clone)]
pub struct RangeSetup {
    /// The body carrying it (`None`: fixed in the world).
    pub body: Option<BodyHandle>,
    /// Where the beams start, m, in the engine's body frame (centre of mass) or the world.
    pub origin: Vec3,
    /// Each beam's unit direction, same frame.
    pub directions: Vec<Vec3>,
    /// Longest distance measured, m.
    pub max_range: f64,
    /// The body whose colliders the beams do not see.
    pub exclude_body: Option<BodyHandle>,
    /// What a beam that hits nothing reads.
    pub no_hit: NoHitDesc,
}

/// The rotation taking x onto the unit vector `d` along the shortest arc (a half turn about
/// z for `-x`).
pub fn rotation_from_x(d: Vec3) -> Quat {
    if d.dot(Vec3::X) < -1.0 + 1e-12 {
        Quat::from_rotation_z(std::f64::consts::PI)
    } else {
        Quat::from_rotation_arc(Vec3::X, d)
    }
}

/// The unit directions, in the sensor frame, of a fan of `beams` beams spanning `fov`
/// degrees about z, centred on x: from `-fov/2` to `+fov/2` in equal steps (one beam: along
/// x; a full turn of 360 degrees: `beams` equal steps from -180 degrees, not repeating it).
pub fn fan(beams: u64, fov: f64) -> Vec<Vec3> {
    (0..beams)
        .map(|i| {
            let degrees = if beams == 1 {
                0.0
            } else if fov >= 360.0 {
                -180.0 + 360.0 * i as f64 / beams as f64
            } else {
                -0.5 * fov + fov * i as f64 / (beams - 1) as f64
            };
            let (sin, cos) = degrees.to_radians().sin_cos();
            Vec3::new(cos, sin, 0.0)
        })
        .collect()
}

/// Resolves the validated `[[sensors]]` of `scene` against the built bodies and joints
/// (models' links and joints included).
pub fn build(scene: &SceneFile, built: &BuiltScene) -> Result<Vec<BuiltSensor>, FieldError> {
    let mut sensors = Vec::with_capacity(scene.sensors.len());
    for (i, desc) in scene.sensors.iter().enumerate() {
        let path = format!("sensors[{i}]");
        let body = |field: &str, name: &str| {
            built.bodies.iter().find(|b| b.name == name).ok_or_else(|| {
                FieldError::invalid(
                    format!("{path}.{field}"),
                    format!("no body named `{name}` (in [[bodies]] or a model's links)"),
                )
            })
        };
        let setup = match desc.kind {
            SensorKind::Range => {
                let mount = match desc.body.as_deref() {
                    None | Some(WORLD) => None,
                    Some(name) => Some(body("body", name)?),
                };
                let exclude_body = match desc.exclude_body.as_deref() {
                    Some(name) => Some(body("exclude_body", name)?.handle),
                    None => mount.map(|b| b.handle),
                };
                let frame = match desc.direction {
                    Some(d) => rotation_from_x(Vec3::from_array(unit_scaled(d)).normalize()),
                    None => rotation(desc.orientation, desc.axis_angle.as_ref()),
                };
                let local = match &desc.directions {
                    Some(list) => list
                        .iter()
                        .map(|d| Vec3::from_array(unit_scaled(*d)).normalize())
                        .collect(),
                    None => fan(desc.beams.unwrap_or(1), desc.fov.unwrap_or(0.0)),
                };
                let position = Vec3::from_array(desc.position.unwrap_or_default());
                SensorSetup::Range(RangeSetup {
                    body: mount.map(|b| b.handle),
                    origin: mount.map_or(Vec3::ZERO, |b| b.origin) + position,
                    directions: local.into_iter().map(|d| frame * d).collect(),
                    max_range: desc.max_range.unwrap_or(f64::INFINITY),
                    exclude_body,
                    no_hit: desc.no_hit.unwrap_or_default(),
                })
            }
            SensorKind::Contact => SensorSetup::Contact {
                body: body("body", desc.body.as_deref().unwrap_or_default())?.handle,
            },
            SensorKind::ForceTorque => {
                let name = desc.joint.as_deref().unwrap_or_default();
                let mut found = built.joints.iter().filter(|j| j.name == name);
                let joint = match (found.next(), found.next()) {
                    (Some(joint), None) => joint.handle,
                    (None, _) => {
                        return Err(FieldError::invalid(
                            format!("{path}.joint"),
                            format!("no joint named `{name}` (in [[joints]] or a model's joints)"),
                        ))
                    }
                    (Some(_), Some(_)) => {
                        return Err(FieldError::invalid(
                            format!("{path}.joint"),
                            format!("several joints are named `{name}`: give the one to measure its own name"),
                        ))
                    }
                };
                SensorSetup::ForceTorque { joint }
            }
            SensorKind::Overlap => {
                let name = desc.body.as_deref().unwrap_or_default();
                let (desc_body, built_body) = scene
                    .bodies
                    .iter()
                    .find(|b| b.name == name)
                    .zip(built.bodies.iter().find(|b| b.name == name))
                    .ok_or_else(|| {
                        FieldError::invalid(
                            format!("{path}.body"),
                            format!("no body named `{name}` in [[bodies]]"),
                        )
                    })?;
                let j = sensor_shape(desc_body, desc.shape.as_ref()).map_err(|(field, rule)| {
                    FieldError::invalid(format!("{path}.{field}"), rule)
                })?;
                let collider = built_body
                    .colliders
                    .get(j)
                    .copied()
                    .flatten()
                    .ok_or_else(|| {
                        FieldError::invalid(
                            format!("{path}.shape"),
                            format!("shape {j} of body `{name}` has no collider"),
                        )
                    })?;
                SensorSetup::Overlap { collider }
            }
        };
        sensors.push(BuiltSensor {
            name: sensor_name(desc, i),
            every: desc.every.unwrap_or(1),
            setup,
        });
    }
    Ok(sensors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fans_are_centred_on_x_and_span_the_field_of_view() {
        let three = fan(3, 90.0);
        let s = std::f64::consts::FRAC_1_SQRT_2;
        for (got, want) in three
            .iter()
            .zip([Vec3::new(s, -s, 0.0), Vec3::X, Vec3::new(s, s, 0.0)])
        {
            assert!((*got - want).length() < 1e-15, "{got} {want}");
        }
        assert_eq!(fan(1, 90.0), vec![Vec3::X]);
        let round = fan(4, 360.0);
        assert!((round[0] + Vec3::X).length() < 1e-15);
        assert!((round[2] - Vec3::X).length() < 1e-15);
    }

    #[test]
    fn a_direction_turns_x_onto_it() {
        for d in [
            Vec3::X,
            -Vec3::X,
            Vec3::Z,
            -Vec3::Z,
            Vec3::new(1.0, 2.0, -3.0).normalize(),
        ] {
            let got = rotation_from_x(d) * Vec3::X;
            assert!((got - d).length() < 1e-15, "{d}: {got}");
        }
        // Looking down, the fan spreads along y.
        let down = rotation_from_x(-Vec3::Z);
        assert!((down * Vec3::Y - Vec3::Y).length() < 1e-15);
    }
}
