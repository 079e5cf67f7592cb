//! Reserves jobs into free local slots and hands them to the processor. When nothing is
//! ready it blocks on `NAME:signal`, at most one poll interval, then looks again anyway, so a
//! lost wake-up never stalls work. What it holds is bounded in jobs (the slots) and in the
//! bytes of their records ([`Shared::reserve_budget`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, OwnedSemaphorePermit};

use super::drain::{self, Check};
use super::status::LoopState;
use super::supervisor::backoff;
use super::{heartbeat, Event, Shared};
use crate::engine::conn::Redis;
use crate::engine::error::Error;
use crate::engine::inflight::{self, Limited, Reservation, Reserved};
use crate::engine::text::plural;

/// A reserved job and the local slot it holds until it is settled.
pub type Work = (Reserved, OwnedSemaphorePermit);

const NAME: &str = "poller";
/// How often a consumer held back by the running cap asks again (sooner when one of its own
/// jobs ends): other consumers' jobs end without telling it.
const LIMITED_POLL: Duration = Duration::from_millis(25);

pub async fn run(shared: Arc<Shared>, tx: mpsc::Sender<Work>) -> Result<(), Error> {
    let mut waiter: Option<Redis> = None;
    let mut failing_since: Option<Instant> = None;
    let mut failures = 0u32;
    // With --drain: what it last said about waiting.
    let mut said = String::new();
    // Whether a reservation may have happened without its reply reaching us.
    let mut uncertain = false;
    // Whether a token of --rate was taken for the next reservation before it was made.
    let mut booked = false;
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
        if shared.quiet.load(std::sync::atomic::Ordering::SeqCst) {
            // Quieted: nothing more is reserved; the consumer stays until it is stopped.
            shared.status.set(NAME, LoopState::Quiet);
            shared.gate_found([]);
            shared.stop.cancelled().await;
            break;
        }
        shared.status.set(NAME, LoopState::Running);
        // Wait for one free slot, then take every free one.
        let quieted = shared.quieted.notified();
        let first = tokio::select! {
            p = shared.slots.clone().acquire_owned() => p.expect("slots are never closed"),
            _ = shared.stop.cancelled() => break,
            _ = quieted => continue,
        };
        // Hold no more than the capacity of the moment (the automatic buffer follows the
        // jobs' run time). While jobs still wait locally, reserve only once a quarter of it
        // is free, so that a busy consumer reserves in batches rather than one job per
        // request, and the next batch comes while three quarters are still held: short jobs
        // do not run dry while it is on its way.
        // Nor more bytes of records than the budget per handler (the slot just taken holds
        // no job yet).
        let capacity = shared.capacity();
        let held = shared.held();
        let free = (capacity + 1).saturating_sub(held);
        let waiting = shared.queued.load(std::sync::atomic::Ordering::Relaxed);
        let budget = shared.reserve_budget(held.saturating_sub(1));
        if free == 0 || budget.is_none() || (waiting > 0 && free < capacity.div_ceil(4)) {
            drop(first);
            let finished = shared.finished.notified();
            tokio::select! {
                _ = finished => {}
                _ = tokio::time::sleep(Duration::from_millis(50)) => {}
                _ = shared.stop.cancelled() => break,
            }
            continue;
        }
        let budget = budget.expect("checked above");
        let mut permits = vec![first];
        let want = match budget {
            // One job, the first in line, whatever its size.
            0 => 1,
            _ => remaining.map_or(free, |r| (r as usize).min(free)),
        };
        // This consumer's own rate: as many as its bucket holds, or wait for the next token.
        let tokens = shared
            .rate
            .as_ref()
            .map(|bucket| bucket.lock().expect("rate lock").available());
        let want = match tokens {
            None => want,
            Some(Ok(tokens)) => want.min(tokens),
            Some(Err(wait)) => {
                // The next token is booked now and the job reserved when it comes: the
                // bucket counts from the booking, so waking late loses no time.
                booked = true;
                if let Some(bucket) = &shared.rate {
                    bucket.lock().expect("rate lock").spend(1);
                }
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {}
                    _ = shared.stop.cancelled() => break,
                }
                1
            }
        };
        while permits.len() < want {
            match shared.slots.clone().try_acquire_owned() {
                Ok(p) => permits.push(p),
                Err(_) => break,
            }
        }
        if heartbeat::check_lease(&shared).is_err() {
            break;
        }
        // Every call below gives way to a stop, so a stalled link cannot hold up shutdown or
        // the end of a lost lease; what a cut-off call reserved is still in the in-flight set.
        let step = reserve(&shared, permits.len(), budget, &mut uncertain);
        let result = tokio::select! {
            r = step => r,
            _ = shared.stop.cancelled() => break,
        };
        match result {
            Ok(Reservation {
                jobs,
                limited,
                schedule,
            }) => {
                let replied = tokio::time::Instant::now();
                if let Some(bucket) = &shared.rate {
                    // A booked token pays for one job; one that found no job is given back.
                    let paid = usize::from(std::mem::take(&mut booked));
                    let mut bucket = bucket.lock().expect("rate lock");
                    if jobs.len() >= paid {
                        bucket.spend(jobs.len() - paid);
                    } else {
                        bucket.spend(0);
                        bucket.refund(paid);
                    }
                }
                if limited.is_some() || schedule.is_some() {
                    shared
                        .limited
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                }
                shared
                    .counters
                    .reserved
                    .fetch_add(jobs.len() as u64, std::sync::atomic::Ordering::Relaxed);
                let empty = jobs.is_empty();
                shared.gate_found(jobs.iter().map(|j| j.id.as_str()));
                if !empty {
                    crate::engine::test_panic("poller");
                }
                if shared.cfg.drain && !empty {
                    let mut retries = shared.retries.lock().expect("retries lock");
                    for job in &jobs {
                        retries.remove(&job.id);
                    }
                }
                for (i, job) in jobs.into_iter().enumerate() {
                    if let Some(schedule) = schedule {
                        // Taken ahead of its token of the shared rate: it starts when the
                        // token comes.
                        tokio::select! {
                            _ = tokio::time::sleep_until(replied + schedule.start(i)) => {}
                            _ = shared.stop.cancelled() => {}
                        }
                    }
                    let permit = permits.pop().expect("one permit per reserved job");
                    if let Ok(attempt) = &job.job.as_ref().map(|j| j.attempt) {
                        shared.emit_routine(|| Event::Reserved {
                            id: job.id.clone(),
                            attempt: *attempt,
                        });
                    }
                    shared
                        .queued
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if tx.send((job, permit)).await.is_err() {
                        return Ok(());
                    }
                }
                drop(permits);
                if let Some(limited) = limited {
                    // The queue's limits held some back: ask again when they may start.
                    failing_since = None;
                    failures = 0;
                    if empty
                        && shared.cfg.drain
                        && drained(&shared, &mut said, &mut failures, &mut failing_since).await?
                    {
                        break;
                    }
                    let wait = match limited {
                        // Counted from the reservation: jobs taken ahead waited already.
                        Limited::For(wait) => wait.saturating_sub(replied.elapsed()),
                        Limited::UntilOneEnds => LIMITED_POLL,
                    };
                    let finished = shared.finished.notified();
                    tokio::select! {
                        _ = tokio::time::sleep(wait.min(shared.cfg.poll_interval)) => {}
                        _ = finished, if limited == Limited::UntilOneEnds => {}
                        _ = shared.stop.cancelled() => break,
                    }
                    continue;
                }
                if !empty {
                    failing_since = None;
                    failures = 0;
                    continue;
                }
                // The checks after an empty reservation fail as a reservation does: a
                // transient error is retried with backoff, not the end of the consumer.
                if shared.cfg.drain {
                    if drained(&shared, &mut said, &mut failures, &mut failing_since).await? {
                        break;
                    }
                    continue;
                }
                let paused = tokio::select! {
                    r = paused(&shared) => r,
                    _ = shared.stop.cancelled() => break,
                };
                let paused = match paused {
                    Ok(paused) => {
                        failing_since = None;
                        failures = 0;
                        paused
                    }
                    Err(err) => {
                        failed(&shared, err, &mut failures, &mut failing_since).await?;
                        continue;
                    }
                };
                if paused {
                    shared.status.set(NAME, LoopState::Paused);
                    tokio::select! {
                        _ = tokio::time::sleep(shared.cfg.poll_interval) => {}
                        _ = shared.stop.cancelled() => break,
                    }
                    continue;
                }
                wait_for_signal(&shared, &mut waiter).await?;
            }
            Err(err) => {
                drop(permits);
                // The reply to a reservation may have been lost after Redis ran it.
                uncertain |= err.is_transient();
                if err.is_slow() {
                    // Redis answers, but this reservation's reply could not arrive within
                    // --response-timeout: the same record would time out again. Stop; what
                    // the call reserved is returned on the way out.
                    return Err(err);
                }
                failed(&shared, err, &mut failures, &mut failing_since).await?;
            }
        }
    }
    shared.status.set(NAME, LoopState::Stopped);
    shared.gate_found([]);
    Ok(())
}

