//! Several flexible bodies of their own materials (law, E, ν, ρ, Rayleigh α and β) in one
//! kernel flexible model: each element carries its material.
//!
//! - A steel and a rubber cantilever in one scene, under gravity and a tip load, give the
//!   displacements and energies of each run alone: explicit RK4 (the kernel model, as
//!   `ferrodyn run` compiles it) and implicit HHT (the host's Newton solver).
//! - Two bars of different E and ρ in series, hanging under their own weight: the static tip
//!   displacement against the closed form of linear elasticity.
//! - The two-material model on the microcontroller's fixed storage gives the bits of the host's
//!   growable storage.

use ferrodyn::host::compile::compile;
use ferrodyn::host::scene::Scene;
use ferrodyn::host::simulation::Simulation;
use ferrodyn::host::storage::{FlexModel, Growable};
use ferrodyn::kernel::ancf::Material;
use ferrodyn::kernel::flex::{self, solve_static, Fixity, MeshBuilder};
use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::math::Vec3;
use ferrodyn::kernel::samples::add_box_mesh;
use ferrodyn::kernel::{step, BuildError, Dynamics, Fixed, Real, Storage};
use std::path::Path;

/// A steel cantilever (SVK, E = 210 GPa, ρ = 7850 kg/m³, α = 0.5 s⁻¹, β = 1e-8 s).
const STEEL: &str = r#"
[[flexible]]
name = "steel"
box = { origin = [0.0, 0.0, 0.0], size = [0.4, 0.1, 0.1], divisions = [2, 1, 1] }
material = { law = "svk", E = 2.1e11, nu = 0.3, rho = 7850.0, rayleigh_alpha = 0.5, rayleigh_beta = 1e-8 }
clamp = ["xmin"]
load = { group = "xmax", force = [0.0, 200.0, 0.0] }
"#;

/// A rubber cantilever beside it (Neo-Hookean, E = 5 MPa, ν = 0.45, ρ = 1100 kg/m³,
/// α = 5 s⁻¹, β = 1e-4 s) with a tip load.
const RUBBER: &str = r#"
[[flexible]]
name = "rubber"
box = { origin = [0.0, 0.5, 0.0], size = [0.4, 0.1, 0.1], divisions = [2, 1, 1] }
material = { law = "neo_hookean", E = 5e6, nu = 0.45, rho = 1100.0, rayleigh_alpha = 5.0, rayleigh_beta = 1e-4 }
clamp = ["xmin"]
load = { group = "xmax", force = [0.0, 0.0, -5.0] }
"#;

