//! One ANCF tetrahedral element: precomputed data and the element routines (mass, gravity,
//! elastic force, strain energy, tangent stiffness), all on fixed-size arrays.
//!
//! Coordinates: `e[12 n + 3 d + i]` is component i of the nodal vector d of node n, with
//! d = 0: r, 1: ∂r/∂X, 2: ∂r/∂Y, 3: ∂r/∂Z. Writing k = 4n + d, `e[3k + i]` is component i of
//! the k-th nodal vector e_k and r(X) = Σ_k s_k(X) e_k, so F = ∂r/∂X = Σ_k e_k ⊗ ∇s_k.

use super::material::{Material, MaterialPoint};
use super::quadrature::{FORCE_POINTS, FORCE_RULE, MASS_RULE};
use super::shape::{TetShape, SHAPE_FUNCTIONS};
use super::ElementError;
use crate::math::{Mat3, Vec3};
use crate::Real;

/// Coordinates per node: r (3) and the three gradient vectors (9).
pub const NODE_COORDS: usize = 12;
/// Coordinates per element: 4 nodes × 12.
pub const ELEMENT_COORDS: usize = 48;

/// Precomputed data of one ANCF tetrahedron (what the element routines need, nothing more).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TetElement<R> {
    /// ∇s_k (physical) at each force quadrature point.
    pub(super) gradients: [[[R; 3]; SHAPE_FUNCTIONS]; FORCE_POINTS],
    /// Quadrature weight × volume at each force quadrature point.
    pub(super) weights: [R; FORCE_POINTS],
    /// Scalar consistent mass m = ∫ ρ s sᵀ dV (M_e = m ⊗ I₃).
    mass: [[R; SHAPE_FUNCTIONS]; SHAPE_FUNCTIONS],
    /// ∫ ρ s dV (the gravity load is this ⊗ g).
    load: [R; SHAPE_FUNCTIONS],
    /// Reference volume.
    volume: R,
    /// Reference vertices: strains are formed from the displacement from the reference
    /// coordinates (r = X at the vertices, gradients = I).
    vertices: [[R; 3]; 4],
    /// The vertices less their centroid, computed in f64 (see [`RotationSplit`]).
    offsets: [[R; 3]; 4],
}

/// Whether a flexible body works against its own rounding: in f32. There the displacements
/// carry their rounding, each stage hands its rounding to the forces, and the strain is formed
/// from the rotation split ([`RotationSplit`]). f64 keeps the plain sums (and the bits of its
/// references): its rounding is 5·10⁸ times smaller.
pub(crate) fn compensated<R: Real>() -> bool {
    R::BYTES == 4
}

/// The 12 coordinates of a node in the undeformed reference at `x`: r = X, gradients = I.
pub fn node_reference_coordinates<R: Real>(x: Vec3<R>) -> [R; NODE_COORDS] {
    let mut e = [R::ZERO; NODE_COORDS];
    e[..3].copy_from_slice(&x.to_array());
    for d in 0..3 {
        e[3 * (d + 1) + d] = R::ONE;
    }
    e
}

/// The 48 coordinates of the undeformed reference: r = X at the vertices, gradients = I.
pub fn reference_coordinates<R: Real>(vertices: &[Vec3<R>; 4]) -> [R; ELEMENT_COORDS] {
    let mut e = [R::ZERO; ELEMENT_COORDS];
    for (chunk, p) in e.chunks_exact_mut(NODE_COORDS).zip(vertices) {
        chunk.copy_from_slice(&node_reference_coordinates(*p));
    }
    e
}

impl<R: Real> TetElement<R> {
    /// Precomputes an element from its reference vertices; ρ is taken from `material`.
    pub fn new(vertices: [Vec3<R>; 4], material: &Material<R>) -> Result<Self, ElementError> {
        let mut element = Self::zero();
        element.set(vertices, material)?;
        Ok(element)
    }

