//! `/queues/{queue}/find?text=TEXT`: the jobs whose id, data or recorded failure holds a
//! text, as `qctl find` finds them (the same engine search, the same budget), with what was
//! searched in its words. Its JSON twin is `/api/queues/{queue}/find`.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};

use super::queue::{page, refused};
use super::Shown;
use crate::engine::find::{Report, Search, Where};
use crate::engine::text::{plural, thousands};
use crate::output::{found_cells, found_json};
use crate::web::api::json_response;
use crate::web::queue::{self, job_path, Refusal};
use crate::web::App;

/// The columns of `qctl find`.
const COLUMNS: [&str; 5] = ["WHERE", "ID", "MATCHED", "FAILURES", "DATA"];

/// The path of a queue's search.
pub fn find_path(queue_name: &str) -> String {
    format!("{}/find", queue::queue_path(queue_name))
}

/// The search box: a plain GET form, on every page of a queue.
pub fn search_box(queue_name: &str, search: Option<&Search>) -> Markup {
    let text = search.map_or("", |s| s.text.as_str());
    html! {
        form.find method="get" action=(find_path(queue_name)) role="search" {
            label {
                span { "find" }
                input type="search" name="text" value=(text) placeholder="an id, or text in data or failures" autocomplete="off" spellcheck="false";
            }
            @if let Some(search) = search {
                @if search.places.len() < Where::ALL.len() {
                    @for place in &search.places {
                        input type="hidden" name="in" value=(place.name());
                    }
                }
            }
            button type="submit" { "Find" }
        }
    }
}

/// What the search did, in `qctl find`'s closing words.
fn closing(report: &Report) -> String {
    let searched = report.describe();
    if report.found == 0 {
        format!("nothing found; {searched}")
    } else {
        format!("{} found; {searched}", plural(report.found, "job"))
    }
}

/// `GET /queues/{queue}/find`.
pub async fn page_of(
    State(app): State<Arc<App>>,
    Path(queue_name): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let keys = match queue::find(&app, &queue_name).await {
        Ok(keys) => keys,
        Err(refusal) => return refused(&app, refusal),
    };
    let search = match queue::ask_find(query.as_deref()) {
        Ok(search) => search,
        Err(refusal) => return refused(&app, refusal),
    };
    let path = find_path(&queue_name);
    if search.text.is_empty() {
        let body = html! {
            (search_box(&queue_name, None))
            p.note { "Looks for the text, exactly (case counts), in job ids, data and the failures qctl consumers recorded, in the dead, scheduled, in-flight and ready jobs, as " code { "qctl find" } " does; an id is found at once whatever the queue's size." }
        };
        return page(&app, &queue_name, "Find", &path, body);
    }
    let (hits, report) = match queue::search(&app, &keys, &search).await {
        Ok(found) => found,
        Err(e) => return refused(&app, e.into()),
    };
    let body = html! {
        (search_box(&queue_name, Some(&search)))
        p #shown role="status" { (Shown(&closing(&report))) }
        @if !hits.is_empty() {
            div.scroll {
                table.jobs.found {
                    thead { tr {
                        @for name in COLUMNS {
                            @if name == "FAILURES" { th scope="col" { (name) } } @else { th.text scope="col" { (name) } }
                        }
                    } }
                    tbody {
                        @for hit in &hits {
                            @let cells = found_cells(hit);
                            tr {
                                td.text { (cells[0]) }
                                th scope="row" { a href=(job_path(&queue_name, &hit.entry.id)) { (Shown(&cells[1])) } }
                                td.text { (cells[2]) }
                                td { (cells[3]) }
                                td.text { (Shown(&cells[4])) }
                            }
                        }
                    }
                }
            }
        }
        @if let Some(crate::engine::find::Stopped::MaxScan(n)) = report.stopped {
            p.note {
                "Looked at " (thousands(n)) " jobs. "
                a href=(format!("{path}?{}", url::form_urlencoded::Serializer::new(String::new()).append_pair("text", &search.text).append_pair("max_scan", "0").finish())) { "Search every job" }
                " (it may take a while)."
            }
        }
    };
    page(&app, &queue_name, "Find", &path, body)
}

/// `GET /api/queues/{queue}/find`: `jobs` (each as `qctl find --jsonl` writes it), `found`,
/// `searched` (the words of its closing line), `stopped` (`max_scan`, `limit` or null) and
/// `places` (each place with the jobs it held and looked at).
pub async fn api(
    State(app): State<Arc<App>>,
    Path(queue_name): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let answer = async {
        let keys = queue::find(&app, &queue_name).await?;
        let search = queue::ask_find(query.as_deref())?;
        if search.text.is_empty() {
            return Err(Refusal::bad("a search needs text=TEXT"));
        }
        let (hits, report) = queue::search(&app, &keys, &search).await?;
        Ok(serde_json::json!({
            "jobs": hits.iter().map(|h| found_json(&queue_name, h)).collect::<Vec<_>>(),
            "found": report.found,
            "searched": report.describe(),
            "stopped": report.stopped.map(|s| match s {
                crate::engine::find::Stopped::MaxScan(_) => "max_scan",
                crate::engine::find::Stopped::Limit(_) => "limit",
                crate::engine::find::Stopped::Sink => "closed",
            }),
            "places": report.places.iter().map(|p| serde_json::json!({
                "place": p.place.name(), "held": p.held, "looked": p.looked, "whole": p.whole,
            })).collect::<Vec<_>>(),
        }))
    };
    match answer.await {
        Ok(value) => json_response(StatusCode::OK, &value),
        Err(refusal) => json_response(
            refusal.status,
            &serde_json::json!({"error": refusal.message}),
        ),
    }
}
