//! `ferrodyn export fmu`: a scene as an FMI 3.0 or 2.0 co-simulation unit (docs/fmu.md).
//!
//! The FMU is a zip of `modelDescription.xml`, the `ferrodyn-fmu` shared library (a workspace
//! member, `cargo build --release -p ferrodyn-fmu`: it serves both FMI versions) under the platform folder, and the scene (and
//! its mesh files) under `resources/`. At instantiation the library reads the scene back with
//! [`resources_scene`], compiles it as `ferrodyn run` does and steps it at the scene's step.
//! The variables ([`variables`]) are laid out here once, for the model description and for the
//! library: the time, the `[[input]]` ports, the sensor channels.

pub use super::fmu_description::{generation_date, model_description, Capabilities};
use crate::commands::Overrides;
use crate::compile::compile;
use crate::scene::Scene;
use anyhow::{anyhow, bail, Context, Result};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The FMI version of an FMU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FmiVersion {
    /// FMI 2.0 (co-simulation).
    V2,
    /// FMI 3.0 (co-simulation).
    V3,
}

impl FmiVersion {
    /// "2" or "3", as `--fmi` takes it.
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "2" | "2.0" => Ok(Self::V2),
            "3" | "3.0" => Ok(Self::V3),
            other => bail!("unknown FMI version '{other}'; choose 3 or 2"),
        }
    }
    /// The folder of the Linux x86_64 binary in the FMU.
    pub fn binary_dir(self) -> &'static str {
        match self {
            Self::V2 => "binaries/linux64",
            Self::V3 => "binaries/x86_64-linux",
        }
    }
}

/// What a variable is to the importer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Causality {
    /// The time.
    Independent,
    /// An `[[input]]` port.
    Input,
    /// A sensor channel.
    Output,
}

/// A variable of the FMU (all Float64 / Real).
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    /// Value reference (0: time, then the inputs, then the outputs).
    pub reference: u32,
    /// Name: the input's name or the sensor column (`tip_x`).
    pub name: String,
    /// Time, input or output.
    pub causality: Causality,
    /// Start value (inputs: the scene's `value`).
    pub start: Option<f64>,
    /// One line for the importer's user.
    pub description: String,
    /// The SI unit of the physical value (`s`, `m`, `rad/s`, `N·m`, …).
    pub unit: &'static str,
    /// SI units per unit of the variable's value: an input's `scale`, else 1.
    pub scale: f64,
}

/// Value reference of the time.
pub const TIME_REFERENCE: u32 = 0;

/// The variables of `scene`: the time (reference 0), its `[[input]]` ports in file order
/// (1…), then every sensor channel in the order of `sensors.csv`'s columns.
pub fn variables(scene: &Scene) -> Vec<Variable> {
    let mut out = vec![Variable {
        reference: TIME_REFERENCE,
        name: "time".into(),
        causality: Causality::Independent,
        start: None,
        description: "Simulation time (s)".into(),
        unit: "s",
        scale: 1.0,
    }];
    for input in &scene.inputs {
        let joint = &scene.joints[input.value.joint];
        let (quantity, unit) = input.value.quantity(joint.value.kind);
        out.push(Variable {
            reference: out.len() as u32,
            name: input.name.clone(),
            causality: Causality::Input,
            start: Some(input.value.value),
            description: format!(
                "{quantity} of joint {} ({unit}) = value × {}",
                joint.name, input.value.scale
            ),
            unit,
            scale: input.value.scale,
        });
    }
    for sensor in &scene.sensors {
        for (column, unit) in sensor.columns().into_iter().zip(sensor.units()) {
            out.push(Variable {
                reference: out.len() as u32,
                name: column,
                causality: Causality::Output,
                start: None,
                description: format!("sensor {} ({unit})", sensor.name),
                unit,
                scale: 1.0,
            });
        }
    }
    out
}

/// The file in `resources/` that names the scene's path inside `resources/` (first line) and
/// the `[simulation]` settings given at export (one `--flag value` a line, as on the command
/// line).
pub const SCENE_INDEX: &str = "ferrodyn-scene.txt";

/// The lines of [`SCENE_INDEX`] after the scene's path: the settings of `overrides`.
pub fn settings_lines(overrides: &Overrides) -> String {
    let mut lines = String::new();
    let mut line = |flag: &str, value: Option<String>| {
        if let Some(v) = value {
            let _ = writeln!(lines, "{flag} {v}");
        }
    };
    line("--end", overrides.end.map(|v| format!("{v:?}")));
    line("--dt", overrides.dt.map(|v| format!("{v:?}")));
    line("--integrator", overrides.integrator.clone());
    line("--rtol", overrides.rtol.map(|v| format!("{v:?}")));
    line("--formulation", overrides.formulation.clone());
    lines
}

