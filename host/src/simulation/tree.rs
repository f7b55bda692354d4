//! A rigid system in joint coordinates: the kernel tree steps; a Cartesian mirror of the same
//! bodies, set from the tree's link states after every step, is what the recorders, sensors,
//! reactions and the viewer see (they read Cartesian bodies of any system the same way).

use super::kernel::KernelSystem;
use super::system::System;
use crate::compile::LinkBody;
use crate::storage::{RigidData, RigidModel, TreeModel};
use ferrodyn_kernel::math::Quat;
use ferrodyn_kernel::tree::link_states;
use ferrodyn_kernel::{Energy, KernelError};
use std::any::Any;

/// The tree with its integrator, and the Cartesian mirror of its bodies.
pub struct TreeSystem {
    tree: KernelSystem<TreeModel>,
    mirror: RigidModel,
    mirror_data: RigidData,
    bodies: Vec<LinkBody>,
}

impl TreeSystem {
    /// `tree` (with its data and integrator) moving the bodies of the rigid `mirror` as
    /// `bodies` says (one per link).
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
        };
        system.update_mirror();
        system
    }

    /// Sets every mirror body from its link's state. Quaternions keep the sign of the previous
    /// ones, so the written orientations are continuous in time.
    fn update_mirror(&mut self) {
        let states = link_states(&self.tree.model, &self.tree.data);
        for (state, on) in states.iter().zip(&self.bodies) {
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
        self.tree.step(dt)?;
        self.update_mirror();
        Ok(())
    }
    fn time(&self) -> f64 {
        self.tree.time()
    }
    fn energy(&self) -> Result<Energy<f64>, KernelError> {
        self.tree.energy()
    }
    fn state(&self) -> &[f64] {
        self.tree.state()
    }
    fn set_state(&mut self, state: &[f64]) -> Result<(), KernelError> {
        self.tree.set_state(state)?;
        self.update_mirror();
        Ok(())
    }
    fn rigid(&self) -> Option<(&RigidModel, &RigidData)> {
        Some((&self.mirror, &self.mirror_data))
    }
    fn rigid_mut(&mut self) -> Option<(&RigidModel, &mut RigidData)> {
        // The mirror holds the whole system (no forces reach the tree that the mirror lacks),
        // so it can be evaluated in place; the next step overwrites its state again.
        Some((&self.mirror, &mut self.mirror_data))
    }
    fn take_over(&mut self, old: &mut dyn System) -> bool {
        let Some(old) = old.as_any_mut().downcast_mut::<Self>() else {
            return false;
        };
        let taken = self.tree.take_over(&mut old.tree);
        if taken {
            std::mem::swap(&mut self.mirror_data, &mut old.mirror_data);
        }
        taken
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
