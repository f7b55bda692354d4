//! Scene → [`Simulation`]: the one place that decides how a scene runs.
//!
//! - rigid bodies only: the kernel's tree (joint coordinates) when they form an open tree of
//!   revolute and prismatic joints (see [`choose`]), else the kernel's rigid model (Cartesian
//!   coordinates), joints assembled; every integrator runs on either (on the tree hht, newmark
//!   and generalized-alpha are `dae` integrators, not the implicit multibody solver);
//! - flexible bodies only: the kernel's flexible model, all bodies merged into one, or the
//!   host's HHT-α / Newmark integrator of it (`integrator = "hht" | "newmark"`);
//! - rigid bodies and flexible bodies attached to one of them or free: the kernel's coupled
//!   model, with the contacts of both (rigid shapes among themselves, and the flexible bodies'
//!   nodes with the ground planes, the shapes and each other); with hht, newmark or
//!   generalized-alpha the implicit multibody solver, whose attached bodies may ride on several
//!   rigid bodies;
//!
//! each with the scene's integrator (explicit, or BDF / generalized-α) and contacts, on the
//! host's growable storage. Errors name the scene item and line.

mod capacities;
mod contact;
mod flexible;
mod formulation;
mod rigid;
mod tree;

pub use capacities::Capacities;
pub use contact::{flexible_contacts, rigid_contact};
pub use flexible::{
    attachments, body_of_nodes, coupled_data, coupled_model, element_ranges, flexible_model,
    initial_flex_state, initial_rates, node_ranges,
};
pub use formulation::{choose, fewest_loop_rows, link_of_joints, Blocker, Choice, TreeLink};
pub use rigid::{kernel_error, mirror_model, rigid_model};
use tree::initial_data;
pub use tree::{tree_parts, tree_parts_on, LinkBody, SceneTree, TreeDrive, TreeParts};

use crate::dae::{GeneralizedAlpha, HostMethod};
use crate::implicit::{Convergence, FlexPart, HhtFlex, ImplicitSystem, MultibodyHht, Scheme};
use crate::scene::{ErrorKind, ItemName, Scene, SceneError};
use crate::sensor::resolve_zeros;
use crate::simulation::{
    ContactModel, InputPort, KernelSystem, Labels, Simulation, System, Timing, TreeSystem,
};
use crate::spec::{HhtOptions, IntegratorSpec, NewtonSettings};
use crate::storage::{FlexData, FlexModel, Growable, RigidModel};
use ferrodyn_kernel::ancf::NODE_COORDS;
use ferrodyn_kernel::rigid::assemble;
use ferrodyn_kernel::{Dynamics, KernelError};

/// Compiles `scene` into a simulation at its initial state.
pub fn compile(scene: &Scene) -> Result<Simulation, SceneError> {
    compile_chosen(scene, choose(scene)?, None)
}

