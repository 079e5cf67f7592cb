//! `/`: every queue shown (those named on the command line, or every queue found) with the
//! counts `stats` prints and the rates of `stats --watch`, then a card per queue with the
//! charts of its last hour. Its JSON twin is `/api/overview`; app.js polls it and updates
//! the page in place, which without scripts shows the reading it was served with.

use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use maud::{html, Markup};

use super::chart::{self, Minute};
use super::{layout, respond, Shown};
use crate::engine::queues::{Count, QueueStats};
use crate::engine::text::plural;
use crate::web::feed::Latest;
use crate::web::App;

/// The columns of the table: the words of `stats` (lowercase), each with what it counts.
pub const COLUMNS: [(&str, &str); 12] = [
    ("queue", "the queue's name"),
    ("active", "jobs ready to run"),
    ("due", "scheduled jobs due now"),
    ("later", "jobs scheduled for later"),
    ("in flight", "jobs reserved by consumers"),
    ("dead", "jobs in the dead set"),
    ("consumers", "consumers alive (and expired)"),
    ("paused", "whether qctl consumers hold off"),
    ("done", "jobs acked by qctl consumers, ever"),
    ("failed", "failed runs in qctl consumers, ever"),
    ("done/s", "jobs done per second since the reading before"),
    (
        "failed/s",
        "failed runs per second since the reading before",
    ),
];

/// What a queue without history says instead of its charts.
pub const NO_HISTORY: &str = "no history: jobs run by Go consumers or none ran";

/// `GET /`.
pub async fn page(State(app): State<Arc<App>>) -> Response {
    let latest = app.latest.borrow().clone();
    respond(layout(
        &app,
        &latest,
        "Queues",
        "/api/overview",
        body(&latest),
    ))
}

fn body(latest: &Latest) -> Markup {
    let stats: &[QueueStats] = latest.snapshot.as_ref().map_or(&[], |s| &s.stats);
    let warnings = latest
        .snapshot
        .as_deref()
        .map(crate::web::api::warnings)
        .unwrap_or_default();
    html! {
        h1 { "Queues" }
        p #summary {
            @if latest.snapshot.is_none() {
                "not read yet"
            } @else if stats.is_empty() {
                "no queues found"
            } @else {
                (plural(stats.len() as u64, "queue"))
            }
        }
        ul #warnings {
            @for w in &warnings {
                li { (Shown(w)) }
            }
            @for s in stats.iter().filter(|s| !s.wrong_type.is_empty()) {
                li { "queue " (Shown(&s.queue)) ": WRONGTYPE: " (Shown(&s.wrong_type.join(", "))) " holds the wrong type of key (counts shown as ?)" }
            }
        }
        div.scroll {
            table #queues {
                thead {
                    tr {
                        @for (name, what) in COLUMNS {
                            th scope="col" title=(what) { (name) }
                        }
                    }
                }
                tbody {
                    @for s in stats {
                        tr {
                            th scope="row" { (Shown(&s.queue)) }
                            @for cell in cells(latest, s) {
                                td { (cell) }
                            }
                        }
                    }
                }
            }
        }
        h2 { "Last hour" }
        div #charts.cards {
            @for s in stats {
                (card(latest, s))
            }
        }
    }
}

/// The cells of a queue's row after its name, as `stats --watch` writes them.
fn cells(latest: &Latest, s: &QueueStats) -> Vec<String> {
    let consumers = match s.consumers_expired {
        Some(0) => count(s.consumers_alive),
        expired => format!("{}, {} expired", count(s.consumers_alive), count(expired)),
    };
    let (done_rate, failed_rate) = latest.rates(s);
    // `-` until a reading before tells the rate, `?` when the counter cannot be read.
    let rate = |r: Option<f64>, counter: Count| match (r, counter) {
        (Some(r), _) => format!("{r:.1}"),
        (None, None) => "?".to_string(),
        (None, Some(_)) => "-".to_string(),
    };
    vec![
        count(s.active),
        count(s.scheduled_due),
        count(s.scheduled_later),
        count(s.in_flight),
        count(s.dead),
        consumers,
        if s.paused { "yes" } else { "no" }.to_string(),
        count(s.completed),
        count(s.failed),
        rate(done_rate, s.completed),
        rate(failed_rate, s.failed),
    ]
}

/// A count as `stats` shows it: `?` when it could not be read.
fn count(c: Count) -> String {
    c.map_or("?".into(), |n| n.to_string())
}

/// A queue's card: its name and the charts of its last hour.
fn card(latest: &Latest, s: &QueueStats) -> Markup {
    let minutes: Vec<Minute> = latest
        .snapshot
        .as_ref()
        .and_then(|snap| snap.recent.get(&s.queue))
        .map(|m| m.iter().map(|t| Minute::of(t.as_ref())).collect())
        .unwrap_or_default();
    html! {
        section.card {
            h3 { (Shown(&s.queue)) }
            @if chart::any(&minutes) {
                @let (counts_peak, times_peak) = chart::peaks(&minutes);
                figure {
                    figcaption {
                        span.key.done { "done" } " and " span.key.failed { "failed" } " per minute, "
                        span.peak { (counts_peak) }
                    }
                    (chart::counts(&minutes))
                }
                figure {
                    figcaption {
                        "run time " span.key.p50 { "p50" } ", " span.key.p95 { "p95" } ", " span.key.p99 { "p99" } ", "
                        span.peak { (times_peak) }
                    }
                    (chart::run_times(&minutes))
                }
                p.axis { span { (minutes.len()) " minutes ago" } span { "now" } }
            } @else {
                p.empty { (NO_HISTORY) }
            }
        }
    }
}
