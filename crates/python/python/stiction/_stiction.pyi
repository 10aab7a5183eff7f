"""Type stubs of the native module ``stiction._stiction`` (import from ``stiction``)."""

from __future__ import annotations

import os
from typing import Any, Callable, Literal, Mapping, Optional, Sequence, Tuple, TypedDict, Union, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "ContactEvents", "ContactPairs", "Contacts", "JointFeedback", "LcpError", "LcpResult",
    "ModelError", "PointProjection", "Problem", "RayHit", "RayHits", "SNAPSHOT_FORMAT_VERSION",
    "SceneError", "SensorEvents", "ShapeHit", "SnapshotError", "StepError", "StepStats",
    "StictionError", "World", "WorldError", "__version__", "_lcp_lemke", "_lcp_solve",
    "_problem_from_json", "_world_from_pickle",
]

__version__: str
SNAPSHOT_FORMAT_VERSION: int

_Vec3 = Union[Sequence[float], npt.NDArray[np.floating[Any]]]
"""Three numbers (x, y, z)."""
_Quaternion = Union[Sequence[float], npt.NDArray[np.floating[Any]]]
"""Four numbers in (w, x, y, z) order; normalised by the engine."""
_BodyRef = Union[int, str]
"""A body by index (the order bodies were added) or by name."""
_JointRef = Union[int, str]
"""A joint by index (the order joints were added) or by name."""
_FloatArray = npt.NDArray[np.float64]
_JointRefs = Union[Sequence[_JointRef], npt.NDArray[np.integer[Any]]]
"""Joints by index or name, in a list, a tuple or an integer array (not a single string)."""
_IntArray = npt.NDArray[np.int64]
_Groups = Tuple[int, int]
"""Collision groups ``(memberships, filter)``: two 32-bit masks. Two colliders (or a query
and a collider) interact when each one's memberships meet the other's filter."""
_QueryShape = Literal["sphere", "ball", "box", "cuboid", "capsule", "cylinder", "cone", "convex_hull"]
"""A query shape, sized as for :meth:`World.add_collider` (axial shapes along local z)."""
_Predicate = Callable[[int], Any]
"""A query's last word on a collider: called with its index (under the GIL, only for
colliders that passed the other tests); a false result skips it, an exception propagates."""

class _Servo(TypedDict):
    """A servo as :meth:`World.joint_dynamics` reports it, keyed by :meth:`World.set_servo`'s
    arguments (``world.set_servo(joint, **servo)`` sets it again)."""

    target: float
    """Target position x*, rad or m."""
    stiffness: float
    """k, N m/rad or N/m (0: a velocity servo)."""
    damping: float
    """d, N m s/rad or N s/m."""
    max_force: Optional[float]
    """Force limit F, N m or N; ``None``: no limit."""
    target_velocity: float
    """Target rate v*, rad/s or m/s."""

class _JointDynamics(TypedDict):
    """Friction, damping and servo of one joint axis (:meth:`World.joint_dynamics`)."""

    friction: float
    """Coulomb friction torque or force T, N m or N (0: none)."""
    damping: float
    """Viscous damping c, N m s/rad or N s/m (0: none)."""
    servo: Optional[_Servo]
    """The servo, or ``None``."""

class StictionError(ValueError):
    """Base class of every error Stiction raises for bad input or a refused operation."""

class SceneError(StictionError):
    """A scene that cannot be read, parsed, validated or built (the ``stiction`` command's message)."""

class ModelError(StictionError):
    """A robot model (URDF, MJCF) that cannot be loaded; the message starts with the
    file, line and column at fault (``arm.urdf:12:5: <joint> needs ...``)."""

class WorldError(StictionError):
    """A world operation the engine refused: a bad body, collider, joint, setting or state,
    or an unknown body or joint."""

class StepError(StictionError):
    """A refused step; the world is exactly as it was before that step.

    ``completed_steps`` is the number of steps of the same ``step(h, n)`` call that were
    committed before it."""

    completed_steps: int

class SnapshotError(StictionError):
    """Snapshot bytes that are truncated, damaged, foreign or of another format version."""

class LcpError(StictionError):
    """An LCP problem or solver option that breaks a rule (the message names the field)."""

@final
class StepStats:
    """What the last step did (``World.stats``, returned by ``World.step``)."""

    h: float
    """The step size, s."""
    committed: bool
    """Whether the step was applied (a refused step changed nothing)."""
    rows: int
    """Rows (scalar constraints) solved."""
    islands: int
    """Islands of bodies connected by rows."""
    constrained_bodies: int
    """Dynamic bodies in islands."""
    free_bodies: int
    """Dynamic bodies in no island."""
    pivots: int
    """Dantzig pivots over all islands (exact stepper)."""
    sweeps: int
    """Gauss-Seidel sweeps over all islands (iterative stepper and fallbacks)."""
    direct_islands: int
    """Bilateral islands solved by one factorisation (no pivots or sweeps)."""
    worst_residual: float
    """The worst normalised LCP residual of any island (1e-12: exact to round-off)."""
    fallbacks: int
    """Islands whose exact solve failed and that Gauss-Seidel finished."""
    unsolved_islands: int
    """Islands whose forces are not a solution to tolerance."""
    contacts: int
    """Contact points that became rows."""
    collision_pairs: int
    """Collider pairs whose bounding boxes overlap."""
    sleeping_bodies: int
    """Bodies asleep after the step."""
    broken_joints: int
    """Joints that broke in the step."""
    post_stabilization_passes: int
    """Position-correction passes after the velocity step."""

@final
class Contacts:
    """The contact points of the last step (``World.contacts()``), one row each."""

    points: _FloatArray
    """World points midway between the two surfaces, (K, 3), m."""
    normals: _FloatArray
    """Unit normals from body A into body B, (K, 3)."""
    forces: _FloatArray
    """Forces on body B, world frame, (K, 3), N (body A receives the opposite)."""
    local_forces: _FloatArray
    """Forces in the contact frame (normal >= 0, tangent 1, tangent 2), (K, 3), N."""
    bodies: npt.NDArray[np.int64]
    """Body indices (A, B), (K, 2); -1 for static world geometry."""
    separations: _FloatArray
    """Signed distances between the surfaces, (K,), m (negative: penetration)."""
    count: int
    """K."""
    def __len__(self) -> int: ...