/// A drain's look after a reservation that took nothing: true when the drain has ended (or a
/// stop came), its end recorded. A failed look counts as a failed step.
async fn drained(
    shared: &Shared,
    said: &mut String,
    failures: &mut u32,
    failing_since: &mut Option<Instant>,
) -> Result<bool, Error> {
    let checked = tokio::select! {
        r = drain::check(shared, said) => r,
        _ = shared.stop.cancelled() => return Ok(true),
    };
    match checked {
        Ok(Check::End(end)) => {
            *shared.drain_end.lock().expect("drain lock") = Some(end);
            Ok(true)
        }
        Ok(Check::Continue) => {
            *failing_since = None;
            *failures = 0;
            Ok(false)
        }
        Err(err) => {
            failed(shared, err, failures, failing_since).await?;
            Ok(false)
        }
    }
}

/// Counts a failed step and waits out its backoff (a stop cuts the wait short). Gives the
/// error back when the consumer must end: a permanent error, or failing for the orphan
/// cut-off.
async fn failed(
    shared: &Shared,
    err: Error,
    failures: &mut u32,
    failing_since: &mut Option<Instant>,
) -> Result<(), Error> {
    *failures += 1;
    let since = *failing_since.get_or_insert_with(Instant::now);
    if err.is_permanent() || since.elapsed() >= shared.cfg.orphan_after {
        return Err(err);
    }
    if err.code() == Some("NOTREGISTERED") {
        // Our entry was removed (by an operator, recovery after a long stall, or Redis
        // losing its data): the heartbeat registers again, or gives up the lease when
        // another consumer may run jobs held here.
        let _ = heartbeat::beat(shared).await;
    }
    let wait = backoff(*failures, err.is_transient());
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
        _ = shared.stop.cancelled() => {}
    }
    Ok(())
}

