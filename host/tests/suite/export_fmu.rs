//! `ferrodyn export fmu` end to end, with a stand-in library (the real one, ferrodyn-fmu, is
//! checked with FMPy by tests/fmu/run.sh): the zip's entries per FMI version, the model
//! description's variables and token, and the refusals.

use crate::common;

use ferrodyn_host::export::fmu::token;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

fn ferrodyn(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ferrodyn"))
        .args(args)
        .output()
        .expect("ferrodyn runs")
}

/// A stand-in for the FMU library in `dir` (export only copies it into the zip).
fn stand_in_library(dir: &Path) -> PathBuf {
    let library = dir.join("stand-in.so");
    // An ELF header and nothing else: export checks the header, then copies the bytes.
    std::fs::write(&library, b"\x7fELF stand-in").unwrap();
    library
}

/// `ferrodyn export fmu SCENE -o OUT --library LIBRARY` and `extra` arguments.
fn export_fmu(scene: &Path, out: &Path, library: &Path, extra: &[&str]) -> std::process::Output {
    let args = [
        "export",
        "fmu",
        scene.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--library",
        library.to_str().unwrap(),
    ];
    ferrodyn(&[&args[..], extra].concat())
}

fn scene(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(name)
}

/// The entries of the zip at `path`, and the text of its model description.
fn entries(path: &Path) -> (Vec<String>, String) {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let names = (0..zip.len())
        .map(|i| zip.by_index(i).unwrap().name().to_string())
        .collect();
    let mut xml = String::new();
    zip.by_name("modelDescription.xml")
        .unwrap()
        .read_to_string(&mut xml)
        .unwrap();
    (names, xml)
}

