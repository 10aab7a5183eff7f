//! The data format from worlds (shapes of every kind, joints, frames, islands, sleep) and
//! the self-contained HTML file.

use std::f64::consts::FRAC_PI_2;

use stiction::math::{Quat, Vec3};
use stiction::parry::shape::SharedShape;
use stiction::{ColliderBuilder, MassProperties, Pose, RigidBodyBuilder, World};
use stiction_viewer::demo::falling_stack;
use stiction_viewer::{
    html_page, write_html, Frame, Geometry, ViewerPose, ViewerScene, ViewerShape, BUNDLE,
};

fn dynamic(world: &mut World, at: Vec3) -> stiction::BodyHandle {
    world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.5, 1.0).unwrap())
            .position(at)
            .build()
            .unwrap(),
    )
}

fn rotate(pose: &ViewerPose, v: [f64; 3]) -> Vec3 {
    let [w, x, y, z] = pose.orientation;
    Quat::from_xyzw(x, y, z, w) * Vec3::from_array(v) + Vec3::from_array(pose.position)
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).length() < 1e-9
}

/// A world point on the surface of `shape` (body at the identity pose) lies on the
/// collider: the world's own point projection says so.
fn on_surface(world: &World, p: Vec3) -> bool {
    let hit = world
        .project_point(p, false, &stiction::QueryFilter::new())
        .unwrap();
    (hit.point - p).length() < 1e-6
}

