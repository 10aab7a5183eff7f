//! Whole-world figures recorded each step: energy, momentum and constraint error.

use stiction::math::Vec3;
use stiction::World;

/// Conserved-quantity figures of a world at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Invariants {
    /// Translational plus rotational kinetic energy of the dynamic bodies, J.
    pub kinetic: f64,
    /// Gravitational potential energy `-m g . x` of the dynamic bodies with gravity on, J
    /// (zero at the world origin).
    pub potential: f64,
    /// Total linear momentum, kg m/s.
    pub momentum: Vec3,
    /// Total angular momentum about the world origin, kg m^2/s.
    pub angular_momentum: Vec3,
    /// Largest distance between the two anchor points of a joint, m.
    pub joint_error: f64,
}

impl Invariants {
    /// Total mechanical energy, J.
    pub fn energy(&self) -> f64 {
        self.kinetic + self.potential
    }
}

/// Measures `world` now.
pub fn measure(world: &World) -> Invariants {
    let gravity = world.settings().gravity;
    let mut out = Invariants::default();
    for (_, body) in world.bodies() {
        if !body.is_dynamic() {
            continue;
        }
        let mass = body.mass();
        out.kinetic += body.linear_kinetic_energy() + body.rotational_kinetic_energy();
        if body.gravity_enabled() {
            out.potential -= mass * gravity.dot(body.position());
        }
        let p = mass * body.linear_velocity();
        out.momentum += p;
        out.angular_momentum += body.position().cross(p) + body.angular_momentum();
    }
    out.joint_error = world.max_joint_anchor_separation();
    out
}
