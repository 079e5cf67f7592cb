//! Consumers: registration and heartbeats in `NAME:consumers`, recovery of the
//! reservations of consumers whose heartbeat expired (orphans), and the words the commands
//! and the views show a consumer in (its name, state, host and command).

use super::conn::Redis;
use super::error::Error;
use super::keys::QueueKeys;
use super::scripts::{self, Rights};
use super::text::{printable, relative, shell_quote};

/// Every command a consumer sends, each with its key, to be checked at its start before it
/// writes anything. `inflight`, its own in-flight key, also stands for those of the consumers
/// whose jobs it recovers.
pub fn rights(keys: &QueueKeys, uuid: &str) -> Rights {
    let inflight = &keys.inflight(uuid);
    let info = keys.consumer_info(uuid);
    let running = keys.consumer_running(uuid);
    let minute = keys.history(super::history::minute_of(super::now()));
    let mut rights = Rights::new(format!("consuming queue {:?}", keys.name));
    rights
        .script(
            &scripts::RESERVE,
            &super::inflight::reserve_keys(keys, inflight),
        )
        .script(
            &scripts::ACK,
            &super::inflight::ack_keys(keys, inflight, &minute),
        )
        .script(
            &scripts::RETRY,
            &[
                inflight,
                &keys.scheduled,
                &keys.data,
                &keys.failures,
                &keys.stats,
                &keys.events,
                &minute,
            ],
        )
        .script(
            &scripts::KILL,
            &[
                inflight,
                &keys.dead,
                &keys.data,
                &keys.failures,
                &keys.stats,
                &minute,
            ],
        )
        .script(&scripts::REQUEUE, &[inflight, &keys.active, &keys.signal])
        .script(
            &scripts::PROMOTE,
            &[&keys.scheduled, &keys.active, &keys.signal],
        )
        .script(
            &scripts::RECOVER,
            &[
                &keys.consumers,
                &keys.active,
                &keys.signal,
                inflight,
                &info,
                &running,
            ],
        )
        .script(
            &scripts::DEREGISTER,
            &[&keys.consumers, inflight, &info, &running],
        )
        .command("HSET", Some(&info))
        .command("PEXPIRE", Some(&info))
        .command("HSET", Some(&running))
        .command("HDEL", Some(&running))
        .command("PEXPIRE", Some(&running))
        .command("ZADD", Some(&keys.consumers))
        .command("ZSCORE", Some(&keys.consumers))
        .command("ZRANGEBYSCORE", Some(&keys.consumers))
        .command("ZRANGE", Some(&keys.consumers))
        .command("SCARD", Some(inflight))
        .command("SMEMBERS", Some(inflight))
        // Where its jobs went when its entry is gone (`consumer::heartbeat`).
        .command("HEXISTS", Some(&keys.data))
        .command("LLEN", Some(&keys.active))
        .command("EXISTS", Some(&keys.paused))
        // A drain's retries and what a bounded run left (`consumer::Handle::left`).
        .command("ZSCORE", Some(&keys.scheduled))
        .command("ZCARD", Some(&keys.scheduled))
        .command("ZRANGE", Some(&keys.scheduled))
        .command("BRPOPLPUSH", Some(&keys.signal))
        // Orders, and answers to them (`consumer::orders`).
        .command("BLPOP", Some(&keys.consumer_orders(uuid)))
        .command("RPUSH", Some(&keys.consumer_answers(uuid, uuid)))
        .command("PEXPIRE", Some(&keys.consumer_answers(uuid, uuid)));
    rights
}

/// Registers the consumer or renews its heartbeat (score = now).
pub async fn heartbeat(
    redis: &mut Redis,
    keys: &QueueKeys,
    inflight: &str,
    now: f64,
) -> Result<(), Error> {
    let _: i64 = redis
        .query(
            redis::cmd("ZADD")
                .arg(&keys.consumers)
                .arg(now)
                .arg(inflight),
            format!("heartbeat in {}", keys.consumers),
        )
        .await?;
    Ok(())
}

/// Renews the heartbeat of a registered consumer without registering it again, the time to
/// live of its description ([`description_ttl`] of `lease`) and the lease of its list of
/// running jobs; false when its entry is gone.
pub async fn renew(
    redis: &mut Redis,
    keys: &QueueKeys,
    uuid: &str,
    now: f64,
    lease: std::time::Duration,
) -> Result<bool, Error> {
    let inflight = keys.inflight(uuid);
    let lease_ms = lease.as_millis().max(1) as u64;
    let kept_ms = description_ttl(lease).as_millis() as u64;
    let mut pipe = redis::pipe();
    pipe.cmd("ZADD")
        .arg(&keys.consumers)
        .arg("XX")
        .arg(now)
        .arg(&inflight)
        .ignore()
        .cmd("PEXPIRE")
        .arg(keys.consumer_info(uuid))
        .arg(kept_ms)
        .ignore()
        .cmd("PEXPIRE")
        .arg(keys.consumer_running(uuid))
        .arg(lease_ms)
        .ignore()
        .zscore(&keys.consumers, &inflight);
    let (score,): (Option<f64>,) = redis
        .pipeline(&pipe, format!("heartbeat in {}", keys.consumers))
        .await?;
    Ok(score.is_some())
}

