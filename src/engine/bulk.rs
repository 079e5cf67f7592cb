//! Bulk changes to the dead set, the scheduled set and the active list: which jobs a command
//! touches (ids, everything, or a filter), walked in chunks of at most 1000 ids so that no
//! call blocks Redis for long, and the guarded scripts that change them. Every step is
//! idempotent: an interrupted run can simply be run again.
//!
//! Walks and calls are bounded in bytes too: a step holds at most [`CALL_BYTES`] of records
//! (or one larger record), and a script call reads, writes or deletes at most that much.

use std::collections::{HashSet, VecDeque};

use super::conn::Redis;
use super::error::Error;
use super::job::Job;
use super::keys::QueueKeys;
use super::listing::{split, Entry, Fetched, Filter, Place, CALL_BYTES, CHUNK};
use super::scripts::{self, Call};

/// Ids read per step of a walk (and at most [`CALL_BYTES`] of their records); they are
/// changed in script calls of at most [`CHUNK`] ids, sent together in one round trip.
pub const WALK: usize = 4 * CHUNK;
/// Dead jobs per requeue call: each costs about 4 µs of Redis time, so a call stays near
/// 2 ms and never holds Redis up for long.
const REQUEUE_CALL: usize = 500;

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
    /// The last id of the last window: the next window starts right after its rank while
    /// it is in the set.
    last: Option<String>,
    done: bool,
    /// Whether entries carry their scores (listings and exports) or not (bulk changes).
    with_scores: bool,
    /// What is read of each job beside its id.
    reading: Reading,
    /// Jobs read and measured that did not fit in the last window's budget: the next ones.
    ahead: Option<Fetched>,
}

/// What a [`Walk`] reads of each job beside its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Its record and recorded failure: for what shows them (exports).
    Everything,
    /// Its record: for changes that rewrite it, and filters on it.
    Records,
    /// The size of its record: for changes that delete it.
    Sizes,
    /// Nothing: for changes that leave records alone.
    Ids,
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
            last: None,
            done: false,
            with_scores: true,
            reading: Reading::Everything,
            ahead: None,
        }
    }

    /// Leaves scores out of the entries, which makes reading cheaper for Redis.
    pub fn without_scores(mut self) -> Walk {
        self.with_scores = false;
        self
    }

    /// Reads less of each job: `reading`, or the records (and failures) when the filter needs
    /// them.
    pub fn reading(mut self, reading: Reading) -> Walk {
        self.reading = match reading {
            _ if self.filter.needs_failures() => Reading::Everything,
            Reading::Sizes | Reading::Ids if self.filter.needs_records() => Reading::Records,
            other => other,
        };
        self
    }

    /// The next window's ids with the bytes of their records, or None at the end. It moves
    /// past the window, so the next call reads the one after, whatever happens to this one.
    /// A window holds at most [`WALK`] ids and [`CALL_BYTES`] of records (or one larger).
    pub async fn fetch(
        &mut self,
        redis: &mut Redis,
        keys: &QueueKeys,
    ) -> Result<Option<Fetched>, Error> {
        let reading = self.reading;
        let mut window = match self.ahead.take() {
            Some(ahead) => ahead,
            None if self.done => return Ok(None),
            None => {
                let ids = match &mut self.ids {
                    Some(ids) => {
                        let n = ids.len().min(WALK);
                        ids.drain(..n).map(|id| (id, None)).collect()
                    }
                    None => {
                        let cursor = self.cursor.as_ref().zip(self.last.as_deref());
                        read_after(redis, &self.zset, &self.filter, cursor, self.with_scores)
                            .await?
                    }
                };
                if ids.len() < WALK || self.ids.as_ref().is_some_and(VecDeque::is_empty) {
                    self.done = true;
                }
                measure(redis, keys, ids, reading).await?
            }
        };
        if window.is_empty() {
            return Ok(None);
        }
        // One budget of records at most: the jobs beyond make the next window.
        let rest = window.truncate(CALL_BYTES);
        if !rest.is_empty() {
            self.ahead = Some(rest);
        }
        if self.ids.is_none() {
            if !self.with_scores {
                let seen = self.cursor.as_ref().map_or(0, |(_, seen)| seen.len());
                mark_last_score(redis, &self.zset, window.ids_mut(), seen).await?;
            }
            self.advance(window.ids());
        }
        if matches!(reading, Reading::Everything | Reading::Records) {
            window.read(redis, keys).await?;
        }
        Ok(Some(window))
    }

    /// Moves the cursor past a window of the sorted set.
    fn advance(&mut self, ids: &[(String, Option<f64>)]) {
        let last = ids.last().and_then(|(_, s)| *s).unwrap_or(f64::INFINITY);
        let mut seen = match self.cursor.take() {
            Some((score, seen)) if score == last => seen,
            _ => HashSet::new(),
        };
        seen.extend(
            ids.iter()
                .filter(|(_, s)| *s == Some(last))
                .map(|(id, _)| id.clone()),
        );
        self.cursor = Some((last, seen));
        self.last = ids.last().map(|(id, _)| id.clone());
    }

    /// Decodes a fetched window and keeps the jobs the filter selects.
    pub fn select(&self, window: Fetched) -> Vec<Entry> {
        window
            .decode()
            .into_iter()
            .filter(|e| self.filter.matches(e))
            .collect()
    }

    /// The next chunk of selected jobs (with records), or None at the end. For a filter,
    /// a chunk may be empty when nothing in it matched.
    pub async fn next(
        &mut self,
        redis: &mut Redis,
        keys: &QueueKeys,
    ) -> Result<Option<Vec<Entry>>, Error> {
        Ok(self.fetch(redis, keys).await?.map(|w| self.select(w)))
    }
}

