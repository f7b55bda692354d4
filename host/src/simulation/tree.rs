//! A rigid system in joint coordinates: the kernel tree steps, with the scene's force elements
//! on its links; a Cartesian mirror of the same bodies (and elements), set from the tree's link
//! states after every step, is what the recorders, sensors, reactions and the viewer see (they
//! read Cartesian bodies of any system the same way).

use super::kernel::KernelSystem;
use super::system::{Contacts, System};
use crate::check::DriveLoad;
use crate::compile::{LinkBody, TreeDrive};
use crate::dae::tree_tangent::{SharedLoads, TreeLoads, TreeTangent};
use crate::dae::HostMethod;
use crate::storage::{RigidData, RigidModel, TreeData, TreeForces, TreeModel};
use anyhow::{anyhow, bail};
use ferrodyn_kernel::math::Quat;
use ferrodyn_kernel::tree::{accelerations_with, update_link_states};
use ferrodyn_kernel::{Dynamics, Energy, Item, KernelError};
use std::any::Any;
use std::cell::RefCell;

/// An actuator port (`[[input]]`): the joint of link `link` gets the port value × `scale`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InputPort {
    /// The link whose joint it drives.
    pub link: usize,
    /// SI units per port unit.
    pub scale: f64,
}

/// The tree with its integrator, the Cartesian mirror of its bodies, and its input ports.
pub struct TreeSystem {
    tree: KernelSystem<TreeModel>,
    mirror: RigidModel,
    mirror_data: RigidData,
    bodies: Vec<LinkBody>,
    ports: Vec<InputPort>,
    /// The ports' values (port units).
    inputs: Vec<f64>,
    /// Force elements on the links (none: the tree steps without the external-force pass).
    forces: TreeForces,
    /// The scene joint of each of the kernel's joints (link k's joint, `None` for a floating
    /// base; then the joints closing loops), for the kernel's errors.
    joints: Vec<Option<usize>>,
    /// The scene's drives, the tree's coordinate rows after the loop rows, in that order.
    drives: Vec<TreeDrive>,
    /// Where an implicit method's iteration matrix evaluates the tree (made at its first step).
    scratch: Option<TreeData>,
}

impl TreeSystem {
    /// `tree` (with its data and integrator) moving the bodies of the rigid `mirror` as
    /// `bodies` says (every scene body: a link's own, welded to a link, or to the ground).
    pub fn new(
        tree: KernelSystem<TreeModel>,
        mirror: RigidModel,
        mirror_data: RigidData,
        bodies: Vec<LinkBody>,
    ) -> Self {
        let mut system = Self {
            tree,
            mirror,
            mirror_data,
            bodies,
            ports: Vec::new(),
            inputs: Vec::new(),
            forces: TreeForces::new(),
            joints: Vec::new(),
            drives: Vec::new(),
            scratch: None,
        };
        system.update_mirror();
        system
    }

    /// With input `ports`, at zero (set them with [`System::set_input`]).
    pub fn with_inputs(mut self, ports: Vec<InputPort>) -> Self {
        self.inputs = vec![0.0; ports.len()];
        self.ports = ports;
        self
    }

    /// With `joints`, the scene joint of each kernel joint (link k's, then the loop joints'),
    /// so that the kernel's errors name the scene's joint.
    pub fn with_joints(mut self, joints: Vec<Option<usize>>) -> Self {
        self.joints = joints;
        self
    }

