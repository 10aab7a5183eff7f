//! Contacts reach the engine with their materials: the incline's block (friction 0.3 on a
//! 25 degree ramp, below tan 25 = 0.466) slides with the Coulomb acceleration
//! g (sin 25 - 0.3 cos 25) = 1.48 m/s^2, and with friction 0.6 it stays put; contact_forces.csv
//! has the documented columns and its normal forces carry the block's weight component
//! m g cos 25; stats.csv reports a small penetration. Jointed bodies do not collide unless a
//! joint asks for it (`collide_connected`).

mod common;

use common::{column, read_csv, repo_root, scenes_dir, stiction, success};

const CONTACT_FORCES: &str = "step,time,body_a,body_b,x,y,z,normal_x,normal_y,normal_z,\
separation,force_x,force_y,force_z";

fn incline(friction: f64) -> (tempfile::TempDir, std::path::PathBuf) {
    let text = std::fs::read_to_string(scenes_dir().join("incline.toml"))
        .unwrap()
        .replace("friction = 0.3", &format!("friction = {friction}"))
        .replace("[render]", "[record]\ncontact_forces = true\n\n[render]");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("incline.toml");
    std::fs::write(&file, text).unwrap();
    let run = dir.path().join("run");
    success(
        stiction()
            .args(["run", "--steps", "60", "--quiet", "--out"])
            .arg(&run)
            .arg(&file),
    );
    (dir, run)
}

/// The block's speed along the slope at the last step.
fn block_speed(run: &std::path::Path) -> f64 {
    let (header, rows) = read_csv(&run.join("trajectory.csv"));
    let i = rows.iter().rposition(|r| r[2] == "block").unwrap();
    let v = ["vx", "vy", "vz"].map(|c| column(&header, &rows, c)[i]);
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

#[test]
fn block_slides_at_the_coulomb_rate_and_contact_forces_hold_its_weight() {
    let (_dir, run) = incline(0.3);
    let angle = 25f64.to_radians();
    let expected = 9.81 * (angle.sin() - 0.3 * angle.cos()) * 1.0;
    let speed = block_speed(&run);
    assert!(
        (speed - expected).abs() < 0.1 * expected,
        "{speed} vs {expected}"
    );

    let (header, rows) = read_csv(&run.join("contact_forces.csv"));
    assert_eq!(header.join(","), CONTACT_FORCES);
    let step = column(&header, &rows, "step");
    let last: Vec<usize> = (0..rows.len()).filter(|&i| step[i] == 60.0).collect();
    assert!(!last.is_empty(), "the block touches the ramp");
    let force: Vec<[f64; 3]> = last
        .iter()
        .map(|&i| ["force_x", "force_y", "force_z"].map(|c| column(&header, &rows, c)[i]))
        .collect();
    let normal: Vec<[f64; 3]> = last
        .iter()
        .map(|&i| ["normal_x", "normal_y", "normal_z"].map(|c| column(&header, &rows, c)[i]))
        .collect();
    // Normal components add up to the weight's share m g cos 25 (the block is 0.4^3 m^3 of
    // 500 kg/m^3 = 32 kg).
    let pressed: f64 = force
        .iter()
        .zip(&normal)
        .map(|(f, n)| (f[0] * n[0] + f[1] * n[1] + f[2] * n[2]).abs())
        .sum();
    let weight = 32.0 * 9.81 * angle.cos();
    assert!(
        (pressed - weight).abs() < 0.05 * weight,
        "{pressed} vs {weight}"
    );

    let (header, rows) = read_csv(&run.join("stats.csv"));
    let penetration = column(&header, &rows, "max_penetration");
    assert!(penetration.iter().all(|p| (0.0..0.05).contains(p)));
}

#[test]
fn enough_friction_holds_the_block() {
    let (_dir, run) = incline(0.6);
    assert!(block_speed(&run) < 0.02);
}

/// The body pairs that touched during 30 steps of the ragdoll, with `collide_connected` as given.
fn ragdoll_contact_pairs(collide_connected: bool) -> Vec<(String, String)> {
    let mut text = std::fs::read_to_string(scenes_dir().join("ragdoll.toml"))
        .unwrap()
        .replace("[render]", "[record]\ncontact_forces = true\n\n[render]");
    if collide_connected {
        text = text.replace("[[joints]]\n", "[[joints]]\ncollide_connected = true\n");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ragdoll.toml");
    std::fs::write(&file, text).unwrap();
    success(
        stiction()
            .args(["run", "--steps", "30", "--quiet", "--out"])
            .arg(dir.path())
            .arg(&file),
    );
    let (_, rows) = read_csv(&dir.path().join("contact_forces.csv"));
    let mut pairs: Vec<(String, String)> =
        rows.iter().map(|r| (r[2].clone(), r[3].clone())).collect();
    pairs.sort();
    pairs.dedup();
    pairs
}

#[test]
fn jointed_limbs_touch_only_when_a_joint_allows_it() {
    // Neighbouring limbs overlap at their joints: with collide_connected they touch (and are
    // pushed apart), by default those contacts are dropped and only the ground is touched.
    let touching = ragdoll_contact_pairs(true);
    assert!(touching.contains(&("thigh_left".to_string(), "shin_left".to_string())));
    let filtered = ragdoll_contact_pairs(false);
    assert!(
        filtered.iter().all(|(a, b)| a == "ground" || b == "ground"),
        "{filtered:?}"
    );
}

#[test]
fn documentation_lists_the_contact_columns() {
    let doc = std::fs::read_to_string(repo_root().join("docs/scene-format.md")).unwrap();
    for column in CONTACT_FORCES.split(',') {
        assert!(doc.contains(&format!("`{column}`")), "docs miss `{column}`");
    }
}
