//! `stiction demo`: run the default scene and render it, leaving a GIF to open.
//!
//! The default is the S1 pyramid; while the engine cannot build it (no contacts yet) the
//! demo says so and shows the S3 chain instead.

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use crate::error::CliError;
use crate::output::OutputArgs;
use crate::render::{self, RenderSummary, ViewArgs};
use crate::run::{self, Overrides, RunSummary};
use crate::scene::SceneError;

/// The scene the demo shows when the engine can build it.
pub const DEFAULT_SCENE: &str = "s1-pyramid-20";
/// The scene it shows otherwise.
pub const FALLBACK_SCENE: &str = "s3-chain-100";

/// Arguments of `stiction demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Output directory [default: out/demo].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// What the demo did.
#[derive(Debug, Serialize)]
pub struct DemoSummary {
    /// The scene shown.
    pub scene: String,
    /// Why it is not the default scene, if it is not.
    pub note: Option<String>,
    /// The run.
    pub run: RunSummary,
    /// The pictures.
    pub render: RenderSummary,
}

/// `stiction demo`.
pub fn demo(args: DemoArgs) -> Result<std::process::ExitCode, CliError> {
    let out = args.out.unwrap_or_else(|| Path::new("out").join("demo"));
    let overrides = Overrides::default();
    let (scene, note, (file, built)) = match run::prepare(Path::new(DEFAULT_SCENE), &overrides) {
        Ok(prepared) => (DEFAULT_SCENE, None, prepared),
        Err(SceneError::Unsupported { what, .. }) => {
            let note =
                format!("{DEFAULT_SCENE} is not runnable yet ({what}); showing {FALLBACK_SCENE}");
            let prepared = run::prepare(Path::new(FALLBACK_SCENE), &overrides)?;
            (FALLBACK_SCENE, Some(note), prepared)
        }
        Err(e) => return Err(e.into()),
    };
    if let (Some(note), false) = (&note, args.output.quiet || args.output.json) {
        eprintln!("note: {note}");
    }
    let run = run::execute(&file, built, &out, args.output.show_progress())?;
    // Small frames keep the demo quick on two cores; `stiction render` makes larger ones.
    let view = ViewArgs {
        width: Some(400),
        height: Some(300),
        frames: Some(60),
        ..ViewArgs::default()
    };
    let render = render::render_run_dir(&out, &out, &view)?;
    let mut lines = run::summary_lines(&run);
    lines.extend(render::summary_lines(&render));
    lines.push(format!("open {}", render.gif.display()));
    let exit = run::summary_exit(&run);
    let summary = DemoSummary {
        scene: scene.to_string(),
        note,
        run,
        render,
    };
    args.output.print_summary(&summary, &lines);
    Ok(exit)
}
