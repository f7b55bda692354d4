//! Binary records: little-endian `int` (4 bytes), `size_t` and `double` (8 bytes).
//!
//! The header's endianness marker has been checked to be 1 in little-endian order before these
//! are read, and the data size to be 8.

use super::cursor::Cursor;
use super::error::{Location, MeshError};
use super::records::Records;

/// Reads records from the binary data of a `.msh` file.
pub(crate) struct BinaryRecords<'a> {
    cur: Cursor<'a>,
}

impl<'a> BinaryRecords<'a> {
    /// Records read from `cur`, which must already be in binary mode.
    pub(crate) fn new(cur: Cursor<'a>) -> Self {
        BinaryRecords { cur }
    }

    /// The next `N` bytes, or a truncation error naming the field.
    fn bytes<const N: usize>(&mut self, what: &str, kind: &str) -> Result<[u8; N], MeshError> {
        let location = self.location();
        match self.cur.take(N) {
            Some(bytes) => {
                let mut array = [0; N];
                array.copy_from_slice(bytes);
                Ok(array)
            }
            None => Err(self.cur.syntax(
                location,
                format!("{what} ({kind})"),
                format!("end of file ({} bytes left)", self.cur.remaining()),
            )),
        }
    }
}

impl<'a> Records<'a> for BinaryRecords<'a> {
    fn cursor(&mut self) -> &mut Cursor<'a> {
        &mut self.cur
    }

    fn cursor_ref(&self) -> &Cursor<'a> {
        &self.cur
    }

    fn begin(&mut self, _what: &str) -> Result<(), MeshError> {
        Ok(())
    }

    fn int(&mut self, what: &str) -> Result<i32, MeshError> {
        self.bytes(what, "4-byte int").map(i32::from_le_bytes)
    }

    fn size(&mut self, what: &str) -> Result<u64, MeshError> {
        self.bytes(what, "8-byte size_t").map(u64::from_le_bytes)
    }

    fn float(&mut self, what: &str) -> Result<f64, MeshError> {
        let location = self.location();
        let value = f64::from_le_bytes(self.bytes(what, "8-byte double")?);
        if value.is_finite() {
            Ok(value)
        } else {
            Err(self
                .cur
                .syntax(location, format!("{what} (a finite number)"), format!("{value}")))
        }
    }

    fn fields_left(&self) -> Option<usize> {
        None
    }

    fn end(&mut self) -> Result<(), MeshError> {
        Ok(())
    }

    fn location(&self) -> Location {
        self.cur.here()
    }
}
