//! MJCF `<equality>`: `<joint joint1 joint2 polycoef>` with only the first two coefficients
//! nonzero (q1 = c0 + c1·q2) becomes a scene `[[coupling]]` (joint1 follows joint2); connect,
//! weld, tendon and flex equalities, a joint held to a constant (no joint2) and a polynomial of
//! higher degree are refused by name with the line. Joint coordinates are taken from the
//! assembled pose (a joint's `ref` as 0).

use super::Builder;
use crate::import::draft::DraftCoupling;
use crate::import::error::ImportError;
use crate::import::xml::At;

impl<'a, 'i> Builder<'_, 'a, 'i> {
    /// The equalities of `<equality>` `at` (read after the bodies, whose joints they name).
    pub(super) fn equalities(&mut self, at: At<'a, 'i>) -> Result<(), ImportError> {
        for e in self.model.children(at) {
            if e.node.tag_name().name() != "joint" {
                return Err(e.refused(format!(
                    "<{}> inside <equality> is not modelled yet",
                    e.node.tag_name().name()
                )));
            }
            if self.model.attr(&e, "active").as_deref() == Some("false") {
                self.report.ignore("equality (active=\"false\")", e.line());
                continue;
            }
            let joint = |key: &str| -> Result<String, ImportError> {
                let name = self.model.attr(&e, key).ok_or_else(|| {
                    e.refused(format!(
                        "a joint equality without `{key}` (a joint held to a constant) is not modelled yet"
                    ))
                })?;
                let known = self.joints.get(&name).map(|(scene, _)| scene.clone());
                known.ok_or_else(|| e.invalid(format!("joint \"{name}\" does not exist")))
            };
            let (held, follows) = (joint("joint1")?, joint("joint2")?);
            let coefficients = self
                .model
                .numbers(&e, "polycoef")?
                .unwrap_or_else(|| vec![0.0, 1.0]);
            if coefficients.iter().skip(2).any(|&c| c != 0.0) {
                return Err(e.refused("a joint equality of degree above 1 (polycoef c2..c4) is not modelled"));
            }
            let at = |k: usize| coefficients.get(k).copied().unwrap_or(0.0);
            self.draft.couplings.push(DraftCoupling {
                name: self
                    .model
                    .attr(&e, "name")
                    .unwrap_or_else(|| format!("{held}.equality")),
                line: e.line(),
                joint: held,
                follows,
                multiplier: at(1),
                offset: at(0),
            });
        }
        Ok(())
    }
}
