//! One reading of every queue, shared by the views (`qctl top`, `qctl web`): the counts
//! `stats` shows, what discovery found, and each queue's last minutes of history. A
//! [`Reader`] keeps what its readings learnt: the queues found once (a drained queue has no
//! key left for SCAN to find, and its rates matter most then) and the minutes of history
//! that are over, read once; each reading after the first reads only the current minute and
//! the one before of each queue, a thousand minutes per round trip. A view that shows the
//! history of some queues only ([`Reader::read_with`]) reads and keeps theirs only.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::conn::Redis;
use super::error::Error;
use super::history::{self, Step, Tally};
use super::keys::QueueKeys;
use super::queues::{self, QueueStats};

/// Minutes of history read per round trip.
const MINUTES_PER_CALL: usize = 1000;

/// What a [`Reader`] reads.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The queues to read, as named; none: every queue discovery finds.
    pub queues: Vec<String>,
    /// Heartbeat age past which a consumer counts as expired.
    pub orphan_after: Duration,
    /// Discovery scans at most this many keys.
    pub max_keys: u64,
    /// Minutes of history per queue, the current one last.
    pub minutes: usize,
}

/// The counts and history of every queue, at one moment.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// When it was read (this host's clock): rates come from two snapshots' `at`.
    pub at: Instant,
    /// The server's clock when the queues were counted (unix seconds).
    pub time: f64,
    pub stats: Vec<QueueStats>,
    /// Round trips of this reading: SCAN calls, TIME, batches of counts and of history.
    pub round_trips: u64,
    /// Queues found but not counted: the ACL user may not read their keys.
    pub unreadable: usize,
    /// Queues without a hash tag, skipped in a cluster.
    pub untagged: usize,
    /// Discovery stopped at `max_keys`: some queues may be missing.
    pub incomplete: bool,
    /// Keys discovery scanned (0 when the queues were named).
    pub keys_scanned: u64,
    /// The start (unix seconds) of the first minute of `recent`.
    pub first_minute: i64,
    /// The last [`Settings::minutes`] minutes of each counted queue whose history was read
    /// (every one, unless [`Reader::read_with`] picked some), oldest first, the one holding
    /// `time` last (None: a minute that could not be read: a key of another type,
    /// or holding no count). Shared with the reader and the snapshots before, as long as
    /// they did not change.
    pub recent: HashMap<String, Arc<[Option<Tally>]>>,
}

impl Snapshot {
    /// The rates of `queue` since `before`: jobs done and failed per second, None for a
    /// queue `before` did not count (or whose counters could not be read).
    pub fn rates(&self, before: &Snapshot, stats: &QueueStats) -> (Option<f64>, Option<f64>) {
        let secs = self.at.saturating_duration_since(before.at).as_secs_f64();
        match before.stats.iter().find(|b| b.queue == stats.queue) {
            Some(b) => (
                queues::rate(stats.completed, b.completed, secs),
                queues::rate(stats.failed, b.failed, secs),
            ),
            None => (None, None),
        }
    }
}

/// The minutes of history of one queue read so far.
#[derive(Debug)]
struct Kept {
    /// The start of the first minute of `minutes`.
    first: i64,
    /// The current minute when they were read.
    read_in: i64,
    minutes: Arc<[Option<Tally>]>,
}

impl Kept {
    /// The minute starting at `start`, when it need not be read again in the minute
    /// starting at `now`: a consumer writes a run into the minute it settles it in, by its
    /// own clock, so the current minute and the one before are read at every reading, and a
    /// minute is kept once it was read as the one before.
    fn over(&self, start: i64, now: i64) -> Option<&Option<Tally>> {
        if start < self.first || start > self.read_in - 60 || start > now - 120 {
            return None;
        }
        self.minutes.get(((start - self.first) / 60) as usize)
    }
}

/// Reads snapshots, keeping what it learnt from one to the next.
#[derive(Debug)]
pub struct Reader {
    settings: Settings,
    seen: BTreeSet<String>,
    kept: HashMap<String, Kept>,
}

impl Reader {
    pub fn new(settings: Settings) -> Reader {
        Reader {
            settings,
            seen: BTreeSet::new(),
            kept: HashMap::new(),
        }
    }

    /// One reading: the queues named, or those found now and before, counted in batches of
    /// 100 a round trip (the server's clock judges due jobs and live consumers, as consumers
    /// write them), then their history.
    pub async fn read(&mut self, redis: &mut Redis) -> Result<Snapshot, Error> {
        self.read_with(redis, |stats| {
            stats.iter().map(|s| s.queue.clone()).collect()
        })
        .await
    }

