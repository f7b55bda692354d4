//! The `ferrodyn run` command line with a scene: flags override the scene's settings and the
//! header line says so, or are refused with one clear error; every error is printed once with
//! its causes and no backtrace; every run ends with one summary line (rigid, flexible,
//! implicit, with contact).

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

fn scene(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenes")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// Runs `ferrodyn run SCENE --out DIR --force ARGS…` with backtraces requested (they must not
/// appear).
fn run(scene_file: &str, dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ferrodyn"))
        .args([
            "run",
            &scene(scene_file),
            "--out",
            dir.to_str().unwrap(),
            "--force",
        ])
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("ferrodyn runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The last line printed: the summary.
fn summary(o: &Output) -> String {
    stdout(o).lines().last().unwrap_or_default().to_string()
}

/// A failed run printed exactly one error line, with its cause, and nothing else.
fn assert_one_error(o: &Output, expected: &str) {
    assert!(!o.status.success(), "must fail: {}", stdout(o));
    let err = stderr(o);
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line: {err}");
    assert!(lines[0].starts_with("error: "), "{err}");
    assert!(lines[0].contains(expected), "expected '{expected}' in: {err}");
    assert!(!err.contains("Caused by") && !err.contains("backtrace"), "{err}");
}

#[test]
fn flags_given_with_a_scene_override_it_and_the_header_says_so() {
    let dir = common::scratch_dir("cli-flags", "override");
    let o = run(
        "pendulum.toml",
        &dir,
        &["--dt", "2e-3", "--end", "0.1", "--output-interval", "0.02"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let header = out.lines().next().unwrap();
    assert!(header.contains("dt = 0.002 s, t = 0 … 0.1 s"), "{header}");
    let overrides = out.lines().nth(1).unwrap();
    assert!(overrides.contains("overriding the scene"), "{out}");
    for flag in [
        "--end 0.1 (was 10)",
        "--dt 0.002 (was 0.001)",
        "--output-interval 0.02 (was",
    ] {
        assert!(overrides.contains(flag), "{flag}: {overrides}");
    }
    // The run took the new settings: 50 steps, rows at t = 0, 0.02, …, 0.1.
    assert!(summary(&o).starts_with("50 steps in"), "{}", summary(&o));
    let trajectory = std::fs::read_to_string(dir.join("trajectory.csv")).unwrap();
    assert_eq!(trajectory.lines().count(), 1 + 6);
    // The integrator too, named in the header and the override line.
    let o = run(
        "pendulum.toml",
        &dir,
        &["--end", "0.01", "--integrator", "dopri45", "--rtol", "1e-6"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.lines().next().unwrap().contains("dopri45"), "{out}");
    assert!(
        out.contains("--integrator dopri45 --rtol 0.000001 (atol 1e-9) (was rk4)"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn flags_that_do_not_apply_are_refused_with_one_clear_error() {
    let dir = common::scratch_dir("cli-flags", "refused");
    let cases: [(&[&str], &str); 6] = [
        (&["--integrator", "nonsense"], "unknown integrator 'nonsense'"),
        (&["--dt", "20"], "the step 20 s is longer than the end time 10 s"),
        (&["--dt=-1e-3"], "--dt must be finite and > 0"),
        (
            &["--end", "0.1", "--output-interval", "1e-4"],
            "--output-interval 0.0001 s is shorter than the step",
        ),
        (
            &["--rtol", "1e-6"],
            "--rtol applies to the adaptive integrators (rkf45, dopri45), not rk4",
        ),
        (&["--links", "3"], "--links sets the size of the built-in chain"),
    ];
    for (args, expected) in cases {
        let o = run("pendulum.toml", &dir, args);
        assert_one_error(&o, expected);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_error_with_causes_is_printed_once_on_one_line() {
    // A scene file that does not exist: the error names it and the cause (the OS message).
    let dir = common::scratch_dir("cli-flags", "missing");
    let o = run("no_such_scene.toml", &dir, &[]);
    assert_one_error(&o, "no_such_scene.toml");
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
    // A step that fails (an error tolerance no step can meet): the step, the time and the
    // kernel's reason, in one line.
    let o = run(
        "pendulum.toml",
        &dir,
        &["--integrator", "rkf45", "--rtol", "1e-300"],
    );
    assert_one_error(&o, "step 1 at t = 0 s failed: ");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_kind_of_run_ends_with_one_summary_line() {
    let dir = common::scratch_dir("cli-flags", "summary");
    // Rigid with joints: steps, wall time, energy change, constraint violation.
    let o = run("pendulum.toml", &dir, &["--end", "0.05"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = summary(&o);
    assert!(
        line.starts_with("50 steps in ") && line.contains("max |ΔE| = ") && line.contains("max |Φ| = "),
        "{line}"
    );
    // Flexible, explicit: no constraints, so no |Φ|; its tip load does work, so the energy
    // change is stated as the work done on it, not as drift.
    let o = run("cantilever.toml", &dir, &["--end", "2e-4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = summary(&o);
    assert!(
        line.starts_with("20 steps in ")
            && line.contains("driven: energy change E(end) − E(0) = ")
            && !line.contains("max |ΔE|")
            && !line.contains("|Φ|"),
        "{line}"
    );
    // Flexible, implicit: the Newton work too.
    let o = run("steel_cantilever.toml", &dir, &["--end", "3e-3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = summary(&o);
    assert!(
        line.starts_with("3 steps in ") && line.contains("Newton iterations"),
        "{line}"
    );
    // Rigid with contact: the contacts.
    let o = run("sphere_drop.toml", &dir, &["--end", "0.5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = summary(&o);
    assert!(
        line.contains("contacts: peak ") && line.contains("active"),
        "{line}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
