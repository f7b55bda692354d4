//! Output directory handling and CSV writers.

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

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
    /// `--force` was given: every output goes through here. `name` must be a plain file name
    /// (no folder, no `..`), and a symbolic link in its place is refused even with `--force`,
    /// so nothing is ever written outside the directory.
    pub fn claim(&self, name: &str) -> Result<PathBuf> {
        let plain = !name.is_empty()
            && name != "."
            && name != ".."
            && !name.contains(['/', '\\', '\0'])
            && !name.chars().any(char::is_control);
        if !plain {
            bail!(
                "{name:?} is not a plain file name: ferrodyn writes only inside {}",
                self.root.display()
            );
        }
        let path = self.root.join(name);
        if let Ok(meta) = std::fs::symlink_metadata(&path) {
            if meta.file_type().is_symlink() {
                bail!(
                    "{} is a symbolic link: ferrodyn writes no result through a link (remove it)",
                    path.display()
                );
            }
            if !self.force {
                bail!("{} already exists; pass --force to overwrite it", path.display());
            }
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
            line: String::new(),
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

/// Seconds between two progress lines when stderr is not a terminal.
pub const PROGRESS_LINE_SECONDS: f64 = 5.0;

/// A run's progress: a bar on a terminal; otherwise (a log file, a batch job) a line to
/// stderr every [`PROGRESS_LINE_SECONDS`]; nothing when not asked.
pub struct Progress {
    bar: Option<ProgressBar>,
    lines: bool,
    steps: u64,
    started: Instant,
    last_line: f64,
}

impl Progress {
    /// Progress over `steps` steps, shown when `show`.
    pub fn new(show: bool, steps: u64) -> Self {
        let terminal = std::io::stderr().is_terminal();
        Self {
            bar: (show && terminal).then(|| progress_bar(steps)),
            lines: show && !terminal,
            steps,
            started: Instant::now(),
            last_line: 0.0,
        }
    }
    /// Step `k` done, at simulated time `t`.
    pub fn at(&mut self, k: u64, t: f64) {
        if let Some(bar) = &self.bar {
            bar.set_position(k);
            bar.set_message(format!("{t:.6}"));
        }
        let elapsed = self.started.elapsed().as_secs_f64();
        if self.lines && elapsed - self.last_line >= PROGRESS_LINE_SECONDS {
            self.last_line = elapsed;
            eprintln!("{}", progress_line(k, self.steps, t, elapsed));
        }
    }
    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// `progress: t = 1.25 s, step 1250 of 10000 (12.5 %), 2.1e3 steps/s, 0.6 s elapsed`.
pub fn progress_line(k: u64, steps: u64, t: f64, elapsed: f64) -> String {
    let percent = 100.0 * k as f64 / steps.max(1) as f64;
    let rate = k as f64 / elapsed.max(1e-9);
    format!("progress: t = {t} s, step {k} of {steps} ({percent:.1} %), {rate:.3} steps/s, {elapsed:.1} s elapsed")
}

/// A CSV file written row by row (numbers in shortest round-trip form).
pub struct CsvWriter {
    out: BufWriter<File>,
    path: PathBuf,
    /// The row being formed.
    line: String,
}

impl CsvWriter {
    /// Writes the header row.
    pub fn header<S: AsRef<str>>(&mut self, columns: &[S]) -> Result<()> {
        let line: Vec<&str> = columns.iter().map(|c| c.as_ref()).collect();
        let line = line.join(",") + "\n";
        self.out
            .write_all(line.as_bytes())
            .with_context(|| format!("writing {}", self.path.display()))
    }
    /// Writes one row of numbers, handed to the file as one whole line (a process ended at
    /// any moment leaves no torn line).
    pub fn row(&mut self, values: &[f64]) -> Result<()> {
        use std::fmt::Write as _;
        self.line.clear();
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                self.line.push(',');
            }
            // Plain notation where it is short, exponent notation for very small/large values.
            let a = v.abs();
            let _ = if a == 0.0 || (1e-4..1e6).contains(&a) {
                write!(self.line, "{v}")
            } else {
                write!(self.line, "{v:e}")
            };
        }
        self.line.push('\n');
        self.out
            .write_all(self.line.as_bytes())
            .with_context(|| format!("writing {}", self.path.display()))
    }
    /// Flushes and closes the file; returns its path.
    pub fn finish(mut self) -> Result<PathBuf> {
        self.out
            .flush()
            .with_context(|| format!("writing {}", self.path.display()))?;
        Ok(self.path)
    }
}
