//! The physical rules of a scene file, checked in file order so the error names the first
//! field that breaks one, by its path (`bodies[3].shapes[0].half_extents`).
//!
//! Everything the engine would refuse is caught here first, so a user reads the field to
//! change instead of an engine message; [`crate::scene::build`] still maps any engine refusal
//! to the element's path.

use std::collections::{BTreeMap, HashMap};

use crate::readable::number;
use crate::scene::error::FieldError;
use crate::scene::schema::{
    AxisAngle, BodyDesc, BodyKindDesc, JointDesc, JointKindDesc, MaterialDesc, ModelDesc,
    RecordDesc, RenderDesc, SceneFile, ShapeDesc, ShapeKind, SolverDesc, Vector, WorldDesc,
    DEFAULT_STEP, WORLD,
};

pub(crate) type Check = Result<(), FieldError>;

/// The most steps a scene may ask for (through `steps`, or `duration` over `world.step`):
/// about 46 hours at 60 Hz. `stiction run` keeps a few numbers per step, so a larger count
/// would reserve memory no machine has before the first step.
pub const MAX_STEPS: u64 = 10_000_000;

/// Checks every rule; the first broken one is returned.
pub fn validate(scene: &SceneFile) -> Check {
    if scene.duration.is_some() && scene.steps.is_some() {
        return Err(FieldError::invalid(
            "duration",
            "set either duration or steps, not both",
        ));
    }
    if let Some(duration) = scene.duration {
        positive("duration", duration)?;
    }
    if let Some(steps) = scene.steps {
        if !(1..=MAX_STEPS).contains(&steps) {
            return Err(FieldError::invalid(
                "steps",
                format!("must lie in [1, {MAX_STEPS}], got {steps}"),
            ));
        }
    }
    world(&scene.world)?;
    if let Some(duration) = scene.duration {
        // A step the models give is checked again once they are loaded.
        duration_steps(duration, scene.world.step.unwrap_or(DEFAULT_STEP))?;
    }
    for (name, material) in &scene.materials {
        self::material(&format!("materials.{name}"), material)?;
    }
    let mut kinds = HashMap::new();
    for (i, body) in scene.bodies.iter().enumerate() {
        let path = format!("bodies[{i}]");
        self::body(&path, body, &scene.materials)?;
        if kinds.insert(body.name.as_str(), body.kind).is_some() {
            return Err(FieldError::invalid(
                format!("{path}.name"),
                format!("body names must be unique: `{}` is used twice", body.name),
            ));
        }
    }
    for (i, model) in scene.models.iter().enumerate() {
        self::model(&format!("models[{i}]"), model)?;
    }
    for (i, joint) in scene.joints.iter().enumerate() {
        self::joint(&format!("joints[{i}]"), joint, &kinds)?;
    }
    crate::scene::sensors::validate(scene)?;
    record(&scene.record)?;
    render(&scene.render)
}

/// Refuses a `duration` that asks for more than [`MAX_STEPS`] steps of `h`.
pub fn duration_steps(duration: f64, h: f64) -> Check {
    let steps = duration / h;
    if steps > MAX_STEPS as f64 {
        return Err(FieldError::invalid(
            "duration",
            format!(
                "asks for {steps:.3e} steps of world.step = {} s; at most {MAX_STEPS}",
                number(h)
            ),
        ));
    }
    Ok(())
}

fn world(world: &WorldDesc) -> Check {
    if let Some(gravity) = world.gravity {
        finite_vector("world.gravity", gravity)?;
    }
    if let Some(step) = world.step {
        positive("world.step", step)?;
    }
    solver(&world.solver)?;
    if !(world.erp.is_finite() && (0.0..=1.0).contains(&world.erp)) {
        return Err(FieldError::invalid(
            "world.erp",
            format!("must be finite and in [0, 1], got {}", number(world.erp)),
        ));
    }
    non_negative("world.cfm", world.cfm)?;
    non_negative("world.restitution_threshold", world.restitution_threshold)
}

