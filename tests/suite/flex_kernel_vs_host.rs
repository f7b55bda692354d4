//! Cross-validation of flexible (ANCF) bodies: the kernel's fixed-capacity model (sized for a
//! microcontroller) against the same model on the host's growable storage, for flexible bodies
//! alone and attached to a rigid hub; and the kernel's f32 path against its f64 path, on random
//! small clamped blocks.
//!
//! The host steps flexible bodies with the kernel's own model over `Growable` storage: the same
//! routines over lists of another kind. So the two must give the same bits after every step
//! (their state digests are compared); the reference is the fixed-capacity model.

use ferrodyn::host::storage::Growable;
use ferrodyn::kernel::ancf::Material;
use ferrodyn::kernel::flex::{self, max_frequency, Fixity};
use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::math::Vec3;
use ferrodyn::kernel::samples::{add_box_mesh, spinning_beam, GRAVITY};
use ferrodyn::kernel::{step, Dynamics, Fixed, Real, Storage};
use proptest::prelude::*;

/// The MCU-sized capacities: up to 2 hexahedra (12 nodes, 12 tets) and their mass profile.
type Mcu = Fixed<0, 0, 0, 0, 0, 12, 12, 8_000>;
type Kernel<R> = flex::Model<R, Mcu>;

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
        // A soft long block folds under its own weight until an element inverts (the kernel
        // then stops with `ElementInverted`, as it must): E = 1e5 Pa, 0.34 m long, 0.15 m thick
        // sags 67 % of its length. Kept: blocks whose sag is small, as the motions compared
        // here are (it swings to twice its static sag).
        .prop_filter(
            "the block carries its own weight (static sag under 5 % of its length)",
            |b| b.sag() < 0.05,
        )
}

