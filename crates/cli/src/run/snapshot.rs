//! `stiction run --snapshot-every N` and `--resume FILE`: world snapshots in the run
//! directory, and runs continued from one.
//!
//! Snapshots are written as `DIR/snapshot-<step>.bin` after step `<step>` is recorded, each
//! through a temporary file renamed into place, so a snapshot file is either complete or
//! absent. A resumed run needs the scene file too: it names the bodies and joints the CSV
//! files list, and gives the step size, the step count and what to record. The snapshot
//! must belong to that scene (same bodies, joints and colliders, same world settings, and
//! a time that its step count reaches with the scene's step size); the CSV files of the
//! resumed run then hold the rows of the steps after the snapshot, identical byte for byte
//! to the same rows of the uninterrupted run.

use std::path::{Path, PathBuf};

use stiction::{SnapshotError, Solver, World};

use crate::error::CliError;
use crate::readable::{number, vector};
use crate::scene::{colliders, BuiltScene};

/// The file a snapshot taken after `step` is written to in the run directory `out`.
pub fn snapshot_path(out: &Path, step: u64) -> PathBuf {
    out.join(format!("snapshot-{step}.bin"))
}

/// Writes the world after `step` to [`snapshot_path`], all or nothing.
pub fn write_snapshot(world: &World, out: &Path, step: u64) -> Result<PathBuf, CliError> {
    let path = snapshot_path(out, step);
    let partial = out.join(format!(".snapshot-{step}.bin.partial"));
    let result = (|| {
        let mut file = std::io::BufWriter::new(std::fs::File::create(&partial)?);
        world.save_snapshot(&mut file, step).map_err(|e| match e {
            SnapshotError::Io(io) => io,
            other => std::io::Error::other(other),
        })?;
        file.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&partial, &path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&partial);
        CliError::write(&path, e)
    })?;
    Ok(path)
}

/// Loads the snapshot `path` into `scene` (replacing its world) after checking that it was
/// taken from this scene; returns the step it was taken after. On any error `scene` is
/// unchanged and nothing has been written.
pub fn resume(path: &Path, scene: &mut BuiltScene) -> Result<u64, CliError> {
    let bad = |reason: String| CliError::RunDir {
        path: path.to_path_buf(),
        reason,
    };
    let reader = std::fs::File::open(path).map_err(|source| CliError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let snapshot = World::load_snapshot(std::io::BufReader::new(reader)).map_err(|e| match e {
        SnapshotError::Io(source) => CliError::Read {
            path: path.to_path_buf(),
            source,
        },
        other => bad(other.to_string()),
    })?;
    let (mut world, step) = (snapshot.world, snapshot.step);
    check_belongs(&world, step, scene).map_err(bad)?;
    // The contact hook is code, not state: install the scene's again (its jointed bodies,
    // its models' adjacent links and collision masks).
    colliders::install_contact_filter(&mut world, &scene.excluded_pairs, &scene.collision_masks);
    scene.world = world;
    Ok(step)
}

/// The stepper's name as `--solver` and `world.solver.type` write it.
fn solver_name(solver: &Solver) -> &'static str {
    match solver {
        Solver::Exact(_) => "exact",
        Solver::Iterative(_) => "iterative",
    }
}

/// Which world setting of the snapshot's world differs from the fresh scene's, with both
/// values, named as the user sets it (the option or the scene field); `None` if none does.
fn settings_difference(snapshot: &World, fresh: &World) -> Option<String> {
    let (then, now) = (snapshot.settings(), fresh.settings());
    let (solver_then, solver_now) = (solver_name(&then.solver), solver_name(&now.solver));
    if solver_then != solver_now {
        return Some(format!(
            "--solver (or world.solver.type) is `{solver_now}`, the snapshot was taken with \
             `{solver_then}`: resume with --solver {solver_then}"
        ));
    }
    // Settings have no equality; their debug text prints every number exactly.
    let text = |value: &dyn std::fmt::Debug| format!("{value:?}");
    let fields: [(&str, String, String); 8] = [
        (
            "world.gravity",
            vector(then.gravity.to_array()),
            vector(now.gravity.to_array()),
        ),
        ("world.solver", text(&then.solver), text(&now.solver)),
        (
            "world.erp",
            number(then.softness.erp),
            number(now.softness.erp),
        ),
        (
            "world.cfm",
            number(then.softness.cfm),
            number(now.softness.cfm),
        ),
        (
            "world.post_stabilization",
            text(&then.post_stabilization),
            text(&now.post_stabilization),
        ),
        (
            "world.restitution_threshold",
            number(then.contacts.restitution_threshold),
            number(now.contacts.restitution_threshold),
        ),
        ("world.sleeping", text(&then.sleep), text(&now.sleep)),
        (
            "the curvature correction",
            text(&then.curvature),
            text(&now.curvature),
        ),
    ];
    if let Some((name, then, now)) = fields.iter().find(|(_, then, now)| then != now) {
        return Some(format!("{name} is {now}, the snapshot has {then}"));
    }
    // Whether phases are timed changes no motion (a run times them, a fresh scene does not).
    let motion = |settings: &stiction::WorldSettings| {
        let mut settings = settings.clone();
        settings.time_phases = false;
        format!("{settings:?}")
    };
    (motion(then) != motion(now)).then(|| "a setting the scene file does not show".to_string())
}

/// Why the snapshot's world is not a state of `scene`'s, if it is not.
fn check_belongs(world: &World, step: u64, scene: &BuiltScene) -> Result<(), String> {
    let fresh = &scene.world;
    let counts = |w: &World| (w.body_count(), w.joint_count(), w.collider_count());
    if counts(world) != counts(fresh)
        || scene.bodies.iter().any(|b| world.body(b.handle).is_err())
        || scene.joints.iter().any(|j| world.joint(j.handle).is_err())
    {
        return Err(format!(
            "the snapshot's bodies, joints and colliders are not those of scene `{}`",
            scene.name
        ));
    }
    if let Some(difference) = settings_difference(world, fresh) {
        return Err(format!(
            "the snapshot's world settings differ from scene `{}`'s as run now: {difference}",
            scene.name
        ));
    }
    if step > scene.steps {
        return Err(format!(
            "the snapshot was taken after step {step}, past the run's {} steps",
            scene.steps
        ));
    }
    // The world sums its steps; the same sum must give its time exactly.
    let mut time = 0.0;
    for _ in 0..step {
        time += scene.h;
    }
    if time.to_bits() != world.time().to_bits() {
        return Err(format!(
            "the snapshot's time {} s is not step {step} at the scene's step of {} s",
            world.time(),
            scene.h
        ));
    }
    Ok(())
}
