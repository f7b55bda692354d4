//! Rigid–flexible coupling: ANCF nodes attached to a rigid-body frame (a beam on a hub).
//!
//! An attached node's 12 coordinates follow the body: r = x + R s, ∂r/∂X_k = R g_k (s, g_k
//! fixed in the body). They are eliminated: with ė_a = T v_b and ë_a = T a_b + c, the flexible
//! equations M_ff ë_f + M_fa ë_a = Q_f give ë_f = u − W a_b (u = M_ff⁻¹(Q_f − M_fa c),
//! W = M_ff⁻¹ M_fa T), and the body sees the condensed mass and force
//!   M_eff = M_b + Tᵀ M_aa T − Tᵀ M_af W,   Q_eff = Q_b + Tᵀ (Q_a − M_aa c − M_af u),
//! which replace its 6×6 block in the rigid constraint solve. Exact (no penalty, no extra
//! multipliers); per evaluation 7 mass solves and 14 element passes. One body may carry the
//! attachments of a flexible body (two bodies would couple through M_ff⁻¹).
//!
//! State: `[rigid q | flexible e | rigid v | flexible ė]`; after every accepted step the
//! attached coordinates are set exactly from the (projected) body state.

use crate::ancf::NODE_COORDS;
use crate::data::{Data, BODY_STATE};
use crate::dynamics::{MassOverride, RigidSystem, DENSE6_DIAG, DENSE6_FIRST};
use crate::flex::FlexView;
use crate::flex::{Fixity, FlexData, FlexModel};
use crate::math::{Mat3, Vec3};
use crate::model::Model;
use crate::skyline::{self, SkylineLayout};
use crate::{
    BuildError, Capacity, Integrator, Item, KernelError, OdeSystem, Real, Stages, StepStats, STAGE_BUFFERS,
};

/// Work vectors over all flexible coordinates used by the condensation (6 T columns, 6 M·W
/// columns, and c, u, M c, M u).
const COLUMNS: usize = 16;

/// A flexible node attached to a rigid-body frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attachment<R> {
    /// Node of the flexible body (marked [`Fixity::Attached`] there).
    pub node: usize,
    /// Rigid body index.
    pub body: usize,
    /// Node position in body coordinates.
    local_position: Vec3<R>,
    /// The node's reference gradient vectors (the identity columns) in body coordinates.
    local_axes: Mat3<R>,
    /// Which of the node's 12 coordinates follow the body (bit c for coordinate c).
    mask: u16,
}

impl<R: Real> Attachment<R> {
    /// Where the node sits in body coordinates.
    pub fn local_position(&self) -> Vec3<R> {
        self.local_position
    }

    /// Attaches `node` to `body` as they are at t = 0 (node at its reference position, body at
    /// its initial pose).
    pub fn new<
        const B: usize,
        const J: usize,
        const F: usize,
        const C: usize,
        const S: usize,
        const N: usize,
        const E: usize,
        const SF: usize,
    >(
        rigid: &Model<R, B, J, F, C, S>,
        flex: &FlexModel<R, N, E, SF>,
        node: usize,
        body: usize,
    ) -> Result<Self, BuildError> {
        let item = Item::Node(node);
        let x = flex
            .reference(node)
            .ok_or(BuildError::UnknownNode { item, node })?;
        let b = rigid
            .bodies()
            .get(body)
            .ok_or(BuildError::UnknownBody { item, body })?;
        let fixity = flex.fixity(node);
        if !matches!(fixity, Fixity::Attached | Fixity::AttachedFace { .. }) {
            return Err(BuildError::InvalidParameter {
                item,
                reason: "an attached node must be marked Fixity::Attached or Fixity::AttachedFace",
            });
        }
        let rot = b
            .orientation
            .normalized()
            .unwrap_or_default()
            .to_matrix()
            .transpose();
        Ok(Self {
            node,
            body,
            local_position: rot.mul_vec(x - b.position),
            local_axes: rot,
            mask: fixity.mask(),
        })
    }
}

/// State of a coupled rigid–flexible simulation.
#[derive(Clone, Debug)]
pub struct CoupledData<
    R: Real,
    const B: usize,
    const C: usize,
    const S: usize,
    const N: usize,
    const SF: usize,
    const STATE: usize,
