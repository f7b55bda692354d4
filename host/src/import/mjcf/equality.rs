//! MJCF `<equality>`: `<joint joint1 joint2 polycoef>` with only the first two coefficients
//! nonzero (q1 = c0 + c1·q2) becomes a scene `[[coupling]]` (joint1 follows joint2), and so
//! does a `<tendon tendon1>` on a fixed tendon of two joints; `<connect>` and `<weld>` become
//! joints closing loops (loops.rs). Other tendon and flex equalities, a joint held to a
//! constant (no joint2) and a polynomial of higher degree are refused by name with the line.
//! Joint coordinates are taken from the assembled pose (a joint's `ref` as 0). `active="false"`
//! (also from the classes' `<equality>` default) leaves an equality out, noted.

use super::Builder;
use crate::import::draft::DraftCoupling;
use crate::import::error::ImportError;
use crate::import::xml::At;

impl<'a, 'i> Builder<'_, 'a, 'i> {
    /// The equalities of `<equality>` `at` (read after the bodies, whose joints they name).
    pub(super) fn equalities(&mut self, at: At<'a, 'i>) -> Result<(), ImportError> {
        for e in self.model.children(at) {
            let tag = e.node.tag_name().name();
            if !matches!(tag, "joint" | "tendon" | "connect" | "weld") {
                return Err(e.refused(format!("<{tag}> inside <equality> is not modelled yet")));
            }
            // MuJoCo's class defaults of every equality are its <default>'s <equality>.
            if self.model.attr_in(&e, "equality", "active").as_deref() == Some("false") {
                self.report.ignore("equality (active=\"false\")", e.line());
                continue;
            }
            match tag {
                "tendon" => self.tendon_equality(e)?,
                "joint" => self.joint_equality(e)?,
                _ => self.loop_equality(e)?,
            }
        }
        Ok(())
    }

    /// `<equality><joint joint1 joint2 polycoef>` of degree 1: joint1 follows joint2.
    fn joint_equality(&mut self, e: At<'a, 'i>) -> Result<(), ImportError> {
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
        Ok(())
    }

    /// `<equality><tendon tendon1>` without `tendon2` holds the tendon at its length at qpos0
    /// plus c0 (MuJoCo's L − L(qpos0) = c0). On a tendon of two joints, c_a θ_a + c_b θ_b = c0 in
    /// the scene's coordinates (0 at qpos0): θ_b = −(c_a / c_b) θ_a + c0 / c_b, a coupling. A
    /// tendon of one joint or of more than two, or two tendons related, is a general linear
    /// row the tree's coupling rows do not hold: refused by name.
    fn tendon_equality(&mut self, e: At<'a, 'i>) -> Result<(), ImportError> {
        let tendon = e.required("tendon1")?;
        if e.node.attribute("tendon2").is_some() {
            return Err(e.refused(
                "a tendon equality between two tendons (a general linear row on the joints) is not modelled",
            ));
        }
        let Some(terms) = self.tendons.get(tendon).cloned() else {
            return Err(e.invalid(format!(
                "tendon \"{tendon}\" does not exist (or is not a fixed tendon)"
            )));
        };
        let joints = terms.len();
        let Ok([(leader, c_a), (held, c_b)]) = <[(String, f64); 2]>::try_from(terms) else {
            return Err(e.refused(format!(
                "a tendon equality on tendon \"{tendon}\" of {joints} joints (a general linear row; the tree's coupling rows hold one joint to another) is not modelled"
            )));
        };
        if c_b == 0.0 {
            return Err(e.refused(format!(
                "tendon \"{tendon}\" has a zero coefficient: its equality holds one joint to a constant (not modelled)"
            )));
        }
        let c0 = self
            .model
            .numbers(&e, "polycoef")?
            .and_then(|c| c.first().copied())
            .unwrap_or(0.0);
        self.draft.couplings.push(DraftCoupling {
            name: self
                .model
                .attr(&e, "name")
                .unwrap_or_else(|| format!("{tendon}.equality")),
            line: e.line(),
            joint: held,
            follows: leader,
            multiplier: -c_a / c_b,
            offset: c0 / c_b,
        });
        Ok(())
    }
}
