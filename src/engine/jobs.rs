//! Finding where a job is: ready, scheduled, in flight, dead, or a record with no place.

use redis::Value;

use super::conn::Redis;
use super::error::Error;
use super::keys::QueueKeys;

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
            Location::Active { position } => write!(f, "active, position {position} in line"),
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

/// Finds the job `id`. Reads only; a key of the wrong type is passed over.
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
    let replies: Vec<redis::RedisResult<Value>> = redis.pipeline(&pipe, "locating a job").await?;
    let mut it = replies.into_iter().map(|r| r.ok());
    let exists: bool = take(it.next());
    let position: Option<i64> = take(it.next());
    let scheduled: Option<f64> = take(it.next());
    let died: Option<f64> = take(it.next());
    let consumers: Vec<String> = take(it.next());
    if !exists {
        return Ok(Location::Unknown);
    }
    if let Some(position) = position {
        return Ok(Location::Active { position });
    }
    if let Some(due) = scheduled {
        return Ok(Location::Scheduled { due });
    }
    if let Some(died) = died {
        return Ok(Location::Dead { died });
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
        let replies: Vec<redis::RedisResult<Value>> =
            redis.pipeline(&pipe, "locating a job in flight").await?;
        for (key, reply) in inflight.into_iter().zip(replies) {
            if take::<bool>(Some(reply.ok())) {
                return Ok(Location::InFlight { consumer: key });
            }
        }
    }
    Ok(Location::Stranded)
}

fn take<T: redis::FromRedisValue + Default>(v: Option<Option<Value>>) -> T {
    v.flatten()
        .and_then(|v| redis::from_redis_value(v).ok())
        .unwrap_or_default()
}
