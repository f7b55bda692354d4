//! The work of the drives along a run, W = ∫ Σ P_d dt, from their power after every step:
//! composite Simpson over pairs of steps (the quadratic through three points, exact for
//! cubics, so its error falls as h⁴ and the balance ΔE − W shows the integrator's own error for
//! RK4); a last odd step takes the same quadratic through it and the two points before.

/// A running ∫ P dt from samples (t, P) in increasing t (any spacing).
#[derive(Clone, Debug, Default)]
pub struct WorkIntegral {
    /// ∫ over the completed pairs.
    done: f64,
    /// The points since the last completed pair (its end first), at most two more.
    open: Vec<(f64, f64)>,
    /// The point before `open[0]` (for a last odd step's quadratic).
    before: Option<(f64, f64)>,
}

impl WorkIntegral {
    /// Adds the power `p` at time `t`.
    pub fn push(&mut self, t: f64, p: f64) {
        self.open.push((t, p));
        if let [a, b, c] = self.open[..] {
            self.done += quadratic_integral([a, b, c], a.0, c.0);
            self.before = Some(b);
            self.open = vec![c];
        }
    }
    /// ∫ P dt from the first sample to the last.
    pub fn total(&self) -> f64 {
        match (&self.open[..], self.before) {
            ([b, c], Some(a)) => self.done + quadratic_integral([a, *b, *c], b.0, c.0),
            // Two samples in all: the trapezoid.
            ([b, c], None) => self.done + 0.5 * (c.0 - b.0) * (b.1 + c.1),
            _ => self.done,
        }
    }
}

/// ∫ from `from` to `to` of the quadratic through the three points `p` (distinct times): by
/// Simpson's rule on the interval, exact for the quadratic.
fn quadratic_integral(p: [(f64, f64); 3], from: f64, to: f64) -> f64 {
    let at = |t: f64| {
        let [(t0, y0), (t1, y1), (t2, y2)] = p;
        y0 * (t - t1) * (t - t2) / ((t0 - t1) * (t0 - t2))
            + y1 * (t - t0) * (t - t2) / ((t1 - t0) * (t1 - t2))
            + y2 * (t - t0) * (t - t1) / ((t2 - t0) * (t2 - t1))
    };
    (to - from) / 6.0 * (at(from) + 4.0 * at(0.5 * (from + to)) + at(to))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quadratics_integrate_exactly_at_any_spacing_and_cubics_on_even_steps() {
        // P = 1 + 2t − 3t² on uneven times: ∫₀ᵀ = T + T² − T³, exact from three samples on
        // (two alone take the trapezoid).
        let times = [0.0, 0.1, 0.25, 0.3, 0.45, 0.5, 0.62];
        let mut w = WorkIntegral::default();
        for (k, &t) in times.iter().enumerate() {
            w.push(t, 1.0 + 2.0 * t - 3.0 * t * t);
            let exact = t + t * t - t * t * t;
            assert!(
                k == 1 || (w.total() - exact).abs() < 1e-14,
                "{k}: {} against {exact}",
                w.total()
            );
        }
        // A cubic at even steps: Simpson's pairs are exact; a last odd step's quadratic is off
        // by O(h⁴) only.
        let p = |t: f64| 1.0 + 2.0 * t - 3.0 * t * t + 4.0 * t * t * t;
        let exact = |t: f64| t + t * t - t * t * t + t.powi(4);
        let h = 1e-2;
        let mut w = WorkIntegral::default();
        for k in 0..=101 {
            let t = k as f64 * h;
            w.push(t, p(t));
            let error = (w.total() - exact(t)).abs();
            match k % 2 {
                0 => assert!(error < 1e-13, "{k}: {error:e}"),
                _ => assert!(k == 1 || error < 2.0 * h.powi(4), "{k}: {error:e}"),
            }
        }
    }
}
