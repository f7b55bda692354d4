//! `ferrodyn sweep run`: one case of a study, its result written atomically.
//!
//! The case's scene is the base scene with its values set; it is loaded, compiled and driven
//! like `ferrodyn run` (optionally writing the same output files), and its scalars, wall time,
//! status and error text go into `cases/NNNNN/result.toml`. A scene the values make invalid,
//! a failed step or a panic is the case's result (`invalid`, `failed`), not an error of the
//! command: the study goes on. A SIGINT or SIGTERM stops the case between steps and records it
//! as `interrupted` (its output files written up to there); it runs again next time. A case already done (ok or invalid) with the same scene digest
//! is skipped.

use super::scalars::{scalars, Scalar, ScalarRecorder};
use super::study::{case_dir_in_study, digest, write_atomically, Study, SCENE_FILE};
use crate::compile::compile;
use crate::output::OutputDir;
use crate::record::{recorders, Recorder};
use crate::scene::Scene;
use crate::simulation::drive;
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How a case ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Ran to its end time.
    Ok,
    /// Its scene does not load or compile with these values.
    Invalid,
    /// It stopped during the run (a failed step, a panic, a crashed process).
    Failed,
    /// A signal (SIGINT, SIGTERM: Ctrl-C, Slurm's time limit) stopped it; it runs again.
    Interrupted,
}

impl Status {
    /// The word in results.csv.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Invalid => "invalid",
            Self::Failed => "failed",
            Self::Interrupted => "interrupted",
        }
    }
}

/// `cases/NNNNN/result.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    /// The case.
    pub index: usize,
    /// Digest of the scene it ran.
    pub digest: String,
    /// How it ended.
    pub status: Status,
    /// The error, one line with its causes (empty when ok).
    pub error: String,
    /// Wall-clock seconds of the whole case (not deterministic: kept out of results.csv).
    pub wall_seconds: f64,
    /// The named scalars (empty unless ok).
    pub scalars: Vec<Scalar>,
}

impl CaseResult {
    /// The result file of case `index`.
    pub fn path(study: &Study, index: usize) -> PathBuf {
        study.case_dir(index).join("result.toml")
    }
    /// Reads the result of case `index`; `None` when there is none yet.
    pub fn read(study: &Study, index: usize) -> Result<Option<Self>> {
        let path = Self::path(study, index);
        match fs::read_to_string(&path) {
            Ok(text) => toml::from_str(&text)
                .map(Some)
                .with_context(|| format!("{} is not a case result", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }
    /// Writes the result (temporary file and rename).
    pub fn write(&self, study: &Study) -> Result<()> {
        let dir = study.case_dir(self.index);
        fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let text = toml::to_string(self).context("serializing a case result")?;
        write_atomically(&Self::path(study, self.index), text.as_bytes())
    }
}

/// What `ferrodyn sweep run` was asked.
#[derive(Clone, Copy, Debug, Default)]
pub struct CaseOptions {
    /// Also write the case's output files (as `ferrodyn run`) into `cases/NNNNN/outputs/`.
    pub outputs: bool,
    /// Run even when a result with the same digest exists.
    pub force: bool,
}

/// What happened to a case.
#[derive(Clone, Debug, PartialEq)]
pub enum CaseOutcome {
    /// It ran; its result.
    Ran(CaseResult),
    /// It was done already (ok or invalid) with the same scene; the result found.
    Skipped(CaseResult),
}

/// Runs case `index` of the study at `root` and writes its result; an error only when the
/// study cannot be read or the result cannot be written.
pub fn run_case(root: &Path, index: usize, options: CaseOptions) -> Result<CaseOutcome> {
    let study = Study::open(root)?;
    let case = study.case(index)?;
    let text = study.scene_text(&case.cells)?;
    if digest(&text) != case.digest {
        bail!(
            "case {index}: its scene's digest {} is not the manifest's {}: {} changed since it was planned; plan the study again",
            digest(&text),
            case.digest,
            study.root().join(SCENE_FILE).display()
        );
    }
    if !options.force {
        // A stale or unreadable result is simply replaced.
        if let Ok(Some(done)) = CaseResult::read(&study, index) {
            // Ok and invalid are settled by the scene alone; a failure may have been the
            // machine's (a killed process, a full disk) and an interrupted case is unfinished,
            // so those run again.
            if done.digest == case.digest && matches!(done.status, Status::Ok | Status::Invalid) {
                return Ok(CaseOutcome::Skipped(done));
            }
        }
    }
    let dir = study.case_dir(index);
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let scene_path = dir.join(SCENE_FILE);
    write_atomically(&scene_path, text.as_bytes())?;
    let outputs = options.outputs.then(|| dir.join("outputs"));

    let started = Instant::now();
    // Errors name the scene relative to the study (meshes are absolute), so results.csv is
    // the same wherever the study lives.
    let shown = case_dir_in_study(index).join(SCENE_FILE);
    let ran = catch_unwind(AssertUnwindSafe(|| simulate(&shown, &text, outputs.as_deref()))).unwrap_or_else(
        |panic| {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".into());
            Err((Status::Failed, format!("panicked: {message}")))
        },
    );
    let (status, error, scalars) = match ran {
        Ok(scalars) => (Status::Ok, String::new(), scalars),
        Err((status, error)) => (status, error, Vec::new()),
    };
    let result = CaseResult {
        index,
        digest: case.digest.clone(),
        status,
        error,
        wall_seconds: started.elapsed().as_secs_f64(),
        scalars,
    };
    result.write(&study)?;
    Ok(CaseOutcome::Ran(result))
}

/// Loads, compiles and drives the case's scene; the error is the status and the message with
/// its causes on one line.
fn simulate(scene_path: &Path, text: &str, outputs: Option<&Path>) -> Result<Vec<Scalar>, (Status, String)> {
    let invalid = |e: anyhow::Error| (Status::Invalid, format!("{e:#}"));
    let failed = |e: anyhow::Error| (Status::Failed, format!("{e:#}"));
    let scene = Scene::parse(scene_path, text).map_err(|e| invalid(e.into()))?;
    let mut sim = compile(&scene).map_err(|e| invalid(e.into()))?;
    let mut sinks: Vec<Box<dyn Recorder>> = match outputs {
        Some(dir) => {
            let dir = OutputDir::create(dir, true).map_err(failed)?;
            // The VTU series name `ferrodyn run` gives: a lone flexible body's name, else the
            // scene file's stem.
            let series = match sim.labels.flexibles.as_slice() {
                [(name, _)] => name.clone(),
                _ => "scene".to_string(),
            };
            recorders(&mut sim, &dir, &scene.output, &series).map_err(failed)?
        }
        None => Vec::new(),
    };
    let (recorder, seen) = ScalarRecorder::new(&sim);
    sinks.push(Box::new(recorder));
    let summary = drive(&mut sim, sinks, false).map_err(failed)?;
    if let Some(i) = summary.interrupted {
        let at = format!("interrupted at t = {} s by {}", i.shown_time(), i.signal.name());
        return Err((Status::Interrupted, at));
    }
    let seen = seen.borrow();
    Ok(scalars(&summary, &seen))
}
