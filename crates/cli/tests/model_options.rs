//! Model options in model runs (`stiction run ROBOT`) and scenes (`[[models]]`):
//!
//! - MuJoCo collision masks (`contype`/`conaffinity`) reach the scene's one contact hook:
//!   two boxes whose masks forbid their contact pass through each other, with default (or
//!   permitting) masks they stack; with two models in one scene, both models' masks act;
//!   a run resumed from a snapshot keeps them;
//! - `--servo` / `servo` hold the joints of a floating stool with splayed legs, and
//!   `--rest-on-ground` / `rest_on_ground` place it with its feet 1 mm above the ground:
//!   after 1 s its seat is at the height its geometry gives and no body ever was below
//!   z = -1 mm (without the servos it collapses; without resting it starts in the ground);
//! - an MJCF `<option timestep gravity>` sets a model run's step and gravity (the recorded
//!   step, and the fall after 0.2 s), `--step` and `--gravity` win over it, and in scenes
//!   `[world]` wins over it.

mod common;

use std::path::{Path, PathBuf};

use common::{column, output, read_csv, stiction, success, texts};
use stiction_cli::scene::parse::{parse_scene, Format};
use stiction_cli::scene::{check_and_build, BuiltScene};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Builds the TOML `text` as if it were the file `path` (relative names from its folder).
fn build_at(text: &str, path: &Path) -> BuiltScene {
    let file = parse_scene(text, Format::Toml, path).unwrap_or_else(|e| panic!("{e}"));
    check_and_build(&file, path).unwrap_or_else(|e| panic!("{e}"))
}

/// Builds the TOML `text` as a scene file in the fixtures folder.
fn build(text: &str) -> BuiltScene {
    build_at(text, &fixture("scene.toml"))
}

fn body_z(scene: &BuiltScene, name: &str) -> f64 {
    let body = scene.bodies.iter().find(|b| b.name == name).unwrap();
    scene.world.body(body.handle).unwrap().position().z
}

/// The rows of trajectory.csv as (step, body, position, orientation [w, x, y, z]).
type Row = (u64, String, [f64; 3], [f64; 4]);

fn trajectory(dir: &Path) -> Vec<Row> {
    let (header, rows) = read_csv(&dir.join("trajectory.csv"));
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let n = |r: &[String], name: &str| r[at(name)].parse::<f64>().unwrap();
    rows.iter()
        .map(|r| {
            (
                r[at("step")].parse().unwrap(),
                r[at("body")].clone(),
                [n(r, "x"), n(r, "y"), n(r, "z")],
                [n(r, "qw"), n(r, "qx"), n(r, "qy"), n(r, "qz")],
            )
        })
        .collect()
}

/// `body`'s height at the last recorded step.
fn last_z(rows: &[Row], body: &str) -> f64 {
    rows.iter().rev().find(|r| r.1 == body).unwrap().2[2]
}

