//! Consistent redundant constraints run (rows found by the rank-revealing factorization get zero
//! multipliers); conflicting ones are an error naming the joint.

use crate::common::{elliptic_k, mean_period, upward_crossings};
use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::math::{Quat, Vec3};
use ferrodyn::kernel::rigid::{
    self, assemble, forward, is_redundant_row, Body, BodyRef, Data, Frame, Joint, JointKind, Model,
};
use ferrodyn::kernel::samples::{four_bar, GRAVITY};
use ferrodyn::kernel::*;

type FourBar = Model<f64, Fixed<3, 4, 0, 20, 210>>;

fn redundant_rows<St: Storage>(model: &Model<f64, St>, data: &Data<f64, St>) -> Vec<usize> {
    (0..model.constraint_rows())
        .filter(|&r| is_redundant_row(model, data, r))
        .collect()
}

#[test]
fn four_bar_has_three_redundant_rows_in_its_last_joint() {
    // 3 bodies × 6 − 20 rows = −2 by Grübler; the mechanism moves with 1 DOF, so the rank of
    // Φ_q is 17 and 3 rows are redundant: the out-of-plane rows (z translation, tilt about x
    // and y) of the joint that closes the loop, the last one in order.
    let model: FourBar = four_bar::model(1.0).unwrap();
    assert_eq!(model.gruebler_dof(), -2);
    let mut data = Data::new(&model);
    assemble(&model, &mut data).unwrap();
    forward(&model, &mut data).unwrap();
    let redundant = redundant_rows(&model, &data);
    assert_eq!(redundant.len(), 3, "redundant rows {redundant:?}");
    let last = model.joint_first_row(3).unwrap();
    assert!(redundant.iter().all(|&r| r >= last), "{redundant:?}");
    // Their multipliers are zero: the split of the out-of-plane reactions is not unique.
    assert!(redundant.iter().all(|&r| data.multipliers()[r] == 0.0));
}

#[test]
fn four_bar_runs_ten_seconds_under_gravity_with_rk4() {
    // Released from rest with the crank at 60°: the IFToMM four-bar (crank 0.1 m, coupler
    // 0.3 m, rocker 0.25 m, ground 0.3 m). Conservative: the energy may only drift by the
    // integrator's error.
    let model: FourBar = four_bar::model(std::f64::consts::FRAC_PI_3).unwrap();
    let mut data = Data::new(&model);
    assemble(&model, &mut data).unwrap();
    let e0 = rigid::energy(&model, &data).total();
    let (mut max_phi, mut max_de, mut max_kinetic) = (0.0f64, 0.0f64, 0.0f64);
    let mut crank_turned = 0.0f64;
    for _ in 0..10_000 {
        step(&model, &mut data, &mut Rk4, 1e-3).unwrap();
        max_phi = max_phi.max(rigid::violation(&model, &data).position);
        max_de = max_de.max((rigid::energy(&model, &data).total() - e0).abs());
        max_kinetic = max_kinetic.max(rigid::energy(&model, &data).kinetic);
        crank_turned = crank_turned.max(rigid::joint_angle(&model, &data, 0).unwrap().0.abs());
    }
    let drift = max_de / max_kinetic;
    println!(
        "four-bar RK4 1 ms, 10 s: max |Φ| {max_phi:.2e}, max |ΔE| {max_de:.2e} J = {drift:.2e} of the largest kinetic energy {max_kinetic:.3e} J"
    );
    assert!(crank_turned > 0.5, "the crank must swing: {crank_turned}");
    assert!(max_phi <= 1e-10, "max |Φ| {max_phi:e}");
    assert!(drift <= 1e-6, "relative energy drift {drift:e}");
}

