//! Import errors: `file:line: <element name="…">: reason`, sorted into what a corpus count
//! needs (an unsupported feature refused by name, an invalid value, a file that cannot be read).

use std::fmt;
use std::path::{Path, PathBuf};

/// Why a model was not imported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportErrorKind {
    /// A feature that changes the dynamics and that the scenes cannot express (yet).
    Refused,
    /// A missing or invalid value (mass, inertia, reference, number).
    Invalid,
    /// A file that cannot be read or parsed (the model, an include, a mesh).
    Unreadable,
}

/// An import error naming the file, the line and the element.
#[derive(Clone, Debug)]
pub struct ImportError {
    /// The model file (or the included file or mesh concerned).
    pub file: PathBuf,
    /// 1-based line, when the error has one.
    pub line: Option<usize>,
    /// The element, e.g. `<joint name="elbow">`.
    pub element: String,
    /// What is wrong.
    pub reason: String,
    /// Which kind of failure.
    pub kind: ImportErrorKind,
}

impl ImportError {
    /// An error of `kind` at `line` of `file` about `element`.
    pub fn new(
        kind: ImportErrorKind,
        file: &Path,
        line: Option<usize>,
        element: &str,
        reason: impl Into<String>,
    ) -> Self {
        Self {
            file: file.to_path_buf(),
            line,
            element: element.to_string(),
            reason: reason.into(),
            kind,
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if !self.element.is_empty() {
            write!(f, ": {}", self.element)?;
        }
        write!(f, ": {}", self.reason)
    }
}

impl std::error::Error for ImportError {}