/// Leaves `NAME:consumers` if no reservations remain, taking the consumer's description
/// with it; true if it left.
pub async fn deregister(redis: &mut Redis, keys: &QueueKeys, uuid: &str) -> Result<bool, Error> {
    let done: i64 = scripts::DEREGISTER
        .call(&[
            &keys.consumers,
            &keys.inflight(uuid),
            &keys.consumer_info(uuid),
            &keys.consumer_running(uuid),
        ])
        .invoke(redis)
        .await?;
    Ok(done == 1)
}

/// What one pass of orphan recovery did.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Recovery {
    /// (consumer key, ids moved back to `NAME:active`).
    pub recovered: Vec<(String, u64)>,
    /// (member, why it was left alone).
    pub skipped: Vec<(String, String)>,
}

impl Recovery {
    pub fn moved(&self) -> u64 {
        self.recovered.iter().map(|(_, n)| n).sum()
    }

    /// What it did, for the record of changes: `from 2 consumers: KEY (3), KEY (1)` (the
    /// first five).
    pub fn detail(&self) -> String {
        format!(
            "from {}: {}",
            super::text::plural(self.recovered.len() as u64, "consumer"),
            self.recovered
                .iter()
                .take(5)
                .map(|(c, n)| format!("{c} ({n})"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Why `consumer` is left alone by a recovery of orphans, if it is one to look at: None when
/// it is not (its heartbeat is newer than `cutoff`), `Some(None)` when its jobs go back,
/// `Some(Some(why))` when it is skipped (a member that is no consumer of the queue, or a
/// heartbeat ahead of the server's clock).
pub fn orphaned(consumer: &ConsumerInfo, now: f64, cutoff: f64) -> Option<Option<String>> {
    let ahead = consumer.heartbeat > now + AHEAD_TOLERANCE;
    if consumer.heartbeat > cutoff && !ahead {
        return None;
    }
    Some(consumer.problem.clone().or_else(|| {
        ahead.then(|| {
            format!(
                "{}; a running qctl consumer recovers it once the heartbeat stays unchanged for --orphan-after",
                ahead_note(consumer.heartbeat, now)
            )
        })
    }))
}

/// Below this age a heartbeat looks alive: the default `--orphan-after`, and twice the
/// heartbeat interval of Go CurlyQ consumers.
pub const LOOKS_ALIVE: std::time::Duration = std::time::Duration::from_secs(120);

/// What a recovery of the jobs of expired consumers did ([`recover_expired`]).
#[derive(Debug, Default)]
pub struct Recovered {
    pub report: Recovery,
    /// The error that ended it, after what the report says was done.
    pub failure: Option<Error>,
    /// Whether the last call's move is not known: a forced stop did not wait for its answer,
    /// or its reply was lost and what is left could not be read.
    pub unconfirmed: bool,
    /// Whether a stop request ended it before it was through.
    pub cut_short: bool,
}

/// Returns the in-flight jobs of each of `members` (expired consumers of the queue) to
/// `NAME:active`, a bounded call at a time, each call looking at the heartbeat again (a
/// consumer that beat since is left alone). `requested` ends it at a clean point between
/// calls; `forced` stops waiting for the call in flight. `left` is each consumer's count
/// of jobs when it was planned (what a lost reply is measured against).
pub async fn recover_expired(
    redis: &mut Redis,
    keys: &QueueKeys,
    members: &[(String, u64)],
    cutoff: f64,
    requested: &tokio_util::sync::CancellationToken,
    forced: &tokio_util::sync::CancellationToken,
) -> Result<Recovered, Error> {
    let mut done = Recovered::default();
    'consumers: for (key, planned) in members {
        if requested.is_cancelled() {
            done.cut_short = true;
            break;
        }
        if !keys.is_inflight_key(key) {
            // recover() says why it is not one.
            recover(redis, keys, key, cutoff, &mut done.report).await?;
            continue;
        }
        let (mut moved, mut left) = (0u64, *planned);
        loop {
            if requested.is_cancelled() {
                done.cut_short = true;
                break;
            }
            let step = tokio::select! {
                step = recover_step(redis, keys, key, cutoff) => step,
                _ = forced.cancelled() => {
                    done.unconfirmed = true;
                    done.cut_short = true;
                    break;
                }
            };
            match step {
                Ok(Step::Alive) => break,
                Ok(Step::NotASet) => {
                    done.report
                        .skipped
                        .push((key.clone(), "its in-flight key is not a set".into()));
                    break;
                }
                Ok(Step::Moved { moved: n, left: l }) => {
                    moved += n;
                    left = l;
                    if l == 0 {
                        break;
                    }
                }
                Err(err) => {
                    // A lost reply: what is left in the set tells what the call moved.
                    if !matches!(err, Error::Redis { code: Some(_), .. }) {
                        let now: Result<u64, _> = redis
                            .query(redis::cmd("SCARD").arg(key), format!("SCARD {key}"))
                            .await;
                        match now {
                            Ok(now) => moved += left.saturating_sub(now),
                            Err(_) => done.unconfirmed = true,
                        }
                    }
                    done.failure = Some(err);
                    break;
                }
            }
        }
        if moved > 0 {
            done.report.recovered.push((key.clone(), moved));
        }
        if done.failure.is_some() || done.unconfirmed || done.cut_short {
            break 'consumers;
        }
    }
    Ok(done)
}

/// Expired consumers: members of `NAME:consumers` whose heartbeat is at or before `cutoff`.
pub async fn expired(
    redis: &mut Redis,
    keys: &QueueKeys,
    cutoff: f64,
) -> Result<Vec<String>, Error> {
    redis
        .query(
            redis::cmd("ZRANGEBYSCORE")
                .arg(&keys.consumers)
                .arg("-inf")
                .arg(cutoff)
                .arg("LIMIT")
                .arg(0)
                .arg(1000),
            format!("ZRANGEBYSCORE {}", keys.consumers),
        )
        .await
}

/// The default cut-off (`--orphan-after`) after which a consumer whose heartbeat stopped is
/// expired: at least Go CurlyQ's heartbeat interval plus its consumer timeout.
pub const ORPHAN_AFTER: std::time::Duration = std::time::Duration::from_secs(120);

/// How far in the future (seconds) a heartbeat may be before it is flagged: the writer's
/// clock is ahead of the Redis server's.
pub const AHEAD_TOLERANCE: f64 = 5.0;

/// What a heartbeat more than [`AHEAD_TOLERANCE`] after `now` tells: how far ahead the
/// writer's clock is, or, for `+inf` or a time centuries away, that no clock wrote it.
pub fn ahead_note(heartbeat: f64, now: f64) -> String {
    let ahead = heartbeat - now;
    // About 30 years: further than any clock that is merely wrong.
    if ahead < 1e9 {
        format!("heartbeat {ahead:.0}s in the future (its clock is ahead of the Redis server's)")
    } else if heartbeat.is_infinite() {
        "heartbeat of +inf, which no clock writes (set by hand or by another program)".into()
    } else {
        format!(
            "heartbeat of {heartbeat:e}, which no clock writes (set by hand or by another program)"
        )
    }
}

/// Members of `NAME:consumers` whose heartbeat is more than [`AHEAD_TOLERANCE`] after `now`
/// (server clock), with their scores; at most 1000.
pub async fn ahead(
    redis: &mut Redis,
    keys: &QueueKeys,
    now: f64,
) -> Result<Vec<(String, f64)>, Error> {
    redis
        .query(
            redis::cmd("ZRANGEBYSCORE")
                .arg(&keys.consumers)
                .arg(format!("({}", now + AHEAD_TOLERANCE))
                .arg("+inf")
                .arg("WITHSCORES")
                .arg("LIMIT")
                .arg(0)
                .arg(1000),
            format!("ZRANGEBYSCORE {}", keys.consumers),
        )
        .await
}

/// Moves the reservations of every consumer whose heartbeat is at or before `cutoff` back
/// to `NAME:active`, at most 1000 ids a call; `except` (the caller's own entry) is never
/// touched. Members that are not this queue's in-flight keys, or not sets, are skipped and
/// reported, never touched.
pub async fn recover_orphans(
    redis: &mut Redis,
    keys: &QueueKeys,
    cutoff: f64,
    except: Option<&str>,
) -> Result<Recovery, Error> {
    let mut report = Recovery::default();
    for member in expired(redis, keys, cutoff).await? {
        if Some(member.as_str()) == except {
            continue;
        }
        recover(redis, keys, &member, cutoff, &mut report).await?;
    }
    Ok(report)
}

/// Moves the reservations of one consumer back to `NAME:active` if its heartbeat is still at
/// or before `cutoff`, adding what happened to `report`.
pub async fn recover(
    redis: &mut Redis,
    keys: &QueueKeys,
    member: &str,
    cutoff: f64,
    report: &mut Recovery,
) -> Result<(), Error> {
    if !keys.is_inflight_key(member) {
        report.skipped.push((
            member.to_string(),
            format!("not of the form {}:inflight:<uuid>", keys.name),
        ));
        return Ok(());
    }
    let mut moved = 0u64;
    loop {
        match recover_step(redis, keys, member, cutoff).await? {
            // It beat since (or left): not expired after all.
            Step::Alive => break,
            Step::NotASet => {
                report
                    .skipped
                    .push((member.to_string(), "its in-flight key is not a set".into()));
                return Ok(());
            }
            Step::Moved { moved: n, left } => {
                moved += n;
                if left == 0 {
                    report.recovered.push((member.to_string(), moved));
                    return Ok(());
                }
            }
        }
    }
    if moved > 0 {
        report.recovered.push((member.to_string(), moved));
    }
    Ok(())
}

/// What one call of the recovery script did to a consumer's in-flight set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Moved this many ids to `NAME:active`; `left` remain (0: the consumer was removed).
    Moved { moved: u64, left: u64 },
    /// Its heartbeat is no longer at or before the cut-off (or it left): nothing changed.
    Alive,
    /// Its in-flight key holds another type: nothing changed.
    NotASet,
}

/// Moves up to 1000 of the reservations of one consumer (a well-formed in-flight key of
/// this queue) back to `NAME:active` if its heartbeat is still at or before `cutoff`; the
/// consumer leaves `NAME:consumers` with its description once its set is empty.
pub async fn recover_step(
    redis: &mut Redis,
    keys: &QueueKeys,
    member: &str,
    cutoff: f64,
) -> Result<Step, Error> {
    let Some(uuid) = keys.consumer_uuid(member) else {
        return Err(Error::Usage(format!(
            "{member:?} is not an in-flight key of queue {:?}",
            keys.name
        )));
    };
    let (n, left): (i64, i64) = scripts::RECOVER
        .call(&[
            &keys.consumers,
            &keys.active,
            &keys.signal,
            member,
            &keys.consumer_info(uuid),
            &keys.consumer_running(uuid),
        ])
        .arg(cutoff)
        .arg(1000)
        .invoke(redis)
        .await?;
    Ok(match n {
        -1 => Step::Alive,
        -2 => Step::NotASet,
        n => Step::Moved {
            moved: n.max(0) as u64,
            left: left.max(0) as u64,
        },
    })
}

/// One member of `NAME:consumers`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ConsumerInfo {
    /// The member: normally the consumer's in-flight key.
    pub key: String,
    /// Last heartbeat (unix seconds).
    pub heartbeat: f64,
    /// Ids in its in-flight set; None when the member is not a valid in-flight key of this
    /// queue or its key is not a set.
    pub in_flight: Option<u64>,
    /// Why the member is not a usable in-flight key, if it is not.
    pub problem: Option<String>,
}

/// Every consumer (at most 10,000), with its jobs in flight; reads only, two round trips.
pub async fn list(redis: &mut Redis, keys: &QueueKeys) -> Result<Vec<ConsumerInfo>, Error> {
    let members: Vec<(String, f64)> = redis
        .query(
            redis::cmd("ZRANGE")
                .arg(&keys.consumers)
                .arg(0)
                .arg(9999)
                .arg("WITHSCORES"),
            format!("ZRANGE {}", keys.consumers),
        )
        .await?;
    let valid: Vec<&str> = members
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| keys.is_inflight_key(k))
        .collect();
    let mut pipe = redis::pipe();
    pipe.ignore_errors();
    for key in &valid {
        pipe.cmd("SCARD").arg(*key);
    }
    let replies = if valid.is_empty() {
        Vec::new()
    } else {
        redis
            .pipeline_each(&pipe, |i| format!("SCARD {}", valid[i]))
            .await?
    };
    // A key of another type is a problem of that member; any other refusal (NOPERM) is
    // an error of the whole listing.
    let mut counts = Vec::with_capacity(replies.len());
    for reply in replies {
        counts.push(match reply {
            Ok(v) => redis::from_redis_value::<u64>(v).ok(),
            Err(e) if e.code() == Some("WRONGTYPE") => None,
            Err(e) => return Err(e),
        });
    }
    let mut counts = counts.into_iter();
    Ok(members
        .into_iter()
        .map(|(key, heartbeat)| {
            let (in_flight, problem) = if keys.is_inflight_key(&key) {
                match counts.next() {
                    Some(Some(n)) => (Some(n), None),
                    _ => (None, Some("its in-flight key is not a set".to_string())),
                }
            } else {
                (
                    None,
                    Some(format!("not of the form {}:inflight:<uuid>", keys.name)),
                )
            };
            ConsumerInfo {
                key,
                heartbeat,
                in_flight,
                problem,
            }
        })
        .collect())
}

/// What a qctl consumer wrote about itself in `NAME:consumer:<uuid>`; Go CurlyQ consumers
/// write nothing there.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Description {
    pub host: Option<String>,
    pub pid: Option<u32>,
    /// The PID namespace of its process (`pid:[4026531836]`, from `/proc/self/ns/pid`), so
    /// that a pid is looked up only where it means the same process.
    #[serde(skip)]
    pub pid_ns: Option<String>,
    pub version: Option<String>,
    /// The handler's program and arguments.
    pub command: Option<Vec<String>>,
    /// `per-job` or `pipe`.
    pub mode: Option<String>,
    /// `--concurrency`: its handlers (with `--pipe`, the long-lived ones).
    pub concurrency: Option<u64>,
    /// With `--pipe`: the jobs each handler may hold now, and whether qctl chooses that.
    pub depth: Option<Vec<u64>>,
    pub depth_auto: Option<bool>,
    /// When it registered (unix seconds).
    pub started: Option<f64>,
    /// Jobs it ran, and runs that failed, up to its last update (once a second).
    pub ran: Option<u64>,
    pub failed: Option<u64>,
    /// Whether it listens for orders (see [`super::orders`]): qctl consumers since orders
    /// were added.
    pub orders: Option<bool>,
    /// Set once it was quieted (`qctl consumers quiet`): it takes no new job.
    pub quiet: Option<bool>,
}

