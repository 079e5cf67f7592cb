//! The one reading of Redis that every page and API request shares: a task reads a
//! [`Snapshot`] every interval and publishes it, with the one before (for rates) and the
//! last failure, as a [`Latest`] on a `watch` channel. Requests only look at the latest one,
//! so any number of open pages cost Redis one reading per interval.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::engine::snapshot::{Reader, Snapshot};
use crate::engine::{Error, Redis, ServerSpec};
use crate::output::Output;

/// What the last readings gave.
#[derive(Debug, Default)]
pub struct Latest {
    /// The last reading that succeeded.
    pub snapshot: Option<Arc<Snapshot>>,
    /// The one before it: the rates are the difference.
    pub previous: Option<Arc<Snapshot>>,
    /// Set while readings fail.
    pub failure: Option<Failure>,
    /// The queues' JSON of `snapshot`, made by the first request that wants it (see
    /// [`super::api`]), then shared.
    pub queues_json: OnceLock<Box<serde_json::value::RawValue>>,
}

/// Why the last reading failed, and since when readings fail.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The error, on one line.
    pub message: String,
    /// When the first reading of this run of failures failed.
    pub since: Instant,
}

impl Latest {
    /// Before any good reading: Redis could not be read.
    pub fn failed(e: &Error) -> Latest {
        Latest {
            failure: Some(Failure {
                message: one_line(e),
                since: Instant::now(),
            }),
            ..Latest::default()
        }
    }

    /// The rates of a queue of the snapshot since the one before: done and failed per
    /// second (None on the first reading, and for a queue new since).
    pub fn rates(&self, stats: &crate::engine::queues::QueueStats) -> (Option<f64>, Option<f64>) {
        match (&self.snapshot, &self.previous) {
            (Some(now), Some(before)) => now.rates(before, stats),
            _ => (None, None),
        }
    }
}

/// Something to do once, at the first reading that succeeds (the check of the queues named,
/// when Redis could not be read at start).
pub type OnFirstRead = Box<dyn FnOnce(Redis) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send>;

/// The reading task's parts.
pub struct Feed {
    pub spec: ServerSpec,
    /// None until connected, and again after a failure of the link.
    pub redis: Option<Redis>,
    pub reader: Reader,
    pub interval: Duration,
    pub out: Output,
    pub on_first_read: Option<OnFirstRead>,
}

impl Feed {
    /// The first reading, before serving: an error that reading again cannot mend (a refused
    /// login or reading: NOAUTH, NOPERM) ends the command, as any command's; a failure of
    /// the link is shown on the page until a reading succeeds.
    pub async fn first(&mut self) -> Result<Latest, Error> {
        match self.read().await {
            Ok(snapshot) => Ok(Latest {
                snapshot: Some(Arc::new(snapshot)),
                ..Latest::default()
            }),
            Err(e) if e.is_permanent() => Err(e),
            Err(e) => Ok(Latest::failed(&e)),
        }
    }

    /// Reads once and publishes what it read.
    pub async fn read_into(&mut self, latest: &watch::Sender<Arc<Latest>>) {
        let result = self.read().await;
        let before = latest.borrow().clone();
        let next = match result {
            Ok(snapshot) => {
                if let Some(failure) = &before.failure {
                    self.out.note(format_args!(
                        "read Redis at {} again, after {} of failures",
                        self.spec.server(),
                        crate::engine::text::span(failure.since.elapsed().as_secs_f64())
                    ));
                }
                if let (Some(check), Some(redis)) = (self.on_first_read.take(), &self.redis) {
                    check(redis.clone()).await;
                }
                Latest {
                    previous: before.snapshot.clone(),
                    snapshot: Some(Arc::new(snapshot)),
                    failure: None,
                    queues_json: OnceLock::new(),
                }
            }
            Err(e) => {
                let message = one_line(&e);
                let since = match &before.failure {
                    Some(failure) => {
                        if failure.message != message {
                            self.out.verbose(format_args!("still failing: {message}"));
                        }
                        failure.since
                    }
                    None => {
                        self.out.warn(format_args!(
                            "showing the last reading until Redis can be read: {message}"
                        ));
                        Instant::now()
                    }
                };
                // The snapshot is kept (the page shows it, and how old it is); its JSON too.
                let json = before.queues_json.get().cloned();
                let latest = Latest {
                    snapshot: before.snapshot.clone(),
                    previous: before.previous.clone(),
                    failure: Some(Failure { message, since }),
                    queues_json: OnceLock::new(),
                };
                if let Some(json) = json {
                    let _ = latest.queues_json.set(json);
                }
                latest
            }
        };
        latest.send_replace(Arc::new(next));
    }

    /// Reads every interval until the task is dropped.
    pub async fn run(mut self, latest: watch::Sender<Arc<Latest>>) {
        let mut ticks = tokio::time::interval(self.interval);
        // A reading longer than the interval delays the next one rather than bunching them.
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // The first tick is at once: the reading at start was made before serving.
        ticks.tick().await;
        loop {
            ticks.tick().await;
            self.read_into(&latest).await;
        }
    }

    async fn read(&mut self) -> Result<Snapshot, Error> {
        let redis = match &mut self.redis {
            Some(redis) => redis,
            None => self.redis.insert(self.spec.connect().await?),
        };
        let result = self.reader.read(redis).await;
        if let Err(e) = &result {
            // A fresh connection next time: the link may be what failed.
            if !e.is_refusal() {
                self.redis = None;
            }
        }
        result
    }
}

/// An error on one line: the page's banner and the API's `error` field.
fn one_line(e: &Error) -> String {
    e.to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
