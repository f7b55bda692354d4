//! The analytic iteration matrix of an implicit step on a tree in joint coordinates
//! (J = I + Π M⁻¹(c_v D + c_q K), [`super::tangent`]), built from the tree's structure as
//! Chrono and Exudyn build theirs:
//!
//! - M(q): the composite-rigid-body mass matrix the loop rows already factor
//!   ([`ferrodyn_kernel::tree::mass_matrix_at`]); Π: the loop and coordinate rows' constrained
//!   response with the rows the dynamics keeps ([`ferrodyn_kernel::tree::constrain_columns`]).
//! - Joint terms, diagonal: spring stiffness and damping, a joint limit's stiffness and
//!   damping while its end stop pushes, a position servo's kp and kd, a velocity servo's kv.
//! - Spring-dampers between links or a link and the ground: Jᵀ W J, J the relative Jacobian of
//!   the two attachment points ([`ferrodyn_kernel::tree::point_jacobian`]), W = k uuᵀ +
//!   (T/l)(I − uuᵀ) in stiffness, c uuᵀ in damping (u the unit line, T the tension).
//! - Contact on links: the same Jᵀ W J at every contact point of the contacts' last
//!   evaluation (the Newton iterate), W the Cartesian contact tangent
//!   ([`crate::contact::node::node_response`]: ∂F_n/∂δ, ∂F_n/∂δ̇ along the normal and the
//!   regularized friction's damping across the slip).
//!
//! Left out (modified Newton, see [`super::tangent`]): velocity products, ∂M/∂q v̇, gravity's
//! ∂/∂q, the rows' curvature, the levers' rotation under a force, point forces and torques
//! (constant in q and v), tendons, and contact v₀ that still follows the rate.

use super::tangent::Tangent;
use crate::contact::node::node_response;
use crate::contact::ContactWorld;
use crate::simulation::ContactModel;
use crate::storage::{TreeData, TreeForces, TreeModel};
use faer::linalg::solvers::Solve;
use faer::Mat;
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::rigid::{BodyRef, Force};
use ferrodyn_kernel::tree::{
    constrain_columns, link_states, mass_matrix_at, point_jacobian, LinkState, Servo,
};
use ferrodyn_kernel::{Dynamics, ExternalForces, ExternalLoads, KernelError};
use std::cell::RefCell;

/// Everything that loads the links at every evaluation: the force elements and the contacts.
pub struct TreeLoads<'a> {
    /// The force elements on the links.
    pub forces: &'a mut TreeForces,
    /// The contacts.
    pub contact: Option<&'a mut ContactModel>,
}

impl ExternalForces<f64> for TreeLoads<'_> {
    fn apply(&mut self, t: f64, loads: &mut ExternalLoads<'_, f64>) {
        self.forces.apply(t, loads);
        if let Some(contact) = self.contact.as_mut() {
            contact.apply(t, loads);
        }
    }
    fn accept(&mut self, t: f64, state: &ExternalLoads<'_, f64>) {
        self.forces.accept(t, state);
        if let Some(contact) = self.contact.as_mut() {
            contact.accept(t, state);
        }
    }
}

/// [`TreeLoads`] shared by the step (which applies them) and the [`TreeTangent`] (which
/// linearizes them where they were last applied).
pub struct SharedLoads<'l, 'a>(pub &'l RefCell<TreeLoads<'a>>);

impl ExternalForces<f64> for SharedLoads<'_, '_> {
    fn apply(&mut self, t: f64, loads: &mut ExternalLoads<'_, f64>) {
        self.0.borrow_mut().apply(t, loads);
    }
    fn accept(&mut self, t: f64, state: &ExternalLoads<'_, f64>) {
        self.0.borrow_mut().accept(t, state);
    }
}

/// The analytic iteration matrix of a tree: its model, a scratch data to evaluate it at the
/// Newton iterate, and the loads on its links.
pub struct TreeTangent<'l, 'a> {
    model: &'l TreeModel,
    scratch: &'l mut TreeData,
    loads: Option<&'l RefCell<TreeLoads<'a>>>,
}

