//! `stiction view`: a run directory in the browser's 3-D viewer (`stiction-viewer`,
//! docs/viewer.md), served on loopback or written as one self-contained HTML file; or a
//! scene stepped live in the page (`--live`).
//!
//! The world is rebuilt from the run directory's scene.json exactly as `stiction run` built
//! it (shapes, names), described by [`ViewerScene::from_world_named`], and its frames are
//! filled from the recorded CSV files: poses and velocities from trajectory.csv, contacts
//! from contact_forces.csv, plots from stats.csv (and the contact count).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;
use stiction::Solver;
use stiction_viewer::{Frame, ServeHandle, ServeOptions, ViewerContact, ViewerScene, WorldSource};

use crate::error::CliError;
use crate::model::ModelArgs;
use crate::output::OutputArgs;
use crate::render::csv::Table;
use crate::run::{self, record, Overrides, SolverChoice};
use crate::scene::schema::SolverKind;
use crate::scene::{self, parse, BuiltScene};

/// Arguments of `stiction view`.
#[derive(Debug, Args)]
#[command(after_help = VIEW_AFTER)]
pub struct ViewArgs {
    /// A run directory written by `stiction run`. With --live: a scene file (.toml, .json),
    /// a built-in scene's name, a robot model (.urdf, .xml) or a run directory (its
    /// scene.json).
    pub input: PathBuf,
    /// Write the viewer as one self-contained HTML file (data and page inline, opens from
    /// disk without a server) and exit, instead of serving it.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["live", "addr"])]
    pub html: Option<PathBuf>,
    /// Open the page (or the --html file) in the system's browser (xdg-open).
    #[arg(long)]
    pub open: bool,
    /// The loopback address to serve on [default: 127.0.0.1:0, a free port].
    #[arg(long, value_name = "127.0.0.1:PORT")]
    pub addr: Option<SocketAddr>,
    /// Step the scene live in the page instead of showing a recorded run: play, pause,
    /// step, reset, and shift-drag to pull a body.
    #[arg(long)]
    pub live: bool,
    /// With --live: the stepper, exact (Dantzig pivoting) or iterative (projected
    /// Gauss-Seidel) [default: the scene's].
    #[arg(long, value_enum, requires = "live")]
    pub solver: Option<SolverChoice>,
    /// With --live: the step size h, s [default: the scene's].
    #[arg(long, value_name = "S", value_parser = run::parse_step, requires = "live")]
    pub step: Option<f64>,
    /// With --live: gravity, m/s^2: --gravity 0,0,-1.62 [default: the scene's].
    #[arg(long, value_name = "X,Y,Z", value_parser = run::parse_gravity,
          allow_hyphen_values = true, requires = "live")]
    pub gravity: Option<[f64; 3]>,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

const VIEW_AFTER: &str = "\
A run directory: the world is rebuilt from DIR/scene.json as `stiction run` built it, and \
every recorded step of DIR/trajectory.csv is a frame (positions, orientations, \
velocities); contacts and their forces come from DIR/contact_forces.csv and plots from \
DIR/stats.csv (energy, momentum, penetration, joint error, residual, pivots, sweeps) where \
the run recorded them.

By default the page is served on a loopback address, printed as `stiction viewer: URL \
(Ctrl-C to stop)`, until Ctrl-C. --html FILE writes one self-contained file instead and \
exits. --open opens a browser. --live steps the scene in the page (scene files, built-in \
scene names and robot models as `stiction run` takes them, with the robot model options).

Exit status: 0 done (or ended by Ctrl-C); 1 the HTML file could not be written or the \
server could not start; 2 bad input (not a run directory, a missing or malformed CSV file, \
a trajectory that does not match scene.json, a bad scene).";

