//! `[[sensors]]`, `ccd` and `sensor` shapes through `stiction run`: each sensor kind reads
//! the analytic answer of a scene small enough to work out by hand, continuous collision
//! keeps a fast ball in front of a thin wall, and bad sensor entries are located errors.

mod common;

use std::path::{Path, PathBuf};

use common::{column, output, read_csv, repo_root, scenes_dir, stiction, success, texts};

const G: f64 = 9.81;

/// Writes `text` as a scene file in a fresh directory and runs it (`args` before the file);
/// returns the directory (kept alive) and the run directory.
fn run(text: &str, args: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("scene.toml");
    std::fs::write(&file, text).unwrap();
    let out = dir.path().join("run");
    success(
        stiction()
            .args(["run", "--quiet", "--out"])
            .arg(&out)
            .args(args)
            .arg(&file),
    );
    (dir, out)
}

/// A sensor file's header and rows, empty fields as `None`.
fn sensor_csv(path: &Path) -> (Vec<String>, Vec<Vec<Option<f64>>>) {
    let (header, rows) = read_csv(path);
    let rows = rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|v| (!v.is_empty()).then(|| v.parse().unwrap()))
                .collect()
        })
        .collect();
    (header, rows)
}

/// A column of a sensor file, every value present.
fn values(header: &[String], rows: &[Vec<Option<f64>>], name: &str) -> Vec<f64> {
    let i = header.iter().position(|h| h == name).unwrap();
    rows.iter().map(|r| r[i].unwrap()).collect()
}

fn close(got: f64, want: f64, tolerance: f64) -> bool {
    (got - want).abs() <= tolerance
}

// ---------------------------------------------------------------------------------------
// Range sensors.

/// A 2 m high lidar over the ground and a static block 0.5 m high spanning y in
/// [0.4, 0.8] (x in [-0.3, 0.3]); a 31-beam fan of 120 degrees looking down, spread along
/// y. The world-fixed sensor starts inside the mast it sits on, so it excludes the mast;
/// the mounted one excludes it by default. A third sensor sits on a body turned about z,
/// 0.1 m to the side.
const RANGE_SCENE: &str = r#"
steps = 5

[[bodies]]
name = "ground"
kind = "static"
shapes = [{ type = "plane" }]

[[bodies]]
name = "block"
kind = "static"
position = [0.0, 0.6, 0.25]
shapes = [{ type = "box", half_extents = [0.3, 0.2, 0.25] }]

[[bodies]]
name = "mast"
kind = "static"
position = [0.0, 0.0, 2.0]
shapes = [{ type = "box", half_extents = [0.05, 0.05, 0.05] }]

# Turned a quarter turn about z: its body x axis is the world's y.
[[bodies]]
name = "turned"
kind = "static"
position = [0.1, 0.0, 2.0]
axis_angle = { axis = [0.0, 0.0, 1.0], degrees = 90.0 }
shapes = [{ type = "sphere", radius = 0.02 }]

[[sensors]]
name = "lidar"
type = "range"
position = [0.0, 0.0, 2.0]
direction = [0.0, 0.0, -1.0]
beams = 31
fov = 120.0
max_range = 3.0
exclude_body = "mast"

[[sensors]]
name = "mounted"
type = "range"
body = "mast"
direction = [0.0, 0.0, -1.0]
beams = 31
fov = 120.0
max_range = 3.0
no_hit = "max_range"
every = 2

[[sensors]]
name = "pair"
type = "range"
body = "turned"
directions = [[0.0, 0.0, -1.0], [1.0, 0.0, -1.0]]
max_range = 10.0
"#;

/// The distance along the unit ray `o + t d` to the first of the ground plane z = 0 and
/// the block, by the slab method.
fn analytic_range(o: [f64; 3], d: [f64; 3]) -> f64 {
    let ground = if d[2] < 0.0 {
        -o[2] / d[2]
    } else {
        f64::INFINITY
    };
    let (lo, hi) = ([-0.3, 0.4, 0.0], [0.3, 0.8, 0.5]);
    let (mut enter, mut leave) = (0.0_f64, f64::INFINITY);
    for k in 0..3 {
        if d[k] == 0.0 {
            if o[k] < lo[k] || o[k] > hi[k] {
                return ground;
            }
            continue;
        }
        let (a, b) = ((lo[k] - o[k]) / d[k], (hi[k] - o[k]) / d[k]);
        enter = enter.max(a.min(b));
        leave = leave.min(a.max(b));
    }
    if enter <= leave {
        ground.min(enter)
    } else {
        ground
    }
}