/// The rotation whose body x axis is `x` and z axis is `z` (unit, perpendicular), by
/// Shepperd's method on its matrix [x, z × x, z].
fn orientation(x: Vec3<f64>, z: Vec3<f64>) -> Quat<f64> {
    let y = z.cross(x);
    let m = [[x.x, y.x, z.x], [x.y, y.y, z.y], [x.z, y.z, z.z]];
    let trace = m[0][0] + m[1][1] + m[2][2];
    let q = if trace > 0.0 {
        let s = 2.0 * (1.0 + trace).sqrt();
        [
            0.25 * s,
            (m[2][1] - m[1][2]) / s,
            (m[0][2] - m[2][0]) / s,
            (m[1][0] - m[0][1]) / s,
        ]
    } else if m[0][0] > m[1][1] && m[0][0] > m[2][2] {
        let s = 2.0 * (1.0 + m[0][0] - m[1][1] - m[2][2]).sqrt();
        [
            (m[2][1] - m[1][2]) / s,
            0.25 * s,
            (m[0][1] + m[1][0]) / s,
            (m[0][2] + m[2][0]) / s,
        ]
    } else if m[1][1] > m[2][2] {
        let s = 2.0 * (1.0 + m[1][1] - m[0][0] - m[2][2]).sqrt();
        [
            (m[0][2] - m[2][0]) / s,
            (m[0][1] + m[1][0]) / s,
            0.25 * s,
            (m[1][2] + m[2][1]) / s,
        ]
    } else {
        let s = 2.0 * (1.0 + m[2][2] - m[0][0] - m[1][1]).sqrt();
        [
            (m[1][0] - m[0][1]) / s,
            (m[0][2] + m[2][0]) / s,
            (m[1][2] + m[2][1]) / s,
            0.25 * s,
        ]
    };
    Quat::from_array(q)
}

/// A pin joint between two bodies about `axis` (global), at the global point `at`.
fn pin(
    model: &[(Vec3<f64>, Quat<f64>)],
    i: BodyRef,
    j: BodyRef,
    at: Vec3<f64>,
    axis: Vec3<f64>,
) -> Joint<f64> {
    let frame = |b: BodyRef| match b {
        BodyRef::Ground => Frame::with_z_axis(at, axis),
        BodyRef::Body(k) => {
            let (x, q) = model[k];
            let inverse = q.conjugate();
            Frame::with_z_axis(inverse.rotate(at - x), inverse.rotate(axis))
        }
    };
    Joint::new(JointKind::Revolute, i, frame(i), j, frame(j))
}

