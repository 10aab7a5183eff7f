//! The pure LCP of Drake's `ConstraintSolver` in the variables `z = (fN, f_D, lambda, fL)`,
//! its assembly for a step size `h`, and the way back from `z` to packed forces.
//!
//! `f_D` holds, per contact with friction, its `r_i` forces along the spanning directions
//! `+d_j` followed by the `r_i` forces along `-d_j`; `lambda` has one entry per contact with
//! friction. Rows of the Jacobian for `lambda` are zero, so the reduced Delassus matrix covers
//! all of `z` and the structural blocks (`E`, `mu`, `gamma`) are added on top:
//!
//! ```text
//! MM = h S + | gammaN  0    0    0      |     qq = J v~ - P (kG + G v~) + | kN  |
//!            | 0       0    E    0      |                                 | kD± |
//!            | mu     -E^T  0    0      |                                 | 0   |
//!            | 0       0    0    gammaL |                                 | kL  |
//! ```

use nalgebra::{DMatrix, DVector};
use stiction_lcp::{DenseMatrix, StandardLcp};

use crate::dense::{from_nalgebra, to_nalgebra};
use crate::problem::ConstraintSet;
use crate::reduction::Reduction;

/// Where each contact's variables sit in `z`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LcpIndex {
    /// `r_i` per contact.
    pub(crate) spanning: Vec<usize>,
    /// Row of contact `i`'s first friction direction in `F` (prefix sums of `r`).
    pub(crate) friction_row: Vec<usize>,
    /// Index in `z` of contact `i`'s first `+d` force.
    pub(crate) d_start: Vec<usize>,
    /// Index in `z` of contact `i`'s `lambda`, if it has friction.
    pub(crate) lambda: Vec<Option<usize>>,
    /// Index in `z` of the first generic unilateral force.
    pub(crate) l_start: usize,
    /// Number of generic unilateral constraints.
    pub(crate) nl: usize,
    /// Number of bilateral constraints.
    pub(crate) nb: usize,
    /// Number of generalized velocities.
    pub(crate) nv: usize,
    /// Size of the LCP.
    pub(crate) nz: usize,
}

impl LcpIndex {
    pub(crate) fn new(constraints: &ConstraintSet, nv: usize) -> Self {
        let spanning = constraints.spanning_directions.clone();
        let nc = spanning.len();
        let mut friction_row = Vec::with_capacity(nc);
        let mut d_start = Vec::with_capacity(nc);
        let mut next = nc;
        let mut row = 0;
        for &r in &spanning {
            friction_row.push(row);
            d_start.push(next);
            row += r;
            next += 2 * r;
        }
        let mut lambda = Vec::with_capacity(nc);
        for &r in &spanning {
            if r > 0 {
                lambda.push(Some(next));
                next += 1;
            } else {
                lambda.push(None);
            }
        }
        let nl = constraints.unilateral.rows();
        Self {
            spanning,
            friction_row,
            d_start,
            lambda,
            l_start: next,
            nl,
            nb: constraints.bilateral.rows(),
            nv,
            nz: next + nl,
        }
    }

    pub(crate) fn contacts(&self) -> usize {
        self.spanning.len()
    }
}

