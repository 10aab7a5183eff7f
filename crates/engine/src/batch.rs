//! Many worlds stepped together on a thread pool ([`WorldBatch`]; docs/batch.md).
//!
//! Each world is stepped by one thread from start to end of a call and shares nothing with
//! the others, so its trajectory is bit-identical to stepping it alone, whatever the thread
//! count or the order the pool picks worlds in. Actions (forces, torques, servo targets)
//! come in and states go out as flat row-major arrays shaped `(worlds, ...)`, laid out over
//! each world's [`BatchLayout`]: the bodies and servo axes a caller addresses, in its own
//! order. A world whose step is refused is held (left exactly as before the refused step,
//! as [`World::step`] guarantees) with its error, and the others go on.

use crate::error::WorldError;
use crate::handles::{BodyHandle, JointHandle};
use crate::math::Vec3;
use crate::world::World;
use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};
use thiserror::Error;

/// A refused batch call; nothing was stepped or changed.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum BatchError {
    /// A batch needs at least one world.
    #[error("a batch needs at least one world")]
    Empty,
    /// An action or state array does not have the length the layouts give.
    #[error("`{name}` has {got} numbers; the batch needs {expected} ({shape})")]
    Shape {
        /// The array's name.
        name: &'static str,
        /// Its length.
        got: usize,
        /// The length expected.
        expected: usize,
        /// The shape expected, e.g. `64 worlds x 3 bodies x 3`.
        shape: String,
    },
    /// Flat arrays need every world to lay out the same number of bodies (or servo axes).
    #[error("world {world} lays out {got} {what}, world 0 {expected}: flat arrays need the same count in every world")]
    Uneven {
        /// The first world that differs.
        world: usize,
        /// What is counted (`bodies` or `servo axes`).
        what: &'static str,
        /// Its count.
        got: usize,
        /// World 0's count.
        expected: usize,
    },
    /// A layout names a body or joint axis its world does not have (or an axis without a
    /// servo).
    #[error("world {world}: {what}")]
    Layout {
        /// The world.
        world: usize,
        /// What is wrong.
        what: String,
    },
    /// A world index past the end.
    #[error("world {index} does not exist: the batch has {count}")]
    NoSuchWorld {
        /// The index given.
        index: usize,
        /// The number of worlds.
        count: usize,
    },
    /// The step size is not finite and positive, or the thread pool could not start.
    #[error("{0}")]
    Invalid(String),
}

/// Which bodies and servo axes of a world the flat arrays address, in order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BatchLayout {
    /// The bodies of the state arrays and of the force and torque actions.
    pub bodies: Vec<BodyHandle>,
    /// The joint axes (each with a servo) whose target positions the servo action sets.
    pub servo_axes: Vec<(JointHandle, usize)>,
}

impl BatchLayout {
    /// Every body in handle order, and every joint axis that has a servo, joints in handle
    /// order and axes in order.
    pub fn of(world: &World) -> Self {
        Self {
            bodies: world.bodies().map(|(handle, _)| handle).collect(),
            servo_axes: Self::servo_axes_of(world, world.joints().map(|(handle, _)| handle)),
        }
    }

    /// The axes with a servo of `joints` (in that order, axes in order); joints the world
    /// does not have are skipped.
    pub fn servo_axes_of(
        world: &World,
        joints: impl IntoIterator<Item = JointHandle>,
    ) -> Vec<(JointHandle, usize)> {
        joints
            .into_iter()
            .filter_map(|handle| Some((handle, world.joint(handle).ok()?)))
            .flat_map(|(handle, joint)| {
                (0..joint.axis_count())
                    .filter(|&axis| joint.axis_dynamics(axis).is_some_and(|d| d.servo.is_some()))
                    .map(move |axis| (handle, axis))
            })
            .collect()
    }

    fn check(&self, world: &World, index: usize) -> Result<(), BatchError> {
        let fail = |what: String| BatchError::Layout { world: index, what };
        for &body in &self.bodies {
            world
                .body(body)
                .map_err(|_| fail(format!("no body {body:?}")))?;
        }
        for &(joint, axis) in &self.servo_axes {
            let found = world
                .joint(joint)
                .map_err(|_| fail(format!("no joint {joint:?}")))?;
            if found.axis_dynamics(axis).is_none_or(|d| d.servo.is_none()) {
                return Err(fail(format!("joint {joint:?} axis {axis} has no servo")));
            }
        }
        Ok(())
    }
}

