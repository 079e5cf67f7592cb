//! Looking for a text in a queue's jobs (`qctl find`): in their ids, their data and the
//! failures qctl recorded, across the dead, scheduled, in-flight and ready jobs. An exact id
//! is looked up first, in one round trip whatever the queue's size; then `lua/find.lua`
//! scans each place inside Redis a bounded chunk at a time, and only the jobs that may hold
//! the text are read here. Results go to a sink as they are found.

use std::ops::ControlFlow;

use redis::Value;

use super::conn::Redis;
use super::error::Error;
use super::jobs::Location;
use super::keys::QueueKeys;
use super::listing::Entry;
use super::scripts;
use super::text::{plural, thousands};

/// The most jobs one call of `lua/find.lua` looks at: about 2 ms of Redis's time for records
/// of a hundred bytes on a 2-core machine (`bench/find` measures it beside `dead list`).
pub const BATCH: u64 = 500;

/// The bytes of records one call reads before it stops (it stops after the record that
/// takes it past them, so a record larger than this is read alone).
pub const CALL_READ: u64 = 1 << 20;

/// The jobs a search looks at unless told otherwise (`--max-scan`): a few seconds of work.
pub const DEFAULT_MAX_SCAN: u64 = 1_000_000;

/// Where a job waits, as a search names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Where {
    Dead,
    Scheduled,
    InFlight,
    Ready,
}

impl Where {
    /// The order a search goes through them: the dead first (what one looks for most), the
    /// ready list, the longest, last.
    pub const ALL: [Where; 4] = [Where::Dead, Where::Scheduled, Where::InFlight, Where::Ready];

    /// Its name in JSON and in `--in`: `dead`, `scheduled`, `inflight`, `ready`.
    pub fn name(self) -> &'static str {
        match self {
            Where::Dead => "dead",
            Where::Scheduled => "scheduled",
            Where::InFlight => "inflight",
            Where::Ready => "ready",
        }
    }

    /// The place by its name (see [`Where::name`]).
    pub fn from_name(name: &str) -> Option<Where> {
        Where::ALL.into_iter().find(|w| w.name() == name)
    }

    /// Its jobs in words, before `jobs`: `dead`, `scheduled`, `in-flight`, `ready`.
    pub fn words(self) -> &'static str {
        match self {
            Where::InFlight => "in-flight",
            other => other.name(),
        }
    }
}

/// What of a job holds the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matched {
    Id,
    Data,
    Failure,
}

impl Matched {
    pub fn name(self) -> &'static str {
        match self {
            Matched::Id => "id",
            Matched::Data => "data",
            Matched::Failure => "failure",
        }
    }
}

/// A job that holds the text.
#[derive(Debug)]
pub struct Hit {
    /// Where it is; None for a record in no place (stranded), found by its exact id.
    pub place: Option<Where>,
    /// Its record and recorded failure; its score is its time of death (dead), its due time
    /// (scheduled), or the jobs ahead of it (ready).
    pub entry: Entry,
    /// In flight: the consumer's in-flight key.
    pub consumer: Option<String>,
    /// What holds the text, in the order id, data, failure.
    pub matched: Vec<Matched>,
}

/// What to look for, where, and how much to do.
#[derive(Clone, Debug)]
pub struct Search {
    /// The text, matched byte for byte (case counts).
    pub text: String,
    /// The places to look in, in the order of [`Where::ALL`].
    pub places: Vec<Where>,
    /// The most jobs to look at (None: every one).
    pub max_scan: Option<u64>,
    /// The most jobs to find (None: every one).
    pub limit: Option<u64>,
}

impl Search {
    /// Every place.
    pub fn everywhere(text: &str) -> Search {
        Search {
            text: text.to_string(),
            places: Where::ALL.to_vec(),
            max_scan: Some(DEFAULT_MAX_SCAN),
            limit: None,
        }
    }

    fn looks_in(&self, place: Where) -> bool {
        self.places.contains(&place)
    }
}

/// Why a search ended before it had looked at every job of its places.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// It had looked at `--max-scan` jobs.
    MaxScan(u64),
    /// It had found `--limit` jobs.
    Limit(u64),
    /// The sink asked to stop (its reader went away).
    Sink,
}

/// How far a search went in one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Searched {
    pub place: Where,
    /// The jobs it looked at.
    pub looked: u64,
    /// The jobs the place held when the search began.
    pub held: u64,
    /// Whether it looked at every job there (to the end of the place as it was then).
    pub whole: bool,
}

