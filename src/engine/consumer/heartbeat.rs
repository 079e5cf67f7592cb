//! Keeps this consumer's entry in `NAME:consumers` fresh, and notices when it has been
//! stale for so long that others may have recovered its jobs (the lease is lost).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::Shared;
use crate::engine::consumers;
use crate::engine::error::Error;

/// One heartbeat; records its time on success.
pub async fn beat(shared: &Shared) -> Result<(), Error> {
    let now = shared.now();
    let mut redis = shared.redis.clone();
    consumers::heartbeat(&mut redis, &shared.keys, &shared.inflight, now).await?;
    shared.last_beat.store(now.to_bits(), Ordering::Relaxed);
    Ok(())
}

/// A step of the heartbeat loop.
pub async fn run(shared: Arc<Shared>) -> Result<Duration, Error> {
    let stale_after = (shared.cfg.orphan_after - shared.lease_margin()).as_secs_f64();
    if shared.now() - shared.last_beat() > stale_after {
        // A paused machine or a long partition: others may already run our jobs.
        shared.lease_lost.cancel();
        shared.stop.cancel();
    }
    beat(&shared).await?;
    Ok(shared.cfg.heartbeat)
}
