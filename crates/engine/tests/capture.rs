//! `World::set_capture_problems`: the exact stepper's island LCPs, captured after assembly,
//! are the problems it solves. A settled stack of three unit boxes is one island of four
//! contacts per face, three rows each (a normal row, then after all normals the two friction
//! rows of box friction); solving the captured problem afresh with Dantzig gives back the
//! forces the step reported for every contact.

use stiction::lcp::dantzig::{DantzigOptions, DantzigSolver};
use stiction::lcp::{boxed_residual, BoxedLcp};
use stiction::scenes::{scene_settings, stack, Scene};
use stiction::Solver;

const BOXES: usize = 3;

fn settled_stack(solver: Solver, capture: bool) -> Scene {
    let mut scene = stack(BOXES, scene_settings(solver)).unwrap();
    scene.world.set_capture_problems(capture);
    for _ in 0..30 {
        scene.world.step(scene.h).unwrap();
    }
    scene
}

#[test]
fn nothing_is_captured_unless_asked_and_the_iterative_stepper_captures_its_rows() {
    let off = settled_stack(Solver::exact(), false);
    assert!(!off.world.captures_problems());
    assert!(off.world.captured_problems().is_empty());
    // The iterative stepper's sweeps work on the same rows: its problem is captured with
    // the forces the sweeps reached, one per row.
    let iterative = settled_stack(Solver::iterative(), true);
    assert!(iterative.world.captures_problems());
    let problems = iterative.world.captured_problems();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].len(), 3 * 4 * BOXES);
    let solutions = iterative.world.captured_solutions();
    assert_eq!(solutions[0].len(), problems[0].len());
    // Each contact's rows together (normal, then two friction rows): the normal forces
    // carry the stack's weight, 3 + 2 + 1 boxes of 1 kg over the three faces, N.
    let normals: f64 = solutions[0].iter().step_by(3).sum();
    assert!(
        (normals - 6.0 * 9.81).abs() < 0.02 * 6.0 * 9.81,
        "{normals}"
    );
}

#[test]
fn the_captured_stack_problem_has_its_rows_and_gives_back_the_steps_forces() {
    let mut scene = settled_stack(Solver::exact(), true);
    let world = &scene.world;
    let contacts = world.contacts();
    assert_eq!(contacts.len(), 4 * BOXES, "four corner contacts per face");
    assert_eq!(world.captured_islands(), &[0]);
    let problems: &[BoxedLcp] = world.captured_problems();
    assert_eq!(problems.len(), 1);
    let p = &problems[0];
    assert_eq!(p.len(), 3 * 4 * BOXES);
    assert_eq!(p.nub, 0);
    // The exact stepper lists each contact's rows together: normal, then its two friction
    // rows (box friction, bounded by mu = 0.5 times that normal).
    for (i, f) in p.findex.iter().enumerate() {
        if i % 3 == 0 {
            assert_eq!(
                (*f, p.lo[i], p.hi[i]),
                (None, 0.0, f64::INFINITY),
                "row {i}"
            );
        } else {
            assert_eq!(*f, Some(i - i % 3), "row {i}");
            assert_eq!(p.hi[i], 0.5);
        }
    }

    let report = DantzigSolver::new()
        .solve(p, &DantzigOptions::default(), None)
        .unwrap();
    assert!(report.status.is_solved(), "{:?}", report.status);
    let residual = boxed_residual(p, &report.x, &p.slack(&report.x)).max();
    assert!(residual < 1e-10, "residual {residual}");
    let largest = contacts
        .iter()
        .map(|c| c.force_local.length())
        .fold(0.0, f64::max);
    // The stack weighs 3 x 9.81 N on four ground corners: about 7.4 N each.
    assert!(
        (largest - 9.81 * BOXES as f64 / 4.0).abs() < 1.0,
        "{largest}"
    );
    for (k, c) in contacts.iter().enumerate() {
        let solved = [report.x[3 * k], report.x[3 * k + 1], report.x[3 * k + 2]];
        let stepped = [c.force_local.x, c.force_local.y, c.force_local.z];
        for (s, t) in solved.iter().zip(stepped) {
            assert!(
                (s - t).abs() <= 1e-8 * largest,
                "contact {k}: solved {solved:?}, step {stepped:?}"
            );
        }
    }

    // The next step replaces the copy; turning capture off forgets it.
    scene.world.step(scene.h).unwrap();
    assert_eq!(scene.world.captured_problems().len(), 1);
    scene.world.set_capture_problems(false);
    assert!(scene.world.captured_problems().is_empty());
}

/// Each captured row names its contact (an index into `World::contacts`, and which of the
/// contact's rows) and the names agree with the step: the row's bodies are the contact's,
/// and its force is the contact's force along that row's direction.
#[test]
fn every_captured_contact_row_names_its_contact() {
    for solver in [Solver::exact(), Solver::iterative()] {
        let scene = settled_stack(solver.clone(), true);
        let world = &scene.world;
        let contacts = world.contacts();
        let sources = world.captured_row_sources();
        assert_eq!(sources.len(), 1);
        assert_eq!(sources[0].len(), 3 * contacts.len());
        let mut seen = vec![[false; 3]; contacts.len()];
        for (i, source) in sources[0].iter().enumerate() {
            let stiction::RowSource::Contact { contact, row } = *source else {
                panic!("row {i} is {source:?}, not a contact's");
            };
            let c = &contacts[contact];
            assert!(!seen[contact][row], "row {row} of contact {contact} twice");
            seen[contact][row] = true;
            // The bodies of the row are the contact's, in some order.
            let mut ours = world.captured_row_bodies()[0][i];
            let mut theirs = c.geometry.bodies.map(|b| b.map(|b| b.index()));
            ours.sort();
            theirs.sort();
            assert_eq!(ours, theirs, "row {i}");
            let lambda = world.captured_solutions()[0][i];
            let along = c.force_local[row];
            assert!(
                (lambda - along).abs() < 1e-9,
                "row {i}: {lambda} vs {along}"
            );
        }
        assert!(seen.iter().all(|rows| rows.iter().all(|&r| r)));
    }
}

/// A chain's rows name their joints, three rows per ball joint in the chain's order.
#[test]
fn every_captured_joint_row_names_its_joint() {
    let settings = stiction::WorldSettings {
        solver: Solver::exact(),
        ..Default::default()
    };
    let mut scene = stiction::scenes::chain(4, settings).unwrap();
    scene.world.set_capture_problems(true);
    scene.world.step(scene.h).unwrap();
    let sources = scene.world.captured_row_sources();
    assert_eq!(sources.len(), 1);
    let mut rows: Vec<(stiction::JointHandle, usize)> = sources[0]
        .iter()
        .map(|s| match *s {
            stiction::RowSource::Joint { joint, row } => (joint, row),
            other => panic!("{other:?} in a chain"),
        })
        .collect();
    rows.sort_by_key(|&(j, r)| (j.index(), r));
    let expected: Vec<_> = scene
        .joints
        .iter()
        .flat_map(|&j| (0..3).map(move |r| (j, r)))
        .collect();
    let mut expected = expected;
    expected.sort_by_key(|&(j, r)| (j.index(), r));
    assert_eq!(rows, expected);
}
