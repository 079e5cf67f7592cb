//! `--drain`: the consumer ends once every job it could run has reached an end. Before it
//! decides, it lets its own jobs finish, promotes due jobs, recovers expired consumers' jobs,
//! waits for jobs other consumers hold (they may fail and come back), and waits for the
//! retries of jobs that failed here (their backoff, capped by `--max-backoff`). Jobs that
//! producers scheduled for later are left alone unless `--wait-scheduled` asks.

use std::time::Duration;

use super::{custodian, scheduler, DrainEnd, Event, Shared};
use crate::engine::consumers;
use crate::engine::error::Error;
use crate::engine::text::{agree, plural, span};

/// Retry times read per call when checking which retries are still pending.
const CHUNK: usize = 1000;

/// What the drain decided after an empty reservation.
pub enum Check {
    /// Something may still become ready: reserve again.
    Continue,
    /// Done: nothing left it could run, or nothing it may run (a paused queue).
    End(DrainEnd),
}

/// One look at the queue after a reservation found nothing. `said` remembers what was last
/// said about waiting, so that each wait is said once.
pub async fn check(shared: &Shared, said: &mut String) -> Result<Check, Error> {
    if shared.held() > 0 {
        let finished = shared.finished.notified();
        if shared.held() > 0 {
            tokio::select! {
                _ = finished => {}
                _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                _ = shared.stop.cancelled() => {}
            }
        }
        return Ok(Check::Continue);
    }
    if scheduler::pass(shared).await? > 0 || custodian::pass(shared).await? > 0 {
        return Ok(Check::Continue);
    }
    let mut redis = shared.redis.clone();
    let others: Vec<_> = consumers::list(&mut redis, &shared.keys)
        .await?
        .into_iter()
        .filter(|c| c.key != shared.inflight && c.in_flight.unwrap_or(0) > 0)
        .collect();
    let held: u64 = others.iter().filter_map(|c| c.in_flight).sum();
    if held > 0 {
        let names: Vec<&str> = others.iter().map(|c| c.key.as_str()).collect();
        say(
            shared,
            said,
            format!("held {held}"),
            format!(
                "draining: waiting for {} in flight at other consumers ({}); a consumer that died is recovered after --orphan-after",
                plural(held, "job"),
                names.join(", ")
            ),
        );
        pause(shared, shared.cfg.poll_interval.min(Duration::from_secs(1))).await;
        return Ok(Check::Continue);
    }
    let keys = &shared.keys;
    // A job may have become ready since the reservation looked: recovered by the custodian
    // loop, promoted by the scheduler loop, or enqueued.
    let (ready, paused, cap, rate): (u64, bool, Option<f64>, Option<f64>) = redis
        .pipeline(
            redis::pipe()
                .cmd("LLEN")
                .arg(&keys.active)
                .cmd("EXISTS")
                .arg(&keys.paused)
                .cmd("HGET")
                .arg(&keys.limits)
                .arg("max_running")
                .cmd("HGET")
                .arg(&keys.limits)
                .arg("rate"),
            format!(
                "LLEN {}, EXISTS {}, HGET {}",
                keys.active, keys.paused, keys.limits
            ),
        )
        .await?;
    // A cap or a rate of 0 (qctl limit) acts like a pause.
    let paused = paused || cap == Some(0.0) || rate == Some(0.0);
    if ready > 0 && !paused {
        return Ok(Check::Continue);
    }
    let pending = pending_retries(shared).await?;
    if paused && (ready > 0 || !pending.is_empty()) {
        return Ok(Check::End(DrainEnd::Paused));
    }
    let mut next = pending.iter().map(|(_, at)| *at).reduce(f64::min);
    if let Some(at) = next {
        // A drain waits out every retry: say how long that can be when it is long.
        let longest = longest_retries(shared.cfg.max_retries, shared.cfg.max_backoff);
        let bound = if longest > 60.0 {
            format!(
                " (a job that keeps failing is retried {} over up to {}: --max-retries and \
                 --max-backoff bound that)",
                plural(shared.cfg.max_retries.max(0) as u64, "time"),
                span(longest)
            )
        } else {
            String::new()
        };
        say(
            shared,
            said,
            "retries".into(),
            format!(
                "draining: waiting for {} {} of jobs that failed here; the next is due {}{bound}",
                pending.len(),
                agree(pending.len() as u64, "retry", "retries"),
                due_in(at - shared.now())
            ),
        );
    } else if shared.cfg.wait_scheduled {
        let first: Vec<(String, f64)> = redis
            .query(
                redis::cmd("ZRANGE")
                    .arg(&keys.scheduled)
                    .arg(0)
                    .arg(0)
                    .arg("WITHSCORES"),
                format!("ZRANGE {}", keys.scheduled),
            )
            .await?;
        if let Some((_, at)) = first.first() {
            if paused {
                return Ok(Check::End(DrainEnd::Paused));
            }
            say(
                shared,
                said,
                "scheduled".into(),
                format!(
                    "draining: waiting for the jobs scheduled for later (--wait-scheduled); the next is due {}",
                    due_in(at - shared.now())
                ),
            );
            next = Some(*at);
        }
    }
    match next {
        Some(at) => {
            let wait = (at - shared.now()).clamp(0.01, shared.cfg.poll_interval.as_secs_f64());
            pause(shared, Duration::from_secs_f64(wait)).await;
            Ok(Check::Continue)
        }
        None => Ok(Check::End(DrainEnd::Drained)),
    }
}

