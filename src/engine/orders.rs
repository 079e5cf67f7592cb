//! Orders to a running qctl consumer, from anywhere: cancel some of its jobs, quiet it, stop
//! it, change its concurrency (`qctl cancel`, `qctl consumers quiet | stop | resize`, the
//! page of `qctl web`).
//!
//! An order goes into the consumer's own list, `NAME:consumer:<uuid>:orders` (in the queue's
//! hash slot), on which the consumer waits with BLPOP on a connection of its own: nothing
//! while idle, and the order reaches it as soon as it is pushed, whatever its handlers are
//! doing. The list outlives a restart of Redis (as far as Redis keeps its data) and the
//! consumer blocks on it again once it is back. The consumer answers in
//! `NAME:consumer:<uuid>:answers:<order>`, on which the one who asked waits: first that it
//! has the order, then what became of it (for a cancel, of each job, once it is settled).
//!
//! An order names the consumer it is for and carries the server's time when it was given and
//! a deadline: a consumer acts only on an order for itself, given after it started and read
//! before the deadline. So an order nobody received in time (the consumer was gone or stuck,
//! and the one who asked said so and gave up) is never carried out later. A consumer that
//! does not listen for orders (a Go CurlyQ consumer, a qctl consumer older than orders) is
//! known by its description, which has no `orders` field: it is never waited for.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::conn::{Redis, ServerSpec};
use super::consumers::Description;
use super::error::Error;
use super::keys::QueueKeys;

/// How long the one who asks waits for the consumer to say it has the order; also the
/// order's deadline, counted from when it was given. A listening consumer has it within a
/// second.
pub const RECEIVE_WITHIN: Duration = Duration::from_secs(5);
/// How long answers are kept for the one who asked.
pub const ANSWERS_KEPT: Duration = Duration::from_secs(60);
/// How long past the consumer's grace for its handlers the one who asks waits for a
/// cancelled job to be settled.
pub const SETTLE_MARGIN: Duration = Duration::from_secs(10);

/// An order to one consumer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Order {
    /// A UUID of its own: the answers' key names it.
    pub id: String,
    /// The UUID of the consumer it is for.
    pub to: String,
    /// When it was given, at the server's clock (unix seconds).
    pub at: f64,
    /// The last moment (server clock) at which the consumer may act on it.
    pub until: f64,
    /// Who gave it: `user@host`, or `user@address (web)`.
    pub by: String,
    #[serde(flatten)]
    pub what: What,
}

/// What an order asks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "order", rename_all = "snake_case")]
pub enum What {
    /// End these jobs' handlers and settle the jobs as asked.
    Cancel { jobs: Vec<String>, settle: Settle },
    /// Take no new job, finish the running ones, stay registered.
    Quiet,
    /// Stop as on SIGTERM: finish the running jobs within the shutdown grace, return the
    /// rest, leave.
    Stop,
    /// Run this many jobs at once from now on.
    Resize { concurrency: usize },
}

impl What {
    /// What the order does, for its question: `take no new job, finish its running ones and
    /// stay`.
    pub fn words(&self) -> String {
        match self {
            What::Quiet => "take no new job, finish its running ones and stay".into(),
            What::Stop => "stop as on SIGTERM: running jobs finish within its --shutdown-grace, the rest go back".into(),
            What::Resize { concurrency } => format!("run {concurrency} at once from now on"),
            What::Cancel { jobs, .. } => format!("cancel {}", super::text::plural(jobs.len() as u64, "job")),
        }
    }

    /// The entry of the record of changes for this order carried out by the consumer
    /// `consumer` (its in-flight key).
    pub fn change(&self, consumer: &str) -> super::changes::Change {
        let mut change = super::changes::Change::new(&format!("consumers {}", self.name()));
        change.of_queue = true;
        change.detail = match self {
            What::Resize { concurrency } => {
                format!("consumer {consumer} concurrency {concurrency}")
            }
            _ => format!("consumer {consumer}"),
        };
        change
    }

