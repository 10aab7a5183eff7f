//! The LCP solvers alone: this project's Dantzig against ODE's `dxSolveLCP` on the same
//! problems, exported in the JSON problem format.

use crate::chain_lcp;
use crate::engine_lcp;
use crate::measure::median;
use crate::ode::ffi::{peers_ode_lcp_message_count, peers_thread_cpu_ns};
use crate::ode::lcp::OdeLcp;
use std::path::Path;
use std::time::{Duration, Instant};
use stiction::lcp::dantzig::{DantzigOptions, DantzigSolver};
use stiction::lcp::generate::{box_stack_problem, random_contact_problem, ContactProblemSpec};
use stiction::lcp::json::{parse_problem, to_json};
use stiction::lcp::IndexState;
use stiction::lcp::{boxed_residual, BoxedLcp};
use stiction::scenes;
use stiction::{Solver, WorldSettings};

/// One problem of the comparison.
pub struct Problem {
    /// Name (and file stem when stored).
    pub name: String,
    /// Where it comes from.
    pub origin: String,
    /// The problem.
    pub problem: BoxedLcp,
    /// Whether it is small enough to keep under bench/peers/lcp/.
    pub store: bool,
    /// The same island's problem one step earlier, for the engine's warm start (engine
    /// problems only).
    pub previous: Option<BoxedLcp>,
}

/// Which engine contact LCPs to capture: S4's stack after `stack_settle` exact steps, and
/// S1's pyramid at each of `pyramid_rows` rows after `pyramid_settle` iterative steps.
pub struct EngineProblems {
    /// Exact steps before S4's problem is captured.
    pub stack_settle: usize,
    /// Pyramid sizes (rows of boxes); S1 is 20, one island of about 7080 LCP rows.
    pub pyramid_rows: Vec<usize>,
    /// Iterative steps before a pyramid's problem is captured.
    pub pyramid_settle: usize,
}

impl Default for EngineProblems {
    fn default() -> Self {
        Self {
            stack_settle: 120,
            pyramid_rows: vec![4, 6, 8],
            pyramid_settle: 120,
        }
    }
}

/// Problems kept under bench/peers/lcp/ only up to this many rows (a dense `A` in JSON).
const STORE_MAX_ROWS: usize = 300;

/// The engine's own contact LCPs: S4 (the 20-box stack) and S1's pyramid at smaller sizes.
fn engine_problems(which: &EngineProblems, notes: &mut Vec<String>) -> Vec<Problem> {
    let mut out = Vec::new();
    let stack = engine_lcp::stack_problem(20, which.stack_settle).map(|c| {
        (
            "s4_stack_20".to_string(),
            format!(
                "S4 stack-20: the island LCP the engine's exact stepper assembled at step {} (captured with World::set_capture_problems)",
                which.stack_settle + 2
            ),
            c,
        )
    });
    let pyramids = which.pyramid_rows.iter().map(|&rows| {
        engine_lcp::pyramid_problem(rows, which.pyramid_settle).map(|c| {
            (
                format!("s1_pyramid_{rows}"),
                format!(
                    "S1's pyramid with {rows} rows ({} boxes): {} iterative steps, then the island LCP of the {}th exact step (captured)",
                    rows * (rows + 1) / 2,
                    which.pyramid_settle,
                    engine_lcp::PYRAMID_EXACT_STEPS + 2
                ),
                c,
            )
        })
    });
    for outcome in std::iter::once(stack).chain(pyramids) {
        match outcome {
            Ok((name, mut origin, captured)) => {
                let (pivots, warm) = captured.engine_solve;
                origin.push_str(&format!(
                    "; the engine's step solved it {} in {pivots} pivots",
                    if warm { "warm-started" } else { "cold" }
                ));
                eprintln!("  captured {name}: {} rows", captured.problem.len());
                out.push(Problem {
                    store: captured.problem.len() <= STORE_MAX_ROWS,
                    name,
                    origin,
                    problem: captured.problem,
                    previous: captured.previous,
                });
            }
            Err(e) => notes.push(format!("an engine problem was not captured: {e}")),
        }
    }
    out
}

