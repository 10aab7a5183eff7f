"""stiction.lcp: hand-solved boxed LCPs, Lemke, problem objects and the CLI's messages."""

import pickle

import numpy as np
import pytest

import stiction
from stiction import lcp

SOLVERS = ["dantzig", "pgs", "pgd", "lemke"]


def test_readme_particle_pushed_sideways():
    # The README's "Using the solver crate": rows (normal, tangent x, tangent y), mu = 0.5.
    r = lcp.solve(np.eye(3), [9.81, 20.0, 0.0], findex=[-1, 0, 0], hi=[np.inf, 0.5, 0.5])
    assert r.status == "solved" and r.solved
    assert abs(r.x[0] - 9.81) < 1e-12
    assert abs(r.x[1] - 0.5 * 9.81) < 1e-12  # sliding: friction at mu times the normal force
    assert abs(r.x[2]) < 1e-12
    # The slack of the sliding row is negative (the push wins), x at its upper bound.
    assert r.w[1] < 0 and r.residual < 1e-12
    assert set(r.residual_parts) == {"bound", "equation", "complementarity"}


@pytest.mark.parametrize("solver", SOLVERS)
def test_two_rows_one_clamped_at_zero(solver):
    # A x = b + w, x >= 0: the unconstrained solution A^-1 b = (11, -2) / 5 is infeasible;
    # with x2 = 0: 2 x1 = 4 so x1 = 2, and w2 = x1 - 1 = 1 >= 0.
    r = lcp.solve([[2.0, 1.0], [1.0, 3.0]], [4.0, 1.0], solver=solver)
    assert r.status == "solved"
    np.testing.assert_allclose(r.x, [2.0, 0.0], atol=1e-8)
    np.testing.assert_allclose(r.w, [0.0, 1.0], atol=1e-8)


@pytest.mark.parametrize("solver", ["dantzig", "pgs", "pgd"])
def test_box_bound_and_unbounded_rows(solver):
    # Row 0 unbounded (nub = 1): 2 x0 = -4. Row 1 capped at hi = 2 although b asks 5:
    # x1 = 2, w1 = 2 - 5 = -3 <= 0. Row 2 at its lower bound: x2 = 0, w2 = 1.
    a = np.diag([2.0, 1.0, 1.0])
    r = lcp.solve(a, [-4.0, 5.0, -1.0], hi=[np.inf, 2.0, np.inf], lo=[-np.inf, 0, 0], nub=1, solver=solver)
    assert r.status == "solved"
    np.testing.assert_allclose(r.x, [-2.0, 2.0, 0.0], atol=1e-8)
    np.testing.assert_allclose(r.w, [0.0, -3.0, 1.0], atol=1e-8)


def test_friction_sticks_below_the_cone():
    # Pushed with 2 N against mu * normal = 0.5 * 9.81: the contact sticks (w = 0, x = b).
    r = lcp.solve(np.eye(3), [9.81, 2.0, -1.0], findex=[None, 0, 0], hi=[np.inf, 0.5, 0.5])
    np.testing.assert_allclose(r.x, [9.81, 2.0, -1.0], atol=1e-12)
    np.testing.assert_allclose(r.w, 0.0, atol=1e-12)


def test_lemke_on_standard_form():
    # w = M z + q: the problem above with q = -b.
    r = lcp.lemke([[2.0, 1.0], [1.0, 3.0]], [-4.0, -1.0])
    assert r.status == "solved"
    np.testing.assert_allclose(r.x, [2.0, 0.0], atol=1e-10)
    np.testing.assert_allclose(r.w, [0.0, 1.0], atol=1e-10)
    assert r.iterations >= 1
    # q >= 0 is answered by z = 0 without a pivot.
    r = lcp.lemke(np.eye(2), [1.0, 2.0])
    np.testing.assert_array_equal(r.x, [0.0, 0.0])
    assert r.iterations == 0


def test_lemke_reports_a_ray_for_an_infeasible_problem():
    # w = -z - 1 < 0 for every z >= 0: no solution.
    r = lcp.lemke([[-1.0]], [-1.0])
    assert r.status == "ray_termination" and not r.solved


