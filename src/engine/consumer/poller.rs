//! Reserves jobs into free local slots and hands them to the processor. When nothing is
//! ready it blocks on `NAME:signal`, at most one poll interval, then looks again anyway, so a
//! lost wake-up never stalls work.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, OwnedSemaphorePermit};

use super::status::LoopState;
use super::supervisor::backoff;
use super::{heartbeat, scheduler, Event, Shared};
use crate::engine::conn::Redis;
use crate::engine::error::Error;
use crate::engine::inflight::{self, Reserved};

/// A reserved job and the local slot it holds until it is settled.
pub type Work = (Reserved, OwnedSemaphorePermit);

const NAME: &str = "poller";

pub async fn run(shared: Arc<Shared>, tx: mpsc::Sender<Work>) -> Result<(), Error> {
    let mut waiter: Option<Redis> = None;
    let mut failing_since: Option<Instant> = None;
    let mut failures = 0u32;
    loop {
        if shared.stop.is_cancelled() {
            break;
        }
        let remaining = shared.cfg.max_jobs.map(|max| {
            max.saturating_sub(
                shared
                    .counters
                    .reserved
                    .load(std::sync::atomic::Ordering::Relaxed),
            )
        });
        if remaining == Some(0) {
            break;
        }
        shared.status.set(NAME, LoopState::Running);
        // Wait for one free slot, then take every free one.
        let first = tokio::select! {
            p = shared.slots.clone().acquire_owned() => p.expect("slots are never closed"),
            _ = shared.stop.cancelled() => break,
        };
        // While jobs still wait locally, reserve only once half the slots are free, so
        // that a busy consumer reserves in batches rather than one job per request.
        let waiting = tx.max_capacity() - tx.capacity();
        if waiting > 0 && shared.slots.available_permits() + 1 < shared.capacity().div_ceil(2) {
            drop(first);
            let finished = shared.finished.notified();
            tokio::select! {
                _ = finished => {}
                _ = tokio::time::sleep(Duration::from_millis(50)) => {}
                _ = shared.stop.cancelled() => break,
            }
            continue;
        }
        let mut permits = vec![first];
        let want = remaining.map_or(shared.capacity(), |r| (r as usize).min(shared.capacity()));
        while permits.len() < want {
            match shared.slots.clone().try_acquire_owned() {
                Ok(p) => permits.push(p),
                Err(_) => break,
            }
        }
        let mut redis = shared.redis.clone();
        match inflight::reserve(&mut redis, &shared.keys, &shared.inflight, permits.len()).await {
            Ok(jobs) => {
                failing_since = None;
                failures = 0;
                shared
                    .counters
                    .reserved
                    .fetch_add(jobs.len() as u64, std::sync::atomic::Ordering::Relaxed);
                let empty = jobs.is_empty();
                for job in jobs {
                    let permit = permits.pop().expect("one permit per reserved job");
                    if let Ok(attempt) = &job.job.as_ref().map(|j| j.attempt) {
                        shared.emit(Event::Reserved {
                            id: job.id.clone(),
                            attempt: *attempt,
                        });
                    }
                    if tx.send((job, permit)).await.is_err() {
                        return Ok(());
                    }
                }
                drop(permits);
                if !empty {
                    continue;
                }
                if shared.cfg.drain {
                    if drained(&shared).await? {
                        break;
                    }
                    continue;
                }
                if paused(&shared).await? {
                    shared.status.set(NAME, LoopState::Paused);
                    tokio::select! {
                        _ = tokio::time::sleep(shared.cfg.poll_interval) => {}
                        _ = shared.stop.cancelled() => break,
                    }
                    continue;
                }
                wait_for_signal(&shared, &mut waiter).await;
            }
            Err(err) => {
                drop(permits);
                failures += 1;
                let since = *failing_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= shared.cfg.orphan_after {
                    return Err(err);
                }
                if matches!(&err, Error::Redis { code: Some(c), .. } if c == "NOTREGISTERED") {
                    // Our entry was removed (by an operator, or recovery after a long stall).
                    let _ = heartbeat::beat(&shared).await;
                }
                let wait = backoff(failures, err.is_transient());
                shared.emit(Event::Warning {
                    message: format!("{NAME}: {err}; retrying in {}ms", wait.as_millis()),
                });
                shared.status.set(
                    NAME,
                    LoopState::BackingOff {
                        error: err.to_string(),
                        retry_in_ms: wait.as_millis() as u64,
                    },
                );
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {}
                    _ = shared.stop.cancelled() => break,
                }
            }
        }
    }
    shared.status.set(NAME, LoopState::Stopped);
    Ok(())
}

/// With --drain: true when nothing is ready and nothing is held here. Waits for local jobs
/// to finish first; promotes due jobs before deciding.
async fn drained(shared: &Shared) -> Result<bool, Error> {
    if shared.held() > 0 {
        let finished = shared.finished.notified();
        if shared.held() > 0 {
            tokio::select! {
                _ = finished => {}
                _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                _ = shared.stop.cancelled() => {}
            }
        }
        return Ok(false);
    }
    if scheduler::pass(shared).await? > 0 {
        return Ok(false);
    }
    if paused(shared).await? {
        shared.emit(Event::Warning {
            message: format!("queue {:?} is paused; nothing to drain", shared.keys.name),
        });
    }
    Ok(true)
}

async fn paused(shared: &Shared) -> Result<bool, Error> {
    let mut redis = shared.redis.clone();
    redis
        .query(
            redis::cmd("EXISTS").arg(&shared.keys.paused),
            "EXISTS pause key",
        )
        .await
}

/// Blocks on the signal list (on a connection of its own, since the call blocks it) for at
/// most one poll interval. Errors only shorten the wait.
async fn wait_for_signal(shared: &Shared, waiter: &mut Option<Redis>) {
    let timeout = shared.cfg.poll_interval;
    if waiter.is_none() {
        let mut spec = shared.server.clone();
        spec.response_timeout += timeout;
        match spec.connect().await {
            Ok(conn) => *waiter = Some(conn),
            Err(_) => {
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                    _ = shared.stop.cancelled() => {}
                }
                return;
            }
        }
    }
    let conn = waiter.as_mut().expect("connected above");
    let mut cmd = redis::cmd("BRPOPLPUSH");
    cmd.arg(&shared.keys.signal)
        .arg(&shared.keys.signal)
        .arg(timeout.as_secs_f64().max(0.01));
    tokio::select! {
        r = conn.query::<redis::Value>(&cmd, "waiting on the signal") => {
            if r.is_err() {
                *waiter = None;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
        _ = shared.stop.cancelled() => {}
    }
}
