//! Bounds on what the host reads: every input file is read through [`read_capped`], so a path
//! to `/dev/zero` or a runaway file ends in an error naming the file's kind and the cap
//! instead of filling the memory.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Largest scene file read by default (bytes): 64 MiB is about 2·10⁵ bodies with their joints;
/// `--max-scene-size` raises it ([`set_scene_file_limit`]).
pub const SCENE_FILE_LIMIT: u64 = 64 << 20;
/// What the scene file limit's error says to raise it.
const SCENE_FILE_KIND: &str = "scene files; raise it with --max-scene-size (e.g. --max-scene-size 1G)";
/// Largest Gmsh mesh read (bytes): 1 GiB holds about 10⁷ tetrahedra in ASCII.
pub const MESH_FILE_LIMIT: u64 = 1 << 30;
/// Largest OBJ contact mesh read (bytes).
pub const OBJ_FILE_LIMIT: u64 = 256 << 20;
/// Largest STL mesh of a robot model read (bytes): 5·10⁶ triangles in binary.
pub const STL_FILE_LIMIT: u64 = 256 << 20;

/// Reads the file at `path` if it holds at most `limit` bytes; `kind` ("scene files") names
/// the limit in the error.
pub fn read_capped(path: &Path, limit: u64, kind: &str) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("larger than {}, the limit of {kind}", bytes_text(limit)),
        ));
    }
    Ok(bytes)
}

/// [`read_capped`] as UTF-8 text.
pub fn read_text_capped(path: &Path, limit: u64, kind: &str) -> std::io::Result<String> {
    String::from_utf8(read_capped(path, limit, kind)?)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// The scene file limit set with `--max-scene-size` (0: not set).
static MAX_SCENE_FILE: AtomicU64 = AtomicU64::new(0);

/// Sets the scene file limit (`--max-scene-size`).
pub fn set_scene_file_limit(bytes: u64) {
    MAX_SCENE_FILE.store(bytes, Ordering::Relaxed);
}

/// Reads the scene file at `path` as text, within [`SCENE_FILE_LIMIT`] or the limit
/// `--max-scene-size` set; the error names the limit and how to raise it.
pub fn read_scene_file(path: &Path) -> std::io::Result<String> {
    let limit = match MAX_SCENE_FILE.load(Ordering::Relaxed) {
        0 => SCENE_FILE_LIMIT,
        set => set,
    };
    read_text_capped(path, limit, SCENE_FILE_KIND)
}

/// Memory a flexible body takes per tetrahedron, all included (model, state, integrator and
/// output buffers): measured, a 6,000-tet box took 337 MB.
pub const BYTES_PER_TET: f64 = 56e3;
/// Memory a rigid body or a tree link takes, all included.
pub const BYTES_PER_BODY: f64 = 4e3;

/// The memory limit set with `--max-memory` (0: not set).
static MAX_MEMORY: AtomicU64 = AtomicU64::new(0);

/// Sets the memory limit (`--max-memory`).
pub fn set_max_memory(bytes: u64) {
    MAX_MEMORY.store(bytes, Ordering::Relaxed);
}

/// The memory limit: `--max-memory`, else half of this machine's memory (8 GiB where that is
/// unknown); and where it comes from.
pub fn max_memory() -> (u64, &'static str) {
    match MAX_MEMORY.load(Ordering::Relaxed) {
        0 => physical_memory().map_or((8 << 30, "the default"), |m| {
            (m / 2, "half of this machine's memory")
        }),
        set => (set, "--max-memory"),
    }
}

fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf reads two constants of the system.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages > 0 && size > 0).then(|| pages as u64 * size as u64)
}

/// Refuses `what` when its estimated memory `bytes` exceeds the limit, before anything is
/// allocated: "this box needs about 6.4 GB (…); the limit is …; raise it with --max-memory".
pub fn check_memory(what: &str, bytes: f64) -> Result<(), String> {
    let (limit, from) = max_memory();
    if bytes <= limit as f64 {
        return Ok(());
    }
    let need = if bytes >= u64::MAX as f64 {
        format!("{bytes:.1e} bytes")
    } else {
        bytes_text(bytes as u64)
    };
    Err(format!(
        "{what} needs about {need}; the limit is {} ({from}); raise it with --max-memory (e.g. --max-memory 64G)",
        bytes_text(limit)
    ))
}

