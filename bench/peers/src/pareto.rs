//! Work-precision curves (`stiction-peers --pareto`): S1, S2 and S4 in every engine over its
//! main accuracy knob, each point one whole run timed step by step (the median step, as the
//! scene table) and scored by the scene's error figure ([`crate::quality::Quality::error`]), engines
//! interleaved point by point. MuJoCo and PyBullet run through their Python packages
//! (`python/peer_scenes.py`, one process per point). Prints the points, then for every
//! peer point the fastest of this engine's points at the same or a smaller error, and
//! draws one log-log SVG per scene.

use crate::measure::{self, Budget, Timing};
use crate::ode;
use crate::ours;
use crate::quality;
use crate::rapier_runs::{self, Settings as RapierSettings};
use crate::report::{ms, Kind, RunResult};
use crate::spec::SceneId;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use stiction::{Solver, WorldSettings};

/// The scenes of the curves.
pub const SCENES: [SceneId; 3] = [SceneId::S1, SceneId::S2, SceneId::S4];

/// How one point is run.
#[derive(Debug, Clone)]
enum Runner {
    /// This engine's iterative step with `sweeps` sweeps, post-stabilisation on or off.
    OursIterative { sweeps: usize, post: bool },
    /// This engine's exact step.
    OursExact,
    /// ODE's quickstep with this many iterations.
    OdeQuick { iterations: usize },
    /// Rapier with these settings.
    Rapier(RapierSettings),
    /// A Python engine (`mujoco` or `pybullet`) through `python/peer_scenes.py`.
    Python {
        engine: &'static str,
        solver: Option<&'static str>,
        iterations: usize,
    },
}

/// One engine's curve: its name and its points (knob label, runner), cheapest first.
struct Curve {
    name: &'static str,
    ours: bool,
    points: Vec<(String, Runner)>,
}

fn curves() -> Vec<Curve> {
    let ours_sweeps = |post: bool, sweeps: &[usize]| -> Vec<(String, Runner)> {
        sweeps
            .iter()
            .map(|&n| {
                (
                    format!("{n} sweeps"),
                    Runner::OursIterative { sweeps: n, post },
                )
            })
            .collect()
    };
    let python = |engine, solver, iterations: &[usize]| -> Vec<(String, Runner)> {
        iterations
            .iter()
            .map(|&n| {
                let runner = Runner::Python {
                    engine,
                    solver,
                    iterations: n,
                };
                (format!("{n} iterations"), runner)
            })
            .collect()
    };
    let rapier = |solver_iterations, pgs_iterations, substeps| {
        Runner::Rapier(RapierSettings {
            solver_iterations,
            pgs_iterations,
            substeps,
        })
    };
    vec![
        Curve {
            name: "Stiction iterative",
            ours: true,
            points: ours_sweeps(true, &[2, 3, 4, 5, 10, 20, 40]),
        },
        Curve {
            name: "Stiction iterative, no post-stabilisation",
            ours: true,
            points: ours_sweeps(false, &[2, 5, 10, 20, 40]),
        },
        Curve {
            name: "Stiction exact",
            ours: true,
            points: vec![("exact".into(), Runner::OursExact)],
        },
        Curve {
            name: "ODE quickstep",
            ours: false,
            points: [5, 10, 20, 40, 100]
                .iter()
                .map(|&n| {
                    let runner = Runner::OdeQuick { iterations: n };
                    (format!("{n} iterations"), runner)
                })
                .collect(),
        },
        Curve {
            name: "Rapier",
            ours: false,
            points: [1, 2, 4, 8, 16, 32]
                .iter()
                .map(|&n| {
                    let label = if n == 4 {
                        "4 iterations (default)".to_string()
                    } else {
                        format!("{n} iterations")
                    };
                    (label, rapier(n, 1, 1))
                })
                .collect(),
        },
        Curve {
            name: "Rapier, substeps",
            ours: false,
            points: vec![
                ("4 iterations x 4 PGS".into(), rapier(4, 4, 1)),
                ("2 substeps".into(), rapier(4, 1, 2)),
                ("4 substeps".into(), rapier(4, 1, 4)),
            ],
        },
        Curve {
            name: "MuJoCo PGS",
            ours: false,
            points: python("mujoco", Some("PGS"), &[2, 5, 10, 30, 100]),
        },
        Curve {
            name: "MuJoCo CG",
            ours: false,
            points: python("mujoco", Some("CG"), &[2, 5, 10, 30, 100]),
        },
        Curve {
            name: "MuJoCo Newton",
            ours: false,
            points: python("mujoco", Some("Newton"), &[1, 2, 5, 10, 100]),
        },
        Curve {
            name: "PyBullet",
            ours: false,
            points: python("pybullet", None, &[2, 5, 10, 20, 50, 100]),
        },
    ]
}