/// The settings [`settings_lines`] wrote.
fn parse_settings(lines: &str) -> Result<Overrides> {
    let mut o = Overrides::default();
    for line in lines.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (flag, value) = line.split_once(' ').unwrap_or((line, ""));
        let number = || {
            value
                .parse::<f64>()
                .map_err(|_| anyhow!("{SCENE_INDEX}: {flag} takes a number, not '{value}'"))
        };
        match flag {
            "--end" => o.end = Some(number()?),
            "--dt" => o.dt = Some(number()?),
            "--integrator" => o.integrator = Some(value.to_string()),
            "--rtol" => o.rtol = Some(number()?),
            "--formulation" => o.formulation = Some(value.to_string()),
            _ => bail!("{SCENE_INDEX}: unknown setting '{line}'"),
        }
    }
    Ok(o)
}

/// The scene an FMU carries in its `resources` folder with the settings given at export
/// applied, and its token (of the scene's text and those settings).
pub fn resources_scene(resources: &Path) -> Result<(Scene, String)> {
    let index = resources.join(SCENE_INDEX);
    let listing = std::fs::read_to_string(&index).with_context(|| format!("reading {}", index.display()))?;
    let (relative, settings) = listing.split_once('\n').unwrap_or((&listing, ""));
    let path = resources.join(relative.trim());
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let mut scene = Scene::parse(&path, &text)?;
    parse_settings(settings)?.apply(&mut scene.simulation)?;
    Ok((scene, packed_token(&text, settings)))
}

