//! Problem types: the boxed LCP with ODE's semantics and the standard LCP.

use crate::error::LcpError;
use crate::matrix::DenseMatrix;

/// A boxed linear complementarity problem with ODE's `dSolveLCP` semantics.
///
/// Find `x`, `w` with `A x = b + w` and, for every row `i`, one of
/// - `x_i = lo_i` and `w_i >= 0`,
/// - `x_i = hi_i` and `w_i <= 0`,
/// - `lo_i < x_i < hi_i` and `w_i = 0`.
///
/// The first `nub` rows are unbounded (`lo = -inf`, `hi = +inf`). A friction row `i` with
/// `findex[i] = Some(j)` has its bounds set from the normal force `x_j`:
/// `hi_i := mu_i |x_j|`, `lo_i := -hi_i`, where `mu_i` is the `hi[i]` given here
/// (`lo[i]` is ignored for such rows).
#[derive(Clone, Debug, PartialEq)]
pub struct BoxedLcp {
    /// The `n x n` matrix, symmetric positive semi-definite (plus CFM on the diagonal)
    /// for the pivoting solvers' guarantees.
    pub a: DenseMatrix,
    /// Right-hand side.
    pub b: Vec<f64>,
    /// Lower bounds, `<= 0`, may be `-inf`.
    pub lo: Vec<f64>,
    /// Upper bounds, `>= 0`, may be `+inf`; the friction coefficient for `findex` rows.
    pub hi: Vec<f64>,
    /// Number of leading unbounded rows.
    pub nub: usize,
    /// Friction coupling: `Some(j)` bounds row `i` by `mu_i |x_j|`.
    pub findex: Vec<Option<usize>>,
}

impl BoxedLcp {
    /// A problem with the given matrix and right-hand side, bounds `[0, +inf)` (a standard
    /// LCP in ODE's sign convention), no unbounded rows and no friction coupling.
    pub fn new(a: DenseMatrix, b: Vec<f64>) -> Self {
        let n = b.len();
        Self {
            a,
            b,
            lo: vec![0.0; n],
            hi: vec![f64::INFINITY; n],
            nub: 0,
            findex: vec![None; n],
        }
    }

    /// Problem size `n`.
    #[inline]
    pub fn len(&self) -> usize {
        self.b.len()
    }

    /// Whether the problem has no rows.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.b.is_empty()
    }

    /// Checks every rule of the problem definition; solvers call this first.
    pub fn validate(&self) -> Result<(), LcpError> {
        let n = self.b.len();
        if !self.a.is_square() {
            return Err(LcpError::NotSquare {
                rows: self.a.rows(),
                cols: self.a.cols(),
            });
        }
        if self.a.rows() != n {
            return Err(LcpError::LengthMismatch {
                field: "b",
                expected: self.a.rows(),
                found: n,
            });
        }
        check_len("lo", n, self.lo.len())?;
        check_len("hi", n, self.hi.len())?;
        check_len("findex", n, self.findex.len())?;
        check_finite("a", self.a.as_slice())?;
        check_finite("b", &self.b)?;
        if self.nub > n {
            return Err(LcpError::NubTooLarge { nub: self.nub, n });
        }
        for i in 0..n {
            let (lo, hi) = (self.lo[i], self.hi[i]);
            if lo.is_nan() {
                return Err(LcpError::NonFinite {
                    field: "lo",
                    index: i,
                    value: lo,
                });
            }
            if hi.is_nan() {
                return Err(LcpError::NonFinite {
                    field: "hi",
                    index: i,
                    value: hi,
                });
            }
            match self.findex[i] {
                Some(j) => {
                    if i < self.nub {
                        return Err(LcpError::BoundedNubRow {
                            field: "findex",
                            index: i,
                            nub: self.nub,
                        });
                    }
                    check_findex_target(&self.findex, i, j)?;
                    if !(hi.is_finite() && hi >= 0.0) {
                        return Err(LcpError::BadFrictionCoefficient {
                            index: i,
                            value: hi,
                        });
                    }
                }
                None => {
                    if i < self.nub {
                        if lo != f64::NEG_INFINITY || hi != f64::INFINITY {
                            return Err(LcpError::BoundedNubRow {
                                field: "lo/hi",
                                index: i,
                                nub: self.nub,
                            });
                        }
                    } else if lo > hi {
                        return Err(LcpError::BoundsInverted { index: i, lo, hi });
                    } else if lo > 0.0 || hi < 0.0 {
                        return Err(LcpError::BoundsExcludeZero { index: i, lo, hi });
                    }
                }
            }
        }
        Ok(())
    }

    /// The bounds row `i` has for a given solution `x`: its own `lo`/`hi`, or
    /// `-mu |x_j|`, `mu |x_j|` for a friction row coupled to `j`.
    #[inline]
    pub fn effective_bounds(&self, i: usize, x: &[f64]) -> (f64, f64) {
        match self.findex[i] {
            Some(j) => {
                let h = (self.hi[i] * x[j]).abs();
                (-h, h)
            }
            None => (self.lo[i], self.hi[i]),
        }
    }

    /// `w = A x - b`.
    pub fn slack(&self, x: &[f64]) -> Vec<f64> {
        let mut w = Vec::new();
        self.slack_into(x, &mut w);
        w
    }

    /// [`Self::slack`] into `w` (resized to the problem's length; no allocation once it
    /// has the capacity).
    pub fn slack_into(&self, x: &[f64], w: &mut Vec<f64>) {
        w.clear();
        w.resize(self.len(), 0.0);
        self.a.mul_vec_into(x, w);
        for (wi, bi) in w.iter_mut().zip(&self.b) {
            *wi -= bi;
        }
    }
}

