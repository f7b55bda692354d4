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
    gradients: [[[R; 3]; SHAPE_FUNCTIONS]; FORCE_POINTS],
    /// Quadrature weight × volume at each force quadrature point.
    weights: [R; FORCE_POINTS],
    /// Scalar consistent mass m = ∫ ρ s sᵀ dV (M_e = m ⊗ I₃).
    mass: [[R; SHAPE_FUNCTIONS]; SHAPE_FUNCTIONS],
    /// ∫ ρ s dV (the gravity load is this ⊗ g).
    load: [R; SHAPE_FUNCTIONS],
    /// Reference volume.
    volume: R,
    /// Reference vertices: strains are formed from the displacement from the reference
    /// coordinates (r = X at the vertices, gradients = I).
    vertices: [[R; 3]; 4],
}

/// The 48 coordinates of the undeformed reference: r = X at the vertices, gradients = I.
pub fn reference_coordinates<R: Real>(vertices: &[Vec3<R>; 4]) -> [R; ELEMENT_COORDS] {
    let mut e = [R::ZERO; ELEMENT_COORDS];
    for (n, p) in vertices.iter().enumerate() {
        e[NODE_COORDS * n..NODE_COORDS * n + 3].copy_from_slice(&p.to_array());
        for d in 0..3 {
            e[NODE_COORDS * n + 3 * (d + 1) + d] = R::ONE;
        }
    }
    e
}

/// Converts a quadrature table entry to barycentric coordinates in `R`.
fn bary<R: Real>(p: &[f64; 4]) -> [R; 4] {
    p.map(R::from_f64)
}

impl<R: Real> TetElement<R> {
    /// Precomputes an element from its reference vertices; ρ is taken from `material`.
    pub fn new(vertices: [Vec3<R>; 4], material: &Material<R>) -> Result<Self, ElementError> {
        let shape = TetShape::new(vertices)?;
        let volume = shape.volume();
        let rho = material.density;

        let mut mass = [[R::ZERO; SHAPE_FUNCTIONS]; SHAPE_FUNCTIONS];
        let mut load = [R::ZERO; SHAPE_FUNCTIONS];
        for (p, w) in MASS_RULE.points.iter().zip(MASS_RULE.weights.iter()) {
            let s = shape.values(shape.point(bary(p)));
            let wv = R::from_f64(*w) * volume * rho;
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

        let mut gradients = [[[R::ZERO; 3]; SHAPE_FUNCTIONS]; FORCE_POINTS];
        let mut weights = [R::ZERO; FORCE_POINTS];
        for (q, (p, w)) in FORCE_RULE
            .points
            .iter()
            .zip(FORCE_RULE.weights.iter())
            .enumerate()
        {
            gradients[q] = shape.gradients(shape.point(bary(p)));
            weights[q] = R::from_f64(*w) * volume;
        }
        Ok(Self {
            gradients,
            weights,
            mass,
            load,
            volume,
            vertices: vertices.map(|v| v.to_array()),
        })
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
        let u = self.displacement(e);
        for (f, grads) in out.iter_mut().zip(self.gradients.iter()) {
            *f = gradient(grads, &u) + Mat3::IDENTITY;
        }
    }

    /// Second Piola–Kirchhoff stresses at the force quadrature points.
    pub fn stresses(
        &self,
        material: &Material<R>,
        e: &[R; ELEMENT_COORDS],
        out: &mut [Mat3<R>; FORCE_POINTS],
    ) -> Result<(), ElementError> {
        let u = self.displacement(e);
        for (qp, (s, grads)) in out.iter_mut().zip(self.gradients.iter()).enumerate() {
            *s = material_point(material, grads, &u, qp)?.1.stress;
        }
        Ok(())
    }

    /// Strain energy U = ∫ W dV.
    pub fn strain_energy(&self, material: &Material<R>, e: &[R; ELEMENT_COORDS]) -> Result<R, ElementError> {
        let u = self.displacement(e);
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
        *q = [R::ZERO; ELEMENT_COORDS];
        let u = self.displacement(e);
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
        *q = [R::ZERO; ELEMENT_COORDS];
        let beta = material.rayleigh_stiffness;
        if beta == R::ZERO {
            return Ok(());
        }
        let u = self.displacement(e);
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
        for row in k.iter_mut() {
            *row = [R::ZERO; ELEMENT_COORDS];
        }
        let u = self.displacement(e);
        for (qp, (&w, grads)) in self.weights.iter().zip(self.gradients.iter()).enumerate() {
            let (f, point) = material_point(material, grads, &u, qp)?;
            add_force(w, grads, &f.mul_mat(&point.stress), q);
            let s = &point.stress;
            // Only node-vector blocks a ≤ b are computed (K is symmetric); the rest is mirrored
            // below. Geometric (initial stress) part: δ_ij w ∇s_a · S ∇s_b.
            for (a, ga) in grads.iter().enumerate() {
                let sga = s.mul_vec(Vec3::from_array(*ga)).scale(w);
                for (b, gb) in grads.iter().enumerate().skip(a) {
                    let kab = sga.dot(Vec3::from_array(*gb));
                    for i in 0..3 {
                        k[3 * a + i][3 * b + i] += kab;
                    }
                }
            }
            // Material part: w δE_(a,i) : (∂S/∂E) : δE_(b,j). For coordinate (b, j),
            // δF = u_j ⊗ ∇s_b gives δE = sym(f_j ⊗ ∇s_b) with f_j row j of F; then
            // δE_(a,i) : δS = (F δS)_i · ∇s_a, as for the force.
            for (b, gb) in grads.iter().enumerate() {
                for j in 0..3 {
                    let mut de = Mat3::ZERO;
                    for x in 0..3 {
                        for y in 0..3 {
                            de.m[x][y] = R::HALF * (f.m[j][x] * gb[y] + gb[x] * f.m[j][y]);
                        }
                    }
                    let fds = f.mul_mat(&point.stress_increment(&de)).scale(w);
                    let col = 3 * b + j;
                    for (a, ga) in grads.iter().enumerate().take(b + 1) {
                        let v = fds.mul_vec(Vec3::from_array(*ga));
                        k[3 * a][col] += v.x;
                        k[3 * a + 1][col] += v.y;
                        k[3 * a + 2][col] += v.z;
                    }
                }
            }
        }
        // Fill the lower blocks from the upper ones; the 3×3 diagonal blocks were computed in
        // full and are symmetric only to round-off, so average them: K is then exactly
        // symmetric for solvers that read one triangle.
        for a in 1..ELEMENT_COORDS {
            let (upper, lower) = k.split_at_mut(a);
            let row_a = &mut lower[0];
            for (b, row_b) in upper.iter_mut().enumerate() {
                if b / 3 == a / 3 {
                    let v = R::HALF * (row_a[b] + row_b[a]);
                    row_a[b] = v;
                    row_b[a] = v;
                } else {
                    row_a[b] = row_b[a];
                }
            }
        }
        Ok(())
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

/// F and the material state at one quadrature point from the displacements `u` = e − e_ref,
/// or the inversion error naming `qp`.
fn material_point<R: Real>(
    material: &Material<R>,
    grads: &[[R; 3]; SHAPE_FUNCTIONS],
    u: &[R; ELEMENT_COORDS],
    qp: usize,
) -> Result<(Mat3<R>, MaterialPoint<R>), ElementError> {
    let h = gradient(grads, u);
    let f = h + Mat3::IDENTITY;
    match material.evaluate_displacement_gradient(&h) {
        Some(point) => Ok((f, point)),
        None => Err(ElementError::Inverted {
            qp,
            jacobian: f.determinant().to_f64(),
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
