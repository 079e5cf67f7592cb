//! The dead set: jobs that ran out of retries or whose record was damaged.

use super::conn::Redis;
use super::error::Error;
use super::failure::Failure;
use super::job::{DecodeError, Job};
use super::keys::QueueKeys;

/// One dead job as stored.
#[derive(Debug)]
pub struct DeadJob {
    pub id: String,
    /// When it died; None when the id is not in the dead set.
    pub died: Option<f64>,
    /// The stored record bytes; None when there is no record.
    pub raw: Option<Vec<u8>>,
    pub job: Option<Result<Job, DecodeError>>,
    pub failure: Option<Failure>,
}

/// Reads one job's record, death time and recorded failure in one round trip.
pub async fn show(redis: &mut Redis, keys: &QueueKeys, id: &str) -> Result<DeadJob, Error> {
    let mut pipe = redis::pipe();
    pipe.zscore(&keys.dead, id)
        .hget(&keys.data, id)
        .hget(&keys.failures, id);
    let (died, raw, failure): (Option<f64>, Option<Vec<u8>>, Option<Vec<u8>>) = redis
        .pipeline(&pipe, format!("reading dead job {id:?}"))
        .await?;
    Ok(DeadJob {
        id: id.to_string(),
        died,
        job: raw.as_deref().map(Job::decode),
        raw,
        failure: failure.as_deref().and_then(Failure::from_json),
    })
}