> {
    /// Rigid part (its state mirrors the coupled state after every step; use it for outputs).
    pub rigid: Data<R, B, C, S>,
    /// Flexible part (mirrors the coupled state likewise).
    pub flex: FlexData<R, N, SF>,
    y: [R; STATE],
    stages: [[R; STATE]; STAGE_BUFFERS],
    columns: [[[R; NODE_COORDS]; N]; COLUMNS],
    mass_override: [MassOverride<R>; B],
}

impl<
        R: Real,
        const B: usize,
        const C: usize,
        const S: usize,
        const N: usize,
        const SF: usize,
        const STATE: usize,
    > CoupledData<R, B, C, S, N, SF, STATE>
{
    /// Initial state of the two models with the attached nodes following their bodies.
    pub fn new<const J: usize, const F: usize, const E: usize>(
        rigid: &Model<R, B, J, F, C, S>,
        flex: &FlexModel<R, N, E, SF>,
        attachments: &[Attachment<R>],
    ) -> Result<Self, BuildError> {
        Self::from_states(Data::new(rigid), FlexData::new(flex), attachments)
    }

    /// Coupled state from prepared rigid and flexible states (e.g. a body spinning and the
    /// flexible body in the matching rigid motion); attached nodes are then set from their body.
    pub fn from_states(
        rigid: Data<R, B, C, S>,
        flex: FlexData<R, N, SF>,
        attachments: &[Attachment<R>],
    ) -> Result<Self, BuildError> {
        let (nb, nn) = (rigid.body_count, flex.node_count);
        let needed = BODY_STATE * nb + 2 * NODE_COORDS * nn;
        if needed > STATE {
            return Err(BuildError::CapacityExceeded {
                capacity: Capacity::StateLength,
                needed,
                available: STATE,
            });
        }
        if let Some(a) = attachments.iter().find(|a| a.body != attachments[0].body) {
            return Err(BuildError::InvalidParameter {
                item: Item::Body(a.body),
                reason: "all attachments of a flexible body must be on one rigid body",
            });
        }
        let mut data = Self {
            rigid,
            flex,
            y: [R::ZERO; STATE],
            stages: [[R::ZERO; STATE]; STAGE_BUFFERS],
            columns: [[[R::ZERO; NODE_COORDS]; N]; COLUMNS],
            mass_override: [None; B],
        };
        let (q, v) = data.rigid.state().split_at(7 * nb);
        let (e, ed) = data.flex.state().split_at(NODE_COORDS * nn);
        let np = q.len() + e.len();
        let y = &mut data.y;
        y[..q.len()].copy_from_slice(q);
        y[q.len()..np].copy_from_slice(e);
        y[np..np + v.len()].copy_from_slice(v);
        y[np + v.len()..needed].copy_from_slice(ed);
        let layout = Layout {
            bodies: nb,
            nodes: nn,
        };
        for a in attachments {
            layout.sync(&mut data.y[..needed], a);
        }
        data.mirror(layout);
        Ok(data)
    }

    /// Simulation time.
    pub fn time(&self) -> R {
        self.rigid.time()
    }

    /// Copies the coupled state into the rigid and flexible mirrors.
    fn mirror(&mut self, layout: Layout) {
        let (nb, nn) = (layout.bodies, layout.nodes);
        let np = 7 * nb + NODE_COORDS * nn;
        let y = &self.y;
        let rigid = self.rigid.state.as_flattened_mut();
        rigid[..7 * nb].copy_from_slice(&y[..7 * nb]);
        rigid[7 * nb..13 * nb].copy_from_slice(&y[np..np + 6 * nb]);
        let flex = self.flex.state.as_flattened_mut();
        flex[..NODE_COORDS * nn].copy_from_slice(&y[7 * nb..np]);
        flex[NODE_COORDS * nn..2 * NODE_COORDS * nn].copy_from_slice(&y[np + 6 * nb..2 * np - nb]);
    }
}

/// Sizes of the coupled state.
#[derive(Clone, Copy)]
struct Layout {
    bodies: usize,
    nodes: usize,
}

