//! The history qctl consumers keep of each queue: per minute, the jobs completed, failed,
//! retried and killed, and a histogram of how long their handlers ran, in the hash
//! `NAME:history:<minute>` (the minute's start in unix seconds). The settle scripts (ack,
//! retry, kill) add to it in the calls they make anyway, so keeping it costs no request;
//! consumers on many hosts add into the same minute. Each minute expires [`KEPT`] after its
//! last write. `NAME:stats` keeps the same counters and histogram since the queue began, for
//! Prometheus (`qctl metrics`).
//!
//! Go CurlyQ consumers write none of it: their jobs are not in the history.

use std::time::Duration;

use super::conn::Redis;
use super::error::Error;
use super::keys::QueueKeys;

/// How long a minute of history is kept after its last write.
pub const KEPT: Duration = Duration::from_secs(7 * 24 * 3600);

/// The upper bounds (milliseconds, inclusive) of the run-time buckets, log-spaced 1-2-5 from
/// 1 ms to 1 h; a last bucket holds longer runs.
pub const BOUNDS_MS: [u64; 21] = [
    1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000,
    200_000, 500_000, 1_000_000, 2_000_000, 3_600_000,
];

/// How many run-time buckets there are: one per bound and one for longer runs.
pub const BUCKETS: usize = BOUNDS_MS.len() + 1;

/// The counters of a minute, as hash fields.
const COUNTERS: [&str; 5] = ["completed", "failed", "retried", "killed", "run_ms"];

/// The bucket a run of `ms` milliseconds falls in.
pub fn bucket(ms: u64) -> usize {
    BOUNDS_MS.partition_point(|&bound| bound < ms)
}

/// The hash field of bucket `i`: `ms:<bound>`, and `ms:inf` for runs longer than an hour.
pub fn field(i: usize) -> String {
    match BOUNDS_MS.get(i) {
        Some(bound) => format!("ms:{bound}"),
        None => "ms:inf".to_string(),
    }
}

/// The hash field of the bucket of a run of `ms` milliseconds.
pub fn field_of(ms: u64) -> String {
    field(bucket(ms))
}

/// The start (unix seconds) of the minute holding `t`.
pub fn minute_of(t: f64) -> i64 {
    ((t / 60.0).floor() as i64).saturating_mul(60)
}

/// The start of the oldest minute that may still be kept at `now`: every minute before it
/// was last written more than [`KEPT`] ago and has expired.
pub fn oldest_kept(now: f64) -> i64 {
    minute_of(now - KEPT.as_secs_f64())
}

/// How much of a span asked for the history holds: at most [`KEPT`].
pub fn kept(span: Duration) -> Duration {
    span.min(KEPT)
}

/// What happened in a span of time.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Jobs acked after their handler succeeded.
    pub completed: u64,
    /// Runs that failed (retried + killed; a damaged record counts as a failed run).
    pub failed: u64,
    /// Failed runs scheduled to run again.
    pub retried: u64,
    /// Jobs moved to the dead set: out of retries, or their record could not be read.
    pub killed: u64,
    /// The run time of every counted run, summed (milliseconds).
    pub run_ms: u64,
    /// Runs per bucket of [`BOUNDS_MS`] (not cumulative).
    pub runs: [u64; BUCKETS],
}

impl Tally {
    pub fn add(&mut self, other: &Tally) {
        self.completed += other.completed;
        self.failed += other.failed;
        self.retried += other.retried;
        self.killed += other.killed;
        self.run_ms += other.run_ms;
        for (mine, theirs) in self.runs.iter_mut().zip(other.runs) {
            *mine += theirs;
        }
    }

    /// How many runs the histogram holds.
    pub fn timed_runs(&self) -> u64 {
        self.runs.iter().sum()
    }

