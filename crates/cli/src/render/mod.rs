//! `stiction render`: pictures of a run. An animated GIF and PNG stills of the bodies from a
//! camera (fitted to the motion unless given), drawn by the small z-buffer rasteriser of
//! [`raster`], and SVG plots of the run's statistics ([`plots`]).

pub mod csv;
pub mod encode;
pub mod mesh;
pub mod plots;
pub mod raster;

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use serde::Serialize;
use stiction::math::{Quat, Vec3};
use stiction::BodyKind;

use crate::error::CliError;
use crate::model::{self, ModelArgs};
use crate::output::OutputArgs;
use crate::run::{self, record, Overrides};
use crate::scene::{self, parse, BuiltScene, Geometry};
use csv::Table;
use mesh::Mesh;
use raster::{Camera, Framebuffer};

/// The animation's file name in the output directory.
pub const GIF_FILE: &str = "animation.gif";
/// The stills' file names: first, middle and last frame.
pub const STILL_FILES: [&str; 3] = ["first.png", "middle.png", "last.png"];

/// Arguments of `stiction render`.
#[derive(Debug, Args)]
#[command(after_help = RENDER_AFTER)]
pub struct RenderArgs {
    /// A run directory written by `stiction run`, or a scene file (.toml or .json) or robot
    /// model (.urdf, .xml), which is run first (into --out, default out/<scene name>).
    pub input: PathBuf,
    /// Where the images go. Default: the run directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub view: ViewArgs,
    #[command(flatten)]
    pub overrides: Overrides,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

const RENDER_AFTER: &str = "\
Writes animation.gif, first.png, middle.png and last.png, and (from stats.csv) energy.svg, \
momentum.svg, penetration.svg and residual.svg. Camera, size and frame count come from the \
options, else from the scene's [render] table, else the camera is fitted to the motion.

Exit status: 0 done; 1 a step of the run failed or a file could not be written; 2 bad input.";

/// Camera and image options (each overrides the scene's `[render]` table).
#[derive(Debug, Args, Clone, Default)]
pub struct ViewArgs {
    /// Image width in pixels [default: 480].
    #[arg(long, value_name = "PX")]
    pub width: Option<u32>,
    /// Image height in pixels [default: 360].
    #[arg(long, value_name = "PX")]
    pub height: Option<u32>,
    /// Number of animation frames [default: 20 per simulated second, at most 120].
    #[arg(long, value_name = "N")]
    pub frames: Option<u32>,
    /// Camera position "x,y,z" in m [default: fitted to the motion].
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_vector, allow_hyphen_values = true)]
    pub eye: Option<Vec3>,
    /// Point the camera looks at, "x,y,z" in m [default: the centre of the motion].
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_vector, allow_hyphen_values = true)]
    pub target: Option<Vec3>,
    /// Vertical field of view in degrees [default: 40].
    #[arg(long, value_name = "DEG")]
    pub fov: Option<f64>,
}

fn parse_vector(text: &str) -> Result<Vec3, String> {
    let parts: Vec<f64> = text
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("expected x,y,z: {e}"))?;
    match parts[..] {
        [x, y, z] if parts.iter().all(|v| v.is_finite()) => Ok(Vec3::new(x, y, z)),
        _ => Err("expected three finite numbers x,y,z".to_string()),
    }
}

/// What `render` wrote.
#[derive(Debug, Clone, Serialize)]
pub struct RenderSummary {
    /// The run directory read.
    pub run_dir: PathBuf,
    /// The animation.
    pub gif: PathBuf,
    /// Frames in it.
    pub frames: usize,
    /// Image size.
    pub width: usize,
    /// Image height.
    pub height: usize,
    /// PNG stills.
    pub stills: Vec<PathBuf>,
    /// SVG plots (none without stats.csv).
    pub plots: Vec<PathBuf>,
    /// The camera used.
    pub eye: [f64; 3],
    /// Its target.
    pub target: [f64; 3],
    /// Wall time, s.
    pub wall_seconds: f64,
}

