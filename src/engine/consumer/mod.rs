//! A CurlyQ-compatible consumer that runs one command per job. Its loops (heartbeat,
//! scheduler, custodian, poller, processor) run under a supervisor that retries their errors
//! with backoff; the processor runs handlers and settles their jobs.

mod custodian;
mod heartbeat;
mod poller;
mod processor;
mod scheduler;
mod status;
mod supervisor;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::sync::{mpsc, Notify, Semaphore};
use tokio_util::sync::CancellationToken;

pub use status::{LoopState, Status};

use super::conn::{Redis, ServerSpec};
use super::error::Error;
use super::keys::QueueKeys;
use crate::handler::{HandlerSpec, LineSink};

/// How the consumer behaves; the CLI's defaults are documented in the README.
#[derive(Clone, Debug)]
pub struct Config {
    pub queue: String,
    pub concurrency: usize,
    /// Reserved jobs waiting locally for a free handler slot.
    pub buffer: usize,
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
    /// Exit when nothing is ready and nothing is in flight.
    pub drain: bool,
    /// Exit after this many jobs.
    pub max_jobs: Option<u64>,
    pub handler: HandlerSpec,
    pub program: PathBuf,
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
    },
    Warning {
        message: String,
    },
}

/// Counts for the closing summary.
#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub ran: u64,
    pub succeeded: u64,
    pub retried: u64,
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
    pub events: mpsc::UnboundedSender<Event>,
    pub sink: LineSink,
    pub counters: Counters,
    pub status: Status,
    /// Seconds to add to the local clock to get the server's.
    pub clock_offset: f64,
    /// First signal: stop reserving, finish what runs.
    pub stop: CancellationToken,
    /// Second signal or grace over: terminate running handlers.
    pub kill: CancellationToken,
    /// Heartbeats failed for too long: stop handlers, settle nothing.
    pub lease_lost: CancellationToken,
    /// Reserved or running jobs held locally (permits taken = jobs held).
    pub slots: Arc<Semaphore>,
    /// Rung whenever a local job finishes.
    pub finished: Notify,
    /// Unix time (server clock) of the last successful heartbeat, as f64 bits.
    pub last_beat: AtomicU64,
}

impl Shared {
    /// The server's clock, estimated from ours and the offset measured at start.
    pub fn now(&self) -> f64 {
        super::now() + self.clock_offset
    }

    pub fn emit(&self, event: Event) {
        let _ = self.events.send(event);
    }

    pub fn capacity(&self) -> usize {
        self.cfg.concurrency + self.cfg.buffer
    }

    /// Jobs reserved and not yet settled, here.
    pub fn held(&self) -> usize {
        self.capacity() - self.slots.available_permits()
    }

    pub fn last_beat(&self) -> f64 {
        f64::from_bits(self.last_beat.load(Ordering::Relaxed))
    }

    /// Until when settling a job may be retried: after that others may have recovered it.
    pub fn lease_deadline(&self) -> f64 {
        self.last_beat() + self.cfg.orphan_after.as_secs_f64() - self.lease_margin().as_secs_f64()
    }

    pub fn lease_margin(&self) -> Duration {
        (self.cfg.heartbeat + Duration::from_secs(5)).min(self.cfg.orphan_after / 2)
    }
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
}

/// Prepares a consumer: connects, measures clock skew, registers. Then [`run`] runs it.
pub struct Consumer {
    shared: Arc<Shared>,
}

impl Consumer {
    pub async fn connect(
        server: ServerSpec,
        cfg: Config,
        sink: LineSink,
        events: mpsc::UnboundedSender<Event>,
    ) -> Result<Consumer, Error> {
        let mut server = server;
        // Keep the connection through restarts and failovers; calls are retried above it.
        server.reconnect_retries = 6;
        let mut redis = server.connect().await?;
        let before = super::now();
        let server_time = redis.server_time().await?;
        let after = super::now();
        let clock_offset = server_time - (before + after) / 2.0;
        if clock_offset.abs() > SKEW_WARNING {
            let _ = events.send(Event::Warning {
                message: format!(
                    "this machine's clock differs from the Redis server's by {clock_offset:+.1}s; qctl uses the server's time"
                ),
            });
        }
        let keys = QueueKeys::new(&cfg.queue);
        let id = uuid::Uuid::new_v4().hyphenated().to_string();
        let inflight = keys.inflight(&id);
        let capacity = cfg.concurrency + cfg.buffer;
        let shared = Arc::new(Shared {
            keys,
            id,
            inflight,
            server,
            redis,
            events,
            sink,
            counters: Counters::default(),
            status: Status::default(),
            clock_offset,
            stop: CancellationToken::new(),
            kill: CancellationToken::new(),
            lease_lost: CancellationToken::new(),
            slots: Arc::new(Semaphore::new(capacity)),
            finished: Notify::new(),
            last_beat: AtomicU64::new(0),
            cfg,
        });
        heartbeat::beat(&shared).await?;
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

    /// Runs until drained, max-jobs reached, stopped, or a loop gives up (the error).
    pub async fn run(self) -> (Summary, Option<Error>) {
        let shared = self.shared;
        // One scheduler pass and one orphan pass before the first reservation.
        if let Err(e) = scheduler::pass(&shared).await {
            return (shared.counters.summary(), Some(e));
        }
        if let Err(e) = custodian::pass(&shared).await {
            return (shared.counters.summary(), Some(e));
        }

        let (jobs_tx, jobs_rx) = mpsc::channel(shared.capacity().max(1));
        let background = CancellationToken::new();
        let mut loops = tokio::task::JoinSet::new();
        loops.spawn(supervisor::supervise(
            shared.clone(),
            "heartbeat",
            background.clone(),
            heartbeat::run,
        ));
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
        let poller = tokio::spawn(poller::run(shared.clone(), jobs_tx));
        let processor = tokio::spawn(processor::run(shared.clone(), jobs_rx));

        // A background loop that gives up ends the consumer.
        let mut failure: Option<Error> = None;
        let poll_result = tokio::select! {
            r = poller => Some(r),
            Some(Ok(Err(e))) = loops.join_next() => { failure = Some(e); None }
        };
        if failure.is_some() || shared.lease_lost.is_cancelled() {
            shared.stop.cancel();
        }
        if let Some(Ok(Err(e))) = poll_result {
            failure.get_or_insert(e);
            shared.stop.cancel();
        }
        // The processor finishes the jobs it holds (or returns them) and then ends.
        let processed = processor.await;
        background.cancel();
        while loops.join_next().await.is_some() {}
        if let Ok(Err(e)) = processed {
            failure.get_or_insert(e);
        }
        // Whatever is still reserved here goes back; then leave cleanly.
        let mut redis = shared.redis.clone();
        if !shared.lease_lost.is_cancelled() {
            if let Ok(ids) = super::inflight::members(&mut redis, &shared.inflight).await {
                let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
                if let Ok(n) =
                    super::inflight::requeue(&mut redis, &shared.keys, &shared.inflight, &refs)
                        .await
                {
                    shared.counters.returned.fetch_add(n, Ordering::Relaxed);
                }
            }
            let _ = super::consumers::deregister(&mut redis, &shared.keys, &shared.inflight).await;
        }
        if shared.lease_lost.is_cancelled() {
            failure.get_or_insert(Error::Unreachable {
                server: shared.server.server().to_string(),
                op: "heartbeat".into(),
                reason: format!(
                    "heartbeats failed for longer than {}s; running jobs were stopped and left for recovery",
                    (shared.cfg.orphan_after - shared.lease_margin()).as_secs()
                ),
            });
        }
        (shared.counters.summary(), failure)
    }
}
