//! Volume, centre and inertia of a triangle mesh as MuJoCo's compiler forms them for a mesh
//! geom (its `<mesh inertia>` rule; documented in docs/import.md). Every face is a pyramid
//! with its apex at a reference point: the area-weighted centre of the faces for the volume
//! and the centre, then the centre itself for the second moments. `exact` and `convex` add
//! the pyramids' signed volumes (the divergence theorem: exact for a closed, consistently
//! oriented surface; `convex` over the convex hull's faces), `legacy` (MuJoCo's default) their
//! absolute values — which over-counts a mesh that is not convex as seen from the apex, as
//! MuJoCo does — and `shell` spreads the mass over the surface instead.

use ferrodyn_kernel::math::{Mat3, Vec3};

/// Below this a face is degenerate, and an area or volume too small (MuJoCo's `mjMINVAL`).
const MIN_VALUE: f64 = 1e-15;

/// How a mesh's volume and inertia are formed (`<mesh inertia>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshInertia {
    /// The convex hull's solid.
    Convex,
    /// The solid the closed mesh bounds.
    Exact,
    /// Absolute pyramid volumes (MuJoCo's default).
    Legacy,
    /// Mass on the surface.
    Shell,
}

impl MeshInertia {
    /// The value of the `inertia` attribute.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "convex" => Some(Self::Convex),
            "exact" => Some(Self::Exact),
            "legacy" => Some(Self::Legacy),
            "shell" => Some(Self::Shell),
            _ => None,
        }
    }
}

/// A mesh's mass properties for unit density, in the mesh's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshMass {
    /// Volume (m³), or area (m²) for a shell: the geom's mass is density × this.
    pub measure: f64,
    /// Centre of mass.
    pub com: Vec3<f64>,
    /// Inertia about `com` for unit density.
    pub inertia: Mat3<f64>,
}

/// Area, unit normal and centre of a triangle; area 0 for a degenerate one.
fn triangle(a: Vec3<f64>, b: Vec3<f64>, c: Vec3<f64>) -> (f64, Vec3<f64>, Vec3<f64>) {
    let center = (a + b + c).scale(1.0 / 3.0);
    let n = (b - a).cross(c - a);
    let len = n.norm();
    if len < MIN_VALUE {
        return (0.0, Vec3::ZERO, center);
    }
    (0.5 * len, n.scale(1.0 / len), center)
}

fn corners(v: &[Vec3<f64>], f: &[u32; 3]) -> [Vec3<f64>; 3] {
    f.map(|i| v[i as usize])
}

/// A closed surface: vertices and faces.
pub type Surface<'m> = (&'m [Vec3<f64>], &'m [[u32; 3]]);

/// The mass properties of the mesh `vertices`/`faces` (already scaled and placed); `hull`:
/// the convex hull's vertices and faces, needed for [`MeshInertia::Convex`] only.
pub fn mesh_mass(
    vertices: &[Vec3<f64>],
    faces: &[[u32; 3]],
    hull: Option<Surface>,
    mode: MeshInertia,
) -> Result<MeshMass, String> {
    if mode == MeshInertia::Exact {
        consistently_oriented(vertices, faces)?;
    }
    // The area-weighted centre of the faces: the apex for the volume and the centre.
    let (mut area, mut apex) = (0.0, Vec3::ZERO);
    for f in faces {
        let [a, b, c] = corners(vertices, f);
        let (s, _, center) = triangle(a, b, c);
        apex += center.scale(s);
        area += s;
    }
    if area < MIN_VALUE {
        return Err("its surface area is too small".into());
    }
    apex = apex.scale(1.0 / area);
    let (v, f) = match (mode, hull) {
        (MeshInertia::Convex, Some((v, f))) => (v, f),
        (MeshInertia::Convex, None) => return Err("its convex hull is missing".into()),
        _ => (vertices, faces),
    };
    // Volume (or area) and centre: each pyramid's centre is 3/4 of the way to its base.
    let (mut total, mut com) = (0.0, Vec3::ZERO);
    for face in f {
        let [a, b, c] = corners(v, face);
        let (s, n, center) = triangle(a, b, c);
        let w = match mode {
            MeshInertia::Shell => s,
            MeshInertia::Legacy => ((center - apex).dot(n) * s / 3.0).abs(),
            _ => (center - apex).dot(n) * s / 3.0,
        };
        total += w;
        com += (center.scale(0.75) + apex.scale(0.25)).scale(w);
    }
    if total < MIN_VALUE {
        return Err(if total < 0.0 {
            "its volume is negative (faces turned inwards)".into()
        } else if mode == MeshInertia::Shell {
            "its surface area is too small".into()
        } else {
            "its volume is too small (inertia=\"shell\" takes a surface)".into()
        });
    }
    com = com.scale(1.0 / total);
    // Second moments of the pyramids with their apex at the centre; the volume is counted
    // again from that apex (for `legacy` it differs), and the mass follows this count.
    let mut measure = 0.0;
    let mut second = Mat3::ZERO;
    for face in f {
        let [d, e, g] = corners(v, face).map(|p| p - com);
        let (s, n, center) = triangle(d, e, g);
        let w = match mode {
            MeshInertia::Shell => s,
            MeshInertia::Legacy => (center.dot(n) * s / 3.0).abs(),
            _ => center.dot(n) * s / 3.0,
        };
        measure += w;
        // ∫ x xᵀ over the pyramid (0, d, e, g) is w/20 (Σ p pᵀ + (d+e+g)(d+e+g)ᵀ); over the
        // triangle of area w, w/12 times the same.
        let sum = d + e + g;
        let own = Mat3::outer(d, d) + Mat3::outer(e, e) + Mat3::outer(g, g) + Mat3::outer(sum, sum);
        let divisor = if mode == MeshInertia::Shell { 12.0 } else { 20.0 };
        second = second + own.scale(w / divisor);
    }
    let trace = second.m[0][0] + second.m[1][1] + second.m[2][2];
    let inertia = Mat3::IDENTITY.scale(trace) - second;
    if !inertia.is_positive_definite() {
        return Err("its inertia is not positive definite".into());
    }
    Ok(MeshMass {
        measure,
        com,
        inertia,
    })
}

