//! `[[models]]` in scene files: a robot model (URDF, MJCF) loaded beside the scene's own
//! bodies, placed by `position` and `orientation`, posed by `joints`, held by `hold`. The
//! held two-link arm's joint torques are the analytic gravity torques; two copies of one
//! model (with prefixes) both load, and neither copy's adjacent links collide, because one
//! contact filter holds every model's pairs; the loader's warnings are `warning: ` lines
//! and its errors name the scene's field and the model's line and column. A run of a model
//! file writes a scene.json that `render RUN_DIR` and `--resume` read back; `bench` times
//! models and scenes with models.

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use common::{column, output, read_csv, stiction, success, texts};
use stiction::math::Vec3;
use stiction::BodyHandle;
use stiction_cli::scene::parse::{parse_scene, Format};
use stiction_cli::scene::{check_and_build, BuiltScene, Geometry};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Builds the TOML `text` as a scene file in the fixtures folder.
fn build(text: &str) -> BuiltScene {
    let path = fixture("scene.toml");
    let file = parse_scene(text, Format::Toml, &path).unwrap_or_else(|e| panic!("{e}"));
    check_and_build(&file, &path).unwrap_or_else(|e| panic!("{e}"))
}

/// Gravity torques of two_link.urdf (shoulder, elbow), N m: links of 2 kg and 1 kg, the
/// first 0.6 m long with its centre at 0.3 m, the second's centre 0.25 m from the elbow;
/// angles from the horizontal, positive up.
fn gravity_torques(g: f64, q1: f64, q2: f64) -> [f64; 2] {
    let (m1, m2, l1, c1, c2) = (2.0, 1.0, 0.6, 0.3, 0.25);
    let elbow = m2 * g * c2 * (q1 + q2).cos();
    [g * (m1 * c1 + m2 * l1) * q1.cos() + elbow, elbow]
}

fn held_arm_scene(q1: f64, q2: f64) -> String {
    format!(
        r#"
name = "held-arm"

[world]
step = 0.001
cfm = 1e-12

[[bodies]]
name = "ground"
kind = "static"
shapes = [{{ type = "plane" }}]

[[bodies]]
name = "crate"
position = [-1.0, 0.5, 0.2]
shapes = [{{ type = "box", half_extents = [0.2, 0.2, 0.2] }}]

[[models]]
file = "two_link.urdf"
prefix = "arm/"
position = [0.5, -0.5, 1.0]
axis_angle = {{ axis = [0.0, 0.0, 1.0], degrees = 30.0 }}
base = "fixed"
hold = true
joints = {{ shoulder = {q1}, elbow = {q2} }}
"#
    )
}

#[test]
fn a_held_arm_in_a_scene_carries_the_analytic_gravity_torques() {
    let mut worst: f64 = 0.0;
    for (q1, q2) in [(0.0, 0.0), (0.4, -0.9), (-0.7, 1.3), (1.1, 0.2)] {
        let mut scene = build(&held_arm_scene(q1, q2));
        // The model's bodies (by prefixed link name), then the scene's.
        let names: Vec<&str> = scene.bodies.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(
            names,
            ["arm/mount", "arm/upper", "arm/lower", "ground", "crate"]
        );
        let joint_names: Vec<&str> = scene.joints.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(joint_names, ["arm/shoulder", "arm/elbow"]);
        assert_eq!(scene.models.len(), 1);
        // Placed by the entry's pose: the shoulder 0.2 m above the mount at (0.5, -0.5, 1).
        let upper = scene.bodies[1].handle;
        let centre = scene.world.body(upper).unwrap().position();
        let along = Vec3::new(30f64.to_radians().cos(), 30f64.to_radians().sin(), 0.0);
        let expected = Vec3::new(0.5, -0.5, 1.2)
            + 0.3 * q1.cos() * along
            + Vec3::new(0.0, 0.0, 0.3 * q1.sin());
        assert!(
            (centre - expected).length() < 1e-9,
            "{centre} vs {expected}"
        );

        scene.world.step(scene.h).unwrap();
        let g = -scene.world.settings().gravity.z;
        for (joint, tau) in scene.joints.iter().zip(gravity_torques(g, q1, q2)) {
            let got = scene.world.joint(joint.handle).unwrap().feedback().motor[0];
            worst = worst.max((got - tau).abs() / tau.abs());
            assert!(
                (got - tau).abs() <= 1e-6 * tau.abs(),
                "q = ({q1}, {q2}) {}: {got} N m, expected {tau} N m",
                joint.name
            );
        }
        // The scene's own box is there and rests on the ground.
        let crate_ = scene.world.body(scene.bodies[4].handle).unwrap();
        assert!((crate_.position().z - 0.2).abs() < 1e-3);
    }
    eprintln!("held arm in a scene: worst relative gravity-torque error {worst:.1e}");
}

