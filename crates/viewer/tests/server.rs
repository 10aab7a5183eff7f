//! The loopback server over raw TCP: its routes, what it refuses (paths outside them,
//! traversal, garbage, huge heads, foreign hosts), and that it keeps serving through it all.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use stiction_viewer::demo::{falling_stack, falling_stack_world, STEP};
use stiction_viewer::{
    serve, serve_live, Control, LiveFrame, Pacing, ServeHandle, ServeOptions, SolverName,
    ViewerScene, WorldSource, BUNDLE,
};

fn quiet() -> ServeOptions {
    ServeOptions {
        quiet: true,
        ..ServeOptions::default()
    }
}

fn scene() -> ViewerScene {
    falling_stack(10).unwrap()
}

/// Sends `request` as is and reads the whole answer (the server closes every connection).
fn exchange(addr: SocketAddr, request: &[u8]) -> Vec<u8> {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    // A write may fail if the server answered and closed first (huge requests): fine.
    let _ = s.write_all(request);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out
}

fn status(answer: &[u8]) -> u16 {
    let text = String::from_utf8_lossy(answer);
    let line = text.lines().next().unwrap_or("");
    assert!(line.starts_with("HTTP/1.1 "), "no status line in {text:?}");
    line[9..12].parse().unwrap()
}

fn body(answer: &[u8]) -> &[u8] {
    let i = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    &answer[i + 4..]
}

fn get(addr: SocketAddr, path: &str) -> Vec<u8> {
    exchange(
        addr,
        format!(
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
            addr.port()
        )
        .as_bytes(),
    )
}

fn post(addr: SocketAddr, path: &str, payload: &str) -> Vec<u8> {
    exchange(
        addr,
        format!(
            "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n{payload}",
            payload.len()
        )
        .as_bytes(),
    )
}

fn assert_alive(server: &ServeHandle) {
    let answer = get(server.addr(), "/");
    assert_eq!(status(&answer), 200);
    assert!(String::from_utf8_lossy(body(&answer)).contains("/viewer.js"));
}

#[test]
fn routes_serve_the_page_the_bundle_and_the_scene() {
    let scene = scene();
    let server = serve(&scene, quiet()).unwrap();
    let addr = server.addr();
    assert!(addr.ip().is_loopback());
    assert_ne!(addr.port(), 0);
    assert_eq!(server.url(), format!("http://{addr}/"));

    let page = get(addr, "/");
    assert_eq!(status(&page), 200);
    let head = String::from_utf8_lossy(&page[..page.len().min(400)]).to_string();
    assert!(head.contains("Content-Type: text/html"), "{head}");
    assert!(head.contains("Connection: close"));
    assert_eq!(body(&get(addr, "/index.html")), body(&page));

    let js = get(addr, "/viewer.js");
    assert_eq!(status(&js), 200);
    assert_eq!(body(&js), BUNDLE.as_bytes());

    let json = get(addr, "/scene.json?cache=1");
    assert_eq!(status(&json), 200);
    let back = ViewerScene::from_json(std::str::from_utf8(body(&json)).unwrap()).unwrap();
    assert_eq!(back.frames.len(), scene.frames.len());
    assert_eq!(back.frames[9].positions, scene.frames[9].positions);

    let head_only = exchange(addr, b"HEAD /viewer.js HTTP/1.1\r\nHost: [::1]\r\n\r\n");
    assert_eq!(status(&head_only), 200);
    assert!(body(&head_only).is_empty());
    assert!(
        String::from_utf8_lossy(&head_only).contains(&format!("Content-Length: {}", BUNDLE.len()))
    );

    // Not live: no /frame or /control.
    assert_eq!(status(&get(addr, "/frame")), 404);
    assert_eq!(status(&post(addr, "/control", "{\"type\":\"play\"}")), 404);
    server.stop();
}

