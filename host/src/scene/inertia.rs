//! The inertia of a scene body about its CG: which tensors the scene takes, how it reads
//! rounding noise, and what it notes.
//!
//! A tree link may carry any symmetric positive semi-definite tensor, as Pinocchio (the URDF
//! reference engine) does: singular (a point mass, a thin rod) or with principal moments that
//! violate I1 + I2 ≥ I3 (no rigid body's, noted by name); the Cartesian model needs a rigid
//! body's inertia and refuses the others by name ([`super::joint_coordinates_only`]).
//!
//! Tolerances. The positive semi-definite test is the kernel's
//! ([`Body::validate_tree_inertia`]: principal minors of the tensor divided by its largest
//! moment, ≥ −1e-9), so it holds at any magnitude and accepts the rounding of the written
//! digits. That scale vanishes on a zero tensor: URDF exporters write a zero tensor with
//! round-off in its products (iCub's ankle: Ixz = 1.4e-20 kg·m², all else 0), which is
//! indefinite relative to itself. Such noise is measured against the model instead: a tensor
//! that fails the test and whose entries are all below [`NOISE`] × the largest moment of any body
//! of the scene changes no entry of the mass matrix by more than that fraction of the model's
//! largest inertia (far below the 6 significant digits exporters write), so it is read as
//! exactly zero (a point mass), and noted. A tensor above that is genuinely indefinite: refused,
//! the message giving its smallest principal moment and how far below zero it is.

use ferrodyn_kernel::math::Mat3;
use ferrodyn_kernel::rigid::Body;
use ferrodyn_kernel::BuildError;

/// Entries below this fraction of the model's largest moment are rounding noise.
pub const NOISE: f64 = 1e-12;

/// The scale rounding noise is measured against: the largest moment (diagonal entry) of any
/// body of the scene, kg·m² (0 without bodies).
pub fn model_scale(inertias: impl IntoIterator<Item = [f64; 3]>) -> f64 {
    inertias
        .into_iter()
        .flatten()
        .filter(|x| x.is_finite())
        .fold(0.0, |a, x| a.max(x.abs()))
}

/// The tensor a body named `name` keeps, and a note when it is not kept as written or is no
/// rigid body's; an error reason when it is no inertia at all (a negative moment, or
/// indefinite beyond rounding). `scale`: [`model_scale`].
pub fn read(name: &str, inertia: Mat3<f64>, scale: f64) -> Result<(Mat3<f64>, Option<String>), String> {
    let m = &inertia.m;
    let semidefinite = !matches!(
        Body::new(1.0, inertia).validate_tree_inertia(0),
        Err(BuildError::InertiaNotPositiveDefinite { .. })
    );
    let largest = m.iter().flatten().fold(0.0f64, |a, x| a.max(x.abs()));
    if !semidefinite && largest <= NOISE * scale {
        let note = format!(
            "inertia of body \"{name}\" (largest entry {largest:.3e} kg·m², not positive semi-definite) is rounding noise on a zero tensor: below {NOISE:e} × the model's largest moment ({scale:.3e} kg·m²), read as zero (a point mass)"
        );
        return Ok((Mat3::ZERO, Some(note)));
    }
    let names = ["Ixx", "Iyy", "Izz"];
    if let Some(k) = (0..3).find(|&k| m[k][k] < 0.0) {
        return Err(format!("{} = {} must be ≥ 0", names[k], m[k][k]));
    }
    if !semidefinite {
        let [low, _, high] = principal_moments(&inertia);
        return Err(format!(
            "the tensor about the CG is not positive semi-definite: its smallest principal moment is {low:.6e} kg·m², {:.3e} × the largest ({high:.6e} kg·m²), beyond rounding (1e-9 of the largest moment)",
            low / high
        ));
    }
    let note = (!Body::new(1.0, inertia).inertia_is_physical()).then(|| {
        let [a, b, c] = principal_moments(&inertia);
        format!(
            "inertia of body \"{name}\" violates the triangle inequality (principal moments {a:.6e} + {b:.6e} < {c:.6e} kg·m²): not a physical rigid body's; kept as written, as Pinocchio does (joint coordinates only)"
        )
    });
    Ok((inertia, note))
}

