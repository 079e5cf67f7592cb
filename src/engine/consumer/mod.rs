//! A CurlyQ-compatible consumer that runs a [`Handler`] per job. Its loops (heartbeat,
//! scheduler, custodian, poller, processor) run under a supervisor that retries their errors
//! with backoff; the processor runs handlers and settles their jobs.

mod custodian;
mod drain;
mod gate;
mod handler;
mod heartbeat;
mod identity;
mod limit;
mod orders;
mod poller;
mod processor;
mod scheduler;
mod status;
mod supervisor;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::sync::{mpsc, Notify, Semaphore};
use tokio_util::sync::CancellationToken;

pub use gate::{Gate, Member, Order as GateOrder};
pub use handler::{Handler, JobInput, Outcome, RunFuture, RunReport};
pub use identity::Identity;
pub use limit::RunLimit;
pub use status::{LoopState, Status};

use super::conn::{Redis, ServerSpec};
use super::error::Error;
use super::keys::QueueKeys;
use super::listing::CALL_BYTES;

/// How much work, in handler run time, the automatic buffer holds ahead of the handlers:
/// short jobs are then reserved in batches, while long ones are not taken from other
/// consumers that could start them sooner.
pub const BUFFER_TIME: Duration = Duration::from_millis(20);
/// The most jobs the automatic buffer holds.
pub const MAX_AUTO_BUFFER: usize = 1000;

/// The automatic buffer for `concurrency` handlers whose jobs take `run_time` on average
/// (None: not measured yet): [`BUFFER_TIME`] of work, `concurrency` at least (a job waiting
/// for each handler), [`MAX_AUTO_BUFFER`] at most.
pub fn auto_buffer(concurrency: usize, run_time: Option<Duration>) -> usize {
    let Some(run_time) = run_time else {
        return concurrency;
    };
    let jobs = BUFFER_TIME.as_secs_f64() * concurrency as f64 / run_time.as_secs_f64().max(1e-6);
    (jobs as usize).clamp(concurrency, MAX_AUTO_BUFFER.max(concurrency))
}

/// How the consumer behaves; the CLI's defaults are documented in docs/consume.md.
#[derive(Clone, Debug)]
pub struct Config {
    pub queue: String,
    pub concurrency: usize,
    /// How many jobs the handlers truly run at once: `concurrency`, or with `--pipe` the
    /// handler processes (each given up to `--pipe-depth` jobs). The consumer holds at most
    /// [`CALL_BYTES`] of records per handler, but always one job per handler, whatever its
    /// size (see [`Shared::reserve_budget`]).
    pub handlers: usize,
    /// Reserved jobs waiting locally for a free handler slot; None: as many as about
    /// [`BUFFER_TIME`] of work, measured as jobs run ([`auto_buffer`]).
    pub buffer: Option<usize>,
    pub heartbeat: Duration,
    /// Another consumer is dead when its heartbeat is older than this.
    pub orphan_after: Duration,
    /// A job runs at most max_retries + 1 times.
    pub max_retries: i64,
    pub max_backoff: Duration,
    /// The longest an idle consumer blocks on the signal before it looks again.
    pub poll_interval: Duration,
    pub scheduler_interval: Duration,
    pub shutdown_grace: Duration,
    /// The handlers' grace between SIGTERM and SIGKILL (`--kill-after`): how long a
    /// cancelled job's handler may take to end.
    pub kill_after: Duration,
    /// Exit when every job it could run has reached an end: nothing ready, nothing held
    /// here or at other consumers, no retry of a job that failed here pending.
    pub drain: bool,
    /// With `drain`: also wait for jobs scheduled for later by producers.
    pub wait_scheduled: bool,
    /// Exit after this many jobs.
    pub max_jobs: Option<u64>,
    /// This consumer's own rate (`--rate`, `--burst`): jobs per second, and how many may start
    /// at once after a quiet spell. The queue's shared limits apply as well.
    pub rate: Option<(f64, u32)>,
    /// Emit the events every job has when all goes well (reserved, started, succeeded);
    /// off, a busy consumer does not pay for events nobody shows.
    pub routine_events: bool,
    /// What runs the jobs, for `NAME:consumer:<uuid>`.
    pub identity: Identity,
    /// When the handlers choose how many jobs they run at once (`--pipe`): their limit, one
    /// share per handler, at most `concurrency` in all. None: `concurrency`.
    pub run_limit: Option<Arc<RunLimit>>,
    /// With several queues: this queue's place at the gate its handlers share (its poller
    /// tells the gate whether it finds jobs).
    pub member: Option<Member>,
}

/// Something that happened to a job or the consumer, for the caller to show.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Reserved {
        id: String,
        attempt: i64,
    },
    Started {
        id: String,
        attempt: i64,
    },
    Succeeded {
        id: String,
        attempt: i64,
        duration_ms: u64,
    },
    Failed {
        id: String,
        attempt: i64,
        duration_ms: u64,
        reason: String,
        exit_code: Option<i32>,
        signal: Option<i32>,
    },
    Retried {
        id: String,
        attempt: i64,
        retry_at: f64,
    },
    /// Moved to the dead set ("dead" in JSON, as in the text).
    #[serde(rename = "dead")]
    Killed {
        id: String,
        attempt: i64,
    },
    Damaged {
        id: String,
        reason: String,
    },
    Recovered {
        consumer: String,
        jobs: u64,
    },
    Returned {
        id: String,
        attempt: i64,
    },
    /// A reservation was lost before the job was settled (another consumer may run it).
    Lost {
        id: String,
        reason: String,
    },
    Warning {
        message: String,
    },
    /// A handler's share of the run limit changed (with `--pipe`: its depth); handlers are
    /// numbered from 1.
    Depth {
        handler: usize,
        depth: usize,
    },
}

