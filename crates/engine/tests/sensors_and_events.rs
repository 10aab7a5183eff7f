//! Sensors and events (docs/events.md) against analytic answers: a ball falling through a
//! sensor enters and leaves it at the free-fall times and falls exactly as without it; a
//! box landing starts touching at the free-fall time, stays touching at rest and stops
//! when lifted; the reported impulses are the momentum the contacts gave; and a snapshot
//! or a refused step changes none of the events that follow.

use stiction::math::Vec3;
use stiction::{
    BodyHandle, ColliderBuilder, ColliderHandle, ContactEvent, ContactPair, EventKind,
    ExactSettings, ImpactModel, MassProperties, RigidBodyBuilder, SensorEvent, SensorOverlap,
    SleepSettings, Solver, World, WorldError, WorldSettings,
};

/// A dynamic ball of radius `radius` and 1 kg at `position`, with a solid collider.
fn ball(world: &mut World, radius: f64, position: Vec3) -> (BodyHandle, ColliderHandle) {
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(radius, 1.0).unwrap())
            .position(position)
            .build()
            .unwrap(),
    );
    let collider = world
        .add_collider(ColliderBuilder::ball(radius).unwrap(), Some(body))
        .unwrap();
    (body, collider)
}

/// Gravity's magnitude in `world` (m/s^2, along -z).
fn g(world: &World) -> f64 {
    -world.settings().gravity.z
}

/// The first step `k` (1-based) after whose start a body released from rest has fallen
/// more than `d`, by the engine's semi-implicit Euler (`k - 1` steps fall
/// `g h^2 (k - 1) k / 2`): the step whose start-of-step pose first shows it.
fn first_step_beyond(d: f64, g: f64, h: f64) -> usize {
    (1..)
        .find(|&k| g * h * h * ((k - 1) * k) as f64 / 2.0 > d)
        .unwrap()
}

/// The free-fall time to fall `d`: `sqrt(2 d / g)`.
fn fall_time(d: f64, g: f64) -> f64 {
    (2.0 * d / g).sqrt()
}

#[test]
fn a_ball_falls_through_a_sensor_box_as_in_free_fall_entering_and_leaving_once() {
    let (h, radius, z0, half) = (1.0 / 120.0, 0.1, 2.0, 0.25);
    // A large prediction distance: overlap is the shapes' intersection, not proximity.
    let mut settings = WorldSettings::default();
    settings.contacts.prediction = 0.2;
    let mut with_sensor = World::with_settings(settings.clone()).unwrap();
    let mut without = World::with_settings(settings).unwrap();
    let sensor = with_sensor
        .add_collider(
            ColliderBuilder::cuboid(Vec3::new(1.0, 1.0, half))
                .unwrap()
                .sensor(true),
            None,
        )
        .unwrap();
    assert!(with_sensor.collider(sensor).unwrap().is_sensor());
    let (body, shape) = ball(&mut with_sensor, radius, Vec3::new(0.0, 0.0, z0));
    let (free, _) = ball(&mut without, radius, Vec3::new(0.0, 0.0, z0));

    let mut events: Vec<(usize, SensorEvent)> = Vec::new();
    let mut z = vec![z0]; // z[k]: height after k steps (the pose step k + 1 starts from)
    for step in 1..=150 {
        with_sensor.step(h).unwrap();
        without.step(h).unwrap();
        let (a, b) = (
            with_sensor.body(body).unwrap().position(),
            without.body(free).unwrap().position(),
        );
        assert_eq!(
            a.to_array().map(f64::to_bits),
            b.to_array().map(f64::to_bits),
            "step {step}: the sensor changed the motion"
        );
        z.push(a.z);
        events.extend(with_sensor.sensor_events().iter().map(|e| (step, *e)));
        // No contact of any kind.
        assert!(with_sensor.contacts().is_empty());
        assert!(with_sensor.contact_pairs().is_empty() && with_sensor.contact_events().is_empty());
        // Between the events the overlap set holds the ball; outside it, nothing.
        let inside = events.len() == 1;
        let overlaps = with_sensor.sensor_overlaps(sensor).unwrap();
        assert_eq!(overlaps.len(), usize::from(inside), "step {step}");
        if inside {
            let expected = SensorOverlap {
                sensor,
                other: shape,
                bodies: [None, Some(body)],
            };
            assert_eq!(overlaps, [expected]);
            assert_eq!(with_sensor.all_sensor_overlaps(), [expected]);
        }
    }
    assert_eq!(events.len(), 2, "{events:?}");
    let [(enter, began), (leave, ended)] = [events[0], events[1]];
    assert_eq!(began.kind, EventKind::Started);
    assert_eq!(ended.kind, EventKind::Stopped);
    for e in [began, ended] {
        assert_eq!(
            (e.sensor, e.other, e.bodies),
            (sensor, shape, [None, Some(body)])
        );
    }
    // First overlap: the ball's bottom reaches the box's top; last: its top leaves the
    // box's bottom.
    let g = g(&with_sensor);
    let (first, last) = (z0 - half - radius, z0 + half + radius);
    // Analytic, to one step: the event is reported by the step starting from the first
    // pose past the distance, so it is the overlap at that step's start, `(k - 1) h`.
    for (step, d) in [(enter, first), (leave, last)] {
        let (t, at) = (fall_time(d, g), (step - 1) as f64 * h);
        assert!(
            (at - t).abs() <= h,
            "event of step {step} (at {at} s), free fall {t} s"
        );
        assert_eq!(step, first_step_beyond(d, g, h), "d = {d}");
    }
    // Exactly at the intersection: the pose that began it overlaps, the one before did
    // not (the ball's centre within `radius` of the box's top), and likewise at the end.
    let top = half + radius;
    assert!(z[enter - 1] <= top && z[enter - 2] > top);
    assert!(z[leave - 1] < -top && z[leave - 2] >= -top);
}