    /// The order's name, as commands and the record of changes say it.
    pub fn name(&self) -> &'static str {
        match self {
            What::Cancel { .. } => "cancel",
            What::Quiet => "quiet",
            What::Stop => "stop",
            What::Resize { .. } => "resize",
        }
    }
}

/// Where a cancelled job goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Settle {
    /// To the dead set, its failure recorded as the cancel.
    Dead,
    /// Back to be run again, at once: its attempt counted, its failure recorded.
    Retry,
}

/// A consumer's answer to an order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub result: Outcome,
    /// For a cancel: the job this answer is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    /// What happened, in words (for `Received`: what it is doing).
    #[serde(default)]
    pub detail: String,
    /// With `Received`: how long its handlers may take to end (their SIGTERM grace), or its
    /// shutdown grace for a stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_ms: Option<u64>,
}

/// What an answer says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The consumer has the order and acts on it.
    Received,
    /// The order is carried out (quiet, stop, resize).
    Done,
    /// A job was cancelled and settled as asked.
    Cancelled,
    /// A job is not held by this consumer (any more).
    NotHeld,
    /// The order could not be carried out (for a job: its settle failed); `detail` says why.
    Failed,
}

/// Whether a consumer can be given orders, from what it wrote about itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// A qctl consumer that listens for orders.
    Listens,
    /// A qctl consumer of a version that does not.
    OlderQctl,
    /// No description: a Go CurlyQ consumer (or a qctl one whose description expired).
    Go,
}

impl Reach {
    pub fn of(described: Option<&Description>) -> Reach {
        match described {
            None => Reach::Go,
            Some(d) if d.orders == Some(true) => Reach::Listens,
            Some(_) => Reach::OlderQctl,
        }
    }

    /// Why a consumer that cannot be given orders cannot, for messages.
    pub fn why_not(self) -> Option<&'static str> {
        match self {
            Reach::Listens => None,
            Reach::OlderQctl => {
                Some("it is a qctl consumer of an older version, which does not listen for orders")
            }
            Reach::Go => Some(
                "it wrote no description: a Go CurlyQ consumer (or a qctl one whose \
                 description expired), which does not listen for orders",
            ),
        }
    }
}

/// Adds to `pipe` a consumer's answer to `order` (and the lifetime of the answers).
pub fn answer(pipe: &mut redis::Pipeline, keys: &QueueKeys, order: &Order, answer: &Answer) {
    let key = keys.consumer_answers(&order.to, &order.id);
    let text = serde_json::to_string(answer).expect("an answer serializes");
    pipe.cmd("RPUSH")
        .arg(&key)
        .arg(text)
        .ignore()
        .cmd("PEXPIRE")
        .arg(&key)
        .arg(ANSWERS_KEPT.as_millis() as u64)
        .ignore();
}

/// Why a consumer does not act on an order it read: not for it, given before it started,
/// or read past its deadline. None: it acts.
pub fn refused(order: &Order, uuid: &str, started: f64, now: f64) -> Option<String> {
    if order.to != uuid {
        return Some(format!("it is for consumer {}", order.to));
    }
    // A second of slack for the clock read at start: an order given in the moment this
    // consumer registered is for it (its UUID is new).
    if order.at < started - 1.0 {
        return Some("it was given before this consumer started".into());
    }
    if now > order.until {
        return Some(format!(
            "it was read {:.1}s past its deadline (the one who gave it has been told it was not received)",
            now - order.until
        ));
    }
    None
}

/// Waits for a consumer's answers to one order, on a connection of its own (BLPOP blocks
/// it).
pub struct Answers {
    conn: Redis,
    key: String,
}

impl Answers {
    /// Connects for the answers to `order` (before giving it, so that no answer is missed;
    /// they wait in their list anyway).
    pub async fn connect(
        spec: &ServerSpec,
        keys: &QueueKeys,
        uuid: &str,
        order_id: &str,
    ) -> Result<Answers, Error> {
        let mut spec = spec.clone();
        // The longest wait below, plus the usual response time.
        spec.response_timeout += Duration::from_secs(3600);
        Ok(Answers {
            conn: spec.connect().await?,
            key: keys.consumer_answers(uuid, order_id),
        })
    }

