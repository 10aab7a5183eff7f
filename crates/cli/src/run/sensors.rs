//! The `[[sensors]]` of a run: one CSV file per sensor, `<name>.csv` in the run directory,
//! a row every `every` steps (and at the last step; step 0 is the initial state).
//!
//! Nothing is allocated per step: a range sensor keeps its rays and its hits in buffers
//! sized once ([`World::cast_rays`] writes into them), and rows are written number by
//! number into the file's buffer. Event counts (pairs that began or ended touching,
//! overlaps that began or ended) are taken from every step, so a row counts the events of
//! every step since the previous row, whatever `every` is.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use stiction::math::Vec3;
use stiction::{EventKind, QueryFilter, Ray, RayHit, World};

use crate::scene::schema::NoHitDesc;
use crate::scene::sensors::{file_name, BuiltSensor, RangeSetup, SensorSetup};

/// Columns of a contact sensor's file.
pub const CONTACT_COLUMNS: &[&str] = &[
    "step",
    "time",
    "pairs",
    "began",
    "ended",
    "normal_impulse",
    "friction_impulse",
    "force_x",
    "force_y",
    "force_z",
    "torque_x",
    "torque_y",
    "torque_z",
];

/// Columns of a force-torque sensor's file.
pub const FORCE_TORQUE_COLUMNS: &[&str] = &[
    "step",
    "time",
    "force_a_x",
    "force_a_y",
    "force_a_z",
    "torque_a_x",
    "torque_a_y",
    "torque_a_z",
    "force_b_x",
    "force_b_y",
    "force_b_z",
    "torque_b_x",
    "torque_b_y",
    "torque_b_z",
    "anchor_torque_a_x",
    "anchor_torque_a_y",
    "anchor_torque_a_z",
];

/// Columns of an overlap sensor's file.
pub const OVERLAP_COLUMNS: &[&str] = &["step", "time", "overlaps", "began", "ended"];

/// The columns of a sensor's file (a range sensor: `step`, `time`, `beam0`, `beam1`, ...).
pub fn columns(sensor: &BuiltSensor) -> Vec<String> {
    let fixed = |c: &[&str]| c.iter().map(|s| s.to_string()).collect();
    match &sensor.setup {
        SensorSetup::Range(range) => ["step".to_string(), "time".to_string()]
            .into_iter()
            .chain((0..range.directions.len()).map(|i| format!("beam{i}")))
            .collect(),
        SensorSetup::Contact { .. } => fixed(CONTACT_COLUMNS),
        SensorSetup::ForceTorque { .. } => fixed(FORCE_TORQUE_COLUMNS),
        SensorSetup::Overlap { .. } => fixed(OVERLAP_COLUMNS),
    }
}

/// The files the sensors of a scene write, in order.
pub fn files(sensors: &[BuiltSensor]) -> Vec<String> {
    sensors.iter().map(|s| file_name(&s.name)).collect()
}

/// What one sensor keeps between rows.
enum State {
    Range {
        setup: RangeSetup,
        rays: Vec<Ray>,
        hits: Vec<Option<RayHit>>,
    },
    Contact {
        body: stiction::BodyHandle,
        began: u64,
        ended: u64,
    },
    ForceTorque {
        joint: stiction::JointHandle,
    },
    Overlap {
        collider: stiction::ColliderHandle,
        began: u64,
        ended: u64,
    },
}

struct Entry {
    every: u64,
    out: BufWriter<File>,
    state: State,
}

/// The open files of a run's sensors.
pub struct SensorRecorder {
    entries: Vec<Entry>,
}

fn vector(out: &mut impl Write, v: Vec3) -> std::io::Result<()> {
    write!(out, ",{},{},{}", v.x, v.y, v.z)
}

