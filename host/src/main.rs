//! The `ferrodyn` command-line program.

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use ferrodyn_host::dae::{self, HostMethod, ImplicitSpec};
use ferrodyn_host::output::OutputDir;
use ferrodyn_host::run::{simulate, RunSettings};
use ferrodyn_host::scenes;
use ferrodyn_host::view::colormap::Field;
use ferrodyn_host::view::window::ViewSettings;
use ferrodyn_host::view::RenderSettings;
use ferrodyn_kernel::integrators::{AdaptiveConfig, Method, METHOD_NAMES};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "ferrodyn", version, about = "Multibody and flexible-body dynamics")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a scene (without a scene file: the built-in default, a 20-link chain).
    Run {
        /// Scene file (TOML, see scenes/README.md); rigid scenes for now.
        scene: Option<PathBuf>,
        /// Directory for the result files.
        #[arg(long, default_value = "out/default")]
        out: PathBuf,
        /// Overwrite result files that already exist.
        #[arg(long)]
        force: bool,
        /// Links of the built-in chain.
        #[arg(long, default_value_t = 20)]
        links: usize,
        /// End time (s) [default: the scene's, or 10 for the built-in chain].
        #[arg(long)]
        end: Option<f64>,
        /// Step size (s).
        #[arg(long, default_value_t = 1e-3)]
        dt: f64,
        /// Output interval (s).
        #[arg(long, default_value_t = 0.01)]
        output_interval: f64,
        /// Integrator: rk4, rkf45, dopri45, semi-implicit-euler, velocity-verlet.
        #[arg(long, default_value = "rk4")]
        integrator: String,
        /// Relative tolerance of the adaptive integrators.
        #[arg(long, default_value_t = 1e-8)]
        rtol: f64,
    },
    /// Preflight checks of a scene: capacities, DOF and redundant constraints, initial
    /// violation per joint and assembly, optionally settling under gravity with joint reactions.
    Check {
        /// Scene file (TOML).
        scene: PathBuf,
        /// Also run to rest under gravity (damped) and report the joint reactions.
        #[arg(long)]
        settle: bool,
        /// Also run the scene's motion and report the constraint drift per joint.
        #[arg(long)]
        motion: bool,
    },
    /// Watch a scene in a window (X11), simulated in real time; optionally record an MP4.
    #[command(after_help = ferrodyn_host::view::window::CONTROLS)]
    View {
        /// Scene file (TOML).
        scene: PathBuf,
        /// Record the frames shown into this MP4 file (60 fps; needs ffmpeg).
        #[arg(long)]
        record: Option<PathBuf>,
        /// Window size WIDTHxHEIGHT (even numbers when recording).
        #[arg(long, default_value = "960x640", value_parser = ferrodyn_host::view::parse_size)]
        size: (usize, usize),
        /// Field colouring flexible bodies: displacement or von-mises.
        #[arg(long, default_value = "displacement", value_parser = parse_field)]
        field: Field,
        /// Quit after this many frames (scripts and tests).
        #[arg(long)]
        frames: Option<u64>,
    },
    /// Render a scene without a window: PNG frames evenly spaced from t = 0 to the end time
    /// (one frame: the end time), or one MP4 at 60 fps.
    Render {
        /// Scene file (TOML).
        scene: PathBuf,
        /// Number of frames.
        #[arg(long, default_value_t = 1)]
        frames: usize,
        /// Directory for frame_NNNNN.png or SCENE.mp4.
        #[arg(long)]
        out: PathBuf,
        /// Write one MP4 (needs ffmpeg) instead of PNG frames.
        #[arg(long)]
        mp4: bool,
        /// End time (s) [default: the scene's].
        #[arg(long)]
        end: Option<f64>,
        /// Image size WIDTHxHEIGHT (even numbers for MP4).
        #[arg(long, default_value = "960x640", value_parser = ferrodyn_host::view::parse_size)]
        size: (usize, usize),
        /// Field colouring flexible bodies: displacement or von-mises.
        #[arg(long, default_value = "displacement", value_parser = parse_field)]
        field: Field,
        /// Overwrite files that exist.
        #[arg(long)]
        force: bool,
    },
}

fn parse_field(name: &str) -> Result<Field, String> {
    Field::from_name(name).ok_or_else(|| format!("unknown field '{name}'; choose displacement or von-mises"))
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Command::View {
            scene,
            record,
            size,
            field,
            frames,
        } => {
            let settings = ViewSettings {
                size,
                field,
                record,
                frames,
            };
            ferrodyn_host::view::window::view(&scene, settings)
        }
        Command::Render {
            scene,
            frames,
            out,
            mp4,
            end,
            size,
            field,
            force,
        } => {
            let settings = RenderSettings {
                frames,
                end,
                size,
                field,
                mp4,
                force,
            };
            for f in ferrodyn_host::view::render(&scene, &out, settings)? {
                println!("wrote {}", f.display());
            }
            Ok(())
        }
        Command::Check {
            scene,
            settle,
            motion,
        } => ferrodyn_host::preflight::check_scene(&scene, settle, motion),
        Command::Run {
            scene: Some(scene),
            out,
            force,
            end,
            ..
        } => ferrodyn_host::preflight::run_scene(&scene, &out, force, end),
        Command::Run {
            scene: None,
            out,
            force,
            links,
            end,
            dt,
            output_interval,
            integrator,
            rtol,
        } => {
            let end = end.unwrap_or(10.0);
            if !(dt > 0.0 && dt.is_finite() && end >= 0.0 && end.is_finite()) {
                bail!("--dt must be > 0 and --end ≥ 0 (got dt = {dt}, end = {end})");
            }
            if links == 0 {
                bail!("--links must be at least 1");
            }
            let config = AdaptiveConfig {
                rtol,
                atol: rtol * 1e-3,
                ..AdaptiveConfig::default()
            };
            let method = Method::from_name(&integrator, config)
                .map(HostMethod::Explicit)
                .or_else(|| ImplicitSpec::from_name(&integrator).map(|s| s.build()));
            let Some(mut method) = method else {
                bail!(
                    "unknown integrator '{integrator}'; choose one of {}, {}",
                    METHOD_NAMES.join(", "),
                    dae::NAMES.join(", ")
                );
            };
            let model = scenes::revolute_chain(links).context("building the built-in chain")?;
            let dir = OutputDir::create(&out, force)?;
            println!("ferrodyn: {links}-link revolute chain, {integrator}, dt = {dt} s, t = 0 … {end} s");
            let settings = RunSettings::everything(&model, end, dt, output_interval);
            let summary = simulate(&model, &mut method, &settings, &dir)?;
            println!(
                "{} steps in {:.2} s wall ({:.1} µs/step); max |ΔE| = {:.3e} J, max |Φ| = {:.2e}",
                summary.steps,
                summary.wall_seconds,
                1e6 * summary.wall_seconds / summary.steps.max(1) as f64,
                summary.max_energy_change,
                summary.max_violation
            );
            for d in &summary.diagnostics {
                println!("diagnostic: {d}");
            }
            for f in &summary.files {
                println!("wrote {}", f.display());
            }
            Ok(())
        }
    }
}
