//! Integrator settings as a scene or a caller chooses them: an explicit kernel method, the
//! implicit methods for any system (BDF1/2, generalized-α: [`crate::dae`]) and for flexible
//! bodies (HHT-α/Newmark: [`crate::implicit`]). Plain data, checked here; the solvers are made
//! from it by [`crate::compile`].

use ferrodyn_kernel::integrators::{AdaptiveConfig, Method, METHOD_NAMES};

/// An integrator setting out of range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid implicit-solver option {name}: {reason}")]
pub struct InvalidOption {
    /// The option.
    pub name: &'static str,
    /// Why.
    pub reason: String,
}

/// The integrator of a simulation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IntegratorSpec {
    /// A kernel explicit or semi-implicit method.
    Explicit(Method<f64>),
    /// BDF1, BDF2 or generalized-α (rigid, flexible and coupled systems).
    Dae(ImplicitSpec),
    /// HHT-α or Newmark (flexible bodies, analytic tangent).
    Hht(HhtOptions),
}

impl IntegratorSpec {
    /// The name, as written in scene files and on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Explicit(m) => m.name(),
            Self::Dae(s) => s.name,
            Self::Hht(o) if o.alpha != 0.0 => "hht",
            Self::Hht(_) => "newmark",
        }
    }

    /// The integrator called `name` with its default settings (`config` for the adaptive
    /// methods); `None` for an unknown name.
    pub fn from_name(name: &str, config: AdaptiveConfig<f64>) -> Option<Self> {
        match name {
            "hht" => HhtOptions::hht(DEFAULT_ALPHA).ok().map(Self::Hht),
            "newmark" => Some(Self::Hht(HhtOptions::default())),
            _ => Method::from_name(name, config)
                .map(Self::Explicit)
                .or_else(|| ImplicitSpec::from_name(name).map(Self::Dae)),
        }
    }

    /// Whether `name` is an adaptive explicit method (the one kind `rtol` and `atol` apply to).
    pub fn is_adaptive(name: &str) -> bool {
        Method::<f64>::from_name(name, AdaptiveConfig::default()).is_some_and(|m| m.is_adaptive())
    }
}

/// Every integrator name, for the message about an unknown one.
pub fn integrator_names() -> String {
    [&METHOD_NAMES[..], &DAE_NAMES[..], &HHT_NAMES[..]]
        .concat()
        .join(", ")
}

/// Names of the HHT-α / Newmark integrators (flexible bodies).
pub const HHT_NAMES: [&str; 2] = ["hht", "newmark"];

/// Default HHT α: mild damping of the highest modes, second order.
pub const DEFAULT_ALPHA: f64 = -0.05;

/// Settings of the HHT-α / Newmark integrator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HhtOptions {
    /// HHT α ∈ [−1/3, 0] (0 for Newmark).
    pub alpha: f64,
    /// Newmark β.
    pub beta: f64,
    /// Newmark γ.
    pub gamma: f64,
    /// Newton converges when the increment max norm ‖Δq‖∞ ≤ newton_tol (coordinate units:
    /// m for positions, 1 for gradients).
    pub newton_tol: f64,
    /// Newton iterations allowed per attempt.
    pub max_newton_iter: u32,
    /// Modified Newton: keep the factorized tangent across iterations and steps while the
    /// iteration contracts; refactorize when it stalls or the step changes.
    pub modified_newton: bool,
    /// A failed step is retried as two half steps, recursively, this many levels deep.
    pub max_halvings: u32,
}

impl Default for HhtOptions {
    fn default() -> Self {
        Self {
            alpha: 0.0,
            beta: 0.25,
            gamma: 0.5,
            newton_tol: 1e-10,
            max_newton_iter: 20,
            modified_newton: false,
            max_halvings: 0,
        }
    }
}

impl HhtOptions {
    /// HHT-α with β = (1 − α)²/4, γ = ½ − α; α must lie in [−1/3, 0].
    pub fn hht(alpha: f64) -> Result<Self, InvalidOption> {
        if !(-1.0 / 3.0..=0.0).contains(&alpha) {
            return Err(InvalidOption {
                name: "alpha",
                reason: format!("{alpha} is outside [-1/3, 0]"),
            });
        }
        Ok(Self {
            alpha,
            beta: 0.25 * (1.0 - alpha) * (1.0 - alpha),
            gamma: 0.5 - alpha,
            ..Self::default()
        })
    }

