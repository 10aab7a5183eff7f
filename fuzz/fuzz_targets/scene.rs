//! Arbitrary text as a scene file, read as TOML and as JSON by the CLI's scene reader, then
//! validated and built into a world like `stiction run` does: no panic, no hang, only typed
//! errors, and a validated scene always builds (fuzz/src/scene_check.rs lists every
//! property).

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../src/scene_check.rs"]
mod scene_check;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        scene_check::check_scene_text(text);
    }
});
