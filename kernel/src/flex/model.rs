//! The flexible body description and its builder.

use super::ordering::{first_coupled_dof, reverse_cuthill_mckee};
use crate::ancf::{ElementError, Material, TetElement, NODE_COORDS};
use crate::math::Vec3;
use crate::skyline::{self, SkylineLayout};
use crate::time_function::TimeFunction;
use crate::{BuildError, Capacity, Item, Real};
use heapless::Vec;

/// Marks a coordinate that is held fixed (not a degree of freedom).
pub(crate) const FIXED: usize = usize::MAX;

/// How a node is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Fixity {
    /// Free.
    Free,
    /// Position fixed, gradients free.
    Pinned,
    /// Position and all three gradients fixed (a node built in on its own).
    Clamped,
    /// Position and the gradients along the plane fixed, the gradient along the plane's
    /// normal axis (0 = X, 1 = Y, 2 = Z) free: a node of a clamped face. A face held at u = 0
    /// has ∂u/∂(in-plane) = 0 but free normal strain; fixing ∂r/∂(normal) too would forbid the
    /// bending strain at the root and stiffen the body by an error of order h.
    ClampedFace {
        /// The axis normal to the face.
        normal_axis: usize,
    },
    /// Position and gradients follow a rigid-body frame (see [`crate::coupled`]): not free in
    /// the flexible body, driven by the body it is attached to.
    Attached,
    /// Position and in-plane gradients follow a rigid-body frame, the gradient along the face
    /// normal stays free: a node of a face attached to a body (see [`Fixity::ClampedFace`]).
    AttachedFace {
        /// The axis normal to the face.
        normal_axis: usize,
    },
}

impl Fixity {
    /// Which of the node's 12 coordinates are held or driven (bit c for coordinate c).
    pub fn mask(self) -> u16 {
        const POSITION: u16 = 0b111;
        match self {
            Fixity::Free => 0,
            Fixity::Pinned => POSITION,
            Fixity::Clamped | Fixity::Attached => 0xFFF,
            Fixity::ClampedFace { normal_axis } | Fixity::AttachedFace { normal_axis } => {
                0xFFF & !(0b111 << (3 + 3 * normal_axis.min(2)))
            }
        }
    }
}

/// One ANCF flexible body: reference mesh, material, boundary conditions, loads, and the
/// factorized consistent mass matrix over the free coordinates.
#[derive(Clone, Debug)]
pub struct FlexModel<R, const NODES: usize, const ELEMENTS: usize, const SKYLINE: usize> {
    pub(crate) material: Material<R>,
    pub(crate) gravity: Vec3<R>,
    pub(crate) nodes: Vec<Vec3<R>, NODES>,
    pub(crate) fixity: [Fixity; NODES],
    pub(crate) nodal_force: [Vec3<R>; NODES],
    pub(crate) load_function: TimeFunction<R>,
    pub(crate) connectivity: Vec<[usize; 4], ELEMENTS>,
    pub(crate) elements: Vec<TetElement<R>, ELEMENTS>,
    /// Free-coordinate number of each node coordinate, or [`FIXED`].
    pub(crate) dof: [[usize; NODE_COORDS]; NODES],
    pub(crate) free: usize,
    pub(crate) first: [[usize; NODE_COORDS]; NODES],
    pub(crate) diag: [[usize; NODE_COORDS]; NODES],
    /// LDLᵀ factor of the free–free mass matrix.
    pub(crate) mass_factor: [R; SKYLINE],
}

impl<R: Real, const N: usize, const E: usize, const S: usize> FlexModel<R, N, E, S> {
    /// Starts a builder for a body of `material` under `gravity` (global, m/s²).
    pub fn builder(material: Material<R>, gravity: Vec3<R>) -> FlexBuilder<R, N, E, S> {
        FlexBuilder {
            model: FlexModel {
                material,
                gravity,
                nodes: Vec::new(),
                fixity: [Fixity::Free; N],
                nodal_force: [Vec3::ZERO; N],
                load_function: TimeFunction::Constant(R::ONE),
                connectivity: Vec::new(),
                elements: Vec::new(),
                dof: [[FIXED; NODE_COORDS]; N],
                free: 0,
                first: [[0; NODE_COORDS]; N],
                diag: [[0; NODE_COORDS]; N],
                mass_factor: [R::ZERO; S],
            },
        }
    }
    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
    /// Number of elements.
    pub fn element_count(&self) -> usize {
        self.elements.len()
    }
    /// Number of free coordinates (degrees of freedom).
    pub fn dof_count(&self) -> usize {
        self.free
    }
    /// Reference position of a node.
    pub fn reference(&self, node: usize) -> Option<Vec3<R>> {
        self.nodes.get(node).copied()
    }
    /// The nodes of each element.
    pub fn connectivity(&self) -> &[[usize; 4]] {
        &self.connectivity
    }
    /// The precomputed elements.
    pub fn elements(&self) -> &[TetElement<R>] {
        &self.elements
    }
    /// The material.
    pub fn material(&self) -> &Material<R> {
        &self.material
    }
    /// How each node is held.
    pub fn fixity(&self, node: usize) -> Fixity {
        self.fixity.get(node).copied().unwrap_or(Fixity::Free)
    }
    /// Total mass ρV.
    pub fn mass(&self) -> R {
        self.elements.iter().fold(R::ZERO, |m, e| m + e.volume()) * self.material.density
    }
    pub(crate) fn layout(&self) -> SkylineLayout<'_> {
        SkylineLayout {
            first: &self.first.as_flattened()[..self.free],
            diag: &self.diag.as_flattened()[..self.free],
        }
    }
}

