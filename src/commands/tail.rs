//! `qctl tail QUEUE...`: what happens to queues, as it happens, until stopped.

use std::time::{Duration, Instant};

use serde_json::json;

use super::Context;
use crate::cli::TailArgs;
use crate::engine::tail::{event_json, Counts, Follower, Happening};
use crate::engine::{Error, ExitCode};
use crate::output::{clock, event_text, plural, printable, relative, thousands};
use crate::signals;

/// The longest wait between tries while Redis cannot be reached.
const MOST_BACKOFF: Duration = Duration::from_secs(10);

pub async fn run(mut ctx: Context, args: TailArgs) -> anyhow::Result<ExitCode> {
    let mut keys = Vec::new();
    for queue in &args.queues {
        keys.push(ctx.keys(queue)?);
    }
    let stop = signals::install()?;
    let server = ctx.server()?;
    let Some(redis) = stop.unless_signalled(server.connect()).await else {
        super::stopped_before_redis_answered(&mut ctx, &stop);
        // Ctrl-C is how a follower ends, as below.
        return Ok(ExitCode::Success);
    };
    let mut redis = redis?;
    for k in &keys {
        super::warn_unknown_queue(&ctx, &mut redis, k, "following it until it appears").await?;
    }
    let start = redis.server_time().await?;
    let since = args.since.unwrap_or(start);
    let mut followers: Vec<Follower> = keys
        .into_iter()
        .map(|k| Follower::new(k, since, args.orphan_after.as_secs_f64()))
        .collect();
    // The counts of the last interval line, per queue, and when it was printed.
    let mut last: Vec<Option<Counts>> = vec![None; followers.len()];
    let mut interval_start = Instant::now();
    let mut first = true;
    let mut failing: u32 = 0;
    loop {
        let now = match redis.server_time().await {
            Ok(now) => now,
            Err(e) => {
                wait_after(&mut ctx, e, &mut failing, &stop).await?;
                if stop.requested.is_cancelled() {
                    break;
                }
                continue;
            }
        };
        let mut ticks = Vec::with_capacity(followers.len());
        let mut error = None;
        for f in &mut followers {
            match f.tick(&mut redis, now).await {
                Ok(t) => ticks.push(t),
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        if let Some(e) = error {
            wait_after(&mut ctx, e, &mut failing, &stop).await?;
            if stop.requested.is_cancelled() {
                break;
            }
            continue;
        }
        if failing > 0 {
            failing = 0;
            ctx.out.note("reconnected");
        }
        let mut behind = false;
        for (f, tick) in followers.iter().zip(&ticks) {
            behind |= tick.behind;
            if first {
                started(&mut ctx, &f.keys.name, since, start, &tick.counts, &args)?;
            }
            for (time, happening) in &tick.happened {
                if args.failures
                    && !matches!(happening, Happening::Dead { .. } | Happening::Retry { .. })
                {
                    continue;
                }
                show(&mut ctx, &f.keys, *time, happening, now)?;
            }
        }
        let interval_over = interval_start.elapsed() >= args.interval;
        if first || interval_over {
            for (i, (f, tick)) in followers.iter().zip(&ticks).enumerate() {
                if !first && !args.failures {
                    summary(
                        &mut ctx,
                        &f.keys.name,
                        now,
                        &tick.counts,
                        last[i].as_ref(),
                        interval_start.elapsed(),
                    )?;
                }
                last[i] = Some(tick.counts.clone());
            }
            interval_start = Instant::now();
        }
        ctx.out.flush()?;
        first = false;
        if stop.requested.is_cancelled() || (args.no_follow && !behind) {
            break;
        }
        // Catching up: read the next changes at once.
        if !behind {
            tokio::select! {
                _ = tokio::time::sleep(args.poll) => {}
                _ = stop.requested.cancelled() => break,
            }
        }
    }
    // Ctrl-C or SIGTERM is how a follower ends: that is success. A closed output ends a
    // read command quietly.
    Ok(ExitCode::Success)
}

/// After a failed tick: a permanent error ends the command; a transient one is said once
/// and retried with a growing pause.
async fn wait_after(
    ctx: &mut Context,
    e: Error,
    failing: &mut u32,
    stop: &signals::Stop,
) -> anyhow::Result<()> {
    if !e.is_transient() {
        return Err(e.into());
    }
    *failing += 1;
    let pause = Duration::from_millis(500)
        .saturating_mul(1 << (*failing - 1).min(5))
        .min(MOST_BACKOFF);
    if *failing == 1 {
        ctx.out.warn(format!(
            "{e}; retrying every {}s at most until it answers",
            MOST_BACKOFF.as_secs()
        ));
    }
    tokio::select! {
        _ = tokio::time::sleep(pause) => {}
        _ = stop.requested.cancelled() => {}
    }
    Ok(())
}

/// The first line for a queue: what it holds as the following starts.
fn started(
    ctx: &mut Context,
    queue: &str,
    since: f64,
    now: f64,
    counts: &Counts,
    args: &TailArgs,
) -> std::io::Result<()> {
    if ctx.out.json {
        return ctx.out.json_line(&json!({
            "time": now,
            "queue": queue,
            "event": "following",
            "since": since,
            "counts": counts,
        }));
    }
    let from = if since < now - 1.0 {
        format!(" since {} ({})", clock(since), relative(since, now))
    } else {
        String::new()
    };
    let what: String = [
        (!args.no_follow).then_some(" following"),
        args.failures.then_some(" failures"),
    ]
    .into_iter()
    .flatten()
    .collect();
    ctx.out.line(format!(
        "{} {}{what}{from}: {}{}",
        clock(now),
        printable(queue),
        holds(counts),
        if args.no_follow { "" } else { "; Ctrl-C stops" }
    ))
}

fn holds(c: &Counts) -> String {
    format!(
        "{} ready, {} scheduled, {} dead, {}{}",
        thousands(c.ready),
        thousands(c.scheduled),
        thousands(c.dead),
        plural(c.consumers, "consumer"),
        if c.paused { ", paused" } else { "" }
    )
}

/// The line printed every interval.
fn summary(
    ctx: &mut Context,
    queue: &str,
    now: f64,
    c: &Counts,
    before: Option<&Counts>,
    elapsed: Duration,
) -> std::io::Result<()> {
    let delta = |now: Option<u64>, before: Option<u64>| -> Option<u64> {
        Some(now?.saturating_sub(before.unwrap_or(0)))
    };
    let done = delta(c.completed, before.and_then(|b| b.completed));
    let failed = delta(c.failed, before.and_then(|b| b.failed));
    let secs = elapsed.as_secs_f64();
    if ctx.out.json {
        return ctx.out.json_line(&json!({
            "time": now,
            "queue": queue,
            "event": "interval",
            "secs": secs,
            "done": done,
            "failed": failed,
            "counts": c,
        }));
    }
    let count = |n: Option<u64>| n.map_or("-".to_string(), thousands);
    ctx.out.line(format!(
        "{} {} in {:.0}s: {} done, {} failed; {}",
        clock(now),
        printable(queue),
        secs,
        count(done),
        count(failed),
        holds(c)
    ))
}

/// One happening as a line (or a JSON object).
fn show(
    ctx: &mut Context,
    keys: &crate::engine::QueueKeys,
    time: f64,
    happening: &Happening,
    now: f64,
) -> std::io::Result<()> {
    if ctx.out.json {
        return ctx.out.json_line(&event_json(&keys.name, time, happening));
    }
    let text = event_text(keys, time, happening, now);
    ctx.out
        .line(format!("{} {} {text}", clock(time), printable(&keys.name)))
}
