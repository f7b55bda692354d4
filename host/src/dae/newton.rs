//! Newton–Raphson for the implicit step equations, with a finite-difference iteration matrix
//! that is factorized by dense LU and kept across iterations and steps while it still makes
//! Newton contract (modified Newton).

use crate::spec::NewtonSettings;
use faer::linalg::solvers::{PartialPivLu, Solve};
use faer::Mat;
use ferrodyn_kernel::KernelError;

/// A Newton solver that remembers its factorized iteration matrix.
#[derive(Default)]
pub(crate) struct Newton {
    pub settings: NewtonSettings,
    lu: Option<PartialPivLu<f64>>,
    /// The step size (times the method's coefficient) the matrix was built for: another one
    /// needs a new matrix.
    lu_step: f64,
    /// ‖R‖∞ of every iteration of the last solve (for diagnostics).
    pub history: Vec<f64>,
    /// Iteration matrices built so far.
    pub jacobians: u64,
    /// Newton corrections (solves with the iteration matrix) over all converged solves.
    pub iterations: u64,
    /// Converged solves (steps).
    pub solves: u64,
}

/// Smallest fraction of a Newton update the backtracking tries (2⁻¹⁰).
const MIN_STEP_FRACTION: f64 = 1.0 / 1024.0;

fn norm(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |m, v| m.max(v.abs()))
}

impl Newton {
    pub fn new(settings: NewtonSettings) -> Self {
        Self {
            settings,
            ..Self::default()
        }
    }

    /// Forgets the iteration matrix (the system or its state changed discontinuously).
    pub fn reset(&mut self) {
        self.lu = None;
    }

    /// Solves R(x) = 0 from the guess in `x`; `residual` writes R(x). `step` keys the kept
    /// matrix: the step size times whatever coefficient of the method scales it. Returns the
    /// residual evaluations used. The last evaluation is at the returned `x`.
    pub fn solve(
        &mut self,
        x: &mut [f64],
        step: f64,
        mut residual: impl FnMut(&[f64], &mut [f64]) -> Result<(), KernelError>,
    ) -> Result<u32, KernelError> {
        let n = x.len();
        let mut r = vec![0.0; n];
        let mut probe = vec![0.0; n];
        residual(x, &mut r)?;
        let mut evaluations = 1;
        if self.lu_step != step {
            self.lu = None;
        }
        self.history.clear();
        let mut slow = false;
        for iteration in 0..=self.settings.max_iterations {
            let size = norm(&r);
            self.history.push(size);
            if !size.is_finite() {
                break;
            }
            // At least one correction: a loose tolerance must not accept the predictor (a
            // torque-driven body at rest would never start to move).
            if iteration > 0 && size <= self.settings.tolerance * (1.0 + norm(x)) {
                self.iterations += iteration as u64;
                self.solves += 1;
                return Ok(evaluations);
            }
            if iteration == self.settings.max_iterations {
                break;
            }
            // A kept matrix that no longer contracts by 4× is refreshed at the current iterate.
            if self.lu.is_none() || slow {
                self.lu = Some(self.iteration_matrix(x, &r, &mut probe, &mut residual)?);
                evaluations += n as u32;
                self.lu_step = step;
            }
            let Some(lu) = &self.lu else { break };
            let mut dx = Mat::from_fn(n, 1, |i, _| -r[i]);
            lu.solve_in_place(&mut dx);
            if !(0..n).all(|i| dx[(i, 0)].is_finite()) {
                // A singular iteration matrix: nothing to gain from iterating.
                break;
            }
            // Backtracking: halve the update while it makes the residual grow. Contact and
            // other kinks make full Newton steps cycle (in and out of contact) without it.
            let base = x.to_vec();
            let mut fraction = 1.0;
            loop {
                for (i, (xi, bi)) in x.iter_mut().zip(&base).enumerate() {
                    *xi = bi + fraction * dx[(i, 0)];
                }
                residual(x, &mut r)?;
                evaluations += 1;
                if norm(&r) < size || fraction < MIN_STEP_FRACTION {
                    break;
                }
                fraction *= 0.5;
            }
            // A contraction worse than 1/4 means the kept matrix is out of date.
            slow = norm(&r) > 0.25 * size;
        }
        self.lu = None;
        Err(KernelError::NotConverged {
            iterations: self.history.len().saturating_sub(1) as u32,
            residual: self.history.last().copied().unwrap_or(f64::NAN),
        })
    }

    /// ∂R/∂x by forward differences, factorized.
    fn iteration_matrix(
        &mut self,
        x: &[f64],
        r: &[f64],
        probe: &mut [f64],
        residual: &mut impl FnMut(&[f64], &mut [f64]) -> Result<(), KernelError>,
    ) -> Result<PartialPivLu<f64>, KernelError> {
        let n = x.len();
        let mut shifted = x.to_vec();
        let mut jacobian = Mat::<f64>::zeros(n, n);
        for j in 0..n {
            let delta = f64::EPSILON.sqrt() * x[j].abs().max(1.0);
            shifted[j] = x[j] + delta;
            residual(&shifted, probe)?;
            shifted[j] = x[j];
            for i in 0..n {
                jacobian[(i, j)] = (probe[i] - r[i]) / delta;
            }
        }
        self.jacobians += 1;
        Ok(jacobian.partial_piv_lu())
    }
}
