//! `stiction view`: a recorded S4 run written as one HTML file holds the run's data, read
//! back from the embedded JSON (docs/viewer.md#stiction-view): every recorded step is a
//! frame whose positions and orientations are the trajectory's, bit for bit, and the plots
//! are stats.csv's columns; contacts come from contact_forces.csv. The served page answers
//! the same data, a live view steps on request, and bad run directories are refused with
//! one `error: ` line and exit status 2, writing nothing.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use common::{output, read_csv, stiction, success, texts};
use serde_json::Value;

/// Runs `stiction run SCENE --steps N --out DIR` (quietly) and returns DIR.
fn run_scene(dir: &Path, scene: &str, steps: u32) -> PathBuf {
    let out = dir.join("run");
    success(
        stiction()
            .args([
                "run",
                scene,
                "--steps",
                &steps.to_string(),
                "--quiet",
                "--out",
            ])
            .arg(&out),
    );
    out
}

/// `stiction view RUN --html FILE`, returning the scene embedded in the file.
fn view_html(run: &Path, file: &Path) -> (String, Value) {
    let stdout = success(stiction().arg("view").arg(run).arg("--html").arg(file));
    let html = std::fs::read_to_string(file).unwrap();
    (stdout, embedded_scene(&html))
}

/// The scene JSON of a viewer HTML file: the text of its
/// `<script type="application/json" id="stiction-scene">` element.
fn embedded_scene(html: &str) -> Value {
    let open = r#"<script type="application/json" id="stiction-scene">"#;
    let start = html.find(open).expect("the HTML embeds a scene") + open.len();
    let end = start + html[start..].find("</script>").expect("the element ends");
    serde_json::from_str(&html[start..end]).expect("the embedded scene is JSON")
}

/// trajectory.csv's rows grouped by step: (step, time, [(body, [x..qz] as text)]).
type Step = (u64, String, Vec<(String, Vec<String>)>);

fn trajectory_steps(run: &Path) -> Vec<Step> {
    let (header, rows) = read_csv(&run.join("trajectory.csv"));
    assert_eq!(
        &header[..10],
        ["step", "time", "body", "x", "y", "z", "qw", "qx", "qy", "qz"]
    );
    let mut steps: Vec<Step> = Vec::new();
    for row in rows {
        let step: u64 = row[0].parse().unwrap();
        if steps.last().is_none_or(|s| s.0 != step) {
            steps.push((step, row[1].clone(), Vec::new()));
        }
        let values = row[3..10].to_vec();
        steps.last_mut().unwrap().2.push((row[2].clone(), values));
    }
    steps
}

fn numbers(value: &Value) -> Vec<f64> {
    value
        .as_array()
        .expect("an array")
        .iter()
        .map(|v| v.as_f64().expect("a number"))
        .collect()
}

