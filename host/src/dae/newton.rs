//! Newton–Raphson for the implicit step equations. The iteration matrix is the system's
//! analytic one where the step equation has it ([`super::tangent`]), else a finite difference;
//! it is factorized by dense LU and kept across iterations and steps while it still makes
//! Newton contract (modified Newton). An analytic matrix built during the current solve that
//! stops making Newton contract leaves out terms that matter there (the analytic matrix has no
//! constraint curvature, Coriolis or gravity stiffness: a linkage passing a folded pose needs
//! them), so it is replaced by the finite difference at once.

use crate::spec::{NewtonSettings, TangentChoice};
use faer::linalg::solvers::{PartialPivLu, Solve};
use faer::Mat;
use ferrodyn_kernel::KernelError;

/// One step's implicit equation R(x) = 0 over a velocity-sized unknown.
pub(crate) trait StepEquation {
    /// Writes R(x) into `r`.
    fn residual(&mut self, x: &[f64], r: &mut [f64]) -> Result<(), KernelError>;
    /// Writes the analytic ∂R/∂x at `x` into `out` (n × n); `false` where there is none.
    fn matrix(&mut self, x: &[f64], out: &mut Mat<f64>) -> Result<bool, KernelError>;
}

/// A Newton solver that remembers its factorized iteration matrix.
#[derive(Default)]
pub(crate) struct Newton {
    pub settings: NewtonSettings,
    /// Where the iteration matrix comes from.
    pub tangent: TangentChoice,
    lu: Option<PartialPivLu<f64>>,
    /// The step size (times the method's coefficient) the matrix was built for: another one
    /// needs a new matrix.
    lu_step: f64,
    /// ‖R‖∞ of every iteration of the last solve (for diagnostics).
    pub history: Vec<f64>,
    /// Iteration matrices built so far.
    pub jacobians: u64,
    /// Of those, the ones built analytically.
    pub analytic: u64,
    /// Newton corrections (solves with the iteration matrix) over all converged solves.
    pub iterations: u64,
    /// Converged solves (steps).
    pub solves: u64,
    /// With [`TangentChoice::Compared`]: max |J_analytic − J_fd| / max |J_fd| of the first
    /// comparison and the largest over the run.
    pub differences: Option<(f64, f64)>,
}

/// Smallest fraction of a Newton update the backtracking tries (2⁻¹⁰).
const MIN_STEP_FRACTION: f64 = 1.0 / 1024.0;

fn norm(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |m, v| m.max(v.abs()))
}

impl Newton {
    pub fn new(settings: NewtonSettings, tangent: TangentChoice) -> Self {
        Self {
            settings,
            tangent,
            ..Self::default()
        }
    }

    /// Forgets the iteration matrix (the system or its state changed discontinuously).
    pub fn reset(&mut self) {
        self.lu = None;
    }

