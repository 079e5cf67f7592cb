//! Adding jobs: push (ready now, to `NAME:active`) and schedule (due later, to
//! `NAME:scheduled`), many jobs per script call, several calls in flight.

use std::collections::VecDeque;

use redis::Value;

use super::conn::Redis;
use super::error::Error;
use super::job::encode_record;
use super::keys::QueueKeys;
use super::scripts::{self, Call, Window};

/// At most this many jobs go into one script call.
pub const MAX_JOBS_PER_CALL: usize = 1000;

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
    schedule: Option<(Call<'static>, Vec<usize>)>,
    len: usize,
    bytes: usize,
    record: Vec<u8>,
}

/// Jobs whose ids are UUIDs made here, none of which can be taken. They are sent as
/// `HSET NAME:data id record ...` and `RPUSH NAME:active id ...`, then push_new.lua, in one
/// MULTI/EXEC: Redis runs plain commands over many arguments several times faster than a
/// script that gets the same arguments, since each argument of a script is copied into Lua
/// and back.
struct Fresh {
    hset: redis::Cmd,
    rpush: redis::Cmd,
    /// The ids, each followed by a newline, for push_new.lua to undo the HSET with.
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
            schedule: None,
            len: 0,
            bytes: 0,
            record: Vec::with_capacity(256),
        }
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
        let id = match job.id {
            Some(id) => id.to_string(),
            None => {
                let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
                uuid::Uuid::new_v4()
                    .hyphenated()
                    .encode_lower(&mut text)
                    .to_string()
            }
        };
        self.record.clear();
        encode_record(&mut self.record, &id, job.data, job.attempt);
        let keys = self.keys;
        let positions = match due {
            None if job.id.is_none() && self.push.is_none() => {
                let fresh = self.fresh.get_or_insert_with(|| {
                    let mut hset = redis::cmd("HSET");
                    hset.arg(&keys.data);
                    let mut rpush = redis::cmd("RPUSH");
                    rpush.arg(&keys.active);
                    Fresh {
                        hset,
                        rpush,
                        ids: Vec::new(),
                    }
                });
                fresh.hset.arg(&id).arg(&self.record[..]);
                fresh.rpush.arg(&id);
                fresh.ids.extend_from_slice(id.as_bytes());
                fresh.ids.push(b'\n');
                &mut self.push_positions
            }
            None => {
                let fresh = self.fresh.take();
                let call = self.push.get_or_insert_with(|| {
                    let mut call = scripts::PUSH.call(&[&keys.data, &keys.active, &keys.signal]);
                    // The jobs gathered so far go by push.lua too, in their order.
                    let pairs = fresh.iter().flat_map(|f| f.hset.args_iter().skip(2));
                    for arg in pairs {
                        if let redis::Arg::Simple(bytes) = arg {
                            call.arg(bytes);
                        }
                    }
                    call
                });
                call.arg(&id).arg(&self.record[..]);
                &mut self.push_positions
            }
            Some(t) => {
                let (call, positions) = self.schedule.get_or_insert_with(|| {
                    let call = scripts::SCHEDULE.call(&[&keys.data, &keys.scheduled]);
                    (call, Vec::new())
                });
                call.arg(&id).arg(&self.record[..]).arg(t);
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
                let mut call = scripts::PUSH_NEW.call_after(
                    vec![(hset, Some(n as i64)), (rpush, None)],
                    &[&keys.data, &keys.active, &keys.signal],
                );
                call.arg(n).arg(ids);
                Some(call)
            }
            (None, push) => push,
        };
        let push = push.map(|call| (call, self.push_positions));
        let (calls, positions) = [push, self.schedule].into_iter().flatten().unzip();
        Submission {
            calls,
            positions,
            len: self.len,
        }
    }
}

/// The script calls of a batch, made ahead of sending (on another thread, say) so that the
/// next batch can be prepared while Redis runs this one.
pub struct Submission {
    calls: Vec<Call<'static>>,
    /// For each call, the batch positions of its jobs.
    positions: Vec<Vec<usize>>,
    len: usize,
}

/// Sends a batch in one round trip; returns, in batch order, whether each job was added
/// (false: id taken).
pub async fn submit(redis: &mut Redis, batch: Batch<'_>) -> Result<Vec<bool>, Error> {
    let Submission {
        calls,
        positions,
        len,
    } = batch.finish();
    let mut added = vec![false; len];
    let results = match calls.len() {
        0 => return Ok(added),
        1 => vec![calls[0].invoke::<Value>(redis).await],
        _ => scripts::invoke_all(redis, &calls).await?,
    };
    for (result, pos) in results.into_iter().zip(positions) {
        mark(redis.server(), &mut added, &pos, result?)?;
    }
    Ok(added)
}

/// Sets `added` at `positions` from a push or schedule reply: the number of jobs when
/// every one was added, else one flag per job.
fn mark(server: &str, added: &mut [bool], positions: &[usize], reply: Value) -> Result<(), Error> {
    if let Value::Int(n) = reply {
        if n == positions.len() as i64 {
            for &p in positions {
                added[p] = true;
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
        added[p] = flag == 1;
    }
    Ok(())
}

/// Sends submissions over one connection with several script calls in flight, so that
/// Redis has the next call as soon as it finishes one. Jobs are added in the order their
/// submissions were started, and results come back in that order, each with its `T`.
pub struct Sender<T> {
    window: Window,
    pending: VecDeque<Pending<T>>,
}

struct Pending<T> {
    tag: T,
    positions: Vec<Vec<usize>>,
    added: Vec<bool>,
    answered: usize,
    error: Option<Error>,
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

    pub fn start(&mut self, submission: Submission, tag: T) {
        let Submission {
            calls,
            positions,
            len,
        } = submission;
        for call in calls {
            self.window.start(call);
        }
        self.pending.push_back(Pending {
            tag,
            positions,
            added: vec![false; len],
            answered: 0,
            error: None,
        });
    }

    /// The oldest submission once all its calls have answered: whether each job was added
    /// (false: id taken), or the first error of its calls. `None` when nothing is pending.
    /// Cancel-safe.
    pub async fn next(&mut self) -> Option<(T, Result<Vec<bool>, Error>)> {
        loop {
            let front = self.pending.front()?;
            if front.answered == front.positions.len() {
                let done = self.pending.pop_front()?;
                let result = match done.error {
                    Some(err) => Err(err),
                    None => Ok(done.added),
                };
                return Some((done.tag, result));
            }
            let reply = self.window.next().await;
            let front = self.pending.front_mut()?;
            let positions = &front.positions[front.answered];
            front.answered += 1;
            let marked = match reply {
                Some(reply) => {
                    reply.and_then(|r| mark(self.window.server(), &mut front.added, positions, r))
                }
                None => Err(Error::Redis {
                    server: self.window.server().to_string(),
                    op: "enqueue".into(),
                    reason: "a script call was lost".into(),
                    code: None,
                }),
            };
            if let Err(err) = marked {
                front.error.get_or_insert(err);
            }
        }
    }
}