impl Block {
    /// Static tip deflection under its own weight relative to its length, as an
    /// Euler–Bernoulli cantilever bent across its thinner side t: w/L = ρgAL³/(8EI) with
    /// A = b·t and I = b·t³/12, so 12ρgL³/(8Et²).
    fn sag(&self) -> f64 {
        let [length, width, height] = self.size;
        let t = width.min(height);
        12.0 * self.density * GRAVITY * length.powi(3) / (8.0 * self.youngs * t * t)
    }

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
    fn build<R: Real, St: Storage>(&self) -> Box<flex::Model<R, St>> {
        let r = R::from_f64;
        let material = if self.neo_hookean {
            Material::neo_hookean(r(self.youngs), r(self.poisson), r(self.density))
        } else {
            Material::st_venant_kirchhoff(r(self.youngs), r(self.poisson), r(self.density))
        }
        .unwrap();
        let g = r(GRAVITY);
        let gravity = Vec3::new(R::ZERO, g * r(self.tilt).sin(), -(g * r(self.tilt).cos()));
        let mut b = flex::Model::<R, St>::builder(material, gravity);
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
    let mut data = Box::new(model.new_data());
    0.5 * max_frequency(model, &mut data, 200).unwrap().rk4()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// Kernel (MCU capacities) and host (growable storage) step the same block to the same
    /// bits: 1000 RK4 steps, state digests compared after every step.
    #[test]
    fn growable_flexible_gives_the_bits_of_fixed_flexible(b in block()) {
        let kernel = b.build::<f64, Mcu>();
        let host = b.build::<f64, Growable>();
        let dt = stable_step(&kernel);
        let (mut kd, mut hd) = (Box::new(kernel.new_data()), host.new_data());
        for n in 0..1000 {
            step(&*kernel, &mut kd, &mut Rk4, dt).unwrap();
            step(&*host, &mut hd, &mut Rk4, dt).unwrap();
            prop_assert_eq!(host.digest(&hd), kernel.digest(&kd), "step {}", n + 1);
        }
        prop_assert_eq!(host.state(&hd), kernel.state(&kd));
    }

    /// The f32 kernel follows the f64 kernel: 200 RK4 steps from rest, f64 model built from
    /// the f32-rounded parameters (so the runs differ by rounding only).
    ///
    /// What is compared: the displacements the integrators advance, `[u | u̇]` with
    /// u = e − e_ref (positions r − X, gradients ∂r/∂X − I, and their rates), in four groups
    /// (node positions, gradients, velocities, gradient rates), each as the largest
    /// |u₃₂ − u₆₄| over the run relative to the largest |u₆₄| of its group over the run: the
    /// error of the computed motion relative to the motion. Comparing u is comparing the
    /// positions X + u without the rounding of that sum to f32 on output (ε₃₂|X|/2, which
    /// is not an error of the dynamics). The measure hides no rounding of absolute coordinates:
    /// before the state held displacements, the coordinates e were stored in f32, each rounding
    /// a strain of ε₃₂|X|/h, and the same measure gave (worst of 8 blocks) 1e-3 for positions,
    /// 8e-3 for gradients, 3e-2 for velocities and 0.16 for gradient rates; the issue's
    /// per-coordinate |e₃₂ − e₆₄| / max(1, |e₆₄|) over the whole state gave 4e-3 to 0.12.
    ///
    /// Measured (`f32_against_f64_survey`, 200 blocks drawn as here), worst and median:
    /// positions 7.3e-7 and 1.9e-7, gradients 1.3e-6 and 3.8e-7, velocities 5.9e-6 and 2.0e-6,
    /// gradient rates 3.3e-5 and 1.4e-5 (blocks that carry their own weight; before that filter,
    /// 6.6e-7, 1.2e-6, 4.4e-6 and 3.9e-5). The gradient rates show f32 rounding in the strain:
    /// each error excites the stiffest (gradient) modes, whose rate is ω_max ≈ 1.4/h larger.
    /// Step by step on the same blocks (gradient rates, worst and median): before, 1.6e-4 and
    /// 6.5e-5 (positions 8.8e-6, gradients 2.6e-5); element tables computed in f64, 1.8e-4 and
    /// 6.6e-5 (positions 6.8e-7, gradients 2.1e-6); the strain from the rotation split of each
    /// element's displacements, 1.2e-4 and 4.3e-5; the low parts of u (carry, and each stage
    /// argument's rounding) taken into that split, 3.9e-5 and 1.4e-5. With the element forces
    /// computed in f64 from u and its low parts: 1.0e-5 (another sample of 200). Before the
    /// state held displacements, the coordinates e were stored in f32, each rounding a strain
    /// of ε₃₂|X|/h: positions 1e-3, gradients 8e-3, velocities 3e-2, gradient rates 0.16
    /// (8 blocks). Hence the 1e-4 for the gradient rates, and for the other groups
    /// about four times their worst (with f32 tables: positions 8.8e-6, gradients 2.6e-5).
    #[test]
    fn f32_kernel_follows_f64_within_rounding(b in block()) {
        let (relative, per_coordinate) = f32_against_f64(&b);
        println!(
            "f32 vs f64, {} steps: positions {:.2e}, gradients {:.2e}, velocities {:.2e}, gradient rates {:.2e} (per coordinate {per_coordinate:.2e})",
            F32_STEPS, relative[0], relative[1], relative[2], relative[3],
        );
        for ((name, tolerance), r) in F32_GROUPS.iter().zip(&relative) {
            prop_assert!(r <= tolerance, "{name}: {r:.3e} > {tolerance:.0e}");
        }
    }
}

/// Steps of the f32-against-f64 comparison.
const F32_STEPS: usize = 200;
/// Its groups and what each must stay within (see `f32_kernel_follows_f64_within_rounding`).
const F32_GROUPS: [(&str, f64); 4] = [
    ("positions", 5e-6),
    ("gradients", 5e-6),
    ("velocities", 2e-5),
    ("gradient rates", 1e-4),
];

/// Runs the block in f32 and in f64 (built from the f32-rounded parameters) for `F32_STEPS`
/// RK4 steps from rest; returns each group's largest |u₃₂ − u₆₄| relative to its largest |u₆₄|
/// (positions, gradients, velocities, gradient rates), and the largest per-coordinate
/// |e₃₂ − e₆₄| / max(1, |e₆₄|) of the state shown.
fn f32_against_f64(b: &Block) -> ([f64; 4], f64) {
    let m64 = b.rounded().build::<f64, Mcu>();
    let m32 = b.build::<f32, Mcu>();
    // The step as the f32 run sees it.
    let dt = stable_step(&m64) as f32 as f64;
    let (mut d64, mut d32) = (Box::new(m64.new_data()), Box::new(m32.new_data()));
    let n = 12 * m64.node_count();
    // Group of state entry k: 0 positions, 1 gradients, 2 velocities, 3 gradient rates.
    let group = |k: usize| 2 * (k / n) + usize::from(k % 12 >= 3);
    let (mut error, mut motion) = ([0.0f64; 4], [0.0f64; 4]);
    let mut per_coordinate = 0.0f64;
    for _ in 0..F32_STEPS {
        step(&*m64, &mut d64, &mut Rk4, dt).unwrap();
        step(&*m32, &mut d32, &mut Rk4, dt as f32).unwrap();
        for (k, (&x, &y)) in d32.displacements().iter().zip(d64.displacements()).enumerate() {
            let g = group(k);
            error[g] = error[g].max((x as f64 - y).abs());
            motion[g] = motion[g].max(y.abs());
        }
        let shown: Vec<f64> = d32.state().iter().map(|&x| x as f64).collect();
        per_coordinate = per_coordinate.max(relative_difference(&shown, d64.state()));
    }
    let relative = core::array::from_fn(|g| error[g] / motion[g].max(f64::MIN_POSITIVE));
    (relative, per_coordinate)
}

/// The survey behind the figures of `f32_kernel_follows_f64_within_rounding` and
/// docs/kernel.md: 200 blocks drawn as the test draws them, from a fixed seed; prints each
/// group's worst and median. `cargo test --release --test suite flex_kernel_vs_host:: -- --ignored
/// --nocapture` (about 10 s).
#[test]
#[ignore = "a survey for the docs, not a check"]
fn f32_against_f64_survey() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(ProptestConfig::default(), rng);
    let runs: Vec<([f64; 4], f64)> = (0..200)
        .map(|_| f32_against_f64(&block().new_tree(&mut runner).unwrap().current()))
        .collect();
    let quantiles = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[v.len() - 1])
    };
    for (g, (name, tolerance)) in F32_GROUPS.iter().enumerate() {
        let (median, worst) = quantiles(runs.iter().map(|r| r.0[g]).collect());
        println!("{name}: worst {worst:.2e}, median {median:.2e} (asserted {tolerance:.0e})");
    }
    let (median, worst) = quantiles(runs.iter().map(|r| r.1).collect());
    println!("per coordinate: worst {worst:.2e}, median {median:.2e}");
}

