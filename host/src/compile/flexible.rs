//! The flexible part of a scene: its bodies merged into one kernel flexible model (each body's
//! elements of its own material), their
//! initial rates, and the coupled model of a body attached to rigid bodies. Kernel build errors
//! are mapped to the flexible body, mesh node or element tag that caused them.

use super::rigid::rigid_model;
use crate::scene::{build_error_reason, ErrorKind, FlexibleSpec, ItemName, Scene, SceneError};
use ferrodyn_kernel::ancf::{TetElement, NODE_COORDS};
use ferrodyn_kernel::math::{Mat3, Vec3};
use ferrodyn_kernel::{coupled, flex, BuildError, Capacity, Dynamics, Item, List, Storage};
use std::ops::Range;

/// Flexible bodies merged into one kernel model, and the node range of each.
pub type Merged<St> = (flex::Model<f64, St>, Vec<Range<usize>>);

/// The flexible bodies `specs` of `scene` merged into one kernel model in order, with the node
/// range of each, every body's elements of its own material.
pub fn flexible_model<St: Storage>(scene: &Scene, specs: &[FlexibleSpec]) -> Result<Merged<St>, SceneError> {
    let Some(first) = specs.first() else {
        let kind = ErrorKind::Invalid {
            field: "flexible",
            reason: "no flexible body".into(),
        };
        return Err(scene.source.error(None, None, kind));
    };
    let node_ranges = node_ranges(specs);
    let element_starts: Vec<usize> = element_ranges(specs).iter().map(|r| r.start).collect();
    // A kernel error names a node or element of the merged model: find its body.
    let fail = |e: BuildError| {
        let body = match e {
            BuildError::InvalidParameter {
                item: Item::Element(t),
                ..
            } => element_starts.iter().rposition(|&s| s <= t),
            BuildError::InvalidParameter {
                item: Item::Node(n), ..
            }
            | BuildError::NonFinite { item: Item::Node(n) } => {
                node_ranges.iter().position(|r| r.contains(&n))
            }
            _ => None,
        }
        .unwrap_or(0);
        flex_error(
            scene,
            &specs[body],
            e,
            node_ranges[body].start,
            element_starts[body],
        )
    };
    // Whole meshes that do not fit are refused before building, naming what they need.
    let nodes = node_ranges.last().map_or(0, |r| r.end);
    let elements = specs.iter().map(|s| s.mesh.tets().len()).sum();
    let capacities = [
        (Capacity::Nodes, nodes, St::Nodes::<Vec3<f64>>::capacity()),
        (
            Capacity::Elements,
            elements,
            St::Elements::<TetElement<f64>>::capacity(),
        ),
    ];
    for (capacity, needed, available) in capacities {
        if needed > available {
            return Err(fail(BuildError::CapacityExceeded {
                capacity,
                needed,
                available,
            }));
        }
    }
    let mut b = flex::Model::<f64, St>::builder(first.material, scene.simulation.gravity);
    for (spec, range) in specs.iter().zip(&node_ranges) {
        b.set_material(spec.material);
        add_body(&mut b, spec, range.start).map_err(fail)?;
    }
    Ok((b.build().map_err(fail)?, node_ranges))
}

/// The node range of each of `specs` in the model that merges them in order.
pub fn node_ranges(specs: &[FlexibleSpec]) -> Vec<Range<usize>> {
    consecutive(specs.iter().map(|spec| spec.mesh.nodes().len()))
}

/// The element range of each of `specs` in the model that merges them in order.
pub fn element_ranges(specs: &[FlexibleSpec]) -> Vec<Range<usize>> {
    consecutive(specs.iter().map(|spec| spec.mesh.tets().len()))
}

/// Ranges of the given lengths laid end to end from 0.
fn consecutive(lengths: impl Iterator<Item = usize>) -> Vec<Range<usize>> {
    let mut start = 0;
    lengths
        .map(|n| {
            let range = start..start + n;
            start = range.end;
            range
        })
        .collect()
}

/// Which body each of `nodes` nodes belongs to, given the bodies' node `ranges`.
pub fn body_of_nodes<'a>(ranges: impl IntoIterator<Item = &'a Range<usize>>, nodes: usize) -> Vec<usize> {
    let mut body_of = vec![0; nodes];
    for (b, range) in ranges.into_iter().enumerate() {
        if let Some(slots) = body_of.get_mut(range.clone()) {
            slots.fill(b);
        }
    }
    body_of
}