    /// As [`Reader::read`], reading the history of the queues `pick` chooses among those
    /// counted (in the order `stats` lists them) only; the minutes kept of the others are
    /// forgotten.
    pub async fn read_with(
        &mut self,
        redis: &mut Redis,
        pick: impl FnOnce(&[QueueStats]) -> HashSet<String>,
    ) -> Result<Snapshot, Error> {
        let mut round_trips = 0;
        let mut untagged = 0;
        let mut incomplete = false;
        let mut keys_scanned = 0;
        let discovering = self.settings.queues.is_empty();
        let names: Vec<String> = if discovering {
            let found = queues::discover(redis, self.settings.max_keys).await?;
            round_trips += found.round_trips;
            incomplete = !found.complete;
            keys_scanned = found.keys_scanned;
            let mut names = found.queues;
            if redis.is_cluster() {
                let all = names.len();
                names.retain(|q| super::keys::hash_tag(q).is_some());
                untagged = all - names.len();
            }
            self.seen.extend(names);
            self.seen.iter().cloned().collect()
        } else {
            self.settings.queues.clone()
        };
        let time = redis.server_time().await?;
        round_trips += 1;
        let counted = queues::stats(
            redis,
            &names,
            time,
            self.settings.orphan_after.as_secs_f64(),
            discovering,
        )
        .await?;
        round_trips += counted.round_trips;
        let picked = pick(&counted.stats);
        let shown: Vec<String> = counted
            .stats
            .iter()
            .filter(|s| picked.contains(&s.queue))
            .map(|s| s.queue.clone())
            .collect();
        let (first_minute, trips) = self.read_history(redis, &shown, time).await?;
        round_trips += trips;
        let recent = shown
            .iter()
            .filter_map(|q| Some((q.clone(), self.kept.get(q)?.minutes.clone())))
            .collect();
        Ok(Snapshot {
            at: Instant::now(),
            time,
            stats: counted.stats,
            round_trips,
            unreadable: counted.unreadable.len(),
            untagged,
            incomplete,
            keys_scanned,
            first_minute,
            recent,
        })
    }

    /// Brings the history of `queues` up to the minute holding `now`, reading what is not
    /// kept; returns the start of the first minute and the round trips taken. Queues no
    /// longer counted are forgotten.
    async fn read_history(
        &mut self,
        redis: &mut Redis,
        queues: &[String],
        now: f64,
    ) -> Result<(i64, u64), Error> {
        let count = self.settings.minutes.max(1);
        let last = history::minute_of(now);
        let first = last - 60 * (count as i64 - 1);
        let reading: HashSet<&String> = queues.iter().collect();
        self.kept.retain(|q, _| reading.contains(q));
        // Per queue: its minutes as far as kept, and which of them are still to read.
        let mut minutes: Vec<Vec<Option<Tally>>> = Vec::with_capacity(queues.len());
        let mut wanted: Vec<(usize, usize)> = Vec::new();
        for (q, queue) in queues.iter().enumerate() {
            let kept = self.kept.get(queue);
            let mut row = Vec::with_capacity(count);
            for i in 0..count {
                let start = first + 60 * i as i64;
                match kept.and_then(|k| k.over(start, last)) {
                    Some(minute) => row.push(minute.clone()),
                    None => {
                        row.push(None);
                        wanted.push((q, i));
                    }
                }
            }
            minutes.push(row);
        }
        let names = history::fields();
        let mut trips = 0;
        // A pipeline cannot span slots: in a cluster, the queues of one slot go together.
        let groups: Vec<Vec<(usize, usize)>> = if redis.is_cluster() {
            let mut by_slot: HashMap<u16, Vec<(usize, usize)>> = HashMap::new();
            for &(q, i) in &wanted {
                let slot = super::conn::key_slot(QueueKeys::new(&queues[q]).active.as_bytes());
                by_slot.entry(slot).or_default().push((q, i));
            }
            by_slot.into_values().collect()
        } else {
            vec![wanted]
        };
        for group in groups {
            for chunk in group.chunks(MINUTES_PER_CALL) {
                let key = |&(q, i): &(usize, usize)| {
                    QueueKeys::new(&queues[q]).history(first + 60 * i as i64)
                };
                let mut pipe = redis::pipe();
                pipe.ignore_errors();
                for wanted in chunk {
                    pipe.cmd("HMGET").arg(key(wanted)).arg(&names);
                }
                let replies = redis
                    .pipeline_each(&pipe, |n| format!("HMGET {}", key(&chunk[n])))
                    .await?;
                trips += 1;
                for (&(q, i), reply) in chunk.iter().zip(replies) {
                    minutes[q][i] = match reply {
                        Ok(v) => redis::from_redis_value::<Vec<Option<String>>>(v)
                            .ok()
                            .and_then(history::parse),
                        Err(_) => None,
                    };
                }
            }
        }
        for (queue, row) in queues.iter().zip(minutes) {
            // Unchanged minutes keep their allocation, shared with the snapshots before.
            let same = self
                .kept
                .get(queue)
                .filter(|k| k.first == first && *k.minutes == *row)
                .map(|k| k.minutes.clone());
            let minutes = same.unwrap_or_else(|| row.into());
            self.kept.insert(
                queue.clone(),
                Kept {
                    first,
                    read_in: last,
                    minutes,
                },
            );
        }
        Ok((first, trips))
    }
}