/// Compiles `scene` as [`compile`] does, with its formulation already chosen and, for a tree,
/// its parts already built (`tree_parts(scene, links)`; `ferrodyn check` builds them for its
/// report: building them again would double the cost of a large scene).
pub fn compile_chosen(
    scene: &Scene,
    choice: Choice,
    mut parts: Option<TreeParts>,
) -> Result<Simulation, SceneError> {
    let sim = &scene.simulation;
    let timing = Timing {
        step: sim.step,
        end_time: sim.end_time,
        output_interval: sim.output_interval,
    };
    let (rigid, flexible) = (!scene.bodies.is_empty(), !scene.flexibles.is_empty());
    let tree = matches!(choice, Choice::Tree(_));
    let (system, description): (Box<dyn System>, String) = match (sim.integrator, rigid, flexible) {
        (_, false, false) => return Err(invalid(scene, "body", "the scene has no rigid or flexible body")),
        (IntegratorSpec::Hht(options), false, true) => implicit(scene, options)?,
        // On the tree: the α recurrence of `dae` with α_m = 0, α_f = −α, said in the header.
        (IntegratorSpec::Hht(o), true, false) if tree => {
            let newton = NewtonSettings {
                tolerance: o.newton_tol,
                max_iterations: o.max_newton_iter,
            };
            let method = GeneralizedAlpha::hht(o.alpha, o.beta, o.gamma, newton);
            let (system, description) =
                rigid_system(scene, HostMethod::GeneralizedAlpha(method), &choice, parts.take())?;
            let note = format!(
                "{description}; {} as the α recurrence on the joint coordinates (α_m = 0, α_f = {}, β = {}, γ = {})",
                sim.integrator.name(),
                -o.alpha,
                o.beta,
                o.gamma
            );
            (system, note)
        }
        (IntegratorSpec::Hht(o), true, _) => {
            let scheme = Scheme::Hht {
                alpha: o.alpha,
                beta: o.beta,
                gamma: o.gamma,
            };
            multibody(scene, scheme, o.newton_tol, o.max_newton_iter, o.max_halvings)?
        }
        (IntegratorSpec::Dae(spec), true, _)
            if spec.name == "generalized-alpha" && scene.contact.is_none() && !tree =>
        {
            let scheme = Scheme::GeneralizedAlpha {
                rho_inf: spec.rho_inf,
            };
            multibody(
                scene,
                scheme,
                spec.newton.tolerance,
                spec.newton.max_iterations,
                0,
            )?
        }
        (integrator, rigid, flexible) => match HostMethod::new(&integrator) {
            // HHT with rigid bodies took the arm above; kept as a real limit.
            None => {
                return Err(invalid(
                    scene,
                    "integrator",
                    "hht and newmark need rigid or flexible bodies",
                ))
            }
            Some(method) if !flexible => rigid_system(scene, method, &choice, parts.take())?,
            Some(method) if !rigid => flexible_system(scene, method)?,
            Some(method) => coupled_system(scene, method)?,
        },
    };
    let mut sensors = scene.sensors.clone();
    resolve_zeros(&mut sensors, system.rigid());
    let labels = Labels {
        sensors,
        description: format!("{description}, {}", sim.integrator.name()),
        conservative: conservative(scene),
        ..names(scene)
    };
    Ok(Simulation::new(system, timing, labels))
}

/// The names of the scene's bodies, joints, forces and flexible bodies.
fn names(scene: &Scene) -> Labels {
    Labels {
        names: scene.name_maps(),
        flexibles: flexible_ranges(scene),
        flexible_elements: element_ranges(&scene.flexibles),
        ..Labels::default()
    }
}

/// A scene error about `[simulation]` or the scene as a whole.
fn invalid(scene: &Scene, field: &'static str, reason: &str) -> SceneError {
    let kind = ErrorKind::Invalid {
        field,
        reason: reason.into(),
    };
    scene
        .source
        .error(None, Some(ItemName::new("simulation", "")), kind)
}

/// A kernel error at t = 0 named by the scene's body or joint (and its line).
fn initial_error(scene: &Scene, what: &str, e: KernelError) -> SceneError {
    let place = e.item().and_then(|item| rigid::scene_place(scene, item));
    let kind = ErrorKind::Invalid {
        field: "initial state",
        reason: format!("{what}: {}", names(scene).name_error(e.into())),
    };
    let (item, line) = place.map_or((None, None), |(i, l)| (Some(i), Some(l)));
    scene.source.error(line, item, kind)
}

