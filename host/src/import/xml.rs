//! Reading model XML with roxmltree: every element knows its line, so each error names the
//! element, the line and the file.

use super::error::{ImportError, ImportErrorKind};
use roxmltree::Node;
use std::path::{Path, PathBuf};

/// A parsed XML file: its path and text (roxmltree borrows the text).
pub struct XmlFile {
    /// The file.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
}

impl XmlFile {
    /// Reads `path`.
    pub fn read(path: &Path) -> Result<Self, ImportError> {
        let text = crate::limits::read_text_capped(path, crate::limits::SCENE_FILE_LIMIT, "model files")
            .map_err(|e| {
                ImportError::new(
                    ImportErrorKind::Unreadable,
                    path,
                    None,
                    "",
                    format!("cannot read: {e}"),
                )
            })?;
        Ok(Self {
            path: path.to_path_buf(),
            text,
        })
    }

    /// The document, or an error with the parser's line.
    pub fn parse(&self) -> Result<roxmltree::Document<'_>, ImportError> {
        roxmltree::Document::parse_with_options(
            &self.text,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                ..Default::default()
            },
        )
        .map_err(|e| {
            ImportError::new(
                ImportErrorKind::Unreadable,
                &self.path,
                Some(e.pos().row as usize),
                "",
                format!("not well-formed XML: {e}"),
            )
        })
    }
}

/// Where an element is: its file and line, and how to name it in errors.
#[derive(Clone, Copy)]
pub struct At<'a, 'input> {
    /// The file.
    pub path: &'a Path,
    /// The element.
    pub node: Node<'a, 'input>,
}

impl<'a, 'input> At<'a, 'input> {
    /// The element `node` of `path`.
    pub fn new(path: &'a Path, node: Node<'a, 'input>) -> Self {
        Self { path, node }
    }

    /// 1-based line of the element's start tag.
    pub fn line(&self) -> usize {
        self.node.document().text_pos_at(self.node.range().start).row as usize
    }

    /// `<tag name="…">` or `<tag>`.
    pub fn element(&self) -> String {
        let tag = self.node.tag_name().name();
        match self.node.attribute("name") {
            Some(name) => format!("<{tag} name=\"{name}\">"),
            None => format!("<{tag}>"),
        }
    }

    /// An error of `kind` about this element.
    pub fn error(&self, kind: ImportErrorKind, reason: impl Into<String>) -> ImportError {
        ImportError::new(kind, self.path, Some(self.line()), &self.element(), reason)
    }

    /// An invalid value of this element.
    pub fn invalid(&self, reason: impl Into<String>) -> ImportError {
        self.error(ImportErrorKind::Invalid, reason)
    }

    /// A feature of this element the scenes cannot express.
    pub fn refused(&self, reason: impl Into<String>) -> ImportError {
        self.error(ImportErrorKind::Refused, reason)
    }

    /// The same place, another element.
    pub fn at(&self, node: Node<'a, 'input>) -> Self {
        Self::new(self.path, node)
    }

    /// A required attribute.
    pub fn required(&self, name: &str) -> Result<&'a str, ImportError> {
        self.node
            .attribute(name)
            .ok_or_else(|| self.invalid(format!("attribute `{name}` is required")))
    }

    /// An optional number attribute (finite).
    pub fn number(&self, name: &str) -> Result<Option<f64>, ImportError> {
        self.node
            .attribute(name)
            .map(|v| self.parse_number(name, v))
            .transpose()
    }

    /// A number attribute with a default.
    pub fn number_or(&self, name: &str, default: f64) -> Result<f64, ImportError> {
        Ok(self.number(name)?.unwrap_or(default))
    }

    /// A list of `N` numbers (space-separated), optional.
    pub fn numbers<const N: usize>(&self, name: &str) -> Result<Option<[f64; N]>, ImportError> {
        let Some(text) = self.node.attribute(name) else {
            return Ok(None);
        };
        let values = self.number_list(name, text)?;
        values
            .try_into()
            .map(Some)
            .map_err(|v: Vec<f64>| self.invalid(format!("`{name}` needs {N} numbers, got {}", v.len())))
    }

    /// All numbers of `text` (attribute `name`).
    pub fn number_list(&self, name: &str, text: &str) -> Result<Vec<f64>, ImportError> {
        text.split_whitespace()
            .map(|w| self.parse_number(name, w))
            .collect()
    }

    fn parse_number(&self, name: &str, text: &str) -> Result<f64, ImportError> {
        match text.trim().parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(self.invalid(format!("`{name}`: \"{text}\" is not a finite number"))),
        }
    }
}

/// The element children of `node`.
pub fn elements<'a, 'input>(node: Node<'a, 'input>) -> impl Iterator<Item = Node<'a, 'input>> {
    node.children().filter(|n| n.is_element())
}

/// The first element child called `tag`.
pub fn child<'a, 'input>(node: Node<'a, 'input>, tag: &str) -> Option<Node<'a, 'input>> {
    elements(node).find(|n| n.tag_name().name() == tag)
}
