"""Scene queries, sensors, contact events and continuous collision from Python
(docs/python.md#scene-queries, docs/queries.md, docs/events.md, docs/ccd.md), against
analytic answers and brute force computed here from positions and radii."""

import math
import re
from pathlib import Path

import numpy as np
import pytest

import stiction
from conftest import G, loops_beside

DOCS = Path(__file__).resolve().parents[2] / "docs"


def sphere_world(centres, radii, static_bodies=()):
    """Spheres as static world geometry, except those listed in `static_bodies`, which sit
    on static bodies (so their hits name a body). Collider i is sphere i."""
    world = stiction.World()
    bodies = []
    for i, (c, r) in enumerate(zip(centres, radii)):
        if i in static_bodies:
            b = world.add_body("static", position=c)
            world.add_collider("sphere", b, radius=r)
            bodies.append(b)
        else:
            world.add_collider("sphere", radius=r, position=c)
            bodies.append(-1)
    return world, bodies


def ray_sphere(origin, direction, centre, radius):
    """The distance along a unit ray to a sphere (solid: 0 from inside), or inf."""
    oc = origin - centre
    b = direction @ oc
    c = oc @ oc - radius * radius
    if c <= 0.0:
        return 0.0
    disc = b * b - c
    if disc < 0.0 or b > 0.0:
        return math.inf
    return -b - math.sqrt(disc)


def separated_spheres(rng, n, box=4.0):
    """`n` random spheres that do not touch."""
    centres, radii = [], []
    while len(centres) < n:
        c = rng.uniform(-box, box, 3)
        r = rng.uniform(0.1, 0.5)
        if all(np.linalg.norm(c - d) > r + s + 0.05 for d, s in zip(centres, radii)):
            centres.append(c)
            radii.append(r)
    return np.array(centres), np.array(radii)


# ----- rays -----


def test_rays_at_spheres_hit_at_analytic_distances():
    rng = np.random.default_rng(7)
    centres, radii = separated_spheres(rng, 60)
    world, bodies = sphere_world(centres, radii, static_bodies=set(range(0, 60, 3)))
    hits = misses = 0
    for k in range(400):
        origin = rng.uniform(-6.0, 6.0, 3)
        # Aim near a random sphere (most rays hit something), or anywhere.
        target = centres[k % 60] + rng.normal(0.0, 0.3, 3) if k % 4 else rng.normal(0, 1, 3) * 10
        direction = target - origin
        unit = direction / np.linalg.norm(direction)
        distances = [ray_sphere(origin, unit, c, r) for c, r in zip(centres, radii)]
        best = int(np.argmin(distances))
        # The direction is scaled: distances are still metres.
        hit = world.cast_ray(origin, 3.7 * direction)
        if math.isinf(distances[best]):
            assert hit is None
            misses += 1
            continue
        hits += 1
        assert hit.collider == best and hit.body == bodies[best]
        assert abs(hit.distance - distances[best]) < 1e-9
        np.testing.assert_allclose(hit.point, origin + distances[best] * unit, atol=1e-9)
        if distances[best] > 0.0:
            normal = (hit.point - centres[best]) / radii[best]
            np.testing.assert_allclose(hit.normal, normal, atol=1e-9)
        # A limit just short of the hit finds nothing (nothing is nearer).
        if distances[best] > 1e-5:
            assert world.cast_ray(origin, unit, distances[best] - 1e-6) is None
    assert hits > 150 and misses > 20
    # Every sphere along one line: cast_ray_all lists them by distance.
    world, _ = sphere_world([(x, 0.0, 0.0) for x in (5.0, 2.0, 8.0)], [0.5, 0.25, 1.0])
    along = world.cast_ray_all((0, 0, 0), (1, 0, 0))
    assert list(along.colliders) == [1, 0, 2] and len(along) == 3
    np.testing.assert_allclose(along.distances, [1.75, 4.5, 7.0], atol=1e-12)
    np.testing.assert_allclose(along.normals, [[-1, 0, 0]] * 3, atol=1e-12)
    assert len(world.cast_ray_all((0, 0, 0), (1, 0, 0), 4.0)) == 1
    # Solid: from inside, distance 0 at the origin with a zero normal, for every shape.
    inside = world.cast_ray((8.0, 0.0, 0.2), (0, 0, 1))
    assert inside.collider == 2 and inside.distance == 0.0 and np.all(inside.normal == 0.0)
    np.testing.assert_array_equal(inside.point, (8.0, 0.0, 0.2))
    world.add_collider("box", half_extents=(1, 1, 1), position=(0, 5, 0))
    inside = world.cast_ray((0.2, 5.3, 0.1), (1, 0, 0))
    assert inside.collider == 3 and inside.distance == 0.0 and np.all(inside.normal == 0.0)