@final
class JointFeedback:
    """Joint constraint forces of the last step (``World.joint_feedback()``): arrays with one
    row per joint, or single vectors for one joint."""

    force_a: _FloatArray
    """Force on body A, N, world frame: (J, 3) or (3,)."""
    torque_a: _FloatArray
    """Torque on body A about its centre of mass, N m."""
    force_b: _FloatArray
    """Force on body B (or the world), N."""
    torque_b: _FloatArray
    """Torque on body B about its centre of mass (or the world origin), N m."""
    motor: _FloatArray
    """Generalised force of each axis's motor (axes 0 and 1): (J, 2) or (2,)."""
    limit: _FloatArray
    """Generalised force of each axis's limit (axes 0 and 1): (J, 2) or (2,)."""

@final
class RayHit:
    """Where a ray first meets a collider (:meth:`World.cast_ray`)."""

    point: _FloatArray
    """The point hit, (3,), m, world frame."""
    normal: _FloatArray
    """The collider's outward unit normal there, (3,); zero for a ray starting inside a
    collider (rays are solid: it hits at distance 0)."""
    distance: float
    """Distance from the ray's origin, m (directions are normalised)."""
    collider: int
    """The collider's index."""
    body: int
    """Its body's index; -1 for static world geometry."""

@final
class RayHits:
    """Ray answers as arrays: one row per ray (:meth:`World.cast_rays`) or per collider hit
    (:meth:`World.cast_ray_all`)."""

    distances: _FloatArray
    """Distances along the rays, (N,), m; ``inf`` where nothing was hit."""
    points: _FloatArray
    """Points hit, (N, 3), m; rows of NaN where nothing was hit."""
    normals: _FloatArray
    """Outward unit normals, (N, 3); rows of NaN where nothing was hit, zero for a ray
    starting inside a collider."""
    colliders: _IntArray
    """Collider indices, (N,) int64; -1 where nothing was hit."""
    bodies: _IntArray
    """Body indices, (N,) int64; -1 for world geometry or where nothing was hit."""
    hit: npt.NDArray[np.bool_]
    """Whether each ray hit something, (N,) bool."""
    count: int
    """N."""
    hit_count: int
    """How many rows hit something."""
    def __len__(self) -> int: ...

@final
class ShapeHit:
    """Where a moving shape first touches a collider (:meth:`World.cast_shape`)."""

    time: float
    """Time of impact: the shape touches the collider once moved by ``time * velocity``
    (0 if it already touches or overlaps it)."""
    position: _FloatArray
    """Where the shape's origin is then, ``position + time * velocity``, (3,), m."""
    point_on_shape: _FloatArray
    """The contact point on the moving shape (where it is then), (3,), m."""
    point_on_collider: _FloatArray
    """The contact point on the collider, (3,), m."""
    normal_on_shape: _FloatArray
    """The moving shape's outward unit normal at its contact point, (3,)."""
    normal_on_collider: _FloatArray
    """The collider's outward unit normal at its contact point, (3,)."""
    collider: int
    """The collider's index."""
    body: int
    """Its body's index; -1 for static world geometry."""
    status: Literal["converged", "penetrating", "out_of_iterations", "failed"]
    """How the cast ended: ``"penetrating"`` when the shape touched or overlapped the
    collider at time 0 (its points and normals are then unreliable)."""

@final
class PointProjection:
    """The collider nearest a point and the nearest point on it (:meth:`World.project_point`)."""

    point: _FloatArray
    """The projected point, (3,), m: on the collider's surface, or the query point itself
    when it is inside the collider and the projection is solid."""
    distance: float
    """Distance from the query point to ``point``, m."""
    is_inside: bool
    """Whether the query point is inside the collider."""
    collider: int
    """The collider's index."""
    body: int
    """Its body's index; -1 for static world geometry."""

@final
class SensorEvents:
    """Sensor overlaps that began or ended in the last step (:meth:`World.sensor_events`),
    one row each, sorted by sensor, then collider."""

    kinds: _IntArray
    """+1: the overlap began; -1: it ended. (K,) int64."""
    sensors: _IntArray
    """The sensor colliders' indices, (K,) int64."""
    colliders: _IntArray
    """The indices of the colliders entering or leaving them, (K,) int64."""
    bodies: _IntArray
    """(sensor's body, collider's body), (K, 2) int64; -1 for the static world."""
    count: int
    """K."""
    def __len__(self) -> int: ...

@final
class ContactEvents:
    """Collider pairs that started or stopped touching in the last step
    (:meth:`World.contact_events`), sorted by collider indices."""

    kinds: _IntArray
    """+1: started touching; -1: stopped. (K,) int64."""
    colliders: _IntArray
    """The two colliders' indices (A, B), (K, 2) int64, A the one added first."""
    bodies: _IntArray
    """Their bodies' indices, (K, 2) int64; -1 for the static world."""
    count: int
    """K."""
    def __len__(self) -> int: ...

@final
class ContactPairs:
    """Every collider pair touching in the last step and what its contact carried
    (:meth:`World.contact_pairs`), sorted by collider indices."""

    colliders: _IntArray
    """The two colliders' indices (A, B), (K, 2) int64, A the one added first."""
    bodies: _IntArray
    """Their bodies' indices, (K, 2) int64; -1 for the static world."""
    normal_impulses: _FloatArray
    """Total normal impulse of the step, (K,), N s (>= 0): the normal forces times ``h``
    (plus sequential-impact impulses). A box of mass ``m`` at rest reports ``m g h``."""
    friction_impulses: _FloatArray
    """Total friction impulse of the step, (K,), N s (>= 0): the friction forces'
    magnitudes times ``h``, summed over the pair's points."""
    impulses: _FloatArray
    """Net impulse on B (normal and friction, all points), (K, 3), N s, world frame; A
    receives the opposite. B's momentum change due to this pair."""
    point_counts: _IntArray
    """Contact points of each pair in the step, (K,) int64."""
    asleep: npt.NDArray[np.bool_]
    """Whether the pair's bodies all sleep (it keeps touching, with zero impulses), (K,)."""
    count: int
    """K."""
    def __len__(self) -> int: ...

