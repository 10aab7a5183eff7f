use stiction::scenes::{pyramid_20, sphere_pile_1000};
use stiction::Solver;
fn main() {
    for cfm in [1e-5, 1e-6, 1e-8] {
        for which in ["s2", "s1"] {
            let mut scene = if which == "s2" {
                sphere_pile_1000(Solver::iterative())
            } else {
                pyramid_20(Solver::iterative())
            }
            .unwrap();
            let mut settings = scene.world.settings().clone();
            settings.softness.cfm = cfm;
            scene.world.set_settings(settings).unwrap();
            let (mut updates, mut passes) = (0usize, 0usize);
            let clock = std::time::Instant::now();
            for _ in 0..scene.steps {
                let st = scene.world.step(scene.h).unwrap();
                updates += st.post_stabilization.row_updates;
                passes += st.post_stabilization.passes;
            }
            let pen = scene
                .world
                .contacts()
                .iter()
                .map(|c| -c.geometry.separation)
                .fold(0.0, f64::max);
            println!("{which} cfm {cfm:e}: projection updates/step {}, passes/step {:.2}, deepest {:.3e}, {:.2} ms/step", updates / scene.steps, passes as f64 / scene.steps as f64, pen, clock.elapsed().as_secs_f64()*1e3/scene.steps as f64);
        }
    }
}
