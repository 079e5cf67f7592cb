//! Adding jobs: push (ready now, to `NAME:active`) and schedule (due later, to
//! `NAME:scheduled`), many jobs per script call, several calls in flight. A call whose reply
//! is lost (the connection dropped, the answer timed out) is read back from Redis: each call
//! is all or nothing, and its jobs' records tell whether it took effect.

use std::collections::{HashSet, VecDeque};
use std::hash::Hasher as _;

use redis::Value;

use super::conn::{Node, Redis};
use super::error::Error;
use super::job::{encode_record, record_len};
use super::keys::QueueKeys;
use super::scripts::{self, Call, Window};

/// At most this many jobs go into one script call.
pub const MAX_JOBS_PER_CALL: usize = 1000;

/// Every Redis accepts an argument this large: `proto-max-bulk-len` cannot be set lower.
pub const ALWAYS_ACCEPTED: u64 = 1 << 20;
/// Redis's default `proto-max-bulk-len`, assumed when the server's cannot be read.
pub const DEFAULT_ACCEPTED: u64 = 512 << 20;

/// The largest argument of a command the server accepts, its `proto-max-bulk-len`. A job's
/// record is one argument; Redis answers a larger one by closing the connection, which looks
/// like a failed link ("broken pipe"), after the client has sent all of it.
#[derive(Clone, Debug)]
pub struct Accepted {
    pub server: String,
    pub bytes: u64,
    /// Why the server's own setting is not known, when it is not (CONFIG GET refused):
    /// Redis's default is assumed.
    pub assumed: Option<String>,
}

impl Accepted {
    /// What every server accepts, before asking.
    pub fn always(server: &str) -> Accepted {
        Accepted {
            server: server.to_string(),
            bytes: ALWAYS_ACCEPTED,
            assumed: None,
        }
    }

    /// The most data a job with an id of `id_len` bytes may carry (its record wraps it).
    pub fn max_data(&self, id_len: usize) -> u64 {
        // The header of data this large takes 5 bytes, not the 2 of no data.
        self.bytes
            .saturating_sub(record_len(id_len, Some(0)) as u64 + 3)
    }

    /// Whether a record of `len` bytes is accepted.
    pub fn takes(&self, len: usize) -> bool {
        len as u64 <= self.bytes
    }

    /// `1 MiB (1,048,576 bytes, its proto-max-bulk-len)`, or the default assumed and why.
    pub fn describe(&self) -> String {
        let size = super::text::size(self.bytes);
        match &self.assumed {
            None => format!(
                "{size} ({} bytes, its proto-max-bulk-len)",
                super::text::thousands(self.bytes)
            ),
            Some(why) => format!("{size}, Redis's default proto-max-bulk-len (assumed: {why})"),
        }
    }
}

/// What the server holding `key` accepts in one argument (`CONFIG GET proto-max-bulk-len`),
/// asked only when a record larger than [`ALWAYS_ACCEPTED`] is to be sent. A refusal (a user
/// without `+config|get`, which the ACL recipe does not grant since CONFIG GET also shows the
/// server's password; a managed Redis without CONFIG) leaves Redis's default, 512 MiB,
/// assumed and said in [`Accepted::assumed`].
pub async fn accepted(redis: &mut Redis, key: &str) -> Result<Accepted, Error> {
    let server = redis.server().to_string();
    let cmd = redis::cmd("CONFIG")
        .arg("GET")
        .arg("proto-max-bulk-len")
        .clone();
    let node = Node::Owning(key.to_string());
    let assumed = |why: String| Accepted {
        server: server.clone(),
        bytes: DEFAULT_ACCEPTED,
        assumed: Some(why),
    };
    match redis
        .query_at::<std::collections::HashMap<String, String>>(
            &node,
            &cmd,
            "CONFIG GET proto-max-bulk-len",
        )
        .await
    {
        Ok(reply) => match reply.get("proto-max-bulk-len").map(|v| v.parse::<u64>()) {
            Some(Ok(bytes)) => Ok(Accepted {
                server: server.clone(),
                bytes,
                assumed: None,
            }),
            _ => Ok(assumed(
                "CONFIG GET proto-max-bulk-len gave no number".to_string(),
            )),
        },
        Err(e) if e.is_refusal() => {
            let why = match &e {
                Error::Redis { reason, .. } => reason.lines().next().unwrap_or("").to_string(),
                other => other.to_string(),
            };
            Ok(assumed(format!("CONFIG GET was refused: {why}")))
        }
        Err(e) => Err(e),
    }
}

