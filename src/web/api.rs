//! The JSON twins of the pages, under /api/: the same fields as the CLI's `--json` for the
//! same question, with a `status` of the reading they come from.
//!
//! `GET /api/overview`: `{"status": {...}, "queues": [...]}`; each queue has the fields of
//! `stats --watch --json` and a `history` of its last 60 minutes, one object per minute with
//! the fields of `stats --history --json`.
//!
//! `GET /api/queues/{queue}/jobs/{id}`: the job as `dead show --json` (`scheduled show`
//! for a scheduled one) gives it. `GET /api/health`: `doctor --json`'s and `check --json`'s
//! documents, with when they were read.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::feed::Latest;
use super::App;
use crate::engine::snapshot::{stats_json, Snapshot, StepJson, Watched};
use crate::engine::text::{agree, plural};

/// The reading a response comes from.
#[derive(Debug, Serialize)]
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

#[derive(Serialize)]
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
    serde_json::value::to_raw_value(&Queues(latest)).unwrap_or_default()
}

/// The queues of a reading, written one by one as the JSON serializer asks for them: each
/// with the fields of `stats --watch --json`, then its history.
struct Queues<'a>(&'a Latest);

impl Serialize for Queues<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let latest = self.0;
        let Some(snapshot) = &latest.snapshot else {
            return serializer.serialize_seq(Some(0))?.end();
        };
        let mut seq = serializer.serialize_seq(Some(snapshot.stats.len()))?;
        for s in &snapshot.stats {
            let (done_per_sec, failed_per_sec) = latest.rates(s);
            let counts = stats_json(
                s,
                Some(Watched {
                    time: snapshot.time,
                    done_per_sec,
                    failed_per_sec,
                }),
            );
            seq.serialize_element(&Queue {
                counts,
                history: History {
                    snapshot,
                    queue: &s.queue,
                },
            })?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct Queue<'a> {
    #[serde(flatten)]
    counts: Value,
    history: History<'a>,
}

/// A queue's minutes as `stats --history --json` steps, oldest first; a minute that could
/// not be read has null counts.
struct History<'a> {
    snapshot: &'a Snapshot,
    queue: &'a str,
}

impl Serialize for History<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let minutes = self.snapshot.recent.get(self.queue);
        let mut seq = serializer.serialize_seq(minutes.map(|m| m.len()))?;
        for (i, minute) in minutes.iter().flat_map(|m| m.iter()).enumerate() {
            let start = self.snapshot.first_minute + 60 * i as i64;
            seq.serialize_element(&StepJson::new(self.queue, start, 60, minute.as_ref()))?;
        }
        seq.end()
    }
}

/// A JSON response.
fn json_response(status: StatusCode, value: &impl Serialize) -> Response {
    let body = serde_json::to_vec(value).unwrap_or_default();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `GET /api/queues/{queue}/jobs/{id}`: as `dead show QUEUE ID --json` gives it (and
/// `scheduled show` a scheduled one: with `died` or `due` as its place gives it). One that cannot be shown: its status (404: no such queue or job)
/// and `{"error": "...", "acked": ...}` (`acked`: for a job not there, whether a qctl
/// consumer acked it; else null).
pub async fn job(
    State(app): State<Arc<App>>,
    Path((queue, id)): Path<(String, String)>,
) -> Response {
    match super::pages::job::load(&app, &queue, &id).await {
        Ok(mut shown) => {
            let score = shown.score();
            shown.entry.score = score.map(|(_, t)| t);
            let name = score.map_or("due", |(name, _)| name);
            json_response(
                StatusCode::OK,
                &crate::output::shown_json(&queue, &shown, name),
            )
        }
        Err(refused) => json_response(
            refused.status,
            &serde_json::json!({
                "error": refused.words,
                "acked": refused.gone.map(|g| g.acked),
            }),
        ),
    }
}

#[derive(Serialize)]
struct Health<'a> {
    read: Read<'a>,
    doctor: crate::engine::doctor::Document<'a>,
    check: &'a crate::engine::health::Checked,
}

/// When the health was read, of which queues, and how often it may be.
#[derive(Serialize)]
struct Read<'a> {
    /// When it was read (unix seconds, this host's clock).
    time: f64,
    age_secs: f64,
    /// At most one reading per this, whoever asks.
    every_secs: f64,
    /// The queues doctor examined.
    queues: &'a [String],
    /// The `qctl check` command line of `check`.
    check_command: String,
}

/// `GET /api/health`: `{"read": {...}, "doctor": {...}, "check": {...}}`, `doctor` as
/// `qctl doctor QUEUE... --json` gives it for the queues shown, `check` as `qctl check
/// --json` with the page's thresholds (`read.check_command`).
pub async fn health(State(app): State<Arc<App>>) -> Response {
    let reading = super::pages::health::read(&app).await;
    json_response(
        StatusCode::OK,
        &Health {
            read: Read {
                time: reading.time,
                age_secs: reading.at.elapsed().as_secs_f64(),
                every_secs: app.health.every.as_secs_f64(),
                queues: &reading.queues,
                check_command: super::pages::health::check_line(&app),
            },
            doctor: crate::engine::doctor::Document::of(&reading.findings, None),
            check: &reading.checked,
        },
    )
}