/// A scene of `bodies` stepped by `integrator` at `step`.
fn scene(integrator: &str, step: f64, bodies: &[&str]) -> Scene {
    let mut text = format!(
        "[simulation]\nend_time = 1.0\nstep = {step:e}\nintegrator = \"{integrator}\"\noutput_interval = {step:e}\n"
    );
    if integrator == "hht" {
        text.push_str("\n[simulation.implicit]\nalpha = -0.1\n");
    }
    for b in bodies {
        text.push_str(b);
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/multi_material.toml");
    Scene::parse(&path, &text).unwrap()
}

/// The coordinates and rates of the flexible nodes `nodes` (12 + 12 per node).
fn node_states(sim: &Simulation, nodes: std::ops::Range<usize>) -> (Vec<f64>, Vec<f64>) {
    let flex = sim.flexible().unwrap();
    let coordinates = flex.coordinates[12 * nodes.start..12 * nodes.end].to_vec();
    let rates = flex.rates[12 * nodes.start..12 * nodes.end].to_vec();
    (coordinates, rates)
}

/// Largest |a − b| over two equally long slices.
fn max_difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

/// Mean displacement of the tip face (x = 0.4) of the nodes `nodes` from `coordinates`.
fn tip_displacement(sim: &Simulation, nodes: std::ops::Range<usize>) -> Vec3<f64> {
    let flex = sim.flexible().unwrap();
    let tip: Vec<usize> = nodes
        .filter(|&n| (flex.reference[n].x - 0.4).abs() < 1e-9)
        .collect();
    let sum = tip
        .iter()
        .fold(Vec3::ZERO, |s, &n| s + (flex.position(n) - flex.reference[n]));
    sum * (1.0 / tip.len() as f64)
}

/// Steps the two-body scene and each body alone for `steps` steps and compares.
/// Returns (largest coordinate difference, largest rate difference, relative energy difference,
/// tip displacement of the steel and the rubber body).
fn together_and_alone(integrator: &str, dt: f64, steps: usize) -> (f64, f64, f64, Vec3<f64>, Vec3<f64>) {
    let mut both = compile(&scene(integrator, dt, &[STEEL, RUBBER])).unwrap();
    let mut steel = compile(&scene(integrator, dt, &[STEEL])).unwrap();
    let mut rubber = compile(&scene(integrator, dt, &[RUBBER])).unwrap();
    for _ in 0..steps {
        both.step().unwrap();
        steel.step().unwrap();
        rubber.step().unwrap();
    }
    let n_steel = steel.flexible().unwrap().node_count();
    let n_rubber = rubber.flexible().unwrap().node_count();
    let (q_both_s, v_both_s) = node_states(&both, 0..n_steel);
    let (q_both_r, v_both_r) = node_states(&both, n_steel..n_steel + n_rubber);
    let (q_s, v_s) = node_states(&steel, 0..n_steel);
    let (q_r, v_r) = node_states(&rubber, 0..n_rubber);
    let dq = max_difference(&q_both_s, &q_s).max(max_difference(&q_both_r, &q_r));
    let dv = max_difference(&v_both_s, &v_s).max(max_difference(&v_both_r, &v_r));
    let (e_both, e_s, e_r) = (
        both.energy().unwrap(),
        steel.energy().unwrap(),
        rubber.energy().unwrap(),
    );
    let alone = e_s.total() + e_r.total();
    let de = [
        (e_both.kinetic, e_s.kinetic + e_r.kinetic),
        (e_both.strain, e_s.strain + e_r.strain),
        (e_both.potential, e_s.potential + e_r.potential),
    ]
    .iter()
    .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
        / alone.abs().max(e_r.strain.abs());
    let tip_s = tip_displacement(&both, 0..n_steel);
    let tip_r = tip_displacement(&both, n_steel..n_steel + n_rubber);
    // The two bodies are loaded and respond differently: not one material.
    let (tip_s_alone, tip_r_alone) = (
        tip_displacement(&steel, 0..n_steel),
        tip_displacement(&rubber, 0..n_rubber),
    );
    println!(
        "{integrator}: {steps} steps of {dt:e} s: tips steel {:.6e} m (alone {:.6e}), rubber {:.6e} m (alone {:.6e}); max |Δq| {dq:.3e}, |Δv| {dv:.3e}, energy {de:.3e} relative",
        tip_s.y, tip_s_alone.y, tip_r.z, tip_r_alone.z
    );
    println!(
        "{integrator}: energies together {:?}, alone steel {:?}, rubber {:?}",
        e_both, e_s, e_r
    );
    (dq, dv, de, tip_s, tip_r)
}

#[test]
fn steel_and_rubber_in_one_scene_step_as_each_alone_rk4() {
    // The kernel model merges the two meshes; each element carries its body's material. The
    // bodies share no node, so the mass matrix is block diagonal; the reverse Cuthill–McKee
    // ordering numbers each body's nodes in the order it gives them alone, so every force,
    // mass solve and RK4 update of a body is the same arithmetic as alone: the same bits.
    // Energies are sums over all elements in one loop: equal to round-off (1e-12 relative).
    // Step: 1e-6 s, below the steel's RK4 limit (2.2e-6 s, `ferrodyn check`).
    let (dq, dv, de, tip_s, tip_r) = together_and_alone("rk4", 1e-6, 2000);
    assert_eq!(dq, 0.0, "coordinates differ by {dq:e}");
    assert_eq!(dv, 0.0, "rates differ by {dv:e}");
    assert!(de <= 1e-12, "energies differ by {de:e} relative");
    // Both move, each its own way (the rubber under gravity and its tip load, the steel sideways).
    assert!(tip_r.z < -1e-6 && tip_s.y > 0.0, "{tip_s:?} {tip_r:?}");
}

#[test]
fn steel_and_rubber_in_one_scene_step_as_each_alone_hht() {
    // HHT on one sparse Newton matrix for both bodies: S = M/(βh²) + (1 + α)γα_R/(βh) M per
    // group of one α_R + (1 + α)(1 + γβ_R/(βh)) K_e per element. The matrix is block diagonal,
    // but the sparse LDLᵀ orders and sums the merged matrix its own way, and Newton stops when
    // the increment of both bodies together is ≤ newton_tol (1e-10): a body may take one
    // iteration more than alone. So the states agree to the Newton tolerance, not bit for bit:
    // coordinates within newton_tol, rates within (γ/(βh)) newton_tol ≈ 2 newton_tol/h
    // (v = ṽ + γh a, a = q/(βh²)). Measured: 2.2e-16 and 2.4e-12 (Newton converges
    // quadratically, far below its tolerance), energies 2e-16 relative.
    let dt = 1e-3;
    let (dq, dv, de, tip_s, tip_r) = together_and_alone("hht", dt, 100);
    assert!(dq <= 1e-10, "coordinates differ by {dq:e}");
    assert!(dv <= 4e-10 / dt, "rates differ by {dv:e}");
    assert!(de <= 1e-9, "energies differ by {de:e} relative");
    assert!(tip_r.z < -1e-3 && tip_s.y > 0.0, "{tip_s:?} {tip_r:?}");
}

/// A bar along x of length `l` and square section `h`, root face clamped at x = 0 (positions
/// and in-plane gradients), hanging under gravity `g` along +x, its `cells` cells along x with
/// the material `material(x of the element's centroid)`, as one model; returns the mean tip
/// displacement from a static solve, and the model.
fn hanging_bar(
    l: f64,
    h: f64,
    cells: usize,
    g: f64,
    material: impl Fn(f64) -> Material<f64>,
) -> (f64, FlexModel) {
    let mut b = FlexModel::builder(material(0.0), Vec3::new(g, 0.0, 0.0));
    let mut by_position = ByPosition {
        builder: &mut b,
        nodes: Vec::new(),
        material: &material,
    };
    add_box_mesh(
        &mut by_position,
        Vec3::new(0.0, -h / 2.0, -h / 2.0),
        Vec3::new(l, h, h),
        [cells, 1, 1],
    )
    .unwrap();
    b.fix_plane(0, 0.0, 1e-9, Fixity::ClampedFace { normal_axis: 0 })
        .unwrap();
    let model = b.build().unwrap();
    let mut data = model.new_data();
    solve_static(&model, &mut data, 1, 1e-15, 20).unwrap();
    let tip: Vec<usize> = (0..model.node_count())
        .filter(|&n| (model.references()[n].x - l).abs() < 1e-9)
        .collect();
    let u = tip
        .iter()
        .map(|&n| data.position(n).x - model.references()[n].x)
        .sum::<f64>()
        / tip.len() as f64;
    (u, model)
}

/// Adds elements with the material `material(x of their centroid)`.
struct ByPosition<'a, St: Storage, F> {
    builder: &'a mut flex::Builder<f64, St>,
    nodes: Vec<Vec3<f64>>,
    material: &'a F,
}

