//! Runs up to `concurrency` handlers at once and settles each job: ack on success, retry
//! with backoff or kill on failure, bury a damaged record, give back what shutdown interrupts.
//! Each handler slot is one long-lived task that takes the next job as soon as its handler is
//! done: a job costs no task of its own. Successes are acked in batches: one ack call carries
//! every job that succeeded while the previous call was out, so a busy consumer sends far
//! fewer requests than it runs jobs, and the acker frees their local slots together. Any
//! other ending is settled in a task of its own, while the slot runs the next job.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use tokio::sync::{mpsc, Mutex, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;
use tokio_util::task::TaskTracker;

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
use crate::engine::orders::{Answer, Order, Outcome as AnswerOutcome, Settle, What};
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

/// A job that succeeded, waiting for its ack, with the local slot it holds until then.
struct AckRequest {
    id: String,
    /// The bytes of its record, which the ack deletes.
    bytes: usize,
    /// How long its handler ran (whole milliseconds), for the history.
    ms: u64,
    held: OwnedSemaphorePermit,
}

/// Where succeeded jobs are sent to be acked.
#[derive(Clone)]
struct Acks(mpsc::UnboundedSender<AckRequest>);

impl Acks {
    /// Hands one job (whose record has `bytes`, whose handler ran `ms`) to the acker, which
    /// acks it along with whatever else succeeded meanwhile, then frees its slot.
    fn ack(&self, id: String, bytes: usize, ms: u64, held: OwnedSemaphorePermit) {
        let request = AckRequest {
            id,
            bytes,
            ms,
            held,
        };
        // The acker lives until every sender is gone.
        let _ = self.0.send(request);
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

/// Acks one call's worth of jobs, frees their slots, and tells of each that was no longer
/// reserved here.
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
    let lost: Vec<&str> = match &flags {
        Some(flags) => part
            .iter()
            .enumerate()
            .filter(|(i, _)| !flags.get(*i).copied().unwrap_or(false))
            .map(|(_, r)| r.id.as_str())
            .collect(),
        None => Vec::new(),
    };
    for id in lost {
        let reason = not_reserved(shared, id).await;
        shared.emit(Event::Lost {
            id: id.to_string(),
            reason,
        });
    }
    shared.let_go(part.into_iter().map(|r| (r.id, r.held)));
}

/// A job given to a slot, with the running place it holds until its handler is done.
type Start = (Work, OwnedSemaphorePermit);

pub async fn run(shared: Arc<Shared>, mut rx: mpsc::Receiver<Work>) -> Result<(), Error> {
    shared.status.set(NAME, LoopState::Running);
    let (acks_tx, acks_rx) = mpsc::unbounded_channel();
    let acking = tokio::spawn(acker(shared.clone(), acks_rx));
    let concurrency = shared.cfg.concurrency.max(1);
    let running = Arc::new(Semaphore::new(concurrency));
    // The handler slots there are (more once an order resizes the consumer above its
    // concurrency).
    let mut total = concurrency;
    // A start waits here only while its slot finishes the job before: one per slot at most.
    let (starts, next) = mpsc::channel::<Start>(concurrency);
    let next = Arc::new(Mutex::new(next));
    let settling = TaskTracker::new();
    let mut slots = JoinSet::new();
    let slot = || Slot {
        shared: shared.clone(),
        acks: Acks(acks_tx.clone()),
        settling: settling.clone(),
    };
    for _ in 0..concurrency {
        slots.spawn(slot().run(next.clone()));
    }
    let mut unstarted: Vec<Work> = Vec::new();
    loop {
        tokio::select! {
            biased;
            _ = shared.stop.cancelled() => break,
            Some(ended) = slots.join_next(), if !slots.is_empty() => passed_on(&shared, ended),
            work = rx.recv() => {
                let Some(work) = work else { break };
                let wanted = shared.concurrency_now.load(Ordering::SeqCst);
                if wanted > total {
                    running.add_permits(wanted - total);
                    for _ in total..wanted {
                        slots.spawn(slot().run(next.clone()));
                    }
                    total = wanted;
                }
                if shared.quiet.load(Ordering::SeqCst) {
                    give_back(&shared, vec![work]).await;
                    continue;
                }
                let place = tokio::select! {
                    biased;
                    _ = shared.stop.cancelled() => { unstarted.push(work); break }
                    _ = quieted(&shared) => {
                        give_back(&shared, vec![work]).await;
                        continue;
                    }
                    p = start_slot(&shared, &running, total) => p,
                };
                shared.queued.fetch_sub(1, Ordering::Relaxed);
                if starts.send((work, place)).await.is_err() {
                    break;
                }
            }
        }
    }
    // The slots end once they have run what they were given.
    drop(starts);
    drop(acks_tx);
    shared.status.set(NAME, LoopState::Stopping);
    // Reserved but not started: back to the queue unchanged.
    rx.close();
    while let Some(work) = rx.recv().await {
        unstarted.push(work);
    }
    if !unstarted.is_empty() && !shared.lease_lost.is_cancelled() {
        let ids: Vec<&str> = unstarted.iter().map(|(r, _)| r.id.as_str()).collect();
        let mut redis = shared.redis.clone();
        let requeue = inflight::requeue(&mut redis, &shared.keys, &shared.inflight, &ids);
        let requeued = tokio::select! {
            r = requeue => Some(r),
            _ = shared.past_kill() => None,
        };
        // What is not returned here stays in the in-flight set: the consumer returns it as
        // it leaves, or orphan recovery does.
        let why = match requeued {
            Some(Ok(n)) => {
                shared.counters.returned.fetch_add(n, Ordering::Relaxed);
                for (r, _) in &unstarted {
                    let attempt = r.job.as_ref().map(|j| j.attempt).unwrap_or(0);
                    shared.emit(Event::Returned {
                        id: r.id.clone(),
                        attempt,
                    });
                }
                None
            }
            Some(Err(e)) => Some((e.to_string(), e.outcome_unknown())),
            None => {
                shared.unanswered.store(true, Ordering::SeqCst);
                Some((shared.silent_since_kill(), true))
            }
        };
        if let Some((why, unknown)) = why {
            let stay = match unknown {
                true => {
                    "they may or may not have gone back; what is still reserved stays so, to go back as the consumer leaves or by orphan recovery"
                }
                false => {
                    "they stay reserved, to go back as the consumer leaves or by orphan recovery"
                }
            };
            shared.emit(Event::Warning {
                message: format!(
                    "could not return {} reserved but not started: {why}; {stay}",
                    crate::engine::text::plural(ids.len() as u64, "job")
                ),
            });
        }
    }
    drop(unstarted);
    // Running handlers get the grace period, then are terminated (their jobs go back).
    settling.close();
    let all_done = async {
        while let Some(ended) = slots.join_next().await {
            passed_on(&shared, ended);
        }
        settling.wait().await;
    };
    tokio::pin!(all_done);
    let mut done = false;
    if shared.stop.is_cancelled() {
        tokio::select! {
            _ = &mut all_done => done = true,
            _ = tokio::time::sleep(shared.cfg.shutdown_grace) => shared.kill.cancel(),
            _ = shared.kill.cancelled() => {}
        }
    }
    if !done {
        all_done.await;
    }
    let _ = acking.await;
    shared.status.set(NAME, LoopState::Stopped);
    Ok(())
}

/// Passes a slot's panic on to the consumer, which stops and reports it.
fn passed_on(shared: &Shared, ended: Result<(), tokio::task::JoinError>) {
    if let Err(e) = ended {
        if e.is_panic() {
            shared.panicked(e.into_panic());
        }
    }
}

/// A running slot, once a job may start: fewer run than `concurrency` (of the moment, when
/// an order changed it), and than the handlers' own limit of the moment when they have one.
/// `total` is the slots there are.
async fn start_slot(
    shared: &Shared,
    running: &Arc<Semaphore>,
    total: usize,
) -> OwnedSemaphorePermit {
    if shared.cfg.run_limit.is_some() || shared.concurrency() < total {
        loop {
            // Each is watched before the look, so a change right after it is not missed.
            let freed = shared.freed.notified();
            let resized = shared.quieted.notified();
            let changed = async {
                match &shared.cfg.run_limit {
                    Some(limit) => limit.changed().await,
                    None => std::future::pending().await,
                }
            };
            let in_use = total - running.available_permits();
            if in_use < shared.concurrency() {
                break;
            }
            if let Some(limit) = &shared.cfg.run_limit {
                limit.hold_back();
            }
            tokio::select! {
                _ = freed => {}
                _ = changed => {}
                _ = resized => {}
            }
        }
    }
    running.clone().acquire_owned().await.expect("never closed")
}

/// Resolves once the consumer is quieted.
async fn quieted(shared: &Shared) {
    loop {
        let rung = shared.quieted.notified();
        if shared.quiet.load(Ordering::SeqCst) {
            return;
        }
        rung.await;
    }
}

/// Returns jobs reserved here and not started to `NAME:active` unchanged (the consumer was
/// quieted), and lets go of them; what cannot be returned stays reserved, to go back as the
/// consumer leaves or by orphan recovery.
async fn give_back(shared: &Shared, works: Vec<Work>) {
    let ids: Vec<&str> = works.iter().map(|(r, _)| r.id.as_str()).collect();
    shared.queued.fetch_sub(works.len(), Ordering::Relaxed);
    let mut redis = shared.redis.clone();
    match inflight::requeue(&mut redis, &shared.keys, &shared.inflight, &ids).await {
        Ok(n) => {
            shared.counters.returned.fetch_add(n, Ordering::Relaxed);
            for (r, _) in &works {
                let attempt = r.job.as_ref().map(|j| j.attempt).unwrap_or(0);
                shared.emit(Event::Returned {
                    id: r.id.clone(),
                    attempt,
                });
            }
            shared.let_go(works.into_iter().map(|(r, held)| (r.id, held)));
        }
        Err(e) => shared.emit(Event::Warning {
            message: format!(
                "could not return {} reserved but not started: {e}; they stay reserved, to go back as the consumer leaves or by orphan recovery",
                crate::engine::text::plural(ids.len() as u64, "job")
            ),
        }),
    }
}

/// One handler slot: runs the jobs it is given, one after another, until no more come.
struct Slot {
    shared: Arc<Shared>,
    acks: Acks,
    /// Where settling other than an ack runs, while the slot goes on.
    settling: TaskTracker,
}

impl Slot {
    async fn run(self, next: Arc<Mutex<mpsc::Receiver<Start>>>) {
        loop {
            let start = next.lock().await.recv().await;
            let Some(((reserved, held), place)) = start else {
                break;
            };
            process(&self, reserved, held, place).await;
        }
    }