/// A job to add, before its id is assigned.
#[derive(Clone, Copy, Debug, Default)]
pub struct NewJob<'a> {
    /// `None`: a new UUID v4.
    pub id: Option<&'a str>,
    pub data: Option<&'a [u8]>,
    pub attempt: i64,
    /// When it becomes due (unix seconds); `None` or a past time: ready now.
    pub due: Option<f64>,
}

/// A job put into a [`Batch`]: its id, and where it goes.
#[derive(Clone, Debug)]
pub struct Added {
    pub id: String,
    /// `Some(t)`: to `NAME:scheduled` with score t; `None`: to `NAME:active`.
    pub due: Option<f64>,
}

/// Jobs gathered into the calls that add them, each record encoded straight into its call:
/// jobs ready now go into one push, scheduled jobs into one schedule call.
pub struct Batch<'k> {
    keys: &'k QueueKeys,
    now: f64,
    /// Jobs ready now, as long as every id is a UUID made here.
    fresh: Option<Fresh>,
    /// Jobs ready now once one has a given id: a push.lua call.
    push: Option<Call<'static>>,
    /// The batch positions of the jobs ready now.
    push_positions: Vec<usize>,
    /// The ids and record digests of the push.lua call, to read it back with.
    push_sent: Digests,
    schedule: Option<(Call<'static>, Vec<usize>, Digests)>,
    len: usize,
    bytes: usize,
    record: Vec<u8>,
    /// The jobs and bytes of the batch before, to size this one's commands by: a command
    /// that grows as jobs are added copies what it holds each time it doubles.
    hint: (usize, usize),
}

/// The id and record digest of each job of a call, in order.
type Digests = Vec<(String, u64)>;

/// Jobs whose ids are UUIDs made here, none of which can be taken. They are sent as
/// `HSET NAME:data id record ...`, `RPUSH NAME:active id ...` and `HSET NAME:push ids ...`,
/// then push_new.lua, in one MULTI/EXEC: Redis runs plain commands over many arguments several times faster than a
/// script that gets the same arguments, since each argument of a script is copied into Lua
/// and back.
struct Fresh {
    hset: redis::Cmd,
    rpush: redis::Cmd,
    /// The ids as 16 bytes each, kept in `NAME:push` within the transaction for push_new.lua
    /// to undo the HSET with: Redis hashes every byte of a script's arguments, a value it
    /// only copies; and the bytes are less than half of the ids' text.
    ids: Vec<u8>,
}

