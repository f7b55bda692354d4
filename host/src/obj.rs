//! Triangle meshes from Wavefront OBJ files (`v` and `f` records; other records ignored).

use crate::spec::Invalid;
use std::path::Path;

/// Vertices and triangles of a mesh (polygons fanned into triangles).
pub type TriangleMesh = (Vec<[f64; 3]>, Vec<[u32; 3]>);

/// Reads the OBJ file at `path`; errors name the file and line.
pub fn read_obj(path: &Path) -> Result<TriangleMesh, Invalid> {
    let item = format!("mesh file {}", path.display());
    let text = crate::limits::read_text_capped(path, crate::limits::OBJ_FILE_LIMIT, "OBJ files")
        .map_err(|e| Invalid::new(&item, format!("cannot read: {e}")))?;
    parse_obj(&text).map_err(|(line, reason)| Invalid::new(&format!("{item}:{line}"), reason))
}

/// Parses OBJ text; an error carries the 1-based line and what is wrong.
pub fn parse_obj(text: &str) -> Result<TriangleMesh, (usize, String)> {
    let (mut vertices, mut triangles) = (Vec::new(), Vec::new());
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => {
                let mut p = [0.0; 3];
                for c in &mut p {
                    *c = words
                        .next()
                        .and_then(|w| w.parse::<f64>().ok())
                        .filter(|x| x.is_finite())
                        .ok_or((line_no, "a vertex needs three finite coordinates".to_string()))?;
                }
                vertices.push(p);
            }
            Some("f") => {
                let mut corners = Vec::new();
                for w in words {
                    // "i", "i/t" or "i/t/n": the vertex index comes first; negative counts back.
                    let first = w.split('/').next().unwrap_or("");
                    let i: i64 = first
                        .parse()
                        .map_err(|_| (line_no, format!("bad vertex index \"{w}\"")))?;
                    let index = if i > 0 { i - 1 } else { vertices.len() as i64 + i };
                    if i == 0 || index < 0 || index >= vertices.len() as i64 {
                        return Err((
                            line_no,
                            format!("vertex index {i} outside 1..={}", vertices.len()),
                        ));
                    }
                    corners.push(index as u32);
                }
                if corners.len() < 3 {
                    return Err((line_no, "a face needs at least three vertices".to_string()));
                }
                for k in 1..corners.len() - 1 {
                    triangles.push([corners[0], corners[k], corners[k + 1]]);
                }
            }
            _ => {}
        }
    }
    if triangles.is_empty() {
        return Err((text.lines().count().max(1), "no faces".to_string()));
    }
    Ok((vertices, triangles))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quads_are_fanned_and_indices_resolved() {
        let (v, t) =
            parse_obj("# square\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1 -1//1\n")
                .unwrap();
        assert_eq!(v.len(), 4);
        assert_eq!(t, vec![[0, 1, 2], [0, 2, 3]]);
    }

    #[test]
    fn errors_carry_the_line() {
        assert_eq!(parse_obj("v 0 0 0\nv 1 0\n").unwrap_err().0, 2);
        let (line, why) = parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n").unwrap_err();
        assert_eq!(line, 4);
        assert!(why.contains("outside"), "{why}");
        assert!(parse_obj("v 0 0 0\n").unwrap_err().1.contains("no faces"));
        assert!(parse_obj("v 0 0 0\nv 1 0 0\nf 1 2\n")
            .unwrap_err()
            .1
            .contains("three"));
    }
}
