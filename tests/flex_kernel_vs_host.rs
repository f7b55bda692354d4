//! Cross-validation of flexible (ANCF) bodies: the kernel's fixed-capacity model (sized for a
//! microcontroller) against the host's model, and the kernel's f32 path against its f64 path,
//! on random small clamped blocks.
//!
//! The host has no separate dynamic flexible path: the CLI steps flexible bodies with the
//! kernel's own `FlexModel` at large capacities ([`HostFlexible`], 400 nodes, 1000 tets, 2·10⁶
//! skyline entries). So "kernel vs host" here is the MCU-sized instance against that host
//! instance, both stepped 1000 times with RK4 and compared after every step. Reference: the f64
//! kernel model; the host must reproduce it to 1e-12 relative.

mod common;
use common::with_stack;

use ferrodyn::host::flex_run::HostFlexible;
use ferrodyn::kernel::ancf::Material;
use ferrodyn::kernel::flex::{max_frequency, step_flex, Fixity, FlexData, FlexModel};
use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::math::Vec3;
use ferrodyn::kernel::models::{add_box_mesh, GRAVITY};
use ferrodyn::kernel::Real;
use proptest::prelude::*;

/// The MCU-sized capacities: up to 2 hexahedra (12 nodes, 12 tets) and their mass profile.
const NODES: usize = 12;
const TETS: usize = 12;
const SKYLINE: usize = 8_000;
type Kernel<R> = FlexModel<R, NODES, TETS, SKYLINE>;

/// A random block: material, size, divisions along x, gravity tilt.
#[derive(Clone, Debug)]
struct Block {
    neo_hookean: bool,
    youngs: f64,
    poisson: f64,
    density: f64,
    size: [f64; 3],
    divisions: usize,
    tilt: f64,
}

fn block() -> impl Strategy<Value = Block> {
    (
        any::<bool>(),
        1e5f64..1e7,
        0.1f64..0.45,
        500.0f64..3000.0,
        (0.1f64..0.4, 0.05f64..0.15, 0.05f64..0.15),
        1usize..=2,
        -1.0f64..1.0,
    )
        .prop_map(
            |(neo_hookean, youngs, poisson, density, (lx, ly, lz), divisions, tilt)| Block {
                neo_hookean,
                youngs,
                poisson,
                density,
                size: [lx, ly, lz],
                divisions,
                tilt,
            },
        )
}

impl Block {
    /// The same block with every parameter rounded to f32 (so an f64 model built from it sees
    /// the f32 model's inputs exactly).
    fn rounded(&self) -> Self {
        let r = |x: f64| x as f32 as f64;
        Self {
            youngs: r(self.youngs),
            poisson: r(self.poisson),
            density: r(self.density),
            size: self.size.map(r),
            tilt: r(self.tilt),
            ..self.clone()
        }
    }

    /// Builds the block in a model of any capacity: root face x = 0 clamped, gravity tilted by
    /// `tilt` rad from −z towards +y.
    fn build<R: Real, const N: usize, const E: usize, const S: usize>(&self) -> Box<FlexModel<R, N, E, S>> {
        let r = R::from_f64;
        let material = if self.neo_hookean {
            Material::neo_hookean(r(self.youngs), r(self.poisson), r(self.density))
        } else {
            Material::st_venant_kirchhoff(r(self.youngs), r(self.poisson), r(self.density))
        }
        .unwrap();
        let g = r(GRAVITY);
        let gravity = Vec3::new(R::ZERO, g * r(self.tilt).sin(), -(g * r(self.tilt).cos()));
        let mut b = FlexModel::<R, N, E, S>::builder(material, gravity);
        let size = Vec3::new(r(self.size[0]), r(self.size[1]), r(self.size[2]));
        add_box_mesh(&mut b, Vec3::ZERO, size, [self.divisions, 1, 1]).unwrap();
        b.fix_plane(0, R::ZERO, r(1e-9), Fixity::ClampedFace { normal_axis: 0 })
            .unwrap();
        Box::new(b.build().unwrap())
    }
}

