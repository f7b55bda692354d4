//! Flexible bodies: the `[[flexible]]` table checked against its mesh (physical groups by
//! name, face detection for clamps), then compiled into a kernel `FlexModel` and attachments.

use std::path::Path;

use ferrodyn_kernel::ancf::{ElementError, Material, MaterialLaw};
use ferrodyn_kernel::coupled::Attachment;
use ferrodyn_kernel::flex::{Fixity, FlexModel};
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::{BuildError, Capacity, Item, Model};
use toml::Spanned;

use super::convert::{self, Rule};
use super::error::{ErrorKind, ItemName, SceneError};
use super::format::{RawFlexible, RawMaterial};
use super::validate::Checker;
use super::{FlexibleSpec, Scene};
use crate::gmsh::{read_msh, Mesh};

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
    let mesh_path = dir.join(r.mesh.get_ref());
    let mut mesh = read_msh(&mesh_path).map_err(|e| c.error(&r.mesh.span(), ErrorKind::Mesh(e)))?;
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
                    available: format!("groups in {}: {}", r.mesh.get_ref(), names.join(", ")),
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
    Ok(FlexibleSpec {
        name: r.name.get_ref().clone(),
        line: c.source.line_of(&r.name.span()),
        mesh_path,
        mesh,
        material,
        fixities,
        loads,
        attach,
    })
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

impl Scene {
    /// The flexible body `index` as a kernel model (node k is mesh node k).
    pub fn build_flexible<const N: usize, const E: usize, const S: usize>(
        &self,
        index: usize,
    ) -> Result<FlexModel<f64, N, E, S>, SceneError> {
        let spec = self.flexible(index)?;
        let fail = |e: BuildError| self.flex_error(spec, e);
        let (nodes, tets) = (spec.mesh.nodes(), spec.mesh.tets());
        for (capacity, needed, available) in [
            (Capacity::Nodes, nodes.len(), N),
            (Capacity::Elements, tets.len(), E),
        ] {
            if needed > available {
                return Err(fail(BuildError::CapacityExceeded {
                    capacity,
                    needed,
                    available,
                }));
            }
        }
        let mut b = FlexModel::<f64, N, E, S>::builder(spec.material, self.simulation.gravity);
        for p in nodes {
            b.add_node(Vec3::from_array(*p)).map_err(fail)?;
        }
        for t in tets {
            b.add_element(t.nodes).map_err(fail)?;
        }
        for &(node, fixity) in &spec.fixities {
            b.fix(node, fixity).map_err(fail)?;
        }
        for &(node, force) in &spec.loads {
            b.add_nodal_force(node, force).map_err(fail)?;
        }
        b.build().map_err(fail)
    }

    /// Attachments of flexible body `index` to its rigid body (empty when it has no `attach`),
    /// for models built from this scene.
    pub fn attachments<
        const B: usize,
        const J: usize,
        const F: usize,
        const C: usize,
        const S: usize,
        const N: usize,
        const E: usize,
        const SF: usize,
    >(
        &self,
        index: usize,
        rigid: &Model<f64, B, J, F, C, S>,
        flex: &FlexModel<f64, N, E, SF>,
    ) -> Result<Vec<Attachment<f64>>, SceneError> {
        let spec = self.flexible(index)?;
        let Some((body, nodes)) = &spec.attach else {
            return Ok(Vec::new());
        };
        nodes
            .iter()
            .map(|&n| Attachment::new(rigid, flex, n, *body).map_err(|e| self.flex_error(spec, e)))
            .collect()
    }

    fn flexible(&self, index: usize) -> Result<&FlexibleSpec, SceneError> {
        self.flexibles.get(index).ok_or_else(|| {
            let reason = format!(
                "no flexible body {index} (the scene has {})",
                self.flexibles.len()
            );
            self.source.error(
                None,
                None,
                ErrorKind::Invalid {
                    field: "flexible",
                    reason,
                },
            )
        })
    }

    /// A kernel error on a flexible body, naming the body and the mesh node or element tag.
    fn flex_error(&self, spec: &FlexibleSpec, e: BuildError) -> SceneError {
        let item = Some(ItemName::new("flexible", &spec.name));
        let kind = match e {
            BuildError::CapacityExceeded {
                capacity,
                needed,
                available,
            } => ErrorKind::Capacity {
                capacity,
                needed,
                available,
            },
            BuildError::InvalidParameter {
                item: Item::Node(n), ..
            }
            | BuildError::NonFinite { item: Item::Node(n) } => {
                let tag = spec.mesh.node_tags().get(n).copied().unwrap_or(0);
                let reason = format!("mesh node {tag}: {}", convert::reason(e));
                ErrorKind::Invalid {
                    field: "mesh",
                    reason,
                }
            }
            BuildError::InvalidParameter {
                item: Item::Element(t),
                ..
            } => {
                let tag = spec.mesh.tets().get(t).map_or(0, |t| t.element_tag);
                let reason = format!("mesh element {tag}: {}", convert::reason(e));
                ErrorKind::Invalid {
                    field: "mesh",
                    reason,
                }
            }
            other => ErrorKind::Kernel(other),
        };
        self.source.error(Some(spec.line), item, kind)
    }
}
