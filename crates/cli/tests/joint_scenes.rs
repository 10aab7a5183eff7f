//! Every joint type of the scene format reaches the engine with its limits and motors: in a
//! contact-free scene with gravity, a welded (fixed) body stays put, a slider along z driven
//! by a strong motor at 0.5 m/s rises at 0.5 m/s, a motorised hinge about y turns at 2 rad/s,
//! a hinge with limits [-0.3, 0.3] stops near 0.3 rad, a distance joint keeps its anchor 0.8 m
//! from the world point, and universal and hinge-2 joints hold their anchors.

mod common;

use common::{column, read_csv, stiction, success};

const SCENE: &str = r#"
steps = 60
[world]
contacts = false

[[bodies]]
name = "welded"
position = [0.0, 0.0, 1.0]
shapes = [{ type = "box", half_extents = [0.1, 0.1, 0.1] }]

[[bodies]]
name = "lift"
position = [1.0, 0.0, 1.0]
shapes = [{ type = "box", half_extents = [0.1, 0.1, 0.1] }]

[[bodies]]
name = "wheel"
position = [2.0, 0.0, 1.0]
shapes = [{ type = "cylinder", radius = 0.2, half_height = 0.05, axis_angle = { axis = [1.0, 0.0, 0.0], degrees = 90.0 } }]

[[bodies]]
name = "door"
position = [3.5, 0.0, 1.0]
shapes = [{ type = "box", half_extents = [0.5, 0.02, 0.1] }]

[[bodies]]
name = "bob"
position = [4.8, 0.0, 1.0]
shapes = [{ type = "sphere", radius = 0.05 }]

[[bodies]]
name = "cross"
position = [6.0, 0.0, 0.5]
shapes = [{ type = "capsule", radius = 0.05, half_height = 0.4 }]

[[bodies]]
name = "tyre"
position = [7.0, 0.0, 1.0]
shapes = [{ type = "cylinder", radius = 0.2, half_height = 0.05, axis_angle = { axis = [1.0, 0.0, 0.0], degrees = 90.0 } }]

[[joints]]
type = "fixed"
body_a = "welded"

[[joints]]
type = "slider"
body_a = "lift"
axis = [0.0, 0.0, 1.0]
motor = { velocity = 0.5, max_force = 1000.0 }

[[joints]]
type = "hinge"
body_a = "wheel"
anchor = [2.0, 0.0, 1.0]
axis = [0.0, 1.0, 0.0]
motor = { velocity = 2.0, max_force = 1000.0 }

[[joints]]
type = "hinge"
body_a = "door"
anchor = [3.0, 0.0, 1.0]
axis = [0.0, 1.0, 0.0]
limits = { lower = -0.3, upper = 0.3 }

[[joints]]
type = "distance"
body_a = "bob"
anchor = [4.8, 0.0, 1.0]
anchor_b = [4.0, 0.0, 1.0]

[[joints]]
type = "universal"
body_a = "cross"
anchor = [6.0, 0.0, 1.0]
axis = [1.0, 0.0, 0.0]
axis2 = [0.0, 1.0, 0.0]

[[joints]]
type = "hinge2"
body_a = "tyre"
anchor = [7.0, 0.0, 1.0]
axis = [0.0, 0.0, 1.0]
axis2 = [0.0, 1.0, 0.0]
limits = { lower = 0.0, upper = 0.0 }
motor2 = { velocity = 3.0, max_force = 1000.0 }
"#;

#[test]
fn every_joint_type_acts_with_its_limits_and_motors() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("joints.toml");
    std::fs::write(&file, SCENE).unwrap();
    let run = dir.path().join("run");
    success(
        stiction()
            .args(["run", "--quiet", "--out"])
            .arg(&run)
            .arg(&file),
    );
    let (header, rows) = read_csv(&run.join("trajectory.csv"));
    let names: Vec<&str> = rows.iter().map(|r| r[2].as_str()).collect();
    let step = column(&header, &rows, "step");
    let value = |body: &str, name: &str, at: f64| {
        let col = column(&header, &rows, name);
        (0..rows.len())
            .find(|&i| names[i] == body && step[i] == at)
            .map(|i| col[i])
            .unwrap()
    };
    let close = |a: f64, b: f64, tol: f64, what: &str| {
        assert!((a - b).abs() <= tol, "{what}: {a} vs {b}");
    };
    close(value("welded", "z", 60.0), 1.0, 1e-6, "welded z");
    close(value("lift", "vz", 60.0), 0.5, 1e-3, "slider speed");
    close(value("lift", "z", 60.0), 1.5, 0.02, "slider rise");
    close(value("wheel", "wy", 60.0), 2.0, 1e-3, "hinge motor rate");
    // The door falls about y: its angle grows until the limit near 0.3 rad stops it.
    let (dx, dz) = (
        value("door", "x", 60.0) - 3.0,
        value("door", "z", 60.0) - 1.0,
    );
    let angle = (-dz).atan2(dx);
    close(angle.abs(), 0.3, 0.03, "limited hinge angle");
    let (bx, bz) = (value("bob", "x", 60.0) - 4.0, value("bob", "z", 60.0) - 1.0);
    close((bx * bx + bz * bz).sqrt(), 0.8, 1e-4, "distance");
    close(
        value("cross", "x", 60.0),
        6.0,
        1e-3,
        "universal anchor below its point",
    );
    close(
        value("tyre", "z", 60.0),
        1.0,
        1e-3,
        "hinge-2 holds the wheel",
    );
    close(value("tyre", "wy", 60.0), 3.0, 1e-2, "hinge-2 drive");
}