impl<St: Storage, F: Fn(f64) -> Material<f64>> MeshBuilder<f64> for ByPosition<'_, St, F> {
    fn add_node(&mut self, position: Vec3<f64>) -> Result<usize, BuildError> {
        self.nodes.push(position);
        self.builder.add_node(position)
    }
    fn add_element(&mut self, nodes: [usize; 4]) -> Result<usize, BuildError> {
        let x = nodes.iter().map(|&n| self.nodes[n].x).sum::<f64>() / 4.0;
        self.builder.set_material((self.material)(x));
        self.builder.add_element(nodes)
    }
}

/// Steel (E = 210 GPa, ρ = 7850 kg/m³) and a polymer (E = 2 GPa, ρ = 1200 kg/m³), ν = 0.
fn steel_and_polymer() -> (Material<f64>, Material<f64>) {
    (
        Material::st_venant_kirchhoff(2.1e11, 0.0, 7850.0).unwrap(),
        Material::st_venant_kirchhoff(2e9, 0.0, 1200.0).unwrap(),
    )
}

#[test]
fn two_bars_of_their_own_materials_hang_by_the_closed_form() {
    // A steel and a polymer bar (L = 1 m, 0.1 m square, ν = 0) side by side in one model, each
    // clamped at x = 0 (positions and in-plane gradients: u = 0 on the whole face; pinning the
    // nodes alone leaves the face between them free and the bar 15 % softer) and hanging
    // under gravity g along +x. With ν = 0 the uniaxial field
    // σ = ρ g (L − x), u_y = u_z = 0 is the exact solution of linear elasticity and u(x) =
    // ρ g (L x − x²/2)/E, quadratic, is reproduced exactly by the cubic element (degree-6 mass
    // rule for the load, degree-5 rule exact for the linear stiffness): tip u(L) = ρ g L²/(2E)
    // per bar, with its own ρ and E. The SVK body is geometrically nonlinear: it departs from
    // linear theory by a relative O(strain) (measured: −1.0 ε). Asserted: within 2 ε_max of the
    // closed form, and that difference is the nonlinearity (10× smaller at 1/10 of g).
    // Measured at g = 245 m/s²: steel −9.17e-6 (ε = 9.2e-6), polymer −1.47e-4 (ε = 1.5e-4).
    let (steel, polymer) = steel_and_polymer();
    let (l, h) = (1.0, 0.1);
    let run = |g: f64| {
        let mut b = FlexModel::builder(steel, Vec3::new(g, 0.0, 0.0));
        for (material, y) in [(steel, 0.0), (polymer, 0.5)] {
            b.set_material(material);
            add_box_mesh(
                &mut b,
                Vec3::new(0.0, y - h / 2.0, -h / 2.0),
                Vec3::new(l, h, h),
                [4, 1, 1],
            )
            .unwrap();
        }
        b.fix_plane(0, 0.0, 1e-9, Fixity::ClampedFace { normal_axis: 0 })
            .unwrap();
        let model = b.build().unwrap();
        let mut data = model.new_data();
        solve_static(&model, &mut data, 1, 1e-15, 20).unwrap();
        let mut errors = [0.0; 2];
        for (error, (material, (e, rho), y)) in errors
            .iter_mut()
            .zip([(steel, (2.1e11, 7850.0), 0.0), (polymer, (2e9, 1200.0), 0.5)])
        {
            let tip: Vec<usize> = (0..model.node_count())
                .filter(|&n| {
                    let x = model.references()[n];
                    (x.x - l).abs() < 1e-9 && (x.y - y).abs() < h
                })
                .collect();
            let u = tip.iter().map(|&n| data.position(n).x - l).sum::<f64>() / tip.len() as f64;
            let exact = rho * g * l * l / (2.0 * e);
            *error = (u - exact) / exact;
            let strain = rho * g * l / e;
            println!(
                "g = {g:.4}: {} bar tip {u:.9e} m, closed form ρgL²/(2E) {exact:.9e} m, relative {error:+.3e} (largest strain {strain:.1e})",
                if material == steel { "steel" } else { "polymer" }
            );
            assert!(error.abs() <= 2.0 * strain, "{error:e} > 2 × {strain:e}");
        }
        errors
    };
    let full = run(9.81 * 25.0);
    let tenth = run(9.81 * 2.5);
    for (f, t) in full.iter().zip(&tenth) {
        assert!(
            t.abs() <= 0.15 * f.abs(),
            "{t:e} vs {f:e}: not the geometric nonlinearity"
        );
    }
}

