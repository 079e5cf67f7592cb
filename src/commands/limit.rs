//! `qctl limit QUEUE`: show or set the rate and the running cap every qctl consumer of a
//! queue obeys (engine/limits.rs), and how much of them is in use.

use serde_json::json;

use super::Context;
use crate::cli::LimitArgs;
use crate::engine::limits::{self, Change, Limits, Usage};
use crate::engine::{ExitCode, QueueKeys};
use crate::output::{agree, plural};

pub async fn run(mut ctx: Context, args: LimitArgs) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(&args.queue)?;
    let mut redis = ctx.server()?.connect().await?;
    let queue = args.queue.as_str();
    if args.is_read_only() {
        super::require_queue(&mut redis, &keys).await?;
    } else {
        if args.burst.is_some() && args.rate.is_none() {
            let now = limits::read(&mut redis, &keys).await?;
            if now.rate.is_none() || args.no_rate {
                return Err(crate::engine::Error::Usage(format!(
                    "--burst is how many jobs a rate lets start at once, and queue {queue:?} has no \
                     rate: give --rate too (qctl limit {queue} --rate 100/s --burst 5)"
                ))
                .into());
            }
        }
        let then = "setting its limits anyway: its consumers will find them";
        super::warn_unknown_queue(&ctx, &mut redis, &keys, then).await?;
        let change = Change {
            rate: args.rate.clone(),
            burst: args.burst,
            max_running: args.max_running,
            no_rate: args.no_rate,
            no_max_running: args.no_max_running,
            clear: args.clear,
        };
        limits::set(&mut redis, &keys, &change).await.map_err(|e| {
            super::unknown_change(e, || format!("the limits of queue {queue:?} were changed"))
        })?;
    }
    let now = limits::read(&mut redis, &keys).await?;
    let usage = limits::usage(&mut redis, &keys, &now, args.orphan_after).await?;
    if ctx.out.json {
        let value = json!({
            "queue": queue,
            "rate": now.rate,
            "rate_text": now.rate_text,
            // The burst in force: 1 when a rate was set without one.
            "burst": now.rate.map(|_| now.burst.unwrap_or(1)),
            "max_running": now.max_running,
            "stops_all": now.stop_all(),
            "running": usage.running,
            "tokens": usage.tokens,
            "qctl_consumers": usage.qctl_consumers,
            "other_consumers": usage.other_consumers,
        });
        let written = ctx.out.json_line(&value).and_then(|_| ctx.out.flush());
        ctx.out.after_done(written)?;
    } else {
        let lines = describe(queue, &now, &usage);
        if args.is_read_only() {
            for line in &lines {
                ctx.out.line(line)?;
            }
            ctx.out.flush()?;
        } else {
            for line in &lines {
                ctx.out.note(line);
            }
        }
    }
    if usage.other_consumers > 0 && !now.is_empty() {
        ctx.out.warn(ignored(&keys, &usage));
    }
    Ok(ExitCode::Success)
}

/// The limits and their use, a line each.
fn describe(queue: &str, limits: &Limits, usage: &Usage) -> Vec<String> {
    if limits.is_empty() {
        return vec![format!(
            "queue {queue:?} has no limits: its consumers start jobs as fast as they can"
        )];
    }
    let mut lines = vec![format!(
        "limits of queue {queue:?}, obeyed by every qctl consumer:"
    )];
    if let Some(rate) = limits.rate {
        let text = limits
            .rate_text
            .clone()
            .unwrap_or_else(|| format!("{rate}/s"));
        let burst = limits.burst.unwrap_or(1);
        let tokens = usage
            .tokens
            .map(|t| format!("; {t:.1} of {burst} may start now"))
            .unwrap_or_default();
        lines.push(format!("  rate         {text} (burst {burst}){tokens}"));
    }
    if let Some(max) = limits.max_running {
        lines.push(format!(
            "  max running  {max}; {} in flight at {}",
            usage.running,
            plural(
                usage.qctl_consumers + usage.other_consumers,
                "live consumer"
            )
        ));
    }
    if limits.stop_all() {
        lines.push("  a cap or rate of 0: no job starts, as if the queue were paused".to_string());
    }
    lines
}

/// The warning when consumers that ignore the limits are seen.
fn ignored(keys: &QueueKeys, usage: &Usage) -> String {
    let n = usage.other_consumers;
    format!(
        "{} of queue {:?} {} not qctl's (Go CurlyQ consumers, which register without a \
         description in {}:consumer:<uuid>): {} these limits; {} jobs still count against the cap",
        plural(n, "consumer"),
        keys.name,
        agree(n, "is", "are"),
        keys.name,
        agree(n, "it ignores", "they ignore"),
        agree(n, "its", "their")
    )
}