#[test]
fn every_shape_kind_with_its_pose() {
    let mut world = World::new();
    world.set_gravity(Vec3::ZERO).unwrap();
    world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    let b = dynamic(&mut world, Vec3::new(0.0, 0.0, 5.0));
    let offset = Vec3::new(0.1, 0.2, 0.3);
    world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::new(0.1, 0.2, 0.3))
                .unwrap()
                .position(offset),
            Some(b),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(0.25).unwrap(), Some(b))
        .unwrap();
    world
        .add_collider(ColliderBuilder::capsule(0.4, 0.1).unwrap(), Some(b))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cylinder(0.5, 0.2).unwrap(), Some(b))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cone(0.3, 0.2).unwrap(), Some(b))
        .unwrap();
    // parry's own y-axis cylinder, without the engine's z-up turn.
    world
        .add_collider(
            ColliderBuilder::new(SharedShape::cylinder(0.6, 0.1)),
            Some(b),
        )
        .unwrap();
    let hull = [
        Vec3::ZERO,
        Vec3::X,
        Vec3::Y,
        Vec3::Z,
        Vec3::new(1.0, 1.0, 1.0),
    ];
    world
        .add_collider(ColliderBuilder::convex_hull(&hull).unwrap(), Some(b))
        .unwrap();
    world
        .add_collider(
            ColliderBuilder::compound(vec![
                (
                    Pose {
                        position: Vec3::new(1.0, 0.0, 0.0),
                        orientation: Quat::IDENTITY,
                    },
                    SharedShape::ball(0.1),
                ),
                (
                    Pose {
                        position: Vec3::new(-1.0, 0.0, 0.0),
                        orientation: Quat::IDENTITY,
                    },
                    SharedShape::cuboid(0.1, 0.1, 0.1),
                ),
            ])
            .unwrap(),
            Some(b),
        )
        .unwrap();
    // Static world geometry: a mesh and a heightfield with a slope along x.
    world
        .add_collider(
            ColliderBuilder::trimesh(
                vec![
                    Vec3::new(10.0, 0.0, 0.0),
                    Vec3::new(11.0, 0.0, 0.0),
                    Vec3::new(10.0, 1.0, 0.0),
                ],
                vec![[0, 1, 2]],
            )
            .unwrap(),
            None,
        )
        .unwrap();
    let heights = [0.0, 0.0, 1.0, 1.0];
    world
        .add_collider(
            ColliderBuilder::heightfield(2, 2, &heights, Vec3::new(2.0, 2.0, 1.0))
                .unwrap()
                .position(Vec3::new(20.0, 0.0, 0.0)),
            None,
        )
        .unwrap();
    // Sensors are not drawn.
    world
        .add_collider(ColliderBuilder::ball(3.0).unwrap().sensor(true), Some(b))
        .unwrap();

    let scene = ViewerScene::from_world(&world);
    scene.validate().unwrap();
    assert_eq!(scene.bodies.len(), 1);
    let shapes = &scene.bodies[0].shapes;
    let kinds: Vec<&str> = shapes
        .iter()
        .map(|s| match s.geometry {
            Geometry::Box { .. } => "box",
            Geometry::Sphere { .. } => "sphere",
            Geometry::Capsule { .. } => "capsule",
            Geometry::Cylinder { .. } => "cylinder",
            Geometry::Cone { .. } => "cone",
            Geometry::Plane { .. } => "plane",
            Geometry::Mesh { .. } => "mesh",
            Geometry::Convex { .. } => "convex",
            Geometry::Heightfield { .. } => "heightfield",
        })
        .collect();
    assert_eq!(
        kinds,
        ["box", "sphere", "capsule", "cylinder", "cone", "cylinder", "convex", "sphere", "box"]
    );
    assert_eq!(
        shapes[0].geometry,
        Geometry::Box {
            half_extents: [0.1, 0.2, 0.3]
        }
    );
    assert_eq!(shapes[0].pose.position, [0.1, 0.2, 0.3]);
    // The capsule runs along z.
    assert_eq!(
        shapes[2].geometry,
        Geometry::Capsule {
            radius: 0.1,
            half_height: 0.4
        }
    );
    assert!(close(rotate(&shapes[2].pose, [0.0, 0.0, 1.0]), Vec3::Z));
    // The engine's cylinder and cone: along z, identity pose (the z-up turn was found).
    for i in [3, 4] {
        let axis = rotate(&shapes[i].pose, [0.0, 0.0, 1.0]);
        assert!(close(axis, Vec3::Z), "shape {i}: axis {axis:?}");
    }
    // parry's own cylinder runs along the body's y axis.
    let axis = rotate(&shapes[5].pose, [0.0, 0.0, 1.0]);
    assert!(close(axis, Vec3::Y), "raw cylinder axis {axis:?}");
    // Compound parts keep their offsets.
    assert_eq!(shapes[7].pose.position, [1.0, 0.0, 0.0]);
    assert_eq!(shapes[8].pose.position, [-1.0, 0.0, 0.0]);

    // World shapes: the plane, the mesh and the heightfield, in world coordinates.
    let world_kinds: Vec<_> = scene
        .world_shapes
        .iter()
        .map(|s| std::mem::discriminant(&s.geometry))
        .collect();
    assert_eq!(world_kinds.len(), 3);
    assert_eq!(
        scene.world_shapes[0].geometry,
        Geometry::Plane {
            normal: [0.0, 0.0, 1.0]
        }
    );
    let Geometry::Heightfield { vertices, .. } = &scene.world_shapes[2].geometry else {
        panic!("not a heightfield: {:?}", scene.world_shapes[2]);
    };
    // Every heightfield vertex, placed by its pose, is on the collider, and heights are
    // along world z: x = +1 (row 1) is 1 m high.
    let pose = &scene.world_shapes[2].pose;
    let mut top = f64::NEG_INFINITY;
    for v in vertices {
        let p = rotate(pose, *v);
        assert!(on_surface(&world, p), "{p:?}");
        if (p.x - 21.0).abs() < 1e-9 {
            top = top.max(p.z);
        }
    }
    assert!((top - 1.0).abs() < 1e-9, "height at x = 21: {top}");
}