#[test]
fn sensors_on_moving_static_and_kinematic_bodies_and_on_the_world_see_what_they_cross() {
    let h = 1.0 / 120.0;
    let mut world = World::new();
    // Solid world geometry: a box at x = 2 and a ground far below.
    let wall = world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::new(0.2, 0.2, 0.2))
                .unwrap()
                .position(Vec3::new(2.0, 0.0, 0.0)),
            None,
        )
        .unwrap();
    world
        .add_collider(
            ColliderBuilder::halfspace(Vec3::Z)
                .unwrap()
                .position(Vec3::new(0.0, 0.0, -50.0)),
            None,
        )
        .unwrap();
    // A static body with a sensor around the origin, overlapping a solid world box (both
    // fixed: not reported) and a world sensor (two sensors: not reported).
    let stand = world.add_body(RigidBodyBuilder::static_body().build().unwrap());
    let gate = world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::new(0.5, 0.5, 0.1))
                .unwrap()
                .sensor(true),
            Some(stand),
        )
        .unwrap();
    let block = world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::new(0.1, 0.1, 0.1))
                .unwrap()
                .position(Vec3::new(0.45, 0.0, 0.0)),
            None,
        )
        .unwrap();
    let world_sensor = world
        .add_collider(
            ColliderBuilder::ball(0.2)
                .unwrap()
                .position(Vec3::new(-0.4, 0.0, 0.0))
                .sensor(true),
            None,
        )
        .unwrap();
    // A falling probe whose only collider is a sensor, brushing past the wall (it keeps
    // falling: a sensor stops nothing).
    let probe = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::sphere_with_mass(0.3, 1.0).unwrap())
            .position(Vec3::new(1.6, 0.0, 1.0))
            .build()
            .unwrap(),
    );
    let probe_sensor = world
        .add_collider(
            ColliderBuilder::ball(0.3).unwrap().sensor(true),
            Some(probe),
        )
        .unwrap();
    // A ball dropped through the static gate.
    let (faller, faller_shape) = ball(&mut world, 0.05, Vec3::new(0.0, 0.0, 1.0));
    // A kinematic body carrying a sensor, moving through the world sensor and the gate
    // (not reported: two sensors), the block and the wall.
    let shuttle = world.add_body(
        RigidBodyBuilder::kinematic()
            .position(Vec3::new(-2.0, 0.0, 0.0))
            .linear_velocity(Vec3::new(2.0, 0.0, 0.0))
            .build()
            .unwrap(),
    );
    let shuttle_sensor = world
        .add_collider(
            ColliderBuilder::ball(0.1).unwrap().sensor(true),
            Some(shuttle),
        )
        .unwrap();

    let mut events: Vec<(usize, SensorEvent)> = Vec::new();
    let steps = 300;
    for step in 1..=steps {
        world.step(h).unwrap();
        events.extend(world.sensor_events().iter().map(|e| (step, *e)));
        assert!(world.sensor_overlaps(world_sensor).unwrap().is_empty());
        // A collider that is no sensor overlaps nothing.
        assert!(world.sensor_overlaps(wall).unwrap().is_empty());
    }
    let seen = |sensor: ColliderHandle| -> Vec<(EventKind, ColliderHandle)> {
        events
            .iter()
            .filter(|(_, e)| e.sensor == sensor)
            .map(|(_, e)| (e.kind, e.other))
            .collect()
    };
    let both = |other| vec![(EventKind::Started, other), (EventKind::Stopped, other)];
    // Moving sensor against the fixed wall; fixed sensor against a moving ball; kinematic
    // sensor against the fixed wall.
    assert_eq!(seen(probe_sensor), both(wall));
    assert_eq!(seen(gate), both(faller_shape));
    assert_eq!(seen(shuttle_sensor), [both(block), both(wall)].concat());
    assert!(seen(world_sensor).is_empty());
    assert_eq!(events.len(), 8, "{events:?}");
    let gate_event = events.iter().find(|(_, e)| e.sensor == gate).unwrap().1;
    assert_eq!(gate_event.bodies, [Some(stand), Some(faller)]);
    // The shuttle's ball (radius 0.1) reaches the wall's face at x = 1.8 from x = -2 at
    // 2 m/s after 1.85 s and leaves its far side (x = 2.2) after 2.15 s, to one step
    // (an event of step k is the overlap of the pose step k started from, at (k - 1) h).
    let times: Vec<f64> = events
        .iter()
        .filter(|(_, e)| e.sensor == shuttle_sensor && e.other == wall)
        .map(|(step, _)| (*step - 1) as f64 * h)
        .collect();
    assert_eq!(times.len(), 2);
    assert!(
        (times[0] - 1.85).abs() <= h && (times[1] - 2.15).abs() <= h,
        "{times:?}"
    );
    // The probe passed the wall in free fall (semi-implicit Euler: `g h^2 n (n + 1) / 2`
    // after n steps), the faller the gate.
    let z = |b| world.body(b).unwrap().position().z;
    let n = steps as f64;
    let free_fall = 1.0 - g(&world) * h * h * n * (n + 1.0) / 2.0;
    assert!((z(probe) - free_fall).abs() < 1e-9, "{}", z(probe));
    assert!(z(faller) < -1.0);
    // A stale handle is an error.
    let removed = world.remove_collider(gate).unwrap();
    assert!(removed.is_sensor());
    assert!(matches!(
        world.sensor_overlaps(gate),
        Err(WorldError::StaleCollider(_))
    ));
}

