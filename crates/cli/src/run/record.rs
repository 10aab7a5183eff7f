//! The CSV files of a run directory. Column lists are constants so the documentation, the
//! writers, the renderer and the tests agree.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Duration;

use stiction::math::Vec3;
use stiction::{StepStats, World};

use crate::run::measure::Invariants;
use crate::scene::BuiltScene;

/// trajectory.csv: one row per body per recorded step.
pub const TRAJECTORY_FILE: &str = "trajectory.csv";
/// stats.csv: one row per recorded step.
pub const STATS_FILE: &str = "stats.csv";
/// joint_forces.csv: one row per joint per recorded step.
pub const JOINT_FORCES_FILE: &str = "joint_forces.csv";
/// contact_forces.csv: one row per contact point per recorded step.
pub const CONTACT_FORCES_FILE: &str = "contact_forces.csv";
/// The effective scene (after command-line overrides) as JSON.
pub const SCENE_FILE: &str = "scene.json";
/// The run summary as JSON.
pub const SUMMARY_FILE: &str = "summary.json";

/// Columns of trajectory.csv: centre-of-mass position (m), orientation quaternion, linear
/// (m/s) and angular (rad/s) velocity, world frame; whether the body sleeps (0 or 1) and
/// its island (a number from 0, empty for none; `stiction_viewer::body_islands`).
pub const TRAJECTORY_COLUMNS: &[&str] = &[
    "step", "time", "body", "x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy",
    "wz", "asleep", "island",
];

/// Columns of stats.csv.
pub const STATS_COLUMNS: &[&str] = &[
    "step",
    "time",
    "wall_ms",
    "forces_ms",
    "rows_ms",
    "islands_ms",
    "solve_ms",
    "integration_ms",
    "post_stabilization_ms",
    "rows",
    "islands",
    "pivots",
    "sweeps",
    "direct_islands",
    "residual",
    "unsolved_islands",
    "fallbacks",
    "kinetic_energy",
    "potential_energy",
    "energy",
    "momentum_x",
    "momentum_y",
    "momentum_z",
    "angular_momentum_x",
    "angular_momentum_y",
    "angular_momentum_z",
    "max_penetration",
    "max_joint_error",
];

/// Columns of joint_forces.csv: force (N) and torque (N m, about each body's centre of mass)
/// the joint applied to each body, world frame.
pub const JOINT_FORCE_COLUMNS: &[&str] = &[
    "step",
    "time",
    "joint",
    "body_a",
    "body_b",
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
];

/// Columns of contact_forces.csv: the two bodies (`world` for static geometry), the contact
/// point (m), the unit normal from A into B, the signed separation (m, negative when
/// penetrating) and the force on B (N; A receives the opposite), world frame.
pub const CONTACT_FORCE_COLUMNS: &[&str] = &[
    "step",
    "time",
    "body_a",
    "body_b",
    "x",
    "y",
    "z",
    "normal_x",
    "normal_y",
    "normal_z",
    "separation",
    "force_x",
    "force_y",
    "force_z",
];

/// The deepest penetration of any contact of the last step, m (0 without contacts).
pub fn max_penetration(world: &World) -> f64 {
    world
        .contacts()
        .iter()
        .map(|c| -c.geometry.separation)
        .fold(0.0, f64::max)
}

/// The open CSV writers of one run.
pub struct Recorder {
    trajectory: Option<BufWriter<File>>,
    stats: Option<BufWriter<File>>,
    joint_forces: Option<BufWriter<File>>,
    contact_forces: Option<BufWriter<File>>,
}

