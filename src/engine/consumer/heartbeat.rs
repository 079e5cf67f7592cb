//! Keeps this consumer's entry in `NAME:consumers` fresh, and watches the lease: when no
//! heartbeat has succeeded for `--orphan-after` minus a margin, others may soon recover its
//! jobs, so it stops its handlers before they can (a timer, not a check after a call that
//! may itself hang).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::Shared;
use crate::engine::conn::Redis;
use crate::engine::consumers;
use crate::engine::error::Error;
use crate::engine::inflight;
use crate::engine::text::plural;

/// The longest a heartbeat call may take: a beat that needs longer counts as failed, so a
/// stalled link cannot hold the heartbeat past the lease.
fn beat_timeout(shared: &Shared) -> Duration {
    shared
        .cfg
        .heartbeat
        .clamp(Duration::from_millis(500), Duration::from_secs(5))
        .min(shared.server.response_timeout)
}

/// Registers the consumer (its first heartbeat) and describes it.
pub async fn register(shared: &Shared) -> Result<(), Error> {
    let sent = Instant::now();
    let score = shared.now();
    let mut redis = shared.redis.clone();
    consumers::heartbeat(&mut redis, &shared.keys, &shared.inflight, score).await?;
    renewed(shared, sent, score)?;
    super::identity::describe(shared).await
}

/// One heartbeat on the heartbeat's own connection. It only renews an existing entry. When the
/// entry is gone (recovered by another consumer, deleted by hand, or lost by Redis with the
/// rest of its data), it looks where the jobs whose handlers have not ended here went: when
/// another consumer may run one of them, the lease is lost; otherwise (nothing held, or
/// only jobs still in its in-flight set or that Redis no longer has) it registers again.
pub async fn beat(shared: &Shared) -> Result<(), Error> {
    check_lease(shared)?;
    let sent = Instant::now();
    let score = shared.now();
    let limit = beat_timeout(shared);
    let mut conn = shared.beat_conn.lock().await;
    let result = tokio::time::timeout(limit, async {
        if conn.is_none() {
            let mut spec = shared.server.clone();
            spec.connect_timeout = spec.connect_timeout.min(limit);
            spec.response_timeout = limit;
            spec.reconnect_retries = 0;
            *conn = Some(spec.connect().await?);
        }
        let redis = conn.as_mut().expect("connected above");
        let present = consumers::renew(
            redis,
            &shared.keys,
            &shared.id,
            score,
            shared.cfg.orphan_after,
        )
        .await?;
        match present {
            true => Ok(None),
            false => whereabouts(shared, redis).await.map(Some),
        }
    })
    .await;
    let gone = match result {
        Ok(Ok(gone)) => gone,
        Ok(Err(e)) => {
            if e.is_transient() {
                *conn = None;
            }
            return Err(e);
        }
        Err(_) => {
            *conn = None;
            return Err(Error::Unreachable {
                server: shared.redis.server_of(&shared.keys.consumers),
                op: format!("heartbeat in {}", shared.keys.consumers),
                reason: format!("no answer within {}ms", limit.as_millis()),
            });
        }
    };
    let Some(held) = gone else {
        drop(conn);
        return renewed(shared, sent, score);
    };
    // The connection stays locked until it has registered again: a beat of another loop
    // (the poller's, refused a reservation) waits, and then finds the entry back.
    if held.taken > 0 {
        let why = format!(
            "its entry {} was removed from {} and {} of the {} its handlers run or wait for \
             left its in-flight set while Redis still has {} (recovered by another consumer \
             or `qctl orphans`): others may run {}",
            shared.inflight,
            shared.keys.consumers,
            held.taken,
            plural(held.total as u64, "job"),
            if held.taken == 1 { "it" } else { "them" },
            if held.taken == 1 { "it" } else { "them" },
        );
        shared.lose_lease(why.clone());
        return Err(lost(shared, why));
    }
    let jobs = match (held.mine, held.lost) {
        (0, 0) => String::new(),
        (mine, 0) => format!(
            "; its in-flight set still holds the {} its handlers run or wait for",
            plural(mine as u64, "job")
        ),
        (mine, lost) => format!(
            "; Redis no longer has {} of the {} its handlers run or wait for (it lost its \
             data: a restart without persistence, a failover), so no other consumer can run \
             {}, and {} will not be recorded",
            lost,
            plural((mine + lost) as u64, "job"),
            if lost == 1 { "it" } else { "them" },
            if lost == 1 {
                "its result"
            } else {
                "their results"
            },
        ),
    };
    register(shared).await?;
    drop(conn);
    shared.emit(super::Event::Warning {
        message: format!(
            "this consumer's entry was removed from {}{jobs}; it registered again",
            shared.keys.consumers
        ),
    });
    Ok(())
}

