//! Mass properties: closed forms for the primitive shapes, agreement with parry's own
//! computation, the parallel-axis theorem, rotation and combination, and one typed error per
//! validation rule.
//!
//! Closed forms (uniform density, centre at the origin): box with full edges a, b, c:
//! `I_xx = m (b^2 + c^2) / 12`; sphere: `2 m r^2 / 5`; cylinder along z, height H:
//! `I_zz = m r^2 / 2`, `I_xx = m (3 r^2 + H^2) / 12`.

use std::f64::consts::PI;

use stiction::math::{Mat3, Quat, Vec3};
use stiction::parry::shape::{Ball, Capsule, Cuboid, Cylinder, Shape};
use stiction::{MassProperties, MassPropertiesError};

fn assert_mat_close(a: Mat3, b: Mat3, tolerance: f64) {
    let scale = b.abs().to_cols_array().into_iter().fold(1e-300, f64::max);
    let error = (a - b)
        .abs()
        .to_cols_array()
        .into_iter()
        .fold(0.0, f64::max);
    assert!(
        error <= tolerance * scale,
        "{a:?}\n vs {b:?}\n error {error:e}"
    );
}

fn assert_close(a: f64, b: f64, tolerance: f64) {
    assert!((a - b).abs() <= tolerance * b.abs(), "{a} vs {b}");
}

fn diag(x: f64, y: f64, z: f64) -> Mat3 {
    Mat3::from_diagonal(Vec3::new(x, y, z))
}

#[test]
fn s5_box_has_the_scene_mass_and_inertia() {
    // 1 x 0.4 x 0.2 m at 1000 kg/m^3: m = 80, I = 80/12 diag(0.2, 1.04, 1.16).
    let mass = MassProperties::cuboid(Vec3::new(0.5, 0.2, 0.1), 1000.0).unwrap();
    assert_close(mass.mass(), 80.0, 1e-14);
    assert_eq!(mass.center(), Vec3::ZERO);
    assert_mat_close(
        mass.inertia(),
        diag(1.3333333333333333, 6.933333333333334, 7.733333333333333),
        1e-14,
    );
    let rounded = mass.principal_moments().map(|m| (m * 1e4).round() / 1e4);
    assert_eq!(rounded, [1.3333, 6.9333, 7.7333]);
}

#[test]
fn box_matches_the_closed_form_from_density_and_from_mass() {
    let (a, b, c) = (0.3, 1.7, 0.9);
    let from_density = MassProperties::cuboid(Vec3::new(a, b, c) / 2.0, 250.0).unwrap();
    let m = 250.0 * a * b * c;
    assert_close(from_density.mass(), m, 1e-14);
    let expected = diag(b * b + c * c, a * a + c * c, a * a + b * b) * (m / 12.0);
    assert_mat_close(from_density.inertia(), expected, 1e-14);
    let from_mass = MassProperties::cuboid_with_mass(Vec3::new(a, b, c) / 2.0, m).unwrap();
    assert_mat_close(from_mass.inertia(), expected, 1e-14);
}

#[test]
fn sphere_matches_the_closed_form() {
    let r = 0.35;
    let sphere = MassProperties::sphere(r, 7800.0).unwrap();
    let m = 7800.0 * 4.0 / 3.0 * PI * r * r * r;
    assert_close(sphere.mass(), m, 1e-14);
    assert_mat_close(sphere.inertia(), Mat3::IDENTITY * (0.4 * m * r * r), 1e-14);
    let by_mass = MassProperties::sphere_with_mass(r, 3.0).unwrap();
    assert_mat_close(
        by_mass.inertia(),
        Mat3::IDENTITY * (0.4 * 3.0 * r * r),
        1e-14,
    );
}

#[test]
fn cylinder_matches_the_closed_form() {
    let (half_height, r) = (0.6, 0.25);
    let cylinder = MassProperties::cylinder(half_height, r, 1000.0).unwrap();
    let big_h = 2.0 * half_height;
    let m = 1000.0 * PI * r * r * big_h;
    assert_close(cylinder.mass(), m, 1e-14);
    let perpendicular = m * (3.0 * r * r + big_h * big_h) / 12.0;
    assert_mat_close(
        cylinder.inertia(),
        diag(perpendicular, perpendicular, 0.5 * m * r * r),
        1e-14,
    );
    let by_mass = MassProperties::cylinder_with_mass(half_height, r, m).unwrap();
    assert_mat_close(by_mass.inertia(), cylinder.inertia(), 1e-14);
}