    /// Newmark-β with the given β and γ (α = 0); unconditionally stable for 2β ≥ γ ≥ ½.
    pub fn newmark(beta: f64, gamma: f64) -> Result<Self, InvalidOption> {
        let o = Self {
            beta,
            gamma,
            ..Self::default()
        };
        o.validate()?;
        Ok(o)
    }

    /// Checks every setting.
    pub fn validate(&self) -> Result<(), InvalidOption> {
        let bad = |name, reason: String| Err(InvalidOption { name, reason });
        if !(-1.0 / 3.0..=0.0).contains(&self.alpha) {
            return bad("alpha", format!("{} is outside [-1/3, 0]", self.alpha));
        }
        if !(self.beta > 0.0 && self.beta <= 1.0) {
            return bad("beta", format!("{} is outside (0, 1]", self.beta));
        }
        if !(self.gamma >= 0.5 && self.gamma <= 1.5) {
            return bad("gamma", format!("{} is outside [1/2, 3/2]", self.gamma));
        }
        if !(self.newton_tol > 0.0 && self.newton_tol.is_finite()) {
            return bad("newton_tol", format!("{} must be positive", self.newton_tol));
        }
        if self.max_newton_iter == 0 {
            return bad("max_newton_iter", "must be at least 1".into());
        }
        if self.max_halvings > 30 {
            return bad("max_halvings", format!("{} is above 30", self.max_halvings));
        }
        Ok(())
    }
}

/// Settings of the Newton iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewtonSettings {
    /// Converged when ‖R‖∞ ≤ tolerance · (1 + ‖x‖∞).
    pub tolerance: f64,
    /// Iterations allowed per step.
    pub max_iterations: u32,
}

impl Default for NewtonSettings {
    fn default() -> Self {
        Self {
            tolerance: 1e-10,
            max_iterations: 25,
        }
    }
}

/// Where the Newton iteration matrix of a BDF or generalized-α step comes from
/// (`[simulation.implicit] tangent`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TangentChoice {
    /// The system's analytic matrix where it has one (a tree in joint coordinates), else the
    /// finite difference.
    #[default]
    Analytic,
    /// Forward differences of the step residual: one evaluation per velocity coordinate.
    FiniteDifference,
    /// Both; the analytic one is used and its largest relative distance from the finite
    /// difference is reported (validation).
    Compared,
}

impl TangentChoice {
    /// The names in scene files, in the order of the variants.
    pub const NAMES: [&'static str; 3] = ["analytic", "finite-difference", "compared"];

    /// The choice called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "analytic" => Some(Self::Analytic),
            "finite-difference" => Some(Self::FiniteDifference),
            "compared" => Some(Self::Compared),
            _ => None,
        }
    }
}

/// Names of the BDF and generalized-α integrators in scene files and on the command line.
pub const DAE_NAMES: [&str; 3] = ["bdf1", "bdf2", "generalized-alpha"];

/// Default ρ∞ of generalized-α: damps unresolved high frequencies, keeps resolved motion.
pub const DEFAULT_RHO_INF: f64 = 0.8;

/// A choice of implicit method and its settings (what a scene file says), from which fresh
/// integrators are made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImplicitSpec {
    /// "bdf1", "bdf2" or "generalized-alpha".
    pub name: &'static str,
    /// ρ∞ of generalized-α.
    pub rho_inf: f64,
    /// Newton settings.
    pub newton: NewtonSettings,
    /// Where the iteration matrix comes from.
    pub tangent: TangentChoice,
}

impl ImplicitSpec {
    /// The method called `name` (one of [`DAE_NAMES`]) with default settings.
    pub fn from_name(name: &str) -> Option<Self> {
        let name = DAE_NAMES.into_iter().find(|n| *n == name)?;
        Some(Self {
            name,
            rho_inf: DEFAULT_RHO_INF,
            newton: NewtonSettings::default(),
            tangent: TangentChoice::default(),
        })
    }
}