#[test]
fn double_parallelogram_in_a_skew_plane_swings_as_its_equivalent_pendulum() {
    // Three equal cranks (L = 0.2 m, 0.5 kg) hinged to the ground 0.3 m apart and to one
    // coupler (1.2 kg): a loop the Grübler count calls immobile (4 bodies, 6 revolutes: 24 − 30)
    // but which moves with 1 DOF because the cranks are parallel and equal, so 7 rows are
    // redundant (3 out-of-plane rows per closed loop and 1 in-plane row). The plane is skew to
    // every axis, gravity along −z. The coupler translates on a circle without turning, so the
    // mechanism is a compound pendulum in the crank angle φ with
    //   I = 3 I_crank,pivot + m_c L², moment of gravity (3 m_k L/2 + m_c L) g_plane sin φ,
    // g_plane the component of g in the plane: T = 4 √(I / (m g_plane d)) K(sin(φ0/2)).
    let (l, spacing, m_crank, m_coupler, radius) = (0.2, 0.3, 0.5, 1.2, 0.004);
    let normal = Vec3::new(1.0, 2.0, 3.0).normalized().unwrap();
    let down = Vec3::new(0.0, 0.0, -1.0);
    // In-plane unit vectors: e_down along the projection of gravity, e_side across it.
    let e_down = (down - normal * normal.dot(down)).normalized().unwrap();
    let e_side = normal.cross(e_down);
    let g_plane = GRAVITY * down.dot(e_down);
    let phi0 = 1.0f64;
    let radial = e_down * phi0.cos() + e_side * phi0.sin();
    // Body x axis along the crank (pivot to tip), z along the plane normal.
    let crank_turn = orientation(radial, normal);
    let coupler_turn = orientation(e_side, normal);
    let pivots: Vec<Vec3<f64>> = (0..3).map(|k| e_side * (spacing * k as f64)).collect();
    let mut poses: Vec<(Vec3<f64>, Quat<f64>)> = pivots
        .iter()
        .map(|p| (*p + radial * (0.5 * l), crank_turn))
        .collect();
    poses.push((pivots[1] + radial * l, coupler_turn));
    let mut b = Model::<f64, Fixed<4, 6, 0, 30, 465>>::builder(down * GRAVITY);
    let mut refs = Vec::new();
    for (k, (x, q)) in poses.iter().enumerate() {
        let body = match k {
            3 => Body::rod(m_coupler, 2.0 * spacing + 0.1, radius),
            _ => Body::rod(m_crank, l, radius),
        };
        refs.push(b.add_body(body.at(*x, *q)).unwrap());
    }
    for k in 0..3 {
        b.add_joint(pin(&poses, BodyRef::Ground, refs[k], pivots[k], normal))
            .unwrap();
        b.add_joint(pin(&poses, refs[k], refs[3], pivots[k] + radial * l, normal))
            .unwrap();
    }
    let model = b.build().unwrap();
    assert_eq!(model.gruebler_dof(), -6);
    let mut data = Data::new(&model);
    assemble(&model, &mut data).unwrap();
    forward(&model, &mut data).unwrap();
    assert_eq!(redundant_rows(&model, &data).len(), 7);

    let i_pivot = 3.0 * m_crank * (3.0 * radius * radius + l * l) / 12.0
        + 3.0 * m_crank * (l / 2.0).powi(2)
        + m_coupler * l * l;
    let moment = (3.0 * m_crank * l / 2.0 + m_coupler * l) * g_plane;
    let reference = 4.0 * (i_pivot / moment).sqrt() * elliptic_k((phi0 / 2.0).sin());
    let dt = 1e-3;
    let mut samples = Vec::new();
    let (mut max_phi, mut max_turn) = (0.0f64, 0.0f64);
    for _ in 0..3000 {
        // Crank angle φ from e_down, measured about the normal, and its rate.
        let tip = data.point_position(refs[0], Vec3::new(0.5 * l, 0.0, 0.0)) - pivots[0];
        let phi = tip.dot(e_side).atan2(tip.dot(e_down));
        let rate = data.orientation(0).rotate(data.angular_velocity(0)).dot(normal);
        samples.push((data.time(), phi, rate));
        step(&model, &mut data, &mut Rk4, dt).unwrap();
        max_phi = max_phi.max(rigid::violation(&model, &data).position);
        let coupler_spin = data.orientation(3).rotate(data.angular_velocity(3)).norm();
        max_turn = max_turn.max(coupler_spin);
    }
    let period = mean_period(&upward_crossings(&samples));
    let rel = (period - reference).abs() / reference;
    println!("double parallelogram: T = {period:.9} s, exact {reference:.9} s, rel {rel:.2e}, max |Φ| {max_phi:.2e}");
    assert!(rel < 1e-6, "period {period} vs {reference}");
    assert!(max_phi <= 1e-10, "max |Φ| {max_phi:e}");
    assert!(max_turn < 1e-8, "the coupler must not turn: |ω| {max_turn:e}");
}

fn hinge(ground_origin: Vec3<f64>, body: BodyRef) -> Joint<f64> {
    Joint::new(
        JointKind::Revolute,
        BodyRef::Ground,
        Frame::with_z_axis(ground_origin, Vec3::Y),
        body,
        Frame::with_z_axis(Vec3::new(-0.5, 0.0, 0.0), Vec3::Y),
    )
}

fn hinged_rod(hinges: &[Vec3<f64>]) -> Model<f64, Fixed<1, 2, 0, 10, 55>> {
    let mut b = Model::builder(Vec3::new(0.0, 0.0, -GRAVITY));
    let rod = b
        .add_body(Body::rod(1.0, 1.0, 0.01).at(Vec3::new(0.5, 0.0, 0.0), Quat::IDENTITY))
        .unwrap();
    for at in hinges {
        b.add_joint(hinge(*at, rod)).unwrap();
    }
    b.build().unwrap()
}

