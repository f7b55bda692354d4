//! MJCF `<equality>` connect and weld → scene joints that close loops (rows on the tree's
//! coordinates, or Cartesian joints), each with a frame on both bodies at the assembled pose,
//! as the importer places every joint:
//! - `<connect body1 body2 anchor>`: a spherical joint at `anchor` (body1's frame; without
//!   `body2`, the world), the point where MuJoCo holds the two bodies together;
//! - `<connect site1 site2>`: a spherical joint at the sites, which must coincide;
//! - `<weld body1 body2 relpose anchor>`: a fixed joint at `anchor` (body2's frame) with body2's
//!   axes; `relpose` (body2's pose in body1's frame) all but absent (a zero quaternion: MuJoCo's
//!   default, the pose at qpos0) or equal to the assembled pose;
//! - `<weld site1 site2>`: a fixed joint at the sites, whose frames must coincide.
//!
//! MuJoCo's equalities are soft (`solref`, `solimp`); these joints are rigid. A pose that is not
//! assembled (MuJoCo would pull the bodies there) is refused by name: a scene joint starts
//! assembled.

use super::{Builder, Carrier};
use crate::import::draft::{DraftJoint, DraftJointKind};
use crate::import::error::ImportError;
use crate::import::pose::Pose;
use crate::import::xml::At;
use ferrodyn_kernel::math::{Quat, Vec3};

/// How far (m, and rad) a written pose may be from the assembled one and still be read as it:
/// the rounding of written digits, far below what moves a model.
const ASSEMBLED: f64 = 1e-6;

/// The angle (rad) of the rotation between two unit quaternions.
fn angle_between(a: Quat<f64>, b: Quat<f64>) -> f64 {
    let d = a.conjugate().mul(&b);
    2.0 * Vec3::new(d.x, d.y, d.z).norm().atan2(d.w.abs())
}

