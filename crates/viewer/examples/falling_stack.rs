//! The viewer on a small recorded scene (a stack of boxes falling, 120 frames).
//!
//! ```sh
//! cargo run -p stiction-viewer --example falling_stack -- html out/stack.html  # one file
//! cargo run -p stiction-viewer --example falling_stack -- json out/stack.json  # the data
//! cargo run -p stiction-viewer --example falling_stack -- serve [--open]       # recorded
//! cargo run -p stiction-viewer --example falling_stack -- live [--open]        # live world
//! ```
//!
//! `--frames N` changes the number of frames (default 120). `serve` and `live` print the
//! page's address and run until Ctrl-C (or until standard input closes, with `--stdin`).

use std::path::PathBuf;
use std::process::ExitCode;

use stiction_viewer::demo::{falling_stack, falling_stack_world, BODY_NAMES, STEP};
use stiction_viewer::{serve, serve_live, write_html, ServeOptions, ViewerScene, WorldSource};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), stiction_viewer::demo::DemoError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut frames = 120usize;
    let mut open = false;
    let mut until_stdin_closes = false;
    let mut positional = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--frames" => frames = it.next().ok_or("--frames needs a number")?.parse()?,
            "--open" => open = true,
            "--stdin" => until_stdin_closes = true,
            _ => positional.push(arg.clone()),
        }
    }
    let options = ServeOptions {
        open_browser: open,
        ..ServeOptions::default()
    };
    match positional.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["html", out] => {
            write_html(&falling_stack(frames)?, &PathBuf::from(out))?;
            println!("{out}");
        }
        ["json", out] => {
            std::fs::write(out, falling_stack(frames)?.to_json())?;
            println!("{out}");
        }
        ["serve"] => {
            let handle = serve(&falling_stack(frames)?, options)?;
            finish(handle, until_stdin_closes);
        }
        ["live"] => {
            let world = falling_stack_world()?;
            let mut scene = ViewerScene::from_world_named(
                &world,
                |_, i| BODY_NAMES[i].to_string(),
                |_, _| "pivot".to_string(),
            );
            scene.title = "falling stack (live)".to_string();
            let source = WorldSource::new(world, STEP).with_scene(scene);
            let handle = serve_live(source, options)?;
            finish(handle, until_stdin_closes);
        }
        _ => return Err("usage: falling_stack html OUT | json OUT | serve | live [--frames N] [--open] [--stdin]".into()),
    }
    Ok(())
}

fn finish(handle: stiction_viewer::ServeHandle, until_stdin_closes: bool) {
    if until_stdin_closes {
        let mut sink = String::new();
        while std::io::stdin().read_line(&mut sink).is_ok_and(|n| n > 0) {}
        handle.stop();
    } else {
        handle.wait();
    }
}