fn two_arms_scene() -> String {
    // Released (not held) from a bent pose, both arms swing down through their own links.
    r#"
[world]
step = 0.004

[[bodies]]
name = "ground"
kind = "static"
shapes = [{ type = "plane" }]

[[models]]
file = "two_link.urdf"
prefix = "left/"
position = [0.0, 1.0, 1.0]
joints = { shoulder = 0.3, elbow = -2.2 }

[[models]]
file = "two_link.urdf"
prefix = "right/"
position = [0.0, -1.0, 1.0]
axis_angle = { axis = [0.0, 0.0, 1.0], degrees = 180.0 }
joints = { shoulder = 0.3, elbow = -2.2 }
"#
    .to_string()
}

/// The pairs of distinct bodies touching in the contacts of the last step.
fn touching(scene: &BuiltScene) -> HashSet<(BodyHandle, BodyHandle)> {
    scene
        .world
        .contacts()
        .iter()
        .filter_map(|c| match c.geometry.bodies {
            [Some(a), Some(b)] => Some((a.min(b), a.max(b))),
            _ => None,
        })
        .collect()
}

#[test]
fn two_copies_of_a_model_load_and_their_adjacent_links_do_not_collide() {
    let mut scene = build(&two_arms_scene());
    let names: Vec<&str> = scene.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "left/mount",
            "left/upper",
            "left/lower",
            "right/mount",
            "right/upper",
            "right/lower",
            "ground"
        ]
    );
    assert_eq!(scene.models.len(), 2);
    let handle = |name: &str| scene.bodies.iter().find(|b| b.name == name).unwrap().handle;
    let position = |s: &BuiltScene, name: &str| s.world.body(handle(name)).unwrap().position();
    // The two copies sit where their entries put them: mirrored through the z axis.
    let (left, right) = (
        position(&scene, "left/upper"),
        position(&scene, "right/upper"),
    );
    assert!((left.y - 1.0).abs() < 1e-12 && (right.y + 1.0).abs() < 1e-12);
    assert!((left.x + right.x).abs() < 1e-12 && left.x > 0.0);
    // Adjacent links of each copy, ordered as `touching` orders pairs.
    let adjacent: Vec<(BodyHandle, BodyHandle)> = [
        ("left/mount", "left/upper"),
        ("left/upper", "left/lower"),
        ("right/mount", "right/upper"),
        ("right/upper", "right/lower"),
    ]
    .iter()
    .map(|(a, b)| {
        let (a, b) = (handle(a), handle(b));
        (a.min(b), a.max(b))
    })
    .collect();
    let excluded: HashSet<_> = scene
        .excluded_pairs
        .iter()
        .map(|&(a, b)| (a.min(b), a.max(b)))
        .collect();
    for pair in &adjacent {
        assert!(excluded.contains(pair), "{pair:?} not excluded");
    }

    // The same world without the hook: the elbows' overlapping boxes touch in both copies,
    // so the filter is what keeps them apart.
    let mut unfiltered = scene.clone();
    unfiltered.world.clear_contact_hook();
    unfiltered.world.step(unfiltered.h).unwrap();
    let touched = touching(&unfiltered);
    for (a, b) in [("left/upper", "left/lower"), ("right/upper", "right/lower")] {
        let pair = (handle(a).min(handle(b)), handle(a).max(handle(b)));
        assert!(touched.contains(&pair), "{a} and {b} overlap: {touched:?}");
    }

    let start_lower = position(&scene, "left/lower");
    for step in 0..250 {
        scene.world.step(scene.h).unwrap();
        let touched = touching(&scene);
        for pair in &adjacent {
            assert!(!touched.contains(pair), "step {step}: {pair:?} collide");
        }
    }
    // The arms did swing (the test saw motion, not a frozen pose).
    let moved = (position(&scene, "left/lower") - start_lower).length();
    assert!(moved > 0.1, "the lower link moved {moved} m");
    assert!(scene.world.max_joint_anchor_separation() < 1e-3);
}

/// Writes the scene `text` next to a copy of the fixture model, runs `ARGS... scene.toml`
/// and returns the output and the folder.
fn run_scene(text: &str, args: &[&str]) -> (std::process::Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("robots")).unwrap();
    std::fs::copy(
        fixture("two_link.urdf"),
        dir.path().join("robots/two_link.urdf"),
    )
    .unwrap();
    std::fs::write(dir.path().join("scene.toml"), text).unwrap();
    let out = output(
        stiction()
            .current_dir(dir.path())
            .args(args)
            .arg("scene.toml"),
    );
    (out, dir)
}

