//! `/`: the queues (those named on the command line, or every queue found) a page at a time,
//! in the order `stats` lists them, with the counts `stats` prints and the rates of
//! `stats --watch`, then a card per queue of the page with the charts of its last hour.
//! `?offset=N&limit=N&q=TEXT` chooses the page and keeps the queues whose name holds TEXT.
//! Its JSON twin is `/api/overview` with the same query; app.js polls it and updates the page
//! in place, which without scripts shows the reading it was served with.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use maud::{html, Markup};

use super::chart::{self, Minute};
use super::{layout, respond, Shown};
use crate::engine::queues::{Count, QueueStats};
use crate::engine::text::{plural, thousands};
use crate::web::feed::{self, Latest};
use crate::web::App;

/// Queues a page shows unless `limit` says otherwise.
pub const DEFAULT_LIMIT: usize = 50;

/// The most queues a page shows.
pub const MAX_LIMIT: usize = 500;

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

/// What a queue whose history is still being read says instead of its charts.
pub const NOT_READ: &str = "reading the last hour...";

/// Which queues a page shows: `?offset=N&limit=N&q=TEXT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paging {
    /// Queues skipped, of those that match.
    pub offset: usize,
    /// Queues shown, at most.
    pub limit: usize,
    /// Only the queues whose name holds this text, exactly (as `--grep`); None: every one.
    pub q: Option<String>,
}

impl Default for Paging {
    fn default() -> Paging {
        Paging {
            offset: 0,
            limit: DEFAULT_LIMIT,
            q: None,
        }
    }
}

impl Paging {
    /// The paging of a URL's query (`offset=50&limit=50&q=mail`): the parameters it does not
    /// give keep their defaults, an empty `q` is none, others are ignored; a value that is
    /// not one is refused in words.
    pub fn parse(query: Option<&str>) -> Result<Paging, String> {
        let mut paging = Paging::default();
        for (name, value) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
            match name.as_ref() {
                "offset" => {
                    paging.offset = value.trim().parse().map_err(|_| {
                        format!("offset: expected a whole number of 0 or more, got {value:?}")
                    })?;
                }
                "limit" => {
                    paging.limit = value
                        .trim()
                        .parse()
                        .ok()
                        .filter(|n| (1..=MAX_LIMIT).contains(n))
                        .ok_or_else(|| {
                            format!("limit: expected a whole number from 1 to {MAX_LIMIT}, got {value:?}")
                        })?;
                }
                "q" => paging.q = Some(value.into_owned()).filter(|q| !q.is_empty()),
                _ => {}
            }
        }
        Ok(paging)
    }

    /// The query of this paging, or of another offset of it: `offset=50&q=mail`, with
    /// `limit` when not the default.
    pub fn query_at(&self, offset: usize) -> String {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        query.append_pair("offset", &offset.to_string());
        if self.limit != DEFAULT_LIMIT {
            query.append_pair("limit", &self.limit.to_string());
        }
        if let Some(q) = &self.q {
            query.append_pair("q", q);
        }
        query.finish()
    }

    /// The query of this paging (see [`Paging::query_at`]).
    pub fn query(&self) -> String {
        self.query_at(self.offset)
    }

    /// Whether the page holds a queue of this name.
    fn matches(&self, name: &str) -> bool {
        self.q.as_deref().is_none_or(|q| name.contains(q))
    }

    /// The offset of the page after this one, if there is one.
    pub fn next_offset(&self, total: usize) -> Option<usize> {
        let next = self.offset.saturating_add(self.limit);
        (next < total).then_some(next)
    }

    /// The offset of the last page.
    fn last_offset(&self, total: usize) -> usize {
        total.saturating_sub(1) / self.limit * self.limit
    }
}

/// The queues of a page of a reading.
pub struct Page<'a> {
    /// The queues that match, on every page.
    pub total: usize,
    /// The queues of this page, in the order `stats` lists them.
    pub queues: Vec<&'a QueueStats>,
}

/// The page `paging` chooses of `stats`.
pub fn select<'a>(stats: &'a [QueueStats], paging: &Paging) -> Page<'a> {
    let mut total = 0;
    let mut queues = Vec::new();
    for s in stats.iter().filter(|s| paging.matches(&s.queue)) {
        if total >= paging.offset && queues.len() < paging.limit {
            queues.push(s);
        }
        total += 1;
    }
    Page { total, queues }
}