impl<'k> Batch<'k> {
    /// An empty batch; a due time at or before `now` means ready now.
    pub fn new(keys: &'k QueueKeys, now: f64) -> Batch<'k> {
        Batch {
            keys,
            now,
            fresh: None,
            push: None,
            push_positions: Vec::new(),
            push_sent: Vec::new(),
            schedule: None,
            len: 0,
            bytes: 0,
            record: Vec::with_capacity(256),
            hint: (0, 0),
        }
    }

    /// An empty batch whose commands start with the room this one's took.
    pub fn successor(&self) -> Batch<'k> {
        let mut next = Batch::new(self.keys, self.now);
        next.hint = (self.len, self.bytes);
        next
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of ids and records so far.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether the batch holds [`MAX_JOBS_PER_CALL`] jobs, as many as a call takes.
    pub fn is_full(&self) -> bool {
        self.len >= MAX_JOBS_PER_CALL
    }

    /// Assigns the job its id, encodes its record and adds it to its call.
    pub fn add(&mut self, job: NewJob<'_>) -> Added {
        let due = job.due.filter(|&t| t > self.now);
        let made = job.id.is_none().then(uuid::Uuid::new_v4);
        let id = match (job.id, made) {
            (Some(id), _) => id.to_string(),
            (None, made) => {
                let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
                made.unwrap_or_default()
                    .hyphenated()
                    .encode_lower(&mut text)
                    .to_string()
            }
        };
        self.record.clear();
        encode_record(&mut self.record, &id, job.data, job.attempt);
        let keys = self.keys;
        let positions = match due {
            None if made.is_some() && self.push.is_none() => {
                let (jobs, bytes) = self.hint;
                let fresh = self.fresh.get_or_insert_with(|| {
                    let mut hset = redis::Cmd::with_capacity(2 + 2 * jobs, 64 + bytes);
                    hset.arg("HSET").arg(&keys.data);
                    let mut rpush = redis::Cmd::with_capacity(2 + jobs, 64 + 36 * jobs);
                    rpush.arg("RPUSH").arg(&keys.active);
                    Fresh {
                        hset,
                        rpush,
                        ids: Vec::with_capacity(16 * jobs),
                    }
                });
                fresh.hset.arg(&id).arg(&self.record[..]);
                fresh.rpush.arg(&id);
                fresh
                    .ids
                    .extend_from_slice(made.unwrap_or_default().as_bytes());
                &mut self.push_positions
            }
            None => {
                let fresh = self.fresh.take();
                let sent = &mut self.push_sent;
                let call = self.push.get_or_insert_with(|| {
                    let mut call = scripts::PUSH.call(&[&keys.data, &keys.active, &keys.signal]);
                    // The jobs gathered so far go by push.lua too, in their order.
                    let pairs = fresh.iter().flat_map(|f| f.hset.args_iter().skip(2));
                    let mut id = None;
                    for arg in pairs {
                        if let redis::Arg::Simple(bytes) = arg {
                            call.arg(bytes);
                            match id.take() {
                                None => id = Some(String::from_utf8_lossy(bytes).into_owned()),
                                Some(id) => sent.push((id, digest(bytes))),
                            }
                        }
                    }
                    call
                });
                call.arg(&id).arg(&self.record[..]);
                sent.push((id.clone(), digest(&self.record)));
                &mut self.push_positions
            }
            Some(t) => {
                let (call, positions, sent) = self.schedule.get_or_insert_with(|| {
                    let call = scripts::SCHEDULE.call(&[&keys.data, &keys.scheduled]);
                    (call, Vec::new(), Vec::new())
                });
                call.arg(&id).arg(&self.record[..]).arg(t);
                sent.push((id.clone(), digest(&self.record)));
                positions
            }
        };
        positions.push(self.len);
        self.len += 1;
        self.bytes += id.len() + self.record.len();
        Added { id, due }
    }

    /// The calls, ready to send.
    pub fn finish(self) -> Submission {
        let keys = self.keys;
        let n = self.push_positions.len();
        let push = match (self.fresh, self.push) {
            (Some(Fresh { hset, rpush, ids }), _) => {
                let mut stash = redis::cmd("HSET");
                stash.arg(&keys.push).arg("ids").arg(&ids);
                let mut call = scripts::PUSH_NEW.call_after(
                    vec![(hset, Some(n as i64)), (rpush, None), (stash, None)],
                    &[&keys.data, &keys.active, &keys.signal, &keys.push],
                );
                call.arg(n);
                Some((call, Proof::Fresh(ids)))
            }
            (None, push) => push.map(|call| (call, Proof::Given(self.push_sent))),
        };
        let push = push.map(|(call, proof)| (call, self.push_positions, proof));
        let schedule = self
            .schedule
            .map(|(call, positions, sent)| (call, positions, Proof::Given(sent)));
        let mut calls = Vec::new();
        let mut sent = Vec::new();
        for (call, positions, proof) in [push, schedule].into_iter().flatten() {
            calls.push(call);
            sent.push(Sent { positions, proof });
        }
        Submission {
            calls,
            sent,
            len: self.len,
            data: keys.data.clone(),
        }
    }
}

/// A digest of a record, to tell after a lost reply whether the record in Redis is the one
/// sent.
fn digest(record: &[u8]) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    hasher.write(record);
    hasher.finish()
}

