//! Live mode: a source of frames stepped on request, and the control messages of the page.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use stiction::math::Vec3;
use stiction::{BodyHandle, Solver, World};

use crate::scene::{standard_plots, Frame, ViewerScene};

/// A message from the page ([`crate::serve_live`]'s `POST /control`), as JSON with a
/// `type` field: `{"type": "play"}`, `{"type": "grab", "body": 3, "target": [x, y, z]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Control {
    /// Step continuously: each frame request advances the simulation.
    Play,
    /// Stop stepping: frame requests return the current state.
    Pause,
    /// Advance by one frame's steps, then stay paused.
    Step,
    /// Go back to the initial state (paused).
    Reset,
    /// Pull a body towards a point with a spring (until [`Control::Release`]).
    Grab {
        /// The body's index in the scene.
        body: usize,
        /// Where to pull it, m, world frame.
        target: [f64; 3],
        /// The point of the body held, m, world frame at the time of the grab (default:
        /// its centre of mass); while the same body stays grabbed, later messages move the
        /// target only.
        #[serde(default)]
        point: Option<[f64; 3]>,
    },
    /// Let go of the grabbed body.
    Release,
    /// Switch the stepper between steps: `{"type": "solver", "solver": "iterative"}`.
    Solver {
        /// The stepper to use from the next step on.
        solver: SolverName,
    },
    /// Set the playing speed, a multiple of real time in `(0, 4]`:
    /// `{"type": "speed", "speed": 0.25}` plays in slow motion.
    Speed {
        /// Simulated seconds per wall-clock second.
        speed: f64,
    },
}

/// The two steppers the page can choose between ([`Control::Solver`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverName {
    /// Dantzig pivoting (and the sparse active-set solver for large islands): exact.
    Exact,
    /// Projected Gauss-Seidel sweeps: approximate.
    Iterative,
}

impl SolverName {
    /// `"exact"` or `"iterative"`, as in the messages.
    pub fn as_str(self) -> &'static str {
        match self {
            SolverName::Exact => "exact",
            SolverName::Iterative => "iterative",
        }
    }

    /// The name of `solver`'s kind.
    pub fn of(solver: &Solver) -> Self {
        match solver {
            Solver::Exact(_) => SolverName::Exact,
            Solver::Iterative(_) => SolverName::Iterative,
        }
    }
}

/// Fastest speed [`Control::Speed`] accepts, times real time.
pub const MAX_SPEED: f64 = 4.0;

/// How a playing [`WorldSource`] decides how far each frame request advances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pacing {
    /// By the wall-clock time since the previous frame request times the speed, in whole
    /// steps with the remainder carried: real time at speed 1 whenever the steps are fast
    /// enough, whatever the page's polling rate. At most 2 s of wall time count per
    /// request and its steps stop after 0.1 s of stepping (the time still owed is then
    /// dropped), so neither a stalled page nor a world too slow for real time causes a
    /// burst of steps.
    #[default]
    RealTime,
    /// `steps_per_frame` times the speed per request (the fraction carried), regardless of
    /// the clock: deterministic, for tests.
    PerRequest,
}

/// Figures of the last step and of the world now, sent with each [`LiveFrame`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveStats {
    /// The stepper in use.
    pub solver: SolverName,
    /// The playing speed, times real time.
    pub speed: f64,
    /// Steps this frame request ran.
    pub steps: usize,
    /// Wall time of the last step, ms (`null` before the first step).
    pub step_ms: Option<f64>,
    /// Contact points that became rows in the last step.
    pub contacts: usize,
    /// Rows solved in the last step.
    pub rows: usize,
    /// Islands of the last step.
    pub islands: usize,
    /// Dantzig pivots of the last step (exact stepper).
    pub pivots: usize,
    /// Gauss-Seidel sweeps of the last step (iterative stepper, and exact fallbacks).
    pub sweeps: usize,
    /// The worst normalised LCP residual of the last step (`null` if not finite).
    pub residual: Option<f64>,
    /// Kinetic energy of the dynamic bodies now, J.
    pub kinetic_energy: f64,
    /// Gravitational potential energy `-m g . x` of the dynamic bodies now, J.
    pub potential_energy: f64,
    /// Their sum, J.
    pub energy: f64,
    /// The source's wall clock when this frame was made, s since the source was made: the
    /// real-time factor is the frames' `time` difference over this one's.
    pub clock: f64,
}