    /// All zeros: a slot for [`TetElement::set`].
    pub(crate) fn zero() -> Self {
        Self {
            gradients: [[[R::ZERO; 3]; SHAPE_FUNCTIONS]; FORCE_POINTS],
            weights: [R::ZERO; FORCE_POINTS],
            mass: [[R::ZERO; SHAPE_FUNCTIONS]; SHAPE_FUNCTIONS],
            load: [R::ZERO; SHAPE_FUNCTIONS],
            volume: R::ZERO,
            vertices: [[R::ZERO; 3]; 4],
            offsets: [[R::ZERO; 3]; 4],
        }
    }

    /// Checks the vertices as [`TetElement::new`] does (degenerate, inverted).
    pub(crate) fn check(vertices: [Vec3<R>; 4]) -> Result<(), ElementError> {
        TetShape::new(vertices).map(|_| ())
    }

    /// [`TetElement::new`] in place (an element in a model's list is large in f64: it is
    /// computed where it is kept, not on the stack and copied). Unchanged on an error.
    ///
    /// The tables are computed in f64 and rounded once: the basis comes from a 20×20 solve,
    /// which in f32 left the shape-function gradients wrong by up to 1e-5 relative, a stiffness
    /// that is not the f64 model's (f32 positions drifted 20 times further from f64).
    pub(crate) fn set(&mut self, vertices: [Vec3<R>; 4], material: &Material<R>) -> Result<(), ElementError> {
        if compensated::<R>() {
            // Slivers are judged at the precision the element will be evaluated in.
            Self::check(vertices)?;
        }
        let wide = vertices.map(|v| Vec3::from_array(v.to_array().map(R::to_f64)));
        let shape = TetShape::<f64>::new(wide)?;
        let volume = shape.volume();
        let rho = material.density.to_f64();

        let mut mass = [[0.0; SHAPE_FUNCTIONS]; SHAPE_FUNCTIONS];
        let mut load = [0.0; SHAPE_FUNCTIONS];
        for (p, w) in MASS_RULE.points.iter().zip(MASS_RULE.weights.iter()) {
            let s = shape.values(shape.point(*p));
            let wv = *w * volume * rho;
            for k in 0..SHAPE_FUNCTIONS {
                load[k] += wv * s[k];
                for l in k..SHAPE_FUNCTIONS {
                    mass[k][l] += wv * s[k] * s[l];
                }
            }
        }
        // Mirror the upper triangle: exactly symmetric, as m ⊗ I₃ is assumed to be.
        for k in 1..SHAPE_FUNCTIONS {
            let (upper, lower) = mass.split_at_mut(k);
            for (l, row_l) in upper.iter().enumerate() {
                lower[0][l] = row_l[k];
            }
        }
        self.mass = mass.map(|row| row.map(R::from_f64));
        self.load = load.map(R::from_f64);
        for (q, (p, w)) in FORCE_RULE
            .points
            .iter()
            .zip(FORCE_RULE.weights.iter())
            .enumerate()
        {
            self.gradients[q] = shape.gradients(shape.point(*p)).map(|g| g.map(R::from_f64));
            self.weights[q] = R::from_f64(*w * volume);
        }
        let centroid = (wide[0] + wide[1] + wide[2] + wide[3]).scale(0.25);
        self.offsets = wide.map(|v| (v - centroid).to_array().map(R::from_f64));
        self.volume = R::from_f64(volume);
        self.vertices = vertices.map(|v| v.to_array());
        Ok(())
    }

    /// Nodal displacements u = e − e_ref: the strain of a body at rest is then exactly zero,
    /// and small strains keep their relative precision (see [`Material::evaluate_displacement_gradient`]).
    fn displacement(&self, e: &[R; ELEMENT_COORDS]) -> [R; ELEMENT_COORDS] {
        let mut u = *e;
        for (node, x) in u.chunks_exact_mut(NODE_COORDS).zip(self.vertices.iter()) {
            for i in 0..3 {
                node[i] -= x[i];
                node[3 * (i + 1) + i] -= R::ONE;
            }
        }
        u
    }

    /// Reference volume.
    pub fn volume(&self) -> R {
        self.volume
    }

    /// The scalar consistent mass matrix m = ∫ ρ s sᵀ dV; the 48×48 mass is M_e = m ⊗ I₃.
    pub fn scalar_mass(&self) -> &[[R; SHAPE_FUNCTIONS]; SHAPE_FUNCTIONS] {
        &self.mass
    }

