//! A refused step in the scene's own words: the engine's messages name bodies and joints by
//! handle (`Some(BodyHandle(0v0))`), which means nothing to the author of a scene file, so
//! the variants that carry handles are written again here with names. The engine's
//! `Display` stays as it is for Rust users, who hold the handles.

use stiction::{BodyHandle, JointHandle, WorldError};

/// `error` as the engine words it, with each body and joint named by `body` and `joint`
/// (which return e.g. `` `speck` ``).
pub fn describe(
    error: &WorldError,
    body: impl Fn(BodyHandle) -> String,
    joint: impl Fn(JointHandle) -> String,
) -> String {
    match error {
        WorldError::NonFinite {
            phase,
            body: Some(handle),
        } => format!(
            "non-finite value during the {phase} phase (body {})",
            body(*handle)
        ),
        WorldError::NonFinite { phase, body: None } => {
            format!("non-finite value during the {phase} phase")
        }
        WorldError::Integration {
            body: handle,
            source,
        } => format!("integration of body {} failed: {source}", body(*handle)),
        WorldError::StaleBody(handle) => {
            format!("body {} is no longer in the world", body(*handle))
        }
        WorldError::StaleJoint(handle) => {
            format!("joint {} is no longer in the world", joint(*handle))
        }
        other => other.to_string(),
    }
}

/// How [`describe`] names an element: by its scene name (`` `name` ``), or, for one the
/// scene does not list, by the engine's handle (the only name it has).
pub fn named<H: std::fmt::Debug>(handle: H, name: Option<&str>) -> String {
    match name {
        Some(name) => format!("`{name}`"),
        None => format!("{handle:?} (not in the scene)"),
    }
}

/// How [`describe`] names an element of a benchmark scene (`stiction::scenes`), which has
/// no names: by its place in the scene's list (`body 17`, as `stiction stress` names the
/// bodies its invariants catch).
pub fn listed<H: PartialEq + Copy + std::fmt::Debug>(list: &[H], handle: H) -> String {
    match list.iter().position(|&h| h == handle) {
        Some(i) => i.to_string(),
        None => named(handle, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stiction::math::Vec3;
    use stiction::{IntegrationError, RigidBodyBuilder, StepPhase, World};

    /// Real handles (of a removed body and joint) and a namer that knows them.
    fn handles() -> (BodyHandle, JointHandle) {
        let mut world = World::new();
        let a = world.add_body(RigidBodyBuilder::dynamic().build().unwrap());
        let joint = world.add_ball_joint(a, None, Vec3::ZERO).unwrap();
        (a, joint)
    }

    fn say(error: &WorldError, a: BodyHandle, j: JointHandle) -> String {
        describe(
            error,
            |h| named(h, (h == a).then_some("speck")),
            |h| named(h, (h == j).then_some("pivot")),
        )
    }

    #[test]
    fn handles_become_scene_names() {
        let (a, j) = handles();
        let cases = [
            (
                WorldError::NonFinite {
                    phase: StepPhase::Forces,
                    body: Some(a),
                },
                "non-finite value during the forces phase (body `speck`)",
            ),
            (
                WorldError::NonFinite {
                    phase: StepPhase::Solve,
                    body: None,
                },
                "non-finite value during the solve phase",
            ),
            (
                WorldError::Integration {
                    body: a,
                    source: IntegrationError::NonFiniteResult {
                        quantity: "orientation",
                    },
                },
                "integration of body `speck` failed: integration produced a non-finite orientation",
            ),
            (
                WorldError::StaleBody(a),
                "body `speck` is no longer in the world",
            ),
            (
                WorldError::StaleJoint(j),
                "joint `pivot` is no longer in the world",
            ),
            (
                WorldError::InvalidTimeStep { h: 0.0 },
                "time step must be finite and > 0, got 0",
            ),
        ];
        for (error, expected) in cases {
            let said = say(&error, a, j);
            assert_eq!(said, expected);
            assert!(!said.contains("Handle"), "{said}");
        }
    }

    #[test]
    fn benchmark_scenes_name_elements_by_their_place() {
        let (a, j) = handles();
        let error = WorldError::NonFinite {
            phase: StepPhase::Integration,
            body: Some(a),
        };
        let said = describe(&error, |h| listed(&[a], h), |h| listed(&[j], h));
        assert_eq!(
            said,
            "non-finite value during the integration phase (body 0)"
        );
        let said = describe(
            &WorldError::StaleJoint(j),
            |h| listed(&[a], h),
            |h| listed(&[], h),
        );
        assert_eq!(
            said,
            "joint JointHandle(0v0) (not in the scene) is no longer in the world"
        );
    }

    #[test]
    fn an_unlisted_handle_keeps_the_engines_name() {
        let (a, _) = handles();
        let said = describe(
            &WorldError::StaleBody(a),
            |h| named(h, None),
            |h| named(h, None),
        );
        assert_eq!(
            said,
            "body BodyHandle(0v0) (not in the scene) is no longer in the world"
        );
    }
}