#[test]
fn a_solid_collider_made_a_sensor_stops_touching_and_falls_through() {
    let h = 1.0 / 120.0;
    let mut world = World::new();
    let ground = world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    let (body, shape) = ball(&mut world, 0.1, Vec3::new(0.0, 0.0, 0.1));
    for _ in 0..30 {
        world.step(h).unwrap();
    }
    assert!(world.contact_pair(ground, shape).is_some());
    world.collider_mut(shape).unwrap().set_sensor(true);
    world.step(h).unwrap();
    assert_eq!(
        world.contact_events(),
        [ContactEvent {
            kind: EventKind::Stopped,
            colliders: [ground, shape],
            bodies: [None, Some(body)],
        }]
    );
    // A sensor on a dynamic body against the ground: an overlap, and it falls through.
    assert_eq!(world.sensor_events().len(), 1);
    assert_eq!(world.sensor_events()[0].other, ground);
    for _ in 0..30 {
        world.step(h).unwrap();
    }
    assert!(world.body(body).unwrap().position().z < 0.0);
}

#[test]
fn a_landing_box_starts_touching_at_impact_keeps_touching_at_rest_and_stops_when_lifted() {
    let (h, half, d, mass) = (1.0 / 500.0, 0.1, 0.5, 2.0);
    let mut world = World::new();
    let ground = world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::cuboid_with_mass(Vec3::splat(half), mass).unwrap())
            .position(Vec3::new(0.0, 0.0, half + d))
            .build()
            .unwrap(),
    );
    let cube = world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::splat(half)).unwrap(),
            Some(body),
        )
        .unwrap();
    let g = g(&world);
    let pair_event = |kind| ContactEvent {
        kind,
        colliders: [ground, cube],
        bodies: [None, Some(body)],
    };

    let mut events: Vec<(usize, ContactEvent)> = Vec::new();
    let mut step = 0;
    let mut rest_impulses = Vec::new();
    // Fall and rest for 2 s.
    while step < 1000 {
        step += 1;
        world.step(h).unwrap();
        events.extend(world.contact_events().iter().map(|e| (step, *e)));
        let pair = world.contact_pair(cube, ground); // either order
        assert_eq!(pair.is_some(), !events.is_empty(), "step {step}");
        if step > 800 {
            let pair = pair.unwrap();
            assert_eq!(pair.colliders, [ground, cube]);
            assert_eq!((pair.points, pair.asleep), (4, false));
            rest_impulses.push(pair.normal_impulse);
            assert!(pair.friction_impulse < 1e-9 * pair.normal_impulse);
            assert_eq!(world.contact_pairs(), [*pair]);
        }
    }
    assert_eq!(events, [(events[0].0, pair_event(EventKind::Started))]);
    // The landing: the step whose speculative contact first stops the fall, i.e. the
    // first whose free fall would have passed the ground (analytic to one step).
    let landed = events[0].0;
    assert!(
        (landed as f64 * h - fall_time(d, g)).abs() <= h,
        "landed at step {landed}, free fall {} s",
        fall_time(d, g)
    );
    assert_eq!(landed, first_step_beyond(d, g, h) - 1);
    // At rest the ground carries the weight: m g h of normal impulse every step.
    for impulse in &rest_impulses {
        let expected = mass * g * h;
        assert!(
            ((impulse - expected) / expected).abs() < 1e-9,
            "{impulse} against {expected}"
        );
    }
    // Lifted away: it stops touching at once (the next step still starts in contact
    // and is touching by its separation; the one after, it has left), and only once.
    world
        .body_mut(body)
        .unwrap()
        .set_linear_velocity(Vec3::new(0.0, 0.0, 2.0))
        .unwrap();
    events.clear();
    for lift in 1..=60 {
        world.step(h).unwrap();
        events.extend(world.contact_events().iter().map(|e| (lift, *e)));
    }
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].1, pair_event(EventKind::Stopped));
    assert_eq!(
        events[0].0, 2,
        "stopped {} steps after the lift",
        events[0].0
    );
    assert!(world.contact_pairs().is_empty());
}