impl<'a, 'i> Builder<'_, 'a, 'i> {
    /// `<connect>` or `<weld>` `e` (active): a spherical or fixed joint between the scene bodies
    /// that carry its two ends.
    pub(super) fn loop_equality(&mut self, e: At<'a, 'i>) -> Result<(), ImportError> {
        let weld = e.node.tag_name().name() == "weld";
        let given = |keys: &[&str]| keys.iter().any(|&k| e.node.attribute(k).is_some());
        let (label, [one, two], place) = match given(&["site1", "site2"]) {
            true if given(&["body1", "body2", "anchor", "relpose"]) => return Err(e.invalid(
                "give either site1 and site2 or body1 (body2, anchor, relpose), not both (MuJoCo's schema)",
            )),
            true => self.site_ends(e, weld)?,
            false => self.body_ends(e, weld)?,
        };
        let tag = e.node.tag_name().name();
        if weld {
            let scale = e.number_or("torquescale", 1.0)?;
            if scale <= 0.0 {
                return Err(e.refused(format!(
                    "torquescale {scale}: a weld without its rotational rows is not modelled"
                )));
            }
        }
        let name = self.loop_joint_name(e.node.attribute("name"), &format!("{label}.{tag}"));
        if one.body == two.body {
            self.report.fact(format!(
                "equality {tag} \"{name}\" (line {}) left out: both ends are on {}, so it constrains nothing",
                e.line(),
                one.body
                    .as_deref()
                    .map_or("the ground".into(), |b| format!("body \"{b}\""))
            ));
            return Ok(());
        }
        // The ground, when an end is on it, is body i (a scene joint's body j is a body).
        let (body_i, body_j) = match (one.body, two.body) {
            (Some(a), None) => (None, a),
            (a, Some(b)) => (a, b),
            (None, None) => return Ok(()),
        };
        let kind = if weld {
            DraftJointKind::Fixed
        } else {
            DraftJointKind::Spherical
        };
        self.report.fact(format!(
            "equality {tag} \"{name}\": a rigid {} joint closing a loop between {} and \"{body_j}\" (MuJoCo's is soft: solref, solimp)",
            kind.scene_name(),
            body_i.as_deref().map_or("the ground".into(), |b| format!("\"{b}\""))
        ));
        let frame_i = self.in_body(&body_i, place);
        let frame_j = self.in_body(&Some(body_j.clone()), place);
        self.draft.joints.push(DraftJoint {
            name,
            line: e.line(),
            kind,
            body_i,
            body_j,
            frame_i,
            frame_j,
            limits: None,
            armature: 0.0,
            friction: 0.0,
        });
        Ok(())
    }

    /// The name of a loop joint: the equality's `name`, else `fallback`, made unique among
    /// the scene's joints (a body may have several equalities).
    fn loop_joint_name(&self, given: Option<&str>, fallback: &str) -> String {
        let base = given.unwrap_or(fallback).to_string();
        let taken = |n: &str| self.draft.joints.iter().any(|j| j.name == n);
        (1..)
            .map(|k| {
                if k == 1 {
                    base.clone()
                } else {
                    format!("{base}{k}")
                }
            })
            .find(|n| !taken(n))
            .unwrap_or(base)
    }

    /// World placement of a frame carried by `c`.
    fn world_of(&self, c: &Carrier) -> Pose {
        match c.body.as_ref().and_then(|b| self.world.get(b)) {
            Some(w) => w.then(&c.pose),
            None => c.pose,
        }
    }

    /// The body-form ends: body1 and body2 (absent: the world), and where the joint sits.
    fn body_ends(&self, e: At<'a, 'i>, weld: bool) -> Result<(String, [Carrier; 2], Pose), ImportError> {
        let body = |key: &str, name: &str| -> Result<Carrier, ImportError> {
            self.frames
                .get(name)
                .cloned()
                .ok_or_else(|| e.invalid(format!("{key} \"{name}\" does not exist")))
        };
        let name1 = e.required("body1")?;
        if !weld {
            // MuJoCo's schema: a connect names body1 and its anchor.
            e.required("anchor")?;
        }
        if e.node.attribute("body2") == Some(name1) {
            return Err(e.invalid(format!("body \"{name1}\" is both body1 and body2")));
        }
        let one = body("body1", name1)?;
        let two = match e.node.attribute("body2") {
            Some(name2) => body("body2", name2)?,
            None => body("world", "world")?,
        };
        let anchor = Pose::new(
            Vec3::from_array(e.numbers::<3>("anchor")?.unwrap_or([0.0; 3])),
            Quat::IDENTITY,
        );
        let (w1, w2) = (self.world_of(&one), self.world_of(&two));
        let place = if weld {
            self.check_relpose(e, &w1, &w2)?;
            // MuJoCo's weld anchor is in body2's frame.
            w2.then(&anchor)
        } else {
            // A connect's anchor is in body1's frame; a ball joint's axes do not matter.
            Pose::new(w1.then(&anchor).p, Quat::IDENTITY)
        };
        Ok((name1.to_string(), [one, two], place))
    }

    /// A weld's `relpose` (body2's position and quaternion in body1's frame), when given (a
    /// nonzero quaternion), must be the assembled relative pose.
    fn check_relpose(&self, e: At<'a, 'i>, w1: &Pose, w2: &Pose) -> Result<(), ImportError> {
        let Some(r) = e.numbers::<7>("relpose")? else {
            return Ok(());
        };
        let Some(q) = Quat::new(r[3], r[4], r[5], r[6]).normalized() else {
            return Ok(());
        };
        let assembled = w1.inverse().then(w2);
        let apart = (assembled.p - Vec3::new(r[0], r[1], r[2])).norm();
        let turned = angle_between(assembled.q, q);
        if apart > ASSEMBLED || turned > ASSEMBLED {
            let [w, x, y, z] = assembled.quaternion();
            let p = assembled.p;
            return Err(e.refused(format!(
                "relpose differs from body2's pose in body1 at the assembled configuration ({} {} {} {w} {x} {y} {z}) by {apart:e} m and {turned:e} rad: MuJoCo pulls the bodies there, and a scene joint must start assembled",
                p.x, p.y, p.z
            )));
        }
        Ok(())
    }

    /// The site-form ends: the sites' carriers, and the joint at site1, where site2 must be
    /// (and, for a weld, turned as site2).
    fn site_ends(&self, e: At<'a, 'i>, weld: bool) -> Result<(String, [Carrier; 2], Pose), ImportError> {
        let site = |name: &str| -> Result<Carrier, ImportError> {
            let (body, pose) = self
                .sites
                .get(name)
                .cloned()
                .ok_or_else(|| e.invalid(format!("site \"{name}\" does not exist")))?;
            Ok(Carrier { body, pose })
        };
        let (site1, site2) = (e.required("site1")?, e.required("site2")?);
        if site1 == site2 {
            return Err(e.invalid(format!("site \"{site1}\" is both site1 and site2")));
        }
        let (one, two) = (site(site1)?, site(site2)?);
        let (w1, w2) = (self.world_of(&one), self.world_of(&two));
        let apart = (w1.p - w2.p).norm();
        let turned = if weld { angle_between(w1.q, w2.q) } else { 0.0 };
        if apart > ASSEMBLED || turned > ASSEMBLED {
            return Err(e.refused(format!(
                "sites \"{site1}\" and \"{site2}\" are {apart:e} m apart{} at the assembled configuration: MuJoCo pulls them together, and a scene joint must start assembled",
                if weld { format!(" and turned {turned:e} rad") } else { String::new() }
            )));
        }
        let place = if weld { w1 } else { Pose::new(w1.p, Quat::IDENTITY) };
        Ok((site1.to_string(), [one, two], place))
    }
}
