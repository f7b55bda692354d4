//! The flexible body description and its builder.

use super::ordering::{first_coupled_dof, reverse_cuthill_mckee};
use crate::ancf::{ElementError, Material, TetElement, NODE_COORDS};
use crate::math::skyline::{self, SkylineLayout};
use crate::math::Vec3;
use crate::storage::{full, resize, sized, List, Storage};
use crate::time_function::TimeFunction;
use crate::{BuildError, Capacity, Item, Real};

/// Marks a coordinate that is held fixed (not a degree of freedom).
pub const FIXED: usize = usize::MAX;

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

/// One ANCF flexible body (or several, meshes numbered one after the other): reference mesh,
/// the material of each element, boundary conditions, loads, and the factorized consistent
/// mass matrix over the free coordinates, its items kept in the nodes, elements and profile
/// lists of `St`.
pub struct Model<R: Real, St: Storage> {
    /// The material of each element (law, E, ν, ρ, Rayleigh damping): bodies of different
    /// materials can share one model. Kept per element, so no capacity of its own.
    pub(crate) materials: St::Elements<Material<R>>,
    pub(crate) gravity: Vec3<R>,
    pub(crate) nodes: St::Nodes<Vec3<R>>,
    pub(crate) fixity: St::Nodes<Fixity>,
    pub(crate) nodal_force: St::Nodes<Vec3<R>>,
    pub(crate) load_function: TimeFunction<R>,
    pub(crate) connectivity: St::Elements<[usize; 4]>,
    pub(crate) elements: St::Elements<TetElement<R>>,
    /// Free-coordinate number of each node coordinate, or [`FIXED`].
    pub(crate) dof: St::Nodes<[usize; NODE_COORDS]>,
    pub(crate) free: usize,
    pub(crate) first: St::Nodes<[usize; NODE_COORDS]>,
    pub(crate) diag: St::Nodes<[usize; NODE_COORDS]>,
    /// LDLᵀ factor of the free–free mass matrix.
    pub(crate) mass_factor: St::Profile<R>,
}

impl<R: Real, St: Storage> Clone for Model<R, St> {
    fn clone(&self) -> Self {
        Self {
            materials: self.materials.clone(),
            gravity: self.gravity,
            nodes: self.nodes.clone(),
            fixity: self.fixity.clone(),
            nodal_force: self.nodal_force.clone(),
            load_function: self.load_function,
            connectivity: self.connectivity.clone(),
            elements: self.elements.clone(),
            dof: self.dof.clone(),
            free: self.free,
            first: self.first.clone(),
            diag: self.diag.clone(),
            mass_factor: self.mass_factor.clone(),
        }
    }
}

impl<R: Real, St: Storage> core::fmt::Debug for Model<R, St> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("flex::Model")
            .field("material", &self.materials.first())
            .field("gravity", &self.gravity)
            .field("nodes", &self.nodes.len())
            .field("elements", &self.elements.len())
            .field("dof", &self.free)
            .finish()
    }
}