@final
class Problem:
    """A boxed LCP ``A x = b + w``, ``lo <= x <= hi``, with ``nub`` and ``findex`` (see
    :mod:`stiction.lcp`). Validated on construction; picklable."""

    def __new__(
        cls,
        a: npt.ArrayLike,
        b: npt.ArrayLike,
        lo: Optional[npt.ArrayLike] = None,
        hi: Optional[npt.ArrayLike] = None,
        findex: Optional[Sequence[Optional[int]]] = None,
        nub: int = 0,
    ) -> Problem: ...
    @property
    def n(self) -> int:
        """Problem size."""
    @property
    def a(self) -> _FloatArray:
        """The matrix A, (n, n)."""
    @property
    def b(self) -> _FloatArray:
        """The right-hand side, (n,)."""
    @property
    def lo(self) -> _FloatArray:
        """Lower bounds (ignored on friction rows)."""
    @property
    def hi(self) -> _FloatArray:
        """Upper bounds; the friction coefficient on friction rows."""
    @property
    def findex(self) -> npt.NDArray[np.int64]:
        """The normal row each friction row is coupled to, or -1."""
    @property
    def nub(self) -> int:
        """Number of leading unbounded rows."""
    def __len__(self) -> int: ...
    def solve(
        self,
        solver: Literal["dantzig", "pgs", "lemke", "pgd"] = "dantzig",
        *,
        max_iterations: Optional[int] = None,
        tolerance: Optional[float] = None,
        omega: Optional[float] = None,
        fallback: bool = False,
    ) -> LcpResult:
        """Solve it (see :func:`stiction.lcp.solve`)."""
    def to_json(self) -> str:
        """The problem in the JSON format of ``stiction lcp solve`` (reads back exactly)."""

@final
class LcpResult:
    """The answer of a solve."""

    x: _FloatArray
    """The solution (or the solver's best estimate: see ``status``)."""
    w: _FloatArray
    """The slack ``A x - b`` (or ``M z + q`` for :func:`stiction.lcp.lemke`)."""
    status: Literal[
        "solved", "iteration_limit", "pivot_limit", "pivot_failure", "ray_termination", "non_finite"
    ]
    """How the solve ended; only ``"solved"`` promises a solution to tolerance."""
    solved: bool
    """``status == "solved"``."""
    iterations: int
    """Pivots (Dantzig, Lemke), sweeps (PGS) or gradient steps (PGD)."""
    residual: float
    """The normalised residual: the largest of ``residual_parts``."""
    residual_parts: dict[str, float]
    """``{"bound", "equation", "complementarity"}``, each normalised by the problem's scale."""
    fell_back: bool
    """Whether Dantzig's Gauss-Seidel fallback finished the solve."""

