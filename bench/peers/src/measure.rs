//! Timing of a run step by step, within a budget.

use std::time::{Duration, Instant};

/// Steps of [`Timing::early_median_ms`]: one second of simulated time.
pub const EARLY_STEPS: usize = 60;

/// When a run stops before its planned steps: the exact steppers on the large scenes (S1, S2)
/// solve one dense LCP per island, `O(n^3)` in its rows, and would take hours.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Stop once the run has taken this long.
    pub wall: Duration,
    /// Stop after a step that took longer than this.
    pub slow_step: Duration,
}

impl Budget {
    /// No limit.
    pub const NONE: Budget = Budget {
        wall: Duration::MAX,
        slow_step: Duration::MAX,
    };
}

/// How a run went.
#[derive(Debug, Clone)]
pub struct Timing {
    /// Steps docs/scenes.md asks for.
    pub planned: usize,
    /// Steps taken.
    pub done: usize,
    /// Median wall time of one step, ms.
    pub median_ms: f64,
    /// Median over the first [`EARLY_STEPS`] steps (or all, if fewer ran), ms: the one
    /// figure every run of a scene has in common, whether or not it went on (or fell apart).
    pub early_median_ms: f64,
    /// CPU time of the running thread per step, mean over the steps taken, ms (NaN if the
    /// clock is unavailable): a check on the wall-time figures when the machine is shared.
    pub cpu_mean_ms: f64,
    /// Why the run stopped early, if it did.
    pub stopped: Option<String>,
}

impl Timing {
    /// Whether every planned step ran.
    pub fn complete(&self) -> bool {
        self.done == self.planned
    }
}

/// Runs `step(k)` for k = 0..planned, timing each call, until the budget runs out or a step
/// fails (its error becomes the stop reason). `step` may also return `Ok(Some(reason))` to
/// stop before doing any work (a predicted overrun).
pub fn run<F>(planned: usize, budget: Budget, mut step: F) -> Timing
where
    F: FnMut(usize) -> Result<Option<String>, String>,
{
    let mut times = Vec::with_capacity(planned);
    let cpu_start = thread_cpu_ns();
    let start = Instant::now();
    let mut stopped = None;
    for k in 0..planned {
        let clock = Instant::now();
        match step(k) {
            Ok(None) => {}
            Ok(Some(reason)) => {
                stopped = Some(reason);
                break;
            }
            Err(error) => {
                stopped = Some(format!("step {k} failed: {error}"));
                break;
            }
        }
        let took = clock.elapsed();
        times.push(took.as_secs_f64() * 1e3);
        if k + 1 < planned {
            if took > budget.slow_step {
                stopped = Some(format!(
                    "stopped after step {}: one step took {:.1} s",
                    k + 1,
                    took.as_secs_f64()
                ));
                break;
            }
            if start.elapsed() > budget.wall {
                stopped = Some(format!(
                    "stopped after {} steps: {:.0} s budget",
                    k + 1,
                    budget.wall.as_secs_f64()
                ));
                break;
            }
        }
    }
    let cpu_ns = match (cpu_start, thread_cpu_ns()) {
        (Some(a), Some(b)) if !times.is_empty() => (b - a) as f64,
        _ => f64::NAN,
    };
    let cpu_mean_ms = cpu_ns / 1e6 / times.len() as f64;
    let mut early: Vec<f64> = times.iter().take(EARLY_STEPS).copied().collect();
    Timing {
        cpu_mean_ms,
        planned,
        done: times.len(),
        early_median_ms: median(&mut early),
        median_ms: median(&mut times),
        stopped,
    }
}

/// One timing from `runs` of the same run repeated (all non-empty): the median over the
/// runs of their median step (and of their first-60 median), the mean of their CPU means,
/// and the first run's step counts and stop reason (the runs are deterministic: every one
/// takes the same steps). A run's median step is one figure of a few tens of milliseconds of
/// work, which a shared machine's slow stretch can move by a third; the median of several
/// runs, interleaved with the other engines' (`--rounds`), is not moved by one such stretch.
pub fn combine(runs: &[Timing]) -> Timing {
    let mut medians: Vec<f64> = runs.iter().map(|t| t.median_ms).collect();
    let mut early: Vec<f64> = runs.iter().map(|t| t.early_median_ms).collect();
    let cpu = runs.iter().map(|t| t.cpu_mean_ms).sum::<f64>() / runs.len() as f64;
    Timing {
        median_ms: median(&mut medians),
        early_median_ms: median(&mut early),
        cpu_mean_ms: cpu,
        ..runs[0].clone()
    }
}

/// The smallest and largest median step among `runs`.
pub fn spread(runs: &[Timing]) -> (f64, f64) {
    runs.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| {
            (lo.min(t.median_ms), hi.max(t.median_ms))
        })
}

/// CPU time of this thread, ns (through the C shim's `clock_gettime`).
fn thread_cpu_ns() -> Option<i64> {
    // SAFETY: a plain clock read.
    let ns = unsafe { crate::ode::ffi::peers_thread_cpu_ns() };
    (ns >= 0).then_some(ns)
}

/// Median of `values` (NaN for none); reorders them.
pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        0.5 * (values[mid - 1] + values[mid])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }

    #[test]
    fn repeated_runs_combine_to_the_median_of_their_medians() {
        let timing = |median_ms, early_median_ms| Timing {
            planned: 10,
            done: 10,
            median_ms,
            early_median_ms,
            cpu_mean_ms: median_ms,
            stopped: None,
        };
        // One run in a slow stretch of the machine does not move the figure.
        let runs = [timing(1.0, 2.0), timing(1.6, 2.1), timing(1.1, 1.9)];
        let combined = combine(&runs);
        assert_eq!(combined.median_ms, 1.1);
        assert_eq!(combined.early_median_ms, 2.0);
        assert!((combined.cpu_mean_ms - 3.7 / 3.0).abs() < 1e-12);
        assert_eq!((combined.done, combined.planned), (10, 10));
        assert_eq!(spread(&runs), (1.0, 1.6));
    }

    #[test]
    fn a_failing_step_stops_the_run_and_is_named() {
        let timing = run(10, Budget::NONE, |k| {
            if k == 3 {
                Err("boom".into())
            } else {
                Ok(None)
            }
        });
        assert_eq!(timing.done, 3);
        assert_eq!(timing.stopped.as_deref(), Some("step 3 failed: boom"));
        let whole = run(5, Budget::NONE, |_| Ok(None));
        assert!(whole.complete() && whole.stopped.is_none());
    }
}
