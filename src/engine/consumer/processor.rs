//! Runs up to `concurrency` handlers at once and settles each job: ack on success, retry
//! with backoff or kill on failure, bury a damaged record, give back what shutdown interrupts.
//! Successes are acked in batches: one ack call carries every job that succeeded while the
//! previous call was out, so a busy consumer sends far fewer requests than it runs jobs.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;

use super::handler::{JobInput, Outcome};
use super::poller::Work;
use super::status::LoopState;
use super::{Event, Shared};
use crate::engine::error::Error;
use crate::engine::failure::Failure;
use crate::engine::inflight::{self, Reserved};
use crate::engine::job::Job;
use crate::engine::jobs::{locate, Location};
use crate::engine::listing::{split, CALL_BYTES};
use crate::engine::scripts::{self, Changed};

const NAME: &str = "processor";
/// The most ids one ack call carries (the ack script's own limit).
const ACK_BATCH: usize = 1000;
/// The longest a job's ack waits for others to go with it.
const ACK_LINGER: Duration = Duration::from_millis(5);
/// Why a settle call changed nothing: the job was no longer in this consumer's in-flight
/// set. Where it is now says what happened to it.
async fn not_reserved(shared: &Shared, id: &str) -> String {
    let mut redis = shared.redis.clone();
    let keys = &shared.keys;
    let place = match locate(&mut redis, keys, id).await {
        Ok(place) => place,
        Err(e) => {
            return format!(
                "it was no longer reserved by this consumer, and where it is could not be read ({e}); not settled here"
            )
        }
    };
    let recovered = "recovered from this consumer by another one or by `qctl orphans`";
    let now = match place {
        Location::InFlight { consumer } => {
            format!("it is reserved by {consumer} (it was {recovered})")
        }
        Location::Active { .. } if others(shared).await == Some(0) => format!(
            "it is back in {}, and no other consumer is registered: `qctl orphans` returned \
             it, or Redis lost the reservation (a restart from an older snapshot, a failover)",
            keys.active
        ),
        Location::Active { .. } => format!("it is back in {} (it was {recovered})", keys.active),
        Location::Scheduled { .. } | Location::Dead { .. } | Location::Stranded => {
            format!("it is {place}")
        }
        Location::Unknown => "Redis no longer has this job, neither its record nor its id: \
             Redis lost its data (a restart without persistence, a failover), the job was \
             deleted, or another consumer recovered and finished it"
            .to_string(),
    };
    format!("it was no longer reserved by this consumer: {now}; not settled here")
}

/// How many consumers other than this one are registered; None when that cannot be read.
async fn others(shared: &Shared) -> Option<u64> {
    let mut redis = shared.redis.clone();
    let consumers = &shared.keys.consumers;
    let mut pipe = redis::pipe();
    pipe.zcard(consumers).zscore(consumers, &shared.inflight);
    let (all, own): (u64, Option<f64>) = redis
        .pipeline(&pipe, format!("ZCARD {consumers}"))
        .await
        .ok()?;
    Some(all.saturating_sub(u64::from(own.is_some())))
}

/// A job that succeeded, waiting for its ack; the answer says whether it was still reserved
/// here (None: it could not be acked).
struct AckRequest {
    id: String,
    /// The bytes of its record, which the ack deletes.
    bytes: usize,
    /// How long its handler ran (whole milliseconds), for the history.
    ms: u64,
    done: oneshot::Sender<Option<bool>>,
}

/// Where succeeded jobs are sent to be acked.
#[derive(Clone)]
struct Acks(mpsc::UnboundedSender<AckRequest>);

impl Acks {
    /// Acks one job (whose record has `bytes`, whose handler ran `ms`) along with whatever
    /// else succeeded meanwhile.
    async fn ack(&self, id: &str, bytes: usize, ms: u64) -> Option<bool> {
        let (done, answer) = oneshot::channel();
        let request = AckRequest {
            id: id.to_string(),
            bytes,
            ms,
            done,
        };
        if self.0.send(request).is_err() {
            return None;
        }
        answer.await.ok().flatten()
    }
}

