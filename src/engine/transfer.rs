//! Whole queues as JSON lines (`qctl export`, `qctl import`): a queue read state by state in
//! bounded chunks, each job with its record and failure as stored; and exported jobs written
//! back, each in the state it had, in atomic chunks (lua/import.lua, lua/import_replace.lua).

use std::borrow::Cow;

use base64::Engine as _;
use serde::Serialize;
use serde_json::value::RawValue;

use super::bulk::{Selection, Walk};
use super::conn::Redis;
use super::error::Error;
use super::keys::QueueKeys;
use super::listing::{self, Entry, Filter, Pager, CALL_BYTES, CHUNK};
use super::scripts;

/// The version of the format, in the header's `qctl_export`.
pub const VERSION: u64 = 1;
/// The most jobs one import call writes.
pub const IMPORT_CALL: usize = 1000;

/// The state of an exported job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    /// In `NAME:active`.
    Ready,
    /// In `NAME:scheduled` with Attempt 0: a delayed job.
    Scheduled,
    /// In `NAME:scheduled` after a failure: a retry.
    Retrying,
    /// In `NAME:dead`.
    Dead,
    /// In a consumer's in-flight set.
    InFlight,
}

impl State {
    pub const ALL: [State; 5] = [
        State::Ready,
        State::Scheduled,
        State::Retrying,
        State::Dead,
        State::InFlight,
    ];

    pub fn name(self) -> &'static str {
        match self {
            State::Ready => "ready",
            State::Scheduled => "scheduled",
            State::Retrying => "retrying",
            State::Dead => "dead",
            State::InFlight => "in_flight",
        }
    }

    pub fn parse(name: &str) -> Option<State> {
        State::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// What a queue held when its export began.
#[derive(Clone, Copy, Debug, Default, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct Counts {
    pub ready: u64,
    /// Delayed jobs and retries.
    pub scheduled: u64,
    pub dead: u64,
    pub in_flight: u64,
}

/// The first line of an export.
#[derive(Debug, Serialize)]
pub struct Header {
    pub qctl_export: u64,
    pub queue: String,
    /// host:port, never a password.
    pub source: String,
    pub time: String,
    pub time_unix: f64,
    pub counts: Counts,
}

/// One exported job.
pub struct Exported {
    pub state: State,
    pub entry: Entry,
    /// The in-flight set it was in.
    pub consumer: Option<String>,
}

/// The JSON of one job line.
#[derive(Serialize)]
struct Line<'a> {
    id: &'a str,
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    position: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    due: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    due_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    died: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    died_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    consumer: Option<&'a str>,
    attempt: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data_b64: Option<String>,
    record_b64: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    failure: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    failure_b64: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    damaged: Option<String>,
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

impl Exported {
    /// The job's line of the export (no newline).
    pub fn line(&self) -> String {
        let e = &self.entry;
        let data = e.data();
        let (text, data_b64) = match data.map(std::str::from_utf8) {
            Some(Ok(s)) => (Some(Cow::Borrowed(s)), None),
            Some(Err(_)) => (None, data.map(b64)),
            None => (None, None),
        };
        // The failure as stored: embedded as JSON when it is JSON on one line.
        let (failure, failure_b64) = match &e.failure_raw {
            None => (None, None),
            Some(raw) => match std::str::from_utf8(raw)
                .ok()
                .filter(|s| !s.contains(['\n', '\r']))
                .and_then(|s| RawValue::from_string(s.to_string()).ok())
            {
                Some(json) => (Some(json), None),
                None => (None, Some(b64(raw))),
            },
        };
        let when = |s: Option<f64>| s.map(super::jobs::describe_time);
        let (mut position, mut due, mut died) = (None, None, None);
        match self.state {
            State::Ready => position = e.score.map(|p| p as u64),
            State::Scheduled | State::Retrying => due = e.score,
            State::Dead => died = e.score,
            State::InFlight => {}
        }
        let line = Line {
            id: &e.id,
            state: self.state.name(),
            position,
            due,
            due_at: when(due),
            died,
            died_at: when(died),
            consumer: self.consumer.as_deref(),
            attempt: e.attempt(),
            data: text,
            data_b64,
            record_b64: e.raw.as_deref().map(b64),
            failure,
            failure_b64,
            damaged: e.damage(),
        };
        serde_json::to_string(&line).expect("a job line serializes")
    }
}