/// The rows `J` (what each complementarity condition measures) and the force directions `K`
/// (how each complementarity force acts), `nz x nv`. They differ only for sliding contacts,
/// whose normal force also drags friction `-mu Q^T` along.
pub(crate) fn build_rows(
    index: &LcpIndex,
    constraints: &ConstraintSet,
    sliding: Option<(&[bool], &DenseMatrix)>,
) -> (DMatrix<f64>, DMatrix<f64>) {
    let nv = index.nv;
    let mut rows = DMatrix::zeros(index.nz, nv);
    for i in 0..index.contacts() {
        for k in 0..nv {
            rows[(i, k)] = constraints.normal[(i, k)];
        }
        let r = index.spanning[i];
        for j in 0..r {
            let source = constraints.friction.row(index.friction_row[i] + j);
            for (k, &value) in source.iter().enumerate() {
                rows[(index.d_start[i] + j, k)] = value;
                rows[(index.d_start[i] + r + j, k)] = -value;
            }
        }
    }
    for l in 0..index.nl {
        for (k, &value) in constraints.unilateral.row(l).iter().enumerate() {
            rows[(index.l_start + l, k)] = value;
        }
    }
    let mut force_directions = rows.clone();
    if let Some((flags, directions)) = sliding {
        let sliding = flags.iter().enumerate().filter(|(_, &s)| s);
        for (row, (i, _)) in sliding.enumerate() {
            let mu = constraints.mu[i];
            for (k, &q) in directions.row(row).iter().enumerate() {
                force_directions[(i, k)] -= mu * q;
            }
        }
    }
    (rows, force_directions)
}

/// The LCP for step `h` and free velocity `v~` (or free acceleration `C f` at the
/// acceleration level, with `h = 1`), and the bilateral right-hand side `kG + G v~`.
pub(crate) fn assemble(
    index: &LcpIndex,
    reduction: &Reduction,
    constraints: &ConstraintSet,
    rows: &DMatrix<f64>,
    bilateral: &DMatrix<f64>,
    free: &[f64],
    h: f64,
) -> (StandardLcp, Vec<f64>) {
    let free = DVector::from_column_slice(free);
    let mut bilateral_rhs = bilateral * &free;
    for (b, k) in bilateral_rhs.iter_mut().zip(&constraints.k_g) {
        *b += k;
    }
    let offset = rows * &free - &reduction.projection * &bilateral_rhs;

    let mut mm = &reduction.delassus * h;
    let mut qq: Vec<f64> = offset.iter().copied().collect();
    for i in 0..index.contacts() {
        mm[(i, i)] += constraints.gamma_n[i];
        qq[i] += constraints.k_n[i];
        let Some(lambda) = index.lambda[i] else {
            continue;
        };
        let r = index.spanning[i];
        let start = index.d_start[i];
        for j in 0..r {
            let k = constraints.k_d[index.friction_row[i] + j];
            qq[start + j] += k;
            qq[start + r + j] -= k;
        }
        for d in start..start + 2 * r {
            mm[(d, lambda)] = 1.0;
            mm[(lambda, d)] = -1.0;
        }
        mm[(lambda, i)] = constraints.mu[i];
        qq[lambda] = 0.0;
    }
    for l in 0..index.nl {
        let z = index.l_start + l;
        mm[(z, z)] += constraints.gamma_l[l];
        qq[z] += constraints.k_l[l];
    }
    (
        StandardLcp::new(from_nalgebra(&mm), qq),
        bilateral_rhs.iter().copied().collect(),
    )
}

/// Packed forces (normal, signed friction per spanning direction, unilateral, bilateral)
/// from an LCP solution `z`.
pub(crate) fn unpack(
    index: &LcpIndex,
    reduction: &Reduction,
    z: &[f64],
    h: f64,
    bilateral_rhs: &[f64],
) -> Vec<f64> {
    let nc = index.contacts();
    let friction: usize = index.spanning.iter().sum();
    let mut cf = Vec::with_capacity(nc + friction + index.nl + index.nb);
    cf.extend_from_slice(&z[..nc]);
    for i in 0..nc {
        let r = index.spanning[i];
        let start = index.d_start[i];
        for j in 0..r {
            cf.push(z[start + j] - z[start + r + j]);
        }
    }
    cf.extend_from_slice(&z[index.l_start..index.l_start + index.nl]);
    cf.extend(reduction.bilateral_forces(z, h, bilateral_rhs));
    cf
}

/// The bilateral Jacobian as an nalgebra matrix.
pub(crate) fn bilateral_matrix(constraints: &ConstraintSet) -> DMatrix<f64> {
    to_nalgebra(&constraints.bilateral)
}