/// Acks what is sent until every sender is gone: each call takes all that waits, up to
/// [`ACK_BATCH`] jobs and records of [`CALL_BYTES`] (or one larger record), so no ack holds
/// Redis up deleting big records. While the jobs waiting here keep the handlers busy, it
/// first waits for more to finish (up to [`ACK_LINGER`], and half the time that work lasts),
/// until half the capacity waits to be acked: a consumer of short jobs then sends one ack
/// for many, and the wait ends well before its handlers would need the slots an ack frees.
async fn acker(shared: Arc<Shared>, mut rx: mpsc::UnboundedReceiver<AckRequest>) {
    let mut batch = Vec::with_capacity(ACK_BATCH);
    while rx.recv_many(&mut batch, ACK_BATCH).await > 0 {
        let linger = ACK_LINGER.min(shared.queued_work() / 2);
        let until = tokio::time::Instant::now() + linger;
        while !linger.is_zero()
            && shared.held() > batch.len()
            && batch.len() < shared.capacity().div_ceil(2).min(ACK_BATCH)
            && !shared.stop.is_cancelled()
        {
            let room = ACK_BATCH - batch.len();
            let more = rx.recv_many(&mut batch, room);
            match tokio::time::timeout_at(until, more).await {
                Ok(n) if n > 0 => {}
                _ => break,
            }
        }
        let sizes: Vec<usize> = batch.iter().map(|r| r.bytes).collect();
        let mut requests = batch.drain(..);
        for range in split(&sizes, ACK_BATCH, CALL_BYTES) {
            let part: Vec<AckRequest> = requests.by_ref().take(range.len()).collect();
            ack_part(&shared, part).await;
        }
    }
}

/// Acks one call's worth of jobs and tells each whether it was still reserved.
async fn ack_part(shared: &Shared, part: Vec<AckRequest>) {
    let jobs: Vec<(&str, u64)> = part.iter().map(|r| (r.id.as_str(), r.ms)).collect();
    let what = match jobs.as_slice() {
        [(one, _)] => format!("job {one:?}"),
        many => format!("{} jobs", many.len()),
    };
    let flags = settle(shared, &what, |mut r| {
        let jobs = &jobs;
        let now = shared.now();
        async move { inflight::ack(&mut r, &shared.keys, &shared.inflight, jobs, now).await }
    })
    .await;
    drop(jobs);
    for (i, request) in part.into_iter().enumerate() {
        let acked = flags.as_ref().map(|f| f.get(i).copied().unwrap_or(false));
        let _ = request.done.send(acked);
    }
}

pub async fn run(shared: Arc<Shared>, mut rx: mpsc::Receiver<Work>) -> Result<(), Error> {
    shared.status.set(NAME, LoopState::Running);
    let (acks_tx, acks_rx) = mpsc::unbounded_channel();
    let acks = Acks(acks_tx);
    let acking = tokio::spawn(acker(shared.clone(), acks_rx));
    let running = Arc::new(Semaphore::new(shared.cfg.concurrency));
    let mut tasks = JoinSet::new();
    let mut unstarted: Vec<Work> = Vec::new();
    loop {
        tokio::select! {
            biased;
            _ = shared.stop.cancelled() => break,
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            work = rx.recv() => {
                let Some(work) = work else { break };
                let slot = tokio::select! {
                    biased;
                    _ = shared.stop.cancelled() => { unstarted.push(work); break }
                    p = start_slot(&shared, &running) => p,
                };
                shared.queued.fetch_sub(1, Ordering::Relaxed);
                let shared = shared.clone();
                let acks = acks.clone();
                tasks.spawn(async move {
                    let (reserved, held) = work;
                    let id = reserved.id.clone();
                    process(&shared, &acks, reserved, slot).await;
                    shared.release(&id);
                    drop(held);
                    shared.freed.notify_waiters();
                    shared.finished.notify_waiters();
                });
            }
        }
    }
    shared.status.set(NAME, LoopState::Stopping);
    // Reserved but not started: back to the queue unchanged.
    rx.close();
    while let Some(work) = rx.recv().await {
        unstarted.push(work);
    }
    if !unstarted.is_empty() && !shared.lease_lost.is_cancelled() {
        let ids: Vec<&str> = unstarted.iter().map(|(r, _)| r.id.as_str()).collect();
        let mut redis = shared.redis.clone();
        if let Ok(n) = inflight::requeue(&mut redis, &shared.keys, &shared.inflight, &ids).await {
            shared.counters.returned.fetch_add(n, Ordering::Relaxed);
        }
        for (r, _) in &unstarted {
            let attempt = r.job.as_ref().map(|j| j.attempt).unwrap_or(0);
            shared.emit(Event::Returned {
                id: r.id.clone(),
                attempt,
            });
        }
    }
    drop(unstarted);
    // Running handlers get the grace period, then are terminated (their jobs go back).
    if !tasks.is_empty() && shared.stop.is_cancelled() {
        tokio::select! {
            _ = async { while tasks.join_next().await.is_some() {} } => {}
            _ = tokio::time::sleep(shared.cfg.shutdown_grace) => shared.kill.cancel(),
            _ = shared.kill.cancelled() => {}
        }
    }
    while tasks.join_next().await.is_some() {}
    drop(acks);
    let _ = acking.await;
    shared.status.set(NAME, LoopState::Stopped);
    Ok(())
}