/// What a search did: how many jobs it found and what it looked at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub found: u64,
    /// Whether the text is the id of a job, found by its id.
    pub by_id: bool,
    pub places: Vec<Searched>,
    pub stopped: Option<Stopped>,
}

impl Report {
    /// The jobs looked at, in every place.
    pub fn looked(&self) -> u64 {
        self.places.iter().map(|p| p.looked).sum()
    }

    /// What was searched, in words: `searched all 1,000,000 dead and 200,000 of 3,000,000
    /// ready jobs: stopped at --max-scan 1,200,000`.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .places
            .iter()
            .map(|p| match (p.whole, p.looked) {
                (_, 0) if p.held == 0 => format!("no {}", p.place.words()),
                (true, n) => format!("all {} {}", thousands(n), p.place.words()),
                (false, n) => format!(
                    "{} of {} {}",
                    thousands(n),
                    thousands(p.held.max(n)),
                    p.place.words()
                ),
            })
            .collect();
        let list = match parts.as_slice() {
            [] => "nothing".to_string(),
            [one] => one.clone(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        };
        let mut text = format!("searched {list} jobs");
        match self.stopped {
            Some(Stopped::MaxScan(n)) => text.push_str(&format!(
                ": stopped at --max-scan {} (--max-scan 0 searches every job)",
                thousands(n)
            )),
            Some(Stopped::Limit(n)) => {
                text.push_str(&format!(": stopped at --limit {}", plural(n, "result")))
            }
            Some(Stopped::Sink) => text.push_str(": stopped (its output was closed)"),
            None => {}
        }
        text
    }
}

/// The text as JSON writes it inside a string: a failure record holds its reason and stderr
/// so escaped.
fn json_escaped(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or(text)
        .to_string()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || memchr::memmem::find(hay, needle).is_some()
}

/// What of `e` holds `text`: its id, its data (the stored bytes of a record that cannot be
/// decoded), its failure's reason or stderr (the stored bytes of a failure record that
/// cannot be read).
pub fn matched(e: &Entry, text: &str) -> Vec<Matched> {
    let needle = text.as_bytes();
    let mut out = Vec::new();
    if contains(e.id.as_bytes(), needle) {
        out.push(Matched::Id);
    }
    let data = match &e.job {
        Some(Ok(job)) => contains(job.data_bytes(), needle),
        Some(Err(_)) => e.raw.as_deref().is_some_and(|r| contains(r, needle)),
        None => false,
    };
    if data {
        out.push(Matched::Data);
    }
    let failure = match (&e.failure, &e.failure_raw) {
        (Some(f), _) => {
            contains(f.reason.as_bytes(), needle) || contains(f.stderr.as_bytes(), needle)
        }
        (None, Some(raw)) => contains(raw, needle),
        (None, None) => false,
    };
    if failure {
        out.push(Matched::Failure);
    }
    out
}

/// Looks for `search.text` in the jobs of `keys`, giving each job found to `sink` as it is
/// found (the job whose id is the text first); `sink` may ask to stop. Reads only. A key of
/// the wrong type is an error naming it, but an in-flight set of another type, which is
/// passed over (`qctl consumers` shows it).
pub async fn find(
    redis: &mut Redis,
    keys: &QueueKeys,
    search: &Search,
    mut sink: impl FnMut(Hit) -> ControlFlow<()>,
) -> Result<Report, Error> {
    let mut run = Run {
        search,
        keys,
        found: 0,
        left: search.max_scan,
        stopped: None,
    };
    let (held, inflight) = held(redis, keys, search).await?;
    let mut by_id = false;
    if let Some(hit) = exact(redis, keys, search).await? {
        by_id = true;
        run.give(hit, &mut sink);
    }
    let mut places = Vec::new();
    for (place, held) in held {
        let mut searched = Searched {
            place,
            looked: 0,
            held,
            whole: false,
        };
        if run.stopped.is_none() {
            match place {
                Where::InFlight => {
                    run.ids(redis, &inflight, &mut searched, &mut sink).await?;
                }
                _ => run.range(redis, &mut searched, &mut sink).await?,
            }
        }
        places.push(searched);
    }
    // A limit reached with the last job looked at stopped nothing.
    if matches!(run.stopped, Some(Stopped::Limit(_))) && places.iter().all(|p| p.whole) {
        run.stopped = None;
    }
    Ok(Report {
        found: run.found,
        by_id,
        places,
        stopped: run.stopped,
    })
}