fn solver(solver: &SolverDesc) -> Check {
    if solver.iterations == 0 {
        return Err(FieldError::invalid(
            "world.solver.iterations",
            "must be at least 1, got 0",
        ));
    }
    if !(solver.omega > 0.0 && solver.omega < 2.0) {
        return Err(FieldError::invalid(
            "world.solver.omega",
            format!("must lie in (0, 2), got {}", number(solver.omega)),
        ));
    }
    non_negative("world.solver.tolerance", solver.tolerance)
}

fn material(path: &str, material: &MaterialDesc) -> Check {
    non_negative(&format!("{path}.friction"), material.friction)?;
    let restitution = material.restitution;
    if !(restitution.is_finite() && (0.0..=1.0).contains(&restitution)) {
        return Err(FieldError::invalid(
            format!("{path}.restitution"),
            format!("must be finite and in [0, 1], got {}", number(restitution)),
        ));
    }
    if let Some(threshold) = material.restitution_threshold {
        non_negative(&format!("{path}.restitution_threshold"), threshold)?;
    }
    Ok(())
}

fn body(path: &str, body: &BodyDesc, materials: &BTreeMap<String, MaterialDesc>) -> Check {
    if body.name.trim().is_empty() || body.name == WORLD {
        return Err(FieldError::invalid(
            format!("{path}.name"),
            format!(
                "must be non-empty and not `{WORLD}` (which names the static world), got `{}`",
                body.name
            ),
        ));
    }
    if body.name.contains([',', '"', '\n', '\r']) {
        return Err(FieldError::invalid(
            format!("{path}.name"),
            format!(
                "must not contain commas, quotes or line breaks (it is written to CSV files), got `{}`",
                body.name
            ),
        ));
    }
    finite_vector(&format!("{path}.position"), body.position)?;
    rotation(path, body.orientation, body.axis_angle.as_ref())?;
    finite_vector(&format!("{path}.linear_velocity"), body.linear_velocity)?;
    if body.angular_velocity.is_some() && body.angular_velocity_body.is_some() {
        return Err(FieldError::invalid(
            format!("{path}.angular_velocity_body"),
            "set either angular_velocity (world frame) or angular_velocity_body, not both",
        ));
    }
    for (name, value) in [
        ("angular_velocity", body.angular_velocity),
        ("angular_velocity_body", body.angular_velocity_body),
    ] {
        if let Some(v) = value {
            finite_vector(&format!("{path}.{name}"), v)?;
        }
    }
    if body.kind == BodyKindDesc::Static {
        let moving = body.linear_velocity != [0.0; 3]
            || body.angular_velocity.is_some_and(|w| w != [0.0; 3])
            || body.angular_velocity_body.is_some_and(|w| w != [0.0; 3]);
        if moving {
            return Err(FieldError::invalid(
                format!("{path}.linear_velocity"),
                "a static body cannot move: its velocities must be zero (use kind = \"kinematic\")",
            ));
        }
    }
    if body.ccd && body.kind == BodyKindDesc::Static {
        return Err(FieldError::invalid(
            format!("{path}.ccd"),
            "a static body never moves: continuous collision applies to dynamic and kinematic bodies",
        ));
    }
    // The shapes before the mass: a dynamic body whose only shape is a mesh is told why
    // the mesh cannot be there rather than that it has no volume.
    for (j, shape) in body.shapes.iter().enumerate() {
        self::shape(&format!("{path}.shapes[{j}]"), shape, body.kind, materials)?;
        if let Some(name) = &shape.name {
            let first = body
                .shapes
                .iter()
                .position(|s| s.name.as_ref() == Some(name));
            if first != Some(j) {
                return Err(FieldError::invalid(
                    format!("{path}.shapes[{j}].name"),
                    format!("shape names must be unique in a body: `{name}` is used twice"),
                ));
            }
        }
    }
    mass(path, body)?;
    non_negative(&format!("{path}.linear_damping"), body.linear_damping)?;
    non_negative(&format!("{path}.angular_damping"), body.angular_damping)?;
    if let Some(color) = body.color {
        if !color.iter().all(|c| (0.0..=1.0).contains(c)) {
            return Err(FieldError::invalid(
                format!("{path}.color"),
                format!("each component must be in [0, 1], got {color:?}"),
            ));
        }
    }
    Ok(())
}

