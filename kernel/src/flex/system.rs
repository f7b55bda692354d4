//! The flexible body as an ODE for the kernel integrators, and its step function.
//!
//! M ë = Q_e(e) + Q_g + f(t) − D ė over the free coordinates, with the constant mass factor
//! from the model (one skyline solve per evaluation) and Rayleigh damping D = αM + βK, every
//! element with its own material (E, ν, law, ρ in its mass, α and β).

use super::data::Data;
use super::model::{Model, FIXED};
use crate::ancf::{compensated, ElementError, Material, TetElement, ELEMENT_COORDS, NODE_COORDS};
use crate::dynamics::check_state;
use crate::integrators::{add_increment, stage_argument};
use crate::math::skyline::{self, SkylineLayout};
use crate::math::Vec3;
use crate::storage::Storage;
use crate::time_function::TimeFunction;
use crate::{
    Dynamics, Energy, ExternalForces, ExternalLoads, Integrator, Item, KernelError, OdeSystem, Real, Stages,
    StepStats,
};

/// Borrowed view of a flexible model, without capacities.
#[derive(Clone, Copy)]
pub(crate) struct FlexView<'a, R> {
    /// The material of each element.
    pub materials: &'a [Material<R>],
    pub gravity: Vec3<R>,
    pub connectivity: &'a [[usize; 4]],
    pub elements: &'a [TetElement<R>],
    pub nodal_force: &'a [Vec3<R>],
    pub load_function: &'a TimeFunction<R>,
    pub dof: &'a [[usize; NODE_COORDS]],
    pub layout: SkylineLayout<'a>,
    pub mass_factor: &'a [R],
    /// Reference positions of the nodes.
    pub nodes: &'a [Vec3<R>],
}

impl<R: Real, St: Storage> Model<R, St> {
    /// Copies the free entries of a per-node array (12 per node) into the free-coordinate
    /// vector (for solvers of the host that assemble over the free coordinates).
    pub fn gather_free(&self, per_node: &[R], free: &mut [R]) {
        self.view().gather_free(per_node, free);
    }
    /// Writes the free-coordinate vector into a per-node array, held coordinates set to zero.
    pub fn scatter_free(&self, free: &[R], per_node: &mut [R]) {
        self.view().scatter_free(free, per_node, R::ZERO);
    }
    /// The external load at time t per node coordinate into `out` (12 per node): gravity and
    /// the nodal forces scaled by the load function (for the host's implicit solvers, which
    /// form the elastic part with its tangent themselves).
    pub fn external_force(&self, t: R, out: &mut [R]) {
        for v in out.iter_mut() {
            *v = R::ZERO;
        }
        let mut q = [R::ZERO; ELEMENT_COORDS];
        for (element, nodes) in self.elements.iter().zip(self.connectivity.iter()) {
            element.gravity_load(self.gravity, &mut q);
            scatter_add(out, nodes, &q);
        }
        let scale = self.load_function.eval(t).value;
        for (chunk, f) in out.chunks_exact_mut(NODE_COORDS).zip(self.nodal_force.iter()) {
            chunk[0] += f.x * scale;
            chunk[1] += f.y * scale;
            chunk[2] += f.z * scale;
        }
    }
    /// Reference coordinates of the whole body (12 per node: r = X, gradients = I).
    pub fn reference_coordinates(&self, out: &mut [R]) {
        for (chunk, x) in out.chunks_exact_mut(NODE_COORDS).zip(self.nodes.iter()) {
            chunk.copy_from_slice(&crate::ancf::node_reference_coordinates(*x));
        }
    }

    pub(crate) fn view(&self) -> FlexView<'_, R> {
        FlexView {
            materials: &self.materials,
            gravity: self.gravity,
            connectivity: &self.connectivity,
            elements: &self.elements,
            nodal_force: &self.nodal_force,
            load_function: &self.load_function,
            dof: &self.dof,
            layout: self.layout(),
            mass_factor: &self.mass_factor,
            nodes: &self.nodes,
        }
    }
}

