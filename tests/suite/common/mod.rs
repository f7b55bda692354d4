//! Shared helpers of the integration tests: reference formulas and measurements.
#![allow(dead_code)]

use ferrodyn::kernel::math::Vec3;
use ferrodyn::kernel::rigid::{self, BodyRef, Data, Model};
use ferrodyn::kernel::samples::GRAVITY;
use ferrodyn::kernel::{step, Integrator, Storage};

/// Complete elliptic integral of the first kind K(k) by the arithmetic–geometric mean:
/// K(k) = π / (2 AGM(1, √(1 − k²)))  (Abramowitz & Stegun 17.6).
pub fn elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    for _ in 0..30 {
        let (an, bn) = (0.5 * (a + b), (a * b).sqrt());
        a = an;
        b = bn;
    }
    std::f64::consts::PI / (2.0 * a)
}

/// Times at which a sampled signal crosses zero upwards, located by cubic Hermite
/// interpolation with the signal's rate (error O(dt⁴)).
pub fn upward_crossings(samples: &[(f64, f64, f64)]) -> Vec<f64> {
    let mut out = Vec::new();
    for w in samples.windows(2) {
        let ((t0, x0, v0), (t1, x1, v1)) = (w[0], w[1]);
        if x0 < 0.0 && x1 >= 0.0 {
            let h = t1 - t0;
            // Hermite basis on s ∈ [0, 1]; Newton iterations from the linear guess.
            let p = |s: f64| {
                let (s2, s3) = (s * s, s * s * s);
                (2.0 * s3 - 3.0 * s2 + 1.0) * x0
                    + (s3 - 2.0 * s2 + s) * h * v0
                    + (-2.0 * s3 + 3.0 * s2) * x1
                    + (s3 - s2) * h * v1
            };
            let dp = |s: f64| {
                let s2 = s * s;
                (6.0 * s2 - 6.0 * s) * x0
                    + (3.0 * s2 - 4.0 * s + 1.0) * h * v0
                    + (-6.0 * s2 + 6.0 * s) * x1
                    + (3.0 * s2 - 2.0 * s) * h * v1
            };
            let mut s = x0 / (x0 - x1);
            for _ in 0..20 {
                s -= p(s) / dp(s);
            }
            out.push(t0 + s * h);
        }
    }
    out
}

/// Mean period from successive upward crossings.
pub fn mean_period(crossings: &[f64]) -> f64 {
    assert!(crossings.len() >= 2, "need two crossings, got {crossings:?}");
    (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64
}

/// Reference: exact period of the simple pendulum released from rest at θ0,
/// T = 4 √(L/g) K(sin(θ0/2)); for L = 1 m, θ0 = 90°, g = 9.81: 2.3678419 s.
pub fn exact_period(length: f64, theta0: f64) -> f64 {
    4.0 * (length / GRAVITY).sqrt() * elliptic_k((theta0 / 2.0).sin())
}

/// Samples (t, θ, θ̇) of a pendulum whose bob is body 0 hanging from the ground origin.
pub fn swing<I: Integrator<f64>, St: Storage>(
    model: &Model<f64, St>,
    integrator: &mut I,
    duration: f64,
    dt: f64,
    bob_point: Vec3<f64>,
) -> (Vec<(f64, f64, f64)>, Vec<f64>) {
    let mut data = Data::new(model);
    let mut samples = Vec::new();
    let mut energies = Vec::new();
    let steps = (duration / dt).round() as usize;
    for _ in 0..=steps {
        let p = data.point_position(BodyRef::Body(0), bob_point);
        let w = data.orientation(0).rotate(data.angular_velocity(0));
        let v = data.velocity(0) + w.cross(data.orientation(0).rotate(bob_point));
        // Angle from the downward vertical, positive towards +x; rate from the velocity.
        let theta = p.x.atan2(-p.z);
        let theta_dot = (v.x * -p.z + p.x * v.z) / (p.x * p.x + p.z * p.z);
        samples.push((data.time(), theta, theta_dot));
        energies.push(rigid::energy(model, &data).total());
        if data.time() < duration - 0.5 * dt {
            step(model, &mut data, integrator, dt).expect("pendulum step");
        }
    }
    (samples, energies)
}
