//! A queue's pages: `/queues/{queue}`, its summary (counts, consumers and what they run,
//! limits, recent events); `/queues/{queue}/{state}`, a page of its ready, scheduled, in
//! flight or dead jobs with the CLI's filters; `/queues/{queue}/{dead,scheduled}/groups`,
//! failures grouped by cause. What they show is read by [`crate::web::queue`], in the
//! words and columns of the CLI's tables; their JSON twins are in [`crate::web::api`].
//! They are read at each request (a page of jobs is no part of the shared reading), and
//! app.js does not poll them: a reload reads them again.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::response::{Html, IntoResponse, Response};
use axum::Extension;
use maud::{html, Markup};

use super::{layout, respond, Shown};
use crate::engine::consumers::{command_line, InFlight, NO_START, UNDESCRIBED};
use crate::engine::doctor::Permission;
use crate::engine::groups::Groups;
use crate::engine::limits;
use crate::engine::listing::Place;
use crate::engine::queues::QueueStats;
use crate::engine::text::{plural, shell_quote, thousands};
use crate::engine::{Error, QueueKeys};
use crate::output::{
    clock, consumer_cells, count, event_text, group_cells, queue_cells, CONSUMER_COLUMNS,
};
use crate::web::bulk;
use crate::web::change::Session;
use crate::web::queue::{
    self, grouped, groups_path, job_path, list_path, queue_path, with_query, Asked, AskedGroups,
    Lister, Refusal, State as Listed,
};
use crate::web::App;

/// The counts of a queue's summary, in the overview's words.
const COUNTS: [&str; 9] = [
    "active",
    "due",
    "later",
    "in flight",
    "dead",
    "consumers",
    "paused",
    "done",
    "failed",
];

/// Whether a column of the CLI's tables holds numbers (set right), not text.
fn numeric(column: &str) -> bool {
    matches!(
        column,
        "FAILURES" | "AHEAD" | "COUNT" | "IN FLIGHT" | "RAN" | "FAILED"
    )
}

/// A table's header row: each column as the CLI names it, text set left.
fn header(columns: &[&str]) -> Markup {
    html! {
        thead { tr { @for name in columns {
            @if numeric(name) { th scope="col" { (name) } } @else { th.text scope="col" { (name) } }
        } } }
    }
}

/// The columns of `dead groups`.
const GROUP_COLUMNS: [&str; 5] = ["GROUP", "COUNT", "FAILURES", "FIRST", "LAST"];

/// Jobs shown under each consumer of the summary; the list of jobs in flight has them all.
const RUNNING_SHOWN: usize = 20;

/// A page that answers `refusal` (a queue not shown, a bad parameter, Redis failing).
pub fn refused(app: &App, refusal: Refusal) -> Response {
    let latest = app.latest.borrow().clone();
    let title = match refusal.status.as_u16() {
        400 => "Bad request",
        403 => "Not changed",
        404 => "Not found",
        502 => "Redis refused",
        _ => "Redis cannot be reached",
    };
    let page = layout(
        app,
        &latest,
        title,
        "",
        html! {
            h1 { (title) }
            p.refusal role="alert" { (Shown(&refusal.message)) }
            p { a href="/" { "See every queue." } }
        },
    );
    (refusal.status, Html(page.into_string())).into_response()
}

/// A queue's page: its title, its tabs, the search box (but on the search's own page, whose
/// body has it), and `body`.
pub fn page(app: &App, queue: &str, title: &str, current: &str, body: Markup) -> Response {
    let latest = app.latest.borrow().clone();
    let stats = queue::stats(app, queue);
    respond(layout(
        app,
        &latest,
        &format!("{title} - {queue}"),
        "",
        html! {
            h1 { "Queue " span.queue { (Shown(queue)) } }
            (tabs(queue, stats.as_ref(), current))
            @if current != super::find::find_path(queue) { (super::find::search_box(queue, None)) }
            @if title != "Queue" { h2.page { (title) } }
            (body)
        },
    ))
}