#[test]
fn a_recorded_s4_run_written_as_html_holds_every_frame_of_the_trajectory_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_scene(dir.path(), "s4-stack-20", 120);
    let file = dir.path().join("page").join("s4.html");
    let (stdout, scene) = view_html(&run, &file);
    assert!(
        stdout.contains("s4-stack-20: 13 frames of 21 bodies"),
        "{stdout}"
    );
    assert!(stdout.contains("wrote"), "{stdout}");

    assert_eq!(scene["version"], 1);
    assert_eq!(scene["title"], "s4-stack-20");
    let bodies: Vec<&str> = scene["bodies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(bodies.len(), 21);
    assert_eq!(bodies[0], "ground");
    assert_eq!(scene["bodies"][0]["shapes"][0]["kind"], "plane");
    assert_eq!(scene["bodies"][1]["kind"], "dynamic");
    assert_eq!(scene["bodies"][1]["mass"], 1.0);
    assert_eq!(scene["bodies"][1]["shapes"][0]["kind"], "box");
    assert_eq!(
        numbers(&scene["bodies"][1]["shapes"][0]["half_extents"]),
        [0.5, 0.5, 0.5]
    );

    // Every recorded step (every 10th, and step 0) is a frame: the trajectory's values,
    // bit for bit (the CSV holds shortest round-trip decimals, the JSON too).
    let steps = trajectory_steps(&run);
    let frames = scene["frames"].as_array().unwrap();
    assert_eq!(frames.len(), steps.len());
    assert_eq!(frames.len(), 13);
    for (frame, (step, time, rows)) in frames.iter().zip(&steps) {
        assert_eq!(frame["step"].as_u64(), Some(*step));
        assert_eq!(frame["time"].as_f64(), Some(time.parse::<f64>().unwrap()));
        assert_eq!(rows.len(), bodies.len(), "step {step}");
        for (name, values) in rows {
            let b = bodies.iter().position(|n| n == name).unwrap();
            let csv: Vec<f64> = values.iter().map(|v| v.parse().unwrap()).collect();
            let position = numbers(&frame["positions"][b]);
            let orientation = numbers(&frame["orientations"][b]);
            for (k, (got, want)) in position.iter().chain(&orientation).zip(&csv).enumerate() {
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "step {step}, body {name}, value {k}: {got} != {want}"
                );
            }
            assert_eq!(numbers(&frame["velocities"][b]).len(), 3);
        }
    }
    // The last frame against the CSV's last rows, to 1e-9 as the brief states it.
    let last = frames.last().unwrap();
    let (_, _, rows) = steps.last().unwrap();
    for (name, values) in rows {
        let b = bodies.iter().position(|n| n == name).unwrap();
        for (got, want) in numbers(&last["positions"][b]).iter().zip(values) {
            assert!((got - want.parse::<f64>().unwrap()).abs() <= 1e-9);
        }
    }
    // The tower has fallen a little under gravity since step 0: frames differ.
    assert_ne!(frames[0]["positions"], last["positions"]);

    // Plots: stats.csv's columns, one value per frame; no contacts file, no contact plot.
    let plots = scene["plots"].as_object().unwrap();
    for name in [
        "energy",
        "kinetic_energy",
        "potential_energy",
        "momentum_x",
        "momentum_z",
        "angular_momentum_y",
        "max_penetration",
        "max_joint_error",
        "residual",
        "pivots",
        "sweeps",
    ] {
        assert_eq!(
            plots[name].as_array().map(Vec::len),
            Some(13),
            "plot {name}"
        );
    }
    assert!(!plots.contains_key("contacts"));
    let (header, stats) = read_csv(&run.join("stats.csv"));
    let energy = common::column(&header, &stats, "energy");
    assert_eq!(numbers(&plots["energy"]), energy);
    let pivots = common::column(&header, &stats, "pivots");
    assert_eq!(numbers(&plots["pivots"]), pivots);
    assert!(pivots.iter().any(|&p| p > 0.0), "S4 pivots: {pivots:?}");

    // The page is self-contained: no reference to another file.
    let html = std::fs::read_to_string(&file).unwrap();
    assert!(!html.contains("src=\""), "an external script");
    assert!(!html.contains("href=\""), "an external link");

    // --json reports the same.
    let json = success(
        stiction()
            .arg("view")
            .arg(&run)
            .arg("--html")
            .arg(dir.path().join("again.html"))
            .arg("--json"),
    );
    let summary: Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(summary["mode"], "html");
    assert_eq!(summary["frames"], 13);
    assert_eq!(summary["bodies"], 21);
}

const TWO_BOXES: &str = r#"
name = "two-boxes"
steps = 30

[record]
every = 5
contact_forces = true

[[bodies]]
name = "ground"
kind = "static"
shapes = [{ type = "plane" }]

[[bodies]]
name = "low"
position = [0.0, 0.0, 0.5]
shapes = [{ type = "box", half_extents = [0.5, 0.5, 0.5] }]

[[bodies]]
name = "high"
position = [0.1, 0.0, 1.5]
shapes = [{ type = "box", half_extents = [0.5, 0.5, 0.5] }]
"#;

