//! Finding queues (SCAN, never KEYS) and counting what each holds.

use super::conn::Redis;
use super::error::Error;
use super::keys::QueueKeys;

/// Suffixes that make a key part of a queue: CurlyQ's, and qctl's own that outlive its jobs,
/// so that a queue that drained stays listed (with the counters of `NAME:stats`) until it is
/// purged.
const SUFFIXES: [&str; 8] = [
    ":active",
    ":data",
    ":scheduled",
    ":dead",
    ":consumers",
    ":paused",
    ":stats",
    ":failures",
];
/// Keys asked for per SCAN call.
const SCAN_COUNT: usize = 10_000;
/// Queues counted per round trip.
pub const STATS_BATCH: usize = 100;

/// What discovery found; `complete` is false when it stopped at `max_keys`.
#[derive(Debug, Default)]
pub struct Discovery {
    pub queues: Vec<String>,
    pub keys_scanned: u64,
    pub round_trips: u64,
    pub complete: bool,
}

/// Finds queue names by scanning key names, at most `max_keys` keys: on the server, or on
/// every master of a cluster.
pub async fn discover(redis: &mut Redis, max_keys: u64) -> Result<Discovery, Error> {
    let mut names = std::collections::BTreeSet::new();
    let mut found = Discovery {
        complete: true,
        ..Discovery::default()
    };
    for node in redis.masters().await? {
        let mut cursor: u64 = 0;
        loop {
            if found.keys_scanned >= max_keys {
                found.complete = false;
                break;
            }
            let (next, keys): (u64, Vec<Vec<u8>>) = redis
                .query_at(
                    &node,
                    redis::cmd("SCAN")
                        .arg(cursor)
                        .arg("MATCH")
                        .arg("*:*")
                        .arg("COUNT")
                        .arg(SCAN_COUNT),
                    format!("SCAN for queues{node}"),
                )
                .await?;
            found.round_trips += 1;
            found.keys_scanned += keys.len() as u64;
            for key in keys {
                let Ok(key) = String::from_utf8(key) else {
                    continue;
                };
                if let Some(name) = queue_of(&key) {
                    names.insert(name.to_string());
                }
            }
            cursor = next;
            if cursor == 0 {
                break;
            }
        }
    }
    found.queues = names.into_iter().collect();
    Ok(found)
}

/// Whether any of the queue's own keys exists. A name with none is no queue on this server:
/// mistyped, or a queue that holds nothing and was never run by qctl (qctl consumers keep
/// `NAME:stats`).
pub async fn exists(redis: &mut Redis, keys: &QueueKeys) -> Result<bool, Error> {
    // One EXISTS per key: a refusal then names its key, and a server that wants a password
    // answers NOAUTH (it closes the connection on a longer command from a client that has
    // not authenticated).
    let fixed = keys.fixed();
    let mut pipe = redis::pipe();
    for key in fixed {
        pipe.exists(key);
    }
    let found: Vec<u64> = redis
        .pipeline(&pipe, format!("EXISTS {}", keys.active))
        .await?;
    Ok(found.iter().any(|n| *n > 0))
}

/// Whether the queue has a key on the server; true when the user may not look (what reads
/// it next then says what it may not do, naming the key).
pub async fn known(redis: &mut Redis, keys: &QueueKeys) -> Result<bool, Error> {
    match exists(redis, keys).await {
        Ok(known) => Ok(known),
        Err(e) if e.is_key_denied() => Ok(true),
        Err(e) => Err(e),
    }
}

/// The words for a queue that has no key on the server, with the names it may have meant:
/// `no queue "mial" (known: mail, mail-retry)`.
pub async fn no_queue(redis: &mut Redis, name: &str) -> String {
    // A user who may not SCAN is told no more than that.
    let Ok((names, found)) = near(redis, name).await else {
        return format!("no queue {name:?}");
    };
    let shown: Vec<String> = names.iter().map(|n| super::text::printable(n)).collect();
    let known = match (found, shown.len()) {
        (0, _) => "this server has no queues".to_string(),
        (n, k) if n > k => format!("known: {} and {} more", shown.join(", "), n - k),
        _ => format!("known: {}", shown.join(", ")),
    };
    format!("no queue {name:?} ({known})")
}