/// The masked-boxes fixture with the masks replaced (`None`: the default masks).
fn boxes_with_masks(dir: &Path, lower: Option<(u32, u32)>, upper: Option<(u32, u32)>) -> PathBuf {
    let text = std::fs::read_to_string(fixture("masked_boxes.xml")).unwrap();
    let masks = |m: Option<(u32, u32)>| match m {
        Some((t, a)) => format!(" contype=\"{t}\" conaffinity=\"{a}\""),
        None => String::new(),
    };
    let text = text
        .replace(" contype=\"2\" conaffinity=\"2\"", &masks(lower))
        .replace(" contype=\"4\" conaffinity=\"4\"", &masks(upper));
    let name = format!("boxes-{lower:?}-{upper:?}.xml").replace([' ', '(', ')', ','], "_");
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs the model `path` for 1 s (240 steps) into `out`; returns the trajectory.
fn run_model(path: &Path, out: &Path, extra: &[impl AsRef<std::ffi::OsStr>]) -> Vec<Row> {
    success(
        stiction()
            .args(["run", "--duration", "1", "-q"])
            .args(extra)
            .arg("--out")
            .arg(out)
            .arg(path),
    );
    trajectory(out)
}

#[test]
fn collision_masks_let_boxes_pass_through_each_other_in_a_model_run() {
    let dir = tempfile::tempdir().unwrap();
    // Masks 2/2 and 4/4 forbid the contact: the upper box (released at 0.5 m) falls
    // through the lower one onto the ground (the ground has no masks: it touches both).
    let none: &[&str] = &[];
    let masked = run_model(
        &fixture("masked_boxes.xml"),
        &dir.path().join("masked"),
        none,
    );
    for body in ["lower", "upper"] {
        let z = last_z(&masked, body);
        assert!(
            (z - 0.1).abs() < 2e-3,
            "{body} ends at z = {z}, not on the ground"
        );
    }
    // Default masks: the upper box lands on the lower one.
    let plain = boxes_with_masks(dir.path(), None, None);
    let stacked = run_model(&plain, &dir.path().join("plain"), none);
    let z = last_z(&stacked, "upper");
    assert!(
        (z - 0.3).abs() < 2e-3,
        "with default masks upper ends at z = {z}"
    );
    // Listed masks that permit the contact one way (lower's contype 4 & upper's
    // conaffinity 4): stacked too.
    let permitting = boxes_with_masks(dir.path(), Some((4, 1)), Some((2, 4)));
    let stacked = run_model(&permitting, &dir.path().join("permitting"), none);
    let z = last_z(&stacked, "upper");
    assert!(
        (z - 0.3).abs() < 2e-3,
        "with permitting masks upper ends at z = {z}"
    );

    // Resumed from a snapshot taken before the boxes meet, the masks still act: the rows
    // after it are the uninterrupted run's.
    let run = dir.path().join("snap");
    let snapped = run_model(
        &fixture("masked_boxes.xml"),
        &run,
        &["--snapshot-every", "24"],
    );
    let resumed = dir.path().join("resumed");
    success(
        stiction()
            .args(["run", "--duration", "1", "-q", "--resume"])
            .arg(run.join("snapshot-24.bin"))
            .arg("--out")
            .arg(&resumed)
            .arg(fixture("masked_boxes.xml")),
    );
    let tail = trajectory(&resumed);
    let later: Vec<Row> = snapped.into_iter().filter(|r| r.0 > 24).collect();
    assert_eq!(tail, later);
    assert!((last_z(&tail, "upper") - 0.1).abs() < 2e-3);
}

#[test]
fn collision_masks_of_several_models_act_in_one_scene() {
    let dir = tempfile::tempdir().unwrap();
    let plain = boxes_with_masks(dir.path(), None, None);
    let text = format!(
        r#"
duration = 1.0

[[bodies]]
name = "ground"
kind = "static"
shapes = [{{ type = "plane" }}]

[[models]]
file = "{masked}"
prefix = "a/"

[[models]]
file = "{masked}"
prefix = "b/"
position = [1.0, 0.0, 0.0]

[[models]]
file = "{plain}"
prefix = "c/"
position = [2.0, 0.0, 0.0]
"#,
        masked = fixture("masked_boxes.xml").display(),
        plain = plain.display(),
    );
    let mut scene = build_at(&text, &dir.path().join("scene.toml"));
    // Two masked colliders per masked copy; the default masks are not listed.
    assert_eq!(scene.collision_masks.len(), 4);
    for _ in 0..scene.steps {
        scene.world.step(scene.h).unwrap();
    }
    for prefix in ["a/", "b/"] {
        let z = body_z(&scene, &format!("{prefix}upper"));
        assert!((z - 0.1).abs() < 2e-3, "{prefix}upper ends at z = {z}");
    }
    let z = body_z(&scene, "c/upper");
    assert!((z - 0.3).abs() < 2e-3, "c/upper ends at z = {z}");
    for prefix in ["a/", "b/", "c/"] {
        let z = body_z(&scene, &format!("{prefix}lower"));
        assert!((z - 0.1).abs() < 2e-3, "{prefix}lower ends at z = {z}");
    }
}

/// The stool fixture's legs all turned by this angle about y (a sheared stool, which its
/// free hinges would let collapse), rad.
const SPLAY: f64 = 0.4;
/// From the seat's origin down to the hips, m.
const HIP: f64 = 0.05;
/// From a hip to its foot's centre, m.
const LEG: f64 = 0.3;
/// The foot spheres' radius, m.
const FOOT: f64 = 0.03;

/// The lowest point of a body of the stool: the seat box (half extents 0.2, 0.2, 0.05) or
/// a foot sphere.
fn lowest(body: &str, position: [f64; 3], q: [f64; 4]) -> f64 {
    if body != "seat" {
        return position[2] - FOOT;
    }
    let [w, x, y, z] = q;
    // The third row of the rotation matrix: the world z of each body axis.
    let row = [
        2.0 * (x * z - w * y),
        2.0 * (y * z + w * x),
        1.0 - 2.0 * (x * x + y * y),
    ];
    let half = [0.2, 0.2, 0.05];
    position[2] - (0..3).map(|i| row[i].abs() * half[i]).sum::<f64>()
}

fn splayed() -> Vec<String> {
    ["fl", "fr", "bl", "br"]
        .iter()
        .flat_map(|leg| ["--joint".to_string(), format!("hip_{leg}={SPLAY}")])
        .collect()
}

#[test]
fn rest_on_ground_and_servos_stand_a_stool_on_the_ground() {
    let dir = tempfile::tempdir().unwrap();
    let stool = fixture("stool.urdf");
    let mut args: Vec<String> = ["--base", "floating", "--rest-on-ground"]
        .map(String::from)
        .to_vec();
    args.extend(splayed());
    let with = |extra: &[&str]| {
        let mut all = args.clone();
        all.extend(extra.iter().map(|s| s.to_string()));
        all
    };

    let out = dir.path().join("held");
    let rows = run_model(&stool, &out, &with(&["--servo", "500,5"]));
    // Placed with the lowest foot point 1 mm above the ground.
    let standing = HIP + LEG * SPLAY.cos() + FOOT;
    let seat0 = rows.iter().find(|r| r.0 == 0 && r.1 == "seat").unwrap().2[2];
    assert!(
        (seat0 - (standing + 1e-3)).abs() < 1e-9,
        "seat starts at {seat0}"
    );
    let feet0 = rows
        .iter()
        .filter(|r| r.0 == 0 && r.1.starts_with("leg_"))
        .map(|r| lowest(&r.1, r.2, r.3))
        .fold(f64::INFINITY, f64::min);
    assert!(
        (feet0 - 1e-3).abs() < 1e-9,
        "the lowest foot point starts at {feet0}"
    );
    // After 1 s the servos hold the splayed legs: the seat stands at its height.
    let seat = last_z(&rows, "seat");
    assert!(
        (seat - standing).abs() < 1e-2,
        "the seat is at {seat} m after 1 s, expected {standing}"
    );
    // No body below z = -1 mm at any recorded step.
    for (step, body, position, q) in rows.iter().filter(|r| r.1 != "ground") {
        let low = lowest(body, *position, *q);
        assert!(low > -1e-3, "step {step}: {body} reaches z = {low}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scene.json")).unwrap()).unwrap();
    assert_eq!(json["models"][0]["servo"], serde_json::json!([500.0, 5.0]));
    assert_eq!(json["models"][0]["rest_on_ground"], true);

    // Without the servos the sheared stool folds over its free hinges.
    let rows = run_model(&stool, &dir.path().join("free"), &args);
    let seat = last_z(&rows, "seat");
    assert!(
        seat < standing - 0.1,
        "unheld, the seat still stands at {seat}"
    );
    // Without resting, the model starts where the file puts it: feet in the ground.
    let mut sunk: Vec<String> = ["--base", "floating", "--servo", "500,5"]
        .map(String::from)
        .to_vec();
    sunk.extend(splayed());
    let rows = run_model(&stool, &dir.path().join("sunk"), &sunk);
    let foot0 = rows
        .iter()
        .filter(|r| r.0 == 0 && r.1.starts_with("leg_"))
        .map(|r| lowest(&r.1, r.2, r.3))
        .fold(f64::INFINITY, f64::min);
    assert!((foot0 + standing).abs() < 1e-9, "{foot0}");

    // A bad --servo is a usage error.
    for bad in ["500", "-1,5", "0,0", "a,b"] {
        let out = output(
            stiction()
                .args(["run", "--servo", bad, "--steps", "1", "--out"])
                .arg(dir.path().join("bad"))
                .arg(&stool),
        );
        assert_eq!(out.status.code(), Some(2), "--servo {bad}");
    }
}

