//! Bulk changes to the dead set, the scheduled set and the active list: which jobs a command
//! touches (ids, everything, or a filter), walked in chunks of at most 1000 ids so that no
//! call blocks Redis for long, and the guarded scripts that change them. Every step is
//! idempotent: an interrupted run can simply be run again.

use std::collections::VecDeque;

use super::conn::Redis;
use super::error::Error;
use super::job::Job;
use super::keys::QueueKeys;
use super::listing::{fill, Entry, Filter, CHUNK};
use super::scripts;

/// Which jobs a bulk command touches.
#[derive(Debug, Clone)]
pub enum Selection {
    Ids(Vec<String>),
    /// Every job in the set, or those matching the filter.
    Matching(Filter),
}

/// Walks a selection in chunks, ascending by score. After acting on a chunk, tell it how
/// many of the chunk left the set with [`Walk::advance`].
pub struct Walk {
    zset: String,
    ids: Option<VecDeque<String>>,
    filter: Filter,
    /// Rank (from the start of the score range) of the next id to read.
    pos: u64,
    last_len: u64,
    done: bool,
}

impl Walk {
    pub fn new(zset: &str, selection: &Selection) -> Walk {
        let (ids, filter) = match selection {
            Selection::Ids(ids) => (Some(ids.iter().cloned().collect()), Filter::default()),
            Selection::Matching(f) => (None, f.clone()),
        };
        Walk {
            zset: zset.to_string(),
            ids,
            filter,
            pos: 0,
            last_len: 0,
            done: false,
        }
    }

    /// The next chunk of selected jobs (with records), or None at the end. For a filter,
    /// a chunk may be empty when nothing in it matched.
    pub async fn next(
        &mut self,
        redis: &mut Redis,
        keys: &QueueKeys,
    ) -> Result<Option<Vec<Entry>>, Error> {
        if self.done {
            return Ok(None);
        }
        if let Some(ids) = &mut self.ids {
            let n = ids.len().min(CHUNK);
            if n == 0 {
                self.done = true;
                return Ok(None);
            }
            let chunk: Vec<(String, Option<f64>)> = ids.drain(..n).map(|id| (id, None)).collect();
            return fill(redis, keys, chunk).await.map(Some);
        }
        let min = self
            .filter
            .since
            .map_or("-inf".to_string(), |s| s.to_string());
        let below: u64 = redis
            .query(
                redis::cmd("ZCOUNT")
                    .arg(&self.zset)
                    .arg("-inf")
                    .arg(format!("({min}")),
                format!("counting {}", self.zset),
            )
            .await?;
        let start = below + self.pos;
        let ids: Vec<(String, f64)> = redis
            .query(
                redis::cmd("ZRANGE")
                    .arg(&self.zset)
                    .arg(start)
                    .arg(start + CHUNK as u64 - 1)
                    .arg("WITHSCORES"),
                format!("reading {}", self.zset),
            )
            .await?;
        let limit = self.filter.until.unwrap_or(f64::INFINITY);
        let in_range: Vec<(String, Option<f64>)> = ids
            .iter()
            .filter(|(_, s)| *s <= limit)
            .map(|(id, s)| (id.clone(), Some(*s)))
            .collect();
        if in_range.len() < ids.len() || ids.len() < CHUNK {
            self.done = true;
        }
        self.last_len = in_range.len() as u64;
        if in_range.is_empty() {
            self.done = true;
            return Ok(None);
        }
        let entries = fill(redis, keys, in_range).await?;
        Ok(Some(
            entries
                .into_iter()
                .filter(|e| self.filter.matches(e))
                .collect(),
        ))
    }

    /// `removed` of the last chunk left the set; the rest stay and are stepped over.
    pub fn advance(&mut self, removed: u64) {
        self.pos += self.last_len.saturating_sub(removed);
    }
}

/// What happened to each id of a bulk step.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    Done,
    NotFound,
    Skipped(String),
}

/// Moves dead jobs back to `NAME:active`: Attempt 0 (or kept), failure cleared, consumers
/// woken. Jobs without a usable record are skipped with the reason.
pub async fn requeue_dead(
    redis: &mut Redis,
    keys: &QueueKeys,
    entries: &[Entry],
    keep_attempts: bool,
) -> Result<Vec<Fate>, Error> {
    let mut fates = vec![Fate::NotFound; entries.len()];
    let mut call = scripts::REQUEUE_DEAD.call(&[
        &keys.dead,
        &keys.active,
        &keys.data,
        &keys.failures,
        &keys.signal,
    ]);
    let mut sent = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let job = match (&e.job, e.damage()) {
            (Some(Ok(job)), None) => job,
            (None, _) => continue,
            (_, Some(why)) => {
                fates[i] = Fate::Skipped(format!("damaged record: {why}"));
                continue;
            }
            _ => continue,
        };
        let new = Job {
            attempt: if keep_attempts { job.attempt } else { 0 },
            ..job.clone()
        };
        call.arg(&e.id).arg(job.encode()).arg(new.encode());
        sent.push(i);
    }
    // Ids without a record may still be in the dead set: they cannot run again.
    for (i, e) in entries.iter().enumerate() {
        if e.job.is_none() {
            fates[i] = Fate::Skipped("no record (delete it instead)".into());
        }
    }
    if sent.is_empty() {
        return Ok(fates);
    }
    let flags: Vec<i64> = call.invoke(redis).await?;
    for (i, flag) in sent.into_iter().zip(flags) {
        fates[i] = match flag {
            1 => Fate::Done,
            0 => Fate::NotFound,
            _ => Fate::Skipped("its record changed meanwhile; run again".into()),
        };
    }
    Ok(fates)
}

/// Removes ids from a sorted set with their records and failures.
pub async fn delete_from(
    redis: &mut Redis,
    keys: &QueueKeys,
    zset: &str,
    ids: &[&str],
) -> Result<Vec<Fate>, Error> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let flags: Vec<i64> = scripts::DELETE
        .call(&[zset, &keys.data, &keys.failures])
        .arg(ids)
        .invoke(redis)
        .await?;
    Ok(flags.into_iter().map(fate).collect())
}

/// Moves scheduled ids to `NAME:active` now.
pub async fn run_now(
    redis: &mut Redis,
    keys: &QueueKeys,
    ids: &[&str],
) -> Result<Vec<Fate>, Error> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let flags: Vec<i64> = scripts::RUN_NOW
        .call(&[&keys.scheduled, &keys.active, &keys.signal])
        .arg(ids)
        .invoke(redis)
        .await?;
    Ok(flags.into_iter().map(fate).collect())
}

/// Removes ids from `NAME:active` with their records and failures (100 per call).
pub async fn delete_active(
    redis: &mut Redis,
    keys: &QueueKeys,
    ids: &[&str],
) -> Result<Vec<Fate>, Error> {
    let mut out = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(100) {
        let flags: Vec<i64> = scripts::DELETE_ACTIVE
            .call(&[&keys.active, &keys.data, &keys.failures])
            .arg(chunk)
            .invoke(redis)
            .await?;
        out.extend(flags.into_iter().map(fate));
    }
    Ok(out)
}

fn fate(flag: i64) -> Fate {
    if flag == 1 {
        Fate::Done
    } else {
        Fate::NotFound
    }
}
