//! `stiction.lcp`: the solvers of `stiction-lcp` on numpy arrays.
//!
//! A problem is validated exactly as `stiction lcp solve` validates a problem file (it goes
//! through the same [`ProblemFile`] conversions), so the messages are the CLI's, without the
//! file name. The solve itself runs with the GIL released.

use numpy::{AllowTypeChange, PyArray1, PyArray2, PyArrayLikeDyn};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use stiction_lcp::dantzig::{solve_dantzig, DantzigOptions};
use stiction_lcp::json::{parse_problem, to_json, ProblemFile};
use stiction_lcp::lemke::{solve_lemke, LemkeOptions};
use stiction_lcp::pgd::{solve_pgd, PgdOptions};
use stiction_lcp::pgs::{solve_pgs, PgsOptions};
use stiction_lcp::{BoxedLcp, LcpError, SolveReport, StandardLcp};

use crate::convert::{array1, array2, shape_text};
use crate::errors::{lcp_error, LcpError as PyLcpError};

/// The solvers, by the names `stiction lcp solve --solver` takes.
const SOLVERS: &str = "dantzig, pgs, lemke, pgd";

/// A boxed LCP `A x = b + w`, `lo <= x <= hi` with ODE's `nub` and `findex` (friction rows
/// bounded by `hi[i] * |x[findex[i]]|`): what `stiction.lcp.solve` solves and what
/// `World.captured_problems()` returns.
#[pyclass(module = "stiction._stiction", name = "Problem", frozen)]
#[derive(Debug, Clone)]
pub struct PyProblem {
    /// The validated problem.
    pub problem: BoxedLcp,
}

/// The answer of a solve: `x`, the slack `w = A x - b`, how the solve ended and how good
/// the answer is.
#[pyclass(module = "stiction._stiction", name = "LcpResult", frozen, get_all)]
pub struct PyLcpResult {
    /// The solution (or the solver's best estimate: see `status`).
    pub x: Py<PyArray1<f64>>,
    /// The slack: `A x - b` (boxed problems) or `M z + q` (Lemke on `(M, q)`).
    pub w: Py<PyArray1<f64>>,
    /// `"solved"`, `"iteration_limit"`, `"pivot_limit"`, `"pivot_failure"`,
    /// `"ray_termination"` or `"non_finite"`.
    pub status: &'static str,
    /// Whether `status` is `"solved"`.
    pub solved: bool,
    /// Pivots (Dantzig, Lemke) or sweeps / gradient steps (PGS, PGD).
    pub iterations: usize,
    /// The normalised residual: the largest of `residual_parts`.
    pub residual: f64,
    /// `{"bound", "equation", "complementarity"}`, each normalised.
    pub residual_parts: Py<PyDict>,
    /// Whether Dantzig's Gauss-Seidel fallback finished the solve.
    pub fell_back: bool,
}

#[pymethods]
impl PyLcpResult {
    fn __repr__(&self, py: Python<'_>) -> String {
        let x = self
            .x
            .bind(py)
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_default();
        format!(
            "LcpResult(status={:?}, iterations={}, residual={:e}, x={x})",
            self.status, self.iterations, self.residual
        )
    }
}

/// The result object of a report.
fn result(py: Python<'_>, report: SolveReport) -> PyResult<PyLcpResult> {
    let parts = PyDict::new(py);
    parts.set_item("bound", report.residual.bound)?;
    parts.set_item("equation", report.residual.equation)?;
    parts.set_item("complementarity", report.residual.complementarity)?;
    Ok(PyLcpResult {
        x: array1(py, report.x).unbind(),
        w: array1(py, report.w).unbind(),
        status: report.status.as_str(),
        solved: report.status.is_solved(),
        iterations: report.iterations,
        residual: report.residual.max(),
        residual_parts: parts.unbind(),
        fell_back: report.fell_back,
    })
}

