//! Finding where a job is: ready, scheduled, in flight, dead, or a record with no place;
//! and showing one job with its record and recorded failure (`dead show`, qctl web's job).

use redis::Value;

use super::conn::Redis;
use super::error::Error;
use super::keys::QueueKeys;
use super::listing::Entry;

/// Where a known job id is.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Location {
    /// In `NAME:active` at this position from the head (0 = next to run).
    Active { position: i64 },
    /// In `NAME:scheduled`, due at this time.
    Scheduled { due: f64 },
    /// Reserved by a consumer (its in-flight key).
    InFlight { consumer: String },
    /// In `NAME:dead` since this time.
    Dead { died: f64 },
    /// The record exists but the id is in none of the sets.
    Stranded,
    /// There is no record with this id.
    Unknown,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Active { position: 0 } => write!(f, "active, next to run"),
            Location::Active { position } => write!(f, "active, {position} ahead of it"),
            Location::Scheduled { due } => write!(f, "scheduled, due {}", describe_time(*due)),
            Location::InFlight { consumer } => write!(f, "in flight, reserved by {consumer}"),
            Location::Dead { died } => write!(f, "dead since {}", describe_time(*died)),
            Location::Stranded => write!(f, "stored, but in no set (stranded record)"),
            Location::Unknown => write!(f, "unknown"),
        }
    }
}

/// A unix time as RFC 3339 (UTC, second precision).
pub fn describe_time(t: f64) -> String {
    chrono::DateTime::from_timestamp(t.floor() as i64, 0)
        .map(|d| d.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|| format!("{t}"))
}

/// Finds the job `id`. Reads only. A key of the wrong type, or any other refusal, is an
/// error naming the key; only a consumer's in-flight key of the wrong type is passed over
/// (`qctl consumers` shows such members as invalid).
pub async fn locate(redis: &mut Redis, keys: &QueueKeys, id: &str) -> Result<Location, Error> {
    let mut pipe = redis::pipe();
    pipe.ignore_errors()
        .hexists(&keys.data, id)
        .cmd("LPOS")
        .arg(&keys.active)
        .arg(id)
        .zscore(&keys.scheduled, id)
        .zscore(&keys.dead, id)
        .zrange(&keys.consumers, 0, -1);
    let ops = [
        format!("HEXISTS {}", keys.data),
        format!("LPOS {}", keys.active),
        format!("ZSCORE {}", keys.scheduled),
        format!("ZSCORE {}", keys.dead),
        format!("ZRANGE {}", keys.consumers),
    ];
    let replies = redis.pipeline_all(&pipe, |i| ops[i].clone()).await?;
    let server = redis.server().to_string();
    let Ok([exists, position, scheduled, died, consumers]) = <[Value; 5]>::try_from(replies) else {
        return Err(Error::BadInput(format!(
            "Redis at {server} gave an unexpected number of replies while locating a job"
        )));
    };
    let exists: bool = convert(&server, &ops[0], exists)?;
    let position: Option<i64> = convert(&server, &ops[1], position)?;
    let scheduled: Option<f64> = convert(&server, &ops[2], scheduled)?;
    let died: Option<f64> = convert(&server, &ops[3], died)?;
    let consumers: Vec<String> = convert(&server, &ops[4], consumers)?;
    // A set can hold an id whose record is missing: the job is there, damaged.
    if let Some(position) = position {
        return Ok(Location::Active { position });
    }
    if let Some(due) = scheduled {
        return Ok(Location::Scheduled { due });
    }
    if let Some(died) = died {
        return Ok(Location::Dead { died });
    }
    if !exists {
        return Ok(Location::Unknown);
    }
    let inflight: Vec<String> = consumers
        .into_iter()
        .filter(|k| keys.is_inflight_key(k))
        .collect();
    if !inflight.is_empty() {
        let mut pipe = redis::pipe();
        pipe.ignore_errors();
        for key in &inflight {
            pipe.sismember(key, id);
        }
        let replies = redis
            .pipeline_each(&pipe, |i| format!("SISMEMBER {}", inflight[i]))
            .await?;
        for (key, reply) in inflight.iter().zip(replies) {
            let member = match reply {
                Ok(v) => convert::<bool>(&server, "SISMEMBER", v)?,
                Err(e) if e.code() == Some("WRONGTYPE") => false,
                Err(e) => return Err(e),
            };
            if member {
                return Ok(Location::InFlight {
                    consumer: key.clone(),
                });
            }
        }
    }
    Ok(Location::Stranded)
}

/// One job as `dead show`, `scheduled show` and `active show` show it, and qctl web's job
/// page.
#[derive(Debug)]
pub struct Shown {
    /// Its record and recorded failure; no score (see [`Shown::score`]). The record's
    /// stored bytes are kept only when it is damaged: a good one is held once, decoded.
    pub entry: Entry,
    pub location: Location,
    /// In flight at a qctl consumer: when it started (unix seconds), as the consumer
    /// recorded it; None when not recorded (a Go CurlyQ consumer, a job in its buffer).
    pub started: Option<f64>,
    /// The server's clock when it was read (unix seconds).
    pub now: f64,
}

impl Shown {
    /// The time its place gives it, with its name in JSON: `died` in the dead set, `due` in
    /// the scheduled set.
    pub fn score(&self) -> Option<(&'static str, f64)> {
        match self.location {
            Location::Dead { died } => Some(("died", died)),
            Location::Scheduled { due } => Some(("due", due)),
            _ => None,
        }
    }