/// `cfm / h` with docs/scenes.md's CFM and step, as the engine puts on the diagonal.
const ENGINE_CFM: f64 = 1e-5 * 60.0;

/// The S3 chain's LCP as the engine's exact stepper builds it after `warmup` steps (so the
/// chain is swinging), checked against one engine step. Returns the problem and the check.
fn chain_problem(links: usize, warmup: usize) -> Result<(BoxedLcp, f64), String> {
    let settings = WorldSettings {
        solver: Solver::exact(),
        ..WorldSettings::default()
    };
    let mut scene = scenes::chain(links, settings).map_err(|e| e.to_string())?;
    for _ in 0..warmup {
        scene.world.step(scene.h).map_err(|e| e.to_string())?;
    }
    // An instant of the swing with every link translating only: the engine's second-order
    // joint target (work in progress in its stepper) is zero then, so the rebuilt problem is
    // exactly the one it solves, whichever version of the stepper is built.
    let handles: Vec<_> = scene.world.bodies().map(|(h, _)| h).collect();
    for h in handles {
        let body = scene.world.body_mut(h).map_err(|e| e.to_string())?;
        body.set_angular_velocity(stiction::math::Vec3::ZERO)
            .map_err(|e| e.to_string())?;
    }
    let problem = chain_lcp::ball_joint_problem(&scene.world, scene.h)?;
    let agreement = chain_lcp::check_against_step(&scene.world, &problem, scene.h)?;
    Ok((problem, agreement))
}

/// The problems: the engine's S3 LCP (full chain and a 10-link one, rebuilt from its
/// formulas), its S4 and S1 contact LCPs (captured from its stepper), box stacks and random
/// contact sets from `stiction_lcp::generate`.
pub fn problems(engine: &EngineProblems, notes: &mut Vec<String>) -> Vec<Problem> {
    let mut out = Vec::new();
    for (links, store) in [(10, true), (100, false)] {
        match chain_problem(links, 60) {
            Ok((problem, agreement)) => {
                notes.push(format!(
                    "chain-{links}: rebuilt LCP vs the engine's own step: joint forces agree to {agreement:.1e} (relative)"
                ));
                out.push(Problem {
                    name: format!("s3_chain_{links}_step60"),
                    origin: format!(
                        "S3 chain of {links} links after 60 exact steps (angular velocities then set to zero), rebuilt from the engine's formulas"
                    ),
                    problem,
                    store,
                    previous: None,
                });
            }
            Err(e) => notes.push(format!("chain-{links}: not exported: {e}")),
        }
    }
    for (height, store) in [(5, true), (20, false)] {
        out.push(Problem {
            name: format!("box_stack_{height}"),
            origin: format!(
                "generate::box_stack_problem({height}, 0.5, {ENGINE_CFM:.0e}): resting stack, 4 contacts per face"
            ),
            problem: box_stack_problem(height, 0.5, ENGINE_CFM),
            store,
            previous: None,
        });
    }
    for (rows, store) in [(30, true), (99, false), (300, false)] {
        let contacts = rows / 3;
        out.push(Problem {
            name: format!("contact_{rows}"),
            origin: format!(
                "generate::random_contact_problem(seed 5, {contacts} contacts, mu 0.3, cfm 1e-6), as in crates/lcp/benches"
            ),
            problem: random_contact_problem(&ContactProblemSpec {
                seed: 5,
                bodies: (contacts / 3).max(1),
                contacts,
                mu: 0.3,
                cfm: 1e-6,
                duplicate_fraction: 0.0,
            }),
            store,
            previous: None,
        });
    }
    out.extend(engine_problems(engine, notes));
    out
}

/// Writes the small problems to `dir` as JSON and checks that each reads back unchanged.
pub fn export(problems: &[Problem], dir: &Path) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let mut written = Vec::new();
    for p in problems.iter().filter(|p| p.store) {
        let text = to_json(&p.problem);
        let back = parse_problem(&text)
            .and_then(|f| f.into_boxed())
            .map_err(|e| format!("{}: {e}", p.name))?;
        if back != p.problem {
            return Err(format!("{}: JSON round trip changed the problem", p.name));
        }
        let path = dir.join(format!("{}.json", p.name));
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path.display().to_string());
    }
    Ok(written)
}

