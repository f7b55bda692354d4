//! The 16-function reduced cubic Hermite basis of one tetrahedron, built at model-build time.
//!
//! Construction: the complete cubic (20 monomials of ξ = (X − X̄)/h, centred on the centroid X̄
//! and scaled by the largest vertex distance h so the 20×20 system is well conditioned) is
//! interpolated on 20 functionals: value and ξ-gradient at each vertex (16) and value at each face
//! centroid (4). The 20×20 system is solved once by Gaussian elimination with partial pivoting.
//! The face-centroid values are then eliminated with the rule (face i, j, k, centroid c)
//!
//! `f(c) = 1/3 Σ f(p_m) + 1/6 Σ ∇f(p_m)·(c − p_m)`,  m ∈ {i, j, k},
//!
//! which is exact for every quadratic f: Taylor-expanding f(p_m) and ∇f(p_m) about c with
//! d_m = p_m − c (Σ d_m = 0), 1/3 Σ f(p_m) = f(c) + 1/6 Σ d_mᵀHd_m and
//! 1/6 Σ ∇f(p_m)·(−d_m) = −1/6 Σ d_mᵀHd_m, so the Hessian terms cancel. Hence the reduced space
//! contains all quadratics (tested), and the element is affine invariant.
//!
//! DOF order of the 16 functions: vertex-major, per vertex `f, ∂f/∂X, ∂f/∂Y, ∂f/∂Z` (physical
//! gradients), the order of the ANCF nodal coordinates.

use super::linsolve::solve_in_place;
use super::ElementError;
use crate::math::Vec3;
use crate::Real;

/// Number of shape functions (scalar DOFs) of the reduced cubic Hermite tetrahedron.
pub const SHAPE_FUNCTIONS: usize = 16;

/// Terms of the complete cubic in 3 variables.
const MONOMIALS: usize = 20;

/// Exponents (a, b, c) of ξx^a ξy^b ξz^c for each monomial of the complete cubic.
const EXPONENTS: [[usize; 3]; MONOMIALS] = [
    [0, 0, 0],
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
    [2, 0, 0],
    [0, 2, 0],
    [0, 0, 2],
    [1, 1, 0],
    [1, 0, 1],
    [0, 1, 1],
    [3, 0, 0],
    [0, 3, 0],
    [0, 0, 3],
    [2, 1, 0],
    [2, 0, 1],
    [1, 2, 0],
    [0, 2, 1],
    [1, 0, 2],
    [0, 1, 2],
    [1, 1, 1],
];

/// The reduced cubic Hermite basis of one tetrahedron in physical coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TetShape<R> {
    /// Reference (undeformed) vertex positions.
    vertices: [Vec3<R>; 4],
    /// Centroid X̄.
    centre: Vec3<R>,
    /// 1/h.
    inv_scale: R,
    /// `coeffs[i][k]`: coefficient of monomial i in shape function k.
    coeffs: [[R; SHAPE_FUNCTIONS]; MONOMIALS],
    /// Volume (positive whatever the vertex orientation).
    volume: R,
}

/// `[1, t, t², t³]`.
fn powers<R: Real>(t: R) -> [R; 4] {
    let t2 = t * t;
    [R::ONE, t, t2, t2 * t]
}

/// Values of the 20 monomials at ξ.
fn monomials<R: Real>(xi: Vec3<R>) -> [R; MONOMIALS] {
    let (px, py, pz) = (powers(xi.x), powers(xi.y), powers(xi.z));
    let mut m = [R::ZERO; MONOMIALS];
    for (v, e) in m.iter_mut().zip(EXPONENTS.iter()) {
        *v = px[e[0]] * py[e[1]] * pz[e[2]];
    }
    m
}

/// ξ-gradients of the 20 monomials at ξ: `g[i][d] = ∂(monomial i)/∂ξ_d`.
fn monomial_gradients<R: Real>(xi: Vec3<R>) -> [[R; 3]; MONOMIALS] {
    let p = [powers(xi.x), powers(xi.y), powers(xi.z)];
    let mut g = [[R::ZERO; 3]; MONOMIALS];
    for (gi, e) in g.iter_mut().zip(EXPONENTS.iter()) {
        for (d, gd) in gi.iter_mut().enumerate() {
            if e[d] == 0 {
                continue;
            }
            let mut v = R::from_usize(e[d]) * p[d][e[d] - 1];
            for o in 0..3 {
                if o != d {
                    v *= p[o][e[o]];
                }
            }
            *gd = v;
        }
    }
    g
}

/// Signed 6V = det[p1 − p0, p2 − p0, p3 − p0].
fn six_volume<R: Real>(p: &[Vec3<R>; 4]) -> R {
    let (a, b, c) = (p[1] - p[0], p[2] - p[0], p[3] - p[0]);
    a.dot(b.cross(c))
}

