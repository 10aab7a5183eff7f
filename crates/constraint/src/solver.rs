//! The solver: Drake's operations on velocity-level and acceleration-level problems.

use stiction_lcp::lemke::{solve_lemke, LemkeOptions};
use stiction_lcp::{SolveReport, Status};

use crate::dense::check_len;
use crate::discretized::{BaseDiscretizedLcp, DiscretizedLcp};
use crate::error::ConstraintError;
use crate::formulation::{assemble, bilateral_matrix, build_rows, unpack, LcpIndex};
use crate::problem::{AccelerationProblem, VelocityProblem};
use crate::reduction::Reduction;

/// Options of [`ConstraintSolver`].
#[derive(Clone, Debug, PartialEq)]
pub struct SolverOptions {
    /// Options of Lemke's algorithm, which solves every reduced LCP.
    pub lemke: LemkeOptions,
    /// Singular values of the bilateral block `G M^-1 G^T` at most this times the largest
    /// count as zero (dependent bilateral rows). Default `1e-10`; must be in `[0, 1)`.
    pub bilateral_rank_tolerance: f64,
}

impl Default for SolverOptions {
    fn default() -> Self {
        Self {
            lemke: LemkeOptions::default(),
            bilateral_rank_tolerance: 1e-10,
        }
    }
}

impl SolverOptions {
    /// Checks the rank tolerance (Lemke's options are checked against each problem).
    ///
    /// # Errors
    /// [`ConstraintError::BadOption`].
    pub fn validate(&self) -> Result<(), ConstraintError> {
        let t = self.bilateral_rank_tolerance;
        if !(0.0..1.0).contains(&t) {
            return Err(ConstraintError::BadOption {
                option: "bilateral_rank_tolerance",
                reason: format!("must be in [0, 1), got {t}"),
            });
        }
        Ok(())
    }
}

/// Constraint forces from a solve, in packed storage ([`crate::PackedLayout`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ConstraintSolution {
    /// The packed forces (impulses for an impact problem). A solution only if `status` is
    /// [`Status::Solved`]; otherwise Lemke's last estimate.
    pub forces: Vec<f64>,
    /// How the LCP solve ended: anything but [`Status::Solved`] means the problem could not
    /// be solved (for time stepping: reduce `h`; for an impact: add regularisation; at the
    /// acceleration level: an inconsistent configuration such as Painleve's paradox).
    pub status: Status,
    /// Lemke's report on the reduced LCP (`z`, `w`, pivots, residual).
    pub lcp_report: SolveReport,
    /// The numerical rank of the bilateral block; below the number of bilateral constraints
    /// when they are dependent and the least-squares elimination was used.
    pub bilateral_rank: usize,
}

impl ConstraintSolution {
    /// Whether the forces solve the problem.
    pub fn is_solved(&self) -> bool {
        self.status.is_solved()
    }
}

/// Computes constraint forces for systems in generalized coordinates (Drake's
/// `ConstraintSolver`): bilateral constraints are eliminated first (least squares
/// when they are dependent), and the remaining pure LCP, whose matrix is copositive for the
/// polygonal friction cone, is solved by Lemke's algorithm.
#[derive(Clone, Debug, Default)]
pub struct ConstraintSolver {
    options: SolverOptions,
}

impl ConstraintSolver {
    /// A solver with default options.
    pub fn new() -> Self {
        Self::default()
    }

    /// A solver with the given options.
    ///
    /// # Errors
    /// [`ConstraintError::BadOption`] (see [`SolverOptions::validate`]).
    pub fn with_options(options: SolverOptions) -> Result<Self, ConstraintError> {
        options.validate()?;
        Ok(Self { options })
    }

    /// The options in use.
    pub fn options(&self) -> &SolverOptions {
        &self.options
    }

    /// Solves the impact problem: impulses that take the velocity `v` (just before impact) to
    /// `v+ = v + M^-1 J^T cf` (see [`VelocityProblem`] with `h = 1`). `kN` sets the target
    /// normal velocity (`-e N v` for restitution `e`; zero for an inelastic impact).
    ///
    /// # Errors
    /// Invalid problem data or options. An unsolvable LCP is not an error: see
    /// [`ConstraintSolution::status`].
    pub fn solve_impact_problem(
        &self,
        problem: &VelocityProblem,
    ) -> Result<ConstraintSolution, ConstraintError> {
        let base = self.construct_base_discretized_time_lcp(problem)?;
        self.finish(&base, &base.impact)
    }

    /// Solves the acceleration-level problem for constraint forces (see
    /// [`AccelerationProblem`]).
    ///
    /// # Errors
    /// Invalid problem data or options. An unsolvable LCP (an inconsistent configuration,
    /// e.g. Painleve's paradox with sliding friction) is not an error: see
    /// [`ConstraintSolution::status`].
    pub fn solve_constraint_problem(
        &self,
        problem: &AccelerationProblem,
    ) -> Result<ConstraintSolution, ConstraintError> {
        problem.validate()?;
        let constraints = &problem.constraints;
        let nv = problem.inertia.dim();
        let index = LcpIndex::new(constraints, nv);
        let (rows, force_directions) = build_rows(
            &index,
            constraints,
            Some((&problem.sliding, &problem.sliding_direction)),
        );
        let bilateral = bilateral_matrix(constraints);
        let reduction = Reduction::new(
            &problem.inertia,
            &rows,
            &force_directions,
            &bilateral,
            self.options.bilateral_rank_tolerance,
        )?;
        let free_acceleration = problem.inertia.solve_vec(&problem.force)?;
        let (lcp, bilateral_rhs) = assemble(
            &index,
            &reduction,
            constraints,
            &rows,
            &bilateral,
            &free_acceleration,
            1.0,
        );
        let base = BaseDiscretizedLcp {
            index,
            reduction,
            rows,
            bilateral,
            impact: DiscretizedLcp {
                h: 1.0,
                lcp,
                bilateral_rhs,
            },
        };
        self.finish(&base, &base.impact)
    }