#[test]
fn paths_outside_the_routes_are_refused() {
    let server = serve(&scene(), quiet()).unwrap();
    let addr = server.addr();
    for path in [
        "/../etc/passwd",
        "/..%2f..%2fetc%2fpasswd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/etc/passwd",
        "/./viewer.js",
        "//viewer.js",
        "/viewer.js/",
        "/viewer.js/../Cargo.toml",
        "/scene.json/..",
        "/Cargo.toml",
        "/crates/viewer/assets/viewer.js",
        "/src/lib.rs",
        "/..\\..\\windows\\win.ini",
        "/C:/Windows/win.ini",
    ] {
        let answer = get(addr, path);
        assert_eq!(status(&answer), 404, "{path}");
        assert!(
            !String::from_utf8_lossy(&answer).contains("root:"),
            "{path}"
        );
    }
    // Targets that are not paths at all.
    for target in ["../etc/passwd", "http://127.0.0.1/", "*", "etc/passwd"] {
        let answer = exchange(
            addr,
            format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").as_bytes(),
        );
        assert_eq!(status(&answer), 400, "{target}");
    }
    // Methods.
    let put = exchange(
        addr,
        b"PUT /scene.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}",
    );
    assert_eq!(status(&put), 405);
    assert!(String::from_utf8_lossy(&put).contains("Allow: GET, HEAD"));
    assert_eq!(status(&post(addr, "/", "x")), 405);
    assert_eq!(status(&post(addr, "/nothing", "x")), 404);
    assert_alive(&server);
}

