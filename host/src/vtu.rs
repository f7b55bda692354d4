//! VTK XML output for ParaView: tetrahedral meshes as ASCII `.vtu` files (VTK
//! UnstructuredGrid) and `.pvd` collections that make a time series of them.
//!
//! Numbers are written in Rust's shortest round-trip form, so a reader parsing them with a
//! correctly rounded `strtod` gets the same `f64` bits back. Inputs are validated before
//! anything is written (node indices in range, field lengths, finite values, names that need no
//! XML escaping), and files are written to a temporary name and renamed into place, so a viewer
//! watching the directory never sees half a file.

use std::fmt::{self, Write as _};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The VTK cell type code of a linear tetrahedron (`VTK_TETRA`).
pub const VTK_TETRA: u8 = 10;

/// A tetrahedral mesh to write: point coordinates and the four point indices of each cell.
#[derive(Debug, Clone, Copy)]
pub struct VtuMesh<'a> {
    /// Point coordinates (usually current positions), one per node.
    pub points: &'a [[f64; 3]],
    /// Point indices of each tetrahedron (0-based, written as given: see [`positively_oriented`]).
    pub tets: &'a [[usize; 4]],
}

/// The values of a [`Field`]: one scalar or one 3-vector per point (or per cell).
#[derive(Debug, Clone, Copy)]
pub enum FieldValues<'a> {
    /// One number per item, e.g. a von Mises stress or an element index.
    Scalar(&'a [f64]),
    /// One 3-vector per item, e.g. displacement or velocity.
    Vector(&'a [[f64; 3]]),
}

impl FieldValues<'_> {
    /// Number of items (points or cells) the values cover.
    pub fn len(&self) -> usize {
        match self {
            Self::Scalar(v) => v.len(),
            Self::Vector(v) => v.len(),
        }
    }
    /// True when there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Number of components per item (1 or 3).
    pub fn components(&self) -> usize {
        match self {
            Self::Scalar(_) => 1,
            Self::Vector(_) => 3,
        }
    }
}

/// A named data array attached to the points or to the cells of a [`VtuMesh`].
#[derive(Debug, Clone, Copy)]
pub struct Field<'a> {
    /// Name shown in ParaView; must be non-empty and free of `<>&"'` and control characters.
    pub name: &'a str,
    /// The values, one per point or cell.
    pub values: FieldValues<'a>,
}

impl<'a> Field<'a> {
    /// A scalar field.
    pub fn scalar(name: &'a str, values: &'a [f64]) -> Self {
        Self {
            name,
            values: FieldValues::Scalar(values),
        }
    }
    /// A 3-vector field.
    pub fn vector(name: &'a str, values: &'a [[f64; 3]]) -> Self {
        Self {
            name,
            values: FieldValues::Vector(values),
        }
    }
}

/// Whether a field lives on the points or on the cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attachment {
    /// `PointData`: one value per point.
    Point,
    /// `CellData`: one value per cell.
    Cell,
}

impl fmt::Display for Attachment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Point => "point",
            Self::Cell => "cell",
        })
    }
}

