//! What the queue pages read and what they are asked, shared by the pages
//! ([`super::pages::queue`]) and their JSON twins ([`super::api`]): a queue's summary (its
//! counts from the shared reading; its consumers, what they run, its limits and its recent
//! events read at the request, by the engine functions `consumers`, `inflight`, `limit` and
//! `tail` call), a page of one of its lists (the `Pager` of `dead list`), its failures
//! grouped (`dead groups`); the query parameters, read by the CLI's value parsers; and the
//! URLs of the pages, with every name and id percent-encoded.

use std::collections::{HashMap, VecDeque};

use axum::http::StatusCode;

use super::App;
use crate::engine::changes::Entry as ChangeEntry;
use crate::engine::consumers::{self, Description, InFlight, Seen};
use crate::engine::doctor::Permission;
use crate::engine::find::{Hit, Report, Search, Where};
use crate::engine::groups::{self, Groups};
use crate::engine::limits::{self, Limits, Usage};
use crate::engine::listing::{self, Entry, Fetched, Filter, Pager, Place, CALL_BYTES};
use crate::engine::queues::QueueStats;
use crate::engine::tail::{Follower, Happening};
use crate::engine::{self, parse, Error, QueueKeys, Redis};
use crate::output::{
    inflight_cells, inflight_json, listed_cells, listed_columns, listed_json, Fit, INFLIGHT_COLUMNS,
};

/// How far back a queue's summary shows what happened, as `tail --since 10m`.
pub const EVENTS_SINCE: f64 = 600.0;

/// The most jobs a page of a list holds (`limit`): `--limit 0` (every one) is the CLI's.
pub const MOST_PER_PAGE: u64 = 1000;

/// Jobs in flight whose records are read per round trip, as `qctl inflight` reads them.
const INFLIGHT_CHUNK: usize = 100;

/// The lists of a queue, by the last segment of their URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Ready,
    Scheduled,
    InFlight,
    Dead,
}

impl State {
    pub const ALL: [State; 4] = [State::Ready, State::Scheduled, State::InFlight, State::Dead];

    /// The state of a URL's segment: `ready`, `scheduled`, `inflight`, `dead`.
    pub fn parse(segment: &str) -> Option<State> {
        State::ALL.into_iter().find(|s| s.segment() == segment)
    }

    pub fn segment(self) -> &'static str {
        match self {
            State::Ready => "ready",
            State::Scheduled => "scheduled",
            State::InFlight => "inflight",
            State::Dead => "dead",
        }
    }

    /// Its name in a page's tabs.
    pub fn title(self) -> &'static str {
        match self {
            State::Ready => "Ready",
            State::Scheduled => "Scheduled",
            State::InFlight => "In flight",
            State::Dead => "Dead",
        }
    }

    /// The heading of its page.
    pub fn heading(self) -> &'static str {
        match self {
            State::Ready => "Ready jobs",
            State::Scheduled => "Scheduled jobs",
            State::InFlight => "Jobs in flight",
            State::Dead => "Dead jobs",
        }
    }

    /// The command that lists it.
    pub fn command(self) -> &'static str {
        match self {
            State::Ready => "active list",
            State::Scheduled => "scheduled list",
            State::InFlight => "inflight",
            State::Dead => "dead list",
        }
    }

    /// Where its jobs wait; jobs in flight are in their consumers' sets.
    pub fn place(self) -> Option<Place> {
        match self {
            State::Ready => Some(Place::Active),
            State::Scheduled => Some(Place::Scheduled),
            State::Dead => Some(Place::Dead),
            State::InFlight => None,
        }
    }

    /// The query parameters its page takes: the flags of its command (with `since` and
    /// `until` for ready jobs, which its command refuses).
    pub fn parameters(self) -> &'static [&'static str] {
        match self {
            State::InFlight => &["offset", "limit"],
            // Ready jobs have no time: `since` and `until` are refused in the CLI's words.
            State::Scheduled | State::Dead | State::Ready => &[
                "offset",
                "limit",
                "grep",
                "reason",
                "group",
                "since",
                "until",
                "min_attempts",
            ],
        }
    }
}