/// The fields of [`Description`], in its order.
const DESCRIPTION: [&str; 14] = [
    "host",
    "pid",
    "version",
    "command",
    "mode",
    "concurrency",
    "started",
    "ran",
    "failed",
    "depth",
    "depth_auto",
    "pid_ns",
    "orders",
    "quiet",
];

/// Whether a consumer's process runs, as this host can tell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Process {
    /// Its pid names a process (or one this user may not signal): it may be alive. A pid
    /// that was reused by another process looks so too, which errs on the safe side.
    Running,
    /// No process has its pid (or only a zombie): it died.
    Gone,
}

impl Description {
    /// Whether its process runs, for a consumer on this host (the same host name, and the
    /// same PID namespace when it recorded one); None for one elsewhere or without a pid.
    pub fn process(&self) -> Option<Process> {
        let pid = i32::try_from(self.pid?).ok().filter(|p| *p > 0)?;
        if self.host.as_deref() != Some(host().as_str()) {
            return None;
        }
        if let (Some(theirs), Some(ours)) = (&self.pid_ns, pid_namespace()) {
            if *theirs != ours {
                return None;
            }
        }
        match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
            Err(nix::errno::Errno::ESRCH) => Some(Process::Gone),
            _ if is_zombie(pid) => Some(Process::Gone),
            _ => Some(Process::Running),
        }
    }
}

