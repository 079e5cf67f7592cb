//! What a qctl consumer says about itself, for `qctl consumers` and `qctl inflight`:
//! `NAME:consumer:<uuid>` (where it runs, what it runs, its counters) and
//! `NAME:consumer:<uuid>:running` (each running job's start). The list expires with the
//! lease, the description a day after it, so that a consumer that died is still named while
//! its jobs wait for recovery (the heartbeat renews both); both go when the consumer leaves
//! or its jobs are recovered. Go CurlyQ consumers write neither.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::Shared;
use crate::engine::consumers;
use crate::engine::error::Error;

/// How often the list of running jobs and the counters are brought up to date (only when
/// they changed): a job shows its start within this of starting.
pub const EVERY: Duration = Duration::from_secs(1);

/// What runs the jobs, as the caller describes it.
#[derive(Clone, Debug, Default)]
pub struct Identity {
    /// The handler's program and arguments (never its environment).
    pub command: Vec<String>,
    /// `per-job`, `pipe`, or what an embedding program calls its handler.
    pub mode: String,
}

/// What was last written: the running jobs (id -> start) and the counters.
#[derive(Default)]
pub(crate) struct Written {
    running: HashMap<String, f64>,
    ran: u64,
    failed: u64,
    /// The handlers' shares of the run limit (empty without one).
    depth: Vec<usize>,
}

fn lease_ms(shared: &Shared) -> u64 {
    shared.cfg.orphan_after.as_millis().max(1) as u64
}

/// The time to live of the description: past the lease (see [`consumers::description_ttl`]).
fn kept_ms(shared: &Shared) -> u64 {
    consumers::description_ttl(shared.cfg.orphan_after).as_millis() as u64
}

/// Writes the description when the consumer registers (and registers again).
pub async fn describe(shared: &Shared) -> Result<(), Error> {
    let info = shared.keys.consumer_info(&shared.id);
    let id = &shared.cfg.identity;
    let command = serde_json::to_string(&id.command).expect("strings serialize");
    let started = *shared.started.get_or_init(|| shared.now());
    let (ran, failed) = counts(shared);
    let mut pipe = redis::pipe();
    pipe.cmd("HSET")
        .arg(&info)
        .arg("host")
        .arg(consumers::host())
        .arg("pid")
        .arg(std::process::id())
        .arg("version")
        .arg(env!("CARGO_PKG_VERSION"))
        .arg("command")
        .arg(command)
        .arg("mode")
        .arg(&id.mode)
        .arg("concurrency")
        .arg(shared.handlers())
        .arg("started")
        .arg(started)
        .arg("orders")
        .arg("true")
        .ignore();
    if shared.quiet.load(Ordering::Relaxed) {
        pipe.cmd("HSET")
            .arg(&info)
            .arg("quiet")
            .arg("true")
            .ignore();
    }
    if let Some(ns) = consumers::pid_namespace() {
        pipe.cmd("HSET").arg(&info).arg("pid_ns").arg(ns).ignore();
    }
    let depth = shares(shared);
    if let Some(limit) = &shared.cfg.run_limit {
        pipe.cmd("HSET")
            .arg(&info)
            .arg("depth_auto")
            .arg(if limit.automatic() { "true" } else { "false" })
            .ignore();
        depth_written(&mut pipe, &info, &depth);
    }
    counted(&mut pipe, shared, &info, ran, failed);
    let mut redis = shared.redis.clone();
    redis.pipeline::<()>(&pipe, format!("HSET {info}")).await?;
    let mut written = shared.written.lock().expect("written lock");
    written.ran = ran;
    written.failed = failed;
    written.depth = depth;
    Ok(())
}

/// Notes in the description that an order quieted the consumer.
pub async fn mark_quiet(shared: &Shared) -> Result<(), Error> {
    let info = shared.keys.consumer_info(&shared.id);
    let mut redis = shared.redis.clone();
    redis
        .query(
            redis::cmd("HSET").arg(&info).arg("quiet").arg("true"),
            format!("HSET {info}"),
        )
        .await
}

