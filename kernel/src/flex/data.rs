//! Mutable state of a flexible body: coordinates, their rates, stages and workspace.

use super::model::Model;
use crate::ancf::NODE_COORDS;
use crate::math::Vec3;
use crate::storage::{resize, List, Storage};
use crate::{Real, StepStats, STAGE_BUFFERS};

/// Reals per node in the state vector: 12 coordinates + 12 rates.
pub(crate) const NODE_STATE: usize = 2 * NODE_COORDS;

/// All mutable state of a flexible-body simulation, kept in the storage `St` of its model.
pub struct Data<R: Real, St: Storage> {
    pub(crate) clock: crate::Clock<R>,
    pub(crate) node_count: usize,
    /// Flat state `[e of all nodes (12 each) | ė of all nodes (12 each)]`: what the API shows,
    /// formed from `displacement` after every step.
    pub(crate) state: St::Nodes<[R; NODE_STATE]>,
    /// What the integrators advance: `[u | u̇]` with u = e − e_ref (r − X, gradients − I). In
    /// f32 the coordinates of a node at |X| would be rounded to ε₃₂|X| every stage, a strain
    /// of ε₃₂|X|/h; the displacements are rounded relative to themselves.
    pub(crate) displacement: St::Nodes<[R; NODE_STATE]>,
    /// The rounding the displacements u carry (f32 only, zero in f64): u + carry is the
    /// displacement to twice the precision. Rounding u to f32 after every step, ε₃₂|u|, would
    /// excite the stiffest modes by as much every step and let it add up.
    pub(crate) carry: St::Nodes<[R; NODE_COORDS]>,
    pub(crate) stages: [St::Nodes<[R; NODE_STATE]>; STAGE_BUFFERS],
    /// Generalized forces per node coordinate (workspace).
    pub(crate) force: St::Nodes<[R; NODE_COORDS]>,
    /// Free-coordinate vector (workspace for the mass and stiffness solves).
    pub(crate) free: St::Nodes<[R; NODE_COORDS]>,
    /// Tangent stiffness over the free coordinates (skyline; statics and stability estimate).
    pub(crate) stiffness: St::Profile<R>,
}

impl<R: Real, St: Storage> Clone for Data<R, St> {
    fn clone(&self) -> Self {
        Self {
            clock: self.clock,
            node_count: self.node_count,
            state: self.state.clone(),
            displacement: self.displacement.clone(),
            carry: self.carry.clone(),
            stages: self.stages.clone(),
            force: self.force.clone(),
            free: self.free.clone(),
            stiffness: self.stiffness.clone(),
        }
    }
}

impl<R: Real, St: Storage> core::fmt::Debug for Data<R, St> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("flex::Data")
            .field("time", &self.clock.time)
            .field("steps", &self.clock.steps)
            .field("nodes", &self.node_count)
            .finish()
    }
}

impl<R: Real, St: Storage> Data<R, St> {
    /// Fresh data in the undeformed reference state, at rest, at t = 0.
    pub fn new(model: &Model<R, St>) -> Self {
        let mut data = Self::empty();
        data.reset(model);
        data
    }

    /// Fresh data for `model` made in `slot` and borrowed from there: on a microcontroller
    /// `slot` is a `static` (or part of one), so the data never passes through the stack.
    pub fn new_in<'s>(slot: &'s mut Option<Self>, model: &Model<R, St>) -> &'s mut Self {
        let data = slot.insert(Self::empty());
        data.reset(model);
        data
    }

    /// Makes this the fresh data of `model` (reference state, at rest, t = 0), in place.
    pub fn reset(&mut self, model: &Model<R, St>) {
        let n = model.nodes.len();
        self.clock = crate::Clock::new();
        self.node_count = n;
        resize(&mut self.state, n, [R::ZERO; NODE_STATE]);
        resize(&mut self.displacement, n, [R::ZERO; NODE_STATE]);
        resize(&mut self.carry, n, [R::ZERO; NODE_COORDS]);
        for stage in &mut self.stages {
            resize(stage, n, [R::ZERO; NODE_STATE]);
        }
        resize(&mut self.force, n, [R::ZERO; NODE_COORDS]);
        resize(&mut self.free, n, [R::ZERO; NODE_COORDS]);
        resize(&mut self.stiffness, model.mass_factor.len(), R::ZERO);
        let n = NODE_COORDS * self.node_count;
        model.reference_coordinates(&mut self.state.as_flattened_mut()[..n]);
    }

    /// Data of no nodes (lists empty: writing it copies no buffer).
    fn empty() -> Self {
        Self {
            clock: crate::Clock::new(),
            node_count: 0,
            state: List::empty(),
            displacement: List::empty(),
            carry: List::empty(),
            stages: core::array::from_fn(|_| List::empty()),
            force: List::empty(),
            free: List::empty(),
            stiffness: List::empty(),
        }
    }
    /// Simulation time.
    pub fn time(&self) -> R {
        self.clock.time
    }
    /// The clock's time and the rounding its compensated sum carries: with
    /// [`Data::resume_clock`], a saved run goes on bit for bit (state save and restore).
    pub fn clock_reading(&self) -> [R; 2] {
        self.clock.reading()
    }
    /// Moves the clock to a [`Data::clock_reading`]; state and counters kept.
    pub fn resume_clock(&mut self, reading: [R; 2]) {
        self.clock.resume(reading);
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
    /// What the integrators advance: `[u | u̇]`, u = e − e_ref the displacements from the
    /// reference (12 per node: r − X, ∂r/∂X − (1, 0, 0), ∂r/∂Y − (0, 1, 0), ∂r/∂Z − (0, 0, 1)),
    /// as of the last step or reset; [`Data::state`] shows e = e_ref + u formed from it.
    pub fn displacements(&self) -> &[R] {
        &self.displacement.as_flattened()[..NODE_STATE * self.node_count]
    }
    /// The rounding the position part of [`Data::displacements`] carries (12 per node; zero in
    /// f64, where the sum is plain): with [`Data::resume_carry`] after
    /// [`Data::set_displacements`], a saved f32 run goes on bit for bit.
    pub fn carry(&self) -> &[R] {
        &self.carry.as_flattened()[..NODE_COORDS * self.node_count]
    }
    /// Sets what [`Data::carry`] gives (call after [`Data::set_displacements`], which clears
    /// it); on error nothing changes.
    pub fn resume_carry(&mut self, values: &[R]) -> Result<(), crate::KernelError> {
        let n = NODE_COORDS * self.node_count;
        crate::dynamics::check_state(values, n, self.time(), |k| crate::Item::Node(k / NODE_COORDS))?;
        let carry = self.carry.as_flattened_mut().get_mut(..n);
        carry
            .ok_or(crate::KernelError::StateSizeMismatch)?
            .copy_from_slice(values);
        Ok(())
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
    pub fn set_rigid_motion(
        &mut self,
        model: &Model<R, St>,
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
