//! # stiction
//!
//! A rigid-body dynamics engine built on the complementarity solvers of [`stiction_lcp`].
//! Bodies, joints and contacts become rows of a boxed LCP each step; the exact stepper solves
//! it by Dantzig pivoting, the iterative stepper by SOR projected Gauss-Seidel.
//!
//! Modules so far: [`math`] (the glam types parry uses), [`body`] (rigid bodies and mass
//! properties), [`gyroscopic`] (the four treatments of `w x I w`), [`integrate`] (velocity
//! and pose updates of one body) and [`error`].

#![warn(missing_docs)]

pub mod body;
pub mod error;
pub mod gyroscopic;
pub mod integrate;
pub mod math;

pub use parry3d_f64 as parry;
pub use stiction_lcp as lcp;

pub use body::{BodyKind, InverseMass, MassProperties, RigidBody, RigidBodyBuilder, Velocity};
pub use error::{BodyError, IntegrationError, MassPropertiesError};
pub use gyroscopic::{
    angular_velocity_after_step, equivalent_torque, AngularStep, ConservingSolver, Convergence,
    EquivalentTorque, GyroscopicMode, RotationalState,
};
pub use integrate::{
    advance_pose, integrate_free_body, FreeStepReport, OrientationUpdate, STANDARD_GRAVITY,
};
