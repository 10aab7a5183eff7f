//! Contact-like test and benchmark problems, built the way an engine builds them:
//! `A = J M^-1 J^T + cfm I`, `b = -J u_free`, one normal row (`[0, inf)`) and two friction rows
//! (coupled by `findex`, coefficient `mu`) per contact.
//!
//! These are numbers only; the "bodies" here exist to give the matrices the structure
//! (rank deficiency, redundancy, scale spread) that real contact problems have. Generating
//! `b` as `-J u` for some velocity `u` keeps the problems solvable even when `A` is singular:
//! a zero velocity satisfies every non-penetration row.

use crate::matrix::DenseMatrix;
use crate::problem::BoxedLcp;

/// A small deterministic random number generator (SplitMix64), so that problems are
/// reproducible from a seed without a dependency.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform integer in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A random unit vector.
    pub fn unit_vector(&mut self) -> [f64; 3] {
        loop {
            let v = [
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            ];
            let n2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
            if n2 > 1e-4 && n2 <= 1.0 {
                let n = n2.sqrt();
                return [v[0] / n, v[1] / n, v[2] / n];
            }
        }
    }
}

/// Parameters of [`random_contact_problem`].
#[derive(Clone, Debug)]
pub struct ContactProblemSpec {
    /// Seed of the generator.
    pub seed: u64,
    /// Number of dynamic bodies (at least 1).
    pub bodies: usize,
    /// Number of contacts (3 rows each).
    pub contacts: usize,
    /// Friction coefficient of every contact.
    pub mu: f64,
    /// Constraint force mixing added to the diagonal (`cfm / h` in engine terms).
    pub cfm: f64,
    /// Fraction of contacts that exactly repeat an earlier one (redundant rows).
    pub duplicate_fraction: f64,
}

impl Default for ContactProblemSpec {
    fn default() -> Self {
        Self {
            seed: 1,
            bodies: 4,
            contacts: 8,
            mu: 0.5,
            cfm: 1e-6,
            duplicate_fraction: 0.0,
        }
    }
}

/// One body's inverse mass and world inverse inertia (symmetric 3x3).
#[derive(Clone, Copy, Debug)]
struct BodyInverse {
    inv_mass: f64,
    inv_inertia: [[f64; 3]; 3],
}

/// One Jacobian row: up to two bodies (`None` is the static world), 6 numbers each.
#[derive(Clone, Copy, Debug)]
struct JacobianRow {
    body_a: Option<usize>,
    body_b: Option<usize>,
    ja: [f64; 6],
    jb: [f64; 6],
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Two unit tangents orthogonal to `n` and to each other.
fn tangents(n: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let helper = if n[0].abs() < 0.57 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let t1 = cross(n, helper);
    let l = (t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]).sqrt();
    let t1 = [t1[0] / l, t1[1] / l, t1[2] / l];
    (t1, cross(n, t1))
}

/// Rows of one contact (normal, two tangents) between `a` (pushed along `+n`) and `b`.
fn contact_rows(
    a: Option<usize>,
    b: Option<usize>,
    ra: [f64; 3],
    rb: [f64; 3],
    n: [f64; 3],
) -> [JacobianRow; 3] {
    let (t1, t2) = tangents(n);
    [n, t1, t2].map(|d| {
        let ca = cross(ra, d);
        let cb = cross(rb, d);
        JacobianRow {
            body_a: a,
            body_b: b,
            ja: [d[0], d[1], d[2], ca[0], ca[1], ca[2]],
            jb: [-d[0], -d[1], -d[2], -cb[0], -cb[1], -cb[2]],
        }
    })
}

/// `M^-1 J_row^T` restricted to one body's six entries.
fn apply_inverse(body: &BodyInverse, j: &[f64; 6]) -> [f64; 6] {
    let ii = &body.inv_inertia;
    let mut out = [0.0; 6];
    for k in 0..3 {
        out[k] = body.inv_mass * j[k];
        out[3 + k] = ii[k][0] * j[3] + ii[k][1] * j[4] + ii[k][2] * j[5];
    }
    out
}