/// Whether `latest` holds the history of every queue of the page, telling the feed that the
/// page shows them (see [`feed::fresh`]).
pub fn history_read(app: &App, latest: &Latest, paging: &Paging) -> bool {
    let Some(snapshot) = &latest.snapshot else {
        return true;
    };
    let page = select(&snapshot.stats, paging);
    let read = |queue: &str| snapshot.recent.contains_key(queue);
    app.demand
        .want(page.queues.iter().map(|s| s.queue.as_str()), read);
    page.queues
        .iter()
        .all(|s| snapshot.recent.contains_key(&s.queue))
}

/// The path of a queue's page: `/queues/` and its name, percent-encoded as JavaScript's
/// encodeURIComponent does (app.js builds the same), so that a `/` is `%2F`.
pub fn queue_href(name: &str) -> String {
    let mut path = String::from("/queues/");
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            path.push(b as char);
        } else {
            path.push_str(&format!("%{b:02X}"));
        }
    }
    path
}

/// `GET /`.
pub async fn page(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    let paging = match Paging::parse(query.as_deref()) {
        Ok(paging) => paging,
        Err(message) => {
            let latest = app.latest.borrow().clone();
            let page = layout(
                &app,
                &latest,
                "Queues",
                "",
                html! {
                    h1 { "Queues" }
                    p.banner role="alert" { (Shown(&message)) }
                    p { a href="/" { "See the first page of queues." } }
                },
            );
            return (StatusCode::BAD_REQUEST, Html(page.into_string())).into_response();
        }
    };
    let latest = feed::fresh(&app, |latest| history_read(&app, latest, &paging)).await;
    respond(layout(
        &app,
        &latest,
        "Queues",
        &format!("/api/overview?{}", paging.query()),
        body(&latest, &paging),
    ))
}

fn body(latest: &Latest, paging: &Paging) -> Markup {
    let stats: &[QueueStats] = latest.snapshot.as_ref().map_or(&[], |s| &s.stats);
    let page = select(stats, paging);
    let warnings = latest
        .snapshot
        .as_deref()
        .map(crate::web::api::warnings)
        .unwrap_or_default();
    html! {
        h1 { "Queues" }
        form.filter role="search" method="get" action="/" {
            label for="q" { "Name holds" }
            input #q type="search" name="q" value=(paging.q.as_deref().unwrap_or_default())
                autocomplete="off" autocapitalize="off" spellcheck="false";
            @if paging.limit != DEFAULT_LIMIT {
                input type="hidden" name="limit" value=(paging.limit);
            }
            button type="submit" { "Filter" }
            @if paging.q.is_some() {
                a.clear href=(format!("/?{}", Paging { q: None, ..paging.clone() }.query_at(0))) { "every queue" }
            }
        }
        p #summary { (summary(latest, &page, paging)) }
        ul #warnings {
            @for w in &warnings {
                li { (Shown(w)) }
            }
            @for s in page.queues.iter().filter(|s| !s.wrong_type.is_empty()) {
                li { "queue " (Shown(&s.queue)) ": WRONGTYPE: " (Shown(&s.wrong_type.join(", "))) " holds the wrong type of key (counts shown as ?)" }
            }
        }
        (pager(paging, page.total))
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
                    @for s in &page.queues {
                        tr {
                            th scope="row" { a href=(queue_href(&s.queue)) { (Shown(&s.queue)) } }
                            @for ((label, _), cell) in COLUMNS[1..].iter().zip(cells(latest, s)) {
                                td data-label=(label) { (cell) }
                            }
                        }
                    }
                }
            }
        }
        h2 { "Last hour" }
        div #charts.cards {
            @for s in &page.queues {
                (card(latest, s))
            }
        }
        (pager(paging, page.total))
    }
}

/// The line above the table: which queues of how many the page shows.
fn summary(latest: &Latest, page: &Page, paging: &Paging) -> String {
    let holding = paging
        .q
        .as_deref()
        .map(|q| format!(" whose name holds \"{}\"", super::visible(q)))
        .unwrap_or_default();
    if latest.snapshot.is_none() {
        "not read yet".into()
    } else if page.total == 0 {
        match paging.q {
            None => "no queues found".into(),
            Some(_) => format!("no queue{holding}"),
        }
    } else if page.queues.is_empty() {
        format!(
            "no queues past {}{holding}",
            plural(page.total as u64, "queue")
        )
    } else if paging.offset == 0 && page.total <= paging.limit {
        format!("{}{holding}", plural(page.total as u64, "queue"))
    } else {
        format!(
            "{} to {} of {}{holding}",
            thousands(paging.offset as u64 + 1),
            thousands((paging.offset + page.queues.len()) as u64),
            plural(page.total as u64, "queue")
        )
    }
}

