//! # stiction-viewer
//!
//! An interactive 3-D viewer of stiction scenes in the browser (docs/viewer.md):
//!
//! - a data format ([`ViewerScene`]: bodies with their shapes, joints, recorded
//!   [`Frame`]s with contacts, sleep state and islands, and plot series), built from a
//!   [`stiction::World`] by [`ViewerScene::from_world`] and [`Frame::from_world`] or by hand;
//! - the page: one JavaScript bundle (three.js, built from `viewer/src` by `viewer/build.sh`
//!   and committed as `assets/viewer.js`, so building this crate never needs npm);
//! - [`write_html`]: one self-contained HTML file holding the data and the bundle;
//! - [`serve`]: the page and the data on a loopback address, by a small HTTP/1.1 server
//!   that answers its own routes only; [`serve_live`]: the same for a [`LiveSource`] (a
//!   world stepped on request, with play, pause, step, reset and grab messages), which the
//!   page polls at `/frame`. [`WorldSource`] is a live source over a [`stiction::World`].
//!
//! ```no_run
//! use stiction_viewer::{write_html, ViewerScene};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut world = stiction::World::new();
//! // ... add bodies ...
//! let mut scene = ViewerScene::from_world(&world);
//! scene.record(&world, 0);
//! for step in 1..=120 {
//!     world.step(1.0 / 60.0)?;
//!     scene.record(&world, step);
//! }
//! write_html(&scene, std::path::Path::new("out/view.html"))?;
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

pub mod demo;
mod html;
mod http;
mod islands;
mod live;
mod scene;
mod server;
mod shapes;

pub use html::{html_page, write_html, BUNDLE};
pub use islands::body_islands;
pub use live::{
    Control, LiveFrame, LiveSource, LiveStats, Pacing, SolverName, WorldSource, MAX_SPEED,
};
pub use scene::{
    standard_plots, Frame, Geometry, SceneError, ViewerBody, ViewerContact, ViewerJoint,
    ViewerPose, ViewerScene, ViewerShape, FORMAT_VERSION,
};
pub use server::{serve, serve_live, ServeHandle, ServeOptions};