fn mass(path: &str, body: &BodyDesc) -> Check {
    if body.mass.is_some() && body.density.is_some() {
        return Err(FieldError::invalid(
            format!("{path}.density"),
            "set either mass or density, not both",
        ));
    }
    if let Some(mass) = body.mass {
        positive(&format!("{path}.mass"), mass)?;
    }
    if let Some(density) = body.density {
        positive(&format!("{path}.density"), density)?;
    }
    if let Some(inertia) = body.inertia {
        let field = format!("{path}.inertia");
        if !inertia.iter().all(|i| i.is_finite() && *i > 0.0) {
            return Err(FieldError::invalid(
                field,
                format!("every principal moment must be finite and > 0, got {inertia:?}"),
            ));
        }
        let mut sorted = inertia;
        sorted.sort_by(f64::total_cmp);
        if sorted[0] + sorted[1] < sorted[2] * (1.0 - 1e-9) {
            return Err(FieldError::invalid(
                field,
                format!("no real body has these moments: the two smaller must add up to at least the largest, got {inertia:?}"),
            ));
        }
    }
    // Sensor shapes are regions, not matter: they add no mass.
    let has_volume = body.shapes.iter().any(|s| {
        !s.sensor
            && !matches!(
                s.kind,
                ShapeKind::Plane | ShapeKind::Mesh | ShapeKind::Heightfield
            )
    });
    let described = body.mass.is_some() && body.inertia.is_some();
    if body.kind == BodyKindDesc::Dynamic && !has_volume && !described {
        return Err(FieldError::invalid(
            format!("{path}.shapes"),
            "a dynamic body needs a shape with volume, or both mass and inertia",
        ));
    }
    Ok(())
}

