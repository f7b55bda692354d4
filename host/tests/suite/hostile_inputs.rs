//! Hostile and malformed inputs to the built `ferrodyn` (issue 37; docs/cli.md "Names and
//! output files", "Limits and warnings"): each case ends with its expected message, exit code
//! 1 (or 0 where the input is valid after all), no panic or abort, within a time limit, and
//! nothing written outside `--out`. A bounded proptest fuzz over scene TOML and Gmsh text runs
//! the parsers on mutated inputs: errors, never panics.

use crate::common::scratch_dir;
use ferrodyn_host::gmsh::parse_msh;
use ferrodyn_host::scene::Scene;
use proptest::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const FERRODYN: &str = env!("CARGO_BIN_EXE_ferrodyn");
/// No case may take longer (the debug build; a hang fails here, not in CI's timeout).
const CASE_LIMIT: Duration = Duration::from_secs(60);

/// A one-body scene (`[simulation]`, one body "b"), with `extra` appended.
fn one_body(extra: &str) -> String {
    format!(
        "[simulation]\nend_time = 0.01\nstep = 1e-3\n\n[[body]]\nid = 1\nname = \"b\"\nmass = 1.0\ninertia = {{ Ixx = 1.0, Iyy = 1.0, Izz = 1.0 }}\n{extra}"
    )
}

/// The pendulum (`scenes/pendulum.toml`) with its bob called `name` (TOML basic-string text).
fn pendulum_named(name: &str) -> String {
    fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes/pendulum.toml"))
        .unwrap()
        .replace("\"bob\"", &format!("\"{name}\""))
}

/// A case: a scene text (written as `case/scene.toml`, `None`: none) and the arguments (`SCENE`
/// stands for its path, `OUT` for `case/out`).
struct Case {
    name: &'static str,
    scene: Option<String>,
    args: Vec<String>,
    /// Expected exit code.
    code: i32,
    /// Text the output (stderr for errors, stdout for runs) must contain.
    expect: String,
}

fn case(name: &'static str, scene: Option<String>, args: &[&str], code: i32, expect: &str) -> Case {
    Case {
        name,
        scene,
        args: args.iter().map(|s| s.to_string()).collect(),
        code,
        expect: expect.to_string(),
    }
}

const RULE: &str =
    "a name is 1 to 64 letters, digits, '_', '-' or '.', and starts with a letter, a digit or '_'";

