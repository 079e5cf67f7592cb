//! `qctl consumers QUEUE`: each consumer's heartbeat age, jobs in flight, alive or expired.

use anyhow::Context as _;
use serde_json::json;

use super::Context;
use crate::engine::jobs::describe_time;
use crate::engine::{consumers, ExitCode};
use crate::output::{printable, relative};

pub async fn run(
    mut ctx: Context,
    queue: &str,
    orphan_after: std::time::Duration,
) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(queue)?;
    let mut redis = ctx.server()?.connect().await?;
    let list = consumers::list(&mut redis, &keys)
        .await
        .with_context(|| format!("cannot list the consumers of queue {queue:?}"))?;
    let now = redis.server_time().await?;
    let cutoff = now - orphan_after.as_secs_f64();
    if ctx.out.json {
        let rows: Vec<_> = list
            .iter()
            .map(|c| {
                json!({
                    "consumer": c.key,
                    "heartbeat": c.heartbeat,
                    "heartbeat_age_secs": (now - c.heartbeat).max(0.0),
                    "clock_ahead_secs": ahead(c.heartbeat, now),
                    "in_flight": c.in_flight,
                    "alive": c.heartbeat > cutoff,
                    "problem": c.problem.clone().or_else(|| ahead(c.heartbeat, now).map(|_| ahead_problem(c.heartbeat, now))),
                })
            })
            .collect();
        ctx.out.json_line(&rows)?;
    } else if list.is_empty() {
        ctx.out
            .note(format_args!("no consumers in {}", keys.consumers));
    } else {
        let mut table = ctx
            .out
            .table(&["CONSUMER", "HEARTBEAT", "IN FLIGHT", "STATE"]);
        for c in &list {
            let state = match (&c.problem, ahead(c.heartbeat, now), c.heartbeat > cutoff) {
                (Some(p), _, _) => format!("invalid: {p}"),
                (None, Some(_), _) => ahead_problem(c.heartbeat, now),
                (None, None, true) => "alive".into(),
                (None, None, false) => "expired".into(),
            };
            table.add_row(vec![
                printable(&c.key),
                format!(
                    "{} ({})",
                    relative(c.heartbeat, now),
                    describe_time(c.heartbeat)
                ),
                c.in_flight.map_or("?".into(), |n| n.to_string()),
                state,
            ]);
        }
        ctx.out.print_table(&table)?;
    }
    ctx.out.flush()?;
    Ok(ExitCode::Success)
}

/// How far (seconds) a heartbeat is in the future, when it is more than a few seconds.
fn ahead(heartbeat: f64, now: f64) -> Option<f64> {
    (heartbeat > now + consumers::AHEAD_TOLERANCE).then(|| (heartbeat - now).round())
}

fn ahead_problem(heartbeat: f64, now: f64) -> String {
    format!(
        "{}; a running qctl consumer recovers its jobs once the heartbeat stays unchanged for --orphan-after",
        consumers::ahead_note(heartbeat, now)
    )
}
