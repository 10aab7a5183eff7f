//! Typed errors of the engine: one enum per edge a user touches.

use thiserror::Error;

/// Why a set of mass properties (or the shape it was computed from) was rejected.
///
/// Each variant names the rule that failed, so a scene author can fix the right number.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
pub enum MassPropertiesError {
    /// The mass is zero, negative, NaN or infinite.
    #[error("mass must be finite and > 0, got {mass}")]
    InvalidMass {
        /// The rejected mass in kg.
        mass: f64,
    },
    /// The centre of mass has a NaN or infinite coordinate.
    #[error("centre of mass must be finite, got {center:?}")]
    NonFiniteCenter {
        /// The rejected centre, body frame, m.
        center: [f64; 3],
    },
    /// The inertia tensor has a NaN or infinite entry.
    #[error("inertia tensor must have finite entries")]
    NonFiniteInertia,
    /// `I[row][col]` and `I[col][row]` differ by more than the relative tolerance.
    #[error("inertia tensor is not symmetric: entries ({row},{col}) and ({col},{row}) differ by {difference}")]
    InertiaNotSymmetric {
        /// Row of the worst entry.
        row: usize,
        /// Column of the worst entry.
        col: usize,
        /// `|I[row][col] - I[col][row]|` in kg m^2.
        difference: f64,
    },
    /// The smallest principal moment is not positive.
    #[error("inertia tensor is not positive definite: smallest principal moment is {smallest}")]
    InertiaNotPositiveDefinite {
        /// The smallest eigenvalue of the inertia tensor, kg m^2.
        smallest: f64,
    },
    /// The largest principal moment exceeds the sum of the other two: no body of real,
    /// non-negative mass density has this tensor.
    #[error("principal moments {moments:?} violate the triangle inequality: {} + {} < {}", moments[0], moments[1], moments[2])]
    TriangleInequality {
        /// The principal moments in ascending order, kg m^2.
        moments: [f64; 3],
    },
    /// A shape dimension (radius, half extent, half height) is not finite and > 0.
    #[error("shape dimension `{name}` must be finite and > 0, got {value}")]
    InvalidDimension {
        /// Which dimension, e.g. `"radius"` or `"half_extents.x"`.
        name: &'static str,
        /// The rejected value in m.
        value: f64,
    },
    /// The density is not finite and > 0.
    #[error("density must be finite and > 0, got {density}")]
    InvalidDensity {
        /// The rejected density in kg/m^3.
        density: f64,
    },
    /// A rotation quaternion or translation offset handed to a transform is not finite, or
    /// the quaternion has zero length.
    #[error("transform must be finite (and a rotation quaternion non-zero)")]
    InvalidTransform,
}