/// The standard LCP: find `z >= 0` with `w = M z + q >= 0` and `z . w = 0`.
#[derive(Clone, Debug, PartialEq)]
pub struct StandardLcp {
    /// The `n x n` matrix (need not be symmetric).
    pub m: DenseMatrix,
    /// The constant vector.
    pub q: Vec<f64>,
}

impl StandardLcp {
    /// A standard LCP from its matrix and vector.
    pub fn new(m: DenseMatrix, q: Vec<f64>) -> Self {
        Self { m, q }
    }

    /// Problem size.
    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// Whether the problem has no rows.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Checks dimensions and finiteness.
    pub fn validate(&self) -> Result<(), LcpError> {
        if !self.m.is_square() {
            return Err(LcpError::NotSquare {
                rows: self.m.rows(),
                cols: self.m.cols(),
            });
        }
        if self.m.rows() != self.q.len() {
            return Err(LcpError::LengthMismatch {
                field: "b",
                expected: self.m.rows(),
                found: self.q.len(),
            });
        }
        check_finite("a", self.m.as_slice())?;
        check_finite("b", &self.q)
    }

    /// The same problem in boxed form: `A = M`, `b = -q`, bounds `[0, +inf)`.
    pub fn to_boxed(&self) -> BoxedLcp {
        BoxedLcp::new(self.m.clone(), self.q.iter().map(|v| -v).collect())
    }
}

/// Checks that friction row `i` may couple to row `j`: inside the problem, not itself, and
/// not another friction row.
pub(crate) fn check_findex_target(
    findex: &[Option<usize>],
    i: usize,
    j: usize,
) -> Result<(), LcpError> {
    let n = findex.len();
    if j >= n {
        return Err(LcpError::FindexOutOfRange {
            index: i,
            target: j as i64,
            n,
        });
    }
    if j == i {
        return Err(LcpError::FindexSelf { index: i });
    }
    if findex[j].is_some() {
        return Err(LcpError::FindexChain {
            index: i,
            target: j,
        });
    }
    Ok(())
}

/// A length that must equal `expected`, as a typed error naming the field.
pub(crate) fn check_len(
    field: &'static str,
    expected: usize,
    found: usize,
) -> Result<(), LcpError> {
    if expected == found {
        Ok(())
    } else {
        Err(LcpError::LengthMismatch {
            field,
            expected,
            found,
        })
    }
}

pub(crate) fn check_finite(field: &'static str, v: &[f64]) -> Result<(), LcpError> {
    match v.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(LcpError::NonFinite {
            field,
            index,
            value: v[index],
        }),
        None => Ok(()),
    }
}