/// Writes the initial velocity of every flexible body into `rates` (12 per node, the node's
/// position rate first) for nodes numbered as [`flexible_model`] numbers them.
pub fn initial_rates(scene: &Scene, ranges: &[Range<usize>], rates: &mut [f64]) {
    for (spec, nodes) in scene.flexibles.iter().zip(ranges) {
        for node in nodes.clone() {
            if let Some(rate) = rates.get_mut(NODE_COORDS * node..NODE_COORDS * node + 3) {
                rate.copy_from_slice(&spec.velocity.to_array());
            }
        }
    }
}

/// The scene's rigid bodies and its one flexible body, joined at the nodes it attaches.
pub fn coupled_model<St: Storage>(scene: &Scene) -> Result<coupled::Model<f64, St>, SceneError> {
    let [spec] = scene.flexibles.as_slice() else {
        let reason = format!(
            "rigid bodies run with one flexible body (this scene has {})",
            scene.flexibles.len()
        );
        let kind = ErrorKind::Invalid {
            field: "flexible",
            reason,
        };
        return Err(scene.source.error(None, None, kind));
    };
    let rigid = rigid_model::<St>(scene)?;
    let (flex, _) = flexible_model::<St>(scene, &scene.flexibles)?;
    let mut b = coupled::Model::builder(rigid, flex);
    let fail = |e| flex_error(scene, spec, e, 0, 0);
    if let Some((body, nodes)) = &spec.attach {
        for &node in nodes {
            b.attach(node, *body).map_err(fail)?;
        }
    }
    b.build().map_err(fail)
}

/// The coupled state at t = 0: the bodies as the scene places them, and a flexible body
/// attached to a body in that body's rigid motion (a beam on a spinning hub spins with it
/// from the start, as it would have been carried up to speed).
pub fn coupled_data<St: Storage>(scene: &Scene, model: &coupled::Model<f64, St>) -> coupled::Data<f64, St> {
    let rigid = ferrodyn_kernel::rigid::Data::new(model.rigid());
    let mut flex = model.flex().new_data();
    let carrier = scene
        .flexibles
        .first()
        .and_then(|s| s.attach.as_ref())
        .map(|(b, _)| *b);
    if let Some(body) = carrier {
        let (x, q) = (rigid.position(body), rigid.orientation(body));
        let omega = q.rotate(rigid.angular_velocity(body));
        // r = X (the reference is where the body holds it), ṙ = v + ω × (X − x).
        let velocity = rigid.velocity(body) - omega.cross(x);
        flex.set_rigid_motion(model.flex(), Mat3::IDENTITY, Vec3::ZERO, velocity, omega);
    }
    coupled::Data::from_states(model, rigid, flex)
}

/// A kernel error on a flexible body whose nodes and elements start at `first_node` and
/// `first_element` of the model, naming the body and the mesh node or element tag.
fn flex_error(
    scene: &Scene,
    spec: &FlexibleSpec,
    e: BuildError,
    first_node: usize,
    first_element: usize,
) -> SceneError {
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
            let tag = spec
                .mesh
                .node_tags()
                .get(n.wrapping_sub(first_node))
                .copied()
                .unwrap_or(0);
            let reason = format!("mesh node {tag}: {}", build_error_reason(e));
            ErrorKind::Invalid {
                field: "mesh",
                reason,
            }
        }
        BuildError::InvalidParameter {
            item: Item::Element(t),
            ..
        } => {
            let tag = spec
                .mesh
                .tets()
                .get(t.wrapping_sub(first_element))
                .map_or(0, |t| t.element_tag);
            let reason = format!("mesh element {tag}: {}", build_error_reason(e));
            ErrorKind::Invalid {
                field: "mesh",
                reason,
            }
        }
        other => ErrorKind::Kernel(other),
    };
    scene.source.error(Some(spec.line), item, kind)
}

/// Adds the mesh, holds and loads of one flexible body to `b`, its nodes numbered from `offset`.
fn add_body<St: Storage>(
    b: &mut flex::Builder<f64, St>,
    spec: &FlexibleSpec,
    offset: usize,
) -> Result<(), BuildError> {
    for p in spec.mesh.nodes() {
        b.add_node(Vec3::from_array(*p))?;
    }
    for t in spec.mesh.tets() {
        b.add_element(t.nodes.map(|n| n + offset))?;
    }
    for &(node, fixity) in &spec.fixities {
        b.fix(node + offset, fixity)?;
    }
    for &(node, force) in &spec.loads {
        b.add_nodal_force(node + offset, force)?;
    }
    Ok(())
}
