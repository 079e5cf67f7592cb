//! Waiting for a queue to have nothing left to run, or for given jobs to end: what one look
//! reads, in one transaction so that a job moving between states is seen in exactly one, and
//! how a job that no longer exists is judged (done only when `NAME:acked` holds its id).

use std::time::Instant;

use redis::Value;

use super::conn::Redis;
use super::error::Error;
use super::keys::QueueKeys;
use super::listing::{Filter, Pager, CHUNK};

/// What the queue holds that a wait waits for, read at one instant.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Left {
    /// `NAME:active`.
    pub ready: u64,
    /// Every in-flight set.
    pub in_flight: u64,
    /// `NAME:scheduled` due now (score at or before the server's time).
    pub due: u64,
    /// `NAME:scheduled`, due or not.
    pub scheduled: u64,
    /// Of the scheduled jobs not due yet, those whose record has Attempt 1 or more; None
    /// while not looked at (it is read only when nothing else is left).
    pub retrying: Option<u64>,
    /// Whether `NAME:paused` exists.
    pub paused: bool,
    /// Jobs that entered `NAME:dead` since the wait began (their score is at or after it).
    pub died: u64,
    /// `NAME:stats` `completed`: jobs qctl consumers acked, ever.
    #[serde(skip)]
    pub completed: u64,
}

impl Left {
    /// Whether nothing is ready, in flight or due, no retry waits, and with `scheduled` no
    /// job is scheduled at all.
    pub fn is_empty(&self, scheduled: bool) -> bool {
        self.ready == 0
            && self.in_flight == 0
            && self.due == 0
            && if scheduled {
                self.scheduled == 0
            } else {
                self.retrying == Some(0)
            }
    }

    /// The jobs still waited for: ready, in flight, due, and the retries (with `scheduled`,
    /// every scheduled job).
    pub fn pending(&self, scheduled: bool) -> u64 {
        let waiting = if scheduled {
            self.scheduled
        } else {
            self.due + self.retrying.unwrap_or(0)
        };
        self.ready + self.in_flight + waiting
    }
}

/// Where awaited jobs are, read at one instant per [`IDS_PER_LOOK`] ids.
#[derive(Clone, Debug, PartialEq)]
pub struct Jobs {
    /// One per id asked for, in order.
    pub states: Vec<JobState>,
    /// Whether `NAME:paused` exists.
    pub paused: bool,
}

/// Where an awaited job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Its record exists and it is in no other state: in `NAME:active` (or, while the list
    /// is not empty, possibly a record in no state at all).
    Ready,
    InFlight,
    Scheduled,
    /// Its record exists, and it is in no state while `NAME:active` is empty: nothing will
    /// run it.
    Stranded,
    /// In `NAME:dead`.
    Died,
    /// No record and in no state, and its id is among those qctl consumers acked.
    Done,
    /// No record and in no state, and no record of its success: acked by a consumer that
    /// keeps none (Go CurlyQ), deleted, or acked more than [`super::keys::ACKED_KEPT`] acks
    /// ago.
    Unknown,
}

impl JobState {
    /// Whether the job has ended: it will not run again by itself.
    pub fn ended(self) -> bool {
        matches!(self, JobState::Died | JobState::Done | JobState::Unknown)
    }

    /// How messages name it.
    pub fn name(self) -> &'static str {
        match self {
            JobState::Ready => "ready",
            JobState::InFlight => "in flight",
            JobState::Scheduled => "scheduled",
            JobState::Stranded => "stranded",
            JobState::Died => "died",
            JobState::Done => "done",
            JobState::Unknown => "ended without a record of success",
        }
    }
}

/// A wait on one queue: the server's clock when it began, the in-flight sets it looks at,
/// and what it remembers between looks.
pub struct Watch {
    keys: QueueKeys,
    /// The server's time when the wait began (unix seconds).
    pub since: f64,
    clock: Instant,
    /// The in-flight sets: found by SCAN at the start, and every member of `NAME:consumers`
    /// seen since, but for those found empty once their consumer had left.
    sets: Vec<String>,
    /// What the last walk of `NAME:scheduled` found: its first retry (id and due time), the
    /// size of the set then, and how many retries. While the set keeps its size and that
    /// retry its due time, the walk is not repeated.
    walked: Option<(String, f64, u64, u64)>,
}

