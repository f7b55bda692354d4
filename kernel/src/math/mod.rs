//! Small fixed-size linear algebra: 3-vectors, 3×3 matrices, unit quaternions.
//!
//! Written here rather than taken from nalgebra so that every operation is a known sequence of
//! IEEE +, −, ×, ÷ (no fused multiply-add, no SIMD): the determinism contract needs that.

mod mat3;
mod quat;
mod vec3;

pub use mat3::Mat3;
pub use quat::Quat;
pub use vec3::Vec3;
