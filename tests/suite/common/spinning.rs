//! The spinning-beam measurement shared by tests/suite/coupled.rs and examples/spinning_beam.rs.

use ferrodyn::host::storage::{CoupledData, FlexData, Growable, RigidData};
use ferrodyn::kernel::flex::max_frequency;
use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::math::{Mat3, Vec3};
use ferrodyn::kernel::samples::spinning_beam;
use ferrodyn::kernel::step;

/// First flapwise frequency (rad/s) of the spinning beam with the hub driven at `spin` rad/s:
/// the beam starts turning with the hub, with a flap velocity V s² (s = distance from the root,
/// and the matching gradient rate 2Vs) that mostly excites the first mode; without gravity the
/// tip z oscillates about zero and its downward zero crossings give the period.
pub fn flap_frequency(spin: f64, duration: f64) -> f64 {
    let model = spinning_beam::<f64, Growable>(spin, 0.0).expect("spinning beam model");
    let beam = model.flex();
    let mut flex = FlexData::new(beam);
    flex.set_rigid_motion(
        beam,
        Mat3::IDENTITY,
        Vec3::ZERO,
        Vec3::ZERO,
        Vec3::new(0.0, 0.0, spin),
    );
    for node in 0..beam.node_count() {
        let s = beam.reference(node).map_or(0.0, |x| x.x - 0.1);
        let rates = flex.rates_mut(node);
        rates[2] += 0.05 * s * s;
        rates[5] += 0.1 * s;
    }
    let dt = 0.8
        * max_frequency(beam, &mut flex.clone(), 500)
            .expect("frequency estimate")
            .rk4();
    let mut data = CoupledData::from_states(&model, RigidData::new(model.rigid()), flex);
    let z = |d: &CoupledData| (16..20).map(|n| d.flex().position(n).z).sum::<f64>() / 4.0;
    let (mut last, mut crossings) = (z(&data), Vec::new());
    while data.time() < duration {
        step(&model, &mut data, &mut Rk4, dt).expect("coupled step");
        let now = z(&data);
        if last > 0.0 && now <= 0.0 {
            crossings.push(data.time() - dt * now / (now - last));
        }
        last = now;
    }
    assert!(crossings.len() >= 2, "too few zero crossings: {crossings:?}");
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    2.0 * std::f64::consts::PI / period
}