impl Layout {
    fn positions(&self) -> usize {
        7 * self.bodies + NODE_COORDS * self.nodes
    }
    /// Index of the first coordinate of `node` and of its rate.
    fn node(&self, node: usize) -> (usize, usize) {
        let e = 7 * self.bodies + NODE_COORDS * node;
        (e, self.positions() + 6 * self.bodies + NODE_COORDS * node)
    }
    /// Body pose and velocities from the state: (x, R, v, ω in body axes).
    fn body<R: Real>(&self, y: &[R], b: usize) -> (Vec3<R>, Mat3<R>, Vec3<R>, Vec3<R>) {
        let at = |i: usize| y.get(i).copied().unwrap_or(R::ZERO);
        let (q, v) = (7 * b, self.positions() + 6 * b);
        let quat = crate::math::Quat::new(at(q + 3), at(q + 4), at(q + 5), at(q + 6));
        let rot = quat.normalized().unwrap_or_default().to_matrix();
        let vec = |i: usize| Vec3::new(at(i), at(i + 1), at(i + 2));
        (vec(q), rot, vec(v), vec(v + 3))
    }
    /// Writes an attached node's coordinates and rates from its body's state.
    fn sync<R: Real>(&self, y: &mut [R], a: &Attachment<R>) {
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

/// The coupled system as an ODE.
struct CoupledSystem<'a, R> {
    rigid: RigidSystem<'a, R>,
    flex: FlexView<'a, R>,
    force: &'a mut [R],
    free: &'a mut [R],
    columns: [&'a mut [R]; COLUMNS],
    attachments: &'a [Attachment<R>],
    layout: Layout,
}

fn dot<R: Real>(a: &[R], b: &[R]) -> R {
    a.iter().zip(b).fold(R::ZERO, |s, (x, y)| s + *x * *y)
}

impl<R: Real> CoupledSystem<'_, R> {
    /// Condenses the attached coordinates into the carrying body's mass block and wrench;
    /// leaves u (column 13) and W (columns 6..12, as free vectors) for the accelerations.
    fn condense(&mut self, y: &[R]) -> Result<Option<usize>, KernelError> {
        let Some(body) = self.attachments.first().map(|a| a.body) else {
            return Ok(None);
        };
        let (_, rot, _, w) = self.layout.body(y, body);
        let nn = self.layout.nodes;
        let n = NODE_COORDS * nn;
        let [t0, t1, t2, t3, t4, t5, w0, w1, w2, w3, w4, w5, c, u, mc, mu] = &mut self.columns;
        let (c, u, mc, mu) = (&mut **c, &mut **u, &mut **mc, &mut **mu);
        let mut t_cols: [&mut [R]; 6] = [&mut **t0, &mut **t1, &mut **t2, &mut **t3, &mut **t4, &mut **t5];
        let mut w_cols: [&mut [R]; 6] = [&mut **w0, &mut **w1, &mut **w2, &mut **w3, &mut **w4, &mut **w5];
        for col in t_cols.iter_mut() {
            col[..n].iter_mut().for_each(|x| *x = R::ZERO);
        }
        c[..n].iter_mut().for_each(|x| *x = R::ZERO);
        // T (12 rows per attached node × 6 body velocities) and c, column by column.
        for a in self.attachments {
            let base = NODE_COORDS * a.node;
            let mask = a.mask;
            let set = |col: &mut [R], row: usize, v: Vec3<R>| {
                let driven = mask & (0b111 << row) != 0;
                if let (true, Some(s)) = (driven, col.get_mut(base + row..base + row + 3)) {
                    s.copy_from_slice(&v.to_array());
                }
            };
            let unit = |j: usize| [Vec3::X, Vec3::Y, Vec3::Z][j];
            for j in 0..3 {
                set(t_cols[j], 0, unit(j));
                // ṙ = v + R(ω × s) = v − R[s]× ω; ġ_k = −R[g_k]× ω.
                set(t_cols[3 + j], 0, -rot.mul_vec(a.local_position.cross(unit(j))));
                for k in 0..3 {
                    set(
                        t_cols[3 + j],
                        3 + 3 * k,
                        -rot.mul_vec(a.local_axes.column(k).cross(unit(j))),
                    );
                }
            }
            set(c, 0, rot.mul_vec(w.cross(w.cross(a.local_position))));
            for k in 0..3 {
                let g = a.local_axes.column(k);
                set(c, 3 + 3 * k, rot.mul_vec(w.cross(w.cross(g))));
            }
        }
        // M T (into the W columns for now) and M c.
        let mut m_eff = [[R::ZERO; 6]; 6];
        for j in 0..6 {
            self.flex
                .mass_times_near(self.attachments, &t_cols[j][..n], &mut w_cols[j][..n]);
            for i in 0..6 {
                m_eff[i][j] += dot(&t_cols[i][..n], &w_cols[j][..n]);
            }
        }
        self.flex.mass_times_near(self.attachments, &c[..n], &mut mc[..n]);
        // u = M_ff⁻¹ (Q_f − (M c)_f) and W_j = M_ff⁻¹ (M T_j)_f, kept as full vectors.
        for (ui, (q, m)) in u[..n].iter_mut().zip(self.force.iter().zip(mc[..n].iter())) {
            *ui = *q - *m;
        }
        for col in w_cols.iter_mut().map(|c| &mut **c).chain([&mut *u]) {
            self.flex.gather_free(&col[..n], self.free);
            self.flex.solve_mass(self.free);
            self.flex.scatter_free(self.free, &mut col[..n], R::ZERO);
        }
        // M_eff −= Tᵀ M W (the free part of M applied to W: W is zero off the free coordinates).
        for j in 0..6 {
            self.flex
                .mass_times_near(self.attachments, &w_cols[j][..n], &mut mu[..n]);
            for i in 0..6 {
                m_eff[i][j] -= dot(&t_cols[i][..n], &mu[..n]);
            }
        }
        self.flex.mass_times_near(self.attachments, &u[..n], &mut mu[..n]);
        // Q_eff = Tᵀ (Q − M c − M u) over the attached coordinates (T is zero elsewhere).
        let mut q_add = [R::ZERO; 6];
        for (i, qa) in q_add.iter_mut().enumerate() {
            for k in 0..n {
                *qa += t_cols[i][k] * (self.force[k] - mc[k] - mu[k]);
            }
        }
        // The body's own block, then the condensed one, factorized for the rigid solve.
        let mp = self
            .rigid
            .model
            .mass
            .get(body)
            .copied()
            .ok_or(KernelError::StateSizeMismatch)?;
        let mut packed = [R::ZERO; 21];
        let own = body_mass_matrix(&mp, &rot);
        for r in 0..6 {
            for col in 0..=r {
                packed[DENSE6_DIAG[r] + col - r] = own[r][col] + R::HALF * (m_eff[r][col] + m_eff[col][r]);
            }
        }
        let layout = SkylineLayout {
            first: &DENSE6_FIRST,
            diag: &DENSE6_DIAG,
        };
        skyline::factorize(&layout, &mut packed).map_err(|_| KernelError::NonFinite {
            item: Item::Body(body),
            time: 0.0,
        })?;
        if let Some(slot) = self.rigid.mass_override.get_mut(body) {
            *slot = Some(packed);
        }
        if let Some(wr) = self.rigid.work.wrench.get_mut(body) {
            wr.force += Vec3::new(q_add[0], q_add[1], q_add[2]);
            wr.torque += Vec3::new(q_add[3], q_add[4], q_add[5]);
        }
        Ok(Some(body))
    }
}

/// The 6×6 mass block of a rigid body in (origin velocity global, ω body) coordinates:
/// [[m I, −m R[c]×], [m [c]× Rᵀ, J_o]].
fn body_mass_matrix<R: Real>(mp: &crate::MassProperties<R>, rot: &Mat3<R>) -> [[R; 6]; 6] {
    let mut m = [[R::ZERO; 6]; 6];
    let rc = rot.mul_mat(&Mat3::skew(mp.cg)).scale(mp.mass);
    for i in 0..3 {
        m[i][i] = mp.mass;
        for j in 0..3 {
            m[i][3 + j] = -rc.m[i][j];
            m[3 + j][i] = -rc.m[i][j];
            m[3 + i][3 + j] = mp.inertia_origin.m[i][j];
        }
    }
    m
}

impl<R: Real> OdeSystem<R> for CoupledSystem<'_, R> {
    fn state_len(&self) -> usize {
        2 * self.layout.positions() - self.layout.bodies
    }
    fn position_len(&self) -> usize {
        self.layout.positions()
    }
    fn derivative(&mut self, t: R, y: &[R], dydt: &mut [R]) -> Result<(), KernelError> {
        let n = NODE_COORDS * self.layout.nodes;
        let (e0, v0) = self.layout.node(0);
        let (e, ed) = (y.get(e0..e0 + n).unwrap_or(&[]), y.get(v0..v0 + n).unwrap_or(&[]));
        self.rigid.kinematics(t, y)?;
        self.rigid.applied_wrenches(t, y);
        self.flex.generalized_force(t, e, ed, self.force, R::ONE, true)?;
        let body = self.condense(y)?;
        self.rigid.solve_accelerations(t, y)?;
        self.rigid.write_derivative(y, dydt);
        // Flexible accelerations: ë_f = u − W a_b, ë_a = T a_b + c; fixed coordinates stay.
        let a_b = body
            .and_then(|b| self.rigid.work.accel.get(b).copied())
            .unwrap_or([R::ZERO; 6]);
        let [t0, t1, t2, t3, t4, t5, w0, w1, w2, w3, w4, w5, c, u, ..] = &self.columns;
        let (t_cols, w_cols) = ([t0, t1, t2, t3, t4, t5], [w0, w1, w2, w3, w4, w5]);
        if let Some(de) = dydt.get_mut(e0..e0 + n) {
            de.copy_from_slice(&ed[..n.min(ed.len())]);
        }
        if let Some(dv) = dydt.get_mut(v0..v0 + n) {
            for (k, out) in dv.iter_mut().enumerate() {
                let mut value = u[k] + c[k];
                for j in 0..6 {
                    value += (t_cols[j][k] - w_cols[j][k]) * a_b[j];
                }
                *out = value;
            }
        }
        Ok(())
    }
    fn advance_positions(&mut self, y: &mut [R], h: R) {
        self.rigid.advance_body_positions(y, h);
        let (e0, v0) = self.layout.node(0);
        let n = NODE_COORDS * self.layout.nodes;
        for k in 0..n {
            let rate = y.get(v0 + k).copied().unwrap_or(R::ZERO);
            if let Some(x) = y.get_mut(e0 + k) {
                *x += h * rate;
            }
        }
    }
    fn accept_step(&mut self, t: R, y: &mut [R]) -> Result<u32, KernelError> {
        let iterations = self.rigid.accept_bodies(t, y)?;
        for a in self.attachments {
            self.layout.sync(y, a);
        }
        let (e0, _) = self.layout.node(0);
        if let Some(i) = y.get(e0..).and_then(|s| s.iter().position(|x| !x.is_finite())) {
            let node = (i % (NODE_COORDS * self.layout.nodes).max(1)) / NODE_COORDS;
            return Err(KernelError::NonFinite {
                item: Item::Node(node),
                time: t.to_f64(),
            });
        }
        Ok(iterations)
    }
}