/// Gathers the 48 coordinates of an element from a per-node array of 12.
pub fn gather<R: Real>(values: &[R], nodes: &[usize; 4]) -> [R; ELEMENT_COORDS] {
    let mut out = [R::ZERO; ELEMENT_COORDS];
    for (chunk, &n) in out.chunks_exact_mut(NODE_COORDS).zip(nodes) {
        if let Some(src) = values.get(NODE_COORDS * n..NODE_COORDS * (n + 1)) {
            chunk.copy_from_slice(src);
        }
    }
    out
}

/// Adds an element vector into a per-node array of 12.
pub fn scatter_add<R: Real>(values: &mut [R], nodes: &[usize; 4], v: &[R; ELEMENT_COORDS]) {
    for (chunk, &n) in v.chunks_exact(NODE_COORDS).zip(nodes) {
        if let Some(dst) = values.get_mut(NODE_COORDS * n..NODE_COORDS * (n + 1)) {
            for (d, s) in dst.iter_mut().zip(chunk) {
                *d += *s;
            }
        }
    }
}

/// What a force evaluation is handed: coordinates e, or displacements u = e − e_ref with
/// what their rounding left out (12 per node, see [`TetElement::elastic_force_from_displacement`]).
#[derive(Clone, Copy)]
enum Coordinates<'a, R> {
    Absolute(&'a [R]),
    Displacement(&'a [R], Option<&'a [R]>),
}

/// Maps an element evaluation error into a kernel error naming the element.
pub(crate) fn element_failure(element: usize, e: ElementError, time: f64) -> KernelError {
    match e {
        ElementError::Inverted { qp, .. } => KernelError::ElementInverted { element, qp, time },
        _ => KernelError::NonFinite {
            item: Item::Element(element),
            time,
        },
    }
}

impl<'a, R: Real> FlexView<'a, R> {
    /// Total generalized force Q(t, e, ė) per node coordinate into `force`, with the external
    /// loads (gravity, nodal forces) scaled by `load_scale`; with `with_damping` false the
    /// velocity-dependent part is left out (statics).
    pub fn generalized_force(
        &self,
        t: R,
        e: &[R],
        ed: &[R],
        force: &mut [R],
        load_scale: R,
        with_damping: bool,
    ) -> Result<(), KernelError> {
        self.force_of(t, Coordinates::Absolute(e), ed, force, load_scale, with_damping)
    }

    /// [`FlexView::generalized_force`] at the displacements `u` = e − e_ref (12 per node:
    /// r − X, gradients − I), with what their rounding left out (`low`, 12 per node), and the
    /// rates `ud` = ė.
    pub fn generalized_force_displaced(
        &self,
        t: R,
        u: &[R],
        low: Option<&[R]>,
        ud: &[R],
        force: &mut [R],
    ) -> Result<(), KernelError> {
        self.force_of(t, Coordinates::Displacement(u, low), ud, force, R::ONE, true)
    }

    fn force_of(
        &self,
        t: R,
        coordinates: Coordinates<'_, R>,
        ed: &[R],
        force: &mut [R],
        load_scale: R,
        with_damping: bool,
    ) -> Result<(), KernelError> {
        for f in force.iter_mut() {
            *f = R::ZERO;
        }
        let mut q = [R::ZERO; ELEMENT_COORDS];
        let items = self.elements.iter().zip(self.connectivity).zip(self.materials);
        for (index, ((element, nodes), material)) in items.enumerate() {
            let alpha = material.rayleigh_mass;
            let fail = |err| element_failure(index, err, t.to_f64());
            let (values, displaced, low) = match coordinates {
                Coordinates::Absolute(e) => (gather(e, nodes), false, None),
                Coordinates::Displacement(u, low) => (gather(u, nodes), true, low.map(|l| gather(l, nodes))),
            };
            if displaced {
                element.elastic_force_from_displacement(material, &values, low.as_ref(), &mut q)
            } else {
                element.elastic_force(material, &values, &mut q)
            }
            .map_err(fail)?;
            scatter_add(force, nodes, &q);
            element.gravity_load(self.gravity * load_scale, &mut q);
            scatter_add(force, nodes, &q);
            if with_damping && (alpha != R::ZERO || material.rayleigh_stiffness != R::ZERO) {
                let eed = gather(ed, nodes);
                if displaced {
                    element.damping_force_from_displacement(material, &values, low.as_ref(), &eed, &mut q)
                } else {
                    element.damping_force(material, &values, &eed, &mut q)
                }
                .map_err(fail)?;
                let mut mv = [R::ZERO; ELEMENT_COORDS];
                element.mass_times(&eed, &mut mv);
                for (qi, mi) in q.iter_mut().zip(mv.iter()) {
                    *qi -= alpha * *mi;
                }
                scatter_add(force, nodes, &q);
            }
        }
        let scale = self.load_function.eval(t).value * load_scale;
        for (chunk, f) in force.chunks_exact_mut(NODE_COORDS).zip(self.nodal_force) {
            chunk[0] += f.x * scale;
            chunk[1] += f.y * scale;
            chunk[2] += f.z * scale;
        }
        Ok(())
    }

