//! Scenes for other targets. [`rust`]: a scene as a `#![no_std]`, allocation-free Rust module
//! for the firmware (`ferrodyn export rust`, or from a `build.rs`); [`target`]: what it needs
//! on a microcontroller.

pub mod rust;
pub mod target;

pub use rust::{rust_module, Precision};