#[test]
fn a_sleeping_pair_keeps_touching_with_no_impulse() {
    let h = 1.0 / 120.0;
    let settings = WorldSettings {
        sleep: SleepSettings::on(),
        ..WorldSettings::default()
    };
    let mut world = World::with_settings(settings).unwrap();
    let ground = world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::cuboid_with_mass(Vec3::splat(0.1), 1.0).unwrap())
            .position(Vec3::new(0.0, 0.0, 0.2))
            .build()
            .unwrap(),
    );
    let cube = world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::splat(0.1)).unwrap(),
            Some(body),
        )
        .unwrap();
    let mut events = Vec::new();
    for _ in 0..600 {
        world.step(h).unwrap();
        events.extend_from_slice(world.contact_events());
    }
    assert!(world.is_sleeping(body).unwrap());
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].kind, EventKind::Started);
    let pair = *world.contact_pair(ground, cube).unwrap();
    assert!(pair.asleep);
    assert_eq!(
        (pair.points, pair.normal_impulse, pair.impulse),
        (0, 0.0, Vec3::ZERO)
    );
    // Woken, it touches again with its weight.
    world.wake_up(body).unwrap();
    world.step(h).unwrap();
    assert!(world.contact_events().is_empty());
    let pair = world.contact_pair(ground, cube).unwrap();
    assert!(!pair.asleep && pair.normal_impulse > 0.0);
}