    /// Solves R(x) = 0 from the guess in `x`. `step` keys the kept matrix: the step size times
    /// whatever coefficient of the method scales it. Returns the residual evaluations used. The
    /// last evaluation is at the returned `x`.
    pub fn solve(
        &mut self,
        x: &mut [f64],
        step: f64,
        equation: &mut impl StepEquation,
    ) -> Result<u32, KernelError> {
        let n = x.len();
        let mut r = vec![0.0; n];
        equation.residual(x, &mut r)?;
        let mut evaluations = 1;
        if self.lu_step != step {
            self.lu = None;
        }
        self.history.clear();
        let mut slow = false;
        // The kept matrix is an analytic one built during this solve (not kept from a step before).
        let mut analytic_of_this_solve = false;
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
                let difference = slow && analytic_of_this_solve;
                let (matrix, used, analytic) = self.iteration_matrix(x, &r, equation, difference)?;
                evaluations += used;
                self.lu = Some(matrix.partial_piv_lu());
                self.lu_step = step;
                analytic_of_this_solve = analytic;
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
                equation.residual(x, &mut r)?;
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

    /// ∂R/∂x at `x` (where R(x) = `r`) as [`Newton::tangent`] says (the finite difference when
    /// `by_difference`), the residual evaluations it took and whether it is the analytic one. The
    /// equation's last evaluation is at `x` again afterwards, so a system that linearizes what
    /// it last evaluated sees `x`.
    fn iteration_matrix(
        &mut self,
        x: &[f64],
        r: &[f64],
        equation: &mut impl StepEquation,
        by_difference: bool,
    ) -> Result<(Mat<f64>, u32, bool), KernelError> {
        let n = x.len();
        let mut analytic = Mat::<f64>::zeros(n, n);
        let has_analytic = !by_difference
            && self.tangent != TangentChoice::FiniteDifference
            && equation.matrix(x, &mut analytic)?;
        self.jacobians += 1;
        if has_analytic && self.tangent == TangentChoice::Analytic {
            self.analytic += 1;
            return Ok((analytic, 0, true));
        }
        let mut used = n as u32;
        let mut probe = vec![0.0; n];
        let mut shifted = x.to_vec();
        let mut difference = Mat::<f64>::zeros(n, n);
        for j in 0..n {
            let delta = f64::EPSILON.sqrt() * x[j].abs().max(1.0);
            shifted[j] = x[j] + delta;
            equation.residual(&shifted, &mut probe)?;
            shifted[j] = x[j];
            for i in 0..n {
                difference[(i, j)] = (probe[i] - r[i]) / delta;
            }
        }
        if !has_analytic {
            return Ok((difference, used, false));
        }
        // Compared: the analytic matrix is used, its distance from the difference recorded.
        let (mut apart, mut size) = (0.0_f64, 0.0_f64);
        for j in 0..n {
            for i in 0..n {
                apart = apart.max((analytic[(i, j)] - difference[(i, j)]).abs());
                size = size.max(difference[(i, j)].abs());
            }
        }
        let relative = apart / size.max(f64::MIN_POSITIVE);
        self.differences = Some(match self.differences {
            Some((first, largest)) => (first, largest.max(relative)),
            None => (relative, relative),
        });
        // Back to the state at x for what follows (the contacts remember their last
        // evaluation).
        let mut again = vec![0.0; n];
        equation.residual(x, &mut again)?;
        used += 1;
        self.analytic += 1;
        Ok((analytic, used, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// R(x) = A x − b with an analytic matrix that leaves out A's coupling and scale (the
    /// identity): Newton with it alone diverges (I − A has eigenvalues below −1).
    struct PoorTangent;

    const A: [[f64; 2]; 2] = [[4.0, 1.0], [1.0, 3.0]];
    const B: [f64; 2] = [1.0, 2.0];

    impl StepEquation for PoorTangent {
        fn residual(&mut self, x: &[f64], r: &mut [f64]) -> Result<(), KernelError> {
            for (i, ri) in r.iter_mut().enumerate() {
                *ri = A[i][0] * x[0] + A[i][1] * x[1] - B[i];
            }
            Ok(())
        }
        fn matrix(&mut self, _x: &[f64], out: &mut Mat<f64>) -> Result<bool, KernelError> {
            *out = Mat::identity(2, 2);
            Ok(true)
        }
    }

    #[test]
    fn an_analytic_matrix_that_does_not_contract_is_replaced_by_the_finite_difference() {
        let mut newton = Newton::new(NewtonSettings::default(), TangentChoice::Analytic);
        let mut x = [0.0, 0.0];
        newton.solve(&mut x, 1e-3, &mut PoorTangent).unwrap();
        // The exact solution of A x = b, (1/11, 7/11), to the Newton tolerance (‖R‖ ≤ 1e-10 ·
        // (1 + ‖x‖), A's smallest eigenvalue 2.4).
        assert!(
            (x[0] - 1.0 / 11.0).abs() < 1e-10 && (x[1] - 7.0 / 11.0).abs() < 1e-10,
            "{x:?}"
        );
        // One analytic matrix (tried once), then the finite difference.
        assert_eq!((newton.jacobians, newton.analytic), (2, 1));
    }
}
