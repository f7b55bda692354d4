//! The `fast-math-f32` feature: f32 square root and trigonometry by micromath's approximations
//! (pure f32 arithmetic, so the same bits on every target), traded for accuracy: see
//! docs/firmware.md for the instructions saved and the error against f64.

use micromath::F32Ext;

pub(crate) fn sqrt(x: f32) -> f32 {
    F32Ext::sqrt(x)
}

pub(crate) fn sin(x: f32) -> f32 {
    F32Ext::sin(x)
}

pub(crate) fn cos(x: f32) -> f32 {
    F32Ext::cos(x)
}

pub(crate) fn sin_cos(x: f32) -> (f32, f32) {
    F32Ext::sin_cos(x)
}

pub(crate) fn atan2(y: f32, x: f32) -> f32 {
    F32Ext::atan2(y, x)
}