/// Everything that can stop a `.vtu` or `.pvd` file from being written.
#[derive(Debug, thiserror::Error)]
pub enum VtuError {
    /// Creating, writing or renaming the file failed.
    #[error("{}: cannot write: {source}", path.display())]
    Io {
        /// The file being written.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A tetrahedron refers to a point that does not exist.
    #[error("cell {cell}: point index {index} is out of range (the mesh has {points} points)")]
    PointOutOfRange {
        /// The cell (tetrahedron) index.
        cell: usize,
        /// The offending point index.
        index: usize,
        /// Number of points in the mesh.
        points: usize,
    },
    /// A tetrahedron lists the same point twice (a degenerate cell ParaView cannot draw).
    #[error("cell {cell}: point {index} appears more than once in {nodes:?}")]
    RepeatedPoint {
        /// The cell (tetrahedron) index.
        cell: usize,
        /// The repeated point index.
        index: usize,
        /// The cell's four point indices.
        nodes: [usize; 4],
    },
    /// A point coordinate is NaN or infinite.
    #[error("point {point}: coordinate {axis} is {value}")]
    NonFinitePoint {
        /// The point index.
        point: usize,
        /// 0, 1 or 2 for x, y, z.
        axis: usize,
        /// The offending value.
        value: f64,
    },
    /// A field's name is empty or holds characters that would need XML escaping.
    #[error("{attachment} field {name:?}: a name must be non-empty without <>&\"' or control characters")]
    BadFieldName {
        /// The rejected name.
        name: String,
        /// Point or cell field.
        attachment: Attachment,
    },
    /// Two fields on the same attachment have the same name.
    #[error("{attachment} field {name:?} is given twice")]
    DuplicateField {
        /// The repeated name.
        name: String,
        /// Point or cell field.
        attachment: Attachment,
    },
    /// A field does not have one value per point (or per cell).
    #[error("{attachment} field {name:?}: {found} values, expected {expected}")]
    FieldLength {
        /// The field name.
        name: String,
        /// Point or cell field.
        attachment: Attachment,
        /// Number of points or cells.
        expected: usize,
        /// Number of values given.
        found: usize,
    },
    /// A field value is NaN or infinite.
    #[error("{attachment} field {name:?}: item {item}, component {component} is {value}")]
    NonFiniteField {
        /// The field name.
        name: String,
        /// Point or cell field.
        attachment: Attachment,
        /// The point or cell index.
        item: usize,
        /// The component (0 for scalars).
        component: usize,
        /// The offending value.
        value: f64,
    },
    /// A `.pvd` entry has a time that is NaN or infinite.
    #[error("collection entry {entry}: time is {time}")]
    NonFiniteTime {
        /// The entry index.
        entry: usize,
        /// The offending time.
        time: f64,
    },
    /// A `.pvd` entry names no file, or a name that would need XML escaping.
    #[error("collection entry {entry}: file name {file:?} is empty or holds <>&\"' or control characters")]
    BadFileName {
        /// The entry index.
        entry: usize,
        /// The rejected file name.
        file: String,
    },
}

/// Writes `mesh` with its point and cell fields as an ASCII VTK UnstructuredGrid (`.vtu`).
pub fn write_vtu(
    path: &Path,
    mesh: &VtuMesh,
    point_fields: &[Field],
    cell_fields: &[Field],
) -> Result<(), VtuError> {
    validate_mesh(mesh)?;
    validate_fields(point_fields, Attachment::Point, mesh.points.len())?;
    validate_fields(cell_fields, Attachment::Cell, mesh.tets.len())?;
    write_atomically(path, |out| write_vtu_xml(out, mesh, point_fields, cell_fields))
}

/// Writes a `.pvd` collection: one `(time, file name)` per step, names relative to the
/// `.pvd` file's directory. ParaView opens it as one time-dependent data set.
pub fn write_pvd<S: AsRef<str>>(path: &Path, entries: &[(f64, S)]) -> Result<(), VtuError> {
    for (entry, (time, file)) in entries.iter().enumerate() {
        if !time.is_finite() {
            return Err(VtuError::NonFiniteTime { entry, time: *time });
        }
        if !is_plain_xml_text(file.as_ref()) {
            return Err(VtuError::BadFileName {
                entry,
                file: file.as_ref().to_string(),
            });
        }
    }
    write_atomically(path, |out| {
        writeln!(out, r#"<?xml version="1.0"?>"#)?;
        writeln!(
            out,
            r#"<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">"#
        )?;
        writeln!(out, "  <Collection>")?;
        for (time, file) in entries {
            writeln!(
                out,
                r#"    <DataSet timestep="{time:?}" group="" part="0" file="{}"/>"#,
                file.as_ref()
            )?;
        }
        writeln!(out, "  </Collection>")?;
        writeln!(out, "</VTKFile>")
    })
}

/// The tets with nodes 1 and 2 swapped wherever the signed volume over `reference` is negative,
/// so every cell has VTK's positive orientation (outward face normals, positive volumes in
/// ParaView filters). Pass reference positions: a deformed state may itself be inverted.
pub fn positively_oriented(reference: &[[f64; 3]], tets: &[[usize; 4]]) -> Result<Vec<[usize; 4]>, VtuError> {
    validate_mesh(&VtuMesh {
        points: reference,
        tets,
    })?;
    Ok(tets
        .iter()
        .map(|&t| {
            let mut t = t;
            if crate::gmsh::signed_volume(t.map(|i| reference[i])) < 0.0 {
                t.swap(1, 2);
            }
            t
        })
        .collect())
}

fn validate_mesh(mesh: &VtuMesh) -> Result<(), VtuError> {
    for (point, p) in mesh.points.iter().enumerate() {
        if let Some(axis) = p.iter().position(|v| !v.is_finite()) {
            return Err(VtuError::NonFinitePoint {
                point,
                axis,
                value: p[axis],
            });
        }
    }
    let points = mesh.points.len();
    for (cell, nodes) in mesh.tets.iter().enumerate() {
        for (k, &index) in nodes.iter().enumerate() {
            if index >= points {
                return Err(VtuError::PointOutOfRange { cell, index, points });
            }
            if nodes[..k].contains(&index) {
                return Err(VtuError::RepeatedPoint {
                    cell,
                    index,
                    nodes: *nodes,
                });
            }
        }
    }
    Ok(())
}

fn validate_fields(fields: &[Field], attachment: Attachment, expected: usize) -> Result<(), VtuError> {
    for (i, field) in fields.iter().enumerate() {
        let name = || field.name.to_string();
        if !is_plain_xml_text(field.name) {
            return Err(VtuError::BadFieldName {
                name: name(),
                attachment,
            });
        }
        if fields[..i].iter().any(|f| f.name == field.name) {
            return Err(VtuError::DuplicateField {
                name: name(),
                attachment,
            });
        }
        if field.values.len() != expected {
            let found = field.values.len();
            return Err(VtuError::FieldLength {
                name: name(),
                attachment,
                expected,
                found,
            });
        }
        let bad = match field.values {
            FieldValues::Scalar(v) => v.iter().position(|x| !x.is_finite()).map(|i| (i, 0, v[i])),
            FieldValues::Vector(v) => v
                .iter()
                .enumerate()
                .find_map(|(i, x)| x.iter().position(|c| !c.is_finite()).map(|c| (i, c, x[c]))),
        };
        if let Some((item, component, value)) = bad {
            return Err(VtuError::NonFiniteField {
                name: name(),
                attachment,
                item,
                component,
                value,
            });
        }
    }
    Ok(())
}

/// True for non-empty text that can go into an XML attribute without escaping.
fn is_plain_xml_text(s: &str) -> bool {
    !s.is_empty()
        && !s
            .chars()
            .any(|c| c.is_control() || matches!(c, '<' | '>' | '&' | '"' | '\''))
}

/// Writes through a buffered temporary file next to `path`, then renames it into place.
fn write_atomically(
    path: &Path,
    body: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<(), VtuError> {
    let io = |source| VtuError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    let result = File::create(&tmp).and_then(|file| {
        let mut out = BufWriter::new(file);
        body(&mut out)?;
        // Flush only: the rename is for readers, not crash durability (fsync per step is slow).
        out.flush()
    });
    match result.and_then(|()| std::fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(source) => {
            // Best effort: do not leave a partial temporary file behind.
            let _ = std::fs::remove_file(&tmp);
            Err(io(source))
        }
    }
}

fn write_vtu_xml(
    out: &mut impl Write,
    mesh: &VtuMesh,
    point_fields: &[Field],
    cell_fields: &[Field],
) -> std::io::Result<()> {
    writeln!(out, r#"<?xml version="1.0"?>"#)?;
    writeln!(
        out,
        r#"<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
    )?;
    writeln!(out, "  <UnstructuredGrid>")?;
    writeln!(
        out,
        r#"    <Piece NumberOfPoints="{}" NumberOfCells="{}">"#,
        mesh.points.len(),
        mesh.tets.len()
    )?;
    write_field_section(out, "PointData", point_fields)?;
    write_field_section(out, "CellData", cell_fields)?;

    writeln!(out, "      <Points>")?;
    let coords = mesh.points.iter().map(|p| p.as_slice());
    write_array(out, "Float64", "Points", 3, coords.map(format_reals))?;
    writeln!(out, "      </Points>")?;

    writeln!(out, "      <Cells>")?;
    let connectivity = mesh.tets.iter().map(|t| join(t.iter()));
    write_array(out, "Int64", "connectivity", 1, connectivity)?;
    let offsets = (1..=mesh.tets.len()).map(|i| (4 * i).to_string());
    write_array(out, "Int64", "offsets", 1, offsets)?;
    let types = mesh.tets.iter().map(|_| VTK_TETRA.to_string());
    write_array(out, "UInt8", "types", 1, types)?;
    writeln!(out, "      </Cells>")?;

    writeln!(out, "    </Piece>")?;
    writeln!(out, "  </UnstructuredGrid>")?;
    writeln!(out, "</VTKFile>")
}

/// A `PointData` or `CellData` element; the first scalar and vector fields become the active
/// ones, so ParaView colours by them without a click.
fn write_field_section(out: &mut impl Write, tag: &str, fields: &[Field]) -> std::io::Result<()> {
    let mut open = format!("      <{tag}");
    let first = |n: usize| fields.iter().find(|f| f.values.components() == n);
    if let Some(f) = first(1) {
        let _ = write!(open, r#" Scalars="{}""#, f.name);
    }
    if let Some(f) = first(3) {
        let _ = write!(open, r#" Vectors="{}""#, f.name);
    }
    writeln!(out, "{open}>")?;
    for field in fields {
        let components = field.values.components();
        match field.values {
            FieldValues::Scalar(v) => {
                let lines = v.iter().map(|x| format_reals(std::slice::from_ref(x)));
                write_array(out, "Float64", field.name, components, lines)?;
            }
            FieldValues::Vector(v) => {
                let lines = v.iter().map(|x| format_reals(x));
                write_array(out, "Float64", field.name, components, lines)?;
            }
        }
    }
    writeln!(out, "      </{tag}>")
}

/// One `DataArray`, one item per line.
fn write_array(
    out: &mut impl Write,
    vtk_type: &str,
    name: &str,
    components: usize,
    lines: impl Iterator<Item = String>,
) -> std::io::Result<()> {
    writeln!(
        out,
        r#"        <DataArray type="{vtk_type}" Name="{name}" NumberOfComponents="{components}" format="ascii">"#
    )?;
    for line in lines {
        writeln!(out, "          {line}")?;
    }
    writeln!(out, "        </DataArray>")
}

/// Shortest round-trip form; `Debug` (not `Display`) switches to exponent notation for very
/// large or small magnitudes instead of printing hundreds of digits.
fn format_reals(values: &[f64]) -> String {
    join(values.iter().map(|v| format!("{v:?}")))
}

fn join<T: fmt::Display>(items: impl Iterator<Item = T>) -> String {
    let mut s = String::new();
    for (i, item) in items.enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{item}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const POINTS: [[f64; 3]; 4] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    const TETS: [[usize; 4]; 1] = [[0, 1, 2, 3]];

    fn mesh() -> VtuMesh<'static> {
        VtuMesh {
            points: &POINTS,
            tets: &TETS,
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ferrodyn-vtu-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn shortest_round_trip_numbers_parse_back_to_the_same_bits() {
        for v in [
            0.1,
            -0.0,
            1.0 / 3.0,
            1e-300,
            6.02214076e23,
            f64::MIN_POSITIVE,
            f64::MAX,
            5e-324,
        ] {
            let s = format_reals(&[v]);
            assert!(s.len() < 30, "{s}");
            assert_eq!(s.parse::<f64>().unwrap().to_bits(), v.to_bits(), "{s}");
        }
    }

    #[test]
    fn writes_a_single_tet_with_cells_and_active_fields() {
        let path = scratch("one.vtu");
        let disp = [[0.5, 0.0, 0.0]; 4];
        let ids = [0.0];
        write_vtu(
            &path,
            &mesh(),
            &[Field::vector("displacement", &disp)],
            &[Field::scalar("element", &ids)],
        )
        .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(r#"<Piece NumberOfPoints="4" NumberOfCells="1">"#));
        assert!(text.contains(r#"<PointData Vectors="displacement">"#));
        assert!(text.contains(r#"<CellData Scalars="element">"#));
        assert!(text.contains("          0 1 2 3\n"));
        assert!(
            text.contains("          4\n"),
            "offset of the end of the first cell"
        );
        assert!(text.contains("          10\n"), "VTK_TETRA");
        assert!(!path.with_file_name("one.vtu.tmp").exists());
    }

    #[test]
    fn rejects_out_of_range_and_repeated_points_naming_the_cell() {
        let path = scratch("bad.vtu");
        let tets = [[0, 1, 2, 3], [0, 1, 2, 4]];
        let err = write_vtu(
            &path,
            &VtuMesh {
                points: &POINTS,
                tets: &tets,
            },
            &[],
            &[],
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                VtuError::PointOutOfRange {
                    cell: 1,
                    index: 4,
                    points: 4
                }
            ),
            "{err}"
        );
        let tets = [[0, 1, 1, 3]];
        let err = write_vtu(
            &path,
            &VtuMesh {
                points: &POINTS,
                tets: &tets,
            },
            &[],
            &[],
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                VtuError::RepeatedPoint {
                    cell: 0,
                    index: 1,
                    ..
                }
            ),
            "{err}"
        );
        assert!(!path.exists());
    }

    #[test]
    fn rejects_bad_fields_naming_the_field_and_item() {
        let path = scratch("bad_field.vtu");
        let short = [1.0; 3];
        let err = write_vtu(&path, &mesh(), &[Field::scalar("p", &short)], &[]).unwrap_err();
        assert!(
            matches!(&err, VtuError::FieldLength { name, attachment: Attachment::Point, expected: 4, found: 3 } if name == "p"),
            "{err}"
        );
        let mut v = [[0.0; 3]; 4];
        v[2][1] = f64::NAN;
        let err = write_vtu(&path, &mesh(), &[Field::vector("velocity", &v)], &[]).unwrap_err();
        assert!(
            matches!(&err, VtuError::NonFiniteField { name, item: 2, component: 1, .. } if name == "velocity"),
            "{err}"
        );
        let ids = [0.0];
        let err = write_vtu(&path, &mesh(), &[], &[Field::scalar("a<b", &ids)]).unwrap_err();
        assert!(
            matches!(
                err,
                VtuError::BadFieldName {
                    attachment: Attachment::Cell,
                    ..
                }
            ),
            "{err}"
        );
        let err = write_vtu(
            &path,
            &mesh(),
            &[],
            &[Field::scalar("id", &ids), Field::scalar("id", &ids)],
        )
        .unwrap_err();
        assert!(matches!(err, VtuError::DuplicateField { .. }), "{err}");
        let mut points = POINTS;
        points[3][2] = f64::INFINITY;
        let err = write_vtu(
            &path,
            &VtuMesh {
                points: &points,
                tets: &TETS,
            },
            &[],
            &[],
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                VtuError::NonFinitePoint {
                    point: 3,
                    axis: 2,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn inverted_tets_are_reoriented_against_the_reference() {
        let tets = [[0, 1, 2, 3], [0, 2, 1, 3]];
        let oriented = positively_oriented(&POINTS, &tets).unwrap();
        assert_eq!(oriented, [[0, 1, 2, 3], [0, 1, 2, 3]]);
        let err = positively_oriented(&POINTS, &[[0, 1, 2, 9]]).unwrap_err();
        assert!(
            matches!(
                err,
                VtuError::PointOutOfRange {
                    cell: 0,
                    index: 9,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn pvd_lists_times_and_files_and_rejects_nan_times() {
        let path = scratch("series.pvd");
        write_pvd(&path, &[(0.0, "step_0.vtu"), (0.1, "step_1.vtu")]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(r#"<DataSet timestep="0.1" group="" part="0" file="step_1.vtu"/>"#),
            "{text}"
        );
        let err = write_pvd(&path, &[(f64::NAN, "x.vtu")]).unwrap_err();
        assert!(matches!(err, VtuError::NonFiniteTime { entry: 0, .. }), "{err}");
        let err = write_pvd(&path, &[(0.0, String::new())]).unwrap_err();
        assert!(matches!(err, VtuError::BadFileName { entry: 0, .. }), "{err}");
    }

    #[test]
    fn io_errors_name_the_path() {
        let path = std::env::temp_dir()
            .join("ferrodyn-no-such-dir-xyz")
            .join("a.vtu");
        let err = write_vtu(&path, &mesh(), &[], &[]).unwrap_err();
        assert!(err.to_string().contains("ferrodyn-no-such-dir-xyz"), "{err}");
    }
}
