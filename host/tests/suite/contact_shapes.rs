//! Narrow-phase geometry of every shape kind at set poses (no stepping): penetration, normal
//! and point against the exact values of the configuration.

use ferrodyn_host::contact::{ContactRecord, ContactWorld};
use ferrodyn_host::spec::{ContactMaterial, Geometry, Shape};
use ferrodyn_host::storage::RigidModel as HostModel;
use ferrodyn_kernel::math::{Quat, Vec3};
use ferrodyn_kernel::rigid::Body;
use ferrodyn_kernel::Dynamics;

/// Bodies at `poses`, `shapes` on them, contacts at that state.
fn contacts(poses: &[(Vec3<f64>, Quat<f64>)], shapes: Vec<Shape>) -> Vec<ContactRecord> {
    let mut b = HostModel::builder(Vec3::new(0.0, 0.0, -9.81));
    for &(x, q) in poses {
        b.add_body(Body::sphere(1.0, 0.1).at(x, q)).unwrap();
    }
    let model = b.build().unwrap();
    let mut data = model.new_data();
    let mut world = ContactWorld::new(shapes, poses.len(), ContactMaterial::elastic()).unwrap();
    model.accept(&mut data, &mut world).unwrap();
    world.active().to_vec()
}

fn plane() -> Shape {
    Shape::new("floor", None, Geometry::Plane)
}

fn close(a: [f64; 3], b: [f64; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9)
}

#[test]
fn sphere_on_plane_and_on_sphere() {
    let c = contacts(
        &[(Vec3::new(0.0, 0.0, 0.099), Quat::IDENTITY)],
        vec![
            plane(),
            Shape::new("ball", Some(0), Geometry::Sphere { radius: 0.1 }),
        ],
    );
    assert_eq!(c.len(), 1);
    assert!((c[0].penetration - 1e-3).abs() < 1e-12);
    assert!(close(c[0].normal, [0.0, 0.0, 1.0]));
    // Two spheres of 0.1 m with centres 0.19 m apart along x: δ = 0.01, normal +x.
    let c = contacts(
        &[
            (Vec3::new(0.0, 0.0, 1.0), Quat::IDENTITY),
            (Vec3::new(0.19, 0.0, 1.0), Quat::IDENTITY),
        ],
        vec![
            Shape::new("a", Some(0), Geometry::Sphere { radius: 0.1 }),
            Shape::new("b", Some(1), Geometry::Sphere { radius: 0.1 }),
        ],
    );
    assert_eq!(c.len(), 1);
    assert!((c[0].penetration - 0.01).abs() < 1e-12);
    assert!(close(c[0].normal, [1.0, 0.0, 0.0]));
    assert!(close(c[0].point, [0.095, 0.0, 1.0]));
}

#[test]
fn box_on_plane_touches_at_its_corners() {
    // Tilted about y by 0.1 rad: two corners below the plane, at depth h(cos + sin) − z.
    let (h, tilt) = (0.1, 0.1_f64);
    let z = 0.105;
    let c = contacts(
        &[(
            Vec3::new(0.0, 0.0, z),
            Quat::from_axis_angle(Vec3::new(0.0, 1.0, 0.0), tilt),
        )],
        vec![
            plane(),
            Shape::new("crate", Some(0), Geometry::Box { half_extents: [h; 3] }),
        ],
    );
    assert_eq!(c.len(), 2);
    for r in &c {
        assert!((r.penetration - (h * (tilt.cos() + tilt.sin()) - z)).abs() < 1e-12);
        assert!(close(r.normal, [0.0, 0.0, 1.0]));
    }
    // Flat at 1 mm depth: four corners.
    let c = contacts(
        &[(Vec3::new(0.0, 0.0, h - 1e-3), Quat::IDENTITY)],
        vec![
            plane(),
            Shape::new("crate", Some(0), Geometry::Box { half_extents: [h; 3] }),
        ],
    );
    assert_eq!(c.len(), 4);
}