    /// The next answer, or None when none came within `within`.
    pub async fn next(&mut self, within: Duration) -> Result<Option<Answer>, Error> {
        let secs = within.as_secs_f64().max(0.01);
        let reply: Option<(String, String)> = self
            .conn
            .query_waiting(
                redis::cmd("BLPOP").arg(&self.key).arg(secs),
                format!("BLPOP {}", self.key),
            )
            .await?;
        let Some((_, text)) = reply else {
            return Ok(None);
        };
        serde_json::from_str(&text).map(Some).map_err(|e| {
            Error::Usage(format!(
                "the consumer's answer in {} could not be read ({e}): {text:?}",
                self.key
            ))
        })
    }

    /// Deletes the answers' list once they are all read.
    pub async fn done(mut self) {
        let _: Result<(), Error> = self
            .conn
            .query(
                redis::cmd("DEL").arg(&self.key),
                format!("DEL {}", self.key),
            )
            .await;
    }
}

/// A new order's id. It is chosen before the order is given, so that the one who asks
/// listens for the answers first ([`Answers::connect`]).
pub fn new_id() -> String {
    uuid::Uuid::new_v4().hyphenated().to_string()
}

/// Gives `what` (the order `id`, from [`new_id`]) to the consumer `uuid`: one round trip for
/// the server's clock, one to push the order and set the list's lifetime to its deadline.
pub async fn give(
    redis: &mut Redis,
    keys: &QueueKeys,
    id: &str,
    uuid: &str,
    what: What,
    by: &str,
) -> Result<Order, Error> {
    let at = redis.server_time().await?;
    let order = Order {
        id: id.to_string(),
        to: uuid.to_string(),
        at,
        until: at + RECEIVE_WITHIN.as_secs_f64(),
        by: by.to_string(),
        what,
    };
    let key = keys.consumer_orders(uuid);
    let text = serde_json::to_string(&order).expect("an order serializes");
    let mut pipe = redis::pipe();
    pipe.cmd("RPUSH")
        .arg(&key)
        .arg(text)
        .ignore()
        .cmd("PEXPIRE")
        .arg(&key)
        .arg(RECEIVE_WITHIN.as_millis() as u64 + 1000)
        .ignore();
    redis.pipeline::<()>(&pipe, format!("RPUSH {key}")).await?;
    Ok(order)
}

/// What became of an order, as its consumer answered it.
#[derive(Clone, Debug, Default)]
pub struct Heard {
    /// Whether the consumer said it had the order within [`RECEIVE_WITHIN`].
    pub received: bool,
    /// Its answers after that one: one per job for a cancel, one for the others.
    pub answers: Vec<Answer>,
    /// For a stop: whether it left `NAME:consumers` within its shutdown grace (and
    /// [`SETTLE_MARGIN`]).
    pub left: Option<bool>,
}