/// What `GET /frame` answers in live mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveFrame {
    /// The state to show.
    pub frame: Frame,
    /// Plot values of this frame by name (finite values only).
    #[serde(default)]
    pub plots: BTreeMap<String, f64>,
    /// Whether the source is playing.
    pub playing: bool,
    /// Why the simulation stopped, if it did.
    #[serde(default)]
    pub error: Option<String>,
    /// The last step's statistics, the stepper and the energy (a source that has none:
    /// absent).
    #[serde(default)]
    pub stats: Option<LiveStats>,
}

/// A simulation the page drives: [`crate::serve_live`] asks it for frames as the page polls
/// and hands it the page's control messages. Calls come from the server's connection
/// threads, one at a time (behind a mutex).
pub trait LiveSource: Send {
    /// The static part of the scene (bodies, shapes, joints); frames and plots are ignored.
    fn scene(&mut self) -> ViewerScene;
    /// The frame to show now, after advancing the simulation if it is playing.
    fn next_frame(&mut self) -> LiveFrame;
    /// The frame of the current state, without advancing (`GET /state`).
    fn current_frame(&mut self) -> LiveFrame;
    /// Applies a control message; an error is sent back to the page.
    fn control(&mut self, control: Control) -> Result<(), String>;
}

/// A [`LiveSource`] over a [`World`]: while playing, each frame request advances by the
/// wall time since the last one times the speed ([`Pacing::RealTime`], the default) or by
/// `steps_per_frame` steps of `h` times the speed ([`Pacing::PerRequest`]); one frame's
/// steps per [`Control::Step`]; [`Control::Reset`] back to the world it was made with (the
/// stepper chosen is kept); [`Control::Solver`] switches between the exact and the
/// iterative stepper between steps; and a critically damped spring (3 Hz, acceleration
/// capped at 200 m/s^2) for [`Control::Grab`]. A step the engine refuses pauses it and is
/// reported in [`LiveFrame::error`].
#[derive(Debug, Clone)]
pub struct WorldSource {
    world: World,
    initial: World,
    scene: Option<ViewerScene>,
    h: f64,
    steps_per_frame: usize,
    playing: bool,
    pending: usize,
    step: u64,
    initial_step: u64,
    grab: Option<Grab>,
    error: Option<String>,
    pacing: Pacing,
    speed: f64,
    /// Steps owed but not yet run: simulated seconds ([`Pacing::RealTime`]) or steps
    /// ([`Pacing::PerRequest`]).
    owed: f64,
    /// When the last frame request while playing was answered.
    clock: Option<Instant>,
    /// The exact and the iterative stepper's settings, for [`Control::Solver`].
    exact: Solver,
    iterative: Solver,
    last_steps: usize,
    last_step_ms: Option<f64>,
    born: Instant,
}

/// Most wall time one frame request accounts for under [`Pacing::RealTime`], s: a page
/// rendering in software on a busy machine polls only every 0.1 to 1 s and must still
/// get real time.
const MAX_WALL_PER_FRAME: f64 = 2.0;
/// Most stepping time one frame request spends under [`Pacing::RealTime`], s.
const MAX_STEPPING_PER_FRAME: f64 = 0.1;

#[derive(Debug, Clone, Copy)]
struct Grab {
    body: BodyHandle,
    /// The held point in the body frame.
    local: Vec3,
    target: Vec3,
}

/// Spring frequency of a grab, Hz.
const GRAB_HZ: f64 = 3.0;
/// Largest acceleration a grab imposes, m/s^2.
const GRAB_MAX_ACCELERATION: f64 = 200.0;

impl WorldSource {
    /// A paused source over `world` stepping by `h` (s), as many steps per frame as make
    /// 1/60 s (at least one).
    pub fn new(world: World, h: f64) -> Self {
        let steps_per_frame = ((1.0 / 60.0) / h).round().max(1.0) as usize;
        let current = world.settings().solver.clone();
        let (exact, iterative) = match current {
            Solver::Exact(_) => (current, Solver::iterative()),
            Solver::Iterative(_) => (Solver::exact(), current),
        };
        Self {
            initial: world.clone(),
            world,
            scene: None,
            h,
            steps_per_frame,
            playing: false,
            pending: 0,
            step: 0,
            initial_step: 0,
            grab: None,
            error: None,
            pacing: Pacing::default(),
            speed: 1.0,
            owed: 0.0,
            clock: None,
            exact,
            iterative,
            last_steps: 0,
            last_step_ms: None,
            born: Instant::now(),
        }
    }

    /// How playing advances per frame request (default [`Pacing::RealTime`]).
    pub fn pacing(mut self, pacing: Pacing) -> Self {
        self.pacing = pacing;
        self
    }

    /// The settings [`Control::Solver`] switches to: `exact` for `"exact"`, `iterative`
    /// for `"iterative"` (default: the world's own stepper for its kind, the default
    /// settings for the other). Each is validated when switched to.
    pub fn solvers(mut self, exact: Solver, iterative: Solver) -> Self {
        self.exact = exact;
        self.iterative = iterative;
        self
    }

