//! Triangle meshes from STL files, binary or ASCII (robot models carry their link meshes so).

use crate::obj::TriangleMesh;
use crate::spec::Invalid;
use std::collections::HashMap;
use std::path::Path;

/// Reads the STL file at `path` (binary or ASCII); errors name the file.
pub fn read_stl(path: &Path) -> Result<TriangleMesh, Invalid> {
    let item = format!("mesh file {}", path.display());
    let bytes = crate::limits::read_capped(path, crate::limits::STL_FILE_LIMIT, "STL meshes")
        .map_err(|e| Invalid::new(&item, format!("cannot read: {e}")))?;
    parse_stl(&bytes).map_err(|reason| Invalid::new(&item, reason))
}

/// Parses STL bytes: binary when the size matches the 84-byte header plus 50 bytes a triangle
/// (an ASCII file may also start with "solid", so the size decides), else ASCII. Corners that
/// repeat bit for bit become one vertex.
pub fn parse_stl(bytes: &[u8]) -> Result<TriangleMesh, String> {
    let corners = match binary_triangle_count(bytes) {
        Some(n) => binary_corners(&bytes[84..], n),
        None => ascii_corners(bytes)?,
    };
    if corners.is_empty() {
        return Err("no triangles".into());
    }
    if corners.iter().flatten().any(|c| !c.is_finite()) {
        return Err("vertex coordinates must be finite".into());
    }
    let mut index: HashMap<[u64; 3], u32> = HashMap::new();
    let mut vertices = Vec::new();
    let mut triangles = Vec::with_capacity(corners.len() / 3);
    for triangle in corners.chunks_exact(3) {
        let mut t = [0u32; 3];
        for (slot, p) in t.iter_mut().zip(triangle) {
            *slot = *index.entry(p.map(f64::to_bits)).or_insert_with(|| {
                vertices.push(*p);
                (vertices.len() - 1) as u32
            });
        }
        triangles.push(t);
    }
    Ok((vertices, triangles))
}

/// The triangle count of a binary STL whose size matches it.
fn binary_triangle_count(bytes: &[u8]) -> Option<usize> {
    let count = u32::from_le_bytes(bytes.get(80..84)?.try_into().ok()?) as usize;
    (bytes.len() == 84 + 50 * count).then_some(count)
}

/// The corners of `count` 50-byte records (normal, three corners, attribute).
fn binary_corners(records: &[u8], count: usize) -> Vec<[f64; 3]> {
    let float = |b: &[u8]| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let mut corners = Vec::with_capacity(3 * count);
    for record in records.chunks_exact(50).take(count) {
        for k in 0..3 {
            let at = 12 + 12 * k;
            corners.push([
                float(&record[at..]),
                float(&record[at + 4..]),
                float(&record[at + 8..]),
            ]);
        }
    }
    corners
}

/// The corners of the `vertex x y z` lines of an ASCII STL, in threes.
fn ascii_corners(bytes: &[u8]) -> Result<Vec<[f64; 3]>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "neither binary (size) nor ASCII STL".to_string())?;
    let mut corners = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        if words.next() != Some("vertex") {
            continue;
        }
        let mut p = [0.0; 3];
        for c in &mut p {
            *c = words
                .next()
                .and_then(|w| w.parse::<f64>().ok())
                .ok_or(format!("line {}: a vertex needs three numbers", n + 1))?;
        }
        corners.push(p);
    }
    if corners.len() % 3 != 0 {
        return Err(format!("{} vertices: not whole triangles", corners.len()));
    }
    Ok(corners)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary(triangles: &[[[f32; 3]; 3]]) -> Vec<u8> {
        let mut b = vec![0u8; 80];
        b.extend((triangles.len() as u32).to_le_bytes());
        for t in triangles {
            b.extend([0u8; 12]);
            for p in t {
                for x in p {
                    b.extend(x.to_le_bytes());
                }
            }
            b.extend([0u8; 2]);
        }
        b
    }

    #[test]
    fn binary_and_ascii_give_the_same_shared_vertices() {
        let t = [
            [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
        ];
        let (v, tri) = parse_stl(&binary(&t)).unwrap();
        assert_eq!(v.len(), 4);
        assert_eq!(tri, vec![[0, 1, 2], [1, 3, 2]]);
        // An ASCII file whose header word is "solid" as binary files often have too.
        let ascii = "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n\
                     facet normal 0 0 1\nouter loop\nvertex 1 0 0\nvertex 1 1 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid x\n";
        assert_eq!(parse_stl(ascii.as_bytes()).unwrap(), (v, tri));
    }

    #[test]
    fn broken_files_are_errors() {
        assert!(parse_stl(b"solid x\nvertex 0 0\n")
            .unwrap_err()
            .contains("three numbers"));
        assert!(parse_stl(b"solid x\nendsolid\n")
            .unwrap_err()
            .contains("no triangles"));
        assert!(parse_stl(&[0xff; 90]).is_err());
    }
}