/// One point's outcome.
#[derive(Debug, Clone)]
pub struct Point {
    /// Curve name.
    pub curve: &'static str,
    /// Whether the curve is this engine's.
    pub ours: bool,
    /// The knob's setting.
    pub knob: String,
    /// Median step over the rounds, ms (NaN if none ran).
    pub ms: f64,
    /// The rounds' smallest and largest median step, ms.
    pub range: (f64, f64),
    /// The error figure at the end of the run (of the first round; the runs are
    /// deterministic).
    pub error: f64,
    /// The quality figures, for the table.
    pub describe: String,
    /// Steps taken of those planned.
    pub done: usize,
    /// Steps planned.
    pub planned: usize,
    /// Why the run stopped early or failed, if it did.
    pub stopped: Option<String>,
    /// Whether the scene fell apart ([`collapsed`]).
    pub collapsed: bool,
}

impl Point {
    /// Whether the point belongs on a curve: every step ran, the error is a number and the
    /// scene held together.
    pub fn complete(&self) -> bool {
        self.done == self.planned
            && self.stopped.is_none()
            && self.error.is_finite()
            && !self.collapsed
    }
}

/// Whether a run's error says the scene fell apart rather than erred: the top box of S1 or
/// S4 moved more than its own size (1 m: the pyramid or stack fell), or a sphere of S2 left
/// the container. Such a run reaches no accuracy level, so it is no point of a curve.
pub fn collapsed(scene: SceneId, error: f64) -> bool {
    match scene {
        SceneId::S1 | SceneId::S4 => error.is_nan() || error > 1.0,
        _ => !error.is_finite(),
    }
}

/// Budget of one point: a run that falls this far behind is not a point of the curve (a
/// step may take 2 s: the exact stepper's S1 step 77 takes about 1.2).
pub const POINT_BUDGET: Budget = Budget {
    wall: Duration::from_secs(20),
    slow_step: Duration::from_secs(2),
};

/// What a point's run returns, whoever ran it.
struct Outcome {
    timing: Option<Timing>,
    error: f64,
    describe: String,
    stopped: Option<String>,
}

fn from_result(r: RunResult) -> Outcome {
    let stopped = r
        .timing
        .as_ref()
        .and_then(|t| t.stopped.clone())
        .or_else(|| r.timing.is_none().then(|| r.notes.join("; ")));
    let (error, describe) = match r.quality {
        Some(q) => (q.error(), q.to_string()),
        None => (f64::NAN, "-".into()),
    };
    Outcome {
        timing: r.timing,
        error,
        describe,
        stopped,
    }
}

fn set_sweeps(settings: &mut WorldSettings, sweeps: usize, post: bool) {
    if let Solver::Iterative(iterative) = &mut settings.solver {
        iterative.iterations = sweeps;
    }
    settings.post_stabilization.enabled = post;
}

