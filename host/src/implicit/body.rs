//! A flexible body on growable host storage: the kernel's ANCF elements without capacities,
//! its free-coordinate numbering, and the external loads. Built through the kernel's
//! [`FlexMeshBuilder`] so the kernel mesh generators fill it exactly as they fill a kernel model.

use ferrodyn_kernel::ancf::{Material, TetElement, ELEMENT_COORDS, NODE_COORDS};
use ferrodyn_kernel::flex::{element_build_error, Fixity, FlexMeshBuilder};
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::{BuildError, Item, TimeFunction};

/// Marks a coordinate held fixed (not a degree of freedom).
pub const FIXED: usize = usize::MAX;

/// An ANCF flexible body on host storage (reference mesh, material, supports, loads).
#[derive(Clone, Debug)]
pub struct FlexBody {
    material: Material<f64>,
    gravity: Vec3<f64>,
    nodes: Vec<Vec3<f64>>,
    connectivity: Vec<[usize; 4]>,
    elements: Vec<TetElement<f64>>,
    fixity: Vec<Fixity>,
    nodal_force: Vec<Vec3<f64>>,
    load_function: TimeFunction<f64>,
    dof: Vec<[usize; NODE_COORDS]>,
    free: usize,
}

impl FlexMeshBuilder<f64> for FlexBody {
    fn add_node(&mut self, position: Vec3<f64>) -> Result<usize, BuildError> {
        let index = self.nodes.len();
        if !position.is_finite() {
            return Err(BuildError::NonFinite {
                item: Item::Node(index),
            });
        }
        self.nodes.push(position);
        self.fixity.push(Fixity::Free);
        self.nodal_force.push(Vec3::ZERO);
        self.dof.push([FIXED; NODE_COORDS]);
        self.free = 0;
        Ok(index)
    }

    fn add_element(&mut self, nodes: [usize; 4]) -> Result<usize, BuildError> {
        let index = self.elements.len();
        let mut vertices = [Vec3::ZERO; 4];
        for (v, &n) in vertices.iter_mut().zip(&nodes) {
            *v = *self.nodes.get(n).ok_or(BuildError::UnknownNode {
                item: Item::Element(index),
                node: n,
            })?;
        }
        let element = TetElement::new(vertices, &self.material).map_err(|e| element_build_error(index, e))?;
        self.elements.push(element);
        self.connectivity.push(nodes);
        self.free = 0;
        Ok(index)
    }
}

/// The steel cantilever of the implicit benchmarks and profiles: 1 m × 0.1 m × 0.1 m
/// (axis x, centred on y = z = 0), E = 2.1e11 Pa, ν = 0.3, ρ = 7850 kg/m³, St. Venant–
/// Kirchhoff, under gravity −z, clamped at x = 0, meshed into `divisions` boxes; finished.
pub fn steel_cantilever(divisions: [usize; 3]) -> anyhow::Result<FlexBody> {
    let failed = |e: &dyn core::fmt::Debug| anyhow::anyhow!("steel cantilever {divisions:?}: {e:?}");
    let material = Material::st_venant_kirchhoff(2.1e11, 0.3, 7850.0).map_err(|e| failed(&e))?;
    let mut b = FlexBody::new(material, Vec3::new(0.0, 0.0, -9.81));
    ferrodyn_kernel::models::add_box_mesh(
        &mut b,
        Vec3::new(0.0, -0.05, -0.05),
        Vec3::new(1.0, 0.1, 0.1),
        divisions,
    )
    .map_err(|e| failed(&e))?;
    b.fix_plane(0, 0.0, 1e-9, Fixity::ClampedFace { normal_axis: 0 })
        .map_err(|e| failed(&e))?;
    b.finish().map_err(|e| failed(&e))?;
    Ok(b)
}

impl FlexBody {
    /// An empty body of `material` under `gravity` (global, m/s²).
    pub fn new(material: Material<f64>, gravity: Vec3<f64>) -> Self {
        Self {
            material,
            gravity,
            nodes: Vec::new(),
            connectivity: Vec::new(),
            elements: Vec::new(),
            fixity: Vec::new(),
            nodal_force: Vec::new(),
            load_function: TimeFunction::Constant(1.0),
            dof: Vec::new(),
            free: 0,
        }
    }

