//! Scene queries (docs/queries.md) for `stiction.World`: rays (one, all hits along one, or a
//! batch as numpy arrays), shape casts, overlaps of a shape or a box, point projection and
//! containment, with the engine's `QueryFilter` as keyword arguments.
//!
//! The `World` methods (in `world.rs`, whose `#[pymethods]` block holds every method) are
//! thin wrappers of the functions here. Each query first brings the broad phase's tree up
//! to date (`World::refresh_queries`, only when it is stale), so it descends the tree
//! instead of testing every collider; the answers are the same either way.
//!
//! Every input is checked here before the engine sees it, and refused with
//! `stiction.WorldError` naming the argument: the engine itself answers "no hit" to a
//! non-finite ray, which in Python would hide a bug. Ray directions are normalised, so
//! distances are in metres whatever the length of the direction given.

use std::cell::RefCell;
use std::f64::consts::FRAC_PI_2;

use numpy::{AllowTypeChange, PyArray1, PyArray2, PyArrayLikeDyn, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use stiction::math::{Quat, Vec3};
use stiction::parry::query::ShapeCastStatus;
use stiction::parry::shape::SharedShape;
use stiction::{
    BodyHandle, Collider, ColliderBuilder, ColliderHandle, CollisionGroups, PointProjection, Pose,
    QueryFilter, Ray, RayHit, ShapeHit, World,
};

use crate::convert::{array1, array2, matrix_data, quat, shape_text, vec3};
use crate::errors::{world_error, WorldError as PyWorldError};
use crate::names::Registry;
use crate::world::PyWorld;

/// Shape errors and refused input of queries are `stiction.WorldError`s.
fn werr(message: String) -> PyErr {
    PyWorldError::new_err(message)
}

/// `(x, y, z)` for a message.
fn text(v: Vec3) -> String {
    format!("({}, {}, {})", v.x, v.y, v.z)
}

/// A point argument: three finite numbers.
pub fn finite_point(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec3> {
    let p = vec3(obj, what, werr)?;
    if p.is_finite() {
        Ok(p)
    } else {
        Err(werr(format!("{what} must be finite, got {}", text(p))))
    }
}

/// A direction: finite and non-zero, normalised (so times of impact are metres).
fn unit_direction(d: Vec3, what: &str) -> PyResult<Vec3> {
    if !d.is_finite() {
        return Err(werr(format!("{what} must be finite, got {}", text(d))));
    }
    let length = d.length();
    if length == 0.0 || !length.is_finite() {
        return Err(werr(format!(
            "{what} must be a non-zero vector, got {}",
            text(d)
        )));
    }
    Ok(d / length)
}

/// A limit on distance or time: `>= 0` (`inf`: none); NaN and negatives refused.
fn check_limit(value: f64, what: &str) -> PyResult<f64> {
    if value >= 0.0 {
        Ok(value)
    } else {
        Err(werr(format!(
            "{what} must be >= 0 (inf: no limit), got {value}"
        )))
    }
}

/// The filter keyword arguments every query takes, as Python gave them.
pub struct FilterArgs<'a, 'py> {
    /// A body (index or name) whose colliders are skipped.
    pub exclude_body: Option<&'a Bound<'py, PyAny>>,
    /// A collider index that is skipped.
    pub exclude_collider: Option<i64>,
    /// `(memberships, filter)`: the query's collision groups.
    pub groups: Option<&'a Bound<'py, PyAny>>,
    /// Skip sensor colliders.
    pub exclude_sensors: bool,
    /// Body kinds whose colliders are skipped: "static" (world geometry too), "kinematic",
    /// "dynamic".
    pub exclude_kinds: Option<Vec<String>>,
    /// A Python callable taking a collider index, false to skip it.
    pub predicate: Option<&'a Bound<'py, PyAny>>,
}

/// The filter's tests that do not call Python (so a query using only them may release the
/// GIL).
#[derive(Debug, Clone, Copy, Default)]
struct Plain {
    groups: Option<CollisionGroups>,
    exclude_collider: Option<ColliderHandle>,
    exclude_body: Option<BodyHandle>,
    exclude_sensors: bool,
    /// Skip static (and world), kinematic, dynamic colliders.
    exclude_kinds: [bool; 3],
}

impl Plain {
    /// The engine's filter of these tests.
    fn filter(self) -> QueryFilter<'static> {
        let mut filter = QueryFilter::new();
        filter.groups = self.groups;
        filter.exclude_collider = self.exclude_collider;
        filter.exclude_body = self.exclude_body;
        filter.exclude_sensors = self.exclude_sensors;
        [
            filter.exclude_static,
            filter.exclude_kinematic,
            filter.exclude_dynamic,
        ] = self.exclude_kinds;
        filter
    }
}

/// A checked filter.
struct Filter<'py> {
    plain: Plain,
    predicate: Option<Bound<'py, PyAny>>,
}