/// The failures grouped of a place (`dead` or `scheduled`), by the segment of its URL.
pub fn grouped(segment: &str) -> Option<Place> {
    match segment {
        "dead" => Some(Place::Dead),
        "scheduled" => Some(Place::Scheduled),
        _ => None,
    }
}

/// A request that has no answer but this one: its status and the words that say why, in
/// the CLI's words (`no queue "mial" (known: mail)`, `invalid value ...`).
#[derive(Debug)]
pub struct Refusal {
    pub status: StatusCode,
    pub message: String,
}

impl Refusal {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Refusal {
        Refusal {
            status,
            message: message.into(),
        }
    }

    pub fn bad(message: impl Into<String>) -> Refusal {
        Refusal::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn not_found(message: impl Into<String>) -> Refusal {
        Refusal::new(StatusCode::NOT_FOUND, message)
    }

    /// What an engine error answers: not there (404), a bad question (400), Redis refusing
    /// (502) or not answering (503).
    pub fn of(e: &Error) -> Refusal {
        let status = match e {
            Error::NothingDone(_) => StatusCode::NOT_FOUND,
            Error::Usage(_) | Error::BadInput(_) => StatusCode::BAD_REQUEST,
            Error::Redis { .. } => StatusCode::BAD_GATEWAY,
            _ => StatusCode::SERVICE_UNAVAILABLE,
        };
        Refusal::new(status, e.to_string())
    }
}

impl From<Error> for Refusal {
    fn from(e: Error) -> Refusal {
        Refusal::of(&e)
    }
}

/// `text` as one segment of a URL's path: every byte but letters, digits and `-._~`
/// percent-encoded (a `/` in an id is `%2F`); the routes decode it back.
pub fn segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `/queues/{queue}`.
pub fn queue_path(queue: &str) -> String {
    format!("/queues/{}", segment(queue))
}

/// `/queues/{queue}/{state}`.
pub fn list_path(queue: &str, state: State) -> String {
    format!("{}/{}", queue_path(queue), state.segment())
}

/// `/queues/{queue}/dead/groups`, `/queues/{queue}/scheduled/groups`.
pub fn groups_path(queue: &str, place: Place) -> String {
    let state = match place {
        Place::Scheduled => State::Scheduled,
        _ => State::Dead,
    };
    format!("{}/groups", list_path(queue, state))
}

/// `/queues/{queue}/jobs/{id}`: the job's page.
pub fn job_path(queue: &str, id: &str) -> String {
    format!("{}/jobs/{}", queue_path(queue), segment(id))
}

/// `path` with a query of `pairs` (form-encoded), or `path` alone without any.
pub fn with_query(path: &str, pairs: &[(&str, &str)]) -> String {
    if pairs.is_empty() {
        return path.to_string();
    }
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in pairs {
        query.append_pair(name, value);
    }
    format!("{path}?{}", query.finish())
}

/// The queue a page asks for, when `qctl web` shows it: among the names it was started with
/// (when it was given names), and with a key on the server (or counted by the last
/// reading). Anything else is not found, in the words of the CLI.
pub async fn find(app: &App, queue: &str) -> Result<QueueKeys, Refusal> {
    if !app.named.is_empty() && !app.named.iter().any(|q| q == queue) {
        let known: Vec<String> = app
            .named
            .iter()
            .map(|q| engine::text::printable(q))
            .collect();
        return Err(Refusal::not_found(format!(
            "no queue {queue:?} (known: {})",
            known.join(", ")
        )));
    }
    let keys = app.keys(queue)?;
    if !app.named.is_empty() || stats(app, queue).is_some() {
        return Ok(keys);
    }
    let mut redis = app.link.redis().await?;
    match engine::queues::require(&mut redis, &keys).await {
        Ok(()) => Ok(keys),
        Err(e) => {
            app.link.failed(&e).await;
            Err(e.into())
        }
    }
}

/// The counts of `queue` in the last reading, if it counted it.
pub fn stats(app: &App, queue: &str) -> Option<QueueStats> {
    let latest = app.latest.borrow().clone();
    let snapshot = latest.snapshot.as_ref()?;
    snapshot.stats.iter().find(|s| s.queue == queue).cloned()
}

/// The query parameters of a request, in order; a parameter given twice counts as its last
/// value, as a flag given twice does.
pub fn parameters(query: Option<&str>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (name, value) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        out.retain(|(n, _)| *n != name);
        out.push((name.into_owned(), value.into_owned()));
    }
    out
}