/// Ids read in one transaction.
const IDS_PER_LOOK: usize = CHUNK;

impl Watch {
    /// Starts a wait: reads the server's clock and finds the queue's in-flight sets.
    pub async fn start(redis: &mut Redis, keys: &QueueKeys) -> Result<Watch, Error> {
        let since = redis.server_time().await?;
        let clock = Instant::now();
        let sets = keys.inflight_sets(redis, 1000).await?;
        Ok(Watch {
            keys: keys.clone(),
            since,
            clock,
            sets,
            walked: None,
        })
    }

    /// The server's time now, as the clock read at the start and the time passed since.
    pub fn now(&self) -> f64 {
        self.since + self.clock.elapsed().as_secs_f64()
    }

    /// Adds the in-flight sets among `members` (of `NAME:consumers`) not looked at yet, and
    /// forgets the sets that are no member and were empty (`sizes`, None for one that is no
    /// set), read in the same transaction: only a registered consumer reserves, so such a
    /// set stays empty. True when sets were added (a look that did not count them must be
    /// made again).
    fn learn(&mut self, members: Vec<String>, sizes: &[Option<u64>]) -> bool {
        let mut i = 0;
        self.sets.retain(|set| {
            let keep = members.contains(set) || sizes.get(i).copied().flatten().unwrap_or(1) > 0;
            i += 1;
            keep
        });
        let mut new = false;
        for m in members {
            if self.keys.is_inflight_key(&m) && !self.sets.contains(&m) {
                self.sets.push(m);
                new = true;
            }
        }
        new
    }

    /// What the queue holds now. With `scheduled` every scheduled job is waited for;
    /// otherwise, when nothing else is left, the scheduled set is walked for retries.
    pub async fn queue(&mut self, redis: &mut Redis, scheduled: bool) -> Result<Left, Error> {
        let quiet = |l: &Left| l.ready == 0 && l.in_flight == 0 && l.due == 0;
        let left = self.counts(redis).await?;
        if scheduled || !quiet(&left) {
            return Ok(left);
        }
        if left.scheduled == 0 {
            return Ok(Left {
                retrying: Some(0),
                ..left
            });
        }
        let retrying = self.retries(redis, left.scheduled).await?;
        if retrying > 0 {
            return Ok(Left {
                retrying: Some(retrying),
                ..left
            });
        }
        // The walk is no transaction: a retry that came due and was promoted while it read
        // the set is ready or in flight now, and the set is smaller.
        let again = self.counts(redis).await?;
        let confirmed = quiet(&again) && again.scheduled == left.scheduled;
        Ok(Left {
            retrying: confirmed.then_some(0),
            ..again
        })
    }

    /// The counts, in one transaction with the members of `NAME:consumers`, read again until
    /// every member's set was counted in it.
    async fn counts(&mut self, redis: &mut Redis) -> Result<Left, Error> {
        let k = self.keys.clone();
        loop {
            let mut pipe = redis::pipe();
            pipe.atomic().ignore_errors();
            pipe.zrange(&k.consumers, 0, -1)
                .llen(&k.active)
                .zcount(&k.scheduled, "-inf", self.now())
                .zcard(&k.scheduled)
                .zcount(&k.dead, self.since, "+inf")
                .exists(&k.paused)
                .hget(&k.stats, "completed");
            for set in &self.sets {
                pipe.scard(set);
            }
            let replies: Vec<Value> = redis
                .pipeline(&pipe, format!("counting what queue {:?} holds", k.name))
                .await?;
            let mut r = Replies::new(redis, replies);
            let members: Vec<String> = r.next(&format!("ZRANGE {}", k.consumers))?;
            let mut left = Left {
                ready: r.next(&format!("LLEN {}", k.active))?,
                due: r.next(&format!("ZCOUNT {}", k.scheduled))?,
                scheduled: r.next(&format!("ZCARD {}", k.scheduled))?,
                died: r.next(&format!("ZCOUNT {}", k.dead))?,
                paused: r.next(&format!("EXISTS {}", k.paused))?,
                completed: r
                    .next::<Option<String>>(&format!("HGET {}", k.stats))?
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(0),
                ..Left::default()
            };
            let mut sizes = Vec::with_capacity(self.sets.len());
            for set in &self.sets {
                sizes.push(set_reply(r.next::<u64>(&format!("SCARD {set}")))?);
            }
            left.in_flight = sizes.iter().flatten().sum();
            if !self.learn(members, &sizes) {
                return Ok(left);
            }
        }
    }

