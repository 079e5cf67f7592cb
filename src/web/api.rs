//! The JSON twins of the pages, under /api/: the same fields as the CLI's `--json` for the
//! same question, with a `status` of the reading they come from.
//!
//! `GET /api/overview?offset=N&limit=N&q=TEXT`: `{"status": {...}, "queues": [...]}`, the
//! page of queues `/` shows with the same query; each queue has the fields of
//! `stats --watch --json` and a `history` of its last 60 minutes, one object per minute with
//! the fields of `stats --history --json`; `status` adds the page's `total`, `offset`,
//! `limit` and `next_offset`.
//!
//! `GET /api/queues/{queue}/jobs/{id}`: the job as `dead show --json` (`scheduled show`
//! for a scheduled one) gives it. `GET /api/health`: `doctor --json`'s and `check --json`'s
//! documents, with when they were read.
//!
//! A queue's: `GET /api/queues/{queue}` ([`queue`]), `GET /api/queues/{queue}/{state}`
//! ([`jobs`]), `GET /api/queues/{queue}/{dead,scheduled}/groups` ([`groups`]); a refusal is
//! `{"error": "..."}` with its status.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::feed::{self, Latest};
use super::pages::overview::{self, Paging};
use super::queue::{self as web_queue, Lister, Refusal};
use super::App;
use crate::engine::limits;
use crate::engine::snapshot::{stats_json, Snapshot, StepJson, Watched};
use crate::engine::tail::event_json;
use crate::engine::text::{agree, plural};
use crate::output::held_json;

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

