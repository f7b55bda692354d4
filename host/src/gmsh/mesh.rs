//! The mesh read from a `.msh` file: nodes, linear tetrahedra, physical groups and a report.

use std::collections::HashMap;
use std::fmt;

/// The MSH format version a mesh was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MshVersion {
    /// MSH 2.2 (`-format msh22`): the physical tag is the first element tag.
    V2_2,
    /// MSH 4.1 (`-format msh41`, Gmsh's default): physical tags come from `$Entities`.
    V4_1,
}

/// Version and encoding of the file a mesh was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MshFormat {
    /// MSH version.
    pub version: MshVersion,
    /// True for binary files (`-bin`), false for ASCII.
    pub binary: bool,
}

impl fmt::Display for MshFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let version = match self.version {
            MshVersion::V2_2 => "2.2",
            MshVersion::V4_1 => "4.1",
        };
        write!(
            f,
            "MSH {version} {}",
            if self.binary { "binary" } else { "ASCII" }
        )
    }
}

/// A linear 4-node tetrahedron (Gmsh element type 4).
#[derive(Debug, Clone, PartialEq)]
pub struct Tet {
    /// Indices into [`Mesh::nodes`], in Gmsh's node order (positive volume when well oriented).
    pub nodes: [usize; 4],
    /// The element tag in the file.
    pub element_tag: u64,
    /// The elementary (geometric entity) tag of the volume the element belongs to.
    pub entity_tag: i32,
    /// The tags of the 3-D physical groups the element belongs to (often one, may be none).
    pub physical_tags: Vec<i32>,
}

/// A physical group with the mesh items selected by it.
#[derive(Debug, Clone, PartialEq)]
pub struct PhysicalGroup {
    /// Dimension of the group: 3 for volumes, 2 for surfaces, 1 for curves, 0 for points.
    pub dim: u8,
    /// The physical tag.
    pub tag: i32,
    /// The name from `$PhysicalNames`, if the file gives one.
    pub name: Option<String>,
    /// Indices into [`Mesh::tets`] of the group's tetrahedra (ascending; empty below 3-D).
    pub tets: Vec<usize>,
    /// Indices into [`Mesh::nodes`] of the nodes of all the group's elements, of any type
    /// (ascending, no repeats): a named surface gives the nodes for a boundary condition.
    pub nodes: Vec<usize>,
}

/// A tetrahedron whose signed volume is negative in Gmsh's node order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InvertedTet {
    /// Index into [`Mesh::tets`].
    pub index: usize,
    /// The element tag in the file.
    pub element_tag: u64,
    /// Its signed volume (negative).
    pub volume: f64,
}

/// Elements of one type that were read but not kept (lines, triangles, points...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredElements {
    /// The Gmsh element type number.
    pub element_type: i32,
    /// Gmsh's name of that type.
    pub name: &'static str,
    /// How many elements of that type the file holds.
    pub count: usize,
}

/// What the reader noticed besides the mesh itself.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshReport {
    /// The format the file was written in.
    pub format: MshFormat,
    /// Element types that were counted and dropped, by ascending type number.
    pub ignored_elements: Vec<IgnoredElements>,
    /// Tetrahedra with negative volume; [`Mesh::fix_orientation`] repairs them.
    pub inverted_tets: Vec<InvertedTet>,
    /// Tetrahedra [`Mesh::fix_orientation`] repaired (nodes 1 and 2 swapped).
    pub reoriented_tets: Vec<InvertedTet>,
    /// Tetrahedra listed more than once with the same nodes (MSH 2.2 repeats an element once
    /// per physical group it belongs to); they were merged and their physical tags joined.
    pub merged_duplicate_tets: usize,
}

impl MeshReport {
    /// One human-readable warning per notable fact (ignored types, inverted tets, duplicates).
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings: Vec<String> = self
            .ignored_elements
            .iter()
            .map(|i| {
                format!(
                    "ignored {} elements of type {} ({})",
                    i.count, i.element_type, i.name
                )
            })
            .collect();
        if !self.inverted_tets.is_empty() {
            warnings.push(format!(
                "{} tetrahedra have negative volume in Gmsh node order (Mesh::fix_orientation repairs them): {}",
                self.inverted_tets.len(),
                tet_list(&self.inverted_tets)
            ));
        }
        if !self.reoriented_tets.is_empty() {
            warnings.push(format!(
                "{} tetrahedra had negative volume in Gmsh node order and were reoriented (nodes 1 and 2 swapped): {}",
                self.reoriented_tets.len(),
                tet_list(&self.reoriented_tets)
            ));
        }
        if self.merged_duplicate_tets > 0 {
            warnings.push(format!(
                "merged {} repeated tetrahedra",
                self.merged_duplicate_tets
            ));
        }
        warnings
    }
}