    /// The stepper in use.
    pub fn solver(&self) -> SolverName {
        SolverName::of(&self.world.settings().solver)
    }

    /// The playing speed, times real time (default 1).
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Steps per frame request (at least 1).
    pub fn steps_per_frame(mut self, steps: usize) -> Self {
        self.steps_per_frame = steps.max(1);
        self
    }

    /// Starts playing (or paused, with `false`).
    pub fn playing(mut self, playing: bool) -> Self {
        self.playing = playing;
        self
    }

    /// The static scene to send (names, title); default [`ViewerScene::from_world`].
    pub fn with_scene(mut self, scene: ViewerScene) -> Self {
        self.scene = Some(scene);
        self
    }

    /// The step number of the world's current state (default 0).
    pub fn first_step(mut self, step: u64) -> Self {
        self.step = step;
        self.initial_step = step;
        self
    }

    /// The world as it is now.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Whether it is playing.
    pub fn is_playing(&self) -> bool {
        self.playing
    }

    fn handle(&self, index: usize) -> Option<BodyHandle> {
        self.world.bodies().nth(index).map(|(h, _)| h)
    }

    fn advance(&mut self, steps: usize, budget: Option<f64>) {
        let started = Instant::now();
        for _ in 0..steps {
            if budget.is_some_and(|b| started.elapsed().as_secs_f64() > b) {
                // Slower than real time: fall behind rather than owe ever more steps.
                self.owed = 0.0;
                return;
            }
            if let Err(e) = self.apply_grab() {
                self.fail(e);
                return;
            }
            let step_started = Instant::now();
            if let Err(e) = self.world.step(self.h) {
                self.fail(format!("step {} failed: {e}", self.step + 1));
                return;
            }
            self.last_step_ms = Some(step_started.elapsed().as_secs_f64() * 1e3);
            self.step += 1;
        }
    }

    /// Steps a playing source owes now, by its pacing.
    fn steps_due(&mut self) -> usize {
        match self.pacing {
            Pacing::RealTime => {
                let now = Instant::now();
                let wall = self.clock.map_or(0.0, |then| {
                    (now - then).as_secs_f64().min(MAX_WALL_PER_FRAME)
                });
                self.clock = Some(now);
                self.owed += wall * self.speed;
                // The tolerance keeps an exact multiple of h from losing a step to rounding.
                let steps = (self.owed / self.h + 1e-9).floor().max(0.0);
                self.owed = (self.owed - steps * self.h).max(0.0);
                steps as usize
            }
            Pacing::PerRequest => {
                self.owed += self.steps_per_frame as f64 * self.speed;
                let steps = (self.owed + 1e-9).floor().max(0.0);
                self.owed = (self.owed - steps).max(0.0);
                steps as usize
            }
        }
    }

    fn stop_clock(&mut self) {
        self.clock = None;
        self.owed = 0.0;
    }

    fn frame_now(&self) -> LiveFrame {
        let plots = standard_plots(&self.world)
            .into_iter()
            .filter(|(_, v)| v.is_finite())
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        LiveFrame {
            frame: Frame::from_world(&self.world, self.step),
            plots,
            playing: self.playing,
            error: self.error.clone(),
            stats: Some(self.stats()),
        }
    }

    fn stats(&self) -> LiveStats {
        let s = self.world.step_stats();
        let gravity = self.world.settings().gravity;
        let (mut kinetic, mut potential) = (0.0, 0.0);
        for (_, body) in self.world.bodies().filter(|(_, b)| b.is_dynamic()) {
            kinetic += body.linear_kinetic_energy() + body.rotational_kinetic_energy();
            if body.gravity_enabled() {
                potential -= body.mass() * gravity.dot(body.position());
            }
        }
        // Before the first step (and after a reset) the step figures are the empty ones.
        let stepped = self.last_step_ms.is_some();
        let count = |n: usize| if stepped { n } else { 0 };
        LiveStats {
            solver: self.solver(),
            speed: self.speed,
            steps: self.last_steps,
            step_ms: self.last_step_ms,
            contacts: count(s.contacts),
            rows: count(s.rows),
            islands: count(s.islands),
            pivots: count(s.pivots),
            sweeps: count(s.sweeps),
            residual: Some(s.worst_residual).filter(|r| stepped && r.is_finite()),
            kinetic_energy: kinetic,
            potential_energy: potential,
            energy: kinetic + potential,
            clock: self.born.elapsed().as_secs_f64(),
        }
    }

