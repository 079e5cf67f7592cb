//! The charts of a queue's last minutes, drawn as SVG in the page: jobs done and failed per
//! minute (stacked bars), and run time p50, p95 and p99 per minute (lines on a log scale).
//! app.js draws the same from the API's numbers, with the same geometry: a change here is
//! a change there.

use maud::{html, Markup};

use crate::engine::history::{Tally, BOUNDS_MS};
use crate::engine::snapshot::PERCENTILES;
use crate::engine::text::millis;

/// The drawing's size, in the units of its viewBox.
const WIDTH: f64 = 300.0;
const HEIGHT: f64 = 80.0;

/// What the charts show of one minute.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Minute {
    pub done: u64,
    pub failed: u64,
    /// p50, p95 and p99 in milliseconds; None when no run was timed.
    pub percentiles: [Option<f64>; 3],
}

impl Minute {
    /// A minute of history (None: it could not be read, shown as empty).
    pub fn of(tally: Option<&Tally>) -> Minute {
        let Some(t) = tally else {
            return Minute::default();
        };
        let mut percentiles = [None; 3];
        for (p, (q, _)) in percentiles.iter_mut().zip(PERCENTILES) {
            // Past the last bound: drawn at it, as the JSON gives it.
            *p = t
                .percentile(q)
                .map(|ms| ms.min(*BOUNDS_MS.last().unwrap_or(&0) as f64));
        }
        Minute {
            done: t.completed,
            failed: t.failed,
            percentiles,
        }
    }
}

/// Whether any of the minutes holds anything: else there is no history to draw.
pub fn any(minutes: &[Minute]) -> bool {
    minutes
        .iter()
        .any(|m| m.done > 0 || m.failed > 0 || m.percentiles[0].is_some())
}

