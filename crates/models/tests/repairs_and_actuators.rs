//! What real robot files need beyond the specification: bodies with several MJCF joints,
//! actuators as servos, repaired inertia tensors, binary STL files that say "solid", and
//! the position servos of the load options.

mod common;

use common::fixture;
use stiction::math::Vec3;
use stiction::World;
use stiction_models::{
    add_str_to_world, read_mesh, ActuatorKind, LoadOptions, ServoGains, WarningKind,
};

const G: f64 = 9.81;
const H: f64 = 1e-3;

fn load_str(
    name: &str,
    text: &str,
    options: &LoadOptions,
) -> (World, stiction_models::LoadedModel) {
    let mut world = World::new();
    let model = add_str_to_world(&mut world, text, &fixture(name), options).unwrap();
    (world, model)
}

/// MuJoCo's hopper roots its torso with three joints (slide x, slide z, hinge y). The
/// chain falls exactly like a free body under gravity along z (only the torso moves in z;
/// the massless-link repair adds mass to the x slide only) and does not drift in x or turn.
#[test]
fn a_body_with_three_joints_falls_like_the_hopper_torso() {
    let text = r#"<mujoco>
  <compiler angle="radian"/>
  <worldbody>
    <body name="torso" pos="0 0 1">
      <joint name="rootx" type="slide" axis="1 0 0"/>
      <joint name="rootz" type="slide" axis="0 0 1"/>
      <joint name="rooty" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 -0.2 0 0 0.2" size="0.05" mass="3"/>
    </body>
  </worldbody>
</mujoco>
"#;
    let (mut world, model) = load_str("hopper.xml", text, &LoadOptions::default());
    assert_eq!(model.joints.len(), 3);
    assert!(model.links.contains_key("torso/rootx") && model.links.contains_key("torso/rootz"));
    let repairs = model
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::Repaired)
        .count();
    assert_eq!(repairs, 3, "{:?}", model.warnings); // the chain, and a mass per link
    let torso = model.links["torso"];
    let steps = 500;
    for _ in 0..steps {
        world.step(H).unwrap();
    }
    // Semi-implicit Euler: z_n = z_0 - g h^2 n (n + 1) / 2.
    let n = steps as f64;
    let expected = 1.0 - G * H * H * n * (n + 1.0) / 2.0;
    let p = world.body(torso).unwrap().position();
    assert!((p.z - expected).abs() < 1e-6, "z {} vs {expected}", p.z);
    assert!(p.x.abs() < 1e-9 && p.y.abs() < 1e-9, "{p:?}");
    let x = world.joint_axis_state(model.joints["rootx"], 0).unwrap();
    let z = world.joint_axis_state(model.joints["rootz"], 0).unwrap();
    let y = world.joint_axis_state(model.joints["rooty"], 0).unwrap();
    assert!((z.position - (expected - 1.0)).abs() < 1e-6);
    assert!(x.position.abs() < 1e-9 && y.position.abs() < 1e-9);
}

