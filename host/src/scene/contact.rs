//! `[[shape]]` and `[[contact_material]]`: the contact part of a scene, checked into shapes
//! and materials ([`crate::spec`]).

use super::checker::{check_name, Checker, Names, GROUND};
use super::convert::{self, Rule};
use super::error::{ErrorKind, ItemName, SceneError};
use super::format::{RawContactMaterial, RawShape};
use super::types::ContactSpec;
use crate::obj::read_obj;
use crate::spec::{ContactMaterial, Dissipation, Elastic, Geometry, Shape};
use crate::stl::read_stl;
use ferrodyn_kernel::math::{Quat, Vec3};
use std::collections::HashMap;
use toml::Spanned;

/// A body named in `[[contact_material]]`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Contactor {
    Ground,
    Rigid(usize),
    Flexible(usize),
}

fn body_of(
    c: &Checker,
    bodies: &Names,
    field: &'static str,
    name: &Spanned<String>,
) -> Result<Option<usize>, SceneError> {
    if name.get_ref() == GROUND {
        Ok(None)
    } else {
        bodies.find(c, field, name).map(Some)
    }
}

/// "ground", a rigid body or a flexible body.
fn contactor(
    c: &Checker,
    bodies: &Names,
    flexibles: &Names,
    name: &Spanned<String>,
) -> Result<Contactor, SceneError> {
    if name.get_ref() == GROUND {
        return Ok(Contactor::Ground);
    }
    if let Ok(i) = flexibles.find(c, "bodies", name) {
        return Ok(Contactor::Flexible(i));
    }
    bodies.find(c, "bodies", name).map(Contactor::Rigid).map_err(|_| {
        let kind = ErrorKind::UnknownReference {
            field: "bodies",
            name: name.get_ref().clone(),
            available: format!("{}; {}", bodies.listing(), flexibles.listing()),
        };
        c.error(&name.span(), kind)
    })
}

/// Checks every `[[shape]]` and `[[contact_material]]`; `None` when the scene has no shapes
/// and no flexible body in contact (`flex_contact`).
pub(super) fn validate(
    c: &mut Checker,
    shapes: &[Spanned<RawShape>],
    materials: &[Spanned<RawContactMaterial>],
    bodies: &Names,
    flexibles: &Names,
    flex_contact: bool,
) -> Result<Option<ContactSpec>, SceneError> {
    let mut spec = ContactSpec::default();
    let mut names: HashMap<&str, usize> = HashMap::new();
    for s in shapes {
        let r = s.get_ref();
        c.item = Some(ItemName::new("shape", r.name.get_ref()));
        check_name(r.name.get_ref()).map_err(|reason| c.invalid(&r.name.span(), "name", reason))?;
        if let Some(&first_line) = names.get(r.name.get_ref().as_str()) {
            let what = format!("shape name \"{}\"", r.name.get_ref());
            return Err(c.error(&r.name.span(), ErrorKind::Duplicate { what, first_line }));
        }
        names.insert(r.name.get_ref(), c.source.line_of(&s.span()));
        spec.shapes.push(shape(c, s, bodies)?);
    }
    for m in materials {
        let r = m.get_ref();
        let label = r
            .bodies
            .as_ref()
            .map_or("default".to_string(), |b| b.get_ref().join("/"));
        c.item = Some(ItemName::new("contact_material", &label));
        let material = material(c, m)?;
        if let (false, Some(v)) = (material.collide, &r.collide) {
            // Keeping apart is for two rigid bodies' shapes (a parent and child overlapping at
            // their joint); every pair, or a flexible body's nodes, would only lose contact.
            let rigid = |n: &String| {
                n == GROUND
                    || bodies
                        .find(c, "bodies", &Spanned::new(v.span(), n.clone()))
                        .is_ok()
            };
            if !r.bodies.as_ref().is_some_and(|b| b.get_ref().iter().all(rigid)) {
                let reason = "only a pair of rigid bodies (or one and the ground) can be kept apart".into();
                return Err(c.invalid(&v.span(), "collide", reason));
            }
        }
        match &r.bodies {
            None => spec.default_material = Some(material),
            Some(pair) => {
                let [a, b] = pair.get_ref();
                let at = |n: &String| Spanned::new(pair.span(), n.clone());
                let (a, b) = (
                    contactor(c, bodies, flexibles, &at(a))?,
                    contactor(c, bodies, flexibles, &at(b))?,
                );
                if a == b {
                    return Err(c.invalid(&pair.span(), "bodies", "a body does not touch itself".into()));
                }
                let rigid = |x| match x {
                    Contactor::Rigid(i) => Some(Some(i)),
                    Contactor::Ground => Some(None),
                    Contactor::Flexible(_) => None,
                };
                let flexible = |x| match x {
                    Contactor::Flexible(i) => Some(Some(i)),
                    Contactor::Ground => Some(None),
                    Contactor::Rigid(_) => None,
                };
                match (a, b, rigid(a), rigid(b), flexible(a), flexible(b)) {
                    (.., Some(a), Some(b), _, _) => spec.pairs.push((a, b, material)),
                    (.., Some(a), Some(b)) => spec.flex_pairs.push((a, b, material)),
                    (Contactor::Rigid(r), Contactor::Flexible(f), ..)
                    | (Contactor::Flexible(f), Contactor::Rigid(r), ..) => {
                        spec.rigid_flex_pairs.push((r, f, material))
                    }
                    _ => {
                        let reason = "these bodies cannot be paired".into();
                        return Err(c.invalid(&pair.span(), "bodies", reason));
                    }
                }
            }
        }
    }
    if spec.shapes.is_empty() && !flex_contact {
        if let Some(m) = materials.first() {
            return Err(c.invalid(
                &m.span(),
                "contact_material",
                "no [[shape]] to apply it to".into(),
            ));
        }
        return Ok(None);
    }
    Ok(Some(spec))
}