/// `{:.1}` without a trailing `.0`: coordinates, short.
fn num(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// Jobs done and failed per minute, oldest first: a bar per minute, failed above done.
pub fn counts(minutes: &[Minute]) -> Markup {
    let slot = WIDTH / minutes.len().max(1) as f64;
    let peak = minutes
        .iter()
        .map(|m| m.done + m.failed)
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let done: u64 = minutes.iter().map(|m| m.done).sum();
    let failed: u64 = minutes.iter().map(|m| m.failed).sum();
    let label = format!(
        "jobs done and failed per minute over the last {} minutes: {done} done, {failed} failed",
        minutes.len()
    );
    html! {
        svg.chart.counts viewBox=(format!("0 0 {} {}", WIDTH, HEIGHT)) preserveAspectRatio="none" role="img" aria-label=(label) {
            title { (label) }
            @for (i, m) in minutes.iter().enumerate() {
                @let x = i as f64 * slot;
                @let done_h = m.done as f64 / peak * HEIGHT;
                @let failed_h = m.failed as f64 / peak * HEIGHT;
                @if m.done > 0 {
                    rect.done x=(num(x)) y=(num(HEIGHT - done_h)) width=(num(slot * 0.8)) height=(num(done_h)) {}
                }
                @if m.failed > 0 {
                    rect.failed x=(num(x)) y=(num(HEIGHT - done_h - failed_h)) width=(num(slot * 0.8)) height=(num(failed_h)) {}
                }
            }
        }
    }
}

/// The scale of the run-time chart: the lowest and highest milliseconds drawn (log scale).
fn scale(minutes: &[Minute]) -> (f64, f64) {
    let values = || {
        minutes
            .iter()
            .flat_map(|m| m.percentiles.into_iter().flatten())
    };
    let low = values().fold(f64::INFINITY, f64::min);
    let high = values().fold(0.0, f64::max);
    if !low.is_finite() {
        return (1.0, 10.0);
    }
    let low = (low / 2.0).max(0.01);
    (low, (high * 1.25).max(low * 10.0))
}

/// Run time p50, p95 and p99 per minute: a line each, broken where no run was timed.
pub fn run_times(minutes: &[Minute]) -> Markup {
    let slot = WIDTH / minutes.len().max(1) as f64;
    let (low, high) = scale(minutes);
    let y = |ms: f64| {
        let f = (ms.max(low).ln() - low.ln()) / (high.ln() - low.ln());
        HEIGHT - f * HEIGHT
    };
    let peak = minutes
        .iter()
        .filter_map(|m| m.percentiles[2])
        .fold(None, |a: Option<f64>, v| Some(a.map_or(v, |a| a.max(v))));
    let label = format!(
        "run time p50, p95 and p99 per minute over the last {} minutes: p99 at most {}",
        minutes.len(),
        millis(peak)
    );
    html! {
        svg.chart.times viewBox=(format!("0 0 {} {}", WIDTH, HEIGHT)) preserveAspectRatio="none" role="img" aria-label=(label) {
            title { (label) }
            @for (p, (_, name)) in PERCENTILES.iter().enumerate() {
                @let d = line(minutes.iter().map(|m| m.percentiles[p].map(&y)), slot);
                @if !d.is_empty() {
                    path class=(name) d=(d) {}
                }
            }
        }
    }
}

/// The path through `points` (a minute each), a new piece after each gap.
fn line(points: impl Iterator<Item = Option<f64>>, slot: f64) -> String {
    let mut d = String::new();
    let mut drawing = false;
    for (i, point) in points.enumerate() {
        match point {
            Some(y) => {
                let x = i as f64 * slot + slot * 0.4;
                let command = if drawing { "L" } else { "M" };
                if !d.is_empty() {
                    d.push(' ');
                }
                d.push_str(&format!("{command}{} {}", num(x), num(y)));
                if !drawing {
                    // A minute alone shows as a dot (round caps).
                    d.push_str(" h0");
                }
                drawing = true;
            }
            None => drawing = false,
        }
    }
    d
}

/// The peak of the counts chart and of the run-time chart, in words.
pub fn peaks(minutes: &[Minute]) -> (String, String) {
    let counts = minutes.iter().map(|m| m.done + m.failed).max().unwrap_or(0);
    let p99 = minutes
        .iter()
        .filter_map(|m| m.percentiles[2])
        .fold(None, |a: Option<f64>, v| Some(a.map_or(v, |a| a.max(v))));
    (
        format!("at most {counts} a minute"),
        format!("p99 at most {}", millis(p99)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minute(done: u64, failed: u64, p: Option<f64>) -> Minute {
        Minute {
            done,
            failed,
            percentiles: [p, p.map(|v| v * 2.0), p.map(|v| v * 4.0)],
        }
    }

    #[test]
    fn bars_stack_failed_above_done_to_the_peak() {
        let svg = counts(&[minute(3, 1, None), minute(0, 0, None)]).into_string();
        // Two minutes of 150 units; the peak (4) fills the height.
        assert!(
            svg.contains(r#"<rect class="done" x="0" y="20" width="120" height="60">"#),
            "{svg}"
        );
        assert!(
            svg.contains(r#"<rect class="failed" x="0" y="0" width="120" height="20">"#),
            "{svg}"
        );
        assert_eq!(
            svg.matches("<rect").count(),
            2,
            "nothing for an empty minute"
        );
    }

    #[test]
    fn lines_break_where_no_run_was_timed() {
        assert_eq!(
            line([Some(1.0), Some(2.0), None, Some(3.0)].into_iter(), 10.0),
            "M4 1 h0 L14 2 M34 3 h0"
        );
        let svg = run_times(&[minute(1, 0, Some(10.0)), minute(0, 0, None)]).into_string();
        for class in ["p50", "p95", "p99"] {
            assert!(svg.contains(&format!(r#"<path class="{class}""#)), "{svg}");
        }
        assert!(!any(&[minute(0, 0, None)]));
        assert!(any(&[minute(0, 1, None)]));
    }
}