impl ConsumerInfo {
    /// How far (seconds) its heartbeat is in the future, when it is more than
    /// [`AHEAD_TOLERANCE`].
    pub fn clock_ahead(&self, now: f64) -> Option<f64> {
        (self.heartbeat > now + AHEAD_TOLERANCE).then(|| (self.heartbeat - now).round())
    }

    /// What is wrong with a heartbeat in the future, and what a qctl consumer does about it.
    pub fn ahead_problem(&self, now: f64) -> String {
        format!(
            "{}; a running qctl consumer recovers its jobs once the heartbeat stays unchanged for --orphan-after",
            ahead_note(self.heartbeat, now)
        )
    }

    /// Its state as the tables and views show it: `alive`, `expired`, `gone (pid 4242 not
    /// running)` for one on this host whose process is gone before its lease ran out,
    /// `expired (pid 4242 still running)`, a heartbeat in the future, or what is wrong with
    /// its member. `process` is [`Description::process`] of what it wrote; `cutoff` the
    /// oldest heartbeat that is alive.
    pub fn state(
        &self,
        described: Option<&Description>,
        process: Option<Process>,
        now: f64,
        cutoff: f64,
    ) -> String {
        let pid = described.and_then(|d| d.pid).unwrap_or(0);
        match (
            &self.problem,
            self.clock_ahead(now),
            self.heartbeat > cutoff,
            process,
        ) {
            (Some(p), _, _, _) => format!("invalid: {p}"),
            (None, Some(_), _, _) => self.ahead_problem(now),
            (None, None, true, Some(Process::Gone)) => format!("gone (pid {pid} not running)"),
            (None, None, true, _) if described.and_then(|d| d.quiet) == Some(true) => {
                "quiet".into()
            }
            (None, None, true, _) => "alive".into(),
            (None, None, false, Some(Process::Gone)) => {
                format!("expired (pid {pid} not running)")
            }
            (None, None, false, Some(Process::Running)) => {
                format!("expired (pid {pid} still running)")
            }
            (None, None, false, None) => "expired".into(),
        }
    }