/// One problem's figures.
pub struct Comparison {
    /// The problem's name.
    pub name: String,
    /// Rows.
    pub rows: usize,
    /// Leading unbounded rows.
    pub nub: usize,
    /// Friction rows.
    pub friction: usize,
    /// Median time of our cold Dantzig solve, µs.
    pub ours_us: f64,
    /// Its median thread CPU time, µs (a check on the wall times on a shared machine).
    pub ours_cpu_us: f64,
    /// The same with one friction pass and no exact-friction fallback (ODE's rule), µs.
    pub ours_one_pass_us: f64,
    /// What that one-pass solve returned.
    pub ours_one_pass: String,
    /// Our status and residual.
    pub ours: String,
    /// Median time of our solve warm-started from the previous step's index sets, µs, and
    /// what it did (engine problems only).
    pub ours_warm: Option<(f64, String)>,
    /// Median wall and thread CPU time of ODE's solve, µs (`None`: ODE's solver could not
    /// be called).
    pub ode_us: Option<Times>,
    /// ODE's residual (as this project measures it).
    pub ode: String,
}

fn repetitions(one: Duration) -> usize {
    // About half a second per solver and problem, at least 3 and at most 2000 solves.
    ((0.5 / one.as_secs_f64().max(1e-9)) as usize).clamp(3, 2000)
}

/// Median wall and thread CPU times of a solve, µs.
#[derive(Clone, Copy, Debug)]
pub struct Times {
    /// Wall time.
    pub wall: f64,
    /// CPU time of the solving thread (NaN if the clock is unavailable).
    pub cpu: f64,
}

/// Collects per-solve wall and CPU times.
struct Stopwatch {
    wall: Vec<f64>,
    cpu: Vec<f64>,
}

impl Stopwatch {
    fn new(reps: usize) -> Self {
        Self {
            wall: Vec::with_capacity(reps),
            cpu: Vec::with_capacity(reps),
        }
    }

    /// Runs and times `f`.
    fn time<T>(&mut self, f: impl FnOnce() -> T) -> T {
        // SAFETY: plain clock reads in the shim.
        let cpu = unsafe { peers_thread_cpu_ns() };
        let clock = Instant::now();
        let out = f();
        self.wall.push(clock.elapsed().as_secs_f64() * 1e6);
        let cpu_end = unsafe { peers_thread_cpu_ns() };
        self.cpu.push(if cpu >= 0 && cpu_end >= 0 {
            (cpu_end - cpu) as f64 * 1e-3
        } else {
            f64::NAN
        });
        out
    }

    fn len(&self) -> usize {
        self.wall.len()
    }

    fn medians(mut self) -> Times {
        Times {
            wall: median(&mut self.wall),
            cpu: median(&mut self.cpu),
        }
    }
}

/// Median times of `reps` runs of `solve`.
fn time_solves(reps: usize, mut solve: impl FnMut()) -> Times {
    let mut watch = Stopwatch::new(reps);
    for _ in 0..reps {
        watch.time(&mut solve);
    }
    watch.medians()
}

/// Our solve of `problem` from the index sets of our solution of `previous` (the engine's
/// warm start), timed; `None` if that cannot be set up.
fn warm_start(
    problem: &BoxedLcp,
    previous: &BoxedLcp,
    options: &DantzigOptions,
) -> Option<(f64, String)> {
    let mut solver = DantzigSolver::new();
    solver.solve(previous, options, None).ok()?;
    let guess: Vec<IndexState> = solver.active_set().to_vec();
    let clock = Instant::now();
    let first = solver.solve(problem, options, Some(&guess)).ok()?;
    let stats = solver.stats();
    let reps = repetitions(clock.elapsed());
    let times = time_solves(reps, || {
        let _ = solver.solve(problem, options, Some(&guess));
    });
    Some((
        times.wall,
        format!(
            "{}, residual {:.1e}, {} pivots, guess {}",
            first.status,
            first.residual.max(),
            stats.pivots,
            if stats.warm_start_hit {
                "right"
            } else {
                "repaired"
            }
        ),
    ))
}

