//! The `$MeshFormat` section: version, encoding, data size and the binary endianness marker.

use super::cursor::{excerpt, Cursor};
use super::error::MeshError;
use super::mesh::{MshFormat, MshVersion};

/// Reads `$MeshFormat` ... `$EndMeshFormat` at the start of the input; switches `cur` to
/// binary positions when the file is binary.
pub(crate) fn read_mesh_format(cur: &mut Cursor<'_>) -> Result<MshFormat, MeshError> {
    let here = cur.here();
    match cur.next_nonblank_line() {
        Some((_, line)) if line.trim_ascii() == b"$MeshFormat" => {}
        Some((location, line)) => {
            return Err(cur.syntax(location, "$MeshFormat (is this a Gmsh .msh file?)", excerpt(line)))
        }
        None => return Err(cur.syntax(here, "$MeshFormat", "an empty input".into())),
    }
    let here = cur.here();
    let Some((location, line)) = cur.next_nonblank_line() else {
        return Err(cur.syntax(here, "version, file-type and data-size", "end of file".into()));
    };
    let fields: Vec<&[u8]> = line
        .split(u8::is_ascii_whitespace)
        .filter(|t| !t.is_empty())
        .collect();
    let [version, file_type, data_size] = fields[..] else {
        return Err(cur.syntax(location, "version, file-type and data-size", excerpt(line)));
    };
    let version = match version {
        b"2.2" => MshVersion::V2_2,
        b"4.1" => MshVersion::V4_1,
        _ => {
            let version = String::from_utf8_lossy(version).into_owned();
            return Err(MeshError::UnsupportedVersion {
                at: cur.at(location),
                version,
            });
        }
    };
    let binary = match file_type {
        b"0" => false,
        b"1" => true,
        _ => return Err(cur.syntax(location, "file-type 0 (ASCII) or 1 (binary)", excerpt(file_type))),
    };
    if data_size != b"8" {
        return Err(MeshError::Unsupported {
            at: cur.at(location),
            feature: format!("data-size {} (only 8-byte doubles are read)", excerpt(data_size)),
        });
    }
    if binary {
        cur.set_binary();
        check_endianness(cur)?;
    }
    cur.expect_line("$EndMeshFormat")?;
    Ok(MshFormat { version, binary })
}

/// Checks the binary `int` 1 that follows the format line: it tells the byte order.
fn check_endianness(cur: &mut Cursor<'_>) -> Result<(), MeshError> {
    let location = cur.here();
    let Some(bytes) = cur.take(4) else {
        return Err(cur.syntax(location, "endianness marker (4-byte int 1)", "end of file".into()));
    };
    let mut array = [0; 4];
    array.copy_from_slice(bytes);
    match i32::from_le_bytes(array) {
        1 => Ok(()),
        0x0100_0000 => Err(MeshError::Unsupported {
            at: cur.at(location),
            feature: "big-endian binary data (re-export on a little-endian machine or as ASCII)".into(),
        }),
        other => Err(cur.syntax(location, "endianness marker (4-byte int 1)", format!("{other}"))),
    }
}
