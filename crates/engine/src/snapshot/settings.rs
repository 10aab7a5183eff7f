//! The world settings as stored in a snapshot. Every struct is taken apart field by field
//! with an exhaustive pattern, so adding a setting to the engine fails to compile here
//! until the snapshot stores it too.

use super::invalid;
use crate::contact::ImpactModel;
use crate::contact::{ContactSettings, FrictionModel};
use crate::error::SnapshotError;
use crate::joint::curvature::CurvatureCorrection;
use crate::math::Vec3;
use crate::poststab::{PostStabilization, PostStabilizationMethod};
use crate::rows::Softness;
use crate::sleep::SleepSettings;
use crate::solver::settings::{ExactSettings, IterativeSettings, Solver};
use crate::step::settings::WorldSettings;
use serde::{Deserialize, Serialize};
use stiction_lcp::dantzig::DantzigOptions;
use stiction_lcp::pgs::PgsOptions;

#[derive(Serialize, Deserialize)]
pub(crate) struct SettingsRecord {
    gravity: Vec3,
    solver: SolverRecord,
    softness: SoftnessRecord,
    post_stabilization: PostStabilizationRecord,
    contacts: ContactSettingsRecord,
    sleep: SleepRecord,
    curvature: CurvatureRecord,
    /// Absent from snapshots written before the setting existed: off.
    #[serde(default)]
    time_phases: bool,
}

#[derive(Serialize, Deserialize, Clone, Copy)]
pub(crate) struct SoftnessRecord {
    erp: f64,
    cfm: f64,
}

impl From<Softness> for SoftnessRecord {
    fn from(Softness { erp, cfm }: Softness) -> Self {
        Self { erp, cfm }
    }
}

impl From<SoftnessRecord> for Softness {
    fn from(SoftnessRecord { erp, cfm }: SoftnessRecord) -> Self {
        Self { erp, cfm }
    }
}

#[derive(Serialize, Deserialize)]
enum SolverRecord {
    Exact {
        dantzig: DantzigRecord,
        fallback: IterativeRecord,
        dense_row_limit: u64,
        /// Absent from snapshots written before the option existed: simultaneous.
        #[serde(default)]
        sequential_impacts: bool,
    },
    Iterative(IterativeRecord),
}

#[derive(Serialize, Deserialize)]
struct DantzigRecord {
    tolerance: f64,
    pivot_tolerance: f64,
    max_pivots: Option<u64>,
    max_friction_passes: u64,
    exact_friction: bool,
    exact_friction_max_rows: u64,
    fallback: Option<PgsRecord>,
}

#[derive(Serialize, Deserialize)]
struct PgsRecord {
    omega: f64,
    max_iterations: u64,
    tolerance: f64,
    residual_tolerance: f64,
    coulomb_cone: bool,
}

#[derive(Serialize, Deserialize)]
struct IterativeRecord {
    iterations: u64,
    omega: f64,
    tolerance: f64,
    warm_start: bool,
    /// Absent from snapshots written before the setting existed: every island was swept.
    #[serde(default)]
    direct_bilateral: bool,
}

#[derive(Serialize, Deserialize)]
struct PostStabilizationRecord {
    enabled: bool,
    max_passes: u64,
    tolerance: f64,
    /// `None`: the direct method; `Some(sweeps)`: Gauss-Seidel.
    gauss_seidel_sweeps: Option<u64>,
    max_correction: f64,
    rotation_weight: f64,
}

#[derive(Serialize, Deserialize)]
struct ContactSettingsRecord {
    /// 0 box, 1 Coulomb cone, 2 polygonal cone with `edges`.
    friction_model: u8,
    edges: u64,
    prediction: f64,
    restitution_threshold: f64,
    post_stabilize: bool,
}

#[derive(Serialize, Deserialize)]
struct SleepRecord {
    enabled: bool,
    linear_threshold: f64,
    angular_threshold: f64,
    time_until_sleep: f64,
}

#[derive(Serialize, Deserialize)]
struct CurvatureRecord {
    enabled: bool,
    fade_angle: f64,
}

impl SettingsRecord {
    pub(crate) fn of(settings: &WorldSettings) -> Self {
        let WorldSettings {
            gravity,
            solver,
            softness,
            post_stabilization,
            contacts,
            sleep,
            curvature,
            time_phases,
        } = settings;
        Self {
            gravity: *gravity,
            solver: SolverRecord::of(solver),
            softness: (*softness).into(),
            post_stabilization: PostStabilizationRecord::of(post_stabilization),
            contacts: ContactSettingsRecord::of(contacts),
            sleep: SleepRecord::of(sleep),
            curvature: CurvatureRecord::of(curvature),
            time_phases: *time_phases,
        }
    }