/// Times both solvers on `p`.
pub fn compare(p: &Problem) -> Comparison {
    let problem = &p.problem;
    let n = problem.len();
    let options = DantzigOptions::default();
    let mut solver = DantzigSolver::new();
    let clock = Instant::now();
    let first = solver.solve(problem, &options, None);
    let reps = repetitions(clock.elapsed());
    let ours = match first {
        Ok(r) => format!(
            "{}, residual {:.1e}, {} pivots, {} passes",
            r.status,
            r.residual.max(),
            solver.stats().pivots,
            solver.stats().passes
        ),
        Err(e) => format!("error: {e}"),
    };
    let ours_times = time_solves(reps, || {
        let _ = solver.solve(problem, &options, None);
    });
    // ODE's rule: friction bounds fixed once from the normals known when the first friction
    // row is reached, no further passes (equal work, ODE's accuracy).
    let one_pass = DantzigOptions {
        max_friction_passes: 1,
        exact_friction: false,
        ..DantzigOptions::default()
    };
    let ours_one_pass = match solver.solve(problem, &one_pass, None) {
        Ok(r) => format!("{}, residual {:.1e}", r.status, r.residual.max()),
        Err(e) => format!("error: {e}"),
    };
    let ours_one_pass_us = time_solves(reps, || {
        let _ = solver.solve(problem, &one_pass, None);
    })
    .wall;
    let ours_warm = p
        .previous
        .as_ref()
        .and_then(|previous| warm_start(problem, previous, &options));

    let (ode_us, ode) = match OdeLcp::new(n) {
        None => (
            None,
            "not callable: arena layout not recognised".to_string(),
        ),
        Some(mut ode) => {
            // SAFETY: reads a counter of the shim.
            let failures_before = unsafe { peers_ode_lcp_message_count() };
            let mut watch = Stopwatch::new(reps);
            let mut outcome = Ok(());
            for _ in 0..reps {
                if let Err(e) = ode.load(problem) {
                    outcome = Err(e);
                    break;
                }
                outcome = watch.time(|| ode.solve_loaded());
                if outcome.is_err() {
                    break;
                }
            }
            match outcome {
                Err(e) => (None, e),
                Ok(()) => {
                    let x = ode.x();
                    let w = problem.slack(&x);
                    let residual = boxed_residual(problem, &x, &w);
                    // SAFETY: as above.
                    let failures = unsafe { peers_ode_lcp_message_count() } - failures_before;
                    // `bound` says whether ODE's forces respect the true friction bounds
                    // (mu times the final normal force), which ODE fixes from the normal
                    // forces known when it reaches a friction row.
                    let mut answer = format!(
                        "residual {:.1e} (bounds {:.1e}, complementarity {:.1e})",
                        residual.max(),
                        residual.bound,
                        residual.complementarity
                    );
                    if failures > 0 {
                        answer.push_str(&format!(
                            ", gave up (s <= 0) in {failures} of {} solves",
                            watch.len()
                        ));
                    }
                    (Some(watch.medians()), answer)
                }
            }
        }
    };
    Comparison {
        name: p.name.clone(),
        rows: n,
        nub: problem.nub,
        friction: problem.findex.iter().filter(|f| f.is_some()).count(),
        ours_us: ours_times.wall,
        ours_cpu_us: ours_times.cpu,
        ours_one_pass_us,
        ours_one_pass,
        ours,
        ours_warm,
        ode_us,
        ode,
    }
}

/// `t` µs with three significant digits (at least one decimal).
fn micros(t: f64) -> String {
    if t >= 1000.0 {
        format!("{t:.0}")
    } else {
        format!("{t:.1}")
    }
}

/// `a / b` with two decimals, or `-`.
fn ratio(a: f64, b: f64) -> String {
    if a.is_finite() && b.is_finite() && b > 0.0 {
        format!("{:.2}", a / b)
    } else {
        "-".into()
    }
}

