use std::time::Instant;
use stiction::scenes::chain_100;
use stiction::{ExactSettings, IterativeSettings, Solver};
fn main() {
    for _ in 0..std::env::var("REPEAT")
        .map(|r| r.parse().unwrap())
        .unwrap_or(1)
    {
        run();
    }
}
fn run() {
    let exact = std::env::args().nth(1).as_deref() == Some("exact");
    let solver = if exact {
        Solver::Exact(ExactSettings::default())
    } else {
        Solver::Iterative(IterativeSettings::default())
    };
    let mut scene = chain_100(solver).unwrap();
    if let Ok(w) = std::env::var("RW") {
        let mut st = scene.world.settings().clone();
        st.post_stabilization.rotation_weight = w.parse().unwrap();
        scene.world.set_settings(st).unwrap();
    }
    if let Ok(w) = std::env::var("MP") {
        let mut st = scene.world.settings().clone();
        st.post_stabilization.max_passes = w.parse().unwrap();
        scene.world.set_settings(st).unwrap();
    }
    if let Ok(w) = std::env::var("FADE") {
        let mut st = scene.world.settings().clone();
        st.curvature.fade_angle = w.parse().unwrap();
        scene.world.set_settings(st).unwrap();
    }
    if let Ok(w) = std::env::var("CFM") {
        let mut st = scene.world.settings().clone();
        st.softness.cfm = w.parse().unwrap();
        scene.world.set_settings(st).unwrap();
    }
    if let Ok(w) = std::env::var("TOL") {
        let mut st = scene.world.settings().clone();
        st.post_stabilization.tolerance = w.parse().unwrap();
        scene.world.set_settings(st).unwrap();
    }
    let (mut passes, mut facts, mut before, mut t) = (0usize, 0usize, 0f64, vec![]);
    let mut hist = [0usize; 8];
    let steps = std::env::var("STEPS")
        .map(|r| r.parse().unwrap())
        .unwrap_or(scene.steps);
    for _ in 0..steps {
        let c = Instant::now();
        let s = scene.world.step(scene.h).unwrap();
        t.push(c.elapsed().as_secs_f64() * 1e3);
        passes += s.post_stabilization.passes;
        let _ = ();
        hist[s.post_stabilization.passes.min(7)] += 1;
        facts += s.post_stabilization.factorizations;
        before = before.max(s.post_stabilization.error_before);
        if std::env::var("VERBOSE").is_ok() {
            println!(
                "{} {} {:.3e} {:.3e}",
                s.post_stabilization.passes,
                s.post_stabilization.factorizations,
                s.post_stabilization.error_before,
                s.post_stabilization.error_after
            );
        }
    }
    let mut worst = 0.0f64;
    let _ = &mut worst;
    let e: f64 = scene
        .world
        .bodies()
        .map(|(_, b)| {
            b.linear_kinetic_energy()
                + b.rotational_kinetic_energy()
                + b.mass() * 9.81 * (b.position().z - 20.0)
        })
        .sum();
    eprintln!("energy {:.3}", e);
    eprintln!(
        "final sep {:.3e}",
        scene.world.max_joint_anchor_separation()
    );
    t.sort_by(|a, b| a.total_cmp(b));
    println!(
        "mean {:.4} median {:.4} passes/step {:.2} facts/step {:.2} worst before {:.3e} hist {:?}",
        t.iter().sum::<f64>() / t.len() as f64,
        t[t.len() / 2],
        passes as f64 / steps as f64,
        facts as f64 / steps as f64,
        before,
        hist
    );
}
