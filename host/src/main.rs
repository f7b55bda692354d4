//! The `ferrodyn` command-line program.

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use ferrodyn_host::commands::{self, Overrides, RunOptions};
use ferrodyn_host::view::colormap::Field;
use ferrodyn_host::view::window::ViewSettings;
use ferrodyn_host::view::RenderSettings;
use std::path::PathBuf;
use std::process::ExitCode;

/// Large blocks kept and reused between the phases of a scene build (`large_blocks`): fewer
/// fresh pages for the system to zero-fill.
#[global_allocator]
static ALLOCATOR: ferrodyn_host::large_blocks::LargeBlocks = ferrodyn_host::large_blocks::LargeBlocks;

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
        /// Relative tolerance of the adaptive integrators (rkf45, dopri45); also sets the
        /// absolute tolerance atol = rtol × 1e-3 [default: the scene's rtol and atol for its
        /// own integrator; 1e-6 and 1e-6 for one named by --integrator].
        #[arg(long)]
        rtol: Option<f64>,
        /// Rigid bodies in joint coordinates (tree), Cartesian coordinates, or the compiler's
        /// choice (auto) [default: the scene's; auto].
        #[arg(long)]
        formulation: Option<String>,
        /// Memory a scene may need, estimated before anything is allocated (e.g. 64G)
        /// [default: half of this machine's memory].
        #[arg(long, value_parser = ferrodyn_host::limits::parse_size)]
        max_memory: Option<u64>,
        /// Largest scene file read (e.g. 1G: a 10⁶-body scene takes about 400 MB)
        /// [default: 64M].
        #[arg(long, value_parser = ferrodyn_host::limits::parse_size)]
        max_scene_size: Option<u64>,
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
        /// Also say what the scene needs on a microcontroller core: cortex-m4f or cortex-m7
        /// (capacities, model and data bytes, stack, instructions per step).
        #[arg(long)]
        target: Option<String>,
        /// Memory a scene may need, estimated before anything is allocated (e.g. 64G)
        /// [default: half of this machine's memory].
        #[arg(long, value_parser = ferrodyn_host::limits::parse_size)]
        max_memory: Option<u64>,
        /// Largest scene file read (e.g. 1G: a 10⁶-body scene takes about 400 MB)
        /// [default: 64M].
        #[arg(long, value_parser = ferrodyn_host::limits::parse_size)]
        max_scene_size: Option<u64>,
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
    /// Parameter studies of a scene: plan the cases, run them on this machine or as a Slurm
    /// job array, collect the results (docs/sweep.md).
    Sweep {
        #[command(subcommand)]
        action: SweepAction,
    },
    /// A robot model (URDF, or MJCF .xml) as a scene file (docs/import.md). `run`, `check`,
    /// `view`, `render` and `export` also take a model file directly.
    Import {
        /// Model file: .urdf, or .xml (MJCF).
        model: PathBuf,
        /// The scene file to write [default: standard output].
        #[arg(short, long)]
        out: Option<PathBuf>,
        /// A folder searched for `package://NAME/...` meshes (before the model's folder and
        /// its ancestors); repeat for more.
        #[arg(long = "package-path", value_name = "DIR")]
        package_path: Vec<PathBuf>,
        /// The root link moves freely (a floating base) instead of being fixed to the ground.
        #[arg(long)]
        floating_base: bool,
        /// Import collision geometry as contact shapes.
        #[arg(long)]
        collision: bool,
        /// A position servo input (`[[input]]`, kind = "position", gains KP,KD) on every
        /// revolute and prismatic joint that no coupling holds, named JOINT.servo.
        #[arg(long, value_name = "KP,KD")]
        position_servos: Option<String>,
    },
    /// A scene for another target (docs/export.md).
    Export {
        #[command(subcommand)]
        target: ExportTarget,
    },
}