    fn fail(&mut self, message: String) {
        self.error = Some(message);
        self.playing = false;
        self.pending = 0;
    }

    fn apply_grab(&mut self) -> Result<(), String> {
        let Some(grab) = self.grab else {
            return Ok(());
        };
        let body = match self.world.body(grab.body) {
            Ok(b) => b,
            Err(_) => {
                self.grab = None;
                return Ok(());
            }
        };
        if !body.is_dynamic() {
            return Ok(());
        }
        let omega = std::f64::consts::TAU * GRAB_HZ;
        let point = body.position() + body.orientation() * grab.local;
        let velocity = body.velocity_at_point(point);
        let mut acceleration = (grab.target - point) * (omega * omega) - velocity * (2.0 * omega);
        if acceleration.length() > GRAB_MAX_ACCELERATION {
            acceleration = acceleration.normalize() * GRAB_MAX_ACCELERATION;
        }
        let force = acceleration * body.mass();
        self.world.wake_up(grab.body).map_err(|e| e.to_string())?;
        let body = self.world.body_mut(grab.body).map_err(|e| e.to_string())?;
        body.add_force_at_point(force, point)
            .map_err(|e| format!("grab: {e}"))
    }
}

impl LiveSource for WorldSource {
    fn scene(&mut self) -> ViewerScene {
        self.scene
            .clone()
            .unwrap_or_else(|| ViewerScene::from_world(&self.initial))
    }

    fn next_frame(&mut self) -> LiveFrame {
        let steps = if self.playing {
            self.steps_due()
        } else {
            std::mem::take(&mut self.pending)
        };
        let budget =
            (self.playing && self.pacing == Pacing::RealTime).then_some(MAX_STEPPING_PER_FRAME);
        let before = self.step;
        if steps > 0 {
            self.advance(steps, budget);
        }
        self.last_steps = (self.step - before) as usize;
        self.frame_now()
    }

    fn current_frame(&mut self) -> LiveFrame {
        self.frame_now()
    }

    fn control(&mut self, control: Control) -> Result<(), String> {
        match control {
            Control::Play => {
                if self.error.is_some() {
                    return Err("the simulation stopped; reset it first".into());
                }
                if !self.playing {
                    self.stop_clock();
                }
                self.playing = true;
            }
            Control::Pause => {
                self.playing = false;
                self.stop_clock();
            }
            Control::Step => {
                if self.error.is_some() {
                    return Err("the simulation stopped; reset it first".into());
                }
                self.playing = false;
                self.stop_clock();
                self.pending += self.steps_per_frame;
            }
            Control::Reset => {
                let solver = self.world.settings().solver.clone();
                self.world = self.initial.clone();
                // The stepper chosen in the page stays chosen; it was valid for this world.
                let _ = self.world.set_solver(solver);
                self.playing = false;
                self.stop_clock();
                self.pending = 0;
                self.step = self.initial_step;
                self.grab = None;
                self.error = None;
                self.last_steps = 0;
                self.last_step_ms = None;
            }
            Control::Solver { solver } => {
                let settings = match solver {
                    SolverName::Exact => self.exact.clone(),
                    SolverName::Iterative => self.iterative.clone(),
                };
                self.world
                    .set_solver(settings)
                    .map_err(|e| format!("the {} stepper: {e}", solver.as_str()))?;
            }
            Control::Speed { speed } => {
                if !(speed > 0.0 && speed <= MAX_SPEED) {
                    return Err(format!(
                        "the speed must be above 0 and at most {MAX_SPEED}, not {speed}"
                    ));
                }
                self.speed = speed;
            }
            Control::Grab {
                body,
                target,
                point,
            } => {
                let handle = self.handle(body).ok_or_else(|| format!("no body {body}"))?;
                let target = Vec3::from_array(target);
                if !target.is_finite() {
                    return Err("the grab target must be finite".into());
                }
                let b = self.world.body(handle).map_err(|e| e.to_string())?;
                if !b.is_dynamic() {
                    return Err(format!("body {body} is not dynamic"));
                }
                let local = match point.map(Vec3::from_array) {
                    Some(p) if !p.is_finite() => return Err("the grab point must be finite".into()),
                    // The same body again (a drag): the point held stays the one first
                    // grabbed, not the first message's world point in the body's new pose.
                    _ if self.grab.is_some_and(|g| g.body == handle) => {
                        self.grab.map_or(Vec3::ZERO, |g| g.local)
                    }
                    Some(p) => b.orientation().inverse() * (p - b.position()),
                    None => Vec3::ZERO,
                };
                self.grab = Some(Grab {
                    body: handle,
                    local,
                    target,
                });
            }
            Control::Release => self.grab = None,
        }
        Ok(())
    }
}
