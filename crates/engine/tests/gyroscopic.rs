//! Invariants of the four gyroscopic modes on a free spinning body.
//!
//! Torque-free, Euler's equations `I0 W' = (I0 W) x W` keep two quadratic invariants, the
//! rotational energy `W . I0 W / 2` and `|L|`, and the world-frame `L` itself. Scene S5 of
//! docs/scenes.md (box 1 x 0.4 x 0.2 m, density 1000, no gravity, `W0 = (1, 2, 3)` rad/s in
//! the body frame, h = 1/60 s, 6000 steps) shows how each mode treats them:
//! - `None` keeps the world angular velocity exactly, and so energy and |L|, but turns `L`;
//! - `Explicit` gains energy every step until the state overflows;
//! - `Implicit` never gains energy and keeps |L| within a few percent;
//! - `Conserving` keeps |L|, energy and the `L` vector to solver tolerance.
//!
//! Then the tennis-racket flip about the intermediate axis, timed against an RK4 reference,
//! the analytic precession of a symmetric top, and the equivalent-torque identity.

use stiction::dynamics::{angular_velocity_after_step, equivalent_torque, integrate_free_body};
use stiction::dynamics::{conserving_step, ConservingSolver, RotationalState};
use stiction::math::{Mat3, Quat, Vec3};
use stiction::{GyroscopicMode, IntegrationError, MassProperties, RigidBody, RigidBodyBuilder};

const H: f64 = 1.0 / 60.0;
const S5_STEPS: usize = 6000;
const ALL_MODES: [GyroscopicMode; 4] = [
    GyroscopicMode::None,
    GyroscopicMode::Explicit,
    GyroscopicMode::Implicit,
    GyroscopicMode::Conserving,
];

fn s5_box() -> MassProperties {
    MassProperties::cuboid(Vec3::new(0.5, 0.2, 0.1), 1000.0).unwrap()
}

fn spinner(
    mass: MassProperties,
    w_body: Vec3,
    orientation: Quat,
    mode: GyroscopicMode,
) -> RigidBody {
    RigidBodyBuilder::dynamic()
        .mass_properties(mass)
        .orientation(orientation)
        .angular_velocity_body(w_body)
        .gravity(false)
        .gyroscopic_mode(mode)
        .build()
        .unwrap()
}

fn s5_body(mode: GyroscopicMode) -> RigidBody {
    spinner(s5_box(), Vec3::new(1.0, 2.0, 3.0), Quat::IDENTITY, mode)
}

fn step(body: &mut RigidBody, h: f64) -> Result<(), IntegrationError> {
    let report = integrate_free_body(body, Vec3::ZERO, h)?;
    assert!(report.angular_velocity.converged && report.orientation.converged);
    Ok(())
}

/// Extremes over a run of the relative changes of energy, |L| and the `L` vector.
#[derive(Default)]
struct Drift {
    energy_max: f64,
    energy_min: f64,
    momentum_norm_max: f64,
    momentum_vector_max: f64,
    energy_end: f64,
    momentum_norm_end: f64,
}

fn run_s5(mode: GyroscopicMode) -> Drift {
    let mut body = s5_body(mode);
    let (e0, l0) = (body.rotational_kinetic_energy(), body.angular_momentum());
    let mut drift = Drift::default();
    for _ in 0..S5_STEPS {
        step(&mut body, H).unwrap();
        let energy = body.rotational_kinetic_energy() / e0 - 1.0;
        let norm = body.angular_momentum().length() / l0.length() - 1.0;
        let vector = (body.angular_momentum() - l0).length() / l0.length();
        drift.energy_max = drift.energy_max.max(energy);
        drift.energy_min = drift.energy_min.min(energy);
        drift.momentum_norm_max = drift.momentum_norm_max.max(norm.abs());
        drift.momentum_vector_max = drift.momentum_vector_max.max(vector);
        drift.energy_end = energy;
        drift.momentum_norm_end = norm;
    }
    drift
}

#[test]
fn s5_inertia_is_the_scene_value() {
    let moments = s5_box().principal_moments();
    let expected = [4.0 / 3.0, 20.8 / 3.0, 23.2 / 3.0];
    for (m, e) in moments.iter().zip(expected) {
        assert!((m - e).abs() < 1e-12, "{moments:?}");
    }
}