#[derive(Subcommand)]
enum ExportTarget {
    /// A `#![no_std]`, allocation-free Rust module of the scene for the kernel on a
    /// microcontroller: model, initial state, step, inputs and outputs.
    Rust {
        /// Scene file (TOML).
        scene: PathBuf,
        /// Scalar type: f32 or f64 (f64 is bit-identical to `ferrodyn run`).
        #[arg(long, default_value = "f32")]
        precision: String,
        #[command(flatten)]
        settings: ExportSettings,
        /// Output file [default: standard output].
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
    /// A standalone firmware crate of the scene for a part: the exported model, a HIL loop on
    /// its ports, the part's memory map, target and QEMU runner (`cargo build --release`,
    /// `cargo run --release` there; docs/export.md).
    Firmware {
        /// Scene file (TOML).
        scene: PathBuf,
        /// The part: mps2-an386 (Cortex-M4F), stm32f405 (Cortex-M4F at 168 MHz; QEMU
        /// netduinoplus2) or mps2-an500 (Cortex-M7, f64 in hardware).
        #[arg(long)]
        part: String,
        /// Scalar type: f32 or f64 (f64 is bit-identical to `ferrodyn run`).
        #[arg(long, default_value = "f32")]
        precision: String,
        #[command(flatten)]
        settings: ExportSettings,
        /// The crate's directory.
        #[arg(short, long)]
        out: PathBuf,
        /// Write over a crate already in the directory (its src/rig.rs is kept).
        #[arg(long)]
        force: bool,
        /// The kernel the crate depends on, by path [default: kernel/ of the checkout this
        /// ferrodyn was built from].
        #[arg(long, value_name = "DIR")]
        kernel_path: Option<PathBuf>,
    },
    /// An FMI co-simulation unit (FMU) of the scene: inputs, sensor outputs, FMU states, the
    /// scene's integrator at its step (docs/fmu.md).
    Fmu {
        /// Scene file (TOML).
        scene: PathBuf,
        /// FMI version: 3 or 2.
        #[arg(long, default_value = "3")]
        fmi: String,
        /// The FMU file to write (NAME.fmu).
        #[arg(short, long)]
        out: PathBuf,
        /// The FMU library [default: libferrodyn_fmu.so next to this executable].
        #[arg(long)]
        library: Option<PathBuf>,
        #[command(flatten)]
        settings: ExportSettings,
    },
}

/// The `[simulation]` settings an export can change, as `ferrodyn run` takes them.
#[derive(Args)]
struct ExportSettings {
    /// Integrator [default: the scene's]; `ferrodyn run --integrator` with the same name steps
    /// the same model (the firmware: rk4, semi-implicit-euler or velocity-verlet).
    #[arg(long)]
    integrator: Option<String>,
    /// Step (s): the firmware's period, the FMU's internal step [default: the scene's].
    #[arg(long)]
    dt: Option<f64>,
    /// End time (s): the firmware's STEPS, the FMU's default stop time [default: the scene's].
    #[arg(long)]
    end: Option<f64>,
}

impl ExportSettings {
    fn overrides(self) -> Overrides {
        Overrides {
            end: self.end,
            dt: self.dt,
            integrator: self.integrator,
            ..Overrides::default()
        }
    }
}

#[derive(Subcommand)]
enum SweepAction {
    /// Plan a study: the base scene, the parameters' values per case (manifest.csv).
    Plan {
        /// Base scene file (TOML).
        scene: PathBuf,
        /// PATH=SPEC, e.g. body.bob.mass=lin:0.5:2:4 (lists 1,2,3; lin:A:B:N; log:A:B:N;
        /// uniform:A:B; loguniform:A:B; normal:MEAN:SD). Repeat for each parameter.
        #[arg(long = "param", value_name = "PATH=SPEC", required = true)]
        params: Vec<String>,
        /// Every combination of the values (the default).
        #[arg(long, conflicts_with_all = ["lhs", "monte_carlo"])]
        grid: bool,
        /// A Latin hypercube of N cases.
        #[arg(long, value_name = "N", requires = "seed", conflicts_with = "monte_carlo")]
        lhs: Option<usize>,
        /// N independent random cases.
        #[arg(long, value_name = "N", requires = "seed")]
        monte_carlo: Option<usize>,
        /// Study seed (each case's seed derives from it) [default for a grid: 0].
        #[arg(long)]
        seed: Option<u64>,
        /// Study directory.
        #[arg(short, long)]
        out: PathBuf,
        /// Plan an existing study again (results of unchanged cases are kept).
        #[arg(long)]
        force: bool,
    },
    /// Run one case and write its result (skipped when done with the same scene).
    Run {
        /// Study directory.
        study: PathBuf,
        /// Case index (0-based).
        #[arg(long)]
        index: usize,
        /// Also write the case's output files, as `ferrodyn run` does, into cases/N/outputs.
        #[arg(long)]
        outputs: bool,
        /// Run even when the case is done.
        #[arg(long)]
        force: bool,
    },
    /// Run every case on this machine, J at a time (one process per case).
    Local {
        /// Study directory.
        study: PathBuf,
        /// Cases run at the same time.
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// Also write every case's output files.
        #[arg(long)]
        outputs: bool,
        /// Run cases that are done too.
        #[arg(long)]
        force: bool,
    },
    /// Write a Slurm job-array script for the study (slurm/sweep.sbatch); optionally submit it.
    Slurm {
        /// Study directory.
        study: PathBuf,
        /// Submit the script with sbatch.
        #[arg(long)]
        submit: bool,
        /// Submit with `sbatch --wait` (return when all tasks have ended).
        #[arg(long, requires = "submit")]
        wait: bool,
        /// Slurm partition.
        #[arg(long)]
        partition: Option<String>,
        /// Array tasks running at once.
        #[arg(long)]
        max_parallel: Option<usize>,
        /// Time limit per task, Slurm's format (e.g. 00:10:00).
        #[arg(long)]
        time: Option<String>,
        /// Only these cases, as an --array list (e.g. the contents of resubmit.txt).
        #[arg(long)]
        indices: Option<String>,
        /// Also write every case's output files.
        #[arg(long)]
        outputs: bool,
    },
    /// Collect the results: results.csv, timings.csv, resubmit.txt, optionally a plot.
    Collect {
        /// Study directory.
        study: PathBuf,
        /// Plot this output (a results.csv column) ...
        #[arg(long, requires = "against")]
        plot: Option<String>,
        /// ... against this parameter.
        #[arg(long, requires = "plot")]
        against: Option<String>,
    },
}

fn parse_field(name: &str) -> Result<Field, String> {
    Field::from_name(name).ok_or_else(|| format!("unknown field '{name}'; choose displacement or von-mises"))
}

/// Runs the command; an error is printed once, with its causes in one line, and the exit code
/// is 1 (clap's own usage errors exit with 2).
fn main() -> ExitCode {
    // SAFETY: restores the default disposition of SIGPIPE before any thread or output exists.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let command = Cli::parse().command;
    if stops_on_signals(&command) {
        if let Err(e) = ferrodyn_host::interrupt::install() {
            eprintln!("error: cannot handle SIGINT and SIGTERM: {e}");
            return ExitCode::FAILURE;
        }
    }
    let result = execute(command);
    // A run stopped by a signal has written what it computed; the exit code says it stopped.
    if let Some(stop) = ferrodyn_host::interrupt::received() {
        if let Err(e) = &result {
            eprintln!("error: {e:#}");
        }
        return ExitCode::from(stop.exit_code());
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The commands that drive long runs and stop cleanly on SIGINT or SIGTERM (the others keep
/// the default: the signal ends them).
fn stops_on_signals(command: &Command) -> bool {
    matches!(
        command,
        Command::Run { .. }
            | Command::Sweep {
                action: SweepAction::Run { .. } | SweepAction::Local { .. }
            }
    )
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
            target,
            max_memory,
            max_scene_size,
        } => {
            set_limits(max_memory, max_scene_size);
            commands::check(&scene, settle, motion, target.as_deref())
        }
        Command::Sweep { action } => sweep(action),
        Command::Import {
            model,
            out,
            package_path,
            floating_base,
            collision,
            position_servos,
        } => {
            let options = ferrodyn_host::import::ImportOptions {
                package_paths: package_path,
                floating_base,
                collision,
            };
            let servos = position_servos
                .as_deref()
                .map(commands::parse_servo_gains)
                .transpose()?;
            commands::import_model(&model, &options, servos, out.as_deref())
        }
        Command::Export {
            target:
                ExportTarget::Rust {
                    scene,
                    precision,
                    out,
                    settings,
                },
        } => commands::export_rust(&scene, &precision, &settings.overrides(), out.as_deref()),
        Command::Export {
            target:
                ExportTarget::Firmware {
                    scene,
                    part,
                    precision,
                    settings,
                    out,
                    force,
                    kernel_path,
                },
        } => commands::export_firmware(
            &scene,
            &part,
            &precision,
            &settings.overrides(),
            &out,
            kernel_path.as_deref(),
            force,
        ),
        Command::Export {
            target:
                ExportTarget::Fmu {
                    scene,
                    fmi,
                    out,
                    library,
                    settings,
                },
        } => commands::export_fmu(&scene, &fmi, &settings.overrides(), &out, library.as_deref()),
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
            formulation,
            max_memory,
            max_scene_size,
        } => {
            set_limits(max_memory, max_scene_size);
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
                    formulation,
                },
                progress: true,
            };
            commands::run(&options).map(|_| ())
        }
    }
}