impl SensorRecorder {
    /// Creates every sensor's file in `dir` (which exists), with its header.
    pub fn create(dir: &Path, sensors: &[BuiltSensor]) -> std::io::Result<Self> {
        let mut entries = Vec::with_capacity(sensors.len());
        for sensor in sensors {
            let mut out = BufWriter::new(File::create(dir.join(file_name(&sensor.name)))?);
            writeln!(out, "{}", columns(sensor).join(","))?;
            let state = match &sensor.setup {
                SensorSetup::Range(setup) => State::Range {
                    rays: setup
                        .directions
                        .iter()
                        .map(|&d| Ray::new(setup.origin, d))
                        .collect(),
                    hits: Vec::with_capacity(setup.directions.len()),
                    setup: setup.clone(),
                },
                &SensorSetup::Contact { body } => State::Contact {
                    body,
                    began: 0,
                    ended: 0,
                },
                &SensorSetup::ForceTorque { joint } => State::ForceTorque { joint },
                &SensorSetup::Overlap { collider } => State::Overlap {
                    collider,
                    began: 0,
                    ended: 0,
                },
            };
            entries.push(Entry {
                every: sensor.every,
                out,
                state,
            });
        }
        Ok(Self { entries })
    }

    /// Whether the run has no sensors.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Takes the events of the step just taken (`step`; 0 for the initial state, which has
    /// none) and writes the row of every sensor due at `step` (a multiple of its `every`,
    /// or `last`). Range sensors first bring the queries' tree up to the current poses
    /// ([`World::refresh_queries`], which changes nothing in the simulation).
    pub fn record(&mut self, world: &mut World, step: u64, last: u64) -> std::io::Result<()> {
        if step > 0 {
            self.count_events(world);
        }
        let due = |entry: &Entry| step % entry.every == 0 || step == last;
        let ranging = self
            .entries
            .iter()
            .any(|e| due(e) && matches!(e.state, State::Range { .. }));
        if ranging {
            world.refresh_queries();
        }
        let world: &World = world;
        let time = world.time();
        for entry in &mut self.entries {
            if !due(entry) {
                continue;
            }
            let out = &mut entry.out;
            write!(out, "{step},{time}")?;
            match &mut entry.state {
                State::Range { setup, rays, hits } => {
                    range_row(world, setup, rays, hits, out)?;
                }
                State::Contact { body, began, ended } => {
                    let (mut pairs, mut normal, mut friction) = (0_u64, 0.0, 0.0);
                    for pair in world.contact_pairs() {
                        if pair.bodies.contains(&Some(*body)) {
                            pairs += 1;
                            normal += pair.normal_impulse;
                            friction += pair.friction_impulse;
                        }
                    }
                    let wrench = world.contact_force(*body).unwrap_or_default();
                    write!(out, ",{pairs},{began},{ended},{normal},{friction}")?;
                    vector(out, wrench.force)?;
                    vector(out, wrench.torque)?;
                    (*began, *ended) = (0, 0);
                }
                State::ForceTorque { joint } => {
                    let f = world
                        .joint(*joint)
                        .map(|j| j.feedback())
                        .unwrap_or_default();
                    for v in [
                        f.force_a,
                        f.torque_a,
                        f.force_b,
                        f.torque_b,
                        f.anchor_torque_a,
                    ] {
                        vector(out, v)?;
                    }
                }
                State::Overlap {
                    collider,
                    began,
                    ended,
                } => {
                    let overlaps = world.sensor_overlaps(*collider).map_or(0, <[_]>::len);
                    write!(out, ",{overlaps},{began},{ended}")?;
                    (*began, *ended) = (0, 0);
                }
            }
            writeln!(out)?;
        }
        Ok(())
    }