/// `stiction render`.
pub fn render(args: RenderArgs) -> Result<std::process::ExitCode, CliError> {
    // Checked before a scene is run, so bad options write nothing.
    validate_view(&args.view)?;
    let source = parse::Source::of(&args.input);
    let is_model = model::is_model(&args.input);
    let is_scene = is_model
        || matches!(source, parse::Source::Builtin { .. })
        || parse::Format::of(&args.input).is_some();
    let (run_dir, run, loaded) = if is_scene {
        let (file, built) =
            run::prepare_input(&args.input, &args.model, &args.overrides, &args.output)?;
        // Drawn from the scene as loaded (scene.json would load its meshes and models again).
        let loaded = Some(built.clone());
        let out = args
            .out
            .clone()
            .unwrap_or_else(|| run::default_out(&built.name));
        let summary = run::execute(&file, built, &out, args.output.show_progress())?;
        (out, Some(summary), loaded)
    } else {
        args.model.check_scene()?;
        (args.input.clone(), None, None)
    };
    let out = args.out.clone().unwrap_or_else(|| run_dir.clone());
    let summary = match &loaded {
        Some(scene) => render_scene(&run_dir, scene, &out, &args.view)?,
        None => render_run_dir(&run_dir, &out, &args.view)?,
    };
    args.output
        .print_summary(&summary, &summary_lines(&summary));
    match &run {
        Some(run) => run::outcome(run, &source.label(), &args.output),
        None => Ok(std::process::ExitCode::SUCCESS),
    }
}

/// Text lines describing a render.
pub fn summary_lines(s: &RenderSummary) -> Vec<String> {
    let mut lines = vec![format!(
        "rendered {} frames of {}x{} in {:.2} s: {}",
        s.frames,
        s.width,
        s.height,
        s.wall_seconds,
        s.gif.display()
    )];
    let stills: Vec<String> = s.stills.iter().map(|p| p.display().to_string()).collect();
    lines.push(format!("  stills: {}", stills.join(", ")));
    if !s.plots.is_empty() {
        let plots: Vec<String> = s.plots.iter().map(|p| p.display().to_string()).collect();
        lines.push(format!("  plots: {}", plots.join(", ")));
    }
    lines
}

/// The recorded poses: per recorded step, its time and each body's pose (scene order).
struct Trajectory {
    times: Vec<f64>,
    poses: Vec<Vec<(Vec3, Quat)>>,
}

fn run_dir_error(path: &Path, reason: impl Into<String>) -> CliError {
    CliError::RunDir {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

fn read_trajectory(path: &Path, scene: &BuiltScene) -> Result<Trajectory, CliError> {
    let table = Table::read(path).map_err(|e| run_dir_error(path, e))?;
    let number = |name: &str| table.column(name).map_err(|e| run_dir_error(path, e));
    let steps = number("step")?;
    let time = number("time")?;
    let names = table.text("body").map_err(|e| run_dir_error(path, e))?;
    let cols: Vec<Vec<f64>> = ["x", "y", "z", "qw", "qx", "qy", "qz"]
        .iter()
        .map(|c| number(c))
        .collect::<Result<_, _>>()?;
    let index: std::collections::HashMap<&str, usize> = scene
        .bodies
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name.as_str(), i))
        .collect();
    let mut out = Trajectory {
        times: Vec::new(),
        poses: Vec::new(),
    };
    let mut current_step = f64::NAN;
    for row in 0..table.len() {
        if steps[row] != current_step {
            current_step = steps[row];
            out.times.push(time[row]);
            out.poses
                .push(vec![(Vec3::ZERO, Quat::IDENTITY); scene.bodies.len()]);
        }
        let Some(&body) = index.get(names[row]) else {
            return Err(run_dir_error(
                path,
                format!(
                    "line {}: body `{}` is not in scene.json",
                    row + 2,
                    names[row]
                ),
            ));
        };
        let c = |k: usize| cols[k][row];
        let q = Quat::from_xyzw(c(4), c(5), c(6), c(3));
        let q = if q.length() > 0.0 && q.is_finite() {
            q.normalize()
        } else {
            Quat::IDENTITY
        };
        if let Some(frame) = out.poses.last_mut() {
            frame[body] = (Vec3::new(c(0), c(1), c(2)), q);
        }
    }
    if out.times.is_empty() {
        return Err(run_dir_error(path, "no recorded steps"));
    }
    Ok(out)
}

