//! ASCII records: one per line, fields separated by whitespace.

use super::cursor::{excerpt, parse_token, Cursor};
use super::error::{Location, MeshError};
use super::records::Records;

/// Reads records from the lines of an ASCII `.msh` file.
pub(crate) struct AsciiRecords<'a> {
    cur: Cursor<'a>,
    /// The unread part of the current line.
    rest: &'a [u8],
    /// Where the current line is.
    line: Location,
}

impl<'a> AsciiRecords<'a> {
    /// Records read from `cur`, which stands at the start of a line.
    pub(crate) fn new(cur: Cursor<'a>) -> Self {
        let line = cur.here();
        AsciiRecords { cur, rest: &[], line }
    }

    /// The next whitespace-separated token of the current line.
    fn token(&mut self, what: &str) -> Result<&'a [u8], MeshError> {
        let rest = self.rest.trim_ascii_start();
        if rest.is_empty() {
            return Err(self.error(what, "end of line".into()));
        }
        let len = rest
            .iter()
            .position(u8::is_ascii_whitespace)
            .unwrap_or(rest.len());
        self.rest = &rest[len..];
        Ok(&rest[..len])
    }

    /// The next token parsed as `T`; `kind` describes `T` in the error.
    fn number<T: std::str::FromStr>(&mut self, what: &str, kind: &str) -> Result<T, MeshError> {
        let token = self.token(what)?;
        parse_token(token).ok_or_else(|| self.error(format!("{what} ({kind})"), excerpt(token)))
    }
}

impl<'a> Records<'a> for AsciiRecords<'a> {
    fn cursor(&mut self) -> &mut Cursor<'a> {
        &mut self.cur
    }

    fn cursor_ref(&self) -> &Cursor<'a> {
        &self.cur
    }

    fn begin(&mut self, what: &str) -> Result<(), MeshError> {
        match self.cur.next_nonblank_line() {
            Some((location, line)) => {
                self.line = location;
                self.rest = line;
                Ok(())
            }
            None => {
                self.line = self.cur.here();
                Err(self.error(what, "end of file".into()))
            }
        }
    }

    fn int(&mut self, what: &str) -> Result<i32, MeshError> {
        self.number(what, "a 32-bit integer")
    }

    fn size(&mut self, what: &str) -> Result<u64, MeshError> {
        self.number(what, "a non-negative integer")
    }

    fn float(&mut self, what: &str) -> Result<f64, MeshError> {
        let token = self.token(what)?;
        parse_token::<f64>(token)
            .filter(|v| v.is_finite())
            .ok_or_else(|| self.error(format!("{what} (a finite number)"), excerpt(token)))
    }

    fn fields_left(&self) -> Option<usize> {
        Some(
            self.rest
                .split(u8::is_ascii_whitespace)
                .filter(|t| !t.is_empty())
                .count(),
        )
    }

    fn end(&mut self) -> Result<(), MeshError> {
        if self.rest.trim_ascii().is_empty() {
            Ok(())
        } else {
            Err(self.error("end of line", excerpt(self.rest)))
        }
    }

    fn location(&self) -> Location {
        self.line
    }
}
