"""The LCP solvers of Stiction on numpy arrays.

A boxed LCP is ``A x = b + w`` with, for every row ``i``, one of

- ``x[i] == lo[i]`` and ``w[i] >= 0``,
- ``x[i] == hi[i]`` and ``w[i] <= 0``,
- ``lo[i] < x[i] < hi[i]`` and ``w[i] == 0``.

The first ``nub`` rows are unbounded. A friction row ``i`` with ``findex[i] = j >= 0`` has
the bounds ``-hi[i] * |x[j]|`` and ``hi[i] * |x[j]|`` (``hi[i]`` is its friction
coefficient). These are ODE's ``dSolveLCP`` semantics and the JSON problem files of
``stiction lcp solve``; problems are validated by the same rules, with the same messages.

>>> import numpy as np
>>> from stiction import lcp
>>> # One particle on the ground pushed sideways: rows (normal, tangent x, tangent y).
>>> r = lcp.solve(np.eye(3), [9.81, 20.0, 0.0], findex=[-1, 0, 0], hi=[np.inf, 0.5, 0.5])
>>> r.status, round(float(r.x[1]), 9)  # sliding: friction at mu times the normal force
('solved', 4.905)
"""

from __future__ import annotations

from typing import Literal, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from ._stiction import LcpError, LcpResult, Problem
from ._stiction import _lcp_lemke, _lcp_solve, _problem_from_json

__all__ = ["LcpError", "LcpResult", "Problem", "from_json", "lemke", "solve"]

ArrayLike = npt.ArrayLike
Solver = Literal["dantzig", "pgs", "lemke", "pgd"]


def solve(
    A: ArrayLike,
    b: ArrayLike,
    lo: Optional[ArrayLike] = None,
    hi: Optional[ArrayLike] = None,
    findex: Optional[Sequence[Optional[int]]] = None,
    nub: int = 0,
    solver: Solver = "dantzig",
    *,
    max_iterations: Optional[int] = None,
    tolerance: Optional[float] = None,
    omega: Optional[float] = None,
    fallback: bool = False,
) -> LcpResult:
    """Solve the boxed LCP ``A x = b + w`` (see the module documentation).

    ``lo`` and ``hi`` default to ``0`` and ``+inf`` (``-inf`` and ``+inf`` on the first
    ``nub`` rows); ``findex`` to ``-1`` (no coupling) on every row.

    Solvers:

    - ``"dantzig"``: exact principal pivoting (ODE's ``dSolveLCP``), degeneracy-safe;
      ``fallback=True`` finishes a failed pivoting with projected Gauss-Seidel.
    - ``"pgs"``: SOR projected Gauss-Seidel (``max_iterations`` sweeps, ``omega`` in
      ``(0, 2)``, ``tolerance`` on the relative change per sweep).
    - ``"pgd"``: accelerated projected gradient on the box-constrained QP (symmetric ``A``).
    - ``"lemke"``: Lemke's complementary pivoting on the same problem, which must then have
      the standard bounds ``[0, +inf)`` (no ``nub``, no ``findex``); for ``w = M z + q``
      use :func:`lemke`.

    Raises :class:`stiction.LcpError` (a ``ValueError``) for a malformed problem or an
    option out of range. A solver that does not solve is not an error: see
    ``result.status``.
    """
    return _lcp_solve(
        A,
        b,
        lo,
        hi,
        findex,
        nub,
        solver,
        max_iterations,
        tolerance,
        omega,
        fallback,
    )


def lemke(M: ArrayLike, q: ArrayLike, *, max_pivots: Optional[int] = None) -> LcpResult:
    """Solve the standard LCP ``w = M z + q``, ``0 <= z``, ``w >= 0``, ``z . w = 0`` by
    Lemke's algorithm (``result.x`` is ``z``, ``result.w`` is ``M z + q``).

    Note the sign of ``q``: the boxed reading of the same numbers, ``solve(M, -q)``, is the
    same problem. A ``"ray_termination"`` status means Lemke found no solution (for a
    copositive-plus ``M`` the problem has none).
    """
    return _lcp_lemke(M, q, max_pivots)


def from_json(text: Union[str, bytes]) -> Problem:
    """A :class:`Problem` from the JSON problem-file format of ``stiction lcp solve``
    (``Problem.to_json()`` writes it)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return _problem_from_json(text)