/// The retries of jobs that failed here that still wait in `NAME:scheduled`, with their
/// due times; the others (run since, by this consumer or another, or deleted) are forgotten.
pub async fn pending_retries(shared: &Shared) -> Result<Vec<(String, f64)>, Error> {
    let ids: Vec<String> = shared
        .retries
        .lock()
        .expect("retries lock")
        .keys()
        .cloned()
        .collect();
    let mut redis = shared.redis.clone();
    let mut pending = Vec::new();
    let mut gone = Vec::new();
    for chunk in ids.chunks(CHUNK) {
        let mut pipe = redis::pipe();
        for id in chunk {
            pipe.cmd("ZSCORE").arg(&shared.keys.scheduled).arg(id);
        }
        let scores: Vec<Option<f64>> = redis
            .pipeline(&pipe, format!("ZSCORE {}", shared.keys.scheduled))
            .await?;
        for (id, score) in chunk.iter().zip(scores) {
            match score {
                Some(at) => pending.push((id.clone(), at)),
                None => gone.push(id),
            }
        }
    }
    if !gone.is_empty() {
        let mut retries = shared.retries.lock().expect("retries lock");
        for id in gone {
            retries.remove(id);
        }
    }
    Ok(pending)
}

/// `in 3.2s`, `in 4m`, `now` for a time already past.
fn due_in(secs: f64) -> String {
    if secs < 0.05 {
        "now".into()
    } else if secs < 60.0 {
        format!("in {secs:.1}s")
    } else {
        format!("in {}", span(secs))
    }
}

/// The longest the retries of a job that keeps failing can wait in all, in seconds: the
/// wait before retry `a` (from 0) is at most 2^a s ([`super::processor::retry_delay`]),
/// capped by `cap`.
fn longest_retries(max_retries: i64, cap: Duration) -> f64 {
    (0..max_retries.clamp(0, 1000))
        .map(|a| 2f64.powi(a as i32).min(cap.as_secs_f64()))
        .sum()
}

/// Emits `message` unless what it is about (`about`) is what was said last.
fn say(shared: &Shared, said: &mut String, about: String, message: String) {
    if *said != about {
        shared.emit(Event::Warning { message });
        *said = about;
    }
}

/// Waits `wait`, or less when the consumer is stopped.
async fn pause(shared: &Shared, wait: Duration) {
    tokio::select! {
        _ = tokio::time::sleep(wait) => {}
        _ = shared.stop.cancelled() => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_wait_for_retries_doubles_up_to_the_cap() {
        let week = Duration::from_secs(7 * 86400);
        // The defaults: 20 retries, --max-backoff 7d: 2^20 - 1 s, about 12 days.
        assert_eq!(longest_retries(20, week), 1_048_575.0);
        assert_eq!(longest_retries(3, Duration::from_secs(1)), 3.0);
        assert_eq!(longest_retries(10, Duration::from_secs(120)), 487.0);
        assert_eq!(longest_retries(0, week), 0.0);
        assert_eq!(longest_retries(-1, week), 0.0);
    }
}
