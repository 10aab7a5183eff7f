//! Finding mesh files (`package://`, `file://`, relative paths) and reading them as
//! triangles.

use std::path::{Path, PathBuf};

use stiction::math::Vec3;

use crate::error::{Location, ModelError};

/// The environment variable holding extra mesh search directories (separated as `PATH` is).
pub const MODEL_PATH_VARIABLE: &str = "STICTION_MODEL_PATH";

/// A mesh as read: the file it came from, its vertices (m, scaled) and its triangles.
pub(crate) type MeshData = (PathBuf, Vec<Vec3>, Vec<[u32; 3]>);

/// The directories searched for meshes: the options' first, then `STICTION_MODEL_PATH`'s.
pub(crate) fn search_path(extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs = extra.to_vec();
    if let Some(value) = std::env::var_os(MODEL_PATH_VARIABLE) {
        dirs.extend(std::env::split_paths(&value).filter(|p| !p.as_os_str().is_empty()));
    }
    dirs
}

/// The candidates for `uri`, in the order they are tried.
///
/// - `package://PKG/REST`: `DIR/PKG/REST` and, where `DIR` itself is named `PKG`,
///   `DIR/REST`, for each search directory and then each ancestor of the model's directory
///   (a model inside its own package finds its meshes without a search path);
/// - `file://ABS`: that path;
/// - anything else: relative to `base` (the model's directory, or MJCF's `meshdir`), then
///   to each search directory.
pub(crate) fn candidates(
    uri: &str,
    base: &Path,
    model_dir: &Path,
    search: &[PathBuf],
) -> Vec<PathBuf> {
    if let Some(rest) = uri.strip_prefix("package://") {
        let (package, inner) = rest.split_once('/').unwrap_or((rest, ""));
        let mut out = Vec::new();
        let dirs = search
            .iter()
            .cloned()
            .chain(model_dir.ancestors().map(Path::to_path_buf));
        for dir in dirs {
            out.push(dir.join(package).join(inner));
            if dir.file_name() == Some(std::ffi::OsStr::new(package)) {
                out.push(dir.join(inner));
            }
        }
        out.dedup();
        return out;
    }
    if let Some(path) = uri.strip_prefix("file://") {
        return vec![PathBuf::from(path)];
    }
    let path = Path::new(uri);
    if path.is_absolute() {
        return vec![path.to_path_buf()];
    }
    std::iter::once(base.join(path))
        .chain(search.iter().map(|d| d.join(path)))
        .collect()
}

/// Finds `uri` and reads its triangles, scaled by `scale`.
pub(crate) fn load(
    at: &Location,
    uri: &str,
    base: &Path,
    model_dir: &Path,
    search: &[PathBuf],
    scale: Vec3,
) -> Result<MeshData, ModelError> {
    let tried = candidates(uri, base, model_dir, search);
    let Some(path) = tried.iter().find(|p| p.is_file()).cloned() else {
        return Err(ModelError::MeshNotFound {
            at: at.clone(),
            uri: uri.to_string(),
            searched: tried,
        });
    };
    let (vertices, triangles) = read_mesh(&path, scale).map_err(|message| ModelError::Mesh {
        at: at.clone(),
        path: path.clone(),
        message,
    })?;
    Ok((path, vertices, triangles))
}

/// A mesh's vertices (m) and triangles (indices into the vertices, counter-clockwise seen
/// from outside).
pub type MeshTriangles = (Vec<Vec3>, Vec<[u32; 3]>);

/// Reads the triangles of the mesh file at `path` (STL, OBJ or COLLADA), every vertex
/// multiplied by `scale`: for scene files and tools that take a mesh without a model.
/// The error says what is wrong with the file.
pub fn read_mesh(path: &Path, scale: Vec3) -> Result<MeshTriangles, String> {
    let (vertices, triangles) = match binary_stl(path)? {
        Some(mesh) => mesh,
        None => {
            let scene = mesh_loader::Loader::default()
                .merge_meshes(true)
                .load(path)
                .map_err(|e| e.to_string())?;
            let mut vertices = Vec::new();
            let mut triangles = Vec::new();
            for mesh in &scene.meshes {
                let first =
                    u32::try_from(vertices.len()).map_err(|_| "too many vertices".to_string())?;
                vertices.extend(
                    mesh.vertices
                        .iter()
                        .map(|v| Vec3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]))),
                );
                triangles.extend(
                    mesh.faces
                        .iter()
                        .map(|f| [f[0] + first, f[1] + first, f[2] + first]),
                );
            }
            (vertices, triangles)
        }
    };
    let vertices: Vec<Vec3> = vertices.into_iter().map(|v| v * scale).collect();
    if vertices.len() < 4 || !vertices.iter().all(|v| v.is_finite()) {
        return Err(format!(
            "needs at least 4 finite vertices, has {}",
            vertices.len()
        ));
    }
    let count = vertices.len();
    if triangles.iter().flatten().any(|&i| i as usize >= count) {
        return Err("a triangle names a vertex that does not exist".into());
    }
    Ok((vertices, triangles))
}

