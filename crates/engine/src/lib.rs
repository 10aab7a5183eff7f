//! # stiction
//!
//! A rigid-body dynamics engine built on the complementarity solvers of [`stiction_lcp`].
//! Bodies, joints and contacts become rows of a boxed LCP each step; the exact stepper solves
//! it by Dantzig pivoting, the iterative stepper by SOR projected Gauss-Seidel.
//!
//! - [`World`]: bodies and joints by handle, settings, [`World::step`] and its
//!   [`StepStats`]; [`World::step`] describes the pipeline.
//! - [`body`]: rigid bodies and mass properties; [`gyroscopic`]: the four treatments of
//!   `w x I w`; [`integrate`]: velocity and pose updates of one body.
//! - [`constraint`]: the row API every constraint producer writes through (flat row storage,
//!   [`constraint::RowWriter`], shared parts, ERP/CFM); [`joint`]: joint types (ball, hinge,
//!   slider, fixed, universal, hinge-2, distance) with limits, motors and breaking.
//! - [`collision`]: colliders (parry shapes on bodies or static), groups, broad and
//!   narrow phase; [`contact`]: materials, the contact hook, contact rows, friction models,
//!   restitution and the reported forces; [`sleep`]: resting bodies stop costing work.
//! - [`scenes`]: the benchmark scenes of shared/SCENES.md.
//! - [`math`] (the glam types parry uses) and [`error`].
//!
//! A runnable example, `crates/engine/examples/crane.rs`
//! (`cargo run --release -p stiction --example crane`), builds a tower crane from five joint
//! types (a weld, a motorised hinge with a stop, a motorised slider between stops, a rope, a
//! universal joint) and prints its motion, the rope's tension and the weld's load.

#![warn(missing_docs)]

mod assemble;
pub mod body;
pub mod collision;
pub mod constraint;
pub mod contact;
pub mod diagnostics;
mod envelope;
pub mod error;
pub mod gyroscopic;
pub mod integrate;
mod island;
pub mod joint;
#[cfg(target_arch = "x86_64")]
mod lanes;
pub mod math;
mod poststab;
pub mod scenes;
pub mod sleep;
pub mod snapshot;
mod sparse;
mod sparse_exact;
mod stepper;
pub mod world;

pub use parry3d_f64 as parry;
pub use stiction_lcp as lcp;

pub use body::{BodyKind, InverseMass, MassProperties, RigidBody, RigidBodyBuilder, Velocity};
pub use collision::{Collider, ColliderBuilder, ColliderHandle, CollisionGroups};
pub use constraint::{Pose, Softness};
pub use contact::{
    Contact, ContactCandidate, ContactGeometry, ContactHook, ContactSettings, ContactWrench,
    FrictionModel, HookAction, Material,
};
pub use diagnostics::{IslandReport, PhaseTimes, PostStabilizationStats, StepPhase, StepStats};
pub use error::{
    BodyError, IntegrationError, JointError, MassPropertiesError, SnapshotError, WorldError,
};
pub use gyroscopic::{
    angular_velocity_after_step, equivalent_torque, AngularStep, ConservingSolver, Convergence,
    EquivalentTorque, GyroscopicMode, RotationalState,
};
pub use integrate::{
    advance_pose, integrate_free_body, FreeStepReport, OrientationUpdate, STANDARD_GRAVITY,
};
pub use joint::{
    AxisControl, BallJoint, DistanceJoint, FixedJoint, Hinge2Joint, HingeJoint, Joint,
    JointAxisState, JointBuilder, JointFeedback, JointKind, JointLimit, JointMotor, JointRows,
    SliderJoint, UniversalJoint,
};
pub use sleep::SleepSettings;
pub use snapshot::Snapshot;
pub use world::{
    BodyHandle, CurvatureCorrection, ExactSettings, IterativeSettings, JointHandle,
    PostStabilization, PostStabilizationMethod, Solver, World, WorldSettings,
};