/// Drops a box sliding sideways onto the ground and checks, over the whole drop, that the
/// impulses the pairs reported are the box's momentum change less gravity's: normal
/// (along z) and net vector (friction too).
fn momentum_balance(solver: Solver, restitution: f64) {
    let (h, half, mass) = (1.0 / 240.0, 0.1, 3.0);
    let mut world = World::new();
    world.set_solver(solver.clone()).unwrap();
    let ground = world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::cuboid_with_mass(Vec3::splat(half), mass).unwrap())
            .position(Vec3::new(0.0, 0.0, half + 0.3))
            .linear_velocity(Vec3::new(1.5, 0.0, 0.0))
            .build()
            .unwrap(),
    );
    let cube = world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::splat(half))
                .unwrap()
                .restitution(restitution),
            Some(body),
        )
        .unwrap();
    let v0 = world.body(body).unwrap().linear_velocity();
    let steps = 360;
    let (mut normal, mut net, mut friction) = (0.0, Vec3::ZERO, 0.0);
    for _ in 0..steps {
        world.step(h).unwrap();
        for pair in world.contact_pairs() {
            assert_eq!(pair.colliders, [ground, cube]);
            normal += pair.normal_impulse;
            friction += pair.friction_impulse;
            net += pair.impulse;
        }
    }
    let v = world.body(body).unwrap().linear_velocity();
    let gravity = world.settings().gravity * (h * steps as f64);
    // m (v - v0) = sum of impulses + m g t.
    let change = (v - v0 - gravity) * mass;
    let tolerance = 1e-9 * change.length();
    assert!(
        (net - change).length() < tolerance,
        "{solver:?}: impulses {net}, momentum change {change}"
    );
    assert!(
        (normal - change.z).abs() < tolerance,
        "{normal} {}",
        change.z
    );
    // It slid to a stop: friction took its horizontal momentum.
    assert!(v.x.abs() < 1e-6 && friction >= mass * 1.5 * (1.0 - 1e-9));
}

#[test]
fn the_impulses_summed_over_a_drop_are_the_momentum_change() {
    momentum_balance(Solver::exact(), 0.0);
    momentum_balance(Solver::iterative(), 0.0);
    // Restitution, with the impacts in the velocity solve and resolved one by one
    // before it (their impulses are reported too).
    momentum_balance(Solver::exact(), 0.5);
    let sequential = Solver::Exact(ExactSettings {
        impacts: ImpactModel::Sequential,
        ..ExactSettings::default()
    });
    momentum_balance(sequential, 0.5);
}

/// A world with a sensor box a ball falls through and a box landing on the ground.
fn event_scene() -> World {
    let mut world = World::new();
    world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::new(0.5, 0.5, 0.2))
                .unwrap()
                .position(Vec3::new(2.0, 0.0, 1.0))
                .sensor(true),
            None,
        )
        .unwrap();
    ball(&mut world, 0.1, Vec3::new(2.0, 0.0, 2.0));
    let body = world.add_body(
        RigidBodyBuilder::dynamic()
            .mass_properties(MassProperties::cuboid_with_mass(Vec3::splat(0.1), 1.0).unwrap())
            .position(Vec3::new(0.0, 0.0, 0.3))
            .build()
            .unwrap(),
    );
    world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::splat(0.1)).unwrap(),
            Some(body),
        )
        .unwrap();
    world
}

