//! Loops and planar joints from robot models: MJCF `<equality>` connect and weld become joints
//! closing loops, a URDF planar joint the chain prismatic–prismatic–revolute through massless
//! links. Held against the hand-written four-bar (scenes/four_bar.toml, the same linkage closed
//! by a connect), statics (a weld carries the weight it holds) and the closed-form motion of a
//! body on a planar joint.

use ferrodyn_host::check::joint_reactions;
use ferrodyn_host::compile::{choose, compile, tree_parts, Choice};
use ferrodyn_host::import::{import, ImportErrorKind, ImportOptions, Imported};
use ferrodyn_host::scene::Scene;
use ferrodyn_host::simulation::Simulation;
use ferrodyn_host::spec::Formulation;
use ferrodyn_kernel::math::{Mat3, Quat, Vec3};
use ferrodyn_kernel::rigid::{violation, BodyRef};
use ferrodyn_kernel::tree::accelerations;
use ferrodyn_kernel::Dynamics;
use std::path::PathBuf;

const G: f64 = 9.81;

/// `text` written as `name` in this test's scratch folder, imported.
fn import_text(name: &str, text: &str) -> Result<Imported, ferrodyn_host::import::ImportError> {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, text).unwrap();
    import(&path, &ImportOptions::default())
}

/// The 1-based line of `text` holding `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

/// Index of the body or joint called `name` in `names`.
fn index(names: &[String], name: &str) -> usize {
    names
        .iter()
        .position(|n| n == name)
        .unwrap_or_else(|| panic!("{name} in {names:?}"))
}

/// The world position of body `name`'s CG and its orientation in `sim`'s bodies.
fn cg_and_turn(sim: &Simulation, name: &str) -> (Vec3<f64>, Quat<f64>) {
    let (model, data) = sim.rigid().unwrap();
    let k = index(&sim.labels.names.bodies, name);
    let turn = data.orientation(k);
    (data.position(k) + turn.rotate(model.bodies()[k].cg), turn)
}