/// What `view` made, printed with `--json` (one line) or as text.
#[derive(Debug, Clone, Serialize)]
pub struct ViewSummary {
    /// The run directory or scene shown.
    pub input: PathBuf,
    /// The scene's name (the page's title).
    pub scene: String,
    /// `html`, `serve` or `live`.
    pub mode: &'static str,
    /// Bodies.
    pub bodies: usize,
    /// Recorded frames (0 for a live view).
    pub frames: usize,
    /// Plot series, by name (a live view: the standard ones, filled as it runs).
    pub plots: Vec<String>,
    /// The HTML file written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub html: Option<PathBuf>,
    /// Its size, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub html_bytes: Option<u64>,
    /// The page's address, while served.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// The stats.csv columns plotted, under their own names (absent columns: no plot).
pub const PLOT_COLUMNS: &[&str] = &[
    "kinetic_energy",
    "potential_energy",
    "energy",
    "momentum_x",
    "momentum_y",
    "momentum_z",
    "angular_momentum_x",
    "angular_momentum_y",
    "angular_momentum_z",
    "max_penetration",
    "max_joint_error",
    "residual",
    "pivots",
    "sweeps",
];

/// The plot of the number of contacts per frame (from contact_forces.csv).
pub const CONTACTS_PLOT: &str = "contacts";

/// `stiction view`.
pub fn view(args: ViewArgs) -> Result<ExitCode, CliError> {
    if let Some(addr) = args.addr {
        if !addr.ip().is_loopback() {
            return Err(CliError::Usage {
                option: "--addr",
                rule: format!("the viewer serves on loopback addresses only (127.0.0.1:PORT or [::1]:PORT), not {addr}"),
            });
        }
    }
    if args.live {
        return live(&args);
    }
    if let Some(option) = args.model.given() {
        return Err(CliError::Usage {
            option,
            rule: "applies to robot models viewed with --live only".into(),
        });
    }
    let scene = recorded_scene(&args.input)?;
    let mut summary = ViewSummary {
        input: args.input.clone(),
        scene: scene.title.clone(),
        mode: "serve",
        bodies: scene.bodies.len(),
        frames: scene.frames.len(),
        plots: scene.plots.keys().cloned().collect(),
        html: None,
        html_bytes: None,
        url: None,
    };
    if let Some(file) = &args.html {
        stiction_viewer::write_html(&scene, file).map_err(|e| CliError::write(file, e))?;
        summary.mode = "html";
        summary.html = Some(file.clone());
        summary.html_bytes = std::fs::metadata(file).ok().map(|m| m.len());
        args.output
            .print_summary(&summary, &summary_lines(&summary));
        if args.open {
            open_file(file, args.output.quiet);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let handle = start_server(&args, &mut summary, |options| {
        stiction_viewer::serve(&scene, options)
    })?;
    handle.wait();
    Ok(ExitCode::SUCCESS)
}

/// `stiction view SCENE --live`.
fn live(args: &ViewArgs) -> Result<ExitCode, CliError> {
    // A run directory stands for its scene.json.
    let run_scene = args.input.join(record::SCENE_FILE);
    let input = if args.input.is_dir() && run_scene.is_file() {
        run_scene
    } else {
        args.input.clone()
    };
    let overrides = Overrides {
        solver: args.solver,
        step: args.step,
        gravity: args.gravity,
        ..Overrides::default()
    };
    let (file, built) = run::prepare_input(&input, &args.model, &overrides, &args.output)?;
    let scene = describe(&built);
    // The page's solver switch gets the scene's settings (sweeps, impacts) for either kind.
    let solver_of = |kind| {
        let mut file = file.clone();
        file.world.solver.kind = kind;
        scene::build::world_settings(&file).solver
    };
    let (exact, iterative) = match &built.world.settings().solver {
        own @ Solver::Exact(_) => (own.clone(), solver_of(SolverKind::Iterative)),
        own @ Solver::Iterative(_) => (solver_of(SolverKind::Exact), own.clone()),
    };
    let mut summary = ViewSummary {
        input: args.input.clone(),
        scene: scene.title.clone(),
        mode: "live",
        bodies: scene.bodies.len(),
        frames: 0,
        plots: stiction_viewer::standard_plots(&built.world)
            .into_iter()
            .map(|(name, _)| name.to_string())
            .collect(),
        html: None,
        html_bytes: None,
        url: None,
    };
    let source = WorldSource::new(built.world, built.h)
        .with_scene(scene)
        .solvers(exact, iterative);
    let handle = start_server(args, &mut summary, |options| {
        stiction_viewer::serve_live(source, options)
    })?;
    handle.wait();
    Ok(ExitCode::SUCCESS)
}

/// Starts a server with `serve` on `--addr` (the viewer prints the address in text mode;
/// `--json` prints the summary with it), opening a browser if asked.
fn start_server(
    args: &ViewArgs,
    summary: &mut ViewSummary,
    serve: impl FnOnce(ServeOptions) -> std::io::Result<ServeHandle>,
) -> Result<ServeHandle, CliError> {
    let mut options = ServeOptions {
        open_browser: args.open,
        quiet: args.output.quiet || args.output.json,
        ..ServeOptions::default()
    };
    if let Some(addr) = args.addr {
        options.addr = addr;
    }
    let addr = options.addr;
    if !options.quiet {
        for line in summary_lines(summary) {
            println!("{line}");
        }
    }
    let handle = serve(options).map_err(|e| match args.addr {
        Some(_) => CliError::Usage {
            option: "--addr",
            rule: format!("cannot serve on {addr}: {e}"),
        },
        None => CliError::Failed(format!("cannot serve on {addr}: {e}")),
    })?;
    summary.url = Some(handle.url());
    if args.output.json {
        args.output.print_summary(&*summary, &[]);
    }
    Ok(handle)
}

/// Text lines describing a view.
pub fn summary_lines(s: &ViewSummary) -> Vec<String> {
    let what = match s.mode {
        "live" => format!("{}: {} bodies, stepped live", s.scene, s.bodies),
        _ => format!(
            "{}: {} frames of {} bodies from {}",
            s.scene,
            s.frames,
            s.bodies,
            s.input.display()
        ),
    };
    let mut lines = vec![what];
    if let Some(html) = &s.html {
        let size = s
            .html_bytes
            .map_or(String::new(), |b| format!(" ({:.2} MB)", b as f64 / 1e6));
        lines.push(format!("  wrote {}{size}", html.display()));
    }
    lines
}

/// Opens a file in the system's browser; a failure is one line on stderr.
fn open_file(file: &Path, quiet: bool) {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else {
        std::process::Command::new("xdg-open")
    };
    command
        .arg(file)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if command.spawn().is_err() && !quiet {
        eprintln!(
            "stiction viewer: could not open a browser; open {} yourself",
            file.display()
        );
    }
}

fn run_dir_error(path: &Path, reason: impl Into<String>) -> CliError {
    CliError::RunDir {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// The static part of a built scene: its world's bodies, shapes and joints under the
/// scene's names, titled by the scene's name.
pub fn describe(built: &BuiltScene) -> ViewerScene {
    let mut scene = ViewerScene::from_world_named(
        &built.world,
        |handle, i| {
            built
                .bodies
                .iter()
                .find(|b| b.handle == handle)
                .map_or_else(|| format!("body{i}"), |b| b.name.clone())
        },
        |handle, i| {
            built
                .joints
                .iter()
                .find(|j| j.handle == handle)
                .map_or_else(|| format!("joint{i}"), |j| j.name.clone())
        },
    );
    scene.title = built.name.clone();
    scene
}

/// The viewer scene of the run directory `dir`: its world rebuilt from scene.json, a frame
/// per recorded step of trajectory.csv, contacts from contact_forces.csv and plots from
/// stats.csv (those the scene's `[record]` asked for; a file it asked for must be there).
pub fn recorded_scene(dir: &Path) -> Result<ViewerScene, CliError> {
    let scene_path = dir.join(record::SCENE_FILE);
    if !scene_path.is_file() {
        let builtin = dir.to_str().and_then(scene::builtin::find).is_some();
        let hint = if dir.is_dir() {
            "not a run directory (no scene.json): write one with `stiction run SCENE --out DIR`, or view a scene with --live"
        } else if dir.exists() {
            "not a run directory: write one with `stiction run SCENE --out DIR`, or view a scene file with --live"
        } else if builtin {
            "no such run directory (a built-in scene of that name exists: view it with --live, or run it first with `stiction run`)"
        } else {
            "no such run directory"
        };
        return Err(run_dir_error(dir, hint));
    }
    let text = std::fs::read_to_string(&scene_path).map_err(|source| CliError::Read {
        path: scene_path.clone(),
        source,
    })?;
    let file = parse::parse_scene(&text, parse::Format::Json, &scene_path)?;
    let built = scene::check_and_build(&file, &scene_path)?;
    let mut scene = describe(&built);

    // Viewer index of each body name (the viewer lists bodies in the world's slot order).
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, (handle, _)) in built.world.bodies().enumerate() {
        if let Some(b) = built.bodies.iter().find(|b| b.handle == handle) {
            index.insert(b.name.as_str(), i);
        }
    }
    let names: Vec<&str> = scene.bodies.iter().map(|b| b.name.as_str()).collect();

    let trajectory_path = dir.join(record::TRAJECTORY_FILE);
    if !trajectory_path.is_file() {
        let why = if built.record.trajectory {
            "missing"
        } else {
            "missing: the run recorded no trajectory ([record] trajectory = false), so there is nothing to show"
        };
        return Err(run_dir_error(&trajectory_path, why));
    }
    scene.frames = read_frames(&trajectory_path, &index, &names)?;
    let steps: Vec<u64> = scene.frames.iter().map(|f| f.step).collect();

    let contacts_path = dir.join(record::CONTACT_FORCES_FILE);
    if let Some(table) = optional_table(&contacts_path, built.record.contact_forces)? {
        let mut by_step = read_contacts(&contacts_path, &table, &index)?;
        let mut counts = Vec::with_capacity(steps.len());
        for frame in &mut scene.frames {
            frame.contacts = by_step.remove(&frame.step).unwrap_or_default();
            counts.push(frame.contacts.len() as f64);
        }
        scene.plots.insert(CONTACTS_PLOT.to_string(), counts);
    }

    let stats_path = dir.join(record::STATS_FILE);
    if let Some(table) = optional_table(&stats_path, built.record.stats)? {
        let row_of = step_rows(&stats_path, &table)?;
        for &column in PLOT_COLUMNS {
            if !table.has(column) {
                continue;
            }
            let values = table
                .column(column)
                .map_err(|e| run_dir_error(&stats_path, e))?;
            let series = steps
                .iter()
                .map(|step| row_of.get(step).map_or(f64::NAN, |&row| values[row]))
                .collect();
            scene.plots.insert(column.to_string(), series);
        }
    }
    scene
        .validate()
        .map_err(|e| run_dir_error(dir, e.to_string()))?;
    Ok(scene)
}

/// A CSV file the run may have written: read if it is there; an error if `expected` (the
/// scene's `[record]` asked for it) and it is not.
fn optional_table(path: &Path, expected: bool) -> Result<Option<Table>, CliError> {
    if !path.is_file() {
        return if expected {
            Err(run_dir_error(
                path,
                "missing (the scene's [record] asked for it)",
            ))
        } else {
            Ok(None)
        };
    }
    Table::read(path)
        .map(Some)
        .map_err(|e| run_dir_error(path, e))
}

/// Reads the `step` column as whole numbers.
fn step_column(path: &Path, table: &Table) -> Result<Vec<u64>, CliError> {
    let text = table.text("step").map_err(|e| run_dir_error(path, e))?;
    text.iter()
        .enumerate()
        .map(|(row, s)| {
            s.trim().parse::<u64>().map_err(|_| {
                run_dir_error(
                    path,
                    format!("line {}: `step` is not a whole number: {s}", row + 2),
                )
            })
        })
        .collect()
}

/// The row of each step of a file with one row per step (the first, if repeated).
fn step_rows(path: &Path, table: &Table) -> Result<HashMap<u64, usize>, CliError> {
    let steps = step_column(path, table)?;
    let mut rows = HashMap::with_capacity(steps.len());
    for (row, step) in steps.into_iter().enumerate() {
        rows.entry(step).or_insert(row);
    }
    Ok(rows)
}

/// Numeric columns, each value finite.
fn finite_columns(path: &Path, table: &Table, names: &[&str]) -> Result<Vec<Vec<f64>>, CliError> {
    names
        .iter()
        .map(|&name| {
            let values = table.column(name).map_err(|e| run_dir_error(path, e))?;
            if let Some(row) = values.iter().position(|v| !v.is_finite()) {
                return Err(run_dir_error(
                    path,
                    format!("line {}: `{name}` is not finite: {}", row + 2, values[row]),
                ));
            }
            Ok(values)
        })
        .collect()
}

/// One frame per recorded step of trajectory.csv, bodies in viewer order, each body once
/// per step.
fn read_frames(
    path: &Path,
    index: &HashMap<&str, usize>,
    names: &[&str],
) -> Result<Vec<Frame>, CliError> {
    let err = |reason: String| run_dir_error(path, reason);
    let table = Table::read(path).map_err(|e| run_dir_error(path, e))?;
    let steps = step_column(path, &table)?;
    let bodies = table.text("body").map_err(|e| run_dir_error(path, e))?;
    let time = finite_columns(path, &table, &["time"])?.remove(0);
    let pose = finite_columns(path, &table, &["x", "y", "z", "qw", "qx", "qy", "qz"])?;
    const VELOCITY: [&str; 6] = ["vx", "vy", "vz", "wx", "wy", "wz"];
    let velocity = if VELOCITY.iter().all(|c| table.has(c)) {
        Some(finite_columns(path, &table, &VELOCITY)?)
    } else {
        None
    };
    // Runs recorded before these columns existed have neither: no sleep, no islands.
    let states = if table.has("asleep") && table.has("island") {
        let asleep = table.text("asleep").map_err(|e| run_dir_error(path, e))?;
        let island = table.text("island").map_err(|e| run_dir_error(path, e))?;
        Some((asleep, island))
    } else {
        None
    };
    let n = names.len();
    let mut frames: Vec<Frame> = Vec::new();
    let mut seen: Vec<bool> = Vec::new();
    // Checks that the step just finished gave every body.
    let complete = |frame: &Frame, seen: &[bool]| -> Result<(), CliError> {
        let count = seen.iter().filter(|&&s| s).count();
        if count == n {
            return Ok(());
        }
        let missing: Vec<&str> = seen
            .iter()
            .zip(names)
            .filter(|(s, _)| !**s)
            .map(|(_, name)| *name)
            .take(3)
            .collect();
        Err(err(format!(
            "step {} has rows for {count} of the {n} bodies of scene.json (missing {}{}): the trajectory does not match the scene",
            frame.step,
            missing.join(", "),
            if n - count > missing.len() { ", ..." } else { "" }
        )))
    };
    for row in 0..table.len() {
        let line = row + 2;
        let step = steps[row];
        let new_step = frames.last().is_none_or(|f| f.step != step);
        if new_step {
            if let Some(last) = frames.last() {
                complete(last, &seen)?;
                if step < last.step {
                    return Err(err(format!(
                        "line {line}: step {step} after step {}: the rows are out of order",
                        last.step
                    )));
                }
            }
            frames.push(Frame {
                step,
                time: time[row],
                positions: vec![[0.0; 3]; n],
                orientations: vec![[1.0, 0.0, 0.0, 0.0]; n],
                velocities: velocity.as_ref().map(|_| vec![[0.0; 3]; n]),
                angular_velocities: velocity.as_ref().map(|_| vec![[0.0; 3]; n]),
                sleeping: if states.is_some() {
                    vec![false; n]
                } else {
                    Vec::new()
                },
                islands: if states.is_some() {
                    vec![None; n]
                } else {
                    Vec::new()
                },
                contacts: Vec::new(),
            });
            seen = vec![false; n];
        }
        let Some(&body) = index.get(bodies[row]) else {
            return Err(err(format!(
                "line {line}: body `{}` is not in scene.json: the trajectory does not match the scene",
                bodies[row]
            )));
        };
        if std::mem::replace(&mut seen[body], true) {
            return Err(err(format!(
                "line {line}: body `{}` appears twice at step {step}",
                bodies[row]
            )));
        }
        let frame = frames.last_mut().expect("a frame was pushed for this step");
        if let Some((asleep, island)) = &states {
            frame.sleeping[body] = match asleep[row] {
                "0" => false,
                "1" => true,
                other => return Err(err(format!("line {line}: asleep is `{other}`, not 0 or 1"))),
            };
            frame.islands[body] = match island[row] {
                "" => None,
                text => Some(text.parse::<u32>().map_err(|_| {
                    err(format!(
                        "line {line}: island is `{text}`, not a whole number or empty"
                    ))
                })?),
            };
        }
        let c = |k: usize| pose[k][row];
        frame.positions[body] = [c(0), c(1), c(2)];
        frame.orientations[body] = [c(3), c(4), c(5), c(6)];
        if let Some(v) = &velocity {
            let v = |k: usize| v[k][row];
            if let Some(out) = frame.velocities.as_mut() {
                out[body] = [v(0), v(1), v(2)];
            }
            if let Some(out) = frame.angular_velocities.as_mut() {
                out[body] = [v(3), v(4), v(5)];
            }
        }
    }
    match frames.last() {
        None => Err(err("no recorded steps".to_string())),
        Some(last) => {
            complete(last, &seen)?;
            Ok(frames)
        }
    }
}

/// The contacts of contact_forces.csv by step.
fn read_contacts(
    path: &Path,
    table: &Table,
    index: &HashMap<&str, usize>,
) -> Result<HashMap<u64, Vec<ViewerContact>>, CliError> {
    let steps = step_column(path, table)?;
    let body_a = table.text("body_a").map_err(|e| run_dir_error(path, e))?;
    let body_b = table.text("body_b").map_err(|e| run_dir_error(path, e))?;
    let cols = finite_columns(
        path,
        table,
        &[
            "x",
            "y",
            "z",
            "normal_x",
            "normal_y",
            "normal_z",
            "separation",
            "force_x",
            "force_y",
            "force_z",
        ],
    )?;
    let body = |name: &str, row: usize| -> Result<Option<usize>, CliError> {
        if name == "world" {
            return Ok(None);
        }
        index.get(name).copied().map(Some).ok_or_else(|| {
            run_dir_error(
                path,
                format!("line {}: body `{name}` is not in scene.json", row + 2),
            )
        })
    };
    let mut out: HashMap<u64, Vec<ViewerContact>> = HashMap::new();
    for row in 0..table.len() {
        let c = |k: usize| cols[k][row];
        out.entry(steps[row]).or_default().push(ViewerContact {
            point: [c(0), c(1), c(2)],
            normal: [c(3), c(4), c(5)],
            separation: c(6),
            force: [c(7), c(8), c(9)],
            bodies: [body(body_a[row], row)?, body(body_b[row], row)?],
        });
    }
    Ok(out)
}
