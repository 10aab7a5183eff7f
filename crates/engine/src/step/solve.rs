//! Stage 5, the velocity solve: per island, the exact stepper (dense Dantzig, the sparse
//! active-set solver, Lemke for the polygonal cone) or the iterative one (Gauss-Seidel on
//! the sparse rows), and either's direct factorisation of all-bilateral islands.

use super::*;

/// The largest normalised residual with which a converged Gauss-Seidel solve counts as solved.
const ITERATIVE_RESIDUAL_TOLERANCE: f64 = 1e-6;

/// Multiply-adds of an envelope factorisation worth one Gauss-Seidel row update, as timed
/// (docs/performance.md#envelope-factorisation-of-chains): an all-bilateral island is
/// solved directly when its factorisation costs less than its sweeps would.
const DIRECT_WORK_PER_SWEEP_ROW: usize = 25;
/// Multiply-adds per row an all-bilateral island's envelope factorisation may cost for the
/// exact stepper to take it instead of the sparse active-set solver, whose body-space
/// factorisation and refinement of a chain cost about that much a row
/// (docs/performance.md#envelope-factorisation-of-chains).
const EXACT_DIRECT_WORK_PER_ROW: usize = 500;
/// Pivot floor of the velocity solve's envelope factorisation, relative to the diagonal:
/// a row dependent on earlier ones (a closed loop without CFM) is regularised.
const DIRECT_PIVOT_FLOOR: f64 = 1e-9;

/// Islands whose rows are all bilateral (no bounds: joints without active limits or
/// motors) leave dense Dantzig for the sparse solver at this fraction of
/// [`ExactSettings::dense_row_limit`] (25 rows by default): with no index set to find, the
/// sparse solve is one body-space factorisation (banded for a chain) and its refinement,
/// against Dantzig's dense `O(n^3)` factorisation. The two cost the same for a 30-row
/// chain, and the sparse solve gains the longer the chain, with the same joint
/// separations (docs/performance.md#envelope-factorisation-of-chains).
const BILATERAL_SPARSE_FACTOR: usize = 2;

crate::avx2::compiled_for_avx2! {
    /// Phase 4: `b`, then each island's forces into `rows.lambda` (and, for the exact
    /// stepper, its index sets into `rows.warm_state`).
    pub(super) fn solve_islands(
        s: &mut StepScratch,
        solver: &Solver,
        model: FrictionModel,
        h: f64,
        stats: &mut StepStats,
    ) -> Result<(), WorldError> => solve_all_islands
}

/// [`solve_islands`]'s work, inlined into its two copies.
#[inline(always)]
fn solve_all_islands(
    s: &mut StepScratch,
    solver: &Solver,
    model: FrictionModel,
    h: f64,
    stats: &mut StepStats,
) -> Result<(), WorldError> {
    compute_solve_terms(
        !crate::avx2::baseline_only(),
        &s.rows,
        &s.hot,
        1.0 / h,
        &mut s.mass,
        &mut s.b,
        &mut s.regularization,
    );
    // A sum is non-finite if any term is (opposite infinities give NaN); one pass without
    // a branch a row.
    if !s.b.iter().sum::<f64>().is_finite() && s.b.iter().any(|v| !v.is_finite()) {
        return Err(non_finite(StepPhase::Solve, None));
    }
    s.accumulated.clear();
    s.accumulated.resize(s.islands.len(), false);
    for k in 0..s.islands.len() {
        let clock = s.capture.enabled().then(Instant::now);
        let report = match solver {
            Solver::Exact(exact) => solve_exact(s, k, exact, model, stats)?,
            Solver::Iterative(iterative) => {
                let cone = model == FrictionModel::CoulombCone;
                let report = solve_iterative(s, k, iterative, cone, stats)?;
                stats.sweeps += report.iterations;
                report
            }
        };
        if let Some(start) = clock {
            capture_outcome(s, k, start.elapsed());
        }
        if !report.status.is_solved() {
            stats.unsolved_islands += 1;
        }
        stats.worst_residual = stats.worst_residual.max(report.residual);
        stats.island_reports.push(report);
    }
    if s.rows.lambda.iter().any(|v| !v.is_finite()) {
        return Err(non_finite(StepPhase::Solve, None));
    }
    Ok(())
}

