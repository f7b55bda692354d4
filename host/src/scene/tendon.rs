//! `[[tendon]]` tables: fixed tendons (MuJoCo's `<tendon><fixed>`), a length linear in the
//! coordinates of revolute and prismatic joints carrying a spring-damper and end stops; on the
//! tree ([`ferrodyn_kernel::tree::Tendon`]) only.

use super::checker::{Checker, Names};
use super::convert::Rule;
use super::error::ItemName;
use super::error::SceneError;
use super::format::{RawLength, RawScene};
use super::limit::end_stops;
use super::types::{Named, TendonSpec};
use ferrodyn_kernel::rigid::{Joint, JointKind};
use ferrodyn_kernel::tree::TENDON_TERMS;
use toml::Spanned;

/// The tendons of `raw`, each over distinct revolute or prismatic joints.
pub(super) fn validate(
    c: &mut Checker,
    raw: &RawScene,
    joint_names: &Names,
    joints: &[Named<Joint<f64>>],
) -> Result<Vec<Named<TendonSpec>>, SceneError> {
    let mut names = Names::new("tendon");
    let mut tendons = Vec::new();
    for spanned in &raw.tendon {
        let r = spanned.get_ref();
        c.item = Some(ItemName::new("tendon", r.name.get_ref()));
        names.add(c, &r.name)?;
        let (named, coefficients) = (r.joints.get_ref(), r.coefficients.get_ref());
        if named.is_empty() || named.len() > TENDON_TERMS {
            let reason = format!("a tendon spans 1 to {TENDON_TERMS} joints, not {}", named.len());
            return Err(c.invalid(&r.joints.span(), "joints", reason));
        }
        if coefficients.len() != named.len() {
            let reason = format!("{} coefficients for {} joints", coefficients.len(), named.len());
            return Err(c.invalid(&r.coefficients.span(), "coefficients", reason));
        }
        if let Some(bad) = coefficients.iter().find(|x| !x.is_finite()) {
            return Err(c.invalid(
                &r.coefficients.span(),
                "coefficients",
                format!("{bad} is not finite"),
            ));
        }
        let mut terms = Vec::with_capacity(named.len());
        for (name, &coefficient) in named.iter().zip(coefficients) {
            let name = Spanned::new(r.joints.span(), name.clone());
            let joint = joint_names.find(c, "joints", &name)?;
            let kind = joints[joint].value.kind;
            if !matches!(kind, JointKind::Revolute | JointKind::Prismatic) {
                let reason = format!(
                    "joint \"{}\" is {}; a tendon spans revolute or prismatic joints",
                    name.get_ref(),
                    kind.name()
                );
                return Err(c.invalid(&r.joints.span(), "joints", reason));
            }
            if terms.iter().any(|&(j, _)| j == joint) {
                let reason = format!("joint \"{}\" is named twice", name.get_ref());
                return Err(c.invalid(&r.joints.span(), "joints", reason));
            }
            terms.push((joint, coefficient));
        }
        let stiffness = c.number_or("stiffness", &r.stiffness, Rule::NonNegative, 0.0)?;
        let damping = c.number_or("damping", &r.damping, Rule::NonNegative, 0.0)?;
        let rest = match r.rest_length.as_ref().map(|l| (l.span(), *l.get_ref())) {
            None => (0.0, 0.0),
            Some((_, RawLength::One(l))) if l.is_finite() => (l, l),
            Some((_, RawLength::Band([lower, upper])))
                if lower.is_finite() && upper.is_finite() && lower <= upper =>
            {
                (lower, upper)
            }
            Some((span, _)) => {
                let reason = "give a finite length or [lower, upper] with lower ≤ upper".into();
                return Err(c.invalid(&span, "rest_length", reason));
            }
        };
        let limit = end_stops(c, r.limits.as_ref(), &r.limit_stiffness, &r.limit_damping)?;
        tendons.push(Named {
            name: r.name.get_ref().clone(),
            kind: "tendon",
            line: c.source.line_of(&spanned.span()),
            value: TendonSpec {
                terms,
                stiffness,
                rest,
                damping,
                limit,
            },
        });
    }
    Ok(tendons)
}
