//! `ferrodyn view` and `ferrodyn render` end to end: the real window under Xvfb, MP4 recording
//! checked with ffprobe, headless PNG frames, and bad input reported without a panic.
//!
//! Tests needing Xvfb or ffmpeg skip with a note when those are not installed, unless
//! FERRODYN_REQUIRE_VIEWER_TOOLS=1 (set by CI), which makes a missing tool a failure.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const PENDULUM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes/pendulum.toml");
const ARM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes/arm.toml");

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(tool).is_file()))
}

/// Whether all `tools` are installed; a missing one skips the test with a note, or fails it
/// when FERRODYN_REQUIRE_VIEWER_TOOLS=1.
fn tools(test: &str, tools: &[&str]) -> bool {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !on_path(t)).collect();
    if missing.is_empty() {
        return true;
    }
    if std::env::var("FERRODYN_REQUIRE_VIEWER_TOOLS").is_ok_and(|v| v == "1") {
        panic!("{test}: {missing:?} not installed (required by FERRODYN_REQUIRE_VIEWER_TOOLS=1)");
    }
    eprintln!("skipping {test}: {missing:?} not installed");
    false
}

/// A private X server, stopped on drop.
struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    fn start() -> Self {
        // Xvfb picks a free display itself and writes its number to `-displayfd` (stdout
        // here): choosing one from the lock files raced between the tests of one process,
        // which then shared a server and lost it when the first test stopped it.
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1024x768x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("Xvfb's stdout"))
            .read_line(&mut line)
            .expect("Xvfb reports its display");
        let n: u32 = line.trim().parse().expect("Xvfb reports a display number");
        let socket = PathBuf::from(format!("/tmp/.X11-unix/X{n}"));
        let started = Instant::now();
        while !socket.exists() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "Xvfb :{n} did not come up"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Self {
            child,
            display: format!(":{n}"),
        }
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs ferrodyn with `args` and the given DISPLAY (none: unset), killed after 120 s.
fn ferrodyn(args: &[&str], display: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ferrodyn"));
    cmd.args(args).env_remove("WAYLAND_DISPLAY");
    match display {
        Some(d) => cmd.env("DISPLAY", d),
        None => cmd.env_remove("DISPLAY"),
    };
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ferrodyn runs");
    let started = Instant::now();
    while child.try_wait().expect("waiting for ferrodyn").is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("ferrodyn {args:?} did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// (frames, width, height) of the video stream, counted by ffprobe.
fn probe(video: &Path) -> (u64, u64, u64) {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-select_streams", "v:0"])
        .args([
            "-show_entries",
            "stream=nb_read_frames,width,height",
            "-of",
            "csv=p=0",
        ])
        .arg(video)
        .output()
        .expect("ffprobe runs");
    assert_ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    let fields: Vec<u64> = text
        .trim()
        .split(',')
        .map(|f| f.parse().expect("a number"))
        .collect();
    // csv order follows the stream's field order: width, height, nb_read_frames.
    assert_eq!(fields.len(), 3, "ffprobe said {text}");
    (fields[2], fields[0], fields[1])
}

#[test]
fn view_opens_the_window_under_xvfb_for_a_few_frames_and_exits_cleanly() {
    if !tools("view under Xvfb", &["Xvfb"]) {
        return;
    }
    let x = Xvfb::start();
    let out = ferrodyn(
        &["view", PENDULUM, "--frames", "20", "--size", "320x240"],
        Some(&x.display),
    );
    assert_ok(&out);
}

#[test]
fn view_records_an_mp4_that_ffprobe_reads_back() {
    if !tools("view --record", &["Xvfb", "ffmpeg", "ffprobe"]) {
        return;
    }
    let x = Xvfb::start();
    let dir = common::scratch_dir("viewer", "record");
    let video = dir.join("arm.mp4");
    let args = [
        "view",
        ARM,
        "--frames",
        "30",
        "--size",
        "320x240",
        "--record",
        video.to_str().unwrap(),
    ];
    let out = ferrodyn(&args, Some(&x.display));
    assert_ok(&out);
    assert_eq!(probe(&video), (30, 320, 240));
}

#[test]
fn render_writes_an_mp4_without_any_display() {
    if !tools("render --mp4", &["ffmpeg", "ffprobe"]) {
        return;
    }
    let dir = common::scratch_dir("viewer", "render-mp4");
    let args = [
        "render", PENDULUM, "--frames", "12", "--mp4", "--size", "160x120", "--out",
    ];
    let out = ferrodyn(&[&args[..], &[dir.to_str().unwrap()]].concat(), None);
    assert_ok(&out);
    assert_eq!(probe(&dir.join("pendulum.mp4")), (12, 160, 120));
}

#[test]
fn render_writes_png_frames_headless_and_refuses_to_overwrite() {
    let dir = common::scratch_dir("viewer", "render-png");
    let args = [
        "render", PENDULUM, "--frames", "3", "--end", "0.2", "--size", "64x48", "--out",
    ];
    let args = [&args[..], &[dir.to_str().unwrap()]].concat();
    assert_ok(&ferrodyn(&args, None));
    for k in 0..3 {
        let png = std::fs::read(dir.join(format!("frame_0000{k}.png"))).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        // IHDR: width and height, big endian, after the 8-byte signature and chunk header.
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 64);
        assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 48);
    }
    let again = ferrodyn(&args, None);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
}

/// Failure with a message containing `needle` and no panic.
fn assert_clear_error(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "should fail: {stderr}");
    assert!(
        stderr.contains(needle),
        "message should mention '{needle}': {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bad_input_and_missing_display_are_clear_errors() {
    let out = ferrodyn(&["view", PENDULUM, "--frames", "1"], None);
    assert_clear_error(&out, "display");
    let out = ferrodyn(&["view", "no/such/scene.toml"], None);
    assert_clear_error(&out, "no/such/scene.toml");
    let dir = common::scratch_dir("viewer", "bad");
    let out_dir = dir.to_str().unwrap();
    let out = ferrodyn(&["render", PENDULUM, "--frames", "0", "--out", out_dir], None);
    assert_clear_error(&out, "--frames");
    let out = ferrodyn(&["render", PENDULUM, "--size", "64", "--out", out_dir], None);
    assert_clear_error(&out, "WIDTHxHEIGHT");
    let out = ferrodyn(&["render", PENDULUM, "--field", "heat", "--out", out_dir], None);
    assert_clear_error(&out, "von-mises");
    let out = ferrodyn(
        &["render", PENDULUM, "--mp4", "--size", "65x48", "--out", out_dir],
        None,
    );
    assert_clear_error(&out, "even");
}

#[test]
fn recording_without_ffmpeg_says_to_install_it() {
    let dir = common::scratch_dir("viewer", "no-ffmpeg");
    let out = Command::new(env!("CARGO_BIN_EXE_ferrodyn"))
        .args([
            "render",
            PENDULUM,
            "--mp4",
            "--size",
            "64x48",
            "--out",
            dir.to_str().unwrap(),
        ])
        .env("PATH", &dir)
        .output()
        .unwrap();
    assert_clear_error(&out, "ffmpeg");
}