/// Largest entry of the difference of two rotations as matrices.
fn turn_difference(a: Quat<f64>, b: Quat<f64>) -> f64 {
    let (a, b) = (a.to_matrix(), b.to_matrix());
    (a.m.as_flattened().iter())
        .zip(b.m.as_flattened())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// scenes/four_bar.toml as MJCF: the crank, coupler and rocker as a chain of hinges from the
/// crank's ground pivot (each body's frame at its proximal pin, x along the rod, the same
/// masses and inertias about the rods' centres), the rocker's ground pivot a `<connect>` at
/// the rocker's far end, given by body and anchor or by two sites.
fn four_bar_mjcf(sites: bool) -> String {
    let (crank, coupler, rocker) = (1.0471975511965976, 0.5759611339397938, 1.5643932228659467);
    let (world_site, rocker_site, connect) = match sites {
        false => (
            "",
            "",
            r#"<connect name="rocker_pivot" body1="rocker" anchor="-0.25 0 0"/>"#,
        ),
        true => (
            r#"<site name="o4" pos="0.3 0 0"/>"#,
            r#"<site name="rocker_end" pos="-0.25 0 0"/>"#,
            r#"<connect name="rocker_pivot" site1="rocker_end" site2="o4"/>"#,
        ),
    };
    format!(
        r#"<mujoco model="four_bar">
  <compiler angle="radian"/>
  <option gravity="0 -9.81 0"/>
  <worldbody>
    {world_site}
    <body name="crank" euler="0 0 {crank}">
      <joint name="crank_pivot" type="hinge" axis="0 0 1"/>
      <inertial pos="0.05 0 0" mass="0.2" diaginertia="2.5e-6 1.6791666666666672e-4 1.6791666666666672e-4"/>
      <body name="coupler" pos="0.1 0 0" euler="0 0 {}">
        <joint name="crank_pin" type="hinge" axis="0 0 1"/>
        <inertial pos="0.15 0 0" mass="0.6" diaginertia="7.5e-6 4.50375e-3 4.50375e-3"/>
        <body name="rocker" pos="0.3 0 0" euler="0 0 {}">
          <joint name="rocker_pin" type="hinge" axis="0 0 1"/>
          <inertial pos="-0.125 0 0" mass="0.5" diaginertia="6.25e-6 2.607291666666667e-3 2.607291666666667e-3"/>
          {rocker_site}
        </body>
      </body>
    </body>
  </worldbody>
  <equality>
    {connect}
  </equality>
</mujoco>
"#,
        coupler - crank,
        rocker - coupler
    )
}

#[test]
fn a_four_bar_closed_by_a_connect_moves_as_the_hand_written_four_bar() {
    let written = Scene::load(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes/four_bar.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    for sites in [false, true] {
        let imported = import_text(&format!("four_bar_connect_{sites}.xml"), &four_bar_mjcf(sites))
            .unwrap_or_else(|e| panic!("{e}"));
        let scene = imported.scene;
        // The connect is a ball joint between the ground and the rocker at O4 = (0.3, 0, 0).
        let pivot = &scene.joints[index(
            &scene.joints.iter().map(|j| j.name.clone()).collect::<Vec<_>>(),
            "rocker_pivot",
        )];
        assert_eq!(pivot.value.kind.name(), "spherical");
        assert_eq!(pivot.value.body_i, BodyRef::Ground);
        assert!((pivot.value.frame_i.origin - Vec3::new(0.3, 0.0, 0.0)).norm() < 1e-15);
        assert!(matches!(choose(&scene).unwrap(), Choice::Tree(_)));
        let (mut ours, mut theirs) = (compile(&scene).unwrap(), compile(&written).unwrap());
        assert_eq!((ours.position_count(), theirs.position_count()), (3, 3));
        let (mut state, mut bodies, mut phi) = (0.0_f64, 0.0_f64, 0.0_f64);
        for _ in 0..1000 {
            ours.step().unwrap();
            theirs.step().unwrap();
            // The tree's coordinates (the three pins' angles and rates, 0 where assembled).
            for (a, b) in ours.state().iter().zip(theirs.state()) {
                state = state.max((a - b).abs());
            }
            for body in ["crank", "coupler", "rocker"] {
                let ((ca, ta), (cb, tb)) = (cg_and_turn(&ours, body), cg_and_turn(&theirs, body));
                bodies = bodies.max((ca - cb).norm()).max(turn_difference(ta, tb));
            }
            let (model, data) = ours.rigid().unwrap();
            phi = phi.max(violation(model, data).position);
        }
        println!("four-bar by connect (sites {sites}): 1 s RK4 1 ms: state {state:.2e}, bodies {bodies:.2e}, max |Φ| {phi:.2e}");
        assert!(state <= 1e-9, "state differs by {state:e}");
        assert!(bodies <= 1e-9, "bodies differ by {bodies:e}");
        assert!(phi <= 1e-10, "|Φ| {phi:e}");
        // The crank has turned: the comparison is of a moving linkage.
        assert!(ours.state()[0].abs() > 0.1, "crank angle {}", ours.state()[0]);
    }
}

/// A slider on a vertical slide carrying an arm on a hinge, the arm welded to the world at
/// its assembled pose (`relpose`: an attribute of the weld, or none).
fn welded_arm(relpose: &str) -> String {
    format!(
        r#"<mujoco model="welded">
  <worldbody>
    <body name="slider" pos="0 0 1">
      <joint name="lift" type="slide" axis="0 0 1"/>
      <inertial pos="0.1 0 0" mass="2" diaginertia="0.1 0.2 0.3"/>
      <body name="arm">
        <joint name="swing" type="hinge" axis="0 1 0"/>
        <inertial pos="0.5 0 0" mass="1.5" diaginertia="0.01 0.2 0.2"/>
      </body>
    </body>
  </worldbody>
  <equality>
    <weld name="hold" body1="arm" {relpose}/>
  </equality>
</mujoco>
"#
    )
}

/// Runs `scene` 1 s and returns how far any body moved and the forces of joints `joints` on
/// their bodies (the weld's on the arm, the slide's on the slider) at the end.
fn hold(scene: &Scene, joints: &[&str]) -> (f64, Vec<Vec3<f64>>) {
    let mut sim = compile(scene).unwrap();
    let start: Vec<Vec3<f64>> = {
        let (_, data) = sim.rigid().unwrap();
        (0..sim.labels.names.bodies.len())
            .map(|k| data.position(k))
            .collect()
    };
    sim.advance_to(1.0).unwrap();
    let ks: Vec<usize> = joints
        .iter()
        .map(|j| index(&sim.labels.names.joints, j))
        .collect();
    let (model, data) = sim.rigid_mut().unwrap();
    let moved = (start.iter().enumerate())
        .map(|(b, p)| (data.position(b) - *p).norm())
        .fold(0.0, f64::max);
    let reactions = joint_reactions(model, data).unwrap();
    (moved, ks.iter().map(|&k| reactions[k].force).collect())
}

/// Asserts that the weld ("hold") carries `weight` (N) upward, the slide ("lift") nothing along
/// itself, and that the ground's forces on the bodies sum to the weight: how the two share
/// horizontal forces is not unique, as both can carry them.
fn carries(name: &str, scene: &Scene, weight: f64) {
    let (moved, forces) = hold(scene, &["hold", "lift"]);
    let (weld, slide) = (forces[0], forces[1]);
    println!("{name}: moved {moved:.2e} m in 1 s, weld force {weld:?} N, slide {slide:?} N");
    assert!(moved <= 1e-12, "{name}: moved {moved:e} m");
    assert!((weld.z - weight).abs() <= 1e-9 * weight, "{name}: weld {weld:?}");
    assert!(slide.z.abs() <= 1e-9 * weight, "{name}: slide {slide:?}");
    let total = weld + slide;
    assert!(
        (total - Vec3::new(0.0, 0.0, weight)).norm() <= 1e-9 * weight,
        "{name}: {total:?}"
    );
}

#[test]
fn a_weld_closing_a_loop_holds_the_weight_it_carries() {
    // The slide carries no vertical force, so the weld carries both bodies: (2 + 1.5) g up.
    // A relpose equal to the assembled pose (the world at (0, 0, −1) in the arm) is accepted.
    for relpose in ["", r#"relpose="0 0 -1 1 0 0 0""#] {
        let imported = import_text("welded.xml", &welded_arm(relpose)).unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(choose(&imported.scene).unwrap(), Choice::Tree(_)));
        carries(&format!("welded arm {relpose}"), &imported.scene, 3.5 * G);
    }
    // A slider welded straight to the world carries its weight alone. The tree would weld it to
    // the ground and leave its slide joining the ground to itself, which compile refuses: it
    // runs in Cartesian coordinates (docs/import.md).
    let single = welded_arm("").replace(
        r#"      <body name="arm">
        <joint name="swing" type="hinge" axis="0 1 0"/>
        <inertial pos="0.5 0 0" mass="1.5" diaginertia="0.01 0.2 0.2"/>
      </body>
"#,
        "",
    );
    let single = single.replace(r#"body1="arm""#, r#"body1="slider""#);
    let mut scene = import_text("welded_slider.xml", &single).unwrap().scene;
    assert!(
        compile(&scene).is_err(),
        "the tree takes it now: update docs/import.md"
    );
    scene.simulation.formulation = Formulation::Cartesian;
    carries("welded slider (Cartesian)", &scene, 2.0 * G);
}

#[test]
fn equalities_that_are_not_assembled_or_name_nothing_are_refused_with_their_line() {
    let cases = [
        (
            welded_arm(r#"relpose="0 0 -0.9 1 0 0 0""#),
            ImportErrorKind::Refused,
            "relpose differs from body2's pose in body1 at the assembled configuration",
        ),
        (
            welded_arm("").replace(r#"body1="arm""#, r#"body1="hand""#),
            ImportErrorKind::Invalid,
            "body1 \"hand\" does not exist",
        ),
        (
            four_bar_mjcf(true).replace(r#"name="o4" pos="0.3 0 0""#, r#"name="o4" pos="0.31 0 0""#),
            ImportErrorKind::Refused,
            "sites \"rocker_end\" and \"o4\" are 1.0",
        ),
        (
            four_bar_mjcf(false).replace(r#" anchor="-0.25 0 0""#, ""),
            ImportErrorKind::Invalid,
            "attribute `anchor` is required",
        ),
    ];
    for (k, (text, kind, reason)) in cases.iter().enumerate() {
        let needle = if text.contains("<weld") {
            "<weld"
        } else {
            "<connect"
        };
        let e = import_text(&format!("refused{k}.xml"), text).err().unwrap();
        assert_eq!((e.kind, e.line), (*kind, Some(line_of(text, needle))), "{e}");
        assert!(e.to_string().contains(reason), "{e}");
    }
    // `active="false"` from the classes' <equality> default leaves the connect out, noted.
    let inactive = four_bar_mjcf(false).replace(
        "<compiler angle=\"radian\"/>",
        "<compiler angle=\"radian\"/>\n  <default><equality active=\"false\"/></default>",
    );
    let imported = import_text("inactive.xml", &inactive).unwrap();
    assert_eq!(imported.scene.joints.len(), 3);
    assert!(
        imported
            .report
            .to_string()
            .contains("equality (active=\"false\")"),
        "{}",
        imported.report
    );
}

/// A puck on a planar joint whose plane is tilted (axis (0, 1, 1) in a turned joint frame), its
/// CG off the joint origin and its inertia off its principal axes.
const PLANAR_PUCK: &str = r#"<robot name="puck">
  <link name="table"/>
  <link name="puck">
    <inertial>
      <origin xyz="0.05 -0.02 0.03" rpy="0.1 0.2 0.3"/>
      <mass value="2.0"/>
      <inertia ixx="0.02" iyy="0.03" izz="0.04" ixy="0.001" ixz="-0.002" iyz="0.003"/>
    </inertial>
  </link>
  <joint name="glide" type="planar">
    <parent link="table"/>
    <child link="puck"/>
    <origin xyz="0.1 0.2 0.3" rpy="0.2 -0.1 0.4"/>
    <axis xyz="0 1 1"/>
  </joint>
</robot>
"#;

#[test]
fn a_body_on_a_planar_joint_falls_with_gravity_in_its_plane_and_spins_freely() {
    let imported = import_text("puck.urdf", PLANAR_PUCK).unwrap_or_else(|e| panic!("{e}"));
    let scene = imported.scene;
    let joints: Vec<String> = scene.joints.iter().map(|j| j.name.clone()).collect();
    let bodies: Vec<String> = scene.bodies.iter().map(|b| b.name.clone()).collect();
    assert_eq!(joints, ["glide_x", "glide_y", "glide"]);
    assert_eq!(bodies, ["glide_x", "glide_y", "puck"]);
    let kinds: Vec<&str> = scene.joints.iter().map(|j| j.value.kind.name()).collect();
    assert_eq!(kinds, ["prismatic", "prismatic", "revolute"]);
    assert!(scene.bodies[..2].iter().all(|b| b.value.body.mass == 0.0));

    // The plane from the URDF: normal n = R(rpy) (0, 1, 1)/√2, the joint origin O0, the CG c in
    // the link; the slides' axes (world) from the scene, in the plane and orthogonal.
    let turn0 = Quat::from_roll_pitch_yaw(0.2, -0.1, 0.4);
    let n = turn0.rotate(Vec3::new(0.0, 1.0, 1.0).normalized().unwrap());
    let (origin0, c) = (Vec3::new(0.1, 0.2, 0.3), Vec3::new(0.05, -0.02, 0.03));
    let e1 = scene.joints[0].value.frame_i.axes.column(2);
    let on_x = scene.bodies[0].value.body.orientation;
    let e2 = on_x.rotate(scene.joints[1].value.frame_i.axes.column(2));
    for (what, x) in [("e1·n", e1.dot(n)), ("e2·n", e2.dot(n)), ("e1·e2", e1.dot(e2))] {
        assert!(x.abs() < 1e-15, "{what} = {x:e}");
    }
    assert!((e1.norm() - 1.0).abs() < 1e-15 && (e2.norm() - 1.0).abs() < 1e-15);

    // Joint coordinates in the tree's order: slide x, slide y, turn.
    let Ok(Choice::Tree(links)) = choose(&scene) else {
        panic!("not a tree")
    };
    let order: Vec<&str> = links
        .iter()
        .map(|l| scene.joints[l.joint.unwrap()].name.as_str())
        .collect();
    assert_eq!(order, ["glide_x", "glide_y", "glide"]);
    let (vx, vy, w) = (0.4, -0.3, 2.0);
    let mut sim = compile(&scene).unwrap();
    assert_eq!(sim.position_count(), 3);
    sim.set_state(&[0.0, 0.0, 0.0, vx, vy, w]).unwrap();

    // Closed form: the constraint forces are normal to the plane and their moments about the CG
    // normal to n, so the CG falls with g's part in the plane, g_p = g − (g·n) n, and the puck
    // turns about n at the constant rate w.
    let g = Vec3::new(0.0, 0.0, -G);
    let g_plane = g - n.scale(g.dot(n));
    let cg0 = origin0 + turn0.rotate(c);
    let rate0 = e1.scale(vx) + e2.scale(vy) + n.cross(turn0.rotate(c)).scale(w);
    let (mut position, mut turning) = (0.0_f64, 0.0_f64);
    for step in 1..=1000 {
        sim.step().unwrap();
        let t = step as f64 * 1e-3;
        let (cg, turn) = cg_and_turn(&sim, "puck");
        let expected = cg0 + rate0.scale(t) + g_plane.scale(0.5 * t * t);
        position = position.max((cg - expected).norm());
        turning = turning.max(turn_difference(turn, Quat::from_axis_angle(n, w * t).mul(&turn0)));
    }
    let (cg, _) = cg_and_turn(&sim, "puck");
    println!(
        "planar puck: 1 s RK4 1 ms: CG off the closed form by {position:.2e} m, turn by {turning:.2e}; fell {:.3} m in the plane (|g_p| = {:.4} m/s²)",
        (cg - cg0 - rate0).norm(),
        g_plane.norm()
    );
    assert!(g_plane.norm() > 5.0, "gravity mostly in the plane");
    assert!(position <= 1e-9, "CG off by {position:e} m");
    assert!(turning <= 1e-9, "turn off by {turning:e}");
}

#[test]
fn the_mass_matrix_of_a_planar_joint_is_pinocchios() {
    // With the axis along z Pinocchio's planar joint (JointModelPlanar: the joint frame's x–y
    // plane) is the same motion, its x and y rates resolved in the moving frame: q̇ = T v with
    // T = diag(R(θ), 1), so our M(θ) = T M_pin Tᵀ. Pinocchio 4.1.0's `crba` on this URDF gives
    // the same M_pin at every configuration (figures below: θ = 0, 0.7, −2.1 at x = 0.3,
    // y = −0.2); M_pin[2][2] = the rotated inertia's zz + m |c_xy|² checks the inertia's turn.
    let text = PLANAR_PUCK.replace(r#"<axis xyz="0 1 1"/>"#, r#"<axis xyz="0 0 1"/>"#);
    let mut scene = import_text("puck_z.urdf", &text).unwrap().scene;
    scene.simulation.gravity = Vec3::ZERO;
    let pinocchio = Mat3 {
        m: [
            [2.0, 0.0, 0.04],
            [0.0, 2.0, 0.1],
            [0.04, 0.1, 0.04622342927535389],
        ],
    };
    let Ok(Choice::Tree(links)) = choose(&scene) else {
        panic!("not a tree")
    };
    let parts = tree_parts(&scene, &links).unwrap();
    let mut worst = 0.0_f64;
    for theta in [0.0_f64, 0.7, -2.1] {
        // M⁻¹'s columns: the accelerations at rest under unit generalized forces.
        let mut columns = [Vec3::ZERO; 3];
        for (k, column) in columns.iter_mut().enumerate() {
            let mut data = parts.model.new_data();
            for (link, q) in [0.3, -0.2, theta].into_iter().enumerate() {
                data.set_joint_position(&parts.model, link, &[q]).unwrap();
                data.set_joint_input(&parts.model, link, &[f64::from(u8::from(link == k))])
                    .unwrap();
            }
            let mut a = [0.0; 3];
            accelerations(&parts.model, &mut data, &mut a).unwrap();
            *column = Vec3::from_array(a);
        }
        let ours = Mat3::from_columns(columns[0], columns[1], columns[2])
            .inverse()
            .unwrap();
        let (c, s) = (theta.cos(), theta.sin());
        let t = Mat3 {
            m: [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]],
        };
        let reference = t.mul_mat(&pinocchio).mul_mat(&t.transpose());
        for (x, y) in ours.m.as_flattened().iter().zip(reference.m.as_flattened()) {
            worst = worst.max((x - y).abs() / 2.0);
        }
    }
    println!("planar puck: M against Pinocchio 4.1.0's crba: {worst:.1e} relative");
    assert!(worst <= 1e-12, "M differs by {worst:e} of its largest entry");
}
