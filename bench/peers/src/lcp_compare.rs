//! The LCP solvers alone: this project's Dantzig against ODE's `dxSolveLCP` on the same
//! problems, exported in the JSON problem format.

use crate::chain_lcp;
use crate::measure::median;
use crate::ode::ffi::peers_ode_lcp_message_count;
use crate::ode::lcp::OdeLcp;
use std::path::Path;
use std::time::{Duration, Instant};
use stiction::lcp::dantzig::{DantzigOptions, DantzigSolver};
use stiction::lcp::generate::{box_stack_problem, random_contact_problem, ContactProblemSpec};
use stiction::lcp::json::{parse_problem, to_json};
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
}

/// `cfm / h` with SCENES.md's CFM and step, as the engine puts on the diagonal.
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

/// The problems: the engine's S3 LCP (full chain and a 10-link one), box stacks and random
/// contact sets from `stiction_lcp::generate`. The engine's contact scenes (S1, S4) cannot
/// be exported yet: the engine keeps its assembled LCPs internal, and contact rows are not
/// rebuilt here.
pub fn problems(notes: &mut Vec<String>) -> Vec<Problem> {
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
        });
    }
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
    /// The same with one friction pass and no exact-friction fallback (ODE's rule), µs.
    pub ours_one_pass_us: f64,
    /// Our status and residual.
    pub ours: String,
    /// Median time of ODE's solve, µs (`None`: ODE's solver could not be called).
    pub ode_us: Option<f64>,
    /// ODE's residual (as this project measures it).
    pub ode: String,
}

fn repetitions(one: Duration) -> usize {
    // About half a second per solver and problem, at least 5 and at most 2000 solves.
    ((0.5 / one.as_secs_f64().max(1e-9)) as usize).clamp(5, 2000)
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
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let clock = Instant::now();
        let _ = solver.solve(problem, &options, None);
        times.push(clock.elapsed().as_secs_f64() * 1e6);
    }
    let ours_us = median(&mut times);
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
    // ODE's rule: friction bounds fixed once from the normals known when the first friction
    // row is reached, no further passes (equal work, ODE's accuracy).
    let one_pass = DantzigOptions {
        max_friction_passes: 1,
        exact_friction: false,
        ..DantzigOptions::default()
    };
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let clock = Instant::now();
        let _ = solver.solve(problem, &one_pass, None);
        times.push(clock.elapsed().as_secs_f64() * 1e6);
    }
    let ours_one_pass_us = median(&mut times);

    let (ode_us, ode) = match OdeLcp::new(n) {
        None => (
            None,
            "not callable: arena layout not recognised".to_string(),
        ),
        Some(mut ode) => {
            // SAFETY: reads a counter of the shim.
            let failures_before = unsafe { peers_ode_lcp_message_count() };
            let mut times = Vec::with_capacity(reps);
            let mut outcome = Ok(());
            for _ in 0..reps {
                if let Err(e) = ode.load(problem) {
                    outcome = Err(e);
                    break;
                }
                let clock = Instant::now();
                outcome = ode.solve_loaded();
                times.push(clock.elapsed().as_secs_f64() * 1e6);
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
                    let mut answer = format!("residual {:.1e}", residual.max());
                    if failures > 0 {
                        answer.push_str(&format!(
                            ", gave up (s <= 0) in {failures} of {} solves",
                            times.len()
                        ));
                    }
                    (Some(median(&mut times)), answer)
                }
            }
        }
    };
    Comparison {
        name: p.name.clone(),
        rows: n,
        nub: problem.nub,
        friction: problem.findex.iter().filter(|f| f.is_some()).count(),
        ours_us,
        ours_one_pass_us,
        ours,
        ode_us,
        ode,
    }
}

/// The markdown table of the comparisons.
pub fn markdown(rows: &[Comparison]) -> String {
    let mut out = String::from(
        "| problem | rows | unbounded | friction | Stiction Dantzig µs | same, 1 friction pass µs | ODE dxSolveLCP µs | ODE / Stiction | ODE / Stiction 1 pass | Stiction answer | ODE answer |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n",
    );
    for c in rows {
        let (ode, ratio, ratio_one) = match c.ode_us {
            Some(t) => (
                format!("{t:.1}"),
                format!("{:.2}", t / c.ours_us),
                format!("{:.2}", t / c.ours_one_pass_us),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.1} | {:.1} | {} | {} | {} | {} | {} |\n",
            c.name,
            c.rows,
            c.nub,
            c.friction,
            c.ours_us,
            c.ours_one_pass_us,
            ode,
            ratio,
            ratio_one,
            c.ours,
            c.ode
        ));
    }
    out
}
