//! `integrator` and `[simulation.implicit]`: an explicit kernel method; `"hht" | "newmark"` and
//! their settings, checked into [`HhtOptions`] (flexible bodies); or
//! `"bdf1" | "bdf2" | "generalized-alpha"`, checked into an [`ImplicitSpec`] (rigid, flexible
//! and coupled systems). Together an [`IntegratorSpec`].

use super::checker::Checker;
use super::error::SceneError;
use super::format::{Num, RawImplicit};
use crate::spec::integrator::{integrator_names, DAE_NAMES, DEFAULT_ALPHA, HHT_NAMES};
use crate::spec::{HhtOptions, ImplicitSpec, IntegratorSpec, InvalidOption, TangentChoice};
use ferrodyn_kernel::integrators::{AdaptiveConfig, Method};
use toml::Spanned;

/// The integrator called `name` with its settings (`at`: where the name is, for errors).
pub(super) fn spec(
    c: &Checker,
    name: &str,
    config: AdaptiveConfig<f64>,
    at: &std::ops::Range<usize>,
    raw: Option<&Spanned<RawImplicit>>,
) -> Result<IntegratorSpec, SceneError> {
    if let Some(options) = settings(c, name, at, raw)? {
        return Ok(IntegratorSpec::Hht(options));
    }
    if let Some(spec) = dae_settings(c, name, raw)? {
        return Ok(IntegratorSpec::Dae(spec));
    }
    Method::from_name(name, config)
        .map(IntegratorSpec::Explicit)
        .ok_or_else(|| {
            let reason = format!("unknown integrator \"{name}\" (one of: {})", integrator_names());
            c.invalid(at, "integrator", reason)
        })
}

/// The implicit settings for integrator `name`: `Some` for hht/newmark, `None` for the
/// explicit integrators (which must not have a `[simulation.implicit]` table).
fn settings(
    c: &Checker,
    name: &str,
    at: &std::ops::Range<usize>,
    raw: Option<&Spanned<RawImplicit>>,
) -> Result<Option<HhtOptions>, SceneError> {
    if DAE_NAMES.contains(&name) {
        return Ok(None); // see `dae_settings`
    }
    if !HHT_NAMES.contains(&name) {
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
        rho_inf: None,
        tangent: None,
    };
    let r = raw.map_or(&empty, |r| r.get_ref());
    if let Some(v) = &r.tangent {
        let reason = format!("applies to bdf1, bdf2 and generalized-alpha, not {name}");
        return Err(c.invalid(&v.span(), "tangent", reason));
    }
    if let Some(v) = &r.rho_inf {
        let reason = format!("applies to generalized-alpha, not {name}");
        return Err(c.invalid(&v.span(), "rho_inf", reason));
    }
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
    let fail = |e: InvalidOption| c.invalid(&span_of(e.name), e.name, e.reason);
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

/// The settings of a BDF or generalized-α integrator (`bdf1`, `bdf2`, `generalized-alpha`):
/// `rho_inf` (generalized-α only), `newton_tol`, `max_newton_iter`. `None` for other names.
fn dae_settings(
    c: &Checker,
    name: &str,
    raw: Option<&Spanned<RawImplicit>>,
) -> Result<Option<ImplicitSpec>, SceneError> {
    let Some(mut spec) = ImplicitSpec::from_name(name) else {
        return Ok(None);
    };
    let Some(r) = raw.map(|r| r.get_ref()) else {
        return Ok(Some(spec));
    };
    let flexible_only = [
        ("alpha", r.alpha.as_ref().map(|v| v.span())),
        ("beta", r.beta.as_ref().map(|v| v.span())),
        ("gamma", r.gamma.as_ref().map(|v| v.span())),
        ("max_halvings", r.max_halvings.as_ref().map(|v| v.span())),
    ];
    for (field, span) in flexible_only {
        if let Some(span) = span {
            return Err(c.invalid(&span, field, format!("applies to hht or newmark, not {name}")));
        }
    }
    if r.modified_newton.is_some() {
        let at = raw.map_or(0..0, |r| r.span());
        let reason = format!("{name} always reuses its iteration matrix while Newton converges");
        return Err(c.invalid(&at, "modified_newton", reason));
    }
    if let Some(v) = &r.rho_inf {
        let rho = *v.get_ref();
        if name != "generalized-alpha" {
            return Err(c.invalid(
                &v.span(),
                "rho_inf",
                format!("applies to generalized-alpha, not {name}"),
            ));
        }
        if !(0.0..=1.0).contains(&rho) {
            return Err(c.invalid(&v.span(), "rho_inf", format!("{rho} must be in [0, 1]")));
        }
        spec.rho_inf = rho;
    }
    if let Some(v) = &r.tangent {
        spec.tangent = TangentChoice::from_name(v.get_ref()).ok_or_else(|| {
            let names = TangentChoice::NAMES.join(", ");
            c.invalid(
                &v.span(),
                "tangent",
                format!("'{}' is not one of {names}", v.get_ref()),
            )
        })?;
    }
    if let Some(v) = &r.newton_tol {
        let tol = *v.get_ref();
        if !(tol > 0.0 && tol.is_finite()) {
            return Err(c.invalid(&v.span(), "newton_tol", format!("{tol} must be finite and > 0")));
        }
        spec.newton.tolerance = tol;
    }
    if let Some(v) = &r.max_newton_iter {
        spec.newton.max_iterations =
            u32::try_from(*v.get_ref())
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| {
                    c.invalid(
                        &v.span(),
                        "max_newton_iter",
                        format!("{} must be ≥ 1", v.get_ref()),
                    )
                })?;
    }
    Ok(Some(spec))
}