    /// How many jobs of `NAME:scheduled` (of `size` members) are retries, walking it by due
    /// time with the listing's bounded reads; remembered while the set keeps its size and
    /// the first retry found keeps its due time.
    async fn retries(&mut self, redis: &mut Redis, size: u64) -> Result<u64, Error> {
        if let Some((id, due, walked_size, count)) = &self.walked {
            let score: Option<f64> = redis
                .query(
                    redis::cmd("ZSCORE").arg(&self.keys.scheduled).arg(id),
                    format!("ZSCORE {}", self.keys.scheduled),
                )
                .await?;
            if score == Some(*due) && *walked_size == size {
                return Ok(*count);
            }
        }
        let filter = Filter {
            min_attempts: Some(1),
            ..Filter::default()
        };
        let mut pager =
            Pager::zset(redis, &self.keys.scheduled, false, &filter, 0, u64::MAX).await?;
        let mut first = None;
        let mut count = 0u64;
        while let Some(chunk) = pager.next(redis, &self.keys).await? {
            for e in chunk {
                if first.is_none() {
                    first = e.score.map(|s| (e.id.clone(), s));
                }
                count += 1;
            }
        }
        self.walked = first.map(|(id, due)| (id, due, size, count));
        Ok(count)
    }

    /// Where each of `ids` is now: each read in one transaction with the members of
    /// `NAME:consumers` and the length of `NAME:active` (when that is empty, a record in no
    /// other state is in none). Ids that have no record and are in no state are looked up
    /// in `NAME:acked`.
    pub async fn jobs(&mut self, redis: &mut Redis, ids: &[&str]) -> Result<Jobs, Error> {
        let mut out = Vec::with_capacity(ids.len());
        let mut paused = false;
        for chunk in ids.chunks(IDS_PER_LOOK) {
            let (states, chunk_paused) = self.look(redis, chunk).await?;
            out.extend(states);
            paused |= chunk_paused;
        }
        let gone: Vec<usize> = (0..out.len())
            .filter(|&i| out[i] == JobState::Unknown)
            .collect();
        for part in gone.chunks(IDS_PER_LOOK) {
            let mut pipe = redis::pipe();
            for &i in part {
                pipe.cmd("LPOS").arg(&self.keys.acked).arg(ids[i]);
            }
            let found: Vec<Option<u64>> = redis
                .pipeline(&pipe, format!("LPOS {}", self.keys.acked))
                .await?;
            for (&i, at) in part.iter().zip(found) {
                if at.is_some() {
                    out[i] = JobState::Done;
                }
            }
        }
        Ok(Jobs {
            states: out,
            paused,
        })
    }