/// A free, undeformed block at rest without gravity is in equilibrium (zero strain, zero elastic
/// force): ten f32 RK4 steps must leave its state bit for bit unchanged, for both materials and
/// away from the origin (positions ≈ 1 m, elements 0.1 m). Before strains were formed from
/// displacements, one 10 µs step gave a gradient rate of 2.7e-4 (a spurious ≈ 27 s⁻²).
#[test]
fn undeformed_f32_block_at_rest_stays_at_rest() {
    for material in [
        Material::st_venant_kirchhoff(1e6f32, 0.3, 1000.0).unwrap(),
        Material::neo_hookean(1e6f32, 0.3, 1000.0).unwrap(),
    ] {
        let mut b = Kernel::<f32>::builder(material, Vec3::ZERO);
        add_box_mesh(
            &mut b,
            Vec3::new(0.7, -0.3, 1.1),
            Vec3::new(0.2, 0.1, 0.1),
            [2, 1, 1],
        )
        .unwrap();
        let model = Box::new(b.build().unwrap());
        let mut data = Box::new(model.new_data());
        let at_rest = data.state().to_vec();
        for _ in 0..10 {
            step(&*model, &mut data, &mut Rk4, 1e-5).unwrap();
        }
        assert_eq!(data.state(), &at_rest[..], "{:?}", material.law);
    }
}