/// What each place of the search holds, in one round trip (and one more for the in-flight
/// sets): the places in order with their counts, and the in-flight ids with their sets.
#[allow(clippy::type_complexity)]
async fn held(
    redis: &mut Redis,
    keys: &QueueKeys,
    search: &Search,
) -> Result<(Vec<(Where, u64)>, Vec<(String, String)>), Error> {
    let mut pipe = redis::pipe();
    pipe.zcard(&keys.dead)
        .zcard(&keys.scheduled)
        .llen(&keys.active)
        .zrange(&keys.consumers, 0, -1);
    let ops = [
        format!("ZCARD {}", keys.dead),
        format!("ZCARD {}", keys.scheduled),
        format!("LLEN {}", keys.active),
        format!("ZRANGE {}", keys.consumers),
    ];
    pipe.ignore_errors();
    let replies = redis.pipeline_each(&pipe, |i| ops[i].clone()).await?;
    let server = redis.server().to_string();
    // A key of a place not searched may hold anything.
    let searched = [
        search.looks_in(Where::Dead),
        search.looks_in(Where::Scheduled),
        search.looks_in(Where::Ready),
        search.looks_in(Where::InFlight),
    ];
    let mut values = Vec::new();
    for (i, reply) in replies.into_iter().enumerate() {
        values.push(match reply {
            Ok(v) => Some(v),
            Err(_) if !searched.get(i).copied().unwrap_or(true) => None,
            Err(e) => return Err(e),
        });
    }
    let count = |i: usize| -> Result<u64, Error> {
        match values.get(i).cloned().flatten() {
            Some(v) => redis::from_redis_value(v)
                .map_err(|e| Error::from_redis(&server, &ops[i], e.into())),
            None => Ok(0),
        }
    };
    let (dead, scheduled, ready) = (count(0)?, count(1)?, count(2)?);
    let consumers: Vec<String> = match values.get(3).cloned().flatten() {
        Some(v) => {
            redis::from_redis_value(v).map_err(|e| Error::from_redis(&server, &ops[3], e.into()))?
        }
        None => Vec::new(),
    };
    let mut inflight = Vec::new();
    if search.looks_in(Where::InFlight) {
        let sets: Vec<String> = consumers
            .into_iter()
            .filter(|k| keys.is_inflight_key(k))
            .collect();
        if !sets.is_empty() {
            let mut pipe = redis::pipe();
            pipe.ignore_errors();
            for key in &sets {
                pipe.smembers(key);
            }
            let replies = redis
                .pipeline_each(&pipe, |i| format!("SMEMBERS {}", sets[i]))
                .await?;
            for (key, reply) in sets.iter().zip(replies) {
                let ids: Vec<String> = match reply {
                    Ok(v) => redis::from_redis_value(v).map_err(|e| {
                        Error::from_redis(&server, format!("SMEMBERS {key}"), e.into())
                    })?,
                    // As `consumers` shows it: a set of another type holds no job.
                    Err(e) if e.code() == Some("WRONGTYPE") => Vec::new(),
                    Err(e) => return Err(e),
                };
                inflight.extend(ids.into_iter().map(|id| (key.clone(), id)));
            }
        }
    }
    let held = Where::ALL
        .into_iter()
        .filter(|p| search.looks_in(*p))
        .map(|p| {
            let n = match p {
                Where::Dead => dead,
                Where::Scheduled => scheduled,
                Where::InFlight => inflight.len() as u64,
                Where::Ready => ready,
            };
            (p, n)
        })
        .collect();
    Ok((held, inflight))
}