fn run_point(scene: SceneId, runner: &Runner, python: &Path) -> Outcome {
    match runner {
        Runner::OursIterative { sweeps, post } => {
            let (sweeps, post) = (*sweeps, *post);
            let change = move |s: &mut WorldSettings| set_sweeps(s, sweeps, post);
            let label = format!("Stiction iterative, {sweeps} sweeps");
            let (r, _) = ours::run_changed(
                scene,
                Kind::Iterative,
                POINT_BUDGET,
                usize::MAX,
                Some((&label, &change)),
            );
            from_result(r)
        }
        Runner::OursExact => {
            from_result(ours::run(scene, Kind::Exact, POINT_BUDGET, usize::MAX, None).0)
        }
        Runner::OdeQuick { iterations } => from_result(ode::scenes::run_quick_with_iterations(
            scene,
            *iterations,
            POINT_BUDGET,
        )),
        Runner::Rapier(settings) => from_result(rapier_runs::run_configured(
            scene,
            true,
            POINT_BUDGET,
            "Rapier".into(),
            *settings,
        )),
        Runner::Python {
            engine,
            solver,
            iterations,
        } => run_python(scene, engine, *solver, *iterations, python),
    }
}

/// One point in a Python engine: `python/peer_scenes.py` prints its run as JSON.
fn run_python(
    scene: SceneId,
    engine: &str,
    solver: Option<&str>,
    iterations: usize,
    python: &Path,
) -> Outcome {
    let failed = |why: String| Outcome {
        timing: None,
        error: f64::NAN,
        describe: "-".into(),
        stopped: Some(why),
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/peer_scenes.py");
    let mut command = Command::new(python);
    command
        .arg(&script)
        .args([
            "--engine",
            engine,
            "--scene",
            &format!("{scene:?}").to_lowercase(),
        ])
        .args(["--iterations", &iterations.to_string()])
        .args(["--budget", &POINT_BUDGET.wall.as_secs_f64().to_string()])
        .args([
            "--slow-step",
            &POINT_BUDGET.slow_step.as_secs_f64().to_string(),
        ]);
    if let Some(solver) = solver {
        command.args(["--solver", solver]);
    }
    let output = match command.output() {
        Ok(o) => o,
        Err(e) => return failed(format!("{} did not start: {e}", python.display())),
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().last().unwrap_or("no message").to_string();
        return failed(format!("{engine} run failed: {last}"));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().last().unwrap_or("");
    let value: serde_json::Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return failed(format!("{engine} run printed no JSON: {e}")),
    };
    let number = |key: &str| value[key].as_f64().unwrap_or(f64::NAN);
    let done = value["done"].as_u64().unwrap_or(0) as usize;
    let planned = value["planned"].as_u64().unwrap_or(0) as usize;
    let stopped = value["stopped"].as_str().map(str::to_string);
    Outcome {
        timing: Some(Timing {
            planned,
            done,
            median_ms: number("median"),
            early_median_ms: f64::NAN,
            cpu_mean_ms: f64::NAN,
            stopped: stopped.clone(),
        }),
        // JSON has no infinity: an escaped sphere reads as null.
        error: value["error"].as_f64().unwrap_or(f64::INFINITY),
        describe: value["describe"].as_str().unwrap_or("-").to_string(),
        stopped,
    }
}

/// Whether `python` imports `module`.
fn python_has(python: &Path, module: &str) -> Result<(), String> {
    let output = Command::new(python)
        .args(["-c", &format!("import numpy, {module}")])
        .output()
        .map_err(|e| format!("{} did not start: {e}", python.display()))?;
    if output.status.success() {
        Ok(())
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(stderr.lines().last().unwrap_or("import failed").to_string())
    }
}

/// Runs every curve's points on `scenes`, `rounds` times, engines interleaved point by
/// point (the k-th point of every curve, then the k+1-th), the curves' order rotated each
/// round. Curves of a Python engine that `python` cannot import are left out and named in
/// the returned notes.
pub fn run(
    scenes: &[SceneId],
    rounds: usize,
    python: &Path,
    wanted: &dyn Fn(&str) -> bool,
) -> (Vec<(SceneId, Vec<Point>)>, Vec<String>) {
    let mut notes = Vec::new();
    let mut available = Vec::new();
    for curve in curves().into_iter().filter(|c| wanted(c.name)) {
        let engine = curve.points.iter().find_map(|(_, r)| match r {
            Runner::Python { engine, .. } => Some(*engine),
            _ => None,
        });
        if let Some(engine) = engine {
            if let Err(why) = python_has(python, engine) {
                notes.push(format!(
                    "{}: not run, `{}` cannot import {engine}: {why}",
                    curve.name,
                    python.display()
                ));
                continue;
            }
        }
        available.push(curve);
    }
    let mut out = Vec::new();
    for &scene in scenes {
        // (curve, point) -> the rounds' outcomes.
        let mut outcomes: Vec<Vec<Vec<Outcome>>> = available
            .iter()
            .map(|c| c.points.iter().map(|_| Vec::new()).collect())
            .collect();
        let longest = available.iter().map(|c| c.points.len()).max().unwrap_or(0);
        for round in 0..rounds {
            #[allow(clippy::needless_range_loop)] // k indexes every curve's points at once
            for k in 0..longest {
                for i in 0..available.len() {
                    let c = (i + round) % available.len();
                    let Some((knob, runner)) = available[c].points.get(k) else {
                        continue;
                    };
                    // A point that did not finish in the first round is not repeated.
                    if round > 0 && outcomes[c][k].first().is_some_and(|o| o.stopped.is_some()) {
                        continue;
                    }
                    let outcome = run_point(scene, runner, python);
                    eprintln!(
                        "  round {}/{rounds} {} {} {knob}: {} ms/step, {}{}",
                        round + 1,
                        scene.label(),
                        available[c].name,
                        outcome
                            .timing
                            .as_ref()
                            .map_or("-".into(), |t| format!("{:.4}", t.median_ms)),
                        outcome.describe,
                        outcome
                            .stopped
                            .as_ref()
                            .map_or(String::new(), |s| format!(" ({s})"))
                    );
                    outcomes[c][k].push(outcome);
                }
            }
        }
        let mut points = Vec::new();
        for (c, curve) in available.iter().enumerate() {
            for (k, (knob, _)) in curve.points.iter().enumerate() {
                let runs = &outcomes[c][k];
                let Some(first) = runs.first() else { continue };
                let timings: Vec<Timing> = runs.iter().filter_map(|o| o.timing.clone()).collect();
                let (ms, range, done, planned) = if timings.is_empty() {
                    (f64::NAN, (f64::NAN, f64::NAN), 0, scene.steps())
                } else {
                    let t = measure::combine(&timings);
                    (t.median_ms, measure::spread(&timings), t.done, t.planned)
                };
                points.push(Point {
                    curve: curve.name,
                    ours: curve.ours,
                    knob: knob.clone(),
                    ms,
                    range,
                    error: first.error,
                    describe: first.describe.clone(),
                    done,
                    planned,
                    stopped: first.stopped.clone(),
                    collapsed: collapsed(scene, first.error),
                });
            }
        }
        out.push((scene, points));
    }
    (out, notes)
}

/// Our fastest complete point whose error is at most `error` (with a relative slack of
/// 1e-9 for equal figures), if any.
pub fn fastest_ours_within(points: &[Point], error: f64) -> Option<&Point> {
    points
        .iter()
        .filter(|p| p.ours && p.complete() && p.error <= error * (1.0 + 1e-9))
        .min_by(|a, b| a.ms.total_cmp(&b.ms))
}

/// How a peer point compares: our time over theirs at the same or a smaller error.
pub fn ratio_against<'a>(points: &'a [Point], peer: &Point) -> Option<(f64, &'a Point)> {
    fastest_ours_within(points, peer.error).map(|ours| (ours.ms / peer.ms, ours))
}