/// The script calls of a batch, made ahead of sending (on another thread, say) so that the
/// next batch can be prepared while Redis runs this one.
pub struct Submission {
    calls: Vec<Call<'static>>,
    /// For each call, its jobs.
    sent: Vec<Sent>,
    len: usize,
    /// `NAME:data`, where the records are read back.
    data: String,
}

/// The jobs of one call: their batch positions, and how to read the call back.
struct Sent {
    positions: Vec<usize>,
    proof: Proof,
}

/// What tells, after a call's reply was lost, whether the call took effect.
enum Proof {
    /// push_new: its HSET, RPUSH and script ran in one MULTI/EXEC, all or nothing, with ids
    /// no other client has: it took effect if any of its ids has a record. The ids, 16
    /// bytes each, as the script gets them.
    Fresh(Vec<u8>),
    /// push or schedule, one script: it took effect if every id has a record (a job it did
    /// not add, because its id was taken, has one too); each job was added if its record
    /// is the one sent.
    Given(Digests),
}

/// What became of a job sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// In the queue, added by this call.
    Added,
    /// Its id was taken: nothing changed.
    Taken,
    /// Not added: its call was refused, or its reply was lost and Redis shows the call did
    /// not take effect.
    NotAdded,
    /// Its call's reply was lost, and reading back did not tell whether it took effect.
    Unknown,
}

/// What became of the jobs of one call whose reply was lost, read back from Redis, in the
/// order of the call. A job a consumer ran and acked meanwhile has no record any more: a
/// push_new call all of whose jobs are gone already reads as not added.
async fn read_back(redis: &mut Redis, data: &str, proof: &Proof) -> Result<Vec<Outcome>, Error> {
    match proof {
        Proof::Fresh(ids) => {
            let ids: Vec<String> = ids
                .chunks_exact(16)
                .filter_map(|b| uuid::Uuid::from_slice(b).ok())
                .map(|u| u.hyphenated().to_string())
                .collect();
            let mut pipe = redis::pipe();
            for id in &ids {
                pipe.hexists(data, id);
            }
            let present: Vec<bool> = redis
                .pipeline(&pipe, format!("HEXISTS {data} (reading back a lost reply)"))
                .await?;
            let outcome = if present.iter().any(|&p| p) {
                Outcome::Added
            } else {
                Outcome::NotAdded
            };
            Ok(vec![outcome; ids.len()])
        }
        Proof::Given(sent) => {
            let mut cmd = redis::cmd("HMGET");
            cmd.arg(data);
            for (id, _) in sent {
                cmd.arg(id);
            }
            let records: Vec<Option<Vec<u8>>> = redis
                .query(&cmd, format!("HMGET {data} (reading back a lost reply)"))
                .await?;
            if records.iter().any(Option::is_none) {
                return Ok(vec![Outcome::NotAdded; sent.len()]);
            }
            let mut seen = HashSet::new();
            Ok(sent
                .iter()
                .zip(records)
                .map(|((id, sum), record)| {
                    let first = seen.insert(id.as_str());
                    if first && record.is_some_and(|r| digest(&r) == *sum) {
                        Outcome::Added
                    } else {
                        Outcome::Taken
                    }
                })
                .collect())
        }
    }
}

/// Sets `outcomes` at `positions` from a push or schedule reply: the number of jobs when
/// every one was added, else one flag per job.
fn mark(
    server: &str,
    outcomes: &mut [Outcome],
    positions: &[usize],
    reply: Value,
) -> Result<(), Error> {
    if let Value::Int(n) = reply {
        if n == positions.len() as i64 {
            for &p in positions {
                outcomes[p] = Outcome::Added;
            }
            return Ok(());
        }
    }
    let flags: Vec<i64> = redis::from_redis_value(reply)
        .map_err(|e| Error::from_redis(server, "reading the enqueue reply", e.into()))?;
    if flags.len() != positions.len() {
        return Err(Error::Redis {
            server: server.to_string(),
            op: "reading the enqueue reply".into(),
            reason: format!("{} flags for {} jobs", flags.len(), positions.len()),
            code: None,
        });
    }
    for (&p, flag) in positions.iter().zip(flags) {
        outcomes[p] = if flag == 1 {
            Outcome::Added
        } else {
            Outcome::Taken
        };
    }
    Ok(())
}