/// Builds a [`FlexModel`], checking every item as it is added.
pub struct FlexBuilder<R, const N: usize, const E: usize, const S: usize> {
    model: FlexModel<R, N, E, S>,
}

/// A builder that mesh generators fill with nodes and tetrahedra (the kernel's [`FlexBuilder`]
/// and the host's growable flexible bodies build the same mesh through it).
pub trait FlexMeshBuilder<R> {
    /// Adds a node at its reference position; returns its index.
    fn add_node(&mut self, position: Vec3<R>) -> Result<usize, BuildError>;
    /// Adds a tetrahedron on four existing nodes; returns its index.
    fn add_element(&mut self, nodes: [usize; 4]) -> Result<usize, BuildError>;
}

impl<R: Real, const N: usize, const E: usize, const S: usize> FlexMeshBuilder<R> for FlexBuilder<R, N, E, S> {
    fn add_node(&mut self, position: Vec3<R>) -> Result<usize, BuildError> {
        FlexBuilder::add_node(self, position)
    }
    fn add_element(&mut self, nodes: [usize; 4]) -> Result<usize, BuildError> {
        FlexBuilder::add_element(self, nodes)
    }
}

/// Maps an element-construction error to a build error naming the element.
pub fn element_build_error(element: usize, e: ElementError) -> BuildError {
    let item = Item::Element(element);
    match e {
        ElementError::DegenerateElement { .. } => BuildError::InvalidParameter {
            item,
            reason: "degenerate element (zero volume)",
        },
        ElementError::Inverted { .. } => BuildError::InvalidParameter {
            item,
            reason: "inverted element",
        },
        ElementError::InvalidMaterial { reason } => BuildError::InvalidParameter {
            item: Item::Material,
            reason,
        },
    }
}

impl<R: Real, const N: usize, const E: usize, const S: usize> FlexBuilder<R, N, E, S> {
    /// Adds a node at its reference position; returns its index.
    pub fn add_node(&mut self, position: Vec3<R>) -> Result<usize, BuildError> {
        let index = self.model.nodes.len();
        if !position.is_finite() {
            return Err(BuildError::NonFinite {
                item: Item::Node(index),
            });
        }
        self.model
            .nodes
            .push(position)
            .map_err(|_| BuildError::CapacityExceeded {
                capacity: Capacity::Nodes,
                needed: index + 1,
                available: N,
            })?;
        Ok(index)
    }

    /// Adds a tetrahedron on four existing nodes; returns its index.
    pub fn add_element(&mut self, nodes: [usize; 4]) -> Result<usize, BuildError> {
        let m = &mut self.model;
        let index = m.elements.len();
        let mut vertices = [Vec3::ZERO; 4];
        for (v, &n) in vertices.iter_mut().zip(&nodes) {
            *v = *m.nodes.get(n).ok_or(BuildError::UnknownNode {
                item: Item::Element(index),
                node: n,
            })?;
        }
        let element = TetElement::new(vertices, &m.material).map_err(|e| element_build_error(index, e))?;
        let full = BuildError::CapacityExceeded {
            capacity: Capacity::Elements,
            needed: index + 1,
            available: E,
        };
        m.elements.push(element).map_err(|_| full)?;
        m.connectivity.push(nodes).map_err(|_| full)?;
        Ok(index)
    }

    /// Holds a node (clamped: position and gradients; pinned: position only).
    pub fn fix(&mut self, node: usize, fixity: Fixity) -> Result<(), BuildError> {
        let slot = self
            .model
            .fixity
            .get_mut(node)
            .filter(|_| node < self.model.nodes.len());
        *slot.ok_or(BuildError::UnknownNode {
            item: Item::Node(node),
            node,
        })? = fixity;
        Ok(())
    }

    /// Holds every node within `tolerance` of the plane X[axis] = offset (axis 0, 1, 2 for
    /// X, Y, Z) as `fixity` (for a clamped face: `Fixity::ClampedFace { normal_axis: axis }`).
    /// Returns how many nodes were held.
    pub fn fix_plane(
        &mut self,
        axis: usize,
        offset: R,
        tolerance: R,
        fixity: Fixity,
    ) -> Result<usize, BuildError> {
        if axis > 2 {
            return Err(BuildError::InvalidParameter {
                item: Item::Material,
                reason: "plane axis must be 0 (X), 1 (Y) or 2 (Z)",
            });
        }
        let mut count = 0;
        for (f, x) in self.model.fixity.iter_mut().zip(self.model.nodes.iter()) {
            if (x.to_array()[axis] - offset).abs() <= tolerance {
                *f = fixity;
                count += 1;
            }
        }
        Ok(count)
    }

