//! Contact of a scene: the rigid shapes' contact world, and the contacts of its flexible
//! bodies (with the ground planes, with the other rigid shapes and between the bodies).

use super::flexible::body_of_nodes;
use crate::contact::flex_pair::{FlexPairContact, GroupLaw};
use crate::contact::flexible::{surface_triangles, FlexGroundContact};
use crate::contact::force::{damping_factor, effective_modulus, hertz_stiffness};
use crate::contact::{ContactError, ContactWorld, FlexContacts, RigidFlexContact};
use crate::scene::{ContactSpec, ErrorKind, ItemName, Scene, SceneError};
use crate::spec::{Elastic, Geometry, Proximity};
use ferrodyn_kernel::ancf::Material;
use ferrodyn_kernel::math::Vec3;
use std::ops::Range;

/// The contact world of `spec`'s shapes for a model of `body_count` rigid bodies.
pub fn rigid_contact(spec: &ContactSpec, body_count: usize) -> Result<ContactWorld, ContactError> {
    let default = spec.default_material();
    let mut world = ContactWorld::new(spec.shapes.clone(), body_count, default)?;
    for &(a, b, m) in &spec.pairs {
        world.set_pair_material(a, b, m)?;
    }
    Ok(world)
}

/// The surface constants E, ν of an ANCF material (from its Lamé parameters).
fn surface_elastic(m: &Material<f64>) -> Elastic {
    Elastic {
        youngs_modulus: m.mu * (3.0 * m.lambda + 2.0 * m.mu) / (m.lambda + m.mu),
        poisson_ratio: m.lambda / (2.0 * (m.lambda + m.mu)),
    }
}

/// The contacts of the flexible bodies merged into one model (node `reference` positions,
/// tets `connectivity`, node ranges `bodies`, as [`flexible_model`](super::flexible::flexible_model) numbers them):
/// every body with `contact` against every ground plane, every other rigid shape (on a body
/// or the ground) and the other such bodies. `None` when no flexible body has `contact`.
pub fn flexible_contacts(
    scene: &Scene,
    reference: &[[f64; 3]],
    connectivity: &[[usize; 4]],
    bodies: &[Range<usize>],
) -> Result<Option<FlexContacts>, SceneError> {
    let (Some(spec), true) = (
        &scene.contact,
        scene.flexibles.iter().any(|f| f.contact.is_some()),
    ) else {
        return Ok(None);
    };
    let fail = |index: usize, e: ContactError| {
        let f = &scene.flexibles[index];
        let kind = ErrorKind::Invalid {
            field: "contact",
            reason: e.to_string(),
        };
        scene
            .source
            .error(Some(f.line), Some(ItemName::new("flexible", &f.name)), kind)
    };
    let body_of = body_of_nodes(bodies, reference.len());
    let surface = surface_triangles(connectivity, |n| reference[n]);
    let elastic: Vec<Elastic> = scene
        .flexibles
        .iter()
        .map(|f| surface_elastic(&f.material))
        .collect();
    let mut contacts = FlexContacts::default();
    let planes = spec.shapes.iter().filter(|s| s.geometry == Geometry::Plane);
    for plane in planes {
        let normal = plane.orientation.rotate(Vec3::new(0.0, 0.0, 1.0)).to_array();
        for (b, f) in scene.flexibles.iter().enumerate() {
            let Some(k) = f.contact else { continue };
            let own: Vec<[usize; 3]> = surface
                .iter()
                .filter(|t| body_of.get(t[0]) == Some(&b))
                .copied()
                .collect();
            let ground = FlexGroundContact::new(
                &own,
                plane.position.to_array(),
                normal,
                k.node_radius,
                elastic[b],
                plane.elastic,
                spec.flex_material(Some(b), None),
            )
            .map_err(|e| fail(b, e))?;
            contacts.ground.push(ground);
        }
    }
    // Planes are met by the node-to-plane contact above; every other shape node to shape.
    let solids: Vec<_> = spec
        .shapes
        .iter()
        .filter(|s| s.geometry != Geometry::Plane)
        .cloned()
        .collect();
    if !solids.is_empty() {
        let mut shapes = RigidFlexContact::new(solids, scene.bodies.len()).map_err(|e| fail(0, e))?;
        for (b, f) in scene.flexibles.iter().enumerate() {
            let Some(k) = f.contact else { continue };
            let own: Vec<usize> = surface
                .iter()
                .filter(|t| body_of.get(t[0]) == Some(&b))
                .flatten()
                .copied()
                .collect();
            let item = format!("flexible '{}'", f.name);
            let carrier = f.attach.as_ref().map(|(body, _)| *body);
            shapes
                .add_body(&item, &own, k.node_radius, elastic[b], carrier, |shape| {
                    spec.shape_material(b, shape.body)
                })
                .map_err(|e| fail(b, e))?;
        }
        contacts.shapes = Some(shapes);
    }
    let touching = scene.flexibles.iter().filter(|f| f.contact.is_some()).count();
    if touching > 1 {
        let law = |a: usize, b: usize| {
            let (ka, kb) = (scene.flexibles.get(a)?.contact?, scene.flexibles.get(b)?.contact?);
            let material = spec.flex_material(Some(a), Some(b));
            Some(GroupLaw {
                stiffness: hertz_stiffness(effective_modulus(&elastic[a], &elastic[b]), ka.node_radius),
                chi: damping_factor(&material),
                material,
                max_depth: kb.max_depth,
            })
        };
        let proximity = |b: usize| {
            let contact = scene.flexibles.get(b).and_then(|f| f.contact);
            contact.map_or(Proximity::NodeToSurface, |k| k.proximity)
        };
        let pair = FlexPairContact::with_groups(reference, connectivity, body_of, law)
            .and_then(|p| p.with_proximity(proximity))
            .map_err(|e| fail(0, e))?;
        contacts.pair = Some(pair);
    }
    Ok(Some(contacts))
}
