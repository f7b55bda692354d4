//! `ferrodyn sweep collect`: the cases' results in one table, the cases to run again, and a
//! plot of one output against one parameter.
//!
//! `results.csv` has one row per case, sorted by index: `index`, the parameters, `seed`,
//! `digest`, `status` (ok, invalid, failed, interrupted, missing), the scalars (the union over the cases, in
//! order of first appearance), and `error`. Every number is printed in shortest round-trip
//! form, and nothing in it depends on the machine or the time, so the same study gives the
//! same bytes wherever it ran; the wall times go to `timings.csv`. `resubmit.txt` lists the
//! failed, interrupted and missing cases as a Slurm `--array` list.

use super::run::{CaseResult, Status};
use super::scalars::COUNTS;
use super::slurm::array_list;
use super::study::{csv_row, format_number, write_atomically, Study};
use crate::plot::{line_plot, Series};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The status of a case without a result for its current scene.
const MISSING: &str = "missing";

/// A plot of one output against one parameter.
#[derive(Clone, Debug)]
pub struct PlotRequest {
    /// A scalar column of results.csv (e.g. `energy_change_max`, `tip_z_min`).
    pub output: String,
    /// A parameter path of the study.
    pub against: String,
}

/// What `collect` wrote and found.
#[derive(Clone, Debug)]
pub struct Collected {
    /// results.csv.
    pub results: PathBuf,
    /// timings.csv (index, wall_seconds).
    pub timings: PathBuf,
    /// resubmit.txt.
    pub resubmit_file: PathBuf,
    /// Failed, interrupted and missing cases, ascending.
    pub resubmit: Vec<usize>,
    /// Cases that ran to their end time.
    pub ok: usize,
    /// Cases whose scene was invalid (their error is in results.csv).
    pub invalid: Vec<usize>,
    /// Cases that failed while running.
    pub failed: Vec<usize>,
    /// Cases a signal stopped (Ctrl-C, a time limit).
    pub interrupted: Vec<usize>,
    /// Cases without a result for their current scene.
    pub missing: Vec<usize>,
    /// The plot, when asked.
    pub plot: Option<PathBuf>,
}