/// `exact` needs every edge of a non-degenerate face run once each way (MuJoCo's check: a
/// directed edge met twice is two faces turned opposite ways).
fn consistently_oriented(vertices: &[Vec3<f64>], faces: &[[u32; 3]]) -> Result<(), String> {
    let mut edges = Vec::with_capacity(3 * faces.len());
    for f in faces {
        let [a, b, c] = corners(vertices, f);
        if triangle(a, b, c).0 > MIN_VALUE.sqrt() {
            edges.extend([(f[0], f[1]), (f[1], f[2]), (f[2], f[0])]);
        }
    }
    edges.sort_unstable();
    match edges.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(format!(
            "inertia=\"exact\" needs consistently oriented faces: two faces run the edge from vertex {} to {} the same way",
            w[0].0 + 1,
            w[0].1 + 1
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The box [0, a] × [0, b] × [0, c], faces outward.
    fn cuboid(a: f64, b: f64, c: f64) -> (Vec<Vec3<f64>>, Vec<[u32; 3]>) {
        let v = (0..8)
            .map(|k| {
                Vec3::new(
                    if k & 1 == 0 { 0.0 } else { a },
                    if k & 2 == 0 { 0.0 } else { b },
                    if k & 4 == 0 { 0.0 } else { c },
                )
            })
            .collect();
        let f = vec![
            [0, 2, 1],
            [1, 2, 3], // z = 0
            [4, 5, 6],
            [5, 7, 6], // z = c
            [0, 1, 4],
            [1, 5, 4], // y = 0
            [2, 6, 3],
            [3, 6, 7], // y = b
            [0, 4, 2],
            [2, 4, 6], // x = 0
            [1, 3, 5],
            [3, 7, 5], // x = a
        ];
        (v, f)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-14 * b.abs().max(1e-300)
    }

    #[test]
    fn a_box_has_the_solid_box_formulas_in_every_solid_mode() {
        let (a, b, c) = (0.3, 0.5, 0.7);
        let (v, f) = cuboid(a, b, c);
        for mode in [MeshInertia::Exact, MeshInertia::Legacy, MeshInertia::Convex] {
            let m = mesh_mass(&v, &f, Some((&v, &f)), mode).unwrap();
            assert!(close(m.measure, a * b * c), "{mode:?}: {}", m.measure);
            assert!((m.com - Vec3::new(a / 2.0, b / 2.0, c / 2.0)).norm() < 1e-15);
            let mass = a * b * c;
            let expect = [b * b + c * c, a * a + c * c, a * a + b * b].map(|s| mass * s / 12.0);
            for (k, e) in expect.iter().enumerate() {
                assert!(close(m.inertia.m[k][k], *e), "{mode:?} {k}");
            }
            assert!(m.inertia.m[0][1].abs() < 1e-16 && m.inertia.m[1][2].abs() < 1e-16);
        }
    }

    #[test]
    fn a_box_shell_has_the_thin_walled_box_formula() {
        // Six plates: I_zz = Σ plates (own + parallel axis), area density 1.
        let (a, b, c) = (0.3, 0.5, 0.7);
        let (v, f) = cuboid(a, b, c);
        let m = mesh_mass(&v, &f, None, MeshInertia::Shell).unwrap();
        assert!(close(m.measure, 2.0 * (a * b + b * c + a * c)));
        let (ab, ac, bc) = (a * b, a * c, b * c);
        let izz = 2.0 * ab * (a * a + b * b) / 12.0
            + 2.0 * ac * (a * a / 12.0 + b * b / 4.0)
            + 2.0 * bc * (b * b / 12.0 + a * a / 4.0);
        assert!(close(m.inertia.m[2][2], izz), "{} vs {izz}", m.inertia.m[2][2]);
    }

    #[test]
    fn legacy_over_counts_two_separate_cubes_and_exact_does_not() {
        // Unit cubes at x ∈ [0, 1] and [3, 4]: the apex (the surface centre, x = 2) lies
        // between them, so the faces turned towards it count negative. Exact: volume 2. Legacy
        // (absolute values): per cube 1/3 (the facing side) + 2/3 (the far side) + 4 × 1/6 —
        // 5/3, so 10/3 in all, MuJoCo's documented over-count.
        let (v0, f0) = cuboid(1.0, 1.0, 1.0);
        let mut v = v0.clone();
        v.extend(v0.iter().map(|p| *p + Vec3::new(3.0, 0.0, 0.0)));
        let mut f = f0.clone();
        f.extend(f0.iter().map(|t| t.map(|i| i + 8)));
        let exact = mesh_mass(&v, &f, None, MeshInertia::Exact).unwrap();
        assert!(close(exact.measure, 2.0), "{}", exact.measure);
        assert!((exact.com - Vec3::new(2.0, 0.5, 0.5)).norm() < 1e-15);
        // I_yy about the centre: two unit cubes at ±1.5 on x: 2 (1/6 + 1.5²).
        assert!(close(exact.inertia.m[1][1], 2.0 * (1.0 / 6.0 + 2.25)));
        let legacy = mesh_mass(&v, &f, None, MeshInertia::Legacy).unwrap();
        assert!(close(legacy.measure, 10.0 / 3.0), "{}", legacy.measure);
        // MuJoCo 4.0.1 on this mesh (inline vertex/face, density 1): body_mass and the
        // principal moments (about x; about y and z) for each rule. Convex: the hull is the
        // 4 × 1 × 1 box spanning both cubes.
        let (hv, hf) = cuboid(4.0, 1.0, 1.0);
        let mujoco = [
            (
                MeshInertia::Legacy,
                3.333333333333333,
                0.46666666666666684,
                5.699999999999998,
            ),
            (
                MeshInertia::Exact,
                1.9999999999999996,
                0.33333333333333304,
                4.833333333333333,
            ),
            (MeshInertia::Convex, 4.0, 0.6666666666666661, 5.666666666666667),
            (MeshInertia::Shell, 12.0, 3.333333333333332, 30.333333333333343),
        ];
        for (mode, mass, ixx, iyy) in mujoco {
            let m = mesh_mass(&v, &f, Some((&hv, &hf)), mode).unwrap();
            let agree = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b;
            assert!(agree(m.measure, mass), "{mode:?}: {}", m.measure);
            assert!(agree(m.inertia.m[0][0], ixx), "{mode:?}: {}", m.inertia.m[0][0]);
            assert!(
                agree(m.inertia.m[1][1], iyy) && agree(m.inertia.m[2][2], iyy),
                "{mode:?}"
            );
            assert!((m.com - Vec3::new(2.0, 0.5, 0.5)).norm() < 1e-15, "{mode:?}");
        }
    }

    #[test]
    fn bad_meshes_are_refused_with_the_reason() {
        let (v, mut f) = cuboid(1.0, 1.0, 1.0);
        let flat = vec![[0, 1, 2], [1, 3, 2]];
        assert!(mesh_mass(&v, &flat, None, MeshInertia::Legacy)
            .unwrap_err()
            .contains("volume is too small"));
        f[0] = [0, 1, 2]; // turned against its neighbours
        assert!(mesh_mass(&v, &f, None, MeshInertia::Exact)
            .unwrap_err()
            .contains("consistently oriented"));
        let inward: Vec<[u32; 3]> = cuboid(1.0, 1.0, 1.0)
            .1
            .iter()
            .map(|t| [t[0], t[2], t[1]])
            .collect();
        assert!(mesh_mass(&v, &inward, None, MeshInertia::Exact)
            .unwrap_err()
            .contains("negative"));
    }
}
