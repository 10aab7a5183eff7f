//! # stiction
//!
//! A rigid-body dynamics engine built on the complementarity solvers of [`stiction_lcp`].
//! Bodies, joints and contacts become rows of a boxed LCP each step; the exact stepper solves
//! it by Dantzig pivoting, the iterative stepper by SOR projected Gauss-Seidel.
//!
//! Start with [`prelude`] and [`World`]:
//!
//! ```
//! use stiction::prelude::*;
//!
//! let mut world = World::new();
//! world.add_collider(ColliderBuilder::halfspace(Vec3::Z)?, None)?;
//! let ball = world.add_body(
//!     RigidBodyBuilder::dynamic()
//!         .mass_properties(MassProperties::sphere_with_mass(0.1, 1.0)?)
//!         .position(Vec3::new(0.0, 0.0, 1.0))
//!         .build()?,
//! );
//! world.add_collider(ColliderBuilder::ball(0.1)?, Some(ball))?;
//! for _ in 0..120 {
//!     world.step(1.0 / 60.0)?;
//! }
//! // The ball rests on the ground, carried by its contact.
//! assert!((world.body(ball)?.position().z - 0.1).abs() < 1e-3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! What the crate root holds:
//!
//! - the [`World`] facade: bodies, colliders and joints by handle ([`BodyHandle`],
//!   [`ColliderHandle`], [`JointHandle`]), settings, [`World::step`] and its [`StepStats`];
//! - bodies ([`RigidBodyBuilder`], [`MassProperties`]), colliders ([`ColliderBuilder`],
//!   [`CollisionGroups`], [`Material`]), joints ([`JointBuilder`] and one type per joint);
//! - settings ([`WorldSettings`], [`Solver`], [`ContactSettings`], [`SleepSettings`], ...),
//!   reports ([`Contact`], [`ContactWrench`], [`JointFeedback`]), events (sensor overlaps
//!   and touching pairs that begin and end: [`SensorEvent`], [`ContactEvent`],
//!   [`ContactPair`]; docs/events.md) and errors.
//!
//! Modules for more specialised work: [`rows`] (writing a constraint of your own: implement
//! [`JointRows`] and add it with [`JointBuilder::custom`]), [`joint`] (axes, limits, motors),
//! [`dynamics`] (the free-body integrators and gyroscopic modes on their own), [`math`] (the
//! glam types parry uses), [`lcp`] (the solver crate) and, with the `scenes` feature,
//! `scenes` (the benchmark scenes of docs/scenes.md).
//!
//! A runnable example, `crates/engine/examples/crane.rs`
//! (`cargo run --release -p stiction --example crane`), builds a tower crane from five joint
//! types and prints its motion, the rope's tension and the weld's load. ARCHITECTURE.md maps
//! the modules and their layers.

#![warn(missing_docs)]

// Layers, bottom to top (scripts/check-layers.py enforces that imports point down).
mod avx2;
mod batch;
mod body;
mod collision;
mod contact;
mod diagnostics;
pub mod dynamics;
mod error;
mod handles;
pub mod joint;
pub mod math;
mod poststab;
pub mod prelude;
pub mod rows;
#[cfg(feature = "scenes")]
pub mod scenes;
mod sleep;
mod snapshot;
mod solver;
mod step;
mod world;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExamples;

pub use parry3d_f64 as parry;
pub use stiction_lcp as lcp;

pub use batch::{BatchActions, BatchError, BatchLayout, BatchState, WorldBatch, WorldStatus};
pub use body::{
    BodyKind, GyroscopicMode, InverseMass, MassProperties, OrientationUpdate, RigidBody,
    RigidBodyBuilder, Velocity,
};
pub use collision::{
    Collider, ColliderBuilder, CollisionGroups, PointProjection, QueryFilter, Ray, RayHit, ShapeHit,
};
pub use contact::{
    Contact, ContactCandidate, ContactEvent, ContactGeometry, ContactHook, ContactPair,
    ContactSettings, ContactWrench, EventKind, FrictionModel, HookAction, ImpactModel, Material,
    SensorEvent, SensorOverlap,
};
pub use diagnostics::{IslandReport, PhaseTimes, PostStabilizationStats, StepPhase, StepStats};
pub use dynamics::STANDARD_GRAVITY;
pub use error::{
    BodyError, IntegrationError, JointError, MassPropertiesError, SnapshotError, WorldError,
};
pub use handles::{BodyHandle, ColliderHandle, JointHandle};
pub use joint::{
    AxisControl, AxisDynamics, BallJoint, CustomJoint, DistanceJoint, FixedJoint, Hinge2Joint,
    HingeJoint, Joint, JointAxisState, JointBuilder, JointFeedback, JointKind, JointLimit,
    JointMotor, JointRows, JointServo, SliderJoint, UniversalJoint,
};
pub use rows::{Pose, Softness};
pub use sleep::SleepSettings;
pub use snapshot::Snapshot;
pub use step::capture::RowSource;
pub use world::{
    CurvatureCorrection, ExactSettings, IterativeSettings, PostStabilization,
    PostStabilizationMethod, Solver, World, WorldSettings,
};
