//! The quality figures of docs/scenes.md, computed the same way for every engine from plain
//! positions, orientations and velocities.

use crate::spec::{SPHERE_RADIUS, WALL_INNER};
use std::collections::HashMap;
use std::fmt;

/// One scene's quality figure(s) at the end of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Quality {
    /// S1: how far the top box moved, m.
    TopBox {
        /// |p_end - p_start|, m.
        displacement: f64,
    },
    /// S2: deepest overlap among spheres, ground and walls, and spheres outside the container.
    Pile {
        /// Largest penetration depth, m.
        max_penetration: f64,
        /// Spheres whose centre is below the ground or beyond a wall.
        escaped: usize,
    },
    /// S3: largest distance between the two anchor points of a joint, m.
    Chain {
        /// Max joint anchor separation, m.
        max_separation: f64,
    },
    /// S4: the top box's horizontal drift and height error, m.
    Stack {
        /// Horizontal distance from its start, m.
        drift: f64,
        /// z_end - z_start, m.
        height_error: f64,
    },
    /// S5: relative changes of |L| and of the rotational kinetic energy.
    Spin {
        /// (|L_end| - |L_0|) / |L_0|.
        momentum: f64,
        /// (E_end - E_0) / E_0.
        energy: f64,
    },
}

impl Quality {
    /// The one error figure of a work-precision plot: S1 the top box's displacement, S2 the
    /// deepest penetration (infinite once a sphere escaped), S4 the top box's displacement
    /// (drift and sink together), S3 the joint separation, S5 the larger relative drift.
    pub fn error(&self) -> f64 {
        match *self {
            Quality::TopBox { displacement } => displacement,
            Quality::Pile {
                max_penetration,
                escaped,
            } => {
                if escaped > 0 {
                    f64::INFINITY
                } else {
                    max_penetration
                }
            }
            Quality::Chain { max_separation } => max_separation,
            Quality::Stack {
                drift,
                height_error,
            } => drift.hypot(height_error),
            Quality::Spin { momentum, energy } => momentum.abs().max(energy.abs()),
        }
    }
}

impl fmt::Display for Quality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Quality::TopBox { displacement } => write!(f, "top box moved {}", metres(displacement)),
            Quality::Pile {
                max_penetration,
                escaped,
            } => {
                write!(f, "max penetration {}", metres(max_penetration))?;
                if escaped > 0 {
                    write!(f, ", {escaped} spheres escaped")?;
                }
                Ok(())
            }
            Quality::Chain { max_separation } => {
                write!(f, "max joint separation {}", metres(max_separation))
            }
            Quality::Stack {
                drift,
                height_error,
            } => write!(
                f,
                "top drift {}, height error {}",
                metres(drift),
                metres(height_error)
            ),
            Quality::Spin { momentum, energy } => {
                write!(f, "d|L|/|L| {momentum:+.2e}, dE/E {energy:+.2e}")
            }
        }
    }
}

/// A length with a readable unit.
pub fn metres(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() {
        format!("{v}")
    } else if a >= 1.0 {
        format!("{v:.2} m")
    } else if a >= 1e-3 {
        format!("{:.2} mm", v * 1e3)
    } else if a >= 1e-6 {
        format!("{:.2} µm", v * 1e6)
    } else {
        format!("{v:.1e} m")
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn norm(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// S1's figure.
pub fn top_box(start: [f64; 3], end: [f64; 3]) -> Quality {
    Quality::TopBox {
        displacement: norm(sub(end, start)),
    }
}

/// S4's figures.
pub fn stack_top(start: [f64; 3], end: [f64; 3]) -> Quality {
    let d = sub(end, start);
    Quality::Stack {
        drift: (d[0] * d[0] + d[1] * d[1]).sqrt(),
        height_error: d[2],
    }
}

/// S3's figure from each joint's two world anchor points.
pub fn chain(anchor_pairs: impl IntoIterator<Item = ([f64; 3], [f64; 3])>) -> Quality {
    let max_separation = anchor_pairs
        .into_iter()
        .map(|(a, b)| norm(sub(a, b)))
        .fold(0.0, f64::max);
    Quality::Chain { max_separation }
}

/// S2's figures from the sphere centres: overlap with the ground (z = 0), the four walls
/// (|x|, |y| = WALL_INNER) and each other (a uniform grid of cells one diameter wide, so
/// only neighbouring cells are compared).
pub fn pile(centres: &[[f64; 3]]) -> Quality {
    let r = SPHERE_RADIUS;
    let mut deepest: f64 = 0.0;
    let mut escaped = 0;
    for c in centres {
        deepest = deepest
            .max(r - c[2])
            .max(r - (WALL_INNER - c[0].abs()))
            .max(r - (WALL_INNER - c[1].abs()));
        if c[2] < 0.0 || c[0].abs() > WALL_INNER || c[1].abs() > WALL_INNER {
            escaped += 1;
        }
    }
    let cell = 2.0 * r;
    let key = |c: &[f64; 3]| c.map(|v| (v / cell).floor() as i64);
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for (i, c) in centres.iter().enumerate() {
        grid.entry(key(c)).or_default().push(i);
    }
    for (i, c) in centres.iter().enumerate() {
        let [kx, ky, kz] = key(c);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(others) = grid.get(&[kx + dx, ky + dy, kz + dz]) else {
                        continue;
                    };
                    for &j in others.iter().filter(|&&j| j > i) {
                        deepest = deepest.max(2.0 * r - norm(sub(*c, centres[j])));
                    }
                }
            }
        }
    }
    Quality::Pile {
        max_penetration: deepest.max(0.0),
        escaped,
    }
}

