//! An MJCF model as MuJoCo's compiler sees it before building: the main file and its
//! `<include>`s (each element keeps its own file and line), the `<default>` classes, and the
//! `<compiler>` settings that change how numbers read (angles, Euler sequence, mesh folder).

use super::super::error::{ImportError, ImportErrorKind};
use super::super::xml::{elements, At, XmlFile};
use roxmltree::{Document, Node};
use std::collections::HashMap;
use std::path::Path;

/// The files of a model: the main file first, then every included file (read once).
pub struct Files {
    files: Vec<XmlFile>,
}

/// At most this many included files (a cycle of includes stops here too).
const MAX_FILES: usize = 256;

impl Files {
    /// Reads `main` and, recursively, the files its `<include file>` elements name.
    pub fn read(main: &Path) -> Result<Self, ImportError> {
        let mut files = vec![XmlFile::read(main)?];
        let mut k = 0;
        while k < files.len() {
            let mut found = Vec::new();
            {
                let doc = files[k].parse()?;
                for node in doc.descendants().filter(|n| n.has_tag_name("include")) {
                    let at = At::new(&files[k].path, node);
                    let name = at.required("file")?;
                    let path = files[k].path.parent().unwrap_or(Path::new(".")).join(name);
                    found.push((path, at.line(), at.element()));
                }
            }
            for (path, line, element) in found {
                // MuJoCo refuses a file included twice; so no include can loop.
                if files.iter().any(|f| f.path == path) {
                    return Err(ImportError::new(
                        ImportErrorKind::Invalid,
                        &files[k].path,
                        Some(line),
                        &element,
                        format!("{} is included twice (or includes itself)", path.display()),
                    ));
                }
                if files.len() >= MAX_FILES {
                    return Err(ImportError::new(
                        ImportErrorKind::Invalid,
                        &files[k].path,
                        Some(line),
                        &element,
                        format!("more than {MAX_FILES} included files"),
                    ));
                }
                let file = XmlFile::read(&path).map_err(|e| {
                    ImportError::new(
                        ImportErrorKind::Unreadable,
                        &files[k].path,
                        Some(line),
                        &element,
                        e.to_string(),
                    )
                })?;
                files.push(file);
            }
            k += 1;
        }
        Ok(Self { files })
    }

    /// The parsed documents, main first.
    pub fn parse(&self) -> Result<Vec<(&Path, Document<'_>)>, ImportError> {
        self.files
            .iter()
            .map(|f| Ok((f.path.as_path(), f.parse()?)))
            .collect()
    }
}

/// The parsed model: documents, defaults, compiler settings.
pub struct Model<'a, 'i> {
    docs: &'a [(&'a Path, Document<'i>)],
    /// Default attributes: class → tag → attribute → value (classes inherit their parents').
    defaults: HashMap<String, HashMap<String, HashMap<String, String>>>,
    /// Angles in degrees (MuJoCo's default) or radians.
    pub degrees: bool,
    /// Euler sequence, e.g. "xyz" (lowercase: rotating axes).
    pub eulerseq: String,
    /// Inertia from geoms: "auto" (when a body has no `<inertial>`), "true", "false".
    pub inertia_from_geom: String,
    /// `settotalmass`: every body's mass and inertia scaled so that the total is this (when
    /// positive; MuJoCo's default −1 leaves them).
    pub set_total_mass: Option<f64>,
    /// `balanceinertia`: a body whose principal moments violate A + B ≥ C gets their mean.
    pub balance_inertia: bool,
    /// Folder of mesh files, from the main file's folder: `meshdir`, else `assetdir`.
    pub meshdir: Option<String>,
    /// `inertiagrouprange`: the geom groups whose mass counts (MuJoCo's default 0 … 5).
    pub inertia_groups: [f64; 2],
}

impl<'a, 'i> Model<'a, 'i> {
    /// The model of `docs` (main first).
    pub fn new(docs: &'a [(&'a Path, Document<'i>)]) -> Result<Self, ImportError> {
        let main = &docs[0];
        let root = At::new(main.0, main.1.root_element());
        if root.node.tag_name().name() != "mujoco" {
            return Err(root.invalid("the root element of an MJCF file must be <mujoco>"));
        }
        let mut model = Self {
            docs,
            defaults: HashMap::new(),
            degrees: true,
            eulerseq: "xyz".into(),
            inertia_from_geom: "auto".into(),
            set_total_mass: None,
            balance_inertia: false,
            meshdir: None,
            inertia_groups: [0.0, 5.0],
        };
        for at in model.children(root) {
            match at.node.tag_name().name() {
                "compiler" => model.compiler(at)?,
                "default" => model.read_defaults(at, None)?,
                _ => {}
            }
        }
        Ok(model)
    }

    /// The root element of the main file.
    pub fn root(&self) -> At<'a, 'i> {
        At::new(self.docs[0].0, self.docs[0].1.root_element())
    }

