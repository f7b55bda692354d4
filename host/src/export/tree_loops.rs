//! The loops of an exported tree: the joints closing them (`Builder::close_loop`, their frames
//! in link coordinates, as [`crate::compile::tree_parts`] makes them), the projection settings
//! where the scene changes them, and the capacities a tree with loop rows and force elements
//! needs (`Fixed<links, loop joints, forces, rows, dense workspace>`).

use super::rust::{lit, mat3, vec3};
use crate::compile::SceneTree;
use crate::storage::TreeModel;
use ferrodyn_kernel::rigid::{BodyRef, Frame, Joint, JointKind, Stabilization};
use std::fmt::Write;

/// The `ferrodyn_kernel::rigid` names the loop lines use (none without loops).
pub(super) fn rigid_names(tree: &SceneTree) -> Vec<&'static str> {
    let mut names = match tree.loops.is_empty() {
        true => Vec::new(),
        false => vec!["BodyRef", "Frame", "Joint", "JointKind"],
    };
    if writes_stabilization(tree) {
        names.push("Stabilization");
    }
    names
}

/// Whether the tree has constraint rows (loops, drives, couplings) and projection settings
/// other than the default.
fn writes_stabilization(tree: &SceneTree) -> bool {
    let rows = !(tree.loops.is_empty() && tree.drives.is_empty() && tree.couplings.is_empty());
    rows && tree.stabilization != Stabilization::default()
}

/// Writes the `add_to` lines closing the tree's loops, after its links (nothing without loops).
pub(super) fn close_loops(out: &mut String, tree: &SceneTree) {
    for (_, joint) in &tree.loops {
        let _ = writeln!(out, "    b.close_loop({})?;", joint_expr(joint));
    }
}

/// Writes the scene's projection settings after the constraint rows (loops, drives,
/// couplings), where it has rows and changes the settings.
pub(super) fn stabilization(out: &mut String, tree: &SceneTree) {
    // The default settings depend on the scalar (the f32 projection tolerance is wider): a
    // scene that keeps them gets `Stabilization::default()` of the export's scalar.
    let st = tree.stabilization;
    if writes_stabilization(tree) {
        let _ = writeln!(
            out,
            "    b.set_stabilization(Stabilization {{ baumgarte_alpha: s({}), baumgarte_beta: s({}), project: {}, projection_tolerance: s({}), max_projection_iterations: {} }});",
            lit(st.baumgarte_alpha),
            lit(st.baumgarte_beta),
            st.project,
            lit(st.projection_tolerance),
            st.max_projection_iterations
        );
    }
}

/// A `Joint<Scalar>` expression.
fn joint_expr(joint: &Joint<f64>) -> String {
    let kind = match joint.kind {
        JointKind::Distance { length } => format!("JointKind::Distance {{ length: s({}) }}", lit(length)),
        // A drive never closes a loop (the builder refuses it; compile keeps drives Cartesian).
        kind => format!("JointKind::{kind:?}"),
    };
    format!(
        "Joint::new({kind}, {}, {}, {}, {})",
        body_ref(joint.body_i),
        frame(&joint.frame_i),
        body_ref(joint.body_j),
        frame(&joint.frame_j)
    )
}

/// A `BodyRef` expression (a link index or the ground).
pub(super) fn body_ref(body: BodyRef) -> String {
    match body {
        BodyRef::Ground => "BodyRef::Ground".into(),
        BodyRef::Body(k) => format!("BodyRef::Body({k})"),
    }
}

fn frame(frame: &Frame<f64>) -> String {
    format!(
        "Frame {{ origin: {}, axes: {} }}",
        vec3(frame.origin),
        mat3(&frame.axes)
    )
}

/// The capacities type of an exported tree with `forces` force elements, and what it counts:
/// `Fixed<slots>` for a tree without constraint rows or force elements (as it always was),
/// else `Fixed<slots, loop joints, forces, constraint rows, dense workspace>`, the rows being
/// the loop rows and one per drive and coupling (`tree::Model::constraint_rows`).
pub fn capacities(model: &TreeModel, forces: usize) -> (String, String) {
    let slots = model.slots();
    let slots_doc = format!("max(links, ⌈(positions + velocities) / 2⌉) = {slots}");
    if model.constraint_rows() == 0 && forces == 0 {
        return (format!("Fixed<{slots}>"), slots_doc);
    }
    let (joints, rows, workspace) = (
        model.loops().len(),
        model.constraint_rows(),
        model.loop_workspace(),
    );
    let coordinate_rows = model.coordinate_rows().len();
    (
        format!("Fixed<{slots}, {joints}, {forces}, {rows}, {workspace}>"),
        format!(
            "slots {slots_doc}; {joints} loop-closing joints; {forces} force elements; {rows} constraint rows ({coordinate_rows} of drives and couplings); {workspace} reals of dense loop matrices (nv(nv+1)/2 + 2·m·nv + m(m+1)/2 + m + nv)"
        ),
    )
}