    /// Adds the last step's began and ended pairs to the contact and overlap sensors'
    /// counts.
    fn count_events(&mut self, world: &World) {
        let tally = |kind: EventKind, began: &mut u64, ended: &mut u64| match kind {
            EventKind::Started => *began += 1,
            EventKind::Stopped => *ended += 1,
        };
        for entry in &mut self.entries {
            match &mut entry.state {
                State::Contact { body, began, ended } => {
                    for event in world.contact_events() {
                        if event.bodies.contains(&Some(*body)) {
                            tally(event.kind, began, ended);
                        }
                    }
                }
                State::Overlap {
                    collider,
                    began,
                    ended,
                } => {
                    for event in world.sensor_events() {
                        if event.sensor == *collider {
                            tally(event.kind, began, ended);
                        }
                    }
                }
                State::Range { .. } | State::ForceTorque { .. } => {}
            }
        }
    }

    /// Flushes every file.
    pub fn finish(&mut self) -> std::io::Result<()> {
        for entry in &mut self.entries {
            entry.out.flush()?;
        }
        Ok(())
    }
}

/// Casts a range sensor's beams from its body's current pose (one [`World::cast_rays`])
/// and writes one distance per beam.
fn range_row(
    world: &World,
    setup: &RangeSetup,
    rays: &mut [Ray],
    hits: &mut Vec<Option<RayHit>>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let pose = world.pose(setup.body).unwrap_or(stiction::Pose::IDENTITY);
    let origin = pose.transform_point(setup.origin);
    for (ray, &d) in rays.iter_mut().zip(&setup.directions) {
        *ray = Ray::new(origin, pose.rotate(d));
    }
    let mut filter = QueryFilter::new().exclude_sensors();
    if let Some(body) = setup.exclude_body {
        filter = filter.exclude_body(body);
    }
    world.cast_rays(rays, setup.max_range, &filter, hits);
    for hit in hits.iter() {
        match (hit, setup.no_hit) {
            (Some(hit), _) => write!(out, ",{}", hit.toi)?,
            (None, NoHitDesc::Empty) => write!(out, ",")?,
            (None, NoHitDesc::MaxRange) => write!(out, ",{}", setup.max_range)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::record;
    use crate::scene::sensors::RUN_FILES;

    #[test]
    fn sensors_cannot_take_the_run_directory_files() {
        for file in [
            record::TRAJECTORY_FILE,
            record::STATS_FILE,
            record::JOINT_FORCES_FILE,
            record::CONTACT_FORCES_FILE,
        ] {
            assert!(RUN_FILES.contains(&file), "{file}");
        }
    }

    #[test]
    fn a_range_sensor_reuses_its_buffers_every_step() {
        let text = r#"
            [[bodies]]
            name = "ground"
            kind = "static"
            shapes = [{ type = "plane" }]

            [[bodies]]
            name = "box"
            position = [0.0, 0.0, 1.0]
            shapes = [{ type = "box", half_extents = [0.1, 0.1, 0.1] }]

            [[sensors]]
            name = "lidar"
            type = "range"
            position = [0.0, 0.0, 3.0]
            direction = [0.0, 0.0, -1.0]
            beams = 64
            fov = 90.0
            max_range = 10.0
        "#;
        let file = crate::scene::parse::parse_scene(
            text,
            crate::scene::parse::Format::Toml,
            Path::new("s.toml"),
        )
        .unwrap();
        let mut scene = crate::scene::check_and_build(&file, Path::new("s.toml")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut recorder = SensorRecorder::create(dir.path(), &scene.sensors).unwrap();
        let buffers = |r: &SensorRecorder| match &r.entries[0].state {
            State::Range { rays, hits, .. } => (
                rays.as_ptr() as usize,
                hits.as_ptr() as usize,
                hits.capacity(),
            ),
            _ => unreachable!(),
        };
        recorder.record(&mut scene.world, 0, 20).unwrap();
        let first = buffers(&recorder);
        assert_eq!(first.2, 64);
        for step in 1..=20 {
            scene.world.step(scene.h).unwrap();
            recorder.record(&mut scene.world, step, 20).unwrap();
            assert_eq!(buffers(&recorder), first, "step {step}");
        }
        recorder.finish().unwrap();
    }
}
