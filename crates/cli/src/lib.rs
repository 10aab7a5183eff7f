//! The library side of the `stiction` command: the scene-file reader, and the number
//! formatting its messages share with the binary.
//!
//! The command itself is the `stiction` binary (src/main.rs). The scene module lives here,
//! and the binary uses it from here, so that code outside the binary can reach the very
//! parser, validator and world builder `stiction run` uses: the scene fuzz target
//! (fuzz/fuzz_targets/scene.rs) and the regression test over its corpus
//! (tests/scene_fuzz_regressions.rs). Nothing else is exposed; the library is not a stable
//! API.

#![warn(missing_docs)]

pub mod readable;
pub mod scene;