/// The job whose id is the text, where it is, when it is in a place searched: HEXISTS and
/// ZSCORE in one round trip, then where it is only when it has a record and is neither dead
/// nor scheduled.
async fn exact(redis: &mut Redis, keys: &QueueKeys, search: &Search) -> Result<Option<Hit>, Error> {
    let id = search.text.as_str();
    let mut pipe = redis::pipe();
    pipe.ignore_errors()
        .hexists(&keys.data, id)
        .zscore(&keys.dead, id)
        .zscore(&keys.scheduled, id);
    let ops = [
        format!("HEXISTS {}", keys.data),
        format!("ZSCORE {}", keys.dead),
        format!("ZSCORE {}", keys.scheduled),
    ];
    let replies = redis.pipeline_each(&pipe, |i| ops[i].clone()).await?;
    let server = redis.server().to_string();
    // A key of a place not searched may hold anything.
    let searched = [
        true,
        search.looks_in(Where::Dead),
        search.looks_in(Where::Scheduled),
    ];
    let mut values: Vec<Option<Value>> = Vec::new();
    for (i, reply) in replies.into_iter().enumerate() {
        values.push(match reply {
            Ok(v) => Some(v),
            Err(_) if !searched.get(i).copied().unwrap_or(true) => None,
            Err(e) => return Err(e),
        });
    }
    values.resize(3, None);
    let mut values = values.into_iter();
    let exists: bool = match values.next().flatten() {
        Some(v) => {
            redis::from_redis_value(v).map_err(|e| Error::from_redis(&server, &ops[0], e.into()))?
        }
        None => false,
    };
    let mut score = |i: usize| -> Result<Option<f64>, Error> {
        match values.next().flatten() {
            Some(v) => redis::from_redis_value(v)
                .map_err(|e| Error::from_redis(&server, &ops[i], e.into())),
            None => Ok(None),
        }
    };
    let died = score(1)?;
    let due = score(2)?;
    let location = match (died, due) {
        (Some(died), _) => Location::Dead { died },
        (None, Some(due)) => Location::Scheduled { due },
        (None, None) if exists => super::jobs::locate(redis, keys, id).await?,
        (None, None) => return Ok(None),
    };
    let (place, score, consumer) = match location {
        Location::Dead { died } => (Some(Where::Dead), Some(died), None),
        Location::Scheduled { due } => (Some(Where::Scheduled), Some(due), None),
        Location::InFlight { consumer } => (Some(Where::InFlight), None, Some(consumer)),
        Location::Active { position } => (Some(Where::Ready), Some(position as f64), None),
        Location::Stranded | Location::Unknown => (None, None, None),
    };
    let wanted = match place {
        Some(place) => search.looks_in(place),
        // A record in no place is shown when every place is searched.
        None => exists && Where::ALL.iter().all(|p| search.looks_in(*p)),
    };
    if !wanted {
        return Ok(None);
    }
    let entry = super::listing::fill(redis, keys, vec![(id.to_string(), score)])
        .await?
        .into_iter()
        .next();
    Ok(entry.map(|entry| Hit {
        place,
        matched: matched(&entry, &search.text),
        entry,
        consumer,
    }))
}

/// A search under way.
struct Run<'a> {
    search: &'a Search,
    keys: &'a QueueKeys,
    found: u64,
    /// The jobs it may still look at (None: no bound).
    left: Option<u64>,
    stopped: Option<Stopped>,
}