    /// The run time (milliseconds) below which the fraction `q` of runs fell, estimated
    /// from the buckets: log-linear within the bucket that holds it (linear in the first);
    /// infinite when it falls among the runs longer than the last bound. None when no run
    /// was timed.
    pub fn percentile(&self, q: f64) -> Option<f64> {
        let total = self.timed_runs();
        if total == 0 {
            return None;
        }
        let target = (q.clamp(0.0, 1.0) * total as f64).max(f64::MIN_POSITIVE);
        let mut below = 0u64;
        for (i, &n) in self.runs.iter().enumerate() {
            if n == 0 || ((below + n) as f64) < target {
                below += n;
                continue;
            }
            let Some(&upper) = BOUNDS_MS.get(i) else {
                return Some(f64::INFINITY);
            };
            let frac = (target - below as f64) / n as f64;
            return Some(match i.checked_sub(1).map(|j| BOUNDS_MS[j] as f64) {
                None => upper as f64 * frac,
                Some(lower) => lower * (upper as f64 / lower).powf(frac),
            });
        }
        Some(f64::INFINITY)
    }

    /// Failed runs among all runs, 0 to 1; None when nothing ran.
    pub fn failure_rate(&self) -> Option<f64> {
        let runs = self.completed + self.failed;
        (runs > 0).then(|| self.failed as f64 / runs as f64)
    }
}

/// Every field a minute (and `NAME:stats`) may hold, counters first.
pub fn fields() -> Vec<String> {
    COUNTERS
        .iter()
        .map(|c| c.to_string())
        .chain((0..BUCKETS).map(field))
        .collect()
}

/// Reads the values of [`fields`] into a tally; a value that is no count is an error naming
/// the key and the field.
fn tally_of(server: &str, key: &str, values: Vec<Option<String>>) -> Result<Tally, Error> {
    let mut tally = Tally::default();
    for (i, (name, value)) in fields().iter().zip(values).enumerate() {
        let Some(value) = value else { continue };
        let n: u64 = value.parse().map_err(|_| Error::Redis {
            server: server.to_string(),
            op: format!("HMGET {key}"),
            reason: format!(
                "BADVALUE {key} field {name} holds {:?}, not a count",
                super::text::printable(&value.chars().take(40).collect::<String>())
            ),
            code: Some("BADVALUE".into()),
        })?;
        match i {
            0 => tally.completed = n,
            1 => tally.failed = n,
            2 => tally.retried = n,
            3 => tally.killed = n,
            4 => tally.run_ms = n,
            _ => tally.runs[i - COUNTERS.len()] = n,
        }
    }
    Ok(tally)
}

/// The tally of the values of [`fields`] as HMGET answered them; None when one is no count.
pub fn parse(values: Vec<Option<String>>) -> Option<Tally> {
    tally_of("", "", values).ok()
}

/// How many minute keys one pipeline reads.
const MINUTES_PER_CALL: usize = 500;

/// The tally of every minute from the one holding `from` to the one holding `to`, in order,
/// each with its start; minutes with no key read as empty. Minutes that expired by `to` (see
/// [`oldest_kept`]) are neither read nor returned, so a span of any length costs at most the
/// minutes of a week.
pub async fn minutes(
    redis: &mut Redis,
    keys: &QueueKeys,
    from: f64,
    to: f64,
) -> Result<Vec<(i64, Tally)>, Error> {
    let names = fields();
    let first = minute_of(from).max(oldest_kept(to));
    let starts: Vec<i64> = (first..=minute_of(to)).step_by(60).collect();
    let mut out = Vec::with_capacity(starts.len());
    for chunk in starts.chunks(MINUTES_PER_CALL) {
        let mut pipe = redis::pipe();
        pipe.ignore_errors();
        for start in chunk {
            pipe.cmd("HMGET").arg(keys.history(*start)).arg(&names);
        }
        let replies = redis
            .pipeline_each(&pipe, |i| format!("HMGET {}", keys.history(chunk[i])))
            .await?;
        // The first minute that cannot be read, in order of time, is the error.
        for (start, reply) in chunk.iter().zip(replies) {
            let key = keys.history(*start);
            let values: Vec<Option<String>> = redis::from_redis_value(reply?)
                .map_err(|e| redis.error(format!("reading HMGET {key}"), e.into()))?;
            out.push((*start, tally_of(redis.server(), &key, values)?));
        }
    }
    Ok(out)
}

