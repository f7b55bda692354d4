//! A study directory and its manifest:
//!
//! ```text
//! STUDY/scene.toml        the base scene (relative mesh paths made absolute)
//! STUDY/study.toml        how it was planned (source, design, seed, parameters), for people
//! STUDY/manifest.csv      index, one column per parameter, seed, digest
//! STUDY/cases/NNNNN/      per case: scene.toml, result.toml, outputs/ (with --outputs)
//! STUDY/results.csv, timings.csv, resubmit.txt, *.png   written by `sweep collect`
//! STUDY/slurm/            the job-array script and its logs
//! ```
//!
//! A case's scene is the base scene with the case's values set in place; its digest (FNV-1a
//! over the scene text) identifies the work, so a result with the same digest is the same
//! computation (determinism makes it the same bits).

use super::path;
use anyhow::{bail, Context, Result};
use ferrodyn_kernel::Digest;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use toml_edit::DocumentMut;

/// The base scene inside a study.
pub const SCENE_FILE: &str = "scene.toml";
/// The list of cases.
pub const MANIFEST_FILE: &str = "manifest.csv";
/// How the study was planned.
pub const STUDY_FILE: &str = "study.toml";

/// One row of the manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Position in the study, from 0.
    pub index: usize,
    /// One manifest cell per parameter.
    pub cells: Vec<String>,
    /// The case's seed.
    pub seed: u64,
    /// Digest of the case's scene text (16 hex digits).
    pub digest: String,
}

/// A planned study: the base scene and its cases.
#[derive(Clone, Debug)]
pub struct Study {
    root: PathBuf,
    base: DocumentMut,
    /// The parameter paths, in manifest order.
    pub params: Vec<String>,
    /// The cases, by index.
    pub cases: Vec<Case>,
}

impl Study {
    /// Opens the study at `root` (absolute from here on: scripts and child processes get
    /// full paths).
    pub fn open(root: &Path) -> Result<Self> {
        let root = fs::canonicalize(root).with_context(|| format!("cannot open study {}", root.display()))?;
        let scene_path = root.join(SCENE_FILE);
        let text = fs::read_to_string(&scene_path)
            .with_context(|| format!("cannot read {}", scene_path.display()))?;
        let base = text
            .parse()
            .with_context(|| format!("{} is not TOML", scene_path.display()))?;
        let (params, cases) = read_manifest(&root.join(MANIFEST_FILE))?;
        Ok(Self {
            root,
            base,
            params,
            cases,
        })
    }

    /// A study of `base` (already written into `root`) with these cases, for the planner.
    pub(super) fn new(root: PathBuf, base: DocumentMut, params: Vec<String>, cases: Vec<Case>) -> Self {
        Self {
            root,
            base,
            params,
            cases,
        }
    }

    /// The study directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Case `index`; the error gives the range.
    pub fn case(&self, index: usize) -> Result<&Case> {
        self.cases.get(index).with_context(|| {
            format!(
                "case {index} does not exist: the study {} has {} cases (0-{})",
                self.root.display(),
                self.cases.len(),
                self.cases.len().saturating_sub(1)
            )
        })
    }

    /// The directory of case `index`.
    pub fn case_dir(&self, index: usize) -> PathBuf {
        self.root.join(case_dir_in_study(index))
    }

    /// The scene text of a case with these cells: the base scene with each value set.
    pub fn scene_text(&self, cells: &[String]) -> Result<String> {
        let mut doc = self.base.clone();
        for (path, cell) in self.params.iter().zip(cells) {
            path::assign(&mut doc, path, cell).map_err(|e| anyhow::anyhow!("parameter {e}"))?;
        }
        Ok(doc.to_string())
    }

    /// Writes the manifest.
    pub(super) fn write_manifest(&self) -> Result<()> {
        let mut text = String::new();
        let header: Vec<&str> = ["index"]
            .into_iter()
            .chain(self.params.iter().map(String::as_str))
            .chain(["seed", "digest"])
            .collect();
        text.push_str(&csv_row(header));
        for c in &self.cases {
            let (index, seed) = (c.index.to_string(), c.seed.to_string());
            let row = [index.as_str()]
                .into_iter()
                .chain(c.cells.iter().map(String::as_str))
                .chain([seed.as_str(), c.digest.as_str()]);
            text.push_str(&csv_row(row));
        }
        write_atomically(&self.root.join(MANIFEST_FILE), text.as_bytes())
    }
}

/// The directory of case `index` relative to the study (`cases/00007`).
pub fn case_dir_in_study(index: usize) -> PathBuf {
    Path::new("cases").join(format!("{index:05}"))
}

/// Reads `manifest.csv`: (parameter paths, cases). Cells never hold commas or quotes (the
/// planner refuses them), so a plain split reads what [`Study::write_manifest`] wrote.
fn read_manifest(path: &Path) -> Result<(Vec<String>, Vec<Case>)> {
    let text = fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let n = header.len();
    if n < 3 || header[0] != "index" || header[n - 2] != "seed" || header[n - 1] != "digest" {
        bail!(
            "{}: the header must be index, parameters…, seed, digest",
            path.display()
        );
    }
    let params: Vec<String> = header[1..n - 2].iter().map(|s| s.to_string()).collect();
    let mut cases = Vec::new();
    for (k, line) in lines.enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        let bad = |what: &str| anyhow::anyhow!("{}:{}: {what}", path.display(), k + 2);
        if fields.len() != n {
            return Err(bad(&format!("{} fields, the header has {n}", fields.len())));
        }
        let index: usize = fields[0]
            .parse()
            .map_err(|_| bad("the index is not a whole number"))?;
        if index != k {
            return Err(bad(&format!("index {index} where {k} was expected")));
        }
        cases.push(Case {
            index,
            cells: fields[1..n - 2].iter().map(|s| s.to_string()).collect(),
            seed: fields[n - 2]
                .parse()
                .map_err(|_| bad("the seed is not a whole number"))?,
            digest: fields[n - 1].to_string(),
        });
    }
    Ok((params, cases))
}

/// 64-bit FNV-1a (the kernel's [`Digest`]) over the bytes of a scene text, as 16 hex digits.
pub fn digest(text: &str) -> String {
    let mut hash = Digest::default();
    hash.add_bytes(text.as_bytes());
    format!("{:016x}", hash.0)
}

/// A number in the study's files: shortest round-trip exponent form (`1.5e0`, `-9.81e0`), so
/// reading it back gives the same bits.
pub fn format_number(x: f64) -> String {
    format!("{x:e}")
}

/// One CSV line (RFC 4180: a field with a comma, quote or line break is quoted).
pub fn csv_row<'a>(fields: impl IntoIterator<Item = &'a str>) -> String {
    let quoted: Vec<String> = fields
        .into_iter()
        .map(|f| {
            if f.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", f.replace('"', "\"\""))
            } else {
                f.to_string()
            }
        })
        .collect();
    quoted.join(",") + "\n"
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so a
/// reader (or a requeued task) sees the old file or the new one, never half of one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut file = fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result.with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip_and_fields_are_quoted() {
        for x in [0.1 + 0.2, -9.81, 1e-300, 6.02e23, -0.0] {
            assert_eq!(format_number(x).parse::<f64>().unwrap().to_bits(), x.to_bits());
        }
        assert_eq!(
            csv_row(["a", "b,c", "say \"hi\""]),
            "a,\"b,c\",\"say \"\"hi\"\"\"\n"
        );
        // The published FNV-1a 64 vector for "foobar".
        assert_eq!(digest("foobar"), "85944171f73967e8");
    }
}
