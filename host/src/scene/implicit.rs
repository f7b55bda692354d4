//! `integrator = "hht" | "newmark"` and their settings in `[simulation.implicit]`, checked into
//! [`HhtOptions`] for the implicit flexible solver ([`crate::implicit`]).

use super::format::Num;
use super::validate::Checker;
use super::SceneError;
use crate::implicit::{HhtOptions, ImplicitError};
use serde::Deserialize;
use toml::Spanned;

/// Names of the implicit integrators (flexible bodies).
pub const IMPLICIT_NAMES: [&str; 2] = ["hht", "newmark"];

/// `[simulation.implicit]`: settings of the implicit integrators.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawImplicit {
    /// HHT α ∈ [−1/3, 0] (hht only, default −0.05).
    pub alpha: Option<Num>,
    /// Newmark β (newmark only, default 1/4).
    pub beta: Option<Num>,
    /// Newmark γ (newmark only, default 1/2).
    pub gamma: Option<Num>,
    /// Newton increment tolerance (max norm, default 1e-10).
    pub newton_tol: Option<Num>,
    /// Newton iterations per attempt (default 20).
    pub max_newton_iter: Option<Spanned<i64>>,
    /// Reuse the factorized tangent (default false).
    pub modified_newton: Option<bool>,
    /// Step-halving retries (levels, default 0).
    pub max_halvings: Option<Spanned<i64>>,
}

/// Default HHT α: mild damping of the highest modes, second order.
pub const DEFAULT_ALPHA: f64 = -0.05;

/// The implicit settings for integrator `name`: `Some` for hht/newmark, `None` for the
/// explicit integrators (which must not have a `[simulation.implicit]` table).
pub(super) fn settings(
    c: &Checker,
    name: &str,
    at: &std::ops::Range<usize>,
    raw: Option<&Spanned<RawImplicit>>,
) -> Result<Option<HhtOptions>, SceneError> {
    if !IMPLICIT_NAMES.contains(&name) {
        return match raw {
            Some(r) => Err(c.invalid(
                &r.span(),
                "implicit",
                format!("applies only to the implicit integrators (hht, newmark), not {name}"),
            )),
            None => Ok(None),
        };
    }
    let empty = RawImplicit {
        alpha: None,
        beta: None,
        gamma: None,
        newton_tol: None,
        max_newton_iter: None,
        modified_newton: None,
        max_halvings: None,
    };
    let r = raw.map_or(&empty, |r| r.get_ref());
    let number = |field: &'static str, v: &Option<Num>, default: f64| -> Result<f64, SceneError> {
        match v {
            Some(v) if v.get_ref().is_finite() => Ok(*v.get_ref()),
            Some(v) => Err(c.invalid(&v.span(), field, format!("{} is not finite", v.get_ref()))),
            None => Ok(default),
        }
    };
    let count = |field: &'static str, v: &Option<Spanned<i64>>, default: u32| -> Result<u32, SceneError> {
        match v {
            Some(v) => u32::try_from(*v.get_ref()).map_err(|_| {
                c.invalid(
                    &v.span(),
                    field,
                    format!("{} must be a non-negative integer", v.get_ref()),
                )
            }),
            None => Ok(default),
        }
    };
    let span_of = |field: &str| -> std::ops::Range<usize> {
        let s = match field {
            "alpha" => r.alpha.as_ref().map(|v| v.span()),
            "beta" => r.beta.as_ref().map(|v| v.span()),
            "gamma" => r.gamma.as_ref().map(|v| v.span()),
            "newton_tol" => r.newton_tol.as_ref().map(|v| v.span()),
            "max_newton_iter" => r.max_newton_iter.as_ref().map(|v| v.span()),
            "max_halvings" => r.max_halvings.as_ref().map(|v| v.span()),
            _ => None,
        };
        s.or_else(|| raw.map(|r| r.span())).unwrap_or_else(|| at.clone())
    };
    let fail = |e: ImplicitError| match e {
        ImplicitError::InvalidOption { name, reason } => c.invalid(&span_of(name), name, reason),
        other => c.invalid(at, "implicit", other.to_string()),
    };
    let mut options = if name == "hht" {
        for (field, v) in [("beta", &r.beta), ("gamma", &r.gamma)] {
            if let Some(v) = v {
                let reason =
                    "hht takes β = (1 − α)²/4 and γ = ½ − α from alpha; set them with newmark".to_string();
                return Err(c.invalid(&v.span(), field, reason));
            }
        }
        HhtOptions::hht(number("alpha", &r.alpha, DEFAULT_ALPHA)?).map_err(fail)?
    } else {
        if let Some(v) = &r.alpha {
            return Err(c.invalid(&v.span(), "alpha", "applies to hht, not newmark".into()));
        }
        HhtOptions::newmark(number("beta", &r.beta, 0.25)?, number("gamma", &r.gamma, 0.5)?).map_err(fail)?
    };
    let defaults = HhtOptions::default();
    options.newton_tol = number("newton_tol", &r.newton_tol, defaults.newton_tol)?;
    options.max_newton_iter = count("max_newton_iter", &r.max_newton_iter, defaults.max_newton_iter)?;
    options.modified_newton = r.modified_newton.unwrap_or(defaults.modified_newton);
    options.max_halvings = count("max_halvings", &r.max_halvings, defaults.max_halvings)?;
    options.validate().map_err(fail)?;
    Ok(Some(options))
}