/// A horizontal pendulum arm (point-like mass m at L on a hinge about y) held by a position
/// actuator of stiffness kp: it settles where kp q = m g L cos q. With the force range below
/// m g L it cannot hold and settles where m g L cos q = F.
#[test]
fn position_actuators_hold_where_stiffness_balances_gravity() {
    let (m, l) = (2.0, 0.5);
    let arm = |actuator: &str| {
        format!(
            r#"<mujoco>
  <option gravity="0 0 -{G}"/>
  <worldbody>
    <body name="arm">
      <joint name="hinge" axis="0 1 0" damping="5"/>
      <inertial pos="{l} 0 0" mass="{m}" diaginertia="1e-4 1e-4 1e-4"/>
    </body>
  </worldbody>
  <actuator>
    {actuator}
  </actuator>
</mujoco>
"#
        )
    };
    // Stiff enough to hold: the fixed point of q = m g L cos(q) / kp.
    let kp = 40.0;
    let (mut world, model) = load_str(
        "servo.xml",
        &arm(&format!(
            r#"<position name="hold" joint="hinge" kp="{kp}" kv="1"/>"#
        )),
        &LoadOptions::default(),
    );
    world.set_gravity(model.gravity.unwrap()).unwrap();
    let info = &model.actuators["hold"];
    assert_eq!(info.kind, ActuatorKind::Position { kp, kv: 1.0 });
    let servo = model.joint_info["hinge"].servo.unwrap();
    assert_eq!((servo.stiffness, servo.damping), (kp, 1.0));
    for _ in 0..5000 {
        world.step(H).unwrap();
    }
    let mut q = 0.0;
    for _ in 0..100 {
        q = m * G * l * f64::cos(q) / kp;
    }
    let got = world.joint_axis_state(model.joints["hinge"], 0).unwrap();
    assert!((got.position - q).abs() < 1e-6, "{} vs {q}", got.position);

    // A force range of half the weight's torque: the arm sags to cos q = F / (m g L).
    let f = 0.5 * m * G * l;
    let (mut world, model) = load_str(
        "servo.xml",
        &arm(&format!(
            r#"<position joint="hinge" kp="1000" forcerange="-{f} {f}"/>"#
        )),
        &LoadOptions::default(),
    );
    world.set_gravity(model.gravity.unwrap()).unwrap();
    assert_eq!(model.joint_info["hinge"].servo.unwrap().max_force, f);
    // Near the balance the net torque vanishes, so the approach is slow: 12 s.
    for _ in 0..12000 {
        world.step(H).unwrap();
    }
    let got = world.joint_axis_state(model.joints["hinge"], 0).unwrap();
    let expected = (f / (m * G * l)).acos();
    assert!(
        (got.position - expected).abs() < 1e-8,
        "{} vs {expected}",
        got.position
    );
}

/// A velocity actuator with gear 2 drives the joint rate to its target 0 against gravity:
/// gains act on the actuator length, so the joint sees kv gear^2.
#[test]
fn velocity_actuators_scale_with_the_gear() {
    let text = r#"<mujoco>
  <worldbody>
    <body name="wheel">
      <joint name="axle" axis="0 0 1"/>
      <geom type="cylinder" size="0.1 0.02" mass="1"/>
    </body>
  </worldbody>
  <actuator>
    <velocity joint="axle" kv="3" gear="2"/>
  </actuator>
</mujoco>
"#;
    let (mut world, model) = load_str("wheel.xml", text, &LoadOptions::default());
    let servo = model.joint_info["axle"].servo.unwrap();
    assert_eq!((servo.stiffness, servo.damping), (0.0, 12.0));
    // Spin the wheel; the servo (implicit) decays the rate as (1 / (1 + h d / I))^n.
    let wheel = model.links["wheel"];
    let inertia = 0.5 * 1.0 * 0.1 * 0.1;
    world
        .body_mut(wheel)
        .unwrap()
        .set_angular_velocity(Vec3::new(0.0, 0.0, 4.0))
        .unwrap();
    for _ in 0..100 {
        world.step(H).unwrap();
    }
    let rate = world
        .joint_axis_state(model.joints["axle"], 0)
        .unwrap()
        .velocity;
    let expected = 4.0 * (1.0 / (1.0 + H * 12.0 / inertia)).powi(100);
    assert!((rate.abs() - expected).abs() < 1e-9, "{rate} vs {expected}");
}

