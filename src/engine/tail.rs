//! Following what happens to a queue, for `qctl tail`: from Redis state, whatever runs the
//! jobs, with reads bounded by what changed. Jobs killed come from the scores of
//! `NAME:dead` (read from the last one seen on), their reasons from `NAME:failures`;
//! consumers joining, leaving, expiring and recovered from `NAME:consumers`; pause and
//! resume from `NAME:paused`; retries from `NAME:events`, which only qctl consumers write.

use std::collections::{HashMap, HashSet};

use super::conn::Redis;
use super::consumers::{self, ConsumerInfo, Description};
use super::error::Error;
use super::failure::Failure;
use super::keys::QueueKeys;

/// The most dead jobs and events read per tick; more are read on the next ones.
pub const PER_TICK: usize = 1000;

/// Something that happened to a queue.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Happening {
    /// A job moved to `NAME:dead`; `failure` is None when nothing recorded why (a Go CurlyQ
    /// consumer, or another tool).
    Dead {
        id: String,
        failure: Option<Failure>,
    },
    /// A qctl consumer scheduled a failed job's retry for `due`.
    Retry {
        id: String,
        due: f64,
        failure: Option<Failure>,
    },
    /// A consumer registered; `described` is None for one that writes no description.
    Joined {
        consumer: String,
        described: Option<Description>,
    },
    /// A consumer left `NAME:consumers` before its heartbeat expired.
    Left {
        consumer: String,
    },
    /// A consumer's heartbeat grew older than the cut-off.
    Expired {
        consumer: String,
        heartbeat: f64,
        in_flight: Option<u64>,
    },
    /// An expired consumer's entry went: its jobs were given back (orphan recovery).
    Recovered {
        consumer: String,
    },
    Paused,
    Resumed,
    /// qctl changed the queue (`NAME:changes`): requeued, deleted, purged, paused...
    Change(super::changes::Entry),
}

/// A happening as `qctl tail --json` writes it: its fields (`event` names it), with its
/// `time` and `queue`.
pub fn event_json(queue: &str, time: f64, happening: &Happening) -> serde_json::Value {
    let mut v = serde_json::to_value(happening).unwrap_or_default();
    v["time"] = time.into();
    v["queue"] = queue.into();
    v
}

/// What a queue holds at a tick.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Counts {
    /// qctl consumers' counters (None when no qctl consumer ever ran the queue): jobs done
    /// (`completed` in `NAME:stats`, `done` in JSON, as in the text) and failed runs.
    #[serde(rename = "done")]
    pub completed: Option<u64>,
    pub failed: Option<u64>,
    pub ready: u64,
    pub scheduled: u64,
    pub dead: u64,
    pub consumers: u64,
    pub paused: bool,
}

/// One tick: what happened since the last (each with its time), and the counts now.
#[derive(Debug)]
pub struct Tick {
    pub happened: Vec<(f64, Happening)>,
    pub counts: Counts,
    /// True when more changes are waiting than one tick reads.
    pub behind: bool,
}

/// Follows one queue.
pub struct Follower {
    pub keys: QueueKeys,
    orphan_after: f64,
    /// Dead jobs are read from this score on...
    dead_from: f64,
    /// ...but for those already seen at exactly that score.
    dead_at_edge: HashSet<String>,
    /// Events are read from this stream id on (`(ID`: after it).
    events_from: String,
    /// Changes are read from this stream id on (`(ID`: after it).
    changes_from: String,
    /// The consumers and their heartbeats at the last tick (None before the first).
    consumers: Option<HashMap<String, f64>>,
    expired: HashSet<String>,
    paused: Option<bool>,
}

impl Follower {
    /// Follows `queue` from `since` (unix seconds, the server's clock): what happened from
    /// then to `NAME:dead` and `NAME:events` is read on the first tick; consumers and the
    /// pause flag are compared from the first tick on.
    pub fn new(keys: QueueKeys, since: f64, orphan_after: f64) -> Follower {
        Follower {
            keys,
            orphan_after,
            dead_from: since,
            dead_at_edge: HashSet::new(),
            events_from: format!("{}-0", (since.max(0.0) * 1000.0) as u64),
            changes_from: format!("{}-0", (since.max(0.0) * 1000.0) as u64),
            consumers: None,
            expired: HashSet::new(),
            paused: None,
        }
    }

