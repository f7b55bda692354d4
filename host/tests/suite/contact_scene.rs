//! Scene files with `[[shape]]` and `[[contact_material]]`: scenes/sphere_drop.toml runs with
//! contact and writes contacts.csv; bad contact input is a named error with its line.

use ferrodyn_host::commands::{run, Overrides, RunOptions};
use ferrodyn_host::record::CONTACT_COLUMNS;
use ferrodyn_host::scene::Scene;
use ferrodyn_host::spec::{Dissipation, Geometry};
use std::path::{Path, PathBuf};

fn scene_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/sphere_drop.toml")
}

#[test]
fn sphere_drop_scene_loads_its_shapes_and_material() {
    let scene = Scene::load(&scene_path()).unwrap();
    let spec = scene.contact.as_ref().expect("contact section");
    assert_eq!(spec.shapes.len(), 2);
    assert_eq!(spec.shapes[0].geometry, Geometry::Plane);
    assert_eq!(spec.shapes[0].body, None);
    assert_eq!(spec.shapes[1].geometry, Geometry::Sphere { radius: 0.05 });
    assert_eq!(spec.shapes[1].body, Some(0));
    assert_eq!(spec.shapes[1].elastic.youngs_modulus, 1e7);
    let (a, b, m) = spec.pairs[0];
    assert_eq!((a, b), (Some(0), None));
    assert_eq!((m.restitution, m.friction), (0.7, 0.4));
    assert_eq!(m.dissipation, Dissipation::FloresCalibrated);
}

#[test]
fn sphere_drop_run_writes_contacts_csv() {
    let dir = std::env::temp_dir().join(format!("ferrodyn-contact-scene-{}", std::process::id()));
    // Through the first bounce: free fall of 0.5 m takes √(2h/g) = 0.319 s; contact ≈ 6 ms.
    run(&RunOptions {
        scene: Some(scene_path()),
        out: dir.clone(),
        force: true,
        overrides: Overrides {
            end: Some(0.36),
            ..Overrides::default()
        },
        ..RunOptions::default()
    })
    .unwrap();
    let text = std::fs::read_to_string(dir.join("contacts.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next().unwrap(), CONTACT_COLUMNS.join(","));
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert!(rows.len() > 50, "{} contact rows", rows.len());
    let first = &rows[0];
    // Touch-down at √(2·0.5/g) = 0.3193 s (the ball starts 0.5 m above contact).
    assert!((first[0] - 0.3193).abs() < 1e-3, "first contact at {}", first[0]);
    // Impact speed √(2 g h) = 3.132 m/s captured at first touch.
    assert!((first[12] - 3.132).abs() < 0.01, "v0 = {}", first[12]);
    for r in &rows {
        assert_eq!((r[1], r[2]), (0.0, 1.0), "floor / ball");
        assert!(r[10] > 0.0 && r[13] >= 0.0);
        assert!((r[9] - 1.0).abs() < 1e-12, "normal +z");
    }
    let duration = rows.last().unwrap()[0] - first[0];
    // Elastic Hertz duration 6.3 ms (scene header); damping shortens it somewhat.
    assert!(duration > 4e-3 && duration < 7e-3, "contact lasted {duration} s");
    std::fs::remove_dir_all(&dir).ok();
}

fn error_of(extra: &str) -> String {
    let text = format!(
        "[simulation]\nend_time = 1.0\nstep = 1e-3\n\n[[body]]\nid = 1\nname = \"ball\"\nmass = 1.0\n\
         inertia = {{ Ixx = 1.0, Iyy = 1.0, Izz = 1.0 }}\n\n{extra}"
    );
    Scene::parse(Path::new("bad.toml"), &text)
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_contact_input_names_the_item_and_line() {
    let e = error_of("[[shape]]\nname = \"wheel\"\nbody = \"ball\"\ntype = \"sphere\"\nradius = -0.1\n");
    assert!(
        e.contains("bad.toml:15") && e.contains("wheel") && e.contains("radius"),
        "{e}"
    );
    let e = error_of("[[shape]]\nname = \"lid\"\nbody = \"ball\"\ntype = \"plane\"\n");
    assert!(e.contains("lid") && e.contains("ground"), "{e}");
    let e = error_of(
        "[[shape]]\nname = \"c\"\nbody = \"ball\"\ntype = \"box\"\nhalf_extents = [1.0, 0.0, 1.0]\n",
    );
    assert!(e.contains("\"c\"") && e.contains("half_extents"), "{e}");
    let e = error_of("[[shape]]\nname = \"c\"\nbody = \"ball\"\ntype = \"torus\"\n");
    assert!(e.contains("torus"), "{e}");
    let e = error_of(
        "[[shape]]\nname = \"c\"\nbody = \"ball\"\ntype = \"sphere\"\nradius = 1.0\nhalf_height = 1.0\n",
    );
    assert!(e.contains("half_height") && e.contains("not a key"), "{e}");
    let e = error_of("[[shape]]\nname = \"c\"\nbody = \"cart\"\ntype = \"sphere\"\nradius = 1.0\n");
    assert!(e.contains("cart") && e.contains("does not exist"), "{e}");
    let shape = "[[shape]]\nname = \"c\"\nbody = \"ball\"\ntype = \"sphere\"\nradius = 1.0\n\n";
    let e = error_of(&format!(
        "{shape}[[contact_material]]\nbodies = [\"ball\", \"ground\"]\nrestitution = 1.5\n"
    ));
    assert!(e.contains("ball/ground") && e.contains("restitution"), "{e}");
    let e = error_of(&format!(
        "{shape}[[contact_material]]\nbodies = [\"ball\", \"moon\"]\n"
    ));
    assert!(e.contains("moon"), "{e}");
    let e = error_of(&format!("{shape}[[contact_material]]\npreset = \"gummy\"\n"));
    assert!(e.contains("gummy") && e.contains("elastic, plastic"), "{e}");
    let e = error_of(&format!(
        "{shape}[[shape]]\nname = \"c\"\nbody = \"ground\"\ntype = \"plane\"\n"
    ));
    assert!(e.contains("duplicate shape name"), "{e}");
}

#[test]
fn mesh_shape_is_read_from_an_obj_file_next_to_the_scene() {
    let dir = std::env::temp_dir().join(format!("ferrodyn-contact-mesh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("ramp.obj"),
        "v -1 -1 0\nv 1 -1 0\nv 1 1 0.5\nv -1 1 0.5\nf 1 2 3 4\n",
    )
    .unwrap();
    let scene = "[simulation]\nend_time = 1.0\nstep = 1e-3\n\n[[body]]\nid = 1\nname = \"ball\"\nmass = 1.0\n\
                 inertia = { Ixx = 1.0, Iyy = 1.0, Izz = 1.0 }\n\n[[shape]]\nname = \"ramp\"\nbody = \"ground\"\n\
                 type = \"mesh\"\nmesh = \"ramp.obj\"\n";
    let spec = Scene::parse(&dir.join("scene.toml"), scene)
        .unwrap()
        .contact
        .unwrap();
    let Geometry::TriMesh { vertices, triangles } = &spec.shapes[0].geometry else {
        panic!("not a mesh: {:?}", spec.shapes[0].geometry);
    };
    assert_eq!((vertices.len(), triangles.len()), (4, 2));
    let missing = scene.replace("ramp.obj", "nothing.obj");
    let e = Scene::parse(&dir.join("scene.toml"), &missing)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("ramp") && e.contains("nothing.obj") && e.contains("cannot read"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
