//! Turns the fuzzer's bytes into boxed LCPs that are hard for the solvers.
//!
//! Uniformly random bits make useless matrices (almost every `f64` from random bits is
//! astronomically large or tiny), so each number is read as a *class* byte followed by the
//! bytes that class needs: zero, `±1`, small integers, decimals, `10^k` mantissas between
//! `1e-12` and `1e12`, exactly `±1e12` and `±1e-12`, subnormals, enormous values, raw finite
//! bit patterns, and repeats of the previous number (so that dependent rows come easily).
//! The matrix is one of four shapes: general, symmetric (often indefinite), a Gram matrix
//! `J J^T + cfm I` of rank `k <= n` (positive semi-definite, singular when `k < n`, as the
//! engine builds), or a Gram matrix plus a symmetric perturbation (slightly indefinite).
//! Then rows are duplicated or zeroed (exactly singular, redundant contacts), and the whole
//! matrix and the right-hand side are scaled by up to `1e±12`.
//!
//! Every row gets a role: ordinary `[0, inf)`, free, one-sided, boxed, pinned at zero,
//! friction (`findex` to a non-friction row, `mu` from the input), and two rare "chaos"
//! roles whose bounds or `findex` may break the problem's rules (so validation is fuzzed
//! too). The first `nub` rows are free.
//!
//! A short input is not an error: past its end every byte reads as zero, so small inputs
//! make small problems and the fuzzer grows them as it finds coverage.

use stiction_lcp::{BoxedLcp, DenseMatrix};

/// Largest problem the decoder builds: big enough for pivoting to cycle and for
/// degeneracy to matter, small enough for thousands of solves per second.
pub const MAX_ROWS: usize = 24;

/// A cursor over the fuzzer's bytes that reads zeros past the end.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
    last: f64,
}

impl<'a> Bytes<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            pos: 0,
            last: 1.0,
        }
    }

    /// The next byte, or zero past the end.
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    fn u64(&mut self) -> u64 {
        let mut raw = [0u8; 8];
        for b in &mut raw {
            *b = self.byte();
        }
        u64::from_le_bytes(raw)
    }

    /// One finite number, drawn from the classes of the module documentation.
    pub fn value(&mut self) -> f64 {
        let tag = self.byte();
        let sign = if tag & 0x80 != 0 { -1.0 } else { 1.0 };
        let magnitude = match tag & 0x0f {
            0 | 1 => 0.0,
            2 => 1.0,
            3 => f64::from(1 + self.byte() % 8),
            // m * 10^k with m in [1, 10) and k in -12..=12.
            4..=6 => {
                let mantissa = 1.0 + 9.0 * f64::from(self.byte()) / 255.0;
                let exponent = i32::from(self.byte() % 25) - 12;
                mantissa * 10f64.powi(exponent)
            }
            7 => 1e12,
            8 => 1e-12,
            9 => {
                let raw = f64::from_bits(self.u64());
                if raw.is_finite() {
                    raw.abs()
                } else {
                    0.0
                }
            }
            10 => self.last.abs(),
            // Large enough that products overflow.
            11 => 10f64.powi(100 + i32::from(self.byte() % 209)),
            // Subnormal and barely normal.
            12 => f64::MIN_POSITIVE * f64::from(self.byte()) / 64.0,
            13 => 2f64.powi(i32::from(self.byte()) - 128),
            // The previous number perturbed in its last digits: nearly dependent rows.
            14 => self.last.abs() * (1.0 + f64::from(self.byte()) * f64::EPSILON),
            _ => f64::from(self.u16()) / 1000.0,
        };
        let v = sign * magnitude;
        self.last = v;
        v
    }

    /// A bound: mostly finite, sometimes infinite (`side` is the infinity's sign) and, very
    /// rarely, NaN, which validation must reject.
    fn raw_bound(&mut self, side: f64) -> f64 {
        match self.byte() % 16 {
            0 | 1 => side * f64::INFINITY,
            2 => -side * f64::INFINITY,
            3 if self.byte() == 0xff => f64::NAN,
            _ => self.value(),
        }
    }
}

/// The role of one row: which bounds (or coupling) it gets.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Ordinary,
    Free,
    LowerOnly,
    UpperOnly,
    Boxed,
    Pinned,
    Friction,
    UpperFromZero,
    ChaosBounds,
    ChaosFindex,
}

impl Role {
    fn from_byte(b: u8) -> Role {
        match b % 12 {
            0 | 1 => Role::Ordinary,
            2 => Role::Free,
            3 => Role::LowerOnly,
            4 => Role::UpperOnly,
            5 => Role::Boxed,
            6 => Role::Pinned,
            7 | 8 => Role::Friction,
            9 => Role::UpperFromZero,
            10 => Role::ChaosBounds,
            _ => Role::ChaosFindex,
        }
    }

    fn is_friction(self) -> bool {
        matches!(self, Role::Friction | Role::ChaosFindex)
    }
}