/// The links to a queue's pages, with the counts of the last reading; `current` is the
/// path of the page shown.
fn tabs(queue: &str, stats: Option<&QueueStats>, current: &str) -> Markup {
    let counted = |state: Listed| -> Option<u64> {
        let s = stats?;
        match state {
            Listed::Ready => s.active,
            Listed::Scheduled => Some(s.scheduled_due? + s.scheduled_later?),
            Listed::InFlight => s.in_flight,
            Listed::Dead => s.dead,
        }
    };
    let mut links: Vec<(String, String, Option<u64>)> =
        vec![(queue_path(queue), "Summary".into(), None)];
    for state in Listed::ALL {
        links.push((
            list_path(queue, state),
            state.title().into(),
            counted(state),
        ));
    }
    links.push((groups_path(queue, Place::Dead), "Dead groups".into(), None));
    links.push((
        groups_path(queue, Place::Scheduled),
        "Scheduled groups".into(),
        None,
    ));
    links.push((super::changes::changes_path(queue), "Changes".into(), None));
    html! {
        nav.tabs aria-label="the queue's pages" {
            @for (href, name, n) in &links {
                @if href == current {
                    a href=(href) aria-current="page" { (name) @if let Some(n) = n { " " span.n { (thousands(*n)) } } }
                } @else {
                    a href=(href) { (name) @if let Some(n) = n { " " span.n { (thousands(*n)) } } }
                }
            }
        }
    }
}

/// `GET /queues/{queue}`.
pub async fn summary(
    State(app): State<Arc<App>>,
    Path(queue): Path<String>,
    Extension(session): Extension<Session>,
) -> Response {
    let keys = match queue::find(&app, &queue).await {
        Ok(keys) => keys,
        Err(refusal) => return refused(&app, refusal),
    };
    let summary = match queue::summary(&app, &keys).await {
        Ok(s) => s,
        Err(e) => return refused(&app, e.into()),
    };
    // Expired consumers are offered to recovery, as `qctl orphans` would find them.
    let expired = match &summary.consumers {
        Ok(c) => {
            let cutoff = c.seen.now - app.orphan_after.as_secs_f64();
            c.seen
                .list
                .iter()
                .filter(|x| crate::engine::consumers::orphaned(x, c.seen.now, cutoff) == Some(None))
                .count() as u64
        }
        Err(_) => 0,
    };
    let may_repair = match expired {
        0 => None,
        _ => queue::may(&app, &keys, "repair").await,
    };
    let changes = Changing {
        app: &app,
        session: &session,
        not_offered: queue::not_offered(may_repair.as_ref(), "recover the orphans of", &queue),
    };
    let body = html! {
        section #counts {
            h2 { "Counts" }
            @match &summary.stats {
                Some(s) => {
                    div.scroll {
                        table.counts {
                            thead { tr { @for name in COUNTS { th scope="col" { (name) } } } }
                            tbody { tr { @for cell in count_cells(s) { td { (cell) } } } }
                        }
                    }
                }
                None => { p.note { "not counted yet: the next reading counts it" } }
            }
            (pausing(&app, &queue, &summary.paused, summary.may_pause.as_ref(), &session))
        }
        section #consumers {
            h2 { "Consumers" }
            @match &summary.consumers {
                Ok(c) => { (consumers(&app, &queue, &keys, c, &session)) }
                Err(e) => { p.warning { (Shown(&e.to_string())) } }
            }
            @if expired > 0 {
                @if changes.offered() {
                    form.change method="post" action=(super::orphans::orphans_path(&queue, "preview")) {
                        input type="hidden" name="token" value=(app.changes.token(&session));
                        button type="submit" { "Recover orphans" }
                        (format!(" return the jobs of the {} silent for more than {} to the queue", plural(expired, "consumer"), humantime::format_duration(app.orphan_after)))
                    }
                } @else {
                    (changes.note_markup())
                }
            }
        }
        section #limits {
            h2 { "Limits" }
            @match &summary.limits {
                Ok((limits, usage)) => {
                    @for line in limits::describe(&queue, limits, usage) { p.limit { (Shown(line.trim_start())) } }
                    @if usage.other_consumers > 0 && !limits.is_empty() {
                        p.warning { (Shown(&limits::ignored(&keys, usage))) }
                    }
                }
                Err(e) => { p.warning { (Shown(&e.to_string())) } }
            }
        }
        section #events {
            h2 { "Last 10 minutes" }
            @match &summary.events {
                Ok(events) => { (recent(&queue, &keys, events)) }
                Err(e) => { p.warning { (Shown(&e.to_string())) } }
            }
        }
    };
    page(&app, &queue, "Queue", &queue_path(&queue), body)
}

