//! VTU round trips: a Gmsh mesh and a kernel flexible body are written with
//! `ferrodyn_host::vtu`, read back with the small parser below, and compared bit for bit.

use crate::common;

use ferrodyn_host::compile::flexible_model;
use ferrodyn_host::gmsh::{read_msh, signed_volume};
use ferrodyn_host::storage::{FlexModel, Growable};
use ferrodyn_host::vtu::{positively_oriented, write_pvd, write_vtu, Field, VtuMesh, VTK_TETRA};
use ferrodyn_kernel::ancf::Material;
use ferrodyn_kernel::flex::{solve_static, Fixity};
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::samples::add_box_mesh;
use ferrodyn_kernel::Dynamics;
use std::collections::HashMap;
use std::path::Path;

/// One `DataArray` as read back: its attributes and its numbers (still as text, so that
/// integers and reals are each parsed by the caller in their own type).
#[derive(Debug)]
struct Array {
    attributes: HashMap<String, String>,
    values: Vec<String>,
}

/// A parsed `.vtu`: piece sizes and the arrays of each section (`PointData`, `CellData`,
/// `Points`, `Cells`), in file order.
#[derive(Debug, Default)]
struct ReadVtu {
    points: usize,
    cells: usize,
    sections: HashMap<String, Vec<Array>>,
    active: HashMap<String, HashMap<String, String>>,
}

impl ReadVtu {
    fn array(&self, section: &str, name: &str) -> &Array {
        self.sections[section]
            .iter()
            .find(|a| a.attributes.get("Name").map(String::as_str) == Some(name))
            .unwrap_or_else(|| panic!("no {section}/{name}"))
    }
    fn reals(&self, section: &str, name: &str) -> Vec<f64> {
        self.array(section, name)
            .values
            .iter()
            .map(|v| v.parse().unwrap())
            .collect()
    }
    fn integers(&self, section: &str, name: &str) -> Vec<usize> {
        self.array(section, name)
            .values
            .iter()
            .map(|v| v.parse().unwrap())
            .collect()
    }
    fn points(&self) -> Vec<[f64; 3]> {
        let flat: Vec<f64> = self.sections["Points"][0]
            .values
            .iter()
            .map(|v| v.parse().unwrap())
            .collect();
        flat.chunks(3).map(|c| [c[0], c[1], c[2]]).collect()
    }
}

/// Attributes of an XML start tag body such as `DataArray type="Int64" Name="offsets"`.
fn attributes(tag: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut rest = tag;
    while let Some(eq) = rest.find("=\"") {
        let key = rest[..eq].split_whitespace().last().unwrap().to_string();
        let after = &rest[eq + 2..];
        let end = after.find('"').unwrap();
        out.insert(key, after[..end].to_string());
        rest = &after[end + 1..];
    }
    out
}

/// A minimal reader for the ASCII files our writer produces (not a general XML parser).
fn read_vtu(path: &Path) -> ReadVtu {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.starts_with("<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\""));
    let mut out = ReadVtu::default();
    let mut section = String::new();
    let mut rest = text.as_str();
    while let Some(open) = rest.find('<') {
        let close = open + rest[open..].find('>').unwrap();
        let tag = &rest[open + 1..close];
        rest = &rest[close + 1..];
        let name = tag.split_whitespace().next().unwrap_or("");
        match name {
            "Piece" => {
                let a = attributes(tag);
                out.points = a["NumberOfPoints"].parse().unwrap();
                out.cells = a["NumberOfCells"].parse().unwrap();
            }
            "PointData" | "CellData" | "Points" | "Cells" => {
                section = name.to_string();
                out.active.insert(section.clone(), attributes(tag));
                out.sections.entry(section.clone()).or_default();
            }
            "DataArray" => {
                let end = rest.find("</DataArray>").unwrap();
                let values = rest[..end].split_whitespace().map(str::to_string).collect();
                rest = &rest[end + "</DataArray>".len()..];
                let attributes = attributes(tag);
                assert_eq!(attributes["format"], "ascii");
                out.sections
                    .get_mut(&section)
                    .unwrap()
                    .push(Array { attributes, values });
            }
            _ => {}
        }
    }
    out
}

fn assert_same_bits(found: &[f64], expected: impl IntoIterator<Item = f64>, what: &str) {
    let expected: Vec<f64> = expected.into_iter().collect();
    assert_eq!(found.len(), expected.len(), "{what}: length");
    for (i, (f, e)) in found.iter().zip(&expected).enumerate() {
        assert_eq!(f.to_bits(), e.to_bits(), "{what}[{i}]: read {f:?}, wrote {e:?}");
    }
}