    /// ∫ ρ s dV, the scalar consistent load of a unit body-force acceleration.
    pub fn scalar_load(&self) -> &[R; SHAPE_FUNCTIONS] {
        &self.load
    }

    /// `out = M_e a` for the 48×48 consistent mass matrix.
    pub fn mass_times(&self, a: &[R; ELEMENT_COORDS], out: &mut [R; ELEMENT_COORDS]) {
        for k in 0..SHAPE_FUNCTIONS {
            for i in 0..3 {
                let mut s = R::ZERO;
                for l in 0..SHAPE_FUNCTIONS {
                    s += self.mass[k][l] * a[3 * l + i];
                }
                out[3 * k + i] = s;
            }
        }
    }

    /// Consistent gravity load ∫ ρ s dV ⊗ g (48) for the acceleration of gravity `g`.
    pub fn gravity_load(&self, g: Vec3<R>, out: &mut [R; ELEMENT_COORDS]) {
        let g = g.to_array();
        for k in 0..SHAPE_FUNCTIONS {
            for i in 0..3 {
                out[3 * k + i] = self.load[k] * g[i];
            }
        }
    }

    /// Deformation gradients F = Σ_k e_k ⊗ ∇s_k at the force quadrature points.
    pub fn deformation_gradients(&self, e: &[R; ELEMENT_COORDS], out: &mut [Mat3<R>; FORCE_POINTS]) {
        let u = self.split(&self.displacement(e), None);
        for (f, grads) in out.iter_mut().zip(self.gradients.iter()) {
            *f = u.at(grads).0 + Mat3::IDENTITY;
        }
    }

    /// Second Piola–Kirchhoff stresses at the force quadrature points.
    pub fn stresses(
        &self,
        material: &Material<R>,
        e: &[R; ELEMENT_COORDS],
        out: &mut [Mat3<R>; FORCE_POINTS],
    ) -> Result<(), ElementError> {
        let u = self.split(&self.displacement(e), None);
        for (qp, (s, grads)) in out.iter_mut().zip(self.gradients.iter()).enumerate() {
            *s = material_point(material, grads, &u, qp)?.1.stress;
        }
        Ok(())
    }

    /// Strain energy U = ∫ W dV.
    pub fn strain_energy(&self, material: &Material<R>, e: &[R; ELEMENT_COORDS]) -> Result<R, ElementError> {
        let u = self.split(&self.displacement(e), None);
        let mut energy = R::ZERO;
        for (qp, (w, grads)) in self.weights.iter().zip(self.gradients.iter()).enumerate() {
            energy += *w * material_point(material, grads, &u, qp)?.1.energy;
        }
        Ok(energy)
    }

    /// Generalized elastic force Q_e = −∫ (∂E/∂e)ᵀ : S dV = −∂U/∂e (48).
    pub fn elastic_force(
        &self,
        material: &Material<R>,
        e: &[R; ELEMENT_COORDS],
        q: &mut [R; ELEMENT_COORDS],
    ) -> Result<(), ElementError> {
        self.elastic_force_from_displacement(material, &self.displacement(e), None, q)
    }

    /// [`TetElement::elastic_force`] from the nodal displacements u = e − e_ref (r − X at the
    /// vertices, gradients − I) instead of the coordinates: what a state that holds
    /// displacements (the flexible body's) hands over, without forming e. `low`: what rounding
    /// left out of u, if known (u + low is the displacement to twice the working precision; in
    /// f32 the flexible body's state carries it).
    pub fn elastic_force_from_displacement(
        &self,
        material: &Material<R>,
        u: &[R; ELEMENT_COORDS],
        low: Option<&[R; ELEMENT_COORDS]>,
        q: &mut [R; ELEMENT_COORDS],
    ) -> Result<(), ElementError> {
        let u = self.split(u, low);
        *q = [R::ZERO; ELEMENT_COORDS];
        for (qp, (w, grads)) in self.weights.iter().zip(self.gradients.iter()).enumerate() {
            let (f, point) = material_point(material, grads, &u, qp)?;
            add_force(*w, grads, &f.mul_mat(&point.stress), q);
        }
        Ok(())
    }

