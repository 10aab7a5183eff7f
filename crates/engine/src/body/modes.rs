//! The per-body choices of how rotation is integrated; the integrators themselves live in
//! [`crate::dynamics`], which builds on bodies.

/// How the gyroscopic term is integrated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GyroscopicMode {
    /// Drop the term: `w+ = w + h I^-1 tau`. A torque-free body keeps its world angular
    /// velocity, hence spins steadily about a fixed axis (conserving |L| and energy but not
    /// the direction of `L`): a figure skater pulling in her arms would not speed up.
    None,
    /// ODE's explicit term: `tau_g = L x w` added to the torque. First order; gains energy
    /// every step (`w+ . I w+ = w . I w + h^2 (L x w) . I^-1 (L x w)` for a free body), so a
    /// spinning asymmetric body eventually explodes.
    Explicit,
    /// The seed's linearised implicit step (Lacoursiere's modified inertia): with
    /// `I~ = I - h [L]x`, `w+ = I~^-1 (L + h tau)`. `I~` is always invertible (its symmetric
    /// part is `I`), and for a torque-free body the energy never increases: dotting
    /// `I w+ - h L x w+ = I w` with `w+` gives `w+ . I w+ = w+ . I w`, and Cauchy-Schwarz in
    /// the `I` inner product bounds that by `|w+|_I |w|_I`. It slowly dissipates energy, which
    /// drifts a free spin toward the axis of largest inertia. The default.
    #[default]
    Implicit,
    /// The implicit midpoint rule on Euler's equations in the body frame,
    /// `I0 (W+ - W) / h = -Wm x I0 Wm + T`, `Wm = (W + W+) / 2`, solved by Newton's method to a
    /// relative 1e-14 ([`crate::dynamics::ConservingSolver`]), with the attitude advanced by the Cayley map of
    /// the same midpoint velocity, `R+ = R cay(h Wm)`. Both quadratic invariants of a free
    /// body, |L| and the rotational energy, are kept to solver tolerance, and the world-frame
    /// `L` vector too (see `dynamics::integrate::midpoint_orientation` for why Cayley).
    Conserving,
}

/// How the orientation is advanced from an angular velocity `w` (world frame) over `h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OrientationUpdate {
    /// `q+ = normalize(q + (h/2) [0, w] q)` (ODE's default). This is exactly the Cayley map: a
    /// rotation about `w` by `2 atan(h |w| / 2)`, short of `h |w|` by `(h |w|)^3 / 12`.
    #[default]
    Linear,
    /// `q+ = exp((h/2) [0, w]) q`: the exact rotation by `h |w|` about `w` (ODE's "finite
    /// rotation" mode), exact for a constant angular velocity.
    ExponentialMap,
}
