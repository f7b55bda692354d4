//! Mutable state of a flexible body: coordinates, their rates, stages and workspace.

use super::model::FlexModel;
use crate::ancf::NODE_COORDS;
use crate::math::Vec3;
use crate::{Real, StepStats, STAGE_BUFFERS};

/// Reals per node in the state vector: 12 coordinates + 12 rates.
pub(crate) const NODE_STATE: usize = 2 * NODE_COORDS;

/// All mutable state of a flexible-body simulation, sized by the model's capacities.
#[derive(Clone, Debug)]
pub struct FlexData<R, const NODES: usize, const SKYLINE: usize> {
    pub(crate) clock: crate::Clock<R>,
    pub(crate) node_count: usize,
    /// Flat state `[e of all nodes (12 each) | ė of all nodes (12 each)]`.
    pub(crate) state: [[R; NODE_STATE]; NODES],
    pub(crate) stages: [[[R; NODE_STATE]; NODES]; STAGE_BUFFERS],
    /// Generalized forces per node coordinate (workspace).
    pub(crate) force: [[R; NODE_COORDS]; NODES],
    /// Free-coordinate vector (workspace for the mass and stiffness solves).
    pub(crate) free: [[R; NODE_COORDS]; NODES],
    /// Tangent stiffness over the free coordinates (skyline; statics and stability estimate).
    pub(crate) stiffness: [R; SKYLINE],
}

impl<R: Real, const N: usize, const S: usize> FlexData<R, N, S> {
    /// Fresh data in the undeformed reference state, at rest, at t = 0.
    pub fn new<const E: usize>(model: &FlexModel<R, N, E, S>) -> Self {
        let mut data = Self {
            clock: crate::Clock::new(),
            node_count: model.nodes.len(),
            state: [[R::ZERO; NODE_STATE]; N],
            stages: [[[R::ZERO; NODE_STATE]; N]; STAGE_BUFFERS],
            force: [[R::ZERO; NODE_COORDS]; N],
            free: [[R::ZERO; NODE_COORDS]; N],
            stiffness: [R::ZERO; S],
        };
        for (i, x) in model.nodes.iter().enumerate() {
            let e = data.coordinates_mut(i);
            e[..3].copy_from_slice(&x.to_array());
            e[3] = R::ONE;
            e[7] = R::ONE;
            e[11] = R::ONE;
        }
        data
    }
    /// Simulation time.
    pub fn time(&self) -> R {
        self.clock.time
    }
    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.clock.steps
    }
    /// Counters summed over all steps.
    pub fn total_stats(&self) -> StepStats {
        self.clock.total
    }
    /// The flat state `[e | ė]`.
    pub fn state(&self) -> &[R] {
        &self.state.as_flattened()[..NODE_STATE * self.node_count]
    }
    /// The 12 coordinates of a node (r, ∂r/∂X, ∂r/∂Y, ∂r/∂Z); empty for an unknown node.
    pub fn coordinates(&self, node: usize) -> &[R] {
        let i = NODE_COORDS * node;
        self.state
            .as_flattened()
            .get(i..i + NODE_COORDS)
            .filter(|_| node < self.node_count)
            .unwrap_or(&[])
    }
    /// Mutable access to a node's 12 coordinates (set an initial deformation).
    pub fn coordinates_mut(&mut self, node: usize) -> &mut [R] {
        let i = NODE_COORDS * node;
        let n = self.node_count;
        self.state
            .as_flattened_mut()
            .get_mut(i..i + NODE_COORDS)
            .filter(|_| node < n)
            .unwrap_or(&mut [])
    }
    /// The 12 coordinate rates of a node.
    pub fn rates(&self, node: usize) -> &[R] {
        let i = NODE_COORDS * (self.node_count + node);
        self.state
            .as_flattened()
            .get(i..i + NODE_COORDS)
            .filter(|_| node < self.node_count)
            .unwrap_or(&[])
    }
    /// Mutable access to a node's 12 coordinate rates (set an initial velocity field).
    pub fn rates_mut(&mut self, node: usize) -> &mut [R] {
        let i = NODE_COORDS * (self.node_count + node);
        let n = self.node_count;
        self.state
            .as_flattened_mut()
            .get_mut(i..i + NODE_COORDS)
            .filter(|_| node < n)
            .unwrap_or(&mut [])
    }
    /// Current position of a node (zero for an unknown node).
    pub fn position(&self, node: usize) -> Vec3<R> {
        match self.coordinates(node) {
            [x, y, z, ..] => Vec3::new(*x, *y, *z),
            _ => Vec3::ZERO,
        }
    }
    /// Current velocity of a node.
    pub fn velocity(&self, node: usize) -> Vec3<R> {
        match self.rates(node) {
            [x, y, z, ..] => Vec3::new(*x, *y, *z),
            _ => Vec3::ZERO,
        }
    }
    /// Sets the state to the rigid motion r = R·X + t of the reference (gradients: the columns
    /// of R), moving with velocity v + ω × (r − t) (all global).
    pub fn set_rigid_motion<const E: usize>(
        &mut self,
        model: &FlexModel<R, N, E, S>,
        rotation: crate::math::Mat3<R>,
        translation: Vec3<R>,
        velocity: Vec3<R>,
        omega: Vec3<R>,
    ) {
        for (i, x) in model.nodes.iter().enumerate() {
            let r = rotation.mul_vec(*x) + translation;
            let mut e = [R::ZERO; NODE_COORDS];
            let mut ed = [R::ZERO; NODE_COORDS];
            e[..3].copy_from_slice(&r.to_array());
            ed[..3].copy_from_slice(&(velocity + omega.cross(r - translation)).to_array());
            for k in 0..3 {
                let g = rotation.column(k);
                e[3 + 3 * k..6 + 3 * k].copy_from_slice(&g.to_array());
                ed[3 + 3 * k..6 + 3 * k].copy_from_slice(&omega.cross(g).to_array());
            }
            self.coordinates_mut(i).copy_from_slice(&e);
            self.rates_mut(i).copy_from_slice(&ed);
        }
    }
}
