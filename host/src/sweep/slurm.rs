//! `ferrodyn sweep slurm`: a Slurm job-array script for a study, one array task per case
//! (`ferrodyn sweep run STUDY --index $SLURM_ARRAY_TASK_ID`), optionally submitted with
//! `sbatch`. A task exits 0 once its case's result is written, whatever the case's status, so
//! a failing case never fails the array; rerunning a task is safe (the same scene gives the
//! same bits, and a case done with the same digest is skipped).

use super::study::Study;
use anyhow::{bail, Context, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What `ferrodyn sweep slurm` was asked.
#[derive(Clone, Debug, Default)]
pub struct SlurmOptions {
    /// The `ferrodyn` program the tasks run (absolute: the current executable from the CLI).
    pub program: PathBuf,
    /// `#SBATCH --partition`.
    pub partition: Option<String>,
    /// Tasks running at once (`%K` of `--array`).
    pub max_parallel: Option<usize>,
    /// `#SBATCH --time` (Slurm's format, e.g. `00:10:00`).
    pub time: Option<String>,
    /// Only these cases (an `--array` list such as `3,7,10-12`, e.g. from resubmit.txt);
    /// default all.
    pub indices: Option<String>,
    /// Pass `--outputs` to every case.
    pub outputs: bool,
    /// Submit the script with sbatch.
    pub submit: bool,
    /// Submit with `sbatch --wait`: return when every task has ended.
    pub wait: bool,
}

/// The script written, and what sbatch said when it was submitted.
#[derive(Clone, Debug)]
pub struct SlurmScript {
    /// `STUDY/slurm/sweep.sbatch`.
    pub path: PathBuf,
    /// The `--array` value (the list and the `%K` throttle).
    pub array: String,
    /// The sbatch command run and its output (when submitted).
    pub submitted: Option<(String, String)>,
}

/// Writes (and with `submit` submits) the job-array script of the study at `root`.
pub fn slurm(root: &Path, options: &SlurmOptions) -> Result<SlurmScript> {
    let study = Study::open(root)?;
    let count = study.cases.len();
    let list = match &options.indices {
        Some(list) => {
            let indices = parse_array(list)?;
            if let Some(bad) = indices.iter().find(|&&i| i >= count) {
                bail!(
                    "--indices: case {bad} does not exist (the study has cases 0-{})",
                    count.saturating_sub(1)
                );
            }
            array_list(&indices)
        }
        None => array_list(&(0..count).collect::<Vec<_>>()),
    };
    if list.is_empty() {
        bail!("no case to submit");
    }
    for (flag, value) in [("--partition", &options.partition), ("--time", &options.time)] {
        if let Some(v) = value {
            if v.is_empty() || v.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
                bail!("{flag} '{v}' may not be empty or hold spaces or quotes");
            }
        }
    }
    let throttle = match options.max_parallel {
        Some(0) => bail!("--max-parallel must be at least 1"),
        Some(k) => format!("%{k}"),
        None => String::new(),
    };
    let array = format!("{list}{throttle}");
    let program = fs::canonicalize(&options.program)
        .with_context(|| format!("cannot find the program {}", options.program.display()))?;
    let dir = study.root().join("slurm");
    let logs = dir.join("logs");
    fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    let path = dir.join("sweep.sbatch");

    let mut script = String::from("#!/bin/bash\n");
    script.push_str(
        "# A ferrodyn parameter study: one array task per case (written by `ferrodyn sweep slurm`).\n",
    );
    script.push_str("# Resubmit the cases `ferrodyn sweep collect` lists: sbatch --array=$(cat STUDY/resubmit.txt) THIS_FILE\n");
    script.push_str("#SBATCH --job-name=ferrodyn-sweep\n");
    script.push_str(&format!("#SBATCH --array={array}\n"));
    script.push_str("#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n");
    script.push_str(&format!("#SBATCH --output={}/case-%a.out\n", logs.display()));
    if let Some(p) = &options.partition {
        script.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    if let Some(t) = &options.time {
        script.push_str(&format!("#SBATCH --time={t}\n"));
    }
    script.push_str("set -euo pipefail\n");
    script.push_str(&format!(
        "exec {} sweep run {} --index \"$SLURM_ARRAY_TASK_ID\"{}\n",
        shell_quote(&program.to_string_lossy()),
        shell_quote(&study.root().to_string_lossy()),
        if options.outputs { " --outputs" } else { "" }
    ));
    super::study::write_atomically(&path, script.as_bytes())?;

    let submitted = if options.submit {
        let mut sbatch = Command::new("sbatch");
        if options.wait {
            sbatch.arg("--wait");
        }
        sbatch.arg(&path);
        let shown = format!(
            "sbatch {}{}",
            if options.wait { "--wait " } else { "" },
            path.display()
        );
        let out = sbatch
            .output()
            .with_context(|| format!("cannot run `{shown}` (is Slurm installed?)"))?;
        let said = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !out.status.success() {
            bail!(
                "`{shown}` failed ({}): {} {}",
                out.status,
                said,
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Some((shown, said))
    } else {
        None
    };
    Ok(SlurmScript {
        path,
        array,
        submitted,
    })
}

/// Indices as a Slurm `--array` list: ascending runs joined (`0-3,7,9-12`).
pub fn array_list(indices: &[usize]) -> String {
    let mut sorted = indices.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut k = 0;
    while k < sorted.len() {
        let start = sorted[k];
        while k + 1 < sorted.len() && sorted[k + 1] == sorted[k] + 1 {
            k += 1;
        }
        parts.push(match sorted[k] {
            end if end == start => start.to_string(),
            end => format!("{start}-{end}"),
        });
        k += 1;
    }
    parts.join(",")
}

/// Reads an `--array` list (`3,7,10-12`) back into indices.
pub fn parse_array(list: &str) -> Result<Vec<usize>> {
    let mut out = Vec::new();
    for part in list.trim().split(',').filter(|p| !p.is_empty()) {
        let bad = || anyhow::anyhow!("'{part}' in '{list}' is not an index or a range A-B");
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
                if a > b {
                    return Err(bad());
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().map_err(|_| bad())?),
        }
    }
    Ok(out)
}

/// `text` in single quotes for bash.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_lists_join_runs_and_read_back() {
        assert_eq!(array_list(&[9, 0, 1, 2, 3, 7, 10, 11, 12]), "0-3,7,9-12");
        assert_eq!(array_list(&[]), "");
        assert_eq!(parse_array("0-3,7,9-12").unwrap(), [0, 1, 2, 3, 7, 9, 10, 11, 12]);
        assert!(parse_array("3-1").is_err());
        assert!(parse_array("x").is_err());
        assert_eq!(shell_quote("a'b"), "'a'\\''b'");
    }
}
