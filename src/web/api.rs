//! The JSON twins of the pages, under /api/: the same fields as the CLI's `--json` for the
//! same question, with a `status` of the reading they come from.
//!
//! `GET /api/overview`: `{"status": {...}, "queues": [...]}`; each queue has the fields of
//! `stats --watch --json` and a `history` of its last 60 minutes, one object per minute with
//! the fields of `stats --history --json`.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::value::RawValue;
use serde_json::Value;

use super::feed::Latest;
use super::App;
use crate::engine::history::{Step, Tally};
use crate::engine::snapshot::{stats_json, step_json, Snapshot, Watched};
use crate::engine::text::{agree, plural};

/// The reading a response comes from.
#[derive(Debug, serde::Serialize)]
pub struct Status {
    /// Redis, as `host:port`.
    pub server: String,
    /// Whether the last reading succeeded.
    pub ok: bool,
    /// The server's clock at the last good reading (unix seconds); null before one.
    pub time: Option<f64>,
    /// How long ago the last good reading was, in seconds; null before one.
    pub age_secs: Option<f64>,
    /// Why the last reading failed, on one line; null when it succeeded.
    pub error: Option<String>,
    /// For how long readings have failed, in seconds; null when the last succeeded.
    pub failing_secs: Option<f64>,
    /// How often Redis is read, in seconds.
    pub interval_secs: f64,
    /// Round trips of the last good reading.
    pub round_trips: Option<u64>,
    /// What the last good reading may lack, one line each (as `stats` warns).
    pub warnings: Vec<String>,
}

impl Status {
    pub fn of(app: &App, latest: &Latest) -> Status {
        let now = Instant::now();
        let snapshot = latest.snapshot.as_deref();
        Status {
            server: app.server.clone(),
            ok: latest.failure.is_none() && snapshot.is_some(),
            time: snapshot.map(|s| s.time),
            age_secs: snapshot.map(|s| now.saturating_duration_since(s.at).as_secs_f64()),
            error: latest.failure.as_ref().map(|f| f.message.clone()),
            failing_secs: latest
                .failure
                .as_ref()
                .map(|f| now.saturating_duration_since(f.since).as_secs_f64()),
            interval_secs: app.interval.as_secs_f64(),
            round_trips: snapshot.map(|s| s.round_trips),
            warnings: snapshot.map(warnings).unwrap_or_default(),
        }
    }
}

/// What a snapshot may lack, in the words `stats` warns with.
pub fn warnings(s: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    if s.incomplete {
        out.push(format!(
            "stopped discovering after {} (--max-keys); some queues may be missing",
            plural(s.keys_scanned, "key")
        ));
    }
    if s.untagged > 0 {
        out.push(format!(
            "skipped {} without a hash tag: in Redis Cluster {} keys are spread over slots",
            plural(s.untagged as u64, "queue"),
            agree(s.untagged as u64, "its", "their")
        ));
    }
    if s.unreadable > 0 {
        out.push(format!(
            "skipped {} whose keys this Redis user may not read (NOPERM)",
            plural(s.unreadable as u64, "queue")
        ));
    }
    out
}

#[derive(serde::Serialize)]
struct Overview<'a> {
    status: Status,
    queues: &'a RawValue,
}

/// `GET /api/overview`.
pub async fn overview(State(app): State<Arc<App>>) -> Response {
    let latest = app.latest.borrow().clone();
    let queues = latest.queues_json.get_or_init(|| queues_json(&latest));
    let body = serde_json::to_vec(&Overview {
        status: Status::of(&app, &latest),
        queues,
    })
    .unwrap_or_default();
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The queues of the latest snapshot as JSON, made once per snapshot.
fn queues_json(latest: &Latest) -> Box<RawValue> {
    let rows: Vec<Value> = match &latest.snapshot {
        Some(snapshot) => snapshot
            .stats
            .iter()
            .map(|s| {
                let (done_per_sec, failed_per_sec) = latest.rates(s);
                let mut v = stats_json(
                    s,
                    Some(Watched {
                        time: snapshot.time,
                        done_per_sec,
                        failed_per_sec,
                    }),
                );
                v["history"] = history_json(snapshot, &s.queue).into();
                v
            })
            .collect(),
        None => Vec::new(),
    };
    serde_json::value::to_raw_value(&rows).unwrap_or_default()
}

/// A queue's minutes as `stats --history --json` steps; a minute that could not be read has
/// null counts.
fn history_json(snapshot: &Snapshot, queue: &str) -> Vec<Value> {
    let Some(minutes) = snapshot.recent.get(queue) else {
        return Vec::new();
    };
    minutes
        .iter()
        .enumerate()
        .map(|(i, minute)| {
            let step = Step {
                start: snapshot.first_minute + 60 * i as i64,
                tally: minute.clone().unwrap_or_else(Tally::default),
            };
            let mut v = step_json(queue, &step, 60);
            if minute.is_none() {
                for field in ["done", "failed", "retried", "dead", "timed_runs", "run_ms"] {
                    v[field] = Value::Null;
                }
            }
            v
        })
        .collect()
}
