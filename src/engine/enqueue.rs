//! Adding jobs: push (ready now, to `NAME:active`) and schedule (due later, to
//! `NAME:scheduled`), many jobs per script call.

use super::conn::Redis;
use super::error::Error;
use super::job::Job;
use super::keys::QueueKeys;
use super::scripts::{self, Call};

/// At most this many jobs go into one script call.
pub const MAX_JOBS_PER_CALL: usize = 1000;

/// A job to add, before its id is assigned.
#[derive(Clone, Debug, Default)]
pub struct NewJob {
    /// `None`: a new UUID v4.
    pub id: Option<String>,
    pub data: Option<Vec<u8>>,
    pub attempt: i64,
    /// When it becomes due (unix seconds); `None` or a past time: ready now.
    pub due: Option<f64>,
}

/// A job ready to send: id assigned, record encoded.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub id: String,
    pub record: Vec<u8>,
    /// `Some(t)`: goes to `NAME:scheduled` with score t; `None`: to `NAME:active`.
    pub due: Option<f64>,
}

impl Prepared {
    /// Assigns the id and encodes the record. A due time at or before `now` means ready now.
    pub fn new(job: NewJob, now: f64) -> Prepared {
        let id = job
            .id
            .unwrap_or_else(|| uuid::Uuid::new_v4().hyphenated().to_string());
        let record = Job {
            id,
            data: job.data,
            attempt: job.attempt,
        };
        let encoded = record.encode();
        Prepared {
            id: record.id,
            record: encoded,
            due: job.due.filter(|&t| t > now),
        }
    }
}

/// The script calls for a batch, made ahead of sending so that the next batch can be
/// prepared while Redis runs this one.
pub struct Submission {
    calls: Vec<Call<'static>>,
    /// For each call, the batch positions of its jobs.
    positions: Vec<Vec<usize>>,
    len: usize,
}

/// Prepares the calls for a batch: jobs ready now and scheduled jobs go in separate calls
/// of at most [`MAX_JOBS_PER_CALL`] jobs each.
pub fn prepare(keys: &QueueKeys, batch: &[&Prepared]) -> Submission {
    let mut calls: Vec<Call<'static>> = Vec::new();
    let mut positions: Vec<Vec<usize>> = Vec::new();
    for chunk_start in (0..batch.len()).step_by(MAX_JOBS_PER_CALL) {
        let chunk = &batch[chunk_start..batch.len().min(chunk_start + MAX_JOBS_PER_CALL)];
        let (mut push, mut schedule) = (None::<Call>, None::<Call>);
        let (mut push_pos, mut schedule_pos) = (Vec::new(), Vec::new());
        for (i, job) in chunk.iter().enumerate() {
            match job.due {
                None => {
                    push.get_or_insert_with(|| {
                        scripts::PUSH.call(&[&keys.data, &keys.active, &keys.signal])
                    })
                    .arg(&job.id)
                    .arg(&job.record);
                    push_pos.push(chunk_start + i);
                }
                Some(due) => {
                    schedule
                        .get_or_insert_with(|| {
                            scripts::SCHEDULE.call(&[&keys.data, &keys.scheduled])
                        })
                        .arg(&job.id)
                        .arg(&job.record)
                        .arg(due);
                    schedule_pos.push(chunk_start + i);
                }
            }
        }
        for (call, pos) in [(push, push_pos), (schedule, schedule_pos)] {
            if let Some(call) = call {
                calls.push(call);
                positions.push(pos);
            }
        }
    }
    Submission {
        calls,
        positions,
        len: batch.len(),
    }
}

/// Sends prepared calls in one round trip; returns, in batch order, whether each job was
/// added (false: id taken).
pub async fn send(redis: &mut Redis, submission: Submission) -> Result<Vec<bool>, Error> {
    let Submission {
        calls,
        positions,
        len,
    } = submission;
    let mut added = vec![false; len];
    let results = match calls.len() {
        0 => return Ok(added),
        1 => vec![calls[0].invoke::<redis::Value>(redis).await],
        _ => scripts::invoke_all(redis, &calls).await?,
    };
    for (result, pos) in results.into_iter().zip(positions) {
        let flags: Vec<i64> = redis::from_redis_value(result?).map_err(|e| {
            Error::from_redis(redis.server(), "reading the enqueue reply", e.into())
        })?;
        for (p, flag) in pos.into_iter().zip(flags) {
            added[p] = flag == 1;
        }
    }
    Ok(added)
}

/// Sends a batch; returns, in batch order, whether each job was added (false: id taken).
pub async fn submit(
    redis: &mut Redis,
    keys: &QueueKeys,
    batch: &[&Prepared],
) -> Result<Vec<bool>, Error> {
    send(redis, prepare(keys, batch)).await
}
