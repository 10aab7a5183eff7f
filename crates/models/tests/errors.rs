//! Every error kind names the file, line and column of what is wrong; every warning kind
//! is produced with its location; a refused model leaves the world untouched.

mod common;

use std::path::Path;

use common::fixture;
use stiction::World;
use stiction_models::{add_str_to_world, add_to_world, load, LoadOptions, ModelError, WarningKind};

/// 1-based line and column of the first `needle` in `text`.
fn position_of(text: &str, needle: &str) -> (u32, u32) {
    let offset = text.find(needle).expect("the needle is in the text");
    let before = &text[..offset];
    let line = before.matches('\n').count() as u32 + 1;
    let column = before.rsplit('\n').next().unwrap().chars().count() as u32 + 1;
    (line, column)
}

/// Loads `text` as the file `name` in the fixtures folder (for mesh paths).
fn refuse(name: &str, text: &str) -> ModelError {
    let mut world = World::new();
    let err = add_str_to_world(&mut world, text, &fixture(name), &LoadOptions::default())
        .expect_err("the model is refused");
    assert_eq!(world.body_count(), 0, "a refused model adds nothing");
    err
}

/// Asserts `err` is located at `needle` and its message starts with `name:line:col:`.
fn assert_at(err: &ModelError, name: &str, text: &str, needle: &str) {
    let (line, column) = position_of(text, needle);
    let at = err.location().expect("located");
    assert_eq!((at.line, at.column), (line, column), "{err}");
    let message = err.to_string();
    let prefix = format!("{}:{line}:{column}: ", fixture(name).display());
    assert!(message.starts_with(&prefix), "{message}");
}