fn shape(
    path: &str,
    shape: &ShapeDesc,
    body_kind: BodyKindDesc,
    materials: &BTreeMap<String, MaterialDesc>,
) -> Check {
    use ShapeKind as K;
    let kind = shape_kind_name(shape.kind);
    // Which fields each type takes: required, optional (`scale`), or refused. A convex
    // hull takes `points` or `file` (one of them, checked below).
    let convex = shape.kind == K::Convex;
    let takes_file = matches!(shape.kind, K::Convex | K::Mesh);
    let fields = [
        (
            "half_extents",
            shape.kind == K::Box,
            false,
            shape.half_extents.is_some(),
        ),
        (
            "radius",
            matches!(shape.kind, K::Sphere | K::Capsule | K::Cylinder),
            false,
            shape.radius.is_some(),
        ),
        (
            "half_height",
            matches!(shape.kind, K::Capsule | K::Cylinder),
            false,
            shape.half_height.is_some(),
        ),
        ("points", false, convex, shape.points.is_some()),
        ("file", shape.kind == K::Mesh, convex, shape.file.is_some()),
        ("scale", false, takes_file, shape.scale.is_some()),
        (
            "heights",
            shape.kind == K::Heightfield,
            false,
            shape.heights.is_some(),
        ),
        (
            "size",
            shape.kind == K::Heightfield,
            false,
            shape.size.is_some(),
        ),
    ];
    for (field, needed, optional, present) in fields {
        if needed && !present {
            return Err(FieldError::invalid(
                format!("{path}.{field}"),
                format!("required for a {kind}"),
            ));
        }
        if present && !needed && !optional {
            return Err(FieldError::invalid(
                format!("{path}.{field}"),
                format!("does not apply to a {kind}"),
            ));
        }
    }
    if let Some(half) = shape.half_extents {
        if !half.iter().all(|h| h.is_finite() && *h > 0.0) {
            return Err(FieldError::invalid(
                format!("{path}.half_extents"),
                format!("every half extent must be finite and > 0, got {half:?}"),
            ));
        }
    }
    if let Some(radius) = shape.radius {
        positive(&format!("{path}.radius"), radius)?;
    }
    if let Some(half_height) = shape.half_height {
        positive(&format!("{path}.half_height"), half_height)?;
    }
    if convex {
        match (&shape.points, &shape.file) {
            (Some(_), Some(_)) => {
                return Err(FieldError::invalid(
                    format!("{path}.file"),
                    "set either points or file, not both",
                ))
            }
            (None, None) => {
                return Err(FieldError::invalid(
                    format!("{path}.points"),
                    "a convex shape needs points (or a mesh file)",
                ))
            }
            _ => {}
        }
        if shape.points.is_some() && shape.scale.is_some() {
            return Err(FieldError::invalid(
                format!("{path}.scale"),
                "applies to a mesh file only: give the points at their size",
            ));
        }
    }
    if let Some(points) = &shape.points {
        if points.len() < 4 {
            return Err(FieldError::invalid(
                format!("{path}.points"),
                format!(
                    "a convex hull needs at least 4 points, got {}",
                    points.len()
                ),
            ));
        }
        for (k, p) in points.iter().enumerate() {
            finite_vector(&format!("{path}.points[{k}]"), *p)?;
        }
    }
    if let Some(file) = &shape.file {
        if file.trim().is_empty() {
            return Err(FieldError::invalid(
                format!("{path}.file"),
                "must name a mesh file",
            ));
        }
    }
    if let Some(scale) = shape.scale {
        let axes = scale.axes();
        if !axes.iter().all(|s| s.is_finite() && *s > 0.0) {
            return Err(FieldError::invalid(
                format!("{path}.scale"),
                format!("every factor must be finite and > 0, got {axes:?}"),
            ));
        }
    }
    if let Some(heights) = &shape.heights {
        let field = format!("{path}.heights");
        let cols = heights.first().map_or(0, Vec::len);
        if heights.len() < 2 || cols < 2 {
            return Err(FieldError::invalid(
                field,
                format!(
                    "a heightfield needs at least 2 rows of at least 2 heights, got {} x {cols}",
                    heights.len()
                ),
            ));
        }
        for (i, row) in heights.iter().enumerate() {
            if row.len() != cols {
                return Err(FieldError::invalid(
                    format!("{field}[{i}]"),
                    format!(
                        "every row must be as long as the first ({cols} heights), got {}",
                        row.len()
                    ),
                ));
            }
            if let Some(j) = row.iter().position(|h| !h.is_finite()) {
                return Err(FieldError::invalid(
                    format!("{field}[{i}][{j}]"),
                    format!("must be finite, got {}", number(row[j])),
                ));
            }
        }
    }
    if let Some(size) = shape.size {
        if !size.iter().all(|s| s.is_finite() && *s > 0.0) {
            return Err(FieldError::invalid(
                format!("{path}.size"),
                format!("both extents must be finite and > 0, got {size:?}"),
            ));
        }
    }
    let static_only = match shape.kind {
        K::Plane => Some("a plane is infinite and can only belong to a static body"),
        K::Mesh => Some(
            "a triangle mesh has no inside, so it can only belong to a static body (use type = \"convex\" with the same file for a moving body)",
        ),
        K::Heightfield => Some("a heightfield can only belong to a static body"),
        _ => None,
    };
    if let Some(rule) = static_only {
        if body_kind != BodyKindDesc::Static {
            return Err(FieldError::invalid(format!("{path}.type"), rule));
        }
    }
    finite_vector(&format!("{path}.offset"), shape.offset)?;
    rotation(path, shape.orientation, shape.axis_angle.as_ref())?;
    if shape.sensor && !shape.collide {
        return Err(FieldError::invalid(
            format!("{path}.sensor"),
            "a sensor shape must take part in collision detection: remove collide = false",
        ));
    }
    if let Some(name) = &shape.name {
        if name.trim().is_empty() {
            return Err(FieldError::invalid(
                format!("{path}.name"),
                "must be non-empty",
            ));
        }
    }
    if let Some(name) = &shape.material {
        if !materials.contains_key(name) {
            return Err(FieldError::invalid(
                format!("{path}.material"),
                format!("no material `{name}` in [materials]"),
            ));
        }
    }
    Ok(())
}

