//! Sleeping: bodies at rest stop costing anything until something disturbs them.
//!
//! After each step, every dynamic body whose linear and angular speeds are both below
//! the thresholds of [`SleepSettings`] accumulates "still" time; any faster motion resets
//! it. When every body of an island (bodies connected by joint or contact rows this step)
//! has been still for [`SleepSettings::time_until_sleep`], the whole island goes to sleep
//! together as one group, with zero velocity. A body in no island sleeps alone.
//!
//! A sleeping body is treated as fixed: no forces or gravity, no rows, no integration, and
//! its pairs with fixed geometry or other sleepers skip the narrow phase (their contact
//! manifolds are kept for the wake-up). Its whole group wakes when
//! - an awake body or a moving kinematic body comes near it (a broad-phase pair) or is
//!   joined to it by an enabled joint;
//! - the user gives it a force, a torque or a velocity, moves it, or calls
//!   [`crate::World::wake_up`].
//!
//! Waking spreads until no sleeping group touches an awake body, all before the narrow
//! phase, so woken bodies get their contacts in the same step.

use crate::body::Activity;
use crate::body::{BodyKind, RigidBody};
use crate::error::WorldError;
use crate::handles::Arena;
use crate::handles::{BodyHandle, JointHandle};
use crate::joint::Joint;
use crate::math::Vec3;
use crate::rows::Pose;

/// When bodies go to sleep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SleepSettings {
    /// Whether bodies may sleep; default `false` (as ODE's auto-disable; docs/scenes.md
    /// benchmarks run without sleeping).
    pub enabled: bool,
    /// Largest speed of the centre of mass, m/s, that counts as still; default 0.02.
    pub linear_threshold: f64,
    /// Largest angular speed, rad/s, that counts as still; default 0.05.
    pub angular_threshold: f64,
    /// How long, s, an island must stay still before it sleeps; default 0.5. Shorter
    /// saves more work but may freeze a body at the top of a slow swing.
    pub time_until_sleep: f64,
}

impl Default for SleepSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            linear_threshold: 0.02,
            angular_threshold: 0.05,
            time_until_sleep: 0.5,
        }
    }
}

impl SleepSettings {
    /// Sleeping on, with the default thresholds.
    pub fn on() -> Self {
        Self {
            enabled: true,
            ..Self::default()
        }
    }

    /// Checks the documented ranges (all finite and `>= 0`).
    pub fn validate(&self) -> Result<(), WorldError> {
        for (name, value) in [
            ("sleep.linear_threshold", self.linear_threshold),
            ("sleep.angular_threshold", self.angular_threshold),
            ("sleep.time_until_sleep", self.time_until_sleep),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(WorldError::InvalidSetting {
                    name,
                    value,
                    rule: "must be finite and >= 0",
                });
            }
        }
        Ok(())
    }
}

/// Per-body-slot sleep state.
#[derive(Debug, Clone, Default)]
pub(crate) struct SleepTracker {
    pub(crate) asleep: Vec<bool>,
    pub(crate) group: Vec<u32>,
    pub(crate) still: Vec<f64>,
    /// Pose at which a sleeper fell asleep (moving it wakes it).
    pub(crate) pose: Vec<Pose>,
    pub(crate) next_group: u32,
    to_wake: Vec<u32>,
    /// This step's activity per body slot, plus the ground slot at the end.
    pub(crate) activity: Vec<Activity>,
}

impl SleepTracker {
    fn grow(&mut self, slots: usize) {
        if self.asleep.len() < slots {
            self.asleep.resize(slots, false);
            self.group.resize(slots, 0);
            self.still.resize(slots, 0.0);
            self.pose.resize(slots, Pose::IDENTITY);
        }
    }

    /// A new body in `slot` starts awake.
    pub(crate) fn reset_slot(&mut self, slot: usize) {
        self.grow(slot + 1);
        self.asleep[slot] = false;
        self.still[slot] = 0.0;
    }

    /// Whether the body in `slot` sleeps.
    pub(crate) fn is_asleep(&self, slot: usize) -> bool {
        self.asleep.get(slot).copied().unwrap_or(false)
    }

    /// Number of sleeping bodies.
    pub(crate) fn sleeping(&self) -> usize {
        self.asleep.iter().filter(|a| **a).count()
    }

    /// Wakes the body in `slot` and its group.
    pub(crate) fn wake(&mut self, slot: usize) {
        if self.is_asleep(slot) {
            self.to_wake.push(self.group[slot]);
            self.wake_marked();
        }
    }