    /// y = M x restricted to the elements that contain an attached node: exact for x supported
    /// on attached coordinates, and for the rows of attached coordinates whatever x is.
    pub fn mass_times_near(&self, attachments: &[crate::coupled::Attachment<R>], x: &[R], y: &mut [R]) {
        for v in y.iter_mut() {
            *v = R::ZERO;
        }
        let mut out = [R::ZERO; ELEMENT_COORDS];
        for (element, nodes) in self.elements.iter().zip(self.connectivity) {
            if attachments.iter().any(|a| nodes.contains(&a.node)) {
                element.mass_times(&gather(x, nodes), &mut out);
                scatter_add(y, nodes, &out);
            }
        }
    }

    /// Solves M_ff x = b on the free coordinates (`b` holds b on entry).
    pub fn solve_mass(&self, b: &mut [R]) {
        let nf = self.layout.rows();
        if let Some(b) = b.get_mut(..nf) {
            skyline::solve(&self.layout, self.mass_factor, b);
        }
    }

    /// Copies the free entries of a per-node array into the free-coordinate vector.
    pub fn gather_free(&self, per_node: &[R], free: &mut [R]) {
        for (node_dofs, values) in self.dof.iter().zip(per_node.chunks_exact(NODE_COORDS)) {
            for (&d, &v) in node_dofs.iter().zip(values) {
                if let Some(slot) = free.get_mut(d) {
                    *slot = v;
                }
            }
        }
    }

    /// Writes the free-coordinate vector into a per-node array (fixed entries set to `fixed`).
    pub fn scatter_free(&self, free: &[R], per_node: &mut [R], fixed: R) {
        for (node_dofs, values) in self.dof.iter().zip(per_node.chunks_exact_mut(NODE_COORDS)) {
            for (&d, v) in node_dofs.iter().zip(values.iter_mut()) {
                *v = if d == FIXED {
                    fixed
                } else {
                    free.get(d).copied().unwrap_or(fixed)
                };
            }
        }
    }
}

/// The body as an [`OdeSystem`] over the displacements: state `[u | u̇]` with u = e − e_ref.
pub(crate) struct FlexSystem<'a, R> {
    pub model: FlexView<'a, R>,
    pub force: &'a mut [R],
    pub free: &'a mut [R],
    /// Where the coordinates e = e_ref + u are formed for the external forces (12 per node);
    /// in f32 also where [`OdeSystem::stage_argument`] leaves its rounding for the next
    /// evaluation (taken before the external forces need the room).
    pub positions: &'a mut [R],
    /// The rounding the displacements u carry (12 per node, see `Data::carry`).
    pub carry: &'a mut [R],
    /// Whether `positions` holds the rounding of the argument of the next evaluation (else
    /// that argument is the state, whose rounding is `carry`).
    pub staged: bool,
    /// Caller-supplied forces (None: none).
    pub external: Option<&'a mut dyn ExternalForces<R>>,
}