/// How a drain ended, when it ended by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DrainEnd {
    /// Every job it could run reached an end.
    Drained,
    /// The queue is paused: what is ready (or will be) was not run.
    Paused,
}

/// What was left of the queue when a consumer stopped, for its closing line.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Left {
    /// Jobs in `NAME:active`.
    pub ready: u64,
    /// Retries of jobs that failed here, still waiting in `NAME:scheduled`.
    pub retries_pending: u64,
    /// Jobs reserved by other consumers.
    pub in_flight_elsewhere: u64,
    /// Every other job in `NAME:scheduled` (delayed by producers, or retries of jobs that
    /// failed elsewhere).
    pub scheduled: u64,
    pub paused: bool,
}

impl Left {
    pub fn is_empty(&self) -> bool {
        self.ready + self.retries_pending + self.in_flight_elsewhere + self.scheduled == 0
    }
}

/// Counts for the closing summary.
#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub ran: u64,
    pub succeeded: u64,
    pub retried: u64,
    /// Jobs moved to the dead set ("dead" in JSON, as in the text).
    #[serde(rename = "dead")]
    pub killed: u64,
    pub damaged: u64,
    pub returned: u64,
}

impl Summary {
    pub fn any_failed(&self) -> bool {
        self.retried + self.killed + self.damaged > 0
    }
}

/// Counters shared by the loops.
#[derive(Default)]
pub(crate) struct Counters {
    pub ran: AtomicU64,
    pub succeeded: AtomicU64,
    pub retried: AtomicU64,
    pub killed: AtomicU64,
    pub damaged: AtomicU64,
    pub returned: AtomicU64,
    pub reserved: AtomicU64,
}

impl Counters {
    fn summary(&self) -> Summary {
        Summary {
            ran: self.ran.load(Ordering::Relaxed),
            succeeded: self.succeeded.load(Ordering::Relaxed),
            retried: self.retried.load(Ordering::Relaxed),
            killed: self.killed.load(Ordering::Relaxed),
            damaged: self.damaged.load(Ordering::Relaxed),
            returned: self.returned.load(Ordering::Relaxed),
        }
    }
}

/// What the loops share.
pub(crate) struct Shared {
    pub cfg: Config,
    pub keys: QueueKeys,
    pub id: String,
    pub inflight: String,
    pub server: ServerSpec,
    pub redis: Redis,
    /// The connection that reads reserved records too large to come with their reservation
    /// (up to a budget): such a reply never holds up the calls on `redis`, even one too slow
    /// to arrive.
    pub reader: Redis,
    pub events: mpsc::UnboundedSender<Event>,
    pub handler: Arc<dyn Handler>,
    pub counters: Counters,
    pub status: Status,
    /// The server's clock: read at start, followed since on the boot clock.
    pub clock: ServerClock,
    /// First signal: stop reserving, finish what runs.
    pub stop: CancellationToken,
    /// Second signal or grace over: terminate running handlers.
    pub kill: CancellationToken,
    /// Heartbeats failed for too long: stop handlers, settle nothing.
    pub lease_lost: CancellationToken,
    /// Handlers stop: `kill` or `lease_lost` fired. Every job's handler gets this token.
    pub halt: CancellationToken,
    /// Handlers' SIGTERM grace is over: fired a while after the lease was lost, so handlers
    /// are gone well before others may recover their jobs.
    pub kill_now: CancellationToken,
    /// Set when, after the kill, Redis left a settle call unanswered for
    /// [`Shared::killed_limit`]: later settles do not wait for it again.
    pub unanswered: std::sync::atomic::AtomicBool,
    /// Reserved or running jobs held locally (permits taken = jobs held).
    pub slots: Arc<Semaphore>,
    /// Rung whenever a local job finishes.
    pub finished: Notify,
    /// Rung whenever a handler gives up its job's running slot.
    pub freed: Notify,
    /// The last successful heartbeat, and whether the lease has been lost.
    pub lease: std::sync::Mutex<Lease>,
    /// The heartbeat's own connection, with a short response timeout.
    pub beat_conn: tokio::sync::Mutex<Option<Redis>>,
    /// The handlers' average run time in microseconds (0: none ran yet).
    pub run_micros: AtomicU64,
    /// Reserved jobs waiting here for a free handler.
    pub queued: AtomicUsize,
    /// Ids reserved and not yet settled here (in the local buffer or running), with the
    /// sizes of their records.
    pub holding: std::sync::Mutex<Holding>,
    /// An error that ends the consumer, raised where no loop can return it (settling a job).
    pub fatal: std::sync::Mutex<Option<Error>>,
    /// Keys of the warnings already given (each is said once).
    pub reported: std::sync::Mutex<std::collections::HashSet<String>>,
    /// Members seen with a heartbeat in the future: (score, when first seen with it).
    pub ahead: std::sync::Mutex<std::collections::HashMap<String, (f64, std::time::Instant)>>,
    /// Jobs that failed here and wait in `NAME:scheduled` for their retry: id -> retry time.
    /// A drain waits for them.
    pub retries: std::sync::Mutex<std::collections::HashMap<String, f64>>,
    /// How the drain ended, once it has.
    pub drain_end: std::sync::Mutex<Option<DrainEnd>>,
    /// The panic of the poller or the processor, passed on once the consumer has cleaned up.
    pub panic: std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>,
    /// When it first registered (server time).
    pub started: std::sync::OnceLock<f64>,
    /// What `NAME:consumer:<uuid>` and its running list last got.
    pub written: std::sync::Mutex<identity::Written>,
    /// The token bucket of `--rate`.
    pub rate: Option<std::sync::Mutex<super::limits::Bucket>>,
    /// Set once a rate (its own or the queue's) or the queue's running cap held a job back:
    /// from then on it reserves only for free handlers, so that a job starts when it is
    /// reserved and none waits here, counted against the cap, while another consumer could
    /// run it.
    pub limited: std::sync::atomic::AtomicBool,
    /// Set by an order to quiet (`qctl consumers quiet`): reserve nothing more, finish what
    /// runs, stay registered.
    pub quiet: std::sync::atomic::AtomicBool,
    /// Rung when the consumer is quieted or resized.
    pub quieted: Notify,
    /// How many jobs run at once now: `concurrency`, until an order resizes it.
    pub concurrency_now: AtomicUsize,
    /// Local slots added by resizing above the concurrency it started with.
    pub extra_capacity: AtomicUsize,
    /// The jobs held here that an order cancelled, or whose handlers run: id -> the token
    /// that stops that job's handler alone, and the order that cancelled it.
    pub cancels: std::sync::Mutex<std::collections::HashMap<String, JobCancel>>,
    /// Who stopped it by an order, if one did.
    pub stopped_by: std::sync::Mutex<Option<String>>,
}