fn cases() -> Vec<Case> {
    let run = ["run", "SCENE", "--out", "OUT"];
    let check = ["check", "SCENE"];
    let named = |n: &str| Some(pendulum_named(n));
    let long = "n".repeat(65);
    vec![
        // Names: one rule, refused at parse time with the line.
        case("slash", named("x/../../evil"), &run, 1, &format!("scene.toml:12: body \"x/../../evil\": name: it contains '/'; {RULE}")),
        case("backslash", named("a\\\\b"), &run, 1, "name: it contains '\\\\'"),
        case("comma", named("a,b"), &run, 1, "name: it contains ','"),
        case("quote", named("a\\\"b"), &run, 1, "name: it contains '\"'"),
        case("newline", named("a\\nb"), &run, 1, "name: it contains '\\n'"),
        case("control", named("a\\u0007b"), &run, 1, "name: it contains '\\u{7}'"),
        case("leading_dash", named("-rf"), &run, 1, "name: it starts with '-'"),
        case("dot_dot", named(".."), &run, 1, "name: it starts with '.'"),
        case("empty", named(""), &run, 1, "name: it is empty"),
        case("too_long", named(&long), &run, 1, "name: it has 65 characters"),
        case("absolute", named("/etc/passwd"), &run, 1, "name: it contains '/'"),
        case(
            "sensor_name",
            Some(one_body("[[sensor]]\nname = \"x/../../evil\"\nbody = \"b\"\n")),
            &run,
            1,
            "sensor \"x/../../evil\": name: it contains '/'",
        ),
        case(
            "joint_name",
            Some(one_body("[[joint]]\nname = \"j,1\"\ntype = \"spherical\"\nbody_i = \"ground\"\nbody_j = \"b\"\n")),
            &check,
            1,
            "name: it contains ','",
        ),
        case(
            "shape_name",
            Some(one_body("[[shape]]\nname = \"s p\"\nbody = \"b\"\ntype = \"sphere\"\nradius = 0.1\n")),
            &check,
            1,
            "shape \"s p\": name: it contains ' '",
        ),
        // Unbounded files: cut at the cap, named.
        case("scene_dev_zero", None, &["check", "/dev/zero"], 1, "/dev/zero: cannot read: larger than 64 MiB, the limit of scene files; raise it with --max-scene-size (e.g. --max-scene-size 1G)"),
        case("scene_cap_raised", None, &["check", "/dev/zero", "--max-scene-size", "2M"], 1, "/dev/zero: cannot read: larger than 2 MiB, the limit of scene files"),
        case(
            "mesh_dev_zero",
            Some("[simulation]\nend_time = 1e-5\nstep = 1e-5\n[[flexible]]\nname = \"f\"\nmesh = \"/dev/zero\"\nmaterial = { law = \"svk\", E = 1e8, nu = 0.3, rho = 1000.0 }\n".into()),
            &check,
            1,
            "larger than 1 GiB, the limit of mesh files",
        ),
        case(
            "obj_dev_zero",
            Some(one_body("[[shape]]\nname = \"t\"\nbody = \"ground\"\ntype = \"mesh\"\nmesh = \"/dev/zero\"\n")),
            &check,
            1,
            "larger than 256 MiB, the limit of OBJ files",
        ),
        case("scene_is_a_directory", None, &["check", "/tmp"], 1, "/tmp: cannot read: Is a directory"),
        case("scene_missing", None, &["check", "no-such-scene.toml"], 1, "no-such-scene.toml: cannot read: No such file"),
        case("binary_scene", Some("\u{0}\u{1}\u{2}garbage\u{ff}".into()), &check, 1, "scene.toml"),
        case("deep_nesting", Some(format!("a = {}", "[".repeat(100_000))), &check, 1, "scene.toml"),
        // Memory and time, checked before anything is allocated.
        case(
            "huge_box",
            Some("[simulation]\nend_time = 1e-5\nstep = 1e-5\n[[flexible]]\nname = \"f\"\nbox = { origin = [0, 0, 0], size = [1, 1, 1], divisions = [1000, 1000, 1000] }\nmaterial = { law = \"svk\", E = 1e8, nu = 0.3, rho = 1000.0 }\n".into()),
            &["check", "SCENE", "--max-memory", "8G"],
            1,
            "divisions: [1000, 1000, 1000] (6.000e9 tets) needs about 336000.0 GB; the limit is 8 GiB (--max-memory); raise it with --max-memory",
        ),
        case("huge_chain", None, &["run", "--links", "100000000", "--out", "OUT", "--max-memory", "1G"], 1, "the built-in chain of 100000000 links needs about 400.0 GB; the limit is 1 GiB"),
        case(
            "too_many_steps",
            Some("[simulation]\nend_time = 1e10\nstep = 1e-12\n".into()),
            &check,
            1,
            "step: 10000000000 s in steps of 0.000000000001 s is 1.000e22 steps, more than 2⁵³",
        ),
        case("bad_memory_size", None, &["check", "x.toml", "--max-memory", "lots"], 2, "'lots': give bytes or a number with K, M, G or T"),
        case(
            "large_run_warns",
            Some(pendulum_named("bob")),
            &["run", "SCENE", "--out", "OUT", "--end", "1e-3", "--dt", "1e-11"],
            // Refused nothing: warned, then runs (stopped by the test after its header).
            0,
            "WARNING: 100000000 steps (≥ 1e8)",
        ),
        // Numbers at the edge.
        case("inertia_1e300_is_valid", Some(one_body("").replace("1.0 }", "1e300 }").replace("= 1.0,", "= 1e300,")), &run, 0, "10 steps in "),
        case("negative_moment", Some(one_body("").replace("Iyy = 1.0", "Iyy = -1.0")), &check, 1, "inertia: Iyy = -1 must be ≥ 0"),
        case(
            "large_products",
            Some(one_body("").replace("Izz = 1.0 }", "Izz = 1.0, Ixy = 2.0 }")),
            &check,
            1,
            "not positive semi-definite: its smallest principal moment is -1.000000e0 kg·m²",
        ),
        case("nan_gravity", Some(one_body("").replace("step = 1e-3", "step = 1e-3\ngravity = [0.0, 0.0, nan]")), &check, 1, "gravity"),
        case(
            "gravity_overflow",
            Some(one_body("").replace("step = 1e-3", "step = 1e-3\ngravity = [0.0, 0.0, -1e308]")),
            &run,
            1,
            "gravity: [0.0, 0.0, -1e308] m/s² overflows",
        ),
        case("zero_mass", Some(one_body("").replace("mass = 1.0", "mass = 0.0")), &check, 1, "mass"),
        case("fmu_library_dev_null", Some(pendulum_named("bob")), &["export", "fmu", "SCENE", "-o", "OUT/p.fmu", "--library", "/dev/null"], 1, "/dev/null is not a shared library (0 bytes, no ELF header)"),
        // Time: what whole steps change is said.
        case("end_not_whole_steps", Some(pendulum_named("bob")), &["run", "SCENE", "--out", "OUT", "--dt", "4e-4", "--end", "1e-3"], 0, "end 0.0012 s: 3 steps of 0.0004 s (asked 0.001 s: not a whole number of steps)"),
        case("dt_carries_output_interval", Some(pendulum_named("bob")), &["run", "SCENE", "--out", "OUT", "--dt", "5e-4", "--end", "1e-3"], 0, "output interval 0.0005 (one step, as before)"),
        // Malformed TOML and references.
        case("unknown_key", Some(one_body("").replace("mass = 1.0", "masss = 1.0")), &check, 1, "unknown field `masss`"),
        case("duplicate_body", Some(one_body("[[body]]\nid = 2\nname = \"b\"\nmass = 1.0\ninertia = { Ixx = 1.0, Iyy = 1.0, Izz = 1.0 }\n")), &check, 1, "duplicate body name \"b\""),
        case("id_overflow", Some(one_body("").replace("id = 1", "id = 99999999999999999999")), &check, 1, "scene.toml:6"),
        case("empty_scene", Some(String::new()), &check, 1, "missing field `simulation`"),
    ]
}

