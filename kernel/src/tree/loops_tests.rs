//! Tests of the loops closed on a tree: a four-bar's closure and energy, the builder's checks,
//! Φ_q and γ against differences of Φ, the mass matrix against the kinetic energy.

mod four_bar {
    use super::super::*;
    use crate::integrators::Rk4;
    use crate::math::Mat3;
    use crate::rigid::{Frame, JointKind};
    use crate::{step, Dynamics, Fixed};

    /// A planar crank-rocker four-bar in the x-z plane (pivots about y): crank A(0,0,0) →
    /// B(0,0,1), coupler B → C(2.5,0,1.5), rocker C → D(3,0,0) on the ground, closed at D by a
    /// spatial revolute joint (5 rows of which 2 are independent). Slender rods of 1 kg/m.
    type FourBar = Fixed<3, 1, 0, 5, 59>;

    fn rod(parent: Option<usize>, origin: Vec3<f64>, to: Vec3<f64>) -> Link<f64> {
        let length = to.norm();
        let (mass, across) = (length, length * length * length / 12.0);
        Link::revolute(parent, origin, Vec3::Y).with_mass(
            mass,
            to * 0.5,
            Mat3::diagonal(Vec3::new(across + 1e-4, across + 1e-4, across + 1e-4)),
        )
    }

    fn four_bar() -> Model<f64, FourBar> {
        let (a, b, c, d) = (
            Vec3::ZERO,
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(2.5, 0.0, 1.5),
            Vec3::new(3.0, 0.0, 0.0),
        );
        let mut builder = Model::<f64, FourBar>::builder(Vec3::new(0.0, 0.0, -9.81));
        builder.add_link(rod(None, a, b - a)).unwrap();
        builder.add_link(rod(Some(0), b - a, c - b)).unwrap();
        builder.add_link(rod(Some(1), c - b, d - c)).unwrap();
        let closure = Joint::new(
            JointKind::Revolute,
            BodyRef::Body(2),
            Frame::with_z_axis(d - c, Vec3::Y),
            BodyRef::Ground,
            Frame::with_z_axis(d, Vec3::Y),
        );
        builder.close_loop(closure).unwrap();
        builder.build().unwrap()
    }

    #[test]
    fn a_four_bar_closed_on_the_tree_keeps_its_loop_and_its_energy() {
        let model = four_bar();
        let mut data = Data::new(&model);
        // The crank turns at 2 rad/s; the projection after the first step makes the other
        // rates consistent, so energy is measured from then on.
        data.set_velocity(0, 2.0).unwrap();
        step(&model, &mut data, &mut Rk4, 1e-3).unwrap();
        let redundant = redundant_loop_rows(&model, &data).unwrap();
        assert_eq!(redundant.iter().filter(|r| **r).count(), 3, "{redundant:?}");
        let start = model.energy(&data).unwrap().total();
        let (mut worst_phi, mut worst_energy) = (0.0f64, 0.0f64);
        for _ in 0..2000 {
            step(&model, &mut data, &mut Rk4, 1e-3).unwrap();
            worst_phi = worst_phi.max(loop_residual(&model, &data));
            worst_energy = worst_energy.max((model.energy(&data).unwrap().total() - start).abs());
        }
        // The constraint forces do no work: energy is conserved to the RK4 error.
        assert!(worst_phi <= 1e-10, "|Φ| = {worst_phi:e}");
        assert!(
            worst_energy <= 1e-8 * start.abs().max(1.0),
            "energy drift {worst_energy:e} of {start}"
        );
        assert!(data.velocities()[0].abs() > 0.1, "the crank moves");
    }

    #[test]
    fn closing_a_loop_checks_its_joint() {
        let mut builder = Model::<f64, FourBar>::builder(Vec3::new(0.0, 0.0, -9.81));
        builder.add_link(rod(None, Vec3::ZERO, Vec3::Z)).unwrap();
        let to_nothing = Joint::new(
            JointKind::Spherical,
            BodyRef::Body(3),
            Frame::at(Vec3::ZERO),
            BodyRef::Ground,
            Frame::at(Vec3::ZERO),
        );
        assert!(builder.close_loop(to_nothing).is_err());
        let ball = Joint::new(
            JointKind::Spherical,
            BodyRef::Body(0),
            Frame::at(Vec3::Z),
            BodyRef::Ground,
            Frame::at(Vec3::Z),
        );
        assert_eq!(builder.close_loop(ball), Ok(0));
        assert!(builder.add_link(rod(Some(0), Vec3::Z, Vec3::Z)).is_err());
    }
}

mod derivatives {
    use super::super::*;
    use crate::math::Mat3;
    use crate::rigid::{Frame, JointKind};
    use crate::Fixed;

    type Spatial3 = Fixed<3, 1, 0, 5, 59>;