/// A job's own stop: its token (a child of [`Shared::halt`]) and the order that fired it.
pub(crate) struct JobCancel {
    pub token: CancellationToken,
    pub order: Option<crate::engine::orders::Order>,
}

/// The jobs held here: their ids with the sizes of their records, and those sizes' sum; and
/// those whose handler has ended (being settled).
#[derive(Default)]
pub(crate) struct Holding {
    pub ids: std::collections::HashMap<String, usize>,
    pub bytes: usize,
    pub ended: std::collections::HashSet<String>,
}

/// This consumer's hold on its reservations, renewed by every successful heartbeat.
#[derive(Debug)]
pub struct Lease {
    /// When (local monotonic clock) the last successful heartbeat's score was taken.
    pub sent: std::time::Instant,
    /// That score: the server's clock at `sent`, in unix seconds.
    pub score: f64,
    /// Why it was lost; once set, it stays.
    pub lost: Option<String>,
}

/// The Redis server's clock as a consumer follows it: the server's time read at start plus
/// the time elapsed since on the boot clock, which a step of this host's clock (by hand, by
/// NTP, a VM restored) does not move, and which counts a suspension of the machine.
#[derive(Clone, Copy, Debug)]
pub struct ServerClock {
    /// The server's time (unix seconds) at `at`.
    base: f64,
    /// The boot clock then.
    at: Duration,
}

impl ServerClock {
    /// Reads the server's time (`TIME`), placed halfway through the call.
    pub async fn read(redis: &mut Redis) -> Result<ServerClock, Error> {
        let before = since_boot();
        let base = redis.server_time().await?;
        let after = since_boot();
        Ok(ServerClock {
            base,
            at: (before + after) / 2,
        })
    }

    /// The server's time now, in unix seconds.
    pub fn now(&self) -> f64 {
        self.base + since_boot().saturating_sub(self.at).as_secs_f64()
    }
}

/// Time since boot, suspensions included (CLOCK_BOOTTIME); elsewhere than Linux, the
/// monotonic clock since the first call.
fn since_boot() -> Duration {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes the timespec it is given; CLOCK_BOOTTIME exists on
        // every Linux qctl runs on (2.6.39 and later), so it does not fail.
        unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts) };
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
    }
    #[cfg(not(target_os = "linux"))]
    {
        static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        ORIGIN.get_or_init(std::time::Instant::now).elapsed()
    }
}

impl Shared {
    /// The server's clock (see [`ServerClock`]).
    pub fn now(&self) -> f64 {
        self.clock.now()
    }

    pub fn emit(&self, event: Event) {
        let _ = self.events.send(event);
    }