#[test]
fn two_bars_in_series_approach_the_closed_form_as_the_mesh_is_refined() {
    // Steel (0 < x < L1 = 0.6 m) and polymer (L1 < x < 1 m) in one mesh, sharing the interface
    // nodes, clamped at x = 0, hanging under g along +x (ν = 0: uniaxial). Linear elasticity:
    //   u(L) = g [ρ1 L1²/(2E1) + ρ2 L2 L1/E1 + ρ2 L2²/(2E2)].
    // The axial strain N/(EA) jumps at the interface by E1/E2 = 105, but ANCF nodes carry one
    // gradient ∂r/∂X: the element is C¹ across nodes and smears the jump over the elements
    // next to the interface. The error is that smearing, of the order of the element length:
    // asserted to fall as the cells shrink (halving h at least halves it) and below 1 % at
    // 40 cells along the bar. Measured: −8.7 %, −3.0 %, −1.26 %, −0.58 % at 5, 10, 20, 40 cells.
    let (steel, polymer) = steel_and_polymer();
    let (l1, l2, h, g) = (0.6, 0.4, 0.1, 9.81);
    let exact =
        g * (7850.0 * l1 * l1 / (2.0 * 2.1e11) + 1200.0 * l2 * l1 / 2.1e11 + 1200.0 * l2 * l2 / (2.0 * 2e9));
    let mut previous = f64::INFINITY;
    for cells in [5, 10, 20, 40] {
        let material = |x: f64| if x < l1 { steel } else { polymer };
        let (u, model) = hanging_bar(l1 + l2, h, cells, g, material);
        let polymer_elements = model.materials().iter().filter(|m| **m == polymer).count();
        assert_eq!(
            polymer_elements,
            6 * cells * 2 / 5,
            "cells beyond x = 0.6 are polymer"
        );
        let error = (u - exact) / exact;
        println!("{cells} cells: tip {u:.9e} m, closed form {exact:.9e} m, relative {error:+.3e}");
        assert!(error.abs() <= 0.5 * previous, "{error:e} after {previous:e}");
        previous = error.abs();
    }
    assert!(previous < 0.01, "{previous:e}");
}

