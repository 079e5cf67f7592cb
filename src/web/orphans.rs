//! The jobs of expired consumers returned to the queue from the page, as `qctl orphans`
//! returns them and through the same engine functions (`consumers::orphaned`,
//! `consumers::recover_expired`): which consumers are silent for longer than qctl web's
//! `--orphan-after`, with their jobs, then the recovery, each call looking at the heartbeat
//! again. [`crate::web::pages::orphans`] renders them.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::App;
use crate::engine::changes::{self, Change, Origin};
use crate::engine::consumers::{self, host_pid, Recovered};
use crate::engine::{Error, QueueKeys};

/// An expired consumer, as the preview shows it.
#[derive(Debug, Clone)]
pub struct Planned {
    pub key: String,
    pub in_flight: Option<u64>,
    /// Its heartbeat's age in seconds (negative: ahead of the server's clock).
    pub age: f64,
    /// `host:pid`, as `qctl consumers` shows it (`-` for a Go CurlyQ consumer).
    pub host_pid: String,
    /// Why it is left alone, if it is.
    pub skip: Option<String>,
}

/// The expired consumers of the queue, by qctl web's `--orphan-after`; the cut-off used.
pub async fn plan(app: &App, keys: &QueueKeys) -> Result<(f64, Vec<Planned>), Error> {
    let read = async {
        let mut redis = app.link.redis().await?;
        plan_on(&mut redis, app, keys).await
    };
    let read: Result<_, Error> = read.await;
    if let Err(e) = &read {
        app.link.failed(e).await;
    }
    read
}

async fn plan_on(
    redis: &mut crate::engine::Redis,
    app: &App,
    keys: &QueueKeys,
) -> Result<(f64, Vec<Planned>), Error> {
    let now = redis.server_time().await?;
    let cutoff = now - app.orphan_after.as_secs_f64();
    let list = consumers::list(redis, keys).await?;
    let described = consumers::describe(redis, keys, &list).await?;
    let planned = list
        .iter()
        .zip(&described)
        .filter_map(|(c, d)| {
            consumers::orphaned(c, now, cutoff).map(|skip| Planned {
                key: c.key.clone(),
                in_flight: c.in_flight,
                age: now - c.heartbeat,
                host_pid: host_pid(d.as_ref()),
                skip,
            })
        })
        .collect();
    Ok((cutoff, planned))
}

/// What a recovery from the page did.
#[derive(Debug)]
pub struct Applied {
    pub recovered: Recovered,
    /// The consumers left alone, and why.
    pub skipped: Vec<(String, String)>,
    /// Why the recovery, made, is not in the queue's record of changes.
    pub not_recorded: Option<String>,
}

/// Returns the jobs of the consumers expired now to the queue, in a task of its own (a
/// browser that goes away does not stop it halfway), and records it.
pub async fn apply(app: &Arc<App>, keys: &QueueKeys, origin: Origin) -> Result<Applied, Error> {
    let (app, keys) = (app.clone(), keys.clone());
    let task = tokio::spawn(async move {
        let run = async {
            let mut redis = app.link.redis().await?;
            changes::check_rights(&mut redis, &keys).await?;
            let (cutoff, planned) = plan_on(&mut redis, &app, &keys).await?;
            let members: Vec<(String, u64)> = planned
                .iter()
                .filter(|p| p.skip.is_none())
                .map(|p| (p.key.clone(), p.in_flight.unwrap_or(0)))
                .collect();
            let never = CancellationToken::new();
            let recovered =
                consumers::recover_expired(&mut redis, &keys, &members, cutoff, &never, &never)
                    .await?;
            let skipped: Vec<(String, String)> = planned
                .iter()
                .filter_map(|p| Some((p.key.clone(), p.skip.clone()?)))
                .collect();
            let mut change = Change::new("orphans");
            change.done = recovered.report.moved();
            for (_, why) in recovered.report.skipped.iter().chain(&skipped) {
                change.skip(why);
            }
            change.detail = recovered.report.detail();
            change.error = recovered.failure.as_ref().map(Error::to_string);
            change.unconfirmed = u64::from(recovered.unconfirmed);
            let mut not_recorded = None;
            if !members.is_empty() {
                if let Err(e) = changes::record(&mut redis, &keys, &change, &origin).await {
                    not_recorded = Some(format!(
                        "the change was made, but recording it in {} failed: {e}",
                        keys.changes
                    ));
                }
            }
            Ok(Applied {
                recovered,
                skipped,
                not_recorded,
            })
        };
        let done: Result<Applied, Error> = run.await;
        if let Err(e) = &done {
            app.link.failed(e).await;
        }
        done
    });
    task.await
        .map_err(|e| Error::BadInput(format!("the change ended abnormally: {e}")))?
}
