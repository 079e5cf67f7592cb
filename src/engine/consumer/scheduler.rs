//! Moves due jobs from `NAME:scheduled` to `NAME:active`, in bounded batches.

use std::sync::Arc;
use std::time::Duration;

use super::Shared;
use crate::engine::error::Error;
use crate::engine::scheduled;

const BATCH: usize = 1000;

/// Promotes due jobs until fewer than a batch are due; returns how many moved.
pub async fn pass(shared: &Shared) -> Result<u64, Error> {
    let mut redis = shared.redis.clone();
    let mut total = 0;
    loop {
        let moved = scheduled::promote_due(&mut redis, &shared.keys, shared.now(), BATCH).await?;
        total += moved;
        if moved < BATCH as u64 {
            return Ok(total);
        }
    }
}

/// A step of the scheduler loop.
pub async fn run(shared: Arc<Shared>) -> Result<Duration, Error> {
    pass(&shared).await?;
    Ok(shared.cfg.scheduler_interval)
}