/// Sends submissions over one connection with several script calls in flight, so that
/// Redis has the next call as soon as it finishes one. Jobs are added in the order their
/// submissions were started, and results come back in that order, each with its `T`. After
/// a failed call nothing more starts; a call whose reply was lost is read back from Redis.
pub struct Sender<T> {
    window: Window,
    pending: VecDeque<Pending<T>>,
}

struct Pending<T> {
    tag: T,
    sent: Vec<Sent>,
    outcomes: Vec<Outcome>,
    answered: usize,
    /// The calls whose reply was lost, to read back.
    lost: Vec<usize>,
    error: Option<Error>,
    data: String,
}

/// A submission whose calls have all answered (or been read back).
pub struct Settled<T> {
    pub tag: T,
    /// What became of each job, in batch order.
    pub outcomes: Vec<Outcome>,
    /// The first error of its calls, also when reading back told what they did.
    pub error: Option<Error>,
}

impl<T> Sender<T> {
    /// At most `depth` calls in flight.
    pub fn new(redis: Redis, depth: usize) -> Sender<T> {
        Sender {
            window: Window::new(redis, depth),
            pending: VecDeque::new(),
        }
    }

    /// Whether another submission may start now: the window has room and no call failed.
    pub fn has_room(&self) -> bool {
        self.window.has_room()
    }

    /// Whether every submission started has been handed back.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The submissions started and not handed back yet, oldest first.
    pub fn pending(&self) -> impl Iterator<Item = &T> {
        self.pending.iter().map(|p| &p.tag)
    }

    pub fn start(&mut self, submission: Submission, tag: T) {
        let Submission {
            calls,
            sent,
            len,
            data,
        } = submission;
        for call in calls {
            self.window.start(call);
        }
        self.pending.push_back(Pending {
            tag,
            sent,
            outcomes: vec![Outcome::Unknown; len],
            answered: 0,
            lost: Vec::new(),
            error: None,
            data,
        });
    }

    /// The oldest submission once all its calls have answered, with what became of each
    /// job; `None` when nothing is pending. A call refused by Redis changed nothing; a call
    /// whose reply was lost is read back from Redis (its jobs are [`Outcome::Unknown`] when
    /// that fails too). Cancel-safe.
    pub async fn next(&mut self) -> Option<Settled<T>> {
        loop {
            let front = self.pending.front()?;
            if front.answered == front.sent.len() {
                let mut redis = self.window.connection();
                let front = self.pending.front_mut()?;
                while let Some(&call) = front.lost.first() {
                    let sent = &front.sent[call];
                    // Only a finished read changes anything, so a cancelled one is made again.
                    if let Ok(outcomes) = read_back(&mut redis, &front.data, &sent.proof).await {
                        for (&p, outcome) in sent.positions.iter().zip(outcomes) {
                            front.outcomes[p] = outcome;
                        }
                    }
                    front.lost.remove(0);
                }
                let done = self.pending.pop_front()?;
                return Some(Settled {
                    tag: done.tag,
                    outcomes: done.outcomes,
                    error: done.error,
                });
            }
            let reply = self.window.next().await;
            let server = self.window.server().to_string();
            let front = self.pending.front_mut()?;
            let call = front.answered;
            front.answered += 1;
            let positions = &front.sent[call].positions;
            let reply = reply.unwrap_or_else(|| {
                Err(Error::Unreachable {
                    server: server.clone(),
                    op: "enqueue".into(),
                    reason: "a script call was not sent or its reply was lost".into(),
                })
            });
            let marked = reply.and_then(|r| mark(&server, &mut front.outcomes, positions, r));
            if let Err(err) = marked {
                // Refused by Redis: the scripts change nothing when they fail. Otherwise (the
                // link failed, a reply qctl cannot read) Redis tells what the call did.
                let refused = matches!(&err, Error::Redis { code: Some(_), .. });
                for &p in positions {
                    front.outcomes[p] = Outcome::NotAdded;
                }
                if !refused {
                    for &p in positions {
                        front.outcomes[p] = Outcome::Unknown;
                    }
                    front.lost.push(call);
                }
                front.error.get_or_insert(err);
            }
        }
    }
}
