//! Output directory handling and CSV writers.

use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A directory that receives a run's result files; refuses to overwrite unless forced.
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
    /// Whether existing files may be replaced (`--force`).
    pub fn overwrites(&self) -> bool {
        self.force
    }
    /// Opens `name` inside the directory for writing, refusing to replace an existing file
    /// unless `--force` was given.
    pub fn file(&self, name: &str) -> Result<CsvWriter> {
        let path = self.root.join(name);
        if path.exists() && !self.force {
            bail!("{} already exists; pass --force to overwrite it", path.display());
        }
        let file = File::create(&path).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(CsvWriter {
            out: BufWriter::new(file),
            path,
        })
    }
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
