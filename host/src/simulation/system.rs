//! What the host needs of a running model of any family, as one object-safe trait: step,
//! time, energy, the flat state, and views of its rigid bodies, flexible nodes and contacts for
//! the recorders and the viewer.

use crate::check::{drive_loads, DriveLoad};
use crate::contact::{ContactWorld, FlexContacts};
use crate::storage::{RigidData, RigidModel};
use ferrodyn_kernel::ancf::Material;
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::{Digest, Energy, ExternalForces, ExternalLoads, KernelError};
use std::any::Any;

/// A running model: a kernel family with its data and integrator, or the host's implicit
/// flexible solver. `Send + Sync`: simulations are stepped on other threads (the Python
/// package's batches, its steps without the GIL).
pub trait System: Any + Send + Sync {
    /// Advances by `dt`; on error the state is left at the start of the step.
    fn step(&mut self, dt: f64) -> anyhow::Result<()>;
    /// Simulation time (s).
    fn time(&self) -> f64;
    /// Mechanical energy at the current state.
    fn energy(&self) -> Result<Energy<f64>, KernelError>;
    /// The state as one flat slice (the family's layout): `[positions | velocities]`, in a
    /// buffer made once with the system (steps write it in place, so its address stays).
    fn state(&self) -> &[f64];
    /// How many of [`System::state`]'s values are positions (nq; the rest are velocities).
    fn position_count(&self) -> usize;
    /// Overwrites the state (same layout and length); time is kept.
    fn set_state(&mut self, state: &[f64]) -> Result<(), KernelError>;
    /// The digest of the state's bits.
    fn digest(&self) -> Digest {
        Digest::of(self.state())
    }
    /// The rigid bodies: the model and its data (rigid and coupled systems).
    fn rigid(&self) -> Option<(&RigidModel, &RigidData)> {
        None
    }
    /// The rigid model and its data to evaluate in place (reactions, settling): rigid systems
    /// only (in a coupled system the rigid data is a mirror the flexible loads do not reach).
    fn rigid_mut(&mut self) -> Option<(&RigidModel, &mut RigidData)> {
        None
    }
    /// The load of every drive (scene order) at the current state: its generalized force and
    /// power ([`crate::check::drive_loads`] on the rigid model; a tree's from its own rows).
    /// Empty without drives, or where the system does not say (flexible and coupled systems).
    fn drive_loads(&mut self) -> anyhow::Result<Vec<DriveLoad>> {
        match self.rigid_mut() {
            Some((model, data)) => Ok(drive_loads(model, data)?),
            None => Ok(Vec::new()),
        }
    }
    /// The clock's time and the rounding carried by its compensated sum, from which the
    /// system goes on bit for bit after [`System::set_state`] and [`System::resume_clock`]:
    /// `None` where state, clock and inputs are not all it carries from step to step (contact
    /// memory, adaptive or multistep integrators, the implicit solvers).
    fn clock_reading(&self) -> Option<[f64; 2]> {
        None
    }
    /// Moves the clock to a [`System::clock_reading`]; false (nothing changed) where that is
    /// `None`.
    fn resume_clock(&mut self, _reading: [f64; 2]) -> bool {
        false
    }
    /// What the integrator advances from step to step, which [`Simulation::resume_point`]
    /// saves: the state, or what it is formed from (a flexible body's displacements).
    ///
    /// [`Simulation::resume_point`]: super::Simulation::resume_point
    fn carried_state(&self) -> &[f64] {
        self.state()
    }
    /// Sets what [`System::carried_state`] gives; time is kept.
    fn set_carried_state(&mut self, values: &[f64]) -> Result<(), KernelError> {
        self.set_state(values)
    }
    /// The values of the input ports (`[[input]]`, in port units).
    fn inputs(&self) -> &[f64] {
        &[]
    }
    /// Sets input port `index` to `value` (port units): held from the next step on.
    fn set_input(&mut self, index: usize, value: f64) -> anyhow::Result<()> {
        let _ = value;
        anyhow::bail!("no input {index}: this system has no input ports")
    }
    /// The flexible nodes (flexible, coupled and implicit systems).
    fn flexible(&self) -> Option<FlexibleState<'_>> {
        None
    }
    /// The contacts, when the system has any.
    fn contacts(&self) -> Option<Contacts<'_>> {
        None
    }
    /// What an iterative solver did so far (Newton iterations, factorizations), for the summary.
    fn solver_report(&self) -> Option<String> {
        None
    }
    /// Takes over the data (state, time, contact memory) of `old`, a system of the same kind
    /// compiled from the same scene before a change of its parameters. Returns false (and
    /// changes nothing) when `old` is of another kind.
    fn take_over(&mut self, old: &mut dyn System) -> bool;
    /// For [`System::take_over`]: the concrete system.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// The flexible nodes of a system at its current state.
