//! The contact of an exported tree: its spheres, boxes and capsules on links against ground
//! planes as the kernel's [`GroundContacts`](ferrodyn_kernel::contact::GroundContacts), the
//! pairs, laws and order of the contact world `ferrodyn run` steps (`ContactWorld::ground_pairs`), so the
//! f64 module steps its bits (a capsule as its two end spheres). Pairs the kernel does not have
//! (meshes, cylinders, cones, shapes on two bodies, a plane on a body) are refused, naming the
//! shapes.

use super::rust::{lit, mat3, vec3};
use crate::compile::{tree_world, TreeParts};
use crate::contact::ground::{capsule_ends, GroundPair, GroundShape};
use crate::scene::{ErrorKind, ItemName, Scene, SceneError};
use crate::spec::Geometry;
use std::fmt::Write;

/// The scene's kernel contact pairs (`None` without contact shapes), or why they do not
/// export.
pub(super) fn pairs(scene: &Scene, parts: &TreeParts) -> Result<Option<Vec<GroundPair>>, SceneError> {
    let Some(spec) = &scene.contact else {
        return Ok(None);
    };
    let links = parts.tree.links.len();
    let world = tree_world(scene, spec, &parts.tree.bodies, links)?;
    if let Some(&(a, b)) = world.parry_pairs().first() {
        let shapes = world.shapes();
        let kind = |k: usize| match shapes[k].geometry {
            Geometry::Sphere { .. } => "sphere",
            Geometry::Box { .. } => "box",
            Geometry::Cylinder { .. } => "cylinder",
            Geometry::Cone { .. } => "cone",
            Geometry::Capsule { .. } => "capsule",
            Geometry::Plane => "plane",
            Geometry::TriMesh { .. } => "mesh",
        };
        let on = |k: usize| {
            if shapes[k].body.is_some() {
                "on a link"
            } else {
                "on the ground"
            }
        };
        let reason = format!(
            "{} '{}' ({}) and {} '{}' ({}) may touch; the kernel's contact is a sphere, a box or a capsule on a link against a plane on the ground only (the pair runs on the host)",
            kind(a),
            shapes[a].name,
            on(a),
            kind(b),
            shapes[b].name,
            on(b)
        );
        let kind = ErrorKind::Invalid {
            field: "export",
            reason,
        };
        return Err(scene
            .source
            .error(None, Some(ItemName::new("shape", &shapes[a].name)), kind));
    }
    Ok(Some(world.ground_pairs().to_vec()))
}

/// How many kernel contact pairs `scene` exports to (spheres 1, boxes 8 corners, capsules 2
/// end spheres), or why its
/// contact does not export (`ferrodyn check --target` prices them).
pub fn contact_pair_count(scene: &Scene, parts: &TreeParts) -> Result<usize, SceneError> {
    let pairs = pairs(scene, parts)?.unwrap_or_default();
    Ok(pairs.iter().map(|p| p.contacts.len()).sum())
}

/// The import the contact code needs.
pub(super) const IMPORTS: &str = "\nuse ferrodyn_kernel::contact::{GroundContacts, Law, Plane};";

/// The start of the generated `contacts()` (what a firmware crate looks for to step with them).
pub(super) const CONTACTS_FN: &str =
    "pub fn contacts(model: &Model<Scalar, Capacities>) -> Result<Contacts, BuildError> {";

/// Writes `CONTACT_PAIRS`, `Contacts` and `contacts()` of `pairs`.
pub(super) fn write(out: &mut String, pairs: &[GroundPair]) {
    let count: usize = pairs.iter().map(|p| p.contacts.len()).sum();
    let _ = write!(
        out,
        "
/// Shape–ground contact pairs: one per sphere, 8 per box (its corners), 2 per capsule (its ends).
pub const CONTACT_PAIRS: usize = {count};
/// The scene's contacts: shapes on links against ground planes (external forces on the links).
pub type Contacts = GroundContacts<Scalar, CONTACT_PAIRS>;

/// The scene's contacts on the links of `model`, none touching yet: show them the initial
/// state (`model.accept(data, &mut contacts)`), then step with `model.step_with(data,
/// integrator, dt, &mut contacts)`, as `ferrodyn run` does.
{CONTACTS_FN}
    let mut c = Contacts::new();
"
    );
    for pair in pairs {
        let law = &pair.law;
        let _ = writeln!(
            out,
            "    let law = Law {{ stiffness: s({}), damping_factor: s({}), friction: s({}), friction_regularization: s({}), min_impact_speed: s({}) }};",
            lit(law.stiffness),
            lit(law.damping_factor),
            lit(law.friction),
            lit(law.friction_regularization),
            lit(law.min_impact_speed)
        );
        let plane = format!(
            "Plane {{ origin: {}, normal: {} }}",
            vec3(pair.plane.origin),
            vec3(pair.plane.normal)
        );
        let sphere = |out: &mut String, centre, radius| {
            writeln!(
                out,
                "    c.add_sphere(model, {}, {}, s({}), {plane}, law)?;",
                pair.body,
                vec3(centre),
                lit(radius)
            )
        };
        let _ = match pair.shape {
            GroundShape::Sphere { centre, radius } => sphere(out, centre, radius),
            GroundShape::Box {
                centre,
                rotation,
                half_extents,
            } => writeln!(
                out,
                "    c.add_box(model, {}, {}, &{}, {}, {plane}, law)?;",
                pair.body,
                vec3(centre),
                mat3(&rotation),
                vec3(half_extents)
            ),
            // The kernel's pairs of a capsule are its end spheres (`GroundPair::new`).
            GroundShape::Capsule {
                centre,
                half_axis,
                radius,
            } => capsule_ends(centre, half_axis)
                .into_iter()
                .try_for_each(|end| sphere(out, end, radius)),
        };
    }
    out.push_str("    Ok(c)\n}\n");
}
