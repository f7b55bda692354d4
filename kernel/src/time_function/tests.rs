//! Unit tests: derivatives against finite differences and closed forms, integrals against
//! quadrature, the spin-up profile against Kane, Ryan & Banerjee (1987), cubic tables.

use super::*;
use core::f64::consts::PI;

#[test]
fn sine_derivatives_match_analytic() {
    let f = TimeFunction::Sine {
        offset: 1.0,
        amplitude: 2.0,
        omega: 3.0,
        phase: 0.5,
    };
    let v = f.eval(0.7);
    let arg: f64 = 3.0 * 0.7 + 0.5;
    assert!((v.value - (1.0 + 2.0 * libm::sin(arg))).abs() < 1e-15);
    assert!((v.rate - 6.0 * libm::cos(arg)).abs() < 1e-14);
    assert!((v.accel + 18.0 * libm::sin(arg)).abs() < 1e-13);
}

#[test]
fn ramp_and_table_interpolate_linearly() {
    let r = TimeFunction::Ramp {
        start: 1.0,
        initial: 2.0,
        slope: 0.5,
    };
    assert_eq!(r.eval(0.5).value, 2.0);
    assert_eq!(r.eval(3.0).value, 3.0);
    let t = TimeFunction::table(&[(0.0, 0.0), (1.0, 2.0), (2.0, 2.0)]).unwrap();
    assert_eq!(t.eval(0.25).value, 0.5);
    assert_eq!(t.eval(0.25).rate, 2.0);
    assert_eq!(t.eval(5.0).value, 2.0);
    assert_eq!(t.eval(-1.0).value, 0.0);
}

#[test]
fn bad_tables_are_rejected() {
    let bad = TimeFunction::table(&[(0.0, 0.0), (0.0, 1.0)]).unwrap();
    assert!(matches!(
        bad.validate(Item::Joint(3)),
        Err(BuildError::InvalidParameter {
            item: Item::Joint(3),
            ..
        })
    ));
    let too_long = [(0.0f64, 0.0f64); 17];
    assert!(matches!(
        TimeFunction::table(&too_long),
        Err(BuildError::CapacityExceeded {
            capacity: Capacity::TablePoints,
            needed: 17,
            ..
        })
    ));
    let nan = TimeFunction::Constant(f64::NAN);
    assert_eq!(
        nan.validate(Item::Force(0)),
        Err(BuildError::NonFinite { item: Item::Force(0) })
    );
}

// ------------------------------------------------------------------ spin-up (KRB 1987)

const TS: f64 = 15.0;
const OMEGA_S: f64 = 6.0;

/// θ, θ̇, θ̈ of Kane, Ryan & Banerjee (1987), as printed.
fn spin_up_closed_form(t: f64) -> [f64; 3] {
    if t < TS {
        let w = 2.0 * PI / TS;
        let k = (TS / (2.0 * PI)) * (TS / (2.0 * PI));
        [
            OMEGA_S / TS * (t * t / 2.0 + k * (libm::cos(w * t) - 1.0)),
            OMEGA_S / TS * (t - TS / (2.0 * PI) * libm::sin(w * t)),
            OMEGA_S / TS * (1.0 - libm::cos(w * t)),
        ]
    } else {
        [OMEGA_S * (t - TS / 2.0), OMEGA_S, 0.0]
    }
}

fn spin_up_times() -> impl Iterator<Item = f64> {
    (0..=4000)
        .map(|i| i as f64 * 0.005)
        .chain([TS, TS - 1e-12, TS + 1e-12, 1e-6, 7.5])
}

#[test]
fn smooth_ramp_is_the_spin_up_profile_to_round_off() {
    let f = TimeFunction::smooth_ramp(0.0, 0.0, TS, OMEGA_S).unwrap();
    let mut worst = [0.0f64; 3];
    for t in spin_up_times() {
        let v = f.eval(t);
        let exact = spin_up_closed_form(t);
        for (k, (got, want)) in [v.value, v.rate, v.accel].iter().zip(exact).enumerate() {
            worst[k] = worst[k].max((got - want).abs());
        }
    }
    // θ reaches 90 rad at 20 s: 2e-13 is a few ulp of it; θ̇ ≤ 6, θ̈ ≤ 0.8.
    assert!(
        worst[0] < 2e-13 && worst[1] < 2e-14 && worst[2] < 2e-15,
        "max errors {worst:?}"
    );
    // Before the start it holds 0.
    assert_eq!(f.eval(-1.0), TimeValue::default());
}