/// Coordinate `i` of the undeformed reference (12 per node): X for r, the identity for the
/// gradients.
pub(crate) fn reference_coordinate<R: Real>(nodes: &[Vec3<R>], i: usize) -> R {
    let c = i % NODE_COORDS;
    match (nodes.get(i / NODE_COORDS), c) {
        (Some(x), 0..=2) => x.to_array()[c],
        (_, 3 | 7 | 11) => R::ONE,
        _ => R::ZERO,
    }
}

/// Knuth's two-sum: a + b to the nearest and what that rounding left out, exactly.
fn two_sum<R: Real>(a: R, b: R) -> (R, R) {
    let sum = a + b;
    let b_virtual = sum - a;
    (sum, (a - (sum - b_virtual)) + (b - b_virtual))
}

impl<R: Real> OdeSystem<R> for FlexSystem<'_, R> {
    fn state_len(&self) -> usize {
        2 * self.model.dof.len() * NODE_COORDS
    }
    fn position_len(&self) -> usize {
        self.model.dof.len() * NODE_COORDS
    }
    fn derivative(&mut self, t: R, y: &[R], dydt: &mut [R]) -> Result<(), KernelError> {
        let n = self.position_len();
        let (u, ud) = y.split_at(n.min(y.len()));
        // In f32 the forces see u with what its rounding left out: at every evaluation an
        // error of ε₃₂|u| would excite the stiffest modes anew.
        let low = match (compensated::<R>(), self.staged) {
            (false, _) => None,
            (true, true) => Some(&*self.positions),
            (true, false) => Some(&*self.carry),
        };
        self.staged = false;
        self.model
            .generalized_force_displaced(t, u, low, ud, self.force)?;
        if let Some(external) = self.external.as_deref_mut() {
            // The caller's forces see the coordinates: e = e_ref + u, formed here only.
            for (i, (e, u)) in self.positions.iter_mut().zip(u).enumerate() {
                *e = reference_coordinate(self.model.nodes, i) + *u;
            }
            external.apply(t, &mut ExternalLoads::on_nodes(self.positions, ud, self.force));
        }
        self.model.gather_free(self.force, self.free);
        self.model.solve_mass(self.free);
        let (de, dv) = dydt.split_at_mut(n.min(dydt.len()));
        de.copy_from_slice(&ud[..de.len().min(ud.len())]);
        self.model.scatter_free(self.free, dv, R::ZERO);
        Ok(())
    }
    fn advance_positions(&mut self, y: &mut [R], h: R) {
        let n = self.position_len();
        let (e, ed) = y.split_at_mut(n.min(y.len()));
        for (x, v) in e.iter_mut().zip(ed.iter()) {
            *x += h * *v;
        }
    }
    /// In f32, the position part with the carry: y0 + carry + dt·k to the nearest f32, and
    /// what that rounding left out (two-sum) for the evaluation at it.
    fn stage_argument(&mut self, y: &mut [R], y0: &[R], dt: R, k: &[R]) {
        let n = self.position_len();
        if !compensated::<R>() || self.carry.len() < n || self.positions.len() < n {
            return stage_argument(y, y0, dt, k);
        }
        let (u, ud) = y.split_at_mut(n.min(y.len()));
        let (u0, ud0) = y0.split_at(n.min(y0.len()));
        let (du, dud) = k.split_at(n.min(k.len()));
        let terms = u.iter_mut().zip(u0).zip(du).zip(self.carry.iter());
        for ((((u, u0), d), c), low) in terms.zip(self.positions.iter_mut()) {
            let a = dt * *d + *c;
            (*u, *low) = two_sum(*u0, a);
        }
        self.staged = true;
        stage_argument(ud, ud0, dt, dud);
    }
    /// In f32, the displacements u are summed with their carry (Knuth's two-sum: u + carry
    /// holds the sum to twice the precision): u alone, rounded by ε₃₂|u| every step, would
    /// excite the stiffest modes by that much every step, and those errors add up. The forces
    /// still see u rounded to f32: an error made anew at every evaluation, not carried on.
    /// The carry is kept only for a finite result, the one way `accept_step` fails the step.
    /// In f64, the plain sum (its bits kept).
    fn finish_step(&mut self, y: &mut [R], y0: &[R], increment: &mut [R]) {
        let n = self.position_len();
        if !compensated::<R>() || self.carry.len() < n || y.len() < n {
            add_increment(y, y0, increment);
            return;
        }
        let (u, ud) = y.split_at_mut(n);
        let (u0, ud0) = y0.split_at(n.min(y0.len()));
        let (du, dud) = increment.split_at_mut(n.min(increment.len()));
        // The new carry goes into the increment's place until the step proves finite.
        for (((u, u0), d), c) in u.iter_mut().zip(u0).zip(du.iter_mut()).zip(self.carry.iter()) {
            (*u, *d) = two_sum(*u0, *d + *c);
        }
        add_increment(ud, ud0, dud);
        if u.iter().chain(ud.iter()).all(|x| x.is_finite()) {
            self.carry.copy_from_slice(&du[..n]);
        }
    }
    fn accept_step(&mut self, t: R, y: &mut [R]) -> Result<u32, KernelError> {
        match y.iter().position(|x| !x.is_finite()) {
            Some(i) => Err(KernelError::NonFinite {
                item: Item::Node((i % self.position_len().max(1)) / NODE_COORDS),
                time: t.to_f64(),
            }),
            None => Ok(0),
        }
    }
}

