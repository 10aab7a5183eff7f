//! Joints as stored in a snapshot: the type's parameters (serde's remote derives mirror the
//! public joint structs field by field, so a new field fails to compile here), limits and
//! motors, the axes' friction, damping and servos, breaking state, feedback, and the warm
//! start (last forces and index sets).

use super::bodies::{check_handle, HandleRecord};
use super::invalid;
use super::settings::SoftnessRecord;
use crate::error::SnapshotError;
use crate::joint::{
    AxisControl, AxisDynamics, BallJoint, DistanceJoint, FixedJoint, Hinge2Joint, HingeJoint,
    Joint, JointBuilder, JointFeedback, JointKind, JointLimit, JointMotor, JointServo, SliderJoint,
    Suspension, UniversalJoint,
};
use crate::math::{Quat, Vec3};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use stiction_lcp::IndexState;

#[derive(Serialize, Deserialize)]
#[serde(remote = "BallJoint")]
struct BallDef {
    local_anchor_a: Vec3,
    local_anchor_b: Vec3,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "HingeJoint")]
struct HingeDef {
    local_anchor_a: Vec3,
    local_anchor_b: Vec3,
    local_axis_a: Vec3,
    local_axis_b: Vec3,
    local_reference_a: Vec3,
    local_reference_b: Vec3,
    #[serde(with = "control")]
    control: AxisControl,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "SliderJoint")]
struct SliderDef {
    local_anchor_a: Vec3,
    local_origin_b: Vec3,
    local_axis_b: Vec3,
    rest_orientation: Quat,
    #[serde(with = "control")]
    control: AxisControl,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "FixedJoint")]
struct FixedDef {
    local_anchor_a: Vec3,
    local_anchor_b: Vec3,
    rest_orientation: Quat,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "UniversalJoint")]
struct UniversalDef {
    local_anchor_a: Vec3,
    local_anchor_b: Vec3,
    local_axis_a: Vec3,
    local_axis_b: Vec3,
    local_reference_a: Vec3,
    local_reference_b: Vec3,
    #[serde(with = "control_pair")]
    controls: [AxisControl; 2],
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Hinge2Joint")]
struct Hinge2Def {
    local_anchor_a: Vec3,
    local_anchor_b: Vec3,
    local_steering_axis_b: Vec3,
    local_wheel_axis_a: Vec3,
    local_steering_reference_b: Vec3,
    local_wheel_reference_a: Vec3,
    #[serde(with = "suspension")]
    suspension: Option<Suspension>,
    #[serde(with = "control")]
    steering: AxisControl,
    #[serde(with = "control")]
    wheel: AxisControl,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "DistanceJoint")]
struct DistanceDef {
    local_anchor_a: Vec3,
    local_anchor_b: Vec3,
    distance: f64,
    #[serde(with = "control")]
    control: AxisControl,
}