/// A running slot, once a job may start: fewer run than `concurrency`, and than the
/// handlers' own limit of the moment when they have one.
async fn start_slot(shared: &Shared, running: &Arc<Semaphore>) -> OwnedSemaphorePermit {
    if let Some(limit) = &shared.cfg.run_limit {
        loop {
            // Both are watched before the look, so a change right after it is not missed.
            let freed = shared.freed.notified();
            let changed = limit.changed();
            let in_use = shared.cfg.concurrency - running.available_permits();
            if in_use < shared.concurrency() {
                break;
            }
            limit.hold_back();
            tokio::select! {
                _ = freed => {}
                _ = changed => {}
            }
        }
    }
    running.clone().acquire_owned().await.expect("never closed")
}

/// Runs one reserved job and settles it. The handler's `slot` is given up as soon as the
/// handler is done, so the next job starts while this one is being settled.
async fn process(shared: &Shared, acks: &Acks, reserved: Reserved, slot: OwnedSemaphorePermit) {
    let id = reserved.id;
    let size = reserved.size;
    let job = match reserved.job {
        Ok(job) => job,
        Err(damage) => {
            let failure = Failure {
                reason: format!("damaged: {damage}"),
                time: shared.now(),
                consumer: shared.inflight.clone(),
                ..Failure::default()
            };
            shared.counters.damaged.fetch_add(1, Ordering::Relaxed);
            shared.emit(Event::Damaged {
                id: id.clone(),
                reason: damage.0.clone(),
            });
            let now = shared.now();
            settle(shared, &format!("job {id:?}"), |mut r| {
                let (keys, inflight, id, failure) = (&shared.keys, &shared.inflight, &id, &failure);
                async move { inflight::kill(&mut r, keys, inflight, id, None, now, failure).await }
            })
            .await;
            return;
        }
    };
    shared.emit_routine(|| Event::Started {
        id: id.clone(),
        attempt: job.attempt,
    });
    shared.status.started(&id, job.attempt);
    // Shutdown past its grace, or a lost lease, stops the handler (`shared.halt`). After a
    // lost lease its SIGTERM grace is cut short (`shared.kill_now`), so it is gone before
    // others may recover the job.
    let input = JobInput {
        queue: &shared.keys.name,
        id: &id,
        attempt: job.attempt,
        consumer_id: &shared.id,
        data: job.data_bytes(),
    };
    let mut report = shared
        .handler
        .run(input, &shared.halt, &shared.kill_now)
        .await;
    // The slot is held while this is found out: no next job starts in the moment before the
    // stop is seen.
    if let Outcome::Failed {
        signal: Some(signal),
        ..
    } = report.outcome
    {
        if stopped_with_consumer(shared, signal).await {
            report.outcome = Outcome::Cancelled;
        }
    }
    drop(slot);
    shared.freed.notify_waiters();
    if report.outcome != Outcome::Cancelled {
        shared.note_run_time(report.duration);
    }
    if let Some(message) = report.warning.clone() {
        shared.emit(Event::Warning { message });
    }
    shared.status.finished(&id);
    let duration_ms = report.duration.as_millis() as u64;

    match report.outcome {
        Outcome::Cancelled => {
            if shared.lease_lost.is_cancelled() {
                // Others may have recovered it already: leave it for them.
                shared.emit(Event::Lost {
                    id,
                    reason: "the lease was lost; its handler was stopped".into(),
                });
                return;
            }
            let ids = [id.as_str()];
            if settle(shared, &format!("job {id:?}"), |mut r| async move {
                inflight::requeue(&mut r, &shared.keys, &shared.inflight, &ids).await
            })
            .await
            .is_some()
            {
                shared.counters.returned.fetch_add(1, Ordering::Relaxed);
                shared.emit(Event::Returned {
                    id,
                    attempt: job.attempt,
                });
            }
        }
        Outcome::Succeeded => {
            shared.counters.ran.fetch_add(1, Ordering::Relaxed);
            shared.counters.succeeded.fetch_add(1, Ordering::Relaxed);
            shared.emit_routine(|| Event::Succeeded {
                id: id.clone(),
                attempt: job.attempt,
                duration_ms,
            });
            if acks.ack(&id, size, duration_ms).await == Some(false) {
                let reason = not_reserved(shared, &id).await;
                shared.emit(Event::Lost { id, reason });
            }
        }
        Outcome::Failed {
            exit_code,
            signal,
            timed_out,
        } => {
            shared.counters.ran.fetch_add(1, Ordering::Relaxed);
            let reason = if timed_out {
                "timeout".to_string()
            } else if let Some(reason) = &report.reason {
                reason.clone()
            } else if let Some(sig) = signal {
                format!("signal {sig}")
            } else {
                format!("exit {}", exit_code.unwrap_or(-1))
            };
            let now = shared.now();
            let failure = Failure {
                reason: reason.clone(),
                exit_code,
                signal,
                timed_out,
                stderr: String::from_utf8_lossy(&report.stderr_tail).into_owned(),
                duration_ms,
                attempt: job.attempt,
                time: now,
                consumer: shared.inflight.clone(),
            };
            shared.emit(Event::Failed {
                id: id.clone(),
                attempt: job.attempt,
                duration_ms,
                reason,
                exit_code,
                signal,
            });
            settle_failure(shared, &job, now, &failure, report.retry_in).await;
        }
    }
}