    /// A kernel error with its joint index turned into the scene's.
    fn renamed(&self, error: anyhow::Error) -> anyhow::Error {
        let kernel = match error.downcast::<KernelError>() {
            Ok(kernel) => kernel,
            Err(other) => return other,
        };
        let scene = |k: usize| self.joints.get(k).copied().flatten().unwrap_or(k);
        anyhow::Error::new(match kernel {
            KernelError::SingularMatrix { row, joint } => KernelError::SingularMatrix {
                row,
                joint: scene(joint),
            },
            KernelError::InconsistentConstraints { row, joint, residual } => {
                KernelError::InconsistentConstraints {
                    row,
                    joint: scene(joint),
                    residual,
                }
            }
            KernelError::ProjectionNotConverged {
                iterations,
                residual,
                joint,
            } => KernelError::ProjectionNotConverged {
                iterations,
                residual,
                joint: scene(joint),
            },
            KernelError::NonFinite {
                item: Item::Joint(joint),
                time,
            } => KernelError::NonFinite {
                item: Item::Joint(scene(joint)),
                time,
            },
            other => other,
        })
    }

    /// With `drives`, the tree's first coordinate rows.
    pub fn with_drives(mut self, drives: Vec<TreeDrive>) -> Self {
        self.drives = drives;
        self
    }

    /// With force elements `forces` on the links.
    pub fn with_forces(mut self, forces: TreeForces) -> Self {
        self.forces = forces;
        self
    }

    /// One step of an implicit method with the tree's analytic iteration matrix
    /// ([`TreeTangent`]), the loads shared by the step and the matrix.
    fn step_implicit(&mut self, dt: f64) -> Result<(), KernelError> {
        let tree = &mut self.tree;
        let scratch = self.scratch.get_or_insert_with(|| tree.model.new_data());
        let (model, data, method) = (&tree.model, &mut tree.data, &mut tree.method);
        if self.forces.elements().is_empty() && tree.contact.is_none() {
            let mut tangent = TreeTangent::new(model, scratch, None);
            model.step(data, &mut method.with_tangent(&mut tangent), dt)?;
            return Ok(());
        }
        let loads = RefCell::new(TreeLoads {
            forces: &mut self.forces,
            contact: tree.contact.as_mut(),
        });
        let mut tangent = TreeTangent::new(model, scratch, Some(&loads));
        model.step_with(
            data,
            &mut method.with_tangent(&mut tangent),
            dt,
            &mut SharedLoads(&loads),
        )?;
        Ok(())
    }

    /// Sets every mirror body from its link's state. Quaternions keep the sign of the previous
    /// ones, so the written orientations are continuous in time.
    fn update_mirror(&mut self) {
        let tree = &mut self.tree;
        update_link_states(&tree.model, &mut tree.data);
        for on in &self.bodies {
            // A body welded to the ground keeps its initial state.
            let Some(state) = on.link.and_then(|k| tree.data.link_state(k)) else {
                continue;
            };
            let mut orientation = Quat::from_matrix(&state.pose.rotation).mul(&on.orientation);
            let previous = self.mirror_data.orientation(on.body);
            let [a, b] = [orientation.to_array(), previous.to_array()];
            if a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>() < 0.0 {
                orientation = Quat::from_array(a.map(|x| -x));
            }
            let omega_body = orientation.conjugate().rotate(state.angular_velocity);
            self.mirror_data
                .set_pose(on.body, state.point(on.offset), orientation);
            self.mirror_data
                .set_velocity(on.body, state.point_velocity(on.offset), omega_body);
        }
        self.mirror_data.set_time(self.tree.time());
    }
}