impl<'py> Filter<'py> {
    /// Runs `query` with the engine's filter; with a predicate, calls it (under the GIL)
    /// for each candidate collider that passed the other tests, and raises the first
    /// exception it raised (after which it is not called again, and rejects everything).
    fn run<R>(
        &self,
        world: &World,
        colliders: &Registry<ColliderHandle>,
        query: impl FnOnce(&World, &QueryFilter<'_>) -> R,
    ) -> PyResult<R> {
        let Some(predicate) = &self.predicate else {
            return Ok(query(world, &self.plain.filter()));
        };
        let failure: RefCell<Option<PyErr>> = RefCell::new(None);
        let answer = {
            let call = |handle: ColliderHandle, _: &Collider| -> bool {
                if failure.borrow().is_some() {
                    return false;
                }
                let index = colliders.index_of(handle).map_or(-1, |i| i as i64);
                match predicate.call1((index,)).and_then(|r| r.is_truthy()) {
                    Ok(keep) => keep,
                    Err(e) => {
                        *failure.borrow_mut() = Some(e);
                        false
                    }
                }
            };
            let filter = self.plain.filter().predicate(&call);
            query(world, &filter)
        };
        match failure.into_inner() {
            Some(e) => Err(e),
            None => Ok(answer),
        }
    }
}

/// A shape to cast or test for overlap: `shape` and its sizes as `add_collider` takes them
/// (axial shapes along local z).
pub struct ShapeArgs<'a, 'py> {
    pub radius: Option<f64>,
    pub half_extents: Option<&'a Bound<'py, PyAny>>,
    pub half_height: Option<f64>,
    pub points: Option<PyArrayLikeDyn<'py, f64, AllowTypeChange>>,
}

/// The parry shape of a query and the rotation from its frame (z-up, as `add_collider`'s)
/// to parry's (a parry cylinder or cone stands along y).
fn query_shape(shape: &str, args: &ShapeArgs<'_, '_>) -> PyResult<(SharedShape, Quat)> {
    let given = [
        ("radius", args.radius.is_some()),
        ("half_extents", args.half_extents.is_some()),
        ("half_height", args.half_height.is_some()),
        ("points", args.points.is_some()),
    ];
    let takes: &[&str] = match shape {
        "sphere" | "ball" => &["radius"],
        "box" | "cuboid" => &["half_extents"],
        "capsule" | "cylinder" | "cone" => &["radius", "half_height"],
        "convex_hull" => &["points"],
        other => {
            return Err(werr(format!(
                "unknown query shape {other:?}: expected sphere, box, capsule, cylinder, cone \
                 or convex_hull"
            )))
        }
    };
    for (arg, is_given) in given {
        if is_given && !takes.contains(&arg) {
            return Err(werr(format!(
                "a {shape} takes {}, not {arg}=",
                takes
                    .iter()
                    .map(|t| format!("{t}="))
                    .collect::<Vec<_>>()
                    .join(" and ")
            )));
        }
    }
    for arg in takes {
        if !given.iter().any(|(g, is)| g == arg && *is) {
            return Err(werr(format!("a {shape} needs {arg}=")));
        }
    }
    let r = args.radius.unwrap_or(0.0);
    let hh = args.half_height.unwrap_or(0.0);
    let z_up = Quat::from_rotation_x(FRAC_PI_2);
    // The collider builders check the sizes with the engine's messages.
    Ok(match shape {
        "sphere" | "ball" => {
            ColliderBuilder::ball(r).map_err(world_error)?;
            (SharedShape::ball(r), Quat::IDENTITY)
        }
        "box" | "cuboid" => {
            let half = match args.half_extents {
                Some(h) => vec3(h, "half_extents", werr)?,
                None => Vec3::ZERO,
            };
            ColliderBuilder::cuboid(half).map_err(world_error)?;
            (SharedShape::cuboid(half.x, half.y, half.z), Quat::IDENTITY)
        }
        "capsule" => {
            ColliderBuilder::capsule(hh, r).map_err(world_error)?;
            (SharedShape::capsule_z(hh, r), Quat::IDENTITY)
        }
        "cylinder" => {
            ColliderBuilder::cylinder(hh, r).map_err(world_error)?;
            (SharedShape::cylinder(hh, r), z_up)
        }
        "cone" => {
            ColliderBuilder::cone(hh, r).map_err(world_error)?;
            (SharedShape::cone(hh, r), z_up)
        }
        _ => {
            // convex_hull
            let Some(array) = args.points.as_ref() else {
                return Err(werr(format!("a {shape} needs points=")));
            };
            let (_, data) = matrix_data(array, "points", &[None, Some(3)], werr)?;
            let points: Vec<Vec3> = data
                .chunks_exact(3)
                .map(|c| Vec3::new(c[0], c[1], c[2]))
                .collect();
            if !points.iter().all(|p| p.is_finite()) {
                return Err(werr("convex hull points must be finite".into()));
            }
            let hull = SharedShape::convex_hull(&points).ok_or_else(|| {
                werr("the points span no volume, so they have no convex hull".into())
            })?;
            (hull, Quat::IDENTITY)
        }
    })
}

/// The world pose of a query shape placed at `position` (default: the origin) turned by
/// `orientation` (w, x, y, z; default: none), in parry's frame of the shape.
fn query_pose(
    position: Option<&Bound<'_, PyAny>>,
    orientation: Option<&Bound<'_, PyAny>>,
    frame: Quat,
) -> PyResult<Pose> {
    let position = match position.filter(|p| !p.is_none()) {
        Some(p) => finite_point(p, "position")?,
        None => Vec3::ZERO,
    };
    let orientation = match orientation.filter(|q| !q.is_none()) {
        Some(q) => {
            let q = quat(q, "orientation", werr)?;
            if !(q.is_finite() && q.length() > 0.0) {
                return Err(werr(format!(
                    "orientation must be a finite, non-zero quaternion (w, x, y, z), got ({}, {}, {}, {})",
                    q.w, q.x, q.y, q.z
                )));
            }
            q.normalize()
        }
        None => Quat::IDENTITY,
    };
    Ok(Pose {
        position,
        orientation: orientation * frame,
    })
}

/// Rows of an `(N, 3)` or `(3,)` array argument (a `(3,)` array is one row, `broadcast`).
struct Rows {
    rows: Vec<Vec3>,
    broadcast: bool,
}

fn rows3(array: &PyArrayLikeDyn<'_, f64, AllowTypeChange>, what: &str) -> PyResult<Rows> {
    let shape = array.shape().to_vec();
    let broadcast = match shape[..] {
        [3] => true,
        [_, 3] => false,
        _ => {
            return Err(werr(format!(
                "{what} must have shape (N, 3) or (3,), got {}",
                shape_text(&shape)
            )))
        }
    };
    let data: Vec<f64> = array.as_array().iter().copied().collect();
    let rows = data
        .chunks_exact(3)
        .map(|c| Vec3::new(c[0], c[1], c[2]))
        .collect();
    Ok(Rows { rows, broadcast })
}

/// One ray hit (`World.cast_ray`).
#[pyclass(module = "stiction._stiction", name = "RayHit", frozen, get_all)]
pub struct PyRayHit {
    /// The point hit, world frame, (3,), m.
    pub point: Py<PyArray1<f64>>,
    /// The collider's outward unit normal there, (3,) (zero for a ray starting inside).
    pub normal: Py<PyArray1<f64>>,
    /// Distance from the origin along the ray, m.
    pub distance: f64,
    /// The collider's index.
    pub collider: i64,
    /// Its body's index, -1 for static world geometry.
    pub body: i64,
}

#[pymethods]
impl PyRayHit {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "RayHit(collider={}, body={}, distance={}, point={}, normal={})",
            self.collider,
            self.body,
            self.distance,
            repr(self.point.bind(py).as_any()),
            repr(self.normal.bind(py).as_any())
        )
    }
}