/// How long a handler that died of SIGHUP, SIGINT or SIGTERM waits for the consumer's own
/// stop: the same signal reaches both at once and either may be seen first.
const STOP_SIGNAL_WINDOW: Duration = Duration::from_millis(250);

/// Whether a handler that died of `signal` was stopped together with the consumer, so its job
/// goes back unchanged rather than counting a failed run. That is a handler killed by the
/// signal that stops the consumer: systemd's `KillMode=control-group` sends SIGTERM to every
/// process of the service, and Ctrl-C reaches a handler still in the consumer's process group
/// in the instant it is being started.
async fn stopped_with_consumer(shared: &Shared, signal: i32) -> bool {
    if ![libc::SIGHUP, libc::SIGINT, libc::SIGTERM].contains(&signal) {
        return false;
    }
    shared.stop.is_cancelled()
        || tokio::time::timeout(STOP_SIGNAL_WINDOW, shared.stop.cancelled())
            .await
            .is_ok()
}

async fn settle_failure(
    shared: &Shared,
    job: &Job,
    now: f64,
    failure: &Failure,
    retry_in: Option<Duration>,
) {
    let id = &job.id;
    if job.attempt < shared.cfg.max_retries {
        let delay = match retry_in {
            Some(asked) => asked.min(shared.cfg.max_backoff),
            None => retry_delay(job.attempt, shared.cfg.max_backoff),
        };
        let at = now + delay.as_secs_f64();
        let done = settle(shared, &format!("job {id:?}"), |mut r| async move {
            inflight::retry(&mut r, &shared.keys, &shared.inflight, job, at, failure).await
        })
        .await;
        match done {
            Some(true) => {
                shared.counters.retried.fetch_add(1, Ordering::Relaxed);
                if shared.cfg.drain {
                    shared
                        .retries
                        .lock()
                        .expect("retries lock")
                        .insert(id.clone(), at);
                }
                shared.emit(Event::Retried {
                    id: id.clone(),
                    attempt: job.attempt + 1,
                    retry_at: at,
                });
            }
            Some(false) => shared.emit(Event::Lost {
                id: id.clone(),
                reason: not_reserved(shared, id).await,
            }),
            None => {}
        }
    } else {
        let done = settle(shared, &format!("job {id:?}"), |mut r| async move {
            inflight::kill(
                &mut r,
                &shared.keys,
                &shared.inflight,
                id,
                Some(job),
                now,
                failure,
            )
            .await
        })
        .await;
        match done {
            Some(true) => {
                shared.counters.killed.fetch_add(1, Ordering::Relaxed);
                shared.emit(Event::Killed {
                    id: id.clone(),
                    attempt: job.attempt + 1,
                });
            }
            Some(false) => shared.emit(Event::Lost {
                id: id.clone(),
                reason: not_reserved(shared, id).await,
            }),
            None => {}
        }
    }
}

