//! The numbers of docs/scenes.md, for building the scenes in ODE and Rapier. This engine's
//! own scenes come from `stiction::scenes` (the single source of its scene definitions);
//! [`crate::ours`] checks that their initial positions agree with these.

/// Time step, s.
pub const H: f64 = 1.0 / 60.0;
/// Gravity along z, m/s^2.
pub const GRAVITY_Z: f64 = -9.81;
/// Friction coefficient everywhere.
pub const MU: f64 = 0.5;
/// ERP of the engines that have one.
pub const ERP: f64 = 0.2;
/// CFM of the engines that have one.
pub const CFM: f64 = 1e-5;
/// Sweeps per step of the iterative solvers.
pub const ITERATIONS: usize = 20;

/// The scenes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SceneId {
    /// Pyramid of 210 boxes.
    S1,
    /// 1000 spheres in a container.
    S2,
    /// Chain of 100 links on ball joints.
    S3,
    /// Stack of 20 boxes.
    S4,
    /// Free spinning box.
    S5,
}

impl SceneId {
    /// Every scene, in order.
    pub const ALL: [SceneId; 5] = [
        SceneId::S1,
        SceneId::S2,
        SceneId::S3,
        SceneId::S4,
        SceneId::S5,
    ];

    /// A peer engine's name for this scene's table row: S5 runs with gyroscopic forces on
    /// and off, so its rows say which.
    pub fn engine_label(self, engine: &str, gyroscopic: bool) -> String {
        match (self, gyroscopic) {
            (SceneId::S5, true) => format!("{engine}, gyroscopic on (default)"),
            (SceneId::S5, false) => format!("{engine}, gyroscopic off"),
            _ => engine.to_string(),
        }
    }

    /// Short label for the table.
    pub fn label(self) -> &'static str {
        match self {
            SceneId::S1 => "S1 pyramid-20",
            SceneId::S2 => "S2 sphere-pile",
            SceneId::S3 => "S3 chain-100",
            SceneId::S4 => "S4 stack-20",
            SceneId::S5 => "S5 spinner",
        }
    }

    /// Steps docs/scenes.md asks for, unless `--steps` set another count
    /// ([`set_steps`]).
    pub fn steps(self) -> usize {
        if let Some(steps) = steps_override() {
            return steps;
        }
        match self {
            SceneId::S1 | SceneId::S2 | SceneId::S3 => 600,
            SceneId::S4 => 3000,
            SceneId::S5 => 6000,
        }
    }

    /// Parses "s1".."s5" (any case).
    pub fn parse(text: &str) -> Option<SceneId> {
        SceneId::ALL
            .into_iter()
            .find(|s| format!("{s:?}").eq_ignore_ascii_case(text))
    }
}

/// Half extent of the unit boxes of S1 and S4, m.
pub const BOX_HALF: f64 = 0.5;
/// Mass of every box and sphere of S1, S2, S4, kg.
pub const UNIT_MASS: f64 = 1.0;
/// Rows of the S1 pyramid.
pub const PYRAMID_ROWS: usize = 20;
/// Boxes of the S4 stack.
pub const STACK_HEIGHT: usize = 20;

/// Box centres of the pyramid of `rows` rows, bottom row first, left to right.
pub fn pyramid_positions(rows: usize) -> Vec<[f64; 3]> {
    let mut out = Vec::with_capacity(rows * (rows + 1) / 2);
    for k in 0..rows {
        let count = rows - k;
        for i in 0..count {
            let x = (i as f64 - (count as f64 - 1.0) / 2.0) * 2.0 * BOX_HALF;
            out.push([x, 0.0, BOX_HALF + k as f64 * 2.0 * BOX_HALF]);
        }
    }
    out
}

/// Box centres of the stack of `height` boxes, bottom first.
pub fn stack_positions(height: usize) -> Vec<[f64; 3]> {
    (0..height)
        .map(|i| [0.0, 0.0, BOX_HALF + i as f64 * 2.0 * BOX_HALF])
        .collect()
}

/// Sphere radius of S2, m.
pub const SPHERE_RADIUS: f64 = 0.5;
/// Inner faces of the S2 container walls: |x| = |y| = this, m.
pub const WALL_INNER: f64 = 7.0;
/// Height of the S2 walls, m.
pub const WALL_HEIGHT: f64 = 10.0;
/// Thickness given to the S2 walls (docs/scenes.md fixes only their inner faces), m.
pub const WALL_THICKNESS: f64 = 1.0;

/// docs/scenes.md's integer jitter `h(n, c)`, in [-1, 1].
pub fn jitter(n: usize, c: usize) -> f64 {
    ((n * 7919 + c * 104_729 + 17) % 2001) as f64 / 1000.0 - 1.0
}

