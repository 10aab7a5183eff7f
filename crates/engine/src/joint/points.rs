//! The step's point joints (ball joints) as flat arrays.
//!
//! A point joint's rows are always the three point-to-point rows at its two anchors
//! ([`JointRows::fixed_point`]), so its errors and Jacobians can be computed without the
//! row writer. The curvature look-ahead and every post-stabilisation pass re-read them (a
//! chain: about four times a step); walking the joint arena each time, with a dispatch and
//! a filter per joint, cost as much as the anchors' arithmetic. [`PointJoints::gather`]
//! copies the slots and anchors out once a step, in the order the steppers write joints
//! (docs/performance.md#point-joint-fast-path).

use std::ops::Range;

use crate::handles::Arena;
use crate::handles::JointHandle;
use crate::joint::Joint;
use crate::math::Vec3;
use crate::rows::{parts, JacobianRow, Pose, RowStorage, Softness};

/// The enabled joints of one step, if they are point joints, in arena order (that of
/// [`crate::joint::write_joint_rows_moving`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct PointJoints {
    joints: Vec<PointJoint>,
    /// Whether every enabled joint is a point joint (the velocity passes' joints).
    all_enabled: bool,
    /// Whether every post-stabilised enabled joint is a point joint (the positional
    /// passes' joints).
    all_stabilized: bool,
}

/// One point joint of [`PointJoints`].
#[derive(Debug, Clone, Copy, Default)]
struct PointJoint {
    /// Its anchors in A's and B's body frames.
    anchors: [Vec3; 2],
    /// The solver slots of its bodies (the ground's for the static world).
    bodies: [u32; 2],
    /// Its arena slot.
    slot: u32,
    /// Whether post-stabilisation projects it.
    stabilized: bool,
}

impl PointJoints {
    /// Reads the enabled joints of `joints` (`ground`: the static world's slot). Joints
    /// that are not point joints are not listed; they only clear the flags saying the
    /// list is complete.
    pub(crate) fn gather(&mut self, joints: &Arena<Joint, JointHandle>, ground: u32) {
        self.all_enabled = true;
        self.all_stabilized = true;
        // Written in place into room made beforehand: a push's possible reallocation made
        // the compiler keep each entry on the stack across the call and copy it through
        // mismatched widths, stalling a store-to-load forward per copy
        // (docs/performance.md#point-joint-fast-path).
        self.joints.clear();
        self.joints.resize(joints.len(), PointJoint::default());
        let mut listed = 0;
        for (handle, joint) in joints.iter().filter(|(_, joint)| joint.enabled) {
            let Some((anchor_a, anchor_b)) = joint.kind.fixed_point() else {
                self.all_enabled = false;
                self.all_stabilized &= !joint.post_stabilize;
                continue;
            };
            let entry = &mut self.joints[listed];
            entry.anchors = [*anchor_a, *anchor_b];
            entry.bodies = crate::joint::joint_slots(joint, ground);
            entry.slot = handle.index() as u32;
            entry.stabilized = joint.post_stabilize;
            listed += 1;
        }
        self.joints.truncate(listed);
    }

    /// Whether the joints a pass writes (the post-stabilised ones if `positional`, else
    /// every enabled one) are all listed.
    pub(crate) fn complete(&self, positional: bool) -> bool {
        if positional {
            self.all_stabilized
        } else {
            self.all_enabled
        }
    }