/// Why a rigid body description or a change to a body was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
pub enum BodyError {
    /// The mass properties are invalid.
    #[error("invalid mass properties: {0}")]
    MassProperties(#[from] MassPropertiesError),
    /// A position, velocity, force or torque has a NaN or infinite component.
    #[error("{quantity} must be finite")]
    NonFinite {
        /// Which quantity, e.g. `"linear velocity"`.
        quantity: &'static str,
    },
    /// The orientation quaternion is not finite or has zero length.
    #[error("orientation quaternion must be finite and non-zero")]
    InvalidOrientation,
    /// A static body was given a non-zero velocity.
    #[error("a static body cannot move: its velocity must stay zero")]
    StaticBodyMotion,
    /// A damping coefficient is negative, NaN or infinite.
    #[error("{which} damping must be finite and >= 0, got {value}")]
    InvalidDamping {
        /// `"linear"` or `"angular"`.
        which: &'static str,
        /// The rejected coefficient in 1/s.
        value: f64,
    },
}

/// Why an integration step (velocity or pose update) was refused.
///
/// A refused step leaves the body exactly as it was.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
pub enum IntegrationError {
    /// The time step is not finite and > 0.
    #[error("time step must be finite and > 0, got {h}")]
    InvalidTimeStep {
        /// The rejected step in s.
        h: f64,
    },
    /// An input (velocity, torque, inertia, orientation) is not finite.
    #[error("{quantity} must be finite")]
    NonFiniteInput {
        /// Which input.
        quantity: &'static str,
    },
    /// The step produced a NaN or infinite value (overflow, or a singular system that only
    /// an invalid inertia can produce).
    #[error("integration produced a non-finite {quantity}")]
    NonFiniteResult {
        /// Which result.
        quantity: &'static str,
    },
}

/// Why a joint description (or a change to a joint) was rejected: each variant names the
/// rule, so the author can fix the right number.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
pub enum JointError {
    /// An anchor, axis or reference vector has a NaN or infinite component.
    #[error("the {what} must be finite")]
    NonFinite {
        /// Which vector, e.g. `"anchor"` or `"slider axis"`.
        what: &'static str,
    },
    /// A direction given to a constructor has zero length.
    #[error("the {what} must be non-zero")]
    ZeroAxis {
        /// Which direction.
        what: &'static str,
    },
    /// A stored axis or reference vector is not a unit vector (to `1e-9`).
    #[error("the {what} must be a unit vector")]
    NotUnit {
        /// Which vector.
        what: &'static str,
    },
    /// Two directions that must be perpendicular are not (to `1e-9`).
    #[error("the {what} must be perpendicular to the {other}")]
    NotPerpendicular {
        /// The first direction.
        what: &'static str,
        /// The second.
        other: &'static str,
    },
    /// Two directions that must span a plane are parallel.
    #[error("the {what} must not be parallel to the {other}")]
    Parallel {
        /// The first direction.
        what: &'static str,
        /// The second.
        other: &'static str,
    },
    /// Both ends of the joint are the same body.
    #[error("a joint cannot attach a body to itself")]
    SameBody,
    /// A limit's bounds are NaN or `lower > upper`.
    #[error("limit bounds must satisfy lower <= upper, got [{lower}, {upper}]")]
    InvalidLimit {
        /// Lower bound (rad or m).
        lower: f64,
        /// Upper bound (rad or m).
        upper: f64,
    },
    /// A limit's restitution is outside `[0, 1]` or its bounce threshold is negative or NaN.
    #[error("limit restitution must lie in [0, 1] and its bounce threshold be >= 0, got {restitution} and {threshold}")]
    InvalidBounce {
        /// The restitution coefficient.
        restitution: f64,
        /// The approach speed below which nothing bounces (m/s or rad/s).
        threshold: f64,
    },
    /// A motor's maximum force is negative or not finite, or its target velocity not finite.
    #[error("motor needs a finite target velocity and a finite max force >= 0, got {target_velocity} and {max_force}")]
    InvalidMotor {
        /// Target velocity (m/s or rad/s).
        target_velocity: f64,
        /// Maximum force or torque (N or N m).
        max_force: f64,
    },
    /// A length (a distance joint's distance) is not finite and `> 0`.
    #[error("the {what} must be finite and > 0, got {value}")]
    InvalidLength {
        /// Which length.
        what: &'static str,
        /// The rejected value, m.
        value: f64,
    },
    /// A spring (stiffness, damping) cannot be turned into ERP and CFM.
    #[error("spring stiffness and damping must be finite, >= 0 and not both zero, got {stiffness} and {damping}")]
    InvalidSpring {
        /// Stiffness, N/m.
        stiffness: f64,
        /// Damping, N s/m.
        damping: f64,
    },
    /// A row's ERP is outside `[0, 1]` or its CFM is negative or not finite.
    #[error("softness needs erp in [0, 1] and cfm >= 0, got {erp} and {cfm}")]
    InvalidSoftness {
        /// The rejected ERP.
        erp: f64,
        /// The rejected CFM.
        cfm: f64,
    },
    /// A breaking threshold is NaN or not `> 0` (`f64::INFINITY`: never breaks).
    #[error("breaking threshold must be > 0 (infinity: never), got {value}")]
    InvalidBreakThreshold {
        /// The rejected threshold (N or N m).
        value: f64,
    },
    /// The joint type has no axis with this index.
    #[error("axis {axis} does not exist: this joint has {count} axes")]
    NoSuchAxis {
        /// The requested axis.
        axis: usize,
        /// How many axes the type has.
        count: usize,
    },
    /// The joint type does not offer this feature on this axis.
    #[error("a {joint} joint has no {feature}")]
    Unsupported {
        /// The joint type.
        joint: &'static str,
        /// What was asked, e.g. `"motor"`.
        feature: &'static str,
    },
}

/// Why a world operation (adding, changing or stepping) was refused.
///
/// A refused [`crate::World::step`] leaves every body and joint exactly as it was.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum WorldError {
    /// The time step is not finite and > 0.
    #[error("time step must be finite and > 0, got {h}")]
    InvalidTimeStep {
        /// The rejected step in s.
        h: f64,
    },
    /// The body handle names a body that was removed (or belongs to another world).
    #[error("stale or foreign body handle {0:?}")]
    StaleBody(crate::handles::BodyHandle),
    /// The joint handle names a joint that was removed (or belongs to another world).
    #[error("stale or foreign joint handle {0:?}")]
    StaleJoint(crate::handles::JointHandle),
    /// The collider handle names a collider that was removed (or belongs to another world).
    #[error("stale or foreign collider handle {0:?}")]
    StaleCollider(crate::handles::ColliderHandle),
    /// A collider description cannot be built.
    #[error("invalid collider: {reason}")]
    InvalidCollider {
        /// What is wrong, e.g. `"a half-space needs a unit outward normal"`.
        reason: &'static str,
    },
    /// A world, solver or joint setting is out of its documented range.
    #[error("setting `{name}` = {value} is invalid: {rule}")]
    InvalidSetting {
        /// Which setting, e.g. `"erp"` or `"iterations"`.
        name: &'static str,
        /// The rejected value.
        value: f64,
        /// The rule it broke.
        rule: &'static str,
    },
    /// A joint description cannot be built (which rule it breaks: [`JointError`]).
    #[error("invalid joint: {0}")]
    InvalidJoint(#[from] JointError),
    /// A NaN or infinite number appeared during a step; nothing was changed.
    #[error("non-finite value during the {phase} phase (body {body:?})")]
    NonFinite {
        /// The phase that produced it.
        phase: StepPhase,
        /// The body concerned, if one is.
        body: Option<crate::handles::BodyHandle>,
    },
    /// A body's gyroscopic or pose update failed; nothing was changed.
    #[error("integration of body {body:?} failed: {source}")]
    Integration {
        /// The body concerned.
        body: crate::handles::BodyHandle,
        /// Why.
        source: IntegrationError,
    },
    /// A body change was rejected.
    #[error(transparent)]
    Body(#[from] BodyError),
    /// The LCP solver rejected its options or a problem (malformed options, or a problem that
    /// is not finite); nothing was changed.
    #[error("constraint solver: {0}")]
    Solver(#[from] stiction_lcp::LcpError),
}

/// Why a world snapshot could not be written or read back ([`crate::World::save_snapshot`],
/// [`crate::World::load_snapshot`]). A failed load never yields a partly restored world.
#[derive(Debug, Error)]
pub enum SnapshotError {
    /// Reading or writing the bytes failed.
    #[error("snapshot I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The bytes do not start with the snapshot magic: not a snapshot at all.
    #[error("not a stiction snapshot (the file does not start with \"stiction-snapshot\")")]
    BadMagic,
    /// The snapshot was written in a format version this build cannot read.
    #[error(
        "snapshot format version {found} is not supported (this build reads version {supported})"
    )]
    UnsupportedVersion {
        /// The version in the file.
        found: u32,
        /// The only version this build reads.
        supported: u32,
    },
    /// The snapshot ends before its header or its declared payload does.
    #[error("snapshot is truncated: {expected} bytes expected, {found} present")]
    Truncated {
        /// Bytes the header (or the header's payload length) calls for.
        expected: u64,
        /// Bytes present.
        found: u64,
    },
    /// More bytes follow the declared payload (a damaged length field or appended data).
    #[error("snapshot is corrupted: {extra} unexpected bytes after the declared payload")]
    TrailingBytes {
        /// How many bytes follow the payload.
        extra: u64,
    },
    /// The payload's checksum differs from the one in the header: the bytes were damaged.
    #[error("snapshot is corrupted: payload checksum {computed:016x} does not match the stored {stored:016x}")]
    ChecksumMismatch {
        /// The checksum in the header.
        stored: u64,
        /// The checksum of the payload as read.
        computed: u64,
    },
    /// The checksum matched but the payload does not decode (written by an incompatible build).
    #[error("snapshot payload cannot be decoded: {reason}")]
    Malformed {
        /// The decoder's message.
        reason: String,
    },
    /// The payload decoded but a value in it is invalid; `field` names it
    /// (e.g. `bodies[3].orientation`).
    #[error("invalid snapshot content at {field}: {reason}")]
    InvalidContent {
        /// Path of the offending value.
        field: String,
        /// The rule it breaks.
        reason: String,
    },
    /// The world holds something a snapshot cannot store (e.g. a custom parry shape).
    #[error("cannot snapshot {what}")]
    Unsupported {
        /// What could not be stored.
        what: String,
    },
}

/// The phases of a step, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepPhase {
    /// Broad and narrow phase, the contact hook, waking.
    Collision,
    /// External forces, gravity, damping and the gyroscopic term: the unconstrained velocity.
    Forces,
    /// Joints (and later contacts) write their rows.
    Rows,
    /// Islands of bodies connected by rows.
    Islands,
    /// The constraint forces of each island.
    Solve,
    /// New velocities from the constraint forces.
    Velocities,
    /// New positions and orientations.
    Integration,
    /// Position-level projection of joint errors.
    PostStabilization,
}

impl std::fmt::Display for StepPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StepPhase::Collision => "collision",
            StepPhase::Forces => "forces",
            StepPhase::Rows => "rows",
            StepPhase::Islands => "islands",
            StepPhase::Solve => "solve",
            StepPhase::Velocities => "velocities",
            StepPhase::Integration => "integration",
            StepPhase::PostStabilization => "post-stabilization",
        })
    }
}