    /// The folder of the main file (MuJoCo resolves asset files from it).
    pub fn main_dir(&self) -> &'a Path {
        self.docs[0].0.parent().unwrap_or(Path::new("."))
    }

    /// The element children of `at`, with each `<include>` replaced by the included file's
    /// top-level children.
    pub fn children(&self, at: At<'a, 'i>) -> Vec<At<'a, 'i>> {
        let mut out = Vec::new();
        for node in elements(at.node) {
            if node.has_tag_name("include") {
                let Some(name) = node.attribute("file") else {
                    continue;
                };
                let path = at.path.parent().unwrap_or(Path::new(".")).join(name);
                if let Some((p, doc)) = self.docs.iter().find(|(p, _)| *p == path) {
                    out.extend(self.children(At::new(p, doc.root_element())));
                }
            } else {
                out.push(at.at(node));
            }
        }
        out
    }

    fn compiler(&mut self, at: At) -> Result<(), ImportError> {
        if let Some(a) = at.node.attribute("angle") {
            self.degrees = match a {
                "degree" => true,
                "radian" => false,
                other => return Err(at.invalid(format!("angle \"{other}\" is not degree or radian"))),
            };
        }
        if let Some(s) = at.node.attribute("eulerseq") {
            if s.len() != 3 || !s.chars().all(|c| "xyzXYZ".contains(c)) {
                return Err(at.invalid(format!("eulerseq \"{s}\" is not three of x, y, z, X, Y, Z")));
            }
            self.eulerseq = s.into();
        }
        if let Some(v) = at.node.attribute("inertiafromgeom") {
            self.inertia_from_geom = v.into();
        }
        if let Some(text) = at.node.attribute("settotalmass") {
            let total = at.number_list("settotalmass", text)?.first().copied();
            self.set_total_mass = total.filter(|t| *t > 0.0);
        }
        if let Some(v) = at.node.attribute("balanceinertia") {
            self.balance_inertia = v == "true";
        }
        if let Some(text) = at.node.attribute("inertiagrouprange") {
            let range = at.number_list("inertiagrouprange", text)?;
            self.inertia_groups = range
                .try_into()
                .map_err(|_| at.invalid("inertiagrouprange needs two numbers"))?;
        }
        if let Some(dir) = at.node.attribute("meshdir") {
            self.meshdir = Some(dir.into());
        } else if let Some(dir) = at.node.attribute("assetdir") {
            self.meshdir.get_or_insert_with(|| dir.into());
        }
        if at.node.attribute("coordinate") == Some("global") {
            return Err(at.refused("coordinate=\"global\" (removed from MuJoCo) is not read"));
        }
        Ok(())
    }

    /// Reads a `<default>` element (class `main` at the top) and its nested classes.
    fn read_defaults(&mut self, at: At<'a, 'i>, parent: Option<&str>) -> Result<(), ImportError> {
        let class = at.node.attribute("class").unwrap_or("main").to_string();
        let mut table = parent
            .and_then(|p| self.defaults.get(p).cloned())
            .unwrap_or_default();
        let mut nested = Vec::new();
        for child in self.children(at) {
            let tag = child.node.tag_name().name();
            if tag == "default" {
                nested.push(child);
                continue;
            }
            let entry = table.entry(tag.to_string()).or_default();
            for a in child.node.attributes() {
                entry.insert(a.name().to_string(), a.value().to_string());
            }
        }
        self.defaults.insert(class.clone(), table);
        for child in nested {
            self.read_defaults(child, Some(&class))?;
        }
        Ok(())
    }

    /// An attribute of `node` (tag `tag`), or its class default: the element's `class`, else
    /// the nearest enclosing body's `childclass`, else `main`.
    pub fn attr(&self, at: &At<'a, 'i>, name: &str) -> Option<String> {
        self.attr_in(at, at.node.tag_name().name(), name)
    }

    /// [`Self::attr`] with the defaults of element `tag` (a `<fixed>` or `<spatial>` tendon
    /// takes the defaults' `<tendon>`).
    pub fn attr_in(&self, at: &At<'a, 'i>, tag: &str, name: &str) -> Option<String> {
        if let Some(v) = at.node.attribute(name) {
            return Some(v.to_string());
        }
        let class = at
            .node
            .attribute("class")
            .or_else(|| at.node.ancestors().find_map(|n: Node| n.attribute("childclass")))
            .unwrap_or("main");
        self.defaults.get(class)?.get(tag)?.get(name).cloned()
    }

    /// A number attribute (with defaults).
    pub fn number(&self, at: &At<'a, 'i>, name: &str) -> Result<Option<f64>, ImportError> {
        match self.attr(at, name) {
            None => Ok(None),
            Some(text) => {
                let v = at.number_list(name, &text)?;
                v.first()
                    .copied()
                    .map(Some)
                    .ok_or_else(|| at.invalid(format!("`{name}` is empty")))
            }
        }
    }

    /// All numbers of an attribute (with defaults).
    pub fn numbers(&self, at: &At<'a, 'i>, name: &str) -> Result<Option<Vec<f64>>, ImportError> {
        self.attr(at, name)
            .map(|text| at.number_list(name, &text))
            .transpose()
    }

    /// Exactly `N` numbers of an attribute (with defaults).
    pub fn array<const N: usize>(
        &self,
        at: &At<'a, 'i>,
        name: &str,
    ) -> Result<Option<[f64; N]>, ImportError> {
        match self.numbers(at, name)? {
            None => Ok(None),
            Some(v) => v
                .try_into()
                .map(Some)
                .map_err(|v: Vec<f64>| at.invalid(format!("`{name}` needs {N} numbers, got {}", v.len()))),
        }
    }

    /// An angle in radians (the compiler's unit converted).
    pub fn angle(&self, value: f64) -> f64 {
        if self.degrees {
            value.to_radians()
        } else {
            value
        }
    }
}