/// Where an export is.
enum Phase {
    Ready(Pager),
    Scheduled(Walk),
    Dead(Walk),
    /// The in-flight sets still to read, and the ids of the one being read.
    InFlight {
        sets: Vec<String>,
        ids: Vec<String>,
        set: String,
    },
    Done,
}

/// Reads a queue for its export, state by state, a chunk at a time.
pub struct Exporter {
    keys: QueueKeys,
    states: Vec<State>,
    phase: Phase,
    /// The in-flight sets found at the start, until their phase comes.
    sets: Vec<String>,
}

/// What a queue holds, and its in-flight sets (found by SCAN).
pub async fn count(redis: &mut Redis, keys: &QueueKeys) -> Result<(Counts, Vec<String>), Error> {
    let sets = keys.inflight_sets(redis, 1000).await?;
    let counts = count_in(redis, keys, &sets).await?;
    Ok((counts, sets))
}

/// What a queue holds, counting the jobs in flight in `sets`.
pub async fn count_in(
    redis: &mut Redis,
    keys: &QueueKeys,
    sets: &[String],
) -> Result<Counts, Error> {
    let mut pipe = redis::pipe();
    pipe.llen(&keys.active)
        .zcard(&keys.scheduled)
        .zcard(&keys.dead);
    for set in sets {
        pipe.scard(set);
    }
    let counted: Vec<u64> = redis
        .pipeline(
            &pipe,
            format!("LLEN, ZCARD, SCARD of queue {:?}", keys.name),
        )
        .await?;
    Ok(Counts {
        ready: counted.first().copied().unwrap_or(0),
        scheduled: counted.get(1).copied().unwrap_or(0),
        dead: counted.get(2).copied().unwrap_or(0),
        in_flight: counted.iter().skip(3).sum(),
    })
}

impl Exporter {
    /// Counts what the queue holds (the header) and starts with the first state asked for.
    pub async fn start(
        redis: &mut Redis,
        keys: &QueueKeys,
        states: &[State],
    ) -> Result<(Exporter, Header), Error> {
        let time = redis.server_time().await?;
        let (counts, sets) = count(redis, keys).await?;
        let header = Header {
            qctl_export: VERSION,
            queue: keys.name.clone(),
            source: redis.server().to_string(),
            time: super::jobs::describe_time(time),
            time_unix: time,
            counts,
        };
        let mut exporter = Exporter {
            keys: keys.clone(),
            states: states.to_vec(),
            phase: Phase::Done,
            sets,
        };
        exporter.phase = exporter.after(redis, None).await?;
        Ok((exporter, header))
    }

    fn wants(&self, state: State) -> bool {
        self.states.contains(&state)
    }

    /// The phase after `done` (None: before the first).
    async fn after(&mut self, redis: &mut Redis, done: Option<u8>) -> Result<Phase, Error> {
        let all = Selection::Matching(Filter::default());
        let mut next = done.map_or(0, |d| d + 1);
        loop {
            let phase = match next {
                0 if self.wants(State::Ready) => Phase::Ready(
                    Pager::active(redis, &self.keys, &Filter::default(), 0, u64::MAX).await?,
                ),
                1 if self.wants(State::Scheduled) || self.wants(State::Retrying) => {
                    Phase::Scheduled(Walk::new(&self.keys.scheduled, &all))
                }
                2 if self.wants(State::Dead) => Phase::Dead(Walk::new(&self.keys.dead, &all)),
                3 if self.wants(State::InFlight) => Phase::InFlight {
                    sets: std::mem::take(&mut self.sets),
                    ids: Vec::new(),
                    set: String::new(),
                },
                0..=3 => {
                    next += 1;
                    continue;
                }
                _ => Phase::Done,
            };
            return Ok(phase);
        }
    }