impl<R: Real> TetShape<R> {
    /// Builds the basis for a tetrahedron; errors if it is degenerate (zero volume) or not finite.
    pub fn new(vertices: [Vec3<R>; 4]) -> Result<Self, ElementError> {
        let six_v = six_volume(&vertices);
        let degenerate = ElementError::DegenerateElement {
            volume: six_v.to_f64() / 6.0,
        };
        if !vertices.iter().all(|v| v.is_finite()) || !six_v.is_finite() {
            return Err(degenerate);
        }
        let quarter = R::from_f64(0.25);
        let centre = (vertices[0] + vertices[1] + vertices[2] + vertices[3]).scale(quarter);
        let h = vertices.iter().fold(R::ZERO, |h, v| h.max((*v - centre).norm()));
        // Relative test: 6V/h³ is about 3 for a regular tetrahedron; slivers down at round-off
        // of that scale cannot be interpolated reliably.
        let thick = six_v.abs() > R::from_f64(100.0) * R::EPSILON * h * h * h;
        if !thick {
            return Err(degenerate);
        }
        let inv_scale = R::ONE / h;
        let xi: [Vec3<R>; 4] = core::array::from_fn(|m| (vertices[m] - centre).scale(inv_scale));
        let third = R::ONE / R::from_f64(3.0);
        // Face f is opposite vertex f; its centroid in ξ.
        let face_centroid = |f: usize| {
            let mut c = Vec3::ZERO;
            for (m, x) in xi.iter().enumerate() {
                if m != f {
                    c += *x;
                }
            }
            c.scale(third)
        };

        // Rows: functionals; columns: monomials.
        let mut a = [[R::ZERO; MONOMIALS]; MONOMIALS];
        for (m, x) in xi.iter().enumerate() {
            let vals = monomials(*x);
            let grads = monomial_gradients(*x);
            for i in 0..MONOMIALS {
                a[4 * m][i] = vals[i];
                for d in 0..3 {
                    a[4 * m + 1 + d][i] = grads[i][d];
                }
            }
        }
        for f in 0..4 {
            a[SHAPE_FUNCTIONS + f] = monomials(face_centroid(f));
        }
        // Nodal basis: columns of A⁻¹.
        let mut c = [[R::ZERO; MONOMIALS]; MONOMIALS];
        for (i, row) in c.iter_mut().enumerate() {
            row[i] = R::ONE;
        }
        solve_in_place(&mut a, &mut c, R::from_f64(64.0) * R::EPSILON).map_err(|_| degenerate)?;

        // Condense: eliminate the face-centroid DOFs with the quadratic-exact rule, then turn
        // ξ-gradient DOFs (∂f/∂ξ = h ∂f/∂X) into physical-gradient DOFs (factor h).
        let sixth = R::ONE / R::from_f64(6.0);
        let mut coeffs = [[R::ZERO; SHAPE_FUNCTIONS]; MONOMIALS];
        for f in 0..4 {
            let cf = face_centroid(f);
            for (m, x) in xi.iter().enumerate() {
                if m == f {
                    continue;
                }
                let d = (cf - *x).to_array();
                let alpha = [third, sixth * d[0], sixth * d[1], sixth * d[2]];
                for (k, al) in alpha.iter().enumerate() {
                    for i in 0..MONOMIALS {
                        coeffs[i][4 * m + k] += *al * c[i][SHAPE_FUNCTIONS + f];
                    }
                }
            }
        }
        for i in 0..MONOMIALS {
            for k in 0..SHAPE_FUNCTIONS {
                let v = coeffs[i][k] + c[i][k];
                coeffs[i][k] = if k % 4 == 0 { v } else { v * h };
            }
        }
        Ok(Self {
            vertices,
            centre,
            inv_scale,
            coeffs,
            volume: six_v.abs() * sixth,
        })
    }

    /// Volume of the tetrahedron (positive for either vertex orientation).
    pub fn volume(&self) -> R {
        self.volume
    }

    /// Reference vertex positions.
    pub fn vertices(&self) -> &[Vec3<R>; 4] {
        &self.vertices
    }

    /// The point with barycentric coordinates `bary`.
    pub fn point(&self, bary: [R; 4]) -> Vec3<R> {
        let v = &self.vertices;
        v[0].scale(bary[0]) + v[1].scale(bary[1]) + v[2].scale(bary[2]) + v[3].scale(bary[3])
    }

    /// Values of the 16 shape functions at the reference point `x`.
    pub fn values(&self, x: Vec3<R>) -> [R; SHAPE_FUNCTIONS] {
        let m = monomials((x - self.centre).scale(self.inv_scale));
        let mut s = [R::ZERO; SHAPE_FUNCTIONS];
        for (mi, row) in m.iter().zip(self.coeffs.iter()) {
            for (sk, c) in s.iter_mut().zip(row.iter()) {
                *sk += *c * *mi;
            }
        }
        s
    }

    /// Gradients ∂s_k/∂X (physical) of the 16 shape functions at the reference point `x`.
    pub fn gradients(&self, x: Vec3<R>) -> [[R; 3]; SHAPE_FUNCTIONS] {
        let g = monomial_gradients((x - self.centre).scale(self.inv_scale));
        let mut s = [[R::ZERO; 3]; SHAPE_FUNCTIONS];
        for (gi, row) in g.iter().zip(self.coeffs.iter()) {
            for (sk, c) in s.iter_mut().zip(row.iter()) {
                for d in 0..3 {
                    sk[d] += *c * gi[d];
                }
            }
        }
        for sk in s.iter_mut() {
            for v in sk.iter_mut() {
                *v *= self.inv_scale;
            }
        }
        s
    }
}

#[cfg(test)]
#[path = "shape_tests.rs"]
mod tests;
