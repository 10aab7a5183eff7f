//! The names most programs need, in one import: `use stiction::prelude::*;`.

pub use crate::body::{BodyKind, MassProperties, RigidBodyBuilder};
pub use crate::collision::{ColliderBuilder, CollisionGroups, QueryFilter, Ray, RayHit};
pub use crate::contact::{Contact, ContactEvent, EventKind, FrictionModel, Material, SensorEvent};
pub use crate::diagnostics::StepStats;
pub use crate::error::WorldError;
pub use crate::handles::{BodyHandle, ColliderHandle, JointHandle};
pub use crate::joint::{
    BallJoint, DistanceJoint, FixedJoint, Hinge2Joint, HingeJoint, JointBuilder, SliderJoint,
    UniversalJoint,
};
pub use crate::math::{Quat, Vec3};
pub use crate::rows::Pose;
pub use crate::solver::settings::Solver;
pub use crate::step::settings::WorldSettings;
pub use crate::world::World;
