//! The kernel's external-force hook (`step_with`): forces added through `ExternalLoads` at
//! every stage act exactly like the kernel's own force elements.

use ferrodyn_host::storage::{RigidData as HostData, RigidModel as HostModel};
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::math::{Quat, Vec3};
use ferrodyn_kernel::rigid::{Axes, Body, Force};
use ferrodyn_kernel::{step, step_with, ExternalForces, ExternalLoads, NoExternalForces, TimeFunction};

/// A global force at a body point, as `Force::Point` with global axes.
struct PushAt {
    point_body: Vec3<f64>,
    force: Vec3<f64>,
    calls: usize,
}

impl ExternalForces<f64> for PushAt {
    fn apply(&mut self, _t: f64, loads: &mut ExternalLoads<'_, f64>) {
        self.calls += 1;
        let (Some(x), Some(r)) = (loads.position(0), loads.rotation(0)) else {
            return;
        };
        loads.add_force_at(0, x + r.mul_vec(self.point_body), self.force);
        // Unknown bodies are ignored, not a panic.
        loads.add_force_at(7, x, self.force);
        loads.add_torque(7, self.force);
    }
}

fn body() -> Body<f64> {
    Body::sphere(2.0, 0.1)
        .at(
            Vec3::new(0.0, 0.0, 1.0),
            Quat::from_axis_angle(Vec3::new(1.0, 1.0, 0.0), 0.3),
        )
        .moving(Vec3::new(0.1, 0.0, 0.0), Vec3::new(0.0, 2.0, 1.0))
}

#[test]
fn external_force_matches_the_point_force_element() {
    let (point, force) = (Vec3::new(0.05, 0.0, 0.1), Vec3::new(1.0, -2.0, 3.0));
    let mut with_element = HostModel::builder(Vec3::new(0.0, 0.0, -9.81));
    with_element.add_body(body()).unwrap();
    with_element
        .add_force(Force::Point {
            body: 0,
            point,
            direction: force,
            axes: Axes::Global,
            function: TimeFunction::Constant(1.0),
        })
        .unwrap();
    let element_model = with_element.build().unwrap();
    let mut plain = HostModel::builder(Vec3::new(0.0, 0.0, -9.81));
    plain.add_body(body()).unwrap();
    let plain_model = plain.build().unwrap();
    let (mut a, mut b) = (HostData::new(&element_model), HostData::new(&plain_model));
    let mut hook = PushAt {
        point_body: point,
        force,
        calls: 0,
    };
    for _ in 0..500 {
        step(&element_model, &mut a, &mut Rk4, 1e-3).unwrap();
        step_with(&plain_model, &mut b, &mut Rk4, 1e-3, &mut hook).unwrap();
    }
    // The hook takes the point globally (lever = (x + R p) − x), the element takes R p: equal
    // up to rounding of that subtraction.
    for (x, y) in a.state().iter().zip(b.state()) {
        assert!((x - y).abs() < 1e-12, "{x} vs {y}");
    }
    // RK4 evaluates the dynamics 4 times a step: the hook sees every stage.
    assert_eq!(hook.calls, 4 * 500);
}

#[test]
fn no_external_forces_is_plain_step() {
    let mut m = HostModel::builder(Vec3::new(0.0, 0.0, -9.81));
    m.add_body(body()).unwrap();
    let model = m.build().unwrap();
    let (mut a, mut b) = (HostData::new(&model), HostData::new(&model));
    for _ in 0..100 {
        step(&model, &mut a, &mut Rk4, 1e-3).unwrap();
        step_with(&model, &mut b, &mut Rk4, 1e-3, &mut NoExternalForces).unwrap();
    }
    assert_eq!(a.state(), b.state());
}
