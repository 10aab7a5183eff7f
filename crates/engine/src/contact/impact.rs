//! Sequential impacts: the exact stepper's option for rows of touching bodies (a Newton's
//! cradle, a break shot, a stack dropped on its edge).
//!
//! The velocity solve treats every touching contact of an island as one simultaneous
//! impact: momentum is conserved, but in a row of touching equal balls struck at `v` the
//! impulse spreads over the row (with restitution 1, five balls leave at `-0.6 v` and
//! `0.4 v` each), because the LCP has no notion of which contact is struck first.
//!
//! [`ImpactModel::Sequential`] resolves the step's impacts before the velocity solve, one
//! contact at a time in the order the compression wave travels: of the contacts that touch
//! or close within the step and approach at least at their restitution threshold, the
//! fastest is resolved as a
//! two-body collision (impulse `P = (1 + e) s / (w_a + w_b)` along the normal, `s` the
//! approach speed and `w` each body's inverse effective mass at the point), which may set
//! its neighbours approaching, and so on until no contact approaches. Each pairwise impulse
//! conserves linear and angular momentum exactly, and with `e = 1` kinetic energy too, so
//! the whole sequence does; a row of equal balls passes the velocity down the row exactly.
//! Joints and non-touching contacts take no part in the impact; they act in the velocity
//! solve that follows, where the resolved contacts no longer approach (docs/dynamics.md#restitution).

use crate::contact::rows::TOUCHING;
use crate::contact::ContactPoint;
use crate::math::Vec3;
use crate::rows::hot::HotBodies;

/// How the exact stepper resolves the impacts of touching contacts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImpactModel {
    /// All of an island's impacts in one simultaneous problem (restitution targets on the
    /// contact rows of the velocity solve). The default, and the ODE behaviour.
    #[default]
    Simultaneous,
    /// Pairwise impacts, fastest approach first, before the velocity solve (module
    /// `contact::impact`): a compression wave through rows of touching bodies.
    Sequential,
}

/// The most pairwise impacts per taking part contact in one step: a row of `n` touching
/// equal balls needs `n - 1` in all; inelastic clusters converge geometrically and stop
/// here at worst.
const IMPACTS_PER_CONTACT: usize = 64;

/// Resolves the touching contacts' impacts in `points` sequentially, changing the bodies'
/// predicted velocities in `hot` and clearing the points' restitution targets (their impact
/// is done). A contact takes part if it touches or closes within the step `h` (otherwise
/// the velocity solve would stop it at the surface, an inelastic impact). `threshold` is
/// the world's restitution threshold; `taking_part` is scratch. Returns the number of
/// pairwise impacts.
pub(crate) fn resolve_sequentially(
    points: &mut [ContactPoint],
    hot: &mut HotBodies,
    h: f64,
    threshold: f64,
    taking_part: &mut Vec<u32>,
) -> usize {
    taking_part.clear();
    for (k, point) in points.iter_mut().enumerate() {
        let c = &point.candidate;
        let closing = c.geometry.separation - h * approach_speed(point, hot).max(0.0);
        if c.restitution > 0.0 && closing <= TOUCHING {
            taking_part.push(k as u32);
            point.bounce = None;
        }
    }
    let budget = IMPACTS_PER_CONTACT * taking_part.len();
    let mut impacts = 0;
    while impacts < budget {
        // The fastest approaching contact is struck first: the wave's front.
        let mut fastest: Option<(usize, f64)> = None;
        for &k in taking_part.iter() {
            let point = &points[k as usize];
            let speed = approach_speed(point, hot);
            let limit = point.restitution_threshold(threshold);
            if speed > 0.0 && speed >= limit && fastest.is_none_or(|(_, s)| speed > s) {
                fastest = Some((k as usize, speed));
            }
        }
        let Some((k, speed)) = fastest else {
            break;
        };
        if !strike(&mut points[k], speed, hot) {
            // Two bodies that cannot move: nothing to resolve, and nothing changed.
            break;
        }
        impacts += 1;
    }
    impacts
}

/// How fast the contact's surfaces close along its normal (m/s; negative: separating),
/// from the bodies' predicted velocities.
fn approach_speed(point: &ContactPoint, hot: &HotBodies) -> f64 {
    let n = point.candidate.geometry.normal;
    -n.dot(point.relative_velocity(&hot.predicted, &hot.pose))
}

/// Applies the two-body impact impulse of a contact approaching at `speed` (and adds it to
/// the point's reported impulse); false if neither body can move.
fn strike(point: &mut ContactPoint, speed: f64, hot: &mut HotBodies) -> bool {
    let [a, b] = point.slots.map(|s| s as usize);
    let n = point.candidate.geometry.normal;
    let arm = |slot: usize, p: Vec3| p - hot.pose[slot].position;
    let (r_a, r_b) = (arm(a, point.anchors[0]), arm(b, point.anchors[1]));
    let (t_a, t_b) = (r_a.cross(n), r_b.cross(n));
    let (i_a, i_b) = (hot.inverse_inertia[a] * t_a, hot.inverse_inertia[b] * t_b);
    let inverse_mass = hot.inverse_mass[a] + hot.inverse_mass[b] + t_a.dot(i_a) + t_b.dot(i_b);
    // Zero (two fixed bodies) or NaN (a non-finite state, refused later by the step).
    if inverse_mass.is_nan() || inverse_mass <= 0.0 {
        return false;
    }
    let impulse = (1.0 + point.candidate.restitution) * speed / inverse_mass;
    point.impact += impulse;
    // B is pushed along the normal, A against it.
    let [v_a, w_a] = &mut hot.predicted[a];
    *v_a -= n * (impulse * hot.inverse_mass[a]);
    *w_a -= i_a * impulse;
    let [v_b, w_b] = &mut hot.predicted[b];
    *v_b += n * (impulse * hot.inverse_mass[b]);
    *w_b += i_b * impulse;
    true
}