#[test]
fn a_range_sensor_reads_the_analytic_distance_of_every_beam() {
    let (_dir, out) = run(RANGE_SCENE, &[]);
    let origin = [0.0, 0.0, 2.0];
    let expected: Vec<Option<f64>> = (0..31)
        .map(|i| {
            let phi = (-60.0 + 4.0 * i as f64).to_radians();
            let t = analytic_range(origin, [0.0, phi.sin(), -phi.cos()]);
            (t <= 3.0).then_some(t)
        })
        .collect();
    // The fan sees the ground, the block's top and its near side, and misses at the edges.
    assert!(expected.iter().filter(|t| t.is_none()).count() >= 4);
    assert!(expected.iter().filter(|t| t.is_some()).count() >= 20);
    let on_block = (0..31)
        .filter(|&i| {
            let phi = (-60.0 + 4.0 * i as f64).to_radians();
            expected[i].is_some_and(|t| t < 2.0 / phi.cos() - 1e-6)
        })
        .count();
    assert!(on_block >= 5, "{on_block} beams on the block");

    for name in ["lidar", "mounted"] {
        let (header, rows) = sensor_csv(&out.join(format!("{name}.csv")));
        assert_eq!(header.len(), 2 + 31, "{header:?}");
        assert_eq!(header[2], "beam0");
        assert_eq!(header[32], "beam30");
        let steps = values(&header, &rows, "step");
        let want_steps: &[f64] = if name == "lidar" {
            &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        } else {
            // every = 2, and the last step.
            &[0.0, 2.0, 4.0, 5.0]
        };
        assert_eq!(steps, want_steps, "{name}");
        for row in &rows {
            for (i, want) in expected.iter().enumerate() {
                let got = row[2 + i];
                match (got, want, name) {
                    (Some(got), Some(want), _) => {
                        assert!(close(got, *want, 1e-9), "{name} beam {i}: {got} != {want}")
                    }
                    (None, None, "lidar") => {}
                    (Some(got), None, "mounted") => assert_eq!(got, 3.0, "beam {i}"),
                    _ => panic!("{name} beam {i}: {got:?}, expected {want:?}"),
                }
            }
        }
    }

    // The turned body's x axis is the world's y: its oblique beam leans towards +y.
    let (header, rows) = sensor_csv(&out.join("pair.csv"));
    assert_eq!(header, ["step", "time", "beam0", "beam1"]);
    let s = std::f64::consts::FRAC_1_SQRT_2;
    for row in &rows {
        assert!(close(row[2].unwrap(), 2.0, 1e-9), "{row:?}");
        let want = analytic_range([0.1, 0.0, 2.0], [0.0, s, -s]);
        assert!(close(want, 2.0 * 2.0_f64.sqrt(), 1e-12));
        assert!(close(row[3].unwrap(), want, 1e-9), "{row:?}");
    }
}

#[test]
fn a_range_sensor_on_a_moving_body_follows_it() {
    // A lidar on a ball falling from 3 m looks down at the ground: it reads the ball's
    // height (its centre, where the beam starts) in every row.
    let text = r#"
steps = 30

[[bodies]]
name = "ground"
kind = "static"
shapes = [{ type = "plane" }]

[[bodies]]
name = "probe"
position = [0.0, 0.0, 3.0]
shapes = [{ type = "sphere", radius = 0.1 }]

[[sensors]]
name = "altimeter"
type = "range"
body = "probe"
direction = [0.0, 0.0, -1.0]
beams = 1
max_range = 10.0
"#;
    let (_dir, out) = run(text, &[]);
    let (header, rows) = sensor_csv(&out.join("altimeter.csv"));
    let (theader, trows) = read_csv(&out.join("trajectory.csv"));
    let z: Vec<f64> = column(&theader, &trows, "z")
        .into_iter()
        .zip(&trows)
        .filter(|(_, r)| r[2] == "probe")
        .map(|(z, _)| z)
        .collect();
    let altitude = values(&header, &rows, "beam0");
    assert_eq!(altitude.len(), 31);
    assert!(altitude[30] < 2.0, "it fell: {}", altitude[30]);
    for (step, (a, z)) in altitude.iter().zip(&z).enumerate() {
        assert!(close(*a, *z, 1e-9), "step {step}: {a} against z = {z}");
    }
}