    /// The next chunk of jobs, or None at the end. A chunk may be empty.
    pub async fn next(&mut self, redis: &mut Redis) -> Result<Option<Vec<Exported>>, Error> {
        let Exporter {
            keys,
            states,
            phase,
            ..
        } = self;
        let keys = &*keys;
        let (step, chunk) = match phase {
            Phase::Done => return Ok(None),
            Phase::Ready(pager) => (
                0,
                pager
                    .next(redis, keys)
                    .await?
                    .map(|c| tag(c, |_| State::Ready)),
            ),
            Phase::Scheduled(walk) => {
                let chunk = walk.next(redis, keys).await?.map(|c| {
                    tag(c, |e| match e.attempt() {
                        Some(a) if a > 0 => State::Retrying,
                        _ => State::Scheduled,
                    })
                });
                (
                    1,
                    chunk.map(|c| {
                        c.into_iter()
                            .filter(|x| states.contains(&x.state))
                            .collect()
                    }),
                )
            }
            Phase::Dead(walk) => (
                2,
                walk.next(redis, keys)
                    .await?
                    .map(|c| tag(c, |_| State::Dead)),
            ),
            Phase::InFlight { sets, ids, set } => {
                if ids.is_empty() {
                    match sets.pop() {
                        None => (3, None),
                        Some(next) => {
                            let members: Vec<String> = redis
                                .query(
                                    redis::cmd("SMEMBERS").arg(&next),
                                    format!("SMEMBERS {next}"),
                                )
                                .await?;
                            *ids = members;
                            *set = next;
                            (3, Some(Vec::new()))
                        }
                    }
                } else {
                    let n = ids.len().min(CHUNK);
                    let batch: Vec<(String, Option<f64>)> =
                        ids.drain(..n).map(|id| (id, None)).collect();
                    let mut fetched = listing::Fetched::measure(redis, keys, batch, true).await?;
                    let mut out = Vec::new();
                    loop {
                        let rest = fetched.truncate(CALL_BYTES);
                        fetched.read(redis, keys).await?;
                        out.extend(fetched.decode().into_iter().map(|entry| Exported {
                            state: State::InFlight,
                            entry,
                            consumer: Some(set.clone()),
                        }));
                        if rest.is_empty() {
                            break;
                        }
                        fetched = rest;
                    }
                    (3, Some(out))
                }
            }
        };
        match chunk {
            Some(chunk) => Ok(Some(chunk)),
            None => {
                self.phase = self.after(redis, Some(step)).await?;
                Ok(Some(Vec::new()))
            }
        }
    }
}

fn tag(chunk: Vec<Entry>, state: impl Fn(&Entry) -> State) -> Vec<Exported> {
    chunk
        .into_iter()
        .map(|entry| Exported {
            state: state(&entry),
            entry,
            consumer: None,
        })
        .collect()
}

/// Where an imported job goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    Ready,
    Scheduled(f64),
    Dead(f64),
}

/// A job to import: its record as it will be stored.
#[derive(Clone, Debug)]
pub struct Import {
    pub id: String,
    pub record: Vec<u8>,
    pub target: Target,
    pub failure: Option<Vec<u8>>,
}

impl Import {
    /// What it costs a call: its bytes.
    pub fn bytes(&self) -> usize {
        self.id.len() + self.record.len() + self.failure.as_ref().map_or(0, Vec::len)
    }
}

/// What an import call did with a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    /// The id was new: written.
    New,
    /// The queue has the id: skipped.
    Present,
    /// The queue had the id: replaced (`--replace`).
    Replaced,
    /// The queue has the id in flight (or in no state): left alone (`--replace`).
    InFlightThere,
}

/// Writes jobs in one atomic call (at most [`IMPORT_CALL`]); ids the queue has are skipped,
/// or with `replace` replaced where they are not in flight.
pub async fn write(
    redis: &mut Redis,
    keys: &QueueKeys,
    jobs: &[Import],
    replace: bool,
) -> Result<Vec<Written>, Error> {
    if jobs.is_empty() {
        return Ok(Vec::new());
    }
    let lua = if replace {
        &scripts::IMPORT_REPLACE
    } else {
        &scripts::IMPORT
    };
    let mut call = lua.call(&[
        &keys.data,
        &keys.active,
        &keys.scheduled,
        &keys.dead,
        &keys.failures,
        &keys.signal,
    ]);
    for job in jobs {
        let (state, score) = match job.target {
            Target::Ready => ("a", String::new()),
            Target::Scheduled(at) => ("s", at.to_string()),
            Target::Dead(at) => ("d", at.to_string()),
        };
        call.arg(&job.id)
            .arg(&job.record)
            .arg(state)
            .arg(score)
            .arg(job.failure.as_deref().unwrap_or_default());
    }
    let codes: Vec<i64> = call.invoke(redis).await?;
    Ok(codes
        .into_iter()
        .map(|c| match c {
            1 => Written::New,
            2 => Written::Replaced,
            3 => Written::InFlightThere,
            _ => Written::Present,
        })
        .collect())
}