    /// Who runs it: `qctl` when it `described` itself, else `CurlyQ` (a Go CurlyQ consumer,
    /// or a qctl consumer whose description expired, a day after its lease), `-` for a
    /// member that is no in-flight key.
    pub fn run_by(&self, keys: &QueueKeys, described: bool) -> &'static str {
        match (described, keys.consumer_uuid(&self.key).is_some()) {
            (true, _) => "qctl",
            (false, true) => "CurlyQ",
            (false, false) => "-",
        }
    }
}

/// A consumer as the tables and views name it: the first 8 characters of the UUID of its
/// in-flight `key` (the JSON has the whole key), or the whole member, escaped, when it is no
/// in-flight key.
pub fn short_name(key: &str, keys: &QueueKeys) -> String {
    match keys.consumer_uuid(key) {
        Some(uuid) => uuid[..8].to_string(),
        None => printable(key),
    }
}

/// Where a consumer runs, as the tables and views show it: `HOST:PID`, or `-` when it wrote
/// nothing.
pub fn host_pid(d: Option<&Description>) -> String {
    match d.map(|d| (&d.host, d.pid)) {
        None | Some((None, None)) => "-".into(),
        Some((h, p)) => format!(
            "{}:{}",
            printable(h.as_deref().unwrap_or("-")),
            p.map_or("-".into(), |p| p.to_string())
        ),
    }
}