#[test]
fn cylinder_and_cone_axes_are_local_z() {
    // Standing cylinder (axis z), bottom face 2 mm below the plane.
    let c = contacts(
        &[(Vec3::new(0.0, 0.0, 0.198), Quat::IDENTITY)],
        vec![
            plane(),
            Shape::new(
                "can",
                Some(0),
                Geometry::Cylinder {
                    radius: 0.05,
                    half_height: 0.2,
                },
            ),
        ],
    );
    assert_eq!(c.len(), 1);
    assert!((c[0].penetration - 2e-3).abs() < 1e-9, "{}", c[0].penetration);
    // Lying cylinder (turned about x): the side is 1 mm below the plane.
    let lying = Quat::from_axis_angle(Vec3::new(1.0, 0.0, 0.0), core::f64::consts::FRAC_PI_2);
    let c = contacts(
        &[(Vec3::new(0.0, 0.0, 0.049), lying)],
        vec![
            plane(),
            Shape::new(
                "can",
                Some(0),
                Geometry::Cylinder {
                    radius: 0.05,
                    half_height: 0.2,
                },
            ),
        ],
    );
    assert!((c[0].penetration - 1e-3).abs() < 1e-9, "{}", c[0].penetration);
    // Cone apex down (turned over): apex at z_c − h, 1 mm below.
    let over = Quat::from_axis_angle(Vec3::new(1.0, 0.0, 0.0), core::f64::consts::PI);
    let c = contacts(
        &[(Vec3::new(0.0, 0.0, 0.099), over)],
        vec![
            plane(),
            Shape::new(
                "cone",
                Some(0),
                Geometry::Cone {
                    radius: 0.05,
                    half_height: 0.1,
                },
            ),
        ],
    );
    assert!((c[0].penetration - 1e-3).abs() < 1e-9, "{}", c[0].penetration);
    assert!(close(c[0].normal, [0.0, 0.0, 1.0]));
}

#[test]
fn sphere_on_a_triangle_mesh_and_box_on_box() {
    // Ground mesh: the square [−1, 1]² at z = 0 as two triangles (normal +z).
    let mesh = Geometry::TriMesh {
        vertices: vec![
            [-1.0, -1.0, 0.0],
            [1.0, -1.0, 0.0],
            [1.0, 1.0, 0.0],
            [-1.0, 1.0, 0.0],
        ],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
    };
    let c = contacts(
        &[(Vec3::new(0.3, 0.2, 0.098), Quat::IDENTITY)],
        vec![
            Shape::new("terrain", None, mesh),
            Shape::new("ball", Some(0), Geometry::Sphere { radius: 0.1 }),
        ],
    );
    assert_eq!(c.len(), 1);
    assert!((c[0].penetration - 2e-3).abs() < 1e-9, "{}", c[0].penetration);
    assert!(close(c[0].normal, [0.0, 0.0, 1.0]));
    // Box resting on a box (ground), 0.5 mm overlap.
    let c = contacts(
        &[(Vec3::new(0.0, 0.0, 0.1995), Quat::IDENTITY)],
        vec![
            Shape::new(
                "table",
                None,
                Geometry::Box {
                    half_extents: [1.0, 1.0, 0.1],
                },
            ),
            Shape::new(
                "crate",
                Some(0),
                Geometry::Box {
                    half_extents: [0.1; 3],
                },
            ),
        ],
    );
    assert_eq!(c.len(), 1);
    assert!((c[0].penetration - 5e-4).abs() < 1e-9, "{}", c[0].penetration);
    assert!(close(c[0].normal, [0.0, 0.0, 1.0]));
}

#[test]
fn separated_shapes_have_no_contact_and_bad_meshes_are_errors() {
    let c = contacts(
        &[(Vec3::new(0.0, 0.0, 0.2), Quat::IDENTITY)],
        vec![
            plane(),
            Shape::new("ball", Some(0), Geometry::Sphere { radius: 0.1 }),
        ],
    );
    assert!(c.is_empty());
    let bad = Geometry::TriMesh {
        vertices: vec![[0.0; 3]; 3],
        triangles: vec![[0, 1, 5]],
    };
    let err = ContactWorld::new(vec![Shape::new("rock", None, bad)], 0, ContactMaterial::elastic())
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("rock") && err.contains("triangle 0"), "{err}");
}