#[test]
fn contacts_and_their_count_come_from_contact_forces_csv() {
    let dir = tempfile::tempdir().unwrap();
    let scene_file = dir.path().join("two-boxes.toml");
    std::fs::write(&scene_file, TWO_BOXES).unwrap();
    let run = run_scene(dir.path(), scene_file.to_str().unwrap(), 30);
    let (_, scene) = view_html(&run, &dir.path().join("boxes.html"));
    let bodies: Vec<&str> = scene["bodies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(bodies, ["ground", "low", "high"]);

    let (header, rows) = read_csv(&run.join("contact_forces.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let frames = scene["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 7);
    let mut total = 0;
    let counts = numbers(&scene["plots"]["contacts"]);
    for (f, frame) in frames.iter().enumerate() {
        let step = frame["step"].as_u64().unwrap().to_string();
        let csv: Vec<&Vec<String>> = rows.iter().filter(|r| r[col("step")] == step).collect();
        let contacts = frame["contacts"].as_array().unwrap();
        assert_eq!(contacts.len(), csv.len(), "step {step}");
        assert_eq!(counts[f], csv.len() as f64);
        for (contact, row) in contacts.iter().zip(&csv) {
            let body = |name: &str| match name {
                "world" => Value::Null,
                name => Value::from(bodies.iter().position(|b| *b == name).unwrap()),
            };
            assert_eq!(contact["bodies"][0], body(&row[col("body_a")]));
            assert_eq!(contact["bodies"][1], body(&row[col("body_b")]));
            let value = |name: &str| row[col(name)].parse::<f64>().unwrap();
            assert_eq!(
                numbers(&contact["force"]),
                [value("force_x"), value("force_y"), value("force_z")]
            );
            assert_eq!(
                numbers(&contact["normal"]),
                [value("normal_x"), value("normal_y"), value("normal_z")]
            );
            assert_eq!(contact["separation"].as_f64(), Some(value("separation")));
        }
        total += contacts.len();
    }
    // Box on ground and box on box: contacts in the resting frames.
    assert!(total >= 8, "{total} contacts");
}

/// Runs `stiction view ARGS`, expecting exit status 2 and one `error: ` line containing
/// `needle`, and no HTML file.
fn refused(args: &[&std::ffi::OsStr], needle: &str, html: &Path) {
    let out = output(stiction().arg("view").args(args).arg("--html").arg(html));
    let (stdout, stderr) = texts(&out);
    assert_eq!(
        out.status.code(),
        Some(2),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(needle), "expected `{needle}` in: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!html.exists(), "{} was written", html.display());
}

#[test]
fn bad_run_directories_are_refused_with_one_error_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_scene(dir.path(), "s4-stack-20", 20);
    let html = dir.path().join("never.html");
    let copy = |name: &str, change: &dyn Fn(&Path)| -> PathBuf {
        let to = dir.path().join(name);
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(&run).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
        change(&to);
        to
    };
    let edit = |path: PathBuf, f: &dyn Fn(String) -> String| {
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, f(text)).unwrap();
    };
    let os = |p: &Path| p.as_os_str().to_owned();

    // Not a run directory at all.
    let missing = dir.path().join("no-such-dir");
    refused(&[missing.as_os_str()], "no such run directory", &html);
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    refused(
        &[empty.as_os_str()],
        "not a run directory (no scene.json)",
        &html,
    );
    let scene_file = common::scenes_dir().join("pendulum.toml");
    refused(&[scene_file.as_os_str()], "--live", &html);
    refused(&["s4-stack-20".as_ref()], "built-in scene", &html);

    // scene.json that does not parse.
    let bad = copy("bad-scene", &|d| {
        std::fs::write(d.join("scene.json"), "{").unwrap()
    });
    refused(&[&os(&bad)], "scene.json", &html);

    // Missing, empty and malformed trajectories.
    let no_trajectory = copy("no-trajectory", &|d| {
        std::fs::remove_file(d.join("trajectory.csv")).unwrap()
    });
    refused(&[&os(&no_trajectory)], "trajectory.csv: missing", &html);
    let header_only = copy("header-only", &|d| {
        edit(d.join("trajectory.csv"), &|t| {
            t.lines().next().unwrap().to_string() + "\n"
        })
    });
    refused(&[&os(&header_only)], "no recorded steps", &html);
    let short_row = copy("short-row", &|d| {
        edit(d.join("trajectory.csv"), &|t| t + "20,0.33,box3,1,2\n")
    });
    refused(&[&os(&short_row)], "5 fields, the header has 18", &html);
    let not_a_number = copy("not-a-number", &|d| {
        edit(d.join("trajectory.csv"), &|t| {
            t.replacen("0,0,box0,0,0,0.5,", "0,0,box0,zero,0,0.5,", 1)
        })
    });
    refused(&[&os(&not_a_number)], "`x` is not a number: zero", &html);
    let nan = copy("nan", &|d| {
        edit(d.join("trajectory.csv"), &|t| {
            t.replacen("0,0,box0,0,0,0.5,", "0,0,box0,NaN,0,0.5,", 1)
        })
    });
    refused(&[&os(&nan)], "`x` is not finite", &html);

    // Trajectories whose bodies do not match the scene.
    let missing_body = copy("missing-body", &|d| {
        edit(d.join("trajectory.csv"), &|t| {
            t.lines()
                .filter(|l| !(l.starts_with("20,") && l.contains(",box7,")))
                .map(|l| format!("{l}\n"))
                .collect()
        })
    });
    refused(
        &[&os(&missing_body)],
        "step 20 has rows for 20 of the 21 bodies of scene.json (missing box7)",
        &html,
    );
    let unknown_body = copy("unknown-body", &|d| {
        edit(d.join("trajectory.csv"), &|t| {
            t.replace(",box19,", ",box99,")
        })
    });
    refused(
        &[&os(&unknown_body)],
        "body `box99` is not in scene.json",
        &html,
    );
    let fewer_bodies = copy("fewer-bodies", &|d| {
        edit(d.join("scene.json"), &|t| {
            let mut scene: Value = serde_json::from_str(&t).unwrap();
            scene["bodies"].as_array_mut().unwrap().pop();
            serde_json::to_string(&scene).unwrap()
        })
    });
    refused(&[&os(&fewer_bodies)], "does not match the scene", &html);
    let twice = copy("twice", &|d| {
        edit(d.join("trajectory.csv"), &|t| {
            t.replacen(",box1,", ",box0,", 1)
        })
    });
    refused(&[&os(&twice)], "body `box0` appears twice at step 0", &html);

    // stats.csv: recorded by the scene, so it must be there and parse.
    let no_stats = copy("no-stats", &|d| {
        std::fs::remove_file(d.join("stats.csv")).unwrap()
    });
    refused(&[&os(&no_stats)], "stats.csv: missing", &html);
    let bad_stats = copy("bad-stats", &|d| {
        edit(d.join("stats.csv"), &|t| t.replacen("\n0,", "\nzero,", 1))
    });
    refused(&[&os(&bad_stats)], "`step` is not a whole number", &html);

    // Options that do not apply.
    refused(
        &[&os(&run), "--base".as_ref(), "fixed".as_ref()],
        "--live",
        &html,
    );
    let out = output(
        stiction()
            .arg("view")
            .arg(&run)
            .args(["--addr", "10.1.2.3:8000"]),
    );
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("loopback"), "{stderr}");
    for args in [
        vec!["--solver", "exact"],
        vec!["--live", "--html", "x.html"],
        vec!["--html", "x.html", "--addr", "127.0.0.1:0"],
    ] {
        let out = output(stiction().arg("view").arg(&run).args(&args));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// A child process killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `stiction view ARGS` and returns it with the first line of its stdout that
/// satisfies `wanted`.
fn start(args: &[&std::ffi::OsStr], wanted: impl Fn(&str) -> bool) -> (Server, String) {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_stiction"))
        .arg("view")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut server = Server(child);
    let stdout = server.0.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let line = loop {
        let line = lines
            .next()
            .expect("the server printed its address")
            .unwrap();
        if wanted(&line) {
            break line;
        }
    };
    (server, line)
}

/// The address `http://ADDR/` in a line.
fn address(line: &str) -> String {
    let start = line.find("http://").expect("a URL") + "http://".len();
    let end = start + line[start..].find('/').unwrap();
    line[start..end].to_string()
}

/// One HTTP request; the status code and the body.
fn request(addr: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

#[test]
fn a_run_directory_is_served_on_loopback_with_the_same_data() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_scene(dir.path(), "s4-stack-20", 20);
    let (_, embedded) = view_html(&run, &dir.path().join("s4.html"));
    let (_server, line) = start(
        &[run.as_os_str(), "--addr".as_ref(), "127.0.0.1:0".as_ref()],
        |l| l.starts_with("stiction viewer: http://127.0.0.1:"),
    );
    assert!(line.ends_with("(Ctrl-C to stop)"), "{line}");
    let addr = address(&line);
    let (status, page) = request(&addr, "GET", "/", "");
    assert_eq!(status, 200);
    assert!(page.contains("/viewer.js"));
    let (status, json) = request(&addr, "GET", "/scene.json", "");
    assert_eq!(status, 200);
    let served: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(served, embedded);
    assert_eq!(request(&addr, "GET", "/trajectory.csv", "").0, 404);
}

#[test]
fn a_scene_is_served_live_and_steps_on_request() {
    let (_server, line) = start(
        &["s4-stack-20".as_ref(), "--live".as_ref(), "--json".as_ref()],
        |l| l.starts_with('{'),
    );
    let summary: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(summary["mode"], "live");
    assert_eq!(summary["bodies"], 21);
    let addr = address(summary["url"].as_str().unwrap());
    let (status, json) = request(&addr, "GET", "/scene.json", "");
    assert_eq!(status, 200);
    let scene: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(scene["title"], "s4-stack-20");
    assert_eq!(scene["bodies"][20]["name"], "box19");
    let frame = |addr: &str| -> Value {
        let (status, body) = request(addr, "GET", "/frame", "");
        assert_eq!(status, 200);
        serde_json::from_str(&body).unwrap()
    };
    let first = frame(&addr);
    assert_eq!(first["frame"]["step"], 0);
    assert_eq!(first["playing"], false);
    assert_eq!(numbers(&first["frame"]["positions"][20]), [0.0, 0.0, 19.5]);
    assert_eq!(
        request(&addr, "POST", "/control", r#"{"type":"step"}"#).0,
        200
    );
    let next = frame(&addr);
    assert_eq!(next["frame"]["step"], 1, "one step of 1/60 s per frame");
    assert!(numbers(&next["frame"]["positions"][20])[2] < 19.5);
    assert_eq!(
        request(&addr, "POST", "/control", r#"{"type":"reset"}"#).0,
        200
    );
    assert_eq!(frame(&addr)["frame"]["step"], 0);
}

#[test]
fn a_run_directory_is_served_live_from_its_scene_with_another_solver() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_scene(dir.path(), "pendulum", 5);
    let (_server, line) = start(
        &[
            run.as_os_str(),
            "--live".as_ref(),
            "--solver".as_ref(),
            "iterative".as_ref(),
            "--json".as_ref(),
        ],
        |l| l.starts_with('{'),
    );
    let summary: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(summary["scene"], "pendulum");
    let addr = address(summary["url"].as_str().unwrap());
    let (status, json) = request(&addr, "GET", "/scene.json", "");
    assert_eq!(status, 200);
    let scene: Value = serde_json::from_str(&json).unwrap();
    assert!(!scene["joints"].as_array().unwrap().is_empty());
}

/// trajectory.csv records each body's sleep state and island, and the viewer's frames carry
/// them: two separate two-box stacks are two islands, the ground in none; with sleeping
/// on, the resting stacks are asleep by the end.
#[test]
fn recorded_runs_carry_sleep_and_islands_into_the_viewer() {
    let dir = tempfile::tempdir().unwrap();
    let mut scene = String::from(
        "name = \"two-stacks\"\nsteps = 120\n[world]\nsleeping = true\n[record]\nevery = 10\n\
         [[bodies]]\nname = \"ground\"\nkind = \"static\"\nshapes = [{ type = \"plane\" }]\n",
    );
    for (stack, x) in [("a", -3.0), ("b", 3.0)] {
        for k in 0..2 {
            scene.push_str(&format!(
                "[[bodies]]\nname = \"{stack}{k}\"\nmass = 1.0\nposition = [{x}, 0.0, {}]\n\
                 shapes = [{{ type = \"box\", half_extents = [0.5, 0.5, 0.5] }}]\n",
                0.5 + k as f64
            ));
        }
    }
    let path = dir.path().join("two-stacks.toml");
    std::fs::write(&path, scene).unwrap();
    let run = run_scene(dir.path(), path.to_str().unwrap(), 120);
    let (header, rows) = read_csv(&run.join("trajectory.csv"));
    assert_eq!(&header[16..], ["asleep", "island"]);
    let file = dir.path().join("two.html");
    let (_, scene) = view_html(&run, &file);
    let frames = scene["frames"].as_array().unwrap();
    let first = &frames[1];
    let islands: Vec<Value> = first["islands"].as_array().unwrap().clone();
    // ground, a0, a1, b0, b1: the ground in no island, each stack one island.
    assert_eq!(islands[0], Value::Null);
    assert_eq!(islands[1], islands[2]);
    assert_eq!(islands[3], islands[4]);
    assert_ne!(islands[1], islands[3]);
    assert!(islands[1].is_u64() && islands[3].is_u64());
    assert_eq!(first["sleeping"][1], false);
    let last = frames.last().unwrap();
    for b in 1..5 {
        assert_eq!(
            last["sleeping"][b], true,
            "body {b} at the end: {}",
            last["sleeping"]
        );
    }
    // The CSV and the frames agree row for row at the last step.
    let last_rows: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == "120").collect();
    assert_eq!(last_rows.len(), 5);
    assert!(last_rows[1..].iter().all(|r| r[16] == "1"));
    assert_eq!(last_rows[0][17], "");

    // A sleep flag that is not 0 or 1 is refused with the line.
    let text = std::fs::read_to_string(run.join("trajectory.csv")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let last = lines.len() - 1;
    let mut fields: Vec<String> = lines[last].split(',').map(str::to_string).collect();
    fields[16] = "yes".into();
    lines[last] = fields.join(",");
    std::fs::write(run.join("trajectory.csv"), lines.join("\n") + "\n").unwrap();
    let result = output(stiction().arg("view").arg(&run).arg("--html").arg(&file));
    let (_, stderr) = texts(&result);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("line {}: asleep is `yes`, not 0 or 1", last + 1)),
        "{stderr}"
    );
}
