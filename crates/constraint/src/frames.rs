//! Contact forces expressed in each contact's frame (Drake's
//! `CalcContactForcesInContactFrames`), for 2D and 3D problems.
//!
//! A contact frame has the contact normal as its first axis and tangents after it, all in the
//! world frame. The friction Jacobian rows of a contact must measure velocity along the
//! directions this module assumes:
//! - 2D: one spanning direction (`r = 1`), the frame's tangent; or none (`r = 0`,
//!   frictionless).
//! - 3D: `r` directions `d_j = cos(pi j / r) t1 + sin(pi j / r) t2`, `j = 0..r`
//!   ([`spanning_direction`]); with their negatives they are `2 r` evenly spaced edges of
//!   the friction polygon. `r = 2` gives the box `t1, t2`.
//!
//! A sliding contact (acceleration level) has friction `-mu fN` along its first tangent,
//! which must point along the sliding velocity.

use crate::error::ConstraintError;
use crate::forces::ConstraintProblem;

/// Largest deviation of `R^T R` from the identity accepted for a contact frame.
pub const FRAME_TOLERANCE: f64 = 1e-8;

/// A 2D contact frame: unit normal and unit tangent, world frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactFrame2 {
    /// The contact normal (pointing away from the other body, the direction of `fN`).
    pub normal: [f64; 2],
    /// The tangent: the spanning direction of the contact's friction row, or the sliding
    /// direction of a sliding contact.
    pub tangent: [f64; 2],
}

impl ContactFrame2 {
    /// A frame from its normal and tangent.
    pub fn new(normal: [f64; 2], tangent: [f64; 2]) -> Self {
        Self { normal, tangent }
    }

    /// A vector given in this frame (`[normal, tangent]` components) in the world frame.
    pub fn to_world(&self, local: [f64; 2]) -> [f64; 2] {
        [
            self.normal[0] * local[0] + self.tangent[0] * local[1],
            self.normal[1] * local[0] + self.tangent[1] * local[1],
        ]
    }

    fn orthonormality_error(&self) -> f64 {
        orthonormality_error(&[&self.normal, &self.tangent])
    }
}

/// A 3D contact frame: unit normal and two unit tangents, mutually orthogonal, world frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactFrame3 {
    /// The contact normal.
    pub normal: [f64; 3],
    /// The first tangent `t1` (the sliding direction of a sliding contact).
    pub tangent1: [f64; 3],
    /// The second tangent `t2`.
    pub tangent2: [f64; 3],
}

impl ContactFrame3 {
    /// A frame from its normal and tangents.
    pub fn new(normal: [f64; 3], tangent1: [f64; 3], tangent2: [f64; 3]) -> Self {
        Self {
            normal,
            tangent1,
            tangent2,
        }
    }

    /// A vector given in this frame (`[normal, t1, t2]` components) in the world frame.
    pub fn to_world(&self, local: [f64; 3]) -> [f64; 3] {
        let mut out = [0.0; 3];
        for (k, o) in out.iter_mut().enumerate() {
            *o = self.normal[k] * local[0]
                + self.tangent1[k] * local[1]
                + self.tangent2[k] * local[2];
        }
        out
    }

    fn orthonormality_error(&self) -> f64 {
        orthonormality_error(&[&self.normal, &self.tangent1, &self.tangent2])
    }
}

/// Spanning direction `j` of `r` as `[t1, t2]` components in the contact's tangent plane:
/// `(cos(pi j / r), sin(pi j / r))`. Friction rows for 3D contact frames must use these.
pub fn spanning_direction(j: usize, r: usize) -> [f64; 2] {
    let angle = std::f64::consts::PI * j as f64 / r.max(1) as f64;
    [angle.cos(), angle.sin()]
}