def test_unsolved_is_a_status_not_an_error():
    # docs/errors.md: `stiction lcp solve negative.json`.
    r = lcp.solve([[-1.0]], [1.0])
    assert (r.status, list(r.x), list(r.w), r.iterations, r.residual) == (
        "pivot_failure", [0.0], [-1.0], 1, 1.0)
    r = lcp.solve([[-1.0]], [1.0], solver="pgs", max_iterations=5)
    assert (r.status, r.iterations) == ("iteration_limit", 1)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        # The messages of docs/errors.md ("LCP problem files"), without the file name.
        (dict(A=[[2.0, 1.0]], b=[1.0]), "field `a`: matrix must be square, got 1 x 2"),
        (dict(A=[[2.0, 0.0], [0.0, 2.0]], b=[1.0]), "field `b`: expected length 2, found 1"),
        (dict(A=[[2.0]], b=[1.0], lo=[1.0], hi=[-1.0]), "field `lo`/`hi`: row 0 has lo = 1 > hi = -1"),
        (dict(A=np.eye(2) * 2, b=[1.0, 1.0], findex=[-1, 5]), "field `findex`: row 1 points at 5, outside 0..2"),
        (dict(A=[[2.0]], b=[1.0], nub=3), "field `nub`: 3 exceeds the problem size 1"),
        (dict(A=[[2.0]], b=[-1.0], hi=[1.0], solver="lemke"),
         "field `hi`: a standard LCP has hi = +inf on every row, row 0 has 1"),
        (dict(A=[[2.0]], b=[-1.0], hi=[1.0], solver="pgs", omega=3), "solver pgs: option `omega`: must lie in (0, 2), got 3"),
        (dict(A=[[2.0]], b=[-1.0], hi=[1.0], solver="pgd", tolerance=0), "solver pgd: option `tolerance`: must be finite and > 0, got 0"),
        # And what only arrays can carry.
        (dict(A=[[2.0]], b=[np.nan]), "field `b`: entry 0 is not finite (NaN)"),
        (dict(A=[[np.inf]], b=[1.0]), "field `a`: entry 0 is not finite (inf)"),
        (dict(A=[1.0, 2.0], b=[1.0]), "field `a`: must be a 2-D array, got shape (2,)"),
        (dict(A=[[1.0]], b=[[1.0]]), "field `b`: must be a 1-D array, got shape (1, 1)"),
        (dict(A=[[1.0]], b=[1.0], nub=-1), "field `nub`: must be >= 0, got -1"),
        (dict(A=[[1.0]], b=[1.0], solver="simplex"), "unknown solver `simplex`: expected one of dantzig, pgs, lemke, pgd"),
        (dict(A=np.eye(2), b=[1.0, 1.0], findex=[1, 0], hi=[1, 1]), "field `findex`: row 0 points at row 1, which is itself a friction row"),
    ],
)
def test_bad_problems_raise_lcp_error_with_the_cli_message(kwargs, message):
    with pytest.raises(stiction.LcpError) as info:
        lcp.solve(**kwargs)
    assert str(info.value) == message
    assert isinstance(info.value, ValueError) and isinstance(info.value, stiction.StictionError)


def test_non_numeric_input_is_a_type_error_not_a_crash():
    with pytest.raises((TypeError, ValueError)):
        lcp.solve([["a"]], [1.0])
    with pytest.raises(TypeError):
        lcp.solve(np.eye(2), [1.0, 1.0], findex=[0.5, -1])
    with pytest.raises((TypeError, ValueError)):
        lcp.lemke(None, None)


def test_problem_objects_round_trip():
    p = lcp.Problem(np.eye(3), [9.81, 20.0, 0.0], findex=[-1, 0, 0], hi=[np.inf, 0.5, 0.5])
    assert (p.n, len(p), p.nub) == (3, 3, 0)
    np.testing.assert_array_equal(p.findex, [-1, 0, 0])
    np.testing.assert_array_equal(p.lo, [0.0, 0.0, 0.0])
    again = lcp.from_json(p.to_json())
    np.testing.assert_array_equal(again.a, p.a)
    np.testing.assert_array_equal(again.hi, p.hi)
    copy = pickle.loads(pickle.dumps(p))
    np.testing.assert_array_equal(copy.b, p.b)
    np.testing.assert_array_equal(copy.solve().x, p.solve().x)
    # nub rows default to unbounded, as in problem files.
    q = lcp.Problem(np.eye(2), [-1.0, -1.0], nub=1)
    np.testing.assert_array_equal(q.lo, [-np.inf, 0.0])
    np.testing.assert_array_equal(q.solve().x, [-1.0, 0.0])


def test_json_problem_files_read_like_the_cli():
    p = lcp.from_json('{"a": [[2, 1], [1, 3]], "b": [4, 1], "hi": [null, "inf"]}')
    np.testing.assert_allclose(p.solve().x, [2.0, 0.0], atol=1e-12)
    with pytest.raises(stiction.LcpError, match="unknown field `c`"):
        lcp.from_json('{"a": [[2.0]], "b": [1.0], "c": 1}')


def test_a_captured_contact_lcp_solved_by_hand(resting_box):
    # The 10 kg box rests on its four corners: solving the island's captured LCP by
    # Dantzig gives normal forces that carry exactly its weight, as the step did.
    world, box = resting_box
    world.capture_problems = True
    world.step(1 / 240)
    problems = world.captured_problems()
    assert len(problems) == 1 and world.captured_islands() == [0]
    p = problems[0]
    assert p.n == 12  # 4 contacts x (normal, 2 friction rows)
    normal_rows = np.flatnonzero(p.findex < 0)
    assert len(normal_rows) == 4
    r = p.solve("dantzig")
    assert r.status == "solved"
    weight = 10.0 * 9.81
    assert abs(r.x[normal_rows].sum() - weight) < 1e-6
    np.testing.assert_allclose(r.x[p.findex >= 0], 0.0, atol=1e-6)  # nothing pushes sideways
    engine = world.contacts().local_forces[:, 0].sum()
    assert abs(engine - weight) < 1e-6
    # The same problem by the other solvers.
    for solver in ["pgs", "pgd"]:
        other = p.solve(solver, max_iterations=20000)
        assert abs(other.x[normal_rows].sum() - weight) < 1e-3 * weight, solver