/// A binary STL file read directly, or `None` when `path` is not one. Binary STL files
/// whose 80-byte header starts with `solid` (many CAD exporters write them) look like
/// ASCII STL to a reader that trusts the header; the size `84 + 50 n` tells them apart.
fn binary_stl(path: &Path) -> Result<Option<MeshTriangles>, String> {
    let is_stl = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("stl"));
    if !is_stl {
        return Ok(None);
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    if bytes.len() < 84 {
        return Ok(None);
    }
    let count = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
    if count.checked_mul(50).and_then(|n| n.checked_add(84)) != Some(bytes.len()) {
        return Ok(None);
    }
    let float = |at: usize| {
        f64::from(f32::from_le_bytes([
            bytes[at],
            bytes[at + 1],
            bytes[at + 2],
            bytes[at + 3],
        ]))
    };
    let mut vertices = Vec::with_capacity(3 * count);
    let mut triangles = Vec::with_capacity(count);
    for t in 0..count {
        // Each record: a normal (ignored: the winding gives it), three vertices, 2 bytes.
        let record = 84 + 50 * t;
        let first = u32::try_from(vertices.len()).map_err(|_| "too many vertices".to_string())?;
        for k in 0..3 {
            let at = record + 12 + 12 * k;
            vertices.push(Vec3::new(float(at), float(at + 4), float(at + 8)));
        }
        triangles.push([first, first + 1, first + 2]);
    }
    Ok(Some((vertices, triangles)))
}

/// Volume, centre and inertia (about the centre, per unit density) of the solid bounded by
/// a closed, outward-oriented triangle surface, by summing signed tetrahedra from the origin
/// (used for the convex hull of a mesh whose mass the file leaves to its geometry).
pub(crate) fn solid_properties(vertices: &[Vec3], triangles: &[[u32; 3]]) -> (f64, Vec3, [f64; 6]) {
    let mut volume = 0.0;
    let mut first = Vec3::ZERO;
    // Second moments: xx, yy, zz, xy, xz, yz, integrated over the solid about the origin.
    let mut second = [0.0; 6];
    for t in triangles {
        let [a, b, c] = t.map(|i| vertices[i as usize]);
        let v = a.dot(b.cross(c)) / 6.0;
        volume += v;
        first += v * (a + b + c) / 4.0;
        // The integral of x_i x_j over a tetrahedron with one vertex at the origin:
        // v/20 (sum_k p_ki p_kj + (sum_k p_ki)(sum_k p_kj)).
        let s = a + b + c;
        let pair = |i: usize, j: usize| {
            let sum = a[i] * a[j] + b[i] * b[j] + c[i] * c[j];
            v / 20.0 * (sum + s[i] * s[j])
        };
        for (k, (i, j)) in [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)]
            .into_iter()
            .enumerate()
        {
            second[k] += pair(i, j);
        }
    }
    // An inward-wound surface gives every integral the opposite sign.
    if volume < 0.0 {
        volume = -volume;
        first = -first;
        second = second.map(|x| -x);
    }
    let center = if volume != 0.0 {
        first / volume
    } else {
        Vec3::ZERO
    };
    // Shift the second moments to the centre, then form the inertia tensor's entries.
    let c = center;
    let m = [
        second[0] - volume * c.x * c.x,
        second[1] - volume * c.y * c.y,
        second[2] - volume * c.z * c.z,
        second[3] - volume * c.x * c.y,
        second[4] - volume * c.x * c.z,
        second[5] - volume * c.y * c.z,
    ];
    let inertia = [m[1] + m[2], m[0] + m[2], m[0] + m[1], -m[3], -m[4], -m[5]];
    (volume, center, inertia)
}
