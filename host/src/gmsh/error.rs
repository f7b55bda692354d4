//! Errors of the Gmsh reader: each names the file, the place in it and what was expected.

use std::fmt;
use std::path::PathBuf;

/// Where in the input something happened: a line (ASCII) or a byte offset (binary).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// 1-based line number, used for ASCII files.
    Line(usize),
    /// 0-based byte offset, used for binary files (lines mean nothing in binary data).
    Byte(usize),
}

/// A file (or source name) plus a [`Location`] in it; displays as `file:123` or `file:byte 4567`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcePos {
    /// The path or name given to the reader.
    pub source: String,
    /// The place within that source.
    pub location: Location,
}

impl fmt::Display for SourcePos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            Location::Line(line) => write!(f, "{}:{}", self.source, line),
            Location::Byte(offset) => write!(f, "{}:byte {}", self.source, offset),
        }
    }
}

/// Everything that can go wrong while reading a `.msh` file.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    /// The file could not be read at all.
    #[error("{}: cannot read: {error}", path.display())]
    Io {
        /// The path that was opened.
        path: PathBuf,
        /// The operating system's error (in the message, so not a `source`: a chain would
        /// print it twice).
        error: std::io::Error,
    },
    /// The input does not follow the MSH grammar: truncated, bad number, wrong count...
    #[error("{at}: expected {expected}, found {found}")]
    Syntax {
        /// Where the unexpected input starts.
        at: SourcePos,
        /// What the grammar required there.
        expected: String,
        /// What the input held instead.
        found: String,
    },
    /// A `$MeshFormat` version other than 2.2 and 4.1.
    #[error(
        "{at}: MSH version {version} is not supported: only 2.2 and 4.1 are read \
         (re-export with `gmsh -format msh41` or `-format msh22`)"
    )]
    UnsupportedVersion {
        /// Where the version was written.
        at: SourcePos,
        /// The version string as written.
        version: String,
    },
    /// A valid MSH feature this reader does not handle (big-endian data, partitioned meshes...).
    #[error("{at}: {feature} is not supported")]
    Unsupported {
        /// Where the feature shows up.
        at: SourcePos,
        /// A description of the feature, with a remedy when there is one.
        feature: String,
    },
    /// A volume element other than the linear 4-node tetrahedron.
    #[error(
        "{at}: element {element_tag} has type {element_type} ({description}): only linear 4-node \
         tetrahedra (type 4) are supported as volume elements; {hint}"
    )]
    UnsupportedElement {
        /// Where the element is.
        at: SourcePos,
        /// The element's tag in the file.
        element_tag: u64,
        /// The Gmsh element type number.
        element_type: i32,
        /// Gmsh's name for that type, e.g. "10-node second order tetrahedron".
        description: &'static str,
        /// How to get a supported mesh, e.g. "re-mesh with `gmsh -3 -order 1`".
        hint: &'static str,
    },
    /// An element type number Gmsh does not define (or this reader does not know).
    #[error("{at}: element {element_tag} has unknown element type {element_type}")]
    UnknownElementType {
        /// Where the element is.
        at: SourcePos,
        /// The element's tag in the file.
        element_tag: u64,
        /// The unknown type number.
        element_type: i32,
    },
    /// An element refers to a node tag not defined in `$Nodes` (before it).
    #[error("{at}: element {element_tag} refers to node tag {node_tag}, which $Nodes does not define")]
    UnknownNode {
        /// Where the element is.
        at: SourcePos,
        /// The element's tag in the file.
        element_tag: u64,
        /// The undefined node tag.
        node_tag: u64,
    },
    /// The same node tag is defined twice.
    #[error("{at}: node tag {node_tag} is defined twice")]
    DuplicateNode {
        /// Where the second definition is.
        at: SourcePos,
        /// The repeated tag.
        node_tag: u64,
    },
    /// A tetrahedron with (numerically) zero volume: it has no stiffness and no mass.
    #[error("{at}: tetrahedron element {element_tag} is degenerate (signed volume {volume:e})")]
    DegenerateTet {
        /// Where the element is.
        at: SourcePos,
        /// The element's tag in the file.
        element_tag: u64,
        /// Its signed volume (Gmsh node order).
        volume: f64,
    },
    /// A section the mesh cannot do without (`$Nodes`, `$Elements`) is absent, or one is repeated.
    #[error("{at}: {problem}")]
    Structure {
        /// Where the problem was noticed.
        at: SourcePos,
        /// What is missing or repeated.
        problem: String,
    },
}

impl MeshError {
    /// The position the error refers to, when it has one (all but `Io`).
    pub fn position(&self) -> Option<&SourcePos> {
        match self {
            MeshError::Io { .. } => None,
            MeshError::Syntax { at, .. }
            | MeshError::UnsupportedVersion { at, .. }
            | MeshError::Unsupported { at, .. }
            | MeshError::UnsupportedElement { at, .. }
            | MeshError::UnknownElementType { at, .. }
            | MeshError::UnknownNode { at, .. }
            | MeshError::DuplicateNode { at, .. }
            | MeshError::DegenerateTet { at, .. }
            | MeshError::Structure { at, .. } => Some(at),
        }
    }
}