/// With capturing on: island `k`'s problem, assembled here if its solver used none (the
/// sparse and iterative solvers, direct factorisations), and the forces it was given.
fn capture_outcome(s: &mut StepScratch, k: usize, time: Duration) {
    let range = s.islands.rows(k);
    if !s.capture.has(k) {
        let problem = s.capture.record_blank(k, range.len());
        assemble_island(
            &s.rows,
            &s.mass,
            range.clone(),
            s.islands.nub(k),
            &s.b[range.clone()],
            &s.regularization[range.clone()],
            problem,
        );
    }
    // Lent rows are in producer order already; gathered ones name their origin.
    let origins = range.clone().map(|i| {
        if s.rows_lent {
            i as u32
        } else {
            s.islands.origin[i]
        }
    });
    s.capture.finish(
        &s.rows.lambda[range.clone()],
        &s.rows.bodies[range.clone()],
        s.hot.ground(),
        origins,
        time,
    );
}

fn solve_exact(
    s: &mut StepScratch,
    k: usize,
    settings: &ExactSettings,
    model: FrictionModel,
    stats: &mut StepStats,
) -> Result<IslandReport, WorldError> {
    let range = s.islands.rows(k);
    let n = range.len();
    let limit = if s.islands.nub(k) == n {
        settings.dense_row_limit / BILATERAL_SPARSE_FACTOR
    } else {
        settings.dense_row_limit
    };
    let sparse = n > limit && !matches!(model, FrictionModel::PolygonalCone { .. });
    if sparse && s.islands.nub(k) == n {
        let budget = n.saturating_mul(EXACT_DIRECT_WORK_PER_ROW);
        let tolerance = crate::solver::sparse_exact::RESIDUAL_TOLERANCE;
        if let Some(report) = solve_bilateral_direct(s, k, budget, tolerance, stats)? {
            return Ok(report);
        }
    }
    let (mut island, solved) = if sparse {
        solve_sparse_exact(s, k, stats)
    } else {
        solve_dense_exact(s, k, settings, model, stats)?
    };
    if !solved {
        // The solve failed: Gauss-Seidel on the untouched sparse rows, from last step's forces.
        let fallback = solve_iterative(s, k, &settings.fallback, false, stats)?;
        stats.sweeps += fallback.iterations;
        island.status = fallback.status;
        island.iterations += fallback.iterations;
        island.residual = fallback.residual;
        island.fell_back = true;
        if !sparse {
            // Gauss-Seidel forces define no index sets; the sparse path kept its own above.
            s.rows.warm_state[range].fill(None);
        }
    }
    if island.fell_back {
        stats.fallbacks += 1;
    }
    Ok(island)
}

/// An exact island too large for a dense `A`: active sets on a body-space sparse
/// factorisation. Returns its report and whether it was solved.
fn solve_sparse_exact(
    s: &mut StepScratch,
    k: usize,
    stats: &mut StepStats,
) -> (IslandReport, bool) {
    let range = s.islands.rows(k);
    let n = range.len();
    // Too large for a dense A: active sets on a body-space sparse factorisation.
    let island = SparseIsland {
        rows: &s.rows,
        mass: &s.mass,
        range: range.clone(),
        nub: s.islands.nub(k),
        b: &s.b[range.clone()],
        regularization: &s.regularization[range.clone()],
        bodies: s.islands.bodies(k),
        inverse_mass: &s.hot.inverse_mass,
        inverse_inertia: &s.hot.inverse_inertia,
    };
    let outcome = s.sparse_exact.solve(&island, &mut s.hot.cache);
    stats.pivots += outcome.iterations;
    let solved = outcome.status.is_solved();
    if solved {
        s.rows.lambda[range.clone()].copy_from_slice(s.sparse_exact.forces());
    }
    // Next step's guess, solved or not: a failed solve's last sets (near the answer,
    // its merit stalled) are a better start than sets read off the Gauss-Seidel
    // forces of the fallback: a resting 343-sphere pile fell back on 4 of 8 steps
    // without this, 1 with it (failures had clustered); a 216-sphere pile 1 of 20.
    let states = s.sparse_exact.active_set();
    for (state, new) in s.rows.warm_state[range.clone()].iter_mut().zip(states) {
        *state = Some(*new);
    }
    let island = IslandReport {
        bodies: s.islands.bodies(k).len(),
        rows: n,
        unbounded_rows: s.islands.nub(k),
        status: outcome.status,
        iterations: outcome.iterations,
        residual: outcome.residual,
        fell_back: false,
        warm_started: outcome.warm_started,
    };
    (island, solved)
}