/// Gives `what` to the consumer `uuid` and waits for its answers: that it has the order
/// (within [`RECEIVE_WITHIN`]), then what became of it, within the grace the consumer gives
/// its handlers (or, for a stop, its shutdown grace) and [`SETTLE_MARGIN`]; for a stop, also
/// until it has left `NAME:consumers`.
pub async fn carry_out(
    spec: &ServerSpec,
    redis: &mut Redis,
    keys: &QueueKeys,
    uuid: &str,
    what: What,
    by: &str,
) -> Result<Heard, Error> {
    let id = new_id();
    let mut answers = Answers::connect(spec, keys, uuid, &id).await?;
    give(redis, keys, &id, uuid, what.clone(), by).await?;
    let Some(first) = answers.next(RECEIVE_WITHIN).await? else {
        answers.done().await;
        return Ok(Heard::default());
    };
    let grace = Duration::from_millis(first.grace_ms.unwrap_or(0));
    let deadline = tokio::time::Instant::now() + grace + SETTLE_MARGIN;
    let expected = match &what {
        What::Cancel { jobs, .. } => jobs.len(),
        _ => 1,
    };
    let mut heard = Heard {
        received: true,
        ..Heard::default()
    };
    while heard.answers.len() < expected {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            break;
        }
        match answers.next(left).await? {
            Some(answer) if answer.result == Outcome::Received => {}
            Some(answer) => heard.answers.push(answer),
            None => break,
        }
    }
    answers.done().await;
    if what == What::Stop && heard.answers.iter().any(|a| a.result == Outcome::Done) {
        let inflight = keys.inflight(uuid);
        loop {
            let score: Option<f64> = redis
                .query(
                    redis::cmd("ZSCORE").arg(&keys.consumers).arg(&inflight),
                    format!("ZSCORE {}", keys.consumers),
                )
                .await?;
            if score.is_none() {
                heard.left = Some(true);
                break;
            }
            if tokio::time::Instant::now() >= deadline {
                heard.left = Some(false);
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    Ok(heard)
}

/// A qctl consumer found by the start of its UUID.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Found {
    pub queue: String,
    pub uuid: String,
}

/// The qctl consumers whose UUID starts with `prefix` (what `qctl consumers` prints is its
/// first 8 characters), on every queue: found by their descriptions, `NAME:consumer:<uuid>`,
/// with SCAN on the server or on every master of a cluster. A Go CurlyQ consumer writes no
/// description, and takes no order.
pub async fn find(redis: &mut Redis, prefix: &str) -> Result<Vec<Found>, Error> {
    let pattern = format!("*:consumer:{}*", super::keys::glob_escape(prefix));
    let mut found = std::collections::BTreeSet::new();
    for node in redis.masters().await? {
        let mut cursor: u64 = 0;
        loop {
            let (next, page): (u64, Vec<Vec<u8>>) = redis
                .query_at(
                    &node,
                    redis::cmd("SCAN")
                        .arg(cursor)
                        .arg("MATCH")
                        .arg(&pattern)
                        .arg("COUNT")
                        .arg(10_000),
                    format!("SCAN MATCH {pattern}"),
                )
                .await?;
            for key in page {
                let Ok(key) = String::from_utf8(key) else {
                    continue;
                };
                if let Some((queue, uuid)) = key.rsplit_once(":consumer:") {
                    let keys = QueueKeys::new(queue);
                    if uuid.starts_with(prefix) && keys.is_consumer_key(&key) && !uuid.contains(':')
                    {
                        found.insert(Found {
                            queue: queue.to_string(),
                            uuid: uuid.to_string(),
                        });
                    }
                }
            }
            cursor = next;
            if cursor == 0 {
                break;
            }
        }
    }
    Ok(found.into_iter().collect())
}

/// What became of one id asked to be cancelled.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fate {
    pub id: String,
    /// `cancelled`, `not_running`, `not_cancellable`, `no_answer`, `not_held`, `failed`.
    pub result: &'static str,
    pub detail: String,
    /// The in-flight key of the consumer that held it, if one did.
    pub consumer: Option<String>,
}

/// Where the ids of a cancel are: the running jobs to ask for, by the consumer holding them,
/// and the fate of the others (not running, or held by a consumer that takes no orders).
#[derive(Clone, Debug)]
pub struct CancelPlan {
    pub asks: std::collections::BTreeMap<String, Vec<String>>,
    pub fates: Vec<Fate>,
    /// The ids, each once, in the order given.
    pub ids: Vec<String>,
    pub seen: super::consumers::Seen,
    pub running: Vec<super::consumers::InFlight>,
}

impl CancelPlan {
    /// How many jobs it asks consumers to cancel.
    pub fn asked(&self) -> usize {
        self.asks.values().map(Vec::len).sum()
    }

    /// `job ID: on consumer 11b772bd (vm:4121), running for 3h2m`.
    pub fn describe(&self, id: &str, consumer: &str, keys: &QueueKeys) -> String {
        let d = self.seen.descriptions().get(consumer).copied();
        let since = self
            .running
            .iter()
            .find(|j| j.id == id)
            .and_then(|j| j.running(self.seen.now))
            .map_or(String::new(), |s| {
                format!(", running for {}", super::text::span(s))
            });
        format!(
            "job {}: on consumer {} ({}){since}",
            super::text::printable(id),
            super::consumers::short_name(consumer, keys),
            super::consumers::host_pid(d)
        )
    }
}