#[test]
fn none_keeps_world_angular_velocity_but_turns_angular_momentum() {
    // With the term dropped, w+ = w exactly, and the attitude turns about w itself, so
    // w . I w and |I w| are unchanged; L = I w turns with the body, which is unphysical.
    let mut body = s5_body(GyroscopicMode::None);
    let w0 = body.angular_velocity();
    let (e0, l0) = (body.rotational_kinetic_energy(), body.angular_momentum());
    let mut largest_turn: f64 = 0.0;
    for _ in 0..S5_STEPS {
        step(&mut body, H).unwrap();
        assert_eq!(body.angular_velocity(), w0);
        let l = body.angular_momentum();
        assert!((body.rotational_kinetic_energy() / e0 - 1.0).abs() < 1e-12);
        assert!((l.length() / l0.length() - 1.0).abs() < 1e-12);
        largest_turn = largest_turn.max((l - l0).length() / l0.length());
    }
    // Measured: L moves by 45% of its length.
    assert!(largest_turn > 0.3, "L turned by only {largest_turn}");
}

#[test]
fn explicit_gains_energy_every_step_until_it_overflows() {
    // w+ . I w+ = w . I w + h^2 (L x w) . I^-1 (L x w): never less. Measured on S5: x2.06
    // after 1000 steps, x21.6 after 2000, then a pause near a principal-axis spin, and the
    // state overflows at step 2340.
    let mut body = s5_body(GyroscopicMode::Explicit);
    let e0 = body.rotational_kinetic_energy();
    let mut previous = e0;
    let mut failure = None;
    for k in 0..S5_STEPS {
        let before = body.clone();
        if let Err(error) = step(&mut body, H) {
            assert_eq!(body, before, "a refused step must leave the body as it was");
            failure = Some((k, error));
            break;
        }
        let energy = body.rotational_kinetic_energy();
        // Near a principal-axis spin the gain drops below round-off for a while.
        assert!(
            energy >= previous * (1.0 - 1e-14),
            "energy fell at step {k}"
        );
        previous = energy;
        if k == 999 {
            assert!(energy > 2.0 * e0, "only x{} after 1000 steps", energy / e0);
        }
        if k == 1999 {
            assert!(energy > 10.0 * e0, "only x{} after 2000 steps", energy / e0);
        }
    }
    let (k, error) = failure.expect("explicit S5 should overflow within 6000 steps");
    assert!(k > 2000, "overflowed at step {k}");
    assert!(
        matches!(error, IntegrationError::NonFiniteResult { .. }),
        "{error:?}"
    );
    assert!(previous > 1e100 * e0);
}

#[test]
fn implicit_never_gains_energy_and_keeps_momentum_within_two_percent() {
    // The energy bound is exact for every step (see GyroscopicMode::Implicit); |L| grows by
    // h^2 |L x w+|^2 per step instead. Measured on S5 after 6000 steps: energy -2.23%,
    // |L| +0.93%, and the spin has settled about the axis of largest inertia.
    let drift = run_s5(GyroscopicMode::Implicit);
    assert!(
        drift.energy_max <= 1e-9,
        "energy rose by {}",
        drift.energy_max
    );
    assert!(
        drift.momentum_norm_max < 0.02,
        "|L| moved by {}",
        drift.momentum_norm_max
    );
    assert!(
        drift.energy_end < -0.01 && drift.energy_end > -0.05,
        "{}",
        drift.energy_end
    );

    let mut body = s5_body(GyroscopicMode::Implicit);
    let mut previous = body.rotational_kinetic_energy();
    for _ in 0..S5_STEPS {
        step(&mut body, H).unwrap();
        let energy = body.rotational_kinetic_energy();
        assert!(energy <= previous * (1.0 + 1e-13));
        previous = energy;
    }
    let w = body.angular_velocity_body();
    assert!(w.x.abs() < 1e-6 && w.y.abs() < 1e-6 && w.z > 3.0, "{w:?}");
}

#[test]
fn conserving_keeps_energy_momentum_and_its_direction() {
    // Measured on S5 after 6000 steps: energy +3.0e-12, |L| +1.5e-12, L vector 1.5e-12.
    let drift = run_s5(GyroscopicMode::Conserving);
    assert!(drift.energy_max < 1e-9 && drift.energy_min > -1e-9);
    assert!(drift.momentum_norm_max < 1e-9);
    assert!(drift.momentum_vector_max < 1e-9);
    assert!(drift.energy_end.abs() < 1e-6 && drift.momentum_norm_end.abs() < 1e-6);
}

