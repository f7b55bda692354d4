//! The mutable state of a coupled model: the coupled state vector, its rigid and flexible
//! mirrors, stages and the condensation's work vectors.

use super::model::{Attachment, Model};
use crate::ancf::NODE_COORDS;
use crate::math::{Mat3, Vec3};
use crate::rigid::MassOverride;
use crate::storage::{sized, Storage};
use crate::{flex, rigid, Real, STAGE_BUFFERS};

/// Work vectors over all flexible coordinates used by the condensation (6 T columns, 6 M·W
/// columns, and c, u, M c, M u).
pub(crate) const COLUMNS: usize = 16;

/// All mutable state of a coupled rigid–flexible simulation.
pub struct Data<R: Real, St: Storage> {
    pub(crate) rigid: rigid::Data<R, St>,
    pub(crate) flex: flex::Data<R, St>,
    pub(crate) y: St::State<R>,
    pub(crate) stages: [St::State<R>; STAGE_BUFFERS],
    pub(crate) columns: [St::Nodes<[R; NODE_COORDS]>; COLUMNS],
    pub(crate) mass_override: St::Bodies<MassOverride<R>>,
}

impl<R: Real, St: Storage> Clone for Data<R, St> {
    fn clone(&self) -> Self {
        Self {
            rigid: self.rigid.clone(),
            flex: self.flex.clone(),
            y: self.y.clone(),
            stages: self.stages.clone(),
            columns: self.columns.clone(),
            mass_override: self.mass_override.clone(),
        }
    }
}

impl<R: Real, St: Storage> core::fmt::Debug for Data<R, St> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("coupled::Data")
            .field("rigid", &self.rigid)
            .field("flex", &self.flex)
            .finish()
    }
}

impl<R: Real, St: Storage> Data<R, St> {
    /// The initial state of both parts, with the attached nodes following their bodies.
    pub fn new(model: &Model<R, St>) -> Self {
        Self::from_states(
            model,
            rigid::Data::new(&model.rigid),
            flex::Data::new(&model.flex),
        )
    }

    /// Coupled state from prepared rigid and flexible states (e.g. a body spinning and the
    /// flexible body in the matching rigid motion); attached nodes are then set from their body.
    pub fn from_states(model: &Model<R, St>, rigid: rigid::Data<R, St>, flex: flex::Data<R, St>) -> Self {
        let layout = model.layout();
        let (nb, nn) = (layout.bodies, layout.nodes);
        let len = layout.state_len();
        let mut data = Self {
            rigid,
            flex,
            y: sized(len, R::ZERO),
            stages: core::array::from_fn(|_| sized(len, R::ZERO)),
            columns: core::array::from_fn(|_| sized(nn, [R::ZERO; NODE_COORDS])),
            mass_override: sized(nb, None),
        };
        let (q, v) = data.rigid.state().split_at(7 * nb);
        let (e, ed) = data.flex.state().split_at(NODE_COORDS * nn);
        for (slot, value) in data.y.iter_mut().zip(q.iter().chain(e).chain(v).chain(ed)) {
            *slot = *value;
        }
        for a in model.attachments.iter() {
            layout.sync(&mut data.y, a);
        }
        data.mirror(layout, &model.flex);
        data
    }

    /// Simulation time.
    pub fn time(&self) -> R {
        self.rigid.time()
    }

    /// The clock's time and the rounding its compensated sum carries: with
    /// [`Data::resume_clock`], a saved run goes on bit for bit (state save and restore).
    pub fn clock_reading(&self) -> [R; 2] {
        self.rigid.clock_reading()
    }

    /// Moves the clock (of both parts, which step together) to a [`Data::clock_reading`];
    /// state and counters kept.
    pub fn resume_clock(&mut self, reading: [R; 2]) {
        self.rigid.resume_clock(reading);
        self.flex.resume_clock(reading);
    }

    /// The rigid part (its state mirrors the coupled state after every step).
    pub fn rigid(&self) -> &rigid::Data<R, St> {
        &self.rigid
    }

    /// The flexible part (its state mirrors the coupled state after every step).
    pub fn flex(&self) -> &flex::Data<R, St> {
        &self.flex
    }

