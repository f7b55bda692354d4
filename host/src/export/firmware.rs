//! A scene as a standalone firmware crate (`ferrodyn export firmware`): the module of
//! [`super::rust_module`] as `src/scene.rs`, a `main.rs` running the HIL loop on its ports and
//! printing the state digest as `ferrodyn run` does, a `rig.rs` for the user's I/O, and what
//! `cargo build --release` / `cargo run --release` need for the part: its memory map, the
//! target and a QEMU runner. The crate depends on the kernel by path.
//!
//! The memory maps are the firmware examples' own (`firmware-examples/memory/`), and the
//! profile, target and target CPU are those `.ci/firmware` builds with, so an exported scene
//! steps the instructions the project's cross-check measures.

use super::rust::{refused, rust_module, Precision};
use super::target::Core;
use crate::scene::{Scene, SceneError};

/// A part a firmware crate is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// QEMU's MPS2 board with the AN386 image: Cortex-M4F at 25 MHz.
    Mps2An386,
    /// STM32F405/F407 (Cortex-M4F at 168 MHz; QEMU's netduinoplus2 runs it).
    Stm32f405,
    /// A Cortex-M7 with the double-precision FPU on QEMU's MPS2 AN500 board (25 MHz there),
    /// sized as an STM32F767.
    Mps2An500,
}

/// Every part, in the order the CLI lists them.
pub const PARTS: [Part; 3] = [Part::Mps2An386, Part::Stm32f405, Part::Mps2An500];

impl Part {
    /// The part called `name` (`mps2-an386`, `stm32f405`, `mps2-an500`).
    pub fn from_name(name: &str) -> Option<Self> {
        PARTS.into_iter().find(|p| p.name() == name)
    }
    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Mps2An386 => "mps2-an386",
            Self::Stm32f405 => "stm32f405",
            Self::Mps2An500 => "mps2-an500",
        }
    }
    /// Its core.
    pub fn core(self) -> Core {
        match self {
            Self::Mps2An386 | Self::Stm32f405 => Core::CortexM4F,
            Self::Mps2An500 => Core::CortexM7,
        }
    }
    /// The core clock SysTick counts (Hz): the part's, as QEMU's machine clocks it (the same
    /// as `firmware-examples/board`'s `PART`, which a test compares).
    pub fn core_hz(self) -> u32 {
        match self {
            Self::Mps2An386 | Self::Mps2An500 => 25_000_000,
            Self::Stm32f405 => 168_000_000,
        }
    }
    /// The QEMU machine that runs its image.
    pub fn qemu_machine(self) -> &'static str {
        match self {
            Self::Mps2An386 => "mps2-an386",
            Self::Stm32f405 => "netduinoplus2",
            Self::Mps2An500 => "mps2-an500",
        }
    }
    /// Its memory map for cortex-m-rt's `link.x` (`memory.x`).
    pub fn memory_map(self) -> &'static str {
        match self {
            Self::Mps2An386 => include_str!("../../../firmware-examples/memory/mps2-an386.x"),
            Self::Stm32f405 => include_str!("../../../firmware-examples/memory/stm32f405.x"),
            Self::Mps2An500 => include_str!("../../../firmware-examples/memory/mps2-an500.x"),
        }
    }
    /// The rustc flags beyond the linker script: the M7's own code generation (its fpv5-d16
    /// FPU computes f64 in hardware), as `.ci/firmware` builds it.
    fn target_cpu(self) -> Option<&'static str> {
        match self {
            Self::Mps2An500 => Some("target-cpu=cortex-m7"),
            _ => None,
        }
    }
}

/// The Rust target every part builds for (Cortex-M4F and M7, hard-float ABI).
pub const TARGET: &str = "thumbv7em-none-eabihf";

/// The libm the host links (the workspace's Cargo.lock): the firmware crate pins the same, so
/// its f64 sin, cos, sqrt and atan2 are the bits `ferrodyn run` computes with.
pub const LIBM_VERSION: &str = "0.2.16";

/// QEMU's virtual time per instruction under the runner's `-icount shift=0` (ns): the
/// firmware turns SysTick ticks into instructions with it.
const QEMU_NS_PER_INSTRUCTION: u32 = 1;

/// A file of the crate: its path inside the crate directory and its text.
pub struct CrateFile {
    /// Relative path (`Cargo.toml`, `src/main.rs`, …).
    pub path: &'static str,
    /// Contents.
    pub text: String,
}

