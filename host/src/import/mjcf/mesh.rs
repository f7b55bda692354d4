//! MJCF `<mesh>` assets as a geom's mass source: the file (STL binary or ASCII, OBJ, MuJoCo's
//! `.msh`; under the compiler's `meshdir`, else `assetdir`, from the main file's folder) or the
//! inline `vertex`/`face` lists, placed as MuJoCo places them — `refpos` subtracted, turned back
//! by `refquat`, then scaled by `scale` (a mirroring scale turns the faces round) — and the
//! volume, centre and inertia its `inertia` rule gives (mesh_mass.rs). MuJoCo keeps vertices
//! in single precision, so they are rounded to `f32` first, as it reads them.

use super::super::error::{ImportError, ImportErrorKind};
use super::super::xml::At;
use super::document::Model;
use super::mesh_mass::{mesh_mass, MeshInertia, MeshMass};
use super::msh::parse_msh;
use ferrodyn_kernel::math::{Quat, Vec3};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

/// The mesh assets of a model by name, each read once when a geom first needs it.
pub struct Meshes<'a, 'i> {
    assets: HashMap<String, At<'a, 'i>>,
    done: RefCell<HashMap<String, MeshMass>>,
}

impl<'a, 'i> Meshes<'a, 'i> {
    /// The `<mesh>` elements of every `<asset>` (a mesh without `name` is named by its file
    /// without folder and extension, as MuJoCo names it).
    pub fn new(model: &Model<'a, 'i>) -> Self {
        let mut assets = HashMap::new();
        for asset in model.children(model.root()) {
            if asset.node.tag_name().name() != "asset" {
                continue;
            }
            for mesh in model.children(asset) {
                if mesh.node.tag_name().name() != "mesh" {
                    continue;
                }
                let name = mesh.node.attribute("name").map(str::to_string).or_else(|| {
                    let file = mesh.node.attribute("file")?;
                    Some(Path::new(file).file_stem()?.to_string_lossy().into_owned())
                });
                if let Some(name) = name {
                    assets.insert(name, mesh);
                }
            }
        }
        Self {
            assets,
            done: RefCell::new(HashMap::new()),
        }
    }

    /// The unit-density mass properties, in the mesh's frame, of the mesh `geom` names.
    pub fn mass(&self, model: &Model<'a, 'i>, geom: &At<'a, 'i>) -> Result<MeshMass, ImportError> {
        let name = model
            .attr(geom, "mesh")
            .ok_or_else(|| geom.invalid("a mesh geom needs a `mesh` attribute"))?;
        if let Some(done) = self.done.borrow().get(&name) {
            return Ok(*done);
        }
        let at = self
            .assets
            .get(&name)
            .ok_or_else(|| geom.invalid(format!("mesh \"{name}\" is not an <asset> mesh")))?;
        let mass = read(model, at)?;
        self.done.borrow_mut().insert(name, mass);
        Ok(mass)
    }
}

/// Reads and places the mesh of `at`, and forms its mass properties.
fn read<'a, 'i>(model: &Model<'a, 'i>, at: &At<'a, 'i>) -> Result<MeshMass, ImportError> {
    let mode = match model.attr(at, "inertia") {
        None => MeshInertia::Legacy,
        Some(text) => MeshInertia::parse(&text).ok_or_else(|| {
            at.invalid(format!(
                "inertia \"{text}\" is not convex, exact, legacy or shell"
            ))
        })?,
    };
    let (vertices, faces, msh) = match model.attr(at, "file") {
        Some(file) => {
            let (v, f, msh) = read_file(model, at, &file)?;
            (v, Some(f), msh)
        }
        None => {
            let (v, f) = inline(model, at)?;
            (v, f, false)
        }
    };
    if vertices.len() < 4 {
        return Err(at.invalid("a mesh needs at least 4 vertices"));
    }
    let scale = Vec3::from_array(model.array::<3>(at, "scale")?.unwrap_or([1.0; 3]));
    let refpos = Vec3::from_array(model.array::<3>(at, "refpos")?.unwrap_or([0.0; 3]));
    let refquat = match model.array::<4>(at, "refquat")? {
        None => Quat::IDENTITY,
        Some(q) => Quat::new(q[0], q[1], q[2], q[3])
            .normalized()
            .ok_or_else(|| at.invalid("refquat is zero"))?,
    };
    let back = refquat.conjugate();
    let placed: Vec<Vec3<f64>> = vertices
        .iter()
        .map(|v| {
            let p = back.rotate(Vec3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2])) - refpos);
            p.component_mul(scale)
        })
        .collect();
    let hull = match (&faces, mode) {
        (Some(_), MeshInertia::Convex) | (None, _) => Some(convex_hull(&placed).map_err(|e| at.invalid(e))?),
        _ => None,
    };
    // MuJoCo turns the faces of a mirroring scale round (twice for `.msh`: on reading too).
    let mirrored = scale.x * scale.y * scale.z < 0.0 && !msh;
    let faces: Vec<[u32; 3]> = match &faces {
        Some(f) if mirrored => f.iter().map(|t| [t[0], t[2], t[1]]).collect(),
        Some(f) => f.clone(),
        None => Vec::new(),
    };
    let result = match &hull {
        // No faces given: the hull is the mesh.
        Some((v, f)) if faces.is_empty() => mesh_mass(v, f, Some((v, f)), mode),
        Some((v, f)) => mesh_mass(&placed, &faces, Some((v, f)), mode),
        None => mesh_mass(&placed, &faces, None, mode),
    };
    result.map_err(|reason| at.invalid(format!("as a mass source: {reason}")))
}