/// Checks the `Cells` section against `tets`: connectivity, offsets every 4, all VTK_TETRA.
fn assert_cells(read: &ReadVtu, tets: &[[usize; 4]]) {
    assert_eq!(read.cells, tets.len());
    assert_eq!(read.integers("Cells", "connectivity"), tets.as_flattened());
    let offsets: Vec<usize> = (1..=tets.len()).map(|i| 4 * i).collect();
    assert_eq!(read.integers("Cells", "offsets"), offsets);
    assert!(read
        .integers("Cells", "types")
        .iter()
        .all(|&t| t == usize::from(VTK_TETRA)));
}

#[test]
fn gmsh_beam_round_trips_through_vtu_bit_for_bit() {
    let mesh = read_msh(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../meshes/beam_coarse.msh"
    )))
    .unwrap();
    let tets: Vec<[usize; 4]> = mesh.tets().iter().map(|t| t.nodes).collect();
    // A displacement with awkward digits: a bending shape scaled by 1/3.
    let displacement: Vec<[f64; 3]> = mesh
        .nodes()
        .iter()
        .map(|p| [p[2] / 3.0, -p[0] * 1e-7, (p[0] * p[0]) / 3.0])
        .collect();
    let element: Vec<f64> = (0..tets.len()).map(|i| i as f64).collect();
    let volume: Vec<f64> = (0..tets.len()).map(|i| mesh.tet_volume(i)).collect();
    let dir = common::scratch_dir("outputs", "gmsh");
    let path = dir.join("beam_coarse.vtu");
    write_vtu(
        &path,
        &VtuMesh {
            points: mesh.nodes(),
            tets: &tets,
        },
        &[Field::vector("displacement", &displacement)],
        &[
            Field::scalar("element", &element),
            Field::scalar("volume", &volume),
        ],
    )
    .unwrap();

    let read = read_vtu(&path);
    assert_eq!(read.points, mesh.nodes().len());
    assert_same_bits(
        read.points().as_flattened(),
        mesh.nodes().as_flattened().iter().copied(),
        "points",
    );
    assert_cells(&read, &tets);
    let field = read.array("PointData", "displacement");
    assert_eq!(field.attributes["NumberOfComponents"], "3");
    assert_eq!(field.attributes["type"], "Float64");
    let displacement_read = read.reals("PointData", "displacement");
    assert_same_bits(
        &displacement_read,
        displacement.as_flattened().iter().copied(),
        "displacement",
    );
    assert_same_bits(
        &read.reals("CellData", "element"),
        element.iter().copied(),
        "element",
    );
    assert_same_bits(
        &read.reals("CellData", "volume"),
        volume.iter().copied(),
        "volume",
    );
    assert_eq!(read.active["PointData"]["Vectors"], "displacement");
    assert_eq!(read.active["CellData"]["Scalars"], "element");
}