    /// Classifies every slot for this step and wakes sleepers the user disturbed; with
    /// `enabled` off, wakes everyone.
    pub(crate) fn classify(&mut self, bodies: &Arena<RigidBody, BodyHandle>, enabled: bool) {
        let slots = bodies.capacity();
        self.grow(slots);
        if !enabled {
            self.asleep.fill(false);
        }
        self.activity.clear();
        self.activity.resize(slots + 1, Activity::Absent);
        self.activity[slots] = Activity::Fixed;
        self.to_wake.clear();
        for slot in 0..slots {
            let Some(body) = bodies.slot(slot) else {
                self.asleep[slot] = false;
                continue;
            };
            if body.kind != BodyKind::Dynamic {
                self.asleep[slot] = false;
            }
            self.activity[slot] = match body.kind {
                BodyKind::Static => Activity::Fixed,
                BodyKind::Kinematic => {
                    let v = body.velocity;
                    if v.linear == Vec3::ZERO && v.angular == Vec3::ZERO {
                        Activity::Fixed
                    } else {
                        Activity::Moving
                    }
                }
                BodyKind::Dynamic if self.asleep[slot] => {
                    let v = body.velocity;
                    let disturbed = body.force != Vec3::ZERO
                        || body.torque != Vec3::ZERO
                        || v.linear != Vec3::ZERO
                        || v.angular != Vec3::ZERO
                        || Pose::of(body) != self.pose[slot];
                    if disturbed {
                        self.to_wake.push(self.group[slot]);
                    }
                    Activity::Asleep
                }
                BodyKind::Dynamic => Activity::Awake,
            };
        }
        self.wake_marked();
    }

    /// Wakes every sleeping group that an awake or moving body meets through a candidate
    /// pair (`pairs`, body slots) or an enabled joint, until none is left.
    pub(crate) fn propagate(
        &mut self,
        pairs: &[[u32; 2]],
        joints: &Arena<Joint, JointHandle>,
        ground: u32,
    ) {
        loop {
            self.to_wake.clear();
            let meets = |activity: &[Activity], a: usize, b: usize| {
                activity[a].wakes_others() && activity[b] == Activity::Asleep
            };
            for &[a, b] in pairs {
                let (a, b) = (a as usize, b as usize);
                if meets(&self.activity, a, b) {
                    self.to_wake.push(self.group[b]);
                } else if meets(&self.activity, b, a) {
                    self.to_wake.push(self.group[a]);
                }
            }
            for (_, joint) in joints.iter() {
                if !joint.enabled {
                    continue;
                }
                let a = joint.body_a.index();
                let b = joint.body_b.map_or(ground as usize, |h| h.index());
                if meets(&self.activity, a, b) {
                    self.to_wake.push(self.group[b]);
                } else if meets(&self.activity, b, a) {
                    self.to_wake.push(self.group[a]);
                }
            }
            if self.to_wake.is_empty() {
                return;
            }
            self.wake_marked();
        }
    }

    fn wake_marked(&mut self) {
        if self.to_wake.is_empty() {
            return;
        }
        self.to_wake.sort_unstable();
        self.to_wake.dedup();
        for slot in 0..self.asleep.len() {
            if self.asleep[slot] && self.to_wake.binary_search(&self.group[slot]).is_ok() {
                self.asleep[slot] = false;
                self.still[slot] = 0.0;
                if let Some(a) = self.activity.get_mut(slot) {
                    *a = Activity::Awake;
                }
            }
        }
        self.to_wake.clear();
    }

    /// After a step of `h` seconds with end velocities `velocity` and poses `pose` (by
    /// slot): updates the still times and puts to sleep every island (`islands`, lists of
    /// body slots) and every free awake body that has been still long enough. Returns
    /// nothing; sleepers are read back with [`Self::is_asleep`].
    pub(crate) fn fall_asleep<'a>(
        &mut self,
        settings: &SleepSettings,
        h: f64,
        velocity: &[[Vec3; 2]],
        pose: &[Pose],
        islands: impl Iterator<Item = &'a [u32]>,
    ) {
        let slots = self.asleep.len();
        for ((still, activity), [v, w]) in self.still.iter_mut().zip(&self.activity).zip(velocity) {
            if *activity == Activity::Awake {
                let at_rest = v.length() <= settings.linear_threshold
                    && w.length() <= settings.angular_threshold;
                *still = if at_rest { *still + h } else { 0.0 };
            }
        }
        let ready = |tracker: &Self, slot: usize| tracker.still[slot] >= settings.time_until_sleep;
        let mut in_island = std::mem::take(&mut self.to_wake);
        in_island.clear();
        for bodies in islands {
            in_island.extend_from_slice(bodies);
            if bodies.iter().all(|&s| ready(self, s as usize)) {
                self.sleep_group(bodies.iter().map(|&s| s as usize), pose);
            }
        }
        in_island.sort_unstable();
        for slot in 0..slots {
            let free = in_island.binary_search(&(slot as u32)).is_err();
            if free && self.activity.get(slot) == Some(&Activity::Awake) && ready(self, slot) {
                self.sleep_group(std::iter::once(slot), pose);
            }
        }
        in_island.clear();
        self.to_wake = in_island;
    }

    fn sleep_group(&mut self, slots: impl Iterator<Item = usize>, pose: &[Pose]) {
        let group = self.next_group;
        self.next_group = self.next_group.wrapping_add(1);
        for slot in slots {
            self.asleep[slot] = true;
            self.group[slot] = group;
            self.still[slot] = 0.0;
            self.pose[slot] = pose[slot];
        }
    }
}