#[test]
fn the_fmu_holds_description_library_and_scene_per_version() {
    let dir = common::scratch_dir("export_fmu", "versions");
    let library = stand_in_library(&dir);
    let arm = scene("hil_arm.toml");
    let text = std::fs::read_to_string(&arm).unwrap();
    for (version, binaries, token_attribute) in [
        ("3", "binaries/x86_64-linux/hil_arm.so", "instantiationToken"),
        ("2", "binaries/linux64/hil_arm.so", "guid"),
    ] {
        let out = dir.join(format!("arm{version}.fmu"));
        let o = export_fmu(&arm, &out, &library, &["--fmi", version]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let (names, xml) = entries(&out);
        for expected in [
            "modelDescription.xml",
            binaries,
            "resources/ferrodyn-scene.txt",
            "resources/hil_arm.toml",
        ] {
            assert!(names.iter().any(|n| n == expected), "{expected} in {names:?}");
        }
        assert!(xml.contains(&format!("fmiVersion=\"{version}.0\"")));
        assert!(xml.contains(&format!("{token_attribute}=\"{}\"", token(&text))));
        for name in ["\"torque\"", "\"encoder_angle\"", "\"tip_vz\""] {
            assert!(xml.contains(name), "{name} in\n{xml}");
        }
        assert!(xml.contains("<UnitDefinitions>"), "{xml}");
        assert!(!String::from_utf8_lossy(&o.stderr).contains("warning"));
    }
}

#[test]
fn the_generation_date_is_now_or_source_date_epoch() {
    let dir = common::scratch_dir("export_fmu", "date");
    let library = stand_in_library(&dir);
    let out = dir.join("arm.fmu");
    let arm = scene("hil_arm.toml");
    let args = [
        "export",
        "fmu",
        arm.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    let library_args = ["--library", library.to_str().unwrap()];
    let o = Command::new(env!("CARGO_BIN_EXE_ferrodyn"))
        .args([&args[..], &library_args].concat())
        .env("SOURCE_DATE_EPOCH", "1796524504")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (_, xml) = entries(&out);
    // `date -u -d @1796524504 +%FT%TZ`
    assert!(
        xml.contains("generationDateAndTime=\"2026-12-06T02:35:04Z\""),
        "{xml}"
    );
}

#[test]
fn a_scene_without_sensors_exports_with_a_warning() {
    let dir = common::scratch_dir("export_fmu", "no_outputs");
    let library = stand_in_library(&dir);
    let out = dir.join("pendulum.fmu");
    let o = export_fmu(&scene("pendulum.toml"), &out, &library, &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("pendulum.toml has no [[sensor]]: the FMU has no outputs"),
        "{stderr}"
    );
}

#[test]
fn a_flexible_scene_carries_its_mesh_and_contact_scenes_claim_no_state() {
    let dir = common::scratch_dir("export_fmu", "mesh");
    let library = stand_in_library(&dir);
    let out = dir.join("cantilever.fmu");
    let o = export_fmu(&scene("cantilever.toml"), &out, &library, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (names, xml) = entries(&out);
    assert!(
        names.iter().any(|n| n == "resources/scenes/cantilever.toml"),
        "{names:?}"
    );
    assert!(
        names.iter().any(|n| n == "resources/meshes/beam_coarse.msh"),
        "{names:?}"
    );
    assert!(xml.contains("canGetAndSetFMUState=\"true\""));

    let out = dir.join("drop.fmu");
    let o = export_fmu(&scene("sphere_drop.toml"), &out, &library, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (_, xml) = entries(&out);
    assert!(
        xml.contains("canGetAndSetFMUState=\"false\""),
        "contact has memory: {xml}"
    );
}

#[test]
fn refusals_say_why() {
    let dir = common::scratch_dir("export_fmu", "refusals");
    let out = dir.join("x.fmu");
    let arm = scene("hil_arm.toml");
    let o = ferrodyn(&[
        "export",
        "fmu",
        arm.to_str().unwrap(),
        "--fmi",
        "4",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown FMI version"));
    let o = export_fmu(&arm, &out, &dir.join("missing.so"), &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.so"));
}

/// The text of entry `name` of the zip at `path`.
fn entry_text(path: &Path, name: &str) -> String {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut text = String::new();
    zip.by_name(name).unwrap().read_to_string(&mut text).unwrap();
    text
}

#[test]
fn settings_given_at_export_travel_in_the_fmu_and_change_its_token() {
    let dir = common::scratch_dir("export_fmu", "settings");
    let library = stand_in_library(&dir);
    let arm = scene("hil_arm.toml");
    let text = std::fs::read_to_string(&arm).unwrap();
    let out = dir.join("arm.fmu");
    let settings = [
        "--integrator",
        "semi-implicit-euler",
        "--dt",
        "5e-4",
        "--end",
        "0.25",
    ];
    let o = export_fmu(&arm, &out, &library, &settings);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("export with --integrator semi-implicit-euler (was rk4)"),
        "{stderr}"
    );
    let (_, xml) = entries(&out);
    assert!(xml.contains("stopTime=\"0.25\" stepSize=\"0.0005\""), "{xml}");
    assert!(xml.contains("fixedInternalStepSize=\"0.0005\""), "{xml}");
    let index = entry_text(&out, "resources/ferrodyn-scene.txt");
    let settings = "--end 0.25\n--dt 0.0005\n--integrator semi-implicit-euler\n";
    assert_eq!(index, format!("hil_arm.toml\n{settings}"));
    // The token covers the settings: the library refuses a description made without them.
    assert!(xml.contains(&token(&format!("{text}{settings}"))));
    assert!(!xml.contains(&token(&text)));

    // A setting the scene could not have is refused as `ferrodyn run` refuses it.
    let o = export_fmu(&arm, &out, &library, &["--integrator", "leapfrog"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown integrator 'leapfrog'"));
}

#[test]
fn a_mesh_shape_travels_with_its_obj_file() {
    let dir = common::scratch_dir("export_fmu", "shape");
    std::fs::create_dir_all(dir.join("shapes")).unwrap();
    std::fs::write(
        dir.join("shapes/ramp.obj"),
        "v -1 -1 0\nv 1 -1 0\nv 1 1 0.5\nv -1 1 0.5\nf 1 2 3 4\n",
    )
    .unwrap();
    let scene = dir.join("ramp.toml");
    std::fs::write(
        &scene,
        "[simulation]\nend_time = 0.1\nstep = 1e-3\n\n[[body]]\nid = 1\nname = \"ball\"\nmass = 1.0\n\
         inertia = { Ixx = 1.0, Iyy = 1.0, Izz = 1.0 }\npos = [0.0, 0.0, 1.0]\n\n\
         [[shape]]\nname = \"ball\"\nbody = \"ball\"\ntype = \"sphere\"\nradius = 0.1\n\n\
         [[shape]]\nname = \"ramp\"\nbody = \"ground\"\ntype = \"mesh\"\nmesh = \"shapes/ramp.obj\"\n",
    )
    .unwrap();
    let library = stand_in_library(&dir);
    let out = dir.join("ramp.fmu");
    let o = export_fmu(&scene, &out, &library, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (names, _) = entries(&out);
    for expected in ["resources/ramp.toml", "resources/shapes/ramp.obj"] {
        assert!(names.iter().any(|n| n == expected), "{expected} in {names:?}");
    }
}
