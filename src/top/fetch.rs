//! The refresher of `qctl top`: a task that reads Redis every interval (and at once after a
//! request) and sends what it read as [`Update`]s. The only part of `top` that calls the
//! engine; a failed refresh is sent as an error and tried again at the next interval.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use crate::engine::consumers::{self, ConsumerInfo, Description};
use crate::engine::listing::{Entry, Filter, Pager};
use crate::engine::queues::{self, QueueStats};
use crate::engine::{self, history, Error, QueueKeys, Redis};

/// The fewest dead jobs read for an open queue.
pub const DEAD_READ_MIN: u64 = 30;

/// The open queue and the dead jobs to read of it: `count` of them from `offset`, newest
/// first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetailRequest {
    pub queue: String,
    pub offset: u64,
    pub count: u64,
}

impl DetailRequest {
    /// Whether the dead jobs `offset..offset + rows` are among those it reads.
    pub fn covers(&self, queue: &str, offset: u64, rows: u64) -> bool {
        self.queue == queue && self.offset <= offset && offset + rows <= self.offset + self.count
    }
}

/// What the refresher is told by the screen.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Read the consumers and some dead jobs of this queue too (None: only the counts).
    Detail(Option<DetailRequest>),
    /// Set or remove the queue's pause flag.
    Pause { queue: String, pause: bool },
}

/// What the refresher read.
#[derive(Debug, Clone)]
pub enum Update {
    Queues(Snapshot),
    Detail(Detail),
    Paused {
        queue: String,
        pause: bool,
        changed: bool,
    },
    /// A refresh or a change failed: the message, on one line.
    Error(String),
}

/// The counts of every queue found, at one moment.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub at: Instant,
    pub stats: Vec<QueueStats>,
    /// Round trips of this refresh (SCAN calls and batches of counts).
    pub round_trips: u64,
    /// Queues found but not counted: the ACL user may not read their keys.
    pub unreadable: usize,
    /// Queues without a hash tag, skipped in a cluster.
    pub untagged: usize,
    /// Discovery stopped at --max-keys.
    pub incomplete: bool,
    /// The history of each queue's last [`RECENT_MINUTES`] minutes, oldest first (None: a
    /// minute that could not be read).
    pub recent: std::collections::HashMap<String, Vec<Option<history::Tally>>>,
}

/// How many minutes of history the list shows per queue.
pub const RECENT_MINUTES: usize = 10;

/// The consumers and some dead jobs of one queue.
#[derive(Debug, Clone)]
pub struct Detail {
    pub queue: String,
    /// The server's clock when read (heartbeats are in its time).
    pub now: f64,
    pub consumers: Vec<ConsumerInfo>,
    /// What each consumer wrote about itself (host, pid, version): None for a Go CurlyQ
    /// consumer, which writes nothing.
    pub described: Vec<Option<Description>>,
    /// Whether each consumer's process runs, for those on this host (see
    /// [`Description::process`]).
    pub processes: Vec<Option<consumers::Process>>,
    /// Newest first, from the `dead_offset`th newest.
    pub dead: Vec<Entry>,
    pub dead_offset: u64,
    pub dead_total: u64,
}

/// How the refresher reads.
#[derive(Debug, Clone)]
pub struct Settings {
    pub interval: Duration,
    pub orphan_after: Duration,
    pub max_keys: u64,
    pub cluster: bool,
}

/// The queues read so far, kept from one refresh to the next.
#[derive(Debug, Default)]
pub struct Seen(BTreeSet<String>);

/// The first refresh, made before the screen is taken: the same reads as every refresh, so a
/// server that refuses them (NOAUTH from a server that wants a password and got none,
/// NOPERM, a wrong key type) ends top with the error and its exit code, as every command,
/// instead of a screen that shows the error again and again.
pub async fn first(
    redis: &mut Redis,
    settings: &Settings,
    updates: &UnboundedSender<Update>,
) -> Result<Seen, Error> {
    let mut seen = Seen::default();
    refresh(redis, settings, &mut seen.0, None, updates).await?;
    Ok(seen)
}