/// The flag of a query parameter and its value's name, as clap names it in an error
/// (`--min-attempts <N>`).
fn flag(name: &str) -> String {
    let value = match name {
        "grep" | "reason" => "TEXT",
        "group" => "FP",
        "since" | "until" => "TIME",
        _ => "N",
    };
    format!("--{} <{value}>", name.replace('_', "-"))
}

/// A parameter's value read by the CLI's parser for its flag; an error in clap's words.
fn read<T>(
    name: &str,
    value: &str,
    parser: impl Fn(&str) -> Result<T, String>,
) -> Result<T, Refusal> {
    parser(value).map_err(|e| {
        Refusal::bad(format!(
            "invalid value '{value}' for '{}' (the parameter {name}): {e}",
            flag(name)
        ))
    })
}

/// The parameters of `query` given with a value (a form sends its empty fields: they count
/// as not given); one that is none of `known` is refused, saying what `what` takes.
fn given(
    query: Option<&str>,
    known: &[&str],
    what: &str,
) -> Result<Vec<(String, String)>, Refusal> {
    let given: Vec<(String, String)> = parameters(query)
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .collect();
    for (name, _) in &given {
        if !known.contains(&name.as_str()) {
            return Err(Refusal::bad(format!(
                "unexpected parameter {name:?}: {what} takes {}",
                known.join(", ")
            )));
        }
    }
    Ok(given)
}

/// What a page of a list asks for: the flags of its command.
#[derive(Debug, Clone)]
pub struct Asked {
    pub offset: u64,
    pub limit: u64,
    pub filter: Filter,
    /// The parameters given with a value, but `offset` (for the links to other pages).
    pub given: Vec<(String, String)>,
}

impl Asked {
    /// The value given for `name`, or "".
    pub fn value(&self, name: &str) -> &str {
        value_of(&self.given, name)
    }

    /// The query of the page at `offset` with these parameters.
    pub fn at(&self, path: &str, offset: u64) -> String {
        let offset = offset.to_string();
        let mut pairs: Vec<(&str, &str)> = self
            .given
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        if offset != "0" {
            pairs.push(("offset", &offset));
        }
        with_query(path, &pairs)
    }
}

/// Reads the query of a page of `state`: its command's flags, with their defaults
/// (`limit` 20), read by their parsers; an empty value counts as not given (a form sends
/// its empty fields).
pub fn ask(state: State, query: Option<&str>) -> Result<Asked, Refusal> {
    let command = format!("the list of {} (qctl {})", state.segment(), state.command());
    let given = given(query, state.parameters(), &command)?;
    let mut asked = Asked {
        offset: 0,
        limit: 20,
        filter: Filter::default(),
        given: Vec::new(),
    };
    for (name, value) in &given {
        let f = &mut asked.filter;
        match name.as_str() {
            "offset" => {
                asked.offset = read(name, value, |v| v.parse().map_err(|e| format!("{e}")))?
            }
            "limit" => asked.limit = read(name, value, page_size)?,
            "grep" => f.grep = Some(value.clone()),
            "reason" => f.reason = Some(value.clone()),
            "group" => f.group = Some(read(name, value, parse::parse_group)?),
            "since" => f.since = Some(read(name, value, parse::parse_time_or_age)?),
            "until" => f.until = Some(read(name, value, parse::parse_time_or_age)?),
            "min_attempts" => f.min_attempts = Some(read(name, value, parse::parse_count)?),
            _ => {}
        }
    }
    if let Some(place) = state.place() {
        asked.filter = asked.filter.for_place(place)?;
    }
    asked.given = given.into_iter().filter(|(n, _)| n != "offset").collect();
    Ok(asked)
}

