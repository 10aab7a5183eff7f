//! docs/scenes.md S1-S5 in Rapier (`rapier3d-f64`) with its default integration parameters
//! at h = 1/60 (4 solver iterations, its own soft contacts and joints), friction 0.5,
//! restitution 0, sleeping off (docs/scenes.md: no sleeping).

use crate::measure::{self, Budget};
use crate::quality::{self, Quality};
use crate::report::{Kind, RunResult};
use crate::spec::{self, SceneId};
use rapier3d_f64::na::Unit;
use rapier3d_f64::prelude::*;

enum Probe {
    TopBox {
        body: RigidBodyHandle,
        start: [f64; 3],
    },
    Pile {
        spheres: Vec<RigidBodyHandle>,
    },
    Chain,
    Stack {
        body: RigidBodyHandle,
        start: [f64; 3],
    },
    Spin {
        body: RigidBodyHandle,
        inertia: [f64; 3],
        start: ([f64; 3], f64),
    },
}

fn vector(p: [f64; 3]) -> Vector {
    Vector::new(p[0], p[1], p[2])
}

fn dynamic(centre: [f64; 3]) -> RigidBodyBuilder {
    RigidBodyBuilder::dynamic()
        .translation(vector(centre))
        .can_sleep(false)
}

fn rotation(body: &RigidBody) -> [[f64; 3]; 3] {
    let q = body.rotation();
    quality::rotation_from_quaternion([q.w, q.x, q.y, q.z])
}

fn build(scene: SceneId, gyroscopic: bool) -> (PhysicsWorld, Probe) {
    let mut world = PhysicsWorld::new();
    world.integration_parameters.dt = spec::H;
    world.gravity = if scene == SceneId::S5 {
        Vector::ZERO
    } else {
        Vector::new(0.0, 0.0, spec::GRAVITY_Z)
    };
    let ground = || {
        ColliderBuilder::halfspace(Unit::new_unchecked(Vector::Z))
            .friction(spec::MU)
            .restitution(0.0)
    };
    let probe = match scene {
        SceneId::S1 | SceneId::S4 => {
            world.insert_collider(ground(), None);
            let positions = if scene == SceneId::S1 {
                spec::pyramid_positions(spec::PYRAMID_ROWS)
            } else {
                spec::stack_positions(spec::STACK_HEIGHT)
            };
            let mut top = None;
            for p in &positions {
                let collider =
                    ColliderBuilder::cuboid(spec::BOX_HALF, spec::BOX_HALF, spec::BOX_HALF)
                        .mass(spec::UNIT_MASS)
                        .friction(spec::MU)
                        .restitution(0.0);
                top = Some(world.insert(dynamic(*p), collider).0);
            }
            let body = top.expect("scenes have boxes");
            let start = positions[positions.len() - 1];
            if scene == SceneId::S1 {
                Probe::TopBox { body, start }
            } else {
                Probe::Stack { body, start }
            }
        }
        SceneId::S2 => {
            world.insert_collider(ground(), None);
            for (centre, half) in spec::wall_boxes() {
                let wall = ColliderBuilder::cuboid(half[0], half[1], half[2])
                    .translation(vector(centre))
                    .friction(spec::MU)
                    .restitution(0.0);
                world.insert_collider(wall, None);
            }
            let spheres = spec::sphere_pile_positions()
                .into_iter()
                .map(|p| {
                    let collider = ColliderBuilder::ball(spec::SPHERE_RADIUS)
                        .mass(spec::UNIT_MASS)
                        .friction(spec::MU)
                        .restitution(0.0);
                    world.insert(dynamic(p), collider).0
                })
                .collect();
            Probe::Pile { spheres }
        }
        SceneId::S3 => {
            let inertia = spec::box_inertia_with_mass(spec::LINK_HALF, 1.0);
            let mass = MassProperties::new(Vector::ZERO, 1.0, vector(inertia));
            let mut previous: Option<(RigidBodyHandle, [f64; 3])> = None;
            let origin = spec::chain_anchor(0);
            let fixed = world.insert_body(RigidBodyBuilder::fixed().translation(vector(origin)));
            for i in 0..spec::CHAIN_LINKS {
                let centre = spec::link_centre(i);
                let link = world.insert_body(dynamic(centre).additional_mass_properties(mass));
                let anchor = spec::chain_anchor(i);
                let (parent, parent_centre) = previous.unwrap_or((fixed, origin));
                let joint = SphericalJointBuilder::new()
                    .local_anchor1(vector(anchor) - vector(parent_centre))
                    .local_anchor2(vector(anchor) - vector(centre));
                world.insert_impulse_joint(parent, link, joint);
                previous = Some((link, centre));
            }
            Probe::Chain
        }
        SceneId::S5 => {
            let (m, inertia) = spec::box_mass_properties(spec::SPINNER_HALF, spec::SPINNER_DENSITY);
            let body = world.insert_body(
                dynamic([0.0; 3])
                    .additional_mass_properties(MassProperties::new(
                        Vector::ZERO,
                        m,
                        vector(inertia),
                    ))
                    .angvel(vector(spec::SPINNER_OMEGA))
                    .gyroscopic_forces_enabled(gyroscopic),
            );
            let b = &world.bodies[body];
            let start = quality::rotational_invariants(rotation(b), inertia, b.angvel().to_array());
            Probe::Spin {
                body,
                inertia,
                start,
            }
        }
    };
    (world, probe)
}