/// Everything the events report, for comparing two worlds.
type Events = (
    Vec<SensorEvent>,
    Vec<SensorOverlap>,
    Vec<ContactEvent>,
    Vec<ContactPair>,
);

fn events_of(world: &World) -> Events {
    (
        world.sensor_events().to_vec(),
        world.all_sensor_overlaps().to_vec(),
        world.contact_events().to_vec(),
        world.contact_pairs().to_vec(),
    )
}

#[test]
fn sensors_and_events_survive_a_snapshot_and_the_events_after_it_are_the_same() {
    let h = 1.0 / 120.0;
    let mut world = event_scene();
    // The ball is inside the sensor, the box on the ground.
    for _ in 0..50 {
        world.step(h).unwrap();
    }
    assert_eq!(world.all_sensor_overlaps().len(), 1);
    assert_eq!(world.contact_pairs().len(), 1);
    let mut file = Vec::new();
    world.save_snapshot(&mut file, 50).unwrap();
    let mut copy = World::load_snapshot(&file[..]).unwrap().world;
    for (handle, collider) in world.colliders() {
        assert_eq!(
            copy.collider(handle).unwrap().is_sensor(),
            collider.is_sensor()
        );
    }
    assert_eq!(events_of(&copy), events_of(&world));
    let mut seen = 0;
    for step in 0..60 {
        world.step(h).unwrap();
        copy.step(h).unwrap();
        assert_eq!(events_of(&copy), events_of(&world), "step {step}");
        seen += world.sensor_events().len() + world.contact_events().len();
    }
    // The ball left the sensor after the restore.
    assert!(seen >= 1);
    assert!(world.all_sensor_overlaps().is_empty());
}

#[test]
fn a_snapshot_written_before_sensors_and_events_still_loads() {
    let h = 1.0 / 120.0;
    let mut world = event_scene();
    let sensor = world
        .colliders()
        .find(|(_, c)| c.is_sensor())
        .map(|(handle, _)| handle)
        .unwrap();
    world.collider_mut(sensor).unwrap().set_sensor(false);
    for _ in 0..50 {
        world.step(h).unwrap();
    }
    let mut file = Vec::new();
    world.save_snapshot(&mut file, 50).unwrap();
    // Remove what older versions did not write: the events and every collider's flag.
    const HEADER_LEN: usize = 37;
    let mut value: ciborium::Value = ciborium::from_reader(&file[HEADER_LEN..]).unwrap();
    let map = value.as_map_mut().unwrap();
    map.retain(|(k, _)| k.as_text() != Some("events"));
    for (key, colliders) in map.iter_mut() {
        if key.as_text() != Some("colliders") {
            continue;
        }
        let slots = colliders.as_map_mut().unwrap();
        for (k, slots) in slots.iter_mut() {
            if k.as_text() != Some("slots") {
                continue;
            }
            for slot in slots.as_array_mut().unwrap() {
                let record = &mut slot.as_array_mut().unwrap()[1];
                if let Some(fields) = record.as_map_mut() {
                    let before = fields.len();
                    fields.retain(|(k, _)| k.as_text() != Some("sensor"));
                    assert_eq!(fields.len(), before - 1);
                }
            }
        }
    }
    let mut payload = Vec::new();
    ciborium::into_writer(&value, &mut payload).unwrap();
    let mut old = file[..HEADER_LEN].to_vec();
    old[21..29].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    let hash = payload.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    old[29..37].copy_from_slice(&hash.to_le_bytes());
    old.extend_from_slice(&payload);
    let mut copy = World::load_snapshot(&old[..]).unwrap().world;
    assert!(copy.colliders().all(|(_, c)| !c.is_sensor()));
    assert!(copy.contact_pairs().is_empty() && copy.contact_events().is_empty());
    // It steps on exactly as the saved world; its touching pairs start anew.
    world.step(h).unwrap();
    copy.step(h).unwrap();
    assert_eq!(copy.contact_pairs(), world.contact_pairs());
    assert!(copy
        .contact_events()
        .iter()
        .all(|e| e.kind == EventKind::Started));
    assert_eq!(copy.contact_events().len(), world.contact_pairs().len());
    for (handle, body) in world.bodies() {
        let other = copy.body(handle).unwrap();
        assert_eq!(other.position(), body.position());
    }
}