fn ms_cell(p: &Point) -> String {
    if !p.ms.is_finite() {
        return "-".into();
    }
    let (lo, hi) = p.range;
    if lo.is_finite() && hi > lo {
        format!("{} ({}-{})", ms(p.ms), ms(lo), ms(hi))
    } else {
        ms(p.ms)
    }
}

/// The markdown report of one scene: its points, then the comparison of every complete peer
/// point with our fastest point at the same or a smaller error.
pub fn markdown(scene: SceneId, points: &[Point], svg: Option<&str>) -> String {
    let mut s = format!("### {}\n\n", scene.label());
    if let Some(svg) = svg {
        s += &format!("![{} work-precision]({svg})\n\n", scene.label());
    }
    s += &format!("Error figure: {}.\n\n", error_name(scene));
    s += "| engine | setting | ms/step | error | at the end |\n| --- | --- | ---: | ---: | --- |\n";
    for p in points {
        let mut at_end = match &p.stopped {
            Some(why) => format!("{} ({} of {} steps; {why})", p.describe, p.done, p.planned),
            None => p.describe.clone(),
        };
        if p.collapsed && p.stopped.is_none() {
            at_end += " (fell apart: not a point of the curve)";
        }
        let error = if p.error.is_finite() {
            quality::metres(p.error)
        } else {
            "-".into()
        };
        s += &format!(
            "| {} | {} | {} | {error} | {at_end} |\n",
            p.curve,
            p.knob,
            ms_cell(p)
        );
    }
    s += "\nEach complete peer point (every step ran, the scene held together) against the fastest complete Stiction point whose error is at \
          most the peer's (ratio: our time over theirs; below 1, our curve lies below that point):\n\n";
    s += "| peer | setting | its ms/step | its error | fastest Stiction point at that error | ms/step | ratio |\n| --- | --- | ---: | ---: | --- | ---: | ---: |\n";
    let (mut below, mut total) = (0, 0);
    for p in points.iter().filter(|p| !p.ours && p.complete()) {
        total += 1;
        let (who, ours_ms, ratio) = match ratio_against(points, p) {
            Some((r, o)) => {
                if r < 1.0 {
                    below += 1;
                }
                let ratio = if r < 1.0 {
                    format!("{r:.2}")
                } else {
                    format!("**{r:.2}**")
                };
                (format!("{}, {}", o.curve, o.knob), ms(o.ms), ratio)
            }
            None => ("none reaches it".into(), "-".into(), "**-**".into()),
        };
        s += &format!(
            "| {} | {} | {} | {} | {who} | {ours_ms} | {ratio} |\n",
            p.curve,
            p.knob,
            ms(p.ms),
            quality::metres(p.error)
        );
    }
    s += &format!("\nBelow the peer at {below} of {total} complete peer points.");
    if let Some(rapier) = points
        .iter()
        .find(|p| p.curve == "Rapier" && p.knob.ends_with("(default)") && p.complete())
    {
        if let Some((r, _)) = ratio_against(points, rapier) {
            let met = if r <= 0.8 { "met" } else { "**not met**" };
            s += &format!(
                " At Rapier's default accuracy ({}): {r:.2} of its time (goal 0.8: {met}).",
                quality::metres(rapier.error)
            );
        }
    }
    s + "\n"
}