impl<'l, 'a> TreeTangent<'l, 'a> {
    /// The tangent of `model`, evaluated in `scratch` (a data of the model), with `loads`.
    pub fn new(
        model: &'l TreeModel,
        scratch: &'l mut TreeData,
        loads: Option<&'l RefCell<TreeLoads<'a>>>,
    ) -> Self {
        Self {
            model,
            scratch,
            loads,
        }
    }

    /// Adds the joints' diagonal terms c_v D + c_q K to `a` (row-major nv × nv).
    fn add_joints(&self, y: &[f64], (c_v, c_q): (f64, f64), a: &mut [f64]) {
        let (nq, nv) = (self.model.position_count(), self.model.velocity_count());
        let (mut at_q, mut at_v) = (0, 0);
        for link in self.model.links() {
            let (lq, lv) = (link.position_count(), link.velocity_count());
            for k in at_v..at_v + lv {
                a[k * nv + k] += c_v * link.damping;
            }
            if lq == 1 && lv == 1 {
                let (q, rate) = (y[at_q], y[nq + at_v]);
                // The friction damps at its slope there (F_c / v_s through rest).
                let (mut stiffness, mut damping) = (link.stiffness, link.friction.slope(rate));
                if let Some(limit) = link.limit.filter(|l| l.force(q, rate) != 0.0) {
                    stiffness += limit.stiffness;
                    damping += limit.damping;
                }
                match link.servo {
                    Servo::Position { kp, kd } => {
                        stiffness += kp;
                        damping += kd;
                    }
                    Servo::Velocity { kv } => damping += kv,
                    Servo::Force => {}
                }
                a[at_v * nv + at_v] += c_v * damping + c_q * stiffness;
            }
            at_q += lq;
            at_v += lv;
        }
    }

    /// The Jacobian of world point `p` moving with `body` (zero for the ground), 3 × nv.
    fn jacobian(&mut self, body: Option<usize>, p: Vec3<f64>, out: &mut [f64]) -> Result<(), KernelError> {
        match body {
            Some(link) => point_jacobian(self.model, self.scratch, link, p, out),
            None => {
                out.fill(0.0);
                Ok(())
            }
        }
    }

    /// Adds J_relᵀ (c_v W_d + c_q W_k) J_rel for points `p_i` on `i` and `p_j` on `j`, where
    /// `weights(relative velocity)` gives (W_k, W_d) and J_rel = J_j(p_j) − J_i(p_i).
    fn add_pair(
        &mut self,
        (i, p_i): (Option<usize>, Vec3<f64>),
        (j, p_j): (Option<usize>, Vec3<f64>),
        (c_v, c_q, rate): (f64, f64, &[f64]),
        weights: impl FnOnce([f64; 3]) -> ([[f64; 3]; 3], [[f64; 3]; 3]),
        a: &mut [f64],
    ) -> Result<(), KernelError> {
        let nv = rate.len();
        let (mut ji, mut jj) = (vec![0.0; 3 * nv], vec![0.0; 3 * nv]);
        self.jacobian(i, p_i, &mut ji)?;
        self.jacobian(j, p_j, &mut jj)?;
        let relative: Vec<f64> = jj.iter().zip(&ji).map(|(b, a)| b - a).collect();
        let velocity: [f64; 3] =
            std::array::from_fn(|r| (0..nv).map(|c| relative[r * nv + c] * rate[c]).sum());
        let (wk, wd) = weights(velocity);
        let w: [[f64; 3]; 3] =
            std::array::from_fn(|r| std::array::from_fn(|c| c_v * wd[r][c] + c_q * wk[r][c]));
        // W J_rel (3 × nv), then J_relᵀ (W J_rel).
        let wj: Vec<f64> = (0..3 * nv)
            .map(|e| (0..3).map(|k| w[e / nv][k] * relative[k * nv + e % nv]).sum())
            .collect();
        for r in 0..nv {
            for c in 0..nv {
                a[r * nv + c] += (0..3).map(|k| relative[k * nv + r] * wj[k * nv + c]).sum::<f64>();
            }
        }
        Ok(())
    }

