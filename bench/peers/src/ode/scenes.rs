//! docs/scenes.md S1-S5 in ODE, from the numbers of [`crate::spec`].

use super::ffi::{dMass, dMassSetBox, dMassSetBoxTotal, peers_ode_lcp_message_count};
use super::world::{OdeStepper, OdeWorld};
use crate::measure::{self, Budget};
use crate::quality::{self, Quality};
use crate::report::{Kind, RunResult};
use crate::spec::{self, SceneId};

/// What to read at the end of a run.
enum Probe {
    TopBox {
        body: usize,
        start: [f64; 3],
    },
    Pile,
    Chain,
    Stack {
        body: usize,
        start: [f64; 3],
    },
    Spin {
        inertia: [f64; 3],
        start: ([f64; 3], f64),
    },
}

fn build(scene: SceneId, stepper: OdeStepper, gyroscopic: bool) -> (OdeWorld, Probe) {
    let gravity = if scene == SceneId::S5 {
        0.0
    } else {
        spec::GRAVITY_Z
    };
    let mut world = OdeWorld::new(stepper, gravity);
    let half = [spec::BOX_HALF; 3];
    let probe = match scene {
        SceneId::S1 | SceneId::S4 => {
            world.add_ground();
            let positions = if scene == SceneId::S1 {
                spec::pyramid_positions(spec::PYRAMID_ROWS)
            } else {
                spec::stack_positions(spec::STACK_HEIGHT)
            };
            let mut top = 0;
            for p in &positions {
                top = world.add_box(*p, half, spec::UNIT_MASS);
            }
            let start = world.position(top);
            if scene == SceneId::S1 {
                Probe::TopBox { body: top, start }
            } else {
                Probe::Stack { body: top, start }
            }
        }
        SceneId::S2 => {
            world.add_ground();
            for (centre, half) in spec::wall_boxes() {
                world.add_static_box(centre, half);
            }
            for p in spec::sphere_pile_positions() {
                world.add_sphere(p, spec::SPHERE_RADIUS, spec::UNIT_MASS);
            }
            Probe::Pile
        }
        SceneId::S3 => {
            let [lx, ly, lz] = spec::LINK_HALF.map(|v| 2.0 * v);
            let mut mass = dMass::default();
            // SAFETY: `mass` is a valid dMass.
            unsafe { dMassSetBoxTotal(&mut mass, 1.0, lx, ly, lz) };
            for i in 0..spec::CHAIN_LINKS {
                let link = world.add_body(spec::link_centre(i), &mass);
                let previous = i.checked_sub(1);
                world.add_ball(link, previous, spec::chain_anchor(i));
            }
            Probe::Chain
        }
        SceneId::S5 => {
            let [lx, ly, lz] = spec::SPINNER_HALF.map(|v| 2.0 * v);
            let mut mass = dMass::default();
            // SAFETY: `mass` is a valid dMass.
            unsafe { dMassSetBox(&mut mass, spec::SPINNER_DENSITY, lx, ly, lz) };
            let body = world.add_body([0.0; 3], &mass);
            world.set_angular_velocity(body, spec::SPINNER_OMEGA);
            world.set_gyroscopic(body, gyroscopic);
            let inertia = spec::box_mass_properties(spec::SPINNER_HALF, spec::SPINNER_DENSITY).1;
            let start = quality::rotational_invariants(
                world.rotation(body),
                inertia,
                world.angular_velocity(body),
            );
            Probe::Spin { inertia, start }
        }
    };
    (world, probe)
}

fn measure_quality(world: &OdeWorld, probe: &Probe) -> Quality {
    match *probe {
        Probe::TopBox { body, start } => quality::top_box(start, world.position(body)),
        Probe::Stack { body, start } => quality::stack_top(start, world.position(body)),
        Probe::Pile => {
            let centres: Vec<[f64; 3]> =
                (0..world.body_count()).map(|b| world.position(b)).collect();
            quality::pile(&centres)
        }
        Probe::Chain => quality::chain((0..world.ball_count()).map(|j| world.ball_anchors(j))),
        Probe::Spin { inertia, start } => {
            let end = quality::rotational_invariants(
                world.rotation(0),
                inertia,
                world.angular_velocity(0),
            );
            quality::spin(start, end)
        }
    }
}

/// Runs `scene` in ODE with `stepper` (and, for S5, the gyroscopic term on or off);
/// `dWorldStep` is not started on an island of more than `row_limit` rows.
pub fn run(
    scene: SceneId,
    stepper: OdeStepper,
    gyroscopic: bool,
    budget: Budget,
    row_limit: usize,
) -> RunResult {
    let (world, probe) = build(scene, stepper, gyroscopic);
    run_built(scene, stepper, gyroscopic, budget, row_limit, world, probe)
}