// ---------------------------------------------------------------------------------------
// Contact sensors.

#[test]
fn a_contact_sensor_reads_the_weight_of_a_box_at_rest() {
    // A 2 kg box dropped 10 cm onto the ground, h = 1/60 s; the ground is a force plate.
    let text = r#"
steps = 120

[[bodies]]
name = "ground"
kind = "static"
shapes = [{ type = "plane" }]

[[bodies]]
name = "box"
mass = 2.0
position = [0.0, 0.0, 0.2]
shapes = [{ type = "box", half_extents = [0.1, 0.1, 0.1] }]

[[sensors]]
name = "box_contacts"
type = "contact"
body = "box"

[[sensors]]
name = "plate"
type = "contact"
body = "ground"
"#;
    let (_dir, out) = run(text, &[]);
    let (m, h) = (2.0, 1.0 / 60.0);
    for (name, sign) in [("box_contacts", 1.0), ("plate", -1.0)] {
        let (header, rows) = sensor_csv(&out.join(format!("{name}.csv")));
        assert_eq!(
            header,
            [
                "step",
                "time",
                "pairs",
                "began",
                "ended",
                "normal_impulse",
                "friction_impulse",
                "force_x",
                "force_y",
                "force_z",
                "torque_x",
                "torque_y",
                "torque_z"
            ]
        );
        assert_eq!(rows.len(), 121);
        let pairs = values(&header, &rows, "pairs");
        let began = values(&header, &rows, "began");
        let ended = values(&header, &rows, "ended");
        let normal = values(&header, &rows, "normal_impulse");
        let friction = values(&header, &rows, "friction_impulse");
        let force = ["force_x", "force_y", "force_z"].map(|c| values(&header, &rows, c));
        // It lands once and stays.
        assert_eq!(began.iter().sum::<f64>(), 1.0, "{name}");
        assert_eq!(ended.iter().sum::<f64>(), 0.0, "{name}");
        let landed = began.iter().position(|&b| b == 1.0).unwrap();
        assert!(
            (5..=15).contains(&landed),
            "{name}: landed at step {landed}"
        );
        assert!(pairs[..landed].iter().all(|&p| p == 0.0), "{name}");
        assert!(pairs[landed..].iter().all(|&p| p == 1.0), "{name}");
        // At rest: m g h of normal impulse per step, the weight as the net force.
        for step in 60..=120 {
            let want = m * G * h;
            assert!(
                close(normal[step], want, 1e-6 * want),
                "{name} step {step}: {} != {want}",
                normal[step]
            );
            assert!(friction[step] < 1e-9, "{name} step {step}");
            assert!(close(force[2][step], sign * m * G, 1e-6 * m * G), "{name}");
            assert!(force[0][step].abs() < 1e-9 && force[1][step].abs() < 1e-9);
        }
    }
}

#[test]
fn a_contact_sensor_counts_the_events_of_the_steps_between_its_rows() {
    // A ball bouncing (restitution 0.8) on the ground, recorded every 25 steps: the
    // events of the skipped steps are counted in the next row, so the totals are those of
    // recording every step.
    let scene = |every: u64| {
        format!(
            r#"
steps = 240

[materials.rubber]
restitution = 0.8

[[bodies]]
name = "ground"
kind = "static"
shapes = [{{ type = "plane", material = "rubber" }}]

[[bodies]]
name = "ball"
position = [0.0, 0.0, 1.0]
shapes = [{{ type = "sphere", radius = 0.1, material = "rubber" }}]

[[sensors]]
name = "ball"
type = "contact"
body = "ball"
every = {every}
"#
        )
    };
    let totals = |every: u64| {
        let (_dir, out) = run(&scene(every), &[]);
        let (header, rows) = sensor_csv(&out.join("ball.csv"));
        let began: f64 = values(&header, &rows, "began").iter().sum();
        let ended: f64 = values(&header, &rows, "ended").iter().sum();
        (rows.len(), began, ended)
    };
    let (rows, began, ended) = totals(1);
    assert_eq!(rows, 241);
    assert!(began >= 3.0, "it bounces: {began} landings");
    assert!(ended >= 2.0, "{ended}");
    // Steps 0, 25, ..., 225 and the last, 240.
    assert_eq!(totals(25), (11, began, ended));
}

