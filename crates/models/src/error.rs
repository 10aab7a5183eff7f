//! Why a model was refused, and what was read but not simulated: every error and warning
//! says where (file, line and column).

use std::fmt;
use std::path::PathBuf;

/// A place in a model file: 1-based line and character column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The model file.
    pub file: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (characters).
    pub column: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

/// A model that cannot be loaded. Every variant but [`ModelError::Read`] and
/// [`ModelError::Options`] carries the [`Location`] of the element or attribute at fault.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The model file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The file is not well-formed XML.
    #[error("{at}: not well-formed XML: {message}")]
    Xml {
        /// Where the parser stopped.
        at: Location,
        /// The parser's message.
        message: String,
    },
    /// The root element is neither `<robot>` (URDF) nor `<mujoco>` (MJCF).
    #[error("{at}: unknown model format: the root element is <{root}>, expected <robot> (URDF) or <mujoco> (MJCF)")]
    UnknownFormat {
        /// The root element.
        at: Location,
        /// Its name.
        root: String,
    },
    /// A required attribute or element is missing.
    #[error("{at}: <{element}> needs {what}")]
    Missing {
        /// The element that lacks it.
        at: Location,
        /// The element's name.
        element: String,
        /// What is missing, e.g. `attribute "name"` or `a <geometry> child`.
        what: String,
    },
    /// An attribute's value is malformed or out of range.
    #[error("{at}: {attribute}=\"{value}\": {expected}")]
    BadValue {
        /// The attribute.
        at: Location,
        /// Its name.
        attribute: String,
        /// Its text.
        value: String,
        /// What was expected.
        expected: String,
    },
    /// A name refers to nothing: a joint's link, a geom's mesh, a default class.
    #[error("{at}: unknown {kind} \"{name}\"")]
    UnknownReference {
        /// The reference.
        at: Location,
        /// What kind of thing was named (`link`, `mesh`, `class`).
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// The links and joints do not form a tree: a duplicate name, a link with two parents,
    /// a loop, or more than one root.
    #[error("{at}: {message}")]
    Structure {
        /// The element that breaks the tree.
        at: Location,
        /// What is wrong.
        message: String,
    },
    /// A feature the engine cannot simulate and that cannot be dropped without changing
    /// the model's motion (a planar joint, an ellipsoid, two joints in one MJCF body).
    #[error("{at}: unsupported: {what}")]
    Unsupported {
        /// The element.
        at: Location,
        /// What is not supported, and what to do instead where there is something.
        what: String,
    },
    /// A mesh file named by the model was not found on the search path.
    #[error("{at}: mesh \"{uri}\" not found (looked in: {})", searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "))]
    MeshNotFound {
        /// The element naming it.
        at: Location,
        /// The name as written.
        uri: String,
        /// Every path tried.
        searched: Vec<PathBuf>,
    },
    /// A mesh file could not be read or gives no usable shape.
    #[error("{at}: mesh {}: {message}", path.display())]
    Mesh {
        /// The element naming it.
        at: Location,
        /// The mesh file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The engine refused what the element describes (an inertia tensor that is not
    /// positive definite, a zero mass, a degenerate axis).
    #[error("{at}: {message}")]
    Physics {
        /// The element.
        at: Location,
        /// The engine's reason.
        message: String,
    },
    /// The load options name something the model does not have.
    #[error("load options: {message}")]
    Options {
        /// What is wrong.
        message: String,
    },
}

impl ModelError {
    /// Where in the model file the problem is, if it is in the file.
    pub fn location(&self) -> Option<&Location> {
        match self {
            ModelError::Read { .. } | ModelError::Options { .. } => None,
            ModelError::Xml { at, .. }
            | ModelError::UnknownFormat { at, .. }
            | ModelError::Missing { at, .. }
            | ModelError::BadValue { at, .. }
            | ModelError::UnknownReference { at, .. }
            | ModelError::Structure { at, .. }
            | ModelError::Unsupported { at, .. }
            | ModelError::MeshNotFound { at, .. }
            | ModelError::Mesh { at, .. }
            | ModelError::Physics { at, .. } => Some(at),
        }
    }
}

/// Why something in the file does not reach the simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WarningKind {
    /// An element the importer does not read at all (`<transmission>`, `<gazebo>`,
    /// `<sensor>`, ...).
    IgnoredElement,
    /// An attribute the importer does not read.
    IgnoredAttribute,
    /// A value that was read but that the engine does not simulate (joint damping, a
    /// velocity limit, `<mimic>`, a ball joint's range).
    NotSimulated,
    /// Visual-only content (`<visual>`, materials, colours): one summary per file.
    Visual,
    /// A value the engine cannot take as written and the importer changed, saying how: an
    /// inertia tensor that is not positive definite or breaks the triangle inequality, a
    /// massless link that a joint moves, an MJCF body with several joints.
    Repaired,
}

/// Something read from the model that the simulation does not use, with its location.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// Where it is.
    pub at: Location,
    /// Which kind of omission it is.
    pub kind: WarningKind,
    /// What was left out, in one line.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: warning: {}", self.at, self.message)
    }
}
