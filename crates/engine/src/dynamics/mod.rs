//! The motion of one body between constraint solves: the gyroscopic term of Euler's
//! equations in its four treatments, and the velocity and pose updates of a free body.

pub mod gyroscopic;
pub mod integrate;

pub use crate::body::{GyroscopicMode, OrientationUpdate};
pub use gyroscopic::{
    angular_velocity_after_step, conserving_step, equivalent_torque, AngularStep, ConservingSolver,
    Convergence, EquivalentTorque, RotationalState,
};
pub use integrate::{advance_pose, integrate_free_body, FreeStepReport, STANDARD_GRAVITY};