#[test]
fn spin_up_written_as_two_pieces_is_continuous_to_second_order_at_ts() {
    // What a scene writes with numbers: K = Ωs·Ts/(4π²), ω = 2π/Ts.
    let k = OMEGA_S * TS / (4.0 * PI * PI);
    let rise = Piece::polynomial(0.0, &[-k, 0.0, OMEGA_S / (2.0 * TS)]).with_harmonic(k, 0.0, 2.0 * PI / TS);
    let cruise = Piece::polynomial(TS, &[OMEGA_S * TS / 2.0, OMEGA_S]);
    let f = TimeFunction::piecewise(&[rise, cruise]).unwrap();
    assert_eq!(f, TimeFunction::smooth_ramp(0.0, 0.0, TS, OMEGA_S).unwrap());
    let left = rise.eval(TS);
    let right = cruise.eval(0.0);
    assert!((left.value - right.value).abs() < 1e-13, "{left:?} {right:?}");
    assert!((left.rate - right.rate).abs() < 1e-14);
    assert!((left.accel - right.accel).abs() < 1e-15);
    let at = f.eval(TS);
    assert_eq!(at.value, 45.0);
    assert_eq!(at.rate, 6.0);
}

#[test]
fn spin_up_as_the_integral_of_its_rate_matches_the_closed_form() {
    // The velocity drive: ω(t) = (Ωs/Ts)[t − (Ts/2π) sin(2πt/Ts)], then Ωs.
    let rate = TimeFunction::piecewise(&[
        Piece::polynomial(0.0, &[0.0, OMEGA_S / TS]).with_harmonic(0.0, -OMEGA_S / (2.0 * PI), 2.0 * PI / TS),
        Piece::polynomial(TS, &[OMEGA_S]),
    ])
    .unwrap();
    let theta = rate.integral(0.0).unwrap();
    let mut worst = [0.0f64; 3];
    for t in spin_up_times() {
        let v = theta.eval(t);
        let exact = spin_up_closed_form(t);
        for (k, (got, want)) in [v.value, v.rate, v.accel].iter().zip(exact).enumerate() {
            worst[k] = worst[k].max((got - want).abs());
        }
    }
    assert!(
        worst[0] < 2e-13 && worst[1] < 2e-14 && worst[2] < 2e-15,
        "max errors {worst:?}"
    );
    assert!(matches!(
        theta.integral(0.0),
        Err(BuildError::InvalidParameter { .. })
    ));
}

#[test]
fn f32_spin_up_stays_close_to_the_f64_closed_form() {
    let f = TimeFunction::<f32>::smooth_ramp(0.0, 0.0, 15.0, 6.0).unwrap();
    for t in spin_up_times() {
        let v = f.eval(t as f32);
        let exact = spin_up_closed_form(t as f32 as f64);
        assert!(
            (v.value as f64 - exact[0]).abs() < 2e-5 * (1.0 + exact[0].abs()),
            "t = {t}"
        );
        assert!((v.rate as f64 - exact[1]).abs() < 2e-5 * 6.0, "t = {t}");
        assert!((v.accel as f64 - exact[2]).abs() < 2e-5, "t = {t}");
    }
}

// ------------------------------------------------------------------ derivatives and integrals

/// Central differences of value → rate and rate → accel at `t` (h = 1e-5, error O(h²)).
fn assert_derivatives(f: &TimeFunction<f64>, t: f64, tol: f64) {
    let h = 1e-5;
    let (lo, mid, hi) = (f.eval(t - h), f.eval(t), f.eval(t + h));
    let rate = (hi.value - lo.value) / (2.0 * h);
    let accel = (hi.rate - lo.rate) / (2.0 * h);
    let scale = 1.0 + mid.rate.abs() + mid.accel.abs();
    assert!(
        (rate - mid.rate).abs() < tol * scale,
        "{f:?} t = {t}: rate {} vs fd {rate}",
        mid.rate
    );
    assert!(
        (accel - mid.accel).abs() < tol * scale,
        "{f:?} t = {t}: accel {} vs fd {accel}",
        mid.accel
    );
}

/// ∫₀ᵗ by composite Simpson on a fine grid between the breakpoints.
fn simpson(f: &TimeFunction<f64>, a: f64, b: f64) -> f64 {
    let n = 2000;
    let h = (b - a) / n as f64;
    // Endpoints just inside: the one-sided limits across a jump.
    let mut s = f.eval(a + 1e-12).value + f.eval(b - 1e-12).value;
    for i in 1..n {
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        s += w * f.eval(a + i as f64 * h).value;
    }
    s * h / 3.0
}