impl System for TreeSystem {
    fn step(&mut self, dt: f64) -> anyhow::Result<()> {
        let stepped = if !matches!(self.tree.method, HostMethod::Explicit(_)) {
            self.step_implicit(dt).map_err(anyhow::Error::new)
        } else if self.forces.elements().is_empty() {
            self.tree.step(dt)
        } else {
            let tree = &mut self.tree;
            let (model, data, method) = (&tree.model, &mut tree.data, &mut tree.method);
            let mut loads = TreeLoads {
                forces: &mut self.forces,
                contact: tree.contact.as_mut(),
            };
            model
                .step_with(data, method, dt, &mut loads)
                .map(|_| ())
                .map_err(anyhow::Error::new)
        };
        stepped.map_err(|e| self.renamed(e))?;
        self.update_mirror();
        Ok(())
    }
    fn time(&self) -> f64 {
        self.tree.time()
    }
    /// From the tree's own rows: a drive's row on link coordinate q (q = m f + c, the scene's
    /// coordinate θ = θ₀ + m q) puts −λ on q, so m·(−λ) on θ, with power −λ q̇. Evaluated on a
    /// copy of the data and force elements (contacts left out, as the Cartesian reactions leave
    /// them), so the run's steps are not touched.
    fn drive_loads(&mut self) -> anyhow::Result<Vec<DriveLoad>> {
        if self.drives.is_empty() {
            return Ok(Vec::new());
        }
        let model = &self.tree.model;
        let mut data = self.tree.data.clone();
        let mut forces = self.forces.clone();
        let mut accel = vec![0.0; model.velocity_count()];
        accelerations_with(model, &mut data, Some(&mut forces), &mut accel)
            .map_err(|e| self.renamed(e.into()))?;
        let first = model.loop_rows();
        let loads = self.drives.iter().enumerate().map(|(k, d)| {
            let lambda = data.multipliers().get(first + k).copied().unwrap_or(0.0);
            let at = model.coordinates(d.link).map_or(0, |c| c.velocity);
            let rate = data.velocities().get(at).copied().unwrap_or(0.0);
            DriveLoad {
                effort: -d.multiplier * lambda,
                power: -lambda * rate,
            }
        });
        Ok(loads.collect())
    }
    fn energy(&self) -> Result<Energy<f64>, KernelError> {
        let mut energy = self.tree.energy()?;
        energy.potential += self.forces.potential(&self.tree.model, &self.tree.data);
        Ok(energy)
    }
    fn state(&self) -> &[f64] {
        self.tree.state()
    }
    fn position_count(&self) -> usize {
        self.tree.position_count()
    }
    fn set_state(&mut self, state: &[f64]) -> Result<(), KernelError> {
        self.tree.set_state(state)?;
        self.update_mirror();
        Ok(())
    }
    fn clock_reading(&self) -> Option<[f64; 2]> {
        self.tree.clock_reading()
    }
    fn resume_clock(&mut self, reading: [f64; 2]) -> bool {
        let resumed = self.tree.resume_clock(reading);
        self.update_mirror();
        resumed
    }
    fn inputs(&self) -> &[f64] {
        &self.inputs
    }
    fn set_input(&mut self, index: usize, value: f64) -> anyhow::Result<()> {
        let count = self.ports.len();
        let Some(port) = self.ports.get(index) else {
            bail!("no input {index}: the scene has {count}");
        };
        if !value.is_finite() {
            bail!("input {index}: {value} is not a finite number");
        }
        let tree = &mut self.tree;
        let set = tree
            .data
            .set_joint_input(&tree.model, port.link, &[value * port.scale]);
        set.map_err(|e| anyhow!("input {index}: {e}"))?;
        self.inputs[index] = value;
        Ok(())
    }
    fn solver_report(&self) -> Option<String> {
        self.tree.solver_report()
    }
    fn contacts(&self) -> Option<Contacts<'_>> {
        self.tree.contacts()
    }
    fn rigid(&self) -> Option<(&RigidModel, &RigidData)> {
        Some((&self.mirror, &self.mirror_data))
    }
    fn rigid_mut(&mut self) -> Option<(&RigidModel, &mut RigidData)> {
        // The mirror holds the whole system but the contacts (which the Cartesian model's
        // reactions leave out too), so it can be evaluated in place; the next step overwrites
        // its state again.
        Some((&self.mirror, &mut self.mirror_data))
    }
    fn take_over(&mut self, old: &mut dyn System) -> bool {
        let Some(old) = old.as_any_mut().downcast_mut::<Self>() else {
            return false;
        };
        let taken = self.tree.take_over(&mut old.tree);
        if taken {
            std::mem::swap(&mut self.mirror_data, &mut old.mirror_data);
            std::mem::swap(&mut self.inputs, &mut old.inputs);
        }
        taken
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
