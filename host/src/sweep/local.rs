//! `ferrodyn sweep local`: every case of a study on this machine, `jobs` at a time, each in its
//! own child process (`ferrodyn sweep run STUDY --index N`) so a crash or an abort in one case
//! cannot take the others with it. A child that ends without writing its result gets a
//! `failed` result naming its exit status and last words. A SIGINT or SIGTERM starts no new
//! case and is passed on to the running ones, which record themselves as `interrupted`.

use super::run::{CaseResult, Status};
use super::study::Study;
use crate::interrupt;
use anyhow::{bail, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// What `ferrodyn sweep local` was asked.
#[derive(Clone, Debug)]
pub struct LocalOptions {
    /// The `ferrodyn` program the cases run in (the current executable from the CLI).
    pub program: PathBuf,
    /// Cases run at the same time (≥ 1).
    pub jobs: usize,
    /// Pass `--outputs` to every case.
    pub outputs: bool,
    /// Pass `--force` to every case (run cases already done).
    pub force: bool,
    /// Show a progress bar.
    pub progress: bool,
}

/// The statuses of a study's cases after a local run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Cases that ran to their end time.
    pub ok: usize,
    /// Indices of cases whose scene was invalid.
    pub invalid: Vec<usize>,
    /// Indices of cases that failed while running.
    pub failed: Vec<usize>,
    /// Indices of cases a signal stopped.
    pub interrupted: Vec<usize>,
}

/// Runs every case of the study at `root`; returns the tally of their results.
pub fn local(root: &Path, options: &LocalOptions) -> Result<Tally> {
    if options.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    let study = Study::open(root)?;
    let count = study.cases.len();
    let bar = match options.progress {
        true => ProgressBar::new(count as u64),
        false => ProgressBar::hidden(),
    }
    .with_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} cases  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let next = AtomicUsize::new(0);
    let children = Mutex::new(Vec::new());
    let worker = || -> Result<()> {
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            if index >= count || interrupt::received().is_some() {
                return Ok(());
            }
            run_child(&study, index, options, &children)?;
            bar.inc(1);
            bar.set_message(format!("case {index} done"));
        }
    };
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| pass_on_signals(&children, &done));
        let workers: Vec<_> = (0..options.jobs.min(count))
            .map(|_| scope.spawn(worker))
            .collect();
        let joined = workers
            .into_iter()
            .try_for_each(|w| w.join().unwrap_or_else(|_| bail!("a worker thread panicked")));
        done.store(true, Ordering::Relaxed);
        joined
    })?;
    bar.finish_and_clear();
    tally(&study)
}

/// Sends a signal this process received to every running child (once), until `done`: a
/// signal sent to this process alone (`kill PID`) stops the cases as Ctrl-C does.
fn pass_on_signals(children: &Mutex<Vec<u32>>, done: &AtomicBool) {
    while !done.load(Ordering::Relaxed) {
        if let Some(stop) = interrupt::received() {
            let running = children.lock().map(|c| c.clone()).unwrap_or_default();
            for pid in running {
                interrupt::forward(stop, pid);
            }
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs case `index` in a child process (its pid listed in `children` while it runs); records
/// a `failed` result when the child ended without writing one for the current scene.
fn run_child(study: &Study, index: usize, options: &LocalOptions, children: &Mutex<Vec<u32>>) -> Result<()> {
    let mut command = Command::new(&options.program);
    command
        .arg("sweep")
        .arg("run")
        .arg(study.root())
        .arg("--index")
        .arg(index.to_string());
    if options.outputs {
        command.arg("--outputs");
    }
    if options.force {
        command.arg("--force");
    }
    // Its own process group: a Ctrl-C at the terminal reaches this process only, which passes
    // it on once (a second signal would end the case at once, without its result).
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot start {}: {e}", options.program.display()))?;
    let pid = child.id();
    if let Ok(mut c) = children.lock() {
        c.push(pid);
    }
    let output = child.wait_with_output();
    if let Ok(mut c) = children.lock() {
        c.retain(|&p| p != pid);
    }
    let output = output.map_err(|e| anyhow::anyhow!("waiting for case {index}: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let recorded = CaseResult::read(study, index)
        .ok()
        .flatten()
        .is_some_and(|r| r.digest == study.cases[index].digest);
    if !recorded {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
        CaseResult {
            index,
            digest: study.cases[index].digest.clone(),
            status: Status::Failed,
            error: match last {
                "" => format!("the case's process ended with {}", output.status),
                last => format!("the case's process ended with {}: {last}", output.status),
            },
            wall_seconds: 0.0,
            scalars: Vec::new(),
        }
        .write(study)?;
    }
    Ok(())
}

/// The statuses of the study's results (missing ones count as failed).
fn tally(study: &Study) -> Result<Tally> {
    let mut tally = Tally::default();
    for case in &study.cases {
        match CaseResult::read(study, case.index)? {
            Some(r) if r.digest == case.digest && r.status == Status::Ok => tally.ok += 1,
            Some(r) if r.digest == case.digest && r.status == Status::Invalid => {
                tally.invalid.push(case.index)
            }
            Some(r) if r.digest == case.digest && r.status == Status::Interrupted => {
                tally.interrupted.push(case.index)
            }
            _ => tally.failed.push(case.index),
        }
    }
    Ok(tally)
}
