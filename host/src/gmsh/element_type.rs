//! The Gmsh element types: node count, dimension and name of each type number.

/// What this reader needs to know about one Gmsh element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ElementType {
    /// Gmsh's type number (4 = 4-node tetrahedron).
    pub(crate) number: i32,
    /// Nodes per element: needed to read binary data and MSH 4.1 element lines.
    pub(crate) nodes: usize,
    /// Topological dimension: the physical-group dimension of MSH 2.2 elements.
    pub(crate) dim: u8,
    /// Gmsh's name, for messages.
    pub(crate) name: &'static str,
}

/// The linear tetrahedron, the only volume element the reader keeps.
pub(crate) const TET4: i32 = 4;

/// Gmsh element types 1..=31, 92 and 93 (the Gmsh reference manual, "MSH file format").
const TYPES: &[(i32, usize, u8, &str)] = &[
    (1, 2, 1, "2-node line"),
    (2, 3, 2, "3-node triangle"),
    (3, 4, 2, "4-node quadrangle"),
    (4, 4, 3, "4-node tetrahedron"),
    (5, 8, 3, "8-node hexahedron"),
    (6, 6, 3, "6-node prism"),
    (7, 5, 3, "5-node pyramid"),
    (8, 3, 1, "3-node second order line"),
    (9, 6, 2, "6-node second order triangle"),
    (10, 9, 2, "9-node second order quadrangle"),
    (11, 10, 3, "10-node second order tetrahedron"),
    (12, 27, 3, "27-node second order hexahedron"),
    (13, 18, 3, "18-node second order prism"),
    (14, 14, 3, "14-node second order pyramid"),
    (15, 1, 0, "1-node point"),
    (16, 8, 2, "8-node second order quadrangle"),
    (17, 20, 3, "20-node second order hexahedron"),
    (18, 15, 3, "15-node second order prism"),
    (19, 13, 3, "13-node second order pyramid"),
    (20, 9, 2, "9-node third order incomplete triangle"),
    (21, 10, 2, "10-node third order triangle"),
    (22, 12, 2, "12-node fourth order incomplete triangle"),
    (23, 15, 2, "15-node fourth order triangle"),
    (24, 15, 2, "15-node fifth order incomplete triangle"),
    (25, 21, 2, "21-node fifth order triangle"),
    (26, 4, 1, "4-node third order line"),
    (27, 5, 1, "5-node fourth order line"),
    (28, 6, 1, "6-node fifth order line"),
    (29, 20, 3, "20-node third order tetrahedron"),
    (30, 35, 3, "35-node fourth order tetrahedron"),
    (31, 56, 3, "56-node fifth order tetrahedron"),
    (92, 64, 3, "64-node third order hexahedron"),
    (93, 125, 3, "125-node fourth order hexahedron"),
];

/// Linear volume elements that are not tetrahedra (they come from recombination or extrusion).
const LINEAR_NON_TET_VOLUMES: [i32; 3] = [5, 6, 7];

impl ElementType {
    /// The type with Gmsh number `number`, if known.
    pub(crate) fn from_number(number: i32) -> Option<ElementType> {
        TYPES
            .iter()
            .find(|t| t.0 == number)
            .map(|&(number, nodes, dim, name)| ElementType {
                number,
                nodes,
                dim,
                name,
            })
    }

    /// Why a volume element other than the linear tet is refused, and how to get a usable mesh;
    /// `None` for the tet itself and for elements of lower dimension (those are only counted).
    pub(crate) fn rejection_hint(&self) -> Option<&'static str> {
        if self.dim < 3 || self.number == TET4 {
            None
        } else if LINEAR_NON_TET_VOLUMES.contains(&self.number) {
            Some("mesh the volume with tetrahedra only (no Recombine, no extrusion layers)")
        } else {
            Some("re-mesh with first-order elements (`gmsh -3 -order 1`)")
        }
    }
}