/// Two blocks of different materials (one hexahedron each) in one model of storage `St`.
fn two_blocks<R: Real, St: Storage>() -> flex::Model<R, St> {
    let r = R::from_f64;
    let hard = Material::st_venant_kirchhoff(r(1e7), r(0.3), r(2000.0))
        .unwrap()
        .with_rayleigh(r(1.0), r(1e-5))
        .unwrap();
    let soft = Material::neo_hookean(r(1e5), r(0.4), r(900.0))
        .unwrap()
        .with_rayleigh(r(3.0), r(0.0))
        .unwrap();
    let mut b = flex::Model::<R, St>::builder(hard, Vec3::new(R::ZERO, R::ZERO, -r(9.81)));
    let size = Vec3::new(r(0.2), r(0.1), r(0.1));
    add_box_mesh(&mut b, Vec3::ZERO, size, [1, 1, 1]).unwrap();
    b.set_material(soft);
    add_box_mesh(&mut b, Vec3::new(R::ZERO, r(0.3), R::ZERO), size, [1, 1, 1]).unwrap();
    b.fix_plane(0, R::ZERO, r(1e-9), Fixity::ClampedFace { normal_axis: 0 })
        .unwrap();
    b.build().unwrap()
}

#[test]
fn two_material_model_on_fixed_storage_gives_the_bits_of_growable() {
    type Mcu = Fixed<0, 0, 0, 0, 0, 16, 12, 6_000>;
    let kernel = Box::new(two_blocks::<f64, Mcu>());
    let host = two_blocks::<f64, Growable>();
    assert_eq!(kernel.materials(), host.materials());
    assert_eq!(kernel.mass(), host.mass());
    // Masses: 0.002 m³ at 2000 and at 900 kg/m³.
    assert!((host.mass() - 5.8).abs() < 1e-12, "{}", host.mass());
    let (mut kd, mut hd) = (Box::new(kernel.new_data()), host.new_data());
    for n in 0..500 {
        step(&*kernel, &mut kd, &mut Rk4, 1e-4).unwrap();
        step(&host, &mut hd, &mut Rk4, 1e-4).unwrap();
        assert_eq!(host.digest(&hd), kernel.digest(&kd), "step {}", n + 1);
    }
    // f32 runs too (the firmware's scalar).
    let k32 = Box::new(two_blocks::<f32, Mcu>());
    let mut d32 = Box::new(k32.new_data());
    for _ in 0..500 {
        step(&*k32, &mut d32, &mut Rk4, 1e-4).unwrap();
    }
    // Node 7 is the free top corner (x = 0.2, z = 0.1) of the first block: it sags.
    let sag = d32.position(7).z - k32.reference(7).unwrap().z;
    assert!(sag < 0.0 && sag.is_finite(), "{sag}");
}