    /// The handler is done: another job may start.
    fn free(&self, place: OwnedSemaphorePermit) {
        drop(place);
        if self.shared.cfg.run_limit.is_some()
            || self.shared.concurrency_now.load(Ordering::Relaxed) != self.shared.cfg.concurrency
        {
            self.shared.freed.notify_waiters();
        }
    }

    /// Settles a job in a task of its own, then frees its local place.
    fn settle_aside<F>(&self, id: String, held: OwnedSemaphorePermit, settling: F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        let shared = self.shared.clone();
        self.settling.spawn(async move {
            if let Err(panic) = std::panic::AssertUnwindSafe(settling).catch_unwind().await {
                shared.panicked(panic);
            }
            shared.let_go([(id, held)]);
        });
    }
}

/// Runs one reserved job and has it settled. The slot is free as soon as the handler is
/// done: the ack goes to the acker, anything else is settled aside.
async fn process(
    slot: &Slot,
    reserved: Reserved,
    held: OwnedSemaphorePermit,
    place: OwnedSemaphorePermit,
) {
    let shared = &slot.shared;
    let id = reserved.id;
    let size = reserved.size;
    let job = match reserved.job {
        Ok(job) => job,
        Err(damage) => {
            slot.free(place);
            shared.handler_ended(&id);
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
            let (owned, job_id) = (shared.clone(), id.clone());
            slot.settle_aside(id, held, async move {
                let shared = &owned;
                settle(shared, &format!("job {job_id:?}"), |mut r| {
                    let (keys, inflight, id, failure) =
                        (&shared.keys, &shared.inflight, &job_id, &failure);
                    async move { inflight::kill(&mut r, keys, inflight, id, None, now, failure).await }
                })
                .await;
            });
            return;
        }
    };
    // An order may cancel this job alone (`qctl cancel`): its own token, which the
    // consumer's halt fires too. One cancelled before it started does not start.
    let job_cancel = shared.job_token(&id);
    // With several queues, the job first waits for a place among the handlers they share.
    let pass = match &shared.cfg.member {
        Some(member) => tokio::select! {
            pass = member.gate.enter(member.queue, &id) => Some(pass),
            _ = job_cancel.cancelled() => None,
        },
        None => None,
    };
    let mut report = if job_cancel.is_cancelled() {
        super::handler::RunReport::new(Outcome::Cancelled, Duration::ZERO)
    } else {
        shared.emit_routine(|| Event::Started {
            id: id.clone(),
            attempt: job.attempt,
        });
        shared.status.started(&id, job.attempt);
        // Shutdown past its grace, or a lost lease, stops the handler (`shared.halt`). After
        // a lost lease its SIGTERM grace is cut short (`shared.kill_now`), so it is gone
        // before others may recover the job.
        let input = JobInput {
            queue: &shared.keys.name,
            id: &id,
            attempt: job.attempt,
            consumer_id: &shared.id,
            data: job.data_bytes(),
            cancel: &job_cancel,
        };
        shared
            .handler
            .run(input, &shared.halt, &shared.kill_now)
            .await
    };
    drop(pass);
    shared.handler_ended(&id);
    let ordered = shared.job_ended(&id);
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
    slot.free(place);
    if report.outcome != Outcome::Cancelled {
        shared.note_run_time(report.duration);
    }
    if let Some(message) = report.warning.clone() {
        shared.emit(Event::Warning { message });
    }
    shared.status.finished(&id);
    let duration_ms = report.duration.as_millis() as u64;

    if let (Outcome::Cancelled, Some(order)) = (&report.outcome, &ordered) {
        if !shared.lease_lost.is_cancelled() {
            cancelled_by_order(slot, &job, held, order.clone(), &report, duration_ms);
            return;
        }
    }
    if let Some(order) = ordered {
        // The handler ended before the order stopped it: the job is settled as it ended.
        let how = match &report.outcome {
            Outcome::Succeeded => "it succeeded",
            Outcome::Failed { .. } => "it failed",
            Outcome::Cancelled => "the consumer lost its lease, so it is left for recovery",
        };
        let answer = Answer {
            result: AnswerOutcome::NotHeld,
            job: Some(id.clone()),
            detail: format!("its handler ended before the cancel reached it: {how}"),
            grace_ms: None,
        };
        let owned = shared.clone();
        tokio::spawn(async move {
            let _ = super::orders::reply(&owned, &order, &[answer]).await;
        });
    }
    match report.outcome {
        Outcome::Cancelled => {
            if shared.lease_lost.is_cancelled() {
                // Others may have recovered it already: leave it for them.
                shared.emit(Event::Lost {
                    id: id.clone(),
                    reason: "the lease was lost; its handler was stopped".into(),
                });
                shared.let_go([(id, held)]);
                return;
            }
            let (owned, job_id) = (shared.clone(), id.clone());
            slot.settle_aside(id, held, async move {
                let shared = &owned;
                let ids = [job_id.as_str()];
                if settle(shared, &format!("job {job_id:?}"), |mut r| async move {
                    inflight::requeue(&mut r, &shared.keys, &shared.inflight, &ids).await
                })
                .await
                .is_some()
                {
                    shared.counters.returned.fetch_add(1, Ordering::Relaxed);
                    shared.emit(Event::Returned {
                        id: job_id.clone(),
                        attempt: job.attempt,
                    });
                }
            });
        }
        Outcome::Succeeded => {
            shared.counters.ran.fetch_add(1, Ordering::Relaxed);
            shared.counters.succeeded.fetch_add(1, Ordering::Relaxed);
            shared.emit_routine(|| Event::Succeeded {
                id: id.clone(),
                attempt: job.attempt,
                duration_ms,
            });
            slot.acks.ack(id, size, duration_ms, held);
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
            let owned = shared.clone();
            let retry_in = report.retry_in;
            slot.settle_aside(id, held, async move {
                settle_failure(&owned, &job, now, &failure, retry_in).await;
            });
        }
    }
}

/// Settles a job an order cancelled, as the order asks (dead, or retried at once), its
/// failure recorded as the cancel, then answers the order.
fn cancelled_by_order(
    slot: &Slot,
    job: &Job,
    held: OwnedSemaphorePermit,
    order: Order,
    report: &super::handler::RunReport,
    duration_ms: u64,
) {
    let shared = &slot.shared;
    let id = job.id.clone();
    let now = shared.now();
    let settle_as = match &order.what {
        What::Cancel { settle, .. } => *settle,
        _ => Settle::Dead,
    };
    let reason = format!("cancelled by {}", order.by);
    let failure = Failure {
        reason: reason.clone(),
        stderr: String::from_utf8_lossy(&report.stderr_tail).into_owned(),
        duration_ms,
        attempt: job.attempt,
        time: now,
        consumer: shared.inflight.clone(),
        ..Failure::default()
    };
    shared.counters.ran.fetch_add(1, Ordering::Relaxed);
    shared.emit(Event::Failed {
        id: id.clone(),
        attempt: job.attempt,
        duration_ms,
        reason,
        exit_code: None,
        signal: None,
    });
    let owned = shared.clone();
    let job = job.clone();
    slot.settle_aside(id.clone(), held, async move {
        let shared = &owned;
        let what = format!("job {id:?}");
        let done = match settle_as {
            Settle::Dead => {
                settle(shared, &what, |mut r| {
                    let (job, failure) = (&job, &failure);
                    async move {
                        inflight::kill(
                            &mut r,
                            &shared.keys,
                            &shared.inflight,
                            &job.id,
                            Some(job),
                            now,
                            failure,
                        )
                        .await
                    }
                })
                .await
            }
            Settle::Retry => {
                settle(shared, &what, |mut r| {
                    let (job, failure) = (&job, &failure);
                    async move {
                        inflight::retry(&mut r, &shared.keys, &shared.inflight, job, now, failure)
                            .await
                    }
                })
                .await
            }
        };
        let (result, detail) = match done {
            Some(true) => {
                match settle_as {
                    Settle::Dead => {
                        shared.counters.killed.fetch_add(1, Ordering::Relaxed);
                        shared.emit(Event::Killed {
                            id: id.clone(),
                            attempt: job.attempt + 1,
                        });
                    }
                    Settle::Retry => {
                        shared.counters.retried.fetch_add(1, Ordering::Relaxed);
                        shared.emit(Event::Retried {
                            id: id.clone(),
                            attempt: job.attempt + 1,
                            retry_at: now,
                        });
                    }
                }
                let detail = match settle_as {
                    Settle::Dead => format!("moved to {}", shared.keys.dead),
                    Settle::Retry => format!(
                        "in {} to run again now (run {} next)",
                        shared.keys.scheduled,
                        job.attempt + 2
                    ),
                };
                (AnswerOutcome::Cancelled, detail)
            }
            Some(false) => {
                let why = not_reserved(shared, &id).await;
                shared.emit(Event::Lost {
                    id: id.clone(),
                    reason: why.clone(),
                });
                (AnswerOutcome::NotHeld, why)
            }
            None => (
                AnswerOutcome::Failed,
                "its handler was stopped, but the job could not be settled (see the consumer's warnings); it stays reserved for recovery".to_string(),
            ),
        };
        let answer = Answer {
            result,
            job: Some(id.clone()),
            detail,
            grace_ms: None,
        };
        let _ = super::orders::reply(shared, &order, &[answer]).await;
    });
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
/// expire. Once the consumer is killed (a second signal, or the end of --shutdown-grace) or
/// has lost its lease, the call in flight and its retries get [`Shared::killed_limit`] more,
/// and none is made once Redis has left one unanswered that long: the user asked it to stop
/// now, or others may soon recover its jobs, and what it cannot settle stays reserved for
/// recovery. None when it could not be done (reported as a warning). `what` names the
/// job(s).
async fn settle<T, F, Fut>(shared: &Shared, what: &str, call: F) -> Option<T>
where
    F: Fn(crate::engine::conn::Redis) -> Fut,
    Fut: std::future::Future<Output = Result<T, Error>>,
{
    let mut failures = 0u32;
    // When settling gives up, set as the consumer is found killed.
    let mut last_chance: Option<tokio::time::Instant> = None;
    let killed = |at: &mut Option<tokio::time::Instant>| {
        *at = Some(tokio::time::Instant::now() + shared.killed_limit());
    };
    let unanswered = || format!("could not settle {what}: {}", shared.silent_since_kill());
    loop {
        if shared.halted() && shared.unanswered.load(Ordering::SeqCst) {
            shared.emit(Event::Warning {
                message: format!(
                    "{}; nothing was changed: it stays reserved for recovery",
                    unanswered()
                ),
            });
            return None;
        }
        let attempt = call(shared.redis.clone());
        tokio::pin!(attempt);
        let answered = loop {
            match last_chance {
                None => tokio::select! {
                    biased;
                    result = &mut attempt => break Some(result),
                    _ = shared.halting() => killed(&mut last_chance),
                },
                Some(at) => tokio::select! {
                    biased;
                    result = &mut attempt => break Some(result),
                    _ = tokio::time::sleep_until(at) => break None,
                },
            }
        };
        let Some(result) = answered else {
            shared.unanswered.store(true, Ordering::SeqCst);
            shared.emit(Event::Warning {
                message: format!(
                    "{}; the change may or may not have been made: what is still reserved stays so for recovery",
                    unanswered()
                ),
            });
            return None;
        };
        match result {
            Ok(v) => return Some(v),
            Err(err)
                if err.is_transient()
                    && !shared.lease_lost.is_cancelled()
                    && shared.now() < shared.lease_deadline()
                    && last_chance.is_none_or(|at| tokio::time::Instant::now() < at) =>
            {
                failures += 1;
                let wait = super::supervisor::backoff(failures, true);
                shared.emit(Event::Warning {
                    message: format!("settling {what}: {err}; retrying in {}ms", wait.as_millis()),
                });
                match last_chance {
                    // Killed meanwhile: the last try comes at once.
                    None => tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = shared.halting() => killed(&mut last_chance),
                    },
                    Some(at) => {
                        tokio::time::sleep_until(at.min(tokio::time::Instant::now() + wait)).await
                    }
                }
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