/// A page's size: 1 to [`MOST_PER_PAGE`] jobs.
fn page_size(value: &str) -> Result<u64, String> {
    let n: u64 = value.trim().parse().map_err(|e| format!("{e}"))?;
    if (1..=MOST_PER_PAGE).contains(&n) {
        Ok(n)
    } else {
        Err(format!(
            "a page holds 1 to {MOST_PER_PAGE} jobs (--limit 0, every one, is the CLI's: qctl dead list --limit 0)"
        ))
    }
}

/// What a page of failures grouped asks for: the flags of `dead groups`.
#[derive(Debug, Clone)]
pub struct AskedGroups {
    /// How many groups to show, the largest first (0: all).
    pub limit: usize,
    pub since: Option<f64>,
    pub until: Option<f64>,
    pub given: Vec<(String, String)>,
}

impl AskedGroups {
    /// The value given for `name`, or "".
    pub fn value(&self, name: &str) -> &str {
        value_of(&self.given, name)
    }
}

/// The value given for `name` among `given`, or "".
fn value_of<'a>(given: &'a [(String, String)], name: &str) -> &'a str {
    given
        .iter()
        .find(|(n, _)| n == name)
        .map_or("", |(_, v)| v.as_str())
}

/// Reads the query of a page of failures grouped: `limit` (20; 0 shows every group),
/// `since`, `until`.
pub fn ask_groups(query: Option<&str>) -> Result<AskedGroups, Refusal> {
    let given = given(
        query,
        &["limit", "since", "until"],
        "the failures grouped (qctl dead groups)",
    )?;
    let mut asked = AskedGroups {
        limit: 20,
        since: None,
        until: None,
        given: Vec::new(),
    };
    for (name, value) in &given {
        match name.as_str() {
            "limit" => {
                asked.limit = read(name, value, |v| {
                    v.trim().parse().map_err(|e| format!("{e}"))
                })?
            }
            "since" => asked.since = Some(read(name, value, parse::parse_time_or_age)?),
            "until" => asked.until = Some(read(name, value, parse::parse_time_or_age)?),
            _ => {}
        }
    }
    asked.given = given;
    Ok(asked)
}

/// The failures of `place` grouped by cause, as `dead groups` and `scheduled groups` read
/// them.
pub async fn groups(
    app: &App,
    keys: &QueueKeys,
    place: Place,
    asked: &AskedGroups,
) -> Result<Groups, Error> {
    let mut redis = app.link.redis().await?;
    let found = groups::walk(
        &mut redis,
        keys,
        place.key(keys),
        asked.since,
        asked.until,
        |_| {},
    )
    .await;
    if let Err(e) = &found {
        app.link.failed(e).await;
    }
    found
}

/// One job of a page, with what its list knows of it.
pub struct Listed {
    pub entry: Entry,
    /// Its place in the list (0 for the first).
    pub index: u64,
    /// In flight: who holds it and since when.
    pub held: Option<InFlight>,
}

/// Where a [`Lister`] reads from.
enum Source {
    /// A page of a place's key, found by rank.
    Place { place: Place, pager: Pager },
    /// A page of the jobs in flight, as `qctl inflight` reads them: every consumer's set,
    /// the page taken from them, its records read in chunks.
    InFlight {
        page: VecDeque<InFlight>,
        ahead: Option<(Vec<InFlight>, Fetched)>,
        described: HashMap<String, Description>,
        total: u64,
    },
}

/// A page of one of a queue's lists, read chunk by chunk (so that a page of large records
/// is written out as it is read, in bounded memory), as the CLI's command reads it.
pub struct Lister {
    redis: Redis,
    keys: QueueKeys,
    pub state: State,
    pub offset: u64,
    pub limit: u64,
    filter: Filter,
    source: Source,
    /// The clock the times are shown by: this host's for the places (as `dead list`), the
    /// server's for jobs in flight (as `inflight`).
    pub now: f64,
    /// Jobs handed out so far.
    pub shown: u64,
}