/// The rigid system of `choice` (`parts`: the tree's, where already built).
fn rigid_system(
    scene: &Scene,
    method: HostMethod,
    choice: &Choice,
    parts: Option<TreeParts>,
) -> Result<(Box<dyn System>, String), SceneError> {
    if let Choice::Tree(links) = choice {
        // Reactions are evaluated on the Cartesian mirror, which holds the bodies that run in
        // joint coordinates only by stand-ins.
        let stand_in = crate::scene::first_tree_only(&scene.bodies);
        if let Some((body, why)) = stand_in.filter(|_| scene.output.reactions) {
            let kind = ErrorKind::Invalid {
                field: "reactions",
                reason: format!(
                    "joint reactions are computed in Cartesian coordinates, which cannot hold {why}"
                ),
            };
            return Err(scene.source.error(Some(body.line), Some(body.item()), kind));
        }
        let parts = match parts {
            Some(parts) => parts,
            None => tree_parts(scene, links)?,
        };
        let TreeParts {
            mirror,
            mirror_data,
            tree:
                SceneTree {
                    links: tree_links,
                    bodies,
                    rates,
                    loops,
                    drives,
                    ..
                },
            model: tree,
            forces,
        } = parts;
        // The model holds the links now: their list goes before the tree's data is made
        // (0.3 kB a link at a large tree's peak).
        drop(tree_links);
        let tree_data =
            initial_data(&tree, &rates).map_err(|e| initial_error(scene, "the initial joint rates", e))?;
        drop(rates);
        let description = format!(
            "{}, {} in joint coordinates ({} DOF)",
            count(mirror.bodies().len(), "rigid body", "rigid bodies"),
            count(mirror.joints().len(), "joint", "joints"),
            tree.velocity_count()
        );
        let link_of = link_of_joints(links, scene.joints.len());
        let ports = scene.inputs.iter().map(|input| InputPort {
            link: link_of
                .get(input.value.joint)
                .copied()
                .flatten()
                .unwrap_or(usize::MAX),
            scale: input.value.scale,
        });
        let ports = ports.collect();
        // The contact shapes on the links that carry their bodies.
        let contact = match &scene.contact {
            Some(spec) => Some(ContactModel::Rigid(tree_world(
                scene,
                spec,
                &bodies,
                links.len(),
            )?)),
            None => None,
        };
        let system = KernelSystem::with_data(tree, tree_data, method, contact)
            .map_err(|e| initial_error(scene, "the initial state", e))?;
        // Kernel joint k is link k's joint, then the joints closing loops.
        let joints = links.iter().map(|l| l.joint);
        let joints = joints
            .chain(loops.iter().map(|&(index, _)| Some(index)))
            .collect();
        let mut system = TreeSystem::new(system, mirror, mirror_data, bodies)
            .with_inputs(ports)
            .with_forces(forces)
            .with_joints(joints)
            .with_drives(drives);
        for (index, input) in scene.inputs.iter().enumerate() {
            system.set_input(index, input.value.value).map_err(|e| {
                let kind = ErrorKind::Invalid {
                    field: "joint",
                    reason: e.to_string(),
                };
                let item = ItemName::new("input", &input.name);
                scene.source.error(Some(input.line), Some(item), kind)
            })?;
        }
        return Ok((Box::new(system), description));
    }
    let model = rigid_model::<Growable>(scene)?;
    let mut data = model.new_data();
    assemble(&model, &mut data)
        .map_err(|e| initial_error(scene, "assembling the initial configuration", e))?;
    let contact = rigid_world(scene, model.bodies().len())?.map(ContactModel::Rigid);
    let description = describe_rigid(&model);
    let system = KernelSystem::with_data(model, data, method, contact)
        .map_err(|e| initial_error(scene, "contact at the initial state", e))?;
    Ok((Box::new(system), description))
}

fn describe_rigid(model: &RigidModel) -> String {
    format!(
        "{}, {} ({})",
        count(model.bodies().len(), "rigid body", "rigid bodies"),
        count(model.joints().len(), "joint", "joints"),
        count(model.constraint_rows(), "constraint row", "constraint rows")
    )
}

/// `n` and the noun in the right number.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn describe_flexible(scene: &Scene, model: &FlexModel) -> String {
    let names: Vec<&str> = scene.flexibles.iter().map(|f| f.name.as_str()).collect();
    format!(
        "flexible {} \"{}\" ({} nodes, {} tets, {} DOF)",
        if names.len() == 1 { "body" } else { "bodies" },
        names.join("\", \""),
        model.node_count(),
        model.element_count(),
        model.dof_count()
    )
}

/// The flexible bodies of a scene as one model, with their initial rates and contacts.
pub struct FlexibleParts {
    /// All flexible bodies merged into one model (file order).
    pub model: FlexModel,
    /// The node range of each body in `model`.
    pub ranges: Vec<std::ops::Range<usize>>,
    /// Initial coordinate rates, 12 per node.
    pub rates: Vec<f64>,
    /// Their contacts, if the scene has any.
    pub contacts: Option<crate::contact::FlexContacts>,
}

