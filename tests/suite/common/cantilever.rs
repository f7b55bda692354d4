//! The ANCF issue's cantilever (1 m × 0.1 m × 0.1 m box mesh, root face clamped at x = 0)
//! as a host [`FlexModel`] (the kernel's flexible model on growable storage), with its
//! beam-theory references, and the steel cantilever of the implicit benchmarks and profiles.
#![allow(dead_code)]

use ferrodyn::host::storage::FlexModel;
use ferrodyn::kernel::ancf::Material;
use ferrodyn::kernel::flex::Fixity;
use ferrodyn::kernel::math::Vec3;
use ferrodyn::kernel::samples::add_box_mesh;

/// Length (m).
pub const L: f64 = 1.0;
/// Square section side (m).
pub const H: f64 = 0.1;
/// Gravity (m/s²).
pub const G: f64 = 9.81;

/// A material of the cantilever.
#[derive(Clone, Copy, Debug)]
pub struct Beam {
    /// Young's modulus (Pa).
    pub youngs: f64,
    /// Poisson's ratio.
    pub poisson: f64,
    /// Density (kg/m³).
    pub density: f64,
}

/// Steel: E = 2.1e11 Pa, ν = 0.3, ρ = 7850 kg/m³.
pub const STEEL: Beam = Beam {
    youngs: 2.1e11,
    poisson: 0.3,
    density: 7850.0,
};

/// The ANCF issue's soft beam: E = 1e8 Pa, ν = 0.3, ρ = 1000 kg/m³.
pub const SOFT: Beam = Beam {
    youngs: 1e8,
    poisson: 0.3,
    density: 1000.0,
};

impl Beam {
    /// Second moment of area and area of the section.
    fn section() -> (f64, f64) {
        (H.powi(4) / 12.0, H * H)
    }

    /// Timoshenko cantilever under its weight q = ρgA:
    /// δ = qL⁴/(8EI) + qL²/(2κGA), κ = 5/6, G = E/(2(1+ν)).
    pub fn timoshenko_tip_deflection(&self) -> f64 {
        let (i, a) = Self::section();
        let q = self.density * G * a;
        let shear = self.youngs / (2.0 * (1.0 + self.poisson));
        q * L.powi(4) / (8.0 * self.youngs * i) + q * L * L / (2.0 * 5.0 / 6.0 * shear * a)
    }

    /// Euler–Bernoulli first bending frequency f1 = 1.875104² √(EI/(ρAL⁴)) / (2π) (Hz).
    pub fn euler_bernoulli_f1(&self) -> f64 {
        let (i, a) = Self::section();
        1.875104f64.powi(2) * (self.youngs * i / (self.density * a * L.powi(4))).sqrt()
            / (2.0 * std::f64::consts::PI)
    }

    /// The cantilever meshed with `divisions` hexahedra (6 tets each), root face clamped
    /// (positions and in-plane gradients), under gravity `gravity` along −z.
    pub fn body(&self, divisions: [usize; 3], gravity: f64) -> FlexModel {
        let material = Material::st_venant_kirchhoff(self.youngs, self.poisson, self.density).unwrap();
        self.body_with(material, divisions, gravity)
    }

    /// As [`Beam::body`] with a given material (e.g. with Rayleigh damping).
    pub fn body_with(&self, material: Material<f64>, divisions: [usize; 3], gravity: f64) -> FlexModel {
        let mut b = FlexModel::builder(material, Vec3::new(0.0, 0.0, -gravity));
        add_box_mesh(
            &mut b,
            Vec3::new(0.0, -H / 2.0, -H / 2.0),
            Vec3::new(L, H, H),
            divisions,
        )
        .unwrap();
        b.fix_plane(0, 0.0, 1e-9, Fixity::ClampedFace { normal_axis: 0 })
            .unwrap();
        b.build().unwrap()
    }
}

/// The steel cantilever of the implicit benchmarks and profiles: 1 m × 0.1 m × 0.1 m (axis x,
/// centred on y = z = 0), E = 2.1e11 Pa, ν = 0.3, ρ = 7850 kg/m³, St. Venant–Kirchhoff, under
/// gravity −z (9.81 m/s²), clamped at x = 0, meshed into `divisions` boxes (6 tets each).
pub fn steel_cantilever(divisions: [usize; 3]) -> FlexModel {
    STEEL.body(divisions, G)
}

/// Reference coordinates of the whole body (12 per node: r = X, gradients = I).
pub fn reference_coordinates(body: &FlexModel) -> Vec<f64> {
    let mut q = vec![0.0; body.coordinate_count()];
    body.reference_coordinates(&mut q);
    q
}

/// Nodes of the tip face x = L.
pub fn tip_nodes(body: &FlexModel) -> Vec<usize> {
    (0..body.node_count())
        .filter(|&i| (body.references()[i].x - L).abs() < 1e-9)
        .collect()
}

/// Mean vertical displacement and velocity of the tip-face nodes from body coordinates and rates.
pub fn tip_z(body: &FlexModel, q: &[f64], v: &[f64]) -> (f64, f64) {
    let tip = tip_nodes(body);
    let n = tip.len() as f64;
    let z = tip
        .iter()
        .map(|&i| q[12 * i + 2] - body.references()[i].z)
        .sum::<f64>()
        / n;
    let w = tip.iter().map(|&i| v[12 * i + 2]).sum::<f64>() / n;
    (z, w)
}