    /// Holds a node (see [`Fixity`]); nodes attached to rigid bodies are not supported here.
    pub fn fix(&mut self, node: usize, fixity: Fixity) -> Result<(), BuildError> {
        if matches!(fixity, Fixity::Attached | Fixity::AttachedFace { .. }) {
            return Err(BuildError::InvalidParameter {
                item: Item::Node(node),
                reason: "the implicit flexible solver does not support attachment to rigid bodies",
            });
        }
        let slot = self.fixity.get_mut(node).ok_or(BuildError::UnknownNode {
            item: Item::Node(node),
            node,
        })?;
        *slot = fixity;
        self.free = 0;
        Ok(())
    }

    /// Holds every node within `tolerance` of the plane X[axis] = offset; returns how many.
    pub fn fix_plane(
        &mut self,
        axis: usize,
        offset: f64,
        tolerance: f64,
        fixity: Fixity,
    ) -> Result<usize, BuildError> {
        if axis > 2 {
            return Err(BuildError::InvalidParameter {
                item: Item::Material,
                reason: "plane axis must be 0 (X), 1 (Y) or 2 (Z)",
            });
        }
        let held: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| (self.nodes[i].to_array()[axis] - offset).abs() <= tolerance)
            .collect();
        for &i in &held {
            self.fix(i, fixity)?;
        }
        Ok(held.len())
    }

    /// Adds a constant nodal force (global, N), scaled by the load function.
    pub fn add_nodal_force(&mut self, node: usize, force: Vec3<f64>) -> Result<(), BuildError> {
        if !force.is_finite() {
            return Err(BuildError::NonFinite {
                item: Item::Node(node),
            });
        }
        *self.nodal_force.get_mut(node).ok_or(BuildError::UnknownNode {
            item: Item::Node(node),
            node,
        })? += force;
        Ok(())
    }

    /// Scales all nodal forces by f(t) (default 1).
    pub fn set_load_function(&mut self, function: TimeFunction<f64>) -> Result<(), BuildError> {
        function.validate(Item::Material)?;
        self.load_function = function;
        Ok(())
    }

    /// Numbers the free coordinates (node by node, in node order: the sparse factorization
    /// chooses its own fill-reducing ordering). Fails on a node that belongs to no element.
    pub fn finish(&mut self) -> Result<(), BuildError> {
        if !self.gravity.is_finite() {
            return Err(BuildError::NonFinite { item: Item::Ground });
        }
        let mut used = vec![false; self.nodes.len()];
        for el in &self.connectivity {
            for &n in el {
                used[n] = true;
            }
        }
        if let Some(bad) = used.iter().position(|u| !u) {
            return Err(BuildError::InvalidParameter {
                item: Item::Node(bad),
                reason: "node belongs to no element",
            });
        }
        let mut next = 0;
        for (dofs, fixity) in self.dof.iter_mut().zip(&self.fixity) {
            let held = fixity.mask();
            for (c, d) in dofs.iter_mut().enumerate() {
                *d = if held & (1 << c) != 0 {
                    FIXED
                } else {
                    next += 1;
                    next - 1
                };
            }
        }
        self.free = next;
        if next == 0 {
            return Err(BuildError::InvalidParameter {
                item: Item::Material,
                reason: "the flexible body has no free coordinate",
            });
        }
        Ok(())
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
    /// Number of elements.
    pub fn element_count(&self) -> usize {
        self.elements.len()
    }
    /// Number of free coordinates (0 before [`FlexBody::finish`]).
    pub fn dof_count(&self) -> usize {
        self.free
    }
    /// Coordinates per body (12 per node, free or not).
    pub fn coordinate_count(&self) -> usize {
        NODE_COORDS * self.nodes.len()
    }
    /// Reference positions.
    pub fn reference(&self) -> &[Vec3<f64>] {
        &self.nodes
    }
    /// Element nodes.
    pub fn connectivity(&self) -> &[[usize; 4]] {
        &self.connectivity
    }
    /// The kernel elements.
    pub fn elements(&self) -> &[TetElement<f64>] {
        &self.elements
    }
    /// The material.
    pub fn material(&self) -> &Material<f64> {
        &self.material
    }
    /// Gravity (m/s²).
    pub fn gravity(&self) -> Vec3<f64> {
        self.gravity
    }
    /// Free-coordinate number of each node coordinate, or [`FIXED`].
    pub fn dof(&self) -> &[[usize; NODE_COORDS]] {
        &self.dof
    }
    /// Total mass ρV (kg).
    pub fn mass(&self) -> f64 {
        self.elements.iter().map(|e| e.volume()).sum::<f64>() * self.material.density
    }

    /// Reference coordinates of the whole body: r = X, gradients = I.
    pub fn reference_coordinates(&self) -> Vec<f64> {
        let mut q = vec![0.0; self.coordinate_count()];
        for (chunk, p) in q.chunks_exact_mut(NODE_COORDS).zip(&self.nodes) {
            chunk[..3].copy_from_slice(&p.to_array());
            for d in 0..3 {
                chunk[3 * (d + 1) + d] = 1.0;
            }
        }
        q
    }

    /// Free-coordinate numbers of an element's 48 coordinates ([`FIXED`] for held ones).
    pub fn element_dofs(&self, element: usize) -> [usize; ELEMENT_COORDS] {
        let mut out = [FIXED; ELEMENT_COORDS];
        if let Some(nodes) = self.connectivity.get(element) {
            for (chunk, &n) in out.chunks_exact_mut(NODE_COORDS).zip(nodes) {
                chunk.copy_from_slice(&self.dof[n]);
            }
        }
        out
    }

    /// External load at time t per body coordinate (gravity and nodal forces) into `out`.
    pub fn external_force(&self, t: f64, out: &mut [f64]) {
        out.iter_mut().for_each(|v| *v = 0.0);
        let mut q = [0.0; ELEMENT_COORDS];
        for (element, nodes) in self.elements.iter().zip(&self.connectivity) {
            element.gravity_load(self.gravity, &mut q);
            scatter_add(out, nodes, &q);
        }
        let scale = self.load_function.eval(t).value;
        for (chunk, f) in out.chunks_exact_mut(NODE_COORDS).zip(&self.nodal_force) {
            chunk[0] += f.x * scale;
            chunk[1] += f.y * scale;
            chunk[2] += f.z * scale;
        }
    }

    /// Gathers the free coordinates of a per-body vector.
    pub fn gather_free(&self, full: &[f64], free: &mut [f64]) {
        for (dofs, chunk) in self.dof.iter().zip(full.chunks_exact(NODE_COORDS)) {
            for (&d, &x) in dofs.iter().zip(chunk) {
                if let Some(slot) = free.get_mut(d) {
                    *slot = x;
                }
            }
        }
    }

    /// Writes free coordinates into a per-body vector (held coordinates untouched).
    pub fn scatter_free(&self, free: &[f64], full: &mut [f64]) {
        for (dofs, chunk) in self.dof.iter().zip(full.chunks_exact_mut(NODE_COORDS)) {
            for (&d, x) in dofs.iter().zip(chunk.iter_mut()) {
                if let Some(&v) = free.get(d) {
                    *x = v;
                }
            }
        }
    }
}

/// Gathers an element's 48 coordinates from a per-body vector.
pub fn gather(values: &[f64], nodes: &[usize; 4]) -> [f64; ELEMENT_COORDS] {
    let mut out = [0.0; ELEMENT_COORDS];
    for (chunk, &n) in out.chunks_exact_mut(NODE_COORDS).zip(nodes) {
        if let Some(src) = values.get(NODE_COORDS * n..NODE_COORDS * (n + 1)) {
            chunk.copy_from_slice(src);
        }
    }
    out
}

/// Adds an element vector into a per-body vector.
pub fn scatter_add(values: &mut [f64], nodes: &[usize; 4], v: &[f64; ELEMENT_COORDS]) {
    for (chunk, &n) in v.chunks_exact(NODE_COORDS).zip(nodes) {
        if let Some(dst) = values.get_mut(NODE_COORDS * n..NODE_COORDS * (n + 1)) {
            for (d, s) in dst.iter_mut().zip(chunk) {
                *d += *s;
            }
        }
    }
}