#[test]
fn surfaces_of_turned_bodies_match_the_world() {
    // Points on each drawn surface, placed by body and shape poses, are on the colliders.
    let mut world = World::new();
    let turned = Quat::from_rotation_y(0.7) * Quat::from_rotation_x(0.3);
    let b = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.5, 1.0).unwrap())
            .position(Vec3::new(1.0, 2.0, 3.0))
            .orientation(turned)
            .build()
            .unwrap(),
    );
    world
        .add_collider(
            ColliderBuilder::cylinder(0.5, 0.2)
                .unwrap()
                .position(Vec3::new(0.0, 0.3, 0.0))
                .rotation(Quat::from_rotation_z(FRAC_PI_2 / 3.0)),
            Some(b),
        )
        .unwrap();
    let scene = ViewerScene::from_world(&world);
    let frame = Frame::from_world(&world, 0);
    let shape: &ViewerShape = &scene.bodies[0].shapes[0];
    let Geometry::Cylinder {
        radius,
        half_height,
    } = shape.geometry
    else {
        panic!()
    };
    let body = ViewerPose {
        position: frame.positions[0],
        orientation: frame.orientations[0],
    };
    for k in 0..12 {
        let a = k as f64 * std::f64::consts::TAU / 12.0;
        for z in [-half_height, 0.0, half_height] {
            let local = [radius * a.cos(), radius * a.sin(), z];
            let in_body = rotate(&shape.pose, local);
            let p = rotate(&body, in_body.to_array());
            assert!(on_surface(&world, p), "{p:?}");
        }
    }
}

#[test]
fn frames_islands_sleep_and_contacts() {
    let mut settings = stiction::WorldSettings::default();
    settings.sleep.enabled = true;
    let mut world = World::with_settings(settings).unwrap();
    world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    let half = Vec3::splat(0.25);
    let add_box = |world: &mut World, at: Vec3| {
        let h = world.add_body(
            RigidBodyBuilder::dynamic()
                .mass_properties(MassProperties::cuboid_with_mass(half, 1.0).unwrap())
                .position(at)
                .build()
                .unwrap(),
        );
        world
            .add_collider(ColliderBuilder::cuboid(half).unwrap(), Some(h))
            .unwrap();
        h
    };
    // Two stacks of two, far apart, and a box in the air.
    add_box(&mut world, Vec3::new(0.0, 0.0, 0.25));
    add_box(&mut world, Vec3::new(0.0, 0.0, 0.75));
    add_box(&mut world, Vec3::new(5.0, 0.0, 0.25));
    add_box(&mut world, Vec3::new(5.0, 0.0, 0.75));
    add_box(&mut world, Vec3::new(-5.0, 0.0, 50.0));
    let scene = ViewerScene::from_world(&world);
    world.step(1.0 / 60.0).unwrap();
    let f = Frame::from_world(&world, 1);
    assert_eq!(f.islands, vec![Some(0), Some(0), Some(1), Some(1), None]);
    assert_eq!(f.sleeping, vec![false; 5]);
    assert_eq!(f.positions.len(), 5);
    // 4 contacts under each box of the stacks.
    assert_eq!(f.contacts.len(), 16);
    for c in &f.contacts {
        assert!(c.bodies.iter().flatten().all(|&b| b < 4));
    }
    // The force on the ground contacts of box 0 carries both boxes (to the first step's
    // softness).
    let up: f64 = f
        .contacts
        .iter()
        .filter(|c| c.bodies == [None, Some(0)])
        .map(|c| c.force[2])
        .sum();
    assert!((up - 2.0 * 9.81).abs() < 0.05, "{up}");
    // Resting stacks fall asleep.
    let mut slept = false;
    for _ in 0..600 {
        world.step(1.0 / 60.0).unwrap();
        let f = Frame::from_world(&world, 0);
        if f.sleeping[..4].iter().all(|&s| s) {
            slept = true;
            break;
        }
    }
    assert!(slept, "the stacks never fell asleep");
    let mut scene = scene;
    scene.record(&world, 600);
    scene.validate().unwrap();
    assert_eq!(scene.plots["contacts"].len(), 1);
}