    /// Tells the gate of several queues, if there is one, whether this queue's last look found
    /// jobs.
    pub fn gate_found<'a>(&self, ids: impl IntoIterator<Item = &'a str>) {
        if let Some(member) = &self.cfg.member {
            member.gate.found(member.queue, ids);
        }
    }

    /// Emits an event of a job going well, when the caller wants those.
    pub fn emit_routine(&self, event: impl FnOnce() -> Event) {
        if self.cfg.routine_events {
            self.emit(event());
        }
    }

    /// How many jobs may run at once now: `concurrency`, or the handlers' own limit.
    pub fn concurrency(&self) -> usize {
        let now = self.concurrency_now.load(Ordering::Relaxed);
        match (&self.cfg.run_limit, &self.cfg.member) {
            // Several queues share the handlers: their jobs wait for a place at the gate, and
            // twice what the handlers hold may be on the way there (see `consumer::gate`).
            (Some(limit), Some(_)) => (limit.total() * 2).min(now),
            (Some(limit), None) => limit.total().min(now),
            (None, _) => now,
        }
    }

    /// The handlers it has, as its description says: `--concurrency`, or what an order
    /// resized it to (a `--pipe` consumer's long-lived handlers are not resized).
    pub fn handlers(&self) -> usize {
        match (&self.cfg.run_limit, &self.cfg.member) {
            (None, None) => self.concurrency_now.load(Ordering::Relaxed),
            _ => self.cfg.handlers,
        }
    }

    /// Changes how many jobs run at once, as an order asks; the number before. Lowering it
    /// lets running jobs finish (no new one starts until fewer run than asked); raising it
    /// adds handler slots.
    pub fn resize(&self, concurrency: usize) -> Result<usize, String> {
        if self.cfg.run_limit.is_some() {
            return Err(
                "a --pipe consumer's handlers are long-lived processes started with it: \
                        its concurrency is not changed while it runs; restart it with another \
                        --concurrency"
                    .into(),
            );
        }
        if self.cfg.member.is_some() {
            return Err(
                "this consumer takes several queues, whose handlers share their places: \
                        its concurrency is not changed while it runs; restart it with another \
                        --concurrency"
                    .into(),
            );
        }
        if concurrency == 0 {
            return Err("concurrency 0 would run nothing: quiet the consumer instead".into());
        }
        let before = self.concurrency_now.swap(concurrency, Ordering::SeqCst);
        // Room here for the jobs of handlers above the concurrency it started with.
        let extra = concurrency.saturating_sub(self.cfg.concurrency);
        let had = self.extra_capacity.load(Ordering::SeqCst);
        if extra > had {
            self.slots.add_permits(extra - had);
            self.extra_capacity.store(extra, Ordering::SeqCst);
        }
        self.quieted.notify_waiters();
        self.freed.notify_waiters();
        self.finished.notify_waiters();
        Ok(before)
    }

    /// Notes who stopped the consumer by an order.
    pub fn stopped_by(&self, by: &str) {
        self.stopped_by
            .lock()
            .expect("stopped_by lock")
            .get_or_insert_with(|| by.to_string());
    }

    /// The token that stops the handler of job `id` alone (it also fires with
    /// [`Shared::halt`]): the one an order may already have fired, else a new one.
    pub fn job_token(&self, id: &str) -> CancellationToken {
        let mut cancels = self.cancels.lock().expect("cancels lock");
        cancels
            .entry(id.to_string())
            .or_insert_with(|| JobCancel {
                token: self.halt.child_token(),
                order: None,
            })
            .token
            .clone()
    }

    /// The order that cancelled job `id`, if one did; forgets the job's token.
    pub fn job_ended(&self, id: &str) -> Option<crate::engine::orders::Order> {
        self.cancels
            .lock()
            .expect("cancels lock")
            .remove(id)
            .and_then(|c| c.order)
    }

    /// Cancels job `id` as `order` asks: its handler is stopped (or, not started yet, never
    /// starts) and the processor settles it as asked and answers. Err: why it cannot be.
    pub fn cancel_job(&self, id: &str, order: &crate::engine::orders::Order) -> Result<(), String> {
        if !self.is_holding(id) {
            return Err("not held by this consumer".into());
        }
        if !self.unended().contains(id) {
            return Err("its handler had already ended: it is settled as it ended".into());
        }
        let mut cancels = self.cancels.lock().expect("cancels lock");
        let entry = cancels.entry(id.to_string()).or_insert_with(|| JobCancel {
            token: self.halt.child_token(),
            order: None,
        });
        if entry.order.is_none() {
            entry.order = Some(order.clone());
        }
        entry.token.cancel();
        Ok(())
    }

    /// How many jobs may be held here now: running, and buffered for the handlers.
    pub fn capacity(&self) -> usize {
        let concurrency = self.concurrency();
        if self.limited.load(Ordering::Relaxed) {
            return concurrency;
        }
        let buffer = match self.cfg.buffer {
            Some(n) => n,
            None => auto_buffer(concurrency, self.run_time()),
        };
        concurrency + buffer
    }

    /// The most jobs ever held here (the local slots).
    pub fn max_capacity(&self) -> usize {
        max_capacity(&self.cfg) + self.extra_capacity.load(Ordering::SeqCst)
    }

    /// Jobs reserved and not yet settled, here.
    pub fn held(&self) -> usize {
        self.max_capacity() - self.slots.available_permits()
    }

    /// The byte budget of the next reservation while `jobs` jobs are held here: what is left
    /// of [`CALL_BYTES`] per handler, at most one call's budget; 0 (one job, whatever its
    /// size) when the records held leave no room but a handler has no job; None when there
    /// is room for neither. So the records held stay within the budget per handler, plus
    /// one record, or one record per handler when records are larger than the budget.
    pub fn reserve_budget(&self, jobs: usize) -> Option<usize> {
        let limit = CALL_BYTES.saturating_mul(self.cfg.handlers.max(1));
        let bytes = self.holding.lock().expect("holding lock").bytes;
        if bytes < limit {
            Some((limit - bytes).min(CALL_BYTES))
        } else if jobs < self.cfg.handlers {
            Some(0)
        } else {
            None
        }
    }

    /// The handlers' average run time so far (a moving average), if a job has run.
    pub fn run_time(&self) -> Option<Duration> {
        match self.run_micros.load(Ordering::Relaxed) {
            0 => None,
            us => Some(Duration::from_micros(us)),
        }
    }

    /// How long the jobs waiting here keep the handlers busy, by the average run time.
    pub fn queued_work(&self) -> Duration {
        let queued = self.queued.load(Ordering::Relaxed) as u32;
        let run_time = self.run_time().unwrap_or_default();
        run_time * queued / self.concurrency().max(1) as u32
    }

    /// Counts one handler run in the average run time.
    pub fn note_run_time(&self, took: Duration) {
        let us = (took.as_micros() as u64).max(1);
        let _ = self
            .run_micros
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |avg| {
                Some(if avg == 0 {
                    us
                } else {
                    (avg * 7 + us).div_ceil(8)
                })
            });
    }

    pub fn last_beat(&self) -> f64 {
        self.lease.lock().expect("lease lock").score
    }

    /// Until when (server clock) settling a job may be retried: after that others may have
    /// recovered it.
    /// How long a consumer that was killed (a second signal, the end of --shutdown-grace) or
    /// lost its lease still waits for Redis: to settle a job, then to give back what it holds
    /// and leave. What is left then stays reserved for orphan recovery.
    pub fn killed_limit(&self) -> Duration {
        self.server.response_timeout.min(Duration::from_secs(3))
    }

    /// Why something was given up after the kill or the loss of the lease: Redis did not
    /// answer in time.
    pub fn silent_since_kill(&self) -> String {
        let since = if self.lease_lost.is_cancelled() {
            "the loss of the lease"
        } else {
            "the stop (a second signal, or the end of --shutdown-grace)"
        };
        format!(
            "Redis did not answer within {}s of {since}",
            self.killed_limit().as_secs_f64()
        )
    }

    /// Whether the consumer was killed (a second signal, the end of --shutdown-grace) or lost
    /// its lease: its handlers are being stopped, and Redis is waited for at most
    /// [`Shared::killed_limit`] more.
    pub fn halted(&self) -> bool {
        self.kill.is_cancelled() || self.lease_lost.is_cancelled()
    }

    /// Resolves once [`Shared::halted`].
    pub async fn halting(&self) {
        tokio::select! {
            _ = self.kill.cancelled() => {}
            _ = self.lease_lost.cancelled() => {}
        }
    }

    /// Resolves [`Shared::killed_limit`] after the consumer is killed: a call made while it
    /// stops races this, so that a Redis that does not answer cannot hold it up.
    pub async fn past_kill(&self) {
        self.kill.cancelled().await;
        tokio::time::sleep(self.killed_limit()).await;
    }

    pub fn lease_deadline(&self) -> f64 {
        self.last_beat() + self.lease_window().as_secs_f64()
    }

    /// How long after its last successful heartbeat the consumer keeps its lease:
    /// `--orphan-after` minus a margin (heartbeat + 5 s, at most half of `--orphan-after`).
    pub fn lease_window(&self) -> Duration {
        self.cfg.orphan_after - self.lease_margin()
    }

    pub fn lease_margin(&self) -> Duration {
        (self.cfg.heartbeat + Duration::from_secs(5)).min(self.cfg.orphan_after / 2)
    }

    /// The longest handlers get between SIGTERM and SIGKILL when the lease is lost (their
    /// own `--kill-after` when shorter): half the margin, so they are gone well before
    /// others may recover their jobs.
    pub fn lease_kill_after(&self) -> Duration {
        self.lease_margin() / 2
    }

    /// Gives up the lease (once): stop reserving, stop running handlers, settle nothing.
    pub fn lose_lease(&self, why: String) {
        let mut lease = self.lease.lock().expect("lease lock");
        if lease.lost.is_none() {
            lease.lost = Some(why);
        }
        drop(lease);
        self.lease_lost.cancel();
        self.stop.cancel();
    }

    /// Notes ids as held here (reserved by this process), with the sizes of their records.
    pub fn hold(&self, ids: impl IntoIterator<Item = (String, usize)>) {
        let mut holding = self.holding.lock().expect("holding lock");
        for (id, size) in ids {
            holding.bytes += size;
            if let Some(old) = holding.ids.insert(id, size) {
                holding.bytes -= old;
            }
        }
    }

    /// Lets go of jobs settled or given up: they are no longer held here (their ids and
    /// record sizes, under one lock), their local slots are free, and whoever waits for a
    /// job to finish is told once.
    pub fn let_go<S: AsRef<str>>(
        &self,
        jobs: impl IntoIterator<Item = (S, tokio::sync::OwnedSemaphorePermit)>,
    ) {
        let mut slots = Vec::new();
        let mut ids = Vec::new();
        {
            let mut holding = self.holding.lock().expect("holding lock");
            for (id, slot) in jobs {
                if let Some(size) = holding.ids.remove(id.as_ref()) {
                    holding.bytes -= size;
                }
                holding.ended.remove(id.as_ref());
                if self.cfg.member.is_some() {
                    ids.push(id);
                }
                slots.push(slot);
            }
        }
        drop(slots);
        if let Some(member) = &self.cfg.member {
            member
                .gate
                .gone(member.queue, ids.iter().map(AsRef::as_ref));
        }
        self.finished.notify_waiters();
    }

    /// Notes that the handler of a job held here has ended: what is left is settling it.
    pub fn handler_ended(&self, id: &str) {
        let mut holding = self.holding.lock().expect("holding lock");
        if holding.ids.contains_key(id) {
            holding.ended.insert(id.to_string());
        }
    }

    /// The ids held here whose handlers have not ended: running, or waiting for a handler.
    pub fn unended(&self) -> std::collections::HashSet<String> {
        let holding = self.holding.lock().expect("holding lock");
        holding
            .ids
            .keys()
            .filter(|id| !holding.ended.contains(*id))
            .cloned()
            .collect()
    }

    pub fn is_holding(&self, id: &str) -> bool {
        self.holding
            .lock()
            .expect("holding lock")
            .ids
            .contains_key(id)
    }

    /// Ends the consumer with `err` (the first one given wins): it stops reserving and lets
    /// running handlers finish.
    pub fn fail(&self, err: Error) {
        self.fatal.lock().expect("fatal lock").get_or_insert(err);
        self.stop.cancel();
    }

    /// Why the lease was lost, if it was.
    pub fn lease_lost_why(&self) -> Option<String> {
        self.lease.lock().expect("lease lock").lost.clone()
    }

    /// Keeps the first panic of a loop, and stops reserving.
    pub fn panicked(&self, panic: Box<dyn std::any::Any + Send>) {
        self.panic.lock().expect("panic lock").get_or_insert(panic);
        self.stop.cancel();
    }

    /// Says something once in this consumer's life; `key` names what it is about.
    pub fn report_once(&self, key: &str, message: String) {
        if self
            .reported
            .lock()
            .expect("report lock")
            .insert(key.to_string())
        {
            self.emit(Event::Warning { message });
        }
    }
}

