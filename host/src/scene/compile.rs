//! Compiling the rigid part of a validated scene into a rigid model: the host's growable
//! [`HostModel`](crate::model::HostModel) or a fixed-capacity kernel [`Model`](ferrodyn_kernel::Model).

use ferrodyn_kernel::{skyline_entries, BuildError, Capacity, Item, Joint, ModelStorage, RigidModel};

use super::error::{ErrorKind, ItemName, SceneError};
use super::Scene;

/// The kernel model capacities a scene needs (drives count as joints).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capacities {
    /// Rigid bodies.
    pub bodies: usize,
    /// Joints and drives.
    pub joints: usize,
    /// Force elements.
    pub forces: usize,
    /// Scalar constraint equations.
    pub rows: usize,
    /// Skyline entries of the constraint matrix profile (kernel `skyline_entries`).
    pub skyline: usize,
}

impl Capacities {
    /// What the scene needs of `capacity`.
    pub fn of(&self, capacity: Capacity) -> Option<usize> {
        match capacity {
            Capacity::Bodies => Some(self.bodies),
            Capacity::Joints => Some(self.joints),
            Capacity::Forces => Some(self.forces),
            Capacity::ConstraintRows => Some(self.rows),
            Capacity::SkylineEntries => Some(self.skyline),
            _ => None,
        }
    }
}

/// Index → name maps of a compiled model: kernel indices back to scene names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameMaps {
    /// Body names by body index.
    pub bodies: Vec<String>,
    /// Body ids by body index.
    pub body_ids: Vec<i64>,
    /// Joint and drive names by joint index.
    pub joints: Vec<String>,
    /// Force names by force index.
    pub forces: Vec<String>,
}

impl NameMaps {
    /// Index of the body called `name`.
    pub fn body(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|n| n == name)
    }
    /// Index of the joint or drive called `name`.
    pub fn joint(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|n| n == name)
    }
    /// Index of the force called `name`.
    pub fn force(&self, name: &str) -> Option<usize> {
        self.forces.iter().position(|n| n == name)
    }
}

impl Scene {
    /// The capacities a kernel model of this scene's rigid part needs.
    pub fn required_capacities(&self) -> Capacities {
        let joints: Vec<Joint<f64>> = self.joints.iter().map(|j| j.value).collect();
        Capacities {
            bodies: self.bodies.len(),
            joints: joints.len(),
            forces: self.forces.len(),
            rows: joints.iter().map(|j| j.kind.rows()).sum(),
            skyline: skyline_entries(&joints),
        }
    }

    /// The index → name maps of the rigid model.
    pub fn name_maps(&self) -> NameMaps {
        NameMaps {
            bodies: self.bodies.iter().map(|b| b.name.clone()).collect(),
            body_ids: self.bodies.iter().map(|b| b.value.id).collect(),
            joints: self.joints.iter().map(|j| j.name.clone()).collect(),
            forces: self.forces.iter().map(|f| f.name.clone()).collect(),
        }
    }

    /// Builds the rigid model (bodies, then joints and drives, then forces, in file order).
    /// Kernel errors are reported against the scene item that caused them.
    pub fn build_rigid<St: ModelStorage>(&self) -> Result<(RigidModel<f64, St>, NameMaps), SceneError> {
        let mut b = RigidModel::<f64, St>::builder(self.simulation.gravity);
        for body in &self.bodies {
            b.add_body(body.value.body).map_err(|e| self.kernel_error(e))?;
        }
        for joint in &self.joints {
            b.add_joint(joint.value).map_err(|e| self.kernel_error(e))?;
        }
        for force in &self.forces {
            b.add_force(force.value).map_err(|e| self.kernel_error(e))?;
        }
        let model = b.build().map_err(|e| self.kernel_error(e))?;
        Ok((model, self.name_maps()))
    }

    /// Maps a kernel build error (which names items by index) to the scene item and its line.
    fn kernel_error(&self, e: BuildError) -> SceneError {
        let place = |item: Item| -> Option<(ItemName, usize)> {
            match item {
                Item::Body(i) => self.bodies.get(i).map(|b| (b.item(), b.line)),
                Item::Joint(i) => self.joints.get(i).map(|j| (j.item(), j.line)),
                Item::Force(i) => self.forces.get(i).map(|f| (f.item(), f.line)),
                _ => None,
            }
        };
        let (item, kind) = match e {
            BuildError::CapacityExceeded {
                capacity,
                needed,
                available,
            } => {
                // The kernel stops at the first item that does not fit: that item is needed - 1.
                let at = match capacity {
                    Capacity::Bodies => place(Item::Body(needed - 1)),
                    Capacity::Joints => place(Item::Joint(needed - 1)),
                    Capacity::Forces => place(Item::Force(needed - 1)),
                    Capacity::ConstraintRows => self.joint_at_row(needed).and_then(place),
                    _ => None,
                };
                let scene_needs = self.required_capacities().of(capacity).unwrap_or(needed);
                let kind = ErrorKind::Capacity {
                    capacity,
                    needed: scene_needs,
                    available,
                };
                (at, kind)
            }
            BuildError::InvalidMass { body, .. }
            | BuildError::InertiaNotPositiveDefinite { body }
            | BuildError::InertiaTriangleInequality { body } => {
                (place(Item::Body(body)), ErrorKind::Kernel(e))
            }
            BuildError::ZeroLengthAxis { item }
            | BuildError::UnknownBody { item, .. }
            | BuildError::UnknownNode { item, .. }
            | BuildError::SameBody { item }
            | BuildError::NonFinite { item }
            | BuildError::InvalidParameter { item, .. } => (place(item), ErrorKind::Kernel(e)),
        };
        let (item, line) = item.map_or((None, None), |(i, l)| (Some(i), Some(l)));
        self.source.error(line, item, kind)
    }

    /// The joint whose rows first reach `rows` rows in total.
    fn joint_at_row(&self, rows: usize) -> Option<Item> {
        let mut total = 0;
        self.joints
            .iter()
            .position(|j| {
                total += j.value.kind.rows();
                total >= rows
            })
            .map(Item::Joint)
    }
}