/// "element 9 (tet 0, volume -0.1667), …" for the first ten, with how many more.
fn tet_list(tets: &[InvertedTet]) -> String {
    let shown: Vec<String> = tets
        .iter()
        .take(10)
        .map(|t| {
            format!(
                "element {} (tet {}, volume {:.4e})",
                t.element_tag, t.index, t.volume
            )
        })
        .collect();
    match tets.len() {
        n if n > 10 => format!("{}, and {} more", shown.join(", "), n - 10),
        _ => shown.join(", "),
    }
}

/// A tetrahedral mesh read from a Gmsh `.msh` file.
#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    pub(crate) nodes: Vec<[f64; 3]>,
    pub(crate) node_tags: Vec<u64>,
    pub(crate) node_index: HashMap<u64, usize>,
    pub(crate) tets: Vec<Tet>,
    pub(crate) physical_groups: Vec<PhysicalGroup>,
    pub(crate) report: MeshReport,
}

impl Mesh {
    /// Node coordinates, in the order of `$Nodes`.
    pub fn nodes(&self) -> &[[f64; 3]] {
        &self.nodes
    }

    /// The file's tag of each node (same indexing as [`Mesh::nodes`]; tags may be sparse).
    pub fn node_tags(&self) -> &[u64] {
        &self.node_tags
    }

    /// The index of the node with file tag `tag`.
    pub fn node_index(&self, tag: u64) -> Option<usize> {
        self.node_index.get(&tag).copied()
    }

    /// The linear tetrahedra, in file order.
    pub fn tets(&self) -> &[Tet] {
        &self.tets
    }

    /// All physical groups of any dimension, sorted by (dimension, tag).
    pub fn physical_groups(&self) -> &[PhysicalGroup] {
        &self.physical_groups
    }

    /// The first physical group called `name` (lowest dimension first).
    pub fn group_by_name(&self, name: &str) -> Option<&PhysicalGroup> {
        self.physical_groups
            .iter()
            .find(|g| g.name.as_deref() == Some(name))
    }

    /// The group with dimension `dim` and physical tag `tag`.
    pub fn group(&self, dim: u8, tag: i32) -> Option<&PhysicalGroup> {
        self.physical_groups.iter().find(|g| g.dim == dim && g.tag == tag)
    }

    /// Node indices of the group called `name`: the selection for a boundary condition.
    pub fn nodes_of_group(&self, name: &str) -> Option<&[usize]> {
        self.group_by_name(name).map(|g| g.nodes.as_slice())
    }

    /// Tet indices of the group called `name` (empty for groups below 3-D).
    pub fn tets_of_group(&self, name: &str) -> Option<&[usize]> {
        self.group_by_name(name).map(|g| g.tets.as_slice())
    }

    /// What the reader noticed: format, ignored element types, inverted tets.
    pub fn report(&self) -> &MeshReport {
        &self.report
    }

    /// Signed volume of tet `index` in its current node order.
    pub fn tet_volume(&self, index: usize) -> f64 {
        let [a, b, c, d] = self.tets[index].nodes;
        signed_volume([self.nodes[a], self.nodes[b], self.nodes[c], self.nodes[d]])
    }

    /// Swaps two nodes of every inverted tet so all volumes are positive; returns how many.
    pub fn fix_orientation(&mut self) -> usize {
        let inverted = std::mem::take(&mut self.report.inverted_tets);
        for tet in &inverted {
            self.tets[tet.index].nodes.swap(1, 2);
        }
        let count = inverted.len();
        self.report.reoriented_tets.extend(inverted);
        count
    }
}

/// Signed volume of the tetrahedron (p0, p1, p2, p3): (p1−p0)·((p2−p0)×(p3−p0)) / 6, positive for
/// Gmsh's reference tet (0,0,0), (1,0,0), (0,1,0), (0,0,1).
pub fn signed_volume(p: [[f64; 3]; 4]) -> f64 {
    let edge = |i: usize| [p[i][0] - p[0][0], p[i][1] - p[0][1], p[i][2] - p[0][2]];
    let (u, v, w) = (edge(1), edge(2), edge(3));
    let det = u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
        + u[2] * (v[0] * w[1] - v[1] * w[0]);
    det / 6.0
}