/// Principal moments of a symmetric tensor, ascending.
pub fn principal_moments(inertia: &Mat3<f64>) -> [f64; 3] {
    let a = faer::Mat::<f64>::from_fn(3, 3, |i, j| inertia.m[i][j]);
    match a.self_adjoint_eigenvalues(faer::Side::Lower) {
        Ok(v) if v.len() == 3 => [v[0], v[1], v[2]],
        // The decomposition of a finite 3 × 3 matrix does not fail; the diagonal stands in.
        _ => {
            let mut d = [inertia.m[0][0], inertia.m[1][1], inertia.m[2][2]];
            d.sort_by(f64::total_cmp);
            d
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrodyn_kernel::math::Vec3;

    /// A principal-axes inertia from its moments.
    fn diagonal(x: f64, y: f64, z: f64) -> Mat3<f64> {
        Mat3::diagonal(Vec3::new(x, y, z))
    }

    #[test]
    fn rounding_noise_on_a_zero_tensor_is_read_as_zero_and_a_real_indefinite_one_is_refused() {
        // iCub's ankle as written: diagonal 0, Ixz = 1.35525e-20 (eigenvalues ±1.36e-20), in a
        // model whose largest moment is 0.0747 kg·m²: noise, read as zero and noted.
        let icub = Mat3::symmetric(Vec3::ZERO, 0.0, 1.35525e-20, 0.0);
        let (kept, note) = read("l_ankle_2", icub, 0.07472).unwrap();
        assert_eq!(kept, Mat3::ZERO);
        assert!(note.unwrap().contains("read as zero"));
        // The same tensor alone (no model scale) or in a model of tiny inertias is not noise.
        assert!(read("a", icub, 0.0).is_err());
        assert!(read("a", icub, 1e-9).is_err());
        // A tiny tensor that is positive semi-definite stays as written, noise or not.
        let tiny = diagonal(1e-20, 1e-20, 1e-20);
        assert_eq!(read("a", tiny, 1.0), Ok((tiny, None)));
        // Genuinely indefinite: eigenvalues 1 ± 2 and 1 → −1, refused with that moment.
        let indefinite = Mat3::symmetric(Vec3::new(1.0, 1.0, 1.0), 2.0, 0.0, 0.0);
        let reason = read("a", indefinite, 1.0).unwrap_err();
        assert!(
            reason.contains("smallest principal moment is -1.000000e0"),
            "{reason}"
        );
        assert!(reason.contains("-3.333e-1 × the largest (3.000000e0"), "{reason}");
        // Rounding of a singular tensor's digits (a thin rod, −1e-12 relative) is accepted as
        // written, by the kernel's own relative tolerance.
        let rod = Mat3::symmetric(Vec3::new(1.0, 1.0, 1e-12), 0.0, 0.0, 1e-6);
        assert_eq!(read("rod", rod, 1.0), Ok((rod, None)));
    }

    #[test]
    fn a_tensor_violating_the_triangle_inequality_is_kept_with_a_note() {
        // Allegro-like moments 1, 1, 3 (1 + 1 < 3): kept as written, noted by name.
        let (kept, note) = read("link_3", diagonal(1.0, 1.0, 3.0), 3.0).unwrap();
        assert_eq!(kept, diagonal(1.0, 1.0, 3.0));
        let note = note.unwrap();
        assert!(
            note.starts_with("inertia of body \"link_3\" violates the triangle inequality"),
            "{note}"
        );
        assert!(note.contains("as Pinocchio does"), "{note}");
        // A flat plate sits on the bound (3 = 1 + 2) and is a rigid body's: no note.
        assert_eq!(
            read("plate", diagonal(1.0, 2.0, 3.0), 3.0),
            Ok((diagonal(1.0, 2.0, 3.0), None))
        );
        // Negative moments are refused by name of the entry.
        assert_eq!(
            read("a", diagonal(1.0, -1.0, 1.0), 1.0).unwrap_err(),
            "Iyy = -1 must be ≥ 0"
        );
    }

    #[test]
    fn principal_moments_are_the_eigenvalues() {
        // [[2, 1, 0], [1, 2, 0], [0, 0, 5]]: 1, 3, 5.
        let m = Mat3::symmetric(Vec3::new(2.0, 2.0, 5.0), 1.0, 0.0, 0.0);
        let p = principal_moments(&m);
        for (got, want) in p.iter().zip([1.0, 3.0, 5.0]) {
            assert!((got - want).abs() < 1e-14, "{p:?}");
        }
    }
}