/// An exact island on its dense `A`: Dantzig warm-started from the last index sets, or
/// Lemke for the polygonal cone. Returns its report and whether it was solved.
fn solve_dense_exact(
    s: &mut StepScratch,
    k: usize,
    settings: &ExactSettings,
    model: FrictionModel,
    stats: &mut StepStats,
) -> Result<(IslandReport, bool), WorldError> {
    let range = s.islands.rows(k);
    let n = range.len();
    let problem = s.problems.get(k, n);
    assemble_island(
        &s.rows,
        &s.mass,
        range.clone(),
        s.islands.nub(k),
        &s.b[range.clone()],
        &s.regularization[range.clone()],
        problem,
    );
    s.capture.record(k, problem);
    s.guess.clear();
    let warm = s.rows.warm_state[range.clone()].iter().all(Option::is_some);
    if warm {
        s.guess
            .extend(s.rows.warm_state[range.clone()].iter().flatten());
    }
    let polygonal = matches!(model, FrictionModel::PolygonalCone { .. })
        && problem.findex.iter().any(Option::is_some);
    if polygonal {
        // Friction rows are polygon edges: Lemke on Drake's formulation.
        s.report =
            crate::contact::polygonal::solve(problem, &Default::default()).map_err(solver_error)?;
    } else {
        s.dantzig
            .solve_into(
                problem,
                &settings.dantzig,
                warm.then_some(&s.guess[..]),
                &mut s.report,
            )
            .map_err(solver_error)?;
    }
    let report = &s.report;
    stats.pivots += report.iterations;
    let island = IslandReport {
        bodies: s.islands.bodies(k).len(),
        rows: n,
        unbounded_rows: s.islands.nub(k),
        status: report.status,
        iterations: report.iterations,
        residual: report.residual.max(),
        fell_back: report.fell_back,
        warm_started: warm,
    };
    let solved = report.status.is_solved() && report.x.iter().all(|v| v.is_finite());
    if solved {
        s.rows.lambda[range.clone()].copy_from_slice(&report.x);
        if polygonal {
            s.rows.warm_state[range.clone()].fill(None);
        } else {
            let states = s.dantzig.active_set();
            for (state, new) in s.rows.warm_state[range.clone()].iter_mut().zip(states) {
                *state = (!report.fell_back).then_some(*new);
            }
        }
    }
    Ok((island, solved))
}

/// Solves island `k`, whose rows are all unbounded, by the envelope factorisation of
/// `A = J M^-1 J^T + diag(cfm / h)` ([`crate::solver::envelope`]) into `rows.lambda`. Returns
/// `None`, having changed no force, if the factorisation would cost more than `budget`
/// multiply-adds or the answer's residual exceeds `tolerance` (rows dependent without CFM
/// and inconsistent): the caller's solver then takes the island.
fn solve_bilateral_direct(
    s: &mut StepScratch,
    k: usize,
    budget: usize,
    tolerance: f64,
    stats: &mut StepStats,
) -> Result<Option<IslandReport>, WorldError> {
    let range = s.islands.rows(k);
    let start = range.start;
    let regularization = &s.regularization[range.clone()];
    let rows = EnvelopeRows {
        rows: &s.rows,
        mass: &s.mass,
        count: range.len(),
        start,
        members: None,
        island_bodies: s.islands.bodies(k),
        dynamic: &s.hot.dynamic,
    };
    let diagonal = |p: usize, a: f64| a + regularization[p];
    let Some(weak_pivots) =
        s.envelope
            .factor(&mut s.skyline, &rows, diagonal, budget, DIRECT_PIVOT_FLOOR)
    else {
        return Ok(None);
    };
    s.x.clear();
    s.x.extend_from_slice(&s.b[range.clone()]);
    s.skyline.solve(&mut s.x);
    if !s.x.iter().all(|v| v.is_finite()) {
        return Err(non_finite(StepPhase::Solve, None));
    }
    // Without a raised pivot the factorisation is of the island's own positive definite
    // `A`, and the triangular solves are backward stable: the residual is round-off, not
    // worth measuring (docs/performance.md#envelope-factorisation-of-chains). A raised
    // pivot (rows dependent without CFM) solved a neighbouring system, which is consistent
    // only if the dependent rows' targets agree: then the residual decides.
    let residual = if weak_pivots == 0 {
        0.0
    } else {
        let mut op = SparseOperator::new(
            &s.rows,
            &s.mass,
            range.clone(),
            regularization,
            s.islands.bodies(k),
            &mut s.hot.cache,
        );
        op.begin(&s.x);
        let residual = sparse_residual(
            &op,
            &s.b[range.clone()],
            &s.rows.lo[range.clone()],
            &s.rows.hi[range.clone()],
            &s.rows.findex[range.clone()],
            &s.x,
        )
        .max();
        op.clear();
        residual
    };
    // A NaN residual counts as too large.
    if residual.is_nan() || residual > tolerance {
        return Ok(None);
    }
    s.rows.lambda[range.clone()].copy_from_slice(&s.x);
    s.rows.warm_state[range.clone()].fill(None);
    stats.direct_islands += 1;
    Ok(Some(IslandReport {
        bodies: s.islands.bodies(k).len(),
        rows: range.len(),
        unbounded_rows: range.len(),
        status: Status::Solved,
        iterations: 0,
        residual,
        fell_back: false,
        warm_started: false,
    }))
}

