//! The refresher of `qctl top`: a task that reads Redis every interval (and at once after a
//! request) and sends what it read as [`Update`]s. The only part of `top` that calls the
//! engine; a failed refresh is sent as an error and tried again at the next interval. The
//! counts and history are the engine's [`Snapshot`], which `qctl web` reads too.

use std::time::Duration;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use crate::engine::changes;
use crate::engine::consumers::{self, ConsumerInfo, Description};
use crate::engine::listing::{Entry, Filter, Pager};
use crate::engine::queues;
use crate::engine::snapshot::{self, Reader};
use crate::engine::{Error, QueueKeys, Redis};

pub use crate::engine::snapshot::Snapshot;

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
}

/// What the refreshes learnt so far (the queues found, the minutes of history that are
/// over), kept from one refresh to the next.
#[derive(Debug)]
pub struct Seen(Reader);

/// The first refresh, made before the screen is taken: the same reads as every refresh, so a
/// server that refuses them (NOAUTH from a server that wants a password and got none,
/// NOPERM, a wrong key type) ends top with the error and its exit code, as every command,
/// instead of a screen that shows the error again and again.
pub async fn first(
    redis: &mut Redis,
    settings: &Settings,
    updates: &UnboundedSender<Update>,
) -> Result<Seen, Error> {
    let mut reader = Reader::new(snapshot::Settings {
        queues: Vec::new(),
        orphan_after: settings.orphan_after,
        max_keys: settings.max_keys,
        minutes: RECENT_MINUTES,
    });
    refresh(redis, &mut reader, None, updates).await?;
    Ok(Seen(reader))
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
    let mut reader = seen.0;
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
                    let (update, unrecorded) = match pause_recorded(&mut redis, &keys, pause).await {
                        Ok((changed, unrecorded)) => (Update::Paused { queue, pause, changed }, unrecorded),
                        Err(e) => (Update::Error(one_line(&e)), None),
                    };
                    if updates.send(update).is_err() {
                        return;
                    }
                    if let Some(e) = unrecorded {
                        let words = format!("the change was made, but recording it in {} failed: {}", keys.changes, one_line(&e));
                        if updates.send(Update::Error(words)).is_err() {
                            return;
                        }
                    }
                }
            },
        }
        let result = refresh(&mut redis, &mut reader, detail.as_ref(), &updates).await;
        if let Err(e) = result {
            if updates.send(Update::Error(one_line(&e))).is_err() {
                return;
            }
        }
    }
}

/// One refresh: the counts and history of every queue, then the detail of the selected
/// one.
async fn refresh(
    redis: &mut Redis,
    reader: &mut Reader,
    detail: Option<&DetailRequest>,
    updates: &UnboundedSender<Update>,
) -> Result<(), Error> {
    let snapshot = reader.read(redis).await?;
    let now = snapshot.time;
    let _ = updates.send(Update::Queues(snapshot));
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

/// `p` in top: pauses or resumes the queue as `qctl pause` and `resume` do, recorded in
/// `NAME:changes` (refused before any change to a user who may not write the record).
/// Whether it changed, and why it was not recorded when it could not be.
async fn pause_recorded(
    redis: &mut Redis,
    keys: &QueueKeys,
    pause: bool,
) -> Result<(bool, Option<Error>), Error> {
    changes::check_rights(redis, keys).await?;
    let changed = queues::set_paused(redis, keys, pause).await?;
    if !changed {
        return Ok((false, None));
    }
    let change = changes::Change {
        of_queue: true,
        detail: "from qctl top".into(),
        ..changes::Change::new(if pause { "pause" } else { "resume" })
    };
    let recorded = changes::record(redis, keys, &change, &changes::Origin::cli()).await;
    Ok((true, recorded.err()))
}

fn one_line(e: &Error) -> String {
    e.to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
