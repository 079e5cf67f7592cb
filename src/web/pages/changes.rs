//! `/queues/{queue}/changes`: the record of the changes made to a queue, from the CLI and
//! from the page, as `qctl changes` lists it (who, from where, what, to how many jobs, with
//! the command line or the page's request). Its JSON twin, `/api/queues/{queue}/changes`,
//! is what `qctl changes --json` prints.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::html;

use super::queue::{page, refused};
use super::Shown;
use crate::engine::text::plural;
use crate::output::{change_cells, CHANGE_COLUMNS};
use crate::web::api::json_response;
use crate::web::queue::{self, job_path, queue_path};
use crate::web::App;

/// The path of a queue's record of changes.
pub fn changes_path(queue_name: &str) -> String {
    format!("{}/changes", queue_path(queue_name))
}

/// `GET /queues/{queue}/changes`.
pub async fn page_of(
    State(app): State<Arc<App>>,
    Path(queue_name): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let keys = match queue::find(&app, &queue_name).await {
        Ok(keys) => keys,
        Err(refusal) => return refused(&app, refusal),
    };
    let asked = match queue::ask_changes(query.as_deref()) {
        Ok(asked) => asked,
        Err(refusal) => return refused(&app, refusal),
    };
    let entries = match queue::changes(&app, &keys, &asked).await {
        Ok(entries) => entries,
        Err(e) => return refused(&app, e.into()),
    };
    let path = changes_path(&queue_name);
    let body = html! {
        form.filters method="get" action=(path) {
            label { span { "since" } input type="text" name="since" value=(asked.value("since")) placeholder="1d, RFC 3339" autocomplete="off" spellcheck="false"; }
            label { span { "until" } input type="text" name="until" value=(asked.value("until")) placeholder="RFC 3339" autocomplete="off" spellcheck="false"; }
            label { span { "newest" } input type="text" name="limit" value=(asked.value("limit")) placeholder="50" autocomplete="off" spellcheck="false"; }
            button type="submit" { "Show" }
            " " a href=(path) { "Clear" }
        }
        p #shown {
            @if entries.is_empty() {
                "no changes recorded in " (Shown(&keys.changes))
                @if asked.since.is_some() || asked.until.is_some() { " in that time" }
            } @else {
                (plural(entries.len() as u64, "change")) ", oldest first"
                @if entries.len() as u64 == asked.limit { " (the newest " (asked.limit) ")" }
            }
        }
        @if !entries.is_empty() {
            div.scroll {
                table.jobs.changes {
                    thead { tr {
                        @for (name, _) in CHANGE_COLUMNS { th.text scope="col" { (name) } }
                        th.text scope="col" { "JOBS" }
                    } }
                    tbody {
                        @for entry in &entries {
                            tr {
                                @for cell in change_cells(entry) { td.text { (Shown(&cell)) } }
                                td.text {
                                    @for (i, id) in entry.sample.iter().enumerate() {
                                        @if i > 0 { ", " }
                                        a href=(job_path(&queue_name, id)) { (Shown(id)) }
                                    }
                                    @if entry.ids_total > entry.sample.len() as u64 {
                                        " (" (plural(entry.ids_total, "job")) ": qctl changes --ids " (Shown(&entry.entry)) ")"
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    page(&app, &queue_name, "Changes", &path, body)
}

/// `GET /api/queues/{queue}/changes`: the entries as `qctl changes --json` prints them.
pub async fn api(
    State(app): State<Arc<App>>,
    Path(queue_name): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let answer = async {
        let keys = queue::find(&app, &queue_name).await?;
        let asked = queue::ask_changes(query.as_deref())?;
        Ok::<_, queue::Refusal>(queue::changes(&app, &keys, &asked).await?)
    };
    match answer.await {
        Ok(entries) => json_response(StatusCode::OK, &entries),
        Err(refusal) => json_response(
            refusal.status,
            &serde_json::json!({"error": refusal.message}),
        ),
    }
}