/// The rows of a 2-D array argument (`field` names it as the problem file does).
fn rows(array: &PyArrayLikeDyn<'_, f64, AllowTypeChange>, field: &str) -> PyResult<Vec<Vec<f64>>> {
    let shape = numpy::PyUntypedArrayMethods::shape(&***array).to_vec();
    let [n, m] = shape[..] else {
        return Err(PyLcpError::new_err(format!(
            "field `{field}`: must be a 2-D array, got shape {}",
            shape_text(&shape)
        )));
    };
    let data: Vec<f64> = array.as_array().iter().copied().collect();
    Ok((0..n).map(|i| data[i * m..(i + 1) * m].to_vec()).collect())
}

/// The numbers of a 1-D array argument.
fn vector(array: &PyArrayLikeDyn<'_, f64, AllowTypeChange>, field: &str) -> PyResult<Vec<f64>> {
    let shape = numpy::PyUntypedArrayMethods::shape(&***array).to_vec();
    if shape.len() != 1 {
        return Err(PyLcpError::new_err(format!(
            "field `{field}`: must be a 1-D array, got shape {}",
            shape_text(&shape)
        )));
    }
    Ok(array.as_array().iter().copied().collect())
}

/// `findex` as the problem file has it: an int per row, -1 (or None) for none.
fn friction_indices(obj: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    let items: Vec<Option<i64>> = obj.extract().map_err(|_| {
        PyTypeError::new_err("findex must be a sequence of ints (-1 or None: no coupling)")
    })?;
    Ok(items.into_iter().map(|j| j.unwrap_or(-1)).collect())
}

/// The problem file the arguments make, before any rule is checked.
fn problem_file(
    a: &PyArrayLikeDyn<'_, f64, AllowTypeChange>,
    b: &PyArrayLikeDyn<'_, f64, AllowTypeChange>,
    lo: Option<&PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
    hi: Option<&PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
    findex: Option<&Bound<'_, PyAny>>,
    nub: i64,
) -> PyResult<ProblemFile> {
    let nub = usize::try_from(nub)
        .map_err(|_| PyLcpError::new_err(format!("field `nub`: must be >= 0, got {nub}")))?;
    Ok(ProblemFile {
        a: rows(a, "a")?,
        b: vector(b, "b")?,
        lo: lo.map(|v| vector(v, "lo")).transpose()?,
        hi: hi.map(|v| vector(v, "hi")).transpose()?,
        findex: findex
            .filter(|f| !f.is_none())
            .map(friction_indices)
            .transpose()?,
        nub,
    })
}

/// A solver's options from the keyword arguments (`None`: the solver's default).
#[derive(Debug, Clone, Copy, Default)]
struct Overrides {
    max_iterations: Option<i64>,
    tolerance: Option<f64>,
    omega: Option<f64>,
    fallback: bool,
}

impl Overrides {
    fn pgs(&self) -> Result<PgsOptions, LcpError> {
        let mut options = PgsOptions::default();
        if let Some(n) = self.max_iterations {
            options.max_iterations = iterations(n)?;
        }
        if let Some(t) = self.tolerance {
            options.tolerance = t;
        }
        if let Some(w) = self.omega {
            options.omega = w;
        }
        Ok(options)
    }
}

fn iterations(n: i64) -> Result<usize, LcpError> {
    usize::try_from(n).map_err(|_| LcpError::BadOption {
        option: "max_iterations",
        reason: format!("must be at least 1, got {n}"),
    })
}

/// Lemke's reading of a boxed problem with default bounds: `A x = b + w`, `x >= 0` is the
/// standard LCP `w = A x - b`, so `M = A` and `q = -b`.
fn as_standard(problem: &BoxedLcp) -> Result<StandardLcp, LcpError> {
    let file = ProblemFile {
        a: (0..problem.a.rows())
            .map(|i| problem.a.row(i).to_vec())
            .collect(),
        b: problem.b.iter().map(|v| -v).collect(),
        lo: Some(problem.lo.clone()),
        hi: Some(problem.hi.clone()),
        findex: Some(
            problem
                .findex
                .iter()
                .map(|f| f.map_or(-1, |j| j as i64))
                .collect(),
        ),
        nub: problem.nub,
    };
    file.into_standard()
}