/// A handler's program and arguments as one line, each word quoted for a POSIX shell where
/// it needs it, and escaped.
pub fn command_line(words: &[String]) -> String {
    words
        .iter()
        .map(|w| printable(&shell_quote(w)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `pid` is a process that has ended and waits for its parent to collect it.
fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next().map(|s| s == "Z"))
        })
        .unwrap_or(false)
}

/// This machine's host name, or `-`: what a qctl consumer writes as its `host`.
pub fn host() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    if ok && end > 0 {
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        "-".into()
    }
}

/// The PID namespace of this process (`pid:[4026531836]`), where the system tells it.
pub fn pid_namespace() -> Option<String> {
    std::fs::read_link("/proc/self/ns/pid")
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
}

/// How long a qctl consumer's description (`NAME:consumer:<uuid>`) is kept past its lease:
/// a consumer that dies without leaving is still named (host, pid, command) while its entry
/// waits for recovery, which removes the description with the entry.
pub const DESCRIPTION_KEPT: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// The time to live of a consumer's description whose lease is `lease`.
pub fn description_ttl(lease: std::time::Duration) -> std::time::Duration {
    lease + DESCRIPTION_KEPT
}

/// The description of each consumer that has one (None: a Go CurlyQ consumer, a member that
/// is no in-flight key, or a qctl consumer whose description expired); one round trip.
pub async fn describe(
    redis: &mut Redis,
    keys: &QueueKeys,
    consumers: &[ConsumerInfo],
) -> Result<Vec<Option<Description>>, Error> {
    let uuids: Vec<Option<&str>> = consumers
        .iter()
        .map(|c| keys.consumer_uuid(&c.key))
        .collect();
    let asked: Vec<String> = uuids
        .iter()
        .flatten()
        .map(|u| keys.consumer_info(u))
        .collect();
    if asked.is_empty() {
        return Ok(vec![None; consumers.len()]);
    }
    let mut pipe = redis::pipe();
    pipe.ignore_errors();
    for key in &asked {
        pipe.cmd("HMGET").arg(key).arg(&DESCRIPTION[..]);
    }
    let replies = redis
        .pipeline_each(&pipe, |i| format!("HMGET {}", asked[i]))
        .await?;
    let mut replies = replies.into_iter();
    let mut out = Vec::with_capacity(consumers.len());
    for uuid in uuids {
        if uuid.is_none() {
            out.push(None);
            continue;
        }
        let fields: Vec<Option<String>> = match replies.next() {
            Some(Ok(v)) => redis::from_redis_value(v).unwrap_or_default(),
            // A key of another type describes nothing; any other refusal is an error.
            Some(Err(e)) if e.code() == Some("WRONGTYPE") => Vec::new(),
            Some(Err(e)) => return Err(e),
            None => Vec::new(),
        };
        let get = |i: usize| fields.get(i).cloned().flatten();
        let d = Description {
            host: get(0),
            pid: get(1).and_then(|v| v.parse().ok()),
            version: get(2),
            command: get(3).and_then(|v| serde_json::from_str(&v).ok()),
            mode: get(4),
            concurrency: get(5).and_then(|v| v.parse().ok()),
            started: get(6).and_then(|v| v.parse().ok()),
            ran: get(7).and_then(|v| v.parse().ok()),
            failed: get(8).and_then(|v| v.parse().ok()),
            depth: get(9).and_then(|v| serde_json::from_str(&v).ok()),
            depth_auto: get(10).and_then(|v| v.parse().ok()),
            pid_ns: get(11),
            orders: get(12).and_then(|v| v.parse().ok()),
            quiet: get(13).and_then(|v| v.parse().ok()),
        };
        out.push((d != Description::default()).then_some(d));
    }
    Ok(out)
}