#[test]
fn kernel_box_body_sagging_under_gravity_round_trips_through_vtu() {
    let material = Material::st_venant_kirchhoff(1e6, 0.3, 1000.0).unwrap();
    // The kernel model on the host's growable storage.
    let mut b = FlexModel::builder(material, Vec3::new(0.0, 0.0, -9.81));
    add_box_mesh(
        &mut b,
        Vec3::new(0.0, -0.05, -0.05),
        Vec3::new(1.0, 0.1, 0.1),
        [2, 1, 1],
    )
    .unwrap();
    b.fix_plane(0, 0.0, 1e-9, Fixity::ClampedFace { normal_axis: 0 })
        .unwrap();
    let model = b.build().unwrap();
    let mut data = model.new_data();
    // A deformed state, so that positions and displacements are not the reference lattice.
    solve_static(&model, &mut data, 1, 1e-12, 20).unwrap();

    let n = model.node_count();
    let xyz = |v: Vec3<f64>| [v.x, v.y, v.z];
    let positions: Vec<[f64; 3]> = (0..n).map(|i| xyz(data.position(i))).collect();
    let references: Vec<[f64; 3]> = (0..n).map(|i| xyz(model.reference(i).unwrap())).collect();
    let displacement: Vec<[f64; 3]> = positions
        .iter()
        .zip(&references)
        .map(|(p, r)| [p[0] - r[0], p[1] - r[1], p[2] - r[2]])
        .collect();
    let tip_sag = displacement.iter().map(|d| d[2]).fold(0.0, f64::min);
    assert!(tip_sag < -1e-6, "the body sags under gravity: {tip_sag}");
    let velocity: Vec<[f64; 3]> = (0..n).map(|i| xyz(data.velocity(i))).collect();
    // The kernel's box mesh is positively oriented, as VTK wants: re-orienting changes nothing.
    let tets = &positively_oriented(&references, model.connectivity()).unwrap();
    let inverted =
        |t: &[[usize; 4]], p: &[[f64; 3]]| t.iter().filter(|t| signed_volume(t.map(|i| p[i])) < 0.0).count();
    assert_eq!(
        inverted(model.connectivity(), &references),
        0,
        "the box mesh has inverted tets"
    );
    assert_eq!(tets.as_slice(), model.connectivity());
    assert_eq!(inverted(tets, &references), 0);
    assert_eq!(inverted(tets, &positions), 0, "the sagged state is not inverted");
    for (t, k) in tets.iter().zip(model.connectivity()) {
        let (mut a, mut b) = (*t, *k);
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b, "same nodes per cell");
    }

    let dir = common::scratch_dir("outputs", "flex");
    let step = dir.join("box_0000.vtu");
    write_vtu(
        &step,
        &VtuMesh {
            points: &positions,
            tets,
        },
        &[
            Field::vector("displacement", &displacement),
            Field::vector("velocity", &velocity),
        ],
        &[],
    )
    .unwrap();
    write_pvd(&dir.join("box.pvd"), &[(0.0, "box_0000.vtu")]).unwrap();

    let read = read_vtu(&step);
    assert_eq!(read.points, n);
    assert_same_bits(
        read.points().as_flattened(),
        positions.as_flattened().iter().copied(),
        "positions",
    );
    assert_cells(&read, tets);
    let displacement_read = read.reals("PointData", "displacement");
    assert_same_bits(
        &displacement_read,
        displacement.as_flattened().iter().copied(),
        "displacement",
    );
    // The model's reference is position − displacement, to rounding, from the file alone.
    let points_read = read.points();
    for (i, r) in references.iter().enumerate() {
        let p = &points_read[i];
        let d = &displacement_read[3 * i..3 * i + 3];
        for k in 0..3 {
            assert!((p[k] - d[k] - r[k]).abs() <= 1e-15, "node {i} axis {k}");
        }
    }
    assert_same_bits(
        &read.reals("PointData", "velocity"),
        velocity.as_flattened().iter().copied(),
        "velocity",
    );
    let pvd = std::fs::read_to_string(dir.join("box.pvd")).unwrap();
    assert!(
        pvd.contains(r#"timestep="0.0" group="" part="0" file="box_0000.vtu""#),
        "{pvd}"
    );
}

#[test]
fn gmsh_mesh_to_kernel_model_to_vtu_matches_the_mesh() {
    // Reference: the Gmsh file itself. meshes/beam_coarse.msh → scenes/cantilever.toml →
    // kernel FlexModel → FlexData positions → VTU: the points read back are the mesh nodes bit
    // for bit and the cells are the mesh's tets (as oriented by the scene loader).
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mesh = read_msh(&root.join("meshes/beam_coarse.msh")).unwrap();
    let scene = ferrodyn_host::scene::Scene::load(&root.join("scenes/cantilever.toml")).unwrap();
    let (model, _) = flexible_model::<Growable>(&scene, std::slice::from_ref(&scene.flexibles[0])).unwrap();
    let data = model.new_data();
    let points: Vec<[f64; 3]> = (0..model.node_count())
        .map(|i| data.position(i).to_array())
        .collect();
    let dir = common::scratch_dir("outputs", "model");
    let path = dir.join("cantilever.vtu");
    write_vtu(
        &path,
        &VtuMesh {
            points: &points,
            tets: model.connectivity(),
        },
        &[],
        &[],
    )
    .unwrap();
    let read = read_vtu(&path);
    assert_eq!(read.points, mesh.nodes().len());
    assert_same_bits(
        read.points().as_flattened(),
        mesh.nodes().as_flattened().iter().copied(),
        "points",
    );
    assert_eq!(model.connectivity().len(), mesh.tets().len());
    for (cell, tet) in model.connectivity().iter().zip(mesh.tets()) {
        let (mut a, mut b) = (*cell, tet.nodes);
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b, "same nodes per tet");
    }
    assert_cells(&read, model.connectivity());
}