/// Rays' answers as arrays, one row per ray (`World.cast_rays`) or per hit
/// (`World.cast_ray_all`).
#[pyclass(module = "stiction._stiction", name = "RayHits", frozen, get_all)]
pub struct PyRayHits {
    /// Distances along the rays, (N,), m; `inf` where nothing was hit.
    pub distances: Py<PyArray1<f64>>,
    /// Points hit, (N, 3), m; NaN rows where nothing was hit.
    pub points: Py<PyArray2<f64>>,
    /// Outward unit normals, (N, 3); NaN rows where nothing was hit.
    pub normals: Py<PyArray2<f64>>,
    /// Collider indices, (N,) int64; -1 where nothing was hit.
    pub colliders: Py<PyArray1<i64>>,
    /// Body indices, (N,) int64; -1 for world geometry or no hit.
    pub bodies: Py<PyArray1<i64>>,
    /// Whether each ray hit something, (N,) bool.
    pub hit: Py<PyArray1<bool>>,
    /// N: the rays (`cast_rays`) or the hits (`cast_ray_all`).
    pub count: usize,
    /// How many rays hit something.
    pub hit_count: usize,
}

#[pymethods]
impl PyRayHits {
    fn __len__(&self) -> usize {
        self.count
    }

    fn __repr__(&self) -> String {
        format!("RayHits({} rays, {} hits)", self.count, self.hit_count)
    }
}