impl FlexibleParts {
    /// The flexible bodies of `scene`, as `compile` builds them.
    pub fn of(scene: &Scene) -> Result<Self, SceneError> {
        let (model, ranges) = flexible_model::<Growable>(scene, &scene.flexibles)?;
        let mut rates = vec![0.0; NODE_COORDS * model.node_count()];
        initial_rates(scene, &ranges, &mut rates);
        let reference: Vec<[f64; 3]> = model.references().iter().map(|p| p.to_array()).collect();
        let contacts = flexible_contacts(scene, &reference, model.connectivity(), &ranges)?;
        Ok(Self {
            model,
            ranges,
            rates,
            contacts,
        })
    }

    /// Kernel data at the reference configuration moving with the initial rates.
    pub fn initial_data(&self) -> Result<FlexData, KernelError> {
        let mut data = self.model.new_data();
        let mut state = self.model.state(&data).to_vec();
        state[self.rates.len()..].copy_from_slice(&self.rates);
        self.model.set_state(&mut data, &state)?;
        Ok(data)
    }
}

fn flexible_system(scene: &Scene, method: HostMethod) -> Result<(Box<dyn System>, String), SceneError> {
    let parts = FlexibleParts::of(scene)?;
    let data = parts
        .initial_data()
        .map_err(|e| initial_error(scene, "initial velocity", e))?;
    let FlexibleParts { model, contacts, .. } = parts;
    let description = describe_flexible(scene, &model);
    let contact = contacts.map(ContactModel::Flexible);
    let system = KernelSystem::with_data(model, data, method, contact)
        .map_err(|e| initial_error(scene, "contact at the initial state", e))?;
    Ok((Box::new(system), description))
}

fn implicit(scene: &Scene, options: HhtOptions) -> Result<(Box<dyn System>, String), SceneError> {
    let FlexibleParts {
        model,
        rates,
        contacts,
        ..
    } = FlexibleParts::of(scene)?;
    let description = describe_flexible(scene, &model);
    let first = &scene.flexibles[0];
    let fail = |e: crate::implicit::ImplicitError| {
        let kind = ErrorKind::Invalid {
            field: "implicit",
            reason: e.to_string(),
        };
        scene.source.error(
            Some(first.line),
            Some(ItemName::new("flexible", &first.name)),
            kind,
        )
    };
    let hht =
        HhtFlex::with_start(model, options, Some(&rates), contacts.unwrap_or_default()).map_err(fail)?;
    Ok((Box::new(ImplicitSystem::new(hht)), description))
}

/// "1 rigid body, … + flexible body "beam" (…)".
fn describe_coupled(scene: &Scene, rigid: &RigidModel, flex: &FlexModel) -> String {
    format!("{} + {}", describe_rigid(rigid), describe_flexible(scene, flex))
}

fn coupled_system(scene: &Scene, method: HostMethod) -> Result<(Box<dyn System>, String), SceneError> {
    let model = coupled_model::<Growable>(scene)?;
    let description = describe_coupled(scene, model.rigid(), model.flex());
    let data = coupled_data(scene, &model);
    let contact = coupled_contact(scene, model.rigid().bodies().len(), model.flex())?;
    let system = KernelSystem::with_data(model, data, method, contact)
        .map_err(|e| initial_error(scene, "initial state", e))?;
    Ok((Box::new(system), description))
}

/// The contact world of the scene's shapes for `body_count` rigid bodies (`None`: no
/// shapes); errors name the shape.
fn rigid_world(scene: &Scene, body_count: usize) -> Result<Option<crate::contact::ContactWorld>, SceneError> {
    scene
        .contact
        .as_ref()
        .map(|spec| world_of(scene, spec, body_count))
        .transpose()
}

/// The contact world of `spec` (the scene's, or it on tree links) for `body_count` bodies.
fn world_of(
    scene: &Scene,
    spec: &crate::scene::ContactSpec,
    body_count: usize,
) -> Result<crate::contact::ContactWorld, SceneError> {
    rigid_contact(spec, body_count).map_err(|e| {
        let kind = ErrorKind::Invalid {
            field: "shape",
            reason: e.to_string(),
        };
        scene.source.error(None, None, kind)
    })
}

/// The contact world of a tree of `link_count` links: `spec`'s shapes on the links that carry
/// their `bodies` (what `ferrodyn run` steps and the exporter writes).
pub fn tree_world(
    scene: &Scene,
    spec: &crate::scene::ContactSpec,
    bodies: &[LinkBody],
    link_count: usize,
) -> Result<crate::contact::ContactWorld, SceneError> {
    world_of(scene, &tree::contact_on_links(spec, bodies), link_count)
}

