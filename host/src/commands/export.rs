//! `ferrodyn export rust`: a scene as a no_std Rust module for the firmware; `ferrodyn export
//! firmware`: a scene as a firmware crate for a part; `ferrodyn export fmu`: a scene as an FMI
//! co-simulation unit.

use super::Overrides;
use crate::export::firmware::{firmware_crate, Part, PARTS};
use crate::export::fmu::{find_library, write_fmu, FmiVersion};
use crate::export::{rust_module, Precision};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The precision called `name` ("f32" or "f64").
fn precision(name: &str) -> Result<Precision> {
    match name {
        "f32" => Ok(Precision::F32),
        "f64" => Ok(Precision::F64),
        other => bail!("unknown precision '{other}'; choose f32 or f64"),
    }
}

/// The Rust module of the scene at `path` in `precision` ("f32" or "f64"), with the
/// `[simulation]` settings of `overrides`; and the settings changed, as `run` lists them.
pub fn rust_module_of(path: &Path, precision: &str, overrides: &Overrides) -> Result<(String, Vec<String>)> {
    let precision = self::precision(precision)?;
    let mut scene = crate::import::load_scene(path)?;
    let changes = overrides.apply(&mut scene.simulation)?;
    Ok((rust_module(&scene, precision)?, changes))
}

/// Writes the Rust module of the scene at `path` in `precision` ("f32" or "f64"), with the
/// `[simulation]` settings of `overrides`, to `out`, or to standard output.
pub fn export_rust(path: &Path, precision: &str, overrides: &Overrides, out: Option<&Path>) -> Result<()> {
    let (module, changes) = rust_module_of(path, precision, overrides)?;
    for change in changes {
        eprintln!("export with {change}");
    }
    match out {
        Some(file) => {
            std::fs::write(file, module).with_context(|| format!("writing {}", file.display()))?;
            eprintln!("wrote {}", file.display());
        }
        None => print!("{module}"),
    }
    Ok(())
}

/// The kernel sources of the checkout this program was built from (`cargo install --path host`
/// or `cargo run` in it): the default `--kernel-path` of `export firmware`.
fn built_from_kernel() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernel")
}

/// The kernel directory at `path` (or the checkout's), absolute, checked to be the kernel.
fn kernel_dir(path: Option<&Path>) -> Result<PathBuf> {
    let given = path.is_some();
    let path = path.map_or_else(built_from_kernel, Path::to_path_buf);
    let manifest = std::fs::read_to_string(path.join("Cargo.toml")).ok();
    if !manifest.is_some_and(|m| m.contains("name = \"ferrodyn-kernel\"")) {
        let whose = if given {
            "the --kernel-path"
        } else {
            "the kernel of the checkout this ferrodyn was built from,"
        };
        bail!(
            "{whose} {} is not the Ferrodyn kernel (no Cargo.toml of ferrodyn-kernel); pass --kernel-path DIR, the kernel/ directory of a Ferrodyn checkout",
            path.display()
        );
    }
    path.canonicalize()
        .with_context(|| format!("{}: cannot resolve", path.display()))
}

/// Writes the firmware crate of the scene at `path` for `part` ("mps2-an386", "stm32f405",
/// "mps2-an500") in `precision`, with the `[simulation]` settings of `overrides`, into the
/// directory `out` (refused where it holds a Cargo.toml, unless `force`; a `src/rig.rs` there
/// is kept), depending on the kernel at `kernel` (default: the checkout's).
pub fn export_firmware(
    path: &Path,
    part: &str,
    precision: &str,
    overrides: &Overrides,
    out: &Path,
    kernel: Option<&Path>,
    force: bool,
) -> Result<()> {
    let Some(part) = Part::from_name(part) else {
        let names: Vec<&str> = PARTS.iter().map(|p| p.name()).collect();
        bail!("unknown part '{part}'; choose {}", names.join(", "));
    };
    let precision = self::precision(precision)?;
    let kernel = kernel_dir(kernel)?;
    let mut scene = crate::import::load_scene(path)?;
    let changes = overrides.apply(&mut scene.simulation)?;
    let kernel_text = kernel
        .to_str()
        .with_context(|| format!("{}: the kernel path is not UTF-8", kernel.display()))?;
    let files = firmware_crate(&scene, part, precision, kernel_text)?;
    if out.join("Cargo.toml").exists() && !force {
        bail!(
            "{}: holds a crate already; --force to write over it (its src/rig.rs is kept)",
            out.display()
        );
    }
    for change in changes {
        eprintln!("export with {change}");
    }
    for file in files {
        let target = out.join(file.path);
        if file.path == "src/rig.rs" && target.exists() {
            eprintln!("kept {} (your rig's I/O)", target.display());
            continue;
        }
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(&target, file.text).with_context(|| format!("writing {}", target.display()))?;
    }
    let qemu = if part.qemu_machine() == part.name() {
        format!("QEMU {}", part.qemu_machine())
    } else {
        format!("QEMU {} standing in for the {}", part.qemu_machine(), part.name())
    };
    eprintln!(
        "wrote {} ({} {}, kernel {}): `cargo build --release` there builds it, `cargo run --release` runs it under {qemu}",
        out.display(),
        part.name(),
        precision.name(),
        kernel.display()
    );
    Ok(())
}

/// Writes the FMU of the scene at `path` for FMI `version` ("3" or "2"), with the
/// `[simulation]` settings of `overrides`, to `out`, with the library built next to this
/// executable (or `library`).
pub fn export_fmu(
    path: &Path,
    version: &str,
    overrides: &Overrides,
    out: &Path,
    library: Option<&Path>,
) -> Result<()> {
    let version = FmiVersion::parse(version)?;
    if crate::import::model_format(path).is_some() {
        // An FMU carries its scene file, which the library reads back as TOML.
        bail!(
            "{}: an FMU carries a scene file; write one first with `ferrodyn import {} -o scene.toml`",
            path.display(),
            path.display()
        );
    }
    let library = match library {
        Some(l) => l.to_path_buf(),
        None => find_library()?,
    };
    let written = write_fmu(path, version, overrides, &library, out)?;
    for change in &written.changes {
        eprintln!("export with {change}");
    }
    let fmi = match version {
        FmiVersion::V2 => "2.0",
        FmiVersion::V3 => "3.0",
    };
    let state = if written.caps.state { "" } else { "out" };
    eprintln!(
        "wrote {} (FMI {fmi} co-simulation, {} variables, with{state} FMU state; library {})",
        out.display(),
        written.variables,
        library.display()
    );
    if written.outputs == 0 {
        eprintln!(
            "warning: {} has no [[sensor]]: the FMU has no outputs, an importer can read nothing from it",
            path.display()
        );
    }
    Ok(())
}
