//! MJCF `<tendon>`: a `<fixed>` tendon (length Σ cᵢ qᵢ over hinge and slide joints) becomes a
//! scene `[[tendon]]` with its `stiffness`, `damping`, `springlength` and `range` (defaults of
//! the `<tendon>` class element); `<spatial>` tendons (paths through sites) are refused by name.
//!
//! MuJoCo measures a joint from qpos = 0, the scene from the assembled pose qpos0 = `ref`, so
//! the lengths move by Σ cᵢ refᵢ: the scene's length is MuJoCo's minus that. A `springlength`
//! of −1 (the default) is the length at the joints' `springref`, as MuJoCo computes it.

use super::Builder;
use crate::import::draft::{DraftJointKind, DraftTendon};
use crate::import::error::ImportError;
use crate::import::xml::At;

impl<'a, 'i> Builder<'_, 'a, 'i> {
    /// The tendons of `<tendon>` `at` (read after the bodies, whose joints they name).
    pub(super) fn tendons(&mut self, at: At<'a, 'i>) -> Result<(), ImportError> {
        for (k, t) in self.model.children(at).into_iter().enumerate() {
            match t.node.tag_name().name() {
                "fixed" => self.fixed_tendon(t, k)?,
                "spatial" => {
                    return Err(t.refused(
                        "a <spatial> tendon (a path through sites, with wrapping) is not modelled yet",
                    ))
                }
                other => return Err(t.refused(format!("<{other}> inside <tendon> is not modelled"))),
            }
        }
        Ok(())
    }

    fn fixed_tendon(&mut self, t: At<'a, 'i>, k: usize) -> Result<(), ImportError> {
        let m = self.model;
        let attr = |key: &str| m.attr_in(&t, "tendon", key);
        let numbers = |key: &str| attr(key).map(|text| t.number_list(key, &text)).transpose();
        let number = |key: &str| -> Result<f64, ImportError> {
            Ok(numbers(key)?.and_then(|v| v.first().copied()).unwrap_or(0.0))
        };
        let name = t
            .node
            .attribute("name")
            .map_or_else(|| format!("tendon{k}"), str::to_string);
        let (mut terms, mut at_ref, mut at_springref) = (Vec::new(), 0.0, 0.0);
        for j in m.children(t) {
            if j.node.tag_name().name() != "joint" {
                return Err(j.refused(format!(
                    "<{}> inside a <fixed> tendon is not modelled",
                    j.node.tag_name().name()
                )));
            }
            let joint = j.required("joint")?;
            let Some((scene, kind)) = self.joints.get(joint).cloned() else {
                return Err(j.invalid(format!("joint \"{joint}\" does not exist")));
            };
            if !matches!(kind, DraftJointKind::Revolute | DraftJointKind::Prismatic) {
                return Err(j.refused(format!(
                    "joint \"{joint}\" is not a hinge or slide: a fixed tendon on it is not modelled"
                )));
            }
            let coefficient: f64 = j
                .required("coef")?
                .trim()
                .parse()
                .map_err(|_| j.invalid("`coef` is not a number"))?;
            let (reference, spring) = self.references.get(joint).copied().unwrap_or((0.0, 0.0));
            at_ref += coefficient * reference;
            at_springref += coefficient * spring;
            terms.push((scene, coefficient));
        }
        if terms.is_empty() {
            return Err(t.invalid("a fixed tendon without joints"));
        }
        for (key, what) in [
            ("frictionloss", "tendon friction (frictionloss)"),
            ("armature", "tendon armature"),
        ] {
            if number(key)? != 0.0 {
                self.report.not_modelled(what, &name);
            }
        }
        let rest = match numbers("springlength")?.as_deref() {
            None | Some([-1.0]) | Some([-1.0, -1.0]) => [at_springref; 2],
            Some(&[length]) => [length; 2],
            Some(&[lower, upper]) if lower <= upper => [lower, upper],
            Some(_) => return Err(t.invalid("`springlength` is not a length or [lower, upper]")),
        };
        let limits = match (numbers("range")?, attr("limited").as_deref()) {
            (Some(range), limited) if limited != Some("false") => match range[..] {
                [lower, upper] if lower <= upper => Some([lower - at_ref, upper - at_ref]),
                _ => return Err(t.invalid("`range` is not [lower, upper] with lower ≤ upper")),
            },
            _ => None,
        };
        self.tendons.insert(name.clone(), terms.clone());
        self.draft.tendons.push(DraftTendon {
            name,
            line: t.line(),
            terms,
            stiffness: number("stiffness")?,
            damping: number("damping")?,
            rest: rest.map(|l| l - at_ref),
            limits,
        });
        Ok(())
    }
}
