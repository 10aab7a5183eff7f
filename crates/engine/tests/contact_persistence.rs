//! Contact persistence: points matched across steps by parry's feature ids carry their
//! forces and Dantzig index sets, so a resting contact is warm-started: the exact stepper
//! needs no pivot once the contact set is settled, and Gauss-Seidel starts from last
//! step's forces (and reaches the exact answer's forces on a resting box).

mod common;

use stiction::math::Vec3;
use stiction::{Solver, World, WorldSettings};

fn resting_box(solver: Solver) -> World {
    let settings = WorldSettings {
        solver,
        ..WorldSettings::default()
    };
    common::box_on_ground(settings, Vec3::new(0.5, 0.3, 0.2), 2.0).0
}

#[test]
fn the_exact_stepper_reuses_the_last_index_sets() {
    let mut world = resting_box(Solver::exact());
    let first = world.step(1.0 / 60.0).unwrap().clone();
    assert!(!first.island_reports[0].warm_started);
    assert!(first.pivots > 0);
    for _ in 0..10 {
        let stats = world.step(1.0 / 60.0).unwrap();
        let report = stats.island_reports[0];
        assert!(report.warm_started, "{report:?}");
        assert_eq!(stats.pivots, 0);
        assert!(report.status.is_solved());
    }
}

#[test]
fn gauss_seidel_starts_from_last_steps_forces() {
    let mut exact = resting_box(Solver::exact());
    let mut iterative = resting_box(Solver::iterative());
    let first = iterative.step(1.0 / 60.0).unwrap();
    assert!(
        first.island_reports[0].warm_started,
        "new contacts start from their load estimate"
    );
    for _ in 0..120 {
        exact.step(1.0 / 60.0).unwrap();
        iterative.step(1.0 / 60.0).unwrap();
    }
    assert!(iterative.step_stats().island_reports[0].warm_started);
    // The point forces of a settled box match the exact stepper's (the weight splits
    // evenly over the four corners).
    for (a, b) in exact.contacts().iter().zip(iterative.contacts()) {
        assert!(
            (a.force_local - b.force_local).length() < 1e-3,
            "{a:?} vs {b:?}"
        );
        assert!((a.force_local.x - 2.0 * 9.81 / 4.0).abs() < 1e-3);
    }
}