/// Writes the concurrency an order set into the description.
pub async fn mark_concurrency(shared: &Shared) -> Result<(), Error> {
    let info = shared.keys.consumer_info(&shared.id);
    let mut redis = shared.redis.clone();
    redis
        .query(
            redis::cmd("HSET")
                .arg(&info)
                .arg("concurrency")
                .arg(shared.handlers()),
            format!("HSET {info}"),
        )
        .await
}

/// The handlers' shares of the run limit now (their depths with `--pipe`).
fn shares(shared: &Shared) -> Vec<usize> {
    shared
        .cfg
        .run_limit
        .as_ref()
        .map_or_else(Vec::new, |l| l.shares())
}

/// Adds to `pipe` the handlers' depths, a JSON array, to the description `info`.
fn depth_written(pipe: &mut redis::Pipeline, info: &str, depth: &[usize]) {
    let text = serde_json::to_string(depth).expect("numbers serialize");
    pipe.cmd("HSET").arg(info).arg("depth").arg(text).ignore();
}

/// Adds to `pipe` the counters of the description `info` and the renewal of its time to
/// live.
fn counted(pipe: &mut redis::Pipeline, shared: &Shared, info: &str, ran: u64, failed: u64) {
    pipe.cmd("HSET")
        .arg(info)
        .arg("ran")
        .arg(ran)
        .arg("failed")
        .arg(failed)
        .ignore()
        .cmd("PEXPIRE")
        .arg(info)
        .arg(kept_ms(shared))
        .ignore();
}

fn counts(shared: &Shared) -> (u64, u64) {
    let c = &shared.counters;
    let load = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
    (
        load(&c.ran),
        load(&c.retried) + load(&c.killed) + load(&c.damaged),
    )
}

/// A step of the loop that keeps the running jobs and the counters up to date: one round
/// trip when something changed, none otherwise.
pub async fn run(shared: Arc<Shared>) -> Result<Duration, Error> {
    let now = shared.now();
    let running: HashMap<String, f64> = shared
        .status
        .snapshot()
        .running
        .into_iter()
        .map(|(id, _, secs)| (id, ((now - secs) * 1000.0).round() / 1000.0))
        .collect();
    let (ran, failed) = counts(&shared);
    let depth = shares(&shared);
    let (gone, new, depth_changed): (Vec<String>, Vec<(String, f64)>, bool) = {
        let written = shared.written.lock().expect("written lock");
        if written.ran == ran
            && written.failed == failed
            && written.depth == depth
            && written.running.len() == running.len()
            && running.keys().all(|id| written.running.contains_key(id))
        {
            return Ok(EVERY);
        }
        (
            written
                .running
                .keys()
                .filter(|id| !running.contains_key(*id))
                .cloned()
                .collect(),
            running
                .iter()
                .filter(|(id, _)| !written.running.contains_key(*id))
                .map(|(id, t)| (id.clone(), *t))
                .collect(),
            written.depth != depth,
        )
    };
    let info = shared.keys.consumer_info(&shared.id);
    let key = shared.keys.consumer_running(&shared.id);
    let mut pipe = redis::pipe();
    if !gone.is_empty() {
        pipe.cmd("HDEL").arg(&key).arg(&gone).ignore();
    }
    if !new.is_empty() {
        pipe.cmd("HSET").arg(&key);
        for (id, start) in &new {
            pipe.arg(id).arg(start);
        }
        pipe.ignore()
            .cmd("PEXPIRE")
            .arg(&key)
            .arg(lease_ms(&shared))
            .ignore();
    }
    if depth_changed {
        depth_written(&mut pipe, &info, &depth);
    }
    counted(&mut pipe, &shared, &info, ran, failed);
    let mut redis = shared.redis.clone();
    redis.pipeline::<()>(&pipe, format!("HSET {key}")).await?;
    let mut written = shared.written.lock().expect("written lock");
    written.running = running;
    written.ran = ran;
    written.failed = failed;
    written.depth = depth;
    Ok(EVERY)
}
