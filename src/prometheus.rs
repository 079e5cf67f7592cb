//! The Prometheus text exposition format (version 0.0.4) of one reading of the queues: what
//! `qctl stats --prometheus` prints and `qctl metrics` serves at `/metrics`.

use std::fmt::Write as _;
use std::time::Duration;

use crate::engine::history;
use crate::engine::queues::QueueStats;

/// The Content-Type of the text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// One reading of Redis: `stats` is None when it failed, and then only `qctl_up 0` and the
/// scrape's duration are exposed.
pub struct Reading<'a> {
    pub stats: Option<&'a [QueueStats]>,
    pub duration: Duration,
}

/// The exposition text: every metric with its HELP and TYPE lines, one sample per queue (and
/// state). A count that could not be read (its key has the wrong type) has no sample.
pub fn render(reading: &Reading) -> String {
    let mut out = String::new();
    family(
        &mut out,
        "qctl_up",
        "gauge",
        "1 if qctl read Redis in this scrape, 0 if it could not (the error is on qctl's stderr).",
        [(
            Vec::new(),
            Some(f64::from(u8::from(reading.stats.is_some()))),
        )],
    );
    family(
        &mut out,
        "qctl_scrape_duration_seconds",
        "gauge",
        "How long reading Redis took in this scrape.",
        [(Vec::new(), Some(reading.duration.as_secs_f64()))],
    );
    let Some(stats) = reading.stats else {
        return out;
    };
    let count = |c: Option<u64>| c.map(|n| n as f64);
    let per_queue = |value: Of| {
        stats
            .iter()
            .map(|s| (vec![("queue", s.queue.as_str())], value(s)))
            .collect::<Vec<_>>()
    };
    let per_state = |states: [(&'static str, Of); 2]| {
        stats
            .iter()
            .flat_map(|s| {
                states
                    .iter()
                    .map(|(state, value)| {
                        (
                            vec![("queue", s.queue.as_str()), ("state", *state)],
                            value(s),
                        )
                    })
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    family(
        &mut out,
        "qctl_queue_active",
        "gauge",
        "Jobs ready to run (NAME:active).",
        per_queue(&|s| count(s.active)),
    );
    family(
        &mut out,
        "qctl_queue_scheduled",
        "gauge",
        "Scheduled jobs (delayed jobs and retries): state=\"due\" is due now, state=\"later\" is not due yet.",
        per_state([
            ("due", &|s| count(s.scheduled_due)),
            ("later", &|s| count(s.scheduled_later)),
        ]),
    );
    family(
        &mut out,
        "qctl_queue_scheduled_overdue_seconds",
        "gauge",
        "How long the earliest due scheduled job has waited to be moved to active; 0 when none is due.",
        per_queue(&|s| s.overdue_secs),
    );
    family(
        &mut out,
        "qctl_queue_in_flight",
        "gauge",
        "Jobs reserved by consumers (records in none of active, scheduled and dead).",
        per_queue(&|s| count(s.in_flight)),
    );
    family(
        &mut out,
        "qctl_queue_dead",
        "gauge",
        "Jobs that ran out of retries (NAME:dead).",
        per_queue(&|s| count(s.dead)),
    );
    family(
        &mut out,
        "qctl_consumers",
        "gauge",
        "Consumers by heartbeat: state=\"alive\" within --orphan-after, state=\"expired\" older.",
        per_state([
            ("alive", &|s| count(s.consumers_alive)),
            ("expired", &|s| count(s.consumers_expired)),
        ]),
    );
    family(
        &mut out,
        "qctl_queue_paused",
        "gauge",
        "1 while the queue is paused (NAME:paused exists), else 0.",
        per_queue(&|s| Some(f64::from(u8::from(s.paused)))),
    );
    family(
        &mut out,
        "qctl_queue_wrong_type_keys",
        "gauge",
        "Keys of the queue holding the wrong type of value; their counts have no sample.",
        per_queue(&|s| Some(s.wrong_type.len() as f64)),
    );
    family(
        &mut out,
        "qctl_jobs_completed_total",
        "counter",
        "Jobs acked by qctl consumers (NAME:stats completed).",
        per_queue(&|s| count(s.completed)),
    );
    family(
        &mut out,
        "qctl_jobs_failed_total",
        "counter",
        "Failed runs in qctl consumers (NAME:stats failed).",
        per_queue(&|s| count(s.failed)),
    );
    family(
        &mut out,
        "qctl_jobs_retried_total",
        "counter",
        "Failed runs in qctl consumers that were scheduled to run again (NAME:stats retried).",
        per_queue(&|s| s.totals.as_ref().map(|t| t.retried as f64)),
    );
    family(
        &mut out,
        "qctl_jobs_dead_total",
        "counter",
        "Jobs qctl consumers moved to the dead set (NAME:stats killed).",
        per_queue(&|s| s.totals.as_ref().map(|t| t.killed as f64)),
    );
    run_time_histogram(&mut out, stats);
    out
}

/// `qctl_job_run_seconds`: how long the handlers of qctl consumers ran, as a histogram over
/// the buckets of `NAME:stats` (every run since the queue began, succeeded or failed).
fn run_time_histogram(out: &mut String, stats: &[QueueStats]) {
    const NAME: &str = "qctl_job_run_seconds";
    header(
        out,
        NAME,
        "histogram",
        "How long the handlers of qctl consumers ran, succeeded or failed (NAME:stats).",
    );
    for s in stats {
        let Some(t) = &s.totals else { continue };
        let queue = ("queue", s.queue.as_str());
        let mut below = 0;
        for (i, n) in t.runs.iter().enumerate() {
            below += n;
            let le = match history::BOUNDS_MS.get(i) {
                Some(ms) => number(*ms as f64 / 1000.0),
                None => "+Inf".to_string(),
            };
            sample(
                out,
                &format!("{NAME}_bucket"),
                &[queue, ("le", &le)],
                below as f64,
            );
        }
        sample(
            out,
            &format!("{NAME}_sum"),
            &[queue],
            t.run_ms as f64 / 1000.0,
        );
        sample(out, &format!("{NAME}_count"), &[queue], below as f64);
    }
}

/// One value of a queue's counts, None when it is unknown.
type Of<'a> = &'a dyn Fn(&QueueStats) -> Option<f64>;

/// A sample's labels (name, value) and its value.
type Sample<'a> = (Vec<(&'a str, &'a str)>, Option<f64>);

/// One metric family: HELP, TYPE and its samples; samples without a value are left out.
fn family<'a>(
    out: &mut String,
    name: &str,
    kind: &str,
    help: &str,
    samples: impl IntoIterator<Item = Sample<'a>>,
) {
    header(out, name, kind, help);
    for (labels, value) in samples {
        if let Some(value) = value {
            sample(out, name, &labels, value);
        }
    }
}

/// The HELP and TYPE lines of a metric family.
fn header(out: &mut String, name: &str, kind: &str, help: &str) {
    // Writing to a String cannot fail.
    let _ = writeln!(out, "# HELP {name} {}", escape_help(help));
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// One sample line.
fn sample(out: &mut String, name: &str, labels: &[(&str, &str)], value: f64) {
    out.push_str(name);
    if !labels.is_empty() {
        out.push('{');
        for (i, (label, v)) in labels.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{label}=\"{}\"", escape_label(v));
        }
        out.push('}');
    }
    let _ = writeln!(out, " {}", number(value));
}

/// A label value: backslash, double quote and line feed escaped.
fn escape_label(value: &str) -> String {
    let mut s = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => s.push_str("\\\\"),
            '"' => s.push_str("\\\""),
            '\n' => s.push_str("\\n"),
            c => s.push(c),
        }
    }
    s
}

