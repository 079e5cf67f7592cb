//! Reading pages of jobs from the dead set, the scheduled set and the active list, with
//! their records and recorded failures. Pages are found by rank, so deep pages stay fast;
//! filters that need the record scan in bounded chunks.
//!
//! Every read is bounded in bytes as well as in jobs: the stored lengths are asked first
//! (HSTRLEN, O(1) each), and records are read in calls of at most [`CALL_BYTES`], so a queue
//! of big records neither holds Redis up nor needs more memory here than a budget or two.

use std::ops::Range;

use super::conn::Redis;
use super::error::Error;
use super::failure::Failure;
use super::job::{DecodeError, Job};
use super::keys::QueueKeys;
use super::text::{printable, shell_quote, thousands};

/// Ids read per round trip when a filter must look at records.
pub const CHUNK: usize = 1000;

/// The byte budget of one call: the most bytes of job records and recorded failures that
/// one call reads, writes or deletes (a reservation, an ack, a read of records, a bulk
/// script), and that a chunk of a listing or a step of a bulk walk holds. A record larger
/// than this travels alone. Redis copies this much in about 10 ms (measured: 8 MiB through a
/// script in 14-17 ms, by HMGET in under 1 ms to 4 ms, on a 2-core machine), so no call
/// holds it up for long and every reply arrives well within `--response-timeout`.
pub const CALL_BYTES: usize = 8 << 20;

/// How many of the first `sizes` fit in `budget` bytes together, at least one (when there is
/// one): a record larger than the budget goes alone.
pub fn within(sizes: impl IntoIterator<Item = usize>, budget: usize) -> usize {
    let mut total = 0usize;
    let mut n = 0;
    for size in sizes {
        total = total.saturating_add(size);
        if n > 0 && total > budget {
            break;
        }
        n += 1;
    }
    n
}

/// Splits `sizes` into consecutive ranges of at most `max` items and at most `budget` bytes
/// each (an item larger than the budget alone).
pub fn split(sizes: &[usize], max: usize, budget: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < sizes.len() {
        let n = within(sizes[start..].iter().copied().take(max.max(1)), budget);
        out.push(start..start + n);
        start += n;
    }
    out
}

/// The stored bytes of each id's record, and of its recorded failure too with `failures`,
/// with HSTRLEN (O(1) each) in one round trip.
pub async fn sizes(
    redis: &mut Redis,
    keys: &QueueKeys,
    ids: &[&str],
    failures: bool,
) -> Result<Vec<usize>, Error> {
    let hashes: &[&str] = if failures {
        &[&keys.data, &keys.failures]
    } else {
        &[&keys.data]
    };
    lengths(redis, hashes, ids).await
}

/// The stored bytes of each id's fields in `hashes` together, with HSTRLEN (O(1) each) in
/// one round trip.
pub async fn lengths(
    redis: &mut Redis,
    hashes: &[&str],
    ids: &[&str],
) -> Result<Vec<usize>, Error> {
    if ids.is_empty() || hashes.is_empty() {
        return Ok(vec![0; ids.len()]);
    }
    let mut pipe = redis::pipe();
    for id in ids {
        for hash in hashes {
            pipe.cmd("HSTRLEN").arg(hash).arg(id);
        }
    }
    let op = format!("HSTRLEN {}", hashes.join(" and "));
    let lengths: Vec<usize> = match redis.pipeline(&pipe, &op).await {
        Ok(lengths) => lengths,
        // Which key refused (a wrong type, say): asked again, one answer per command.
        Err(Error::Redis { .. }) => {
            pipe.ignore_errors();
            let answers = redis
                .pipeline_all(&pipe, |i| format!("HSTRLEN {}", hashes[i % hashes.len()]))
                .await?;
            redis::from_redis_value(redis::Value::Array(answers))
                .map_err(|e| Error::from_redis(redis.server(), op, e.into()))?
        }
        Err(e) => return Err(e),
    };
    Ok(lengths
        .chunks(hashes.len())
        .map(|l| l.iter().sum())
        .collect())
}

/// One listed job.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: String,
    /// Its score (death or due time); in the active list, how many jobs are ahead of it
    /// (its index from the head: 0 is next to run).
    pub score: Option<f64>,
    /// None when the id has no record (or the record was not read).
    pub job: Option<Result<Job, DecodeError>>,
    /// The record's bytes as stored.
    pub raw: Option<Vec<u8>>,
    pub failure: Option<Failure>,
    /// The recorded failure's bytes as stored, when it was read.
    pub failure_raw: Option<Vec<u8>>,
    /// The stored bytes of its record, with those of its recorded failure when that was read.
    pub size: usize,
}