impl<R: Real, St: Storage> Model<R, St> {
    /// Starts a builder for a body of `material` under `gravity` (global, m/s²); the elements
    /// are of `material` until [`Builder::set_material`] says otherwise.
    pub fn builder(material: Material<R>, gravity: Vec3<R>) -> Builder<R, St> {
        Builder {
            material,
            model: Model {
                materials: List::empty(),
                gravity,
                nodes: List::empty(),
                fixity: List::empty(),
                nodal_force: List::empty(),
                load_function: TimeFunction::Constant(R::ONE),
                connectivity: List::empty(),
                elements: List::empty(),
                dof: List::empty(),
                free: 0,
                first: List::empty(),
                diag: List::empty(),
                mass_factor: List::empty(),
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
    /// Coordinates of the body, 12 per node, free or held.
    pub fn coordinate_count(&self) -> usize {
        NODE_COORDS * self.nodes.len()
    }
    /// Reference position of a node.
    pub fn reference(&self, node: usize) -> Option<Vec3<R>> {
        self.nodes.get(node).copied()
    }
    /// Reference positions of every node.
    pub fn references(&self) -> &[Vec3<R>] {
        &self.nodes
    }
    /// The nodes of each element.
    pub fn connectivity(&self) -> &[[usize; 4]] {
        &self.connectivity
    }
    /// The precomputed elements.
    pub fn elements(&self) -> &[TetElement<R>] {
        &self.elements
    }
    /// The material of each element (in element order).
    pub fn materials(&self) -> &[Material<R>] {
        &self.materials
    }
    /// Each element with its nodes and its material, in element order.
    pub fn element_items(&self) -> impl Iterator<Item = (&TetElement<R>, &[usize; 4], &Material<R>)> {
        self.elements
            .iter()
            .zip(self.connectivity.iter())
            .zip(self.materials.iter())
            .map(|((element, nodes), material)| (element, nodes, material))
    }
    /// The material of one element (`None` for an unknown element).
    pub fn element_material(&self, element: usize) -> Option<&Material<R>> {
        self.materials.get(element)
    }
    /// Gravity (global, m/s²).
    pub fn gravity(&self) -> Vec3<R> {
        self.gravity
    }
    /// How each node is held.
    pub fn fixity(&self, node: usize) -> Fixity {
        self.fixity.get(node).copied().unwrap_or(Fixity::Free)
    }
    /// Free-coordinate number of each node coordinate, or [`FIXED`] for a held one; numbered
    /// node by node in reverse Cuthill–McKee order.
    pub fn dof(&self) -> &[[usize; NODE_COORDS]] {
        &self.dof
    }
    /// Free-coordinate numbers of an element's 48 coordinates ([`FIXED`] for held ones).
    pub fn element_dofs(&self, element: usize) -> [usize; crate::ancf::ELEMENT_COORDS] {
        let mut out = [FIXED; crate::ancf::ELEMENT_COORDS];
        if let Some(nodes) = self.connectivity.get(element) {
            for (chunk, &n) in out.chunks_exact_mut(NODE_COORDS).zip(nodes) {
                if let Some(d) = self.dof.get(n) {
                    chunk.copy_from_slice(d);
                }
            }
        }
        out
    }
    /// Total mass Σ ρV: the volumes of each run of elements of one density summed, then
    /// multiplied by it (one run, one material: (Σ V) ρ).
    pub fn mass(&self) -> R {
        let mut total = R::ZERO;
        let mut run: Option<(R, R)> = None;
        for (e, m) in self.elements.iter().zip(self.materials.iter()) {
            run = match run {
                Some((volume, density)) if density == m.density => Some((volume + e.volume(), density)),
                Some((volume, density)) => {
                    total += volume * density;
                    Some((R::ZERO + e.volume(), m.density))
                }
                None => Some((R::ZERO + e.volume(), m.density)),
            };
        }
        if let Some((volume, density)) = run {
            total += volume * density;
        }
        total
    }
    /// Stored entries of the mass-matrix profile (the `PROFILE` capacity this body needs).
    pub fn profile_entries(&self) -> usize {
        self.mass_factor.len()
    }
    pub(crate) fn layout(&self) -> SkylineLayout<'_> {
        SkylineLayout {
            first: &self.first.as_flattened()[..self.free],
            diag: &self.diag.as_flattened()[..self.free],
        }
    }
}

/// Builds a flexible [`Model`], checking every item as it is added.
pub struct Builder<R: Real, St: Storage> {
    model: Model<R, St>,
    /// The material of the elements added next.
    material: Material<R>,
}

/// What mesh generators fill with nodes and tetrahedra: a flexible [`Builder`], or a plain mesh
/// of a host (so a generated mesh is the same wherever it goes).
pub trait MeshBuilder<R> {
    /// Adds a node at its reference position; returns its index.
    fn add_node(&mut self, position: Vec3<R>) -> Result<usize, BuildError>;
    /// Adds a tetrahedron on four existing nodes; returns its index.
    fn add_element(&mut self, nodes: [usize; 4]) -> Result<usize, BuildError>;
}

impl<R: Real, St: Storage> MeshBuilder<R> for Builder<R, St> {
    fn add_node(&mut self, position: Vec3<R>) -> Result<usize, BuildError> {
        Builder::add_node(self, position)
    }
    fn add_element(&mut self, nodes: [usize; 4]) -> Result<usize, BuildError> {
        Builder::add_element(self, nodes)
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

impl<R: Real, St: Storage> Builder<R, St> {
    /// Adds a node at its reference position; returns its index.
    pub fn add_node(&mut self, position: Vec3<R>) -> Result<usize, BuildError> {
        let m = &mut self.model;
        let index = m.nodes.len();
        if !position.is_finite() {
            return Err(BuildError::NonFinite {
                item: Item::Node(index),
            });
        }
        let full = full::<_, St::Nodes<Vec3<R>>>(Capacity::Nodes, index + 1);
        m.nodes.try_push(position).map_err(|_| full)?;
        // Lists of the same capacity as `nodes`: they have room.
        m.fixity.try_push(Fixity::Free).map_err(|_| full)?;
        m.nodal_force.try_push(Vec3::ZERO).map_err(|_| full)?;
        m.dof.try_push([FIXED; NODE_COORDS]).map_err(|_| full)?;
        m.first.try_push([0; NODE_COORDS]).map_err(|_| full)?;
        m.diag.try_push([0; NODE_COORDS]).map_err(|_| full)?;
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
        let error = |e| element_build_error(index, e);
        TetElement::check(vertices).map_err(error)?;
        let full = full::<_, St::Elements<TetElement<R>>>(Capacity::Elements, index + 1);
        // Made in its slot: a large element never passes through the stack.
        m.elements.try_push(TetElement::zero()).map_err(|_| full)?;
        if let Some(element) = m.elements.last_mut() {
            element.set(vertices, &self.material).map_err(error)?;
        }
        // Lists of the same capacity as `elements`: they have room.
        m.connectivity.try_push(nodes).map_err(|_| full)?;
        m.materials.try_push(self.material).map_err(|_| full)?;
        Ok(index)
    }

    /// Makes `material` the material of the elements added from now on (those added before
    /// keep theirs): several bodies of different materials in one model.
    pub fn set_material(&mut self, material: Material<R>) {
        self.material = material;
    }

    /// The material of the elements added next.
    pub fn material(&self) -> &Material<R> {
        &self.material
    }

    /// Holds a node (clamped: position and gradients; pinned: position only).
    pub fn fix(&mut self, node: usize, fixity: Fixity) -> Result<(), BuildError> {
        let slot = self.model.fixity.get_mut(node);
        *slot.ok_or(BuildError::UnknownNode {
            item: Item::Node(node),
            node,
        })? = fixity;
        Ok(())
    }

    /// Holds every node within `tolerance` of the plane X\[axis\] = offset (axis 0, 1, 2 for
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
        let slot = self.model.nodal_force.get_mut(node);
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
    pub fn build(mut self) -> Result<Model<R, St>, BuildError> {
        self.build_in_place()?;
        Ok(self.model)
    }

    /// [`Builder::build`] without moving the model out: it is finished where the builder is
    /// (a `static` on a microcontroller, so that a large model never passes through the stack)
    /// and borrowed from there. Adding items afterwards and building again is allowed.
    pub fn build_in_place(&mut self) -> Result<&Model<R, St>, BuildError> {
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
        let mut order: St::Nodes<usize> = sized(n, 0);
        let mut visited: St::Nodes<bool> = sized(n, false);
        reverse_cuthill_mckee(&m.connectivity, &mut order, &mut visited);
        let mut next = 0;
        for &node in order.iter() {
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
            let first = first_coupled_dof(&m.connectivity, &m.dof, node);
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
        if entries > St::Profile::<R>::capacity() {
            return Err(full::<_, St::Profile<R>>(Capacity::Profile, entries));
        }
        resize(&mut m.mass_factor, entries, R::ZERO);
        assemble_mass(m);
        let free = m.free;
        let layout = SkylineLayout {
            first: &m.first.as_flattened()[..free],
            diag: &m.diag.as_flattened()[..free],
        };
        skyline::factorize(&layout, &mut m.mass_factor).map_err(|_| BuildError::InvalidParameter {
            item: Item::Material,
            reason: "mass matrix is not positive definite",
        })?;
        Ok(&self.model)
    }
}

/// M_ff = Σ_e m_e ⊗ I₃ restricted to free coordinates, into `mass_factor` (unfactorized).
fn assemble_mass<R: Real, St: Storage>(m: &mut Model<R, St>) {
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