    /// The settings, validated as [`crate::World::set_settings`] would.
    pub(crate) fn restore(self) -> Result<WorldSettings, SnapshotError> {
        let settings = WorldSettings {
            gravity: self.gravity,
            solver: self.solver.restore()?,
            softness: self.softness.into(),
            post_stabilization: self.post_stabilization.restore()?,
            contacts: self.contacts.restore()?,
            sleep: self.sleep.restore(),
            curvature: self.curvature.restore(),
            time_phases: self.time_phases,
        };
        settings
            .validate()
            .map_err(|e| invalid("settings", e.to_string()))?;
        Ok(settings)
    }
}

fn count(value: u64, field: &str) -> Result<usize, SnapshotError> {
    usize::try_from(value).map_err(|_| invalid(field, "count does not fit this machine"))
}

impl SolverRecord {
    fn of(solver: &Solver) -> Self {
        match solver {
            Solver::Exact(ExactSettings {
                dantzig,
                fallback,
                dense_row_limit,
                impacts,
            }) => SolverRecord::Exact {
                dantzig: DantzigRecord::of(dantzig),
                fallback: IterativeRecord::of(fallback),
                dense_row_limit: *dense_row_limit as u64,
                sequential_impacts: *impacts == ImpactModel::Sequential,
            },
            Solver::Iterative(iterative) => SolverRecord::Iterative(IterativeRecord::of(iterative)),
        }
    }

    fn restore(self) -> Result<Solver, SnapshotError> {
        Ok(match self {
            SolverRecord::Exact {
                dantzig,
                fallback,
                dense_row_limit,
                sequential_impacts,
            } => Solver::Exact(ExactSettings {
                dantzig: dantzig.restore()?,
                fallback: fallback.restore("settings.solver.fallback")?,
                // usize::MAX (always dense) is stored as u64::MAX: saturate on 32-bit.
                dense_row_limit: usize::try_from(dense_row_limit).unwrap_or(usize::MAX),
                impacts: if sequential_impacts {
                    ImpactModel::Sequential
                } else {
                    ImpactModel::Simultaneous
                },
            }),
            SolverRecord::Iterative(iterative) => {
                Solver::Iterative(iterative.restore("settings.solver")?)
            }
        })
    }
}

impl DantzigRecord {
    fn of(options: &DantzigOptions) -> Self {
        let DantzigOptions {
            tolerance,
            pivot_tolerance,
            max_pivots,
            max_friction_passes,
            exact_friction,
            exact_friction_max_rows,
            fallback,
        } = options;
        Self {
            tolerance: *tolerance,
            pivot_tolerance: *pivot_tolerance,
            max_pivots: max_pivots.map(|n| n as u64),
            max_friction_passes: *max_friction_passes as u64,
            exact_friction: *exact_friction,
            exact_friction_max_rows: *exact_friction_max_rows as u64,
            fallback: fallback.as_ref().map(PgsRecord::of),
        }
    }

    fn restore(self) -> Result<DantzigOptions, SnapshotError> {
        const FIELD: &str = "settings.solver.dantzig";
        let max_pivots = match self.max_pivots {
            Some(n) => Some(count(n, FIELD)?),
            None => None,
        };
        let fallback = match self.fallback {
            Some(pgs) => {
                let options = pgs.restore()?;
                options
                    .validate()
                    .map_err(|e| invalid("settings.solver.dantzig.fallback", e.to_string()))?;
                Some(options)
            }
            None => None,
        };
        Ok(DantzigOptions {
            tolerance: self.tolerance,
            pivot_tolerance: self.pivot_tolerance,
            max_pivots,
            max_friction_passes: count(self.max_friction_passes, FIELD)?,
            exact_friction: self.exact_friction,
            exact_friction_max_rows: count(self.exact_friction_max_rows, FIELD)?,
            fallback,
        })
    }
}

impl PgsRecord {
    fn of(options: &PgsOptions) -> Self {
        let PgsOptions {
            omega,
            max_iterations,
            tolerance,
            residual_tolerance,
            coulomb_cone,
        } = options;
        Self {
            omega: *omega,
            max_iterations: *max_iterations as u64,
            tolerance: *tolerance,
            residual_tolerance: *residual_tolerance,
            coulomb_cone: *coulomb_cone,
        }
    }