/// `position_servos` puts a servo on every URDF joint holding its initial value: the held
/// arm's deflection is the gravity torque over the stiffness.
#[test]
fn position_servos_hold_a_urdf_arm_at_its_initial_pose() {
    let options = LoadOptions {
        joint_positions: [("shoulder".to_string(), 0.3), ("elbow".to_string(), -0.4)].into(),
        position_servos: Some(ServoGains {
            stiffness: 1e6,
            damping: 1e4,
        }),
        ..LoadOptions::default()
    };
    let (mut world, model) = stiction_models::load(fixture("arm.urdf"), &options).unwrap();
    for (name, q0) in [("shoulder", 0.3), ("elbow", -0.4)] {
        let servo = model.joint_info[name].servo.unwrap();
        assert_eq!((servo.target_position, servo.stiffness), (q0, 1e6));
    }
    for _ in 0..2000 {
        world.step(H).unwrap();
    }
    for (name, q0) in [("shoulder", 0.3), ("elbow", -0.4)] {
        let q = world
            .joint_axis_state(model.joints[name], 0)
            .unwrap()
            .position;
        // Gravity torques of this arm are below 40 N m: deflections below 4e-5 rad.
        assert!((q - q0).abs() < 4e-5, "{name}: {q} vs {q0}");
        assert!((q - q0).abs() > 0.0, "{name}: a finite stiffness deflects");
    }
}

