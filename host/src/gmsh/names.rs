//! The `$PhysicalNames` section (text in both encodings): `dim tag "name"` per line.

use super::builder::MeshBuilder;
use super::cursor::{excerpt, parse_token, Cursor};
use super::error::MeshError;

/// Reads the body of `$PhysicalNames` up to and including `$EndPhysicalNames`.
pub(crate) fn read_physical_names(
    cur: &mut Cursor<'_>,
    builder: &mut MeshBuilder<'_>,
) -> Result<(), MeshError> {
    let count = cur.count_line("number of physical names")?;
    for _ in 0..count {
        let here = cur.here();
        let Some((location, line)) = cur.next_nonblank_line() else {
            return Err(cur.syntax(here, "physical name (dim tag \"name\")", "end of file".into()));
        };
        let (dim, tag, name) =
            split_name_line(line).ok_or_else(|| cur.syntax(location, "dim tag \"name\"", excerpt(line)))?;
        builder.add_physical_name(dim, tag, name);
    }
    cur.expect_line("$EndPhysicalNames")
}

/// Splits `3 1 "beam"` into its dimension (0..=3), tag and unquoted name (which may hold spaces).
fn split_name_line(line: &[u8]) -> Option<(u8, i32, String)> {
    let (dim, rest) = split_token(line)?;
    let (tag, rest) = split_token(rest)?;
    let dim: u8 = parse_token(dim).filter(|&d| d <= 3)?;
    let quoted = rest.trim_ascii();
    let name = quoted.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    Some((dim, parse_token(tag)?, String::from_utf8_lossy(name).into_owned()))
}

/// The first whitespace-separated token of `text` and what follows it.
fn split_token(text: &[u8]) -> Option<(&[u8], &[u8])> {
    let text = text.trim_ascii_start();
    let len = text
        .iter()
        .position(u8::is_ascii_whitespace)
        .unwrap_or(text.len());
    (len > 0).then(|| text.split_at(len))
}