#[test]
fn json_round_trip_and_validation() {
    let mut scene = falling_stack(12).unwrap();
    assert_eq!(scene.frames.len(), 12);
    assert_eq!(scene.bodies.len(), 7);
    assert_eq!(scene.joints.len(), 1);
    assert_eq!(scene.joints[0].kind, "hinge");
    assert_eq!(scene.joints[0].axis, Some([0.0, 1.0, 0.0]));
    scene.plots.get_mut("residual").unwrap()[3] = f64::NAN;
    let text = scene.to_json();
    let back = ViewerScene::from_json(&text).unwrap();
    assert!(back.plots["residual"][3].is_nan());
    assert_eq!(back.frames, scene.frames);
    assert_eq!(back.bodies, scene.bodies);
    assert_eq!(back.to_json(), text);
    // Positions survive JSON bit for bit.
    for (a, b) in back.frames.iter().zip(&scene.frames) {
        for (p, q) in a.positions.iter().zip(&b.positions) {
            for k in 0..3 {
                assert_eq!(p[k].to_bits(), q[k].to_bits());
            }
        }
    }
    // A minimal hand-written scene reads with defaults.
    let minimal = r#"{"bodies": [{"name": "a", "kind": "dynamic",
        "shapes": [{"kind": "sphere", "radius": 1}]}],
        "frames": [{"step": 0, "time": 0, "positions": [[0,0,1]], "orientations": [[1,0,0,0]]}]}"#;
    let m = ViewerScene::from_json(minimal).unwrap();
    m.validate().unwrap();
    assert_eq!(m.up, [0.0, 0.0, 1.0]);
    assert_eq!(m.bodies[0].shapes[0].pose, ViewerPose::IDENTITY);
    // Inconsistent scenes are refused with the field named.
    let mut bad = scene.clone();
    bad.frames[2].orientations.push([1.0, 0.0, 0.0, 0.0]);
    assert_eq!(
        bad.validate().unwrap_err().to_string(),
        "frames[2].orientations has 8 entries for 7 bodies"
    );
    let mut bad = scene.clone();
    bad.plots.get_mut("contacts").unwrap().pop();
    assert!(bad.validate().unwrap_err().0.starts_with("plots.contacts"));
    let mut bad = scene.clone();
    bad.frames[0].contacts.push(stiction_viewer::ViewerContact {
        point: [0.0; 3],
        normal: [0.0, 0.0, 1.0],
        force: [0.0; 3],
        bodies: [Some(7), None],
        separation: 0.0,
    });
    assert!(bad.validate().is_err());
    let mut bad = scene;
    bad.joints[0].body_a = 9;
    assert!(bad.validate().is_err());
}

#[test]
fn write_html_holds_the_data_and_the_bundle() {
    let mut scene = falling_stack(120).unwrap();
    scene.title = "stack </script><b>".to_string();
    let dir = std::env::temp_dir().join(format!("stiction-viewer-test-{}", std::process::id()));
    let out = dir.join("nested").join("stack.html");
    write_html(&scene, &out).unwrap();
    let html = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(html, html_page(&scene).unwrap());
    assert!(html.starts_with("<!DOCTYPE html>"));
    // The bundle, whole.
    assert!(
        BUNDLE.len() > 100_000,
        "the bundle is {} bytes",
        BUNDLE.len()
    );
    assert!(html.contains(BUNDLE));
    assert!(BUNDLE.contains("stictionViewer"));
    // The data, whole: the JSON between the tags reads back to the scene.
    let open = "<script type=\"application/json\" id=\"stiction-scene\">";
    let start = html.find(open).unwrap() + open.len();
    let end = start + html[start..].find("</script>").unwrap();
    let back = ViewerScene::from_json(&html[start..end]).unwrap();
    assert_eq!(back.frames.len(), 120);
    assert_eq!(back.frames, scene.frames);
    assert_eq!(back.title, scene.title);
    // Only the page's own closing tags.
    assert_eq!(html.matches("</script>").count(), 2);
    assert!(html.contains("<title>stack &lt;/script&gt;&lt;b&gt; - stiction viewer</title>"));
    // No reference to anything outside the file.
    for outside in ["src=", "href=", "http://", "https://"] {
        let inside_bundle = BUNDLE.matches(outside).count();
        assert_eq!(html.matches(outside).count(), inside_bundle, "{outside}");
    }
    // An inconsistent scene is refused.
    let mut bad = falling_stack(2).unwrap();
    bad.frames[1].positions.clear();
    let err = write_html(&bad, &std::env::temp_dir().join("never.html")).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
}