/// Finds where each id is: four round trips and one per id.
pub async fn plan_cancel(
    redis: &mut Redis,
    keys: &QueueKeys,
    ids: &[String],
) -> Result<CancelPlan, Error> {
    let mut unique: Vec<String> = Vec::new();
    for id in ids {
        if !unique.contains(id) {
            unique.push(id.clone());
        }
    }
    let seen = super::consumers::seen(redis, keys).await?;
    let running = super::consumers::in_flight(redis, keys, &seen.list).await?;
    let mut plan = CancelPlan {
        asks: Default::default(),
        fates: Vec::new(),
        ids: unique.clone(),
        seen,
        running,
    };
    let descriptions = plan.seen.descriptions();
    let mut asks: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    let mut fates = Vec::new();
    for id in &unique {
        match super::jobs::locate(redis, keys, id).await? {
            super::jobs::Location::InFlight { consumer } => {
                let described = descriptions.get(consumer.as_str()).copied();
                match Reach::of(described).why_not() {
                    None => asks.entry(consumer).or_default().push(id.clone()),
                    Some(why) => fates.push(Fate {
                        id: id.clone(),
                        result: "not_cancellable",
                        detail: go_held(&plan.seen, &consumer, described, why, keys),
                        consumer: Some(consumer),
                    }),
                }
            }
            super::jobs::Location::Unknown => fates.push(Fate {
                id: id.clone(),
                result: "not_running",
                detail: format!("there is no job with this id in queue {:?}", keys.name),
                consumer: None,
            }),
            place => fates.push(Fate {
                id: id.clone(),
                result: "not_running",
                detail: format!("it is {place}"),
                consumer: None,
            }),
        }
    }
    plan.asks = asks;
    plan.fates = fates;
    Ok(plan)
}

/// Asks every consumer of `plan` at once to cancel its jobs, and waits for each settle: the
/// fate of every id of the plan, in the order given.
pub async fn cancel(
    spec: &ServerSpec,
    redis: &Redis,
    keys: &QueueKeys,
    plan: &CancelPlan,
    settle: Settle,
    by: &str,
) -> Vec<Fate> {
    let asks = plan.asks.iter().map(|(consumer, jobs)| {
        let mut redis = redis.clone();
        async move {
            let uuid = keys.consumer_uuid(consumer).unwrap_or_default().to_string();
            let what = What::Cancel {
                jobs: jobs.clone(),
                settle,
            };
            let heard = carry_out(spec, &mut redis, keys, &uuid, what, by).await;
            (consumer, jobs, heard)
        }
    });
    let mut fates = plan.fates.clone();
    for (consumer, jobs, heard) in futures_util::future::join_all(asks).await {
        for id in jobs {
            let (result, detail) = match &heard {
                Err(e) => ("failed", format!("the order could not be given: {e}")),
                Ok(h) if !h.received => ("no_answer", silent(&plan.seen, consumer, keys)),
                Ok(h) => match h.answers.iter().find(|a| a.job.as_deref() == Some(id)) {
                    Some(a) if a.result == Outcome::Cancelled => ("cancelled", a.detail.clone()),
                    Some(a) if a.result == Outcome::NotHeld => ("not_held", a.detail.clone()),
                    Some(a) => ("failed", a.detail.clone()),
                    None => (
                        "no_answer",
                        format!(
                            "consumer {} took the order but did not say the job was settled in time: its handler may not have ended within its --kill-after; `qctl find {} {}` says where the job is",
                            super::consumers::short_name(consumer, keys),
                            super::text::shell_quote(&keys.name),
                            super::text::shell_quote(id)
                        ),
                    ),
                },
            };
            fates.push(Fate {
                id: id.clone(),
                result,
                detail,
                consumer: Some(consumer.clone()),
            });
        }
    }
    fates.sort_by_key(|f| plan.ids.iter().position(|id| *id == f.id));
    fates
}

