//! `qctl pause QUEUE` / `qctl resume QUEUE`: the flag qctl consumers honour.

use serde_json::json;

use super::Context;
use crate::engine::changes::Change;
use crate::engine::{queues, ExitCode};

pub async fn run(mut ctx: Context, queue: &str, pause: bool) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(queue)?;
    let mut redis = ctx.server()?.connect().await?;
    if pause {
        let then = "pausing it anyway: its consumers will find it paused";
        super::warn_unknown_queue(&ctx, &mut redis, &keys, then).await?;
    } else {
        super::require_queue(&mut redis, &keys).await?;
    }
    super::may_record(&mut redis, &keys).await?;
    let changed = queues::set_paused(&mut redis, &keys, pause)
        .await
        .map_err(|e| {
            let done = if pause { "paused" } else { "resumed" };
            super::unknown_change(e, || format!("queue {queue:?} was {done}"))
        })?;
    // Only a change is recorded: pausing a paused queue changed nothing.
    if changed {
        let action = if pause { "pause" } else { "resume" };
        let change = Change {
            of_queue: true,
            ..Change::new(action)
        };
        super::record(&ctx, &mut redis, &keys, &change, None).await;
    }
    let state = if pause { "paused" } else { "running" };
    if ctx.out.json {
        let value = json!({"queue": queue, "state": state, "changed": changed});
        let written = ctx.out.json_line(&value).and_then(|_| ctx.out.flush());
        ctx.out.after_done(written)?;
    } else if changed {
        ctx.out.note(format_args!("queue {queue:?} is {state}"));
    } else {
        ctx.out
            .note(format_args!("queue {queue:?} was already {state}"));
    }
    // The queue is in the state asked for either way: a runbook may pause twice.
    Ok(ExitCode::Success)
}