    /// The listed joints a pass (`positional` or not) writes.
    fn written(&self, positional: bool) -> impl Iterator<Item = &PointJoint> + '_ {
        self.joints
            .iter()
            .filter(move |joint| joint.stabilized || !positional)
    }

    /// Fills `errors` with the errors of the rows a pass (`positional` or not) writes,
    /// joint by joint in the steppers' order, for bodies at `poses` (indexed by slot),
    /// `record` receiving each joint's slot and range in `errors`, and returns `true`, if
    /// the pass's joints are all point joints ([`Self::complete`]); else returns `false`
    /// with `errors` empty, and the caller writes the rows.
    pub(crate) fn push_errors(
        &self,
        poses: &[Pose],
        positional: bool,
        errors: &mut Vec<f64>,
        mut record: impl FnMut(usize, Range<usize>),
    ) -> bool {
        errors.clear();
        if !self.complete(positional) {
            return false;
        }
        for joint in self.written(positional) {
            let ([a, b], [local_a, local_b]) = (joint.bodies, joint.anchors);
            let (anchor_a, anchor_b) =
                world_anchors(&poses[a as usize], &poses[b as usize], local_a, local_b);
            let start = errors.len();
            errors.extend_from_slice(&parts::point_errors(anchor_a, anchor_b));
            record(joint.slot as usize, start..start + 3);
        }
        true
    }

    /// Fills `rows` with the full rows (Jacobian and error) of the post-stabilised joints
    /// for bodies at `poses`, in the steppers' order, and `bodies` with each row's body
    /// slots, and returns `true`, if those joints are all point joints; else returns
    /// `false` with both empty.
    pub(crate) fn push_stabilized_rows(
        &self,
        poses: &[Pose],
        rows: &mut Vec<(JacobianRow, f64)>,
        bodies: &mut Vec<[u32; 2]>,
    ) -> bool {
        rows.clear();
        bodies.clear();
        if !self.complete(true) {
            return false;
        }
        for joint in self.written(true) {
            let ([a, b], [local_a, local_b]) = (joint.bodies, joint.anchors);
            let (pose_a, pose_b) = (&poses[a as usize], &poses[b as usize]);
            let (anchor_a, anchor_b) = world_anchors(pose_a, pose_b, local_a, local_b);
            point_rows(pose_a, pose_b, anchor_a, anchor_b, |jacobian, error| {
                rows.push((jacobian, error));
            });
            bodies.extend_from_slice(&[[a, b]; 3]);
        }
        true
    }

    /// Writes the full rows of the post-stabilised joints for bodies at `poses` straight
    /// into `jacobian` and `error` (rows in the steppers' order, as many as the joints
    /// have), and returns `true`, if those joints are all point joints with exactly that
    /// many rows and, given `bodies` (each row's body slots as last written), on those
    /// bodies; else returns `false`, having written some rows. Post-stabilisation's chain
    /// re-reads its rows this way, without a staging buffer.
    pub(crate) fn write_stabilized_rows(
        &self,
        poses: &[Pose],
        bodies: Option<&[[u32; 2]]>,
        jacobian: &mut [JacobianRow],
        error: &mut [f64],
    ) -> bool {
        if !self.complete(true) || jacobian.len() != error.len() {
            return false;
        }
        let mut row = 0;
        for joint in self.written(true) {
            let ([a, b], [local_a, local_b]) = (joint.bodies, joint.anchors);
            let rows = row..row + 3;
            if rows.end > jacobian.len()
                || bodies.is_some_and(|bodies| bodies[rows.clone()] != [[a, b]; 3])
            {
                return false;
            }
            let (pose_a, pose_b) = (&poses[a as usize], &poses[b as usize]);
            let (anchor_a, anchor_b) = world_anchors(pose_a, pose_b, local_a, local_b);
            point_rows(pose_a, pose_b, anchor_a, anchor_b, |j, e| {
                (jacobian[row], error[row]) = (j, e);
                row += 1;
            });
        }
        row == jacobian.len()
    }
}

/// The three point rows (Jacobian and error) of world anchors `anchor_a` and `anchor_b`
/// for bodies at `pose_a` and `pose_b`, each handed to `put`, as
/// [`parts::point_to_point`] writes them (both routes agree bit for bit).
#[inline(always)]
fn point_rows(
    pose_a: &Pose,
    pose_b: &Pose,
    anchor_a: Vec3,
    anchor_b: Vec3,
    mut put: impl FnMut(JacobianRow, f64),
) {
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        let row = parts::linear_row_at(pose_a, pose_b, axis, anchor_a, anchor_b);
        put(row.jacobian, row.error);
    }
}

