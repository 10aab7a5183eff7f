//! `stiction demo`: run the default scene and render it, leaving a GIF to open.
//!
//! The scene is the S1 pyramid: 210 boxes settling under gravity and friction.

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use crate::error::CliError;
use crate::output::OutputArgs;
use crate::render::{self, RenderSummary, ViewArgs};
use crate::run::{self, Overrides, RunSummary};
use crate::scene::parse::Source;

/// The scene the demo shows.
pub const DEFAULT_SCENE: &str = "s1-pyramid-20";

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
    /// The run.
    pub run: RunSummary,
    /// The pictures.
    pub render: RenderSummary,
}

/// `stiction demo`.
pub fn demo(args: DemoArgs) -> Result<std::process::ExitCode, CliError> {
    let out = args.out.unwrap_or_else(|| Path::new("out").join("demo"));
    let source = Source::of(Path::new(DEFAULT_SCENE));
    let (file, built) = run::prepare(&source, &Overrides::default())?;
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
    let summary = DemoSummary {
        scene: DEFAULT_SCENE.to_string(),
        run,
        render,
    };
    args.output.print_summary(&summary, &lines);
    run::outcome(&summary.run, &source.label(), &args.output)
}