/// Gauss-Seidel on island `k`; `coulomb_cone` projects friction pairs onto the disk
/// (`PgsOptions::coulomb_cone`; the reported residual still measures the box). An island
/// of bilateral rows only is factored instead when [`IterativeSettings::direct_bilateral`]
/// allows and the factorisation costs less than the sweeps.
#[inline(always)]
fn solve_iterative(
    s: &mut StepScratch,
    k: usize,
    settings: &IterativeSettings,
    coulomb_cone: bool,
    stats: &mut StepStats,
) -> Result<IslandReport, WorldError> {
    let range = s.islands.rows(k);
    if settings.direct_bilateral && s.islands.nub(k) == range.len() {
        let budget = settings
            .iterations
            .saturating_mul(range.len())
            .saturating_mul(DIRECT_WORK_PER_SWEEP_ROW);
        let tolerance = ITERATIVE_RESIDUAL_TOLERANCE;
        if let Some(report) = solve_bilateral_direct(s, k, budget, tolerance, stats)? {
            return Ok(report);
        }
    }
    s.x.clear();
    if settings.warm_start {
        s.x.extend_from_slice(&s.rows.warm_lambda[range.clone()]);
    } else {
        s.x.resize(range.len(), 0.0);
    }
    let warm_started = settings.warm_start && s.x.iter().any(|v| *v != 0.0);
    let mut op = SparseOperator::new(
        &s.rows,
        &s.mass,
        range.clone(),
        &s.regularization[range.clone()],
        s.islands.bodies(k),
        &mut s.hot.cache,
    )
    .with_batches(
        &mut s.lanes,
        &s.hot.dynamic,
        InverseMasses {
            mass: &s.hot.inverse_mass,
            inertia: &s.hot.inverse_inertia,
        },
    );
    let (b, lo, hi) = (
        &s.b[range.clone()],
        &s.rows.lo[range.clone()],
        &s.rows.hi[range.clone()],
    );
    let findex = &s.rows.findex[range.clone()];
    if s.island_pgs.len() <= k {
        s.island_pgs.resize_with(k + 1, PgsScratch::new);
    }
    let pgs = &mut s.island_pgs[k];
    if s.islands.reused() {
        pgs.assume_same_structure();
    }
    let outcome = pgs_sweeps(
        &mut op,
        b,
        lo,
        hi,
        findex,
        &mut s.x,
        &stiction_lcp::pgs::PgsOptions {
            coulomb_cone,
            ..settings.pgs_options()
        },
        pgs,
    )
    .map_err(solver_error)?;
    let residual = sparse_residual(&op, b, lo, hi, findex, &s.x).max();
    // The sweeps kept `M^-1 J^T x` per body: the velocity update reads it instead of
    // scattering every row again (S1: a pass over 7,000 rows).
    for &slot in s.islands.bodies(k) {
        s.hot.constraint[slot as usize] = op.accumulated(slot);
    }
    s.accumulated[k] = true;
    op.clear();
    if outcome.non_finite || s.x.iter().any(|v| !v.is_finite()) {
        return Err(non_finite(StepPhase::Solve, None));
    }
    let status = if outcome.converged && residual <= ITERATIVE_RESIDUAL_TOLERANCE {
        Status::Solved
    } else {
        Status::IterationLimit
    };
    s.rows.lambda[range.clone()].copy_from_slice(&s.x);
    Ok(IslandReport {
        bodies: s.islands.bodies(k).len(),
        rows: range.len(),
        unbounded_rows: s.islands.nub(k),
        status,
        iterations: outcome.sweeps,
        residual,
        fell_back: false,
        warm_started,
    })
}