    /// Reads what changed since the last tick: one round trip, and one more when jobs died
    /// (their reasons) or consumers joined (their descriptions).
    pub async fn tick(&mut self, redis: &mut Redis, now: f64) -> Result<Tick, Error> {
        let k = &self.keys;
        let mut pipe = redis::pipe();
        pipe.cmd("ZRANGEBYSCORE")
            .arg(&k.dead)
            .arg(self.dead_from)
            .arg("+inf")
            .arg("WITHSCORES")
            .arg("LIMIT")
            .arg(self.dead_at_edge.len())
            .arg(PER_TICK)
            .cmd("XRANGE")
            .arg(&k.events)
            .arg(&self.events_from)
            .arg("+")
            .arg("COUNT")
            .arg(PER_TICK)
            .cmd("ZRANGE")
            .arg(&k.consumers)
            .arg(0)
            .arg(9999)
            .arg("WITHSCORES")
            .exists(&k.paused)
            .cmd("HMGET")
            .arg(&k.stats)
            .arg("completed")
            .arg("failed")
            .llen(&k.active)
            .zcard(&k.scheduled)
            .zcard(&k.dead)
            .cmd("XRANGE")
            .arg(&k.changes)
            .arg(&self.changes_from)
            .arg("+")
            .arg("COUNT")
            .arg(PER_TICK);
        pipe.ignore_errors();
        let ops = [
            format!("ZRANGEBYSCORE {}", k.dead),
            format!("XRANGE {}", k.events),
            format!("ZRANGE {}", k.consumers),
            format!("EXISTS {}", k.paused),
            format!("HMGET {}", k.stats),
            format!("LLEN {}", k.active),
            format!("ZCARD {}", k.scheduled),
            format!("ZCARD {}", k.dead),
            format!("XRANGE {}", k.changes),
        ];
        let replies = redis
            .pipeline_all(&pipe, |i| ops[i.min(ops.len() - 1)].clone())
            .await?;
        let server = redis.server().to_string();
        let mut replies = replies.into_iter();
        // A WRONGTYPE or a refusal came as the error of its command, named (above).
        let mut next = || replies.next().unwrap_or(redis::Value::Nil);
        let dead: Vec<(String, f64)> = decode(&server, &ops[0], next())?;
        let events: Vec<(String, HashMap<String, String>)> = decode(&server, &ops[1], next())?;
        let members: Vec<(String, f64)> = decode(&server, &ops[2], next())?;
        let paused: bool = decode(&server, &ops[3], next())?;
        let stats: Vec<Option<String>> = decode(&server, &ops[4], next())?;
        let ready: u64 = decode(&server, &ops[5], next())?;
        let scheduled: u64 = decode(&server, &ops[6], next())?;
        let dead_count: u64 = decode(&server, &ops[7], next())?;
        let changes: Vec<(String, HashMap<String, String>)> = decode(&server, &ops[8], next())?;
        let mut happened = Vec::new();
        let behind =
            dead.len() >= PER_TICK || events.len() >= PER_TICK || changes.len() >= PER_TICK;

        // Changes qctl made.
        if let Some((last, _)) = changes.last() {
            self.changes_from = format!("({last}");
        }
        for (id, fields) in &changes {
            let entry = super::changes::Entry::from_fields(id, fields);
            happened.push((entry.time, Happening::Change(entry)));
        }

        // Jobs killed, with the reasons qctl recorded.
        let dead: Vec<(String, f64)> = dead
            .into_iter()
            .filter(|(id, score)| !(*score == self.dead_from && self.dead_at_edge.contains(id)))
            .collect();
        if let Some(&(_, last)) = dead.last() {
            if last > self.dead_from {
                self.dead_from = last;
                self.dead_at_edge.clear();
            }
            self.dead_at_edge.extend(
                dead.iter()
                    .filter(|(_, s)| *s == last)
                    .map(|(id, _)| id.clone()),
            );
            let ids: Vec<&str> = dead.iter().map(|(id, _)| id.as_str()).collect();
            let failures: Vec<Option<Vec<u8>>> = redis
                .query(
                    redis::cmd("HMGET").arg(&k.failures).arg(&ids),
                    format!("HMGET {}", k.failures),
                )
                .await?;
            for ((id, score), failure) in dead.into_iter().zip(failures) {
                let failure = failure.as_deref().and_then(Failure::from_json);
                happened.push((score, Happening::Dead { id, failure }));
            }
        }

        // Retries qctl consumers scheduled.
        if let Some((last, _)) = events.last() {
            self.events_from = format!("({last}");
        }
        for (entry, fields) in events {
            if fields.get("event").map(String::as_str) != Some("retry") {
                continue;
            }
            let time = entry
                .split('-')
                .next()
                .and_then(|ms| ms.parse::<f64>().ok())
                .map_or(now, |ms| ms / 1000.0);
            happened.push((
                time,
                Happening::Retry {
                    id: fields.get("id").cloned().unwrap_or_default(),
                    due: fields
                        .get("due")
                        .and_then(|d| d.parse().ok())
                        .unwrap_or(f64::NAN),
                    failure: fields
                        .get("failure")
                        .and_then(|f| Failure::from_json(f.as_bytes())),
                },
            ));
        }

        // Consumers.
        let cutoff = now - self.orphan_after;
        let current: HashMap<String, f64> = members.iter().cloned().collect();
        if let Some(before) = &self.consumers {
            let joined: Vec<ConsumerInfo> = members
                .iter()
                .filter(|(m, _)| !before.contains_key(m))
                .map(|(m, beat)| ConsumerInfo {
                    key: m.clone(),
                    heartbeat: *beat,
                    in_flight: None,
                    problem: None,
                })
                .collect();
            let described = consumers::describe(redis, k, &joined).await?;
            for (c, described) in joined.into_iter().zip(described) {
                happened.push((
                    now,
                    Happening::Joined {
                        consumer: c.key,
                        described,
                    },
                ));
            }
            for m in before.keys().filter(|m| !current.contains_key(*m)) {
                let consumer = m.clone();
                happened.push((
                    now,
                    if self.expired.remove(m) {
                        Happening::Recovered { consumer }
                    } else {
                        Happening::Left { consumer }
                    },
                ));
            }
        }
        let mut newly_expired = Vec::new();
        for (m, beat) in &members {
            if *beat <= cutoff {
                if self.expired.insert(m.clone()) && self.consumers.is_some() {
                    newly_expired.push((m.clone(), *beat));
                }
            } else {
                self.expired.remove(m);
            }
        }
        if !newly_expired.is_empty() {
            let mut pipe = redis::pipe();
            pipe.ignore_errors();
            for (m, _) in &newly_expired {
                pipe.cmd("SCARD").arg(m);
            }
            let counts = redis
                .pipeline_each(&pipe, |i| format!("SCARD {}", newly_expired[i].0))
                .await?;
            for ((consumer, heartbeat), n) in newly_expired.into_iter().zip(counts) {
                let in_flight = n.ok().and_then(|v| redis::from_redis_value(v).ok());
                happened.push((
                    now,
                    Happening::Expired {
                        consumer,
                        heartbeat,
                        in_flight,
                    },
                ));
            }
        }
        self.consumers = Some(current);

        // Pause and resume.
        if let Some(was) = self.paused {
            if was != paused {
                happened.push((
                    now,
                    if paused {
                        Happening::Paused
                    } else {
                        Happening::Resumed
                    },
                ));
            }
        }
        self.paused = Some(paused);

        happened.sort_by(|a, b| a.0.total_cmp(&b.0));
        Ok(Tick {
            happened,
            counts: Counts {
                completed: stats
                    .first()
                    .cloned()
                    .flatten()
                    .and_then(|v| v.parse().ok()),
                failed: stats.get(1).cloned().flatten().and_then(|v| v.parse().ok()),
                ready,
                scheduled,
                dead: dead_count,
                consumers: members.len() as u64,
                paused,
            },
            behind,
        })
    }
}

/// A reply as `T`, or an error naming the command that gave it.
fn decode<T: redis::FromRedisValue>(server: &str, op: &str, v: redis::Value) -> Result<T, Error> {
    redis::from_redis_value(v).map_err(|e| Error::from_redis(server, op, e.into()))
}
