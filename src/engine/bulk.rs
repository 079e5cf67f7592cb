//! Bulk changes to the dead set, the scheduled set and the active list: which jobs a command
//! touches (ids, everything, or a filter), walked in chunks of at most 1000 ids so that no
//! call blocks Redis for long, and the guarded scripts that change them. Every step is
//! idempotent: an interrupted run can simply be run again.

use std::collections::{HashSet, VecDeque};

use super::conn::Redis;
use super::error::Error;
use super::job::Job;
use super::keys::QueueKeys;
use super::listing::{fill, Entry, Filter, CHUNK};
use super::scripts::{self, Call};

/// Ids read per step of a walk; they are changed in script calls of at most [`CHUNK`] ids,
/// sent together in one round trip.
pub const WALK: usize = 4 * CHUNK;

/// Which jobs a bulk command touches.
#[derive(Debug, Clone)]
pub enum Selection {
    Ids(Vec<String>),
    /// Every job in the set, or those matching the filter.
    Matching(Filter),
}

/// Walks a selection in windows, ascending by score. The position is a score and the ids
/// already seen at that score, so a window can be read while the one before it is being
/// changed, in whatever order Redis runs the two.
pub struct Walk {
    zset: String,
    ids: Option<VecDeque<String>>,
    filter: Filter,
    /// The score of the last window's last job, and the ids of that window with that score.
    cursor: Option<(f64, HashSet<String>)>,
    done: bool,
    /// The window after the last one, read ahead.
    ahead: Option<Result<Vec<Entry>, Error>>,
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
            cursor: None,
            done: false,
            ahead: None,
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
            let n = ids.len().min(WALK);
            if n == 0 {
                self.done = true;
                return Ok(None);
            }
            let chunk: Vec<(String, Option<f64>)> = ids.drain(..n).map(|id| (id, None)).collect();
            return fill(redis, keys, chunk).await.map(Some);
        }
        let window = match self.ahead.take() {
            Some(window) => window?,
            None => {
                read_after(
                    redis.clone(),
                    keys,
                    &self.zset,
                    &self.filter,
                    self.cursor.as_ref(),
                )
                .await?
            }
        };
        if window.len() < WALK {
            self.done = true;
        }
        if window.is_empty() {
            return Ok(None);
        }
        // Move the cursor past this window.
        let last = window.last().and_then(|e| e.score).unwrap_or(f64::INFINITY);
        let mut seen = match self.cursor.take() {
            Some((score, seen)) if score == last => seen,
            _ => HashSet::new(),
        };
        seen.extend(
            window
                .iter()
                .filter(|e| e.score == Some(last))
                .map(|e| e.id.clone()),
        );
        self.cursor = Some((last, seen));
        Ok(Some(
            window
                .into_iter()
                .filter(|e| self.filter.matches(e))
                .collect(),
        ))
    }

    /// Runs `act` on the last chunk while the next window is read, so Redis and qctl work
    /// at the same time.
    pub async fn act_and_read_ahead<T, F>(&mut self, redis: &Redis, keys: &QueueKeys, act: F) -> T
    where
        F: std::future::Future<Output = T>,
    {
        if self.ids.is_some() || self.done {
            return act.await;
        }
        let read = read_after(
            redis.clone(),
            keys,
            &self.zset,
            &self.filter,
            self.cursor.as_ref(),
        );
        let (out, ahead) = tokio::join!(act, read);
        self.ahead = Some(ahead);
        out
    }
}