// ---------------------------------------------------------------------------------------
// Force-torque sensors.

#[test]
fn a_force_torque_sensor_reads_the_weight_of_a_pendulum_at_rest() {
    // A 1.5 kg ball hanging 1 m below a hinge, at rest.
    let text = r#"
steps = 60

[[bodies]]
name = "bob"
mass = 1.5
position = [0.0, 0.0, 1.0]
shapes = [{ type = "sphere", radius = 0.1 }]

[[joints]]
name = "pivot"
type = "hinge"
body_a = "bob"
anchor = [0.0, 0.0, 2.0]
axis = [0.0, 1.0, 0.0]

[[sensors]]
name = "load"
type = "force_torque"
joint = "pivot"
"#;
    let (_dir, out) = run(text, &[]);
    let (header, rows) = sensor_csv(&out.join("load.csv"));
    assert_eq!(header.len(), 17);
    let weight = 1.5 * G;
    let f = ["force_a_x", "force_a_y", "force_a_z"].map(|c| values(&header, &rows, c));
    let fb = ["force_b_x", "force_b_y", "force_b_z"].map(|c| values(&header, &rows, c));
    let t = [
        "anchor_torque_a_x",
        "anchor_torque_a_y",
        "anchor_torque_a_z",
    ]
    .map(|c| values(&header, &rows, c));
    // Step 0 is the initial state: no force yet.
    assert_eq!([f[0][0], f[1][0], f[2][0]], [0.0; 3]);
    for step in 10..=60 {
        assert!(
            close(f[2][step], weight, 1e-6 * weight),
            "step {step}: {} != {weight}",
            f[2][step]
        );
        assert!(f[0][step].abs() < 1e-9 && f[1][step].abs() < 1e-9);
        assert!(close(fb[2][step], -weight, 1e-6 * weight));
        for c in &t {
            assert!(
                c[step].abs() < 1e-9,
                "step {step}: anchor torque {}",
                c[step]
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Overlap sensors and sensor shapes.

#[test]
fn an_overlap_sensor_crossed_by_a_falling_ball_records_one_begin_and_one_end() {
    // docs/events.md's worked example: a ball of radius 0.1 m from z = 2 m through a
    // sensor box spanning z in [-0.25, 0.25] m, h = 1/120 s: step 71 reports the start,
    // step 84 the end.
    let text = r#"
steps = 120

[world]
step = 0.008333333333333333

[[bodies]]
name = "gate"
kind = "static"
shapes = [{ type = "box", half_extents = [0.5, 0.5, 0.25], sensor = true, name = "zone" }]

[[bodies]]
name = "ball"
position = [0.0, 0.0, 2.0]
shapes = [{ type = "sphere", radius = 0.1 }]

[[sensors]]
name = "gate"
type = "overlap"
body = "gate"

[[sensors]]
name = "gate_by_name"
type = "overlap"
body = "gate"
shape = "zone"
every = 7

[[sensors]]
name = "gate_by_index"
type = "overlap"
body = "gate"
shape = 0
"#;
    let (_dir, out) = run(text, &[]);
    let (header, rows) = sensor_csv(&out.join("gate.csv"));
    assert_eq!(header, ["step", "time", "overlaps", "began", "ended"]);
    let overlaps = values(&header, &rows, "overlaps");
    let began = values(&header, &rows, "began");
    let ended = values(&header, &rows, "ended");
    assert_eq!(began.iter().sum::<f64>(), 1.0);
    assert_eq!(ended.iter().sum::<f64>(), 1.0);
    assert_eq!(began[71], 1.0);
    assert_eq!(ended[84], 1.0);
    for (step, &n) in overlaps.iter().enumerate() {
        let inside = (71..84).contains(&step);
        assert_eq!(n, if inside { 1.0 } else { 0.0 }, "step {step}");
    }
    // The same sensor named by its shape's name (every 7 steps: the events add up) and
    // index.
    for name in ["gate_by_name", "gate_by_index"] {
        let (header, rows) = sensor_csv(&out.join(format!("{name}.csv")));
        assert_eq!(values(&header, &rows, "began").iter().sum::<f64>(), 1.0);
        assert_eq!(values(&header, &rows, "ended").iter().sum::<f64>(), 1.0);
    }
    // The sensor does not stop the ball: it falls freely through it.
    let (theader, trows) = read_csv(&out.join("trajectory.csv"));
    let z = column(&theader, &trows, "z");
    assert_eq!(trows.last().unwrap()[2], "ball");
    let h = 1.0 / 120.0;
    let n = 120.0;
    let free_fall = 2.0 - G * h * h * n * (n + 1.0) / 2.0;
    assert!(close(*z.last().unwrap(), free_fall, 1e-9), "{z:?}");
}

#[test]
fn a_sensor_shape_adds_no_mass() {
    // A ball carrying a 1 m sensor box: its mass is the ball's (1000 kg/m^3 of a 0.1 m
    // ball: 4.19 kg), so it falls and lands like the ball alone.
    let text = |sensor: &str| {
        format!(
            r#"
steps = 60

[[bodies]]
name = "ground"
kind = "static"
shapes = [{{ type = "plane" }}]

[[bodies]]
name = "ball"
position = [0.0, 0.0, 0.5]
shapes = [{{ type = "sphere", radius = 0.1 }}{sensor}]

[[sensors]]
name = "ball"
type = "contact"
body = "ball"
"#
        )
    };
    let impulses = |sensor: &str| {
        let (_dir, out) = run(&text(sensor), &[]);
        let (header, rows) = sensor_csv(&out.join("ball.csv"));
        values(&header, &rows, "normal_impulse")
    };
    let alone = impulses("");
    let carrying = impulses(r#", { type = "box", half_extents = [0.5, 0.5, 0.5], sensor = true }"#);
    let m = 1000.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.1_f64.powi(3);
    let want = m * G / 60.0;
    assert!(close(alone[60], want, 1e-6 * want), "{}", alone[60]);
    assert_eq!(alone, carrying);
}

// ---------------------------------------------------------------------------------------
// Continuous collision.

fn bullet_scene(ccd: bool) -> String {
    format!(
        r#"
steps = 30

[world]
gravity = [0.0, 0.0, 0.0]

[[bodies]]
name = "wall"
kind = "static"
position = [1.0, 0.0, 0.0]
shapes = [{{ type = "box", half_extents = [0.005, 1.0, 1.0] }}]

[[bodies]]
name = "bullet"
position = [0.0, 0.0, 0.0]
linear_velocity = [200.0, 0.0, 0.0]
ccd = {ccd}
shapes = [{{ type = "sphere", radius = 0.05 }}]
"#
    )
}

#[test]
fn ccd_keeps_a_fast_ball_in_front_of_a_thin_wall() {
    let xs = |ccd: bool| {
        let (_dir, out) = run(&bullet_scene(ccd), &[]);
        let (header, rows) = read_csv(&out.join("trajectory.csv"));
        column(&header, &rows, "x")
            .into_iter()
            .zip(&rows)
            .filter(|(_, r)| r[2] == "bullet")
            .map(|(x, _)| x)
            .collect::<Vec<f64>>()
    };
    // The wall's near face is at x = 0.995; the ball's front is 0.05 m ahead of its centre.
    let with = xs(true);
    assert_eq!(with.len(), 31);
    // It reached the wall and stopped there (restitution 0).
    assert!(with[30] + 0.05 > 0.99, "{with:?}");
    for (step, x) in with.iter().enumerate() {
        assert!(
            x + 0.05 <= 0.995 + 1e-3,
            "step {step}: front at {}",
            x + 0.05
        );
    }
    // Without: 3.33 m per step, straight through.
    let without = xs(false);
    assert!(
        *without.last().unwrap() > 1.005 + 0.05 + 50.0,
        "{without:?}"
    );
}

// ---------------------------------------------------------------------------------------
// The summary, the example scene and resuming.

#[test]
fn the_summary_lists_the_sensor_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let stdout = success(
        stiction()
            .args(["run", "--steps", "3", "--json", "--out"])
            .arg(&out)
            .arg(scenes_dir().join("sensors.toml")),
    );
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let files: Vec<&str> = summary["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    for file in [
        "lidar.csv",
        "crate_contacts.csv",
        "pivot_load.csv",
        "gate.csv",
    ] {
        assert!(files.contains(&file), "{files:?}");
        let (_, rows) = read_csv(&out.join(file));
        assert_eq!(rows.len(), 4, "{file}: steps 0 to 3");
    }
    assert_eq!(files.last(), Some(&"summary.json"));
    // The text summary names them too.
    let text = success(
        stiction()
            .args(["run", "--steps", "1", "--out"])
            .arg(dir.path().join("again"))
            .arg(scenes_dir().join("sensors.toml")),
    );
    assert!(
        text.contains("lidar.csv") && text.contains("gate.csv"),
        "{text}"
    );
}

#[test]
fn the_example_scene_exercises_every_sensor() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    success(
        stiction()
            .args(["run", "--quiet", "--out"])
            .arg(&out)
            .arg(scenes_dir().join("sensors.toml")),
    );
    let (header, rows) = sensor_csv(&out.join("gate.csv"));
    assert_eq!(values(&header, &rows, "began").iter().sum::<f64>(), 1.0);
    assert_eq!(values(&header, &rows, "ended").iter().sum::<f64>(), 1.0);
    let (header, rows) = sensor_csv(&out.join("crate_contacts.csv"));
    assert!(values(&header, &rows, "pairs").iter().any(|&p| p > 0.0));
    let (header, rows) = sensor_csv(&out.join("pivot_load.csv"));
    assert!(values(&header, &rows, "force_a_z").iter().any(|&f| f > 1.0));
    let (_, rows) = sensor_csv(&out.join("lidar.csv"));
    let hits = rows.iter().flat_map(|r| &r[2..]).filter(|v| v.is_some());
    assert!(hits.count() > 0);
    // The bullet (ccd) stays in front of its wall.
    let (header, rows) = read_csv(&out.join("trajectory.csv"));
    let x = column(&header, &rows, "x");
    let bullet = rows.iter().enumerate().filter(|(_, r)| r[2] == "bullet");
    for (i, _) in bullet {
        assert!(
            x[i] < 3.0 - 0.005 - 0.03 + 1e-3,
            "the bullet passed the wall: x = {}",
            x[i]
        );
    }
}

#[test]
fn a_resumed_run_writes_the_same_sensor_rows() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    let scene = scenes_dir().join("sensors.toml");
    success(
        stiction()
            .args([
                "run",
                "--steps",
                "60",
                "--snapshot-every",
                "30",
                "--quiet",
                "--out",
            ])
            .arg(&whole)
            .arg(&scene),
    );
    let part = dir.path().join("part");
    success(
        stiction()
            .args(["run", "--steps", "60", "--quiet", "--resume"])
            .arg(whole.join("snapshot-30.bin"))
            .arg("--out")
            .arg(&part)
            .arg(&scene),
    );
    for file in [
        "lidar.csv",
        "crate_contacts.csv",
        "pivot_load.csv",
        "gate.csv",
    ] {
        let all = std::fs::read_to_string(whole.join(file)).unwrap();
        let after = std::fs::read_to_string(part.join(file)).unwrap();
        let mut lines = after.lines();
        let header = lines.next().unwrap();
        assert_eq!(Some(header), all.lines().next());
        let tail: Vec<&str> = all
            .lines()
            .skip(1)
            .filter(|l| l.split(',').next().unwrap().parse::<u64>().unwrap() > 30)
            .collect();
        assert_eq!(lines.collect::<Vec<_>>(), tail, "{file}");
    }
}

// ---------------------------------------------------------------------------------------
// Refusals.

/// A scene with one of every sensor; each refusal below changes one thing.
const GOOD: &str = r#"
steps = 2

[[bodies]]
name = "ground"
kind = "static"
shapes = [{ type = "plane" }]

[[bodies]]
name = "box"
position = [0.0, 0.0, 0.5]
ccd = true
shapes = [
  { type = "box", half_extents = [0.1, 0.1, 0.1] },
  { type = "sphere", radius = 0.3, sensor = true, name = "aura" },
]

[[joints]]
name = "pivot"
type = "ball"
body_a = "box"
anchor = [0.0, 0.0, 1.0]

[[sensors]]
name = "lidar"
type = "range"
position = [0.0, 0.0, 2.0]
direction = [0.0, 0.0, -1.0]
beams = 3
fov = 10.0
max_range = 5.0

[[sensors]]
name = "touch"
type = "contact"
body = "box"

[[sensors]]
name = "ft"
type = "force_torque"
joint = "pivot"

[[sensors]]
name = "aura"
type = "overlap"
body = "box"
"#;

/// Runs `text` saved as `name`, requires exit status 2, one `error: ` line and nothing
/// written; returns the line.
fn refused_as(name: &str, text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, text).unwrap();
    let out = dir.path().join("out");
    let result = output(stiction().args(["run", "--out"]).arg(&out).arg(&file));
    let (stdout, stderr) = texts(&result);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(!out.exists(), "nothing may be written: {stderr}");
    stderr.trim().to_string()
}

/// [`refused_as`] of `GOOD` with `from` replaced by `to`.
fn refused(from: &str, to: &str) -> String {
    assert_eq!(GOOD.matches(from).count(), 1, "{from}");
    refused_as("scene.toml", &GOOD.replacen(from, to, 1))
}

#[test]
fn the_unchanged_sensor_scene_runs_and_its_columns_are_documented() {
    let (_dir, out) = run(GOOD, &[]);
    let doc = std::fs::read_to_string(repo_root().join("docs/scene-format.md")).unwrap();
    for file in ["lidar.csv", "touch.csv", "ft.csv", "aura.csv"] {
        let (header, rows) = read_csv(&out.join(file));
        assert_eq!(rows.len(), 3, "{file}");
        for column in header {
            // Beams are numbered: the page shows the first two.
            let column = if column.starts_with("beam") {
                "beam1".to_string()
            } else {
                column
            };
            assert!(doc.contains(&format!("`{column}`")), "docs miss `{column}`");
        }
    }
}

#[test]
fn bad_sensor_entries_are_located_errors() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "body = \"box\"\n\n[[sensors]]\nname = \"ft\"",
            "body = \"crate\"\n\n[[sensors]]\nname = \"ft\"",
            "sensors[1].body: no body named `crate`",
        ),
        (
            "beams = 3",
            "beams = 0",
            "sensors[0].beams: must lie in [1, 65536], got 0",
        ),
        (
            "max_range = 5.0",
            "max_range = -1.0",
            "sensors[0].max_range: must be finite and > 0, got -1",
        ),
        (
            "joint = \"pivot\"",
            "joint = \"hinge\"",
            "sensors[2].joint: no joint named `hinge`",
        ),
        (
            "name = \"touch\"",
            "name = \"lidar\"",
            "sensors[1].name: sensor names must be unique",
        ),
        (
            "name = \"touch\"",
            "name = \"stats\"",
            "sensors[1].name: stats.csv is a file of the run directory already",
        ),
        (
            "name = \"touch\"",
            "name = \"../touch\"",
            "sensors[1].name: names the file <name>.csv",
        ),
        (
            "fov = 10.0",
            "fov = 400.0",
            "sensors[0].fov: must lie in (0, 360] degrees, got 400",
        ),
        (
            "fov = 10.0",
            "",
            "sensors[0].fov: required for a fan of 3 beams",
        ),
        (
            "max_range = 5.0",
            "",
            "sensors[0].max_range: required for a range sensor",
        ),
        (
            "beams = 3",
            "directions = [[0.0, 0.0, 0.0]]",
            "sensors[0].fov: applies to a fan of beams",
        ),
        (
            "beams = 3\nfov = 10.0",
            "directions = [[0.0, 0.0, -1.0], [0.0, 0.0, 0.0]]",
            "sensors[0].directions[1]: must be a non-zero direction",
        ),
        (
            "direction = [0.0, 0.0, -1.0]",
            "direction = [0.0, 0.0, -1.0]\norientation = [1.0, 0.0, 0.0, 0.0]",
            "sensors[0].direction: set one of orientation, axis_angle or direction",
        ),
        (
            "body = \"box\"\n\n[[sensors]]\nname = \"ft\"",
            "body = \"box\"\nfov = 3.0\n\n[[sensors]]\nname = \"ft\"",
            "sensors[1].fov: does not apply to a contact sensor",
        ),
        (
            "body = \"box\"\n\n[[sensors]]\nname = \"ft\"",
            "body = \"world\"\n\n[[sensors]]\nname = \"ft\"",
            "sensors[1].body: must name a body, not the static world",
        ),
        (
            "name = \"aura\"\ntype",
            "name = \"aura\"\nevery = 0\ntype",
            "sensors[3].every: must be at least 1, got 0",
        ),
        (
            "name = \"aura\" }",
            "name = \"aura\", collide = false }",
            "bodies[1].shapes[1].sensor: a sensor shape must take part in collision detection",
        ),
        (
            "sensor = true, name = \"aura\" }",
            "name = \"aura\" }",
            "sensors[3].body: body `box` has no sensor shape",
        ),
        (
            "type = \"overlap\"\nbody = \"box\"",
            "type = \"overlap\"\nbody = \"box\"\nshape = 0",
            "sensors[3].shape: shape 0 of body `box` is not a sensor",
        ),
        (
            "type = \"overlap\"\nbody = \"box\"",
            "type = \"overlap\"\nbody = \"box\"\nshape = 7",
            "sensors[3].shape: body `box` has 2 shapes (0 to 1), got 7",
        ),
        (
            "type = \"overlap\"\nbody = \"box\"",
            "type = \"overlap\"\nbody = \"box\"\nshape = \"halo\"",
            "sensors[3].shape: body `box` has no shape named `halo`",
        ),
        (
            "type = \"overlap\"\nbody = \"box\"",
            "type = \"overlap\"\nbody = \"ground\"",
            "sensors[3].body: body `ground` has no sensor shape",
        ),
        (
            "kind = \"static\"\nshapes = [{ type = \"plane\" }]",
            "kind = \"static\"\nccd = true\nshapes = [{ type = \"plane\" }]",
            "bodies[0].ccd: a static body never moves",
        ),
        (
            "steps = 2",
            "steps = 2\n[world]\ncontacts = false",
            "sensors[0].type: world.contacts = false builds no colliders",
        ),
    ];
    for (from, to, expected) in cases {
        let line = refused(from, to);
        assert!(
            line.starts_with("error: ") && line.contains("scene.toml: ") && line.contains(expected),
            "{to}: {line}"
        );
    }
}

