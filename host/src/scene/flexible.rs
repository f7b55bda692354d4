//! Flexible bodies: the `[[flexible]]` table checked against its mesh (physical groups by
//! name, face detection for clamps and attachments).

use crate::limits::{check_memory, BYTES_PER_TET};
use std::path::{Path, PathBuf};

use ferrodyn_kernel::ancf::{ElementError, Material, MaterialLaw};
use ferrodyn_kernel::flex::{Fixity, MeshBuilder};
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::samples::add_box_mesh;
use ferrodyn_kernel::BuildError;
use toml::Spanned;

use super::checker::Checker;
use super::convert::{self, Rule};
use super::error::{ErrorKind, SceneError};
use super::format::{RawBox, RawFlexible, RawMaterial};
use super::types::{FlexContactSpec, FlexibleSpec};
use crate::gmsh::{read_msh, Mesh, MeshReport, MshFormat, MshVersion, PhysicalGroup, Tet};
use crate::spec::Proximity;

/// Relative tolerance (to the mesh size) within which a group's nodes count as one plane.
const PLANE_TOLERANCE: f64 = 1e-9;

/// Validates one `[[flexible]]` table; `find_body` resolves a rigid body name to its index.
pub(super) fn validate(
    c: &Checker,
    f: &Spanned<RawFlexible>,
    find_body: impl Fn(&'static str, &Spanned<String>) -> Result<usize, SceneError>,
) -> Result<FlexibleSpec, SceneError> {
    let r = f.get_ref();
    let material = material(c, &r.material)?;
    let dir = c.source.path.parent().unwrap_or(Path::new("."));
    let (mesh_path, mut mesh, groups_of) = match (&r.mesh, &r.block) {
        (Some(file), None) => {
            let path = dir.join(file.get_ref());
            let mesh = read_msh(&path).map_err(|e| c.error(&file.span(), ErrorKind::Mesh(e)))?;
            let what = format!("{} ({} tets)", path.display(), mesh.tets().len());
            check_memory(&what, mesh.tets().len() as f64 * BYTES_PER_TET)
                .map_err(|e| c.invalid(&file.span(), "mesh", e))?;
            (path, mesh, file.get_ref().clone())
        }
        (None, Some(b)) => (PathBuf::from("box"), box_mesh(c, b)?, "a box".to_string()),
        (Some(file), Some(_)) => {
            return Err(c.invalid(&file.span(), "mesh", "give either mesh or box, not both".into()))
        }
        (None, None) => return Err(c.invalid(&f.span(), "mesh", "missing (or give a box)".into())),
    };
    mesh.fix_orientation();
    let group = |name: &Spanned<String>| -> Result<Vec<usize>, SceneError> {
        mesh.nodes_of_group(name.get_ref())
            .map(<[usize]>::to_vec)
            .ok_or_else(|| {
                let names: Vec<&str> = mesh
                    .physical_groups()
                    .iter()
                    .filter_map(|g| g.name.as_deref())
                    .collect();
                let kind = ErrorKind::UnknownReference {
                    field: "group",
                    name: name.get_ref().clone(),
                    available: format!("groups in {groups_of}: {}", names.join(", ")),
                };
                c.error(&name.span(), kind)
            })
    };
    // Applied in this order, so a node on both a pinned and a clamped group ends up clamped.
    let mut fixities = Vec::new();
    for name in &r.pin {
        fixities.extend(group(name)?.into_iter().map(|n| (n, Fixity::Pinned)));
    }
    for name in &r.clamp {
        let nodes = group(name)?;
        let normal_axis = face_axis(&mesh, &nodes).ok_or_else(|| {
            let reason = format!("group \"{}\" is not a plane normal to x, y or z", name.get_ref());
            c.invalid(&name.span(), "clamp", reason)
        })?;
        fixities.extend(
            nodes
                .into_iter()
                .map(|n| (n, Fixity::ClampedFace { normal_axis })),
        );
    }
    let mut attach = None;
    if let Some(a) = &r.attach {
        let a = a.get_ref();
        let body = find_body("body", &a.body)?;
        let nodes = group(&a.group)?;
        // A planar face keeps its normal gradient free (see Fixity::AttachedFace); else all held.
        let fixity = face_axis(&mesh, &nodes).map_or(Fixity::Attached, |normal_axis| Fixity::AttachedFace {
            normal_axis,
        });
        fixities.extend(nodes.iter().map(|&n| (n, fixity)));
        attach = Some((body, nodes));
    }
    let mut loads = Vec::new();
    if let Some(l) = &r.load {
        let l = l.get_ref();
        let total =
            convert::vector(*l.force.get_ref()).map_err(|e| c.invalid(&l.force.span(), "force", e))?;
        let nodes = group(&l.group)?;
        let share = total * (1.0 / nodes.len().max(1) as f64);
        loads.extend(nodes.into_iter().map(|n| (n, share)));
    }
    let velocity = c.vector_or("velocity", &r.velocity, Vec3::ZERO)?;
    if let (Some(v), false) = (&r.velocity, fixities.is_empty()) {
        let reason = "an initial velocity needs a free body (no clamp, pin or attach)".into();
        return Err(c.invalid(&v.span(), "velocity", reason));
    }
    let contact = match &r.contact {
        Some(k) => {
            let k = k.get_ref();
            let proximity = match k.proximity.as_ref().map(|p| (p, p.get_ref().as_str())) {
                None | Some((_, "node_to_surface")) => Proximity::NodeToSurface,
                Some((_, "surface_to_surface")) => Proximity::SurfaceToSurface,
                Some((p, other)) => {
                    let reason = format!("\"{other}\" is not one of node_to_surface, surface_to_surface");
                    return Err(c.invalid(&p.span(), "proximity", reason));
                }
            };
            Some(FlexContactSpec {
                node_radius: c.number("node_radius", &k.node_radius, Rule::Positive)?,
                max_depth: c.number("max_depth", &k.max_depth, Rule::Positive)?,
                proximity,
            })
        }
        None => None,
    };
    Ok(FlexibleSpec {
        name: r.name.get_ref().clone(),
        line: c.source.line_of(&r.name.span()),
        mesh_path,
        mesh,
        material,
        fixities,
        loads,
        attach,
        velocity,
        contact,
    })
}

/// Names of the face groups of a box mesh, in the order x = min, x = max, y = min, ...
const BOX_FACES: [&str; 6] = ["xmin", "xmax", "ymin", "ymax", "zmin", "zmax"];

/// The kernel's box mesh (6 tets per cell) as a mesh with the face groups [`BOX_FACES`].
fn box_mesh(c: &Checker, b: &Spanned<RawBox>) -> Result<Mesh, SceneError> {
    let r = b.get_ref();
    let origin =
        convert::vector(*r.origin.get_ref()).map_err(|e| c.invalid(&r.origin.span(), "origin", e))?;
    let size = *r.size.get_ref();
    if size.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
        return Err(c.invalid(&r.size.span(), "size", format!("{size:?}: each must be > 0")));
    }
    let divisions = *r.divisions.get_ref();
    if divisions.iter().any(|&d| d < 1) {
        let reason = format!("{divisions:?}: each must be at least 1");
        return Err(c.invalid(&r.divisions.span(), "divisions", reason));
    }
    // Checked against memory before the mesh is made, so a typo cannot ask for billions of tets.
    let tets = 6.0 * divisions.iter().map(|&d| d as f64).product::<f64>();
    let what = format!("{divisions:?} ({tets:.3e} tets)");
    check_memory(&what, tets * BYTES_PER_TET).map_err(|e| c.invalid(&r.divisions.span(), "divisions", e))?;
    let mut grid = BoxGrid::default();
    add_box_mesh(
        &mut grid,
        origin,
        Vec3::from_array(size),
        divisions.map(|d| d as usize),
    )
    .map_err(|e| c.invalid(&b.span(), "box", convert::reason(e)))?;
    let corner = origin.to_array();
    let physical_groups = (0..6)
        .map(|face| {
            let (axis, at) = (face / 2, corner[face / 2] + size[face / 2] * (face % 2) as f64);
            let tolerance = PLANE_TOLERANCE * size[axis];
            PhysicalGroup {
                dim: 2,
                tag: face as i32 + 1,
                name: Some(BOX_FACES[face].to_string()),
                tets: Vec::new(),
                nodes: (0..grid.nodes.len())
                    .filter(|&n| (grid.nodes[n][axis] - at).abs() <= tolerance)
                    .collect(),
            }
        })
        .collect();
    Ok(Mesh {
        node_tags: (1..=grid.nodes.len() as u64).collect(),
        node_index: (1..=grid.nodes.len() as u64).zip(0..).collect(),
        tets: grid
            .tets
            .iter()
            .zip(1..)
            .map(|(&nodes, element_tag)| Tet {
                nodes,
                element_tag,
                entity_tag: 1,
                physical_tags: Vec::new(),
            })
            .collect(),
        nodes: grid.nodes,
        physical_groups,
        // Not read from a file; the report's format is nominal.
        report: MeshReport {
            format: MshFormat {
                version: MshVersion::V4_1,
                binary: false,
            },
            ignored_elements: Vec::new(),
            inverted_tets: Vec::new(),
            reoriented_tets: Vec::new(),
            merged_duplicate_tets: 0,
        },
    })
}