def lidar_fan(n_azimuth=32, n_elevation=32):
    """Unit beams pointing down at angles from 0 to 80 degrees off the vertical, all around."""
    azimuth = np.linspace(0.0, 2.0 * np.pi, n_azimuth, endpoint=False)
    off_vertical = np.linspace(0.0, np.radians(80.0), n_elevation)
    a, e = np.meshgrid(azimuth, off_vertical, indexing="ij")
    a, e = a.ravel(), e.ravel()
    directions = np.stack([np.sin(e) * np.cos(a), np.sin(e) * np.sin(a), -np.cos(e)], axis=1)
    return directions, e


def test_a_lidar_fan_over_a_plane_reads_h_over_cos():
    world = stiction.World()
    world.add_collider("halfspace")
    robot = world.add_body(mass=5.0, position=(0.3, -0.2, 1.5))
    world.add_collider("box", robot, half_extents=(0.2, 0.2, 0.2))
    directions, angle = lidar_fan()
    assert directions.shape == (1024, 3)
    origin = np.array([0.3, -0.2, 1.5])  # inside the robot's box: exclude it
    scan = world.cast_rays(origin, directions, 50.0, exclude_body=robot)
    assert len(scan) == 1024 and scan.hit.all() and scan.hit_count == 1024
    np.testing.assert_allclose(scan.distances, 1.5 / np.cos(angle), rtol=0, atol=1e-9)
    np.testing.assert_allclose(scan.points[:, 2], 0.0, atol=1e-9)
    np.testing.assert_allclose(scan.points, origin + scan.distances[:, None] * directions, atol=1e-9)
    np.testing.assert_allclose(scan.normals, np.tile([0.0, 0.0, 1.0], (1024, 1)), atol=1e-12)
    assert (scan.colliders == 0).all() and (scan.bodies == -1).all()
    assert scan.colliders.dtype == np.int64 and scan.bodies.dtype == np.int64
    # Without the exclusion every beam starts inside the robot's box.
    blind = world.cast_rays(origin, directions)
    assert (blind.colliders == 1).all() and (blind.distances == 0.0).all()
    assert (blind.bodies == robot).all()
    # Beyond the range, or upward: no hit, inf distance, NaN points, index -1.
    short = world.cast_rays(origin, directions, 2.0, exclude_body=robot)
    far = 1.5 / np.cos(angle) > 2.0
    assert far.sum() > 100
    assert np.isinf(short.distances[far]).all() and (short.colliders[far] == -1).all()
    assert np.isnan(short.points[far]).all() and np.isnan(short.normals[far]).all()
    np.testing.assert_array_equal(short.distances[~far], scan.distances[~far])
    up = world.cast_rays(origin, -directions, exclude_body=robot)
    assert not up.hit.any() and (up.bodies == -1).all()
    # One origin per beam (N, 3) is the same as a shared (3,) origin; so is a shared direction.
    each = world.cast_rays(np.tile(origin, (1024, 1)), directions, 50.0, exclude_body=robot)
    np.testing.assert_array_equal(each.distances, scan.distances)
    rain = world.cast_rays(np.c_[np.arange(5.0), np.zeros(5), np.full(5, 3.0)], (0, 0, -1))
    np.testing.assert_allclose(rain.distances, 3.0, atol=1e-12)