fn error_name(scene: SceneId) -> &'static str {
    match scene {
        SceneId::S1 => "the top box's displacement after 600 steps",
        SceneId::S2 => {
            "the deepest penetration after 600 steps (a sphere out of the container: no figure)"
        }
        SceneId::S4 => {
            "the top box's displacement after 3000 steps (horizontal drift and sink together)"
        }
        _ => "-",
    }
}

/// Draws `points` as log-log curves (error across, ms/step up) into `path`.
pub fn draw(scene: SceneId, points: &[Point], path: &Path) -> Result<(), String> {
    let shown: Vec<&Point> = points
        .iter()
        .filter(|p| p.complete() && p.ms > 0.0)
        .collect();
    if shown.is_empty() {
        return Err("no complete points".into());
    }
    // Errors of exactly zero cannot sit on a log axis: they are drawn at the floor.
    let floor = 1e-9;
    let error = |p: &Point| p.error.max(floor);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in &shown {
        x0 = x0.min(error(p));
        x1 = x1.max(error(p));
        y0 = y0.min(p.ms);
        y1 = y1.max(p.ms);
    }
    let (x0, x1, y0, y1) = (x0 / 2.0, x1 * 2.0, y0 / 1.5, y1 * 1.5);
    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    let e = |err: DrawingAreaErrorKind<_>| err.to_string();
    root.fill(&WHITE).map_err(e)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{}: time per step against error", scene.label()),
            ("sans-serif", 22),
        )
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(65)
        .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(format!("error: {} (m)", short_error_name(scene)))
        .y_desc("ms per step (median)")
        .x_label_formatter(&|v| format!("{v:.0e}"))
        .y_label_formatter(&|v| format!("{v:.2}"))
        .draw()
        .map_err(e)?;
    let mut names: Vec<&str> = Vec::new();
    for p in &shown {
        if !names.contains(&p.curve) {
            names.push(p.curve);
        }
    }
    for (i, name) in names.iter().enumerate() {
        let colour = Palette99::pick(i).to_rgba();
        let series: Vec<(f64, f64)> = shown
            .iter()
            .filter(|p| p.curve == *name)
            .map(|p| (error(p), p.ms))
            .collect();
        let width = if name.starts_with("Stiction") { 3 } else { 1 };
        chart
            .draw_series(LineSeries::new(series.clone(), colour.stroke_width(width)))
            .map_err(e)?
            .label(*name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(width))
            });
        chart
            .draw_series(
                series
                    .iter()
                    .map(|&(x, y)| Circle::new((x, y), 4, colour.filled())),
            )
            .map_err(e)?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)
}

