//! Scene errors: each names the file, the line and the item, then says what is wrong.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use ferrodyn_kernel::{BuildError, Capacity};

use crate::gmsh::MeshError;

/// A named scene item, displayed as `joint "elbow"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemName {
    /// The table it comes from: body, joint, drive, force, flexible, simulation...
    pub kind: &'static str,
    /// Its name (empty for unnamed tables such as `simulation`).
    pub name: String,
}

impl ItemName {
    /// An item of `kind` called `name`.
    pub fn new(kind: &'static str, name: &str) -> Self {
        Self {
            kind,
            name: name.to_string(),
        }
    }
}

impl fmt::Display for ItemName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.name.is_empty() {
            write!(f, "{}", self.kind)
        } else {
            write!(f, "{} \"{}\"", self.kind, self.name)
        }
    }
}

/// What is wrong.
#[derive(Debug, thiserror::Error)]
pub enum ErrorKind {
    /// The scene file could not be read.
    #[error("cannot read: {0}")]
    Io(std::io::Error), // no #[source]: the message has it, and a chain would print it twice
    /// TOML syntax, a wrong type, a missing or unknown key (message from the TOML parser).
    #[error("{0}")]
    Syntax(String),
    /// A name that refers to nothing.
    #[error("{field} \"{name}\" does not exist ({available})")]
    UnknownReference {
        /// The key holding the reference.
        field: &'static str,
        /// The name given.
        name: String,
        /// What could be referred to, e.g. `bodies: upper_arm, forearm`.
        available: String,
    },
    /// A name or id used twice.
    #[error("duplicate {what} (first defined at line {first_line})")]
    Duplicate {
        /// What is repeated, e.g. `body name "arm"`.
        what: String,
        /// Line of the first definition.
        first_line: usize,
    },
    /// A value out of its valid range or an inconsistent combination of keys.
    #[error("{field}: {reason}")]
    Invalid {
        /// The key.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A model capacity (a const generic of the kernel model type) is too small for the scene.
    #[error("capacity exceeded: {capacity:?} capacity is {available}, the scene needs {needed}")]
    Capacity {
        /// Which capacity.
        capacity: Capacity,
        /// What the whole scene needs.
        needed: usize,
        /// The capacity of the model type.
        available: usize,
    },
    /// The kernel refused an item (reported against the item's name, not its index).
    #[error("{}", super::convert::reason(*.0))]
    Kernel(BuildError),
    /// The mesh could not be read.
    #[error("{0}")]
    Mesh(MeshError), // no #[source]: the message is the mesh error's, its cause included
}

/// An error in a scene file: `file:line: item: what` (boxed: results stay small).
#[derive(Debug)]
pub struct SceneError(Box<Details>);

/// The parts of a [`SceneError`].
#[derive(Debug)]
pub struct Details {
    /// The scene file.
    pub file: PathBuf,
    /// 1-based line, when the error has a place in the file.
    pub line: Option<usize>,
    /// The item concerned, when there is one.
    pub item: Option<ItemName>,
    /// What is wrong.
    pub kind: ErrorKind,
}

impl SceneError {
    /// The scene file.
    pub fn file(&self) -> &Path {
        &self.0.file
    }
    /// 1-based line, when the error has a place in the file.
    pub fn line(&self) -> Option<usize> {
        self.0.line
    }
    /// The item concerned, when there is one.
    pub fn item(&self) -> Option<&ItemName> {
        self.0.item.as_ref()
    }
    /// What is wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.file.display())?;
        if let Some(line) = self.0.line {
            write!(f, ":{line}")?;
        }
        if let Some(item) = &self.0.item {
            write!(f, ": {item}")?;
        }
        write!(f, ": {}", self.0.kind)
    }
}

impl std::error::Error for SceneError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.0.kind)
    }
}

/// The text of a scene file, to turn byte offsets into line numbers.
#[derive(Debug, Clone)]
pub struct Source {
    /// The path as given.
    pub path: PathBuf,
    /// Byte offset of the start of every line.
    line_starts: Vec<usize>,
}

impl Source {
    /// Indexes the lines of `text` read from `path`.
    pub fn new(path: &Path, text: &str) -> Self {
        Self {
            path: path.to_path_buf(),
            line_starts: line_starts(text),
        }
    }

    /// 1-based line holding byte `offset`.
    pub fn line(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset)
    }

    /// The line where `span` starts.
    pub fn line_of(&self, span: &Range<usize>) -> usize {
        self.line(span.start)
    }

    /// An error at `line` (if any) about `item` (if any).
    pub fn error(&self, line: Option<usize>, item: Option<ItemName>, kind: ErrorKind) -> SceneError {
        SceneError(Box::new(Details {
            file: self.path.clone(),
            line,
            item,
            kind,
        }))
    }
}

/// The byte offset of every line of `text`: 0, then one past each `\n`. A large text is
/// indexed in pieces on every core (its lines counted, then written into the one list).
fn line_starts(text: &str) -> Vec<usize> {
    let starts_in = |piece: &Range<usize>| {
        let first = piece.start;
        text[piece.clone()]
            .match_indices('\n')
            .map(move |(i, _)| first + i + 1)
    };
    // The scene reader's pieces (cut at line starts, so at character boundaries).
    let parallel = ferrodyn_scene_file::parallel::parts(text);
    let pieces = ferrodyn_scene_file::parallel::pieces(text, parallel);
    if pieces.len() < 2 {
        return std::iter::once(0).chain(starts_in(&(0..text.len()))).collect();
    }
    let counts: Vec<usize> = std::thread::scope(|scope| {
        let handles: Vec<_> = pieces
            .iter()
            .map(|p| scope.spawn(move || starts_in(p).count()))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    // Zeroed: its pages are first written by the thread that fills them.
    let mut starts = vec![0; 1 + counts.iter().sum::<usize>()];
    std::thread::scope(|scope| {
        let mut rest = &mut starts[1..];
        for (piece, &count) in pieces.iter().zip(&counts) {
            let (own, next) = std::mem::take(&mut rest).split_at_mut(count);
            rest = next;
            scope.spawn(move || {
                own.iter_mut()
                    .zip(starts_in(piece))
                    .for_each(|(slot, start)| *slot = start)
            });
        }
    });
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_lines() {
        let s = Source::new(Path::new("a.toml"), "ab\ncd\n\nef");
        assert_eq!([0, 2, 3, 5, 6, 7, 8].map(|o| s.line(o)), [1, 1, 2, 2, 3, 4, 4]);
    }

    #[test]
    fn a_large_text_is_indexed_in_pieces_as_in_one() {
        // Over the threshold, with multi-byte characters, lines of every length, and a text
        // that ends without a newline.
        let text: String = (0..400_000)
            .map(|k| format!("{}é{}\n", "x".repeat(k % 13), "ü".repeat(k % 5)))
            .chain(["end".to_string()])
            .collect();
        assert!(text.len() > 4 << 20);
        let serial: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        assert_eq!(line_starts(&text), serial);
        assert_eq!(line_starts(&text[..text.len() - 3]), serial);
    }

    #[test]
    fn display_names_file_line_and_item() {
        let s = Source::new(Path::new("scenes/arm.toml"), "");
        let e = s.error(
            Some(14),
            Some(ItemName::new("joint", "elbow")),
            ErrorKind::UnknownReference {
                field: "body_j",
                name: "forarm".into(),
                available: "bodies: upper_arm, forearm".into(),
            },
        );
        assert_eq!(
            e.to_string(),
            "scenes/arm.toml:14: joint \"elbow\": body_j \"forarm\" does not exist (bodies: upper_arm, forearm)"
        );
    }
}