fn measure_quality(world: &PhysicsWorld, probe: &Probe) -> Quality {
    let position = |h: RigidBodyHandle| world.bodies[h].translation().to_array();
    match probe {
        Probe::TopBox { body, start } => quality::top_box(*start, position(*body)),
        Probe::Stack { body, start } => quality::stack_top(*start, position(*body)),
        Probe::Pile { spheres } => {
            let centres: Vec<[f64; 3]> = spheres.iter().map(|&h| position(h)).collect();
            quality::pile(&centres)
        }
        Probe::Chain => quality::chain(world.impulse_joints().map(|(_, joint)| {
            let (b1, b2) = (&world.bodies[joint.body1()], &world.bodies[joint.body2()]);
            (
                b1.position()
                    .transform_point(joint.data.local_anchor1())
                    .to_array(),
                b2.position()
                    .transform_point(joint.data.local_anchor2())
                    .to_array(),
            )
        })),
        Probe::Spin {
            body,
            inertia,
            start,
        } => {
            let b = &world.bodies[*body];
            let end = quality::rotational_invariants(rotation(b), *inertia, b.angvel().to_array());
            quality::spin(*start, end)
        }
    }
}

/// Runs `scene` in Rapier (for S5, with gyroscopic forces on or off).
pub fn run(scene: SceneId, gyroscopic: bool, budget: Budget) -> RunResult {
    let engine = scene.engine_label("Rapier 0.36 (defaults)", gyroscopic);
    run_configured(scene, gyroscopic, budget, engine, Settings::DEFAULT)
}

/// Rapier's accuracy knobs, for the work-precision curves (`pareto.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// `num_solver_iterations`: the substeps of its soft TGS solver (default 4).
    pub solver_iterations: usize,
    /// `num_internal_pgs_iterations`: PGS sweeps per substep (default 1).
    pub pgs_iterations: usize,
    /// Calls of `step` per docs/scenes.md step, each with `dt = h / substeps` (default 1): a
    /// user's own substepping, which also refreshes contacts in between.
    pub substeps: usize,
}

impl Settings {
    /// Rapier's defaults.
    pub const DEFAULT: Settings = Settings {
        solver_iterations: 4,
        pgs_iterations: 1,
        substeps: 1,
    };
}

/// Runs `scene` in Rapier with `settings`, labelled `engine`.
pub fn run_configured(
    scene: SceneId,
    gyroscopic: bool,
    budget: Budget,
    engine: String,
    settings: Settings,
) -> RunResult {
    let (mut world, probe) = build(scene, gyroscopic);
    let substeps = settings.substeps.max(1);
    let parameters = &mut world.integration_parameters;
    parameters.num_solver_iterations = settings.solver_iterations.max(1);
    parameters.num_internal_pgs_iterations = settings.pgs_iterations.max(1);
    parameters.dt = spec::H / substeps as f64;
    let timing = measure::run(scene.steps(), budget, |_| {
        for _ in 0..substeps {
            world.step();
        }
        Ok(None)
    });
    RunResult {
        scene,
        engine,
        kind: Kind::Iterative,
        ours: false,
        quality: Some(measure_quality(&world, &probe)),
        timing: Some(timing),
        notes: Vec::new(),
    }
}
