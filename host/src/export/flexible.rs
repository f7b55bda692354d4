//! The Rust module of a scene of flexible bodies alone: the kernel's flexible model built from
//! the same nodes, elements, materials, fixities and loads, in the same order, that
//! [`crate::compile::flexible_model`] hands the builder, at rest in its reference state, with
//! its node sensors as outputs.

use super::rust::{header, lit, refused, vec3, Kind, Output, Ports, Precision, MODEL_FN};
use crate::compile::flexible_model;
use crate::scene::{Scene, SceneError};
use crate::sensor::SensorKind;
use crate::storage::Growable;
use ferrodyn_kernel::ancf::Material;
use ferrodyn_kernel::math::Vec3;
use std::fmt::Write;

/// The module of `scene`, stepped by the kernel integrator `method`.
pub(super) fn module(scene: &Scene, precision: Precision, method: &str) -> Result<String, SceneError> {
    if let Some(body) = scene.bodies.first() {
        return Err(refused(
            scene,
            format!(
                "scenes of rigid and flexible bodies together do not export to Rust yet (rigid body \"{}\"); flexible bodies alone do",
                body.name
            ),
        ));
    }
    for spec in &scene.flexibles {
        let why = if spec.contact.is_some() || scene.contact.is_some() {
            Some("contact")
        } else if spec.velocity != Vec3::ZERO {
            Some("an initial velocity (a firmware model starts at rest in its reference state)")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(refused(
                scene,
                format!(
                    "flexible body \"{}\" has {why}, which does not export to Rust yet",
                    spec.name
                ),
            ));
        }
    }
    let (model, _) = flexible_model::<Growable>(scene, &scene.flexibles)?;
    let (nodes, elements, profile) = (model.node_count(), model.element_count(), model.profile_entries());
    let kind = Kind {
        summary: format!(
            "{} flexible {}: {nodes} nodes, {elements} tetrahedra, {} DOF",
            scene.flexibles.len(),
            if scene.flexibles.len() == 1 { "body" } else { "bodies" },
            model.dof_count()
        ),
        imports: "use ferrodyn_kernel::ancf::{Material, MaterialLaw};\nuse ferrodyn_kernel::flex::{Builder, Data, Fixity, Model};",
        capacities: format!("Fixed<0, 0, 0, 0, 0, {nodes}, {elements}, {profile}>"),
        capacities_doc: format!(
            "{nodes} nodes, {elements} elements, {profile} entries of the mass matrix's profile"
        ),
    };
    let mut out = String::new();
    header(&mut out, scene, precision, method, &kind);
    model_fn(&mut out, scene);
    out.push_str(
        "
/// The data at the scene's initial state: at rest in the reference configuration.
pub fn initial_data(model: &Model<Scalar, Capacities>) -> Result<Data<Scalar, Capacities>, BuildError> {
    Ok(Data::new(model))
}

/// Makes the data of `model` in `slot` (where it is to stay: a `static` on a microcontroller)
/// at the scene's initial state, at rest, and borrows it.
#[allow(dead_code)]
pub fn data_in<'s>(slot: &'s mut Option<Data<Scalar, Capacities>>, model: &Model<Scalar, Capacities>) -> Result<&'s mut Data<Scalar, Capacities>, BuildError> {
    Ok(Data::new_in(slot, model))
}
",
    );
    ports(scene).write(&mut out);
    Ok(out)
}

/// A `Material<Scalar>` expression.
fn material(m: &Material<f64>) -> String {
    format!(
        "material(MaterialLaw::{:?}, [{}, {}, {}, {}, {}])",
        m.law,
        lit(m.lambda),
        lit(m.mu),
        lit(m.density),
        lit(m.rayleigh_mass),
        lit(m.rayleigh_stiffness)
    )
}

fn model_fn(out: &mut String, scene: &Scene) {
    let first = scene.flexibles.first().map(|f| f.material);
    let _ = write!(
        out,
        "
/// A material from its Lamé parameters, density and Rayleigh coefficients, as the scene's.
fn material(law: MaterialLaw, [lambda, mu, density, alpha, beta]: [f64; 5]) -> Material<Scalar> {{
    Material {{
        law,
        lambda: s(lambda),
        mu: s(mu),
        density: s(density),
        rayleigh_mass: s(alpha),
        rayleigh_stiffness: s(beta),
    }}
}}

/// An empty builder with the scene's first material and gravity. Make it where the model is
/// to stay (a `static` on a microcontroller), then [`add_to`] it and `build_in_place`: a large
/// model never passes through the stack.
pub fn new_builder() -> Builder<Scalar, Capacities> {{
    Model::builder({}, {})
}}

{model_fn}
/// Adds the scene's bodies (materials, nodes, elements, fixities, loads) to `b`.
pub fn add_to(b: &mut Builder<Scalar, Capacities>) -> Result<(), BuildError> {{
",
        first.map_or_else(String::new, |m| material(&m)),
        vec3(scene.simulation.gravity),
        model_fn = MODEL_FN,
    );
    let mut offset = 0;
    for spec in &scene.flexibles {
        let _ = writeln!(out, "    // flexible body \"{}\"", spec.name);
        let _ = writeln!(out, "    b.set_material({});", material(&spec.material));
        for p in spec.mesh.nodes() {
            let _ = writeln!(out, "    b.add_node({})?;", vec3(Vec3::from_array(*p)));
        }
        for t in spec.mesh.tets() {
            let [a, b, c, d] = t.nodes.map(|n| n + offset);
            let _ = writeln!(out, "    b.add_element([{a}, {b}, {c}, {d}])?;");
        }
        for &(node, fixity) in &spec.fixities {
            let _ = writeln!(out, "    b.fix({}, Fixity::{fixity:?})?;", node + offset);
        }
        for &(node, force) in &spec.loads {
            let _ = writeln!(out, "    b.add_nodal_force({}, {})?;", node + offset, vec3(force));
        }
        offset += spec.mesh.nodes().len();
    }
    out.push_str("    Ok(())\n}\n");
}

/// Node sensors: the displacement from the node's reference position (global axes).
fn ports(scene: &Scene) -> Ports {
    let mut outputs = Vec::new();
    for sensor in &scene.sensors {
        if let SensorKind::FlexibleNode { node, rest, .. } = sensor.kind {
            for (k, axis) in ["ux", "uy", "uz"].iter().enumerate() {
                outputs.push(Output {
                    name: format!("{}_{axis}", sensor.name),
                    unit: "m",
                    scale: sensor.scale,
                    value: format!(
                        "data.position({node}).to_array()[{k}] - s({})",
                        lit(rest.to_array()[k])
                    ),
                });
            }
        }
    }
    Ports {
        inputs: Vec::new(),
        outputs,
        prelude: Vec::new(),
    }
}