/// Contact forces of packed forces `cf` in 2D contact frames: `[normal, tangent]` per
/// contact. Units are those of `cf` (impulses from an impact problem). The world-frame force
/// is `frames[i].to_world(forces[i])`.
///
/// # Errors
/// `cf` of the wrong length; a contact with more than one spanning direction
/// ([`ConstraintError::NotTwoDimensional`]); `frames` not one per contact; a frame that is
/// not orthonormal.
pub fn calc_contact_forces_in_contact_frames_2d<P: ConstraintProblem>(
    problem: &P,
    cf: &[f64],
    frames: &[ContactFrame2],
) -> Result<Vec<[f64; 2]>, ConstraintError> {
    problem.validate()?;
    let layout = problem.packed_layout();
    layout.check(cf)?;
    let constraints = problem.constraints();
    check_frames(frames.len(), layout.contacts(), |i| {
        frames[i].orthonormality_error()
    })?;
    let mut out = Vec::with_capacity(layout.contacts());
    for (i, &r) in constraints.spanning_directions.iter().enumerate() {
        if r > 1 {
            return Err(ConstraintError::NotTwoDimensional {
                contact: i,
                directions: r,
            });
        }
        let normal = cf[i];
        let tangent = if problem.is_sliding(i) {
            -constraints.mu[i] * normal
        } else {
            layout
                .contact_friction(cf, i)
                .first()
                .copied()
                .unwrap_or(0.0)
        };
        out.push([normal, tangent]);
    }
    Ok(out)
}

/// Contact forces of packed forces `cf` in 3D contact frames: `[normal, t1, t2]` per contact,
/// assuming the spanning directions of [`spanning_direction`]. The world-frame force is
/// `frames[i].to_world(forces[i])`.
///
/// # Errors
/// `cf` of the wrong length; `frames` not one per contact; a frame that is not orthonormal.
pub fn calc_contact_forces_in_contact_frames_3d<P: ConstraintProblem>(
    problem: &P,
    cf: &[f64],
    frames: &[ContactFrame3],
) -> Result<Vec<[f64; 3]>, ConstraintError> {
    problem.validate()?;
    let layout = problem.packed_layout();
    layout.check(cf)?;
    let constraints = problem.constraints();
    check_frames(frames.len(), layout.contacts(), |i| {
        frames[i].orthonormality_error()
    })?;
    let mut out = Vec::with_capacity(layout.contacts());
    for (i, &r) in constraints.spanning_directions.iter().enumerate() {
        let normal = cf[i];
        if problem.is_sliding(i) {
            out.push([normal, -constraints.mu[i] * normal, 0.0]);
            continue;
        }
        let mut tangent = [0.0, 0.0];
        for (j, &f) in layout.contact_friction(cf, i).iter().enumerate() {
            let d = spanning_direction(j, r);
            tangent[0] += f * d[0];
            tangent[1] += f * d[1];
        }
        out.push([normal, tangent[0], tangent[1]]);
    }
    Ok(out)
}

fn check_frames(
    found: usize,
    contacts: usize,
    error_of: impl Fn(usize) -> f64,
) -> Result<(), ConstraintError> {
    if found != contacts {
        return Err(ConstraintError::LengthMismatch {
            field: "frames",
            expected: contacts,
            found,
        });
    }
    for contact in 0..contacts {
        let error = error_of(contact);
        if error.is_nan() || error > FRAME_TOLERANCE {
            return Err(ConstraintError::FrameNotOrthonormal { contact, error });
        }
    }
    Ok(())
}

/// `max |a_i . a_j - delta_ij|` over the axes; NaN if any axis holds a NaN.
fn orthonormality_error<const N: usize>(axes: &[&[f64; N]]) -> f64 {
    let mut worst: f64 = 0.0;
    for (i, a) in axes.iter().enumerate() {
        for (j, b) in axes.iter().enumerate().skip(i) {
            let dot: f64 = a.iter().zip(b.iter()).map(|(x, y)| x * y).sum();
            let expected = if i == j { 1.0 } else { 0.0 };
            let error = (dot - expected).abs();
            if error.is_nan() {
                return error;
            }
            worst = worst.max(error);
        }
    }
    worst
}
