//! Settings of position-level post-stabilisation.

use crate::error::WorldError;

/// Position-level post-stabilisation (Cline and Pai 2003): after the velocity step, the
/// positions and orientations (never the velocities) of jointed bodies are projected back
/// onto the constraint manifold. Each pass linearises the joints' errors `C` at the new
/// poses and applies the smallest displacement `d = W^-1 J^T mu` with `J W^-1 J^T mu = -C`
/// (one Newton step of the projection), in the metric `W = diag(m, I / rotation_weight)`
/// with each body's world inertia `I` as the step began (any fixed metric gives Newton's
/// convergence; it picks which correcting displacement is the smallest), halving the step
/// until the squared error decreases.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PostStabilization {
    /// On or off; default on. Individual joints can opt out ([`crate::Joint::set_post_stabilize`]).
    pub enabled: bool,
    /// Newton passes per step at most, `>= 1`; default 10. Passes stop as soon as every
    /// error is below `tolerance`: the S3 chain needs 2 to 3 on average. Fewer passes leave
    /// joints stretched after violent steps.
    pub max_passes: usize,
    /// Stop once every stabilised row's `|C|` is below this (m or rad, `> 0`); default `1e-6`.
    pub tolerance: f64,
    /// How each pass solves `J M^-1 J^T mu = -C`.
    pub method: PostStabilizationMethod,
    /// Largest displacement of one body in one pass (m and rad, `> 0`); default 0.5. Larger
    /// corrections are scaled down (for the whole island), so a wildly violated joint is
    /// pulled back over several steps instead of being thrown.
    pub max_correction: f64,
    /// How cheap rotation is in the projection's metric, relative to the true inertia
    /// (dimensionless, in `(0, 1]`); default 0.1. With the true inertia (1) a point error of
    /// a taut chain is mostly removed by turning light links by large angles, whose
    /// second-order motion re-creates the error, and Newton stalls; translations move
    /// anchors exactly linearly, so favouring them (lower values) makes each pass nearly
    /// exact for ball joints. Angular rows (hinge axes) still need rotation: do not go
    /// below about 0.01.
    pub rotation_weight: f64,
}

impl Default for PostStabilization {
    fn default() -> Self {
        Self {
            enabled: true,
            max_passes: 10,
            tolerance: 1e-6,
            method: PostStabilizationMethod::Direct,
            max_correction: 0.5,
            rotation_weight: 0.1,
        }
    }
}

impl PostStabilization {
    /// Post-stabilisation switched off.
    pub const OFF: Self = Self {
        enabled: false,
        max_passes: 10,
        tolerance: 1e-6,
        method: PostStabilizationMethod::Direct,
        max_correction: 0.5,
        rotation_weight: 0.1,
    };

    /// Checks the documented ranges.
    pub fn validate(&self) -> Result<(), WorldError> {
        if self.max_passes == 0 {
            return Err(WorldError::InvalidSetting {
                name: "post_stabilization.max_passes",
                value: 0.0,
                rule: "must be at least 1",
            });
        }
        for (name, value) in [
            ("post_stabilization.tolerance", self.tolerance),
            ("post_stabilization.max_correction", self.max_correction),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(WorldError::InvalidSetting {
                    name,
                    value,
                    rule: "must be finite and > 0",
                });
            }
        }
        if !(self.rotation_weight > 0.0 && self.rotation_weight <= 1.0) {
            return Err(WorldError::InvalidSetting {
                name: "post_stabilization.rotation_weight",
                value: self.rotation_weight,
                rule: "must lie in (0, 1]",
            });
        }
        if let PostStabilizationMethod::GaussSeidel { sweeps: 0 } = self.method {
            return Err(WorldError::InvalidSetting {
                name: "post_stabilization.sweeps",
                value: 0.0,
                rule: "must be at least 1",
            });
        }
        Ok(())
    }
}

/// How a post-stabilisation pass solves for its correction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostStabilizationMethod {
    /// Exact: a sparse (envelope) `L D L^T` of `J M^-1 J^T`, linear in the rows for chains
    /// and trees listed root to leaf. Islands with one-sided rows (limits, contacts) use
    /// projected Gauss-Seidel with at most 50 sweeps instead (stopped early once a sweep
    /// changes the correction by at most 1e-5 of its size).
    Direct,
    /// Projected Gauss-Seidel with up to this many sweeps per pass (Box2D's position
    /// iterations), stopped early like [`Self::Direct`]'s: cheap per sweep, slow to converge
    /// on long chains.
    GaussSeidel {
        /// Sweeps per pass, `>= 1`.
        sweeps: usize,
    },
}