    fn restore(self) -> Result<PgsOptions, SnapshotError> {
        Ok(PgsOptions {
            omega: self.omega,
            max_iterations: count(self.max_iterations, "settings.solver.dantzig.fallback")?,
            tolerance: self.tolerance,
            residual_tolerance: self.residual_tolerance,
            coulomb_cone: self.coulomb_cone,
        })
    }
}

impl IterativeRecord {
    fn of(settings: &IterativeSettings) -> Self {
        let IterativeSettings {
            iterations,
            omega,
            tolerance,
            warm_start,
            direct_bilateral,
        } = settings;
        Self {
            iterations: *iterations as u64,
            omega: *omega,
            tolerance: *tolerance,
            warm_start: *warm_start,
            direct_bilateral: *direct_bilateral,
        }
    }

    fn restore(self, field: &str) -> Result<IterativeSettings, SnapshotError> {
        Ok(IterativeSettings {
            iterations: count(self.iterations, field)?,
            omega: self.omega,
            tolerance: self.tolerance,
            warm_start: self.warm_start,
            direct_bilateral: self.direct_bilateral,
        })
    }
}

impl PostStabilizationRecord {
    fn of(settings: &PostStabilization) -> Self {
        let PostStabilization {
            enabled,
            max_passes,
            tolerance,
            method,
            max_correction,
            rotation_weight,
        } = settings;
        Self {
            enabled: *enabled,
            max_passes: *max_passes as u64,
            tolerance: *tolerance,
            gauss_seidel_sweeps: match method {
                PostStabilizationMethod::Direct => None,
                PostStabilizationMethod::GaussSeidel { sweeps } => Some(*sweeps as u64),
            },
            max_correction: *max_correction,
            rotation_weight: *rotation_weight,
        }
    }

    fn restore(self) -> Result<PostStabilization, SnapshotError> {
        const FIELD: &str = "settings.post_stabilization";
        let method = match self.gauss_seidel_sweeps {
            None => PostStabilizationMethod::Direct,
            Some(sweeps) => PostStabilizationMethod::GaussSeidel {
                sweeps: count(sweeps, FIELD)?,
            },
        };
        Ok(PostStabilization {
            enabled: self.enabled,
            max_passes: count(self.max_passes, FIELD)?,
            tolerance: self.tolerance,
            method,
            max_correction: self.max_correction,
            rotation_weight: self.rotation_weight,
        })
    }
}

impl ContactSettingsRecord {
    fn of(settings: &ContactSettings) -> Self {
        let ContactSettings {
            friction_model,
            prediction,
            restitution_threshold,
            post_stabilize,
        } = settings;
        let (model, edges) = match friction_model {
            FrictionModel::Box => (0, 0),
            FrictionModel::CoulombCone => (1, 0),
            FrictionModel::PolygonalCone { edges } => (2, *edges as u64),
        };
        Self {
            friction_model: model,
            edges,
            prediction: *prediction,
            restitution_threshold: *restitution_threshold,
            post_stabilize: *post_stabilize,
        }
    }

    fn restore(self) -> Result<ContactSettings, SnapshotError> {
        const FIELD: &str = "settings.contacts.friction_model";
        let friction_model = match self.friction_model {
            0 => FrictionModel::Box,
            1 => FrictionModel::CoulombCone,
            2 => FrictionModel::PolygonalCone {
                edges: count(self.edges, FIELD)?,
            },
            other => return Err(invalid(FIELD, format!("unknown friction model {other}"))),
        };
        Ok(ContactSettings {
            friction_model,
            prediction: self.prediction,
            restitution_threshold: self.restitution_threshold,
            post_stabilize: self.post_stabilize,
        })
    }
}

impl SleepRecord {
    fn of(settings: &SleepSettings) -> Self {
        let SleepSettings {
            enabled,
            linear_threshold,
            angular_threshold,
            time_until_sleep,
        } = settings;
        Self {
            enabled: *enabled,
            linear_threshold: *linear_threshold,
            angular_threshold: *angular_threshold,
            time_until_sleep: *time_until_sleep,
        }
    }

    fn restore(self) -> SleepSettings {
        SleepSettings {
            enabled: self.enabled,
            linear_threshold: self.linear_threshold,
            angular_threshold: self.angular_threshold,
            time_until_sleep: self.time_until_sleep,
        }
    }
}

impl CurvatureRecord {
    fn of(settings: &CurvatureCorrection) -> Self {
        let CurvatureCorrection {
            enabled,
            fade_angle,
        } = settings;
        Self {
            enabled: *enabled,
            fade_angle: *fade_angle,
        }
    }

    fn restore(self) -> CurvatureCorrection {
        CurvatureCorrection {
            enabled: self.enabled,
            fade_angle: self.fade_angle,
        }
    }
}