/// A HELP text: backslash and line feed escaped.
fn escape_help(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\n', "\\n")
}

/// A sample value as the format writes it: integers without a fraction, `+Inf`, `-Inf`,
/// `NaN`.
fn number(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else {
        v.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        assert_eq!(escape_label("{mail}:ü"), "{mail}:ü");
    }

    #[test]
    fn numbers_are_written_as_the_format_reads_them() {
        assert_eq!(number(12.0), "12");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(f64::INFINITY), "+Inf");
        assert_eq!(number(f64::NEG_INFINITY), "-Inf");
        assert_eq!(number(f64::NAN), "NaN");
    }

    #[test]
    fn a_failed_reading_exposes_only_up_and_duration() {
        let text = render(&Reading {
            stats: None,
            duration: Duration::from_millis(1500),
        });
        assert!(text.contains("\nqctl_up 0\n"), "{text}");
        assert!(
            text.contains("\nqctl_scrape_duration_seconds 1.5\n"),
            "{text}"
        );
        assert!(!text.contains("qctl_queue"), "{text}");
    }

    #[test]
    fn run_times_are_a_cumulative_histogram_in_seconds() {
        let mut totals = history::Tally {
            run_ms: 1234,
            ..Default::default()
        };
        totals.runs[history::bucket(15)] = 3;
        totals.runs[history::bucket(700)] = 1;
        totals.runs[history::BUCKETS - 1] = 1;
        let stats = [QueueStats {
            queue: "q".into(),
            totals: Some(totals),
            ..QueueStats::default()
        }];
        let text = render(&Reading {
            stats: Some(&stats),
            duration: Duration::ZERO,
        });
        for line in [
            "# TYPE qctl_job_run_seconds histogram",
            "qctl_job_run_seconds_bucket{queue=\"q\",le=\"0.01\"} 0",
            "qctl_job_run_seconds_bucket{queue=\"q\",le=\"0.02\"} 3",
            "qctl_job_run_seconds_bucket{queue=\"q\",le=\"0.5\"} 3",
            "qctl_job_run_seconds_bucket{queue=\"q\",le=\"1\"} 4",
            "qctl_job_run_seconds_bucket{queue=\"q\",le=\"3600\"} 4",
            "qctl_job_run_seconds_bucket{queue=\"q\",le=\"+Inf\"} 5",
            "qctl_job_run_seconds_sum{queue=\"q\"} 1.234",
            "qctl_job_run_seconds_count{queue=\"q\"} 5",
        ] {
            assert!(text.contains(&format!("{line}\n")), "{line} not in\n{text}");
        }
    }

    #[test]
    fn an_unknown_count_has_no_sample() {
        let stats = [QueueStats {
            queue: "q".into(),
            active: None,
            dead: Some(3),
            ..QueueStats::default()
        }];
        let text = render(&Reading {
            stats: Some(&stats),
            duration: Duration::ZERO,
        });
        assert!(
            text.contains("# TYPE qctl_queue_active gauge\n# HELP"),
            "{text}"
        );
        assert!(
            text.contains("\nqctl_queue_dead{queue=\"q\"} 3\n"),
            "{text}"
        );
    }
}