    /// How long it has run, in seconds, when in flight with a start recorded.
    pub fn running_secs(&self) -> Option<f64> {
        self.started.map(|t| (self.now - t).max(0.0))
    }
}

/// A job that is not there (no record, in no state), and what can be known of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Gone {
    pub queue: String,
    pub id: String,
    /// Its id is among the newest ids qctl consumers acked ([`super::keys::ACKED_KEPT`]).
    pub acked: bool,
}

impl Gone {
    /// The words of `dead show` for it: `no job "x" in queue "mail"`, and that a qctl
    /// consumer acked it when it did.
    pub fn words(&self) -> String {
        let head = format!("no job {:?} in queue {:?}", self.id, self.queue);
        if self.acked {
            format!("{head}: a qctl consumer acked it, and an acked job leaves no record")
        } else {
            head
        }
    }

    /// What can be known of a job that is not there and no qctl consumer acked.
    pub fn unknown_words() -> String {
        format!(
            "If there was such a job, it ended without a record of success: a Go CurlyQ \
             consumer acked it (CurlyQ notes nothing), it was deleted, or a qctl consumer \
             acked it more than {} acks ago.",
            super::text::thousands(super::keys::ACKED_KEPT)
        )
    }
}

/// A job found, or not.
#[derive(Debug)]
pub enum Found {
    Job(Box<Shown>),
    Gone(Gone),
}

/// Reads the job `id` of `keys`: its record and recorded failure (in calls within the byte
/// budget of a call), where it is, when it started if in flight, and the server's clock.
/// A job with no record and in no state is [`Found::Gone`], said with whether a qctl
/// consumer acked it. Reads only.
pub async fn show(redis: &mut Redis, keys: &QueueKeys, id: &str) -> Result<Found, Error> {
    let entries = super::listing::fill(redis, keys, vec![(id.to_string(), None)]).await?;
    let Some(mut entry) = entries.into_iter().next() else {
        return Err(Error::BadInput(format!(
            "Redis at {} gave no record for job {id:?}",
            redis.server()
        )));
    };
    let location = locate(redis, keys, id).await?;
    if entry.job.is_none() && location == Location::Unknown {
        return Ok(Found::Gone(Gone {
            queue: keys.name.clone(),
            id: id.to_string(),
            acked: acked(redis, keys, id).await?,
        }));
    }
    if entry.damage().is_none() {
        entry.raw = None;
    }
    let started = match &location {
        Location::InFlight { consumer } => started(redis, keys, consumer, id).await?,
        _ => None,
    };
    let now = redis.server_time().await?;
    Ok(Found::Job(Box::new(Shown {
        entry,
        location,
        started,
        now,
    })))
}

/// When the qctl consumer whose in-flight key is `consumer` started the job `id`, as it
/// recorded it (None: not recorded, or not a qctl consumer's key).
async fn started(
    redis: &mut Redis,
    keys: &QueueKeys,
    consumer: &str,
    id: &str,
) -> Result<Option<f64>, Error> {
    let Some(uuid) = keys.consumer_uuid(consumer) else {
        return Ok(None);
    };
    let running = keys.consumer_running(uuid);
    // HMGET, as `inflight` reads it.
    let start: Vec<Option<String>> = match redis
        .query(
            redis::cmd("HMGET").arg(&running).arg(id),
            format!("HMGET {running}"),
        )
        .await
    {
        Ok(start) => start,
        // As `inflight` reads it: a key of another type records no start.
        Err(e) if e.code() == Some("WRONGTYPE") => Vec::new(),
        Err(e) => return Err(e),
    };
    Ok(start
        .into_iter()
        .flatten()
        .next()
        .and_then(|s| s.parse().ok()))
}

/// Whether `id` is among the ids qctl consumers acked last (`NAME:acked`).
pub async fn acked(redis: &mut Redis, keys: &QueueKeys, id: &str) -> Result<bool, Error> {
    let at: Option<u64> = redis
        .query(
            redis::cmd("LPOS").arg(&keys.acked).arg(id),
            format!("LPOS {}", keys.acked),
        )
        .await?;
    Ok(at.is_some())
}

/// A job's data as stored, for a download or `show --raw`.
#[derive(Debug)]
pub enum Stored {
    /// The data's exact bytes (a nil Data is empty).
    Data(Vec<u8>),
    /// The record cannot be used: why, and its stored bytes.
    Damaged { why: String, record: Vec<u8> },
    /// No record.
    Missing,
}

/// Reads the record of `id` with one HMGET (the command every read of records uses) and
/// gives its data, in the buffer the reply came in: the bytes are held once, however large.
pub async fn stored(redis: &mut Redis, keys: &QueueKeys, id: &str) -> Result<Stored, Error> {
    let records: Vec<Option<Vec<u8>>> = match redis
        .query(
            redis::cmd("HMGET").arg(&keys.data).arg(id),
            format!("HMGET {}", keys.data),
        )
        .await
    {
        Ok(records) => records,
        // A large record may take longer than --response-timeout to arrive: say so.
        Err(e) => return Err(e.confirm(redis).await),
    };
    let Some(record) = records.into_iter().flatten().next() else {
        return Ok(Stored::Missing);
    };
    Ok(match super::job::data_of(record, id) {
        Ok(data) => Stored::Data(data),
        Err((why, record)) => Stored::Damaged { why, record },
    })
}

fn convert<T: redis::FromRedisValue>(server: &str, op: &str, v: Value) -> Result<T, Error> {
    redis::from_redis_value(v).map_err(|e| Error::from_redis(server, op, e.into()))
}