/// The firmware crate of `scene` for `part` in `precision`, depending on the kernel at
/// `kernel` (a directory, written into Cargo.toml as it is given).
pub fn firmware_crate(
    scene: &Scene,
    part: Part,
    precision: Precision,
    kernel: &str,
) -> Result<Vec<CrateFile>, SceneError> {
    let module = rust_module(scene, precision)?;
    let stem = scene
        .path()
        .file_stem()
        .map_or("scene".into(), |s| s.to_string_lossy().into_owned());
    let name = package_name(&stem).ok_or_else(|| {
        refused(
            scene,
            format!("the file stem \"{stem}\" makes no cargo package name (start it with a letter)"),
        )
    })?;
    // A scene with contacts or force elements steps with them as external forces, as `ferrodyn
    // run` does (contacts shown the initial state first: `export::tree_contact`; both: the
    // force elements' loads first, then the contacts', as the host sums them); the others as
    // before.
    let has_contacts = module.contains(super::tree_contact::CONTACTS_FN);
    let has_forces = module.contains(super::tree_forces::FORCES_FN);
    let make_contacts = "    let mut contacts = scene::contacts(model).map_err(Error::Build)?;\n    model.accept(data, &mut contacts).map_err(Error::Step)?;\n";
    let make_forces = "\n    let mut forces = scene::forces(model).map_err(Error::Build)?;";
    let (contacts, forces, step) = match (has_contacts, has_forces) {
        (true, true) => (
            make_contacts,
            make_forces,
            "model.step_with(data, &mut integrator, dt, &mut (&mut forces, &mut contacts))",
        ),
        (true, false) => (
            make_contacts,
            "",
            "model.step_with(data, &mut integrator, dt, &mut contacts)",
        ),
        (false, true) => (
            "",
            make_forces,
            "model.step_with(data, &mut integrator, dt, &mut forces)",
        ),
        (false, false) => ("", "", "model.step(data, &mut integrator, dt)"),
    };
    let substitute = |template: &str| {
        template
            .replace("{CONTACTS}", contacts)
            .replace("{STEP}", step)
            .replace("{SCENE}", &stem)
            .replace("{PART}", part.name())
            .replace("{CORE}", part.core().name())
            .replace("{CORE_HZ}", &part.core_hz().to_string())
            .replace("{QEMU_MACHINE}", part.qemu_machine())
            .replace("{QEMU_NS_PER_INSTRUCTION}", &QEMU_NS_PER_INSTRUCTION.to_string())
            .replace("{PRECISION}", precision.name())
            .replace("{INTEGRATOR}", scene.simulation.integrator.name())
            .replace("{FORCES}", forces)
    };
    Ok(vec![
        CrateFile {
            path: "Cargo.toml",
            text: cargo_toml(&name, &stem, part, precision, kernel),
        },
        CrateFile {
            path: ".cargo/config.toml",
            text: cargo_config(part),
        },
        CrateFile {
            path: "memory.x",
            text: part.memory_map().into(),
        },
        CrateFile {
            path: "build.rs",
            text: include_str!("firmware_crate/build.rs.txt").into(),
        },
        CrateFile {
            path: "src/main.rs",
            text: substitute(include_str!("firmware_crate/main.rs.txt")),
        },
        CrateFile {
            path: "src/rig.rs",
            text: include_str!("firmware_crate/rig.rs.txt").into(),
        },
        CrateFile {
            path: "src/scene.rs",
            text: module,
        },
    ])
}

/// A cargo package name from a scene's file stem: lower case, `-` for anything but letters,
/// digits, `-` and `_`, then `-firmware`; none if it does not start with a letter.
fn package_name(stem: &str) -> Option<String> {
    let name: String = stem
        .chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '-' | '_' => c,
            'A'..='Z' => c.to_ascii_lowercase(),
            _ => '-',
        })
        .collect();
    name.starts_with(|c: char| c.is_ascii_lowercase())
        .then(|| format!("{name}-firmware"))
}

/// A TOML basic string of `text`.
fn toml_string(text: &str) -> String {
    format!("{:?}", text)
}