#[test]
fn model_errors_name_the_scene_field_and_the_model_place() {
    let cases = [
        (
            "[[models]]\nfile = \"robots/nowhere.urdf\"\n",
            "error: scene.toml: models[0].file: ",
            "nowhere.urdf",
        ),
        (
            "[[models]]\nfile = \"robots/two_link.urdf\"\njoints = { knee = 1.0 }\n",
            "error: scene.toml: models[0].joints: ",
            "knee",
        ),
        (
            "[[models]]\nfile = \"robots/two_link.urdf\"\n\n[[models]]\nfile = \"robots/two_link.urdf\"\nposition = [2.0, 0.0, 0.0]\n",
            "error: scene.toml: models[1].prefix: the model's body `mount` would have the name of another body",
            "",
        ),
        (
            "[[bodies]]\nname = \"upper\"\nposition = [0.0, 0.0, 1.0]\nshapes = [{ type = \"sphere\", radius = 0.1 }]\n\n[[models]]\nfile = \"robots/two_link.urdf\"\n",
            "error: scene.toml: bodies[0].name: body names must be unique: `upper` is already",
            "",
        ),
        (
            "[[models]]\nfile = \"robots/two_link.urdf\"\norientation = [0.0, 0.0, 0.0, 0.0]\n",
            "error: scene.toml: models[0].orientation: must be a finite, non-zero quaternion",
            "",
        ),
        (
            "[[models]]\nfile = \"robots/two_link.urdf\"\nbase = \"welded\"\n",
            "error: scene.toml:3:8: unknown variant `welded`, expected `fixed` or `floating`",
            "",
        ),
        (
            "[[models]]\nfile = \"robots/two_link.urdf\"\nscale = 2.0\n",
            "error: scene.toml:3:1: unknown field `scale`",
            "",
        ),
    ];
    for (text, expected, also) in cases {
        let (out, dir) = run_scene(text, &["run", "--out", "out"]);
        let (_, stderr) = texts(&out);
        assert_eq!(out.status.code(), Some(2), "{text}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with(expected), "{text}: {stderr}");
        assert!(stderr.contains(also), "{text}: {stderr}");
        assert!(!dir.path().join("out").exists());
    }
    // A malformed model is located inside the model file.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.urdf"),
        "<robot name=\"x\">\n  <link name=\"a\"/>\n  <joint name=\"j\" type=\"revolute\"><parent link=\"a\"/></joint>\n</robot>\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        "[[models]]\nfile = \"bad.urdf\"\n",
    )
    .unwrap();
    let out = output(stiction().current_dir(dir.path()).args(["run", "s.toml"]));
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.starts_with("error: s.toml: models[0].file: bad.urdf:3:3: "),
        "{stderr}"
    );
}