fn sweep(action: SweepAction) -> Result<()> {
    use ferrodyn_host::sweep;
    let program = || std::env::current_exe().context("cannot locate the ferrodyn program");
    match action {
        SweepAction::Plan {
            scene,
            params,
            grid: _,
            lhs,
            monte_carlo,
            seed,
            out,
            force,
        } => {
            let design = match (lhs, monte_carlo) {
                (Some(n), _) => sweep::Design::LatinHypercube(n),
                (_, Some(n)) => sweep::Design::MonteCarlo(n),
                _ => sweep::Design::Grid,
            };
            let options = sweep::PlanOptions {
                scene,
                params,
                design,
                seed: seed.unwrap_or(0),
                out,
                force,
            };
            let study = sweep::plan(&options)?;
            println!(
                "planned {} cases of {} in {}",
                study.cases.len(),
                study.params.join(", "),
                study.root().display()
            );
            Ok(())
        }
        SweepAction::Run {
            study,
            index,
            outputs,
            force,
        } => {
            let options = sweep::CaseOptions { outputs, force };
            match sweep::run_case(&study, index, options)? {
                sweep::CaseOutcome::Skipped(r) => {
                    println!("case {index}: done already (digest {})", r.digest)
                }
                sweep::CaseOutcome::Ran(r) if r.error.is_empty() => {
                    println!("case {index}: {} in {:.2} s", r.status.as_str(), r.wall_seconds)
                }
                sweep::CaseOutcome::Ran(r) => println!("case {index}: {}: {}", r.status.as_str(), r.error),
            }
            Ok(())
        }
        SweepAction::Local {
            study,
            jobs,
            outputs,
            force,
        } => {
            let options = sweep::LocalOptions {
                program: program()?,
                jobs,
                outputs,
                force,
                progress: true,
            };
            let tally = sweep::local(&study, &options)?;
            println!(
                "{} ok, {} invalid, {} failed{}{}",
                tally.ok,
                tally.invalid.len(),
                tally.failed.len(),
                interrupted(&tally.interrupted),
                listed(&tally.invalid, &tally.failed)
            );
            Ok(())
        }
        SweepAction::Slurm {
            study,
            submit,
            wait,
            partition,
            max_parallel,
            time,
            indices,
            outputs,
        } => {
            let options = sweep::SlurmOptions {
                program: program()?,
                partition,
                max_parallel,
                time,
                indices,
                outputs,
                submit,
                wait,
            };
            let script = sweep::slurm(&study, &options)?;
            println!("wrote {} (--array={})", script.path.display(), script.array);
            if let Some((command, said)) = script.submitted {
                println!("{command}: {said}");
            }
            Ok(())
        }
        SweepAction::Collect { study, plot, against } => {
            let request = plot
                .zip(against)
                .map(|(output, against)| sweep::PlotRequest { output, against });
            let c = sweep::collect(&study, request.as_ref())?;
            println!("wrote {} and {}", c.results.display(), c.timings.display());
            println!(
                "{} ok, {} invalid, {} failed{}, {} missing{}",
                c.ok,
                c.invalid.len(),
                c.failed.len(),
                interrupted(&c.interrupted),
                c.missing.len(),
                listed(&c.invalid, &c.failed)
            );
            if let Some(p) = &c.plot {
                println!("wrote {}", p.display());
            }
            if c.resubmit.is_empty() {
                println!("nothing to resubmit");
            } else {
                let list = sweep::array_list(&c.resubmit);
                println!("resubmit ({}): --array={list}", c.resubmit_file.display());
            }
            Ok(())
        }
    }
}