/// The last `count` minutes (the one holding `now` last) of each of `queues`, oldest first,
/// one round trip per batch of queues; a minute whose key cannot be read (of another type,
/// holding no count) is None.
pub async fn recent(
    redis: &mut Redis,
    queues: &[String],
    now: f64,
    count: usize,
) -> Result<std::collections::HashMap<String, Vec<Option<Tally>>>, Error> {
    let names = fields();
    let last = minute_of(now);
    let starts: Vec<i64> = (0..count as i64).rev().map(|i| last - 60 * i).collect();
    let mut out = std::collections::HashMap::new();
    for batch in super::queues::batches(queues, redis.is_cluster()) {
        let mut pipe = redis::pipe();
        pipe.ignore_errors();
        for queue in &batch {
            let keys = QueueKeys::new(queue);
            for start in &starts {
                pipe.cmd("HMGET").arg(keys.history(*start)).arg(&names);
            }
        }
        let replies = redis
            .pipeline_each(&pipe, |i| {
                let keys = QueueKeys::new(&batch[i / count.max(1)]);
                format!("HMGET {}", keys.history(starts[i % count.max(1)]))
            })
            .await?;
        let mut replies = replies.into_iter();
        for queue in batch {
            let minutes = replies
                .by_ref()
                .take(count)
                .map(|r| match r {
                    Ok(v) => redis::from_redis_value::<Vec<Option<String>>>(v)
                        .ok()
                        .and_then(parse),
                    Err(_) => None,
                })
                .collect();
            out.insert(queue, minutes);
        }
    }
    Ok(out)
}

/// The tally since the queue began, from `NAME:stats`.
pub async fn total(redis: &mut Redis, keys: &QueueKeys) -> Result<Tally, Error> {
    let values: Vec<Option<String>> = redis
        .query(
            redis::cmd("HMGET").arg(&keys.stats).arg(fields()),
            format_args!("HMGET {}", keys.stats),
        )
        .await?;
    tally_of(redis.server(), &keys.stats, values)
}

/// One step of a history: what happened from `start` (unix seconds) for the step's length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub start: i64,
    pub tally: Tally,
}

/// The last `span` up to `now`, in steps of `step` (a whole number of minutes) aligned to
/// multiples of it since the epoch: as many steps as `span` holds, the last one the step
/// holding `now` (still going on). A span longer than what is kept is cut to it ([`kept`]),
/// and only the minutes still kept are read: the cost is bounded by a week of minutes,
/// whatever the span and the step.
pub async fn steps(
    redis: &mut Redis,
    keys: &QueueKeys,
    now: f64,
    span: Duration,
    step: Duration,
) -> Result<Vec<Step>, Error> {
    let step_s = step_seconds(step);
    // At most a week of steps: two or more only when a step is shorter than the span, so
    // that the steps before the last never reach before the epoch.
    let count = kept(span).as_secs().div_ceil(step_s as u64).max(1) as i64;
    let last = (now as i64).div_euclid(step_s) * step_s;
    let first = last - (count - 1) * step_s;
    let minutes = minutes(redis, keys, first as f64, now).await?;
    let mut out: Vec<Step> = (0..count)
        .map(|i| Step {
            start: first + i * step_s,
            tally: Tally::default(),
        })
        .collect();
    for (start, tally) in minutes {
        let i = ((start - first) / step_s) as usize;
        if let Some(step) = out.get_mut(i) {
            step.tally.add(&tally);
        }
    }
    Ok(out)
}

/// The length of a step in seconds: whole minutes, at least one; a step of any length (up
/// to what an i64 of seconds holds) is computed without overflow.
pub fn step_seconds(step: Duration) -> i64 {
    let minutes = (step.as_secs() / 60).clamp(1, i64::MAX as u64 / 60);
    minutes as i64 * 60
}

