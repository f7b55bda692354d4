//! `ferrodyn import --position-servos KP,KD`: a position servo input (`[[input]]`, `kind =
//! "position"`, scenes/README.md) on every revolute and prismatic joint of the imported scene
//! that has a coordinate of its own (a coupling's follower moves with its leader and gets none),
//! appended to the written scene as a user would write them: the rig, `ferrodyn run` (at the
//! set-point 0: hold the initial pose), the firmware and the FMU then take one set-point port
//! per joint.

use crate::scene::Scene;
use anyhow::{bail, Result};
use ferrodyn_kernel::rigid::JointKind;
use std::fmt::Write;

/// The gains `KP,KD` of `--position-servos` (kp > 0, kd ≥ 0, both finite, as an input's).
pub fn parse_gains(text: &str) -> Result<(f64, f64)> {
    let gains: Vec<&str> = text.split(',').map(str::trim).collect();
    let [kp, kd] = gains.as_slice() else {
        bail!("--position-servos takes KP,KD (two numbers, e.g. 100,10), not \"{text}\"");
    };
    let number = |v: &str| v.parse::<f64>().ok().filter(|x| x.is_finite());
    match (number(kp), number(kd)) {
        (Some(kp), Some(kd)) if kp > 0.0 && kd >= 0.0 => Ok((kp, kd)),
        _ => bail!("--position-servos {text}: kp must be > 0 and kd ≥ 0, both finite numbers"),
    }
}

/// The `[[input]]` tables of a position servo with gains (`kp`, `kd`) on each revolute and
/// prismatic joint of `scene` that no coupling holds, named `JOINT.servo`, in joint order.
pub fn servo_inputs(scene: &Scene, (kp, kd): (f64, f64)) -> String {
    let followers: Vec<usize> = scene.couplings.iter().map(|c| c.value.joint).collect();
    let mut out = String::new();
    for (index, joint) in scene.joints.iter().enumerate() {
        let moves = matches!(joint.value.kind, JointKind::Revolute | JointKind::Prismatic);
        if !moves || followers.contains(&index) {
            continue;
        }
        let _ = write!(
            out,
            "\n[[input]]\nname = \"{name}.servo\"\njoint = \"{name}\"\nkind = \"position\"\nkp = {kp:?}\nkd = {kd:?}\n",
            name = joint.name
        );
    }
    out
}
