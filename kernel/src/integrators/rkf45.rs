//! Runge–Kutta–Fehlberg 4(5): Fehlberg, "Low-order classical Runge–Kutta formulas with stepsize
//! control and their application to some heat transfer problems", NASA TR R-315 (1969),
//! Table III; also Hairer, Nørsett, Wanner, *Solving ODEs I*, II.4, Table 4.3.
//!
//! The 4th-order solution is propagated (as Fehlberg intended); the 5th-order one only
//! estimates the error.

use super::embedded::{EmbeddedPair, EmbeddedRk, Tableau, MAX_STAGES};

/// Marker for the Fehlberg 4(5) pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fehlberg45;

/// Adaptive Runge–Kutta–Fehlberg 4(5): six evaluations per substep, propagates 4th order.
pub type Rkf45<R> = EmbeddedRk<R, Fehlberg45>;

/// Fehlberg's tableau; `e = b⁽⁴⁾ − b⁽⁵⁾`.
const TABLEAU: Tableau = Tableau {
    stages: 6,
    c: [0.0, 1.0 / 4.0, 3.0 / 8.0, 12.0 / 13.0, 1.0, 1.0 / 2.0, 0.0],
    a: [
        [0.0; MAX_STAGES],
        [1.0 / 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [3.0 / 32.0, 9.0 / 32.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [
            1932.0 / 2197.0,
            -7200.0 / 2197.0,
            7296.0 / 2197.0,
            0.0,
            0.0,
            0.0,
            0.0,
        ],
        [
            439.0 / 216.0,
            -8.0,
            3680.0 / 513.0,
            -845.0 / 4104.0,
            0.0,
            0.0,
            0.0,
        ],
        [
            -8.0 / 27.0,
            2.0,
            -3544.0 / 2565.0,
            1859.0 / 4104.0,
            -11.0 / 40.0,
            0.0,
            0.0,
        ],
        [0.0; MAX_STAGES],
    ],
    b: [
        25.0 / 216.0,
        0.0,
        1408.0 / 2565.0,
        2197.0 / 4104.0,
        -1.0 / 5.0,
        0.0,
        0.0,
    ],
    // b⁽⁵⁾ = [16/135, 0, 6656/12825, 28561/56430, −9/50, 2/55].
    e: [
        -1.0 / 360.0,
        0.0,
        128.0 / 4275.0,
        2197.0 / 75240.0,
        -1.0 / 50.0,
        -2.0 / 55.0,
        0.0,
    ],
};

const _: () = assert!(TABLEAU.stages <= MAX_STAGES);

impl EmbeddedPair for Fehlberg45 {
    const TABLEAU: Tableau = TABLEAU;
    const NAME: &'static str = "rkf45";
}

#[cfg(test)]
mod tests {
    use super::super::embedded_tests::{check_tableau, observed_fixed_step_order};
    use super::{Fehlberg45, TABLEAU};

    #[test]
    fn tableau_satisfies_consistency_conditions() {
        // Reference: row sums Σ_j a_ij = c_i, Σ b = 1, Σ e = 0 (Hairer I, II.1).
        check_tableau(&TABLEAU);
    }

    #[test]
    fn propagated_solution_is_fourth_order() {
        // Reference: Fehlberg (1969) propagates the 4th-order solution, so fixed steps converge
        // with order 4 on the oscillator x = cos ωt.
        let order = observed_fixed_step_order::<Fehlberg45>();
        assert!((order - 4.0).abs() < 0.2, "observed order {order}");
    }
}
