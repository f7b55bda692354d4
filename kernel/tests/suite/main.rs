//! The integration tests of the kernel in one test binary: one link instead of one per file
//! (build time, issue 38). Each file is a module; run one with `cargo test --release -p ferrodyn-kernel
//! --test suite FILE::`. The workspace's `every_suite_file_is_a_module` (tests/suite/main.rs)
//! keeps this list whole.

mod rigid_factor_reuse;
mod tree_bits;
mod tree_joints;
mod verlet_order;