/// What `qctl consumers` says under its table when a consumer wrote no description.
pub const UNDESCRIBED: &str = "RUN BY CurlyQ: no description written (a Go CurlyQ consumer, or a \
                               qctl one that expired more than a day ago)";

/// What `qctl inflight` says under its table when a job's start is not known.
pub const NO_START: &str =
    "RUNNING -: no start recorded (Go CurlyQ consumer, buffered job, or just started)";

/// The consumers of a queue as `qctl consumers` and the views show them: each member, what
/// it wrote about itself, whether its process runs, at the server's clock.
#[derive(Debug, Clone)]
pub struct Seen {
    pub list: Vec<ConsumerInfo>,
    /// What each wrote about itself (see [`describe`]).
    pub described: Vec<Option<Description>>,
    /// Whether each one's process runs, for those on this host ([`Description::process`]).
    pub processes: Vec<Option<Process>>,
    /// The server's clock when they were read (unix seconds).
    pub now: f64,
}

/// Reads the consumers of a queue with their descriptions and the server's clock; three
/// round trips.
pub async fn seen(redis: &mut Redis, keys: &QueueKeys) -> Result<Seen, Error> {
    let list = list(redis, keys).await?;
    let described = describe(redis, keys, &list).await?;
    let now = redis.server_time().await?;
    let processes = described
        .iter()
        .map(|d| d.as_ref().and_then(Description::process))
        .collect();
    Ok(Seen {
        list,
        described,
        processes,
        now,
    })
}

impl Seen {
    /// Each consumer as `qctl consumers --json` writes it; alive when its heartbeat is
    /// younger than `orphan_after` and its process is not known to be gone.
    pub fn json(
        &self,
        keys: &QueueKeys,
        orphan_after: std::time::Duration,
    ) -> Vec<serde_json::Value> {
        let now = self.now;
        let cutoff = now - orphan_after.as_secs_f64();
        self.list
            .iter()
            .zip(&self.described)
            .zip(&self.processes)
            .map(|((c, d), process)| {
                let d = d.clone().unwrap_or_default();
                serde_json::json!({
                    "consumer": c.key,
                    "run_by": c.run_by(keys, d.version.is_some()),
                    "host": d.host,
                    "pid": d.pid,
                    "version": d.version,
                    "command": d.command,
                    "mode": d.mode,
                    "concurrency": d.concurrency,
                    "depth": d.depth,
                    "depth_auto": d.depth_auto,
                    "started": d.started,
                    "ran": d.ran,
                    "failed": d.failed,
                    "heartbeat": c.heartbeat,
                    "heartbeat_age_secs": (now - c.heartbeat).max(0.0),
                    "clock_ahead_secs": c.clock_ahead(now),
                    "in_flight": c.in_flight,
                    "alive": c.heartbeat > cutoff && *process != Some(Process::Gone),
                    "quiet": d.quiet == Some(true),
                    "takes_orders": d.orders == Some(true),
                    "process": process,
                    "problem": c.problem.clone().or_else(|| c.clock_ahead(now).map(|_| c.ahead_problem(now))),
                })
            })
            .collect()
    }

    /// Each consumer's description, by its in-flight key (those that wrote one).
    pub fn descriptions(&self) -> std::collections::HashMap<&str, &Description> {
        self.list
            .iter()
            .zip(&self.described)
            .filter_map(|(c, d)| Some((c.key.as_str(), d.as_ref()?)))
            .collect()
    }

    /// Whether a consumer with an in-flight key wrote no description: [`UNDESCRIBED`].
    pub fn undescribed(&self, keys: &QueueKeys) -> bool {
        self.list
            .iter()
            .zip(&self.described)
            .any(|(c, d)| d.is_none() && keys.consumer_uuid(&c.key).is_some())
    }
}

impl Description {
    /// How it runs its jobs, as `qctl consumers` says it before the command: `per-job,
    /// concurrency 4, up 3h`, `pipe, concurrency 2, depth 8 (automatic), up 5m`.
    pub fn setup(&self, now: f64) -> String {
        format!(
            "{}{}{}{}",
            printable(self.mode.as_deref().unwrap_or("-")),
            self.concurrency
                .map_or(String::new(), |n| format!(", concurrency {n}")),
            self.depth_words(),
            self.started.map_or(String::new(), |t| format!(
                ", up {}",
                relative(t, now).trim_end_matches(" ago")
            )),
        )
    }