    /// Step 1 of Drake's time-discretisation procedure: eliminates the bilateral forces
    /// and forms everything that does not depend on the step size. Solving its
    /// [`BaseDiscretizedLcp::lcp`] unchanged is the impact problem.
    ///
    /// # Errors
    /// Invalid problem data or options.
    pub fn construct_base_discretized_time_lcp(
        &self,
        problem: &VelocityProblem,
    ) -> Result<BaseDiscretizedLcp, ConstraintError> {
        self.options.validate()?;
        problem.validate()?;
        let constraints = &problem.constraints;
        let index = LcpIndex::new(constraints, problem.inertia.dim());
        let (rows, force_directions) = build_rows(&index, constraints, None);
        let bilateral = bilateral_matrix(constraints);
        let reduction = Reduction::new(
            &problem.inertia,
            &rows,
            &force_directions,
            &bilateral,
            self.options.bilateral_rank_tolerance,
        )?;
        let (lcp, bilateral_rhs) = assemble(
            &index,
            &reduction,
            constraints,
            &rows,
            &bilateral,
            &problem.velocity,
            1.0,
        );
        Ok(BaseDiscretizedLcp {
            index,
            reduction,
            rows,
            bilateral,
            impact: DiscretizedLcp {
                h: 1.0,
                lcp,
                bilateral_rhs,
            },
        })
    }

    /// Step 4 of the procedure: the LCP for step size `h`, from the problem's current
    /// velocity, force, `mu`, `k` and `gamma` terms (which may have been changed for this
    /// `h` since the base was built; see [`BaseDiscretizedLcp`] for what may not). Costs one
    /// inertia solve and `O(nz^2 + nz nb)`.
    ///
    /// # Errors
    /// `h` not finite and positive ([`ConstraintError::BadStepSize`]); invalid data; a
    /// problem whose shape differs from the base's ([`ConstraintError::BaseMismatch`]).
    pub fn update_discretized_time_lcp(
        &self,
        problem: &VelocityProblem,
        base: &BaseDiscretizedLcp,
        h: f64,
    ) -> Result<DiscretizedLcp, ConstraintError> {
        if !(h.is_finite() && h > 0.0) {
            return Err(ConstraintError::BadStepSize { h });
        }
        problem.validate()?;
        base.check_matches(problem)?;
        let mut free_velocity = problem.inertia.solve_vec(&problem.force)?;
        for (v, v0) in free_velocity.iter_mut().zip(&problem.velocity) {
            *v = v0 + h * *v;
        }
        let (lcp, bilateral_rhs) = assemble(
            &base.index,
            &base.reduction,
            &problem.constraints,
            &base.rows,
            &base.bilateral,
            &free_velocity,
            h,
        );
        Ok(DiscretizedLcp {
            h,
            lcp,
            bilateral_rhs,
        })
    }

    /// Step 5: solves a discretised LCP with Lemke's algorithm. The report's status says
    /// whether it was solved; if not, reduce `h` and update again (steps 6-7).
    ///
    /// # Errors
    /// Invalid Lemke options.
    pub fn solve_discretized_time_lcp(
        &self,
        lcp: &DiscretizedLcp,
    ) -> Result<SolveReport, ConstraintError> {
        Ok(solve_lemke(&lcp.lcp, &self.options.lemke)?)
    }

    /// Packed constraint forces (newtons) from a solution `zz` of a discretised LCP: normal
    /// forces, signed friction per spanning direction, generic unilateral forces, and the
    /// bilateral forces recovered by equation (e).
    ///
    /// # Errors
    /// `zz` of the wrong length, or a `base` and `lcp` of different shapes.
    pub fn populate_packed_constraint_forces_from_lcp_solution(
        &self,
        base: &BaseDiscretizedLcp,
        lcp: &DiscretizedLcp,
        zz: &[f64],
    ) -> Result<Vec<f64>, ConstraintError> {
        check_len("zz", base.index.nz, zz.len())?;
        check_len("zz", lcp.lcp.len(), zz.len())?;
        Ok(unpack(
            &base.index,
            &base.reduction,
            zz,
            lcp.h,
            &lcp.bilateral_rhs,
        ))
    }

    /// Steps 4, 5 and the unpacking in one call: updates the base for `h`, solves, and
    /// returns the packed forces with the solve's status.
    ///
    /// # Errors
    /// As [`ConstraintSolver::update_discretized_time_lcp`].
    pub fn solve_discretized_time_step(
        &self,
        problem: &VelocityProblem,
        base: &BaseDiscretizedLcp,
        h: f64,
    ) -> Result<ConstraintSolution, ConstraintError> {
        let lcp = self.update_discretized_time_lcp(problem, base, h)?;
        self.finish(base, &lcp)
    }

    /// Lemke on the reduced LCP, then the packed forces; non-finite forces are never
    /// reported as solved.
    fn finish(
        &self,
        base: &BaseDiscretizedLcp,
        lcp: &DiscretizedLcp,
    ) -> Result<ConstraintSolution, ConstraintError> {
        let report = self.solve_discretized_time_lcp(lcp)?;
        let forces = unpack(
            &base.index,
            &base.reduction,
            &report.x,
            lcp.h,
            &lcp.bilateral_rhs,
        );
        let status = if report.status.is_solved() && forces.iter().any(|f| !f.is_finite()) {
            Status::NonFinite
        } else {
            report.status
        };
        Ok(ConstraintSolution {
            forces,
            status,
            lcp_report: report,
            bilateral_rank: base.reduction.bilateral_rank,
        })
    }
}
