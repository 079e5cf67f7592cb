//! `qctl orphans QUEUE`: return the in-flight jobs of expired consumers to the queue.

use anyhow::Context as _;
use serde_json::json;

use super::Context;
use crate::engine::{consumers, ExitCode};

pub async fn run(
    mut ctx: Context,
    queue: &str,
    orphan_after: std::time::Duration,
    dry_run: bool,
) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(queue)?;
    let mut redis = ctx.server()?.connect().await?;
    let now = redis.server_time().await?;
    let cutoff = now - orphan_after.as_secs_f64();
    if dry_run {
        let list = consumers::list(&mut redis, &keys)
            .await
            .with_context(|| format!("cannot list the consumers of queue {queue:?}"))?;
        // Expired ones, and ones with a heartbeat in the future (skipped), with why.
        let expired: Vec<_> = list
            .iter()
            .filter_map(|c| {
                let ahead = c.heartbeat > now + consumers::AHEAD_TOLERANCE;
                let skip = c
                    .problem
                    .clone()
                    .or_else(|| ahead.then(|| consumers::ahead_note(c.heartbeat, now)));
                (c.heartbeat <= cutoff || ahead).then_some((c, skip))
            })
            .collect();
        if ctx.out.json {
            let rows: Vec<_> = expired
                .iter()
                .map(|(c, skip)| json!({"consumer": c.key, "in_flight": c.in_flight, "skip": skip}))
                .collect();
            ctx.out
                .json_line(&json!({"dry_run": true, "expired": rows}))?;
        } else {
            for (c, skip) in &expired {
                match skip {
                    Some(why) => ctx.out.line(format!("would skip {}: {why}", c.key))?,
                    None => ctx.out.line(format!(
                        "would recover {} job(s) of {}",
                        c.in_flight.unwrap_or(0),
                        c.key
                    ))?,
                }
            }
            if expired.is_empty() {
                ctx.out.note("no expired consumers");
            }
        }
        ctx.out.flush()?;
        return Ok(ExitCode::Success);
    }
    let mut report = consumers::recover_orphans(&mut redis, &keys, cutoff, None)
        .await
        .with_context(|| format!("cannot recover the orphans of queue {queue:?}"))?;
    // A heartbeat in the future cannot be judged by one look: say so, touch nothing.
    for (member, score) in consumers::ahead(&mut redis, &keys, now).await? {
        report.skipped.push((
            member,
            format!(
                "{}; a running qctl consumer recovers it once the heartbeat stays unchanged for --orphan-after",
                consumers::ahead_note(score, now)
            ),
        ));
    }
    if ctx.out.json {
        ctx.out.json_line(&json!({
            "recovered": report.recovered.iter().map(|(c, n)| json!({"consumer": c, "jobs": n})).collect::<Vec<_>>(),
            "skipped": report.skipped.iter().map(|(c, why)| json!({"consumer": c, "reason": why})).collect::<Vec<_>>(),
            "moved": report.moved(),
        }))?;
    } else {
        for (c, n) in &report.recovered {
            ctx.out.line(format!("recovered {n} job(s) of {c}"))?;
        }
        for (c, why) in &report.skipped {
            ctx.out.line(format!("skipped {c}: {why}"))?;
        }
        ctx.out.note(format_args!(
            "moved {} job(s) back to {}; {} consumer(s) skipped",
            report.moved(),
            keys.active,
            report.skipped.len()
        ));
    }
    ctx.out.flush()?;
    Ok(if report.skipped.is_empty() {
        ExitCode::Success
    } else {
        ExitCode::Partial
    })
}