/// Advances a rigid model and a flexible body joined by `attachments` by `dt`.
#[allow(clippy::too_many_arguments)]
pub fn step_coupled<
    R: Real,
    I: Integrator<R>,
    const B: usize,
    const J: usize,
    const F: usize,
    const C: usize,
    const S: usize,
    const N: usize,
    const E: usize,
    const SF: usize,
    const STATE: usize,
>(
    rigid: &Model<R, B, J, F, C, S>,
    flex: &FlexModel<R, N, E, SF>,
    attachments: &[Attachment<R>],
    data: &mut CoupledData<R, B, C, S, N, SF, STATE>,
    integrator: &mut I,
    dt: R,
) -> Result<StepStats, KernelError> {
    let layout = Layout {
        bodies: rigid.bodies().len(),
        nodes: flex.node_count(),
    };
    let len = 2 * layout.positions() - layout.bodies;
    let stats = {
        let CoupledData {
            rigid: rd,
            flex: fd,
            y,
            stages,
            columns,
            mass_override,
        } = data;
        let k = stages.each_mut().map(|s| &mut s[..len]);
        let mut rigid_system = RigidSystem::new(rigid.view(), rd.work.view());
        rigid_system.v_base = layout.positions();
        rigid_system.mass_override = &mut mass_override[..];
        let n = NODE_COORDS * layout.nodes;
        let mut system = CoupledSystem {
            rigid: rigid_system,
            flex: flex.view(),
            force: &mut fd.force.as_flattened_mut()[..n],
            free: &mut fd.free.as_flattened_mut()[..],
            columns: columns.each_mut().map(|c| &mut c.as_flattened_mut()[..]),
            attachments,
            layout,
        };
        rd.clock
            .step(integrator, &mut system, &mut y[..len], &mut Stages { k }, dt)?
    };
    data.flex.clock = data.rigid.clock;
    data.mirror(layout);
    Ok(stats)
}
