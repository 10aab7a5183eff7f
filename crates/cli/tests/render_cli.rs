//! `stiction render` and `stiction demo` produce pictures a viewer can open: the GIF decodes
//! (with the `gif` crate) to the requested size and exactly the requested number of frames,
//! the body is visible in it (pixels of its colour, not only sky), the PNG stills carry the
//! right size in their header, and the SVG plots exist. Rendering a scene file runs it first.
//! The demo leaves a GIF and says where, with no residual warning for its S1 pyramid.

mod common;

use std::path::Path;

use common::{output, scenes_dir, stiction, success, texts};

/// Frames, width, height and the largest count of "red" pixels in any frame.
fn decode_gif(path: &Path) -> (usize, u16, u16, usize) {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options
        .read_info(std::fs::File::open(path).unwrap())
        .unwrap();
    let (width, height) = (decoder.width(), decoder.height());
    let mut frames = 0;
    let mut most_red = 0;
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        frames += 1;
        assert_eq!((frame.width, frame.height), (width, height));
        let red = frame
            .buffer
            .chunks_exact(4)
            .filter(|p| p[0] > 120 && u16::from(p[0]) > u16::from(p[2]) + 60)
            .count();
        most_red = most_red.max(red);
    }
    (frames, width, height, most_red)
}

fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&bytes[12..16], b"IHDR");
    let word = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (word(16), word(20))
}

#[test]
fn render_of_a_scene_file_makes_a_gif_of_the_requested_frames_stills_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    success(
        stiction()
            .args([
                "render", "--steps", "40", "--frames", "7", "--width", "64", "--height", "48",
            ])
            .args(["--quiet", "--out"])
            .arg(dir.path())
            .arg(scenes_dir().join("pendulum.toml")),
    );
    let (frames, width, height, red) = decode_gif(&dir.path().join("animation.gif"));
    assert_eq!((frames, width, height), (7, 64, 48));
    // The pendulum is drawn in its scene colour (0.85, 0.35, 0.2).
    assert!(red >= 5, "only {red} pendulum-coloured pixels");
    for still in ["first.png", "middle.png", "last.png"] {
        assert_eq!(png_size(&dir.path().join(still)), (64, 48), "{still}");
    }
    for plot in [
        "energy.svg",
        "momentum.svg",
        "penetration.svg",
        "residual.svg",
    ] {
        let svg = std::fs::read_to_string(dir.path().join(plot)).unwrap();
        assert!(svg.contains("<svg") && svg.contains("polyline"), "{plot}");
    }
}

#[test]
fn render_of_a_run_directory_reads_its_trajectory() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    success(
        stiction()
            .args(["run", "tennis-racket", "--steps", "12", "--quiet", "--out"])
            .arg(&run),
    );
    let images = dir.path().join("images");
    let stdout = success(
        stiction()
            .arg("render")
            .arg(&run)
            .args([
                "--width", "40", "--height", "30", "--frames", "100", "--json", "--out",
            ])
            .arg(&images)
            .args(["--eye", "0,-2,0.5", "--target", "0,0,0"]),
    );
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    // Only 13 states were recorded (steps 0..=12): no more frames than that.
    assert_eq!(summary["frames"], 13);
    assert_eq!(summary["eye"], serde_json::json!([0.0, -2.0, 0.5]));
    let (frames, width, height, _) = decode_gif(&images.join("animation.gif"));
    assert_eq!((frames, width, height), (13, 40, 30));
}

#[test]
fn out_of_range_view_options_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let result = output(
        stiction()
            .current_dir(dir.path())
            .args(["render", "pendulum", "--width", "5"]),
    );
    let (_, stderr) = texts(&result);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--width"), "{stderr}");
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "wrote something"
    );
}

#[test]
fn demo_runs_the_default_scene_and_leaves_a_gif() {
    let dir = tempfile::tempdir().unwrap();
    let result = output(stiction().args(["demo", "--json", "--out"]).arg(dir.path()));
    let (stdout, stderr) = texts(&result);
    assert_eq!(result.status.code(), Some(0), "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["scene"], "s1-pyramid-20");
    assert_eq!(summary["run"]["steps_done"], 600);
    // Twenty sweeps leave the resting pyramid's residual far below the warning's 1e-3
    // (1.4e-4 measured), though every step runs out of sweeps: no warning.
    assert!(stderr.is_empty(), "{stderr}");
    assert!(summary["run"]["warning"].is_null(), "{}", summary["run"]);
    let worst = summary["run"]["max_residual"].as_f64().unwrap();
    assert!(worst > 0.0 && worst < 1e-3, "{worst}");
    let gif = Path::new(summary["render"]["gif"].as_str().unwrap()).to_path_buf();
    assert_eq!(gif, dir.path().join("animation.gif"));
    let (frames, width, height, _) = decode_gif(&gif);
    assert_eq!((frames, width, height), (60, 400, 300));
}
