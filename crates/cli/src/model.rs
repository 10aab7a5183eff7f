//! Robot models (URDF, MJCF) run like scenes: `stiction run robot.urdf`, `stiction render
//! robot.xml`. The model is loaded by `stiction-models`, a ground plane is added (unless
//! `--no-ground`) and the world gets a scene's default settings (gravity `[0, 0, -9.81]`,
//! the exact stepper), with a step of [`MODEL_STEP`] and a duration of [`MODEL_DURATION`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use stiction::math::{Quat, Vec3};
use stiction::{BodyHandle, BodyKind, ColliderBuilder, RigidBodyBuilder, World};
use stiction_models::{Base, LoadOptions, LoadedModel, Warning};

use crate::error::CliError;
use crate::run::Overrides;
use crate::scene::build::{self, BuiltBody, BuiltJoint, PlacedShape};
use crate::scene::schema::{RecordDesc, RenderDesc, SceneFile};
use crate::scene::{BuiltScene, Geometry};

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

impl ModelArgs {
    /// The first model option given, for refusing them with a scene file.
    fn given(&self) -> Option<&'static str> {
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

    fn load_options(&self) -> LoadOptions {
        LoadOptions {
            base: match self.base {
                None => Base::FromFile,
                Some(BaseChoice::Fixed) => Base::Fixed,
                Some(BaseChoice::Floating) => Base::Floating,
            },
            joint_positions: self.joints.iter().cloned().collect(),
            hold_joints: self.hold,
            search_path: self.model_path.clone(),
            ..LoadOptions::default()
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

/// A model ready to run: the scene file written as scene.json (run settings only: the
/// bodies are the model's), the built scene, and what the file holds that is not simulated.
pub struct PreparedModel {
    /// Name, duration or steps, and world settings of the run.
    pub file: SceneFile,
    /// The world, with bodies named by link and joints by joint name.
    pub built: BuiltScene,
    /// The loader's warnings.
    pub warnings: Vec<Warning>,
}

/// Loads the model at `path`, adds the ground and applies the run settings.
pub fn prepare(
    path: &Path,
    args: &ModelArgs,
    overrides: &Overrides,
) -> Result<PreparedModel, CliError> {
    let (mut world, model) = stiction_models::load(path, &args.load_options())?;
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("model")
        .to_string();
    let mut file = SceneFile {
        name: Some(name.clone()),
        description: Some(format!(
            "robot model {} ({:?}), run by `stiction run`",
            path.display(),
            model.format
        )),
        duration: Some(MODEL_DURATION),
        ..SceneFile::default()
    };
    file.world.step = MODEL_STEP;
    overrides.apply(&mut file);
    if let Some(d) = file.duration {
        if !(d.is_finite() && d > 0.0) {
            return Err(CliError::Usage {
                option: "--duration",
                rule: format!("must be finite and > 0, got {d}"),
            });
        }
    }
    world
        .set_settings(build::world_settings(&file))
        .map_err(|e| CliError::Failed(format!("world settings: {e}")))?;
    let mut bodies = model_bodies(&world, &model);
    if !args.no_ground {
        let taken = bodies.iter().any(|b| b.name == GROUND);
        let ground_name = if taken { "ground_" } else { GROUND };
        let body = RigidBodyBuilder::new(BodyKind::Static)
            .build()
            .map_err(|e| CliError::Failed(format!("ground: {e}")))?;
        let handle = world.add_body(body);
        let collider = ColliderBuilder::halfspace(Vec3::Z)
            .map_err(|e| CliError::Failed(format!("ground: {e}")))?;
        world
            .add_collider(collider, Some(handle))
            .map_err(|e| CliError::Failed(format!("ground: {e}")))?;
        bodies.push(BuiltBody {
            name: ground_name.to_string(),
            handle,
            kind: BodyKind::Static,
            shapes: vec![PlacedShape {
                geometry: Geometry::Plane,
                offset: Vec3::ZERO,
                rotation: Quat::IDENTITY,
            }],
            color: None,
        });
    }
    let joints = model_joints(&world, &model);
    let h = file.world.step;
    let steps = match (file.steps, file.duration) {
        (Some(steps), _) => steps,
        (None, Some(duration)) => build::steps_for(duration, h),
        (None, None) => build::steps_for(MODEL_DURATION, h),
    };
    let built = BuiltScene {
        name,
        world,
        h,
        steps,
        bodies,
        joints,
        record: RecordDesc::default(),
        render: RenderDesc::default(),
    };
    Ok(PreparedModel {
        file,
        built,
        warnings: model.warnings,
    })
}

/// The world's bodies in creation order, each named by the first (alphabetical) link that
/// maps to it: merged massless links share their parent's body.
fn model_bodies(world: &World, model: &LoadedModel) -> Vec<BuiltBody> {
    let mut names: BTreeMap<BodyHandle, &str> = BTreeMap::new();
    for (link, &handle) in &model.links {
        names.entry(handle).or_insert(link.as_str());
    }
    world
        .bodies()
        .enumerate()
        .map(|(i, (handle, body))| BuiltBody {
            name: names
                .get(&handle)
                .map_or_else(|| format!("body{i}"), |n| n.to_string()),
            handle,
            kind: body.kind(),
            shapes: shapes_of(world, handle),
            color: None,
        })
        .collect()
}

/// The model's engine joints, in the world's order, by joint name.
fn model_joints(world: &World, model: &LoadedModel) -> Vec<BuiltJoint> {
    let names: BTreeMap<_, &str> = model
        .joints
        .iter()
        .map(|(name, &handle)| (handle, name.as_str()))
        .collect();
    world
        .joints()
        .enumerate()
        .map(|(i, (handle, _))| BuiltJoint {
            name: names
                .get(&handle)
                .map_or_else(|| format!("joint{i}"), |n| n.to_string()),
            handle,
        })
        .collect()
}

/// The colliders of `body` as the renderer draws them: boxes, spheres, capsules and
/// cylinders as they are; meshes and hulls as their bounding boxes.
fn shapes_of(world: &World, body: BodyHandle) -> Vec<PlacedShape> {
    world
        .colliders()
        .filter(|(_, c)| c.body() == Some(body))
        .filter_map(|(_, c)| {
            let pose = c.local_pose();
            let shape = c.shape();
            let placed = |geometry, offset: Vec3, rotation: Quat| PlacedShape {
                geometry,
                offset: pose.position + pose.orientation * offset,
                rotation: pose.orientation * rotation,
            };
            if let Some(ball) = shape.as_ball() {
                return Some(placed(
                    Geometry::Sphere(ball.radius),
                    Vec3::ZERO,
                    Quat::IDENTITY,
                ));
            }
            if let Some(cuboid) = shape.as_cuboid() {
                return Some(placed(
                    Geometry::Box(cuboid.half_extents),
                    Vec3::ZERO,
                    Quat::IDENTITY,
                ));
            }
            if let Some(capsule) = shape.as_capsule() {
                let (a, b) = (capsule.segment.a, capsule.segment.b);
                let axis = b - a;
                let rotation = if axis.length() > 0.0 {
                    Quat::from_rotation_arc(Vec3::Z, axis.normalize())
                } else {
                    Quat::IDENTITY
                };
                return Some(placed(
                    Geometry::Capsule(capsule.radius, 0.5 * axis.length()),
                    0.5 * (a + b),
                    rotation,
                ));
            }
            if let Some(cylinder) = shape.as_cylinder() {
                // ColliderBuilder::cylinder turns parry's y-axis cylinder to z, as drawn.
                return Some(placed(
                    Geometry::Cylinder(cylinder.radius, cylinder.half_height),
                    Vec3::ZERO,
                    Quat::IDENTITY,
                ));
            }
            if shape.as_halfspace().is_some() {
                return None;
            }
            let aabb = shape.compute_local_aabb();
            let half = 0.5 * (aabb.maxs - aabb.mins);
            let centre = 0.5 * (aabb.maxs + aabb.mins);
            half.is_finite().then(|| {
                placed(
                    Geometry::Box(Vec3::new(half.x, half.y, half.z)),
                    Vec3::new(centre.x, centre.y, centre.z),
                    Quat::IDENTITY,
                )
            })
        })
        .collect()
}