/// A model's text, where the error must point, and whether it is the right kind.
type Case<T> = (T, &'static str, fn(&ModelError) -> bool);

const ROBOT_START: &str = "<robot name=\"r\">\n  <link name=\"a\">\n    <inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>\n  </link>\n";

fn robot(body: &str) -> String {
    format!("{ROBOT_START}{body}</robot>\n")
}

fn link(name: &str) -> String {
    format!("  <link name=\"{name}\">\n    <inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>\n  </link>\n")
}

#[test]
fn every_urdf_error_is_located() {
    let cases: Vec<Case<String>> = vec![
        (
            "<robot name=\"r\">\n  <link name=\"a\">\n</robot>\n".into(),
            "</robot>",
            |e| matches!(e, ModelError::Xml { .. }),
        ),
        (
            "<scene>\n</scene>\n".into(),
            "<scene>",
            |e| matches!(e, ModelError::UnknownFormat { .. }),
        ),
        (
            robot("  <link>\n  </link>\n"),
            "<link>",
            |e| matches!(e, ModelError::Missing { .. }),
        ),
        (
            robot("  <link name=\"b\">\n    <collision><geometry><box size=\"1 2\"/></geometry></collision>\n  </link>\n"),
            "size=",
            |e| matches!(e, ModelError::BadValue { .. }),
        ),
        (
            robot(&format!("{}  <joint name=\"j\" type=\"fixed\">\n    <parent link=\"nowhere\"/>\n    <child link=\"b\"/>\n  </joint>\n", link("b"))),
            "link=\"nowhere\"",
            |e| matches!(e, ModelError::UnknownReference { .. }),
        ),
        (
            robot(&link("a")),
            "<link name=\"a\">\n    <inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>\n  </link>\n</robot>",
            |e| matches!(e, ModelError::Structure { .. }),
        ),
        (
            robot(&format!("{}  <joint name=\"j\" type=\"planar\">\n    <parent link=\"a\"/>\n    <child link=\"b\"/>\n  </joint>\n", link("b"))),
            "type=\"planar\"",
            |e| matches!(e, ModelError::Unsupported { .. }),
        ),
        (
            robot("  <link name=\"b\">\n    <collision><geometry><mesh filename=\"package://nowhere/m.stl\"/></geometry></collision>\n  </link>\n"),
            "filename=",
            |e| matches!(e, ModelError::MeshNotFound { .. }),
        ),
        (
            robot("  <link name=\"b\">\n    <collision><geometry><mesh filename=\"meshes/unsupported.ply\"/></geometry></collision>\n  </link>\n"),
            "filename=",
            |e| matches!(e, ModelError::Mesh { .. }),
        ),
        (
            robot("  <link name=\"b\">\n    <inertial><mass value=\"-1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>\n  </link>\n"),
            "value=\"-1\"",
            |e| matches!(e, ModelError::BadValue { .. }),
        ),
    ];
    for (text, needle, is_kind) in cases {
        let err = refuse("inline.urdf", &text);
        assert!(is_kind(&err), "wrong kind: {err}");
        assert_at(&err, "inline.urdf", &text, needle);
    }
    // A massless link moved by a joint is given a small mass, with a warning at the link.
    let text = robot("  <link name=\"b\"/>\n  <joint name=\"j\" type=\"revolute\">\n    <parent link=\"a\"/>\n    <child link=\"b\"/>\n  </joint>\n");
    let mut world = World::new();
    let model = add_str_to_world(
        &mut world,
        &text,
        &fixture("inline.urdf"),
        &LoadOptions::default(),
    )
    .unwrap();
    let (line, column) = position_of(&text, "<link name=\"b\"/>");
    let repaired = model
        .warnings
        .iter()
        .find(|w| w.kind == WarningKind::Repaired)
        .expect("a repair warning");
    assert_eq!((repaired.at.line, repaired.at.column), (line, column));
    let a_mass = world.body(model.links["a"]).unwrap().mass_properties();
    let b_mass = world.body(model.links["b"]).unwrap().mass_properties();
    assert!(
        (b_mass.mass() - 1e-3 * a_mass.mass()).abs() < 1e-15,
        "{repaired}"
    );
}

#[test]
fn every_mjcf_error_is_located() {
    let cases: Vec<Case<&str>> = vec![
        (
            "<mujoco>\n  <worldbody>\n    <body>\n      <geom type=\"ellipsoid\" size=\"1 2 3\"/>\n    </body>\n  </worldbody>\n</mujoco>\n",
            "type=\"ellipsoid\"",
            |e| matches!(e, ModelError::Unsupported { .. }),
        ),
        (
            "<mujoco>\n  <worldbody>\n    <body>\n      <joint/>\n      <freejoint/>\n      <geom size=\"1\"/>\n    </body>\n  </worldbody>\n</mujoco>\n",
            "<freejoint/>",
            |e| matches!(e, ModelError::Unsupported { .. }),
        ),
        (
            "<mujoco>\n  <worldbody>\n    <body>\n      <joint name=\"j\"/>\n      <geom size=\"1\"/>\n    </body>\n  </worldbody>\n  <actuator>\n    <position joint=\"nothing\"/>\n  </actuator>\n</mujoco>\n",
            "<position joint=",
            |e| matches!(e, ModelError::UnknownReference { .. }),
        ),
        (
            "<mujoco>\n  <option timestep=\"-1\"/>\n</mujoco>\n",
            "timestep=",
            |e| matches!(e, ModelError::BadValue { .. }),
        ),
        (
            "<mujoco>\n  <worldbody>\n    <geom class=\"nothing\" size=\"1\"/>\n  </worldbody>\n</mujoco>\n",
            "class=",
            |e| matches!(e, ModelError::UnknownReference { .. }),
        ),
        (
            "<mujoco>\n  <worldbody>\n    <geom type=\"mesh\" mesh=\"missing\"/>\n  </worldbody>\n</mujoco>\n",
            "mesh=",
            |e| matches!(e, ModelError::UnknownReference { .. }),
        ),
        (
            "<mujoco>\n  <compiler angle=\"gradian\"/>\n</mujoco>\n",
            "angle=",
            |e| matches!(e, ModelError::BadValue { .. }),
        ),
        (
            "<mujoco>\n  <worldbody>\n    <body>\n      <joint range=\"10\"/>\n      <geom size=\"1\"/>\n    </body>\n  </worldbody>\n</mujoco>\n",
            "range=",
            |e| matches!(e, ModelError::BadValue { .. }),
        ),
        (
            "<mujoco>\n  <worldbody>\n    <body>\n      <body>\n        <freejoint/>\n        <geom size=\"1\"/>\n      </body>\n    </body>\n  </worldbody>\n</mujoco>\n",
            "<freejoint/>",
            |e| matches!(e, ModelError::Unsupported { .. }),
        ),
        (
            "<mujoco>\n  <asset>\n    <mesh name=\"m\" file=\"absent.stl\"/>\n  </asset>\n  <worldbody>\n    <geom type=\"mesh\" mesh=\"m\"/>\n  </worldbody>\n</mujoco>\n",
            "file=",
            |e| matches!(e, ModelError::MeshNotFound { .. }),
        ),
        (
            "<mujoco>\n  <worldbody>\n    <body>\n      <joint/>\n      <geom type=\"plane\"/>\n    </body>\n  </worldbody>\n</mujoco>\n",
            "<body>",
            |e| matches!(e, ModelError::Physics { .. }),
        ),
    ];
    for (text, needle, is_kind) in cases {
        let err = refuse("inline.xml", text);
        assert!(is_kind(&err), "wrong kind: {err}");
        assert_at(&err, "inline.xml", text, needle);
    }
}

#[test]
fn file_and_option_errors_say_what() {
    let err = load(Path::new("no/such/robot.urdf"), &LoadOptions::default()).unwrap_err();
    assert!(matches!(err, ModelError::Read { .. }));
    assert!(
        err.to_string()
            .starts_with("no/such/robot.urdf: cannot read"),
        "{err}"
    );
    let mut options = LoadOptions::default();
    options.joint_positions.insert("knee".into(), 0.3);
    let mut world = World::new();
    let err = add_to_world(&mut world, fixture("arm.urdf"), &options).unwrap_err();
    assert!(matches!(err, ModelError::Options { .. }));
    assert!(err.to_string().contains("\"knee\""), "{err}");
    assert_eq!(world.body_count(), 0);
}

#[test]
fn every_warning_kind_is_located() {
    let text = "<robot name=\"r\" colour=\"red\">\n  <link name=\"a\">\n    <visual><geometry><sphere radius=\"1\"/></geometry></visual>\n    <inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>\n  </link>\n  <link name=\"b\">\n    <inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>\n  </link>\n  <joint name=\"j\" type=\"revolute\">\n    <parent link=\"a\"/>\n    <child link=\"b\"/>\n    <limit lower=\"-1\" upper=\"1\" effort=\"5\" velocity=\"2\"/>\n    <dynamics damping=\"0.1\" friction=\"0.2\"/>\n    <mimic joint=\"k\"/>\n  </joint>\n  <gazebo/>\n</robot>\n";
    let mut world = World::new();
    let model = add_str_to_world(
        &mut world,
        text,
        &fixture("inline.urdf"),
        &LoadOptions::default(),
    )
    .unwrap();
    let expect = [
        (WarningKind::IgnoredAttribute, "colour="),
        (WarningKind::Visual, "<visual>"),
        (WarningKind::NotSimulated, "velocity="),
        (WarningKind::NotSimulated, "<mimic"),
        (WarningKind::IgnoredElement, "<gazebo/>"),
    ];
    for (kind, needle) in expect {
        let (line, column) = position_of(text, needle);
        let found = model
            .warnings
            .iter()
            .find(|w| w.kind == kind && w.at.line == line && w.at.column == column);
        let w =
            found.unwrap_or_else(|| panic!("no {kind:?} at {line}:{column}: {:?}", model.warnings));
        let shown = w.to_string();
        assert!(
            shown.contains(&format!("inline.urdf:{line}:{column}: warning: ")),
            "{shown}"
        );
    }
    assert_eq!(model.warnings.len(), expect.len(), "{:?}", model.warnings);
    // Joint friction and damping are simulated: rows of the joint's axis.
    let info = &model.joint_info["j"];
    assert_eq!(
        (info.friction, info.damping, info.effort),
        (0.2, 0.1, Some(5.0))
    );
    let joint = world.joint(model.joints["j"]).unwrap();
    let dynamics = joint.axis_dynamics(0).unwrap();
    assert_eq!((dynamics.friction, dynamics.damping), (0.2, 0.1));
    assert!(dynamics.servo.is_none());
}