/// Collects the results of the study at `root`.
pub fn collect(root: &Path, plot: Option<&PlotRequest>) -> Result<Collected> {
    let study = Study::open(root)?;
    // (status word, error text, result of the current scene if any) per case.
    let mut rows = Vec::with_capacity(study.cases.len());
    let mut columns: Vec<String> = Vec::new();
    for case in &study.cases {
        let (status, error, result) = match CaseResult::read(&study, case.index) {
            Ok(Some(r)) if r.digest == case.digest => (r.status.as_str(), r.error.clone(), Some(r)),
            Ok(Some(r)) => (
                MISSING,
                format!(
                    "the result is of an earlier plan (digest {}); run the case again",
                    r.digest
                ),
                None,
            ),
            Ok(None) => (MISSING, String::new(), None),
            Err(e) => (MISSING, format!("{e:#}"), None),
        };
        for s in result.iter().flat_map(|r| &r.scalars) {
            if !columns.contains(&s.name) {
                columns.push(s.name.clone());
            }
        }
        rows.push((status, error, result));
    }

    let header = ["index"]
        .into_iter()
        .chain(study.params.iter().map(String::as_str))
        .chain(["seed", "digest", "status"])
        .chain(columns.iter().map(String::as_str))
        .chain(["error"]);
    let mut results = csv_row(header);
    let mut timings = csv_row(["index", "wall_seconds"]);
    for (case, (status, error, result)) in study.cases.iter().zip(&rows) {
        let values: Vec<String> = columns
            .iter()
            .map(|c| {
                result
                    .as_ref()
                    .and_then(|r| r.scalars.iter().find(|s| &s.name == c))
                    .map_or(String::new(), |s| match COUNTS.contains(&c.as_str()) {
                        // `steps 1638`, not `1.638e3`.
                        true if s.value.fract() == 0.0 => format!("{}", s.value as u64),
                        _ => format_number(s.value),
                    })
            })
            .collect();
        let (index, seed) = (case.index.to_string(), case.seed.to_string());
        let row = [index.as_str()]
            .into_iter()
            .chain(case.cells.iter().map(String::as_str))
            .chain([seed.as_str(), case.digest.as_str(), status])
            .chain(values.iter().map(String::as_str))
            .chain([error.as_str()]);
        results.push_str(&csv_row(row));
        let wall = result
            .as_ref()
            .map_or(String::new(), |r| format_number(r.wall_seconds));
        timings.push_str(&csv_row([index.as_str(), wall.as_str()]));
    }

    let pick = |word: &str| -> Vec<usize> {
        rows.iter()
            .zip(&study.cases)
            .filter(|((status, _, _), _)| *status == word)
            .map(|(_, c)| c.index)
            .collect()
    };
    let (invalid, failed) = (pick(Status::Invalid.as_str()), pick(Status::Failed.as_str()));
    let missing = pick(MISSING);
    let interrupted = pick(Status::Interrupted.as_str());
    let mut resubmit: Vec<usize> = failed
        .iter()
        .chain(&interrupted)
        .chain(&missing)
        .copied()
        .collect();
    resubmit.sort_unstable();

    let dir = study.root();
    let mut collected = Collected {
        results: dir.join("results.csv"),
        timings: dir.join("timings.csv"),
        resubmit_file: dir.join("resubmit.txt"),
        ok: rows.iter().filter(|(s, _, _)| *s == Status::Ok.as_str()).count(),
        plot: None,
        resubmit,
        invalid,
        failed,
        interrupted,
        missing,
    };
    write_atomically(&collected.results, results.as_bytes())?;
    write_atomically(&collected.timings, timings.as_bytes())?;
    let list = array_list(&collected.resubmit);
    write_atomically(&collected.resubmit_file, format!("{list}\n").as_bytes())?;
    // The tables first: a plot asked of a missing output still leaves them written.
    if let Some(request) = plot {
        collected.plot = Some(draw(&study, &rows, &columns, request)?);
    }
    Ok(collected)
}

/// `STUDY/OUTPUT_vs_PARAM.png`: the output of every ok case against the parameter, joined in
/// order of the parameter.
fn draw(
    study: &Study,
    rows: &[(&str, String, Option<CaseResult>)],
    columns: &[String],
    request: &PlotRequest,
) -> Result<PathBuf> {
    let Some(param) = study.params.iter().position(|p| p == &request.against) else {
        bail!(
            "--against {}: not a parameter of the study (parameters: {})",
            request.against,
            study.params.join(", ")
        );
    };
    if !columns.contains(&request.output) {
        bail!(
            "--plot {}: no case has this output (outputs: {})",
            request.output,
            columns.join(", ")
        );
    }
    let mut points: Vec<(f64, f64)> = Vec::new();
    for (case, (_, _, result)) in study.cases.iter().zip(rows) {
        let Some(result) = result.as_ref().filter(|r| r.status == Status::Ok) else {
            continue;
        };
        let x: f64 = case.cells[param].parse().map_err(|_| {
            anyhow::anyhow!(
                "--against {}: '{}' is not a number",
                request.against,
                case.cells[param]
            )
        })?;
        if let Some(s) = result.scalars.iter().find(|s| s.name == request.output) {
            points.push((x, s.value));
        }
    }
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let name = format!("{}_vs_{}.png", request.output, request.against).replace(
        |c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-'),
        "_",
    );
    let path = study.root().join(name);
    let series = [Series {
        label: &request.output,
        points: &points,
    }];
    let title = format!("{} against {}", request.output, request.against);
    line_plot(&path, &title, &request.against, &request.output, &series)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}