/// Most steps a run may take: beyond 2⁵³ the step count is no longer exact in f64 (and at
/// 1 µs a step it would take 285 years).
pub const STEP_LIMIT: f64 = 9_007_199_254_740_992.0;
/// Step count from which `check` and `run` warn.
pub const STEPS_WARNING: f64 = 1e8;
/// Output size (bytes) from which `check` and `run` warn.
pub const OUTPUT_WARNING: f64 = 10e9;

/// Refuses a time span of more than [`STEP_LIMIT`] steps, naming the count.
pub fn check_steps(end_time: f64, step: f64) -> Result<(), String> {
    let steps = (end_time / step).round();
    match steps > STEP_LIMIT {
        true => Err(format!(
            "{end_time} s in steps of {step} s is {steps:.3e} steps, more than 2⁵³ ({STEP_LIMIT:.3e})"
        )),
        false => Ok(()),
    }
}

/// Bytes the recorders write per output time, estimated: about 22 bytes a CSV number
/// (time, 7 per rigid body, 3 per joint, the sensors' columns, 7 of energy) and a VTU frame
/// of about 200 bytes a node and 60 a tetrahedron.
pub fn output_bytes_per_time(
    bodies: usize,
    joints: usize,
    sensor_columns: usize,
    nodes: usize,
    tets: usize,
) -> f64 {
    let numbers = 1 + 7 * bodies + 3 * joints + sensor_columns + 7;
    22.0 * numbers as f64 + 200.0 * nodes as f64 + 60.0 * tets as f64
}

/// Warnings about a run of `steps` steps writing `outputs` output times of
/// `bytes_per_output` bytes each: many steps (≥ 10⁸) or much output (≥ 10 GB).
pub fn run_size_warnings(steps: u64, outputs: u64, bytes_per_output: f64) -> Vec<String> {
    let mut warnings = Vec::new();
    let bytes = outputs as f64 * bytes_per_output;
    if steps as f64 >= STEPS_WARNING {
        warnings.push(format!(
            "WARNING: {steps} steps (≥ 1e8): at 1 µs a step that is {:.1} h",
            steps as f64 * 1e-6 / 3600.0
        ));
    }
    if bytes >= OUTPUT_WARNING {
        warnings.push(format!(
            "WARNING: the results will take about {} ({outputs} output times of {}); raise output_interval to write fewer",
            bytes_text(bytes as u64),
            bytes_text(bytes_per_output as u64)
        ));
    }
    warnings
}

/// Parses a size for `--max-memory`: bytes, or a number with K, M, G or T (powers of 1024).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (number, unit) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => t.split_at(i),
        None => (t, ""),
    };
    let shift = match unit.to_ascii_uppercase().trim_end_matches(['B', 'I']) {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => {
            return Err(format!(
                "'{text}': give bytes or a number with K, M, G or T (e.g. 64G)"
            ))
        }
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("'{text}': give bytes or a number with K, M, G or T (e.g. 64G)"))?;
    let bytes = value * (1u64 << shift) as f64;
    if !(bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(format!("'{text}' is not a size in 1 byte … 16 EiB"));
    }
    Ok(bytes as u64)
}

/// "16 MiB", "1 GiB", "6.4 GB": a size for a message.
pub fn bytes_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1_000_000_000 => format!("{:.1} GB", b as f64 / 1e9),
        b if b >= 1_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_file_is_cut_at_the_limit() {
        let e = read_capped(Path::new("/dev/zero"), 1 << 10, "scene files").unwrap_err();
        assert_eq!(e.to_string(), "larger than 1024 bytes, the limit of scene files");
    }

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("64G"), Ok(64 << 30));
        assert_eq!(parse_size("512 MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("lots").is_err() && parse_size("-1G").is_err());
    }

    #[test]
    fn an_estimate_over_the_limit_is_refused_with_the_figures() {
        set_max_memory(1 << 30);
        let e = check_memory("this box (6e9 tets)", 6.4e9).unwrap_err();
        assert_eq!(
            e,
            "this box (6e9 tets) needs about 6.4 GB; the limit is 1 GiB (--max-memory); raise it with --max-memory (e.g. --max-memory 64G)"
        );
        assert!(check_memory("a small box", 1e6).is_ok());
        set_max_memory(0);
    }

    #[test]
    fn sizes_are_written_in_their_unit() {
        assert_eq!(bytes_text(SCENE_FILE_LIMIT), "64 MiB");
        assert_eq!(bytes_text(MESH_FILE_LIMIT), "1 GiB");
        assert_eq!(bytes_text(6_442_450_944), "6 GiB");
        assert_eq!(bytes_text(6_400_000_000), "6.4 GB");
    }
}