/// The sizes of what `reading` asks of the jobs.
async fn measure(
    redis: &mut Redis,
    keys: &QueueKeys,
    ids: Vec<(String, Option<f64>)>,
    reading: Reading,
) -> Result<Fetched, Error> {
    match reading {
        Reading::Ids => Ok(Fetched::unmeasured(ids)),
        Reading::Everything => Fetched::measure(redis, keys, ids, true).await,
        Reading::Sizes | Reading::Records => Fetched::measure(redis, keys, ids, false).await,
    }
}

/// The ids of the window of jobs after `cursor` (or from the start of the filter's score
/// range), at most [`WALK`]. A walk that reads (with scores) goes on from the rank of the
/// last id read while it is in the set (ZRANK, then ZRANGE by rank): many jobs of one score
/// cost no more than any others, and a job that enters or leaves the set meanwhile may be
/// missed, as in any read of a set that changes. A walk that changes the set, or whose last
/// id has left it, reads by score from the last one, past the ids of that score already
/// seen: its own step moves ranks under it.
async fn read_after(
    redis: &mut Redis,
    zset: &str,
    filter: &Filter,
    cursor: Option<(&(f64, HashSet<String>), &str)>,
    with_scores: bool,
) -> Result<Vec<(String, Option<f64>)>, Error> {
    if let Some((_, last)) = cursor.filter(|_| with_scores) {
        let rank: Option<u64> = redis
            .query(
                redis::cmd("ZRANK").arg(zset).arg(last),
                format!("ZRANK {zset}"),
            )
            .await?;
        if let Some(rank) = rank {
            return read_ranks(redis, zset, filter, rank + 1).await;
        }
    }
    let cursor = cursor.map(|(c, _)| c);
    let (min, skip) = match cursor {
        Some((score, seen)) => (format!("{score}"), Some(seen)),
        None => (
            filter.since.map_or("-inf".to_string(), |s| s.to_string()),
            None,
        ),
    };
    let max = filter.until.map_or("+inf".to_string(), |u| u.to_string());
    let extra = skip.map_or(0, |s| s.len());
    let mut range = redis::cmd("ZRANGEBYSCORE");
    range.arg(zset).arg(&min).arg(&max);
    if with_scores {
        range.arg("WITHSCORES");
    }
    range.arg("LIMIT").arg(0).arg(WALK + extra);
    let ids: Vec<(String, Option<f64>)> = if with_scores {
        let ids: Vec<(String, f64)> = redis.query(&range, format!("ZRANGEBYSCORE {zset}")).await?;
        ids.into_iter().map(|(id, s)| (id, Some(s))).collect()
    } else {
        let ids: Vec<String> = redis.query(&range, format!("ZRANGEBYSCORE {zset}")).await?;
        ids.into_iter().map(|id| (id, None)).collect()
    };
    Ok(ids
        .into_iter()
        .filter(|(id, _)| skip.is_none_or(|seen| !seen.contains(id)))
        .take(WALK)
        .collect())
}

