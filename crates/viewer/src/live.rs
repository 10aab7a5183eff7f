//! Live mode: a source of frames stepped on request, and the control messages of the page.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use stiction::math::Vec3;
use stiction::{BodyHandle, World};

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
        /// its centre of mass).
        #[serde(default)]
        point: Option<[f64; 3]>,
    },
    /// Let go of the grabbed body.
    Release,
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
}

/// A simulation the page drives: [`crate::serve_live`] asks it for frames as the page polls
/// and hands it the page's control messages. Calls come from the server's connection
/// threads, one at a time (behind a mutex).
pub trait LiveSource: Send {
    /// The static part of the scene (bodies, shapes, joints); frames and plots are ignored.
    fn scene(&mut self) -> ViewerScene;
    /// The frame to show now, after advancing the simulation if it is playing.
    fn next_frame(&mut self) -> LiveFrame;
    /// Applies a control message; an error is sent back to the page.
    fn control(&mut self, control: Control) -> Result<(), String>;
}

/// A [`LiveSource`] over a [`World`]: `steps_per_frame` steps of `h` per frame request
/// while playing, one frame's steps per [`Control::Step`], [`Control::Reset`] back to the
/// world it was made with, and a critically damped spring (3 Hz, acceleration capped at
/// 200 m/s^2) for [`Control::Grab`]. A step the engine refuses pauses it and is reported in
/// [`LiveFrame::error`].
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
}

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
        }
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

    fn advance(&mut self, steps: usize) {
        for _ in 0..steps {
            if let Err(e) = self.apply_grab() {
                self.fail(e);
                return;
            }
            if let Err(e) = self.world.step(self.h) {
                self.fail(format!("step {} failed: {e}", self.step + 1));
                return;
            }
            self.step += 1;
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
            self.steps_per_frame
        } else {
            std::mem::take(&mut self.pending)
        };
        if steps > 0 {
            self.advance(steps);
        }
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
        }
    }

    fn control(&mut self, control: Control) -> Result<(), String> {
        match control {
            Control::Play => {
                if self.error.is_some() {
                    return Err("the simulation stopped; reset it first".into());
                }
                self.playing = true;
            }
            Control::Pause => self.playing = false,
            Control::Step => {
                if self.error.is_some() {
                    return Err("the simulation stopped; reset it first".into());
                }
                self.playing = false;
                self.pending += self.steps_per_frame;
            }
            Control::Reset => {
                self.world = self.initial.clone();
                self.playing = false;
                self.pending = 0;
                self.step = self.initial_step;
                self.grab = None;
                self.error = None;
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
                    Some(p) if p.is_finite() => b.orientation().inverse() * (p - b.position()),
                    Some(_) => return Err("the grab point must be finite".into()),
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