impl Lister {
    /// Starts reading the page `asked` of `state`: the first round trips tell its total.
    pub async fn open(
        app: &App,
        keys: &QueueKeys,
        state: State,
        asked: &Asked,
    ) -> Result<Lister, Error> {
        let mut redis = app.link.redis().await?;
        let opened = Lister::start(&mut redis, keys, state, asked).await;
        match opened {
            Ok((source, now)) => Ok(Lister {
                redis,
                keys: keys.clone(),
                state,
                offset: asked.offset,
                limit: asked.limit,
                filter: asked.filter.clone(),
                source,
                now,
                shown: 0,
            }),
            Err(e) => {
                app.link.failed(&e).await;
                Err(e)
            }
        }
    }

    async fn start(
        redis: &mut Redis,
        keys: &QueueKeys,
        state: State,
        asked: &Asked,
    ) -> Result<(Source, f64), Error> {
        match state.place() {
            Some(place) => {
                let pager =
                    Pager::of(redis, keys, place, &asked.filter, asked.offset, asked.limit).await?;
                Ok((Source::Place { place, pager }, engine::now()))
            }
            None => {
                let seen = consumers::seen(redis, keys).await?;
                let jobs = consumers::in_flight(redis, keys, &seen.list).await?;
                let total = jobs.len() as u64;
                let page = jobs
                    .into_iter()
                    .skip(asked.offset.min(total) as usize)
                    .take(asked.limit as usize)
                    .collect();
                let described = seen
                    .descriptions()
                    .into_iter()
                    .map(|(k, d)| (k.to_string(), d.clone()))
                    .collect();
                Ok((
                    Source::InFlight {
                        page,
                        ahead: None,
                        described,
                        total,
                    },
                    seen.now,
                ))
            }
        }
    }

    /// How many jobs the list holds (before the filters that read records).
    pub fn total(&self) -> u64 {
        match &self.source {
            Source::Place { pager, .. } => pager.total(),
            Source::InFlight { total, .. } => *total,
        }
    }

    /// The offset of the page after this one, once this one was read to its end.
    pub fn next_offset(&self) -> Option<u64> {
        match &self.source {
            Source::Place { pager, .. } => pager.next_offset(),
            Source::InFlight { total, .. } => {
                let end = self.offset.saturating_add(self.shown);
                (end < *total).then_some(end)
            }
        }
    }

    /// The key the list reads, or for jobs in flight `in flight`, as the CLI's closing line
    /// names it (`20 shown of 90 in mail:dead`).
    pub fn key(&self) -> String {
        match &self.source {
            Source::Place { place, .. } => format!("in {}", place.key(&self.keys)),
            Source::InFlight { .. } => "in flight".into(),
        }
    }

    /// The next jobs of the page, or None at its end.
    pub async fn next(&mut self) -> Result<Option<Vec<Listed>>, Error> {
        let first = self.offset + self.shown;
        let chunk = match &mut self.source {
            Source::Place { pager, .. } => {
                let Some(entries) = pager.next(&mut self.redis, &self.keys).await? else {
                    return Ok(None);
                };
                entries
                    .into_iter()
                    .enumerate()
                    .map(|(i, entry)| Listed {
                        entry,
                        index: first + i as u64,
                        held: None,
                    })
                    .collect::<Vec<_>>()
            }
            Source::InFlight { page, ahead, .. } => {
                // Measured ids, as many as fit in a call's budget read at a time.
                let (held, mut fetched) = match ahead.take() {
                    Some(next) => next,
                    None => {
                        if page.is_empty() {
                            return Ok(None);
                        }
                        let n = page.len().min(INFLIGHT_CHUNK);
                        let held: Vec<InFlight> = page.drain(..n).collect();
                        let ids = held.iter().map(|j| (j.id.clone(), None)).collect();
                        let fetched =
                            Fetched::measure(&mut self.redis, &self.keys, ids, true).await?;
                        (held, fetched)
                    }
                };
                let rest = fetched.truncate(CALL_BYTES);
                let mut held = held;
                if !rest.is_empty() {
                    let later = held.split_off(fetched.ids().len());
                    *ahead = Some((later, rest));
                }
                fetched.read(&mut self.redis, &self.keys).await?;
                fetched
                    .decode()
                    .into_iter()
                    .zip(held)
                    .enumerate()
                    .map(|(i, (entry, job))| Listed {
                        entry,
                        index: first + i as u64,
                        held: Some(job),
                    })
                    .collect()
            }
        };
        self.shown += chunk.len() as u64;
        Ok(Some(chunk))
    }