/// A JSON response.
pub fn json_response(status: StatusCode, value: &impl Serialize) -> Response {
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

/// A refusal as JSON: `{"error": "..."}` with its status.
fn refused(refusal: Refusal) -> Response {
    let body =
        serde_json::to_vec(&serde_json::json!({ "error": refusal.message })).unwrap_or_default();
    (
        refusal.status,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

/// `GET /api/queues/{queue}`: `{"queue", "stats", "consumers", "inflight", "limits",
/// "events", "events_since", "events_more", "errors"}`: `stats` as `stats QUEUE --json` has
/// it (from the last reading; null before it counted the queue), `consumers` as `consumers
/// QUEUE --json`, `inflight` the jobs in flight as `inflight QUEUE --json` has them but for
/// the fields of their records, `limits` as `limit QUEUE --json`, `events` as `tail QUEUE
/// --no-follow --since 10m --json` writes them (but its first line), with `events_since` and
/// `events_more` (more happened than read). A part Redis refused to read is null, and
/// `errors` says why, by the name of the part.
pub async fn queue(State(app): State<Arc<App>>, Path(queue): Path<String>) -> Response {
    let keys = match web_queue::find(&app, &queue).await {
        Ok(keys) => keys,
        Err(refusal) => return refused(refusal),
    };
    let summary = match web_queue::summary(&app, &keys).await {
        Ok(s) => s,
        Err(e) => return refused(e.into()),
    };
    let mut errors = serde_json::Map::new();
    let mut failed = |part: &str, e: &crate::engine::Error| {
        errors.insert(part.into(), e.to_string().into());
        Value::Null
    };
    let (consumers, inflight) = match &summary.consumers {
        Ok(c) => {
            let described = c.seen.descriptions();
            let inflight: Vec<Value> = c
                .running
                .iter()
                .map(|job| {
                    held_json(
                        job,
                        described.get(job.consumer.as_str()).copied(),
                        c.seen.now,
                    )
                })
                .collect();
            (c.seen.json(&keys, app.orphan_after).into(), inflight.into())
        }
        Err(e) => (failed("consumers", e), Value::Null),
    };
    let limits = match &summary.limits {
        Ok((limits, usage)) => limits::json(&queue, limits, usage),
        Err(e) => failed("limits", e),
    };
    let (events, since, more) = match &summary.events {
        Ok(events) => (
            events
                .happened
                .iter()
                .map(|(time, happening)| event_json(&queue, *time, happening))
                .collect::<Vec<_>>()
                .into(),
            events.since.into(),
            events.more.into(),
        ),
        Err(e) => (failed("events", e), Value::Null, Value::Null),
    };
    let value = serde_json::json!({
        "queue": queue,
        "stats": summary.stats.as_ref().map(|s| stats_json(s, None)),
        "consumers": consumers,
        "inflight": inflight,
        "limits": limits,
        "events": events,
        "events_since": since,
        "events_more": more,
        "errors": errors,
    });
    json_response(StatusCode::OK, &value)
}

/// `GET /api/queues/{queue}/{state}?...`: a page of jobs, `{"jobs": [...], "total": N,
/// "offset": N, "limit": N, "next_offset": N or null}`, each job as its command's `--json`
/// writes it. Written as it is read, a chunk at a time: a page of large records is never
/// held whole. A failure of Redis after the first chunk ends the response short of its
/// closing brace, so it cannot be taken for a whole page.
pub async fn jobs(
    State(app): State<Arc<App>>,
    Path((queue, state)): Path<(String, String)>,
    RawQuery(query): RawQuery,
) -> Response {
    let Some(state) = web_queue::State::parse(&state) else {
        return refused(super::pages::queue::no_state(&state));
    };
    let keys = match web_queue::find(&app, &queue).await {
        Ok(keys) => keys,
        Err(refusal) => return refused(refusal),
    };
    let asked = match web_queue::ask(state, query.as_deref()) {
        Ok(asked) => asked,
        Err(refusal) => return refused(refusal),
    };
    let lister = match Lister::open(&app, &keys, state, &asked).await {
        Ok(lister) => lister,
        Err(e) => return refused(e.into()),
    };
    let body = futures_util::stream::unfold(Some((lister, true)), |step| async move {
        let (mut lister, first) = step?;
        let mut out = Vec::new();
        if first {
            out.extend_from_slice(b"{\"jobs\":[");
        }
        match lister.next().await {
            Ok(Some(chunk)) => {
                for (i, l) in chunk.iter().enumerate() {
                    if lister.shown > chunk.len() as u64 || i > 0 {
                        out.push(b',');
                    }
                    let _ = serde_json::to_writer(&mut out, &lister.json(l));
                }
                Some((Ok::<_, std::io::Error>(out), Some((lister, false))))
            }
            Ok(None) => {
                // The envelope's other fields after the jobs.
                let next = lister
                    .next_offset()
                    .map_or("null".to_string(), |n| n.to_string());
                let end = format!(
                    "],\"total\":{},\"offset\":{},\"limit\":{},\"next_offset\":{next}}}",
                    lister.total(),
                    lister.offset,
                    lister.limit
                );
                out.extend_from_slice(end.as_bytes());
                Some((Ok(out), None))
            }
            Err(e) => Some((Err(std::io::Error::other(e.to_string())), None)),
        }
    });
    (
        [(header::CONTENT_TYPE, "application/json")],
        axum::body::Body::from_stream(body),
    )
        .into_response()
}

/// `GET /api/queues/{queue}/{dead,scheduled}/groups?...`: as `dead groups --json`.
pub async fn groups(
    State(app): State<Arc<App>>,
    Path((queue, state)): Path<(String, String)>,
    RawQuery(query): RawQuery,
) -> Response {
    let Some(place) = web_queue::grouped(&state) else {
        return refused(Refusal::not_found(format!(
            "no groups of {state:?}: failures are grouped for dead and scheduled"
        )));
    };
    let keys = match web_queue::find(&app, &queue).await {
        Ok(keys) => keys,
        Err(refusal) => return refused(refusal),
    };
    let asked = match web_queue::ask_groups(query.as_deref()) {
        Ok(asked) => asked,
        Err(refusal) => return refused(refusal),
    };
    match web_queue::groups(&app, &keys, place, &asked).await {
        Ok(found) => {
            let shown = match asked.limit {
                0 => found.groups.len(),
                n => n,
            };
            json_response(StatusCode::OK, &found.json(&queue, place.key(&keys), shown))
        }
        Err(e) => refused(e.into()),
    }
}
