//! MuJoCo's rule for a body's inertia, which the MJCF importer keeps (URDF follows Pinocchio
//! and keeps any positive semi-definite tensor): the principal moments must satisfy
//! A + B ≥ C, compared exactly as MuJoCo's compiler does ("inertia must satisfy A + B >= C;
//! use 'balanceinertia' to fix"). With `<compiler balanceinertia="true">` a body that violates
//! it gets the mean of its principal moments on all three axes, as MuJoCo does (an isotropic
//! tensor, so its principal axes no longer matter): checked against MuJoCo 4.0.1's
//! `body_inertia` after compiling, diaginertia "1 1 3" → 5/3 each.

use crate::scene::principal_moments;
use ferrodyn_kernel::math::{Mat3, Vec3};

/// What MuJoCo makes of a body's inertia about its CG.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// It satisfies A + B ≥ C: kept.
    Kept,
    /// Balanced (`balanceinertia`): the mean of the principal moments on every axis.
    Balanced(Mat3<f64>),
    /// Refused: the principal moments, ascending.
    Violates([f64; 3]),
}

/// MuJoCo's verdict on `inertia` with `balanceinertia` = `balance`.
pub fn mujoco_inertia(inertia: &Mat3<f64>, balance: bool) -> Verdict {
    let moments = principal_moments(inertia);
    let [a, b, c] = moments;
    if a + b >= c {
        Verdict::Kept
    } else if balance {
        let mean = (a + b + c) / 3.0;
        Verdict::Balanced(Mat3::diagonal(Vec3::new(mean, mean, mean)))
    } else {
        Verdict::Violates(moments)
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::{import, ImportErrorKind, ImportOptions};
    use crate::compile::compile;

    fn model(balance: &str, inertial: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("ferrodyn-balance-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{}.xml", inertial.len() + balance.len()));
        let text = format!(
            r#"<mujoco><compiler balanceinertia="{balance}"/><worldbody>
  <body name="b"><joint name="j" axis="0 1 0"/>
    <inertial pos="0.1 0 0" mass="1" {inertial}/></body></worldbody></mujoco>"#
        );
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn balanceinertia_gives_mujocos_mean_moments_and_without_it_the_body_is_refused() {
        // MuJoCo 4.0.1 (`mujoco.MjModel.from_xml_string`, `body_inertia`): diaginertia "1 1 3"
        // and fullinertia "1 1 3 0.1 0 0" (principal moments 0.9, 1.1, 3) both compile to
        // 1.66666667 on each axis with balanceinertia, and fail without it.
        for inertial in [r#"diaginertia="1 1 3""#, r#"fullinertia="1 1 3 0.1 0 0""#] {
            let e = import(&model("false", inertial), &ImportOptions::default())
                .err()
                .unwrap();
            assert_eq!(e.kind, ImportErrorKind::Invalid);
            assert_eq!(e.line, Some(2), "{e}");
            assert!(e.to_string().contains("A + B ≥ C"), "{e}");
            assert!(e.to_string().contains("balanceinertia"), "{e}");
            let imported = import(&model("true", inertial), &ImportOptions::default()).unwrap();
            let i = imported.scene.bodies[0].value.body.inertia;
            for (r, row) in i.m.iter().enumerate() {
                for (c, &x) in row.iter().enumerate() {
                    let want = if r == c { 5.0 / 3.0 } else { 0.0 };
                    assert!((x - want).abs() < 1e-14, "{i:?}");
                }
            }
            let notes = imported.report.lines().join("\n");
            assert!(notes.contains("balanceinertia"), "{notes}");
            compile(&imported.scene).unwrap();
        }
        // A flat plate on the bound (1 + 2 = 3) is kept as written, balanced or not.
        let plate = import(
            &model("true", r#"diaginertia="1 2 3""#),
            &ImportOptions::default(),
        )
        .unwrap();
        let i = plate.scene.bodies[0].value.body.inertia;
        assert_eq!([i.m[0][0], i.m[1][1], i.m[2][2]], [1.0, 2.0, 3.0]);
    }
}