/// Reserves up to `n` jobs whose records fit in `budget` bytes (at least one). After a call
/// whose reply may have been lost (`uncertain`), it first returns to `NAME:active` whatever
/// is in this consumer's in-flight set without being held here: those ids were reserved by a
/// call whose answer never came, and nobody else would run them while this consumer lives.
async fn reserve(
    shared: &Shared,
    n: usize,
    budget: usize,
    uncertain: &mut bool,
) -> Result<Reservation, Error> {
    let mut redis = shared.redis.clone();
    if *uncertain {
        let stray: Vec<String> = inflight::members(&mut redis, &shared.inflight)
            .await?
            .into_iter()
            .filter(|id| !shared.is_holding(id))
            .collect();
        if !stray.is_empty() {
            let ids: Vec<&str> = stray.iter().map(String::as_str).collect();
            let n = inflight::requeue(&mut redis, &shared.keys, &shared.inflight, &ids).await?;
            if n > 0 {
                shared.emit(Event::Warning {
                    message: format!(
                        "returned {} to {} whose reservation reply was lost",
                        plural(n, "job"),
                        shared.keys.active
                    ),
                });
            }
        }
        *uncertain = false;
    }
    let mut reader = shared.reader.clone();
    let reservation = inflight::reserve(
        &mut redis,
        &mut reader,
        &shared.keys,
        &shared.inflight,
        n,
        budget,
        shared.cfg.orphan_after,
    )
    .await?;
    shared.hold(reservation.jobs.iter().map(|j| (j.id.clone(), j.size)));
    Ok(reservation)
}

async fn paused(shared: &Shared) -> Result<bool, Error> {
    let mut redis = shared.redis.clone();
    redis
        .query(
            redis::cmd("EXISTS").arg(&shared.keys.paused),
            format!("EXISTS {}", shared.keys.paused),
        )
        .await
}

/// Blocks on the signal list (on a connection of its own, since the call blocks it) for at
/// most one poll interval. Errors only shorten the wait, except a permanent one (the user may
/// not run BRPOPLPUSH, say), which stops the consumer; a signal of the wrong type is not one.
async fn wait_for_signal(shared: &Shared, waiter: &mut Option<Redis>) -> Result<(), Error> {
    let timeout = shared.cfg.poll_interval;
    if waiter.is_none() {
        let mut spec = shared.server.clone();
        spec.response_timeout += timeout;
        // Connecting waits for an answer (AUTH, HELLO): a stop must not wait for it.
        let connected = tokio::select! {
            r = spec.connect() => r,
            _ = shared.stop.cancelled() => return Ok(()),
        };
        match connected {
            Ok(conn) => *waiter = Some(conn),
            Err(e) if e.is_permanent() => return Err(e),
            Err(_) => {
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                    _ = shared.stop.cancelled() => {}
                }
                return Ok(());
            }
        }
    }
    let conn = waiter.as_mut().expect("connected above");
    let mut cmd = redis::cmd("BRPOPLPUSH");
    cmd.arg(&shared.keys.signal)
        .arg(&shared.keys.signal)
        .arg(timeout.as_secs_f64().max(0.01));
    let op = format!("BRPOPLPUSH {}", shared.keys.signal);
    let quieted = shared.quieted.notified();
    tokio::select! {
        r = conn.query::<redis::Value>(&cmd, op) => {
            if let Err(e) = r {
                *waiter = None;
                // A signal of another type is only a lost wake-up: the next reservation
                // deletes it (writers recreate it as a list).
                if e.is_permanent() && e.code() != Some("WRONGTYPE") {
                    return Err(e);
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
        _ = shared.stop.cancelled() => {}
        // The call's reply would come later on this connection: it is not used again.
        _ = quieted => *waiter = None,
    }
    Ok(())
}