impl Run<'_> {
    /// Gives a job found to the sink; stops at the limit, or when the sink asks.
    fn give(&mut self, hit: Hit, sink: &mut impl FnMut(Hit) -> ControlFlow<()>) {
        self.found += 1;
        if sink(hit).is_break() {
            self.stopped = Some(Stopped::Sink);
        } else if let Some(limit) = self.search.limit.filter(|l| self.found >= *l) {
            self.stopped = Some(Stopped::Limit(limit));
        }
    }

    /// How many jobs the next call may look at, at most `n`; None when the budget is spent:
    /// then a place looked at to the end it had when the search began is whole, and any
    /// other stops the search.
    fn take(&mut self, n: u64, searched: &mut Searched, pos: u64) -> Option<u64> {
        match self.left {
            None => Some(n),
            Some(0) => {
                if pos >= searched.held {
                    searched.whole = true;
                } else {
                    self.stopped = Some(Stopped::MaxScan(self.search.max_scan.unwrap_or(0)));
                }
                None
            }
            Some(left) => Some(n.min(left)),
        }
    }

    fn spent(&mut self, n: u64) {
        if let Some(left) = &mut self.left {
            *left = left.saturating_sub(n);
        }
    }

    /// Looks through a sorted set or the ready list by rank.
    async fn range(
        &mut self,
        redis: &mut Redis,
        searched: &mut Searched,
        sink: &mut impl FnMut(Hit) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let keys = self.keys;
        let (key, mode) = match searched.place {
            Where::Dead => (&keys.dead, "zrev"),
            Where::Scheduled => (&keys.scheduled, "zset"),
            _ => (&keys.active, "list"),
        };
        let mut pos = 0u64;
        loop {
            let Some(most) = self.take(BATCH, searched, pos) else {
                return Ok(());
            };
            let mut call = scripts::FIND.call(&[&keys.data, &keys.failures, key]);
            call.arg(mode)
                .arg(&self.search.text)
                .arg(json_escaped(&self.search.text))
                .arg(CALL_READ)
                .arg(pos)
                .arg(most);
            let value = call.invoke(redis).await?;
            let (looked, taken, candidates) = reply(redis, value)?;
            pos += looked;
            searched.looked += looked;
            self.spent(looked);
            let place = searched.place;
            self.check(redis, place, candidates, None, sink).await?;
            if taken == 0 || (looked == taken && taken < most) {
                searched.whole = true;
                return Ok(());
            }
            if self.stopped.is_some() {
                return Ok(());
            }
        }
    }

    /// Looks through the in-flight ids, with the set of each.
    async fn ids(
        &mut self,
        redis: &mut Redis,
        ids: &[(String, String)],
        searched: &mut Searched,
        sink: &mut impl FnMut(Hit) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let keys = self.keys;
        let mut rest = ids;
        while !rest.is_empty() {
            let done = (ids.len() - rest.len()) as u64;
            let Some(most) = self.take(BATCH, searched, done) else {
                return Ok(());
            };
            // One set a call: its key is the call's place.
            let set = &rest[0].0;
            let n = rest
                .iter()
                .take(most as usize)
                .take_while(|(k, _)| k == set)
                .count();
            let (chunk, after) = rest.split_at(n);
            let mut call = scripts::FIND.call(&[&keys.data, &keys.failures, set]);
            call.arg("ids")
                .arg(&self.search.text)
                .arg(json_escaped(&self.search.text))
                .arg(CALL_READ)
                .arg(0)
                .arg(n)
                .arg(chunk.iter().map(|(_, id)| id.as_str()).collect::<Vec<_>>());
            let value = call.invoke(redis).await?;
            let (looked, _, candidates) = reply(redis, value)?;
            let looked = looked.min(n as u64);
            searched.looked += looked;
            self.spent(looked);
            self.check(redis, Where::InFlight, candidates, Some(set), sink)
                .await?;
            rest = if (looked as usize) < n {
                &rest[looked as usize..]
            } else {
                after
            };
            if self.stopped.is_some() {
                return Ok(());
            }
        }
        searched.whole = true;
        Ok(())
    }

    /// Reads the jobs that may hold the text and gives those that do to the sink.
    async fn check(
        &mut self,
        redis: &mut Redis,
        place: Where,
        candidates: Vec<(String, f64)>,
        consumer: Option<&str>,
        sink: &mut impl FnMut(Hit) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        // The job found by its id was given first.
        let ids: Vec<(String, Option<f64>)> = candidates
            .into_iter()
            .filter(|(id, _)| *id != self.search.text)
            .map(|(id, score)| (id, (place != Where::InFlight).then_some(score)))
            .collect();
        if ids.is_empty() || self.stopped.is_some() {
            return Ok(());
        }
        let mut rest = super::listing::Fetched::measure(redis, self.keys, ids, true).await?;
        while !rest.is_empty() {
            let mut chunk = rest;
            rest = chunk.truncate(super::listing::CALL_BYTES);
            chunk.read(redis, self.keys).await?;
            for entry in chunk.decode() {
                let matched = matched(&entry, &self.search.text);
                // Changed since the script looked, or the text was only in the record's
                // framing.
                if matched.is_empty() {
                    continue;
                }
                self.give(
                    Hit {
                        place: Some(place),
                        entry,
                        consumer: consumer.map(str::to_string),
                        matched,
                    },
                    sink,
                );
                if self.stopped.is_some() {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

/// The reply of `lua/find.lua`: how many jobs it looked at, how many it took, and the ids
/// that may hold the text with their scores.
#[allow(clippy::type_complexity)]
fn reply(redis: &Redis, value: Value) -> Result<(u64, u64, Vec<(String, f64)>), Error> {
    let bad = |what: &str| {
        Error::from_redis(
            redis.server(),
            "script find",
            redis::RedisError::from((
                redis::ErrorKind::UnexpectedReturnType,
                "unexpected reply",
                what.to_string(),
            )),
        )
    };
    let items: Vec<Value> = redis::from_redis_value(value).map_err(|_| bad("not an array"))?;
    let mut items = items.into_iter();
    let mut number = || -> Result<u64, Error> {
        items
            .next()
            .and_then(|v| redis::from_redis_value::<u64>(v).ok())
            .ok_or_else(|| bad("no count"))
    };
    let looked = number()?;
    let taken = number()?;
    let mut candidates = Vec::new();
    while let Some(id) = items.next() {
        let id: String = redis::from_redis_value(id).map_err(|_| bad("an id that is not text"))?;
        let score: String = items
            .next()
            .and_then(|v| redis::from_redis_value(v).ok())
            .ok_or_else(|| bad("an id without its score"))?;
        candidates.push((id, score.parse().unwrap_or(0.0)));
    }
    Ok((looked, taken, candidates))
}