/// `scene` under `dWorldQuickStep` with `iterations` SOR-LCP sweeps instead of docs/scenes.md's
/// 20: one point of the work-precision curves (`pareto.rs`).
pub fn run_quick_with_iterations(scene: SceneId, iterations: usize, budget: Budget) -> RunResult {
    let (mut world, probe) = build(scene, OdeStepper::Quick, true);
    world.set_quick_iterations(iterations);
    let mut result = run_built(
        scene,
        OdeStepper::Quick,
        true,
        budget,
        usize::MAX,
        world,
        probe,
    );
    result.engine = format!("ODE dWorldQuickStep, {iterations} iterations");
    result
}

fn run_built(
    scene: SceneId,
    stepper: OdeStepper,
    gyroscopic: bool,
    budget: Budget,
    row_limit: usize,
    mut world: OdeWorld,
    probe: Probe,
) -> RunResult {
    // SAFETY: reads a counter of the shim.
    let messages_before = unsafe { peers_ode_lcp_message_count() };
    let timing = measure::run(scene.steps(), budget, |_| {
        world.collide();
        if stepper == OdeStepper::Exact {
            let rows = world.largest_island_rows();
            if rows > row_limit {
                return Ok(Some(format!(
                    "stopped before an island of {rows} rows (limit {row_limit})"
                )));
            }
        }
        world.step(spec::H).map(|()| None)
    });
    // SAFETY: as above.
    let lcp_failures = unsafe { peers_ode_lcp_message_count() } - messages_before;
    let mut notes = Vec::new();
    if lcp_failures > 0 {
        notes.push(format!("{lcp_failures} ODE LCP failures (s <= 0)"));
    }
    let engine = scene.engine_label(stepper.label(), gyroscopic);
    RunResult {
        scene,
        engine,
        kind: match stepper {
            OdeStepper::Exact => Kind::Exact,
            OdeStepper::Quick => Kind::Iterative,
        },
        ours: false,
        quality: Some(measure_quality(&world, &probe)),
        timing: Some(timing),
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short chain built like S3 holds together in ODE (so the metres of separation the
    /// 100-link chain shows come from ODE's velocity-level joints under the whip of a long
    /// chain, not from how the joints are set up here).
    #[test]
    fn ode_holds_a_short_chain_together() {
        let mut world = OdeWorld::new(OdeStepper::Exact, spec::GRAVITY_Z);
        let [lx, ly, lz] = spec::LINK_HALF.map(|v| 2.0 * v);
        let mut mass = dMass::default();
        // SAFETY: `mass` is a valid dMass.
        unsafe { dMassSetBoxTotal(&mut mass, 1.0, lx, ly, lz) };
        for i in 0..3 {
            let link = world.add_body(spec::link_centre(i), &mass);
            world.add_ball(link, i.checked_sub(1), spec::chain_anchor(i));
        }
        let separation = |world: &OdeWorld| match quality::chain(
            (0..world.ball_count()).map(|j| world.ball_anchors(j)),
        ) {
            Quality::Chain { max_separation } => max_separation,
            _ => unreachable!(),
        };
        assert_eq!(separation(&world), 0.0, "anchors coincide at the start");
        world.step(spec::H).unwrap();
        // One step of a resting chain: only CFM and the linearisation open the joints.
        assert!(separation(&world) < 1e-4, "{}", separation(&world));
        for _ in 0..119 {
            world.step(spec::H).unwrap();
        }
        // Swinging for two seconds, ODE's ERP 0.2 keeps three links within centimetres.
        assert!(separation(&world) < 0.02, "{}", separation(&world));
        // The links fell: the last one is well below the anchor height.
        assert!(world.position(2)[2] < spec::CHAIN_HEIGHT - 0.3);
    }

    /// ODE's free box conserves |L| exactly with the gyroscopic term off (it spins about a
    /// fixed axis), as the table's S5 row says.
    #[test]
    fn ode_spinner_without_gyroscopic_term_keeps_its_momentum() {
        let result = run(
            SceneId::S5,
            OdeStepper::Exact,
            false,
            Budget::NONE,
            usize::MAX,
        );
        let Some(Quality::Spin { momentum, energy }) = result.quality else {
            unreachable!()
        };
        assert!(
            momentum.abs() < 1e-12 && energy.abs() < 1e-12,
            "{momentum} {energy}"
        );
        assert_eq!(result.timing.map(|t| t.done), Some(6000));
    }
}
