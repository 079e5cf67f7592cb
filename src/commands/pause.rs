//! `qctl pause QUEUE` / `qctl resume QUEUE`: the flag qctl consumers honour.

use serde_json::json;

use super::Context;
use crate::engine::{self, ExitCode};

pub async fn run(mut ctx: Context, queue: &str, pause: bool) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(queue)?;
    let mut redis = ctx.server()?.connect().await?;
    let changed: bool = if pause {
        let since = json!({"since": engine::now()}).to_string();
        let set: Option<String> = redis
            .query(
                redis::cmd("SET").arg(&keys.paused).arg(since).arg("NX"),
                format!("SET {}", keys.paused),
            )
            .await?;
        set.is_some()
    } else {
        let n: u64 = redis
            .query(
                redis::cmd("DEL").arg(&keys.paused),
                format!("DEL {}", keys.paused),
            )
            .await?;
        n > 0
    };
    let state = if pause { "paused" } else { "running" };
    if ctx.out.json {
        ctx.out
            .json_line(&json!({"queue": queue, "state": state, "changed": changed}))?;
        ctx.out.flush()?;
    } else if changed {
        ctx.out.note(format_args!("queue {queue:?} is {state}"));
    } else {
        ctx.out
            .note(format_args!("queue {queue:?} was already {state}"));
    }
    Ok(if changed {
        ExitCode::Success
    } else {
        ExitCode::NothingDone
    })
}