/// What a watch adds to a queue's counts: the time they were read at and the rates since
/// the reading before (None on the first, and for a queue new since).
#[derive(Debug, Clone, Copy)]
pub struct Watched {
    /// The server's clock (unix seconds).
    pub time: f64,
    pub done_per_sec: Option<f64>,
    pub failed_per_sec: Option<f64>,
}

/// The JSON of a queue's counts, as `stats --json` prints them; with `watched`, as
/// `stats --watch --json` does.
pub fn stats_json(stats: &QueueStats, watched: Option<Watched>) -> serde_json::Value {
    let mut v = serde_json::to_value(stats).unwrap_or_default();
    if let Some(w) = watched {
        v["time"] = w.time.into();
        v["done_per_sec"] = w.done_per_sec.into();
        v["failed_per_sec"] = w.failed_per_sec.into();
    }
    v
}

/// The percentiles of run time shown, as fractions and as names.
pub const PERCENTILES: [(f64, &str); 3] = [(0.5, "p50"), (0.95, "p95"), (0.99, "p99")];

/// A percentile for JSON: milliseconds (3 decimals), runs past the last bucket as its
/// bound (3,600,000), null when nothing was timed.
pub fn millis_json(ms: Option<f64>) -> serde_json::Value {
    match ms {
        None => serde_json::Value::Null,
        Some(ms) if ms.is_infinite() => (*history::BOUNDS_MS.last().unwrap_or(&0)).into(),
        Some(ms) => ((ms * 1000.0).round() / 1000.0).into(),
    }
}

/// One step of `queue`'s history as `stats --history --json` prints it: serialized as it
/// is, with no JSON tree in between (`qctl web` writes thousands at a time).
#[derive(Debug, Clone, serde::Serialize)]
pub struct StepJson<'a> {
    pub queue: &'a str,
    pub start: String,
    pub start_unix: i64,
    pub seconds: i64,
    /// The counts: null for a minute that could not be read (`qctl web` only).
    pub done: Option<u64>,
    pub failed: Option<u64>,
    pub retried: Option<u64>,
    pub dead: Option<u64>,
    pub timed_runs: Option<u64>,
    pub run_ms: Option<u64>,
    pub p50_ms: serde_json::Value,
    pub p95_ms: serde_json::Value,
    pub p99_ms: serde_json::Value,
}

impl<'a> StepJson<'a> {
    /// The step of `queue` starting at `start`, `step_s` seconds long; None: it could not be
    /// read.
    pub fn new(queue: &'a str, start: i64, step_s: i64, tally: Option<&Tally>) -> StepJson<'a> {
        let [p50, p95, p99] =
            PERCENTILES.map(|(q, _)| millis_json(tally.and_then(|t| t.percentile(q))));
        StepJson {
            queue,
            start: super::jobs::describe_time(start as f64),
            start_unix: start,
            seconds: step_s,
            done: tally.map(|t| t.completed),
            failed: tally.map(|t| t.failed),
            retried: tally.map(|t| t.retried),
            dead: tally.map(|t| t.killed),
            timed_runs: tally.map(Tally::timed_runs),
            run_ms: tally.map(|t| t.run_ms),
            p50_ms: p50,
            p95_ms: p95,
            p99_ms: p99,
        }
    }
}

/// The JSON of one step of `queue`'s history, as `stats --history --json` prints it.
pub fn step_json(queue: &str, step: &Step, step_s: i64) -> serde_json::Value {
    serde_json::to_value(StepJson::new(queue, step.start, step_s, Some(&step.tally)))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(completed: u64) -> Option<Tally> {
        Some(Tally {
            completed,
            ..Tally::default()
        })
    }

    #[test]
    fn the_current_minute_and_the_one_before_are_read_at_every_reading() {
        let kept = Kept {
            first: 600,
            read_in: 780,
            minutes: vec![tally(1), tally(2), tally(3), tally(4)].into(),
        };
        // In the same minute: 720 and 780 again, the others kept.
        assert_eq!(kept.over(600, 780), Some(&tally(1)));
        assert_eq!(kept.over(660, 780), Some(&tally(2)));
        assert_eq!(kept.over(720, 780), None);
        assert_eq!(kept.over(780, 780), None);
        // A minute on: 720 was read as the one before, and is kept; 780 was current then.
        assert_eq!(kept.over(720, 840), Some(&tally(3)));
        assert_eq!(kept.over(780, 840), None);
        assert_eq!(kept.over(540, 840), None, "before the minutes read");
        assert_eq!(kept.over(840, 900), None, "after them");
        // The server's clock went back: nothing after its minute before is kept.
        assert_eq!(kept.over(660, 720), None);
    }
}
