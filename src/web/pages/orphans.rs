//! Recovering the jobs of expired consumers from a queue's page (see [`crate::web::orphans`]):
//! `POST /queues/{queue}/orphans/preview` says which consumers and how many jobs, as `qctl
//! orphans` says it before its question, and asks; `POST /queues/{queue}/orphans/apply`
//! returns them and says what was moved and what was skipped. Both are refused, changing
//! nothing, unless the request comes from qctl web's own page ([`crate::web::change`]).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::Extension;
use maud::html;

use super::queue::page;
use super::Shown;
use crate::engine::text::{plural, span};
use crate::engine::QueueKeys;
use crate::web::change::{self, Session, MAX_FORM};
use crate::web::orphans;
use crate::web::queue::{self, queue_path, Refusal};
use crate::web::App;

/// The path the forms post to: `/queues/{queue}/orphans/{step}`.
pub fn orphans_path(queue_name: &str, step: &str) -> String {
    format!("{}/orphans/{step}", queue_path(queue_name))
}

async fn read_form(
    app: &App,
    queue_name: &str,
    session: &Session,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<QueueKeys, Refusal> {
    if body.len() > MAX_FORM {
        return Err(Refusal::bad("the form is too large"));
    }
    if let Some(refusal) = change::refusal(headers, app, session, &change::fields(body)) {
        return Err(refusal);
    }
    queue::find(app, queue_name).await
}

/// `POST /queues/{queue}/orphans/preview`.
pub async fn preview(
    State(app): State<Arc<App>>,
    Path(queue_name): Path<String>,
    Extension(session): Extension<Session>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let keys = match read_form(&app, &queue_name, &session, &headers, &body).await {
        Ok(keys) => keys,
        Err(refusal) => return change::refused(&app, refusal),
    };
    let (_, planned) = match orphans::plan(&app, &keys).await {
        Ok(plan) => plan,
        Err(e) => return change::refused(&app, e.into()),
    };
    let recoverable: Vec<&orphans::Planned> = planned.iter().filter(|p| p.skip.is_none()).collect();
    let jobs: u64 = recoverable.iter().filter_map(|p| p.in_flight).sum();
    let silent = humantime::format_duration(app.orphan_after).to_string();
    let question = format!(
        "return {} of {} silent for more than {silent} to {}?",
        plural(jobs, "job"),
        plural(recoverable.len() as u64, "consumer"),
        keys.active
    );
    let alive = recoverable
        .iter()
        .any(|p| p.age < crate::engine::consumers::LOOKS_ALIVE.as_secs_f64());
    let body = html! {
        @if planned.is_empty() {
            p.refusal role="status" { (Shown(&format!("no consumer of queue {queue_name:?} is silent for more than {silent}: nothing to recover"))) }
        } @else {
            ul.orphans {
                @for p in &planned {
                    li {
                        @match &p.skip {
                            Some(why) => { (Shown(&format!("would skip {}: {why}", p.key))) }
                            None => {
                                (Shown(&format!("{}: {}, heartbeat {} ago, {}", p.key, plural(p.in_flight.unwrap_or(0), "job"), span(p.age), p.host_pid)))
                            }
                        }
                    }
                }
            }
            @if alive {
                p.warning { "A heartbeat younger than 2m is normal for a running consumer (Go CurlyQ consumers beat every 60s): a live consumer whose jobs are returned loses them, and they may run twice." }
            }
            @if !recoverable.is_empty() {
                form.change.confirm method="post" action=(orphans_path(&queue_name, "apply")) {
                    input type="hidden" name="token" value=(app.changes.token(&session));
                    p.question { (Shown(&question)) }
                    button type="submit" autofocus { "Yes, return them" }
                    " " a href=(queue_path(&queue_name)) { "No, back to the queue" }
                }
                p.note {
                    "Each call looks at the heartbeat again: a consumer that beats meanwhile keeps its jobs. The same from a shell: "
                    code { (Shown(&format!("qctl orphans {} --orphan-after {silent} --yes", crate::engine::text::shell_quote(&queue_name)))) }
                }
            }
        }
    };
    page(
        &app,
        &queue_name,
        "Recover orphans",
        &orphans_path(&queue_name, "preview"),
        body,
    )
}

/// `POST /queues/{queue}/orphans/apply`.
pub async fn apply(
    State(app): State<Arc<App>>,
    Path(queue_name): Path<String>,
    Extension(session): Extension<Session>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let keys = match read_form(&app, &queue_name, &session, &headers, &body).await {
        Ok(keys) => keys,
        Err(refusal) => return change::refused(&app, refusal),
    };
    let path = orphans_path(&queue_name, "apply");
    let origin = change::origin(&headers, peer, "POST", &path, &change::fields(&body));
    let applied = match orphans::apply(&app, &keys, origin).await {
        Ok(applied) => applied,
        Err(e) => return change::refused(&app, e.into()),
    };
    let report = &applied.recovered.report;
    let body = html! {
        @for (consumer, n) in &report.recovered {
            p { (Shown(&format!("recovered {} of {consumer}", plural(*n, "job")))) }
        }
        @for (consumer, why) in report.skipped.iter().chain(&applied.skipped) {
            p.warning { (Shown(&format!("skipped {consumer}: {why}"))) }
        }
        p.done role="status" {
            (Shown(&format!("moved {} back to {}", plural(report.moved(), "job"), keys.active)))
        }
        @if let Some(e) = &applied.recovered.failure {
            p.refusal role="alert" {
                (Shown(&format!("cannot recover the orphans of queue {queue_name:?}: {e}")))
                @if applied.recovered.unconfirmed { "; the last call, up to 1,000 jobs, was sent and whether it took effect is not known" }
                "; do the same again to go on"
            }
        }
        @if let Some(warning) = &applied.not_recorded { p.warning { (Shown(warning)) } }
        p { a href=(queue_path(&queue_name)) { "Back to the queue." } }
    };
    page(&app, &queue_name, "Orphans recovered", &path, body)
}