/// Angular momentum and rotational kinetic energy of a body with world rotation `r`
/// (row-major 3x3), principal moments `inertia` (body frame) and world angular velocity `w`.
pub fn rotational_invariants(r: [[f64; 3]; 3], inertia: [f64; 3], w: [f64; 3]) -> ([f64; 3], f64) {
    // Body-frame velocity R^T w, momentum I W, back to the world frame.
    let body: [f64; 3] = std::array::from_fn(|j| (0..3).map(|i| r[i][j] * w[i]).sum());
    let momentum_body: [f64; 3] = std::array::from_fn(|j| inertia[j] * body[j]);
    let momentum: [f64; 3] =
        std::array::from_fn(|i| (0..3).map(|j| r[i][j] * momentum_body[j]).sum());
    let energy = 0.5 * (0..3).map(|j| body[j] * momentum_body[j]).sum::<f64>();
    (momentum, energy)
}

/// S5's figures from the invariants at the start and at the end.
pub fn spin(start: ([f64; 3], f64), end: ([f64; 3], f64)) -> Quality {
    let (l0, l1) = (norm(start.0), norm(end.0));
    Quality::Spin {
        momentum: (l1 - l0) / l0,
        energy: (end.1 - start.1) / start.1,
    }
}

/// Row-major rotation matrix of a unit quaternion (w, x, y, z).
pub fn rotation_from_quaternion(q: [f64; 4]) -> [[f64; 3]; 3] {
    let [w, x, y, z] = q;
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pile_penetration_sees_ground_walls_and_pairs() {
        let resting = [[0.0, 0.0, 0.5], [1.0, 0.0, 0.5]];
        assert_eq!(
            pile(&resting),
            Quality::Pile {
                max_penetration: 0.0,
                escaped: 0
            }
        );
        let sunk = [
            [0.0, 0.0, 0.49],
            [6.48, 0.0, 3.0],
            [0.0, 3.0, 3.0],
            [0.0, 3.0, 3.97],
        ];
        let Quality::Pile {
            max_penetration,
            escaped,
        } = pile(&sunk)
        else {
            unreachable!()
        };
        assert!((max_penetration - 0.03).abs() < 1e-12, "{max_penetration}");
        assert_eq!(escaped, 0);
        let Quality::Pile { escaped, .. } = pile(&[[0.0, 7.5, 1.0], [0.0, 0.0, -1.0]]) else {
            unreachable!()
        };
        assert_eq!(escaped, 2);
    }

    #[test]
    fn invariants_of_a_rotated_box_match_the_body_frame() {
        let inertia = [1.0, 2.0, 3.0];
        let w_body = [1.0, 2.0, 3.0];
        let (l, e) = rotational_invariants(
            rotation_from_quaternion([1.0, 0.0, 0.0, 0.0]),
            inertia,
            w_body,
        );
        assert_eq!(l, [1.0, 4.0, 9.0]);
        assert!((e - 0.5 * (1.0 + 8.0 + 27.0)).abs() < 1e-12);
        // A quarter turn about z: the same body-frame motion seen in the world frame.
        let s = std::f64::consts::FRAC_1_SQRT_2;
        let r = rotation_from_quaternion([s, 0.0, 0.0, s]);
        let w_world: [f64; 3] = std::array::from_fn(|i| (0..3).map(|j| r[i][j] * w_body[j]).sum());
        let (l2, e2) = rotational_invariants(r, inertia, w_world);
        assert!((norm(l2) - norm(l)).abs() < 1e-12 && (e2 - e).abs() < 1e-12);
        assert!((l2[0] + 4.0).abs() < 1e-12 && (l2[1] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn stack_error_joins_drift_and_sink() {
        let q = Quality::Stack {
            drift: 0.003,
            height_error: -0.004,
        };
        assert!((q.error() - 0.005).abs() < 1e-15);
        let escaped = Quality::Pile {
            max_penetration: 0.01,
            escaped: 2,
        };
        assert!(escaped.error().is_infinite());
    }
}