/// The instantiation token (3.0) / GUID (2.0) of a scene: a 128-bit FNV-1a hash of its text,
/// written as a GUID. The library refuses to instantiate with another one.
pub fn token(text: &str) -> String {
    // Two 64-bit FNV-1a hashes with different offsets make the 128 bits.
    let fnv = |offset: u64| {
        text.bytes().fold(offset, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    let (a, b) = (fnv(0xcbf2_9ce4_8422_2325), fnv(0x6c62_272e_07bb_0142));
    format!(
        "{{{:08x}-{:04x}-{:04x}-{:04x}-{:012x}}}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xffff,
        b >> 48,
        b & 0xffff_ffff_ffff
    )
}

/// The token of an FMU carrying the scene `text` with the [`settings_lines`] `settings`: the
/// library refuses to instantiate when either differs from what was exported.
fn packed_token(text: &str, settings: &str) -> String {
    token(&format!("{text}{settings}"))
}

/// The C identifier an FMU's library is named by: the scene's file stem, other characters
/// than letters, digits and `_` replaced by `_`.
pub fn model_identifier(scene_path: &Path) -> String {
    let stem = scene_path.file_stem().and_then(|s| s.to_str()).unwrap_or("scene");
    let mut id: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !id.starts_with(|c: char| c.is_ascii_alphabetic()) {
        id.insert_str(0, "scene_");
    }
    id
}

/// The file name of the FMU library the workspace builds (`cargo build --release`).
pub const LIBRARY_FILE: &str = "libferrodyn_fmu.so";

/// The FMU library next to the running executable (target/release/ for `ferrodyn`), or an
/// error that says how to build it.
pub fn find_library() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("locating the ferrodyn executable")?;
    let dir = exe
        .parent()
        .ok_or_else(|| anyhow!("the executable has no folder"))?;
    // Test binaries run from target/<profile>/deps.
    for candidate in [dir.join(LIBRARY_FILE), dir.join("..").join(LIBRARY_FILE)] {
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    bail!(
        "the FMU library {LIBRARY_FILE} is not next to {}: build it with `cargo build --release -p ferrodyn-fmu` \
         (the profile of this ferrodyn; `cargo build --release --workspace` builds both), or pass --library",
        exe.display()
    )
}

/// What [`write_fmu`] wrote.
#[derive(Clone, Debug)]
pub struct Written {
    /// Variables in the model description.
    pub variables: usize,
    /// Of those, outputs (sensor channels).
    pub outputs: usize,
    /// What the FMU claims.
    pub caps: Capabilities,
    /// The settings that changed the scene's `[simulation]`, as `--flag value (was old)`.
    pub changes: Vec<String>,
}

/// Writes the FMU of the scene at `scene_path` in `version` with the `[simulation]` settings
/// of `overrides` to `out`, with the library at `library`.
pub fn write_fmu(
    scene_path: &Path,
    version: FmiVersion,
    overrides: &Overrides,
    library: &Path,
    out: &Path,
) -> Result<Written> {
    let text = crate::limits::read_scene_file(scene_path)
        .with_context(|| format!("reading {}", scene_path.display()))?;
    let mut scene = Scene::parse(scene_path, &text)?;
    let changes = overrides.apply(&mut scene.simulation)?;
    let settings = settings_lines(overrides);
    let token = packed_token(&text, &settings);
    // The library compiles the scene at instantiation: fail here instead, with the reason.
    let sim = compile(&scene)?;
    let caps = Capabilities {
        state: sim.resume_point().is_some(),
    };
    let identifier = model_identifier(scene_path);
    let (scene_entry, meshes) = resource_layout(scene_path, &scene)?;
    let library_bytes = std::fs::read(library).with_context(|| format!("reading {}", library.display()))?;
    if !library_bytes.starts_with(b"\x7fELF") {
        bail!(
            "{} is not a shared library ({} bytes, no ELF header): build it with `cargo build --release -p ferrodyn-fmu`",
            library.display(),
            library_bytes.len()
        );
    }

    let file = std::fs::File::create(out).with_context(|| format!("creating {}", out.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    // Stored, not deflated: the zip crate is built without compression back ends.
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .unix_permissions(0o644);
    let mut add = |name: &str, bytes: &[u8]| -> Result<()> {
        zip.start_file(name, options)
            .with_context(|| format!("adding {name}"))?;
        zip.write_all(bytes).with_context(|| format!("adding {name}"))?;
        Ok(())
    };
    add(
        "modelDescription.xml",
        model_description(&scene, &token, &identifier, version, caps, &generation_date()).as_bytes(),
    )?;
    add(
        &format!("{}/{identifier}.so", version.binary_dir()),
        &library_bytes,
    )?;
    add(
        &format!("resources/{SCENE_INDEX}"),
        format!("{scene_entry}\n{settings}").as_bytes(),
    )?;
    add(&format!("resources/{scene_entry}"), text.as_bytes())?;
    for (entry, path) in &meshes {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        add(&format!("resources/{entry}"), &bytes)?;
    }
    zip.finish()
        .with_context(|| format!("writing {}", out.display()))?;
    let vars = variables(&scene);
    Ok(Written {
        variables: vars.len(),
        outputs: vars.iter().filter(|v| v.causality == Causality::Output).count(),
        caps,
        changes,
    })
}

/// Where the scene and its mesh files go in `resources/`: their paths relative to the
/// deepest folder holding them all, so that the scene's relative mesh paths still resolve.
fn resource_layout(scene_path: &Path, scene: &Scene) -> Result<(String, Vec<(String, PathBuf)>)> {
    let absolute = |p: &Path| std::fs::canonicalize(p).with_context(|| format!("locating {}", p.display()));
    let scene_file = absolute(scene_path)?;
    let mut meshes = Vec::new();
    for flexible in &scene.flexibles {
        if flexible.mesh_path.is_file() {
            meshes.push(absolute(&flexible.mesh_path)?);
        }
    }
    let shapes = scene.contact.iter().flat_map(|c| &c.shapes);
    for file in shapes.filter_map(|s| s.mesh_file.as_ref()) {
        meshes.push(absolute(file)?);
    }
    meshes.sort();
    meshes.dedup();
    let mut root = scene_file.parent().map(Path::to_path_buf).unwrap_or_default();
    for mesh in &meshes {
        while !mesh.starts_with(&root) {
            if !root.pop() {
                bail!("{} shares no folder with the scene", mesh.display());
            }
        }
    }
    let entry = |p: &Path| -> Result<String> {
        let relative = p.strip_prefix(&root)?;
        let parts: Vec<&str> = relative.iter().map(|c| c.to_str().unwrap_or("_")).collect();
        Ok(parts.join("/"))
    };
    let mesh_entries = meshes
        .iter()
        .map(|m| Ok((entry(m)?, m.clone())))
        .collect::<Result<Vec<_>>>()?;
    Ok((entry(&scene_file)?, mesh_entries))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// scenes/hil_arm.toml, read, and its text.
    pub(crate) fn hil_arm() -> (Scene, String) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/hil_arm.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        (Scene::parse(&path, &text).unwrap(), text)
    }

    #[test]
    fn variables_are_time_inputs_then_sensor_columns() {
        let (scene, _) = hil_arm();
        let names: Vec<String> = variables(&scene).into_iter().map(|v| v.name).collect();
        let expected = [
            "time",
            "torque",
            "encoder_angle",
            "encoder_rate",
            "tip_x",
            "tip_y",
            "tip_z",
            "tip_vx",
            "tip_vy",
            "tip_vz",
        ];
        assert_eq!(names, expected);
    }

    #[test]
    fn token_is_a_guid_of_the_text() {
        let t = token("a");
        assert_eq!(t.len(), 38);
        assert_ne!(t, token("b"));
        assert_eq!(t, token("a"));
    }
}