/// Where a world of the batch stands.
#[derive(Debug, Clone, PartialEq)]
pub enum WorldStatus {
    /// Stepping normally.
    Running,
    /// Its step at `time` was refused with `error`; it is held (not stepped) until reset.
    Failed {
        /// The refusal.
        error: WorldError,
        /// The world's time when the refused step began, s.
        time: f64,
    },
}

/// What to do to every world before each step of one [`WorldBatch::step`] call: flat
/// row-major arrays over the worlds' layouts (`None`: nothing of that kind).
#[derive(Debug, Clone, Copy, Default)]
pub struct BatchActions<'a> {
    /// Forces at the centres of mass, N, world frame: `(worlds, bodies, 3)`, added before
    /// every step of the call.
    pub forces: Option<&'a [f64]>,
    /// Torques, N m, world frame: `(worlds, bodies, 3)`, added before every step.
    pub torques: Option<&'a [f64]>,
    /// Servo target positions, rad or m: `(worlds, servo axes)`, set once before the
    /// first step (targets persist).
    pub servo_targets: Option<&'a [f64]>,
}

/// The state of every world over its layout's bodies, as flat row-major arrays.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BatchState {
    /// Centre-of-mass positions, m: `(worlds, bodies, 3)`.
    pub positions: Vec<f64>,
    /// Orientations as unit quaternions `(w, x, y, z)`: `(worlds, bodies, 4)`.
    pub orientations: Vec<f64>,
    /// Linear velocities, m/s: `(worlds, bodies, 3)`.
    pub linear_velocities: Vec<f64>,
    /// Angular velocities, rad/s, world frame: `(worlds, bodies, 3)`.
    pub angular_velocities: Vec<f64>,
    /// Each world's simulated time, s: `(worlds,)`.
    pub times: Vec<f64>,
    /// Whether each world is held after a refused step: `(worlds,)`.
    pub failed: Vec<bool>,
}

/// N worlds stepped together on a thread pool (see the module documentation).
///
/// ```
/// use stiction::{BatchActions, ColliderBuilder, MassProperties, RigidBodyBuilder, World, WorldBatch};
/// use stiction::math::Vec3;
///
/// let mut world = World::new();
/// world.add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None).unwrap();
/// let ball = world.add_body(
///     RigidBodyBuilder::dynamic()
///         .mass_properties(MassProperties::sphere_with_mass(0.5, 1.0).unwrap())
///         .position(Vec3::new(0.0, 0.0, 2.0))
///         .build()
///         .unwrap(),
/// );
/// world.add_collider(ColliderBuilder::ball(0.5).unwrap(), Some(ball)).unwrap();
///
/// let mut batch = WorldBatch::copies(&world, 8, 2).unwrap();
/// // Push world k up with k newtons for 10 steps.
/// let forces: Vec<f64> = (0..8).flat_map(|k| [0.0, 0.0, k as f64]).collect();
/// let actions = BatchActions { forces: Some(&forces), ..Default::default() };
/// let failed = batch.step(1.0 / 60.0, 10, &actions).unwrap();
/// assert!(failed.is_empty());
/// let state = batch.state().unwrap();
/// assert!(state.positions[7 * 3 + 2] > state.positions[2]); // world 7 fell less
/// ```
pub struct WorldBatch {
    worlds: Vec<World>,
    layouts: Vec<BatchLayout>,
    status: Vec<WorldStatus>,
    pool: ThreadPool,
    threads: usize,
}

impl std::fmt::Debug for WorldBatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorldBatch")
            .field("worlds", &self.worlds.len())
            .field("threads", &self.threads)
            .finish()
    }
}

impl WorldBatch {
    /// A batch of `worlds`, each laid out by [`BatchLayout::of`], stepped on `threads`
    /// threads (0: one per core).
    pub fn new(worlds: Vec<World>, threads: usize) -> Result<Self, BatchError> {
        let layouts = worlds.iter().map(BatchLayout::of).collect();
        Self::with_layouts(worlds, layouts, threads)
    }

    /// `count` copies of `world`.
    pub fn copies(world: &World, count: usize, threads: usize) -> Result<Self, BatchError> {
        Self::new(vec![world.clone(); count], threads)
    }