#[test]
fn capsule_matches_cylinder_plus_offset_hemispheres() {
    // Hand computation for a = half height 0.5, r = 0.2, density 1000:
    // cylinder m_c = 1000 pi 0.04 * 1 = 125.66, caps m_s = 1000 * 4/3 pi 0.008 = 33.51;
    // I_zz = m_c r^2/2 + 2 m_s r^2/5, I_xx = m_c (3 r^2 + 4 a^2)/12 + m_s (2r^2/5 + a^2 + 3ar/4).
    let (a, r) = (0.5, 0.2);
    let capsule = MassProperties::capsule(a, r, 1000.0).unwrap();
    let m_c = 1000.0 * PI * r * r * 2.0 * a;
    let m_s = 1000.0 * 4.0 / 3.0 * PI * r * r * r;
    assert_close(capsule.mass(), m_c + m_s, 1e-14);
    let axial = m_c * r * r / 2.0 + 0.4 * m_s * r * r;
    let perpendicular =
        m_c * (3.0 * r * r + 4.0 * a * a) / 12.0 + m_s * (0.4 * r * r + a * a + 0.75 * a * r);
    assert_mat_close(
        capsule.inertia(),
        diag(perpendicular, perpendicular, axial),
        1e-14,
    );
    let by_mass = MassProperties::capsule_with_mass(a, r, 10.0).unwrap();
    assert_mat_close(
        by_mass.inertia(),
        capsule.inertia() * (10.0 / capsule.mass()),
        1e-14,
    );

    // A capsule with a vanishing cylinder is a sphere.
    let short = MassProperties::capsule(1e-9, r, 1000.0).unwrap();
    let sphere = MassProperties::sphere(r, 1000.0).unwrap();
    assert_mat_close(short.inertia(), sphere.inertia(), 1e-7);
}

#[test]
fn shapes_agree_with_parry() {
    fn parry_inertia(shape: &dyn Shape, density: f64) -> (f64, Mat3) {
        let props = shape.mass_properties(density);
        (props.mass(), props.reconstruct_inertia_matrix())
    }
    let cases: [(MassProperties, (f64, Mat3)); 3] = [
        (
            MassProperties::cuboid(Vec3::new(0.5, 0.2, 0.1), 1000.0).unwrap(),
            parry_inertia(&Cuboid::new(Vec3::new(0.5, 0.2, 0.1)), 1000.0),
        ),
        (
            MassProperties::sphere(0.3, 500.0).unwrap(),
            parry_inertia(&Ball::new(0.3), 500.0),
        ),
        (
            MassProperties::capsule(0.7, 0.15, 900.0).unwrap(),
            parry_inertia(&Capsule::new_z(0.7, 0.15), 900.0),
        ),
    ];
    for (ours, (mass, inertia)) in cases {
        assert_close(ours.mass(), mass, 1e-12);
        assert_mat_close(ours.inertia(), inertia, 1e-12);
    }
    // parry's cylinder runs along y: turn ours (along z) by 90 degrees about x.
    let ours = MassProperties::cylinder(0.4, 0.1, 1200.0)
        .unwrap()
        .rotated(Quat::from_rotation_x(PI / 2.0))
        .unwrap();
    let (mass, inertia) = parry_inertia(&Cylinder::new(0.4, 0.1), 1200.0);
    assert_close(ours.mass(), mass, 1e-12);
    assert_mat_close(ours.inertia(), inertia, 1e-12);
}

