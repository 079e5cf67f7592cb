//! Runs a loop's step again and again. An error is reported and retried with exponential
//! backoff (short for transient errors); a panic restarts the step; a permanent error, or a
//! loop that has not succeeded for the orphan cut-off, gives up, which ends the consumer.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::status::LoopState;
use super::{Event, Shared};
use crate::engine::error::Error;

/// Backoff after the first failure: transient errors (link, LOADING) and others.
const TRANSIENT_BASE: Duration = Duration::from_millis(100);
const OTHER_BASE: Duration = Duration::from_secs(1);
const CAP: Duration = Duration::from_secs(10);

/// The delay before retry number `failures` (1-based), with jitter.
pub fn backoff(failures: u32, transient: bool) -> Duration {
    let base = if transient {
        TRANSIENT_BASE
    } else {
        OTHER_BASE
    };
    let exp = base
        .saturating_mul(1 << failures.saturating_sub(1).min(16))
        .min(CAP);
    exp.mul_f64(0.5 + fastrand::f64() / 2.0)
}

/// Runs `step` until `stop`; each Ok(wait) is followed by a pause of `wait`.
pub async fn supervise<F, Fut>(
    shared: Arc<Shared>,
    name: &'static str,
    stop: CancellationToken,
    step: F,
) -> Result<(), Error>
where
    F: Fn(Arc<Shared>) -> Fut,
    Fut: Future<Output = Result<Duration, Error>> + Send + 'static,
{
    let give_up_after = shared.cfg.orphan_after;
    let mut failing_since: Option<Instant> = None;
    let mut failures = 0u32;
    loop {
        shared.status.set(name, LoopState::Running);
        // A stop does not wait for a step stalled on an unanswered call.
        let mut task = tokio::spawn(step(shared.clone()));
        let result = tokio::select! {
            r = &mut task => r,
            _ = stop.cancelled() => {
                task.abort();
                shared.status.set(name, LoopState::Stopped);
                return Ok(());
            }
        };
        let wait = match result {
            Ok(Ok(wait)) => {
                failing_since = None;
                failures = 0;
                wait
            }
            Ok(Err(err)) => {
                failures += 1;
                let since = *failing_since.get_or_insert_with(Instant::now);
                // A permanent error (wrong key type, missing right, lost lease) will not go
                // away by trying again: give up at once.
                if err.is_permanent() || since.elapsed() >= give_up_after {
                    shared.status.set(name, LoopState::Stopped);
                    return Err(err);
                }
                let wait = backoff(failures, err.is_transient());
                shared.emit(Event::Warning {
                    message: format!("{name}: {err}; retrying in {}ms", wait.as_millis()),
                });
                shared.status.set(
                    name,
                    LoopState::BackingOff {
                        error: err.to_string(),
                        retry_in_ms: wait.as_millis() as u64,
                    },
                );
                wait
            }
            Err(panic) => {
                failures += 1;
                shared.emit(Event::Warning {
                    message: format!("{name} loop failed ({panic}); restarting it"),
                });
                backoff(failures, false)
            }
        };
        tokio::select! {
            _ = stop.cancelled() => {
                shared.status.set(name, LoopState::Stopped);
                return Ok(());
            }
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        assert!(backoff(1, true) <= TRANSIENT_BASE);
        assert!(backoff(1, false) >= OTHER_BASE / 2);
        assert!(backoff(4, true) > backoff(1, true) * 2);
        assert!(backoff(100, false) <= CAP);
    }
}