/// Pushes the three point rows' Jacobians and errors of anchors `anchor_a` and `anchor_b`
/// (world) for bodies at `pose_a` and `pose_b` onto `storage`'s `jacobian` and `error`
/// columns, for a [`FixedRows`] batch to complete.
pub(crate) fn push_point_rows(
    pose_a: &Pose,
    pose_b: &Pose,
    anchor_a: Vec3,
    anchor_b: Vec3,
    storage: &mut RowStorage,
) {
    point_rows(pose_a, pose_b, anchor_a, anchor_b, |jacobian, error| {
        storage.jacobian.push(jacobian);
        storage.error.push(error);
    });
}

/// The world anchors of body-frame anchors `local_a` (on A, at `pose_a`) and `local_b`.
#[inline]
pub(crate) fn world_anchors(
    pose_a: &Pose,
    pose_b: &Pose,
    local_a: Vec3,
    local_b: Vec3,
) -> (Vec3, Vec3) {
    (
        pose_a.transform_point(local_a),
        pose_b.transform_point(local_b),
    )
}

/// Fixed-structure joints' rows on their way into a [`RowStorage`]: their Jacobians and
/// errors are pushed onto its `jacobian` and `error` columns directly, and the batch keeps
/// each joint's bodies, softness and row count, from which [`Self::flush_into`] completes
/// the other columns (`complete_into`). Until then the storage's
/// `jacobian` and `error` columns are longer than the others by [`Self::pending`].
#[derive(Debug, Clone, Default)]
pub(crate) struct FixedRows {
    blocks: Vec<EqualityBlock>,
    pending: usize,
}

impl FixedRows {
    /// Empties the batch.
    pub(crate) fn clear(&mut self) {
        self.blocks.clear();
        self.pending = 0;
    }

    /// Rows whose Jacobians and errors were pushed since the last flush.
    pub(crate) fn pending(&self) -> usize {
        self.pending
    }

    /// Records a joint's rows, whose Jacobians and errors were just pushed.
    pub(crate) fn push(&mut self, block: EqualityBlock) {
        self.pending += block.rows;
        self.blocks.push(block);
    }

    /// Completes every joint's rows of the batch in `storage`, whose Jacobians and errors are already
    /// pushed: unbounded, stabilised rows of the joint's bodies with its softness, no target
    /// and no warm start (point joints' rows, `JointKind::fixed_point`, without the
    /// writer). Each column is extended once for the whole batch, not once per
    /// joint (docs/performance.md#point-joint-fast-path).
    fn complete_into(&self, storage: &mut RowStorage) {
        let n = self.pending;
        let blocks = &self.blocks;
        let storage_rows = storage.bodies.len();
        debug_assert_eq!(storage.jacobian.len(), storage_rows + n);
        debug_assert_eq!(storage.error.len(), storage_rows + n);
        storage.bodies.reserve(n);
        storage.bodies.extend(
            blocks
                .iter()
                .flat_map(|b| std::iter::repeat_n(b.bodies, b.rows)),
        );
        storage.erp.reserve(n);
        storage.erp.extend(
            blocks
                .iter()
                .flat_map(|b| std::iter::repeat_n(b.softness.erp, b.rows)),
        );
        storage.cfm.reserve(n);
        storage.cfm.extend(
            blocks
                .iter()
                .flat_map(|b| std::iter::repeat_n(b.softness.cfm, b.rows)),
        );
        for (column, value) in [
            (&mut storage.target_velocity, 0.0),
            (&mut storage.lo, f64::NEG_INFINITY),
            (&mut storage.hi, f64::INFINITY),
            (&mut storage.warm_lambda, 0.0),
            (&mut storage.lambda, 0.0),
        ] {
            column.extend(std::iter::repeat_n(value, n));
        }
        storage.findex.extend(std::iter::repeat_n(None, n));
        storage.stabilize.extend(std::iter::repeat_n(true, n));
        storage.warm_state.extend(std::iter::repeat_n(None, n));
    }

    /// Completes the batch's rows in `storage`, if any, and empties it.
    pub(crate) fn flush_into(&mut self, storage: &mut RowStorage) {
        if !self.blocks.is_empty() {
            self.complete_into(storage);
            self.clear();
        }
    }
}

/// One joint's share of a [`FixedRows`] batch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EqualityBlock {
    pub(crate) bodies: [u32; 2],
    pub(crate) softness: Softness,
    pub(crate) rows: usize,
}