fn short_error_name(scene: SceneId) -> &'static str {
    match scene {
        SceneId::S1 => "top box displacement",
        SceneId::S2 => "deepest penetration",
        SceneId::S4 => "top box displacement",
        _ => "-",
    }
}

/// The SVG file of `scene` in `dir`.
pub fn svg_path(dir: &Path, scene: SceneId) -> PathBuf {
    dir.join(format!(
        "pareto-{}.svg",
        format!("{scene:?}").to_lowercase()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(curve: &'static str, ours: bool, ms: f64, error: f64) -> Point {
        Point {
            curve,
            ours,
            knob: String::new(),
            ms,
            range: (ms, ms),
            error,
            describe: String::new(),
            done: 10,
            planned: 10,
            stopped: None,
            collapsed: false,
        }
    }

    #[test]
    fn a_peer_point_is_met_by_our_fastest_point_at_no_larger_error() {
        let points = vec![
            point("Stiction iterative", true, 1.0, 0.010),
            point("Stiction iterative", true, 2.0, 0.002),
            point("Stiction exact", true, 5.0, 0.001),
            point("Rapier", false, 0.5, 0.030),
            point("Rapier", false, 1.5, 0.005),
            point("MuJoCo", false, 9.0, 0.0005),
        ];
        // At 30 mm the 1 ms point (10 mm) is the fastest that is as accurate.
        let (r, o) = ratio_against(&points, &points[3]).unwrap();
        assert_eq!((r, o.ms), (2.0, 1.0));
        // At 5 mm the 10 mm point no longer counts.
        let (r, o) = ratio_against(&points, &points[4]).unwrap();
        assert_eq!(o.ms, 2.0);
        assert!((r - 2.0 / 1.5).abs() < 1e-12);
        // Nothing of ours reaches 0.5 mm.
        assert!(ratio_against(&points, &points[5]).is_none());
        // A run that stopped early is not a point of the curve.
        let mut partial = points.clone();
        partial[0].done = 5;
        assert_eq!(ratio_against(&partial, &partial[3]).unwrap().1.ms, 2.0);
        let report = markdown(SceneId::S1, &points, None);
        assert!(report.contains("Below the peer at 0 of 3 complete peer points"));
        // A stack that fell is no accuracy level.
        assert!(collapsed(SceneId::S4, 19.0) && !collapsed(SceneId::S4, 0.9));
        assert!(collapsed(SceneId::S1, f64::NAN) && collapsed(SceneId::S2, f64::INFINITY));
        assert!(!collapsed(SceneId::S2, 0.3));
    }
}
