//! The coupled model as an ODE: the condensation of the attached coordinates into the carrying
//! body's mass block (see the module documentation), and its [`Dynamics`] implementation.

use super::data::{Data, Layout, COLUMNS};
use super::model::{Attachment, Model};
use crate::ancf::NODE_COORDS;
use crate::dynamics::check_state;
use crate::flex::FlexView;
use crate::math::skyline::{self, SkylineLayout};
use crate::math::Vec3;
use crate::rigid::{RigidSystem, DENSE6_DIAG, DENSE6_FIRST};
use crate::storage::Storage;
use crate::{
    Dynamics, Energy, ExternalForces, ExternalLoads, Integrator, Item, KernelError, OdeSystem, Real, Stages,
    StepStats,
};

/// The coupled system as an ODE.
struct CoupledSystem<'a, R> {
    rigid: RigidSystem<'a, R>,
    flex: FlexView<'a, R>,
    force: &'a mut [R],
    free: &'a mut [R],
    columns: [&'a mut [R]; COLUMNS],
    attachments: &'a [Attachment<R>],
    layout: Layout,
    /// Caller-supplied forces on the bodies and nodes (None: none).
    external: Option<&'a mut dyn ExternalForces<R>>,
}

fn dot<R: Real>(a: &[R], b: &[R]) -> R {
    a.iter().zip(b).fold(R::ZERO, |s, (x, y)| s + *x * *y)
}

