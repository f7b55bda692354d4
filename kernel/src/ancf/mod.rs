//! ANCF 4-node tetrahedral flexible element, element level: shape functions, quadrature,
//! materials, constant mass, gravity load, elastic force, strain energy and tangent stiffness.
//!
//! ## Element
//! Each node carries 12 coordinates, r, ∂r/∂X, ∂r/∂Y, ∂r/∂Z (absolute position and position
//! gradients w.r.t. the reference coordinates X); an element has 48, node-major. Every component
//! of r is interpolated with the same 16 scalar functions of the reduced cubic Hermite
//! tetrahedron (see [`TetShape`]), so r(X) = Σ_k s_k(X) e_k with e_k the 16 nodal 3-vectors and
//! the mass is M_e = m ⊗ I₃ with a constant 16×16 m. F = ∂r/∂X, E = ½(FᵀF − I).
//!
//! ## Quadrature
//! * Mass and gravity: [`MASS_RULE`], Keast's 24-point degree-6 rule: s sᵀ is cubic × cubic
//!   (degree 6), so m is exact on straight-sided tetrahedra (the Jacobian is constant).
//! * Forces, energy and tangent: [`FORCE_RULE`], the 14-point degree-5 rule (positive weights,
//!   interior points). For SVK, F is quadratic in X (the gradient of a cubic), E and S are
//!   quartic, so the energy density, (∂E/∂e)ᵀ:S and the tangent integrands are of degree 8; no
//!   affordable rule is exact for them in general (and Neo-Hookean is not polynomial at all).
//!   Degree 5 integrates exactly: the linearised stiffness about the reference and about any
//!   homogeneous state (F constant: integrand ∇s_k·D·∇s_l of degree 4), the force and energy
//!   of homogeneous states (degree 2 and 0), and any degree-4 integrand, which is the 2(p − 1)
//!   exactness that keeps the optimal convergence order of a cubic element (Ciarlet, The Finite
//!   Element Method for Elliptic Problems, 1978, §4.1). The tangent has no spurious zero-energy
//!   modes (rank 42 = 48 − 6 rigid modes, tested). Force, energy and tangent use the same rule,
//!   so Q_e = −∂U/∂e and K = −∂Q_e/∂e hold exactly for the discrete energy. Fewer points matter
//!   on the MCU: the per-element memory below scales with the point count.
//!
//! ## Memory per element ([`TetElement`])
//! 14 × 16 × 3 shape-function gradients, 14 weights, 16 × 16 mass, 16 load, 1 volume and
//! 4 × 3 reference vertices and 4 × 3 vertex offsets from the centroid (strains are formed
//! from displacements split from a rotation field, see [`Material::evaluate_split_gradient`]):
//! 983 scalars, 7,864 bytes in f64, 3,932 bytes in f32. The density ρ of the [`Material`] is built into the mass and load; the rest (law,
//! λ, μ, Rayleigh α and β) is passed to the routines: the flexible model keeps one material
//! per element beside it (24 bytes in f32, 48 in f64), so bodies of different materials share
//! one model. Stack: the routines take the 48×48 tangent
//! as an out-parameter (18 KiB in f64); their own temporaries are under 1 KiB. Building an
//! element uses about 20 KiB of stack (the 20×20 interpolation system and its inverse, in f64
//! for an f32 element too: its tables are computed in f64 and rounded once);
//! [`TetShape`] (337 scalars) is needed only then and for post-processing (r at any point).
//! Measured on x86_64 (release, f64, Neo-Hookean): force ≈ 2.5 µs, force + tangent ≈ 65 µs,
//! build ≈ 16 µs per element.
//!
//! ## Sources
//! * A. A. Shabana, *Computational Continuum Mechanics* (Cambridge, 3rd ed. 2018): ANCF
//!   coordinates r and ∂r/∂X, Green–Lagrange strain, Q_e = −∫ (∂E/∂e)ᵀ : S dV.
//! * Reduced cubic Hermite tetrahedron with face-centroid condensation: P. G. Ciarlet,
//!   *The Finite Element Method for Elliptic Problems* (1978), §2.2 (Hermite elements).
//! * Quadrature: Keast (1986); Gellert & Harbord (1991); Walkington (2000), full references at
//!   [`TET_DEGREE5`] and [`TET_DEGREE6`].
//! * Materials: G. A. Holzapfel, *Nonlinear Solid Mechanics* (2000), §6.5 (SVK, compressible
//!   Neo-Hookean with the λ/2 (ln J)² volumetric term).

mod element;
mod error;
mod linsolve;
mod material;
mod quadrature;
mod shape;

pub(crate) use element::compensated;
pub use element::{
    node_reference_coordinates, reference_coordinates, TetElement, ELEMENT_COORDS, NODE_COORDS,
};
pub use error::ElementError;
pub use material::{Material, MaterialLaw, MaterialPoint, TangentModuli};
pub use quadrature::{TetRule, FORCE_POINTS, FORCE_RULE, MASS_RULE, TET_DEGREE5, TET_DEGREE6};
pub use shape::{TetShape, SHAPE_FUNCTIONS};

#[cfg(test)]
mod element_tests;
#[cfg(test)]
mod test_support;