#[test]
fn parallel_axis_theorem_about_an_edge_and_an_off_axis_point() {
    // A rod-like box about the axis through its end: I_yy = I_yy,c + m (L/2)^2 = m L^2 / 3 for a
    // thin rod; with thickness the cross-section term remains.
    let (hx, hy, hz) = (1.0, 0.05, 0.02);
    let body = MassProperties::cuboid_with_mass(Vec3::new(hx, hy, hz), 6.0).unwrap();
    let about_end = body.inertia_about(Vec3::new(-hx, 0.0, 0.0));
    let full = 2.0 * hx;
    assert_close(
        about_end.y_axis.y,
        6.0 * (full * full + 4.0 * hz * hz) / 12.0 + 6.0 * hx * hx,
        1e-14,
    );
    assert_close(
        about_end.y_axis.y,
        6.0 * (full * full / 3.0 + 4.0 * hz * hz / 12.0),
        1e-14,
    );
    assert_close(about_end.x_axis.x, body.inertia().x_axis.x, 1e-14);
    assert_eq!(about_end.x_axis.y, 0.0);

    // About p = (a, b, 0): I_xy = -m a b, I_zz gains m (a^2 + b^2).
    let (a, b) = (0.3, -0.7);
    let about = body.inertia_about(Vec3::new(a, b, 0.0));
    assert_close(about.x_axis.y, -6.0 * a * b, 1e-14);
    assert_close(about.y_axis.x, -6.0 * a * b, 1e-14);
    assert_close(
        about.z_axis.z,
        body.inertia().z_axis.z + 6.0 * (a * a + b * b),
        1e-14,
    );

    // Translating moves the centre, not the inertia about it; the inertia about a fixed
    // point changes accordingly.
    let moved = body.translated(Vec3::new(a, b, 0.0)).unwrap();
    assert_eq!(moved.center(), Vec3::new(a, b, 0.0));
    assert_eq!(moved.inertia(), body.inertia());
    assert_mat_close(moved.inertia_about(Vec3::ZERO), about, 1e-14);
}

#[test]
fn two_halves_of_a_box_add_up_to_the_whole_box() {
    let whole = MassProperties::cuboid(Vec3::new(0.5, 0.2, 0.1), 1000.0).unwrap();
    // Equal halves along x, then an unequal split at x = 0.2: pieces [-0.5, 0.2] and
    // [0.2, 0.5], as (centre, half length).
    let piece = |center: f64, half: f64| {
        MassProperties::cuboid(Vec3::new(half, 0.2, 0.1), 1000.0)
            .unwrap()
            .translated(Vec3::new(center, 0.0, 0.0))
            .unwrap()
    };
    let splits = [((-0.25, 0.25), (0.25, 0.25)), ((-0.15, 0.35), (0.35, 0.15))];
    for ((center_a, half_a), (center_b, half_b)) in splits {
        let combined = piece(center_a, half_a)
            .combined(&piece(center_b, half_b))
            .unwrap();
        assert_close(combined.mass(), whole.mass(), 1e-14);
        assert!(
            combined.center().length() < 1e-15,
            "{:?}",
            combined.center()
        );
        assert_mat_close(combined.inertia(), whole.inertia(), 1e-13);
    }

    // Halves along y, which carry the offset into the other two moments.
    let half = MassProperties::cuboid(Vec3::new(0.5, 0.1, 0.1), 1000.0).unwrap();
    let upper = half.translated(Vec3::new(0.0, 0.1, 0.0)).unwrap();
    let lower = half.translated(Vec3::new(0.0, -0.1, 0.0)).unwrap();
    assert_mat_close(
        upper.combined(&lower).unwrap().inertia(),
        whole.inertia(),
        1e-13,
    );
}

#[test]
fn rotating_and_rotating_back_restores_the_tensor() {
    let body = MassProperties::cuboid(Vec3::new(0.5, 0.2, 0.1), 1000.0)
        .unwrap()
        .translated(Vec3::new(0.1, -0.2, 0.3))
        .unwrap();
    let rotation = Quat::from_axis_angle(Vec3::new(1.0, 2.0, -0.5).normalize(), 0.9);
    let turned = body.rotated(rotation).unwrap();
    // A general rotation fills the off-diagonal, keeps the principal moments, turns the centre.
    assert!(turned.inertia().x_axis.y.abs() > 0.1);
    for (a, b) in turned
        .principal_moments()
        .iter()
        .zip(body.principal_moments())
    {
        assert_close(*a, b, 1e-12);
    }
    assert!((turned.center() - rotation * body.center()).length() < 1e-15);
    let back = turned.rotated(rotation.inverse()).unwrap();
    assert_mat_close(back.inertia(), body.inertia(), 1e-13);
    assert!((back.center() - body.center()).length() < 1e-15);

    // A quarter turn about z swaps I_xx and I_yy; a non-unit quaternion is normalised.
    let quarter = body.rotated(Quat::from_rotation_z(PI / 2.0) * 3.0).unwrap();
    assert_close(quarter.inertia().x_axis.x, body.inertia().y_axis.y, 1e-14);
    assert_close(quarter.inertia().y_axis.y, body.inertia().x_axis.x, 1e-14);
}