    /// Stiffness-proportional (Kelvin–Voigt) damping force −∫ (∂E/∂e)ᵀ : (β ∂S/∂E : Ė) dV for
    /// the coordinate rates `ed`, Ė = sym(Fᵀ Ḟ): the β K ė term of Rayleigh damping with the
    /// material part of the current tangent. Zero when β = 0.
    pub fn damping_force(
        &self,
        material: &Material<R>,
        e: &[R; ELEMENT_COORDS],
        ed: &[R; ELEMENT_COORDS],
        q: &mut [R; ELEMENT_COORDS],
    ) -> Result<(), ElementError> {
        self.damping_force_from_displacement(material, &self.displacement(e), None, ed, q)
    }

    /// [`TetElement::damping_force`] from the nodal displacements u = e − e_ref (and their
    /// `low` parts, as [`TetElement::elastic_force_from_displacement`] takes them) and the
    /// rates `ed` (= u̇).
    pub fn damping_force_from_displacement(
        &self,
        material: &Material<R>,
        u: &[R; ELEMENT_COORDS],
        low: Option<&[R; ELEMENT_COORDS]>,
        ed: &[R; ELEMENT_COORDS],
        q: &mut [R; ELEMENT_COORDS],
    ) -> Result<(), ElementError> {
        *q = [R::ZERO; ELEMENT_COORDS];
        let beta = material.rayleigh_stiffness;
        if beta == R::ZERO {
            return Ok(());
        }
        let u = self.split(u, low);
        for (qp, (w, grads)) in self.weights.iter().zip(self.gradients.iter()).enumerate() {
            let (f, point) = material_point(material, grads, &u, qp)?;
            let fd = gradient(grads, ed);
            let ftfd = f.transpose().mul_mat(&fd);
            let edot = ftfd.symmetric_part();
            let sd = point.stress_increment(&edot).scale(beta);
            add_force(*w, grads, &f.mul_mat(&sd), q);
        }
        Ok(())
    }

    /// Tangent stiffness K = −∂Q_e/∂e = ∂²U/∂e² (48×48, exactly symmetric): material + geometric part.
    pub fn tangent_stiffness(
        &self,
        material: &Material<R>,
        e: &[R; ELEMENT_COORDS],
        k: &mut [[R; ELEMENT_COORDS]; ELEMENT_COORDS],
    ) -> Result<(), ElementError> {
        let mut q = [R::ZERO; ELEMENT_COORDS];
        self.elastic_force_and_tangent(material, e, &mut q, k)
    }

    /// Q_e and K = −∂Q_e/∂e together (one pass over the quadrature points, as Newton needs both).
    pub fn elastic_force_and_tangent(
        &self,
        material: &Material<R>,
        e: &[R; ELEMENT_COORDS],
        q: &mut [R; ELEMENT_COORDS],
        k: &mut [[R; ELEMENT_COORDS]; ELEMENT_COORDS],
    ) -> Result<(), ElementError> {
        *q = [R::ZERO; ELEMENT_COORDS];
        let mut rank_one = RankOneTerms {
            u: [[R::ZERO; ELEMENT_COORDS]; FORCE_POINTS],
            lambda: [R::ZERO; FORCE_POINTS],
            shear: [R::ZERO; FORCE_POINTS],
        };
        let mut kronecker = [[R::ZERO; 6]; BLOCK_PAIRS];
        let u = self.split(&self.displacement(e), None);
        for (qp, (&w, grads)) in self.weights.iter().zip(self.gradients.iter()).enumerate() {
            let (f, point) = material_point(material, grads, &u, qp)?;
            add_force(w, grads, &f.mul_mat(&point.stress), q);
            add_tangent_at_point(w, grads, &f, &point, (qp, &mut rank_one), &mut kronecker);
        }
        rank_one.sum_into(k);
        complete_tangent(&kronecker, k);
        Ok(())
    }
}