/// The local slots: `concurrency` plus the largest buffer `cfg` allows.
fn max_capacity(cfg: &Config) -> usize {
    cfg.concurrency + cfg.buffer.unwrap_or(MAX_AUTO_BUFFER.max(cfg.concurrency))
}

/// Skew between our clock and the server's above which a warning is printed.
pub const SKEW_WARNING: f64 = 2.0;

/// A running consumer: its id and the tokens that stop it.
pub struct Handle {
    pub id: String,
    pub inflight: String,
    pub stop: CancellationToken,
    pub kill: CancellationToken,
    pub status: Status,
    shared: Arc<Shared>,
}

impl Handle {
    /// The counts so far.
    pub fn summary(&self) -> Summary {
        self.shared.counters.summary()
    }

    /// How the drain ended, if it ended by itself.
    pub fn drain_end(&self) -> Option<DrainEnd> {
        *self.shared.drain_end.lock().expect("drain lock")
    }

    /// How long running handlers may finish after a stop request.
    pub fn shutdown_grace(&self) -> Duration {
        self.shared.cfg.shutdown_grace
    }

    /// Who stopped it by an order (`qctl consumers stop`), if one did.
    pub fn stopped_by(&self) -> Option<String> {
        self.shared
            .stopped_by
            .lock()
            .expect("stopped_by lock")
            .clone()
    }

