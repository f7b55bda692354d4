//! Gmsh `.msh` reader: MSH 2.2 and 4.1, ASCII and binary, into a linear-tetrahedron [`Mesh`].
//!
//! Made for building ANCF tetrahedral bodies: it keeps 4-node tetrahedra (type 4), the physical
//! groups with their names and, for every group of any dimension, the nodes of its elements (so a
//! boundary condition can select the nodes of a named surface). Lower-dimensional elements are
//! counted in [`MeshReport`] and dropped; higher-order or non-tetrahedral volume elements are an
//! error. Inverted tets are reported, degenerate ones are an error.
//!
//! Malformed input never panics and never makes the reader allocate more than the input could
//! describe: every count read from the file bounds its pre-allocation by the bytes left.
//! Errors name the file and the line (ASCII) or byte offset (binary), see [`MeshError`].
//!
//! ```
//! use ferrodyn_host::gmsh::read_msh;
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../meshes/beam_coarse.msh");
//! let mut mesh = read_msh(path.as_ref())?;
//! for warning in mesh.report().warnings() {
//!     eprintln!("{path}: {warning}"); // e.g. "ignored 52 elements of type 2 (3-node triangle)"
//! }
//! mesh.fix_orientation();
//! let clamped_nodes = mesh.nodes_of_group("clamp").expect("a surface named clamp");
//! assert!(clamped_nodes.iter().all(|&i| mesh.nodes()[i][0] == 0.0));
//! # Ok::<(), ferrodyn_host::gmsh::MeshError>(())
//! ```

mod ascii;
mod binary;
mod builder;
mod cursor;
mod element_type;
mod error;
mod header;
mod mesh;
mod names;
mod records;
mod v22;
mod v41;

#[cfg(test)]
mod tests;

use std::path::Path;

pub use error::{Location, MeshError, SourcePos};
pub use mesh::{
    signed_volume, IgnoredElements, InvertedTet, Mesh, MeshReport, MshFormat, MshVersion, PhysicalGroup, Tet,
};

use ascii::AsciiRecords;
use binary::BinaryRecords;
use builder::MeshBuilder;
use cursor::Cursor;
use records::Records;

/// Reads the `.msh` file at `path`; errors name it as given.
pub fn read_msh(path: &Path) -> Result<Mesh, MeshError> {
    let bytes =
        crate::limits::read_capped(path, crate::limits::MESH_FILE_LIMIT, "mesh files").map_err(|error| {
            MeshError::Io {
                path: path.to_path_buf(),
                error,
            }
        })?;
    parse_msh(&bytes, &path.display().to_string())
}

/// Parses the contents of a `.msh` file; `source_name` names it in errors.
pub fn parse_msh(bytes: &[u8], source_name: &str) -> Result<Mesh, MeshError> {
    let mut cur = Cursor::new(bytes, source_name);
    let format = header::read_mesh_format(&mut cur)?;
    let builder = MeshBuilder::new(source_name, format);
    if format.binary {
        read_sections(BinaryRecords::new(cur), format.version, builder)
    } else {
        read_sections(AsciiRecords::new(cur), format.version, builder)
    }
}

/// Reads the sections after `$MeshFormat`, skipping the ones a mesh does not need.
fn read_sections<'a, R: Records<'a>>(
    mut rec: R,
    version: MshVersion,
    mut builder: MeshBuilder<'_>,
) -> Result<Mesh, MeshError> {
    let (mut nodes_read, mut elements_read) = (false, false);
    while let Some((location, name)) = rec.cursor().next_section()? {
        let at = || rec.cursor_ref().at(location);
        match (name, version) {
            ("$Nodes", _) => {
                first_time(&mut nodes_read, name, at)?;
                match version {
                    MshVersion::V2_2 => v22::read_nodes(&mut rec, &mut builder)?,
                    MshVersion::V4_1 => v41::read_nodes(&mut rec, &mut builder)?,
                }
            }
            ("$Elements", _) => {
                first_time(&mut elements_read, name, at)?;
                match version {
                    MshVersion::V2_2 => v22::read_elements(&mut rec, &mut builder)?,
                    MshVersion::V4_1 => v41::read_elements(&mut rec, &mut builder)?,
                }
            }
            ("$MeshFormat", _) => first_time(&mut true, name, at)?,
            ("$PhysicalNames", _) => names::read_physical_names(rec.cursor(), &mut builder)?,
            ("$Entities", MshVersion::V4_1) => v41::read_entities(&mut rec, &mut builder)?,
            ("$PartitionedEntities", _) => {
                let feature = "a partitioned mesh (save it without partitions)".into();
                return Err(MeshError::Unsupported { at: at(), feature });
            }
            // $Periodic, $NodeData, $Comments...: not needed for a tetrahedral body.
            _ => rec.cursor().skip_section(name)?,
        }
    }
    for (read, section) in [(nodes_read, "$Nodes"), (elements_read, "$Elements")] {
        if !read {
            let at = rec.cursor_ref().at(rec.cursor_ref().here());
            return Err(MeshError::Structure {
                at,
                problem: format!("no {section} section in the file"),
            });
        }
    }
    Ok(builder.finish())
}

/// Marks a section that may appear only once as read; a second one is an error.
fn first_time(seen: &mut bool, name: &str, at: impl FnOnce() -> SourcePos) -> Result<(), MeshError> {
    if std::mem::replace(seen, true) {
        Err(MeshError::Structure {
            at: at(),
            problem: format!("a second {name} section"),
        })
    } else {
        Ok(())
    }
}
