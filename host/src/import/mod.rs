//! Robot model files → [`Scene`]: URDF (`urdf.rs`) and MJCF (`mjcf/`) are read into a scene
//! draft (bodies placed at zero joint coordinates, a frame on each body of every joint), written
//! as scene TOML and loaded by [`Scene::parse`] like any scene file, so that nothing downstream
//! knows where a scene came from and `ferrodyn import` writes exactly the scene that `run`
//! loads. Errors name the model file, line and element; the scene's own checks of the written
//! text are reported at the model element an item came from.

mod draft;
mod error;
mod mjcf;
mod package;
mod pose;
mod report;
mod stiff_damping;
mod urdf;
mod xml;

pub use draft::relative_to;
pub use error::{ImportError, ImportErrorKind};
pub use report::ImportReport;
pub use urdf::DROPPED_INERTIA;

use crate::scene::{Scene, SceneError, Source};
use draft::{Draft, Written};
use std::path::{Path, PathBuf};
use xml::XmlFile;

/// How to read a model.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// Folders searched for `package://NAME/…` (before the model's folder and its ancestors).
    pub package_paths: Vec<PathBuf>,
    /// The root link moves freely (a floating base) instead of being the fixed ground.
    pub floating_base: bool,
    /// Collision geometry becomes contact shapes.
    pub collision: bool,
}

/// The model formats read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelFormat {
    /// URDF (`<robot>`).
    Urdf,
    /// MuJoCo's MJCF (`<mujoco>`).
    Mjcf,
}

/// The format of a model file by its extension (`.urdf`; `.xml`: MJCF unless the root element is
/// `<robot>`), `None` for anything else (a scene file).
pub fn model_format(path: &Path) -> Option<ModelFormat> {
    let ext = path.extension()?.to_string_lossy().to_lowercase();
    match ext.as_str() {
        "urdf" => Some(ModelFormat::Urdf),
        "xml" | "mjcf" => {
            // The first 4 kB tell: never the whole file (it may be /dev/zero).
            let head = std::fs::File::open(path).ok().and_then(|f| {
                let mut b = Vec::new();
                std::io::Read::read_to_end(&mut std::io::Read::take(f, 4096), &mut b).ok()?;
                Some(String::from_utf8_lossy(&b).into_owned())
            });
            let robot = head.is_some_and(|h| {
                let without_comments = h
                    .split("-->")
                    .map(|s| s.split("<!--").next().unwrap_or(""))
                    .collect::<String>();
                without_comments.contains("<robot") && !without_comments.contains("<mujoco")
            });
            Some(if robot {
                ModelFormat::Urdf
            } else {
                ModelFormat::Mjcf
            })
        }
        _ => None,
    }
}

/// An imported model: the scene, the notes, and the draft to write it as a scene file.
pub struct Imported {
    /// The scene, with the model file as its source (errors of later stages name model lines).
    pub scene: Scene,
    /// What was left out.
    pub report: ImportReport,
    draft: Draft,
    model: PathBuf,
}

impl Imported {
    /// The scene file text to be written at `out` (mesh paths relative to its folder).
    pub fn toml(&self, out: &Path) -> String {
        let folder = std::path::absolute(out)
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        self.draft.to_toml(&self.model, &folder).text
    }
}

/// Reads the model at `path` into a scene.
pub fn import(path: &Path, options: &ImportOptions) -> Result<Imported, ImportError> {
    let format = model_format(path).ok_or_else(|| {
        ImportError::new(
            ImportErrorKind::Unreadable,
            path,
            None,
            "",
            "not a model file (.urdf, or .xml for MJCF)",
        )
    })?;
    let file = XmlFile::read(path)?;
    let mut report = ImportReport::default();
    let mut draft = match format {
        ModelFormat::Urdf => urdf::import(&file, options, &mut report)?,
        ModelFormat::Mjcf => mjcf::import(&file, options, &mut report)?,
    };
    let folder = std::path::absolute(path)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let parse = |draft: &Draft| {
        let written = draft.to_toml(path, &folder);
        let mut scene = Scene::parse(path, &written.text).map_err(|e| scene_error(path, &written, e))?;
        relabel(&mut scene, path, &file.text, &written);
        Ok::<_, ImportError>(scene)
    };
    let mut scene = parse(&draft)?;
    if !draft.limit_solref.is_empty() {
        draft.limit_stops = stiff_damping::end_stops(&scene, &draft.limit_solref)
            .into_iter()
            .collect();
        if !draft.limit_stops.is_empty() {
            report.fact(format!(
                "end stops of {} joint limits sized by each joint's inertia as MuJoCo's solreflimit does (docs/import.md)",
                draft.limit_stops.len()
            ));
            scene = parse(&draft)?;
        }
    }
    if let Some(reason) = stiff_damping::integrator_for(&scene) {
        draft.integrator = Some(stiff_damping::IMPLICIT);
        scene = parse(&draft)?;
        report.fact(reason);
    }
    for note in &scene.notes {
        report.fact(note.clone());
    }
    Ok(Imported {
        scene,
        report,
        draft,
        model: path.to_path_buf(),
    })
}

/// A scene check failed on the written text: the same error at the model element's line.
fn scene_error(path: &Path, written: &Written, e: SceneError) -> ImportError {
    let kind = match e.kind() {
        crate::scene::ErrorKind::Mesh(_) | crate::scene::ErrorKind::Io(_) => ImportErrorKind::Unreadable,
        _ => ImportErrorKind::Invalid,
    };
    let reason = e.kind().to_string();
    // A shape's mesh that cannot be read comes back as an invalid `mesh` value naming the file.
    let kind = if reason.contains("mesh file") {
        ImportErrorKind::Unreadable
    } else {
        kind
    };
    let element = e.item().map(|i| i.to_string()).unwrap_or_default();
    ImportError::new(
        kind,
        path,
        e.line().and_then(|l| written.model_line(l)),
        &element,
        reason,
    )
}

/// The scene's items point at the model file's lines from now on.
fn relabel(scene: &mut Scene, path: &Path, text: &str, written: &Written) {
    let line = |l: usize| written.model_line(l).unwrap_or(l);
    scene.source = Source::new(path, text);
    for b in &mut scene.bodies {
        b.line = line(b.line);
    }
    for j in &mut scene.joints {
        j.line = line(j.line);
    }
    for f in &mut scene.forces {
        f.line = line(f.line);
    }
    for i in &mut scene.inputs {
        i.line = line(i.line);
    }
    for c in &mut scene.couplings {
        c.line = line(c.line);
    }
    for t in &mut scene.tendons {
        t.line = line(t.line);
    }
}

/// The scene at `path`: a scene file, or a model file imported with the default options (its
/// notes printed to standard error). `run`, `check`, `view`, `render` and `export` load so.
pub fn load_scene(path: &Path) -> anyhow::Result<Scene> {
    if model_format(path).is_none() {
        return Ok(Scene::load(path)?);
    }
    let imported = import(path, &ImportOptions::default())?;
    for line in imported.report.lines() {
        eprintln!("import: {line}");
    }
    Ok(imported.scene)
}

#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod tests;
