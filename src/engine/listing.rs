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

/// A page of a listing.
#[derive(Debug, Default)]
pub struct Page {
    pub entries: Vec<Entry>,
    /// How many jobs are in the whole range (before record filters).
    pub total: u64,
    /// Pass as the next offset to continue (None at the end).
    pub next_offset: Option<u64>,
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
    let replies: Vec<redis::RedisResult<Vec<Option<Vec<u8>>>>> =
        redis.pipeline(&pipe, "reading job records").await?;
    let mut it = replies.into_iter();
    Ok(Fetched {
        ids,
        records: it.next().and_then(Result::ok).unwrap_or_default(),
        failures: it.next().and_then(Result::ok).unwrap_or_default(),
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

/// A page of a sorted set, `newest_first` or oldest first, after `offset` matches.
pub async fn page_zset(
    redis: &mut Redis,
    keys: &QueueKeys,
    zset: &str,
    newest_first: bool,
    filter: &Filter,
    offset: u64,
    limit: usize,
) -> Result<Page, Error> {
    // The ranks of the score range, found with ZCOUNT (O(log N)).
    let mut pipe = redis::pipe();
    pipe.zcount(zset, "-inf", format!("({}", filter.min()))
        .zcount(zset, filter.min(), filter.max());
    let (below, total): (u64, u64) = redis.pipeline(&pipe, format!("counting {zset}")).await?;
    // Ranks in ascending order [lo, lo + total).
    let lo = below;
    let rank_of = |i: u64| -> i64 {
        if newest_first {
            (lo + total - 1 - i) as i64
        } else {
            (lo + i) as i64
        }
    };
    let mut page = Page {
        total,
        ..Page::default()
    };
    let mut pos = if filter.needs_records() { 0 } else { offset };
    let mut skipped = 0u64;
    while pos < total && page.entries.len() < limit {
        let want = if filter.needs_records() {
            CHUNK as u64
        } else {
            (limit - page.entries.len()) as u64
        };
        let n = want.min(total - pos);
        let (a, b) = (rank_of(pos), rank_of(pos + n - 1));
        let (start, stop) = (a.min(b), a.max(b));
        let mut ids: Vec<(String, f64)> = redis
            .query(
                redis::cmd("ZRANGE")
                    .arg(zset)
                    .arg(start)
                    .arg(stop)
                    .arg("WITHSCORES"),
                format!("reading {zset}"),
            )
            .await?;
        if newest_first {
            ids.reverse();
        }
        let entries = fill(
            redis,
            keys,
            ids.into_iter().map(|(id, s)| (id, Some(s))).collect(),
        )
        .await?;
        for (i, e) in entries.into_iter().enumerate() {
            if filter.matches(&e) {
                if skipped < offset && filter.needs_records() {
                    skipped += 1;
                    continue;
                }
                if page.entries.len() < limit {
                    page.entries.push(e);
                    if page.entries.len() == limit {
                        let consumed = pos + i as u64 + 1;
                        page.next_offset = (consumed < total).then(|| {
                            if filter.needs_records() {
                                offset + limit as u64
                            } else {
                                consumed
                            }
                        });
                    }
                }
            }
        }
        pos += n;
    }
    Ok(page)
}

/// A page of `NAME:active` from the head (next to run first).
pub async fn page_active(
    redis: &mut Redis,
    keys: &QueueKeys,
    filter: &Filter,
    offset: u64,
    limit: usize,
) -> Result<Page, Error> {
    let total: u64 = redis
        .query(redis::cmd("LLEN").arg(&keys.active), "LLEN active")
        .await?;
    let mut page = Page {
        total,
        ..Page::default()
    };
    let mut pos = if filter.needs_records() { 0 } else { offset };
    let mut skipped = 0;
    while pos < total && page.entries.len() < limit {
        let n = if filter.needs_records() {
            CHUNK as u64
        } else {
            (limit - page.entries.len()) as u64
        };
        let ids: Vec<String> = redis
            .query(
                redis::cmd("LRANGE")
                    .arg(&keys.active)
                    .arg(pos)
                    .arg(pos + n - 1),
                "reading active",
            )
            .await?;
        if ids.is_empty() {
            break;
        }
        let got = ids.len() as u64;
        for e in fill(redis, keys, ids.into_iter().map(|id| (id, None)).collect()).await? {
            if filter.matches(&e) {
                if skipped < offset && filter.needs_records() {
                    skipped += 1;
                    continue;
                }
                if page.entries.len() < limit {
                    page.entries.push(e);
                }
            }
        }
        pos += got;
    }
    if page.entries.len() == limit && pos < total {
        page.next_offset = Some(offset + limit as u64);
    }
    Ok(page)
}
