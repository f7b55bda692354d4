//! Fields on flexible bodies (displacement magnitude, von Mises stress) per node, their colour
//! map and the colour bar.

use super::font::{draw_text, text_width, LINE_HEIGHT};
use super::raster::{pack, Image, Rgb};
use ferrodyn_kernel::ancf::Material;
use ferrodyn_kernel::math::{Mat3, Vec3};

/// The field a flexible body is coloured by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// |r − r₀| (m).
    Displacement,
    /// Von Mises equivalent of the Cauchy stress (Pa).
    VonMises,
}

impl Field {
    /// Parses `displacement` or `von-mises`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "displacement" => Some(Self::Displacement),
            "von-mises" | "vonmises" | "von_mises" => Some(Self::VonMises),
            _ => None,
        }
    }

    /// The label on the colour bar.
    pub fn label(self) -> &'static str {
        match self {
            Self::Displacement => "|u| [m]",
            Self::VonMises => "von Mises [Pa]",
        }
    }

    /// The other field.
    pub fn next(self) -> Self {
        match self {
            Self::Displacement => Self::VonMises,
            Self::VonMises => Self::Displacement,
        }
    }
}

/// Von Mises stress at a node from its ANCF coordinates (r, ∂r/∂X, ∂r/∂Y, ∂r/∂Z): the nodal
/// gradients are the deformation gradient F there, so σ = F S Fᵀ / det F with S from the
/// kernel's material law. Zero for an inverted or unreadable node.
pub fn von_mises(material: &Material<f64>, coordinates: &[f64]) -> f64 {
    let Some(g) = coordinates.get(3..12) else {
        return 0.0;
    };
    let column = |k: usize| Vec3::new(g[3 * k], g[3 * k + 1], g[3 * k + 2]);
    let f = Mat3::from_columns(column(0), column(1), column(2));
    let Some(point) = material.evaluate(&f) else {
        return 0.0;
    };
    let s = f
        .mul_mat(&point.stress)
        .mul_mat(&f.transpose())
        .scale(1.0 / f.determinant());
    let m = s.m;
    let d = (m[0][0] - m[1][1]).powi(2) + (m[1][1] - m[2][2]).powi(2) + (m[2][2] - m[0][0]).powi(2);
    let shear = m[0][1].powi(2) + m[1][2].powi(2) + m[2][0].powi(2);
    (0.5 * d + 3.0 * shear).sqrt()
}

/// Colour of `s` in 0…1 on a blue–cyan–green–yellow–red scale (values outside are clamped).
pub fn colour(s: f64) -> Rgb {
    const STOPS: [Rgb; 5] = [
        [0.15, 0.25, 0.85],
        [0.1, 0.75, 0.9],
        [0.2, 0.8, 0.3],
        [0.95, 0.85, 0.15],
        [0.9, 0.2, 0.15],
    ];
    let s = if s.is_finite() { s.clamp(0.0, 1.0) } else { 0.0 };
    let x = s * (STOPS.len() - 1) as f64;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let t = (x - i as f64) as f32;
    std::array::from_fn(|k| STOPS[i][k] + t * (STOPS[i + 1][k] - STOPS[i][k]))
}

/// Draws a vertical colour bar at the right edge from `min` (bottom) to `max` (top) with
/// their values and the field's label.
pub fn colour_bar(img: &mut Image, field: Field, min: f64, max: f64) {
    let (bar_w, bar_h) = (14i64, (img.height as i64 / 2).max(20));
    let x0 = img.width as i64 - bar_w - 12;
    let y0 = (img.height as i64 - bar_h) / 2;
    for y in 0..bar_h {
        let c = pack(colour(1.0 - y as f64 / (bar_h - 1) as f64));
        for x in 0..bar_w {
            img.put(x0 + x, y0 + y, c);
        }
    }
    let white = [1.0, 1.0, 1.0];
    let width = img.width as i64;
    let right = |text: &str| width - text_width(text, 1) as i64 - 4;
    let top = format!("{max:.3e}");
    let bottom = format!("{min:.3e}");
    draw_text(img, right(&top), y0 - 2 * LINE_HEIGHT as i64, &top, white, 1);
    draw_text(
        img,
        right(field.label()),
        y0 - 3 * LINE_HEIGHT as i64,
        field.label(),
        white,
        1,
    );
    draw_text(img, right(&bottom), y0 + bar_h + 4, &bottom, white, 1);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn von_mises_of_uniaxial_stretch_matches_the_cauchy_stress() {
        // SVK, ν = 0: S = E·E_green, so for F = diag(λ,1,1) σ_xx = λ²·S_xx/λ, the only stress.
        let m = Material::st_venant_kirchhoff(1e6, 0.0, 1000.0).unwrap();
        let stretch = 1.01f64;
        let mut e = [0.0; 12];
        e[3] = stretch;
        e[7] = 1.0;
        e[11] = 1.0;
        let s_xx = 1e6 * 0.5 * (stretch * stretch - 1.0);
        let expected = stretch * s_xx;
        assert!((von_mises(&m, &e) - expected).abs() < 1e-6 * expected);
        let rest = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        assert!(von_mises(&m, &rest).abs() < 1e-9);
        assert_eq!(von_mises(&m, &[0.0; 3]), 0.0);
    }

    #[test]
    fn colours_run_from_blue_to_red_and_clamp() {
        assert!(colour(0.0)[2] > colour(0.0)[0]);
        assert!(colour(1.0)[0] > colour(1.0)[2]);
        assert_eq!(colour(-3.0), colour(0.0));
        assert_eq!(colour(f64::NAN), colour(0.0));
        assert_eq!(Field::from_name("von-mises"), Some(Field::VonMises));
        assert_eq!(Field::from_name("x"), None);
    }
}