fn samples() -> [TimeFunction<f64>; 7] {
    let pts = [(0.0, 0.3), (0.4, 1.0), (1.1, 0.7), (1.5, 1.6), (2.3, 1.2)];
    [
        TimeFunction::Constant(0.7),
        TimeFunction::Ramp {
            start: 0.5,
            initial: 1.0,
            slope: -0.8,
        },
        TimeFunction::Sine {
            offset: 0.2,
            amplitude: 1.3,
            omega: 2.5,
            phase: 0.4,
        },
        TimeFunction::table(&pts).unwrap(),
        TimeFunction::spline(&pts).unwrap(),
        TimeFunction::monotone(&pts).unwrap(),
        TimeFunction::piecewise(&[
            Piece::polynomial(0.2, &[0.5, -1.0, 0.3, 0.25]).with_harmonic(0.4, -0.7, 3.0),
            Piece::polynomial(1.3, &[0.1, 0.2]).with_harmonic(0.0, 0.5, 0.0),
            Piece::polynomial(2.0, &[1.0]).with_harmonic(0.2, 0.1, 5.0),
        ])
        .unwrap(),
    ]
}

/// Times away from every breakpoint of `samples` (0, 0.2, 0.4, 0.5, 1.1, 1.3, 1.5, 2, 2.3).
const SMOOTH_TIMES: [f64; 10] = [-0.7, 0.1, 0.3, 0.45, 0.8, 1.2, 1.4, 1.8, 2.15, 3.1];

#[test]
fn derivatives_match_finite_differences() {
    for f in samples() {
        for t in SMOOTH_TIMES {
            assert_derivatives(&f, t, 1e-8);
            let integral = f.integral(-0.3).unwrap();
            assert_derivatives(&integral, t, 1e-8);
        }
    }
}

#[test]
fn integrals_match_quadrature_and_start_at_their_initial_value() {
    let breaks = [-1.0, 0.0, 0.2, 0.4, 0.5, 1.1, 1.3, 1.5, 2.0, 2.3, 3.5];
    for f in samples() {
        let g = f.integral(0.25).unwrap();
        assert_eq!(g.eval(0.0).value, 0.25, "{f:?}");
        let mut quadrature = 0.25;
        for w in breaks.windows(2).skip(1) {
            quadrature += simpson(&f, w[0], w[1]);
            let closed = g.eval(w[1]).value;
            assert!(
                (closed - quadrature).abs() < 1e-12,
                "{f:?} at {}: {closed} vs {quadrature}",
                w[1]
            );
        }
        let before = 0.25 - simpson(&f, -1.0, 0.0);
        assert!((g.eval(-1.0).value - before).abs() < 1e-12, "{f:?}");
        // The rate of the integral is the function itself, bit for bit.
        for t in SMOOTH_TIMES {
            assert_eq!(g.eval(t).rate, f.eval(t).value);
            assert_eq!(g.eval(t).accel, f.eval(t).rate);
        }
    }
}

#[test]
fn piecewise_holds_before_its_first_piece_and_checks_its_starts() {
    let f = TimeFunction::piecewise(&[Piece::polynomial(1.0, &[2.0, 3.0])]).unwrap();
    assert_eq!(
        f.eval(0.0),
        TimeValue {
            value: 2.0,
            rate: 0.0,
            accel: 0.0
        }
    );
    assert_eq!(f.eval(2.0).value, 5.0);
    let unordered =
        TimeFunction::piecewise(&[Piece::polynomial(1.0, &[0.0]), Piece::polynomial(1.0, &[1.0])]).unwrap();
    assert_eq!(
        unordered.validate(Item::Joint(1)),
        Err(BuildError::InvalidParameter {
            item: Item::Joint(1),
            reason: "piece starts must increase strictly"
        })
    );
    let empty = TimeFunction::<f64>::piecewise(&[]).unwrap();
    assert!(empty.validate(Item::Joint(0)).is_err());
    assert!(TimeFunction::piecewise(&[Piece::polynomial(0.0, &[0.0]); 9]).is_err());
    assert!(TimeFunction::smooth_ramp(0.0, 0.0, 0.0, 1.0).is_err());
}

// ------------------------------------------------------------------ cubic tables

fn cubic(t: f64) -> [f64; 3] {
    [
        1.0 - 2.0 * t + 0.5 * t * t - 0.3 * t * t * t,
        -2.0 + t - 0.9 * t * t,
        1.0 - 1.8 * t,
    ]
}

