//! Steps of scenes at rest allocate nothing: every workspace of the step (rows, islands,
//! solver scratch and reports, contact manifolds and pair states, the broad phase's pair
//! lists) is kept and reused once it has grown to the scene's size.
//!
//! A counting global allocator sees every allocation of this test binary; the cases run
//! one at a time under a lock so that no other test's allocations are counted. Each case
//! first runs long enough for every workspace to reach its largest size (growth is
//! amortised, not a per-step cost), then counts the allocations of the steps after.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use stiction::scenes::{self, Scene};
use stiction::{ExactSettings, IterativeSettings, Solver};

/// The system allocator, counting allocations and reallocations.
struct Counting;

thread_local! {
    // Per thread: tests run in parallel, and another test building its scene must not be
    // counted against the steps measured here (the step itself runs on the calling thread).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: allocations during a thread's teardown, after its locals are gone, are
    // not steps of ours.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

fn allocations_so_far() -> usize {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: forwards every call unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by `measured` steps of `scene` after `warm` steps.
fn allocations_after_warm_up(mut scene: Scene, warm: usize, measured: usize) -> usize {
    for _ in 0..warm {
        scene.world.step(scene.h).expect("warm-up step");
    }
    let before = allocations_so_far();
    for _ in 0..measured {
        scene.world.step(scene.h).expect("measured step");
    }
    allocations_so_far() - before
}

fn exact() -> Solver {
    Solver::Exact(ExactSettings::default())
}

fn iterative() -> Solver {
    Solver::Iterative(IterativeSettings::default())
}

#[test]
fn resting_stack_steps_allocate_nothing() {
    // Box on half-space (our manifold path), box on box (parry's, with our old-point
    // scratch), dense Dantzig's report reused.
    for solver in [exact(), iterative()] {
        let scene = scenes::stack(8, scenes::scene_settings(solver.clone())).unwrap();
        // Post-stabilisation's first pass (which sizes its workspaces) comes late.
        let count = allocations_after_warm_up(scene, 400, 120);
        assert_eq!(
            count, 0,
            "stack of 8, {solver:?}: {count} allocations in 120 steps"
        );
    }
}

#[test]
fn resting_pyramid_steps_allocate_nothing() {
    // The pyramid settles for a while: post-stabilisation's direct solves first run
    // (and size their workspaces) several hundred steps in (the exact stepper's pyramid:
    // one more growth between steps 600 and 900 since the islands keep a copy of the
    // last row structure).
    for (solver, warm, measured) in [(iterative(), 1500, 300), (exact(), 900, 60)] {
        let scene = scenes::pyramid(5, scenes::scene_settings(solver.clone())).unwrap();
        let count = allocations_after_warm_up(scene, warm, measured);
        assert_eq!(
            count, 0,
            "pyramid of 5 rows, {solver:?}: {count} allocations in {measured} steps"
        );
    }
}

#[test]
fn chain_steps_allocate_nothing() {
    // A whipping 30-link ball chain: its island of joint rows only is factored by both
    // steppers (`IterativeSettings::direct_bilateral`; the exact stepper above 25 rows),
    // and post-stabilisation factors and chord-steps it every step.
    for solver in [exact(), iterative()] {
        let scene = scenes::chain(30, scenes::scene_settings(solver.clone())).unwrap();
        let count = allocations_after_warm_up(scene, 120, 120);
        assert_eq!(
            count, 0,
            "chain of 30, {solver:?}: {count} allocations in 120 steps"
        );
    }
}

#[test]
fn sphere_pile_steps_allocate_only_for_pairs_that_begin() {
    // A pile of spheres never quite rests (balls roll), so contact pairs begin and end
    // all the time; ended pairs' lists are reused for new ones, and only a pair beyond
    // the most the pile has had needs new ones (before that reuse: 110 allocations in
    // 60 steps of this pile, every new pair and every half-space pair). The islands' copy
    // of the last row structure (reused when a step's rows have the same) grows with the
    // most rows the pile has had, too: 15 in these 120 steps.
    let scene = scenes::sphere_pile(4, 2, scenes::scene_settings(iterative())).unwrap();
    let count = allocations_after_warm_up(scene, 600, 120);
    assert!(
        count <= 20,
        "sphere pile 4 x 4 x 2: {count} allocations in 120 steps"
    );
}
