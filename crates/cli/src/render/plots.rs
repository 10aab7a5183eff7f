//! SVG plots of a run's statistics over time (plotters' SVG backend): energy, momentum,
//! penetration and joint error, and the LCP residual.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::render::csv::Table;

/// One curve: a legend label and the column it plots.
struct Curve {
    label: &'static str,
    column: &'static str,
    color: RGBColor,
}

/// One plot file.
struct PlotSpec {
    file: &'static str,
    title: &'static str,
    y_label: &'static str,
    log: bool,
    curves: Vec<Curve>,
}

fn specs() -> Vec<PlotSpec> {
    let curve = |label, column, color| Curve {
        label,
        column,
        color,
    };
    vec![
        PlotSpec {
            file: "energy.svg",
            title: "Energy",
            y_label: "J",
            log: false,
            curves: vec![
                curve("kinetic", "kinetic_energy", RED),
                curve("potential", "potential_energy", BLUE),
                curve("total", "energy", BLACK),
            ],
        },
        PlotSpec {
            file: "momentum.svg",
            title: "Linear and angular momentum",
            y_label: "kg m/s, kg m^2/s",
            log: false,
            curves: vec![
                curve("p_x", "momentum_x", RED),
                curve("p_y", "momentum_y", GREEN),
                curve("p_z", "momentum_z", BLUE),
                curve("L_x", "angular_momentum_x", MAGENTA),
                curve("L_y", "angular_momentum_y", CYAN),
                curve("L_z", "angular_momentum_z", BLACK),
            ],
        },
        PlotSpec {
            file: "penetration.svg",
            title: "Maximum penetration and joint error",
            y_label: "m",
            log: false,
            curves: vec![
                curve("max penetration", "max_penetration", RED),
                curve("max joint error", "max_joint_error", BLUE),
            ],
        },
        PlotSpec {
            file: "residual.svg",
            title: "Worst LCP residual per step",
            y_label: "normalised residual",
            log: true,
            curves: vec![curve("residual", "residual", BLACK)],
        },
    ]
}

/// Smallest value a logarithmic axis shows (exact solves reach zero).
const LOG_FLOOR: f64 = 1e-17;

/// Writes every plot of `stats` (a stats.csv table) into `dir`; returns the files written.
pub fn write_plots(stats: &Table, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let time = stats.column("time")?;
    let mut written = Vec::new();
    for spec in specs() {
        let path = dir.join(spec.file);
        let mut series = Vec::new();
        for curve in &spec.curves {
            let values = stats.column(curve.column)?;
            let points: Vec<(f64, f64)> = time
                .iter()
                .zip(values)
                .map(|(&t, v)| (t, if spec.log { v.max(LOG_FLOOR) } else { v }))
                .filter(|(t, v)| t.is_finite() && v.is_finite())
                .collect();
            series.push((curve, points));
        }
        draw(&spec, &series, &path).map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

type Series<'a> = (&'a Curve, Vec<(f64, f64)>);

fn draw(spec: &PlotSpec, series: &[Series], path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let all = series.iter().flat_map(|(_, p)| p.iter());
    let (mut t0, mut t1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for &(t, y) in all {
        t0 = t0.min(t);
        t1 = t1.max(t);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if !t0.is_finite() {
        (t0, t1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if t1 <= t0 {
        t1 = t0 + 1.0;
    }
    if spec.log {
        y0 = y0.max(LOG_FLOOR);
        y1 = y1.max(y0 * 10.0);
    } else {
        // A flat curve still gets a visible band around it.
        let pad = 0.05 * (y1 - y0).max(1e-9 * y1.abs().max(y0.abs()).max(1e-12));
        (y0, y1) = (y0 - pad, y1 + pad);
    }
    let root = SVGBackend::new(path, (720, 400)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(spec.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80);
    if spec.log {
        let mut chart = builder.build_cartesian_2d(t0..t1, (y0..y1).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc(spec.y_label)
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .draw()?;
        for (curve, points) in series {
            let color = curve.color;
            chart
                .draw_series(LineSeries::new(points.iter().copied(), color))?
                .label(curve.label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE)
            .draw()?;
    } else {
        let mut chart = builder.build_cartesian_2d(t0..t1, y0..y1)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc(spec.y_label)
            .y_label_formatter(&|v| format!("{v:.3e}"))
            .draw()?;
        for (curve, points) in series {
            let color = curve.color;
            chart
                .draw_series(LineSeries::new(points.iter().copied(), color))?
                .label(curve.label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE)
            .draw()?;
    }
    root.present()?;
    Ok(())
}
