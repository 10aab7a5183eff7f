//! Elimination of the bilateral forces: the mixed LCP becomes a pure LCP (Drake's
//! `ConstraintSolver` documentation, equations (e)-(g)).
//!
//! With `C = M^-1`, rows `J` (what the complementarity conditions measure), force directions
//! `K` (how the complementarity forces `y` act; `K = J` except for sliding contacts at the
//! acceleration level) and bilateral rows `G`, the velocity after the step is
//! `v+ = v~ + h C (K^T y + G^T fG)`. Eliminating `v+` exactly (`M` is invertible) leaves the
//! bilateral equations `G v+ + kG = 0` as
//!
//! ```text
//! W_GG fG = -(kG + G v~) / h - W_GY y,     W_GG = G C G^T,  W_GY = G C K^T,
//! ```
//!
//! and the complementarity rows become `J v+ = J v~ - P (kG + G v~) + h S y` with
//! `P = W_YG W_GG^+`, `W_YG = J C G^T` and the reduced Delassus matrix
//! `S = J C K^T - P W_GY`, all independent of `h`.
//!
//! # Rank-deficient `G`
//!
//! Dependent bilateral rows (a duplicated joint, a closed loop) make `W_GG` singular.
//! `W_GG^+` is then the Moore-Penrose pseudo-inverse from a singular value decomposition
//! (nalgebra's `SVD`), with singular values below `rank_tolerance * sigma_max` treated as
//! zero. This gives the minimum-norm least-squares bilateral forces, the same answer as a
//! complete orthogonal decomposition: dependent rows share their force equally, and the
//! generalized force `G^T fG` and the motion are the unique physical ones. SVD was chosen over
//! column-pivoted QR because its rank decision is the reliable one (pivoted QR can miss a
//! near-dependency) and its minimum-norm answer needs no second factorisation; `nb` is small,
//! so its `O(nb^3)` cost does not matter. `W_GG` is symmetrised first: it is symmetric
//! positive semi-definite in exact arithmetic, and a user's solve operation may leave
//! roundoff asymmetry.
//!
//! The elimination is consistent even for singular `W_GG`: the columns of `W_GY` lie in the
//! range of `G C^(1/2)`, which is the range of `W_GG`.

use nalgebra::{DMatrix, SVD};

use crate::error::ConstraintError;
use crate::inertia::GeneralizedInertia;

/// Iteration limit handed to nalgebra's SVD (it converges in a few dozen sweeps; the limit
/// only guards against a non-terminating loop on pathological input).
const SVD_MAX_ITERATIONS: usize = 10_000;

/// The `h`-independent products of the bilateral elimination.
#[derive(Clone, Debug)]
pub(crate) struct Reduction {
    /// `S = J C K^T - P W_GY`, `nz x nz`.
    pub(crate) delassus: DMatrix<f64>,
    /// `P = J C G^T W_GG^+`, `nz x nb`.
    pub(crate) projection: DMatrix<f64>,
    /// `W_GG^+`, `nb x nb`.
    pub(crate) bilateral_inverse: DMatrix<f64>,
    /// `W_GY = G C K^T`, `nb x nz`.
    pub(crate) bilateral_coupling: DMatrix<f64>,
    /// Numerical rank of `W_GG`.
    pub(crate) bilateral_rank: usize,
}

impl Reduction {
    /// Forms the reduction with one call of the inertia solve on `[K^T G^T]`.
    pub(crate) fn new(
        inertia: &GeneralizedInertia,
        rows: &DMatrix<f64>,
        force_directions: &DMatrix<f64>,
        bilateral: &DMatrix<f64>,
        rank_tolerance: f64,
    ) -> Result<Self, ConstraintError> {
        let nz = rows.nrows();
        let nb = bilateral.nrows();
        let nv = inertia.dim();
        let mut rhs = DMatrix::zeros(nv, nz + nb);
        rhs.columns_mut(0, nz)
            .copy_from(&force_directions.transpose());
        rhs.columns_mut(nz, nb).copy_from(&bilateral.transpose());
        let solved = inertia.solve_nalgebra(&rhs)?;
        let c_kt = solved.columns(0, nz);
        let c_gt = solved.columns(nz, nb);

        let mut w_gg = bilateral * c_gt;
        let symmetric = (&w_gg + w_gg.transpose()) * 0.5;
        w_gg = symmetric;
        let bilateral_coupling = bilateral * c_kt;
        let w_yg = rows * c_gt;
        let (bilateral_inverse, bilateral_rank) = pseudo_inverse(w_gg, rank_tolerance)?;
        let projection = &w_yg * &bilateral_inverse;
        let delassus = rows * c_kt - &projection * &bilateral_coupling;
        Ok(Self {
            delassus,
            projection,
            bilateral_inverse,
            bilateral_coupling,
            bilateral_rank,
        })
    }

    /// The bilateral forces for complementarity forces `y`, step `h` and the bilateral
    /// right-hand side `kG + G v~`: `fG = -W_GG^+ (rhs / h + W_GY y)`.
    pub(crate) fn bilateral_forces(&self, y: &[f64], h: f64, rhs: &[f64]) -> Vec<f64> {
        let nb = rhs.len();
        let mut b = nalgebra::DVector::from_fn(nb, |i, _| rhs[i] / h);
        b += &self.bilateral_coupling * nalgebra::DVector::from_column_slice(y);
        let f = &self.bilateral_inverse * b;
        f.iter().map(|v| -v).collect()
    }
}

/// Moore-Penrose pseudo-inverse of a symmetric positive semi-definite matrix and its
/// numerical rank: singular values `<= tolerance * sigma_max` count as zero.
fn pseudo_inverse(
    matrix: DMatrix<f64>,
    tolerance: f64,
) -> Result<(DMatrix<f64>, usize), ConstraintError> {
    let n = matrix.nrows();
    if n == 0 {
        return Ok((matrix, 0));
    }
    let svd = SVD::try_new(matrix, true, true, f64::EPSILON, SVD_MAX_ITERATIONS)
        .ok_or(ConstraintError::BilateralDecomposition)?;
    let sigma_max = svd.singular_values.max();
    let cutoff = tolerance * sigma_max;
    let rank = svd
        .singular_values
        .iter()
        .filter(|&&s| s > cutoff && s > 0.0)
        .count();
    let (Some(u), Some(v_t)) = (&svd.u, &svd.v_t) else {
        return Err(ConstraintError::BilateralDecomposition);
    };
    // W^+ = V diag(1/s) U^T over the kept singular values.
    let mut inverse = DMatrix::zeros(n, n);
    for (k, &s) in svd.singular_values.iter().enumerate() {
        if s > cutoff && s > 0.0 {
            inverse += (v_t.row(k).transpose() * u.column(k).transpose()) / s;
        }
    }
    Ok((inverse, rank))
}
