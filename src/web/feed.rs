//! The one reading of Redis that every page and API request shares: a task reads a
//! [`Snapshot`] every interval and publishes it, with the one before (for rates) and the
//! last failure, as a [`Latest`] on a `watch` channel. Requests only look at the latest one,
//! so any number of open pages cost Redis one reading per interval.
//!
//! It reads only while someone looks. [`Demand`] hears of every request the guard let
//! through (the assets aside); when none came for [`IDLE_INTERVALS`] intervals the task
//! stops reading, and the next request wakes it and waits for the reading it starts
//! ([`fresh`]): a dashboard left open in no browser costs Redis nothing. Each reading counts
//! every queue, and reads the history of the queues of the overview's first page and of
//! those a page showed within the same span ([`Demand::want`]); a page of queues whose
//! history was not read wakes the task too, and waits for it.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use tokio::sync::{watch, Notify};

use super::App;
use crate::engine::queues::QueueStats;
use crate::engine::snapshot::{Reader, Snapshot};
use crate::engine::text::span;
use crate::engine::{Error, Redis, ServerSpec};
use crate::output::Output;

/// Intervals without a request after which the feed stops reading.
pub const IDLE_INTERVALS: u32 = 3;

/// How long a request waits for a reading it needs (after a pause, or of the history of the
/// queues it shows) before it is answered with what there is.
pub const WAIT: Duration = Duration::from_secs(10);

/// The JSON answers kept per reading (one per page asked for, the most recent ones).
const KEPT_ANSWERS: usize = 16;

/// What the last readings gave.
#[derive(Debug)]
pub struct Latest {
    /// The last reading that succeeded.
    pub snapshot: Option<Arc<Snapshot>>,
    /// The one before it: the rates are the difference. None after a pause: a rate over the
    /// pause is no rate of now.
    pub previous: Option<Arc<Snapshot>>,
    /// Set while readings fail.
    pub failure: Option<Failure>,
    /// The pauses of the feed before this was read: a reading from before the last pause
    /// is not shown to a request after it.
    pub pauses: u64,
    /// The JSON of pages of `snapshot`, made by the first request that wants each (see
    /// [`super::api`]), then shared: the most recent [`KEPT_ANSWERS`], by their query.
    answers: Mutex<Vec<(String, Arc<RawValue>)>>,
}

impl Default for Latest {
    fn default() -> Latest {
        Latest {
            snapshot: None,
            previous: None,
            failure: None,
            pauses: 0,
            answers: Mutex::new(Vec::new()),
        }
    }
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
    /// second (None on the first reading, after a pause, and for a queue new since).
    pub fn rates(&self, stats: &QueueStats) -> (Option<f64>, Option<f64>) {
        match (&self.snapshot, &self.previous) {
            (Some(now), Some(before)) => now.rates(before, stats),
            _ => (None, None),
        }
    }

    /// The answer to `query` made from this reading: made by `make` at the first request,
    /// then kept with the reading.
    pub fn answer(&self, query: &str, make: impl FnOnce() -> Box<RawValue>) -> Arc<RawValue> {
        if let Some((_, json)) = self.answers().iter().find(|(q, _)| q == query) {
            return json.clone();
        }
        // Made outside the lock: two requests at once may both make it, and one is kept.
        let json: Arc<RawValue> = make().into();
        let mut answers = self.answers();
        if !answers.iter().any(|(q, _)| q == query) {
            if answers.len() == KEPT_ANSWERS {
                answers.remove(0);
            }
            answers.push((query.to_string(), json.clone()));
        }
        json
    }

