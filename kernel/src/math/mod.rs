//! The scalar trait and small linear algebra: [`Real`] (f32/f64 with libm-backed functions),
//! 3-vectors, 3×3 matrices, unit quaternions, and the skyline LDLᵀ of profile matrices.
//!
//! Written here rather than taken from nalgebra so that every operation is a known sequence of
//! IEEE +, −, ×, ÷ (no fused multiply-add, no SIMD): the determinism contract needs that. With
//! the `mint` feature, [`Vec3`], [`Quat`] and [`Mat3`] convert to and from `mint` types, the
//! interchange types of nalgebra, glam and cgmath.

pub(crate) mod dense_ldl;
#[cfg(feature = "fast-math-f32")]
mod fast_f32;
mod mat3;
#[cfg(feature = "mint")]
mod mint;
mod quat;
mod real;
#[cfg(any(not(feature = "fast-math-f32"), test))]
mod single_trig;
pub(crate) mod skyline;
mod skyline_block;
mod vec3;

pub use mat3::Mat3;
pub use quat::Quat;
pub use real::Real;
pub use vec3::Vec3;
