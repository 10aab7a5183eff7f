//! `stiction run --dump-lcp STEPS`: every island problem of the chosen steps as a file in
//! the `stiction lcp solve` format, with the engine's own answer beside it.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;
use stiction::{RowSource, StepStats, World};

use crate::error::CliError;
use crate::scene::BuiltScene;

/// The run directory's folder of dumped problems.
pub const LCP_DIR: &str = "lcp";

/// Keys a dump file holds beside the problem's (`stiction lcp` ignores them when solving).
pub const DUMP_KEYS: [&str; 5] = ["scene", "step", "island", "rows", "engine"];

/// The steps whose problems are dumped (step 1 is the first step of the run).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StepSet(BTreeSet<u64>);

/// The most steps one `--dump-lcp` may name (a typo like `1-1000000000` is refused rather
/// than filling the disk).
const MAX_STEPS: u64 = 100_000;

impl StepSet {
    /// Whether step `step` is in the set.
    pub fn contains(&self, step: u64) -> bool {
        self.0.contains(&step)
    }

    /// Refuses a set naming a step outside the steps a run takes (`first..=last`), which
    /// would otherwise dump nothing for it without a word.
    pub fn check_within(&self, first: u64, last: u64) -> Result<(), String> {
        let outside: Vec<u64> = self
            .0
            .iter()
            .copied()
            .filter(|s| !(first..=last).contains(s))
            .collect();
        match outside.as_slice() {
            [] => Ok(()),
            [s, ..] => Err(format!(
                "step {s}{} outside the steps this run takes ({first} to {last})",
                if outside.len() > 1 {
                    format!(" and {} more", outside.len() - 1)
                } else {
                    String::new()
                }
            )),
        }
    }
}

/// Parses `5`, `1,10,20`, `100-120` or a mix (`1,5-7`).
pub fn parse_steps(text: &str) -> Result<StepSet, String> {
    let bad = |why: String| {
        Err(format!(
            "{why}; expected steps >= 1 as a list or range, e.g. 5, 1,10,20 or 100-120"
        ))
    };
    let number = |part: &str| -> Result<u64, String> {
        match part.trim().parse::<u64>() {
            Ok(0) => Err("step 0 is the initial state, not a step".to_string()),
            Ok(n) => Ok(n),
            Err(_) => Err(format!("`{}` is not a step number", part.trim())),
        }
    };
    let mut set = BTreeSet::new();
    for part in text.split(',') {
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (number(a), number(b)),
            None => (number(part), number(part)),
        };
        let (first, last) = match (first, last) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => return bad(e),
        };
        if first > last {
            return bad(format!("the range {first}-{last} is empty"));
        }
        if last - first >= MAX_STEPS || set.len() as u64 + (last - first) >= MAX_STEPS {
            return bad(format!("more than {MAX_STEPS} steps"));
        }
        set.extend(first..=last);
    }
    Ok(StepSet(set))
}

/// One row's meaning in a dumped problem.
#[derive(Serialize)]
struct RowInfo {
    /// "unbounded" (a joint's bilateral row), "friction" (bounded by a normal row's force,
    /// `findex`) or "bounded" (a contact's normal row, a joint limit or motor).
    kind: &'static str,
    /// The two bodies by scene name, "ground" for the static world.
    bodies: [String; 2],
    /// The contact the row belongs to, if a contact's.
    #[serde(skip_serializing_if = "Option::is_none")]
    contact: Option<ContactInfo>,
    /// The joint the row belongs to (by scene name) and the row's index among its rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    joint: Option<(String, usize)>,
}

/// Which contact a row is: its index among the step's contacts, which of its rows, and
/// where it is.
#[derive(Serialize)]
struct ContactInfo {
    /// Index into the step's contacts (`World::contacts`, contacts.csv's order).
    index: usize,
    /// "normal", "friction 1", "friction 2", ...
    row: String,
    /// The contact point, world frame, m.
    point: [f64; 3],
    /// The contact normal (from the first body towards the second), world frame.
    normal: [f64; 3],
    /// This row's direction (the normal, or a tangent of the contact frame under box or
    /// cone friction), world frame; absent for a polygonal cone's edge rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    direction: Option<[f64; 3]>,
}

/// The engine's answer to a dumped problem.
#[derive(Serialize)]
struct EngineAnswer<'a> {
    /// "exact" or "iterative".
    stepper: &'static str,
    /// The forces the step used (N or N m), row by row.
    lambda: &'a [f64],
    status: &'static str,
    /// The normalised residual the engine measured.
    residual: f64,
    /// Dantzig pivots (exact) or Gauss-Seidel sweeps (iterative; an exact solve's fallback
    /// sweeps are added to its pivots).
    iterations: usize,
    fell_back: bool,
    warm_started: bool,
    /// Wall time of the island's assembly and solve, s.
    seconds: f64,
}

#[derive(Serialize)]
struct Extra<'a> {
    scene: &'a str,
    step: u64,
    island: usize,
    rows: Vec<RowInfo>,
    engine: EngineAnswer<'a>,
}

/// Turns capturing on before a step of the set and off before the others.
pub fn prepare_step(world: &mut World, steps: &StepSet, step: u64) {
    let wanted = steps.contains(step);
    if world.captures_problems() != wanted {
        world.set_capture_problems(wanted);
    }
}

