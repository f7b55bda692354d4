//! An independent explicit path for a flexible body, built from the host's implicit-solver
//! parts: M ÿ = Q over the free coordinates with the mass assembled in the host's sparse
//! pattern and solved by its sparse LDLᵀ (faer, AMD order), the elastic force from the host's
//! assembly and the Rayleigh damping force, as a kernel [`OdeSystem`] stepped by a kernel
//! explicit integrator. The kernel's flexible model (skyline LDLᵀ in RCM order) is the other
//! path; the two share the element routines only.
#![allow(dead_code)]

use ferrodyn::host::implicit::{
    add_damping_force, elastic_force_and_tangent, ImplicitError, Pattern, SparseLdlt,
};
use ferrodyn::host::storage::FlexModel;
use ferrodyn::kernel::{Integrator, Item, KernelError, OdeSystem, Stages, StepStats, STAGE_BUFFERS};

/// A flexible body stepped through the host's sparse assembly by a kernel explicit
/// integrator; state `[q | v]` over the body coordinates (12 per node; held coordinates keep
/// their values).
pub struct ExplicitFlex {
    body: FlexModel,
    pattern: Pattern,
    mass: SparseLdlt,
    force: Vec<f64>,
    external: Vec<f64>,
    free: Vec<f64>,
    /// State `[q | v]`.
    state: Vec<f64>,
    stages: Vec<Vec<f64>>,
    time: f64,
}

impl ExplicitFlex {
    /// At rest in the reference configuration at t = 0.
    pub fn new(body: FlexModel) -> Result<Self, ImplicitError> {
        let pattern = Pattern::new(&body)?;
        let mut mass = SparseLdlt::new(&pattern)?;
        mass.factorize(&pattern.mass(&body))?;
        let nc = body.coordinate_count();
        let mut state = vec![0.0; 2 * nc];
        body.reference_coordinates(&mut state[..nc]);
        Ok(Self {
            free: vec![0.0; body.dof_count()],
            force: vec![0.0; nc],
            external: vec![0.0; nc],
            stages: vec![vec![0.0; 2 * nc]; STAGE_BUFFERS],
            state,
            pattern,
            mass,
            body,
            time: 0.0,
        })
    }

    /// State `[q | v]`.
    pub fn state(&self) -> &[f64] {
        &self.state
    }

    /// Advances by `dt` with a kernel integrator.
    pub fn step<I: Integrator<f64>>(
        &mut self,
        integrator: &mut I,
        dt: f64,
    ) -> Result<StepStats, KernelError> {
        let mut state = std::mem::take(&mut self.state);
        let mut stages = std::mem::take(&mut self.stages);
        let result = {
            let mut it = stages.iter_mut();
            let k = std::array::from_fn(|_| it.next().map_or(&mut [][..], |s| s.as_mut_slice()));
            integrator.step(self, self.time, dt, &mut state, &mut Stages { k })
        };
        self.state = state;
        self.stages = stages;
        if result.is_ok() {
            self.time += dt;
        }
        result
    }
}

impl OdeSystem<f64> for ExplicitFlex {
    fn state_len(&self) -> usize {
        2 * self.body.coordinate_count()
    }
    fn position_len(&self) -> usize {
        self.body.coordinate_count()
    }
    fn derivative(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) -> Result<(), KernelError> {
        let n = self.position_len();
        let (q, v) = y.split_at(n);
        let fail = |e: ImplicitError| e.kernel_error(t);
        elastic_force_and_tangent(&self.body, &self.pattern, t, q, &mut self.force, None).map_err(fail)?;
        add_damping_force(&self.body, t, q, v, &mut self.force).map_err(fail)?;
        self.body.external_force(t, &mut self.external);
        for (f, e) in self.force.iter_mut().zip(&self.external) {
            *f += e;
        }
        self.body.gather_free(&self.force, &mut self.free);
        self.mass.solve(&mut self.free).map_err(fail)?;
        let (dq, dv) = dydt.split_at_mut(n);
        dq.copy_from_slice(v);
        // Held coordinates do not accelerate.
        self.body.scatter_free(&self.free, dv);
        Ok(())
    }
    fn advance_positions(&mut self, y: &mut [f64], h: f64) {
        let n = self.position_len();
        let (q, v) = y.split_at_mut(n);
        for (x, v) in q.iter_mut().zip(v.iter()) {
            *x += h * v;
        }
    }
    fn accept_step(&mut self, t: f64, y: &mut [f64]) -> Result<u32, KernelError> {
        match y.iter().position(|x| !x.is_finite()) {
            Some(i) => Err(KernelError::NonFinite {
                item: Item::Node((i % self.position_len().max(1)) / 12),
                time: t,
            }),
            None => Ok(0),
        }
    }
}
