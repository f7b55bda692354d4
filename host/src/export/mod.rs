//! Scenes for other targets. [`rust`]: a scene as a `#![no_std]`, allocation-free Rust module
//! for the firmware (`ferrodyn export rust`, or from a `build.rs`).

pub mod rust;

pub use rust::{rust_module, Precision};