/// Sphere centres of S2 in docs/scenes.md's order `n = i + 10 j + 100 k`.
pub fn sphere_pile_positions() -> Vec<[f64; 3]> {
    let mut out = Vec::with_capacity(1000);
    for k in 0..10 {
        for j in 0..10 {
            for i in 0..10 {
                let n = i + 10 * j + 100 * k;
                out.push([
                    (i as f64 - 4.5) * 1.2 + 0.05 * jitter(n, 0),
                    (j as f64 - 4.5) * 1.2 + 0.05 * jitter(n, 1),
                    1.0 + 1.2 * k as f64,
                ]);
            }
        }
    }
    out
}

/// The four S2 walls as (centre, half extents): slabs outside |x|, |y| <= WALL_INNER.
pub fn wall_boxes() -> [([f64; 3], [f64; 3]); 4] {
    let offset = WALL_INNER + WALL_THICKNESS / 2.0;
    let long = WALL_INNER + WALL_THICKNESS;
    let z = WALL_HEIGHT / 2.0;
    let (t, hz) = (WALL_THICKNESS / 2.0, WALL_HEIGHT / 2.0);
    [
        ([offset, 0.0, z], [t, long, hz]),
        ([-offset, 0.0, z], [t, long, hz]),
        ([0.0, offset, z], [long, t, hz]),
        ([0.0, -offset, z], [long, t, hz]),
    ]
}

/// Links of the S3 chain.
pub const CHAIN_LINKS: usize = 100;
/// Half extents of a chain link, m.
pub const LINK_HALF: [f64; 3] = [0.25, 0.05, 0.05];
/// Height of the chain, m.
pub const CHAIN_HEIGHT: f64 = 20.0;

/// Centre of chain link `i`.
pub fn link_centre(i: usize) -> [f64; 3] {
    [2.0 * LINK_HALF[0] * (i as f64 + 0.5), 0.0, CHAIN_HEIGHT]
}

/// The joint between link `i` and link `i - 1` (or the world for `i = 0`).
pub fn chain_anchor(i: usize) -> [f64; 3] {
    [2.0 * LINK_HALF[0] * i as f64, 0.0, CHAIN_HEIGHT]
}

/// Half extents of the S5 box, m.
pub const SPINNER_HALF: [f64; 3] = [0.5, 0.2, 0.1];
/// Density of the S5 box, kg/m^3.
pub const SPINNER_DENSITY: f64 = 1000.0;
/// Initial angular velocity of S5 in the body frame (= world frame at the start), rad/s.
pub const SPINNER_OMEGA: [f64; 3] = [1.0, 2.0, 3.0];

/// Mass (kg) and principal moments (kg m^2) of a solid box of density `rho`.
pub fn box_mass_properties(half: [f64; 3], rho: f64) -> (f64, [f64; 3]) {
    let [a, b, c] = half.map(|v| 2.0 * v);
    let m = rho * a * b * c;
    (
        m,
        [
            m * (b * b + c * c) / 12.0,
            m * (a * a + c * c) / 12.0,
            m * (a * a + b * b) / 12.0,
        ],
    )
}

/// Principal moments of a box of mass `m`, kg m^2.
pub fn box_inertia_with_mass(half: [f64; 3], m: f64) -> [f64; 3] {
    let volume = 8.0 * half[0] * half[1] * half[2];
    box_mass_properties(half, m / volume).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scene_sizes_match_scenes_md() {
        assert_eq!(pyramid_positions(PYRAMID_ROWS).len(), 210);
        assert_eq!(sphere_pile_positions().len(), 1000);
        let top = pyramid_positions(PYRAMID_ROWS)[209];
        assert_eq!(top, [0.0, 0.0, 19.5]);
        let (m, i) = box_mass_properties(SPINNER_HALF, SPINNER_DENSITY);
        assert!((m - 80.0).abs() < 1e-12);
        assert!((i[0] - 1.3333333333).abs() < 1e-9 && (i[2] - 7.7333333333).abs() < 1e-9);
        // The jitter keeps neighbours of one layer apart: 1.2 m spacing minus 2 x 0.05.
        assert!(jitter(0, 0).abs() <= 1.0 && jitter(999, 1).abs() <= 1.0);
    }
}

/// `--steps`: every scene's step count, for counting a step's instructions and cache
/// misses (scripts/count-instructions.sh with `PEER=`), where the scenes' own counts would
/// make the runs needlessly long.
static STEPS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// Makes every scene run `steps` steps instead of its own count; only the first call
/// counts.
pub fn set_steps(steps: usize) {
    let _ = STEPS.set(steps);
}

/// The step count `--steps` set, if it did.
pub fn steps_override() -> Option<usize> {
    STEPS.get().copied()
}
