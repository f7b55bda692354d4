//! SIGINT and SIGTERM sent from the test to the built `ferrodyn` (docs/cli.md, "Interrupts"):
//! the run stops between steps, every CSV ends in a whole line that parses, the plots and the
//! .pvd are written, the summary line says where it stopped, and the exit code is 128 + the
//! signal's number; a sweep case records itself as interrupted and runs again.

use crate::common::scratch_dir;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const FERRODYN: &str = env!("CARGO_BIN_EXE_ferrodyn");

fn scene(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(name)
}

fn send(child: &Child, signal: i32) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill(2) on the child's pid.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
}

/// Waits for the child, killing it after `limit` (a hang fails the test instead of the suite).
fn wait(mut child: Child, limit: Duration) -> Output {
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            panic!("ferrodyn did not stop within {limit:?} of the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// `ferrodyn run SCENE --out OUT ARGS`, stopped by `signals` (sent `delay` after the header
/// line, the second right after the first); returns the whole stdout and the exit code.
fn interrupted_run(
    scene: &Path,
    out: &Path,
    args: &[&str],
    signals: &[i32],
    delay: Duration,
) -> (String, Option<i32>) {
    let mut child = Command::new(FERRODYN)
        .arg("run")
        .arg(scene)
        .arg("--out")
        .arg(out)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.starts_with("ferrodyn: "), "{first}");
    std::thread::sleep(delay);
    for &s in signals {
        send(&child, s);
    }
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let output = wait(child, Duration::from_secs(60));
    (first + &rest, output.status.code())
}

/// Parses every line of the CSV at `path`: a header, then rows of as many numbers, the last
/// ending in a newline; returns the rows' first column (time).
fn parse_csv(path: &Path) -> Vec<f64> {
    let text = fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'), "{} ends in a torn line", path.display());
    let mut lines = text.lines();
    let columns = lines.next().unwrap().split(',').count();
    lines
        .map(|line| {
            let values: Vec<f64> = line
                .split(',')
                .map(|v| {
                    v.parse()
                        .unwrap_or_else(|_| panic!("{}: {line:?}", path.display()))
                })
                .collect();
            assert_eq!(values.len(), columns, "{}: {line:?}", path.display());
            values[0]
        })
        .collect()
}

/// The summary's `interrupted at t = T s` time.
fn interrupted_at(stdout: &str, signal: &str) -> f64 {
    let line = stdout.lines().last().unwrap();
    let rest = line
        .strip_prefix("interrupted at t = ")
        .unwrap_or_else(|| panic!("summary: {line}"));
    assert!(line.contains(&format!(" s by {signal} after ")), "{line}");
    rest.split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn sigint_stops_the_cantilever_with_whole_files() {
    let out = scratch_dir("interrupt", "cantilever");
    let (stdout, code) = interrupted_run(
        &scene("cantilever.toml"),
        &out,
        &[],
        &[libc::SIGINT],
        Duration::from_secs(3),
    );
    assert_eq!(code, Some(130), "{stdout}");
    let t = interrupted_at(&stdout, "SIGINT");
    assert!(t > 0.0, "{stdout}");
    for csv in ["energy.csv", "sensors.csv"] {
        let times = parse_csv(&out.join(csv));
        // t = 0 and the time reached: what was computed, up to the stop.
        assert_eq!(times.first(), Some(&0.0), "{csv}");
        assert!(
            (times.last().unwrap() - t).abs() <= 1e-12,
            "{csv}: {times:?} vs {t}"
        );
    }
    for file in ["energy.png", "sensor_tip.png", "beam.pvd"] {
        assert!(
            stdout.contains(&format!("wrote {}", out.join(file).display())),
            "{stdout}"
        );
    }
    // The .pvd lists every VTU written.
    let pvd = fs::read_to_string(out.join("beam.pvd")).unwrap();
    let vtus = fs::read_dir(&out)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "vtu"))
        .count();
    assert_eq!(pvd.matches("<DataSet ").count(), vtus, "{pvd}");
}

