//! The committed meshes in `meshes/` (made by real Gmsh) read and look right.

use std::path::{Path, PathBuf};

use crate::gmsh::{read_msh, Mesh};

fn meshes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../meshes")
}

fn read(name: &str) -> Mesh {
    read_msh(&meshes_dir().join(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// Checks what every committed mesh must satisfy and that `names` are groups of it.
fn check(mesh: &Mesh, names: &[&str]) {
    assert!(mesh.nodes().len() >= 4);
    assert!(!mesh.tets().is_empty());
    for name in names {
        let group = mesh.group_by_name(name).unwrap_or_else(|| panic!("group {name}"));
        assert!(!group.nodes.is_empty(), "group {name} has nodes");
    }
    // Every tet is positive or reported as inverted.
    let inverted: Vec<usize> = mesh.report().inverted_tets.iter().map(|t| t.index).collect();
    for i in 0..mesh.tets().len() {
        assert!(mesh.tet_volume(i) > 0.0 || inverted.contains(&i), "tet {i}");
    }
    // The volume group holds every tet.
    let all: Vec<usize> = (0..mesh.tets().len()).collect();
    assert_eq!(mesh.tets_of_group(names[0]), Some(all.as_slice()));
}

/// Sum of tet volumes after fixing orientation.
fn volume(mut mesh: Mesh) -> f64 {
    mesh.fix_orientation();
    (0..mesh.tets().len()).map(|i| mesh.tet_volume(i)).sum()
}

/// Nodes of group `name` all satisfy `on_plane`.
fn group_on(mesh: &Mesh, name: &str, on_plane: impl Fn([f64; 3]) -> bool) {
    let nodes = mesh.nodes_of_group(name).expect("group");
    assert!(nodes.iter().all(|&i| on_plane(mesh.nodes()[i])), "{name}");
}

#[test]
fn every_committed_mesh_reads() {
    let mut count = 0;
    for entry in std::fs::read_dir(meshes_dir()).expect("meshes/") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "msh") {
            let mesh = read_msh(&path).unwrap_or_else(|e| panic!("{e}"));
            assert!(!mesh.tets().is_empty(), "{}", path.display());
            count += 1;
        }
    }
    assert!(count >= 4, "found {count} .msh files");
}

#[test]
fn beam_meshes() {
    for name in ["beam_coarse.msh", "beam_medium.msh"] {
        let mesh = read(name);
        check(&mesh, &["beam", "clamp", "tip"]);
        group_on(&mesh, "clamp", |p| p[0].abs() < 1e-12);
        group_on(&mesh, "tip", |p| (p[0] - 1.0).abs() < 1e-12);
        // 1 m × 0.1 m × 0.1 m: the tets fill the box exactly (planar faces).
        assert!((volume(mesh) - 0.01).abs() < 1e-12, "{name}");
    }
    assert!(read("beam_medium.msh").tets().len() > read("beam_coarse.msh").tets().len());
}

#[test]
fn cube_meshes_in_22_ascii_and_41_binary_agree() {
    let ascii = read("cube_22.msh");
    let binary = read("cube_41_bin.msh");
    for mesh in [&ascii, &binary] {
        check(mesh, &["cube", "bottom", "top"]);
        group_on(mesh, "bottom", |p| p[2].abs() < 1e-12);
        group_on(mesh, "top", |p| (p[2] - 1.0).abs() < 1e-12);
    }
    assert!(binary.report().format.binary && !ascii.report().format.binary);
    assert_eq!(ascii.nodes().len(), binary.nodes().len());
    assert_eq!(ascii.tets().len(), binary.tets().len());
    assert!((volume(ascii) - 1.0).abs() < 1e-12);
}
