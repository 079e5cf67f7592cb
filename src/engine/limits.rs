//! How fast and how many jobs of a queue may start. The limits every qctl consumer of a queue
//! obeys live in `NAME:limits` (`qctl limit`); lua/reserve.lua applies them as it reserves:
//! the running cap counts the jobs in flight at live consumers (a consumer that dies gives its
//! share back when its heartbeat is older than the orphan cut-off, as its jobs are recovered),
//! and the rate is a token bucket in `NAME:bucket`. A consumer's own `--rate` is a token
//! bucket of its own ([`Bucket`]).

use std::time::{Duration, Instant};

use serde::Serialize;

use super::conn::Redis;
use super::error::Error;
use super::keys::QueueKeys;
use super::text::{agree, plural};

/// A rate: so many jobs per interval (`100/s`, `30/m`, `500/h`).
#[derive(Clone, Debug, PartialEq)]
pub struct Rate {
    pub jobs: f64,
    pub per: Duration,
    /// As it was written.
    pub text: String,
}

impl Rate {
    /// Reads `N/s`, `N/m` or `N/h` (N a number, 0 or more; `N/sec`, `N/min`, `N/hour` too).
    pub fn parse(text: &str) -> Result<Rate, String> {
        let bad = || {
            format!("invalid rate {text:?}: expected jobs per interval, as in 100/s, 30/m or 500/h")
        };
        let (n, unit) = text.trim().split_once('/').ok_or_else(bad)?;
        let jobs: f64 = n.trim().parse().map_err(|_| bad())?;
        if !jobs.is_finite() || jobs < 0.0 {
            return Err(bad());
        }
        let per = match unit.trim() {
            "s" | "sec" | "second" => Duration::from_secs(1),
            "m" | "min" | "minute" => Duration::from_secs(60),
            "h" | "hour" => Duration::from_secs(3600),
            _ => return Err(bad()),
        };
        Ok(Rate {
            jobs,
            per,
            text: text.trim().to_string(),
        })
    }

    pub fn per_second(&self) -> f64 {
        self.jobs / self.per.as_secs_f64()
    }
}

/// A token bucket: `per_second` tokens a second, at most `burst` held. A full bucket lets
/// `burst` jobs start at once; an empty one one job every 1/`per_second` seconds.
#[derive(Debug)]
pub struct Bucket {
    per_second: f64,
    burst: f64,
    tokens: f64,
    at: Instant,
}

impl Bucket {
    /// A full bucket.
    pub fn new(per_second: f64, burst: u32) -> Bucket {
        let burst = f64::from(burst.max(1));
        Bucket {
            per_second,
            burst,
            tokens: burst,
            at: Instant::now(),
        }
    }

    fn refill(&mut self) {
        let now = Instant::now();
        let elapsed = now.duration_since(self.at).as_secs_f64();
        self.tokens = (self.tokens + elapsed * self.per_second).min(self.burst);
        self.at = now;
    }

    /// How many jobs may start now; with none, how long until one may.
    pub fn available(&mut self) -> Result<usize, Duration> {
        self.refill();
        let whole = self.tokens.floor();
        if whole >= 1.0 {
            return Ok(whole as usize);
        }
        if self.per_second <= 0.0 {
            return Err(Duration::from_secs(3600));
        }
        Err(Duration::from_secs_f64(
            (1.0 - self.tokens) / self.per_second,
        ))
    }

    /// Takes `n` tokens (jobs that were reserved). Taking one that has not come yet books it:
    /// the bucket goes below 0 and the wait [`Bucket::available`] gives counts from there.
    pub fn spend(&mut self, n: usize) {
        self.refill();
        self.tokens -= n as f64;
    }

    /// Gives back `n` tokens taken for jobs that were not there.
    pub fn refund(&mut self, n: usize) {
        self.tokens = (self.tokens + n as f64).min(self.burst);
    }
}

/// The limits of a queue, as `NAME:limits` holds them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Limits {
    /// Jobs per second, and as it was written.
    pub rate: Option<f64>,
    pub rate_text: Option<String>,
    /// How many jobs the rate lets start at once after a quiet spell.
    pub burst: Option<u64>,
    /// How many jobs may be in flight at once at live consumers.
    pub max_running: Option<u64>,
}

impl Limits {
    pub fn is_empty(&self) -> bool {
        self.rate.is_none() && self.max_running.is_none()
    }

    /// Whether no job may start at all: a cap or a rate of 0, which acts like a pause.
    pub fn stop_all(&self) -> bool {
        self.max_running == Some(0) || self.rate == Some(0.0)
    }
}