/// The window of at most [`WALK`] ids from rank `from` on, up to the filter's last score.
async fn read_ranks(
    redis: &mut Redis,
    zset: &str,
    filter: &Filter,
    from: u64,
) -> Result<Vec<(String, Option<f64>)>, Error> {
    let mut range = redis::cmd("ZRANGE");
    range
        .arg(zset)
        .arg(from)
        .arg(from + WALK as u64 - 1)
        .arg("WITHSCORES");
    let ids: Vec<(String, f64)> = redis.query(&range, format!("ZRANGE {zset}")).await?;
    let until = filter.until.unwrap_or(f64::INFINITY);
    Ok(ids
        .into_iter()
        .take_while(|(_, s)| *s <= until)
        .map(|(id, s)| (id, Some(s)))
        .collect())
}

/// Gives the window's last score to the jobs that have it (the walk's cursor needs no
/// other score, and formatting scores costs Redis more than the rest of the read). Jobs of
/// one score come in member order, the `seen` ones of earlier windows first: reading as many
/// as those and a window covers this window's.
async fn mark_last_score(
    redis: &mut Redis,
    zset: &str,
    ids: &mut [(String, Option<f64>)],
    seen: usize,
) -> Result<(), Error> {
    let Some((last_id, _)) = ids.last() else {
        return Ok(());
    };
    let score: Option<f64> = redis
        .query(
            redis::cmd("ZSCORE").arg(zset).arg(last_id),
            format!("ZSCORE {zset}"),
        )
        .await?;
    let Some(score) = score else { return Ok(()) };
    let ties: Vec<String> = redis
        .query(
            redis::cmd("ZRANGEBYSCORE")
                .arg(zset)
                .arg(score)
                .arg(score)
                .arg("LIMIT")
                .arg(0)
                .arg(WALK + seen),
            format!("ZRANGEBYSCORE {zset}"),
        )
        .await?;
    let ties: HashSet<String> = ties.into_iter().collect();
    for (id, s) in ids.iter_mut() {
        if ties.contains(id) {
            *s = Some(score);
        }
    }
    if let Some(last) = ids.last_mut() {
        last.1 = Some(score);
    }
    Ok(())
}

/// What happened to each id of a bulk step.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    Done,
    NotFound,
    Skipped(String),
}

/// What a bulk command does to each selected job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Action {
    /// Dead jobs back to the tail of `NAME:active`: Attempt 0 (or kept), failure cleared,
    /// consumers woken.
    Requeue { keep_attempts: bool },
    /// Out of a sorted set (dead or scheduled), with records and failures.
    Delete,
    /// Out of `NAME:active`, with records and failures.
    DeleteActive,
    /// Scheduled jobs to `NAME:active` now.
    RunNow,
}

impl Action {
    /// The CLI's verb: `requeue`, `delete`, `run now`.
    pub fn verb(self) -> &'static str {
        match self {
            Action::Requeue { .. } => "requeue",
            Action::Delete | Action::DeleteActive => "delete",
            Action::RunNow => "run now",
        }
    }

    /// What was done, in the CLI's closing words: `requeued`, `deleted`, `made ready`.
    pub fn past(self) -> &'static str {
        match self {
            Action::Requeue { .. } => "requeued",
            Action::Delete | Action::DeleteActive => "deleted",
            Action::RunNow => "made ready",
        }
    }

    /// The change as the queue's record of changes names it, by the command that makes it:
    /// `dead requeue`, `scheduled run-now`, `active delete`.
    pub fn recorded(self, place: Place) -> String {
        let noun = match place {
            Place::Dead => "dead",
            Place::Scheduled => "scheduled",
            Place::Active => "active",
        };
        let verb = match self {
            Action::Requeue { .. } => "requeue",
            Action::Delete | Action::DeleteActive => "delete",
            Action::RunNow => "run-now",
        };
        format!("{noun} {verb}")
    }
}