/// External forces on an f32 flexible body see the nodes' coordinates e = e_ref + u, formed in
/// the room where each RK4 stage leaves the rounding of its argument for the element forces
/// (taken before). Reference: the same force built into the model as a nodal force: the two
/// runs must give the same bits for 300 steps, which they would not if forming e overwrote
/// that rounding first (tried: they part at the first step).
#[test]
fn f32_external_nodal_force_gives_the_bits_of_a_built_in_one() {
    use ferrodyn::kernel::{ExternalForces, ExternalLoads};
    struct TipPush {
        node: usize,
        force: [f32; 3],
        seen: usize,
    }
    impl ExternalForces<f32> for TipPush {
        fn apply(&mut self, _t: f32, loads: &mut ExternalLoads<'_, f32>) {
            let (e, _, generalized) = loads.nodes();
            // Coordinates, not displacements: the tip node's x stays near its reference 0.3 m.
            assert!(
                (e[12 * self.node] - 0.3).abs() < 0.05,
                "x = {}",
                e[12 * self.node]
            );
            for (g, f) in generalized[12 * self.node..].iter_mut().zip(self.force) {
                *g += f;
            }
            self.seen += 1;
        }
    }
    let build = |tip_force: Option<(usize, Vec3<f32>)>| {
        let material = Material::st_venant_kirchhoff(2e6f32, 0.3, 1000.0).unwrap();
        let mut b = Kernel::<f32>::builder(material, Vec3::new(0.0, 0.0, -9.81));
        add_box_mesh(&mut b, Vec3::ZERO, Vec3::new(0.3, 0.1, 0.1), [2, 1, 1]).unwrap();
        b.fix_plane(0, 0.0, 1e-9, Fixity::ClampedFace { normal_axis: 0 })
            .unwrap();
        if let Some((node, force)) = tip_force {
            b.add_nodal_force(node, force).unwrap();
        }
        Box::new(b.build().unwrap())
    };
    let free = build(None);
    // The last node of the mesh lies on the free end (x = 0.3).
    let node = free.node_count() - 1;
    assert_eq!(free.reference(node).map(|x| x.x), Some(0.3));
    let force = Vec3::new(0.5f32, -2.0, 3.0);
    let built_in = build(Some((node, force)));
    let (mut a, mut b) = (Box::new(built_in.new_data()), Box::new(free.new_data()));
    let mut push = TipPush {
        node,
        force: force.to_array(),
        seen: 0,
    };
    for n in 0..300 {
        step(&*built_in, &mut a, &mut Rk4, 2e-5).unwrap();
        free.step_with(&mut b, &mut Rk4, 2e-5, &mut push).unwrap();
        assert_eq!(free.digest(&b), built_in.digest(&a), "step {}", n + 1);
    }
    assert_eq!(push.seen, 4 * 300, "one call per RK4 stage");
    assert!(a.displacements().iter().any(|&u| u != 0.0), "the block moved");
}

/// An f32 block saved after 50 RK4 steps (displacements, their carry, clock) and restored into
/// fresh data goes on bit for bit; the carry is what f32 sums beyond u (never zero here), and
/// f64 keeps none (its plain sum and bits).
#[test]
fn f32_flexible_resumes_bit_for_bit_with_its_carry() {
    let block = Block {
        neo_hookean: true,
        youngs: 2e6,
        poisson: 0.3,
        density: 1200.0,
        size: [0.3, 0.1, 0.08],
        divisions: 2,
        tilt: 0.4,
    };
    let model = block.build::<f32, Mcu>();
    let dt = stable_step(&block.build::<f64, Mcu>()) as f32;
    let mut data = Box::new(model.new_data());
    for _ in 0..50 {
        step(&*model, &mut data, &mut Rk4, dt).unwrap();
    }
    assert!(data.carry().iter().any(|&c| c != 0.0));
    let mut resumed = Box::new(model.new_data());
    resumed.set_displacements(&model, data.displacements()).unwrap();
    resumed.resume_carry(data.carry()).unwrap();
    resumed.resume_clock(data.clock_reading());
    for n in 0..50 {
        step(&*model, &mut data, &mut Rk4, dt).unwrap();
        step(&*model, &mut resumed, &mut Rk4, dt).unwrap();
        assert_eq!(model.digest(&resumed), model.digest(&data), "step {}", n + 1);
    }
    assert_eq!(resumed.displacements(), data.displacements());
    assert_eq!(resumed.carry(), data.carry());
    let m64 = block.build::<f64, Mcu>();
    let mut d64 = Box::new(m64.new_data());
    for _ in 0..50 {
        step(&*m64, &mut d64, &mut Rk4, dt as f64).unwrap();
    }
    assert!(d64.carry().iter().all(|&c| c == 0.0));
}

/// The rigid–flexible spinning beam (hub driven at 10 rad/s, beam attached, gravity) on the
/// firmware's exact capacities and on growable storage: the same bits after every RK4 step.
#[test]
fn growable_coupled_gives_the_bits_of_fixed_coupled() {
    type Exact = Fixed<1, 2, 0, 6, 21, 20, 24, 11_109, 493>;
    let kernel = Box::new(spinning_beam::<f64, Exact>(10.0, GRAVITY).unwrap());
    let host = spinning_beam::<f64, Growable>(10.0, GRAVITY).unwrap();
    let (mut kd, mut hd) = (Box::new(kernel.new_data()), host.new_data());
    for n in 0..200 {
        step(&*kernel, &mut kd, &mut Rk4, 1e-5).unwrap();
        step(&host, &mut hd, &mut Rk4, 1e-5).unwrap();
        assert_eq!(host.digest(&hd), kernel.digest(&kd), "step {}", n + 1);
    }
    let hub = host.rigid().bodies().len();
    assert_eq!(hub, 1);
    assert!(hd.rigid().angular_velocity(0).z > 9.0, "the hub keeps spinning");
}