/// Bounding radius of a shape about its own origin (0 for a plane).
fn bounding_radius(geometry: &Geometry) -> f64 {
    match geometry {
        Geometry::Box(h) => h.length(),
        &Geometry::Sphere(r) => r,
        &Geometry::Capsule(r, hh) => r + hh,
        &Geometry::Cylinder(r, hh) => (r * r + hh * hh).sqrt(),
        Geometry::Plane => 0.0,
        Geometry::Convex(mesh) | Geometry::TriMesh(mesh) => mesh.radius(),
        Geometry::Heightfield(grid) => grid.radius(),
    }
}

/// The box around everything that moves (or, if nothing does, every finite shape).
fn motion_bounds(scene: &BuiltScene, trajectory: &Trajectory) -> (Vec3, Vec3) {
    let mut lo = Vec3::splat(f64::INFINITY);
    let mut hi = Vec3::splat(f64::NEG_INFINITY);
    let any_moving = scene.bodies.iter().any(|b| b.kind != BodyKind::Static);
    for frame in &trajectory.poses {
        for (body, (position, rotation)) in scene.bodies.iter().zip(frame) {
            if any_moving && body.kind == BodyKind::Static {
                continue;
            }
            for shape in &body.shapes {
                let r = bounding_radius(&shape.geometry);
                if r == 0.0 {
                    continue;
                }
                let centre = *position + *rotation * shape.offset;
                lo = lo.min(centre - Vec3::splat(r));
                hi = hi.max(centre + Vec3::splat(r));
            }
        }
    }
    if !lo.is_finite() || !hi.is_finite() {
        return (Vec3::splat(-1.0), Vec3::splat(1.0));
    }
    (lo, hi)
}

/// The smallest distance from `target` along `toward_eye` at which every corner of `bounds`
/// is inside the view (vertical field of view `fov` degrees, width / height `aspect`), plus
/// a small margin: corner `p` (relative to the target) fits when its sideways and vertical
/// offsets are within `tan(fov / 2)` of its depth `d - p . toward_eye`.
fn fit_distance(
    bounds: (Vec3, Vec3),
    target: Vec3,
    toward_eye: Vec3,
    fov: f64,
    aspect: f64,
) -> f64 {
    let right = toward_eye.cross(Vec3::Z).try_normalize().unwrap_or(Vec3::X);
    let up = right.cross(toward_eye);
    let tan_v = (0.5 * fov.to_radians()).tan();
    let tan_h = tan_v * aspect;
    let mut distance: f64 = 0.1;
    for corner in 0..8 {
        let pick = |bit: usize, lo: f64, hi: f64| if corner & bit == 0 { lo } else { hi };
        let p = Vec3::new(
            pick(1, bounds.0.x, bounds.1.x),
            pick(2, bounds.0.y, bounds.1.y),
            pick(4, bounds.0.z, bounds.1.z),
        ) - target;
        let along = p.dot(toward_eye);
        distance = distance
            .max(p.dot(right).abs() / tan_h + along)
            .max(p.dot(up).abs() / tan_v + along);
    }
    1.08 * distance
}

/// The camera: given fields, else a view from the front-left and above that fits `bounds`.
fn fit_camera(view: &ViewArgs, scene: &BuiltScene, bounds: (Vec3, Vec3), aspect: f64) -> Camera {
    let fov = view.fov.or(scene.render.fov).unwrap_or(40.0);
    let centre = 0.5 * (bounds.0 + bounds.1);
    let target = view
        .target
        .or(scene.render.target.map(Vec3::from_array))
        .unwrap_or(centre);
    let eye = view
        .eye
        .or(scene.render.eye.map(Vec3::from_array))
        .unwrap_or_else(|| {
            let toward_eye = Vec3::new(0.35, -1.0, 0.45).normalize();
            target + toward_eye * fit_distance(bounds, target, toward_eye, fov, aspect)
        });
    Camera {
        eye,
        target,
        fov_degrees: fov,
    }
}

/// A body's base colour: its own, grey if static, else from a palette by index.
fn body_color(index: usize, kind: BodyKind, color: Option<[f64; 3]>) -> Vec3 {
    const PALETTE: [[f64; 3]; 8] = [
        [0.86, 0.37, 0.24],
        [0.25, 0.55, 0.82],
        [0.95, 0.72, 0.22],
        [0.36, 0.70, 0.40],
        [0.62, 0.42, 0.78],
        [0.22, 0.74, 0.74],
        [0.88, 0.48, 0.62],
        [0.60, 0.60, 0.30],
    ];
    if let Some(c) = color {
        return Vec3::from_array(c);
    }
    if kind == BodyKind::Static {
        return Vec3::splat(0.7);
    }
    Vec3::from_array(PALETTE[index % PALETTE.len()])
}

