//! Reservations: reserve jobs into a consumer's in-flight set, then settle each one (ack,
//! retry, kill) or give it back unchanged (requeue). Every settle call is guarded: it changes
//! nothing unless the id is still in this consumer's set. A reservation is bounded in bytes
//! as well as in jobs (a byte budget, at most [`CALL_BYTES`]); the consumer bounds its acks
//! the same way.

use std::fmt::Write as _;

use redis::Value;

use super::conn::Redis;
use super::error::Error;
use super::failure::Failure;
use super::history;
use super::job::{DecodeError, Job};
use super::keys::QueueKeys;
use super::listing::CALL_BYTES;
use super::scripts;

/// One reserved id and what its record says.
#[derive(Debug)]
pub struct Reserved {
    pub id: String,
    pub job: Result<Job, DecodeError>,
    /// The bytes of its record as stored.
    pub size: usize,
}

/// The most bytes of records a reservation's reply carries; beyond, they are read with
/// HMGET after it: a script copies large values many times slower than HMGET (16 MiB: about
/// 60 ms through a script, 7 ms by HMGET), and holds Redis up meanwhile.
pub const INLINE_BYTES: usize = 1 << 20;

/// Reserves up to `n` jobs (n <= 1000) for the consumer whose in-flight key is `inflight`,
/// as many as have records of at most `budget` bytes together (at most [`CALL_BYTES`]); the
/// first one is always taken, however large. Records of more than [`INLINE_BYTES`] together
/// are read in a second call, on `reader`. A missing or unreadable record, or one whose ID
/// differs from the id it is stored under, comes back as `Err` so that the caller buries it.
/// A reply that timed out while the server answers others is [`Error::Slow`].
pub async fn reserve(
    redis: &mut Redis,
    reader: &mut Redis,
    keys: &QueueKeys,
    inflight: &str,
    n: usize,
    budget: usize,
    orphan_after: std::time::Duration,
) -> Result<Reservation, Error> {
    let reply: Result<Vec<Value>, Error> = scripts::RESERVE
        .call(&reserve_keys(keys, inflight))
        .arg(n.min(1000))
        .arg(budget.min(CALL_BYTES))
        .arg(INLINE_BYTES)
        .arg(orphan_after.as_secs_f64())
        .arg(BOOKING.as_secs_f64())
        .invoke(redis)
        .await;
    let reply = match reply {
        Ok(reply) => reply,
        Err(e) => return Err(e.confirm(redis).await),
    };
    let mut it = reply.into_iter();
    let (ids, mut records) = match (it.next(), it.next()) {
        (Some(Value::Array(ids)), Some(Value::Array(records))) => (ids, records),
        (None, _) => return Ok(Reservation::default()),
        other => {
            return Err(Error::Redis {
                server: redis.server().to_string(),
                op: "script reserve".into(),
                code: None,
                reason: format!("unexpected reply {other:?}"),
            })
        }
    };
    let limited = match it.next() {
        Some(Value::Int(ms)) if ms >= 0 => {
            Some(Limited::For(std::time::Duration::from_millis(ms as u64)))
        }
        Some(Value::Int(_)) => Some(Limited::UntilOneEnds),
        _ => None,
    };
    let schedule = match (it.next(), it.next()) {
        (Some(Value::Int(first)), Some(Value::Int(every))) => Some(Schedule {
            first_us: first,
            every_us: every.max(0),
        }),
        _ => None,
    };
    // Sizes in place of the records: read them now, in one call within the budget.
    if records.iter().any(|r| matches!(r, Value::Int(_))) {
        let mut cmd = redis::cmd("HMGET");
        cmd.arg(&keys.data);
        for id in &ids {
            if let Value::BulkString(id) = id {
                cmd.arg(id);
            }
        }
        records = match reader.query(&cmd, format!("HMGET {}", keys.data)).await {
            Ok(records) => records,
            Err(e) => return Err(e.confirm(reader).await),
        };
    }
    let jobs = ids
        .into_iter()
        .zip(records)
        .filter_map(|(id, record)| {
            Some(reserved(
                redis::from_redis_value(id).ok()?,
                record,
                &keys.data,
            ))
        })
        .collect();
    Ok(Reservation {
        jobs,
        limited,
        schedule,
    })
}

