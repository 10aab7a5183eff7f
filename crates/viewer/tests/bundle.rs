//! The committed bundle (crates/viewer/assets/viewer.js) is what viewer/build.sh makes from
//! viewer/src with the packages locked in viewer/package-lock.json, byte for byte.
//!
//! Runs `bash viewer/build.sh --check` (an `npm ci` from the npm registry the first time).
//! Skipped, with a message, only when npm is not installed.

use std::path::Path;
use std::process::Command;

#[test]
fn the_bundle_is_rebuilt_identically_from_the_sources() {
    let npm = Command::new("npm").arg("--version").output();
    if !matches!(&npm, Ok(o) if o.status.success()) {
        eprintln!(
            "SKIPPED the bundle reproducibility check: npm is not installed \
             (install node and npm, then run bash viewer/build.sh --check)"
        );
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new("bash")
        .arg(root.join("viewer/build.sh"))
        .arg("--check")
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "viewer/build.sh --check failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("identical"), "{stdout}");
    eprintln!("{}", stdout.trim());
}