fn create(dir: &Path, name: &str, columns: &[&str]) -> std::io::Result<BufWriter<File>> {
    let mut out = BufWriter::new(File::create(dir.join(name))?);
    writeln!(out, "{}", columns.join(","))?;
    Ok(out)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn vector(v: Vec3) -> String {
    format!("{},{},{}", v.x, v.y, v.z)
}

impl Recorder {
    /// Creates the files the scene's `record` settings ask for in `dir` (which exists).
    pub fn create(dir: &Path, scene: &BuiltScene) -> std::io::Result<Self> {
        let record = &scene.record;
        Ok(Self {
            trajectory: record
                .trajectory
                .then(|| create(dir, TRAJECTORY_FILE, TRAJECTORY_COLUMNS))
                .transpose()?,
            stats: record
                .stats
                .then(|| create(dir, STATS_FILE, STATS_COLUMNS))
                .transpose()?,
            joint_forces: record
                .joint_forces
                .then(|| create(dir, JOINT_FORCES_FILE, JOINT_FORCE_COLUMNS))
                .transpose()?,
            contact_forces: record
                .contact_forces
                .then(|| create(dir, CONTACT_FORCES_FILE, CONTACT_FORCE_COLUMNS))
                .transpose()?,
        })
    }

    /// Writes one recorded step. `stats` is `None` for the initial state (step 0).
    pub fn record(
        &mut self,
        scene: &BuiltScene,
        step: u64,
        stats: Option<&StepStats>,
        invariants: &Invariants,
    ) -> std::io::Result<()> {
        let world: &World = &scene.world;
        let time = world.time();
        if let Some(out) = &mut self.trajectory {
            let handles: Vec<_> = scene.bodies.iter().map(|b| b.handle).collect();
            let islands = stiction_viewer::body_islands(world, &handles);
            for (body, island) in scene.bodies.iter().zip(islands) {
                let Ok(b) = world.body(body.handle) else {
                    continue;
                };
                let q = b.orientation();
                let asleep = u8::from(world.is_sleeping(body.handle).unwrap_or(false));
                let island = island.map_or(String::new(), |i| i.to_string());
                writeln!(
                    out,
                    "{step},{time},{},{},{},{},{},{},{},{},{asleep},{island}",
                    body.name,
                    vector(b.position()),
                    q.w,
                    q.x,
                    q.y,
                    q.z,
                    vector(b.linear_velocity()),
                    vector(b.angular_velocity()),
                )?;
            }
        }
        if let Some(out) = &mut self.stats {
            let empty = StepStats::default();
            let s = stats.unwrap_or(&empty);
            let t = &s.times;
            writeln!(
                out,
                "{step},{time},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                ms(t.total),
                ms(t.forces),
                ms(t.rows),
                ms(t.islands),
                ms(t.solve),
                ms(t.integration),
                ms(t.post_stabilization),
                s.rows,
                s.islands,
                s.pivots,
                s.sweeps,
                s.direct_islands,
                s.worst_residual,
                s.unsolved_islands,
                s.fallbacks,
                invariants.kinetic,
                invariants.potential,
                invariants.energy(),
                vector(invariants.momentum),
                vector(invariants.angular_momentum),
                max_penetration(world),
                invariants.joint_error,
            )?;
        }
        if let Some(out) = &mut self.joint_forces {
            for joint in &scene.joints {
                let Ok(j) = world.joint(joint.handle) else {
                    continue;
                };
                let name_of = |h| {
                    scene
                        .bodies
                        .iter()
                        .find(|b| b.handle == h)
                        .map_or("?", |b| b.name.as_str())
                };
                let body_b = j.body_b().map_or("world", name_of);
                let f = j.feedback();
                writeln!(
                    out,
                    "{step},{time},{},{},{},{},{},{},{}",
                    joint.name,
                    name_of(j.body_a()),
                    body_b,
                    vector(f.force_a),
                    vector(f.torque_a),
                    vector(f.force_b),
                    vector(f.torque_b),
                )?;
            }
        }
        if let Some(out) = &mut self.contact_forces {
            let name_of = |h: Option<stiction::BodyHandle>| {
                h.and_then(|h| scene.bodies.iter().find(|b| b.handle == h))
                    .map_or("world", |b| b.name.as_str())
            };
            for contact in world.contacts() {
                let g = &contact.geometry;
                writeln!(
                    out,
                    "{step},{time},{},{},{},{},{},{}",
                    name_of(g.bodies[0]),
                    name_of(g.bodies[1]),
                    vector(g.point),
                    vector(g.normal),
                    g.separation,
                    vector(contact.force),
                )?;
            }
        }
        Ok(())
    }

    /// Flushes every file.
    pub fn finish(&mut self) -> std::io::Result<()> {
        for out in [
            &mut self.trajectory,
            &mut self.stats,
            &mut self.joint_forces,
            &mut self.contact_forces,
        ]
        .into_iter()
        .flatten()
        {
            out.flush()?;
        }
        Ok(())
    }
}