/// The contacts of a scene of `body_count` rigid bodies and flexible bodies (merged into
/// `flex`): the rigid shapes among themselves and, when a flexible body has `contact`, its
/// nodes with the ground planes, the other shapes and the other flexible bodies.
pub fn coupled_contact(
    scene: &Scene,
    body_count: usize,
    flex: &FlexModel,
) -> Result<Option<ContactModel>, SceneError> {
    let Some(rigid) = rigid_world(scene, body_count)? else {
        return Ok(None);
    };
    let reference: Vec<[f64; 3]> = flex.references().iter().map(|p| p.to_array()).collect();
    let ranges = node_ranges(&scene.flexibles);
    Ok(Some(
        match flexible_contacts(scene, &reference, flex.connectivity(), &ranges)? {
            Some(flexible) => ContactModel::Coupled {
                rigid: Box::new(rigid),
                flexible,
            },
            None => ContactModel::Rigid(rigid),
        },
    ))
}

/// The scene's rigid bodies, with its flexible bodies attached to them or free, integrated by
/// the implicit multibody solver (HHT-α or generalized-α) at the assembled initial state.
fn multibody(
    scene: &Scene,
    scheme: Scheme,
    tolerance: f64,
    max_iterations: u32,
    max_halvings: u32,
) -> Result<(Box<dyn System>, String), SceneError> {
    let convergence = Convergence {
        tolerance,
        max_iterations,
        max_halvings,
        ..Convergence::default()
    };
    let (rigid, flex, state, description, contact) = if scene.flexibles.is_empty() {
        let model = rigid_model::<Growable>(scene)?;
        let mut data = model.new_data();
        assemble(&model, &mut data)
            .map_err(|e| initial_error(scene, "assembling the initial configuration", e))?;
        let description = describe_rigid(&model);
        let state = data.state().to_vec();
        let contact = rigid_world(scene, model.bodies().len())?.map(ContactModel::Rigid);
        (model, None, state, description, contact)
    } else {
        // Not the kernel's coupled model: the solver carries attached nodes on several bodies.
        let rigid = rigid_model::<Growable>(scene)?;
        let (flex, _) = flexible_model::<Growable>(scene, &scene.flexibles)?;
        let attachments = attachments(scene, &rigid, &flex)?;
        let description = describe_coupled(scene, &rigid, &flex);
        let mut data = rigid.new_data();
        assemble(&rigid, &mut data)
            .map_err(|e| initial_error(scene, "assembling the initial configuration", e))?;
        let (q, v) = data.state().split_at(7 * rigid.bodies().len());
        let flex_state = initial_flex_state(scene, &data, &flex);
        let (e, ed) = flex_state.split_at(flex_state.len() / 2);
        let state = [q, e, v, ed].concat();
        let contact = coupled_contact(scene, rigid.bodies().len(), &flex)?;
        (
            rigid,
            Some(FlexPart {
                model: flex,
                attachments,
            }),
            state,
            description,
            contact,
        )
    };
    let fail = |e: crate::implicit::ImplicitError| {
        let kind = ErrorKind::Invalid {
            field: "implicit",
            reason: names(scene).name_error(e.into()).to_string(),
        };
        scene
            .source
            .error(None, Some(ItemName::new("simulation", "")), kind)
    };
    let system = MultibodyHht::new(rigid, flex, &state, scheme, convergence, contact).map_err(fail)?;
    Ok((Box::new(system), description))
}

/// Each flexible body's name and node range in the merged model (file order).
fn flexible_ranges(scene: &Scene) -> Vec<(String, std::ops::Range<usize>)> {
    let names = scene.flexibles.iter().map(|f| f.name.clone());
    names.zip(node_ranges(&scene.flexibles)).collect()
}

/// Whether nothing does work on the scene: no drive, no applied force, no nodal load.
fn conservative(scene: &Scene) -> bool {
    let rigid = crate::watch::conservative(
        scene.joints.iter().map(|j| &j.value),
        scene.forces.iter().map(|f| &f.value),
    );
    rigid && scene.flexibles.iter().all(|f| f.loads.is_empty())
}
