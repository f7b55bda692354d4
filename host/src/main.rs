//! The `ferrodyn` command-line program.

use anyhow::Result;
use clap::{Parser, Subcommand};
use ferrodyn_host::commands::{self, Overrides, RunOptions};
use ferrodyn_host::view::colormap::Field;
use ferrodyn_host::view::window::ViewSettings;
use ferrodyn_host::view::RenderSettings;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "ferrodyn", version, about = "Multibody and flexible-body dynamics")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a scene (rigid, flexible or both; without a scene file: the built-in default,
    /// a 20-link chain) and write its results. Flags given with a scene override its settings.
    Run {
        /// Scene file (TOML, see scenes/README.md).
        scene: Option<PathBuf>,
        /// Directory for the result files.
        #[arg(long, default_value = "out/default")]
        out: PathBuf,
        /// Overwrite result files that already exist.
        #[arg(long)]
        force: bool,
        /// Links of the built-in chain [default: 20] (not with a scene file).
        #[arg(long)]
        links: Option<usize>,
        /// End time (s) [default: the scene's; 10 for the built-in chain].
        #[arg(long)]
        end: Option<f64>,
        /// Step size (s) [default: the scene's; 1e-3 for the built-in chain].
        #[arg(long)]
        dt: Option<f64>,
        /// Output interval (s) [default: the scene's; 0.01 for the built-in chain].
        #[arg(long)]
        output_interval: Option<f64>,
        /// Integrator: rk4, rkf45, dopri45, semi-implicit-euler, velocity-verlet, bdf1, bdf2,
        /// generalized-alpha, hht, newmark [default: the scene's; rk4 for the built-in chain].
        #[arg(long)]
        integrator: Option<String>,
        /// Relative tolerance of the adaptive integrators (rkf45, dopri45) [default: 1e-8].
        #[arg(long)]
        rtol: Option<f64>,
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

/// Runs the command; an error is printed once, with its causes in one line, and the exit code
/// is 1 (clap's own usage errors exit with 2).
fn main() -> ExitCode {
    match execute(Cli::parse().command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn execute(command: Command) -> Result<()> {
    match command {
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
        } => commands::check(&scene, settle, motion),
        Command::Run {
            scene,
            out,
            force,
            links,
            end,
            dt,
            output_interval,
            integrator,
            rtol,
        } => {
            let options = RunOptions {
                scene,
                out,
                force,
                links,
                overrides: Overrides {
                    end,
                    dt,
                    output_interval,
                    integrator,
                    rtol,
                },
                progress: true,
            };
            commands::run(&options).map(|_| ())
        }
    }
}