/// ", 2 interrupted (4, 5)" for a summary line, empty when none was.
fn interrupted(cases: &[usize]) -> String {
    match cases {
        [] => String::new(),
        _ => {
            let list: Vec<String> = cases.iter().map(|i| i.to_string()).collect();
            format!(", {} interrupted ({})", cases.len(), list.join(", "))
        }
    }
}

/// " (invalid: 3, 7; failed: 12)" for a summary line, empty when all is well.
fn listed(invalid: &[usize], failed: &[usize]) -> String {
    let join = |v: &[usize]| v.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
    match (invalid.is_empty(), failed.is_empty()) {
        (true, true) => String::new(),
        (false, true) => format!(" (invalid: {})", join(invalid)),
        (true, false) => format!(" (failed: {})", join(failed)),
        (false, false) => format!(" (invalid: {}; failed: {})", join(invalid), join(failed)),
    }
}

/// The limits `--max-memory` and `--max-scene-size` set.
fn set_limits(max_memory: Option<u64>, max_scene_size: Option<u64>) {
    if let Some(bytes) = max_memory {
        ferrodyn_host::limits::set_max_memory(bytes);
    }
    if let Some(bytes) = max_scene_size {
        ferrodyn_host::limits::set_scene_file_limit(bytes);
    }
}