/// Inertia tensors as exporters write them: principal moments breaking the triangle
/// inequality, a placeholder of round-off negative moments and a clearly wrong tensor are
/// repaired by the smallest isotropic addition, with a warning.
#[test]
fn inertia_tensors_are_repaired_or_refused() {
    let robot = |inertia: &str| {
        format!(
            r#"<robot name="r">
  <link name="base"/>
  <link name="l">
    <inertial><mass value="0.05"/><inertia {inertia}/></inertial>
  </link>
  <joint name="j" type="revolute">
    <parent link="base"/>
    <child link="l"/>
    <axis xyz="0 0 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
</robot>
"#
        )
    };
    // A zero axis on a moving joint is an error.
    let mut world = World::new();
    let text = robot(r#"ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001""#);
    let err = add_str_to_world(
        &mut world,
        &text,
        &fixture("r.urdf"),
        &LoadOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("a non-zero direction"), "{err}");

    let text = robot(r#"ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.01""#)
        .replace(r#"<axis xyz="0 0 0"/>"#, r#"<axis xyz="0 0 1"/>"#);
    let (world, model) = load_str("r.urdf", &text, &LoadOptions::default());
    let w = model
        .warnings
        .iter()
        .find(|w| w.kind == WarningKind::Repaired)
        .expect("a repair warning");
    assert!(w.message.contains("triangle"), "{w}");
    let [a, b, c] = world
        .body(model.links["l"])
        .unwrap()
        .mass_properties()
        .principal_moments();
    // Raised by delta = 0.008 each: 0.009 + 0.009 = 0.018 >= 0.018.
    assert!((a - 0.009).abs() < 1e-9 && (b - 0.009).abs() < 1e-9 && (c - 0.018).abs() < 1e-9);

    let text = robot(r#"ixx="1e-22" ixy="0" ixz="0" iyy="-4e-22" iyz="0" izz="0""#)
        .replace(r#"<axis xyz="0 0 0"/>"#, r#"<axis xyz="0 0 1"/>"#);
    let (world, model) = load_str("r.urdf", &text, &LoadOptions::default());
    let moments = world
        .body(model.links["l"])
        .unwrap()
        .mass_properties()
        .principal_moments();
    // A point mass: every moment raised to m (1 mm)^2.
    assert!(
        moments.iter().all(|m| (m - 0.05e-6).abs() < 1e-12),
        "{moments:?}"
    );

    // A clearly negative moment (a wrong tensor) is repaired too: -0.001 is raised to the
    // floor m (1 mm)^2 = 5e-8, the others by as much.
    let text = robot(r#"ixx="-0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001""#)
        .replace(r#"<axis xyz="0 0 0"/>"#, r#"<axis xyz="0 0 1"/>"#);
    let (world, model) = load_str("r.urdf", &text, &LoadOptions::default());
    let [a, b, c] = world
        .body(model.links["l"])
        .unwrap()
        .mass_properties()
        .principal_moments();
    let raised = 0.002 + 5e-8;
    assert!((a - 5e-8).abs() < 1e-11 && (b - raised).abs() < 1e-11 && (c - raised).abs() < 1e-11);
    assert!(model
        .warnings
        .iter()
        .any(|w| w.kind == WarningKind::Repaired));
    // A fixed joint's zero axis means nothing and is accepted.
    let text = robot(r#"ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001""#)
        .replace(r#"type="revolute""#, r#"type="fixed""#);
    load_str("r.urdf", &text, &LoadOptions::default());
}

/// A binary STL whose header begins with "solid" (as SolidWorks writes them) is read as
/// binary, not refused as broken ASCII.
#[test]
fn binary_stl_with_a_solid_header_is_read() {
    let cube: [[f32; 3]; 8] = [
        [-0.5, -0.5, -0.5],
        [0.5, -0.5, -0.5],
        [0.5, 0.5, -0.5],
        [-0.5, 0.5, -0.5],
        [-0.5, -0.5, 0.5],
        [0.5, -0.5, 0.5],
        [0.5, 0.5, 0.5],
        [-0.5, 0.5, 0.5],
    ];
    let faces: [[usize; 3]; 12] = [
        [0, 2, 1],
        [0, 3, 2],
        [4, 5, 6],
        [4, 6, 7],
        [0, 1, 5],
        [0, 5, 4],
        [2, 3, 7],
        [2, 7, 6],
        [1, 2, 6],
        [1, 6, 5],
        [0, 4, 7],
        [0, 7, 3],
    ];
    let mut bytes = b"solid exported by a CAD tool".to_vec();
    bytes.resize(80, b' ');
    bytes.extend_from_slice(&(faces.len() as u32).to_le_bytes());
    for f in faces {
        bytes.extend_from_slice(&[0u8; 12]);
        for v in f {
            for x in cube[v] {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
        }
        bytes.extend_from_slice(&[0u8; 2]);
    }
    let dir = std::env::temp_dir().join(format!("stiction-stl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cube.stl");
    std::fs::write(&path, &bytes).unwrap();
    let (vertices, triangles) = read_mesh(&path, Vec3::splat(2.0)).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!((vertices.len(), triangles.len()), (36, 12));
    let max = vertices
        .iter()
        .fold(Vec3::splat(f64::MIN), |m, v| m.max(*v));
    let min = vertices
        .iter()
        .fold(Vec3::splat(f64::MAX), |m, v| m.min(*v));
    assert_eq!((min, max), (Vec3::splat(-1.0), Vec3::splat(1.0)));
}

/// Links overlapping in the initial pose are kept from colliding, with the shapes where the
/// engine sees them: a URDF cylinder stands along z (parry builds it along y). A box inside
/// the base's upright cylinder, two joints away, is such a pair; laid along y the cylinder
/// would miss it.
#[test]
fn links_overlapping_an_upright_cylinder_are_kept_from_colliding() {
    let inertial = r#"<inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>"#;
    let text = format!(
        r#"<robot name="r">
  <link name="base">
    <collision><geometry><cylinder radius="0.05" length="0.4"/></geometry></collision>
  </link>
  <link name="arm">{inertial}</link>
  <link name="tip">{inertial}
    <collision><geometry><box size="0.04 0.04 0.04"/></geometry></collision>
  </link>
  <joint name="shoulder" type="continuous">
    <parent link="base"/><child link="arm"/><origin xyz="0.3 0 0"/>
  </joint>
  <joint name="wrist" type="continuous">
    <parent link="arm"/><child link="tip"/><origin xyz="-0.3 0 0.15"/>
  </joint>
</robot>
"#
    );
    let (_, model) = load_str("r.urdf", &text, &LoadOptions::default());
    let (base, tip) = (model.links["base"], model.links["tip"]);
    let pair = if base <= tip {
        (base, tip)
    } else {
        (tip, base)
    };
    assert!(
        model.excluded_pairs.contains(&pair),
        "{:?}",
        model.excluded_pairs
    );
    let warning = model
        .warnings
        .iter()
        .find(|w| w.message.contains("overlap in the initial pose"))
        .expect("an overlap warning");
    assert!(warning.message.contains("base-tip"), "{warning}");
}
