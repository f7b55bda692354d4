//! Bounds on what the host reads: every input file is read through [`read_capped`], so a path
//! to `/dev/zero` or a runaway file ends in an error naming the file's kind and the cap
//! instead of filling the memory.

use std::io::Read;
use std::path::Path;

/// Largest scene file read (bytes): scenes are hand-written tables; 16 MiB is 10⁵ bodies.
pub const SCENE_FILE_LIMIT: u64 = 16 << 20;
/// Largest Gmsh mesh read (bytes): 1 GiB holds about 10⁷ tetrahedra in ASCII.
pub const MESH_FILE_LIMIT: u64 = 1 << 30;
/// Largest OBJ contact mesh read (bytes).
pub const OBJ_FILE_LIMIT: u64 = 256 << 20;

/// Reads the file at `path` if it holds at most `limit` bytes; `kind` ("scene files") names
/// the limit in the error.
pub fn read_capped(path: &Path, limit: u64, kind: &str) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("larger than {}, the limit of {kind}", bytes_text(limit)),
        ));
    }
    Ok(bytes)
}

/// [`read_capped`] as UTF-8 text.
pub fn read_text_capped(path: &Path, limit: u64, kind: &str) -> std::io::Result<String> {
    String::from_utf8(read_capped(path, limit, kind)?)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// "16 MiB", "1 GiB", "6.4 GB": a size for a message.
pub fn bytes_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1_000_000_000 => format!("{:.1} GB", b as f64 / 1e9),
        b if b >= 1_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_file_is_cut_at_the_limit() {
        let e = read_capped(Path::new("/dev/zero"), 1 << 10, "scene files").unwrap_err();
        assert_eq!(e.to_string(), "larger than 1024 bytes, the limit of scene files");
    }

    #[test]
    fn sizes_are_written_in_their_unit() {
        assert_eq!(bytes_text(SCENE_FILE_LIMIT), "16 MiB");
        assert_eq!(bytes_text(MESH_FILE_LIMIT), "1 GiB");
        assert_eq!(bytes_text(6_442_450_944), "6 GiB");
        assert_eq!(bytes_text(6_400_000_000), "6.4 GB");
    }
}