fn dot6(a: &[f64; 6], b: &[f64; 6]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Assembles `A = J M^-1 J^T + cfm I` and `b = -J u` for the given rows and bodies.
fn assemble(
    rows: &[JacobianRow],
    bodies: &[BodyInverse],
    velocity: &[[f64; 6]],
    cfm: f64,
) -> (DenseMatrix, Vec<f64>) {
    let n = rows.len();
    // Per row and side: M^-1 J^T, so each entry of A is at most two 6-vector dots.
    let scaled: Vec<([f64; 6], [f64; 6])> = rows
        .iter()
        .map(|r| {
            let sa = r
                .body_a
                .map_or([0.0; 6], |k| apply_inverse(&bodies[k], &r.ja));
            let sb = r
                .body_b
                .map_or([0.0; 6], |k| apply_inverse(&bodies[k], &r.jb));
            (sa, sb)
        })
        .collect();
    let mut a = DenseMatrix::zeros(n, n);
    for i in 0..n {
        for j in 0..=i {
            let (ri, rj) = (&rows[i], &rows[j]);
            let (sa, sb) = &scaled[j];
            let mut v = 0.0;
            for (body_i, ji) in [(ri.body_a, &ri.ja), (ri.body_b, &ri.jb)] {
                let Some(k) = body_i else { continue };
                if rj.body_a == Some(k) {
                    v += dot6(ji, sa);
                }
                if rj.body_b == Some(k) {
                    v += dot6(ji, sb);
                }
            }
            a[(i, j)] = v;
            a[(j, i)] = v;
        }
        a[(i, i)] += cfm;
    }
    let b = rows
        .iter()
        .map(|r| {
            let va = r.body_a.map_or(0.0, |k| dot6(&r.ja, &velocity[k]));
            let vb = r.body_b.map_or(0.0, |k| dot6(&r.jb, &velocity[k]));
            -(va + vb)
        })
        .collect();
    (a, b)
}

/// Turns assembled rows (3 per contact) into a boxed LCP with box friction.
fn with_friction_bounds(a: DenseMatrix, b: Vec<f64>, mu: f64) -> BoxedLcp {
    let n = b.len();
    let mut p = BoxedLcp::new(a, b);
    for c in 0..n / 3 {
        let normal = 3 * c;
        for t in [normal + 1, normal + 2] {
            p.findex[t] = Some(normal);
            p.lo[t] = -mu;
            p.hi[t] = mu;
        }
    }
    p
}

/// A random contact problem: bodies with random masses, rotated inertias satisfying the
/// triangle inequality and random velocities (biased towards approaching contacts), and
/// contacts between random pairs (or a body and the world) at random points and normals.
pub fn random_contact_problem(spec: &ContactProblemSpec) -> BoxedLcp {
    let mut rng = SplitMix64::new(spec.seed);
    let nb = spec.bodies.max(1);
    let bodies: Vec<BodyInverse> = (0..nb)
        .map(|_| {
            let mass = rng.range(0.5, 5.0);
            // Principal moments of a box with random edges: always physical.
            let e = [
                rng.range(0.2, 2.0),
                rng.range(0.2, 2.0),
                rng.range(0.2, 2.0),
            ];
            let moments = [
                mass / 12.0 * (e[1] * e[1] + e[2] * e[2]),
                mass / 12.0 * (e[0] * e[0] + e[2] * e[2]),
                mass / 12.0 * (e[0] * e[0] + e[1] * e[1]),
            ];
            let axis = rng.unit_vector();
            let angle = rng.range(0.0, std::f64::consts::PI);
            let r = rotation(axis, angle);
            let mut inv = [[0.0; 3]; 3];
            for (i, row) in inv.iter_mut().enumerate() {
                for (j, v) in row.iter_mut().enumerate() {
                    *v = (0..3).map(|k| r[i][k] * r[j][k] / moments[k]).sum();
                }
            }
            BodyInverse {
                inv_mass: 1.0 / mass,
                inv_inertia: inv,
            }
        })
        .collect();
    let velocity: Vec<[f64; 6]> = (0..nb)
        .map(|_| {
            let mut v = [0.0; 6];
            for x in v.iter_mut() {
                *x = rng.range(-1.0, 1.0);
            }
            v
        })
        .collect();
    let mut rows: Vec<JacobianRow> = Vec::with_capacity(3 * spec.contacts);
    for c in 0..spec.contacts {
        if c > 0 && rng.unit() < spec.duplicate_fraction {
            let k = rng.below(c);
            let copy: Vec<JacobianRow> = rows[3 * k..3 * k + 3].to_vec();
            rows.extend(copy);
            continue;
        }
        let a = rng.below(nb);
        let b = if nb > 1 && rng.unit() < 0.6 {
            let mut b = rng.below(nb - 1);
            if b >= a {
                b += 1;
            }
            Some(b)
        } else {
            None
        };
        let ra = [
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        ];
        let rb = [
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        ];
        let n = rng.unit_vector();
        rows.extend(contact_rows(Some(a), b, ra, rb, n));
    }
    // b = -J u exactly (no extra bias): then the velocity -u separates every contact, so the
    // problem has a solution however the normals are arranged.
    let (a, b) = assemble(&rows, &bodies, &velocity, spec.cfm);
    with_friction_bounds(a, b, spec.mu)
}

/// Rotation matrix about a unit axis.
fn rotation(axis: [f64; 3], angle: f64) -> [[f64; 3]; 3] {
    let (s, c) = angle.sin_cos();
    let t = 1.0 - c;
    let [x, y, z] = axis;
    [
        [t * x * x + c, t * x * y - s * z, t * x * z + s * y],
        [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
        [t * x * z - s * y, t * y * z + s * x, t * z * z + c],
    ]
}

/// The LCP of a resting stack of `height` unit cubes (1 kg, edge 1 m) on the ground, four
/// contacts per face at the corners, friction `mu`, under gravity 9.81 m/s^2 at rest.
///
/// `cfm` is added to the diagonal as is (the engine adds `cfm / h`). The four coplanar
/// contacts per face make the normal block rank-deficient (rank 3 of 4 per face): without
/// CFM `A` is singular, which is what defeats naive pivoting. The exact answer for every
/// normal force under box `k` (0 = bottom) is `(height - k) 9.81 / 4` N, friction zero.
pub fn box_stack_problem(height: usize, mu: f64, cfm: f64) -> BoxedLcp {
    let inertia = 1.0 / 6.0; // m (1^2 + 1^2) / 12 for a unit cube
    let bodies = vec![
        BodyInverse {
            inv_mass: 1.0,
            inv_inertia: [
                [1.0 / inertia, 0.0, 0.0],
                [0.0, 1.0 / inertia, 0.0],
                [0.0, 0.0, 1.0 / inertia],
            ],
        };
        height
    ];
    // b = -J M^-1 f_ext with f_ext = m g: the "free velocity per unit time" of each box.
    let velocity = vec![[0.0, 0.0, -9.81, 0.0, 0.0, 0.0]; height];
    let mut rows = Vec::with_capacity(12 * height);
    let n = [0.0, 0.0, 1.0];
    for k in 0..height {
        let below = if k == 0 { None } else { Some(k - 1) };
        for (sx, sy) in [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)] {
            rows.extend(contact_rows(
                Some(k),
                below,
                [sx, sy, -0.5],
                [sx, sy, 0.5],
                n,
            ));
        }
    }
    let (a, b) = assemble(&rows, &bodies, &velocity, cfm);
    with_friction_bounds(a, b, mu)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_matrix_is_symmetric_and_weight_is_carried() {
        let p = box_stack_problem(3, 0.5, 0.0);
        assert_eq!(p.len(), 36);
        assert!(p.a.asymmetry() < 1e-15);
        p.validate().unwrap();
        // The load path: bottom normals carry 3 boxes, so x = 3 g / 4 solves A x = b there.
        let mut x = vec![0.0; 36];
        for k in 0..3 {
            for c in 0..4 {
                x[12 * k + 3 * c] = (3 - k) as f64 * 9.81 / 4.0;
            }
        }
        let w = p.slack(&x);
        assert!(w.iter().all(|v| v.abs() < 1e-12), "{w:?}");
    }

    #[test]
    fn random_problem_is_valid_and_positive_semidefinite_on_samples() {
        let p = random_contact_problem(&ContactProblemSpec {
            contacts: 10,
            ..Default::default()
        });
        p.validate().unwrap();
        assert!(p.a.asymmetry() < 1e-12);
        let mut rng = SplitMix64::new(7);
        for _ in 0..20 {
            let v: Vec<f64> = (0..p.len()).map(|_| rng.range(-1.0, 1.0)).collect();
            let av = p.a.mul_vec(&v);
            let q: f64 = v.iter().zip(&av).map(|(a, b)| a * b).sum();
            assert!(q > 0.0);
        }
    }
}
