//! Robot models (URDF, MJCF) run like scenes: `stiction run robot.urdf`, `stiction render
//! robot.xml`, `stiction bench robot.urdf`. The model becomes a scene of one `[[models]]`
//! entry (loaded by `stiction-models` through the scene builder) and a ground plane (unless
//! `--no-ground`), with a scene's default settings (gravity `[0, 0, -9.81]`, the exact
//! stepper), a step of [`MODEL_STEP`] and a duration of [`MODEL_DURATION`]; an MJCF file's
//! `<option>` time step and gravity replace those defaults, and `--step` and `--gravity`
//! replace both. That scene is the run directory's scene.json, so the run can be drawn and
//! resumed from it.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use crate::error::CliError;
use crate::run::Overrides;
use crate::scene::build;
use crate::scene::models::{self, AddModelError};
use crate::scene::schema::{BodyDesc, ModelBaseDesc, ModelDesc, SceneFile, DEFAULT_GRAVITY};
use crate::scene::validate;
use crate::scene::BuiltScene;

/// The step of a model run, s (a scene's default, 1/60 s, is coarse for robot arms).
pub const MODEL_STEP: f64 = 1.0 / 240.0;
/// The simulated time of a model run without `--steps` or `--duration`, s.
pub const MODEL_DURATION: f64 = 2.0;
/// The name of the ground plane's body in the trajectory (`ground_` if a link has it).
pub const GROUND: &str = "ground";

/// How a robot model is placed (ignored, and refused if given, for scene files).
#[derive(Debug, Args, Clone, Default)]
pub struct ModelArgs {
    /// Robot models: the root link fixed (a static body) or floating (a free body)
    /// [default: URDF fixed, MJCF as the file says].
    #[arg(long, value_enum, value_name = "fixed|floating")]
    pub base: Option<BaseChoice>,
    /// Robot models: initial joint value (rad or m), repeatable: --joint elbow=0.5.
    #[arg(long = "joint", value_name = "NAME=VALUE", value_parser = parse_joint)]
    pub joints: Vec<(String, f64)>,
    /// Robot models: hold every joint still with a velocity motor of target 0, bounded by
    /// the joint's effort.
    #[arg(long)]
    pub hold: bool,
    /// Robot models: a directory searched for meshes (repeatable), before
    /// STICTION_MODEL_PATH.
    #[arg(long = "model-path", value_name = "DIR")]
    pub model_path: Vec<PathBuf>,
    /// Robot models: no ground plane.
    #[arg(long)]
    pub no_ground: bool,
    /// Robot models: a position servo of these gains (N m/rad and N m s/rad, or N/m and
    /// N s/m) on every hinge and slider the file gives no actuator, holding its initial
    /// value: --servo 100,5.
    #[arg(long, value_name = "STIFFNESS,DAMPING", value_parser = parse_servo)]
    pub servo: Option<[f64; 2]>,
    /// Robot models: move the model up or down so that its lowest collider point is 1 mm
    /// above the ground plane z = 0.
    #[arg(long)]
    pub rest_on_ground: bool,
}

/// The `--base` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BaseChoice {
    /// The root link is a static body.
    Fixed,
    /// The root link is a free dynamic body.
    Floating,
}

fn parse_joint(text: &str) -> Result<(String, f64), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, got `{text}`"))?;
    let value: f64 = value
        .trim()
        .parse()
        .map_err(|e| format!("`{value}` is not a number: {e}"))?;
    if !value.is_finite() || name.trim().is_empty() {
        return Err(format!(
            "expected NAME=VALUE with a finite value, got `{text}`"
        ));
    }
    Ok((name.trim().to_string(), value))
}

fn parse_servo(text: &str) -> Result<[f64; 2], String> {
    let expected =
        || format!("expected STIFFNESS,DAMPING (both finite and >= 0, not both 0), got `{text}`");
    let (k, d) = text.split_once(',').ok_or_else(expected)?;
    let k: f64 = k.trim().parse().map_err(|_| expected())?;
    let d: f64 = d.trim().parse().map_err(|_| expected())?;
    let valid = k.is_finite() && d.is_finite() && k >= 0.0 && d >= 0.0 && k + d > 0.0;
    if valid {
        Ok([k, d])
    } else {
        Err(expected())
    }
}

impl ModelArgs {
    /// The first model option given, for refusing them with a scene file.
    pub(crate) fn given(&self) -> Option<&'static str> {
        if self.base.is_some() {
            Some("--base")
        } else if !self.joints.is_empty() {
            Some("--joint")
        } else if self.hold {
            Some("--hold")
        } else if !self.model_path.is_empty() {
            Some("--model-path")
        } else if self.no_ground {
            Some("--no-ground")
        } else if self.servo.is_some() {
            Some("--servo")
        } else if self.rest_on_ground {
            Some("--rest-on-ground")
        } else {
            None
        }
    }

    /// Refuses model options given with a scene (they would silently do nothing).
    pub fn check_scene(&self) -> Result<(), CliError> {
        match self.given() {
            Some(option) => Err(CliError::Usage {
                option,
                rule: "applies to robot models (.urdf, .xml) only, not to scene files".into(),
            }),
            None => Ok(()),
        }
    }
}