#[test]
fn garbage_huge_heads_and_closed_connections_leave_it_serving() {
    let server = serve(&scene(), quiet()).unwrap();
    let addr = server.addr();
    // Garbage.
    for garbage in [
        &b"\x00\x01\x02\xff\xfe\r\n\r\n"[..],
        b"hello\r\n\r\n",
        b"GET\r\n\r\n",
        b"GET / HTTP/9.9\r\n\r\n",
        b"GET / HTTP/1.1 extra\r\n\r\n",
        b"get / HTTP/1.1\r\n\r\n",
        b"GET / HTTP/1.1\r\nno colon here\r\n\r\n",
        b"GET / HTTP/1.1\r\n: empty name\r\n\r\n",
        b"GET / HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
        b"GET / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n",
        b"GET /\xc3\x28 HTTP/1.1\r\n\r\n",
        b"GET /\t HTTP/1.1\r\n\r\n",
    ] {
        let answer = exchange(addr, garbage);
        assert_eq!(
            status(&answer),
            400,
            "{:?}",
            String::from_utf8_lossy(garbage)
        );
    }
    // Chunked bodies are not supported.
    let chunked = exchange(
        addr,
        b"POST /control HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    );
    assert_eq!(status(&chunked), 501);
    // A body larger than 64 KiB.
    let big = exchange(
        addr,
        b"POST /control HTTP/1.1\r\nContent-Length: 10000000\r\n\r\n",
    );
    assert_eq!(status(&big), 413);
    // Huge heads: one huge header, many headers, an endless request line.
    let mut huge = b"GET / HTTP/1.1\r\nX-Big: ".to_vec();
    huge.extend(std::iter::repeat_n(b'a', 100_000));
    huge.extend_from_slice(b"\r\n\r\n");
    assert_eq!(status(&exchange(addr, &huge)), 431);
    let mut many = b"GET / HTTP/1.1\r\n".to_vec();
    for i in 0..5000 {
        many.extend_from_slice(format!("X-{i}: v\r\n").as_bytes());
    }
    many.extend_from_slice(b"\r\n");
    assert_eq!(status(&exchange(addr, &many)), 431);
    let endless = vec![b'A'; 1 << 20];
    assert_eq!(status(&exchange(addr, &endless)), 431);
    // Connections closed early: before sending anything, half way through a request, and
    // right after the request without reading the answer.
    for partial in [
        &b""[..],
        b"GET /viewer.js HT",
        b"GET /viewer.js HTTP/1.1\r\n\r\n",
    ] {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(partial).unwrap();
        drop(s);
    }
    // A client that sends nothing does not hold the others up; it is dropped after 5 s.
    let mut idle = TcpStream::connect(addr).unwrap();
    let start = Instant::now();
    assert_alive(&server);
    assert!(start.elapsed() < Duration::from_secs(2));
    idle.set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    let mut sink = Vec::new();
    let _ = idle.read_to_end(&mut sink);
    assert!(sink.is_empty(), "an idle client gets no answer");
    assert!(start.elapsed() < Duration::from_secs(12));
    assert_alive(&server);
}

#[test]
fn foreign_hosts_are_refused() {
    let server = serve(&scene(), quiet()).unwrap();
    let addr = server.addr();
    for host in [
        "example.com",
        "evil.test:80",
        "10.0.0.1",
        "127.0.0.1.evil.test",
    ] {
        let answer = exchange(
            addr,
            format!("GET / HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes(),
        );
        assert_eq!(status(&answer), 403, "{host}");
    }
    // HTTP/1.0 without a Host header is fine.
    assert_eq!(status(&exchange(addr, b"GET / HTTP/1.0\r\n\r\n")), 200);
    assert_alive(&server);
}

#[test]
fn many_connections_at_once() {
    let server = serve(&scene(), quiet()).unwrap();
    let addr = server.addr();
    let threads: Vec<_> = (0..16)
        .map(|_| {
            std::thread::spawn(move || {
                (0..10)
                    .map(|_| status(&get(addr, "/scene.json")))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for t in threads {
        for s in t.join().unwrap() {
            // 503 only if more than 32 were open at once.
            assert!(s == 200 || s == 503, "{s}");
        }
    }
    assert_alive(&server);
}

#[test]
fn only_loopback_addresses_and_stop_ends_it() {
    let refused = serve(
        &scene(),
        ServeOptions {
            addr: "0.0.0.0:0".parse().unwrap(),
            ..quiet()
        },
    )
    .unwrap_err();
    assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput);
    // An invalid scene is refused too.
    let mut bad = scene();
    bad.frames[0].positions.pop();
    assert_eq!(
        serve(&bad, quiet()).unwrap_err().kind(),
        std::io::ErrorKind::InvalidData
    );

    let server = serve(&scene(), quiet()).unwrap();
    let addr = server.addr();
    assert_alive(&server);
    server.stop();
    assert!(server.is_stopped());
    server.stop(); // again: nothing
    drop(server);
    // Nothing listens there any more (the port is not reused so soon).
    let after = TcpStream::connect_timeout(&addr, Duration::from_secs(2));
    if let Ok(mut s) = after {
        s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let _ = s.write_all(b"GET / HTTP/1.1\r\n\r\n");
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        assert!(out.is_empty(), "a stopped server answered");
    }
    // wait() in one thread, stop() from another.
    let server = std::sync::Arc::new(serve(&scene(), quiet()).unwrap());
    let waiter = {
        let server = std::sync::Arc::clone(&server);
        std::thread::spawn(move || server.wait())
    };
    std::thread::sleep(Duration::from_millis(100));
    server.stop();
    waiter.join().unwrap();
}

#[test]
fn live_frames_and_controls() {
    let world = falling_stack_world().unwrap();
    let source = WorldSource::new(world, STEP).pacing(Pacing::PerRequest);
    let server = serve_live(source, quiet()).unwrap();
    let addr = server.addr();
    let page = String::from_utf8(body(&get(addr, "/")).to_vec()).unwrap();
    assert!(page.contains("\"live\": true"));
    let scene_json = get(addr, "/scene.json");
    let scene = ViewerScene::from_json(std::str::from_utf8(body(&scene_json)).unwrap()).unwrap();
    assert_eq!(scene.bodies.len(), 7);
    assert!(scene.frames.is_empty());

    let frame = |addr| -> LiveFrame {
        let answer = get(addr, "/frame");
        assert_eq!(status(&answer), 200);
        serde_json::from_slice(body(&answer)).unwrap()
    };
    // Paused: the same step every time.
    let first = frame(addr);
    assert_eq!(first.frame.step, 0);
    assert!(!first.playing);
    assert_eq!(frame(addr).frame.step, 0);
    // Step: one frame's steps (one at 1/60 s).
    assert_eq!(status(&post(addr, "/control", r#"{"type":"step"}"#)), 200);
    assert_eq!(frame(addr).frame.step, 1);
    assert_eq!(frame(addr).frame.step, 1);
    // Play: every request advances.
    assert_eq!(status(&post(addr, "/control", r#"{"type":"play"}"#)), 200);
    let a = frame(addr);
    let b = frame(addr);
    assert!(a.playing && b.frame.step == a.frame.step + 1);
    assert!(b.plots.contains_key("kinetic_energy"));
    assert_eq!(status(&post(addr, "/control", r#"{"type":"pause"}"#)), 200);
    // Grab the pendulum bob upwards, step, release.
    let grab = r#"{"type":"grab","body":5,"target":[1.2,0.0,3.0],"point":[1.2,0.0,1.6]}"#;
    assert_eq!(status(&post(addr, "/control", grab)), 200);
    for _ in 0..30 {
        post(addr, "/control", r#"{"type":"step"}"#);
    }
    let pulled = frame(addr);
    assert!(
        pulled.frame.positions[5][2] > 1.6,
        "{:?}",
        pulled.frame.positions[5]
    );
    assert_eq!(
        status(&post(addr, "/control", r#"{"type":"release"}"#)),
        200
    );
    // Bad messages.
    for bad in [
        r#"{"type":"grab","body":99,"target":[0,0,0]}"#,
        r#"{"type":"grab","body":5,"target":[0,0]}"#,
        r#"{"type":"fly"}"#,
        "not json",
        "",
    ] {
        let answer = post(addr, "/control", bad);
        assert_eq!(status(&answer), 400, "{bad}");
        let reply: serde_json::Value = serde_json::from_slice(body(&answer)).unwrap();
        assert_eq!(reply["ok"], false);
    }
    assert_eq!(status(&get(addr, "/control")), 405);
    assert_eq!(status(&post(addr, "/frame", "")), 405);
    // Reset: back to step 0 and the first positions.
    assert_eq!(status(&post(addr, "/control", r#"{"type":"reset"}"#)), 200);
    let reset = frame(addr);
    assert_eq!(reset.frame.step, 0);
    assert_eq!(reset.frame.positions, first.frame.positions);
    server.stop();
}

#[test]
fn world_source_without_a_server() {
    use stiction_viewer::LiveSource;
    let world = falling_stack_world().unwrap();
    let mut source = WorldSource::new(world, STEP / 4.0)
        .pacing(Pacing::PerRequest)
        .playing(true);
    let f0 = source.next_frame();
    // Four steps of 1/240 s per frame while playing.
    assert_eq!(f0.frame.step, 4);
    assert!((f0.frame.time - 4.0 * STEP / 4.0).abs() < 1e-12);
    source.control(Control::Pause).unwrap();
    assert_eq!(source.next_frame().frame.step, 4);
    source.control(Control::Step).unwrap();
    source.control(Control::Step).unwrap();
    assert_eq!(source.next_frame().frame.step, 12);
    assert!(source
        .control(Control::Grab {
            body: 0,
            target: [f64::NAN, 0.0, 0.0],
            point: None
        })
        .is_err());
    source.control(Control::Reset).unwrap();
    assert_eq!(source.next_frame().frame.step, 0);
    assert!(!source.is_playing());
}

fn live_frame(addr: SocketAddr, path: &str) -> LiveFrame {
    let answer = get(addr, path);
    assert_eq!(status(&answer), 200, "{path}");
    serde_json::from_slice(body(&answer)).unwrap()
}

#[test]
fn live_solver_switch_stats_and_state() {
    let world = falling_stack_world().unwrap();
    assert_eq!(SolverName::of(&world.settings().solver), SolverName::Exact);
    let source = WorldSource::new(world, STEP).pacing(Pacing::PerRequest);
    let server = serve_live(source, quiet()).unwrap();
    let addr = server.addr();
    // Before any step: the stepper, the energy, no step figures.
    let first = live_frame(addr, "/state");
    let stats = first.stats.clone().unwrap();
    assert_eq!(stats.solver, SolverName::Exact);
    assert_eq!(stats.step_ms, None);
    assert_eq!(
        (stats.contacts, stats.rows, stats.pivots, stats.sweeps),
        (0, 0, 0, 0)
    );
    assert!(stats.potential_energy > 0.0 && stats.kinetic_energy == 0.0);
    assert_eq!(stats.energy, stats.kinetic_energy + stats.potential_energy);
    // Let the stack land (exact): pivots, no sweeps.
    for _ in 0..40 {
        post(addr, "/control", r#"{"type":"step"}"#);
        live_frame(addr, "/frame");
    }
    let exact = live_frame(addr, "/state").stats.unwrap();
    assert_eq!(exact.solver, SolverName::Exact);
    assert!(
        exact.contacts > 0 && exact.rows >= exact.contacts,
        "{exact:?}"
    );
    assert!(exact.pivots > 0 && exact.sweeps == 0, "{exact:?}");
    assert!(exact.step_ms.unwrap() > 0.0 && exact.residual.is_some());
    // /state does not advance, even while playing.
    post(addr, "/control", r#"{"type":"play"}"#);
    let a = live_frame(addr, "/state");
    let b = live_frame(addr, "/state");
    assert_eq!(a.frame.step, b.frame.step);
    assert_eq!(a.frame.positions, b.frame.positions);
    post(addr, "/control", r#"{"type":"pause"}"#);
    // Switch to the iterative stepper: the next step sweeps and does not pivot.
    let answer = post(
        addr,
        "/control",
        r#"{"type":"solver","solver":"iterative"}"#,
    );
    assert_eq!(status(&answer), 200);
    assert_eq!(
        live_frame(addr, "/state").stats.unwrap().solver,
        SolverName::Iterative
    );
    post(addr, "/control", r#"{"type":"step"}"#);
    let iterative = live_frame(addr, "/frame").stats.unwrap();
    assert_eq!(iterative.solver, SolverName::Iterative);
    assert_eq!(iterative.steps, 1);
    assert!(
        iterative.sweeps > 0 && iterative.pivots == 0,
        "{iterative:?}"
    );
    // Reset keeps the stepper chosen.
    post(addr, "/control", r#"{"type":"reset"}"#);
    let reset = live_frame(addr, "/state");
    assert_eq!(reset.frame.step, 0);
    assert_eq!(reset.stats.unwrap().solver, SolverName::Iterative);
    assert_eq!(
        status(&post(
            addr,
            "/control",
            r#"{"type":"solver","solver":"exact"}"#
        )),
        200
    );
    assert_eq!(
        live_frame(addr, "/state").stats.unwrap().solver,
        SolverName::Exact
    );
    // Malformed solver and speed messages: 400 with the reason, and nothing changed.
    for bad in [
        r#"{"type":"solver","solver":"quantum"}"#,
        r#"{"type":"solver"}"#,
        r#"{"type":"solver","solver":3}"#,
        r#"{"type":"speed","speed":0}"#,
        r#"{"type":"speed","speed":-1}"#,
        r#"{"type":"speed","speed":4.5}"#,
        r#"{"type":"speed","speed":"fast"}"#,
        r#"{"type":"speed"}"#,
    ] {
        let answer = post(addr, "/control", bad);
        assert_eq!(status(&answer), 400, "{bad}");
        let reply: serde_json::Value = serde_json::from_slice(body(&answer)).unwrap();
        assert_eq!(reply["ok"], false, "{bad}");
        assert!(!reply["error"].as_str().unwrap().is_empty(), "{bad}");
    }
    let state = live_frame(addr, "/state").stats.unwrap();
    assert_eq!((state.solver, state.speed), (SolverName::Exact, 1.0));
    assert_eq!(status(&post(addr, "/state", "")), 405);
    server.stop();
    // A recorded (not live) server has no /state.
    let server = serve(&falling_stack(2).unwrap(), quiet()).unwrap();
    assert_eq!(status(&get(server.addr(), "/state")), 404);
}

#[test]
fn speed_scales_stepping() {
    use stiction_viewer::LiveSource;
    // Per request: a quarter of one step per frame at 0.25x.
    let world = falling_stack_world().unwrap();
    let mut source = WorldSource::new(world.clone(), STEP)
        .pacing(Pacing::PerRequest)
        .playing(true);
    source.control(Control::Speed { speed: 0.25 }).unwrap();
    let steps: Vec<u64> = (0..8).map(|_| source.next_frame().frame.step).collect();
    assert_eq!(steps, [0, 0, 0, 1, 1, 1, 1, 2]);
    assert!(source.control(Control::Speed { speed: f64::NAN }).is_err());
    assert_eq!(source.speed(), 0.25);
    // Real time: the wall clock between requests decides, times the speed.
    let h = 1.0 / 240.0;
    let run = |speed: f64| {
        let mut source = WorldSource::new(world.clone(), h);
        source.control(Control::Speed { speed }).unwrap();
        source.control(Control::Play).unwrap();
        let started = Instant::now();
        let mut last = source.next_frame();
        while started.elapsed() < Duration::from_millis(600) {
            std::thread::sleep(Duration::from_millis(16));
            last = source.next_frame();
        }
        last.frame.time / started.elapsed().as_secs_f64()
    };
    let full = run(1.0);
    let slow = run(0.1);
    // Real time within what a loaded 2-core machine keeps (steps of this stack are fast).
    assert!(full > 0.8 && full <= 1.0 + 1e-9, "1x: {full}");
    assert!(slow > 0.06 && slow < 0.12, "0.1x: {slow}");
}