fn model(path: &str, model: &ModelDesc) -> Check {
    if model.file.trim().is_empty() {
        return Err(FieldError::invalid(
            format!("{path}.file"),
            "must name a model file (.urdf, or .xml: URDF or MJCF)",
        ));
    }
    if model.prefix.contains([',', '"', '\n', '\r']) {
        return Err(FieldError::invalid(
            format!("{path}.prefix"),
            format!(
                "must not contain commas, quotes or line breaks (body names are written to CSV files), got `{}`",
                model.prefix
            ),
        ));
    }
    finite_vector(&format!("{path}.position"), model.position)?;
    rotation(path, model.orientation, model.axis_angle.as_ref())?;
    for (name, value) in &model.joints {
        finite(&format!("{path}.joints.{name}"), *value)?;
    }
    if let Some([stiffness, damping]) = model.servo {
        if !(stiffness.is_finite() && damping.is_finite() && stiffness >= 0.0 && damping >= 0.0)
            || stiffness + damping <= 0.0
        {
            return Err(FieldError::invalid(
                format!("{path}.servo"),
                format!(
                    "must be [stiffness, damping], both finite and >= 0, not both 0, got [{}, {}]",
                    number(stiffness),
                    number(damping)
                ),
            ));
        }
    }
    for (k, dir) in model.model_path.iter().enumerate() {
        if dir.trim().is_empty() {
            return Err(FieldError::invalid(
                format!("{path}.model_path[{k}]"),
                "must name a directory",
            ));
        }
    }
    Ok(())
}

