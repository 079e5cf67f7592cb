//! Reading pages of jobs from the dead set, the scheduled set and the active list, with
//! their records and recorded failures. Pages are found by rank, so deep pages stay fast;
//! filters that need the record scan in bounded chunks.

use super::conn::Redis;
use super::error::Error;
use super::failure::Failure;
use super::job::{DecodeError, Job};
use super::keys::QueueKeys;

/// Ids read per round trip when a filter must look at records.
pub const CHUNK: usize = 1000;

/// One listed job.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: String,
    /// Its score (death or due time); None in the active list.
    pub score: Option<f64>,
    /// None when the id has no record.
    pub job: Option<Result<Job, DecodeError>>,
    /// The record's bytes as stored.
    pub raw: Option<Vec<u8>>,
    pub failure: Option<Failure>,
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
}

impl Filter {
    /// Whether it needs the records (not only the scores).
    pub fn needs_records(&self) -> bool {
        self.grep.is_some() || self.min_attempts.is_some()
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

/// Ids with their stored record and failure bytes, not yet decoded.
pub struct Fetched {
    ids: Vec<(String, Option<f64>)>,
    records: Vec<Option<Vec<u8>>>,
    failures: Vec<Option<Vec<u8>>>,
}

impl Fetched {
    /// The ids with their scores.
    pub fn ids(&self) -> &[(String, Option<f64>)] {
        &self.ids
    }

    /// Decodes the records and failures.
    pub fn decode(self) -> Vec<Entry> {
        let Fetched {
            ids,
            mut records,
            mut failures,
        } = self;
        records.resize(ids.len(), None);
        failures.resize(ids.len(), None);
        ids.into_iter()
            .zip(records.into_iter().zip(failures))
            .map(|((id, score), (raw, failure))| Entry {
                job: raw.as_deref().map(Job::decode),
                raw,
                failure: failure.as_deref().and_then(Failure::from_json),
                id,
                score,
            })
            .collect()
    }
}

/// Reads the records and failures of ids, in one round trip.
pub async fn fetch(
    redis: &mut Redis,
    keys: &QueueKeys,
    ids: Vec<(String, Option<f64>)>,
) -> Result<Fetched, Error> {
    if ids.is_empty() {
        return Ok(Fetched {
            ids,
            records: Vec::new(),
            failures: Vec::new(),
        });
    }
    let mut pipe = redis::pipe();
    let names: Vec<&str> = ids.iter().map(|(id, _)| id.as_str()).collect();
    pipe.cmd("HMGET").arg(&keys.data).arg(&names);
    pipe.cmd("HMGET").arg(&keys.failures).arg(&names);
    pipe.ignore_errors();
    let replies = redis
        .pipeline_all(&pipe, |i| {
            format!("HMGET {}", [&keys.data, &keys.failures][i.min(1)])
        })
        .await?;
    let mut it = replies.into_iter().map(|v| {
        redis::from_redis_value::<Vec<Option<Vec<u8>>>>(v)
            .map_err(|e| Error::from_redis(redis.server(), "reading job records", e.into()))
    });
    Ok(Fetched {
        ids,
        records: it.next().transpose()?.unwrap_or_default(),
        failures: it.next().transpose()?.unwrap_or_default(),
    })
}

/// Fills records and failures for ids, in one round trip.
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

/// A page of a listing, read in chunks of at most [`CHUNK`] jobs so that a long page (a
/// `--jsonl` export of everything) is written out as it is read, in bounded memory. Pages are
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
}

impl Pager {
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
                ids.into_iter().map(|id| (id, None)).collect()
            }
        };
        if ids.is_empty() {
            // The list shrank while we read it.
            self.total = self.pos;
            return Ok(None);
        }
        let got = ids.len() as u64;
        let mut out = Vec::new();
        for (i, e) in fill(redis, keys, ids).await?.into_iter().enumerate() {
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
                        self.offset + self.limit
                    } else {
                        consumed
                    }
                });
            }
        }
        self.pos += got;
        Ok(Some(out))
    }
}