/// The reference's retry delay for a job that failed `attempt` times before:
/// (1 + U[0,1)) * 2^attempt / 2 seconds, capped.
pub fn retry_delay(attempt: i64, cap: Duration) -> Duration {
    let secs = (1.0 + fastrand::f64()) * 2f64.powi(attempt.clamp(0, 1000) as i32) / 2.0;
    if secs.is_finite() && secs < cap.as_secs_f64() {
        Duration::from_secs_f64(secs)
    } else {
        cap
    }
}

/// Runs a settle call, retrying transient errors with backoff until the reservation would
/// expire. None when it could not be done (reported as a warning). `what` names the job(s).
async fn settle<T, F, Fut>(shared: &Shared, what: &str, call: F) -> Option<T>
where
    F: Fn(crate::engine::conn::Redis) -> Fut,
    Fut: std::future::Future<Output = Result<T, Error>>,
{
    let mut failures = 0u32;
    loop {
        match call(shared.redis.clone()).await {
            Ok(v) => return Some(v),
            Err(err)
                if err.is_transient()
                    && !shared.lease_lost.is_cancelled()
                    && shared.now() < shared.lease_deadline() =>
            {
                failures += 1;
                let wait = super::supervisor::backoff(failures, true);
                shared.emit(Event::Warning {
                    message: format!("settling {what}: {err}; retrying in {}ms", wait.as_millis()),
                });
                tokio::time::sleep(wait).await;
            }
            Err(err) => {
                let outcome = match scripts::changed(&err) {
                    Changed::Nothing => "nothing was changed: it stays reserved for recovery",
                    Changed::Unknown => {
                        "its reply was lost, so the change may or may not have been made; \
                         what is still reserved stays so for recovery"
                    }
                    Changed::Partly => {
                        "the script stopped part-way, so part of the change may have been made"
                    }
                };
                shared.emit(Event::Warning {
                    message: format!("could not settle {what}: {err}; {outcome}"),
                });
                if err.is_permanent() {
                    // No later job could be settled either: stop rather than run jobs whose
                    // outcome cannot be recorded.
                    shared.fail(err);
                }
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_delay_follows_the_reference_formula_and_cap() {
        for attempt in 0..10 {
            let d = retry_delay(attempt, Duration::from_secs(7 * 86400)).as_secs_f64();
            let base = 2f64.powi(attempt as i32) / 2.0;
            assert!(d >= base && d < 2.0 * base, "attempt {attempt}: {d}");
        }
        assert_eq!(
            retry_delay(100, Duration::from_secs(60)),
            Duration::from_secs(60)
        );
        assert_eq!(
            retry_delay(i64::MAX, Duration::from_secs(60)),
            Duration::from_secs(60)
        );
    }
}
