//! The health of the server and the queues shown, as `qctl doctor` and `qctl check` find
//! it: read when a page or the API asks, at most once per [`Health::every`] whoever asks,
//! like the feed's snapshot. A request that comes while a reading is under way waits for
//! it rather than start another, so fifty browsers reloading cost Redis one doctor; and a
//! reading runs to its end in a task of its own, whether or not who asked for it waits.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

use super::link::Link;
use crate::engine::doctor::{self, Finding};
use crate::engine::health::{self, Checked, Thresholds};
use crate::engine::QueueKeys;

/// The shortest time between two readings, whatever `--interval` says: a doctor reads every
/// record of every queue.
pub const EVERY_AT_LEAST: Duration = Duration::from_secs(30);

/// The thresholds the Health page checks the queues against, as `qctl check` takes them:
/// what is wrong whatever the workload, as warnings (CRITICAL is left to doctor's findings).
pub const CHECK_ARGS: [&str; 5] = [
    "--warn-stale-consumers",
    "--warn-overdue",
    "5m",
    "--warn-failure-rate",
    "5%",
];

/// One reading.
#[derive(Debug)]
pub struct Reading {
    /// When it was read (this host's clock).
    pub at: Instant,
    /// When it was read, in unix seconds (this host's clock).
    pub time: f64,
    /// The queues doctor examined.
    pub queues: Vec<String>,
    /// Doctor's findings, in its order: the servers, then each queue's rights and integrity.
    pub findings: Vec<Finding>,
    /// The records each queue examined holds (as `doctor` heads a queue's findings).
    pub records: Vec<(String, u64)>,
    /// What `qctl check` reports with [`CHECK_ARGS`].
    pub checked: Checked,
}

/// The latest reading, and how often one may be made.
#[derive(Debug)]
pub struct Health {
    /// At most one reading per this.
    pub every: Duration,
    /// The queues named on the command line (none: every queue found).
    named: Vec<String>,
    thresholds: Thresholds,
    /// The words of `qctl check` that read as [`Health::thresholds`] do.
    pub check_words: Vec<String>,
    last: Arc<Mutex<Option<Arc<Reading>>>>,
}

impl Health {
    /// Readings at most once per `interval` (and [`EVERY_AT_LEAST`]), of the queues `named`
    /// (none: every queue found); `orphan_after` and `max_keys` as for `check`.
    pub fn new(
        interval: Duration,
        named: Vec<String>,
        orphan_after: Duration,
        max_keys: u64,
    ) -> Health {
        Health {
            every: interval.max(EVERY_AT_LEAST),
            check_words: check_words(&named, orphan_after, max_keys),
            named,
            thresholds: thresholds(orphan_after, max_keys),
            last: Arc::new(Mutex::new(None)),
        }
    }

    /// The last reading if it is younger than [`Health::every`], else a new one. `shown`
    /// gives the queues the pages show (those of the feed's last reading), for doctor when
    /// none were named.
    pub async fn read(
        &self,
        link: &Link,
        shown: impl FnOnce() -> Vec<String> + Send,
    ) -> Arc<Reading> {
        let mut last = self.last.clone().lock_owned().await;
        if let Some(reading) = &*last {
            if reading.at.elapsed() < self.every {
                return reading.clone();
            }
        }
        let queues = if self.named.is_empty() {
            shown()
        } else {
            self.named.clone()
        };
        let (link, named, thresholds) = (link.clone(), self.named.clone(), self.thresholds.clone());
        // The task holds the lock until the reading is kept: a request that stops waiting (a
        // browser reloading) neither cuts the reading short nor lets a second one start.
        let task = tokio::spawn(async move {
            let reading = Arc::new(read_now(&link, queues, &named, &thresholds).await);
            *last = Some(reading.clone());
            reading
        });
        match task.await {
            Ok(reading) => reading,
            // Only a panic in the task ends it otherwise: nothing was read.
            Err(e) => Arc::new(Reading {
                at: Instant::now(),
                time: crate::engine::now(),
                queues: Vec::new(),
                findings: Vec::new(),
                records: Vec::new(),
                checked: Checked::unknown(&format!("the reading failed: {e}")),
            }),
        }
    }
}

/// Reads doctor's findings on `queues`, and check's verdicts on `named` (none: every queue
/// found).
async fn read_now(
    link: &Link,
    queues: Vec<String>,
    named: &[String],
    thresholds: &Thresholds,
) -> Reading {
    let cluster = link.is_cluster();
    let keys: Vec<QueueKeys> = queues.iter().map(|q| QueueKeys::new(q)).collect();
    let mut findings = Vec::new();
    let mut reports = Vec::new();
    let checked = match link.redis().await {
        Ok(mut redis) => {
            let examined =
                doctor::examine(&mut redis, &keys, cluster, &mut findings, &mut reports).await;
            if let Err(e) = &examined {
                findings.push(doctor::unreadable(e, redis.server()));
                link.failed(e).await;
            }
            match health::check(&mut redis, named, cluster, thresholds).await {
                Ok(verdicts) => Checked::of(verdicts),
                Err(e) => {
                    link.failed(&e).await;
                    Checked::unknown(&e.to_string())
                }
            }
        }
        Err(e) => {
            findings.push(doctor::unreadable(&e, link.server()));
            Checked::unknown(&e.to_string())
        }
    };
    Reading {
        at: Instant::now(),
        time: crate::engine::now(),
        queues,
        findings,
        records: reports
            .iter()
            .map(|(k, r)| (k.name.clone(), r.records))
            .collect(),
        checked,
    }
}

/// `check`, [`CHECK_ARGS`], `--orphan-after` and `--max-keys` when they are not the
/// defaults, and the queues named (after `--` when one could be taken for an option).
fn check_words(named: &[String], orphan_after: Duration, max_keys: u64) -> Vec<String> {
    let mut words = vec!["check".to_string()];
    words.extend(CHECK_ARGS.iter().map(|w| w.to_string()));
    if orphan_after != Duration::from_secs(120) {
        words.push("--orphan-after".into());
        words.push(humantime::format_duration(orphan_after).to_string());
    }
    if max_keys != 10_000_000 {
        words.push("--max-keys".into());
        words.push(max_keys.to_string());
    }
    if named.iter().any(|q| q.starts_with('-')) {
        words.push("--".into());
    }
    words.extend(named.iter().cloned());
    words
}

/// The thresholds of [`CHECK_ARGS`].
fn thresholds(orphan_after: Duration, max_keys: u64) -> Thresholds {
    Thresholds {
        dead_max: None,
        warn_dead: None,
        ready_max: None,
        warn_ready: None,
        overdue_max: None,
        warn_overdue: Some(Duration::from_secs(300)),
        min_consumers: None,
        warn_min_consumers: None,
        failure_rate_max: None,
        warn_failure_rate: Some(0.05),
        window: Duration::from_secs(15 * 60),
        stale_consumers: false,
        warn_stale_consumers: true,
        orphan_after,
        max_keys,
    }
}