/// The form that pauses or resumes the queue (none with `--read-only`: the command says it).
fn pausing(
    app: &App,
    queue: &str,
    paused: &Result<bool, Error>,
    may: Option<&Result<Permission, Error>>,
    session: &Session,
) -> Markup {
    let paused = match paused {
        Ok(paused) => *paused,
        Err(e) => return html! { p.warning { (Shown(&e.to_string())) } },
    };
    let doing = if paused { "resume" } else { "pause" };
    if let Some(text) = queue::not_offered(may, doing, queue) {
        return html! { p.warning.rights { (Shown(&text)) } };
    }
    let (action, button, command) = if paused {
        ("resume", "Resume", "resume")
    } else {
        ("pause", "Pause", "pause")
    };
    let line = format!("qctl {command} {}", shell_quote(queue));
    html! {
        @if app.changes.read_only {
            p.note { "read-only (--read-only): change it with " code { (Shown(&line)) } }
        } @else {
            form.change method="post" action=(format!("{}/{action}", queue_path(queue))) {
                input type="hidden" name="token" value=(app.changes.token(session));
                button type="submit" { (button) }
                @if paused {
                    " qctl consumers take no job from it until it is resumed"
                } @else {
                    " qctl consumers stop taking jobs from it (Go CurlyQ consumers do not know the flag)"
                }
            }
        }
    }
}