    /// The coupled state `[rigid q | flexible e | rigid v | flexible ė]`.
    pub fn state(&self) -> &[R] {
        &self.y
    }

    /// Copies the coupled state into the rigid and flexible mirrors (the flexible part's
    /// displacements from the reference of `flex_model` too).
    pub(crate) fn mirror(&mut self, layout: Layout, flex_model: &flex::Model<R, St>) {
        let (nb, nn) = (layout.bodies, layout.nodes);
        let np = layout.positions();
        let y = &self.y;
        let rigid = self.rigid.state.as_flattened_mut();
        rigid[..7 * nb].copy_from_slice(&y[..7 * nb]);
        rigid[7 * nb..13 * nb].copy_from_slice(&y[np..np + 6 * nb]);
        let flex = self.flex.state.as_flattened_mut();
        flex[..NODE_COORDS * nn].copy_from_slice(&y[7 * nb..np]);
        flex[NODE_COORDS * nn..2 * NODE_COORDS * nn].copy_from_slice(&y[np + 6 * nb..2 * np - nb]);
        self.flex.take_up_state(flex_model);
    }
}

/// Sizes of the coupled state.
#[derive(Clone, Copy)]
pub(crate) struct Layout {
    pub bodies: usize,
    pub nodes: usize,
}

impl Layout {
    /// Length of the state: 13 per body + 24 per node.
    pub fn state_len(&self) -> usize {
        2 * self.positions() - self.bodies
    }
    pub fn positions(&self) -> usize {
        7 * self.bodies + NODE_COORDS * self.nodes
    }
    /// The flexible coordinates e and their rates ė in the state `y` (empty when `y` is short).
    pub fn flexible<'y, R>(&self, y: &'y [R]) -> (&'y [R], &'y [R]) {
        let n = NODE_COORDS * self.nodes;
        let (e0, v0) = self.node(0);
        (y.get(e0..e0 + n).unwrap_or(&[]), y.get(v0..v0 + n).unwrap_or(&[]))
    }
    /// Index of the first coordinate of `node` and of its rate.
    pub fn node(&self, node: usize) -> (usize, usize) {
        let e = 7 * self.bodies + NODE_COORDS * node;
        (e, self.positions() + 6 * self.bodies + NODE_COORDS * node)
    }
    /// Body pose and velocities from the state: (x, R, v, ω in body axes).
    pub fn body<R: Real>(&self, y: &[R], b: usize) -> (Vec3<R>, Mat3<R>, Vec3<R>, Vec3<R>) {
        let at = |i: usize| y.get(i).copied().unwrap_or(R::ZERO);
        let (q, v) = (7 * b, self.positions() + 6 * b);
        let quat = crate::math::Quat::new(at(q + 3), at(q + 4), at(q + 5), at(q + 6));
        let rot = quat.normalized().unwrap_or_default().to_matrix();
        let vec = |i: usize| Vec3::new(at(i), at(i + 1), at(i + 2));
        (vec(q), rot, vec(v), vec(v + 3))
    }
    /// Writes an attached node's coordinates and rates from its body's state.
    pub fn sync<R: Real>(&self, y: &mut [R], a: &Attachment<R>) {
        let (x, rot, v, w) = self.body(y, a.body);
        let (ei, vi) = self.node(a.node);
        // Vector `slot` of the node (0: r, 1..=3: gradients) at `start` (coordinates or rates),
        // written only where the attachment drives it.
        let mask = a.mask;
        let mut put = |start: usize, slot: usize, value: Vec3<R>| {
            let driven = mask & (0b111 << (3 * slot)) != 0;
            if let (true, Some(s)) = (driven, y.get_mut(start + 3 * slot..start + 3 * slot + 3)) {
                s.copy_from_slice(&value.to_array());
            }
        };
        put(ei, 0, x + rot.mul_vec(a.local_position));
        put(vi, 0, v + rot.mul_vec(w.cross(a.local_position)));
        for k in 0..3 {
            let g = a.local_axes.column(k);
            put(ei, 1 + k, rot.mul_vec(g));
            put(vi, 1 + k, rot.mul_vec(w.cross(g)));
        }
    }
}