    /// A job as its command's `--json` writes it.
    pub fn json(&self, l: &Listed) -> serde_json::Value {
        match (&self.source, &l.held) {
            (Source::Place { place, .. }, _) => listed_json(&l.entry, *place),
            (Source::InFlight { described, .. }, Some(job)) => {
                inflight_json(&l.entry, job, described.get(&job.consumer), self.now)
            }
            (Source::InFlight { .. }, None) => serde_json::Value::Null,
        }
    }

    /// Its command's columns.
    pub fn columns(&self) -> &'static [(&'static str, Fit)] {
        match &self.source {
            Source::Place { place, .. } => listed_columns(*place),
            Source::InFlight { .. } => &INFLIGHT_COLUMNS,
        }
    }

    /// A job's row as its command's table shows it.
    pub fn cells(&self, l: &Listed) -> Vec<String> {
        match (&self.source, &l.held) {
            (Source::Place { place, .. }, _) => listed_cells(*place, &l.entry, l.index, self.now),
            (Source::InFlight { described, .. }, Some(job)) => inflight_cells(
                &l.entry,
                job,
                described.get(&job.consumer),
                &self.keys,
                self.now,
            ),
            (Source::InFlight { .. }, None) => Vec::new(),
        }
    }

    /// Why the page shows no job, in its command's words.
    pub async fn nothing_shown(&mut self) -> Result<String, Error> {
        match &self.source {
            Source::Place { place, .. } => {
                listing::nothing_shown(
                    &mut self.redis,
                    &self.keys,
                    *place,
                    &self.filter,
                    self.offset,
                )
                .await
            }
            Source::InFlight { total: 0, .. } => {
                Ok(format!("no jobs in flight in queue {:?}", self.keys.name))
            }
            Source::InFlight { total, .. } => Ok(format!(
                "no jobs in flight at --offset {} ({total} in all)",
                self.offset
            )),
        }
    }
}

/// What a queue's summary shows beside its counts: its consumers (as `qctl consumers`),
/// what each runs now (as `qctl inflight`), its limits (as `qctl limit`) and what happened
/// in the last ten minutes (as `qctl tail --no-follow --since 10m`). Each part is read on
/// its own: Redis refusing one (a key of the wrong type, a command the user may not run) is
/// said in its place, as the command would say it, and the others are shown.
pub struct Summary {
    /// Its counts in the last reading (None: not counted yet).
    pub stats: Option<QueueStats>,
    pub consumers: Result<Consumers, Error>,
    pub limits: Result<(Limits, Usage), Error>,
    pub events: Result<Events, Error>,
    /// Whether it is paused, read now (the reading may be older than a pause just made).
    pub paused: Result<bool, Error>,
    /// Whether the Redis user may pause and resume it (None: changes are not offered).
    pub may_pause: Option<Result<Permission, Error>>,
}

/// The consumers of a queue and the jobs they hold, longest running first.
pub struct Consumers {
    pub seen: Seen,
    pub running: Vec<InFlight>,
}

/// What happened to a queue since `since`, oldest first.
pub struct Events {
    pub happened: Vec<(f64, Happening)>,
    pub since: f64,
    /// The server's clock when they were read.
    pub now: f64,
    /// More happened than one reading of `tail` reads: only the first are shown.
    pub more: bool,
}