#[test]
fn a_refused_step_leaves_the_events_and_the_ones_after_it_unchanged() {
    let h = 1.0 / 120.0;
    let mut world = event_scene();
    for _ in 0..49 {
        world.step(h).unwrap();
    }
    let mut reference = world.clone();
    world.step(h).unwrap();
    reference.step(h).unwrap();
    let before = events_of(&world);
    assert!(!before.1.is_empty() && !before.3.is_empty());
    // A non-finite force: refused after collision detection found this step's sets.
    let (body, _) = world.bodies().find(|(_, b)| b.is_dynamic()).unwrap();
    for _ in 0..2 {
        world
            .body_mut(body)
            .unwrap()
            .add_force(Vec3::new(f64::MAX, 0.0, 0.0))
            .unwrap();
    }
    assert!(world.step(h).is_err());
    assert_eq!(events_of(&world), before);
    world.body_mut(body).unwrap().clear_accumulators();
    for step in 0..60 {
        world.step(h).unwrap();
        reference.step(h).unwrap();
        assert_eq!(events_of(&world), events_of(&reference), "step {step}");
    }
}

/// The system allocator, counting this thread's allocations (as `tests/allocations.rs`).
struct Counting;

thread_local! {
    static ALLOCATIONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

// SAFETY: forwards every call unchanged to the system allocator.
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { std::alloc::System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: as above.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: as above.
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn steps_with_sensors_and_events_allocate_nothing() {
    let h = 1.0 / 120.0;
    let mut world = World::new();
    world
        .add_collider(ColliderBuilder::halfspace(Vec3::Z).unwrap(), None)
        .unwrap();
    // Boxes resting in a row (touching pairs every step) inside a world sensor.
    for i in 0..8 {
        let body = world.add_body(
            RigidBodyBuilder::dynamic()
                .mass_properties(MassProperties::cuboid_with_mass(Vec3::splat(0.1), 1.0).unwrap())
                .position(Vec3::new(0.5 * i as f64, 0.0, 0.1))
                .build()
                .unwrap(),
        );
        world
            .add_collider(
                ColliderBuilder::cuboid(Vec3::splat(0.1)).unwrap(),
                Some(body),
            )
            .unwrap();
    }
    world
        .add_collider(
            ColliderBuilder::cuboid(Vec3::new(5.0, 1.0, 0.5))
                .unwrap()
                .sensor(true),
            None,
        )
        .unwrap();
    // A kinematic sensor sweeping over the row: overlaps begin and end all the time.
    let shuttle = world.add_body(
        RigidBodyBuilder::kinematic()
            .position(Vec3::new(-1.0, 0.0, 0.15))
            .linear_velocity(Vec3::new(0.5, 0.0, 0.0))
            .build()
            .unwrap(),
    );
    world
        .add_collider(
            ColliderBuilder::ball(0.1).unwrap().sensor(true),
            Some(shuttle),
        )
        .unwrap();
    let mut events = 0;
    for _ in 0..240 {
        world.step(h).unwrap();
    }
    let before = ALLOCATIONS.with(std::cell::Cell::get);
    for _ in 0..480 {
        world.step(h).unwrap();
        events += world.sensor_events().len();
    }
    let count = ALLOCATIONS.with(std::cell::Cell::get) - before;
    assert!(events >= 8, "{events} sensor events");
    assert_eq!(world.contact_pairs().len(), 8);
    assert_eq!(world.all_sensor_overlaps().len(), 9);
    assert_eq!(count, 0, "{count} allocations in 480 steps");
}