/// The consumers of the summary, as `qctl consumers` shows them, each with what it runs.
fn consumers(
    app: &App,
    queue: &str,
    keys: &QueueKeys,
    c: &queue::Consumers,
    session: &Session,
) -> Markup {
    let seen = &c.seen;
    let now = seen.now;
    let cutoff = now - app.orphan_after.as_secs_f64();
    let mut running: HashMap<&str, Vec<&InFlight>> = HashMap::new();
    for job in &c.running {
        running.entry(job.consumer.as_str()).or_default().push(job);
    }
    let unknown_start = c.running.iter().any(|j| j.started.is_none());
    html! {
        @if seen.list.is_empty() {
            p.note { "no consumers in " (Shown(&keys.consumers)) }
        } @else {
            div.scroll {
                table.consumers {
                    (header(&CONSUMER_COLUMNS.map(|(name, _)| name)))
                    tbody {
                        @for ((c, d), process) in seen.list.iter().zip(&seen.described).zip(&seen.processes) {
                            tr {
                                @for (i, cell) in consumer_cells(c, d.as_ref(), *process, keys, now, cutoff).iter().enumerate() {
                                    @if i == 0 { th scope="row" { (Shown(cell)) } }
                                    @else if numeric(CONSUMER_COLUMNS[i].0) { td { (Shown(cell)) } }
                                    @else { td.text { (Shown(cell)) } }
                                }
                            }
                            tr.detail {
                                td colspan=(CONSUMER_COLUMNS.len()) {
                                    @if let Some(d) = d {
                                        @if let Some(command) = &d.command {
                                            p.command { (Shown(&d.setup(now))) ": " code { (Shown(&command_line(command))) } }
                                        }
                                    }
                                    (runs_now(queue, running.get(c.key.as_str()), d.is_some(), now))
                                    @if !app.changes.read_only && crate::engine::orders::Reach::of(d.as_ref()) == crate::engine::orders::Reach::Listens {
                                        @if let Some(uuid) = keys.consumer_uuid(&c.key) {
                                            form.change.steer method="post" action=(super::steer::consumer_path(queue, uuid, "preview")) {
                                                input type="hidden" name="token" value=(app.changes.token(session));
                                                button type="submit" name="order" value="quiet" { "Quiet" }
                                                " "
                                                button type="submit" name="order" value="stop" { "Stop" }
                                                " "
                                                label { "concurrency " input type="number" name="concurrency" min="1" value=(d.as_ref().and_then(|d| d.concurrency).unwrap_or(1)); }
                                                " "
                                                button type="submit" name="order" value="resize" { "Resize" }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            @if seen.undescribed(keys) { p.note { (UNDESCRIBED) } }
            @if unknown_start { p.note { (NO_START) } }
        }
    }
}

/// What happened in the last ten minutes, as `qctl tail` prints it.
fn recent(queue: &str, keys: &QueueKeys, events: &queue::Events) -> Markup {
    html! {
        p.note {
            "Jobs that died, retries scheduled and changes qctl made since " (clock(events.since))
            " UTC, as qctl tail " (Shown(queue)) " --no-follow --since 10m shows them; consumers joining and leaving and pauses show while qctl tail follows."
        }
        @if events.happened.is_empty() {
            p.empty { "nothing happened" }
        } @else {
            ol.events {
                @for (time, happening) in &events.happened {
                    li { time { (clock(*time)) } " " (Shown(&event_text(keys, *time, happening, events.now))) }
                }
            }
        }
        @if events.more {
            p.warning { "more happened than one reading shows: qctl tail " (Shown(queue)) " --no-follow --since 10m shows every one" }
        }
    }
}

/// The summary's counts: those of `stats`, then done and failed.
pub fn count_cells(s: &QueueStats) -> Vec<String> {
    let mut cells = queue_cells(s);
    cells.remove(0);
    cells.push(count(s.completed));
    cells.push(count(s.failed));
    cells
}

/// What a consumer runs now: each job (a link to it) and how long it has run, or `-` where
/// no start was recorded.
fn runs_now(queue: &str, jobs: Option<&Vec<&InFlight>>, described: bool, now: f64) -> Markup {
    let jobs: &[&InFlight] = jobs.map_or(&[], |j| j.as_slice());
    html! {
        @if jobs.is_empty() {
            p.runs { "runs nothing now" }
        } @else {
            p.runs {
                "runs now: "
                @for (i, job) in jobs.iter().take(RUNNING_SHOWN).enumerate() {
                    @if i > 0 { ", " }
                    a href=(job_path(queue, &job.id)) { (Shown(&job.id)) }
                    " (" (job.running(now).map_or("-".to_string(), crate::engine::text::running)) ")"
                }
                @if jobs.len() > RUNNING_SHOWN {
                    " and " a href=(list_path(queue, Listed::InFlight)) { (thousands((jobs.len() - RUNNING_SHOWN) as u64)) " more" }
                }
                @if !described {
                    " (how long each has run is not known: no start recorded)"
                }
            }
        }
    }
}

/// `GET /queues/{queue}/{state}`.
pub async fn list(
    State(app): State<Arc<App>>,
    Path((queue, state)): Path<(String, String)>,
    RawQuery(query): RawQuery,
    Extension(session): Extension<Session>,
) -> Response {
    let Some(state) = Listed::parse(&state) else {
        return refused(&app, no_state(&state));
    };
    let keys = match queue::find(&app, &queue).await {
        Ok(keys) => keys,
        Err(refusal) => return refused(&app, refusal),
    };
    let asked = match queue::ask(state, query.as_deref()) {
        Ok(asked) => asked,
        Err(refusal) => return refused(&app, refusal),
    };
    let may = match bulk::actions(state).is_empty() {
        true => None,
        false => queue::may(&app, &keys, "repair").await,
    };
    match read_list(&app, &keys, state, &asked).await {
        Ok(shown) => {
            let changes = Changing {
                app: &app,
                session: &session,
                not_offered: queue::not_offered(may.as_ref(), "change the jobs of", &queue),
            };
            page(
                &app,
                &queue,
                state.heading(),
                &list_path(&queue, state),
                list_body(&queue, state, &asked, &shown, &changes),
            )
        }
        Err(e) => refused(&app, e.into()),
    }
}

/// The 404 of a list that is not one.
pub fn no_state(state: &str) -> Refusal {
    let names: Vec<&str> = Listed::ALL.iter().map(|s| s.segment()).collect();
    Refusal::not_found(format!("no list {state:?}: one of {}", names.join(", ")))
}

/// A page of jobs as the page shows it.
struct JobsPage {
    columns: Vec<&'static str>,
    /// Each job's id and cells.
    rows: Vec<(String, Vec<String>)>,
    total: u64,
    next_offset: Option<u64>,
    /// Where the closing line says they are: `in mail:dead`, `in flight`.
    key: String,
    /// Why none is shown, when none is.
    empty: Option<String>,
}

async fn read_list(
    app: &App,
    keys: &crate::engine::QueueKeys,
    state: Listed,
    asked: &Asked,
) -> Result<JobsPage, crate::engine::Error> {
    let mut lister = Lister::open(app, keys, state, asked).await?;
    let mut rows = Vec::new();
    while let Some(chunk) = lister.next().await? {
        for l in &chunk {
            rows.push((l.entry.id.clone(), lister.cells(l)));
        }
    }
    let empty = match rows.is_empty() {
        true => Some(lister.nothing_shown().await?),
        false => None,
    };
    Ok(JobsPage {
        columns: lister.columns().iter().map(|(name, _)| *name).collect(),
        rows,
        total: lister.total(),
        next_offset: lister.next_offset(),
        key: lister.key(),
        empty,
    })
}

/// A form field for each flag of the list's command.
fn filters(path: &str, state: Listed, asked: &Asked) -> Markup {
    let fields: &[(&str, &str, &str)] = &[
        ("grep", "data contains", "text"),
        ("reason", "failure mentions", "text"),
        ("group", "group", "fingerprint"),
        ("since", "since", "2h, RFC 3339"),
        ("until", "until", "+2h, RFC 3339"),
        ("min_attempts", "failed at least", "times"),
        ("limit", "per page", "20"),
    ];
    html! {
        form.filters method="get" action=(path) {
            @for (name, label, hint) in fields {
                @if state.parameters().contains(name) && !(state == Listed::Ready && matches!(*name, "since" | "until")) {
                    label {
                        span { (label) }
                        input type="text" name=(name) value=(asked.value(name)) placeholder=(hint) autocomplete="off" spellcheck="false";
                    }
                }
            }
            button type="submit" { "Show" }
            " " a href=(path) { "Clear" }
        }
    }
}

/// What a page needs to offer changes: the session's token, and why they are not offered
/// when they are not.
pub struct Changing<'a> {
    pub app: &'a App,
    pub session: &'a Session,
    pub not_offered: Option<String>,
}

impl Changing<'_> {
    /// Whether the page shows change forms.
    pub fn offered(&self) -> bool {
        !self.app.changes.read_only && self.not_offered.is_none()
    }

    /// Why it shows none, if a reason is to be told.
    pub fn note_markup(&self) -> Markup {
        html! {
            @if let Some(why) = &self.not_offered { p.warning.rights { (Shown(why)) } }
        }
    }

    /// A form posting to the preview of `state`'s change, with `fields` and a button for
    /// each action of the list.
    pub fn form(
        &self,
        queue: &str,
        state: Listed,
        fields: &[(&str, &str)],
        suffix: &str,
        id: Option<&str>,
    ) -> Markup {
        html! {
            form.change method="post" action=(format!("{}/preview", list_path(queue, state))) id=[id] {
                input type="hidden" name="token" value=(self.app.changes.token(self.session));
                @for (name, value) in fields {
                    input type="hidden" name=(name) value=(value);
                }
                @for (name, label) in bulk::actions(state) {
                    button type="submit" name="action" value=(name) { (label) (suffix) }
                }
            }
        }
    }
}

fn list_body(
    queue: &str,
    state: Listed,
    asked: &Asked,
    shown: &JobsPage,
    changes: &Changing,
) -> Markup {
    let path = list_path(queue, state);
    let cancels = state == Listed::InFlight;
    let selectable = changes.offered()
        && (!bulk::actions(state).is_empty() || cancels)
        && !shown.rows.is_empty();
    let mut matching: Vec<(&str, &str)> = vec![("all", "1")];
    for name in bulk::FILTER_FIELDS {
        let value = asked.value(name);
        if !value.is_empty() {
            matching.push((name, value));
        }
    }
    let every = if matching.len() > 1 {
        " every job matching"
    } else {
        " every job"
    };
    let id_column = shown.columns.iter().position(|c| *c == "ID");
    let previous =
        (asked.offset > 0).then(|| asked.at(&path, asked.offset.saturating_sub(asked.limit)));
    let next = shown.next_offset.map(|o| asked.at(&path, o));
    html! {
        (filters(&path, state, asked))
        p #shown {
            @match &shown.empty {
                Some(why) => { (Shown(why)) }
                None => {
                    (thousands(shown.rows.len() as u64)) " shown of " (thousands(shown.total)) " " (Shown(&shown.key))
                    @if asked.offset > 0 { " from offset " (thousands(asked.offset)) }
                }
            }
        }
        (changes.note_markup())
        @if selectable {
            div.changes {
                @if cancels {
                    form.change method="post" action=(super::steer::cancel_path(queue, "preview")) id="selected" {
                        input type="hidden" name="token" value=(changes.app.changes.token(changes.session));
                        button type="submit" name="settle" value="dead" { "Cancel selected" }
                        " "
                        button type="submit" name="settle" value="retry" { "Cancel selected, run again" }
                    }
                } @else {
                    (changes.form(queue, state, &[], " selected", Some("selected")))
                    (changes.form(queue, state, &matching, every, None))
                }
            }
        }
        @if !shown.rows.is_empty() {
            div.scroll {
                table.jobs {
                    @if selectable {
                        thead { tr {
                            th scope="col" { span.hidden-label { "select" } }
                            @for name in &shown.columns {
                                @if numeric(name) { th scope="col" { (name) } } @else { th.text scope="col" { (name) } }
                            }
                        } }
                    } @else {
                        (header(&shown.columns))
                    }
                    tbody {
                        @for (id, cells) in &shown.rows {
                            tr {
                                @if selectable {
                                    td { input type="checkbox" name="id" value=(queue::segment(id)) form="selected" aria-label=(format!("select {}", crate::engine::text::printable(id))); }
                                }
                                @for (i, cell) in cells.iter().enumerate() {
                                    @if Some(i) == id_column {
                                        th scope="row" { a href=(job_path(queue, id)) { (Shown(cell)) } }
                                    } @else if numeric(shown.columns[i]) {
                                        td { (Shown(cell)) }
                                    } @else {
                                        td.text { (Shown(cell)) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        nav.pages aria-label="pages" {
            @if let Some(href) = &previous { a rel="prev" href=(href) { "Previous page" } }
            @if let Some(href) = &next { a rel="next" href=(href) { "Next page" } }
        }
    }
}

/// `GET /queues/{queue}/{dead,scheduled}/groups`.
pub async fn groups(
    State(app): State<Arc<App>>,
    Path((queue, state)): Path<(String, String)>,
    RawQuery(query): RawQuery,
    Extension(session): Extension<Session>,
) -> Response {
    let Some(place) = grouped(&state) else {
        return refused(
            &app,
            Refusal::not_found(format!(
                "no groups of {state:?}: failures are grouped for dead and scheduled"
            )),
        );
    };
    let keys = match queue::find(&app, &queue).await {
        Ok(keys) => keys,
        Err(refusal) => return refused(&app, refusal),
    };
    let asked = match queue::ask_groups(query.as_deref()) {
        Ok(asked) => asked,
        Err(refusal) => return refused(&app, refusal),
    };
    let may = queue::may(&app, &keys, "repair").await;
    match queue::groups(&app, &keys, place, &asked).await {
        Ok(found) => {
            let title = match place {
                Place::Dead => "Dead jobs grouped by cause",
                _ => "Scheduled jobs grouped by cause",
            };
            let changes = Changing {
                app: &app,
                session: &session,
                not_offered: queue::not_offered(may.as_ref(), "change the jobs of", &queue),
            };
            let body = groups_body(&queue, place, &keys, &asked, &found, &changes);
            page(&app, &queue, title, &groups_path(&queue, place), body)
        }
        Err(e) => refused(&app, e.into()),
    }
}

/// The fields of a change of one group: the group, and the window the page was asked for.
fn group_fields<'a>(asked: &'a AskedGroups, fingerprint: &'a str) -> Vec<(&'a str, &'a str)> {
    let mut fields = vec![("all", "1"), ("group", fingerprint)];
    for name in ["since", "until"] {
        let value = asked.value(name);
        if !value.is_empty() {
            fields.push((name, value));
        }
    }
    fields
}

fn groups_body(
    queue: &str,
    place: Place,
    keys: &crate::engine::QueueKeys,
    asked: &AskedGroups,
    found: &Groups,
    changes: &Changing,
) -> Markup {
    let path = groups_path(queue, place);
    let state = match place {
        Place::Scheduled => Listed::Scheduled,
        _ => Listed::Dead,
    };
    let set = place.key(keys);
    let shown = match asked.limit {
        0 => &found.groups[..],
        n => &found.groups[..n.min(found.groups.len())],
    };
    let more = found.groups.len() - shown.len();
    let list = list_path(
        queue,
        match place {
            Place::Scheduled => Listed::Scheduled,
            _ => Listed::Dead,
        },
    );
    let now = crate::engine::now();
    html! {
        form.filters method="get" action=(path) {
            label { span { "since" } input type="text" name="since" value=(asked.value("since")) placeholder="2h, RFC 3339" autocomplete="off" spellcheck="false"; }
            label { span { "until" } input type="text" name="until" value=(asked.value("until")) placeholder="RFC 3339" autocomplete="off" spellcheck="false"; }
            label { span { "groups" } input type="text" name="limit" value=(asked.value("limit")) placeholder="20 (0: all)" autocomplete="off" spellcheck="false"; }
            button type="submit" { "Show" }
            " " a href=(path) { "Clear" }
        }
        p #shown {
            @if found.jobs == 0 {
                "no jobs in " (Shown(set))
            } @else {
                (plural(found.jobs, "job")) " of " (Shown(set)) " in " (plural(found.groups.len() as u64, "group"))
                @if more > 0 {
                    "; " (thousands(more as u64)) " more " (if more == 1 { "group" } else { "groups" }) " not shown (" a href=(with_query(&path, &[("limit", "0")])) { "show every one" } ")"
                }
            }
        }
        (changes.note_markup())
        @if found.ungrouped > 0 {
            p.warning {
                "more than " (thousands(crate::engine::groups::MAX_GROUPS as u64)) " distinct failure patterns: "
                (plural(found.ungrouped, "job")) " of further patterns " (if found.ungrouped == 1 { "is" } else { "are" }) " in no group"
            }
        }
        @if !shown.is_empty() {
            div.scroll {
                table.groups {
                    (header(&GROUP_COLUMNS))
                    tbody {
                        @for g in shown {
                            tr {
                                @for (i, cell) in group_cells(g, now).iter().enumerate() {
                                    @if i == 0 {
                                        th scope="row" { a.group href=(with_query(&list, &[("group", &g.fingerprint)])) { (Shown(cell)) } }
                                    } @else if numeric(GROUP_COLUMNS[i]) {
                                        td { (Shown(cell)) }
                                    } @else {
                                        td.text { (Shown(cell)) }
                                    }
                                }
                            }
                            tr.detail {
                                td colspan="5" {
                                    p.pattern { (Shown(&g.pattern)) }
                                    p.sample { "e.g. " a href=(job_path(queue, &g.sample)) { (Shown(&g.sample)) } }
                                    @if changes.offered() {
                                        (changes.form(queue, state, &group_fields(asked, &g.fingerprint), " this group", None))
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
