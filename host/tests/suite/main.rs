//! The integration tests of this package in one test binary: one link of the host instead of
//! one per file (build time and target/ size, issue 38). Each file is a module; run one with
//! `cargo test --test suite FILE::`. `every_file_is_a_module` keeps this list whole.

mod bennett;
mod check;
mod cli;
mod cli_flags;
mod cli_truth;
mod common;
mod contact_flex_scene;
mod contact_flexible;
mod contact_implicit;
mod contact_rigid;
mod contact_scene;
mod contact_shapes;
mod encoder_zero;
mod export;
mod export_firmware;
mod export_fmu;
mod external_forces;
mod formulation;
mod four_bar;
mod hostile_inputs;
mod implicit_multibody;
mod import_cli;
mod import_corpus;
mod import_dynamics;
mod import_free_motion;
mod import_tendons;
mod interrupt;
mod joint_limits;
mod outputs_plot;
mod outputs_vtu;
mod resume;
mod rigid_flex_contact;
mod scene_errors;
mod scene_files;
mod sensor_flexible;
mod servo;
mod several_flexible;
mod sweep;
mod tree_contact;
mod tree_drives;
mod tree_elements;
mod tree_implicit;
mod tree_loops;
mod viewer;
mod watch;

/// Every file beside this one is a module of it: a test file left out of the list above would
/// silently never run.
#[test]
fn every_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/suite");
    let list = include_str!("main.rs");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if let Some(module) = name.strip_suffix(".rs").filter(|m| *m != "main") {
            let line = format!("\nmod {module};\n");
            assert!(
                list.contains(&line),
                "{name} is not a module of tests/suite/main.rs"
            );
        }
    }
}
