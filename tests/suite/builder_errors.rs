//! Every builder error names the item and the reason.

use ferrodyn::kernel::math::{Mat3, Vec3};
use ferrodyn::kernel::rigid::{Body, BodyRef, Builder, Force, Frame, Joint, JointKind, Model};
use ferrodyn::kernel::*;

type Small = Builder<f64, Fixed<2, 2, 2, 8, 64>>;

fn builder() -> Small {
    Model::builder(Vec3::new(0.0, 0.0, -9.81))
}

fn unit_body() -> Body<f64> {
    Body::new(1.0, Mat3::diagonal(Vec3::new(0.1, 0.1, 0.1)))
}

fn hinge(i: BodyRef, j: BodyRef) -> Joint<f64> {
    Joint::new(
        JointKind::Revolute,
        i,
        Frame::with_z_axis(Vec3::ZERO, Vec3::Y),
        j,
        Frame::with_z_axis(Vec3::ZERO, Vec3::Y),
    )
}

#[test]
fn zero_and_negative_mass() {
    let mut b = builder();
    b.add_body(unit_body()).unwrap();
    let err = b.add_body(Body::new(0.0, Mat3::IDENTITY)).unwrap_err();
    assert_eq!(err, BuildError::InvalidMass { body: 1, mass: 0.0 });
    assert!(matches!(
        b.add_body(Body::new(-2.0, Mat3::IDENTITY)),
        Err(BuildError::InvalidMass { body: 1, .. })
    ));
    assert!(matches!(
        b.add_body(Body::new(f64::NAN, Mat3::IDENTITY)),
        Err(BuildError::InvalidMass { body: 1, .. })
    ));
}

#[test]
fn inertia_not_positive_definite_or_impossible() {
    let mut b = builder();
    let singular = Body::new(1.0, Mat3::diagonal(Vec3::new(0.0, 1.0, 1.0)));
    assert_eq!(
        b.add_body(singular),
        Err(BuildError::InertiaNotPositiveDefinite { body: 0 })
    );
    let asymmetric = Body::new(
        1.0,
        Mat3::from_rows([[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    );
    assert_eq!(
        b.add_body(asymmetric),
        Err(BuildError::InertiaNotPositiveDefinite { body: 0 })
    );
    let triangle = Body::new(1.0, Mat3::diagonal(Vec3::new(0.1, 0.1, 1.0)));
    assert_eq!(
        b.add_body(triangle),
        Err(BuildError::InertiaTriangleInequality { body: 0 })
    );
}

#[test]
fn zero_length_joint_axis() {
    let mut b = builder();
    let body = b.add_body(unit_body()).unwrap();
    let bad = Joint::new(
        JointKind::Revolute,
        BodyRef::Ground,
        Frame::with_z_axis(Vec3::ZERO, Vec3::ZERO),
        body,
        Frame::with_z_axis(Vec3::ZERO, Vec3::Y),
    );
    assert_eq!(
        b.add_joint(bad),
        Err(BuildError::ZeroLengthAxis { item: Item::Joint(0) })
    );
    let force = Force::SpringDamper {
        body_i: body,
        point_i: Vec3::ZERO,
        body_j: BodyRef::Body(7),
        point_j: Vec3::ZERO,
        stiffness: 1.0,
        damping: 0.0,
        rest_length: 0.0,
    };
    assert_eq!(
        b.add_force(force),
        Err(BuildError::UnknownBody {
            item: Item::Force(0),
            body: 7
        })
    );
}

#[test]
fn unknown_body_and_same_body() {
    let mut b = builder();
    let body = b.add_body(unit_body()).unwrap();
    assert_eq!(
        b.add_joint(hinge(BodyRef::Ground, BodyRef::Body(5))),
        Err(BuildError::UnknownBody {
            item: Item::Joint(0),
            body: 5
        })
    );
    assert_eq!(
        b.add_joint(hinge(body, body)),
        Err(BuildError::SameBody { item: Item::Joint(0) })
    );
    let dist = Joint::new(
        JointKind::Distance { length: 0.0 },
        BodyRef::Ground,
        Frame::at(Vec3::ZERO),
        body,
        Frame::at(Vec3::X),
    );
    assert!(matches!(
        b.add_joint(dist),
        Err(BuildError::InvalidParameter {
            item: Item::Joint(0),
            ..
        })
    ));
}

#[test]
fn capacities_exceeded() {
    let mut b = builder();
    let a = b.add_body(unit_body()).unwrap();
    let c = b.add_body(unit_body()).unwrap();
    assert_eq!(
        b.add_body(unit_body()),
        Err(BuildError::CapacityExceeded {
            capacity: Capacity::Bodies,
            needed: 3,
            available: 2
        })
    );
    b.add_joint(hinge(BodyRef::Ground, a)).unwrap();
    // 5 + 5 rows > 8.
    assert_eq!(
        b.add_joint(hinge(a, c)),
        Err(BuildError::CapacityExceeded {
            capacity: Capacity::ConstraintRows,
            needed: 10,
            available: 8
        })
    );
    // Skyline capacity is checked at build.
    let mut tight = Model::<f64, Fixed<2, 2, 0, 10, 20>>::builder(Vec3::ZERO);
    let a = tight.add_body(unit_body()).unwrap();
    let c = tight.add_body(unit_body()).unwrap();
    tight.add_joint(hinge(BodyRef::Ground, a)).unwrap();
    tight.add_joint(hinge(a, c)).unwrap();
    assert_eq!(
        tight.build().err(),
        Some(BuildError::CapacityExceeded {
            capacity: Capacity::SkylineEntries,
            needed: 55,
            available: 20
        })
    );
}

#[test]
fn rotational_spring_needs_a_revolute_joint() {
    let mut b = builder();
    let body = b.add_body(unit_body()).unwrap();
    b.add_joint(Joint::new(
        JointKind::Spherical,
        BodyRef::Ground,
        Frame::at(Vec3::ZERO),
        body,
        Frame::at(Vec3::ZERO),
    ))
    .unwrap();
    let spring = Force::RotationalSpringDamper {
        joint: 0,
        stiffness: 1.0,
        damping: 0.0,
        rest_angle: 0.0,
    };
    assert!(matches!(
        b.add_force(spring),
        Err(BuildError::InvalidParameter {
            item: Item::Force(0),
            ..
        })
    ));
}