/// Runs `solver` on `problem`.
fn run(problem: &BoxedLcp, solver: &str, overrides: Overrides) -> Result<SolveReport, LcpError> {
    match solver {
        "dantzig" => {
            let mut options = DantzigOptions::default();
            if overrides.fallback {
                options.fallback = Some(overrides.pgs()?);
            }
            solve_dantzig(problem, &options, None)
        }
        "pgs" => solve_pgs(problem, None, &overrides.pgs()?),
        "pgd" => {
            let mut options = PgdOptions::default();
            if let Some(n) = overrides.max_iterations {
                options.max_iterations = iterations(n)?;
            }
            if let Some(t) = overrides.tolerance {
                options.tolerance = t;
            }
            solve_pgd(problem, None, &options)
        }
        "lemke" => solve_lemke(&as_standard(problem)?, &LemkeOptions::default()),
        _ => unreachable!("checked by solve_problem"),
    }
}

/// Solves with the GIL released; option errors name the solver as the CLI does.
fn solve_problem(
    py: Python<'_>,
    problem: &BoxedLcp,
    solver: &str,
    overrides: Overrides,
) -> PyResult<PyLcpResult> {
    if !SOLVERS.split(", ").any(|s| s == solver) {
        return Err(PyLcpError::new_err(format!(
            "unknown solver `{solver}`: expected one of {SOLVERS}"
        )));
    }
    let report = py
        .detach(|| run(problem, solver, overrides))
        .map_err(|e| match e {
            LcpError::BadOption { .. } => PyLcpError::new_err(format!("solver {solver}: {e}")),
            other => lcp_error(other),
        })?;
    result(py, report)
}

#[pymethods]
impl PyProblem {
    /// A problem from arrays: `A` (n x n), `b` (n); `lo`, `hi` default to `0` and `+inf`
    /// (`-inf`, `+inf` for the first `nub` rows); `findex` to -1 (none) per row.
    #[new]
    #[pyo3(signature = (a, b, lo=None, hi=None, findex=None, nub=0))]
    fn new(
        a: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        b: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        lo: Option<PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
        hi: Option<PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
        findex: Option<&Bound<'_, PyAny>>,
        nub: i64,
    ) -> PyResult<Self> {
        let file = problem_file(&a, &b, lo.as_ref(), hi.as_ref(), findex, nub)?;
        let problem = file.into_boxed().map_err(lcp_error)?;
        Ok(Self { problem })
    }

    /// Problem size n.
    #[getter]
    fn n(&self) -> usize {
        self.problem.len()
    }

    fn __len__(&self) -> usize {
        self.problem.len()
    }

