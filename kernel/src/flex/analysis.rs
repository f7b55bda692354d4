//! Energies, momenta and the stable explicit step of a flexible body.

use super::data::Data;
use super::model::Model;
use super::statics::assemble_stiffness;
use super::system::{element_failure, gather};
use crate::ancf::{ELEMENT_COORDS, NODE_COORDS};
use crate::math::skyline;
use crate::math::Vec3;
use crate::storage::Storage;
use crate::{Energy, KernelError, Real};

/// Kinetic energy ½ ėᵀ M ė, strain energy ∫ W dV and gravity potential −∫ ρ g·r dV at the
/// current state (nodal forces are not conservative here).
pub fn energy<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &Data<R, St>,
) -> Result<Energy<R>, KernelError> {
    let n = NODE_COORDS * data.node_count;
    let state = data.state();
    let (e, ed) = state.split_at(n);
    let mut out = Energy::default();
    let mut mv = [R::ZERO; ELEMENT_COORDS];
    let mut load = [R::ZERO; ELEMENT_COORDS];
    for (index, (element, nodes, material)) in model.element_items().enumerate() {
        let (ee, eed) = (gather(e, nodes), gather(ed, nodes));
        element.mass_times(&eed, &mut mv);
        out.kinetic += R::HALF * mv.iter().zip(eed.iter()).fold(R::ZERO, |s, (a, b)| s + *a * *b);
        out.strain += element
            .strain_energy(material, &ee)
            .map_err(|err| element_failure(index, err, data.clock.time.to_f64()))?;
        element.gravity_load(model.gravity, &mut load);
        out.potential -= load.iter().zip(ee.iter()).fold(R::ZERO, |s, (a, b)| s + *a * *b);
    }
    Ok(out)
}

/// Linear momentum ∫ρ ṙ dV and angular momentum about the origin ∫ρ r × ṙ dV (global).
pub fn momentum<R: Real, St: Storage>(model: &Model<R, St>, data: &Data<R, St>) -> (Vec3<R>, Vec3<R>) {
    let n = NODE_COORDS * data.node_count;
    let state = data.state();
    let (e, ed) = state.split_at(n);
    let (mut p, mut l) = (Vec3::ZERO, Vec3::ZERO);
    let vector = |v: &[R; ELEMENT_COORDS], k: usize| Vec3::new(v[3 * k], v[3 * k + 1], v[3 * k + 2]);
    for (element, nodes) in model.elements.iter().zip(model.connectivity.iter()) {
        let (ee, eed) = (gather(e, nodes), gather(ed, nodes));
        for (k, (&sk, row)) in element
            .scalar_load()
            .iter()
            .zip(element.scalar_mass())
            .enumerate()
        {
            p += vector(&eed, k) * sk;
            for (j, &mkj) in row.iter().enumerate() {
                l += vector(&ee, k).cross(vector(&eed, j)) * mkj;
            }
        }
    }
    (p, l)
}

/// Largest step of explicit methods on the linearized body, from its highest frequency.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StableStep<R> {
    /// Highest natural circular frequency ω_max = √λ_max(M⁻¹K) (rad/s).
    pub omega_max: R,
}

impl<R: Real> StableStep<R> {
    /// Semi-implicit Euler and velocity Verlet (central difference): h < 2/ω_max.
    pub fn symplectic(&self) -> R {
        R::TWO / self.omega_max
    }
    /// Classical RK4: its stability region meets the imaginary axis at 2√2, h < 2√2/ω_max.
    pub fn rk4(&self) -> R {
        R::from_f64(2.0 * core::f64::consts::SQRT_2) / self.omega_max
    }
}

/// Estimates ω_max at the current state by power iteration on M⁻¹K (K assembled into the data's
/// stiffness workspace). `iterations` bounds the work; the estimate is a lower bound that
/// converges from below, so the steps derived from it are slightly optimistic.
pub fn max_frequency<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
    iterations: u32,
) -> Result<StableStep<R>, KernelError> {
    let view = model.view();
    let n = NODE_COORDS * data.node_count;
    let nf = view.layout.rows();
    let e = &data.state.as_flattened()[..n];
    assemble_stiffness(&view, data.clock.time, e, &mut data.stiffness)?;
    let x = &mut data.free.as_flattened_mut()[..nf];
    let y = &mut data.force.as_flattened_mut()[..nf];
    // A deterministic start vector with every mode present.
    for (i, v) in x.iter_mut().enumerate() {
        *v = R::ONE + R::from_f64(((i * 7919) % 1000) as f64 / 1000.0);
    }
    let mut lambda = R::ZERO;
    for _ in 0..iterations {
        skyline::multiply(&view.layout, &data.stiffness, x, y);
        skyline::solve(&view.layout, view.mass_factor, y);
        let norm_x = x.iter().fold(R::ZERO, |s, v| s + *v * *v).sqrt();
        let norm_y = y.iter().fold(R::ZERO, |s, v| s + *v * *v).sqrt();
        if norm_x <= R::ZERO || !norm_x.is_finite() || !norm_y.is_finite() {
            break;
        }
        let estimate = norm_y / norm_x;
        for (xi, yi) in x.iter_mut().zip(y.iter()) {
            *xi = *yi / norm_y;
        }
        let converged = (estimate - lambda).abs() <= R::from_f64(1e-9) * estimate;
        lambda = estimate;
        if converged {
            break;
        }
    }
    Ok(StableStep {
        omega_max: lambda.sqrt(),
    })
}
