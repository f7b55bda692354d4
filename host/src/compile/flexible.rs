//! The flexible part of a scene: its bodies merged into one kernel flexible model (each body's
//! elements of its own material), their
//! initial rates, and the coupled model of a body attached to rigid bodies. Kernel build errors
//! are mapped to the flexible body, mesh node or element tag that caused them.

use super::rigid::rigid_model;
use crate::scene::{build_error_reason, ErrorKind, FlexibleSpec, ItemName, Scene, SceneError};
use ferrodyn_kernel::ancf::{TetElement, NODE_COORDS};
use ferrodyn_kernel::math::Vec3;
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

/// The scene's rigid bodies and its flexible bodies, joined at the nodes they attach: the
/// kernel's coupled model, whose explicit condensation carries every attached node on one
/// rigid body (the implicit solver takes [`attachments`] to several).
pub fn coupled_model<St: Storage>(scene: &Scene) -> Result<coupled::Model<f64, St>, SceneError> {
    let rigid = rigid_model::<St>(scene)?;
    let (flex, _) = flexible_model::<St>(scene, &scene.flexibles)?;
    let attached = attachments(scene, &rigid, &flex)?;
    let carriers: Vec<usize> = scene
        .flexibles
        .iter()
        .filter_map(|f| f.attach.as_ref().map(|(b, _)| *b))
        .collect();
    if let (Some(first), Some(other)) = (carriers.first(), carriers.iter().find(|&&b| b != carriers[0])) {
        let name = |b: usize| scene.bodies.get(b).map_or("?", |n| n.name.as_str());
        let reason = format!(
            "the explicit coupled model carries all attached flexible nodes on one rigid body, here they attach to \"{}\" and \"{}\": use hht, newmark or generalized-alpha",
            name(*first),
            name(*other)
        );
        let kind = ErrorKind::Invalid {
            field: "attach",
            reason,
        };
        return Err(scene.source.error(None, None, kind));
    }
    let mut b = coupled::Model::builder(rigid, flex);
    for a in &attached {
        b.attach(a.node, a.body)
            .map_err(|e| flex_error(scene, &scene.flexibles[0], e, 0, 0))?;
    }
    b.build()
        .map_err(|e| flex_error(scene, &scene.flexibles[0], e, 0, 0))
}

/// Every node of the scene's flexible bodies (merged into `flex` in file order) that attaches
/// to a rigid body of `rigid`, as they are at t = 0.
pub fn attachments<St: Storage>(
    scene: &Scene,
    rigid: &ferrodyn_kernel::rigid::Model<f64, St>,
    flex: &flex::Model<f64, St>,
) -> Result<Vec<coupled::Attachment<f64>>, SceneError> {
    let mut out = Vec::new();
    for (spec, nodes) in scene.flexibles.iter().zip(node_ranges(&scene.flexibles)) {
        let Some((body, attached)) = &spec.attach else {
            continue;
        };
        for &node in attached {
            let a = coupled::Attachment::new(rigid, flex, nodes.start + node, *body)
                .map_err(|e| flex_error(scene, spec, e, nodes.start, 0))?;
            out.push(a);
        }
    }
    Ok(out)
}

/// The flexible bodies' state at t = 0 (`[e | ė]`, 12 a node): at their reference, each attached
/// body in its carrier's rigid motion (a beam on a spinning hub spins with it from the start, as
/// it would have been carried up to speed), each free body moving with its `velocity`.
pub fn initial_flex_state<St: Storage>(
    scene: &Scene,
    rigid: &ferrodyn_kernel::rigid::Data<f64, St>,
    flex: &flex::Model<f64, St>,
) -> Vec<f64> {
    let data = flex.new_data();
    let mut state = flex.state(&data).to_vec();
    let (e, rates) = state.split_at_mut(NODE_COORDS * flex.node_count());
    for (spec, nodes) in scene.flexibles.iter().zip(node_ranges(&scene.flexibles)) {
        for node in nodes {
            let (r, rate) = (
                &e[NODE_COORDS * node..],
                &mut rates[NODE_COORDS * node..NODE_COORDS * (node + 1)],
            );
            let Some((body, _)) = spec.attach else {
                rate[..3].copy_from_slice(&spec.velocity.to_array());
                continue;
            };
            // ṙ = v + ω × (r − x) at the node, ω × g for each gradient g (global ω).
            let (x, q) = (rigid.position(body), rigid.orientation(body));
            let omega = q.rotate(rigid.angular_velocity(body));
            let position = Vec3::new(r[0], r[1], r[2]);
            rate[..3].copy_from_slice(&(rigid.velocity(body) + omega.cross(position - x)).to_array());
            for k in 0..3 {
                let g = Vec3::new(r[3 + 3 * k], r[4 + 3 * k], r[5 + 3 * k]);
                rate[3 + 3 * k..6 + 3 * k].copy_from_slice(&omega.cross(g).to_array());
            }
        }
    }
    state
}

/// The coupled state at t = 0: the bodies as the scene places them, the flexible bodies as
/// [`initial_flex_state`] starts them.
pub fn coupled_data<St: Storage>(scene: &Scene, model: &coupled::Model<f64, St>) -> coupled::Data<f64, St> {
    let rigid = ferrodyn_kernel::rigid::Data::new(model.rigid());
    let mut flex = model.flex().new_data();
    let state = initial_flex_state(scene, &rigid, model.flex());
    // The model's own length, finite values: cannot fail.
    let _ = model.flex().set_state(&mut flex, &state);
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
