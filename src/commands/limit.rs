//! `qctl limit QUEUE`: show or set the rate and the running cap every qctl consumer of a
//! queue obeys (engine/limits.rs), and how much of them is in use.

use super::Context;
use crate::cli::LimitArgs;
use crate::engine::limits::{self, Change};
use crate::engine::{changes, ExitCode};

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
        super::may_record(&mut redis, &keys).await?;
        limits::set(&mut redis, &keys, &change).await.map_err(|e| {
            super::unknown_change(e, || format!("the limits of queue {queue:?} were changed"))
        })?;
        let mut recorded = changes::Change::new("limit");
        recorded.of_queue = true;
        recorded.detail = limit_words(&args);
        super::record(&ctx, &mut redis, &keys, &recorded, None).await;
    }
    let now = limits::read(&mut redis, &keys).await?;
    let usage = limits::usage(&mut redis, &keys, &now, args.orphan_after).await?;
    if ctx.out.json {
        let value = limits::json(queue, &now, &usage);
        let written = ctx.out.json_line(&value).and_then(|_| ctx.out.flush());
        ctx.out.after_done(written)?;
    } else {
        let lines = limits::describe(queue, &now, &usage);
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
        ctx.out.warn(limits::ignored(&keys, &usage));
    }
    Ok(ExitCode::Success)
}

/// What `qctl limit` was told to set or clear, in its options' words: `rate 100/s, burst 5`,
/// `max-running cleared`, `every limit cleared`.
fn limit_words(args: &LimitArgs) -> String {
    if args.clear {
        return "every limit cleared".into();
    }
    let mut parts = Vec::new();
    if let Some(rate) = &args.rate {
        parts.push(format!("rate {}", rate.text));
    }
    if let Some(burst) = args.burst {
        parts.push(format!("burst {burst}"));
    }
    if let Some(n) = args.max_running {
        parts.push(format!("max-running {n}"));
    }
    if args.no_rate {
        parts.push("rate cleared".into());
    }
    if args.no_max_running {
        parts.push("max-running cleared".into());
    }
    parts.join(", ")
}