impl<R: Real> CoupledSystem<'_, R> {
    /// Condenses the attached coordinates into the carrying body's mass block and wrench;
    /// leaves u (column 13) and W (columns 6..12, as free vectors) for the accelerations.
    fn condense(&mut self, y: &[R]) -> Result<Option<usize>, KernelError> {
        let Some(body) = self.attachments.first().map(|a| a.body) else {
            // A free body: u = M_ff⁻¹ Q_f (T, W and c stay zero).
            let n = NODE_COORDS * self.layout.nodes;
            let u = &mut *self.columns[13];
            for (ui, q) in u[..n].iter_mut().zip(self.force.iter()) {
                *ui = *q;
            }
            self.flex.gather_free(&u[..n], self.free);
            self.flex.solve_mass(self.free);
            self.flex.scatter_free(self.free, &mut u[..n], R::ZERO);
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
        let own = mp.matrix(&rot);
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

impl<R: Real> OdeSystem<R> for CoupledSystem<'_, R> {
    fn state_len(&self) -> usize {
        self.layout.state_len()
    }
    fn position_len(&self) -> usize {
        self.layout.positions()
    }
    fn derivative(&mut self, t: R, y: &[R], dydt: &mut [R]) -> Result<(), KernelError> {
        let n = NODE_COORDS * self.layout.nodes;
        let (e0, v0) = self.layout.node(0);
        let (e, ed) = self.layout.flexible(y);
        self.rigid.kinematics(t, y)?;
        self.rigid.applied_wrenches(t, y);
        self.flex.generalized_force(t, e, ed, self.force, R::ONE, true)?;
        if let Some(external) = self.external.as_deref_mut() {
            let work = &mut self.rigid.work;
            let mut loads =
                ExternalLoads::bodies(&*work.sides, &mut *work.wrench).with_nodes(e, ed, &mut *self.force);
            external.apply(t, &mut loads);
        }
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

/// State `[rigid q (7 per body) | flexible e (12 per node) | rigid v (6 per body) | flexible ė
/// (12 per node)]`. A step never allocates, never panics; on error the state is left at the
/// start of the step. External forces act on the bodies and the nodes in one call.
impl<R: Real, St: Storage> Dynamics<R> for Model<R, St> {
    type Data = Data<R, St>;

    fn new_data(&self) -> Data<R, St> {
        Data::new(self)
    }

    fn step_with<I: Integrator<R>, E: ExternalForces<R>>(
        &self,
        data: &mut Data<R, St>,
        integrator: &mut I,
        dt: R,
        external: &mut E,
    ) -> Result<StepStats, KernelError> {
        let stats = step_coupled(self, data, integrator, dt, Some(external))?;
        self.accept(data, external)?;
        Ok(stats)
    }

    fn accept<E: ExternalForces<R>>(
        &self,
        data: &mut Data<R, St>,
        external: &mut E,
    ) -> Result<(), KernelError> {
        let layout = self.layout();
        let t = data.time();
        let Data { rigid, flex, y, .. } = data;
        let mut system = rigid_system(self, &mut rigid.work, layout);
        system.kinematics(t, y)?;
        let (e, ed) = layout.flexible(y);
        let work = &mut system.work;
        let force = flex.force.as_flattened_mut();
        external.accept(
            t,
            &ExternalLoads::bodies(&*work.sides, &mut *work.wrench).with_nodes(e, ed, force),
        );
        Ok(())
    }

    fn step<I: Integrator<R>>(
        &self,
        data: &mut Data<R, St>,
        integrator: &mut I,
        dt: R,
    ) -> Result<StepStats, KernelError> {
        step_coupled(self, data, integrator, dt, None)
    }

    fn time(&self, data: &Data<R, St>) -> R {
        data.time()
    }

    fn energy(&self, data: &Data<R, St>) -> Result<Energy<R>, KernelError> {
        let r = crate::rigid::energy(&self.rigid, &data.rigid);
        let f = crate::flex::energy(&self.flex, &data.flex)?;
        Ok(Energy {
            kinetic: r.kinetic + f.kinetic,
            potential: r.potential + f.potential,
            strain: f.strain,
        })
    }

    fn state<'d>(&self, data: &'d Data<R, St>) -> &'d [R] {
        data.state()
    }

    fn set_state(&self, data: &mut Data<R, St>, state: &[R]) -> Result<(), KernelError> {
        let layout = self.layout();
        let (nb, np) = (layout.bodies, layout.positions());
        // Which item position k of the state belongs to.
        let item = |k: usize| {
            let (k, positions) = if k < np { (k, true) } else { (k - np, false) };
            let per_body = if positions { 7 } else { 6 };
            if k < per_body * nb {
                Item::Body(k / per_body)
            } else {
                Item::Node((k - per_body * nb) / NODE_COORDS)
            }
        };
        check_state(state, layout.state_len(), data.time(), item)?;
        data.y.copy_from_slice(state);
        data.mirror(layout, &self.flex);
        Ok(())
    }
}

/// Advances the coupled state by `dt`, with `external` forces when given, and mirrors it into
/// the rigid and flexible parts.
fn step_coupled<R: Real, St: Storage, I: Integrator<R>>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
    integrator: &mut I,
    dt: R,
    external: Option<&mut dyn ExternalForces<R>>,
) -> Result<StepStats, KernelError> {
    let layout = model.layout();
    let stats = {
        let Data {
            rigid: rd,
            flex: fd,
            y,
            stages,
            columns,
            mass_override,
        } = data;
        let k = stages.each_mut().map(|s| &mut s[..]);
        // A reborrow for the length of this step only.
        let external = external.map(|e| e as &mut dyn ExternalForces<R>);
        let mut rigid_system = rigid_system(model, &mut rd.work, layout);
        rigid_system.mass_override = &mut mass_override[..];
        let mut system = CoupledSystem {
            rigid: rigid_system,
            flex: model.flex.view(),
            force: fd.force.as_flattened_mut(),
            free: fd.free.as_flattened_mut(),
            columns: columns.each_mut().map(|c| c.as_flattened_mut()),
            attachments: &model.attachments,
            layout,
            external,
        };
        rd.clock.step(integrator, &mut system, y, &mut Stages { k }, dt)?
    };
    data.flex.clock = data.rigid.clock;
    data.mirror(layout, &model.flex);
    Ok(stats)
}

/// The rigid part's dynamics over the coupled state, whose body velocities follow all positions.
fn rigid_system<'a, R: Real, St: Storage>(
    model: &'a Model<R, St>,
    work: &'a mut crate::rigid::Work<R, St>,
    layout: Layout,
) -> RigidSystem<'a, R> {
    let mut system = RigidSystem::new(model.rigid.view(), work.view());
    system.v_base = layout.positions();
    system
}