    /// Whether an order quieted it.
    pub fn quiet(&self) -> bool {
        self.shared.quiet.load(Ordering::SeqCst)
    }

    /// Whether `--max-jobs` jobs were reserved.
    pub fn max_jobs_reached(&self) -> bool {
        self.shared
            .cfg
            .max_jobs
            .is_some_and(|max| self.shared.counters.reserved.load(Ordering::Relaxed) >= max)
    }

    /// What is left of the queue for this consumer: read after it stopped, for the closing
    /// line.
    pub async fn left(&self) -> Result<Left, Error> {
        let shared = &self.shared;
        let mut redis = shared.redis.clone();
        let pending = drain::pending_retries(shared).await?;
        let keys = &shared.keys;
        let (ready, scheduled, paused): (u64, u64, bool) = redis
            .pipeline(
                redis::pipe()
                    .cmd("LLEN")
                    .arg(&keys.active)
                    .cmd("ZCARD")
                    .arg(&keys.scheduled)
                    .cmd("EXISTS")
                    .arg(&keys.paused),
                format!("LLEN {}, ZCARD {}", keys.active, keys.scheduled),
            )
            .await?;
        let elsewhere = super::consumers::list(&mut redis, keys)
            .await?
            .into_iter()
            .filter(|c| c.key != shared.inflight)
            .filter_map(|c| c.in_flight)
            .sum();
        Ok(Left {
            ready,
            retries_pending: pending.len() as u64,
            in_flight_elsewhere: elsewhere,
            scheduled: scheduled.saturating_sub(pending.len() as u64),
            paused,
        })
    }

    /// Returns what this consumer still holds to `NAME:active` and leaves `NAME:consumers`,
    /// within the response timeout: for a consumer whose run ended without doing it (a
    /// panic).
    pub async fn give_back_and_leave(&self) {
        let limit = self.shared.server.response_timeout;
        let _ = tokio::time::timeout(limit, give_back_and_leave(&self.shared)).await;
    }
}

/// Prepares a consumer: connects, measures clock skew, registers. Then [`run`] runs it.
pub struct Consumer {
    shared: Arc<Shared>,
}

impl Consumer {
    /// [`Consumer::prepare`], then [`Consumer::register`].
    pub async fn connect(
        server: ServerSpec,
        cfg: Config,
        handler: Arc<dyn Handler>,
        events: mpsc::UnboundedSender<Event>,
    ) -> Result<Consumer, Error> {
        let consumer = Consumer::prepare(server, cfg, handler, events).await?;
        consumer.register().await?;
        Ok(consumer)
    }

    /// Enters the consumer in `NAME:consumers` and writes its description: its first write.
    /// A caller that may be stopped while it waits lets this call end (its reply says whether
    /// the entry was made), so that a stop never leaves an entry nobody knows of.
    pub async fn register(&self) -> Result<(), Error> {
        heartbeat::register(&self.shared).await
    }

