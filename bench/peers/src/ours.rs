//! This engine's runs. Every scene comes from `stiction::scenes`, the engine's single source of
//! scene definitions; the builders of the contact scenes are found by build.rs (see
//! `scene_builders.rs`) so that a missing one is a row saying so, not a compile error.

use crate::measure::{self, Budget};
use crate::quality::{self, Quality};
use crate::report::{Kind, RunResult};
use crate::spec::{self, SceneId};
use std::fmt::Display;
use std::time::Duration;
use stiction::scenes::Scene;
use stiction::{GyroscopicMode, PhaseTimes, Solver, WorldSettings};

include!(concat!(env!("OUT_DIR"), "/scene_builders.rs"));

/// What a scene builder may return.
pub(crate) trait IntoScene {
    fn into_scene(self) -> Result<Scene, String>;
}

impl IntoScene for Scene {
    fn into_scene(self) -> Result<Scene, String> {
        Ok(self)
    }
}

impl<E: Display> IntoScene for Result<Scene, E> {
    fn into_scene(self) -> Result<Scene, String> {
        self.map_err(|e| e.to_string())
    }
}

pub(crate) fn into_scene(built: impl IntoScene) -> Result<Scene, String> {
    built.into_scene()
}

/// The name of the engine's builder of `scene`, if there is one.
pub fn builder_name(scene: SceneId) -> Option<&'static str> {
    match scene {
        SceneId::S1 => BUILDER_S1,
        SceneId::S2 => BUILDER_S2,
        SceneId::S3 => Some("chain_100"),
        SceneId::S4 => BUILDER_S4,
        SceneId::S5 => Some("spinner"),
    }
}

fn build(scene: SceneId, solver: Solver) -> Option<Result<Scene, String>> {
    let built = match scene {
        SceneId::S1 => build_s1(solver),
        SceneId::S2 => build_s2(solver),
        SceneId::S3 => Some(into_scene(stiction::scenes::chain_100(solver))),
        SceneId::S4 => build_s4(solver),
        SceneId::S5 => None,
    };
    built.map(|s| s.map(with_steps))
}

/// `scene` with `--steps`' count, if it was given, instead of its own.
fn with_steps(mut scene: Scene) -> Scene {
    if let Some(steps) = crate::spec::steps_override() {
        scene.steps = steps;
    }
    scene
}

/// Summed phase times of a run, to see where a step's time goes.
#[derive(Debug, Clone, Default)]
pub struct PhaseProfile {
    /// The run, as in the table.
    pub label: String,
    /// Steps summed.
    pub steps: usize,
    /// Summed times.
    pub sum: PhaseTimes,
    /// Largest number of rows in one step.
    pub max_rows: usize,
    /// Largest island seen (rows).
    pub max_island_rows: usize,
    /// Post-stabilisation passes, summed over the steps.
    pub post_passes: usize,
    /// Rows post-stabilisation worked on in its first pass, summed over the steps.
    pub post_rows: usize,
}

impl PhaseProfile {
    fn add(&mut self, t: &PhaseTimes) {
        self.steps += 1;
        self.sum.forces += t.forces;
        self.sum.rows += t.rows;
        self.sum.islands += t.islands;
        self.sum.solve += t.solve;
        self.sum.integration += t.integration;
        self.sum.post_stabilization += t.post_stabilization;
        self.sum.total += t.total;
    }

    /// One markdown row: ms per step in each phase; "other" is the rest of the step
    /// (collision detection, commit).
    pub fn markdown_row(&self) -> String {
        let per = |d: Duration| d.as_secs_f64() * 1e3 / self.steps.max(1) as f64;
        let s = &self.sum;
        let named = s.forces + s.rows + s.islands + s.solve + s.integration + s.post_stabilization;
        let steps = self.steps.max(1) as f64;
        format!(
            "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.1} / {:.0} | {} | {} |",
            self.label,
            self.steps,
            per(s.total),
            per(s.total.saturating_sub(named)),
            per(s.forces),
            per(s.rows),
            per(s.islands),
            per(s.solve),
            per(s.integration),
            per(s.post_stabilization),
            self.post_passes as f64 / steps,
            self.post_rows as f64 / steps,
            self.max_rows,
            self.max_island_rows
        )
    }