/// Gives `what` to one consumer (its in-flight key `consumer`) and says what came of it: a
/// result (`done`, `stopping`, `no_answer`, `failed`) and words.
pub async fn steer(
    spec: &ServerSpec,
    redis: &mut Redis,
    keys: &QueueKeys,
    seen: &super::consumers::Seen,
    consumer: &str,
    what: What,
    by: &str,
) -> (&'static str, String) {
    let uuid = keys.consumer_uuid(consumer).unwrap_or_default().to_string();
    match carry_out(spec, redis, keys, &uuid, what, by).await {
        Err(e) => ("failed", format!("the order could not be given: {e}")),
        Ok(h) if !h.received => ("no_answer", silent(seen, consumer, keys)),
        Ok(h) => match (h.answers.first(), h.left) {
            (Some(a), Some(true)) if a.result == Outcome::Done => {
                ("done", format!("stopped: it has left {}", keys.consumers))
            }
            (Some(a), Some(false)) if a.result == Outcome::Done => (
                "stopping",
                format!(
                    "{}; it has not left {} yet: its running jobs take longer than its --shutdown-grace allowed for here",
                    a.detail, keys.consumers
                ),
            ),
            (Some(a), _) if a.result == Outcome::Done => ("done", a.detail.clone()),
            (Some(a), _) => ("failed", a.detail.clone()),
            (None, _) => (
                "no_answer",
                format!(
                    "consumer {} took the order but did not say it was carried out",
                    super::consumers::short_name(consumer, keys)
                ),
            ),
        },
    }
}

/// The age of a consumer's heartbeat, if it is registered.
fn heartbeat_age(seen: &super::consumers::Seen, consumer: &str) -> Option<f64> {
    seen.list
        .iter()
        .find(|c| c.key == consumer)
        .map(|c| (seen.now - c.heartbeat).max(0.0))
}

/// Why a job held by a consumer that takes no orders cannot be cancelled, and what can be
/// done.
fn go_held(
    seen: &super::consumers::Seen,
    consumer: &str,
    described: Option<&Description>,
    why: &str,
    keys: &QueueKeys,
) -> String {
    format!(
        "held by consumer {} ({}): {why}, so it cannot be asked to stop the job: its handler runs until it ends. If that consumer is dead, `qctl orphans {}` returns its jobs to the queue once its heartbeat is older than --orphan-after{}",
        super::consumers::short_name(consumer, keys),
        super::consumers::host_pid(described),
        super::text::shell_quote(&keys.name),
        heartbeat_age(seen, consumer).map_or(String::new(), |a| format!(
            " (its heartbeat is {} old)",
            super::text::span(a)
        ))
    )
}

/// Why a consumer that was given an order did not take it: gone, or alive but stuck.
pub fn silent(seen: &super::consumers::Seen, consumer: &str, keys: &QueueKeys) -> String {
    let state = match heartbeat_age(seen, consumer) {
        // Three of qctl's heartbeats (15s each) missed.
        Some(a) if a > 45.0 => format!(
            "its heartbeat is {} old: it is gone (or cut off from Redis)",
            super::text::span(a)
        ),
        Some(a) => format!(
            "its heartbeat is {} old, so its process runs but does not read its orders: it is stuck (or its link to Redis is)",
            super::text::span(a)
        ),
        None => "it is no longer registered: it has left".to_string(),
    };
    format!(
        "consumer {} did not answer within {}s: {state}; the order expires unread and will not be carried out later (`qctl consumers {}` shows it)",
        super::consumers::short_name(consumer, keys),
        RECEIVE_WITHIN.as_secs(),
        super::text::shell_quote(&keys.name)
    )
}

/// The entry of the record of changes for a cancel: the jobs cancelled, and why the others
/// were not.
pub fn cancel_change(settle: Settle, fates: &[Fate]) -> super::changes::Change {
    let mut change = super::changes::Change::new("cancel");
    change.detail = match settle {
        Settle::Dead => "to the dead set".into(),
        Settle::Retry => "retry".into(),
    };
    for fate in fates {
        match fate.result {
            "cancelled" => change.did(&fate.id),
            other => change.skip(other),
        }
    }
    change
}

/// Who gives an order from this process: `user@host`.
pub fn by_cli() -> String {
    format!("{}@{}", super::changes::os_user(), super::consumers::host())
}