/// Rays' answers being gathered into arrays.
#[derive(Default)]
struct RayColumns {
    distances: Vec<f64>,
    points: Vec<f64>,
    normals: Vec<f64>,
    colliders: Vec<i64>,
    bodies: Vec<i64>,
    hit: Vec<bool>,
}

impl RayColumns {
    fn with_capacity(n: usize) -> Self {
        Self {
            distances: Vec::with_capacity(n),
            points: Vec::with_capacity(3 * n),
            normals: Vec::with_capacity(3 * n),
            colliders: Vec::with_capacity(n),
            bodies: Vec::with_capacity(n),
            hit: Vec::with_capacity(n),
        }
    }

    fn push(&mut self, hit: Option<&RayHit>, indices: &Indices<'_>) {
        match hit {
            Some(h) => {
                self.distances.push(h.toi);
                self.points.extend_from_slice(&h.point.to_array());
                self.normals.extend_from_slice(&h.normal.to_array());
                self.colliders.push(indices.collider(h.collider));
                self.bodies.push(indices.body(h.body));
                self.hit.push(true);
            }
            None => {
                self.distances.push(f64::INFINITY);
                self.points.extend_from_slice(&[f64::NAN; 3]);
                self.normals.extend_from_slice(&[f64::NAN; 3]);
                self.colliders.push(-1);
                self.bodies.push(-1);
                self.hit.push(false);
            }
        }
    }

    fn into_py(self, py: Python<'_>) -> PyRayHits {
        let n = self.distances.len();
        let hit_count = self.hit.iter().filter(|&&h| h).count();
        PyRayHits {
            distances: array1(py, self.distances).unbind(),
            points: array2(py, n, 3, self.points).unbind(),
            normals: array2(py, n, 3, self.normals).unbind(),
            colliders: PyArray1::from_vec(py, self.colliders).unbind(),
            bodies: PyArray1::from_vec(py, self.bodies).unbind(),
            hit: PyArray1::from_vec(py, self.hit).unbind(),
            count: n,
            hit_count,
        }
    }
}

