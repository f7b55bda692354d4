//! Output directory handling and CSV writers.

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A directory that receives a run's result files; refuses to overwrite unless forced.
#[derive(Clone, Debug)]
pub struct OutputDir {
    root: PathBuf,
    force: bool,
}

impl OutputDir {
    /// Creates (if needed) the directory `root`.
    pub fn create(root: &Path, force: bool) -> Result<Self> {
        std::fs::create_dir_all(root)
            .with_context(|| format!("cannot create output directory {}", root.display()))?;
        Ok(Self {
            root: root.to_path_buf(),
            force,
        })
    }
    /// The directory.
    pub fn path(&self) -> &Path {
        &self.root
    }
    /// The path of `name` inside the directory, refusing a file that already exists unless
    /// `--force` was given: every output goes through here.
    pub fn claim(&self, name: &str) -> Result<PathBuf> {
        let path = self.root.join(name);
        if path.exists() && !self.force {
            bail!("{} already exists; pass --force to overwrite it", path.display());
        }
        Ok(path)
    }
    /// Opens `name` inside the directory for writing (see [`OutputDir::claim`]).
    pub fn file(&self, name: &str) -> Result<CsvWriter> {
        let path = self.claim(name)?;
        let file = File::create(&path).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(CsvWriter {
            out: BufWriter::new(file),
            path,
        })
    }
}

/// A progress bar over `steps` steps showing the simulated time as its message (hidden when
/// the output is not a terminal).
pub fn progress_bar(steps: u64) -> ProgressBar {
    ProgressBar::new(steps).with_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} steps  t = {msg} s")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    )
}

/// A CSV file written row by row (numbers in shortest round-trip form).
pub struct CsvWriter {
    out: BufWriter<File>,
    path: PathBuf,
}

impl CsvWriter {
    /// Writes the header row.
    pub fn header<S: AsRef<str>>(&mut self, columns: &[S]) -> Result<()> {
        let line: Vec<&str> = columns.iter().map(|c| c.as_ref()).collect();
        writeln!(self.out, "{}", line.join(",")).with_context(|| format!("writing {}", self.path.display()))
    }
    /// Writes one row of numbers.
    pub fn row(&mut self, values: &[f64]) -> Result<()> {
        let mut first = true;
        for v in values {
            if !first {
                self.out.write_all(b",")?;
            }
            first = false;
            // Plain notation where it is short, exponent notation for very small/large values.
            let a = v.abs();
            if a == 0.0 || (1e-4..1e6).contains(&a) {
                write!(self.out, "{v}")?;
            } else {
                write!(self.out, "{v:e}")?;
            }
        }
        writeln!(self.out).with_context(|| format!("writing {}", self.path.display()))
    }
    /// Flushes and closes the file; returns its path.
    pub fn finish(mut self) -> Result<PathBuf> {
        self.out
            .flush()
            .with_context(|| format!("writing {}", self.path.display()))?;
        Ok(self.path)
    }
}