fn joint(path: &str, joint: &JointDesc, bodies: &HashMap<&str, BodyKindDesc>) -> Check {
    if let Some(name) = &joint.name {
        if name.trim().is_empty() || name.contains([',', '"', '\n', '\r']) {
            return Err(FieldError::invalid(
                format!("{path}.name"),
                format!("must be non-empty without commas, quotes or line breaks (it is written to CSV files), got `{name}`"),
            ));
        }
    }
    let Some(&kind_a) = bodies.get(joint.body_a.as_str()) else {
        return Err(FieldError::invalid(
            format!("{path}.body_a"),
            format!("no body named `{}`", joint.body_a),
        ));
    };
    let kind_b = if joint.body_b == WORLD {
        None
    } else {
        let Some(&kind) = bodies.get(joint.body_b.as_str()) else {
            return Err(FieldError::invalid(
                format!("{path}.body_b"),
                format!(
                    "no body named `{}` (use `{WORLD}` for the static world)",
                    joint.body_b
                ),
            ));
        };
        Some(kind)
    };
    if joint.body_a == joint.body_b {
        return Err(FieldError::invalid(
            format!("{path}.body_b"),
            "a joint must connect two different bodies",
        ));
    }
    // The engine drops rows that touch no dynamic body, so such a joint would do nothing.
    if kind_a != BodyKindDesc::Dynamic && kind_b.is_none_or(|k| k != BodyKindDesc::Dynamic) {
        let end = |name: &str, kind: Option<BodyKindDesc>| match kind {
            Some(kind) => format!("`{name}` ({})", kind_name(kind)),
            None => format!("the static world (`{WORLD}`)"),
        };
        return Err(FieldError::invalid(
            format!("{path}.body_b"),
            format!(
                "the joint between {} and {} would hold nothing: one of its bodies must be dynamic",
                end(&joint.body_a, Some(kind_a)),
                end(&joint.body_b, kind_b)
            ),
        ));
    }
    use JointKindDesc as K;
    let needs_anchor = !matches!(joint.kind, K::Slider | K::Fixed);
    let needs_axis = matches!(joint.kind, K::Hinge | K::Slider | K::Universal | K::Hinge2);
    let needs_axis2 = matches!(joint.kind, K::Universal | K::Hinge2);
    let takes_anchor_b = matches!(joint.kind, K::Distance);
    let kind = format!("{:?}", joint.kind).to_lowercase();
    for (field, needed, optional, present) in [
        ("anchor", needs_anchor, false, joint.anchor.is_some()),
        ("anchor_b", takes_anchor_b, false, joint.anchor_b.is_some()),
        ("axis", needs_axis, false, joint.axis.is_some()),
        ("axis2", needs_axis2, false, joint.axis2.is_some()),
        ("length", false, takes_anchor_b, joint.length.is_some()),
    ] {
        if needed && !present {
            return Err(FieldError::invalid(
                format!("{path}.{field}"),
                format!("required for a {kind} joint"),
            ));
        }
        if present && !needed && !optional {
            return Err(FieldError::invalid(
                format!("{path}.{field}"),
                format!("does not apply to a {kind} joint"),
            ));
        }
    }
    for (field, value) in [("anchor", joint.anchor), ("anchor_b", joint.anchor_b)] {
        if let Some(v) = value {
            finite_vector(&format!("{path}.{field}"), v)?;
        }
    }
    for (field, value) in [("axis", joint.axis), ("axis2", joint.axis2)] {
        if let Some(v) = value {
            direction(&format!("{path}.{field}"), v)?;
        }
    }
    if let Some(length) = joint.length {
        positive(&format!("{path}.length"), length)?;
    }
    // How many coordinates take a limit and a motor.
    let (limited, motorised) = match joint.kind {
        K::Ball | K::Fixed => (0, 0),
        K::Hinge | K::Slider => (1, 1),
        K::Universal | K::Hinge2 => (2, 2),
        K::Distance => (1, 0),
    };
    let controls = [
        ("limits", 1, joint.limits.is_some(), limited),
        ("limits2", 2, joint.limits2.is_some(), limited),
        ("motor", 1, joint.motor.is_some(), motorised),
        ("motor2", 2, joint.motor2.is_some(), motorised),
    ];
    for (field, needs, present, available) in controls {
        if present && available < needs {
            return Err(FieldError::invalid(
                format!("{path}.{field}"),
                format!("does not apply to a {kind} joint"),
            ));
        }
    }
    for (field, limits) in [("limits", &joint.limits), ("limits2", &joint.limits2)] {
        if let Some(limits) = limits {
            let ordered = limits.lower <= limits.upper;
            if !(limits.lower.is_finite() && limits.upper.is_finite() && ordered) {
                return Err(FieldError::invalid(
                    format!("{path}.{field}"),
                    format!(
                        "lower and upper must be finite with lower <= upper, got [{}, {}]",
                        number(limits.lower),
                        number(limits.upper)
                    ),
                ));
            }
        }
    }
    for (field, motor) in [("motor", &joint.motor), ("motor2", &joint.motor2)] {
        if let Some(motor) = motor {
            finite(&format!("{path}.{field}.velocity"), motor.velocity)?;
            non_negative(&format!("{path}.{field}.max_force"), motor.max_force)?;
        }
    }
    if let Some(spring) = &joint.suspension {
        if joint.kind != K::Hinge2 {
            return Err(FieldError::invalid(
                format!("{path}.suspension"),
                format!("does not apply to a {kind} joint"),
            ));
        }
        non_negative(&format!("{path}.suspension.stiffness"), spring.stiffness)?;
        non_negative(&format!("{path}.suspension.damping"), spring.damping)?;
        if spring.stiffness + spring.damping == 0.0 {
            return Err(FieldError::invalid(
                format!("{path}.suspension"),
                "stiffness and damping cannot both be zero",
            ));
        }
    }
    if let Some(erp) = joint.erp {
        if !(erp.is_finite() && (0.0..=1.0).contains(&erp)) {
            return Err(FieldError::invalid(
                format!("{path}.erp"),
                format!("must be finite and in [0, 1], got {}", number(erp)),
            ));
        }
    }
    if let Some(cfm) = joint.cfm {
        non_negative(&format!("{path}.cfm"), cfm)?;
    }
    Ok(())
}