impl<R: Real, St: Storage> Data<R, St> {
    pub(crate) fn parts<'a>(
        &'a mut self,
        model: &'a Model<R, St>,
    ) -> (&'a mut [R], Stages<'a, R>, FlexSystem<'a, R>) {
        let n = NODE_COORDS * self.node_count;
        let y = self.displacement.as_flattened_mut();
        let k = self.stages.each_mut().map(|s| s.as_flattened_mut());
        let positions = self.state.as_flattened_mut();
        let system = FlexSystem {
            model: model.view(),
            force: self.force.as_flattened_mut(),
            free: self.free.as_flattened_mut(),
            positions: positions.get_mut(..n).unwrap_or(&mut []),
            carry: self.carry.as_flattened_mut().get_mut(..n).unwrap_or(&mut []),
            staged: false,
            external: None,
        };
        (y, Stages { k }, system)
    }

    /// Takes up what was written into the state `[e | ė]` since the last step (by
    /// [`Dynamics::set_state`], [`Data::coordinates_mut`], a coupled model...): every entry
    /// that is no longer e_ref + u (or u̇) sets its displacement (rate), without carry.
    /// Untouched entries keep their displacement and carry to the last bit.
    pub(crate) fn take_up_state(&mut self, model: &Model<R, St>) {
        let n = NODE_COORDS * self.node_count;
        let (Some(state), Some(displacement), Some(carry)) = (
            self.state.as_flattened().get(..2 * n),
            self.displacement.as_flattened_mut().get_mut(..2 * n),
            self.carry.as_flattened_mut().get_mut(..n),
        ) else {
            return;
        };
        let (e, ed) = state.split_at(n);
        let (u, ud) = displacement.split_at_mut(n);
        let nodes = e.chunks_exact(NODE_COORDS).zip(u.chunks_exact_mut(NODE_COORDS));
        let nodes = nodes.zip(carry.chunks_exact_mut(NODE_COORDS));
        for (((e, u), carry), x) in nodes.zip(model.nodes.iter()) {
            let reference = crate::ancf::node_reference_coordinates(*x);
            for (((e, u), c), r) in e.iter().zip(u.iter_mut()).zip(carry.iter_mut()).zip(reference) {
                if *e != r + *u {
                    *u = *e - r;
                    *c = R::ZERO;
                }
            }
        }
        ud.copy_from_slice(ed);
    }

    /// Sets the displacements `[u | u̇]` (as [`Data::displacements`] gives them) and the
    /// state formed from them, without carry. The state `[e | ė]` rounds u, so this is what a
    /// saved run goes on from bit for bit (with [`Data::resume_clock`], and in f32
    /// [`Data::resume_carry`]); on error nothing changes.
    pub fn set_displacements(&mut self, model: &Model<R, St>, values: &[R]) -> Result<(), KernelError> {
        let n = NODE_COORDS * self.node_count;
        check_state(values, 2 * n, self.time(), |k| {
            Item::Node((k % n.max(1)) / NODE_COORDS)
        })?;
        let Some(displacement) = self.displacement.as_flattened_mut().get_mut(..2 * n) else {
            return Err(KernelError::StateSizeMismatch);
        };
        displacement.copy_from_slice(values);
        for c in self.carry.as_flattened_mut() {
            *c = R::ZERO;
        }
        self.show_state(model);
        Ok(())
    }

    /// Writes the state `[e | ė]` from the displacements: e = e_ref + u, ė = u̇.
    fn show_state(&mut self, model: &Model<R, St>) {
        let n = NODE_COORDS * self.node_count;
        let (Some(state), Some(displacement)) = (
            self.state.as_flattened_mut().get_mut(..2 * n),
            self.displacement.as_flattened().get(..2 * n),
        ) else {
            return;
        };
        let (e, ed) = state.split_at_mut(n);
        let (u, ud) = displacement.split_at(n);
        let nodes = e.chunks_exact_mut(NODE_COORDS).zip(u.chunks_exact(NODE_COORDS));
        for ((e, u), x) in nodes.zip(model.nodes.iter()) {
            let reference = crate::ancf::node_reference_coordinates(*x);
            for ((e, u), r) in e.iter_mut().zip(u).zip(reference) {
                *e = r + *u;
            }
        }
        ed.copy_from_slice(ud);
    }
}