#[cfg(test)]
mod tests {
    use crate::scene::Scene;
    use crate::spec::{HhtOptions, IntegratorSpec};
    use std::path::{Path, PathBuf};

    fn hht(scene: &Scene) -> Option<HhtOptions> {
        match scene.simulation.integrator {
            IntegratorSpec::Hht(o) => Some(o),
            _ => None,
        }
    }

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
        let IntegratorSpec::Hht(o) = scene.simulation.integrator else {
            panic!("hht")
        };
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
        let o = hht(&s).unwrap();
        assert_eq!((o.alpha, o.beta, o.gamma), (0.0, 0.3, 0.6));
        let s = parse("integrator = \"hht\"\n", "").unwrap();
        assert_eq!(hht(&s).unwrap().alpha, super::DEFAULT_ALPHA);
        assert!(hht(&parse("integrator = \"rk4\"\n", "").unwrap()).is_none());
    }

    #[test]
    fn invalid_settings_are_errors_naming_file_line_and_field() {
        let cases = [
            (
                "integrator = \"hht\"\n[simulation.implicit]\nalpha = -0.5\n",
                "",
                "t.toml:6",
                "alpha",
            ),
            (
                "integrator = \"hht\"\n[simulation.implicit]\nbeta = 0.3\n",
                "",
                "t.toml:6",
                "beta",
            ),
            (
                "integrator = \"newmark\"\n[simulation.implicit]\nalpha = -0.1\n",
                "",
                "t.toml:6",
                "alpha",
            ),
            (
                "integrator = \"newmark\"\n[simulation.implicit]\ngamma = 0.4\n",
                "",
                "t.toml:6",
                "gamma",
            ),
            (
                "integrator = \"hht\"\n[simulation.implicit]\nnewton_tol = 0.0\n",
                "",
                "t.toml:6",
                "newton_tol",
            ),
            (
                "integrator = \"hht\"\n[simulation.implicit]\nmax_newton_iter = 0\n",
                "",
                "t.toml:6",
                "max_newton_iter",
            ),
            (
                "integrator = \"hht\"\n[simulation.implicit]\nmax_halvings = -1\n",
                "",
                "t.toml:6",
                "max_halvings",
            ),
            (
                "integrator = \"rk4\"\n[simulation.implicit]\nalpha = -0.1\n",
                "",
                "t.toml:5",
                "implicit",
            ),
            ("integrator = \"bogus\"\n", "", "t.toml:4", "hht, newmark"),
        ];
        for (simulation, rest, at, field) in cases {
            let e = parse(simulation, rest).unwrap_err();
            println!("{e}");
            assert!(e.contains(at) && e.contains(field), "{simulation}: {e}");
        }
    }

    #[test]
    fn rigid_implicit_integrators_and_their_settings() {
        let s = parse(
            "integrator = \"generalized-alpha\"\n[simulation.implicit]\nrho_inf = 0.6\nmax_newton_iter = 7\n",
            "",
        )
        .unwrap();
        let IntegratorSpec::Dae(spec) = s.simulation.integrator else {
            panic!("generalized-alpha")
        };
        assert_eq!(
            (spec.name, spec.rho_inf, spec.newton.max_iterations),
            ("generalized-alpha", 0.6, 7)
        );
        assert_eq!(s.simulation.integrator.name(), "generalized-alpha");
        let s = parse("integrator = \"bdf2\"\n", "").unwrap();
        assert_eq!(s.simulation.integrator.name(), "bdf2");
        let cases = [
            (
                "integrator = \"generalized-alpha\"\n[simulation.implicit]\nrho_inf = 1.5\n",
                "t.toml:6: simulation: rho_inf: 1.5 must be in [0, 1]",
            ),
            (
                "integrator = \"bdf2\"\n[simulation.implicit]\nrho_inf = 0.5\n",
                "t.toml:6: simulation: rho_inf: applies to generalized-alpha, not bdf2",
            ),
            (
                "integrator = \"bdf1\"\n[simulation.implicit]\nalpha = -0.1\n",
                "t.toml:6: simulation: alpha: applies to hht or newmark, not bdf1",
            ),
            (
                "integrator = \"hht\"\n[simulation.implicit]\nrho_inf = 0.5\n",
                "t.toml:6: simulation: rho_inf: applies to generalized-alpha, not hht",
            ),
            (
                "integrator = \"bdf2\"\n[simulation.implicit]\nnewton_tol = -1.0\n",
                "t.toml:6: simulation: newton_tol: -1 must be finite and > 0",
            ),
        ];
        for (simulation, message) in cases {
            let e = parse(simulation, "").unwrap_err();
            assert!(e.ends_with(message), "{simulation}: {e}");
        }
    }
}
