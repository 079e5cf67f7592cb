//! Recovers the reservations of consumers whose heartbeat is older than the cut-off.

use std::sync::Arc;
use std::time::Duration;

use super::{Event, Shared};
use crate::engine::consumers;
use crate::engine::error::Error;

/// One recovery pass.
pub async fn pass(shared: &Shared) -> Result<(), Error> {
    let mut redis = shared.redis.clone();
    let cutoff = shared.now() - shared.cfg.orphan_after.as_secs_f64();
    let report = consumers::recover_orphans(&mut redis, &shared.keys, cutoff).await?;
    for (consumer, jobs) in report.recovered {
        if jobs > 0 {
            shared.emit(Event::Recovered { consumer, jobs });
        }
    }
    for (member, why) in report.skipped {
        shared.emit(Event::Warning {
            message: format!("orphan recovery skipped {member:?}: {why}"),
        });
    }
    Ok(())
}

/// A step of the custodian loop.
pub async fn run(shared: Arc<Shared>) -> Result<Duration, Error> {
    pass(&shared).await?;
    Ok((shared.cfg.orphan_after / 4).clamp(Duration::from_secs(1), Duration::from_secs(30)))
}
