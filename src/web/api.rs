//! The JSON twins of the pages, under /api/: the same fields as the CLI's `--json` for the
//! same question, with a `status` of the reading they come from.
//!
//! `GET /api/overview?offset=N&limit=N&q=TEXT`: `{"status": {...}, "queues": [...]}`, the
//! page of queues `/` shows with the same query; each queue has the fields of
//! `stats --watch --json` and a `history` of its last 60 minutes, one object per minute with
//! the fields of `stats --history --json`; `status` adds the page's `total`, `offset`,
//! `limit` and `next_offset`.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::feed::{self, Latest};
use super::pages::overview::{self, Paging};
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
    status: PageStatus,
    queues: &'a RawValue,
}

/// The status of a page of queues: the reading's, and which page of how many.
#[derive(Serialize)]
struct PageStatus {
    #[serde(flatten)]
    status: Status,
    /// The queues that match `q`, on every page.
    total: usize,
    offset: usize,
    limit: usize,
    /// The offset of the next page; null on the last.
    next_offset: Option<usize>,
}

/// `GET /api/overview`.
pub async fn overview(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    let paging = match Paging::parse(query.as_deref()) {
        Ok(paging) => paging,
        Err(message) => {
            let body = serde_json::json!({ "error": message }).to_string();
            return (
                StatusCode::BAD_REQUEST,
                [(header::CONTENT_TYPE, "application/json")],
                body,
            )
                .into_response();
        }
    };
    let latest = feed::fresh(&app, |latest| overview::history_read(&app, latest, &paging)).await;
    let queues = latest.answer(&paging.query(), || queues_json(&latest, &paging));
    let total = latest
        .snapshot
        .as_ref()
        .map_or(0, |s| overview::select(&s.stats, &paging).total);
    let body = serde_json::to_vec(&Overview {
        status: PageStatus {
            status: Status::of(&app, &latest),
            total,
            offset: paging.offset,
            limit: paging.limit,
            next_offset: paging.next_offset(total),
        },
        queues: &queues,
    })
    .unwrap_or_default();
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The queues of a page of the latest snapshot as JSON, made once per snapshot and page.
fn queues_json(latest: &Latest, paging: &Paging) -> Box<RawValue> {
    serde_json::value::to_raw_value(&Queues(latest, paging)).unwrap_or_default()
}

/// The queues of a page of a reading, written one by one as the JSON serializer asks for
/// them: each with the fields of `stats --watch --json`, then its history.
struct Queues<'a>(&'a Latest, &'a Paging);

impl Serialize for Queues<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let latest = self.0;
        let Some(snapshot) = &latest.snapshot else {
            return serializer.serialize_seq(Some(0))?.end();
        };
        let page = overview::select(&snapshot.stats, self.1);
        let mut seq = serializer.serialize_seq(Some(page.queues.len()))?;
        for s in page.queues {
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
                history: snapshot.recent.contains_key(&s.queue).then_some(History {
                    snapshot,
                    queue: &s.queue,
                }),
            })?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct Queue<'a> {
    #[serde(flatten)]
    counts: Value,
    /// Null while it is being read.
    history: Option<History<'a>>,
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
