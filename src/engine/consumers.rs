//! Consumers: registration and heartbeats in `NAME:consumers`, and recovery of the
//! reservations of consumers whose heartbeat expired (orphans).

use super::conn::Redis;
use super::error::Error;
use super::keys::QueueKeys;
use super::scripts::{self, Rights};

/// Every command a consumer sends, each with its key, to be checked at its start before it
/// writes anything. `inflight`, its own in-flight key, also stands for those of the consumers
/// whose jobs it recovers.
pub fn rights(keys: &QueueKeys, inflight: &str) -> Rights {
    let mut rights = Rights::new(format!("consuming queue {:?}", keys.name));
    rights
        .script(
            &scripts::RESERVE,
            &[
                &keys.consumers,
                &keys.active,
                &keys.data,
                &keys.signal,
                inflight,
                &keys.paused,
            ],
        )
        .script(
            &scripts::ACK,
            &[inflight, &keys.data, &keys.failures, &keys.stats],
        )
        .script(
            &scripts::RETRY,
            &[
                inflight,
                &keys.scheduled,
                &keys.data,
                &keys.failures,
                &keys.stats,
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
            ],
        )
        .script(&scripts::REQUEUE, &[inflight, &keys.active, &keys.signal])
        .script(
            &scripts::PROMOTE,
            &[&keys.scheduled, &keys.active, &keys.signal],
        )
        .script(
            &scripts::RECOVER,
            &[&keys.consumers, &keys.active, &keys.signal, inflight],
        )
        .script(&scripts::DEREGISTER, &[&keys.consumers, inflight])
        .command("ZADD", Some(&keys.consumers))
        .command("ZSCORE", Some(&keys.consumers))
        .command("ZRANGEBYSCORE", Some(&keys.consumers))
        .command("ZRANGE", Some(&keys.consumers))
        .command("SCARD", Some(inflight))
        .command("SMEMBERS", Some(inflight))
        .command("LLEN", Some(&keys.active))
        .command("EXISTS", Some(&keys.paused))
        // A drain's retries and what a bounded run left (`consumer::Handle::left`).
        .command("ZSCORE", Some(&keys.scheduled))
        .command("ZCARD", Some(&keys.scheduled))
        .command("ZRANGE", Some(&keys.scheduled))
        .command("BRPOPLPUSH", Some(&keys.signal));
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

/// Renews the heartbeat of a registered consumer without registering it again; false when
/// its entry is gone.
pub async fn renew(
    redis: &mut Redis,
    keys: &QueueKeys,
    inflight: &str,
    now: f64,
) -> Result<bool, Error> {
    let mut pipe = redis::pipe();
    pipe.cmd("ZADD")
        .arg(&keys.consumers)
        .arg("XX")
        .arg(now)
        .arg(inflight)
        .ignore()
        .zscore(&keys.consumers, inflight);
    let (score,): (Option<f64>,) = redis
        .pipeline(&pipe, format!("heartbeat in {}", keys.consumers))
        .await?;
    Ok(score.is_some())
}

/// Leaves `NAME:consumers` if no reservations remain; true if it left.
pub async fn deregister(
    redis: &mut Redis,
    keys: &QueueKeys,
    inflight: &str,
) -> Result<bool, Error> {
    let done: i64 = scripts::DEREGISTER
        .call(&[&keys.consumers, inflight])
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
/// this queue) back to `NAME:active` if its heartbeat is still at or before `cutoff`.
pub async fn recover_step(
    redis: &mut Redis,
    keys: &QueueKeys,
    member: &str,
    cutoff: f64,
) -> Result<Step, Error> {
    let (n, left): (i64, i64) = scripts::RECOVER
        .call(&[&keys.consumers, &keys.active, &keys.signal, member])
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