#[test]
fn each_broken_rule_has_its_own_error() {
    use MassPropertiesError as E;
    let ok = diag(1.0, 2.0, 2.5);
    for mass in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let error = MassProperties::new(mass, Vec3::ZERO, ok).unwrap_err();
        assert!(matches!(error, E::InvalidMass { .. }), "{error:?}");
    }
    let error = MassProperties::new(1.0, Vec3::new(0.0, f64::NAN, 0.0), ok).unwrap_err();
    assert!(matches!(error, E::NonFiniteCenter { .. }));
    let error = MassProperties::new(1.0, Vec3::ZERO, diag(1.0, f64::INFINITY, 1.0)).unwrap_err();
    assert_eq!(error, E::NonFiniteInertia);

    let mut skewed = ok;
    skewed.y_axis.z = 0.01; // I[2][1]
    let error = MassProperties::new(1.0, Vec3::ZERO, skewed).unwrap_err();
    assert_eq!(
        error,
        E::InertiaNotSymmetric {
            row: 2,
            col: 1,
            difference: 0.01
        }
    );

    for tensor in [
        diag(1.0, 1.0, 0.0),
        diag(1.0, 1.0, -1.0),
        // Positive diagonal, but eigenvalues -1, 1, 3.
        Mat3::from_cols(
            Vec3::new(1.0, 2.0, 0.0),
            Vec3::new(2.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        ),
    ] {
        let error = MassProperties::new(1.0, Vec3::ZERO, tensor).unwrap_err();
        assert!(
            matches!(error, E::InertiaNotPositiveDefinite { .. }),
            "{error:?}"
        );
    }

    // diag(10, 4, 2), used in the literature on ODE's gyroscopic term
    // (docs/dynamics.md#mass-properties): 2 + 4 < 10.
    let error = MassProperties::new(1.0, Vec3::ZERO, diag(10.0, 4.0, 2.0)).unwrap_err();
    match error {
        E::TriangleInequality { moments } => {
            for (m, e) in moments.iter().zip([2.0, 4.0, 10.0]) {
                assert_close(*m, e, 1e-12);
            }
        }
        other => panic!("{other:?}"),
    }
    assert!(error.to_string().contains("triangle inequality"));
    // The same violation hidden by a rotation is still found.
    let rotated = Mat3::from_quat(Quat::from_rotation_y(0.7))
        * diag(10.0, 4.0, 2.0)
        * Mat3::from_quat(Quat::from_rotation_y(0.7)).transpose();
    let error = MassProperties::new(1.0, Vec3::ZERO, rotated).unwrap_err();
    assert!(matches!(error, E::TriangleInequality { .. }), "{error:?}");
    // A flat plate sits exactly on the boundary (I_zz = I_xx + I_yy) and is accepted.
    assert!(MassProperties::new(1.0, Vec3::ZERO, diag(0.1, 0.3, 0.4)).is_ok());
}

#[test]
fn bad_shape_dimensions_density_and_transforms_are_rejected() {
    use MassPropertiesError as E;
    let dimension_name = |error: E| match error {
        E::InvalidDimension { name, .. } => name,
        other => panic!("{other:?}"),
    };
    for value in [0.0, -0.1, f64::NAN, f64::INFINITY] {
        assert_eq!(
            dimension_name(MassProperties::sphere(value, 1.0).unwrap_err()),
            "radius"
        );
        let error = MassProperties::cuboid(Vec3::new(1.0, value, 1.0), 1.0).unwrap_err();
        assert_eq!(dimension_name(error), "half_extents.y");
        let error = MassProperties::cylinder(value, 1.0, 1.0).unwrap_err();
        assert_eq!(dimension_name(error), "half_height");
        let error = MassProperties::capsule(1.0, value, 1.0).unwrap_err();
        assert_eq!(dimension_name(error), "radius");

        let error = MassProperties::cuboid(Vec3::ONE, value).unwrap_err();
        assert!(matches!(error, E::InvalidDensity { .. }), "{error:?}");
        let error = MassProperties::capsule_with_mass(1.0, 1.0, value).unwrap_err();
        assert!(matches!(error, E::InvalidMass { .. }), "{error:?}");
    }

    let body = MassProperties::sphere(1.0, 1.0).unwrap();
    assert_eq!(
        body.rotated(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
        Err(E::InvalidTransform)
    );
    assert_eq!(
        body.rotated(Quat::from_xyzw(f64::NAN, 0.0, 0.0, 1.0)),
        Err(E::InvalidTransform)
    );
    assert_eq!(
        body.translated(Vec3::new(0.0, f64::INFINITY, 0.0)),
        Err(E::InvalidTransform)
    );
}