    fn answers(&self) -> MutexGuard<'_, Vec<(String, Arc<RawValue>)>> {
        self.answers.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Who has asked lately: when the last request came, and the queues whose history a page
/// showed. Shared by the requests, which tell it, and the feed, which reads by it.
#[derive(Debug)]
pub struct Demand {
    interval: Duration,
    start: Instant,
    /// When the last request came, in milliseconds since `start`.
    last: AtomicU64,
    /// Set by the feed while it waits for a request.
    paused: AtomicBool,
    /// How many times the feed paused.
    pauses: AtomicU64,
    /// Wakes the feed: a request came while it was paused, or a page shows queues whose
    /// history it does not read.
    wake: Notify,
    /// The queues whose history pages showed, with when they were last shown.
    wanted: Mutex<HashMap<String, Instant>>,
}

impl Demand {
    /// A demand that counts a request at once: the reading at start is fresh.
    pub fn new(interval: Duration) -> Demand {
        Demand {
            interval,
            start: Instant::now(),
            last: AtomicU64::new(0),
            paused: AtomicBool::new(false),
            pauses: AtomicU64::new(0),
            wake: Notify::new(),
            wanted: Mutex::new(HashMap::new()),
        }
    }

    /// How long without a request before the feed stops reading.
    pub fn idle_after(&self) -> Duration {
        self.interval.saturating_mul(IDLE_INTERVALS)
    }

    /// A request came: the feed reads on (and wakes, if it was paused).
    pub fn touch(&self) {
        let now = self.start.elapsed().as_millis() as u64;
        self.last.store(now, Ordering::SeqCst);
        // Set before the feed looks again whether a request came (see `Feed::run`).
        if self.paused.load(Ordering::SeqCst) {
            self.wake.notify_one();
        }
    }

    /// Whether no request came within the idle span.
    fn idle(&self) -> bool {
        let last = Duration::from_millis(self.last.load(Ordering::SeqCst));
        self.start.elapsed().saturating_sub(last) > self.idle_after()
    }

    /// A page shows the history of `queues`: the feed reads it while pages show it. When
    /// one that was not wanted has no history in the latest reading (`read` says which
    /// have), the feed is woken to read it at once.
    pub fn want<'a>(&self, queues: impl IntoIterator<Item = &'a str>, read: impl Fn(&str) -> bool) {
        let now = Instant::now();
        let mut wake = false;
        {
            let mut wanted = self.wanted();
            for queue in queues {
                match wanted.get_mut(queue) {
                    Some(at) => *at = now,
                    None => {
                        wanted.insert(queue.to_string(), now);
                        wake |= !read(queue);
                    }
                }
            }
        }
        if wake {
            self.wake.notify_one();
        }
    }

    /// The queues shown within the idle span; the others are forgotten.
    fn wanted_now(&self) -> HashSet<String> {
        let span = self.idle_after();
        let mut wanted = self.wanted();
        wanted.retain(|_, at| at.elapsed() <= span);
        wanted.keys().cloned().collect()
    }