/// Largest |a − b| / max(1, |b|) over two states.
fn relative_difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .fold(0.0, |m, (x, y)| m.max((x - y).abs() / y.abs().max(1.0)))
}

/// Half the RK4 stability limit of the block, from its highest frequency at rest.
fn stable_step(model: &Kernel<f64>) -> f64 {
    let mut data = Box::new(FlexData::new(model));
    0.5 * max_frequency(model, &mut data, 200).unwrap().rk4()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// Kernel (MCU capacities) and host (CLI capacities) step the same block alike: 1000 RK4
    /// steps, states compared after every step. Same routines over different capacities, so in
    /// practice they agree to the bit (printed: 0).
    #[test]
    fn host_flexible_matches_kernel_flexible(b in block()) {
        let worst = with_stack(move || {
            let kernel = b.build::<f64, NODES, TETS, SKYLINE>();
            let host: Box<HostFlexible> = b.build();
            let dt = stable_step(&kernel);
            let mut kd = Box::new(FlexData::new(&*kernel));
            let mut hd = Box::new(FlexData::new(&*host));
            let mut worst = 0.0f64;
            for _ in 0..1000 {
                step_flex(&*kernel, &mut kd, &mut Rk4, dt).unwrap();
                step_flex(&*host, &mut hd, &mut Rk4, dt).unwrap();
                worst = worst.max(relative_difference(hd.state(), kd.state()));
            }
            println!("host vs kernel, {} tets, dt {dt:.3e}: {worst:.3e}", kernel.element_count());
            worst
        });
        prop_assert!(worst <= 1e-12, "host vs kernel: {worst:.3e} relative");
    }

    /// The f32 kernel follows the f64 kernel within the rounding the f32 path must accumulate.
    /// Derivation of the tolerance: the f64 model is built from the f32-rounded parameters, so
    /// the runs differ by arithmetic rounding only, of two kinds, each measured on f64 twins:
    /// (1) state rounding, c·ε₃₂ per step (c = 8 as for the rigid chain), independent between
    /// steps: a random walk √N, unless the flow amplifies it; the amplification A is the growth
    /// of an ε₃₂ perturbation of every free rate. (2) Strain rounding: the Green strain
    /// E = ½(FᵀF − I) cancels with F ≈ I, so in f32 it carries an absolute error of about
    /// c·ε₃₂, i.e. a relative stress error c·ε₃₂/s for a strain of size s (s measured as the
    /// largest |F − I| along the f64 run). Its effect is measured as the difference D between
    /// the f64 run and an f64 twin whose Young's modulus is scaled by 1 + c·ε₃₂/s (the same
    /// stress error, made systematic: an upper bound of the random one).
    /// So tol = c·(√N + A)·ε₃₂ + D. This second term dominates: for small strains the f32
    /// path of an ANCF body is far less accurate than ε₃₂ (printed: worst vs both terms).
    ///
    /// FINDING (ignored until fixed): the f32 path does not meet this tolerance. Already after
    /// ONE step from rest it differs from f64 by 1e-3–4e-2 (absolute, ~10⁵ ε₃₂), always in the
    /// rates of the gradient coordinates (e.g. ∂ṙ/∂Z of a free node), while the f64 rates are
    /// ~1e-3: an acceleration error of ~10² m/s² on the gradient modes, far above both rounding
    /// terms (≤ 1e-3). Isolated: the 6-tet block of the firmware (E = 1 MPa), undeformed, at
    /// rest, with ZERO gravity, gets a gradient-coordinate rate (∂ṙ_x/∂X of node 4) of 2.7e-4
    /// after one 10 µs RK4 step in f32 (2.7e-5 after 1 µs: a constant spurious acceleration of
    /// ≈ 27 s⁻²), against 3e-13 in f64: the f32 elastic force of the reference state is far from
    /// zero, or is amplified by the f32 mass solve in the gradient coordinates (whose mass
    /// entries scale with h² against the positions). Run with `--ignored --nocapture` to see
    /// the figures.
    #[test]
    #[ignore = "f32 ANCF path deviates ~1e-2 from f64 after one step (gradient rates); see doc"]
    fn f32_kernel_follows_f64_within_rounding(b in block()) {
        let (worst, tolerance, amplification) = with_stack(move || {
            const STEPS: usize = 200;
            const C: f64 = 8.0;
            let rounded = b.rounded();
            let m64 = rounded.build::<f64, NODES, TETS, SKYLINE>();
            let m32 = b.build::<f32, NODES, TETS, SKYLINE>();
            // The step as the f32 run sees it.
            let dt = stable_step(&m64) as f32 as f64;
            let eps = f32::EPSILON as f64;
            let (mut d64, mut d32, mut dp) = (
                Box::new(FlexData::new(&*m64)),
                Box::new(FlexData::new(&*m32)),
                Box::new(FlexData::new(&*m64)),
            );
            for node in 0..m64.node_count() {
                for (k, v) in dp.rates_mut(node).iter_mut().enumerate() {
                    if m64.fixity(node) == Fixity::Free {
                        *v += if k % 2 == 0 { eps } else { -eps };
                    }
                }
            }
            // One-step (local) difference of the f32 path, from the same start.
            let local = {
                let (mut a, mut b) = (Box::new(FlexData::new(&*m64)), Box::new(FlexData::new(&*m32)));
                step_flex(&*m64, &mut a, &mut Rk4, dt).unwrap();
                step_flex(&*m32, &mut b, &mut Rk4, dt as f32).unwrap();
                let sb: Vec<f64> = b.state().iter().map(|&x| x as f64).collect();
                relative_difference(&sb, a.state())
            };
            let (mut worst, mut strain) = (0.0f64, 0.0f64);
            let mut reference = Vec::with_capacity(STEPS);
            for _ in 0..STEPS {
                step_flex(&*m64, &mut d64, &mut Rk4, dt).unwrap();
                step_flex(&*m32, &mut d32, &mut Rk4, dt as f32).unwrap();
                step_flex(&*m64, &mut dp, &mut Rk4, dt).unwrap();
                let s32: Vec<f64> = d32.state().iter().map(|&x| x as f64).collect();
                worst = worst.max(relative_difference(&s32, d64.state()));
                strain = strain.max(largest_gradient_strain(&d64, m64.node_count()));
                reference.push(d64.state().to_vec());
            }
            let amplification = relative_difference(dp.state(), d64.state()) / eps;
            // The stress-error twin.
            let stiffer = Block { youngs: rounded.youngs * (1.0 + C * eps / strain), ..rounded.clone() };
            let ms = stiffer.build::<f64, NODES, TETS, SKYLINE>();
            let mut ds = Box::new(FlexData::new(&*ms));
            let mut stress_effect = 0.0f64;
            for state in &reference {
                step_flex(&*ms, &mut ds, &mut Rk4, dt).unwrap();
                stress_effect = stress_effect.max(relative_difference(ds.state(), state));
            }
            let rounding = C * ((STEPS as f64).sqrt() + amplification) * eps;
            let tolerance = rounding + stress_effect;
            println!(
                "f32 vs f64, {} tets: {worst:.3e} (after one step {local:.3e}); tolerance {tolerance:.3e} = rounding {rounding:.3e} (A = {amplification:.1}) + strain rounding {stress_effect:.3e} (s = {strain:.2e})",
                m64.element_count(),
            );
            (worst, tolerance, amplification)
        });
        prop_assert!(
            worst <= tolerance,
            "f32 vs f64: {worst:.3e} relative, tolerance {tolerance:.3e} (amplification {amplification:.1})"
        );
    }
}

/// Largest |∂r/∂X − I| entry over the nodes: the size of the strain.
fn largest_gradient_strain(data: &FlexData<f64, NODES, SKYLINE>, nodes: usize) -> f64 {
    let mut s = 0.0f64;
    for node in 0..nodes {
        for (k, &g) in data.coordinates(node)[3..].iter().enumerate() {
            let identity = if k % 4 == 0 { 1.0 } else { 0.0 };
            s = s.max((g - identity).abs());
        }
    }
    s
}