/// Where a moving shape first touches a collider (`World.cast_shape`).
#[pyclass(module = "stiction._stiction", name = "ShapeHit", frozen, get_all)]
pub struct PyShapeHit {
    /// Time of impact: the shape touches the collider once moved by `time * velocity`
    /// (0 if it already touches or overlaps it).
    pub time: f64,
    /// Where the shape's origin is then, `position + time * velocity`, (3,), m.
    pub position: Py<PyArray1<f64>>,
    /// The contact point on the moving shape (where it is then), (3,), m.
    pub point_on_shape: Py<PyArray1<f64>>,
    /// The contact point on the collider, (3,), m.
    pub point_on_collider: Py<PyArray1<f64>>,
    /// The moving shape's outward unit normal there, (3,).
    pub normal_on_shape: Py<PyArray1<f64>>,
    /// The collider's outward unit normal there, (3,).
    pub normal_on_collider: Py<PyArray1<f64>>,
    /// The collider's index.
    pub collider: i64,
    /// Its body's index, -1 for static world geometry.
    pub body: i64,
    /// How parry's cast ended: "converged", "penetrating" (touching or overlapping at
    /// time 0), "out_of_iterations" or "failed".
    pub status: &'static str,
}

#[pymethods]
impl PyShapeHit {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "ShapeHit(collider={}, body={}, time={}, position={}, status={:?})",
            self.collider,
            self.body,
            self.time,
            repr(self.position.bind(py).as_any()),
            self.status
        )
    }
}

/// The collider nearest a point and the nearest point on it (`World.project_point`).
#[pyclass(
    module = "stiction._stiction",
    name = "PointProjection",
    frozen,
    get_all
)]
pub struct PyPointProjection {
    /// The projected point, (3,), m: on the collider's surface, or the query point itself
    /// when it is inside the collider and the projection is solid.
    pub point: Py<PyArray1<f64>>,
    /// Distance from the query point to `point`, m.
    pub distance: f64,
    /// Whether the query point is inside the collider.
    pub is_inside: bool,
    /// The collider's index.
    pub collider: i64,
    /// Its body's index, -1 for static world geometry.
    pub body: i64,
}

#[pymethods]
impl PyPointProjection {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "PointProjection(collider={}, body={}, distance={}, is_inside={}, point={})",
            self.collider,
            self.body,
            self.distance,
            if self.is_inside { "True" } else { "False" },
            repr(self.point.bind(py).as_any())
        )
    }
}

/// `repr(obj)`, or nothing.
fn repr(obj: &Bound<'_, PyAny>) -> String {
    obj.repr().map(|r| r.to_string()).unwrap_or_default()
}

/// Engine handles to Python indices (-1: none, or not registered).
pub struct Indices<'w> {
    pub colliders: &'w Registry<ColliderHandle>,
    pub bodies: &'w Registry<BodyHandle>,
}

impl Indices<'_> {
    pub fn collider(&self, handle: ColliderHandle) -> i64 {
        self.colliders.index_of(handle).map_or(-1, |i| i as i64)
    }

    pub fn body(&self, handle: Option<BodyHandle>) -> i64 {
        handle
            .and_then(|h| self.bodies.index_of(h))
            .map_or(-1, |i| i as i64)
    }
}

/// Collider indices as a sorted int64 array.
fn index_array<'py>(
    py: Python<'py>,
    handles: &[ColliderHandle],
    indices: &Indices<'_>,
) -> Bound<'py, PyArray1<i64>> {
    let mut out: Vec<i64> = handles.iter().map(|&h| indices.collider(h)).collect();
    out.sort_unstable();
    PyArray1::from_vec(py, out)
}