#[cfg(test)]
mod tests {
    use crate::scene::Scene;
    use std::path::{Path, PathBuf};

    fn scene_path() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/t.toml")
    }

    const FLEX: &str = "[[flexible]]\nname = \"beam\"\nmesh = \"../meshes/beam_coarse.msh\"\n\
        material = { law = \"svk\", E = 2.1e11, nu = 0.3, rho = 7850.0 }\nclamp = [\"clamp\"]\n";

    fn parse(simulation: &str, rest: &str) -> Result<Scene, String> {
        let text = format!("[simulation]\nend_time = 0.1\nstep = 1e-3\n{simulation}\n{FLEX}{rest}");
        Scene::parse(&scene_path(), &text).map_err(|e| e.to_string())
    }

    #[test]
    fn steel_cantilever_scene_selects_hht_with_its_settings() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/steel_cantilever.toml");
        let scene = Scene::load(&path).unwrap();
        let o = scene.simulation.implicit.unwrap();
        assert_eq!((o.alpha, o.max_newton_iter, o.max_halvings), (-0.05, 20, 4));
        assert_eq!((o.beta, o.gamma), (0.25 * 1.05 * 1.05, 0.55));
        assert!(!o.modified_newton);
    }

    #[test]
    fn newmark_defaults_and_settings() {
        let s = parse(
            "integrator = \"newmark\"\n[simulation.implicit]\nbeta = 0.3\ngamma = 0.6\n",
            "",
        )
        .unwrap();
        let o = s.simulation.implicit.unwrap();
        assert_eq!((o.alpha, o.beta, o.gamma), (0.0, 0.3, 0.6));
        let s = parse("integrator = \"hht\"\n", "").unwrap();
        assert_eq!(s.simulation.implicit.unwrap().alpha, super::DEFAULT_ALPHA);
        assert!(parse("integrator = \"rk4\"\n", "")
            .unwrap()
            .simulation
            .implicit
            .is_none());
    }

    #[test]
    fn invalid_settings_are_errors_naming_file_line_and_field() {
        let cases = [
            ("integrator = \"hht\"\n[simulation.implicit]\nalpha = -0.5\n", "", "t.toml:6", "alpha"),
            ("integrator = \"hht\"\n[simulation.implicit]\nbeta = 0.3\n", "", "t.toml:6", "beta"),
            ("integrator = \"newmark\"\n[simulation.implicit]\nalpha = -0.1\n", "", "t.toml:6", "alpha"),
            ("integrator = \"newmark\"\n[simulation.implicit]\ngamma = 0.4\n", "", "t.toml:6", "gamma"),
            ("integrator = \"hht\"\n[simulation.implicit]\nnewton_tol = 0.0\n", "", "t.toml:6", "newton_tol"),
            ("integrator = \"hht\"\n[simulation.implicit]\nmax_newton_iter = 0\n", "", "t.toml:6", "max_newton_iter"),
            ("integrator = \"hht\"\n[simulation.implicit]\nmax_halvings = -1\n", "", "t.toml:6", "max_halvings"),
            ("integrator = \"rk4\"\n[simulation.implicit]\nalpha = -0.1\n", "", "t.toml:5", "implicit"),
            ("integrator = \"bogus\"\n", "", "t.toml:4", "hht, newmark"),
            (
                "integrator = \"hht\"\n",
                "[[body]]\nid = 1\nname = \"hub\"\nmass = 1.0\ninertia = { Ixx = 1.0, Iyy = 1.0, Izz = 1.0 }\n",
                "t.toml:4",
                "without rigid bodies",
            ),
        ];
        for (simulation, rest, at, field) in cases {
            let e = parse(simulation, rest).unwrap_err();
            println!("{e}");
            assert!(e.contains(at) && e.contains(field), "{simulation}: {e}");
        }
    }
}
