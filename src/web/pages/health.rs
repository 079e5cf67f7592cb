//! `/health`: what `qctl doctor` finds for the server and each queue shown (every finding
//! with its severity, why it matters and its fix, grouped as doctor groups them) and what
//! `qctl check` reports with the page's thresholds. Read when asked, at most once per
//! interval whoever asks ([`crate::web::health`]); the page says when. Its JSON twin is
//! `/api/health` ([`crate::web::api::health`]).

use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use maud::{html, Markup};

use super::{layout, respond, segment, Shown};
use crate::engine::doctor::{self, Area, Finding};
use crate::engine::health::Severity;
use crate::engine::jobs::describe_time;
use crate::engine::text::{plural, shell_quote, span};
use crate::web::health::Reading;
use crate::web::App;

/// The health, read now or lately: of the queues named, or those of the feed's reading.
pub async fn read(app: &App) -> Arc<Reading> {
    let latest = app.latest.borrow().clone();
    app.health
        .read(&app.link, || {
            latest
                .snapshot
                .as_ref()
                .map(|s| s.stats.iter().map(|q| q.queue.clone()).collect())
                .unwrap_or_default()
        })
        .await
}

/// `GET /health`.
pub async fn page(State(app): State<Arc<App>>) -> Response {
    let reading = read(&app).await;
    let latest = app.latest.borrow().clone();
    respond(layout(&app, &latest, "Health", "", body(&app, &reading)))
}

/// The `qctl check` command line the page's check stands for.
pub fn check_line(app: &App) -> String {
    std::iter::once("qctl")
        .chain(app.connection.iter().map(String::as_str))
        .chain(app.health.check_words.iter().map(String::as_str))
        .map(shell_quote)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A severity's class in the style sheet.
fn class(s: Severity) -> &'static str {
    match s {
        Severity::Ok => "sev ok",
        Severity::Warning => "sev warning",
        Severity::Critical => "sev critical",
        Severity::Unknown => "sev unknown",
    }
}

fn body(app: &App, reading: &Reading) -> Markup {
    let findings = &reading.findings;
    let worst = doctor::worst(findings);
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let age = reading.at.elapsed().as_secs_f64();
    let checked = &reading.checked;
    html! {
        h1 { "Health" }
        p #health-read.updated {
            "read " (span(age)) " ago (" (describe_time(reading.time)) "), when asked and at most once every "
            (humantime::format_duration(app.health.every)) ", whoever asks: a doctor reads every record of every queue"
        }
        h2 { "Doctor" }
        p #doctor-summary {
            strong class=(class(worst)) { (worst.label()) } ": " (count(Severity::Critical)) " critical, " (count(Severity::Warning)) " warning, "
            (count(Severity::Unknown)) " unknown, " (count(Severity::Ok)) " OK"
        }
        @if reading.queues.is_empty() {
            p.note { "No queue to examine: only the server was." }
        }
        div #doctor {
            @for (heading, group) in groups(reading) {
                section.findings {
                    h3 { (heading) }
                    ul {
                        @for f in group {
                            (finding(f))
                        }
                    }
                }
            }
        }
        h2 { "Check" }
        p { "As " code #check-command { (Shown(&check_line(app))) } " reports:" }
        p #check-summary { (Shown(&checked.summary)) }
        @if !checked.queues.is_empty() {
            div.scroll {
                table #check {
                    thead { tr { th scope="col" { "queue" } th scope="col" { "status" } th scope="col" { "measures and notes" } } }
                    tbody {
                        @for v in &checked.queues {
                            tr {
                                th scope="row" { a href=(format!("/queues/{}", segment(&v.queue))) { (Shown(&v.queue)) } }
                                td { span class=(class(v.status)) { (v.status.label()) } }
                                td.measures { (Shown(&verdict_words(v))) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A queue's measures and notes, as `check` writes them after its status.
fn verdict_words(v: &crate::engine::health::Verdict) -> String {
    let mut parts: Vec<String> = v.measures.iter().map(|m| m.describe()).collect();
    parts.extend(v.notes.iter().cloned());
    parts.join("; ")
}

/// The checks whose samples are ids of jobs, shown as links to them.
const SAMPLES_ARE_IDS: [&str; 4] = [
    "ids-without-record",
    "records-in-no-state",
    "ids-in-two-states",
    "damaged-records",
];

/// The findings in doctor's order, under doctor's headings: the server, the rights of the
/// current user on a queue, a queue (with its records).
fn groups(reading: &Reading) -> Vec<(Markup, Vec<&Finding>)> {
    let mut out: Vec<(String, Markup, Vec<&Finding>)> = Vec::new();
    for f in &reading.findings {
        let queue = f.queue.as_deref().unwrap_or("");
        let key = format!("{:?} {:?} {queue:?}", f.area, f.node);
        if out.last().is_none_or(|(k, _, _)| *k != key) {
            let heading = match f.area {
                Area::Server => html! { "server " (Shown(f.node.as_deref().unwrap_or(""))) },
                Area::Rights => html! { "rights of the current user on queue " (Shown(queue)) },
                Area::Queue => {
                    let records = reading
                        .records
                        .iter()
                        .find(|(q, _)| q == queue)
                        .map(|(_, n)| *n);
                    html! {
                        "queue " a href=(format!("/queues/{}", segment(queue))) { (Shown(queue)) }
                        @if let Some(n) = records { " (" (plural(n, "record")) ")" }
                    }
                }
            };
            out.push((key, heading, Vec::new()));
        }
        if let Some((_, _, group)) = out.last_mut() {
            group.push(f);
        }
    }
    out.into_iter().map(|(_, h, g)| (h, g)).collect()
}

/// One finding: its severity and summary; unless OK, its key, samples, why it matters and
/// its fix.
fn finding(f: &Finding) -> Markup {
    html! {
        li.finding data-check=(f.check) {
            span class=(class(f.severity)) { (f.severity.label()) }
            div.body {
                span.summary { (Shown(&f.summary)) }
                @if f.severity != Severity::Ok {
                    @if let Some(key) = &f.key {
                        div.detail { "key: " code { (Shown(key)) } }
                    }
                    @if !f.samples.is_empty() {
                        div.detail {
                            "samples: "
                            @for (i, s) in f.samples.iter().enumerate() {
                                @if i > 0 { ", " }
                                @if let (Some(q), true) = (&f.queue, SAMPLES_ARE_IDS.contains(&f.check.as_str())) {
                                    a href=(format!("/queues/{}/jobs/{}", segment(q), segment(s))) { (Shown(s)) }
                                } @else {
                                    (Shown(s))
                                }
                            }
                            @if let Some(n) = f.count.filter(|n| *n as usize > f.samples.len()) {
                                " (and " (n as usize - f.samples.len()) " more)"
                            }
                        }
                    }
                    @if !f.explanation.is_empty() {
                        p.explanation { (Shown(&f.explanation)) }
                    }
                    @if let Some(fix) = &f.fix {
                        p.fix { "fix: " (Shown(fix)) }
                    }
                }
            }
        }
    }
}