    /// Applies a constant nodal force (global), scaled by the body's load function.
    pub fn add_nodal_force(&mut self, node: usize, force: Vec3<R>) -> Result<(), BuildError> {
        if !force.is_finite() {
            return Err(BuildError::NonFinite {
                item: Item::Node(node),
            });
        }
        let count = self.model.nodes.len();
        let slot = self.model.nodal_force.get_mut(node).filter(|_| node < count);
        *slot.ok_or(BuildError::UnknownNode {
            item: Item::Node(node),
            node,
        })? += force;
        Ok(())
    }

    /// Scales all nodal forces by f(t) (default 1).
    pub fn load_function(&mut self, function: TimeFunction<R>) -> Result<(), BuildError> {
        function.validate(Item::Material)?;
        self.model.load_function = function;
        Ok(())
    }

    /// Orders the nodes, numbers the free coordinates, assembles and factorizes the mass matrix.
    pub fn build(mut self) -> Result<FlexModel<R, N, E, S>, BuildError> {
        let m = &mut self.model;
        if !m.gravity.is_finite() {
            return Err(BuildError::NonFinite { item: Item::Ground });
        }
        let n = m.nodes.len();
        if let Some(bad) = (0..n).find(|i| !m.connectivity.iter().any(|el| el.contains(i))) {
            return Err(BuildError::InvalidParameter {
                item: Item::Node(bad),
                reason: "node belongs to no element",
            });
        }
        // Number free coordinates node by node in reverse Cuthill–McKee order: a narrow profile.
        let mut order = [0usize; N];
        let mut visited = [false; N];
        reverse_cuthill_mckee(&m.connectivity, &mut order[..n], &mut visited[..n]);
        let mut next = 0;
        for &node in &order[..n] {
            let held = m.fixity[node].mask();
            for (c, d) in m.dof[node].iter_mut().enumerate() {
                *d = if held & (1 << c) != 0 {
                    FIXED
                } else {
                    next += 1;
                    next - 1
                };
            }
        }
        m.free = next;
        // Profile: row r of a node's coordinates starts at the smallest coupled number.
        let mut entries = 0;
        for node in 0..n {
            let first = first_coupled_dof(&m.connectivity, &m.dof[..n], node);
            for c in 0..NODE_COORDS {
                let r = m.dof[node][c];
                if r != FIXED {
                    m.first[r / NODE_COORDS][r % NODE_COORDS] = first.unwrap_or(r).min(r);
                }
            }
        }
        for r in 0..m.free {
            let f = m.first[r / NODE_COORDS][r % NODE_COORDS];
            entries += r - f;
            m.diag[r / NODE_COORDS][r % NODE_COORDS] = entries;
            entries += 1;
        }
        if entries > S {
            return Err(BuildError::CapacityExceeded {
                capacity: Capacity::SkylineEntries,
                needed: entries,
                available: S,
            });
        }
        assemble_mass(m);
        let free = m.free;
        let layout = SkylineLayout {
            first: &m.first.as_flattened()[..free],
            diag: &m.diag.as_flattened()[..free],
        };
        skyline::factorize(&layout, &mut m.mass_factor[..entries]).map_err(|_| {
            BuildError::InvalidParameter {
                item: Item::Material,
                reason: "mass matrix is not positive definite",
            }
        })?;
        Ok(self.model)
    }
}

/// M_ff = Σ_e m_e ⊗ I₃ restricted to free coordinates, into `mass_factor` (unfactorized).
fn assemble_mass<R: Real, const N: usize, const E: usize, const S: usize>(m: &mut FlexModel<R, N, E, S>) {
    for v in m.mass_factor.iter_mut() {
        *v = R::ZERO;
    }
    let layout = SkylineLayout {
        first: &m.first.as_flattened()[..m.free],
        diag: &m.diag.as_flattened()[..m.free],
    };
    for (element, nodes) in m.elements.iter().zip(m.connectivity.iter()) {
        let mass = element.scalar_mass();
        // Shape function k = 4·(local node) + d; its coordinate for component i is 3d + i.
        for (k, row) in mass.iter().enumerate() {
            for (l, &mkl) in row.iter().enumerate() {
                for i in 0..3 {
                    let r = m.dof[nodes[k / 4]][3 * (k % 4) + i];
                    let c = m.dof[nodes[l / 4]][3 * (l % 4) + i];
                    if r != FIXED && c != FIXED && c <= r {
                        m.mass_factor[layout.index(r, c)] += mkl;
                    }
                }
            }
        }
    }
}