/// An element's displacements as the strain is formed from them: a rotation field (the skew
/// part W of the mean of its nodes' gradient displacements, about their mean position
/// displacement) and the element's coordinates of what is left.
///
/// Why: the displacement gradient H holds the element's rotation, which cancels in the strain
/// E = ½(H + Hᵀ + HᵀH). Summed plainly, H = Σ_k u_k ⊗ ∇s_k is rounded to ε|H|: in f32 a strain
/// error of ε₃₂ times the rotation, which at every evaluation excites the stiffest modes anew.
/// Split, H = W + H′ with H′ = Σ_k u′_k ⊗ ∇s_k summed over small terms, and W + Wᵀ = 0
/// exactly; the low parts of u, what its f32 rounding left out, survive in u′ (they would
/// not in u). The rotation field is reproduced exactly by the element's basis, so in exact
/// arithmetic H is unchanged.
///
/// In f64 nothing is split (`spin` is `None`, u′ = u): the rotation's rounding there, ε₆₄ of it,
/// is far below any error that matters, and the split costs 6 % of the step.
struct RotationSplit<R> {
    /// W, exactly skew.
    spin: Option<Mat3<R>>,
    /// The element's coordinates of u less the rotation field.
    rest: [R; ELEMENT_COORDS],
}

impl<R: Real> RotationSplit<R> {
    /// H and H′ = H − W at one point from its shape-function gradients.
    fn at(&self, grads: &[[R; 3]; SHAPE_FUNCTIONS]) -> (Mat3<R>, Mat3<R>) {
        let rest = gradient(grads, &self.rest);
        (self.spin.map_or(rest, |w| w + rest), rest)
    }
}

impl<R: Real> TetElement<R> {
    /// Splits the displacements `u` (with their `low` parts, if known) as [`RotationSplit`]
    /// says.
    fn split(&self, u: &[R; ELEMENT_COORDS], low: Option<&[R; ELEMENT_COORDS]>) -> RotationSplit<R> {
        let mut rest = *u;
        if !compensated::<R>() {
            add_low(&mut rest, low);
            return RotationSplit { spin: None, rest };
        }
        // Component i of nodal vector d (0: r, 1–3: gradients), summed over the nodes.
        let sum = |d: usize, i: usize| {
            let c = 3 * d + i;
            u[c] + u[NODE_COORDS + c] + u[2 * NODE_COORDS + c] + u[3 * NODE_COORDS + c]
        };
        // 4 M, M the mean gradient displacement (column d: gradient d + 1), formed once.
        let m: [[R; 3]; 3] = core::array::from_fn(|i| core::array::from_fn(|d| sum(d + 1, i)));
        // W = ½(M − Mᵀ): w_ij = −w_ji to the bit.
        let eighth = R::from_f64(0.125);
        let spin = Mat3 {
            m: core::array::from_fn(|i| core::array::from_fn(|d| (m[i][d] - m[d][i]) * eighth)),
        };
        let quarter = R::from_f64(0.25);
        let centre: [R; 3] = core::array::from_fn(|i| sum(0, i) * quarter);
        for (w, dx) in rest.chunks_exact_mut(NODE_COORDS).zip(self.offsets.iter()) {
            for i in 0..3 {
                let turned = spin.m[i][0] * dx[0] + spin.m[i][1] * dx[1] + spin.m[i][2] * dx[2];
                w[i] = (w[i] - centre[i]) - turned;
                for d in 0..3 {
                    w[3 * (d + 1) + i] -= spin.m[i][d];
                }
            }
        }
        // Only now: added to u itself, the low parts would round away.
        add_low(&mut rest, low);
        RotationSplit {
            spin: Some(spin),
            rest,
        }
    }
}

/// Adds the `low` parts, if any, to `values`.
fn add_low<R: Real>(values: &mut [R; ELEMENT_COORDS], low: Option<&[R; ELEMENT_COORDS]>) {
    if let Some(low) = low {
        for (v, l) in values.iter_mut().zip(low) {
            *v += *l;
        }
    }
}

/// Node-vector block pairs a ≤ b of the 48×48 tangent.
const BLOCK_PAIRS: usize = SHAPE_FUNCTIONS * (SHAPE_FUNCTIONS + 1) / 2;

/// The rank-one terms of K at every quadrature point q: w λ u uᵀ and w c u uᵀ with
/// u = (u_a) = (F A g_a), see [`add_tangent_at_point`].
struct RankOneTerms<R> {
    u: [[R; ELEMENT_COORDS]; FORCE_POINTS],
    /// w λ.
    lambda: [R; FORCE_POINTS],
    /// w c.
    shear: [R; FORCE_POINTS],
}

