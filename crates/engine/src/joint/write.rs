//! How the joint arena becomes rows: every enabled joint writes through the row writer,
//! except point joints, whose three rows are computed in place (see `points.rs`).

use crate::handles::{Arena, JointHandle};
use crate::joint::points::{push_point_rows, world_anchors, EqualityBlock, FixedRows};
use crate::joint::{AxisDynamics, Joint, JointRows};
use crate::rows::hot::Pair;
use crate::rows::{Pose, RowMotion, RowPass, RowStorage, RowWriter, Softness};
use std::ops::Range;

/// Appends the rows of every enabled joint for bodies at `poses` (indexed by slot,
/// the ground last), in the columns `pass` asks for (a positional pass keeps only the
/// stabilised rows of joints with post-stabilisation on); `record` receives each joint's
/// slot and row range. `motion`, the bodies' velocities (indexed like `poses`) and the
/// step, is for joints whose rows depend on the motion (limits, bounces, springs); `None`
/// in the position passes, where the bodies count as still.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_joint_rows_moving(
    joints: &Arena<Joint, JointHandle>,
    poses: &[Pose],
    motion: Option<(&[Pair], f64)>,
    ground: u32,
    softness: Softness,
    pass: RowPass,
    storage: &mut RowStorage,
    fixed_rows: &mut FixedRows,
    mut record: impl FnMut(usize, Range<usize>),
) {
    let positional = pass.positional();
    // Consecutive fixed-structure joints' rows are batched, and flushed into `storage`
    // (at `start`) before any other joint writes, so rows keep the joints' order.
    fixed_rows.clear();
    let mut start = storage.len();
    for (handle, joint) in joints.iter().filter(|(_, j)| writes_rows(j, positional)) {
        let [a, b] = joint_slots(joint, ground);
        let (pose_a, pose_b) = (&poses[a as usize], &poses[b as usize]);
        // A fixed-structure joint's full rows without the writer (every column is kept in
        // these passes; its rows are all stabilised, so positional passes keep them all).
        if let (false, Some((local_a, local_b))) = (pass.errors_only(), joint.kind.fixed_point()) {
            let before = fixed_rows.pending();
            let (anchor_a, anchor_b) = world_anchors(pose_a, pose_b, *local_a, *local_b);
            push_point_rows(pose_a, pose_b, anchor_a, anchor_b, storage);
            fixed_rows.push(EqualityBlock {
                bodies: [a, b],
                softness: joint.softness.unwrap_or(softness),
                rows: 3,
            });
            record(handle.index(), start + before..start + before + 3);
            continue;
        }
        fixed_rows.flush_into(storage);
        let row_motion = motion.map(|(velocities, h)| {
            let ([linear_a, angular_a], [linear_b, angular_b]) =
                (velocities[a as usize], velocities[b as usize]);
            RowMotion {
                linear_a,
                angular_a,
                linear_b,
                angular_b,
                h,
            }
        });
        let mut writer = storage
            .writer(
                [a, b],
                [poses[a as usize], poses[b as usize]],
                joint.softness.unwrap_or(softness),
                positional,
            )
            .errors_only(pass.errors_only())
            .with_motion(row_motion);
        joint.kind.write_rows(&mut writer);
        // Friction, damping and servos are never stabilised: a positional pass drops them.
        if !positional {
            write_dynamics_rows(joint, &mut writer);
        }
        record(handle.index(), writer.range());
        start = storage.len();
    }
    fixed_rows.flush_into(storage);
}

/// Appends the friction, damping and servo rows of `joint`'s axes (after its type's rows),
/// axis by axis; nothing for a joint without them.
fn write_dynamics_rows(joint: &Joint, writer: &mut RowWriter) {
    if joint.dynamics.iter().all(AxisDynamics::is_none) {
        return;
    }
    let axes = joint.kind.axis_count().min(joint.dynamics.len());
    for (index, dynamics) in joint.dynamics[..axes].iter().enumerate() {
        if dynamics.is_none() {
            continue;
        }
        if let Some(axis) = joint.kind.axis(index, writer.pose_a(), writer.pose_b()) {
            dynamics.write_rows(writer, &axis);
        }
    }
}

/// Whether [`write_joint_rows_moving`] writes `joint`'s rows in a pass that is
/// `positional` or not.
fn writes_rows(joint: &Joint, positional: bool) -> bool {
    joint.enabled && (!positional || joint.post_stabilize)
}

/// The solver slots of `joint`'s bodies, `ground` for the static world.
pub(crate) fn joint_slots(joint: &Joint, ground: u32) -> [u32; 2] {
    [
        joint.body_a.index() as u32,
        joint.body_b.map_or(ground, |h| h.index() as u32),
    ]
}