/// The step that shows `span` in about `rows` rows: the smallest of 1m, 2m, 5m, 10m, 15m,
/// 30m, 1h, 2h, 3h, 6h, 12h and 1d that needs no more.
pub fn step_for(span: Duration, rows: u64) -> Duration {
    const STEPS_MIN: [u64; 12] = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440];
    let minutes = STEPS_MIN
        .iter()
        .copied()
        .find(|m| span.as_secs().div_ceil(m * 60) <= rows)
        .unwrap_or(1440);
    Duration::from_secs(minutes * 60)
}

/// What the history cannot know about `queue`: the jobs its Go CurlyQ consumers run (they
/// keep no history). None when every live consumer is a qctl consumer.
pub async fn blind_spot(redis: &mut Redis, keys: &QueueKeys) -> Result<Option<String>, Error> {
    let list = super::consumers::list(redis, keys).await?;
    let described = super::consumers::describe(redis, keys, &list).await?;
    let go = list
        .iter()
        .zip(&described)
        .filter(|(c, d)| c.in_flight.is_some() && d.is_none())
        .count();
    Ok((go > 0).then(|| {
        let go = go as u64;
        format!(
            "{} of {} {} no history ({}): the jobs {} run are not counted here",
            super::text::plural(go, "consumer"),
            super::text::printable(&keys.name),
            super::text::agree(go, "keeps", "keep"),
            super::text::agree(go, "a Go CurlyQ consumer", "Go CurlyQ consumers"),
            super::text::agree(go, "it", "they")
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_hold_their_upper_bound() {
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(1), 0);
        assert_eq!(bucket(2), 1);
        assert_eq!(bucket(3), 2);
        assert_eq!(bucket(10), 3);
        assert_eq!(bucket(11), 4);
        assert_eq!(bucket(3_600_000), BUCKETS - 2);
        assert_eq!(bucket(3_600_001), BUCKETS - 1);
        assert_eq!(field(3), "ms:10");
        assert_eq!(field(BUCKETS - 1), "ms:inf");
        assert_eq!(field_of(45), "ms:50");
    }

    #[test]
    fn percentiles_come_from_the_bucket_that_holds_them() {
        let mut t = Tally::default();
        assert_eq!(t.percentile(0.5), None);
        // 60 runs in (10, 20], 30 in (20, 50], 10 in (100, 200].
        t.runs[bucket(15)] = 60;
        t.runs[bucket(45)] = 30;
        t.runs[bucket(150)] = 10;
        let p50 = t.percentile(0.5).unwrap();
        assert!(p50 > 10.0 && p50 <= 20.0, "{p50}");
        let p95 = t.percentile(0.95).unwrap();
        assert!(p95 > 100.0 && p95 <= 200.0, "{p95}");
        assert_eq!(t.percentile(1.0), Some(200.0));
        let p90 = t.percentile(0.9).unwrap();
        assert!((p90 - 50.0).abs() < 1e-9, "{p90}");
        t.runs[BUCKETS - 1] = 1000;
        assert_eq!(t.percentile(0.99), Some(f64::INFINITY));
        let mut first = Tally::default();
        first.runs[0] = 4;
        assert_eq!(first.percentile(0.5), Some(0.5));
    }

    #[test]
    fn steps_are_chosen_to_fit_the_rows() {
        let h = |n: u64| Duration::from_secs(n * 3600);
        assert_eq!(step_for(h(6), 24), Duration::from_secs(15 * 60));
        assert_eq!(step_for(h(1), 24), Duration::from_secs(5 * 60));
        assert_eq!(
            step_for(Duration::from_secs(600), 24),
            Duration::from_secs(60)
        );
        assert_eq!(step_for(h(24 * 7), 24), Duration::from_secs(12 * 3600));
        assert_eq!(step_for(h(24 * 70), 24), Duration::from_secs(24 * 3600));
    }

    #[test]
    fn minutes_start_on_the_minute() {
        assert_eq!(minute_of(119.9), 60);
        assert_eq!(minute_of(120.0), 120);
        assert_eq!(minute_of(1_795_000_000.5), 1_794_999_960);
    }
}
