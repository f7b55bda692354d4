//! `ferrodyn export firmware`: the crate it writes for each part — the module of `export rust`
//! unchanged, the part's memory map, target, code generation and QEMU machine — and one clear
//! error for a part, directory or kernel it cannot take. That the crate builds, runs under QEMU
//! and prints `ferrodyn run`'s digest is `.ci/export_firmware`'s (it needs the Cortex-M target
//! and QEMU).

use ferrodyn_host::commands::{export_firmware, Overrides};
use ferrodyn_host::export::firmware::{Part, PARTS};
use ferrodyn_host::export::{rust_module, Precision};
use ferrodyn_host::scene::Scene;
use std::path::{Path, PathBuf};

fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(name)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrodyn-export-firmware-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn every_part_gets_its_memory_map_runner_and_the_export_rust_module() {
    let scene = scene_path("skew_tree.toml");
    let module = rust_module(&Scene::load(&scene).unwrap(), Precision::F64).unwrap();
    for part in PARTS {
        let dir = temp_dir(part.name());
        export_firmware(
            &scene,
            part.name(),
            "f64",
            &Overrides::default(),
            &dir,
            None,
            false,
        )
        .unwrap();
        // The model is `export rust`'s, byte for byte: one generator.
        assert_eq!(read(&dir, "src/scene.rs"), module, "{}", part.name());
        assert_eq!(read(&dir, "memory.x"), part.memory_map());
        let config = read(&dir, ".cargo/config.toml");
        assert!(config.contains("target = \"thumbv7em-none-eabihf\""), "{config}");
        let machine = format!("qemu-system-arm -machine {} ", part.qemu_machine());
        assert!(config.contains(&machine), "{config}");
        // The M7 computes f64 in hardware only with its own code generation.
        assert_eq!(
            config.contains("target-cpu=cortex-m7"),
            part == Part::Mps2An500,
            "{config}"
        );
        let cargo = read(&dir, "Cargo.toml");
        let kernel = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../kernel")
            .canonicalize()
            .unwrap();
        assert!(
            cargo.contains(&format!(
                "ferrodyn-kernel = {{ path = {:?} }}",
                kernel.to_str().unwrap()
            )),
            "{cargo}"
        );
        assert!(cargo.contains("name = \"skew_tree-firmware\"") && cargo.contains("[workspace]"));
        let main = read(&dir, "src/main.rs");
        assert!(main.contains(&format!("const CORE_HZ: u64 = {};", part.core_hz())));
        assert!(main.contains("\"state digest: steps={} trajectory={:016x} final={:016x}\""));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_scene_with_force_elements_steps_with_them_in_its_firmware() {
    // The sprung slider-crank's spring-damper acts at every stage, as in `ferrodyn run`
    // (scene-plant's run_loaded checks the digests under QEMU); a scene without elements keeps
    // its plain step.
    for (name, forced) in [("slider_crank_spring.toml", true), ("skew_tree.toml", false)] {
        let dir = temp_dir(name);
        let (scene, part) = (scene_path(name), Part::Mps2An386.name());
        export_firmware(&scene, part, "f32", &Overrides::default(), &dir, None, false).unwrap();
        let main = read(&dir, "src/main.rs");
        let step_with = "let stepped = model.step_with(data, &mut integrator, dt, &mut forces);";
        let forces = "let mut forces = scene::forces(model).map_err(Error::Build)?;";
        assert_eq!(
            main.contains(step_with) && main.contains(forces),
            forced,
            "{name}"
        );
        let plain = "let stepped = model.step(data, &mut integrator, dt);";
        assert_eq!(main.contains(plain), !forced, "{name}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_scene_with_force_elements_and_contact_steps_with_both_in_its_firmware() {
    // The sprung hopper: the suspension's spring-damper and the foot's contact load the links
    // at every stage, the spring-damper's first, as `ferrodyn run` sums them (a pair of
    // external forces); the contacts are shown the initial state first (scene-plant's
    // run_forced_contact checks the digests under QEMU).
    let dir = temp_dir("hopper_sprung");
    let scene = scene_path("hopper_sprung.toml");
    export_firmware(
        &scene,
        "mps2-an386",
        "f32",
        &Overrides::default(),
        &dir,
        None,
        false,
    )
    .unwrap();
    let main = read(&dir, "src/main.rs");
    for expected in [
        "let mut contacts = scene::contacts(model).map_err(Error::Build)?;",
        "model.accept(data, &mut contacts).map_err(Error::Step)?;",
        "let mut forces = scene::forces(model).map_err(Error::Build)?;",
        "let stepped = model.step_with(data, &mut integrator, dt, &mut (&mut forces, &mut contacts));",
    ] {
        assert!(main.contains(expected), "missing `{expected}` in\n{main}");
    }
    let module = read(&dir, "src/scene.rs");
    assert!(module.contains("pub const CONTACT_PAIRS: usize = 1;"), "{module}");
    assert_eq!(
        module
            .matches("    forces.add(model, Force::SpringDamper {")
            .count(),
        1
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_second_export_keeps_the_rig_and_needs_force() {
    let scene = scene_path("hil_arm.toml");
    let dir = temp_dir("again");
    let export = |force| {
        export_firmware(
            &scene,
            "mps2-an386",
            "f32",
            &Overrides::default(),
            &dir,
            None,
            force,
        )
    };
    export(false).unwrap();
    std::fs::write(dir.join("src/rig.rs"), "// my rig\n").unwrap();
    let refused = export(false).unwrap_err().to_string();
    assert!(refused.contains("holds a crate already; --force"), "{refused}");
    export(true).unwrap();
    assert_eq!(read(&dir, "src/rig.rs"), "// my rig\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_parts_kernels_and_scenes_are_one_clear_error() {
    let arm = scene_path("hil_arm.toml");
    let dir = temp_dir("bad");
    let error = |scene: &Path, part: &str, kernel: Option<&Path>| {
        export_firmware(scene, part, "f32", &Overrides::default(), &dir, kernel, false)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        error(&arm, "stm32f407", None),
        "unknown part 'stm32f407'; choose mps2-an386, stm32f405, mps2-an500"
    );
    let kernel = error(&arm, "mps2-an386", Some(Path::new("/")));
    assert!(
        kernel.contains("--kernel-path / is not the Ferrodyn kernel"),
        "{kernel}"
    );
    // An implicit integrator: the reason `export rust` gives, naming it.
    let hub = error(&scene_path("spinning_beam.toml"), "mps2-an386", None);
    assert!(
        hub.contains(
            "spinning_beam.toml: simulation: export: integrator hht: a firmware steps at a fixed period"
        ),
        "{hub}"
    );
    assert!(!dir.exists(), "nothing written on an error");
}