fn shape(c: &Checker, s: &Spanned<RawShape>, bodies: &Names) -> Result<Shape, SceneError> {
    let r = s.get_ref();
    let at = s.span();
    let body = body_of(c, bodies, "body", &r.body)?;
    let positive = |field, v: &Option<_>| c.number(field, c.required(&at, field, v)?, Rule::Positive);
    let kind = r.kind.get_ref().as_str();
    let mut mesh_file = None;
    let geometry = match kind {
        "sphere" => Geometry::Sphere {
            radius: positive("radius", &r.radius)?,
        },
        "box" => {
            let h = c.required(&at, "half_extents", &r.half_extents)?;
            if h.get_ref().iter().any(|x| !(x.is_finite() && *x > 0.0)) {
                return Err(c.invalid(
                    &h.span(),
                    "half_extents",
                    format!("{:?}: each must be > 0", h.get_ref()),
                ));
            }
            Geometry::Box {
                half_extents: *h.get_ref(),
            }
        }
        "cylinder" | "cone" | "capsule" => {
            let (radius, half_height) = (
                positive("radius", &r.radius)?,
                positive("half_height", &r.half_height)?,
            );
            match kind {
                "cone" => Geometry::Cone { radius, half_height },
                "capsule" => Geometry::Capsule { radius, half_height },
                _ => Geometry::Cylinder { radius, half_height },
            }
        }
        "plane" => {
            if body.is_some() {
                return Err(c.invalid(&r.body.span(), "body", "a plane must belong to the ground".into()));
            }
            Geometry::Plane
        }
        "mesh" => {
            let file = c.required(&at, "mesh", &r.mesh)?;
            let folder = c.source.path.parent().unwrap_or(std::path::Path::new("."));
            let path = folder.join(file.get_ref());
            let is_stl = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("stl"));
            let read = if is_stl { read_stl(&path) } else { read_obj(&path) };
            let (vertices, triangles) = read.map_err(|e| c.invalid(&file.span(), "mesh", e.to_string()))?;
            mesh_file = Some(path);
            Geometry::TriMesh { vertices, triangles }
        }
        other => {
            return Err(c.invalid(
                &r.kind.span(),
                "type",
                format!("\"{other}\" is not one of sphere, box, cylinder, cone, capsule, plane, mesh"),
            ))
        }
    };
    // Keys that belong to other shape types are mistakes, not defaults.
    let stray = [
        (
            "radius",
            r.radius.as_ref().map(|v| v.span()),
            matches!(kind, "sphere" | "cylinder" | "cone" | "capsule"),
        ),
        (
            "half_height",
            r.half_height.as_ref().map(|v| v.span()),
            matches!(kind, "cylinder" | "cone" | "capsule"),
        ),
        (
            "half_extents",
            r.half_extents.as_ref().map(|v| v.span()),
            kind == "box",
        ),
        ("mesh", r.mesh.as_ref().map(|v| v.span()), kind == "mesh"),
    ];
    for (field, span, allowed) in stray {
        if let (Some(span), false) = (span, allowed) {
            return Err(c.invalid(&span, field, format!("not a key of a {kind}")));
        }
    }
    let orientation = match &r.orient {
        Some(o) => convert::orientation(o.get_ref()).map_err(|e| c.invalid(&o.span(), "orient", e))?,
        None => Quat::IDENTITY,
    };
    let elastic = Elastic {
        youngs_modulus: c.number_or("youngs_modulus", &r.youngs_modulus, Rule::Positive, 210e9)?,
        poisson_ratio: c.number_or("poisson_ratio", &r.poisson_ratio, Rule::Finite, 0.3)?,
    };
    let name = r.name.get_ref();
    elastic
        .validate(&format!("shape '{name}'"))
        .map_err(|e| c.invalid(&at, "poisson_ratio", e.to_string()))?;
    let curvature_radius = match &r.curvature_radius {
        Some(v) => Some(c.number("curvature_radius", v, Rule::Positive)?),
        None => None,
    };
    Ok(Shape {
        name: name.clone(),
        body,
        position: c.vector_or("pos", &r.pos, Vec3::ZERO)?,
        orientation,
        geometry,
        elastic,
        curvature_radius,
        mesh_file,
    })
}