/// Runs `c` in `root/NAME/`; returns what went wrong, if anything.
fn run_case(root: &Path, c: &Case) -> Option<String> {
    let dir = root.join(c.name);
    fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("scene.toml");
    if let Some(text) = &c.scene {
        fs::write(&scene, text).unwrap();
    }
    let out = dir.join("out");
    let args: Vec<String> = c
        .args
        .iter()
        .map(|a| {
            a.replace("SCENE", scene.to_str().unwrap())
                .replace("OUT", out.to_str().unwrap())
        })
        .collect();
    fs::create_dir_all(&out).unwrap();
    let mut child = Command::new(FERRODYN)
        .args(&args)
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    // The warning case would run 10⁸ steps: stopped once it has printed its header.
    let stop_after_header = c.name == "large_run_warns";
    while child.try_wait().unwrap().is_none() {
        if stop_after_header && started.elapsed() > Duration::from_secs(2) {
            child.kill().unwrap();
            break;
        }
        if started.elapsed() > CASE_LIMIT {
            child.kill().unwrap();
            return Some(format!("{}: no answer within {CASE_LIMIT:?}", c.name));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let o = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    let said = format!("{stdout}{stderr}");
    if said.contains("panicked")
        || said.contains("memory allocation")
        || said.contains("overflowed its stack")
    {
        return Some(format!("{}: panicked or aborted: {said}", c.name));
    }
    let code = if stop_after_header {
        Some(c.code)
    } else {
        o.status.code()
    };
    if code != Some(c.code) || !said.contains(&c.expect) {
        return Some(format!(
            "{}: exit {:?} (expected {}), expected {:?} in:\n{said}",
            c.name,
            o.status.code(),
            c.code,
            c.expect
        ));
    }
    // Errors are one line each.
    if c.code == 1 && stderr.lines().filter(|l| l.starts_with("error: ")).count() != 1 {
        return Some(format!("{}: not one error line: {stderr}", c.name));
    }
    None
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && !path.is_symlink() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn hostile_inputs_end_in_their_errors_and_write_only_inside_out() {
    let root = scratch_dir("hostile", "cases");
    let cases = cases();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    let failures: Vec<String> = cases.iter().filter_map(|c| run_case(&root, c)).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
    // Nothing outside each case's `out/` but the scene the test wrote.
    for path in files_under(&root) {
        let relative = path.strip_prefix(&root).unwrap();
        let mut parts = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned());
        let (_case, next) = (parts.next(), parts.next());
        assert!(
            matches!(next.as_deref(), Some("out") | Some("scene.toml")),
            "written outside --out: {}",
            path.display()
        );
    }
}

#[test]
fn a_symbolic_link_in_the_output_folder_is_refused_even_with_force() {
    let root = scratch_dir("hostile", "symlink");
    let out = root.join("out");
    fs::create_dir_all(&out).unwrap();
    let outside = root.join("outside.csv");
    fs::write(&outside, "precious\n").unwrap();
    std::os::unix::fs::symlink(&outside, out.join("energy.csv")).unwrap();
    let scene = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes/pendulum.toml");
    let o = Command::new(FERRODYN)
        .args(["run", scene, "--end", "0.01", "--force", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("energy.csv is a symbolic link: ferrodyn writes no result through a link"),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(&outside).unwrap(), "precious\n");
}

/// A valid scene (the arm: bodies, joints, drives, forces, sensors) to mutate.
fn arm_text() -> String {
    fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes/arm.toml")).unwrap()
}

fn mesh_bytes() -> Vec<u8> {
    fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../meshes/cube_22.msh")).unwrap()
}

/// A text with one of: a span deleted, bytes inserted, or a span replaced by hostile tokens.
fn mutate(text: &[u8], at: usize, len: usize, kind: u8, noise: &[u8]) -> Vec<u8> {
    let at = at % (text.len() + 1);
    let end = (at + len).min(text.len());
    let tokens: [&[u8]; 8] = [
        b"/../",
        b"1e308",
        b"-1e308",
        b"nan",
        b"\"\n\"",
        b"[[",
        b"99999999999999999999",
        b",",
    ];
    let insert: &[u8] = match kind % 3 {
        0 => &[],
        1 => noise,
        _ => tokens[noise.first().copied().unwrap_or(0) as usize % tokens.len()],
    };
    [&text[..at], insert, &text[end..]].concat()
}

proptest! {
    // Bounded: 200 scenes and 200 meshes, each parsed in milliseconds.
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn mutated_scenes_parse_or_fail_without_panicking(
        at in 0usize..4000, len in 0usize..40, kind in 0u8..3, noise in proptest::collection::vec(any::<u8>(), 0..12)
    ) {
        let text = mutate(arm_text().as_bytes(), at, len, kind, &noise);
        if let Ok(text) = String::from_utf8(text) {
            let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes/arm.toml"));
            if let Err(e) = Scene::parse(path, &text) {
                // An error names the file.
                prop_assert!(e.to_string().contains("arm.toml"), "{}", e);
            }
        }
    }

    #[test]
    fn mutated_meshes_parse_or_fail_without_panicking(
        at in 0usize..32000, len in 0usize..40, kind in 0u8..3, noise in proptest::collection::vec(any::<u8>(), 0..12)
    ) {
        let bytes = mutate(&mesh_bytes(), at, len, kind, &noise);
        let _ = parse_msh(&bytes, "cube_22.msh");
    }
}