#[test]
fn conserving_newton_converges_in_a_few_iterations() {
    let mut body = s5_body(GyroscopicMode::Conserving);
    for _ in 0..600 {
        let report = integrate_free_body(&mut body, Vec3::ZERO, H).unwrap();
        assert!(report.angular_velocity.converged);
        assert!(report.angular_velocity.iterations <= 4);
        assert!(report.orientation.converged && report.orientation.iterations <= 12);
    }
}

/// First-order Euler equations `W' = I0^-1 ((I0 W) x W)` for a diagonal `I0`, by RK4.
fn reference_flip_times(moments: Vec3, w0: Vec3, h: f64, end: f64) -> Vec<f64> {
    let rhs = |w: Vec3| (moments * w).cross(w) / moments;
    let (mut w, mut t, mut sign, mut flips) = (w0, 0.0, w0.y.signum(), Vec::new());
    while t < end {
        let k1 = rhs(w);
        let k2 = rhs(w + 0.5 * h * k1);
        let k3 = rhs(w + 0.5 * h * k2);
        let k4 = rhs(w + h * k3);
        let next = w + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
        if next.y * sign < 0.0 {
            flips.push(t + h * w.y / (w.y - next.y));
            sign = -sign;
        }
        w = next;
        t += h;
    }
    flips
}

/// Times (s) at which the body-frame y angular velocity changes sign, linearly interpolated,
/// and the most negative y seen.
fn flip_times(mode: GyroscopicMode, w0: Vec3, steps: usize) -> (Vec<f64>, f64) {
    let mut body = spinner(s5_box(), w0, Quat::IDENTITY, mode);
    let (mut flips, mut sign, mut lowest) = (Vec::new(), 1.0, f64::INFINITY);
    for k in 0..steps {
        let y = body.angular_velocity_body().y;
        step(&mut body, H).unwrap();
        let next = body.angular_velocity_body().y;
        lowest = lowest.min(next);
        if next * sign < 0.0 {
            flips.push((k as f64 + y / (y - next)) * H);
            sign = -sign;
        }
    }
    (flips, lowest)
}

#[test]
fn tennis_racket_flip_about_the_intermediate_axis() {
    // Spin about body y (I = 6.93, the intermediate moment) with a 0.5% perturbation: the
    // spin axis turns over, W_y goes from +2 to -2 and back every 11.15 s. Reference: RK4 at
    // h/10 gives the first flips at 6.736 s and 17.888 s.
    let w0 = Vec3::new(0.01, 2.0, 0.01);
    let moments = Vec3::from_array(s5_box().principal_moments());
    let reference = reference_flip_times(moments, w0, H / 10.0, S5_STEPS as f64 * H);
    assert!((reference[0] - 6.736).abs() < 1e-3, "{reference:?}");

    let (flips, lowest) = flip_times(GyroscopicMode::Conserving, w0, S5_STEPS);
    assert!(flips.len() >= 8, "{} flips", flips.len());
    assert!(lowest < -1.999, "W_y only reached {lowest}");
    // Measured: the midpoint rule lags the reference by about 0.005 s per flip.
    for (k, (ours, exact)) in flips.iter().zip(&reference).take(4).enumerate() {
        assert!((ours - exact).abs() < 0.03, "flip {k}: {ours} vs {exact}");
    }

    // The implicit mode dissipates, so its flips come late and shrink, but the first one is
    // a real turn-over (measured: at 8.97 s, W_y down to -1.36).
    let (flips, lowest) = flip_times(GyroscopicMode::Implicit, w0, S5_STEPS);
    assert!(!flips.is_empty() && flips[0] < 12.0, "{flips:?}");
    assert!(lowest < -1.0, "W_y only reached {lowest}");

    // Without the gyroscopic term nothing turns over.
    let (flips, _) = flip_times(GyroscopicMode::None, w0, S5_STEPS);
    assert!(flips.is_empty());
}