fn material(c: &Checker, m: &Spanned<RawContactMaterial>) -> Result<ContactMaterial, SceneError> {
    let r = m.get_ref();
    let mut out = match r.preset.as_ref().map(|p| (p, p.get_ref().as_str())) {
        None | Some((_, "elastic")) => ContactMaterial::elastic(),
        Some((_, "plastic")) => ContactMaterial::plastic(),
        Some((p, other)) => {
            return Err(c.invalid(
                &p.span(),
                "preset",
                format!("\"{other}\" is not one of elastic, plastic"),
            ))
        }
    };
    out.restitution = c.number_or("restitution", &r.restitution, Rule::Positive, out.restitution)?;
    if out.restitution > 1.0 {
        let span = r.restitution.as_ref().map_or(m.span(), |v| v.span());
        return Err(c.invalid(
            &span,
            "restitution",
            format!("{} must lie in (0, 1]", out.restitution),
        ));
    }
    out.friction = c.number_or("friction", &r.friction, Rule::NonNegative, out.friction)?;
    out.friction_regularization = c.number_or(
        "friction_regularization",
        &r.friction_regularization,
        Rule::Positive,
        out.friction_regularization,
    )?;
    out.min_impact_speed = c.number_or(
        "min_impact_speed",
        &r.min_impact_speed,
        Rule::Positive,
        out.min_impact_speed,
    )?;
    out.dissipation = match r.dissipation.as_ref().map(|d| (d, d.get_ref().as_str())) {
        None => out.dissipation,
        Some((_, "flores")) => Dissipation::Flores,
        Some((_, "flores-calibrated")) => Dissipation::FloresCalibrated,
        Some((d, other)) => {
            return Err(c.invalid(
                &d.span(),
                "dissipation",
                format!("\"{other}\" is not one of flores, flores-calibrated"),
            ))
        }
    };
    out.collide = r.collide.as_ref().is_none_or(|v| *v.get_ref());
    Ok(out)
}