impl<R: Real> RankOneTerms<R> {
    /// Writes the sums over the points into every row of `k`: λ u uᵀ in the blocks above the
    /// diagonal, c u uᵀ in those below (block (b, a) then holds c u_b u_aᵀ, the term block
    /// (a, b) needs: see [`complete_tangent`]), λ + c in the diagonal blocks (u_a u_aᵀ is
    /// symmetric). Each entry is one sum over the points, held in a register.
    fn sum_into(&self, k: &mut [[R; ELEMENT_COORDS]; ELEMENT_COORDS]) {
        for (r, row) in k.iter_mut().enumerate() {
            let diagonal = 3 * (r / 3);
            let below: [R; FORCE_POINTS] = core::array::from_fn(|q| self.shear[q] * self.u[q][r]);
            let block: [R; FORCE_POINTS] =
                core::array::from_fn(|q| (self.lambda[q] + self.shear[q]) * self.u[q][r]);
            let above: [R; FORCE_POINTS] = core::array::from_fn(|q| self.lambda[q] * self.u[q][r]);
            let (row_below, rest) = row.split_at_mut(diagonal);
            let (row_block, row_above) = rest.split_at_mut(3);
            self.sums(row_below, &below, 0);
            self.sums(row_block, &block, diagonal);
            self.sums(row_above, &above, diagonal + 3);
        }
    }

    /// `out[j] = Σ_q coefficients[q] u_q[first + j]`, summed in point order.
    fn sums(&self, out: &mut [R], coefficients: &[R; FORCE_POINTS], first: usize) {
        for (j, v) in out.iter_mut().enumerate() {
            let mut sum = R::ZERO;
            for (c, uq) in coefficients.iter().zip(self.u.iter()) {
                sum += *c * uq[first + j];
            }
            *v = sum;
        }
    }
}

/// Records one quadrature point's share of K = ∂²U/∂e²: its rank-one terms in `rank_one`
/// (point `qp`), its Kronecker terms summed in `kronecker`.
///
/// With g_a = ∇s_a, the tangent moduli ℂ : dE = λ (A : dE) A + 2c A dE A and u_a = F A g_a,
/// δE_(a,i) = sym(f_i ⊗ g_a) (f_i row i of F) gives the 3×3 block
/// K_ab = w [ λ u_a u_bᵀ + c u_b u_aᵀ + (g_a · S g_b) I + c (g_a · A g_b) F A Fᵀ ].
/// The last two, symmetric, terms are summed per block pair a ≤ b in `kronecker` as
/// (xx, xy, xz, yy, yz, zz).
fn add_tangent_at_point<R: Real>(
    w: R,
    grads: &[[R; 3]; SHAPE_FUNCTIONS],
    f: &Mat3<R>,
    point: &MaterialPoint<R>,
    (qp, rank_one): (usize, &mut RankOneTerms<R>),
    kronecker: &mut [[R; 6]; BLOCK_PAIRS],
) {
    let moduli = point.tangent_moduli();
    let fa = f.mul_mat(&moduli.metric);
    let wc = w * moduli.shear;
    if let (Some(u), Some(lambda), Some(shear)) = (
        rank_one.u.get_mut(qp),
        rank_one.lambda.get_mut(qp),
        rank_one.shear.get_mut(qp),
    ) {
        for (ua, g) in u.chunks_exact_mut(3).zip(grads.iter()) {
            ua.copy_from_slice(&fa.mul_vec(Vec3::from_array(*g)).to_array());
        }
        (*lambda, *shear) = (w * moduli.lambda, wc);
    }
    // F A Fᵀ from its upper half, so that it is exactly symmetric.
    let p = fa.mul_mat(&f.transpose()).m;
    let push = [p[0][0], p[0][1], p[0][2], p[1][1], p[1][2], p[2][2]];
    let s = point.stress.scale(w);
    let ca = moduli.metric.scale(wc);
    let mut pairs = kronecker.iter_mut();
    for (a, ga) in grads.iter().enumerate() {
        let ga = Vec3::from_array(*ga);
        let (sga, aga) = (s.mul_vec(ga), ca.mul_vec(ga));
        for (gb, sum) in grads[a..].iter().zip(pairs.by_ref()) {
            let gb = Vec3::from_array(*gb);
            let (geometric, metric) = (sga.dot(gb), aga.dot(gb));
            for (v, p) in sum.iter_mut().zip(&push) {
                *v += metric * *p;
            }
            for d in [0, 3, 5] {
                sum[d] += geometric;
            }
        }
    }
}