    /// Connects, checks the key types and the rights the consumer needs, and measures the
    /// server's clock: everything before its first write, so that dropping this future at
    /// any point leaves nothing in Redis.
    pub async fn prepare(
        server: ServerSpec,
        cfg: Config,
        handler: Arc<dyn Handler>,
        events: mpsc::UnboundedSender<Event>,
    ) -> Result<Consumer, Error> {
        // The first connection gives up within the timeouts asked for, so a wrong address
        // fails at once; the consumer's own keeps reconnecting through restarts and
        // failovers (calls are retried above it).
        let mut first = server.connect().await?;
        super::keys::check_types(&mut first, &QueueKeys::new(&cfg.queue)).await?;
        let mut server = server;
        server.reconnect_retries = 6;
        let mut redis = server.connect().await?;
        let reader = server.connect().await?;
        let clock = ServerClock::read(&mut redis).await?;
        let server_time = clock.now();
        let skew = server_time - super::now();
        if skew.abs() > SKEW_WARNING {
            let _ = events.send(Event::Warning {
                message: format!(
                    "this machine's clock differs from the Redis server's by {skew:+.1}s; qctl uses the server's time"
                ),
            });
        }
        let keys = QueueKeys::new(&cfg.queue);
        let id = uuid::Uuid::new_v4().hyphenated().to_string();
        let inflight = keys.inflight(&id);
        // Every right the consumer needs, before it writes anything.
        super::consumers::rights(&keys, &id)
            .check(&mut redis)
            .await?;
        // Redis 6.2 runs no blocking command in a script, so the check above could not try
        // the BLPOP its orders come by: one that waits 10 ms on its new (empty) list does.
        let orders = keys.consumer_orders(&id);
        redis
            .query::<redis::Value>(
                redis::cmd("BLPOP").arg(&orders).arg(0.01),
                format!("BLPOP {orders}"),
            )
            .await?;
        let capacity = max_capacity(&cfg);
        let shared = Arc::new(Shared {
            keys,
            id,
            inflight,
            server,
            redis,
            reader,
            events,
            handler,
            counters: Counters::default(),
            status: Status::default(),
            clock,
            stop: CancellationToken::new(),
            kill: CancellationToken::new(),
            lease_lost: CancellationToken::new(),
            halt: CancellationToken::new(),
            kill_now: CancellationToken::new(),
            unanswered: std::sync::atomic::AtomicBool::new(false),
            slots: Arc::new(Semaphore::new(capacity)),
            run_micros: AtomicU64::new(0),
            queued: AtomicUsize::new(0),
            finished: Notify::new(),
            freed: Notify::new(),
            lease: std::sync::Mutex::new(Lease {
                sent: std::time::Instant::now(),
                score: server_time,
                lost: None,
            }),
            beat_conn: tokio::sync::Mutex::new(None),
            fatal: std::sync::Mutex::new(None),
            holding: Default::default(),
            reported: Default::default(),
            ahead: Default::default(),
            retries: Default::default(),
            drain_end: Default::default(),
            panic: Default::default(),
            started: Default::default(),
            written: Default::default(),
            rate: cfg.rate.map(|(per_second, burst)| {
                std::sync::Mutex::new(super::limits::Bucket::new(per_second, burst))
            }),
            limited: std::sync::atomic::AtomicBool::new(cfg.rate.is_some()),
            quiet: std::sync::atomic::AtomicBool::new(false),
            quieted: Notify::new(),
            concurrency_now: AtomicUsize::new(cfg.concurrency),
            extra_capacity: AtomicUsize::new(0),
            cancels: Default::default(),
            stopped_by: Default::default(),
            cfg,
        });
        Ok(Consumer { shared })
    }

    pub fn handle(&self) -> Handle {
        Handle {
            id: self.shared.id.clone(),
            inflight: self.shared.inflight.clone(),
            stop: self.shared.stop.clone(),
            kill: self.shared.kill.clone(),
            status: self.shared.status.clone(),
            shared: self.shared.clone(),
        }
    }

    /// Runs until drained, max-jobs reached, stopped, a loop gives up, or the lease is lost
    /// (the error). On every way out it returns what it still holds to `NAME:active` and
    /// leaves `NAME:consumers`, when Redis can be reached.
    pub async fn run(self) -> (Summary, Option<Error>) {
        let shared = self.shared;
        let background = CancellationToken::new();
        let mut loops = tokio::task::JoinSet::new();
        // The lease is watched from the first moment: nothing below may outlive it.
        loops.spawn(heartbeat::watch(shared.clone(), background.clone()));
        loops.spawn(halt_handlers(shared.clone(), background.clone()));
        loops.spawn(supervisor::supervise(
            shared.clone(),
            "heartbeat",
            background.clone(),
            heartbeat::run,
        ));
        loops.spawn(supervisor::supervise(
            shared.clone(),
            "identity",
            background.clone(),
            identity::run,
        ));
        loops.spawn(orders::listen(shared.clone(), background.clone()));
        let mut failure = work(&shared, &background, &mut loops).await;
        // Queues after this one at a shared gate no longer wait for it.
        shared.gate_found([]);
        background.cancel();
        // The loops stop at their next step. Once the consumer is killed or has lost its
        // lease, one waiting on a Redis that does not answer is not waited for past
        // killed_limit, nor at all when a settle call already went unanswered that long.
        let wait = match shared.unanswered.load(Ordering::SeqCst) {
            true => Duration::ZERO,
            false => shared.killed_limit(),
        };
        let deadline = shared.halted().then(|| tokio::time::Instant::now() + wait);
        loop {
            let next = match deadline {
                None => loops.join_next().await,
                Some(at) => match tokio::time::timeout_at(at, loops.join_next()).await {
                    Ok(next) => next,
                    Err(_) => {
                        loops.abort_all();
                        while loops.join_next().await.is_some() {}
                        break;
                    }
                },
            };
            let Some(joined) = next else { break };
            if let Ok(Err(e)) = joined {
                failure.get_or_insert(e);
            }
        }
        if let Some(e) = shared.fatal.lock().expect("fatal lock").take() {
            failure.get_or_insert(e);
        }
        let lost = shared.lease_lost_why();
        // Whatever is still reserved here goes back (its handlers have ended, so this is
        // safe even after the lease was lost); then leave cleanly. Bounded: an unreachable
        // Redis leaves it to orphan recovery, and once a call went unanswered for
        // killed_limit after the kill or the loss of the lease, it is not tried at all.
        let limit = if shared.halted() {
            shared.killed_limit()
        } else {
            shared.server.response_timeout
        };
        if shared.unanswered.load(Ordering::SeqCst) {
            shared.emit(Event::Warning {
                message: format!(
                    "{}, so this consumer did not return its jobs nor leave {}; what it still holds stays in {} for orphan recovery",
                    shared.silent_since_kill(),
                    shared.keys.consumers,
                    shared.inflight
                ),
            });
        } else if tokio::time::timeout(limit, give_back_and_leave(&shared))
            .await
            .is_err()
        {
            shared.emit(Event::Warning {
                message: format!(
                    "Redis did not answer within {}s while this consumer returned its jobs and left; what it still holds stays in {} for orphan recovery",
                    limit.as_secs_f64(),
                    shared.inflight
                ),
            });
        }
        if let Some(why) = lost {
            failure = Some(Error::LeaseLost {
                server: shared.server.server().to_string(),
                reason: why,
            });
        }
        // Its jobs are back and it has left: a panic goes on to the caller now.
        if let Some(panic) = shared.panic.lock().expect("panic lock").take() {
            std::panic::resume_unwind(panic);
        }
        (shared.counters.summary(), failure)
    }
}

