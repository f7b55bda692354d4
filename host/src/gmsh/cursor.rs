//! Byte cursor over a `.msh` input: text lines, raw bytes, section markers and error positions.
//!
//! Both encodings need it: even binary files keep their section markers, `$PhysicalNames` and the
//! MSH 2.2 counts as text lines.

use super::error::{Location, MeshError, SourcePos};

/// Longest excerpt of offending input quoted in an error message.
const EXCERPT_CHARS: usize = 40;

/// A position in the input plus what is known about it (source name, encoding, line count).
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Number of the last line returned by `next_line` (0 before the first).
    line: usize,
    source: &'a str,
    binary: bool,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `bytes`; `source` names the input in errors.
    pub(crate) fn new(bytes: &'a [u8], source: &'a str) -> Self {
        Cursor {
            bytes,
            pos: 0,
            line: 0,
            source,
            binary: false,
        }
    }

    /// From now on positions are byte offsets (the header said the data is binary).
    pub(crate) fn set_binary(&mut self) {
        self.binary = true;
    }

    /// True once the header said the data is binary.
    pub(crate) fn is_binary(&self) -> bool {
        self.binary
    }

    /// Bytes not yet consumed: the bound for any pre-allocation driven by a count in the file.
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// Where the next unread input is.
    pub(crate) fn here(&self) -> Location {
        if self.binary {
            Location::Byte(self.pos)
        } else {
            Location::Line(self.line + 1)
        }
    }

    /// A full position for an error.
    pub(crate) fn at(&self, location: Location) -> SourcePos {
        SourcePos {
            source: self.source.to_string(),
            location,
        }
    }

    /// A syntax error at `location`.
    pub(crate) fn syntax(&self, location: Location, expected: impl Into<String>, found: String) -> MeshError {
        MeshError::Syntax {
            at: self.at(location),
            expected: expected.into(),
            found,
        }
    }

    /// The next line (without its `\n` or `\r\n`) and where it starts; `None` at end of input.
    pub(crate) fn next_line(&mut self) -> Option<(Location, &'a [u8])> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        let start = self.pos;
        let rest = &self.bytes[start..];
        let (line, consumed) = match rest.iter().position(|&b| b == b'\n') {
            Some(n) => (&rest[..n], n + 1),
            None => (rest, rest.len()),
        };
        self.pos += consumed;
        self.line += 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let location = if self.binary {
            Location::Byte(start)
        } else {
            Location::Line(self.line)
        };
        Some((location, line))
    }

    /// The next line holding anything but whitespace.
    pub(crate) fn next_nonblank_line(&mut self) -> Option<(Location, &'a [u8])> {
        while let Some((location, line)) = self.next_line() {
            if !line.trim_ascii().is_empty() {
                return Some((location, line));
            }
        }
        None
    }

    /// The next `n` raw bytes, or `None` (consuming nothing) when fewer are left.
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&end| end <= self.bytes.len())?;
        let taken = &self.bytes[self.pos..end];
        self.pos = end;
        Some(taken)
    }

    /// Consumes a line that must read `want` (e.g. `$EndNodes`), skipping blank lines.
    pub(crate) fn expect_line(&mut self, want: &str) -> Result<(), MeshError> {
        let here = self.here();
        match self.next_nonblank_line() {
            Some((_, line)) if line.trim_ascii() == want.as_bytes() => Ok(()),
            Some((location, line)) => Err(self.syntax(location, want, excerpt(line))),
            None => Err(self.syntax(here, want, "end of file".into())),
        }
    }

    /// The next section marker (`$Nodes`...) with its position; `None` at end of input.
    pub(crate) fn next_section(&mut self) -> Result<Option<(Location, &'a str)>, MeshError> {
        let Some((location, line)) = self.next_nonblank_line() else {
            return Ok(None);
        };
        let name = line.trim_ascii();
        match std::str::from_utf8(name) {
            Ok(name) if name.starts_with('$') && name.len() > 1 => Ok(Some((location, name))),
            _ => Err(self.syntax(location, "a section marker such as $Nodes", excerpt(line))),
        }
    }

    /// Skips the body of section `name` (e.g. `$NodeData`) up to and including its end marker.
    pub(crate) fn skip_section(&mut self, name: &str) -> Result<(), MeshError> {
        let end_marker = format!("$End{}", &name[1..]);
        let here = self.here();
        while let Some((_, line)) = self.next_line() {
            if line.trim_ascii() == end_marker.as_bytes() {
                return Ok(());
            }
        }
        Err(self.syntax(here, format!("{end_marker} closing {name}"), "end of file".into()))
    }

    /// A text line holding one unsigned integer (the MSH 2.2 counts, even in binary files).
    pub(crate) fn count_line(&mut self, what: &str) -> Result<u64, MeshError> {
        let here = self.here();
        let Some((location, line)) = self.next_nonblank_line() else {
            return Err(self.syntax(here, what, "end of file".into()));
        };
        parse_token(line.trim_ascii()).ok_or_else(|| self.syntax(location, what, excerpt(line)))
    }
}

/// Parses an ASCII token as any `FromStr` number.
pub(crate) fn parse_token<T: std::str::FromStr>(token: &[u8]) -> Option<T> {
    std::str::from_utf8(token).ok()?.parse().ok()
}

/// Quotes a piece of input for an error message, cut to a readable length.
pub(crate) fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes.trim_ascii());
    let mut quoted: String = text.chars().take(EXCERPT_CHARS).collect();
    if text.chars().count() > EXCERPT_CHARS {
        quoted.push('…');
    }
    format!("'{quoted}'")
}

/// Caps a pre-allocation asked for by a count in the file: a corrupted count must not allocate
/// more items than the remaining input could possibly describe.
pub(crate) fn capacity(count: u64, remaining_bytes: usize, min_bytes_per_item: usize) -> usize {
    let possible = remaining_bytes / min_bytes_per_item.max(1);
    usize::try_from(count).map_or(possible, |count| count.min(possible))
}