    /// Adds the spring-dampers' terms.
    fn add_elements(
        &mut self,
        elements: &[Force<f64>],
        states: &[LinkState<f64>],
        c: (f64, f64, &[f64]),
        a: &mut [f64],
    ) -> Result<(), KernelError> {
        let place = |body: BodyRef, point: Vec3<f64>| match body {
            BodyRef::Body(k) => (Some(k), states.get(k).map_or(point, |s| s.point(point))),
            BodyRef::Ground => (None, point),
        };
        for element in elements {
            let Force::SpringDamper {
                body_i,
                point_i,
                body_j,
                point_j,
                stiffness,
                damping,
                rest_length,
            } = *element
            else {
                continue;
            };
            let (i, j) = (place(body_i, point_i), place(body_j, point_j));
            let d = j.1 - i.1;
            let length = d.dot(d).sqrt();
            if length <= f64::EPSILON {
                continue;
            }
            let u = d.to_array().map(|x| x / length);
            self.add_pair(
                i,
                j,
                c,
                |velocity| {
                    let stretch_rate: f64 = (0..3).map(|k| u[k] * velocity[k]).sum();
                    let tension = stiffness * (length - rest_length) + damping * stretch_rate;
                    let along = |r: usize, s: usize| u[r] * u[s];
                    let across = |r: usize, s: usize| f64::from(u8::from(r == s)) - along(r, s);
                    let wk = std::array::from_fn(|r| {
                        std::array::from_fn(|s| stiffness * along(r, s) + tension / length * across(r, s))
                    });
                    let wd = std::array::from_fn(|r| std::array::from_fn(|s| damping * along(r, s)));
                    (wk, wd)
                },
                a,
            )?;
        }
        Ok(())
    }

    /// Adds the terms of the contacts `world` evaluated last.
    fn add_contacts(
        &mut self,
        world: &ContactWorld,
        c: (f64, f64, &[f64]),
        a: &mut [f64],
    ) -> Result<(), KernelError> {
        for record in world.last_evaluation() {
            let Some((stiffness, chi, material)) = world.pair_law(record.shape_a, record.shape_b) else {
                continue;
            };
            let body = |s: usize| world.shapes().get(s).and_then(|s| s.body);
            let p = Vec3::from_array(record.point);
            let (i, j) = ((body(record.shape_a), p), (body(record.shape_b), p));
            self.add_pair(
                i,
                j,
                c,
                |velocity| {
                    let response = node_response(
                        stiffness,
                        chi,
                        &material,
                        record.penetration,
                        record.normal,
                        velocity,
                        Some(record.impact_speed),
                    );
                    let n = record.normal;
                    (
                        response.tangent.weighted(n, 1.0, 0.0),
                        response.tangent.weighted(n, 0.0, 1.0),
                    )
                },
                a,
            )?;
        }
        Ok(())
    }
}

impl Tangent for TreeTangent<'_, '_> {
    fn iteration_matrix(
        &mut self,
        t: f64,
        y: &[f64],
        c_v: f64,
        c_q: f64,
        out: &mut Mat<f64>,
    ) -> Result<(), KernelError> {
        let (model, nv) = (self.model, self.model.velocity_count());
        model.set_state(self.scratch, y)?;
        let mut a = vec![0.0; nv * nv];
        self.add_joints(y, (c_v, c_q), &mut a);
        let rate = &y[model.position_count()..];
        if let Some(loads) = self.loads {
            let loads = loads.borrow();
            let states = link_states(model, self.scratch);
            self.add_elements(loads.forces.elements(), &states, (c_v, c_q, rate), &mut a)?;
            if let Some(ContactModel::Rigid(world)) = loads.contact.as_deref() {
                self.add_contacts(world, (c_v, c_q, rate), &mut a)?;
            }
        }
        let mut mass = vec![0.0; nv * nv];
        mass_matrix_at(model, self.scratch, &mut mass)?;
        let mass = Mat::from_fn(nv, nv, |r, c| mass[r * nv + c]);
        let load = Mat::from_fn(nv, nv, |r, c| a[r * nv + c]);
        let response = mass.partial_piv_lu().solve(&load);
        // Π on each column of M⁻¹A.
        let mut columns: Vec<f64> = (0..nv * nv).map(|e| response[(e % nv, e / nv)]).collect();
        constrain_columns(model, self.scratch, t, &mut columns, nv)?;
        *out = Mat::from_fn(nv, nv, |r, c| f64::from(u8::from(r == c)) + columns[c * nv + r]);
        Ok(())
    }
}