/// A shape type as the file spells it.
pub fn shape_kind_name(kind: ShapeKind) -> &'static str {
    match kind {
        ShapeKind::Box => "box",
        ShapeKind::Sphere => "sphere",
        ShapeKind::Capsule => "capsule",
        ShapeKind::Cylinder => "cylinder",
        ShapeKind::Plane => "plane",
        ShapeKind::Convex => "convex",
        ShapeKind::Mesh => "mesh",
        ShapeKind::Heightfield => "heightfield",
    }
}

fn kind_name(kind: BodyKindDesc) -> &'static str {
    match kind {
        BodyKindDesc::Dynamic => "dynamic",
        BodyKindDesc::Kinematic => "kinematic",
        BodyKindDesc::Static => "static",
    }
}

fn record(record: &RecordDesc) -> Check {
    if record.every == 0 {
        return Err(FieldError::invalid(
            "record.every",
            "must be at least 1, got 0",
        ));
    }
    Ok(())
}

fn render(render: &RenderDesc) -> Check {
    for (field, value) in [("render.eye", render.eye), ("render.target", render.target)] {
        if let Some(v) = value {
            finite_vector(field, v)?;
        }
    }
    if let Some(fov) = render.fov {
        if !(fov > 1.0 && fov < 170.0) {
            return Err(FieldError::invalid(
                "render.fov",
                format!("must lie in (1, 170) degrees, got {}", number(fov)),
            ));
        }
    }
    for (field, value) in [
        ("render.width", render.width),
        ("render.height", render.height),
    ] {
        if let Some(v) = value {
            if !(16..=4096).contains(&v) {
                return Err(FieldError::invalid(
                    field,
                    format!("must lie in [16, 4096] pixels, got {v}"),
                ));
            }
        }
    }
    if let Some(frames) = render.frames {
        if !(1..=10_000).contains(&frames) {
            return Err(FieldError::invalid(
                "render.frames",
                format!("must lie in [1, 10000], got {frames}"),
            ));
        }
    }
    Ok(())
}

pub(crate) fn rotation(
    path: &str,
    quaternion: Option<[f64; 4]>,
    axis_angle: Option<&AxisAngle>,
) -> Check {
    if quaternion.is_some() && axis_angle.is_some() {
        return Err(FieldError::invalid(
            format!("{path}.axis_angle"),
            "set either orientation or axis_angle, not both",
        ));
    }
    if let Some(q) = quaternion {
        // Not a length test: the squares of [1e-170, 0, 0, 0] underflow to zero, yet it is a
        // rotation like any other (the builder scales before normalising).
        if !(q.iter().all(|c| c.is_finite()) && q.iter().any(|c| *c != 0.0)) {
            return Err(FieldError::invalid(
                format!("{path}.orientation"),
                format!("must be a finite, non-zero quaternion [w, x, y, z], got {q:?}"),
            ));
        }
    }
    if let Some(rotation) = axis_angle {
        direction(&format!("{path}.axis_angle.axis"), rotation.axis)?;
        finite(&format!("{path}.axis_angle.degrees"), rotation.degrees)?;
    }
    Ok(())
}

pub(crate) fn direction(field: &str, v: Vector) -> Check {
    finite_vector(field, v)?;
    if v == [0.0; 3] {
        return Err(FieldError::invalid(
            field,
            "must be a non-zero direction, got [0, 0, 0]",
        ));
    }
    Ok(())
}

pub(crate) fn finite_vector(field: &str, v: Vector) -> Check {
    if v.iter().all(|c| c.is_finite()) {
        Ok(())
    } else {
        Err(FieldError::invalid(
            field,
            format!("every component must be finite, got {v:?}"),
        ))
    }
}

pub(crate) fn finite(field: &str, value: f64) -> Check {
    if value.is_finite() {
        Ok(())
    } else {
        Err(FieldError::invalid(
            field,
            format!("must be finite, got {}", number(value)),
        ))
    }
}

pub(crate) fn positive(field: &str, value: f64) -> Check {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(FieldError::invalid(
            field,
            format!("must be finite and > 0, got {}", number(value)),
        ))
    }
}

pub(crate) fn non_negative(field: &str, value: f64) -> Check {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(FieldError::invalid(
            field,
            format!("must be finite and >= 0, got {}", number(value)),
        ))
    }
}