#[test]
fn servo_and_rest_on_ground_in_a_scene() {
    let scene = |extra: &str| {
        format!(
            r#"
[world]
step = 0.004166666666666667

[[bodies]]
name = "ground"
kind = "static"
shapes = [{{ type = "plane" }}]

[[models]]
file = "stool.urdf"
base = "floating"
position = [0.5, 0.0, 3.0]
joints = {{ hip_fl = {SPLAY}, hip_fr = {SPLAY}, hip_bl = {SPLAY}, hip_br = {SPLAY} }}
{extra}
"#
        )
    };
    let mut built = build(&scene("servo = [500.0, 5.0]\nrest_on_ground = true"));
    // Moved down from 3 m: the lowest foot point 1 mm above the ground.
    let standing = HIP + LEG * SPLAY.cos() + FOOT;
    let seat0 = body_z(&built, "seat");
    assert!(
        (seat0 - (standing + 1e-3)).abs() < 1e-9,
        "seat starts at {seat0}"
    );
    for _ in 0..240 {
        built.world.step(built.h).unwrap();
    }
    let seat = body_z(&built, "seat");
    assert!((seat - standing).abs() < 1e-2, "seat at {seat} after 1 s");
    for body in &built.bodies {
        let b = built.world.body(body.handle).unwrap();
        let (p, q) = (b.position(), b.orientation());
        let low = lowest(&body.name, p.to_array(), [q.w, q.x, q.y, q.z]);
        assert!(
            body.name == "ground" || low > -1e-3,
            "{} at {low}",
            body.name
        );
    }
    // Without rest_on_ground the entry's position stands.
    let built = build(&scene(""));
    assert!((body_z(&built, "seat") - 3.0).abs() < 1e-12);

    // Bad gains are refused at the entry's field.
    let file = parse_scene(
        &scene("servo = [-1.0, 5.0]"),
        Format::Toml,
        &fixture("scene.toml"),
    )
    .unwrap();
    let error = check_and_build(&file, &fixture("scene.toml"))
        .unwrap_err()
        .to_string();
    assert!(error.contains("models[0].servo"), "{error}");
}