    /// A spatial tree of three revolutes on skew axes, closed to the ground by a revolute joint
    /// whose equations need not hold (derivatives are checked, not the closure).
    fn skew() -> Model<f64, Spatial3> {
        let mut b = Model::<f64, Spatial3>::builder(Vec3::new(0.0, 0.0, -9.81));
        let inertia = Mat3::diagonal(Vec3::new(0.01, 0.02, 0.03));
        let axes = [
            Vec3::new(0.0, 0.3, 1.0),
            Vec3::new(1.0, 0.2, 0.1),
            Vec3::new(0.2, 1.0, -0.4),
        ];
        let origins = [Vec3::ZERO, Vec3::new(0.2, 0.0, 0.1), Vec3::new(0.0, 0.3, 0.05)];
        for k in 0..3usize {
            let parent = k.checked_sub(1);
            let link = Link::revolute(parent, origins[k], axes[k]).with_mass(
                1.0,
                Vec3::new(0.1, 0.05, 0.0),
                inertia,
            );
            b.add_link(link).unwrap();
        }
        let closure = Joint::new(
            JointKind::Revolute,
            BodyRef::Body(2),
            Frame::with_z_axis(Vec3::new(0.1, 0.2, 0.0), Vec3::new(0.3, 0.1, 1.0)),
            BodyRef::Ground,
            Frame::with_z_axis(Vec3::new(0.2, 0.4, 0.1), Vec3::new(0.0, 0.5, 1.0)),
        );
        b.close_loop(closure).unwrap();
        b.build().unwrap()
    }

    fn rows_at(model: &Model<f64, Spatial3>, q: &[f64], v: &[f64]) -> ([f64; 5], [[f64; 3]; 5], [f64; 5]) {
        let mut data = Data::new(model);
        let mut work: <Spatial3 as Storage>::Bodies<LinkWork<f64>> = sized(3, LinkWork::default());
        let mut loops = Loops::of(model, &mut data.loops).unwrap();
        kinematics(&model.links, &model.shapes, q, v, &mut work);
        velocity_products(&model.links, v, &mut work);
        loops.evaluate(0.0, &model.links, (q, &work), true);
        let p = Loops::parts(loops.matrix, 3, 5).unwrap();
        let mut g = [[0.0; 3]; 5];
        for (r, row) in g.iter_mut().enumerate() {
            row.copy_from_slice(&p.jacobian[3 * r..3 * r + 3]);
        }
        (
            core::array::from_fn(|r| loops.rows[r].phi),
            g,
            core::array::from_fn(|r| loops.rows[r].gamma),
        )
    }

    #[test]
    fn loop_jacobian_and_gamma_are_the_derivatives_of_phi() {
        // Along q(t) = q + t v (q̈ = 0): Φ̇ = Φ_q v and Φ̈ = −γ, by central differences.
        let model = skew();
        let (q, v) = ([0.3, -0.7, 1.1], [0.8, -1.3, 0.6]);
        let (phi, g, gamma) = rows_at(&model, &q, &v);
        let h = 1e-4;
        let at = |t: f64| {
            rows_at(
                &model,
                &core::array::from_fn::<f64, 3, _>(|i| q[i] + t * v[i]),
                &v,
            )
            .0
        };
        let (plus, minus) = (at(h), at(-h));
        for r in 0..5 {
            let rate: f64 = g[r].iter().zip(&v).map(|(a, b)| a * b).sum();
            let fd_rate = (plus[r] - minus[r]) / (2.0 * h);
            let fd_accel = (plus[r] - 2.0 * phi[r] + minus[r]) / (h * h);
            assert!(
                (rate - fd_rate).abs() < 1e-7,
                "row {r}: Φ_q v {rate} against {fd_rate}"
            );
            assert!(
                (-gamma[r] - fd_accel).abs() < 1e-5,
                "row {r}: −γ {} against {fd_accel}",
                -gamma[r]
            );
        }
    }

    #[test]
    fn the_mass_matrix_gives_the_links_kinetic_energy() {
        // ½ vᵀ M v is the links' kinetic energy (`tree::energy`, summed link by link).
        let model = skew();
        let (q, v) = ([0.3, -0.7, 1.1], [0.8, -1.3, 0.6]);
        let mut data = Data::new(&model);
        for i in 0..3 {
            data.set_position(i, q[i]).unwrap();
            data.set_velocity(i, v[i]).unwrap();
        }
        let mut work: <Spatial3 as Storage>::Bodies<LinkWork<f64>> = sized(3, LinkWork::default());
        kinematics(&model.links, &model.shapes, &q, &v, &mut work);
        let mut mass = [0.0; 6];
        mass_matrix(&model.links, &model.shapes, &mut work, &mut mass);
        let mv: [f64; 3] = core::array::from_fn(|i| (0..3).map(|j| mass[packed(i, j)] * v[j]).sum());
        let kinetic = 0.5 * mv.iter().zip(&v).map(|(a, b)| a * b).sum::<f64>();
        let expected = crate::tree::energy(&model, &data).kinetic;
        assert!(
            (kinetic - expected).abs() < 1e-13 * expected,
            "{kinetic} against {expected}"
        );
    }
}