impl PyWorld {
    /// The collider an index argument names.
    pub(crate) fn collider_handle(&self, index: i64, what: &str) -> PyResult<ColliderHandle> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.colliders.handles.get(i).copied())
            .ok_or_else(|| {
                werr(format!(
                    "no {what} {index}: the world has {} colliders",
                    self.colliders.len()
                ))
            })
    }

    fn indices(&self) -> Indices<'_> {
        Indices {
            colliders: &self.colliders,
            bodies: &self.names.bodies,
        }
    }

    /// Checks the filter arguments.
    fn filter<'py>(&self, args: &FilterArgs<'_, 'py>) -> PyResult<Filter<'py>> {
        let mut plain = Plain {
            exclude_sensors: args.exclude_sensors,
            ..Plain::default()
        };
        if let Some(body) = args.exclude_body.filter(|b| !b.is_none()) {
            plain.exclude_body = Some(self.body(body)?);
        }
        for kind in args.exclude_kinds.iter().flatten() {
            let index = match kind.as_str() {
                "static" => 0,
                "kinematic" => 1,
                "dynamic" => 2,
                other => {
                    return Err(PyWorldError::new_err(format!(
                        "exclude_kinds holds {other:?}: each must be \"static\", \"kinematic\" or \"dynamic\""
                    )))
                }
            };
            plain.exclude_kinds[index] = true;
        }
        if let Some(c) = args.exclude_collider {
            plain.exclude_collider = Some(self.collider_handle(c, "collider")?);
        }
        if let Some(groups) = args.groups.filter(|g| !g.is_none()) {
            plain.groups = Some(groups_of(groups, "groups")?);
        }
        let predicate = match args.predicate.filter(|p| !p.is_none()) {
            None => None,
            Some(p) if p.is_callable() => Some(p.clone()),
            Some(p) => {
                let kind = p
                    .get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_else(|_| "?".into());
                return Err(werr(format!(
                    "predicate must be callable (a function of the collider index returning \
                     a bool), got {kind}"
                )));
            }
        };
        Ok(Filter { plain, predicate })
    }

    /// Brings the broad phase's tree up to the current poses, if it is stale.
    fn fresh_queries(&mut self) {
        if !self.world.queries_use_tree() {
            self.world.refresh_queries();
        }
    }

    pub(crate) fn query_cast_ray(
        &mut self,
        py: Python<'_>,
        origin: &Bound<'_, PyAny>,
        direction: &Bound<'_, PyAny>,
        max_distance: f64,
        args: &FilterArgs<'_, '_>,
    ) -> PyResult<Option<PyRayHit>> {
        let origin = finite_point(origin, "origin")?;
        let dir = unit_direction(vec3(direction, "direction", werr)?, "direction")?;
        let max = check_limit(max_distance, "max_distance")?;
        let filter = self.filter(args)?;
        self.fresh_queries();
        let hit = filter.run(&self.world, &self.colliders, |w, f| {
            w.cast_ray(origin, dir, max, f)
        })?;
        let indices = self.indices();
        Ok(hit.map(|h| PyRayHit {
            point: array1(py, h.point.to_array().to_vec()).unbind(),
            normal: array1(py, h.normal.to_array().to_vec()).unbind(),
            distance: h.toi,
            collider: indices.collider(h.collider),
            body: indices.body(h.body),
        }))
    }

    pub(crate) fn query_cast_ray_all(
        &mut self,
        py: Python<'_>,
        origin: &Bound<'_, PyAny>,
        direction: &Bound<'_, PyAny>,
        max_distance: f64,
        args: &FilterArgs<'_, '_>,
    ) -> PyResult<PyRayHits> {
        let origin = finite_point(origin, "origin")?;
        let dir = unit_direction(vec3(direction, "direction", werr)?, "direction")?;
        let max = check_limit(max_distance, "max_distance")?;
        let filter = self.filter(args)?;
        self.fresh_queries();
        let hits = filter.run(&self.world, &self.colliders, |w, f| {
            w.cast_ray_all(origin, dir, max, f)
        })?;
        let indices = self.indices();
        let mut columns = RayColumns::with_capacity(hits.len());
        for h in &hits {
            columns.push(Some(h), &indices);
        }
        Ok(columns.into_py(py))
    }

    pub(crate) fn query_cast_rays(
        &mut self,
        py: Python<'_>,
        origins: &PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        directions: &PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        max_distance: f64,
        args: &FilterArgs<'_, '_>,
    ) -> PyResult<PyRayHits> {
        let origins = rows3(origins, "origins")?;
        let directions = rows3(directions, "directions")?;
        let n = match (origins.broadcast, directions.broadcast) {
            (true, true) => 1,
            (true, false) => directions.rows.len(),
            (false, true) => origins.rows.len(),
            (false, false) if origins.rows.len() == directions.rows.len() => origins.rows.len(),
            (false, false) => {
                return Err(werr(format!(
                    "origins and directions must have the same number of rows (or one be a \
                     single (3,) row), got {} and {}",
                    origins.rows.len(),
                    directions.rows.len()
                )))
            }
        };
        let row = |r: &Rows, i: usize| r.rows[if r.broadcast { 0 } else { i }];
        let mut rays = Vec::with_capacity(n);
        for i in 0..n {
            let origin = row(&origins, i);
            if !origin.is_finite() {
                let at = if origins.broadcast {
                    "origins".to_string()
                } else {
                    format!("origins[{i}]")
                };
                return Err(werr(format!("{at} must be finite, got {}", text(origin))));
            }
            let at = if directions.broadcast {
                "directions".to_string()
            } else {
                format!("directions[{i}]")
            };
            let dir = unit_direction(row(&directions, i), &at)?;
            rays.push(Ray::new(origin, dir));
        }
        let max = check_limit(max_distance, "max_distance")?;
        let filter = self.filter(args)?;
        self.fresh_queries();
        let mut out = Vec::with_capacity(n);
        let columns = if filter.predicate.is_some() {
            // The predicate is Python: the casts run under the GIL.
            filter.run(&self.world, &self.colliders, |w, f| {
                w.cast_rays(&rays, max, f, &mut out)
            })?;
            let indices = self.indices();
            let mut columns = RayColumns::with_capacity(n);
            for hit in &out {
                columns.push(hit.as_ref(), &indices);
            }
            columns
        } else {
            let plain = filter.plain;
            let indices = Indices {
                colliders: &self.colliders,
                bodies: &self.names.bodies,
            };
            let world = &mut self.world;
            py.detach(|| {
                world.cast_rays(&rays, max, &plain.filter(), &mut out);
                let mut columns = RayColumns::with_capacity(n);
                for hit in &out {
                    columns.push(hit.as_ref(), &indices);
                }
                columns
            })
        };
        Ok(columns.into_py(py))
    }

    #[allow(clippy::too_many_arguments)] // The query's own arguments, the shape's and the filter.
    pub(crate) fn query_cast_shape(
        &mut self,
        py: Python<'_>,
        shape: &str,
        sizes: &ShapeArgs<'_, '_>,
        position: Option<&Bound<'_, PyAny>>,
        orientation: Option<&Bound<'_, PyAny>>,
        velocity: &Bound<'_, PyAny>,
        max_time: f64,
        args: &FilterArgs<'_, '_>,
    ) -> PyResult<Option<PyShapeHit>> {
        let (parry, frame) = query_shape(shape, sizes)?;
        let pose = query_pose(position, orientation, frame)?;
        let velocity = finite_point(velocity, "velocity")?;
        let max = check_limit(max_time, "max_time")?;
        let filter = self.filter(args)?;
        self.fresh_queries();
        let hit: Option<ShapeHit> = filter.run(&self.world, &self.colliders, |w, f| {
            w.cast_shape(&*parry, &pose, velocity, max, f)
        })?;
        let indices = self.indices();
        let v = |x: Vec3| array1(py, x.to_array().to_vec()).unbind();
        Ok(hit.map(|h| PyShapeHit {
            time: h.toi,
            position: v(pose.position + velocity * h.toi),
            point_on_shape: v(h.witness_on_shape),
            point_on_collider: v(h.witness_on_collider),
            normal_on_shape: v(h.normal_on_shape),
            normal_on_collider: v(h.normal_on_collider),
            collider: indices.collider(h.collider),
            body: indices.body(h.body),
            status: match h.status {
                ShapeCastStatus::Converged => "converged",
                ShapeCastStatus::PenetratingOrWithinTargetDist => "penetrating",
                ShapeCastStatus::OutOfIterations => "out_of_iterations",
                ShapeCastStatus::Failed => "failed",
            },
        }))
    }

    pub(crate) fn query_overlap_shape<'py>(
        &mut self,
        py: Python<'py>,
        shape: &str,
        sizes: &ShapeArgs<'_, '_>,
        position: Option<&Bound<'_, PyAny>>,
        orientation: Option<&Bound<'_, PyAny>>,
        args: &FilterArgs<'_, '_>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let (parry, frame) = query_shape(shape, sizes)?;
        let pose = query_pose(position, orientation, frame)?;
        let filter = self.filter(args)?;
        self.fresh_queries();
        let found = filter.run(&self.world, &self.colliders, |w, f| {
            w.intersect_shape(&*parry, &pose, f)
        })?;
        Ok(index_array(py, &found, &self.indices()))
    }

    pub(crate) fn query_overlap_aabb<'py>(
        &mut self,
        py: Python<'py>,
        mins: &Bound<'_, PyAny>,
        maxs: &Bound<'_, PyAny>,
        args: &FilterArgs<'_, '_>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let lo = finite_point(mins, "mins")?;
        let hi = finite_point(maxs, "maxs")?;
        if !lo.cmple(hi).all() {
            return Err(werr(format!(
                "mins must be <= maxs in every component, got mins {} and maxs {}",
                text(lo),
                text(hi)
            )));
        }
        let filter = self.filter(args)?;
        self.fresh_queries();
        let found = filter.run(&self.world, &self.colliders, |w, f| {
            w.intersect_aabb(lo, hi, f)
        })?;
        Ok(index_array(py, &found, &self.indices()))
    }

    pub(crate) fn query_project_point(
        &mut self,
        py: Python<'_>,
        point: &Bound<'_, PyAny>,
        solid: bool,
        args: &FilterArgs<'_, '_>,
    ) -> PyResult<Option<PyPointProjection>> {
        let p = finite_point(point, "point")?;
        let filter = self.filter(args)?;
        self.fresh_queries();
        let found: Option<PointProjection> = filter.run(&self.world, &self.colliders, |w, f| {
            w.project_point(p, solid, f)
        })?;
        let indices = self.indices();
        Ok(found.map(|h| PyPointProjection {
            point: array1(py, h.point.to_array().to_vec()).unbind(),
            distance: h.distance,
            is_inside: h.is_inside,
            collider: indices.collider(h.collider),
            body: indices.body(h.body),
        }))
    }

    pub(crate) fn query_colliders_containing_point<'py>(
        &mut self,
        py: Python<'py>,
        point: &Bound<'_, PyAny>,
        args: &FilterArgs<'_, '_>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let p = finite_point(point, "point")?;
        let filter = self.filter(args)?;
        self.fresh_queries();
        let found = filter.run(&self.world, &self.colliders, |w, f| {
            w.colliders_containing_point(p, f)
        })?;
        Ok(index_array(py, &found, &self.indices()))
    }
}

/// `(memberships, filter)`: two 32-bit masks.
pub fn groups_of(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<CollisionGroups> {
    let (memberships, filter): (i64, i64) = obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must be (memberships, filter): two integer bit masks"
        ))
    })?;
    let mask = |value: i64, part: &str| {
        u32::try_from(value).map_err(|_| {
            werr(format!(
                "{what}: {part} must be a 32-bit mask (0 to 0xFFFFFFFF), got {value}"
            ))
        })
    };
    Ok(CollisionGroups::new(
        mask(memberships, "memberships")?,
        mask(filter, "filter")?,
    ))
}
