//! Recovers the reservations of consumers whose heartbeat is older than the cut-off, and of
//! consumers whose heartbeat is in the future (their clock is ahead) once that heartbeat has
//! not changed for the cut-off.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{heartbeat, Event, Shared};
use crate::engine::consumers::{self, Recovery};
use crate::engine::error::Error;

/// One recovery pass; returns how many jobs it moved back to `NAME:active`.
pub async fn pass(shared: &Shared) -> Result<u64, Error> {
    // A consumer that was stopped past its lease judges nobody: it gives up instead.
    heartbeat::check_lease(shared)?;
    let mut redis = shared.redis.clone();
    let now = shared.now();
    let cutoff = now - shared.cfg.orphan_after.as_secs_f64();
    let mut report =
        consumers::recover_orphans(&mut redis, &shared.keys, cutoff, Some(&shared.inflight))
            .await?;
    recover_ahead(shared, now, &mut report).await?;
    for (consumer, jobs) in &report.recovered {
        if *jobs > 0 {
            shared.emit(Event::Recovered {
                consumer: consumer.clone(),
                jobs: *jobs,
            });
        }
    }
    for (member, why) in &report.skipped {
        shared.report_once(
            &format!("skip {member}"),
            format!("orphan recovery skipped {member:?}: {why}"),
        );
    }
    Ok(report.moved())
}

/// A heartbeat in the future cannot be judged by its age. The rule: such a consumer is
/// expired once its heartbeat has stayed the same for `--orphan-after` as seen by this
/// consumer; a live one, however far ahead its clock, changes it at every beat.
async fn recover_ahead(shared: &Shared, now: f64, report: &mut Recovery) -> Result<(), Error> {
    let mut redis = shared.redis.clone();
    let ahead = consumers::ahead(&mut redis, &shared.keys, now).await?;
    let mut stale = Vec::new();
    {
        let mut seen = shared.ahead.lock().expect("ahead lock");
        seen.retain(|member, _| ahead.iter().any(|(m, _)| m == member));
        for (member, score) in &ahead {
            if *member == shared.inflight {
                continue;
            }
            match seen.get(member) {
                Some((s, since)) if s == score => {
                    if since.elapsed() >= shared.cfg.orphan_after {
                        stale.push((member.clone(), *score));
                    }
                }
                _ => {
                    seen.insert(member.clone(), (*score, Instant::now()));
                }
            }
        }
    }
    for (member, score) in &ahead {
        if *member != shared.inflight {
            shared.report_once(
                &format!("ahead {member}"),
                format!(
                    "consumer {member:?} has a {}; its jobs are recovered if that heartbeat stays unchanged for --orphan-after",
                    consumers::ahead_note(*score, now)
                ),
            );
        }
    }
    for (member, score) in stale {
        // The exact score seen is the cut-off: a new heartbeat since then is never older.
        consumers::recover(&mut redis, &shared.keys, &member, score, report).await?;
        shared.ahead.lock().expect("ahead lock").remove(&member);
    }
    Ok(())
}

/// A step of the custodian loop.
pub async fn run(shared: Arc<Shared>) -> Result<Duration, Error> {
    pass(&shared).await?;
    Ok((shared.cfg.orphan_after / 4).clamp(Duration::from_secs(1), Duration::from_secs(30)))
}
