//! MuJoCo's binary mesh format `.msh` (dm_control's fruit fly ships its meshes so): a header
//! of four little-endian `i32` counts — vertices, normals, texture coordinates, faces — then
//! the vertices (3 `f32` each), normals (3 `f32`), texture coordinates (2 `f32`) and faces (3
//! `i32` vertex indices). The sizes are checked as MuJoCo checks them: at least 4 vertices,
//! normals and texture coordinates absent or one per vertex, the file exactly that long.

/// Vertices and faces (none: MuJoCo takes the convex hull's).
pub type MshMesh = (Vec<[f32; 3]>, Vec<[u32; 3]>);

/// Parses `.msh` bytes; the error says what is wrong.
pub fn parse_msh(bytes: &[u8]) -> Result<MshMesh, String> {
    let word = |k: usize| -> [u8; 4] { [bytes[4 * k], bytes[4 * k + 1], bytes[4 * k + 2], bytes[4 * k + 3]] };
    if bytes.len() < 16 {
        return Err("shorter than the 16-byte header".into());
    }
    let counts = [0, 1, 2, 3].map(|k| i32::from_le_bytes(word(k)));
    let [nv, nn, nt, nf] = counts;
    if nv < 4 || nn < 0 || nt < 0 || nf < 0 || (nn > 0 && nn != nv) || (nt > 0 && nt != nv) {
        return Err(format!(
            "invalid sizes in the header: {nv} vertices, {nn} normals, {nt} texture coordinates, {nf} faces"
        ));
    }
    let [nv, nn, nt, nf] = counts.map(|c| c as u64);
    let expected = 16 + 4 * (3 * nv + 3 * nn + 2 * nt + 3 * nf);
    if bytes.len() as u64 != expected {
        return Err(format!(
            "{} bytes where the header's sizes make {expected}",
            bytes.len()
        ));
    }
    let (nv, nf) = (nv as usize, nf as usize);
    let vertices = (0..nv)
        .map(|i| [0, 1, 2].map(|c| f32::from_le_bytes(word(4 + 3 * i + c))))
        .collect::<Vec<_>>();
    if vertices.iter().flatten().any(|x| !x.is_finite()) {
        return Err("vertex coordinates must be finite".into());
    }
    let first_face = 4 + (3 * nv + 3 * nn as usize + 2 * nt as usize);
    let mut faces = Vec::with_capacity(nf);
    for k in 0..nf {
        let mut face = [0u32; 3];
        for (c, slot) in face.iter_mut().enumerate() {
            let i = i32::from_le_bytes(word(first_face + 3 * k + c));
            *slot = u32::try_from(i)
                .ok()
                .filter(|i| (*i as usize) < nv)
                .ok_or(format!("face {k}: vertex index {i} outside 0..{nv}"))?;
        }
        faces.push(face);
    }
    Ok((vertices, faces))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(counts: [i32; 4], floats: &[f32], faces: &[i32]) -> Vec<u8> {
        let mut b = Vec::new();
        counts.iter().for_each(|c| b.extend(c.to_le_bytes()));
        floats.iter().for_each(|x| b.extend(x.to_le_bytes()));
        faces.iter().for_each(|i| b.extend(i.to_le_bytes()));
        b
    }

    const TETRA: [f32; 12] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

    #[test]
    fn vertices_and_faces_are_read_past_normals_and_texture_coordinates() {
        let mut floats = TETRA.to_vec();
        floats.extend([0.5f32; 12]); // normals
        floats.extend([0.25f32; 8]); // texture coordinates
        let bytes = file([4, 4, 4, 2], &floats, &[0, 2, 1, 0, 1, 3]);
        let (v, f) = parse_msh(&bytes).unwrap();
        assert_eq!(
            v,
            vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        );
        assert_eq!(f, vec![[0, 2, 1], [0, 1, 3]]);
    }

    #[test]
    fn inconsistent_files_are_refused_with_the_reason() {
        assert!(parse_msh(&[0; 8]).unwrap_err().contains("header"));
        assert!(parse_msh(&file([3, 0, 0, 0], &TETRA[..9], &[]))
            .unwrap_err()
            .contains("invalid sizes"));
        assert!(parse_msh(&file([4, 0, 0, 1], &TETRA, &[]))
            .unwrap_err()
            .contains("bytes"));
        assert!(parse_msh(&file([4, 0, 0, 1], &TETRA, &[0, 1, 4]))
            .unwrap_err()
            .contains("outside"));
    }
}