def random_pile(seed=3, n=150, steps=90):
    """Spheres of random radii dropped onto the ground and stepped into a pile. Collider 0
    is the ground; collider i + 1 is body i's sphere."""
    rng = np.random.default_rng(seed)
    world = stiction.World()
    world.add_collider("halfspace")
    radii = rng.uniform(0.06, 0.14, n)
    for i, r in enumerate(radii):
        x, y = (i % 6) * 0.3 - 0.75, ((i // 6) % 6) * 0.3 - 0.75
        x, y = x + rng.uniform(-0.04, 0.04), y + rng.uniform(-0.04, 0.04)  # let them tumble
        z = 0.2 + (i // 36) * 0.35 + rng.uniform(0, 0.05)
        b = world.add_body(mass=1.0, inertia=[0.4 * r * r] * 3, position=(x, y, z))
        world.add_collider("sphere", b, radius=r, friction=0.4)
    world.step(1 / 60, n=steps)
    return world, radii


def test_cast_rays_equals_single_casts_on_a_pile():
    world, _ = random_pile()
    rng = np.random.default_rng(11)
    origins = np.c_[rng.uniform(-1, 1, (1024, 2)), rng.uniform(1.5, 2.5, 1024)]
    directions = rng.normal(0.0, 1.0, (1024, 3)) + (0.0, 0.0, -2.0)
    batch = world.cast_rays(origins, directions, 10.0)
    assert batch.hit_count > 900
    for i in range(1024):
        hit = world.cast_ray(origins[i], directions[i], 10.0)
        if hit is None:
            assert not batch.hit[i] and batch.colliders[i] == -1 and math.isinf(batch.distances[i])
            continue
        assert batch.distances[i] == hit.distance
        assert batch.colliders[i] == hit.collider and batch.bodies[i] == hit.body
        np.testing.assert_array_equal(batch.points[i], hit.point)
        np.testing.assert_array_equal(batch.normals[i], hit.normal)
        # The body of collider c >= 1 is c - 1 (the ground, collider 0, has none).
        assert hit.body == (hit.collider - 1 if hit.collider else -1)
    # With a predicate (run under the GIL) the batch still equals the single casts.
    odd = lambda c: c % 2 == 1  # noqa: E731
    filtered = world.cast_rays(origins[:200], directions[:200], 10.0, predicate=odd)
    for i in range(200):
        hit = world.cast_ray(origins[i], directions[i], 10.0, predicate=odd)
        assert filtered.colliders[i] == (hit.collider if hit else -1)
        assert hit is None or (hit.collider % 2 == 1 and filtered.distances[i] == hit.distance)


def test_cast_rays_releases_the_gil():
    world, _ = random_pile(steps=10)
    rng = np.random.default_rng(2)
    n = 300_000
    origins = np.c_[rng.uniform(-1.0, 1.0, (n, 2)), np.full(n, 2.0)]
    count, hits = loops_beside(lambda: world.cast_rays(origins, (0.0, 0.0, -1.0)))
    # With the GIL held for the whole call this loop could not run while the rays are cast.
    assert count > 1000, count
    assert hits.hit.all() and len(hits) == n


# ----- shape casts -----


def test_a_sphere_cast_stops_at_the_analytic_time_of_impact():
    world = stiction.World()
    wall = world.add_collider("box", half_extents=(0.5, 2.0, 2.0), position=(5.5, 0, 1))
    ball = world.add_body("static", position=(0.0, 3.0, 1.0))
    target = world.add_collider("sphere", ball, radius=0.4)
    world.add_collider("halfspace")
    # Onto the wall's face at x = 5: the sphere's front reaches it after (5 - r - x0) / v.
    r, x0, v = 0.25, 0.5, 2.0
    hit = world.cast_shape("sphere", radius=r, position=(x0, 0, 1), velocity=(v, 0, 0))
    assert hit.collider == wall and hit.body == -1 and hit.status == "converged"
    assert abs(hit.time - (5.0 - r - x0) / v) < 1e-9
    np.testing.assert_allclose(hit.position, (5.0 - r, 0, 1), atol=1e-9)
    np.testing.assert_allclose(hit.normal_on_collider, (-1, 0, 0), atol=1e-9)
    np.testing.assert_allclose(hit.normal_on_shape, (1, 0, 0), atol=1e-9)
    np.testing.assert_allclose(hit.point_on_shape, (5.0, 0, 1), atol=1e-6)
    # Onto another sphere along a slanted line: |p + t v - c| = r1 + r2, solved exactly.
    p, vel, c = np.array([0.3, 0.2, 1.1]), np.array([-0.1, 1.0, -0.05]), np.array([0.0, 3.0, 1.0])
    d = p - c
    a, b, cc = vel @ vel, 2 * vel @ d, d @ d - (0.25 + 0.4) ** 2
    t = (-b - math.sqrt(b * b - 4 * a * cc)) / (2 * a)
    hit = world.cast_shape("ball", radius=0.25, position=p, velocity=vel, max_time=10.0)
    assert hit.collider == target and hit.body == ball
    assert abs(hit.time - t) < 1e-9
    assert world.cast_shape("ball", radius=0.25, position=p, velocity=vel, max_time=0.9 * t) is None
    # Axial shapes stand along z as in add_collider: a cylinder 1 m tall falling onto the
    # ground from 3 m lands after its half height (not its radius) reaches the ground.
    hit = world.cast_shape("cylinder", radius=0.1, half_height=0.5, position=(-3, 0, 3.0),
                           velocity=(0, 0, -1))
    assert hit.collider == 2 and abs(hit.time - 2.5) < 1e-9
    # Turned a quarter about x, it lies on its side: the radius reaches the ground first.
    q = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0, 0)
    hit = world.cast_shape("cylinder", radius=0.1, half_height=0.5, position=(-3, 0, 3.0),
                           orientation=q, velocity=(0, 0, -1))
    assert abs(hit.time - 2.9) < 1e-7
    # Already touching: time 0.
    hit = world.cast_shape("box", half_extents=(0.1, 0.1, 0.1), position=(5.0, 0, 1),
                           velocity=(1, 0, 0))
    assert hit.time == 0.0 and hit.status == "penetrating"


# ----- overlaps against brute force -----


def test_overlap_queries_on_a_pile_match_brute_force():
    world, radii = random_pile()
    centres = world.positions()  # each sphere is centred on its body
    n = len(radii)
    rng = np.random.default_rng(5)

    def brute_spheres(q, rq):
        inside = np.linalg.norm(centres - q, axis=1) <= radii + rq
        found = list(np.flatnonzero(inside) + 1)
        return ([0] if q[2] - rq <= 0.0 else []) + found

    def brute_box(lo, hi):
        overlap = np.all(centres - radii[:, None] <= hi, axis=1) & np.all(
            centres + radii[:, None] >= lo, axis=1)
        return ([0] if lo[2] <= 0.0 else []) + list(np.flatnonzero(overlap) + 1)

    checked = 0
    for _ in range(300):
        q = np.r_[rng.uniform(-1.0, 1.0, 2), rng.uniform(-0.1, 0.8)]
        rq = rng.uniform(0.01, 0.3)
        found = world.overlap_shape("sphere", radius=rq, position=q)
        assert found.dtype == np.int64
        assert list(found) == brute_spheres(q, rq)
        lo = q - rng.uniform(0.0, 0.3, 3)
        hi = q + rng.uniform(0.0, 0.3, 3)
        assert list(world.overlap_aabb(lo, hi)) == brute_box(lo, hi)
        # Containment and projection (solid): inside some sphere, or the nearest surface.
        contained = list(world.colliders_containing_point(q))
        assert contained == brute_spheres(q, 0.0)
        gaps = np.r_[q[2], np.linalg.norm(centres - q, axis=1) - radii]
        nearest = int(np.argmin(gaps))
        projection = world.project_point(q)
        if contained:
            # Its own projection (to the round-off of the collider's frame and back).
            assert projection.distance < 1e-12 and projection.is_inside
            np.testing.assert_allclose(projection.point, q, atol=1e-12)
            assert projection.collider in contained
        else:
            assert projection.collider == nearest and not projection.is_inside
            assert abs(projection.distance - gaps[nearest]) < 1e-9
            assert projection.body == nearest - 1
        # Surface projection: the distance to the nearest surface, from inside too.
        surface = world.project_point(q, solid=False)
        assert abs(surface.distance - np.min(np.abs(gaps))) < 1e-9
        checked += len(found)
    assert checked > 100  # the queries found plenty
    assert n == world.body_count


# ----- filters -----


def filter_world():
    """Three spheres along +x: collider 0 on a dynamic body at x = 1, collider 1 a sensor
    at x = 2 (world), collider 2 at x = 3 (world), each of radius 0.2, in groups 1, 2, 4."""
    world = stiction.World(gravity=(0, 0, 0))
    a = world.add_body(mass=1.0, position=(1, 0, 0), name="a")
    world.add_collider("sphere", a, radius=0.2, groups=(0b001, 0xFFFFFFFF))
    world.add_collider("sphere", radius=0.2, position=(2, 0, 0), sensor=True,
                       groups=(0b010, 0xFFFFFFFF))
    world.add_collider("sphere", radius=0.2, position=(3, 0, 0), groups=(0b100, 0xFFFFFFFF))
    return world, a


def test_predicate_and_exclude_filters():
    world, a = filter_world()
    assert world.is_sensor(1) and not world.is_sensor(0)

    def first(**kw):
        hit = world.cast_ray((0, 0, 0), (1, 0, 0), **kw)
        return None if hit is None else (hit.collider, round(hit.distance, 12))

    assert first() == (0, 0.8)
    assert first(exclude_body=a) == (1, 1.8)
    assert first(exclude_body="a") == (1, 1.8)
    assert first(exclude_body=a, exclude_sensors=True) == (2, 2.8)
    assert first(exclude_collider=0) == (1, 1.8)
    assert first(groups=(0xFFFFFFFF, 0b100)) == (2, 2.8)
    assert first(groups=(0xFFFFFFFF, 0b011)) == (0, 0.8)
    assert first(groups=(0, 0xFFFFFFFF)) is None
    seen = []

    def only_last(c):
        seen.append(c)
        return c == 2

    assert first(predicate=only_last) == (2, 2.8)
    assert seen and all(type(c) is int for c in seen) and set(seen) <= {0, 1, 2}
    seen.clear()
    # The predicate is asked only about colliders that passed the other tests.
    assert first(predicate=only_last, exclude_body=a, exclude_sensors=True) == (2, 2.8)
    assert seen == [2]
    # Any truthy value keeps a collider.
    assert first(predicate=lambda c: c) == (1, 1.8)
    # The filters apply to every query.
    everything = dict(position=(2, 0, 0), half_extents=(1.5, 0.5, 0.5))
    assert list(world.overlap_shape("box", **everything)) == [0, 1, 2]
    assert list(world.overlap_shape("box", **everything, exclude_sensors=True)) == [0, 2]
    assert list(world.overlap_shape("box", **everything, predicate=lambda c: c != 2)) == [0, 1]
    assert list(world.overlap_aabb((0, -1, -1), (4, 1, 1), exclude_body=a)) == [1, 2]
    assert list(world.overlap_aabb((0, -1, -1), (4, 1, 1), groups=(1, 0b110))) == [1, 2]
    assert world.project_point((2.1, 0, 0), exclude_collider=1).collider == 2
    assert list(world.colliders_containing_point((2, 0, 0.1))) == [1]
    assert len(world.colliders_containing_point((2, 0, 0.1), exclude_sensors=True)) == 0
    world_is_sensor = [False, True, False]
    hit = world.cast_shape("sphere", radius=0.1, velocity=(1, 0, 0), exclude_body=a,
                           predicate=lambda c: not world_is_sensor[c])
    assert hit.collider == 2 and abs(hit.time - 2.7) < 1e-9
    all_hits = world.cast_ray_all((0, 0, 0), (1, 0, 0), predicate=lambda c: c != 1)
    assert list(all_hits.colliders) == [0, 2]
    # By body kind: collider 0 is on a dynamic body, 1 and 2 are world geometry (static).
    assert first(exclude_kinds=["dynamic"]) == (1, 1.8)
    assert first(exclude_kinds=("static",)) == (0, 0.8)
    assert first(exclude_kinds=["static", "dynamic"]) is None
    assert first(exclude_kinds=["kinematic"]) == (0, 0.8)
    assert list(world.overlap_aabb((0, -1, -1), (4, 1, 1), exclude_kinds=["static"])) == [0]
    hits = world.cast_rays([(0, 0, 0), (0, 0, 0)], (1, 0, 0), exclude_kinds=["dynamic"])
    assert list(hits.colliders) == [1, 1]
    with pytest.raises(stiction.WorldError, match='exclude_kinds holds "fixed"'):
        first(exclude_kinds=["fixed"])


def test_errors_in_a_predicate_propagate():
    world, _ = filter_world()

    def broken(c):
        raise ZeroDivisionError(f"no {c}")

    calls = [
        lambda p: world.cast_ray((0, 0, 0), (1, 0, 0), predicate=p),
        lambda p: world.cast_ray_all((0, 0, 0), (1, 0, 0), predicate=p),
        lambda p: world.cast_rays(np.zeros((4, 3)), (1, 0, 0), predicate=p),
        lambda p: world.cast_shape("sphere", radius=0.1, velocity=(1, 0, 0), predicate=p),
        lambda p: world.overlap_shape("sphere", radius=5.0, predicate=p),
        lambda p: world.overlap_aabb((-5, -5, -5), (5, 5, 5), predicate=p),
        lambda p: world.project_point((0, 0, 0), predicate=p),
        lambda p: world.colliders_containing_point((1, 0, 0), predicate=p),
    ]
    for call in calls:
        with pytest.raises(ZeroDivisionError, match=r"no \d"):
            call(broken)
        # A result whose truth cannot be read is an error too.
        with pytest.raises(ValueError, match="ambiguous"):
            call(lambda c: np.array([True, False]))
        with pytest.raises(stiction.WorldError, match="predicate must be callable"):
            call(42)
    # A predicate that touches the world while a query holds it is refused, not a crash.
    with pytest.raises(RuntimeError, match="orrowed"):
        world.cast_ray((0, 0, 0), (1, 0, 0), predicate=lambda c: world.step())
    # And the world still answers.
    assert world.cast_ray((0, 0, 0), (1, 0, 0)).collider == 0


def test_bad_query_input_raises_world_errors():
    world, a = filter_world()
    W = stiction.WorldError
    bad = [
        (lambda: world.cast_ray((0, 0), (1, 0, 0)), "origin must have 3 components"),
        (lambda: world.cast_ray((np.nan, 0, 0), (1, 0, 0)), "origin must be finite"),
        (lambda: world.cast_ray((0, 0, 0), (0, 0, 0)), "direction must be a non-zero"),
        (lambda: world.cast_ray((0, 0, 0), (np.inf, 0, 0)), "direction must be finite"),
        (lambda: world.cast_ray((0, 0, 0), (1, 0, 0), -1.0), "max_distance must be >= 0"),
        (lambda: world.cast_ray((0, 0, 0), (1, 0, 0), np.nan), "max_distance must be >= 0"),
        (lambda: world.cast_ray((0, 0, 0), (1, 0, 0), exclude_body=7), "no body 7"),
        (lambda: world.cast_ray((0, 0, 0), (1, 0, 0), exclude_body="b"), "no body named `b`"),
        (lambda: world.cast_ray((0, 0, 0), (1, 0, 0), exclude_collider=3), "no collider 3"),
        (lambda: world.cast_ray((0, 0, 0), (1, 0, 0), exclude_collider=-1), "no collider -1"),
        (lambda: world.cast_ray((0, 0, 0), (1, 0, 0), groups=(-1, 1)), "memberships must be a 32-bit"),
        (lambda: world.cast_ray((0, 0, 0), (1, 0, 0), groups=(1, 2**32)), "filter must be a 32-bit"),
        (lambda: world.cast_rays(np.zeros((4, 2)), np.ones((4, 3))), r"origins must have shape \(N, 3\) or \(3,\), got \(4, 2\)"),
        (lambda: world.cast_rays(np.zeros((4, 3)), np.ones((5, 3))), "same number of rows"),
        (lambda: world.cast_rays(np.zeros((2, 2, 3)), np.ones(3)), r"got \(2, 2, 3\)"),
        (lambda: world.cast_rays([[0, 0, 0], [np.nan, 0, 0]], (1, 0, 0)), r"origins\[1\] must be finite"),
        (lambda: world.cast_rays(np.zeros(3), [[1, 0, 0], [0, 0, 0]]), r"directions\[1\] must be a non-zero"),
        (lambda: world.cast_rays(np.zeros(3), np.ones(3), -2.0), "max_distance"),
        (lambda: world.cast_shape("sphere", radius=0.1, velocity=(np.nan, 0, 0)), "velocity must be finite"),
        (lambda: world.cast_shape("sphere", radius=-0.1, velocity=(1, 0, 0)), "radius"),
        (lambda: world.cast_shape("sphere", velocity=(1, 0, 0)), "a sphere needs radius="),
        (lambda: world.cast_shape("box", radius=1.0, velocity=(1, 0, 0)), "a box takes half_extents=, not radius="),
        (lambda: world.cast_shape("halfspace", velocity=(1, 0, 0)), "unknown query shape"),
        (lambda: world.cast_shape("sphere", radius=0.1, velocity=(1, 0, 0), max_time=-1.0), "max_time"),
        (lambda: world.cast_shape("sphere", radius=0.1, velocity=(1, 0, 0), orientation=(0, 0, 0, 0)), "orientation must be a finite, non-zero"),
        (lambda: world.overlap_shape("sphere", radius=0.1, position=(0, np.nan, 0)), "position must be finite"),
        (lambda: world.overlap_shape("convex_hull", points=np.zeros((4, 2))), r"points must have shape \(N, 3\)"),
        (lambda: world.overlap_shape("convex_hull", points=np.zeros((4, 3))), "span no volume"),
        (lambda: world.overlap_aabb((1, 0, 0), (0, 1, 1)), "mins must be <= maxs"),
        (lambda: world.overlap_aabb((0, 0, -np.inf), (1, 1, 1)), "mins must be finite"),
        (lambda: world.project_point((0, 0, np.nan)), "point must be finite"),
        (lambda: world.colliders_containing_point((np.inf, 0, 0)), "point must be finite"),
        (lambda: world.sensor_overlaps(3), "no collider 3"),
        (lambda: world.set_sensor(9, True), "no collider 9"),
        (lambda: world.set_ccd(5, True), "no body 5"),
        (lambda: world.add_collider("sphere", radius=0.1, groups=(1, -3)), "32-bit"),
    ]
    for call, message in bad:
        with pytest.raises(W, match=message):
            call()
    with pytest.raises(TypeError):
        world.cast_ray("here", (1, 0, 0))
    with pytest.raises(TypeError):
        world.cast_ray((0, 0, 0), (1, 0, 0), groups=3)
    assert world.collider_count == 3  # the refused collider was not added
    assert world.cast_ray((0, 0, 0), (1, 0, 0)).collider == 0


# ----- sensors and events -----


def first_step_beyond(d, h):
    """The first step k (1-based) whose start pose has fallen more than d from rest (the
    engine's semi-implicit Euler: k - 1 steps fall g h^2 (k - 1) k / 2)."""
    k = 1
    while G * h * h * (k - 1) * k / 2.0 <= d:
        k += 1
    return k


def test_a_ball_through_a_sensor_box_gives_one_begin_and_one_end_and_falls_freely():
    h, radius, z0, half = 1 / 120, 0.1, 2.0, 0.25

    def build(with_sensor):
        world = stiction.World()
        if with_sensor:
            world.add_collider("box", half_extents=(1.0, 1.0, half), sensor=True)
        ball = world.add_body(mass=1.0, inertia=[0.4 * radius**2] * 3, position=(0, 0, z0))
        world.add_collider("sphere", ball, radius=radius)
        return world, ball

    world, ball = build(True)
    free, free_ball = build(False)
    assert world.is_sensor(0) and not world.is_sensor(1)
    events = []
    for step in range(1, 151):
        world.step(h)
        free.step(h)
        # The sensor changes nothing: bit for bit the same fall.
        np.testing.assert_array_equal(world.positions()[ball], free.positions()[free_ball])
        np.testing.assert_array_equal(world.linear_velocities(), free.linear_velocities())
        e = world.sensor_events()
        for i in range(len(e)):
            events.append((step, int(e.kinds[i]), int(e.sensors[i]), int(e.colliders[i]),
                           tuple(e.bodies[i])))
        assert len(world.contacts()) == 0 and len(world.contact_pairs()) == 0
        assert len(world.contact_events()) == 0
        inside = len(events) == 1
        assert list(world.sensor_overlaps(0)) == ([1] if inside else [])
        assert world.all_sensor_overlaps().tolist() == ([[0, 1]] if inside else [])
        assert world.sensor_overlaps(1).size == 0  # not a sensor
    assert [e[1:] for e in events] == [(1, 0, 1, (-1, ball)), (-1, 0, 1, (-1, ball))]
    (enter, *_), (leave, *_) = events
    # Entering when the ball's bottom reaches the top face (fallen 1.65 m), leaving when
    # its top passes the bottom face (2.35 m): at the free-fall times, to one step.
    for step, d in [(enter, z0 - half - radius), (leave, z0 + half + radius)]:
        assert step == first_step_beyond(d, h)
        assert abs((step - 1) * h - math.sqrt(2 * d / G)) <= h
    assert world.sensor_events().count == 0


def test_a_landing_box_starts_touching_once_and_rests_on_m_g_h():
    h, half, d, mass = 1 / 500, 0.1, 0.5, 2.0
    world = stiction.World()
    world.add_collider("halfspace")
    box = world.add_body(mass=mass, inertia=[mass * (2 * half) ** 2 / 6] * 3,
                         position=(0, 0, half + d))
    world.add_collider("box", box, half_extents=(half, half, half))
    events, rest = [], []
    for step in range(1, 1001):
        world.step(h)
        e = world.contact_events()
        for i in range(len(e)):
            events.append((step, int(e.kinds[i]), e.colliders[i].tolist(), e.bodies[i].tolist()))
        pairs = world.contact_pairs()
        assert len(pairs) == (1 if events else 0)
        if step > 800:
            assert pairs.colliders.tolist() == [[0, 1]] and pairs.bodies.tolist() == [[-1, box]]
            assert pairs.point_counts.tolist() == [4] and not pairs.asleep[0]
            assert pairs.friction_impulses[0] < 1e-9 * pairs.normal_impulses[0]
            rest.append((pairs.normal_impulses[0], pairs.impulses[0].copy()))
    assert len(events) == 1
    landed, kind, colliders, bodies = events[0]
    assert (kind, colliders, bodies) == (1, [0, 1], [-1, box])
    # The step whose free fall would pass the ground, to one step of sqrt(2 d / g).
    assert landed == first_step_beyond(d, h) - 1
    assert abs(landed * h - math.sqrt(2 * d / G)) <= h
    # At rest the ground carries the weight: m g h of normal impulse per step.
    for normal, impulse in rest:
        assert abs(normal - mass * G * h) < 1e-9 * mass * G * h
        np.testing.assert_allclose(impulse, (0, 0, mass * G * h), rtol=0, atol=1e-9 * mass * G * h)
    # Thrown up, it stops touching (once).
    world.set_state(linear_velocities=[[0, 0, 2.0]])
    world.step(h, n=2)
    e = world.contact_events()
    assert e.kinds.tolist() == [-1] and e.colliders.tolist() == [[0, 1]]
    assert len(world.contact_pairs()) == 0


# ----- continuous collision -----


def shoot(ccd, speed=300.0, switch_on_later=False):
    """A 5 cm ball shot along +x at a static 1 cm wall whose front face is at x = 2; returns
    the largest x its front reached over 2 s (inf once it is behind the wall)."""
    world = stiction.World(gravity=(0, 0, 0))
    wall = world.add_body("static", position=(2.005, 0, 0))
    world.add_collider("box", wall, half_extents=(0.005, 2.0, 2.0))
    ball = world.add_body(mass=0.1, inertia=[2.5e-5] * 3, velocity=(speed, 0, 0),
                          ccd=ccd and not switch_on_later)
    world.add_collider("sphere", ball, radius=0.025)
    if switch_on_later:
        world.set_ccd(ball, ccd)
    assert world.ccd_enabled(ball) == ccd
    front = -math.inf
    for _ in range(120):
        world.step(1 / 60)
        x = world.positions()[ball, 0]
        if x > 2.01:
            return math.inf
        front = max(front, x + 0.025)
    return front


def test_a_ccd_ball_at_300_m_s_stops_at_a_1_cm_wall_and_passes_without():
    assert shoot(ccd=True) <= 2.0 + 1e-3
    assert shoot(ccd=True, switch_on_later=True) <= 2.0 + 1e-3
    assert math.isinf(shoot(ccd=False))


def test_ccd_and_sensors_survive_pickling_and_copies():
    import copy
    import pickle

    world = stiction.World()
    ball = world.add_body(mass=1.0, ccd=True)
    world.add_collider("sphere", ball, radius=0.1)
    world.add_collider("box", half_extents=(1, 1, 1), sensor=True)
    world.step()
    for other in (pickle.loads(pickle.dumps(world)), copy.deepcopy(world),
                  stiction.World.from_snapshot(world.snapshot())):
        assert other.ccd_enabled(ball) and other.is_sensor(1) and not other.is_sensor(0)
        assert list(other.sensor_overlaps(1)) == list(world.sensor_overlaps(1)) == [0]
        other.step()
        world_copy_events = other.sensor_events()
        assert len(world_copy_events) == 0


# ----- the documentation's example -----


def test_docs_examples_run_as_written(capsys):
    text = (DOCS / "python.md").read_text()
    block = re.search(r"### A lidar\n\n```python\n(.*?)```", text, re.S).group(1)
    exec(compile(block, "docs/python.md", "exec"), {})
    printed = capsys.readouterr().out.split()
    assert printed[:3] == ["1024", "520", "12"] and abs(float(printed[3]) - 3.9006) < 1e-4
    block = re.search(r"## Sensors and contact events\n.*?```python\n(.*?)```", text, re.S).group(1)
    scope = {"stiction": stiction}
    exec(compile(block, "docs/python.md", "exec"), scope)
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["44 entered 1 2", "63 left 1 2", "74 touched 0 2"]
    pairs = scope["pairs"]
    assert pairs.colliders.tolist() == [[0, 2]]
    assert abs(pairs.normal_impulses[0] - G / 120) < 1e-9 * G / 120