/// Collects the nodes and tets of a generated mesh.
#[derive(Default)]
struct BoxGrid {
    nodes: Vec<[f64; 3]>,
    tets: Vec<[usize; 4]>,
}

impl MeshBuilder<f64> for BoxGrid {
    fn add_node(&mut self, position: Vec3<f64>) -> Result<usize, BuildError> {
        self.nodes.push(position.to_array());
        Ok(self.nodes.len() - 1)
    }
    fn add_element(&mut self, nodes: [usize; 4]) -> Result<usize, BuildError> {
        self.tets.push(nodes);
        Ok(self.tets.len() - 1)
    }
}

/// The material, checked with the kernel's own rules.
fn material(c: &Checker, m: &Spanned<RawMaterial>) -> Result<Material<f64>, SceneError> {
    let r = m.get_ref();
    let law = match r.law.get_ref().as_str() {
        "svk" => MaterialLaw::StVenantKirchhoff,
        "neo_hookean" => MaterialLaw::NeoHookean,
        other => {
            let reason = format!("unknown material law \"{other}\" (svk or neo_hookean)");
            return Err(c.invalid(&r.law.span(), "law", reason));
        }
    };
    let youngs = c.number("E", &r.youngs, Rule::Positive)?;
    let nu = c.number("nu", &r.nu, Rule::Finite)?;
    if !(nu > -1.0 && nu < 0.5) {
        return Err(c.invalid(&r.nu.span(), "nu", format!("{nu} must lie in (-1, 0.5)")));
    }
    let rho = c.number("rho", &r.rho, Rule::Positive)?;
    let reason = |e: ElementError| match e {
        ElementError::InvalidMaterial { reason } => reason.to_string(),
        other => format!("{other:?}"),
    };
    Material::new(law, youngs, nu, rho)
        .and_then(|m| m.with_rayleigh(r.rayleigh_alpha, r.rayleigh_beta))
        .map_err(|e| c.invalid(&m.span(), "material", reason(e)))
}

/// The axis (0, 1, 2) normal to the plane holding all `nodes`, if they lie on one such plane.
fn face_axis(mesh: &Mesh, nodes: &[usize]) -> Option<usize> {
    let points: Vec<[f64; 3]> = nodes.iter().map(|&n| mesh.nodes()[n]).collect();
    let spread = |a: usize| {
        let (lo, hi) = points
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p[a]), hi.max(p[a])));
        hi - lo
    };
    let spreads = [0, 1, 2].map(spread);
    let size = spreads
        .iter()
        .fold(0.0f64, |m, s| m.max(*s))
        .max(f64::MIN_POSITIVE);
    let flat: Vec<usize> = (0..3).filter(|&a| spreads[a] <= PLANE_TOLERANCE * size).collect();
    match (points.len() >= 3, flat.as_slice()) {
        (true, [axis]) => Some(*axis),
        _ => None,
    }
}