#[test]
fn a_duplicated_hinge_moves_bit_for_bit_as_the_single_hinge() {
    // The second hinge repeats every row of the first: all 5 are redundant, get zero
    // multipliers, and leave the factorization of the first rows and the motion unchanged.
    let single = hinged_rod(&[Vec3::ZERO]);
    let double = hinged_rod(&[Vec3::ZERO, Vec3::ZERO]);
    let (mut a, mut b) = (Data::new(&single), Data::new(&double));
    for _ in 0..500 {
        step(&single, &mut a, &mut Rk4, 1e-3).unwrap();
        step(&double, &mut b, &mut Rk4, 1e-3).unwrap();
    }
    assert_eq!(a.state(), b.state());
    assert_eq!(redundant_rows(&double, &b), vec![5, 6, 7, 8, 9]);
    assert!(b.multipliers()[5..].iter().all(|l| *l == 0.0));
    assert!(a.position(0).z < -0.1, "the rod swings down");
}

#[test]
fn conflicting_redundant_hinges_are_an_error_naming_the_joint() {
    // The second hinge's ground point sits 1 mm along the axis from the first: its rows depend
    // on the first hinge's, but its |Φ| along the axis (1 mm) can never be removed.
    let model = hinged_rod(&[Vec3::ZERO, Vec3::new(0.0, 1e-3, 0.0)]);
    let mut data = Data::new(&model);
    match assemble(&model, &mut data) {
        Err(
            e @ KernelError::InconsistentConstraints {
                joint: 1, residual, ..
            },
        ) => {
            assert!((residual - 1e-3).abs() < 1e-9, "{residual}");
            assert!(e.to_string().contains("joint 1"), "{e}");
        }
        other => panic!("expected InconsistentConstraints at joint 1, got {other:?}"),
    }
    let err = step(&model, &mut Data::new(&model), &mut Rk4, 1e-3).unwrap_err();
    assert!(
        matches!(err, KernelError::InconsistentConstraints { joint: 1, .. }),
        "{err:?}"
    );
}
#[test]
fn four_bar_runs_in_f32_and_follows_f64() {
    // In f32 the pivots of the redundant rows are round-off at 1e-4 of their terms, near the
    // smallest independent ones: negative ones are taken as zero, as a semidefinite matrix
    // has none. Released at 60°, the f32 crank must follow the f64 one.
    let model32: Model<f32, Fixed<3, 4, 0, 20, 210>> = four_bar::model(std::f64::consts::FRAC_PI_3).unwrap();
    let model64: FourBar = four_bar::model(std::f64::consts::FRAC_PI_3).unwrap();
    let (mut d32, mut d64) = (Data::new(&model32), Data::new(&model64));
    assemble(&model32, &mut d32).unwrap();
    assemble(&model64, &mut d64).unwrap();
    let mut worst = 0.0f64;
    for _ in 0..1000 {
        step(&model32, &mut d32, &mut Rk4, 1e-3f32).unwrap();
        step(&model64, &mut d64, &mut Rk4, 1e-3).unwrap();
        let (a32, a64) = (
            rigid::joint_angle(&model32, &d32, 0).unwrap().0 as f64,
            rigid::joint_angle(&model64, &d64, 0).unwrap().0,
        );
        worst = worst.max((a32 - a64).abs());
    }
    let phi = rigid::violation(&model32, &d32).position;
    println!("f32 four-bar, 1 s: crank within {worst:.2e} rad of f64, max |Φ| {phi:.2e}");
    assert!(phi <= 100.0 * f32::EPSILON, "{phi:e}");
    // The bound of tests/suite/kernel_vs_host.rs: each step injects up to (8 + 100) ε₃₂ (rounding
    // and the f32 projection floor), adding up as a random walk over N steps (the angle is of
    // order 1 rad and this 1-DOF flow does not amplify).
    let tolerance = (1000f64).sqrt() * 108.0 * f32::EPSILON as f64;
    assert!(
        worst < tolerance,
        "f32 crank {worst:e} rad off (tolerance {tolerance:e})"
    );
}