/// The window of jobs after `cursor` (or from the start of the filter's score range), with
/// records and failures.
async fn read_after(
    mut redis: Redis,
    keys: &QueueKeys,
    zset: &str,
    filter: &Filter,
    cursor: Option<&(f64, HashSet<String>)>,
) -> Result<Vec<Entry>, Error> {
    let (min, skip) = match cursor {
        Some((score, seen)) => (format!("{score}"), Some(seen)),
        None => (
            filter.since.map_or("-inf".to_string(), |s| s.to_string()),
            None,
        ),
    };
    let max = filter.until.map_or("+inf".to_string(), |u| u.to_string());
    let extra = skip.map_or(0, |s| s.len());
    let ids: Vec<(String, f64)> = redis
        .query(
            redis::cmd("ZRANGEBYSCORE")
                .arg(zset)
                .arg(min)
                .arg(max)
                .arg("WITHSCORES")
                .arg("LIMIT")
                .arg(0)
                .arg(WALK + extra),
            format!("reading {zset}"),
        )
        .await?;
    let ids: Vec<(String, Option<f64>)> = ids
        .into_iter()
        .filter(|(id, _)| skip.is_none_or(|seen| !seen.contains(id)))
        .take(WALK)
        .map(|(id, s)| (id, Some(s)))
        .collect();
    fill(&mut redis, keys, ids).await
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
    let mut calls: Vec<(Call, Vec<usize>)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let job = match (&e.job, e.damage()) {
            (Some(Ok(job)), None) => job,
            (None, _) => {
                fates[i] = Fate::Skipped("no record (delete it instead)".into());
                continue;
            }
            (Some(_), why) => {
                let why = why.unwrap_or_default();
                fates[i] = Fate::Skipped(format!("damaged record: {why}"));
                continue;
            }
        };
        let new = Job {
            attempt: if keep_attempts { job.attempt } else { 0 },
            ..job.clone()
        };
        if calls.last().is_none_or(|(_, pos)| pos.len() >= CHUNK) {
            let call = scripts::REQUEUE_DEAD.call(&[
                &keys.dead,
                &keys.active,
                &keys.data,
                &keys.failures,
                &keys.signal,
            ]);
            calls.push((call, Vec::new()));
        }
        let (call, pos) = calls.last_mut().expect("pushed above");
        call.arg(&e.id)
            .arg(e.raw.as_deref().unwrap_or_default())
            .arg(new.encode());
        pos.push(i);
    }
    for (i, flag) in run_calls(redis, calls).await? {
        fates[i] = match flag {
            1 => Fate::Done,
            0 => Fate::NotFound,
            _ => Fate::Skipped("its record changed meanwhile; run again".into()),
        };
    }
    Ok(fates)
}

/// Sends script calls together and pairs each returned flag with its entry's position.
async fn run_calls(
    redis: &mut Redis,
    calls: Vec<(Call<'_>, Vec<usize>)>,
) -> Result<Vec<(usize, i64)>, Error> {
    if calls.is_empty() {
        return Ok(Vec::new());
    }
    let (calls, positions): (Vec<Call>, Vec<Vec<usize>>) = calls.into_iter().unzip();
    let results = if calls.len() == 1 {
        vec![calls[0].invoke::<redis::Value>(redis).await]
    } else {
        scripts::invoke_all(redis, &calls).await?
    };
    let mut out = Vec::new();
    for (result, pos) in results.into_iter().zip(positions) {
        let flags: Vec<i64> = redis::from_redis_value(result?)
            .map_err(|e| Error::from_redis(redis.server(), "reading a script reply", e.into()))?;
        out.extend(pos.into_iter().zip(flags));
    }
    Ok(out)
}

/// One call per [`CHUNK`] ids, each id in ARGV.
fn id_calls<'a>(lua: &'a scripts::Lua, keys: &[&str], ids: &[&str]) -> Vec<(Call<'a>, Vec<usize>)> {
    ids.chunks(CHUNK)
        .enumerate()
        .map(|(n, chunk)| {
            let mut call = lua.call(keys);
            call.arg(chunk);
            (call, (n * CHUNK..n * CHUNK + chunk.len()).collect())
        })
        .collect()
}

/// Removes ids from a sorted set with their records and failures.
pub async fn delete_from(
    redis: &mut Redis,
    keys: &QueueKeys,
    zset: &str,
    ids: &[&str],
) -> Result<Vec<Fate>, Error> {
    let calls = id_calls(&scripts::DELETE, &[zset, &keys.data, &keys.failures], ids);
    let mut fates = vec![Fate::NotFound; ids.len()];
    for (i, flag) in run_calls(redis, calls).await? {
        fates[i] = fate(flag);
    }
    Ok(fates)
}

/// Moves scheduled ids to `NAME:active` now.
pub async fn run_now(
    redis: &mut Redis,
    keys: &QueueKeys,
    ids: &[&str],
) -> Result<Vec<Fate>, Error> {
    let calls = id_calls(
        &scripts::RUN_NOW,
        &[&keys.scheduled, &keys.active, &keys.signal],
        ids,
    );
    let mut fates = vec![Fate::NotFound; ids.len()];
    for (i, flag) in run_calls(redis, calls).await? {
        fates[i] = fate(flag);
    }
    Ok(fates)
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