/// The keys of lua/reserve.lua for the consumer whose in-flight key is `inflight`.
pub fn reserve_keys<'a>(keys: &'a QueueKeys, inflight: &'a str) -> [&'a str; 8] {
    [
        &keys.consumers,
        &keys.active,
        &keys.data,
        &keys.signal,
        inflight,
        &keys.paused,
        &keys.limits,
        &keys.bucket,
    ]
}

/// The keys of the ack script, in its order, for the jobs of `inflight` acked in the history
/// minute `minute`.
pub fn ack_keys<'a>(keys: &'a QueueKeys, inflight: &'a str, minute: &'a str) -> [&'a str; 6] {
    [
        inflight,
        &keys.data,
        &keys.failures,
        &keys.stats,
        minute,
        &keys.acked,
    ]
}

/// How far ahead of the shared rate's tokens jobs may be reserved, each to start when its
/// token comes: no time between two tokens is lost to the round trip of asking again.
pub const BOOKING: std::time::Duration = std::time::Duration::from_millis(250);

/// What a reservation took, and whether the queue's limits held it back.
#[derive(Debug, Default)]
pub struct Reservation {
    pub jobs: Vec<Reserved>,
    /// Set when the limits let fewer jobs start than were asked for.
    pub limited: Option<Limited>,
    /// Jobs taken ahead of the shared rate's tokens: when each may start.
    pub schedule: Option<Schedule>,
}

/// When the jobs of a reservation taken ahead of the shared rate's tokens may start, counted
/// from the reply: the i-th (from 0) at `first_us + i * every_us` microseconds, at once when
/// that is not after the reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub first_us: i64,
    pub every_us: i64,
}

impl Schedule {
    /// How long after the reply the i-th job may start.
    pub fn start(&self, i: usize) -> std::time::Duration {
        let at = self.first_us + self.every_us.saturating_mul(i as i64);
        std::time::Duration::from_micros(at.max(0) as u64)
    }
}

/// When the limits let more jobs start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limited {
    /// The shared rate's next token comes after this long.
    For(std::time::Duration),
    /// A job in flight must end first: the running cap is reached, or a cap or rate is 0.
    UntilOneEnds,
}

/// A reserved id and what its record, as Redis gave it, says.
fn reserved(id: String, record: Value, data: &str) -> Reserved {
    let size = match &record {
        Value::BulkString(bytes) => bytes.len(),
        _ => 0,
    };
    let job = match record {
        Value::Nil => Err(DecodeError(format!("the job has no record in {data}"))),
        Value::BulkString(bytes) => Job::decode(&bytes).and_then(|job| {
            if job.id == id {
                Ok(job)
            } else {
                Err(DecodeError(format!(
                    "the record's ID {:?} differs from the id it is stored under",
                    job.id
                )))
            }
        }),
        other => Err(DecodeError(format!("unexpected record reply {other:?}"))),
    };
    Reserved { id, job, size }
}

/// Acks jobs that succeeded, each with its run time (whole milliseconds), counts them in the
/// history of the minute holding `now` and notes their ids in `NAME:acked`; returns, per id,
/// whether it was still reserved.
/// The caller keeps the records a call deletes within [`CALL_BYTES`] (or one larger record).
pub async fn ack(
    redis: &mut Redis,
    keys: &QueueKeys,
    inflight: &str,
    jobs: &[(&str, u64)],
    now: f64,
) -> Result<Vec<bool>, Error> {
    let minute = keys.history(history::minute_of(now));
    // The runs' buckets, counted here: the script reads each job's own only when some job
    // was no longer reserved.
    let mut buckets: Vec<(usize, u64)> = Vec::new();
    let mut each = String::with_capacity(jobs.len() * 8);
    for (_, ms) in jobs {
        let bucket = history::bucket(*ms);
        let k = match buckets.iter().position(|(b, _)| *b == bucket) {
            Some(k) => k,
            None => {
                buckets.push((bucket, 0));
                buckets.len() - 1
            }
        };
        buckets[k].1 += 1;
        let sep = if each.is_empty() { "" } else { " " };
        let _ = write!(each, "{sep}{} {ms}", k + 1);
    }
    let mut call = scripts::ACK.call(&ack_keys(keys, inflight, &minute));
    call.arg(history::KEPT.as_millis() as u64)
        .arg(super::keys::ACKED_KEPT)
        .arg(jobs.len())
        .arg(jobs.iter().map(|(id, _)| *id).collect::<Vec<_>>())
        .arg(jobs.iter().map(|(_, ms)| *ms).sum::<u64>())
        .arg(buckets.len());
    for (bucket, count) in &buckets {
        call.arg(history::field(*bucket)).arg(*count);
    }
    let flags: Vec<i64> = call.arg(each).invoke(redis).await?;
    Ok(flags.into_iter().map(|f| f == 1).collect())
}