/// A round tile size near `length / 8`: 1, 2 or 5 times a power of ten.
fn tile_size(length: f64) -> f64 {
    let raw = (length / 8.0).max(1e-3);
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|&t| t >= raw)
        .unwrap_or(10.0 * power)
}

fn validate_view(view: &ViewArgs) -> Result<(), CliError> {
    for (option, value) in [("--width", view.width), ("--height", view.height)] {
        if let Some(v) = value {
            if !(16..=4096).contains(&v) {
                return Err(CliError::Usage {
                    option,
                    rule: format!("must lie in [16, 4096] pixels, got {v}"),
                });
            }
        }
    }
    if let Some(frames) = view.frames {
        if !(1..=10_000).contains(&frames) {
            return Err(CliError::Usage {
                option: "--frames",
                rule: format!("must lie in [1, 10000], got {frames}"),
            });
        }
    }
    if let Some(fov) = view.fov {
        if !(fov > 1.0 && fov < 170.0) {
            return Err(CliError::Usage {
                option: "--fov",
                rule: format!("must lie in (1, 170) degrees, got {fov}"),
            });
        }
    }
    Ok(())
}

/// Renders the run in `run_dir` into `out`.
pub fn render_run_dir(
    run_dir: &Path,
    out: &Path,
    view: &ViewArgs,
) -> Result<RenderSummary, CliError> {
    validate_view(view)?;
    let scene_path = run_dir.join(record::SCENE_FILE);
    if !scene_path.is_file() {
        return Err(run_dir_error(
            run_dir,
            "not a run directory (no scene.json) and not a .toml or .json scene file",
        ));
    }
    let text = std::fs::read_to_string(&scene_path).map_err(|source| CliError::Read {
        path: scene_path.clone(),
        source,
    })?;
    let file = parse::parse_scene(&text, parse::Format::Json, &scene_path)?;
    let scene = scene::check_and_build(&file, &scene_path)?;
    render_scene(run_dir, &scene, out, view)
}

