//! Listens for orders (see [`crate::engine::orders`]): BLPOP on `NAME:consumer:<uuid>:orders`
//! on a connection of its own, so an order reaches the consumer at once whatever its
//! handlers are doing, and an idle consumer pays for nothing but one blocked connection.
//! Each order is checked (for this consumer, given after it started, before its deadline),
//! acknowledged, and carried out; a cancel is answered job by job once each is settled (see
//! the processor).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::{Event, Shared};
use crate::engine::conn::Redis;
use crate::engine::error::Error;
use crate::engine::orders::{self, Answer, Order, Outcome, What};

/// The longest one BLPOP blocks before it is sent again.
const BLOCK: Duration = Duration::from_secs(30);

/// Runs until `background` is cancelled (after the consumer's work has ended). A refused
/// BLPOP (a missing right) ends the consumer, as any permanent error; others are retried.
pub async fn listen(shared: Arc<Shared>, background: CancellationToken) -> Result<(), Error> {
    let key = shared.keys.consumer_orders(&shared.id);
    let mut conn: Option<Redis> = None;
    loop {
        if background.is_cancelled() {
            return Ok(());
        }
        if conn.is_none() {
            let mut spec = shared.server.clone();
            spec.response_timeout += BLOCK;
            let connected = tokio::select! {
                r = spec.connect() => r,
                _ = background.cancelled() => return Ok(()),
            };
            match connected {
                Ok(c) => conn = Some(c),
                Err(e) if e.is_permanent() => return Err(e),
                Err(_) => {
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                        _ = background.cancelled() => return Ok(()),
                    }
                    continue;
                }
            }
        }
        let c = conn.as_mut().expect("connected above");
        let mut cmd = redis::cmd("BLPOP");
        cmd.arg(&key).arg(BLOCK.as_secs());
        let reply = tokio::select! {
            r = c.query_waiting::<Option<(String, Vec<u8>)>>(&cmd, format!("BLPOP {key}")) => r,
            _ = background.cancelled() => return Ok(()),
        };
        match reply {
            Ok(Some((_, text))) => act(&shared, &text).await,
            Ok(None) => {}
            Err(e) if e.is_permanent() && e.code() != Some("WRONGTYPE") => return Err(e),
            Err(e) => {
                conn = None;
                if e.code() == Some("WRONGTYPE") {
                    shared.report_once(
                        "orders-type",
                        format!("{key} is not a list, so no order can reach this consumer: {e}"),
                    );
                }
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                    _ = background.cancelled() => return Ok(()),
                }
            }
        }
    }
}

/// Checks one order and carries it out.
async fn act(shared: &Arc<Shared>, text: &[u8]) {
    let order: Order = match serde_json::from_slice(text) {
        Ok(order) => order,
        Err(e) => {
            shared.emit(Event::Warning {
                message: format!(
                    "an order in {} could not be read ({e}); ignored",
                    shared.keys.consumer_orders(&shared.id)
                ),
            });
            return;
        }
    };
    let started = shared.started.get().copied().unwrap_or(0.0);
    if let Some(why) = orders::refused(&order, &shared.id, started, shared.now()) {
        shared.emit(Event::Warning {
            message: format!(
                "ignored the order to {} from {}: {why}",
                order.what.name(),
                order.by
            ),
        });
        return;
    }
    let grace = match &order.what {
        What::Stop => shared.cfg.shutdown_grace,
        _ => shared.cfg.kill_after,
    };
    let received = Answer {
        result: Outcome::Received,
        job: None,
        detail: String::new(),
        grace_ms: Some(grace.as_millis() as u64),
    };
    if reply(shared, &order, &[received]).await.is_err() {
        // The one who asked hears nothing and says so; the order is still carried out, as
        // it was received before its deadline.
    }
    match &order.what {
        What::Cancel { jobs, .. } => cancel(shared, &order, jobs).await,
        What::Quiet => {
            let was = shared.quiet.swap(true, Ordering::SeqCst);
            shared.quieted.notify_waiters();
            shared.finished.notify_waiters();
            shared.emit(Event::Warning {
                message: format!(
                    "quieted by {}: taking no new job; running jobs finish",
                    order.by
                ),
            });
            let detail = match was {
                true => "it was quiet already".to_string(),
                false => format!(
                    "quiet: it takes no new job; {} running",
                    shared.status.snapshot().running.len()
                ),
            };
            let _ = super::identity::mark_quiet(shared).await;
            done(shared, &order, detail).await;
        }
        What::Stop => {
            shared.stopped_by(&order.by);
            shared.emit(Event::Warning {
                message: format!(
                    "stopped by {}: running jobs finish within --shutdown-grace, the rest go back",
                    order.by
                ),
            });
            let running = shared.status.snapshot().running.len();
            done(
                shared,
                &order,
                format!("stopping: {running} running, then it leaves"),
            )
            .await;
            shared.stop.cancel();
        }
        What::Resize { concurrency } => {
            let detail = match shared.resize(*concurrency) {
                Ok(before) => {
                    shared.emit(Event::Warning {
                        message: format!("concurrency {before} -> {concurrency}, by {}", order.by),
                    });
                    let _ = super::identity::mark_concurrency(shared).await;
                    let running = shared.status.snapshot().running.len();
                    match running > *concurrency {
                        true => format!(
                            "concurrency {before} -> {concurrency}; {running} running finish first"
                        ),
                        false => format!("concurrency {before} -> {concurrency}"),
                    }
                }
                Err(why) => {
                    failed(shared, &order, why).await;
                    return;
                }
            };
            done(shared, &order, detail).await;
        }
    }
}

/// Asks the handlers of the jobs held here to stop; each is answered once settled (by the
/// processor), those not held here at once.
async fn cancel(shared: &Arc<Shared>, order: &Order, jobs: &[String]) {
    let mut answers = Vec::new();
    for id in jobs {
        match shared.cancel_job(id, order) {
            Ok(()) => {}
            Err(why) => answers.push(Answer {
                result: Outcome::NotHeld,
                job: Some(id.clone()),
                detail: why,
                grace_ms: None,
            }),
        }
    }
    if !answers.is_empty() {
        let _ = reply(shared, order, &answers).await;
    }
}

async fn done(shared: &Shared, order: &Order, detail: String) {
    let answer = Answer {
        result: Outcome::Done,
        job: None,
        detail,
        grace_ms: None,
    };
    let _ = reply(shared, order, &[answer]).await;
}

async fn failed(shared: &Shared, order: &Order, detail: String) {
    let answer = Answer {
        result: Outcome::Failed,
        job: None,
        detail,
        grace_ms: None,
    };
    let _ = reply(shared, order, &[answer]).await;
}

/// Writes answers to `order`; a failure is said once, as a warning.
pub async fn reply(shared: &Shared, order: &Order, answers: &[Answer]) -> Result<(), Error> {
    let mut pipe = redis::pipe();
    for a in answers {
        orders::answer(&mut pipe, &shared.keys, order, a);
    }
    let mut redis = shared.redis.clone();
    let key = shared.keys.consumer_answers(&order.to, &order.id);
    let written = redis.pipeline::<()>(&pipe, format!("RPUSH {key}")).await;
    if let Err(e) = &written {
        shared.emit(Event::Warning {
            message: format!(
                "could not answer the order to {} from {}: {e}",
                order.what.name(),
                order.by
            ),
        });
    }
    written
}