@final
class World:
    """A simulated world: bodies, colliders and joints, settings, and the step.

    Bodies and joints are indices in the order they were added (the rows of the state
    arrays) or, where given, names. z is up; SI units; quaternions are (w, x, y, z).
    Picklable and copyable (``copy.deepcopy``, ``World.copy``): a copy continues bit for
    bit as the original would.
    """

    def __new__(
        cls,
        gravity: Optional[_Vec3] = None,
        solver: Literal["exact", "iterative"] = "exact",
        *,
        timestep: float = 1 / 60,
        erp: Optional[float] = None,
        cfm: Optional[float] = None,
        iterations: int = 20,
        omega: float = 1.0,
        tolerance: float = 0.0,
        post_stabilization: bool = True,
        sleeping: bool = False,
        restitution_threshold: Optional[float] = None,
        capture_problems: bool = False,
    ) -> World:
        """An empty world.

        ``gravity`` defaults to (0, 0, -9.81). ``solver="exact"`` solves each island by
        Dantzig pivoting (ODE's ``dWorldStep``); ``"iterative"`` by ``iterations`` sweeps
        of projected Gauss-Seidel with relaxation ``omega`` (ODE's ``dWorldQuickStep``).
        ``erp`` (default 0.2) and ``cfm`` (default 1e-5) soften every row;
        ``timestep`` is the step ``step()`` takes when given none. Raises
        :class:`WorldError` for a setting out of range.
        """
    @staticmethod
    def from_scene(
        source: Union[str, os.PathLike[str]],
        *,
        format: Optional[Literal["toml", "json"]] = None,
        solver: Optional[Literal["exact", "iterative"]] = None,
    ) -> World:
        """A world from a scene file (``.toml`` or ``.json``, docs/scene-format.md), a
        built-in scene's name (``"pendulum"``), or scene text (a string with a line break or
        starting with ``[``/``{``, or any string with ``format=``).

        Read, validated and built by the ``stiction`` command's own reader: the same
        defaults and the same :class:`SceneError` messages (``ball.toml:4:39: ...``,
        ``planet.toml: bodies[0].shapes[0]: mass must be finite and > 0, got inf``).
        Bodies and joints keep their scene names; ``timestep`` is the scene's
        ``world.step``. ``solver`` overrides the scene's stepper like ``--solver``.
        """
    @staticmethod
    def from_model(
        path: Union[str, os.PathLike[str]],
        *,
        base: Optional[Literal["fixed", "floating"]] = None,
        position: Optional[_Vec3] = None,
        orientation: Optional[_Quaternion] = None,
        joints: Optional[Mapping[str, float]] = None,
        hold: bool = False,
        servo: Optional[tuple[float, float]] = None,
        search_path: Optional[Sequence[Union[str, os.PathLike[str]]]] = None,
        timestep: Optional[float] = None,
    ) -> World:
        """A world loaded from a robot model: URDF or MJCF, told apart by the root element
        (``<robot>``, ``<mujoco>``), by the ``stiction-models`` crate (docs/models.md).

        Bodies are named by link (a massless link welded to a moving parent shares its
        parent's body, which takes the first of their names in sorted order), joints by
        joint name, so ``world.joint_axis("elbow")`` and ``world.body_index("upper")``
        work. The world has default settings (gravity ``(0, 0, -9.81)``) and no ground.

        ``base``: ``"fixed"`` (the root link is static) or ``"floating"`` (a free body);
        ``None`` follows the file (URDF roots fixed, MJCF ``free`` joints float).
        ``joints``: initial joint values by name (rad, m), placed by forward kinematics.
        ``position``, ``orientation`` (w, x, y, z): where the model's frame goes.
        ``hold``: every hinge and slider held by a velocity motor of target 0 bounded by
        its effort. ``servo``: ``(stiffness, damping)`` of a position servo on every
        hinge and slider the file gives no actuator (MJCF position and velocity
        actuators are servos already), holding its initial value, bounded by its effort;
        move targets with :meth:`set_servo_targets`. ``search_path``: directories
        searched for meshes, before ``STICTION_MODEL_PATH``. ``timestep``: the step
        ``step()`` takes when given none; ``None`` takes the file's (MJCF ``<option
        timestep>``) or 1/240 s. The file's gravity (MJCF ``<option gravity>``) is the
        world's.

        What the file holds that is not simulated is listed in :attr:`model_warnings`.
        Raises :class:`ModelError` (a ``ValueError``) with the located message.
        """
    @staticmethod
    def from_urdf(
        path: Union[str, os.PathLike[str]],
        *,
        base: Optional[Literal["fixed", "floating"]] = None,
        position: Optional[_Vec3] = None,
        orientation: Optional[_Quaternion] = None,
        joints: Optional[Mapping[str, float]] = None,
        hold: bool = False,
        servo: Optional[tuple[float, float]] = None,
        search_path: Optional[Sequence[Union[str, os.PathLike[str]]]] = None,
        timestep: Optional[float] = None,
    ) -> World:
        """:meth:`from_model` (the format is read from the file's root element)."""
    @staticmethod
    def from_mjcf(
        path: Union[str, os.PathLike[str]],
        *,
        base: Optional[Literal["fixed", "floating"]] = None,
        position: Optional[_Vec3] = None,
        orientation: Optional[_Quaternion] = None,
        joints: Optional[Mapping[str, float]] = None,
        hold: bool = False,
        servo: Optional[tuple[float, float]] = None,
        search_path: Optional[Sequence[Union[str, os.PathLike[str]]]] = None,
        timestep: Optional[float] = None,
    ) -> World:
        """:meth:`from_model` (the format is read from the file's root element)."""
    @property
    def model_warnings(self) -> list[str]:
        """What the loaded robot model holds that is not simulated, one located line each
        (``arm.urdf:26:5: warning: ...``); empty for worlds not loaded from a model (and
        not kept by pickling or snapshots)."""
    @staticmethod
    def from_snapshot(data: bytes, *, timestep: float = 1 / 60) -> World:
        """A world read back from :meth:`snapshot` bytes (or a ``stiction run
        --snapshot-every`` file's contents). Raises :class:`SnapshotError`."""
    def snapshot(self) -> bytes:
        """The complete state (bodies, joints with warm starts, colliders, persistent
        contacts, sleep state, settings, time and step count) as versioned, checksummed
        bytes. Names are not included (pickling keeps them)."""
    def copy(self) -> World:
        """An independent copy that continues bit for bit as this world would."""
    def __copy__(self) -> World: ...
    def __deepcopy__(self, memo: Any) -> World: ...
    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]: ...

    # Bodies, colliders, joints.
    def add_body(
        self,
        kind: Literal["dynamic", "kinematic", "static"] = "dynamic",
        *,
        mass: Optional[float] = None,
        inertia: Optional[Union[_Vec3, Sequence[Sequence[float]], npt.NDArray[Any]]] = None,
        position: Optional[_Vec3] = None,
        orientation: Optional[_Quaternion] = None,
        velocity: Optional[_Vec3] = None,
        angular_velocity: Optional[_Vec3] = None,
        gravity: bool = True,
        linear_damping: float = 0.0,
        angular_damping: float = 0.0,
        name: Optional[str] = None,
        ccd: bool = False,
    ) -> int:
        """Add a body and return its index.

        ``mass`` in kg (default 1); ``inertia`` as principal moments (3,) or a symmetric
        3 x 3 tensor about the centre of mass in the body frame, kg m^2 (default: a solid
        ball of radius 0.5 m, ``0.1 * mass`` about every axis). ``position`` is the centre
        of mass. ``angular_velocity`` is in the world frame, rad/s. ``ccd``: continuous
        collision for a fast body (docs/ccd.md): it looks ahead over its motion in each
        step and stops at an obstacle instead of passing through it (see :meth:`set_ccd`).
        """
    def add_collider(
        self,
        shape: Literal[
            "sphere", "ball", "box", "cuboid", "capsule", "cylinder", "cone",
            "halfspace", "plane", "convex_hull", "trimesh", "heightfield",
        ],
        body: Optional[_BodyRef] = None,
        *,
        radius: Optional[float] = None,
        half_extents: Optional[_Vec3] = None,
        half_height: Optional[float] = None,
        normal: Optional[_Vec3] = None,
        points: Optional[npt.ArrayLike] = None,
        vertices: Optional[npt.ArrayLike] = None,
        triangles: Optional[npt.ArrayLike] = None,
        heights: Optional[npt.ArrayLike] = None,
        scale: Optional[_Vec3] = None,
        position: Optional[_Vec3] = None,
        orientation: Optional[_Quaternion] = None,
        friction: Optional[float] = None,
        restitution: Optional[float] = None,
        restitution_threshold: Optional[float] = None,
        sensor: bool = False,
        groups: Optional[_Groups] = None,
    ) -> int:
        """Add a collider to ``body`` (``None``: static world geometry) and return its index.

        Shapes and their sizes: ``sphere`` (``radius``), ``box`` (``half_extents``),
        ``capsule``/``cylinder``/``cone`` along local z (``radius``, ``half_height``),
        ``halfspace`` (``normal``, default +z; the solid side is below the plane through
        ``position``), ``convex_hull`` (``points`` (N, 3)), ``trimesh`` (``vertices``
        (N, 3), ``triangles`` (M, 3)), ``heightfield`` (``heights`` (rows, cols),
        ``scale``). ``position``/``orientation`` are in the body frame. ``friction``
        defaults to 0.5, ``restitution`` to 0. Colliders do not change a body's mass.

        ``sensor``: a trigger volume: it makes no contacts (no force, no effect on any
        motion) and the colliders its shape intersects are reported after each step by
        :meth:`sensor_events` and :meth:`sensor_overlaps`. ``groups=(memberships,
        filter)``: collision groups (32-bit masks; default: every group, accepting every
        group); two colliders meet only if each one's memberships meet the other's filter.
        """
    def add_ball_joint(
        self,
        body_a: _BodyRef,
        body_b: Optional[_BodyRef] = None,
        *,
        anchor: _Vec3,
        name: Optional[str] = None,
        erp: Optional[float] = None,
        cfm: Optional[float] = None,
        break_force: Optional[float] = None,
        break_torque: Optional[float] = None,
    ) -> int:
        """A ball-and-socket joint at the world point ``anchor`` between ``body_a`` and
        ``body_b`` (``None`` or ``"world"``: the static world). Returns the joint's index.

        Every joint constructor takes ``name``, ``erp``/``cfm`` (this joint's softness)
        and ``break_force``/``break_torque`` (N, N m: the joint breaks above them)."""
    def add_hinge_joint(
        self,
        body_a: _BodyRef,
        body_b: Optional[_BodyRef] = None,
        *,
        anchor: _Vec3,
        axis: _Vec3,
        limit: Optional[Tuple[float, float]] = None,
        motor: Optional[Tuple[float, float]] = None,
        name: Optional[str] = None,
        erp: Optional[float] = None,
        cfm: Optional[float] = None,
        break_force: Optional[float] = None,
        break_torque: Optional[float] = None,
    ) -> int:
        """A hinge about the world line through ``anchor`` along ``axis``; the current
        configuration is angle 0. ``limit=(lower, upper)`` in rad, ``motor=(target
        velocity rad/s, max torque N m)``."""
    def add_slider_joint(
        self,
        body_a: _BodyRef,
        body_b: Optional[_BodyRef] = None,
        *,
        axis: _Vec3,
        limit: Optional[Tuple[float, float]] = None,
        motor: Optional[Tuple[float, float]] = None,
        name: Optional[str] = None,
        erp: Optional[float] = None,
        cfm: Optional[float] = None,
        break_force: Optional[float] = None,
        break_torque: Optional[float] = None,
    ) -> int:
        """A prismatic joint along the world direction ``axis`` (relative orientation
        locked); ``limit`` in m, ``motor=(target velocity m/s, max force N)``."""
    def add_fixed_joint(
        self,
        body_a: _BodyRef,
        body_b: Optional[_BodyRef] = None,
        *,
        name: Optional[str] = None,
        erp: Optional[float] = None,
        cfm: Optional[float] = None,
        break_force: Optional[float] = None,
        break_torque: Optional[float] = None,
    ) -> int:
        """Weld ``body_a`` to ``body_b`` (or the world) where they are now."""
    def add_distance_joint(
        self,
        body_a: _BodyRef,
        body_b: Optional[_BodyRef] = None,
        *,
        anchor_a: _Vec3,
        anchor_b: _Vec3,
        distance: Optional[float] = None,
        limit: Optional[Tuple[float, float]] = None,
        name: Optional[str] = None,
        erp: Optional[float] = None,
        cfm: Optional[float] = None,
        break_force: Optional[float] = None,
        break_torque: Optional[float] = None,
    ) -> int:
        """A rod between the world points ``anchor_a`` (on A) and ``anchor_b`` (on B or the
        world) at their current distance (or ``distance``); ``limit=(min, max)`` makes it a
        range instead (a rope: ``(0, length)``)."""
    def add_universal_joint(
        self,
        body_a: _BodyRef,
        body_b: Optional[_BodyRef] = None,
        *,
        anchor: _Vec3,
        axis_a: _Vec3,
        axis_b: _Vec3,
        limit: Optional[Tuple[float, float]] = None,
        motor: Optional[Tuple[float, float]] = None,
        limit2: Optional[Tuple[float, float]] = None,
        motor2: Optional[Tuple[float, float]] = None,
        name: Optional[str] = None,
        erp: Optional[float] = None,
        cfm: Optional[float] = None,
        break_force: Optional[float] = None,
        break_torque: Optional[float] = None,
    ) -> int:
        """A universal (Cardan) joint at ``anchor``, ``axis_a`` fixed in A and ``axis_b``
        in B (perpendicular); ``limit``/``motor`` act on axis 0, ``limit2``/``motor2`` on
        axis 1."""
    def add_hinge2_joint(
        self,
        wheel: _BodyRef,
        chassis: Optional[_BodyRef] = None,
        *,
        anchor: _Vec3,
        steering_axis: _Vec3,
        wheel_axis: _Vec3,
        steering_limit: Optional[Tuple[float, float]] = None,
        steering_motor: Optional[Tuple[float, float]] = None,
        wheel_motor: Optional[Tuple[float, float]] = None,
        suspension: Optional[Tuple[float, float]] = None,
        name: Optional[str] = None,
        erp: Optional[float] = None,
        cfm: Optional[float] = None,
        break_force: Optional[float] = None,
        break_torque: Optional[float] = None,
    ) -> int:
        """A hinge-2 (ODE's car wheel): steering about ``steering_axis`` (fixed in the
        chassis), spinning about ``wheel_axis`` (fixed in the wheel), with an optional
        ``suspension=(stiffness N/m, damping N s/m)`` along the steering axis."""
    def set_motor(
        self,
        joint: _JointRef,
        target_velocity: Optional[float] = None,
        max_force: Optional[float] = None,
        *,
        axis: int = 0,
    ) -> None:
        """Set the motor of a joint axis (``target_velocity=None`` removes it)."""
    def set_limit(
        self,
        joint: _JointRef,
        lower: Optional[float] = None,
        upper: Optional[float] = None,
        *,
        axis: int = 0,
    ) -> None:
        """Set the limit of a joint axis (``lower=None`` removes it)."""
    def joint_axis(self, joint: _JointRef, axis: int = 0) -> Tuple[float, float]:
        """``(position, velocity)`` of a joint's free coordinate ``axis``: the hinge angle
        (rad, in (-pi, pi]) and its rate, the slider position (m), ..."""
    def joint_positions(self, joints: Optional[_JointRefs] = None) -> _FloatArray:
        """The coordinates of joints with one axis, (J,): hinge angles (rad, in
        (-pi, pi]), slider offsets (m), distances of distance joints (m).

        ``joints`` by index or name, in the order given; ``None`` (default): every joint
        with one axis, in joint index order (ball, fixed, universal and hinge-2 joints
        left out). A joint without exactly one axis in ``joints`` raises
        :class:`WorldError` (read its axes with :meth:`joint_axis`)."""
    def joint_velocities(self, joints: Optional[_JointRefs] = None) -> _FloatArray:
        """The rates (rad/s, m/s) of the coordinates :meth:`joint_positions` reads, (J,),
        for the same ``joints``."""

    # Joint friction, damping and servos (docs/dynamics.md#joint-friction-damping-and-servos).
    def set_servo(
        self,
        joint: _JointRef,
        target: float = 0.0,
        *,
        stiffness: float = 0.0,
        damping: float = 0.0,
        max_force: Optional[float] = None,
        target_velocity: float = 0.0,
        axis: int = 0,
    ) -> None:
        """Set the servo of a joint axis (replacing any), keeping its friction and damping.

        The servo applies ``clamp(k (x* + h v* - x+) + d (v* - v+), -F, F)`` (N m on an
        angle, N on a position) with ``x+``, ``v+`` the coordinate and rate at the end of
        the step: implicit, so stable at any gain. ``stiffness > 0``: a position servo
        holding ``target`` (rad or m; an angle's error is taken the short way round), with
        ``target_velocity`` as feed-forward. ``stiffness=0, damping > 0``: a velocity servo
        driving the rate to ``target_velocity``. ``max_force``: the limit ``F`` (``None``:
        none). Raises :class:`WorldError` (joint unchanged) for gains negative, not finite
        or both zero, a target that is not finite, a negative or NaN ``max_force``, an axis
        the joint lacks, a rigid distance joint, or an unknown joint."""
    def clear_servo(self, joint: _JointRef, axis: int = 0) -> None:
        """Remove the servo of a joint axis (nothing to remove is not an error), keeping
        its friction and damping. Raises :class:`WorldError` for an axis the joint lacks
        or an unknown joint."""
    def set_joint_dynamics(
        self,
        joint: _JointRef,
        *,
        friction: Optional[float] = None,
        damping: Optional[float] = None,
        axis: int = 0,
    ) -> None:
        """Set the Coulomb friction and viscous damping of a joint axis; ``None`` keeps
        the current value, 0 removes it; the servo is kept.

        ``friction`` ``T`` (N m or N): the axis does not move while the load on it is
        below ``T``, and feels ``-T sign(rate)`` above it. ``damping`` ``c`` (N m s/rad or
        N s/m): the force ``-c v+`` on the end-of-step rate (implicit: an isolated axis of
        inertia ``I`` has its rate divided by ``1 + h c / I`` each step). Raises
        :class:`WorldError` (joint unchanged) for a value negative or not finite, an axis
        the joint lacks, a rigid distance joint, or an unknown joint."""
    def joint_dynamics(self, joint: _JointRef, axis: int = 0) -> _JointDynamics:
        """``{"friction": T, "damping": c, "servo": {...} or None}`` of a joint axis; the
        servo's keys are :meth:`set_servo`'s arguments (``target``, ``stiffness``,
        ``damping``, ``max_force`` (``None``: no limit), ``target_velocity``)."""
    def set_servo_targets(
        self,
        joints: _JointRefs,
        targets: npt.ArrayLike,
        velocities: Optional[npt.ArrayLike] = None,
    ) -> None:
        """Move the targets of the servos on axis 0 of many joints in one call (a
        controller's step): ``targets[i]`` (rad or m) for ``joints[i]``, and
        ``velocities[i]`` as its target velocity when given (``None``: each servo keeps
        its own). Gains and force limits are unchanged.

        ``targets`` and ``velocities`` are float64 arrays (or sequences) of ``len(joints)``
        numbers. Everything is checked before any servo changes: a joint without a servo
        on axis 0, an unknown joint, a wrong length or a target that is not finite raises
        :class:`WorldError` naming ``joints[i]``, and nothing changed. A servo whose
        target changed wakes its joint's bodies."""
    def body_index(self, body: _BodyRef) -> int:
        """The index of a body given by name (or a checked index)."""
    def joint_index(self, joint: _JointRef) -> int:
        """The index of a joint given by name (or a checked index)."""
    @property
    def body_names(self) -> list[Optional[str]]:
        """Body names in index order (``None``: unnamed)."""
    @property
    def joint_names(self) -> list[Optional[str]]:
        """Joint names in index order (``None``: unnamed)."""
    @property
    def body_kinds(self) -> list[str]:
        """Each body's kind: ``"dynamic"``, ``"kinematic"`` or ``"static"``."""
    @property
    def body_count(self) -> int:
        """Number of bodies (rows of the state arrays)."""
    @property
    def joint_count(self) -> int:
        """Number of joints."""
    @property
    def collider_count(self) -> int:
        """Number of colliders."""
    def max_joint_separation(self) -> float:
        """The largest distance between a joint's two anchor points over all joints, m."""
    def set_softness(self, *, erp: Optional[float] = None, cfm: Optional[float] = None) -> None:
        """Sets the world's default joint and contact softness: ``erp`` in [0, 1], ``cfm``
        >= 0 (``None`` keeps the current value). Raises :class:`WorldError` for values
        out of range, leaving the settings unchanged."""
    def set_collider_enabled(self, collider: int, enabled: bool) -> None:
        """Turns collider ``collider`` (its index, in the order colliders were added or
        loaded) off or on: a disabled collider makes no contacts; its body keeps its
        mass. Raises :class:`WorldError` for an index out of range."""
    def masses(self) -> _FloatArray:
        """Each body's mass, (N,), kg."""
    def set_ccd(self, body: _BodyRef, on: bool) -> None:
        """Turn continuous collision of ``body`` on or off (docs/ccd.md): with it, a fast
        body (a bullet, a thrown tool) stops at a thin obstacle instead of passing through
        it in one step. Kept by snapshots, pickles and copies."""
    def ccd_enabled(self, body: _BodyRef) -> bool:
        """Whether continuous collision is on for ``body``."""
    def set_sensor(self, collider: int, on: bool) -> None:
        """Make collider ``collider`` a sensor (``on``) or a solid collider again, from the
        next step: its contacts then stop (or its overlaps end) in that step's events.
        Raises :class:`WorldError` for an unknown index."""
    def is_sensor(self, collider: int) -> bool:
        """Whether collider ``collider`` is a sensor."""

    # Scene queries (docs/queries.md). Every query answers for the current poses (it first
    # brings the broad phase's tree up to date, so it does not test every collider) and
    # takes the filter keyword arguments:
    #   exclude_body: a body (index or name) whose colliders are skipped;
    #   exclude_collider: a collider index that is skipped;
    #   groups: (memberships, filter): only colliders whose groups interact with these;
    #   exclude_sensors: skip sensor colliders (a lidar or a ground probe should);
    #   exclude_kinds: skip the colliders of these body kinds ("static": static bodies and
    #     world geometry, "kinematic", "dynamic");
    #   predicate: a callable taking a collider index, called under the GIL for each
    #     collider that passed the other tests; a false result skips the collider, an
    #     exception propagates out of the query.
    # Bad input (a wrong array shape, a NaN, a zero direction, a negative limit, an unknown
    # index, a predicate that is not callable) raises WorldError.
    def cast_ray(
        self,
        origin: _Vec3,
        direction: _Vec3,
        max_distance: float = ...,
        *,
        exclude_body: Optional[_BodyRef] = None,
        exclude_collider: Optional[int] = None,
        groups: Optional[_Groups] = None,
        exclude_sensors: bool = False,
        exclude_kinds: Optional[Sequence[Literal["static", "kinematic", "dynamic"]]] = None,
        predicate: Optional[_Predicate] = None,
    ) -> Optional[RayHit]:
        """The first collider the ray from ``origin`` along ``direction`` meets within
        ``max_distance`` m (default: no limit, ``inf``), or ``None``.

        ``direction`` need not be a unit vector (it is normalised): distances are in
        metres. Rays are solid: one starting inside a collider hits it at distance 0 with a
        zero normal. Of colliders hit at exactly the same distance, the lowest index wins."""
    def cast_ray_all(
        self,
        origin: _Vec3,
        direction: _Vec3,
        max_distance: float = ...,
        *,
        exclude_body: Optional[_BodyRef] = None,
        exclude_collider: Optional[int] = None,
        groups: Optional[_Groups] = None,
        exclude_sensors: bool = False,
        exclude_kinds: Optional[Sequence[Literal["static", "kinematic", "dynamic"]]] = None,
        predicate: Optional[_Predicate] = None,
    ) -> RayHits:
        """Every collider the ray meets within ``max_distance``, each once (where the ray
        first meets it), one row each, sorted by distance."""
    def cast_rays(
        self,
        origins: npt.ArrayLike,
        directions: npt.ArrayLike,
        max_distance: float = ...,
        *,
        exclude_body: Optional[_BodyRef] = None,
        exclude_collider: Optional[int] = None,
        groups: Optional[_Groups] = None,
        exclude_sensors: bool = False,
        exclude_kinds: Optional[Sequence[Literal["static", "kinematic", "dynamic"]]] = None,
        predicate: Optional[_Predicate] = None,
    ) -> RayHits:
        """:meth:`cast_ray` for every row of ``origins`` and ``directions`` in one call (a
        lidar's beams): both (N, 3), or either one (3,) shared by every ray. The answers,
        row ``i`` for ray ``i``, are exactly those of N :meth:`cast_ray` calls; rays that
        hit nothing have distance ``inf``, NaN points and normals and index -1.

        The GIL is released while the rays are cast, unless a ``predicate`` (Python, run
        under the GIL) is given."""
    def cast_shape(
        self,
        shape: _QueryShape,
        *,
        velocity: _Vec3,
        position: Optional[_Vec3] = None,
        orientation: Optional[_Quaternion] = None,
        max_time: float = ...,
        radius: Optional[float] = None,
        half_extents: Optional[_Vec3] = None,
        half_height: Optional[float] = None,
        points: Optional[npt.ArrayLike] = None,
        exclude_body: Optional[_BodyRef] = None,
        exclude_collider: Optional[int] = None,
        groups: Optional[_Groups] = None,
        exclude_sensors: bool = False,
        exclude_kinds: Optional[Sequence[Literal["static", "kinematic", "dynamic"]]] = None,
        predicate: Optional[_Predicate] = None,
    ) -> Optional[ShapeHit]:
        """The first collider a shape touches when it moves from ``position`` (default:
        the origin), turned by ``orientation`` (w, x, y, z), in a straight line by
        ``velocity`` per unit time without turning, up to ``max_time`` (default: no
        limit); or ``None``.

        The shape is sized as for :meth:`add_collider`: ``sphere`` (``radius``), ``box``
        (``half_extents``), ``capsule``/``cylinder``/``cone`` along local z (``radius``,
        ``half_height``), ``convex_hull`` (``points`` (N, 3)). The time of impact is
        parry's (analytic for two spheres, iterated to convergence otherwise); a shape
        already touching a collider hits it at time 0 (status ``"penetrating"``)."""
    def overlap_shape(
        self,
        shape: _QueryShape,
        *,
        position: Optional[_Vec3] = None,
        orientation: Optional[_Quaternion] = None,
        radius: Optional[float] = None,
        half_extents: Optional[_Vec3] = None,
        half_height: Optional[float] = None,
        points: Optional[npt.ArrayLike] = None,
        exclude_body: Optional[_BodyRef] = None,
        exclude_collider: Optional[int] = None,
        groups: Optional[_Groups] = None,
        exclude_sensors: bool = False,
        exclude_kinds: Optional[Sequence[Literal["static", "kinematic", "dynamic"]]] = None,
        predicate: Optional[_Predicate] = None,
    ) -> _IntArray:
        """The indices of every collider the shape (as for :meth:`cast_shape`) at
        ``position`` and ``orientation`` intersects or touches, sorted, int64."""
    def overlap_aabb(
        self,
        mins: _Vec3,
        maxs: _Vec3,
        *,
        exclude_body: Optional[_BodyRef] = None,
        exclude_collider: Optional[int] = None,
        groups: Optional[_Groups] = None,
        exclude_sensors: bool = False,
        exclude_kinds: Optional[Sequence[Literal["static", "kinematic", "dynamic"]]] = None,
        predicate: Optional[_Predicate] = None,
    ) -> _IntArray:
        """The indices of every collider whose world bounding box overlaps the box from
        ``mins`` to ``maxs`` (finite, ``mins <= maxs``), sorted, int64: a fast,
        conservative test (a sphere's box reaches beyond the sphere); a half-space is
        reported when the box reaches into it."""
    def project_point(
        self,
        point: _Vec3,
        solid: bool = True,
        *,
        exclude_body: Optional[_BodyRef] = None,
        exclude_collider: Optional[int] = None,
        groups: Optional[_Groups] = None,
        exclude_sensors: bool = False,
        exclude_kinds: Optional[Sequence[Literal["static", "kinematic", "dynamic"]]] = None,
        predicate: Optional[_Predicate] = None,
    ) -> Optional[PointProjection]:
        """The collider nearest ``point`` and the nearest point on it (``None`` if no
        collider passes the filter). With ``solid``, a point inside a collider is its own
        projection (distance 0); otherwise it projects on the nearest surface."""
    def colliders_containing_point(
        self,
        point: _Vec3,
        *,
        exclude_body: Optional[_BodyRef] = None,
        exclude_collider: Optional[int] = None,
        groups: Optional[_Groups] = None,
        exclude_sensors: bool = False,
        exclude_kinds: Optional[Sequence[Literal["static", "kinematic", "dynamic"]]] = None,
        predicate: Optional[_Predicate] = None,
    ) -> _IntArray:
        """The indices of every collider containing ``point`` (boundary included), sorted,
        int64."""

    # Sensors and contact events of the last committed step (docs/events.md).
    def sensor_events(self) -> SensorEvents:
        """The sensor overlaps that began (+1) or ended (-1) in the last step. Overlaps are
        found at the poses a step starts from (as contacts are); sensors see solid
        colliders of other bodies, not other sensors. A refused step leaves them as they
        were."""
    def sensor_overlaps(self, collider: int) -> _IntArray:
        """The indices of the colliders sensor ``collider`` overlaps as of the last step,
        sorted, int64 (empty for a collider that is not a sensor). Raises
        :class:`WorldError` for an unknown index."""
    def all_sensor_overlaps(self) -> _IntArray:
        """Every sensor overlap of the last step, (K, 2) int64 rows (sensor, collider),
        sorted."""
    def contact_events(self) -> ContactEvents:
        """The collider pairs that started (+1) or stopped (-1) touching in the last step. A
        pair touches when one of its contact points had a separation <= 0 at the start of
        the step or carried a force in it; a pair whose bodies all sleep keeps touching."""
    def contact_pairs(self) -> ContactPairs:
        """Every collider pair touching in the last step, with its normal, friction and
        net impulses (N s) and its number of contact points."""

    # Settings.
    @property
    def time(self) -> float:
        """Simulated time, s: the sum of the committed steps."""
    @property
    def step_count(self) -> int:
        """Committed steps (carried by snapshots)."""
    timestep: float
    """The step ``step()`` takes when given none, s (a scene's ``world.step``)."""
    gravity: Tuple[float, float, float]
    """Gravity, m/s^2, world frame (assign any 3 numbers)."""
    @property
    def solver(self) -> Literal["exact", "iterative"]:
        """The stepper."""
    def set_solver(
        self,
        solver: Literal["exact", "iterative"],
        *,
        iterations: int = 20,
        omega: float = 1.0,
        tolerance: float = 0.0,
    ) -> None:
        """Choose the stepper (see the constructor)."""
    @property
    def scene_name(self) -> Optional[str]:
        """The scene's name, for a world read from a scene."""
    @property
    def scene_steps(self) -> Optional[int]:
        """The steps the scene asks for (``steps``, or ``duration / world.step``)."""

    # Stepping and state.
    def step(self, h: Optional[float] = None, n: int = 1) -> StepStats:
        """Advance by ``n`` steps of ``h`` seconds (default ``timestep``), with the GIL
        released; return the last step's statistics.

        A refused step raises :class:`StepError` (the engine's message, bodies and joints by
        name) and changes nothing; with ``n > 1`` the steps before it are kept and
        ``error.completed_steps`` counts them."""
    @property
    def stats(self) -> StepStats:
        """Statistics of the last step (committed or refused)."""
    def positions(self) -> _FloatArray:
        """Centre-of-mass positions, (N, 3), m."""
    def orientations(self) -> _FloatArray:
        """Orientations as unit quaternions, (N, 4), in (w, x, y, z) order."""
    def linear_velocities(self) -> _FloatArray:
        """Centre-of-mass velocities, (N, 3), m/s, world frame."""
    def angular_velocities(self) -> _FloatArray:
        """Angular velocities, (N, 3), rad/s, world frame."""
    def set_state(
        self,
        positions: Optional[npt.ArrayLike] = None,
        orientations: Optional[npt.ArrayLike] = None,
        linear_velocities: Optional[npt.ArrayLike] = None,
        angular_velocities: Optional[npt.ArrayLike] = None,
    ) -> None:
        """Set any of the state arrays (shapes as the getters return them). Every value is
        checked first; on :class:`WorldError` nothing changed. Changed bodies are woken."""
    def apply_force(self, body: _BodyRef, force: _Vec3, point: Optional[_Vec3] = None) -> None:
        """Add a force (N, world frame) for the next step, at the world ``point`` or at the
        centre of mass."""
    def apply_torque(self, body: _BodyRef, torque: _Vec3) -> None:
        """Add a torque (N m, world frame) for the next step."""
    def contacts(self) -> Contacts:
        """The contact points of the last step, with their forces."""
    def joint_feedback(self, joint: Optional[_JointRef] = None) -> JointFeedback:
        """Joint constraint forces of the last step: (J, 3) arrays, or one joint's (3,)."""

    # The LCPs of the exact stepper.
    capture_problems: bool
    """Whether the exact stepper keeps a copy of each island's LCP."""
    def captured_problems(self) -> list[Problem]:
        """The boxed LCPs (``A lambda = b + w``, lambda in N) the exact stepper assembled in
        the last step, one per island: joint rows, then each contact's normal row and its
        two friction rows. Empty unless ``capture_problems`` is on."""
    def captured_islands(self) -> list[int]:
        """The island index of each captured problem."""