    /// `, depth 8, 16 (automatic)`: what a `--pipe` consumer's handlers may each hold now.
    fn depth_words(&self) -> String {
        let Some(depth) = &self.depth else {
            return String::new();
        };
        let how = if self.depth_auto == Some(true) {
            " (automatic)"
        } else {
            ""
        };
        let each = match depth.as_slice() {
            [] => return String::new(),
            [first, rest @ ..] if rest.iter().all(|n| n == first) => first.to_string(),
            all => {
                let words: Vec<String> = all.iter().map(u64::to_string).collect();
                words.join(", ")
            }
        };
        format!(", depth {each}{how}")
    }
}

/// A job reserved by a consumer: in its in-flight set, maybe running.
#[derive(Debug, Clone, PartialEq)]
pub struct InFlight {
    pub id: String,
    /// The consumer's in-flight key.
    pub consumer: String,
    /// When its run started (unix seconds), as a qctl consumer records it; None for jobs of
    /// Go CurlyQ consumers, jobs a qctl consumer holds but has not started yet, and jobs
    /// started within the last second.
    pub started: Option<f64>,
}

impl InFlight {
    /// How long it has run at the server's clock `now`, when its start is known.
    pub fn running(&self, now: f64) -> Option<f64> {
        self.started.map(|t| (now - t).max(0.0))
    }
}

/// Every job in flight at the consumers of `list`, those running longest first (then those
/// whose start is not known, by consumer and id); two round trips. An in-flight key of
/// another type is passed over (`qctl consumers` shows it as invalid).
pub async fn in_flight(
    redis: &mut Redis,
    keys: &QueueKeys,
    list: &[ConsumerInfo],
) -> Result<Vec<InFlight>, Error> {
    let valid: Vec<&ConsumerInfo> = list.iter().filter(|c| c.in_flight.is_some()).collect();
    if valid.is_empty() {
        return Ok(Vec::new());
    }
    let mut pipe = redis::pipe();
    pipe.ignore_errors();
    for c in &valid {
        pipe.cmd("SMEMBERS").arg(&c.key);
    }
    let replies = redis
        .pipeline_each(&pipe, |i| format!("SMEMBERS {}", valid[i].key))
        .await?;
    let mut held: Vec<(&ConsumerInfo, Vec<String>)> = Vec::with_capacity(valid.len());
    for (c, reply) in valid.iter().zip(replies) {
        match reply {
            Ok(v) => held.push((c, redis::from_redis_value(v).unwrap_or_default())),
            Err(e) if e.code() == Some("WRONGTYPE") => {}
            Err(e) => return Err(e),
        }
    }
    // The starts qctl consumers recorded, for the ids they hold.
    let asking: Vec<(usize, String)> = held
        .iter()
        .enumerate()
        .filter(|(_, (_, ids))| !ids.is_empty())
        .filter_map(|(i, (c, _))| Some((i, keys.consumer_running(keys.consumer_uuid(&c.key)?))))
        .collect();
    let mut starts: Vec<Vec<Option<f64>>> = vec![Vec::new(); held.len()];
    if !asking.is_empty() {
        let mut pipe = redis::pipe();
        pipe.ignore_errors();
        for (i, key) in &asking {
            pipe.cmd("HMGET").arg(key).arg(&held[*i].1);
        }
        let replies = redis
            .pipeline_each(&pipe, |i| format!("HMGET {}", asking[i].1))
            .await?;
        for ((i, _), reply) in asking.iter().zip(replies) {
            starts[*i] = match reply {
                Ok(v) => redis::from_redis_value::<Vec<Option<String>>>(v)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|s| s.and_then(|s| s.parse().ok()))
                    .collect(),
                Err(e) if e.code() == Some("WRONGTYPE") => Vec::new(),
                Err(e) => return Err(e),
            };
        }
    }
    let mut jobs: Vec<InFlight> = held
        .into_iter()
        .zip(starts)
        .flat_map(|((c, ids), starts)| {
            ids.into_iter().enumerate().map(move |(j, id)| InFlight {
                id,
                consumer: c.key.clone(),
                started: starts.get(j).copied().flatten(),
            })
        })
        .collect();
    jobs.sort_by(|a, b| {
        let start = |j: &InFlight| j.started.unwrap_or(f64::INFINITY);
        start(a)
            .total_cmp(&start(b))
            .then_with(|| a.consumer.cmp(&b.consumer))
            .then_with(|| a.id.cmp(&b.id))
    });
    Ok(jobs)
}