#[derive(Serialize, Deserialize)]
enum KindRecord {
    Ball(#[serde(with = "BallDef")] BallJoint),
    Hinge(#[serde(with = "HingeDef")] HingeJoint),
    Slider(#[serde(with = "SliderDef")] SliderJoint),
    Fixed(#[serde(with = "FixedDef")] FixedJoint),
    Universal(#[serde(with = "UniversalDef")] UniversalJoint),
    Hinge2(#[serde(with = "Hinge2Def")] Hinge2Joint),
    Distance(#[serde(with = "DistanceDef")] DistanceJoint),
}

impl KindRecord {
    fn of(kind: &JointKind) -> Self {
        match kind.clone() {
            JointKind::Ball(j) => KindRecord::Ball(j),
            JointKind::Hinge(j) => KindRecord::Hinge(j),
            JointKind::Slider(j) => KindRecord::Slider(j),
            JointKind::Fixed(j) => KindRecord::Fixed(j),
            JointKind::Universal(j) => KindRecord::Universal(j),
            JointKind::Hinge2(j) => KindRecord::Hinge2(j),
            JointKind::Distance(j) => KindRecord::Distance(j),
            // Refused before any record is made (`World::snapshot_payload`).
            JointKind::Custom(_) => unreachable!("custom joints are refused before recording"),
        }
    }

    fn restore(self) -> JointKind {
        match self {
            KindRecord::Ball(j) => j.into(),
            KindRecord::Hinge(j) => j.into(),
            KindRecord::Slider(j) => j.into(),
            KindRecord::Fixed(j) => j.into(),
            KindRecord::Universal(j) => j.into(),
            KindRecord::Hinge2(j) => j.into(),
            KindRecord::Distance(j) => j.into(),
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Copy)]
struct LimitRecord {
    lower: f64,
    upper: f64,
    softness: Option<SoftnessRecord>,
    restitution: f64,
    bounce_threshold: f64,
}

#[derive(Serialize, Deserialize, Clone, Copy)]
struct MotorRecord {
    target_velocity: f64,
    max_force: f64,
    cfm: f64,
}

#[derive(Serialize, Deserialize, Clone, Copy)]
struct ControlRecord {
    limit: Option<LimitRecord>,
    motor: Option<MotorRecord>,
}

impl From<&AxisControl> for ControlRecord {
    fn from(AxisControl { limit, motor }: &AxisControl) -> Self {
        Self {
            limit: limit.map(
                |JointLimit {
                     lower,
                     upper,
                     softness,
                     restitution,
                     bounce_threshold,
                 }| LimitRecord {
                    lower,
                    upper,
                    softness: softness.map(Into::into),
                    restitution,
                    bounce_threshold,
                },
            ),
            motor: motor.map(
                |JointMotor {
                     target_velocity,
                     max_force,
                     cfm,
                 }| MotorRecord {
                    target_velocity,
                    max_force,
                    cfm,
                },
            ),
        }
    }
}

impl From<ControlRecord> for AxisControl {
    fn from(record: ControlRecord) -> Self {
        AxisControl {
            limit: record.limit.map(|l| JointLimit {
                lower: l.lower,
                upper: l.upper,
                softness: l.softness.map(Into::into),
                restitution: l.restitution,
                bounce_threshold: l.bounce_threshold,
            }),
            motor: record.motor.map(|m| JointMotor {
                target_velocity: m.target_velocity,
                max_force: m.max_force,
                cfm: m.cfm,
            }),
        }
    }
}

/// `#[serde(with)]` for one [`AxisControl`].
mod control {
    use super::*;

    pub(super) fn serialize<S: Serializer>(c: &AxisControl, s: S) -> Result<S::Ok, S::Error> {
        ControlRecord::from(c).serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<AxisControl, D::Error> {
        ControlRecord::deserialize(d).map(Into::into)
    }
}

/// `#[serde(with)]` for the universal joint's two controls.
mod control_pair {
    use super::*;

    pub(super) fn serialize<S: Serializer>(c: &[AxisControl; 2], s: S) -> Result<S::Ok, S::Error> {
        [ControlRecord::from(&c[0]), ControlRecord::from(&c[1])].serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<[AxisControl; 2], D::Error> {
        <[ControlRecord; 2]>::deserialize(d).map(|pair| pair.map(Into::into))
    }
}

/// `#[serde(with)]` for the hinge-2 suspension.
mod suspension {
    use super::*;

    pub(super) fn serialize<S: Serializer>(
        v: &Option<Suspension>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        v.map(|Suspension { stiffness, damping }| (stiffness, damping))
            .serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Suspension>, D::Error> {
        Ok(<Option<(f64, f64)>>::deserialize(d)?
            .map(|(stiffness, damping)| Suspension { stiffness, damping }))
    }
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq)]
struct ServoRecord {
    target_position: f64,
    target_velocity: f64,
    stiffness: f64,
    damping: f64,
    max_force: f64,
}

#[derive(Serialize, Deserialize, Clone, Copy, Default, PartialEq)]
struct DynamicsRecord {
    friction: f64,
    damping: f64,
    servo: Option<ServoRecord>,
}

impl From<&AxisDynamics> for DynamicsRecord {
    fn from(dynamics: &AxisDynamics) -> Self {
        let AxisDynamics {
            friction,
            damping,
            servo,
        } = *dynamics;
        Self {
            friction,
            damping,
            servo: servo.map(
                |JointServo {
                     target_position,
                     target_velocity,
                     stiffness,
                     damping,
                     max_force,
                 }| ServoRecord {
                    target_position,
                    target_velocity,
                    stiffness,
                    damping,
                    max_force,
                },
            ),
        }
    }
}

impl From<DynamicsRecord> for AxisDynamics {
    fn from(record: DynamicsRecord) -> Self {
        AxisDynamics {
            friction: record.friction,
            damping: record.damping,
            servo: record.servo.map(|s| JointServo {
                target_position: s.target_position,
                target_velocity: s.target_velocity,
                stiffness: s.stiffness,
                damping: s.damping,
                max_force: s.max_force,
            }),
        }
    }
}

/// Whether no axis has friction, damping or a servo: such joints write no record of them,
/// so their files are those written before the settings existed.
fn no_dynamics(records: &[DynamicsRecord; 2]) -> bool {
    records.iter().all(|r| *r == DynamicsRecord::default())
}

/// Whether both axes' forces are zero (the feedback of settings a joint does not use).
fn zero_pair(forces: &[f64; 2]) -> bool {
    forces.iter().all(|f| f.to_bits() == 0)
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "JointFeedback")]
struct FeedbackDef {
    force_a: Vec3,
    torque_a: Vec3,
    force_b: Vec3,
    torque_b: Vec3,
    anchor_torque_a: Vec3,
    motor: [f64; 2],
    limit: [f64; 2],
    /// The next three are absent from files written before they existed (and from those
    /// of joints without friction, damping or servos): zero.
    #[serde(default, skip_serializing_if = "zero_pair")]
    friction: [f64; 2],
    #[serde(default, skip_serializing_if = "zero_pair")]
    damping: [f64; 2],
    #[serde(default, skip_serializing_if = "zero_pair")]
    servo: [f64; 2],
}

#[derive(Serialize, Deserialize, Clone, Copy)]
enum IndexRecord {
    Clamped,
    AtLower,
    AtUpper,
}

impl IndexRecord {
    pub(crate) fn of(state: IndexState) -> Self {
        match state {
            IndexState::Clamped => IndexRecord::Clamped,
            IndexState::AtLower => IndexRecord::AtLower,
            IndexState::AtUpper => IndexRecord::AtUpper,
        }
    }

    pub(crate) fn restore(self) -> IndexState {
        match self {
            IndexRecord::Clamped => IndexState::Clamped,
            IndexRecord::AtLower => IndexState::AtLower,
            IndexRecord::AtUpper => IndexState::AtUpper,
        }
    }
}

/// `#[serde(with)]` for Dantzig's index sets (used by contacts too).
pub(crate) mod index_states {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(
        v: &[Option<IndexState>; 3],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        v.map(|x| x.map(IndexRecord::of)).serialize(s)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<[Option<IndexState>; 3], D::Error> {
        Ok(<[Option<IndexRecord>; 3]>::deserialize(d)?.map(|x| x.map(IndexRecord::restore)))
    }
}

#[derive(Serialize, Deserialize)]
pub(crate) struct JointRecord {
    body_a: HandleRecord,
    body_b: Option<HandleRecord>,
    kind: KindRecord,
    softness: Option<SoftnessRecord>,
    post_stabilize: bool,
    enabled: bool,
    break_force: f64,
    break_torque: f64,
    /// Friction, damping and servo of axes 0 and 1; absent from files written before they
    /// existed, and from those of joints without them: none.
    #[serde(default, skip_serializing_if = "no_dynamics")]
    dynamics: [DynamicsRecord; 2],
    broken: bool,
    #[serde(with = "FeedbackDef")]
    feedback: JointFeedback,
    last_lambda: Vec<f64>,
    last_state: Vec<IndexRecord>,
}

impl JointRecord {
    pub(crate) fn of(joint: &Joint) -> Self {
        let Joint {
            body_a,
            body_b,
            kind,
            softness,
            post_stabilize,
            enabled,
            break_force,
            break_torque,
            dynamics,
            broken,
            feedback,
            last_lambda,
            last_state,
        } = joint;
        Self {
            body_a: HandleRecord::of(*body_a),
            body_b: body_b.map(HandleRecord::of),
            kind: KindRecord::of(kind),
            softness: softness.map(Into::into),
            post_stabilize: *post_stabilize,
            enabled: *enabled,
            break_force: *break_force,
            break_torque: *break_torque,
            dynamics: dynamics.each_ref().map(DynamicsRecord::from),
            broken: *broken,
            feedback: *feedback,
            last_lambda: last_lambda.clone(),
            last_state: last_state.iter().map(|s| IndexRecord::of(*s)).collect(),
        }
    }

    /// The joint, validated as [`crate::World::add_joint`] validates a new one; `bodies`
    /// lists the live body slots with their generations.
    pub(crate) fn restore(
        self,
        field: &str,
        bodies: &[Option<u32>],
    ) -> Result<Joint, SnapshotError> {
        let at = |name: &str| format!("{field}.{name}");
        check_handle(bodies, self.body_a, &at("body_a"))?;
        if let Some(b) = self.body_b {
            check_handle(bodies, b, &at("body_b"))?;
            if b == self.body_a {
                return Err(invalid(&at("body_b"), "a joint needs two different bodies"));
            }
        }
        let builder = JointBuilder {
            body_a: self.body_a.handle(),
            body_b: self.body_b.map(HandleRecord::handle),
            kind: self.kind.restore(),
            softness: self.softness.map(Into::into),
            post_stabilize: self.post_stabilize,
            enabled: self.enabled,
            break_force: self.break_force,
            break_torque: self.break_torque,
            dynamics: self.dynamics.map(Into::into),
        };
        builder
            .validate()
            .map_err(|e| invalid(field, e.to_string()))?;
        if !self.last_lambda.iter().all(|x| x.is_finite()) {
            return Err(invalid(&at("last_lambda"), "must be finite"));
        }
        let mut joint = builder.build();
        joint.broken = self.broken;
        joint.feedback = self.feedback;
        joint.last_lambda = self.last_lambda;
        joint.last_state = self
            .last_state
            .into_iter()
            .map(IndexRecord::restore)
            .collect();
        Ok(joint)
    }
}