    /// The matrix A, (n, n).
    #[getter]
    fn a<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let n = self.problem.len();
        array2(py, n, n, self.problem.a.as_slice().to_vec())
    }

    /// The right-hand side b, (n,).
    #[getter]
    fn b<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, self.problem.b.clone())
    }

    /// Lower bounds, (n,) (ignored on friction rows).
    #[getter]
    fn lo<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, self.problem.lo.clone())
    }

    /// Upper bounds, (n,); the friction coefficient on friction rows.
    #[getter]
    fn hi<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array1(py, self.problem.hi.clone())
    }

    /// Friction coupling per row, int64 (n,): the normal row, or -1.
    #[getter]
    fn findex<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let v: Vec<i64> = self
            .problem
            .findex
            .iter()
            .map(|f| f.map_or(-1, |j| j as i64))
            .collect();
        PyArray1::from_vec(py, v)
    }

    /// Number of leading unbounded rows.
    #[getter]
    fn nub(&self) -> usize {
        self.problem.nub
    }

    /// Solves the problem (see `stiction.lcp.solve` for the solvers and options).
    #[pyo3(signature = (solver="dantzig", *, max_iterations=None, tolerance=None, omega=None, fallback=false))]
    fn solve(
        &self,
        py: Python<'_>,
        solver: &str,
        max_iterations: Option<i64>,
        tolerance: Option<f64>,
        omega: Option<f64>,
        fallback: bool,
    ) -> PyResult<PyLcpResult> {
        let overrides = Overrides {
            max_iterations,
            tolerance,
            omega,
            fallback,
        };
        solve_problem(py, &self.problem, solver, overrides)
    }

    /// The problem in the JSON problem-file format of `stiction lcp solve` (reads back to the
    /// same numbers).
    fn to_json(&self) -> String {
        to_json(&self.problem)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let py = slf.py();
        let load = py
            .import("stiction._stiction")?
            .getattr("_problem_from_json")?;
        Ok((load, (slf.get().to_json(),)))
    }

    fn __repr__(&self) -> String {
        let frictions = self.problem.findex.iter().filter(|f| f.is_some()).count();
        format!(
            "Problem(n={}, nub={}, friction_rows={})",
            self.problem.len(),
            self.problem.nub,
            frictions
        )
    }
}

/// `stiction.lcp.solve`: solves `A x = b + w` with bounds by the named solver.
#[pyfunction(name = "_lcp_solve")]
#[pyo3(signature = (a, b, lo=None, hi=None, findex=None, nub=0, solver="dantzig", max_iterations=None, tolerance=None, omega=None, fallback=false))]
#[allow(clippy::too_many_arguments)] // The keyword arguments of the Python function.
pub fn lcp_solve(
    py: Python<'_>,
    a: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
    b: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
    lo: Option<PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
    hi: Option<PyArrayLikeDyn<'_, f64, AllowTypeChange>>,
    findex: Option<&Bound<'_, PyAny>>,
    nub: i64,
    solver: &str,
    max_iterations: Option<i64>,
    tolerance: Option<f64>,
    omega: Option<f64>,
    fallback: bool,
) -> PyResult<PyLcpResult> {
    let problem = PyProblem::new(a, b, lo, hi, findex, nub)?;
    let overrides = Overrides {
        max_iterations,
        tolerance,
        omega,
        fallback,
    };
    solve_problem(py, &problem.problem, solver, overrides)
}

/// `stiction.lcp.lemke`: the standard LCP `w = M z + q`, `0 <= z _|_ w >= 0`.
#[pyfunction(name = "_lcp_lemke")]
#[pyo3(signature = (m, q, max_pivots=None))]
pub fn lcp_lemke(
    py: Python<'_>,
    m: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
    q: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
    max_pivots: Option<i64>,
) -> PyResult<PyLcpResult> {
    let file = ProblemFile {
        a: rows(&m, "a")?,
        b: vector(&q, "b")?,
        lo: None,
        hi: None,
        findex: None,
        nub: 0,
    };
    let problem = file.into_standard().map_err(lcp_error)?;
    let options = LemkeOptions {
        max_pivots: match max_pivots {
            Some(n) => Some(usize::try_from(n).map_err(|_| {
                PyLcpError::new_err(format!(
                    "solver lemke: option `max_pivots`: must be at least 1, got {n}"
                ))
            })?),
            None => None,
        },
        ..LemkeOptions::default()
    };
    let report = py
        .detach(|| solve_lemke(&problem, &options))
        .map_err(|e| match e {
            LcpError::BadOption { .. } => PyLcpError::new_err(format!("solver lemke: {e}")),
            other => lcp_error(other),
        })?;
    result(py, report)
}

/// `stiction.lcp.Problem.from_json`: a problem from the JSON problem-file format.
#[pyfunction(name = "_problem_from_json")]
pub fn problem_from_json(text: &str) -> PyResult<PyProblem> {
    let problem = parse_problem(text)
        .and_then(ProblemFile::into_boxed)
        .map_err(lcp_error)?;
    Ok(PyProblem { problem })
}
