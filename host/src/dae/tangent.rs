//! The analytic iteration matrix of the BDF and generalized-α steps, from the system's mass,
//! damping and stiffness.
//!
//! Both methods solve for a velocity-sized unknown x with the constrained accelerations
//! v̇ = f(q, v) of the system (Π the constrained response, [`ferrodyn_kernel::tree::constrain_columns`]):
//! f = Π M⁻¹(Q − C), so with D = −∂Q/∂v and K = −∂Q/∂q (q perturbed along the velocity
//! coordinates, q ∘ exp(δθ) for quaternions)
//!
//!   ∂f/∂v = −Π M⁻¹ D,  ∂f/∂q = −Π M⁻¹ K
//!
//! leaving out the velocity products' derivatives (∂C/∂v, zero at rest), ∂M/∂q v̇, the
//! gravity load's ∂/∂q, the constraint rows' curvature (∂Φ_q/∂q, ∂γ/∂q) and the moving lever
//! of a force at a point (∂Jᵀ/∂q F): a modified Newton in those terms.
//!
//! - **BDF** (x = v_{n+1}, R = v − r − β₀h f(q_n ∘ exp(h(w + β₀v)), v), β₀ = 1 for BDF1, 2/3
//!   for BDF2): ∂q/∂v = β₀h, so ∂R/∂v = I + Π M⁻¹(β₀h D + (β₀h)² K) = Π-scaled
//!   (M + β₀h D + (β₀h)² K), the Chrono/Exudyn matrix M + hγD + h²βK with γ = β₀, β = β₀².
//! - **Generalized-α** (x = v̇_{n+1}, R = v̇ − f(q, v), a = (α_f v̇_n + (1−α_f) v̇ − α_m a_n)/(1−α_m),
//!   v = v_n + h((1−γ)a_n + γa), q = q_n ∘ exp(h(v_n + h((½−β)a_n + βa)))): with
//!   c = (1−α_f)/(1−α_m), ∂a/∂v̇ = c, ∂v/∂v̇ = hγc, ∂q/∂v̇ = h²βc, so
//!   ∂R/∂v̇ = I + Π M⁻¹(hγc D + h²βc K): Arnold & Brüls' M β' + C_t γ' + K_t with β' = (1−α_m)/(h²β(1−α_f)),
//!   γ' = γ/(hβ), divided by β' and multiplied by M⁻¹.
//!
//! So a system gives J = I + Π M⁻¹(c_v D + c_q K) for the method's (c_v, c_q).

use faer::Mat;
use ferrodyn_kernel::KernelError;

/// A system that can write its step's iteration matrix J = I + Π M⁻¹(c_v D + c_q K).
pub trait Tangent {
    /// Writes J at time `t` and state `y` = [q | v] into `out` (nv × nv).
    fn iteration_matrix(
        &mut self,
        t: f64,
        y: &[f64],
        c_v: f64,
        c_q: f64,
        out: &mut Mat<f64>,
    ) -> Result<(), KernelError>;
}

/// Writes `tangent`'s matrix for (c_v, c_q) at `t`, `y` into `out`; `false` without one.
pub(super) fn write(
    tangent: Option<&mut (dyn Tangent + '_)>,
    (t, y): (f64, &[f64]),
    (c_v, c_q): (f64, f64),
    out: &mut Mat<f64>,
) -> Result<bool, KernelError> {
    match tangent {
        Some(tangent) => tangent.iteration_matrix(t, y, c_v, c_q, out).map(|()| true),
        None => Ok(false),
    }
}