/// Error of the Conserving mode against the analytic torque-free symmetric top after `time`.
fn symmetric_top_error(h: f64, time: f64) -> (f64, f64) {
    // Cylinder along z, 1 m long, radius 0.1 m: prolate, I1 = I2 = 2.69, I3 = 0.157 kg m^2.
    let mass = MassProperties::cylinder(0.5, 0.1, 1000.0).unwrap();
    let [i1, _, i3] = [
        mass.inertia().x_axis.x,
        mass.inertia().y_axis.y,
        mass.inertia().z_axis.z,
    ];
    let w0 = Vec3::new(1.0, 0.0, 5.0);
    let tilt = Quat::from_rotation_x(0.3);
    let mut body = spinner(mass, w0, tilt, GyroscopicMode::Conserving);
    let l = body.angular_momentum();
    let axis0 = tilt * Vec3::Z;
    let steps = (time / h).round() as usize;
    for _ in 0..steps {
        step(&mut body, h).unwrap();
    }
    let t = steps as f64 * h;
    // Body frame: (W1, W2) turns at k = (I3 - I1) W3 / I1, W3 constant.
    let k = (i3 - i1) * w0.z / i1;
    let w_exact = Vec3::new(w0.x * (k * t).cos(), w0.x * (k * t).sin(), w0.z);
    // World frame: the symmetry axis precesses about L at |L| / I1.
    let axis_exact = Quat::from_axis_angle(l.normalize(), l.length() / i1 * t) * axis0;
    let w_error = (body.angular_velocity_body() - w_exact).length() / w0.length();
    let axis_error = (body.orientation() * Vec3::Z - axis_exact).length();
    (w_error, axis_error)
}

#[test]
fn symmetric_top_matches_the_analytic_precession_to_second_order() {
    let (w_coarse, axis_coarse) = symmetric_top_error(H, 10.0);
    let (w_fine, axis_fine) = symmetric_top_error(H / 2.0, 10.0);
    // Measured: 4.7e-3 and 1.7e-2 at h = 1/60, both exactly 4.0 times smaller at h/2.
    assert!(
        w_coarse < 1e-2 && axis_coarse < 3e-2,
        "{w_coarse} {axis_coarse}"
    );
    for ratio in [w_coarse / w_fine, axis_coarse / axis_fine] {
        assert!((3.5..4.5).contains(&ratio), "error ratio {ratio} for h/2");
    }
}

fn sample_state() -> (RotationalState, Vec3) {
    let state = RotationalState {
        inertia_body: s5_box()
            .rotated(Quat::from_rotation_y(0.4))
            .unwrap()
            .inertia(),
        orientation: Quat::from_euler(stiction::math::EulerRot::XYZ, 0.3, -0.7, 1.1),
        angular_velocity: Vec3::new(0.5, -2.0, 3.0),
    };
    (state, Vec3::new(4.0, -1.0, 2.5))
}

#[test]
fn equivalent_torque_reproduces_the_step_through_the_solver_update() {
    // The solver applies w+ = w + h I^-1 tau~; with no constraint that must be each mode's w+.
    let (state, torque) = sample_state();
    let inertia = Mat3::from_quat(state.orientation)
        * state.inertia_body
        * Mat3::from_quat(state.orientation).transpose();
    for mode in ALL_MODES {
        let step = angular_velocity_after_step(&state, torque, H, mode).unwrap();
        let equivalent = equivalent_torque(&state, torque, H, mode).unwrap();
        let through_solver = state.angular_velocity + H * (inertia.inverse() * equivalent.total);
        let error = (through_solver - step.angular_velocity).length();
        assert!(
            error < 1e-12 * step.angular_velocity.length(),
            "{mode:?}: {error}"
        );
        assert!((equivalent.total - equivalent.gyroscopic - torque).length() < 1e-12);
    }
    let l = inertia * state.angular_velocity;
    let explicit = equivalent_torque(&state, torque, H, GyroscopicMode::Explicit).unwrap();
    assert_eq!(explicit.gyroscopic, l.cross(state.angular_velocity));
    let none = equivalent_torque(&state, torque, H, GyroscopicMode::None).unwrap();
    assert_eq!(none.total, torque);
}