/// Writes the problems the world captured in step `step` under `out/lcp/`; returns their
/// names relative to `out`.
pub fn write_step(
    scene: &BuiltScene,
    stats: &StepStats,
    iterative: bool,
    out: &Path,
    step: u64,
) -> Result<Vec<String>, CliError> {
    let world = &scene.world;
    let problems = world.captured_problems();
    if problems.is_empty() {
        return Ok(Vec::new());
    }
    let dir = out.join(LCP_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| CliError::write(&dir, e))?;
    let mut names_by_slot = std::collections::HashMap::new();
    for body in &scene.bodies {
        names_by_slot.insert(body.handle.index(), body.name.as_str());
    }
    let name = |side: Option<usize>| match side {
        None => "ground".to_string(),
        Some(slot) => names_by_slot
            .get(&slot)
            .map_or_else(|| format!("body#{slot}"), |n| n.to_string()),
    };
    let joint_names: std::collections::HashMap<_, _> = scene
        .joints
        .iter()
        .map(|j| (j.handle, j.name.as_str()))
        .collect();
    let contacts = world.contacts();
    let sources = world.captured_row_sources();
    // A polygonal cone's friction rows run along its edges, not the frame's tangents.
    let polygon_edges = match world.settings().contacts.friction_model {
        stiction::FrictionModel::PolygonalCone { edges } => edges,
        _ => 0,
    };
    let describe = |source: Option<&RowSource>| -> (Option<ContactInfo>, Option<(String, usize)>) {
        match source {
            Some(&RowSource::Contact { contact, row }) => {
                let info = contacts.get(contact).map(|c| ContactInfo {
                    index: contact,
                    row: if row == 0 {
                        "normal".into()
                    } else {
                        format!("friction {row}")
                    },
                    point: c.geometry.point.to_array(),
                    normal: c.geometry.normal.to_array(),
                    direction: (row == 0 || (row < 3 && polygon_edges == 0))
                        .then(|| c.frame[row].to_array()),
                });
                (info, None)
            }
            Some(&RowSource::Joint { joint, row }) => {
                let name = joint_names
                    .get(&joint)
                    .map_or_else(|| format!("joint#{}", joint.index()), |n| n.to_string());
                (None, Some((name, row)))
            }
            _ => (None, None),
        }
    };
    let mut written = Vec::new();
    for (i, problem) in problems.iter().enumerate() {
        let island = world.captured_islands()[i];
        let (Some(report), Some(lambda)) = (
            stats.island_reports.get(island),
            world.captured_solutions().get(i),
        ) else {
            continue;
        };
        let rows = world
            .captured_row_bodies()
            .get(i)
            .map_or_else(Vec::new, |rows| {
                rows.iter()
                    .enumerate()
                    .map(|(r, [a, b])| {
                        let (contact, joint) = describe(sources.get(i).and_then(|s| s.get(r)));
                        RowInfo {
                            kind: if r < problem.nub {
                                "unbounded"
                            } else if problem.findex[r].is_some() {
                                "friction"
                            } else {
                                "bounded"
                            },
                            bodies: [name(*a), name(*b)],
                            contact,
                            joint,
                        }
                    })
                    .collect()
            });
        let extra = Extra {
            scene: &scene.name,
            step,
            island,
            rows,
            engine: EngineAnswer {
                stepper: if iterative { "iterative" } else { "exact" },
                lambda,
                status: report.status.as_str(),
                residual: report.residual,
                iterations: report.iterations,
                fell_back: report.fell_back,
                warm_started: report.warm_started,
                seconds: world
                    .captured_solve_times()
                    .get(i)
                    .map_or(0.0, |t| t.as_secs_f64()),
            },
        };
        let file = format!("{LCP_DIR}/step-{step:06}-island-{island:02}.json");
        let path = out.join(&file);
        let text = with_extra(&stiction_lcp::json::to_json(problem), &extra)
            .map_err(|e| CliError::write(&path, e))?;
        std::fs::write(&path, text).map_err(|e| CliError::write(&path, e))?;
        written.push(file);
    }
    Ok(written)
}

/// The problem's JSON object with `extra`'s keys appended.
fn with_extra(problem: &str, extra: &Extra) -> std::io::Result<String> {
    let body = problem.trim_end();
    let body = body
        .strip_suffix('}')
        .ok_or_else(|| std::io::Error::other("bad problem"))?;
    let extra = serde_json::to_string(extra).map_err(std::io::Error::other)?;
    // `extra` is an object: splice its members after the problem's.
    let members = &extra[1..extra.len() - 1];
    Ok(format!("{},\n  {members}\n}}\n", body.trim_end()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists_and_ranges() {
        let set = parse_steps("1,5-7, 10").unwrap();
        assert_eq!(set.0.into_iter().collect::<Vec<_>>(), vec![1, 5, 6, 7, 10]);
        for bad in ["", "0", "a", "5-3", "1-", "-2", "1,,2", "1-1000000000"] {
            assert!(parse_steps(bad).is_err(), "{bad}");
        }
        let set = parse_steps("3,8-9").unwrap();
        assert!(set.check_within(1, 9).is_ok());
        assert_eq!(
            set.check_within(1, 8).unwrap_err(),
            "step 9 outside the steps this run takes (1 to 8)"
        );
        assert_eq!(
            set.check_within(4, 7).unwrap_err(),
            "step 3 and 2 more outside the steps this run takes (4 to 7)"
        );
    }
}