/// Vertices (single precision, as MuJoCo keeps them), faces, and whether the file is `.msh`.
type Read = (Vec<[f32; 3]>, Vec<[u32; 3]>, bool);

fn read_file<'a, 'i>(model: &Model<'a, 'i>, at: &At<'a, 'i>, file: &str) -> Result<Read, ImportError> {
    let folder = model.main_dir().join(model.meshdir.as_deref().unwrap_or(""));
    let path = folder.join(file);
    let unreadable = |reason: String| {
        at.error(
            ImportErrorKind::Unreadable,
            format!("mesh file {}: {reason}", path.display()),
        )
    };
    let single = |v: Vec<[f64; 3]>| -> Vec<[f32; 3]> { v.iter().map(|p| p.map(|x| x as f32)).collect() };
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "stl" => {
            let (v, f) = crate::stl::read_stl(&path).map_err(|e| unreadable(e.reason))?;
            Ok((single(v), f, false))
        }
        "obj" => {
            let (v, f) = crate::obj::read_obj(&path).map_err(|e| unreadable(e.reason))?;
            Ok((single(v), f, false))
        }
        "msh" => {
            let bytes = crate::limits::read_capped(&path, crate::limits::MESH_FILE_LIMIT, "MSH meshes")
                .map_err(|e| unreadable(format!("cannot read: {e}")))?;
            let (v, f) = parse_msh(&bytes).map_err(unreadable)?;
            Ok((v, f, true))
        }
        other => Err(at.refused(format!(
            "mesh file {}: the format \"{other}\" is not read (STL, OBJ, MSH are)",
            path.display()
        ))),
    }
}

/// Inline vertices (single precision) and faces.
type Inline = (Vec<[f32; 3]>, Option<Vec<[u32; 3]>>);

/// The inline `vertex` list and `face` list (none given: the convex hull's).
fn inline<'a, 'i>(model: &Model<'a, 'i>, at: &At<'a, 'i>) -> Result<Inline, ImportError> {
    let numbers = model
        .numbers(at, "vertex")?
        .ok_or_else(|| at.invalid("a mesh needs `file` or `vertex`"))?;
    if numbers.len() % 3 != 0 {
        return Err(at.invalid("`vertex` needs three numbers a vertex"));
    }
    let vertices: Vec<[f32; 3]> = numbers
        .chunks_exact(3)
        .map(|c| [c[0] as f32, c[1] as f32, c[2] as f32])
        .collect();
    let faces = match model.numbers(at, "face")? {
        None => None,
        Some(f) if f.len() % 3 != 0 => return Err(at.invalid("`face` needs three indices a face")),
        Some(f) => {
            let index = |x: f64| -> Result<u32, ImportError> {
                (x >= 0.0 && x.fract() == 0.0 && (x as usize) < vertices.len())
                    .then_some(x as u32)
                    .ok_or_else(|| at.invalid(format!("face index {x} is not a vertex")))
            };
            Some(
                f.chunks_exact(3)
                    .map(|c| Ok([index(c[0])?, index(c[1])?, index(c[2])?]))
                    .collect::<Result<Vec<_>, ImportError>>()?,
            )
        }
    };
    Ok((vertices, faces))
}

/// A convex hull's vertices and outward faces.
type Hull = (Vec<Vec3<f64>>, Vec<[u32; 3]>);

/// The convex hull's vertices and outward faces (parry3d's hull).
fn convex_hull(points: &[Vec3<f64>]) -> Result<Hull, String> {
    use parry3d_f64::math::Vector3;
    let input: Vec<Vector3> = points.iter().map(|p| Vector3::new(p.x, p.y, p.z)).collect();
    let (v, f) = parry3d_f64::transformation::try_convex_hull(&input)
        .map_err(|e| format!("its convex hull cannot be formed: {e:?}"))?;
    Ok((v.iter().map(|p| Vec3::new(p.x, p.y, p.z)).collect(), f))
}