class BatchState(TypedDict):
    """The state of every world of a :class:`Batch`."""

    positions: _FloatArray
    orientations: _FloatArray
    linear_velocities: _FloatArray
    angular_velocities: _FloatArray
    time: _FloatArray
    failed: npt.NDArray[np.bool_]

@final
class Batch:
    """Many worlds stepped together on a thread pool, one call per step for the whole
    batch, the GIL released. Each world steps bit for bit as it would alone, whatever the
    thread count. Actions and states are ``(N, ...)`` arrays over each world's bodies and
    servo axes in index order."""

    def __init__(
        self,
        source: Union[World, Sequence[World], str, os.PathLike[str]],
        n: Optional[int] = None,
        *,
        threads: int = 0,
    ) -> None:
        """``n`` copies of a world or scene (as ``World.from_scene`` takes it), or the
        worlds of a list (copied). ``threads``: the pool's size (0: one per core)."""
    def __len__(self) -> int: ...
    @property
    def threads(self) -> int:
        """The number of threads the batch steps on."""
    @property
    def servo_axes(self) -> int:
        """The servo axes of the first world (the columns of ``servo_targets``)."""
    @property
    def timestep(self) -> float:
        """The step ``step()`` takes when given none (the first world's), s."""
    def step(
        self,
        forces: Optional[npt.ArrayLike] = None,
        torques: Optional[npt.ArrayLike] = None,
        servo_targets: Optional[npt.ArrayLike] = None,
        *,
        steps: int = 1,
        h: Optional[float] = None,
    ) -> BatchState:
        """Step every running world ``steps`` times after applying the actions: forces and
        torques (N, bodies, 3) before every step, servo targets (N, servo axes) once. A
        world whose action or step is refused is held and flagged in ``failed``; bad
        shapes raise ``WorldError`` and step nothing."""
    def state(self) -> BatchState:
        """Positions (N, bodies, 3), orientations (N, bodies, 4; w, x, y, z), velocities
        (N, bodies, 3), times (N,) and the held flags (N,)."""
    def errors(self) -> list[Tuple[int, str]]:
        """The held worlds and why."""
    def reset(self, indices: Optional[Sequence[int]] = None, world: Optional[World] = None) -> None:
        """Reset worlds (default: all) to how they started, or to ``world``."""
    def world(self, index: int) -> World:
        """A copy of world ``index``."""

def _lcp_solve(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    lo: Optional[npt.ArrayLike] = None,
    hi: Optional[npt.ArrayLike] = None,
    findex: Optional[Sequence[Optional[int]]] = None,
    nub: int = 0,
    solver: str = "dantzig",
    max_iterations: Optional[int] = None,
    tolerance: Optional[float] = None,
    omega: Optional[float] = None,
    fallback: bool = False,
) -> LcpResult: ...
def _lcp_lemke(m: npt.ArrayLike, q: npt.ArrayLike, max_pivots: Optional[int] = None) -> LcpResult: ...
def _problem_from_json(text: str) -> Problem: ...
def _world_from_pickle(
    data: bytes,
    body_names: list[Optional[str]],
    joint_names: list[Optional[str]],
    timestep: float,
    scene: Optional[Tuple[str, int]] = None,
) -> World: ...