/// Whether `path` names a robot model: `.urdf`, or `.xml` (MJCF or URDF, told apart by
/// the root element when read).
pub fn is_model(path: &Path) -> bool {
    matches!(
        path.extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("urdf" | "xml")
    )
}

/// A model ready to run: the scene file written as scene.json (the run settings, the
/// model as its one `[[models]]` entry, the ground as its one body) and the built scene.
pub struct PreparedModel {
    /// Name, duration or steps, world settings, the model and the ground.
    pub file: SceneFile,
    /// The world, with bodies named by link and joints by joint name.
    pub built: BuiltScene,
}

/// Loads the model at `path`, adds the ground and applies the run settings. The scene file
/// returned builds the same world (scene.json of the run, so that `stiction render RUN_DIR`
/// and `--resume` find the model again); its paths are as given, relative to the working
/// directory.
pub fn prepare(
    path: &Path,
    args: &ModelArgs,
    overrides: &Overrides,
) -> Result<PreparedModel, CliError> {
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("model")
        .to_string();
    let Some(model_file) = path.to_str() else {
        return Err(CliError::Usage {
            option: "MODEL",
            rule: format!("the path {} is not valid UTF-8", path.display()),
        });
    };
    let model_path = args
        .model_path
        .iter()
        .map(|d| {
            d.to_str()
                .map(str::to_string)
                .ok_or_else(|| CliError::Usage {
                    option: "--model-path",
                    rule: format!("the path {} is not valid UTF-8", d.display()),
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let desc = ModelDesc {
        file: model_file.to_string(),
        prefix: String::new(),
        position: [0.0; 3],
        orientation: None,
        axis_angle: None,
        joints: args.joints.iter().cloned().collect(),
        base: args.base.map(|b| match b {
            BaseChoice::Fixed => ModelBaseDesc::Fixed,
            BaseChoice::Floating => ModelBaseDesc::Floating,
        }),
        hold: args.hold,
        servo: args.servo,
        rest_on_ground: args.rest_on_ground,
        model_path,
    };
    let mut file = SceneFile {
        name: Some(name.clone()),
        duration: Some(MODEL_DURATION),
        models: vec![desc],
        ..SceneFile::default()
    };
    // `--step` and `--gravity`, if given, win over the model file's `<option>`.
    overrides.apply(&mut file);
    if let Some(d) = file.duration {
        if !(d.is_finite() && d > 0.0) {
            return Err(CliError::Usage {
                option: "--duration",
                rule: format!("must be finite and > 0, got {d}"),
            });
        }
    }
    let invalid = |e: crate::scene::error::FieldError| CliError::from(e.in_file(path.into()));
    validate::validate(&file).map_err(invalid)?;
    // As build::build does for a scene of one model and one body, with the ground's name
    // chosen once the link names are known.
    let base = Path::new("");
    let mut built = build::start(&file, &name).map_err(invalid)?;
    models::add_model(&mut built, &file.models[0], base, "models[0]").map_err(|e| match e {
        AddModelError::Load(e) => CliError::Model(e),
        AddModelError::Field(e) => invalid(e),
    })?;
    // The command line's step and gravity, else the file's (MJCF `<option>`), else a model
    // run's: written into the scene, so that scene.json states what was run.
    let (timestep, gravity) = built
        .models
        .first()
        .map_or((None, None), |m| (m.timestep, m.gravity));
    if file.world.step.is_none() {
        file.world.step = Some(timestep.unwrap_or(MODEL_STEP));
    }
    if file.world.gravity.is_none() {
        file.world.gravity = Some(gravity.map_or(DEFAULT_GRAVITY, |g| g.to_array()));
    }
    if !args.no_ground {
        let taken = built.bodies.iter().any(|b| b.name == GROUND);
        let ground_name = if taken { "ground_" } else { GROUND };
        let ground: BodyDesc = serde_json::from_value(serde_json::json!({
            "name": ground_name,
            "kind": "static",
            "shapes": [{ "type": "plane" }],
        }))
        .map_err(|e| CliError::Failed(format!("ground: {e}")))?;
        build::add_body(&mut built, &file, &ground, base, "bodies[0]").map_err(invalid)?;
        file.bodies.push(ground);
    }
    build::finish(&mut built, &file).map_err(invalid)?;
    if let Some(model) = built.models.first() {
        file.description = Some(format!(
            "robot model {} ({:?}), run by `stiction run`",
            path.display(),
            model.format
        ));
    }
    Ok(PreparedModel { file, built })
}
