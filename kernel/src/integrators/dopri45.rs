//! Dormand–Prince 5(4): Dormand & Prince, "A family of embedded Runge–Kutta formulae",
//! J. Comp. Appl. Math. 6 (1980) 19–26; Hairer, Nørsett, Wanner, *Solving ODEs I*, II.5,
//! Table 5.2 (the DOPRI5 code's coefficients).
//!
//! The 5th-order solution is propagated (local extrapolation); the embedded 4th-order one only
//! estimates the error. The seventh stage is evaluated at the new solution, which FSAL would
//! reuse as the next first stage; we do not (see the `embedded` module).

use super::embedded::{EmbeddedPair, EmbeddedRk, Tableau, MAX_STAGES};

/// Marker for the Dormand–Prince 5(4) pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DormandPrince54;

/// Adaptive Dormand–Prince 5(4): seven evaluations per substep (no FSAL), propagates 5th order.
pub type Dopri45<R> = EmbeddedRk<R, DormandPrince54>;

/// Dormand–Prince tableau; `e = b⁽⁵⁾ − b̂⁽⁴⁾`.
const TABLEAU: Tableau = Tableau {
    stages: 7,
    c: [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0],
    a: [
        [0.0; MAX_STAGES],
        [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0, 0.0],
        [
            19372.0 / 6561.0,
            -25360.0 / 2187.0,
            64448.0 / 6561.0,
            -212.0 / 729.0,
            0.0,
            0.0,
            0.0,
        ],
        [
            9017.0 / 3168.0,
            -355.0 / 33.0,
            46732.0 / 5247.0,
            49.0 / 176.0,
            -5103.0 / 18656.0,
            0.0,
            0.0,
        ],
        [
            35.0 / 384.0,
            0.0,
            500.0 / 1113.0,
            125.0 / 192.0,
            -2187.0 / 6784.0,
            11.0 / 84.0,
            0.0,
        ],
    ],
    b: [
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
        0.0,
    ],
    // b̂⁽⁴⁾ = [5179/57600, 0, 7571/16695, 393/640, −92097/339200, 187/2100, 1/40].
    e: [
        71.0 / 57600.0,
        0.0,
        -71.0 / 16695.0,
        71.0 / 1920.0,
        -17253.0 / 339200.0,
        22.0 / 525.0,
        -1.0 / 40.0,
    ],
};

const _: () = assert!(TABLEAU.stages <= MAX_STAGES);

impl EmbeddedPair for DormandPrince54 {
    const TABLEAU: Tableau = TABLEAU;
    const NAME: &'static str = "dopri45";
}

#[cfg(test)]
mod tests {
    use super::super::embedded_tests::{check_tableau, observed_fixed_step_order};
    use super::{DormandPrince54, TABLEAU};

    #[test]
    fn tableau_satisfies_consistency_conditions() {
        // Reference: row sums Σ_j a_ij = c_i, Σ b = 1, Σ e = 0 (Hairer I, II.1).
        check_tableau(&TABLEAU);
    }

    #[test]
    fn propagated_solution_is_fifth_order() {
        // Reference: Dormand & Prince (1980) propagate the 5th-order solution, so fixed steps
        // converge with order 5 on the oscillator x = cos ωt.
        let order = observed_fixed_step_order::<DormandPrince54>();
        assert!((order - 5.0).abs() < 0.2, "observed order {order}");
    }
}