impl Entry {
    pub fn attempt(&self) -> Option<i64> {
        self.job.as_ref()?.as_ref().ok().map(|j| j.attempt)
    }

    pub fn data(&self) -> Option<&[u8]> {
        self.job.as_ref()?.as_ref().ok().map(|j| j.data_bytes())
    }

    /// Why the record cannot be used, if it cannot.
    pub fn damage(&self) -> Option<String> {
        match &self.job {
            None => Some("no record".into()),
            Some(Err(e)) => Some(e.to_string()),
            Some(Ok(j)) if j.id != self.id => Some(format!("record names another id {:?}", j.id)),
            Some(Ok(_)) => None,
        }
    }
}

/// The three places a job can wait: the dead set, the scheduled set, the ready list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Place {
    Dead,
    Scheduled,
    Active,
}

impl Place {
    /// Its key.
    pub fn key(self, keys: &QueueKeys) -> &str {
        match self {
            Place::Dead => &keys.dead,
            Place::Scheduled => &keys.scheduled,
            Place::Active => &keys.active,
        }
    }

    /// What a listed job's score is called in JSON: `died`, or `due`.
    pub fn score_name(self) -> &'static str {
        match self {
            Place::Dead => "died",
            _ => "due",
        }
    }

    /// Its jobs, in words: `dead jobs`, `scheduled jobs`, `ready jobs`.
    pub fn jobs(self) -> &'static str {
        match self {
            Place::Dead => "dead jobs",
            Place::Scheduled => "scheduled jobs",
            Place::Active => "ready jobs",
        }
    }
}

/// Which jobs of a set to show.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Data contains this text.
    pub grep: Option<String>,
    /// Score at or after.
    pub since: Option<f64>,
    /// Score at or before.
    pub until: Option<f64>,
    pub min_attempts: Option<i64>,
    /// The recorded failure's reason or stderr contains this text, ignoring case. A job
    /// without a failure record never matches.
    pub reason: Option<String>,
    /// The recorded failure is of this group: a fingerprint of [`super::groups`], or
    /// [`super::groups::NONE`] for jobs without a failure record.
    pub group: Option<String>,
}

impl Filter {
    /// The filter for jobs in `place`: ready jobs have no time, so selecting them by one is
    /// refused rather than ignored.
    pub fn for_place(self, place: Place) -> Result<Filter, Error> {
        if place == Place::Active && (self.since.is_some() || self.until.is_some()) {
            return Err(Error::Usage(
                "--since and --until select by time, and ready jobs have none (a dead job has \
                 its time of death, a scheduled one its due time): use --grep, --reason, \
                 --group or --min-attempts"
                    .into(),
            ));
        }
        Ok(self)
    }

    /// Whether it needs to read each job (its record or its failure), not only the scores.
    pub fn needs_records(&self) -> bool {
        self.grep.is_some() || self.min_attempts.is_some() || self.needs_failures()
    }

    /// Whether it needs the recorded failures.
    pub fn needs_failures(&self) -> bool {
        self.reason.is_some() || self.group.is_some()
    }

    pub fn is_empty(&self) -> bool {
        !self.needs_records() && self.since.is_none() && self.until.is_none()
    }

    pub fn matches(&self, e: &Entry) -> bool {
        if let Some(min) = self.min_attempts {
            if e.attempt().is_none_or(|a| a < min) {
                return false;
            }
        }
        if let Some(text) = &self.grep {
            let hay = e.data().unwrap_or_default();
            if !memfind(hay, text.as_bytes()) {
                return false;
            }
        }
        if let Some(text) = &self.reason {
            let Some(f) = &e.failure else { return false };
            let text = text.to_lowercase();
            if !f.reason.to_lowercase().contains(&text) && !f.stderr.to_lowercase().contains(&text)
            {
                return false;
            }
        }
        if let Some(group) = &self.group {
            if !group.eq_ignore_ascii_case(&super::groups::fingerprint(e.failure.as_ref())) {
                return false;
            }
        }
        true
    }

    fn min(&self) -> String {
        self.since.map_or("-inf".into(), |s| s.to_string())
    }

    fn max(&self) -> String {
        self.until.map_or("+inf".into(), |s| s.to_string())
    }
}

