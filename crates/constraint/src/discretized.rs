//! The data that carries Drake's time-discretisation procedure from one operation to the
//! next: the `h`-independent base, and the LCP for one step size.

use nalgebra::DMatrix;
use stiction_lcp::StandardLcp;

use crate::error::ConstraintError;
use crate::formulation::LcpIndex;
use crate::layout::PackedLayout;
use crate::problem::VelocityProblem;
use crate::reduction::Reduction;

/// What [`crate::ConstraintSolver::construct_base_discretized_time_lcp`] computes once per
/// configuration: the bilateral elimination and the reduced Delassus matrix, which depend
/// only on the inertia and the Jacobians (Drake's `MlcpToLcpData` plus the base `MM`,
/// `qq`).
///
/// Everything else may change before each update: the velocity, the force, `mu`, the `k`
/// and `gamma` terms. The inertia and the Jacobians' values must stay those the base was
/// built from (their shapes are checked, their values cannot be).
#[derive(Clone, Debug)]
pub struct BaseDiscretizedLcp {
    pub(crate) index: LcpIndex,
    pub(crate) reduction: Reduction,
    pub(crate) rows: DMatrix<f64>,
    pub(crate) bilateral: DMatrix<f64>,
    pub(crate) impact: DiscretizedLcp,
}

impl BaseDiscretizedLcp {
    /// The base LCP: with no further update it is the impact problem (`h = 1`, no force,
    /// impulses).
    pub fn lcp(&self) -> &StandardLcp {
        &self.impact.lcp
    }

    /// The layout of the packed forces this LCP's solutions turn into.
    pub fn packed_layout(&self) -> PackedLayout {
        PackedLayout::new(&self.index.spanning, self.index.nl, self.index.nb)
    }

    /// The numerical rank of the bilateral block `G M^-1 G^T` (less than
    /// [`BaseDiscretizedLcp::bilateral_count`] when `G` has dependent rows).
    pub fn bilateral_rank(&self) -> usize {
        self.reduction.bilateral_rank
    }

    /// The number of bilateral constraints `nb`.
    pub fn bilateral_count(&self) -> usize {
        self.index.nb
    }

    /// Checks that a problem has the shape this base was built for.
    pub(crate) fn check_matches(&self, problem: &VelocityProblem) -> Result<(), ConstraintError> {
        let c = &problem.constraints;
        let mismatch = |field: &'static str, expected: usize, found: usize| {
            Err(ConstraintError::BaseMismatch {
                field,
                reason: format!("expected {expected}, found {found}"),
            })
        };
        if problem.inertia.dim() != self.index.nv {
            return mismatch("inertia", self.index.nv, problem.inertia.dim());
        }
        if c.spanning_directions != self.index.spanning {
            return Err(ConstraintError::BaseMismatch {
                field: "spanning_directions",
                reason: format!(
                    "expected {:?}, found {:?}",
                    self.index.spanning, c.spanning_directions
                ),
            });
        }
        if c.unilateral.rows() != self.index.nl {
            return mismatch("unilateral", self.index.nl, c.unilateral.rows());
        }
        if c.bilateral.rows() != self.index.nb {
            return mismatch("bilateral", self.index.nb, c.bilateral.rows());
        }
        Ok(())
    }
}

/// The pure LCP `w = MM z + qq`, `0 <= z _|_ w >= 0` for one step size `h`
/// ([`crate::ConstraintSolver::update_discretized_time_lcp`]), with what turning its
/// solution into packed forces needs.
///
/// `z = (fN, f_D, lambda, fL)`: the normal forces; per contact with friction its `r_i`
/// forces along the spanning directions then the `r_i` along their negatives; one `lambda`
/// (sliding speed) per contact with friction; the generic unilateral forces.
#[derive(Clone, Debug)]
pub struct DiscretizedLcp {
    pub(crate) h: f64,
    pub(crate) lcp: StandardLcp,
    /// `kG + G v~`.
    pub(crate) bilateral_rhs: Vec<f64>,
}

impl DiscretizedLcp {
    /// The LCP (`MM`, `qq`).
    pub fn lcp(&self) -> &StandardLcp {
        &self.lcp
    }

    /// The step size `h` it was built for (1 for the impact problem).
    pub fn step_size(&self) -> f64 {
        self.h
    }
}