#[derive(Clone, Copy)]
pub struct FlexibleState<'a> {
    /// The material of each tetrahedron (bodies of different materials share the model).
    pub materials: &'a [Material<f64>],
    /// Reference positions.
    pub reference: &'a [Vec3<f64>],
    /// The nodes of each tetrahedron.
    pub connectivity: &'a [[usize; 4]],
    /// Coordinates, 12 per node (r, ∂r/∂X, ∂r/∂Y, ∂r/∂Z).
    pub coordinates: &'a [f64],
    /// Their rates.
    pub rates: &'a [f64],
}

impl FlexibleState<'_> {
    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.reference.len()
    }
    /// Current position of a node (zero for an unknown node).
    pub fn position(&self, node: usize) -> Vec3<f64> {
        self.vector(self.coordinates, node)
    }
    /// Current velocity of a node.
    pub fn velocity(&self, node: usize) -> Vec3<f64> {
        self.vector(self.rates, node)
    }
    /// The material at each node: that of the first tetrahedron holding it (a node shared by
    /// bodies of different materials takes the first one's); `None` for a node of no element.
    pub fn node_materials(&self) -> Vec<Option<&Material<f64>>> {
        let mut out = vec![None; self.node_count()];
        for (nodes, material) in self.connectivity.iter().zip(self.materials) {
            for &n in nodes {
                if let Some(slot @ None) = out.get_mut(n) {
                    *slot = Some(material);
                }
            }
        }
        out
    }
    /// The 12 coordinates of a node (empty for an unknown node).
    pub fn node_coordinates(&self, node: usize) -> &[f64] {
        self.coordinates.get(12 * node..12 * node + 12).unwrap_or(&[])
    }
    fn vector(&self, values: &[f64], node: usize) -> Vec3<f64> {
        match values.get(12 * node..12 * node + 3) {
            Some(&[x, y, z]) => Vec3::new(x, y, z),
            _ => Vec3::ZERO,
        }
    }
}

/// The contacts of a system: between rigid shapes, of flexible bodies, or both.
pub enum ContactModel {
    /// Rigid shapes on bodies and the ground.
    Rigid(ContactWorld),
    /// Flexible bodies with the ground, rigid shapes and each other.
    Flexible(FlexContacts),
    /// Rigid bodies with flexible bodies: the rigid shapes among themselves, and the flexible
    /// bodies with the ground, the rigid shapes and each other.
    Coupled {
        /// Between rigid shapes.
        rigid: Box<ContactWorld>,
        /// Of the flexible bodies.
        flexible: FlexContacts,
    },
}

impl ExternalForces<f64> for ContactModel {
    fn apply(&mut self, t: f64, loads: &mut ExternalLoads<'_, f64>) {
        match self {
            Self::Rigid(world) => world.apply(t, loads),
            Self::Flexible(contacts) => contacts.apply(t, loads),
            Self::Coupled { rigid, flexible } => {
                rigid.apply(t, loads);
                flexible.apply(t, loads);
            }
        }
    }
    fn accept(&mut self, t: f64, state: &ExternalLoads<'_, f64>) {
        match self {
            Self::Rigid(world) => world.accept(t, state),
            Self::Flexible(contacts) => contacts.accept(t, state),
            Self::Coupled { rigid, flexible } => {
                rigid.accept(t, state);
                flexible.accept(t, state);
            }
        }
    }
}

impl ContactModel {
    /// The flexible bodies' contacts, if any.
    pub fn flexible(&self) -> Option<&FlexContacts> {
        match self {
            Self::Rigid(_) => None,
            Self::Flexible(c) | Self::Coupled { flexible: c, .. } => Some(c),
        }
    }

    /// A view of these contacts.
    pub fn view(&self) -> Contacts<'_> {
        match self {
            Self::Rigid(world) => Contacts::Rigid(world),
            Self::Flexible(c) => Contacts::Flexible(c),
            Self::Coupled { rigid, flexible } => Contacts::Coupled { rigid, flexible },
        }
    }
}

/// The contacts of a system at its last accepted state.
#[derive(Clone, Copy)]
pub enum Contacts<'a> {
    /// Between rigid shapes.
    Rigid(&'a ContactWorld),
    /// Of flexible bodies.
    Flexible(&'a FlexContacts),
    /// Of rigid and flexible bodies.
    Coupled {
        /// Between rigid shapes.
        rigid: &'a ContactWorld,
        /// Of the flexible bodies.
        flexible: &'a FlexContacts,
    },
}

impl<'a> Contacts<'a> {
    /// Contacts active at the last accepted state.
    pub fn active_count(&self) -> usize {
        match self {
            Self::Rigid(world) => world.active().len(),
            Self::Flexible(c) => c.active_count(),
            Self::Coupled { rigid, flexible } => rigid.active().len() + flexible.active_count(),
        }
    }
    /// The contacts between rigid shapes, if any.
    pub fn rigid(&self) -> Option<&'a ContactWorld> {
        match *self {
            Self::Rigid(world) | Self::Coupled { rigid: world, .. } => Some(world),
            Self::Flexible(_) => None,
        }
    }
    /// The contacts of flexible bodies, if any.
    pub fn flexible(&self) -> Option<&'a FlexContacts> {
        match *self {
            Self::Flexible(c) | Self::Coupled { flexible: c, .. } => Some(c),
            Self::Rigid(_) => None,
        }
    }
}
