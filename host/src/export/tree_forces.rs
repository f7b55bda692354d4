//! The force elements of an exported tree (`tree::Forces`: spring-dampers, point forces and
//! torques on the links, as [`crate::compile::tree_parts`] puts them there): the generated
//! `forces()` makes them, and a firmware steps with them as external forces
//! (`Dynamics::step_with`), as `ferrodyn run` does.

use super::rust::{lit, vec3};
use super::tree_loops::body_ref;
use crate::storage::TreeForces;
use ferrodyn_kernel::rigid::{Axes, Force};
use std::fmt::Write;

/// The `ferrodyn_kernel::rigid` names the force lines use (none without force elements).
pub(super) fn rigid_names(forces: &TreeForces) -> Vec<&'static str> {
    let elements = forces.elements();
    let mut names = Vec::new();
    let has = |f: fn(&Force<f64>) -> bool| elements.iter().any(f);
    if has(|f| matches!(f, Force::Point { .. } | Force::Torque { .. })) {
        names.push("Axes");
    }
    if has(|f| matches!(f, Force::SpringDamper { .. })) {
        names.push("BodyRef");
    }
    if !elements.is_empty() {
        names.push("Force");
    }
    names
}

/// The other import lines the force lines use (none without force elements), and whether
/// they write time functions (`export::time_function`'s import).
pub(super) fn imports(forces: &TreeForces) -> (&'static str, bool) {
    let timed = forces
        .elements()
        .iter()
        .any(|f| matches!(f, Force::Point { .. } | Force::Torque { .. }));
    match forces.elements().is_empty() {
        true => ("", false),
        false => ("\nuse ferrodyn_kernel::tree::Forces;", timed),
    }
}

/// The start of the generated `forces()` (what a firmware crate looks for to step with them).
pub(super) const FORCES_FN: &str =
    "pub fn forces(model: &Model<Scalar, Capacities>) -> Result<Forces<Scalar, Capacities>, BuildError> {";

/// Writes `SceneForces` and `forces()` (nothing without force elements).
pub(super) fn write(out: &mut String, forces: &TreeForces) {
    if forces.elements().is_empty() {
        return;
    }
    out.push_str(
        "
/// The force elements of this export (external forces on the links).
#[allow(dead_code)]
pub type SceneForces = Forces<Scalar, Capacities>;

/// The scene's force elements on the links of `model`, in scene order, as `ferrodyn run` adds
/// them. Step with them as external forces: `model.step_with(data, integrator, dt, &mut forces)`.
",
    );
    out.push_str(FORCES_FN);
    out.push_str("\n    let mut forces = Forces::new();\n");
    for force in forces.elements() {
        let _ = writeln!(out, "    forces.add(model, {})?;", force_expr(force));
    }
    out.push_str("    Ok(forces)\n}\n");
}

/// A `Force<Scalar>` expression (the elements a tree carries; its joints' rotational springs
/// and limits are the links' own).
fn force_expr(force: &Force<f64>) -> String {
    let axes = |a: Axes| format!("Axes::{a:?}");
    let function = super::time_function::function_expr;
    match force {
        Force::Point {
            body,
            point,
            direction,
            axes: a,
            function: f,
        } => format!(
            "Force::Point {{ body: {body}, point: {}, direction: {}, axes: {}, function: {} }}",
            vec3(*point),
            vec3(*direction),
            axes(*a),
            function(f)
        ),
        Force::Torque {
            body,
            direction,
            axes: a,
            function: f,
        } => format!(
            "Force::Torque {{ body: {body}, direction: {}, axes: {}, function: {} }}",
            vec3(*direction),
            axes(*a),
            function(f)
        ),
        Force::SpringDamper {
            body_i,
            point_i,
            body_j,
            point_j,
            stiffness,
            damping,
            rest_length,
        } => format!(
            "Force::SpringDamper {{ body_i: {}, point_i: {}, body_j: {}, point_j: {}, stiffness: s({}), damping: s({}), rest_length: s({}) }}",
            body_ref(*body_i),
            vec3(*point_i),
            body_ref(*body_j),
            vec3(*point_j),
            lit(*stiffness),
            lit(*damping),
            lit(*rest_length)
        ),
        // `tree::Forces::add` refuses these: the link's spring, damping and limit carry them.
        Force::RotationalSpringDamper { .. }
        | Force::TranslationalSpringDamper { .. }
        | Force::JointLimit { .. } => String::new(),
    }
}
