//! `ferrodyn view`: the scene in a minifb window, simulated in real time when the machine keeps
//! up (the real-time factor is shown when it does not), with mouse and keyboard controls and
//! optional MP4 recording.

use super::colormap::Field;
use super::record::{Mp4Recorder, FPS};
use super::Viewport;
use crate::scene::Scene;
use anyhow::{anyhow, bail, Result};
use minifb::{Key, KeyRepeat, MouseButton, MouseMode, Window, WindowOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The controls, for `--help` and the README.
pub const CONTROLS: &str = "\
Controls: left drag orbit | right or middle drag pan | wheel or +/- zoom | Space pause/resume
| R reset | J joint frames | F field (displacement / von Mises) | W/S drive rate up/down
(e.g. the spinning beam's omega) | G gravity on/off | Esc or closing the window quits";

/// Settings of `ferrodyn view`.
#[derive(Clone, Debug)]
pub struct ViewSettings {
    /// Window width and height (pixels).
    pub size: (usize, usize),
    /// Field colouring flexible bodies.
    pub field: Field,
    /// Record every frame shown into this MP4 file.
    pub record: Option<PathBuf>,
    /// Quit after this many frames (scripts and tests).
    pub frames: Option<u64>,
}

/// Wall time a frame may spend stepping before the simulation falls behind real time.
const STEP_BUDGET: Duration = Duration::from_millis(12);
/// Drive rate change of one W/S press (rad/s or m/s).
const DRIVE_RATE_STEP: f64 = 2.0;

/// Opens the window on `path`'s scene and runs until it is closed (or `frames` are shown).
pub fn view(path: &Path, settings: ViewSettings) -> Result<()> {
    let scene = crate::import::load_scene(path)?;
    if let Some(record) = &settings.record {
        if record.is_dir() {
            bail!(
                "--record {}: is a folder, give a file name like out.mp4",
                record.display()
            );
        }
    }
    let title = format!("ferrodyn — {}", path.display());
    run(scene, &title, settings)
}

/// Mouse state between frames.
#[derive(Default)]
struct Mouse {
    last: Option<(f32, f32)>,
}

fn run(scene: Scene, title: &str, settings: ViewSettings) -> Result<()> {
    let (width, height) = settings.size;
    let mut view = Viewport::new(scene, width, height, settings.field)?;
    let mut window = Window::new(title, width, height, WindowOptions::default()).map_err(|e| {
        anyhow!("cannot open a window ({e}); `ferrodyn view` needs an X11 display (is DISPLAY set?); `ferrodyn render` works without one")
    })?;
    window.set_target_fps(FPS as usize);
    let mut video = match &settings.record {
        Some(path) => Some(Mp4Recorder::start(path, width, height)?),
        None => None,
    };
    let mut mouse = Mouse::default();
    let (mut paused, mut shown) = (false, 0u64);
    let mut last = Instant::now();
    let mut rate = RateMeter::new();
    let mut behind: Option<f64> = None;
    while window.is_open() && !window.is_key_down(Key::Escape) {
        handle_mouse(&window, &mut mouse, &mut view);
        handle_keys(&window, &mut view, &mut paused)?;
        let wall = last.elapsed().as_secs_f64().min(0.1);
        last = Instant::now();
        if !paused {
            // A recording advances exactly one video frame of simulated time per frame, so the
            // video plays in real time however slowly it was made.
            let span = if video.is_some() { 1.0 / FPS as f64 } else { wall };
            let target = view.session.time() + span;
            let (t0, started) = (view.session.time(), Instant::now());
            while view.session.time() + 0.5 * view.session.dt() < target {
                view.session.step()?;
                rate.count();
                if video.is_none() && started.elapsed() > STEP_BUDGET {
                    break;
                }
            }
            let done = view.session.time() - t0;
            behind = (video.is_none() && done < 0.95 * span).then(|| done / wall.max(1e-6));
        }
        let mut lines = vec![format!("{:.0} steps/s", rate.per_second())];
        lines.push(match (paused, behind) {
            (true, _) => "paused (Space)".to_string(),
            (false, Some(factor)) => format!("real-time factor {factor:.3}"),
            (false, None) => "real time".to_string(),
        });
        if let Some(omega) = view.session.drive_rate() {
            lines.push(format!("drive rate {omega:.2} (W/S)"));
        }
        if !view.session.gravity_on() {
            lines.push("gravity off (G)".to_string());
        }
        view.draw(&lines);
        window
            .update_with_buffer(&view.picture.image.pixels, width, height)
            .map_err(|e| anyhow!("updating the window: {e}"))?;
        if let Some(video) = video.as_mut() {
            video.push(&view.picture.image)?;
        }
        shown += 1;
        if settings.frames.is_some_and(|n| shown >= n) {
            break;
        }
    }
    if let Some(video) = video {
        let frames = video.frames();
        let path = video.finish()?;
        println!("wrote {} ({frames} frames at {FPS} fps)", path.display());
    }
    Ok(())
}

fn handle_mouse(window: &Window, mouse: &mut Mouse, view: &mut Viewport) {
    let pos = window.get_mouse_pos(MouseMode::Pass);
    if let (Some((x, y)), Some((px, py))) = (pos, mouse.last) {
        let (dx, dy) = ((x - px) as f64, (y - py) as f64);
        let height = view.picture.image.height;
        if window.get_mouse_down(MouseButton::Left) {
            view.picture.camera.orbit(dx, dy, height);
        } else if window.get_mouse_down(MouseButton::Right) || window.get_mouse_down(MouseButton::Middle) {
            view.picture.camera.pan(dx, dy, height);
        }
    }
    mouse.last = pos;
    if let Some((_, wheel)) = window.get_scroll_wheel() {
        view.picture.camera.zoom(wheel.signum() as f64);
    }
}

fn handle_keys(window: &Window, view: &mut Viewport, paused: &mut bool) -> Result<()> {
    let pressed = |k: Key| window.is_key_pressed(k, KeyRepeat::No);
    let held = |k: Key| window.is_key_pressed(k, KeyRepeat::Yes);
    if held(Key::Equal) || held(Key::NumPadPlus) {
        view.picture.camera.zoom(1.0);
    }
    if held(Key::Minus) || held(Key::NumPadMinus) {
        view.picture.camera.zoom(-1.0);
    }
    if pressed(Key::Space) {
        *paused = !*paused;
    }
    if pressed(Key::R) {
        view.session.reset()?;
        view.picture.camera = view.picture.drawing.home_camera();
    }
    if pressed(Key::J) {
        view.picture.options.joint_frames = !view.picture.options.joint_frames;
    }
    if pressed(Key::F) {
        view.picture.options.field = view.picture.options.field.next();
    }
    if pressed(Key::G) {
        view.session.toggle_gravity()?;
    }
    for (key, sign) in [(Key::W, 1.0), (Key::S, -1.0)] {
        if pressed(key) {
            if let Some(rate) = view.session.drive_rate() {
                view.session.set_drive_rate(rate + sign * DRIVE_RATE_STEP)?;
            }
        }
    }
    Ok(())
}

/// Steps per second of wall time, over the last half second or so.
struct RateMeter {
    since: Instant,
    steps: u64,
    value: f64,
}

impl RateMeter {
    fn new() -> Self {
        Self {
            since: Instant::now(),
            steps: 0,
            value: 0.0,
        }
    }

    fn count(&mut self) {
        self.steps += 1;
    }

    fn per_second(&mut self) -> f64 {
        let elapsed = self.since.elapsed().as_secs_f64();
        if elapsed >= 0.5 {
            self.value = self.steps as f64 / elapsed;
            self.steps = 0;
            self.since = Instant::now();
        }
        self.value
    }
}