/// How many keys [`near`] scans at most for the names of queues.
const NEAR_KEYS: u64 = 1_000_000;

/// The queues on the server, the closest to `name` first (at most 5), and how many there
/// are.
pub async fn near(redis: &mut Redis, name: &str) -> Result<(Vec<String>, usize), Error> {
    let found = discover(redis, NEAR_KEYS).await?;
    let mut ranked: Vec<(f64, String)> = found
        .queues
        .into_iter()
        .filter(|q| q != name)
        .map(|q| (strsim::jaro_winkler(name, &q), q))
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let count = ranked.len();
    Ok((ranked.into_iter().take(5).map(|(_, q)| q).collect(), count))
}

/// Fails ([`Error::NothingDone`], exit 5) when `keys` names a queue with no key on the
/// server, in the words of [`no_queue`]: a read has nothing to read there.
pub async fn require(redis: &mut Redis, keys: &QueueKeys) -> Result<(), Error> {
    if known(redis, keys).await? {
        return Ok(());
    }
    Err(Error::NothingDone(no_queue(redis, &keys.name).await))
}

/// Queues in batches of at most [`STATS_BATCH`] for one round trip each; in a cluster, a
/// batch holds only queues of one slot (a pipeline cannot span slots).
pub fn batches(queues: &[String], cluster: bool) -> Vec<Vec<String>> {
    if !cluster {
        return queues.chunks(STATS_BATCH).map(<[String]>::to_vec).collect();
    }
    let mut index = std::collections::HashMap::new();
    let mut by_slot: Vec<Vec<String>> = Vec::new();
    for name in queues {
        let slot = redis::cluster_routing::Slot::for_key(QueueKeys::new(name).active);
        let i = *index.entry(slot).or_insert_with(|| {
            by_slot.push(Vec::new());
            by_slot.len() - 1
        });
        by_slot[i].push(name.clone());
    }
    by_slot
        .into_iter()
        .flat_map(|group| {
            group
                .chunks(STATS_BATCH)
                .map(<[String]>::to_vec)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The queue a key belongs to, by its suffix.
pub fn queue_of(key: &str) -> Option<&str> {
    SUFFIXES
        .iter()
        .find_map(|s| key.strip_suffix(s))
        .filter(|name| !name.is_empty() && !name.contains(":inflight:"))
}

/// Sets (`pause`) or removes the flag `NAME:paused` that qctl consumers honour; true when
/// that changed it. The flag holds `{"since": now}`.
pub async fn set_paused(redis: &mut Redis, keys: &QueueKeys, pause: bool) -> Result<bool, Error> {
    if pause {
        let since = serde_json::json!({"since": super::now()}).to_string();
        let set: Option<String> = redis
            .query(
                redis::cmd("SET").arg(&keys.paused).arg(since).arg("NX"),
                format!("SET {}", keys.paused),
            )
            .await?;
        Ok(set.is_some())
    } else {
        let n: u64 = redis
            .query(
                redis::cmd("DEL").arg(&keys.paused),
                format!("DEL {}", keys.paused),
            )
            .await?;
        Ok(n > 0)
    }
}

/// Whether the queue is paused now (its flag is set).
pub async fn is_paused(redis: &mut Redis, keys: &QueueKeys) -> Result<bool, Error> {
    let n: u64 = redis
        .query(
            redis::cmd("EXISTS").arg(&keys.paused),
            format!("EXISTS {}", keys.paused),
        )
        .await?;
    Ok(n > 0)
}

/// A count that is unknown when its key has the wrong type.
pub type Count = Option<u64>;

/// Per second between two readings of a counter; None when either could not be read. A
/// counter that went back (its key was deleted) reads as no progress.
pub fn rate(now: Count, before: Count, secs: f64) -> Option<f64> {
    let (now, before) = (now?, before?);
    Some(if secs <= 0.0 {
        0.0
    } else {
        now.saturating_sub(before) as f64 / secs
    })
}

/// What one queue holds.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize)]
pub struct QueueStats {
    pub queue: String,
    pub active: Count,
    pub scheduled_due: Count,
    pub scheduled_later: Count,
    /// Jobs with a record that are in none of active, scheduled and dead: reserved by a
    /// consumer (or stranded).
    pub in_flight: Count,
    pub dead: Count,
    pub consumers_alive: Count,
    pub consumers_expired: Count,
    pub paused: bool,
    /// Jobs acked by qctl consumers, ever (`completed` in `NAME:stats`; `done` in JSON, as in
    /// the text).
    #[serde(rename = "done")]
    pub completed: Count,
    /// Failed runs in qctl consumers, ever (from `NAME:stats`).
    pub failed: Count,
    /// How long the earliest scheduled job that is due has waited past its due time for a
    /// consumer to move it to active, in seconds (a due time before 1970 counts from 1970);
    /// 0 when no scheduled job is due.
    pub overdue_secs: Option<f64>,
    /// Keys of this queue holding the wrong type.
    pub wrong_type: Vec<String>,
    /// What qctl consumers did since the queue began (`NAME:stats`): retries, kills and the
    /// run-time histogram; None when it could not be read.
    #[serde(skip)]
    pub totals: Option<super::history::Tally>,
}

/// What [`stats`] counted.
#[derive(Debug, Default)]
pub struct Counted {
    pub stats: Vec<QueueStats>,
    pub round_trips: u64,
    /// Queues passed over because the ACL user may not read their keys (only with
    /// `skip_unreadable`).
    pub unreadable: Vec<String>,
}

/// Counts for each queue, one round trip per batch of queues. With `discovered` (queues found
/// by SCAN, which lists keys the user may not read) a queue whose keys the ACL user may not
/// access is passed over and named in `unreadable`, otherwise that is an error; and a name
/// that holds no job, consumer or pause flag and no counter of qctl's (an application's own
/// `page:stats`, a queue whose last key went) is no queue and is passed over.
pub async fn stats(
    redis: &mut Redis,
    queues: &[String],
    now: f64,
    orphan_after: f64,
    discovered: bool,
) -> Result<Counted, Error> {
    let mut out = Vec::with_capacity(queues.len());
    let mut unreadable = Vec::new();
    let mut trips = 0;
    for batch in batches(queues, redis.is_cluster()) {
        let batch = batch.as_slice();
        let mut pipe = redis::pipe();
        pipe.ignore_errors();
        for name in batch {
            let k = QueueKeys::new(name);
            pipe.llen(&k.active)
                .zcount(&k.scheduled, "-inf", now)
                .zcard(&k.scheduled)
                .zcard(&k.dead)
                .hlen(&k.data)
                .zcount(&k.consumers, format!("({}", now - orphan_after), "+inf")
                .zcard(&k.consumers)
                .exists(&k.paused)
                .hget(&k.stats, "completed")
                .hget(&k.stats, "failed")
                .zrange_withscores(&k.scheduled, 0, 0)
                .cmd("HMGET")
                .arg(&k.stats)
                .arg(super::history::fields());
        }
        // Each command above and its key, as a position in `QueueKeys::fixed`.
        const COMMANDS: [(&str, usize); 12] = [
            ("LLEN", 0),
            ("ZCOUNT", 2),
            ("ZCARD", 2),
            ("ZCARD", 3),
            ("HLEN", 1),
            ("ZCOUNT", 4),
            ("ZCARD", 4),
            ("EXISTS", 7),
            ("HGET", 8),
            ("HGET", 8),
            ("ZRANGE", 2),
            ("HMGET", 8),
        ];
        let replies = redis
            .pipeline_each(&pipe, |i| {
                let (cmd, key) = COMMANDS[i % COMMANDS.len()];
                let k = QueueKeys::new(&batch[i / COMMANDS.len()]);
                format!("{cmd} {}", k.fixed()[key])
            })
            .await?;
        trips += 1;
        for (name, r) in batch.iter().zip(replies.chunks(COMMANDS.len())) {
            let k = QueueKeys::new(name);
            let mut wrong = Vec::new();
            let mut failed = None;
            let mut n = |i: usize, key: &str| -> Count {
                match &r[i] {
                    // A counter that was never written reads as nil: zero.
                    Ok(redis::Value::Nil) => Some(0),
                    Ok(v) => redis::from_redis_value_ref(v).ok(),
                    // A key of the wrong type is shown as such; any other refusal
                    // (NOAUTH, NOPERM, ...) is an error of the whole command.
                    Err(e) if e.code() == Some("WRONGTYPE") => {
                        if !wrong.contains(&key.to_string()) {
                            wrong.push(key.to_string());
                        }
                        None
                    }
                    Err(e) => {
                        if failed.is_none() {
                            failed = Some(e.clone());
                        }
                        None
                    }
                }
            };
            let active = n(0, &k.active);
            let due = n(1, &k.scheduled);
            let sched = n(2, &k.scheduled);
            let dead = n(3, &k.dead);
            let data = n(4, &k.data);
            let alive = n(5, &k.consumers);
            let consumers = n(6, &k.consumers);
            let paused = matches!(n(7, &k.paused), Some(1));
            let completed = n(8, &k.stats);
            let failed_runs = n(9, &k.stats);
            let earliest = match &r[10] {
                Ok(v) => redis::from_redis_value_ref::<Vec<(String, f64)>>(v)
                    .ok()
                    .map(|first| first.first().map(|(_, due)| *due)),
                // The same key's error was recorded by ZCARD above.
                Err(_) => None,
            };
            let totals = match &r[11] {
                Ok(v) => redis::from_redis_value_ref::<Vec<Option<String>>>(v)
                    .ok()
                    .and_then(super::history::parse),
                // The same key's error was recorded by HGET above.
                Err(_) => None,
            };
            if let Some(e) = failed {
                if discovered && e.is_key_denied() {
                    unreadable.push(name.clone());
                    continue;
                }
                return Err(e);
            }
            let counter = |i: usize| matches!(&r[i], Ok(v) if *v != redis::Value::Nil);
            let holds = |c: Count| c != Some(0);
            let curlyq_wrong = wrong.iter().any(|w| *w != k.stats && *w != k.failures);
            if discovered
                && !paused
                && !curlyq_wrong
                && !counter(8)
                && !counter(9)
                && ![active, sched, dead, data, consumers]
                    .into_iter()
                    .any(holds)
            {
                continue;
            }
            let in_flight = match (data, active, sched, dead) {
                (Some(d), Some(a), Some(s), Some(x)) => Some(d.saturating_sub(a + s + x)),
                _ => None,
            };
            out.push(QueueStats {
                queue: name.clone(),
                active,
                scheduled_due: due,
                scheduled_later: sched.zip(due).map(|(s, d)| s.saturating_sub(d)),
                in_flight,
                dead,
                consumers_alive: alive,
                consumers_expired: consumers.zip(alive).map(|(c, a)| c.saturating_sub(a)),
                paused,
                completed,
                failed: failed_runs,
                overdue_secs: earliest.map(|due| overdue(due, now)),
                wrong_type: wrong,
                totals,
            });
        }
    }
    Ok(Counted {
        stats: out,
        round_trips: trips,
        unreadable,
    })
}

/// How long a job due at `due` has waited at `now`: 0 before it is due, and a due time
/// before 1970 (a score of 0, a negative one, `-inf`) counts from 1970.
fn overdue(due: Option<f64>, now: f64) -> f64 {
    due.map_or(0.0, |due| (now - due.max(0.0)).max(0.0))
}

/// One reading of the queues: what `stats` shows, `metrics` serves and `check` judges.
#[derive(Debug)]
pub struct Reading {
    pub stats: Vec<QueueStats>,
    /// When the queues were counted: the server's clock (unix seconds).
    pub time: f64,
    pub round_trips: u64,
    /// Queues that may be missing or were skipped, one line each.
    pub warnings: Vec<String>,
    /// The queues passed over because the Redis user may not read their keys.
    pub unreadable: Option<String>,
}

/// Counts `queues`, or every queue SCAN finds (at most `max_keys` keys) when none are named;
/// in a cluster, found queues without a hash tag are skipped with a warning.
pub async fn read(
    redis: &mut Redis,
    queues: &[String],
    cluster: bool,
    orphan_after: std::time::Duration,
    max_keys: u64,
) -> Result<Reading, Error> {
    use super::text::{agree, plural};
    let mut queues = queues.to_vec();
    let mut warnings = Vec::new();
    let mut trips = 0;
    let discovering = queues.is_empty();
    if discovering {
        let found = discover(redis, max_keys).await?;
        trips += found.round_trips;
        if !found.complete {
            warnings.push(format!(
                "stopped discovering after {} (--max-keys); some queues may be missing",
                plural(found.keys_scanned, "key")
            ));
        }
        queues = found.queues;
        if cluster {
            let untagged = queues.len();
            queues.retain(|q| super::keys::hash_tag(q).is_some());
            let untagged = untagged - queues.len();
            if untagged > 0 {
                warnings.push(format!(
                    "skipped {} without a hash tag: in Redis Cluster {} keys are spread over slots",
                    plural(untagged as u64, "queue"),
                    agree(untagged as u64, "its", "their")
                ));
            }
        }
    }
    // Due jobs and live consumers are judged by the server's clock, as consumers write them.
    let now = redis.server_time().await?;
    trips += 1;
    let counted = stats(redis, &queues, now, orphan_after.as_secs_f64(), discovering).await?;
    Ok(Reading {
        stats: counted.stats,
        time: now,
        round_trips: trips + counted.round_trips,
        warnings,
        unreadable: (!counted.unreadable.is_empty()).then(|| unreadable_note(&counted.unreadable)),
    })
}

/// One line for every queue found but not counted because the user may not read its keys.
fn unreadable_note(queues: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut names: Vec<String> = queues
        .iter()
        .take(SHOWN)
        .map(|q| super::text::printable(q))
        .collect();
    if queues.len() > SHOWN {
        names.push(format!("and {} more", queues.len() - SHOWN));
    }
    format!(
        "note: skipped {} whose keys this Redis user may not read (NOPERM): {}",
        super::text::plural(queues.len() as u64, "queue"),
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_names_come_from_key_suffixes() {
        assert_eq!(queue_of("mail:active"), Some("mail"));
        assert_eq!(queue_of("{a}:b:dead"), Some("{a}:b"));
        assert_eq!(
            queue_of("mail:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff"),
            None
        );
        assert_eq!(queue_of("session:123"), None);
        assert_eq!(queue_of(":data"), None);
    }

    #[test]
    fn overdue_counts_from_the_due_time_and_from_1970_at_the_earliest() {
        assert_eq!(overdue(None, 1000.0), 0.0);
        assert_eq!(overdue(Some(1500.0), 1000.0), 0.0);
        assert_eq!(overdue(Some(400.0), 1000.0), 600.0);
        assert_eq!(overdue(Some(-5.0), 1000.0), 1000.0);
        assert_eq!(overdue(Some(f64::NEG_INFINITY), 1000.0), 1000.0);
    }
}