/// Renders the run in `run_dir` of the built `scene` into `out`.
pub fn render_scene(
    run_dir: &Path,
    scene: &BuiltScene,
    out: &Path,
    view: &ViewArgs,
) -> Result<RenderSummary, CliError> {
    validate_view(view)?;
    let started = Instant::now();
    let trajectory = read_trajectory(&run_dir.join(record::TRAJECTORY_FILE), scene)?;

    let width = view.width.or(scene.render.width).unwrap_or(480) as usize;
    let height = view.height.or(scene.render.height).unwrap_or(360) as usize;
    let recorded = trajectory.times.len();
    let span = trajectory.times[recorded - 1] - trajectory.times[0];
    let default_frames = ((span * 20.0).ceil() as usize + 1).clamp(2, 120);
    let frames = view
        .frames
        .or(scene.render.frames)
        .map_or(default_frames, |f| f as usize)
        .min(recorded)
        .max(1);
    let picks: Vec<usize> = (0..frames)
        .map(|k| {
            if frames == 1 {
                recorded - 1
            } else {
                k * (recorded - 1) / (frames - 1)
            }
        })
        .collect();
    let bounds = motion_bounds(scene, &trajectory);
    let camera = fit_camera(view, scene, bounds, width as f64 / height as f64);

    let extent = (bounds.1 - bounds.0).length().max(1.0);
    let tile = tile_size(extent);
    let plane_half = (2.0 * extent).max(4.0 * tile);
    let meshes: Vec<Vec<Mesh>> = scene
        .bodies
        .iter()
        .map(|b| {
            b.shapes
                .iter()
                .map(|s| mesh::mesh(&s.geometry, plane_half, tile))
                .collect()
        })
        .collect();

    std::fs::create_dir_all(out).map_err(|e| CliError::write(out, e))?;
    let gif_path = out.join(GIF_FILE);
    let frame_time = if frames > 1 {
        span / (frames - 1) as f64
    } else {
        0.0
    };
    let delay_cs = (frame_time * 100.0).round().clamp(2.0, 100.0) as u16;
    let gif_file = File::create(&gif_path).map_err(|e| CliError::write(&gif_path, e))?;
    let gif_error = |e: gif::EncodingError| CliError::write(&gif_path, std::io::Error::other(e));
    let mut gif = encode::GifWriter::new(BufWriter::new(gif_file), width, height, delay_cs)
        .map_err(gif_error)?;
    let still_frames = [0, frames / 2, frames - 1];
    let mut stills = Vec::new();
    let mut fb = Framebuffer::new(width, height, &camera);
    for (k, &pick) in picks.iter().enumerate() {
        fb.clear();
        draw_frame(
            &mut fb,
            scene,
            &meshes,
            &trajectory.poses[pick],
            camera.target,
            tile,
            plane_half,
        );
        gif.frame(&fb.rgb).map_err(gif_error)?;
        for (s, _) in still_frames.iter().enumerate().filter(|(_, &f)| f == k) {
            let path = out.join(STILL_FILES[s]);
            let file = File::create(&path).map_err(|e| CliError::write(&path, e))?;
            encode::write_png(&mut BufWriter::new(file), width, height, &fb.rgb)
                .map_err(|e| CliError::write(&path, e))?;
            stills.push(path);
        }
    }
    drop(gif);

    let stats_path = run_dir.join(record::STATS_FILE);
    let plots = if stats_path.is_file() {
        let table = Table::read(&stats_path).map_err(|e| run_dir_error(&stats_path, e))?;
        plots::write_plots(&table, out).map_err(|e| run_dir_error(&stats_path, e))?
    } else {
        Vec::new()
    };
    Ok(RenderSummary {
        run_dir: run_dir.to_path_buf(),
        gif: gif_path,
        frames,
        width,
        height,
        stills,
        plots,
        eye: camera.eye.to_array(),
        target: camera.target.to_array(),
        wall_seconds: started.elapsed().as_secs_f64(),
    })
}

/// Draws every shape of every body at `poses`.
fn draw_frame(
    fb: &mut Framebuffer,
    scene: &BuiltScene,
    meshes: &[Vec<Mesh>],
    poses: &[(Vec3, Quat)],
    target: Vec3,
    tile: f64,
    plane_half: f64,
) {
    for (i, body) in scene.bodies.iter().enumerate() {
        let (position, rotation) = poses[i];
        let base = body_color(i, body.kind, body.color);
        for (shape, mesh) in body.shapes.iter().zip(&meshes[i]) {
            let shape_rotation = rotation * shape.rotation;
            let mut shape_position = position + rotation * shape.offset;
            if shape.geometry == Geometry::Plane {
                // Centre the finite ground patch under the target, snapped to whole pairs of
                // tiles so the checkerboard stays fixed in the world.
                let local = shape_rotation.inverse() * (target - shape_position);
                let snap = |v: f64| (v / (2.0 * tile)).round() * 2.0 * tile;
                shape_position += shape_rotation * Vec3::new(snap(local.x), snap(local.y), 0.0);
                let (light, dark) = (Vec3::splat(0.82), Vec3::splat(0.66));
                fb.draw(mesh, shape_position, shape_rotation, |t| {
                    if mesh::plane_tile_is_dark(t, plane_half, tile) {
                        dark
                    } else {
                        light
                    }
                });
            } else if !shape.sensor {
                fb.draw(mesh, shape_position, shape_rotation, |_| base);
            }
        }
    }
    // Sensor regions last, see-through, so that what they contain stays visible.
    for (i, body) in scene.bodies.iter().enumerate() {
        let (position, rotation) = poses[i];
        for (shape, mesh) in body.shapes.iter().zip(&meshes[i]) {
            if shape.sensor && shape.geometry != Geometry::Plane {
                let base = body_color(i, body.kind, body.color);
                fb.draw_translucent(
                    mesh,
                    position + rotation * shape.offset,
                    rotation * shape.rotation,
                    base,
                    SENSOR_OPACITY,
                );
            }
        }
    }
}

/// How much of a sensor region's colour covers what lies behind it.
const SENSOR_OPACITY: f64 = 0.25;