/// Whether the Redis user may do `group` of work on the queue (see `qctl doctor`'s rights),
/// for a page that offers changes; None when qctl web changes nothing (`--read-only`).
pub async fn may(
    app: &App,
    keys: &QueueKeys,
    group: &'static str,
) -> Option<Result<Permission, Error>> {
    if app.changes.read_only {
        return None;
    }
    let checked = async {
        let mut redis = app.link.redis().await?;
        let uuid = uuid::Uuid::new_v4().hyphenated().to_string();
        engine::doctor::permission(&mut redis, keys, group, &uuid).await
    };
    let checked: Result<Permission, Error> = checked.await;
    if let Err(e) = &checked {
        app.link.failed(e).await;
    }
    Some(checked)
}

/// Why changes of `may` are not offered: None when they are (allowed, or it could not be
/// told: the change then says what Redis says).
pub fn not_offered(
    may: Option<&Result<Permission, Error>>,
    doing: &str,
    queue: &str,
) -> Option<String> {
    let refused = match may? {
        Ok(p) if p.allowed == Some(false) => p.refused.clone()?,
        Ok(_) => return None,
        Err(e) => e.to_string(),
    };
    Some(format!(
        "the Redis user qctl web reads with may not {doing} this queue: {refused} (qctl doctor {} shows every right)",
        engine::text::shell_quote(queue)
    ))
}

/// Reads a queue's summary; a failure to reach Redis (rather than a refusal of one part)
/// fails the whole.
pub async fn summary(app: &App, keys: &QueueKeys) -> Result<Summary, Error> {
    let mut redis = app.link.redis().await?;
    let consumers = read_consumers(&mut redis, keys).await;
    let limits = read_limits(&mut redis, app, keys).await;
    let paused = engine::queues::is_paused(&mut redis, keys).await;
    let may_pause = if app.changes.read_only {
        None
    } else {
        let uuid = uuid::Uuid::new_v4().hyphenated().to_string();
        Some(engine::doctor::permission(&mut redis, keys, "pause", &uuid).await)
    };
    let now = match &consumers {
        Ok(c) => Ok(c.seen.now),
        Err(_) => redis.server_time().await,
    };
    let events = match now {
        Ok(now) => read_events(&mut redis, app, keys, now).await,
        Err(e) => Err(e),
    };
    for part in [
        consumers.as_ref().err(),
        limits.as_ref().err(),
        events.as_ref().err(),
        paused.as_ref().err(),
        may_pause.as_ref().and_then(|p| p.as_ref().err()),
    ] {
        if let Some(e) = part.filter(|e| !e.is_refusal()) {
            app.link.failed(e).await;
            return Err(e.clone());
        }
    }
    Ok(Summary {
        stats: stats(app, &keys.name),
        consumers,
        limits,
        events,
        paused,
        may_pause,
    })
}

async fn read_consumers(redis: &mut Redis, keys: &QueueKeys) -> Result<Consumers, Error> {
    let seen = consumers::seen(redis, keys).await?;
    let running = consumers::in_flight(redis, keys, &seen.list).await?;
    Ok(Consumers { seen, running })
}

async fn read_limits(
    redis: &mut Redis,
    app: &App,
    keys: &QueueKeys,
) -> Result<(Limits, Usage), Error> {
    let limits = limits::read(redis, keys).await?;
    let usage = limits::usage(redis, keys, &limits, app.orphan_after).await?;
    Ok((limits, usage))
}

async fn read_events(
    redis: &mut Redis,
    app: &App,
    keys: &QueueKeys,
    now: f64,
) -> Result<Events, Error> {
    let since = now - EVENTS_SINCE;
    let mut follower = Follower::new(keys.clone(), since, app.orphan_after.as_secs_f64());
    let tick = follower.tick(redis, now).await?;
    Ok(Events {
        happened: tick.happened,
        since,
        now,
        more: tick.behind,
    })
}