/// Stops every handler when `kill` or `lease_lost` fires; after a lost lease their SIGTERM
/// grace is cut short (see [`Shared::lease_kill_after`]).
async fn halt_handlers(shared: Arc<Shared>, background: CancellationToken) -> Result<(), Error> {
    let halting = async {
        tokio::select! {
            _ = shared.kill.cancelled() => {}
            _ = shared.lease_lost.cancelled() => {}
        }
        shared.halt.cancel();
        shared.lease_lost.cancelled().await;
        tokio::time::sleep(shared.lease_kill_after()).await;
        shared.kill_now.cancel();
    };
    tokio::select! {
        _ = halting => {}
        _ = background.cancelled() => {}
    }
    Ok(())
}

/// The consumer's work: the first scheduler and orphan passes, then the loops, until the
/// poller and the processor end. Returns the error that ended it, if one did.
async fn work(
    shared: &Arc<Shared>,
    background: &CancellationToken,
    loops: &mut tokio::task::JoinSet<Result<(), Error>>,
) -> Option<Error> {
    // One scheduler pass and one orphan pass before the first reservation.
    if let Err(e) = scheduler::pass(shared).await {
        return Some(e);
    }
    if let Err(e) = custodian::pass(shared).await {
        return Some(e);
    }
    loops.spawn(supervisor::supervise(
        shared.clone(),
        "scheduler",
        background.clone(),
        scheduler::run,
    ));
    loops.spawn(supervisor::supervise(
        shared.clone(),
        "custodian",
        background.clone(),
        custodian::run,
    ));
    let (jobs_tx, jobs_rx) = mpsc::channel(shared.max_capacity().max(1));
    let mut poller = tokio::spawn(poller::run(shared.clone(), jobs_tx));
    let processor = tokio::spawn(processor::run(shared.clone(), jobs_rx));

    // A background loop that gives up ends the consumer; a panic of the poller or the
    // processor (a bug) ends it too, after it has returned its jobs (see [`Consumer::run`]).
    let mut failure: Option<Error> = None;
    loop {
        tokio::select! {
            r = &mut poller => {
                match r {
                    Ok(Err(e)) => failure = Some(e),
                    Err(join) if join.is_panic() => {
                        shared.panicked(join.into_panic());
                        shared.stop.cancel();
                    }
                    _ => {}
                }
                break;
            }
            Some(joined) = loops.join_next() => {
                if let Ok(Err(e)) = joined {
                    failure = Some(e);
                    break;
                }
            }
        }
    }
    if failure.is_some() {
        shared.stop.cancel();
    }
    // The processor finishes the jobs it holds (or returns them) and then ends.
    match processor.await {
        Ok(Err(e)) => {
            failure.get_or_insert(e);
        }
        Err(join) if join.is_panic() => shared.panicked(join.into_panic()),
        _ => {}
    }
    if !poller.is_finished() {
        let _ = poller.await;
    }
    failure
}

/// Returns every id still in this consumer's in-flight set to `NAME:active` (Attempt
/// unchanged) and removes the consumer from `NAME:consumers`.
async fn give_back_and_leave(shared: &Shared) {
    let mut redis = shared.redis.clone();
    let returned = async {
        let ids = super::inflight::members(&mut redis, &shared.inflight).await?;
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        super::inflight::requeue(&mut redis, &shared.keys, &shared.inflight, &refs).await
    };
    match returned.await {
        Ok(n) => {
            shared.counters.returned.fetch_add(n, Ordering::Relaxed);
        }
        Err(e) => {
            let some = match e.outcome_unknown() {
                true => "they may or may not have gone back; what is still reserved stays",
                false => "they stay",
            };
            shared.emit(Event::Warning {
                message: format!(
                    "could not return this consumer's reserved jobs: {e}; {some} in {} for orphan recovery",
                    shared.inflight
                ),
            })
        }
    }
    if let Err(e) = super::consumers::deregister(&mut redis, &shared.keys, &shared.id).await {
        let left = match e.outcome_unknown() {
            true => "; it may or may not have left",
            false => "",
        };
        shared.emit(Event::Warning {
            message: format!("could not leave {}: {e}{left}", shared.keys.consumers),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_automatic_buffer_holds_about_buffer_time_of_work_within_its_bounds() {
        let ms = Duration::from_millis;
        // Nothing measured yet, or long jobs: one job waiting per handler.
        assert_eq!(auto_buffer(2, None), 2);
        assert_eq!(auto_buffer(2, Some(ms(100))), 2);
        assert_eq!(auto_buffer(8, Some(Duration::from_secs(3600))), 8);
        // Short jobs: what the handlers run in BUFFER_TIME.
        assert_eq!(auto_buffer(2, Some(ms(1))), 40);
        assert_eq!(auto_buffer(4, Some(ms(5))), 16);
        // Very short ones: capped, unless the handlers alone are more.
        assert_eq!(
            auto_buffer(2, Some(Duration::from_micros(1))),
            MAX_AUTO_BUFFER
        );
        assert_eq!(auto_buffer(2, Some(Duration::ZERO)), MAX_AUTO_BUFFER);
        assert_eq!(auto_buffer(4096, Some(ms(1))), 4096);
    }
}