/// Reads one problem. With `symmetric`, the general shape is mirrored from its lower
/// triangle (for the solvers that reject non-symmetric matrices, Dantzig and projected
/// gradient, so that no input is wasted on that error).
pub fn boxed_problem(bytes: &mut Bytes, symmetric: bool) -> BoxedLcp {
    let n = bytes.below(MAX_ROWS + 1);
    let mut a = matrix(bytes, n, symmetric);
    if n > 0 {
        make_singular(bytes, &mut a, n);
    }
    let a_scale = scale(bytes);
    for v in a.as_mut_slice() {
        *v *= a_scale;
    }
    let b_scale = scale(bytes);
    let b = (0..n).map(|_| bytes.value() * b_scale).collect();
    let mut p = BoxedLcp::new(a, b);
    if n > 0 {
        bounds(bytes, &mut p);
    }
    p
}

fn matrix(bytes: &mut Bytes, n: usize, symmetric: bool) -> DenseMatrix {
    let mut a = DenseMatrix::zeros(n, n);
    match bytes.byte() % 4 {
        0 if !symmetric => {
            for v in a.as_mut_slice() {
                *v = bytes.value();
            }
        }
        0 | 1 => {
            for i in 0..n {
                for j in 0..=i {
                    let v = bytes.value();
                    a[(i, j)] = v;
                    a[(j, i)] = v;
                }
            }
        }
        shape => {
            gram(bytes, &mut a, n);
            if shape == 3 {
                for i in 0..n {
                    for j in 0..=i {
                        let v = bytes.value() * 1e-3;
                        a[(i, j)] += v;
                        if i != j {
                            a[(j, i)] += v;
                        }
                    }
                }
            }
        }
    }
    a
}

/// `A = J J^T + cfm I` with `J` of size `n x k`: what the engine builds from contact
/// Jacobians and masses.
fn gram(bytes: &mut Bytes, a: &mut DenseMatrix, n: usize) {
    if n == 0 {
        return;
    }
    let k = 1 + bytes.below(n);
    let j: Vec<f64> = (0..n * k).map(|_| bytes.value()).collect();
    let cfm = bytes.value().abs();
    for r in 0..n {
        for c in 0..=r {
            let v: f64 = (0..k).map(|t| j[r * k + t] * j[c * k + t]).sum();
            a[(r, c)] = v;
            a[(c, r)] = v;
        }
        a[(r, r)] += cfm;
    }
}

/// Duplicates or zeroes a few rows and their columns (symmetry is kept).
fn make_singular(bytes: &mut Bytes, a: &mut DenseMatrix, n: usize) {
    for _ in 0..bytes.below(4) {
        let (from, to) = (bytes.below(n), bytes.below(n));
        let zero = bytes.byte() % 2 == 0;
        for k in 0..n {
            a[(to, k)] = if zero { 0.0 } else { a[(from, k)] };
        }
        for k in 0..n {
            a[(k, to)] = if zero { 0.0 } else { a[(k, from)] };
        }
        if !zero {
            a[(to, to)] = a[(from, from)];
        }
    }
}

fn scale(bytes: &mut Bytes) -> f64 {
    [1.0, 1.0, 1.0, 1e-12, 1e12, 1e-6, 1e6, 1e-300][bytes.below(8)]
}

fn bounds(bytes: &mut Bytes, p: &mut BoxedLcp) {
    let n = p.len();
    p.nub = bytes.below(n + 1);
    let roles: Vec<Role> = (0..n)
        .map(|i| {
            if i < p.nub {
                Role::Free
            } else {
                Role::from_byte(bytes.byte())
            }
        })
        .collect();
    let normals: Vec<usize> = (0..n).filter(|&i| !roles[i].is_friction()).collect();
    for (i, &role) in roles.iter().enumerate() {
        let (lo, hi) = match role {
            Role::Ordinary => (0.0, f64::INFINITY),
            Role::Free => (f64::NEG_INFINITY, f64::INFINITY),
            Role::LowerOnly => (-bytes.value().abs(), f64::INFINITY),
            Role::UpperOnly => (f64::NEG_INFINITY, bytes.value().abs()),
            Role::Boxed => (-bytes.value().abs(), bytes.value().abs()),
            Role::Pinned => (0.0, 0.0),
            Role::UpperFromZero => (0.0, bytes.value().abs()),
            Role::ChaosBounds => (bytes.raw_bound(-1.0), bytes.raw_bound(1.0)),
            Role::Friction => {
                if normals.is_empty() {
                    (0.0, f64::INFINITY)
                } else {
                    p.findex[i] = Some(normals[bytes.below(normals.len())]);
                    (-1.0, bytes.value().abs())
                }
            }
            Role::ChaosFindex => {
                p.findex[i] = Some(bytes.below(n + 1));
                (0.0, bytes.raw_bound(1.0))
            }
        };
        p.lo[i] = lo;
        p.hi[i] = hi;
    }
}