    fn wanted(&self) -> MutexGuard<'_, HashMap<String, Instant>> {
        self.wanted.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The middleware that tells [`Demand`] of each request the guard let through, but those of
/// the assets and the icon (a browser asks for them with a page, or keeps them).
pub async fn notice(
    axum::extract::State(demand): axum::extract::State<Arc<Demand>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let path = request.uri().path();
    if !path.starts_with("/assets/") && path != "/favicon.ico" {
        demand.touch();
    }
    next.run(request).await
}

/// The latest reading for a request: when it is from before a pause of the feed, or
/// `ready` says it lacks what the request shows (the history of queues a page just asked
/// for), the readings that follow are waited for, at most [`WAIT`]; a reading that fails ends
/// the wait (the page says why).
pub async fn fresh(app: &App, mut ready: impl FnMut(&Latest) -> bool) -> Arc<Latest> {
    let mut latest_rx = app.latest.clone();
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let latest = latest_rx.borrow_and_update().clone();
        // `ready` is asked every time: it tells the demand what the page shows.
        let has_all = ready(&latest);
        if has_all && latest.pauses == app.demand.pauses.load(Ordering::SeqCst) {
            return latest;
        }
        match tokio::time::timeout_at(deadline, latest_rx.changed()).await {
            Ok(Ok(())) => {
                let next = latest_rx.borrow().clone();
                if next.failure.is_some() {
                    return next;
                }
            }
            _ => return latest_rx.borrow().clone(),
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
    pub demand: Arc<Demand>,
    /// The queues whose history every reading reads: the overview's first page.
    pub first_page: usize,
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

    /// Reads once and publishes what it read; after a pause (`resumed`) the reading before
    /// gives no rates.
    pub async fn read_into(&mut self, latest: &watch::Sender<Arc<Latest>>, resumed: bool) {
        let result = self.read().await;
        let before = latest.borrow().clone();
        let next = match result {
            Ok(snapshot) => {
                if let Some(failure) = &before.failure {
                    self.out.note(format_args!(
                        "read Redis at {} again, after {} of failures",
                        self.spec.server(),
                        span(failure.since.elapsed().as_secs_f64())
                    ));
                }
                if let (Some(check), Some(redis)) = (self.on_first_read.take(), &self.redis) {
                    check(redis.clone()).await;
                }
                Latest {
                    previous: if resumed {
                        None
                    } else {
                        before.snapshot.clone()
                    },
                    snapshot: Some(Arc::new(snapshot)),
                    pauses: self.demand.pauses.load(Ordering::SeqCst),
                    ..Latest::default()
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
                // The snapshot is kept (the page shows it, and how old it is); its answers too.
                Latest {
                    snapshot: before.snapshot.clone(),
                    previous: before.previous.clone(),
                    failure: Some(Failure { message, since }),
                    pauses: self.demand.pauses.load(Ordering::SeqCst),
                    answers: Mutex::new(before.answers().clone()),
                }
            }
        };
        latest.send_replace(Arc::new(next));
    }

    /// Reads every interval while requests come, until the task is dropped; without one for
    /// [`IDLE_INTERVALS`] intervals, waits for the next. A page that shows queues whose
    /// history was not read wakes it at once.
    pub async fn run(mut self, latest: watch::Sender<Arc<Latest>>) {
        let demand = self.demand.clone();
        // The reading at start was made before serving.
        let mut next = tokio::time::Instant::now() + self.interval;
        loop {
            tokio::select! {
                _ = tokio::time::sleep_until(next) => {}
                _ = demand.wake.notified() => {}
            }
            let mut resumed = false;
            if demand.idle() {
                // The flag is set before looking again: a request that came in between
                // either is seen here or finds the flag set and wakes the feed.
                demand.paused.store(true, Ordering::SeqCst);
                if demand.idle() {
                    demand.pauses.fetch_add(1, Ordering::SeqCst);
                    let paused = Instant::now();
                    self.out.verbose(format_args!(
                        "no page or API request for {}: not reading Redis until one comes",
                        humantime::format_duration(demand.idle_after())
                    ));
                    // A wake-up stored before the pause may come first: look again.
                    while demand.idle() {
                        demand.wake.notified().await;
                    }
                    self.out.verbose(format_args!(
                        "a request after {} without one: reading Redis again",
                        span(paused.elapsed().as_secs_f64())
                    ));
                    resumed = true;
                }
                demand.paused.store(false, Ordering::SeqCst);
            }
            let started = tokio::time::Instant::now();
            self.read_into(&latest, resumed).await;
            // A reading longer than the interval is followed by the next at once.
            next = started + self.interval;
        }
    }

    async fn read(&mut self) -> Result<Snapshot, Error> {
        let redis = match &mut self.redis {
            Some(redis) => redis,
            None => self.redis.insert(self.spec.connect().await?),
        };
        let mut wanted = self.demand.wanted_now();
        let first_page = self.first_page;
        let pick = move |stats: &[QueueStats]| {
            wanted.extend(stats.iter().take(first_page).map(|s| s.queue.clone()));
            wanted
        };
        let result = self.reader.read_with(redis, pick).await;
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