fn cargo_toml(name: &str, stem: &str, part: Part, precision: Precision, kernel: &str) -> String {
    format!(
        r#"# Written by `ferrodyn export firmware` from {stem} for {part} ({core}), {precision}.
# `cargo build --release` builds it for {target}; `cargo run --release` runs it under QEMU
# (.cargo/config.toml). src/scene.rs is generated: export again after changing the scene.
[package]
name = "{name}"
version = "0.1.0"
edition = "2021"
publish = false

[[bin]]
name = "{name}"
test = false
bench = false

[dependencies]
# The kernel of the Ferrodyn checkout this crate was exported from (--kernel-path).
ferrodyn-kernel = {{ path = {kernel} }}
# Pinned to the libm the host is built with: the same f64 sin, cos, sqrt, atan2 bits as
# `ferrodyn run`.
libm = "={libm}"
cortex-m = {{ version = "0.7", features = ["critical-section-single-core"] }}
cortex-m-rt = "0.7"
# Output and exit through the debugger or QEMU (semihosting).
cortex-m-semihosting = "0.5"
# The model and its data built in place in static RAM, never on the stack.
static_cell = "2"

[features]
# The runner is QEMU: print SysTick's count as instructions (-icount shift=0). Build for the
# part itself with `--no-default-features`: core cycles.
default = ["qemu"]
qemu = []

# A standalone crate, not a member of an enclosing workspace.
[workspace]

# As the firmware examples build (firmware-examples/Cargo.toml): symbols kept for the
# instruction counter, debug information is not loaded into flash.
[profile.release]
panic = "abort"
opt-level = 3
lto = true
codegen-units = 1
debug = "line-tables-only"

[profile.dev]
panic = "abort"
opt-level = 1
"#,
        part = part.name(),
        core = part.core().name(),
        precision = precision.name(),
        target = TARGET,
        kernel = toml_string(kernel),
        libm = LIBM_VERSION,
    )
}

fn cargo_config(part: Part) -> String {
    let mut rustflags = vec!["-C", "link-arg=-Tlink.x"];
    if let Some(cpu) = part.target_cpu() {
        rustflags.extend(["-C", cpu]);
    }
    let rustflags: Vec<String> = rustflags.iter().map(|f| toml_string(f)).collect();
    format!(
        r#"# {part}: {core} at {mhz} MHz. `cargo run --release` runs the image under QEMU's {machine}
# machine with semihosting (output on this terminal, exit code from the firmware);
# -icount shift=0 makes QEMU's virtual time 1 ns per instruction, so SysTick counts
# instructions (the firmware prints them per step). On the hardware, flash the ELF
# (target/{target}/release/<name>) with your probe instead; SysTick then counts core cycles.
[build]
target = "{target}"

[target.{target}]
runner = "qemu-system-arm -machine {machine} -nographic -icount shift=0 -semihosting-config enable=on,target=native -kernel"
rustflags = [{rustflags}]
"#,
        part = part.name(),
        core = part.core().name(),
        mhz = part.core_hz() / 1_000_000,
        machine = part.qemu_machine(),
        target = TARGET,
        rustflags = rustflags.join(", "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crate_pins_the_libm_the_host_is_locked_to() {
        let lock = include_str!("../../../Cargo.lock");
        let entry = lock
            .split("[[package]]")
            .find(|p| p.contains("name = \"libm\""))
            .expect("libm in Cargo.lock");
        assert!(
            entry.contains(&format!("version = \"{LIBM_VERSION}\"")),
            "{entry}"
        );
    }

    #[test]
    fn package_names_follow_cargo() {
        assert_eq!(package_name("chain5").as_deref(), Some("chain5-firmware"));
        assert_eq!(package_name("My Arm").as_deref(), Some("my-arm-firmware"));
        assert_eq!(package_name("2link"), None);
    }

    #[test]
    fn parts_are_the_firmware_examples_boards() {
        // firmware-examples/board states each part once for the project's own firmware: the
        // exported crate must build and clock the same part.
        let board = include_str!("../../../firmware-examples/board/src/lib.rs");
        for part in PARTS {
            let at = board
                .find(&format!("name: \"{}\"", part.name()))
                .unwrap_or_else(|| panic!("{} in board", part.name()));
            let entry = &board[at..at + board[at..].find("};").unwrap()];
            let hz = part.core_hz().to_string();
            let hz = format!(
                "{}_{}_{}",
                &hz[..hz.len() - 6],
                &hz[hz.len() - 6..hz.len() - 3],
                &hz[hz.len() - 3..]
            );
            assert!(entry.contains(&format!("core_hz: {hz},")), "{entry}");
            assert!(
                entry.contains(&format!("core: \"{}\"", part.core().name())),
                "{entry}"
            );
            assert!(
                entry.contains(&format!("qemu_machine: \"{}\"", part.qemu_machine())),
                "{entry}"
            );
        }
    }

    #[test]
    fn parts_are_found_by_name() {
        for part in PARTS {
            assert_eq!(Part::from_name(part.name()), Some(part));
            assert!(part.memory_map().contains("MEMORY"));
        }
        assert_eq!(Part::from_name("stm32f407"), None);
    }
}
