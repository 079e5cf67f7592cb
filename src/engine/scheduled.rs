//! The scheduled set: jobs that become due at a time (delayed jobs and retries).

use super::conn::Redis;
use super::error::Error;
use super::keys::QueueKeys;
use super::scripts;

/// Moves at most `limit` (<= 1000) due jobs to `NAME:active`; returns how many moved.
pub async fn promote_due(
    redis: &mut Redis,
    keys: &QueueKeys,
    now: f64,
    limit: usize,
) -> Result<u64, Error> {
    scripts::PROMOTE
        .call(&[&keys.scheduled, &keys.active, &keys.signal])
        .arg(now)
        .arg(limit.min(1000))
        .invoke(redis)
        .await
}