/// Refreshes every interval, after [`first`], until the screen drops its end of `requests`.
/// The connection reconnects by itself after a failure, so a lost server is retried at every
/// interval.
pub async fn run(
    mut redis: Redis,
    settings: Settings,
    seen: Seen,
    mut requests: UnboundedReceiver<Request>,
    updates: UnboundedSender<Update>,
) {
    let mut detail: Option<DetailRequest> = None;
    let mut seen = seen.0;
    loop {
        let wait = tokio::time::sleep(settings.interval);
        tokio::pin!(wait);
        tokio::select! {
            _ = &mut wait => {}
            request = requests.recv() => match request {
                None => return,
                Some(Request::Detail(wanted)) => detail = wanted,
                Some(Request::Pause { queue, pause }) => {
                    let keys = QueueKeys::new(&queue);
                    let update = match queues::set_paused(&mut redis, &keys, pause).await {
                        Ok(changed) => Update::Paused { queue, pause, changed },
                        Err(e) => Update::Error(one_line(&e)),
                    };
                    if updates.send(update).is_err() {
                        return;
                    }
                }
            },
        }
        let result = refresh(&mut redis, &settings, &mut seen, detail.as_ref(), &updates).await;
        if let Err(e) = result {
            if updates.send(Update::Error(one_line(&e))).is_err() {
                return;
            }
        }
    }
}

/// One refresh: the counts of every queue, then the detail of the selected one. A queue
/// found once stays in `seen` and is counted on: a drained queue has no keys left for SCAN
/// to find, and its rates matter most then.
async fn refresh(
    redis: &mut Redis,
    settings: &Settings,
    seen: &mut BTreeSet<String>,
    detail: Option<&DetailRequest>,
    updates: &UnboundedSender<Update>,
) -> Result<(), Error> {
    let found = queues::discover(redis, settings.max_keys).await?;
    let mut found_names = found.queues;
    let mut untagged = 0;
    if settings.cluster {
        let all = found_names.len();
        found_names.retain(|q| engine::keys::hash_tag(q).is_some());
        untagged = all - found_names.len();
    }
    seen.extend(found_names);
    let names: Vec<String> = seen.iter().cloned().collect();
    // Due jobs and live consumers are judged by the server's clock, as consumers write them.
    let now = redis.server_time().await?;
    let counted = queues::stats(
        redis,
        &names,
        now,
        settings.orphan_after.as_secs_f64(),
        true,
    )
    .await?;
    let counted_names: Vec<String> = counted.stats.iter().map(|s| s.queue.clone()).collect();
    let recent = history::recent(redis, &counted_names, now, RECENT_MINUTES).await?;
    let _ = updates.send(Update::Queues(Snapshot {
        at: Instant::now(),
        stats: counted.stats,
        // The history takes as many round trips as the counts (one per batch).
        round_trips: found.round_trips + 1 + 2 * counted.round_trips,
        recent,
        unreadable: counted.unreadable.len(),
        untagged,
        incomplete: !found.complete,
    }));
    if let Some(wanted) = detail {
        let d = read_detail(redis, wanted, now).await?;
        let _ = updates.send(Update::Detail(d));
    }
    Ok(())
}

/// The consumers of a queue, with what they wrote about themselves, and the dead jobs asked
/// for; `now` is the server's clock of this refresh.
async fn read_detail(redis: &mut Redis, wanted: &DetailRequest, now: f64) -> Result<Detail, Error> {
    let queue = wanted.queue.as_str();
    let keys = QueueKeys::new(queue);
    let consumers = consumers::list(redis, &keys).await?;
    let described = consumers::describe(redis, &keys, &consumers).await?;
    let mut pager = Pager::zset(
        redis,
        &keys.dead,
        true,
        &Filter::default(),
        wanted.offset,
        wanted.count,
    )
    .await?;
    let mut dead = Vec::new();
    while let Some(chunk) = pager.next(redis, &keys).await? {
        dead.extend(chunk);
    }
    let processes = described
        .iter()
        .map(|d| d.as_ref().and_then(Description::process))
        .collect();
    Ok(Detail {
        queue: queue.to_string(),
        now,
        consumers,
        described,
        processes,
        dead,
        dead_offset: wanted.offset,
        dead_total: pager.total(),
    })
}

fn one_line(e: &Error) -> String {
    e.to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