    /// One transaction's look at up to [`IDS_PER_LOOK`] ids: record, scheduled, dead, in
    /// flight; [`JobState::Unknown`] for an id with no record in no state (not yet looked up
    /// in `NAME:acked`), and whether the queue is paused.
    async fn look(
        &mut self,
        redis: &mut Redis,
        ids: &[&str],
    ) -> Result<(Vec<JobState>, bool), Error> {
        let k = self.keys.clone();
        loop {
            let mut pipe = redis::pipe();
            pipe.atomic().ignore_errors();
            pipe.zrange(&k.consumers, 0, -1)
                .llen(&k.active)
                .exists(&k.paused);
            for id in ids {
                pipe.hexists(&k.data, id)
                    .zscore(&k.scheduled, id)
                    .zscore(&k.dead, id);
            }
            for set in &self.sets {
                pipe.cmd("SMISMEMBER").arg(set).arg(ids).scard(set);
            }
            let replies: Vec<Value> = redis
                .pipeline(
                    &pipe,
                    format!("reading where jobs of queue {:?} are", k.name),
                )
                .await?;
            let mut r = Replies::new(redis, replies);
            let members: Vec<String> = r.next(&format!("ZRANGE {}", k.consumers))?;
            let ready: u64 = r.next(&format!("LLEN {}", k.active))?;
            let paused: bool = r.next(&format!("EXISTS {}", k.paused))?;
            let (hexists, zscores) = (
                format!("HEXISTS {}", k.data),
                [
                    format!("ZSCORE {}", k.scheduled),
                    format!("ZSCORE {}", k.dead),
                ],
            );
            let mut found = Vec::with_capacity(ids.len());
            for _ in ids {
                let record: bool = r.next(&hexists)?;
                let scheduled = r.next::<Option<f64>>(&zscores[0])?.is_some();
                let dead = r.next::<Option<f64>>(&zscores[1])?.is_some();
                found.push((record, scheduled, dead, false));
            }
            let mut sizes = Vec::with_capacity(self.sets.len());
            for set in &self.sets {
                let flags = set_reply(r.next::<Vec<bool>>(&format!("SMISMEMBER {set}")))?;
                for (f, member) in found.iter_mut().zip(flags.unwrap_or_default()) {
                    f.3 |= member;
                }
                sizes.push(set_reply(r.next::<u64>(&format!("SCARD {set}")))?);
            }
            if self.learn(members, &sizes) {
                continue;
            }
            let states = found
                .into_iter()
                .map(|(record, scheduled, dead, in_flight)| {
                    if dead {
                        JobState::Died
                    } else if scheduled {
                        JobState::Scheduled
                    } else if in_flight {
                        JobState::InFlight
                    } else if !record {
                        JobState::Unknown
                    } else if ready == 0 {
                        JobState::Stranded
                    } else {
                        JobState::Ready
                    }
                })
                .collect();
            return Ok((states, paused));
        }
    }
}

/// The reply of a command on an in-flight set; None when the key is no set: a member of
/// `NAME:consumers` that is no set holds no job (`qctl consumers` shows it).
fn set_reply<T>(reply: Result<T, Error>) -> Result<Option<T>, Error> {
    match reply {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.code() == Some("WRONGTYPE") => Ok(None),
        Err(e) => Err(e),
    }
}

/// The replies of a transaction sent with `ignore_errors`, read in order.
struct Replies<'a> {
    redis: &'a Redis,
    it: std::vec::IntoIter<Value>,
}

impl<'a> Replies<'a> {
    fn new(redis: &'a Redis, replies: Vec<Value>) -> Self {
        Replies {
            redis,
            it: replies.into_iter(),
        }
    }

    /// The next reply as `T`, or the error of the command `op`.
    fn next<T: redis::FromRedisValue>(&mut self, op: &str) -> Result<T, Error> {
        match self.it.next() {
            Some(Value::ServerError(e)) => Err(self.redis.error(op, e.into())),
            Some(v) => redis::from_redis_value(v).map_err(|e| self.redis.error(op, e.into())),
            None => Err(self.redis.error(
                op,
                redis::RedisError::from((
                    redis::ErrorKind::UnexpectedReturnType,
                    "the transaction answered too few replies",
                )),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queue_is_done_only_when_nothing_waited_for_is_left() {
        let mut left = Left {
            scheduled: 3,
            retrying: Some(0),
            ..Left::default()
        };
        assert!(left.is_empty(false), "delayed jobs are not waited for");
        assert!(!left.is_empty(true), "--scheduled waits for them");
        assert_eq!(left.pending(true), 3);
        left.retrying = None;
        assert!(!left.is_empty(false), "retries not looked at yet");
        left.retrying = Some(1);
        assert_eq!(left.pending(false), 1);
        let busy = Left {
            in_flight: 1,
            retrying: Some(0),
            ..Left::default()
        };
        assert!(!busy.is_empty(false) && !busy.is_empty(true));
    }

    #[test]
    fn only_died_done_and_unknown_jobs_have_ended() {
        let ended: Vec<JobState> = [
            JobState::Ready,
            JobState::InFlight,
            JobState::Scheduled,
            JobState::Stranded,
            JobState::Died,
            JobState::Done,
            JobState::Unknown,
        ]
        .into_iter()
        .filter(|s| s.ended())
        .collect();
        assert_eq!(
            ended,
            [JobState::Died, JobState::Done, JobState::Unknown].to_vec()
        );
    }
}
