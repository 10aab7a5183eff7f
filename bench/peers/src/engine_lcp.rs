//! The contact LCPs this engine's exact stepper assembles for S4 and S1, captured through
//! `World::set_capture_problems` (the problems exactly as handed to its Dantzig solver).
//!
//! Each comes with the same island's problem one step earlier: the engine warm-starts a step
//! from the index sets of the previous step's solution, so solving that problem and passing
//! its active set reproduces the engine's warm start.

use stiction::lcp::BoxedLcp;
use stiction::scenes::{pyramid, scene_settings, stack, Scene};
use stiction::{ExactSettings, Solver};

/// One island problem of a real step and the same island's problem a step earlier.
pub struct Captured {
    /// The problem of the last step.
    pub problem: BoxedLcp,
    /// The same island's problem one step earlier (`None` if its size changed).
    pub previous: Option<BoxedLcp>,
    /// How the engine's own step solved `problem`: pivots, and whether it was warm-started.
    pub engine_solve: (usize, bool),
}

/// Steps `scene` twice with problem capture on and returns its single island's problems.
fn capture_two_steps(scene: &mut Scene) -> Result<Captured, String> {
    scene.world.set_capture_problems(true);
    let mut problems = Vec::with_capacity(2);
    let mut engine_solve = (0, false);
    for _ in 0..2 {
        let stats = scene.world.step(scene.h).map_err(|e| e.to_string())?;
        engine_solve = (
            stats.pivots,
            stats.island_reports.iter().all(|r| r.warm_started),
        );
        let captured = scene.world.captured_problems();
        match captured {
            [one] => problems.push(one.clone()),
            [] => {
                return Err(format!(
                    "the exact stepper assembled no dense problem ({} rows in {} islands): \
                     islands above its dense row limit are not captured",
                    scene.world.step_stats().rows,
                    scene.world.step_stats().islands
                ))
            }
            more => return Err(format!("{} islands, expected one", more.len())),
        }
    }
    scene.world.set_capture_problems(false);
    let problem = problems.pop().expect("two problems were pushed");
    let previous = problems.pop().filter(|p| p.len() == problem.len());
    Ok(Captured {
        problem,
        previous,
        engine_solve,
    })
}

/// S4 (`boxes` unit boxes stacked) after `settle` exact steps, then two captured exact steps,
/// with every island dense (by default islands above 50 rows go to the sparse solver, which
/// assembles no dense problem to capture).
pub fn stack_problem(boxes: usize, settle: usize) -> Result<Captured, String> {
    let dense = Solver::Exact(ExactSettings {
        dense_row_limit: usize::MAX,
        ..ExactSettings::default()
    });
    let mut scene = stack(boxes, scene_settings(dense)).map_err(|e| e.to_string())?;
    for _ in 0..settle {
        scene.world.step(scene.h).map_err(|e| e.to_string())?;
    }
    capture_two_steps(&mut scene)
}

/// Exact steps a pyramid takes after settling and before its problems are captured, so that
/// the warm start of the captured step comes from an exact step that was warm-started too.
pub const PYRAMID_EXACT_STEPS: usize = 2;

/// S1's pyramid of `rows` rows after `settle` iterative steps (cheap at every size), then
/// [`PYRAMID_EXACT_STEPS`] exact steps and two captured ones. The exact stepper's dense row
/// limit is lifted, so that the pyramids (islands above 50 rows, which it would otherwise
/// hand to its sparse solver) are assembled and solved densely.
pub fn pyramid_problem(rows: usize, settle: usize) -> Result<Captured, String> {
    let mut scene =
        pyramid(rows, scene_settings(Solver::iterative())).map_err(|e| e.to_string())?;
    for _ in 0..settle {
        scene.world.step(scene.h).map_err(|e| e.to_string())?;
    }
    scene
        .world
        .set_solver(Solver::Exact(ExactSettings {
            dense_row_limit: usize::MAX,
            ..ExactSettings::default()
        }))
        .map_err(|e| e.to_string())?;
    for _ in 0..PYRAMID_EXACT_STEPS {
        scene.world.step(scene.h).map_err(|e| e.to_string())?;
    }
    capture_two_steps(&mut scene)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ode::lcp::OdeLcp;
    use stiction::lcp::boxed_residual;
    use stiction::lcp::dantzig::{DantzigOptions, DantzigSolver};

    #[test]
    fn a_settled_three_box_stack_gives_one_island_of_twelve_contacts() {
        let captured = stack_problem(3, 30).unwrap();
        let p = &captured.problem;
        // Four corner contacts per face, a normal and two friction rows each.
        assert_eq!(p.len(), 36);
        assert_eq!(p.findex.iter().filter(|f| f.is_some()).count(), 24);
        assert_eq!(captured.previous.as_ref().map(BoxedLcp::len), Some(36));

        // The previous step's index sets are right for this step: the stack is at rest.
        let options = DantzigOptions::default();
        let mut solver = DantzigSolver::new();
        solver
            .solve(captured.previous.as_ref().unwrap(), &options, None)
            .unwrap();
        let guess = solver.active_set().to_vec();
        let report = solver.solve(p, &options, Some(&guess)).unwrap();
        assert!(report.status.is_solved());
        assert!(solver.stats().warm_start_hit);
        assert_eq!(solver.stats().pivots, 0);

        // ODE's solver agrees on this problem (it does not give up on the engine's rows).
        let mut ode = OdeLcp::new(p.len()).expect("libode 0.16's arena is recognised");
        ode.load(p).unwrap();
        ode.solve_loaded().unwrap();
        let x = ode.x();
        assert!(boxed_residual(p, &x, &p.slack(&x)).max() < 1e-9);
        let largest = report.x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for (ours, theirs) in report.x.iter().zip(&x) {
            assert!((ours - theirs).abs() < 1e-8 * largest, "{ours} vs {theirs}");
        }
    }

    #[test]
    fn a_two_row_pyramid_is_captured_after_its_exact_steps() {
        let captured = pyramid_problem(2, 30).unwrap();
        // Three boxes: two on the ground (4 corner contacts each) and touching each other
        // side by side (4), one on top resting on both (a half-face overlap with each, 4
        // corners each): 20 contacts, 60 rows.
        let p = &captured.problem;
        assert_eq!(p.len(), 60);
        assert!(captured.previous.is_some());
        let report = DantzigSolver::new()
            .solve(p, &DantzigOptions::default(), None)
            .unwrap();
        assert!(report.status.is_solved());
    }
}