#[test]
fn sigterm_stops_a_rigid_run_with_exit_143() {
    let out = scratch_dir("interrupt", "sigterm");
    // 10⁶ steps: far more than the test waits for.
    let args = ["--end", "1000"];
    let (stdout, code) = interrupted_run(
        &scene("pendulum.toml"),
        &out,
        &args,
        &[libc::SIGTERM],
        Duration::from_millis(300),
    );
    assert_eq!(code, Some(143), "{stdout}");
    let t = interrupted_at(&stdout, "SIGTERM");
    assert!(t < 1000.0);
    for csv in ["energy.csv", "trajectory.csv"] {
        let times = parse_csv(&out.join(csv));
        assert!((times.last().unwrap() - t).abs() <= 1e-9, "{csv}");
    }
}

#[test]
fn a_second_signal_ends_at_once_without_a_torn_line() {
    let out = scratch_dir("interrupt", "twice");
    let args = ["--end", "1000"];
    let signals = [libc::SIGINT, libc::SIGINT];
    let (stdout, code) = interrupted_run(
        &scene("pendulum.toml"),
        &out,
        &args,
        &signals,
        Duration::from_millis(300),
    );
    assert_eq!(code, Some(130), "{stdout}");
    // Whatever reached the files is whole lines (the last buffered rows may be lost).
    for csv in ["energy.csv", "trajectory.csv"] {
        let text = fs::read_to_string(out.join(csv)).unwrap();
        if !text.is_empty() {
            parse_csv(&out.join(csv));
        }
    }
}

#[test]
fn an_interrupted_sweep_case_is_recorded_and_runs_again() {
    let dir = scratch_dir("interrupt", "sweep");
    let study = dir.join("study");
    // One case of the pendulum (steps of 1 ms) for 1000 s: seconds of work on a fast machine
    // (40 s ended before the signal there), interrupted after 0.3 s.
    let planned = Command::new(FERRODYN)
        .args(["sweep", "plan"])
        .arg(scene("pendulum.toml"))
        .args(["--param", "simulation.end_time=1000", "--out"])
        .arg(&study)
        .output()
        .unwrap();
    assert!(planned.status.success(), "{planned:?}");
    let child = Command::new(FERRODYN)
        .args(["sweep", "run"])
        .arg(&study)
        .args(["--index", "0", "--outputs"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The case's scene is written just before it starts.
    let case = study.join("cases/00000");
    let started = Instant::now();
    while !case.join("scene.toml").exists() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the case did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    send(&child, libc::SIGTERM);
    let output = wait(child, Duration::from_secs(60));
    assert_eq!(output.status.code(), Some(143), "{output:?}");
    let result = fs::read_to_string(case.join("result.toml")).unwrap();
    assert!(result.contains("status = \"interrupted\""), "{result}");
    assert!(result.contains("interrupted at t = "), "{result}");
    for csv in ["energy.csv", "trajectory.csv"] {
        let times = parse_csv(&case.join("outputs").join(csv));
        assert!(*times.last().unwrap() < 1000.0, "{csv}");
    }
    // `collect` lists it for resubmission; `local` runs it again to its end.
    let collected = Command::new(FERRODYN)
        .args(["sweep", "collect"])
        .arg(&study)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&collected.stdout);
    assert!(said.contains("1 interrupted (0)"), "{said}");
    assert_eq!(fs::read_to_string(study.join("resubmit.txt")).unwrap(), "0\n");
    let local = Command::new(FERRODYN)
        .args(["sweep", "local"])
        .arg(&study)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&local.stdout);
    assert!(said.starts_with("1 ok, 0 invalid, 0 failed"), "{said}");
    let result = fs::read_to_string(case.join("result.toml")).unwrap();
    assert!(result.contains("status = \"ok\""), "{result}");
}
