//! Parameter studies (`ferrodyn sweep`): design-of-experiments and Monte Carlo runs of one
//! scene, on this machine or as a Slurm job array.
//!
//! ```text
//! plan ──▶ STUDY/{scene.toml, manifest.csv} ──run N (local pool | Slurm array task)──▶
//!          cases/N/result.toml ──collect──▶ results.csv, timings.csv, resubmit.txt, PNG
//! ```
//!
//! - [`plan`](mod@plan) ([`plan()`]): parameter paths ([`path`]: a dotted address of a value in the
//!   scene's TOML, arrays of tables by `name`) and specs ([`spec`]: lists, lin/log ranges,
//!   distributions) drawn by a design ([`sample`]: grid, Latin hypercube, Monte Carlo), each
//!   case with its seed and the digest of its scene text ([`study`]).
//! - [`run`] ([`run_case`]): one case loaded, compiled and driven as `ferrodyn run` does, its
//!   scalars ([`scalars`]) and status written atomically; skipped when done with the same digest.
//! - [`local`](mod@local) ([`local()`]) runs the cases in child processes; [`slurm`](mod@slurm) ([`slurm()`]) writes
//!   (and submits) the job-array script; [`collect`](mod@collect) ([`collect()`]) tabulates and plots.
//!
//! The simulation is deterministic, so a case run twice (a requeued task, a local and a
//! cluster run) gives the same bits, and results.csv is the same file wherever it ran.

pub mod collect;
pub mod local;
pub mod path;
pub mod plan;
pub mod run;
pub mod sample;
pub mod scalars;
pub mod slurm;
pub mod spec;
pub mod study;

pub use collect::{collect, Collected, PlotRequest};
pub use local::{local, LocalOptions, Tally};
pub use plan::{plan, Design, PlanOptions};
pub use run::{run_case, CaseOptions, CaseOutcome, CaseResult, Status};
pub use slurm::{array_list, slurm, SlurmOptions, SlurmScript};
pub use study::Study;