/// What a search page asks: `text`, `in` (places, repeated or comma-separated: ready,
/// scheduled, inflight, dead; none: every one), `limit` (jobs found, 1 to
/// [`MOST_PER_PAGE`], 50 by default) and `max_scan` (jobs looked at; 0: every one; `qctl
/// find`'s default), read as `qctl find` reads its flags.
pub fn ask_find(query: Option<&str>) -> Result<Search, Refusal> {
    let mut search = Search::everywhere("");
    search.limit = Some(50);
    let mut places: Vec<Where> = Vec::new();
    for (name, value) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        match name.as_ref() {
            "text" => search.text = value.into_owned(),
            "in" => {
                for word in value.split(',').map(str::trim).filter(|w| !w.is_empty()) {
                    match Where::from_name(word) {
                        Some(place) if !places.contains(&place) => places.push(place),
                        Some(_) => {}
                        None => {
                            return Err(Refusal::bad(format!(
                                "invalid value '{word}' for '--in <PLACES>' (the parameter in): one of ready, scheduled, inflight, dead"
                            )))
                        }
                    }
                }
            }
            "limit" if !value.is_empty() => search.limit = Some(read("limit", &value, page_size)?),
            "max_scan" if !value.is_empty() => {
                let n: u64 = read("max_scan", &value, |v| {
                    v.trim().parse().map_err(|e| format!("{e}"))
                })?;
                search.max_scan = (n > 0).then_some(n);
            }
            "limit" | "max_scan" => {}
            other => {
                return Err(Refusal::bad(format!(
                    "unexpected parameter {other:?}: a search takes text, in, limit, max_scan"
                )))
            }
        }
    }
    if !places.is_empty() {
        search.places = Where::ALL
            .into_iter()
            .filter(|w| places.contains(w))
            .collect();
    }
    Ok(search)
}

/// The jobs of `keys` that hold `search.text`, as `qctl find` finds them, and what was
/// searched.
pub async fn search(
    app: &App,
    keys: &QueueKeys,
    search: &Search,
) -> Result<(Vec<Hit>, Report), Error> {
    let mut redis = app.link.redis().await?;
    let mut hits = Vec::new();
    let found = engine::find::find(&mut redis, keys, search, |hit| {
        hits.push(hit);
        std::ops::ControlFlow::Continue(())
    })
    .await;
    match found {
        Ok(report) => Ok((hits, report)),
        Err(e) => {
            app.link.failed(&e).await;
            Err(e)
        }
    }
}

/// What a page of the record of changes asks: `since`, `until` (as `qctl changes` reads
/// them) and `limit` (the newest N, 1 to [`MOST_PER_PAGE`], 50 by default).
pub struct AskedChanges {
    pub since: Option<f64>,
    pub until: Option<f64>,
    pub limit: u64,
    pub given: Vec<(String, String)>,
}

impl AskedChanges {
    /// The value given for `name`, or "".
    pub fn value(&self, name: &str) -> &str {
        value_of(&self.given, name)
    }
}

/// Reads the query of a page of the record of changes.
pub fn ask_changes(query: Option<&str>) -> Result<AskedChanges, Refusal> {
    let given = given(
        query,
        &["since", "until", "limit"],
        "the record of changes (qctl changes)",
    )?;
    let mut asked = AskedChanges {
        since: None,
        until: None,
        limit: 50,
        given: Vec::new(),
    };
    for (name, value) in &given {
        match name.as_str() {
            "since" => asked.since = Some(read(name, value, parse::parse_time_or_age)?),
            "until" => asked.until = Some(read(name, value, parse::parse_time_or_age)?),
            "limit" => asked.limit = read(name, value, page_size)?,
            _ => {}
        }
    }
    asked.given = given;
    Ok(asked)
}

/// The newest changes of the queue's record in the span asked, oldest first, as `qctl
/// changes` lists them.
pub async fn changes(
    app: &App,
    keys: &QueueKeys,
    asked: &AskedChanges,
) -> Result<Vec<ChangeEntry>, Error> {
    let read = async {
        let mut redis = app.link.redis().await?;
        engine::changes::list(
            &mut redis,
            keys,
            asked.since,
            asked.until,
            asked.limit as usize,
        )
        .await
    };
    match read.await {
        Ok(mut entries) => {
            entries.reverse();
            Ok(entries)
        }
        Err(e) => {
            app.link.failed(&e).await;
            Err(e)
        }
    }
}
