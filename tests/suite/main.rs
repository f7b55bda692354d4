//! The integration tests of this package in one test binary: one link of the host instead of
//! one per file (build time and target/ size, issue 38). Each file is a module; run one with
//! `cargo test --release --test suite FILE::`. `every_suite_file_is_a_module` keeps this list (and
//! those of host/ and kernel/) whole.

mod builder_errors;
mod chain;
mod common;
mod coupled;
mod flex_body;
mod flex_cantilever;
mod flex_kernel_vs_host;
mod implicit_flex;
mod implicit_rigid;
mod joints;
mod kernel_vs_host;
mod large_scene;
mod multi_material;
mod peer_models_json;
mod pendulum;
mod redundant_constraints;
mod run_time_inputs;
mod sensors;
mod step_errors;
mod tree;
mod tree_external_forces;
mod velocity_drive;

/// Every file beside a suite's `main.rs` is a module of it: a test file left out of its list
/// would silently never run. One check for the three suites of the workspace.
#[test]
fn every_suite_file_is_a_module() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for suite in ["tests/suite", "host/tests/suite", "kernel/tests/suite"] {
        let dir = root.join(suite);
        let list = std::fs::read_to_string(dir.join("main.rs")).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if let Some(module) = name.strip_suffix(".rs").filter(|m| *m != "main") {
                let line = format!("\nmod {module};\n");
                assert!(
                    list.contains(&line),
                    "{suite}/{name} is not a module of {suite}/main.rs"
                );
            }
        }
    }
}
