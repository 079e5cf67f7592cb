//! Reservations: reserve jobs into a consumer's in-flight set, then settle each one (ack,
//! retry, kill) or give it back unchanged (requeue). Every settle call is guarded: it changes
//! nothing unless the id is still in this consumer's set.

use redis::Value;

use super::conn::Redis;
use super::error::Error;
use super::failure::Failure;
use super::job::{DecodeError, Job};
use super::keys::QueueKeys;
use super::scripts;

/// One reserved id and what its record says.
#[derive(Debug)]
pub struct Reserved {
    pub id: String,
    pub job: Result<Job, DecodeError>,
}

/// Reserves up to `n` jobs (n <= 1000) for the consumer whose in-flight key is `inflight`.
/// A missing or unreadable record, or one whose ID differs from the id it is stored under,
/// comes back as `Err` so that the caller buries it.
pub async fn reserve(
    redis: &mut Redis,
    keys: &QueueKeys,
    inflight: &str,
    n: usize,
) -> Result<Vec<Reserved>, Error> {
    let reply: Vec<Value> = scripts::RESERVE
        .call(&[
            &keys.consumers,
            &keys.active,
            &keys.data,
            &keys.signal,
            inflight,
            &keys.paused,
        ])
        .arg(n.min(1000))
        .invoke(redis)
        .await?;
    let mut out = Vec::with_capacity(reply.len() / 2);
    let mut it = reply.into_iter();
    while let (Some(id), Some(record)) = (it.next(), it.next()) {
        let id: String = match redis::from_redis_value(id) {
            Ok(id) => id,
            Err(_) => continue,
        };
        let job = match record {
            Value::Nil => Err(DecodeError("the job has no record in NAME:data".into())),
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
        out.push(Reserved { id, job });
    }
    Ok(out)
}

/// Acks jobs that succeeded; returns, per id, whether it was still reserved.
pub async fn ack(
    redis: &mut Redis,
    keys: &QueueKeys,
    inflight: &str,
    ids: &[&str],
) -> Result<Vec<bool>, Error> {
    let flags: Vec<i64> = scripts::ACK
        .call(&[inflight, &keys.data, &keys.failures, &keys.stats])
        .arg(ids)
        .invoke(redis)
        .await?;
    Ok(flags.into_iter().map(|f| f == 1).collect())
}

/// Schedules a failed job's retry at `at` with Attempt + 1; false if no longer reserved.
pub async fn retry(
    redis: &mut Redis,
    keys: &QueueKeys,
    inflight: &str,
    job: &Job,
    at: f64,
    failure: &Failure,
) -> Result<bool, Error> {
    let next = Job {
        attempt: job.attempt.saturating_add(1),
        ..job.clone()
    };
    let done: i64 = scripts::RETRY
        .call(&[
            inflight,
            &keys.scheduled,
            &keys.data,
            &keys.failures,
            &keys.stats,
        ])
        .arg(&job.id)
        .arg(at)
        .arg(next.encode())
        .arg(failure.to_json())
        .invoke(redis)
        .await?;
    Ok(done == 1)
}

/// Moves a job to the dead set. With `job`, its record is rewritten with Attempt + 1; without
/// (a damaged record), the stored bytes are kept for inspection. False if no longer reserved.
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
    let done: i64 = scripts::KILL
        .call(&[
            inflight,
            &keys.dead,
            &keys.data,
            &keys.failures,
            &keys.stats,
        ])
        .arg(id)
        .arg(now)
        .arg(record)
        .arg(failure.to_json())
        .invoke(redis)
        .await?;
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
