//! The pages of a bulk change (see [`crate::web::bulk`]): `POST
//! /queues/{queue}/{state}/preview` shows what the CLI's preview shows (how many jobs of
//! which set, a sample of ids, the ids given that are not there, the command line that does
//! the same) and asks, with a form that confirms; `POST /queues/{queue}/{state}/apply` makes
//! the change and says what was done and what was skipped and why, in the CLI's words. Both
//! are refused, changing nothing, unless the request comes from qctl web's own page
//! ([`crate::web::change`]).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::HeaderMap;
use axum::response::{Html, IntoResponse, Response};
use axum::Extension;
use maud::{html, Markup};

use super::{layout, Shown};
use crate::engine::bulk::Failed;
use crate::engine::text::{plural, shell_quote, thousands};
use crate::engine::QueueKeys;
use crate::web::bulk::{self, Asked};
use crate::web::change::{self, Session, MAX_FORM};
use crate::web::queue::{self, list_path, queue_path, Refusal, State as Listed};
use crate::web::App;

/// Ids reported one by one before only counting them, as the CLI does.
const MAX_REPORTED: usize = 50;

/// What both steps read first: the form, from the page itself, of a list that is one, of a
/// queue that is there.
async fn read_form(
    app: &App,
    queue: &str,
    state: &str,
    session: &Session,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<(QueueKeys, Asked), Refusal> {
    if body.len() > MAX_FORM {
        return Err(Refusal::bad("the form is too large"));
    }
    let form = change::fields(body);
    if let Some(refusal) = change::refusal(headers, app, session, &form) {
        return Err(refusal);
    }
    let Some(state) = Listed::parse(state) else {
        return Err(super::queue::no_state(state));
    };
    let keys = queue::find(app, queue).await?;
    let asked = bulk::ask(state, &form)?;
    Ok((keys, asked))
}

/// The hidden fields that carry the change to its next step.
fn carried(app: &App, session: &Session, asked: &Asked) -> Markup {
    html! {
        input type="hidden" name="token" value=(app.changes.token(session));
        input type="hidden" name="action" value=(asked.name);
        @for (name, value) in &asked.fields {
            input type="hidden" name=(name) value=(value);
        }
    }
}

/// The command line that makes the same change.
fn command(app: &App, queue: &str, asked: &Asked) -> String {
    asked
        .command(queue, &app.connection)
        .iter()
        .map(|w| shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

fn answer(app: &App, queue: &str, title: &str, body: Markup) -> Response {
    let latest = app.latest.borrow().clone();
    let page = layout(
        app,
        &latest,
        &format!("{title} - {queue}"),
        "",
        html! {
            h1 { "Queue " span.queue { a href=(queue_path(queue)) { (Shown(queue)) } } }
            h2.page { (title) }
            (body)
        },
    );
    Html(page.into_string()).into_response()
}

/// `POST /queues/{queue}/{state}/preview`.
pub async fn preview(
    State(app): State<Arc<App>>,
    Path((queue, state)): Path<(String, String)>,
    Extension(session): Extension<Session>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (keys, asked) = match read_form(&app, &queue, &state, &session, &headers, &body).await {
        Ok(read) => read,
        Err(refusal) => return change::refused(&app, refusal),
    };
    let seen = match bulk::preview(&app, &keys, &asked).await {
        Ok(seen) => seen,
        Err(e) => return change::refused(&app, e.into()),
    };
    let back = list_path(&queue, asked.state);
    let what = format!(
        "{} {} of {}",
        asked.verb(),
        plural(seen.count, "job"),
        seen.set
    );
    let body = html! {
        @for id in seen.missing.iter().take(MAX_REPORTED) {
            p.warning { (Shown(&format!("job {id:?} is not in {}; skipped", seen.set))) }
        }
        @if seen.missing.len() > MAX_REPORTED {
            p.warning { (thousands((seen.missing.len() - MAX_REPORTED) as u64)) " more not in " (Shown(&seen.set)) }
        }
        @if seen.count == 0 {
            p.refusal role="status" { (Shown(&format!("nothing to {}: no matching jobs in {}", asked.verb(), seen.set))) }
            p { a href=(back) { "Back to the list." } }
        } @else {
            p.preview role="status" {
                "will " (Shown(&what)) ", e.g. "
                @for (i, id) in seen.sample.iter().enumerate() {
                    @if i > 0 { ", " }
                    a href=(queue::job_path(&queue, id)) { (Shown(id)) }
                }
            }
            form.change.confirm method="post" action=(format!("{}/apply", list_path(&queue, asked.state))) {
                (carried(&app, &session, &asked))
                p.question { (Shown(&format!("{what}?"))) }
                button type="submit" autofocus { "Yes, " (asked.verb()) }
                " " a href=(back) { "No, back to the list" }
            }
            p.note {
                "Jobs that move before it is done are skipped, not damaged. The same from a shell: "
                code { (Shown(&command(&app, &queue, &asked))) }
            }
        }
    };
    answer(&app, &queue, "Confirm", body)
}

/// `POST /queues/{queue}/{state}/apply`.
pub async fn apply(
    State(app): State<Arc<App>>,
    Path((queue, state)): Path<(String, String)>,
    Extension(session): Extension<Session>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (keys, asked) = match read_form(&app, &queue, &state, &session, &headers, &body).await {
        Ok(read) => read,
        Err(refusal) => return change::refused(&app, refusal),
    };
    let path = format!("{}/apply", list_path(&queue, asked.state));
    let origin = change::origin(&headers, peer, "POST", &path, &change::fields(&body));
    let applied = match bulk::apply(&app, &keys, &asked, origin).await {
        Ok(applied) => applied,
        Err(e) => return change::refused(&app, e.into()),
    };
    let o = &applied.outcome;
    let set = &applied.set;
    let reports: Vec<String> = o
        .missing
        .iter()
        .map(|id| format!("job {id:?} is not in {set}; skipped"))
        .chain(
            o.skipped
                .iter()
                .map(|(id, why)| format!("job {id:?} skipped: {why}")),
        )
        .collect();
    let failure = o.failure.as_ref().map(|f| match f {
        Failed::Change(e) => format!("cannot {} jobs of {set}: {e}", asked.verb()),
        Failed::Read(e) => format!("cannot read {set}: {e}"),
    });
    let back = list_path(&queue, asked.state);
    let body = html! {
        p.done role="status" {
            (Shown(&format!("{} {}, not found {}, skipped {}", asked.past(), thousands(o.done), thousands(o.missing.len() as u64), thousands(o.skipped.len() as u64))))
        }
        @if let Some(failure) = &failure {
            p.refusal role="alert" {
                (Shown(failure))
                @if o.unconfirmed > 0 {
                    (Shown(&format!("; the last step, {}, was sent and whether it took effect is not known", plural(o.unconfirmed, "job"))))
                }
                "; do the same again to go on"
            }
        }
        @if let Some(warning) = &applied.not_recorded { p.warning { (Shown(warning)) } }
        @for line in reports.iter().take(MAX_REPORTED) {
            p.warning { (Shown(line)) }
        }
        @if reports.len() > MAX_REPORTED {
            p.warning { (thousands((reports.len() - MAX_REPORTED) as u64)) " more not shown" }
        }
        p { a href=(back) { "Back to the list." } " " a href=(queue_path(&queue)) { "The queue." } }
    };
    answer(&app, &queue, "Done", body)
}
