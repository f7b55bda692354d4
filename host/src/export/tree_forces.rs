//! The force elements of an exported tree (`tree::Forces`: spring-dampers, point forces and
//! torques on the links, as [`crate::compile::tree_parts`] puts them there): the generated
//! `forces()` makes them, and a firmware steps with them as external forces
//! (`Dynamics::step_with`), as `ferrodyn run` does.

use super::rust::{lit, vec3};
use super::tree_loops::body_ref;
use crate::scene::{ErrorKind, Scene, SceneError};
use crate::storage::TreeForces;
use ferrodyn_kernel::rigid::{Axes, Force};
use ferrodyn_kernel::TimeFunction;
use std::fmt::Write;

/// The scene's first force element whose time function the export does not write (cubic and
/// piecewise tables, integrals), as an error naming it.
pub(super) fn unsupported(scene: &Scene) -> Result<(), SceneError> {
    for force in &scene.forces {
        let function = match &force.value {
            Force::Point { function, .. } | Force::Torque { function, .. } => function,
            _ => continue,
        };
        if function_expr(function).is_none() {
            let kind = ErrorKind::Invalid {
                field: "function",
                reason: "export: a force's cubic, piecewise or integral time function does not export to Rust yet (constant, ramp, sine and table do)".into(),
            };
            return Err(scene.source.error(Some(force.line), Some(force.item()), kind));
        }
    }
    Ok(())
}

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

/// The other import lines the force lines use (none without force elements).
pub(super) fn imports(forces: &TreeForces) -> &'static str {
    let timed = forces
        .elements()
        .iter()
        .any(|f| matches!(f, Force::Point { .. } | Force::Torque { .. }));
    match (forces.elements().is_empty(), timed) {
        (true, _) => "",
        (false, false) => "\nuse ferrodyn_kernel::tree::Forces;",
        (false, true) => "\nuse ferrodyn_kernel::tree::Forces;\nuse ferrodyn_kernel::TimeFunction;",
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
    let function = |f: &TimeFunction<f64>| function_expr(f).unwrap_or_default();
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
        Force::RotationalSpringDamper { .. } | Force::JointLimit { .. } => String::new(),
    }
}

/// A `TimeFunction<Scalar>` expression, `None` for the forms not written yet.
fn function_expr(function: &TimeFunction<f64>) -> Option<String> {
    Some(match function {
        TimeFunction::Constant(c) => format!("TimeFunction::Constant(s({}))", lit(*c)),
        TimeFunction::Ramp {
            start,
            initial,
            slope,
        } => format!(
            "TimeFunction::Ramp {{ start: s({}), initial: s({}), slope: s({}) }}",
            lit(*start),
            lit(*initial),
            lit(*slope)
        ),
        TimeFunction::Sine {
            offset,
            amplitude,
            omega,
            phase,
        } => format!(
            "TimeFunction::Sine {{ offset: s({}), amplitude: s({}), omega: s({}), phase: s({}) }}",
            lit(*offset),
            lit(*amplitude),
            lit(*omega),
            lit(*phase)
        ),
        TimeFunction::Table { points, len } => {
            let points: Vec<String> = (points.iter().take(*len))
                .map(|(t, f)| format!("(s({}), s({}))", lit(*t), lit(*f)))
                .collect();
            format!("TimeFunction::table(&[{}])?", points.join(", "))
        }
        TimeFunction::Cubic(_) | TimeFunction::Piecewise(_) | TimeFunction::Integral { .. } => return None,
    })
}