#[test]
fn model_warnings_in_a_scene_are_warning_lines_and_its_run_renders_from_elsewhere() {
    let text =
        "[[bodies]]\nname = \"ground\"\nkind = \"static\"\nshapes = [{ type = \"plane\" }]\n\n\
                [[models]]\nfile = \"robots/two_link.urdf\"\nposition = [0.0, 0.0, 0.5]\n\
                joints = { shoulder = 0.5 }\n\n[record]\njoint_forces = true\n";
    let (out, dir) = run_scene(text, &["run", "--steps", "20", "--out", "runs/arm"]);
    let (_, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    // two_link.urdf gives velocity limits, which are not simulated: one warning each.
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert_eq!(warnings.len(), 2, "{stderr}");
    for line in &warnings {
        assert!(line.contains("two_link.urdf:"), "{line}");
        assert!(line.contains("velocity"), "{line}");
    }
    let run = dir.path().join("runs/arm");
    let (header, rows) = read_csv(&run.join("joint_forces.csv"));
    let joints: HashSet<&str> = rows.iter().map(|r| r[2].as_str()).collect();
    assert_eq!(joints, HashSet::from(["shoulder", "elbow"]), "{header:?}");
    // Moved away from the scene, the run directory still renders: scene.json names the
    // model by its absolute path.
    let moved = tempfile::tempdir().unwrap();
    let target = moved.path().join("arm-run");
    std::fs::rename(&run, &target).unwrap();
    success(
        stiction()
            .current_dir(moved.path())
            .args(["render", "--width", "32", "--height", "24", "-q", "arm-run"]),
    );
    assert!(target.join("animation.gif").is_file());
}

#[test]
fn a_model_run_directory_renders_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let model = fixture("two_link.urdf");
    success(
        stiction()
            .args([
                "run",
                "--joint",
                "shoulder=0.5",
                "--steps",
                "40",
                "--snapshot-every",
                "20",
                "-q",
                "--out",
            ])
            .arg(&run)
            .arg(&model),
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("scene.json")).unwrap()).unwrap();
    assert_eq!(json["models"][0]["joints"]["shoulder"], 0.5);
    assert_eq!(json["bodies"][0]["name"], "ground");
    success(
        stiction()
            .args(["render", "--width", "32", "--height", "24", "-q"])
            .arg(&run),
    );
    assert!(run.join("last.png").is_file());

    // Resumed from step 20, the rows of steps 21..40 are the uninterrupted run's.
    let resumed = dir.path().join("resumed");
    success(
        stiction()
            .args([
                "run",
                "--joint",
                "shoulder=0.5",
                "--steps",
                "40",
                "-q",
                "--resume",
            ])
            .arg(run.join("snapshot-20.bin"))
            .arg("--out")
            .arg(&resumed)
            .arg(&model),
    );
    let full = std::fs::read_to_string(run.join("trajectory.csv")).unwrap();
    let tail = std::fs::read_to_string(resumed.join("trajectory.csv")).unwrap();
    let later: Vec<&str> = full
        .lines()
        .skip(1)
        .filter(|l| l.split(',').next().unwrap().parse::<u64>().unwrap() > 20)
        .collect();
    let tail: Vec<&str> = tail.lines().skip(1).collect();
    assert!(!tail.is_empty());
    assert_eq!(tail, later);
    // The run's scene.json, run as a scene, is the same world: same bodies, same motion.
    let again = dir.path().join("again");
    success(
        stiction()
            .args(["run", "-q", "--out"])
            .arg(&again)
            .arg(run.join("scene.json")),
    );
    let (h1, r1) = read_csv(&run.join("trajectory.csv"));
    let (h2, r2) = read_csv(&again.join("trajectory.csv"));
    assert_eq!(column(&h1, &r1, "z"), column(&h2, &r2, "z"));
}

#[test]
fn bench_times_a_model_and_a_scene_with_models() {
    let stdout = success(
        stiction()
            .args(["bench", "--steps", "10", "--json"])
            .arg(fixture("two_link.urdf")),
    );
    let rows: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2, "exact and iterative");
    for (row, variant) in rows.iter().zip(["exact", "iterative"]) {
        assert_eq!(row["scene"], "two_link");
        assert_eq!(row["variant"], variant);
        assert_eq!(row["steps"], 10);
        assert!(row["median_ms"].as_f64().unwrap() > 0.0);
        assert!(row["blocked"].is_null());
    }
    // A scene with models, one stepper, as a markdown table; its warnings once.
    let (out, _dir) = run_scene(
        &two_arms_scene().replace("two_link.urdf", "robots/two_link.urdf"),
        &["bench", "--steps", "5", "--solver", "exact"],
    );
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[2].starts_with("| scene | exact | 5 | "), "{stdout}");
    assert!(lines[2].contains("max penetration (m)"), "{stdout}");
    assert_eq!(
        stderr
            .lines()
            .filter(|l| l.starts_with("warning: "))
            .count(),
        4,
        "two velocity limits of each copy: {stderr}"
    );
    // --scene and a file together are a usage error.
    let out = output(
        stiction()
            .args(["bench", "--scene", "s1"])
            .arg(fixture("two_link.urdf")),
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn model_link_meshes_are_drawn_as_their_triangles() {
    // arm.urdf of the models crate: a mesh on the fixed base (a triangle mesh) and a mesh
    // on the lower link (its convex hull).
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/tests/fixtures/arm.urdf");
    let text = format!("[[models]]\nfile = {:?}\n", path.to_str().unwrap());
    let scene = build(&text);
    let geometry = |name: &str| {
        let body = scene.bodies.iter().find(|b| b.name == name).unwrap();
        body.shapes
            .iter()
            .map(|s| s.geometry.clone())
            .collect::<Vec<_>>()
    };
    assert!(
        geometry("base")
            .iter()
            .any(|g| matches!(g, Geometry::TriMesh(m) if m.triangles.len() == 12)),
        "{:?}",
        geometry("base")
    );
    assert!(geometry("lower")
        .iter()
        .any(|g| matches!(g, Geometry::Convex(m) if m.triangles.len() == 12)));
}