/// The links to the other pages: first, previous, next, last, and where this one is; none
/// when every queue fits on one.
fn pager(paging: &Paging, total: usize) -> Markup {
    let pages = total.div_ceil(paging.limit).max(1);
    let this = paging.offset / paging.limit + 1;
    let link = |offset: usize| format!("/?{}", paging.query_at(offset));
    let back = (paging.offset > 0).then(|| paging.offset.saturating_sub(paging.limit));
    let next = paging.next_offset(total);
    let last = paging.last_offset(total);
    html! {
        nav.pager aria-label="pages of queues" data-drawn=(format!("{total} {} {}", paging.offset, paging.limit))
            hidden[paging.offset == 0 && total <= paging.limit] {
            @match back {
                Some(_) => { a rel="first" href=(link(0)) { "first" } }
                None => { span.off aria-disabled="true" { "first" } }
            }
            @match back {
                Some(offset) => { a rel="prev" href=(link(offset)) { "previous" } }
                None => { span.off aria-disabled="true" { "previous" } }
            }
            span.where { "page " (thousands(this as u64)) " of " (thousands(pages as u64)) }
            @match next {
                Some(offset) => { a rel="next" href=(link(offset)) { "next" } }
                None => { span.off aria-disabled="true" { "next" } }
            }
            @match next {
                Some(_) => { a rel="last" href=(link(last)) { "last" } }
                None => { span.off aria-disabled="true" { "last" } }
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
    let read = latest
        .snapshot
        .as_ref()
        .and_then(|snap| snap.recent.get(&s.queue));
    let minutes: Vec<Minute> = read
        .map(|m| m.iter().map(|t| Minute::of(t.as_ref())).collect())
        .unwrap_or_default();
    html! {
        section.card {
            h3 { a href=(queue_href(&s.queue)) { (Shown(&s.queue)) } }
            @if read.is_none() {
                p.empty { (NOT_READ) }
            } @else if chart::any(&minutes) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(names: &[&str]) -> Vec<QueueStats> {
        names
            .iter()
            .map(|n| QueueStats {
                queue: n.to_string(),
                ..QueueStats::default()
            })
            .collect()
    }

    #[test]
    fn paging_takes_its_defaults_and_refuses_what_is_no_number() {
        assert_eq!(Paging::parse(None), Ok(Paging::default()));
        assert_eq!(
            Paging::parse(Some("offset=100&limit=20&q=mail+eu&x=1")),
            Ok(Paging {
                offset: 100,
                limit: 20,
                q: Some("mail eu".into())
            })
        );
        assert_eq!(Paging::parse(Some("q=")).map(|p| p.q), Ok(None));
        for bad in ["offset=-1", "offset=x", "limit=0", "limit=501", "limit="] {
            assert!(Paging::parse(Some(bad)).is_err(), "{bad}");
        }
        let p = Paging::parse(Some("q=a%26b%2Fc&limit=10")).unwrap();
        assert_eq!(p.query_at(30), "offset=30&limit=10&q=a%26b%2Fc");
        assert_eq!(Paging::default().query(), "offset=0");
    }

    #[test]
    fn a_page_is_a_slice_of_the_queues_that_match_in_their_order() {
        let all = stats(&["a1", "b1", "a2", "a3", "b2"]);
        let names = |p: &Page| p.queues.iter().map(|s| s.queue.clone()).collect::<Vec<_>>();
        let p = Paging {
            offset: 1,
            limit: 2,
            q: Some("a".into()),
        };
        let page = select(&all, &p);
        assert_eq!(
            (page.total, names(&page)),
            (3, vec!["a2".into(), "a3".into()])
        );
        assert_eq!(p.next_offset(3), None);
        assert_eq!(p.last_offset(3), 2);
        let page = select(&all, &Paging { offset: 9, ..p });
        assert_eq!((page.total, page.queues.len()), (3, 0));
    }

    #[test]
    fn a_queue_path_is_encoded_as_encode_uri_component_does() {
        assert_eq!(queue_href("mail"), "/queues/mail");
        assert_eq!(queue_href("a/b c"), "/queues/a%2Fb%20c");
        assert_eq!(
            queue_href("<x>\"'{t}\0\u{202e}"),
            "/queues/%3Cx%3E%22'%7Bt%7D%00%E2%80%AE"
        );
    }
}
