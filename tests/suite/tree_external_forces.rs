//! External forces on the links of a tree in joint coordinates (`Dynamics::step_with`): against
//! static equilibrium, and against the Cartesian model of the same chain under the same forces.

use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::math::{Mat3, Vec3};
use ferrodyn::kernel::rigid::BodyRef;
use ferrodyn::kernel::samples::{revolute_chain, revolute_chain_tree, ChainSpec, GRAVITY};
use ferrodyn::kernel::{step_with, tree, Dynamics, ExternalForces, ExternalLoads, Fixed};

/// A constant global force at a point fixed in body `body` (body coordinates), and a constant
/// global torque on body `torqued`.
struct Loads {
    body: usize,
    local: Vec3<f64>,
    force: Vec3<f64>,
    torqued: usize,
    torque: Vec3<f64>,
}

impl ExternalForces<f64> for Loads {
    fn apply(&mut self, _t: f64, loads: &mut ExternalLoads<'_, f64>) {
        if let (Some(x), Some(r)) = (loads.position(self.body), loads.rotation(self.body)) {
            loads.add_force_at(self.body, x + r.mul_vec(self.local), self.force);
        }
        loads.add_torque(self.torqued, self.torque);
    }
}

/// A 1 kg, 1 m rod hinged about y at the origin, lying along +x, under gravity.
fn rod() -> tree::Model<f64, Fixed<1>> {
    let mut b = tree::Model::builder(Vec3::new(0.0, 0.0, -GRAVITY));
    let inertia = Mat3::diagonal(Vec3::new(5e-5, 1.0 / 12.0, 1.0 / 12.0));
    let link =
        tree::Link::revolute(None, Vec3::ZERO, Vec3::Y).with_mass(1.0, Vec3::new(0.5, 0.0, 0.0), inertia);
    b.add_link(link).unwrap();
    b.build().unwrap()
}

#[test]
fn a_force_or_a_torque_that_balances_gravity_holds_the_rod_at_rest() {
    // Reference: statics. Gravity's moment about the hinge is m g L/2 = 4.905 N·m about +y; an
    // upward tip force m g/2 or a torque −m g L/2 ŷ cancels it, so the rod stays horizontal.
    let model = rod();
    let cases = [
        (Vec3::new(0.0, 0.0, 0.5 * GRAVITY), Vec3::ZERO),
        (Vec3::ZERO, Vec3::new(0.0, -0.5 * GRAVITY, 0.0)),
    ];
    for (force, torque) in cases {
        let mut loads = Loads {
            body: 0,
            local: Vec3::new(1.0, 0.0, 0.0),
            force,
            torqued: 0,
            torque,
        };
        let mut data = model.new_data();
        for _ in 0..1000 {
            step_with(&model, &mut data, &mut Rk4, 1e-3, &mut loads).unwrap();
        }
        let [angle, rate] = [data.positions()[0], data.velocities()[0]];
        assert!(
            angle.abs() < 1e-12 && rate.abs() < 1e-12,
            "{force:?} {torque:?}: θ {angle:e}, θ̇ {rate:e}"
        );
    }
    // Without the load it falls: θ̈ = m g (L/2) / (I_cg + m (L/2)²) = 4.905 / (1/3).
    let mut free = model.new_data();
    model.step(&mut free, &mut Rk4, 1e-3).unwrap();
    let expected = 0.5 * (0.5 * GRAVITY * 3.0) * 1e-6;
    assert!(
        (free.positions()[0] - expected).abs() < 1e-9,
        "{}",
        free.positions()[0]
    );
}

/// Largest tip-position difference between the tree and the Cartesian 3-link chain under the
/// same loads, stepped `steps` times by `dt`.
fn tip_gap(dt: f64, steps: usize) -> f64 {
    let spec = ChainSpec::standard(3);
    let cartesian =
        revolute_chain::<f64, Fixed<3, 3, 0, 15, { ChainSpec::<f64>::skyline_entries(3) }>>(&spec).unwrap();
    let joint_space = revolute_chain_tree::<f64, Fixed<3>>(&spec).unwrap();
    // Body origins of the Cartesian chain sit at the rods' centres, link origins of the tree on
    // the hinges: the tip of the last rod is +½ m resp. +1 m along its x.
    let force = Vec3::new(3.0, -1.5, 4.0);
    let torque = Vec3::new(0.5, 2.0, -1.0);
    let load = |local| Loads {
        body: 2,
        local,
        force,
        torqued: 0,
        torque,
    };
    let (mut cartesian_loads, mut tree_loads) =
        (load(Vec3::new(0.5, 0.0, 0.0)), load(Vec3::new(1.0, 0.0, 0.0)));
    let (mut cd, mut td) = (cartesian.new_data(), joint_space.new_data());
    let mut worst = 0.0f64;
    for _ in 0..steps {
        step_with(&cartesian, &mut cd, &mut Rk4, dt, &mut cartesian_loads).unwrap();
        step_with(&joint_space, &mut td, &mut Rk4, dt, &mut tree_loads).unwrap();
        let tip = cd.point_position(BodyRef::Body(2), Vec3::new(0.5, 0.0, 0.0));
        let tree_tip = tree::link_states(&joint_space, &td)[2].point(Vec3::new(1.0, 0.0, 0.0));
        worst = worst.max((tree_tip - tip).norm());
    }
    worst
}

#[test]
fn loaded_tree_follows_the_loaded_cartesian_chain() {
    // Reference: the Cartesian model of the same chain (maximal coordinates, constraints,
    // projection) under the same force at the tip and torque on the first link. Both are one
    // ODE, so they differ by RK4's truncation error only: the gap must shrink as h⁴ (16× per
    // halving); a wrongly applied load would not shrink. The torque about x and z is carried by
    // the hinges; only its y part and the force's moment drive the chain.
    let (gap, half) = (tip_gap(1e-3, 1000), tip_gap(5e-4, 2000));
    let ratio = gap / half;
    println!("3-link chain under loads, RK4, 1 s: tip gap {gap:.2e} m at 1 ms, {half:.2e} m at 0.5 ms (ratio {ratio:.1})");
    assert!(
        (12.0..=20.0).contains(&ratio),
        "gap shrinks {ratio:.1}× per halving, not 16×"
    );
    assert!(gap < 1e-8, "{gap:e} m");
}