/// Reads a queue's limits.
pub async fn read(redis: &mut Redis, keys: &QueueKeys) -> Result<Limits, Error> {
    let key = &keys.limits;
    let (rate, rate_text, burst, max_running): (
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
    ) = redis
        .query(
            redis::cmd("HMGET")
                .arg(key)
                .arg("rate")
                .arg("rate_text")
                .arg("burst")
                .arg("max_running"),
            format!("HMGET {key}"),
        )
        .await?;
    let number = |field: &str, v: Option<String>| -> Result<Option<f64>, Error> {
        v.map(|s| {
            s.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| {
                    Error::BadInput(format!(
                        "{key} field {field} holds {s:?}, not a number of 0 or more; set it again \
                         with qctl limit"
                    ))
                })
        })
        .transpose()
    };
    Ok(Limits {
        rate: number("rate", rate)?,
        rate_text,
        burst: number("burst", burst)?.map(|b| b as u64),
        max_running: number("max_running", max_running)?.map(|m| m as u64),
    })
}

/// A change of a queue's limits: each field set (Some) or left (None); `clear` removes every
/// limit (and the rate's bucket) first.
#[derive(Clone, Debug, Default)]
pub struct Change {
    pub rate: Option<Rate>,
    pub burst: Option<u64>,
    pub max_running: Option<u64>,
    pub no_rate: bool,
    pub no_max_running: bool,
    pub clear: bool,
}

/// Applies `change` in one transaction: consumers never see half of it.
pub async fn set(redis: &mut Redis, keys: &QueueKeys, change: &Change) -> Result<(), Error> {
    let mut pipe = redis::pipe();
    pipe.atomic();
    if change.clear {
        pipe.del(&keys.limits).ignore().del(&keys.bucket).ignore();
    }
    let mut fields: Vec<(&str, String)> = Vec::new();
    if let Some(rate) = &change.rate {
        fields.push(("rate", rate.per_second().to_string()));
        fields.push(("rate_text", rate.text.clone()));
    }
    if let Some(burst) = change.burst {
        fields.push(("burst", burst.to_string()));
    }
    if let Some(max) = change.max_running {
        fields.push(("max_running", max.to_string()));
    }
    if !fields.is_empty() {
        // HSET with many fields (HMSET is not in the least-privilege recipe).
        let mut hset = redis::cmd("HSET");
        hset.arg(&keys.limits);
        for (field, value) in &fields {
            hset.arg(*field).arg(value);
        }
        pipe.add_command(hset).ignore();
    }
    if change.no_rate {
        pipe.hdel(&keys.limits, &["rate", "rate_text", "burst"])
            .ignore()
            .del(&keys.bucket)
            .ignore();
    }
    if change.no_max_running {
        pipe.hdel(&keys.limits, "max_running").ignore();
    }
    if change.rate.is_some() || change.burst.is_some() {
        // A new rate starts from a full bucket.
        pipe.del(&keys.bucket).ignore();
    }
    let _: () = redis
        .pipeline(&pipe, format!("MULTI, HSET {}, EXEC", keys.limits))
        .await?;
    Ok(())
}

/// How much of the limits is in use, and who obeys them.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Usage {
    /// Jobs in flight at live consumers (what the running cap counts).
    pub running: u64,
    /// Tokens in the shared rate's bucket now (None: no rate, or none taken yet: full).
    pub tokens: Option<f64>,
    /// Live consumers that obey the limits (qctl's, which describe themselves).
    pub qctl_consumers: u64,
    /// Live consumers that do not (Go CurlyQ's: registered without a description).
    pub other_consumers: u64,
}