/// State `[e of all nodes (12 each: r, ∂r/∂X, ∂r/∂Y, ∂r/∂Z) | ė of all nodes (12 each)]`; held
/// coordinates keep their values. A step never allocates, never panics; on error the state is
/// left at the start of the step. External forces act on the nodes' coordinates.
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
        let stats = advance(self, data, integrator, dt, Some(external))?;
        self.accept(data, external)?;
        Ok(stats)
    }

    fn accept<E: ExternalForces<R>>(
        &self,
        data: &mut Data<R, St>,
        external: &mut E,
    ) -> Result<(), KernelError> {
        let t = data.time();
        let n = NODE_COORDS * data.node_count;
        let y = data.state.as_flattened();
        let (e, ed) = y.split_at(n.min(y.len()));
        external.accept(t, &ExternalLoads::on_nodes(e, ed, data.force.as_flattened_mut()));
        Ok(())
    }

    fn step<I: Integrator<R>>(
        &self,
        data: &mut Data<R, St>,
        integrator: &mut I,
        dt: R,
    ) -> Result<StepStats, KernelError> {
        advance(self, data, integrator, dt, None)
    }

    fn time(&self, data: &Data<R, St>) -> R {
        data.time()
    }

    fn energy(&self, data: &Data<R, St>) -> Result<Energy<R>, KernelError> {
        super::energy(self, data)
    }

    fn state<'d>(&self, data: &'d Data<R, St>) -> &'d [R] {
        data.state()
    }

    fn set_state(&self, data: &mut Data<R, St>, state: &[R]) -> Result<(), KernelError> {
        let n = NODE_COORDS * data.node_count;
        check_state(state, 2 * n, data.time(), |k| {
            Item::Node((k % n.max(1)) / NODE_COORDS)
        })?;
        data.state.as_flattened_mut().copy_from_slice(state);
        Ok(())
    }
}

/// Advances `data` by `dt`, with the forces of `external` (when given) at every stage.
fn advance<R: Real, St: Storage, I: Integrator<R>>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
    integrator: &mut I,
    dt: R,
    external: Option<&mut dyn ExternalForces<R>>,
) -> Result<StepStats, KernelError> {
    let mut clock = data.clock;
    data.take_up_state(model);
    let (y, mut stages, mut system) = data.parts(model);
    // A reborrow for the length of this step only.
    system.external = external.map(|e| e as &mut dyn ExternalForces<R>);
    let stats = clock.step(integrator, &mut system, y, &mut stages, dt);
    // Also on an error: the displacements are then those at the start of the step, and the
    // coordinates formed for the external forces are overwritten.
    data.show_state(model);
    let stats = stats?;
    data.clock = clock;
    Ok(stats)
}