#[test]
fn unknown_sensor_types_and_fields_are_located_by_line_and_column() {
    let line = refused("type = \"force_torque\"", "type = \"torque\"");
    let at = GOOD
        .lines()
        .position(|l| l.contains("force_torque"))
        .unwrap()
        + 1;
    assert!(
        line.starts_with("error: ") && line.contains(&format!("scene.toml:{at}:")),
        "{line}"
    );
    assert!(line.contains("unknown variant `torque`"), "{line}");
    let line = refused("max_range = 5.0", "max_range = 5.0\nrange = 3.0");
    assert!(line.contains("unknown field `range`"), "{line}");
}

#[test]
fn json_scenes_take_sensors_too() {
    let json = r#"{
  "steps": 2,
  "bodies": [{ "name": "ground", "kind": "static", "shapes": [{ "type": "plane" }] }],
  "sensors": [{ "name": "lidar", "type": "range", "direction": [0.0, 0.0, -1.0],
                "position": [0.0, 0.0, 1.5], "beams": 0, "max_range": 5.0 }]
}"#;
    let line = refused_as("scene.json", json);
    assert!(
        line.contains("scene.json: sensors[0].beams: must lie in [1, 65536], got 0"),
        "{line}"
    );
    let good = json.replace("\"beams\": 0", "\"beams\": 1");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("scene.json");
    std::fs::write(&file, good).unwrap();
    let out = dir.path().join("run");
    success(
        stiction()
            .args(["run", "--quiet", "--out"])
            .arg(&out)
            .arg(&file),
    );
    let (header, rows) = sensor_csv(&out.join("lidar.csv"));
    for d in values(&header, &rows, "beam0") {
        assert!(close(d, 1.5, 1e-12), "{d}");
    }
}