/// Schedules a failed job's retry at `at` with Attempt + 1, counting the failed run (which
/// lasted `failure.duration_ms`) in the history of the minute of `failure.time`; false if no
/// longer reserved.
pub async fn retry(
    redis: &mut Redis,
    keys: &QueueKeys,
    inflight: &str,
    job: &Job,
    at: f64,
    failure: &Failure,
) -> Result<bool, Error> {
    let minute = keys.history(history::minute_of(failure.time));
    let next = Job {
        attempt: job.attempt.saturating_add(1),
        ..job.clone()
    };
    let done: Result<i64, Error> = scripts::RETRY
        .call(&[
            inflight,
            &keys.scheduled,
            &keys.data,
            &keys.failures,
            &keys.stats,
            &keys.events,
            &minute,
        ])
        .arg(&job.id)
        .arg(at)
        .arg(next.encode())
        .arg(failure.to_json())
        .arg(super::keys::EVENTS_KEPT)
        .arg(history::KEPT.as_millis() as u64)
        .arg(history::field_of(failure.duration_ms))
        .arg(failure.duration_ms)
        .invoke(redis)
        .await;
    // The call carries the whole record: a very large one may not travel in time.
    let done: i64 = match done {
        Ok(done) => done,
        Err(e) => return Err(e.confirm(redis).await),
    };
    Ok(done == 1)
}

/// Moves a job to the dead set and counts it in the history of the minute of `now`. With
/// `job`, its record is rewritten with Attempt + 1 and its run (of `failure.duration_ms`) is
/// counted; without (a damaged record, which did not run), the stored bytes are kept for
/// inspection. False if no longer reserved.
pub async fn kill(
    redis: &mut Redis,
    keys: &QueueKeys,
    inflight: &str,
    id: &str,
    job: Option<&Job>,
    now: f64,
    failure: &Failure,
) -> Result<bool, Error> {
    let record = job
        .map(|j| {
            Job {
                attempt: j.attempt.saturating_add(1),
                ..j.clone()
            }
            .encode()
        })
        .unwrap_or_default();
    let minute = keys.history(history::minute_of(now));
    let bucket = match job {
        Some(_) => history::field_of(failure.duration_ms),
        None => String::new(),
    };
    let done: Result<i64, Error> = scripts::KILL
        .call(&[
            inflight,
            &keys.dead,
            &keys.data,
            &keys.failures,
            &keys.stats,
            &minute,
        ])
        .arg(id)
        .arg(now)
        .arg(record)
        .arg(failure.to_json())
        .arg(history::KEPT.as_millis() as u64)
        .arg(bucket)
        .arg(failure.duration_ms)
        .invoke(redis)
        .await;
    let done: i64 = match done {
        Ok(done) => done,
        Err(e) => return Err(e.confirm(redis).await),
    };
    Ok(done == 1)
}

/// Gives reserved jobs back to the tail of `NAME:active` unchanged; returns how many.
pub async fn requeue(
    redis: &mut Redis,
    keys: &QueueKeys,
    inflight: &str,
    ids: &[&str],
) -> Result<u64, Error> {
    let mut total = 0;
    for chunk in ids.chunks(1000) {
        let n: u64 = scripts::REQUEUE
            .call(&[inflight, &keys.active, &keys.signal])
            .arg(chunk)
            .invoke(redis)
            .await?;
        total += n;
    }
    Ok(total)
}

/// Every id still in the in-flight set `inflight`.
pub async fn members(redis: &mut Redis, inflight: &str) -> Result<Vec<String>, Error> {
    redis
        .query(
            redis::cmd("SMEMBERS").arg(inflight),
            format!("SMEMBERS {inflight}"),
        )
        .await
}
