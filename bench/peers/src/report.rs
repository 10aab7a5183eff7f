//! One run's result and the markdown table of all of them.

use crate::measure::Timing;
use crate::quality::Quality;
use crate::spec::SceneId;

/// Which of this engine's steppers a row is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Exact (Dantzig) steps: compared with Stiction's exact step.
    Exact,
    /// Iterative steps (and Rapier): compared with Stiction's iterative step.
    Iterative,
}

/// One engine on one scene.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The scene.
    pub scene: SceneId,
    /// Engine and stepper, as shown in the table.
    pub engine: String,
    /// What its time is compared with.
    pub kind: Kind,
    /// Whether this is one of this engine's own rows (the reference of the ratio).
    pub ours: bool,
    /// Timing, `None` if the run could not start.
    pub timing: Option<Timing>,
    /// Quality figures at the last step taken.
    pub quality: Option<Quality>,
    /// Anything a reader must know (failures, budget stops, missing builders).
    pub notes: Vec<String>,
}

impl RunResult {
    /// A row for a run that could not take place.
    pub fn unavailable(scene: SceneId, engine: &str, kind: Kind, ours: bool, why: String) -> Self {
        Self {
            scene,
            engine: engine.to_string(),
            kind,
            ours,
            timing: None,
            quality: None,
            notes: vec![why],
        }
    }
}

/// A time in ms with as many digits as its size warrants.
pub fn ms(v: f64) -> String {
    if !v.is_finite() {
        "-".into()
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else if v >= 0.01 {
        format!("{v:.3}")
    } else {
        format!("{v:.5}")
    }
}

/// The markdown table: per scene and engine, the median ms/step, its ratio to Stiction's
/// time of the same kind (exact with exact; iterative and Rapier with iterative; S5 with
/// Stiction's default mode), the median of the first 60 steps, the mean CPU time per step,
/// the steps run, the quality
/// figures and notes. The reference rows are looked up in `references`.
pub fn markdown(results: &[RunResult], references: &[RunResult]) -> String {
    let mut out = String::from(
        "| scene | engine | ms/step (median) | time / Stiction's | ms/step, first 60 steps | CPU ms/step (mean) | steps | quality at the last step | notes |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |\n",
    );
    for r in results {
        // The same kind of step; for S5 (no rows, both steppers alike) the first row of ours.
        let reference = references
            .iter()
            .find(|o| o.ours && o.scene == r.scene && o.kind == r.kind)
            .or_else(|| references.iter().find(|o| o.ours && o.scene == r.scene))
            .and_then(|o| o.timing.as_ref())
            .map(|t| t.median_ms);
        let early = r
            .timing
            .as_ref()
            .map_or("-".into(), |t| ms(t.early_median_ms));
        let cpu = r.timing.as_ref().map_or("-".into(), |t| ms(t.cpu_mean_ms));
        let (time, ratio, steps) = match &r.timing {
            Some(t) => {
                let ratio = match reference {
                    Some(base) if base.is_finite() && base > 0.0 && t.median_ms.is_finite() => {
                        format!("{:.2}", t.median_ms / base)
                    }
                    _ => "-".into(),
                };
                let steps = if t.complete() {
                    format!("{}", t.done)
                } else {
                    format!("{} of {}", t.done, t.planned)
                };
                (ms(t.median_ms), ratio, steps)
            }
            None => ("-".into(), "-".into(), "-".into()),
        };
        let ran = r.timing.as_ref().is_some_and(|t| t.done > 0);
        let quality = match r.quality {
            Some(q) if ran => q.to_string(),
            _ => "-".into(),
        };
        let mut notes = r.notes.clone();
        if let Some(reason) = r.timing.as_ref().and_then(|t| t.stopped.clone()) {
            notes.insert(0, reason);
        }
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.scene.label(),
            r.engine,
            time,
            ratio,
            early,
            cpu,
            steps,
            quality,
            notes.join("; ").replace('|', "/")
        ));
    }
    out
}