#[test]
fn spline_and_exact_hermite_reproduce_a_cubic() {
    let times = [-0.5, 0.1, 0.25, 0.9, 1.0, 1.7, 2.6];
    let pts: [(f64, f64); 7] = times.map(|t| (t, cubic(t)[0]));
    let slopes = times.map(|t| cubic(t)[1]);
    for f in [
        TimeFunction::spline(&pts).unwrap(),
        TimeFunction::hermite(&pts, &slopes).unwrap(),
        TimeFunction::spline(&pts[..4]).unwrap(),
    ] {
        let end = if f == TimeFunction::spline(&pts[..4]).unwrap() {
            0.9
        } else {
            2.6
        };
        let mut worst = 0.0f64;
        // Inside the table (outside it the tangent lines have no curvature).
        for i in 0..200 {
            let t = -0.5 + (end + 0.5) * i as f64 / 200.0;
            let v = f.eval(t);
            let e = cubic(t);
            worst = worst
                .max((v.value - e[0]).abs())
                .max((v.rate - e[1]).abs())
                .max((v.accel - e[2]).abs());
        }
        assert!(worst < 1e-12, "max error {worst}");
    }
    // Three points: their parabola; two: their line.
    let parabola = TimeFunction::spline(&[(0.0, 0.0), (1.0, 1.0), (3.0, 9.0)]).unwrap();
    let v = parabola.eval(2.0);
    assert!((v.value - 4.0).abs() < 1e-14 && (v.rate - 4.0).abs() < 1e-14 && (v.accel - 2.0).abs() < 1e-14);
    let line = TimeFunction::spline(&[(0.0, 1.0), (2.0, 2.0)]).unwrap();
    assert_eq!(line.eval(1.0).value, 1.5);
}

#[test]
fn cubic_tables_interpolate_their_points_and_are_c1() {
    let pts = [
        (0.0, 0.0),
        (0.3, 0.1),
        (1.0, 0.9),
        (1.2, 1.0),
        (2.0, 1.0),
        (3.0, -0.5),
    ];
    for f in [
        TimeFunction::spline(&pts).unwrap(),
        TimeFunction::monotone(&pts).unwrap(),
    ] {
        let TimeFunction::Cubic(table) = f else {
            unreachable!()
        };
        for (k, &(t, v)) in pts.iter().enumerate() {
            let right = f.eval(t);
            assert_eq!(right.value, v, "{f:?} point {k}");
            assert_eq!(right.rate, table.slopes[k]);
            let left = f.eval(t - 1e-10);
            assert!((left.value - v).abs() < 1e-9, "value jumps at point {k}");
            assert!((left.rate - right.rate).abs() < 1e-8, "rate jumps at point {k}");
        }
        // Outside: along the end tangents.
        let end = f.eval(4.0);
        assert!((end.value - (-0.5 + table.slopes[5])).abs() < 1e-15 && end.accel == 0.0);
    }
    // The spline is C2 as well.
    let spline = TimeFunction::spline(&pts).unwrap();
    for &(t, _) in &pts[1..5] {
        let (l, r) = (spline.eval(t - 1e-10), spline.eval(t));
        assert!((l.accel - r.accel).abs() < 1e-7, "accel jumps at {t}");
    }
}

#[test]
fn monotone_rule_keeps_monotone_data_monotone_and_flat_runs_flat() {
    let pts = [
        (0.0, 0.0),
        (1.0, 0.0),
        (1.5, 2.0),
        (2.0, 2.1),
        (4.0, 6.0),
        (5.0, 6.0),
    ];
    let f = TimeFunction::monotone(&pts).unwrap();
    let spline = TimeFunction::spline(&pts).unwrap();
    let mut previous = f.eval(0.0).value;
    let mut spline_dips = false;
    for i in 1..=1000 {
        let t = 5.0 * i as f64 / 1000.0;
        let v = f.eval(t).value;
        assert!(v >= previous - 1e-15, "not monotone at {t}");
        previous = v;
        if t < 1.0 {
            assert_eq!(v, 0.0, "flat run moved at {t}");
        }
        spline_dips |= spline.eval(t).value < -1e-3 || spline.eval(t).value > 6.0 + 1e-3;
    }
    assert!(
        spline_dips,
        "the spline overshoots these data (why the monotone rule exists)"
    );
}

#[test]
fn bad_cubic_tables_are_rejected() {
    assert!(TimeFunction::spline(&[(0.0, 0.0), (0.0, 1.0)]).is_err());
    assert!(TimeFunction::monotone(&[(1.0, 0.0), (0.5, 1.0), (2.0, 0.0)]).is_err());
    assert!(matches!(
        TimeFunction::spline(&[(0.0f64, 0.0f64); 17]),
        Err(BuildError::CapacityExceeded {
            capacity: Capacity::TablePoints,
            ..
        })
    ));
    assert!(TimeFunction::hermite(&[(0.0, 0.0), (1.0, 1.0)], &[0.0]).is_err());
    let nan = TimeFunction::hermite(&[(0.0, 0.0), (1.0, 1.0)], &[0.0, f64::NAN]).unwrap();
    assert_eq!(
        nan.validate(Item::Force(2)),
        Err(BuildError::NonFinite { item: Item::Force(2) })
    );
    assert!(TimeFunction::<f64>::spline(&[]).is_err());
}