/// Where the jobs went whose handlers have not ended here (running, or waiting for a
/// handler), once this consumer's entry is gone.
struct Whereabouts {
    /// How many were looked at.
    total: usize,
    /// Still in this consumer's in-flight set.
    mine: usize,
    /// Gone from Redis: neither in the in-flight set nor a record in `NAME:data`.
    lost: usize,
    /// Out of the in-flight set while Redis has their records: another consumer may run
    /// them.
    taken: usize,
}

/// Looks where the jobs whose handlers have not ended here are (see [`Whereabouts`]). A job
/// whose handler ends during the look may be settled here meanwhile (a retry moves it to
/// `NAME:scheduled`): it is not counted as taken, and its handler has ended anyway.
async fn whereabouts(shared: &Shared, redis: &mut Redis) -> Result<Whereabouts, Error> {
    let held = shared.unended();
    let mine: HashSet<String> = inflight::members(redis, &shared.inflight)
        .await?
        .into_iter()
        .collect();
    let out: Vec<&String> = held.iter().filter(|id| !mine.contains(*id)).collect();
    let mut recorded = Vec::with_capacity(out.len());
    for chunk in out.chunks(1000) {
        let mut pipe = redis::pipe();
        for id in chunk {
            pipe.hexists(&shared.keys.data, id.as_str());
        }
        let found: Vec<bool> = redis
            .pipeline(&pipe, format!("HEXISTS {}", shared.keys.data))
            .await?;
        recorded.extend(found);
    }
    let running = shared.unended();
    let taken = out
        .iter()
        .zip(&recorded)
        .filter(|(id, has)| **has && running.contains(id.as_str()))
        .count();
    let lost = recorded.iter().filter(|has| !**has).count();
    Ok(Whereabouts {
        total: held.len(),
        mine: held.len() - out.len(),
        lost,
        taken,
    })
}

/// Records a successful heartbeat, unless the lease was lost meanwhile (a beat that lands
/// after the deadline does not bring it back: others may already run the jobs).
fn renewed(shared: &Shared, sent: Instant, score: f64) -> Result<(), Error> {
    check_lease(shared)?;
    let mut lease = shared.lease.lock().expect("lease lock");
    if sent > lease.sent {
        lease.sent = sent;
        lease.score = score;
    }
    Ok(())
}

fn lost(shared: &Shared, why: String) -> Error {
    Error::LeaseLost {
        server: shared.server.server().to_string(),
        reason: why,
    }
}

/// A step of the heartbeat loop.
pub async fn run(shared: Arc<Shared>) -> Result<Duration, Error> {
    beat(&shared).await?;
    Ok(shared.cfg.heartbeat)
}

/// Loses the lease when no heartbeat has succeeded within the lease window. Ends when the
/// lease is lost or `stop` is cancelled.
pub async fn watch(shared: Arc<Shared>, stop: CancellationToken) -> Result<(), Error> {
    loop {
        let deadline = shared.lease.lock().expect("lease lock").sent + shared.lease_window();
        tokio::select! {
            _ = tokio::time::sleep_until(deadline.into()) => {}
            _ = stop.cancelled() => return Ok(()),
        }
        if expire(&shared).is_some() {
            return Ok(());
        }
    }
}

/// An error when the lease is lost (losing it now if its window has passed).
pub fn check_lease(shared: &Shared) -> Result<(), Error> {
    match expire(shared) {
        Some(why) => Err(lost(shared, why)),
        None => Ok(()),
    }
}

/// Why the lease is lost, after losing it now if its window has passed (a stopped process
/// that wakes up must not renew a lease others may already have taken over).
fn expire(shared: &Shared) -> Option<String> {
    let (sent, score) = {
        let lease = shared.lease.lock().expect("lease lock");
        (lease.sent, lease.score)
    };
    // By the server's clock too: the monotonic clock does not count a suspension of the
    // machine, while other consumers' judgement does.
    let silent = sent
        .elapsed()
        .max(Duration::from_secs_f64((shared.now() - score).max(0.0)));
    if silent >= shared.lease_window() {
        shared.lose_lease(format!(
            "no heartbeat succeeded for {:.1}s (--orphan-after {}s minus a margin of {}s): \
             other consumers may recover its jobs, so it stopped its running handlers \
             and settled none of them",
            silent.as_secs_f64(),
            shared.cfg.orphan_after.as_secs_f64(),
            shared.lease_margin().as_secs_f64()
        ));
    }
    shared.lease_lost_why()
}