fn memfind(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

/// Ids with the stored sizes of their records (and failures) and, once read, their bytes,
/// not yet decoded.
pub struct Fetched {
    ids: Vec<(String, Option<f64>)>,
    sizes: Vec<usize>,
    /// Whether the recorded failures are measured and read along with the records (only
    /// what shows them needs them).
    with_failures: bool,
    records: Vec<Option<Vec<u8>>>,
    failures: Vec<Option<Vec<u8>>>,
}

impl Fetched {
    /// Asks the sizes of the ids' records, and of their failures too with `failures` (one
    /// round trip); nothing is read yet.
    pub async fn measure(
        redis: &mut Redis,
        keys: &QueueKeys,
        ids: Vec<(String, Option<f64>)>,
        failures: bool,
    ) -> Result<Fetched, Error> {
        let names: Vec<&str> = ids.iter().map(|(id, _)| id.as_str()).collect();
        let sizes = sizes(redis, keys, &names, failures).await?;
        Ok(Fetched {
            ids,
            sizes,
            with_failures: failures,
            records: Vec::new(),
            failures: Vec::new(),
        })
    }

    /// The ids alone, their sizes not asked (counted as 0) and nothing read.
    pub fn unmeasured(ids: Vec<(String, Option<f64>)>) -> Fetched {
        Fetched {
            sizes: vec![0; ids.len()],
            ids,
            with_failures: false,
            records: Vec::new(),
            failures: Vec::new(),
        }
    }

    /// The ids with their scores.
    pub fn ids(&self) -> &[(String, Option<f64>)] {
        &self.ids
    }

    /// The ids with their scores, to change the scores.
    pub fn ids_mut(&mut self) -> &mut [(String, Option<f64>)] {
        &mut self.ids
    }

    /// Whether it holds no ids.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Keeps the first ids whose records and failures fit in `budget` bytes together (at
    /// least one), before anything is read; returns the others, in order, with their sizes.
    pub fn truncate(&mut self, budget: usize) -> Fetched {
        let n = within(self.sizes.iter().copied(), budget).min(self.ids.len());
        Fetched {
            ids: self.ids.split_off(n),
            sizes: self.sizes.split_off(n.min(self.sizes.len())),
            with_failures: self.with_failures,
            records: Vec::new(),
            failures: Vec::new(),
        }
    }

    /// Reads the records (and failures), in calls of at most [`CALL_BYTES`] each (a record
    /// larger than that alone), one after the other.
    pub async fn read(&mut self, redis: &mut Redis, keys: &QueueKeys) -> Result<(), Error> {
        self.records.clear();
        self.failures.clear();
        for range in split(&self.sizes, self.ids.len(), CALL_BYTES) {
            let names: Vec<&str> = self.ids[range].iter().map(|(id, _)| id.as_str()).collect();
            let mut pipe = redis::pipe();
            pipe.cmd("HMGET").arg(&keys.data).arg(&names);
            if self.with_failures {
                pipe.cmd("HMGET").arg(&keys.failures).arg(&names);
            }
            pipe.ignore_errors();
            let replies = match redis
                .pipeline_all(&pipe, |i| {
                    format!("HMGET {}", [&keys.data, &keys.failures][i.min(1)])
                })
                .await
            {
                Ok(replies) => replies,
                Err(e) => return Err(e.confirm(redis).await),
            };
            let mut it = replies.into_iter().map(|v| {
                redis::from_redis_value::<Vec<Option<Vec<u8>>>>(v)
                    .map_err(|e| Error::from_redis(redis.server(), "reading job records", e.into()))
            });
            let mut records = it.next().transpose()?.unwrap_or_default();
            let mut failures = it.next().transpose()?.unwrap_or_default();
            records.resize(names.len(), None);
            failures.resize(names.len(), None);
            self.records.extend(records);
            self.failures.extend(failures);
        }
        Ok(())
    }

    /// Decodes the records and failures; without [`Fetched::read`], entries have neither.
    pub fn decode(self) -> Vec<Entry> {
        let Fetched {
            ids,
            mut sizes,
            mut records,
            mut failures,
            ..
        } = self;
        sizes.resize(ids.len(), 0);
        records.resize(ids.len(), None);
        failures.resize(ids.len(), None);
        ids.into_iter()
            .zip(sizes)
            .zip(records.into_iter().zip(failures))
            .map(|(((id, score), size), (raw, failure))| Entry {
                job: raw.as_deref().map(Job::decode),
                raw,
                failure: failure.as_deref().and_then(Failure::from_json),
                failure_raw: failure,
                size,
                id,
                score,
            })
            .collect()
    }
}

/// Reads the records and failures of ids: their sizes in one round trip, then the bytes in
/// calls of at most [`CALL_BYTES`]. The caller bounds how many ids it asks for at once.
pub async fn fetch(
    redis: &mut Redis,
    keys: &QueueKeys,
    ids: Vec<(String, Option<f64>)>,
) -> Result<Fetched, Error> {
    let mut fetched = Fetched::measure(redis, keys, ids, true).await?;
    fetched.read(redis, keys).await?;
    Ok(fetched)
}

/// Fills records and failures for ids (see [`fetch`]).
pub async fn fill(
    redis: &mut Redis,
    keys: &QueueKeys,
    ids: Vec<(String, Option<f64>)>,
) -> Result<Vec<Entry>, Error> {
    Ok(fetch(redis, keys, ids).await?.decode())
}

/// Where a [`Pager`] reads from.
enum Source {
    /// A sorted set; ranks `[lo, lo + total)` hold the filter's score range.
    Zset {
        zset: String,
        newest_first: bool,
        lo: u64,
    },
    /// `NAME:active` from the head.
    Active,
}

/// A page of a listing, read in chunks of at most [`CHUNK`] jobs and [`CALL_BYTES`] of
/// records (or one larger record) so that a long page (a `--jsonl` export of everything) is
/// written out as it is read, in bounded memory. Pages are
/// found by rank; a filter on records skips `offset` matches from the start.
pub struct Pager {
    source: Source,
    filter: Filter,
    offset: u64,
    limit: u64,
    /// Jobs in the range (before record filters).
    total: u64,
    /// Position in the range of the next read.
    pos: u64,
    /// Matches skipped for the offset (record filters only).
    skipped: u64,
    /// Jobs handed out.
    emitted: u64,
    next_offset: Option<u64>,
    /// Ids read and measured that did not fit in the last chunk's budget: the next ones.
    ahead: Option<Fetched>,
}

impl Pager {
    /// A page of the jobs in `place` as the listings show them: the dead newest first, the
    /// scheduled soonest due first, the ready next to run first.
    pub async fn of(
        redis: &mut Redis,
        keys: &QueueKeys,
        place: Place,
        filter: &Filter,
        offset: u64,
        limit: u64,
    ) -> Result<Pager, Error> {
        match place {
            Place::Active => Pager::active(redis, keys, filter, offset, limit).await,
            Place::Dead => Pager::zset(redis, &keys.dead, true, filter, offset, limit).await,
            Place::Scheduled => {
                Pager::zset(redis, &keys.scheduled, false, filter, offset, limit).await
            }
        }
    }

    /// A page of a sorted set, `newest_first` or oldest first, after `offset` matches.
    pub async fn zset(
        redis: &mut Redis,
        zset: &str,
        newest_first: bool,
        filter: &Filter,
        offset: u64,
        limit: u64,
    ) -> Result<Pager, Error> {
        // The ranks of the score range, found with ZCOUNT (O(log N)).
        let mut pipe = redis::pipe();
        pipe.zcount(zset, "-inf", format!("({}", filter.min()))
            .zcount(zset, filter.min(), filter.max());
        let (below, total): (u64, u64) = redis.pipeline(&pipe, format!("ZCOUNT {zset}")).await?;
        let source = Source::Zset {
            zset: zset.to_string(),
            newest_first,
            lo: below,
        };
        Ok(Pager::new(source, filter, offset, limit, total))
    }

    /// A page of `NAME:active` from the head (next to run first).
    pub async fn active(
        redis: &mut Redis,
        keys: &QueueKeys,
        filter: &Filter,
        offset: u64,
        limit: u64,
    ) -> Result<Pager, Error> {
        let total: u64 = redis
            .query(
                redis::cmd("LLEN").arg(&keys.active),
                format!("LLEN {}", keys.active),
            )
            .await?;
        Ok(Pager::new(Source::Active, filter, offset, limit, total))
    }

    fn new(source: Source, filter: &Filter, offset: u64, limit: u64, total: u64) -> Pager {
        Pager {
            source,
            filter: filter.clone(),
            offset,
            limit,
            total,
            pos: if filter.needs_records() { 0 } else { offset },
            skipped: 0,
            emitted: 0,
            next_offset: None,
            ahead: None,
        }
    }

    /// How many jobs are in the whole range (before record filters).
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The offset of the page after this one, once this one has been read to its end.
    pub fn next_offset(&self) -> Option<u64> {
        self.next_offset
    }

    /// The next chunk of the page, or None at its end. A chunk may be empty when a record
    /// filter matched nothing in it.
    pub async fn next(
        &mut self,
        redis: &mut Redis,
        keys: &QueueKeys,
    ) -> Result<Option<Vec<Entry>>, Error> {
        if self.pos >= self.total || self.emitted >= self.limit {
            return Ok(None);
        }
        let by_records = self.filter.needs_records();
        let want = if by_records {
            CHUNK as u64
        } else {
            (self.limit - self.emitted).min(CHUNK as u64)
        };
        let n = want.min(self.total - self.pos);
        let mut fetched = match self.ahead.take() {
            Some(ahead) => ahead,
            None => self.read_ids(redis, keys, n).await?,
        };
        if fetched.is_empty() {
            // The list shrank while we read it.
            self.total = self.pos;
            return Ok(None);
        }
        // As many as fit in one budget; the others come next, without reading them again.
        let rest = fetched.truncate(CALL_BYTES);
        if !rest.is_empty() {
            self.ahead = Some(rest);
        }
        fetched.read(redis, keys).await?;
        let got = fetched.ids().len() as u64;
        let mut out = Vec::new();
        for (i, e) in fetched.decode().into_iter().enumerate() {
            if !self.filter.matches(&e) {
                continue;
            }
            if by_records && self.skipped < self.offset {
                self.skipped += 1;
                continue;
            }
            if self.emitted == self.limit {
                break;
            }
            out.push(e);
            self.emitted += 1;
            if self.emitted == self.limit {
                let consumed = self.pos + i as u64 + 1;
                self.next_offset = (consumed < self.total).then(|| {
                    if by_records {
                        self.offset.saturating_add(self.limit)
                    } else {
                        consumed
                    }
                });
            }
        }
        self.pos += got;
        Ok(Some(out))
    }

    /// The `n` ids from the next position on, with their sizes.
    async fn read_ids(
        &self,
        redis: &mut Redis,
        keys: &QueueKeys,
        n: u64,
    ) -> Result<Fetched, Error> {
        let ids: Vec<(String, Option<f64>)> = match &self.source {
            Source::Zset {
                zset,
                newest_first,
                lo,
            } => {
                let rank = |i: u64| -> u64 {
                    if *newest_first {
                        lo + self.total - 1 - i
                    } else {
                        lo + i
                    }
                };
                let (a, b) = (rank(self.pos), rank(self.pos + n - 1));
                let mut ids: Vec<(String, f64)> = redis
                    .query(
                        redis::cmd("ZRANGE")
                            .arg(zset)
                            .arg(a.min(b))
                            .arg(a.max(b))
                            .arg("WITHSCORES"),
                        format!("ZRANGE {zset}"),
                    )
                    .await?;
                if *newest_first {
                    ids.reverse();
                }
                ids.into_iter().map(|(id, s)| (id, Some(s))).collect()
            }
            Source::Active => {
                let ids: Vec<String> = redis
                    .query(
                        redis::cmd("LRANGE")
                            .arg(&keys.active)
                            .arg(self.pos)
                            .arg(self.pos + n - 1),
                        format!("LRANGE {}", keys.active),
                    )
                    .await?;
                let first = self.pos;
                ids.into_iter()
                    .enumerate()
                    .map(|(i, id)| (id, Some((first + i as u64) as f64)))
                    .collect()
            }
        };
        Fetched::measure(redis, keys, ids, true).await
    }
}

/// Why a listing of `place` shows no job, read when it shows none: the key is empty, or
/// nothing matched, with how many jobs it holds (`no dead jobs match (300,000 in big:dead)`).
pub async fn nothing_shown(
    redis: &mut Redis,
    keys: &QueueKeys,
    place: Place,
    filter: &Filter,
    offset: u64,
) -> Result<String, Error> {
    let key = place.key(keys);
    let cmd = match place {
        Place::Active => "LLEN",
        _ => "ZCARD",
    };
    let held: u64 = redis
        .query(redis::cmd(cmd).arg(key), format!("{cmd} {key}"))
        .await?;
    let total = format!("{} in {}", thousands(held), printable(key));
    Ok(if held == 0 {
        // The ready list holds no running job: say where those are.
        let hint = match place {
            Place::Active => format!(
                " (it holds jobs ready to run; running ones: qctl inflight {})",
                shell_quote(&keys.name)
            ),
            _ => String::new(),
        };
        format!("no jobs in {}{hint}", printable(key))
    } else if !filter.is_empty() {
        format!("no {} match ({total})", place.jobs())
    } else {
        format!(
            "no {} at --offset {} ({total})",
            place.jobs(),
            thousands(offset)
        )
    })
}
