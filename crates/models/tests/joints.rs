//! Prismatic joints, joint friction, floating joints and base options, checked against
//! the statics and free-fall kinematics they must reproduce.

mod common;

use std::path::Path;

use common::fixture;
use stiction::{BodyKind, World};
use stiction_models::{add_str_to_world, load, Base, LoadOptions, ModelError};

const MASS: f64 = 3.0;

/// A 3 kg carriage on a vertical prismatic joint 1 m up, stops at -0.5 and +0.2 m,
/// `friction` N of joint friction.
fn lift(friction: f64) -> String {
    format!(
        r#"<robot name="lift">
  <link name="frame"/>
  <joint name="lift" type="prismatic">
    <parent link="frame"/>
    <child link="carriage"/>
    <origin xyz="0 0 1"/>
    <axis xyz="0 0 1"/>
    <limit lower="-0.5" upper="0.2" effort="1000" velocity="1"/>
    <dynamics friction="{friction}"/>
  </joint>
  <link name="carriage">
    <inertial>
      <origin xyz="0.1 0 0"/>
      <mass value="{MASS}"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>
    </inertial>
  </link>
</robot>
"#
    )
}

fn load_lift(friction: f64, options: &LoadOptions) -> (World, stiction_models::LoadedModel) {
    let mut world = World::new();
    let model =
        add_str_to_world(&mut world, &lift(friction), Path::new("lift.urdf"), options).unwrap();
    (world, model)
}

#[test]
fn held_slider_carries_the_weight_and_falls_onto_its_stop_when_free() {
    let options = LoadOptions {
        hold_joints: true,
        ..LoadOptions::default()
    };
    let (mut world, model) = load_lift(0.0, &options);
    let g = -world.settings().gravity.z;
    let lift = model.joints["lift"];
    world.step(1e-3).unwrap();
    let held = world.joint(lift).unwrap().feedback().motor[0];
    assert!((held - MASS * g).abs() < 1e-9 * MASS * g, "motor {held} N");

    // Unheld, it drops 0.5 m onto its lower stop (in 0.32 s), which then carries the
    // weight: to 1 %, the stop being soft (the world's ERP and CFM) as it settles.
    let (mut world, model) = load_lift(0.0, &LoadOptions::default());
    let lift = model.joints["lift"];
    for _ in 0..3000 {
        world.step(1e-3).unwrap();
    }
    let state = world.joint_axis_state(lift, 0).unwrap();
    assert!((state.position + 0.5).abs() < 1e-4, "at {}", state.position);
    let stop = world.joint(lift).unwrap().feedback().limit[0];
    assert!((stop - MASS * g).abs() < 1e-2 * MASS * g, "stop {stop} N");
}

#[test]
fn joint_friction_sticks_below_its_bound_and_slips_above() {
    // 40 N of friction holds 29.4 N of weight: no creep at all over 2 s.
    let (mut world, model) = load_lift(40.0, &LoadOptions::default());
    let carriage = model.links["carriage"];
    let z0 = world.body(carriage).unwrap().position().z;
    for _ in 0..2000 {
        world.step(1e-3).unwrap();
    }
    let z = world.body(carriage).unwrap().position().z;
    assert!((z - z0).abs() < 1e-9, "crept {} m", z - z0);

    // 20 N does not: it slides down at g - 20 / 3 m/s^2.
    let (mut world, model) = load_lift(20.0, &LoadOptions::default());
    let g = -world.settings().gravity.z;
    let lift = model.joints["lift"];
    let steps = 200;
    for _ in 0..steps {
        world.step(1e-3).unwrap();
    }
    let expected = -(g - 20.0 / MASS) * steps as f64 * 1e-3;
    let v = world.joint_axis_state(lift, 0).unwrap().velocity;
    assert!(
        (v - expected).abs() < 1e-6 * expected.abs(),
        "{v} m/s, expected {expected}"
    );
}

#[test]
fn floating_joints_and_bases_free_their_links() {
    // A floating joint: the child is a free body, falling as one.
    let text = r#"<robot name="r">
  <link name="a"/>
  <joint name="f" type="floating">
    <parent link="a"/>
    <child link="b"/>
    <origin xyz="0 0 3"/>
  </joint>
  <link name="b">
    <inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
  </link>
</robot>
"#;
    let mut world = World::new();
    let model = add_str_to_world(
        &mut world,
        text,
        Path::new("r.urdf"),
        &LoadOptions::default(),
    )
    .unwrap();
    assert!(model.joints.is_empty());
    assert!(model.joint_info["f"].handle.is_none());
    let b = model.links["b"];
    let g = -world.settings().gravity.z;
    let (h, n) = (1e-3, 500);
    for _ in 0..n {
        world.step(h).unwrap();
    }
    let fallen = 3.0 - world.body(b).unwrap().position().z;
    let t = n as f64 * h;
    assert!(
        (fallen - g * t * t / 2.0).abs() < g * h * t,
        "fell {fallen} m"
    );

    // The MJCF box floats by its free joint; a fixed base makes it static.
    let options = LoadOptions {
        base: Base::Fixed,
        ..LoadOptions::default()
    };
    let (world, model) = load(fixture("drop.xml"), &options).unwrap();
    assert_eq!(
        world.body(model.links["box"]).unwrap().kind(),
        BodyKind::Static
    );
    // A floating base needs a mass: the double pendulum's base link has none.
    let options = LoadOptions {
        base: Base::Floating,
        ..LoadOptions::default()
    };
    let err = load(fixture("double_pendulum.urdf"), &options).unwrap_err();
    assert!(matches!(err, ModelError::Physics { .. }), "{err}");
    assert!(err.to_string().contains("floating base"), "{err}");
}

#[test]
fn excluded_links_never_touch() {
    // The pendulum's upper and lower links are jointed; add the base and lower pair, and
    // an unknown name is refused.
    let mut options = LoadOptions::default();
    options
        .excluded_links
        .push(("base".to_string(), "lower".to_string()));
    let (_, model) = load(fixture("double_pendulum.urdf"), &options).unwrap();
    let (base, lower) = (model.links["base"], model.links["lower"]);
    assert!(model
        .excluded_pairs
        .iter()
        .any(|&p| p == (base, lower) || p == (lower, base)));
    options
        .excluded_links
        .push(("base".to_string(), "gripper".to_string()));
    let err = load(fixture("double_pendulum.urdf"), &options).unwrap_err();
    assert!(matches!(err, ModelError::Options { .. }), "{err}");
}