/// Reads what the limits count now: live consumers are those whose heartbeat is within
/// `orphan_after` of the server's clock.
pub async fn usage(
    redis: &mut Redis,
    keys: &QueueKeys,
    limits: &Limits,
    orphan_after: Duration,
) -> Result<Usage, Error> {
    let now = redis.server_time().await?;
    let live: Vec<String> = redis
        .query(
            redis::cmd("ZRANGEBYSCORE")
                .arg(&keys.consumers)
                .arg(now - orphan_after.as_secs_f64())
                .arg("+inf"),
            format!("ZRANGEBYSCORE {}", keys.consumers),
        )
        .await?;
    let live: Vec<String> = live
        .into_iter()
        .filter(|k| keys.is_inflight_key(k))
        .collect();
    let mut usage = Usage::default();
    if !live.is_empty() {
        let mut pipe = redis::pipe();
        for key in &live {
            let uuid = &key[key.len() - 36..];
            pipe.scard(key).exists(keys.consumer_info(uuid));
        }
        let replies: Vec<(u64, bool)> = redis
            .pipeline(
                &pipe,
                format!("SCARD and EXISTS of the consumers of {:?}", keys.name),
            )
            .await?;
        for (held, described) in replies {
            usage.running += held;
            if described {
                usage.qctl_consumers += 1;
            } else {
                usage.other_consumers += 1;
            }
        }
    }
    if let Some(rate) = limits.rate {
        let (tokens, at): (Option<f64>, Option<f64>) = redis
            .query(
                redis::cmd("HMGET")
                    .arg(&keys.bucket)
                    .arg("tokens")
                    .arg("at"),
                format!("HMGET {}", keys.bucket),
            )
            .await?;
        let burst = limits.burst.unwrap_or(1).max(1) as f64;
        usage.tokens = Some(match (tokens, at) {
            (Some(t), Some(at)) => (t + (now - at).max(0.0) * rate).min(burst),
            _ => burst,
        });
    }
    Ok(usage)
}

/// The limits and their use as `qctl limit QUEUE --json` writes them.
pub fn json(queue: &str, limits: &Limits, usage: &Usage) -> serde_json::Value {
    serde_json::json!({
        "queue": queue,
        "rate": limits.rate,
        "rate_text": limits.rate_text,
        // The burst in force: 1 when a rate was set without one.
        "burst": limits.rate.map(|_| limits.burst.unwrap_or(1)),
        "max_running": limits.max_running,
        "stops_all": limits.stop_all(),
        "running": usage.running,
        "tokens": usage.tokens,
        "qctl_consumers": usage.qctl_consumers,
        "other_consumers": usage.other_consumers,
    })
}

/// The limits and their use, a line each.
pub fn describe(queue: &str, limits: &Limits, usage: &Usage) -> Vec<String> {
    if limits.is_empty() {
        return vec![format!(
            "queue {queue:?} has no limits: its consumers start jobs as fast as they can"
        )];
    }
    let mut lines = vec![format!(
        "limits of queue {queue:?}, obeyed by every qctl consumer:"
    )];
    if let Some(rate) = limits.rate {
        let text = limits
            .rate_text
            .clone()
            .unwrap_or_else(|| format!("{rate}/s"));
        let burst = limits.burst.unwrap_or(1);
        let tokens = usage
            .tokens
            .map(|t| format!("; {t:.1} of {burst} may start now"))
            .unwrap_or_default();
        lines.push(format!("  rate         {text} (burst {burst}){tokens}"));
    }
    if let Some(max) = limits.max_running {
        lines.push(format!(
            "  max running  {max}; {} in flight at {}",
            usage.running,
            plural(
                usage.qctl_consumers + usage.other_consumers,
                "live consumer"
            )
        ));
    }
    if limits.stop_all() {
        lines.push("  a cap or rate of 0: no job starts, as if the queue were paused".to_string());
    }
    lines
}

/// The warning when consumers that ignore the limits are seen.
pub fn ignored(keys: &QueueKeys, usage: &Usage) -> String {
    let n = usage.other_consumers;
    format!(
        "{} of queue {:?} {} not qctl's (Go CurlyQ consumers, which register without a \
         description in {}:consumer:<uuid>): {} these limits; {} jobs still count against the cap",
        plural(n, "consumer"),
        keys.name,
        agree(n, "is", "are"),
        keys.name,
        agree(n, "it ignores", "they ignore"),
        agree(n, "its", "their")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_as_jobs_per_interval() {
        assert_eq!(Rate::parse("100/s").unwrap().per_second(), 100.0);
        assert_eq!(Rate::parse("30/m").unwrap().per_second(), 0.5);
        assert_eq!(Rate::parse("3600/h").unwrap().per_second(), 1.0);
        assert_eq!(Rate::parse("0.5/s").unwrap().per_second(), 0.5);
        assert_eq!(Rate::parse("0/s").unwrap().per_second(), 0.0);
        for bad in ["100", "100/d", "-1/s", "x/s", "NaN/s", "inf/s", ""] {
            let err = Rate::parse(bad).unwrap_err();
            assert!(err.contains("100/s"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_bucket_lets_its_burst_start_then_one_per_interval() {
        let mut b = Bucket::new(10.0, 3);
        assert_eq!(b.available(), Ok(3));
        b.spend(3);
        let wait = b.available().unwrap_err();
        assert!(wait > Duration::from_millis(80) && wait <= Duration::from_millis(100));
        std::thread::sleep(Duration::from_millis(110));
        assert_eq!(b.available(), Ok(1));
    }
}
