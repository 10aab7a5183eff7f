//! How each body slot takes part in a step (awake, asleep, fixed, moving), as the sleep
//! classification decides it and the collision and solve stages read it.

/// How a body slot (or the ground slot) takes part in this step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Activity {
    /// No body.
    #[default]
    Absent,
    /// Static body, kinematic body at rest, or the static world.
    Fixed,
    /// Kinematic body with a velocity.
    Moving,
    /// Dynamic and simulated.
    Awake,
    /// Dynamic and sleeping.
    Asleep,
}

impl Activity {
    /// Whether contacts can move it (a dynamic body, awake or not).
    pub(crate) fn can_be_pushed(self) -> bool {
        matches!(self, Activity::Awake | Activity::Asleep)
    }

    /// Whether it wakes sleeping bodies it meets.
    pub(crate) fn wakes_others(self) -> bool {
        matches!(self, Activity::Awake | Activity::Moving)
    }
}