#[test]
fn conserving_momentum_balance_is_exact_under_constant_torque() {
    // The midpoint body torque (E - h/2 [Wm]x) R^T tau makes L+ = L + h tau hold step by step.
    let (state, torque) = sample_state();
    let mass = MassProperties::new(1.0, Vec3::ZERO, state.inertia_body).unwrap();
    let mut body = RigidBodyBuilder::dynamic()
        .mass_properties(mass)
        .orientation(state.orientation)
        .angular_velocity(state.angular_velocity)
        .gravity(false)
        .gyroscopic_mode(GyroscopicMode::Conserving)
        .build()
        .unwrap();
    let l0 = body.angular_momentum();
    let steps = 600;
    for _ in 0..steps {
        body.add_torque(torque).unwrap();
        step(&mut body, H).unwrap();
    }
    let expected = l0 + steps as f64 * H * torque;
    let error = (body.angular_momentum() - expected).length() / expected.length();
    assert!(error < 1e-11, "relative error {error}");
}

#[test]
fn newton_that_runs_out_of_iterations_falls_back_to_implicit_and_says_so() {
    let (state, torque) = sample_state();
    let starved = ConservingSolver {
        max_iterations: 1,
        ..ConservingSolver::default()
    };
    let step = conserving_step(&state, torque, H, &starved).unwrap();
    assert!(!step.convergence.converged);
    assert_eq!(step.convergence.iterations, 1);
    let implicit =
        angular_velocity_after_step(&state, torque, H, GyroscopicMode::Implicit).unwrap();
    assert_eq!(step.angular_velocity, implicit.angular_velocity);

    let full = conserving_step(&state, torque, H, &ConservingSolver::default()).unwrap();
    assert!(full.convergence.converged && full.convergence.relative_update <= 1e-14);
}

#[test]
fn bad_inputs_are_typed_errors() {
    let (state, torque) = sample_state();
    for h in [0.0, -H, f64::NAN, f64::INFINITY] {
        let result = angular_velocity_after_step(&state, torque, h, GyroscopicMode::Implicit);
        assert!(matches!(
            result,
            Err(IntegrationError::InvalidTimeStep { .. })
        ));
    }
    let result = equivalent_torque(
        &state,
        Vec3::new(f64::NAN, 0.0, 0.0),
        H,
        GyroscopicMode::Conserving,
    );
    assert_eq!(
        result,
        Err(IntegrationError::NonFiniteInput { quantity: "torque" })
    );
    let zero = RotationalState {
        orientation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        ..state
    };
    let result = angular_velocity_after_step(&zero, torque, H, GyroscopicMode::None);
    assert_eq!(
        result,
        Err(IntegrationError::NonFiniteInput {
            quantity: "orientation"
        })
    );
}

#[test]
fn a_torque_free_sphere_or_cube_keeps_its_angular_velocity_exactly_in_every_mode() {
    // `I0 = c E`: `L = c w` is parallel to `w`, Euler's equations give `w' = 0`, and every
    // mode must return `w` itself (the step skips the products that would add round-off).
    let w = Vec3::new(0.7, -3.0, 12.5);
    let orientation = Quat::from_euler(stiction::math::EulerRot::XYZ, 0.3, -0.7, 1.1);
    let cube = MassProperties::cuboid(Vec3::splat(0.5), 800.0).unwrap();
    let sphere = MassProperties::from_principal(2.0, Vec3::splat(0.2)).unwrap();
    for mass in [cube, sphere] {
        let state = RotationalState {
            inertia_body: mass.inertia(),
            orientation,
            angular_velocity: w,
        };
        for mode in ALL_MODES {
            let step = angular_velocity_after_step(&state, Vec3::ZERO, H, mode).unwrap();
            assert_eq!(step.angular_velocity, w, "{mode:?}");
            // A torque still turns it as `w+ = w + h tau / c` in the torque-linear modes.
            let torque = Vec3::new(1.0, -2.0, 0.5);
            let pushed = angular_velocity_after_step(&state, torque, H, GyroscopicMode::None)
                .unwrap()
                .angular_velocity;
            let c = mass.principal_moments()[0];
            assert!((pushed - (w + H * torque / c)).length() < 1e-12 * w.length());
        }
        // The checks still run: a non-finite velocity is refused.
        let bad = RotationalState {
            angular_velocity: Vec3::new(f64::NAN, 0.0, 0.0),
            ..state
        };
        assert!(
            angular_velocity_after_step(&bad, Vec3::ZERO, H, GyroscopicMode::Implicit).is_err()
        );
    }
}
