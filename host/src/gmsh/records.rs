//! The record reader shared by both MSH versions: one trait, an ASCII and a binary implementation.
//!
//! A record is what Gmsh writes on one ASCII line (a node, an element, a block header). The
//! version parsers read fields through this trait, so each version's grammar is written once for
//! both encodings.

use super::cursor::Cursor;
use super::error::{Location, MeshError};

/// Reads the typed fields of MSH records, in ASCII or binary encoding.
pub(crate) trait Records<'a> {
    /// The underlying cursor, for text parts that are the same in both encodings.
    fn cursor(&mut self) -> &mut Cursor<'a>;

    /// Read-only access to the cursor, to build errors.
    fn cursor_ref(&self) -> &Cursor<'a>;

    /// Starts the next record; `what` names it in the error when the input has ended.
    fn begin(&mut self, what: &str) -> Result<(), MeshError>;

    /// A C `int` field (4 bytes in binary).
    fn int(&mut self, what: &str) -> Result<i32, MeshError>;

    /// A C `size_t` field (8 bytes in binary, MSH 4.1 only).
    fn size(&mut self, what: &str) -> Result<u64, MeshError>;

    /// A finite `double` field (8 bytes in binary).
    fn float(&mut self, what: &str) -> Result<f64, MeshError>;

    /// Fields left in the current record when the encoding knows (ASCII); `None` in binary.
    fn fields_left(&self) -> Option<usize>;

    /// Ends the record: in ASCII, anything left on the line is an error.
    fn end(&mut self) -> Result<(), MeshError>;

    /// Where the current record is (its line in ASCII, the next byte in binary).
    fn location(&self) -> Location;

    /// A syntax error at the current record.
    fn error(&self, expected: impl Into<String>, found: String) -> MeshError {
        self.cursor_ref().syntax(self.location(), expected, found)
    }

    /// An `int` field that must be a positive tag (node and element tags in MSH 2.2).
    fn positive_int(&mut self, what: &str) -> Result<u64, MeshError> {
        let value = self.int(what)?;
        u64::try_from(value)
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| self.error(format!("{what} (a positive integer)"), format!("{value}")))
    }

    /// An `int` field that must not be negative (counts, flags).
    fn count_int(&mut self, what: &str) -> Result<u64, MeshError> {
        let value = self.int(what)?;
        u64::try_from(value)
            .map_err(|_| self.error(format!("{what} (a non-negative integer)"), format!("{value}")))
    }
}