    /// A batch of `worlds` with the given layouts (one per world, checked against it).
    pub fn with_layouts(
        worlds: Vec<World>,
        layouts: Vec<BatchLayout>,
        threads: usize,
    ) -> Result<Self, BatchError> {
        if worlds.is_empty() {
            return Err(BatchError::Empty);
        }
        if layouts.len() != worlds.len() {
            return Err(BatchError::Invalid(format!(
                "{} layouts for {} worlds",
                layouts.len(),
                worlds.len()
            )));
        }
        for (index, (world, layout)) in worlds.iter().zip(&layouts).enumerate() {
            layout.check(world, index)?;
        }
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| BatchError::Invalid(format!("the thread pool did not start: {e}")))?;
        let threads = pool.current_num_threads();
        let status = vec![WorldStatus::Running; worlds.len()];
        Ok(Self {
            worlds,
            layouts,
            status,
            pool,
            threads,
        })
    }

    /// The number of worlds.
    pub fn len(&self) -> usize {
        self.worlds.len()
    }

    /// Always `false`: a batch holds at least one world.
    pub fn is_empty(&self) -> bool {
        self.worlds.is_empty()
    }

    /// The number of threads the batch steps on.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// World `index`.
    pub fn world(&self, index: usize) -> Result<&World, BatchError> {
        self.worlds.get(index).ok_or(BatchError::NoSuchWorld {
            index,
            count: self.worlds.len(),
        })
    }

    /// World `index`, to change between steps (its layout must stay valid: the next
    /// [`Self::step`] checks it).
    pub fn world_mut(&mut self, index: usize) -> Result<&mut World, BatchError> {
        let count = self.worlds.len();
        self.worlds
            .get_mut(index)
            .ok_or(BatchError::NoSuchWorld { index, count })
    }

    /// World `index`'s layout.
    pub fn layout(&self, index: usize) -> Result<&BatchLayout, BatchError> {
        self.layouts.get(index).ok_or(BatchError::NoSuchWorld {
            index,
            count: self.worlds.len(),
        })
    }

    /// Where world `index` stands.
    pub fn status(&self, index: usize) -> Result<&WorldStatus, BatchError> {
        self.status.get(index).ok_or(BatchError::NoSuchWorld {
            index,
            count: self.worlds.len(),
        })
    }

    /// Replaces world `index` (e.g. with a copy of its start) and clears its failure; its
    /// layout is kept and checked against the new world.
    pub fn reset(&mut self, index: usize, world: World) -> Result<(), BatchError> {
        let layout = self.layout(index)?;
        layout.check(&world, index)?;
        self.worlds[index] = world;
        self.status[index] = WorldStatus::Running;
        Ok(())
    }

    /// The common count of `what` in every layout, for flat arrays.
    fn uniform(
        &self,
        what: &'static str,
        count: impl Fn(&BatchLayout) -> usize,
    ) -> Result<usize, BatchError> {
        let expected = count(&self.layouts[0]);
        for (world, layout) in self.layouts.iter().enumerate() {
            let got = count(layout);
            if got != expected {
                return Err(BatchError::Uneven {
                    world,
                    what,
                    got,
                    expected,
                });
            }
        }
        Ok(expected)
    }

    fn check_array(
        &self,
        name: &'static str,
        array: Option<&[f64]>,
        per_world: usize,
        shape: impl Fn() -> String,
    ) -> Result<(), BatchError> {
        let Some(array) = array else {
            return Ok(());
        };
        let expected = per_world * self.worlds.len();
        if array.len() != expected {
            return Err(BatchError::Shape {
                name,
                got: array.len(),
                expected,
                shape: shape(),
            });
        }
        Ok(())
    }

    /// Steps every running world `steps` times by `h` seconds in parallel, applying
    /// `actions` (see [`BatchActions`]). Returns the worlds whose step was refused in this
    /// call, in index order: each is held, left as before its refused step, with
    /// [`WorldStatus::Failed`]. Held worlds are not stepped. An action a world refuses (a
    /// non-finite force, say) fails that world alone, before its step. A refused call (bad
    /// shapes, a bad step size, a layout that no longer fits) changes nothing.
    pub fn step(
        &mut self,
        h: f64,
        steps: usize,
        actions: &BatchActions<'_>,
    ) -> Result<Vec<usize>, BatchError> {
        if !(h.is_finite() && h > 0.0) {
            return Err(BatchError::Invalid(format!(
                "the step size must be finite and > 0, got {h}"
            )));
        }
        let count = self.worlds.len();
        if actions.forces.is_some() || actions.torques.is_some() {
            let bodies = self.uniform("bodies", |l| l.bodies.len())?;
            let shape = || format!("{count} worlds x {bodies} bodies x 3");
            self.check_array("forces", actions.forces, bodies * 3, shape)?;
            self.check_array("torques", actions.torques, bodies * 3, shape)?;
        }
        if actions.servo_targets.is_some() {
            let axes = self.uniform("servo axes", |l| l.servo_axes.len())?;
            let shape = || format!("{count} worlds x {axes} servo axes");
            self.check_array("servo_targets", actions.servo_targets, axes, shape)?;
        }
        for (index, (world, layout)) in self.worlds.iter().zip(&self.layouts).enumerate() {
            layout.check(world, index)?;
        }
        let actions = *actions;
        let was_running: Vec<bool> = self
            .status
            .iter()
            .map(|s| matches!(s, WorldStatus::Running))
            .collect();
        let worlds = &mut self.worlds;
        let layouts = &self.layouts;
        let status = &mut self.status;
        self.pool.install(|| {
            worlds
                .par_iter_mut()
                .zip(status.par_iter_mut())
                .enumerate()
                .for_each(|(index, (world, status))| {
                    if matches!(status, WorldStatus::Running) {
                        if let Err((error, time)) =
                            step_one(world, &layouts[index], index, h, steps, &actions)
                        {
                            *status = WorldStatus::Failed { error, time };
                        }
                    }
                });
        });
        Ok((0..count)
            .filter(|&i| was_running[i] && !matches!(self.status[i], WorldStatus::Running))
            .collect())
    }

    /// The state of every world (held ones as they were held) over its layout's bodies.
    pub fn state(&self) -> Result<BatchState, BatchError> {
        let mut state = BatchState::default();
        self.state_into(&mut state)?;
        Ok(state)
    }

    /// [`Self::state`] into `out`'s vectors (cleared first; no allocation once they have
    /// the capacity).
    pub fn state_into(&self, out: &mut BatchState) -> Result<(), BatchError> {
        self.uniform("bodies", |l| l.bodies.len())?;
        out.positions.clear();
        out.orientations.clear();
        out.linear_velocities.clear();
        out.angular_velocities.clear();
        out.times.clear();
        out.failed.clear();
        for (index, (world, layout)) in self.worlds.iter().zip(&self.layouts).enumerate() {
            for &handle in &layout.bodies {
                let body = world.body(handle).map_err(|_| BatchError::Layout {
                    world: index,
                    what: format!("no body {handle:?}"),
                })?;
                let q = body.orientation();
                out.positions.extend(body.position().to_array());
                out.orientations.extend([q.w, q.x, q.y, q.z]);
                out.linear_velocities
                    .extend(body.linear_velocity().to_array());
                out.angular_velocities
                    .extend(body.angular_velocity().to_array());
            }
            out.times.push(world.time());
            out.failed
                .push(matches!(self.status[index], WorldStatus::Failed { .. }));
        }
        Ok(())
    }
}

