//! The names most programs need, in one import: `use stiction::prelude::*;`.

pub use crate::math::{Quat, Vec3};
pub use crate::{
    BallJoint, BodyHandle, BodyKind, ColliderBuilder, ColliderHandle, CollisionGroups, Contact,
    DistanceJoint, FixedJoint, FrictionModel, Hinge2Joint, HingeJoint, JointBuilder, JointHandle,
    MassProperties, Material, Pose, RigidBodyBuilder, SliderJoint, Solver, StepStats,
    UniversalJoint, World, WorldError, WorldSettings,
};
