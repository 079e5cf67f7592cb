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

fn convert<T: redis::FromRedisValue>(server: &str, op: &str, v: Value) -> Result<T, Error> {
    redis::from_redis_value(v).map_err(|e| Error::from_redis(server, op, e.into()))
}
