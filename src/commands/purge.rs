//! `qctl purge QUEUE`: delete every key of a queue, after saying what goes; the record of
//! its changes stays (with the purge in it) unless --forget-changes.

use anyhow::Context as _;
use serde_json::json;

use super::Context;
use crate::cli::ConfirmArgs;
use crate::engine::changes::Change;
use crate::engine::{consumers, ExitCode};
use crate::output::{plural, printable, stopped_by, thousands};
use crate::signals;

pub async fn run(
    mut ctx: Context,
    queue: &str,
    forget_changes: bool,
    confirm: ConfirmArgs,
) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(queue)?;
    let mut redis = ctx.server()?.connect().await?;
    // A queue whose record of changes is all that is left may still have it deleted.
    let record_only = forget_changes
        && redis
            .query::<u64>(
                redis::cmd("EXISTS").arg(&keys.changes),
                format!("EXISTS {}", keys.changes),
            )
            .await?
            > 0;
    if !record_only {
        super::require_queue(&mut redis, &keys).await?;
    }
    let mut targets: Vec<String> = keys.fixed().iter().map(|k| k.to_string()).collect();
    if forget_changes {
        targets.push(keys.changes.clone());
    }
    for c in consumers::list(&mut redis, &keys)
        .await
        .with_context(|| format!("cannot list {}", keys.consumers))?
    {
        if keys.is_inflight_key(&c.key) {
            targets.push(c.key);
        }
    }
    // In-flight sets whose consumer entry is gone, the descriptions of qctl consumers and
    // the minutes of the queue's history: one SCAN pass.
    targets.extend(keys.scan_variable(&mut redis, 10_000).await?);
    targets.sort();
    targets.dedup();
    let mut pipe = redis::pipe();
    for k in &targets {
        pipe.exists(k);
    }
    pipe.hlen(&keys.data);
    let mut present: Vec<u64> = redis
        .pipeline(&pipe, format!("checking the keys of queue {queue:?}"))
        .await?;
    let jobs = present.pop().unwrap_or(0);
    let existing: Vec<String> = targets
        .into_iter()
        .zip(present)
        .filter(|(_, e)| *e > 0)
        .map(|(k, _)| k)
        .collect();
    if existing.is_empty() {
        ctx.out.note(format_args!("queue {queue:?} has no keys"));
        return Ok(ExitCode::NothingDone);
    }
    // From the preview on, a stop request ends the command at a clean point: before the
    // UNLINK nothing changed, and with the UNLINK out its answer says whether the keys went.
    let stop = signals::install()?;
    ctx.out.note(format_args!(
        "{} delete {} of queue {queue:?} holding {}: {}",
        super::will(confirm.dry_run),
        plural(existing.len() as u64, "key"),
        plural(jobs, "job record"),
        existing
            .iter()
            .take(12)
            .map(|k| printable(k))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    if confirm.dry_run {
        if ctx.out.json {
            ctx.out.json_line(
                &json!({"dry_run": true, "queue": queue, "keys": existing, "jobs": jobs}),
            )?;
            ctx.out.flush()?;
        }
        return Ok(super::dry_run_end(&ctx, &stop));
    }
    let question = format!("delete queue {queue:?} with {}?", plural(jobs, "job"));
    if let Some(end) = super::ask(&mut ctx, &question, confirm.yes, &stop).await? {
        return Ok(end);
    }
    if !forget_changes {
        super::may_record(&mut redis, &keys).await?;
    }
    // One UNLINK: Redis checks the user's right to every key before it deletes any, so a
    // refusal leaves no ids without their records or records without their ids.
    let mut deleted = 0u64;
    let mut unconfirmed = false;
    let mut failure: Option<anyhow::Error> = None;
    for chunk in std::iter::once(&existing[..]) {
        if stop.requested.is_cancelled() {
            break;
        }
        let mut cmd = redis::cmd("UNLINK");
        cmd.arg(chunk);
        let unlink = redis.query::<u64>(&cmd, format!("UNLINK {}", chunk.join(", ")));
        let unlinked = tokio::select! {
            unlinked = unlink => unlinked,
            _ = stop.forced.cancelled() => {
                unconfirmed = true;
                break;
            }
        };
        match unlinked {
            Ok(n) => deleted += n,
            Err(err) => {
                // A lost reply: the keys still there tell what the call did.
                let mut pipe = redis::pipe();
                for k in chunk {
                    pipe.exists(k);
                }
                let left: Result<Vec<u64>, _> = redis
                    .pipeline(&pipe, format!("checking the keys of queue {queue:?}"))
                    .await;
                match left {
                    Ok(left) => deleted += left.iter().filter(|&&e| e == 0).count() as u64,
                    Err(_) => unconfirmed = true,
                }
                failure = Some(anyhow::Error::from(err));
                break;
            }
        }
    }
    let tally = format!(
        "deleted {} of {} of queue {queue:?}{}; run the same command again to go on",
        thousands(deleted),
        plural(existing.len() as u64, "key"),
        if unconfirmed {
            "; the last UNLINK was sent and whether it took effect is not known"
        } else {
            ""
        }
    );
    // A stop that came while the UNLINK was out, which then deleted every key, stopped
    // nothing: the purge is done.
    let stopped = stop
        .cause()
        .filter(|_| unconfirmed || deleted < existing.len() as u64);
    // What went is recorded, unless the record went with it.
    if !forget_changes {
        let mut change = Change::new("purge");
        change.of_queue = deleted > 0;
        match (deleted > 0, unconfirmed) {
            (true, _) => change.done = jobs,
            (false, true) => change.unconfirmed = jobs.max(1),
            (false, false) => {}
        }
        change.detail = format!("{} deleted", plural(deleted, "key"));
        change.interrupted = stopped.map(|cause| cause.name().to_string());
        change.error = failure.as_ref().map(|err| format!("{err:#}"));
        super::record(&ctx, &mut redis, &keys, &change, Some(&stop)).await;
    }
    if let Some(cause) = stopped {
        if ctx.out.json {
            let value = json!({"queue": queue, "deleted": deleted, "interrupted": cause.name()});
            let _ = ctx.out.json_line(&value).and_then(|_| ctx.out.flush());
        }
        ctx.out
            .last_word(&format!("{}: {tally}", stopped_by(cause)));
        return Ok(cause.exit_code());
    }
    if let Some(err) = failure {
        return Err(err.context(tally));
    }
    if ctx.out.json {
        ctx.out
            .json_line(&json!({"queue": queue, "deleted_keys": existing, "jobs": jobs}))?;
        ctx.out.flush()?;
    }
    ctx.out.note(format_args!(
        "deleted {} of queue {queue:?}",
        plural(existing.len() as u64, "key")
    ));
    Ok(ExitCode::Success)
}
