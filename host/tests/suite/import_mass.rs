//! The mass, centre of mass and inertia of every body of every imported MJCF model, written for
//! `.ci/import-mujoco-mass.py` to compare with MuJoCo's compiled `body_mass`, `xipos` and
//! `body_inertia` turned by `ximat` at `qpos0` (to 1e-9 relative; the models whose mass comes
//! from mesh geoms included). Everything in world axes at the model's written configuration,
//! where both place their bodies. A model refused only for its tendons is compared on a copy
//! without them (tendons add no mass). Ignored by default (needs the model sets):
//! `FERRODYN_IMPORT_CORPUS=list FERRODYN_MASS_OUT=file cargo test --release -p ferrodyn-host --test suite
//! import_mass:: -- --ignored`.

use ferrodyn_host::import::{import, ImportOptions};
use ferrodyn_kernel::math::Mat3;
use std::fmt::Write;
use std::path::{Path, PathBuf};

fn list(v: &[f64]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:e}")).collect();
    format!("[{}]", items.join(", "))
}

/// A copy of the model at `path` without its `<tendon>` section, in a temporary folder: the
/// included files and the mesh folder named by absolute paths so that they still resolve.
fn without_tendons(path: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(path).ok()?;
    let folder = path.parent()?.canonicalize().ok()?;
    let start = text.find("<tendon>")?;
    let end = text[start..].find("</tendon>")? + start + "</tendon>".len();
    let mut copy = format!("{}{}", &text[..start], &text[end..]);
    copy = copy.replace(
        "<include file=\"",
        &format!("<include file=\"{}/", folder.display()),
    );
    copy = if copy.contains("meshdir=\"") {
        copy.replace("meshdir=\"", &format!("meshdir=\"{}/", folder.display()))
    } else {
        let at = copy.find("<compiler")?;
        format!(
            "{}<compiler meshdir=\"{}\"/>{}",
            &copy[..at],
            folder.display(),
            &copy[at..]
        )
    };
    let dir = std::env::temp_dir().join(format!("ferrodyn-mass-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let out = dir.join(path.file_name()?);
    std::fs::write(&out, copy).ok()?;
    Some(out)
}

#[test]
#[ignore = "needs the model sets installed by .ci/import"]
fn body_mass_properties_of_imported_mjcf_models() {
    let corpus = std::env::var("FERRODYN_IMPORT_CORPUS").expect("FERRODYN_IMPORT_CORPUS");
    let out = std::env::var("FERRODYN_MASS_OUT").expect("FERRODYN_MASS_OUT");
    let mut json = String::new();
    for path in std::fs::read_to_string(corpus)
        .unwrap()
        .lines()
        .filter(|l| l.ends_with(".xml"))
    {
        let imported = match import(Path::new(path), &ImportOptions::default()) {
            Ok(imported) => imported,
            // Tendons do not change any body's mass: such models (the dog, the fruit fly, whose
            // mass is in mesh geoms) are compared on a copy without them.
            Err(e) if e.reason.contains("inside <tendon>") => match without_tendons(Path::new(path))
                .and_then(|copy| import(&copy, &ImportOptions::default()).ok())
            {
                Some(imported) => imported,
                None => continue,
            },
            Err(_) => continue,
        };
        let mut bodies = Vec::new();
        for named in &imported.scene.bodies {
            let b = &named.value.body;
            let r = b.orientation.to_matrix();
            let com = b.position + r.mul_vec(b.cg);
            let i: Mat3<f64> = r.mul_mat(&b.inertia).mul_mat(&r.transpose());
            bodies.push(format!(
                "{{\"name\": \"{}\", \"mass\": {:e}, \"com\": {}, \"inertia\": {}}}",
                named.name,
                b.mass,
                list(&com.to_array()),
                list(&[i.m[0][0], i.m[1][1], i.m[2][2], i.m[0][1], i.m[0][2], i.m[1][2]])
            ));
        }
        writeln!(
            json,
            "{{\"model\": \"{path}\", \"bodies\": [{}]}}",
            bodies.join(", ")
        )
        .unwrap();
    }
    assert!(!json.is_empty(), "no MJCF model imported");
    std::fs::write(out, json).unwrap();
}