/// One world's part of [`WorldBatch::step`]: the refusal and the time it happened at.
fn step_one(
    world: &mut World,
    layout: &BatchLayout,
    index: usize,
    h: f64,
    steps: usize,
    actions: &BatchActions<'_>,
) -> Result<(), (WorldError, f64)> {
    let now = world.time();
    if let Some(targets) = actions.servo_targets {
        let row = &targets[index * layout.servo_axes.len()..][..layout.servo_axes.len()];
        for (&(joint, axis), &target) in layout.servo_axes.iter().zip(row) {
            let live = world.joint_mut(joint).map_err(|e| (e, now))?;
            // The layout was checked before the call: every axis has a servo.
            let Some(mut servo) = live.axis_dynamics(axis).and_then(|d| d.servo) else {
                continue;
            };
            servo.target_position = target;
            live.set_servo(axis, Some(servo)).map_err(|e| (e, now))?;
        }
    }
    let bodies = layout.bodies.len();
    for _ in 0..steps {
        for (slot, &handle) in layout.bodies.iter().enumerate() {
            let at = |array: Option<&[f64]>| {
                array.map(|a| {
                    let i = (index * bodies + slot) * 3;
                    Vec3::new(a[i], a[i + 1], a[i + 2])
                })
            };
            let (force, torque) = (at(actions.forces), at(actions.torques));
            if force.is_none() && torque.is_none() {
                continue;
            }
            let now = world.time();
            let body = world.body_mut(handle).map_err(|e| (e, now))?;
            if let Some(force) = force {
                body.add_force(force).map_err(|e| (e.into(), now))?;
            }
            if let Some(torque) = torque {
                body.add_torque(torque).map_err(|e| (e.into(), now))?;
            }
        }
        let now = world.time();
        if let Err(error) = world.step(h) {
            return Err((error, now));
        }
    }
    Ok(())
}