/// Completes K from what [`add_tangent_at_point`] summed: block (a, b), a < b, is its own
/// storage plus that of block (b, a) plus the Kronecker terms, and block (b, a) becomes its
/// transpose; a diagonal block, symmetric only to round-off, is averaged with its transpose.
/// K is then exactly symmetric for solvers that read one triangle.
fn complete_tangent<R: Real>(
    kronecker: &[[R; 6]; BLOCK_PAIRS],
    k: &mut [[R; ELEMENT_COORDS]; ELEMENT_COORDS],
) {
    const SYMMETRIC: [[usize; 3]; 3] = [[0, 1, 2], [1, 3, 4], [2, 4, 5]];
    let mut pairs = kronecker.iter();
    for a in 0..SHAPE_FUNCTIONS {
        for b in a..SHAPE_FUNCTIONS {
            let Some(sum) = pairs.next() else { return };
            let mut block = [[R::ZERO; 3]; 3];
            for (x, row) in block.iter_mut().enumerate() {
                for (y, v) in row.iter_mut().enumerate() {
                    let rank_one = if a == b {
                        R::HALF * (k[3 * a + x][3 * a + y] + k[3 * a + y][3 * a + x])
                    } else {
                        k[3 * a + x][3 * b + y] + k[3 * b + x][3 * a + y]
                    };
                    *v = rank_one + sum[SYMMETRIC[x][y]];
                }
            }
            for (x, row) in block.iter().enumerate() {
                for (y, &v) in row.iter().enumerate() {
                    k[3 * a + x][3 * b + y] = v;
                    k[3 * b + y][3 * a + x] = v;
                }
            }
        }
    }
}

/// Σ_k e_k ⊗ ∇s_k for the shape-function gradients `grads` at one point: F for coordinates,
/// Ḟ for rates, H = F − I for displacements from the reference.
fn gradient<R: Real>(grads: &[[R; 3]; SHAPE_FUNCTIONS], e: &[R; ELEMENT_COORDS]) -> Mat3<R> {
    let mut f = Mat3::ZERO;
    for (ek, g) in e.chunks_exact(3).zip(grads.iter()) {
        for (row, x) in f.m.iter_mut().zip(ek.iter()) {
            for (v, gj) in row.iter_mut().zip(g.iter()) {
                *v += *x * *gj;
            }
        }
    }
    f
}

/// F and the material state at one quadrature point from the split displacements `u`, or the
/// inversion error naming `qp`.
fn material_point<R: Real>(
    material: &Material<R>,
    grads: &[[R; 3]; SHAPE_FUNCTIONS],
    u: &RotationSplit<R>,
    qp: usize,
) -> Result<(Mat3<R>, MaterialPoint<R>), ElementError> {
    let (h, rest) = u.at(grads);
    match material.evaluate_split_gradient(&h, &rest) {
        Some(point) => Ok((h + Mat3::IDENTITY, point)),
        None => Err(ElementError::Inverted {
            qp,
            jacobian: (h + Mat3::IDENTITY).determinant().to_f64(),
        }),
    }
}

/// Adds −w P ∇s_k to Q_k with P = F S: since δE = sym(Fᵀ δF), δE : S = (F S) : δF.
fn add_force<R: Real>(w: R, grads: &[[R; 3]; SHAPE_FUNCTIONS], p: &Mat3<R>, q: &mut [R; ELEMENT_COORDS]) {
    for (qk, g) in q.chunks_exact_mut(3).zip(grads.iter()) {
        let pg = p.mul_vec(Vec3::from_array(*g));
        qk[0] -= w * pg.x;
        qk[1] -= w * pg.y;
        qk[2] -= w * pg.z;
    }
}