    /// Header of [`Self::markdown_row`].
    pub const HEADER: &'static str = "| run | steps | total ms/step | other (collision, commit) | forces | rows | islands | solve | integration | post-stab. | post-stab. passes / rows per step | max rows | max island rows |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |";
}

fn solver_of(kind: Kind) -> (Solver, &'static str) {
    match kind {
        Kind::Exact => (Solver::exact(), "Stiction exact"),
        Kind::Iterative => (Solver::iterative(), "Stiction iterative (20 sweeps)"),
    }
}

/// The largest distance between a built scene's initial body positions and docs/scenes.md's (both
/// sorted), or `None` when the counts differ.
fn position_mismatch(scene: &Scene, expected: &[[f64; 3]]) -> Option<f64> {
    let key = |p: &[f64; 3]| (p[2], p[1], p[0]);
    let mut ours: Vec<[f64; 3]> = scene
        .bodies
        .iter()
        .filter_map(|&b| scene.world.body(b).ok())
        .filter(|b| b.is_dynamic())
        .map(|b| b.position().to_array())
        .collect();
    if ours.len() != expected.len() {
        return None;
    }
    let mut theirs = expected.to_vec();
    ours.sort_by(|a, b| {
        key(a)
            .partial_cmp(&key(b))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    theirs.sort_by(|a, b| {
        key(a)
            .partial_cmp(&key(b))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    Some(
        ours.iter()
            .zip(&theirs)
            .map(|(a, b)| (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max))
            .fold(0.0, f64::max),
    )
}

fn expected_positions(scene: SceneId) -> Option<Vec<[f64; 3]>> {
    match scene {
        SceneId::S1 => Some(spec::pyramid_positions(spec::PYRAMID_ROWS)),
        SceneId::S2 => Some(spec::sphere_pile_positions()),
        SceneId::S3 => Some((0..spec::CHAIN_LINKS).map(spec::link_centre).collect()),
        SceneId::S4 => Some(spec::stack_positions(spec::STACK_HEIGHT)),
        SceneId::S5 => None,
    }
}

/// Rows of the largest island of the first step, from one iterative step of a copy.
fn largest_island_after_probe(s: &Scene) -> usize {
    let mut probe = s.world.clone();
    if probe.set_solver(Solver::iterative()).is_err() {
        return 0;
    }
    probe
        .step(s.h)
        .map(|stats| {
            stats
                .island_reports
                .iter()
                .map(|r| r.rows)
                .max()
                .unwrap_or(0)
        })
        .unwrap_or(0)
}

/// A change of the scene's settings, to measure what a setting costs or saves. Its rows are
/// not this engine's reference (the ratio column compares them with the scene's defaults).
#[derive(Debug, Clone, Copy)]
pub struct Variant {
    /// What changed, as shown in the table.
    pub label: &'static str,
    /// The change.
    pub apply: fn(&mut WorldSettings),
    /// The only scene it changes anything in, if one.
    pub only: Option<SceneId>,
}

/// The variants the benchmark measures: post-stabilisation (up to 10 passes of 50
/// Gauss-Seidel sweeps over the contact rows, to `1e-6` m) dominates the iterative step on
/// the contact scenes, so one pass, and a looser tolerance, are timed against it; and none
/// at all, which leaves the step ODE's quickstep computes (errors corrected by ERP in the
/// velocity solve only), for a comparison of equal work. S3's chain, an island of joint
/// rows only, is factored instead of swept by default
/// (`IterativeSettings::direct_bilateral`): it is also timed swept, with and without
/// post-stabilisation (the latter is exactly quickstep's work).
pub const POST_STABILIZATION_VARIANTS: [Variant; 5] = [
    Variant {
        label: "no post-stabilisation (ERP only, as ODE)",
        apply: |s| s.post_stabilization.enabled = false,
        only: None,
    },
    Variant {
        label: "post-stabilisation 1 pass",
        apply: |s| s.post_stabilization.max_passes = 1,
        only: None,
    },
    Variant {
        label: "post-stabilisation to 0.1 mm",
        apply: |s| s.post_stabilization.tolerance = 1e-4,
        only: None,
    },
    Variant {
        label: "joint-only islands swept, not factored",
        apply: sweep_bilateral_islands,
        only: Some(SceneId::S3),
    },
    Variant {
        label: "joint-only islands swept, no post-stabilisation (quickstep's work)",
        apply: |s| {
            sweep_bilateral_islands(s);
            s.post_stabilization.enabled = false;
        },
        only: Some(SceneId::S3),
    },
];

/// Turns off the iterative stepper's direct solve of joint-only islands.
fn sweep_bilateral_islands(settings: &mut WorldSettings) {
    if let Solver::Iterative(iterative) = &mut settings.solver {
        iterative.direct_bilateral = false;
    }
}

/// Runs scene S1-S4 with the exact or iterative stepper (and, if given, changed settings);
/// the exact stepper stops before a dense island of more than `row_limit` rows (islands
/// above its `dense_row_limit` are solved by its sparse solver and are not limited).
pub fn run(
    scene: SceneId,
    kind: Kind,
    budget: Budget,
    row_limit: usize,
    variant: Option<Variant>,
) -> (RunResult, Option<PhaseProfile>) {
    let (_, base_label) = solver_of(kind);
    match variant {
        Some(v) => run_changed(
            scene,
            kind,
            budget,
            row_limit,
            Some((&format!("{base_label}, {}", v.label), &v.apply)),
        ),
        None => run_changed(scene, kind, budget, row_limit, None),
    }
}

/// A named change of a scene's settings.
pub type SettingsChange<'a> = (&'a str, &'a dyn Fn(&mut WorldSettings));

/// [`run`] with the scene's settings changed by a named function (the work-precision runs
/// of `pareto.rs` change the sweep count); `None` runs the scene as built, as this engine's
/// reference row.
pub fn run_changed(
    scene: SceneId,
    kind: Kind,
    budget: Budget,
    row_limit: usize,
    change: Option<SettingsChange<'_>>,
) -> (RunResult, Option<PhaseProfile>) {
    let (solver, base_label) = solver_of(kind);
    let label = change.map_or(base_label, |(label, _)| label);
    let ours = change.is_none();
    let built = match build(scene, solver) {
        None => {
            let why = "not available yet: no builder in crates/engine/src/scenes.rs".to_string();
            return (RunResult::unavailable(scene, label, kind, ours, why), None);
        }
        Some(Err(e)) => {
            let why = format!("scene builder failed: {e}");
            return (RunResult::unavailable(scene, label, kind, ours, why), None);
        }
        Some(Ok(s)) => s,
    };
    let mut s = built;
    // For the phase table below. The clock's reads (about half a microsecond a step) count
    // in these runs' step times: under 1 % of S4's, less of the others'.
    s.world.set_time_phases(true);
    if let Some((_, apply)) = change {
        let mut settings = s.world.settings().clone();
        apply(&mut settings);
        if let Err(e) = s.world.set_settings(settings) {
            let why = format!("settings refused: {e}");
            return (RunResult::unavailable(scene, label, kind, ours, why), None);
        }
    }
    let mut notes = Vec::new();
    if let Some(expected) = expected_positions(scene) {
        match position_mismatch(&s, &expected) {
            Some(d) if d > 1e-9 => notes.push(format!(
                "initial positions differ from docs/scenes.md by up to {}",
                quality::metres(d)
            )),
            None => notes.push("body count differs from docs/scenes.md".into()),
            _ => {}
        }
    }
    let positions = |s: &Scene| -> Vec<[f64; 3]> {
        s.bodies
            .iter()
            .filter_map(|&b| s.world.body(b).ok())
            .filter(|b| b.is_dynamic())
            .map(|b| b.position().to_array())
            .collect()
    };
    // The top box: the highest body at the start.
    let top = s
        .bodies
        .iter()
        .copied()
        .filter(|&b| s.world.body(b).is_ok_and(|b| b.is_dynamic()))
        .max_by(|&a, &b| {
            let z = |h| {
                s.world
                    .body(h)
                    .map_or(f64::NEG_INFINITY, |b| b.position().z)
            };
            z(a).total_cmp(&z(b))
        });
    let top_start = top
        .and_then(|t| s.world.body(t).ok())
        .map(|b| b.position().to_array());

    let mut profile = PhaseProfile {
        label: format!("{} {label}", scene.label()),
        ..Default::default()
    };
    let (mut fallbacks, mut unsolved, mut sleeping) = (0, 0, 0);
    let h = s.h;
    let steps = s.steps;
    // The exact step solves an island of up to `dense_row_limit` rows as a dense LCP: it is
    // not started on a dense island larger than the limit (the first step's islands are
    // read from an iterative step of a copy, later ones from the step before). Larger
    // islands go to the sparse exact solver, which runs within the time budget.
    let dense_row_limit = match s.world.settings().solver {
        Solver::Exact(ref exact) => exact.dense_row_limit,
        Solver::Iterative(_) => 0,
    };
    let mut predicted_island = if kind == Kind::Exact {
        largest_island_after_probe(&s)
    } else {
        0
    };
    let timing = measure::run(steps, budget, |_| {
        if kind == Kind::Exact
            && predicted_island > row_limit
            && predicted_island <= dense_row_limit
        {
            return Ok(Some(format!(
                "stopped before an island of about {predicted_island} rows (limit {row_limit})"
            )));
        }
        let stats = s.world.step(h).map_err(|e| e.to_string())?;
        fallbacks += stats.fallbacks;
        unsolved += stats.unsolved_islands;
        sleeping = sleeping.max(stats.sleeping_bodies);
        profile.max_rows = profile.max_rows.max(stats.rows);
        let island = stats
            .island_reports
            .iter()
            .map(|r| r.rows)
            .max()
            .unwrap_or(0);
        profile.max_island_rows = profile.max_island_rows.max(island);
        predicted_island = island;
        profile.post_passes += stats.post_stabilization.passes;
        profile.post_rows += stats.post_stabilization.rows;
        profile.add(&stats.times);
        Ok(None)
    });
    if fallbacks > 0 {
        notes.push(format!(
            "{fallbacks} island solves fell back to Gauss-Seidel"
        ));
    }
    if unsolved > 0 && kind == Kind::Exact {
        notes.push(format!("{unsolved} island solves not to tolerance"));
    }
    if sleeping > 0 {
        notes.push(format!("up to {sleeping} bodies asleep"));
    }
    let quality = match scene {
        SceneId::S1 | SceneId::S4 => match (top, top_start) {
            (Some(t), Some(start)) => s.world.body(t).ok().map(|b| {
                let end = b.position().to_array();
                if scene == SceneId::S1 {
                    quality::top_box(start, end)
                } else {
                    quality::stack_top(start, end)
                }
            }),
            _ => None,
        },
        SceneId::S2 => Some(quality::pile(&positions(&s))),
        SceneId::S3 => Some(Quality::Chain {
            max_separation: s.world.max_joint_anchor_separation(),
        }),
        SceneId::S5 => None,
    };
    (
        RunResult {
            scene,
            engine: label.to_string(),
            kind,
            ours,
            timing: Some(timing),
            quality,
            notes,
        },
        Some(profile),
    )
}

/// S5 in each gyroscopic mode. With no rows both steppers do the same work, so one run per
/// mode stands for both.
pub fn run_spinner(budget: Budget) -> Vec<RunResult> {
    let modes = [
        (GyroscopicMode::Implicit, "Implicit (default)"),
        (GyroscopicMode::Conserving, "Conserving"),
        (GyroscopicMode::Explicit, "Explicit"),
        (GyroscopicMode::None, "None"),
    ];
    modes
        .into_iter()
        .map(|(mode, name)| {
            let engine = format!("Stiction (either stepper), gyroscopic {name}");
            let mut s = match stiction::scenes::spinner(mode) {
                Ok(s) => with_steps(s),
                Err(e) => {
                    return RunResult::unavailable(
                        SceneId::S5,
                        &engine,
                        Kind::Exact,
                        true,
                        e.to_string(),
                    )
                }
            };
            let body = s.bodies[0];
            let invariants = |s: &Scene| {
                let b = s.world.body(body).expect("the spinner exists");
                (
                    b.angular_momentum().to_array(),
                    b.rotational_kinetic_energy(),
                )
            };
            let start = invariants(&s);
            let h = s.h;
            let timing = measure::run(s.steps, budget, |_| {
                s.world.step(h).map(|_| None).map_err(|e| e.to_string())
            });
            RunResult {
                scene: SceneId::S5,
                engine,
                kind: Kind::Exact,
                ours: true,
                timing: Some(timing),
                quality: Some(quality::spin(start, invariants(&s))),
                notes: Vec::new(),
            }
        })
        .collect()
}