#[test]
fn a_model_files_option_sets_the_step_and_gravity_unless_told_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let model = fixture("option.xml");
    let run = |out: &Path, extra: &[&str]| {
        let out_ = output(
            stiction()
                .args(["run", "--duration", "0.2", "--no-ground", "--json"])
                .args(extra)
                .arg("--out")
                .arg(out)
                .arg(&model),
        );
        let (stdout, stderr) = texts(&out_);
        assert!(out_.status.success(), "{stderr}");
        let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        let (header, rows) = read_csv(&out.join("trajectory.csv"));
        let z = column(&header, &rows, "z");
        let time = column(&header, &rows, "time");
        (summary, time, z[0] - z[z.len() - 1])
    };

    // The file's step of 2 ms and gravity of 5 m/s^2.
    let out = dir.path().join("file");
    let (summary, time, fall) = run(&out, &[]);
    assert_eq!(summary["h"], 0.002);
    assert_eq!(summary["steps_done"], 100);
    assert!((time[1] - 0.002).abs() < 1e-15, "recorded step {}", time[1]);
    // 0.2 s of free fall at 5 m/s^2: g t^2 / 2 = 0.1 m; the step's own (semi-implicit)
    // answer is g h^2 n (n + 1) / 2 = 0.101 m.
    assert!((fall - 0.1).abs() < 2e-3, "fell {fall} m");
    assert!((fall - 5.0 * 0.002f64.powi(2) * 100.0 * 101.0 / 2.0).abs() < 1e-9);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scene.json")).unwrap()).unwrap();
    assert_eq!(json["world"]["step"], 0.002);
    assert_eq!(
        json["world"]["gravity"],
        serde_json::json!([0.0, 0.0, -5.0])
    );

    // The command line wins.
    let (summary, _, fall) = run(
        &dir.path().join("line"),
        &["--step", "0.001", "--gravity", "0,0,-9.81"],
    );
    assert_eq!(summary["h"], 0.001);
    assert_eq!(summary["steps_done"], 200);
    assert!(
        (fall - 9.81 * 0.2f64.powi(2) / 2.0).abs() < 2e-3,
        "fell {fall} m"
    );

    // In a scene the file's settings apply where [world] gives none ...
    let entry = "[[models]]\nfile = \"option.xml\"\n";
    let built = build(entry);
    assert_eq!(built.h, 0.002);
    assert_eq!(built.world.settings().gravity.to_array(), [0.0, 0.0, -5.0]);
    assert_eq!(built.steps, 600);
    let built = build(&format!("duration = 0.2\n{entry}"));
    assert_eq!(built.steps, 100);
    // ... and [world] wins where it gives them.
    let built = build(&format!("[world]\nstep = 0.01\n\n{entry}"));
    assert_eq!(built.h, 0.01);
    assert_eq!(built.world.settings().gravity.to_array(), [0.0, 0.0, -5.0]);
    let built = build(&format!("[world]\ngravity = [0.0, 0.0, -9.81]\n\n{entry}"));
    assert_eq!(built.h, 0.002);
    assert_eq!(built.world.settings().gravity.to_array(), [0.0, 0.0, -9.81]);
}
