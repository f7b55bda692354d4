//! `ferrodyn sweep plan`: a study directory from a scene, parameters and a design.

use super::path::{self, absolute_meshes};
use super::sample::{grid, latin_hypercube, monte_carlo, Draw};
use super::spec::{Axis, Spec};
use super::study::{digest, write_atomically, Case, Study, MANIFEST_FILE, SCENE_FILE, STUDY_FILE};
use crate::scene::Scene;
use anyhow::{bail, Context, Result};
use std::fs;
use std::path::PathBuf;
use toml_edit::DocumentMut;

/// The largest study planned at once (a mistyped grid should not fill the disk).
pub const MAX_CASES: usize = 1_000_000;

/// How the cases are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Design {
    /// Every combination of the parameters' values.
    Grid,
    /// A Latin hypercube of this many cases.
    LatinHypercube(usize),
    /// This many independent random cases.
    MonteCarlo(usize),
}

impl Design {
    fn name(&self) -> &'static str {
        match self {
            Self::Grid => "grid",
            Self::LatinHypercube(_) => "latin-hypercube",
            Self::MonteCarlo(_) => "monte-carlo",
        }
    }
}

/// What `ferrodyn sweep plan` was asked.
#[derive(Clone, Debug)]
pub struct PlanOptions {
    /// The base scene file.
    pub scene: PathBuf,
    /// `PATH=SPEC` for each parameter.
    pub params: Vec<String>,
    /// The design.
    pub design: Design,
    /// The study seed (the cases' seeds and the random designs derive from it).
    pub seed: u64,
    /// The study directory.
    pub out: PathBuf,
    /// Replace the plan of an existing study (results whose digest still matches are kept).
    pub force: bool,
}

/// Plans the study: checks the base scene, every path and spec, draws the cases and writes
/// the study directory.
pub fn plan(options: &PlanOptions) -> Result<Study> {
    let source = fs::canonicalize(&options.scene)
        .with_context(|| format!("cannot read the scene {}", options.scene.display()))?;
    // The base scene must be valid itself; values set per case are checked when the case runs.
    Scene::load(&source)?;
    let text = fs::read_to_string(&source).with_context(|| format!("cannot read {}", source.display()))?;
    let mut base: DocumentMut = text
        .parse()
        .with_context(|| format!("{} is not TOML", source.display()))?;
    if let Some(dir) = source.parent() {
        absolute_meshes(&mut base, dir);
    }

    let sampled = !matches!(options.design, Design::Grid);
    let mut paths: Vec<String> = Vec::new();
    let mut axes = Vec::new();
    for param in &options.params {
        let (path, spec) = param.split_once('=').with_context(|| {
            format!("--param {param}: expected PATH=SPEC, e.g. body.bob.mass=lin:0.5:2:4")
        })?;
        let (path, spec) = (path.trim(), spec.trim());
        if paths.iter().any(|p| p == path) {
            bail!("--param {path} is given twice");
        }
        let kind = path::kind_at(&mut base.clone(), path)
            .map_err(|e| anyhow::anyhow!("--param {param}: unknown path: {e}"))?;
        let axis = Spec::parse(spec)
            .and_then(|s| s.axis(kind, sampled))
            .map_err(|e| anyhow::anyhow!("--param {param}: malformed spec: {e}"))?;
        // Manifest cells are split on commas: refuse what could not be read back.
        if let Axis::Levels(levels) = &axis {
            if let Some(bad) = levels.iter().find(|l| l.contains(['"', '\n', '\r'])) {
                bail!("--param {param}: the value '{bad}' may not hold quotes or line breaks");
            }
        }
        if path.contains(',') {
            bail!("--param {param}: a path may not hold a comma");
        }
        paths.push(path.to_string());
        axes.push(axis);
    }

    let draws: Vec<Draw> = match options.design {
        Design::Grid => {
            let count = axes.iter().try_fold(1usize, |n, a| match a {
                Axis::Levels(l) => n.checked_mul(l.len()),
                Axis::Continuous(_) => Some(n),
            });
            if count.is_none_or(|n| n > MAX_CASES) {
                bail!("the grid has more than {MAX_CASES} cases; sample it (--lhs, --monte-carlo) instead");
            }
            grid(&axes, options.seed).context("a distribution in a grid")?
        }
        Design::LatinHypercube(n) | Design::MonteCarlo(n) if n == 0 || n > MAX_CASES => {
            bail!("the number of cases must lie in 1..={MAX_CASES} (got {n})")
        }
        Design::LatinHypercube(n) => latin_hypercube(&axes, n, options.seed),
        Design::MonteCarlo(n) => monte_carlo(&axes, n, options.seed),
    };

    let root = &options.out;
    if root.join(MANIFEST_FILE).exists() && !options.force {
        bail!(
            "{} already holds a study; pass --force to plan it again (results whose scene is unchanged are kept)",
            root.display()
        );
    }
    fs::create_dir_all(root).with_context(|| format!("cannot create {}", root.display()))?;
    let root = fs::canonicalize(root)?;
    write_atomically(&root.join(SCENE_FILE), base.to_string().as_bytes())?;
    let mut study = Study::new(root.clone(), base, paths, Vec::new());
    for (index, draw) in draws.into_iter().enumerate() {
        let text = study.scene_text(&draw.cells)?;
        study.cases.push(Case {
            index,
            cells: draw.cells,
            seed: draw.seed,
            digest: digest(&text),
        });
    }
    study.write_manifest()?;
    write_atomically(
        &root.join(STUDY_FILE),
        describe(options, &source, &study).as_bytes(),
    )?;
    Ok(study)
}

/// `study.toml`: where the study came from and how it was drawn.
fn describe(options: &PlanOptions, source: &std::path::Path, study: &Study) -> String {
    let mut doc = DocumentMut::new();
    doc["source"] = toml_edit::value(source.to_string_lossy().as_ref());
    doc["design"] = toml_edit::value(options.design.name());
    // A TOML integer is an i64: the seed is kept as text to hold every u64.
    doc["seed"] = toml_edit::value(options.seed.to_string());
    doc["cases"] = toml_edit::value(study.cases.len() as i64);
    let mut params = toml_edit::Array::new();
    params.extend(options.params.iter().map(String::as_str));
    doc["params"] = toml_edit::value(params);
    doc.to_string()
}