/// The markdown tables of the comparisons: times, then answers.
pub fn markdown(rows: &[Comparison]) -> String {
    let mut out = String::from(
        "| problem | rows | unbounded | friction | Stiction Dantzig µs | same, 1 friction pass µs | Stiction warm µs | ODE dxSolveLCP µs | ODE / Stiction | ODE / Stiction 1 pass | ODE / Stiction warm | ODE / Stiction, CPU time |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for c in rows {
        let warm = c.ours_warm.as_ref().map(|(t, _)| *t);
        let ode = c.ode_us.map_or(f64::NAN, |t| t.wall);
        let ode_cpu = c.ode_us.map_or(f64::NAN, |t| t.cpu);
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            c.name,
            c.rows,
            c.nub,
            c.friction,
            micros(c.ours_us),
            micros(c.ours_one_pass_us),
            warm.map_or("-".into(), micros),
            c.ode_us.map_or("-".into(), |t| micros(t.wall)),
            ratio(ode, c.ours_us),
            ratio(ode, c.ours_one_pass_us),
            warm.map_or("-".into(), |w| ratio(ode, w)),
            ratio(ode_cpu, c.ours_cpu_us),
        ));
    }
    out.push_str(
        "\n| problem | Stiction answer | same, 1 friction pass | Stiction warm answer | ODE answer |\n| --- | --- | --- | --- | --- |\n",
    );
    for c in rows {
        let warm = c.ours_warm.as_ref().map_or("-", |(_, a)| a.as_str());
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            c.name, c.ours, c.ours_one_pass, warm, c.ode
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use stiction::lcp::DenseMatrix;

    /// `p` with its rows (and columns) in `order`, friction indices renumbered.
    fn reorder(p: &BoxedLcp, order: &[usize]) -> BoxedLcp {
        let n = p.len();
        let mut position = vec![0; n];
        for (new, &old) in order.iter().enumerate() {
            position[old] = new;
        }
        let mut a = DenseMatrix::zeros(n, n);
        for (i, &oi) in order.iter().enumerate() {
            for (j, &oj) in order.iter().enumerate() {
                a[(i, j)] = p.a[(oi, oj)];
            }
        }
        let pick = |v: &[f64]| order.iter().map(|&o| v[o]).collect::<Vec<_>>();
        let mut q = BoxedLcp::new(a, pick(&p.b));
        q.lo = pick(&p.lo);
        q.hi = pick(&p.hi);
        q.findex = order
            .iter()
            .map(|&o| p.findex[o].map(|j| position[j]))
            .collect();
        q.nub = p.nub;
        q
    }

    /// ODE's residual on `p` and how many times it gave up (`s <= 0`).
    fn ode_outcome(p: &BoxedLcp) -> (f64, i64) {
        let mut ode = OdeLcp::new(p.len()).expect("libode 0.16's arena is recognised");
        // SAFETY: reads a counter of the shim.
        let before = unsafe { peers_ode_lcp_message_count() };
        ode.load(p).unwrap();
        ode.solve_loaded().unwrap();
        let failures = unsafe { peers_ode_lcp_message_count() } - before;
        let x = ode.x();
        (boxed_residual(p, &x, &p.slack(&x)).max(), failures as i64)
    }

    #[test]
    fn ode_solves_the_generated_stack_once_its_normal_rows_come_first() {
        // generate::box_stack_problem lists each contact's normal and friction rows
        // together; ODE gives up on it. The same problem with every normal row first (the
        // engine's order) is solved to round-off, like the engine's own S4 problem.
        let p = box_stack_problem(20, 0.5, ENGINE_CFM);
        let (residual, failures) = ode_outcome(&p);
        assert!(failures == 1 && residual > 1e-2, "{residual} {failures}");
        let normals = (0..p.len()).filter(|&i| p.findex[i].is_none());
        let friction = (0..p.len()).filter(|&i| p.findex[i].is_some());
        let order: Vec<usize> = normals.chain(friction).collect();
        let (residual, failures) = ode_outcome(&reorder(&p, &order));
        assert!(failures == 0 && residual < 1e-12, "{residual} {failures}");
    }
}