/// The script calls for one chunk, made before they are sent so that the next chunk can
/// be prepared while Redis runs this one.
pub struct Plan {
    action: Action,
    calls: Vec<(Call<'static>, Vec<usize>)>,
    fates: Vec<Fate>,
}

/// Prepares `action` on `entries` of the set `set`. Dead jobs without a usable record are
/// skipped with the reason. A call deletes or carries at most [`CALL_BYTES`] of records (or
/// one larger record).
pub fn plan(action: Action, keys: &QueueKeys, set: &str, entries: &[Entry]) -> Plan {
    let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    let sizes: Vec<usize> = entries.iter().map(|e| e.size).collect();
    let mut fates = vec![Fate::NotFound; entries.len()];
    let calls = match action {
        Action::Delete => id_calls(
            &scripts::DELETE,
            &[set, &keys.data, &keys.failures],
            &ids,
            &sizes,
            CHUNK,
        ),
        // Records stay where they are: only the ids count.
        Action::RunNow => id_calls(
            &scripts::RUN_NOW,
            &[&keys.scheduled, &keys.active, &keys.signal],
            &ids,
            &vec![0; ids.len()],
            CHUNK,
        ),
        // LREM walks the list: fewer ids per call.
        Action::DeleteActive => id_calls(
            &scripts::DELETE_ACTIVE,
            &[&keys.active, &keys.data, &keys.failures],
            &ids,
            &sizes,
            100,
        ),
        Action::Requeue { keep_attempts } => {
            let mut calls: Vec<(Call<'static>, Vec<usize>)> = Vec::new();
            // The bytes each call carries: every job's record as read, and its new one.
            let mut carried: Vec<usize> = Vec::new();
            for (i, e) in entries.iter().enumerate() {
                let job = match (&e.job, e.damage()) {
                    (Some(Ok(job)), None) => job,
                    (None, _) => {
                        fates[i] = Fate::Skipped("no record (delete it instead)".into());
                        continue;
                    }
                    (Some(_), why) => {
                        fates[i] =
                            Fate::Skipped(format!("damaged record: {}", why.unwrap_or_default()));
                        continue;
                    }
                };
                let new = Job {
                    attempt: if keep_attempts { job.attempt } else { 0 },
                    ..job.clone()
                }
                .encode();
                let raw = e.raw.as_deref().unwrap_or_default();
                let bytes = raw.len() + new.len();
                let full = calls
                    .last()
                    .is_none_or(|(_, pos)| pos.len() >= REQUEUE_CALL)
                    || carried.last().is_some_and(|&c| c + bytes > CALL_BYTES);
                if full {
                    let call = scripts::REQUEUE_DEAD.call(&[
                        &keys.dead,
                        &keys.active,
                        &keys.data,
                        &keys.failures,
                        &keys.signal,
                    ]);
                    calls.push((call, Vec::new()));
                    carried.push(0);
                }
                let (call, pos) = calls.last_mut().expect("pushed above");
                call.arg(&e.id).arg(raw).arg(new);
                pos.push(i);
                *carried.last_mut().expect("pushed above") += bytes;
            }
            calls
        }
    };
    Plan {
        action,
        calls,
        fates,
    }
}

impl Plan {
    /// Each entry's fate before the calls run: skipped (with the reason) or not found until a
    /// call says otherwise.
    pub fn fates(&self) -> &[Fate] {
        &self.fates
    }
}

/// A job of a bulk step, once its record has gone into the step's calls.
pub struct Planned {
    pub id: String,
    /// Whether it had a record when it was read.
    pub recorded: bool,
}

/// What became of a chunk whose calls failed (a lost reply, a refusal of some of them),
/// read back from Redis: each entry the plan sent is done if it has left the set or list
/// (each script removes it from there atomically with the rest of its change), else `None`:
/// left as it was. `planned` is [`Plan::fates`], read before the plan was executed.
pub async fn read_back(
    redis: &mut Redis,
    action: Action,
    set: &str,
    jobs: &[Planned],
    planned: Vec<Fate>,
) -> Result<Vec<Option<Fate>>, Error> {
    let sent: Vec<usize> = (0..jobs.len())
        .filter(|&i| planned[i] == Fate::NotFound)
        .collect();
    let mut pipe = redis::pipe();
    for &i in &sent {
        match action {
            Action::DeleteActive => pipe.cmd("LPOS").arg(set).arg(&jobs[i].id),
            _ => pipe.cmd("ZSCORE").arg(set).arg(&jobs[i].id),
        };
    }
    let still: Vec<Option<redis::Value>> = if sent.is_empty() {
        Vec::new()
    } else {
        redis
            .pipeline(&pipe, format!("reading back {set} after a failed step"))
            .await?
    };
    let mut fates: Vec<Option<Fate>> = planned.into_iter().map(Some).collect();
    for (i, there) in sent.into_iter().zip(still) {
        fates[i] = match there {
            Some(_) => None,
            // An id given for the active list without a record may never have been there.
            None if action == Action::DeleteActive && !jobs[i].recorded => Some(Fate::NotFound),
            None => Some(Fate::Done),
        };
    }
    Ok(fates)
}

/// Sends a plan's calls in one round trip; returns each entry's fate.
pub async fn execute(redis: &mut Redis, plan: Plan) -> Result<Vec<Fate>, Error> {
    let Plan {
        action,
        calls,
        mut fates,
    } = plan;
    for (i, flag) in run_calls(redis, calls).await? {
        fates[i] = match (flag, action) {
            (1, _) => Fate::Done,
            (-1, Action::Requeue { .. }) => {
                Fate::Skipped("its record changed meanwhile; run again".into())
            }
            _ => Fate::NotFound,
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

/// One call per `max` ids and [`CALL_BYTES`] of their records (`sizes`), each id in ARGV.
fn id_calls(
    lua: &'static scripts::Lua,
    keys: &[&str],
    ids: &[&str],
    sizes: &[usize],
    max: usize,
) -> Vec<(Call<'static>, Vec<usize>)> {
    split(sizes, max, CALL_BYTES)
        .into_iter()
        .map(|range| {
            let mut call = lua.call(keys);
            call.arg(&ids[range.clone()]);
            (call, range.collect())
        })
        .collect()
}

/// What a bulk change did, step by step as [`change`] tells its observer, and in the end.
#[derive(Debug, Default)]
pub struct Outcome {
    pub done: u64,
    /// Ids that were not in the set or list (anymore).
    pub missing: Vec<String>,
    /// Ids left as they were, and why.
    pub skipped: Vec<(String, String)>,
    /// Jobs of the last step whose fate is not known: a forced stop did not wait for its
    /// answer, or its reply was lost and reading back failed.
    pub unconfirmed: u64,
    /// Whether a stop request ended the walk before it was through.
    pub cut_short: bool,
    /// What ended it early, if something failed: a change or a read.
    pub failure: Option<Failed>,
}

/// A failure that ended a bulk change before it was through.
#[derive(Debug)]
pub enum Failed {
    /// A step's change failed (what it did was read back).
    Change(Error),
    /// Reading the next step failed.
    Read(Error),
}

/// Runs a bulk change over `selection` of `set` in steps: each step's script calls on
/// `redis` while the next step is read on `reader` (so that Redis serves the reads between
/// this step's calls). `requested` ends it at a clean point between steps; `forced` stops
/// waiting for the step in flight (its jobs then count as unconfirmed). `each` hears of
/// every job of every step with its fate (None: not known). An error reading the first
/// step is returned; every later failure ends the run and is in [`Outcome::failure`] with
/// what was done up to it.
#[allow(clippy::too_many_arguments)]
pub async fn change(
    redis: &mut Redis,
    reader: &mut Redis,
    keys: &QueueKeys,
    set: &str,
    selection: &Selection,
    action: Action,
    requested: &tokio_util::sync::CancellationToken,
    forced: &tokio_util::sync::CancellationToken,
    mut each: impl FnMut(&str, Option<&Fate>),
) -> Result<Outcome, Error> {
    // Records are read only where the change needs them; deletions need their sizes.
    let reading = match action {
        Action::Requeue { .. } => Reading::Records,
        Action::Delete | Action::DeleteActive => Reading::Sizes,
        Action::RunNow => Reading::Ids,
    };
    let mut walk = Walk::new(set, selection).without_scores().reading(reading);
    let mut outcome = Outcome::default();
    let mut current = walk
        .fetch(reader, keys)
        .await?
        .map(|window| planned(action, keys, set, walk.select(window)));
    while let Some((chunk, plan)) = current.take() {
        if requested.is_cancelled() {
            outcome.cut_short = true;
            break;
        }
        let fates_planned = plan.fates().to_vec();
        let running = execute(redis, plan);
        let preparing = async {
            let Some(window) = walk.fetch(reader, keys).await? else {
                return Ok(None);
            };
            Ok::<_, Error>(Some(planned(action, keys, set, walk.select(window))))
        };
        let (fates, next) = tokio::select! {
            both = async { tokio::join!(running, preparing) } => both,
            _ = forced.cancelled() => {
                outcome.unconfirmed = chunk.len() as u64;
                outcome.cut_short = true;
                break;
            }
        };
        let fates: Vec<Option<Fate>> = match fates {
            Ok(fates) => fates.into_iter().map(Some).collect(),
            // Some calls may have run: Redis tells which jobs moved.
            Err(err) => {
                let read = read_back(redis, action, set, &chunk, fates_planned).await;
                outcome.failure = Some(Failed::Change(err));
                match read {
                    Ok(fates) => fates,
                    Err(_) => {
                        outcome.unconfirmed = chunk.len() as u64;
                        break;
                    }
                }
            }
        };
        for (job, fate) in chunk.iter().zip(fates) {
            each(&job.id, fate.as_ref());
            match fate {
                Some(Fate::Done) => outcome.done += 1,
                Some(Fate::NotFound) => outcome.missing.push(job.id.clone()),
                Some(Fate::Skipped(why)) => outcome.skipped.push((job.id.clone(), why)),
                None => {}
            }
        }
        if outcome.failure.is_some() {
            break;
        }
        current = match next {
            Ok(next) => next,
            Err(err) => {
                outcome.failure = Some(Failed::Read(err));
                break;
            }
        };
    }
    Ok(outcome)
}

/// The plan of a step, and the step's ids: its records are in the plan's calls now, and are
/// not held twice while they run.
fn planned(action: Action, keys: &QueueKeys, set: &str, chunk: Vec<Entry>) -> (Vec<Planned>, Plan) {
    let plan = plan(action, keys, set, &chunk);
    let ids = chunk
        .into_iter()
        .map(|e| Planned {
            recorded: e.raw.is_some() || e.size > 0,
            id: e.id,
        })
        .collect();
    (ids, plan)
}

/// Splits ids into those in the sorted set `set` and those not in it, in one round trip.
pub async fn in_zset(
    redis: &mut Redis,
    set: &str,
    ids: Vec<String>,
) -> Result<(Vec<String>, Vec<String>), Error> {
    let mut pipe = redis::pipe();
    for id in &ids {
        pipe.zscore(set, id);
    }
    let scores: Vec<Option<f64>> = redis.pipeline(&pipe, format!("ZSCORE {set}")).await?;
    let (present, absent): (Vec<_>, Vec<_>) = ids
        .into_iter()
        .zip(scores)
        .partition(|(_, score)| score.is_some());
    Ok((
        present.into_iter().map(|(id, _)| id).collect(),
        absent.into_iter().map(|(id, _)| id).collect(),
    ))
}

/// How many jobs a selection touches and up to `sample` of their ids; reads only.
pub async fn preview(
    redis: &mut Redis,
    keys: &QueueKeys,
    set: &str,
    selection: &Selection,
    sample_size: usize,
) -> Result<(u64, Vec<String>), Error> {
    match selection {
        Selection::Ids(ids) => Ok((
            ids.len() as u64,
            ids.iter().take(sample_size).cloned().collect(),
        )),
        Selection::Matching(filter) => {
            let (mut count, mut sample) = (0u64, Vec::new());
            if !filter.needs_records() {
                // The score range alone decides: count it without reading records.
                let min = filter.since.map_or("-inf".to_string(), |s| s.to_string());
                let max = filter.until.map_or("+inf".to_string(), |s| s.to_string());
                let mut pipe = redis::pipe();
                pipe.zcount(set, &min, &max);
                pipe.cmd("ZRANGEBYSCORE")
                    .arg(set)
                    .arg(&min)
                    .arg(&max)
                    .arg("LIMIT")
                    .arg(0)
                    .arg(sample_size);
                let (n, first): (u64, Vec<String>) =
                    redis.pipeline(&pipe, format!("counting {set}")).await?;
                sample = first;
                return Ok((n, sample));
            }
            let mut walk = Walk::new(set, selection).reading(Reading::Records);
            while let Some(chunk) = walk.next(redis, keys).await? {
                count += chunk.len() as u64;
                sample.extend(
                    chunk
                        .iter()
                        .take(sample_size - sample.len().min(sample_size))
                        .map(|e| e.id.clone()),
                );
            }
            Ok((count, sample))
        }
    }
}
