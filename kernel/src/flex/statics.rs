//! Static equilibrium of a flexible body: Newton–Raphson on Q(e) = 0 with the analytic
//! tangent K = −∂Q/∂e assembled in the skyline profile of the mass matrix, under load steps.

use super::data::Data;
use super::model::{Model, FIXED};
use super::system::{element_failure, gather, FlexView};
use crate::ancf::{ELEMENT_COORDS, NODE_COORDS};
use crate::math::skyline;
use crate::storage::Storage;
use crate::{KernelError, Real};

/// How a static solve went.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StaticReport {
    /// Newton iterations over all load steps.
    pub iterations: u32,
    /// Largest coordinate change of the last iteration.
    pub last_increment: f64,
}

/// Assembles K = −∂Q_e/∂e over the free coordinates into `stiffness` (lower profile).
pub(crate) fn assemble_stiffness<R: Real>(
    model: &FlexView<'_, R>,
    t: R,
    e: &[R],
    stiffness: &mut [R],
) -> Result<(), KernelError> {
    for v in stiffness.iter_mut() {
        *v = R::ZERO;
    }
    let mut q = [R::ZERO; ELEMENT_COORDS];
    let mut k = [[R::ZERO; ELEMENT_COORDS]; ELEMENT_COORDS];
    let items = model.elements.iter().zip(model.connectivity).zip(model.materials);
    for (index, ((element, nodes), material)) in items.enumerate() {
        let ee = gather(e, nodes);
        element
            .elastic_force_and_tangent(material, &ee, &mut q, &mut k)
            .map_err(|err| element_failure(index, err, t.to_f64()))?;
        for (a, row) in k.iter().enumerate() {
            let r = model.dof[nodes[a / NODE_COORDS]][a % NODE_COORDS];
            if r == FIXED {
                continue;
            }
            for (b, &kab) in row.iter().enumerate() {
                let c = model.dof[nodes[b / NODE_COORDS]][b % NODE_COORDS];
                if c != FIXED && c <= r {
                    stiffness[model.layout.index(r, c)] += kab;
                }
            }
        }
    }
    Ok(())
}

/// Finds the equilibrium under gravity and the nodal loads at the current time, starting from
/// the current coordinates, applying the loads in `load_steps` equal increments. Converged when
/// the largest Newton increment is below `tolerance`. Rates are set to zero.
pub fn solve_static<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
    load_steps: u32,
    tolerance: R,
    max_iterations: u32,
) -> Result<StaticReport, KernelError> {
    let view = model.view();
    let t = data.clock.time;
    let n = NODE_COORDS * data.node_count;
    let nf = view.layout.rows();
    let steps = load_steps.max(1);
    let mut report = StaticReport {
        iterations: 0,
        last_increment: 0.0,
    };
    let (state, force, free) = (
        data.state.as_flattened_mut(),
        data.force.as_flattened_mut(),
        data.free.as_flattened_mut(),
    );
    let (e, ed) = state.split_at_mut(n);
    for v in ed[..n].iter_mut() {
        *v = R::ZERO;
    }
    for step in 1..=steps {
        let scale = R::from_f64(step as f64 / steps as f64);
        let mut converged = false;
        for _ in 0..max_iterations {
            view.generalized_force(t, e, &ed[..n], &mut force[..n], scale, false)?;
            view.gather_free(&force[..n], &mut free[..nf]);
            assemble_stiffness(&view, t, e, &mut data.stiffness)?;
            skyline::factorize(&view.layout, &mut data.stiffness)
                .map_err(|coordinate| KernelError::SingularStiffness { coordinate })?;
            skyline::solve(&view.layout, &data.stiffness, &mut free[..nf]);
            // e ← e + K⁻¹ Q on the free coordinates.
            let mut largest = R::ZERO;
            for (node_dofs, coords) in view.dof.iter().zip(e.chunks_exact_mut(NODE_COORDS)) {
                for (&d, x) in node_dofs.iter().zip(coords.iter_mut()) {
                    if let Some(&delta) = free.get(d).filter(|_| d != FIXED) {
                        *x += delta;
                        largest = largest.max(delta.abs());
                    }
                }
            }
            report.iterations += 1;
            report.last_increment = largest.to_f64();
            if !largest.is_finite() {
                return Err(KernelError::NotConverged {
                    iterations: report.iterations,
                    residual: f64::NAN,
                });
            }
            if largest <= tolerance {
                converged = true;
                break;
            }
        }
        if !converged {
            return Err(KernelError::NotConverged {
                iterations: report.iterations,
                residual: report.last_increment,
            });
        }
    }
    Ok(report)
}
